/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.c: checkpoint size and write time, the interval that
 * minimises lost work, and the expected cost of failures (formulas.md 6).
 *
 * Size (6.1): weights + optimizer state at their stated precision:
 *   S = Psi * w + Psi_trainable * (master + moments) [+ grads]
 *   mixed-precision AdamW: 2 + 4 + 8 = 14 B/param (gradients are not saved).
 * Write (6.1): delta_sync = S / aggregate storage bandwidth. Asynchronous
 *   checkpointing (snapshot to host memory, persist in the background)
 *   stalls training only for the host copy of each GPU's 1/n share of S
 *   (a distributed checkpoint writes each byte once, spread over the n
 *   ranks), but a checkpoint is durable only write_s later, and the next
 *   one cannot start before: the interval is at least write_s, and a
 *   failure also loses the checkpoint in flight (lag = write_s).
 * Job failure rate (6.2): M = 1 / (n lambda), independent exponential
 *   failures of n GPUs each failing at lambda per hour. Default lambda:
 *   Llama 3 405B, 419 unexpected interruptions in 16,384 x 1,296 GPU-hours
 *   = 1.97e-5 per GPU-hour (6.3).
 * Interval: Young 1974 tau = sqrt(2 delta M); Daly 2006
 *   tau = sqrt(2 delta M) [1 + sqrt(delta/2M)/3 + (delta/2M)/9] - delta for
 *   delta < 2M, else M. tau is compute time between checkpoints.
 * Expected wall clock (first order in 1/M, derived): per tau of work the
 *   job stalls delta; each failure costs on average tau/2 of rework (plus
 *   the persist lag) and R to restart; failures arrive at 1/M of wall time:
 *     W = T (1 + delta/tau) + (W / M) (tau/2 + lag + R)
 *     W = T (1 + delta/tau) / (1 - (tau/2 + lag + R) / M)
 *   goodput = T / W. Not modelled: failures during restart, correlated
 *   failures, degraded-but-running hardware, checkpoint corruption.
 * Check (formulas.md 6.3): 16,384 GPUs, delta 60 s: M = 11,135 s,
 *   Young 1,156 s, Daly 1,116 s.
 */
#include <math.h>
#include <string.h>

#include "internal.h"

double tp_ckpt_young(double delta_s, double mtbf_s)
{
    if (!(delta_s >= 0.0) || !(mtbf_s > 0.0) || !isfinite(mtbf_s))
        return 0.0;
    return sqrt(2.0 * delta_s * mtbf_s);
}

double tp_ckpt_daly(double delta_s, double mtbf_s)
{
    if (!(delta_s >= 0.0) || !(mtbf_s > 0.0) || !isfinite(mtbf_s))
        return 0.0;
    if (delta_s >= 2.0 * mtbf_s)
        return mtbf_s;
    double x = delta_s / (2.0 * mtbf_s);
    double tau = sqrt(2.0 * delta_s * mtbf_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta_s;
    return tau > 0.0 ? tau : 0.0;
}

#define CHECK(cond, path, msg)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return tp_error_set(err, TP_ERR_INVALID_ARG, path, msg);                               \
    } while (0)

static bool fin_ge0(double x)
{
    return isfinite(x) && x >= 0.0;
}

tp_status tp_ckpt_plan(const tp_ckpt_in *in, tp_ckpt *out, tp_error *err)
{
    CHECK(in && out, "ckpt", "no checkpoint input given");
    CHECK(fin_ge0(in->params) && in->params > 0.0 && in->params <= TP_MAX_PARAMS, "params",
          "parameters must be in (0, 1e15]");
    CHECK(fin_ge0(in->trainable_params) && in->trainable_params <= in->params * (1.0 + 1e-12),
          "params", "trainable parameters must be in [0, parameters]");
    CHECK(fin_ge0(in->weight_bytes_per_param) && in->weight_bytes_per_param <= 16.0 &&
              fin_ge0(in->master_bytes_per_param) && in->master_bytes_per_param <= 16.0 &&
              fin_ge0(in->moment_bytes_per_param) && in->moment_bytes_per_param <= 64.0 &&
              fin_ge0(in->grad_bytes_per_param) && in->grad_bytes_per_param <= 16.0,
          "ckpt", "bytes per parameter must be finite, >= 0 and plausible");
    CHECK(in->num_gpus >= 1 && in->num_gpus <= TP_MAX_GPUS, "gpus", "GPUs must be in [1, 2^20]");
    CHECK(isfinite(in->storage_bw_bytes_per_s) && in->storage_bw_bytes_per_s > 0.0, "storage-gbps",
          "storage write bandwidth must be > 0");
    CHECK(!in->async || (isfinite(in->host_bw_bytes_per_s) && in->host_bw_bytes_per_s > 0.0),
          "host-gbps", "GPU-to-host copy bandwidth must be > 0");
    CHECK(fin_ge0(in->failures_per_gpu_hour) && in->failures_per_gpu_hour < 1.0, "gpu-failure-rate",
          "failure rate must be in [0, 1) per GPU-hour");
    CHECK(fin_ge0(in->restart_s) && in->restart_s <= 1e7, "restart-min",
          "restart time must be finite and >= 0");
    CHECK(fin_ge0(in->compute_s) && in->compute_s <= 1e12, "ckpt", "compute time must be >= 0");
    CHECK(fin_ge0(in->interval_s) && in->interval_s <= 1e12, "ckpt-every",
          "checkpoint interval must be finite and >= 0");

    memset(out, 0, sizeof *out);
    double n = (double)in->num_gpus;
    out->weights_bytes = in->params * in->weight_bytes_per_param;
    out->optimizer_bytes =
        in->trainable_params * (in->master_bytes_per_param + in->moment_bytes_per_param);
    out->grads_bytes = in->trainable_params * in->grad_bytes_per_param;
    out->total_bytes = out->weights_bytes + out->optimizer_bytes + out->grads_bytes;
    out->write_s = out->total_bytes / in->storage_bw_bytes_per_s;
    if (in->async) {
        out->stall_s = out->total_bytes / n / in->host_bw_bytes_per_s;
        out->persist_lag_s = out->write_s;
    } else {
        out->stall_s = out->write_s;
        out->persist_lag_s = 0.0;
    }

    double lambda_per_s = in->failures_per_gpu_hour / 3600.0;
    double M = lambda_per_s > 0.0 ? 1.0 / (n * lambda_per_s) : HUGE_VAL;
    out->job_mtbf_s = isfinite(M) ? M : 0.0; /* 0 = no failures */
    double T = in->compute_s;
    if (isfinite(M)) {
        out->young_s = tp_ckpt_young(out->stall_s, M);
        out->daly_s = tp_ckpt_daly(out->stall_s, M);
    }
    double tau = in->interval_s > 0.0 ? in->interval_s : out->daly_s;
    if (!(tau > 0.0)) /* no failures, or a free checkpoint: one at the end */
        tau = T > 0.0 ? T : 1.0;
    if (in->async && tau < out->write_s) {
        tau = out->write_s;
        out->interval_raised = true;
    }
    out->interval_s = tau;

    double base = T * (1.0 + out->stall_s / tau);
    double per_failure = tau / 2.0 + out->persist_lag_s + in->restart_s;
    double denom = isfinite(M) ? 1.0 - per_failure / M : 1.0;
    out->ckpt_overhead_s = T * out->stall_s / tau;
    if (!(denom > 0.0)) {
        out->progress = false;
        out->lost_fraction = 1.0;
        out->goodput = 0.0;
        return TP_OK;
    }
    out->progress = true;
    double W = base / denom;
    out->wall_s = W;
    out->failures = isfinite(M) ? W / M : 0.0;
    out->rework_s = out->failures * (tau / 2.0 + out->persist_lag_s);
    out->restart_total_s = out->failures * in->restart_s;
    out->lost_fraction = W > 0.0 ? (W - T) / W : 0.0;
    out->goodput = W > 0.0 ? T / W : 1.0;
    return TP_OK;
}
