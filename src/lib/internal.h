/* SPDX-License-Identifier: MIT */
/* Private declarations shared by the files of libtp (tp__ names). */
#ifndef TP_INTERNAL_H
#define TP_INTERNAL_H

#include "tp/tp.h"

/* Hard bounds that keep every int64 product and double finite: TP_MAX_*
 * and TP_MIN_EFF in tp.h (public: the front ends check the same numbers). */

/** V rounded up to a multiple of pad (pad <= 1: V). */
int64_t tp__padded_vocab(int64_t vocab, int64_t pad);
/** Query width a*d_h and key/value width n_kv*d_h. */
int64_t tp__q_width(const tp_model *m);
int64_t tp__kv_width(const tp_model *m);
/* Issue-16 architecture helpers (model.c design note). */
bool tp__is_mla(const tp_model *m);
int64_t tp__v_width(const tp_model *m);
int64_t tp__kv2_width(const tp_model *m);
int64_t tp__attn_proj_macs(const tp_model *m);
int64_t tp__attn_replicated_macs(const tp_model *m);
int64_t tp__attn_replicated_params(const tp_model *m);
int64_t tp__norm_params(const tp_model *m);
/* Norms in one layer: norms_per_layer, or 2. */
int64_t tp__layer_norms(const tp_model *m);
int64_t tp__router_params(const tp_model *m);
/* Mean over layers of the score work with the window over that without (1 = no window). */
double tp__window_scale(const tp_model *m, double s, bool causal);
/* layers with full attention (all but the windowed or chunked ones) */
int64_t tp__global_attn_layers(const tp_model *m);
/* Keys a query's example spans: packed_seq_len when sequences are packed
 * with per-example attention, else seq_len (tp_train.packed_seq_len). */
double tp__attn_span(const tp_train *t);
int64_t tp__kv_heads(const tp_model *m);
/** Parameters of one MLP of width f (weights + biases). */
int64_t tp__mlp_params(const tp_model *m, int64_t f);
/** Is layer i (0-based) a mixture-of-experts layer? */
bool tp__layer_is_moe(const tp_model *m, int64_t i);
/** tp_model_params of a validated model and pad (tp_config_validate's). */
void tp__model_params(const tp_model *m, int64_t pad_vocab_to, tp_params *out);
/** MoE layers among layers [first, first + n). */
int64_t tp__moe_layers_in(const tp_model *m, int64_t first, int64_t n);
/** First layer index of pipeline stage `stage`. */
int64_t tp__stage_first_layer(const tp_train *t, int64_t num_layers, int64_t stage);
/** MoE layers on pipeline stage `stage` (its virtual stages under the in-order split). */
int64_t tp__stage_moe_layers(const tp_train *t, const tp_model *m, int64_t stage);
/** The middle stage checked as the heaviest (1 but under the in-order split; pp > 2). */
int64_t tp__middle_stage(const tp_train *t, const tp_model *m);
/** The stages whose memory decides the heaviest, in this order: 0, the
 *  last, 1 (pp > 2), tp__middle_stage when it is not 1; their count. */
int tp__checked_stages(const tp_train *t, const tp_model *m, int64_t stages[4]);
/** The checked stages with their bounds: computed once per evaluation
 *  (tp__stages_of) and read by the memory and the step-time models. */
typedef struct tp__stages {
    int n;            /* how many (1 to 4) */
    int64_t stage[4]; /* tp__checked_stages' order: 0, the last, 1, tp__middle_stage */
    int64_t layers[4], first[4], moe[4]; /* layer count, first layer, MoE layers */
} tp__stages;
void tp__stages_of(const tp_train *t, const tp_model *m, tp__stages *out);
/** Effective global batch micro-batches per pipeline: B / (b * dp). */
int64_t tp__grad_accum(const tp_train *t);
/* micro-batches per run of the pipeline schedule (tp_train.local_batch;
 * the step's grad_accum when it is 0) */
int64_t tp__flush_microbatches(const tp_train *t);
/* Runs of the pipeline schedule per step: grad_accum / tp__flush_microbatches
 * (1 without a local batch, or where the accumulation is 0). */
int64_t tp__schedule_runs(const tp_train *t);
/** Bytes of one element of dtype. */
double tp__dtype_bytes(tp_dtype d);

/**
 * Memory of stage 0, the last stage and (p > 2) stage 1 of a validated
 * config; r->memory is the heaviest. padded: counts with the padded vocab.
 * Shared by tp_eval and the search, which skips re-validation.
 */
void tp__memory_heaviest(const tp_config *c, const tp_params *padded, tp_result *r);
/* The same with the checked stages' bounds given (sg: tp__stages_of of c)
 * and the activations of one dense and one MoE layer, one micro-batch
 * (acts[0], acts[1]; they depend on the layout's TP, CP, SP, ETP, recompute
 * and micro-batch, not on its ZeRO stage or offload): read from acts when
 * *have, else computed, stored there and *have set; acts NULL: computed.
 * The search hands the ones of a layout to its ZeRO siblings. */
void tp__memory_heaviest_act(const tp_config *c, const tp_params *padded, const tp__stages *sg,
                             tp_result *r, double *acts, bool *have);
/* tp_memory_stage of the stages sg names, sharing the work that does not
 * depend on the stage (bit-identical to separate calls); acts as above. */
void tp__memory_stages_act(const tp_config *c, const tp_params *P, const tp__stages *sg,
                           tp_memory *const *out, double *acts, bool *have);
/* Under DualPipe (memory.c header 4b): every pipeline rank's memory (its
 * two stages), rank 0 as stage_first, rank p-1 (the same pair) as
 * stage_last, the heaviest as r->memory. */
void tp__memory_dualpipe(const tp_config *c, const tp_params *P, tp_result *r, double *acts,
                         bool *have);

/**
 * An all-to-all on a group spanning nodes whose bytes per rank are split
 * apart: nvlink_bytes inside the destination nodes, nic_bytes through the
 * rank's own NIC, both at once (comm.c; the node-deduplicating dispatcher
 * of time_moe.c tp__time_ep). Seconds.
 */
double tp__a2a_split_time(const tp_gpu *g, tp_coll_model model, double nvlink_bytes,
                          double nic_bytes, const tp_group_place *pl);

/** Greatest common divisor of two positive counts. */
static inline int64_t tp__gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/**
 * The largest model-state or activation part of a memory breakdown (eval.c):
 * its name for the infeasibility reason, its bytes in *bytes. Shared by
 * tp_eval and the search's "closest misses".
 */
const char *tp__largest_mem_part(const tp_memory *m, double *bytes);

/* Hybrid models (hybrid.c design note): layer kinds are mixer * 3 + ffn.
 * Their paths are marked cold so that the transformer's hot path keeps its
 * inlining. */
#if defined(__GNUC__)
#define TP__COLD __attribute__((cold, noinline))
#else
#define TP__COLD
#endif
enum { TP__MIX_NONE = 0, TP__MIX_ATTN, TP__MIX_MAMBA, TP__MIX_GDN, TP__MIX_MAMBA1 };
enum { TP__FFN_NONE = 0, TP__FFN_DENSE, TP__FFN_MOE };
#define TP__KINDS 15
/* Parameters of one attention block (weights, biases, QK-norms, sinks). */
int64_t tp__attention_params(const tp_model *m);
int64_t tp__pattern_len(const tp_model *m);
/* MoE layers with index < n under a hybrid pattern (a loop: hybrid models only). */
int64_t tp__hybrid_moe_below(const tp_model *m, int64_t n);
/* A pattern with a layer other than 'A' (a pattern of 'A' is the transformer). */
bool tp__is_hybrid(const tp_model *m);
int tp__layer_kind(const tp_model *m, int64_t i);
int64_t tp__mamba_inner(const tp_model *m);
int64_t tp__mamba_in_width(const tp_model *m);
int64_t tp__mamba_params(const tp_model *m);
int64_t tp__gdn_key_dim(const tp_model *m);
int64_t tp__gdn_value_dim(const tp_model *m);
int64_t tp__gdn_params(const tp_model *m);
double tp__mamba_fwd_flops(const tp_model *m);
double tp__mamba_scan_flops(const tp_model *m);
double tp__gdn_fwd_flops(const tp_model *m);
double tp__gdn_core_flops(const tp_model *m);
int64_t tp__mamba1_params(const tp_model *m);
double tp__mamba1_fwd_flops(const tp_model *m);
double tp__mamba1_scan_flops(const tp_model *m);
double tp__mixer_act_bytes(const tp_model *m, int mixer, double *replicated);
tp_status tp__hybrid_validate(const tp_model *m, tp_error *err);
tp_status tp__hybrid_validate_config(const tp_config *c, tp_error *err);
double tp__hybrid_mixer_bound(const tp_model *m);
/* For the search's axes: g and the Mamba-2 / gated delta-net head counts'
 * gcd, and whether a CP size is modelled with that TP. */
int64_t tp__hybrid_head_gcd(const tp_model *m, int64_t g);
bool tp__hybrid_cp_ok(const tp_model *m, int64_t tp, int64_t cp);
void tp__hybrid_params(const tp_model *m, int64_t attn, int64_t mlp, int64_t expert, int64_t shared,
                       int64_t router, tp_params *p);
void tp__hybrid_shard(const tp_config *c, const tp_params *P, int64_t first, int64_t n,
                      double *dense, double *expert, double *largest);

/**
 * Step-time model (src/lib/time.c): fills r->time from the config, the
 * already computed r->params, r->flops, r->memory and r->stage_first and
 * r->stage_last (their layer counts are used), and the checked stages'
 * bounds sg (tp__stages_of of c; NULL: computed here). Validated input only.
 */
void tp__step_time(const tp_config *c, const tp__stages *sg, tp_result *r);

/* The vision tower (vision.c design note). */
typedef struct tp_vision_flops {
    double encoder;         /* forward FLOPs per sample: patch embedding and blocks */
    double projector;       /* forward FLOPs per sample: merger / projector */
    double cross;           /* forward FLOPs per sample all mllama cross layers add */
    double cross_per_layer; /* the same for one cross layer */
} tp_vision_flops;
/* Whether the model has a vision tower (inline: the evaluation's hot path). */
static inline bool tp__has_vision(const tp_model *m)
{
    return m->vision.layers > 0;
}
tp_status tp__vision_validate(const tp_model *m, tp_error *err);
void tp__vision_params(const tp_model *m, tp_params *p);
void tp__vision_flops(const tp_model *m, double s, bool causal, tp_vision_flops *out);
int64_t tp__vision_patch_in(const tp_vision *v);
int64_t tp__vision_proj_in(const tp_vision *v);
int64_t tp__vision_block_params(const tp_vision *v);
int64_t tp__vision_replicated_params(const tp_vision *v);
double tp__vision_span(const tp_vision *v);
/** An upper estimate of the tower's parameters in floating point (validation). */
double tp__vision_params_approx(const tp_model *m);
/** mllama cross-attention layers among language layers [first, first + n). */
int64_t tp__vision_cross_in(const tp_model *m, int64_t first, int64_t n);
double tp__vision_act_bytes(const tp_config *c);
double tp__vision_cross_act_bytes(const tp_config *c);

/* Return TP_ERR_INVALID_ARG at `path` when the integer `field` is outside
 * [lo, hi] (the validators of model.c, hybrid.c and vision.c; needs `err`). */
#define TP__CHECK_RANGE(field, path, lo, hi)                                                       \
    do {                                                                                           \
        if ((field) < (lo) || (field) > (hi))                                                      \
            return tp_error_set(err, TP_ERR_INVALID_ARG, path,                                     \
                                "%lld is out of range [%lld, %lld]", (long long)(field),           \
                                (long long)(lo), (long long)(hi));                                 \
    } while (0)

#endif
