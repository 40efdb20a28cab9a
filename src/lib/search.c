/* SPDX-License-Identifier: MIT */
/*
 * search.c: enumerate, prune and rank parallel layouts; iterator API.
 *
 * The space is a tree of axes, outermost first:
 *
 *   GPUs > TP > PP > CP > ETP > EP > ZeRO > [prune] > VPP > SP > recompute > micro-batch
 *
 * Each level's values are computed from the levels above, so every leaf is
 * a configuration tp_config_validate accepts (proof by construction, rule
 * by rule, against config.c):
 *   - TP divides gcd(heads, kv heads) and the GPUs; inside a node it also
 *     divides gpus_per_node (TP groups never straddle a node boundary), and
 *     across nodes (on request) it is a multiple of gpus_per_node;
 *   - PP <= layers and divides GPUs / TP; when the layers do not divide,
 *     config.c's default split gives the remainder to the middle stages, so
 *     the first and last stages (embedding, loss) get fewer;
 *   - CP divides GPUs / (TP x PP) and 2 x CP divides the sequence;
 *     DP = GPUs / (TP x PP x CP) and DP must divide the global batch B;
 *   - without MoE folding: ETP = TP (left 0) and EP divides gcd(experts,
 *     DP) (1 for dense models); with folding (space.moe_folding or an etp
 *     bound, MoE models only): ETP divides gcd(node, GPUs / PP) and EP
 *     divides gcd(experts, GPUs / (PP x ETP)), so that ETP x EP x PP
 *     divides the GPUs (Megatron-Core's rule, config.c); ETP equal to TP
 *     is stored as 0, as the default;
 *   - VPP > 1 only with PP > 1, layers divisible by PP x VPP, the
 *     interleaved schedule, and m = B / (b x DP) >= PP;
 *   - micro-batch b divides B / DP (so m is whole);
 *   - everything else (model, GPU, options, sequence, batch range, fp8
 *     support) does not depend on the layout and is validated once in
 *     tp_search_new.
 * ZeRO stages above the lowest allowed are skipped when DP x CP = 1 (they
 * shard over nothing: same memory, same time).
 *
 * Evaluation mirrors tp_eval after validation (eval.c): parameters and FLOPs
 * do not depend on the layout beyond the recompute mode, so they are
 * computed once (FLOPs once per recompute mode); memory of stage 0, the last
 * stage and stage 1 (heaviest reported); step time only when it fits.
 *
 * Pruning (counted, never changes the feasible set; tests compare with
 * no_prune):
 *  1. model states lower bound, at the ZeRO level: for stage 0 and the last
 *     stage, (layers x the TP-split part of a layer + the embedding / head
 *     table / TP) x bytes per parameter under the ZeRO stage, plus the CUDA
 *     context and NCCL buffers. Norms and routers (replicated) and the ZeRO-3
 *     gathered set are left out, so it is <= tp_memory_stage's total. When it
 *     exceeds capacity the whole VPP x SP x recompute x micro-batch sub-tree
 *     is skipped;
 *  2. micro-batches ascend and memory is non-decreasing in b (activations
 *     and logits scale with b; in-flight micro-batches x b = min(m, p-i) x b
 *     never shrinks as b grows at fixed B), so after the first b that does
 *     not fit the rest of that layout is skipped;
 *  3. step-time bound, tp_search_top only: the step time less its DP/ZeRO
 *     and optimizer parts does not depend on the ZeRO level's value (ZeRO
 *     stage, optimizer and parameter offload; time_floor), so the first
 *     fitting layout of each (VPP, SP, recompute, micro-batch) slot of a
 *     (GPUs, TP, PP, CP, ETP, EP) group leaves a bound for that slot under
 *     the other ZeRO values. Once the top list is full, a fitting layout
 *     whose bound ranks strictly below its last entry (by time, or by cost
 *     at the bound; by headroom its own headroom) is counted as feasible
 *     without its step time: the list, its figures and every count but
 *     this one are those of no_prune, which turns it off (as verify does).
 *
 * Invariants (tests/unit/test_search.c): every leaf validates and evaluates
 * as tp_eval does (verify mode); the states bound never exceeds the
 * evaluated total, nor the step-time bound the step time (verify mode);
 * pruning does not change the feasible set; fixing an axis never makes the
 * best faster. Cost: O(1) per candidate (no per-layer loops); the only
 * allocation is the handle.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { L_GPUS, L_TP, L_PP, L_CP, L_ETP, L_EP, L_ZERO, L_VPP, L_SP, L_RC, L_MB, L_COUNT };

#define MAXV 1024     /* values per level; more micro-batches than that: TP_ERR_RANGE */
#define LB_SLOTS 4096 /* step-time bounds kept per (GPUs, TP, PP, CP, ETP, EP) group */

typedef struct closest_entry {
    tp_train train;
    double ratio; /* total / capacity, heaviest stage */
} closest_entry;

struct tp_search {
    tp_search_space space;
    tp_config cfg;       /* the current candidate */
    tp_result cur;       /* its evaluation */
    tp_params params;    /* true vocabulary (reported) */
    tp_params padded;    /* padded vocabulary (memory, FLOPs) */
    tp_flops flops[6];   /* by recompute value: none, selective, full, selective + MoE layer,
                            per-op SAC, activation offload */
    bool base_sac;       /* the base's opts.sac_ops, for the other candidates */
    unsigned base_rc;    /* the base's recompute modules, for selective candidates */
    double base_offload; /* the base's optimizer offload, for ZeRO >= 1 candidates */
    int base_params;     /* the base's parameter offload device, for ZeRO 3 candidates */
    int64_t base_act;    /* the base's offloaded activation layers, for pp 1 without recompute */
    int rc_value;        /* the current candidate's recompute value (index of flops) */
    int64_t node;        /* GPUs per node */
    int64_t B;           /* global batch, sequences */
    int64_t head_gcd;    /* gcd(heads, kv heads) */
    /* states bound, parameters per GPU before the /TP split */
    double lb_dense_layer;  /* TP-split part of a dense layer */
    double lb_moe_layer;    /* TP-split non-expert part of a MoE layer */
    double lb_expert_layer; /* routed experts of a MoE layer (split TP x EP) */
    double lb_table;        /* V x h */
    tp_state_bytes bpp;
    /* enumeration */
    int64_t vals[L_COUNT][MAXV];
    int n[L_COUNT], i[L_COUNT];
    int64_t mb_all[MAXV]; /* micro-batches dividing B / DP, ascending */
    int n_mb_all;
    int64_t bpd; /* B / DP */
    bool started, done;
    unsigned polls;      /* steps since space.stop was last consulted */
    int64_t mb_overflow; /* B / DP with more than MAXV allowed micro-batches: stop (0: none) */
    tp_search_stats st;
    /* step-time bound (pruning 3): per (VPP, SP, recompute, micro-batch)
     * slot of the current group, the step time less its DP/ZeRO and
     * optimizer parts, from the first ZeRO value evaluated there */
    bool lazy_time;            /* tp_search_top: evaluate() leaves the step time to it */
    uint32_t group;            /* generation of the current group (0: none yet) */
    uint32_t lb_gen[LB_SLOTS]; /* the generation each slot was set in */
    double lb_step[LB_SLOTS];
    uint32_t act_gen[LB_SLOTS]; /* the generation each slot's activations were set in */
    double acts[LB_SLOTS][2];   /* a dense and a MoE layer's (memory.c), the same under
                                   every ZeRO value of the slot */
    closest_entry closest[TP_SEARCH_CLOSEST];
    int n_closest;
};

/* ---- small helpers ------------------------------------------------ */

static bool in_axis(const tp_axis *a, int64_t v)
{
    return (a->min <= 0 || v >= a->min) && (a->max <= 0 || v <= a->max);
}

static int popcount4(unsigned m)
{
    int n = 0;
    for (; m; m >>= 1)
        n += (int)(m & 1u);
    return n;
}

/*
 * Divisors of n within [lo, hi] and the axis, ascending, at most cap.
 * Trial division up to sqrt(n): small divisors ascend, their cofactors
 * descend, merged into one ascending list. -1 when there are more than
 * cap to list (only the micro-batches can: B / DP up to 2^40 has up to
 * 6,720 divisors); the search then stops with TP_ERR_RANGE.
 */
static int divisors(int64_t n, int64_t lo, int64_t hi, const tp_axis *ax, int64_t *out, int cap)
{
    int64_t small[MAXV], large[MAXV];
    int ns = 0, nl = 0;
    for (int64_t d = 1; d <= n / d; d++) {
        if (n % d != 0)
            continue;
        int64_t e = n / d;
        if (ns == MAXV || (e != d && nl == MAXV))
            return -1; /* more than we can list: never a silent cut */
        small[ns++] = d;
        if (e != d)
            large[nl++] = e;
    }
    int k = 0;
    for (int j = 0; j < ns; j++)
        if (small[j] >= lo && small[j] <= hi && in_axis(ax, small[j])) {
            if (k == cap)
                return -1;
            out[k++] = small[j];
        }
    for (int j = nl - 1; j >= 0; j--)
        if (large[j] >= lo && large[j] <= hi && in_axis(ax, large[j])) {
            if (k == cap)
                return -1;
            out[k++] = large[j];
        }
    return k;
}

static int64_t dp_of(const tp_train *t)
{
    return t->num_gpus / (t->tp * t->pp * t->cp);
}

/* The expert layers get their own layout (MoE parallel folding). */
static bool folding(const tp_search *s)
{
    const tp_search_space *sp = &s->space;
    return s->cfg.model.num_experts > 0 && !tp__is_hybrid(&s->cfg.model) &&
           (sp->moe_folding || sp->etp.min > 0 || sp->etp.max > 0);
}

/* ---- space ---------------------------------------------------------- */

void tp_search_space_default(tp_search_space *s)
{
    memset(s, 0, sizeof *s);
}

static tp_status check_axis(const tp_axis *a, const char *path, tp_error *err)
{
    if (a->min < 0 || a->max < 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, path, "search bounds must be >= 0 (0 = open)");
    if (a->min > 0 && a->max > 0 && a->min > a->max)
        return tp_error_set(err, TP_ERR_INVALID_ARG, path,
                            "search range is empty: min %lld > max %lld", (long long)a->min,
                            (long long)a->max);
    return TP_OK;
}

static tp_status check_space(const tp_search_space *sp, const tp_model *m, tp_error *err)
{
    tp_status st;
    if ((st = check_axis(&sp->gpus, "gpus", err)) != TP_OK ||
        (st = check_axis(&sp->tp, "tp", err)) != TP_OK ||
        (st = check_axis(&sp->pp, "pp", err)) != TP_OK ||
        (st = check_axis(&sp->vpp, "vpp", err)) != TP_OK ||
        (st = check_axis(&sp->cp, "cp", err)) != TP_OK ||
        (st = check_axis(&sp->ep, "ep", err)) != TP_OK ||
        (st = check_axis(&sp->etp, "etp", err)) != TP_OK ||
        (st = check_axis(&sp->micro_batch, "micro-batch", err)) != TP_OK)
        return st;
    if (sp->zero_mask != 0 && (sp->zero_mask & 0xFu) == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "zero", "no ZeRO stage in 0..3 allowed");
    if (sp->recompute_mask != 0 && (sp->recompute_mask & 0x7u) == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "recompute", "no recompute mode allowed");
    if (sp->sp_mask != 0 && (sp->sp_mask & 0x3u) == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "sp", "neither SP on nor off allowed");
    if (m->num_experts == 0 && sp->ep.min > 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.ep",
                            "%lld needs a mixture-of-experts model (experts is 0)",
                            (long long)sp->ep.min);
    if (m->num_experts == 0 && (sp->etp.min > 0 || sp->etp.max > 0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.etp",
                            "an expert tensor-parallel size needs a mixture-of-experts model "
                            "(experts is 0)");
    if (tp__is_hybrid(m) && (sp->moe_folding || sp->etp.min > 0 || sp->etp.max > 0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.etp",
                            "an expert TP size apart from TP is not modelled for hybrid models");
    return TP_OK;
}

/*
 * A range of cluster sizes is tried in whole nodes, one search each; more
 * than TP_SEARCH_MAX_CLUSTER_SIZES of them is refused here, never cut to
 * the first ones (build() holds at most MAXV values per level).
 */
static tp_status check_cluster_sizes(const tp_search_space *sp, const tp_config *base,
                                     tp_error *err)
{
    _Static_assert(TP_SEARCH_MAX_CLUSTER_SIZES <= MAXV, "cluster sizes fit one level");
    const tp_axis *a = &sp->gpus;
    if ((a->min <= 0 && a->max <= 0) || (a->min > 0 && a->min == a->max))
        return TP_OK; /* one size */
    int64_t node = tp_gpus_per_node(&base->train, &base->gpu);
    if (node < 1)
        return TP_OK; /* tp_config_validate names it */
    int64_t lo = a->min > 0 ? a->min : node;
    int64_t hi = a->max > 0 ? a->max : base->train.num_gpus;
    if (hi > TP_MAX_GPUS)
        hi = TP_MAX_GPUS;
    int64_t first = (lo + node - 1) / node, last = hi / node;
    int64_t n = last - first + 1;
    if (n > TP_SEARCH_MAX_CLUSTER_SIZES)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "min-gpus",
                            "%lld to %lld GPUs in whole nodes of %lld is %lld cluster sizes; at "
                            "most %d are searched (a minimum of at least %lld)",
                            (long long)lo, (long long)hi, (long long)node, (long long)n,
                            TP_SEARCH_MAX_CLUSTER_SIZES,
                            (long long)((last - TP_SEARCH_MAX_CLUSTER_SIZES + 1) * node));
    return TP_OK;
}

/* ---- precomputation --------------------------------------------------- */

static void precompute_bound(tp_search *s)
{
    const tp_model *m = &s->cfg.model;
    const tp_params *P = &s->padded;
    double nw = (m->norm == TP_NORM_LAYERNORM ? 2.0 : 1.0) * (double)m->hidden;
    s->lb_dense_layer = (double)P->per_layer_dense - 2.0 * nw;
    if (P->num_moe_layers > 0) {
        double routed = (double)P->moe_routed / (double)P->num_moe_layers;
        double router = (double)m->hidden * (double)m->num_experts;
        s->lb_moe_layer = (double)P->per_layer_moe - routed - router - 2.0 * nw;
        s->lb_expert_layer = routed;
    }
    if (s->lb_dense_layer < 0.0)
        s->lb_dense_layer = 0.0;
    if (s->lb_moe_layer < 0.0)
        s->lb_moe_layer = 0.0;
    s->lb_table = (double)tp__padded_vocab(m->vocab, s->cfg.train.pad_vocab_to) * (double)m->hidden;
    tp_state_bytes_per_param(&s->cfg.train, &s->bpp);
}

/* Lower bound of the model states of one stage (bytes per GPU). */
static double stage_states_lb(const tp_search *s, int64_t stage, int64_t layers, double tables)
{
    const tp_train *t = &s->cfg.train;
    int64_t n_moe = tp__stage_moe_layers(t, &s->cfg.model, stage);
    double tpz = (double)t->tp;
    double dense = ((double)(layers - n_moe) * s->lb_dense_layer + (double)n_moe * s->lb_moe_layer +
                    tables * s->lb_table) /
                   tpz;
    double expert = (double)n_moe * s->lb_expert_layer / ((double)tp_expert_tp(t) * (double)t->ep);
    double D = (double)dp_of(t) * (double)t->cp, De = (double)tp_train_edp(t);
    int z = t->zero;
    const tp_state_bytes *b = &s->bpp;
    /* parameter offload (ZeRO 3): the weight shard, and with the whole
     * optimizer offloaded the gradient shard, off the GPU (memory.c) */
    double wk = t->offload_params != TP_OFFLOAD_NONE ? 0.0 : 1.0;
    double gk = wk > 0.0 || t->offload_optimizer < 1.0 ? 1.0 : 0.0;
    double per_dense = wk * b->weights / (z >= 3 ? D : 1.0) + gk * b->grads / (z >= 2 ? D : 1.0) +
                       (1.0 - t->offload_optimizer) * b->optimizer / (z >= 1 ? D : 1.0);
    double per_expert = wk * b->weights / (z >= 3 ? De : 1.0) +
                        gk * b->grads / (z >= 2 ? De : 1.0) +
                        (1.0 - t->offload_optimizer) * b->optimizer / (z >= 1 ? De : 1.0);
    return dense * per_dense + expert * per_expert;
}

static double fixed_bytes(const tp_search *s)
{
    const tp_train *t = &s->cfg.train;
    int64_t dp = dp_of(t);
    int64_t etp = tp_expert_tp(t);
    int comms = (t->tp > 1) + (t->pp > 1) + (t->cp > 1) + (t->ep > 1) + (dp > 1) +
                (etp > 1 && etp != t->tp); /* as memory.c counts them */
    return s->cfg.opts.cuda_context_bytes + (double)comms * s->cfg.opts.comm_buffer_bytes;
}

/* The states bound of stage 0 and the last stage, plus fixed overheads. */
static double states_bound(const tp_search *s)
{
    const tp_train *t = &s->cfg.train;
    int64_t L = s->cfg.model.num_layers, p = t->pp;
    bool tied = s->cfg.model.tie_embeddings;
    double lb;
    if (p == 1) {
        lb = stage_states_lb(s, 0, L, tied ? 1.0 : 2.0);
    } else {
        int64_t n0 = tp_stage_layers(t, L, 0), nl = tp_stage_layers(t, L, p - 1);
        double a = stage_states_lb(s, 0, n0, 1.0);
        double b = stage_states_lb(s, p - 1, nl, 1.0);
        lb = a > b ? a : b;
    }
    return lb + fixed_bytes(s);
}

/* ---- enumeration ------------------------------------------------------ */

/* Micro-batches of the current (GPUs, TP, PP, CP): divisors of B / DP. */
static void build_mb_all(tp_search *s)
{
    int64_t dp = dp_of(&s->cfg.train);
    s->bpd = s->B / dp;
    int64_t hi = s->bpd;
    if (hi > TP_MAX_BATCH / dp)
        hi = TP_MAX_BATCH / dp;
    s->n_mb_all = divisors(s->bpd, 1, hi, &s->space.micro_batch, s->mb_all, MAXV);
    if (s->n_mb_all < 0) {
        s->n_mb_all = 0;
        s->mb_overflow = s->bpd; /* step() stops; tp_search_status explains */
    }
}

/* Micro-batches allowed with vpp: interleaving needs m = bpd / b >= pp. */
static int mb_count(const tp_search *s, int64_t vpp)
{
    if (vpp <= 1)
        return s->n_mb_all;
    int64_t bmax = s->bpd / s->cfg.train.pp;
    int k = 0;
    while (k < s->n_mb_all && s->mb_all[k] <= bmax)
        k++;
    return k;
}

static unsigned sp_options(const tp_search *s)
{
    if (s->cfg.train.tp <= 1)
        return TP_SEARCH_SP_OFF;
    return s->space.sp_mask ? (s->space.sp_mask & 3u) : 3u;
}

/* Recompute values: bits 0-2 the tp_recompute modes; bit 3 (with
 * space.recompute_variants, MoE models, selective allowed) selective with
 * Megatron-Core's MoE-layer recompute (modules core_attn + moe). */
#define RC_MOE_LAYER 3
/* bit 4 (with space.recompute_variants, selective allowed, no base modules
 * or SAC): selective as torchtitan's per-op SAC (opts.sac_ops) */
#define RC_SAC 4
/* bit 5 (with space.offload_variants, none allowed, PP 1, no base activation
 * offload): no recompute, the activations of all but one layer offloaded to
 * the host (Megatron-Core's --cpu-offloading-num-layers at its maximum) */
#define RC_ACT_OFF 5
/* ZeRO values at or above this are the stage x % OFFLOADED with optimizer
 * offload; at or above 2 x OFFLOADED (ZeRO 3 only) the weights are on the
 * CPU too (FSDP2's CPU offload, ZeRO-Infinity's offload_param). */
#define OFFLOADED 4
static unsigned rc_options(const tp_search *s)
{
    unsigned o = s->space.recompute_mask ? (s->space.recompute_mask & 7u) : 7u;
    if (s->space.recompute_variants && s->cfg.model.num_experts > 0 &&
        (o & TP_SEARCH_BIT(TP_RECOMPUTE_SELECTIVE)) && !s->base_sac)
        o |= TP_SEARCH_BIT(RC_MOE_LAYER);
    if (s->space.recompute_variants && (o & TP_SEARCH_BIT(TP_RECOMPUTE_SELECTIVE)) &&
        !s->base_sac && s->base_rc == 0u)
        o |= TP_SEARCH_BIT(RC_SAC);
    if (s->space.offload_variants && (o & TP_SEARCH_BIT(TP_RECOMPUTE_NONE)) && s->base_act == 0 &&
        s->cfg.train.pp == 1 && s->cfg.model.num_layers >= 2)
        o |= TP_SEARCH_BIT(RC_ACT_OFF);
    return o;
}

/* A (GPUs, TP, PP, CP) layout whose DP leaves no micro-batch for the batch. */
static void note_batch_mismatch(tp_search_stats *st, int64_t dp)
{
    st->batch_mismatch++;
    if (st->batch_mismatch_min_dp == 0 || dp < st->batch_mismatch_min_dp)
        st->batch_mismatch_min_dp = dp;
}

/* Values of level d given the levels above; returns the count. */
static int build(tp_search *s, int d)
{
    tp_train *t = &s->cfg.train;
    const tp_search_space *sp = &s->space;
    int64_t *v = s->vals[d];
    int k = 0;
    switch (d) {
    case L_GPUS: {
        const tp_axis *a = &sp->gpus;
        if (a->min <= 0 && a->max <= 0) {
            v[k++] = s->cfg.train.num_gpus;
        } else if (a->min > 0 && a->min == a->max) {
            v[k++] = a->min;
        } else {
            int64_t lo = a->min > 0 ? a->min : s->node;
            int64_t hi = a->max > 0 ? a->max : s->cfg.train.num_gpus;
            if (hi > TP_MAX_GPUS)
                hi = TP_MAX_GPUS;
            for (int64_t g = (lo + s->node - 1) / s->node * s->node; g <= hi && k < MAXV;
                 g += s->node) /* k < MAXV always: check_cluster_sizes */
                v[k++] = g;
        }
        break;
    }
    case L_TP: {
        int64_t c[MAXV];
        int nc = divisors(s->head_gcd, 1, t->num_gpus, &sp->tp, c, MAXV);
        for (int j = 0; j < nc; j++) {
            int64_t x = c[j];
            if (t->num_gpus % x != 0)
                continue;
            bool inside = x <= s->node && s->node % x == 0;
            bool across = sp->tp_across_nodes && x > s->node && x % s->node == 0;
            if (inside || across)
                v[k++] = x;
        }
        break;
    }
    case L_PP: {
        int64_t c[MAXV];
        int nc = divisors(t->num_gpus / t->tp, 1, s->cfg.model.num_layers, &sp->pp, c, MAXV);
        for (int j = 0; j < nc; j++)
            if (!sp->even_pp_only || s->cfg.model.num_layers % c[j] == 0)
                v[k++] = c[j];
        break;
    }
    case L_CP: {
        int64_t c[MAXV];
        int nc = divisors(t->num_gpus / (t->tp * t->pp), 1, TP_MAX_GPUS, &sp->cp, c, MAXV);
        for (int j = 0; j < nc; j++) {
            int64_t x = c[j];
            if (x > 1 && t->seq_len % (2 * x) != 0)
                continue;
            if (!tp__hybrid_cp_ok(&s->cfg.model, t->tp, x)) /* hybrid.c: Mamba CP, no GDN CP */
                continue;
            int64_t dp = t->num_gpus / (t->tp * t->pp * x);
            if (s->B % dp != 0) {
                note_batch_mismatch(&s->st, dp);
                continue;
            }
            v[k++] = x;
        }
        break;
    }
    case L_ETP: {
        if (folding(s)) {
            int64_t c[MAXV];
            int nc =
                divisors(tp__gcd64(s->node, t->num_gpus / t->pp), 1, s->node, &sp->etp, c, MAXV);
            for (int j = 0; j < nc; j++)
                v[k++] = c[j];
        } else {
            v[k++] = 0; /* ETP = TP */
        }
        break;
    }
    case L_EP: {
        int64_t dp = dp_of(t);
        if (s->cfg.model.num_experts > 0 && folding(s)) {
            int64_t room = t->num_gpus / (t->pp * tp_expert_tp(t));
            k = divisors(tp__gcd64(s->cfg.model.num_experts, room), 1, room, &sp->ep, v, MAXV);
            if (k < 0)
                k = 0; /* unreachable, as below */
        } else if (s->cfg.model.num_experts > 0) {
            k = divisors(tp__gcd64(s->cfg.model.num_experts, dp), 1, dp, &sp->ep, v, MAXV);
            if (k < 0)
                k = 0; /* unreachable: experts <= 65,536 have at most 240 divisors */
        } else if (in_axis(&sp->ep, 1)) {
            v[k++] = 1;
        }
        /* micro-batches depend on DP only: list them once here */
        build_mb_all(s);
        if (s->n_mb_all == 0 && k > 0) {
            note_batch_mismatch(&s->st, dp);
            k = 0;
        }
        break;
    }
    case L_ZERO: {
        unsigned mask = sp->zero_mask ? (sp->zero_mask & 0xFu) : 0xFu;
        bool sharded = dp_of(t) * t->cp > 1;
        int first_sharded = -1;
        for (int z = s->cfg.train.fp8_param_gather ? 1 : 0; z <= 3; z++) {
            if (!(mask & TP_SEARCH_BIT(z)))
                continue;
            if (z >= 1 && first_sharded < 0)
                first_sharded = z;
            if (k > 0 && !sharded)
                continue; /* ZeRO over one rank: the lowest allowed stage stands for all */
            v[k++] = z;
        }
        /* offload variants: ZeRO stage z with the whole optimizer on the
         * host, as z + OFFLOADED (one stage when nothing is sharded) */
        if (sp->offload_variants && s->base_offload < 1.0 && first_sharded >= 1) {
            int n0 = k;
            for (int j = 0; j < n0; j++)
                if (v[j] >= 1)
                    v[k++] = v[j] + OFFLOADED;
            if (k == n0)
                v[k++] = first_sharded + OFFLOADED;
            if ((mask & TP_SEARCH_BIT(3)) && s->base_params == TP_OFFLOAD_NONE)
                v[k++] = 3 + 2 * OFFLOADED;
        }
        break;
    }
    case L_VPP: {
        if (in_axis(&sp->vpp, 1) && s->n_mb_all > 0)
            v[k++] = 1;
        int64_t L = s->cfg.model.num_layers, p = t->pp;
        if (p >= 2 && L % p == 0 && mb_count(s, 2) > 0) {
            int64_t c[MAXV];
            int nc = divisors(L / p, 2, L / p, &sp->vpp, c, MAXV);
            for (int j = 0; j < nc && k < MAXV; j++)
                v[k++] = c[j];
        }
        break;
    }
    case L_SP: {
        unsigned o = sp_options(s);
        if (o & TP_SEARCH_SP_ON)
            v[k++] = 1;
        if (o & TP_SEARCH_SP_OFF)
            v[k++] = 0;
        break;
    }
    case L_RC: {
        unsigned o = rc_options(s);
        for (int r = 0; r <= RC_ACT_OFF; r++)
            if (o & TP_SEARCH_BIT(r))
                v[k++] = r;
        break;
    }
    case L_MB: {
        k = mb_count(s, t->vpp);
        memcpy(v, s->mb_all, (size_t)k * sizeof v[0]);
        break;
    }
    default: break;
    }
    s->n[d] = k;
    return k;
}

/* Apply level d's current value to the candidate. */
static void apply(tp_search *s, int d)
{
    tp_train *t = &s->cfg.train;
    int64_t x = s->vals[d][s->i[d]];
    switch (d) {
    case L_GPUS: t->num_gpus = x; break;
    case L_TP: t->tp = x; break;
    case L_PP: t->pp = x; break;
    case L_CP: t->cp = x; break;
    case L_ETP: t->etp = x == t->tp ? 0 : x; break;
    case L_EP:
        t->ep = x;
        s->group++; /* a new group: every step-time bound slot is stale */
        break;
    case L_ZERO:
        t->zero = (int)(x % OFFLOADED);
        t->offload_optimizer = x >= OFFLOADED ? 1.0 : t->zero >= 1 ? s->base_offload : 0.0;
        t->offload_params = x >= 2 * OFFLOADED ? TP_OFFLOAD_CPU
                            : t->zero == 3     ? s->base_params
                                               : TP_OFFLOAD_NONE;
        break;
    case L_VPP:
        t->vpp = x;
        t->schedule = x > 1 ? TP_SCHED_INTERLEAVED : TP_SCHED_1F1B;
        break;
    case L_SP: t->sp = x != 0; break;
    case L_RC:
        s->rc_value = (int)x;
        t->recompute = x == RC_ACT_OFF     ? TP_RECOMPUTE_NONE
                       : x >= RC_MOE_LAYER ? TP_RECOMPUTE_SELECTIVE
                                           : (tp_recompute)x;
        t->recompute_modules = x == RC_MOE_LAYER             ? TP_RC_CORE_ATTN | TP_RC_MOE
                               : x == TP_RECOMPUTE_SELECTIVE ? s->base_rc
                                                             : 0u;
        s->cfg.opts.sac_ops = x == RC_SAC ? true : s->base_sac;
        /* activation offload where Megatron-Core allows it: pp 1, no recompute */
        t->offload_act_layers = x == RC_ACT_OFF                        ? s->cfg.model.num_layers - 1
                                : x == TP_RECOMPUTE_NONE && t->pp == 1 ? s->base_act
                                                                       : 0;
        break;
    case L_MB: t->micro_batch = x; break;
    default: break;
    }
}

/* Candidates below the ZeRO level (for the pruned count). */
static uint64_t count_below_zero(tp_search *s)
{
    uint64_t per = (uint64_t)popcount4(sp_options(s)) * (uint64_t)popcount4(rc_options(s));
    uint64_t total = 0;
    int nv = build(s, L_VPP); /* builds into the VPP slot, rebuilt when entered */
    for (int j = 0; j < nv; j++)
        total += per * (uint64_t)mb_count(s, s->vals[L_VPP][j]);
    return total;
}

/*
 * Consult space.stop: the work bound, then the caller's callback. Called
 * once per TP_SEARCH_POLL_STEPS steps (and when a search starts, so that a
 * caller running many small searches, plan's cluster sizing, is stopped
 * too), never per candidate: the hot loop pays one increment and compare.
 */
static bool stop_now(tp_search *s)
{
    const tp_search_stop *p = &s->space.stop;
    s->polls = 0;
    if ((p->max_evaluated > 0 && s->st.evaluated >= p->max_evaluated) ||
        (p->should_stop && p->should_stop(p->ctx))) {
        s->done = true;
        s->st.stopped = true;
        return true;
    }
    return false;
}

/* Move to the next leaf; false when the enumeration is exhausted or stopped. */
static bool step(tp_search *s)
{
    int d;
    if (s->done)
        return false;
    if (!s->started && stop_now(s))
        return false;
    if (!s->started) {
        s->started = true;
        d = 0;
        s->i[0] = 0;
        build(s, 0);
    } else {
        d = L_COUNT - 1;
        s->i[d]++;
    }
    for (;;) {
        if (++s->polls >= TP_SEARCH_POLL_STEPS && stop_now(s))
            return false;
        while (s->i[d] >= s->n[d]) {
            if (d == 0) {
                s->done = true;
                s->st.done = true;
                return false;
            }
            d--;
            s->i[d]++;
        }
        apply(s, d);
        if (d == L_ZERO && !s->space.no_prune && states_bound(s) > s->cfg.gpu.mem_capacity_bytes) {
            uint64_t skip = count_below_zero(s);
            s->st.pruned_states += skip;
            s->st.candidates += skip;
            s->i[d]++;
            continue;
        }
        if (d == L_COUNT - 1)
            return true;
        d++;
        build(s, d);
        if (s->mb_overflow) {
            s->done = true;
            return false;
        }
        s->i[d] = 0;
    }
}

/* ---- evaluation ------------------------------------------------------- */

/*
 * The step-time bound slot of the current candidate, or -1. The VPP, SP,
 * recompute and micro-batch lists do not depend on the ZeRO level above
 * them (build), so within a group the same slot is the same
 * (VPP, SP, recompute, micro-batch) under every ZeRO value.
 */
static int lb_slot(const tp_search *s)
{
    int64_t slot = (((int64_t)s->i[L_VPP] * 2 + (s->cfg.train.sp ? 1 : 0)) * 8 + s->rc_value) *
                       (int64_t)s->n_mb_all +
                   s->i[L_MB];
    return slot < LB_SLOTS ? (int)slot : -1;
}

/*
 * The step time less its DP/ZeRO communication and optimizer parts: what
 * the ZeRO stage and the optimizer and parameter offload (the ZeRO level's
 * values) leave unchanged. time.c builds compute, recompute (activation
 * offload included: the recompute level), TP/CP/EP communication, the
 * pipeline p2p and the bubble from the layer costs, the micro-batches and
 * the stage split, none of which reads zero, offload_optimizer or
 * offload_params, nor do the memory figures they read (the stages' layer
 * counts, the offloaded activations); step_s adds the two remaining parts,
 * dp_comm_s and optimizer_s, both >= 0. So this
 * is <= the step time of the slot under every ZeRO value; the factor
 * leaves room for a different order of the sum. Verify mode checks it.
 */
static double time_floor(const tp_time *tm)
{
    double s = tm->compute_s + tm->recompute_s + tm->tp_comm_s + tm->cp_comm_s + tm->ep_comm_s +
               tm->pp_comm_s + tm->bubble_s;
    return s * (1.0 - 1e-12);
}

/* Step time of the current (fitting) candidate; keeps its slot's bound. */
static void step_time(tp_search *s, const tp__stages *sg)
{
    tp__step_time(&s->cfg, sg, &s->cur);
    int slot = lb_slot(s);
    if (slot >= 0 && s->lb_gen[slot] != s->group) {
        s->lb_gen[slot] = s->group;
        s->lb_step[slot] = time_floor(&s->cur.time);
    }
}

/* tp_eval without validation (eval.c), step time only when it fits (and
 * then left to tp_search_top when it ranks lazily). */
static void evaluate(tp_search *s)
{
    const tp_config *c = &s->cfg;
    tp_result *r = &s->cur;
    r->flops = s->flops[s->rc_value];
    r->dp = dp_of(&c->train);
    r->grad_accum = s->B / (c->train.micro_batch * r->dp);
    r->schedule_runs = 1; /* the search plans without a local batch (search.md) */
    int slot = lb_slot(s);
    tp__stages sg;
    tp__stages_of(&c->train, &c->model, &sg);
    if (slot >= 0) {
        bool have = s->act_gen[slot] == s->group;
        tp__memory_heaviest_act(c, &s->padded, &sg, r, s->acts[slot], &have);
        s->act_gen[slot] = s->group;
    } else {
        tp__memory_heaviest_act(c, &s->padded, &sg, r, NULL, NULL);
    }
    if (r->memory.fits && !s->lazy_time)
        step_time(s, &sg);
}

static bool close_rel(double a, double b)
{
    double d = fabs(a - b), m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return d <= 1e-9 * m + 1e-9;
}

static void verify(tp_search *s)
{
    tp_error e;
    tp_result ref;
    if (tp_config_validate(&s->cfg, &e) != TP_OK || tp_eval(&s->cfg, &ref, &e) != TP_OK) {
        s->st.verify_failures++;
        return;
    }
    const tp_result *r = &s->cur;
    bool same = ref.memory.fits == r->memory.fits &&
                close_rel(ref.memory.total_bytes, r->memory.total_bytes) &&
                ref.memory.stage == r->memory.stage && ref.dp == r->dp &&
                ref.grad_accum == r->grad_accum &&
                close_rel(ref.flops.hardware_per_step, r->flops.hardware_per_step) &&
                (!r->memory.fits || close_rel(ref.time.step_s, r->time.step_s));
    /* the states bound must never exceed the evaluated total, nor the
     * step-time bound of the slot the step time */
    int slot = lb_slot(s);
    bool time_ok = !r->memory.fits || slot < 0 || s->lb_gen[slot] != s->group ||
                   s->lb_step[slot] <= ref.time.step_s;
    if (!same || !time_ok || states_bound(s) > ref.memory.total_bytes * (1.0 + 1e-12))
        s->st.verify_failures++;
}

static bool same_layout(const tp_train *a, const tp_train *b)
{
    return a->num_gpus == b->num_gpus && a->tp == b->tp && a->pp == b->pp && a->cp == b->cp &&
           a->ep == b->ep && a->etp == b->etp && a->zero == b->zero;
}

/* Keep the evaluated layouts that came closest to fitting. */
static void track_closest(tp_search *s)
{
    double ratio = s->cur.memory.total_bytes / s->cur.memory.capacity_bytes;
    int n = s->n_closest;
    for (int j = 0; j < n; j++) {
        if (same_layout(&s->closest[j].train, &s->cfg.train)) {
            if (ratio >= s->closest[j].ratio)
                return;
            memmove(&s->closest[j], &s->closest[j + 1], (size_t)(n - j - 1) * sizeof s->closest[0]);
            n--;
            break;
        }
    }
    if (n == TP_SEARCH_CLOSEST && ratio >= s->closest[n - 1].ratio) {
        s->n_closest = n;
        return;
    }
    int pos = n < TP_SEARCH_CLOSEST ? n : TP_SEARCH_CLOSEST - 1;
    while (pos > 0 && s->closest[pos - 1].ratio > ratio) {
        s->closest[pos] = s->closest[pos - 1];
        pos--;
    }
    s->closest[pos].train = s->cfg.train;
    s->closest[pos].ratio = ratio;
    if (n < TP_SEARCH_CLOSEST)
        n++;
    s->n_closest = n;
}

/* Evaluate leaves until one is to be reported; false at the end. */
static bool advance(tp_search *s)
{
    while (step(s)) {
        s->st.candidates++;
        s->st.evaluated++;
        evaluate(s);
        if (s->space.verify)
            verify(s);
        if (s->cur.memory.fits) {
            s->st.feasible++;
            return true;
        }
        s->st.infeasible++;
        track_closest(s);
        if (!s->space.no_prune) {
            int rest = s->n[L_MB] - s->i[L_MB] - 1;
            if (rest > 0) {
                s->st.pruned_micro_batch += (uint64_t)rest;
                s->st.candidates += (uint64_t)rest;
                s->i[L_MB] = s->n[L_MB] - 1;
            }
        }
        if (s->space.include_infeasible)
            return true;
    }
    return false;
}

static void costs(const tp_config *c, const tp_result *r, double *usd, double *gpu_s)
{
    double tokens = r->flops.tokens_per_step;
    double g = tokens > 0.0 ? r->time.step_s * (double)c->train.num_gpus / tokens : 0.0;
    *gpu_s = g;
    *usd = g * c->gpu.price_per_gpu_hour / 3600.0;
}

/*
 * A fitting candidate that cannot enter a full top list whose last entry
 * is `worst` (pruning 3), decided before its step time: ranked by
 * headroom, its headroom is below the last's; by time, its slot's bound
 * exceeds the last's step; by cost, the cost at that bound exceeds the
 * last's (cost is non-decreasing in the step at a positive price: the
 * same operations, each rounding monotone). The ties key_order breaks by
 * later keys are left to it: only a strictly worse first key skips.
 */
static bool cannot_enter(const tp_search *s, const tp_search_item *worst, tp_rank_by by)
{
    if (by == TP_RANK_HEADROOM)
        return s->cur.memory.headroom_bytes < worst->result.memory.headroom_bytes;
    int slot = lb_slot(s);
    if (slot < 0 || s->lb_gen[slot] != s->group)
        return false;
    tp_result lb;
    lb.flops.tokens_per_step = s->cur.flops.tokens_per_step;
    lb.time.step_s = s->lb_step[slot];
    if (by == TP_RANK_COST) {
        if (!(s->cfg.gpu.price_per_gpu_hour > 0.0))
            return false;
        double usd, gpu_s;
        costs(&s->cfg, &lb, &usd, &gpu_s);
        return usd > worst->cost_per_token_usd;
    }
    return lb.time.step_s > worst->result.time.step_s;
}

static void fill_item(const tp_search *s, tp_search_item *out)
{
    out->config = s->cfg;
    out->index = s->st.candidates - 1;
    if (s->cur.memory.fits) {
        out->result = s->cur;
    } else {
        tp_error e;
        if (tp_eval(&s->cfg, &out->result, &e) != TP_OK)
            out->result = s->cur; /* unreachable: candidates validate */
    }
    costs(&out->config, &out->result, &out->cost_per_token_usd, &out->gpu_s_per_token);
}

/* ---- public API ------------------------------------------------------- */

tp_status tp_search_new(const tp_config *base, const tp_search_space *space, tp_search **out,
                        tp_error *err)
{
    if (!out)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "search", "no output handle given");
    *out = NULL;
    if (!base)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "config", "no configuration given");
    tp_search_space def;
    if (!space) {
        tp_search_space_default(&def);
        space = &def;
    }
    tp_status st = check_space(space, &base->model, err);
    if (st == TP_OK)
        st = check_cluster_sizes(space, base, err);
    if (st != TP_OK)
        return st;
    if (base->train.num_gpus < 1 || base->train.num_gpus > TP_MAX_GPUS)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpus", "%lld is out of range [1, %d]",
                            (long long)base->train.num_gpus, TP_MAX_GPUS);
    /* the EP all-to-all overlap constrains the layout (config.c
     * check_a2a_overlap): its leaves would not all validate */
    if (base->opts.moe_a2a_overlap)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.moe_a2a_overlap",
                            "the search does not take the expert-parallel all-to-all overlap "
                            "(it needs ep > 1, no full recompute, vpp under pp): evaluate a "
                            "layout with it instead");

    /* Validate everything that does not depend on the layout, once. */
    tp_config one = *base;
    tp_train *t = &one.train;
    t->num_gpus = 1;
    t->tp = t->pp = t->cp = t->ep = t->vpp = 1;
    t->etp = 0;
    t->sp = false;
    t->zero = t->fp8_param_gather ? 1 : 0;      /* fp8 parameter gather needs ZeRO >= 1 */
    unsigned base_rc = t->recompute_modules;    /* checked with selective, used by its candidates */
    double base_offload = t->offload_optimizer; /* checked with ZeRO 1, used by ZeRO >= 1 */
    if (!(base_offload >= 0.0 && base_offload <= 0.0)) /* set, or NaN: checked with ZeRO 1 */
        t->zero = 1;
    int base_params = t->offload_params; /* checked with ZeRO 3, used by ZeRO 3 candidates */
    if (base_params != TP_OFFLOAD_NONE)
        t->zero = 3;
    int64_t base_act = t->offload_act_layers; /* checked with pp 1 and no recompute */
    t->schedule = TP_SCHED_1F1B;
    t->first_stage_layers = t->last_stage_layers = 0;
    /* one schedule run per step (global / dp sequences per rank): the
     * fewest pipeline bubbles, which any framework can be set to run */
    t->local_batch = 0;
    t->recompute = base_rc ? TP_RECOMPUTE_SELECTIVE : TP_RECOMPUTE_NONE;
    t->micro_batch = 1;
    if ((st = tp_config_validate(&one, err)) != TP_OK)
        return st;
    t->recompute = TP_RECOMPUTE_NONE;
    t->recompute_modules = 0u;
    t->zero = 0;
    t->offload_optimizer = 0.0;
    t->offload_params = TP_OFFLOAD_NONE;
    t->offload_act_layers = 0;

    tp_search *s = calloc(1, sizeof *s);
    if (!s)
        return tp_error_set(err, TP_ERR_NOMEM, "search", "out of memory");
    s->space = *space;
    s->cfg = one;
    s->base_rc = base_rc;
    s->base_offload = base_offload;
    s->base_params = base_params;
    s->base_sac = base->opts.sac_ops;
    s->base_act = base_act;
    s->cfg.train.num_gpus = base->train.num_gpus;
    s->B = base->train.global_batch;
    s->node = tp_gpus_per_node(&base->train, &base->gpu);
    s->head_gcd = tp__hybrid_head_gcd(&base->model,
                                      tp__gcd64(base->model.num_heads, tp__kv_heads(&base->model)));
    if ((st = tp_model_params(&s->cfg.model, 0, &s->params, err)) != TP_OK ||
        (st = tp_model_params(&s->cfg.model, s->cfg.train.pad_vocab_to, &s->padded, err)) !=
            TP_OK) {
        free(s);
        return st;
    }
    for (int r = 0; r <= 2; r++) {
        s->cfg.train.recompute = (tp_recompute)r;
        s->cfg.train.recompute_modules = r == TP_RECOMPUTE_SELECTIVE ? s->base_rc : 0u;
        tp_flops_eval(&s->cfg, &s->padded, &s->flops[r]);
    }
    s->cfg.train.recompute = TP_RECOMPUTE_SELECTIVE;
    s->cfg.train.recompute_modules = TP_RC_CORE_ATTN | TP_RC_MOE;
    tp_flops_eval(&s->cfg, &s->padded, &s->flops[RC_MOE_LAYER]);
    s->cfg.train.recompute_modules = 0u;
    s->cfg.opts.sac_ops = true;
    tp_flops_eval(&s->cfg, &s->padded, &s->flops[RC_SAC]);
    s->cfg.opts.sac_ops = s->base_sac;
    s->flops[RC_ACT_OFF] = s->flops[TP_RECOMPUTE_NONE]; /* offload recomputes nothing */
    s->cfg.train.recompute = TP_RECOMPUTE_NONE;
    s->cur.params = s->params; /* eval.c hands the time model the true-vocabulary counts */
    precompute_bound(s);
    *out = s;
    return TP_OK;
}

bool tp_search_next(tp_search *s, tp_search_item *out)
{
    if (!s || !advance(s))
        return false;
    if (out)
        fill_item(s, out);
    return true;
}

void tp_search_get_stats(const tp_search *s, tp_search_stats *out)
{
    if (s)
        *out = s->st;
    else
        memset(out, 0, sizeof *out);
}

tp_status tp_search_status(const tp_search *s, tp_error *err)
{
    if (s && s->mb_overflow)
        return tp_error_set(err, TP_ERR_RANGE, "micro-batch",
                            "global batch / DP = %lld sequences has more than %d divisors to try "
                            "as micro-batches; bound them (max-micro-batch) or fix one",
                            (long long)s->mb_overflow, MAXV);
    if (!s || !s->st.stopped)
        return TP_OK;
    const tp_search_stop *p = &s->space.stop;
    char why[64] = ""; /* else the caller's callback: it knows why (a deadline, a cancel) */
    if (p->max_evaluated > 0 && s->st.evaluated >= p->max_evaluated)
        snprintf(why, sizeof why, " at its bound of %llu evaluations",
                 (unsigned long long)p->max_evaluated);
    return tp_error_set(
        err, TP_ERR_STOPPED, "search",
        "stopped%s after %llu layouts (%llu evaluated) of %lld GPUs, %lld "
        "layers, batch %lld sequences: fix or bound an axis (tp, pp, vpp, micro-batch, "
        "zero, recompute) to narrow the space",
        why, (unsigned long long)s->st.candidates, (unsigned long long)s->st.evaluated,
        (long long)s->cfg.train.num_gpus, (long long)s->cfg.model.num_layers, (long long)s->B);
}

size_t tp_search_closest(const tp_search *s, tp_search_item *out, size_t k)
{
    size_t n = 0;
    if (!s)
        return 0;
    for (int j = 0; j < s->n_closest && n < k; j++) {
        tp_search_item *it = &out[n];
        tp_error e;
        it->config = s->cfg;
        it->config.train = s->closest[j].train;
        if (tp_eval(&it->config, &it->result, &e) != TP_OK)
            continue;
        it->index = 0;
        costs(&it->config, &it->result, &it->cost_per_token_usd, &it->gpu_s_per_token);
        n++;
    }
    return n;
}

void tp_search_free(tp_search *s)
{
    free(s);
}

/* ---- ranking ---------------------------------------------------------- */

typedef struct rank_key {
    double step_s, cost, headroom;
    uint64_t index;
} rank_key;

static int cmp_d(double a, double b)
{
    return a < b ? -1 : (a > b ? 1 : 0);
}

static int key_order(const rank_key *a, const rank_key *b, tp_rank_by by)
{
    int c = 0;
    switch (by) {
    case TP_RANK_COST: c = cmp_d(a->cost, b->cost); break;
    case TP_RANK_HEADROOM: c = -cmp_d(a->headroom, b->headroom); break;
    case TP_RANK_TIME:
    default: c = cmp_d(a->step_s, b->step_s); break;
    }
    if (c == 0)
        c = cmp_d(a->step_s, b->step_s);
    if (c == 0)
        c = -cmp_d(a->headroom, b->headroom);
    if (c == 0)
        c = a->index < b->index ? -1 : (a->index > b->index ? 1 : 0);
    return c;
}

static rank_key item_key(const tp_search_item *it)
{
    rank_key k = {it->result.time.step_s, it->cost_per_token_usd, it->result.memory.headroom_bytes,
                  it->index};
    return k;
}

int tp_search_order(const tp_search_item *a, const tp_search_item *b, tp_rank_by by)
{
    rank_key ka = item_key(a), kb = item_key(b);
    return key_order(&ka, &kb, by);
}

tp_status tp_search_top(const tp_config *base, const tp_search_space *space, tp_rank_by by,
                        tp_search_item *top, size_t k, size_t *n, tp_search_stats *stats,
                        tp_error *err)
{
    tp_search *s;
    tp_search_space sp;
    if (space)
        sp = *space;
    else
        tp_search_space_default(&sp);
    sp.include_infeasible = false;
    tp_status st = tp_search_new(base, &sp, &s, err);
    if (st != TP_OK)
        return st;
    size_t have = 0;
    s->lazy_time = !sp.no_prune && !sp.verify;
    while (advance(s)) {
        if (k == 0)
            continue;
        if (s->lazy_time) {
            if (have == k && cannot_enter(s, &top[k - 1], by)) {
                s->st.pruned_time++;
                continue;
            }
            step_time(s, NULL);
        }
        double usd, gpu_s;
        costs(&s->cfg, &s->cur, &usd, &gpu_s);
        rank_key key = {s->cur.time.step_s, usd, s->cur.memory.headroom_bytes,
                        s->st.candidates - 1};
        if (have == k) {
            rank_key worst = item_key(&top[k - 1]);
            if (key_order(&key, &worst, by) >= 0)
                continue;
        }
        size_t pos = have < k ? have : k - 1;
        while (pos > 0) {
            rank_key prev = item_key(&top[pos - 1]);
            if (key_order(&prev, &key, by) <= 0)
                break;
            top[pos] = top[pos - 1];
            pos--;
        }
        fill_item(s, &top[pos]);
        if (have < k)
            have++;
    }
    if (stats)
        *stats = s->st;
    st = tp_search_status(s, err);
    if (n)
        *n = st == TP_OK ? have : 0;
    tp_search_free(s);
    return st;
}

/* ---- explanations ----------------------------------------------------- */

void tp_search_delta_eval(const tp_search_item *best, const tp_search_item *other,
                          tp_search_delta *out)
{
    memset(out, 0, sizeof *out);
    const tp_time *a = &best->result.time, *b = &other->result.time;
    out->step_s = b->step_s - a->step_s;
    out->step_rel = a->step_s > 0.0 ? out->step_s / a->step_s : 0.0;
    struct {
        const char *name;
        double d;
    } tparts[] = {
        {"compute", b->compute_s - a->compute_s},
        {"recompute", b->recompute_s - a->recompute_s},
        {"TP communication", b->tp_comm_s - a->tp_comm_s},
        {"CP ring exchange", b->cp_comm_s - a->cp_comm_s},
        {"EP all-to-all", b->ep_comm_s - a->ep_comm_s},
        {"PP point-to-point", b->pp_comm_s - a->pp_comm_s},
        {"pipeline bubble", b->bubble_s - a->bubble_s},
        {"DP/ZeRO communication", b->dp_comm_s - a->dp_comm_s},
        {"optimizer step", b->optimizer_s - a->optimizer_s},
    };
    out->time_part = "";
    for (size_t j = 0; j < sizeof tparts / sizeof tparts[0]; j++) {
        if (tparts[j].d > out->time_part_s) {
            out->time_part_s = tparts[j].d;
            out->time_part = tparts[j].name;
        }
    }
    const tp_memory *ma = &best->result.memory, *mb = &other->result.memory;
    struct {
        const char *name;
        double d;
    } mparts[] = {
        {"weights", mb->weights_bytes - ma->weights_bytes},
        {"ZeRO-3 gathered weights", mb->weights_gathered_bytes - ma->weights_gathered_bytes},
        {"gradients", mb->grads_bytes - ma->grads_bytes},
        {"optimizer state", mb->optimizer_bytes - ma->optimizer_bytes},
        {"activations", mb->activations_bytes - ma->activations_bytes},
        {"logits", mb->logits_bytes - ma->logits_bytes},
        {"communication buffers", mb->comm_buffers_bytes - ma->comm_buffers_bytes},
        {"allocator reserve", mb->fragmentation_bytes - ma->fragmentation_bytes},
    };
    out->mem_part = "";
    double best_abs = 0.0;
    for (size_t j = 0; j < sizeof mparts / sizeof mparts[0]; j++) {
        if (fabs(mparts[j].d) > best_abs) {
            best_abs = fabs(mparts[j].d);
            out->mem_part = mparts[j].name;
            out->mem_part_bytes = mparts[j].d;
        }
    }
    out->headroom_bytes = mb->headroom_bytes - ma->headroom_bytes;
    out->cost_per_token_usd = other->cost_per_token_usd - best->cost_per_token_usd;

    const tp_train *x = &other->config.train, *y = &best->config.train;
    size_t used = 0;
    char *buf = out->layout;
    size_t cap = sizeof out->layout;
#define DIFF(cond, ...)                                                                            \
    do {                                                                                           \
        if ((cond) && used < cap) {                                                                \
            int w_ = snprintf(buf + used, cap - used, "%s", used ? ", " : "");                     \
            if (w_ > 0)                                                                            \
                used += (size_t)w_;                                                                \
            if (used < cap) {                                                                      \
                w_ = snprintf(buf + used, cap - used, __VA_ARGS__);                                \
                if (w_ > 0)                                                                        \
                    used += (size_t)w_;                                                            \
            }                                                                                      \
        }                                                                                          \
    } while (0)
    DIFF(x->num_gpus != y->num_gpus, "GPUs %lld vs %lld", (long long)x->num_gpus,
         (long long)y->num_gpus);
    DIFF(x->tp != y->tp, "TP %lld vs %lld", (long long)x->tp, (long long)y->tp);
    DIFF(x->pp != y->pp, "PP %lld vs %lld", (long long)x->pp, (long long)y->pp);
    DIFF(x->vpp != y->vpp, "VPP %lld vs %lld", (long long)x->vpp, (long long)y->vpp);
    DIFF(x->cp != y->cp, "CP %lld vs %lld", (long long)x->cp, (long long)y->cp);
    DIFF(x->ep != y->ep, "EP %lld vs %lld", (long long)x->ep, (long long)y->ep);
    DIFF(tp_expert_tp(x) != tp_expert_tp(y), "ETP %lld vs %lld", (long long)tp_expert_tp(x),
         (long long)tp_expert_tp(y));
    DIFF(other->result.dp != best->result.dp, "DP %lld vs %lld", (long long)other->result.dp,
         (long long)best->result.dp);
    DIFF(x->zero != y->zero, "ZeRO-%d vs %d", x->zero, y->zero);
    DIFF(x->sp != y->sp, "SP %s vs %s", x->sp ? "on" : "off", y->sp ? "on" : "off");
    DIFF(x->recompute != y->recompute, "recompute %s vs %s",
         x->recompute == TP_RECOMPUTE_FULL        ? "full"
         : x->recompute == TP_RECOMPUTE_SELECTIVE ? "selective"
                                                  : "none",
         y->recompute == TP_RECOMPUTE_FULL        ? "full"
         : y->recompute == TP_RECOMPUTE_SELECTIVE ? "selective"
                                                  : "none");
    DIFF(x->micro_batch != y->micro_batch, "micro-batch %lld vs %lld", (long long)x->micro_batch,
         (long long)y->micro_batch);
#undef DIFF
}

/* Does c fit (valid and every checked stage within capacity)? tp_eval's
 * answer without its FLOPs and step time, which do not decide it: the
 * binding tries up to layers + node + 768 + 4 layouts (issue 19 runs it
 * on every estimate that does not fit, the web's included). */
static bool fits_cfg(const tp_config *c)
{
    tp_result r;
    tp_params padded;
    tp_error e;
    if (tp_config_validate(c, &e) != TP_OK)
        return false;
    tp__model_params(&c->model, c->train.pad_vocab_to > 1 ? c->train.pad_vocab_to : 0, &padded);
    tp__memory_heaviest(c, &padded, &r);
    return r.memory.fits;
}

static void append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void append(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    if (*used >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (w > 0)
        *used += (size_t)w;
    if (*used >= cap)
        *used = cap - 1;
}

tp_status tp_search_binding_eval(const tp_config *c, tp_search_binding *out, tp_error *err)
{
    memset(out, 0, sizeof *out);
    out->need_zero = -1;
    tp_result r;
    tp_status st = tp_eval(c, &r, err);
    if (st != TP_OK)
        return st;
    out->stage = r.memory.stage;
    out->part = tp__largest_mem_part(&r.memory, &out->part_bytes);
    out->total_bytes = r.memory.total_bytes;
    out->capacity_bytes = r.memory.capacity_bytes;
    out->over_bytes = r.memory.total_bytes - r.memory.capacity_bytes;
    out->full_recompute = c->train.recompute == TP_RECOMPUTE_FULL;
    if (r.memory.fits) {
        out->fits = true;
        snprintf(out->text, sizeof out->text,
                 "fits: stage %lld uses %.1f GiB of %.1f GiB (%.1f GiB headroom)",
                 (long long)out->stage, out->total_bytes / TP_GIB, out->capacity_bytes / TP_GIB,
                 -out->over_bytes / TP_GIB);
        return TP_OK;
    }

    const tp_model *m = &c->model;
    const tp_train *t0 = &c->train;
    int64_t dp = tp_train_dp(t0);
    int64_t node = tp_gpus_per_node(t0, &c->gpu);
    tp_config v = *c;
    tp_train *t = &v.train;
    /* Variants keep DP (and so the global batch's divisibility); interleaving off. */
    t->vpp = 1;
    t->schedule = t0->schedule == TP_SCHED_INTERLEAVED ? TP_SCHED_1F1B : t0->schedule;
    t->first_stage_layers = t->last_stage_layers = 0;

    if (t0->recompute != TP_RECOMPUTE_FULL) {
        tp_config f = v;
        f.train.recompute = TP_RECOMPUTE_FULL;
        out->need_full_recompute = fits_cfg(&f);
    }
    for (int z = t0->zero + 1; z <= 3 && dp * t0->cp > 1; z++) {
        tp_config f = v;
        f.train.zero = z;
        if (fits_cfg(&f)) {
            out->need_zero = z;
            break;
        }
    }
    int64_t hg = tp__hybrid_head_gcd(m, tp__gcd64(m->num_heads, tp__kv_heads(m)));
    for (int64_t x = t0->tp + 1; x <= hg && x <= node; x++) {
        if (hg % x != 0 || node % x != 0)
            continue;
        tp_config f = v;
        f.train.tp = x;
        f.train.num_gpus = x * t0->pp * t0->cp * dp;
        f.train.sp = x > 1 ? (t0->tp > 1 ? t0->sp : true) : false;
        if (f.train.num_gpus <= TP_MAX_GPUS && fits_cfg(&f)) {
            out->need_tp = x;
            out->need_tp_gpus = f.train.num_gpus;
            break;
        }
    }
    for (int64_t x = t0->pp + 1; x <= m->num_layers; x++) {
        int64_t g = t0->tp * x * t0->cp * dp;
        if (g > TP_MAX_GPUS)
            break;
        tp_config f = v;
        f.train.pp = x;
        f.train.num_gpus = g;
        if (fits_cfg(&f)) {
            out->need_pp = x;
            out->need_pp_gpus = g;
            break;
        }
    }
    int64_t cps[MAXV];
    tp_axis open = {0, 0};
    /* seq_len <= 2^27: at most 768 divisors, so never -1 (which would read as none) */
    int ncp = divisors(t0->seq_len / 2, t0->cp + 1, t0->seq_len / 2, &open, cps, MAXV);
    for (int j = 0; j < ncp; j++) {
        int64_t x = cps[j];
        int64_t g = t0->tp * t0->pp * x * dp;
        if (g > TP_MAX_GPUS)
            break;
        tp_config f = v;
        f.train.cp = x;
        f.train.num_gpus = g;
        if (fits_cfg(&f)) {
            out->need_cp = x;
            out->need_cp_gpus = g;
            break;
        }
    }

    size_t used = 0;
    char *b = out->text;
    size_t cap = sizeof out->text;
    double gib = TP_GIB;
    if (out->part_bytes > out->capacity_bytes)
        append(b, cap, &used, "%s %.1f GiB > %.1f GiB on stage %lld", out->part,
               out->part_bytes / gib, out->capacity_bytes / gib, (long long)out->stage);
    else
        append(b, cap, &used, "stage %lld needs %.1f GiB > %.1f GiB (largest part: %s %.1f GiB)",
               (long long)out->stage, out->total_bytes / gib, out->capacity_bytes / gib, out->part,
               out->part_bytes / gib);
    if (out->full_recompute && strcmp(out->part, "activations") == 0)
        append(b, cap, &used, " even with full recompute");
    append(b, cap, &used, ", %.1f GiB over", out->over_bytes / gib);
    int n = 0;
    const char *sep = "; needs ";
    int64_t g0 = t0->num_gpus;
    if (out->need_cp) {
        append(b, cap, &used, "%sCP >= %lld", n++ ? " or " : sep, (long long)out->need_cp);
        if (out->need_cp_gpus != g0)
            append(b, cap, &used, " (%lld GPUs)", (long long)out->need_cp_gpus);
    }
    if (out->need_pp) {
        append(b, cap, &used, "%sPP >= %lld", n++ ? " or " : sep, (long long)out->need_pp);
        if (out->need_pp_gpus != g0)
            append(b, cap, &used, " (%lld GPUs)", (long long)out->need_pp_gpus);
    }
    if (out->need_tp) {
        append(b, cap, &used, "%sTP >= %lld", n++ ? " or " : sep, (long long)out->need_tp);
        if (out->need_tp_gpus != g0)
            append(b, cap, &used, " (%lld GPUs)", (long long)out->need_tp_gpus);
    }
    if (out->need_zero >= 0)
        append(b, cap, &used, "%sZeRO-%d", n++ ? " or " : sep, out->need_zero);
    if (out->need_full_recompute)
        append(b, cap, &used, "%sfull recompute", n++ ? " or " : sep);
    if (n == 0)
        append(b, cap, &used, "; no single change of TP, PP, CP, ZeRO or recompute fits");
    return TP_OK;
}
