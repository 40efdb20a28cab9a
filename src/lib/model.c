/* SPDX-License-Identifier: MIT */
/*
 * model.c: exact parameter counts of decoder-only transformers.
 *
 * Symbols: V vocabulary, h hidden, L layers, a heads, n_kv kv heads,
 * d_h head dim, q = a*d_h, kv = n_kv*d_h, f MLP width, E experts, k top-k,
 * f_e expert width, f_sh shared-expert width, S_max learned positions.
 *
 * Equations (formulas.md section 1; [NUM]-checked against published counts):
 *   attention  = h*q + 2*h*kv + q*h            (+ q + 2kv + h biases, GPT;
 *                                               + q + 2kv, Qwen2 qkv_bias)
 *   MLP(f)     = 2*h*f (GeLU) | 3*h*f (SwiGLU) (+ f + h | 2f + h biases)
 *   norms      = 2 per layer, h (RMSNorm) or 2h (LayerNorm, weight + bias)
 *   MoE layer  = attention + E*MLP(f_e) + MLP(f_sh) + h*E router + norms
 *   N = V*h [+ S_max*h] + L_dense*(dense layer) + L_moe*(MoE layer)
 *       + final norm [+ V*h untied head]
 *   active: routed experts count k of E.
 * Checks: GPT-3 175B 174,604,259,328; Llama-3-8B 8,030,261,248; Mixtral
 * 8x7B 46,702,792,704 total / 12,879,925,248 active (tests/unit).
 *
 * Invariants: every component >= 0; total = sum of components;
 * active <= total; all products are int64 and bounded by validation
 * (TP_MAX_* in tp.h) so none overflows.
 */
#include <math.h>

#include "internal.h"

int64_t tp__kv_heads(const tp_model *m)
{
    return tp_kv_heads(m);
}

static int64_t head_dim(const tp_model *m)
{
    return tp_head_dim(m);
}

int64_t tp__q_width(const tp_model *m)
{
    return m->num_heads * head_dim(m);
}

int64_t tp__kv_width(const tp_model *m)
{
    return tp__kv_heads(m) * head_dim(m);
}

int64_t tp__padded_vocab(int64_t vocab, int64_t pad)
{
    return tp_padded_vocab(vocab, pad);
}

int64_t tp__mlp_params(const tp_model *m, int64_t f)
{
    int64_t h = m->hidden;
    if (m->mlp == TP_MLP_SWIGLU)
        return 3 * h * f + (m->linear_bias ? 2 * f + h : 0);
    return 2 * h * f + (m->linear_bias ? f + h : 0);
}

static int64_t attention_params(const tp_model *m)
{
    int64_t h = m->hidden, q = tp__q_width(m), kv = tp__kv_width(m);
    int64_t w = h * q + 2 * h * kv + q * h;
    if (m->linear_bias)
        w += q + 2 * kv + h;
    else if (m->qkv_bias)
        w += q + 2 * kv;
    return w;
}

static int64_t norm_params(const tp_model *m)
{
    return m->norm == TP_NORM_LAYERNORM ? 2 * m->hidden : m->hidden;
}

static int64_t shared_width(const tp_model *m)
{
    return tp_shared_ffn_hidden(m);
}

bool tp__layer_is_moe(const tp_model *m, int64_t i)
{
    return tp_layer_is_moe(m, i);
}

/* Closed form of the count of MoE layers with index < n. */
static int64_t moe_layers_below(const tp_model *m, int64_t n)
{
    if (m->num_experts <= 0 || n <= m->moe_first_dense)
        return 0;
    int64_t freq = m->moe_layer_freq > 1 ? m->moe_layer_freq : 1;
    return (n - m->moe_first_dense + freq - 1) / freq;
}

int64_t tp__moe_layers_in(const tp_model *m, int64_t first, int64_t n)
{
    return moe_layers_below(m, first + n) - moe_layers_below(m, first);
}

int64_t tp_model_num_moe_layers(const tp_model *m)
{
    return moe_layers_below(m, m->num_layers);
}

#define CHECK_RANGE(field, path, lo, hi)                                                           \
    do {                                                                                           \
        if ((field) < (lo) || (field) > (hi))                                                      \
            return tp_error_set(err, TP_ERR_INVALID_ARG, path,                                     \
                                "%lld is out of range [%lld, %lld]", (long long)(field),           \
                                (long long)(lo), (long long)(hi));                                 \
    } while (0)

/* A real field of the model: finite and in [lo, hi] (NaN fails both tests). */
#define CHECK_REAL(field, path, lo, hi)                                                            \
    do {                                                                                           \
        if (!((field) >= (lo) && (field) <= (hi)))                                                 \
            return tp_error_set(err, TP_ERR_INVALID_ARG, path, "%g is out of range [%g, %g]",    \
                                (double)(field), (double)(lo), (double)(hi));                      \
    } while (0)

/* The fields the engines need to build the same model (0 = not recorded). */
static tp_status validate_rope_norm(const tp_model *m, tp_error *err)
{
    CHECK_REAL(m->rope_theta, "rope-theta", 0.0, 1e12);
    CHECK_REAL(m->norm_eps, "norm-eps", 0.0, 0.1);
    if ((int)m->rope_scaling < 0 || m->rope_scaling > TP_ROPE_SCALING_OTHER)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "rope-scaling", "invalid rope scaling kind");
    CHECK_REAL(m->rope_factor, "rope-factor", 0.0, 1e6);
    CHECK_REAL(m->rope_low_freq_factor, "rope-low-freq-factor", 0.0, 1e6);
    CHECK_REAL(m->rope_high_freq_factor, "rope-high-freq-factor", 0.0, 1e6);
    CHECK_RANGE(m->rope_original_max, "rope-original-max", 0, TP_MAX_SEQ);
    return TP_OK;
}

tp_status tp_model_validate(const tp_model *m, tp_error *err)
{
    if (!m)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model", "no model given");
    CHECK_RANGE(m->num_layers, "model.num_layers", 1, TP_MAX_LAYERS);
    CHECK_RANGE(m->hidden, "model.hidden", 1, TP_MAX_DIM);
    CHECK_RANGE(m->num_heads, "model.num_heads", 1, m->hidden);
    CHECK_RANGE(m->num_kv_heads, "model.num_kv_heads", 0, m->num_heads);
    CHECK_RANGE(m->head_dim, "model.head_dim", 0, TP_MAX_DIM);
    CHECK_RANGE(m->ffn_hidden, "model.ffn_hidden", 1, TP_MAX_FFN);
    CHECK_RANGE(m->vocab, "model.vocab", 1, TP_MAX_VOCAB);
    CHECK_RANGE(m->max_positions, "model.max_positions", 0, TP_MAX_SEQ);
    CHECK_RANGE(m->num_experts, "model.num_experts", 0, TP_MAX_EXPERTS);
    if (m->head_dim == 0 && m->hidden % m->num_heads != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.num_heads",
                            "%lld heads do not divide hidden size %lld (set the head dimension)",
                            (long long)m->num_heads, (long long)m->hidden);
    if (m->num_kv_heads > 0 && m->num_heads % m->num_kv_heads != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.num_kv_heads",
                            "%lld kv heads do not divide %lld attention heads",
                            (long long)m->num_kv_heads, (long long)m->num_heads);
    if (m->num_experts > 0) {
        CHECK_RANGE(m->topk, "model.topk", 1, m->num_experts);
        CHECK_RANGE(m->moe_ffn_hidden, "model.moe_ffn_hidden", 0, TP_MAX_FFN);
        CHECK_RANGE(m->num_shared_experts, "model.num_shared_experts", 0, TP_MAX_EXPERTS);
        CHECK_RANGE(m->shared_ffn_hidden, "model.shared_ffn_hidden", 0, TP_MAX_FFN);
        CHECK_RANGE(m->moe_first_dense, "model.moe_first_dense", 0, m->num_layers);
        CHECK_RANGE(m->moe_layer_freq, "model.moe_layer_freq", 0, m->num_layers);
    } else if (m->topk != 0 || m->num_shared_experts != 0) {
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.num_experts",
                            "topk and shared experts need a mixture-of-experts model "
                            "(experts is 0)");
    }
    if ((int)m->norm < 0 || m->norm > TP_NORM_RMSNORM || (int)m->mlp < 0 ||
        m->mlp > TP_MLP_SWIGLU || (int)m->pos < 0 || m->pos > TP_POS_ALIBI)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model", "invalid norm, mlp or position kind");
    tp_status st = validate_rope_norm(m, err);
    if (st != TP_OK)
        return st;

    /* Bound the total in floating point before any int64 product can overflow. */
    double h = (double)m->hidden, L = (double)m->num_layers;
    double q = (double)tp__q_width(m), kv = (double)tp__kv_width(m);
    double fw = m->mlp == TP_MLP_SWIGLU ? 3.0 : 2.0;
    double fe = (double)tp_expert_ffn_hidden(m);
    double fsh = (double)m->shared_ffn_hidden + (double)m->num_shared_experts * fe;
    double per_layer = 2.0 * h * q + 2.0 * h * kv + fw * h * (double)m->ffn_hidden +
                       fw * h * fe * (double)m->num_experts + fw * h * fsh;
    double approx = L * per_layer + 2.0 * (double)m->vocab * h + (double)m->max_positions * h;
    if (approx > TP_MAX_PARAMS)
        return tp_error_set(err, TP_ERR_RANGE, "model",
                            "the model would have about %.3g parameters, more than the %.0e "
                            "supported",
                            approx, TP_MAX_PARAMS);
    return TP_OK;
}

tp_status tp_model_params(const tp_model *m, int64_t pad_vocab_to, tp_params *out, tp_error *err)
{
    tp_status st = tp_model_validate(m, err);
    if (st != TP_OK)
        return st;
    if (pad_vocab_to < 0 || pad_vocab_to > TP_MAX_VOCAB)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.pad_vocab_to", "%lld is out of range [0, %d]",
                            (long long)pad_vocab_to, TP_MAX_VOCAB);

    int64_t h = m->hidden, V = tp__padded_vocab(m->vocab, pad_vocab_to);
    int64_t L = m->num_layers, L_moe = tp_model_num_moe_layers(m), L_dense = L - L_moe;
    int64_t attn = attention_params(m), norms = 2 * norm_params(m);
    int64_t dense_mlp = tp__mlp_params(m, m->ffn_hidden);
    int64_t E = m->num_experts, k = m->topk;
    int64_t expert = E > 0 ? tp__mlp_params(m, tp_expert_ffn_hidden(m)) : 0;
    int64_t shared = (E > 0 && shared_width(m) > 0) ? tp__mlp_params(m, shared_width(m)) : 0;
    int64_t router = h * E;

    tp_params p = {0};
    p.embedding = V * h + (m->pos == TP_POS_LEARNED ? m->max_positions * h : 0);
    p.output_head = m->tie_embeddings ? 0 : V * h;
    p.attention = L * attn;
    p.mlp_dense = L_dense * dense_mlp;
    p.moe_routed = L_moe * E * expert;
    p.moe_shared = L_moe * shared;
    p.router = L_moe * router;
    p.norms = L * norms + norm_params(m);
    p.total = p.embedding + p.output_head + p.attention + p.mlp_dense + p.moe_routed +
              p.moe_shared + p.router + p.norms;
    p.active = p.total - L_moe * (E - k) * expert;
    p.per_layer_dense = attn + dense_mlp + norms;
    p.per_layer_moe = E > 0 ? attn + E * expert + shared + router + norms : 0;
    p.num_moe_layers = L_moe;
    *out = p;
    return TP_OK;
}
