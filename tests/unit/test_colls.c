/* SPDX-License-Identifier: MIT */
/*
 * The collectives of a step (tp_step_collectives, src/lib/colls.c): the
 * counts, groups and volumes the step-time model charges, hand-derived on
 * small layouts, and the tie to the breakdown: with the overlaps off, the
 * rows of a part sum to the breakdown's exposed time of that part.
 */
#include <string.h>

#include "helpers.h"
#include "fixtures.h"
#include "time_checks.h"
#include "tp/tp.h"

typedef struct listing {
    tp_coll_row v[TP_COLL_ROWS_MAX];
    int n;
} listing;

static listing list_of(const tp_config *c, const tp_result *r)
{
    listing l;
    memset(&l, 0, sizeof l);
    l.n = tp_step_collectives(c, r, l.v, TP_COLL_ROWS_MAX);
    return l;
}

/* The row named name; fails the test when there is none. */
static const tp_coll_row *row(const listing *l, const char *name)
{
    static const tp_coll_row none; /* fail() does not return: never read */
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return &l->v[i];
    print_error("no row \"%s\"\n", name);
    fail();
    return &none;
}

static bool has(const listing *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i].name, name) == 0)
            return true;
    return false;
}

/* Sum of total_s over the rows whose name starts with prefix. */
static double total(const listing *l, const char *prefix)
{
    double s = 0.0;
    for (int i = 0; i < l->n; i++)
        if (strncmp(l->v[i].name, prefix, strlen(prefix)) == 0)
            s += l->v[i].total_s;
    return s;
}

/* Mixtral-like: 32 layers, h 4096, 8 experts top-2. */
static tp_model moe8(void)
{
    tp_model m = llama(32, 4096, 32, 8, 14336, 32000, false);
    m.num_experts = 8;
    m.topk = 2;
    return m;
}

/* test_counts_one_stage's layout (below), for the others to vary. */
static tp_config moe_layout(void)
{
    tp_config c = fixture_config(moe8());
    c.train.num_gpus = 64;
    c.train.tp = 2;
    c.train.sp = true;
    c.train.ep = 8;
    c.train.zero = 1;
    c.train.seq_len = 4096;
    c.train.global_batch = 256;
    return c;
}

/*
 * 64 GPUs, TP 2 with SP, EP 8, ZeRO-1, one stage, sequence 4096, 256
 * sequences: DP 32, m = 8 micro-batches of 1. T = 4096 tokens; an
 * activation of T x h x 2 B = 33,554,432 B. TP: 4 all-reduces a layer per
 * micro-batch, 32 x 4 x 8 = 1024, plus the embedding's 8; EP: k copies of
 * T/t tokens, 2 x 2048 x 4096 x 2 = 33,554,432 B, 4 per MoE layer, 1024.
 * DP: the dense parameters over DP 32 and the experts over EDP 4 (64 /
 * (TP 2 x EP 8)), a reduce-scatter of the bf16 gradients and an
 * all-gather of the bf16 weights each, once.
 */
static void test_counts_one_stage(void **state)
{
    (void)state;
    tp_config c = moe_layout();
    c.opts.dp_comm_overlap = false;
    tp_result r = eval_ok(&c);
    assert_int_equal(r.grad_accum, 8);
    listing l = list_of(&c, &r);
    assert_int_equal(l.n, 6);

    const tp_coll_row *tp = row(&l, "TP all-reduce");
    assert_rel(tp->count, 1032.0, 0.0);
    assert_rel(tp->bytes, 33554432.0, 0.0);
    assert_int_equal(tp->group, 2);
    assert_int_equal(tp->kind, TP_COLL_ALL_REDUCE);
    assert_rel(tp->total_s, tp->each_s * 1032.0, 1e-15);
    assert_rel(tp->total_s, r.time.tp_comm_s, 1e-12); /* no TP overlap by default */

    const tp_coll_row *ep = row(&l, "EP all-to-all");
    assert_rel(ep->count, 1024.0, 0.0);
    assert_rel(ep->bytes, 33554432.0, 0.0);
    assert_int_equal(ep->group, 8);
    assert_rel(ep->total_s, r.time.ep_comm_s, 1e-12);

    double expert = 45097156608.0 / 16.0; /* routed experts over TP 2 x EP 8 */
    double dense = r.stage_first.params_on_gpu - expert;
    const tp_coll_row *rs = row(&l, "DP grad reduce-scatter");
    assert_rel(rs->count, 1.0, 0.0);
    assert_int_equal(rs->group, 32);
    assert_rel(rs->bytes, 2.0 * dense, 1e-15);
    assert_rel(row(&l, "DP weight all-gather")->bytes, 2.0 * dense, 1e-15);
    const tp_coll_row *ers = row(&l, "EDP grad reduce-scatter");
    assert_rel(ers->count, 1.0, 0.0);
    assert_int_equal(ers->group, 4);
    assert_rel(ers->bytes, 2.0 * expert, 1e-15);
    assert_rel(row(&l, "EDP weight all-gather")->bytes, 2.0 * expert, 1e-15);
    /* without the DP overlap the step charges them all */
    assert_rel(total(&l, "DP ") + total(&l, "EDP "), r.time.dp_comm_s, 1e-12);
    assert_false(has(&l, "PP send/recv") || has(&l, "CP ring send") || has(&l, "ETP all-reduce"));
}

/* Full recompute re-runs the forward's TP all-reduces and EP all-to-alls:
 * 6 and 6 per layer and micro-batch instead of 4 (the embedding's stays
 * one); with 8 of the 32 layers recomputed (the block method), 4.5. */
static void test_counts_recompute(void **state)
{
    (void)state;
    tp_config c = moe_layout();
    c.train.recompute = TP_RECOMPUTE_FULL;
    tp_result r = eval_ok(&c);
    listing l = list_of(&c, &r);
    assert_rel(row(&l, "TP all-reduce")->count, 8.0 * (32.0 * 6.0 + 1.0), 0.0);
    assert_rel(row(&l, "EP all-to-all")->count, 8.0 * 32.0 * 6.0, 0.0);
    c.train.recompute_layers = 8;
    r = eval_ok(&c);
    l = list_of(&c, &r);
    assert_rel(row(&l, "TP all-reduce")->count, 8.0 * (32.0 * 4.5 + 1.0), 0.0);
    assert_rel(row(&l, "EP all-to-all")->count, 8.0 * 32.0 * 4.5, 0.0);
}

/*
 * MoE parallel folding: TP 2, expert TP 1 on 64 GPUs (EP 8, EDP 8). The
 * attention's all-reduce stays on TP (one a pass), the experts' goes to
 * the ETP group of 1: none. With TP 2, ETP 4 (EP 2, EDP 8) it is one a
 * pass on 4 ranks over ETP/TP = 2 times the tokens. With EP = DP the
 * experts have no data-parallel replica: no EDP rows.
 */
static void test_counts_folding(void **state)
{
    (void)state;
    tp_config c = moe_layout();
    c.train.etp = 1;
    tp_result r = eval_ok(&c);
    listing l = list_of(&c, &r);
    assert_rel(row(&l, "TP all-reduce")->count, 8.0 * (32.0 * 2.0 + 1.0), 0.0);
    assert_false(has(&l, "ETP all-reduce"));
    assert_int_equal(row(&l, "EDP grad reduce-scatter")->group, 8);
    c.train.ep = 2;
    c.train.etp = 4;
    r = eval_ok(&c);
    l = list_of(&c, &r);
    const tp_coll_row *e = row(&l, "ETP all-reduce");
    assert_rel(e->count, 8.0 * 32.0 * 2.0, 0.0);
    assert_int_equal(e->group, 4);
    assert_rel(e->bytes, 2.0 * 33554432.0, 0.0);
    assert_rel(row(&l, "TP all-reduce")->total_s + e->total_s, r.time.tp_comm_s, 1e-12);
    /* EP 8 = DP 8 on 8 GPUs: each expert on one GPU, nothing to reduce */
    tp_config d = fixture_config(moe8());
    d.train.num_gpus = 8;
    d.train.ep = 8;
    d.train.zero = 1;
    d.train.global_batch = 8;
    r = eval_ok(&d);
    l = list_of(&d, &r);
    assert_true(has(&l, "DP grad reduce-scatter") && has(&l, "EP all-to-all"));
    assert_false(has(&l, "EDP grad reduce-scatter") || has(&l, "EDP weight all-gather"));
}

/* Llama-3-8B-like on 8 GPUs, sequence seq, global batch gb (ZeRO 0, no
 * pipeline), for the dense tests below to vary. */
static tp_config dense8(int64_t seq, int64_t gb)
{
    tp_config c = fixture_config(llama(32, 4096, 32, 8, 14336, 128256, false));
    c.train.num_gpus = 8;
    c.train.seq_len = seq;
    c.train.global_batch = gb;
    return c;
}

/*
 * ZeRO-3 (FSDP): one collective per layer. 8 GPUs, Llama-3-8B-like, 16
 * sequences of 4096: DP 8, m = 2. Without a pipeline each micro-batch
 * gathers the weights forward and backward and reduce-scatters the
 * gradients: 2 x 2 x 32 = 128 all-gathers and 2 x 32 = 64 reduce-
 * scatters of a layer's share (stage 0 holds the embedding too). Under
 * PP 2 with 4 runs of the schedule (torchtitan's local batch), the stage
 * stays gathered: one all-gather and one reduce-scatter per layer and run.
 */
static void test_counts_zero3(void **state)
{
    (void)state;
    tp_config c = dense8(4096, 16);
    c.train.zero = 3;
    c.opts.dp_comm_overlap = false;
    tp_result r = eval_ok(&c);
    assert_int_equal(r.grad_accum, 2);
    listing l = list_of(&c, &r);
    const tp_coll_row *ag = row(&l, "DP weight all-gather"),
                      *rs = row(&l, "DP grad reduce-scatter");
    assert_rel(ag->count, 128.0, 0.0);
    assert_rel(rs->count, 64.0, 0.0);
    assert_int_equal(ag->group, 8);
    assert_rel(ag->bytes, 2.0 * r.stage_first.params_on_gpu / 32.0, 1e-15);
    assert_rel(rs->bytes, 2.0 * r.stage_first.params_on_gpu / 32.0, 1e-15);
    assert_rel(ag->total_s + rs->total_s, r.time.dp_comm_s, 1e-12);

    c.train.num_gpus = 16;
    c.train.pp = 2;
    c.train.global_batch = 64; /* DP 8: 8 micro-batches of 1 */
    c.train.local_batch = 2;   /* 2 a run: 4 runs */
    r = eval_ok(&c);
    assert_int_equal(r.schedule_runs, 4);
    l = list_of(&c, &r);
    ag = row(&l, "DP weight all-gather");
    rs = row(&l, "DP grad reduce-scatter");
    double L0 = (double)r.stage_first.layers;
    assert_rel(ag->count, 4.0 * L0, 0.0);
    assert_rel(rs->count, 4.0 * L0, 0.0);
    assert_rel(ag->total_s + rs->total_s, r.time.dp_comm_s, 1e-12);
    assert_rel(row(&l, "PP send/recv")->count, 16.0, 0.0);
}

/*
 * DualPipe: the GPU of stage 0 also holds stage pp-1, and reduces the
 * routed experts of both over the expert-data-parallel group. 64 GPUs, TP
 * 2, EP 2, PP 4: DP 8, EDP 4; each stage 8 of the 32 MoE layers, so the
 * GPU holds 16 layers' experts, 45,097,156,608 x 16/32 / (TP 2 x EP 2),
 * and the rest of its parameters (both stages') over DP. Without the
 * overlap the step charges the rows whole.
 */
static void test_counts_dualpipe(void **state)
{
    (void)state;
    tp_config c = moe_layout();
    c.train.ep = 2;
    c.train.pp = 4;
    c.train.schedule = TP_SCHED_DUALPIPE;
    c.opts.dp_comm_overlap = false;
    tp_result r = eval_ok(&c);
    listing l = list_of(&c, &r);
    double expert = 45097156608.0 * 16.0 / 32.0 / 4.0;
    double dense = r.stage_first.params_on_gpu - expert;
    const tp_coll_row *ers = row(&l, "EDP grad reduce-scatter");
    assert_int_equal(ers->group, 4);
    assert_rel(ers->bytes, 2.0 * expert, 1e-15);
    const tp_coll_row *rs = row(&l, "DP grad reduce-scatter");
    assert_int_equal(rs->group, 8);
    assert_rel(rs->bytes, 2.0 * dense, 1e-15);
    assert_rel(total(&l, "DP ") + total(&l, "EDP "), r.time.dp_comm_s, 1e-12);
}

/* Context parallelism: K and V around the ring, cp - 1 times forward and
 * twice that backward per layer and micro-batch; under full recompute the
 * forward's again: 8 GPUs, CP 8, one sequence: 32 x 7 x 4 = 896 sends of
 * T/cp = 16384 tokens x 2 x 1024 (8 KV heads of 128) x 2 B. */
static void test_counts_cp(void **state)
{
    (void)state;
    tp_config c = dense8(131072, 1);
    c.train.cp = 8;
    c.train.recompute = TP_RECOMPUTE_FULL;
    tp_result r = eval_ok(&c);
    listing l = list_of(&c, &r);
    const tp_coll_row *cp = row(&l, "CP ring send");
    assert_rel(cp->count, 896.0, 0.0);
    assert_int_equal(cp->group, 8);
    assert_rel(cp->bytes, 16384.0 * 2048.0 * 2.0, 0.0);
    assert_int_equal(cp->kind, TP_COLL_P2P);
}

/* Nothing without a step time, or without room for every row. */
static void test_no_rows(void **state)
{
    (void)state;
    tp_config c = fixture_config(moe8());
    c.train.num_gpus = 64;
    c.train.ep = 8;
    c.train.global_batch = 64;
    tp_result r = eval_ok(&c);
    tp_coll_row rows[TP_COLL_ROWS_MAX];
    assert_int_equal(tp_step_collectives(&c, &r, rows, TP_COLL_ROWS_MAX - 1), 0);
    assert_true(tp_step_collectives(&c, &r, rows, TP_COLL_ROWS_MAX) > 0);
    r.time.computed = false;
    assert_int_equal(tp_step_collectives(&c, &r, rows, TP_COLL_ROWS_MAX), 0);
    assert_int_equal(tp_step_collectives(NULL, &r, rows, TP_COLL_ROWS_MAX), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_one_stage), cmocka_unit_test(test_counts_recompute),
        cmocka_unit_test(test_counts_folding),   cmocka_unit_test(test_counts_zero3),
        cmocka_unit_test(test_counts_cp),        cmocka_unit_test(test_counts_dualpipe),
        cmocka_unit_test(test_no_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
