/* SPDX-License-Identifier: MIT */
/*
 * hf_llama4.c: Hugging Face Llama 4 configs (Llama-4-Scout-17B-16E,
 * Llama-4-Maverick-17B-128E) as tp_model; hf.c hands them here by
 * model_type.
 *
 * model_type "llama4_text" (Llama4TextConfig, Llama4ForCausalLM) is read
 * whole. model_type "llama4" (Llama4ForConditionalGeneration) nests the
 * language model in "text_config" (read as a llama4_text config) beside a
 * "vision_config", read into tp_model.vision.
 *
 * Architecture facts the config does not state, from transformers'
 * modeling_llama4.py:
 *  - RMSNorm, SwiGLU, rotary positions, untied head by default, no biases
 *    (attention_bias false; true is refused).
 *  - MoE layers are moe_layers, by default every interleave_moe_layer_step-th
 *    (range(step - 1, L, step)); the others are dense Llama4TextMLP of
 *    intermediate_size_mlp. A MoE layer (Llama4TextMoe) holds
 *    num_local_experts SwiGLU experts of intermediate_size, one shared
 *    SwiGLU expert of the same width and a router Linear(h, E) without bias.
 *  - no_rope_layers[i] = 1 when layer i uses RoPE (by default every layer
 *    but each no_rope_layer_interval-th, (i + 1) % 4 == 0); the NoPE layers
 *    attend to the whole sequence, the RoPE layers to their own
 *    attention_chunk_size chunk (default 8192; null: none) (layer_types
 *    "chunked_attention"): in
 *    trainplan attention_chunk with global_every n (model.c design note).
 *  - use_qk_norm puts Llama4TextL2Norm on q and k of the RoPE layers: an L2
 *    normalisation without weights, so nothing is counted (qk_norm none);
 *    attn_temperature_tuning scales the NoPE layers' queries, no weights.
 * The vision tower (Llama4VisionModel, Llama4MultiModalProjector): a
 *   Linear patch embedding (Llama4UnfoldConvolution, no bias) of
 *   num_channels x patch_size^2 pixels, a class token, a learned position
 *   table of (image_size / patch_size)^2 + 1 rows, LayerNorm before and
 *   after the encoder, num_hidden_layers blocks (LayerNorm, q/k/v/o with
 *   biases, GELU MLP of intermediate_size with biases; the 2D rotary has no
 *   weights); then the pixel shuffle merges 1 / pixel_shuffle_ratio^2
 *   patches (0.5: 4, the class token dropped), Llama4VisionMLP2 fc1
 *   (intermediate_size -> projector_input_dim) and fc2
 *   (projector_output_dim -> projector_output_dim) without biases, and the
 *   projector Linear(vision_output_dim, text hidden_size) without bias:
 *   tp_vision's projector of three linears (proj_hidden, proj_hidden2).
 *   Image tokens per sample default to one 336-pixel tile's patch grid
 *   (576 patches, 144 language tokens; --image-tokens sets them).
 * Checks (tests/unit/test_arch.c test_llama4, tests/data/hf/llama-4-*):
 * Scout 108,641,793,536 (text 107,769,861,120, 17,172,894,720 active;
 * vision 871,932,416 with its projector), Maverick 401,583,781,376 (text
 * 400,711,848,960, 17,184,691,200 active), the released checkpoints'
 * totals.
 */
#include <stdio.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "model_json.h"

/* As model_json.h's TRY, without releasing a root (the text part is not one). */
#define CHECK(expr)                                                                                \
    do {                                                                                           \
        tp_status check_ = (expr);                                                                 \
        if (check_ != TP_OK)                                                                       \
            return check_;                                                                         \
    } while (0)

static const char *const NOTE = " (HF config.json, model_type llama4_text)";

static tp_status l4_int(const json_t *obj, const char *key, int required, int64_t lo, int64_t hi,
                        int64_t *out, tp_error *err)
{
    return tp_io__get_int(obj, NULL, key, required, lo, hi, NOTE, out, err);
}

/* An array of L integers 0/1 at key; NULL with the error set otherwise. */
static const json_t *flag_list(const json_t *obj, const char *key, int64_t L, tp_error *err)
{
    const json_t *a = json_object_get(obj, key);
    bool ok = json_is_array(a) && (int64_t)json_array_size(a) == L;
    for (size_t i = 0; ok && i < json_array_size(a); i++) {
        const json_t *v = json_array_get(a, i);
        ok = json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1);
    }
    if (!ok)
        tp_error_set(err, TP_ERR_CONFIG, key,
                     "\"%s\" must be an array of %lld entries 0 or 1 (one per layer)", key,
                     (long long)L);
    return ok ? a : NULL;
}

/* moe_layers: when given, exactly range(step - 1, L, step). */
static tp_status check_moe_layers(const json_t *root, int64_t step, int64_t L, tp_error *err)
{
    const json_t *a = json_object_get(root, "moe_layers");
    if (!a || json_is_null(a))
        return TP_OK;
    size_t want = (size_t)((L - (step - 1) + step - 1) / step);
    bool ok = json_is_array(a) && json_array_size(a) == want;
    for (size_t i = 0; ok && i < want; i++) {
        const json_t *v = json_array_get(a, i);
        ok = json_is_integer(v) &&
             json_integer_value(v) == (json_int_t)(step - 1 + (int64_t)i * step);
    }
    if (!ok)
        return tp_error_set(err, TP_ERR_CONFIG, "moe_layers",
                            "\"moe_layers\" is not a pattern trainplan can express (every "
                            "\"interleave_moe_layer_step\"-th layer, %lld here, from layer %lld)",
                            (long long)step, (long long)(step - 1));
    return TP_OK;
}

/* The NoPE layers (no_rope_layers 0, or every no_rope_layer_interval-th):
 * n with layer i NoPE exactly when (i + 1) % n == 0, 0 for none. */
static tp_status nope_every(const json_t *root, int64_t L, int64_t *every, tp_error *err)
{
    const json_t *list = json_object_get(root, "no_rope_layers");
    if (!list || json_is_null(list) || (json_is_array(list) && json_array_size(list) == 0)) {
        int64_t n = 4; /* Llama4TextConfig's no_rope_layer_interval default */
        tp_status st = l4_int(root, "no_rope_layer_interval", OPTIONAL, 1, TP_MAX_LAYERS, &n, err);
        *every = n <= L ? n : 0;
        return st;
    }
    if (!flag_list(root, "no_rope_layers", L, err))
        return err ? err->code : TP_ERR_CONFIG;
    int64_t first = -1;
    for (int64_t i = 0; i < L && first < 0; i++)
        if (json_integer_value(json_array_get(list, (size_t)i)) == 0)
            first = i;
    *every = first < 0 ? 0 : first + 1;
    for (int64_t i = 0; i < L; i++) {
        bool nope = json_integer_value(json_array_get(list, (size_t)i)) == 0;
        if (nope != (*every > 0 && (i + 1) % *every == 0))
            return tp_error_set(err, TP_ERR_CONFIG, "no_rope_layers",
                                "\"no_rope_layers\" is not a pattern trainplan can express "
                                "(every n-th layer without RoPE and with full attention, the "
                                "others chunked)");
    }
    return TP_OK;
}

/* layer_types, when given, must say what no_rope_layers and the chunk say. */
static tp_status check_layer_types(const json_t *root, const tp_model *m, tp_error *err)
{
    const json_t *t = json_object_get(root, "layer_types");
    if (!t || json_is_null(t))
        return TP_OK;
    bool ok = json_is_array(t) && (int64_t)json_array_size(t) == m->num_layers;
    for (int64_t i = 0; ok && i < m->num_layers; i++) {
        const json_t *v = json_array_get(t, (size_t)i);
        bool global = m->global_every > 0 && (i + 1) % m->global_every == 0;
        const char *want =
            m->attention_chunk > 0 && !global ? "chunked_attention" : "full_attention";
        ok = json_is_string(v) && strcmp(json_string_value(v), want) == 0;
    }
    if (!ok)
        return tp_error_set(err, TP_ERR_CONFIG, "layer_types",
                            "\"layer_types\" must be \"chunked_attention\" on the RoPE layers and "
                            "\"full_attention\" on the others (no_rope_layers), one per layer");
    return TP_OK;
}

/* A llama4_text object (root, not released) as m. */
static tp_status llama4_text(const json_t *root, tp_model *m, tp_error *err)
{
    memset(m, 0, sizeof *m);
    m->norm = TP_NORM_RMSNORM;
    m->mlp = TP_MLP_SWIGLU;
    m->pos = TP_POS_ROTARY;
    int64_t step = 1, chunk = 0, every = 0;
    bool bias = false;
    CHECK(l4_int(root, "hidden_size", REQUIRED, 1, TP_MAX_DIM, &m->hidden, err));
    CHECK(l4_int(root, "num_hidden_layers", REQUIRED, 1, TP_MAX_LAYERS, &m->num_layers, err));
    CHECK(l4_int(root, "num_attention_heads", REQUIRED, 1, TP_MAX_DIM, &m->num_heads, err));
    CHECK(l4_int(root, "num_key_value_heads", OPTIONAL, 1, TP_MAX_DIM, &m->num_kv_heads, err));
    CHECK(l4_int(root, "head_dim", OPTIONAL, 1, TP_MAX_DIM, &m->head_dim, err));
    CHECK(l4_int(root, "intermediate_size", REQUIRED, 1, TP_MAX_FFN, &m->moe_ffn_hidden, err));
    CHECK(l4_int(root, "intermediate_size_mlp", REQUIRED, 1, TP_MAX_FFN, &m->ffn_hidden, err));
    CHECK(l4_int(root, "vocab_size", REQUIRED, 1, TP_MAX_VOCAB, &m->vocab, err));
    CHECK(l4_int(root, "max_position_embeddings", OPTIONAL, 0, TP_MAX_SEQ, &m->max_positions, err));
    CHECK(l4_int(root, "num_local_experts", REQUIRED, 1, TP_MAX_EXPERTS, &m->num_experts, err));
    CHECK(l4_int(root, "num_experts_per_tok", REQUIRED, 1, TP_MAX_EXPERTS, &m->topk, err));
    CHECK(l4_int(root, "interleave_moe_layer_step", OPTIONAL, 1, TP_MAX_LAYERS, &step, err));
    /* Llama4TextConfig's default chunk is 8192 when the key is absent; null turns it off */
    if (!json_object_get(root, "attention_chunk_size"))
        chunk = 8192;
    CHECK(l4_int(root, "attention_chunk_size", OPTIONAL, 1, TP_MAX_SEQ, &chunk, err));
    CHECK(tp_io__get_bool(root, "tie_word_embeddings", &m->tie_embeddings, err));
    CHECK(tp_io__get_bool(root, "attention_bias", &bias, err));
    CHECK(tp_io__get_real(root, NULL, "rope_theta", 1.0, 1e12, &m->rope_theta, err));
    CHECK(tp_io__get_rope_scaling(root, "rope_scaling", m, err));
    CHECK(tp_io__get_real(root, NULL, "rms_norm_eps", 1e-30, 0.1, &m->norm_eps, err));
    const json_t *act = json_object_get(root, "hidden_act");
    if (act && !json_is_null(act) &&
        !(json_is_string(act) && strcmp(json_string_value(act), "silu") == 0))
        return tp_error_set(
            err, TP_ERR_CONFIG, "hidden_act",
            "\"hidden_act\" must be \"silu\" (the SwiGLU MLP and experts trainplan counts)");
    if (bias)
        return tp_error_set(
            err, TP_ERR_CONFIG, "attention_bias",
            "\"attention_bias\": true is not supported for model_type llama4_text (a bias on "
            "q, k, v and o with none on the MLP is not a layout trainplan counts)");
    if (m->topk > m->num_experts)
        return tp_error_set(
            err, TP_ERR_CONFIG, "num_experts_per_tok",
            "\"num_experts_per_tok\" (%lld) must not exceed \"num_local_experts\" (%lld)",
            (long long)m->topk, (long long)m->num_experts);
    if (step > m->num_layers)
        return tp_error_set(
            err, TP_ERR_CONFIG, "interleave_moe_layer_step",
            "\"interleave_moe_layer_step\" (%lld) must not exceed \"num_hidden_layers\" (%lld)",
            (long long)step, (long long)m->num_layers);
    CHECK(check_moe_layers(root, step, m->num_layers, err));
    CHECK(nope_every(root, m->num_layers, &every, err));
    /* Llama4TextMoe: one shared expert as wide as a routed one; MoE where
     * (i + 1) % step == 0, the first at step - 1 */
    m->num_shared_experts = 1;
    m->moe_first_dense = step - 1;
    m->moe_layer_freq = step;
    if (chunk > 0) {
        m->attention_chunk = chunk;
        m->global_every = every; /* the NoPE layers see the whole sequence */
    }
    CHECK(check_layer_types(root, m, err));
    static const shape_keys keys = {"hidden_size", "num_attention_heads", "num_key_value_heads",
                                    "head_dim"};
    return tp_io__check_shape(m, &keys, err);
}

/* Prefix err->path with "text_config." (llama4_text names bare keys). */
static void prefix_text(tp_error *err)
{
    if (!err || !err->path[0])
        return;
    char path[sizeof err->path + 16];
    snprintf(path, sizeof path, "text_config.%s", err->path);
    size_t n = strlen(path) < sizeof err->path ? strlen(path) : sizeof err->path - 1;
    memcpy(err->path, path, n);
    err->path[n] = '\0';
}

#define VC "vision_config"

static tp_status vint(const json_t *vc, const char *key, int64_t lo, int64_t hi, int64_t *out,
                      tp_error *err)
{
    return tp_io__get_int(vc, VC, key, REQUIRED, lo, hi, " (HF config.json, model_type llama4)",
                          out, err);
}

/* vision_config (hf_llama4.c header) into m->vision. */
static tp_status llama4_vision(const json_t *vc, tp_model *m, tp_error *err)
{
    tp_vision *v = &m->vision;
    int64_t image = 0, mid = 0, mid_out = 0, out = 0;
    double ratio = 0.0;
    bool bias = false;
    CHECK(vint(vc, "num_hidden_layers", 1, 1000, &v->layers, err));
    CHECK(vint(vc, "hidden_size", 1, 65536, &v->hidden, err));
    CHECK(vint(vc, "num_attention_heads", 1, 65536, &v->heads, err));
    CHECK(vint(vc, "intermediate_size", 1, 1048576, &v->ffn_hidden, err));
    CHECK(vint(vc, "num_channels", 1, 16, &v->channels, err));
    CHECK(vint(vc, "patch_size", 1, 1024, &v->patch, err));
    CHECK(vint(vc, "image_size", 1, 65536, &image, err));
    CHECK(vint(vc, "projector_input_dim", 1, 1048576, &mid, err));
    CHECK(vint(vc, "projector_output_dim", 1, 1048576, &mid_out, err));
    CHECK(vint(vc, "vision_output_dim", 1, 1048576, &out, err));
    CHECK(tp_io__get_real(vc, VC, "pixel_shuffle_ratio", 1e-3, 1.0, &ratio, err));
    CHECK(tp_io__get_bool(vc, "multi_modal_projector_bias", &bias, err));
    const json_t *act = json_object_get(vc, "hidden_act");
    if (act && !json_is_null(act) &&
        !(json_is_string(act) && strcmp(json_string_value(act), "gelu") == 0))
        return tp_error_set(err, TP_ERR_CONFIG, VC ".hidden_act",
                            "\"vision_config.hidden_act\" must be \"gelu\" (the Llama 4 vision "
                            "MLP trainplan counts)");
    if (bias)
        return tp_error_set(err, TP_ERR_CONFIG, VC ".multi_modal_projector_bias",
                            "\"vision_config.multi_modal_projector_bias\": true is not supported "
                            "(Llama4MultiModalProjector builds its linear without a bias)");
    /* pixel shuffle: 1 / ratio^2 patches into one token, a whole number */
    int64_t merge = (int64_t)(1.0 / (ratio * ratio) + 0.5);
    double off = (double)merge * ratio * ratio - 1.0;
    if (merge < 1 || off > 1e-9 || off < -1e-9)
        return tp_error_set(err, TP_ERR_CONFIG, VC ".pixel_shuffle_ratio",
                            "\"vision_config.pixel_shuffle_ratio\" must merge a whole number of "
                            "patches (1 / ratio^2: 0.5 merges 4)");
    if (image % v->patch != 0)
        return tp_error_set(err, TP_ERR_CONFIG, VC ".image_size",
                            "\"vision_config.image_size\" %lld is not a whole number of %lld-pixel "
                            "patches",
                            (long long)image, (long long)v->patch);
    /* the shapes Llama4VisionModel multiplies together must agree */
    if (v->ffn_hidden != v->hidden * merge)
        return tp_error_set(err, TP_ERR_CONFIG, VC ".intermediate_size",
                            "\"vision_config.intermediate_size\" %lld must be the pixel-shuffled "
                            "width hidden_size x %lld = %lld (Llama4VisionMLP2's fc1 reads it)",
                            (long long)v->ffn_hidden, (long long)merge,
                            (long long)(v->hidden * merge));
    if (mid != mid_out || out != mid_out)
        return tp_error_set(err, TP_ERR_CONFIG, VC ".projector_output_dim",
                            "\"vision_config.projector_input_dim\" (%lld), "
                            "\"projector_output_dim\" (%lld) and \"vision_output_dim\" (%lld) "
                            "must be equal (fc1's output is fc2's input and the projector's)",
                            (long long)mid, (long long)mid_out, (long long)out);
    int64_t side = image / v->patch;
    v->mlp = TP_MLP_GELU;
    v->norm = TP_NORM_LAYERNORM;
    v->attn_bias = v->mlp_bias = true;
    v->class_token = true;
    v->positions = side * side + 1;
    v->final_norms = 2;
    v->image_size = image;
    v->merge = merge;
    v->proj_in = v->ffn_hidden;
    v->proj_hidden = mid;
    v->proj_hidden2 = mid_out;
    v->image_tokens = side * side; /* one tile */
    return TP_OK;
}

tp_status tp_io__hf_llama4_parse(json_t *root, const char *origin, tp_model *out, tp_error *err)
{
    const json_t *mt = json_object_get(root, "model_type");
    bool nested = json_is_string(mt) && strcmp(json_string_value(mt), "llama4") == 0;
    const json_t *text = nested ? json_object_get(root, "text_config") : root;
    tp_model m;
    tp_status st;
    if (!json_is_object(text))
        st = tp_error_set(err, TP_ERR_CONFIG, "text_config",
                          "missing object \"text_config\" (HF config.json, model_type llama4)");
    else if ((st = llama4_text(text, &m, err)) != TP_OK && nested)
        prefix_text(err);
    /* the composite config's own tie_word_embeddings, when text_config has none */
    if (st == TP_OK && nested && !json_object_get(text, "tie_word_embeddings"))
        st = tp_io__get_bool(root, "tie_word_embeddings", &m.tie_embeddings, err);
    const json_t *vc = nested ? json_object_get(root, VC) : NULL;
    if (st == TP_OK && vc && !json_is_null(vc))
        st = json_is_object(vc)
                 ? llama4_vision(vc, &m, err)
                 : tp_error_set(err, TP_ERR_CONFIG, VC, "\"vision_config\" must be an object");
    if (st != TP_OK) {
        json_decref(root);
        return st;
    }
    return tp_io__hf_finish(root, origin, "hf-llama4", &m, out, err);
}

bool tp_io__hf_llama4_reads(const char *key)
{
    static const char *const keys[] = {
        "model_type", "architectures", "text_config", "vision_config", "hidden_size",
        "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
        "intermediate_size", "intermediate_size_mlp", "vocab_size", "max_position_embeddings",
        "num_local_experts", "num_experts_per_tok", "interleave_moe_layer_step", "moe_layers",
        "attention_chunk_size", "no_rope_layers", "no_rope_layer_interval", "layer_types",
        "tie_word_embeddings", "attention_bias", "hidden_act",
        /* read for the exports, not the count */
        "rope_theta", "rope_scaling", "rms_norm_eps", NULL};
    return tp_io__key_listed(key, keys);
}

bool tp_io__hf_llama4_vision_reads(const char *key)
{
    static const char *const keys[] = {"num_hidden_layers",    "hidden_size",
                                       "num_attention_heads",  "intermediate_size",
                                       "num_channels",         "patch_size",
                                       "image_size",           "projector_input_dim",
                                       "projector_output_dim", "vision_output_dim",
                                       "pixel_shuffle_ratio",  "multi_modal_projector_bias",
                                       "hidden_act",           NULL};
    return tp_io__key_listed(key, keys);
}
