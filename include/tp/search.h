/* SPDX-License-Identifier: MIT */
/* Part of the libtp public contract (included by tp/tp.h). */
/**
 * search.h: layout search, the largest micro-batch that fits, and the
 * seeds' ordered recipe (seed 003 "Designing a pretraining system", seed
 * 004 "Vizz 7B walk-through").
 *
 * Search. Given a base configuration (model, GPU, sequence length, global
 * batch, precision, optimizer, conventions) and a space (bounds or fixed
 * values per axis), tp_search_new() prepares an enumeration of every valid
 * layout: TP (dividing heads, kv heads and the node), PP (uneven splits when
 * the layers do not divide: the end stages get fewer), virtual stages,
 * CP, expert TP and EP (MoE parallel folding, on request), ZeRO 0-3, SP, recompute none/selective/full and micro-batch, with
 * DP = GPUs / (TP x PP x CP) and gradient accumulation = global batch /
 * (micro-batch x DP) derived. tp_search_next() streams the layouts that
 * fit, one at a time, in a fixed enumeration order; nothing is held, so a
 * caller may stop at any point. tp_search_top() keeps the best K in a
 * caller-provided array.
 *
 * Candidates are valid by construction (tp_config_validate would accept
 * every one; the `verify` switch re-checks this in tests), and each is
 * evaluated exactly as tp_eval() would, except that step time is only
 * computed for layouts that fit. Pruning (never changes which layouts fit):
 *  - model states alone (weights + grads + optimizer under the ZeRO stage,
 *    a lower bound of stage 0 and of the last stage) plus the fixed
 *    overheads exceed the capacity: the whole sub-space below (VPP, SP,
 *    recompute, micro-batch) is skipped;
 *  - memory grows with the micro-batch, so once micro-batch b does not fit
 *    the larger ones of the same layout are skipped.
 *
 * Ownership: tp_search_new() allocates the handle, the only allocation;
 * tp_search_free() releases it (NULL is a no-op). Everything else writes
 * into caller-owned structs and does not allocate. A handle is not
 * thread-safe; distinct handles are independent.
 *
 * Units as in tp.h: *_bytes bytes, *_s seconds, *_usd US dollars.
 */
#ifndef TP_SEARCH_H
#define TP_SEARCH_H
#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Search space                                                        */
/* ------------------------------------------------------------------ */

/**
 * Inclusive bounds of one integer axis. 0 means open on that side (min 1,
 * no max); min == max fixes it.
 */
typedef struct tp_axis {
    int64_t min, max;
} tp_axis;

/** Bit for tp_search_space.zero_mask (ZeRO stage z) and recompute_mask (tp_recompute r). */
#define TP_SEARCH_BIT(v) (1u << (unsigned)(v))
/** sp_mask bits. */
#define TP_SEARCH_SP_OFF 1u
#define TP_SEARCH_SP_ON 2u

/** Most cluster sizes one search tries (tp_search_space.gpus); more is an error, not a cut. */
#define TP_SEARCH_MAX_CLUSTER_SIZES 1024
/**
 * How a caller stops a long search (libtp keeps no globals, so the flag or
 * the clock is the caller's). `should_stop` (NULL: never) is called with
 * `ctx` every TP_SEARCH_POLL_STEPS steps of the enumeration, evaluated or
 * pruned, so a stop is seen within a millisecond; returning true ends the
 * search, which then reports TP_ERR_STOPPED (tp_search_status,
 * tp_search_top). It is called from the searching thread only and must be
 * cheap: an atomic load, a clock read. `max_evaluated` (0: no bound) is a
 * bound on work: the search stops with TP_ERR_STOPPED once it has
 * evaluated that many layouts, never returning a truncated ranking as if
 * it were complete.
 */
typedef struct tp_search_stop {
    bool (*should_stop)(void *ctx);
    void *ctx;
    uint64_t max_evaluated;
} tp_search_stop;

/** Steps of the enumeration between two calls of tp_search_stop.should_stop. */
#define TP_SEARCH_POLL_STEPS 4096u

typedef struct tp_search_space {
    tp_axis gpus; /* total GPUs; open: exactly base.train.num_gpus, else every multiple of
                            gpus_per_node in [min, max] (whole nodes), at most
                            TP_SEARCH_MAX_CLUSTER_SIZES of them */
    tp_axis tp, pp, vpp, cp, ep, micro_batch;
    unsigned zero_mask;      /* ZeRO stages allowed (TP_SEARCH_BIT(z)); 0 = all of 0..3 */
    unsigned recompute_mask; /* recompute modes allowed (TP_SEARCH_BIT(TP_RECOMPUTE_*)); 0 = all */
    unsigned sp_mask;        /* with TP > 1: TP_SEARCH_SP_OFF | TP_SEARCH_SP_ON; 0 = both.
                                With TP = 1 SP is always off. */
    bool tp_across_nodes;    /* also TP groups spanning whole nodes (multiples of gpus_per_node) */
    bool even_pp_only;       /* only PP sizes that divide the layers */
    bool no_prune;           /* evaluate every candidate (explaining infeasibility) */
    bool include_infeasible; /* tp_search_next also returns layouts that do not fit */
    bool verify;             /* tests: check each candidate with tp_config_validate and tp_eval
                                (slow); mismatches are counted in tp_search_stats */
    tp_search_stop stop;     /* deadline, cancel, work bound; zeroed: run to the end */
    /* MoE parallel folding (Megatron-Core): with moe_folding, or with the etp
     * axis bounded, the expert layers get their own layout: ETP (dividing the
     * node and GPUs / PP) and EP (dividing the experts and GPUs / (PP x ETP)),
     * chosen apart from TP, CP and DP. Off (zeroed): ETP = TP and EP divides
     * DP, the layouts searched before folding. */
    bool moe_folding;
    tp_axis etp;
    /* Recompute variants: for MoE models, selective recompute with Megatron-
     * Core's MoE-layer recompute (modules core_attn + moe) is tried beside
     * none, selective and full (when selective is allowed); for every model
     * (without base recompute modules or SAC) also selective as torchtitan's
     * per-op SAC (tp_options.sac_ops). Off (zeroed): the three modes only;
     * the base's recompute_modules then apply to every selective candidate. */
    bool recompute_variants;
    /* Offload variants: every ZeRO stage >= 1 is also tried with the whole
     * optimizer state offloaded to the host (tp_train.offload_optimizer = 1;
     * ZeRO-Offload), ZeRO 3 also with the weights there too (offload_params
     * = TP_OFFLOAD_CPU: FSDP2's CPU offload), and PP 1 without recompute
     * also with the activations of all but one layer on the host
     * (offload_act_layers = layers - 1). Off (zeroed): the base's offload
     * settings apply where they are allowed. */
    bool offload_variants;
} tp_search_space;

/** Every axis open, all ZeRO stages, recompute modes and SP settings, TP inside a node. */
TP_API void tp_search_space_default(tp_search_space *s);

/* ------------------------------------------------------------------ */
/* Iterator                                                            */
/* ------------------------------------------------------------------ */

/** Ranking keys. */
typedef enum tp_rank_by {
    TP_RANK_TIME = 0, /* shortest predicted step (time.step_s) first */
    TP_RANK_COST,     /* lowest cost per token first (GPUs x step x price / tokens) */
    TP_RANK_HEADROOM  /* largest memory headroom on the heaviest stage first */
} tp_rank_by;

/** One evaluated layout: caller-owned, self-contained (no pointers into the search). */
typedef struct tp_search_item {
    tp_config config;          /* base configuration with the layout applied */
    tp_result result;          /* its evaluation (reason filled when it does not fit) */
    double cost_per_token_usd; /* step_s * gpus * price_per_gpu_hour / 3600 / tokens per step */
    double gpu_s_per_token;    /* step_s * gpus / tokens per step */
    uint64_t index;            /* position in the enumeration order, 0-based */
} tp_search_item;

typedef struct tp_search_stats {
    uint64_t candidates;           /* layouts enumerated: evaluated + pruned */
    uint64_t evaluated;            /* full memory evaluations (time too when it fits, but for
                                      pruned_time) */
    uint64_t feasible;             /* evaluated and fit */
    uint64_t infeasible;           /* evaluated and did not fit */
    uint64_t pruned_states;        /* skipped: model states + fixed overheads exceed capacity */
    uint64_t pruned_micro_batch;   /* skipped: a smaller micro-batch of the layout did not fit */
    uint64_t batch_mismatch;       /* (GPUs, TP, PP, CP) layouts with no micro-batch b such that
                                    b x DP divides the global batch */
    int64_t batch_mismatch_min_dp; /* the smallest DP among those layouts; 0 when none */
    uint64_t verify_failures;      /* verify mode: candidates tp_eval rejects or disagrees on */
    uint64_t pruned_time;          /* fitting layouts ranked without their step time: a bound
                                      showed they cannot enter the top list (tp_search_top) */
    bool done;                     /* the enumeration is exhausted */
    bool stopped;                  /* ended early by space.stop (see tp_search_status) */
} tp_search_stats;

typedef struct tp_search tp_search; /* opaque */

/**
 * Prepare a search over `space` (NULL: tp_search_space_default) around
 * `base`. base's layout fields (tp, pp, cp, ep, vpp, sp, zero, schedule,
 * first/last_stage_layers, recompute, micro_batch) are ignored;
 * recompute_every is kept for full recompute. base.train.global_batch
 * (sequences) is the target. Validates the base once (model, GPU, options,
 * sequence length, batch) and the space (min <= max, masks non-empty).
 * Errors: TP_ERR_INVALID_ARG (err->path names the field or axis:
 * "tp", "zero", "gpus", ...), TP_ERR_NOMEM. On success *out is a new
 * handle; it is the caller's responsibility to free it with tp_search_free.
 */
TP_API tp_status tp_search_new(const tp_config *base, const tp_search_space *space, tp_search **out,
                               tp_error *err);

/**
 * Advance to the next layout that fits (or the next evaluated one, with
 * space.include_infeasible) and copy it into *out. Returns false, leaving
 * *out untouched, when the enumeration is exhausted. Does not allocate.
 */
TP_API bool tp_search_next(tp_search *s, tp_search_item *out);

/** Counters so far (valid at any point, final once next returned false). */
TP_API void tp_search_get_stats(const tp_search *s, tp_search_stats *out);

/**
 * TP_OK while the search runs or once it is exhausted; TP_ERR_STOPPED
 * when space.stop ended it early, with a message naming how far it got,
 * the inputs that make the space large (GPUs, layers, global batch) and
 * how to narrow it. After a stop, what tp_search_next returned is a prefix
 * of the enumeration, not the whole answer.
 */
TP_API tp_status tp_search_status(const tp_search *s, tp_error *err);

/**
 * Up to k evaluated layouts that did not fit, closest first (smallest
 * total / capacity on the heaviest stage), at most one per (TP, PP, CP,
 * EP, ZeRO); fully evaluated with tp_eval (reason filled). Returns how many
 * were written. Pruned candidates are not among them: to explain an empty
 * search, run it again with space.no_prune. At most TP_SEARCH_CLOSEST kept.
 */
#define TP_SEARCH_CLOSEST 8
TP_API size_t tp_search_closest(const tp_search *s, tp_search_item *out, size_t k);

/** Release a search; NULL is a no-op. */
TP_API void tp_search_free(tp_search *s);

/**
 * Order two items under a ranking: negative when a ranks before b, positive
 * after, 0 when equal. Ties on the key fall back to step time, then
 * headroom, then the enumeration index, so the order is total.
 */
TP_API int tp_search_order(const tp_search_item *a, const tp_search_item *b, tp_rank_by by);

/**
 * Run a whole search and keep the best k fitting layouts in top[0..k-1],
 * best first; *n receives how many were found (<= k); top may be NULL when
 * k is 0 (a counting run). stats (may be NULL) receives the final
 * counters. Allocates only the search handle, freed before returning. Errors as tp_search_new,
 * and TP_ERR_STOPPED (tp_search_status) when space.stop ended it; *n is then 0.
 */
TP_API tp_status tp_search_top(const tp_config *base, const tp_search_space *space, tp_rank_by by,
                               tp_search_item *top, size_t k, size_t *n, tp_search_stats *stats,
                               tp_error *err);

/* ------------------------------------------------------------------ */
/* Explanations                                                        */
/* ------------------------------------------------------------------ */

/** What a runner-up loses against the best. Static strings; differences are other - best. */
typedef struct tp_search_delta {
    double step_s;             /* step time difference */
    double step_rel;           /* step_s / best step (0 when the best step is 0) */
    const char *time_part;     /* step-time component that grew most ("bubble", ...), "" if none */
    double time_part_s;        /* its growth */
    const char *mem_part;      /* memory part (heaviest stage) differing most, in absolute value */
    double mem_part_bytes;     /* its difference (signed) */
    double headroom_bytes;     /* headroom difference */
    double cost_per_token_usd; /* cost difference */
    char layout[160];          /* axes that differ, "PP 8 vs 4, ZeRO-3 vs 1" */
} tp_search_delta;

/** Compare a runner-up `other` with `best`. Does not allocate. */
TP_API void tp_search_delta_eval(const tp_search_item *best, const tp_search_item *other,
                                 tp_search_delta *out);

/**
 * Why a layout does not fit, and the smallest single change that would
 * make it fit, holding everything else (DP included: GPUs grow with TP, PP
 * or CP). need_* is 0 (need_zero -1) when no value of that axis alone fits.
 */
typedef struct tp_search_binding {
    bool fits;        /* the layout fits: nothing binds */
    int64_t stage;    /* heaviest pipeline stage */
    const char *part; /* its largest memory component ("activations", ...), static */
    double part_bytes;
    double total_bytes, capacity_bytes, over_bytes; /* over = total - capacity */
    bool full_recompute;                            /* the layout already recomputes everything */
    int64_t need_tp, need_tp_gpus; /* smallest larger TP that fits, and the GPUs it needs */
    int64_t need_pp, need_pp_gpus;
    int64_t need_cp, need_cp_gpus;
    int need_zero;            /* smallest larger ZeRO stage that fits, -1 none */
    bool need_full_recompute; /* full recompute alone would fit */
    char text[384];           /* one sentence, e.g. "activations 112.0 GiB > 79.6 GiB on stage 0
                              even with full recompute; needs CP >= 2 or PP >= 4" */
} tp_search_binding;

/**
 * Explain the binding constraint of configuration c (validated inside).
 * Errors: those of tp_config_validate. Does not allocate.
 */
TP_API tp_status tp_search_binding_eval(const tp_config *c, tp_search_binding *out, tp_error *err);

/* ------------------------------------------------------------------ */
/* Largest micro-batch (seed 004, S4-6)                                */
/* ------------------------------------------------------------------ */

/**
 * The largest micro-batch that fits one layout, holding the number of
 * micro-batches per step m fixed (c's gradient accumulation; the global
 * batch grows with b), so memory is affine in b on every stage:
 *   total_s(b) = fixed_s + b * per_seq_s.
 * Three ways, which must agree (tests):
 *   formula  : min over stages of floor((capacity - fixed_s) / per_seq_s)
 *   doubling : b = 1, 2, 4, ... until it does not fit; the last that fit
 *              (seed 004's trial), a power of two <= formula
 *   bisect   : doubling, then bisection between the last fit and the
 *              first failure: the exact largest, = formula
 * 0 means not even one sequence fits. Capped at TP_MB_MAX_CAP.
 */
#define TP_MB_MAX_CAP 1048576
typedef struct tp_mb_max {
    int64_t formula, doubling, bisect;
    int64_t stage;        /* stage whose memory binds first */
    double fixed_bytes;   /* that stage's b-independent memory */
    double per_seq_bytes; /* its memory per sequence of micro-batch */
    double capacity_bytes;
    int trials; /* memory evaluations the doubling + bisection took */
} tp_mb_max;

/** Errors: those of tp_config_validate on c. Does not allocate. */
TP_API tp_status tp_micro_batch_max(const tp_config *c, tp_mb_max *out, tp_error *err);

/* ------------------------------------------------------------------ */
/* The ordered recipe (seeds 003 and 004, S3-3)                        */
/* ------------------------------------------------------------------ */

/**
 * The recipe as data: each step's decision and the numbers behind it, in
 * the seeds' order (cheapest communication first, stop as soon as it fits).
 * Memory tests use tp_eval on the partial layout; bytes are per GPU on the
 * heaviest stage unless named otherwise.
 */
#define TP_RECIPE_MAX_TRIES 12
typedef struct tp_recipe_try {
    int64_t value;      /* the axis value tried */
    double total_bytes; /* memory per GPU (heaviest stage) */
    bool fits;
} tp_recipe_try;

typedef struct tp_recipe {
    /* 1. The bill (16N + activations), no parallelism. */
    double params;                /* N (total) */
    double state_bytes_per_param; /* 16 for mixed-precision AdamW */
    double state_bytes;           /* N x that */
    double weights_bytes;         /* 2N */
    double act_seq_bytes;         /* one sequence, all layers, no recompute, no TP */
    double act_seq_full_bytes;    /* the same with full recompute */
    double capacity_bytes;
    int64_t gpus_for_state; /* ceil(state / capacity) */

    /* 2. TP inside a node: the smallest TP that fits mb 1 without
     *    recompute, else the whole node (seed 004: saturate NVLink). */
    int64_t gpus_per_node;
    int64_t tp;
    int64_t heads_per_gpu;
    bool tp_fits; /* some in-node TP fits without recompute */
    int n_tp_tries;
    tp_recipe_try tp_tries[TP_RECIPE_MAX_TRIES];

    /* 3. Largest micro-batch at that TP, PP 1, ZeRO-0, per recompute mode. */
    tp_mb_max mb[3];         /* indexed by tp_recompute */
    int64_t micro_batch_cap; /* largest without recompute at PP 1 (1 for long context) */
    bool long_context;       /* mb 1 does not fit without recompute and one sequence's
                                      activations outweigh the states (mb[0].per_seq_bytes >
                                      mb[0].fixed_bytes): mb 1, and step 7 considers CP */

    /* 4. PP only if a node cannot hold the model (mb 1, cheapest recompute). */
    int64_t pp;
    bool pp_needed;
    int n_pp_tries;
    tp_recipe_try pp_tries[TP_RECIPE_MAX_TRIES];
    double bubble_of_total, bubble_of_ideal; /* for the final m */
    double stage0_act_pp1_bytes;             /* stage-0 activations at PP 1, mb 1, no recompute */
    double stage0_act_pp2_bytes;             /* ... at PP 2 (1F1B keeps min(m, p) micro-batches) */

    /* 5. DP from the remaining GPUs, the cheapest ZeRO stage that fits
     *    (ZeRO-1 when DP > 1: same bytes as the all-reduce it replaces). */
    int64_t dp;
    int zero;
    double zero_total_bytes[4]; /* memory per GPU at each ZeRO stage (0 if not tried) */
    tp_recompute recompute;     /* cheapest recompute that fits after ZeRO */

    /* 6. Global batch = micro-batch x accumulation x DP. */
    int64_t global_batch_requested, global_batch;
    int64_t micro_batch, grad_accum;
    double tokens_per_step;

    /* 7. CP for long context (when step 3 found no micro-batch fits
     *    without recompute): the smallest CP, taken from DP, at which one
     *    micro-batch fits without recompute at ZeRO-0 (step 3's test). */
    int64_t cp;
    bool cp_considered;
    tp_recompute recompute_before_cp;
    double act_before_cp_bytes, act_after_cp_bytes; /* activations per GPU, heaviest stage */
    double step_before_cp_s;   /* predicted step without CP (0 if not computed) */
    double scores_per_head;    /* s^2 attention-score elements of one head */
    double scores_per_head_cp; /* (s/cp)^2 per GPU */
    int n_cp_tries;
    tp_recipe_try cp_tries[TP_RECIPE_MAX_TRIES];

    /* 8. EP for MoE: experts sharded over the largest divisor of E and DP. */
    int64_t ep;
    bool moe;

    /* 9. The recipe's layout, evaluated. */
    bool fits;
    tp_config config;
    tp_result result;
} tp_recipe;

/**
 * Run the recipe for base's model, GPU, GPU count, sequence length and
 * global batch (its layout fields are ignored). Errors: those of
 * tp_config_validate on the base. The recipe itself never fails: when no
 * step makes it fit, fits is false and tp_result_reason(&result) says why.
 */
TP_API tp_status tp_recipe_run(const tp_config *base, tp_recipe *out, tp_error *err);

#ifdef __cplusplus
}
#endif
#endif /* TP_SEARCH_H */
