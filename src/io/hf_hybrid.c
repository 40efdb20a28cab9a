/* SPDX-License-Identifier: MIT */
/*
 * hf_hybrid.c: Hugging Face config.json of hybrid models (model_type
 * nemotron_h) as a tp_model with a layer pattern (src/lib/hybrid.c). hf.c
 * hands such a config here; errors name the config's own keys.
 *
 * nemotron_h (transformers NemotronHForCausalLM, NVIDIA's modeling code
 * with the checkpoints): hybrid_override_pattern, one character per layer
 * ('M' Mamba-2 mixer, '*' attention, '-' MLP; each behind one RMSNorm),
 * the Mamba-2 mixer of mamba_num_heads heads of mamba_head_dim, n_groups
 * groups of ssm_state_size, conv_kernel, a conv bias (use_conv_bias) and no
 * projection biases (use_bias / mamba_proj_bias false); attention with
 * num_key_value_heads and head_dim (or attention_head_dim, else
 * hidden/heads), no biases; the MLP of intermediate_size with
 * mlp_hidden_act relu2 (squared ReLU: up and down, no gate); RMSNorm;
 * untied head unless tie_word_embeddings. The MoE layers of Nemotron 3
 * ('E', latent MoE) are refused: their count is not checked against a
 * released checkpoint here.
 *
 * qwen3_next (transformers Qwen3NextForCausalLM): every
 * full_attention_interval-th layer (default 4) is gated attention
 * (Qwen3NextAttention: q_proj twice as wide for the output gate, per-head
 * q_norm and k_norm, no biases), the others gated delta-net
 * (Qwen3NextGatedDeltaNet: linear_num_key_heads / linear_num_value_heads
 * of linear_key_head_dim / linear_value_head_dim, linear_conv_kernel_dim);
 * every layer's MLP is Qwen3NextSparseMoeBlock (num_experts SwiGLU experts
 * of moe_intermediate_size, top num_experts_per_tok, one shared expert of
 * shared_expert_intermediate_size behind a 1-wide sigmoid gate); RMSNorm,
 * untied. A list of dense layers (mlp_only_layers), decoder_sparse_step
 * other than 1 and MTP layers are refused.
 *
 * jamba (transformers JambaForCausalLM, JambaConfig's defaults in
 * brackets): layer i is attention when i % attn_layer_period [8] ==
 * attn_layer_offset [4], else a Mamba-1 mixer (JambaMambaMixer: d_in =
 * mamba_expand [2] x h, mamba_dt_rank ["auto" = ceil(h / 16)],
 * mamba_d_state [16], mamba_d_conv [4], a conv bias (mamba_conv_bias [true])
 * and no projection biases (mamba_proj_bias [false]), RMSNorms on dt, B and
 * C); its MLP is MoE (num_experts [16] SwiGLU experts of
 * intermediate_size, top num_experts_per_tok [2], a router without bias)
 * when i % expert_layer_period [2] == expert_layer_offset [1] and there is
 * more than one expert, else a SwiGLU MLP; two RMSNorms per layer; no
 * position embeddings (counted like rotary: no parameters).
 */
#include <stdio.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "model_json.h"

#define NOTE " (HF config.json, model_type nemotron_h)"
#define NOTE_QN " (HF config.json, model_type qwen3_next)"

static tp_status get(const json_t *root, const char *key, int required, int64_t lo, int64_t hi,
                     int64_t *out, tp_error *err)
{
    return tp_io__get_int(root, NULL, key, required, lo, hi, NOTE, out, err);
}

static tp_status get_qn(const json_t *root, const char *key, int required, int64_t lo, int64_t hi,
                        int64_t *out, tp_error *err)
{
    return tp_io__get_int(root, NULL, key, required, lo, hi, NOTE_QN, out, err);
}

/* A boolean key that must have the value trainplan counts (absent: fine). */
static tp_status require_bool_of(const json_t *root, const char *type, const char *key, bool want,
                                 const char *why, tp_error *err)
{
    bool v = want;
    tp_status st = tp_io__get_bool(root, key, &v, err);
    if (st != TP_OK)
        return st;
    if (v != want)
        return tp_error_set(err, TP_ERR_CONFIG, key,
                            "\"%s\": %s is not supported for model_type %s (%s)", key,
                            v ? "true" : "false", type, why);
    return TP_OK;
}

static tp_status require_bool(const json_t *root, const char *key, bool want, const char *why,
                              tp_error *err)
{
    return require_bool_of(root, "nemotron_h", key, want, why, err);
}

static tp_status read_pattern(const json_t *root, tp_model *m, tp_error *err)
{
    const json_t *v = json_object_get(root, "hybrid_override_pattern");
    if (!json_is_string(v))
        return tp_error_set(err, TP_ERR_CONFIG, "hybrid_override_pattern",
                            "missing string key \"hybrid_override_pattern\"" NOTE);
    const char *p = json_string_value(v);
    size_t n = strlen(p);
    if ((int64_t)n != m->num_layers)
        return tp_error_set(err, TP_ERR_CONFIG, "hybrid_override_pattern",
                            "\"hybrid_override_pattern\" has %zu characters, "
                            "\"num_hidden_layers\" is %lld (one per layer)",
                            n, (long long)m->num_layers);
    if (n >= TP_PATTERN_MAX)
        return tp_error_set(err, TP_ERR_CONFIG, "hybrid_override_pattern",
                            "%zu layers: trainplan holds a pattern of at most %d", n,
                            TP_PATTERN_MAX - 1);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == 'E')
            return tp_error_set(err, TP_ERR_CONFIG, "hybrid_override_pattern",
                                "'E' (MoE) layers of nemotron_h are not supported: their latent "
                                "MoE is not modelled");
        if (!strchr("M*-", p[i]))
            return tp_error_set(err, TP_ERR_CONFIG, "hybrid_override_pattern",
                                "character %zu of \"hybrid_override_pattern\" must be 'M', '*' or "
                                "'-'",
                                i + 1);
    }
    memcpy(m->layer_pattern, p, n + 1);
    return TP_OK;
}

tp_status tp_io__hf_nemotron_h_parse(json_t *root, const char *origin, tp_model *out, tp_error *err)
{
    tp_model m;
    memset(&m, 0, sizeof m);
    m.norm = TP_NORM_RMSNORM;
    m.mlp = TP_MLP_SQRELU;
    m.pos = TP_POS_ROTARY;
    TRY(get(root, "hidden_size", REQUIRED, 1, TP_MAX_DIM, &m.hidden, err));
    TRY(get(root, "num_hidden_layers", REQUIRED, 1, TP_MAX_LAYERS, &m.num_layers, err));
    TRY(get(root, "num_attention_heads", REQUIRED, 1, TP_MAX_DIM, &m.num_heads, err));
    TRY(get(root, "num_key_value_heads", OPTIONAL, 1, TP_MAX_DIM, &m.num_kv_heads, err));
    TRY(get(root, "head_dim", OPTIONAL, 1, TP_MAX_DIM, &m.head_dim, err));
    if (m.head_dim == 0)
        TRY(get(root, "attention_head_dim", OPTIONAL, 1, TP_MAX_DIM, &m.head_dim, err));
    TRY(get(root, "intermediate_size", REQUIRED, 1, TP_MAX_FFN, &m.ffn_hidden, err));
    TRY(get(root, "vocab_size", REQUIRED, 1, TP_MAX_VOCAB, &m.vocab, err));
    TRY(get(root, "max_position_embeddings", OPTIONAL, 0, TP_MAX_SEQ, &m.max_positions, err));
    TRY(get(root, "mamba_num_heads", REQUIRED, 1, TP_MAX_DIM, &m.mamba_heads, err));
    TRY(get(root, "mamba_head_dim", REQUIRED, 1, TP_MAX_DIM, &m.mamba_head_dim, err));
    TRY(get(root, "n_groups", REQUIRED, 1, TP_MAX_DIM, &m.mamba_groups, err));
    TRY(get(root, "ssm_state_size", REQUIRED, 1, TP_MAX_DIM, &m.mamba_state, err));
    TRY(get(root, "conv_kernel", OPTIONAL, 1, 64, &m.mamba_conv, err));
    bool tied = false;
    TRY(tp_io__get_bool(root, "tie_word_embeddings", &tied, err));
    m.tie_embeddings = tied;
    TRY(require_bool(root, "use_conv_bias", true, "trainplan counts the conv1d bias", err));
    TRY(require_bool(root, "use_bias", false, "Mamba-2 projection biases are not modelled", err));
    TRY(require_bool(root, "mamba_proj_bias", false, "Mamba-2 projection biases are not modelled",
                     err));
    TRY(require_bool(root, "attention_bias", false, "attention biases are not modelled", err));
    TRY(require_bool(root, "mlp_bias", false, "MLP biases are not modelled", err));
    const json_t *act = json_object_get(root, "mlp_hidden_act");
    if (act && !(json_is_string(act) && strcmp(json_string_value(act), "relu2") == 0))
        FAIL(err, TP_ERR_CONFIG, "mlp_hidden_act",
             "\"mlp_hidden_act\" must be \"relu2\" (squared ReLU, the Nemotron-H MLP)" NOTE);
    TRY(tp_io__get_real(root, NULL, "rope_theta", 1e-30, 1e12, &m.rope_theta, err));
    TRY(tp_io__get_real(root, NULL, "rms_norm_eps", 1e-30, 0.1, &m.norm_eps, err));
    TRY(tp_io__get_real(root, NULL, "layer_norm_epsilon", 1e-30, 0.1, &m.norm_eps, err));
    TRY(read_pattern(root, &m, err));
    return tp_io__hf_finish(root, origin, "hf-nemotron_h", &m, out, err);
}

bool tp_io__hf_nemotron_h_reads(const char *key)
{
    static const char *const keys[] = {"model_type",
                                       "architectures",
                                       "hidden_size",
                                       "num_hidden_layers",
                                       "num_attention_heads",
                                       "num_key_value_heads",
                                       "head_dim",
                                       "attention_head_dim",
                                       "intermediate_size",
                                       "vocab_size",
                                       "max_position_embeddings",
                                       "mamba_num_heads",
                                       "mamba_head_dim",
                                       "n_groups",
                                       "ssm_state_size",
                                       "conv_kernel",
                                       "tie_word_embeddings",
                                       "use_conv_bias",
                                       "use_bias",
                                       "mamba_proj_bias",
                                       "attention_bias",
                                       "mlp_bias",
                                       "mlp_hidden_act",
                                       "rope_theta",
                                       "rms_norm_eps",
                                       "layer_norm_epsilon",
                                       "hybrid_override_pattern",
                                       NULL};
    return tp_io__key_listed(key, keys);
}

/* Qwen3-Next's layer kinds: layer_types when given, else every n-th full
 * attention; the pattern is one period of n ("LLLA" for n = 4). */
static tp_status qn_pattern(const json_t *root, tp_model *m, tp_error *err)
{
    int64_t every = 4;
    tp_status st =
        get_qn(root, "full_attention_interval", OPTIONAL, 1, TP_PATTERN_MAX - 1, &every, err);
    if (st != TP_OK)
        return st;
    if (m->num_layers % every != 0)
        return tp_error_set(err, TP_ERR_CONFIG, "full_attention_interval",
                            "\"full_attention_interval\" (%lld) must divide \"num_hidden_layers\" "
                            "(%lld)",
                            (long long)every, (long long)m->num_layers);
    for (int64_t i = 0; i < every; i++)
        m->layer_pattern[i] = i + 1 == every ? 'A' : 'L';
    m->layer_pattern[every] = '\0';
    const json_t *types = json_object_get(root, "layer_types");
    if (!types || json_is_null(types))
        return TP_OK;
    if (!json_is_array(types) || (int64_t)json_array_size(types) != m->num_layers)
        return tp_error_set(err, TP_ERR_CONFIG, "layer_types",
                            "\"layer_types\" must be an array of %lld entries (one per layer)",
                            (long long)m->num_layers);
    for (int64_t i = 0; i < m->num_layers; i++) {
        const json_t *t = json_array_get(types, (size_t)i);
        const char *v = json_is_string(t) ? json_string_value(t) : "";
        const char *want = tp_layer_char(m, i) == 'A' ? "full_attention" : "linear_attention";
        if (strcmp(v, want) != 0)
            return tp_error_set(err, TP_ERR_CONFIG, "layer_types",
                                "\"layer_types\"[%lld] must be \"%s\" (layer i is full "
                                "attention when i + 1 is a multiple of full_attention_interval "
                                "%lld)",
                                (long long)i, want, (long long)every);
    }
    return TP_OK;
}

/* Qwen3-Next's MoE: every layer, one gated shared expert. */
static tp_status qn_moe(const json_t *root, tp_model *m, tp_error *err)
{
    tp_status st;
    int64_t step = 1, mtp = 0;
    if ((st = get_qn(root, "num_experts", REQUIRED, 1, TP_MAX_EXPERTS, &m->num_experts, err)) !=
            TP_OK ||
        (st = get_qn(root, "num_experts_per_tok", REQUIRED, 1, m->num_experts, &m->topk, err)) !=
            TP_OK ||
        (st = get_qn(root, "moe_intermediate_size", REQUIRED, 1, TP_MAX_FFN, &m->moe_ffn_hidden,
                     err)) != TP_OK ||
        (st = get_qn(root, "shared_expert_intermediate_size", OPTIONAL, 0, TP_MAX_FFN,
                     &m->shared_ffn_hidden, err)) != TP_OK ||
        (st = get_qn(root, "decoder_sparse_step", OPTIONAL, 1, TP_MAX_LAYERS, &step, err)) !=
            TP_OK ||
        (st = get_qn(root, "mtp_num_hidden_layers", OPTIONAL, 0, TP_MAX_LAYERS, &mtp, err)) !=
            TP_OK)
        return st;
    if (step != 1)
        return tp_error_set(err, TP_ERR_CONFIG, "decoder_sparse_step",
                            "\"decoder_sparse_step\" %lld is not supported for model_type "
                            "qwen3_next (a hybrid pattern with dense MLP layers between MoE ones "
                            "is not read)",
                            (long long)step);
    if (mtp > 0)
        return tp_error_set(err, TP_ERR_CONFIG, "mtp_num_hidden_layers",
                            "\"mtp_num_hidden_layers\" %lld is not supported for model_type "
                            "qwen3_next (its MTP layers are not modelled)",
                            (long long)mtp);
    const json_t *only = json_object_get(root, "mlp_only_layers");
    if (only && !json_is_null(only) && !(json_is_array(only) && json_array_size(only) == 0))
        return tp_error_set(err, TP_ERR_CONFIG, "mlp_only_layers",
                            "\"mlp_only_layers\" must be empty for model_type qwen3_next (dense "
                            "layers between its MoE layers are not read)");
    m->moe_layer_freq = 1;
    if (m->shared_ffn_hidden > 0) {
        m->num_shared_experts = 1;
        m->shared_expert_gate = true; /* Qwen3NextSparseMoeBlock.shared_expert_gate */
    }
    return TP_OK;
}

tp_status tp_io__hf_qwen3_next_parse(json_t *root, const char *origin, tp_model *out, tp_error *err)
{
    tp_model m;
    memset(&m, 0, sizeof m);
    m.norm = TP_NORM_RMSNORM;
    m.mlp = TP_MLP_SWIGLU;
    m.pos = TP_POS_ROTARY;
    m.qk_norm = TP_QK_NORM_HEAD;
    m.attn_output_gate = true;
    TRY(get_qn(root, "hidden_size", REQUIRED, 1, TP_MAX_DIM, &m.hidden, err));
    TRY(get_qn(root, "num_hidden_layers", REQUIRED, 1, TP_MAX_LAYERS, &m.num_layers, err));
    TRY(get_qn(root, "num_attention_heads", REQUIRED, 1, TP_MAX_DIM, &m.num_heads, err));
    TRY(get_qn(root, "num_key_value_heads", OPTIONAL, 1, TP_MAX_DIM, &m.num_kv_heads, err));
    TRY(get_qn(root, "head_dim", OPTIONAL, 1, TP_MAX_DIM, &m.head_dim, err));
    TRY(get_qn(root, "intermediate_size", REQUIRED, 1, TP_MAX_FFN, &m.ffn_hidden, err));
    TRY(get_qn(root, "vocab_size", REQUIRED, 1, TP_MAX_VOCAB, &m.vocab, err));
    TRY(get_qn(root, "max_position_embeddings", OPTIONAL, 0, TP_MAX_SEQ, &m.max_positions, err));
    TRY(get_qn(root, "linear_num_key_heads", REQUIRED, 1, TP_MAX_DIM, &m.gdn_k_heads, err));
    TRY(get_qn(root, "linear_num_value_heads", REQUIRED, 1, TP_MAX_DIM, &m.gdn_v_heads, err));
    TRY(get_qn(root, "linear_key_head_dim", REQUIRED, 1, TP_MAX_DIM, &m.gdn_k_head_dim, err));
    TRY(get_qn(root, "linear_value_head_dim", REQUIRED, 1, TP_MAX_DIM, &m.gdn_v_head_dim, err));
    TRY(get_qn(root, "linear_conv_kernel_dim", OPTIONAL, 1, 64, &m.gdn_conv, err));
    bool tied = false;
    TRY(tp_io__get_bool(root, "tie_word_embeddings", &tied, err));
    m.tie_embeddings = tied;
    TRY(require_bool_of(root, "qwen3_next", "attention_bias", false,
                        "attention biases are not modelled", err));
    TRY(require_bool_of(root, "qwen3_next", "use_sliding_window", false,
                        "windows on the gated attention layers are not modelled", err));
    TRY(qn_moe(root, &m, err));
    TRY(qn_pattern(root, &m, err));
    TRY(tp_io__get_real(root, NULL, "rope_theta", 1e-30, 1e12, &m.rope_theta, err));
    TRY(tp_io__get_real(root, NULL, "rms_norm_eps", 1e-30, 0.1, &m.norm_eps, err));
    return tp_io__hf_finish(root, origin, "hf-qwen3_next", &m, out, err);
}

bool tp_io__hf_qwen3_next_reads(const char *key)
{
    static const char *const keys[] = {"model_type",
                                       "architectures",
                                       "hidden_size",
                                       "num_hidden_layers",
                                       "num_attention_heads",
                                       "num_key_value_heads",
                                       "head_dim",
                                       "intermediate_size",
                                       "vocab_size",
                                       "max_position_embeddings",
                                       "linear_num_key_heads",
                                       "linear_num_value_heads",
                                       "linear_key_head_dim",
                                       "linear_value_head_dim",
                                       "linear_conv_kernel_dim",
                                       "tie_word_embeddings",
                                       "attention_bias",
                                       "use_sliding_window",
                                       "num_experts",
                                       "num_experts_per_tok",
                                       "moe_intermediate_size",
                                       "shared_expert_intermediate_size",
                                       "decoder_sparse_step",
                                       "mtp_num_hidden_layers",
                                       "mlp_only_layers",
                                       "full_attention_interval",
                                       "layer_types",
                                       "rope_theta",
                                       "rms_norm_eps",
                                       NULL};
    return tp_io__key_listed(key, keys);
}

#define NOTE_JAMBA " (HF config.json, model_type jamba)"

static tp_status get_jb(const json_t *root, const char *key, int64_t def, int64_t lo, int64_t hi,
                        int64_t *out, tp_error *err)
{
    *out = def;
    return tp_io__get_int(root, NULL, key, OPTIONAL, lo, hi, NOTE_JAMBA, out, err);
}

/* mamba_dt_rank: a number, or "auto" (JambaConfig: ceil(hidden / 16)). */
static tp_status jamba_dt_rank(const json_t *root, int64_t h, int64_t *out, tp_error *err)
{
    const json_t *v = json_object_get(root, "mamba_dt_rank");
    if (!v || json_is_null(v) || (json_is_string(v) && strcmp(json_string_value(v), "auto") == 0)) {
        *out = (h + 15) / 16;
        return TP_OK;
    }
    return tp_io__get_int(root, NULL, "mamba_dt_rank", OPTIONAL, 1, TP_MAX_DIM, NOTE_JAMBA, out,
                          err);
}

/* Jamba's attention period and offset as a pattern of one period. */
static tp_status jamba_pattern(const json_t *root, tp_model *m, tp_error *err)
{
    int64_t period, offset;
    tp_status st;
    if ((st = get_jb(root, "attn_layer_period", 8, 1, TP_PATTERN_MAX - 1, &period, err)) != TP_OK ||
        (st = get_jb(root, "attn_layer_offset", 4, 0, TP_PATTERN_MAX - 2, &offset, err)) != TP_OK)
        return st;
    if (offset >= period || m->num_layers % period != 0)
        return tp_error_set(err, TP_ERR_CONFIG, "attn_layer_period",
                            "\"attn_layer_offset\" %lld and \"attn_layer_period\" %lld are not a "
                            "pattern trainplan can express (the offset below the period, the "
                            "period dividing the %lld layers)",
                            (long long)offset, (long long)period, (long long)m->num_layers);
    for (int64_t i = 0; i < period; i++)
        m->layer_pattern[i] = i == offset ? 'A' : 'S';
    m->layer_pattern[period] = '\0';
    const json_t *types = json_object_get(root, "layers_block_type");
    if (!types || json_is_null(types))
        return TP_OK;
    if (!json_is_array(types) || (int64_t)json_array_size(types) != m->num_layers)
        return tp_error_set(
            err, TP_ERR_CONFIG, "layers_block_type",
            "\"layers_block_type\" must be an array of %lld entries (one per layer)",
            (long long)m->num_layers);
    for (int64_t i = 0; i < m->num_layers; i++) {
        const json_t *t = json_array_get(types, (size_t)i);
        const char *want = tp_layer_char(m, i) == 'A' ? "attention" : "mamba";
        if (!json_is_string(t) || strcmp(json_string_value(t), want) != 0)
            return tp_error_set(err, TP_ERR_CONFIG, "layers_block_type",
                                "\"layers_block_type\"[%lld] must be \"%s\", as "
                                "attn_layer_period and attn_layer_offset say",
                                (long long)i, want);
    }
    return TP_OK;
}

static tp_status jamba_experts(const json_t *root, tp_model *m, tp_error *err)
{
    int64_t experts, topk, period, offset;
    tp_status st;
    if ((st = get_jb(root, "num_experts", 16, 1, TP_MAX_EXPERTS, &experts, err)) != TP_OK ||
        (st = get_jb(root, "num_experts_per_tok", 2, 1, TP_MAX_EXPERTS, &topk, err)) != TP_OK ||
        (st = get_jb(root, "expert_layer_period", 2, 1, TP_MAX_LAYERS, &period, err)) != TP_OK ||
        (st = get_jb(root, "expert_layer_offset", 1, 0, TP_MAX_LAYERS, &offset, err)) != TP_OK)
        return st;
    if (experts <= 1)
        return TP_OK; /* JambaMLP on every layer */
    if (topk > experts || offset >= period)
        return tp_error_set(
            err, TP_ERR_CONFIG, topk > experts ? "num_experts_per_tok" : "expert_layer_offset",
            "\"num_experts_per_tok\" %lld of %lld experts, "
            "\"expert_layer_offset\" %lld of period %lld: the top-k must not "
            "exceed the experts, the offset must be below the period",
            (long long)topk, (long long)experts, (long long)offset, (long long)period);
    m->num_experts = experts;
    m->topk = topk;
    m->moe_first_dense = offset; /* MoE where i % period == offset */
    m->moe_layer_freq = period;
    return TP_OK;
}

tp_status tp_io__hf_jamba_parse(json_t *root, const char *origin, tp_model *out, tp_error *err)
{
    tp_model m;
    memset(&m, 0, sizeof m);
    m.norm = TP_NORM_RMSNORM;
    m.mlp = TP_MLP_SWIGLU;
    m.pos = TP_POS_ROTARY;
    int64_t expand, dconv;
    TRY(tp_io__get_int(root, NULL, "hidden_size", REQUIRED, 1, TP_MAX_DIM, NOTE_JAMBA, &m.hidden,
                       err));
    TRY(tp_io__get_int(root, NULL, "num_hidden_layers", REQUIRED, 1, TP_MAX_LAYERS, NOTE_JAMBA,
                       &m.num_layers, err));
    TRY(tp_io__get_int(root, NULL, "num_attention_heads", REQUIRED, 1, TP_MAX_DIM, NOTE_JAMBA,
                       &m.num_heads, err));
    TRY(tp_io__get_int(root, NULL, "num_key_value_heads", OPTIONAL, 1, TP_MAX_DIM, NOTE_JAMBA,
                       &m.num_kv_heads, err));
    TRY(tp_io__get_int(root, NULL, "intermediate_size", REQUIRED, 1, TP_MAX_FFN, NOTE_JAMBA,
                       &m.ffn_hidden, err));
    TRY(tp_io__get_int(root, NULL, "vocab_size", REQUIRED, 1, TP_MAX_VOCAB, NOTE_JAMBA, &m.vocab,
                       err));
    TRY(tp_io__get_int(root, NULL, "max_position_embeddings", OPTIONAL, 0, TP_MAX_SEQ, NOTE_JAMBA,
                       &m.max_positions, err));
    bool tied = true; /* JambaConfig: tie_word_embeddings default true */
    TRY(tp_io__get_bool(root, "tie_word_embeddings", &tied, err));
    m.tie_embeddings = tied;
    TRY(get_jb(root, "mamba_expand", 2, 1, 64, &expand, err));
    TRY(get_jb(root, "mamba_d_state", 16, 1, TP_MAX_DIM, &m.mamba_state, err));
    TRY(get_jb(root, "mamba_d_conv", 4, 1, 64, &dconv, err));
    m.mamba_conv = dconv;
    m.mamba1_inner = expand * m.hidden;
    TRY(jamba_dt_rank(root, m.hidden, &m.mamba1_dt_rank, err));
    TRY(require_bool_of(root, "jamba", "mamba_conv_bias", true, "trainplan counts the conv1d bias",
                        err));
    TRY(require_bool_of(root, "jamba", "mamba_proj_bias", false,
                        "Mamba-1 projection biases are not modelled", err));
    TRY(jamba_experts(root, &m, err));
    TRY(jamba_pattern(root, &m, err));
    TRY(tp_io__get_real(root, NULL, "rope_theta", 1e-30, 1e12, &m.rope_theta, err));
    TRY(tp_io__get_real(root, NULL, "rms_norm_eps", 1e-30, 0.1, &m.norm_eps, err));
    return tp_io__hf_finish(root, origin, "hf-jamba", &m, out, err);
}

bool tp_io__hf_jamba_reads(const char *key)
{
    static const char *const keys[] = {"model_type",
                                       "architectures",
                                       "hidden_size",
                                       "num_hidden_layers",
                                       "num_attention_heads",
                                       "num_key_value_heads",
                                       "intermediate_size",
                                       "vocab_size",
                                       "max_position_embeddings",
                                       "tie_word_embeddings",
                                       "mamba_expand",
                                       "mamba_d_state",
                                       "mamba_d_conv",
                                       "mamba_dt_rank",
                                       "mamba_conv_bias",
                                       "mamba_proj_bias",
                                       "num_experts",
                                       "num_experts_per_tok",
                                       "expert_layer_period",
                                       "expert_layer_offset",
                                       "attn_layer_period",
                                       "attn_layer_offset",
                                       "layers_block_type",
                                       "rope_theta",
                                       "rms_norm_eps",
                                       NULL};
    return tp_io__key_listed(key, keys);
}
