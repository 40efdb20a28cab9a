/* SPDX-License-Identifier: MIT */
/*
 * comm.c: collective communication cost, alpha-beta ring model.
 *
 * Equations and conventions are in include/tp/comm.h (the contract) and
 * docs/model.md; sources: formulas.md 4.2 (ring costs, NCCL busbw factors
 * from nccl-tests doc/PERFORMANCE.md), 4.3 (rail-optimised multi-node ring
 * and the serialised hierarchical all-reduce), NCCL src/graph/tuning.cc
 * (latency step counts, tree latency).
 *
 * Symbols: n ranks, M bytes, B busbw per rank per direction (bytes/s),
 * alpha per-step latency (s), r group members per node, N nodes.
 *
 * Invariants (tests/unit/test_comm.c): every time is finite and >= 0;
 * time grows with M; the ring all-reduce equals reduce-scatter plus
 * all-gather; a group inside one node never costs more than the same group
 * across nodes; TP_COLL_SIMPLE is M / B.
 * Known approximations: one latency value per link type (NCCL's depends on
 * protocol and message size); no congestion between concurrent groups
 * beyond the per-GPU NIC; SHARP/NVLS in-network reduction not modelled.
 */
#include "internal.h"

double tp_coll_busbw_factor(tp_coll kind, int64_t n)
{
    if (kind == TP_COLL_P2P || kind == TP_COLL_BROADCAST)
        return 1.0;
    if (n < 2)
        return 0.0;
    double nn = (double)n;
    if (kind == TP_COLL_ALL_REDUCE)
        return 2.0 * (nn - 1.0) / nn;
    return (nn - 1.0) / nn;
}

/* Latency steps of a flat ring collective. */
static double ring_steps(tp_coll kind, int64_t n)
{
    if (kind == TP_COLL_P2P || kind == TP_COLL_BROADCAST)
        return 1.0;
    double steps = (double)(n - 1);
    return kind == TP_COLL_ALL_REDUCE ? 2.0 * steps : steps;
}

double tp_coll_time(tp_coll kind, tp_coll_model model, double bytes, int64_t n,
                    double bw_bytes_per_s, double lat_s)
{
    if (!(bytes > 0.0) || !(bw_bytes_per_s > 0.0))
        return 0.0;
    if (n < 2 && kind != TP_COLL_P2P)
        return 0.0;
    if (model == TP_COLL_SIMPLE)
        return bytes / bw_bytes_per_s;
    double alpha = lat_s > 0.0 ? lat_s : 0.0;
    return ring_steps(kind, n) * alpha + tp_coll_busbw_factor(kind, n) * bytes / bw_bytes_per_s;
}

double tp_allreduce_hier_time(double bytes, int64_t gpus_per_node, int64_t nodes,
                              double intra_bw_bytes_per_s, double inter_bw_bytes_per_s,
                              double intra_lat_s, double inter_lat_s)
{
    if (!(bytes > 0.0))
        return 0.0;
    int64_t g = gpus_per_node > 1 ? gpus_per_node : 1;
    /* reduce-scatter + all-gather inside the node = one intra ring all-reduce */
    double t =
        tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, bytes, g, intra_bw_bytes_per_s, intra_lat_s);
    t += tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, bytes / (double)g, nodes,
                      inter_bw_bytes_per_s, inter_lat_s);
    return t;
}

void tp_group_place_of(int64_t size, int64_t stride, int64_t gpus_per_node, tp_group_place *out)
{
    if (size <= 1) { /* one GPU: what the general case gives, without its divisions */
        out->size = out->ranks_per_node = out->nodes = 1;
        out->intra = true;
        return;
    }
    int64_t n = size;
    int64_t st = stride > 1 ? stride : 1;
    int64_t g = gpus_per_node > 1 ? gpus_per_node : 1;
    int64_t r;
    if (st >= g)
        r = 1; /* every member on its own node */
    else
        r = g / st; /* members that fit in one node */
    if (r > n)
        r = n;
    if (r < 1)
        r = 1;
    out->size = n;
    out->ranks_per_node = r;
    out->nodes = (n + r - 1) / r;
    out->intra = out->nodes <= 1;
}

/* Achieved intra-node and NIC busbw of a GPU type (bytes/s). */
static double intra_bw(const tp_gpu *g)
{
    return g->intra_bw_bytes_per_s * g->eff.intra_bw;
}

static double nic_bw(const tp_gpu *g)
{
    return g->inter_bw_bytes_per_s * g->eff.inter_bw;
}

double tp_group_busbw(const tp_gpu *g, const tp_group_place *pl)
{
    double bi = intra_bw(g);
    if (pl->intra)
        return bi;
    double bn = (double)pl->ranks_per_node * nic_bw(g);
    return bn < bi ? bn : bi;
}

/* ceil(log2(x)) for x >= 1, without libm. */
static double ceil_log2(int64_t x)
{
    int k = 0;
    int64_t v = 1;
    while (v < x && k < 62) {
        v <<= 1;
        k++;
    }
    return (double)k;
}

/* Latency of a collective on a placed group (s). */
static double group_latency(const tp_gpu *g, tp_coll kind, const tp_group_place *pl)
{
    double li = g->eff.intra_lat_s, ln = g->eff.inter_lat_s;
    if (kind == TP_COLL_P2P || kind == TP_COLL_BROADCAST)
        return pl->intra ? li : ln;
    double n = (double)pl->size, N = (double)pl->nodes, r = (double)pl->ranks_per_node;
    /* ring: (n-1) steps, (N-1) of them cross a node boundary (x2 for all-reduce) */
    double inter_steps = pl->intra ? 0.0 : N - 1.0;
    double ring = (n - 1.0 - inter_steps) * li + inter_steps * ln;
    if (kind != TP_COLL_ALL_REDUCE)
        return ring;
    ring *= 2.0;
    /* double binary tree (NCCL >= 2.4): 2((r-1) intra + log2 N inter); in
     * one large NVLink domain (NVL72) NCCL's tree/NVLS: 2 log2(n) intra */
    double tree = pl->intra ? 2.0 * ceil_log2(pl->size) * li
                            : 2.0 * ((r - 1.0) * li + ceil_log2(pl->nodes) * ln);
    return tree < ring ? tree : ring;
}

double tp__a2a_split_time(const tp_gpu *g, tp_coll_model model, double nvlink_bytes,
                          double nic_bytes, const tp_group_place *pl)
{
    if (!(nvlink_bytes + nic_bytes > 0.0) || pl->size < 2)
        return 0.0;
    if (model == TP_COLL_SIMPLE) {
        double line = g->inter_bw_bytes_per_s;
        return line > 0.0 ? (nvlink_bytes + nic_bytes) / line : 0.0;
    }
    double bi = intra_bw(g), bn = nic_bw(g);
    double t_in = bi > 0.0 ? nvlink_bytes / bi : 0.0;
    double t_out = bn > 0.0 ? nic_bytes / bn : 0.0;
    return group_latency(g, TP_COLL_ALL_TO_ALL, pl) + (t_in > t_out ? t_in : t_out);
}

double tp_group_coll_time(const tp_gpu *g, tp_coll_model model, tp_coll kind, double bytes,
                          const tp_group_place *pl)
{
    if (!(bytes > 0.0))
        return 0.0;
    if (pl->size < 2 && kind != TP_COLL_P2P)
        return 0.0;
    if (model == TP_COLL_SIMPLE) {
        double line = pl->intra ? g->intra_bw_bytes_per_s : g->inter_bw_bytes_per_s;
        return line > 0.0 ? bytes / line : 0.0;
    }
    double lat = group_latency(g, kind, pl);
    if (kind == TP_COLL_P2P || kind == TP_COLL_BROADCAST) {
        double bw = pl->intra ? intra_bw(g) : nic_bw(g);
        return bw > 0.0 ? lat + bytes / bw : 0.0;
    }
    if (kind == TP_COLL_ALL_TO_ALL && !pl->intra) {
        /* off-node share through the own NIC, on-node share over NVLink, concurrently */
        double n = (double)pl->size, r = (double)pl->ranks_per_node;
        double bi = intra_bw(g), bn = nic_bw(g);
        double t_in = bi > 0.0 ? bytes * (r - 1.0) / n / bi : 0.0;
        double t_out = bn > 0.0 ? bytes * (n - r) / n / bn : 0.0;
        return lat + (t_in > t_out ? t_in : t_out);
    }
    double bw = tp_group_busbw(g, pl);
    if (!(bw > 0.0))
        return 0.0;
    return lat + tp_coll_busbw_factor(kind, pl->size) * bytes / bw;
}
