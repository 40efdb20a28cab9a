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
 *   MLP(f)     = 2*h*f (GeLU, squared ReLU) | 3*h*f (SwiGLU, GeGLU)
 *                (+ f + h | 2f + h biases)
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
 *
 * Design note: the 2024-26 features (issue 16). Extra symbols: c kv_lora_rank,
 * r_q q_lora_rank, d_n qk_nope_head_dim, d_r qk_rope_head_dim, d_v
 * v_head_dim, d_qk = d_n + d_r, w sliding window, s sequence.
 *
 * Multi-head latent attention (DeepSeek-V2 paper, arXiv 2405.04434, section
 * 2.1.2-2.1.3, eq. 9-19; the HF DeepseekV3Attention modules in brackets):
 *   queries  r_q > 0: h*r_q [q_a_proj] + r_q [q_a_layernorm]
 *                     + r_q*a*d_qk [q_b_proj];   r_q = 0: h*a*d_qk [q_proj]
 *   keys/values      h*(c + d_r) [kv_a_proj_with_mqa: latent + shared k_rope]
 *                     + c [kv_a_layernorm] + c*a*(d_n + d_v) [kv_b_proj]
 *   output           a*d_v*h [o_proj]
 *   DeepSeek-V3 (h 7168, a 128, r_q 1536, c 512, d_n 128, d_r 64, d_v 128):
 *   187,107,328 per layer. With its MoE (below) the 61 layers, embedding and
 *   untied head give 671,026,419,200, DeepSeek's published total (test).
 *   GEMM MACs per token equal the weight counts without the two latent norms;
 *   the core is QK^T over d_qk and AV over d_v per head: 2*s*a*(d_qk + d_v)
 *   FLOPs forward (halved causal), as Megatron's num_floating_point_operations
 *   for MLA (its norm "+1" terms are not GEMMs and are left out).
 *   Training activations: the KV compression saves nothing at training time,
 *   because the up-projections materialise full per-head K (a*d_qk) and V
 *   (a*d_v) for the attention kernel (Megatron MLASelfAttention); the stored
 *   tensors are Q, K (a*d_qk), V, O (a*d_v) plus the latents (r_q, c + d_r)
 *   that the up-projections keep as their inputs. The compression matters for
 *   the inference KV cache, which trainplan does not model.
 *   TP split (Megatron-Core MLA layer spec): the down-projections
 *   (q_a, kv_a) and the latent norms are duplicated on every TP rank; the
 *   up-projections are column-parallel and o_proj row-parallel (split t).
 * MoE router: h*E weights, + E bias (gpt-oss router bias; DeepSeek-V3's
 *   e_score_correction_bias, an nn.Parameter in its checkpoint, counted in
 *   the 671B: 58 x 256). The score function (softmax, sigmoid) has no
 *   parameters and no GEMM.
 * Multi-token prediction (DeepSeek-V3 paper, arXiv 2412.19437, section 2.2):
 *   each module = 2 norms (enorm, hnorm) + eh_proj 2h*h + one transformer
 *   layer (MoE when the model has experts) + its output norm; the embedding
 *   and output head are shared with the main model. DeepSeek-V3: 11,610,068,224
 *   per module; the README's "685B = 671B main + 14B MTP" counts the
 *   checkpoint's own copies of the embedding and head as well (+ 2*V*h =
 *   1,853,358,080, 13.46B). p.mtp is part of total (it is trained and held).
 * Attention extras per layer: sinks a (gpt-oss), QK-norm 2*d_h per-head
 *   (Qwen3) or q + kv full-width (OLMo2), biases q + 2kv + h with
 *   attn_out_bias (gpt-oss). LayerNorm without bias: h per norm (DBRX).
 *   norms_per_layer: Gemma 2/3 norm before and after each sublayer (4).
 * Expert load: balanced by default (every expert gets k/E of the tokens);
 *   moe_imbalance scales the routed work and activations of the busiest EP
 *   rank (the one the step waits for), capped by moe_capacity_factor when
 *   tokens are dropped (tp_moe_load). Model FLOPs are unchanged (dropped
 *   tokens are few; the hardware does the busiest rank's work).
 * Sliding window: no parameters; the score work of a local layer is capped
 *   (tp__window_scale): causal keys per query min(i+1, w), summed over i <
 *   s in the continuum convention of the causal s/2: w - w^2/(2s) for w < s
 *   (= s/2 at w = s, so a window of the whole sequence is full attention).
 * Chunked attention (attention_chunk = C, Llama 4): a local layer's token
 *   sees its own chunk's earlier tokens: (n C^2 + r^2) / s^2 of the full
 *   work, n = floor(s/C) chunks and r left over (causal or not: the same
 *   ratio); global_every marks the full-attention layers as for a window.
 * Packed sequences (train.packed_seq_len = N, NeMo's packed SFT through
 *   TransformerEngine's THD format): a sequence of s tokens holds s/N
 *   examples of N tokens, each attending only within itself (NeMo
 *   docs/source/features/throughput_optimizations.rst: the complexity stays
 *   sum_i s_i^2). The score work is s*N instead of s^2 (tp__attn_span); a
 *   window or chunk caps it within the example.
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

bool tp__is_mla(const tp_model *m)
{
    return m->kv_lora_rank > 0;
}

/* MLA: query/key width per head d_qk = d_n + d_r. */
static int64_t mla_qk_head(const tp_model *m)
{
    return m->qk_nope_head_dim + m->qk_rope_head_dim;
}

/* Width of Q (= of K per token under MLA, whose K is per head). */
int64_t tp__q_width(const tp_model *m)
{
    if (tp__is_mla(m))
        return m->num_heads * mla_qk_head(m);
    return m->num_heads * head_dim(m);
}

/* Width of K (= of V); under MLA the mean of K (a*d_qk) and V (a*d_v), so that
 * 2*kv is the K plus V width the memory and CP formulas use. */
int64_t tp__kv_width(const tp_model *m)
{
    if (tp__is_mla(m))
        return m->num_heads * (mla_qk_head(m) + m->v_head_dim) / 2;
    return tp__kv_heads(m) * head_dim(m);
}

/* Width of K plus V per token: 2kv, or a*d_qk + a*d_v under MLA (exact,
 * where 2 * tp__kv_width would round an odd sum down). */
int64_t tp__kv2_width(const tp_model *m)
{
    if (tp__is_mla(m))
        return tp__q_width(m) + m->num_heads * m->v_head_dim;
    return 2 * tp__kv_width(m);
}

/* Width of the attention output (the input of the output projection). */
int64_t tp__v_width(const tp_model *m)
{
    if (tp__is_mla(m))
        return m->num_heads * m->v_head_dim;
    return tp__q_width(m);
}

/* Multiply-adds per token of the attention projections (weights only). */
int64_t tp__attn_proj_macs(const tp_model *m)
{
    int64_t h = m->hidden, a = m->num_heads;
    if (!tp__is_mla(m)) {
        int64_t q = tp__q_width(m), kv = tp__kv_width(m);
        /* an output gate (Qwen3-Next) doubles q_proj: queries and gates */
        return h * q + 2 * h * kv + q * h + (m->attn_output_gate ? h * q : 0);
    }
    int64_t rq = m->q_lora_rank, c = m->kv_lora_rank, dqk = mla_qk_head(m);
    int64_t qm = rq > 0 ? h * rq + rq * a * dqk : h * a * dqk;
    return qm + h * (c + m->qk_rope_head_dim) + c * a * (m->qk_nope_head_dim + m->v_head_dim) +
           a * m->v_head_dim * h;
}

/* Of the attention's multiply-adds per token, those every TP rank repeats
 * (MLA's down-projections, duplicated in Megatron-Core). */
int64_t tp__attn_replicated_macs(const tp_model *m)
{
    if (!tp__is_mla(m))
        return 0;
    return m->hidden * (m->q_lora_rank + m->kv_lora_rank + m->qk_rope_head_dim);
}

static int64_t norm_width_params(const tp_model *m, int64_t width)
{
    return (m->norm == TP_NORM_LAYERNORM && !m->norm_no_bias) ? 2 * width : width;
}

/* Attention weights every TP rank holds whole: MLA's down-projections and
 * latent norms, per-head QK-norm weights. */
int64_t tp__attn_replicated_params(const tp_model *m)
{
    int64_t w = tp__attn_replicated_macs(m);
    if (tp__is_mla(m))
        w += norm_width_params(m, m->q_lora_rank) + norm_width_params(m, m->kv_lora_rank);
    if (m->qk_norm == TP_QK_NORM_HEAD)
        w += 2 * norm_width_params(m, head_dim(m));
    return w;
}

/* Layers with full attention when a window is set. */
int64_t tp__global_attn_layers(const tp_model *m)
{
    if (m->sliding_window <= 0 && m->attention_chunk <= 0)
        return m->num_layers;
    return m->global_every > 0 ? m->num_layers / m->global_every : 0;
}

/* A chunked layer's score work over full attention's: n = floor(s/C) whole
 * chunks and a remainder r, each causal (or not) within itself, in the
 * continuum convention: (n C^2 + r^2) / s^2 either way (1 when C >= s). */
static double chunk_scale(const tp_model *m, double s)
{
    double C = (double)m->attention_chunk;
    if (!(C < s) || m->num_layers <= 0)
        return 1.0;
    double n = floor(s / C), r = s - n * C;
    double local = (n * C * C + r * r) / (s * s);
    double L = (double)m->num_layers, G = (double)tp__global_attn_layers(m);
    return (G + (L - G) * local) / L;
}

double tp__window_scale(const tp_model *m, double s, bool causal)
{
    if (m->attention_chunk > 0)
        return chunk_scale(m, s);
    double w = (double)m->sliding_window;
    if (m->sliding_window <= 0 || !(w < s) || m->num_layers <= 0)
        return 1.0;
    double local = causal ? (w - w * w / (2.0 * s)) / (s / 2.0) : w / s;
    double L = (double)m->num_layers, G = (double)tp__global_attn_layers(m);
    return (G + (L - G) * local) / L;
}

double tp__attn_span(const tp_train *t)
{
    return t->packed_seq_len > 0 ? (double)t->packed_seq_len : (double)t->seq_len;
}

int64_t tp__padded_vocab(int64_t vocab, int64_t pad)
{
    return tp_padded_vocab(vocab, pad);
}

int64_t tp__mlp_params(const tp_model *m, int64_t f)
{
    int64_t h = m->hidden;
    if (tp_mlp_gated(m->mlp))
        return 3 * h * f + (m->linear_bias ? 2 * f + h : 0);
    return 2 * h * f + (m->linear_bias ? f + h : 0);
}

static int64_t attention_params(const tp_model *m)
{
    int64_t h = m->hidden, q = tp__q_width(m), kv = tp__kv_width(m);
    int64_t w = tp__attn_proj_macs(m);
    if (tp__is_mla(m))
        w += norm_width_params(m, m->q_lora_rank) + norm_width_params(m, m->kv_lora_rank);
    if (m->linear_bias || m->attn_out_bias)
        w += q + 2 * kv + h;
    else if (m->qkv_bias)
        w += q + 2 * kv;
    if (m->qk_norm == TP_QK_NORM_HEAD)
        w += 2 * norm_width_params(m, head_dim(m));
    else if (m->qk_norm == TP_QK_NORM_FULL)
        w += norm_width_params(m, q) + norm_width_params(m, kv);
    if (m->attn_sinks)
        w += m->num_heads;
    return w;
}

int64_t tp__attention_params(const tp_model *m)
{
    return attention_params(m);
}

static int64_t norm_params(const tp_model *m)
{
    return norm_width_params(m, m->hidden);
}

int64_t tp__norm_params(const tp_model *m)
{
    return norm_params(m);
}

int64_t tp__layer_norms(const tp_model *m)
{
    return m->norms_per_layer > 0 ? m->norms_per_layer : 2;
}

int64_t tp__router_params(const tp_model *m)
{
    return m->hidden * m->num_experts + (m->router_bias ? m->num_experts : 0) +
           (m->shared_expert_gate ? m->hidden : 0);
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
    if (m->num_experts <= 0)
        return 0;
    if (m->layer_pattern[0] && tp__is_hybrid(m)) /* the pattern decides (hybrid.c) */
        return tp__hybrid_moe_below(m, n);
    if (n <= m->moe_first_dense)
        return 0;
    if (m->moe_layer_freq <= 1) /* every layer after the dense ones (no division) */
        return n - m->moe_first_dense;
    int64_t freq = m->moe_layer_freq;
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

/* A real field of the model: finite and in [lo, hi] (NaN fails both tests). */
#define CHECK_REAL(field, path, lo, hi)                                                            \
    do {                                                                                           \
        if (!((field) >= (lo) && (field) <= (hi)))                                                 \
            return tp_error_set(err, TP_ERR_INVALID_ARG, path, "%g is out of range [%g, %g]",      \
                                (double)(field), (double)(lo), (double)(hi));                      \
    } while (0)

/* The fields the engines need to build the same model (0 = not recorded). */
static tp_status validate_rope_norm(const tp_model *m, tp_error *err)
{
    CHECK_REAL(m->rope_theta, "model.rope_theta", 0.0, 1e12);
    CHECK_REAL(m->norm_eps, "model.norm_eps", 0.0, 0.1);
    if ((int)m->rope_scaling < 0 || m->rope_scaling > TP_ROPE_SCALING_OTHER)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.rope_scaling",
                            "invalid rope scaling kind");
    CHECK_REAL(m->rope_factor, "model.rope_factor", 0.0, 1e6);
    CHECK_REAL(m->rope_low_freq_factor, "model.rope_low_freq_factor", 0.0, 1e6);
    CHECK_REAL(m->rope_high_freq_factor, "model.rope_high_freq_factor", 0.0, 1e6);
    TP__CHECK_RANGE(m->rope_original_max, "model.rope_original_max", 0, TP_MAX_SEQ);
    return TP_OK;
}

/* Group-limited routing (DeepSeek-V3 n_group / topk_group; Megatron-Core
 * --moe-router-num-groups / --moe-router-group-topk): equal groups of
 * experts, and enough experts in the chosen groups for the top-k. */
static tp_status validate_router_groups(const tp_model *m, tp_error *err)
{
    int64_t g = m->moe_router_groups, gk = m->moe_group_topk;
    TP__CHECK_RANGE(g, "model.moe_router_groups", 0, TP_MAX_EXPERTS);
    TP__CHECK_RANGE(gk, "model.moe_router_group_topk", 0, TP_MAX_EXPERTS);
    if (g == 0 && gk == 0)
        return TP_OK;
    if (g == 0 || gk == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG,
                            g == 0 ? "model.moe_router_groups" : "model.moe_router_group_topk",
                            "group-limited routing needs both the groups and the groups per "
                            "token (got %lld and %lld)",
                            (long long)g, (long long)gk);
    if (m->num_experts <= 0 || m->num_experts % g != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.moe_router_groups",
                            "%lld groups do not split the %lld experts evenly", (long long)g,
                            (long long)m->num_experts);
    if (gk > g)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.moe_router_group_topk",
                            "%lld groups per token is more than the %lld groups", (long long)gk,
                            (long long)g);
    if (gk * (m->num_experts / g) < m->topk)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.moe_router_group_topk",
                            "the top-%lld experts do not fit in %lld of the %lld groups (%lld "
                            "experts each)",
                            (long long)m->topk, (long long)gk, (long long)g,
                            (long long)(m->num_experts / g));
    return TP_OK;
}

/* The issue-16 fields: ranges, and the combinations trainplan cannot count. */
static tp_status validate_features(const tp_model *m, tp_error *err)
{
    TP__CHECK_RANGE(m->kv_lora_rank, "model.kv_lora_rank", 0, TP_MAX_DIM);
    TP__CHECK_RANGE(m->q_lora_rank, "model.q_lora_rank", 0, TP_MAX_DIM);
    TP__CHECK_RANGE(m->qk_rope_head_dim, "model.qk_rope_head_dim", 0, TP_MAX_DIM);
    TP__CHECK_RANGE(m->qk_nope_head_dim, "model.qk_nope_head_dim", 0, TP_MAX_DIM);
    TP__CHECK_RANGE(m->v_head_dim, "model.v_head_dim", 0, TP_MAX_DIM);
    TP__CHECK_RANGE(m->mtp_layers, "model.mtp_layers", 0, TP_MAX_LAYERS);
    TP__CHECK_RANGE(m->norms_per_layer, "model.norms_per_layer", 0, 8);
    TP__CHECK_RANGE(m->sliding_window, "model.sliding_window", 0, TP_MAX_SEQ);
    TP__CHECK_RANGE(m->global_every, "model.global_every", 0, m->num_layers);
    if (!(fpclassify(m->moe_imbalance) == FP_ZERO ||
          (m->moe_imbalance >= 1.0 && m->moe_imbalance <= 1e3)))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.moe_imbalance",
                            "%g is not a load imbalance: 0 (balanced) or [1, 1000], the busiest "
                            "rank's routed tokens over the mean",
                            m->moe_imbalance);
    if (!(fpclassify(m->moe_capacity_factor) == FP_ZERO ||
          (m->moe_capacity_factor >= 0.01 && m->moe_capacity_factor <= 1e3)))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.moe_capacity_factor",
                            "%g is not a capacity factor: 0 (dropless) or [0.01, 1000]",
                            m->moe_capacity_factor);
    tp_status st = validate_router_groups(m, err);
    if (st != TP_OK)
        return st;
    if ((int)m->qk_norm < 0 || m->qk_norm > TP_QK_NORM_FULL)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.qk_norm",
                            "%d is not a QK-norm kind (none, head, full)", (int)m->qk_norm);
    TP__CHECK_RANGE(m->attention_chunk, "model.attention_chunk", 0, TP_MAX_SEQ);
    if (m->attention_chunk > 0 && m->sliding_window > 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.attention_chunk",
                            "chunked attention and a sliding window (%lld) cannot both be set",
                            (long long)m->sliding_window);
    if (m->global_every > 0 && m->sliding_window == 0 && m->attention_chunk == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.global_every",
                            "global_every %lld needs a sliding_window or an attention_chunk "
                            "(both are 0)",
                            (long long)m->global_every);
    if (!tp__is_mla(m)) {
        if (m->q_lora_rank || m->qk_rope_head_dim || m->qk_nope_head_dim || m->v_head_dim)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "model.kv_lora_rank",
                                "multi-latent attention dims are given but kv_lora_rank is 0 "
                                "(MLA needs kv_lora_rank > 0)");
        return TP_OK;
    }
    if (m->qk_nope_head_dim + m->qk_rope_head_dim < 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.qk_nope_head_dim",
                            "multi-latent attention needs qk_nope_head_dim + qk_rope_head_dim "
                            ">= 1 (both are 0)");
    if (m->v_head_dim < 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.v_head_dim",
                            "multi-latent attention needs v_head_dim >= 1 (it is 0)");
    if (m->num_kv_heads > 0 && m->num_kv_heads != m->num_heads)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.num_kv_heads",
                            "%lld kv heads with multi-latent attention: MLA has per-head keys and "
                            "values (leave kv heads unset or equal to the %lld heads)",
                            (long long)m->num_kv_heads, (long long)m->num_heads);
    if (m->linear_bias || m->qkv_bias || m->attn_out_bias || m->qk_norm != TP_QK_NORM_NONE ||
        m->attn_sinks)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.kv_lora_rank",
                            "multi-latent attention with attention biases, QK-norm or sinks "
                            "cannot be counted (DeepSeek's MLA has none)");
    return TP_OK;
}

tp_status tp_model_validate(const tp_model *m, tp_error *err)
{
    if (!m)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model", "no model given");
    TP__CHECK_RANGE(m->num_layers, "model.num_layers", 1, TP_MAX_LAYERS);
    TP__CHECK_RANGE(m->hidden, "model.hidden", 1, TP_MAX_DIM);
    TP__CHECK_RANGE(m->num_heads, "model.num_heads", 1, m->hidden);
    TP__CHECK_RANGE(m->num_kv_heads, "model.num_kv_heads", 0, m->num_heads);
    TP__CHECK_RANGE(m->head_dim, "model.head_dim", 0, TP_MAX_DIM);
    TP__CHECK_RANGE(m->ffn_hidden, "model.ffn_hidden", 1, TP_MAX_FFN);
    TP__CHECK_RANGE(m->vocab, "model.vocab", 1, TP_MAX_VOCAB);
    TP__CHECK_RANGE(m->max_positions, "model.max_positions", 0, TP_MAX_SEQ);
    TP__CHECK_RANGE(m->num_experts, "model.num_experts", 0, TP_MAX_EXPERTS);
    if (m->head_dim == 0 && !tp__is_mla(m) && m->hidden % m->num_heads != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.num_heads",
                            "%lld heads do not divide hidden size %lld (set the head dimension)",
                            (long long)m->num_heads, (long long)m->hidden);
    if (m->num_kv_heads > 0 && m->num_heads % m->num_kv_heads != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.num_kv_heads",
                            "%lld kv heads do not divide %lld attention heads",
                            (long long)m->num_kv_heads, (long long)m->num_heads);
    if (m->num_experts > 0) {
        TP__CHECK_RANGE(m->topk, "model.topk", 1, m->num_experts);
        TP__CHECK_RANGE(m->moe_ffn_hidden, "model.moe_ffn_hidden", 0, TP_MAX_FFN);
        TP__CHECK_RANGE(m->num_shared_experts, "model.num_shared_experts", 0, TP_MAX_EXPERTS);
        TP__CHECK_RANGE(m->shared_ffn_hidden, "model.shared_ffn_hidden", 0, TP_MAX_FFN);
        TP__CHECK_RANGE(m->moe_first_dense, "model.moe_first_dense", 0, m->num_layers);
        TP__CHECK_RANGE(m->moe_layer_freq, "model.moe_layer_freq", 0, m->num_layers);
    } else if (m->topk != 0 || m->num_shared_experts != 0) {
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.num_experts",
                            "topk and shared experts need a mixture-of-experts model "
                            "(experts is 0)");
    }
    tp_status st = validate_features(m, err);
    if (st == TP_OK)
        st = tp__hybrid_validate(m, err);
    if (st != TP_OK)
        return st;
    if ((int)m->norm < 0 || m->norm > TP_NORM_RMSNORM || (int)m->mlp < 0 || m->mlp > TP_MLP_GEGLU ||
        (int)m->pos < 0 || m->pos > TP_POS_ALIBI)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model", "invalid norm, mlp or position kind");
    st = validate_rope_norm(m, err);
    if (st != TP_OK)
        return st;
    st = tp__vision_validate(m, err);
    if (st != TP_OK)
        return st;

    /* Bound the total in floating point before any int64 product can overflow. */
    double h = (double)m->hidden, L = (double)m->num_layers;
    double q = (double)tp__q_width(m), kv = (double)tp__kv_width(m);
    if (tp__is_mla(m)) {
        /* bound the MLA products in floating point before any int64 one */
        double a = (double)m->num_heads, rq = (double)m->q_lora_rank;
        double c = (double)m->kv_lora_rank, dr = (double)m->qk_rope_head_dim;
        double dqk = (double)m->qk_nope_head_dim + dr, dv = (double)m->v_head_dim;
        double mla = h * rq + rq * a * dqk + h * a * dqk + h * (c + dr) +
                     c * a * ((double)m->qk_nope_head_dim + dv) + a * dv * h;
        q = mla / (2.0 * h); /* 2*h*q below stands for the MLA weights */
        kv = 0.0;
    }
    double fw = tp_mlp_gated(m->mlp) ? 3.0 : 2.0;
    double fe = (double)tp_expert_ffn_hidden(m);
    double fsh = (double)m->shared_ffn_hidden + (double)m->num_shared_experts * fe;
    double per_layer = 2.0 * h * q + 2.0 * h * kv + fw * h * (double)m->ffn_hidden +
                       fw * h * fe * (double)m->num_experts + fw * h * fsh;
    double approx = L * per_layer + (double)m->mtp_layers * (per_layer + 2.0 * h * h) +
                    2.0 * (double)m->vocab * h + (double)m->max_positions * h +
                    tp__vision_params_approx(m) + tp__hybrid_mixer_bound(m);
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
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.pad_vocab_to",
                            "%lld is out of range [0, %d]", (long long)pad_vocab_to, TP_MAX_VOCAB);
    tp__model_params(m, pad_vocab_to, out);
    return TP_OK;
}

void tp__model_params(const tp_model *m, int64_t pad_vocab_to, tp_params *out)
{
    int64_t h = m->hidden, V = tp__padded_vocab(m->vocab, pad_vocab_to);
    int64_t L = m->num_layers, L_moe = tp_model_num_moe_layers(m), L_dense = L - L_moe;
    int64_t attn = attention_params(m), norms = tp__layer_norms(m) * norm_params(m);
    int64_t dense_mlp = tp__mlp_params(m, m->ffn_hidden);
    int64_t E = m->num_experts, k = m->topk;
    int64_t expert = E > 0 ? tp__mlp_params(m, tp_expert_ffn_hidden(m)) : 0;
    int64_t shared = (E > 0 && shared_width(m) > 0) ? tp__mlp_params(m, shared_width(m)) : 0;
    int64_t router = E > 0 ? tp__router_params(m) : 0;

    tp_params p = {0};
    p.embedding = V * h + (m->pos == TP_POS_LEARNED ? m->max_positions * h : 0);
    p.output_head = m->tie_embeddings ? 0 : V * h;
    p.attention = L * attn;
    p.mlp_dense = L_dense * dense_mlp;
    p.moe_routed = L_moe * E * expert;
    p.moe_shared = L_moe * shared;
    p.router = L_moe * router;
    p.norms = L * norms + norm_params(m);
    p.per_layer_dense = attn + dense_mlp + norms;
    p.per_layer_moe = E > 0 ? attn + E * expert + shared + router + norms : 0;
    p.num_moe_layers = L_moe;
    if (tp__is_hybrid(m)) { /* per layer kind (hybrid.c) */
        p.attention = p.mlp_dense = p.moe_routed = p.moe_shared = p.router = 0;
        p.norms = norm_params(m);
        p.num_moe_layers = 0;
        tp__hybrid_params(m, attn, dense_mlp, expert, shared, router, &p);
    }
    /* MTP modules: enorm, hnorm, eh_proj 2h*h, one layer, an output norm. */
    int64_t mtp_layer = E > 0 ? p.per_layer_moe : p.per_layer_dense;
    p.mtp = m->mtp_layers * (2 * h * h + 3 * norm_params(m) + mtp_layer);
    p.mtp_routed = E > 0 ? m->mtp_layers * E * expert : 0;
    p.total = p.embedding + p.output_head + p.attention + p.mlp_dense + p.moe_routed +
              p.moe_shared + p.router + p.norms + p.mtp + p.mixers;
    p.active = p.total - (L_moe + (E > 0 ? m->mtp_layers : 0)) * (E - k) * expert;
    if (tp__has_vision(m)) {
        tp__vision_params(m, &p);
        p.total += p.vision + p.vision_projector + p.vision_text;
        p.active += p.vision + p.vision_projector + p.vision_text;
    }
    *out = p;
}
