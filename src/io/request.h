/* SPDX-License-Identifier: MIT */
/**
 * request.h: JSON requests of the web API, mapped onto the run
 * description (src/io/desc.h) the CLI's flags fill too.
 *
 * A request body is one JSON object whose keys are the CLI's flag names
 * without the leading dashes (src/io/fields.c lists each field's key),
 * and whose values are what the flag takes:
 *
 *   {"model": "llama-3-8b", "gpu": "h100-sxm", "gpus": 64, "tp": 2,
 *    "pp": 4, "zero": 1, "recompute": "selective", "sp": true}
 *
 * means what `estimate --model llama-3-8b --gpu h100-sxm --gpus 64 --tp 2
 * --pp 4 --zero 1 --recompute selective --sp` means: the keys that are
 * fields of the run description are recorded in r->desc, which
 * tp_io_desc_build turns into the tp_config as it does the CLI's, so that
 * a request and the command line get the same defaults and derived
 * values, and fail with the same messages. Every key is also kept in
 * r->items, in order, for the command's own parser (src/cli: its own keys
 * such as search's "top", and the words for a key that is no flag).
 * Rules:
 *  - a string or a number is the value (integers as written, reals as
 *    text with 17 significant digits, so 8.0 reads as 8);
 *  - true is a switch given ("sp": true is --sp), false and null are the
 *    key absent, exactly as on the command line (say "no-sp": true);
 *  - keys are in the order of the object, so of two opposite switches the
 *    later one wins, as on the command line;
 *  - an array of such values is the key repeated, in order; only plan's
 *    "phase" may repeat, an array for any other key is an error (the CLI
 *    would keep the last value and hide the rest); objects are errors,
 *    except "model-config";
 *  - "model-config": the text of a trainplan model JSON or a Hugging Face
 *    config.json (a string, so that errors carry its line and column), or
 *    the same as an object. It stands for `--model FILE`: the CLI loads a
 *    file, the server never reads the file system, so "model" and "gpu"
 *    must name presets (the server's build, tp_io_desc_build with
 *    presets_only, looks nowhere else).
 *  - "gpu-config": the text of a trainplan GPU JSON (presets/gpus/ *.json),
 *    or that object: a GPU of one's own, as "model-config" is a model;
 *    "gpu" and the GPU override keys cannot be combined with it.
 *  - for "search" only, "offset" and "limit" (integers) are not keys of
 *    the run but ask for one page of the ranked results (docs/serve.md):
 *    they set paged, offset and limit and are not items.
 *
 * Ownership: tp_io_request_parse fills a caller-owned tp_io_request; free
 * its contents with tp_io_request_free (also after a failed parse).
 */
#ifndef TP_IO_REQUEST_H
#define TP_IO_REQUEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "desc.h"
#include "tp/tp.h"

/** Largest request body the web API accepts, bytes. */
#define TP_IO_REQUEST_MAX_BYTES ((size_t)64 * 1024)

/** Longest page of search results ("limit"), and its default. */
#define TP_IO_REQUEST_MAX_LIMIT 1000
#define TP_IO_REQUEST_DEFAULT_LIMIT 10
/** Largest "offset" (beyond any list the search returns). */
#define TP_IO_REQUEST_MAX_OFFSET 1000000

/** One key of a request, as given. */
typedef struct tp_io_request_item {
    char *key;  /* owned: "tp" */
    char *text; /* owned: the value as text; NULL for true (a switch given) */
} tp_io_request_item;

typedef struct tp_io_request {
    tp_io_request_item *items; /* every key but the page and inline configs, in order */
    size_t count;              /* items */
    tp_io_desc desc;           /* the items that set fields of the run (borrowing their text) */
    char *model_text;          /* "model-config" text, owned; NULL when absent */
    char *gpu_text;            /* "gpu-config" text, owned; NULL when absent */
    bool paged;                /* search: "offset" or "limit" was given */
    int64_t offset;            /* search: first result of the page, from 0 */
    int64_t limit;             /* search: results in the page (when paged) */
} tp_io_request;

/**
 * Parse a request body (len bytes, need not be NUL-terminated) for the
 * CLI command `command` ("estimate", "search", "plan"). Errors:
 * TP_ERR_PARSE (not JSON: line and column in the body), TP_ERR_CONFIG
 * (not an object, a key that is not a flag name, a value of the wrong
 * JSON type; err->path names the key), TP_ERR_INVALID_ARG ("model" or
 * "gpu" names a file), TP_ERR_NOMEM. Unknown keys, a value for a switch
 * and bad values are left to the command's parser and tp_io_desc_build,
 * which report them as the CLI does; the server words its errors for the
 * API with tp_io_request_word_error.
 */
tp_status tp_io_request_parse(const char *body, size_t len, const char *command, tp_io_request *out,
                              tp_error *err);

/**
 * Set the page field `key` ("offset" or "limit") of r to v, range-checked
 * (offset 0..TP_IO_REQUEST_MAX_OFFSET, limit 1..TP_IO_REQUEST_MAX_LIMIT);
 * TP_ERR_CONFIG naming the key otherwise. Sets r->paged.
 */
tp_status tp_io_request_page(tp_io_request *r, const char *key, int64_t v, tp_error *err);

/** Free what tp_io_request_parse allocated; r may be zeroed or NULL. */
void tp_io_request_free(tp_io_request *r);

/**
 * Parse the "model-config" text of a request into *out (origin
 * "model-config": a config without a name is called that). err->path is
 * prefixed "model-config." and line/column point into the text.
 */
tp_status tp_io_request_model(const tp_io_request *r, tp_model *out, tp_error *err);

/** tp_io_request_model of the text alone (tp_io_desc_build's model_text). */
tp_status tp_io_inline_model_parse(const char *text, tp_model *out, tp_error *err);

/**
 * Parse the "gpu-config" text (a trainplan GPU JSON) into *out; err->path
 * prefixed "gpu-config.". Replaces the preset GPU after the flags are
 * parsed: the GPU override flags cannot be combined with it.
 */
tp_status tp_io_request_gpu(const tp_io_request *r, tp_gpu *out, tp_error *err);

/**
 * The one place a request's inline GPU replaces what the flags loaded:
 * "gpu-config" becomes c->gpu when given, after the command's parser
 * filled c from the flags. ("model-config" is the run description's
 * model_text: tp_io_desc_build reads it where it would load --model, so
 * "image-tokens" and "freeze-vision" apply to it as to a --model file.)
 */
tp_status tp_io_request_inline(const tp_io_request *r, tp_config *c, tp_error *err);

/**
 * The list of presets, {"models": [...], "gpus": [...]}, the same object
 * `trainplan presets --json` prints. New reference, or NULL when a preset
 * does not load or memory runs out (then *err says which).
 */
json_t *tp_io_presets_json(tp_error *err);

/**
 * Word a configuration error in the web API's terms: err->path, when a
 * canonical field name ("layout.tp", tp.h), becomes the request key that
 * sets that field ("tp", src/io/fields.h); a message that begins with
 * the CLI flag of that key ("--tp: ") loses that prefix, the "path" of
 * the error body naming the key. Other errors are left as they are.
 */
void tp_io_request_word_error(tp_error *err);

/**
 * An error as the web API's body: {"error": {"code", "path", "line",
 * "column", "message"}}, code being tp_strerror(err->code) unless
 * code_name is non-NULL. New reference, or NULL when out of memory.
 */
json_t *tp_io_error_json(const tp_error *err, const char *code_name);

#endif /* TP_IO_REQUEST_H */
