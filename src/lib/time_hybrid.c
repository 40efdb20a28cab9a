/* SPDX-License-Identifier: MIT */
/*
 * time_hybrid.c: step time of the layers of a hybrid model (hybrid.c
 * design note): Mamba-2, Mamba-1 and gated delta-net mixers, each with a
 * dense, MoE or no MLP after it, and the sum of a stage's layers by kind.
 * The projections run through time.c's GEMM path (tp__time_gemm_s); the
 * scans are charged as FLOPs at the attention kernels' rate or bytes at
 * HBM bandwidth, the larger; with CP the mixers pay Megatron-Core's
 * all-to-alls. Attention layers, MLPs, the MoE MLP and recompute are
 * time.c's (tp__time_attention, tp__time_moe_mlp, ...). tp__step_time
 * calls tp__time_hybrid_layer once per layer kind the pattern has and
 * tp__time_hybrid_stage per stage type; both are cold, off the
 * transformer's hot path.
 */
#include <string.h>

#include "time_internal.h"

/* A chunked scan (Mamba-2's SSD, the gated delta rule): its FLOPs at the
 * attention kernels' rate or its bytes at HBM bandwidth, the larger. */
static double scan_s(const ctx *x, double flops, double bytes)
{
    double f = flops / (x->peak_attn * x->attn_eff), b = bytes / x->mem_bw;
    return f > b ? f : b;
}

/* An all-to-all on the CP group, forward and again backward (Megatron-Core's
 * Mamba context parallelism: sequence-split to head-split and back). */
static void cp_a2a(const ctx *x, cost *o, double bytes)
{
    const tp_config *c = x->c;
    double a2a =
        tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_ALL_TO_ALL, bytes, &x->cp_pl);
    o->cp_f += a2a;
    o->cp_b += a2a;
}

/* Mamba-2 mixer: in_proj and out_proj GEMMs, the SSD scan, conv1d and the
 * gated norm as element-wise bytes; one pre-norm and residual (tp__time_sublayer_bytes). */
static void mamba_part(const ctx *x, cost *o, double *rep, double *shard)
{
    const tp_model *m = &x->c->model;
    double T = x->T, tt = x->tt, h = x->h;
    double din = (double)tp__mamba_inner(m), win = (double)tp__mamba_in_width(m);
    double gn = (double)(m->mamba_groups * m->mamba_state), nh = (double)m->mamba_heads;
    double g = tp__time_gemm_s(x, T, win / tt, h) + tp__time_gemm_s(x, T, h, din / tt);
    /* the scan reads x, B, C and dt (fp32) and writes y */
    double sc = scan_s(x, T * tp__mamba_scan_flops(m) / tt,
                       T * (2.0 * (din + 2.0 * gn) + 4.0 * nh + 2.0 * din) / tt);
    o->gemm_fwd += g;
    o->fwd += g + sc;
    o->bwd += 2.0 * (g + sc);
    *rep += tp__time_sublayer_bytes(x);
    *shard += 4.0 * (din + 2.0 * gn) + 6.0 * din; /* conv1d in/out, gated norm y, z -> out */
    if (x->c->train.precision == TP_PREC_FP8) {
        *rep += h * x->cast;
        *shard += 3.0 * din * x->cast;
    }
    if (x->cc > 1.0) /* in_proj output to heads, scan output back */
        cp_a2a(x, o, T * (win + din) / tt * 2.0);
}

/* Gated delta-net mixer: qkvz, ba and out projections, the chunked delta
 * rule, conv1d, gates and the gated norm as element-wise bytes. */
static void gdn_part(const ctx *x, cost *o, double *rep, double *shard)
{
    const tp_model *m = &x->c->model;
    double T = x->T, tt = x->tt, h = x->h;
    double K = (double)tp__gdn_key_dim(m), W = (double)tp__gdn_value_dim(m);
    double nv = (double)m->gdn_v_heads;
    double g = tp__time_gemm_s(x, T, (2.0 * K + 2.0 * W) / tt, h) +
               tp__time_gemm_s(x, T, 2.0 * nv / tt, h) + tp__time_gemm_s(x, T, h, W / tt);
    double sc = scan_s(x, T * tp__gdn_core_flops(m) / tt,
                       T * (2.0 * (2.0 * K + W) + 8.0 * nv + 2.0 * W) / tt);
    o->gemm_fwd += g;
    o->fwd += g + sc;
    o->bwd += 2.0 * (g + sc);
    *rep += tp__time_sublayer_bytes(x);
    *shard += 4.0 * (2.0 * K + W) + 8.0 * nv + 6.0 * W;
    if (x->c->train.precision == TP_PREC_FP8) {
        *rep += h * x->cast;
        *shard += 3.0 * W * x->cast;
    }
    if (x->cc > 1.0) /* q, k, v, z, beta, alpha to heads; the normed output back */
        cp_a2a(x, o, T * (2.0 * K + 3.0 * W + 2.0 * nv) / tt * 2.0);
}

double tp__time_mamba1_xproj_bytes(const ctx *x)
{
    const tp_model *m = &x->c->model;
    return x->T * (double)(m->mamba1_dt_rank + 2 * m->mamba_state) * 2.0;
}

/* Mamba-1 mixer (Jamba): in_proj, x_proj, dt_proj and out_proj GEMMs, the
 * selective scan, conv1d and the gate as element-wise bytes; x_proj is
 * row-parallel: one all-reduce of its r + 2N outputs each way. */
static void mamba1_part(const ctx *x, cost *o, double *rep, double *shard)
{
    const tp_model *m = &x->c->model;
    double T = x->T, tt = x->tt, h = x->h;
    double d = (double)m->mamba1_inner, r = (double)m->mamba1_dt_rank;
    double n = (double)m->mamba_state;
    double g = tp__time_gemm_s(x, T, 2.0 * d / tt, h) + tp__time_gemm_s(x, T, r + 2.0 * n, d / tt) +
               tp__time_gemm_s(x, T, d / tt, r) + tp__time_gemm_s(x, T, h, d / tt);
    /* the scan reads x and dt and writes y (B and C are small) */
    double sc = scan_s(x, T * tp__mamba1_scan_flops(m) / tt, T * 6.0 * d / tt);
    o->gemm_fwd += g;
    o->fwd += g + sc;
    o->bwd += 2.0 * (g + sc);
    *rep += tp__time_sublayer_bytes(x);
    *shard += 4.0 * d + 6.0 * d; /* conv1d in/out; the gate y * silu(z) */
    if (x->c->train.precision == TP_PREC_FP8) {
        *rep += h * x->cast;
        *shard += 3.0 * d * x->cast;
    }
    if (x->c->train.tp > 1) {
        double ar = tp_group_coll_time(&x->c->gpu, x->c->opts.coll_model, TP_COLL_ALL_REDUCE,
                                       tp__time_mamba1_xproj_bytes(x), &x->tp_pl);
        o->tp_f += ar;
        o->tp_b += ar;
    }
}

/* TP all-reduces of a layer of n sublayers: one forward and one backward each. */
static void tp_part_n(const ctx *x, cost *o, double n)
{
    const tp_config *c = x->c;
    if (c->train.tp <= 1 || n <= 0.0)
        return;
    double ar = tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_ALL_REDUCE,
                                   x->T * x->h * 2.0, &x->tp_pl);
    tp__time_tp_exposed(x, n * ar, o->gemm_fwd, 2.0 * o->gemm_fwd, o);
}

/* One layer of kind k (mixer * 3 + ffn). 'A' layers are the transformer's. */
TP__COLD void tp__time_hybrid_layer(const ctx *x, int kind, cost *o)
{
    const tp_config *c = x->c;
    const tp_model *m = &c->model;
    int mixer = kind / 3, ffn = kind % 3;
    if (mixer == TP__MIX_ATTN && ffn == TP__FFN_DENSE) {
        tp__time_dense_layer(x, o);
        return;
    }
    if (mixer == TP__MIX_ATTN && ffn == TP__FFN_MOE) {
        tp__time_moe_layer(x, o);
        return;
    }
    double T = x->T, tt = x->tt, h = x->h, f = x->f;
    bool fp8 = c->train.precision == TP_PREC_FP8;
    double rep = 0.0, shard = 0.0, nsub = 0.0;
    memset(o, 0, sizeof *o);
    module_parts mp = {0};
    if (mixer == TP__MIX_ATTN) { /* its half of attention_part's two norms and residuals */
        tp__time_attention(x, o, &mp, &rep, &shard);
        rep -= tp__time_sublayer_bytes(x) + (fp8 ? h * x->cast : 0.0);
    } else if (mixer == TP__MIX_MAMBA) {
        mamba_part(x, o, &rep, &shard);
    } else if (mixer == TP__MIX_GDN) {
        gdn_part(x, o, &rep, &shard);
    } else if (mixer == TP__MIX_MAMBA1) {
        mamba1_part(x, o, &rep, &shard);
    }
    nsub += mixer != TP__MIX_NONE;
    if (ffn == TP__FFN_DENSE) {
        double g = tp__time_gemm_s(x, T, x->gate * f / tt, h) + tp__time_gemm_s(x, T, h, f / tt);
        o->gemm_fwd += g;
        o->fwd += g;
        o->bwd += 2.0 * g;
        shard += tp__time_act_bytes(x) * f + (fp8 ? 3.0 * f * x->cast : 0.0);
    } else if (ffn == TP__FFN_MOE) {
        double g, g_shared, perm;
        tp__time_moe_mlp(x, o, &shard, &perm, &g, &g_shared);
        rep += perm + 8.0 * (double)m->num_experts;
        tp__time_ep(x, o, &mp);
    }
    if (ffn != TP__FFN_NONE) {
        rep += tp__time_sublayer_bytes(x) + (fp8 ? h * x->cast : 0.0);
        nsub += 1.0;
    }
    double elem = tp__elem_s(x, rep, shard);
    o->fwd += elem;
    o->bwd += 2.0 * elem;
    o->elem_fwd = elem;
    tp_part_n(x, o, nsub);
    tp__time_recompute(x, o, &mp);
}

/* Cost of layers [first, first + n) of a hybrid model, and its ends. */
TP__COLD cost tp__time_hybrid_stage(const tp_model *m, const cost *kinds, int64_t first, int64_t n,
                                    bool first_st, bool last_st, const cost *emb, const cost *head,
                                    double block)
{
    cost s;
    memset(&s, 0, sizeof s);
    for (int64_t i = first; i < first + n; i++)
        cost_axpy(&s, 1.0, &kinds[tp__layer_kind(m, i)]);
    if (block > 0.0 && block < (double)n)
        s.recomp *= block / (double)n;
    if (first_st)
        cost_axpy(&s, 1.0, emb);
    if (last_st)
        cost_axpy(&s, 1.0, head);
    return s;
}
