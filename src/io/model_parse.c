/* SPDX-License-Identifier: MIT */
/*
 * model_parse.c: JSON text -> tp_model / tp_gpu.
 *
 * Three input kinds (schemas in docs/presets.md):
 *  1. trainplan model files (presets/models/ *.json): a closed set of keys;
 *     an unknown key is an error that names it (typos must not be ignored
 *     silently, since a missing optional key changes the count).
 *  2. Hugging Face config.json, detected by "model_type" or "architectures"
 *     and read by hf.c (tp_io__hf_model_parse) with the helpers of
 *     model_json.h; DeepSeek's native inference config (config_671B.json,
 *     "dim" + "n_layers" + "kv_lora_rank") by hf.c too.
 *  3. trainplan GPU files (presets/gpus/ *.json): datasheet units (TFLOP/s,
 *     MiB, GB/s) converted here to the library's SI units.
 *
 * Errors: TP_ERR_PARSE with jansson's line, column and text; TP_ERR_CONFIG
 * with err->path naming the key ("moe.topk") for a missing, unknown or
 * ill-typed key. After a successful parse the library validates the struct
 * (tp_model_validate / tp_gpu_validate) and its error is returned as is.
 * JSON objects do not keep value positions, so CONFIG errors have line 0.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "model_json.h"

#define MAX_PARAMS_EXPECTED 1000000000000000LL /* 1e15, the library's parameter limit */

/* Largest integer a double holds exactly (2^53): JSON reals above it are not exact counts. */
#define EXACT_DOUBLE_INT_MAX 9007199254740992.0

#define BYTES_PER_MIB 1048576.0 /* 2^20 */
#define FLOPS_PER_TFLOP 1e12

#define KEY_PATH_MAX 96 /* = sizeof ((tp_error *)0)->path */

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

/* "parent.key", or "key" at the top level. */
static void key_path(char *buf, size_t n, const char *parent, const char *key)
{
    if (parent && *parent)
        snprintf(buf, n, "%s.%s", parent, key);
    else
        snprintf(buf, n, "%s", key);
}

/* A JSON value as the user wrote it, for messages: "abc" quoted, 1.5, true, an object. */
void tp_io__describe(const json_t *v, char *buf, size_t n)
{
    switch (json_typeof(v)) {
    case JSON_STRING: {
        const char *s = json_string_value(v);
        if (strlen(s) > 40)
            snprintf(buf, n, "\"%.40s...\"", s);
        else
            snprintf(buf, n, "\"%s\"", s);
        return;
    }
    case JSON_INTEGER: snprintf(buf, n, "%lld", (long long)json_integer_value(v)); return;
    case JSON_REAL: snprintf(buf, n, "%g", json_real_value(v)); return;
    case JSON_TRUE: snprintf(buf, n, "true"); return;
    case JSON_FALSE: snprintf(buf, n, "false"); return;
    case JSON_NULL: snprintf(buf, n, "null"); return;
    case JSON_OBJECT: snprintf(buf, n, "an object"); return;
    case JSON_ARRAY: snprintf(buf, n, "an array"); return;
    }
    snprintf(buf, n, "a JSON value");
}

/* Parse NUL-terminated text into a JSON object, or fill err. */
static tp_status load_object(const char *text, json_t **out, tp_error *err)
{
    *out = NULL;
    if (!text)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "no JSON text given");
    json_t *root;
    tp_status pst = tp_io__json_parse(text, JSON_REJECT_DUPLICATES, "out of memory parsing JSON",
                                      "invalid JSON: ", &root, err);
    if (pst != TP_OK)
        return pst;
    if (!json_is_object(root)) {
        char what[64];
        tp_io__describe(root, what, sizeof what);
        json_decref(root);
        return tp_error_set(err, TP_ERR_CONFIG, "",
                            "expected a JSON object at the top level, got %s", what);
    }
    *out = root;
    return TP_OK;
}

/* The first key of obj not in allowed[] (NULL-terminated), as an error. */
static tp_status check_keys(json_t *obj, const char *parent, const char *const *allowed,
                            tp_error *err)
{
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        (void)value; /* unused: only the keys are checked */
        int known = 0;
        const char *best = NULL;
        size_t best_d = (size_t)-1;
        for (size_t i = 0; allowed[i]; i++) {
            if (strcmp(key, allowed[i]) == 0) {
                known = 1;
                break;
            }
            size_t d = tp_io_edit_distance(key, allowed[i], true);
            if (d < best_d) {
                best_d = d;
                best = allowed[i];
            }
        }
        if (known)
            continue;
        char path[KEY_PATH_MAX];
        key_path(path, sizeof path, parent, key);
        /* Suggest only near misses: at most a third of the key's letters wrong. */
        if (best && best_d <= 1 + strlen(key) / 3) {
            char hint[KEY_PATH_MAX];
            key_path(hint, sizeof hint, parent, best);
            return tp_error_set(err, TP_ERR_CONFIG, path,
                                "unknown key \"%s\" (did you mean \"%s\"?)", path, hint);
        }
        return tp_error_set(err, TP_ERR_CONFIG, path, "unknown key \"%s\"", path);
    }
    return TP_OK;
}

/*
 * Integer key in [min, max]: JSON integers, or reals that are exact
 * integers (4096.0). Absent (or null, for HF files where null means
 * "default") leaves *out unchanged unless required.
 */
tp_status tp_io__get_int(const json_t *obj, const char *parent, const char *key, int required,
                         int64_t min, int64_t max, const char *missing_note, int64_t *out,
                         tp_error *err)
{
    char path[KEY_PATH_MAX];
    key_path(path, sizeof path, parent, key);
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v)) {
        if (required)
            return tp_error_set(err, TP_ERR_CONFIG, path, "missing key \"%s\"%s", path,
                                missing_note ? missing_note : "");
        return TP_OK;
    }
    int ok = 0;
    long long iv = 0;
    if (json_is_integer(v)) {
        iv = (long long)json_integer_value(v);
        ok = 1;
    } else if (json_is_real(v)) {
        double d = json_real_value(v);
        if (isfinite(d) && d - floor(d) <= 0.0 && fabs(d) <= EXACT_DOUBLE_INT_MAX) {
            iv = (long long)d;
            ok = 1;
        }
    }
    char what[64];
    tp_io__describe(v, what, sizeof what);
    const char *kind = min >= 1 ? "a positive integer" : "a non-negative integer";
    if (!ok || iv < min)
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be %s, got %s", path, kind,
                            what);
    if (iv > max)
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be at most %lld, got %s", path,
                            (long long)max, what);
    *out = (int64_t)iv;
    return TP_OK;
}

/*
 * Finite number key, > 0 (positive) or >= 0, and then (0 aside) within
 * [lo, hi], the range the quantity means something in: a subnormal or tiny
 * value would print as 0 or divide to inf (issue 14).
 */
static tp_status get_num(const json_t *obj, const char *parent, const char *key, int required,
                         int positive, double lo, double hi, double *out, tp_error *err)
{
    char path[KEY_PATH_MAX];
    key_path(path, sizeof path, parent, key);
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required)
            return tp_error_set(err, TP_ERR_CONFIG, path, "missing key \"%s\"", path);
        return TP_OK;
    }
    double d = json_is_number(v) ? json_number_value(v) : -1.0;
    if (!json_is_number(v) || !isfinite(d) || d < 0.0 || (positive && !(d > 0.0))) {
        char what[64];
        tp_io__describe(v, what, sizeof what);
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be a %s number, got %s", path,
                            positive ? "positive" : "non-negative", what);
    }
    if (fpclassify(d) != FP_ZERO && !(d >= lo && d <= hi)) {
        char what[64];
        tp_io__describe(v, what, sizeof what);
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\": %s is out of range %s[%g, %g]%s",
                            path, what, positive ? "" : "(0, or ", lo, hi, positive ? "" : ")");
    }
    *out = d;
    return TP_OK;
}

bool tp_io__key_listed(const char *key, const char *const *keys)
{
    for (size_t i = 0; keys && keys[i]; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

tp_status tp_io__get_bool(const json_t *obj, const char *key, bool *out, tp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return TP_OK;
    if (!json_is_boolean(v)) {
        char what[64];
        tp_io__describe(v, what, sizeof what);
        return tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" must be true or false, got %s", key,
                            what);
    }
    *out = json_is_true(v);
    return TP_OK;
}

tp_status tp_io__get_real(const json_t *obj, const char *parent, const char *key, double min,
                          double max, double *out, tp_error *err)
{
    char path[128];
    snprintf(path, sizeof path, "%s%s%s", parent ? parent : "", parent ? "." : "", key);
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return TP_OK;
    double x = json_is_number(v) ? json_number_value(v) : (double)NAN;
    if (!json_is_number(v) || !(x >= min && x <= max)) {
        char what[64];
        tp_io__describe(v, what, sizeof what);
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be a number in [%g, %g], got %s",
                            path, min, max, what);
    }
    *out = x;
    return TP_OK;
}

tp_status tp_io__get_rope_scaling(const json_t *obj, const char *key, tp_model *m, tp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return TP_OK;
    if (!json_is_object(v)) {
        char what[64];
        tp_io__describe(v, what, sizeof what);
        return tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" must be an object, got %s", key, what);
    }
    /* HF writes the kind as "rope_type" (newer) or "type" (older). */
    const json_t *kind = json_object_get(v, "rope_type");
    if (!kind)
        kind = json_object_get(v, "type");
    if (json_is_string(kind) && strcmp(json_string_value(kind), "default") == 0)
        return TP_OK;
    if (!json_is_string(kind) || strcmp(json_string_value(kind), "llama3") != 0) {
        m->rope_scaling = TP_ROPE_SCALING_OTHER;
        return TP_OK;
    }
    m->rope_scaling = TP_ROPE_SCALING_LLAMA3;
    m->rope_factor = 8.0;
    m->rope_low_freq_factor = 1.0;
    m->rope_high_freq_factor = 4.0;
    m->rope_original_max = 8192;
    tp_status st;
    if ((st = tp_io__get_real(v, key, "factor", 1e-6, 1e6, &m->rope_factor, err)) != TP_OK ||
        (st = tp_io__get_real(v, key, "low_freq_factor", 1e-6, 1e6, &m->rope_low_freq_factor,
                              err)) != TP_OK ||
        (st = tp_io__get_real(v, key, "high_freq_factor", 1e-6, 1e6, &m->rope_high_freq_factor,
                              err)) != TP_OK ||
        (st = tp_io__get_int(v, key, "original_max_position_embeddings", OPTIONAL, 1, TP_MAX_SEQ,
                             NULL, &m->rope_original_max, err)) != TP_OK)
        return st;
    return TP_OK;
}

/* String key (absent: *out unchanged). */
static tp_status get_str(const json_t *obj, const char *key, const char **out, tp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return TP_OK;
    if (!json_is_string(v)) {
        char what[64];
        tp_io__describe(v, what, sizeof what);
        return tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" must be a string, got %s", key, what);
    }
    *out = json_string_value(v);
    return TP_OK;
}

/* One of names[] (NULL-terminated); *out is its index. */
static tp_status get_enum(const json_t *obj, const char *key, const char *const *names, int *out,
                          tp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    char list[128] = "";
    size_t used = 0;
    for (size_t i = 0; names[i] && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (!v)
        return tp_error_set(err, TP_ERR_CONFIG, key, "missing key \"%s\" (one of %s)", key, list);
    if (json_is_string(v)) {
        for (int i = 0; names[i]; i++) {
            if (strcmp(json_string_value(v), names[i]) == 0) {
                *out = i;
                return TP_OK;
            }
        }
    }
    char what[64];
    tp_io__describe(v, what, sizeof what);
    return tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" must be one of %s, got %s", key, list,
                        what);
}

/* Copy a name into a fixed buffer, or fail if it does not fit. */
static tp_status set_name(char *dst, const char *name, tp_error *err)
{
    if (!*name)
        return tp_error_set(err, TP_ERR_CONFIG, "name", "\"name\" must not be empty");
    if (strlen(name) >= TP_NAME_MAX)
        return tp_error_set(err, TP_ERR_CONFIG, "name", "\"name\" is longer than %d characters",
                            TP_NAME_MAX - 1);
    snprintf(dst, TP_NAME_MAX, "%s", name);
    return TP_OK;
}

/*
 * A name from the origin (a path or a preset name): the file name without
 * ".json", or for ".../<dir>/config.json" the folder's name. Empty if the
 * origin gives none.
 */
void tp_io__name_from_origin(const char *origin, char *dst, size_t n)
{
    dst[0] = '\0';
    if (!origin || !*origin)
        return;
    const char *base = strrchr(origin, '/');
    base = base ? base + 1 : origin;
    size_t len = strlen(base);
    if (strcmp(base, "config.json") == 0) {
        /* the parent folder, if the origin names one */
        if (base == origin)
            return;
        const char *end = base - 1; /* the '/' before config.json */
        const char *start = end;
        while (start > origin && start[-1] != '/')
            start--;
        len = (size_t)(end - start);
        if (len == 0 || (len == 1 && start[0] == '.') ||
            (len == 2 && start[0] == '.' && start[1] == '.'))
            return;
        base = start;
    } else if (len > 5 && strcmp(base + len - 5, ".json") == 0) {
        len -= 5;
    }
    if (len >= n)
        len = n - 1;
    memcpy(dst, base, len);
    dst[len] = '\0';
}

/*
 * The head-shape constraints of tp_model_validate, checked here first so
 * that the error names the file's key rather than the CLI flag.
 */
tp_status tp_io__check_shape(const tp_model *m, const shape_keys *k, tp_error *err)
{
    if (m->num_heads > m->hidden)
        return tp_error_set(err, TP_ERR_CONFIG, k->heads,
                            "\"%s\" (%lld) must not exceed \"%s\" (%lld)", k->heads,
                            (long long)m->num_heads, k->hidden, (long long)m->hidden);
    if (m->head_dim == 0 && m->kv_lora_rank == 0 && m->hidden % m->num_heads != 0)
        return tp_error_set(err, TP_ERR_CONFIG, k->heads,
                            "\"%s\" (%lld) must divide \"%s\" (%lld) unless \"%s\" is given",
                            k->heads, (long long)m->num_heads, k->hidden, (long long)m->hidden,
                            k->head_dim);
    if (m->num_kv_heads > 0 &&
        (m->num_kv_heads > m->num_heads || m->num_heads % m->num_kv_heads != 0))
        return tp_error_set(err, TP_ERR_CONFIG, k->kv_heads,
                            "\"%s\" (%lld) must divide \"%s\" (%lld)", k->kv_heads,
                            (long long)m->num_kv_heads, k->heads, (long long)m->num_heads);
    return TP_OK;
}

/* ------------------------------------------------------------------ */
/* trainplan model schema                                              */
/* ------------------------------------------------------------------ */

static const char *const model_keys[] = {"name",
                                         "source",
                                         "norm",
                                         "mlp",
                                         "position",
                                         "linear_bias",
                                         "qkv_bias",
                                         "tie_embeddings",
                                         "num_layers",
                                         "hidden",
                                         "num_heads",
                                         "num_kv_heads",
                                         "head_dim",
                                         "ffn_hidden",
                                         "vocab",
                                         "max_positions",
                                         "moe",
                                         "params_expected",
                                         "mla",
                                         "attention",
                                         "mtp_layers",
                                         "norm_bias",
                                         "norms_per_layer",
                                         "rope_theta",
                                         "norm_eps",
                                         "rope_scaling",
                                         "hybrid",
                                         "vision",
                                         NULL};
static const char *const moe_keys[] = {"num_experts",
                                       "topk",
                                       "ffn_hidden",
                                       "num_shared_experts",
                                       "shared_ffn_hidden",
                                       "first_dense",
                                       "layer_freq",
                                       "router_bias",
                                       "imbalance",
                                       "capacity_factor",
                                       "router_groups",
                                       "router_group_topk",
                                       NULL};
static const char *const mla_keys[] = {"q_lora_rank",      "kv_lora_rank", "qk_rope_head_dim",
                                       "qk_nope_head_dim", "v_head_dim",   NULL};
static const char *const attention_keys[] = {"sliding_window", "global_every", "qk_norm", "sinks",
                                             "out_bias",       "chunk",        NULL};
static const char *const hybrid_keys[] = {
    "layer_pattern",      "mamba_heads",    "mamba_head_dim", "mamba_groups",
    "mamba_state",        "mamba_conv",     "gdn_k_heads",    "gdn_v_heads",
    "gdn_k_head_dim",     "gdn_v_head_dim", "gdn_conv",       "attn_output_gate",
    "shared_expert_gate", "mamba1_inner",   "mamba1_dt_rank", NULL};
static const char *const vision_int_keys[] = {
    "layers",       "hidden",      "heads",       "ffn_hidden",   "channels",
    "patch",        "temporal",    "positions",   "tiles",        "aspect_ids",
    "gated_layers", "final_norms", "image_size",  "window",       "full_layers",
    "merge",        "proj_in",     "proj_hidden", "proj_hidden2", "proj_norm",
    "extra_vocab",  "cross_every", "cross_first", "image_tokens", NULL};
static const char *const vision_keys[] = {
    "layers",       "hidden",    "heads",          "ffn_hidden",  "channels",     "patch",
    "temporal",     "positions", "tiles",          "aspect_ids",  "gated_layers", "final_norms",
    "image_size",   "window",    "full_layers",    "merge",       "proj_in",      "proj_hidden",
    "proj_hidden2", "proj_norm", "extra_vocab",    "cross_every", "cross_first",  "image_tokens",
    "mlp",          "norm",      "proj_norm_kind", "attn_bias",   "mlp_bias",     "patch_bias",
    "class_token",  "proj_bias", "frozen",         NULL};
static const char *const qk_norm_names[] = {"none", "head", "full", NULL}; /* tp_qk_norm */

/* Index order = enum order (tp_norm, tp_mlp, tp_pos). */
static const char *const norm_names[] = {"layernorm", "rmsnorm", NULL};
static const char *const mlp_names[] = {"gelu", "swiglu", "squared-relu", "geglu", NULL};
static const char *const pos_names[] = {"rotary", "learned", "alibi", NULL};

static tp_status parse_moe(json_t *moe, tp_model *m, tp_error *err)
{
    tp_status st;
    if (!json_is_object(moe)) {
        char what[64];
        tp_io__describe(moe, what, sizeof what);
        return tp_error_set(err, TP_ERR_CONFIG, "moe", "\"moe\" must be an object, got %s", what);
    }
    if ((st = check_keys(moe, "moe", moe_keys, err)) != TP_OK)
        return st;
    if ((st = tp_io__get_int(moe, "moe", "num_experts", REQUIRED, 1, TP_MAX_EXPERTS, NULL,
                             &m->num_experts, err)) != TP_OK ||
        (st = tp_io__get_int(moe, "moe", "topk", REQUIRED, 1, TP_MAX_EXPERTS, NULL, &m->topk,
                             err)) != TP_OK ||
        (st = tp_io__get_int(moe, "moe", "ffn_hidden", OPTIONAL, 1, TP_MAX_FFN, NULL,
                             &m->moe_ffn_hidden, err)) != TP_OK ||
        (st = tp_io__get_int(moe, "moe", "num_shared_experts", OPTIONAL, 0, TP_MAX_EXPERTS, NULL,
                             &m->num_shared_experts, err)) != TP_OK ||
        (st = tp_io__get_int(moe, "moe", "shared_ffn_hidden", OPTIONAL, 0, TP_MAX_FFN, NULL,
                             &m->shared_ffn_hidden, err)) != TP_OK ||
        (st = tp_io__get_int(moe, "moe", "first_dense", OPTIONAL, 0, TP_MAX_LAYERS, NULL,
                             &m->moe_first_dense, err)) != TP_OK ||
        (st = tp_io__get_int(moe, "moe", "layer_freq", OPTIONAL, 1, TP_MAX_LAYERS, NULL,
                             &m->moe_layer_freq, err)) != TP_OK ||
        (st = tp_io__get_bool(moe, "router_bias", &m->router_bias, err)) != TP_OK ||
        (st = get_num(moe, "moe", "imbalance", OPTIONAL, 0, 1.0, 1e3, &m->moe_imbalance, err)) !=
            TP_OK ||
        (st = get_num(moe, "moe", "capacity_factor", OPTIONAL, 0, 0.01, 1e3,
                      &m->moe_capacity_factor, err)) != TP_OK ||
        (st = tp_io__get_int(moe, "moe", "router_groups", OPTIONAL, 0, TP_MAX_EXPERTS, NULL,
                             &m->moe_router_groups, err)) != TP_OK ||
        (st = tp_io__get_int(moe, "moe", "router_group_topk", OPTIONAL, 0, TP_MAX_EXPERTS, NULL,
                             &m->moe_group_topk, err)) != TP_OK)
        return st;
    if (m->topk > m->num_experts)
        return tp_error_set(err, TP_ERR_CONFIG, "moe.topk",
                            "\"moe.topk\" (%lld) must not exceed \"moe.num_experts\" (%lld)",
                            (long long)m->topk, (long long)m->num_experts);
    return TP_OK;
}

/* An object-valued key: absent is fine, anything but an object is an error. */
static tp_status get_object(json_t *root, const char *key, const char *const *keys, json_t **out,
                            tp_error *err)
{
    json_t *v = json_object_get(root, key);
    *out = NULL;
    if (!v)
        return TP_OK;
    if (!json_is_object(v)) {
        char what[64];
        tp_io__describe(v, what, sizeof what);
        return tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" must be an object, got %s", key, what);
    }
    *out = v;
    return check_keys(v, key, keys, err);
}

/* "mla": multi-head latent attention (model.c design note). */
static tp_status parse_mla(json_t *root, tp_model *m, tp_error *err)
{
    json_t *o;
    tp_status st = get_object(root, "mla", mla_keys, &o, err);
    if (st != TP_OK || !o)
        return st;
    if ((st = tp_io__get_int(o, "mla", "kv_lora_rank", REQUIRED, 1, TP_MAX_DIM, NULL,
                             &m->kv_lora_rank, err)) != TP_OK ||
        (st = tp_io__get_int(o, "mla", "q_lora_rank", OPTIONAL, 0, TP_MAX_DIM, NULL,
                             &m->q_lora_rank, err)) != TP_OK ||
        (st = tp_io__get_int(o, "mla", "qk_rope_head_dim", REQUIRED, 0, TP_MAX_DIM, NULL,
                             &m->qk_rope_head_dim, err)) != TP_OK ||
        (st = tp_io__get_int(o, "mla", "qk_nope_head_dim", REQUIRED, 0, TP_MAX_DIM, NULL,
                             &m->qk_nope_head_dim, err)) != TP_OK ||
        (st = tp_io__get_int(o, "mla", "v_head_dim", REQUIRED, 1, TP_MAX_DIM, NULL, &m->v_head_dim,
                             err)) != TP_OK)
        return st;
    if (m->qk_rope_head_dim + m->qk_nope_head_dim < 1)
        return tp_error_set(err, TP_ERR_CONFIG, "mla.qk_nope_head_dim",
                            "\"mla.qk_nope_head_dim\" + \"mla.qk_rope_head_dim\" must be at "
                            "least 1");
    return TP_OK;
}

/* "attention": windows, QK-norm, sinks, biases on q/k/v/o alone. */
static tp_status parse_attention(json_t *root, tp_model *m, tp_error *err)
{
    json_t *o;
    tp_status st = get_object(root, "attention", attention_keys, &o, err);
    if (st != TP_OK || !o)
        return st;
    int qk;
    if ((st = tp_io__get_int(o, "attention", "sliding_window", OPTIONAL, 1, TP_MAX_SEQ, NULL,
                             &m->sliding_window, err)) != TP_OK ||
        (st = tp_io__get_int(o, "attention", "global_every", OPTIONAL, 1, TP_MAX_LAYERS, NULL,
                             &m->global_every, err)) != TP_OK ||
        (st = tp_io__get_int(o, "attention", "chunk", OPTIONAL, 1, TP_MAX_SEQ, NULL,
                             &m->attention_chunk, err)) != TP_OK ||
        (st = tp_io__get_bool(o, "sinks", &m->attn_sinks, err)) != TP_OK ||
        (st = tp_io__get_bool(o, "out_bias", &m->attn_out_bias, err)) != TP_OK)
        return st;
    const json_t *v = json_object_get(o, "qk_norm");
    if (v) {
        qk = -1;
        for (int i = 0; qk_norm_names[i] && json_is_string(v); i++)
            if (strcmp(json_string_value(v), qk_norm_names[i]) == 0)
                qk = i;
        if (qk < 0) {
            char what[64];
            tp_io__describe(v, what, sizeof what);
            return tp_error_set(err, TP_ERR_CONFIG, "attention.qk_norm",
                                "\"attention.qk_norm\" must be one of \"none\", \"head\", "
                                "\"full\", got %s",
                                what);
        }
        m->qk_norm = (tp_qk_norm)qk;
    }
    if (m->global_every > 0 && m->sliding_window == 0 && m->attention_chunk == 0)
        return tp_error_set(err, TP_ERR_CONFIG, "attention.global_every",
                            "\"attention.global_every\" needs \"attention.sliding_window\" or "
                            "\"attention.chunk\"");
    if (m->attention_chunk > 0 && m->sliding_window > 0)
        return tp_error_set(err, TP_ERR_CONFIG, "attention.chunk",
                            "\"attention.chunk\" and \"attention.sliding_window\" cannot both be "
                            "set");
    if (m->global_every > m->num_layers)
        return tp_error_set(err, TP_ERR_CONFIG, "attention.global_every",
                            "\"attention.global_every\" (%lld) must not exceed \"num_layers\" "
                            "(%lld)",
                            (long long)m->global_every, (long long)m->num_layers);
    return TP_OK;
}

/* "hybrid": the layer pattern and the Mamba-2 / gated delta-net mixers
 * (src/lib/hybrid.c design note); the library checks how they combine. */
static tp_status parse_hybrid(json_t *root, tp_model *m, tp_error *err)
{
    json_t *o;
    tp_status st = get_object(root, "hybrid", hybrid_keys, &o, err);
    if (st != TP_OK || !o)
        return st;
    const char *pattern = NULL;
    if ((st = get_str(o, "layer_pattern", &pattern, err)) != TP_OK)
        return st;
    if (!pattern || !pattern[0] || strlen(pattern) >= TP_PATTERN_MAX)
        return tp_error_set(err, TP_ERR_CONFIG, "hybrid.layer_pattern",
                            "\"hybrid.layer_pattern\" must be a string of 1 to %d layer kinds",
                            TP_PATTERN_MAX - 1);
    memcpy(m->layer_pattern, pattern, strlen(pattern) + 1);
    static const char *const ints[] = {"mamba_heads", "mamba_head_dim", "mamba_groups",
                                       "mamba_state", "mamba_conv",     "gdn_k_heads",
                                       "gdn_v_heads", "gdn_k_head_dim", "gdn_v_head_dim",
                                       "gdn_conv",    "mamba1_inner",   "mamba1_dt_rank"};
    int64_t *dst[] = {&m->mamba_heads,    &m->mamba_head_dim, &m->mamba_groups, &m->mamba_state,
                      &m->mamba_conv,     &m->gdn_k_heads,    &m->gdn_v_heads,  &m->gdn_k_head_dim,
                      &m->gdn_v_head_dim, &m->gdn_conv,       &m->mamba1_inner, &m->mamba1_dt_rank};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        bool conv = strstr(ints[i], "conv") != NULL;
        if ((st = tp_io__get_int(o, "hybrid", ints[i], OPTIONAL, 1, conv ? 64 : TP_MAX_DIM, NULL,
                                 dst[i], err)) != TP_OK)
            return st;
    }
    if ((st = tp_io__get_bool(o, "attn_output_gate", &m->attn_output_gate, err)) != TP_OK ||
        (st = tp_io__get_bool(o, "shared_expert_gate", &m->shared_expert_gate, err)) != TP_OK)
        return st;
    return TP_OK;
}

/* A "vision" enum key (absent: *out unchanged), named "vision.<key>". */
static tp_status vision_enum(const json_t *o, const char *key, const char *const *names, int *out,
                             tp_error *err)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return TP_OK;
    for (int i = 0; names[i] && json_is_string(v); i++)
        if (strcmp(json_string_value(v), names[i]) == 0) {
            *out = i;
            return TP_OK;
        }
    char what[64], list[128] = "", path[48];
    size_t used = 0;
    snprintf(path, sizeof path, "vision.%s", key);
    for (size_t i = 0; names[i] && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    tp_io__describe(v, what, sizeof what);
    return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be one of %s, got %s", path, list,
                        what);
}

/* "vision": the vision tower of a vision-language model, field for field
 * tp_vision (libtp's vision.c design note); the library checks the ranges
 * and how the fields combine. */
static tp_status parse_vision(json_t *root, tp_model *m, tp_error *err)
{
    json_t *o;
    tp_status st = get_object(root, "vision", vision_keys, &o, err);
    if (st != TP_OK || !o)
        return st;
    tp_vision *v = &m->vision;
    int64_t *dst[] = {&v->layers,      &v->hidden,      &v->heads,        &v->ffn_hidden,
                      &v->channels,    &v->patch,       &v->temporal,     &v->positions,
                      &v->tiles,       &v->aspect_ids,  &v->gated_layers, &v->final_norms,
                      &v->image_size,  &v->window,      &v->full_layers,  &v->merge,
                      &v->proj_in,     &v->proj_hidden, &v->proj_hidden2, &v->proj_norm,
                      &v->extra_vocab, &v->cross_every, &v->cross_first,  &v->image_tokens};
    for (size_t i = 0; vision_int_keys[i]; i++) {
        bool required = i < 4 || strcmp(vision_int_keys[i], "patch") == 0;
        if ((st = tp_io__get_int(o, "vision", vision_int_keys[i], required, 0, TP_MAX_FFN, NULL,
                                 dst[i], err)) != TP_OK)
            return st;
    }
    int mlp = TP_MLP_GELU, norm = TP_NORM_LAYERNORM, proj_norm = TP_NORM_LAYERNORM;
    if ((st = vision_enum(o, "mlp", mlp_names, &mlp, err)) != TP_OK ||
        (st = vision_enum(o, "norm", norm_names, &norm, err)) != TP_OK ||
        (st = vision_enum(o, "proj_norm_kind", norm_names, &proj_norm, err)) != TP_OK)
        return st;
    v->mlp = (tp_mlp)mlp;
    v->norm = (tp_norm)norm;
    v->proj_norm_kind = (tp_norm)proj_norm;
    static const char *const flags[] = {"attn_bias",   "mlp_bias",  "patch_bias",
                                        "class_token", "proj_bias", "frozen"};
    bool *fdst[] = {&v->attn_bias,   &v->mlp_bias,  &v->patch_bias,
                    &v->class_token, &v->proj_bias, &v->frozen};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if ((st = tp_io__get_bool(o, flags[i], fdst[i], err)) != TP_OK)
            return st;
    return TP_OK;
}

static tp_status parse_trainplan_model(json_t *root, const char *origin, tp_model *out,
                                       tp_error *err)
{
    tp_model m;
    memset(&m, 0, sizeof m);
    int norm = 0, mlp = 0, pos = 0;
    const char *name = NULL, *source = NULL;
    int64_t params_expected = 0;

    TRY(check_keys(root, NULL, model_keys, err));
    TRY(get_str(root, "name", &name, err));
    TRY(get_str(root, "source", &source, err));
    TRY(get_enum(root, "norm", norm_names, &norm, err));
    TRY(get_enum(root, "mlp", mlp_names, &mlp, err));
    TRY(get_enum(root, "position", pos_names, &pos, err));
    TRY(tp_io__get_bool(root, "linear_bias", &m.linear_bias, err));
    TRY(tp_io__get_bool(root, "qkv_bias", &m.qkv_bias, err));
    TRY(tp_io__get_bool(root, "tie_embeddings", &m.tie_embeddings, err));
    TRY(tp_io__get_int(root, NULL, "num_layers", REQUIRED, 1, TP_MAX_LAYERS, NULL, &m.num_layers,
                       err));
    TRY(tp_io__get_int(root, NULL, "hidden", REQUIRED, 1, TP_MAX_DIM, NULL, &m.hidden, err));
    TRY(tp_io__get_int(root, NULL, "num_heads", REQUIRED, 1, TP_MAX_DIM, NULL, &m.num_heads, err));
    TRY(tp_io__get_int(root, NULL, "num_kv_heads", OPTIONAL, 1, TP_MAX_DIM, NULL, &m.num_kv_heads,
                       err));
    TRY(tp_io__get_int(root, NULL, "head_dim", OPTIONAL, 1, TP_MAX_DIM, NULL, &m.head_dim, err));
    TRY(tp_io__get_int(root, NULL, "ffn_hidden", REQUIRED, 1, TP_MAX_FFN, NULL, &m.ffn_hidden,
                       err));
    TRY(tp_io__get_int(root, NULL, "vocab", REQUIRED, 1, TP_MAX_VOCAB, NULL, &m.vocab, err));
    TRY(tp_io__get_int(root, NULL, "max_positions", OPTIONAL, 0, TP_MAX_SEQ, NULL, &m.max_positions,
                       err));
    TRY(tp_io__get_real(root, NULL, "rope_theta", 1.0, 1e12, &m.rope_theta, err));
    TRY(tp_io__get_real(root, NULL, "norm_eps", 1e-30, 0.1, &m.norm_eps, err));
    TRY(tp_io__get_rope_scaling(root, "rope_scaling", &m, err));
    TRY(tp_io__get_int(root, NULL, "params_expected", OPTIONAL, 1, MAX_PARAMS_EXPECTED, NULL,
                       &params_expected, err));
    json_t *moe = json_object_get(root, "moe");
    if (moe)
        TRY(parse_moe(moe, &m, err));
    TRY(parse_mla(root, &m, err));
    TRY(parse_attention(root, &m, err));
    TRY(parse_hybrid(root, &m, err));
    TRY(parse_vision(root, &m, err));
    TRY(tp_io__get_int(root, NULL, "mtp_layers", OPTIONAL, 0, TP_MAX_LAYERS, NULL, &m.mtp_layers,
                       err));
    TRY(tp_io__get_int(root, NULL, "norms_per_layer", OPTIONAL, 1, 8, NULL, &m.norms_per_layer,
                       err));
    bool norm_bias = true;
    TRY(tp_io__get_bool(root, "norm_bias", &norm_bias, err));
    m.norm_no_bias = !norm_bias;
    m.norm = (tp_norm)norm;
    m.mlp = (tp_mlp)mlp;
    m.pos = (tp_pos)pos;
    static const shape_keys tp_keys = {"hidden", "num_heads", "num_kv_heads", "head_dim"};
    TRY(tp_io__check_shape(&m, &tp_keys, err));
    if (m.pos == TP_POS_LEARNED && m.max_positions == 0)
        FAIL(err, TP_ERR_CONFIG, "max_positions",
             "\"max_positions\" must be given when \"position\" is \"learned\" (it is "
             "the size of the position table)");
    if (name) {
        TRY(set_name(m.name, name, err));
    } else {
        tp_io__name_from_origin(origin, m.name, sizeof m.name);
        if (!m.name[0])
            snprintf(m.name, sizeof m.name, "custom");
    }
    json_decref(root);
    tp_status st = tp_model_validate(&m, err);
    if (st != TP_OK)
        return st;
    *out = m;
    return TP_OK;
}

tp_status tp_io_model_parse(const char *text, const char *origin, tp_model *out, tp_error *err)
{
    json_t *root;
    tp_status st = load_object(text, &root, err);
    if (st != TP_OK)
        return st;
    if (!out) {
        json_decref(root);
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model", "no output model given");
    }
    if (json_object_get(root, "model_type") || json_object_get(root, "architectures"))
        return tp_io__hf_model_parse(root, origin, out, err);
    if (json_object_get(root, "dim") && json_object_get(root, "n_layers") &&
        json_object_get(root, "kv_lora_rank"))
        return tp_io__deepseek_native_parse(root, origin, out, err);
    return parse_trainplan_model(root, origin, out, err);
}

/* ------------------------------------------------------------------ */
/* GPU schema                                                          */
/* ------------------------------------------------------------------ */

static const char *const gpu_keys[] = {"name",
                                       "source",
                                       "peak_tflops",
                                       "memory_mib",
                                       "memory_marketing_gb",
                                       "memory_bw_gb_per_s",
                                       "intra_node_gb_per_s",
                                       "nic_gb_per_s",
                                       "gpus_per_node",
                                       "price_per_gpu_hour_usd",
                                       "price_source",
                                       "hw_profile",
                                       "host_link_gb_per_s",
                                       "host_memory_gb_per_node",
                                       "host_memory_bw_gb_per_s",
                                       "host_source",
                                       "compute_capability",
                                       NULL};
/* Index order = tp_precision order. */
static const char *const peak_keys[] = {"bf16", "fp16", "fp8", "tf32", "fp4", NULL};

tp_status tp_io_gpu_parse(const char *text, const char *origin, tp_gpu *out, tp_error *err)
{
    json_t *root;
    tp_status st = load_object(text, &root, err);
    if (st != TP_OK)
        return st;
    if (!out) {
        json_decref(root);
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu", "no output GPU given");
    }
    tp_gpu g;
    memset(&g, 0, sizeof g);
    const char *name = NULL, *source = NULL, *price_source = NULL, *profile = NULL;
    const char *host_source = NULL;
    double mem_mib = 0.0, marketing_gb = 0.0, bw_gb = 0.0, intra_gb = 0.0, nic_gb = 0.0;

    TRY(check_keys(root, NULL, gpu_keys, err));
    TRY(get_str(root, "name", &name, err));
    TRY(get_str(root, "source", &source, err));
    TRY(get_str(root, "price_source", &price_source, err));
    TRY(get_str(root, "hw_profile", &profile, err));
    TRY(get_str(root, "host_source", &host_source, err));
    json_t *peak = json_object_get(root, "peak_tflops");
    if (!peak)
        FAIL(err, TP_ERR_CONFIG, "peak_tflops",
             "missing key \"peak_tflops\" (dense TFLOP/s by precision: bf16, fp16, fp8, "
             "tf32)");
    if (!json_is_object(peak)) {
        char what[64];
        tp_io__describe(peak, what, sizeof what);
        FAIL(err, TP_ERR_CONFIG, "peak_tflops", "\"peak_tflops\" must be an object, got %s", what);
    }
    TRY(check_keys(peak, "peak_tflops", peak_keys, err));
    double fp4_tflops = 0.0; /* Blackwell's NVFP4 peak; absent: no FP4 (and no MX formats) */
    TRY(get_num(peak, "peak_tflops", "fp4", OPTIONAL, 0, 1e-3, 1e7, &fp4_tflops, err));
    g.peak_fp4_flops_per_s = fp4_tflops * FLOPS_PER_TFLOP;
    for (int p = 0; p < TP_PREC_COUNT; p++) {
        double tflops = 0.0;
        /* bf16 is the reference peak for MFU; the others are 0 (unsupported) when absent. */
        TRY(get_num(peak, "peak_tflops", peak_keys[p], p == TP_PREC_BF16 ? REQUIRED : OPTIONAL,
                    p == TP_PREC_BF16, 1e-3, 1e7, &tflops, err));
        g.peak_flops_per_s[p] = tflops * FLOPS_PER_TFLOP;
    }
    TRY(get_num(root, NULL, "memory_mib", REQUIRED, 1, 1.0, 1e9, &mem_mib, err));
    TRY(get_num(root, NULL, "memory_marketing_gb", OPTIONAL, 1, 1e-3, 1e6, &marketing_gb, err));
    TRY(get_num(root, NULL, "memory_bw_gb_per_s", REQUIRED, 1, 1e-3, 1e7, &bw_gb, err));
    TRY(get_num(root, NULL, "intra_node_gb_per_s", REQUIRED, 1, 1e-3, 1e7, &intra_gb, err));
    TRY(get_num(root, NULL, "nic_gb_per_s", REQUIRED, 1, 1e-3, 1e7, &nic_gb, err));
    TRY(tp_io__get_int(root, NULL, "gpus_per_node", REQUIRED, 1, TP_MAX_GPUS_PER_NODE, NULL,
                       &g.gpus_per_node, err));
    TRY(get_num(root, NULL, "price_per_gpu_hour_usd", OPTIONAL, 0, 1e-3, 1e6, &g.price_per_gpu_hour,
                err));
    /* the host side (0: not stated; tp_io_host_defaults) */
    double link_gb = 0.0, host_gb = 0.0, host_bw_gb = 0.0;
    TRY(get_num(root, NULL, "host_link_gb_per_s", OPTIONAL, 0, 1e-3, 1e4, &link_gb, err));
    TRY(get_num(root, NULL, "host_memory_gb_per_node", OPTIONAL, 0, 1e-3, 1e6, &host_gb, err));
    TRY(get_num(root, NULL, "host_memory_bw_gb_per_s", OPTIONAL, 0, 1e-3, 1e5, &host_bw_gb, err));
    if ((link_gb > 0.0 || host_gb > 0.0 || host_bw_gb > 0.0) && !host_source)
        FAIL(err, TP_ERR_CONFIG, "host_source",
             "missing key \"host_source\": the host link and memory need their source");
    double cc = 0.0; /* "9.0": major.minor */
    TRY(get_num(root, NULL, "compute_capability", OPTIONAL, 0, 1.0, 99.9, &cc, err));
    g.compute_capability = (int)lround(cc * 10.0);
    g.host_link_bytes_per_s = link_gb * TP_GB;
    g.host_mem_bytes_per_node = host_gb * TP_GB;
    g.host_mem_bw_bytes_per_s = host_bw_gb * TP_GB;
    g.mem_capacity_bytes = mem_mib * BYTES_PER_MIB;
    g.mem_bw_bytes_per_s = bw_gb * TP_GB;
    g.intra_bw_bytes_per_s = intra_gb * TP_GB;
    g.inter_bw_bytes_per_s = nic_gb * TP_GB;
    if (name) {
        TRY(set_name(g.name, name, err));
    } else {
        tp_io__name_from_origin(origin, g.name, sizeof g.name);
        if (!g.name[0])
            snprintf(g.name, sizeof g.name, "custom");
    }
    tp_gpu_default_eff(&g);
    /* the shipped profile it names: its measured GEMM rates by default
     * (docs/model.md 1b; --fitted-gemm goes back to the fitted fractions) */
    if (profile)
        TRY(tp_io__hw_profile_gemm(profile, "hw_profile", &g, err));
    json_decref(root);
    st = tp_gpu_validate(&g, err);
    if (st != TP_OK)
        return st;
    *out = g;
    return TP_OK;
}
