/* SPDX-License-Identifier: MIT */
/**
 * comm.h: collective communication cost (part of the libtp public contract,
 * included by tp/tp.h; it uses tp_gpu and tp_coll_model from there).
 *
 * The model (formulas.md 4.2-4.3, implemented in src/lib/comm.c):
 *
 *   alpha-beta ring, n ranks, per-rank bandwidth B (bytes/s, one direction),
 *   per-step latency alpha (s), M bytes (the FULL buffer: for all-gather and
 *   reduce-scatter the gathered size, for all-to-all one rank's whole send
 *   buffer including the chunk it keeps, for p2p the message):
 *     all-reduce      2(n-1) alpha + 2(n-1)/n * M / B
 *     all-gather        (n-1) alpha +  (n-1)/n * M / B
 *     reduce-scatter    (n-1) alpha +  (n-1)/n * M / B
 *     all-to-all        (n-1) alpha +  (n-1)/n * M / B
 *     p2p, broadcast          alpha +            M / B
 *   The factors 2(n-1)/n and (n-1)/n are NCCL's bus-bandwidth factors
 *   (nccl-tests doc/PERFORMANCE.md), so B is a busbw.
 *
 *   TP_COLL_SIMPLE (seed 001's convention): M / B for every kind, no ring
 *   factor, no latency. Not physical; selectable for reproducing documents.
 *
 * Groups on a cluster (tp_group_*): ranks are laid out as Megatron orders
 * them, TP innermost, then CP, then DP (EP carved out of DP), then PP; a
 * group of n ranks whose members are `stride` ranks apart lives in one
 * node when stride * n <= gpus_per_node and uses the intra-node link;
 * otherwise it spans nodes. A spanning group is costed as NCCL's
 * rail-optimised ring: every GPU has its own NIC and NCCL runs at least one
 * channel per local rank, so the inter-node segment gives a per-rank busbw
 * of min(B_intra, r * B_nic) where r is the group's ranks per node
 * (formulas.md 4.3); latency counts 2(n-1) - 2(N-1) intra-node and 2(N-1)
 * inter-node steps for a ring all-reduce over N nodes (NCCL tuning.cc), or
 * a double binary tree's 2((r-1) alpha_intra + ceil(log2 N) alpha_inter)
 * (2 ceil(log2 n) alpha_intra inside one node), whichever is smaller.
 * All-to-all across nodes moves the off-node share (n - r)/n of the buffer
 * through the NIC and the rest over the intra-node link at the same time
 * (the slower one decides). Bandwidths passed to the group functions are
 * line rates; they are scaled by the GPU's achieved fractions
 * (tp_gpu_eff.intra_bw, .inter_bw) inside.
 *
 * All functions are pure, never return NaN or inf for finite non-negative
 * input (n < 1 or bytes <= 0 give 0), and are thread-safe.
 */
#ifndef TP_COMM_H
#define TP_COMM_H
#ifdef __cplusplus
extern "C" {
#endif

/** Collective kinds. */
typedef enum tp_coll {
    TP_COLL_ALL_REDUCE = 0,
    TP_COLL_ALL_GATHER,
    TP_COLL_REDUCE_SCATTER,
    TP_COLL_ALL_TO_ALL,
    TP_COLL_P2P, /* one send/receive between two ranks */
    TP_COLL_BROADCAST
} tp_coll;

/**
 * NCCL bus-bandwidth factor of a collective on n ranks: 2(n-1)/n for
 * all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for
 * p2p and broadcast; 0 when n < 2 (nothing moves), except p2p (1).
 */
TP_API double tp_coll_busbw_factor(tp_coll kind, int64_t n);

/**
 * Time in seconds of one collective on a flat ring of n ranks.
 * bytes: M as defined above (bytes); bw_bytes_per_s: per-rank busbw, one
 * direction (bytes/s, > 0); lat_s: per-step latency (s, >= 0). model picks
 * the alpha-beta ring (default) or seed 001's volume / bandwidth.
 * Returns 0 for n < 2 (except p2p), bytes <= 0 or bw <= 0.
 */
TP_API double tp_coll_time(tp_coll kind, tp_coll_model model, double bytes, int64_t n,
                           double bw_bytes_per_s, double lat_s);

/**
 * Explicit hierarchical all-reduce, serialised (formulas.md 4.3, an upper
 * bound; NCCL pipelines the stages): ring reduce-scatter inside each node
 * of g GPUs, ring all-reduce of M/g across N nodes on the NIC, all-gather
 * inside the node:
 *   2(g-1)/g * M / B_intra + 2(N-1)/N * (M/g) / B_nic  (+ latencies)
 * Bandwidths in bytes/s (busbw, one direction), latencies in s per step.
 */
TP_API double tp_allreduce_hier_time(double bytes, int64_t gpus_per_node, int64_t nodes,
                                     double intra_bw_bytes_per_s, double inter_bw_bytes_per_s,
                                     double intra_lat_s, double inter_lat_s);

/** Where a group of ranks lies on the cluster. */
typedef struct tp_group_place {
    int64_t size;           /* n, ranks in the group */
    int64_t ranks_per_node; /* r, group members sharing a node (1..n) */
    int64_t nodes;          /* N = ceil(n / r), nodes the group spans */
    bool intra;             /* the whole group is inside one node */
} tp_group_place;

/**
 * Placement of a group of `size` ranks whose members are `stride` ranks
 * apart in the rank order, on nodes of gpus_per_node GPUs (Megatron order:
 * TP stride 1, CP stride tp, DP stride tp*cp, PP stride tp*cp*dp).
 * size, stride and gpus_per_node < 1 are treated as 1.
 */
TP_API void tp_group_place_of(int64_t size, int64_t stride, int64_t gpus_per_node,
                              tp_group_place *out);

/**
 * Time in seconds of one collective of `bytes` (as defined above) on a
 * group placed by tp_group_place_of, on GPUs of type g: intra-node link,
 * rail-optimised multi-node ring or tree, with g->eff's achieved bandwidth
 * fractions and latencies. TP_COLL_SIMPLE divides by the line rate of the
 * link the group uses (intra-node, or the NIC when it spans nodes).
 */
TP_API double tp_group_coll_time(const tp_gpu *g, tp_coll_model model, tp_coll kind, double bytes,
                                 const tp_group_place *place);

/**
 * Per-rank busbw (bytes/s, one direction) a group achieves: the intra-node
 * achieved rate inside a node, min(intra, r * NIC) across nodes (formulas.md
 * 4.3). Efficiency fractions of g->eff applied.
 */
TP_API double tp_group_busbw(const tp_gpu *g, const tp_group_place *place);

/** One kind of collective a GPU runs in a training step (tp_step_collectives). */
typedef struct tp_coll_row {
    const char *name; /* "TP all-reduce", "EP all-to-all", ... (static) */
    tp_coll kind;
    int64_t group;            /* ranks */
    int64_t nodes;            /* nodes the group spans */
    double bytes;             /* one collective's buffer, M above */
    double count;             /* per step (fractional where a schedule halves a stage's share) */
    double busbw_bytes_per_s; /* tp_group_busbw of the group */
    double each_s, total_s;   /* one (tp_group_coll_time), and count of them, before overlap */
} tp_coll_row;

/** Rows tp_step_collectives may fill. */
#define TP_COLL_ROWS_MAX 10

/**
 * The collectives of one step on one GPU as the step-time model counts and
 * times them (src/lib/colls.c): TP all-reduces (and the expert TP group's
 * under MoE parallel folding), the CP ring, the EP all-to-alls and the PP
 * sends of the critical stage (tp_time.critical_stage), and the DP
 * gradient and weight collectives of stage 0, dense parameters over DP x CP
 * and routed experts over the expert-data-parallel group apart. Before any
 * overlap: the step's breakdown says what stays exposed. Fills up to
 * max (>= TP_COLL_ROWS_MAX) rows of r, a result of c with a step time, and
 * returns how many (0 without a step time).
 */
TP_API int tp_step_collectives(const tp_config *c, const tp_result *r, tp_coll_row *rows, int max);

#ifdef __cplusplus
}
#endif
#endif /* TP_COMM_H */
