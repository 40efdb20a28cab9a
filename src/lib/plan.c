/* SPDX-License-Identifier: MIT */
/*
 * plan.c: the whole capacity plan, from intent to cluster (docs/plan.md).
 *
 * Order (seed 000 steps 1-9):
 *   1. model: given, or sized from a FLOP / money budget (scaling.c);
 *   2. tokens: given, N x tokens-per-parameter (20), or C / 6N; predicted
 *      loss, the compute-optimal point at the same compute, and Kaplan's
 *      critical batch at that loss (a caveat when the batch is far above);
 *   3. phases: each with its own tokens, sequence length and batch, and an
 *      optional frozen module; steps and FLOPs (6ND and exact) per phase;
 *   4. cluster: the GPU count given, or the smallest whole-node cluster
 *      that meets the deadline with a layout that fits every phase (the
 *      count at the user MFU is reported too, rounded to whole nodes);
 *   5. layout per phase: the best the layout search finds on that cluster
 *      (search.h, shortest predicted step, within the axes the caller
 *      fixed), the seeds' ordered recipe (tp_recipe_run), or the one given.
 *      Chosen layouts keep a memory margin free; among the search's layouts
 *      within the tie tolerance of the fastest the simplest wins
 *      (tp_plan_layout_simpler); when the deadline's cluster only has
 *      layouts nobody runs (PP 29 of 48 layers), sizing moves up to the
 *      first cluster with a clean one (move_to_clean; issue 19);
 *   6. time, GPU-hours and cost at the predicted MFU and at the user MFU;
 *   7. money: within budget, hours and GPUs the budget buys, the model and
 *      tokens it affords;
 *   8. checkpointing and failures (checkpoint.c), both sync and async;
 *   9. learning-rate schedule over all phases' steps.
 *
 * A frozen module (phase.frozen_params) costs 16-bit weights (split over
 * TP, and over DP under ZeRO-3; counted in the phase's memory total and
 * headroom) and 2 N_f forward + 2 N_f backward-through
 * FLOPs per token (no weight gradients; 2 N_f when nothing trainable lies
 * before it), no gradients or optimizer state; its activations are not
 * modelled.
 *
 * Sizing ignores failures (as the seeds do); the expected wall clock with
 * failures is reported beside it.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define DEFAULT_MAX_GPUS 131072
#define SCAN_LINEAR_STEPS 64 /* node-by-node tries before growing geometrically */
#define MAX_MICRO_BATCH 16
#define PI 3.14159265358979323846

void tp_plan_in_default(tp_plan_in *in)
{
    memset(in, 0, sizeof *in);
    tp_train_default(&in->base.train);
    tp_options_default(&in->base.opts);
    in->tokens_from = TP_TOKENS_PER_PARAM;
    in->tokens_per_param = 20.0;
    in->fit = TP_FIT_BESIROGLU;
    in->size_by = TP_SIZE_DEADLINE;
    in->deadline_h = 504.0; /* 3 weeks, seed 000 */
    in->budget_usd = 0.0;
    in->price_per_hour = -1.0;
    in->mfu = 0.40; /* seed 000 step 6: "40% sustained utilization" */
    in->size_at = TP_SIZE_AT_AUTO;
    in->basis = TP_BASIS_EXACT;
    in->layout_from = TP_LAYOUT_AUTO;
    in->max_gpus = DEFAULT_MAX_GPUS;
    tp_search_space_default(&in->space);
    in->memory_margin = TP_PLAN_MEMORY_MARGIN;
    in->tie_tolerance = TP_PLAN_TIE_TOLERANCE;
    /* Checkpoint storage: assumptions, user-settable (docs/plan.md). */
    /* Aggregate storage write bandwidth grows with the deployment: Llama 3
     * (Meta 2024, sec. 3.3.1) reports 2 TB/s sustained from Tectonic for
     * 16,384 GPUs, about 1 GB/s per 8-GPU node. An assumption; user-settable. */
    in->ckpt.storage_bw_bytes_per_s = 0.0; /* 0: per node x nodes */
    in->storage_bw_per_node = 1e9;
    in->ckpt.host_bw_bytes_per_s = 10e9; /* pinned GPU->host copy, PCIe */
    in->ckpt.async = true;
    in->ckpt.failures_per_gpu_hour = TP_LLAMA3_FAILURES_PER_GPU_HOUR;
    in->ckpt.restart_s = 600.0;
    in->peak_lr = 3e-4;
    in->min_lr = -1.0;
    in->warmup_steps = -1;
}

double tp_lr_at(const tp_lr_schedule *s, int64_t step)
{
    if (!s || s->total_steps < 1)
        return 0.0;
    if (step < 0)
        step = 0;
    if (step > s->total_steps)
        step = s->total_steps;
    int64_t w = s->warmup_steps < 0 ? 0 : s->warmup_steps;
    if (w > s->total_steps)
        w = s->total_steps;
    if (step < w)
        return s->peak_lr * (double)step / (double)w;
    if (s->total_steps == w)
        return s->peak_lr;
    double r = (double)(step - w) / (double)(s->total_steps - w);
    return s->min_lr + (s->peak_lr - s->min_lr) * 0.5 * (1.0 + cos(PI * r));
}

/* ---- input checks ---- */

#define CHECK(cond, path, ...)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return tp_error_set(err, TP_ERR_INVALID_ARG, path, __VA_ARGS__);                       \
    } while (0)

static bool fin(double x)
{
    return isfinite(x);
}

static tp_status check_input(const tp_plan_in *in, tp_error *err)
{
    CHECK(in->mfu > 0.0 && in->mfu <= 1.0, "plan.mfu", "must be a fraction in (0, 1] (got %g)",
          in->mfu);
    CHECK(fin(in->tokens_per_param) && in->tokens_per_param > 0.0 && in->tokens_per_param <= 1e6,
          "plan.tokens_per_param", "must be in (0, 1e6]");
    CHECK(in->tokens_from != TP_TOKENS_GIVEN ||
              (fin(in->tokens) && in->tokens >= 1.0 && in->tokens <= 1e18),
          "plan.tokens", "must be in [1, 1e18]");
    CHECK(fin(in->compute_flops) && in->compute_flops >= 0.0 && in->compute_flops <= 1e35,
          "plan.compute_flops", "must be a FLOP count in (0, 1e35]");
    CHECK(in->tokens_from != TP_TOKENS_COMPUTE || in->compute_flops > 0.0 || in->budget_usd > 0.0,
          "plan.compute_flops",
          "tokens for a FLOP budget need the compute in FLOPs (or size-model with a money "
          "budget)");
    CHECK(tp_scaling_fit_get(in->fit) != NULL, "plan.fit", "unknown scaling fit");
    CHECK(fin(in->model_params) && in->model_params >= 0.0 &&
              (!(in->model_params > 0.0) || (in->model_params >= 1e6 && in->model_params <= 1e14)),
          "plan.model_params", "must be a parameter count in [1e6, 1e14] (got %g)",
          in->model_params);
    CHECK(!(in->model_params > 0.0 && in->size_model), "plan.model_params",
          "a parameter count gives the model and size-model sizes one from a budget: give one");
    CHECK(fin(in->deadline_h) && in->deadline_h >= 0.0 && in->deadline_h <= 1e6, "plan.deadline_h",
          "must be in [0, 1e6] hours");
    CHECK(in->size_by != TP_SIZE_DEADLINE || in->deadline_h > 0.0, "plan.deadline_h",
          "sizing the cluster for a deadline needs a deadline > 0 hours");
    CHECK(fin(in->budget_usd) && in->budget_usd >= 0.0 && in->budget_usd <= 1e15, "plan.budget_usd",
          "must be in [0, 1e15] USD");
    CHECK(fin(in->price_per_hour) && in->price_per_hour <= 1e6, "plan.price_per_hour",
          "must be finite (< 0 means the GPU's price)");
    CHECK(fin(in->memory_margin) && in->memory_margin >= 0.0 && in->memory_margin < 0.9,
          "plan.memory_margin", "must be a fraction of capacity in [0, 0.9) (got %g)",
          in->memory_margin);
    CHECK(fin(in->tie_tolerance) && in->tie_tolerance >= 0.0 && in->tie_tolerance <= 0.5,
          "plan.tie_tolerance", "must be a fraction in [0, 0.5] (got %g)", in->tie_tolerance);
    CHECK(in->max_gpus >= 1 && in->max_gpus <= TP_MAX_GPUS, "plan.max_gpus",
          "must be in [1, 2^20]");
    CHECK(in->num_phases >= 0 && in->num_phases <= TP_PLAN_MAX_PHASES, "plan.phases",
          "at most %d phases", TP_PLAN_MAX_PHASES);
    CHECK(fin(in->storage_bw_per_node) && in->storage_bw_per_node > 0.0 &&
              in->storage_bw_per_node <= 1e15,
          "plan.storage_bw_per_node", "storage bandwidth per node must be > 0");
    CHECK(in->ckpt_every_steps >= 0 && in->ckpt_every_steps <= 1000000000, "plan.ckpt_every_steps",
          "must be in [0, 1e9]");
    CHECK(fin(in->peak_lr) && in->peak_lr >= 0.0 && in->peak_lr <= 10.0, "plan.peak_lr",
          "must be in [0, 10]");
    CHECK(fin(in->min_lr) && in->min_lr <= in->peak_lr, "plan.min_lr",
          "must be <= the peak learning rate (< 0: 10%% of it)");
    CHECK(in->warmup_steps <= 1000000000, "plan.warmup_steps", "must be <= 1e9");
    CHECK((int)in->size_at >= 0 && in->size_at <= TP_SIZE_AT_MFU && (int)in->basis >= 0 &&
              in->basis <= TP_BASIS_6ND && (int)in->layout_from >= 0 &&
              in->layout_from <= TP_LAYOUT_GIVEN && (int)in->size_by >= 0 &&
              in->size_by <= TP_SIZE_GPUS && (int)in->tokens_from >= 0 &&
              in->tokens_from <= TP_TOKENS_COMPUTE,
          "plan", "invalid mode value");
    int unsized = 0;
    for (int i = 0; i < in->num_phases; i++) {
        const tp_phase *p = &in->phases[i];
        CHECK(fin(p->tokens) && p->tokens >= 0.0 && p->tokens <= 1e18, "plan.phases",
              "phase %d: tokens must be in [0, 1e18]", i + 1);
        CHECK(p->seq_len >= 0 && p->seq_len <= TP_MAX_SEQ, "plan.phases",
              "phase %d: seq must be in [1, %d]", i + 1, TP_MAX_SEQ);
        CHECK(p->global_batch >= 0 && p->global_batch <= TP_MAX_BATCH, "plan.phases",
              "phase %d: batch is out of range", i + 1);
        CHECK(p->batch_tokens >= 0 && p->batch_tokens <= TP_MAX_TOKENS_PER_STEP, "plan.phases",
              "phase %d: batch tokens out of range", i + 1);
        CHECK(fin(p->frozen_params) && p->frozen_params >= 0.0 && p->frozen_params <= 1e14,
              "plan.phases", "phase %d: frozen parameters must be in [0, 1e14]", i + 1);
        CHECK(fin(p->frozen_tokens) && p->frozen_tokens >= 0.0 && p->frozen_tokens <= 1e18,
              "plan.phases", "phase %d: frozen tokens must be in [0, 1e18]", i + 1);
        if (p->tokens <= 0.0)
            unsized++;
    }
    CHECK(unsized <= 1, "plan.phases", "only one phase may leave its tokens to the plan's total");
    return TP_OK;
}

/* ---- layouts ---- */

/* Frozen weights on one GPU (16-bit, split over TP, and over DP under ZeRO-3). */
static double frozen_bytes(const tp_phase *ph, const tp_train *t)
{
    double b = ph->frozen_params * 2.0 / (double)t->tp;
    int64_t dp = tp_train_dp(t);
    if (t->zero >= 3 && dp > 0)
        b /= (double)dp;
    return b;
}

/* Does an evaluated layout also hold the phase's frozen weights, with
 * `margin` of capacity kept free? (res->memory does not hold them yet.) */
static bool frozen_fits(const tp_config *cfg, const tp_phase *ph, const tp_result *res,
                        double capacity, double margin, char *why, size_t why_n)
{
    double fb = frozen_bytes(ph, &cfg->train);
    double usable = capacity * (1.0 - margin);
    if (res->memory.total_bytes + fb <= usable)
        return true;
    if (why && margin > 0.0)
        snprintf(why, why_n,
                 "%.1f GiB of model state plus %.1f GiB of frozen weights > %.1f GiB "
                 "(%.1f GiB capacity less a %.0f%% margin)",
                 res->memory.total_bytes / TP_GIB, fb / TP_GIB, usable / TP_GIB, capacity / TP_GIB,
                 margin * 100.0);
    else if (why)
        snprintf(why, why_n,
                 "%.1f GiB of model state plus %.1f GiB of frozen weights > %.1f GiB capacity",
                 res->memory.total_bytes / TP_GIB, fb / TP_GIB, capacity / TP_GIB);
    return false;
}

/* The frozen weights are memory like any other: count them in every
 * stage's total and headroom (issue 19: they were reported beside the
 * total, not in it). They stay out of weights_bytes, which is the trained
 * model's; tp_plan_phase.frozen_weight_bytes is the part that adds up. */
static void add_frozen(tp_result *res, double fb)
{
    tp_memory *m[3] = {&res->memory, &res->stage_first, &res->stage_last};
    for (int i = 0; i < 3 && fb > 0.0; i++) {
        m[i]->total_bytes += fb;
        m[i]->headroom_bytes = m[i]->capacity_bytes - m[i]->total_bytes;
        m[i]->fits = m[i]->headroom_bytes >= 0.0;
    }
}

/* ---- simpler and clean layouts (issue 19) ---- */

static bool short_context(const tp_train *t)
{
    return t->seq_len <= TP_PLAN_CP_SHORT_SEQ;
}

bool tp_plan_layout_clean(const tp_config *c, char *why, size_t why_n)
{
    const tp_train *t = &c->train;
    int64_t gpn = tp_gpus_per_node(t, &c->gpu);
    char buf[96] = "";
    if (t->tp > gpn)
        snprintf(buf, sizeof buf, "TP %lld spans nodes of %lld GPUs", (long long)t->tp,
                 (long long)gpn);
    else if (t->cp > 1 && short_context(t))
        snprintf(buf, sizeof buf, "CP %lld at a %lld-token sequence", (long long)t->cp,
                 (long long)t->seq_len);
    else if (t->pp > 1 && c->model.num_layers % t->pp != 0)
        snprintf(buf, sizeof buf, "PP %lld does not divide %lld layers", (long long)t->pp,
                 (long long)c->model.num_layers);
    if (why)
        snprintf(why, why_n, "%s", buf);
    return buf[0] == '\0';
}

static int cmp_i64(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b ? 1 : 0;
}

int tp_plan_layout_simpler(const tp_config *a, const tp_config *b)
{
    const tp_train *x = &a->train, *y = &b->train;
    int64_t gx = tp_gpus_per_node(x, &a->gpu), gy = tp_gpus_per_node(y, &b->gpu);
    int r;
    if ((r = cmp_i64(x->tp > gx, y->tp > gy)) != 0)
        return r;
    if ((r = cmp_i64(x->cp > 1 && short_context(x), y->cp > 1 && short_context(y))) != 0)
        return r;
    if ((r = cmp_i64(x->pp > 1 && a->model.num_layers % x->pp != 0,
                     y->pp > 1 && b->model.num_layers % y->pp != 0)) != 0)
        return r;
    if ((r = cmp_i64(x->pp, y->pp)) != 0)
        return r;
    if ((r = cmp_i64(x->vpp > 1 ? x->vpp : 1, y->vpp > 1 ? y->vpp : 1)) != 0)
        return r;
    if ((r = cmp_i64(x->cp, y->cp)) != 0)
        return r;
    return cmp_i64(x->tp, y->tp);
}

static void layout_words(const tp_train *t, char *buf, size_t n)
{
    if (t->vpp <= 1)
        snprintf(buf, n, "TP %lld x PP %lld x CP %lld", (long long)t->tp, (long long)t->pp,
                 (long long)t->cp);
    else /* the virtual stages may be all that tells two layouts apart */
        snprintf(buf, n, "TP %lld x PP %lld x CP %lld, %lld virtual stages", (long long)t->tp,
                 (long long)t->pp, (long long)t->cp, (long long)t->vpp);
}

/* Evaluate cfg; a validation failure counts as "does not fit" with its message. */
static bool try_layout(const tp_config *cfg, const tp_phase *ph, tp_result *res, char *why,
                       size_t why_n)
{
    tp_error e = {0};
    if (tp_eval(cfg, res, &e) != TP_OK) {
        if (why)
            snprintf(why, why_n, "%.40s%s%.140s", e.path[0] ? e.path : "", e.path[0] ? ": " : "",
                     e.message);
        memset(res, 0, sizeof *res);
        return false;
    }
    if (!res->memory.fits) {
        if (why) {
            char reason[TP_REASON_MAX];
            snprintf(why, why_n, "%.180s", tp_result_reason(res, reason, sizeof reason));
        }
        return false;
    }
    return frozen_fits(cfg, ph, res, res->memory.capacity_bytes, 0.0, why, why_n);
}

#define SEARCH_TOP 64

/*
 * Of the search's fitting layouts (fastest first), the one to run: the
 * simplest (tp_plan_layout_simpler) among those within the tie tolerance
 * of the fastest. Returns its index; fills pp's tie note when it is not 0.
 */
static size_t break_tie(const tp_plan_in *in, const tp_search_item *top, const bool *ok, size_t n,
                        tp_plan_phase *pp)
{
    size_t first = n, pick = n;
    for (size_t i = 0; i < n; i++) {
        if (!ok[i])
            continue;
        if (first == n) {
            first = pick = i;
            continue;
        }
        double t0 = top[first].result.time.step_s, ti = top[i].result.time.step_s;
        if (!(ti <= t0 * (1.0 + in->tie_tolerance)))
            break;
        if (tp_plan_layout_simpler(&top[i].config, &top[pick].config) < 0)
            pick = i;
    }
    if (pp && pick != first && pick < n) {
        char a[64], b[64];
        layout_words(&top[first].config.train, a, sizeof a);
        layout_words(&top[pick].config.train, b, sizeof b);
        double t0 = top[first].result.time.step_s, t1 = top[pick].result.time.step_s;
        pp->tie_break = true;
        snprintf(pp->tie_note, sizeof pp->tie_note,
                 "tie-break: %.40s is %.1f%% slower than the fastest, %.40s (%.3g s), and "
                 "simpler (within %.0f%%)",
                 b, t0 > 0.0 ? (t1 / t0 - 1.0) * 100.0 : 0.0, a, t0, in->tie_tolerance * 100.0);
    }
    return pick;
}

/*
 * The layout search, best predicted step time first, on the capacity less
 * the memory margin. The search knows nothing of a frozen module: of its
 * best few, keep those that also hold the frozen weights; if none does,
 * search again with the capacity lowered by the frozen weights unsplit (a
 * safe bound). The chosen layout is evaluated again on the full capacity,
 * so that its headroom is the real one.
 */
static tp_status choose_search(const tp_plan_in *in, const tp_config *base, const tp_phase *ph,
                               tp_config *cfg, tp_result *res, tp_plan_phase *pp, char *why,
                               size_t why_n, bool *fits, tp_error *err)
{
    static _Thread_local tp_search_item top[SEARCH_TOP];
    bool ok[SEARCH_TOP];
    size_t n = 0;
    tp_search_stats stats;
    tp_search_space space = in->space;
    space.stop = in->stop;
    if (in->clean_only && ph->seq_len <= TP_PLAN_CP_SHORT_SEQ && space.cp.max == 0)
        space.cp.min = space.cp.max = 1; /* no CP at short context */
    tp_config b = *base;
    double margin = in->memory_margin;
    b.gpu.mem_capacity_bytes = base->gpu.mem_capacity_bytes * (1.0 - margin);
    *fits = false;
    if (pp) {
        pp->tie_break = false;
        pp->tie_note[0] = '\0';
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        tp_status st = tp_search_top(&b, &space, TP_RANK_TIME, top, SEARCH_TOP, &n, &stats, err);
        if (st != TP_OK)
            return st;
        if (pp) {
            pp->layouts_evaluated += stats.evaluated;
            pp->layouts_feasible += stats.feasible;
        }
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            ok[i] = frozen_fits(&top[i].config, ph, &top[i].result, base->gpu.mem_capacity_bytes,
                                margin, why, why_n);
            any = any || ok[i];
        }
        if (any) {
            size_t k = break_tie(in, top, ok, n, pp);
            *cfg = top[k].config;
            cfg->gpu = base->gpu;
            tp_error e = {0};
            if (tp_eval(cfg, res, &e) != TP_OK)
                return tp_error_set(err, TP_ERR_INTERNAL, "plan",
                                    "the chosen layout failed re-evaluation: %s", e.message);
            *fits = true;
            return TP_OK;
        }
        if (n == 0 || !(ph->frozen_params > 0.0))
            break;
        b.gpu.mem_capacity_bytes -= ph->frozen_params * 2.0;
        if (!(b.gpu.mem_capacity_bytes > 0.0))
            break;
    }
    if (why && n == 0)
        snprintf(why, why_n,
                 "the search found no layout that fits%s (%llu evaluated, %llu pruned on model "
                 "states alone, %llu without a micro-batch that divides the batch)",
                 stats.evaluated > 0 && margin > 0.0 ? " with the memory margin" : "",
                 (unsigned long long)stats.evaluated, (unsigned long long)stats.pruned_states,
                 (unsigned long long)stats.batch_mismatch);
    return TP_OK;
}

static tp_status choose_layout(const tp_plan_in *in, const tp_model *model, tp_plan_phase *pp,
                               int64_t n, char *why, size_t why_n, tp_error *err)
{
    const tp_phase *ph = &pp->spec;
    tp_config base = in->base;
    base.model = *model;
    base.train.num_gpus = n;
    base.train.seq_len = ph->seq_len;
    base.train.global_batch = ph->global_batch;
    pp->layouts_evaluated = pp->layouts_feasible = 0;
    pp->fits = false;
    switch (in->layout_from) {
    case TP_LAYOUT_GIVEN:
        pp->cfg = base;
        pp->fits = try_layout(&pp->cfg, ph, &pp->res, why, why_n);
        pp->layouts_evaluated = 1;
        pp->layouts_feasible = pp->fits ? 1 : 0;
        return TP_OK;
    case TP_LAYOUT_RECIPE: {
        tp_recipe rec;
        tp_error e = {0};
        pp->cfg = base;
        tp_config margined = base; /* the recipe stops at the first layout that fits this */
        margined.gpu.mem_capacity_bytes *= 1.0 - in->memory_margin;
        if (tp_recipe_run(&margined, &rec, &e) != TP_OK) {
            snprintf(why, why_n, "%.40s%s%.140s", e.path, e.path[0] ? ": " : "", e.message);
            memset(&pp->res, 0, sizeof pp->res);
            return TP_OK;
        }
        pp->cfg = rec.config;
        pp->cfg.gpu = base.gpu;
        pp->res = rec.result;
        pp->layouts_evaluated = 1;
        if (!rec.fits) {
            char reason[TP_REASON_MAX];
            snprintf(why, why_n, "%.180s", tp_result_reason(&rec.result, reason, sizeof reason));
            return TP_OK;
        }
        pp->fits = frozen_fits(&pp->cfg, ph, &pp->res, base.gpu.mem_capacity_bytes,
                               in->memory_margin, why, why_n);
        if (pp->fits && tp_eval(&pp->cfg, &pp->res, &e) != TP_OK)
            return tp_error_set(err, TP_ERR_INTERNAL, "plan",
                                "the recipe's layout failed re-evaluation: %s", e.message);
        pp->layouts_feasible = pp->fits ? 1 : 0;
        return TP_OK;
    }
    default: break;
    }
    bool fits;
    tp_status st = choose_search(in, &base, ph, &pp->cfg, &pp->res, pp, why, why_n, &fits, err);
    pp->fits = fits;
    if (!fits)
        pp->cfg = base;
    return st;
}

/* ---- per-phase time on a cluster ---- */

typedef struct cluster_eval {
    bool fits;
    bool predicted; /* every phase has a predicted step time */
    double wall_s;  /* at the sizing throughput */
    int failed_phase;
    char why[192];
} cluster_eval;

static bool use_predicted(const tp_plan_in *in, bool available)
{
    if (in->size_at == TP_SIZE_AT_MFU)
        return false;
    return available;
}

/* Phase time numbers that depend on the layout and cluster. */
static void phase_times(const tp_plan_in *in, double peak, int64_t n, tp_plan_phase *p)
{
    double basis = in->basis == TP_BASIS_6ND ? p->flops_6nd : p->flops_exact;
    double per_gpu = peak * in->mfu;
    p->mfu_step_s = p->steps > 0.0 ? basis / p->steps / (per_gpu * (double)n) : 0.0;
    p->gpu_hours_mfu = tp_budget_gpu_hours(p->flops_exact, per_gpu);
    p->gpu_hours_mfu_6nd = tp_budget_gpu_hours(p->flops_6nd, per_gpu);
    p->predicted_mfu = 0.0;
    p->predicted_step_s = 0.0;
    p->gpu_hours_predicted = 0.0;
    if (p->fits && p->res.time.computed && p->res.time.step_s > 0.0) {
        /* The time model knows nothing of a frozen module: charge its
         * FLOPs at the layout's own MFU. */
        double lm = p->flops_exact - p->frozen_flops;
        double scale = lm > 0.0 ? p->flops_exact / lm : 1.0;
        p->predicted_step_s = p->res.time.step_s * scale;
        p->predicted_mfu = p->res.time.mfu;
        p->gpu_hours_predicted = p->steps * p->predicted_step_s * (double)n / 3600.0;
    }
    bool pred = use_predicted(in, p->predicted_step_s > 0.0);
    p->step_s = pred ? p->predicted_step_s : p->mfu_step_s;
    p->wall_s = p->steps * p->step_s;
    p->gpu_hours = pred ? p->gpu_hours_predicted
                        : (in->basis == TP_BASIS_6ND ? p->gpu_hours_mfu_6nd : p->gpu_hours_mfu);
}

static tp_status eval_cluster(const tp_plan_in *in, const tp_model *model, double peak, int64_t n,
                              tp_plan_phase *phases, int np, cluster_eval *ce, tp_error *err)
{
    memset(ce, 0, sizeof *ce);
    ce->fits = true;
    ce->predicted = true;
    ce->failed_phase = -1;
    for (int i = 0; i < np; i++) {
        tp_plan_phase *p = &phases[i];
        tp_status st = choose_layout(in, model, p, n, ce->why, sizeof ce->why, err);
        if (st != TP_OK)
            return st;
        if (!p->fits) {
            ce->fits = false;
            ce->failed_phase = i;
            return TP_OK;
        }
        p->frozen_weight_bytes = frozen_bytes(&p->spec, &p->cfg.train);
        add_frozen(&p->res, p->frozen_weight_bytes);
        p->margin_bytes = in->layout_from == TP_LAYOUT_GIVEN
                              ? 0.0
                              : p->res.memory.capacity_bytes * in->memory_margin;
        phase_times(in, peak, n, p);
        if (!(p->predicted_step_s > 0.0))
            ce->predicted = false;
        ce->wall_s += p->wall_s;
    }
    return TP_OK;
}

/* ---- infeasible: why, and what would fix it ---- */

/* Do the flags narrow the layout search (plan --tp 4)? */
static bool space_narrowed(const tp_search_space *sp)
{
    const tp_axis *ax[] = {&sp->tp, &sp->pp, &sp->vpp, &sp->cp, &sp->ep, &sp->micro_batch};
    for (size_t i = 0; i < sizeof ax / sizeof ax[0]; i++)
        if (ax[i]->min > 0 || ax[i]->max > 0)
            return true;
    return sp->zero_mask != 0 || sp->recompute_mask != 0 || sp->sp_mask != 0;
}

/* The binding constraint in words. The binding model knows nothing of a
 * frozen module: when the model alone fits, say that the frozen weights are
 * what does not (issue 19: it said "fits, 39 GiB headroom" under "no layout
 * fits"); otherwise add them to the sentence. */
static void binding_text(const tp_search_binding *sb, double frozen, double total, char *buf,
                         size_t n)
{
    if (!(frozen > 0.0)) {
        snprintf(buf, n, "%s", sb->text);
    } else if (sb->fits) {
        snprintf(buf, n,
                 "the trained model fits (%.1f GiB), but %.1f GiB of frozen weights bring the "
                 "total to %.1f GiB > %.1f GiB: shard the frozen module (ZeRO-3 or more TP) or "
                 "spread it over more GPUs",
                 sb->total_bytes / TP_GIB, frozen / TP_GIB, total / TP_GIB,
                 sb->capacity_bytes / TP_GIB);
    } else {
        snprintf(buf, n, "%s (plus %.1f GiB of frozen weights)", sb->text, frozen / TP_GIB);
    }
}

/*
 * Explain a cluster on which some phase has no layout: the closest layout
 * (from the search without pruning, or the given one) and its binding
 * constraint (search.h), the least memory any layout needs (a GPU that
 * large would do), and the smallest cluster, doubling, on which the search
 * finds one.
 */
static tp_status diagnose(const tp_plan_in *in, const tp_model *model, tp_plan_phase *phases,
                          int np, int64_t n, int failed, const char *why, tp_plan *out,
                          tp_error *err)
{
    tp_plan_phase *fp = &phases[failed >= 0 ? failed : 0];
    const tp_phase *ph = &fp->spec;
    int64_t per_node = out->gpus_per_node;
    tp_config base = in->base;
    base.model = *model;
    base.train.num_gpus = n;
    base.train.seq_len = ph->seq_len;
    base.train.global_batch = ph->global_batch;

    /* The closest layout and what binds it. */
    tp_search_item close;
    bool have_close = false;
    if (in->layout_from == TP_LAYOUT_GIVEN) {
        tp_error e = {0};
        if (tp_eval(&base, &close.result, &e) == TP_OK) {
            close.config = base;
            have_close = true;
        }
    } else {
        tp_search_space space = in->space; /* the axes the flags fix stay fixed */
        space.no_prune = true;
        space.stop = in->stop;
        tp_search *s = NULL;
        tp_error e = {0};
        if (tp_search_new(&base, &space, &s, &e) == TP_OK) {
            tp_search_item it;
            while (tp_search_next(s, &it))
                ; /* exhaust: nothing fits, so nothing is returned */
            if (tp_search_status(s, err) != TP_OK) {
                tp_search_free(s);
                return TP_ERR_STOPPED;
            }
            have_close = tp_search_closest(s, &close, 1) == 1;
        } else if (e.code == TP_ERR_NOMEM) {
            *err = e;
            return TP_ERR_NOMEM;
        }
        tp_search_free(s);
    }
    char bind[480] = "";
    double least = 0.0;
    if (have_close) {
        tp_search_binding sb;
        tp_error e = {0};
        double fb = frozen_bytes(ph, &close.config.train);
        least = close.result.memory.total_bytes + fb;
        if (tp_search_binding_eval(&close.config, &sb, &e) == TP_OK)
            binding_text(&sb, fb, least, bind, sizeof bind);
        const tp_train *t = &close.config.train;
        snprintf(out->reason, sizeof out->reason,
                 "no layout of %.40s fits %lld x %.24s (%.1f GiB each) for phase \"%.24s\" "
                 "(seq %lld); closest: TP %lld PP %lld CP %lld ZeRO-%d needs %.1f GiB",
                 model->name, (long long)n, in->base.gpu.name,
                 in->base.gpu.mem_capacity_bytes / TP_GIB, ph->name, (long long)ph->seq_len,
                 (long long)t->tp, (long long)t->pp, (long long)t->cp, t->zero, least / TP_GIB);
    } else {
        snprintf(out->reason, sizeof out->reason,
                 "no layout of %.40s fits %lld x %.24s (%.1f GiB each) for phase \"%.24s\" "
                 "(seq %lld): %.100s",
                 model->name, (long long)n, in->base.gpu.name,
                 in->base.gpu.mem_capacity_bytes / TP_GIB, ph->name, (long long)ph->seq_len,
                 why && why[0] ? why : "every layout was rejected");
    }

    /* A fixed layout: would the search find one on these very GPUs? */
    int64_t more = 0;
    bool search_fits = false;
    tp_plan_phase tmp[TP_PLAN_MAX_PHASES];
    memcpy(tmp, phases, sizeof(tp_plan_phase) * (size_t)np);
    static _Thread_local tp_plan_in relaxed;
    relaxed = *in;
    relaxed.layout_from = TP_LAYOUT_AUTO;
    tp_search_space_default(&relaxed.space);
    relaxed.num_phases = np;
    char c[200] = "";
    bool axes_fixed = space_narrowed(&in->space);
    if (in->layout_from == TP_LAYOUT_GIVEN || (in->layout_from == TP_LAYOUT_AUTO && axes_fixed)) {
        cluster_eval ce;
        tp_status st = eval_cluster(&relaxed, model, out->peak_flops_per_s, n, tmp, np, &ce, err);
        if (st != TP_OK)
            return st;
        if (ce.fits) {
            search_fits = true;
            const tp_train *t = &tmp[0].cfg.train;
            snprintf(c, sizeof c,
                     "drop the fixed layout flags: the search fits these %lld GPUs (first phase: "
                     "TP %lld PP %lld CP %lld ZeRO-%d, recompute %s); ",
                     (long long)n, (long long)t->tp, (long long)t->pp, (long long)t->cp, t->zero,
                     t->recompute == TP_RECOMPUTE_FULL        ? "full"
                     : t->recompute == TP_RECOMPUTE_SELECTIVE ? "selective"
                                                              : "none");
        } else {
            snprintf(c, sizeof c, "drop the fixed layout flags and let the search choose; ");
        }
    }
    /* More GPUs: ZeRO-3 and PP spread the model states further. */
    for (int64_t m2 = n * 2; !search_fits && m2 <= in->max_gpus; m2 *= 2) {
        cluster_eval ce;
        int64_t mm = tp_budget_round_nodes((double)m2, per_node);
        tp_status st = eval_cluster(&relaxed, model, out->peak_flops_per_s, mm, tmp, np, &ce, err);
        if (st != TP_OK)
            return st;
        if (ce.fits) {
            more = mm;
            break;
        }
    }
    char a[128] = "", b[128] = "";
    if (more > 0)
        snprintf(a, sizeof a,
                 "use more GPUs: a layout fits on %lld GPUs (%lld x %lld) of "
                 "the doubled clusters; ",
                 (long long)more, (long long)(more / per_node), (long long)per_node);
    if (least > 0.0)
        snprintf(b, sizeof b, "use a GPU with at least %.0f GiB (for the closest layout); ",
                 ceil(least / TP_GIB));
    snprintf(out->fix, sizeof out->fix,
             "%s%s%sor train a smaller model or a shorter sequence (model states alone are "
             "%.0f GB = %lld GPUs' memory)%s%.400s",
             c, a, b, out->static_bytes / TP_GB, (long long)out->min_gpus_static,
             bind[0] ? ". Binding constraint: " : "", bind);
    return TP_OK;
}

/*
 * Scan clusters from `start` GPUs (whole nodes) up to `limit`: node by node
 * for SCAN_LINEAR_STEPS tries, then growing by 10% (and back node by node
 * over the last gap, so the answer is still the first that works). *n is
 * the first cluster on which every phase fits and the wall clock is within
 * deadline_s (*found), else the last one tried. *fastest (if not NULL)
 * tracks the fitting cluster with the shortest wall clock seen.
 */
typedef struct fastest_seen {
    int64_t n;
    double wall_s;
} fastest_seen;

static tp_status scan_up(const tp_plan_in *in, const tp_model *model, double peak, int64_t start,
                         int64_t limit, double deadline_s, tp_plan_phase *phases, int np,
                         cluster_eval *ce, int64_t *n, bool *found, fastest_seen *fast,
                         tp_error *err)
{
    int64_t per_node = tp_gpus_per_node(&in->base.train, &in->base.gpu);
    int64_t cur = tp_budget_round_nodes((double)start, per_node), prev = 0;
    *found = false;
    for (int tries = 0; cur >= 1 && cur <= limit; tries++) {
        tp_status st = eval_cluster(in, model, peak, cur, phases, np, ce, err);
        if (st != TP_OK)
            return st;
        *n = cur;
        if (fast && ce->fits && (fast->n == 0 || ce->wall_s < fast->wall_s)) {
            fast->n = cur;
            fast->wall_s = ce->wall_s;
        }
        if (ce->fits && ce->wall_s <= deadline_s * (1.0 + 1e-9)) {
            if (prev > 0 && cur - prev > per_node) /* a geometric jump: refine */
                return scan_up(in, model, peak, prev + per_node, cur, deadline_s, phases, np, ce, n,
                               found, NULL, err);
            *found = true;
            return TP_OK;
        }
        prev = cur;
        cur = tries < SCAN_LINEAR_STEPS ? cur + per_node
                                        : tp_budget_round_nodes((double)cur * 1.1, per_node);
    }
    return TP_OK;
}

/* ---- the plan ---- */

/* The model (given, or sized from the compute budget); *C_out the compute
 * budget in FLOPs (given, or what the money budget buys at the MFU), 0 if none. */
static tp_status resolve_model(const tp_plan_in *in, double peak, double price, tp_plan *out,
                               double *C_out, tp_error *err)
{
    out->model = in->base.model;
    double C = in->compute_flops;
    if (!(C > 0.0) && in->budget_usd > 0.0 && price > 0.0)
        C = in->budget_usd / price * 3600.0 * peak * in->mfu;
    *C_out = C;
    if (in->model_params > 0.0) /* plan --params: the shape rule of tp_scaling_shape */
        return tp_scaling_shape(in->model_params, in->base.model.vocab, &out->model, err);
    if (!in->size_model)
        return TP_OK;
    const tp_scaling_fit *f = tp_scaling_fit_get(in->fit);
    if (!(in->compute_flops > 0.0)) {
        if (!(in->budget_usd > 0.0))
            return tp_error_set(
                err, TP_ERR_INVALID_ARG, "plan.size_model",
                "sizing the model needs a compute budget in FLOPs or a money budget");
        if (!(price > 0.0))
            return tp_error_set(err, TP_ERR_INVALID_ARG, "plan.price_per_hour",
                                "sizing the model from a money budget needs a price > 0");
    }
    tp_scaling_point pt;
    tp_status st;
    if (in->tokens_from == TP_TOKENS_PER_PARAM) {
        st = tp_scaling_rule(f, C, in->tokens_per_param, &pt, err);
    } else if (in->tokens_from == TP_TOKENS_GIVEN) {
        pt.params = C / (6.0 * in->tokens);
        st = TP_OK;
    } else {
        st = tp_scaling_optimal(f, C, &pt, err);
    }
    if (st != TP_OK)
        return st;
    return tp_scaling_shape(pt.params, in->base.model.vocab, &out->model, err);
}

static tp_status resolve_phases(const tp_plan_in *in, double D, tp_plan *out, tp_error *err)
{
    const tp_train *bt = &in->base.train;
    double base_tps = (double)bt->global_batch * (double)bt->seq_len;
    if (in->num_phases == 0) {
        out->num_phases = 1;
        tp_phase *p = &out->phases[0].spec;
        memset(p, 0, sizeof *p);
        snprintf(p->name, sizeof p->name, "main");
        p->tokens = D;
        p->seq_len = bt->seq_len;
        p->global_batch = bt->global_batch;
        return TP_OK;
    }
    out->num_phases = in->num_phases;
    double given = 0.0;
    int open = -1;
    for (int i = 0; i < in->num_phases; i++) {
        tp_phase *p = &out->phases[i].spec;
        *p = in->phases[i];
        if (!p->name[0])
            snprintf(p->name, sizeof p->name, "phase%d", i + 1);
        if (p->seq_len == 0)
            p->seq_len = bt->seq_len;
        if (p->global_batch == 0 && p->batch_tokens > 0) {
            if (p->batch_tokens % p->seq_len != 0)
                return tp_error_set(err, TP_ERR_INVALID_ARG, "plan.phases",
                                    "phase \"%s\": batch of %lld tokens is not a multiple of "
                                    "its sequence length %lld",
                                    p->name, (long long)p->batch_tokens, (long long)p->seq_len);
            p->global_batch = p->batch_tokens / p->seq_len;
        }
        if (p->global_batch == 0) {
            double b = floor(base_tps / (double)p->seq_len + 0.5);
            p->global_batch = b < 1.0 ? 1 : (int64_t)b;
        }
        if (p->tokens > 0.0)
            given += p->tokens;
        else
            open = i;
    }
    if (open >= 0) {
        double rest = D - given;
        if (!(rest >= 1.0))
            return tp_error_set(err, TP_ERR_INVALID_ARG, "plan.phases",
                                "the other phases take %.4g of the plan's %.4g tokens, leaving "
                                "none for phase \"%s\"",
                                given, D, out->phases[open].spec.name);
        out->phases[open].spec.tokens = rest;
    }
    return TP_OK;
}

/*
 * The steps of tp_plan_run, in order. Each fills its part of *out from the
 * input and the parts before it; none reads a part filled after it. The
 * peak and the price come from plan_hardware (out->peak_flops_per_s,
 * out->price_per_hour), so every later step uses the same two numbers.
 */

/* The GPU's dense peak at the run's precision, the price per GPU-hour
 * (the input's, else the GPU's) and the node size (the training setup's,
 * else the GPU's): every later step counts in these. */
static tp_status plan_hardware(const tp_plan_in *in, tp_plan *out, tp_error *err)
{
    const tp_gpu *g = &in->base.gpu;
    tp_status st = tp_gpu_validate(g, err);
    if (st != TP_OK)
        return st;
    tp_precision prec = in->base.train.precision;
    if ((int)prec < 0 || prec >= TP_PREC_COUNT || !(g->peak_flops_per_s[prec] > 0.0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.precision",
                            "%s has no dense peak for this precision", g->name);
    out->peak_flops_per_s = g->peak_flops_per_s[prec];
    out->price_per_hour = in->price_per_hour >= 0.0 ? in->price_per_hour : g->price_per_gpu_hour;
    out->gpus_per_node = tp_gpus_per_node(&in->base.train, g);
    return TP_OK;
}

/* FLOPs per token that --mfu applies to (6N, or the exact count at the
 * base sequence length): what a money budget's tokens are divided by, so
 * that the plan at --mfu costs the budget (issue 19, "budget -> tokens"). */
static double basis_per_token(const tp_plan_in *in, const tp_plan *out)
{
    tp_config c = in->base;
    c.model = out->model;
    tp_flops fl;
    tp_flops_eval(&c, &out->params, &fl);
    double f = in->basis == TP_BASIS_6ND ? fl.six_n_per_token : fl.model_per_token;
    return f > 0.0 ? f : 6.0 * out->params_n;
}

/* Steps 1-2: the model (given or sized from the budget), its parameters,
 * the training tokens (given, per parameter, or what the compute budget
 * buys), their split into phases, and the scaling-law figures of that
 * (N, D): loss, compute-optimal point, the 20-tokens/param point and the
 * critical batch. The phases' tokens are summed back so that a plan with
 * given phase sizes reports what it trains on. */
static tp_status plan_model_tokens(const tp_plan_in *in, tp_plan *out, tp_error *err)
{
    double peak = out->peak_flops_per_s, price = out->price_per_hour;
    double C_budget = 0.0;
    tp_status st = resolve_model(in, peak, price, out, &C_budget, err);
    if (st != TP_OK)
        return st;
    st = tp_model_params(&out->model, 0, &out->params, err);
    if (st != TP_OK)
        return st;
    double N = (double)out->params.total;
    out->params_n = N;

    out->fit = tp_scaling_fit_get(in->fit);
    double D;
    switch (in->tokens_from) {
    case TP_TOKENS_GIVEN: D = in->tokens; break;
    case TP_TOKENS_COMPUTE:
        D = C_budget /
            (in->compute_flops > 0.0 || in->size_model ? 6.0 * N : basis_per_token(in, out));
        break;
    default: D = in->tokens_per_param * N; break;
    }
    if (!(D >= 1.0) || D > 1e18)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "plan.tokens",
                            "%.4g training tokens is out of range", D);
    st = resolve_phases(in, D, out, err);
    if (st != TP_OK)
        return st;
    assert(out->num_phases >= 1 && out->num_phases <= TP_PLAN_MAX_PHASES);
    D = 0.0;
    for (int i = 0; i < out->num_phases; i++)
        D += out->phases[i].spec.tokens;
    out->tokens = D;
    out->tokens_per_param = D / N;
    out->compute_budget_flops = C_budget;
    out->loss = tp_scaling_loss(out->fit, N, D);
    st = tp_scaling_optimal(out->fit, 6.0 * N * D, &out->optimal, err);
    if (st == TP_OK)
        st = tp_scaling_rule(out->fit, 6.0 * N * D, 20.0, &out->rule20, err);
    if (st != TP_OK)
        return st;
    out->crit_batch_tokens = tp_critical_batch_tokens(out->loss);

    /* Static memory per model copy (seed 000 step 8). */
    tp_state_bytes_per_param(&in->base.train, &out->state_bytes);
    out->static_bytes = N * out->state_bytes.total;
    out->min_gpus_static = (int64_t)ceil(out->static_bytes / in->base.gpu.mem_capacity_bytes);
    return TP_OK;
}

/* Step 3: each phase's steps and FLOPs (6ND and exact, with its frozen
 * module) and its GPU-hours at the user's MFU. None of this depends on the
 * layout or the cluster, so it is known even when no layout fits. */
static tp_status plan_phase_flops(const tp_plan_in *in, tp_plan *out, tp_error *err)
{
    double peak = out->peak_flops_per_s;
    for (int i = 0; i < out->num_phases; i++) {
        tp_plan_phase *p = &out->phases[i];
        tp_config c = in->base;
        c.model = out->model;
        c.train.seq_len = p->spec.seq_len;
        c.train.global_batch = p->spec.global_batch;
        if ((double)p->spec.seq_len * (double)p->spec.global_batch > (double)TP_MAX_TOKENS_PER_STEP)
            return tp_error_set(err, TP_ERR_RANGE, "train.global_batch",
                                "phase \"%s\": more than 1e15 tokens per step", p->spec.name);
        tp_params padded = out->params;
        if (c.train.pad_vocab_to > 1) {
            tp_status st = tp_model_params(&out->model, c.train.pad_vocab_to, &padded, err);
            if (st != TP_OK)
                return st;
        }
        tp_flops fl;
        tp_flops_eval(&c, &padded, &fl);
        p->tokens_per_step = (double)p->spec.seq_len * (double)p->spec.global_batch;
        p->steps = tp_budget_steps(p->spec.tokens, p->tokens_per_step);
        p->steps_whole = (int64_t)ceil(p->steps * (1.0 - 1e-12));
        double ft = p->spec.frozen_tokens > 0.0 ? p->spec.frozen_tokens : p->spec.tokens;
        p->frozen_flops = (p->spec.frozen_no_backward ? 2.0 : 4.0) * p->spec.frozen_params * ft;
        p->flops_6nd = fl.six_n_per_token * p->spec.tokens + p->frozen_flops;
        p->flops_exact = fl.model_per_token * p->spec.tokens + p->frozen_flops;
        double tb =
            p->tokens_per_step / (out->crit_batch_tokens > 0.0 ? out->crit_batch_tokens : 1.0);
        if (tb > out->batch_over_crit)
            out->batch_over_crit = tb;
        if (out->model.pos == TP_POS_LEARNED && out->model.max_positions < p->spec.seq_len)
            out->positions_caveat = true;
        out->flops_6nd += p->flops_6nd;
        out->flops_exact += p->flops_exact;
        /* At the user MFU: layout-independent, known even without a layout. */
        p->gpu_hours_mfu = tp_budget_gpu_hours(p->flops_exact, peak * in->mfu);
        p->gpu_hours_mfu_6nd = tp_budget_gpu_hours(p->flops_6nd, peak * in->mfu);
        out->gpu_hours_mfu += p->gpu_hours_mfu;
        out->gpu_hours_mfu_6nd += p->gpu_hours_mfu_6nd;
    }
    out->crit_batch_caveat = out->crit_batch_tokens > 0.0 && out->batch_over_crit > 2.0;
    return TP_OK;
}

/* The FLOPs the user's MFU is applied to (--basis): 6ND or exact. */
static double basis_flops_of(const tp_plan_in *in, const tp_plan *out)
{
    return in->basis == TP_BASIS_6ND ? out->flops_6nd : out->flops_exact;
}

/*
 * With a predicted step time, the first cluster that meets the deadline
 * (`best`) may not be the smallest: the predicted MFU varies with the
 * cluster (DP must divide the batch, so some sizes only have poor
 * layouts). Probe the power-of-two node counts below `best`, then scan up
 * from the bound that 1.15 x the best MFU seen gives; returns the smallest
 * cluster found that meets the deadline.
 */
static tp_status refine_below(const tp_plan_in *in, tp_plan *out, double deadline_s,
                              cluster_eval *ce, int64_t *best_io, tp_error *err)
{
    double peak = out->peak_flops_per_s;
    int64_t per_node = out->gpus_per_node;
    int np = out->num_phases;
    double mfu_hi = 0.0;
    for (int i = 0; i < np; i++)
        if (out->phases[i].predicted_mfu > mfu_hi)
            mfu_hi = out->phases[i].predicted_mfu;
    int64_t best = *best_io;
    for (int64_t P = per_node; P < best; P *= 2) {
        if (P * 8 < best)
            continue;
        tp_status st = eval_cluster(in, &out->model, peak, P, out->phases, np, ce, err);
        if (st != TP_OK)
            return st;
        for (int i = 0; ce->fits && i < np; i++)
            if (out->phases[i].predicted_mfu > mfu_hi)
                mfu_hi = out->phases[i].predicted_mfu;
        if (ce->fits && ce->predicted && ce->wall_s <= deadline_s * (1.0 + 1e-9))
            best = P;
    }
    double cap = mfu_hi * 1.15 < 1.0 ? mfu_hi * 1.15 : 1.0;
    int64_t lo = tp_budget_round_nodes(out->flops_exact / (peak * cap) / deadline_s, per_node);
    if (lo >= 1 && lo < best) {
        int64_t n2 = best;
        bool f2 = false;
        tp_status st = scan_up(in, &out->model, peak, lo, best - per_node, deadline_s, out->phases,
                               np, ce, &n2, &f2, NULL, err);
        if (st != TP_OK)
            return st;
        if (f2)
            best = n2;
    }
    *best_io = best;
    return TP_OK;
}

/* Every phase's chosen layout is clean (tp_plan_layout_clean); else the
 * first rule broken, with the phase, in why. */
static bool phases_clean(const tp_plan *out, char *why, size_t why_n)
{
    for (int i = 0; i < out->num_phases; i++) {
        char w[96];
        if (!tp_plan_layout_clean(&out->phases[i].cfg, w, sizeof w)) {
            snprintf(why, why_n, "phase \"%.24s\": %.96s", out->phases[i].spec.name, w);
            return false;
        }
    }
    return true;
}

/* Could a clean layout exist on n GPUs at all? TP dividing the node and
 * the heads, PP dividing the layers, CP 1 at short context (else a power of
 * two), and DP = n / (TP PP CP) dividing the batch. Arithmetic only: it
 * spares the search on node counts such as 58 x 8 = 2^4 x 29, where DP must
 * divide 1024 sequences and so 29 lands in TP, PP or CP. */
static bool clean_possible(const tp_plan_in *in, const tp_model *m, const tp_plan_phase *ph,
                           int64_t n)
{
    int64_t gpn = tp_gpus_per_node(&in->base.train, &in->base.gpu);
    int64_t heads = m->num_heads, kv = tp_kv_heads(m), L = m->num_layers;
    int64_t cp_max =
        short_context(&ph->cfg.train) || ph->spec.seq_len <= TP_PLAN_CP_SHORT_SEQ ? 1 : 64;
    for (int64_t tp = 1; tp <= gpn; tp++) {
        if (gpn % tp || heads % tp || kv % tp || n % tp)
            continue;
        for (int64_t pp = 1; pp <= L; pp++) {
            if (L % pp || (n / tp) % pp)
                continue;
            for (int64_t cp = 1; cp <= cp_max; cp *= 2) {
                if ((n / tp / pp) % cp)
                    continue;
                int64_t dp = n / tp / pp / cp;
                if (ph->spec.global_batch % dp == 0)
                    return true;
            }
        }
    }
    return false;
}

/*
 * Layouts people run (issue 19): when the cluster sized for the deadline
 * was won by a layout with a broken rule (PP 29 of 48 layers, CP at 4K
 * tokens, TP across nodes), search clean layouts only (even PP, TP inside
 * a node, CP 1 at short context), from that cluster up to
 * TP_PLAN_CLEAN_SLACK more GPUs, node by node, and take the first cluster
 * where one fits and meets the deadline; keep the first cluster (and say
 * why) when there is none.
 */
static tp_status move_to_clean(const tp_plan_in *in, tp_plan *out, double deadline_s, int64_t limit,
                               cluster_eval *ce, int64_t *n, tp_error *err)
{
    char why[160];
    if (in->layout_from != TP_LAYOUT_AUTO || phases_clean(out, why, sizeof why))
        return TP_OK;
    int64_t per_node = out->gpus_per_node, first = *n;
    out->first_fit_gpus = first;
    /* a deadline the first cluster misses: a clean one may take as long, within the tie */
    double bound_s = ce->wall_s * (1.0 + in->tie_tolerance);
    if (bound_s < deadline_s)
        bound_s = deadline_s;
    snprintf(out->clean_note, sizeof out->clean_note, "%s", why);
    int64_t hi = (int64_t)floor((double)first * (1.0 + TP_PLAN_CLEAN_SLACK));
    if (hi > limit)
        hi = limit;
    static _Thread_local tp_plan_in clean;
    clean = *in;
    clean.space.even_pp_only = true;
    clean.space.tp_across_nodes = false;
    clean.clean_only = true;
    double peak = out->peak_flops_per_s;
    for (int64_t m = first; m <= hi; m += per_node) {
        bool possible = true;
        for (int i = 0; i < out->num_phases && possible; i++)
            possible = clean_possible(in, &out->model, &out->phases[i], m);
        if (!possible)
            continue;
        tp_status st =
            eval_cluster(&clean, &out->model, peak, m, out->phases, out->num_phases, ce, err);
        if (st != TP_OK)
            return st;
        char w2[160];
        if (ce->fits && ce->wall_s <= bound_s * (1.0 + 1e-9) && phases_clean(out, w2, sizeof w2)) {
            *n = m;
            out->clean_layouts = true;
            out->clean_moved = m != first;
            if (m == first) { /* a clean layout on the same cluster: nothing moved */
                out->first_fit_gpus = 0;
                out->clean_note[0] = '\0';
            }
            return TP_OK;
        }
    }
    return eval_cluster(in, &out->model, peak, first, out->phases, out->num_phases, ce, err);
}

/*
 * Steps 4-5 when the cluster is sized for the deadline: the GPUs the
 * deadline needs at the user's MFU (whole nodes), then the first cluster
 * at or above that estimate on which every phase has a layout and the
 * deadline is met (refined downwards with a predicted step time); if none
 * within max_gpus meets it, the fastest one seen (deadline_met is false
 * and a caveat says so). *n is the cluster, *ce its evaluation.
 */
static tp_status size_for_deadline(const tp_plan_in *in, tp_plan *out, cluster_eval *ce, int64_t *n,
                                   tp_error *err)
{
    double peak = out->peak_flops_per_s;
    int64_t per_node = out->gpus_per_node;
    int np = out->num_phases;
    double mfu_gpu_hours = tp_budget_gpu_hours(basis_flops_of(in, out), peak * in->mfu);
    out->gpus_exact = tp_budget_gpus_for_deadline(mfu_gpu_hours, in->deadline_h);
    out->gpus_whole_nodes = tp_budget_round_nodes(out->gpus_exact, per_node);
    int64_t limit = in->max_gpus / per_node * per_node;
    if (limit < per_node)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "plan.max_gpus",
                            "%lld is less than one node of %lld GPUs", (long long)in->max_gpus,
                            (long long)per_node);
    int64_t start = out->gpus_whole_nodes < limit ? out->gpus_whole_nodes : limit;
    if (start < per_node)
        start = per_node;
    double deadline_s = in->deadline_h * 3600.0;
    fastest_seen fast = {0, 0.0};
    bool found = false;
    tp_status st = scan_up(in, &out->model, peak, start, limit, deadline_s, out->phases, np, ce, n,
                           &found, &fast, err);
    if (st != TP_OK)
        return st;
    if (found && use_predicted(in, ce->predicted)) {
        st = refine_below(in, out, deadline_s, ce, n, err);
        if (st != TP_OK)
            return st;
    }
    if (!found && fast.n > 0) {
        *n = fast.n;
        found = true;
    }
    if (!found)
        return TP_OK;
    /* the phases must hold this cluster's layouts */
    st = eval_cluster(in, &out->model, peak, *n, out->phases, np, ce, err);
    if (st == TP_OK && ce->fits)
        st = move_to_clean(in, out, deadline_s, limit, ce, n, err);
    return st;
}

/* Steps 4-5: the cluster (the GPUs given, or sized for the deadline) and
 * every phase's layout on it; *ce says whether all of them fit. */
static tp_status plan_cluster(const tp_plan_in *in, tp_plan *out, cluster_eval *ce, int64_t *n,
                              tp_error *err)
{
    if (in->size_by != TP_SIZE_GPUS)
        return size_for_deadline(in, out, ce, n, err);
    *n = in->base.train.num_gpus;
    if (*n < 1 || *n > TP_MAX_GPUS)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.num_gpus", "must be in [1, 2^20]");
    tp_status st = eval_cluster(in, &out->model, out->peak_flops_per_s, *n, out->phases,
                                out->num_phases, ce, err);
    if (st != TP_OK)
        return st;
    if (in->deadline_h > 0.0) {
        double mfu_gpu_hours =
            tp_budget_gpu_hours(basis_flops_of(in, out), out->peak_flops_per_s * in->mfu);
        out->gpus_exact = tp_budget_gpus_for_deadline(mfu_gpu_hours, in->deadline_h);
        out->gpus_whole_nodes = tp_budget_round_nodes(out->gpus_exact, out->gpus_per_node);
    }
    return TP_OK;
}

/* Step 6: wall clock, GPU-hours and cost on the chosen cluster, each phase
 * at the predicted step time where there is one (unless --size-at mfu),
 * and where in the learning-rate schedule each phase starts. */
static void plan_totals(const tp_plan_in *in, tp_plan *out, bool predicted)
{
    double n = (double)out->num_gpus;
    out->used_predicted = predicted && use_predicted(in, true);
    double step_acc = 0.0;
    for (int i = 0; i < out->num_phases; i++) {
        tp_plan_phase *p = &out->phases[i];
        p->step_s = out->used_predicted ? p->predicted_step_s : p->mfu_step_s;
        p->wall_s = p->steps * p->step_s;
        p->gpu_hours = p->wall_s * n / 3600.0;
        p->lr_start_step = step_acc;
        step_acc += (double)p->steps_whole;
        out->gpu_hours_predicted += p->gpu_hours_predicted;
        out->compute_wall_s += p->wall_s;
    }
    out->lr.total_steps = (int64_t)step_acc;
    out->gpu_hours = out->compute_wall_s * n / 3600.0;
    if (in->deadline_h > 0.0 && out->gpu_hours_predicted > 0.0)
        out->gpus_exact_predicted = out->gpu_hours_predicted / in->deadline_h;
    out->cost_usd = out->gpu_hours * out->price_per_hour;
    out->deadline_met =
        in->deadline_h > 0.0 ? out->compute_wall_s <= in->deadline_h * 3600.0 * (1.0 + 1e-9) : true;
    if (in->deadline_h > 0.0)
        out->required_mfu = tp_budget_required_mfu(basis_flops_of(in, out), n,
                                                   out->peak_flops_per_s, in->deadline_h * 3600.0);
}

/* The budget's answers that need no layout (issue 19: any two of budget,
 * deadline and MFU give the third): the GPU-hours it buys; with a deadline,
 * the GPUs it rents for that long (whole nodes, rounded down) and the MFU
 * those GPUs need to finish the plan's FLOPs in time; at --mfu, the tokens
 * it buys for this model. */
static void plan_budget_inverse(const tp_plan_in *in, tp_plan *out)
{
    if (!(in->budget_usd > 0.0) || !(out->price_per_hour > 0.0))
        return;
    double peak = out->peak_flops_per_s;
    out->budget_gpu_hours = tp_budget_gpu_hours_for_usd(in->budget_usd, out->price_per_hour);
    double per_token = out->tokens > 0.0 ? basis_flops_of(in, out) / out->tokens : 0.0;
    if (per_token > 0.0)
        out->budget_tokens_at_mfu = out->budget_gpu_hours * 3600.0 * peak * in->mfu / per_token;
    if (!(in->deadline_h > 0.0))
        return;
    out->budget_gpus_for_deadline = out->budget_gpu_hours / in->deadline_h;
    int64_t per_node = out->gpus_per_node;
    int64_t whole =
        (int64_t)floor(out->budget_gpus_for_deadline / (double)per_node + 1e-9) * per_node;
    out->budget_gpus_whole_nodes = whole;
    if (whole >= 1)
        out->budget_required_mfu = tp_budget_required_mfu(basis_flops_of(in, out), (double)whole,
                                                          peak, in->deadline_h * 3600.0);
}

/* Step 7: what the money budget buys (GPU-hours, hours on this cluster,
 * GPUs for the deadline), whether the plan is within it, and the budget's
 * inverse problem at the plan's effective MFU. */
static tp_status plan_money(const tp_plan_in *in, tp_plan *out, tp_error *err)
{
    if (!(in->budget_usd > 0.0)) {
        out->within_budget = true;
        return TP_OK;
    }
    double peak = out->peak_flops_per_s, price = out->price_per_hour;
    out->budget_gpu_hours = tp_budget_gpu_hours_for_usd(in->budget_usd, price);
    out->budget_hours_on_cluster = out->budget_gpu_hours / (double)out->num_gpus;
    if (in->deadline_h > 0.0)
        out->budget_gpus_for_deadline = out->budget_gpu_hours / in->deadline_h;
    out->within_budget = out->cost_usd <= in->budget_usd * (1.0 + 1e-12);
    double eff_mfu =
        out->gpu_hours > 0.0 ? out->flops_exact / (out->gpu_hours * 3600.0 * peak) : in->mfu;
    if (price > 0.0 && eff_mfu > 0.0 && eff_mfu <= 1.0)
        return tp_budget_affords(in->budget_usd, price, peak, eff_mfu, out->fit, 0.0,
                                 &out->budget_affords, err);
    return TP_OK;
}

/* Step 8: checkpoint size, write time and interval (synchronous and
 * asynchronous), failures and goodput. A checkpoint is taken between
 * optimizer steps, so no interval is shorter than one step: a shorter
 * optimum (failures every few steps) is planned at one step and says so
 * (issue 14), not shown as "1 step" while the arithmetic used the shorter
 * one. */
static tp_status plan_checkpoint(const tp_plan_in *in, tp_plan *out, tp_error *err)
{
    double N = out->params_n;
    tp_ckpt_in ck = in->ckpt;
    ck.params = N;
    ck.trainable_params = N;
    /* state_bytes.optimizer = fp32 master (if kept) + moments */
    double master =
        (in->base.train.optimizer.master_weights && in->base.train.precision != TP_PREC_TF32) ? 4.0
                                                                                              : 0.0;
    if (master > out->state_bytes.optimizer)
        master = out->state_bytes.optimizer;
    ck.weight_bytes_per_param = out->state_bytes.weights;
    ck.master_bytes_per_param = master;
    ck.moment_bytes_per_param = out->state_bytes.optimizer - master;
    ck.num_gpus = out->num_gpus;
    if (!(ck.storage_bw_bytes_per_s > 0.0))
        ck.storage_bw_bytes_per_s = in->storage_bw_per_node * (double)out->num_nodes;
    out->storage_bw_bytes_per_s = ck.storage_bw_bytes_per_s;
    ck.compute_s = out->compute_wall_s;
    double step0 = out->phases[0].step_s;
    ck.interval_s = in->ckpt_every_steps > 0 ? (double)in->ckpt_every_steps * step0 : 0.0;
    tp_ckpt_in cs = ck, ca = ck;
    cs.async = false;
    ca.async = true;
    if (!(ca.host_bw_bytes_per_s > 0.0))
        ca.host_bw_bytes_per_s = 10e9;
    tp_status st = tp_ckpt_plan(&cs, &out->ckpt_sync, err);
    if (st == TP_OK)
        st = tp_ckpt_plan(&ca, &out->ckpt_async, err);
    if (st == TP_OK && in->ckpt_every_steps == 0 && step0 > 0.0 &&
        out->ckpt_sync.interval_s < step0) {
        cs.interval_s = step0;
        st = tp_ckpt_plan(&cs, &out->ckpt_sync, err);
        out->ckpt_sync.raised_to_step = true;
    }
    if (st == TP_OK && in->ckpt_every_steps == 0 && step0 > 0.0 &&
        out->ckpt_async.interval_s < step0) {
        ca.interval_s = step0;
        st = tp_ckpt_plan(&ca, &out->ckpt_async, err);
        out->ckpt_async.raised_to_step = true;
    }
    if (st != TP_OK)
        return st;
    out->ckpt = ck.async ? out->ckpt_async : out->ckpt_sync;
    out->ckpt_every_steps = step0 > 0.0 ? out->ckpt.interval_s / step0 : 0.0;
    out->wall_s = out->ckpt.progress ? out->ckpt.wall_s : 0.0;
    return TP_OK;
}

/* Step 9: the learning-rate schedule over the plan's steps (set by
 * plan_totals): minimum 10% of the peak and warm-up 10% of the steps
 * capped at 2,000 unless given, never longer than the run. */
static void plan_lr(const tp_plan_in *in, tp_plan *out)
{
    out->lr.peak_lr = in->peak_lr;
    out->lr.min_lr = in->min_lr >= 0.0 ? in->min_lr : 0.1 * in->peak_lr;
    if (in->warmup_steps >= 0) {
        out->lr.warmup_steps = in->warmup_steps;
    } else {
        int64_t w = out->lr.total_steps / 10;
        out->lr.warmup_steps = w < 2000 ? w : 2000;
    }
    if (out->lr.warmup_steps > out->lr.total_steps)
        out->lr.warmup_steps = out->lr.total_steps;
}

tp_status tp_plan_run(const tp_plan_in *in, tp_plan *out, tp_error *err)
{
    if (!in || !out)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "plan", "no plan input given");
    tp_status st = check_input(in, err);
    if (st != TP_OK)
        return st;
    memset(out, 0, sizeof *out);
    st = plan_hardware(in, out, err);
    if (st == TP_OK)
        st = plan_model_tokens(in, out, err);
    if (st == TP_OK)
        st = plan_phase_flops(in, out, err);
    cluster_eval ce;
    int64_t n = 0;
    if (st == TP_OK)
        st = plan_cluster(in, out, &ce, &n, err);
    if (st != TP_OK)
        return st;
    out->num_gpus = n;
    out->num_nodes = (n + out->gpus_per_node - 1) / out->gpus_per_node;
    plan_budget_inverse(in, out);
    out->feasible = ce.fits;
    if (!ce.fits)
        return diagnose(in, &out->model, out->phases, out->num_phases, n, ce.failed_phase, ce.why,
                        out, err);
    assert(n >= 1 && out->num_nodes * out->gpus_per_node >= n);
    plan_totals(in, out, ce.predicted);
    st = plan_money(in, out, err);
    if (st == TP_OK)
        st = plan_checkpoint(in, out, err);
    if (st != TP_OK)
        return st;
    plan_lr(in, out);
    return TP_OK;
}
