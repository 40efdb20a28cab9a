/* SPDX-License-Identifier: MIT */
/*
 * parse.c: whole-string number parsing shared by the CLI and the file
 * loaders, and the names of the library's enums.
 *
 * Numbers. A value is accepted only if the entire string is a number:
 * no leading or trailing space, no "nan"/"inf", no hex, no suffixes.
 * Integers are read as exact decimals, never through a double: digits,
 * or a decimal with a fraction and/or exponent whose exact value is whole
 * ("1e6", "2.5e3", "8.0"); "8.0000000000000001" is not an integer. Reals:
 * -0 reads as 0, and a nonzero value below the smallest normal double
 * (2.2e-308: "1e-320" is a subnormal, "1e-400" underflows to 0) is an
 * error, never a silent 0 or subnormal; each caller states the range its
 * quantity is meaningful in (tp_io_parse_f64_or0 where 0 means "none").
 * A quoted value is cut at TP_IO_QUOTE_MAX bytes ("...") so that the
 * message keeps its constraint. Messages name the flag exactly as the caller gave it
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
#include <float.h>
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

json_t *tp_io__json_loads(const char *text, size_t len, size_t flags, json_error_t *je, bool *oom)
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

tp_status tp_io__json_parse(const char *text, size_t flags, const char *oom_message,
                            const char *prefix, json_t **root, tp_error *err)
{
    json_error_t je;
    bool oom = false;
    *root = tp_io__json_loads(text, strlen(text), flags, &je, &oom);
    if (oom)
        return tp_error_set(err, TP_ERR_NOMEM, "", "%s", oom_message);
    if (!*root) {
        tp_error_set(err, TP_ERR_PARSE, "", "%s%s", prefix, je.text);
        if (err) {
            err->line = je.line;
            err->column = je.column;
        }
        return TP_ERR_PARSE;
    }
    return TP_OK;
}

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

const char *tp_io_quote(const char *s, char *buf, size_t n)
{
    if (!s)
        s = "";
    size_t len = strlen(s);
    if (len <= TP_IO_QUOTE_MAX || n < TP_IO_QUOTE_MAX + 4) {
        snprintf(buf, n, "%s", s);
        return buf;
    }
    /* Cut at a UTF-8 character boundary: never leave half a character. */
    size_t cut = TP_IO_QUOTE_MAX;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0u) == 0x80u)
        cut--;
    snprintf(buf, n, "%.*s...", (int)cut, s);
    return buf;
}

/*
 * The exact decimal value of s, when it is a whole number: [sign] digits
 * [. digits] [e [sign] digits]. The digits are read as a decimal mantissa
 * and a power of ten, never through a double, so "8.0000000000000001" is
 * not 8 and "2.5e3" is 2500. Returns 0 when s is not that form or not
 * whole, 1 when whole and in int64 range (*out set), 2 when whole but
 * beyond int64.
 */
static int exact_integer(const char *s, int64_t *out)
{
    const char *p = s;
    bool neg = false;
    if (*p == '+' || *p == '-')
        neg = *p++ == '-';
    const char *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    const char *int_end = p;
    const char *frac = p, *frac_end = p;
    if (*p == '.') {
        frac = ++p;
        while (*p >= '0' && *p <= '9')
            p++;
        frac_end = p;
    }
    if (int_end == digits && frac_end == frac)
        return 0; /* no digit at all */
    long long exp10 = 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        bool eneg = false;
        if (*p == '+' || *p == '-')
            eneg = *p++ == '-';
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        for (; *p >= '0' && *p <= '9'; p++)
            if (exp10 < 100000000000000LL)       /* 1e14: more than any string has digits, so */
                exp10 = exp10 * 10 + (*p - '0'); /* saturating keeps the answer exact */
        if (eneg)
            exp10 = -exp10;
    }
    if (*p != '\0')
        return 0;
    /* Mantissa digit i (integer digits then fraction digits) has place
     * value 10^(exp10 + nint - 1 - i). */
    long long nint = int_end - digits, nfrac = frac_end - frac;
    long long first = -1, last = -1;
    for (long long i = 0; i < nint + nfrac; i++) {
        char c = i < nint ? digits[i] : frac[i - nint];
        if (c != '0') {
            if (first < 0)
                first = i;
            last = i;
        }
    }
    if (first < 0) {
        *out = 0;
        return 1;
    }
    long long place_last = exp10 + nint - 1 - last;
    if (place_last < 0)
        return 0; /* a nonzero digit right of the point */
    if (exp10 + nint - first > 19)
        return 2; /* 20 digits or more */
    uint64_t v = 0;
    for (long long i = first; i <= last; i++)
        v = v * 10u + (uint64_t)((i < nint ? digits[i] : frac[i - nint]) - '0');
    for (long long i = 0; i < place_last; i++)
        v *= 10u; /* 19 digits at most: below 2^64 */
    if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
        return 2;
    *out = neg ? (int64_t)(0u - v) : (int64_t)v;
    return 1;
}

/*
 * Counts with a decimal suffix (issue 19): "600B", "4M", "4k", "1.5T" are
 * 600e9, 4e6, 4e3 and 1.5e12. k or K = 1e3, M = 1e6, B, G or b = 1e9
 * (billion; giga), T or t = 1e12; never binary (4M is 4,000,000, not
 * 4 x 2^20), and only after a plain number ("1e3k" is refused). Lower-case
 * m is refused: it could mean milli. Writes the equivalent exponent form
 * into buf and returns buf, or returns s unchanged. Used by both parsers,
 * so every count and quantity the CLI or a file takes accepts it; the
 * range check that follows is the same.
 */
static const char *expand_suffix(const char *s, char *buf, size_t n)
{
    static const char sfx[] = "kKMBGbTt";
    static const int exp10[] = {3, 3, 6, 9, 9, 9, 12, 12};
    size_t len = s ? strlen(s) : 0;
    if (len < 2 || len + 4 > n)
        return s;
    const char *hit = strchr(sfx, s[len - 1]);
    if (!hit || !*hit)
        return s;
    for (size_t i = 0; i + 1 < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || (i == 0 && s[i] == '-')))
            return s;
    snprintf(buf, n, "%.*se%d", (int)(len - 1), s, exp10[hit - sfx]);
    return buf;
}

/* a equals the lower-case word w, ignoring the case of a (ASCII). */
static bool same_letters(const char *a, const char *w)
{
    for (; *a && *w; a++, w++)
        if ((*a >= 'A' && *a <= 'Z' ? *a - 'A' + 'a' : *a) != *w)
            return false;
    return *a == '\0' && *w == '\0';
}

/* A number with a suffix we do not take: say what we do take. */
static const char *suffix_hint(const char *s)
{
    size_t i = 0;
    if (!s)
        return "";
    while ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')
        i++;
    if (i == 0 || !s[i])
        return "";
    const char *rest = s + i;
    static const char *const words[] = {"m",   "mi",  "mib",     "ki",      "kib",      "gi",
                                        "gib", "kb",  "mb",      "gb",      "tb",       "bn",
                                        "mn",  "mil", "million", "billion", "trillion", "thousand"};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
        if (same_letters(rest, words[w]))
            return " (counts take a decimal suffix: k = 1e3, M = 1e6, B or G = 1e9, T = 1e12, "
                   "as in 600B or 4M; or write 600e9)";
    return "";
}

tp_status tp_io_parse_i64(const char *field, const char *s, int64_t min, int64_t max, int64_t *out,
                          tp_error *err)
{
    if (!field)
        field = "value";
    char q[TP_IO_QUOTE_MAX + 4];
    tp_io_quote(s, q, sizeof q);
    int64_t v = 0;
    char xs[64];
    const char *x = expand_suffix(s, xs, sizeof xs);
    int kind = x && *x && decimal_chars_only(x) ? exact_integer(x, &v) : 0;
    if (kind == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: expected an integer, got \"%s\"%s", field, q, suffix_hint(s));
    if (kind == 2 || v < min || v > max)
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: %s is out of range [%lld, %lld]", field, q, (long long)min,
                            (long long)max);
    *out = v;
    return TP_OK;
}

/* A nonzero digit before the exponent: "1e-400" is not zero even where strtod says 0. */
static bool nonzero_mantissa(const char *s)
{
    for (const char *p = s; *p && *p != 'e' && *p != 'E'; p++)
        if (*p >= '1' && *p <= '9')
            return true;
    return false;
}

/*
 * The one rule for reals: the whole string is a decimal number; -0 reads
 * as 0; a nonzero value too small to be a normal double (below 2.2e-308,
 * which strtod gives as a subnormal or as 0) is an error, never 0.
 * zero_ok: the range is "0, or [min, max]".
 */
static tp_status parse_real(const char *field, const char *s, double min, double max, bool zero_ok,
                            double *out, tp_error *err)
{
    if (!field)
        field = "value";
    char q[TP_IO_QUOTE_MAX + 4];
    tp_io_quote(s, q, sizeof q);
    const char *hint = suffix_hint(s);
    char xs[64];
    s = expand_suffix(s, xs, sizeof xs);
    if (!s || !*s || !decimal_chars_only(s))
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: expected a number, got \"%s\"%s", field, q, hint);
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    if (*end != '\0' || end == s)
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: expected a number, got \"%s\"%s", field, q, hint);
    bool zero = fpclassify(d) == FP_ZERO;
    bool tiny = nonzero_mantissa(s) && (zero || fabs(d) < DBL_MIN);
    if (zero && !tiny)
        d = 0.0; /* -0 -> 0 */
    if (zero_ok) {
        if (tiny || !isfinite(d) || (!zero && (d < min || d > max)))
            return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                                "%s: %s is out of range (0, or [%g, %g])", field, q, min, max);
    } else if (isfinite(d) && max <= 1.0 && d >= 2.0 && d <= 100.0 && d / 100.0 >= min) {
        /* a fraction given as a percentage: --mfu 40 */
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: %s is out of range [%g, %g]: a fraction, not a percentage "
                            "(%g%% is %g)",
                            field, q, min, max, d, d / 100.0);
    } else if (!isfinite(d) || d < min || d > max) {
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: %s is out of range [%g, %g]", field, q, min, max);
    } else if (tiny) {
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare_name(field),
                            "%s: %s is too small to compute with (0, or a magnitude of at least "
                            "%g)",
                            field, q, DBL_MIN);
    }
    *out = d;
    return TP_OK;
}

tp_status tp_io_parse_f64(const char *field, const char *s, double min, double max, double *out,
                          tp_error *err)
{
    return parse_real(field, s, min, max, false, out, err);
}

tp_status tp_io_parse_f64_or0(const char *field, const char *s, double min, double max, double *out,
                              tp_error *err)
{
    return parse_real(field, s, min, max, true, out, err);
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
    case TP_SCHED_DUALPIPE: return "dualpipe";
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
