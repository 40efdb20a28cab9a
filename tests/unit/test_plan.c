/* SPDX-License-Identifier: MIT */
/*
 * Capacity planning (plan.h): the worked examples S0-1..S0-10, S1-7, S1-8 of
 * tests/data/seed-examples.md (1% tolerance unless stated; where
 * a document's arithmetic is wrong the correct value is asserted), the
 * Chinchilla fits of formulas.md 5.2, Young/Daly of formulas.md 6.3, round
 * trips of the inverse problems, staged phases, the LR schedule, and a plan
 * that cannot fit. Models and GPUs are built inline from their published
 * shapes, so these tests do not depend on the preset files.
 */
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "helpers.h"
#include "tp/tp.h"

#define GB 1e9
#define GIB 1073741824.0

/* MPT-30B as benchmarked by llm-foundry (presets/models/mpt-30b.json):
 * 29,975,214,080 parameters. */
static tp_model mpt30b(void)
{
    tp_model m = gpt(48, 7168, 56, 50368, 2048);
    strcpy(m.name, "mpt-30b");
    return m;
}

/* A100 80 GB SXM (formulas.md 7.1): 312 TFLOP/s bf16 dense, 81,920 MiB. */
static tp_gpu a100(void)
{
    tp_gpu g;
    memset(&g, 0, sizeof g);
    strcpy(g.name, "a100-80gb");
    g.peak_flops_per_s[TP_PREC_BF16] = 312e12;
    g.peak_flops_per_s[TP_PREC_FP16] = 312e12;
    g.peak_flops_per_s[TP_PREC_TF32] = 156e12;
    g.mem_capacity_bytes = 81920.0 * 1048576.0;
    g.mem_bw_bytes_per_s = 2.039e12;
    g.intra_bw_bytes_per_s = 300e9;
    g.inter_bw_bytes_per_s = 25e9;
    g.gpus_per_node = 8;
    g.price_per_gpu_hour = 4.0;
    tp_gpu_default_eff(&g);
    return g;
}

static tp_gpu h100(void)
{
    tp_gpu g = a100();
    strcpy(g.name, "h100-sxm");
    g.peak_flops_per_s[TP_PREC_BF16] = 989e12;
    g.peak_flops_per_s[TP_PREC_FP16] = 989e12;
    g.peak_flops_per_s[TP_PREC_FP8] = 1979e12;
    g.mem_capacity_bytes = 81559.0 * 1048576.0;
    g.intra_bw_bytes_per_s = 450e9;
    g.inter_bw_bytes_per_s = 50e9;
    return g;
}

/* The seed-000 plan: 30B, 4096 tokens, 1024-sequence batches, A100. */
static void seed_plan(tp_plan_in *in)
{
    tp_plan_in_default(in);
    in->base.model = mpt30b();
    in->base.gpu = a100();
    in->base.train.seq_len = 4096;
    in->base.train.global_batch = 1024;
}

/* ---- seed 000 ---- */

/* S0-1: 20 tokens per parameter. */
static void test_s0_1_tokens_per_param(void **state)
{
    (void)state;
    const double N[] = {1e9, 7e9, 30e9}, D[] = {20e9, 140e9, 600e9};
    for (int i = 0; i < 3; i++) {
        tp_scaling_point p;
        assert_int_equal(tp_scaling_rule(NULL, 6.0 * N[i] * D[i], 20.0, &p, NULL), TP_OK);
        assert_rel(p.params, N[i], 1e-12);
        assert_rel(p.tokens, D[i], 1e-12);
    }
    /* The plan's default: D = 20 N of the model's exact count. */
    tp_plan_in in;
    seed_plan(&in);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_int_equal(pl.params.total, 29975214080LL);
    assert_rel(pl.tokens, 20.0 * 29975214080.0, 1e-12);
    assert_rel(pl.tokens, 600e9, 0.01);
}

/* S0-2: 300B tokens, seq 4096, 2048 sequences -> 35,763 steps. */
static void test_s0_2_steps(void **state)
{
    (void)state;
    double s = tp_budget_steps(300e9, 4096.0 * 2048.0);
    assert_rel(s, 35762.8, 1e-5);
    assert_rel(ceil(s), 35763.0, 1e-12);
}

/* S0-3..S0-6: FLOPs -> GPU-hours -> cost -> wall clock. */
static void test_s0_3_to_6_budget(void **state)
{
    (void)state;
    double C = 6.0 * 30e9 * 600e9;
    assert_rel(C, 1.08e23, 1e-12);                              /* S0-3 */
    assert_rel(tp_budget_gpu_hours(C, 125e12), 240000.0, 1e-9); /* S0-4 */
    double gh = tp_budget_gpu_hours(C, 130e12);                 /* S0-5 */
    assert_rel(gh, 230769.0, 1e-5);
    assert_rel(gh * 4.0, 923077.0, 1e-5);
    assert_rel(tp_budget_flops_per_s(312e12, 130.0 / 312.0), 130e12, 1e-12);
    assert_rel(tp_budget_wall_h(gh, 8) / TP_HOURS_PER_YEAR, 3.29, 0.01); /* S0-6 */
}

/* The seed plan at a user-given 130 TFLOP/s on 6ND, as the seed counts. */
static void seed_plan_130(tp_plan_in *in)
{
    seed_plan(in);
    in->mfu = 130.0 / 312.0;
    in->basis = TP_BASIS_6ND;
    in->size_at = TP_SIZE_AT_MFU;
}

/* S0-3..S0-5 through the whole plan (N = 29.98B, D = 20 N). */
static void test_s0_3_to_5_plan(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan_130(&in);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.feasible);
    assert_rel(pl.flops_6nd, 1.08e23, 0.01);
    assert_rel(pl.flops_6nd, 6.0 * (double)pl.params.total * pl.tokens, 1e-12);
    /* The exact count adds attention and logits: a few percent more. */
    assert_true(pl.flops_exact > pl.flops_6nd);
    assert_true(pl.flops_exact < 1.1 * pl.flops_6nd);
    assert_rel(pl.gpu_hours_mfu_6nd, 230769.0, 0.01);
    assert_rel(pl.gpu_hours, 230769.0, 0.01);
    assert_rel(pl.cost_usd, 923077.0, 0.01);
    assert_rel(pl.compute_wall_s / 3600.0, 450.7, 0.01);
}

/* S0-7: 500 h -> 461.5 GPUs -> 464 (58 whole nodes); 512 -> 450.7 h = 18.8 d. */
static void test_s0_7_deadline(void **state)
{
    (void)state;
    double gh = tp_budget_gpu_hours(6.0 * 30e9 * 600e9, 130e12);
    double g = tp_budget_gpus_for_deadline(gh, 500.0);
    assert_rel(g, 461.5, 1e-3);
    assert_int_equal(tp_budget_round_nodes(g, 8), 464);
    assert_int_equal(tp_budget_round_nodes(g, 8) / 8, 58);
    assert_rel(tp_budget_wall_h(gh, 512), 450.7, 1e-3);
    assert_rel(tp_budget_wall_h(gh, 512) / TP_HOURS_PER_DAY, 18.8, 0.01);
    /* 464 GPUs have no TP-4 layout whose DP divides 1024 sequences: the
     * first cluster that does is the document's 512. */
    assert_int_equal(tp_budget_round_layout(g, 8, 4, 1024, 1, 100000), 512);
    assert_int_equal(tp_budget_round_layout(g, 8, 1, 1000, 1, 100000), 1000);
    assert_int_equal(tp_budget_round_layout(g, 8, 4, 1023, 1, 100000), 0);

    /* Through the plan, with the seed's layout (TP 4, PP 1, ZeRO-1). */
    tp_plan_in in;
    seed_plan_130(&in);
    in.deadline_h = 500.0;
    in.layout_from = TP_LAYOUT_GIVEN;
    in.base.train.tp = 4;
    in.base.train.sp = true;
    in.base.train.zero = 1;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.feasible);
    assert_rel(pl.gpus_exact, 461.5, 0.01);
    assert_int_equal(pl.gpus_whole_nodes, 464);
    assert_int_equal(pl.num_gpus, 512);
    assert_int_equal(pl.num_nodes, 64);
    assert_true(pl.deadline_met);
    assert_rel(pl.compute_wall_s / 3600.0, 450.7, 0.01);
}

/* S0-8: 4M-token batches = 1024 sequences; 143,051 steps; 11.3 s/step on
 * 512 GPUs; a checkpoint every 500 steps is every 1.58 h. */
static void test_s0_8_steps_and_checkpoint_interval(void **state)
{
    (void)state;
    assert_int_equal(4194304 / 4096, 1024);
    assert_rel(tp_budget_steps(600e9, 4194304.0), 143051.0, 1e-5);
    double step_s = 450.7 * 3600.0 / tp_budget_steps(600e9, 4194304.0);
    assert_rel(step_s, 11.34, 0.01);

    tp_plan_in in;
    seed_plan_130(&in);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    in.ckpt_every_steps = 500;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.feasible);
    assert_int_equal(pl.phases[0].spec.global_batch, 1024);
    assert_rel(pl.phases[0].tokens_per_step, 4194304.0, 1e-12);
    assert_rel(pl.phases[0].steps, 143051.0, 0.01);
    assert_rel(pl.phases[0].step_s, 11.3, 0.01);
    assert_rel(pl.ckpt.interval_s / 3600.0, 1.58, 0.01);
    assert_rel(pl.ckpt_every_steps, 500.0, 1e-9);

    /* issue 14: Daly's optimum below one step (a failure every ~19 s on
     * 512 GPUs) is planned at one step, and says so */
    in.ckpt_every_steps = 0;
    in.ckpt.failures_per_gpu_hour = 0.4;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.ckpt_async.daly_s < pl.phases[0].step_s);
    assert_true(pl.ckpt_async.raised_to_step);
    assert_rel(pl.ckpt_async.interval_s, pl.phases[0].step_s, 1e-12);
    assert_true(pl.ckpt_sync.interval_s >= pl.phases[0].step_s);
    assert_true(pl.ckpt_every_steps >= 1.0);
    in.ckpt.failures_per_gpu_hour = 1e-5; /* optimum of many steps: not raised */
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_false(pl.ckpt_async.raised_to_step);
    assert_false(pl.ckpt_sync.raised_to_step);
}

/* S0-9: 2 + 8 + 2 B/param (no fp32 master) = 360 GB: not one 80 GB GPU. */
static void test_s0_9_static_memory(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan(&in);
    in.base.train.optimizer.master_weights = false;
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_rel(pl.state_bytes.weights, 2.0, 1e-12);
    assert_rel(pl.state_bytes.optimizer, 8.0, 1e-12);
    assert_rel(pl.state_bytes.grads, 2.0, 1e-12);
    assert_rel(30e9 * pl.state_bytes.total, 360 * GB, 1e-12);
    assert_rel(pl.static_bytes, 360 * GB, 0.01);
    assert_true(pl.static_bytes > 80 * GB);
    assert_true(pl.min_gpus_static > 1);
    /* The checkpoint holds weights and optimizer state, not gradients:
     * 2 + 8 = 10 B/param here (the seed's ~360 GB counts gradients). */
    assert_rel(pl.ckpt.total_bytes, 10.0 * (double)pl.params.total, 1e-12);
}

/* S0-10: 512 GPUs, TP 4, PP 1, batch 1024 -> DP 128, 8 sequences per replica. */
static void test_s0_10_layout(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan(&in);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    in.layout_from = TP_LAYOUT_GIVEN;
    in.base.train.tp = 4;
    in.base.train.sp = true;
    in.base.train.zero = 1;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.feasible);
    const tp_plan_phase *p = &pl.phases[0];
    assert_int_equal(p->res.dp, 128);
    assert_int_equal(p->cfg.train.global_batch / p->res.dp, 8);
    assert_int_equal(p->cfg.train.micro_batch * p->res.grad_accum, 8);
    assert_true(p->res.memory.fits);
}

/* ---- seed 001 ---- */

/* S1-7: 7B at 150k tokens/s on 64 H100 is 9.95% MFU; at 45% the cluster
 * would do 678k tokens/s, so 150k is 22% of it (the document says 11%). */
static void test_s1_7_mfu_from_throughput(void **state)
{
    (void)state;
    double fpt = 6.0 * 7e9;
    double mfu = tp_budget_mfu_from_throughput(150e3, fpt, 64, 989e12);
    assert_rel(mfu, 0.0995, 0.01);
    double tps = tp_budget_tokens_per_s(0.45, fpt, 64, 989e12);
    assert_rel(tps, 678e3, 0.01);
    assert_rel(150e3 / tps, 0.22, 0.01);
    assert_rel(150e3 / tps, mfu / 0.45, 1e-12);
}

/* S1-8: 30B, 30 days, $2M at $4/GPU-hour. */
static void test_s1_8_budget(void **state)
{
    (void)state;
    double gh = tp_budget_gpu_hours_for_usd(2e6, 4.0);
    assert_rel(gh, 500000.0, 1e-12);
    double hours = 30.0 * 24.0;
    assert_rel(tp_budget_gpus_for_deadline(gh, hours), 694.0, 0.01);
    double s = hours * 3600.0;
    assert_rel(tp_budget_required_mfu(6.0 * 30e9 * 600e9, 640, 989e12, s), 0.066, 0.01);
    assert_rel(tp_budget_required_mfu(6.0 * 30e9 * 2e12, 640, 989e12, s), 0.219, 0.01);
    assert_rel(tp_budget_required_mfu(6.0 * 30e9 * 2e12, 512, 989e12, s), 0.274, 0.01);

    /* Through the plan: 640 H100 for 30 days with $2M, 600B tokens, 6ND. */
    tp_plan_in in;
    seed_plan(&in);
    in.base.gpu = h100();
    in.basis = TP_BASIS_6ND;
    in.tokens_from = TP_TOKENS_GIVEN;
    in.tokens = 600e9;
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 640;
    in.deadline_h = hours;
    in.budget_usd = 2e6;
    in.price_per_hour = 4.0;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.feasible);
    assert_rel(pl.budget_gpu_hours, 500000.0, 1e-12);
    assert_rel(pl.budget_gpus_for_deadline, 694.0, 0.01);
    assert_rel(pl.required_mfu, 0.066, 0.01);
    assert_true(pl.within_budget);
    assert_true(pl.deadline_met);
    /* The budget affords a compute-optimal model at the plan's MFU. */
    assert_true(pl.budget_affords.params > 0.0);
    assert_rel(pl.budget_affords.compute_flops,
               500000.0 * 3600.0 * 989e12 * pl.flops_exact / (pl.gpu_hours * 3600.0 * 989e12),
               1e-9);
}

/* Extra seed check S1-2: 70B, 1e6-token batch, 128 H100 at 45%. */
static void test_s1_2_step_time(void **state)
{
    (void)state;
    double per_gpu = tp_budget_flops_per_s(989e12, 0.45);
    double step = 6.0 * 70e9 * 1e6 / (per_gpu * 128.0);
    assert_rel(step, 7.37, 0.01);
    assert_rel(tp_budget_tokens_per_s(0.45, 6.0 * 70e9, 128, 989e12), 135.6e3, 0.01);
    double days = tp_budget_wall_h(tp_budget_gpu_hours(6.0 * 70e9 * 2e12, per_gpu), 128) / 24.0;
    assert_rel(days, 170.7, 0.01);
}

/* ---- scaling laws (formulas.md 5.2, 5.3, 5.4) ---- */

static void check_opt(tp_fit_id id, double C, double N, double D, double r, double loss)
{
    tp_scaling_point p;
    const tp_scaling_fit *f = tp_scaling_fit_get(id);
    assert_non_null(f);
    assert_int_equal(tp_scaling_optimal(f, C, &p, NULL), TP_OK);
    assert_rel(p.params, N, 0.01);
    assert_rel(p.tokens, D, 0.01);
    assert_rel(p.tokens_per_param, r, 0.01);
    assert_rel(p.loss, loss, 0.001);
    assert_rel(6.0 * p.params * p.tokens, C, 1e-9);
}

static void test_chinchilla_table(void **state)
{
    (void)state;
    check_opt(TP_FIT_BESIROGLU, 5.76e23, 7.24e10, 1.33e12, 18.3, 1.974);
    check_opt(TP_FIT_HOFFMANN, 5.76e23, 4.04e10, 2.38e12, 58.9, 1.918);
    check_opt(TP_FIT_HOFFMANN_ROUNDED, 5.76e23, 3.22e10, 2.98e12, 92.6, 1.931);
    check_opt(TP_FIT_BESIROGLU, 1e24, 9.60e10, 1.74e12, 18.1, 1.959);
    check_opt(TP_FIT_BESIROGLU, 3.8e25, 6.20e11, 1.02e13, 16.5, 1.891);
    check_opt(TP_FIT_BESIROGLU, 1e26, 1.02e12, 1.64e13, 16.1, 1.880);
    /* The exponents of formulas.md 5.2. */
    const tp_scaling_fit *b = tp_scaling_fit_find("besiroglu");
    assert_non_null(b);
    assert_rel(b->beta / (b->alpha + b->beta), 0.513, 0.002);
    assert_ptr_equal(tp_scaling_fit_find("hoffmann-unrounded"),
                     tp_scaling_fit_get(TP_FIT_HOFFMANN));
    assert_null(tp_scaling_fit_find("kaplan"));
    assert_null(tp_scaling_fit_get(TP_FIT_COUNT));
    /* The 20 tokens/param rule at 1e24: 91.3B, 1.83T. */
    tp_scaling_point p;
    assert_int_equal(tp_scaling_rule(b, 1e24, 20.0, &p, NULL), TP_OK);
    assert_rel(p.params, 91.3e9, 0.01);
    assert_rel(p.tokens, 1.83e12, 0.01);
    /* The optimum is the minimum of the loss along C = 6ND. */
    tp_scaling_point o;
    assert_int_equal(tp_scaling_optimal(b, 1e24, &o, NULL), TP_OK);
    for (double k = 0.5; k <= 2.0; k += 0.25) {
        double N = o.params * k;
        assert_le_rel(o.loss, tp_scaling_loss(b, N, 1e24 / (6.0 * N)));
    }
    assert_int_equal(tp_scaling_optimal(b, -1.0, &o, NULL), TP_ERR_INVALID_ARG);
    assert_true(isnan(tp_scaling_loss(b, 0.0, 1.0)));
}

static void test_critical_batch(void **state)
{
    (void)state;
    /* 2e8 / L^(1/0.21): at L = 2 nats about 7.4M tokens. */
    assert_rel(tp_critical_batch_tokens(2.0), 2e8 / pow(2.0, 1.0 / 0.21), 1e-12);
    assert_rel(tp_critical_batch_tokens(2.0), 7.36e6, 0.01);
    assert_true(tp_critical_batch_tokens(1.8) > tp_critical_batch_tokens(2.2));
    assert_rel(tp_critical_batch_tokens(0.0), 0.0, 0.0);

    /* The seed's 4M-token batch is below B_crit at the predicted loss;
     * a 64M-token batch is far above it and raises the caveat. */
    tp_plan_in in;
    seed_plan(&in);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_false(pl.crit_batch_caveat);
    assert_rel(pl.loss,
               tp_scaling_loss(tp_scaling_fit_get(TP_FIT_BESIROGLU), 29975214080.0, pl.tokens),
               1e-12);
    in.base.train.global_batch = 16384;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.crit_batch_caveat);
    assert_true(pl.batch_over_crit > 2.0);
}

static void test_shape_and_sized_model(void **state)
{
    (void)state;
    tp_model m;
    const double sizes[] = {1e9, 7e9, 30e9, 70e9, 400e9};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        assert_int_equal(tp_scaling_shape(sizes[i], 128256, &m, NULL), TP_OK);
        tp_params p;
        assert_int_equal(tp_model_params(&m, 0, &p, NULL), TP_OK);
        assert_rel((double)p.total, sizes[i], 0.08);
        assert_int_equal(m.hidden % 128, 0);
    }
    assert_int_equal(tp_scaling_shape(10.0, 32000, &m, NULL), TP_ERR_INVALID_ARG);

    /* Compute-optimal model for 5.76e23 FLOPs under Besiroglu: ~72B. */
    tp_plan_in in;
    seed_plan(&in);
    in.size_model = true;
    in.tokens_from = TP_TOKENS_COMPUTE;
    in.compute_flops = 5.76e23;
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 1024;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_rel(pl.params_n, 7.24e10, 0.08);
    assert_rel(pl.flops_6nd, 5.76e23, 1e-9);
    assert_rel(pl.optimal.params, 7.24e10, 0.01);

    /* Tokens for a FLOP budget with a given model: D = C / 6N. */
    seed_plan(&in);
    in.tokens_from = TP_TOKENS_COMPUTE;
    in.compute_flops = 1.08e23;
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_rel(pl.tokens, 1.08e23 / (6.0 * 29975214080.0), 1e-12);

    /* The model a $1M budget affords at 40% of an A100, 20 tokens/param. */
    tp_scaling_point a;
    assert_int_equal(tp_budget_affords(1e6, 4.0, 312e12, 0.4, NULL, 20.0, &a, NULL), TP_OK);
    assert_rel(a.compute_flops, 1e6 / 4.0 * 3600.0 * 312e12 * 0.4, 1e-12);
    assert_rel(a.tokens, 20.0 * a.params, 1e-12);
    assert_int_equal(tp_budget_affords(1e6, 0.0, 312e12, 0.4, NULL, 20.0, &a, NULL),
                     TP_ERR_INVALID_ARG);
}

/* ---- inverse problems: round trips ---- */

/* Issue 19: the tie-break order and the clean-layout rules, by hand. */
static void test_layout_simpler_and_clean(void **state)
{
    (void)state;
    tp_config a, b;
    memset(&a, 0, sizeof a);
    a.model = mpt30b(); /* 48 layers */
    a.gpu = a100();     /* 8 GPUs per node */
    tp_train_default(&a.train);
    a.train.seq_len = 4096;
    a.train.tp = 2;
    a.train.pp = 29;
    a.train.cp = 2;
    b = a;
    char why[96];
    assert_false(tp_plan_layout_clean(&a, why, sizeof why));
    assert_string_equal(why, "CP 2 at a 4096-token sequence"); /* the first rule broken */
    a.train.cp = 1;
    assert_false(tp_plan_layout_clean(&a, why, sizeof why));
    assert_string_equal(why, "PP 29 does not divide 48 layers");
    a.train.pp = 4;
    assert_true(tp_plan_layout_clean(&a, why, sizeof why));
    assert_string_equal(why, "");
    a.train.tp = 16;
    assert_false(tp_plan_layout_clean(&a, why, sizeof why));
    assert_string_equal(why, "TP 16 spans nodes of 8 GPUs");
    a.train.seq_len = 32768; /* CP at long context is clean */
    a.train.tp = 2;
    a.train.cp = 4;
    assert_true(tp_plan_layout_clean(&a, NULL, 0));

    /* first difference wins: TP in a node, no short CP, even PP, fewer stages */
    a = b;          /* TP 2 PP 29 CP 2 at 4K */
    b.train.cp = 1; /* TP 2 PP 29 CP 1 */
    assert_true(tp_plan_layout_simpler(&b, &a) < 0);
    assert_true(tp_plan_layout_simpler(&a, &b) > 0);
    a.train.cp = 1;
    a.train.pp = 48;                                 /* even, but 48 stages */
    assert_true(tp_plan_layout_simpler(&a, &b) < 0); /* even PP beats fewer uneven stages */
    b.train.pp = 4;
    assert_true(tp_plan_layout_simpler(&b, &a) < 0); /* 4 stages beat 48 */
    a.train.pp = 4;
    a.train.tp = 4;
    assert_true(tp_plan_layout_simpler(&b, &a) < 0); /* then less TP */
    a.train.tp = 2;
    assert_int_equal(tp_plan_layout_simpler(&a, &b), 0);
}

static void test_round_trips(void **state)
{
    (void)state;
    const double gh[] = {1000.0, 230769.2, 5e6};
    const double dl[] = {24.0, 500.0, 2000.0};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double n = tp_budget_gpus_for_deadline(gh[i], dl[j]);
            assert_rel(tp_budget_wall_h(gh[i], n), dl[j], 1e-12);
            int64_t whole = tp_budget_round_nodes(n, 8);
            assert_int_equal(whole % 8, 0);
            assert_true((double)whole >= n);
            assert_true((double)whole < n + 8.0);
            assert_le_rel(tp_budget_wall_h(gh[i], (double)whole), dl[j]);
            /* required MFU at the deadline is the MFU we started from */
            double flops = gh[i] * 3600.0 * 0.4 * 312e12;
            assert_rel(tp_budget_required_mfu(flops, n, 312e12, dl[j] * 3600.0), 0.4, 1e-12);
        }
    }
    assert_int_equal(tp_budget_round_nodes(512.0, 8), 512);
    assert_int_equal(tp_budget_round_nodes(0.2, 8), 8);

    /* deadline -> GPUs -> deadline through the plan. */
    tp_plan_in in;
    seed_plan(&in);
    in.deadline_h = 504.0;
    tp_plan pl, back;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.feasible);
    assert_true(pl.deadline_met);
    assert_int_equal(pl.num_gpus % 8, 0);
    if (!pl.used_predicted) /* at the user MFU the estimate is a lower bound */
        assert_true(pl.num_gpus >= pl.gpus_whole_nodes);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = pl.num_gpus;
    assert_int_equal(tp_plan_run(&in, &back, NULL), TP_OK);
    assert_true(back.deadline_met);
    assert_rel(back.compute_wall_s, pl.compute_wall_s, 1e-9);
    /* Minimal: one node fewer misses the deadline or has no layout. */
    in.base.train.num_gpus = pl.num_gpus - 8;
    assert_int_equal(tp_plan_run(&in, &back, NULL), TP_OK);
    assert_true(!back.feasible || !back.deadline_met);
    /* GPUs -> deadline -> GPUs: the wall clock on a cluster as a deadline
     * gives that cluster back. */
    in.base.train.num_gpus = 1024;
    assert_int_equal(tp_plan_run(&in, &back, NULL), TP_OK);
    assert_true(back.feasible);
    in.size_by = TP_SIZE_DEADLINE;
    in.deadline_h = back.compute_wall_s / 3600.0;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_int_equal(pl.num_gpus, 1024);
}

/* At the user MFU the sizing is closed-form: GPUs = GPU-hours / deadline. */
static void test_round_trip_user_mfu(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan_130(&in);
    in.deadline_h = 600.0;
    tp_plan pl, back;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.feasible);
    assert_false(pl.used_predicted);
    assert_rel(pl.gpus_exact * in.deadline_h, pl.gpu_hours_mfu_6nd, 1e-12);
    assert_true(pl.num_gpus >= pl.gpus_whole_nodes);
    assert_true(pl.deadline_met);
    /* deadline -> GPUs -> deadline: the wall clock on those GPUs. */
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = pl.num_gpus;
    assert_int_equal(tp_plan_run(&in, &back, NULL), TP_OK);
    assert_rel(back.compute_wall_s / 3600.0, pl.gpu_hours_mfu_6nd / (double)pl.num_gpus, 1e-9);
    assert_le_rel(back.compute_wall_s, in.deadline_h * 3600.0);
}

/* A deadline no cluster up to max_gpus meets: the fastest one, flagged. */
static void test_deadline_unreachable(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan(&in);
    in.deadline_h = 50.0;
    in.max_gpus = 1024;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.feasible);
    assert_false(pl.deadline_met);
    assert_true(pl.num_gpus <= 1024);
    assert_true(pl.required_mfu > 1.0);
    in.max_gpus = 4;
    tp_error e = {0};
    assert_int_equal(tp_plan_run(&in, &pl, &e), TP_ERR_INVALID_ARG);
    assert_string_equal(e.path, "plan.max_gpus");
}

/* The seeds' ordered recipe as the layout source. */
static void test_recipe_layout(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan(&in);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    in.layout_from = TP_LAYOUT_RECIPE;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_true(pl.feasible);
    const tp_train *t = &pl.phases[0].cfg.train;
    assert_int_equal(t->tp * t->pp * t->cp * pl.phases[0].res.dp, 512);
    assert_true(pl.phases[0].res.memory.fits);
    assert_true(t->tp <= 8);
}

/* ---- checkpointing and failures (formulas.md 6) ---- */

static void test_young_daly(void **state)
{
    (void)state;
    assert_rel(TP_LLAMA3_FAILURES_PER_GPU_HOUR, 1.97e-5, 0.01);
    double M = 3600.0 / (16384.0 * TP_LLAMA3_FAILURES_PER_GPU_HOUR);
    assert_rel(M, 11135.0, 0.001);
    assert_rel(tp_ckpt_young(60.0, M), 1156.0, 0.001);
    assert_rel(tp_ckpt_daly(60.0, M), 1116.0, 0.001);
    assert_rel(tp_ckpt_daly(100.0, 40.0), 40.0, 1e-12); /* delta >= 2M: M */

    tp_ckpt_in in;
    memset(&in, 0, sizeof in);
    in.params = in.trainable_params = 30e9;
    in.weight_bytes_per_param = 2.0;
    in.master_bytes_per_param = 4.0;
    in.moment_bytes_per_param = 8.0;
    in.num_gpus = 16384;
    in.storage_bw_bytes_per_s = 420e9 / 60.0; /* a 60 s write */
    in.host_bw_bytes_per_s = 10e9;
    in.failures_per_gpu_hour = TP_LLAMA3_FAILURES_PER_GPU_HOUR;
    in.compute_s = 30.0 * 86400.0;
    tp_ckpt c;
    assert_int_equal(tp_ckpt_plan(&in, &c, NULL), TP_OK);
    assert_rel(c.total_bytes, 420 * GB, 1e-12); /* 14 B/param, formulas.md 6.1 */
    assert_rel(c.write_s, 60.0, 1e-12);
    assert_rel(c.stall_s, 60.0, 1e-12);
    assert_rel(c.job_mtbf_s, 11135.0, 0.001);
    assert_rel(c.daly_s, 1116.0, 0.001);
    assert_rel(c.interval_s, c.daly_s, 1e-12);
    /* The parts add up: W = T + stalls + rework + restarts. */
    assert_rel(c.wall_s, in.compute_s + c.ckpt_overhead_s + c.rework_s + c.restart_total_s, 1e-9);
    assert_rel(c.failures, c.wall_s / c.job_mtbf_s, 1e-12);
    assert_true(c.goodput > 0.85 && c.goodput < 0.95);
    assert_rel(c.goodput, in.compute_s / c.wall_s, 1e-12);
    /* First-order lost fraction of formulas.md 6.3 (10.4% of T, R = 0). */
    assert_rel(c.stall_s / c.interval_s + c.interval_s / (2.0 * c.job_mtbf_s), 0.104, 0.02);

    /* Asynchronous: a short stall, but a persist lag and an interval at
     * least as long as one write. */
    in.async = true;
    tp_ckpt a;
    assert_int_equal(tp_ckpt_plan(&in, &a, NULL), TP_OK);
    assert_rel(a.stall_s, 420e9 / 16384.0 / 10e9, 1e-12);
    assert_rel(a.persist_lag_s, 60.0, 1e-12);
    assert_true(a.interval_s >= a.write_s);
    assert_true(a.goodput > c.goodput);

    /* No failures: one checkpoint's stall per interval only. */
    in.async = false;
    in.failures_per_gpu_hour = 0.0;
    assert_int_equal(tp_ckpt_plan(&in, &c, NULL), TP_OK);
    assert_rel(c.failures, 0.0, 0.0);
    assert_true(c.progress);
    /* Failures faster than checkpoints: no progress. */
    in.failures_per_gpu_hour = 0.5;
    in.restart_s = 3600.0;
    assert_int_equal(tp_ckpt_plan(&in, &c, NULL), TP_OK);
    assert_false(c.progress);
    assert_rel(c.goodput, 0.0, 0.0);
    in.storage_bw_bytes_per_s = 0.0;
    tp_error e = {0};
    assert_int_equal(tp_ckpt_plan(&in, &c, &e), TP_ERR_INVALID_ARG);
    assert_string_equal(e.path, "storage-gbps");
}

/* ---- learning rate ---- */

static void test_lr_schedule(void **state)
{
    (void)state;
    tp_lr_schedule s = {3e-4, 3e-5, 2000, 143052};
    assert_rel(tp_lr_at(&s, 0), 0.0, 0.0);
    assert_rel(tp_lr_at(&s, 1000), 1.5e-4, 1e-12);
    assert_rel(tp_lr_at(&s, 2000), 3e-4, 1e-12);
    assert_rel(tp_lr_at(&s, 143052), 3e-5, 1e-12);
    assert_rel(tp_lr_at(&s, 2000 + (143052 - 2000) / 2), 1.65e-4, 1e-9);
    assert_rel(tp_lr_at(&s, 1 << 30), 3e-5, 1e-12); /* clamped */
    double prev = tp_lr_at(&s, 2000);
    for (int64_t k = 2001; k <= 143052; k += 997) {
        double v = tp_lr_at(&s, k);
        assert_le_rel(v, prev);
        prev = v;
    }

    /* The plan's defaults: warmup min(2000, 10%), min = 10% of peak. */
    tp_plan_in in;
    seed_plan(&in);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_int_equal(pl.lr.warmup_steps, 2000);
    assert_int_equal(pl.lr.total_steps, pl.phases[0].steps_whole);
    assert_rel(pl.lr.min_lr, 0.1 * pl.lr.peak_lr, 1e-12);
}

/* ---- staged phases ---- */

static void test_phases_context_extension(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan(&in);
    in.base.model = llama(60, 6656, 52, 52, 17920, 32000, false); /* LLaMA-33B shape */
    in.tokens_from = TP_TOKENS_GIVEN;
    in.tokens = 600e9;
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    in.num_phases = 2;
    strcpy(in.phases[0].name, "4k");
    in.phases[0].seq_len = 4096; /* tokens: the rest */
    strcpy(in.phases[1].name, "32k");
    in.phases[1].seq_len = 32768;
    in.phases[1].tokens = 40e9;
    tp_plan pl;
    tp_error e = {0};
    assert_int_equal(tp_plan_run(&in, &pl, &e), TP_OK);
    assert_true(pl.feasible);
    assert_int_equal(pl.num_phases, 2);
    assert_rel(pl.phases[0].spec.tokens, 560e9, 1e-12);
    assert_rel(pl.tokens, 600e9, 1e-12);
    /* Same tokens per step: 128 sequences of 32K. */
    assert_int_equal(pl.phases[1].spec.global_batch, 128);
    assert_rel(pl.phases[1].steps, 40e9 / 4194304.0, 1e-12);
    /* Longer context costs more per token (attention), 6ND does not see it. */
    double fpt0 = pl.phases[0].flops_exact / pl.phases[0].spec.tokens;
    double fpt1 = pl.phases[1].flops_exact / pl.phases[1].spec.tokens;
    assert_true(fpt1 > 1.2 * fpt0);
    assert_rel(pl.phases[0].flops_6nd / 560e9, pl.phases[1].flops_6nd / 40e9, 1e-12);
    assert_rel(pl.flops_exact, pl.phases[0].flops_exact + pl.phases[1].flops_exact, 1e-12);
    assert_rel(pl.compute_wall_s, pl.phases[0].wall_s + pl.phases[1].wall_s, 1e-12);
    assert_int_equal(pl.lr.total_steps, pl.phases[0].steps_whole + pl.phases[1].steps_whole);
    assert_rel(pl.phases[1].lr_start_step, (double)pl.phases[0].steps_whole, 1e-12);
    /* The 32K phase needs more model parallelism or recompute to fit. */
    assert_true(pl.phases[1].res.memory.fits);

    /* Two open phases, or phases that take more than the total, are errors. */
    in.phases[1].tokens = 0.0;
    assert_int_equal(tp_plan_run(&in, &pl, &e), TP_ERR_INVALID_ARG);
    in.phases[1].tokens = 700e9;
    assert_int_equal(tp_plan_run(&in, &pl, &e), TP_ERR_INVALID_ARG);
}

/* A frozen 400M vision encoder (SigLIP-SO400M class): weights and 4 N_f D
 * FLOPs, no optimizer state, nothing in the checkpoint. */
static void test_phases_frozen_encoder(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan(&in);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 512;
    tp_plan plain, vlm;
    assert_int_equal(tp_plan_run(&in, &plain, NULL), TP_OK);
    in.num_phases = 1;
    strcpy(in.phases[0].name, "vlm");
    in.phases[0].frozen_params = 400e6;
    in.phases[0].frozen_tokens = 100e9;
    assert_int_equal(tp_plan_run(&in, &vlm, NULL), TP_OK);
    assert_true(vlm.feasible);
    assert_rel(vlm.phases[0].frozen_flops, 4.0 * 400e6 * 100e9, 1e-12);
    assert_rel(vlm.flops_exact - plain.flops_exact, 4.0 * 400e6 * 100e9, 1e-9);
    assert_rel(vlm.flops_6nd - plain.flops_6nd, 4.0 * 400e6 * 100e9, 1e-9);
    assert_rel(vlm.ckpt.total_bytes, plain.ckpt.total_bytes, 1e-12);
    assert_rel(vlm.static_bytes, plain.static_bytes, 1e-12);
    in.phases[0].frozen_no_backward = true;
    assert_int_equal(tp_plan_run(&in, &vlm, NULL), TP_OK);
    assert_rel(vlm.phases[0].frozen_flops, 2.0 * 400e6 * 100e9, 1e-12);
}

/* ---- infeasible ---- */

static void test_infeasible_says_what_would_fix_it(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan(&in);
    in.base.gpu.mem_capacity_bytes = 16 * GB;
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 8;
    tp_plan pl;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_false(pl.feasible);
    assert_non_null(strstr(pl.reason, "no layout"));
    assert_non_null(strstr(pl.fix, "GPUs"));
    assert_non_null(strstr(pl.fix, "GiB"));

    /* The same model with its fixed layout flags on too few GPUs. */
    seed_plan(&in);
    in.size_by = TP_SIZE_GPUS;
    in.base.train.num_gpus = 8;
    in.layout_from = TP_LAYOUT_GIVEN;
    assert_int_equal(tp_plan_run(&in, &pl, NULL), TP_OK);
    assert_false(pl.feasible);
    assert_non_null(strstr(pl.fix, "fixed layout"));
}

static void test_bad_input(void **state)
{
    (void)state;
    tp_plan_in in;
    seed_plan(&in);
    tp_plan pl;
    tp_error e = {0};
    in.mfu = 0.0;
    assert_int_equal(tp_plan_run(&in, &pl, &e), TP_ERR_INVALID_ARG);
    assert_string_equal(e.path, "plan.mfu");
    seed_plan(&in);
    in.deadline_h = 0.0;
    assert_int_equal(tp_plan_run(&in, &pl, &e), TP_ERR_INVALID_ARG);
    assert_string_equal(e.path, "plan.deadline_h");
    seed_plan(&in);
    in.size_model = true;
    assert_int_equal(tp_plan_run(&in, &pl, &e), TP_ERR_INVALID_ARG);
    assert_string_equal(e.path, "plan.size_model");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_s0_1_tokens_per_param),
        cmocka_unit_test(test_s0_2_steps),
        cmocka_unit_test(test_s0_3_to_6_budget),
        cmocka_unit_test(test_s0_3_to_5_plan),
        cmocka_unit_test(test_s0_7_deadline),
        cmocka_unit_test(test_s0_8_steps_and_checkpoint_interval),
        cmocka_unit_test(test_s0_9_static_memory),
        cmocka_unit_test(test_s0_10_layout),
        cmocka_unit_test(test_s1_7_mfu_from_throughput),
        cmocka_unit_test(test_s1_8_budget),
        cmocka_unit_test(test_s1_2_step_time),
        cmocka_unit_test(test_chinchilla_table),
        cmocka_unit_test(test_critical_batch),
        cmocka_unit_test(test_shape_and_sized_model),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_layout_simpler_and_clean),
        cmocka_unit_test(test_round_trip_user_mfu),
        cmocka_unit_test(test_deadline_unreachable),
        cmocka_unit_test(test_recipe_layout),
        cmocka_unit_test(test_young_daly),
        cmocka_unit_test(test_lr_schedule),
        cmocka_unit_test(test_phases_context_extension),
        cmocka_unit_test(test_phases_frozen_encoder),
        cmocka_unit_test(test_infeasible_says_what_would_fix_it),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
