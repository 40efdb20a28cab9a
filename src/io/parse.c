/* SPDX-License-Identifier: MIT */
/*
 * parse.c: whole-string number parsing shared by the CLI and the file
 * loaders, and the names of the library's enums.
 *
 * Numbers. A value is accepted only if the entire string is a number:
 * no leading or trailing space, no "nan"/"inf", no hex, no suffixes.
 * Integers may be written with an exponent ("1e6") when the value is an
 * exact integer. Messages name the flag exactly as the caller gave it
 * ("--tp: ..."); err->path carries the same name without leading dashes,
 * which is the convention of tp_config_validate ("tp", "global-batch").
 *
 * JSON text. tp_io__json_loads is json_loads that also reports running out
 * of memory. jansson does not always: its lexer drops a character of a
 * token when growing its buffer fails (load.c lex_save ignores the error),
 * so "4096" may parse as "496", and a string token may then be decoded
 * past its end. jansson's allocator is therefore replaced,
 * once, by one that notes a failed allocation in a per-thread flag, and a
 * parse during which one failed is thrown away and reported as
 * TP_ERR_NOMEM (tests/unit/test_alloc.c fails each allocation in turn).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"

static _Thread_local int json_in_parse, json_alloc_failed;

/*
 * After one failure inside a parse, every later allocation of that parse
 * fails too: jansson's lexer, having dropped a character, would otherwise
 * go on to decode the shortened token (and can read past it: a crash
 * found by tests/unit/test_alloc.c); the decode allocates first, so it
 * stops there. The parse is thrown away anyway.
 */
static void *json_alloc(size_t n)
{
    if (json_in_parse && json_alloc_failed)
        return NULL;
    void *p = malloc(n);
    if (!p)
        json_alloc_failed = 1;
    return p;
}

static void json_release(void *p)
{
    free(p);
}

static pthread_once_t json_alloc_once = PTHREAD_ONCE_INIT;

static void json_alloc_install(void)
{
    json_set_alloc_funcs(json_alloc, json_release);
}

/*
 * Count the values of a JSON text before jansson builds them: every
 * object or array, and every other value (one per ',' or ':' outside a
 * string, plus one), so that a small file of many empty containers ("[{},
 * {},...]": about 230 bytes of jansson's memory for 3 bytes of input) is
 * refused before it is allocated. The count is exact for valid JSON up to
 * the difference between ':' and ',' (it counts keys too, an upper bound);
 * invalid JSON is left to the parser. False, with *je filled as jansson
 * fills it, when a limit is passed.
 */
static bool json_within_limits(const char *text, size_t len, json_error_t *je)
{
    size_t containers = 0, values = 1;
    int line = 1, column = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        column++;
        if (in_string) {
            if (c == '\\' && i + 1 < len) {
                i++;
                column++;
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        switch (c) {
        case '"': in_string = true; break;
        case '\n':
            line++;
            column = 0;
            break;
        case '{':
        case '[': containers++; break;
        case ',':
        case ':': values++; break;
        default: break;
        }
        if (containers > TP_IO_JSON_MAX_CONTAINERS || values > TP_IO_JSON_MAX_VALUES) {
            if (je) {
                memset(je, 0, sizeof *je);
                je->line = line;
                je->column = column;
                je->position = (int)(i < (size_t)INT32_MAX ? i : (size_t)INT32_MAX);
                snprintf(je->text, sizeof je->text,
                         "more than %s %s (a limit of trainplan's JSON reader)",
                         containers > TP_IO_JSON_MAX_CONTAINERS ? "100,000" : "1,000,000",
                         containers > TP_IO_JSON_MAX_CONTAINERS ? "objects and arrays" : "values");
            }
            return false;
        }
    }
    return true;
}

json_t *tp_io__json_loads(const char *text, size_t len, size_t flags, json_error_t *je,
                          bool *oom)
{
    *oom = false;
    if (!json_within_limits(text, len, je))
        return NULL;
    pthread_once(&json_alloc_once, json_alloc_install);
    json_alloc_failed = 0;
    json_in_parse = 1;
    json_t *root = json_loadb(text, len, flags, je);
    json_in_parse = 0;
    *oom = json_alloc_failed != 0;
    if (*oom) {
        json_decref(root);
        root = NULL;
    }
    return root;
}

/* Largest integer a double holds exactly (2^53): the limit for "1e6"-style input. */
#define EXACT_DOUBLE_INT_MAX 9007199254740992.0

/* The field name without its leading dashes, for err->path. */
static const char *bare_name(const char *field)
{
    while (*field == '-')
        field++;
    return field;
}

/* Only decimal digits, sign, point and exponent: rejects hex, nan, inf and spaces. */
static int decimal_chars_only(const char *s)
{
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E'))
            return 0;
    }
    return 1;
}

tp_status tp_io_parse_i64(const char *field, const char *s, int64_t min, int64_t max, int64_t *out,
                          tp_error *err)
{
    if (!field)
        field = "value";
    if (!s || !*s || !decimal_chars_only(s))
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: expected an integer, got \"%s\"", field, s ? s : "");
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end == '\0') {
        if (errno == ERANGE || v < min || v > max)
            return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                                "%s: %s is out of range [%lld, %lld]", field, s, (long long)min,
                                (long long)max);
        *out = (int64_t)v;
        return TP_OK;
    }
    /* Not plain digits: accept an exponent form that is an exact integer ("1e6"). */
    errno = 0;
    double d = strtod(s, &end);
    if (*end != '\0' || !isfinite(d) || d - floor(d) > 0.0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: expected an integer, got \"%s\"", field, s);
    if (errno == ERANGE || fabs(d) > EXACT_DOUBLE_INT_MAX || d < (double)min || d > (double)max)
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: %s is out of range [%lld, %lld]", field, s, (long long)min,
                            (long long)max);
    *out = (int64_t)d;
    return TP_OK;
}

tp_status tp_io_parse_f64(const char *field, const char *s, double min, double max, double *out,
                          tp_error *err)
{
    if (!field)
        field = "value";
    if (!s || !*s || !decimal_chars_only(s))
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: expected a number, got \"%s\"", field, s ? s : "");
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    if (*end != '\0' || end == s)
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: expected a number, got \"%s\"", field, s);
    /* ERANGE on underflow (1e-400) is a tiny finite value: only overflow is an error. */
    if (!isfinite(d) || d < min || d > max)
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: %s is out of range [%g, %g]", field, s, min, max);
    *out = d;
    return TP_OK;
}

/* ---- enum names (the CLI's choice lists use the same spellings) ---- */

const char *tp_io_precision_name(tp_precision p)
{
    switch (p) {
    case TP_PREC_BF16: return "bf16";
    case TP_PREC_FP16: return "fp16";
    case TP_PREC_FP8: return "fp8";
    case TP_PREC_TF32: return "tf32";
    case TP_PREC_COUNT: break;
    }
    return "unknown";
}

const char *tp_io_schedule_name(tp_schedule s)
{
    switch (s) {
    case TP_SCHED_1F1B: return "1f1b";
    case TP_SCHED_INTERLEAVED: return "interleaved";
    case TP_SCHED_GPIPE: return "gpipe";
    }
    return "unknown";
}

const char *tp_io_recompute_name(tp_recompute r)
{
    switch (r) {
    case TP_RECOMPUTE_NONE: return "none";
    case TP_RECOMPUTE_SELECTIVE: return "selective";
    case TP_RECOMPUTE_FULL: return "full";
    }
    return "unknown";
}

const char *tp_io_dtype_name(tp_dtype d)
{
    switch (d) {
    case TP_DTYPE_FP32: return "fp32";
    case TP_DTYPE_BF16: return "bf16";
    case TP_DTYPE_FP16: return "fp16";
    case TP_DTYPE_INT8: return "int8";
    }
    return "unknown";
}

/*
 * "adamw", "adamw-bf16", "adamw-8bit", "sgd-momentum", "sgd": the CLI's
 * --optimizer choices. fp32 moments carry no suffix; int8 moments are the
 * block-wise 8-bit optimizers, spelled "8bit". Plain SGD has no state, so
 * its moment type is not named. Master weights are a separate switch.
 */
const char *tp_io_optimizer_name(const tp_optimizer *o)
{
    if (!o)
        return "unknown";
    switch (o->kind) {
    case TP_OPT_ADAMW:
        switch (o->moment_dtype) {
        case TP_DTYPE_FP32: return "adamw";
        case TP_DTYPE_BF16: return "adamw-bf16";
        case TP_DTYPE_FP16: return "adamw-fp16";
        case TP_DTYPE_INT8: return "adamw-8bit";
        }
        break;
    case TP_OPT_SGD_MOMENTUM:
        switch (o->moment_dtype) {
        case TP_DTYPE_FP32: return "sgd-momentum";
        case TP_DTYPE_BF16: return "sgd-momentum-bf16";
        case TP_DTYPE_FP16: return "sgd-momentum-fp16";
        case TP_DTYPE_INT8: return "sgd-momentum-8bit";
        }
        break;
    case TP_OPT_SGD: return "sgd";
    }
    return "unknown";
}
