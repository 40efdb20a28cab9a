/* SPDX-License-Identifier: MIT */
/* Status names and the error-report helper. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The rule is TP_ERR_VALUE_MAX's (tp.h): here, when a message would not fit. */
#define ELIDE_MAX TP_ERR_VALUE_MAX

/* Bytes of s[0..n) to keep so that no UTF-8 character is cut in half. */
static size_t utf8_cut(const char *s, size_t n)
{
    while (n > 0 && ((unsigned char)s[n] & 0xC0u) == 0x80u)
        n--;
    return n;
}

/* Append s[0..n) to out (capacity cap, used *k), always NUL-terminated. */
static void put(char *out, size_t cap, size_t *k, const char *s, size_t n)
{
    if (*k + 1 >= cap)
        return;
    if (n > cap - 1 - *k)
        n = utf8_cut(s, cap - 1 - *k);
    memcpy(out + *k, s, n);
    *k += n;
    out[*k] = '\0';
}

/*
 * Messages embed user values, quoted ("...") or as one word; the
 * constraint is the text around them, in short words. When the whole
 * message does not fit err->message, every quoted span and every word
 * longer than ELIDE_MAX keeps its first ELIDE_MAX bytes and "...", so a
 * megabyte value still leaves "is out of range [1, 8]" in the message.
 * tp_io_quote cuts a quoted value the same way before it is formatted.
 */
static void elide(const char *msg, char *out, size_t cap)
{
    size_t k = 0;
    out[0] = '\0';
    for (const char *p = msg; *p;) {
        const char *end;
        bool quoted = *p == '"' && (end = strchr(p + 1, '"')) != NULL;
        if (quoted) {
            end++; /* past the closing quote */
        } else if (*p == ' ') {
            put(out, cap, &k, p++, 1);
            continue;
        } else {
            end = p;
            while (*end && *end != ' ')
                end++;
        }
        size_t inner = (size_t)(end - p) - (quoted ? 2 : 0);
        if (inner <= ELIDE_MAX) {
            put(out, cap, &k, p, (size_t)(end - p));
        } else if (quoted) {
            put(out, cap, &k, "\"", 1);
            put(out, cap, &k, p + 1, utf8_cut(p + 1, ELIDE_MAX));
            put(out, cap, &k, "...\"", 4);
        } else { /* a word keeps its trailing punctuation: "--phase KEY...: unknown" */
            const char *tail = end;
            while (tail > p && strchr(":;,.)", tail[-1]))
                tail--;
            put(out, cap, &k, p, utf8_cut(p, ELIDE_MAX));
            put(out, cap, &k, "...", 3);
            put(out, cap, &k, tail, (size_t)(end - tail));
        }
        p = end;
    }
}

tp_status tp_error_set(tp_error *err, tp_status code, const char *path, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->line = 0;
    err->column = 0;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof err->message) {
        char *full = malloc((size_t)n + 1);
        if (full) { /* else the plain cut stays */
            vsnprintf(full, (size_t)n + 1, fmt, ap2);
            elide(full, err->message, sizeof err->message);
            free(full);
        }
    }
    va_end(ap2);
    return code;
}
