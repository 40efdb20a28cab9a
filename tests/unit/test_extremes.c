/* SPDX-License-Identifier: MIT */
/*
 * Numeric extremes (issue 8): 1 to 1,048,576 GPUs, 1M to 100T parameters,
 * sequences of 1 to 10M tokens, vocabularies of 1 to 1M. For every
 * combination, tp_eval, the layout search and the capacity plan either
 * return an error with a message or a result in which every number is
 * finite: the JSON writers (tp_io_result_json, tp_io_plan_json) refuse a
 * NaN or an infinity anywhere in the result, so a NULL from them is a
 * failure here. Memory and time must also be positive where they must.
 * The CLI side is in tests/hostile/cases.tsv (the "extreme" cases).
 *
 * The search must stay bounded at a million GPUs. Its speed is measured by
 * bench_search (`make bench`, with a million-GPU case), never by a timed
 * test; here the work is bounded instead: a search may enumerate at most
 * SEARCH_MAX_CANDIDATES layouts (a count, the same on every machine and
 * under the sanitizers).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "helpers.h"
#include "io.h"
#include "plan_out.h"
#include "tp/tp.h"

/*
 * Layouts one search may enumerate. The largest case below (100T parameters
 * on 1,048,576 GPUs) enumerates 607,824; at the library's million
 * evaluations per second (bench_eval) the bound is about a second of work.
 */
#define SEARCH_MAX_CANDIDATES 1000000u

/* A model of about `params` parameters (1e6 .. 1e14), Llama-shaped. */
typedef struct shape {
    const char *name;
    int64_t L, h, a, kv, f;
} shape;

static const shape shapes[] = {
    {"1M", 2, 64, 4, 4, 256}, /* ~0.1M + vocabulary */
    {"125M", 12, 768, 12, 12, 3072},
    {"8B", 32, 4096, 32, 8, 14336},
    {"405B", 126, 16384, 128, 8, 53248},
    {"10T", 400, 49152, 384, 8, 196608},  /* ~ 12 L h^2 = 11.6T */
    {"100T", 1600, 73728, 576, 8, 294912} /* 122T */
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

static const int64_t gpu_counts[] = {1, 8, 1024, 1048576};
static const int64_t seq_lens[] = {1, 4096, 10000000};
static const int64_t vocabs[] = {1, 50257, 1048576};

static tp_gpu h100(void)
{
    tp_gpu g;
    tp_error err;
    assert_int_equal(tp_io_gpu_load("h100-sxm", &g, &err), TP_OK);
    return g;
}

static tp_config make(const shape *sh, int64_t V, int64_t S, int64_t G)
{
    tp_config c;
    memset(&c, 0, sizeof c);
    c.model = llama(sh->L, sh->h, sh->a, sh->kv, sh->f, V, false);
    snprintf(c.model.name, sizeof c.model.name, "x-%s", sh->name);
    c.gpu = h100();
    tp_options_default(&c.opts);
    tp_train_default(&c.train);
    c.train.num_gpus = G;
    c.train.seq_len = S;
    c.train.micro_batch = 1;
    c.train.global_batch = G; /* DP = G at TP = PP = 1 */
    return c;
}

static int checked, errors;

/* An evaluation: an error with a message, or finite numbers throughout. */
static void check_eval(const tp_config *c, const char *what)
{
    tp_result r;
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_status st = tp_eval(c, &r, &err);
    checked++;
    if (st != TP_OK) {
        if (!err.message[0])
            fail_msg("%s: status %s without a message", what, tp_strerror(st));
        if (getenv("TP_EXTREMES_VERBOSE"))
            print_message("%s: %s: %s\n", what, err.path, err.message);
        errors++;
        return;
    }
    json_t *j = tp_io_result_json(c, &r);
    if (!j)
        fail_msg("%s: a non-finite number in the result (step %g s, memory %g B, MFU %g)", what,
                 r.time.step_s, r.memory.total_bytes, r.time.mfu);
    json_decref(j);
    if (!(r.memory.total_bytes > 0.0) || !(r.time.step_s > 0.0) || !(r.flops.model_per_token > 0.0))
        fail_msg("%s: memory %g B, step %g s, FLOPs/token %g: not positive", what,
                 r.memory.total_bytes, r.time.step_s, r.flops.model_per_token);
    if (!(r.time.mfu >= 0.0 && r.time.mfu <= 1.0))
        fail_msg("%s: MFU %g outside [0, 1]", what, r.time.mfu);
}

/* Every combination at TP = PP = 1 and at a large layout. */
static void test_eval_grid(void **state)
{
    (void)state;
    for (size_t i = 0; i < NUM_SHAPES; i++)
        for (size_t v = 0; v < sizeof vocabs / sizeof vocabs[0]; v++)
            for (size_t s = 0; s < sizeof seq_lens / sizeof seq_lens[0]; s++)
                for (size_t g = 0; g < sizeof gpu_counts / sizeof gpu_counts[0]; g++) {
                    char what[160];
                    tp_config c = make(&shapes[i], vocabs[v], seq_lens[s], gpu_counts[g]);
                    snprintf(what, sizeof what, "%s V=%lld S=%lld G=%lld", shapes[i].name,
                             (long long)vocabs[v], (long long)seq_lens[s],
                             (long long)gpu_counts[g]);
                    check_eval(&c, what);
                    if (gpu_counts[g] >= 1024) {
                        /* TP 8 (4), PP 8, CP 8, ZeRO-3, full recompute. */
                        c.train.tp = shapes[i].a % 8 == 0 ? 8 : 4; /* divides the heads */
                        c.train.sp = true;
                        c.train.pp = shapes[i].L >= 16 ? 8 : 1;
                        c.train.cp = seq_lens[s] >= 8 ? 8 : 1;
                        c.train.zero = 3;
                        c.train.recompute = TP_RECOMPUTE_FULL;
                        c.train.global_batch =
                            gpu_counts[g] / (c.train.tp * c.train.pp * c.train.cp) * 4;
                        c.train.micro_batch = 1;
                        strncat(what, " TP8|4 PP8 CP8 Z3", sizeof what - strlen(what) - 1);
                        check_eval(&c, what);
                    }
                }
    print_message("%d evaluations, %d rejected with a message, the rest finite\n", checked, errors);
    assert_true(checked - errors > checked / 2); /* most of the grid is valid */
}

/* Exact parameter counts at the ends of the range. */
static void test_param_counts(void **state)
{
    (void)state;
    tp_params p;
    tp_model tiny =
        llama(shapes[0].L, shapes[0].h, shapes[0].a, shapes[0].kv, shapes[0].f, 1, false);
    assert_int_equal(tp_model_params(&tiny, 0, &p, NULL), TP_OK);
    assert_true(p.total > 0 && p.total < 1000000);
    tp_model big =
        llama(shapes[5].L, shapes[5].h, shapes[5].a, shapes[5].kv, shapes[5].f, 1048576, false);
    assert_int_equal(tp_model_params(&big, 0, &p, NULL), TP_OK);
    /* 1600 layers x (attention h(2h + 2 kv dh) + MLP 3hf + 2h) + 2Vh + h: 122T. */
    double h = 73728.0, f = 294912.0, dh = 128.0, V = 1048576.0;
    double want =
        1600.0 * (h * (2.0 * h + 2.0 * 8.0 * dh) + 3.0 * h * f + 2.0 * h) + 2.0 * V * h + h;
    assert_rel((double)p.total, want, 1e-9);
    assert_true(p.total > 100000000000000LL);
}

/* The search at 1 and 1,048,576 GPUs: bounded, finite, and something fits. */
static void test_search_extremes(void **state)
{
    (void)state;
    const struct {
        size_t shape;
        int64_t G, S, V;
        bool expect_fit;
    } cases[] = {
        {0, 1, 1, 1, true},
        {0, 1048576, 1, 1, true},
        {2, 1, 4096, 128256, false},
        {2, 1048576, 4096, 128256, true},
        {2, 1048576, 10000000, 1048576, false},
        {3, 1048576, 8192, 128256, true},
        {5, 1048576, 4096, 1048576, false},
        {5, 1, 10000000, 1048576, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tp_config c = make(&shapes[cases[k].shape], cases[k].V, cases[k].S, cases[k].G);
        c.train.global_batch = cases[k].G >= 1024 ? cases[k].G : 16;
        tp_search_item top[3];
        size_t n = 0;
        tp_search_stats stats;
        tp_error err;
        memset(&err, 0, sizeof err);
        memset(&stats, 0, sizeof stats);
        tp_status st = tp_search_top(&c, NULL, TP_RANK_TIME, top, 3, &n, &stats, &err);
        print_message("search %s G=%lld S=%lld V=%lld: %s, %zu found, %llu candidates, %llu "
                      "evaluated\n",
                      shapes[cases[k].shape].name, (long long)cases[k].G, (long long)cases[k].S,
                      (long long)cases[k].V, st == TP_OK ? "ok" : err.message, n,
                      (unsigned long long)stats.candidates, (unsigned long long)stats.evaluated);
        assert_true(stats.candidates <= SEARCH_MAX_CANDIDATES);
        assert_true(stats.evaluated <= stats.candidates);
        if (st != TP_OK) {
            assert_true(err.message[0] != '\0');
            assert_false(cases[k].expect_fit);
            continue;
        }
        if (cases[k].expect_fit)
            assert_true(n > 0);
        for (size_t i = 0; i < n; i++) {
            json_t *j = tp_io_result_json(&top[i].config, &top[i].result);
            assert_non_null(j);
            json_decref(j);
            assert_true(top[i].result.time.step_s > 0.0);
            assert_true(isfinite(top[i].cost_per_token_usd));
            assert_int_equal(top[i].config.train.num_gpus, cases[k].G);
        }
    }
}

/* The capacity plan at the extremes: an error with a message, or finite throughout. */
static void test_plan_extremes(void **state)
{
    (void)state;
    static tp_plan_in in;
    static tp_plan pl;
    const struct {
        size_t shape;
        int64_t G, S, V;
        tp_size_by by;
    } cases[] = {
        {0, 1, 1, 1, TP_SIZE_GPUS},
        {0, 0, 1, 1, TP_SIZE_DEADLINE},
        {2, 1048576, 4096, 128256, TP_SIZE_GPUS},
        {2, 0, 10000000, 1048576, TP_SIZE_DEADLINE},
        {4, 1048576, 8192, 1048576, TP_SIZE_GPUS},
        {5, 0, 4096, 1048576, TP_SIZE_DEADLINE},
        {5, 1048576, 4096, 1048576, TP_SIZE_GPUS},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tp_plan_in_default(&in);
        in.base =
            make(&shapes[cases[k].shape], cases[k].V, cases[k].S, cases[k].G ? cases[k].G : 8);
        in.base.train.global_batch = cases[k].S >= 1000000 ? 1 : 1024;
        in.size_by = cases[k].by;
        in.deadline_h = 24.0 * 90.0;
        tp_error err;
        memset(&err, 0, sizeof err);
        tp_status st = tp_plan_run(&in, &pl, &err);
        print_message("plan %s G=%lld S=%lld V=%lld: %s\n", shapes[cases[k].shape].name,
                      (long long)cases[k].G, (long long)cases[k].S, (long long)cases[k].V,
                      st == TP_OK ? "ok" : err.message);
        if (st != TP_OK) {
            assert_true(err.message[0] != '\0');
            continue;
        }
        json_t *j = tp_io_plan_json(&in, &pl);
        if (!j)
            fail_msg("plan case %zu: a non-finite number in the plan", k);
        json_decref(j);
        assert_true(pl.num_gpus >= 1 && pl.num_gpus <= 1048576 * 64);
        assert_true(pl.tokens > 0.0 && isfinite(pl.tokens));
    }
}

/* Arithmetic that overflows int64 at the extremes: tokens per step, activations. */
static void test_products_do_not_overflow(void **state)
{
    (void)state;
    /* 10M tokens x 1,048,576 sequences = 1.05e13 tokens per step: fine in double. */
    tp_config c = make(&shapes[2], 128256, 10000000, 1048576);
    c.train.tp = 8;
    c.train.sp = true;
    c.train.cp = 128;
    c.train.pp = 8;
    c.train.global_batch = 1048576;
    c.train.recompute = TP_RECOMPUTE_FULL;
    tp_result r;
    tp_error err;
    tp_status st = tp_eval(&c, &r, &err);
    if (st == TP_OK) {
        json_t *j = tp_io_result_json(&c, &r);
        assert_non_null(j);
        json_decref(j);
        /* Activations of one 10M-token sequence over CP 128 x TP 8: positive and finite. */
        assert_true(r.memory.total_bytes > 0.0 && isfinite(r.memory.total_bytes));
        assert_rel(r.flops.tokens_per_step, 1e7 * 1048576.0, 1e-12);
    } else {
        assert_true(err.message[0] != '\0');
    }
}

/*
 * Every size at the library's upper limits at once (include/tp/tp.h
 * TP_MAX_*): products such as global batch x sequence (2^40 x 2^27) or
 * hidden x vocabulary (2^20 x 2^24) overflow int64; they must be an error
 * or finite, never wrapped (UBSan in the sanitizer build catches a signed
 * overflow).
 */
static void test_library_limits(void **state)
{
    (void)state;
    const struct {
        int64_t L, h, a, f, V, S, B, G;
    } cases[] = {
        {100000, 1048576, 8192, 16777216, 16777216, 134217728, 1099511627776LL, 1048576},
        {1, 1048576, 1, 16777216, 16777216, 134217728, 1099511627776LL, 1},
        {100000, 64, 1, 64, 1, 1, 1048576, 1048576},
        {2, 65536, 512, 262144, 16777216, 134217728, 1048576, 1048576},
        {1, 1, 1, 1, 1, 1, 1, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tp_config c;
        memset(&c, 0, sizeof c);
        c.model =
            llama(cases[k].L, cases[k].h, cases[k].a, cases[k].a, cases[k].f, cases[k].V, false);
        c.gpu = h100();
        tp_options_default(&c.opts);
        tp_train_default(&c.train);
        c.train.num_gpus = cases[k].G;
        c.train.seq_len = cases[k].S;
        c.train.global_batch = cases[k].B;
        for (int zero = 0; zero <= 3; zero += 3) {
            c.train.zero = zero;
            char what[64];
            snprintf(what, sizeof what, "limits case %zu ZeRO-%d", k, zero);
            check_eval(&c, what);
        }
        tp_search_item top[2];
        size_t n = 0;
        tp_error err;
        memset(&err, 0, sizeof err);
        tp_search_stats stats;
        memset(&stats, 0, sizeof stats);
        tp_status st = tp_search_top(&c, NULL, TP_RANK_TIME, top, 2, &n, &stats, &err);
        assert_true(stats.candidates <= SEARCH_MAX_CANDIDATES);
        if (st != TP_OK)
            assert_true(err.message[0] != '\0');
        for (size_t i = 0; i < n; i++) {
            json_t *j = tp_io_result_json(&top[i].config, &top[i].result);
            assert_non_null(j);
            json_decref(j);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_param_counts),
        cmocka_unit_test(test_eval_grid),
        cmocka_unit_test(test_search_extremes),
        cmocka_unit_test(test_plan_extremes),
        cmocka_unit_test(test_products_do_not_overflow),
        cmocka_unit_test(test_library_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
