/* SPDX-License-Identifier: MIT */
/*
 * time_internal.h: what the files of the step-time model share (time.c
 * design note): the evaluation context, the per-micro-batch cost of a layer
 * and its operations, and out-of-line entries to time.c's layer helpers.
 * The helpers themselves stay static in time.c, so that the dense path
 * keeps its inlining (make bench); time_hybrid.c and time_vision.c, off
 * that path, call them through the tp__time_ entries.
 */
#ifndef TP_TIME_INTERNAL_H
#define TP_TIME_INTERNAL_H

#include "internal.h"

static inline double max2(double a, double b)
{
    return a > b ? a : b;
}

static inline double min2(double a, double b)
{
    return a < b ? a : b;
}

typedef struct ctx {
    const tp_config *c;
    const tp__stages *sg; /* the checked stages' bounds (tp__step_time; NULL: none) */
    double T;             /* tokens per GPU per micro-batch, b*s/c */
    double tt;            /* tensor-parallel size t */
    double et;            /* expert tensor-parallel size t_e (etp, default t) */
    double cc;            /* context-parallel size c */
    double h, q, kv, f, gate, V;
    bool sp;                                /* sequence parallel in effect */
    double peak_gemm, gemm_eff, half;       /* GEMM rate and shape constant */
    double sms, tile_m, tile_n;             /* kernel-level GEMM model (1b); sms 0 = off */
    double inv_sms, inv_tile_m, inv_tile_n; /* their reciprocals */
    double wave_s_per_k;                    /* seconds per unit of K of one full wave */
    double s_per_byte;                      /* its operand traffic: 1 / achieved HBM bandwidth */
    double peak_attn, attn_eff;
    double mem_bw; /* achieved HBM bandwidth, bytes/s */
    double ov;     /* overlap fraction */
    int tpo;       /* tp_tp_overlap_of: which TP overlap applies (tp_exposed) */
    bool modules;  /* selective recompute with Megatron's modules: track their parts */
    double cast;   /* fp8 cast bytes relative to delayed scaling's (the recipe, header 10) */
    tp_group_place tp_pl, cp_pl, ep_pl, pp_pl, dp_pl, edp_pl, etp_pl;
} ctx;

/* Per-micro-batch costs of one layer (or of the embedding/loss ends). */
typedef struct cost {
    double fwd;        /* forward compute */
    double bwd;        /* backward compute */
    double gemm_fwd;   /* GEMM part of fwd (window for TP overlap) */
    double attn_fwd;   /* attention-core part of fwd (selective recompute) */
    double tp_f, tp_b; /* exposed TP collectives */
    double cp_f, cp_b; /* exposed CP ring exchange */
    double ep_f, ep_b; /* EP all-to-all */
    double recomp;     /* recompute: extra work inside backward */
    double elem_fwd;   /* element-wise part of fwd */
    double sac_gemm;   /* GEMMs per-op SAC re-runs (opts.sac_ops) */
    double ep_hid;     /* of ep_f + ep_b, what hides when the micro-batch's passes run
                          beside another's (opts.moe_a2a_overlap; time_moe.c tp__time_ep_overlap) */
} cost;

/* Forward parts Megatron's recompute modules re-run (selective), one layer;
 * kept apart from cost so that the stage sums stay small. */
typedef struct module_parts {
    double norm_fwd;   /* the two norms */
    double mlp_fwd;    /* the dense MLP: GEMMs and activation */
    double moe_fwd;    /* the MoE MLP: router, experts, shared, dispatch, all-to-all */
    double act_fwd;    /* the experts' activation function */
    double shared_fwd; /* the shared experts' GEMMs and activation */
    double up_fwd;     /* MLA's up-projections and RoPE */
} module_parts;

/* All zero, field by field: a memset of the struct compiles to `rep stos`,
 * whose start-up costs more than these stores (several per evaluation). */
_Static_assert(sizeof(cost) == 14 * sizeof(double), "cost_zero sets every field of cost");
static inline void cost_zero(cost *o)
{
    o->fwd = o->bwd = o->gemm_fwd = o->attn_fwd = 0.0;
    o->tp_f = o->tp_b = o->cp_f = o->cp_b = o->ep_f = o->ep_b = 0.0;
    o->recomp = o->elem_fwd = o->sac_gemm = o->ep_hid = 0.0;
}

/* Forward time of a layer's element-wise work: rep bytes per token that TP
 * splits only under SP, shard bytes per token that TP splits, at the
 * achieved HBM bandwidth (header 3). The backward moves twice as much. */
static inline double tp__elem_s(const ctx *x, double rep, double shard)
{
    return x->T * (rep / (x->sp ? x->tt : 1.0) + shard / x->tt) / x->mem_bw;
}

static inline void cost_axpy(cost *y, double a, const cost *x)
{
    y->fwd += a * x->fwd;
    y->bwd += a * x->bwd;
    y->gemm_fwd += a * x->gemm_fwd;
    y->attn_fwd += a * x->attn_fwd;
    y->tp_f += a * x->tp_f;
    y->tp_b += a * x->tp_b;
    y->cp_f += a * x->cp_f;
    y->cp_b += a * x->cp_b;
    y->ep_f += a * x->ep_f;
    y->ep_b += a * x->ep_b;
    y->recomp += a * x->recomp;
    y->elem_fwd += a * x->elem_fwd;
    y->sac_gemm += a * x->sac_gemm;
    y->ep_hid += a * x->ep_hid;
}

/* time.c's helpers (see them there), out of line. */
double tp__time_gemm_s(const ctx *x, double M, double N, double K);
double tp__time_exposed(double comm, double window, double ov);
void tp__time_tp_exposed(const ctx *x, double raw, double gemm_f, double gemm_b, cost *o);
void tp__time_core(const ctx *x, double flops, double scores, double *fwd, double *bwd);
double tp__attn_head_dim_factor(const tp_model *m);
/* kernel.c: the sequence-length factor at a kernel call's length (e's
 * profile sweep, or the FA3 paper's shape when e is NULL or has none),
 * and a run's over its global and windowed layers */
double tp__attn_seq_factor_at(const tp_gpu_eff *e, double tokens);
double tp__attn_seq_factor(const tp_config *c);
void tp__time_attention(const ctx *x, cost *o, module_parts *mp, double *rep_bytes,
                        double *shard_bytes);
void tp__time_moe_mlp(const ctx *x, cost *o, double *shard, double *perm, double *g_out,
                      double *g_shared_out);
void tp__time_recompute(const ctx *x, cost *o, const module_parts *mp);
double tp__time_act_bytes(const ctx *x);
double tp__time_sublayer_bytes(const ctx *x);
void tp__time_dense_layer(const ctx *x, cost *o);
void tp__time_moe_layer(const ctx *x, cost *o);

/* time.c's ZeRO shard of a stage's parameters, the larger of the first
 * and last stages' (the one this GPU updates), GPUs per node. */
double tp__time_sharded_params(const ctx *x, const tp_result *r, const tp_memory *st);
/* The evaluation context of c (time.c; colls.c builds its rows on it). */
void tp__time_ctx(const tp_config *c, ctx *x);
/* How often a step reduces stage 0's gradients and gathers its weights
 * (time.c dp_exposed; colls.c lists them): whole-stage operations per
 * step, each `pieces` collectives of 1/pieces of the bytes (ZeRO-3: one
 * per layer of the layers0 of stage 0; else 1). m: micro-batches per step,
 * runs: runs of the pipeline schedule. ZeRO 0 all-reduces, ZeRO 1-2
 * reduce-scatter and gather the updated weights once; under a pipeline
 * every run reduces. */
typedef struct tp__dp_counts {
    tp_coll grad_kind; /* TP_COLL_ALL_REDUCE (ZeRO 0) or TP_COLL_REDUCE_SCATTER */
    double grads;      /* gradient reductions of the whole stage per step */
    double gathers;    /* weight all-gathers of the whole stage per step (0: none) */
    double pieces;     /* collectives each is made of */
} tp__dp_counts;
void tp__time_dp_counts(const tp_train *t, double m, double runs, double layers0, tp__dp_counts *n);
/* Layers of stage 0 (memory.c's; under DualPipe the first stage alone). */
int64_t tp__time_layers0(const tp_config *c, const tp_result *r);
/* Stage 0's trained parameters on this GPU (under DualPipe stage pp-1's
 * too): the routed experts' (reduced over the expert-data-parallel group)
 * and the rest (over DP x CP), the volumes of dp_exposed and of colls.c's
 * DP rows. */
void tp__time_dp_params(const ctx *x, const tp_result *r, double *dense, double *expert);
double tp__time_updated_params(const ctx *x, const tp_result *r);
int64_t tp__time_nodes_gpus(const tp_config *c);

/* time_offload.c: the optimizer offload's exposed time (the gradient copy
 * hidden in window_b), the parameter fetches and write-back (their bytes
 * in *bytes), the activation copies. */
double tp__time_opt_offload(const ctx *x, const tp_result *r, double window_b);
double tp__time_param_offload(const ctx *x, const tp_result *r, const cost *st0, double m,
                              double layers0, double *bytes);
double tp__time_act_offload(const ctx *x, const tp_result *r, const cost *st0, double m,
                            double *bytes);

/* time_moe.c: one MoE layer's EP all-to-alls (their time in o->ep_f,
 * o->ep_b), what of them hides beside another micro-batch's passes given
 * the attention block's forward and backward (o->ep_hid), and the host's
 * floor under its forward and backward. */
void tp__time_ep(const ctx *x, cost *o, module_parts *mp);
/* One of those all-to-alls (EP > 1): its time, and in *bytes what one GPU
 * sends (k routed copies of its tokens, or one per distinct GPU with
 * opts.moe_node_dispatch). */
double tp__time_ep_a2a(const ctx *x, double *bytes);
void tp__time_ep_overlap(const ctx *x, cost *o, double pre_f, double pre_b);
void tp__time_host_floor(const ctx *x, cost *o);

/* time_vision.c: the tower and projector on stage 0; one mllama cross
 * layer's difference from a self-attention layer. */
void tp__time_vision(const ctx *x, cost *o);
void tp__time_cross_delta(const ctx *x, cost *o);

/* time_hybrid.c: one layer of kind k (mixer * 3 + ffn); the layers
 * [first, first + n) of a hybrid model and the stage's ends. */
void tp__time_hybrid_layer(const ctx *x, int kind, cost *o);
/* One all-reduce of a Mamba-1 mixer's row-parallel x_proj at TP > 1: its
 * dt_rank + 2 x state outputs of every token, 16-bit, in bytes (one
 * forward and one backward a mixer; colls.c lists them). */
double tp__time_mamba1_xproj_bytes(const ctx *x);
cost tp__time_hybrid_stage(const tp_model *m, const cost *kinds, int64_t first, int64_t n,
                           bool first_st, bool last_st, const cost *emb, const cost *head,
                           double block);

#endif
