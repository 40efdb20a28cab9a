/* SPDX-License-Identifier: MIT */
/*
 * import_build.h: the few steps every importer takes to fill a tp_import
 * (import.h): push the values of the run description's fields, named by
 * their trainplan flag, with the place in the file each came from, list what was ignored, approximated or assumed,
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

#include "desc.h"
#include "import.h"

/* The next value pushed comes from the file's key (at line:col, 0 if not
 * known); push_value records it for messages and clears it. */
static inline void from(tp_import *im, const char *key, int line, int col)
{
    snprintf(im->src, sizeof im->src, "%s", key);
    im->src_line = line;
    im->src_col = col;
}

/* Append text to im->buf; false when it is full. */
static inline bool put_text(tp_import *im, const char *text, size_t *off)
{
    size_t n = strlen(text) + 1;
    if (im->buf_used + n > sizeof im->buf)
        return false;
    memcpy(im->buf + im->buf_used, text, n);
    *off = im->buf_used;
    im->buf_used += n;
    return true;
}

/*
 * Record value (NULL for a switch) for the field of the trainplan flag
 * `flag` ("--tp": its row in src/io/fields.c). Returns false when the
 * fixed buffers are full (cannot happen with the values written here;
 * checked anyway) or the flag sets no field of the run description.
 */
static inline bool push_value(tp_import *im, const char *flag, const char *value)
{
    int slot = tp_io_desc_slot(flag);
    if (slot < 0 || im->nvals >= TP_IMPORT_MAX_VALUES)
        return false;
    tp_import_value *v = &im->vals[im->nvals];
    if (!put_text(im, value ? value : "", &v->off))
        return false;
    v->slot = slot;
    memcpy(v->src, im->src, sizeof v->src);
    v->line = im->src_line;
    v->col = im->src_col;
    im->nvals++;
    from(im, "", 0, 0);
    return true;
}

/* A switch ("--sp"). */
static inline bool push_flag(tp_import *im, const char *flag)
{
    return push_value(im, flag, NULL);
}

static inline bool push_i64(tp_import *im, const char *flag, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return push_value(im, flag, buf);
}

static inline bool push_str(tp_import *im, const char *flag, const char *v)
{
    return push_value(im, flag, v);
}

/*
 * Argument-vector style, for an importer written that way: a flag word
 * ("--tp") starts a value as push_flag does, the next word that is no
 * flag ("8") becomes its value.
 */
static inline bool push_word(tp_import *im, const char *w)
{
    if (strncmp(w, "--", 2) == 0)
        return push_value(im, w, NULL);
    if (im->nvals == 0 || im->buf[im->vals[im->nvals - 1].off] != '\0')
        return false; /* a value with no flag before it */
    return put_text(im, w, &im->vals[im->nvals - 1].off);
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
    return tp_error_set(err, TP_ERR_INTERNAL, "",
                        "import: too many equivalent flags, or a flag with no row in "
                        "src/io/fields.c");
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
