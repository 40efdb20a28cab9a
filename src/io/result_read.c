/* SPDX-License-Identifier: MIT */
/*
 * result_read.c: a trainplan result read back (export --from FILE.json,
 * tp_io_import_trainplan in import.h): the --json output of `estimate` (an
 * object with "model", "gpu", "layout", "training", "conventions"), of
 * `search` (an array: the first, best-ranked entry) or of `plan` (its
 * first phase: layout, sequence, batch and the phase's tokens).
 *
 * Like the engine importers it yields the values of the run
 * description's fields, named by their trainplan flags (import.h says
 * why): presets named in the file are loaded and only what differs from
 * them becomes a value (reals within a relative 1e-12 count
 * as the same: the JSON rounds bytes). The model details json_out.c
 * writes when a model records them (QKV bias, rotary base and scaling,
 * norm epsilon, MoE layer pattern) become their flags; those no flag
 * expresses are applied by tp_io_import_apply (import.c).
 */
#include <float.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "import.h"
#include "import_build.h"
#include "io.h"
#include "io_internal.h"

/* The first object (depth-first) holding "model", "layout" and "training". */
static json_t *find_result(json_t *j, int depth)
{
    if (depth > 4 || !j)
        return NULL;
    if (json_is_object(j)) {
        if (json_is_object(json_object_get(j, "model")) &&
            json_is_object(json_object_get(j, "layout")) &&
            json_is_object(json_object_get(j, "training")))
            return j;
        const char *k;
        json_t *v;
        json_object_foreach(j, k, v)
        {
            json_t *r = find_result(v, depth + 1);
            if (r)
                return r;
        }
        return NULL;
    }
    if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v)
        {
            json_t *r = find_result(v, depth + 1);
            if (r)
                return r;
        }
    }
    return NULL;
}

typedef struct tpj {
    json_t *root; /* the result object */
    tp_import *im;
    tp_error *err;
    int64_t preset_gpus_per_node; /* of the GPU preset, 0 when not a preset */
} tpj;

static json_t *tj_get(tpj *t, const char *sec, const char *key, char *path, size_t n)
{
    snprintf(path, n, "%s.%s", sec, key);
    json_t *o = json_object_get(t->root, sec);
    return o ? json_object_get(o, key) : NULL;
}

static tp_status tj_int(tpj *t, const char *sec, const char *key, int64_t min, int64_t *out)
{
    char p[96];
    json_t *v = tj_get(t, sec, key, p, sizeof p);
    if (!json_is_integer(v) || json_integer_value(v) < min)
        return tp_error_set(t->err, TP_ERR_CONFIG, p, "\"%s\" must be an integer >= %" PRId64, p,
                            min);
    *out = (int64_t)json_integer_value(v);
    return TP_OK;
}

static tp_status tj_num(tpj *t, const char *sec, const char *key, double *out)
{
    char p[96];
    json_t *v = tj_get(t, sec, key, p, sizeof p);
    if (!json_is_number(v))
        return tp_error_set(t->err, TP_ERR_CONFIG, p, "\"%s\" must be a number", p);
    double d = json_number_value(v);
    if (fpclassify(d) == FP_SUBNORMAL) /* never a silent 0 or inf downstream (issue 14) */
        return tp_error_set(t->err, TP_ERR_CONFIG, p,
                            "\"%s\": %g is too small to compute with (0, or a magnitude of at "
                            "least %g)",
                            p, d, DBL_MIN);
    *out = d;
    return TP_OK;
}

static tp_status tj_str(tpj *t, const char *sec, const char *key, const char **out)
{
    char p[96];
    json_t *v = tj_get(t, sec, key, p, sizeof p);
    if (!json_is_string(v))
        return tp_error_set(t->err, TP_ERR_CONFIG, p, "\"%s\" must be a string", p);
    *out = json_string_value(v);
    return TP_OK;
}

static tp_status tj_bool(tpj *t, const char *sec, const char *key, bool *out)
{
    char p[96];
    json_t *v = tj_get(t, sec, key, p, sizeof p);
    if (!json_is_boolean(v))
        return tp_error_set(t->err, TP_ERR_CONFIG, p, "\"%s\" must be true or false", p);
    *out = json_is_true(v);
    return TP_OK;
}

/* Push "--flag N" from an integer field. */
static tp_status tj_flag_int(tpj *t, const char *sec, const char *key, int64_t min,
                             const char *flag)
{
    int64_t v;
    TP_TRY(tj_int(t, sec, key, min, &v));
    char src[48];
    snprintf(src, sizeof src, "%s.%s", sec, key);
    from(t->im, src, 0, 0);
    if (!push_i64(t->im, flag, v))
        return full(t->err);
    return TP_OK;
}

static tp_status tj_flag_str(tpj *t, const char *sec, const char *key, const char *flag)
{
    const char *v;
    TP_TRY(tj_str(t, sec, key, &v));
    char src[48];
    snprintf(src, sizeof src, "%s.%s", sec, key);
    from(t->im, src, 0, 0);
    if (!push_str(t->im, flag, v))
        return full(t->err);
    return TP_OK;
}

static bool push_real(tp_import *im, const char *flag, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    return push_str(im, flag, buf);
}

/* Differs by more than a relative 1e-12 (the JSON rounds bytes). */
static bool differs(double a, double b)
{
    double s = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) > 1e-12 * (s > 1.0 ? s : 1.0);
}

/* An optional number of "model" (absent: *has false). */
static tp_status tj_opt_num(tpj *t, const char *key, bool *has, double *out)
{
    json_t *o = json_object_get(t->root, "model");
    *has = o && json_object_get(o, key) != NULL;
    return *has ? tj_num(t, "model", key, out) : TP_OK;
}

/* Push "--flag X" from an optional real of "model". */
static tp_status tj_flag_opt_real(tpj *t, const char *key, const char *flag)
{
    bool has;
    double v;
    TP_TRY(tj_opt_num(t, key, &has, &v));
    if (!has)
        return TP_OK;
    char src[48];
    snprintf(src, sizeof src, "model.%s", key);
    from(t->im, src, 0, 0);
    return push_real(t->im, flag, v) ? TP_OK : full(t->err);
}

/* Push "--flag N" from an optional integer of "model". */
static tp_status tj_flag_opt_int(tpj *t, const char *key, int64_t min, const char *flag)
{
    json_t *o = json_object_get(t->root, "model");
    return o && json_object_get(o, key) ? tj_flag_int(t, "model", key, min, flag) : TP_OK;
}

/* An optional Llama 3 frequency factor of "model" (absent: 0, the default). */
static tp_status tj_rope_real(tpj *t, const char *key, double *out)
{
    bool has;
    double x = 0.0;
    TP_TRY(tj_opt_num(t, key, &has, &x));
    if (has && !(x > 0.0 && x <= 1e6)) {
        char p[64];
        snprintf(p, sizeof p, "model.%s", key);
        return tp_error_set(t->err, TP_ERR_CONFIG, p, "\"%s\" must be a number in (0, 1e6], got %g",
                            p, x);
    }
    *out = has ? x : 0.0;
    return TP_OK;
}

/*
 * The model details json_out.c writes when the model records them (QKV
 * bias, learned positions, rotary base and scaling, norm epsilon, the MoE
 * layer pattern), as their flags; an older file without them keeps the
 * preset's (or the default model's). Llama 3's frequency factors and
 * original context have no flag: kept in im->model for
 * tp_io_import_apply.
 */
static tp_status tj_model_details(tpj *t)
{
    tp_import *im = t->im;
    json_t *mo = json_object_get(t->root, "model");
    /* issue 16: no flag rebuilds a vision tower or Falcon's parallel block */
    if (json_object_get(mo, "vision") || json_object_get(mo, "parallel_attn"))
        return tp_error_set(t->err, TP_ERR_CONFIG,
                            json_object_get(mo, "vision") ? "model.vision" : "model.parallel_attn",
                            "the result's model has a %s that no trainplan flag rebuilds: read "
                            "its config.json with --model instead",
                            json_object_get(mo, "vision") ? "vision tower"
                                                          : "parallel attention block");
    /* a hybrid model (src/lib/hybrid.c) and the gates have no flag: refused,
     * never read back as another model */
    static const char *const no_flag[] = {"layer_pattern", "attn_output_gate",
                                          "shared_expert_gate"};
    for (size_t i = 0; i < sizeof no_flag / sizeof no_flag[0]; i++)
        if (json_object_get(mo, no_flag[i])) {
            char p[64];
            snprintf(p, sizeof p, "model.%s", no_flag[i]);
            return tp_error_set(t->err, TP_ERR_CONFIG, p,
                                "\"%s\": a hybrid or gated model cannot be read back from a "
                                "result file (no flag holds it); give its model file with --model",
                                p);
        }
    if (json_object_get(mo, "qkv_bias")) {
        bool q;
        TP_TRY(tj_bool(t, "model", "qkv_bias", &q));
        if (q && !push_str(im, "--bias", "qkv"))
            return full(t->err);
    }
    TP_TRY(tj_flag_opt_int(t, "max_positions", 1, "--max-positions"));
    TP_TRY(tj_flag_opt_real(t, "rope_theta", "--rope-theta"));
    if (json_object_get(mo, "rope_scaling")) {
        const char *rs;
        TP_TRY(tj_str(t, "model", "rope_scaling", &rs));
        if (strcmp(rs, "llama3") == 0) {
            if (!push_str(im, "--rope-scaling", "llama3"))
                return full(t->err);
            TP_TRY(tj_flag_opt_real(t, "rope_factor", "--rope-factor"));
            TP_TRY(tj_rope_real(t, "rope_low_freq_factor", &im->model.rope_low_freq_factor));
            TP_TRY(tj_rope_real(t, "rope_high_freq_factor", &im->model.rope_high_freq_factor));
            if (json_object_get(mo, "rope_original_max")) {
                int64_t n;
                TP_TRY(tj_int(t, "model", "rope_original_max", 1, &n));
                if (n > TP_MAX_SEQ)
                    return tp_error_set(t->err, TP_ERR_CONFIG, "model.rope_original_max",
                                        "\"model.rope_original_max\" must be at most %d, got "
                                        "%" PRId64,
                                        (int)TP_MAX_SEQ, n);
                im->model.rope_original_max = n;
            }
            im->model.rope_scaling = TP_ROPE_SCALING_LLAMA3;
        } else if (strcmp(rs, "other") == 0) {
            im->model.rope_scaling = TP_ROPE_SCALING_OTHER;
        } else {
            return tp_error_set(t->err, TP_ERR_CONFIG, "model.rope_scaling",
                                "\"model.rope_scaling\" must be llama3 or other (got \"%s\")", rs);
        }
    }
    TP_TRY(tj_flag_opt_real(t, "norm_eps", "--norm-eps"));
    TP_TRY(tj_flag_opt_int(t, "shared_ffn_hidden", 0, "--shared-ffn-hidden"));
    TP_TRY(tj_flag_opt_int(t, "moe_first_dense", 0, "--moe-first-dense"));
    TP_TRY(tj_flag_opt_int(t, "moe_layer_freq", 1, "--moe-layer-freq"));
    TP_TRY(tj_flag_opt_int(t, "moe_router_groups", 1, "--moe-router-groups"));
    TP_TRY(tj_flag_opt_int(t, "moe_router_group_topk", 1, "--moe-router-group-topk"));
    return TP_OK;
}

static tp_status tj_model(tpj *t)
{
    tp_import *im = t->im;
    const char *name, *mlp, *norm, *pos;
    TP_TRY(tj_str(t, "model", "name", &name));
    tp_model preset;
    bool is_preset = tp_io_preset_text(TP_IO_MODEL, name) != NULL &&
                     tp_io_model_load(name, &preset, NULL) == TP_OK;
    if (is_preset) {
        if (!push_str(im, "--model", name))
            return full(t->err);
    } else {
        char msg[320];
        snprintf(msg, sizeof msg,
                 "model \"%.60s\" is not a preset: its shape and the details the file "
                 "records come from the file, the rest from the default model",
                 name);
        assume(im, msg);
    }
    TP_TRY(tj_flag_int(t, "model", "layers", 1, "--layers"));
    TP_TRY(tj_flag_int(t, "model", "hidden", 1, "--hidden"));
    TP_TRY(tj_flag_int(t, "model", "heads", 1, "--heads"));
    TP_TRY(tj_flag_int(t, "model", "kv_heads", 1, "--kv-heads"));
    TP_TRY(tj_flag_int(t, "model", "head_dim", 1, "--head-dim"));
    TP_TRY(tj_flag_int(t, "model", "ffn_hidden", 1, "--ffn-hidden"));
    TP_TRY(tj_flag_int(t, "model", "vocab", 1, "--vocab"));
    TP_TRY(tj_str(t, "model", "mlp", &mlp));
    TP_TRY(tj_str(t, "model", "norm", &norm));
    TP_TRY(tj_str(t, "model", "position", &pos));
    if (!push_str(im, "--mlp", mlp) || !push_str(im, "--norm", norm))
        return full(t->err);
    bool tie, bias;
    TP_TRY(tj_bool(t, "model", "tie_embeddings", &tie));
    TP_TRY(tj_bool(t, "model", "linear_bias", &bias));
    if (!push_flag(im, tie ? "--tie-embeddings" : "--no-tie-embeddings"))
        return full(t->err);
    int64_t experts;
    TP_TRY(tj_int(t, "model", "experts", 0, &experts));
    if (!push_i64(im, "--experts", experts))
        return full(t->err);
    if (experts > 0) {
        TP_TRY(tj_flag_int(t, "model", "topk", 1, "--topk"));
        TP_TRY(tj_flag_int(t, "model", "moe_ffn_hidden", 1, "--moe-ffn-hidden"));
        TP_TRY(tj_flag_int(t, "model", "shared_experts", 0, "--shared-experts"));
    }
    /* fields without flags: applied by tp_io_import_apply */
    im->has_model = true;
    tp_model *m = &im->model;
    if (is_preset)
        *m = preset;
    snprintf(m->name, sizeof m->name, "%s", name);
    m->linear_bias = bias;
    if (strcmp(pos, "rotary") == 0)
        m->pos = TP_POS_ROTARY;
    else if (strcmp(pos, "learned") == 0)
        m->pos = TP_POS_LEARNED;
    else if (strcmp(pos, "alibi") == 0)
        m->pos = TP_POS_ALIBI;
    else
        return tp_error_set(t->err, TP_ERR_CONFIG, "model.position",
                            "\"model.position\" must be rotary, learned or alibi (got \"%s\")",
                            pos);
    TP_TRY(tj_model_details(t));
    im->has_vocab = true;
    return TP_OK;
}

static tp_status tj_gpu(tpj *t)
{
    tp_import *im = t->im;
    const char *name, *prec;
    double peak, cap, price;
    TP_TRY(tj_str(t, "gpu", "name", &name));
    TP_TRY(tj_num(t, "gpu", "peak_flops_per_s", &peak));
    TP_TRY(tj_str(t, "gpu", "peak_precision", &prec));
    TP_TRY(tj_num(t, "gpu", "memory_capacity_bytes", &cap));
    TP_TRY(tj_num(t, "gpu", "price_per_gpu_hour", &price));
    tp_gpu g;
    bool is_preset =
        tp_io_preset_text(TP_IO_GPU, name) != NULL && tp_io_gpu_load(name, &g, NULL) == TP_OK;
    if (is_preset) {
        t->preset_gpus_per_node = g.gpus_per_node;
        if (!push_str(im, "--gpu", name))
            return full(t->err);
    } else {
        char msg[320];
        snprintf(msg, sizeof msg,
                 "GPU \"%.60s\" is not a preset: memory, peak and price come from the file, "
                 "bandwidths from the default GPU",
                 name);
        assume(im, msg);
    }
    int p = -1;
    for (int i = 0; i < TP_PREC_COUNT; i++)
        if (strcmp(prec, tp_io_precision_name((tp_precision)i)) == 0)
            p = i;
    if (!is_preset || differs(cap, g.mem_capacity_bytes))
        if (!push_real(im, "--gpu-memory-gb", cap / 1e9))
            return full(t->err);
    if (!is_preset || p < 0 || differs(peak, g.peak_flops_per_s[p]))
        if (!push_real(im, "--peak-tflops", peak / 1e12))
            return full(t->err);
    if (!is_preset || differs(price, g.price_per_gpu_hour))
        if (!push_real(im, "--price", price))
            return full(t->err);
    /* the NIC (optional: results before --nic-gbps may lack it) */
    double nic = 0.0;
    if (json_object_get(json_object_get(t->root, "gpu"), "inter_bw_bytes_per_s")) {
        TP_TRY(tj_num(t, "gpu", "inter_bw_bytes_per_s", &nic));
        if ((!is_preset || differs(nic, g.inter_bw_bytes_per_s)) &&
            !push_real(im, "--nic-gbps", nic / 1e9))
            return full(t->err);
    }
    /* a result of --fitted-gemm on a preset whose default is its profile */
    const json_t *gm = json_object_get(json_object_get(t->root, "gpu"), "gemm_model");
    const char *kind = json_string_value(json_object_get(gm, "kind"));
    if (is_preset && g.eff.mamf > 0.0 && kind && strcmp(kind, "fitted") == 0 &&
        !push_flag(im, "--fitted-gemm"))
        return full(t->err);
    return TP_OK;
}

static tp_status tj_layout(tpj *t)
{
    tp_import *im = t->im;
    TP_TRY(tj_flag_int(t, "layout", "num_gpus", 1, "--gpus"));
    int64_t gpn;
    TP_TRY(tj_int(t, "layout", "gpus_per_node", 1, &gpn));
    if (gpn != t->preset_gpus_per_node && !push_i64(im, "--gpus-per-node", gpn))
        return full(t->err);
    TP_TRY(tj_flag_int(t, "layout", "tp", 1, "--tp"));
    TP_TRY(tj_flag_int(t, "layout", "pp", 1, "--pp"));
    TP_TRY(tj_flag_int(t, "layout", "cp", 1, "--cp"));
    TP_TRY(tj_flag_int(t, "layout", "ep", 1, "--ep"));
    char etp_path[96]; /* optional: written only for a folded MoE layout */
    if (tj_get(t, "layout", "etp", etp_path, sizeof etp_path))
        TP_TRY(tj_flag_int(t, "layout", "etp", 1, "--etp"));
    TP_TRY(tj_flag_int(t, "layout", "vpp", 1, "--vpp"));
    bool sp;
    TP_TRY(tj_bool(t, "layout", "sp", &sp));
    if (!push_flag(im, sp ? "--sp" : "--no-sp"))
        return full(t->err);
    TP_TRY(tj_flag_int(t, "layout", "zero", 0, "--zero"));
    TP_TRY(tj_flag_str(t, "layout", "schedule", "--schedule"));
    TP_TRY(tj_flag_str(t, "layout", "recompute", "--recompute"));
    TP_TRY(tj_flag_int(t, "layout", "recompute_every", 1, "--recompute-every"));
    int64_t first, last;
    TP_TRY(tj_int(t, "layout", "first_stage_layers", 0, &first));
    TP_TRY(tj_int(t, "layout", "last_stage_layers", 0, &last));
    if (first > 0 && !push_i64(im, "--first-stage-layers", first))
        return full(t->err);
    if (last > 0 && !push_i64(im, "--last-stage-layers", last))
        return full(t->err);
    char split_path[96];
    if (tj_get(t, "layout", "pp_split", split_path, sizeof split_path))
        TP_TRY(tj_flag_str(t, "layout", "pp_split", "--pp-split"));
    TP_TRY(tj_flag_int(t, "layout", "seq_len", 1, "--seq-len"));
    char packed_path[96]; /* optional: written only with --packed-seq-len */
    if (tj_get(t, "layout", "packed_seq_len", packed_path, sizeof packed_path))
        TP_TRY(tj_flag_int(t, "layout", "packed_seq_len", 1, "--packed-seq-len"));
    TP_TRY(tj_flag_int(t, "layout", "micro_batch", 1, "--micro-batch"));
    TP_TRY(tj_flag_int(t, "layout", "global_batch", 1, "--global-batch"));
    char local_path[96]; /* optional: written only with --local-batch */
    if (tj_get(t, "layout", "local_batch", local_path, sizeof local_path))
        TP_TRY(tj_flag_int(t, "layout", "local_batch", 1, "--local-batch"));
    im->has_gpus = true;
    return TP_OK;
}

static tp_status tj_training(tpj *t)
{
    tp_import *im = t->im;
    TP_TRY(tj_flag_str(t, "training", "precision", "--precision"));
    TP_TRY(tj_flag_str(t, "training", "grad_dtype", "--grad-dtype"));
    TP_TRY(tj_flag_str(t, "training", "optimizer", "--optimizer"));
    bool master, flash, dropout, fused;
    TP_TRY(tj_bool(t, "training", "master_weights", &master));
    TP_TRY(tj_bool(t, "training", "flash_attn", &flash));
    TP_TRY(tj_bool(t, "training", "dropout", &dropout));
    TP_TRY(tj_bool(t, "training", "fused_ce", &fused));
    if ((!master && !push_flag(im, "--no-master-weights")) ||
        (!flash && !push_flag(im, "--no-flash-attn")) || (dropout && !push_flag(im, "--dropout")) ||
        (fused && !push_flag(im, "--fused-ce")))
        return full(t->err);
    char fp8_path[96]; /* optional: written only when on */
    bool fp8 = false;
    if (tj_get(t, "training", "fp8_param_gather", fp8_path, sizeof fp8_path))
        TP_TRY(tj_bool(t, "training", "fp8_param_gather", &fp8));
    if (fp8 && !push_flag(im, "--fp8-param-gather"))
        return full(t->err);
    char blk_path[96]; /* optional: written only when set */
    if (tj_get(t, "training", "recompute_layers", blk_path, sizeof blk_path))
        TP_TRY(tj_flag_int(t, "training", "recompute_layers", 1, "--recompute-block-layers"));
    char off_path[96]; /* optional: written only when set */
    json_t *off = tj_get(t, "training", "offload_optimizer", off_path, sizeof off_path);
    if (off) {
        if (!json_is_number(off) ||
            !(json_number_value(off) >= 0.0 && json_number_value(off) <= 1.0))
            return tp_error_set(t->err, TP_ERR_CONFIG, off_path,
                                "\"%s\" must be a number in [0, 1]", off_path);
        if (!push_real(im, "--offload-optimizer", json_number_value(off)))
            return full(t->err);
    }
    char opt_path[96]; /* optional: written only when set */
    if (tj_get(t, "training", "offload_params", opt_path, sizeof opt_path))
        TP_TRY(tj_flag_str(t, "training", "offload_params", "--offload-params"));
    if (tj_get(t, "training", "offload_activations", opt_path, sizeof opt_path))
        TP_TRY(tj_flag_int(t, "training", "offload_activations", 1, "--offload-activations"));
    if (tj_get(t, "training", "fp8_recipe", opt_path, sizeof opt_path))
        TP_TRY(tj_flag_str(t, "training", "fp8_recipe", "--fp8-recipe"));
    char rc_path[96]; /* optional: written only when set */
    if (tj_get(t, "training", "recompute_modules", rc_path, sizeof rc_path))
        TP_TRY(tj_flag_str(t, "training", "recompute_modules", "--recompute-modules"));
    int64_t pad;
    TP_TRY(tj_int(t, "training", "pad_vocab_to", 1, &pad));
    if (pad > 1 && !push_i64(im, "--pad-vocab", pad))
        return full(t->err);
    return TP_OK;
}

/* The plain conventions json_out.c writes only when they are not the
 * default (tp_io_field_plain_convention), each read back as its flag. */
static tp_status tj_convention_switches(tpj *t, const tp_options *d)
{
    char path[96];
    for (size_t i = 0; i < tp_io_field_count(); i++) {
        const tp_io_field *f = tp_io_field_at(i);
        if (!tp_io_field_plain_convention(f) ||
            !tj_get(t, "conventions", tp_io_field_member(f), path, sizeof path))
            continue;
        if (f->type == TP_IO_FIELD_SWITCH) {
            bool on;
            TP_TRY(tj_bool(t, "conventions", tp_io_field_member(f), &on));
            if (on == tp_io_field_switch_sets(f) && !push_flag(t->im, f->flag))
                return full(t->err);
            continue;
        }
        double v;
        TP_TRY(tj_num(t, "conventions", tp_io_field_member(f), &v));
        if (differs(v, tp_io_field_convention(f, d)) && !push_real(t->im, f->flag, v))
            return full(t->err);
    }
    return TP_OK;
}

static tp_status tj_conventions(tpj *t)
{
    tp_import *im = t->im;
    if (!json_is_object(json_object_get(t->root, "conventions")))
        return TP_OK; /* older files: trainplan's defaults */
    TP_TRY(tj_flag_str(t, "conventions", "attn_flops", "--attn-flops"));
    TP_TRY(tj_flag_str(t, "conventions", "act_model", "--act-model"));
    TP_TRY(tj_flag_str(t, "conventions", "ckpt_model", "--ckpt-model"));
    TP_TRY(tj_flag_str(t, "conventions", "coll_model", "--coll-model"));
    tp_options d;
    tp_options_default(&d);
    double ctx, buf, frag;
    TP_TRY(tj_num(t, "conventions", "cuda_context_bytes", &ctx));
    TP_TRY(tj_num(t, "conventions", "comm_buffer_bytes", &buf));
    TP_TRY(tj_num(t, "conventions", "fragmentation", &frag));
    if (differs(ctx, d.cuda_context_bytes) && !push_real(im, "--cuda-context-gb", ctx / 1e9))
        return full(t->err);
    if (differs(buf, d.comm_buffer_bytes) && !push_real(im, "--comm-buffer-gb", buf / 1e9))
        return full(t->err);
    if (differs(frag, d.fragmentation) && !push_real(im, "--fragmentation", frag))
        return full(t->err);
    char sac_path[96]; /* optional: written only when on */
    bool sac = false;
    if (tj_get(t, "conventions", "sac_ops", sac_path, sizeof sac_path))
        TP_TRY(tj_bool(t, "conventions", "sac_ops", &sac));
    if (sac && !push_flag(im, "--sac-ops"))
        return full(t->err);
    return tj_convention_switches(t, &d);
}

/* A `trainplan plan --json` document: "model", "cluster" and "phases"
 * (each with its layout, sequence, batch and tokens). The first phase is
 * used; its tokens give the step count. The plan does not record the
 * precision or optimizer: they come from the flags (noted). */

static tp_status tj_plan(json_t *doc, tp_import *im, tp_error *err)
{
    json_t *model = json_object_get(doc, "model"), *cl = json_object_get(doc, "cluster");
    json_t *phases = json_object_get(doc, "phases");
    json_t *ph = json_array_get(phases, 0);
    if (!json_is_object(ph) || !json_is_object(json_object_get(ph, "layout")))
        return tp_error_set(err, TP_ERR_CONFIG, "phases",
                            "the plan has no phase with a layout (\"phases[0].layout\")");
    tpj t = {doc, im, err, 0};
    const char *name;
    TP_TRY(tj_str(&t, "model", "name", &name));
    tp_model pre;
    bool is_preset =
        tp_io_preset_text(TP_IO_MODEL, name) != NULL && tp_io_model_load(name, &pre, NULL) == TP_OK;
    int64_t L = 0, h = 0, a = 0;
    TP_TRY(tj_int(&t, "model", "num_layers", 1, &L));
    TP_TRY(tj_int(&t, "model", "hidden", 1, &h));
    TP_TRY(tj_int(&t, "model", "num_heads", 1, &a));
    if (is_preset && !push_str(im, "--model", name))
        return full(err);
    if (!is_preset || pre.num_layers != L || pre.hidden != h || pre.num_heads != a) {
        if (!push_i64(im, "--layers", L) || !push_i64(im, "--hidden", h) ||
            !push_i64(im, "--heads", a))
            return full(err);
        assume(im, "the plan's model is not exactly a preset: layers, hidden and heads from the "
                   "plan, the rest of its shape from --model");
    }
    (void)model;
    const char *gpu;
    t.root = doc;
    TP_TRY(tj_str(&t, "cluster", "gpu", &gpu));
    if (!push_str(im, "--gpu", gpu))
        return full(err);
    TP_TRY(tj_flag_int(&t, "cluster", "num_gpus", 1, "--gpus"));
    TP_TRY(tj_flag_int(&t, "cluster", "gpus_per_node", 1, "--gpus-per-node"));
    (void)cl;
    /* the phase: layout, sequence, batch */
    json_t *wrap_obj = json_object();
    if (!wrap_obj || json_object_set(wrap_obj, "layout", json_object_get(ph, "layout")) != 0 ||
        json_object_set(wrap_obj, "phase", ph) != 0) {
        json_decref(wrap_obj);
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the plan");
    }
    t.root = wrap_obj;
    tp_status st = TP_OK;
    bool sp = false;
    const char *sched = NULL, *rec = NULL;
    if ((st = tj_flag_int(&t, "layout", "tp", 1, "--tp")) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "pp", 1, "--pp")) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "cp", 1, "--cp")) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "ep", 1, "--ep")) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "vpp", 1, "--vpp")) == TP_OK &&
        (st = tj_bool(&t, "layout", "sp", &sp)) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "zero", 0, "--zero")) == TP_OK &&
        (st = tj_str(&t, "layout", "schedule", &sched)) == TP_OK &&
        (st = tj_str(&t, "layout", "recompute", &rec)) == TP_OK &&
        (st = tj_flag_int(&t, "layout", "micro_batch", 1, "--micro-batch")) == TP_OK &&
        (st = tj_flag_int(&t, "phase", "seq_len", 1, "--seq-len")) == TP_OK &&
        (st = tj_flag_int(&t, "phase", "global_batch", 1, "--global-batch")) == TP_OK) {
        if (!push_flag(im, sp ? "--sp" : "--no-sp") || !push_str(im, "--schedule", sched) ||
            !push_str(im, "--recompute", rec))
            st = full(err);
        double tokens = 0.0;
        if (st == TP_OK && tj_num(&t, "phase", "tokens", &tokens) == TP_OK && tokens >= 1.0 &&
            tokens < 9.0e18)
            im->train_tokens = (int64_t)llround(tokens);
    }
    json_decref(wrap_obj);
    if (st != TP_OK)
        return st;
    im->has_gpus = true;
    im->has_vocab = true;
    if (json_array_size(phases) > 1) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "the plan has %zu phases: the first is exported (its layout, "
                 "sequence, batch and tokens)",
                 json_array_size(phases));
        assume(im, msg);
    }
    assume(im, "the plan does not record precision, gradients or optimizer: they come from the "
               "flags (trainplan's defaults unless given)");
    return TP_OK;
}

tp_status tp_io_import_trainplan(const char *text, const char *origin, tp_import *out,
                                 tp_error *err)
{
    (void)origin; /* the file names its model */
    memset(out, 0, sizeof *out);
    out->kind = TP_IMPORT_TRAINPLAN;
    if (!text)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "no trainplan result");
    json_t *root;
    tp_status pst =
        tp_io__json_parse(text, 0, "out of memory reading the trainplan result", "", &root, err);
    if (pst != TP_OK)
        return pst;
    tpj t = {find_result(root, 0), out, err, 0};
    tp_status st;
    if (!t.root && json_is_object(root) && json_is_array(json_object_get(root, "phases")) &&
        json_is_object(json_object_get(root, "cluster")))
        st = tj_plan(root, out, err);
    else if (!t.root)
        st = tp_error_set(err, TP_ERR_CONFIG, "",
                          "no trainplan result in the file (expected the --json output of "
                          "estimate, search or plan)");
    else if ((st = tj_model(&t)) == TP_OK && (st = tj_gpu(&t)) == TP_OK &&
             (st = tj_layout(&t)) == TP_OK && (st = tj_training(&t)) == TP_OK)
        st = tj_conventions(&t);
    json_decref(root);
    return st;
}
