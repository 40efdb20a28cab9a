/* SPDX-License-Identifier: MIT */
/*
 * import_build.h: the few steps every importer takes to fill a tp_import
 * (import.h): push the equivalent trainplan flags with the place in the
 * file each came from, list what was ignored, approximated or assumed,
 * and name the model after the file. Shared by the engine importers
 * (src/engines/megatron.c, deepspeed.c) and the trainplan-result reader
 * (src/io/result_read.c), so that they word their notes alike.
 *
 * Small helpers, static inline so that each importer stays one unit with
 * no extra exported symbols. The limits below are the largest values an
 * import accepts for each kind of setting (MAX_BATCH also bounds the
 * DeepSpeed batch identity, deepspeed.c).
 */
#ifndef TP_IO_IMPORT_BUILD_H
#define TP_IO_IMPORT_BUILD_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "import.h"

/* The next flag pushed comes from the file's key (at line:col, 0 if not
 * known); push_word records it for messages and clears it. */
static inline void from(tp_import *im, const char *key, int line, int col)
{
    snprintf(im->src, sizeof im->src, "%s", key);
    im->src_line = line;
    im->src_col = col;
}

/* Append one argv word. Returns false when the fixed buffers are full
 * (cannot happen with the flags written here; checked anyway). */
static inline bool push_word(tp_import *im, const char *w)
{
    size_t n = strlen(w) + 1;
    if (im->argc >= TP_IMPORT_MAX_ARGS || im->argbuf_used + n > sizeof im->argbuf)
        return false;
    if (strncmp(w, "--", 2) == 0) {
        memcpy(im->argsrc[im->argc], im->src, sizeof im->src);
        im->argline[im->argc] = im->src_line;
        im->argcol[im->argc] = im->src_col;
        from(im, "", 0, 0);
    }
    memcpy(im->argbuf + im->argbuf_used, w, n);
    im->argoff[im->argc++] = im->argbuf_used;
    im->argbuf_used += n;
    return true;
}

static inline bool push_flag(tp_import *im, const char *flag)
{
    return push_word(im, flag);
}

static inline bool push_i64(tp_import *im, const char *flag, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return push_word(im, flag) && push_word(im, buf);
}

static inline bool push_str(tp_import *im, const char *flag, const char *v)
{
    return push_word(im, flag) && push_word(im, v);
}

/* Add name to a comma-separated list once; "..." when the list is full. */
static inline void list_add(char *list, size_t cap, const char *name)
{
    size_t n = strlen(name), len = strlen(list);
    const char *p = list;
    while ((p = strstr(p, name)) != NULL) {
        bool start = p == list || (p >= list + 2 && p[-2] == ',' && p[-1] == ' ');
        bool end = p[n] == '\0' || p[n] == ',';
        if (start && end)
            return;
        p += n;
    }
    if (len >= 3 && strcmp(list + len - 3, "...") == 0)
        return;
    const char *sep = len ? ", " : "";
    if (len + strlen(sep) + n + 5 >= cap) {
        if (len + 6 < cap)
            snprintf(list + len, cap - len, "%s...", sep);
        return;
    }
    snprintf(list + len, cap - len, "%s%s", sep, name);
}

/* Add a sentence to im->assumed ("; "-separated). */
static inline void assume(tp_import *im, const char *text)
{
    size_t len = strlen(im->assumed);
    if (len + strlen(text) + 3 >= sizeof im->assumed)
        return;
    snprintf(im->assumed + len, sizeof im->assumed - len, "%s%s", len ? "; " : "", text);
}

static inline tp_status full(tp_error *err)
{
    return tp_error_set(err, TP_ERR_INTERNAL, "", "import: too many equivalent flags");
}

/* The model name: the file's base name without its extension. */
static inline void origin_name(const char *origin, const char *fallback, char *out, size_t n)
{
    const char *base = origin ? strrchr(origin, '/') : NULL;
    base = base ? base + 1 : origin;
    if (!base || !*base || strcmp(base, "-") == 0) {
        snprintf(out, n, "%s", fallback);
        return;
    }
    size_t len = strcspn(base, ".");
    if (len == 0)
        len = strlen(base);
    snprintf(out, n, "%.*s", (int)(len < n - 1 ? len : n - 1), base);
}

/* Push x (a push_* call) or return "too many equivalent flags"; needs a
 * tp_error *err in scope. */
#define PUSH(x)                                                                                    \
    do {                                                                                           \
        if (!(x))                                                                                  \
            return full(err);                                                                      \
    } while (0)

#endif /* TP_IO_IMPORT_BUILD_H */
