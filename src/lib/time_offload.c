/* SPDX-License-Identifier: MIT */
/*
 * time_offload.c: the offloads' share of the step (time.c header, items 9
 * to 11): the optimizer's update on the CPU, the parameters fetched from
 * the host or NVMe, the activations copied down and up. Split from time.c,
 * whose step (tp__step_time) calls them when an offload is set.
 */
#include "time_internal.h"

/*
 * Optimizer offload (header 9): for the offloaded share f of the parameters
 * this GPU updates, gradients down and 16-bit weights up over the host
 * link, and the CPU update (the same bytes as on the GPU, at the node's
 * CPU memory bandwidth shared by its GPUs). The gradient copy hides under
 * the last micro-batch's backward (ZeRO-Offload swaps gradients during
 * backward) up to eff.overlap with opts.dp_comm_overlap; the CPU update
 * and the weight upload are exposed (no one-step delayed update).
 */
double tp__time_opt_offload(const ctx *x, const tp_result *r, double window_b)
{
    const tp_config *c = x->c;
    const tp_train *t = &c->train;
    double f = t->offload_optimizer;
    if (!(f > 0.0))
        return 0.0;
    tp_state_bytes bpp;
    tp_state_bytes_per_param(t, &bpp);
    double params = r->stage_first.params_on_gpu - r->stage_first.frozen_params;
    if (r->stage_last.params_on_gpu - r->stage_last.frozen_params > params)
        params = r->stage_last.params_on_gpu - r->stage_last.frozen_params;
    double D = (double)x->dp_pl.size;
    if (x->edp_pl.size == x->dp_pl.size || !(c->model.num_experts > 0))
        params = f * params / (D > 1.0 ? D : 1.0);
    else
        params = f * tp__time_updated_params(x, r); /* experts sharded over EDP */
    const tp_options *o = &c->opts;
    double d2h = params * bpp.grads / o->pcie_bw_bytes_per_s;
    /* with the parameters offloaded the updated weights stay on the host
     * (tp__time_param_offload moves them to NVMe when they live there) */
    double h2d =
        t->offload_params != TP_OFFLOAD_NONE ? 0.0 : params * bpp.weights / o->pcie_bw_bytes_per_s;
    double cpu_bw = o->host_mem_bw_bytes_per_s / (double)tp__time_nodes_gpus(c);
    double cpu = params * (2.0 * bpp.optimizer + 2.0 * 4.0 + bpp.weights) / cpu_bw;
    double down = o->dp_comm_overlap ? tp__time_exposed(d2h, window_b, x->ov) : d2h;
    return down + cpu + h2d;
}

/* The rate one GPU's parameter shard moves at: its own host link (ZeRO-
 * Infinity's bandwidth-centric partitioning: every GPU moves its own
 * shard), and from NVMe the node's drives shared by its GPUs, read through
 * a pinned host buffer, so the slower of the two. */
static double param_offload_bw(const ctx *x)
{
    const tp_options *o = &x->c->opts;
    double bw = o->pcie_bw_bytes_per_s;
    if (x->c->train.offload_params == TP_OFFLOAD_NVME)
        bw = min2(bw, o->nvme_bw_bytes_per_s / (double)tp__time_nodes_gpus(x->c));
    return bw;
}

/*
 * Parameter offload (header 10; ZeRO 3): every gather of stage 0's weights
 * first fetches this GPU's shard from the host or NVMe, prefetched under
 * compute (ZeRO-Infinity's overlap-centric design) up to eff.overlap with
 * opts.dp_comm_overlap, one layer's share always exposed: per micro-batch
 * a forward and a backward fetch, or under a pipeline once per step (the
 * stage stays gathered). After the step the updated weight shard goes back
 * (the GPU's update over the same link; the CPU's update only to NVMe).
 */
double tp__time_param_offload(const ctx *x, const tp_result *r, const cost *st0, double m,
                              double layers0, double *bytes)
{
    const tp_config *c = x->c;
    const tp_train *t = &c->train;
    tp_state_bytes bpp;
    tp_state_bytes_per_param(t, &bpp);
    double w = tp__time_sharded_params(x, r, &r->stage_first) * bpp.weights;
    double bw = param_offload_bw(x);
    double fetch = w / bw;
    double L = layers0 >= 1.0 ? layers0 : 1.0;
    bool ovl = c->opts.dp_comm_overlap;
    double ex_f = ovl ? max2(tp__time_exposed(fetch, st0->fwd, x->ov), fetch / L) : fetch;
    double ex_b =
        ovl ? max2(tp__time_exposed(fetch, st0->bwd + st0->recomp, x->ov), fetch / L) : fetch;
    double fetches = t->pp > 1 ? ex_f : m * (ex_f + ex_b);
    double f = t->offload_optimizer;
    double back = (1.0 - f) * w / bw;
    bool nvme = t->offload_params == TP_OFFLOAD_NVME;
    if (nvme)
        back += f * w / (c->opts.nvme_bw_bytes_per_s / (double)tp__time_nodes_gpus(c));
    *bytes = (t->pp > 1 ? 1.0 : 2.0 * m) * w + (nvme ? 1.0 : 1.0 - f) * w;
    return fetches + back;
}

/*
 * Activation offload (header 10): per micro-batch the offloaded layers'
 * activations go down over the host link during the forward and come back
 * during the backward, each hidden under that pass's compute up to
 * eff.overlap (TE's offload streams are asynchronous).
 */
double tp__time_act_offload(const ctx *x, const tp_result *r, const cost *st0, double m,
                            double *bytes)
{
    *bytes = 2.0 * m * r->stage_first.act_host_bytes;
    double move = r->stage_first.act_host_bytes / x->c->opts.pcie_bw_bytes_per_s;
    return m * (tp__time_exposed(move, st0->fwd, x->ov) + tp__time_exposed(move, st0->bwd, x->ov));
}
