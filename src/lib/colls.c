/* SPDX-License-Identifier: MIT */
/*
 * colls.c: the collectives one GPU runs in a step, counted and timed as
 * the step-time model counts and times them (tp_step_collectives, comm.h),
 * for the reports' "Collectives per step" and to check against a profile.
 *
 * The model prices each collective inside the pass it belongs to and
 * charges only what overlap leaves exposed (time.c); these rows are the
 * volumes behind it, before overlap, from the same placements (time.c's
 * ctx) and the same counts:
 *  - TP, on the critical stage, per micro-batch: two all-reduces a layer
 *    forward and two backward (one each with parallel attention and MLP),
 *    b s/c h 16-bit values each (SP's all-gather + reduce-scatter pairs
 *    cost the same); the embedding's one forward on stage 0; full
 *    recompute re-runs the forward ones of the layers it recomputes. Under
 *    MoE parallel folding (ETP != TP) a MoE layer's second all-reduce is
 *    the expert TP group's, over ETP/TP times the tokens (time.c
 *    tp_part_folded). Mamba-1 mixers add the all-reduce of their
 *    row-parallel x_proj, whose r + 2N outputs (dt, B and C) every rank
 *    needs: one forward and one backward each (time_hybrid.c mamba1_part);
 *  - CP: the K and V chunk passed around the ring, cp - 1 times forward
 *    and twice that backward per attention layer (their gradients return),
 *    and again forward under full recompute;
 *  - EP: dispatch and combine forward and backward per MoE layer, again
 *    forward where the MoE layer's forward is recomputed (full recompute,
 *    or Megatron-Core's "moe" recompute module); the bytes are what one GPU
 *    sends (time_moe.c);
 *  - PP: one activation forward and one gradient backward per micro-batch
 *    and virtual stage, sharded over TP (SP or Megatron's scatter/gather);
 *  - DP, on stage 0 (time.c dp_exposed; under DualPipe its GPU's two
 *    stages, 0 and pp-1): its dense parameters over DP x CP
 *    and a MoE model's routed experts over the expert-data-parallel group
 *    (the EDP rows; none when that group is one rank, EP = DP x CP), as
 *    often as tp__time_dp_counts says: ZeRO 0 all-reduces the gradients,
 *    ZeRO 1-2 reduce-scatter them and gather the updated weights once;
 *    under a pipeline each run of the schedule (tp_train.local_batch)
 *    reduces the gradients. ZeRO 3 runs one collective per layer: without
 *    a pipeline two all-gathers (forward, backward) and a reduce-scatter
 *    per micro-batch; under a pipeline the stage stays gathered, one
 *    all-gather and one reduce-scatter per run.
 * DualPipe runs half the micro-batches through each of a rank's two stages
 * (0 and pp-1): their mean. Each row's time is the model's own: with the
 * overlaps off (--no-dp-comm-overlap, no TP overlap, no
 * --moe-a2a-overlap, 1F1B) and no recompute (the step charges the re-run
 * forward collectives to recompute_s) the rows of a part sum to the
 * breakdown's.
 */
#include "time_internal.h"

/* Collectives of one stage per micro-batch, in units the rows multiply. */
typedef struct stage_n {
    double ar;   /* TP all-reduces per pass (forward, or backward) */
    double ar_e; /* expert-TP all-reduces per pass (MoE parallel folding) */
    double ar_x; /* Mamba-1 x_proj all-reduces per pass */
    double attn; /* attention layers: CP ring exchanges */
    double moe;  /* MoE layers: EP all-to-alls */
    double emb;  /* the embedding's all-reduce (stage 0, forward) */
    double rc;   /* share of the layers whose forward full recompute re-runs */
    double rce;  /* share of the MoE layers whose dispatch runs again */
} stage_n;

static void stage_counts(const ctx *x, int64_t s, stage_n *k)
{
    const tp_config *c = x->c;
    const tp_train *t = &c->train;
    const tp_model *m = &c->model;
    int64_t L = m->num_layers, n = tp_stage_layers(t, L, s);
    int64_t first = tp__stage_first_layer(t, L, s);
    double nm = (double)tp__stage_moe_layers(t, m, s), nd = (double)n - nm;
    double layers = (double)n, subs = 2.0 * layers, attn = layers, mamba1 = 0.0;
    if (tp__is_hybrid(m)) {
        subs = attn = 0.0;
        for (int64_t i = first; i < first + n; i++) {
            char kc = tp_layer_char(m, i);
            subs += (kc == 'A' || kc == 'L' || kc == 'S') ? 2.0 : 1.0;
            attn += (kc == 'A' || kc == '*') ? 1.0 : 0.0;
            mamba1 += kc == 'S' ? 1.0 : 0.0;
        }
    }
    if (s == t->pp - 1 && m->mtp_layers > 0) { /* MTP modules: a layer each (time.c) */
        double mt = (double)m->mtp_layers;
        if (m->num_experts > 0)
            nm += mt;
        else
            nd += mt;
        subs += 2.0 * mt;
        attn += mt;
    }
    bool folded = tp_expert_tp(t) != t->tp;
    double pa = m->parallel_attn ? 1.0 : 2.0;
    k->ar = 0.0;
    if (t->tp > 1)
        k->ar = tp__is_hybrid(m) ? subs : nd * pa + nm * (folded ? 1.0 : pa);
    k->ar_e = folded && x->et > 1.0 ? nm : 0.0;
    k->ar_x = t->tp > 1 ? mamba1 : 0.0;
    k->attn = attn;
    k->moe = m->num_experts > 0 && t->ep > 1 ? nm : 0.0;
    k->emb = s == 0 && t->tp > 1 ? 1.0 : 0.0;
    k->rc = 0.0;
    if (t->recompute == TP_RECOMPUTE_FULL) {
        double blk = (double)t->recompute_layers;
        k->rc = blk > 0.0 && blk < layers ? blk / layers : 1.0;
    }
    k->rce = k->rc;
    if (x->modules && (tp_recompute_modules(t) & TP_RC_MOE))
        k->rce = 1.0;
}

/* The critical stage's counts; DualPipe's rank 0, the mean of its stages. */
static void crit_counts(const ctx *x, const tp_result *r, stage_n *k)
{
    const tp_train *t = &x->c->train;
    if (t->schedule != TP_SCHED_DUALPIPE) {
        stage_counts(x, r->time.critical_stage, k);
        return;
    }
    stage_n a, b;
    stage_counts(x, 0, &a);
    stage_counts(x, t->pp - 1, &b);
    k->ar = 0.5 * (a.ar + b.ar);
    k->ar_e = 0.5 * (a.ar_e + b.ar_e);
    k->ar_x = 0.5 * (a.ar_x + b.ar_x);
    k->attn = 0.5 * (a.attn + b.attn);
    k->moe = 0.5 * (a.moe + b.moe);
    k->emb = 0.5 * (a.emb + b.emb);
    k->rc = 0.5 * (a.rc + b.rc);
    k->rce = 0.5 * (a.rce + b.rce);
}

typedef struct rows_out {
    const tp_config *c;
    tp_coll_row *rows;
    int n;
} rows_out;

/* A row of count collectives of `bytes` on the group pl; none when the
 * collective costs nothing (no bytes, a group of one) or never runs. */
static void add(rows_out *o, const char *name, tp_coll kind, const tp_group_place *pl, double bytes,
                double count, double each_s)
{
    if (!(count > 0.0) || !(bytes > 0.0) || (pl->size < 2 && kind != TP_COLL_P2P))
        return;
    tp_coll_row *w = &o->rows[o->n++];
    w->name = name;
    w->kind = kind;
    w->group = pl->size;
    w->nodes = pl->nodes;
    w->bytes = bytes;
    w->count = count;
    w->busbw_bytes_per_s = tp_group_busbw(&o->c->gpu, pl);
    w->each_s = each_s;
    w->total_s = each_s * count;
}

/* add, timed on the group as comm.c times it */
static void add_coll(rows_out *o, const char *name, tp_coll kind, const tp_group_place *pl,
                     double bytes, double count)
{
    const tp_config *c = o->c;
    add(o, name, kind, pl, bytes, count,
        tp_group_coll_time(&c->gpu, c->opts.coll_model, kind, bytes, pl));
}

/* The DP rows of stage 0 (time.c dp_exposed): dense parameters over DP x
 * CP, routed experts over EDP, as often as tp__time_dp_counts says. */
static void dp_rows(rows_out *o, const ctx *x, const tp_result *r, double mb)
{
    const tp_config *c = x->c;
    tp_state_bytes bpp;
    tp_state_bytes_per_param(&c->train, &bpp);
    double dense, expert;
    tp__time_dp_params(x, r, &dense, &expert);
    tp__dp_counts n;
    tp__time_dp_counts(&c->train, mb, (double)r->schedule_runs, (double)tp__time_layers0(c, r), &n);
    bool ar = n.grad_kind == TP_COLL_ALL_REDUCE;
    double p = n.pieces;
    add_coll(o, ar ? "DP grad all-reduce" : "DP grad reduce-scatter", n.grad_kind, &x->dp_pl,
             dense * bpp.grads / p, n.grads * p);
    add_coll(o, "DP weight all-gather", TP_COLL_ALL_GATHER, &x->dp_pl, dense * bpp.weights / p,
             n.gathers * p);
    add_coll(o, ar ? "EDP grad all-reduce" : "EDP grad reduce-scatter", n.grad_kind, &x->edp_pl,
             expert * bpp.grads / p, n.grads * p);
    add_coll(o, "EDP weight all-gather", TP_COLL_ALL_GATHER, &x->edp_pl, expert * bpp.weights / p,
             n.gathers * p);
}

int tp_step_collectives(const tp_config *c, const tp_result *r, tp_coll_row *rows, int max)
{
    if (!c || !r || !rows || max < TP_COLL_ROWS_MAX || !r->time.computed)
        return 0;
    const tp_train *t = &c->train;
    ctx x;
    tp__time_ctx(c, &x);
    rows_out o = {c, rows, 0};
    double mb = r->grad_accum > 0 ? (double)r->grad_accum : 1.0;
    stage_n k;
    crit_counts(&x, r, &k);

    double X = x.T * x.h * 2.0; /* one micro-batch's activations on this GPU, 16-bit */
    add_coll(&o, "TP all-reduce", TP_COLL_ALL_REDUCE, &x.tp_pl, X,
             mb * (k.ar * (2.0 + k.rc) + k.emb));
    add_coll(&o, "ETP all-reduce", TP_COLL_ALL_REDUCE, &x.etp_pl, X * (x.et / x.tt),
             mb * k.ar_e * (2.0 + k.rc));
    if (k.ar_x > 0.0)
        add_coll(&o, "TP all-reduce, x_proj", TP_COLL_ALL_REDUCE, &x.tp_pl,
                 tp__time_mamba1_xproj_bytes(&x), mb * k.ar_x * (2.0 + k.rc));
    if (t->cp > 1) {
        double kv = x.T * (double)tp__kv2_width(&c->model) / x.tt * 2.0;
        add_coll(&o, "CP ring send", TP_COLL_P2P, &x.cp_pl, kv,
                 mb * k.attn * (x.cc - 1.0) * (3.0 + k.rc));
    }
    if (k.moe > 0.0) {
        double bytes;
        double each = tp__time_ep_a2a(&x, &bytes);
        add(&o, "EP all-to-all", TP_COLL_ALL_TO_ALL, &x.ep_pl, bytes,
            mb * k.moe * (4.0 + 2.0 * k.rce), each);
    }
    if (t->pp > 1) {
        double v = t->schedule == TP_SCHED_INTERLEAVED && t->vpp > 1 ? (double)t->vpp : 1.0;
        double p2p = X / (x.sp || c->opts.pp_scatter_gather ? x.tt : 1.0);
        add_coll(&o, "PP send/recv", TP_COLL_P2P, &x.pp_pl, p2p, 2.0 * mb * v);
    }
    dp_rows(&o, &x, r, mb);
    return o.n;
}
