/* SPDX-License-Identifier: MIT */
/*
 * Collective cost model (src/lib/comm.c): the alpha-beta ring formulas and
 * NCCL bus-bandwidth factors of formulas.md 4.2, the multi-node ring and
 * serialised hierarchical all-reduce of 4.3 with their worked examples,
 * group placement in the Megatron rank order, seeds S1-3 and S1-4 under
 * both conventions, and invariants (finite, monotone, degenerate input).
 */
#include <string.h>

#include "helpers.h"
#include "fixtures.h"
#include "tp/tp.h"

#define GB 1e9

static void test_busbw_factors(void **state)
{
    (void)state;
    assert_rel(tp_coll_busbw_factor(TP_COLL_ALL_REDUCE, 8), 2.0 * 7.0 / 8.0, 1e-15);
    assert_rel(tp_coll_busbw_factor(TP_COLL_ALL_GATHER, 8), 7.0 / 8.0, 1e-15);
    assert_rel(tp_coll_busbw_factor(TP_COLL_REDUCE_SCATTER, 64), 63.0 / 64.0, 1e-15);
    assert_rel(tp_coll_busbw_factor(TP_COLL_ALL_TO_ALL, 4), 3.0 / 4.0, 1e-15);
    assert_rel(tp_coll_busbw_factor(TP_COLL_P2P, 2), 1.0, 1e-15);
    assert_rel(tp_coll_busbw_factor(TP_COLL_BROADCAST, 16), 1.0, 1e-15);
    assert_rel(tp_coll_busbw_factor(TP_COLL_ALL_REDUCE, 1), 0.0, 0);
}

/* formulas.md 4.2 ring costs with latency. */
static void test_ring_formulas(void **state)
{
    (void)state;
    double M = 1e9, B = 100e9, a = 5e-6;
    assert_rel(tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, M, 8, B, a),
               2.0 * 7.0 * a + 2.0 * 7.0 / 8.0 * M / B, 1e-12);
    assert_rel(tp_coll_time(TP_COLL_ALL_GATHER, TP_COLL_RING, M, 8, B, a),
               7.0 * a + 7.0 / 8.0 * M / B, 1e-12);
    assert_rel(tp_coll_time(TP_COLL_REDUCE_SCATTER, TP_COLL_RING, M, 8, B, a),
               7.0 * a + 7.0 / 8.0 * M / B, 1e-12);
    assert_rel(tp_coll_time(TP_COLL_ALL_TO_ALL, TP_COLL_RING, M, 8, B, a),
               7.0 * a + 7.0 / 8.0 * M / B, 1e-12);
    assert_rel(tp_coll_time(TP_COLL_P2P, TP_COLL_RING, M, 2, B, a), a + M / B, 1e-12);
    /* ring all-reduce = reduce-scatter + all-gather */
    assert_rel(tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, M, 16, B, a),
               tp_coll_time(TP_COLL_REDUCE_SCATTER, TP_COLL_RING, M, 16, B, a) +
                   tp_coll_time(TP_COLL_ALL_GATHER, TP_COLL_RING, M, 16, B, a),
               1e-12);
    /* the simple convention is volume / bandwidth for every kind */
    assert_rel(tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_SIMPLE, M, 8, B, a), M / B, 1e-15);
    assert_rel(tp_coll_time(TP_COLL_ALL_GATHER, TP_COLL_SIMPLE, M, 8, B, a), M / B, 1e-15);
    /* formulas.md 4.2 example: 134.2 MB all-reduce over 8 H100 at 370 GB/s: 0.635 ms */
    assert_rel(tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, 134.2e6, 8, 370e9, 0), 0.635e-3,
               0.002);
}

/* Seed S1-3: DP ring all-reduce of 2 x 70B bytes over 128 GPUs at 50 GB/s. */
static void test_seed_s1_3(void **state)
{
    (void)state;
    /* The document's convention: flat ring, no latency: 2(P-1)/P * 140 GB / 50 GB/s. */
    double t = tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, 140 * GB, 128, 50 * GB, 0.0);
    assert_rel(t, 5.56, 0.001);
    assert_rel(t, 2.0 * 127.0 / 128.0 * 140.0 / 50.0, 1e-12);
    /* trainplan's default for the same all-reduce on 16 DGX H100 nodes with
     * the group one rank per GPU (8 per node): rail-optimised ring,
     * busbw = min(NVLink 450 x 0.82, 8 x 50 x 0.94) = 369 GB/s, plus the
     * tree latency 2 x (7 x 2 us + 4 x 5 us): 0.7524 s. */
    tp_gpu g = fixture_h100();
    tp_group_place pl;
    tp_group_place_of(128, 1, 8, &pl);
    assert_int_equal(pl.nodes, 16);
    assert_int_equal(pl.ranks_per_node, 8);
    double d = tp_group_coll_time(&g, TP_COLL_RING, TP_COLL_ALL_REDUCE, 140 * GB, &pl);
    assert_rel(d, 2.0 * 127.0 / 128.0 * 140e9 / 369e9 + 2.0 * (7 * 2e-6 + 4 * 5e-6), 1e-9);
    assert_rel(d, 0.7530, 0.001);
}

/* Seed S1-4: TP all-reduce of 2*B*S*H bytes, B=4, S=4096, H=8192, 8-way,
 * 80 layers x 2 per step, 900 GB/s. */
static void test_seed_s1_4(void **state)
{
    (void)state;
    double M = 2.0 * 4 * 4096 * 8192;
    assert_rel(M, 268435456.0, 0); /* 268 MB per all-reduce */
    /* The document's "~48 ms": 160 x volume / bandwidth, no ring factor. */
    double simple = 160 * tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_SIMPLE, M, 8, 900e9, 0);
    assert_rel(simple, 47.72e-3, 0.001);
    /* The physically right ring convention: 2(t-1)/t more: 83.5 ms. */
    double ring = 160 * tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, M, 8, 900e9, 0);
    assert_rel(ring, 83.5e-3, 0.001);
    assert_rel(ring / simple, 2.0 * 7.0 / 8.0, 1e-12);
    /* trainplan's default on a real H100 node: 900 GB/s is the bidirectional
     * NVLink figure; one direction is 450 GB/s, of which NCCL achieves 0.82,
     * plus the tree latency 2 x log2(8) x 2 us: 160 x 1.285 ms = 205.6 ms. */
    tp_gpu g = fixture_h100();
    tp_group_place pl;
    tp_group_place_of(8, 1, 8, &pl);
    assert_true(pl.intra);
    double d = 160 * tp_group_coll_time(&g, TP_COLL_RING, TP_COLL_ALL_REDUCE, M, &pl);
    assert_rel(d, 160 * (2.0 * 7.0 / 8.0 * M / 369e9 + 6 * 2e-6), 1e-9);
    assert_rel(d, 0.2056, 0.001);
    /* and the simple convention on the same group divides by the line rate */
    assert_rel(tp_group_coll_time(&g, TP_COLL_SIMPLE, TP_COLL_ALL_REDUCE, M, &pl), M / 450e9,
               1e-12);
}

/* formulas.md 4.3 example: Llama-3-8B bf16 gradients (16.06 GB) over
 * 8 nodes x 8 H100, effective NVLink 370 GB/s, NIC 47 GB/s. */
static void test_multinode_example(void **state)
{
    (void)state;
    double M = 16.06e9;
    /* pipelined ring: 2(63/64) M / min(370, 8 x 47) = 85 ms */
    double ring = tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, M, 64, 370e9, 0);
    assert_rel(ring, 0.0855, 0.01);
    /* serialised hierarchical: 76 ms (NVLink) + 75 ms (NIC) = 151 ms */
    double hier = tp_allreduce_hier_time(M, 8, 8, 370e9, 47e9, 0, 0);
    assert_rel(hier, 0.151, 0.01);
    assert_true(hier > ring);
    /* the group function picks the rail-optimised ring */
    tp_gpu g = fixture_h100();
    g.eff.intra_bw = 370.0 / 450.0;
    g.eff.inter_bw = 47.0 / 50.0;
    g.eff.intra_lat_s = g.eff.inter_lat_s = 0.0;
    tp_group_place pl;
    tp_group_place_of(64, 1, 8, &pl);
    assert_rel(tp_group_busbw(&g, &pl), 370e9, 1e-12);
    assert_rel(tp_group_coll_time(&g, TP_COLL_RING, TP_COLL_ALL_REDUCE, M, &pl), ring, 1e-12);
}

/* Megatron rank order: TP innermost, then CP, DP, PP. */
static void test_placement(void **state)
{
    (void)state;
    tp_group_place pl;
    tp_group_place_of(8, 1, 8, &pl); /* TP 8 */
    assert_true(pl.intra);
    assert_int_equal(pl.ranks_per_node, 8);
    tp_group_place_of(4, 2, 8, &pl); /* CP 4 behind TP 2 */
    assert_true(pl.intra);
    tp_group_place_of(32, 8, 8, &pl); /* DP 32 behind TP 8: one per node */
    assert_false(pl.intra);
    assert_int_equal(pl.ranks_per_node, 1);
    assert_int_equal(pl.nodes, 32);
    tp_group_place_of(16, 2, 8, &pl); /* DP 16 behind TP 2: 4 per node */
    assert_int_equal(pl.ranks_per_node, 4);
    assert_int_equal(pl.nodes, 4);
    tp_group_place_of(1, 1, 8, &pl);
    assert_int_equal(pl.size, 1);
    tp_group_place_of(0, 0, 0, &pl); /* degenerate input is treated as 1 */
    assert_int_equal(pl.size, 1);
    assert_true(pl.intra);
    tp_group_place_of(64, 1, 72, &pl); /* NVL72: one domain */
    assert_true(pl.intra);

    /* per-rank busbw: NIC-bound across nodes with one rank per node */
    tp_gpu g = fixture_h100();
    tp_group_place_of(32, 8, 8, &pl);
    assert_rel(tp_group_busbw(&g, &pl), 50e9 * 0.94, 1e-12);
    tp_group_place_of(16, 2, 8, &pl);
    assert_rel(tp_group_busbw(&g, &pl), 4 * 50e9 * 0.94, 1e-12);
    tp_group_place_of(8, 1, 8, &pl);
    assert_rel(tp_group_busbw(&g, &pl), 450e9 * 0.82, 1e-12);
}

/* All-to-all across nodes: the off-node share goes through the NIC. */
static void test_all_to_all(void **state)
{
    (void)state;
    tp_gpu g = fixture_h100();
    g.eff.intra_lat_s = g.eff.inter_lat_s = 0.0;
    tp_group_place pl;
    double M = 1e9;
    tp_group_place_of(8, 1, 8, &pl);
    assert_rel(tp_group_coll_time(&g, TP_COLL_RING, TP_COLL_ALL_TO_ALL, M, &pl),
               7.0 / 8.0 * M / 369e9, 1e-12);
    tp_group_place_of(16, 1, 8, &pl); /* two nodes, 8 each: half the buffer leaves */
    assert_rel(tp_group_coll_time(&g, TP_COLL_RING, TP_COLL_ALL_TO_ALL, M, &pl),
               8.0 / 16.0 * M / 47e9, 1e-12);
}

/* Every function: finite, >= 0, monotone in bytes, 0 for nothing to do. */
static void test_invariants(void **state)
{
    (void)state;
    const tp_coll kinds[] = {TP_COLL_ALL_REDUCE, TP_COLL_ALL_GATHER, TP_COLL_REDUCE_SCATTER,
                             TP_COLL_ALL_TO_ALL, TP_COLL_P2P,        TP_COLL_BROADCAST};
    tp_gpu g = fixture_h100();
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (int64_t n = 0; n <= 4096; n = n ? n * 4 : 1) {
            for (int64_t stride = 1; stride <= 64; stride *= 4) {
                tp_group_place pl;
                tp_group_place_of(n, stride, 8, &pl);
                double prev = 0.0;
                for (double M = 0.0; M <= 1e12; M = M > 0 ? M * 10 : 1.0) {
                    double t = tp_group_coll_time(&g, TP_COLL_RING, kinds[k], M, &pl);
                    double r = tp_coll_time(kinds[k], TP_COLL_RING, M, n, 100e9, 1e-6);
                    assert_true(isfinite(t) && t >= 0.0);
                    assert_true(isfinite(r) && r >= 0.0);
                    assert_true(t >= prev);
                    prev = t;
                }
                /* a group inside a node never costs more than across nodes */
                tp_group_place one;
                tp_group_place_of(n, stride, 1 << 20, &one);
                assert_le_rel(tp_group_coll_time(&g, TP_COLL_RING, kinds[k], 1e9, &one),
                              tp_group_coll_time(&g, TP_COLL_RING, kinds[k], 1e9, &pl));
            }
        }
    }
    /* nothing to do, or nothing to do it with */
    assert_rel(tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, 1e9, 1, 1e9, 1e-6), 0.0, 0);
    assert_rel(tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, 0.0, 8, 1e9, 1e-6), 0.0, 0);
    assert_rel(tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, 1e9, 8, 0.0, 1e-6), 0.0, 0);
    assert_rel(tp_coll_time(TP_COLL_ALL_REDUCE, TP_COLL_RING, -5.0, 8, 1e9, 1e-6), 0.0, 0);
    assert_rel(tp_allreduce_hier_time(0.0, 8, 8, 1e9, 1e9, 0, 0), 0.0, 0);
    assert_true(isfinite(tp_allreduce_hier_time(1e9, 0, 0, 1e9, 1e9, 0, 0)));
}

/*
 * TransformerEngine's userbuffers (memory.c header 6), hand-derived: with
 * the chunked TP overlap on (SP on, TP 2) a GPU registers 12 buffers of
 * [seq x micro-batch / CP, h]: 24 B per token and hidden unit in bf16, 16
 * under fp8 (the 8 all-gather ones in fp8); counted with the NCCL buffers,
 * outside torch's allocator. None without SP (the overlap is then off),
 * with the plain share overlap (torchtitan's async TP) or at TP 1.
 */
static void test_userbuffers(void **state)
{
    (void)state;
    const double h = 1024, S = 4096, mb = 2, cp = 2;
    tp_config c = fixture_config(llama(4, (int64_t)h, 8, 8, 4096, 32000, false));
    c.train.num_gpus = 4;
    c.train.tp = 2;
    c.train.cp = (int64_t)cp;
    c.train.sp = true;
    c.train.seq_len = (int64_t)S;
    c.train.micro_batch = (int64_t)mb;
    c.train.global_batch = 4;
    tp_result r;
    tp_error err;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    double none = r.memory.comm_buffers_bytes;
    c.opts.tp_comm_overlap = true;
    c.opts.tp_overlap_chunked = true;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    double tokens = S * mb / cp;
    assert_rel(r.memory.comm_buffers_bytes - none, tokens * h * 24.0, 1e-12);
    assert_rel(r.memory.userbuffers_bytes, tokens * h * 24.0, 1e-12); /* reported apart too */
    c.train.precision = TP_PREC_FP8;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.comm_buffers_bytes - none, tokens * h * 16.0, 1e-12);
    c.train.sp = false; /* TE's userbuffers need SP: no overlap, no buffers */
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.comm_buffers_bytes, none, 1e-12);
    c.train.sp = true;
    c.opts.tp_overlap_chunked = false; /* the share overlap: no userbuffers */
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.comm_buffers_bytes, none, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_busbw_factors),     cmocka_unit_test(test_ring_formulas),
        cmocka_unit_test(test_seed_s1_3),         cmocka_unit_test(test_seed_s1_4),
        cmocka_unit_test(test_multinode_example), cmocka_unit_test(test_placement),
        cmocka_unit_test(test_all_to_all),        cmocka_unit_test(test_invariants),
        cmocka_unit_test(test_userbuffers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
