/* SPDX-License-Identifier: MIT */
/*
 * kernel.c: what a GPU's hardware profile and the run's options make of
 * the kernels' rates, for the step-time model (time.c) and for the
 * reports that state them (src/io): whether the kernel-level model runs
 * (tp_gpu_kernel_model), the rate FlashAttention runs at
 * (tp_attn_rate_of: the profile's share, the Ampere-kernel factor, the
 * head-dim and sequence-length factors), the host floor of a dropless MoE layer
 * (tp_moe_host_floor_s) and which TP overlap hides the TP collectives
 * (tp_tp_overlap_of). docs/model.md sections 1b, 2, 2b and 5.
 */
#include <math.h>

#include "internal.h"
#include "time_internal.h"

/*
 * The attention kernels' rate by head dim (header 2; docs/model.md 2),
 * relative to head dim 128, where the profiles' best rates are measured.
 * FlashAttention-3 on H100 in BF16 (Shah et al. 2024, arXiv 2407.08608,
 * Figures 5 and 6, the rates labelled on the bars) at head dim 64 against
 * 128: forward causal 420 against 579 TFLOP/s at 4k tokens (0.725),
 * backward 422 against 501 at 2k (0.842); in the 1 : 2.5 FLOP ratio of
 * forward to backward charged here, 3.5 / (1/0.725 + 2.5/0.842) = 0.805.
 * Linear between 64 and 128; 1 from 128 up (head dim 256 runs at 128's
 * rate or above in the same figures; MLA's 192-wide q/k heads count as
 * their q/k width); 0.805 below 64 (not measured there: at least that
 * slow). The language model's heads; a vision tower's share the factor.
 */
double tp__attn_head_dim_factor(const tp_model *m)
{
    double d = m->qk_rope_head_dim > 0 ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim)
                                       : (double)tp_head_dim(m);
    const double at64 = 0.805;
    if (d >= 128.0)
        return 1.0;
    if (d <= 64.0)
        return at64;
    return at64 + (1.0 - at64) * (d - 64.0) / 64.0;
}

/*
 * The attention kernels' rate by the sequence length a kernel call sees
 * (header 2; docs/model.md 2), relative to 16k tokens. FlashAttention-3 on
 * H100 in BF16 at head dim 128 (Shah et al. 2024, arXiv 2407.08608, the
 * rates labelled on the bars, TFLOP/s at 512, 1k, 2k, 4k, 8k, 16k tokens):
 * forward causal (Figure 5) and backward (Figure 6), each over its 16k
 * rate, in the 1 : 2.5 FLOP ratio of forward to backward charged here:
 * 0.535 at 512, 0.735 at 1k, 0.879 at 2k, 0.958 at 4k, 0.991 at 8k.
 * Linear in log2(length) between the points; 1 from 16k up; the 512 value
 * below 512 (not measured there: at least that slow). The FlashAttention-2
 * bars of the same figures rise the same way within 3% from 2k up (0.57
 * against 0.47 forward at 512); the shape is applied to every GPU with a
 * kernel-level profile, whose attention_tflops sets the level, unless the
 * profile carries its own sweep (eff.attn_seq_*: the probe's, over its
 * best point; hwprofile.c).
 */
static const double seq_tokens[] = {512, 1024, 2048, 4096, 8192, 16384};
static const double seq_fwd_tflops[] = {292, 423, 521, 579, 602, 616};
static const double seq_bwd_tflops[] = {316, 424, 501, 542, 559, 561};
enum { SEQ_POINTS = sizeof seq_tokens / sizeof seq_tokens[0] };

static double seq_point(int i)
{
    double fwd = seq_fwd_tflops[i] / seq_fwd_tflops[SEQ_POINTS - 1];
    double bwd = seq_bwd_tflops[i] / seq_bwd_tflops[SEQ_POINTS - 1];
    return 3.5 / (1.0 / fwd + 2.5 / bwd);
}

/* Where tokens falls among n increasing points: the index i of the point
 * at or above it (1 .. n-1) and its place u in [0, 1] between points i-1
 * and i, linear in log2(tokens); before the first point i = 1, u = 0, past
 * the last i = n-1, u = 1 (the end points' values beyond). */
static int seq_bracket(const double *tokens_at, int n, double tokens, double *u)
{
    if (!(tokens > tokens_at[0])) {
        *u = 0.0;
        return 1;
    }
    for (int i = 1; i < n; i++)
        if (tokens <= tokens_at[i]) {
            *u = log2(tokens / tokens_at[i - 1]) / log2(tokens_at[i] / tokens_at[i - 1]);
            return i;
        }
    *u = 1.0;
    return n - 1;
}

double tp__attn_seq_factor_at(const tp_gpu_eff *e, double tokens)
{
    double u;
    if (e && e->attn_seq_n >= 2) { /* the profile's own sweep (validated: hardware.c) */
        int i = seq_bracket(e->attn_seq_tokens, e->attn_seq_n, tokens, &u);
        return e->attn_seq_rel[i - 1] + (e->attn_seq_rel[i] - e->attn_seq_rel[i - 1]) * u;
    }
    int i = seq_bracket(seq_tokens, SEQ_POINTS, tokens, &u);
    return seq_point(i - 1) + (seq_point(i) - seq_point(i - 1)) * u;
}

/* Tokens a global layer's kernel call sees: its CP rank's block of the
 * sequence, or of the packed example. */
static double call_tokens(const tp_config *c)
{
    double cp = c->train.cp > 0 ? (double)c->train.cp : 1.0;
    return tp__attn_span(&c->train) / cp;
}

/* Tokens a windowed or chunked layer's call sees, when fewer than a
 * global layer's: the window or the chunk; else 0. */
static double local_call_tokens(const tp_config *c)
{
    const tp_model *m = &c->model;
    double local = m->attention_chunk > 0  ? (double)m->attention_chunk
                   : m->sliding_window > 0 ? (double)m->sliding_window
                                           : 0.0;
    return local > 0.0 && local < call_tokens(c) && m->num_layers > 0 ? local : 0.0;
}

/*
 * The sequence-length factor of a run: a kernel call sees the keys of its
 * CP rank's block, n = span / c (span: the sequence, or the packed
 * example); a windowed or chunked layer min(window, n). Over both kinds of
 * layer, weighted by their work (tp__window_scale = global share + local
 * share of the full work): the time-weighted (harmonic) mean. The
 * language model's calls; a vision tower's attention shares the factor,
 * as it shares the head-dim one.
 */
double tp__attn_seq_factor(const tp_config *c)
{
    const tp_model *m = &c->model;
    const tp_gpu_eff *e = &c->gpu.eff;
    double f_global = tp__attn_seq_factor_at(e, call_tokens(c));
    double local_len = local_call_tokens(c);
    if (!(local_len > 0.0))
        return f_global;
    double f_local = tp__attn_seq_factor_at(e, local_len);
    double g = (double)tp__global_attn_layers(m) / (double)m->num_layers;
    double work = tp__window_scale(m, tp__attn_span(&c->train), true); /* g + local share */
    double local = work - g > 0.0 ? work - g : 0.0;
    return work / (g / f_global + local / f_local);
}

bool tp_gpu_kernel_model(const tp_gpu *g)
{
    return g->eff.sm_count >= 1.0 && g->eff.mamf > 0.0;
}

tp_attn_rate tp_attn_rate_of(const tp_config *c)
{
    const tp_gpu_eff *e = &c->gpu.eff;
    tp_attn_rate a;
    a.ampere_rel =
        c->opts.attn_ampere_kernel && e->attn_ampere_kernel > 0.0 ? e->attn_ampere_kernel : 1.0;
    bool kernel = tp_gpu_kernel_model(&c->gpu);
    a.head_dim_rel = kernel ? tp__attn_head_dim_factor(&c->model) : 1.0;
    a.seq_rel = kernel ? tp__attn_seq_factor(c) : 1.0;
    a.seq_tokens = call_tokens(c);
    a.local_seq_tokens = local_call_tokens(c);
    double base = e->attn > 0.0 ? e->attn : e->gemm > 0.0 ? e->gemm : 1.0;
    a.fraction = base * a.ampere_rel * a.head_dim_rel * a.seq_rel;
    return a;
}

double tp_moe_host_floor_s(const tp_config *c, const char **why_none)
{
    const tp_gpu_eff *e = &c->gpu.eff;
    const char *why = NULL;
    double host = 0.0;
    if (c->model.num_experts <= 0)
        why = "a dense model";
    else if (c->opts.moe_sync_free)
        why = "--moe-sync-free";
    else if (c->model.moe_capacity_factor > 0.0)
        why = "a capacity factor: token drop, padded";
    else {
        double ep = c->train.ep > 0 ? (double)c->train.ep : 1.0;
        host = e->moe_host_layer_s + (double)c->model.num_experts / ep * e->moe_host_expert_s;
        if (!(host > 0.0)) {
            host = 0.0;
            why = "no hardware profile: the fitted fractions";
        }
    }
    if (why_none)
        *why_none = why;
    return host;
}

/* Userbuffers need sequence parallelism: Megatron-Bridge turns the overlap
 * off without it (training/comm_overlap.py), so chunked without SP is none. */
tp_tp_overlap tp_tp_overlap_of(const tp_config *c)
{
    const tp_options *o = &c->opts;
    if (c->train.tp <= 1 || !o->tp_comm_overlap)
        return TP_TP_OVERLAP_NONE;
    if (!o->tp_overlap_chunked)
        return TP_TP_OVERLAP_SHARE;
    return c->train.sp ? TP_TP_OVERLAP_CHUNKED : TP_TP_OVERLAP_NEEDS_SP;
}
