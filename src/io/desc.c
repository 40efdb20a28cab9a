/* SPDX-License-Identifier: MIT */
/*
 * desc.c: the run description and its builder (desc.h).
 *
 * This is the second pass that src/cli/opts.c used to run on its scan of
 * argv, moved here so that every front end shares it: a slot per shared
 * configuration flag, kept in the order the CLI's --help lists them; the
 * build applies them model first (after the model is loaded), then the
 * training setup and conventions (after the library defaults), then the
 * GPU (whose peak depends on the precision chosen).
 */
#include <stdio.h>
#include <string.h>
#include <threads.h>

#include "desc.h"
#include "fields.h"
#include "io.h"
#include "io_internal.h"
#include "recompute_modules.h"

/* clang-format off */
const char *const tp_io_mlp_names[] = {"gelu", "swiglu", "squared-relu", "geglu", NULL};
const char *const tp_io_norm_names[] = {"layernorm", "rmsnorm", NULL};
const char *const tp_io_qk_norm_names[] = {"none", "head", "full", NULL};
const char *const tp_io_sched_names[] = {"1f1b", "interleaved", "gpipe", NULL};
const char *const tp_io_recomp_names[] = {"none", "selective", "full", NULL};
const char *const tp_io_prec_names[] = {"bf16", "fp16", "fp8", NULL};
const char *const tp_io_grad_names[] = {"bf16", "fp32", NULL};
const char *const tp_io_opt_names[] = {"adamw", "adamw-bf16", "adamw-8bit", "sgd-momentum", "sgd",
                                       NULL};
const char *const tp_io_attn_names[] = {"causal", "full", NULL};
const char *const tp_io_act_names[] = {"detailed", "korthikanti", NULL};
const char *const tp_io_ckpt_names[] = {"exact", "seed001", NULL};
const char *const tp_io_coll_names[] = {"ring", "simple", NULL};
const char *const tp_io_bias_names[] = {"none", "qkv", "all", NULL};
const char *const tp_io_pos_names[] = {"rotary", "learned", "alibi", NULL};
const char *const tp_io_rope_names[] = {"none", "llama3", NULL};
const char *const tp_io_offload_names[] = {"none", "cpu", "nvme", NULL}; /* = tp_offload_device */
const char *const tp_io_recipe_names[] = {"delayed", "tensorwise", "mxfp8", "nvfp4",
                                          NULL}; /* = tp_fp8_recipe */

static const tp_schedule sched_vals[] = {TP_SCHED_1F1B, TP_SCHED_INTERLEAVED, TP_SCHED_GPIPE};
static const tp_recompute recomp_vals[] = {TP_RECOMPUTE_NONE, TP_RECOMPUTE_SELECTIVE,
                                           TP_RECOMPUTE_FULL};
static const tp_precision prec_vals[] = {TP_PREC_BF16, TP_PREC_FP16, TP_PREC_FP8};
static const tp_dtype grad_vals[] = {TP_DTYPE_BF16, TP_DTYPE_FP32};

enum slot {
    D_MODEL, D_LAYERS, D_HIDDEN, D_HEADS, D_KV_HEADS, D_HEAD_DIM, D_FFN_HIDDEN, D_VOCAB,
    D_MLP, D_NORM, D_TIE, D_NO_TIE, D_EXPERTS, D_TOPK, D_MOE_FFN, D_SHARED_EXPERTS,
    D_BIAS, D_POSITION, D_MAX_POSITIONS, D_ROPE_THETA, D_ROPE_SCALING, D_ROPE_FACTOR, D_NORM_EPS,
    D_SHARED_FFN, D_MOE_FIRST_DENSE, D_MOE_LAYER_FREQ,
    D_Q_LORA, D_KV_LORA, D_QK_ROPE, D_QK_NOPE, D_V_HEAD, D_MTP, D_WINDOW, D_GLOBAL_EVERY,
    D_QK_NORM, D_SINKS, D_ROUTER_BIAS, D_MOE_IMBALANCE, D_CAPACITY,
    D_SEQ_LEN, D_MICRO_BATCH, D_GLOBAL_BATCH, D_GLOBAL_BATCH_TOKENS,
    D_GPU, D_GPUS, D_GPUS_PER_NODE, D_GPU_MEM_GB, D_GPU_MEM_GIB, D_PEAK_TFLOPS, D_PRICE,
    D_HW_PROFILE,
    D_TP, D_PP, D_CP, D_EP, D_VPP, D_SP, D_NO_SP, D_SCHEDULE, D_FIRST_STAGE, D_LAST_STAGE,
    D_ETP,
    D_ZERO, D_FSDP, D_DISTOPT, D_RECOMPUTE, D_RECOMPUTE_EVERY,
    D_PRECISION, D_GRAD_DTYPE, D_OPTIMIZER, D_NO_MASTER, D_NO_FLASH, D_DROPOUT, D_FUSED_CE,
    D_PAD_VOCAB, D_FP8_PARAM_GATHER, D_RECOMPUTE_MODULES, D_OFFLOAD_OPT, D_HOST_MEM, D_PCIE,
    D_HOST_BW, D_RECOMPUTE_BLOCK, D_OFFLOAD_PARAMS, D_NVME_BW, D_OFFLOAD_ACT, D_FP8_RECIPE,
    D_ATTN_CHUNK,
    D_ATTN_FLOPS, D_ACT_MODEL, D_CKPT_MODEL, D_COLL_MODEL,
    D_TP_OVERLAP, D_NO_DP_OVERLAP, D_ATTN_AMPERE, D_SAC_OPS, D_NO_PP_SG, D_EXTRA_PARAM, D_CE_BYTES,
    D_CUDA_CTX, D_COMM_BUF, D_FRAG,
    D_COUNT
};
_Static_assert(D_COUNT <= TP_IO_DESC_SLOTS, "raise TP_IO_DESC_SLOTS in desc.h");

/* The flag of each slot; its type and range are its row in fields.c. */
static const char *const slot_flag[D_COUNT] = {
    [D_MODEL] = "--model", [D_LAYERS] = "--layers", [D_HIDDEN] = "--hidden",
    [D_HEADS] = "--heads", [D_KV_HEADS] = "--kv-heads", [D_HEAD_DIM] = "--head-dim",
    [D_FFN_HIDDEN] = "--ffn-hidden", [D_VOCAB] = "--vocab", [D_MLP] = "--mlp",
    [D_NORM] = "--norm", [D_TIE] = "--tie-embeddings", [D_NO_TIE] = "--no-tie-embeddings",
    [D_EXPERTS] = "--experts", [D_TOPK] = "--topk", [D_MOE_FFN] = "--moe-ffn-hidden",
    [D_SHARED_EXPERTS] = "--shared-experts", [D_BIAS] = "--bias", [D_POSITION] = "--position",
    [D_MAX_POSITIONS] = "--max-positions", [D_ROPE_THETA] = "--rope-theta",
    [D_ROPE_SCALING] = "--rope-scaling", [D_ROPE_FACTOR] = "--rope-factor",
    [D_NORM_EPS] = "--norm-eps", [D_SHARED_FFN] = "--shared-ffn-hidden",
    [D_MOE_FIRST_DENSE] = "--moe-first-dense", [D_MOE_LAYER_FREQ] = "--moe-layer-freq",
    [D_Q_LORA] = "--q-lora-rank", [D_KV_LORA] = "--kv-lora-rank",
    [D_QK_ROPE] = "--qk-rope-head-dim", [D_QK_NOPE] = "--qk-nope-head-dim",
    [D_V_HEAD] = "--v-head-dim", [D_MTP] = "--mtp-layers", [D_WINDOW] = "--sliding-window",
    [D_GLOBAL_EVERY] = "--global-every", [D_QK_NORM] = "--qk-norm", [D_SINKS] = "--attn-sinks",
    [D_ROUTER_BIAS] = "--router-bias", [D_MOE_IMBALANCE] = "--moe-imbalance",
    [D_CAPACITY] = "--moe-capacity-factor", [D_SEQ_LEN] = "--seq-len",
    [D_MICRO_BATCH] = "--micro-batch", [D_GLOBAL_BATCH] = "--global-batch",
    [D_GLOBAL_BATCH_TOKENS] = "--global-batch-tokens", [D_GPU] = "--gpu", [D_GPUS] = "--gpus",
    [D_GPUS_PER_NODE] = "--gpus-per-node", [D_GPU_MEM_GB] = "--gpu-memory-gb",
    [D_GPU_MEM_GIB] = "--gpu-memory-gib", [D_PEAK_TFLOPS] = "--peak-tflops",
    [D_PRICE] = "--price", [D_HW_PROFILE] = "--hw-profile", [D_TP] = "--tp", [D_PP] = "--pp",
    [D_CP] = "--cp", [D_EP] = "--ep", [D_VPP] = "--vpp", [D_SP] = "--sp", [D_NO_SP] = "--no-sp",
    [D_SCHEDULE] = "--schedule", [D_FIRST_STAGE] = "--first-stage-layers",
    [D_LAST_STAGE] = "--last-stage-layers", [D_ETP] = "--etp", [D_ZERO] = "--zero",
    [D_FSDP] = "--fsdp", [D_DISTOPT] = "--distributed-optimizer", [D_RECOMPUTE] = "--recompute",
    [D_RECOMPUTE_EVERY] = "--recompute-every", [D_PRECISION] = "--precision",
    [D_GRAD_DTYPE] = "--grad-dtype", [D_OPTIMIZER] = "--optimizer",
    [D_NO_MASTER] = "--no-master-weights", [D_NO_FLASH] = "--no-flash-attn",
    [D_DROPOUT] = "--dropout", [D_FUSED_CE] = "--fused-ce", [D_PAD_VOCAB] = "--pad-vocab",
    [D_FP8_PARAM_GATHER] = "--fp8-param-gather", [D_RECOMPUTE_MODULES] = "--recompute-modules",
    [D_OFFLOAD_OPT] = "--offload-optimizer", [D_HOST_MEM] = "--host-memory-gb",
    [D_PCIE] = "--pcie-gbps", [D_HOST_BW] = "--host-mem-bw-gbps",
    [D_RECOMPUTE_BLOCK] = "--recompute-block-layers", [D_OFFLOAD_PARAMS] = "--offload-params",
    [D_NVME_BW] = "--nvme-gbps", [D_OFFLOAD_ACT] = "--offload-activations",
    [D_FP8_RECIPE] = "--fp8-recipe", [D_ATTN_CHUNK] = "--attention-chunk", [D_ATTN_FLOPS] = "--attn-flops",
    [D_ACT_MODEL] = "--act-model", [D_CKPT_MODEL] = "--ckpt-model",
    [D_COLL_MODEL] = "--coll-model", [D_TP_OVERLAP] = "--tp-comm-overlap",
    [D_NO_DP_OVERLAP] = "--no-dp-comm-overlap", [D_ATTN_AMPERE] = "--attn-ampere-kernel",
    [D_SAC_OPS] = "--sac-ops", [D_NO_PP_SG] = "--no-pp-scatter-gather",
    [D_EXTRA_PARAM] = "--extra-param-bytes", [D_CE_BYTES] = "--ce-bytes-per-logit",
    [D_CUDA_CTX] = "--cuda-context-gb", [D_COMM_BUF] = "--comm-buffer-gb",
    [D_FRAG] = "--fragmentation",
};
/* clang-format on */

void tp_io_desc_init(tp_io_desc *d)
{
    memset(d, 0, sizeof *d);
}

int tp_io_desc_slot(const char *flag)
{
    for (int i = 0; flag && i < D_COUNT; i++)
        if (slot_flag[i] && strcmp(slot_flag[i], flag) == 0)
            return i;
    return -1;
}

int tp_io_desc_slot_key(const char *key)
{
    for (int i = 0; key && i < D_COUNT; i++)
        if (slot_flag[i] && strcmp(slot_flag[i] + 2, key) == 0)
            return i;
    return -1;
}

void tp_io_desc_set(tp_io_desc *d, int slot, const char *value, tp_io_origin origin)
{
    if (slot < 0 || slot >= D_COUNT)
        return;
    d->val[slot] = value;
    d->order[slot] = ++d->count;
    d->origin[slot] = origin;
}

const char *tp_io_desc_get(const tp_io_desc *d, int slot)
{
    return slot >= 0 && slot < D_COUNT ? d->val[slot] : NULL;
}

const char *tp_io_desc_model(const tp_io_desc *d)
{
    return d->val[D_MODEL] ? d->val[D_MODEL] : TP_IO_DEFAULT_MODEL;
}

const char *tp_io_desc_gpu(const tp_io_desc *d)
{
    return d->val[D_GPU] ? d->val[D_GPU] : TP_IO_DEFAULT_GPU;
}

/* ---- values, parsed by the type and range of the slot's field ---- */

static bool plausible(const char *s, size_t d)
{
    return d <= 3 && d * 2 <= strlen(s);
}

static void choices_text(const char *const *choices, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; choices[i] && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? "|" : "", choices[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

tp_status tp_io_parse_enum(const char *flag, const char *const *choices, const char *val, int *out,
                           tp_error *err)
{
    size_t best_d = 99;
    const char *best = NULL;
    for (int i = 0; choices[i]; i++) {
        if (strcmp(val, choices[i]) == 0) {
            *out = i;
            return TP_OK;
        }
        size_t d = tp_io_edit_distance(val, choices[i], false);
        if (d > 99)
            d = 99;
        if (d < best_d) {
            best_d = d;
            best = choices[i];
        }
    }
    char list[160];
    choices_text(choices, list, sizeof list);
    if (best && plausible(val, best_d))
        return tp_error_set(err, TP_ERR_INVALID_ARG, flag + 2,
                            "unknown value \"%s\" (did you mean \"%s\"? expected one of %s)", val,
                            best, list);
    return tp_error_set(err, TP_ERR_INVALID_ARG, flag + 2,
                        "unknown value \"%s\" (expected one of %s)", val, list);
}

/* Each slot's row of fields.c, found once per process (a request's build
 * looks up a row per value given). */
static const tp_io_field *slot_row[D_COUNT];
static void find_rows(void)
{
    for (int i = 0; i < D_COUNT; i++)
        slot_row[i] = tp_io_field_by_flag(slot_flag[i]);
}

static const tp_io_field *row(int id, tp_error *err)
{
    static once_flag once = ONCE_FLAG_INIT;
    call_once(&once, find_rows);
    const tp_io_field *f = slot_row[id];
    if (!f)
        tp_error_set(err, TP_ERR_INTERNAL, "", "internal: %s has no row in src/io/fields.c",
                     slot_flag[id]);
    return f;
}

static tp_status get_i64(const tp_io_desc *d, int id, int64_t *out, tp_error *err)
{
    const tp_io_field *f = row(id, err);
    if (!f)
        return TP_ERR_INTERNAL;
    return tp_io_parse_i64(f->flag, d->val[id], f->imin, f->imax, out, err);
}

static tp_status get_f64(const tp_io_desc *d, int id, double *out, tp_error *err)
{
    const tp_io_field *f = row(id, err);
    if (!f)
        return TP_ERR_INTERNAL;
    if (f->type == TP_IO_FIELD_NUM0)
        return tp_io_parse_f64_or0(f->flag, d->val[id], f->fmin, f->fmax, out, err);
    return tp_io_parse_f64(f->flag, d->val[id], f->fmin, f->fmax, out, err);
}

static tp_status get_enum(const tp_io_desc *d, int id, const char *const *choices, int *out,
                          tp_error *err)
{
    return tp_io_parse_enum(slot_flag[id], choices, d->val[id], out, err);
}

/* Set *dst from an integer field when given. */
#define OVERRIDE_I64(id, dst)                                                                      \
    do {                                                                                           \
        if (d->val[id])                                                                            \
            TP_TRY(get_i64(d, id, &(dst), err));                                                   \
    } while (0)

/* ---- the build: model, training setup, conventions, GPU ---- */

/* Biases, positions, the rotary base and scaling, the norm epsilon. */
static tp_status apply_model_more(const tp_io_desc *d, tp_model *m, tp_error *err)
{
    int k;
    if (d->val[D_BIAS]) {
        TP_TRY(get_enum(d, D_BIAS, tp_io_bias_names, &k, err));
        m->linear_bias = k == 2;
        m->qkv_bias = k == 1;
    }
    if (d->val[D_POSITION]) {
        TP_TRY(get_enum(d, D_POSITION, tp_io_pos_names, &k, err));
        m->pos = (tp_pos)k;
        if (m->pos != TP_POS_LEARNED)
            m->max_positions = 0;
    }
    OVERRIDE_I64(D_MAX_POSITIONS, m->max_positions);
    OVERRIDE_I64(D_SHARED_FFN, m->shared_ffn_hidden);
    OVERRIDE_I64(D_MOE_FIRST_DENSE, m->moe_first_dense);
    OVERRIDE_I64(D_MOE_LAYER_FREQ, m->moe_layer_freq);
    if (d->val[D_ROPE_THETA])
        TP_TRY(get_f64(d, D_ROPE_THETA, &m->rope_theta, err));
    if (d->val[D_NORM_EPS])
        TP_TRY(get_f64(d, D_NORM_EPS, &m->norm_eps, err));
    if (d->val[D_ROPE_SCALING]) {
        TP_TRY(get_enum(d, D_ROPE_SCALING, tp_io_rope_names, &k, err));
        bool was = m->rope_scaling == TP_ROPE_SCALING_LLAMA3;
        m->rope_scaling = (tp_rope_scaling)k;
        if (k == 0) {
            m->rope_factor = m->rope_low_freq_factor = m->rope_high_freq_factor = 0.0;
            m->rope_original_max = 0;
        } else if (!was) { /* Llama 3.1's values */
            m->rope_factor = 8.0;
            m->rope_low_freq_factor = 1.0;
            m->rope_high_freq_factor = 4.0;
            m->rope_original_max = 8192;
        }
    }
    if (d->val[D_ROPE_FACTOR]) {
        if (m->rope_scaling != TP_ROPE_SCALING_LLAMA3)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "rope-factor",
                                "needs a rotary scaling (--rope-scaling llama3)");
        TP_TRY(get_f64(d, D_ROPE_FACTOR, &m->rope_factor, err));
    }
    return TP_OK;
}

static tp_status apply_model(const tp_io_desc *d, tp_model *m, tp_error *err)
{
    OVERRIDE_I64(D_LAYERS, m->num_layers);
    OVERRIDE_I64(D_HIDDEN, m->hidden);
    OVERRIDE_I64(D_HEADS, m->num_heads);
    OVERRIDE_I64(D_KV_HEADS, m->num_kv_heads);
    OVERRIDE_I64(D_HEAD_DIM, m->head_dim);
    OVERRIDE_I64(D_FFN_HIDDEN, m->ffn_hidden);
    OVERRIDE_I64(D_VOCAB, m->vocab);
    OVERRIDE_I64(D_EXPERTS, m->num_experts);
    OVERRIDE_I64(D_TOPK, m->topk);
    OVERRIDE_I64(D_MOE_FFN, m->moe_ffn_hidden);
    OVERRIDE_I64(D_SHARED_EXPERTS, m->num_shared_experts);
    OVERRIDE_I64(D_Q_LORA, m->q_lora_rank);
    OVERRIDE_I64(D_KV_LORA, m->kv_lora_rank);
    OVERRIDE_I64(D_QK_ROPE, m->qk_rope_head_dim);
    OVERRIDE_I64(D_QK_NOPE, m->qk_nope_head_dim);
    OVERRIDE_I64(D_V_HEAD, m->v_head_dim);
    OVERRIDE_I64(D_MTP, m->mtp_layers);
    OVERRIDE_I64(D_WINDOW, m->sliding_window);
    OVERRIDE_I64(D_GLOBAL_EVERY, m->global_every);
    OVERRIDE_I64(D_ATTN_CHUNK, m->attention_chunk);
    if (d->val[D_MOE_IMBALANCE])
        TP_TRY(get_f64(d, D_MOE_IMBALANCE, &m->moe_imbalance, err));
    if (d->val[D_CAPACITY])
        TP_TRY(get_f64(d, D_CAPACITY, &m->moe_capacity_factor, err));
    if (d->order[D_SINKS])
        m->attn_sinks = true;
    if (d->order[D_ROUTER_BIAS])
        m->router_bias = true;
    int k;
    if (d->val[D_QK_NORM]) {
        TP_TRY(get_enum(d, D_QK_NORM, tp_io_qk_norm_names, &k, err));
        m->qk_norm = (tp_qk_norm)k;
    }
    if (d->val[D_MLP]) {
        TP_TRY(get_enum(d, D_MLP, tp_io_mlp_names, &k, err));
        m->mlp = (tp_mlp)k;
    }
    if (d->val[D_NORM]) {
        TP_TRY(get_enum(d, D_NORM, tp_io_norm_names, &k, err));
        m->norm = k == 0 ? TP_NORM_LAYERNORM : TP_NORM_RMSNORM;
    }
    if (d->order[D_TIE] > d->order[D_NO_TIE])
        m->tie_embeddings = true;
    else if (d->order[D_NO_TIE] > d->order[D_TIE])
        m->tie_embeddings = false;
    return apply_model_more(d, m, err);
}

static void set_optimizer(int k, tp_optimizer *opt)
{
    static const tp_optimizer_kind kinds[] = {TP_OPT_ADAMW, TP_OPT_ADAMW, TP_OPT_ADAMW,
                                              TP_OPT_SGD_MOMENTUM, TP_OPT_SGD};
    static const tp_dtype moments[] = {TP_DTYPE_FP32, TP_DTYPE_BF16, TP_DTYPE_INT8, TP_DTYPE_FP32,
                                       TP_DTYPE_FP32};
    opt->kind = kinds[k];
    opt->moment_dtype = moments[k];
}

/* The enumerated and boolean parts of the training setup. */
static tp_status apply_train_kinds(const tp_io_desc *d, tp_train *t, tp_error *err)
{
    int k;
    if (d->val[D_SCHEDULE]) {
        TP_TRY(get_enum(d, D_SCHEDULE, tp_io_sched_names, &k, err));
        t->schedule = sched_vals[k];
    } else if (t->vpp > 1) {
        t->schedule = TP_SCHED_INTERLEAVED;
    }
    if (d->val[D_RECOMPUTE]) {
        TP_TRY(get_enum(d, D_RECOMPUTE, tp_io_recomp_names, &k, err));
        t->recompute = recomp_vals[k];
    }
    if (d->val[D_PRECISION]) {
        TP_TRY(get_enum(d, D_PRECISION, tp_io_prec_names, &k, err));
        t->precision = prec_vals[k];
    }
    if (d->val[D_GRAD_DTYPE]) {
        TP_TRY(get_enum(d, D_GRAD_DTYPE, tp_io_grad_names, &k, err));
        t->grad_dtype = grad_vals[k];
    }
    if (d->val[D_OPTIMIZER]) {
        TP_TRY(get_enum(d, D_OPTIMIZER, tp_io_opt_names, &k, err));
        set_optimizer(k, &t->optimizer);
    }
    if (d->val[D_NO_MASTER])
        t->optimizer.master_weights = false;
    if (d->val[D_NO_FLASH])
        t->flash_attn = false;
    if (d->val[D_DROPOUT])
        t->dropout = true;
    if (d->val[D_FUSED_CE])
        t->fused_ce = true;
    if (d->val[D_FP8_PARAM_GATHER])
        t->fp8_param_gather = true;
    if (d->val[D_OFFLOAD_PARAMS]) /* tp_io_offload_names is tp_offload_device's order */
        TP_TRY(get_enum(d, D_OFFLOAD_PARAMS, tp_io_offload_names, &t->offload_params, err));
    if (d->val[D_FP8_RECIPE]) /* tp_io_recipe_names is tp_fp8_recipe's order */
        TP_TRY(get_enum(d, D_FP8_RECIPE, tp_io_recipe_names, &t->fp8_recipe, err));
    return TP_OK;
}

/* ZeRO: --zero N, --fsdp (3), --distributed-optimizer (1); the last one wins. */
static tp_status apply_zero(const tp_io_desc *d, tp_train *t, tp_error *err)
{
    int zpos = 0;
    if (d->val[D_ZERO]) {
        int64_t z;
        TP_TRY(get_i64(d, D_ZERO, &z, err));
        t->zero = (int)z;
        zpos = d->order[D_ZERO];
    }
    if (d->order[D_FSDP] > zpos) {
        t->zero = 3;
        zpos = d->order[D_FSDP];
    }
    if (d->order[D_DISTOPT] > zpos)
        t->zero = 1;
    return TP_OK;
}

/* Global batch: sequences, tokens, or micro-batch x DP. */
static tp_status apply_global_batch(const tp_io_desc *d, tp_train *t, tp_error *err)
{
    if (d->order[D_GLOBAL_BATCH] > d->order[D_GLOBAL_BATCH_TOKENS]) {
        OVERRIDE_I64(D_GLOBAL_BATCH, t->global_batch);
    } else if (d->val[D_GLOBAL_BATCH_TOKENS]) {
        int64_t tok;
        TP_TRY(get_i64(d, D_GLOBAL_BATCH_TOKENS, &tok, err));
        if (tok % t->seq_len != 0)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "global-batch-tokens",
                                "%lld tokens is not a multiple of the sequence length %lld "
                                "(--seq-len)",
                                (long long)tok, (long long)t->seq_len);
        t->global_batch = tok / t->seq_len;
    } else {
        int64_t dp = tp_train_dp(t);
        t->global_batch = t->micro_batch * (dp > 0 ? dp : 1);
    }
    return TP_OK;
}

static tp_status apply_train(const tp_io_desc *d, tp_train *t, tp_error *err)
{
    OVERRIDE_I64(D_SEQ_LEN, t->seq_len);
    OVERRIDE_I64(D_MICRO_BATCH, t->micro_batch);
    OVERRIDE_I64(D_GPUS, t->num_gpus);
    OVERRIDE_I64(D_GPUS_PER_NODE, t->gpus_per_node);
    OVERRIDE_I64(D_TP, t->tp);
    OVERRIDE_I64(D_PP, t->pp);
    OVERRIDE_I64(D_CP, t->cp);
    OVERRIDE_I64(D_EP, t->ep);
    OVERRIDE_I64(D_VPP, t->vpp);
    OVERRIDE_I64(D_FIRST_STAGE, t->first_stage_layers);
    OVERRIDE_I64(D_LAST_STAGE, t->last_stage_layers);
    OVERRIDE_I64(D_ETP, t->etp);
    OVERRIDE_I64(D_RECOMPUTE_EVERY, t->recompute_every);
    OVERRIDE_I64(D_PAD_VOCAB, t->pad_vocab_to);
    TP_TRY(apply_train_kinds(d, t, err));
    OVERRIDE_I64(D_RECOMPUTE_BLOCK, t->recompute_layers);
    OVERRIDE_I64(D_OFFLOAD_ACT, t->offload_act_layers);
    if (d->val[D_OFFLOAD_OPT])
        TP_TRY(get_f64(d, D_OFFLOAD_OPT, &t->offload_optimizer, err));
    if (d->val[D_RECOMPUTE_MODULES]) {
        TP_TRY(tp_io_recompute_modules_parse("--recompute-modules", d->val[D_RECOMPUTE_MODULES],
                                             &t->recompute_modules, err));
        if (!d->val[D_RECOMPUTE])
            t->recompute = TP_RECOMPUTE_SELECTIVE; /* the modules imply it, as in Megatron */
    }
    TP_TRY(apply_zero(d, t, err));

    /* sequence parallelism: explicit switch, else on exactly when tp > 1 */
    if (d->order[D_SP] || d->order[D_NO_SP])
        t->sp = d->order[D_SP] > d->order[D_NO_SP];
    else
        t->sp = t->tp > 1;
    return apply_global_batch(d, t, err);
}

/* A size in GB (1e9 bytes), or a rate in GB/s, into *bytes when given. */
static tp_status get_gb(const tp_io_desc *d, int id, double *bytes, tp_error *err)
{
    double x;
    if (!d->val[id])
        return TP_OK;
    TP_TRY(get_f64(d, id, &x, err));
    *bytes = x * TP_GB;
    return TP_OK;
}

static tp_status apply_options(const tp_io_desc *d, tp_options *o, tp_error *err)
{
    int k;
    if (d->val[D_ATTN_FLOPS]) {
        TP_TRY(get_enum(d, D_ATTN_FLOPS, tp_io_attn_names, &k, err));
        o->attn_flops = k == 0 ? TP_ATTN_FLOPS_CAUSAL : TP_ATTN_FLOPS_FULL;
    }
    if (d->val[D_ACT_MODEL]) {
        TP_TRY(get_enum(d, D_ACT_MODEL, tp_io_act_names, &k, err));
        o->act_model = k == 0 ? TP_ACT_DETAILED : TP_ACT_KORTHIKANTI;
    }
    if (d->val[D_CKPT_MODEL]) {
        TP_TRY(get_enum(d, D_CKPT_MODEL, tp_io_ckpt_names, &k, err));
        o->ckpt_model = k == 0 ? TP_CKPT_EXACT : TP_CKPT_SEED001;
    }
    if (d->val[D_COLL_MODEL]) {
        TP_TRY(get_enum(d, D_COLL_MODEL, tp_io_coll_names, &k, err));
        o->coll_model = k == 0 ? TP_COLL_RING : TP_COLL_SIMPLE;
    }
    TP_TRY(get_gb(d, D_CUDA_CTX, &o->cuda_context_bytes, err));
    TP_TRY(get_gb(d, D_COMM_BUF, &o->comm_buffer_bytes, err));
    if (d->val[D_FRAG])
        TP_TRY(get_f64(d, D_FRAG, &o->fragmentation, err));
    TP_TRY(get_gb(d, D_HOST_MEM, &o->host_mem_bytes_per_node, err));
    TP_TRY(get_gb(d, D_PCIE, &o->pcie_bw_bytes_per_s, err));
    TP_TRY(get_gb(d, D_HOST_BW, &o->host_mem_bw_bytes_per_s, err));
    TP_TRY(get_gb(d, D_NVME_BW, &o->nvme_bw_bytes_per_s, err));
    if (d->val[D_EXTRA_PARAM])
        TP_TRY(get_f64(d, D_EXTRA_PARAM, &o->extra_param_bytes, err));
    if (d->val[D_CE_BYTES])
        TP_TRY(get_f64(d, D_CE_BYTES, &o->ce_bytes_per_logit, err));
    if (d->val[D_TP_OVERLAP])
        o->tp_comm_overlap = true;
    if (d->val[D_NO_DP_OVERLAP])
        o->dp_comm_overlap = false;
    if (d->val[D_ATTN_AMPERE])
        o->attn_ampere_kernel = true;
    if (d->val[D_SAC_OPS])
        o->sac_ops = true;
    if (d->val[D_NO_PP_SG])
        o->pp_scatter_gather = false;
    return TP_OK;
}

static tp_status apply_gpu(const tp_io_desc *d, tp_precision prec, tp_gpu *g, tp_error *err)
{
    double x;
    if (d->order[D_GPU_MEM_GB] > d->order[D_GPU_MEM_GIB]) {
        TP_TRY(get_f64(d, D_GPU_MEM_GB, &x, err));
        g->mem_capacity_bytes = x * TP_GB;
    } else if (d->val[D_GPU_MEM_GIB]) {
        TP_TRY(get_f64(d, D_GPU_MEM_GIB, &x, err));
        g->mem_capacity_bytes = x * TP_GIB;
    }
    if (d->val[D_PEAK_TFLOPS]) {
        TP_TRY(get_f64(d, D_PEAK_TFLOPS, &x, err));
        g->peak_flops_per_s[prec] = x * 1e12;
    }
    if (d->val[D_PRICE])
        TP_TRY(get_f64(d, D_PRICE, &g->price_per_gpu_hour, err));
    return TP_OK;
}

/*
 * A loader error: an unknown preset name or an unreadable file is the
 * field's error (path: the flag without dashes); a bad field or bad JSON
 * in a file is reported in the file.
 */
static tp_status load_error(tp_error *err, const char *path, const char *arg, const char **err_file)
{
    if (!err)
        return TP_ERR_INVALID_ARG;
    if (err->code == TP_ERR_UNKNOWN || err->code == TP_ERR_IO)
        snprintf(err->path, sizeof err->path, "%s", path);
    else
        *err_file = arg;
    return err->code;
}

/*
 * presets_only: the model and GPU must name presets. The value is looked
 * up in the embedded preset table and nowhere else, so the loaders' file
 * branch is unreachable; the message depends on the name alone (the same
 * whether or not a file of that name exists).
 */
static tp_status preset_only(tp_io_kind kind, const char *path, const char *name, tp_error *err)
{
    if (tp_io_preset_text(kind, name))
        return TP_OK;
    /* the loaders' wording for an unknown name, so that the server and the CLI agree */
    const char *hint = tp_io_preset_suggest(kind, name);
    if (hint)
        return tp_error_set(err, TP_ERR_UNKNOWN, path,
                            "unknown %s \"%.64s\" (did you mean \"%s\"?); run 'trainplan "
                            "presets' to list them",
                            path, name, hint);
    return tp_error_set(err, TP_ERR_UNKNOWN, path,
                        "unknown %s \"%.64s\"; run 'trainplan presets' to list them", path, name);
}

tp_status tp_io_desc_build(const tp_io_desc *d, const tp_io_desc_opts *o, tp_config *c,
                           const char **err_file, tp_error *err)
{
    const char *model = tp_io_desc_model(d), *gpu = tp_io_desc_gpu(d);
    const char *profile = d->val[D_HW_PROFILE];
    *err_file = NULL;
    memset(c, 0, sizeof *c);
    if (o && o->presets_only) {
        TP_TRY(preset_only(TP_IO_MODEL, "model", model, err));
        TP_TRY(preset_only(TP_IO_GPU, "gpu", gpu, err));
        if (profile)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "hw-profile",
                                "--hw-profile reads a file; here only presets are accepted");
    }
    if (tp_io_model_load(model, &c->model, err) != TP_OK)
        return load_error(err, "model", model, err_file);
    if (o && o->model_loaded)
        o->model_loaded(model);
    TP_TRY(apply_model(d, &c->model, err));
    if (tp_io_gpu_load(gpu, &c->gpu, err) != TP_OK)
        return load_error(err, "gpu", gpu, err_file);
    tp_train_default(&c->train);
    tp_options_default(&c->opts);
    TP_TRY(apply_train(d, &c->train, err));
    TP_TRY(apply_options(d, &c->opts, err));
    TP_TRY(apply_gpu(d, c->train.precision, &c->gpu, err));
    if (profile && tp_io_hw_profile_load(profile, &c->gpu, err) != TP_OK)
        return load_error(err, "hw-profile", profile, err_file);
    return TP_OK;
}
