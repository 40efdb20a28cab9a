/* SPDX-License-Identifier: MIT */
/*
 * recipe.c: the seeds' ordered recipe as data, and the largest micro-batch
 * that fits a layout (formula, doubling, bisection).
 *
 * The recipe (seed 003 "The design recipe", seed 004 summary, S3-3) applies
 * the axes in a fixed order, cheapest communication first, and stops as
 * soon as the layout fits. Each step below records its numbers in
 * tp_recipe; the CLI (`trainplan explain`) narrates them.
 *
 *  1. Bill: N parameters x bytes/param (16 for mixed-precision AdamW) of
 *     model states, plus the activations of one sequence.
 *  2. TP inside a node: the smallest TP (dividing heads, kv heads and the
 *     node) at which micro-batch 1 fits without recompute; if none does,
 *     the whole node (seed 004: "saturate NVLink").
 *  3. Largest micro-batch at that TP (PP 1, ZeRO-0) for each recompute
 *     mode. When not even one sequence fits without recompute and its
 *     activations outweigh the states (seed 003: "when activations -- not
 *     weights -- are what overflow"), the case is long-context and the
 *     micro-batch stays 1 (seed 004).
 *  4. PP only if the node cannot hold the model: the smallest PP at which
 *     micro-batch 1 fits with the cheapest recompute. The bubble is
 *     reported for the final m. Under 1F1B stage 0 keeps min(m, p)
 *     micro-batches in flight, so PP relieves the model states, not stage
 *     0's activations; both stage-0 figures are recorded (PP 1 and PP 2).
 *  5. DP = GPUs / (TP x PP); ZeRO-1 when DP > 1 (it moves the same bytes
 *     as the all-reduce it replaces: reduce-scatter + all-gather), deeper
 *     stages only if needed to fit; then the cheapest recompute that fits.
 *  6. Global batch = micro-batch x accumulation x DP: the largest
 *     micro-batch that fits and divides B / DP (with PP, one that keeps
 *     m >= PP when possible); when DP does not divide B, the accumulation
 *     is rounded up and the effective global batch reported.
 *  7. CP for long context: when the sequence forced recompute, the
 *     smallest CP (taken from DP, 2 x CP dividing the sequence, global
 *     batch still whole) at which the same micro-batch fits without it.
 *  8. EP for MoE: the experts sharded over gcd(experts, DP) ranks (used
 *     in every memory test above too), with the expert TP equal to TP.
 *     The seeds' recipe (S3-3, seeds 003/004) has no expert-layout step
 *     of its own: it carves EP out of DP, which Megatron-Core's folding
 *     rule (GPUs divisible by ETP x EP x PP) always admits, so the recipe
 *     keeps that rule and leaves folding (ETP apart from TP, EP beyond DP)
 *     to the search (`--moe-folding`), which it is compared with. A --etp
 *     given fixes the search's axis, not the recipe's layout, as --tp does.
 *  9. The layout, evaluated: predicted step time and MFU.
 *
 * Memory tests use tp_eval on the partial layout with the global batch
 * rounded to a multiple of micro-batch x DP (at least one micro-batch per
 * replica), so in-flight micro-batches are counted as they will be.
 *
 * Largest micro-batch: with the micro-batches per step m held fixed, each
 * stage's memory is affine in b (activations, logits and the allocator
 * reserve scale with b; states, buffers and context do not), so two
 * evaluations (b = 1, 2) give fixed_s and per_seq_s and
 * b_max = min_s floor((capacity - fixed_s) / per_seq_s). The doubling
 * search of seed 004 is run independently and must agree (S4-6).
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "internal.h"

/* ---- largest micro-batch ------------------------------------------------ */

/* Memory of the checked stages (tp__checked_stages) at micro-batch b, m fixed. */
static bool stage_totals(const tp_config *c, const tp_params *P, int64_t b, int64_t m,
                         double tot[4], int64_t stages[4], int *ns)
{
    tp_config v = *c;
    int64_t dp = tp_train_dp(&c->train);
    if ((double)b * (double)dp * (double)m > (double)TP_MAX_BATCH)
        return false;
    v.train.micro_batch = b;
    v.train.global_batch = b * dp * m;
    int n = tp__checked_stages(&c->train, &c->model, stages);
    for (int j = 0; j < n; j++) {
        tp_memory mem;
        tp_memory_stage(&v, P, stages[j], &mem);
        tot[j] = mem.total_bytes;
    }
    *ns = n;
    return true;
}

/* Trial: does micro-batch b fit (validated, every checked stage)? */
static bool trial_fits(const tp_config *c, int64_t b, int64_t m)
{
    tp_config v = *c;
    int64_t dp = tp_train_dp(&c->train);
    if ((double)b * (double)dp * (double)m > (double)TP_MAX_BATCH)
        return false;
    v.train.micro_batch = b;
    v.train.global_batch = b * dp * m;
    tp_result r;
    tp_error e;
    return tp_eval(&v, &r, &e) == TP_OK && r.memory.fits;
}

tp_status tp_micro_batch_max(const tp_config *c, tp_mb_max *out, tp_error *err)
{
    memset(out, 0, sizeof *out);
    tp_status st = tp_config_validate(c, err);
    if (st != TP_OK)
        return st;
    tp_params P;
    if ((st = tp_model_params(&c->model, c->train.pad_vocab_to, &P, err)) != TP_OK)
        return st;
    int64_t m = tp__grad_accum(&c->train);
    if (m < 1)
        m = 1;
    int64_t dp = tp_train_dp(&c->train);
    int64_t cap = TP_MB_MAX_CAP;
    int64_t batch_cap = TP_MAX_BATCH / (dp * m);
    if (batch_cap < cap)
        cap = batch_cap;
    double capacity = c->gpu.mem_capacity_bytes;
    out->capacity_bytes = capacity;

    /* Formula: affine per stage from b = 1 and b = 2. */
    double t1[4], t2[4];
    int64_t stages[4];
    int n1 = 0, n2 = 0;
    stage_totals(c, &P, 1, m, t1, stages, &n1);
    stage_totals(c, &P, 2, m, t2, stages, &n2);
    int64_t best = cap;
    for (int j = 0; j < n1; j++) {
        double slope = t2[j] - t1[j];
        double fixed = t1[j] - slope;
        int64_t bj;
        if (!(slope > 0.0))
            bj = fixed <= capacity ? cap : 0;
        else if (capacity < fixed + slope)
            bj = 0;
        else {
            double x = floor((capacity - fixed) / slope);
            bj = x > (double)cap ? cap : (int64_t)x;
        }
        if (j == 0 || bj < best) {
            best = bj;
            out->stage = stages[j];
            out->fixed_bytes = fixed;
            out->per_seq_bytes = slope;
        }
    }
    out->formula = best;

    /* Doubling (seed 004): 1, 2, 4, ... until it does not fit. */
    int trials = 1;
    if (!trial_fits(c, 1, m)) {
        out->doubling = out->bisect = 0;
        out->trials = trials;
        return TP_OK;
    }
    int64_t b = 1;
    while (b <= cap / 2) {
        trials++;
        if (!trial_fits(c, 2 * b, m))
            break;
        b *= 2;
    }
    out->doubling = b;
    /* Bisection between the last fit and the first failure (or the cap). */
    int64_t lo = b, hi = b <= cap / 2 ? 2 * b : cap + 1;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        trials++;
        if (trial_fits(c, mid, m))
            lo = mid;
        else
            hi = mid;
    }
    out->bisect = lo;
    out->trials = trials;
    return TP_OK;
}

/* ---- the recipe ---------------------------------------------------------- */

typedef struct layout {
    int64_t tp, pp, cp, b;
    int zero;
    tp_recompute rc;
} layout;

/* The base with a layout applied; DP derived, EP = gcd(E, DP) and ETP = TP
 * for MoE (step 8). */
static void make(const tp_config *base, const layout *l, tp_config *out)
{
    *out = *base;
    tp_train *t = &out->train;
    t->tp = l->tp;
    t->pp = l->pp;
    t->cp = l->cp;
    t->vpp = 1;
    t->schedule = TP_SCHED_1F1B;
    t->first_stage_layers = t->last_stage_layers = 0;
    t->sp = l->tp > 1;
    t->zero = l->zero;
    t->recompute = l->rc;
    t->micro_batch = l->b;
    int64_t dp = t->num_gpus / (l->tp * l->pp * l->cp);
    t->ep = out->model.num_experts > 0 ? tp__gcd64(out->model.num_experts, dp) : 1;
    t->etp = 0; /* ETP = TP: the recipe does not fold (step 8) */
    int64_t B = base->train.global_batch, per = l->b * dp;
    if (B % per != 0) {
        int64_t mm = B / per;
        t->global_batch = per * (mm > 0 ? mm : 1);
    }
}

/* Evaluate a layout; false when it is not even valid. */
static bool eval_layout(const tp_config *base, const layout *l, tp_config *cfg, tp_result *r)
{
    tp_error e;
    make(base, l, cfg);
    return tp_eval(cfg, r, &e) == TP_OK;
}

static bool fits_layout(const tp_config *base, const layout *l, double *total)
{
    tp_config c;
    tp_result r;
    if (!eval_layout(base, l, &c, &r)) {
        if (total)
            *total = 0.0;
        return false;
    }
    if (total)
        *total = r.memory.total_bytes;
    return r.memory.fits;
}

/* The cheapest recompute mode that fits; false (and full) when none does. */
static bool cheapest_recompute(const tp_config *base, layout *l, double *total)
{
    for (int r = TP_RECOMPUTE_NONE; r <= TP_RECOMPUTE_FULL; r++) {
        l->rc = (tp_recompute)r;
        if (fits_layout(base, l, total))
            return true;
    }
    return false;
}

static void add_try(tp_recipe_try *tries, int *n, int64_t v, double total, bool fits)
{
    if (*n >= TP_RECIPE_MAX_TRIES)
        return;
    tries[*n].value = v;
    tries[*n].total_bytes = total;
    tries[*n].fits = fits;
    (*n)++;
}

/*
 * The steps of tp_recipe_run, in the seeds' order. Each reads the base
 * configuration and the choices of the steps before it from *out (tp, pp,
 * dp, zero, micro_batch, grad_accum) and adds its own; `cur` is the layout
 * chosen so far.
 */

/* What does not depend on the layout is validated once, on a one-GPU
 * layout (as tp_search_new does), so a layout step never reports an error
 * of the model or the GPU as a misfit. */
static tp_status recipe_check(const tp_config *base, tp_error *err)
{
    tp_config one = *base;
    int64_t N = base->train.num_gpus;
    one.train.num_gpus = 1;
    one.train.tp = one.train.pp = one.train.cp = one.train.ep = one.train.vpp = 1;
    one.train.etp = 0;
    one.train.sp = false;
    one.train.zero = 0;
    one.train.schedule = TP_SCHED_1F1B;
    one.train.first_stage_layers = one.train.last_stage_layers = 0;
    one.train.recompute = TP_RECOMPUTE_NONE;
    one.train.micro_batch = 1;
    tp_status st = tp_config_validate(&one, err);
    if (st != TP_OK)
        return st;
    if (N < 1 || N > TP_MAX_GPUS)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpus", "%lld is out of range [1, %d]",
                            (long long)N, TP_MAX_GPUS);
    return TP_OK;
}

/* Step 1, the bill: parameters, model states per parameter and in all,
 * the GPUs the states alone fill, and one sequence's activations on one
 * GPU (with and without full recompute), which decide the steps below. */
static tp_status recipe_bill(const tp_config *base, tp_recipe *out, tp_error *err)
{
    tp_params P;
    tp_status st = tp_model_params(&base->model, 0, &P, err);
    if (st != TP_OK)
        return st;
    tp_state_bytes sb;
    tp_state_bytes_per_param(&base->train, &sb);
    out->params = (double)P.total;
    out->state_bytes_per_param = sb.total;
    out->state_bytes = (double)P.total * sb.total;
    out->weights_bytes = (double)P.total * sb.weights;
    out->gpus_for_state = (int64_t)ceil(out->state_bytes / out->capacity_bytes);
    tp_config b1 = *base, one;
    tp_result r;
    tp_error e;
    layout l1 = {1, 1, 1, 1, 0, TP_RECOMPUTE_NONE};
    b1.train.num_gpus = 1;
    b1.train.global_batch = 1;
    make(&b1, &l1, &one);
    if (tp_eval(&one, &r, &e) == TP_OK)
        out->act_seq_bytes = r.memory.activations_bytes;
    one.train.recompute = TP_RECOMPUTE_FULL;
    if (tp_eval(&one, &r, &e) == TP_OK)
        out->act_seq_full_bytes = r.memory.activations_bytes;
    return TP_OK;
}

/* Step 2: TP inside a node. The smallest TP (dividing the head groups, the
 * node and the GPUs) at which the model fits with nothing else; the
 * largest such TP when none does (PP and ZeRO come next). */
static void recipe_tp(const tp_config *base, tp_recipe *out)
{
    const tp_model *m = &base->model;
    int64_t N = base->train.num_gpus, node = out->gpus_per_node;
    int64_t hg = tp__gcd64(m->num_heads, tp__kv_heads(m));
    int64_t tmax = 1;
    out->tp = 0;
    for (int64_t t = 1; t <= node && t <= hg; t++) {
        if (hg % t != 0 || node % t != 0 || N % t != 0)
            continue;
        tmax = t;
        layout l = {t, 1, 1, 1, 0, TP_RECOMPUTE_NONE};
        double tot;
        bool ok = fits_layout(base, &l, &tot);
        add_try(out->tp_tries, &out->n_tp_tries, t, tot, ok);
        if (ok && out->tp == 0) {
            out->tp = t;
            out->tp_fits = true;
            break;
        }
    }
    if (out->tp == 0)
        out->tp = tmax;
    assert(out->tp >= 1 && N % out->tp == 0);
    out->heads_per_gpu = m->num_heads / out->tp;
}

/* Step 3: the largest micro-batch at that TP, PP 1, ZeRO-0, per recompute
 * mode; and whether this is long context (seed 003: "when activations --
 * not weights -- are what overflow"): one sequence does not fit without
 * recompute, and its activations outweigh the states and fixed overheads. */
static void recipe_micro_batches(const tp_config *base, tp_recipe *out)
{
    for (int r = 0; r <= 2; r++) {
        layout l = {out->tp, 1, 1, 1, 0, (tp_recompute)r};
        tp_config c;
        tp_result res;
        tp_error e;
        if (eval_layout(base, &l, &c, &res))
            tp_micro_batch_max(&c, &out->mb[r], &e);
    }
    const tp_mb_max *m0 = &out->mb[TP_RECOMPUTE_NONE];
    out->long_context = m0->formula < 1 && m0->per_seq_bytes > m0->fixed_bytes;
}

/* Step 4: PP only if the node cannot hold the model at any recompute: the
 * smallest PP (dividing the layers' count range and the GPUs left by TP)
 * that fits with the cheapest recompute; the largest tried when none does
 * (the most relief PP alone gives; ZeRO may still rescue it). */
static void recipe_pp(const tp_config *base, tp_recipe *out)
{
    const tp_model *m = &base->model;
    int64_t N = base->train.num_gpus, t = out->tp;
    bool node_holds = false;
    for (int r = 0; r <= 2; r++)
        node_holds = node_holds || out->mb[r].formula >= 1;
    out->pp = 1;
    layout l1 = {t, 1, 1, 1, 0, TP_RECOMPUTE_NONE}, l2 = l1;
    tp_config c;
    tp_result r;
    if (eval_layout(base, &l1, &c, &r))
        out->stage0_act_pp1_bytes = r.stage_first.activations_bytes;
    l2.pp = 2;
    if (m->num_layers >= 2 && (N / t) % 2 == 0 && eval_layout(base, &l2, &c, &r))
        out->stage0_act_pp2_bytes = r.stage_first.activations_bytes;
    if (!node_holds) {
        out->pp_needed = true;
        int64_t last = 1;
        bool found = false;
        for (int64_t p = 2; p <= m->num_layers && p <= N / t; p++) {
            if ((N / t) % p != 0)
                continue;
            layout l = {t, p, 1, 1, 0, TP_RECOMPUTE_NONE};
            double tot;
            bool ok = cheapest_recompute(base, &l, &tot);
            add_try(out->pp_tries, &out->n_pp_tries, p, tot, ok);
            last = p;
            if (ok) {
                out->pp = p;
                found = true;
                break;
            }
        }
        if (!found)
            out->pp = last;
    }
    out->micro_batch_cap = out->long_context ? 1 : out->mb[TP_RECOMPUTE_NONE].formula;
}

/* Step 5: DP is what TP and PP leave; the cheapest ZeRO stage that fits
 * (from 1 when there is data parallelism to shard over), with the cheapest
 * recompute; ZeRO-3 (or 0 without DP) and full recompute when none does. */
static void recipe_zero(const tp_config *base, tp_recipe *out, layout *cur)
{
    int64_t t = out->tp, p = out->pp;
    int64_t dp = base->train.num_gpus / (t * p);
    assert(dp >= 1 && t * p * dp == base->train.num_gpus);
    out->dp = dp;
    out->zero = -1;
    *cur = (layout){t, p, 1, 1, 0, TP_RECOMPUTE_NONE};
    for (int z = dp > 1 ? 1 : 0; z <= 3; z++) {
        layout l = {t, p, 1, 1, z, TP_RECOMPUTE_NONE};
        double tot;
        bool ok = cheapest_recompute(base, &l, &tot);
        out->zero_total_bytes[z] = tot;
        if (ok) {
            out->zero = z;
            *cur = l;
            break;
        }
        if (dp <= 1)
            break;
    }
    if (out->zero < 0) {
        out->zero = dp > 1 ? 3 : 0;
        cur->zero = out->zero;
        cur->rc = TP_RECOMPUTE_FULL;
    }
    out->recompute = cur->rc;
}

/* Step 6: micro-batch, accumulation, global batch. The largest micro-batch
 * that fits and divides the batch per DP rank, keeping at least as many
 * micro-batches as stages when some choice does (a full pipeline); 1 for
 * long context. The global batch is rounded up to a whole number of
 * micro-batches per rank. */
static void recipe_batch(const tp_config *base, tp_recipe *out, layout *cur)
{
    int64_t B = base->train.global_batch, dp = out->dp, p = out->pp;
    int64_t b = 1;
    if (!out->long_context && B % dp == 0) {
        tp_config c;
        tp_result r;
        tp_mb_max mm;
        tp_error e;
        int64_t bmax = 1;
        if (eval_layout(base, cur, &c, &r) && tp_micro_batch_max(&c, &mm, &e) == TP_OK &&
            mm.formula > 1)
            bmax = mm.formula;
        int64_t bpd = B / dp, pick = 1, pick_m = 1;
        for (int64_t x = 1; x <= bpd && x <= bmax; x++) {
            if (bpd % x != 0)
                continue;
            int64_t mx = bpd / x;
            if (p > 1 && mx < p && pick_m >= p)
                continue; /* keep the pipeline full when some choice does */
            pick = x;
            pick_m = mx;
        }
        b = pick;
    }
    cur->b = b;
    int64_t ga = (B + b * dp - 1) / (b * dp);
    out->micro_batch = b;
    out->grad_accum = ga;
    out->global_batch = b * dp * ga;
    assert(out->global_batch >= B);
}

/* Step 7: CP for long context, to drop the recompute by splitting the
 * sequence. Step 3 found that one sequence does not fit the TP group
 * without recompute; the smallest CP (taken from DP) at which it does,
 * tested as step 3 tests (ZeRO-0, no recompute), is adopted with the ZeRO
 * stage of step 5 and the cheapest recompute. */
static void recipe_cp(const tp_config *base, tp_recipe *out, layout *cur)
{
    const tp_train *bt = &base->train;
    int64_t B = bt->global_batch, b = out->micro_batch, dp = out->dp;
    out->cp = 1;
    out->recompute_before_cp = cur->rc;
    out->scores_per_head = (double)bt->seq_len * (double)bt->seq_len;
    out->scores_per_head_cp = out->scores_per_head;
    tp_config cc;
    tp_result r;
    bool before = eval_layout(base, cur, &cc, &r); /* the layout without CP, once */
    if (before)
        out->act_before_cp_bytes = r.memory.activations_bytes;
    out->act_after_cp_bytes = out->act_before_cp_bytes;
    if (!out->long_context)
        return;
    out->cp_considered = true;
    if (before)
        out->step_before_cp_s = r.time.step_s;
    for (int64_t c = 2; c <= dp; c++) {
        if (dp % c != 0 || bt->seq_len % (2 * c) != 0)
            continue;
        int64_t dpc = dp / c;
        if (B % (b * dpc) != 0)
            continue;
        layout l = *cur;
        l.cp = c;
        l.zero = 0;
        l.rc = TP_RECOMPUTE_NONE;
        double tot;
        bool ok = fits_layout(base, &l, &tot);
        add_try(out->cp_tries, &out->n_cp_tries, c, tot, ok);
        if (!ok)
            continue;
        l.zero = dpc * c > 1 ? (cur->zero > 1 ? cur->zero : 1) : 0;
        if (!cheapest_recompute(base, &l, NULL))
            continue;
        if (!eval_layout(base, &l, &cc, &r))
            continue;
        *cur = l;
        out->cp = c;
        out->dp = dpc;
        out->zero = l.zero;
        out->recompute = l.rc;
        out->grad_accum = B / (b * dpc);
        out->global_batch = B;
        out->act_after_cp_bytes = r.memory.activations_bytes;
        double sc = (double)bt->seq_len / (double)c;
        out->scores_per_head_cp = sc * sc;
        break;
    }
}

/* Steps 8-9: EP for MoE (the largest that divides the experts and DP),
 * then the recipe's layout evaluated, and its 1F1B bubble. */
static void recipe_finish(const tp_config *base_in, tp_recipe *out, const layout *cur)
{
    const tp_model *m = &base_in->model;
    out->ep = m->num_experts > 0 ? tp__gcd64(m->num_experts, out->dp) : 1;
    tp_config base = *base_in;
    base.train.global_batch = out->global_batch;
    make(&base, cur, &out->config);
    /* the layout's product is the GPU count: every step divided it */
    assert(out->tp * out->pp * out->cp * out->dp == base.train.num_gpus);
    tp_error e;
    if (tp_eval(&out->config, &out->result, &e) == TP_OK) {
        out->fits = out->result.memory.fits;
        out->tokens_per_step = out->result.flops.tokens_per_step;
    }
    out->bubble_of_total =
        tp_bubble_fraction(TP_SCHED_1F1B, out->pp, out->grad_accum, 1, TP_BUBBLE_OF_TOTAL);
    out->bubble_of_ideal =
        tp_bubble_fraction(TP_SCHED_1F1B, out->pp, out->grad_accum, 1, TP_BUBBLE_OF_IDEAL);
}

tp_status tp_recipe_run(const tp_config *base_in, tp_recipe *out, tp_error *err)
{
    memset(out, 0, sizeof *out);
    const tp_config *base = base_in;
    tp_status st = recipe_check(base, err);
    if (st != TP_OK)
        return st;
    const tp_train *bt = &base->train;
    out->capacity_bytes = base->gpu.mem_capacity_bytes;
    out->gpus_per_node = tp_gpus_per_node(bt, &base->gpu);
    out->global_batch_requested = bt->global_batch;
    out->moe = base->model.num_experts > 0;
    st = recipe_bill(base, out, err);
    if (st != TP_OK)
        return st;
    layout cur;
    recipe_tp(base, out);
    recipe_micro_batches(base, out);
    recipe_pp(base, out);
    recipe_zero(base, out, &cur);
    recipe_batch(base, out, &cur);
    recipe_cp(base, out, &cur);
    recipe_finish(base, out, &cur);
    return TP_OK;
}
