/* SPDX-License-Identifier: MIT */
/**
 * tp.h: the public contract of libtp, the trainplan library.
 *
 * libtp turns a model, a cluster and a training setup into parameter
 * counts, FLOPs, per-GPU memory by component and step time by component.
 * It is pure computation: libc and libm only, no I/O, no globals, no
 * allocation during evaluation. If it is not in this header (and the
 * headers it includes at the bottom), it is not API.
 *
 * Conventions used everywhere:
 *  - Units are in the names: *_bytes (bytes, 1 GB = 1e9 B, 1 GiB = 2^30 B),
 *    *_s (seconds), *_flops (floating-point operations, a multiply-add is 2),
 *    *_flops_per_s, *_bytes_per_s (1 GB/s = 1e9 B/s, per direction unless
 *    the name says otherwise).
 *  - Exact counts (parameters) are int64_t; modelled quantities are double.
 *  - Every fallible function returns tp_status and fills an optional
 *    caller-owned tp_error (may be NULL). The library never prints or exits.
 *  - An infeasible configuration (does not fit in memory) is a result, not
 *    an error: tp_result.memory.fits is false and tp_result_reason() says why.
 *  - Thread safety: every function is reentrant; nothing is shared.
 */
#ifndef TP_TP_H
#define TP_TP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TP_API __attribute__((visibility("default")))
#else
#define TP_API
#endif

#define TP_VERSION_MAJOR 0
#define TP_VERSION_MINOR 1
#define TP_VERSION_PATCH 0
#define TP_VERSION_STRING "0.1.0"

/** Library version as "MAJOR.MINOR.PATCH"; static string. */
TP_API const char *tp_version_string(void);

/* ------------------------------------------------------------------ */
/* Units and limits: each written once, here                          */
/* ------------------------------------------------------------------ */

/* Bytes: trainplan prints both and labels both (DESIGN.md, rule 1). */
#define TP_GIB 1073741824.0 /* 2^30 bytes */
#define TP_GB 1e9           /* 10^9 bytes */

/*
 * The bounds of every size a configuration may hold: what the library
 * validates (tp_model_validate, tp_config_validate) and every front end
 * (CLI flags, model files, requests) checks against. They keep every int64
 * product and double of the computation finite.
 */
#define TP_MAX_GPUS 1048576 /* 2^20 GPUs */
#define TP_MAX_DIM 1048576  /* hidden, head_dim: 2^20 elements */
#define TP_MAX_FFN 16777216 /* ffn sizes: 2^24 elements */
#define TP_MAX_LAYERS 100000
#define TP_MAX_VOCAB 16777216 /* 2^24 tokens */
#define TP_MAX_EXPERTS 65536
#define TP_MAX_SEQ 134217728                    /* 2^27 tokens */
#define TP_MAX_BATCH 1099511627776              /* 2^40 sequences */
#define TP_MAX_PARAMS 1e15                      /* 1,000T parameters */
#define TP_MAX_GPUS_PER_NODE 1024               /* GPUs in one node (an NVLink domain) */
#define TP_MAX_TOKENS_PER_STEP 1000000000000000 /* 1e15 tokens in one step */
#define TP_MIN_EFF 1e-3         /* smallest efficiency factor (a fraction of a peak) */
#define TP_ATTN_SEQ_POINTS 16   /* points of a profile's attention rate by sequence length */
#define TP_MAX_SMS 100000.0     /* largest SM count of a hardware profile */
#define TP_MAX_GEMM_TILE 4096.0 /* largest GEMM tile side of a hardware profile */

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

typedef enum tp_status {
    TP_OK = 0,
    TP_ERR_INVALID_ARG, /* a value breaks a documented constraint (see path) */
    TP_ERR_PARSE,       /* input text is not valid JSON/CSV (line, column)   */
    TP_ERR_CONFIG,      /* valid syntax, invalid or missing field            */
    TP_ERR_UNKNOWN,     /* unknown preset / enum name                        */
    TP_ERR_RANGE,       /* a value so large the computation would overflow   */
    TP_ERR_NOMEM,
    TP_ERR_IO,       /* file could not be read or written (I/O layer)     */
    TP_ERR_INTERNAL, /* an invariant failed: a bug in trainplan           */
    TP_ERR_STOPPED   /* a long computation was stopped by its caller (a
                           deadline, a cancel) or at its documented bound    */
} tp_status;

/** Caller-owned error report, usually on the stack (jansson style). */
typedef struct tp_error {
    tp_status code;
    int line, column;  /* 1-based position in text input; 0 when not from text */
    char path[96];     /* offending field, e.g. "tp" or "model.num_heads"       */
    char message[384]; /* one sentence naming the value and the constraint      */
} tp_error;

/** Short static name of a status ("invalid-arg", ...); never NULL. */
TP_API const char *tp_strerror(tp_status code);

/**
 * The one elision rule for user values in messages: a value longer than
 * TP_ERR_VALUE_MAX bytes keeps its first TP_ERR_VALUE_MAX bytes (never half
 * a UTF-8 character) followed by "...", so the constraint after it stays
 * readable. Front ends apply it when they quote a value (src/io's
 * tp_io_quote); tp_error_set applies it, as a safety net, to every quoted
 * span and every longer word when the whole message would not fit
 * err->message (messages that fit are kept as formatted).
 */
#define TP_ERR_VALUE_MAX 60

/** Fill err (if non-NULL) and return code. printf-style message (see TP_ERR_VALUE_MAX). */
TP_API tp_status tp_error_set(tp_error *err, tp_status code, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ------------------------------------------------------------------ */
/* Enumerations                                                        */
/* ------------------------------------------------------------------ */

typedef enum tp_norm { TP_NORM_LAYERNORM = 0, TP_NORM_RMSNORM } tp_norm;
/** MLP kinds: GELU and squared ReLU (Primer; Nemotron) have two matrices, SwiGLU and GeGLU
 * (Gemma) a gate and three. */
typedef enum tp_mlp { TP_MLP_GELU = 0, TP_MLP_SWIGLU, TP_MLP_SQRELU, TP_MLP_GEGLU } tp_mlp;
typedef enum tp_pos { TP_POS_ROTARY = 0, TP_POS_LEARNED, TP_POS_ALIBI } tp_pos;
/** Rotary frequency scaling: none, Llama 3's (HF rope_type "llama3"), or
 *  another kind (yarn, linear, ...) that trainplan records but no export writes. */
typedef enum tp_rope_scaling {
    TP_ROPE_SCALING_NONE = 0,
    TP_ROPE_SCALING_LLAMA3,
    TP_ROPE_SCALING_OTHER
} tp_rope_scaling;

/** Norms on queries and keys: none, one weight of d_h each for q and k (Qwen3, Gemma 3), or
 * one over the full q and kv widths (OLMo2). */
typedef enum tp_qk_norm { TP_QK_NORM_NONE = 0, TP_QK_NORM_HEAD, TP_QK_NORM_FULL } tp_qk_norm;

/** Compute precision of the GEMMs (weights are held in 16 bits for all). */
typedef enum tp_precision {
    TP_PREC_BF16 = 0,
    TP_PREC_FP16,
    TP_PREC_FP8, /* fp8 GEMMs, bf16 weights/activations, fp32 master */
    TP_PREC_TF32,
    TP_PREC_COUNT
} tp_precision;

typedef enum tp_dtype { TP_DTYPE_FP32 = 0, TP_DTYPE_BF16, TP_DTYPE_FP16, TP_DTYPE_INT8 } tp_dtype;

typedef enum tp_optimizer_kind {
    TP_OPT_ADAMW = 0,    /* two moments */
    TP_OPT_SGD_MOMENTUM, /* one moment  */
    TP_OPT_SGD           /* no state    */
} tp_optimizer_kind;

typedef enum tp_schedule {
    TP_SCHED_1F1B = 0,
    TP_SCHED_INTERLEAVED, /* interleaved 1F1B with vpp virtual stages */
    TP_SCHED_GPIPE,
    TP_SCHED_DUALPIPE /* DeepSeek's bidirectional DualPipe (arXiv 2412.19437 section 3.2.1):
                         pipeline rank i holds stages i and pp-1-i; pp even, micro-batches
                         per step even and >= 2*pp, vpp 1 (config.c); never searched */
} tp_schedule;

/* How the layers go to the pipeline stages (config.c header). */
typedef enum tp_pp_split {
    TP_PP_SPLIT_MEGATRON = 0, /* L/pp each, the remainder one layer each to the middle stages,
                                 then the last, then the first; with vpp > 1, pp*vpp divides L */
    TP_PP_SPLIT_IN_ORDER      /* pp*vpp virtual stages of L/(pp*vpp) layers, the first
                                 L mod (pp*vpp) one more; virtual stage j on stage j mod pp
                                 (torch.distributed.pipelining as NeMo AutoModel splits) */
} tp_pp_split;

typedef enum tp_recompute {
    TP_RECOMPUTE_NONE = 0,
    TP_RECOMPUTE_SELECTIVE, /* attention core only (Korthikanti et al. 2022) */
    TP_RECOMPUTE_FULL       /* store layer inputs, recompute every layer       */
} tp_recompute;

/** Attention-core FLOP convention (formulas.md 2.5). */
typedef enum tp_attn_flops {
    /* causal mask halves QK^T and AV (default: what FlashAttention executes) */
    TP_ATTN_FLOPS_CAUSAL = 0,
    /* no causal discount (PaLM, torchtitan, Megatron before 2025) */
    TP_ATTN_FLOPS_FULL
} tp_attn_flops;

/** Activation-memory accounting (formulas.md 3.3). */
typedef enum tp_act_model {
    TP_ACT_DETAILED = 0, /* per-tensor count for the actual layer (SwiGLU, GQA, flash, dropout) */
    TP_ACT_KORTHIKANTI   /* s*b*h*(34 + 5*a*s/h) / t for every layer (seed 001 convention)       */
} tp_act_model;

/** How recompute groups are charged (seed 001 uses the approximation). */
typedef enum tp_ckpt_model {
    TP_CKPT_EXACT = 0, /* (L/k) stored inputs of 2*s*b*h bytes + k layers of working set */
    TP_CKPT_SEED001    /* (L/k + k) * per-layer activations (seed 001 simplification)   */
} tp_ckpt_model;

/** Collective cost convention (seed 001 S1-4 uses volume / bandwidth). */
typedef enum tp_coll_model {
    TP_COLL_RING = 0, /* alpha-beta ring: all-reduce moves 2(n-1)/n of the buffer */
    TP_COLL_SIMPLE    /* volume / bandwidth, no ring factor, no latency           */
} tp_coll_model;

/** Pipeline-bubble fraction convention, both are always reported. */
typedef enum tp_bubble_def {
    TP_BUBBLE_OF_TOTAL = 0, /* (p-1)/(m+p-1): idle share of the step      */
    TP_BUBBLE_OF_IDEAL      /* (p-1)/m: idle time relative to ideal time  */
} tp_bubble_def;

/* ------------------------------------------------------------------ */
/* Model                                                               */
/* ------------------------------------------------------------------ */

#define TP_NAME_MAX 64
#define TP_PATTERN_MAX 256 /* layer_pattern: at most 255 characters */

/**
 * A vision encoder beside the language model (vision.c design note): a ViT
 * of `layers` blocks over image patches, then a merger/projector into the
 * language model's width; Llama 3.2 Vision (mllama) adds cross-attention
 * layers to the language model instead of image tokens in its sequence.
 * layers 0 = no vision tower (a text model; every other field must be 0).
 * It sits on pipeline stage 0, before the first language layer; tensor
 * parallelism splits its attention and MLP like the language layers'.
 */
typedef struct tp_vision {
    int64_t layers;       /* encoder blocks (0: no vision tower)                        */
    int64_t hidden;       /* encoder width h_v                                          */
    int64_t heads;        /* encoder attention heads (multi-head: kv heads = heads)     */
    int64_t ffn_hidden;   /* encoder MLP width f_v                                      */
    tp_mlp mlp;           /* gelu (CLIP, SigLIP, mllama, Qwen2-VL), swiglu (Qwen2.5-VL) */
    tp_norm norm;         /* layernorm (with bias) or rmsnorm (Qwen2.5-VL)              */
    bool attn_bias;       /* biases on q, k, v and the output projection                */
    bool mlp_bias;        /* biases on the MLP linears                                  */
    bool patch_bias;      /* bias of the patch-embedding convolution                    */
    bool class_token;     /* a learned class token per tile (mllama)                    */
    int64_t channels;     /* image channels (0 -> 3)                                    */
    int64_t patch;        /* patch side in pixels                                       */
    int64_t temporal;     /* frames per patch, Qwen2-VL's Conv3d (0 -> 1)               */
    int64_t positions;    /* learned position-table rows (0: rotary, none learned)      */
    int64_t tiles;        /* mllama: tiles per image (0 -> 1)                           */
    int64_t aspect_ids;   /* mllama: rows of the aspect-ratio tables (0: none)          */
    int64_t gated_layers; /* mllama: layers with two tanh gates (the global ones)      */
    int64_t final_norms;  /* norms of h_v after the encoder (SigLIP 1, mllama 2)        */
    int64_t image_size;   /* fixed image side in pixels (0: dynamic resolution)        */
    int64_t window;       /* Qwen2.5-VL: patches a windowed layer attends (0: none)    */
    int64_t full_layers;  /* Qwen2.5-VL: layers with full attention besides the windows */
    /* merger / projector into the language model */
    int64_t merge;        /* patches merged into one language token (Qwen 4, Gemma 3 16) */
    int64_t proj_in;      /* projector input width (0 -> hidden x merge)                */
    int64_t proj_hidden;  /* projector MLP width (0: one linear)                        */
    int64_t proj_hidden2; /* a second projector MLP width (0: none): in -> proj_hidden ->
                             proj_hidden2 -> language width, three linears (Llama 4's
                             pixel-shuffle MLP and projector)                           */
    bool proj_bias;       /* biases on the projector linears                            */
    int64_t proj_norm;    /* width of the norm before the projector (0: none)           */
    tp_norm proj_norm_kind;
    int64_t extra_vocab; /* rows the language embedding adds for image tokens (mllama 8) */
    /* mllama cross-attention: language layer i is a cross-attention layer when
     * i >= cross_first and (i - cross_first) % cross_every == 0 */
    int64_t cross_every; /* 0: no cross-attention layers                              */
    int64_t cross_first;
    /* Training settings: they travel with the tower they describe */
    int64_t image_tokens; /* encoder patches per sample (0: text-only samples)        */
    bool frozen;          /* encoder frozen (no gradients or optimizer state; the
                             projector stays trainable)                               */
} tp_vision;

/**
 * A decoder-only transformer. Sizes in elements; counts are plain.
 * head_dim 0 means hidden / num_heads. num_kv_heads 0 means num_heads.
 * MoE: num_experts 0 means dense. The first moe_first_dense layers are
 * dense, then every moe_layer_freq-th layer is MoE (1 = all of them).
 */
typedef struct tp_model {
    char name[TP_NAME_MAX];
    tp_norm norm;
    tp_mlp mlp;
    tp_pos pos;
    bool linear_bias;      /* biases on QKV, output and MLP linears (GPT-2/3) */
    bool tie_embeddings;   /* output head shares the input embedding          */
    bool qkv_bias;         /* bias on QKV only (Qwen2); ignored if linear_bias */
    int64_t num_layers;    /* L */
    int64_t hidden;        /* h */
    int64_t num_heads;     /* a */
    int64_t num_kv_heads;  /* n_kv (0 -> a) */
    int64_t head_dim;      /* d_h (0 -> h/a) */
    int64_t ffn_hidden;    /* f, dense MLP intermediate size */
    int64_t vocab;         /* V, true vocabulary */
    int64_t max_positions; /* learned position table size (TP_POS_LEARNED only) */
    /* mixture of experts */
    int64_t num_experts;        /* E routed experts (0 = dense model) */
    int64_t topk;               /* k experts per token */
    int64_t moe_ffn_hidden;     /* f_e per expert (0 -> ffn_hidden) */
    int64_t num_shared_experts; /* shared experts, moe_ffn_hidden wide unless shared_ffn_hidden */
    int64_t shared_ffn_hidden;  /* total width of the shared experts (0 -> num_shared * f_e) */
    int64_t moe_first_dense;    /* leading dense layers (DeepSeek-style) */
    int64_t moe_layer_freq;     /* every n-th layer after those is MoE (0/1 -> all) */
    /* What an engine needs to build the same model; none changes the count
     * or the estimate. 0 = not recorded (the engine's default applies). */
    double rope_theta;            /* rotary base (HF rope_theta) */
    double norm_eps;              /* norm epsilon (HF rms_norm_eps, layer_norm_eps) */
    tp_rope_scaling rope_scaling; /* rotary frequency scaling */
    double rope_factor;           /* llama3: factor */
    double rope_low_freq_factor;  /* llama3: low_freq_factor (0 -> 1) */
    double rope_high_freq_factor; /* llama3: high_freq_factor (0 -> 4) */
    int64_t rope_original_max;    /* llama3: original_max_position_embeddings (0 -> 8192) */
    /* Architecture features of 2024-26 models (model.c design note); zero = off,
     * so a zeroed struct keeps the plain layer above. */
    int64_t kv_lora_rank;       /* MLA: compressed KV width c (> 0 turns MLA on)           */
    int64_t q_lora_rank;        /* MLA: compressed query width (0: q projected from h)     */
    int64_t qk_rope_head_dim;   /* MLA: decoupled RoPE dims per head (one shared k_rope)   */
    int64_t qk_nope_head_dim;   /* MLA: position-free q/k dims per head                    */
    int64_t v_head_dim;         /* MLA: value dims per head                                */
    int64_t mtp_layers;         /* multi-token prediction modules (DeepSeek-V3: 1)         */
    int64_t sliding_window;     /* local attention window in tokens (0: none)              */
    int64_t global_every;       /* with a window: layer i is global when (i+1) % n == 0
                                 (0: every layer is local; Gemma 2: 2, Gemma 3: 6)     */
    tp_qk_norm qk_norm;         /* norms on q and k (Qwen3, Gemma 3: per head; OLMo2: full) */
    bool router_bias;           /* a bias of E per router (gpt-oss; DeepSeek-V3's score
                                 correction bias)                                        */
    bool attn_sinks;            /* a learned sink logit per head per layer (gpt-oss)       */
    bool attn_out_bias;         /* bias on q, k, v and o, none on the MLP (gpt-oss attention;
                                 linear_bias already implies it)                          */
    bool norm_no_bias;          /* LayerNorm without its bias (DBRX, OLMo): h per norm      */
    int64_t norms_per_layer;    /* norms in one layer (0 -> 2; Gemma 2/3: 4, pre and post)  */
    double moe_imbalance;       /* routed tokens of the busiest EP rank over the mean
                                 (0 -> 1: balanced, the default assumption)             */
    double moe_capacity_factor; /* expert capacity in means (0: dropless); tokens over it
                                   are dropped, so the busiest rank does min(imbalance, cf) */
    int64_t moe_router_groups;  /* group-limited routing: the experts in equal groups
                                   (DeepSeek-V3 n_group 8; 0: none)                        */
    int64_t moe_group_topk;     /* the groups a token's experts come from (topk_group 4)   */
    /* Vision-language models and Falcon (issue 16, vision.c design note) */
    tp_vision vision;   /* the vision tower (vision.layers 0: none)                 */
    bool parallel_attn; /* attention and MLP read the same input (Falcon, GPT-J):
                           one TP all-reduce per layer each way instead of two       */
    /* Hybrid models (src/lib/hybrid.c design note): Mamba-2 and gated delta-net
     * layers mixed with attention by an explicit per-layer pattern. An empty
     * pattern keeps every layer attention + MLP/MoE, the transformer above. */
    char layer_pattern[TP_PATTERN_MAX]; /* one character per layer (repeated when shorter; its
                                           length divides num_layers): 'A' attention + MLP,
                                           'L' gated delta-net + MLP, 'S' Mamba-1 + MLP
                                           (Jamba; the MLP of A, L, S is MoE by the MoE
                                           fields), and Megatron's one-sublayer symbols 'M'
                                           Mamba-2, 'G' gated delta-net, '*' attention, '-'
                                           MLP, 'E' MoE                                   */
    int64_t mamba_heads;     /* Mamba-2 heads n_m (d_inner = n_m * P)                   */
    int64_t mamba_head_dim;  /* Mamba-2 head dim P                                      */
    int64_t mamba_groups;    /* Mamba-2 groups n_g of B and C                           */
    int64_t mamba_state;     /* Mamba-2 state size N per group                          */
    int64_t mamba_conv;      /* Mamba-2 causal conv1d kernel width (0 -> 4)             */
    int64_t gdn_k_heads;     /* gated delta-net key (and query) heads                   */
    int64_t gdn_v_heads;     /* gated delta-net value heads                             */
    int64_t gdn_k_head_dim;  /* gated delta-net key head dim                            */
    int64_t gdn_v_head_dim;  /* gated delta-net value head dim                          */
    int64_t gdn_conv;        /* gated delta-net conv1d kernel width (0 -> 4)            */
    int64_t mamba1_inner;    /* Mamba-1 (Jamba) inner width d_in = expand * h ('S')     */
    int64_t mamba1_dt_rank;  /* Mamba-1 dt rank r (its state: mamba_state, conv:
                                mamba_conv)                                             */
    bool attn_output_gate;   /* sigmoid output gate on attention: q_proj twice as wide
                                (Qwen3-Next)                                            */
    bool shared_expert_gate; /* a 1-wide sigmoid gate h x 1 on the shared experts
                                (Qwen2-MoE, Qwen3-Next)                                 */
    int64_t attention_chunk; /* chunked attention (Llama 4 attention_chunk_size): a token
                                sees the earlier tokens of its own chunk only (0: none);
                                global_every applies as to a window; not with one */
} tp_model;

/** Parameter counts by component, exact. */
typedef struct tp_params {
    int64_t embedding;       /* V*h input table (+ learned positions) */
    int64_t output_head;     /* V*h if untied, else 0 */
    int64_t attention;       /* all layers */
    int64_t mlp_dense;       /* all dense MLPs */
    int64_t moe_routed;      /* all routed experts */
    int64_t moe_shared;      /* all shared experts */
    int64_t router;          /* all routers */
    int64_t norms;           /* all norm weights (+ biases), incl. final norm */
    int64_t total;           /* sum of the above */
    int64_t active;          /* parameters touched per token (k of E experts) */
    int64_t per_layer_dense; /* one dense layer (attention + MLP + norms) */
    int64_t per_layer_moe;   /* one MoE layer, all experts */
    int64_t num_moe_layers;
    int64_t mtp;        /* multi-token prediction modules (in total; DeepSeek's published
                           671B excludes them), embedding and head shared with the model */
    int64_t mtp_routed; /* the routed experts among mtp */
    /* vision-language (vision.c): part of total; active counts them all */
    int64_t vision;           /* encoder, patch and position embeddings, final norms */
    int64_t vision_projector; /* merger / projector (trainable even when frozen)     */
    int64_t vision_text;      /* language-side additions: cross-attention norms and
                                 gates, extra embedding rows for image tokens        */
    int64_t mixers;           /* hybrid models: all Mamba and gated delta-net mixers
                                 (their own norms included; the layers' pre-norms are in
                                 norms) */
} tp_params;

/** mllama cross-attention layers among the language layers (0 without a vision tower). */
TP_API int64_t tp_model_num_cross_layers(const tp_model *m);

/** Number of MoE layers under the model's layer pattern. */
TP_API int64_t tp_model_num_moe_layers(const tp_model *m);

/** Whether the model is a hybrid: its layer_pattern has a layer other than 'A' (attention +
 *  MLP), a Mamba-2, gated delta-net, attention-only, MLP-only or MoE-only layer. */
TP_API bool tp_model_is_hybrid(const tp_model *m);

/** Validate the model's fields; on failure err->path names the field ("model.num_heads"). */
TP_API tp_status tp_model_validate(const tp_model *m, tp_error *err);

/**
 * Exact parameter count by component with the model's true vocabulary
 * (formulas.md section 1). Validates first. pad_vocab_to: 0 or 1 for the
 * true V, else V is rounded up to a multiple of it (Megatron: 128 * tp).
 */
TP_API tp_status tp_model_params(const tp_model *m, int64_t pad_vocab_to, tp_params *out,
                                 tp_error *err);

/* ------------------------------------------------------------------ */
/* Hardware                                                            */
/* ------------------------------------------------------------------ */

/**
 * Efficiency factors of one GPU type: achieved fraction of the datasheet
 * figures. They are calibrated on runs-dev.csv (see docs/ACCURACY.md) and
 * every default lives in src/lib/calib.c with its provenance.
 */
typedef struct tp_gpu_eff {
    double gemm;          /* large-GEMM achieved fraction of dense peak (0..1] */
    double gemm_fp8;      /* large-GEMM achieved fraction of the fp8 dense peak (0..1]; 0 -> gemm */
    double gemm_half_dim; /* GEMM intensity 1/(1/M+1/N+1/K) (elements) at which efficiency halves */
    double attn;          /* FlashAttention achieved fraction of dense peak */
    double attn_ampere_kernel; /* attn factor of an attention kernel written for Ampere
                                * on this GPU, under opts.attn_ampere_kernel (1 on Ampere);
                                * 0 -> 1 */
    double mem_bw;             /* achieved fraction of HBM bandwidth for element-wise work */
    double intra_bw;           /* achieved busbw fraction of the intra-node link */
    double inter_bw;           /* achieved busbw fraction of the NIC */
    double intra_lat_s;        /* per-step collective latency inside a node */
    double inter_lat_s;        /* per-step collective latency across nodes */
    double overlap;            /* fraction of overlappable communication actually hidden */
    /* Kernel-level GEMM model (issue 17, docs/model.md 1b): used when
     * sm_count > 0 and mamf > 0, which a hardware profile sets
     * (--hw-profile, data/hardware/); then gemm and gemm_half_dim are unused. */
    double sm_count; /* streaming multiprocessors (CUs on AMD); 0 = no shape model */
    double tile_m;   /* output tile rows of the GEMM kernels (elements); 0 -> 128 */
    double tile_n;   /* output tile columns (elements); 0 -> 256 */
    double mamf;     /* maximum achievable matmul rate, 16-bit, fraction of the dense peak */
    double mamf_fp8; /* the same for fp8, fraction of the fp8 peak; 0 -> mamf */
    double gemm_sw;  /* share of the kernel rate a training step sustains; 0 -> 1 */
    /* Kernel-level attention (docs/model.md 2): the best attention kernel's
     * forward rate, 16-bit, as a fraction of the dense peak, from a hardware
     * profile (0 = none); tp_gpu_profile_eff derives attn from it. */
    double attn_kernel;
    /* Host-bound MoE layers (docs/model.md 2b): the host time to issue one
     * MoE layer's forward and backward for one micro-batch, a base and a
     * share per local expert, seconds; a dropless layer synchronises with
     * the host and takes at least that (0 = no floor). */
    double moe_host_layer_s;
    double moe_host_expert_s;
    /* The attention kernels' rate by the tokens a kernel call sees (docs/
     * model.md 2), from a hardware profile's attention sweep: attn_seq_n
     * points (0, or 2 to TP_ATTN_SEQ_POINTS), tokens increasing, the rate
     * there (forward and backward in the 1 : 2.5 FLOP ratio) over the
     * sweep's best, in (0, 1]; 0 points: the FlashAttention-3 paper's
     * shape (kernel.c). */
    int attn_seq_n;
    double attn_seq_tokens[TP_ATTN_SEQ_POINTS];
    double attn_seq_rel[TP_ATTN_SEQ_POINTS];
} tp_gpu_eff;

typedef struct tp_gpu {
    char name[TP_NAME_MAX];
    double peak_flops_per_s[TP_PREC_COUNT]; /* dense (no sparsity); 0 = unsupported */
    double mem_capacity_bytes;              /* usable HBM as the driver reports it */
    double mem_bw_bytes_per_s;              /* HBM bandwidth */
    double intra_bw_bytes_per_s;            /* intra-node link per GPU per direction (line rate) */
    double inter_bw_bytes_per_s;            /* scale-out NIC bandwidth per GPU per direction */
    int64_t gpus_per_node;                  /* size of the fast intra-node domain */
    double price_per_gpu_hour;              /* USD, default list/cloud price */
    tp_gpu_eff eff;
    /* Dense FP4 tensor-core peak (NVFP4, Blackwell); 0: the GPU has neither
     * FP4 nor the block-scaled (MXFP8, NVFP4) tensor-core formats. */
    double peak_fp4_flops_per_s;
    /* The hardware profile whose GEMM part eff holds (data/hardware/NAME.json,
     * docs/hardware.md), empty when none: what the reports name. Set and
     * cleared by the I/O layer with eff.sm_count, tile and mamf; libtp
     * never reads it. */
    char hw_profile[TP_NAME_MAX];
    /* The host side of the GPU's system, as its preset states it (0: not
     * stated): the GPU<->host link per GPU per direction, achieved (PCIe,
     * or NVLink-C2C on a Grace superchip), the host memory of one node
     * of gpus_per_node GPUs and that memory's achieved bandwidth (the CPU
     * optimizer's). The I/O layer makes them the defaults of
     * opts.pcie_bw_bytes_per_s, opts.host_mem_bytes_per_node and
     * opts.host_mem_bw_bytes_per_s (tp_io_host_defaults); libtp reads only
     * the options. */
    double host_link_bytes_per_s;
    double host_mem_bytes_per_node;
    double host_mem_bw_bytes_per_s;
    /* CUDA compute capability, major x 10 + minor (H100: 90, B200: 100);
     * 0: not stated (not an NVIDIA GPU, or a GPU file without it). Decides
     * whether fp8 GEMMs take every layout (memory.c header 2). */
    int compute_capability;
} tp_gpu;

/** Validate a GPU description (all sizes > 0, finite). */
TP_API tp_status tp_gpu_validate(const tp_gpu *g, tp_error *err);

/** Fill g->eff with the calibrated defaults for a GPU of this kind. */
TP_API void tp_gpu_default_eff(tp_gpu *g);

/** The calibrated constants of the kernel-level GEMM model (a hardware
 *  profile, docs/hardware.md): eff.gemm_sw, and the attention and overlap
 *  fractions fitted with it. Leaves the profile's measured fields alone. */
TP_API void tp_gpu_profile_eff(tp_gpu *g);

/* ------------------------------------------------------------------ */
/* Training setup and parallel layout                                  */
/* ------------------------------------------------------------------ */

typedef struct tp_optimizer {
    tp_optimizer_kind kind;
    tp_dtype moment_dtype; /* FP32 (default), BF16, or INT8 (block-wise 8-bit) */
    bool master_weights;   /* fp32 master copy of the 16-bit weights (default true) */
} tp_optimizer;

/** Parallel layout and training setup of one run. */
typedef struct tp_train {
    int64_t num_gpus;       /* total GPUs */
    int64_t gpus_per_node;  /* 0 -> the GPU's default */
    int64_t tp, pp, cp, ep; /* tensor, pipeline, context, expert parallel sizes (>= 1) */
    int64_t vpp;            /* virtual stages per GPU (interleaved schedule), >= 1 */
    bool sp;                /* Megatron sequence parallelism (with tp > 1) */
    int zero;               /* 0..3 (FSDP = 3; Megatron distributed optimizer = 1) */
    tp_schedule schedule;
    int64_t first_stage_layers; /* uneven split: layers on stage 0 (0 = even) */
    int64_t last_stage_layers;  /* uneven split: layers on the last stage (0 = even) */
    tp_pp_split pp_split;       /* where the layers pp*vpp does not divide go (default MEGATRON) */
    tp_recompute recompute;
    int64_t recompute_every; /* full recompute: layers per checkpoint group k (>= 1) */
    int64_t seq_len;         /* s, tokens */
    int64_t micro_batch;     /* b, sequences per micro-batch */
    int64_t global_batch;    /* B, sequences per optimizer step */
    tp_precision precision;
    tp_dtype grad_dtype; /* BF16 (default) or FP32 main grads */
    tp_optimizer optimizer;
    bool flash_attn;      /* default true */
    bool dropout;         /* dropout masks stored (default false, Llama-style) */
    bool fused_ce;        /* fused/chunked cross-entropy: no full logits tensor */
    int64_t pad_vocab_to; /* 0/1 none; else round V up to a multiple of this */
    /* MoE parallel folding (Megatron-Core): the expert layers have their own
     * layout, ETP x EP x EDP x PP = num_gpus, chosen apart from the dense
     * TP x CP x DP x PP. 0 -> tp (Megatron's default). */
    int64_t etp; /* expert tensor-parallel size (0 -> tp) */
    /* FP8 parameter gather (Megatron --fp8-param-gather, TransformerEngine
     * fp8 weights): the model's weights are held in fp8, 1 B per parameter,
     * and the distributed optimizer / FSDP all-gathers them in fp8; the fp32
     * master copy stays in the optimizer. Needs precision fp8 and ZeRO >= 1. */
    bool fp8_param_gather;
    /* Megatron-Core's --recompute-modules under selective recompute: a set
     * of TP_RC_* bits; 0 means Megatron's default, the core attention only. */
    unsigned recompute_modules;
    /* Optimizer CPU offload (ZeRO-Offload, Ren et al. 2021; Megatron-Core
     * --optimizer-cpu-offload --optimizer-offload-fraction): this fraction
     * [0, 1] of the optimizer state (fp32 master + moments) lives in host
     * memory and is updated by the CPU; each step the gradients go down and
     * the updated 16-bit weights come back over the host link. Needs ZeRO >= 1. */
    double offload_optimizer;
    /* Megatron --recompute-method block --recompute-num-layers N: under full
     * recompute only the first N layers of each pipeline stage are
     * recomputed (in groups of recompute_every), the others store all their
     * activations. 0: every layer (Megatron's uniform method). */
    int64_t recompute_layers;
    /* Parameter offload (ZeRO-Infinity offload_param, Rajbhandari et al.
     * 2021; FSDP2 CPUOffloadPolicy): this GPU's ZeRO-3 shard of the 16-bit
     * weights lives on the host (TP_OFFLOAD_CPU) or on the node's NVMe
     * drives (TP_OFFLOAD_NVME) and is fetched over the host link for every gather;
     * with the optimizer offloaded too (offload_optimizer = 1) the
     * gradient shard goes to the host as well. Needs ZeRO 3. */
    int offload_params; /* tp_offload_device */
    /* Activation offload (Megatron-Core --cpu-offloading-num-layers N,
     * TransformerEngine CPU offload): the activations of N layers go to the
     * host after their forward and come back before their backward. Needs
     * pp 1, no recompute and N < layers (Megatron-Core transformer_config). */
    int64_t offload_act_layers;
    /* Low-precision GEMM recipe under precision fp8 (tp_fp8_recipe):
     * delayed (default), tensorwise current scaling, MXFP8 or NVFP4 (both
     * Blackwell block scaling; NVFP4 runs the GEMMs at the fp4 peak). */
    int fp8_recipe;
    /* Packed sequences with per-example attention (NeMo's
     * GPTSFTPackedDataset through TransformerEngine's THD format and
     * cu_seqlens): each seq_len-token sequence holds examples of
     * packed_seq_len tokens and a token attends only within its own, so
     * the attention core of a sequence costs seq_len * packed_seq_len,
     * not seq_len^2 (model FLOPs too). 0: off, one document per
     * sequence; else in [1, seq_len]. */
    int64_t packed_seq_len;
    /* Local batch: sequences per data-parallel rank in one run of the
     * training loop's forward-backward, the pipeline schedule's micro-batches
     * under pp > 1. torchtitan (training.local_batch_size) and NeMo AutoModel
     * (step_scheduler.local_batch_size) accumulate gradients over
     * global_batch / (local_batch * dp) runs, and each run fills and drains
     * the pipeline: that many bubbles per step. 0: global_batch / dp, every
     * micro-batch of the step in one schedule (Megatron, DeepSpeed). Else a
     * multiple of micro_batch that divides global_batch / dp. */
    int64_t local_batch;
} tp_train;

/* tp_train.offload_params */
typedef enum tp_offload_device {
    TP_OFFLOAD_NONE = 0,
    TP_OFFLOAD_CPU,
    TP_OFFLOAD_NVME
} tp_offload_device;

/* tp_train.fp8_recipe (Megatron --fp8-recipe, --fp4-recipe) */
typedef enum tp_fp8_recipe {
    TP_FP8_DELAYED = 0, /* per-tensor delayed scaling (amax history): today's fp8 model */
    TP_FP8_TENSORWISE,  /* per-tensor current scaling: an amax pass before each cast */
    TP_FP8_MXFP8,       /* MXFP8: E4M3 with one E8M0 scale per 32 elements (Blackwell) */
    TP_FP8_NVFP4        /* NVFP4: E2M1 with an E4M3 scale per 16 elements (Blackwell) */
} tp_fp8_recipe;

/* tp_train.recompute_modules bits (Megatron-Core transformer_config.py
 * recompute_modules); each names what is recomputed, not stored. */
#define TP_RC_CORE_ATTN 1u       /* "core_attn": the attention scores (no-op with flash) */
#define TP_RC_LAYERNORM 2u       /* "layernorm": the two norms' outputs */
#define TP_RC_MLP 4u             /* "mlp": the dense MLP (its input kept) */
#define TP_RC_MOE 8u             /* "moe": the whole MoE MLP, dispatch included */
#define TP_RC_MOE_ACT 16u        /* "moe_act": the experts' activation function */
#define TP_RC_SHARED_EXPERTS 32u /* "shared_experts": the shared experts */
#define TP_RC_MLA_UP_PROJ 64u    /* "mla_up_proj": MLA's up-projection and RoPE outputs */
#define TP_RC_ALL 127u

/** Convention switches and calibrated memory overheads (one place). */
typedef struct tp_options {
    tp_attn_flops attn_flops;
    tp_act_model act_model;
    tp_ckpt_model ckpt_model;
    tp_coll_model coll_model;
    bool tp_comm_overlap;         /* TP collectives overlapped with the GEMMs (Megatron
                                    --tp-comm-overlap, torchtitan async TP); default false */
    bool tp_overlap_chunked;      /* with tp_comm_overlap: TransformerEngine's userbuffers split
                                    each TP collective into TP chunks pipelined with its GEMM
                                    or run it beside an independent GEMM (time.c
                                    tp_exposed); default false: up to eff.overlap hidden */
    bool eager_elementwise;       /* the element-wise ops run as PyTorch eager kernels, one HBM
                                    pass each (torchtitan without torch.compile: its RMSNorm,
                                    rotary, repeat_kv and SwiGLU; time.c header 3); default
                                    false: fused (TransformerEngine, torch.compile) */
    bool eager_experts;           /* the routed experts' activation, routing-weight product and
                                    (with linear_bias) biases run as PyTorch eager kernels, one
                                    HBM pass each (NeMo AutoModel's gpt-oss experts:
                                    quick_geglu_deepep, _apply_bias; time.c header 3); default
                                    false: one fused kernel */
    bool dp_comm_overlap;         /* gradient reduction, parameter gathers and ZeRO-3 prefetch
                                    overlapped with compute (DDP buckets, --overlap-grad-reduce,
                                    FSDP); default true */
    bool sac_ops;                 /* selective recompute is per-op SAC (torchtitan): keeps the
                                    block input, every other matmul output and the attention
                                    output, recomputes the rest; default false (Megatron:
                                    selective = the attention core only) */
    double extra_param_bytes;     /* bytes per parameter of unsharded framework buffers beyond
                                    weights, gradients and optimizer state, counted with the
                                    gradients (DeepSpeed BF16_Optimizer keeps 16-bit gradients
                                    beside its fp32 accumulation buffer; Megatron: 0, default) */
    double ce_bytes_per_logit;    /* loss peak per logit element when the cross-entropy is
                                    not fused: fp32 logits, log-probabilities, gradient
                                    (default 12; Megatron's vocab-parallel loss: 4) */
    double ce_bytes_per_logit_tp; /* the same at TP > 1, where the logits are sharded over the
                                    vocabulary: torchtitan's loss parallel holds 16 (its DTensor
                                    or autograd cross-entropy keeps fp32 log-probabilities and
                                    builds the gradient in eager fp32 tensors); 0 (default):
                                    ce_bytes_per_logit at every TP */
    bool pp_scatter_gather;       /* pipeline p2p tensors sharded over the TP group (Megatron's
                                    scatter/gather optimisation; implied by SP); default true,
                                    DeepSpeed's pipeline engine sends them whole */
    double cuda_context_bytes;    /* CUDA context + kernels resident per GPU */
    double comm_buffer_bytes;     /* NCCL buffers per communicator */
    double fragmentation;         /* allocator reserve as a fraction of dynamic memory */
    double zero3_prefetch_layers; /* gathered layers resident under ZeRO-3 */
    bool attn_ampere_kernel;      /* attention runs a kernel written for Ampere (FlashAttention-2,
                                    2023 triton) on a Hopper or newer GPU: it reaches 1/1.75 of
                                    the Hopper-native rate (Shah et al. 2024); default false */
    bool unfused_full_matrix;     /* without FlashAttention, charge the whole s x s matrix (the
                                    batched GEMMs and the mask compute and store the masked
                                    half too: time.c unfused_attention); default false, the
                                    causal half (issue 17: opt-in, docs/ACCURACY.md) */
    bool grouped_gemm;            /* the local routed experts' FC1 (and FC2) as one grouped
                                    GEMM whose tiles share the waves (time.c experts_gemm_s;
                                    kernel-level model only); default false, one GEMM per
                                    expert (issue 17: opt-in, docs/ACCURACY.md) */
    bool tp_gathered_input;       /* with SP, the column-parallel linears save the input they
                                    all-gather (the QKV and FC1 inputs, fp8 under fp8, and the
                                    output head's bf16 input) whole, as torchtitan's DTensor TP
                                    does; default false: Megatron saves the sequence shard and
                                    re-gathers it in the backward */
    bool moe_sync_free;           /* the MoE layers never wait on the host (a CUDA graph over a
                                    sync-free dispatcher): no host floor (time.c moe_layer,
                                    eff.moe_host_*); default false */
    bool moe_a2a_overlap;         /* EP all-to-all of one micro-batch hidden behind the
                                    computation of another (Megatron-Core
                                    --overlap-moe-expert-parallel-comm, the combined 1F1B
                                    schedule; time.c ep_overlap_part); default false */
    bool moe_node_dispatch;       /* the EP dispatcher sends a token once to each destination
                                    GPU, across nodes once to each destination node over the
                                    inter-node network and over NVLink once to each GPU there
                                    (DeepEP, HybridEP, DeepSeek-V3's all-to-all; time_moe.c
                                    ep_node_a2a); default false: one copy per routed expert */
    bool fp8_act_cache;           /* under fp8, the activations kept for the backward of the
                                    linear layers are cached in fp8 with a fp32 scale per
                                    1x128 tile, the attention output in 12-bit E5M6, and a
                                    MoE MLP keeps its activation's input in fp8 and recomputes
                                    the output (DeepSeek-V3 report section 3.3.3; memory.c
                                    header 3); default false: TransformerEngine's
                                    storage, or 16 bits with fp8_hp_saved_inputs */
    bool fp8_hp_saved_inputs;     /* under fp8, the linear layers save their 16-bit inputs
                                    for the backward (torchao's Float8Linear, torchtitan's
                                    profile); default false: TransformerEngine saves the
                                    quantized copy (memory.c te_fp8_saving) */
    bool fp8_weight_cache;        /* under fp8 with TransformerEngine (not fp8_hp_saved_inputs
                                    or fp8_act_cache), the fp8 copies of the linear weights
                                    live through the step: Megatron-Core's is_first_microbatch
                                    cache, and a fp8 weight's transpose (Hopper) or
                                    column-wise copy (MXFP8, NVFP4) (memory.c header 2);
                                    default true; false: transient per layer (TE called
                                    without is_first_microbatch; Megatron-Core's
                                    disable_parameter_transpose_cache) */
    /* The host side of offload (tp_train.offload_optimizer, offload_params,
     * offload_act_layers) */
    double host_mem_bytes_per_node; /* host memory the offloaded state may use per node
                                        (0: not checked); default 2 TB (DGX H100) */
    double pcie_bw_bytes_per_s;     /* achieved GPU<->host bandwidth per GPU per direction */
    double host_mem_bw_bytes_per_s; /* achieved CPU memory bandwidth per node (CPU Adam) */
    double nvme_bw_bytes_per_s;     /* achieved NVMe read/write bandwidth per node
                                        (tp_train.offload_params = TP_OFFLOAD_NVME) */
} tp_options;

/** Everything one evaluation needs. */
typedef struct tp_config {
    tp_model model;
    tp_gpu gpu;
    tp_train train;
    tp_options opts;
} tp_config;

/*
 * Defaults that depend on another field, each written once here (inline:
 * the step-time model reads them on every evaluation).
 */

/** GPUs per node: the training setup's when set (> 0), else the GPU's. */
static inline int64_t tp_gpus_per_node(const tp_train *t, const tp_gpu *g)
{
    return t->gpus_per_node > 0 ? t->gpus_per_node : g->gpus_per_node;
}

/** Key/value heads: num_kv_heads when set (> 0), else num_heads (multi-head attention). */
static inline int64_t tp_kv_heads(const tp_model *m)
{
    return m->num_kv_heads > 0 ? m->num_kv_heads : m->num_heads;
}

/** Width of one attention head: head_dim when set (> 0), else hidden / num_heads (0 without heads). */
static inline int64_t tp_head_dim(const tp_model *m)
{
    return m->head_dim > 0 ? m->head_dim : (m->num_heads > 0 ? m->hidden / m->num_heads : 0);
}

/** Routed tokens the busiest expert-parallel rank handles, in means: the imbalance
 * (1 when balanced) capped by the capacity factor (when tokens are dropped). */
static inline double tp_moe_load(const tp_model *m)
{
    double imb = m->moe_imbalance > 0.0 ? m->moe_imbalance : 1.0;
    return (m->moe_capacity_factor > 0.0 && m->moe_capacity_factor < imb) ? m->moe_capacity_factor
                                                                          : imb;
}

/** Whether the MLP is gated (three matrices: SwiGLU, GeGLU). */
static inline bool tp_mlp_gated(tp_mlp k)
{
    return k == TP_MLP_SWIGLU || k == TP_MLP_GEGLU;
}

/** The MLP kind's name in flags and files: gelu, swiglu, squared-relu, geglu. */
static inline const char *tp_mlp_name(tp_mlp k)
{
    return k == TP_MLP_SWIGLU   ? "swiglu"
           : k == TP_MLP_SQRELU ? "squared-relu"
           : k == TP_MLP_GEGLU  ? "geglu"
                                : "gelu";
}

/** Width of one routed expert's MLP: moe_ffn_hidden when set (> 0), else ffn_hidden. */
static inline int64_t tp_expert_ffn_hidden(const tp_model *m)
{
    return m->moe_ffn_hidden > 0 ? m->moe_ffn_hidden : m->ffn_hidden;
}

/** Total width of a MoE layer's shared experts: shared_ffn_hidden when set
 * (> 0), else num_shared_experts routed-expert widths; 0 for a dense model. */
static inline int64_t tp_shared_ffn_hidden(const tp_model *m)
{
    if (m->num_experts <= 0)
        return 0;
    return m->shared_ffn_hidden > 0 ? m->shared_ffn_hidden
                                    : m->num_shared_experts * tp_expert_ffn_hidden(m);
}

/** The layer_pattern character of layer i (from 0): the pattern repeats;
 * 'A' (attention + MLP) without a pattern. */
static inline char tp_layer_char(const tp_model *m, int64_t i)
{
    int64_t n = 0;
    while (n < TP_PATTERN_MAX - 1 && m->layer_pattern[n])
        n++;
    return n > 0 && i >= 0 ? m->layer_pattern[i % n] : 'A';
}

/** Is layer i (from 0) a MoE layer: after moe_first_dense dense layers,
 * every moe_layer_freq-th one (0 or 1: every one); never in a dense model.
 * With a layer_pattern: the 'E' layers, and the MLPs of 'A', 'L' and 'S'
 * layers by that rule ('M', 'G', '*' and '-' never). */
static inline bool tp_layer_is_moe(const tp_model *m, int64_t i)
{
    if (m->layer_pattern[0] != '\0') {
        char k = tp_layer_char(m, i);
        if (k == 'E')
            return m->num_experts > 0;
        if (k != 'A' && k != 'L' && k != 'S')
            return false;
    }
    if (m->num_experts <= 0 || i < m->moe_first_dense)
        return false;
    int64_t freq = m->moe_layer_freq > 1 ? m->moe_layer_freq : 1;
    return (i - m->moe_first_dense) % freq == 0;
}

/** The vocabulary rounded up to a multiple of pad (pad <= 1: as it is). */
static inline int64_t tp_padded_vocab(int64_t vocab, int64_t pad)
{
    return pad > 1 ? (vocab + pad - 1) / pad * pad : vocab;
}

/** The unfused loss's bytes a logit at TP degree tp: ce_bytes_per_logit_tp
 *  at TP > 1 where set (> 0), else ce_bytes_per_logit. */
static inline double tp_ce_bytes_at(const tp_options *o, int64_t tp)
{
    return tp > 1 && o->ce_bytes_per_logit_tp > 0.0 ? o->ce_bytes_per_logit_tp
                                                    : o->ce_bytes_per_logit;
}

/** Selective-recompute modules in effect: recompute_modules, or the core attention when 0. */
static inline unsigned tp_recompute_modules(const tp_train *t)
{
    return t->recompute_modules ? t->recompute_modules : TP_RC_CORE_ATTN;
}

/** Expert tensor-parallel size: etp when set (> 0), else tp (Megatron-Core's default). */
static inline int64_t tp_expert_tp(const tp_train *t)
{
    return t->etp > 0 ? t->etp : t->tp;
}

/** Defaults: the physically right conventions and calibrated overheads. */
TP_API void tp_options_default(tp_options *o);

/*
 * Framework profiles (issue 17, framework.c): the tp_options a training
 * framework implies by default: which communication it overlaps with
 * compute, what its selective recompute re-runs, its loss and optimizer
 * buffers and its attention kernels. Each setting names its source in
 * framework.c; docs/model.md section 11 tabulates them. A profile sets
 * tp_options only (not the training setup), over tp_options_default.
 */
typedef enum tp_framework {
    TP_FW_NONE = 0,      /* trainplan's defaults (tp_options_default) */
    TP_FW_MEGATRON_LM,   /* Megatron-LM 2021 (Narayanan et al.), fused kernels, no TE */
    TP_FW_MEGATRON_CORE, /* Megatron-Core + TransformerEngine: NeMo 2, Megatron-Bridge */
    TP_FW_DEEPSPEED,     /* Megatron-DeepSpeed: DeepSpeed pipeline engine, BF16_Optimizer */
    TP_FW_TORCHTITAN,    /* torchtitan: FSDP2, per-op selective activation checkpointing */
    TP_FW_TORCHTUNE,     /* torchtune: FSDP2 recipes */
    TP_FW_LLM_FOUNDRY,   /* MosaicML llm-foundry / Composer FSDP (2023) */
    TP_FW_AUTOMODEL,     /* NeMo AutoModel: PyTorch FSDP2 + TE kernels + DeepEP */
    TP_FW_COUNT
} tp_framework;

/** The profile's name ("megatron-core", ...; "none" for TP_FW_NONE). */
TP_API const char *tp_framework_name(tp_framework fw);
/** The profile of a name (as tp_framework_name spells it); -1 when none has it. */
TP_API int tp_framework_of(const char *name);
/** Set the options the framework implies (over what *o holds). */
TP_API void tp_framework_apply(tp_framework fw, tp_options *o);

/**
 * Defaults for a training setup: 1 GPU, all parallel sizes 1, bf16, AdamW
 * with fp32 master and moments, bf16 grads, ZeRO 0, 1F1B, no recompute,
 * flash attention on, seq 2048, micro-batch 1, global batch 1.
 */
TP_API void tp_train_default(tp_train *t);

/** Data-parallel size: num_gpus / (tp * pp * cp), 0 if it does not divide. */
TP_API int64_t tp_train_dp(const tp_train *t);

/**
 * Expert-data-parallel size: num_gpus / (etp * ep * pp), the ranks that hold
 * the same expert shard (Megatron-Core parallel_state.py); 0 if it does not
 * divide.
 */
TP_API int64_t tp_train_edp(const tp_train *t);

/** Bytes per parameter of the model states for a training setup (unsharded). */
typedef struct tp_state_bytes {
    double weights;   /* 2 (16-bit) or 4 (tf32) */
    double grads;     /* grad_dtype: 2 or 4 */
    double optimizer; /* fp32 master (if kept) + moments */
    double total;
} tp_state_bytes;

/**
 * Bytes per parameter of weights, gradients and optimizer state (formulas.md
 * 3.1): default mixed-precision AdamW is 2 + 2 + (4 + 8) = 16.
 */
TP_API void tp_state_bytes_per_param(const tp_train *t, tp_state_bytes *out);

/**
 * Bytes per linear parameter of TransformerEngine's fp8 copies of the
 * weights beside the weights themselves (opts.fp8_weight_cache; memory.c
 * header 2): 0 outside fp8 or with the switch off, up to 2 (the cached
 * cast and its transpose where fp8 GEMMs take only TN: gpu.compute_capability
 * below 10.0 or 12.x, or, not stated, no FP4 peak).
 */
TP_API double tp_fp8_weight_copy_bytes(const tp_config *c);

/**
 * Validate a whole configuration: model, GPU, and every layout constraint
 * (tp divides heads and kv heads, pp <= layers, gpus divisible by tp*pp*cp,
 * ep divides experts, gpus divisible by etp*ep*pp (MoE parallel folding),
 * global batch divisible by micro-batch * dp,
 * values that would overflow). err->path names the offending field by its
 * canonical dotted name, the same in every front end:
 *   model.<tp_model member>        "model.num_heads", "model.head_dim"
 *   gpu.<tp_gpu member>            "gpu.mem_capacity_bytes", "gpu.eff"
 *   layout.<tp_train member>       the parallel layout: "layout.tp",
 *                                  "layout.num_gpus", "layout.zero", ...
 *   train.<tp_train member>        the rest: "train.global_batch",
 *                                  "train.seq_len", "train.precision"
 *   conventions.<tp_options member> "conventions.act_model"
 * ("model", "gpu", "conventions", "config" alone: the whole part). The
 * message says what is wrong with the value and never names a front
 * end's spelling (a CLI flag, a JSON key): each front end words the path
 * in its own terms (the CLI and the web API through src/io/fields.h).
 * tp_model_validate and tp_gpu_validate use the same names.
 */
TP_API tp_status tp_config_validate(const tp_config *c, tp_error *err);

/* ------------------------------------------------------------------ */
/* Results                                                             */
/* ------------------------------------------------------------------ */

/** Per-GPU memory of one pipeline stage, bytes, by component. */
typedef struct tp_memory {
    double weights_bytes;          /* 16-bit weights held (sharded under ZeRO-3), with
                                     fp8_copies_bytes unless ZeRO-3 */
    double weights_gathered_bytes; /* ZeRO-3 all-gathered working set */
    double grads_bytes;            /* gradients (sharded under ZeRO-2/3) */
    double optimizer_bytes;        /* master weights + moments (sharded under ZeRO >= 1) */
    double activations_bytes;      /* stored activations, all in-flight micro-batches */
    double logits_bytes;           /* output-layer input + logits, last stage */
    double comm_buffers_bytes;     /* NCCL buffers and userbuffers_bytes */
    double framework_bytes;        /* CUDA context */
    double fragmentation_bytes;    /* allocator reserve */
    double total_bytes;            /* sum of the above */
    double capacity_bytes;         /* the GPU's usable memory */
    double headroom_bytes;         /* capacity - total (negative when it does not fit) */
    bool fits;                     /* total <= capacity and host_fits */
    int64_t stage;                 /* which pipeline stage this is (0-based; DualPipe: the
                                     pipeline rank, holding stages stage and pp-1-stage) */
    int64_t layers;                /* transformer layers on the stage (DualPipe: both) */
    double params_on_gpu;          /* parameters held by this GPU's model-parallel shard */
    double inflight_microbatches;  /* micro-batches of activations held at peak */
    double act_per_layer_bytes;    /* one layer, one micro-batch */
    double host_bytes;             /* host memory this GPU's offloaded state uses (optimizer,
                                     parameters, activations) */
    bool host_fits;                /* host_bytes x GPUs per node within host_mem_bytes_per_node */
    int64_t host_gpus;             /* GPUs per node sharing host memory (0: nothing offloaded) */
    double host_capacity_bytes;    /* host memory per node (opts.host_mem_bytes_per_node) */
    double frozen_params;          /* of params_on_gpu, a frozen vision tower's: 16-bit weights
                                     only, no gradients, optimizer state or DP traffic */
    double nvme_bytes;             /* NVMe this GPU's offloaded parameters use (not checked) */
    double act_host_bytes;         /* of host_bytes: offloaded activations, one micro-batch */
    bool host_more;                /* host_bytes holds parameters or activations too, not only
                                     optimizer state (tp_result_reason's wording) */
    double fp8_copies_bytes;       /* of weights_bytes (ZeRO-3: of weights_gathered_bytes):
                                     TransformerEngine's fp8 copies of the linear weights
                                     (opts.fp8_weight_cache; memory.c header 2) */
    double userbuffers_bytes;      /* of comm_buffers_bytes: TransformerEngine's userbuffers
                                     for the chunked TP overlap (memory.c header 6) */
} tp_memory;

/** FLOPs per token and per step (formulas.md section 2). */
typedef struct tp_flops {
    double model_per_token;    /* 3 x forward, attention per opts.attn_flops */
    double hardware_per_token; /* model + recomputed forward work */
    double six_n_per_token;    /* 6 * active params, embeddings included (Hoffmann's N) */
    double attn_per_token;     /* attention-core share of model_per_token */
    double logits_per_token;   /* output-layer share of model_per_token */
    double model_per_step;     /* model_per_token * tokens per step */
    double hardware_per_step;
    double tokens_per_step;
} tp_flops;

/** Step-time breakdown, seconds; the parts sum to step_s. */
typedef struct tp_time {
    bool computed;          /* false until the step-time model is available */
    double compute_s;       /* forward + backward on the critical stage */
    double recompute_s;     /* extra forward for activation recompute */
    double tp_comm_s;       /* exposed tensor-parallel collectives */
    double cp_comm_s;       /* exposed context-parallel ring exchange */
    double ep_comm_s;       /* exposed expert-parallel all-to-all */
    double pp_comm_s;       /* exposed pipeline point-to-point */
    double bubble_s;        /* pipeline fill and drain */
    double dp_comm_s;       /* exposed data-parallel / ZeRO collectives */
    double optimizer_s;     /* optimizer step */
    double step_s;          /* sum */
    double bubble_of_total; /* (p-1)/(m+p-1) style, for the chosen schedule */
    double bubble_of_ideal; /* (p-1)/m style */
    double tokens_per_s;
    double tokens_per_s_per_gpu;
    double model_flops_per_s_per_gpu;
    double mfu;             /* model FLOPs / (step * gpus * peak) */
    double hfu;             /* hardware FLOPs / (step * gpus * peak) */
    const char *bottleneck; /* static string naming the largest non-compute part */
    double offload_s; /* of optimizer_s: exposed host offload (host-link transfers, CPU update) */
    double param_offload_s; /* of dp_comm_s: exposed parameter fetches from host or NVMe */
    double act_offload_s;   /* of recompute_s: exposed activation offload transfers (host link) */
    double param_offload_bytes; /* parameter offload: bytes moved per step, before overlap */
    double act_offload_bytes;   /* activation offload: bytes moved per step, before overlap */
    int64_t critical_stage;     /* the pipeline stage whose passes set compute_s, TP, CP and EP
                                   (0 under DualPipe, which prices stage pairs: 0 with pp-1) */
} tp_time;

typedef struct tp_result {
    tp_params params;
    tp_flops flops;
    tp_memory memory;      /* the heaviest stage */
    tp_memory stage_first; /* stage 0 */
    tp_memory stage_last;  /* stage pp-1 */
    tp_time time;
    int64_t dp;            /* derived data-parallel size */
    int64_t grad_accum;    /* micro-batches per step per pipeline (m) */
    int64_t schedule_runs; /* runs of the pipeline schedule per step, each filling and
                              draining it: m / (local_batch / micro_batch) under
                              tp_train.local_batch, else 1 */
} tp_result;

/**
 * Why a result does not fit ("" when it fits), written into buf (cap
 * bytes; TP_REASON_MAX holds any) from the result's own fields and
 * returned. Formatted on demand by whoever prints it, never during an
 * evaluation: a search evaluates millions of layouts that do not fit.
 */
#define TP_REASON_MAX 192
TP_API const char *tp_result_reason(const tp_result *r, char *buf, size_t cap);

/**
 * Evaluate one configuration: validates, then fills out. Does not
 * allocate. Returns TP_OK for any valid configuration, whether or not it
 * fits (out->memory.fits).
 */
TP_API tp_status tp_eval(const tp_config *c, tp_result *out, tp_error *err);

/**
 * Memory of pipeline stage `stage` (0-based) for a validated config.
 * The caller must have validated c (tp_config_validate). Under
 * TP_SCHED_DUALPIPE `stage` is the pipeline rank, and the memory is that
 * GPU's: stages stage and pp-1-stage together (memory.c header 4).
 */
TP_API void tp_memory_stage(const tp_config *c, const tp_params *p, int64_t stage, tp_memory *out);

/** FLOPs of a validated configuration. */
TP_API void tp_flops_eval(const tp_config *c, const tp_params *p, tp_flops *out);

/** Layers on pipeline stage `stage` under the config's split. */
TP_API int64_t tp_stage_layers(const tp_train *t, int64_t num_layers, int64_t stage);

/** The GPU runs the kernel-level model of a hardware profile (docs/model.md
 *  1b): eff.sm_count >= 1 and eff.mamf > 0; else the fitted fractions. */
TP_API bool tp_gpu_kernel_model(const tp_gpu *g);

/**
 * The rate FlashAttention runs at in the step-time model (docs/model.md 2),
 * as a fraction of the 16-bit dense peak, with its factors: eff.attn (0 ->
 * eff.gemm, 0 -> 1), times ampere_rel (eff.attn_ampere_kernel under
 * opts.attn_ampere_kernel, else 1), times head_dim_rel (the head-dim factor)
 * and seq_rel (the sequence-length factor; both kernel-level model only,
 * else 1).
 */
typedef struct tp_attn_rate {
    double fraction;         /* of the 16-bit dense peak */
    double ampere_rel;       /* 1, or the factor of a kernel written for Ampere */
    double head_dim_rel;     /* 1 from head dim 128 up; 0.805 at 64 or less */
    double seq_rel;          /* 1 from 16k tokens a kernel call up; 0.535 at 512 or less (the
                          * FA3 paper's shape), or the profile's attention sweep's */
    double seq_tokens;       /* tokens a kernel call sees: the sequence (or packed example) / CP */
    double local_seq_tokens; /* a windowed or chunked layer's call, when fewer; else 0 */
} tp_attn_rate;
TP_API tp_attn_rate tp_attn_rate_of(const tp_config *c);

/**
 * The host floor of one dropless MoE layer's forward and backward for one
 * micro-batch (docs/model.md 2b), seconds: eff.moe_host_layer_s + local
 * experts x eff.moe_host_expert_s. 0 when none applies, and then *why_none
 * (if given) says why: a dense model, --moe-sync-free, a capacity factor,
 * or no floor constants (the fitted fractions); NULL when one applies.
 */
TP_API double tp_moe_host_floor_s(const tp_config *c, const char **why_none);

/**
 * Which TP overlap the step-time model charges (docs/model.md 5): none
 * (TP 1, or opts.tp_comm_overlap off), none because TransformerEngine's
 * userbuffers (opts.tp_overlap_chunked) need sequence parallelism, up to
 * eff.overlap of the TP time (opts.tp_comm_overlap alone), or the
 * userbuffers' chunks. time.c charges it, the reports state it.
 */
typedef enum tp_tp_overlap {
    TP_TP_OVERLAP_NONE = 0,
    TP_TP_OVERLAP_NEEDS_SP, /* chunked asked for, SP off: Megatron-Bridge turns it off */
    TP_TP_OVERLAP_SHARE,    /* up to eff.overlap hides under the pass's GEMMs */
    TP_TP_OVERLAP_CHUNKED   /* one chunk of the forward reduce-scatters exposed */
} tp_tp_overlap;
TP_API tp_tp_overlap tp_tp_overlap_of(const tp_config *c);

/** Pipeline bubble fractions for p stages, m micro-batches, v virtual stages
 *  (DualPipe: with forward = input gradient = weight gradient, eval.c). */
TP_API double tp_bubble_fraction(tp_schedule s, int64_t p, int64_t m, int64_t v, tp_bubble_def def);

#ifdef __cplusplus
}
#endif

/* Later modules: each has its own part of the contract. */
#include "tp/comm.h"
#include "tp/search.h"
#include "tp/plan.h"

#endif /* TP_TP_H */
