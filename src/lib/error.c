/* SPDX-License-Identifier: MIT */
/* Status names and the error-report helper. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

const char *tp_version_string(void)
{
    return TP_VERSION_STRING;
}

const char *tp_strerror(tp_status code)
{
    switch (code) {
    case TP_OK: return "ok";
    case TP_ERR_INVALID_ARG: return "invalid-arg";
    case TP_ERR_PARSE: return "parse";
    case TP_ERR_CONFIG: return "config";
    case TP_ERR_UNKNOWN: return "unknown";
    case TP_ERR_RANGE: return "range";
    case TP_ERR_NOMEM: return "nomem";
    case TP_ERR_IO: return "io";
    case TP_ERR_INTERNAL: return "internal";
    case TP_ERR_STOPPED: return "stopped";
    }
    return "unknown-status";
}

tp_status tp_error_set(tp_error *err, tp_status code, const char *path, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->line = 0;
    err->column = 0;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}
