/* SPDX-License-Identifier: MIT */
/*
 * DualPipe (--schedule dualpipe; src/lib/memory.c 4b, src/lib/time.c
 * dualpipe_step): its bubble fraction, a stage pair's memory, the step,
 * the hidden EP all-to-all and the layouts it refuses, each derived by
 * hand from deepseek-ai/DualPipe (README, dualpipe/dualpipe.py at
 * 3da1bbe). Split from test_time.c.
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "fixtures.h"
#include "time_checks.h"
#include "tp/tp.h"

/* ---- DualPipe (--schedule dualpipe; memory.c 4b, time.c dualpipe_step) ---- */

/* A dense Llama of L layers on pp stages, dp 2, m micro-batches per step. */
static tp_config dualpipe_config(int64_t L, int64_t pp, int64_t m)
{
    tp_config c = fixture_config(llama(L, 4096, 32, 8, 14336, 32000, false));
    c.train.num_gpus = 2 * pp;
    c.train.pp = pp;
    c.train.seq_len = 2048;
    c.train.micro_batch = 1;
    c.train.global_batch = 2 * m;
    c.train.schedule = TP_SCHED_DUALPIPE;
    return c;
}

/*
 * The README's bubble (p/2 - 1)(F&B + B - 3W) with F = 1, B = 2 (full
 * backward: input gradient 1 + weight gradient W = 1) and F&B = F + B = 3:
 * p - 2 units, against m(F + B) = 3m of work. The README's example, p 8
 * and m 20: 6/60 = 0.1 of the ideal time and 6/66 of the step (1F1B:
 * 7/20 and 7/27). p 2: no bubble.
 */
static void test_dualpipe_bubble_fraction(void **state)
{
    (void)state;
    assert_rel(tp_bubble_fraction(TP_SCHED_DUALPIPE, 8, 20, 1, TP_BUBBLE_OF_IDEAL), 0.1, 1e-15);
    assert_rel(tp_bubble_fraction(TP_SCHED_DUALPIPE, 8, 20, 1, TP_BUBBLE_OF_TOTAL), 6.0 / 66.0,
               1e-15);
    double b2 = tp_bubble_fraction(TP_SCHED_DUALPIPE, 2, 4, 1, TP_BUBBLE_OF_TOTAL);
    double b1 = tp_bubble_fraction(TP_SCHED_DUALPIPE, 1, 4, 1, TP_BUBBLE_OF_TOTAL);
    assert_true(b2 >= 0.0 && b2 <= 0.0 && b1 >= 0.0 && b1 <= 0.0);
}

/*
 * Memory of a stage pair, by hand (Korthikanti's 34 s b h bytes per layer
 * and micro-batch with selective recompute: 34 x 2048 x 4096 = 285212672
 * B). 8 layers on pp 4, 2 per stage. Rank 0 holds stage 0 with p - 0 = 4
 * micro-batches in flight and stage 3 with 0 + 1 = 1 (DualPipe.step: 2(p/2
 * - 0 - 1) + 1 = 3 forwards of stage 0 and 1 of stage 3 before the first
 * backward, one more forward of stage 0 in the main loop); rank 1 stage 1
 * with 3 and stage 2 with 2: 5 = p + 1 each, 10 layer-micro-batches,
 * 2852126720 B. Its states are the two stages' (1F1B's stage memory,
 * whose in-flight counts p - s are the same), the CUDA context and NCCL
 * buffers once; rank 3 is rank 0's mirror.
 */
static void test_dualpipe_memory(void **state)
{
    (void)state;
    tp_config c = dualpipe_config(8, 4, 8);
    c.opts.act_model = TP_ACT_KORTHIKANTI;
    c.train.recompute = TP_RECOMPUTE_SELECTIVE;
    tp_result r = eval_ok(&c);
    check_contract(&c, &r);
    tp_params P;
    assert_int_equal(tp_model_params(&c.model, c.train.pad_vocab_to, &P, NULL), TP_OK);
    tp_memory m0, m1, m3;
    tp_memory_stage(&c, &P, 0, &m0);
    tp_memory_stage(&c, &P, 1, &m1);
    tp_memory_stage(&c, &P, 3, &m3);
    assert_rel(m1.activations_bytes, 2852126720.0, 1e-15);
    assert_rel(m0.activations_bytes, 2852126720.0, 1e-15);
    assert_rel(m0.inflight_microbatches, 5.0, 1e-15);
    assert_rel(m1.inflight_microbatches, 5.0, 1e-15);
    assert_true(m0.layers == 4 && m1.layers == 4 && m0.stage == 0 && m3.stage == 3);
    assert_rel(m3.total_bytes, m0.total_bytes, 1e-15);
    assert_rel(r.memory.total_bytes, m0.total_bytes, 1e-15); /* the ends are the heaviest */
    assert_rel(r.stage_first.total_bytes, m0.total_bytes, 1e-15);
    assert_true(r.stage_last.stage == 3);

    tp_config f = c;
    f.train.schedule = TP_SCHED_1F1B;
    tp_memory s[4];
    for (int i = 0; i < 4; i++)
        tp_memory_stage(&f, &P, i, &s[i]);
    double fixed = s[0].comm_buffers_bytes + s[0].framework_bytes;
    assert_rel(m0.total_bytes, s[0].total_bytes + s[3].total_bytes - fixed, 1e-14);
    assert_rel(m1.total_bytes, s[1].total_bytes + s[2].total_bytes - fixed, 1e-14);
    assert_rel(m0.weights_bytes, s[0].weights_bytes + s[3].weights_bytes, 1e-15);
    assert_rel(m0.params_on_gpu, s[0].params_on_gpu + s[3].params_on_gpu, 1e-15);
    assert_rel(m0.logits_bytes, s[3].logits_bytes, 1e-15);
    assert_rel(m1.optimizer_bytes, s[1].optimizer_bytes + s[2].optimizer_bytes, 1e-15);
}

/*
 * The step by hand. pp 2: both ranks hold stages 0 and 1, the whole model,
 * half the micro-batches through each: the compute is half the pp 1
 * step's at the same m, and the bubble (p/2 - 1)(...) is 0. pp 4: the
 * bubble does not depend on m (one (F&B + B - 3W) term per rank pair) and
 * is below 1F1B's (p - 1)(F + B). With F = W + x_f and B = 2W + x_b (x_f,
 * x_b the work that is not a GEMM: the attention core, the element-wise
 * passes) and no communication, F&B + B - 3W = 2W + x_f + 2 x_b, between
 * 2/3 and 2 of F + B = compute / m; with 16-token sequences (the attention
 * core 2 s q = 131072 FLOP per token against 436207616 of GEMMs) and an
 * unbounded memory bandwidth (no element-wise time), x -> 0: 2/3 of it.
 * The p2p hides under the compute (report section 3.2.1).
 */
static void test_dualpipe_step(void **state)
{
    (void)state;
    tp_config one = dualpipe_config(8, 1, 8);
    one.train.schedule = TP_SCHED_1F1B;
    tp_config two = dualpipe_config(8, 2, 8);
    tp_result r1 = eval_ok(&one), r2 = eval_ok(&two);
    check_contract(&two, &r2);
    assert_rel(r2.time.compute_s, r1.time.compute_s / 2.0, 1e-12);
    assert_true(r2.time.bubble_s >= 0.0 && r2.time.bubble_s <= 0.0);

    tp_config c8 = dualpipe_config(8, 4, 8), c16 = dualpipe_config(8, 4, 16);
    tp_result a = eval_ok(&c8), b = eval_ok(&c16);
    check_contract(&c16, &b);
    assert_rel(a.time.bubble_s, b.time.bubble_s, 1e-12);
    assert_rel(b.time.compute_s, 2.0 * a.time.compute_s, 1e-12);
    assert_true(a.time.bubble_s > (2.0 / 3.0) * a.time.compute_s / 8.0);
    assert_true(a.time.bubble_s < 2.0 * a.time.compute_s / 8.0);
    tp_config g = c8;
    g.train.seq_len = 16;
    g.gpu.mem_bw_bytes_per_s = 1e30;
    tp_result gr = eval_ok(&g);
    assert_rel(gr.time.bubble_s, (2.0 / 3.0) * gr.time.compute_s / 8.0, 1e-3);
    tp_config f = c8;
    f.train.schedule = TP_SCHED_1F1B;
    tp_result o = eval_ok(&f);
    assert_true(a.time.bubble_s < o.time.bubble_s / 3.0);
    assert_true(a.time.pp_comm_s < o.time.pp_comm_s);
}

/*
 * The EP all-to-all under DualPipe, by hand, on a2a_config's 2 MoE layers
 * with eff.overlap 1 and windows much larger than the all-to-all (each
 * paired chunk hides all of its own, test_moe_a2a_overlap). pp 2, m 4:
 * rank 0 is a middle rank (j = p/2 - 1) with C - 3H + j + 1 - 1 = 4 - 3 +
 * 0 = 1 paired chunk (DualPipe.step: step 4 runs C/2 - p + 1 = 1 round,
 * its first pair apart, then one F&B). Per micro-batch the pair's mean
 * carries half the model's all-to-all e (pp 1, overlap off: 4e per step):
 * 4 (e/2) - 1 (e/2) = 1.5e = 0.375 of pp 1's. Megatron-Core's overlap is
 * refused beside it.
 */
static void test_dualpipe_a2a(void **state)
{
    (void)state;
    tp_config one = a2a_config(2, 4096);
    one.gpu.eff.overlap = 1.0;
    tp_result r1 = eval_ok(&one);
    tp_config c = one;
    c.train.num_gpus = 16;
    c.train.pp = 2;
    c.train.schedule = TP_SCHED_DUALPIPE;
    tp_result r = eval_ok(&c);
    check_contract(&c, &r);
    assert_true(r1.time.ep_comm_s > 0.0);
    assert_rel(r.time.ep_comm_s, 0.375 * r1.time.ep_comm_s, 1e-12);
    c.opts.moe_a2a_overlap = true;
    tp_error err;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "conventions.moe_a2a_overlap");
    assert_string_equal(err.message, "the expert-parallel all-to-all overlap is Megatron-Core's "
                                     "combined 1F1B; the dualpipe schedule overlaps the "
                                     "all-to-all itself (leave the overlap off)");
}

/* deepseek-ai/DualPipe DualPipe.step's asserts, with the field named. */
static void test_dualpipe_rules(void **state)
{
    (void)state;
    tp_error err;
    tp_config c = dualpipe_config(8, 4, 8);
    assert_int_equal(tp_config_validate(&c, &err), TP_OK);
    c.train.pp = 1;
    c.train.num_gpus = 2;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "layout.pp");
    assert_string_equal(err.message, "the dualpipe schedule needs an even pp >= 2 (rank i holds "
                                     "stages i and pp-1-i), got pp 1");
    c.train.pp = 3;
    c.train.num_gpus = 6;
    c.model.num_layers = 9;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "layout.pp");
    assert_string_equal(err.message, "the dualpipe schedule needs an even pp >= 2 (rank i holds "
                                     "stages i and pp-1-i), got pp 3");
    c = dualpipe_config(8, 4, 8);
    c.train.vpp = 2;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "layout.vpp");
    assert_string_equal(err.message,
                        "the dualpipe schedule has no virtual stages (vpp 1), got vpp 2");
    c = dualpipe_config(8, 4, 9);
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "train.global_batch");
    assert_string_equal(err.message, "the dualpipe schedule needs an even number of "
                                     "micro-batches per step (half enter at each end), got 9");
    c = dualpipe_config(8, 4, 6);
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "train.global_batch");
    assert_string_equal(err.message,
                        "the dualpipe schedule needs at least 2*pp = 8 micro-batches per step, "
                        "got 6");
    c.train.schedule = (tp_schedule)(TP_SCHED_DUALPIPE + 1);
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "layout.schedule");
}

/* A local batch (tp_train.local_batch) runs the schedule once per local
 * batch: 2 runs of 8 micro-batches are 2 steps of 8, bubble and all
 * (torchtitan's and AutoModel's accumulation over schedule runs); each run
 * must hold DualPipe's 2*pp micro-batches. */
static void test_dualpipe_local_batch(void **state)
{
    (void)state;
    tp_config half = dualpipe_config(8, 4, 8);
    tp_result r8 = eval_ok(&half);
    tp_config c = dualpipe_config(8, 4, 16);
    c.train.local_batch = 8;
    tp_result r = eval_ok(&c);
    check_contract(&c, &r);
    assert_true(r8.time.bubble_s > 0.0);
    assert_rel(r.time.bubble_s, 2.0 * r8.time.bubble_s, 1e-12);
    assert_rel(r.time.compute_s, 2.0 * r8.time.compute_s, 1e-12);
    assert_rel(r.time.bubble_of_total, r8.time.bubble_of_total, 1e-15);
    assert_rel(r.memory.total_bytes, r8.memory.total_bytes, 1e-15);
    assert_int_equal(r.schedule_runs, 2);
    assert_int_equal(r8.schedule_runs, 1);
    tp_error err;
    c.train.local_batch = 4;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "train.local_batch");
    assert_string_equal(err.message, "the dualpipe schedule needs at least 2*pp = 8 micro-batches "
                                     "per schedule run (local batch / micro-batch), got 4");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dualpipe_bubble_fraction),
        cmocka_unit_test(test_dualpipe_memory),
        cmocka_unit_test(test_dualpipe_step),
        cmocka_unit_test(test_dualpipe_a2a),
        cmocka_unit_test(test_dualpipe_rules),
        cmocka_unit_test(test_dualpipe_local_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
