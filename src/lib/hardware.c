/* SPDX-License-Identifier: MIT */
/* hardware.c: validation of GPU descriptions (the data lives in presets/gpus). */
#include <math.h>

#include "internal.h"

static bool positive_finite(double x)
{
    return isfinite(x) && x > 0.0;
}

/* The kernel-level GEMM model's sizes (tp.h, time.c 1b): 0 = unset, else
 * whole counts in a range no GPU leaves (an SM count of 1e9 would make
 * every GEMM one partial wave). */
static tp_status kernel_shape_validate(const tp_gpu *g, tp_error *err)
{
    const struct {
        const char *name;
        double v, hi;
    } k[] = {{"sm_count", g->eff.sm_count, TP_MAX_SMS},
             {"tile_m", g->eff.tile_m, TP_MAX_GEMM_TILE},
             {"tile_n", g->eff.tile_n, TP_MAX_GEMM_TILE}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        double v = k[i].v;
        if (fpclassify(v) == FP_ZERO)
            continue;
        if (!(v >= 1.0 && v <= k[i].hi) || v > floor(v))
            return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.eff",
                                "eff.%s of %s is %g: it must be a whole number in [1, %g] "
                                "(or 0: unset)",
                                k[i].name, g->name, v, k[i].hi);
    }
    return TP_OK;
}

/* The attention rate by sequence length (eff.attn_seq_*): none, or 2 to
 * TP_ATTN_SEQ_POINTS points, tokens increasing from 1, rates in
 * [TP_MIN_EFF, 1] of the sweep's best. */
static tp_status attn_seq_validate(const tp_gpu *g, tp_error *err)
{
    const tp_gpu_eff *e = &g->eff;
    if (e->attn_seq_n == 0)
        return TP_OK;
    if (e->attn_seq_n < 2 || e->attn_seq_n > TP_ATTN_SEQ_POINTS)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.eff",
                            "eff.attn_seq_n of %s is %d: 0, or 2 to %d points", g->name,
                            e->attn_seq_n, TP_ATTN_SEQ_POINTS);
    for (int i = 0; i < e->attn_seq_n; i++) {
        double n = e->attn_seq_tokens[i], r = e->attn_seq_rel[i];
        bool up = i == 0 ? n >= 1.0 : n > e->attn_seq_tokens[i - 1];
        if (!(up && isfinite(n) && r >= TP_MIN_EFF && r <= 1.0))
            return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.eff",
                                "eff.attn_seq point %d of %s (%g tokens, %g): tokens must "
                                "increase from 1, rates be in [%g, 1]",
                                i, g->name, n, r, TP_MIN_EFF);
    }
    return TP_OK;
}

/* A rate a preset may leave unstated: 0, or finite in [lo, hi]. */
static bool unstated_or_in(double v, double lo, double hi)
{
    return isfinite(v) && ((v >= 0.0 && v <= 0.0) || (v >= lo && v <= hi));
}

tp_status tp_gpu_validate(const tp_gpu *g, tp_error *err)
{
    if (!g)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu", "no GPU given");
    if (!positive_finite(g->peak_flops_per_s[TP_PREC_BF16]))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.peak_flops_per_s",
                            "the bf16 dense peak of %s must be a positive number", g->name);
    for (int i = 0; i < TP_PREC_COUNT; i++)
        if (!isfinite(g->peak_flops_per_s[i]) || g->peak_flops_per_s[i] < 0.0)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.peak_flops_per_s",
                                "peak FLOP/s of %s must be finite and >= 0", g->name);
    if (!isfinite(g->peak_fp4_flops_per_s) || g->peak_fp4_flops_per_s < 0.0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.peak_fp4_flops_per_s",
                            "the fp4 peak of %s must be finite and >= 0", g->name);
    if (!positive_finite(g->mem_capacity_bytes) || g->mem_capacity_bytes > 1e15)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.mem_capacity_bytes",
                            "memory capacity of %s must be in (0, 1e6] GB", g->name);
    if (!positive_finite(g->mem_bw_bytes_per_s))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.mem_bw_bytes_per_s",
                            "memory bandwidth of %s must be positive", g->name);
    if (!positive_finite(g->intra_bw_bytes_per_s))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.intra_bw_bytes_per_s",
                            "intra-node bandwidth of %s must be positive", g->name);
    if (!positive_finite(g->inter_bw_bytes_per_s))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.inter_bw_bytes_per_s",
                            "NIC bandwidth of %s must be positive", g->name);
    if (g->gpus_per_node < 1 || g->gpus_per_node > TP_MAX_GPUS_PER_NODE)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.gpus_per_node",
                            "%lld is out of range [1, %d]", (long long)g->gpus_per_node,
                            TP_MAX_GPUS_PER_NODE);
    if (!isfinite(g->price_per_gpu_hour) || g->price_per_gpu_hour < 0.0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.price_per_gpu_hour",
                            "price per GPU-hour must be finite and >= 0");
    if (!unstated_or_in(g->host_link_bytes_per_s, 1e6, 1e13))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.host_link_bytes_per_s",
                            "the host link of %s must be 0 (not stated) or in [0.001, 10000] "
                            "GB/s",
                            g->name);
    if (!isfinite(g->host_mem_bytes_per_node) || g->host_mem_bytes_per_node < 0.0 ||
        g->host_mem_bytes_per_node > 1e15)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.host_mem_bytes_per_node",
                            "the host memory of %s must be in [0, 1e6] GB a node (0: not "
                            "stated)",
                            g->name);
    if (g->compute_capability != 0 && (g->compute_capability < 10 || g->compute_capability > 999))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.compute_capability",
                            "the compute capability of %s must be 0 (not stated) or in [1.0, "
                            "99.9] (major x 10 + minor: 10 to 999), got %d",
                            g->name, g->compute_capability);
    if (!unstated_or_in(g->host_mem_bw_bytes_per_s, 1e6, 1e14))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.host_mem_bw_bytes_per_s",
                            "the host memory bandwidth of %s must be 0 (not stated) or in "
                            "[0.001, 1e5] GB/s a node",
                            g->name);
    /* Achieved fractions of a peak: below TP_MIN_EFF no real GPU runs, and
     * a tiny or subnormal factor divides a step time to inf (issue 14). */
    const tp_gpu_eff *e = &g->eff;
    const struct {
        const char *name;
        double v;
        bool zero_ok; /* 0 = "as the base factor" */
    } fr[] = {{"gemm", e->gemm, false},
              {"attn", e->attn, false},
              {"mem_bw", e->mem_bw, false},
              {"intra_bw", e->intra_bw, false},
              {"inter_bw", e->inter_bw, false},
              {"gemm_fp8", e->gemm_fp8, true},
              {"attn_ampere_kernel", e->attn_ampere_kernel, true},
              {"mamf", e->mamf, true},
              {"mamf_fp8", e->mamf_fp8, true},
              {"gemm_sw", e->gemm_sw, true},
              {"attn_kernel", e->attn_kernel, true}};
    for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++) {
        double v = fr[i].v;
        if (fr[i].zero_ok && fpclassify(v) == FP_ZERO)
            continue;
        if (!(v >= TP_MIN_EFF && v <= 1.0))
            return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.eff",
                                "eff.%s of %s is %g: efficiency factors must be in [%g, 1]%s",
                                fr[i].name, g->name, v, TP_MIN_EFF,
                                fr[i].zero_ok ? " (or 0: unset)" : "");
    }
    tp_status st = kernel_shape_validate(g, err);
    if (st != TP_OK)
        return st;
    const struct {
        const char *name;
        double v;
    } host[] = {{"moe_host_layer_s", e->moe_host_layer_s},
                {"moe_host_expert_s", e->moe_host_expert_s}};
    for (size_t i = 0; i < sizeof host / sizeof host[0]; i++)
        if (!(host[i].v >= 0.0 && host[i].v <= 1.0))
            return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.eff",
                                "eff.%s of %s is %g s: a MoE layer's host time must be in "
                                "[0, 1] s",
                                host[i].name, g->name, host[i].v);
    st = attn_seq_validate(g, err);
    if (st != TP_OK)
        return st;
    if (!(e->overlap >= 0.0 && e->overlap <= 1.0) || !(e->gemm_half_dim >= 0.0) ||
        !isfinite(e->gemm_half_dim) || !(e->intra_lat_s >= 0.0) || !(e->inter_lat_s >= 0.0) ||
        !isfinite(e->intra_lat_s) || !isfinite(e->inter_lat_s))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "gpu.eff",
                            "overlap must be in [0, 1] and latencies finite and >= 0");
    return TP_OK;
}
