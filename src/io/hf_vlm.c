/* SPDX-License-Identifier: MIT */
/*
 * hf_vlm.c: Hugging Face config.json of vision-language models (mllama,
 * qwen2_vl, qwen2_5_vl, gemma3) and of Falcon, as tp_model (hf.c hands
 * them here by model_type).
 *
 * A VLM's language model is read by hf.c's reader of the family it is
 * (mllama: llama; Qwen2-VL, Qwen2.5-VL: qwen2; Gemma 3: gemma3_text), its
 * vision tower into tp_model.vision (libtp's vision.c design note derives
 * the counts). The facts a config does not state, from the transformers
 * modeling code of each family:
 *  mllama (MllamaVisionModel, MllamaForConditionalGeneration): Conv2d patch
 *    embedding without bias, a class token, a gated position table of
 *    (image/patch)^2 + 1 rows, tile tables of len(supported_aspect_ratios)
 *    + 1 rows, LayerNorm before and after the encoder, num_hidden_layers
 *    local plus num_global_layers gated blocks (GELU MLP with biases, q/k/v/o
 *    without), a projector Linear(vision_output_dim, text hidden) with bias;
 *    the language embedding has vocab_size + 8 rows; each of
 *    cross_attention_layers is a language layer whose attention reads the
 *    image states, with per-head q/k RMSNorms and two tanh gates.
 *  qwen2_vl (Qwen2VisionTransformerPretrainedModel): Conv3d patch embedding
 *    (temporal_patch_size frames) without bias, rotary positions, LayerNorm
 *    blocks with biases everywhere, MLP embed_dim x mlp_ratio (quick GELU),
 *    PatchMerger: LayerNorm, then Linear(4e, 4e), GELU, Linear(4e, out).
 *  qwen2_5_vl: as qwen2_vl with RMSNorm, a SwiGLU MLP of intermediate_size
 *    with biases, windowed attention (window_size pixels) except the
 *    fullatt_block_indexes blocks, an RMSNorm in the merger.
 *  gemma3 (Gemma3ForConditionalGeneration): SigLIP (SiglipVisionModel,
 *    vision_use_head false): Conv2d patches with bias, a learned position
 *    table of (image/patch)^2 rows, LayerNorm blocks with biases, a final
 *    LayerNorm; Gemma3MultiModalProjector average-pools the patches to
 *    mm_tokens_per_image, RMS-normalises (weight only) and projects with
 *    mm_input_projection_weight (no bias). Keys the released file leaves out
 *    take the Gemma3TextConfig / SiglipVisionConfig defaults (below).
 *  falcon (FalconForCausalLM): LayerNorm, GELU MLP of ffn_hidden_size (4h),
 *    a fused qkv of (a + 2 n_kv) heads: n_kv = num_kv_heads with
 *    new_decoder_architecture, else 1 with multi_query, else a; bias on
 *    every linear when "bias"; one norm per layer with parallel_attn (two
 *    with new_decoder_architecture: ln_attn and ln_mlp; two without
 *    parallel_attn); rotary unless alibi; tied head by default.
 * An architecture key trainplan cannot count is refused naming it.
 */
#include <stdio.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "model_json.h"

static const char *const vlm_types[] = {"mllama", "qwen2_vl", "qwen2_5_vl", "gemma3", NULL};

bool tp_io__hf_vlm_type(const char *model_type)
{
    return tp_io__key_listed(model_type, vlm_types);
}

/* A string member, or def when absent or null; NULL when not a string. */
static const char *str_or(const json_t *obj, const char *key, const char *def)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return def;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Fill keys absent (or null) in obj from defaults. */
static void fill_defaults(json_t *obj, json_t *defaults)
{
    const char *key;
    json_t *v;
    json_object_foreach(defaults, key, v)
    {
        const json_t *have = json_object_get(obj, key);
        if (!have || json_is_null(have))
            json_object_set(obj, key, v);
    }
}

/* Prefix err->path with "text_config." (the text reader names bare keys). */
static void prefix_path(tp_error *err, const char *prefix)
{
    if (!err || !err->path[0] || strncmp(err->path, prefix, strlen(prefix)) == 0)
        return;
    char path[sizeof err->path + 32];
    snprintf(path, sizeof path, "%s%s", prefix, err->path);
    size_t n = strlen(path) < sizeof err->path ? strlen(path) : sizeof err->path - 1;
    memcpy(err->path, path, n);
    err->path[n] = '\0';
}

/* The language model of a VLM config as the text family's config.json. */
static json_t *text_part(json_t *root, const char *family, tp_error *err)
{
    json_t *tc = json_object_get(root, "text_config");
    json_t *text;
    if (strcmp(family, "qwen2") == 0) {
        /* Qwen2-VL keeps the language keys at the top level (later saves
         * repeat them in text_config, which wins) */
        text = json_deep_copy(root);
        json_object_del(text, "vision_config");
        json_object_del(text, "text_config");
        if (json_is_object(tc))
            json_object_update(text, tc);
    } else {
        if (!json_is_object(tc)) {
            tp_error_set(err, TP_ERR_CONFIG, "text_config",
                         "missing object \"text_config\" (HF config.json, model_type %s)",
                         str_or(root, "model_type", "?"));
            return NULL;
        }
        text = json_deep_copy(tc);
    }
    if (!text) {
        tp_error_set(err, TP_ERR_NOMEM, "text_config", "out of memory");
        return NULL;
    }
    json_object_set_new(text, "model_type", json_string(family));
    json_object_del(text, "architectures");
    if (strcmp(family, "gemma3_text") == 0) {
        /* transformers' Gemma3TextConfig defaults (the released 4B file
         * states only hidden, intermediate, layers, window, rope scaling) */
        json_t *d =
            json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:b,s:f,s:f}", "vocab_size", 262208,
                      "hidden_size", 2304, "intermediate_size", 9216, "num_hidden_layers", 26,
                      "num_attention_heads", 8, "num_key_value_heads", 4, "head_dim", 256,
                      "sliding_window", 4096, "sliding_window_pattern", 6, "tie_word_embeddings", 1,
                      "rms_norm_eps", 1e-6, "rope_theta", 1e6);
        if (d)
            fill_defaults(text, d);
        json_decref(d);
        /* the VLM ties its head to the language embedding unless it says otherwise */
        json_t *tie = json_object_get(root, "tie_word_embeddings");
        if (json_is_boolean(tie) && !json_object_get(tc, "tie_word_embeddings"))
            json_object_set(text, "tie_word_embeddings", tie);
    }
    return text;
}

#define VC "vision_config"

static tp_status vint(const json_t *vc, const char *key, int required, int64_t lo, int64_t hi,
                      int64_t *out, tp_error *err)
{
    return tp_io__get_int(vc, VC, key, required, lo, hi, " (HF config.json)", out, err);
}

/* A hidden_act the tower's MLP kind stands for; else refused naming it. */
static tp_status vision_act(const json_t *vc, const char *def, const char *const *gelu_names,
                            tp_error *err)
{
    const char *act = str_or(vc, "hidden_act", def);
    if (act && tp_io__key_listed(act, gelu_names))
        return TP_OK;
    return tp_error_set(err, TP_ERR_CONFIG, VC ".hidden_act",
                        "\"vision_config.hidden_act\" %s%s%s is not the activation this family's "
                        "vision MLP is counted with (%s)",
                        act ? "\"" : "", act ? act : "(not a string)", act ? "\"" : "",
                        gelu_names[0]);
}

/* mllama's cross_attention_layers: every n-th layer from the first. */
static tp_status mllama_cross(const json_t *tc, tp_model *m, tp_error *err)
{
    const json_t *a = json_object_get(tc, "cross_attention_layers");
    const char *path = "text_config.cross_attention_layers";
    if (!json_is_array(a) || json_array_size(a) == 0)
        return tp_error_set(err, TP_ERR_CONFIG, path,
                            "\"%s\" must be a non-empty array of layer indices", path);
    size_t n = json_array_size(a);
    int64_t first = -1, every = 0, L = m->num_layers;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(a, i);
        int64_t x = json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
        if (x < 0 || x >= L)
            return tp_error_set(err, TP_ERR_CONFIG, path,
                                "\"%s\"[%zu] must be a layer index in [0, %lld)", path, i,
                                (long long)L);
        if (i == 0)
            first = x;
        else if (i == 1)
            every = x - first;
        if (i >= 1 && (every < 1 || x != first + (int64_t)i * every))
            return tp_error_set(err, TP_ERR_CONFIG, path,
                                "\"%s\" is not a pattern trainplan can express (every n-th "
                                "layer from the first)",
                                path);
    }
    if (n == 1)
        every = L; /* one cross layer: no second within the model */
    if (first + (int64_t)n * every < L)
        return tp_error_set(err, TP_ERR_CONFIG, path,
                            "\"%s\" stops before the last layer of its pattern (every %lld-th "
                            "from %lld): not a pattern trainplan can express",
                            path, (long long)every, (long long)first);
    m->vision.cross_first = first;
    m->vision.cross_every = every;
    return TP_OK;
}

static tp_status mllama_vision(const json_t *root, const json_t *vc, tp_model *m, tp_error *err)
{
    tp_vision *v = &m->vision;
    static const char *const gelu[] = {"gelu", NULL};
    int64_t local = 0, global = 0, out_dim = 0, image = 0;
    tp_status st;
    if ((st = vint(vc, "num_hidden_layers", REQUIRED, 1, 1000, &local, err)) != TP_OK ||
        (st = vint(vc, "num_global_layers", REQUIRED, 0, 1000, &global, err)) != TP_OK ||
        (st = vint(vc, "hidden_size", REQUIRED, 1, 65536, &v->hidden, err)) != TP_OK ||
        (st = vint(vc, "attention_heads", REQUIRED, 1, 65536, &v->heads, err)) != TP_OK ||
        (st = vint(vc, "intermediate_size", REQUIRED, 1, 1048576, &v->ffn_hidden, err)) != TP_OK ||
        (st = vint(vc, "num_channels", OPTIONAL, 1, 16, &v->channels, err)) != TP_OK ||
        (st = vint(vc, "patch_size", REQUIRED, 1, 1024, &v->patch, err)) != TP_OK ||
        (st = vint(vc, "image_size", REQUIRED, 1, 65536, &image, err)) != TP_OK ||
        (st = vint(vc, "max_num_tiles", OPTIONAL, 1, 16, &v->tiles, err)) != TP_OK ||
        (st = vint(vc, "vision_output_dim", REQUIRED, 1, 1048576, &out_dim, err)) != TP_OK ||
        (st = vision_act(vc, "gelu", gelu, err)) != TP_OK)
        return st;
    if (image % v->patch != 0)
        return tp_error_set(err, TP_ERR_CONFIG, VC ".image_size",
                            "\"vision_config.image_size\" %lld is not a whole number of %lld-pixel "
                            "patches",
                            (long long)image, (long long)v->patch);
    const json_t *ratios = json_object_get(vc, "supported_aspect_ratios");
    if (!json_is_array(ratios) || json_array_size(ratios) == 0 || json_array_size(ratios) > 63)
        return tp_error_set(err, TP_ERR_CONFIG, VC ".supported_aspect_ratios",
                            "\"vision_config.supported_aspect_ratios\" must be an array of 1 to 63 "
                            "[w, h] pairs (its length sizes the tile tables)");
    if (v->tiles == 0)
        v->tiles = 4; /* MllamaVisionConfig's max_num_tiles default */
    int64_t side = image / v->patch;
    v->layers = local + global;
    v->gated_layers = global;
    v->mlp = TP_MLP_GELU;
    v->norm = TP_NORM_LAYERNORM;
    v->mlp_bias = true;
    v->class_token = true;
    v->positions = side * side + 1;
    v->aspect_ids = (int64_t)json_array_size(ratios) + 1;
    v->final_norms = 2;
    v->image_size = image;
    v->proj_in = out_dim;
    v->proj_bias = true;
    v->extra_vocab = 8; /* MllamaTextModel: nn.Embedding(vocab_size + 8, hidden) */
    v->image_tokens = v->tiles * v->positions; /* one image of the most tiles */
    return mllama_cross(json_object_get(root, "text_config"), m, err);
}

/* Qwen2-VL and Qwen2.5-VL towers (hf_vlm.c header). */
static tp_status qwen_vision(const json_t *vc, bool v25, tp_model *m, tp_error *err)
{
    tp_vision *v = &m->vision;
    int64_t merge = 0, out = 0, in = 0;
    tp_status st;
    const char *width_key = v25 ? "hidden_size" : "embed_dim";
    const char *out_key = v25 ? "out_hidden_size" : "hidden_size";
    if ((st = vint(vc, "depth", REQUIRED, 1, 1000, &v->layers, err)) != TP_OK ||
        (st = vint(vc, width_key, REQUIRED, 1, 65536, &v->hidden, err)) != TP_OK ||
        (st = vint(vc, "num_heads", REQUIRED, 1, 65536, &v->heads, err)) != TP_OK ||
        (st = vint(vc, out_key, REQUIRED, 1, TP_MAX_DIM, &out, err)) != TP_OK ||
        (st = vint(vc, json_object_get(vc, "in_channels") ? "in_channels" : "in_chans", OPTIONAL, 1,
                   16, &in, err)) != TP_OK ||
        (st = vint(vc, "patch_size", REQUIRED, 1, 1024, &v->patch, err)) != TP_OK ||
        (st = vint(vc, "temporal_patch_size", REQUIRED, 1, 64, &v->temporal, err)) != TP_OK ||
        (st = vint(vc, "spatial_merge_size", REQUIRED, 1, 32, &merge, err)) != TP_OK)
        return st;
    if (out != m->hidden)
        return tp_error_set(err, TP_ERR_CONFIG, v25 ? VC ".out_hidden_size" : VC ".hidden_size",
                            "the merger's output width %lld must be the language model's "
                            "hidden_size %lld",
                            (long long)out, (long long)m->hidden);
    v->channels = in;
    v->merge = merge * merge;
    v->proj_hidden = v->hidden * v->merge; /* Linear(4e, 4e), GELU, Linear(4e, out) */
    v->proj_bias = true;
    v->proj_norm = v->hidden;
    v->attn_bias = true;
    v->mlp_bias = true;
    if (!v25) {
        int64_t ratio = 0;
        static const char *const gelu[] = {"quick_gelu", "gelu", NULL};
        if ((st = vint(vc, "mlp_ratio", REQUIRED, 1, 64, &ratio, err)) != TP_OK ||
            (st = vision_act(vc, "quick_gelu", gelu, err)) != TP_OK)
            return st;
        v->ffn_hidden = v->hidden * ratio;
        v->mlp = TP_MLP_GELU;
        v->norm = v->proj_norm_kind = TP_NORM_LAYERNORM;
        return TP_OK;
    }
    int64_t window_px = 0;
    static const char *const silu[] = {"silu", NULL};
    if ((st = vint(vc, "intermediate_size", REQUIRED, 1, 1048576, &v->ffn_hidden, err)) != TP_OK ||
        (st = vint(vc, "window_size", OPTIONAL, 1, 65536, &window_px, err)) != TP_OK ||
        (st = vision_act(vc, "silu", silu, err)) != TP_OK)
        return st;
    v->mlp = TP_MLP_SWIGLU;
    v->norm = v->proj_norm_kind = TP_NORM_RMSNORM;
    if (window_px > 0) {
        const json_t *full = json_object_get(vc, "fullatt_block_indexes");
        if (!json_is_array(full) || json_array_size(full) > (size_t)v->layers)
            return tp_error_set(err, TP_ERR_CONFIG, VC ".fullatt_block_indexes",
                                "\"vision_config.fullatt_block_indexes\" must list at most %lld "
                                "block indices when window_size is set",
                                (long long)v->layers);
        int64_t side = window_px / v->patch;
        v->window = side * side;
        v->full_layers = (int64_t)json_array_size(full);
    }
    return TP_OK;
}

/* Gemma 3's SigLIP tower and projector. */
static tp_status gemma3_vision(const json_t *root, json_t *vc, tp_model *m, tp_error *err)
{
    tp_vision *v = &m->vision;
    /* transformers' SiglipVisionConfig defaults */
    json_t *d = json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "hidden_size", 768, "intermediate_size",
                          3072, "num_hidden_layers", 12, "num_attention_heads", 12, "num_channels",
                          3, "image_size", 224, "patch_size", 16);
    if (d)
        fill_defaults(vc, d);
    json_decref(d);
    int64_t image = 0, tokens = 256;
    bool head = false;
    static const char *const gelu[] = {"gelu_pytorch_tanh", "gelu", NULL};
    tp_status st;
    if ((st = vint(vc, "num_hidden_layers", REQUIRED, 1, 1000, &v->layers, err)) != TP_OK ||
        (st = vint(vc, "hidden_size", REQUIRED, 1, 65536, &v->hidden, err)) != TP_OK ||
        (st = vint(vc, "num_attention_heads", REQUIRED, 1, 65536, &v->heads, err)) != TP_OK ||
        (st = vint(vc, "intermediate_size", REQUIRED, 1, 1048576, &v->ffn_hidden, err)) != TP_OK ||
        (st = vint(vc, "num_channels", REQUIRED, 1, 16, &v->channels, err)) != TP_OK ||
        (st = vint(vc, "patch_size", REQUIRED, 1, 1024, &v->patch, err)) != TP_OK ||
        (st = vint(vc, "image_size", REQUIRED, 1, 65536, &image, err)) != TP_OK ||
        (st = tp_io__get_int(root, NULL, "mm_tokens_per_image", OPTIONAL, 1, 1048576, NULL, &tokens,
                             err)) != TP_OK ||
        (st = tp_io__get_bool(vc, "vision_use_head", &head, err)) != TP_OK ||
        (st = vision_act(vc, "gelu_pytorch_tanh", gelu, err)) != TP_OK)
        return st;
    if (head)
        return tp_error_set(err, TP_ERR_CONFIG, VC ".vision_use_head",
                            "\"vision_config.vision_use_head\": true (SigLIP's attention-pooling "
                            "head) is not counted: Gemma 3 builds its tower without it");
    int64_t side = image / v->patch, per_side = 1;
    while (per_side * per_side < tokens)
        per_side++;
    if (image % v->patch != 0 || per_side * per_side != tokens || side % per_side != 0)
        return tp_error_set(err, TP_ERR_CONFIG, "mm_tokens_per_image",
                            "\"mm_tokens_per_image\" %lld must be a square whose side divides the "
                            "%lld x %lld patch grid (Gemma3MultiModalProjector pools it evenly)",
                            (long long)tokens, (long long)side, (long long)side);
    v->mlp = TP_MLP_GELU;
    v->norm = TP_NORM_LAYERNORM;
    v->attn_bias = v->mlp_bias = v->patch_bias = true;
    v->positions = side * side;
    v->final_norms = 1;
    v->image_size = image;
    v->merge = (side / per_side) * (side / per_side);
    v->proj_in = v->hidden;
    v->proj_norm = v->hidden;
    v->proj_norm_kind = TP_NORM_RMSNORM;
    v->image_tokens = side * side; /* one image */
    return TP_OK;
}

const char *tp_io__hf_vlm_family(const char *model_type)
{
    if (!model_type || !tp_io__hf_vlm_type(model_type))
        return NULL;
    return strcmp(model_type, "mllama") == 0   ? "llama"
           : strcmp(model_type, "gemma3") == 0 ? "gemma3_text"
                                               : "qwen2";
}

bool tp_io__hf_vlm_vision_reads(const char *model_type, const char *key)
{
    static const char *const mllama[] = {"num_hidden_layers",
                                         "num_global_layers",
                                         "hidden_size",
                                         "attention_heads",
                                         "intermediate_size",
                                         "num_channels",
                                         "patch_size",
                                         "image_size",
                                         "max_num_tiles",
                                         "vision_output_dim",
                                         "hidden_act",
                                         "supported_aspect_ratios",
                                         NULL};
    static const char *const qwen2[] = {"depth",       "embed_dim",           "num_heads",
                                        "hidden_size", "in_channels",         "in_chans",
                                        "patch_size",  "temporal_patch_size", "spatial_merge_size",
                                        "mlp_ratio",   "hidden_act",          NULL};
    static const char *const qwen25[] = {"depth",
                                         "hidden_size",
                                         "num_heads",
                                         "out_hidden_size",
                                         "in_channels",
                                         "in_chans",
                                         "patch_size",
                                         "temporal_patch_size",
                                         "spatial_merge_size",
                                         "intermediate_size",
                                         "window_size",
                                         "fullatt_block_indexes",
                                         "hidden_act",
                                         NULL};
    static const char *const gemma3[] = {
        "num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size",
        "num_channels",      "patch_size",  "image_size",          "vision_use_head",
        "hidden_act",        NULL};
    const char *const *list = strcmp(model_type, "mllama") == 0       ? mllama
                              : strcmp(model_type, "qwen2_vl") == 0   ? qwen2
                              : strcmp(model_type, "qwen2_5_vl") == 0 ? qwen25
                                                                      : gemma3;
    return tp_io__key_listed(key, list);
}

tp_status tp_io__hf_vlm_parse(json_t *root, const char *origin, tp_model *out, tp_error *err)
{
    const char *type = str_or(root, "model_type", "");
    const char *family = tp_io__hf_vlm_family(type);
    json_t *vc = json_object_get(root, VC);
    if (!json_is_object(vc) && strcmp(type, "gemma3") != 0)
        FAIL(err, TP_ERR_CONFIG, VC,
             "missing object \"vision_config\" (HF config.json, model_type %s): a "
             "vision-language config needs its vision tower",
             type);
    json_t *text = text_part(root, family, err);
    if (!text) {
        json_decref(root);
        return err ? err->code : TP_ERR_CONFIG;
    }
    tp_model m;
    tp_status st = tp_io__hf_model_parse(text, "", &m, err); /* releases text */
    if (st != TP_OK) {
        if (strcmp(family, "qwen2") != 0)
            prefix_path(err, "text_config.");
        json_decref(root);
        return st;
    }
    json_t *vcopy = json_is_object(vc) ? json_deep_copy(vc) : json_object();
    if (!vcopy)
        FAIL(err, TP_ERR_NOMEM, VC, "out of memory");
    memset(&m.vision, 0, sizeof m.vision);
    if (strcmp(type, "mllama") == 0)
        st = mllama_vision(root, vcopy, &m, err);
    else if (strcmp(type, "gemma3") == 0)
        st = gemma3_vision(root, vcopy, &m, err);
    else
        st = qwen_vision(vcopy, strcmp(type, "qwen2_5_vl") == 0, &m, err);
    json_decref(vcopy);
    if (st != TP_OK) {
        json_decref(root);
        return st;
    }
    char fallback[TP_NAME_MAX];
    snprintf(fallback, sizeof fallback, "hf-%s", type);
    return tp_io__hf_finish(root, origin, fallback, &m, out, err);
}

tp_status tp_io__hf_falcon_parse(json_t *root, const char *origin, tp_model *out, tp_error *err)
{
    tp_model m;
    memset(&m, 0, sizeof m);
    m.norm = TP_NORM_LAYERNORM;
    m.mlp = TP_MLP_GELU;
    m.tie_embeddings = true;
    bool multi_query = true, new_arch = false, parallel = true, bias = false, alibi = false;
    const char *note = " (HF config.json, model_type falcon)";
    /* FalconConfig's attribute_map: the original RW files say n_layer, n_head, n_head_kv */
    const char *layers_key = json_object_get(root, "n_layer") ? "n_layer" : "num_hidden_layers";
    const char *heads_key = json_object_get(root, "n_head") ? "n_head" : "num_attention_heads";
    const char *kv_key = json_object_get(root, "n_head_kv") ? "n_head_kv" : "num_kv_heads";
    int64_t kv = 0;
    TRY(tp_io__get_int(root, NULL, "hidden_size", REQUIRED, 1, TP_MAX_DIM, note, &m.hidden, err));
    TRY(tp_io__get_int(root, NULL, layers_key, REQUIRED, 1, TP_MAX_LAYERS, note, &m.num_layers,
                       err));
    TRY(tp_io__get_int(root, NULL, heads_key, REQUIRED, 1, TP_MAX_DIM, note, &m.num_heads, err));
    TRY(tp_io__get_int(root, NULL, kv_key, OPTIONAL, 1, TP_MAX_DIM, note, &kv, err));
    TRY(tp_io__get_int(root, NULL, "vocab_size", REQUIRED, 1, TP_MAX_VOCAB, note, &m.vocab, err));
    TRY(tp_io__get_int(root, NULL, "ffn_hidden_size", OPTIONAL, 1, TP_MAX_FFN, note, &m.ffn_hidden,
                       err));
    TRY(tp_io__get_int(root, NULL, "max_position_embeddings", OPTIONAL, 0, TP_MAX_SEQ, note,
                       &m.max_positions, err));
    TRY(tp_io__get_bool(root, "multi_query", &multi_query, err));
    TRY(tp_io__get_bool(root, "new_decoder_architecture", &new_arch, err));
    TRY(tp_io__get_bool(root, "parallel_attn", &parallel, err));
    TRY(tp_io__get_bool(root, "bias", &bias, err));
    TRY(tp_io__get_bool(root, "alibi", &alibi, err));
    TRY(tp_io__get_bool(root, "tie_word_embeddings", &m.tie_embeddings, err));
    TRY(tp_io__get_real(root, NULL, "rope_theta", 1.0, 1e12, &m.rope_theta, err));
    TRY(tp_io__get_real(root, NULL, "layer_norm_epsilon", 1e-30, 0.1, &m.norm_eps, err));
    const char *act = str_or(root, "activation", "gelu");
    if (!act || strcmp(act, "gelu") != 0)
        FAIL(err, TP_ERR_CONFIG, "activation",
             "\"activation\" must be \"gelu\" (the Falcon MLP trainplan counts), got %s",
             act ? act : "a non-string");
    int64_t norms_in_parallel = new_arch ? 2 : 1;
    TRY(tp_io__get_int(root, NULL, "num_ln_in_parallel_attn", OPTIONAL, 1, 2, note,
                       &norms_in_parallel, err));
    if (json_object_get(root, "apply_residual_connection_post_layernorm") &&
        json_is_true(json_object_get(root, "apply_residual_connection_post_layernorm")))
        FAIL(err, TP_ERR_CONFIG, "apply_residual_connection_post_layernorm",
             "\"apply_residual_connection_post_layernorm\": true is not supported (the residual "
             "from the norm's output changes nothing counted, but no Falcon checkpoint uses it "
             "and the engines cannot build it)");
    if (m.ffn_hidden == 0)
        m.ffn_hidden = 4 * m.hidden;
    m.num_kv_heads = new_arch ? (kv > 0 ? kv : m.num_heads) : (multi_query ? 1 : m.num_heads);
    m.linear_bias = bias;
    m.pos = alibi ? TP_POS_ALIBI : TP_POS_ROTARY;
    m.parallel_attn = parallel;
    m.norms_per_layer = new_arch ? norms_in_parallel : (parallel ? 1 : 2);
    if (new_arch && !parallel)
        FAIL(err, TP_ERR_CONFIG, "parallel_attn",
             "\"parallel_attn\": false with \"new_decoder_architecture\": true is not a Falcon "
             "layout (FalconDecoderLayer always runs attention and MLP in parallel there)");
    static const shape_keys keys = {"hidden_size", "num_attention_heads", "num_kv_heads",
                                    "head_dim"};
    TRY(tp_io__check_shape(&m, &keys, err));
    return tp_io__hf_finish(root, origin, "hf-falcon", &m, out, err);
}

/* Top-level keys the readers above use (the rest are listed as ignored). */
bool tp_io__hf_vlm_reads(const char *model_type, const char *key)
{
    static const char *const vlm[] = {"model_type",
                                      "architectures",
                                      "text_config",
                                      "vision_config",
                                      "mm_tokens_per_image",
                                      "tie_word_embeddings",
                                      "cross_attention_layers",
                                      NULL};
    static const char *const falcon[] = {"model_type",
                                         "architectures",
                                         "hidden_size",
                                         "n_layer",
                                         "num_hidden_layers",
                                         "n_head",
                                         "num_attention_heads",
                                         "n_head_kv",
                                         "num_kv_heads",
                                         "vocab_size",
                                         "ffn_hidden_size",
                                         "max_position_embeddings",
                                         "multi_query",
                                         "new_decoder_architecture",
                                         "parallel_attn",
                                         "bias",
                                         "alibi",
                                         "tie_word_embeddings",
                                         "rope_theta",
                                         "layer_norm_epsilon",
                                         "activation",
                                         "num_ln_in_parallel_attn",
                                         "apply_residual_connection_post_layernorm",
                                         NULL};
    bool is_falcon = strcmp(model_type, "falcon") == 0;
    const char *const *list = is_falcon ? falcon : vlm;
    if (tp_io__key_listed(key, list))
        return true;
    /* Qwen2-VL: the language keys are at the top level */
    if (!is_falcon && strncmp(model_type, "qwen2", 5) == 0) {
        static const char *const qwen[] = {"hidden_size",
                                           "num_hidden_layers",
                                           "num_attention_heads",
                                           "num_key_value_heads",
                                           "intermediate_size",
                                           "vocab_size",
                                           "max_position_embeddings",
                                           "rope_theta",
                                           "rope_scaling",
                                           "rms_norm_eps",
                                           "use_sliding_window",
                                           NULL};
        return tp_io__key_listed(key, qwen);
    }
    return false;
}
