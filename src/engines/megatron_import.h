/* SPDX-License-Identifier: MIT */
/*
 * megatron_import.h: the inside of the Megatron-LM import, shared by its
 * three files (megatron_import.c: the argument table, the scan and the
 * entry points; megatron_model.c: the model's architecture; megatron_train.c:
 * the layout and training settings). Not a public header: every name here
 * is internal to libtpio.
 *
 * Engine version: NVIDIA/Megatron-LM @ d98e8a64ddf3 (2026-08-22, the export's
 * target) and @ 000c4ac24f61 (2025-11-13); see megatron_import.c.
 *
 * Pass 1 (megatron_import.c) puts each mapped argument in its slot, indexed
 * by enum mid; pass 2 reads the slots in steps, the model's (mg_read_*,
 * mg_emit_model, mg_emit_arch) then the run's (mg_emit_batch ...
 * mg_emit_kernels), in the fixed order of interpret(). The value helpers
 * (mg_val_*) locate every error at the word of the launch file it is about.
 */
#ifndef TP_ENGINES_MEGATRON_IMPORT_H
#define TP_ENGINES_MEGATRON_IMPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "import_build.h"
#include "launch.h"
#include "tp/tp.h"

/* The mapped arguments, one slot each (map_args in megatron_import.c). */
enum mid {
    M_NUM_LAYERS,
    M_HIDDEN,
    M_FFN,
    M_HEADS,
    M_GQA,
    M_QUERY_GROUPS,
    M_KV_CHANNELS,
    M_SEQ,
    M_MAX_POS,
    M_POS_TYPE,
    M_ROTARY,
    M_NORM,
    M_SWIGLU,
    M_UNTIE,
    M_NO_BIAS,
    M_QKV_BIAS,
    M_VOCAB,
    M_PADDED_VOCAB,
    M_MAKE_DIV,
    M_EXPERTS,
    M_TOPK,
    M_MOE_FFN,
    M_SHARED,
    M_MOE_FREQ,
    M_ATT_DROP,
    M_HID_DROP,
    M_ATT_BACKEND,
    M_USE_FLASH,
    M_TP,
    M_PP,
    M_CP,
    M_EP,
    M_ETP,
    M_SP,
    M_VPP_LAYERS,
    M_VPP_STAGES,
    M_FIRST,
    M_LAST,
    M_DISTOPT,
    M_MFSDP,
    M_DP_SHARD,
    M_FSDP2,
    M_FSDP2_NORESHARD,
    M_DISTOPT_INST,
    M_MB,
    M_GB,
    M_RECOMP_ACT,
    M_RECOMP_GRAN,
    M_RECOMP_METHOD,
    M_RECOMP_NUM,
    M_RECOMP_MODULES,
    M_BF16,
    M_FP16,
    M_FP8,
    M_GRAD_BF16,
    M_ACC_FP32,
    M_OPTIMIZER,
    M_SGD_MOM,
    M_PREC_AWARE,
    M_EXP_AVG,
    M_EXP_AVG_SQ,
    M_MAIN_GRADS,
    M_MAIN_PARAMS,
    M_CPU_OFFLOAD,
    M_FP8_GATHER,
    M_MOE_RECOMP,
    M_OPT_OFFLOAD,
    M_OPT_OFFLOAD_FRAC,
    M_MTP,
    M_HYBRID,
    M_ROPE_BASE,
    M_ROPE_SCALING,
    M_ROPE_FACTOR,
    M_NORM_EPS,
    /* issue 16 architecture arguments (read_arch) */
    M_MLA,
    M_Q_LORA,
    M_KV_LORA,
    M_QK_HEAD,
    M_QK_POS,
    M_V_HEAD,
    M_QK_LN,
    M_WINDOW,
    M_WINDOW_SKIP,
    M_SQRELU,
    M_EXPERT_BIAS,
    M_CAPACITY,
    M_SOFTMAX,
    /* hybrid models (read_hybrid; src/lib/hybrid.c) */
    M_HYB_LAYER,
    M_HYB_OVERRIDE,
    M_IS_HYBRID,
    M_MAMBA_HEAD_DIM,
    M_MAMBA_GROUPS,
    M_MAMBA_HEADS,
    M_MAMBA_STATE,
    M_SPEC,
    /* issue 16 training features: recipes */
    M_FP8_RECIPE,
    M_FP4,
    M_FP4_RECIPE,
    M_FP4_GATHER,
    /* Megatron-FSDP's gradient dtypes (mg_emit_precision) */
    M_MFSDP_GRADS,
    M_MFSDP_COMM,
    /* gpt-oss: the gated quick-GELU MLP, and the ModelOpt builder's
     * arguments of megatron/post_training/arguments.py (mg_modelopt) */
    M_QUICK_GEGLU,
    M_GPT_OSS,
    M_LOCAL_ATTN,
    M_MODELOPT,
    /* the EP all-to-all overlap and the dispatcher it needs (mg_emit_kernels) */
    M_A2A_OVERLAP,
    M_DISPATCHER,
    /* group-limited routing (read_arch) */
    M_ROUTER_GROUPS,
    M_ROUTER_GROUP_TOPK,
    /* the flex dispatcher's node-deduplicating backends (mg_emit_kernels) */
    M_ENABLE_DEEPEP,
    M_FLEX_BACKEND,
    /* the loss: Megatron's vocab-parallel cross-entropy or TE's (mg_emit_kernels) */
    M_CE_FUSION,
    M_CE_IMPL,
    M_LOAD, /* class ignored; its slot only says whether a checkpoint is loaded */
    M_COUNT
};

#define MAXV 16 /* values of one mapped argument (--recompute-modules takes several) */

typedef struct slot {
    bool set;
    const char *name;     /* as written: "--num-layers" or an alias */
    const word *flag;     /* the word of the flag */
    const char *v[MAXV];  /* values */
    const word *vw[MAXV]; /* their words (the flag's word for --flag=value) */
    int nv;
} slot;

/* Pass 2 reads the slots into the model (im->model) and the equivalent
 * trainplan flags, in steps by group of arguments. The steps run in a
 * fixed order (interpret), which is also the order of the flags pushed and
 * of the errors found; what a later step needs from an earlier one is
 * carried in mread. */
typedef struct mread {
    bool swiglu;            /* --swiglu */
    int64_t seq;            /* --seq-length */
    int64_t tp, pp, cp, ep; /* the parallel sizes, 1 when not given */
    int64_t etp;            /* expert TP, TP when not given */
    int64_t pad;            /* vocabulary padding multiple (div x TP), 0 when none is needed */
    const char *grad;       /* gradient dtype, "fp32" or "bf16" */
} mread;

/* ---- the values of a slot (megatron_import.c) ---- */

/* The next flag comes from this argument (when the file gave it). */
void mg_from_slot(tp_import *im, const slot *s);
/* The word of value i, or the flag's word for --flag=value. */
const word *mg_val_word(const slot *s, int i);
/* The one value of s, or an error: none, several, or an unexpanded $VAR. */
tp_status mg_one_value(const slot *s, const char **out, tp_error *err);
/* A number parser's error located at the slot's value word, path = the argument. */
tp_status mg_value_error(const slot *s, tp_status st, tp_error *err);
tp_status mg_val_i64(const slot *s, int64_t min, int64_t max, int64_t *out, tp_error *err);
tp_status mg_val_f64(const slot *s, double min, double max, double *out, tp_error *err);
/* Index of the value in choices (NULL-terminated), or an error listing them. */
tp_status mg_val_choice(const slot *s, const char *const *choices, int *out, tp_error *err);
/* "WHAT, which changes memory or time in a way trainplan does not model". */
tp_status mg_not_modelled(const slot *s, const char *what, tp_error *err);
/* "the arguments do not set NAME". */
tp_status mg_missing(const char *name, tp_error *err);
/* Whether Megatron-LM builds the model with ModelOpt's builder, which
 * alone reads s (--enable-gpt-oss, --export-force-local-attention): yes
 * with --modelopt-enabled; no without it and without --load (noted); an
 * error with --load alone, whose checkpoint decides (a ModelOpt one turns
 * the builder on) and which trainplan cannot open. */
tp_status mg_modelopt(const slot *sl, const slot *s, tp_import *im, bool *on, tp_error *err);
/* Integer slot with a default. */
tp_status mg_opt_i64(const slot *s, int64_t def, int64_t min, int64_t max, int64_t *out,
                     tp_error *err);

/* ---- the model (megatron_model.c), in interpret()'s order ---- */

tp_status mg_read_shape(const slot *sl, tp_import *im, mread *x, tp_error *err);
tp_status mg_read_hybrid(const slot *sl, tp_import *im, tp_error *err);
tp_status mg_read_positions(const slot *sl, tp_import *im, mread *x, tp_error *err);
tp_status mg_read_parallel_sizes(const slot *sl, mread *x, tp_error *err);
tp_status mg_read_vocab(const slot *sl, tp_import *im, mread *x, tp_error *err);
tp_status mg_read_experts(const slot *sl, tp_import *im, tp_error *err);
tp_status mg_read_arch(const slot *sl, tp_import *im, tp_error *err);
tp_status mg_emit_model(const slot *sl, tp_import *im, const mread *x, tp_error *err);
tp_status mg_emit_arch(const slot *sl, tp_import *im, tp_error *err);

/* ---- the run (megatron_train.c), in interpret()'s order ---- */

tp_status mg_emit_batch(const slot *sl, tp_import *im, const mread *x, tp_error *err);
tp_status mg_emit_layout(const slot *sl, tp_import *im, const mread *x, tp_error *err);
tp_status mg_emit_zero(const slot *sl, tp_import *im, tp_error *err);
tp_status mg_emit_recompute(const slot *sl, tp_import *im, tp_error *err);
tp_status mg_emit_precision(const slot *sl, tp_import *im, mread *x, tp_error *err);
tp_status mg_emit_optimizer(const slot *sl, tp_import *im, const mread *x, tp_error *err);
tp_status mg_emit_kernels(const slot *sl, tp_import *im, const mread *x, tp_error *err);

#endif /* TP_ENGINES_MEGATRON_IMPORT_H */
