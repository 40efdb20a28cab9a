/* SPDX-License-Identifier: MIT */
/*
 * deepspeed.c: DeepSpeed, both ways: a ds_config.json read as trainplan
 * settings (--from-deepspeed, tp_io_import_deepspeed in import.h) and a
 * plan written as a ds_config.json plus its comment file (tp_io_export
 * with TP_EXPORT_DEEPSPEED, export.h).
 *
 * Version spoken. The ds_config keys as microsoft/DeepSpeed documents them
 * in docs/_pages/config-json.md (the page deepspeed.ai/docs/config-json)
 * and data_types.grad_accum_dtype as deepspeed/runtime/constants.py
 * defines it; docs/export.md, "Sources of the engine facts", names each
 * fact with its source. The keys written and mapped are checked against
 * data/engines/deepspeed-keys-edaa7221.tsv (tools/deepspeed_keys.py, from
 * deepspeedai/DeepSpeed @ edaa7221, 2026-08-22), where the engine
 * behaviour relied on below was read too.
 *
 * Import. The JSON is walked key by key against the ds_config subset
 * below, one table per object (ds_section) and one walker (ds_object); "auto" (the Hugging Face integration's placeholder) counts as not
 * given. Mapped: train_batch_size, train_micro_batch_size_per_gpu,
 * gradient_accumulation_steps, zero_optimization.stage, bf16/fp16.enabled,
 * data_types.grad_accum_dtype, optimizer.type, activation_checkpointing
 * (full recompute, assumed), tensor_parallel.autotp_size (AutoTP: TP
 * without SP) and expert_parallel (AutoEP: EP); stage 0 under bf16 as
 * DeepSpeed runs it (ds_bf16_without_zero), and
 * zero_optimization.offload_optimizer to the CPU (its ratio at stage 3),
 * zero_optimization.offload_param to the CPU or NVMe (--offload-params).
 * Refused: the optimizer offloaded to NVMe, partitioned or CPU activation checkpoints, ZeRO++ quantisation and hpZ,
 * MiCS, sparse attention, compression, elasticity, curriculum learning,
 * Apex AMP, other optimizers, fp32 training and unknown keys. The model,
 * the GPUs and the parallel sizes come from the trainplan flags. The batch
 * identity train_batch_size = micro x accumulation x DP needs DP, which
 * only the full configuration knows, so it is checked (and the missing one
 * derived, as DeepSpeed does) in tp_engine_deepspeed_apply.
 *
 * Export. ds_config.json holds the batch sizes, precision, gradient dtype,
 * ZeRO stage, optimizer offload, optimizer type and, with full recompute,
 * an activation_checkpointing section; the comment file (JSON has no
 * comments) holds the common header (common.c) and what a DeepSpeed run
 * sets outside its config (TP, PP, CP, EP, SP, recompute, fp8, attention,
 * dropout) as trainplan flags, so that --from-deepspeed FILE FLAGS gives
 * the plan back. Listed under "Not expressible": selective recompute,
 * ZeRO 2/3 with pipeline parallelism, SGD, moments other than fp32, no
 * master weights, expert TP other than TP, fp8 parameter gather, a
 * partial optimizer offload below ZeRO 3 (docs/export.md).
 *
 * Invariants: an import never allocates memory that outlives the call;
 * the export is a pure function of its inputs.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "import_build.h"
#include "io.h"
#include "io_internal.h"
#include "recompute_modules.h"

/* ------------------------------------------------------------------ */
/* DeepSpeed: import                                                    */
/* ------------------------------------------------------------------ */

typedef enum dsk { K_IGNORE, K_APPROX, K_OBJ } dsk;

/* "a.b.c" into buf for err->path and lists. */
static const char *ds_path(char *buf, size_t n, const char *parent, const char *key)
{
    int w =
        (parent && *parent) ? snprintf(buf, n, "%s.%s", parent, key) : snprintf(buf, n, "%s", key);
    if (w < 0)
        buf[0] = '\0'; /* a longer path is cut; it only labels messages */
    return buf;
}

/* "\"PATH\" WHAT" for a value of the wrong type or range. */
static tp_status ds_err(tp_error *err, const char *path, const char *what)
{
    return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" %s", path, what);
}

static tp_status ds_not_modelled(tp_error *err, const char *path, const char *what)
{
    return tp_error_set(err, TP_ERR_CONFIG, path,
                        "\"%s\" %s, which changes memory or time in a way trainplan does not "
                        "model",
                        path, what);
}

static tp_status ds_unknown(tp_error *err, const char *path)
{
    return tp_error_set(err, TP_ERR_CONFIG, path,
                        "unknown DeepSpeed config key \"%s\": trainplan cannot tell whether it "
                        "changes memory or time",
                        path);
}

/* A positive integer, or "auto" (0). */
static tp_status ds_count(json_t *v, const char *path, int64_t max, int64_t *out, tp_import *im,
                          tp_error *err)
{
    if (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s is \"auto\": taken from the trainplan flags", path);
        assume(im, msg);
        *out = 0;
        return TP_OK;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > max)
        return tp_error_set(err, TP_ERR_CONFIG, path,
                            "\"%s\" must be a positive integer or \"auto\"", path);
    *out = (int64_t)json_integer_value(v);
    return TP_OK;
}

/* true/false, or "auto" (-1). */
static tp_status ds_bool(json_t *v, const char *path, int *out, tp_error *err)
{
    if (json_is_boolean(v)) {
        *out = json_is_true(v) ? 1 : 0;
        return TP_OK;
    }
    if (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0) {
        *out = -1;
        return TP_OK;
    }
    return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be true, false or \"auto\"", path);
}

/* A switch that is harmless when false and not modelled when true. */
static tp_status ds_reject_if_true(json_t *v, const char *path, const char *what, tp_error *err)
{
    int b = 0;
    tp_status st = ds_bool(v, path, &b, err);
    if (st != TP_OK)
        return st;
    return b == 1 ? ds_not_modelled(err, path, what) : TP_OK;
}

static bool key_in(const char *key, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(key, list[i]) == 0)
            return true;
    return false;
}

/* Classify the remaining keys of an object: approximated, ignored, or unknown. */
static tp_status ds_rest(const char *path, const char *key, const char *const *approx,
                         const char *const *ignore, tp_import *im, tp_error *err)
{
    if (approx && key_in(key, approx)) {
        list_add(im->approximated, sizeof im->approximated, path);
        return TP_OK;
    }
    if (ignore && key_in(key, ignore)) {
        list_add(im->ignored, sizeof im->ignored, path);
        return TP_OK;
    }
    return ds_unknown(err, path);
}

static tp_status ds_expect_object(json_t *v, const char *path, tp_error *err)
{
    if (!json_is_object(v))
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be an object", path);
    return TP_OK;
}

/*
 * The walker. Every object of the ds_config subset is one ds_section: the
 * keys it maps (each to a handler), the keys approximated and ignored, and
 * what the rest are (unknown, an error; or ignored, for the offload
 * sections). ds_object walks any of them the same way; the handlers
 * record what they read in a ds_read.
 */
typedef struct ds_read {
    tp_import *im;
    int stage, bf16, fp16; /* -1: "auto" or absent */
    const char *opt, *grad;
    bool ckpt;
    const char *opt_type;            /* optimizer.type */
    double momentum;                 /* optimizer.params.momentum */
    int64_t autotp;                  /* tensor_parallel.autotp_size (0: off) */
    int autoep_enabled;              /* expert_parallel.enabled */
    int64_t autoep_size, autoep_etp; /* expert_parallel sizes */
    bool offload_cpu;                /* zero_optimization.offload_optimizer.device "cpu" */
    double offload_ratio;            /* its ratio (DeepSpeed's default 1; stage 3 only) */
    const char *offload_param;       /* zero_optimization.offload_param.device "cpu"/"nvme" */
} ds_read;

typedef tp_status (*ds_fn)(json_t *x, const char *path, ds_read *r, tp_error *err);

typedef struct ds_key {
    const char *name;
    ds_fn fn;
} ds_key;

typedef struct ds_section {
    const ds_key *keys; /* ends with {NULL, NULL} */
    const char *const *approx, *const *ignore;
    bool ignore_rest; /* other keys are ignored, not unknown */
} ds_section;

static tp_status ds_object(json_t *v, const char *path, const ds_section *sec, ds_read *r,
                           tp_error *err)
{
    if (!json_is_object(v))
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be an object", path);
    const char *key;
    json_t *x;
    char p[128];
    json_object_foreach(v, key, x)
    {
        ds_path(p, sizeof p, path, key);
        const ds_key *k = sec->keys;
        while (k->name && strcmp(k->name, key) != 0)
            k++;
        if (k->name)
            TP_TRY(k->fn(x, p, r, err));
        else if (sec->ignore_rest)
            list_add(r->im->ignored, sizeof r->im->ignored, p);
        else
            TP_TRY(ds_rest(p, key, sec->approx, sec->ignore, r->im, err));
    }
    return TP_OK;
}

/* ---- offload_optimizer's device: "none" or "cpu" (NVMe is refused) ---- */

static tp_status ds_offload_device(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)r;
    if (!json_is_string(x))
        return ds_err(err, p, "must be \"none\", \"cpu\" or \"nvme\"");
    const char *d = json_string_value(x);
    if (strcmp(d, "none") == 0)
        return TP_OK;
    char what[96];
    snprintf(what, sizeof what, "\"%s\" offloads to the %s", d,
             strcmp(d, "nvme") == 0 ? "NVMe drive" : "CPU");
    /* named by the section, as in "zero_optimization.offload_param" */
    char section[128];
    const char *dot = strrchr(p, '.');
    snprintf(section, sizeof section, "%.*s", (int)(dot ? dot - p : (ptrdiff_t)strlen(p)), p);
    return ds_not_modelled(err, section, what);
}

/* offload_param: ZeRO-Infinity's parameter offload to the CPU or NVMe is
 * modelled (trainplan's --offload-params; ZeRO 3, checked by trainplan);
 * DeepSpeedZeroOffloadParamConfig's other keys (nvme_path, buffers, pinning)
 * do not change the model's bytes or transfers. */
static tp_status ds_offload_param_device(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    if (!json_is_string(x))
        return ds_err(err, p, "must be \"none\", \"cpu\" or \"nvme\"");
    const char *d = json_string_value(x);
    if (strcmp(d, "none") != 0 && strcmp(d, "cpu") != 0 && strcmp(d, "nvme") != 0)
        return ds_err(err, p, "must be \"none\", \"cpu\" or \"nvme\"");
    r->offload_param = strcmp(d, "none") == 0 ? NULL : d;
    return TP_OK;
}

static const ds_key offload_keys[] = {{"device", ds_offload_param_device}, {NULL, NULL}};
static const ds_section offload_section = {offload_keys, NULL, NULL, true};

static tp_status ds_offload(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return json_is_null(x) ? TP_OK : ds_object(x, p, &offload_section, r, err);
}

/* offload_optimizer: ZeRO-Offload to the CPU is modelled (trainplan's
 * --offload-optimizer); to NVMe it is not. The keys are those of
 * DeepSpeedZeroOffloadOptimizerConfig (runtime/zero/offload_config.py). */
static tp_status ds_offload_opt_device(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    if (json_is_string(x) && strcmp(json_string_value(x), "cpu") == 0) {
        r->offload_cpu = true;
        return TP_OK;
    }
    return ds_offload_device(x, p, r, err);
}

static tp_status ds_offload_opt_ratio(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    if (!json_is_number(x) || !(json_number_value(x) >= 0.0) || json_number_value(x) > 1.0)
        return ds_err(err, p, "must be a number from 0 to 1");
    r->offload_ratio = json_number_value(x);
    return TP_OK;
}

static const ds_key offload_opt_keys[] = {
    {"device", ds_offload_opt_device}, {"ratio", ds_offload_opt_ratio}, {NULL, NULL}};
static const ds_section offload_opt_section = {offload_opt_keys, NULL, NULL, true};

static tp_status ds_offload_opt(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return json_is_null(x) ? TP_OK : ds_object(x, p, &offload_opt_section, r, err);
}

/* ---- zero_optimization ---- */

static tp_status ds_zero_stage(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    if (json_is_string(x) && strcmp(json_string_value(x), "auto") == 0) {
        assume(r->im, "zero_optimization.stage is \"auto\": taken from the trainplan flags");
        r->stage = -1;
        return TP_OK;
    }
    if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 3)
        return ds_err(err, p, "must be 0, 1, 2 or 3");
    r->stage = (int)json_integer_value(x);
    return TP_OK;
}

static tp_status ds_cpu_offload(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)r;
    return ds_reject_if_true(x, p, "offloads to the CPU", err);
}

static tp_status ds_zeropp(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)r;
    return ds_reject_if_true(x, p, "quantises ZeRO communication (ZeRO++)", err);
}

static tp_status ds_hpz(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)r;
    if (!json_is_integer(x))
        return ds_err(err, p, "must be an integer");
    if (json_integer_value(x) > 1)
        return ds_not_modelled(err, p, "keeps a secondary weight partition (ZeRO++ hpZ)");
    return TP_OK;
}

static tp_status ds_mics(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)r;
    if (!json_is_integer(x))
        return ds_err(err, p, "must be an integer");
    if (json_integer_value(x) > 0)
        return ds_not_modelled(err, p, "shards over sub-groups (MiCS)");
    return TP_OK;
}

static const ds_key zero_keys[] = {{"stage", ds_zero_stage},
                                   {"offload_optimizer", ds_offload_opt},
                                   {"offload_param", ds_offload},
                                   {"cpu_offload", ds_cpu_offload},
                                   {"cpu_offload_params", ds_cpu_offload},
                                   {"zero_quantized_weights", ds_zeropp},
                                   {"zero_quantized_gradients", ds_zeropp},
                                   {"zero_quantized_nontrainable_weights", ds_zeropp},
                                   {"zero_hpz_partition_size", ds_hpz},
                                   {"mics_shard_size", ds_mics},
                                   {NULL, NULL}};
static const char *const zero_approx[] = {"overlap_comm",
                                          "contiguous_gradients",
                                          "reduce_bucket_size",
                                          "allgather_bucket_size",
                                          "allgather_partitions",
                                          "reduce_scatter",
                                          "round_robin_gradients",
                                          "stage3_prefetch_bucket_size",
                                          "stage3_param_persistence_threshold",
                                          "stage3_max_live_parameters",
                                          "stage3_max_reuse_distance",
                                          "sub_group_size",
                                          "memory_efficient_linear",
                                          "use_multi_rank_bucket_allreduce",
                                          "mics_hierarchical_params_gather",
                                          "prefetch_bucket_size",
                                          "param_persistence_threshold",
                                          "max_live_parameters",
                                          "max_reuse_distance",
                                          NULL};
static const char *const zero_ignore[] = {"stage3_gather_16bit_weights_on_model_save",
                                          "gather_16bit_weights_on_model_save",
                                          "stage3_gather_fp16_weights_on_model_save",
                                          "elastic_checkpoint",
                                          "load_from_fp32_weights",
                                          "ignore_unused_parameters",
                                          "legacy_stage1",
                                          "log_trace_cache_warnings",
                                          "cpu_offload_use_pin_memory",
                                          NULL};
static const ds_section zero_section = {zero_keys, zero_approx, zero_ignore, false};

/* ---- bf16 / fp16: enabled is 1, 0, or -1 ("auto" or absent) ---- */

static tp_status ds_enabled(json_t *x, const char *p, ds_read *r, int *enabled, tp_error *err)
{
    TP_TRY(ds_bool(x, p, enabled, err));
    if (*enabled < 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s is \"auto\": precision taken from the trainplan flags", p);
        assume(r->im, msg);
    }
    return TP_OK;
}

static tp_status ds_bf16_enabled(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_enabled(x, p, r, &r->bf16, err);
}

static tp_status ds_fp16_enabled(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_enabled(x, p, r, &r->fp16, err);
}

static tp_status ds_half_master(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)r;
    return ds_reject_if_true(x, p, "keeps 16-bit master weights and gradients", err);
}

static const char *const half_approx[] = {"auto_cast", "immediate_grad_update", NULL};
static const char *const fp16_ignore[] = {
    "loss_scale", "initial_scale_power",    "loss_scale_window",
    "hysteresis", "consecutive_hysteresis", "min_loss_scale",
    NULL};
static const ds_key bf16_keys[] = {
    {"enabled", ds_bf16_enabled}, {"fp16_master_weights_and_grads", ds_half_master}, {NULL, NULL}};
static const ds_key fp16_keys[] = {
    {"enabled", ds_fp16_enabled}, {"fp16_master_weights_and_grads", ds_half_master}, {NULL, NULL}};
static const ds_section bf16_section = {bf16_keys, half_approx, NULL, false};
static const ds_section fp16_section = {fp16_keys, half_approx, fp16_ignore, false};

/* ---- optimizer: type (and params.momentum for SGD); other keys unknown ---- */

static tp_status ds_opt_type(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    if (!json_is_string(x))
        return ds_err(err, p, "must be a string");
    r->opt_type = json_string_value(x);
    return TP_OK;
}

static tp_status ds_opt_params(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    if (!json_is_object(x))
        return ds_err(err, p, "must be an object");
    json_t *mom = json_object_get(x, "momentum");
    if (json_is_number(mom))
        r->momentum = json_number_value(mom);
    list_add(r->im->ignored, sizeof r->im->ignored, p);
    return TP_OK;
}

static const ds_key opt_keys[] = {{"type", ds_opt_type}, {"params", ds_opt_params}, {NULL, NULL}};
static const ds_section opt_section = {opt_keys, NULL, NULL, false};

/* The optimizer's type as trainplan's --optimizer. */
static tp_status ds_optimizer_kind(ds_read *r, tp_error *err)
{
    const char *type = r->opt_type;
    if (!type)
        return tp_error_set(err, TP_ERR_CONFIG, "optimizer.type", "\"optimizer\" has no \"type\"");
    static const char *const adam[] = {
        "Adam", "AdamW", "adam", "adamw", "FusedAdam", "CPUAdam", "DeepSpeedCPUAdam", NULL};
    if (strcmp(type, "CPUAdam") == 0 || strcmp(type, "DeepSpeedCPUAdam") == 0)
        return ds_not_modelled(err, "optimizer.type", "runs the optimizer on the CPU");
    if (key_in(type, adam)) {
        r->opt = "adamw";
    } else if (strcmp(type, "SGD") == 0 || strcmp(type, "sgd") == 0) {
        r->opt = r->momentum > 0.0 ? "sgd-momentum" : "sgd";
    } else {
        char what[128];
        snprintf(what, sizeof what, "\"%s\" keeps optimizer state other than AdamW's or SGD's",
                 type);
        return ds_not_modelled(err, "optimizer.type", what);
    }
    return TP_OK;
}

/* ---- activation_checkpointing ---- */

static tp_status ds_partition_acts(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)r;
    return ds_reject_if_true(x, p, "splits the checkpointed activations across GPUs", err);
}

static tp_status ds_cpu_ckpt(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)r;
    return ds_reject_if_true(x, p, "moves the checkpointed activations to the CPU", err);
}

static const ds_key ckpt_keys[] = {
    {"partition_activations", ds_partition_acts}, {"cpu_checkpointing", ds_cpu_ckpt}, {NULL, NULL}};
static const char *const ckpt_approx[] = {"contiguous_memory_optimization",
                                          "synchronize_checkpoint_boundary", NULL};
static const char *const ckpt_ignore[] = {"number_checkpoints", "profile", NULL};
static const ds_section ckpt_section = {ckpt_keys, ckpt_approx, ckpt_ignore, false};

/* ---- data_types: grad_accum_dtype only ---- */

static tp_status ds_grad_dtype(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    static const char *const dts[] = {"fp32", "bf16", "fp16", NULL};
    if (!json_is_string(x) || !key_in(json_string_value(x), dts))
        return ds_err(err, p, "must be \"fp32\", \"bf16\" or \"fp16\"");
    r->grad = strcmp(json_string_value(x), "fp32") == 0 ? "fp32" : "bf16";
    return TP_OK;
}

static const ds_key dtype_keys[] = {{"grad_accum_dtype", ds_grad_dtype}, {NULL, NULL}};
static const ds_section dtype_section = {dtype_keys, NULL, NULL, false};

/* ---- sections with an "enabled" switch that trainplan cannot model ---- */

static tp_status ds_enabled_reject(json_t *v, const char *name, const char *what, tp_import *im,
                                   tp_error *err)
{
    TP_TRY(ds_expect_object(v, name, err));
    json_t *en = json_object_get(v, "enabled");
    char p[128];
    ds_path(p, sizeof p, name, "enabled");
    if (en)
        TP_TRY(ds_reject_if_true(en, p, what, err));
    list_add(im->ignored, sizeof im->ignored, name);
    return TP_OK;
}

/* ---- the top level ---- */

static tp_status ds_train_batch(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_count(x, p, TP_MAX_BATCH, &r->im->ds_train_batch, r->im, err);
}

static tp_status ds_micro_batch(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_count(x, p, TP_MAX_BATCH, &r->im->ds_micro_batch, r->im, err);
}

static tp_status ds_grad_accum(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_count(x, p, TP_MAX_BATCH, &r->im->ds_grad_accum, r->im, err);
}

static tp_status ds_zero(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    TP_TRY(ds_object(x, p, &zero_section, r, err));
    if (r->stage < 0 && !json_object_get(x, "stage"))
        r->stage = 0;
    return TP_OK;
}

static tp_status ds_bf16(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_object(x, p, &bf16_section, r, err);
}

static tp_status ds_fp16(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_object(x, p, &fp16_section, r, err);
}

static tp_status ds_optimizer(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    r->opt_type = NULL;
    r->momentum = 0.0;
    TP_TRY(ds_object(x, p, &opt_section, r, err));
    return ds_optimizer_kind(r, err);
}

static tp_status ds_checkpointing(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    TP_TRY(ds_object(x, p, &ckpt_section, r, err));
    r->ckpt = true;
    return TP_OK;
}

static tp_status ds_data_types(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_object(x, p, &dtype_section, r, err);
}

static tp_status ds_amp(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_enabled_reject(x, p, "trains with NVIDIA Apex AMP", r->im, err);
}

static tp_status ds_elasticity(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_enabled_reject(x, p, "changes the batch with the number of GPUs", r->im, err);
}

static tp_status ds_curriculum(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_enabled_reject(x, p, "changes the sequence length while training", r->im, err);
}

static tp_status ds_sparse_attention(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)x;
    (void)r;
    return ds_not_modelled(err, p, "uses sparse attention");
}

static tp_status ds_compression(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)x;
    (void)r;
    return ds_not_modelled(err, p, "compresses the model while training");
}

/* ---- tensor_parallel (AutoTP) and expert_parallel (AutoEP) ---- */

/* A positive integer key of a section (sizes of AutoTP and AutoEP). */
static tp_status ds_size(json_t *x, const char *p, int64_t *out, tp_error *err)
{
    if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > TP_MAX_GPUS)
        return ds_err(err, p, "must be an integer in [0, 1048576]");
    *out = (int64_t)json_integer_value(x);
    return TP_OK;
}

/* "tensor_parallel": AutoTP training (deepspeed/runtime/tensor_parallel/
 * config.py, TPTrainingConfig @ edaa7221): autotp_size is the TP degree
 * (0: off); the sharded linears all-reduce, without sequence parallelism.
 * A custom partition_config changes which weights are sharded. */
static tp_status ds_autotp_size(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_size(x, p, &r->autotp, err);
}

static tp_status ds_partition_config(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    (void)r;
    if (json_is_null(x))
        return TP_OK;
    return ds_not_modelled(err, p, "shards the weights by custom layer rules");
}

static const ds_key autotp_keys[] = {
    {"autotp_size", ds_autotp_size}, {"partition_config", ds_partition_config}, {NULL, NULL}};
static const char *const autotp_approx[] = {"tp_overlap_comm", NULL};
static const char *const autotp_ignore[] = {"dtype", "injection_policy_tuple", "tensor_parallel",
                                            "tp", NULL};
static const ds_section autotp_section = {autotp_keys, autotp_approx, autotp_ignore, false};

/* "expert_parallel": AutoEP (deepspeed/module_inject/auto_ep_config.py
 * @ edaa7221): enabled and autoep_size, the EP degree; the patterns and
 * routing options say where the experts are and how scores combine, which
 * leaves memory and time alone. Experts sharded by their own TP are not
 * modelled. */
static tp_status ds_autoep_enabled(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    if (!json_is_boolean(x))
        return ds_err(err, p, "must be true or false");
    r->autoep_enabled = json_is_true(x);
    return TP_OK;
}

static tp_status ds_autoep_size(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_size(x, p, &r->autoep_size, err);
}

static tp_status ds_autoep_etp(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_size(x, p, &r->autoep_etp, err);
}

static const ds_key autoep_keys[] = {{"enabled", ds_autoep_enabled},
                                     {"autoep_size", ds_autoep_size},
                                     {"expert_tensor_parallel_size", ds_autoep_etp},
                                     {NULL, NULL}};
static const char *const autoep_approx[] = {"use_grouped_mm", "disable_triton_grouped_mm",
                                            "combine_impl", NULL};
static const char *const autoep_ignore[] = {"validate_folding_routing",
                                            "preset_model",
                                            "moe_layer_pattern",
                                            "expert_pattern",
                                            "router_pattern",
                                            "route_norm",
                                            "route_scale",
                                            "score_apply",
                                            "num_expert_groups",
                                            "num_limited_groups",
                                            "score_func",
                                            "top_k",
                                            "load_balance_coeff",
                                            "routed_scaling_factor",
                                            "expert_w1",
                                            "expert_w2",
                                            "expert_w3",
                                            "num_experts_attr",
                                            "top_k_attr",
                                            "has_shared_experts",
                                            "shared_experts_pattern",
                                            "shared_experts_gate_pattern",
                                            NULL};
static const ds_section autoep_section = {autoep_keys, autoep_approx, autoep_ignore, false};

static tp_status ds_tensor_parallel(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    return ds_object(x, p, &autotp_section, r, err);
}

static tp_status ds_expert_parallel(json_t *x, const char *p, ds_read *r, tp_error *err)
{
    r->autoep_size = 1;
    r->autoep_etp = 1;
    return ds_object(x, p, &autoep_section, r, err);
}

static const ds_key root_keys[] = {{"train_batch_size", ds_train_batch},
                                   {"train_micro_batch_size_per_gpu", ds_micro_batch},
                                   {"gradient_accumulation_steps", ds_grad_accum},
                                   {"zero_optimization", ds_zero},
                                   {"bf16", ds_bf16},
                                   {"fp16", ds_fp16},
                                   {"amp", ds_amp},
                                   {"optimizer", ds_optimizer},
                                   {"activation_checkpointing", ds_checkpointing},
                                   {"data_types", ds_data_types},
                                   {"tensor_parallel", ds_tensor_parallel},
                                   {"expert_parallel", ds_expert_parallel},
                                   {"sparse_attention", ds_sparse_attention},
                                   {"compression_training", ds_compression},
                                   {"elasticity", ds_elasticity},
                                   {"curriculum_learning", ds_curriculum},
                                   {"data_efficiency", ds_curriculum},
                                   {NULL, NULL}};
static const char *const root_ignore[] = {"gradient_clipping",
                                          "steps_per_print",
                                          "wall_clock_breakdown",
                                          "dump_state",
                                          "memory_breakdown",
                                          "tensorboard",
                                          "wandb",
                                          "csv_monitor",
                                          "comet",
                                          "flops_profiler",
                                          "comms_logger",
                                          "zero_allow_untested_optimizer",
                                          "zero_force_ds_cpu_optimizer",
                                          "checkpoint",
                                          "aio",
                                          "scheduler",
                                          "load_universal_checkpoint",
                                          "monitor_config",
                                          NULL};
static const char *const root_approx[] = {"prescale_gradients",
                                          "gradient_predivide_factor",
                                          "communication_data_type",
                                          "sparse_gradients",
                                          "disable_allgather",
                                          "pipeline",
                                          "timers",
                                          NULL};
static const ds_section root_section = {root_keys, root_approx, root_ignore, false};

/* The optimizer offload read: the ratio counts at ZeRO stage 3 only (at
 * stages 1 and 2 DeepSpeed offloads the whole optimizer state). */
static tp_status ds_push_offload(const ds_read *r, int stage, tp_error *err)
{
    tp_import *im = r->im;
    if (!r->offload_cpu)
        return TP_OK;
    double frac = r->offload_ratio;
    if (stage >= 0 && stage < 3 && frac < 1.0) {
        assume(im, "zero_optimization.offload_optimizer.ratio applies at ZeRO stage 3 only: "
                   "the whole optimizer state is offloaded");
        frac = 1.0;
    }
    if (!(frac > 0.0))
        return TP_OK;
    char v[32];
    snprintf(v, sizeof v, "%.9g", frac);
    from(im, "zero_optimization.offload_optimizer", 0, 0);
    PUSH(push_str(im, "--offload-optimizer", v));
    return TP_OK;
}

static tp_status ds_walk(json_t *root, tp_import *im, tp_error *err)
{
    if (!json_is_object(root))
        return tp_error_set(err, TP_ERR_CONFIG, "", "a DeepSpeed config must be a JSON object");
    ds_read r = {.im = im, .stage = -1, .bf16 = -1, .fp16 = -1, .offload_ratio = 1.0};
    TP_TRY(ds_object(root, "", &root_section, &r, err));
    int stage = r.stage, bf16 = r.bf16, fp16 = r.fp16;
    const char *opt = r.opt, *grad = r.grad;
    bool ckpt = r.ckpt;
    int64_t autotp = r.autotp,
            autoep = r.autoep_enabled ? (r.autoep_size > 0 ? r.autoep_size : 1) : 0;
    if (r.autoep_enabled && r.autoep_etp > 1)
        return ds_not_modelled(err, "expert_parallel.expert_tensor_parallel_size",
                               "shards each expert over its own tensor-parallel group");
    if (autotp > 1 && autoep > 1)
        return ds_not_modelled(err, "expert_parallel.autoep_size",
                               "with tensor_parallel.autotp_size > 1 folds the expert-parallel "
                               "group over the AutoTP ranks (module_inject/auto_ep_folding.py)");
    if (bf16 == 1 && fp16 == 1)
        return tp_error_set(err, TP_ERR_CONFIG, "fp16.enabled",
                            "\"bf16.enabled\" and \"fp16.enabled\" cannot both be true");
    if (bf16 == 0 && fp16 <= 0 && json_object_get(root, "fp16") == NULL)
        return tp_error_set(err, TP_ERR_CONFIG, "bf16.enabled",
                            "the config trains in fp32 (\"bf16.enabled\" is false and there is "
                            "no \"fp16\"); trainplan models 16-bit mixed precision");
    if (bf16 == 0 && fp16 == 0)
        return tp_error_set(err, TP_ERR_CONFIG, "fp16.enabled",
                            "the config trains in fp32 (\"bf16\" and \"fp16\" are disabled); "
                            "trainplan models 16-bit mixed precision");

    if (im->ds_micro_batch > 0) {
        from(im, "train_micro_batch_size_per_gpu", 0, 0);
        PUSH(push_i64(im, "--micro-batch", im->ds_micro_batch));
    }
    if (im->ds_train_batch > 0) {
        from(im, "train_batch_size", 0, 0);
        PUSH(push_i64(im, "--global-batch", im->ds_train_batch));
    }
    if (stage >= 0) {
        from(im, "zero_optimization.stage", 0, 0);
        PUSH(push_i64(im, "--zero", stage));
    } else if (!json_object_get(root, "zero_optimization"))
        PUSH(push_i64(im, "--zero", 0));
    if (bf16 == 1)
        PUSH(push_str(im, "--precision", "bf16"));
    else if (fp16 == 1)
        PUSH(push_str(im, "--precision", "fp16"));
    else if (bf16 < 0 && fp16 < 0)
        assume(im, "no bf16/fp16 section: precision taken from the trainplan flags");
    if (autotp > 0) {
        from(im, "tensor_parallel.autotp_size", 0, 0);
        PUSH(push_i64(im, "--tp", autotp));
        PUSH(push_flag(im, "--no-sp"));
        assume(im, "tensor_parallel.autotp_size: AutoTP shards the linears without sequence "
                   "parallelism (--no-sp)");
    }
    if (autoep > 0) {
        from(im, "expert_parallel.autoep_size", 0, 0);
        PUSH(push_i64(im, "--ep", autoep));
    }
    if (stage == 0 && bf16 == 1)
        assume(im, "zero_optimization.stage 0 with bf16: with pipeline parallelism DeepSpeed wraps "
                   "the optimizer in its BF16_Optimizer, which shards the fp32 master weights and "
                   "optimizer state over the data-parallel ranks like ZeRO-1 (read as --zero 1 "
                   "when --pp > 1)");
    if (grad)
        PUSH(push_str(im, "--grad-dtype", grad));
    else
        assume(im, "no data_types.grad_accum_dtype: gradient type taken from the trainplan flags");
    if (opt)
        PUSH(push_str(im, "--optimizer", opt));
    else
        assume(im, "no optimizer section (the script builds it): optimizer taken from the "
                   "trainplan flags");
    TP_TRY(ds_push_offload(&r, stage, err));
    if (r.offload_param) {
        from(im, "zero_optimization.offload_param", 0, 0);
        PUSH(push_str(im, "--offload-params", r.offload_param));
    }
    if (ckpt) {
        PUSH(push_str(im, "--recompute", "full"));
        assume(im, "activation_checkpointing present: the model is assumed to checkpoint every "
                   "layer (--recompute full)");
    }
    return TP_OK;
}

tp_status tp_io_import_deepspeed(const char *text, const char *origin, tp_import *out,
                                 tp_error *err)
{
    (void)origin; /* the DeepSpeed config does not name the model */
    memset(out, 0, sizeof *out);
    out->kind = TP_IMPORT_DEEPSPEED;
    if (!text)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "no DeepSpeed config");
    json_t *root;
    tp_status pst = tp_io__json_parse(text, JSON_REJECT_DUPLICATES,
                                      "out of memory reading the DeepSpeed config", "", &root, err);
    if (pst != TP_OK)
        return pst;
    tp_status st = ds_walk(root, out, err);
    json_decref(root);
    return st;
}

/* ------------------------------------------------------------------ */
/* DeepSpeed: the second step (tp_io_import_apply)                      */
/* ------------------------------------------------------------------ */

/* a x b x c when it is at most MAX_BATCH (all three >= 1), else false. */
static bool ds_batch_product(int64_t a, int64_t b, int64_t c, int64_t *out)
{
    int64_t ab, abc;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc) ||
        abc > TP_MAX_BATCH)
        return false;
    *out = abc;
    return true;
}

/* train_batch_size = micro x accumulation x DP, the missing one derived as
 * DeepSpeed does; flags given by the user win. */
/* Which optimizer wrapper DeepSpeed picks without ZeRO under bf16
 * (deepspeed/runtime/engine.py, _do_optimizer_sanity_check @ edaa7221):
 * bf16 weights with fp32 gradient accumulation and no ZeRO is refused
 * ("unsupported mix of model_dtype and grad_accum_dtype"); bf16 with bf16
 * accumulation under pipeline parallelism is BF16_Optimizer
 * (runtime/bf16_optimizer.py), which partitions the fp32 master weights
 * and the optimizer state over the data-parallel group: ZeRO-1's memory. */
static tp_status ds_bf16_without_zero(tp_config *c, tp_error *err)
{
    tp_train *t = &c->train;
    if (t->zero != 0 || (t->precision != TP_PREC_BF16 && t->precision != TP_PREC_FP8))
        return TP_OK;
    if (t->grad_dtype == TP_DTYPE_FP32)
        return tp_error_set(err, TP_ERR_CONFIG, "zero_optimization.stage",
                            "ZeRO stage 0 with bf16 weights and fp32 gradient accumulation: "
                            "DeepSpeed refuses this mix (unsupported mix of model_dtype and "
                            "grad_accum_dtype); use ZeRO stage 1 or bf16 accumulation");
    if (t->pp > 1)
        t->zero = 1; /* BF16_Optimizer */
    return TP_OK;
}

tp_status tp_engine_deepspeed_apply(const tp_import *im, const tp_import_user *user, tp_config *c,
                                    tp_error *err)
{
    TP_TRY(ds_bf16_without_zero(c, err));
    int64_t ga = im->ds_grad_accum;
    if (ga <= 0)
        return TP_OK;
    tp_train *t = &c->train;
    int64_t dp = tp_train_dp(t);
    if (dp < 1)
        return TP_OK; /* tp_config_validate reports the layout */
    bool micro_given = user->micro_batch || im->ds_micro_batch > 0;
    bool global_given = user->global_batch || im->ds_train_batch > 0;
    /* Each factor is at most 2^40 (ds_count), so the products can pass
     * int64: check them before using them (issue 14). */
    int64_t ga_dp = 1, product = 0;
    if (!ds_batch_product(1, ga, dp, &ga_dp))
        return tp_error_set(err, TP_ERR_CONFIG, "gradient_accumulation_steps",
                            "gradient_accumulation_steps %" PRId64 " x data-parallel size %" PRId64
                            " is more than the %" PRId64 " sequences a global batch may have",
                            ga, dp, (int64_t)TP_MAX_BATCH);
    if (!(!micro_given && global_given) && !ds_batch_product(t->micro_batch, ga, dp, &product))
        return tp_error_set(err, TP_ERR_CONFIG, "gradient_accumulation_steps",
                            "train_micro_batch_size_per_gpu %" PRId64
                            " x gradient_accumulation_steps %" PRId64
                            " x data-parallel size %" PRId64 " is more than the %" PRId64
                            " sequences a global batch may have",
                            t->micro_batch, ga, dp, (int64_t)TP_MAX_BATCH);
    if (!micro_given && !global_given) {
        t->global_batch = product;
    } else if (micro_given && !global_given) {
        t->global_batch = product;
    } else if (!micro_given && global_given) {
        if (t->global_batch % ga_dp != 0)
            return tp_error_set(err, TP_ERR_CONFIG, "train_batch_size",
                                "%" PRId64
                                " is not a multiple of gradient_accumulation_steps %" PRId64
                                " x data-parallel size %" PRId64,
                                t->global_batch, ga, dp);
        t->micro_batch = t->global_batch / ga_dp;
    } else if (t->global_batch != product) {
        return tp_error_set(err, TP_ERR_CONFIG, "train_batch_size",
                            "%" PRId64 " is not train_micro_batch_size_per_gpu %" PRId64
                            " x gradient_accumulation_steps %" PRId64
                            " x data-parallel size %" PRId64 " (= %" PRId64 ")",
                            t->global_batch, t->micro_batch, ga, dp, product);
    }
    return TP_OK;
}

/* ------------------------------------------------------------------ */
/* DeepSpeed: export                                                    */
/* ------------------------------------------------------------------ */

/* json_object_set_new with a sticky failure flag. */
static void jset(bool *ok, json_t *o, const char *key, json_t *v)
{
    if (!o || !v || json_object_set_new(o, key, v) != 0)
        *ok = false;
}

/* The trainplan flags of what ds_config.json cannot hold: tp_io_config_flags
 * less the batch, ZeRO, dtypes and optimizer the config itself says. */
static void ds_outside_flags(sbuf *b, const tp_config *c)
{
    const tp_train *t = &c->train;
    eng_model_gpu_flags(b, c);
    eng_layout_flags(b, t);
    sb_printf(b, " --seq-len %" PRId64, t->seq_len);
    eng_recompute_flags(b, t);
    if (t->precision == TP_PREC_FP8)
        sb_puts(b, " --precision fp8");
    eng_switch_flags(b, t);
    /* the issue 16 settings outside ds_config.json (the offload is in it) */
    if (tp_expert_tp(t) != t->tp)
        sb_printf(b, " --etp %" PRId64, tp_expert_tp(t));
    if (t->fp8_param_gather)
        sb_puts(b, " --fp8-param-gather");
    if (t->recompute == TP_RECOMPUTE_SELECTIVE && t->recompute_modules) {
        char mods[96];
        sb_printf(b, " --recompute-modules %s",
                  tp_io_recompute_modules_text(t->recompute_modules, mods, sizeof mods));
    }
    if (t->recompute == TP_RECOMPUTE_FULL && t->recompute_layers > 0)
        sb_printf(b, " --recompute-block-layers %" PRId64, t->recompute_layers);
    if (t->offload_act_layers > 0)
        sb_printf(b, " --offload-activations %" PRId64, t->offload_act_layers);
    if (t->fp8_recipe != TP_FP8_DELAYED)
        sb_printf(b, " --fp8-recipe %s",
                  t->fp8_recipe == TP_FP8_TENSORWISE ? "tensorwise"
                  : t->fp8_recipe == TP_FP8_MXFP8    ? "mxfp8"
                                                     : "nvfp4");
    /* the loss is the model code's (Megatron-DeepSpeed's vocabulary-parallel
     * cross-entropy holds 4 B a logit), not the config's */
    eng_convention_flag(b, &c->opts, "--ce-bytes-per-logit");
    eng_convention_flag(b, &c->opts, "--ce-bytes-per-logit-tp");
}

/* Optimizer offload as ZeRO-Offload: device "cpu"; a partial share only at
 * ZeRO stage 3 (offload_config.py: ratio "Only valid with ZeRO Stage 3"),
 * else the whole state, said so. */
static void ds_offload_export(bool *ok, json_t *zo, const tp_train *t, int stage, notes *nx)
{
    if (!(t->offload_optimizer > 0.0))
        return;
    json_t *off = json_object();
    jset(ok, off, "device", json_string("cpu"));
    if (t->offload_optimizer < 1.0) {
        if (stage == 3)
            jset(ok, off, "ratio", json_real(t->offload_optimizer));
        else
            eng_note(nx,
                     "optimizer offload of %g of the state: DeepSpeed's offload_optimizer.ratio "
                     "applies at ZeRO stage 3 only; written as the whole optimizer state "
                     "offloaded (--offload-optimizer 1)",
                     t->offload_optimizer);
    }
    jset(ok, zo, "offload_optimizer", off);
}

/* Parameter offload as ZeRO-Infinity's offload_param (ZeRO 3, validated);
 * to NVMe DeepSpeed also needs the drive's mount point, which is the
 * user's. */
static void ds_offload_param_export(bool *ok, json_t *zo, const tp_train *t, notes *nx)
{
    if (t->offload_params == TP_OFFLOAD_NONE)
        return;
    bool nvme = t->offload_params == TP_OFFLOAD_NVME;
    json_t *off = json_object();
    jset(ok, off, "device", json_string(nvme ? "nvme" : "cpu"));
    jset(ok, zo, "offload_param", off);
    if (nvme)
        eng_note(nx, "parameter offload to NVMe: set zero_optimization.offload_param.nvme_path "
                     "to the drive's mount point");
}

/* The issue 16 features DeepSpeed's config cannot hold. */
static void ds_feature_notes(const tp_config *c, notes *nx, notes *outside)
{
    const tp_train *t = &c->train;
    if (tp_expert_tp(t) != t->tp)
        eng_note(nx,
                 "expert tensor parallelism %" PRId64 " with tensor parallelism %" PRId64
                 " (MoE parallel folding): DeepSpeed has no separate expert layout; its MoE "
                 "layer shards the experts over the tensor-parallel group or not at all "
                 "(deepspeed.moe.layer.MoE enable_expert_tensor_parallelism)",
                 tp_expert_tp(t), t->tp);
    if (t->fp8_param_gather)
        eng_note(nx, "fp8 parameter gather: DeepSpeed has no fp8 weights; ZeRO gathers the "
                     "16-bit weights");
    if (t->recompute == TP_RECOMPUTE_FULL && t->recompute_layers > 0)
        eng_note(outside,
                 "only the first %" PRId64 " layers of each pipeline stage are recomputed "
                 "(Megatron-DeepSpeed --recompute-method block --recompute-num-layers %" PRId64 ")",
                 t->recompute_layers, t->recompute_layers);
    /* issue 16: parameter and activation offload, fp8 recipes (flags line) */
    if (t->offload_act_layers > 0)
        eng_note(nx,
                 "activations of %" PRId64 " layers offloaded to the CPU (Megatron-Core's "
                 "--cpu-offloading-num-layers): DeepSpeed's activation checkpointing "
                 "cpu_checkpointing offloads checkpoints, not a layer's activations",
                 t->offload_act_layers);
    if (t->fp8_recipe != TP_FP8_DELAYED)
        eng_note(nx,
                 "fp8 recipe %s: DeepSpeed's config has no fp8 recipe (TransformerEngine "
                 "sets it in the model code)",
                 t->fp8_recipe == TP_FP8_TENSORWISE ? "tensorwise"
                 : t->fp8_recipe == TP_FP8_MXFP8    ? "mxfp8"
                                                    : "nvfp4");
}

/* The ZeRO stage written: the plan's, except where DeepSpeed would not run
 * it or would run it differently without ZeRO under bf16 (see
 * ds_bf16_without_zero). */
static int ds_export_stage(const tp_train *t, notes *nx)
{
    bool bf16 = t->precision != TP_PREC_FP16;
    if (t->zero != 0 || !bf16)
        return t->zero;
    if (t->grad_dtype == TP_DTYPE_FP32) {
        eng_note(nx, "ZeRO 0 with bf16 and fp32 gradients: DeepSpeed refuses this mix (engine.py, "
                     "unsupported mix of model_dtype and grad_accum_dtype); written as ZeRO stage "
                     "1, which also shards the fp32 optimizer state over the data-parallel ranks");
        return 1;
    }
    if (t->pp > 1)
        eng_note(nx, "ZeRO 0 with bf16 and a pipeline: DeepSpeed wraps the optimizer in its "
                     "BF16_Optimizer, which shards the fp32 master weights and optimizer state "
                     "over the data-parallel ranks like ZeRO-1 (plan with --zero 1 to match)");
    return 0;
}

/* Context parallelism and pipeline schedules as DeepSpeed runs them. */
static void ds_schedule_notes(const tp_train *t, notes *nx)
{
    if (t->cp > 1)
        eng_note(nx,
                 "context parallelism %" PRId64 ": DeepSpeed and Megatron-DeepSpeed have no "
                 "context (ring-attention) parallelism; the nearest is Ulysses sequence "
                 "parallelism (Megatron-DeepSpeed --ds-sequence-parallel-size %" PRId64
                 "), which splits the sequence the same way but exchanges attention heads "
                 "all-to-all, and needs the heads divisible by it",
                 t->cp, t->cp);
    if (t->pp > 1 && t->vpp > 1)
        eng_note(nx,
                 "interleaved schedule with %" PRId64 " virtual stages: DeepSpeed's pipeline "
                 "engine runs 1F1B only (deepspeed/runtime/pipe/schedule.py TrainSchedule), with "
                 "one stage per rank; the bubble is %" PRId64 " times the plan's",
                 t->vpp, t->vpp);
    else if (t->pp > 1 && t->schedule == TP_SCHED_INTERLEAVED)
        eng_note(nx, "interleaved schedule: DeepSpeed's pipeline engine runs 1F1B only");
    if (t->pp > 1 && t->schedule == TP_SCHED_GPIPE)
        eng_note(nx, "GPipe schedule: DeepSpeed's pipeline engine runs 1F1B only; the bubble is "
                     "the same, the in-flight activations differ");
}

tp_status tp_engine_deepspeed_export(const tp_config *c, const tp_result *r,
                                     const tp_export_opts *o, tp_export *out, tp_error *err)
{
    const tp_train *t = &c->train;
    notes nx = {0};
    notes outside = {0};
    bool ok = true;
    json_t *j = json_object();
    if (!j)
        ok = false;
    jset(&ok, j, "train_batch_size", json_integer((json_int_t)t->global_batch));
    jset(&ok, j, "train_micro_batch_size_per_gpu", json_integer((json_int_t)t->micro_batch));
    jset(&ok, j, "gradient_accumulation_steps", json_integer((json_int_t)r->grad_accum));

    json_t *half = json_object();
    jset(&ok, half, "enabled", json_true());
    jset(&ok, j, t->precision == TP_PREC_FP16 ? "fp16" : "bf16", half);
    if (t->precision == TP_PREC_TF32)
        eng_note(&nx,
                 "tf32 training: DeepSpeed trains in fp32 without bf16/fp16 (written as bf16)");
    if (t->precision == TP_PREC_FP8)
        eng_note(&outside, "fp8 GEMMs: not a DeepSpeed setting; use Transformer Engine layers in "
                           "the model code (bf16 is enabled below)");
    eng_note_fp8_act_cache(&nx, c, "DeepSpeed");
    eng_note_moe_sync_free(&nx, c, "DeepSpeed");
    eng_note_dualpipe(&nx, c, "DeepSpeed", NULL);

    json_t *dt = json_object();
    jset(&ok, dt, "grad_accum_dtype",
         json_string(t->grad_dtype == TP_DTYPE_FP32
                         ? "fp32"
                         : (t->precision == TP_PREC_FP16 ? "fp16" : "bf16")));
    jset(&ok, j, "data_types", dt);

    json_t *zo = json_object();
    int stage = ds_export_stage(t, &nx);
    jset(&ok, zo, "stage", json_integer(stage));
    ds_offload_export(&ok, zo, t, stage, &nx);
    ds_offload_param_export(&ok, zo, t, &nx);
    jset(&ok, j, "zero_optimization", zo);
    ds_feature_notes(c, &nx, &outside);
    if (t->zero >= 2 && t->pp > 1)
        eng_note(&nx,
                 "ZeRO-%d with pipeline parallelism: DeepSpeed's pipeline engine supports "
                 "ZeRO-1 only",
                 t->zero);
    ds_schedule_notes(t, &nx);

    const tp_optimizer *op = &t->optimizer;
    if (op->kind == TP_OPT_ADAMW) {
        json_t *opt = json_object();
        jset(&ok, opt, "type", json_string("AdamW"));
        jset(&ok, j, "optimizer", opt);
        if (op->moment_dtype != TP_DTYPE_FP32)
            eng_note(&nx, "optimizer moments in %s: DeepSpeed's AdamW keeps fp32 moments",
                     tp_io_dtype_name(op->moment_dtype));
    } else {
        eng_note(&nx,
                 "optimizer %s: ds_config has no SGD type; pass torch.optim.SGD to "
                 "deepspeed.initialize (no \"optimizer\" section written)",
                 tp_io_optimizer_name(op));
    }
    if (!op->master_weights)
        eng_note(&nx, "no fp32 master weights: DeepSpeed keeps fp32 master weights with bf16/fp16");

    if (t->recompute == TP_RECOMPUTE_FULL) {
        json_t *ac = json_object();
        jset(&ok, ac, "partition_activations", json_false());
        jset(&ok, ac, "cpu_checkpointing", json_false());
        jset(&ok, j, "activation_checkpointing", ac);
        eng_note(&outside,
                 "full recompute: the model code checkpoints every %" PRId64
                 " layer(s) (deepspeed.checkpointing.checkpoint or the model's gradient "
                 "checkpointing); the config's activation_checkpointing section only configures it",
                 t->recompute_every);
    } else if (t->recompute == TP_RECOMPUTE_SELECTIVE &&
               tp_recompute_modules(t) != TP_RC_CORE_ATTN) {
        char mods[96];
        eng_note(&nx,
                 "selective recompute of %s: DeepSpeed's config cannot select modules, and "
                 "Megatron-DeepSpeed's --recompute-granularity selective recomputes the "
                 "attention core only",
                 tp_io_recompute_modules_text(t->recompute_modules, mods, sizeof mods));
    } else if (t->recompute == TP_RECOMPUTE_SELECTIVE) {
        eng_note(&nx, "selective recompute: DeepSpeed's config cannot select the attention core; "
                      "the model code must checkpoint it (Megatron-DeepSpeed: "
                      "--recompute-granularity selective)");
    }

    /* What a DeepSpeed run sets outside ds_config.json (Megatron-DeepSpeed
     * arguments, PipelineModule, the model code). */
    eng_note(&outside,
             "parallel sizes: tensor %" PRId64 ", pipeline %" PRId64 " (%s%s), context %" PRId64
             ", expert %" PRId64 ", sequence parallel %s: set in the launcher or model code "
             "(Megatron-DeepSpeed --tensor-model-parallel-size, --pipeline-model-parallel-size, "
             "deepspeed.pipe.PipelineModule(num_stages=...))",
             t->tp, t->pp, tp_io_schedule_name(t->schedule), t->vpp > 1 ? ", virtual stages" : "",
             t->cp, t->ep, t->sp ? "on" : "off");
    if (!t->flash_attn || t->dropout || t->fused_ce)
        eng_note(&outside, "model code: %s%s%s",
                 t->flash_attn ? ""
                               : "attention without "
                                 "FlashAttention; ",
                 t->dropout ? "dropout masks stored; " : "",
                 t->fused_ce ? "fused cross-entropy without a logits tensor; " : "");

    char *json = NULL;
    if (ok)
        json = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);

    sbuf doc = {0}, nb = {0};
    if (json) {
        sb_puts(&doc, json);
        sb_puts(&doc, "\n");
    } else {
        doc.failed = true;
    }
    free(json);
    eng_header(&nb, "# ", "DeepSpeed config notes (the comment file of ds_config.json)", c, r, o,
               &nx, "DeepSpeed", "ds_config.json and the settings below");
    sb_puts(&nb, "#\n");
    eng_wrap(&nb, "# ", "Set outside ds_config.json:", 0, "");
    eng_put_items(&nb, "# ", &outside);
    sbuf fl = {0};
    ds_outside_flags(&fl, c);
    sbuf lost = {0}, lead = {0};
    if (eng_flags_lost(&lost, &c->model) > 0)
        sb_printf(&lead,
                  "The model, the GPUs and these settings as trainplan flags (trainplan estimate "
                  "--from-deepspeed ds_config.json FLAGS --model FILE gives this plan back, FILE "
                  "being the model's own file: the flags cannot carry its %s):",
                  lost.s ? lost.s : "");
    else
        sb_puts(&lead, "The model, the GPUs and these settings as trainplan flags (trainplan "
                       "estimate --from-deepspeed ds_config.json FLAGS gives this plan back):");
    eng_wrap(&nb, "# ", "", 0, lead.s ? lead.s : "");
    if (lead.failed || lost.failed)
        nb.failed = true;
    sb_free(&lost);
    sb_free(&lead);
    eng_wrap(&nb, "#   ", "", 0, fl.s ? fl.s : "");
    if (fl.failed)
        nb.failed = true;
    sb_free(&fl);
    int64_t steps = eng_train_steps(c, o);
    if (steps > 0)
        eng_wrap(&nb, "# ", "", 0,
                 "Run length: DeepSpeed has no step count in its config; run the training loop "
                 "for the number of steps above.");

    out->num_unexpressed = nx.count;
    bool failed = nx.text.failed || outside.text.failed;
    sb_free(&nx.text);
    sb_free(&outside.text);
    out->text = sb_take(&doc);
    out->notes = sb_take(&nb);
    if (!out->text || !out->notes || failed) {
        tp_io_export_free(out);
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory writing the export");
    }
    return TP_OK;
}
