/* SPDX-License-Identifier: MIT */
/*
 * sbuf.h: a growable text buffer for the writers of src/io (export, svg,
 * import messages). Private to src/io; header-only so that each writer
 * keeps its functions static.
 *
 * Failure is sticky: after an allocation fails every append is a no-op and
 * sb_take() returns NULL, so writers check once at the end.
 */
#ifndef TP_IO_SBUF_H
#define TP_IO_SBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool failed;
} sbuf;

static inline bool sb_reserve(sbuf *b, size_t extra)
{
    if (b->failed)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    b->s = s;
    b->cap = cap;
    return true;
}

static inline void sb_putn(sbuf *b, const char *s, size_t n)
{
    if (!sb_reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static inline void sb_puts(sbuf *b, const char *s)
{
    sb_putn(b, s, strlen(s));
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline void
sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        sb_putn(b, small, (size_t)n);
        return;
    }
    if (!sb_reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/** The text, or NULL if any append failed. Caller frees; b is reset. */
static inline char *sb_take(sbuf *b)
{
    char *s = b->failed ? NULL : b->s;
    if (b->failed)
        free(b->s);
    else if (!s)
        s = calloc(1, 1);
    memset(b, 0, sizeof *b);
    return s;
}

static inline void sb_free(sbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

#endif /* TP_IO_SBUF_H */
