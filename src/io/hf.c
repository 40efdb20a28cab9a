/* SPDX-License-Identifier: MIT */
/*
 * hf.c: a Hugging Face config.json as a tp_model (model_json.h;
 * tp_io_model_parse in model_parse.c hands it here when the object has
 * "model_type" or "architectures"). The keys that change the parameter
 * count or the FLOPs are read, and those an engine export needs to build
 * the same model (rope_theta, rope_scaling, the norm epsilon); the many
 * others (torch_dtype, router scaling, ...) are ignored. The supported model_types and the architecture facts a
 * config does not state are in hf_archs[] below, each from the
 * transformers modeling code of its family. Errors name the config's own
 * key ("num_key_value_heads"), as model_parse.c's do.
 */
#include <stdio.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "model_json.h"

/* ------------------------------------------------------------------ */
/* Hugging Face config.json                                            */
/* ------------------------------------------------------------------ */

/*
 * Architecture facts the config does not state, per model_type, from the
 * transformers modeling code of each family:
 *  llama, mistral, mixtral: RMSNorm, SwiGLU (silu gate), RoPE, no biases
 *    (attention_bias / mlp_bias default false), untied by default.
 *  qwen2: as llama plus a bias on q, k and v only (Qwen2Attention), untied
 *    by default.
 *  gpt2: LayerNorm, GELU MLP of n_inner (default 4*n_embd), learned
 *    positions (n_positions), biases on every linear, tied by default.
 *  gpt_neox: LayerNorm, GELU MLP, rotary, biases on every linear, separate
 *    embed_out head (tie_word_embeddings default false); the parallel
 *    residual does not change the count.
 *  mistral: sliding_window (4096 in Mistral-7B-v0.1) on every layer.
 *  qwen3: as llama plus RMSNorm of head_dim on q and k (Qwen3Attention
 *    q_norm/k_norm), attention_bias default false, untied by default.
 *  qwen3_moe: qwen3 attention; num_experts experts of moe_intermediate_size,
 *    MoE on layer i when (i + 1) % decoder_sparse_step == 0 and i is not in
 *    mlp_only_layers (Qwen3MoeDecoderLayer); no shared expert.
 *  olmo2: llama MLP, RMSNorm over the full q and k widths (Olmo2Attention
 *    q_norm over a*d_h, k_norm over n_kv*d_h); norms after the sublayers
 *    do not change the count.
 *  deepseek_v3, kimi_k2 (Kimi K2 is the DeepSeek-V3 architecture under its
 *    own model_type): multi-latent attention (q_lora_rank,
 *    kv_lora_rank, qk_rope/nope_head_dim, v_head_dim); n_routed_experts of
 *    moe_intermediate_size, n_shared_experts of the same width, dense below
 *    first_k_dense_replace, MoE where layer_idx % moe_layer_freq == 0
 *    (DeepseekV3DecoderLayer); the router's e_score_correction_bias with
 *    topk_method "noaux_tc" (the default); num_nextn_predict_layers MTP
 *    modules (README_WEIGHTS.md of deepseek-ai/DeepSeek-V3); n_group and
 *    topk_group, the group-limited routing (n_group 1: none).
 *  gpt_oss: biases on q, k, v, o (attention_bias) and on every expert's
 *    gate_up and down projections (GptOssExperts), a router bias
 *    (GptOssTopKRouter), one sink logit per head (GptOssAttention.sinks),
 *    SwiGLU experts, sliding_window on the layer_types "sliding_attention"
 *    layers.
 *  phi3: llama layout with fused qkv_proj / gate_up_proj (same count), no
 *    biases, untied by default.
 */
typedef enum hf_moe { HF_MOE_NONE = 0, HF_MOE_MIXTRAL, HF_MOE_QWEN, HF_MOE_DEEPSEEK } hf_moe;

typedef struct hf_arch {
    const char *model_type;
    const char *architecture; /* the "architectures" entry that implies it */
    int gpt_names;            /* keys are n_embd / n_layer / n_head / n_inner / n_positions */
    tp_norm norm;
    tp_mlp mlp;
    tp_pos pos;
    bool linear_bias, qkv_bias, tie_default, moe, llama_bias_keys;
    /* issue 16 families */
    hf_moe moe_keys; /* how the experts are described (moe: mixtral keys) */
    tp_qk_norm qk_norm;
    bool mla, gpt_oss, window; /* MLA keys; gpt-oss extras; reads sliding_window */
    int norms;                 /* norms per layer, 0: 2 */
    int window_every;          /* without layer_types: 0 every layer local, n every n-th
                                  global, -1 sliding_window_pattern says */
} hf_arch;

static const hf_arch hf_archs[] = {
    {"llama", "LlamaForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false, false,
     false, false, true, HF_MOE_NONE, TP_QK_NORM_NONE, false, false, false, 0, 0},
    {"mistral", "MistralForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false,
     false, false, false, true, HF_MOE_NONE, TP_QK_NORM_NONE, false, false, true, 0, 0},
    {"mixtral", "MixtralForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false,
     false, false, true, false, HF_MOE_MIXTRAL, TP_QK_NORM_NONE, false, false, false, 0, 0},
    {"qwen2", "Qwen2ForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false, true,
     false, false, false, HF_MOE_NONE, TP_QK_NORM_NONE, false, false, false, 0, 0},
    {"gpt2", "GPT2LMHeadModel", 1, TP_NORM_LAYERNORM, TP_MLP_GELU, TP_POS_LEARNED, true, false,
     true, false, false, HF_MOE_NONE, TP_QK_NORM_NONE, false, false, false, 0, 0},
    {"gpt_neox", "GPTNeoXForCausalLM", 0, TP_NORM_LAYERNORM, TP_MLP_GELU, TP_POS_ROTARY, true,
     false, false, false, false, HF_MOE_NONE, TP_QK_NORM_NONE, false, false, false, 0, 0},
    {"qwen3", "Qwen3ForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false, false,
     false, false, true, HF_MOE_NONE, TP_QK_NORM_HEAD, false, false, false, 0, 0},
    {"qwen3_moe", "Qwen3MoeForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false,
     false, false, true, true, HF_MOE_QWEN, TP_QK_NORM_HEAD, false, false, false, 0, 0},
    {"deepseek_v3", "DeepseekV3ForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY,
     false, false, false, true, false, HF_MOE_DEEPSEEK, TP_QK_NORM_NONE, true, false, false, 0, 0},
    {"kimi_k2", "KimiK2ForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false, false,
     false, true, false, HF_MOE_DEEPSEEK, TP_QK_NORM_NONE, true, false, false, 0, 0},
    {"gpt_oss", "GptOssForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, true, false,
     false, true, false, HF_MOE_MIXTRAL, TP_QK_NORM_NONE, false, true, true, 0, 0},
    {"olmo2", "Olmo2ForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false, false,
     false, false, true, HF_MOE_NONE, TP_QK_NORM_FULL, false, false, false, 0, 0},
    {"phi3", "Phi3ForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false, false,
     false, false, false, HF_MOE_NONE, TP_QK_NORM_NONE, false, false, true, 0, 0},
    {"gemma2", "Gemma2ForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_GEGLU, TP_POS_ROTARY, false, false,
     true, false, true, HF_MOE_NONE, TP_QK_NORM_NONE, false, false, true, 4, 2},
    {"gemma3_text", "Gemma3ForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_GEGLU, TP_POS_ROTARY, false,
     false, true, false, true, HF_MOE_NONE, TP_QK_NORM_HEAD, false, false, true, 4, -1},
};
#define HF_ARCH_COUNT (sizeof hf_archs / sizeof hf_archs[0])

/* "llama, mistral, ...": the model_types of hf_archs, for the refusals. */
static const char *hf_supported(char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < HF_ARCH_COUNT && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", hf_archs[i].model_type);
    if (at < n)
        snprintf(buf + at, n - at,
                 ", dbrx, %s, %s", /* hf_dbrx_parse, hf_vlm.c, hf_hybrid.c, hf_llama4.c */
                 "mllama, qwen2_vl, qwen2_5_vl, gemma3, falcon",
                 "nemotron_h, qwen3_next, jamba, llama4_text, llama4");
    return buf;
}

/* The value of the first of two spellings present (HF configs use both). */
static const char *hf_key(const json_t *obj, const char *primary, const char *alt)
{
    if (json_object_get(obj, primary) || !alt || !json_object_get(obj, alt))
        return primary;
    return alt;
}

static tp_status hf_int(const json_t *obj, const hf_arch *a, const char *std_key,
                        const char *gpt_key, int required, int64_t min, int64_t max, int64_t *out,
                        tp_error *err)
{
    const char *primary = a->gpt_names && gpt_key ? gpt_key : std_key;
    const char *alt = primary == std_key ? gpt_key : std_key;
    char note[96];
    snprintf(note, sizeof note, " (HF config.json, model_type %s)", a->model_type);
    return tp_io__get_int(obj, NULL, hf_key(obj, primary, alt), required, min, max, note, out, err);
}

/* A string key (absent: *out unchanged). */
static tp_status hf_str(const json_t *obj, const char *key, const char **out, tp_error *err)
{
    const json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return TP_OK;
    if (!json_is_string(v)) {
        char what[64];
        tp_io__describe(v, what, sizeof what);
        return tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" must be a string, got %s", key, what);
    }
    *out = json_string_value(v);
    return TP_OK;
}

/* Group-limited routing (DeepSeek-V3 n_group 8, topk_group 4; DeepSeek's
 * ModelArgs n_expert_groups / n_limited_groups): a token's experts come
 * from the topk_group best of n_group equal groups. One group (Kimi K2's
 * n_group 1, topk_group 1) is no limit: the model records none. */
static tp_status hf_router_groups(const json_t *root, const hf_arch *a, const char *groups_key,
                                  const char *topk_key, tp_model *m, tp_error *err)
{
    tp_status st;
    int64_t groups = 1, topk = 1;
    if ((st = hf_int(root, a, groups_key, NULL, OPTIONAL, 1, TP_MAX_EXPERTS, &groups, err)) !=
            TP_OK ||
        (st = hf_int(root, a, topk_key, NULL, OPTIONAL, 1, TP_MAX_EXPERTS, &topk, err)) != TP_OK)
        return st;
    if (m->num_experts % groups != 0)
        return tp_error_set(err, TP_ERR_CONFIG, groups_key,
                            "\"%s\" (%lld) must divide the %lld routed experts", groups_key,
                            (long long)groups, (long long)m->num_experts);
    if (topk > groups)
        return tp_error_set(err, TP_ERR_CONFIG, topk_key,
                            "\"%s\" (%lld) must not exceed \"%s\" (%lld)", topk_key,
                            (long long)topk, groups_key, (long long)groups);
    if (topk * (m->num_experts / groups) < m->topk)
        return tp_error_set(err, TP_ERR_CONFIG, topk_key,
                            "\"%s\" (%lld) groups of %lld experts hold fewer than the %lld "
                            "experts a token takes",
                            topk_key, (long long)topk, (long long)(m->num_experts / groups),
                            (long long)m->topk);
    if (groups == 1)
        return TP_OK;
    m->moe_router_groups = groups;
    m->moe_group_topk = topk;
    return TP_OK;
}

/* Fine-grained experts: qwen3_moe and deepseek_v3 keys (hf_archs notes). */
static tp_status hf_moe_fine(const json_t *root, const hf_arch *a, tp_model *m, tp_error *err)
{
    tp_status st;
    bool qwen = a->moe_keys == HF_MOE_QWEN;
    const char *experts_key = qwen ? "num_experts" : "n_routed_experts";
    if ((st = hf_int(root, a, experts_key, NULL, REQUIRED, 1, TP_MAX_EXPERTS, &m->num_experts,
                     err)) != TP_OK ||
        (st = hf_int(root, a, "num_experts_per_tok", NULL, REQUIRED, 1, TP_MAX_EXPERTS, &m->topk,
                     err)) != TP_OK ||
        (st = hf_int(root, a, "moe_intermediate_size", NULL, REQUIRED, 1, TP_MAX_FFN,
                     &m->moe_ffn_hidden, err)) != TP_OK)
        return st;
    if (m->topk > m->num_experts)
        return tp_error_set(err, TP_ERR_CONFIG, "num_experts_per_tok",
                            "\"num_experts_per_tok\" (%lld) must not exceed \"%s\" (%lld)",
                            (long long)m->topk, experts_key, (long long)m->num_experts);
    if (qwen) {
        int64_t step = 1;
        if ((st = hf_int(root, a, "decoder_sparse_step", NULL, OPTIONAL, 1, TP_MAX_LAYERS, &step,
                         err)) != TP_OK)
            return st;
        const json_t *only = json_object_get(root, "mlp_only_layers");
        if (only && !json_is_null(only) && !(json_is_array(only) && json_array_size(only) == 0))
            return tp_error_set(err, TP_ERR_CONFIG, "mlp_only_layers",
                                "\"mlp_only_layers\" must be empty: a list of dense layers is not "
                                "a pattern trainplan can express (first dense layers, then every "
                                "n-th)");
        /* MoE where (i + 1) % step == 0: the first at step - 1, then every step-th */
        m->moe_first_dense = step - 1;
        m->moe_layer_freq = step;
        return TP_OK;
    }
    int64_t freq = 1;
    const char *method = "noaux_tc";
    if ((st = hf_int(root, a, "n_shared_experts", NULL, OPTIONAL, 0, TP_MAX_EXPERTS,
                     &m->num_shared_experts, err)) != TP_OK ||
        (st = hf_int(root, a, "first_k_dense_replace", NULL, OPTIONAL, 0, TP_MAX_LAYERS,
                     &m->moe_first_dense, err)) != TP_OK ||
        (st = hf_int(root, a, "moe_layer_freq", NULL, OPTIONAL, 1, TP_MAX_LAYERS, &freq, err)) !=
            TP_OK ||
        (st = hf_int(root, a, "num_nextn_predict_layers", NULL, OPTIONAL, 0, TP_MAX_LAYERS,
                     &m->mtp_layers, err)) != TP_OK ||
        (st = hf_str(root, "topk_method", &method, err)) != TP_OK)
        return st;
    if (m->moe_first_dense > m->num_layers)
        return tp_error_set(err, TP_ERR_CONFIG, "first_k_dense_replace",
                            "\"first_k_dense_replace\" (%lld) must not exceed "
                            "\"num_hidden_layers\" (%lld)",
                            (long long)m->moe_first_dense, (long long)m->num_layers);
    /* DeepSeek: MoE where i >= first_k and i % freq == 0; trainplan: (i - first_k) % freq */
    if (freq > 1 && m->moe_first_dense % freq != 0)
        return tp_error_set(err, TP_ERR_CONFIG, "moe_layer_freq",
                            "\"moe_layer_freq\" %lld with \"first_k_dense_replace\" %lld is not a "
                            "pattern trainplan can express (first_k must be a multiple of the "
                            "frequency)",
                            (long long)freq, (long long)m->moe_first_dense);
    m->moe_layer_freq = freq;
    m->router_bias = strcmp(method, "noaux_tc") == 0;
    return hf_router_groups(root, a, "n_group", "topk_group", m, err);
}

/* Multi-head latent attention keys (DeepSeek-V2/V3, Kimi K2). */
static tp_status hf_mla(const json_t *root, const hf_arch *a, tp_model *m, tp_error *err)
{
    tp_status st;
    if ((st = hf_int(root, a, "kv_lora_rank", NULL, REQUIRED, 1, TP_MAX_DIM, &m->kv_lora_rank,
                     err)) != TP_OK ||
        (st = hf_int(root, a, "q_lora_rank", NULL, OPTIONAL, 1, TP_MAX_DIM, &m->q_lora_rank,
                     err)) != TP_OK ||
        (st = hf_int(root, a, "qk_rope_head_dim", NULL, REQUIRED, 0, TP_MAX_DIM,
                     &m->qk_rope_head_dim, err)) != TP_OK ||
        (st = hf_int(root, a, "qk_nope_head_dim", NULL, REQUIRED, 0, TP_MAX_DIM,
                     &m->qk_nope_head_dim, err)) != TP_OK ||
        (st = hf_int(root, a, "v_head_dim", NULL, REQUIRED, 1, TP_MAX_DIM, &m->v_head_dim, err)) !=
            TP_OK)
        return st;
    if (m->qk_rope_head_dim + m->qk_nope_head_dim < 1)
        return tp_error_set(err, TP_ERR_CONFIG, "qk_nope_head_dim",
                            "\"qk_nope_head_dim\" + \"qk_rope_head_dim\" must be at least 1");
    bool attention_bias = false;
    if ((st = tp_io__get_bool(root, "attention_bias", &attention_bias, err)) != TP_OK)
        return st;
    if (attention_bias)
        return tp_error_set(err, TP_ERR_CONFIG, "attention_bias",
                            "\"attention_bias\": true is not supported with multi-latent "
                            "attention (model_type %s)",
                            a->model_type);
    /* MLA has per-head K and V: num_key_value_heads (= heads in the files) plays no part */
    m->num_kv_heads = 0;
    m->head_dim = 0;
    return TP_OK;
}

/* sliding_window and which layers use it: layer_types, or every layer (mistral, phi3). */
static tp_status hf_window(const json_t *root, const hf_arch *a, tp_model *m, tp_error *err)
{
    tp_status st;
    int64_t w = 0;
    if ((st = hf_int(root, a, "sliding_window", NULL, OPTIONAL, 1, TP_MAX_SEQ, &w, err)) != TP_OK)
        return st;
    const json_t *types = json_object_get(root, "layer_types");
    if (w == 0)
        return TP_OK;
    if (!types || json_is_null(types)) {
        m->sliding_window = w; /* every layer local, or the family's pattern */
        m->global_every = a->window_every > 0 ? a->window_every : 0;
        if (a->window_every < 0) {
            int64_t every = 0;
            tp_status st2 = hf_int(root, a, "sliding_window_pattern", NULL, OPTIONAL, 1,
                                   m->num_layers, &every, err);
            if (st2 != TP_OK)
                return st2;
            m->global_every = every;
        }
        return TP_OK;
    }
    if (!json_is_array(types) || (int64_t)json_array_size(types) != m->num_layers)
        return tp_error_set(err, TP_ERR_CONFIG, "layer_types",
                            "\"layer_types\" must be an array of %lld entries (one per layer)",
                            (long long)m->num_layers);
    /* find n with layer i global exactly when (i + 1) % n == 0 */
    int64_t first_global = -1, locals = 0;
    for (size_t i = 0; i < json_array_size(types); i++) {
        const json_t *t = json_array_get(types, i);
        const char *v = json_is_string(t) ? json_string_value(t) : "";
        bool full = strcmp(v, "full_attention") == 0;
        if (!full && strcmp(v, "sliding_attention") != 0)
            return tp_error_set(err, TP_ERR_CONFIG, "layer_types",
                                "\"layer_types\"[%zu] must be \"sliding_attention\" or "
                                "\"full_attention\"",
                                i);
        if (full && first_global < 0)
            first_global = (int64_t)i;
        locals += !full;
    }
    if (locals == 0)
        return TP_OK; /* no local layer: the window plays no part */
    int64_t every = first_global < 0 ? 0 : first_global + 1;
    for (int64_t i = 0; i < m->num_layers; i++) {
        bool full =
            strcmp(json_string_value(json_array_get(types, (size_t)i)), "full_attention") == 0;
        if (full != (every > 0 && (i + 1) % every == 0))
            return tp_error_set(err, TP_ERR_CONFIG, "layer_types",
                                "\"layer_types\" is not a pattern trainplan can express (every "
                                "n-th layer full attention, the others sliding)");
    }
    m->sliding_window = w;
    m->global_every = every;
    return TP_OK;
}

/* Known model_types trainplan refuses, and what it lacks for each. */
static const struct {
    const char *model_type, *why;
} hf_refused[] = {
    {"falcon_h1", "attention and Mamba-2 heads in parallel within each layer, which trainplan's "
                  "layer pattern cannot express"},
};

tp_status tp_io__hf_finish(json_t *root, const char *origin, const char *fallback, tp_model *m,
                           tp_model *out, tp_error *err)
{
    tp_io__name_from_origin(origin, m->name, sizeof m->name);
    if (!m->name[0])
        snprintf(m->name, sizeof m->name, "%s", fallback);
    json_decref(root);
    tp_status st = tp_model_validate(m, err);
    if (st == TP_OK)
        *out = *m;
    return st;
}

/* DBRX (HF DbrxConfig): d_model, n_heads, n_layers, vocab_size, max_seq_len,
 * attn_config.kv_n_heads, ffn_config.ffn_hidden_size / moe_num_experts /
 * moe_top_k; LayerNorm without bias (DbrxBlock's nn.LayerNorm(bias=False)),
 * GLU experts (silu), no biases, untied; clip_qkv changes nothing counted. */
static tp_status hf_dbrx_parse(json_t *root, const char *origin, tp_model *out, tp_error *err)
{
    static const hf_arch dbrx = {"dbrx",
                                 "DbrxForCausalLM",
                                 0,
                                 TP_NORM_LAYERNORM,
                                 TP_MLP_SWIGLU,
                                 TP_POS_ROTARY,
                                 false,
                                 false,
                                 false,
                                 true,
                                 false,
                                 HF_MOE_NONE,
                                 TP_QK_NORM_NONE,
                                 false,
                                 false,
                                 false,
                                 0,
                                 0};
    const hf_arch *a = &dbrx;
    tp_model m;
    memset(&m, 0, sizeof m);
    m.norm = TP_NORM_LAYERNORM;
    m.norm_no_bias = true;
    m.mlp = TP_MLP_SWIGLU;
    m.pos = TP_POS_ROTARY;
    TRY(hf_int(root, a, "d_model", NULL, REQUIRED, 1, TP_MAX_DIM, &m.hidden, err));
    TRY(hf_int(root, a, "n_heads", NULL, REQUIRED, 1, TP_MAX_DIM, &m.num_heads, err));
    TRY(hf_int(root, a, "n_layers", NULL, REQUIRED, 1, TP_MAX_LAYERS, &m.num_layers, err));
    TRY(hf_int(root, a, "vocab_size", NULL, REQUIRED, 1, TP_MAX_VOCAB, &m.vocab, err));
    TRY(hf_int(root, a, "max_seq_len", NULL, OPTIONAL, 0, TP_MAX_SEQ, &m.max_positions, err));
    TRY(tp_io__get_bool(root, "tie_word_embeddings", &m.tie_embeddings, err));
    const json_t *attn = json_object_get(root, "attn_config");
    const json_t *ffn = json_object_get(root, "ffn_config");
    if (!json_is_object(attn) || !json_is_object(ffn))
        FAIL(err, TP_ERR_CONFIG, json_is_object(attn) ? "ffn_config" : "attn_config",
             "missing object \"%s\" (HF config.json, model_type dbrx)",
             json_is_object(attn) ? "ffn_config" : "attn_config");
    TRY(tp_io__get_int(attn, "attn_config", "kv_n_heads", REQUIRED, 1, TP_MAX_DIM, NULL,
                       &m.num_kv_heads, err));
    TRY(tp_io__get_int(ffn, "ffn_config", "ffn_hidden_size", REQUIRED, 1, TP_MAX_FFN, NULL,
                       &m.ffn_hidden, err));
    TRY(tp_io__get_int(ffn, "ffn_config", "moe_num_experts", REQUIRED, 1, TP_MAX_EXPERTS, NULL,
                       &m.num_experts, err));
    TRY(tp_io__get_int(ffn, "ffn_config", "moe_top_k", REQUIRED, 1, TP_MAX_EXPERTS, NULL, &m.topk,
                       err));
    if (m.topk > m.num_experts)
        FAIL(err, TP_ERR_CONFIG, "ffn_config.moe_top_k",
             "\"ffn_config.moe_top_k\" (%lld) must not exceed \"ffn_config.moe_num_experts\" "
             "(%lld)",
             (long long)m.topk, (long long)m.num_experts);
    m.moe_layer_freq = 1;
    static const shape_keys keys = {"d_model", "n_heads", "attn_config.kv_n_heads", "head_dim"};
    TRY(tp_io__check_shape(&m, &keys, err));
    return tp_io__hf_finish(root, origin, "hf-dbrx", &m, out, err);
}

tp_status tp_io__hf_model_parse(json_t *root, const char *origin, tp_model *out, tp_error *err)
{
    char known[512]; /* the supported model_types, for a refusal */
    const hf_arch *a = NULL;
    const json_t *mt = json_object_get(root, "model_type");
    if (mt) {
        if (!json_is_string(mt)) {
            char what[64];
            tp_io__describe(mt, what, sizeof what);
            FAIL(err, TP_ERR_CONFIG, "model_type", "\"model_type\" must be a string, got %s", what);
        }
        for (size_t i = 0; i < HF_ARCH_COUNT && !a; i++)
            if (strcmp(json_string_value(mt), hf_archs[i].model_type) == 0)
                a = &hf_archs[i];
        if (!a && strcmp(json_string_value(mt), "dbrx") == 0)
            return hf_dbrx_parse(root, origin, out, err);
        if (!a && tp_io__hf_vlm_type(json_string_value(mt)))
            return tp_io__hf_vlm_parse(root, origin, out, err);
        if (!a && strcmp(json_string_value(mt), "falcon") == 0)
            return tp_io__hf_falcon_parse(root, origin, out, err);
        if (!a && strcmp(json_string_value(mt), "nemotron_h") == 0)
            return tp_io__hf_nemotron_h_parse(root, origin, out, err); /* hf_hybrid.c */
        if (!a && strcmp(json_string_value(mt), "qwen3_next") == 0)
            return tp_io__hf_qwen3_next_parse(root, origin, out, err);
        if (!a && strcmp(json_string_value(mt), "jamba") == 0)
            return tp_io__hf_jamba_parse(root, origin, out, err);
        if (!a && strncmp(json_string_value(mt), "llama4", 6) == 0 &&
            (strcmp(json_string_value(mt) + 6, "") == 0 ||
             strcmp(json_string_value(mt) + 6, "_text") == 0))
            return tp_io__hf_llama4_parse(root, origin, out, err); /* hf_llama4.c */
        for (size_t i = 0; !a && i < sizeof hf_refused / sizeof hf_refused[0]; i++)
            if (strcmp(json_string_value(mt), hf_refused[i].model_type) == 0)
                FAIL(err, TP_ERR_CONFIG, "model_type",
                     "model_type \"%s\" is not supported: %s (HF config.json)",
                     hf_refused[i].model_type, hf_refused[i].why);
        if (!a)
            FAIL(err, TP_ERR_CONFIG, "model_type",
                 "unsupported model_type \"%s\" (HF config.json); supported: %s",
                 json_string_value(mt), hf_supported(known, sizeof known));
    } else {
        const json_t *archs = json_object_get(root, "architectures");
        size_t i;
        json_t *v;
        if (json_is_array(archs)) {
            json_array_foreach(archs, i, v)
            {
                for (size_t j = 0; j < HF_ARCH_COUNT && !a; j++)
                    if (json_is_string(v) &&
                        strcmp(json_string_value(v), hf_archs[j].architecture) == 0)
                        a = &hf_archs[j];
            }
        }
        if (!a)
            FAIL(err, TP_ERR_CONFIG, "model_type",
                 "missing key \"model_type\" and no supported \"architectures\" entry "
                 "(HF config.json); supported model_types: %s",
                 hf_supported(known, sizeof known));
    }

    tp_model m;
    memset(&m, 0, sizeof m);
    m.norm = a->norm;
    m.mlp = a->mlp;
    m.pos = a->pos;
    m.linear_bias = a->linear_bias;
    m.qkv_bias = a->qkv_bias;
    m.tie_embeddings = a->tie_default;

    TRY(hf_int(root, a, "hidden_size", "n_embd", REQUIRED, 1, TP_MAX_DIM, &m.hidden, err));
    TRY(hf_int(root, a, "num_hidden_layers", "n_layer", REQUIRED, 1, TP_MAX_LAYERS, &m.num_layers,
               err));
    TRY(hf_int(root, a, "num_attention_heads", "n_head", REQUIRED, 1, TP_MAX_DIM, &m.num_heads,
               err));
    TRY(hf_int(root, a, "num_key_value_heads", NULL, OPTIONAL, 1, TP_MAX_DIM, &m.num_kv_heads,
               err));
    TRY(hf_int(root, a, "head_dim", NULL, OPTIONAL, 1, TP_MAX_DIM, &m.head_dim, err));
    /* GPT-2's n_inner is null or absent for the default 4 * n_embd (GPT2MLP). */
    TRY(hf_int(root, a, "intermediate_size", "n_inner", a->gpt_names ? OPTIONAL : REQUIRED, 1,
               TP_MAX_FFN, &m.ffn_hidden, err));
    if (m.ffn_hidden == 0)
        m.ffn_hidden = 4 * m.hidden;
    TRY(hf_int(root, a, "vocab_size", NULL, REQUIRED, 1, TP_MAX_VOCAB, &m.vocab, err));
    /* Learned positions change the count, so GPT-2 needs the table size. */
    TRY(hf_int(root, a, "max_position_embeddings", "n_positions",
               a->pos == TP_POS_LEARNED ? REQUIRED : OPTIONAL, 0, TP_MAX_SEQ, &m.max_positions,
               err));
    TRY(tp_io__get_bool(root, "tie_word_embeddings", &m.tie_embeddings, err));
    /* What an engine needs to build the same model (the count does not use
     * them): the rotary base and scaling, and the norm epsilon under each
     * family's key. */
    TRY(tp_io__get_real(root, NULL, "rope_theta", 1.0, 1e12, &m.rope_theta, err));
    TRY(tp_io__get_rope_scaling(root, "rope_scaling", &m, err));
    TRY(tp_io__get_real(root, NULL, hf_key(root, "rms_norm_eps", "layer_norm_eps"), 1e-30, 0.1,
                        &m.norm_eps, err));
    TRY(tp_io__get_real(root, NULL, "layer_norm_epsilon", 1e-30, 0.1, &m.norm_eps, err));
    if (a->moe && a->moe_keys != HF_MOE_MIXTRAL) {
        TRY(hf_moe_fine(root, a, &m, err));
    } else if (a->moe) {
        TRY(hf_int(root, a, "num_local_experts", NULL, REQUIRED, 1, TP_MAX_EXPERTS, &m.num_experts,
                   err));
        TRY(hf_int(root, a, "num_experts_per_tok", NULL, REQUIRED, 1, TP_MAX_EXPERTS, &m.topk,
                   err));
        if (m.topk > m.num_experts)
            FAIL(err, TP_ERR_CONFIG, "num_experts_per_tok",
                 "\"num_experts_per_tok\" (%lld) must not exceed \"num_local_experts\" "
                 "(%lld)",
                 (long long)m.topk, (long long)m.num_experts);
        m.moe_layer_freq = 1;
    }
    m.qk_norm = a->qk_norm;
    m.norms_per_layer = a->norms;
    if (a->mla)
        TRY(hf_mla(root, a, &m, err));
    if (a->gpt_oss) {
        /* attention_bias puts biases on q, k, v and o; the experts always have theirs */
        bool attention_bias = true;
        TRY(tp_io__get_bool(root, "attention_bias", &attention_bias, err));
        if (!attention_bias)
            FAIL(err, TP_ERR_CONFIG, "attention_bias",
                 "\"attention_bias\": false is not supported for model_type gpt_oss (its "
                 "experts keep their biases; trainplan counts biases on every linear or none)");
        m.router_bias = true;
        m.attn_sinks = true;
    }
    if (a->window)
        TRY(hf_window(root, a, &m, err));
    bool use_window = false; /* Qwen2/Qwen3: windows on the layers past max_window_layers */
    TRY(tp_io__get_bool(root, "use_sliding_window", &use_window, err));
    if (use_window)
        FAIL(err, TP_ERR_CONFIG, "use_sliding_window",
             "\"use_sliding_window\": true is not supported for model_type %s (windows on the "
             "layers from max_window_layers on are not a pattern trainplan can express)",
             a->model_type);
    shape_keys hf_keys = {"hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim"};
    if (a->gpt_names) {
        hf_keys.hidden = hf_key(root, "n_embd", "hidden_size");
        hf_keys.heads = hf_key(root, "n_head", "num_attention_heads");
    }
    TRY(tp_io__check_shape(&m, &hf_keys, err));
    if (a->llama_bias_keys) {
        /* LlamaAttention's attention_bias puts a bias on o_proj too, and mlp_bias on
         * gate/up/down: neither is one of the two bias layouts tp_model counts. */
        bool attention_bias = false, mlp_bias = false;
        TRY(tp_io__get_bool(root, "attention_bias", &attention_bias, err));
        TRY(tp_io__get_bool(root, "mlp_bias", &mlp_bias, err));
        if (attention_bias || mlp_bias)
            FAIL(err, TP_ERR_CONFIG, attention_bias ? "attention_bias" : "mlp_bias",
                 "\"%s\": true is not supported for model_type %s (trainplan counts "
                 "biases on q/k/v only or on every linear)",
                 attention_bias ? "attention_bias" : "mlp_bias", a->model_type);
    }

    char fallback[TP_NAME_MAX];
    snprintf(fallback, sizeof fallback, "hf-%s", a->model_type);
    return tp_io__hf_finish(root, origin, fallback, &m, out, err);
}

/* ------------------------------------------------------------------ */
/* DeepSeek's native inference config (config_671B.json)              */
/* ------------------------------------------------------------------ */

/*
 * The ModelArgs JSON of deepseek-ai/DeepSeek-V3's inference/model.py
 * (inference/configs/config_671B.json): dim, n_layers, n_heads, the MLA
 * ranks and dims, n_routed/n_shared/n_activated experts of moe_inter_dim,
 * n_dense_layers leading dense layers of inter_dim, vocab_size, untied
 * head. Its Gate has a bias only when dim == 7168 (the 671B model), as
 * there. The file has no MTP count (the inference model does not build the
 * module): 0 here, which gives DeepSeek's published 671B.
 */
tp_status tp_io__deepseek_native_parse(json_t *root, const char *origin, tp_model *out,
                                       tp_error *err)
{
    static const hf_arch native = {"deepseek native config",
                                   "",
                                   0,
                                   TP_NORM_RMSNORM,
                                   TP_MLP_SWIGLU,
                                   TP_POS_ROTARY,
                                   false,
                                   false,
                                   false,
                                   true,
                                   false,
                                   HF_MOE_DEEPSEEK,
                                   TP_QK_NORM_NONE,
                                   true,
                                   false,
                                   false,
                                   0,
                                   0};
    const hf_arch *a = &native;
    tp_model m;
    memset(&m, 0, sizeof m);
    m.norm = TP_NORM_RMSNORM;
    m.mlp = TP_MLP_SWIGLU;
    m.pos = TP_POS_ROTARY;
    TRY(hf_int(root, a, "dim", NULL, REQUIRED, 1, TP_MAX_DIM, &m.hidden, err));
    TRY(hf_int(root, a, "n_layers", NULL, REQUIRED, 1, TP_MAX_LAYERS, &m.num_layers, err));
    TRY(hf_int(root, a, "n_heads", NULL, REQUIRED, 1, TP_MAX_DIM, &m.num_heads, err));
    TRY(hf_int(root, a, "inter_dim", NULL, REQUIRED, 1, TP_MAX_FFN, &m.ffn_hidden, err));
    TRY(hf_int(root, a, "vocab_size", NULL, REQUIRED, 1, TP_MAX_VOCAB, &m.vocab, err));
    TRY(hf_int(root, a, "n_routed_experts", NULL, REQUIRED, 1, TP_MAX_EXPERTS, &m.num_experts,
               err));
    TRY(hf_int(root, a, "n_activated_experts", NULL, REQUIRED, 1, TP_MAX_EXPERTS, &m.topk, err));
    TRY(hf_int(root, a, "n_shared_experts", NULL, REQUIRED, 0, TP_MAX_EXPERTS,
               &m.num_shared_experts, err));
    TRY(hf_int(root, a, "moe_inter_dim", NULL, REQUIRED, 1, TP_MAX_FFN, &m.moe_ffn_hidden, err));
    TRY(hf_int(root, a, "n_dense_layers", NULL, REQUIRED, 0, TP_MAX_LAYERS, &m.moe_first_dense,
               err));
    TRY(hf_int(root, a, "q_lora_rank", NULL, OPTIONAL, 0, TP_MAX_DIM, &m.q_lora_rank, err));
    TRY(hf_int(root, a, "kv_lora_rank", NULL, REQUIRED, 1, TP_MAX_DIM, &m.kv_lora_rank, err));
    TRY(hf_int(root, a, "qk_nope_head_dim", NULL, REQUIRED, 0, TP_MAX_DIM, &m.qk_nope_head_dim,
               err));
    TRY(hf_int(root, a, "qk_rope_head_dim", NULL, REQUIRED, 0, TP_MAX_DIM, &m.qk_rope_head_dim,
               err));
    TRY(hf_int(root, a, "v_head_dim", NULL, REQUIRED, 1, TP_MAX_DIM, &m.v_head_dim, err));
    if (m.topk > m.num_experts)
        FAIL(err, TP_ERR_CONFIG, "n_activated_experts",
             "\"n_activated_experts\" (%lld) must not exceed \"n_routed_experts\" (%lld)",
             (long long)m.topk, (long long)m.num_experts);
    if (m.moe_first_dense > m.num_layers)
        FAIL(err, TP_ERR_CONFIG, "n_dense_layers",
             "\"n_dense_layers\" (%lld) must not exceed \"n_layers\" (%lld)",
             (long long)m.moe_first_dense, (long long)m.num_layers);
    if (m.num_heads > m.hidden)
        FAIL(err, TP_ERR_CONFIG, "n_heads", "\"n_heads\" (%lld) must not exceed \"dim\" (%lld)",
             (long long)m.num_heads, (long long)m.hidden);
    TRY(hf_router_groups(root, a, "n_expert_groups", "n_limited_groups", &m, err));
    m.moe_layer_freq = 1;
    m.router_bias = m.hidden == 7168; /* inference/model.py Gate */
    return tp_io__hf_finish(root, origin, "deepseek-native", &m, out, err);
}

/* ------------------------------------------------------------------ */
/* What a config.json says that trainplan does not read                */
/* ------------------------------------------------------------------ */

/* Keys hf_model_parse reads for arch a (see it and the helpers above). */
static bool hf_reads(const hf_arch *a, const char *key)
{
    static const char *const base[] = {
        "model_type", "architectures", "hidden_size", "num_hidden_layers", "num_attention_heads",
        "num_key_value_heads", "head_dim", "intermediate_size", "vocab_size",
        "max_position_embeddings", "tie_word_embeddings", "n_embd", "n_layer", "n_head", "n_inner",
        "n_positions",
        /* read for the exports, not the count */
        "rope_theta", "rope_scaling", "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", NULL};
    static const char *const bias[] = {"attention_bias", "mlp_bias", NULL};
    static const char *const mixtral[] = {"num_local_experts", "num_experts_per_tok", NULL};
    static const char *const qwen[] = {"num_experts",           "num_experts_per_tok",
                                       "moe_intermediate_size", "decoder_sparse_step",
                                       "mlp_only_layers",       NULL};
    static const char *const deepseek[] = {"n_routed_experts",
                                           "num_experts_per_tok",
                                           "moe_intermediate_size",
                                           "n_shared_experts",
                                           "first_k_dense_replace",
                                           "moe_layer_freq",
                                           "num_nextn_predict_layers",
                                           "topk_method",
                                           "n_group",
                                           "topk_group",
                                           NULL};
    static const char *const mla[] = {
        "kv_lora_rank",   "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
        "attention_bias", NULL};
    static const char *const window[] = {"sliding_window", "layer_types", "sliding_window_pattern",
                                         NULL};
    if (strcmp(key, "use_sliding_window") == 0)
        return true; /* read: true is refused */
    const char *const *lists[] = {base,
                                  a->llama_bias_keys || a->gpt_oss ? bias : NULL,
                                  a->moe_keys == HF_MOE_MIXTRAL ? mixtral : NULL,
                                  a->moe_keys == HF_MOE_QWEN ? qwen : NULL,
                                  a->moe_keys == HF_MOE_DEEPSEEK ? deepseek : NULL,
                                  a->mla ? mla : NULL,
                                  a->window ? window : NULL};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        if (tp_io__key_listed(key, lists[l]))
            return true;
    return false;
}

/* The keys hf_dbrx_parse reads: its top level, and inside attn_config and
 * ffn_config (named "attn_config.kv_n_heads" in the list). */
static bool dbrx_reads(const char *key)
{
    static const char *const keys[] = {"model_type",
                                       "architectures",
                                       "d_model",
                                       "n_heads",
                                       "n_layers",
                                       "vocab_size",
                                       "max_seq_len",
                                       "tie_word_embeddings",
                                       "attn_config",
                                       "ffn_config",
                                       "attn_config.kv_n_heads",
                                       "ffn_config.ffn_hidden_size",
                                       "ffn_config.moe_num_experts",
                                       "ffn_config.moe_top_k",
                                       NULL};
    return tp_io__key_listed(key, keys);
}

/* The keys tp_io__deepseek_native_parse reads (DeepSeek's ModelArgs). */
static bool native_reads(const char *key)
{
    static const char *const keys[] = {"dim",
                                       "n_layers",
                                       "n_heads",
                                       "inter_dim",
                                       "vocab_size",
                                       "n_routed_experts",
                                       "n_activated_experts",
                                       "n_shared_experts",
                                       "moe_inter_dim",
                                       "n_dense_layers",
                                       "n_expert_groups",
                                       "n_limited_groups",
                                       "q_lora_rank",
                                       "kv_lora_rank",
                                       "qk_nope_head_dim",
                                       "qk_rope_head_dim",
                                       "v_head_dim",
                                       NULL};
    return tp_io__key_listed(key, keys);
}

/* Which reader a config goes to, as tp_io_model_parse and
 * tp_io__hf_model_parse choose: an hf_archs entry (by model_type, else by
 * architectures), DBRX, DeepSeek's native config, or none. */
typedef enum hf_reader {
    READER_NONE,
    READER_ARCH,
    READER_DBRX,
    READER_NATIVE,
    READER_VLM, /* hf_vlm.c: the VLMs and Falcon */
    READER_NEMOTRON_H,
    READER_QWEN3_NEXT,
    READER_JAMBA,
    READER_LLAMA4
} hf_reader;

static hf_reader reader_of(const json_t *root, const hf_arch **arch)
{
    const json_t *mt = json_object_get(root, "model_type");
    const json_t *archs = json_object_get(root, "architectures");
    *arch = NULL;
    if (json_is_string(mt)) {
        for (size_t i = 0; i < HF_ARCH_COUNT && !*arch; i++)
            if (strcmp(json_string_value(mt), hf_archs[i].model_type) == 0)
                *arch = &hf_archs[i];
        if (*arch)
            return READER_ARCH;
        if (tp_io__hf_vlm_type(json_string_value(mt)) ||
            strcmp(json_string_value(mt), "falcon") == 0)
            return READER_VLM;
        if (strcmp(json_string_value(mt), "nemotron_h") == 0)
            return READER_NEMOTRON_H;
        if (strcmp(json_string_value(mt), "qwen3_next") == 0)
            return READER_QWEN3_NEXT;
        if (strcmp(json_string_value(mt), "jamba") == 0)
            return READER_JAMBA;
        if (strcmp(json_string_value(mt), "llama4_text") == 0 ||
            strcmp(json_string_value(mt), "llama4") == 0)
            return READER_LLAMA4;
        return strcmp(json_string_value(mt), "dbrx") == 0 ? READER_DBRX : READER_NONE;
    }
    if (mt)
        return READER_NONE;
    if (archs) {
        size_t i;
        json_t *v;
        json_array_foreach(archs, i, v)
        {
            for (size_t j = 0; j < HF_ARCH_COUNT && !*arch; j++)
                if (json_is_string(v) &&
                    strcmp(json_string_value(v), hf_archs[j].architecture) == 0)
                    *arch = &hf_archs[j];
        }
        return *arch ? READER_ARCH : READER_NONE;
    }
    if (json_object_get(root, "dim") && json_object_get(root, "n_layers") &&
        json_object_get(root, "kv_lora_rank"))
        return READER_NATIVE;
    return READER_NONE;
}

/* Append `prefix``key` to the list in buf; false when it does not fit
 * (buf keeps the whole names before it). */
static bool list_add(char *buf, size_t n, size_t *at, size_t *count, const char *prefix,
                     const char *key)
{
    int w = snprintf(buf + *at, n - *at, "%s%s%s", *count ? ", " : "", prefix, key);
    if (w < 0 || (size_t)w >= n - *at) {
        buf[*at] = '\0';
        return false;
    }
    *at += (size_t)w;
    (*count)++;
    return true;
}

size_t tp_io_hf_ignored(const char *text, char *buf, size_t n)
{
    if (n == 0)
        return 0;
    buf[0] = '\0';
    json_error_t jerr;
    json_t *root = json_loads(text ? text : "", 0, &jerr);
    if (!json_is_object(root)) {
        json_decref(root);
        return 0;
    }
    const hf_arch *a = NULL;
    hf_reader r = reader_of(root, &a);
    size_t count = 0, at = 0;
    bool room = r != READER_NONE;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        if (!room)
            break;
        bool read =
            r == READER_ARCH         ? hf_reads(a, key)
            : r == READER_DBRX       ? dbrx_reads(key)
            : r == READER_NEMOTRON_H ? tp_io__hf_nemotron_h_reads(key)
            : r == READER_QWEN3_NEXT ? tp_io__hf_qwen3_next_reads(key)
            : r == READER_JAMBA      ? tp_io__hf_jamba_reads(key)
            : r == READER_LLAMA4     ? tp_io__hf_llama4_reads(key)
            : r == READER_VLM
                ? tp_io__hf_vlm_reads(json_string_value(json_object_get(root, "model_type")), key)
                : native_reads(key);
        if (!read)
            room = list_add(buf, n, &at, &count, "", key);
        /* a VLM: the keys inside text_config (its language family's reader)
         * and vision_config (hf_vlm.c), by their dotted name */
        if (room && r == READER_VLM && json_is_object(v) &&
            (strcmp(key, "text_config") == 0 || strcmp(key, "vision_config") == 0)) {
            const char *type = json_string_value(json_object_get(root, "model_type"));
            const char *family = tp_io__hf_vlm_family(type);
            const hf_arch *fa = NULL;
            for (size_t i = 0; i < HF_ARCH_COUNT && family; i++)
                if (strcmp(hf_archs[i].model_type, family) == 0)
                    fa = &hf_archs[i];
            bool in_text = key[0] == 't';
            const char *sub;
            json_t *sv;
            json_object_foreach(v, sub, sv)
            {
                bool used = in_text ? (fa && hf_reads(fa, sub)) || tp_io__hf_vlm_reads(type, sub)
                                    : tp_io__hf_vlm_vision_reads(type, sub);
                if (room && !used)
                    room = list_add(buf, n, &at, &count,
                                    in_text ? "text_config." : "vision_config.", sub);
            }
        }
        /* Llama 4: the keys inside text_config and vision_config */
        if (room && r == READER_LLAMA4 && json_is_object(v) &&
            (strcmp(key, "text_config") == 0 || strcmp(key, "vision_config") == 0)) {
            bool in_text = key[0] == 't';
            const char *sub;
            json_t *sv;
            json_object_foreach(v, sub, sv)
            {
                bool used =
                    in_text ? tp_io__hf_llama4_reads(sub) : tp_io__hf_llama4_vision_reads(sub);
                if (room && !used)
                    room = list_add(buf, n, &at, &count,
                                    in_text ? "text_config." : "vision_config.", sub);
            }
        }
        /* DBRX: the keys inside its two sub-objects, by their dotted name */
        if (room && r == READER_DBRX && json_is_object(v) &&
            (strcmp(key, "attn_config") == 0 || strcmp(key, "ffn_config") == 0)) {
            char prefix[16];
            snprintf(prefix, sizeof prefix, "%s.", key);
            const char *sub;
            json_t *sv;
            json_object_foreach(v, sub, sv)
            {
                char dotted[256];
                snprintf(dotted, sizeof dotted, "%s%s", prefix, sub);
                if (room && !dbrx_reads(dotted))
                    room = list_add(buf, n, &at, &count, prefix, sub);
            }
        }
    }
    json_decref(root);
    return count;
}
