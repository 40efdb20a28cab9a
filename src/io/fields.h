/* SPDX-License-Identifier: MIT */
/**
 * fields.h: the fields of a run description (tp_config) and what each
 * front end calls them.
 *
 * libtp's validators (tp_config_validate, tp_model_validate,
 * tp_gpu_validate) name the offending field in err->path with its
 * canonical dotted name (the scheme is documented atop tp.h's
 * tp_config_validate and in DESIGN.md, "Configuration API"):
 *
 *   model.<tp_model member>     model.num_heads, model.head_dim
 *   gpu.<tp_gpu member>         gpu.mem_capacity_bytes, gpu.eff
 *   layout.<tp_train member>    the parallel layout: layout.tp, layout.num_gpus
 *   train.<tp_train member>     the rest of the setup: train.global_batch
 *   conventions.<tp_options member>  conventions.act_model
 *   plan.<tp_plan_in member>    plan.mfu, plan.phases (tp_plan_run)
 *
 * This table says what each front end calls the same field: the CLI's
 * flag ("--tp"), the key of a web API request body ("tp"), the value's
 * type, range and choices. Each front end words a library error in its
 * own terms through it: the CLI names the flag, the web API the JSON key,
 * an import the file's line and the engine's argument (src/cli/xio.c).
 *
 * The rows are also the slots of the run description (src/io/desc.h):
 * every row that is not a "plan." row is a slot, its index the row's
 * index, so a field is written once: add its row here, its --help line
 * to src/cli/opts.c (which takes the type, range and choices from the
 * row and checks at start that every slot has a help line) and either
 * the member it sets (a plain field: the _IN macros of fields.c) or what
 * it does in src/io/desc.c's builder. The
 * "plan." rows name the flags of `trainplan plan` (tp_plan_in), whose
 * own table in src/cli/cmd_plan.c is checked against them.
 *
 * Two rows may share a canonical name (--sp and --no-sp both set
 * layout.sp): the first row's flag is the one a message names. A field
 * the front ends do not set (gpu.mem_bw_...) has no row: its canonical
 * name is shown as it is.
 */
#ifndef TP_IO_FIELDS_H
#define TP_IO_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tp/tp.h"

typedef enum tp_io_field_type {
    TP_IO_FIELD_INT,    /* whole number in [imin, imax] */
    TP_IO_FIELD_NUM,    /* real in [fmin, fmax] */
    TP_IO_FIELD_NUM0,   /* 0 (none), or a real in [fmin, fmax] */
    TP_IO_FIELD_ENUM,   /* one of a list of names */
    TP_IO_FIELD_SWITCH, /* a boolean: given or not */
    TP_IO_FIELD_STR     /* a name (preset) */
} tp_io_field_type;

/* The struct a plain field's member is in (tp_config's parts). */
typedef enum tp_io_field_part {
    TP_IO_PART_NONE = 0,    /* the builder has code of its own for the field (desc.c) */
    TP_IO_PART_MODEL,       /* tp_model */
    TP_IO_PART_TRAIN,       /* tp_train */
    TP_IO_PART_CONVENTIONS, /* tp_options */
    TP_IO_PART_GPU          /* tp_gpu */
} tp_io_field_part;

typedef struct tp_io_field {
    const char *name; /* canonical: "layout.tp" */
    const char *flag; /* the CLI's flag: "--tp" */
    const char *key;  /* the web API's request key: "tp" */
    tp_io_field_type type;
    int64_t imin, imax;         /* TP_IO_FIELD_INT */
    double fmin, fmax;          /* TP_IO_FIELD_NUM, _NUM0 */
    const char *const *choices; /* TP_IO_FIELD_ENUM: NULL-terminated (desc.h's lists);
                                   NULL for plan's own */
    /* A plain field: the builder (desc.c) stores its value in the member at
     * `offset` of `part`'s struct, with no code of its own: an int64_t
     * (_INT), a double times scale (_NUM, _NUM0), a bool (_SWITCH: false
     * for a "--no-" flag, else true). */
    tp_io_field_part part;
    size_t offset;
    double scale;
} tp_io_field;

/** Number of rows, and row i (0 <= i < count). */
size_t tp_io_field_count(void);
const tp_io_field *tp_io_field_at(size_t i);

/** The row of a canonical name ("layout.tp"), or NULL. */
const tp_io_field *tp_io_field_find(const char *name);

/** The first row whose CLI flag is `flag` ("--tp"), or NULL. */
const tp_io_field *tp_io_field_by_flag(const char *flag);

/**
 * err->path in a front end's terms: the CLI flag's name without its
 * dashes ("tp") when for_cli, else the request key ("tp"); a path that is
 * no canonical name of the table is returned as it is.
 */
const char *tp_io_field_word(const char *path, bool for_cli);

/**
 * Does the request key set a field inside `part` ("model", "gpu"): a
 * change to the loaded preset, as opposed to the preset itself?
 */
bool tp_io_field_key_overrides(const char *key, const char *part);

/**
 * A plain switch or number of tp_options (a row of part CONVENTIONS, but
 * conventions.sac_ops, which each writer names first: search chooses it).
 * A --json result's "conventions" and an export's Reproduce line carry
 * each one that is not the default, and reading a result back sets it:
 * json_out.c, engines/common.c, result_read.c. Its JSON key is the
 * member's name (tp_io_field_member).
 */
bool tp_io_field_plain_convention(const tp_io_field *f);

/** The name after the part: "tp_comm_overlap" of "conventions.tp_comm_overlap". */
const char *tp_io_field_member(const tp_io_field *f);

/** The value a switch's flag sets: false for a "--no-" flag. */
bool tp_io_field_switch_sets(const tp_io_field *f);

/** A plain convention's value in o: a switch as 0 or 1, a number as stored. */
double tp_io_field_convention(const tp_io_field *f, const tp_options *o);

/**
 * Whether f is a plain convention whose value in o differs from its value
 * in d (the defaults), that value into *v: what a result's "conventions"
 * and an export's Reproduce line name.
 */
bool tp_io_field_convention_set(const tp_io_field *f, const tp_options *o, const tp_options *d,
                                double *v);

#endif /* TP_IO_FIELDS_H */
