/* SPDX-License-Identifier: MIT */
/*
 * io_internal.h: helpers shared by the writers and parsers of src/io (and
 * the CLI's "did you mean"), not part of the io.h interface.
 *
 *  - tp_io_edit_distance (util.c): the Levenshtein distance behind every
 *    "did you mean" suggestion.
 *  - tp_io_write_files (util.c): the one way trainplan writes a file
 *    (exports, --svg charts): temporary file, fsync, atomic link/rename,
 *    never replacing an existing file without force, nor anything but a
 *    regular file with it.
 *  - tp_io_read_file (util.c): the one way trainplan reads a file (every
 *    loader): regular files only, opened without blocking, size-bounded.
 *  - tp_io_safe_text (util.c): untrusted text made safe for a terminal,
 *    used by every human-readable writer and error message.
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
#include <stdio.h>

#include "tp/tp.h"

/* Strings longer than this are not compared (see tp_io_edit_distance). */
#define TP_IO_EDIT_MAX_LEN 64

/*
 * Levenshtein distance of a and b (insert, delete, substitute: 1 each);
 * fold_case compares ASCII letters case-insensitively. When either string is
 * longer than TP_IO_EDIT_MAX_LEN, the longer length (an upper bound).
 */
size_t tp_io_edit_distance(const char *a, const char *b, bool fold_case);

/*
 * The most a JSON text may hold (parse.c): objects and arrays, and values
 * of any kind (keys counted). The largest file trainplan reads for real, a
 * Hugging Face config of a vision model, holds a few thousand; the limits
 * keep a hostile file from costing more than about 100 MB of memory.
 */
#define TP_IO_JSON_MAX_CONTAINERS 100000
#define TP_IO_JSON_MAX_VALUES 1000000

/*
 * json_loadb that also reports running out of memory (parse.c): *oom true
 * (and NULL returned) when any allocation failed during the parse, even
 * one jansson itself swallowed. A text over the limits above is refused
 * before it is parsed: NULL, *oom false, *je saying which limit.
 */
json_t *tp_io__json_loads(const char *text, size_t len, size_t flags, json_error_t *je, bool *oom);

/*
 * A whole NUL-terminated JSON text into *root (parse.c), the errors worded
 * the loaders' way: TP_ERR_NOMEM with oom_message; TP_ERR_PARSE with
 * prefix + jansson's text and its line and column in err.
 */
tp_status tp_io__json_parse(const char *text, size_t flags, const char *oom_message,
                            const char *prefix, json_t **root, tp_error *err);

/* ---- the shipped hardware profiles (presets.c, hwprofile.c) ---- */

/* data/hardware/NAME.json as embedded in the binary, or NULL. */
const char *tp_io__hw_profile_text(const char *name);
/* The shipped profiles' names, ", "-separated, into buf (n bytes). */
void tp_io__hw_profile_names(char *buf, size_t n);

/*
 * The GEMM part of the shipped profile NAME applied to *g, the default of
 * a GPU whose description names it ("hw_profile"): eff.sm_count, tile,
 * mamf and mamf_fp8 as fractions of g's own peaks, then
 * tp_gpu_profile_eff; g->hw_profile = NAME. Not its HBM or collective measurements (those only
 * with --hw-profile FILE). key names the field in errors. *g is unchanged
 * on error (TP_ERR_CONFIG).
 */
tp_status tp_io__hw_profile_gemm(const char *name, const char *key, tp_gpu *g, tp_error *err);

/* ---- the parts of memory and step time (util.c) ---- */

/* v with its digits grouped in threes, "8,030,261,248", into buf (n bytes);
 * returns buf. */
const char *tp_io_commas(int64_t v, char *buf, size_t n);

/*
 * The text's rules for numbers (issue 19): counts of things (parameters,
 * tokens, steps, layouts, sequences, tokens/s) are grouped in threes with
 * tp_io_commas ("142,933 steps"); sizes a user types as a flag value
 * (hidden 4096, TP 8, seq 4096) are written as typed. A noun after a count
 * agrees with it: tp_io_plural(n, "layer", "layers") ("1 layer").
 */
const char *tp_io_plural(double n, const char *one, const char *many);

/*
 * One component of the per-GPU memory (a double of tp_memory, bytes) or of
 * the step time (a double of tp_time, seconds): its JSON breakdown key, its
 * label (lower case; reports capitalise it), and where it lives. The one
 * list, in report order, behind the JSON breakdowns, the SVG charts and the
 * Markdown tables.
 */
typedef struct tp_io_part {
    const char *key;
    const char *label;
    size_t offset;
} tp_io_part;

#define TP_IO_NUM_MEM_PARTS 9
#define TP_IO_NUM_TIME_PARTS 9
extern const tp_io_part tp_io_mem_parts[TP_IO_NUM_MEM_PARTS];
extern const tp_io_part tp_io_time_parts[TP_IO_NUM_TIME_PARTS];

/* The value of part p in the tp_memory or tp_time at s. */
static inline double tp_io_part_value(const void *s, const tp_io_part *p)
{
    return *(const double *)(const void *)((const char *)s + p->offset);
}

/* ---- files (util.c) ---- */

/** One file to write: its path and its whole content (len bytes). */
typedef struct tp_io_file {
    const char *path;
    const char *data;
    size_t len;
    const char *flag; /* the flag that named it ("--out"), for messages; may be NULL */
} tp_io_file;

/* The longest file name (one path component) trainplan writes: NAME_MAX
 * of Linux file systems. */
#define TP_IO_NAME_MAX 255

#define TP_IO_MAX_FILES 4

/**
 * Write n (<= TP_IO_MAX_FILES) files, all or nothing. Each is written to
 * a temporary file beside it ("PATH.tmp.XXXXXX", mode 0666 & ~umask),
 * fsync'd, then moved into place: without force by link() (so an
 * existing PATH, even one created meanwhile, is never replaced) and with
 * force by rename(); then the directory is fsync'd. No temporary file is
 * left behind on any error, and on an error no new file remains (with
 * force, files already renamed over stay replaced). Termination signals
 * are held while temporary files exist. Only a regular file (or a link to
 * one, which is replaced, not its target) is ever replaced; with several
 * files, the moves run under an exclusive flock on the first file's
 * directory (see the protocol in util.c for what remains).
 * Errors (err->message names the path; err->path is empty, or the file's
 * flag without dashes for the last three): TP_ERR_IO "PATH exists (use
 * --force to overwrite it)", "cannot write PATH: REASON", "PATH is a
 * character device; --force replaces regular files only" (any type that
 * is not a regular file, or "a symbolic link to ..."); TP_ERR_INVALID_ARG
 * "the file name \"...TAIL\" is N bytes long; a file name has at most 255
 * bytes", or an empty or repeated name; TP_ERR_NOMEM.
 */
tp_status tp_io_write_files(const tp_io_file *files, size_t n, bool force, tp_error *err);

/* The most a JSON input (model, GPU, plan file, import) and a runs CSV may
 * hold: bigger files are refused before they are read. */
#define TP_IO_MAX_JSON_BYTES ((size_t)16 << 20)
#define TP_IO_MAX_CSV_BYTES ((size_t)64 << 20)

/** How tp_io_read_file reads and what its messages say. */
typedef struct tp_io_read_opts {
    size_t max_bytes;  /* a multiple of 1 MiB; a longer file is refused */
    bool allow_stdin;  /* "-" reads standard input */
    bool quote;        /* messages show the path in double quotes */
    const char *field; /* err->path of every error ("" for none) */
} tp_io_read_opts;

/**
 * The one way trainplan reads a file (every loader: model and GPU JSON,
 * Hugging Face configs, imports, plan files, runs CSVs). Only a regular
 * file is read (or standard input for "-" when o->allow_stdin): the file
 * is opened with O_NONBLOCK, so a FIFO no one writes to cannot hang the
 * reader, and refused after fstat when it is not a regular file. A file
 * over o->max_bytes is refused without reading it whole. *out is a new
 * NUL-terminated buffer of *len bytes (the content may hold NUL bytes;
 * the caller frees it).
 * Errors (err->path = o->field): TP_ERR_IO "cannot read PATH: REASON"
 * (REASON a strerror text, "Is a directory" for a directory, or "larger
 * than N MiB"), "PATH is a FIFO (named pipe); trainplan reads regular
 * files only" (or a character device, a block device, a socket);
 * TP_ERR_NOMEM.
 */
tp_status tp_io_read_file(const char *path, const tp_io_read_opts *o, char **out, size_t *len,
                          tp_error *err);

/* "a directory", "a FIFO (named pipe)", "a character device", ... for a
 * st_mode (for messages: "PATH is a directory"). */
const char *tp_io_file_type(unsigned int mode);

/* ---- untrusted text (util.c) ---- */

/* Bytes tp_io_safe_text needs for a string of len bytes, with its NUL. */
#define TP_IO_SAFE_BYTES(len) (4 * (len) + 1)

/**
 * Untrusted text (a model or GPU name from a file or a request, a path, a
 * CSV cell) made safe to print on a terminal: C0 controls (ESC, CR, LF,
 * TAB, ...), DEL, C1 controls (U+0080..U+009F) and bytes that are not
 * well-formed UTF-8 become a visible "\xNN" escape; printable ASCII and
 * other UTF-8 pass through. Writes at most n bytes (with the NUL) into buf,
 * stopping before a character that would not fit, and returns buf. Every
 * human-readable writer (text reports, Markdown, CSV cells, error messages)
 * prints untrusted text through it.
 */
const char *tp_io_safe_text(const char *s, char *buf, size_t n);

/**
 * tp_io_safe_text of all of s: in small (small_n bytes) when it fits, else
 * in a new allocation the caller frees (result != small); NULL when memory
 * runs out.
 */
char *tp_io_safe_dup(const char *s, char *small, size_t small_n);

/** tp_io_safe_text of all of s, written to f (any length). */
void tp_io_put_safe(FILE *f, const char *s);

/**
 * "VERB MODEL on N x GPU (K per node), sequence S tokens, global batch B
 * sequences (T tokens)" and a line break: the first line of search's and
 * explain's text reports (search_out.c), names defused.
 */
void tp_io_run_header(FILE *f, const tp_config *c, const char *verb);

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
