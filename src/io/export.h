/* SPDX-License-Identifier: MIT */
/**
 * export.h: a trainplan plan in the languages of the training engines.
 *
 * Engines (docs/export.md has the full mapping, field by field; each has
 * its module in src/engines, engines.h):
 *  - Megatron-LM: pretrain_gpt.py arguments, one per line, `#` comments.
 *  - torchtitan:  a Python configuration module (the form since
 *                 2026-02-23: a function returning Trainer.Config);
 *    torchtitan-toml: the job TOML of the releases before ([job], [model],
 *                 [optimizer], [training], [parallelism],
 *                 [activation_checkpoint]).
 *  - DeepSpeed:   a ds_config JSON plus a comment file (JSON has no
 *                 comments) with the header and the parallel sizes the
 *                 JSON does not cover.
 * Every export starts with a header naming the trainplan version, the plan
 * (as the trainplan flags that reproduce it) and its predicted per-GPU
 * memory and throughput. Where the engine cannot express part of the plan,
 * the header lists it under "Not expressible" instead of dropping it.
 *
 * Ownership: every char * returned here is new memory; it is the caller's
 * responsibility to free it (tp_io_export_free for tp_export).
 */
#ifndef TP_IO_EXPORT_H
#define TP_IO_EXPORT_H

#include <stdio.h>

#include "tp/tp.h"

typedef enum tp_export_format {
    TP_EXPORT_MEGATRON = 0,
    TP_EXPORT_TORCHTITAN,
    TP_EXPORT_DEEPSPEED,
    TP_EXPORT_TORCHTITAN_TOML,
    TP_EXPORT_COUNT
} tp_export_format;

/** "megatron", "torchtitan", "deepspeed", "torchtitan-toml"; static string, never NULL. */
const char *tp_io_export_format_name(tp_export_format f);

/** Index of name among the format names; TP_ERR_UNKNOWN (path "format") if none. */
tp_status tp_io_export_format_parse(const char *name, tp_export_format *out, tp_error *err);

/** Settings of one export beyond the configuration itself. */
typedef struct tp_export_opts {
    int64_t train_tokens; /* token budget of the run; 0 = not part of the plan (no step count) */
} tp_export_opts;

/** One export: the engine file, an optional companion, and what did not fit. */
typedef struct tp_export {
    char *text;          /* the file: args, TOML or JSON */
    char *notes;         /* DeepSpeed: the comment file; NULL for the others */
    int num_unexpressed; /* items listed under "Not expressible" (0 = exact) */
} tp_export;

/**
 * Write the configuration c (evaluated as r by tp_eval) for engine f.
 * opts may be NULL. Errors: TP_ERR_NOMEM; TP_ERR_INVALID_ARG for a format
 * out of range. On success out holds new strings (tp_io_export_free).
 */
tp_status tp_io_export(tp_export_format f, const tp_config *c, const tp_result *r,
                       const tp_export_opts *opts, tp_export *out, tp_error *err);

/** Free the strings of an export; safe on a zeroed or already freed one. */
void tp_io_export_free(tp_export *e);

/**
 * The trainplan flags that rebuild c's layout and training setup after its
 * model and GPU ("--model NAME --gpu NAME --gpus 256 --tp 8 ..."), one
 * line, no trailing newline. New string; NULL when out of memory.
 */
char *tp_io_config_flags(const tp_config *c);

/**
 * What the line of tp_io_config_flags cannot carry of c: the model fields
 * no flag sets, a vision tower or a parallel block (give the model's file
 * with --model), a GPU that is not a preset (give its file with --gpu).
 * Written to buf as a "; "-separated list (cut at n); returns the number of
 * items, 0 when the line rebuilds c. Efficiencies changed in code (validate
 * --eff) are not seen: no flag sets them.
 */
int tp_io_config_flags_lost(const tp_config *c, char *buf, size_t n);

/* The estimate as Markdown and CSV moved to tabular.h (markdown.c, csv.c);
 * included here for the files that still reach them through export.h. */
#include "tabular.h"

#endif /* TP_IO_EXPORT_H */
