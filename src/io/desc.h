/* SPDX-License-Identifier: MIT */
/**
 * desc.h: the run description every front end fills, and the one
 * builder that turns it into a tp_config.
 *
 * A front end (the CLI's flags, a web API request body, an engine
 * import) records what the user gave, field by field, with
 * tp_io_desc_set; tp_io_desc_build then loads the model and GPU (preset
 * or file), takes the library defaults (tp_train_default,
 * tp_options_default), applies every value given and derives the
 * defaults that depend on others:
 *
 *   global batch = micro-batch x DP (unless --global-batch or
 *   --global-batch-tokens), sp on exactly when tp > 1, interleaved
 *   schedule when vpp > 1, selective recompute when modules are named,
 *   Llama 3.1's factors when a llama3 rotary scaling is first chosen.
 *
 * The slots are the rows of src/io/fields.c: slot i is row i, for every
 * row but plan's own ("plan."); tp_io_desc_slot finds a flag's slot. A
 * value's type, range and choices are its row's. A field is written once
 * (fields.h says how): its row, its --help line (src/cli/opts.c) and,
 * unless the row names the member it sets, its code in the builder
 * (desc.c), which names the slot by its flag.
 *
 * A front end records each value with its origin: a CLI flag, a web API
 * key, or a line of an imported file (tp_io_desc_set_file, with the
 * file's own argument or key and its line and column, which the CLI's
 * messages quote). Values are kept as the text given (a JSON scalar is
 * written as text by the request front end) and checked by the same
 * parsers (tp_io_parse_i64/_f64/_enum) with the same ranges and messages
 * when the description is built, in one fixed order, not when set: the last value of a field wins, so a value
 * overridden later is never judged, and the first error reported does
 * not depend on the order the front end gave the fields in.
 *
 * Errors name the field as the CLI flag without dashes ("tp") or the
 * canonical field ("layout.tp", from tp_config_validate); each front end
 * words them in its own terms (src/io/fields.h).
 */
#ifndef TP_IO_DESC_H
#define TP_IO_DESC_H

#include <stdbool.h>

#include "tp/tp.h"

/** The model and GPU of a description that names neither. */
#define TP_IO_DEFAULT_MODEL "llama-3-8b"
#define TP_IO_DEFAULT_GPU "h100-sxm"

/* Choice lists of the enumerated fields, NULL-terminated; the index is
 * what tp_io_parse_enum returns. */
extern const char *const tp_io_mlp_names[];      /* tp_mlp */
extern const char *const tp_io_norm_names[];     /* tp_norm */
extern const char *const tp_io_qk_norm_names[];  /* tp_qk_norm */
extern const char *const tp_io_sched_names[];    /* schedule */
extern const char *const tp_io_recomp_names[];   /* recompute */
extern const char *const tp_io_prec_names[];     /* precision */
extern const char *const tp_io_grad_names[];     /* gradient dtype */
extern const char *const tp_io_opt_names[];      /* optimizer and moment dtype */
extern const char *const tp_io_attn_names[];     /* tp_attn_flops */
extern const char *const tp_io_act_names[];      /* tp_act_model */
extern const char *const tp_io_ckpt_names[];     /* tp_ckpt_model */
extern const char *const tp_io_coll_names[];     /* tp_coll_model */
extern const char *const tp_io_fw_names[];       /* tp_framework (framework.c) */
extern const char *const tp_io_bias_names[];     /* linear biases */
extern const char *const tp_io_pos_names[];      /* tp_pos */
extern const char *const tp_io_rope_names[];     /* tp_rope_scaling */
extern const char *const tp_io_pp_split_names[]; /* tp_pp_split */
extern const char *const tp_io_offload_names[];  /* tp_offload_device (parameter offload) */
extern const char *const tp_io_recipe_names[];   /* tp_fp8_recipe */

/** Where a value came from (for the front end's wording). */
typedef enum tp_io_origin {
    TP_IO_ORIGIN_NONE, /* not given */
    TP_IO_ORIGIN_FLAG, /* a CLI flag */
    TP_IO_ORIGIN_KEY,  /* a web API request key */
    TP_IO_ORIGIN_FILE  /* a line of an imported file */
} tp_io_origin;

#define TP_IO_DESC_SLOTS 160 /* > the rows of src/io/fields.c (fields.c checks) */

/* Where in an imported file a value came from (TP_IO_ORIGIN_FILE). */
typedef struct tp_io_desc_src {
    const char *key; /* the file's own argument or key ("--tensor-model-parallel-size",
                        "layout.tp"), borrowed; NULL when not recorded */
    int line, col;   /* 0 when not known */
} tp_io_desc_src;

typedef struct tp_io_desc {
    const char *val[TP_IO_DESC_SLOTS]; /* the last value given, borrowed; "" for a switch */
    int order[TP_IO_DESC_SLOTS];       /* when it was given, 1, 2, ...; 0 = not given */
    tp_io_origin origin[TP_IO_DESC_SLOTS];
    tp_io_desc_src src[TP_IO_DESC_SLOTS]; /* origin TP_IO_ORIGIN_FILE: where in the file */
    int count;                            /* values set so far */
    /* an inline model config (the web API's "model-config", borrowed; NULL:
     * none): the model instead of loading --model, before the overrides and
     * the vision tower's training settings apply, as to a --model file */
    const char *model_text;
} tp_io_desc;

/** An empty description: nothing given. */
void tp_io_desc_init(tp_io_desc *d);

/**
 * The slot of a shared configuration flag ("--tp"), or -1 when the flag
 * sets no field of the run description (--json, a command's own flag).
 */
int tp_io_desc_slot(const char *flag);

/** The slot a web API request key sets ("tp": the flag without its dashes), or -1. */
int tp_io_desc_slot_key(const char *key);

/**
 * Record `value` (borrowed: it must outlive the build; "" for a switch)
 * for slot (from tp_io_desc_slot). A later value replaces an earlier
 * one; of two opposite switches (--sp, --no-sp) the later one wins.
 */
void tp_io_desc_set(tp_io_desc *d, int slot, const char *value, tp_io_origin origin);

/**
 * tp_io_desc_set with origin TP_IO_ORIGIN_FILE and where in the file the
 * value is (src->key borrowed, as value is): an engine import's value.
 */
void tp_io_desc_set_file(tp_io_desc *d, int slot, const char *value, const tp_io_desc_src *src);

/**
 * Where the value of a slot came from when it came from a file and the
 * import recorded it: true and *src; false otherwise (not given, given
 * last by a flag or a request key, or not recorded).
 */
bool tp_io_desc_file_source(const tp_io_desc *d, int slot, tp_io_desc_src *src);

/** The value given for a slot, or NULL. */
const char *tp_io_desc_get(const tp_io_desc *d, int slot);

/** The model and GPU the description names (preset or file), or the defaults. */
const char *tp_io_desc_model(const tp_io_desc *d);
const char *tp_io_desc_gpu(const tp_io_desc *d);

typedef struct tp_io_desc_opts {
    bool presets_only; /* model and GPU must be presets; no --hw-profile (the server) */
    /* called once the model has loaded, before any override (the CLI's
     * note on a Hugging Face config's ignored keys); may be NULL */
    void (*model_loaded)(const char *name_or_path);
} tp_io_desc_opts;

/**
 * Build *c from d (see above). Does not run tp_config_validate. On error
 * fills err: err->path is the flag without its dashes ("tp"), or, when
 * *err_file is set, a field of that model/GPU/profile file (its name).
 */
tp_status tp_io_desc_build(const tp_io_desc *d, const tp_io_desc_opts *o, tp_config *c,
                           const char **err_file, tp_error *err);

/**
 * An enumerated value: the index of val in choices (NULL-terminated).
 * Else TP_ERR_INVALID_ARG with path flag+2 ("--mlp" -> "mlp") and the
 * closest choice when it is a plausible typo.
 */
tp_status tp_io_parse_enum(const char *flag, const char *const *choices, const char *val, int *out,
                           tp_error *err);

#endif /* TP_IO_DESC_H */
