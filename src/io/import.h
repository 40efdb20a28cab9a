/* SPDX-License-Identifier: MIT */
/**
 * import.h: read what a user already launches (a Megatron-LM argument list
 * or a DeepSpeed ds_config.json) as trainplan settings.
 *
 * An import does not build a tp_config by itself: it translates the file
 * into the trainplan flags that say the same thing (tp_io_import_arg), which
 * the CLI parses ahead of the user's own flags, so that the estimate is the
 * same report the equivalent flags give and a flag given on the command
 * line overrides the file. Model details no flag can express (biases,
 * position type, MoE layer pattern) and DeepSpeed's batch identity are
 * applied afterwards by tp_io_import_apply().
 *
 * Every argument or key is classified (docs/export.md lists them):
 *  - mapped: becomes a trainplan flag;
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

#include "tp/tp.h"

#define TP_IMPORT_MAX_ARGS 96 /* trainplan flags and values */

typedef enum tp_import_kind {
    TP_IMPORT_MEGATRON = 0,
    TP_IMPORT_DEEPSPEED,
    TP_IMPORT_TRAINPLAN,  /* a trainplan estimate/search result (--json) */
    TP_IMPORT_TORCHTITAN, /* a torchtitan job TOML or Python configuration */
    TP_IMPORT_NEMO        /* a NeMo / Megatron-Bridge YAML override file */
} tp_import_kind;

typedef struct tp_import {
    tp_import_kind kind;
    /* The equivalent trainplan flags, argv style ("--tp", "8", ...): entry i
     * is argbuf + argoff[i]; read them with tp_io_import_arg(). */
    int argc;
    size_t argoff[TP_IMPORT_MAX_ARGS];
    char argbuf[4096];
    size_t argbuf_used;
    /* Where each flag came from, by its index above (issue 14: an error
     * about a value the file set names the file's own argument or key and
     * its position): "--tensor-model-parallel-size" at line 3, column 1,
     * or "layout.tp" (line 0: not known). Empty when not recorded. Read
     * them with tp_io_import_source(). */
    char argsrc[TP_IMPORT_MAX_ARGS][48];
    int argline[TP_IMPORT_MAX_ARGS], argcol[TP_IMPORT_MAX_ARGS];
    char src[48]; /* scratch: the source of the next flag pushed */
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

/** The i-th equivalent trainplan flag or value (0 <= i < im->argc). */
const char *tp_io_import_arg(const tp_import *im, int i);

/**
 * Where the value of the imported flag `flag` ("--tp") came from: true and
 * *key (the file's argument or key), *line and *col (0 when not known)
 * when the import recorded it; false when the import does not set the
 * flag or did not record its source. The last occurrence counts.
 */
bool tp_io_import_source(const tp_import *im, const char *flag, const char **key, int *line,
                         int *col);

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
