/* SPDX-License-Identifier: MIT */
/*
 * kernel.c: what a GPU's hardware profile and the run's options make of
 * the kernels' rates, for the step-time model (time.c) and for the
 * reports that state them (src/io): whether the kernel-level model runs
 * (tp_gpu_kernel_model), the rate FlashAttention runs at
 * (tp_attn_rate_of: the profile's share, the Ampere-kernel factor, the
 * head-dim factor) and the host floor of a dropless MoE layer
 * (tp_moe_host_floor_s). docs/model.md sections 1b, 2 and 2b.
 */
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
    a.head_dim_rel = tp_gpu_kernel_model(&c->gpu) ? tp__attn_head_dim_factor(&c->model) : 1.0;
    double base = e->attn > 0.0 ? e->attn : e->gemm > 0.0 ? e->gemm : 1.0;
    a.fraction = base * a.ampere_rel * a.head_dim_rel;
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
