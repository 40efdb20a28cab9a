/* SPDX-License-Identifier: MIT */
/*
 * hybrid.c: hybrid models, Mamba-2, Mamba-1 and gated delta-net layers mixed
 * with attention by an explicit per-layer pattern (Nemotron-H, Jamba,
 * Qwen3-Next).
 *
 * The pattern (tp_model.layer_pattern) has one character per layer,
 * repeated when it is shorter (its length divides num_layers):
 *   'A'  attention + MLP, the transformer layer (two norms)
 *   'L'  linear attention (gated delta-net) + MLP (two norms), Qwen3-Next's
 *   'S'  Mamba-1 (selective scan, S6) + MLP (two norms), Jamba's
 *        The MLP of 'A', 'L' and 'S' is MoE where tp_layer_is_moe's rule says.
 *   'M', 'G', '*', '-', 'E'  Megatron-Core's hybrid symbols
 *        (megatron/core/models/hybrid/hybrid_layer_allocation.py Symbols):
 *        one sublayer each, behind one pre-norm: Mamba-2, gated delta-net,
 *        attention, MLP, MoE. (Megatron's 'D' DeepSeek sparse attention and
 *        '+' MLA layers, its '|' pipeline and '/' MTP separators are not
 *        read.)
 * A pattern of 'A' alone is the transformer (tp__is_hybrid is false, every
 * computation takes the transformer path: byte-identical, tested).
 *
 * Symbols: h hidden, n_m Mamba heads, P Mamba head dim, d_in = n_m * P,
 * n_g groups, N state size, k conv width, Q chunk, T tokens per GPU;
 * gated delta-net n_k key heads, n_v value heads, d_k, d_v their dims,
 * K = n_k*d_k, W = n_v*d_v.
 *
 * Mamba-2 mixer (Dao & Gu 2024, arXiv 2405.21060; the HF NemotronHMamba2Mixer
 * and mamba_ssm Mamba2 modules in brackets), no biases on the projections:
 *   in_proj    h * (2*d_in + 2*n_g*N + n_m)   [z, x, B, C, dt]
 *   conv1d     (d_in + 2*n_g*N) * (k + 1)     [depthwise over x, B, C; bias]
 *   dt_bias, A_log, D   3 * n_m
 *   norm       d_in                            [gated RMSNorm, weight only]
 *   out_proj   d_in * h
 *   plus the layer's pre-norm h.
 *   Nemotron-H-8B (h 4096, n_m 128, P 64, n_g 8, N 128, k 4):
 *   in_proj 4096*18560 = 76,021,760, conv 10240*5 = 51,200, 384, norm 8,192,
 *   out_proj 33,554,432: 109,635,968 per mixer. With its 24 'M', 4 '*'
 *   (41,943,040 each: GQA 32/8 heads of 128) and 24 '-' layers (squared-ReLU
 *   MLP of 21504: 176,160,768), one norm of 4096 per layer and the final one,
 *   the untied 131072 x 4096 embedding and head: 8,100,852,736 (test; the
 *   released checkpoint's parameters as a public enumeration sums them,
 *   tests/data/hf/nemotron-h-8b/SOURCE).
 * Mamba-1 mixer (Gu & Dao 2023, arXiv 2312.00752; HF JambaMambaMixer), d_in
 * = mamba1_inner, r = mamba1_dt_rank, N = mamba_state, k = mamba_conv:
 *   in_proj h*2*d_in, conv1d d_in*(k + 1), x_proj d_in*(r + 2N), dt_proj
 *   r*d_in + d_in (bias), A_log d_in*N, D d_in, out_proj d_in*h, and Jamba's
 *   RMSNorms on dt, B and C: r + 2N. Jamba-v0.1 / 1.5 Mini (h 4096, d_in
 *   8192, r 256, N 16, k 4): 105,308,448 per mixer; with 4 attention
 *   layers (period 8, offset 4), 16 dense SwiGLU MLPs of 14336 and 16 MoE
 *   layers of 16 such experts (top 2; MoE period 2, offset 1), 65536 x 4096
 *   untied: 51,570,323,328 total, 12,110,311,296 active (AI21: 52B total,
 *   12B active; test). FLOPs per token: the four projections (2 per
 *   multiply-add) + 7*d_in*N for the selective scan (as Mamba-2's), the
 *   discretised A and B, the state update and C's read-out per state
 *   element. TP: d_in split t ways (t divides it; Jamba's norms whole),
 *   plus an all-reduce of x_proj's r + 2N outputs each way (row-parallel
 *   x_proj, as vLLM's Jamba); CP of Mamba-1 layers is refused.
 * Gated delta-net (Yang et al. 2024, arXiv 2412.06464; HF Qwen3NextGatedDeltaNet):
 *   in_proj_qkvz h*(2K + 2W), in_proj_ba h*2n_v, conv1d (2K + W)*k (no bias),
 *   dt_bias and A_log 2*n_v, norm d_v (gated RMSNorm shared by the heads),
 *   out_proj W*h. Qwen3-Next-80B (h 2048, n_k 16, n_v 32, d_k = d_v = 128,
 *   k 4): 25,165,824 + 131,072 + 32,768 + 64 + 128 + 8,388,608 = 33,718,464.
 *
 * FLOPs per token forward (2 per multiply-add), Megatron-LM's
 * num_floating_point_operations for hybrid models (training.py,
 * mamba_layer_flops and gdn_layer_flops), with d_in from the heads instead
 * of Megatron's fixed 2h:
 *   Mamba-2   2*h*(2*d_in + 2*n_g*N + n_m) + 7*d_in*N (the SSD scan) + 2*d_in*h
 *   GDN       2*(h*(2K + 2W + 2n_v) + k*(2K + W) + 4*n_v*d_k*d_v + W*h)
 *             (Megatron writes 4*n_v*d_v^2: the same for d_k = d_v)
 * The conv1d of Mamba-2 is element-wise work in the time model, not FLOPs
 * (as Megatron). Model FLOPs = 3 x forward, as every layer.
 *
 * Activations per token (16-bit unless said; formulas.md 3.3.3's style,
 * from the tensors mamba_ssm's MambaChunkScanCombinedFn and the conv/norm
 * kernels keep for the backward):
 *   Mamba-2   replicated 4h (pre-norm input, in_proj input); sharded
 *             2*(2*d_in + 2*n_g*N + n_m) in_proj output, 2*(d_in + 2*n_g*N)
 *             conv output, 2*d_in scan output, 2*d_in gated-norm output,
 *             8*n_m fp32 dt and its cumulative sum.
 *   GDN       replicated 4h; sharded 2*(2K + 2W) + 4*n_v projections,
 *             2*(2K + W) conv output, 8*n_v fp32 gate and beta, 2*W core
 *             output, 2*W gated-norm output.
 * The recurrent state, n_m*P*N (Mamba-2) or n_v*d_k*d_v (GDN) fp32 per
 * sequence, and the conv state (k - 1) x the conv width, are an inference
 * cache: training starts every sequence from zero and the chunked kernels
 * recompute the per-chunk states (b * s/Q * state) in the backward, so they
 * are transient working memory of one layer, not stored activations (not
 * counted, as FlashAttention's workspace is not).
 *
 * Tensor parallelism (Megatron-Core MambaMixer, megatron/core/ssm/
 * mamba_mixer.py): in_proj column-parallel (z, x, B, C, dt split by heads
 * and groups), conv1d, dt_bias, A_log, D and the grouped norm split with
 * them, out_proj row-parallel: the whole mixer is split t ways, and t must
 * divide n_m and n_g (Megatron asserts both). One all-reduce forward and one
 * backward per sublayer (the row-parallel output), as attention's.
 * Gated delta-net (megatron/core/ssm/gated_delta_net/gdn.py): the same split
 * by heads, t divides n_k and n_v; the norm of d_v is whole on every rank.
 * Context parallelism: Megatron-Core's MambaContextParallel
 * (megatron/core/ssm/mamba_context_parallel.py) switches the Mamba mixer
 * from sequence-split to head-split with an all-to-all before the conv and
 * scan and one after (c must divide n_m/t and n_g/t): modelled as two
 * all-to-alls forward (in_proj output, then the scan output) and two
 * backward, exposed. Megatron-Core's gated delta-net splits its heads over
 * CP the same way (gated_delta_net/common.py: all-to-alls cp2hp of q, k, v,
 * z, beta and alpha, hp2cp of the normed output; c divides n_k/t and
 * n_v/t): two all-to-alls each way, exposed. CP of Mamba-1 layers is
 * refused (no engine trainplan reads splits them).
 *
 * Step time (time_hybrid.c): the projections run through the same GEMM path as
 * every layer; the Mamba-2 scan and the delta-rule recurrence are charged
 * as their FLOPs at the attention kernels' rate (peak x eff.attn: both are
 * chunked tensor-core kernels like FlashAttention) or their bytes at HBM
 * bandwidth, the larger (roofline); backward 2x forward; conv1d, gated
 * norm and gates as element-wise bytes. Not calibrated: runs-dev.csv has no
 * hybrid run, so eff.attn (fitted on FlashAttention) stands in for the
 * scan kernels' efficiency.
 *
 * Not expressible (refused by name): sliding windows, MTP, MLA, Gemma's
 * four norms with a pattern; biases on Mamba/GDN projections (linear_bias).
 */
#include <math.h>
#include <string.h>

#include "internal.h"

int64_t tp__pattern_len(const tp_model *m)
{
    int64_t n = 0;
    while (n < TP_PATTERN_MAX && m->layer_pattern[n])
        n++;
    return n < TP_PATTERN_MAX ? n : 0;
}

bool tp__is_hybrid(const tp_model *m)
{
    for (int64_t i = 0; i < TP_PATTERN_MAX && m->layer_pattern[i]; i++)
        if (m->layer_pattern[i] != 'A')
            return true;
    return false;
}

TP__COLD int64_t tp__hybrid_moe_below(const tp_model *m, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        k += tp_layer_is_moe(m, i);
    return k;
}

bool tp_model_is_hybrid(const tp_model *m)
{
    return m && tp__is_hybrid(m);
}

/* Kind of layer i: mixer * 3 + ffn (tp__mixer, tp__ffn). */
int tp__layer_kind(const tp_model *m, int64_t i)
{
    char c = tp_layer_char(m, i);
    switch (c) {
    case 'M': return TP__MIX_MAMBA * 3 + TP__FFN_NONE;
    case '*': return TP__MIX_ATTN * 3 + TP__FFN_NONE;
    case '-': return TP__MIX_NONE * 3 + TP__FFN_DENSE;
    case 'E': return TP__MIX_NONE * 3 + TP__FFN_MOE;
    case 'G': return TP__MIX_GDN * 3 + TP__FFN_NONE;
    case 'L': return TP__MIX_GDN * 3 + (tp_layer_is_moe(m, i) ? TP__FFN_MOE : TP__FFN_DENSE);
    case 'S': return TP__MIX_MAMBA1 * 3 + (tp_layer_is_moe(m, i) ? TP__FFN_MOE : TP__FFN_DENSE);
    default: return TP__MIX_ATTN * 3 + (tp_layer_is_moe(m, i) ? TP__FFN_MOE : TP__FFN_DENSE);
    }
}

int64_t tp__mamba_inner(const tp_model *m)
{
    return m->mamba_heads * m->mamba_head_dim;
}

static int64_t mamba_conv(const tp_model *m)
{
    return m->mamba_conv > 0 ? m->mamba_conv : 4;
}

static int64_t gdn_conv(const tp_model *m)
{
    return m->gdn_conv > 0 ? m->gdn_conv : 4;
}

/* Width of Mamba-2's in_proj output: z, x, B, C, dt. */
int64_t tp__mamba_in_width(const tp_model *m)
{
    return 2 * tp__mamba_inner(m) + 2 * m->mamba_groups * m->mamba_state + m->mamba_heads;
}

int64_t tp__mamba_params(const tp_model *m)
{
    int64_t h = m->hidden, din = tp__mamba_inner(m);
    int64_t conv_dim = din + 2 * m->mamba_groups * m->mamba_state;
    return h * tp__mamba_in_width(m) + conv_dim * (mamba_conv(m) + 1) + 3 * m->mamba_heads + din +
           din * h;
}

int64_t tp__gdn_key_dim(const tp_model *m)
{
    return m->gdn_k_heads * m->gdn_k_head_dim;
}

int64_t tp__gdn_value_dim(const tp_model *m)
{
    return m->gdn_v_heads * m->gdn_v_head_dim;
}

int64_t tp__gdn_params(const tp_model *m)
{
    int64_t h = m->hidden, K = tp__gdn_key_dim(m), W = tp__gdn_value_dim(m);
    return h * (2 * K + 2 * W) + h * 2 * m->gdn_v_heads + (2 * K + W) * gdn_conv(m) +
           2 * m->gdn_v_heads + m->gdn_v_head_dim + W * h;
}

/* Jamba's RMSNorms on dt, B and C: whole on every TP rank. */
static int64_t mamba1_norms(const tp_model *m)
{
    return m->mamba1_dt_rank + 2 * m->mamba_state;
}

int64_t tp__mamba1_params(const tp_model *m)
{
    int64_t h = m->hidden, d = m->mamba1_inner, r = m->mamba1_dt_rank, n = m->mamba_state;
    return h * 2 * d + d * (mamba_conv(m) + 1) + d * (r + 2 * n) + r * d + d + d * n + d + d * h +
           r + 2 * n;
}

double tp__mamba1_scan_flops(const tp_model *m)
{
    return 7.0 * (double)m->mamba1_inner * (double)m->mamba_state;
}

double tp__mamba1_fwd_flops(const tp_model *m)
{
    double h = (double)m->hidden, d = (double)m->mamba1_inner, r = (double)m->mamba1_dt_rank;
    double n = (double)m->mamba_state;
    return 2.0 * (h * 2.0 * d + d * (r + 2.0 * n) + r * d + d * h) + tp__mamba1_scan_flops(m);
}

/* Forward FLOPs per token of one mixer (header). */
double tp__mamba_fwd_flops(const tp_model *m)
{
    double h = (double)m->hidden, din = (double)tp__mamba_inner(m);
    return 2.0 * h * (double)tp__mamba_in_width(m) + 7.0 * din * (double)m->mamba_state +
           2.0 * din * h;
}

double tp__mamba_scan_flops(const tp_model *m)
{
    return 7.0 * (double)tp__mamba_inner(m) * (double)m->mamba_state;
}

double tp__gdn_core_flops(const tp_model *m)
{
    return 2.0 * 4.0 * (double)m->gdn_v_heads * (double)m->gdn_k_head_dim *
           (double)m->gdn_v_head_dim;
}

double tp__gdn_fwd_flops(const tp_model *m)
{
    double h = (double)m->hidden, K = (double)tp__gdn_key_dim(m), W = (double)tp__gdn_value_dim(m);
    double nv = (double)m->gdn_v_heads;
    return 2.0 *
               (h * (2.0 * K + 2.0 * W + 2.0 * nv) + (double)gdn_conv(m) * (2.0 * K + W) + W * h) +
           tp__gdn_core_flops(m);
}

/* Activation bytes per token of one mixer: sharded by t, and *replicated
 * (the pre-norm and projection inputs, divided by t only with SP). */
double tp__mixer_act_bytes(const tp_model *m, int mixer, double *replicated)
{
    double h = (double)m->hidden;
    *replicated = 4.0 * h;
    if (mixer == TP__MIX_MAMBA) {
        double din = (double)tp__mamba_inner(m), gn = (double)(m->mamba_groups * m->mamba_state);
        return 2.0 * (double)tp__mamba_in_width(m) + 2.0 * (din + 2.0 * gn) + 4.0 * din +
               8.0 * (double)m->mamba_heads;
    }
    if (mixer == TP__MIX_MAMBA1) { /* in_proj out, conv out, x_proj and dt out, y, gated y */
        double d = (double)m->mamba1_inner, r = (double)m->mamba1_dt_rank;
        double n = (double)m->mamba_state;
        return 2.0 * 2.0 * d + 2.0 * d + 2.0 * (r + 2.0 * n) + 4.0 * d + 2.0 * d + 2.0 * d;
    }
    double K = (double)tp__gdn_key_dim(m), W = (double)tp__gdn_value_dim(m);
    double nv = (double)m->gdn_v_heads;
    return 2.0 * (2.0 * K + 2.0 * W) + 4.0 * nv + 2.0 * (2.0 * K + W) + 8.0 * nv + 4.0 * W;
}

/* Whether the pattern has a layer of character c ('G' also finds 'L':
 * both have a gated delta-net mixer). */
static bool pattern_has(const tp_model *m, char c)
{
    for (int64_t i = 0; i < TP_PATTERN_MAX && m->layer_pattern[i]; i++)
        if (m->layer_pattern[i] == c || (c == 'G' && m->layer_pattern[i] == 'L'))
            return true;
    return false;
}

static tp_status validate_pattern(const tp_model *m, tp_error *err)
{
    if (m->layer_pattern[TP_PATTERN_MAX - 1] != '\0')
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.layer_pattern",
                            "longer than %d characters", TP_PATTERN_MAX - 1);
    int64_t n = tp__pattern_len(m);
    for (int64_t i = 0; i < n; i++)
        if (!strchr("ALSMG*-E", m->layer_pattern[i]))
            return tp_error_set(
                err, TP_ERR_INVALID_ARG, "model.layer_pattern",
                "character %lld '%c' is not a layer kind (A attention + MLP, L "
                "gated delta-net + MLP, S Mamba-1 + MLP, M Mamba-2, G gated delta-net, * "
                "attention, - MLP, E MoE)",
                (long long)i + 1,
                m->layer_pattern[i] > 32 && m->layer_pattern[i] < 127 ? m->layer_pattern[i] : '?');
    if (m->num_layers % n != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.layer_pattern",
                            "%lld characters do not divide the %lld layers (give one per layer, "
                            "or a period that repeats)",
                            (long long)n, (long long)m->num_layers);
    return TP_OK;
}

/* The combinations a pattern cannot be counted with (header). */
static tp_status validate_hybrid_combos(const tp_model *m, tp_error *err)
{
    const char *what = m->mtp_layers > 0        ? "model.mtp_layers"
                       : m->sliding_window > 0  ? "model.sliding_window"
                       : m->kv_lora_rank > 0    ? "model.kv_lora_rank"
                       : m->norms_per_layer > 0 ? "model.norms_per_layer"
                                                : NULL;
    if (what)
        return tp_error_set(err, TP_ERR_INVALID_ARG, what,
                            "not modelled together with a hybrid layer_pattern (multi-token "
                            "prediction, sliding windows, multi-latent attention and extra "
                            "norms are counted for transformer layers only)");
    if (m->linear_bias && (pattern_has(m, 'M') || pattern_has(m, 'G') || pattern_has(m, 'S')))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.linear_bias",
                            "biases on Mamba-2 or gated delta-net projections are not modelled "
                            "(Nemotron-H and Qwen3-Next have none)");
    if (pattern_has(m, 'E') && m->num_experts <= 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.layer_pattern",
                            "'E' (MoE) layers need experts (num_experts is 0)");
    return TP_OK;
}

static tp_status validate_mamba(const tp_model *m, bool used, tp_error *err)
{
    bool given = m->mamba_heads || m->mamba_head_dim || m->mamba_groups;
    bool mamba1 = pattern_has(m, 'S');
    if (!used && !mamba1 && (m->mamba_state || m->mamba_conv))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.mamba_state",
                            "a Mamba state or conv width is given but layer_pattern has no 'M' "
                            "or 'S' layer");
    if (mamba1) {
        TP__CHECK_RANGE(m->mamba1_inner, "model.mamba1_inner", 1, TP_MAX_FFN);
        TP__CHECK_RANGE(m->mamba1_dt_rank, "model.mamba1_dt_rank", 1, TP_MAX_DIM);
        TP__CHECK_RANGE(m->mamba_state, "model.mamba_state", 1, TP_MAX_DIM);
        TP__CHECK_RANGE(m->mamba_conv, "model.mamba_conv", 0, 64);
    } else if (m->mamba1_inner || m->mamba1_dt_rank) {
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.mamba1_inner",
                            "Mamba-1 dimensions are given but layer_pattern has no 'S' layer");
    }
    if (!used) {
        if (given)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "model.mamba_heads",
                                "Mamba-2 dimensions are given but layer_pattern has no 'M' "
                                "layer");
        return TP_OK;
    }
    TP__CHECK_RANGE(m->mamba_heads, "model.mamba_heads", 1, TP_MAX_DIM);
    TP__CHECK_RANGE(m->mamba_head_dim, "model.mamba_head_dim", 1, TP_MAX_DIM);
    TP__CHECK_RANGE(m->mamba_groups, "model.mamba_groups", 1, m->mamba_heads);
    TP__CHECK_RANGE(m->mamba_state, "model.mamba_state", 1, TP_MAX_DIM);
    TP__CHECK_RANGE(m->mamba_conv, "model.mamba_conv", 0, 64);
    if ((double)m->mamba_heads * (double)m->mamba_head_dim > TP_MAX_FFN)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.mamba_head_dim",
                            "%lld heads x %lld is wider than %d (the Mamba-2 inner width)",
                            (long long)m->mamba_heads, (long long)m->mamba_head_dim, TP_MAX_FFN);
    if ((double)m->mamba_groups * (double)m->mamba_state > TP_MAX_FFN)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.mamba_state",
                            "%lld groups x %lld states is more than %d", (long long)m->mamba_groups,
                            (long long)m->mamba_state, TP_MAX_FFN);
    if (m->mamba_heads % m->mamba_groups != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.mamba_groups",
                            "%lld groups do not divide the %lld Mamba-2 heads",
                            (long long)m->mamba_groups, (long long)m->mamba_heads);
    return TP_OK;
}

static tp_status validate_gdn(const tp_model *m, bool used, tp_error *err)
{
    bool given =
        m->gdn_k_heads || m->gdn_v_heads || m->gdn_k_head_dim || m->gdn_v_head_dim || m->gdn_conv;
    if (!used) {
        if (given)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "model.gdn_k_heads",
                                "gated delta-net dimensions are given but layer_pattern has no "
                                "'G' or 'L' layer");
        return TP_OK;
    }
    TP__CHECK_RANGE(m->gdn_k_heads, "model.gdn_k_heads", 1, TP_MAX_DIM);
    TP__CHECK_RANGE(m->gdn_v_heads, "model.gdn_v_heads", 1, TP_MAX_DIM);
    TP__CHECK_RANGE(m->gdn_k_head_dim, "model.gdn_k_head_dim", 1, TP_MAX_DIM);
    TP__CHECK_RANGE(m->gdn_v_head_dim, "model.gdn_v_head_dim", 1, TP_MAX_DIM);
    TP__CHECK_RANGE(m->gdn_conv, "model.gdn_conv", 0, 64);
    if ((double)m->gdn_k_heads * (double)m->gdn_k_head_dim > TP_MAX_FFN ||
        (double)m->gdn_v_heads * (double)m->gdn_v_head_dim > TP_MAX_FFN)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.gdn_v_head_dim",
                            "the gated delta-net key or value width is more than %d", TP_MAX_FFN);
    if (m->gdn_v_heads % m->gdn_k_heads != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.gdn_v_heads",
                            "%lld value heads are not a multiple of the %lld key heads",
                            (long long)m->gdn_v_heads, (long long)m->gdn_k_heads);
    return TP_OK;
}

tp_status tp__hybrid_validate(const tp_model *m, tp_error *err)
{
    tp_status st;
    bool hybrid = m->layer_pattern[0] != '\0';
    if (hybrid && (st = validate_pattern(m, err)) != TP_OK)
        return st;
    if ((st = validate_mamba(m, hybrid && pattern_has(m, 'M'), err)) != TP_OK ||
        (st = validate_gdn(m, hybrid && pattern_has(m, 'G'), err)) != TP_OK)
        return st;
    if (m->shared_expert_gate && tp_shared_ffn_hidden(m) <= 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.shared_expert_gate",
                            "a shared-expert gate needs shared experts (there are none)");
    if (m->attn_output_gate && tp__is_mla(m))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.attn_output_gate",
                            "an attention output gate with multi-latent attention is not "
                            "modelled");
    if (!tp__is_hybrid(m))
        return TP_OK;
    return validate_hybrid_combos(m, err);
}

/* An upper bound of the mixers' parameters (tp_model_validate's range check). */
double tp__hybrid_mixer_bound(const tp_model *m)
{
    if (!tp__is_hybrid(m))
        return 0.0;
    double h = (double)m->hidden, L = (double)m->num_layers;
    double din = (double)m->mamba_heads * (double)m->mamba_head_dim;
    double gn = (double)m->mamba_groups * (double)m->mamba_state;
    double K = (double)m->gdn_k_heads * (double)m->gdn_k_head_dim;
    double W = (double)m->gdn_v_heads * (double)m->gdn_v_head_dim;
    double mamba = h * (3.0 * din + 2.0 * gn + (double)m->mamba_heads) + 70.0 * (din + 2.0 * gn);
    double gdn = h * (2.0 * K + 3.0 * W + 2.0 * (double)m->gdn_v_heads) + 70.0 * (2.0 * K + W);
    double d1 = (double)m->mamba1_inner, r1 = (double)m->mamba1_dt_rank;
    double mamba1 = d1 * (3.0 * h + 2.0 * r1 + 3.0 * (double)m->mamba_state + 70.0);
    return L * (mamba + gdn + mamba1);
}

/* Parameters of each part of one layer of kind k. */
typedef struct layer_parts {
    int64_t attn, mixer, mlp, routed, shared, router, norms;
} layer_parts;

static layer_parts parts_of(const tp_model *m, int kind, int64_t attn, int64_t mlp, int64_t expert,
                            int64_t shared, int64_t router)
{
    layer_parts lp = {0};
    int mixer = kind / 3, ffn = kind % 3;
    int64_t norm = tp__norm_params(m);
    if (mixer == TP__MIX_ATTN)
        lp.attn = attn;
    else if (mixer == TP__MIX_MAMBA)
        lp.mixer = tp__mamba_params(m);
    else if (mixer == TP__MIX_GDN)
        lp.mixer = tp__gdn_params(m);
    else if (mixer == TP__MIX_MAMBA1)
        lp.mixer = tp__mamba1_params(m);
    if (ffn == TP__FFN_DENSE)
        lp.mlp = mlp;
    else if (ffn == TP__FFN_MOE) {
        lp.routed = m->num_experts * expert;
        lp.shared = shared;
        lp.router = router;
    }
    lp.norms = ((mixer != TP__MIX_NONE) + (ffn != TP__FFN_NONE)) * norm;
    return lp;
}

static int64_t parts_total(const layer_parts *lp)
{
    return lp->attn + lp->mixer + lp->mlp + lp->routed + lp->shared + lp->router + lp->norms;
}

void tp__hybrid_params(const tp_model *m, int64_t attn, int64_t mlp, int64_t expert, int64_t shared,
                       int64_t router, tp_params *p)
{
    int64_t count[TP__KINDS] = {0};
    for (int64_t i = 0; i < m->num_layers; i++)
        count[tp__layer_kind(m, i)]++;
    int64_t min_dense = -1, min_moe = -1;
    for (int k = 0; k < TP__KINDS; k++) {
        if (!count[k])
            continue;
        layer_parts lp = parts_of(m, k, attn, mlp, expert, shared, router);
        p->attention += count[k] * lp.attn;
        p->mixers += count[k] * lp.mixer;
        p->mlp_dense += count[k] * lp.mlp;
        p->moe_routed += count[k] * lp.routed;
        p->moe_shared += count[k] * lp.shared;
        p->router += count[k] * lp.router;
        p->norms += count[k] * lp.norms;
        int64_t t = parts_total(&lp);
        if (k % 3 == TP__FFN_MOE) {
            p->num_moe_layers += count[k];
            if (min_moe < 0 || t < min_moe)
                min_moe = t;
        } else if (min_dense < 0 || t < min_dense) {
            min_dense = t;
        }
    }
    /* the search's lower bounds read these: the smallest layer of each kind */
    p->per_layer_dense = min_dense > 0 ? min_dense : 0;
    p->per_layer_moe = min_moe > 0 ? min_moe : 0;
}

/*
 * This GPU's shard of layers [first, first + n): *dense split t ways (the
 * norms, QK-norm and MLA down-projections, the router and the GDN norm
 * whole), *expert the routed experts split etp x ep ways, *largest the
 * largest layer's shard (ZeRO-3 working set). Adds to the three.
 */
void tp__hybrid_shard(const tp_config *c, const tp_params *P, int64_t first, int64_t n,
                      double *dense, double *expert, double *largest)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    double tpz = (double)t->tp, ee = (double)tp_expert_tp(t) * (double)t->ep;
    double norm = (double)tp__norm_params(m);
    double rep_attn = (double)tp__attn_replicated_params(m);
    double routed = P->num_moe_layers > 0 ? (double)P->moe_routed / (double)P->num_moe_layers : 0.0;
    double shared = P->num_moe_layers > 0 ? (double)P->moe_shared / (double)P->num_moe_layers : 0.0;
    double router = (double)tp__router_params(m);
    double attn = (double)tp__attention_params(m), mlp = (double)tp__mlp_params(m, m->ffn_hidden);
    for (int64_t i = first; i < first + n; i++) {
        int kind = tp__layer_kind(m, i), mixer = kind / 3, ffn = kind % 3;
        double d = 0.0, e = 0.0;
        if (mixer != TP__MIX_NONE)
            d += norm;
        if (mixer == TP__MIX_ATTN)
            d += (attn - rep_attn) / tpz + rep_attn;
        else if (mixer == TP__MIX_MAMBA)
            d += (double)tp__mamba_params(m) / tpz;
        else if (mixer == TP__MIX_GDN)
            d += ((double)tp__gdn_params(m) - (double)m->gdn_v_head_dim) / tpz +
                 (double)m->gdn_v_head_dim;
        else if (mixer == TP__MIX_MAMBA1) /* Jamba's dt/B/C norms whole */
            d += (double)(tp__mamba1_params(m) - mamba1_norms(m)) / tpz + (double)mamba1_norms(m);
        if (ffn != TP__FFN_NONE)
            d += norm;
        if (ffn == TP__FFN_DENSE)
            d += mlp / tpz;
        else if (ffn == TP__FFN_MOE) {
            d += shared / tpz + router;
            e += routed / ee;
        }
        *dense += d;
        *expert += e;
        if (d + e > *largest)
            *largest = d + e;
    }
}

/* g reduced by the head and group counts TP must divide (header: TP). */
int64_t tp__hybrid_head_gcd(const tp_model *m, int64_t g)
{
    if (!tp__is_hybrid(m))
        return g;
    if (pattern_has(m, 'M'))
        g = tp__gcd64(tp__gcd64(g, m->mamba_heads), m->mamba_groups);
    if (pattern_has(m, 'G'))
        g = tp__gcd64(tp__gcd64(g, m->gdn_k_heads), m->gdn_v_heads);
    if (pattern_has(m, 'S'))
        g = tp__gcd64(g, m->mamba1_inner);
    return g;
}

/* Whether context parallelism cp with tensor parallelism tp is modelled
 * for the model's layers (header: CP); true for every transformer. */
bool tp__hybrid_cp_ok(const tp_model *m, int64_t tp, int64_t cp)
{
    if (cp <= 1 || !tp__is_hybrid(m))
        return true;
    if (pattern_has(m, 'S'))
        return false;
    if (pattern_has(m, 'G') && ((m->gdn_k_heads / tp) % cp != 0 || (m->gdn_v_heads / tp) % cp != 0))
        return false;
    if (pattern_has(m, 'M'))
        return (m->mamba_heads / tp) % cp == 0 && (m->mamba_groups / tp) % cp == 0;
    return true;
}

/* The layout rules of the hybrid layers (header: TP and CP). */
tp_status tp__hybrid_validate_config(const tp_config *c, tp_error *err)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    if (!tp__is_hybrid(m))
        return TP_OK;
    bool mamba = pattern_has(m, 'M'), gdn = pattern_has(m, 'G');
    if (mamba && (m->mamba_heads % t->tp != 0 || m->mamba_groups % t->tp != 0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.tp",
                            "%lld does not divide the Mamba-2 heads (%lld) and groups (%lld) "
                            "(Megatron-Core splits both over TP)",
                            (long long)t->tp, (long long)m->mamba_heads,
                            (long long)m->mamba_groups);
    if (gdn && (m->gdn_k_heads % t->tp != 0 || m->gdn_v_heads % t->tp != 0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.tp",
                            "%lld does not divide the gated delta-net key heads (%lld) and "
                            "value heads (%lld)",
                            (long long)t->tp, (long long)m->gdn_k_heads, (long long)m->gdn_v_heads);
    if (t->cp > 1 && gdn &&
        ((m->gdn_k_heads / t->tp) % t->cp != 0 || (m->gdn_v_heads / t->tp) % t->cp != 0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.cp",
                            "%lld does not divide the gated delta-net key heads (%lld) and value "
                            "heads (%lld) per TP rank (Megatron-Core's gated delta-net context "
                            "parallelism splits them over CP)",
                            (long long)t->cp, (long long)(m->gdn_k_heads / t->tp),
                            (long long)(m->gdn_v_heads / t->tp));
    if (pattern_has(m, 'S') && m->mamba1_inner % t->tp != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.tp",
                            "%lld does not divide the Mamba-1 inner width (%lld)", (long long)t->tp,
                            (long long)m->mamba1_inner);
    if (t->cp > 1 && pattern_has(m, 'S'))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.cp",
                            "%lld: context parallelism of Mamba-1 layers is not modelled (use "
                            "cp 1)",
                            (long long)t->cp);
    if (t->cp > 1 && mamba &&
        ((m->mamba_heads / t->tp) % t->cp != 0 || (m->mamba_groups / t->tp) % t->cp != 0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.cp",
                            "%lld does not divide the Mamba-2 heads (%lld) and groups (%lld) "
                            "per TP rank (Megatron-Core's Mamba context parallelism splits "
                            "them over CP)",
                            (long long)t->cp, (long long)(m->mamba_heads / t->tp),
                            (long long)(m->mamba_groups / t->tp));
    if (tp_expert_tp(t) != t->tp)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.etp",
                            "an expert TP size apart from TP is not modelled for hybrid models "
                            "(etp %lld, tp %lld)",
                            (long long)tp_expert_tp(t), (long long)t->tp);
    if (t->recompute_modules != 0 && t->recompute_modules != TP_RC_CORE_ATTN)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.recompute_modules",
                            "recompute modules other than core_attn are not modelled for hybrid "
                            "models");
    if (c->opts.sac_ops && t->recompute == TP_RECOMPUTE_SELECTIVE)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.sac_ops",
                            "per-op selective checkpointing is not modelled for Mamba-2 or gated "
                            "delta-net layers");
    if (c->opts.act_model == TP_ACT_KORTHIKANTI)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.act_model",
                            "Korthikanti's per-layer formula is for transformer layers; a hybrid "
                            "model needs the detailed activation model");
    return TP_OK;
}
