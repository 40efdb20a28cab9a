/* SPDX-License-Identifier: MIT */
/**
 * validate.h: measured runs (the rows of a runs file, runs_csv.h) mapped to
 * trainplan configurations, predicted with libtp and compared with what was
 * measured; the summary statistics of the comparison. `trainplan validate`
 * (src/cli/cmd_validate.c) parses its flags and prints what these return.
 *
 * How a row is read, which assumptions fill what it leaves out, and how
 * each quantity is compared: the header comment of validate.c.
 *
 * Ownership: a tp_io_vrow's id points into the CSV table it was evaluated
 * from; it lives as long as that table. Nothing here allocates that the
 * caller must free.
 */
#ifndef TP_IO_VALIDATE_H
#define TP_IO_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runs_csv.h"
#include "tp/tp.h"

/* ---- efficiency overrides (--eff) ---- */

#define TP_IO_EFF_MAX_OVERRIDES 128

typedef struct tp_io_eff_override {
    char gpu[24]; /* "" = every GPU, else a prefix of the GPU name */
    char key[24];
    double value;
} tp_io_eff_override;

typedef struct tp_io_eff_overrides {
    tp_io_eff_override v[TP_IO_EFF_MAX_OVERRIDES];
    size_t n;
    bool unfused_full_matrix; /* validate --unfused-full-matrix: tp_options' of every row */
    bool grouped_gemm;        /* validate --grouped-gemm: tp_options' of every row */
    bool fitted_gemm;         /* validate --fitted-gemm: every row's GPU at the fitted GEMM
                                 fractions, not its preset's profile (tp_io_gpu_fitted_gemm) */
    bool moe_a2a_overlap;     /* validate --moe-a2a-overlap: tp_options' of every Megatron-Core
                                 row whose layout Megatron-Core allows it on */
} tp_io_eff_overrides;

/**
 * Parse "gemm=0.7,h100:attn=0.5" (KEY=VALUE or GPU:KEY=VALUE items; keys
 * and ranges in validate.c). Errors TP_ERR_INVALID_ARG, path "eff", worded
 * for the --eff flag.
 */
tp_status tp_io_eff_overrides_parse(const char *list, tp_io_eff_overrides *ov, tp_error *err);

/** Apply the overrides whose GPU prefix matches g->name (all, in order).
 *  One that changes the profile's GEMM part (sm_count, tile_m, tile_n,
 *  mamf, mamf_fp8) clears g->hw_profile. */
void tp_io_eff_overrides_apply(const tp_io_eff_overrides *ov, tp_gpu *g);

/* Internal (validate_gpu.c): does hay contain needle, case-insensitively?
 * (how validate reads the runs file's free-text cells) */
bool tp_io__contains_ci(const char *hay, const char *needle);

/* Internal (validate_gpu.c): the table entry for a gpu_type cell, NULL
 * when none matches; preset NULL: not a GPU trainplan models. */
typedef struct tp_io__vgpu {
    const char *all_of[3]; /* NULL-terminated words, all in the cell */
    const char *preset;    /* GPU preset name, NULL = not modelled */
} tp_io__vgpu;
const tp_io__vgpu *tp_io__validate_gpu_of(const char *type);

/* ---- one row ---- */

/** What a row's memory figure measures (column memory_metric). */
typedef enum tp_io_mem_metric {
    TP_IO_MEM_NONE = 0,
    TP_IO_MEM_NVSMI,    /* nvidia-smi used: our total */
    TP_IO_MEM_RESERVED, /* torch max reserved: less CUDA context and NCCL buffers */
    TP_IO_MEM_ACTIVE,   /* torch peak active: less the fragmentation reserve too */
    TP_IO_MEM_ALLOCATED /* torch max allocated: as active (issue 17) */
} tp_io_mem_metric;

/** "nvidia-smi used", "torch reserved", "torch peak active", "torch max
 * allocated", or "". */
const char *tp_io_mem_metric_name(tp_io_mem_metric m);

/** One row, predicted and compared. */
typedef struct tp_io_vrow {
    const char *id;
    int line;
    bool evaluated; /* false: reason says why (never dropped) */
    char reason[384];
    char assume[1024]; /* the assumptions that filled what the row leaves out, "; "-separated */
    char gpu[TP_NAME_MAX];
    /* throughput */
    bool has_tput;
    const char *tput_kind; /* short basis for the table: published, step time, ... */
    char tput_basis[200];
    double meas_tps, pred_tps, tput_err;
    /* memory */
    bool has_mem;
    tp_io_mem_metric metric;
    const char *mem_unit; /* "GiB" or "GB" */
    double meas_mem, pred_mem, mem_err;
    /* verdict, from the heaviest stage */
    bool expect_fit, pred_fit;
    double fit_total_bytes, fit_capacity_bytes;
    int64_t fit_stage;
    /* prediction */
    tp_time time;  /* step-time breakdown */
    tp_memory mem; /* the compared stage's memory breakdown */
    double step_s, mfu;
    const char *bottleneck;
    const char *recompute;
    tp_config config; /* the configuration predicted (its assumptions applied) */
} tp_io_vrow;

/**
 * Evaluate data record `row` of a runs file (checked with tp_io_runs_check)
 * into *v, with the efficiency overrides ov applied to its GPU.
 */
void tp_io_validate_row(const tp_io_csv *csv, size_t row, const tp_io_eff_overrides *ov,
                        tp_io_vrow *v);

/**
 * The `trainplan estimate` command that gives evaluated row v's prediction
 * (the flags of v->config, tp_io_config_flags). New string; NULL when no
 * command can: why then says what no flag carries (eff_given: efficiencies
 * set with --eff; what tp_io_config_flags_lost names), or
 * "out of memory".
 */
char *tp_io_validate_reproduce(const tp_io_vrow *v, bool eff_given, char *why, size_t n);

/* ---- the summary ---- */

/**
 * Relative errors (predicted / measured - 1) of the rows that have one:
 * count, the median, p90 and max of their absolute values, and the median
 * of the signed ones (the bias: > 0 predicts more throughput or memory).
 */
typedef struct tp_io_vstats {
    size_t n;
    double median, p90, max;
    double median_signed;
} tp_io_vstats;

/**
 * Statistics of |relative error| over the rows with a throughput (memory
 * false) or a memory (memory true) comparison; percentiles interpolate
 * linearly between closest ranks (NumPy's default). All zero when no row
 * has one (or when memory for the sort runs out).
 */
tp_io_vstats tp_io_validate_stats(const tp_io_vrow *rows, size_t n, bool memory);

/** Rows evaluated, and of those the ones whose fit verdict is right. */
void tp_io_validate_counts(const tp_io_vrow *rows, size_t n, size_t *evaluated, size_t *fit_ok);

#endif /* TP_IO_VALIDATE_H */
