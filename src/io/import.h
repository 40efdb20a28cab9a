/* SPDX-License-Identifier: MIT */
/**
 * import.h: read what a user already launches (a Megatron-LM argument list
 * or a DeepSpeed ds_config.json) as trainplan settings.
 *
 * An import does not build a tp_config by itself: it records the values
 * of the run description's fields (src/io/desc.h, one slot per row of
 * src/io/fields.c) that say what the file says, each with where in the
 * file it came from. The CLI fills one description with them
 * (tp_io_import_fill, origin TP_IO_ORIGIN_FILE) and then with the user's
 * flags, so that the estimate is the same report the equivalent flags
 * give, a flag given on the command line overrides the file, and an
 * error about a value the file set names the file's argument or key and
 * its line and column. Model details no field expresses (biases,
 * position type, MoE layer pattern) and DeepSpeed's batch identity are
 * applied afterwards by tp_io_import_apply().
 *
 * Every argument or key is classified (docs/export.md lists them):
 *  - mapped: becomes the value of a field (a trainplan flag's);
 *  - ignored: cannot change memory or time (learning rate, paths, logging);
 *  - approximated: changes time or memory only through effects trainplan's
 *    calibrated model already stands for (overlap switches, fusions,
 *    bucket sizes); listed so the user sees it;
 *  - an error: changes memory or time in a way trainplan does not model
 *    (CPU offloading, FP4, ...), or is unknown to trainplan, which then
 *    cannot tell whether it matters.
 * Errors name the argument (err->path) and, for Megatron argument files,
 * its line and column.
 *
 * tp_import is a plain value (no allocation): strings live in its buffers.
 */
#ifndef TP_IO_IMPORT_H
#define TP_IO_IMPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "desc.h"
#include "tp/tp.h"

#define TP_IMPORT_MAX_VALUES 64 /* values of the run description's fields */

/* One value an import sets, and where in the file it came from. */
typedef struct tp_import_value {
    int slot;      /* of the run description (tp_io_desc_slot) */
    size_t off;    /* the value's text: tp_import.buf + off ("" for a switch) */
    char src[48];  /* the file's argument or key ("--tensor-model-parallel-size",
                      "layout.tp"); "" when not recorded */
    int line, col; /* 0 when not known */
} tp_import_value;

typedef enum tp_import_kind {
    TP_IMPORT_MEGATRON = 0,
    TP_IMPORT_DEEPSPEED,
    TP_IMPORT_TRAINPLAN,  /* a trainplan estimate/search result (--json) */
    TP_IMPORT_TORCHTITAN, /* a torchtitan job TOML or Python configuration */
    TP_IMPORT_NEMO        /* a NeMo / Megatron-Bridge YAML override file */
} tp_import_kind;

typedef struct tp_import {
    tp_import_kind kind;
    /* The values the file sets, in order (a later one for the same slot
     * wins, as a later flag does); set them with import_build.h's push_*
     * and read them with tp_io_import_fill / tp_io_import_value. */
    int nvals;
    tp_import_value vals[TP_IMPORT_MAX_VALUES];
    char buf[2048]; /* the values' text */
    size_t buf_used;
    char src[48]; /* scratch: the source of the next value pushed */
    int src_line, src_col;
    /* Megatron: the model the arguments describe (all fields). */
    bool has_model;
    tp_model model;
    bool has_vocab; /* --vocab-size or --padded-vocab-size was given */
    bool has_gpus;  /* the launcher (torchrun/deepspeed) gave the GPU count */
    /* A trainplan plan: the token budget of its first phase, 0 = none. */
    int64_t train_tokens;
    /* DeepSpeed batch settings, 0 = not given (or "auto"). */
    int64_t ds_train_batch, ds_micro_batch, ds_grad_accum;
    /* What was not mapped, for the user (comma-separated names, then sentences). */
    char ignored[2048];      /* cannot change memory or time */
    char approximated[2048]; /* folded into trainplan's calibrated model */
    char assumed[1024];      /* settings taken from defaults; "; "-separated */
    /* torchtitan: pipeline_parallel_layers_per_stage, 0 = not given */
    int64_t titan_layers_per_stage;
} tp_import;

/**
 * Parse a Megatron-LM launch: the arguments of pretrain_gpt.py as one
 * string or one per line, `--flag value` or `--flag=value`, `#` comments,
 * shell quotes and backslash line continuations. A leading launcher
 * (torchrun / python -m torch.distributed.run / deepspeed ... script.py)
 * is allowed; its --nnodes and --nproc-per-node give the GPU count.
 * origin names the input in the model name and messages (may be NULL).
 * Errors: TP_ERR_CONFIG (err->path the argument, err->line/column its
 * position), TP_ERR_INVALID_ARG for bad numbers.
 */
tp_status tp_io_import_megatron(const char *text, const char *origin, tp_import *out,
                                tp_error *err);

/**
 * Parse a DeepSpeed ds_config.json. The model, GPUs and the parallel sizes
 * the config does not hold come from the trainplan flags. Errors:
 * TP_ERR_PARSE (line, column), TP_ERR_CONFIG (err->path the key).
 */
tp_status tp_io_import_deepspeed(const char *text, const char *origin, tp_import *out,
                                 tp_error *err);

/**
 * Parse a trainplan result as written by `estimate --json` (an object with
 * "model", "gpu", "layout", "training", "conventions") or `search --json`
 * (an array of them: the first, the best ranked, is used), or `plan
 * --json` (its first phase: layout, sequence, batch, and its tokens in
 * train_tokens). Presets named in it are loaded and only what differs
 * from them becomes a flag.
 * Errors: TP_ERR_PARSE (line, column), TP_ERR_CONFIG (err->path the key).
 */
tp_status tp_io_import_trainplan(const char *text, const char *origin, tp_import *out,
                                 tp_error *err);

/**
 * Parse a torchtitan configuration: the job TOML of releases before
 * 2026-02-23 or the Python configuration since (as far as it is plain
 * data; src/engines/titan_import.c says what is read). Errors:
 * TP_ERR_CONFIG (err->path the setting, err->line its line).
 */
tp_status tp_io_import_torchtitan(const char *text, const char *origin, tp_import *out,
                                  tp_error *err);

/**
 * Parse a NeMo / Megatron-Bridge YAML override file (a YAML subset: plain
 * data; src/engines/nemo.c says what is read). The model and the GPU count
 * come from the trainplan flags unless the file sets the shape. Errors:
 * TP_ERR_CONFIG (err->path the key, err->line its line).
 */
tp_status tp_io_import_nemo(const char *text, const char *origin, tp_import *out, tp_error *err);

/**
 * Set every value of im in d, in order, with origin TP_IO_ORIGIN_FILE and
 * its place in the file (borrowed from im: im must outlive d). A value
 * the field cannot take as a value (empty, or starting with "--", as a
 * flag's value cannot) is TP_ERR_INVALID_ARG "--flag needs a value", as
 * on the command line.
 */
tp_status tp_io_import_fill(const tp_import *im, tp_io_desc *d, tp_error *err);

/** The value im sets for the flag's field ("--tp"), the last one; "" for a
 * switch; NULL when it sets none. */
const char *tp_io_import_value(const tp_import *im, const char *flag);

/** Read path and parse it as kind. Errors as above plus TP_ERR_IO. */
tp_status tp_io_import_load(tp_import_kind kind, const char *path, tp_import *out, tp_error *err);

/** Which settings the user gave as flags (they win over the file). */
typedef struct tp_import_user {
    bool model, vocab, gpus, micro_batch, global_batch;
} tp_import_user;

/**
 * After the flags (the import's, then the user's) were parsed into c: set the
 * model fields that no flag expresses, derive DeepSpeed's missing batch
 * setting and check train_batch_size = micro x accumulation x DP.
 * Errors: TP_ERR_INVALID_ARG (path "model", "gpus", "vocab") or
 * TP_ERR_CONFIG (path the DeepSpeed key).
 */
tp_status tp_io_import_apply(const tp_import *im, const tp_import_user *user, tp_config *c,
                             tp_error *err);

/** Number of argument names the Megatron importer knows (mapped or classified). */
size_t tp_io_import_megatron_known_count(void);
/** i-th known Megatron argument name ("--num-layers"), NULL past the end. */
const char *tp_io_import_megatron_known(size_t i);
/** i-th Megatron argument name the importer reads into settings (class
 * "mapped" in data/engines/megatron-classes.tsv), NULL past the end. */
const char *tp_io_import_megatron_mapped(size_t i);

#endif /* TP_IO_IMPORT_H */
