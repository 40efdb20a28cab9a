/* SPDX-License-Identifier: MIT */
/*
 * time_moe.c: what a MoE layer adds to the step beyond its GEMMs and
 * element-wise work (time.c header, items 2b and 4.9): the expert-parallel
 * all-to-alls, their overlap beside another micro-batch's passes, and the
 * floor of a layer that waits on the host. Split from time.c, whose
 * moe_layer (and time_hybrid.c's MoE layers) call them; off the dense path.
 */
#include "time_internal.h"

#include <math.h>

/*
 * Distinct units (nodes, or GPUs) a token's k routed copies reach, on an
 * EP group spread over N of them (opts.moe_node_dispatch): experts spread
 * evenly, so N(1 - (1 - 1/N)^k); group-limited routing (model.
 * moe_router_groups G, moe_group_topk g) bounds it when the groups align
 * with the units, Megatron-Core's expert order placing E/N consecutive
 * experts on each: G a multiple of N puts G/N whole groups on a unit (at
 * most g units), N a multiple of G spreads a group over N/G units (at most
 * g N/G).
 */
static double ep_dest_units(const tp_model *m, double N)
{
    double k = (double)m->topk;
    double d = N * (1.0 - pow(1.0 - 1.0 / N, k));
    int64_t G = m->moe_router_groups, n = (int64_t)N;
    if (G <= 0)
        return d;
    double cap = G % n == 0   ? (double)m->moe_group_topk
                 : n % G == 0 ? (double)m->moe_group_topk * (double)(n / G)
                              : N;
    return min2(d, cap);
}

/*
 * One all-to-all of the deduplicating dispatcher (opts.moe_node_dispatch:
 * DeepEP, DeepSeek-V3 report section 3.2.2). DeepEP sends a token once to
 * each GPU that holds one of its experts (get_dispatch_layout's
 * is_token_in_rank, one flag per token and rank), which permutes what it
 * receives by expert: Dg distinct GPUs of the EP group, not k copies.
 * Across nodes a token crosses the inter-node network once per
 * destination node other than its own, to the GPU of its own local index
 * there, which forwards it over NVLink once to each of its GPUs there. Per
 * rank: NIC bytes c * D (N - 1)/N (D distinct nodes, its own among them
 * with probability D/N), NVLink bytes c * Dg (r - 1)/r (a GPU is the
 * forwarding one with probability 1/r); copy = c = (T/t) h 2, one copy of
 * each token. Inside one node: the all-to-all of Dg copies.
 */
static double ep_node_a2a(const ctx *x, double copy)
{
    const tp_config *c = x->c;
    const tp_group_place *pl = &x->ep_pl;
    double N = (double)pl->nodes, r = (double)pl->ranks_per_node;
    double Dg = ep_dest_units(&c->model, (double)c->train.ep);
    if (pl->intra)
        return tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_ALL_TO_ALL, copy * Dg, pl);
    double D = ep_dest_units(&c->model, N);
    return tp__a2a_split_time(&c->gpu, c->opts.coll_model, copy * Dg * (r - 1.0) / r,
                              copy * D * (N - 1.0) / N, pl);
}

double tp__time_ep_a2a(const ctx *x, double *bytes)
{
    const tp_config *c = x->c;
    double copy = x->T / x->tt * x->h * 2.0; /* one copy of each token */
    if (c->opts.moe_node_dispatch) {
        *bytes = copy * ep_dest_units(&c->model, (double)c->train.ep);
        return ep_node_a2a(x, copy);
    }
    *bytes = copy * (double)c->model.topk;
    return tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_ALL_TO_ALL, *bytes, &x->ep_pl);
}

/* Dispatch + combine all-to-alls of a MoE layer, forward and backward (4.9). */
void tp__time_ep(const ctx *x, cost *o, module_parts *mp)
{
    if (x->c->train.ep <= 1)
        return;
    double bytes;
    double a2a = tp__time_ep_a2a(x, &bytes);
    o->ep_f += 2.0 * a2a;
    o->ep_b += 2.0 * a2a;
    mp->moe_fwd += 2.0 * a2a; /* MoE recompute dispatches again */
}

/*
 * The EP all-to-all overlap (opts.moe_a2a_overlap; Megatron-Core
 * --overlap-moe-expert-parallel-comm): the combined 1F1B schedule runs one
 * micro-batch's forward of a layer beside another's backward of the same
 * layer, on two streams (megatron/core/models/common/
 * model_chunk_schedule_plan.py TransformerLayerSchedulePlan.run):
 *     comm: combine_bwd       | dispatch_fwd -> dispatch_bwd   | combine_fwd
 *     comp: pre_dispatch_fwd  | mlp_bwd -> mlp_bwd_dw -> mlp_fwd | pre_dispatch_bwd
 * Each of the four all-to-alls hides behind the computation beside it, up
 * to eff.overlap of it and never more than that computation's time: the
 * backward combine behind the attention block's forward (pre_f), the
 * forward dispatch behind the MoE MLP's backward (mlp_b), the backward
 * dispatch behind its forward (mlp_f), the forward combine behind the
 * attention block's backward (pre_b). o->ep_hid is the sum hidden per
 * micro-batch whose passes are paired; tp__step_time counts the pairs.
 */
void tp__time_ep_overlap(const ctx *x, cost *o, double pre_f, double pre_b)
{
    const tp_config *c = x->c;
    /* DualPipe pairs a forward with a backward the same way (dualpipe_step) */
    if (!(c->opts.moe_a2a_overlap || c->train.schedule == TP_SCHED_DUALPIPE) || c->train.ep <= 1)
        return;
    double a2a = 0.25 * (o->ep_f + o->ep_b); /* one of the four */
    double mlp_f = o->fwd - pre_f, mlp_b = o->bwd - pre_b;
    o->ep_hid = 4.0 * a2a - tp__time_exposed(a2a, pre_f, x->ov) -
                tp__time_exposed(a2a, mlp_b, x->ov) - tp__time_exposed(a2a, mlp_f, x->ov) -
                tp__time_exposed(a2a, pre_b, x->ov);
}

/*
 * Host-bound MoE layers (header 2b; docs/model.md 2b). A dropless MoE layer
 * synchronises with the host to learn how many tokens each expert gets
 * (Megatron-Core's all-to-all splits and TransformerEngine's grouped GEMM
 * take them as host lists), and the host then issues the rest of the
 * layer: when that takes longer than the GPU's work, the layer runs at the
 * host's pace. The forward and backward take at least a third and two
 * thirds of eff.moe_host_layer_s + local experts x eff.moe_host_expert_s
 * (the backward issues twice the GEMMs). No floor with a capacity factor
 * (token drop padded to capacity: static shapes) or opts.moe_sync_free
 * (kernel.c tp_moe_host_floor_s decides, for the reports too).
 */
void tp__time_host_floor(const ctx *x, cost *o)
{
    double host = tp_moe_host_floor_s(x->c, NULL);
    if (!(host > 0.0))
        return;
    if (o->fwd < host / 3.0)
        o->fwd = host / 3.0;
    if (o->bwd < 2.0 * host / 3.0)
        o->bwd = 2.0 * host / 3.0;
}
