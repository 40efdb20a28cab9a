/* SPDX-License-Identifier: MIT */
/*
 * megatron_train.c: Megatron-LM, read: how a pretrain_gpt.py launch trains
 * (part of the --from-megatron import; megatron_import.c has the scan and
 * the entry points, megatron_import.h the shared types): batch, parallel
 * layout, ZeRO stage, recomputation, activation offload, precision and
 * low-precision recipe, optimizer and its offload, dropout and kernels.
 *
 * Version spoken: NVIDIA/Megatron-LM @ d98e8a64ddf3 (2026-08-22) and @
 * 000c4ac24f61 (2025-11-13). Sources: megatron/training/arguments.py (the
 * choices and defaults: 1F1B, interleaved with virtual stages, fp32
 * gradient accumulation under --bf16, the optimizer CPU offload and FP8/FP4
 * argument groups), megatron/core/transformer/transformer_config.py
 * (recompute modules, --moe-layer-recompute, the CPU offloading checks);
 * docs/export.md, "Sources of the engine facts", lists each fact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engines.h"
#include "io.h"
#include "io_internal.h"
#include "megatron_import.h"
#include "recompute_modules.h"

/* Sequence, micro-batch and global batch. */
tp_status mg_emit_batch(const slot *sl, tp_import *im, const mread *x, tp_error *err)
{
    mg_from_slot(im, &sl[M_SEQ]);
    PUSH(push_i64(im, "--seq-len", x->seq));
    if (!sl[M_MB].set)
        return mg_missing("--micro-batch-size", err);
    int64_t mb;
    TP_TRY(mg_val_i64(&sl[M_MB], 1, TP_MAX_BATCH, &mb, err));
    mg_from_slot(im, &sl[M_MB]);
    PUSH(push_i64(im, "--micro-batch", mb));
    if (sl[M_GB].set) {
        int64_t gb;
        TP_TRY(mg_val_i64(&sl[M_GB], 1, TP_MAX_BATCH, &gb, err));
        mg_from_slot(im, &sl[M_GB]);
        PUSH(push_i64(im, "--global-batch", gb));
    }
    return TP_OK;
}

/* The parallel layout: sizes, virtual stages (from either argument),
 * sequence parallelism, schedule and an uneven split. */
tp_status mg_emit_layout(const slot *sl, tp_import *im, const mread *x, tp_error *err)
{
    int64_t L = im->model.num_layers, pp = x->pp;
    mg_from_slot(im, &sl[M_TP]);
    PUSH(push_i64(im, "--tp", x->tp));
    mg_from_slot(im, &sl[M_PP]);
    PUSH(push_i64(im, "--pp", pp));
    mg_from_slot(im, &sl[M_CP]);
    PUSH(push_i64(im, "--cp", x->cp));
    mg_from_slot(im, &sl[M_EP]);
    PUSH(push_i64(im, "--ep", x->ep));
    if (x->etp != x->tp && im->model.num_experts == 0) {
        /* a dense model has no expert layers: Megatron-LM ignores it */
        list_add(im->ignored, sizeof im->ignored, "--expert-tensor-parallel-size");
    } else if (x->etp != x->tp) {
        mg_from_slot(im, &sl[M_ETP]);
        PUSH(push_i64(im, "--etp", x->etp));
    }
    int64_t vpp = 1, first = 0, last = 0;
    if (sl[M_FIRST].set)
        TP_TRY(mg_val_i64(&sl[M_FIRST], 1, TP_MAX_LAYERS, &first, err));
    if (sl[M_LAST].set)
        TP_TRY(mg_val_i64(&sl[M_LAST], 1, TP_MAX_LAYERS, &last, err));
    if (sl[M_VPP_LAYERS].set && sl[M_VPP_STAGES].set)
        return word_at(err, sl[M_VPP_STAGES].flag,
                       tp_error_set(err, TP_ERR_CONFIG, "--num-virtual-stages-per-pipeline-rank",
                                    "\"--num-layers-per-virtual-pipeline-stage\" and "
                                    "\"--num-virtual-stages-per-pipeline-rank\" cannot both be "
                                    "set"));
    if (sl[M_VPP_LAYERS].set) {
        const char *vpl = "--num-layers-per-virtual-pipeline-stage";
        int64_t per;
        TP_TRY(mg_val_i64(&sl[M_VPP_LAYERS], 1, TP_MAX_LAYERS, &per, err));
        if (first || last)
            return word_at(err, sl[M_VPP_LAYERS].flag,
                           tp_error_set(err, TP_ERR_CONFIG, vpl,
                                        "an uneven pipeline split needs "
                                        "\"--num-virtual-stages-per-pipeline-rank\" instead of "
                                        "\"--num-layers-per-virtual-pipeline-stage\""));
        if (L % pp != 0 || (L / pp) % per != 0)
            return word_at(err, sl[M_VPP_LAYERS].flag,
                           tp_error_set(err, TP_ERR_CONFIG, vpl,
                                        "%" PRId64 " layers per pipeline stage are not a "
                                        "multiple of \"--num-layers-per-virtual-pipeline-stage\" "
                                        "%" PRId64,
                                        L / pp, per));
        vpp = (L / pp) / per;
    } else if (sl[M_VPP_STAGES].set) {
        TP_TRY(mg_val_i64(&sl[M_VPP_STAGES], 1, TP_MAX_LAYERS, &vpp, err));
    }
    /* arguments.py: without virtual stages or a first/last stage size the
     * layers must split evenly (a hybrid pattern's layers excepted) */
    if (pp > 1 && pp <= L && vpp == 1 && !first && !last && !im->model.layer_pattern[0] && L % pp)
        return word_at(err, sl[M_PP].flag,
                       tp_error_set(err, TP_ERR_CONFIG, "--pipeline-model-parallel-size",
                                    "%" PRId64 " layers do not split evenly over "
                                    "\"--pipeline-model-parallel-size\" %" PRId64
                                    " (Megatron-LM asserts it; an uneven split needs "
                                    "\"--decoder-first-pipeline-num-layers\" or "
                                    "\"--decoder-last-pipeline-num-layers\")",
                                    L, pp));
    if (vpp > 1) {
        mg_from_slot(im, &sl[sl[M_VPP_LAYERS].set ? M_VPP_LAYERS : M_VPP_STAGES]);
        PUSH(push_i64(im, "--vpp", vpp));
    }
    PUSH(push_flag(im, sl[M_SP].set && x->tp > 1 ? "--sp" : "--no-sp"));
    PUSH(push_str(im, "--schedule", vpp > 1 ? "interleaved" : "1f1b"));
    if (first)
        PUSH(push_i64(im, "--first-stage-layers", first));
    if (last)
        PUSH(push_i64(im, "--last-stage-layers", last));
    return TP_OK;
}

/* The ZeRO stage: distributed optimizer, Megatron-FSDP or torch FSDP2. */
tp_status mg_emit_zero(const slot *sl, tp_import *im, tp_error *err)
{
    int zero = sl[M_DISTOPT].set ? 1 : 0;
    if (sl[M_MFSDP].set) {
        static const char *const strat[] = {"no_shard", "optim", "optim_grads",
                                            "optim_grads_params", NULL};
        int k = 0;
        if (sl[M_DP_SHARD].set)
            TP_TRY(mg_val_choice(&sl[M_DP_SHARD], strat, &k, err));
        if (k > zero)
            zero = k;
    }
    if (sl[M_FSDP2].set)
        zero = sl[M_FSDP2_NORESHARD].set ? 2 : 3;
    PUSH(push_i64(im, "--zero", zero));
    return TP_OK;
}

/* "--recompute-modules" as TP_RC_* bits (0: none given, Megatron's default
 * core_attn); a module trainplan does not know is an error at its word. */
static tp_status read_recompute_modules(const slot *mods, unsigned *rc, tp_error *err)
{
    *rc = 0;
    for (int i = 0; mods->set && i < mods->nv; i++) {
        unsigned bit = 0;
        if (tp_io_recompute_modules_parse(mods->name, mods->v[i], &bit, err) != TP_OK) {
            if (err) {
                err->code = TP_ERR_CONFIG;
                snprintf(err->path, sizeof err->path, "%s", mods->name);
            }
            return word_at(err, mg_val_word(mods, i), TP_ERR_CONFIG);
        }
        *rc |= bit;
    }
    return TP_OK;
}

/* Full recomputation: uniform (every layer, k per checkpoint) or block
 * (the first N layers of each stage, each checkpointed alone). */
static tp_status read_full_recompute(const slot *sl, tp_import *im, int64_t *every, int64_t *block,
                                     tp_error *err)
{
    if (!sl[M_RECOMP_METHOD].set)
        return word_at(err, sl[M_RECOMP_GRAN].flag,
                       tp_error_set(err, TP_ERR_CONFIG, "--recompute-granularity",
                                    "\"--recompute-granularity full\" needs "
                                    "\"--recompute-method uniform\""));
    static const char *const meth[] = {"uniform", "block", NULL};
    int k;
    TP_TRY(mg_val_choice(&sl[M_RECOMP_METHOD], meth, &k, err));
    if (!sl[M_RECOMP_NUM].set)
        assume(im, k == 0 ? "--recompute-num-layers not set: one layer per checkpoint"
                          : "--recompute-num-layers not set: one layer of each stage "
                            "recomputed");
    int64_t n;
    TP_TRY(mg_opt_i64(&sl[M_RECOMP_NUM], 1, 1, TP_MAX_LAYERS, &n, err));
    if (k == 0) {
        *every = n;
        *block = 0;
    } else {
        *every = 1; /* Megatron's block method checkpoints each layer alone */
        *block = n;
    }
    return TP_OK;
}

/* Recomputation: selective (the modules, --moe-layer-recompute adding moe as
 * Megatron-Core's TransformerConfig does) or full, uniform or block. */
tp_status mg_emit_recompute(const slot *sl, tp_import *im, tp_error *err)
{
    const char *recompute = "none";
    int64_t every = 1, block = 0;
    unsigned rc = 0;
    int gran = -1; /* 0 full, 1 selective */
    if (sl[M_RECOMP_GRAN].set) {
        static const char *const g[] = {"full", "selective", NULL};
        TP_TRY(mg_val_choice(&sl[M_RECOMP_GRAN], g, &gran, err));
    }
    if (sl[M_RECOMP_ACT].set)
        gran = 1; /* Megatron: --recompute-activations sets selective */
    if (sl[M_MOE_RECOMP].set) {
        if (gran == 0)
            return word_at(err, sl[M_MOE_RECOMP].flag,
                           tp_error_set(err, TP_ERR_CONFIG, "--moe-layer-recompute",
                                        "\"--moe-layer-recompute\" cannot be combined with "
                                        "\"--recompute-granularity full\""));
        gran = 1;
    }
    if (gran == 1) {
        if (sl[M_RECOMP_METHOD].set)
            return word_at(err, sl[M_RECOMP_METHOD].flag,
                           tp_error_set(err, TP_ERR_CONFIG, "--recompute-method",
                                        "\"--recompute-method\" does not apply to selective "
                                        "recomputation"));
        TP_TRY(read_recompute_modules(&sl[M_RECOMP_MODULES], &rc, err));
        if (sl[M_MOE_RECOMP].set)
            rc = (rc ? rc : TP_RC_CORE_ATTN) | TP_RC_MOE;
        recompute = "selective";
    } else if (gran == 0) {
        TP_TRY(read_full_recompute(sl, im, &every, &block, err));
        if (sl[M_RECOMP_MODULES].set)
            list_add(im->ignored, sizeof im->ignored, "--recompute-modules");
        recompute = "full";
    }
    PUSH(push_str(im, "--recompute", recompute));
    if (sl[M_CPU_OFFLOAD].set) { /* Megatron-LM: on when the count is above 0 */
        int64_t n;
        TP_TRY(mg_val_i64(&sl[M_CPU_OFFLOAD], 0, TP_MAX_LAYERS, &n, err));
        if (n > 0) {
            mg_from_slot(im, &sl[M_CPU_OFFLOAD]);
            PUSH(push_i64(im, "--offload-activations", n));
        }
    }
    if (strcmp(recompute, "full") == 0)
        PUSH(push_i64(im, "--recompute-every", every));
    if (block > 0) {
        mg_from_slot(im, &sl[M_RECOMP_NUM]);
        PUSH(push_i64(im, "--recompute-block-layers", block));
    }
    if (rc != 0 && rc != TP_RC_CORE_ATTN) {
        char mods[96];
        mg_from_slot(im, &sl[sl[M_RECOMP_MODULES].set ? M_RECOMP_MODULES : M_MOE_RECOMP]);
        PUSH(push_str(im, "--recompute-modules",
                      tp_io_recompute_modules_text(rc, mods, sizeof mods)));
    }
    return TP_OK;
}

/*
 * The low-precision recipe: --fp8-recipe under --fp8-format (delayed, the
 * default, tensorwise and mxfp8 modelled; blockwise and custom are not),
 * or --fp4-format e2m1 with --fp4-recipe nvfp4 (FP4 GEMMs; Megatron-LM's
 * default recipe). *recipe stays NULL for delayed scaling.
 */
static tp_status read_recipe(const slot *sl, tp_import *im, const char **recipe, tp_error *err)
{
    *recipe = NULL;
    if (sl[M_FP4].set) {
        if (sl[M_FP8].set)
            return word_at(err, sl[M_FP4].flag,
                           tp_error_set(err, TP_ERR_CONFIG, "--fp4-format",
                                        "\"--fp8-format\" and \"--fp4-format\" cannot both be "
                                        "set"));
        static const char *const e2m1[] = {"e2m1", NULL}, *const nvfp4[] = {"nvfp4", NULL};
        int k;
        TP_TRY(mg_val_choice(&sl[M_FP4], e2m1, &k, err));
        if (sl[M_FP4_RECIPE].set)
            TP_TRY(mg_val_choice(&sl[M_FP4_RECIPE], nvfp4, &k, err));
        if (sl[M_FP8_RECIPE].set)
            list_add(im->ignored, sizeof im->ignored, "--fp8-recipe");
        *recipe = "nvfp4";
        return TP_OK;
    }
    if (sl[M_FP4_RECIPE].set)
        list_add(im->ignored, sizeof im->ignored, "--fp4-recipe");
    if (!sl[M_FP8_RECIPE].set)
        return TP_OK;
    if (!sl[M_FP8].set) {
        list_add(im->ignored, sizeof im->ignored, "--fp8-recipe");
        return TP_OK;
    }
    static const char *const r8[] = {"delayed", "tensorwise", "mxfp8", "blockwise", "custom", NULL};
    int k;
    TP_TRY(mg_val_choice(&sl[M_FP8_RECIPE], r8, &k, err));
    if (k >= 3) {
        char what[96];
        snprintf(what, sizeof what, "\"--fp8-recipe %s\" scales %s", r8[k],
                 k == 3 ? "by 1x128 and 128x128 blocks" : "with a user-supplied quantizer");
        return mg_not_modelled(&sl[M_FP8_RECIPE], what, err);
    }
    *recipe = k == 0 ? NULL : r8[k];
    return TP_OK;
}

/*
 * Megatron-FSDP's gradient dtypes (arguments.py; DistributedDataParallel-
 * Config: megatron_fsdp_main_grads_dtype, the gradient buffer, and
 * megatron_fsdp_grad_comm_dtype, its reduce-scatter, "auto" following the
 * main gradients): a 16-bit or fp32 gradient dtype when both agree; main
 * gradients left "auto" are the parameters' 16-bit dtype. trainplan has one gradient
 * dtype for the buffer and the collective, so a mix is refused. Without
 * --use-megatron-fsdp both do nothing.
 */
static tp_status read_fsdp_grads(const slot *sl, tp_import *im, mread *x, tp_error *err)
{
    const slot *g = &sl[M_MFSDP_GRADS], *cm = &sl[M_MFSDP_COMM];
    static const char *const dt[] = {"fp32", "bf16", "fp16", "auto", NULL};
    int kg = 3, kc = 3;
    if (g->set)
        TP_TRY(mg_val_choice(g, dt, &kg, err));
    if (cm->set)
        TP_TRY(mg_val_choice(cm, dt, &kc, err));
    if (!sl[M_MFSDP].set) {
        if (g->set)
            list_add(im->ignored, sizeof im->ignored, g->name);
        if (cm->set)
            list_add(im->ignored, sizeof im->ignored, cm->name);
        return TP_OK;
    }
    /* "auto" (None): the gradient buffer takes the parameters' dtype, 16-bit
     * under --bf16/--fp16 and bf16 for fp8 parameters (megatron_fsdp/
     * param_and_grad_buffer.py, _resolve_group_grad_dtype @ d98e8a64), not
     * the fp32 main gradients of Megatron's own DDP */
    const char *buffer = kg == 0 ? "fp32" : "bf16"; /* 16-bit: bf16's bytes */
    const char *comm = kc == 3 ? buffer : kc == 0 ? "fp32" : "bf16";
    if (strcmp(buffer, comm) != 0) {
        char what[200];
        snprintf(what, sizeof what,
                 "\"%s %s\" reduces gradients in %s but keeps them in %s (trainplan has one "
                 "gradient dtype)",
                 cm->name, dt[kc], comm, buffer);
        return mg_not_modelled(cm, what, err);
    }
    if (g->set || cm->set)
        mg_from_slot(im, g->set ? g : cm);
    x->grad = buffer;
    return TP_OK;
}

/* The training precision (bf16, fp16 or fp8; fp32 is refused) and the
 * gradient dtype it implies. */
tp_status mg_emit_precision(const slot *sl, tp_import *im, mread *x, tp_error *err)
{
    if (sl[M_BF16].set && sl[M_FP16].set)
        return word_at(err, sl[M_FP16].flag,
                       tp_error_set(err, TP_ERR_CONFIG, "--fp16",
                                    "\"--bf16\" and \"--fp16\" cannot both be set"));
    const char *prec = sl[M_FP16].set ? "fp16" : "bf16", *recipe;
    TP_TRY(read_recipe(sl, im, &recipe, err));
    if (sl[M_FP4].set && !sl[M_BF16].set && !sl[M_FP16].set) {
        return tp_error_set(err, TP_ERR_CONFIG, "--bf16",
                            "the arguments train in fp32 (neither \"--bf16\" nor \"--fp16\"); "
                            "trainplan models 16-bit mixed precision");
    } else if (sl[M_FP4].set) {
        prec = "fp8"; /* FP4 GEMMs: trainplan's fp8 precision with the nvfp4 recipe */
    } else if (sl[M_FP8].set) {
        static const char *const f8[] = {"e4m3", "hybrid", NULL};
        int k;
        TP_TRY(mg_val_choice(&sl[M_FP8], f8, &k, err));
        prec = "fp8";
    } else if (!sl[M_BF16].set && !sl[M_FP16].set) {
        return tp_error_set(err, TP_ERR_CONFIG, "--bf16",
                            "the arguments train in fp32 (neither \"--bf16\" nor \"--fp16\"); "
                            "trainplan models 16-bit mixed precision");
    }
    PUSH(push_str(im, "--precision", prec));
    if (recipe) {
        mg_from_slot(im, &sl[sl[M_FP4].set ? M_FP4 : M_FP8_RECIPE]);
        PUSH(push_str(im, "--fp8-recipe", recipe));
    }
    if (sl[M_FP4].set ? sl[M_FP4_GATHER].set : sl[M_FP8_GATHER].set) {
        mg_from_slot(im, &sl[sl[M_FP4].set ? M_FP4_GATHER : M_FP8_GATHER]);
        PUSH(push_flag(im, "--fp8-param-gather"));
    } else if (sl[M_FP4_GATHER].set) {
        list_add(im->ignored, sizeof im->ignored, "--fp4-param-gather");
    }
    bool fp16 = strcmp(prec, "fp16") == 0;
    if (fp16)
        x->grad = sl[M_ACC_FP32].set ? "fp32" : "bf16"; /* 16-bit gradients */
    else
        x->grad = sl[M_GRAD_BF16].set ? "bf16" : "fp32";
    return read_fsdp_grads(sl, im, x, err);
}

static const char *const dtype_names[] = {"fp32", "bf16", "fp16", "fp8", NULL};

/* The precision-aware optimizer's dtypes: the moment width (adamw,
 * adamw-bf16, adamw-8bit) and bf16 main gradients; without it they are
 * ignored, as Megatron ignores them. */
static tp_status read_optimizer_dtypes(const slot *sl, tp_import *im, const char **opt,
                                       const char **grad, tp_error *err)
{
    if (sl[M_PREC_AWARE].set) {
        int ea = 0, eas = 0, mg = 0, mpar = 0;
        if (sl[M_EXP_AVG].set)
            TP_TRY(mg_val_choice(&sl[M_EXP_AVG], dtype_names, &ea, err));
        if (sl[M_EXP_AVG_SQ].set)
            TP_TRY(mg_val_choice(&sl[M_EXP_AVG_SQ], dtype_names, &eas, err));
        if (sl[M_MAIN_GRADS].set)
            TP_TRY(mg_val_choice(&sl[M_MAIN_GRADS], dtype_names, &mg, err));
        if (sl[M_MAIN_PARAMS].set)
            TP_TRY(mg_val_choice(&sl[M_MAIN_PARAMS], dtype_names, &mpar, err));
        if (mpar != 0)
            return mg_not_modelled(&sl[M_MAIN_PARAMS],
                                   "\"--main-params-dtype\" keeps 16-bit master weights", err);
        int bytes_a = ea == 0 ? 4 : ea == 3 ? 1 : 2, bytes_b = eas == 0 ? 4 : eas == 3 ? 1 : 2;
        if (bytes_a != bytes_b)
            return mg_not_modelled(&sl[M_EXP_AVG_SQ],
                                   "different \"--exp-avg-dtype\" and \"--exp-avg-sq-dtype\" sizes",
                                   err);
        if (strcmp(*opt, "adamw") == 0)
            *opt = bytes_a == 4 ? "adamw" : bytes_a == 2 ? "adamw-bf16" : "adamw-8bit";
        if (bytes_a == 1)
            assume(im, "fp8 optimizer moments: counted as 8-bit moments (same bytes)");
        if (mg == 1 || mg == 2)
            *grad = "bf16";
    } else {
        if (sl[M_EXP_AVG].set)
            list_add(im->ignored, sizeof im->ignored, "--exp-avg-dtype");
        if (sl[M_EXP_AVG_SQ].set)
            list_add(im->ignored, sizeof im->ignored, "--exp-avg-sq-dtype");
        if (sl[M_MAIN_GRADS].set)
            list_add(im->ignored, sizeof im->ignored, "--main-grads-dtype");
        if (sl[M_MAIN_PARAMS].set)
            list_add(im->ignored, sizeof im->ignored, "--main-params-dtype");
    }
    return TP_OK;
}

/* Optimizer CPU offload: --optimizer-cpu-offload keeps the share
 * --optimizer-offload-fraction (Megatron's default 1.0) of the optimizer
 * state on the host; the fraction alone does nothing. */
static tp_status emit_offload(const slot *sl, tp_import *im, tp_error *err)
{
    if (!sl[M_OPT_OFFLOAD].set) {
        if (sl[M_OPT_OFFLOAD_FRAC].set)
            list_add(im->ignored, sizeof im->ignored, "--optimizer-offload-fraction");
        return TP_OK;
    }
    double frac = 1.0;
    if (sl[M_OPT_OFFLOAD_FRAC].set)
        TP_TRY(mg_val_f64(&sl[M_OPT_OFFLOAD_FRAC], 0.0, 1.0, &frac, err));
    if (!(frac > 0.0)) {
        list_add(im->ignored, sizeof im->ignored, "--optimizer-cpu-offload");
        return TP_OK;
    }
    char v[32];
    snprintf(v, sizeof v, "%.9g", frac);
    mg_from_slot(im, &sl[sl[M_OPT_OFFLOAD_FRAC].set ? M_OPT_OFFLOAD_FRAC : M_OPT_OFFLOAD]);
    PUSH(push_str(im, "--offload-optimizer", v));
    return TP_OK;
}

/* The optimizer (Adam as AdamW, SGD with or without momentum; Muon is
 * refused) and the gradient dtype, both pushed here. */
tp_status mg_emit_optimizer(const slot *sl, tp_import *im, const mread *x, tp_error *err)
{
    const char *opt = "adamw", *grad = x->grad;
    if (sl[M_OPTIMIZER].set) {
        static const char *const opts[] = {"adam", "sgd", "muon", "dist_muon", NULL};
        int k;
        TP_TRY(mg_val_choice(&sl[M_OPTIMIZER], opts, &k, err));
        if (k >= 2)
            return mg_not_modelled(&sl[M_OPTIMIZER], "\"--optimizer muon\" keeps Muon state", err);
        if (k == 1) {
            double mom;
            if (sl[M_SGD_MOM].set)
                TP_TRY(mg_val_f64(&sl[M_SGD_MOM], 0.0, 1e6, &mom, err));
            else
                mom = 0.9;
            opt = mom > 0.0 ? "sgd-momentum" : "sgd";
        }
    }
    TP_TRY(read_optimizer_dtypes(sl, im, &opt, &grad, err));
    PUSH(push_str(im, "--grad-dtype", grad));
    PUSH(push_str(im, "--optimizer", opt));
    return emit_offload(sl, im, err);
}

/* Dropout, the attention kernel and the vocabulary padding. */
/*
 * The token dispatcher and the EP all-to-all overlap. The flex dispatcher
 * with its DeepEP or HybridEP backend (the default backend is deepep;
 * --moe-enable-deepep, deprecated, sets both) sends a token once per
 * destination node: --moe-node-dispatch. --overlap-moe-expert-parallel-comm
 * -> --moe-a2a-overlap, whose dispatcher must be alltoall or flex, and
 * Megatron's default is allgather (transformer_config.py
 * moe_token_dispatcher_type); trainplan checks the layout as
 * transformer_config.py does. Otherwise the dispatcher is approximated.
 */
static tp_status emit_a2a_overlap(const slot *sl, tp_import *im, tp_error *err)
{
    static const char *const disp[] = {"allgather", "alltoall", "flex", NULL};
    static const char *const backends[] = {"deepep", "hybridep", "ncclep", NULL};
    int k = sl[M_ENABLE_DEEPEP].set ? 2 : 0, be = 0; /* allgather; flex's deepep */
    if (sl[M_DISPATCHER].set)
        TP_TRY(mg_val_choice(&sl[M_DISPATCHER], disp, &k, err));
    if (sl[M_FLEX_BACKEND].set)
        TP_TRY(mg_val_choice(&sl[M_FLEX_BACKEND], backends, &be, err));
    if (sl[M_ENABLE_DEEPEP].set)
        be = 0;
    if (k == 2 && be <= 1) {
        mg_from_slot(im, &sl[sl[M_DISPATCHER].set ? M_DISPATCHER : M_ENABLE_DEEPEP]);
        PUSH(push_flag(im, "--moe-node-dispatch"));
    } else if (sl[M_FLEX_BACKEND].set) {
        list_add(im->approximated, sizeof im->approximated, "--moe-flex-dispatcher-backend");
    }
    if (!sl[M_A2A_OVERLAP].set) {
        if (sl[M_DISPATCHER].set && k != 2)
            list_add(im->approximated, sizeof im->approximated, "--moe-token-dispatcher-type");
        return TP_OK;
    }
    if (k == 0)
        return tp_error_set(err, TP_ERR_CONFIG, "--overlap-moe-expert-parallel-comm",
                            "\"--overlap-moe-expert-parallel-comm\" needs \"--moe-token-"
                            "dispatcher-type\" alltoall or flex (Megatron-Core), got allgather%s",
                            sl[M_DISPATCHER].set ? "" : " (the default)");
    if (sl[M_DISPATCHER].set && k != 2)
        list_add(im->approximated, sizeof im->approximated, "--moe-token-dispatcher-type");
    mg_from_slot(im, &sl[M_A2A_OVERLAP]);
    PUSH(push_flag(im, "--moe-a2a-overlap"));
    return TP_OK;
}

/*
 * The loss (language_module.py compute_language_model_loss @ core_v0.15.0).
 * With --cross-entropy-loss-fusion and --cross-entropy-fusion-impl te,
 * TransformerEngine's kernel takes the bf16 logits and writes the gradient
 * into them in place (TE v2.9 pytorch/cross_entropy.py): 2 B per logit,
 * --ce-bytes-per-logit 2, which the export writes back as those two
 * arguments. Otherwise Megatron's vocabulary-parallel cross-entropy, unfused
 * or fused natively, saves the fp32 softmax (tensor_parallel/
 * cross_entropy.py, fusions/fused_cross_entropy.py): --ce-bytes-per-logit
 * 4, as --framework megatron-core sets, whatever the profile (a plan
 * without one holds PyTorch's 12, which the export notes). The native
 * fusion's speed is approximated.
 */
static tp_status emit_loss(const slot *sl, tp_import *im, tp_error *err)
{
    int k = 0; /* Megatron's default impl */
    if (sl[M_CE_IMPL].set)
        TP_TRY(mg_val_choice(&sl[M_CE_IMPL], eng_mcore_ce_impls, &k, err));
    bool te = sl[M_CE_FUSION].set && k == 1;
    if (te) {
        mg_from_slot(im, &sl[M_CE_FUSION]);
    } else { /* the native fusion (its speed), or an impl without the fusion */
        if (sl[M_CE_FUSION].set)
            list_add(im->approximated, sizeof im->approximated, "--cross-entropy-loss-fusion");
        if (sl[M_CE_IMPL].set)
            list_add(im->approximated, sizeof im->approximated, "--cross-entropy-fusion-impl");
    }
    char x[32];
    PUSH(push_str(im, "--ce-bytes-per-logit", eng_real(x, sizeof x, eng_mcore_ce_bytes(te))));
    return TP_OK;
}

tp_status mg_emit_kernels(const slot *sl, tp_import *im, const mread *x, tp_error *err)
{
    double pa = 0.1, ph = 0.1; /* Megatron's defaults */
    if (sl[M_ATT_DROP].set)
        TP_TRY(mg_val_f64(&sl[M_ATT_DROP], 0.0, 1.0, &pa, err));
    if (sl[M_HID_DROP].set)
        TP_TRY(mg_val_f64(&sl[M_HID_DROP], 0.0, 1.0, &ph, err));
    if (pa > 0.0 || ph > 0.0)
        PUSH(push_flag(im, "--dropout"));
    bool flash = true;
    if (sl[M_ATT_BACKEND].set) {
        static const char *const be[] = {"flash", "fused", "auto", "unfused", "local", NULL};
        int k;
        TP_TRY(mg_val_choice(&sl[M_ATT_BACKEND], be, &k, err));
        flash = k <= 2;
    }
    if (sl[M_USE_FLASH].set)
        flash = true;
    bool modelopt;
    TP_TRY(mg_modelopt(sl, &sl[M_LOCAL_ATTN], im, &modelopt, err));
    if (sl[M_MODELOPT].set) /* ModelOpt's layer spec: the same layers */
        list_add(im->approximated, sizeof im->approximated, "--modelopt-enabled");
    /* ModelOpt's local DotProductAttention (model_builder.py) is unfused;
     * with CP > 1 the builder keeps Transformer Engine's */
    if (modelopt && sl[M_LOCAL_ATTN].set && x->cp == 1)
        flash = false;
    if (!flash)
        PUSH(push_flag(im, "--no-flash-attn"));
    if (x->pad > 1)
        PUSH(push_i64(im, "--pad-vocab", x->pad));
    TP_TRY(emit_loss(sl, im, err));
    return emit_a2a_overlap(sl, im, err);
}
