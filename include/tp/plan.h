/* SPDX-License-Identifier: MIT */
/**
 * plan.h: capacity planning, part of the libtp public contract (included by
 * tp/tp.h). From intent to cluster: scaling laws -> tokens -> steps ->
 * FLOPs -> GPU-hours -> cost -> wall clock, the inverse problems (GPUs for
 * a deadline, hours a budget buys, required MFU, the model a budget
 * affords), the parallel layout, checkpointing and failures, staged phases
 * and the learning-rate schedule (docs/plan.md; formulas.md sections 2.1,
 * 5 and 6; seeds 000 and 001).
 *
 * Units as in tp.h: *_flops (FLOP), *_s (seconds), *_h (hours), *_bytes
 * (1 GB = 1e9 B), *_usd (US dollars), *_per_hour (per GPU-hour unless the
 * name says otherwise). Token and parameter counts are doubles: they are
 * planning quantities (600e9 tokens), not exact counts.
 *
 * Everything here is pure computation, reentrant, and never prints. Only
 * tp_plan_run allocates (through the layout search), and frees before it
 * returns.
 */
#ifndef TP_PLAN_H
#define TP_PLAN_H
#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Scaling laws (src/lib/scaling.c)                                    */
/* ------------------------------------------------------------------ */

/** The parametric loss fits of formulas.md 5.1. */
typedef enum tp_fit_id {
    TP_FIT_BESIROGLU = 0,    /* Besiroglu et al. 2024 replication (default) */
    TP_FIT_HOFFMANN,         /* Hoffmann et al. 2022 approach 3, unrounded   */
    TP_FIT_HOFFMANN_ROUNDED, /* Hoffmann et al. 2022 approach 3, as printed  */
    TP_FIT_COUNT
} tp_fit_id;

/**
 * L(N, D) = E + A / N^alpha + B / D^beta, nats per token, N parameters
 * (embeddings included, Hoffmann's convention), D training tokens.
 */
typedef struct tp_scaling_fit {
    const char *name; /* "besiroglu", "hoffmann", "hoffmann-rounded" */
    double E, A, B, alpha, beta;
    const char *source; /* citation */
} tp_scaling_fit;

/** The fit with this id; static storage; NULL when id is out of range. */
TP_API const tp_scaling_fit *tp_scaling_fit_get(tp_fit_id id);
/** The fit named `name` (case-sensitive, "hoffmann-unrounded" is an alias); NULL if none. */
TP_API const tp_scaling_fit *tp_scaling_fit_find(const char *name);

/** Predicted loss L(N, D) in nats/token; NaN unless params, tokens > 0. */
TP_API double tp_scaling_loss(const tp_scaling_fit *f, double params, double tokens);

/** One point of a scaling law: a model size, its tokens, their compute. */
typedef struct tp_scaling_point {
    double compute_flops;    /* C = 6 N D */
    double params;           /* N */
    double tokens;           /* D */
    double tokens_per_param; /* D / N */
    double loss;             /* L(N, D) under the fit used, nats/token (0 without a fit) */
} tp_scaling_point;

/**
 * Compute-optimal allocation of C FLOPs under C = 6 N D (Hoffmann et al.
 * 2022 eq. 4; formulas.md 5.2): N_opt = G (C/6)^a, D_opt = (C/6)^b / G,
 * G = (alpha A / (beta B))^(1/(alpha+beta)), a = beta/(alpha+beta),
 * b = alpha/(alpha+beta). Errors: TP_ERR_INVALID_ARG unless C > 0, finite.
 */
TP_API tp_status tp_scaling_optimal(const tp_scaling_fit *f, double compute_flops,
                                    tp_scaling_point *out, tp_error *err);

/**
 * The tokens-per-parameter rule (formulas.md 5.3): C = 6 N (r N), so
 * N = sqrt(C / (6 r)), D = r N; r = 20 is Chinchilla's. The loss is filled
 * when f is non-NULL. Errors: TP_ERR_INVALID_ARG unless C, r > 0.
 */
TP_API tp_status tp_scaling_rule(const tp_scaling_fit *f, double compute_flops,
                                 double tokens_per_param, tp_scaling_point *out, tp_error *err);

/**
 * Kaplan et al. 2020 critical batch size (section 5.1; formulas.md 5.4):
 * B_crit(L) = B_star / L^(1/alpha_B), B_star = 2e8 tokens, alpha_B = 0.21,
 * L in nats. Above it, data parallelism stops buying proportional speed-up
 * (McCandlish et al. 2018). A rough, setup-dependent estimate (Kaplan's
 * data and tokenizer); 0 unless loss > 0.
 */
TP_API double tp_critical_batch_tokens(double loss_nats);
#define TP_KAPLAN_BSTAR_TOKENS 2e8
#define TP_KAPLAN_ALPHA_B 0.21

/**
 * A Llama-style decoder shape (RMSNorm, SwiGLU, RoPE, MHA, untied
 * embeddings) of about `params` parameters for a vocabulary of `vocab`:
 * head dimension 128 and a multiple of 8 heads (so TP up to 8 divides
 * them), hidden / layers about 128 (Kaplan et al. 2020 find
 * loss flat over a wide aspect-ratio range; Llama 2 7B/13B use 128),
 * ffn = 8/3 h rounded up to a multiple of 256. Used to size a model from
 * a budget. Errors: TP_ERR_INVALID_ARG unless 1e6 <= params <= 1e14.
 */
TP_API tp_status tp_scaling_shape(double params, int64_t vocab, tp_model *out, tp_error *err);

/* ------------------------------------------------------------------ */
/* Budget arithmetic and inverse problems (src/lib/budget.c)           */
/* ------------------------------------------------------------------ */

#define TP_HOURS_PER_DAY 24.0
#define TP_HOURS_PER_YEAR 8766.0 /* 365.25 days */

/** Optimizer steps to train `tokens`: tokens / tokens_per_step (fractional). */
TP_API double tp_budget_steps(double tokens, double tokens_per_step);

/** FLOP/s one GPU sustains at `mfu` (0..1] of `peak_flops_per_s`. */
TP_API double tp_budget_flops_per_s(double peak_flops_per_s, double mfu);

/** GPU-hours to execute `flops` at `flops_per_s_per_gpu` each (seed 000 step 6). */
TP_API double tp_budget_gpu_hours(double flops, double flops_per_s_per_gpu);

/** Wall-clock hours of `gpu_hours` spread over `num_gpus` (perfect scaling). */
TP_API double tp_budget_wall_h(double gpu_hours, double num_gpus);

/** GPUs needed to finish `gpu_hours` within `deadline_h` (fractional). */
TP_API double tp_budget_gpus_for_deadline(double gpu_hours, double deadline_h);

/** `gpus` rounded up to whole nodes of `gpus_per_node`; 0 on bad input. */
TP_API int64_t tp_budget_round_nodes(double gpus, int64_t gpus_per_node);

/**
 * The smallest cluster of at least `gpus` GPUs, in whole nodes, on which a
 * layout with model-parallel size `mp` (tp*pp*cp) can realise a global
 * batch of `global_batch` sequences in micro-batches of `micro_batch`:
 * n % gpus_per_node == 0, n % mp == 0 and global_batch % (micro_batch *
 * n/mp) == 0. Searches up to max_gpus; returns 0 when none exists.
 * Example (seed 000): 461.5 GPUs, 8 per node, TP 4, batch 1024 -> 512.
 */
TP_API int64_t tp_budget_round_layout(double gpus, int64_t gpus_per_node, int64_t mp,
                                      int64_t global_batch, int64_t micro_batch, int64_t max_gpus);

/** MFU a run needs: flops / (num_gpus * peak * wall_s). */
TP_API double tp_budget_required_mfu(double flops, double num_gpus, double peak_flops_per_s,
                                     double wall_s);

/** MFU of a measured throughput: tokens_per_s * flops_per_token / (num_gpus * peak). */
TP_API double tp_budget_mfu_from_throughput(double tokens_per_s, double flops_per_token,
                                            double num_gpus, double peak_flops_per_s);

/** A measured throughput against the prediction (seed 001 exercise 2). */
typedef struct tp_measured {
    double tokens_per_s;  /* as measured, the whole job */
    double step_s;        /* tokens per step / tokens_per_s */
    double mfu;           /* model FLOPs (r->flops.model_per_token) per second / (GPUs x peak) */
    double hfu;           /* hardware FLOPs (recompute included) likewise */
    double mfu_6n;        /* with 6N FLOPs per token, the seeds' convention */
    double predicted_mfu; /* r->time.mfu (0 when not computed) */
    double ratio;         /* mfu / predicted_mfu: 1 = as predicted, < 1 slower (0 without one) */
} tp_measured;

/**
 * MFU and HFU of a measured throughput of configuration c (evaluated into r)
 * and its ratio to the predicted MFU. Errors: TP_ERR_INVALID_ARG
 * ("measured-tokens-per-s") unless tokens_per_s > 0 and finite, or when it
 * implies more than the GPUs' peak (MFU > 1).
 */
TP_API tp_status tp_budget_measured(const tp_config *c, const tp_result *r, double tokens_per_s,
                                    tp_measured *out, tp_error *err);

/** Tokens per second at `mfu`: mfu * num_gpus * peak / flops_per_token. */
TP_API double tp_budget_tokens_per_s(double mfu, double flops_per_token, double num_gpus,
                                     double peak_flops_per_s);

/** GPU-hours `usd` buys at `price_per_hour` per GPU-hour (0 when the price is 0). */
TP_API double tp_budget_gpu_hours_for_usd(double usd, double price_per_hour);

/**
 * The model and tokens a money budget affords: C = usd / price * 3600 *
 * mfu * peak FLOPs, then compute-optimal under the fit, or the
 * tokens-per-parameter rule when tokens_per_param > 0.
 */
TP_API tp_status tp_budget_affords(double usd, double price_per_hour, double peak_flops_per_s,
                                   double mfu, const tp_scaling_fit *fit, double tokens_per_param,
                                   tp_scaling_point *out, tp_error *err);

/* ------------------------------------------------------------------ */
/* Checkpointing and failures (src/lib/checkpoint.c)                   */
/* ------------------------------------------------------------------ */

/**
 * Default failure rate per GPU-hour: all 419 unexpected interruptions of
 * the Llama 3 405B run, 16,384 H100 for 54 days (1,296 h) (Meta, "The Llama
 * 3 Herd of Models", 2024, Table 5; formulas.md 6.3): 1.97e-5 per GPU-hour,
 * a per-GPU MTBF of about 5.8 years.
 */
#define TP_LLAMA3_FAILURES_PER_GPU_HOUR (419.0 / (16384.0 * 1296.0))

typedef struct tp_ckpt_in {
    double params;                 /* parameters whose weights are saved */
    double trainable_params;       /* parameters with optimizer state (<= params) */
    double weight_bytes_per_param; /* 2 (bf16) */
    double master_bytes_per_param; /* 4 (fp32 master copy) or 0 */
    double moment_bytes_per_param; /* 8 (two fp32 Adam moments) */
    double grad_bytes_per_param;   /* gradients saved too (normally 0) */
    int64_t num_gpus;              /* the job */
    double storage_bw_bytes_per_s; /* aggregate write bandwidth to storage */
    double host_bw_bytes_per_s;    /* GPU -> host copy per GPU (asynchronous mode) */
    bool async;                    /* snapshot to host memory, persist in the background */
    double failures_per_gpu_hour;  /* lambda; TP_LLAMA3_FAILURES_PER_GPU_HOUR by default */
    double restart_s;              /* R: detect, reschedule, reload, per failure */
    double compute_s;              /* failure-free training time of the job */
    double interval_s;             /* compute time between checkpoints; 0 = Daly optimum */
} tp_ckpt_in;

typedef struct tp_ckpt {
    double weights_bytes;   /* params * weight bytes */
    double optimizer_bytes; /* trainable * (master + moments) */
    double grads_bytes;
    double total_bytes;     /* the checkpoint */
    double write_s;         /* total / storage bandwidth: time to persist one checkpoint */
    double stall_s;         /* training paused per checkpoint: write_s (sync) or the host
                                copy of each GPU's 1/n share (async) */
    double job_mtbf_s;      /* M = 1 / (num_gpus * lambda) */
    double young_s;         /* sqrt(2 delta M), Young 1974 (delta = stall_s) */
    double daly_s;          /* Daly 2006 higher-order optimum */
    double interval_s;      /* the interval used (given, or Daly, raised to write_s if async) */
    bool interval_raised;   /* async: the optimum was shorter than a persist, raised */
    bool raised_to_step;    /* the optimum was shorter than one optimizer step, the
                                shortest interval there is: raised to one (tp_plan_run) */
    double persist_lag_s;   /* async: a failure also loses the checkpoint being written */
    double failures;        /* expected job interruptions over the run */
    double ckpt_overhead_s; /* stalls over the run */
    double rework_s;        /* lost work: failures * (interval/2 + persist lag) */
    double restart_total_s; /* failures * R */
    double wall_s;          /* expected wall clock with all of the above */
    double lost_fraction;   /* (wall - compute) / wall */
    double goodput;         /* compute / wall */
    bool progress;          /* false: failures come faster than work is saved */
} tp_ckpt;

/** Young's interval sqrt(2 delta M) (s). */
TP_API double tp_ckpt_young(double delta_s, double mtbf_s);
/**
 * Daly's interval (s): sqrt(2 delta M) [1 + sqrt(delta/2M)/3 + (delta/2M)/9]
 * - delta for delta < 2M, else M (formulas.md 6.2).
 */
TP_API double tp_ckpt_daly(double delta_s, double mtbf_s);

/**
 * Checkpoint size, write time, optimal interval, expected failures, lost
 * time and goodput. The expected wall clock is first order in 1/M:
 *   W = T (1 + delta/tau) / (1 - (tau/2 + lag + R) / M),
 * failures = W / M (independent exponential failures of every GPU).
 * Errors: TP_ERR_INVALID_ARG naming the field ("ckpt.storage_bw", ...).
 */
TP_API tp_status tp_ckpt_plan(const tp_ckpt_in *in, tp_ckpt *out, tp_error *err);

/* ------------------------------------------------------------------ */
/* Learning-rate schedule (src/lib/plan.c)                             */
/* ------------------------------------------------------------------ */

/** Linear warmup then cosine decay to min_lr at total_steps. */
typedef struct tp_lr_schedule {
    double peak_lr;
    double min_lr;
    int64_t warmup_steps;
    int64_t total_steps;
} tp_lr_schedule;

/**
 * Learning rate at optimizer step `step` (0-based; clamped to [0, total]):
 * peak * step / warmup during warmup (Megatron), then
 * min + (peak - min) (1 + cos(pi (step - warmup) / (total - warmup))) / 2.
 */
TP_API double tp_lr_at(const tp_lr_schedule *s, int64_t step);

/* ------------------------------------------------------------------ */
/* The plan (src/lib/plan.c)                                           */
/* ------------------------------------------------------------------ */

#define TP_PLAN_MAX_PHASES 8

/** Where the training tokens come from. */
typedef enum tp_tokens_from {
    TP_TOKENS_PER_PARAM = 0, /* D = tokens_per_param * N (default 20, Chinchilla) */
    TP_TOKENS_GIVEN,         /* D = tokens */
    TP_TOKENS_COMPUTE        /* D = C / (6 N) for the FLOP budget C (--compute, size_model);
                                without either, C is what budget_usd buys at mfu and D = C /
                                (the --mfu basis FLOPs per token): the plan costs the budget */
} tp_tokens_from;

/** What fixes the cluster size. */
typedef enum tp_size_by {
    TP_SIZE_DEADLINE = 0, /* smallest whole-node cluster that meets deadline_h */
    TP_SIZE_GPUS          /* num_gpus given */
} tp_size_by;

/** Which throughput sizes the cluster and gives the schedule. */
typedef enum tp_size_at {
    TP_SIZE_AT_AUTO = 0, /* predicted when the step-time model gives one, else mfu */
    TP_SIZE_AT_PREDICTED,
    TP_SIZE_AT_MFU /* the user-given MFU, as the seeds do */
} tp_size_at;

/** FLOPs that the user-given MFU applies to. */
typedef enum tp_flops_basis {
    TP_BASIS_EXACT = 0, /* the per-token count of flops.c (default) */
    TP_BASIS_6ND        /* 6 N D (seed convention) */
} tp_flops_basis;

/** How the parallel layout of each phase is chosen. */
typedef enum tp_layout_from {
    TP_LAYOUT_AUTO = 0, /* the layout search (search.h), best predicted step time */
    TP_LAYOUT_RECIPE,   /* the seeds' ordered recipe (tp_recipe_run, seed 003 S3-3) */
    TP_LAYOUT_GIVEN     /* base.train's tp, pp, cp, ep, zero, recompute, micro-batch */
} tp_layout_from;

/**
 * One training phase. A frozen module (a vision encoder) costs its
 * weights and forward (+ backward-through) FLOPs, but no gradients,
 * optimizer state or weight-gradient FLOPs.
 */
typedef struct tp_phase {
    char name[32];
    double tokens;           /* LM tokens of the phase; 0 = what the plan's total leaves */
    int64_t seq_len;         /* 0 = the plan's */
    int64_t global_batch;    /* sequences per step; 0 = from batch_tokens, else the plan's
                               tokens per step / seq_len */
    int64_t batch_tokens;    /* tokens per step (a multiple of seq_len); 0 = unset */
    double frozen_params;    /* parameters of a frozen module, 0 = none */
    double frozen_tokens;    /* tokens through the frozen module; 0 = the phase's tokens */
    bool frozen_no_backward; /* nothing trainable before it: skip backward-through */
} tp_phase;

/** Everything a plan needs. tp_plan_in_default fills the defaults. */
typedef struct tp_plan_in {
    tp_config base; /* model, GPU, options, setup; layout when TP_LAYOUT_GIVEN */
    /* model and tokens */
    bool size_model; /* replace base.model by tp_scaling_shape of the budget's N */
    tp_tokens_from tokens_from;
    double tokens;           /* TP_TOKENS_GIVEN */
    double tokens_per_param; /* TP_TOKENS_PER_PARAM (20) */
    double compute_flops;    /* TP_TOKENS_COMPUTE, and size_model */
    tp_fit_id fit;           /* loss prediction and compute-optimal sizes */
    /* batch (tokens per step = global_batch * seq_len of base.train) */
    /* cluster */
    tp_size_by size_by;
    double deadline_h;     /* TP_SIZE_DEADLINE; also a check for TP_SIZE_GPUS when > 0 */
    double budget_usd;     /* 0 = none; a check, and the inverse problems */
    double price_per_hour; /* USD per GPU-hour; < 0 = the GPU's */
    double mfu;            /* user-given MFU (0..1] (seed 000: 0.40) */
    tp_size_at size_at;
    tp_flops_basis basis;
    tp_layout_from layout_from;
    int64_t max_gpus; /* cap for the cluster search */
    /* phases: 0 = one phase of all tokens at base.train's seq_len and batch */
    int num_phases;
    tp_phase phases[TP_PLAN_MAX_PHASES];
    /* checkpointing and failures */
    tp_ckpt_in ckpt;            /* bandwidths, rate, restart, mode; sizes and times are filled;
                                  storage_bw_bytes_per_s 0 = storage_bw_per_node x nodes */
    double storage_bw_per_node; /* bytes/s of storage write bandwidth per node (1e9: Llama 3's
                                  Tectonic, 2 TB/s sustained for 16,384 GPUs = 2,048 nodes) */
    int64_t ckpt_every_steps;   /* 0 = the optimal interval */
    /* learning rate */
    double peak_lr, min_lr; /* min_lr < 0: 10% of peak */
    int64_t warmup_steps;   /* < 0: min(2000, 10% of the steps) */
    /* stopping: every layout search of the plan (cluster sizing included) gets it; a stop
       ends tp_plan_run with TP_ERR_STOPPED (tp_search_stop, search.h) */
    tp_search_stop stop;
    /* layout axes the search keeps (TP_LAYOUT_AUTO): zeroed = every axis open; a fixed
       axis (tp.min == tp.max) is what `plan --tp 4` means, as for `search --tp 4`.
       space.stop is ignored (stop above applies). */
    tp_search_space space;
    /* memory kept free on every GPU by the layouts the plan chooses (search and
       recipe), a fraction of capacity; TP_PLAN_MEMORY_MARGIN by default. A given
       layout is checked against the full capacity. */
    double memory_margin;
    /* layouts within this fraction of the fastest step count as a tie, broken for
       the simpler layout (tp_plan_layout_simpler); TP_PLAN_TIE_TOLERANCE by default */
    double tie_tolerance;
    /* search only clean layouts (tp_plan_layout_clean); set by the sizing when the
       fastest layouts are not clean, rarely by a caller */
    bool clean_only;
    /* > 0: the model is tp_scaling_shape of this many parameters at base.model.vocab
       (plan --params 30e9: a dense decoder from a count, no preset); excludes size_model */
    double model_params;
} tp_plan_in;

/**
 * Default memory margin: 10% of capacity. The memory model's median error on
 * the measured rows is 5.2% and its largest on BLOOM and torchtune 9.5%
 * (docs/ACCURACY.md); 10% covers both, and is above the 5% floor people keep
 * for allocator spikes. Its p90 (19.4%) comes from over-predictions, which
 * err on the safe side.
 */
#define TP_PLAN_MEMORY_MARGIN 0.10
/** Default tie tolerance for layouts: within 3% of the fastest step. */
#define TP_PLAN_TIE_TOLERANCE 0.03
/** Sequences this long or shorter are "short context": CP there is not a clean layout. */
#define TP_PLAN_CP_SHORT_SEQ 8192
/**
 * Clean-layout sizing looks this far (fraction of GPUs) above the first
 * cluster that fits: with power-of-two batches and node sizes, clean
 * clusters are DP x TP x PP with PP dividing the layers (48 = 2^4 x 3), so
 * 3-smooth multiples, whose consecutive gaps reach 4/3 (9 -> 12, 12 -> 16).
 */
#define TP_PLAN_CLEAN_SLACK (1.0 / 3.0)

/**
 * Is layout a simpler than b? Lexicographic, first difference wins: TP within
 * a node, no CP at short context (seq <= TP_PLAN_CP_SHORT_SEQ), PP dividing
 * the layers, fewer pipeline stages, no virtual stages, less CP, less TP.
 * Returns < 0 when a is simpler, > 0 when b is, 0 when neither.
 */
TP_API int tp_plan_layout_simpler(const tp_config *a, const tp_config *b);

/**
 * A layout people run: TP within a node, no CP at short context, PP dividing
 * the layers. *why (may be NULL) names the first rule broken ("PP 29 does not
 * divide 48 layers"), "" when clean.
 */
TP_API bool tp_plan_layout_clean(const tp_config *c, char *why, size_t why_n);

/** The defaults of docs/plan.md: 20 tokens/param, Besiroglu, MFU 0.40, ... */
TP_API void tp_plan_in_default(tp_plan_in *in);

/** One phase of a finished plan. */
typedef struct tp_plan_phase {
    tp_phase spec;              /* with tokens, seq_len, global_batch resolved */
    tp_config cfg;              /* the chosen layout on the plan's cluster */
    tp_result res;              /* its evaluation (memory, FLOPs, step time) */
    bool fits;                  /* a layout was found that fits */
    uint64_t layouts_evaluated; /* by the search (1 for a given or recipe layout) */
    uint64_t layouts_feasible;  /* of those, the ones that fit */
    double tokens_per_step;
    double steps;               /* tokens / tokens_per_step, fractional */
    int64_t steps_whole;        /* rounded up */
    double flops_6nd;           /* 6 N_trainable D (+ frozen 4|2 N_f D_f) */
    double flops_exact;         /* exact model FLOPs per token * D (+ frozen) */
    double frozen_flops;        /* part of both counts */
    double frozen_weight_bytes; /* frozen weights per GPU (16-bit, / tp) */
    double predicted_mfu;       /* 0 when the step-time model gives none */
    double predicted_step_s;    /* 0 when none */
    double mfu_step_s;          /* step time at the user MFU on the basis FLOPs */
    double step_s;              /* the one used for the schedule */
    double gpu_hours_predicted; /* 0 when none */
    double gpu_hours_mfu;       /* exact FLOPs at the user MFU */
    double gpu_hours_mfu_6nd;   /* 6ND at the user MFU (seed convention) */
    double gpu_hours;           /* the one used */
    double wall_s;              /* the one used */
    double lr_start_step;       /* first optimizer step of the phase in the schedule */
    /* the memory margin kept (bytes of capacity); frozen weights are part of res.memory */
    double margin_bytes;
    bool tie_break;     /* a simpler layout within the tie tolerance replaced the fastest */
    char tie_note[192]; /* what the fastest was and why this one ("" unless tie_break) */
} tp_plan_phase;

/** A finished plan. Every number is also available per phase. */
typedef struct tp_plan {
    tp_model model;   /* the model planned (sized or given) */
    tp_params params; /* exact counts of the trainable model */
    double params_n;  /* N used by the scaling law and 6ND (params.total) */
    /* scaling */
    const tp_scaling_fit *fit;
    double tokens; /* total LM tokens, all phases */
    double tokens_per_param;
    double compute_budget_flops; /* --compute, or what budget_usd buys at the user MFU; else 0 */
    double loss;                 /* predicted L(N, D) */
    tp_scaling_point optimal;    /* compute-optimal point at this plan's 6ND compute */
    tp_scaling_point rule20;     /* 20 tokens/param point at the same compute */
    double crit_batch_tokens;    /* Kaplan B_crit at the predicted loss */
    double batch_over_crit;      /* largest phase batch / B_crit */
    bool crit_batch_caveat;      /* batch_over_crit > 2 */
    bool positions_caveat;       /* learned position table shorter than a phase's sequence */
    /* static memory per model copy (seed 000 step 8) */
    tp_state_bytes state_bytes; /* per parameter */
    double static_bytes;        /* params * state bytes, unsharded */
    int64_t min_gpus_static;    /* ceil(static / capacity) */
    /* totals */
    int num_phases;
    tp_plan_phase phases[TP_PLAN_MAX_PHASES];
    double flops_6nd, flops_exact;
    double gpu_hours, gpu_hours_mfu, gpu_hours_mfu_6nd, gpu_hours_predicted;
    double compute_wall_s; /* failure-free wall clock */
    double cost_usd;       /* gpu_hours * price */
    double price_per_hour;
    double peak_flops_per_s; /* per GPU at the plan's precision */
    bool used_predicted;     /* the schedule uses the step-time model */
    /* cluster */
    int64_t num_gpus;
    int64_t gpus_per_node;
    int64_t num_nodes;
    double gpus_exact;           /* deadline: GPUs needed at the sizing throughput */
    int64_t gpus_whole_nodes;    /* that, rounded up to whole nodes */
    double gpus_exact_predicted; /* deadline: GPUs needed at the chosen layout's predicted MFU */
    bool deadline_met;
    double required_mfu; /* to meet deadline_h on num_gpus (0 without one) */
    /* money */
    double budget_gpu_hours;         /* what budget_usd buys (0 without one) */
    double budget_hours_on_cluster;  /* wall-clock hours budget_usd rents num_gpus */
    double budget_gpus_for_deadline; /* GPUs budget_usd rents for deadline_h */
    bool within_budget;
    /* issue 19, "any two of budget, deadline and MFU give the third"; known without a layout */
    int64_t budget_gpus_whole_nodes; /* budget_gpus_for_deadline rounded down to whole nodes */
    double budget_required_mfu;      /* MFU those GPUs need to finish in deadline_h (basis FLOPs) */
    double budget_tokens_at_mfu;     /* tokens of this model the budget buys at the user MFU */
    tp_scaling_point budget_affords; /* model and tokens the budget affords at the plan's MFU */
    /* checkpointing */
    tp_ckpt ckpt;                  /* the chosen mode */
    tp_ckpt ckpt_sync, ckpt_async; /* both modes, for comparison */
    double storage_bw_bytes_per_s; /* the aggregate storage write bandwidth used */
    double ckpt_every_steps;       /* interval in optimizer steps of the first phase */
    double wall_s;                 /* expected wall clock with failures */
    /* learning rate */
    tp_lr_schedule lr;
    /* clean-layout sizing: the first cluster that fit only had layouts nobody runs */
    bool clean_layouts;     /* the layouts come from a search of clean layouts only */
    bool clean_moved;       /* the cluster was moved up to one with a clean layout */
    int64_t first_fit_gpus; /* the first cluster that fit (when clean_moved, or unclean) */
    char clean_note[192];   /* why the first one was not clean */
    /* infeasible: what would fix it */
    bool feasible;
    char reason[256];
    char fix[1152]; /* the closest layout's binding constraint fits whole (issue 19) */
} tp_plan;

/**
 * Run the whole plan: resolve model and tokens, size the cluster, choose
 * each phase's layout, and compute time, cost, checkpointing and the LR
 * schedule. Returns TP_OK whenever the inputs are valid, including when no
 * layout fits (out->feasible false, reason and fix say why and what would
 * help). Errors: TP_ERR_INVALID_ARG (err->path names the flag),
 * TP_ERR_NOMEM. Allocates only inside the layout search.
 */
TP_API tp_status tp_plan_run(const tp_plan_in *in, tp_plan *out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TP_PLAN_H */
