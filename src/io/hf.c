/* SPDX-License-Identifier: MIT */
/*
 * hf.c: a Hugging Face config.json as a tp_model (model_json.h;
 * tp_io_model_parse in model_parse.c hands it here when the object has
 * "model_type" or "architectures"). The keys that change the parameter
 * count are read, and those an engine export needs to build the same
 * model (rope_theta, rope_scaling, the norm epsilon); the many others
 * (torch_dtype, ...) are ignored. The supported model_types and the architecture facts a
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
 */
typedef struct hf_arch {
    const char *model_type;
    const char *architecture; /* the "architectures" entry that implies it */
    int gpt_names;            /* keys are n_embd / n_layer / n_head / n_inner / n_positions */
    tp_norm norm;
    tp_mlp mlp;
    tp_pos pos;
    bool linear_bias, qkv_bias, tie_default, moe, llama_bias_keys;
} hf_arch;

static const hf_arch hf_archs[] = {
    {"llama", "LlamaForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false, false,
     false, false, true},
    {"mistral", "MistralForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false,
     false, false, false, true},
    {"mixtral", "MixtralForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false,
     false, false, true, false},
    {"qwen2", "Qwen2ForCausalLM", 0, TP_NORM_RMSNORM, TP_MLP_SWIGLU, TP_POS_ROTARY, false, true,
     false, false, false},
    {"gpt2", "GPT2LMHeadModel", 1, TP_NORM_LAYERNORM, TP_MLP_GELU, TP_POS_LEARNED, true, false,
     true, false, false},
    {"gpt_neox", "GPTNeoXForCausalLM", 0, TP_NORM_LAYERNORM, TP_MLP_GELU, TP_POS_ROTARY, true,
     false, false, false, false},
};
#define HF_ARCH_COUNT (sizeof hf_archs / sizeof hf_archs[0])

/* "llama, mistral, ...": the model_types of hf_archs, for the refusals. */
static const char *hf_supported(char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < HF_ARCH_COUNT && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", hf_archs[i].model_type);
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

tp_status tp_io__hf_model_parse(json_t *root, const char *origin, tp_model *out, tp_error *err)
{
    char known[256]; /* the supported model_types, for a refusal */
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
    if (a->moe) {
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

    tp_io__name_from_origin(origin, m.name, sizeof m.name);
    if (!m.name[0])
        snprintf(m.name, sizeof m.name, "hf-%s", a->model_type);
    json_decref(root);
    tp_status st = tp_model_validate(&m, err);
    if (st != TP_OK)
        return st;
    *out = m;
    return TP_OK;
}
