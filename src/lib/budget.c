/* SPDX-License-Identifier: MIT */
/*
 * budget.c: the planning arithmetic of seeds 000 and 001, forward and
 * inverse.
 *
 *   steps      = D / (B s)                      D tokens, B sequences, s tokens each
 *   FLOPs      = 6 N D  (or the exact per-token count x D, flops.c)
 *   GPU-hours  = FLOPs / (MFU * peak) / 3600     per-GPU sustained FLOP/s = MFU * peak
 *   wall-clock = GPU-hours / GPUs                (perfect scaling at that MFU)
 *   cost       = GPU-hours * price per GPU-hour
 *
 * Inverse: GPUs for a deadline (GPU-hours / hours, then whole nodes, then
 * a size on which DP divides the global batch), the MFU a deadline needs,
 * the MFU of a measured throughput, the GPU-hours a budget buys, and the
 * compute-optimal model and tokens a budget affords.
 *
 * Invariants: gpus_for_deadline(h, wall_h(h, n)) == n; the rounded
 * cluster is >= the exact one and a whole number of nodes.
 */
#include <math.h>
#include <string.h>

#include "internal.h"

static bool pos(double x)
{
    return isfinite(x) && x > 0.0;
}

double tp_budget_steps(double tokens, double tokens_per_step)
{
    if (!pos(tokens_per_step) || !(tokens >= 0.0))
        return 0.0;
    return tokens / tokens_per_step;
}

double tp_budget_flops_per_s(double peak, double mfu)
{
    return pos(peak) && pos(mfu) ? peak * mfu : 0.0;
}

double tp_budget_gpu_hours(double flops, double flops_per_s_per_gpu)
{
    if (!pos(flops_per_s_per_gpu) || !(flops >= 0.0))
        return 0.0;
    return flops / flops_per_s_per_gpu / 3600.0;
}

double tp_budget_wall_h(double gpu_hours, double num_gpus)
{
    return pos(num_gpus) && gpu_hours >= 0.0 ? gpu_hours / num_gpus : 0.0;
}

double tp_budget_gpus_for_deadline(double gpu_hours, double deadline_h)
{
    return pos(deadline_h) && gpu_hours >= 0.0 ? gpu_hours / deadline_h : 0.0;
}

int64_t tp_budget_round_nodes(double gpus, int64_t per_node)
{
    if (per_node < 1 || !(gpus >= 0.0) || gpus > (double)TP_MAX_GPUS)
        return 0;
    /* A hair of tolerance so that 512.0000000001 GPUs stays 512. */
    double nodes = ceil(gpus / (double)per_node * (1.0 - 1e-12));
    if (nodes < 1.0)
        nodes = 1.0;
    return (int64_t)nodes * per_node;
}

int64_t tp_budget_round_layout(double gpus, int64_t per_node, int64_t mp, int64_t global_batch,
                               int64_t micro_batch, int64_t max_gpus)
{
    if (mp < 1 || global_batch < 1 || micro_batch < 1 || max_gpus < 1)
        return 0;
    int64_t n = tp_budget_round_nodes(gpus, per_node);
    if (n < 1)
        return 0;
    for (; n <= max_gpus; n += per_node) {
        if (n % mp != 0)
            continue;
        int64_t dp = n / mp;
        if (dp <= global_batch / micro_batch && global_batch % (micro_batch * dp) == 0)
            return n;
    }
    return 0;
}

double tp_budget_required_mfu(double flops, double num_gpus, double peak, double wall_s)
{
    if (!pos(num_gpus) || !pos(peak) || !pos(wall_s) || !(flops >= 0.0))
        return 0.0;
    return flops / (num_gpus * peak * wall_s);
}

double tp_budget_mfu_from_throughput(double tokens_per_s, double flops_per_token, double num_gpus,
                                     double peak)
{
    if (!pos(num_gpus) || !pos(peak))
        return 0.0;
    return tokens_per_s * flops_per_token / (num_gpus * peak);
}

double tp_budget_tokens_per_s(double mfu, double flops_per_token, double num_gpus, double peak)
{
    if (!pos(flops_per_token))
        return 0.0;
    return mfu * num_gpus * peak / flops_per_token;
}

double tp_budget_gpu_hours_for_usd(double usd, double price)
{
    return pos(price) && usd >= 0.0 ? usd / price : 0.0;
}

tp_status tp_budget_affords(double usd, double price, double peak, double mfu,
                            const tp_scaling_fit *fit, double tokens_per_param,
                            tp_scaling_point *out, tp_error *err)
{
    if (!pos(usd))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "plan.budget_usd", "budget must be > 0 USD");
    if (!pos(price))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "plan.price_per_hour",
                            "a money budget needs a price per GPU-hour > 0");
    if (!pos(peak) || !pos(mfu) || mfu > 1.0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "plan.mfu", "MFU must be in (0, 1]");
    double C = usd / price * 3600.0 * peak * mfu;
    if (tokens_per_param > 0.0)
        return tp_scaling_rule(fit, C, tokens_per_param, out, err);
    return tp_scaling_optimal(fit, C, out, err);
}

tp_status tp_budget_measured(const tp_config *c, const tp_result *r, double tokens_per_s,
                             tp_measured *out, tp_error *err)
{
    if (!c || !r || !out)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "measured-tokens-per-s", "no input given");
    memset(out, 0, sizeof *out);
    if (!pos(tokens_per_s) || !isfinite(tokens_per_s))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "measured-tokens-per-s",
                            "must be a throughput > 0 tokens/s");
    tp_precision prec = c->train.precision;
    double peak = (int)prec >= 0 && prec < TP_PREC_COUNT ? c->gpu.peak_flops_per_s[prec] : 0.0;
    double n = (double)c->train.num_gpus;
    if (!pos(peak) || !pos(n))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "precision",
                            "%s has no dense peak for this precision", c->gpu.name);
    out->tokens_per_s = tokens_per_s;
    out->mfu = tp_budget_mfu_from_throughput(tokens_per_s, r->flops.model_per_token, n, peak);
    out->hfu = tp_budget_mfu_from_throughput(tokens_per_s, r->flops.hardware_per_token, n, peak);
    out->mfu_6n = tp_budget_mfu_from_throughput(tokens_per_s, r->flops.six_n_per_token, n, peak);
    if (out->mfu > 1.0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "measured-tokens-per-s",
                            "%g tokens/s is %.0f%% MFU on %lld x %s: more than the peak "
                            "(is it per GPU? this flag takes the whole job's)",
                            tokens_per_s, out->mfu * 100.0, (long long)c->train.num_gpus,
                            c->gpu.name);
    out->step_s = r->flops.tokens_per_step / tokens_per_s;
    out->predicted_mfu = r->time.computed ? r->time.mfu : 0.0;
    out->ratio = out->predicted_mfu > 0.0 ? out->mfu / out->predicted_mfu : 0.0;
    return TP_OK;
}
