/* SPDX-License-Identifier: MIT */
/*
 * desc.c: the run description and its builder (desc.h).
 *
 * This is the second pass that src/cli/opts.c used to run on its scan of
 * argv, moved here so that every front end shares it: a slot per row of
 * src/io/fields.c; the build applies them model first (after the model
 * is loaded), then the training setup and conventions (after the library
 * defaults), then the GPU (whose peak depends on the precision chosen).
 * Within each part the fields with code of their own come in the order
 * written below, and the plain ones (apply_plain) where it is called, in
 * the order of their rows: that order, fixed, decides which of two bad
 * values is reported.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "desc.h"
#include "fields.h"
#include "io.h"
#include "io_internal.h"
#include "recompute_modules.h"
#include "request.h"

/* clang-format off */
const char *const tp_io_mlp_names[] = {"gelu", "swiglu", "squared-relu", "geglu", NULL};
const char *const tp_io_norm_names[] = {"layernorm", "rmsnorm", NULL};
const char *const tp_io_qk_norm_names[] = {"none", "head", "full", NULL};
const char *const tp_io_sched_names[] = {"1f1b", "interleaved", "gpipe", "dualpipe", NULL};
const char *const tp_io_recomp_names[] = {"none", "selective", "full", NULL};
const char *const tp_io_prec_names[] = {"bf16", "fp16", "fp8", NULL};
const char *const tp_io_grad_names[] = {"bf16", "fp32", NULL};
const char *const tp_io_opt_names[] = {"adamw", "adamw-bf16", "adamw-8bit", "sgd-momentum", "sgd",
                                       NULL};
const char *const tp_io_attn_names[] = {"causal", "full", NULL};
const char *const tp_io_act_names[] = {"detailed", "korthikanti", NULL};
const char *const tp_io_ckpt_names[] = {"exact", "seed001", NULL};
const char *const tp_io_coll_names[] = {"ring", "simple", NULL};
/* the names tp_framework_name spells (framework.c) */
const char *const tp_io_fw_names[] = {"none", "megatron-lm", "megatron-core", "deepspeed",
                                      "torchtitan", "torchtune", "llm-foundry",
                                      "nemo-automodel", NULL};
const char *const tp_io_bias_names[] = {"none", "qkv", "all", NULL};
const char *const tp_io_offload_names[] = {"none", "cpu", "nvme", NULL}; /* = tp_offload_device */
const char *const tp_io_recipe_names[] = {"delayed", "tensorwise", "mxfp8", "nvfp4",
                                          NULL}; /* = tp_fp8_recipe */
const char *const tp_io_pos_names[] = {"rotary", "learned", "alibi", NULL};
const char *const tp_io_rope_names[] = {"none", "llama3", NULL};
const char *const tp_io_pp_split_names[] = {"megatron", "in-order", NULL}; /* = tp_pp_split */

static const tp_schedule sched_vals[] = {TP_SCHED_1F1B, TP_SCHED_INTERLEAVED, TP_SCHED_GPIPE,
                                          TP_SCHED_DUALPIPE};
static const tp_recompute recomp_vals[] = {TP_RECOMPUTE_NONE, TP_RECOMPUTE_SELECTIVE,
                                           TP_RECOMPUTE_FULL};
static const tp_precision prec_vals[] = {TP_PREC_BF16, TP_PREC_FP16, TP_PREC_FP8};
static const tp_dtype grad_vals[] = {TP_DTYPE_BF16, TP_DTYPE_FP32};

/*
 * The slots are the rows of src/io/fields.c (fields.h): slot i is row i,
 * for every row that is not plan's own ("plan."). The builder below names
 * each slot by its flag; tp_io_desc_slot finds it in an index of the rows
 * sorted by flag, built once per process.
 */
static int by_flag[TP_IO_DESC_SLOTS]; /* slot rows, sorted by flag, then by index */
static int num_slots;

static const char *flag_of(int row)
{
    return tp_io_field_at((size_t)row)->flag;
}

static int cmp_rows(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    int c = strcmp(flag_of(i), flag_of(j));
    return c ? c : (i > j) - (i < j);
}

static void index_rows(void)
{
    for (size_t i = 0; i < tp_io_field_count(); i++)
        if (strncmp(tp_io_field_at(i)->name, "plan.", 5) != 0)
            by_flag[num_slots++] = (int)i;
    qsort(by_flag, (size_t)num_slots, sizeof *by_flag, cmp_rows);
}

/* A flag the builder names that has no row (a typo in this file): the
 * build fails with an internal error, whichever build meets it first. */
static _Atomic(const char *) unknown_flag;

/* The slot of a flag the builder names; the spare last slot, never set,
 * when it has none. */
static int S(const char *flag)
{
    int s = tp_io_desc_slot(flag);
    if (s >= 0)
        return s;
    atomic_store(&unknown_flag, flag);
    return TP_IO_DESC_SLOTS - 1;
}
#define VAL(flag) (d->val[S(flag)])
#define ORDER(flag) (d->order[S(flag)])

void tp_io_desc_init(tp_io_desc *d)
{
    memset(d, 0, sizeof *d);
}

int tp_io_desc_slot(const char *flag)
{
    static once_flag once = ONCE_FLAG_INIT;
    call_once(&once, index_rows);
    if (!flag)
        return -1;
    int lo = 0, hi = num_slots; /* the first row with the flag */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(flag_of(by_flag[mid]), flag) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < num_slots && strcmp(flag_of(by_flag[lo]), flag) == 0 ? by_flag[lo] : -1;
}

int tp_io_desc_slot_key(const char *key)
{
    char flag[80];
    if (!key || strlen(key) + 3 > sizeof flag)
        return -1;
    snprintf(flag, sizeof flag, "--%s", key);
    return tp_io_desc_slot(flag);
}

static bool valid_slot(int slot)
{
    return slot >= 0 && (size_t)slot < tp_io_field_count();
}

void tp_io_desc_set(tp_io_desc *d, int slot, const char *value, tp_io_origin origin)
{
    if (!valid_slot(slot))
        return;
    d->val[slot] = value;
    d->order[slot] = ++d->count;
    d->origin[slot] = origin;
    d->src[slot] = (tp_io_desc_src){NULL, 0, 0};
}

void tp_io_desc_set_file(tp_io_desc *d, int slot, const char *value, const tp_io_desc_src *src)
{
    tp_io_desc_set(d, slot, value, TP_IO_ORIGIN_FILE);
    if (valid_slot(slot) && src)
        d->src[slot] = *src;
}

bool tp_io_desc_file_source(const tp_io_desc *d, int slot, tp_io_desc_src *src)
{
    if (!valid_slot(slot) || d->origin[slot] != TP_IO_ORIGIN_FILE || !d->src[slot].key ||
        !d->src[slot].key[0])
        return false;
    *src = d->src[slot];
    return true;
}

const char *tp_io_desc_get(const tp_io_desc *d, int slot)
{
    return valid_slot(slot) ? d->val[slot] : NULL;
}

const char *tp_io_desc_model(const tp_io_desc *d)
{
    return VAL("--model") ? VAL("--model") : TP_IO_DEFAULT_MODEL;
}

const char *tp_io_desc_gpu(const tp_io_desc *d)
{
    return VAL("--gpu") ? VAL("--gpu") : TP_IO_DEFAULT_GPU;
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

static tp_status get_i64(const tp_io_desc *d, const char *flag, int64_t *out, tp_error *err)
{
    const tp_io_field *f = tp_io_field_at((size_t)S(flag));
    return tp_io_parse_i64(f->flag, VAL(flag), f->imin, f->imax, out, err);
}

/* A real by the type and range of row f. */
static tp_status parse_f64(const tp_io_field *f, const char *val, double *out, tp_error *err)
{
    if (f->type == TP_IO_FIELD_NUM0)
        return tp_io_parse_f64_or0(f->flag, val, f->fmin, f->fmax, out, err);
    return tp_io_parse_f64(f->flag, val, f->fmin, f->fmax, out, err);
}

static tp_status get_f64(const tp_io_desc *d, const char *flag, double *out, tp_error *err)
{
    return parse_f64(tp_io_field_at((size_t)S(flag)), VAL(flag), out, err);
}

/*
 * The plain fields of one part of the configuration (the fields.c rows
 * that name a member, fields.h), in the order of the rows: each value
 * given is parsed by its row's type and range and stored in the member.
 * A field added that way needs no code here.
 */
static tp_status apply_plain(const tp_io_desc *d, tp_io_field_part part, void *base,
                             tp_error *err)
{
    for (size_t i = 0; i < tp_io_field_count(); i++) {
        const tp_io_field *f = tp_io_field_at(i);
        if (f->part != part || !d->val[i])
            continue;
        unsigned char *at = (unsigned char *)base + f->offset;
        int64_t n;
        double x;
        bool on = strncmp(f->flag, "--no-", 5) != 0;
        switch (f->type) {
        case TP_IO_FIELD_INT:
            TP_TRY(tp_io_parse_i64(f->flag, d->val[i], f->imin, f->imax, &n, err));
            memcpy(at, &n, sizeof n);
            break;
        case TP_IO_FIELD_NUM:
        case TP_IO_FIELD_NUM0:
            TP_TRY(parse_f64(f, d->val[i], &x, err));
            x *= f->scale;
            memcpy(at, &x, sizeof x);
            break;
        case TP_IO_FIELD_SWITCH: memcpy(at, &on, sizeof on); break;
        default:
            return tp_error_set(err, TP_ERR_INTERNAL, "",
                                "internal: %s names a member but is no number or switch",
                                f->flag);
        }
    }
    return TP_OK;
}

static tp_status get_enum(const tp_io_desc *d, const char *flag, int *out, tp_error *err)
{
    const tp_io_field *f = tp_io_field_at((size_t)S(flag));
    return tp_io_parse_enum(f->flag, f->choices, VAL(flag), out, err);
}

/* Set *dst from an integer field when given. */
#define OVERRIDE_I64(flag, dst)                                                                      \
    do {                                                                                           \
        if (VAL(flag))                                                                             \
            TP_TRY(get_i64(d, flag, &(dst), err));                                                   \
    } while (0)

/* ---- the build: model, training setup, conventions, GPU ---- */

/* Biases, positions, the rotary base and scaling, the norm epsilon. */
static tp_status apply_model_more(const tp_io_desc *d, tp_model *m, tp_error *err)
{
    int k;
    if (VAL("--bias")) {
        TP_TRY(get_enum(d, "--bias", &k, err));
        m->linear_bias = k == 2;
        m->qkv_bias = k == 1;
    }
    if (VAL("--position")) {
        TP_TRY(get_enum(d, "--position", &k, err));
        m->pos = (tp_pos)k;
        if (m->pos != TP_POS_LEARNED)
            m->max_positions = 0;
    }
    OVERRIDE_I64("--max-positions", m->max_positions);
    OVERRIDE_I64("--shared-ffn-hidden", m->shared_ffn_hidden);
    OVERRIDE_I64("--moe-first-dense", m->moe_first_dense);
    OVERRIDE_I64("--moe-layer-freq", m->moe_layer_freq);
    if (VAL("--rope-theta"))
        TP_TRY(get_f64(d, "--rope-theta", &m->rope_theta, err));
    if (VAL("--norm-eps"))
        TP_TRY(get_f64(d, "--norm-eps", &m->norm_eps, err));
    if (VAL("--rope-scaling")) {
        TP_TRY(get_enum(d, "--rope-scaling", &k, err));
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
    if (VAL("--rope-factor")) {
        if (m->rope_scaling != TP_ROPE_SCALING_LLAMA3)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "rope-factor",
                                "needs a rotary scaling (--rope-scaling llama3)");
        TP_TRY(get_f64(d, "--rope-factor", &m->rope_factor, err));
    }
    return TP_OK;
}

/* The vision tower's training settings: image tokens per sample and a
 * frozen encoder (tp_vision), on a model that has a tower. */
static tp_status apply_vision(const tp_io_desc *d, tp_model *m, tp_error *err)
{
    if (!VAL("--image-tokens") && !ORDER("--freeze-vision"))
        return TP_OK;
    int64_t tokens = m->vision.image_tokens; /* the value's own range first */
    OVERRIDE_I64("--image-tokens", tokens);
    if (m->vision.layers <= 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG,
                            VAL("--image-tokens") ? "model.vision.image_tokens"
                                                  : "model.vision.frozen",
                            "needs a model with a vision tower (a vision-language config: mllama, "
                            "qwen2_vl, qwen2_5_vl, gemma3, llama4, or a model file's \"vision\"); "
                            "this model has none");
    m->vision.image_tokens = tokens;
    if (ORDER("--freeze-vision"))
        m->vision.frozen = true;
    return TP_OK;
}

static tp_status apply_model(const tp_io_desc *d, tp_model *m, tp_error *err)
{
    TP_TRY(apply_vision(d, m, err));
    OVERRIDE_I64("--layers", m->num_layers);
    OVERRIDE_I64("--hidden", m->hidden);
    OVERRIDE_I64("--heads", m->num_heads);
    OVERRIDE_I64("--kv-heads", m->num_kv_heads);
    OVERRIDE_I64("--head-dim", m->head_dim);
    OVERRIDE_I64("--ffn-hidden", m->ffn_hidden);
    OVERRIDE_I64("--vocab", m->vocab);
    OVERRIDE_I64("--experts", m->num_experts);
    OVERRIDE_I64("--topk", m->topk);
    OVERRIDE_I64("--moe-ffn-hidden", m->moe_ffn_hidden);
    OVERRIDE_I64("--shared-experts", m->num_shared_experts);
    TP_TRY(apply_plain(d, TP_IO_PART_MODEL, m, err)); /* MLA, MTP, windows, MoE balance */
    int k;
    if (VAL("--qk-norm")) {
        TP_TRY(get_enum(d, "--qk-norm", &k, err));
        m->qk_norm = (tp_qk_norm)k;
    }
    if (VAL("--mlp")) {
        TP_TRY(get_enum(d, "--mlp", &k, err));
        m->mlp = (tp_mlp)k;
    }
    if (VAL("--norm")) {
        TP_TRY(get_enum(d, "--norm", &k, err));
        m->norm = k == 0 ? TP_NORM_LAYERNORM : TP_NORM_RMSNORM;
    }
    if (ORDER("--tie-embeddings") > ORDER("--no-tie-embeddings"))
        m->tie_embeddings = true;
    else if (ORDER("--no-tie-embeddings") > ORDER("--tie-embeddings"))
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
    if (VAL("--schedule")) {
        TP_TRY(get_enum(d, "--schedule", &k, err));
        t->schedule = sched_vals[k];
    } else if (t->vpp > 1) {
        t->schedule = TP_SCHED_INTERLEAVED;
    }
    if (VAL("--pp-split")) {
        TP_TRY(get_enum(d, "--pp-split", &k, err));
        t->pp_split = (tp_pp_split)k; /* the names are in the enum's order */
    }
    if (VAL("--recompute")) {
        TP_TRY(get_enum(d, "--recompute", &k, err));
        t->recompute = recomp_vals[k];
    }
    if (VAL("--precision")) {
        TP_TRY(get_enum(d, "--precision", &k, err));
        t->precision = prec_vals[k];
    }
    if (VAL("--grad-dtype")) {
        TP_TRY(get_enum(d, "--grad-dtype", &k, err));
        t->grad_dtype = grad_vals[k];
    }
    if (VAL("--optimizer")) {
        TP_TRY(get_enum(d, "--optimizer", &k, err));
        set_optimizer(k, &t->optimizer);
    }
    if (VAL("--offload-params")) { /* tp_io_offload_names is tp_offload_device's order */
        TP_TRY(get_enum(d, "--offload-params", &k, err));
        t->offload_params = k;
    }
    if (VAL("--fp8-recipe")) { /* tp_io_recipe_names is tp_fp8_recipe's order */
        TP_TRY(get_enum(d, "--fp8-recipe", &k, err));
        t->fp8_recipe = k;
    }
    return apply_plain(d, TP_IO_PART_TRAIN, t, err); /* the switches */
}

/* ZeRO: --zero N, --fsdp (3), --distributed-optimizer (1); the last one wins. */
static tp_status apply_zero(const tp_io_desc *d, tp_train *t, tp_error *err)
{
    int zpos = 0;
    if (VAL("--zero")) {
        int64_t z;
        TP_TRY(get_i64(d, "--zero", &z, err));
        t->zero = (int)z;
        zpos = ORDER("--zero");
    }
    if (ORDER("--fsdp") > zpos) {
        t->zero = 3;
        zpos = ORDER("--fsdp");
    }
    if (ORDER("--distributed-optimizer") > zpos)
        t->zero = 1;
    return TP_OK;
}

/* Global batch: sequences, tokens, or micro-batch x DP. */
static tp_status apply_global_batch(const tp_io_desc *d, tp_train *t, tp_error *err)
{
    if (ORDER("--global-batch") > ORDER("--global-batch-tokens")) {
        OVERRIDE_I64("--global-batch", t->global_batch);
    } else if (VAL("--global-batch-tokens")) {
        int64_t tok;
        TP_TRY(get_i64(d, "--global-batch-tokens", &tok, err));
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
    OVERRIDE_I64("--seq-len", t->seq_len);
    OVERRIDE_I64("--micro-batch", t->micro_batch);
    OVERRIDE_I64("--gpus", t->num_gpus);
    OVERRIDE_I64("--gpus-per-node", t->gpus_per_node);
    OVERRIDE_I64("--tp", t->tp);
    OVERRIDE_I64("--pp", t->pp);
    OVERRIDE_I64("--cp", t->cp);
    OVERRIDE_I64("--ep", t->ep);
    OVERRIDE_I64("--vpp", t->vpp);
    OVERRIDE_I64("--first-stage-layers", t->first_stage_layers);
    OVERRIDE_I64("--last-stage-layers", t->last_stage_layers);
    OVERRIDE_I64("--etp", t->etp);
    OVERRIDE_I64("--recompute-every", t->recompute_every);
    OVERRIDE_I64("--pad-vocab", t->pad_vocab_to);
    TP_TRY(apply_train_kinds(d, t, err));
    OVERRIDE_I64("--recompute-block-layers", t->recompute_layers);
    OVERRIDE_I64("--offload-activations", t->offload_act_layers);
    if (VAL("--offload-optimizer"))
        TP_TRY(get_f64(d, "--offload-optimizer", &t->offload_optimizer, err));
    if (VAL("--recompute-modules")) {
        TP_TRY(tp_io_recompute_modules_parse("--recompute-modules", VAL("--recompute-modules"),
                                             &t->recompute_modules, err));
        if (!VAL("--recompute"))
            t->recompute = TP_RECOMPUTE_SELECTIVE; /* the modules imply it, as in Megatron */
    }
    TP_TRY(apply_zero(d, t, err));

    /* sequence parallelism: explicit switch, else on exactly when tp > 1 */
    if (ORDER("--sp") || ORDER("--no-sp"))
        t->sp = ORDER("--sp") > ORDER("--no-sp");
    else
        t->sp = t->tp > 1;
    return apply_global_batch(d, t, err);
}

/* A size in GB (1e9 bytes), or a rate in GB/s, into *bytes when given. */
static tp_status get_gb(const tp_io_desc *d, const char *flag, double *bytes, tp_error *err)
{
    double x;
    if (!VAL(flag))
        return TP_OK;
    TP_TRY(get_f64(d, flag, &x, err));
    *bytes = x * TP_GB;
    return TP_OK;
}

static tp_status apply_options(const tp_io_desc *d, tp_options *o, tp_error *err)
{
    int k;
    /* a framework profile first: the explicit convention flags below add to it */
    if (VAL("--framework")) {
        TP_TRY(get_enum(d, "--framework", &k, err));
        int fw = tp_framework_of(tp_io_fw_names[k]); /* by name: the two lists' order may differ */
        if (fw >= 0)
            tp_framework_apply((tp_framework)fw, o);
    }
    if (VAL("--attn-flops")) {
        TP_TRY(get_enum(d, "--attn-flops", &k, err));
        o->attn_flops = k == 0 ? TP_ATTN_FLOPS_CAUSAL : TP_ATTN_FLOPS_FULL;
    }
    if (VAL("--act-model")) {
        TP_TRY(get_enum(d, "--act-model", &k, err));
        o->act_model = k == 0 ? TP_ACT_DETAILED : TP_ACT_KORTHIKANTI;
    }
    if (VAL("--ckpt-model")) {
        TP_TRY(get_enum(d, "--ckpt-model", &k, err));
        o->ckpt_model = k == 0 ? TP_CKPT_EXACT : TP_CKPT_SEED001;
    }
    if (VAL("--coll-model")) {
        TP_TRY(get_enum(d, "--coll-model", &k, err));
        o->coll_model = k == 0 ? TP_COLL_RING : TP_COLL_SIMPLE;
    }
    TP_TRY(get_gb(d, "--cuda-context-gb", &o->cuda_context_bytes, err));
    TP_TRY(get_gb(d, "--comm-buffer-gb", &o->comm_buffer_bytes, err));
    if (VAL("--fragmentation"))
        TP_TRY(get_f64(d, "--fragmentation", &o->fragmentation, err));
    TP_TRY(get_gb(d, "--host-memory-gb", &o->host_mem_bytes_per_node, err));
    TP_TRY(get_gb(d, "--pcie-gbps", &o->pcie_bw_bytes_per_s, err));
    TP_TRY(get_gb(d, "--host-mem-bw-gbps", &o->host_mem_bw_bytes_per_s, err));
    TP_TRY(get_gb(d, "--nvme-gbps", &o->nvme_bw_bytes_per_s, err));
    return apply_plain(d, TP_IO_PART_CONVENTIONS, o, err); /* the overheads, the switches */
}

static tp_status apply_gpu(const tp_io_desc *d, tp_precision prec, tp_gpu *g, tp_error *err)
{
    double x;
    if (ORDER("--gpu-memory-gb") > ORDER("--gpu-memory-gib")) {
        TP_TRY(get_f64(d, "--gpu-memory-gb", &x, err));
        g->mem_capacity_bytes = x * TP_GB;
    } else if (VAL("--gpu-memory-gib")) {
        TP_TRY(get_f64(d, "--gpu-memory-gib", &x, err));
        g->mem_capacity_bytes = x * TP_GIB;
    }
    if (VAL("--peak-tflops")) {
        TP_TRY(get_f64(d, "--peak-tflops", &x, err));
        g->peak_flops_per_s[prec] = x * 1e12;
    }
    if (VAL("--nic-gbps")) {
        TP_TRY(get_f64(d, "--nic-gbps", &x, err));
        g->inter_bw_bytes_per_s = x * 1e9;
    }
    return apply_plain(d, TP_IO_PART_GPU, g, err); /* the price */
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

static tp_status check_flags(tp_error *err)
{
    const char *flag = atomic_load(&unknown_flag);
    if (flag)
        return tp_error_set(err, TP_ERR_INTERNAL, "",
                            "internal: src/io/desc.c names %s, which has no row in "
                            "src/io/fields.c",
                            flag);
    return TP_OK;
}

tp_status tp_io_desc_build(const tp_io_desc *d, const tp_io_desc_opts *o, tp_config *c,
                           const char **err_file, tp_error *err)
{
    const char *model = tp_io_desc_model(d), *gpu = tp_io_desc_gpu(d);
    const char *profile = VAL("--hw-profile");
    *err_file = NULL;
    TP_TRY(check_flags(err));
    memset(c, 0, sizeof *c);
    if (profile && ORDER("--fitted-gemm"))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "fitted-gemm",
                            "--fitted-gemm and --hw-profile both given: --hw-profile applies a "
                            "measured GEMM model, --fitted-gemm the fitted fractions; give one");
    if (o && o->presets_only) {
        TP_TRY(preset_only(TP_IO_MODEL, "model", model, err));
        TP_TRY(preset_only(TP_IO_GPU, "gpu", gpu, err));
        if (profile)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "hw-profile",
                                "--hw-profile reads a file; here only presets are accepted");
    }
    if (d->model_text) {
        TP_TRY(tp_io_inline_model_parse(d->model_text, &c->model, err));
    } else {
        if (tp_io_model_load(model, &c->model, err) != TP_OK)
            return load_error(err, "model", model, err_file);
        if (o && o->model_loaded)
            o->model_loaded(model);
    }
    TP_TRY(apply_model(d, &c->model, err));
    if (tp_io_gpu_load(gpu, &c->gpu, err) != TP_OK)
        return load_error(err, "gpu", gpu, err_file);
    if (ORDER("--fitted-gemm"))
        tp_io_gpu_fitted_gemm(&c->gpu);
    tp_train_default(&c->train);
    tp_options_default(&c->opts);
    TP_TRY(apply_train(d, &c->train, err));
    TP_TRY(apply_gpu(d, c->train.precision, &c->gpu, err));
    if (profile && tp_io_hw_profile_load(profile, &c->gpu, err) != TP_OK)
        return load_error(err, "hw-profile", profile, err_file);
    /* the GPU's host side, its preset's or a measured profile's, is the
     * default of the host flags; the user's flags override it */
    tp_io_host_defaults(&c->gpu, &c->opts);
    TP_TRY(apply_options(d, &c->opts, err));
    return check_flags(err);
}
