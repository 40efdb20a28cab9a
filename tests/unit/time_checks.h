/* SPDX-License-Identifier: MIT */
/*
 * time_checks.h: what the step-time tests share: an evaluation that must
 * succeed, and the output contract of one evaluation (the parts sum to the
 * step; throughput, MFU and HFU by their definitions; nothing non-finite).
 * Included by test_time.c and test_dualpipe.c.
 */
#ifndef TP_TEST_TIME_CHECKS_H
#define TP_TEST_TIME_CHECKS_H

#include "helpers.h"
#include "fixtures.h"
#include "tp/tp.h"

static inline tp_result eval_ok(const tp_config *c)
{
    tp_result r;
    tp_error err = {0};
    tp_status st = tp_eval(c, &r, &err);
    if (st != TP_OK) {
        print_error("tp_eval: %s: %s\n", err.path, err.message);
        fail();
    }
    assert_true(r.time.computed);
    return r;
}

/* The output contract of one evaluation. */
static inline void check_contract(const tp_config *c, const tp_result *r)
{
    const tp_time *t = &r->time;
    const double parts[] = {t->compute_s, t->recompute_s, t->tp_comm_s, t->cp_comm_s,  t->ep_comm_s,
                            t->pp_comm_s, t->bubble_s,    t->dp_comm_s, t->optimizer_s};
    double sum = 0.0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        assert_true(isfinite(parts[i]) && parts[i] >= 0.0);
        sum += parts[i];
    }
    assert_true(isfinite(t->step_s) && t->step_s > 0.0);
    assert_rel(sum, t->step_s, 1e-12);
    assert_true(t->compute_s > 0.0);
    double gpus = (double)c->train.num_gpus;
    double peak = c->gpu.peak_flops_per_s[c->train.precision];
    assert_rel(t->tokens_per_s * t->step_s, r->flops.tokens_per_step, 1e-12);
    assert_rel(t->tokens_per_s_per_gpu * gpus, t->tokens_per_s, 1e-12);
    assert_rel(t->model_flops_per_s_per_gpu, r->flops.model_per_step / t->step_s / gpus, 1e-12);
    assert_rel(t->mfu, r->flops.model_per_step / (t->step_s * gpus * peak), 1e-12);
    assert_rel(t->hfu, r->flops.hardware_per_step / (t->step_s * gpus * peak), 1e-12);
    assert_true(t->hfu >= t->mfu * (1.0 - 1e-12));
    assert_true(t->mfu > 0.0 && t->mfu < 1.0);
    /* of one run of the schedule: the local batch's micro-batches */
    int64_t m_run =
        c->train.local_batch > 0 ? c->train.local_batch / c->train.micro_batch : r->grad_accum;
    assert_rel(
        t->bubble_of_total,
        tp_bubble_fraction(c->train.schedule, c->train.pp, m_run, c->train.vpp, TP_BUBBLE_OF_TOTAL),
        1e-12);
    assert_non_null(t->bottleneck);
    assert_true(t->bottleneck[0] != '\0');
}

/* Every layer MoE (8 experts, top-2, EP 8 over 8 GPUs), sequence 2048,
 * micro-batch 1, m = 4 micro-batches: the EP all-to-all cases of
 * test_time.c (--moe-a2a-overlap) and test_dualpipe.c. */
static inline tp_config a2a_config(int64_t L, int64_t h)
{
    tp_model m = llama(L, h, 32, 32, 4 * h, 32000, false);
    m.num_experts = 8;
    m.topk = 2;
    m.moe_ffn_hidden = h;
    tp_config c = fixture_config(m);
    c.train.num_gpus = 8;
    c.train.ep = 8;
    c.train.zero = 1;
    c.train.seq_len = 2048;
    c.train.micro_batch = 1;
    c.train.global_batch = 8 * 4; /* m = 4 */
    return c;
}

#endif
