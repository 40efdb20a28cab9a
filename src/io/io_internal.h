/* SPDX-License-Identifier: MIT */
/*
 * io_internal.h: helpers shared by the writers and parsers of src/io (and
 * the CLI's "did you mean"), not part of the io.h interface.
 *
 *  - tp_io_edit_distance (util.c): the Levenshtein distance behind every
 *    "did you mean" suggestion.
 *  - the JSON builder (json_out.c, plan_out.c): header-only so that each
 *    serializer keeps its functions static. The first failure (a non-finite
 *    value, a jansson allocation) sticks in jb.ok; callers check it once.
 */
#ifndef TP_IO_INTERNAL_H
#define TP_IO_INTERNAL_H

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Strings longer than this are not compared (see tp_io_edit_distance). */
#define TP_IO_EDIT_MAX_LEN 64

/*
 * Levenshtein distance of a and b (insert, delete, substitute: 1 each);
 * fold_case compares ASCII letters case-insensitively. When either string is
 * longer than TP_IO_EDIT_MAX_LEN, the longer length (an upper bound).
 */
size_t tp_io_edit_distance(const char *a, const char *b, bool fold_case);

/* ---- JSON builder ---- */

typedef struct jb {
    bool ok;
} jb;

static inline json_t *jb_obj(jb *b)
{
    json_t *o = json_object();
    if (!o)
        b->ok = false;
    return o;
}

/* Steals v; a NULL parent or value marks the build failed. */
static inline void jb_set(jb *b, json_t *o, const char *key, json_t *v)
{
    if (!o || !v) {
        b->ok = false;
        json_decref(v);
        return;
    }
    if (json_object_set_new(o, key, v) != 0)
        b->ok = false;
}

static inline void put_int(jb *b, json_t *o, const char *key, int64_t v)
{
    jb_set(b, o, key, json_integer((json_int_t)v));
}

static inline void put_real(jb *b, json_t *o, const char *key, double v)
{
    if (!isfinite(v)) {
        b->ok = false;
        return;
    }
    jb_set(b, o, key, json_real(v));
}

static inline void put_bool(jb *b, json_t *o, const char *key, bool v)
{
    jb_set(b, o, key, json_boolean(v));
}

/* v as a JSON string, NULL as null; text that is not UTF-8 becomes `fallback`. */
static inline void jb_put_str(jb *b, json_t *o, const char *key, const char *v,
                              const char *fallback)
{
    json_t *j = v ? json_string(v) : json_null();
    if (!j && v)
        j = json_string(fallback);
    jb_set(b, o, key, j);
}

#endif
