/* SPDX-License-Identifier: MIT */
/*
 * Layout search, largest micro-batch and the ordered recipe (issue 4):
 *  - every enumerated layout validates and evaluates as tp_eval does, and
 *    the states bound never exceeds the evaluated memory (verify mode);
 *  - pruning does not change the feasible set or the best;
 *  - streaming (tp_search_next) and tp_search_top agree; the iterator can
 *    stop early and be freed (run under ASan: no leak);
 *  - the known-good layouts of runs-dev.csv are in the feasible set, and
 *    the best is never predicted slower than any of them;
 *  - fixing an axis never makes the best faster;
 *  - infeasible cases report the binding constraint with a fix;
 *  - S4-6: the largest micro-batch by formula, doubling and bisection agree;
 *  - S3-3 / S4-1..S4-6: the recipe on the Vizz case.
 * No timing here: speed is measured by bench/bench_search.c.
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "io.h"
#include "runs_csv.h"
#include "tp/tp.h"

#define GIB 1073741824.0

static tp_config preset(const char *model, const char *gpu)
{
    tp_config c;
    tp_error e;
    memset(&c, 0, sizeof c);
    if (tp_io_model_load(model, &c.model, &e) != TP_OK)
        fail_msg("model %s: %s", model, e.message);
    if (tp_io_gpu_load(gpu, &c.gpu, &e) != TP_OK)
        fail_msg("gpu %s: %s", gpu, e.message);
    tp_train_default(&c.train);
    tp_options_default(&c.opts);
    return c;
}

/* Seed 004: a 7B Llama-2-style model (32 heads), 64 H100 in 8-GPU nodes,
 * sequences of 131072 tokens, 32 sequences = 4,194,304 tokens per step. */
static tp_config vizz(void)
{
    tp_config c = preset("llama-2-7b", "h100-sxm");
    c.train.num_gpus = 64;
    c.train.seq_len = 131072;
    c.train.global_batch = 32;
    return c;
}

static tp_search_item *items(size_t n)
{
    tp_search_item *it = calloc(n, sizeof *it);
    assert_non_null(it);
    return it;
}

/* Best step time of a search (0 items: +inf). */
static double best_step(const tp_config *c, const tp_search_space *sp, tp_search_item *out)
{
    size_t n = 0;
    tp_search_item *it = items(1);
    tp_error e;
    assert_int_equal(tp_search_top(c, sp, TP_RANK_TIME, it, 1, &n, NULL, &e), TP_OK);
    double s = n ? it->result.time.step_s : (double)INFINITY;
    if (out && n)
        *out = *it;
    free(it);
    return s;
}

/* ---- validity by construction --------------------------------------------- */

static void verify_space_with(tp_config c, tp_search_space sp, bool no_prune)
{
    sp.verify = true;
    sp.no_prune = no_prune;
    sp.include_infeasible = true;
    tp_search *s;
    tp_error e;
    assert_int_equal(tp_search_new(&c, &sp, &s, &e), TP_OK);
    size_t n = 0;
    while (tp_search_next(s, NULL))
        n++;
    tp_search_stats st;
    tp_search_get_stats(s, &st);
    tp_search_free(s);
    assert_true(st.done);
    assert_true(n > 0);
    assert_int_equal(st.verify_failures, 0);
    assert_int_equal(st.evaluated, st.feasible + st.infeasible);
    assert_int_equal(st.candidates, st.evaluated + st.pruned_states + st.pruned_micro_batch);
}

static void verify_space(tp_config c, bool no_prune)
{
    tp_search_space sp;
    tp_search_space_default(&sp);
    verify_space_with(c, sp, no_prune);
}

static void test_every_candidate_validates(void **state)
{
    (void)state;
    /* dense, GQA, uneven PP (32 layers on PP 3, 6, ...), CP, VPP */
    tp_config c = preset("llama-3-8b", "h100-sxm");
    c.train.num_gpus = 48;
    c.train.seq_len = 8192;
    c.train.global_batch = 96;
    verify_space(c, false);
    verify_space(c, true);
    /* MoE: EP carved out of DP */
    c = preset("mixtral-8x7b", "h100-sxm");
    c.train.num_gpus = 64;
    c.train.seq_len = 4096;
    c.train.global_batch = 256;
    verify_space(c, false);
    verify_space(c, true);
    /* GPT with learned positions, tied embeddings, odd layer count */
    c = preset("megatron-gpt-1.7b", "a100-80gb");
    c.train.num_gpus = 32;
    c.train.global_batch = 512;
    verify_space(c, true);
    /* cluster sizes in whole nodes, TP across nodes, 16-GPU nodes */
    c = preset("mcore-gpt-7.1b", "h100-sxm");
    c.train.num_gpus = 48;
    c.train.gpus_per_node = 16;
    c.train.seq_len = 4096;
    c.train.global_batch = 96;
    tp_search_space sp;
    tp_search_space_default(&sp);
    sp.gpus.min = 16;
    sp.gpus.max = 48;
    sp.tp_across_nodes = true;
    verify_space_with(c, sp, false);
    verify_space_with(c, sp, true);
}

/* ---- pruning, streaming, early stop ------------------------------------------ */

static void test_prune_keeps_feasible_set(void **state)
{
    (void)state;
    tp_config c = preset("llama-3-70b", "h100-sxm");
    c.train.num_gpus = 64;
    c.train.seq_len = 8192;
    c.train.global_batch = 128;
    tp_search_space a, b;
    tp_search_space_default(&a);
    b = a;
    b.no_prune = true;
    tp_search_stats sa, sb;
    size_t na, nb;
    tp_search_item *ta = items(10), *tb = items(10);
    assert_int_equal(tp_search_top(&c, &a, TP_RANK_TIME, ta, 10, &na, &sa, NULL), TP_OK);
    assert_int_equal(tp_search_top(&c, &b, TP_RANK_TIME, tb, 10, &nb, &sb, NULL), TP_OK);
    assert_true(sa.pruned_states + sa.pruned_micro_batch > 0); /* it does prune here */
    assert_int_equal(sb.pruned_states + sb.pruned_micro_batch, 0);
    assert_int_equal(sa.feasible, sb.feasible);
    assert_int_equal(sa.candidates, sb.candidates);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) {
        assert_memory_equal(&ta[i].config.train, &tb[i].config.train, sizeof ta[i].config.train);
        assert_rel(ta[i].result.time.step_s, tb[i].result.time.step_s, 1e-12);
    }
    free(ta);
    free(tb);
}

/*
 * The step-time bound (pruning 3) ranks without the step time only the
 * layouts that cannot enter the top list: with every axis open (MoE
 * folding, recompute and offload variants) the top 20 by each key, their
 * figures and the feasible count are those of the unpruned search, and the
 * bound did skip some; verify mode checks it against every step time.
 */
static void test_time_bound_keeps_top(void **state)
{
    (void)state;
    tp_config c = preset("mixtral-8x7b", "h100-sxm");
    c.train.num_gpus = 64;
    c.train.seq_len = 4096;
    c.train.global_batch = 256;
    tp_search_space a, b;
    tp_search_space_default(&a);
    a.moe_folding = a.recompute_variants = a.offload_variants = true;
    b = a;
    b.no_prune = true;
    enum { K = 20 };
    for (int by = TP_RANK_TIME; by <= TP_RANK_HEADROOM; by++) {
        tp_search_stats sa, sb;
        size_t na, nb;
        tp_search_item *ta = items(K), *tb = items(K);
        assert_int_equal(tp_search_top(&c, &a, (tp_rank_by)by, ta, K, &na, &sa, NULL), TP_OK);
        assert_int_equal(tp_search_top(&c, &b, (tp_rank_by)by, tb, K, &nb, &sb, NULL), TP_OK);
        assert_true(sa.pruned_time > 0);
        assert_int_equal(sb.pruned_time, 0);
        assert_int_equal(sa.feasible, sb.feasible);
        assert_int_equal(na, K);
        assert_int_equal(nb, K);
        for (size_t i = 0; i < na; i++) {
            assert_memory_equal(&ta[i].config.train, &tb[i].config.train,
                                sizeof ta[i].config.train);
            assert_int_equal(ta[i].index, tb[i].index);
            /* the same figures to the bit */
            assert_memory_equal(&ta[i].result.time, &tb[i].result.time, sizeof ta[i].result.time);
            assert_memory_equal(&ta[i].cost_per_token_usd, &tb[i].cost_per_token_usd,
                                sizeof(double));
        }
        free(ta);
        free(tb);
    }
    a.verify = true;
    a.include_infeasible = true;
    tp_search *s;
    assert_int_equal(tp_search_new(&c, &a, &s, NULL), TP_OK);
    while (tp_search_next(s, NULL))
        ;
    tp_search_stats st;
    tp_search_get_stats(s, &st);
    tp_search_free(s);
    assert_int_equal(st.verify_failures, 0);
}

static void test_stream_matches_top(void **state)
{
    (void)state;
    tp_config c = preset("llama-3-8b", "h100-sxm");
    c.train.num_gpus = 16;
    c.train.seq_len = 4096;
    c.train.global_batch = 64;
    enum { K = 7 };
    tp_search_stats st0;
    size_t n0;
    assert_int_equal(tp_search_top(&c, NULL, TP_RANK_TIME, NULL, 0, &n0, &st0, NULL), TP_OK);
    assert_int_equal(n0, 0);
    size_t cap = (size_t)st0.feasible;
    assert_true(cap > K);
    for (int by = TP_RANK_TIME; by <= TP_RANK_HEADROOM; by++) {
        tp_search_item *top = items(K), *all = items(cap), *cur = items(1);
        size_t n = 0, m = 0;
        assert_int_equal(tp_search_top(&c, NULL, (tp_rank_by)by, top, K, &n, NULL, NULL), TP_OK);
        tp_search *s;
        assert_int_equal(tp_search_new(&c, NULL, &s, NULL), TP_OK);
        while (tp_search_next(s, cur)) {
            assert_true(cur->result.memory.fits);
            assert_true(m < cap);
            all[m++] = *cur;
        }
        tp_search_free(s);
        assert_int_equal(n, K);
        /* top[0..K) are the K smallest of the stream under the order */
        for (size_t i = 0; i + 1 < n; i++)
            assert_true(tp_search_order(&top[i], &top[i + 1], (tp_rank_by)by) < 0);
        size_t better = 0;
        for (size_t j = 0; j < m; j++)
            if (tp_search_order(&all[j], &top[K - 1], (tp_rank_by)by) <= 0)
                better++;
        assert_int_equal(better, K);
        free(top);
        free(all);
        free(cur);
    }
}

static void test_early_stop(void **state)
{
    (void)state;
    tp_config c = vizz();
    tp_search *s;
    tp_search_item *it = items(1);
    assert_int_equal(tp_search_new(&c, NULL, &s, NULL), TP_OK);
    assert_true(tp_search_next(s, it));
    assert_true(tp_search_next(s, it));
    tp_search_stats st;
    tp_search_get_stats(s, &st);
    assert_false(st.done);
    assert_int_equal(st.feasible, 2);
    tp_search_free(s); /* mid-enumeration: ASan checks nothing leaks */
    tp_search_free(NULL);
    free(it);
}

/* A should_stop callback that says stop on its n-th call, counting calls. */
typedef struct stop_after {
    int calls, stop_at;
} stop_after;

static bool stop_after_n(void *ctx)
{
    stop_after *a = ctx;
    return ++a->calls >= a->stop_at;
}

/* tp_search_stop: the callback ends the search with TP_ERR_STOPPED, never a short ranking. */
static void test_stop(void **state)
{
    (void)state;
    tp_config c = vizz();
    tp_search_space sp;
    tp_search_space_default(&sp);
    stop_after a = {0, 1};
    sp.stop.should_stop = stop_after_n;
    sp.stop.ctx = &a;
    tp_search_item *top = items(3);
    size_t n = 99;
    tp_search_stats st;
    tp_error err = {0};
    /* asked when the search starts: stopped before the first candidate */
    assert_int_equal(tp_search_top(&c, &sp, TP_RANK_TIME, top, 3, &n, &st, &err), TP_ERR_STOPPED);
    assert_int_equal(n, 0);
    assert_true(st.stopped);
    assert_false(st.done);
    assert_int_equal(st.candidates, 0);
    assert_string_equal(tp_strerror(err.code), "stopped");
    assert_non_null(strstr(err.message, "64 GPUs, 32 layers, batch 32"));
    /* asked again every TP_SEARCH_POLL_STEPS steps: the second call stops it */
    a.calls = 0;
    a.stop_at = 2;
    assert_int_equal(tp_search_top(&c, &sp, TP_RANK_TIME, top, 3, &n, &st, &err), TP_ERR_STOPPED);
    assert_int_equal(a.calls, 2);
    assert_true(st.candidates > 0 && st.candidates < 13728); /* the whole space is 13,728 */
    /* a callback that never stops changes nothing */
    a.calls = 0;
    a.stop_at = 1 << 30;
    tp_search_stats full;
    assert_int_equal(tp_search_top(&c, &sp, TP_RANK_TIME, top, 3, &n, &full, NULL), TP_OK);
    assert_int_equal(full.candidates, 13728);
    assert_false(full.stopped);
    /* the work bound: stopped once that many layouts were evaluated (checked at the polls) */
    tp_search_space_default(&sp);
    sp.stop.max_evaluated = 100;
    assert_int_equal(tp_search_top(&c, &sp, TP_RANK_TIME, top, 3, &n, &st, &err), TP_ERR_STOPPED);
    assert_true(st.evaluated >= 100 && st.evaluated < full.evaluated);
    assert_non_null(strstr(err.message, "at its bound of 100 evaluations"));
    free(top);
}

/* More cluster sizes or micro-batches than the enumeration lists: an error, not a cut. */
static void test_no_silent_cut(void **state)
{
    (void)state;
    tp_config c = preset("llama-3-8b", "h100-sxm");
    c.train.num_gpus = 65536;
    c.train.global_batch = 65536;
    tp_search_space sp;
    tp_search_space_default(&sp);
    sp.gpus.min = 8;
    sp.gpus.max = 65536;
    tp_error err = {0};
    tp_search *s = NULL;
    assert_int_equal(tp_search_new(&c, &sp, &s, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "min-gpus");
    assert_non_null(strstr(err.message, "8192 cluster sizes; at most 1024"));
    sp.gpus.min = 65536 - 8 * 1023; /* exactly 1024 sizes: searched */
    assert_int_equal(tp_search_new(&c, &sp, &s, &err), TP_OK);
    tp_search_free(s);
    /* 963,761,198,400 sequences on one GPU: 6,720 divisors to try as micro-batches */
    c.train.num_gpus = 1;
    c.train.global_batch = 963761198400;
    c.train.seq_len = 2;
    c.model.num_layers = 2;
    tp_search_item *top = items(1);
    size_t n = 9;
    assert_int_equal(tp_search_top(&c, NULL, TP_RANK_TIME, top, 1, &n, NULL, &err), TP_ERR_RANGE);
    assert_int_equal(n, 0);
    assert_string_equal(err.path, "micro-batch");
    free(top);
}

static void test_bad_space(void **state)
{
    (void)state;
    tp_config c = vizz();
    tp_search_space sp;
    tp_search *s = (tp_search *)&c; /* must be reset to NULL on error */
    tp_error e;
    tp_search_space_default(&sp);
    sp.tp.min = 8;
    sp.tp.max = 4;
    assert_int_equal(tp_search_new(&c, &sp, &s, &e), TP_ERR_INVALID_ARG);
    assert_null(s);
    assert_string_equal(e.path, "tp");
    tp_search_space_default(&sp);
    sp.ep.min = 2;
    assert_int_equal(tp_search_new(&c, &sp, &s, &e), TP_ERR_INVALID_ARG);
    assert_string_equal(e.path, "layout.ep");
    tp_search_space_default(&sp);
    c.train.seq_len = 0;
    assert_int_equal(tp_search_new(&c, &sp, &s, &e), TP_ERR_INVALID_ARG);
    assert_string_equal(e.path, "train.seq_len");
    /* issue 14: more cluster sizes than are searched is an error, not the first 1,024 */
    c = vizz();
    c.train.num_gpus = 16384;
    c.train.gpus_per_node = 8;
    tp_search_space_default(&sp);
    sp.gpus.min = 8;
    sp.gpus.max = 16384;
    assert_int_equal(tp_search_new(&c, &sp, &s, &e), TP_ERR_INVALID_ARG);
    assert_null(s);
    assert_string_equal(e.path, "min-gpus");
    assert_string_equal(e.message, "8 to 16384 GPUs in whole nodes of 8 is 2048 cluster sizes; at "
                                   "most 1024 are searched (a minimum of at least 8200)");
    sp.gpus.min = 8200; /* exactly 1,024 sizes */
    assert_int_equal(tp_search_new(&c, &sp, &s, &e), TP_OK);
    tp_search_free(s);
    s = NULL;
}

/* ---- axes ------------------------------------------------------------------ */

static bool seen_layout(const tp_config *c, const tp_search_space *sp, int64_t tp, int64_t pp,
                        int64_t first_layers)
{
    tp_search *s;
    tp_search_item *it = items(1);
    bool found = false;
    assert_int_equal(tp_search_new(c, sp, &s, NULL), TP_OK);
    while (!found && tp_search_next(s, it))
        if (it->config.train.tp == tp && it->config.train.pp == pp &&
            (first_layers == 0 || it->result.stage_first.layers == first_layers))
            found = true;
    tp_search_free(s);
    free(it);
    return found;
}

static void test_axes(void **state)
{
    (void)state;
    /* Uneven PP: 30 layers on 4 stages -> 7, 8, 8, 7 (end stages fewer). */
    tp_config c = preset("mcore-gpt-7.1b", "h100-sxm");
    c.train.num_gpus = 32;
    c.train.seq_len = 4096;
    c.train.global_batch = 64;
    tp_search_space sp;
    tp_search_space_default(&sp);
    sp.include_infeasible = true;
    assert_int_equal(c.model.num_layers, 30);
    assert_true(seen_layout(&c, &sp, 1, 4, 7));
    sp.even_pp_only = true;
    assert_false(seen_layout(&c, &sp, 1, 4, 0));
    /* TP across nodes only on request (32 heads, MHA: TP 16 divides). */
    tp_search_space_default(&sp);
    sp.include_infeasible = true;
    assert_false(seen_layout(&c, &sp, 16, 1, 0));
    sp.tp_across_nodes = true;
    assert_true(seen_layout(&c, &sp, 16, 1, 0));
    /* Fixed axes are honoured. */
    tp_search_space_default(&sp);
    sp.tp.min = sp.tp.max = 2;
    sp.zero_mask = TP_SEARCH_BIT(1);
    sp.recompute_mask = TP_SEARCH_BIT(TP_RECOMPUTE_FULL);
    sp.sp_mask = TP_SEARCH_SP_ON;
    tp_search *s;
    tp_search_item *it = items(1);
    assert_int_equal(tp_search_new(&c, &sp, &s, NULL), TP_OK);
    int n = 0;
    while (tp_search_next(s, it)) {
        assert_int_equal(it->config.train.tp, 2);
        assert_int_equal(it->config.train.zero, 1);
        assert_int_equal(it->config.train.recompute, TP_RECOMPUTE_FULL);
        assert_true(it->config.train.sp);
        n++;
    }
    assert_true(n > 0);
    tp_search_free(s);
    /* MoE: EP appears and divides both experts and DP. */
    c = preset("mixtral-8x7b", "h100-sxm");
    c.train.num_gpus = 64;
    c.train.seq_len = 4096;
    c.train.global_batch = 256;
    assert_int_equal(tp_search_new(&c, NULL, &s, NULL), TP_OK);
    bool ep8 = false;
    /* ... and no layout twice (EP 1 was once listed again after the divisors) */
    enum { MAX_SEEN = 1 << 16, KEY = 10 };
    int64_t(*seen)[KEY] = calloc(MAX_SEEN, sizeof *seen);
    assert_non_null(seen);
    size_t nseen = 0;
    while (tp_search_next(s, it)) {
        const tp_train *t = &it->config.train;
        assert_int_equal(c.model.num_experts % t->ep, 0);
        assert_int_equal(it->result.dp % t->ep, 0);
        ep8 = ep8 || t->ep == 8;
        const int64_t key[KEY] = {t->num_gpus, t->tp,  t->pp, t->cp,        t->ep,
                                  t->zero,     t->vpp, t->sp, t->recompute, t->micro_batch};
        for (size_t i = 0; i < nseen; i++)
            assert_false(memcmp(seen[i], key, sizeof key) == 0);
        assert_true(nseen < MAX_SEEN);
        memcpy(seen[nseen++], key, sizeof key);
    }
    assert_true(ep8 && nseen > 0);
    free(seen);
    tp_search_free(s);
    free(it);
}

/*
 * MoE parallel folding in the search: every candidate validates (verify
 * mode), ETP x EP x PP divides the GPUs, EP wider than DP and ETP apart
 * from TP both appear, no layout twice; the folded space contains the
 * unfolded one, so its best is never slower; without folding nothing
 * changes (ETP left 0).
 */
static void test_moe_folding_search(void **state)
{
    (void)state;
    tp_config c = preset("mixtral-8x7b", "h100-sxm");
    c.train.num_gpus = 32;
    c.train.seq_len = 4096;
    c.train.global_batch = 64;
    tp_search_space sp;
    tp_search_space_default(&sp);
    sp.moe_folding = true;
    verify_space_with(c, sp, false);
    verify_space_with(c, sp, true);

    tp_search *s;
    tp_search_item *it = items(1);
    assert_int_equal(tp_search_new(&c, &sp, &s, NULL), TP_OK);
    bool wide_ep = false, apart = false;
    enum { MAX_SEEN = 1 << 17, KEY = 11 };
    int64_t(*seen)[KEY] = calloc(MAX_SEEN, sizeof *seen);
    assert_non_null(seen);
    size_t nseen = 0;
    while (tp_search_next(s, it)) {
        const tp_train *t = &it->config.train;
        int64_t etp = tp_expert_tp(t);
        assert_int_equal(t->num_gpus % (etp * t->ep * t->pp), 0);
        assert_int_equal(c.model.num_experts % t->ep, 0);
        assert_true(t->etp != t->tp); /* equal is stored as 0 */
        wide_ep = wide_ep || it->result.dp % t->ep != 0;
        apart = apart || etp != t->tp;
        const int64_t key[KEY] = {t->num_gpus, t->tp,  t->pp, t->cp,        t->ep,         t->etp,
                                  t->zero,     t->vpp, t->sp, t->recompute, t->micro_batch};
        for (size_t i = 0; i < nseen; i++)
            assert_false(memcmp(seen[i], key, sizeof key) == 0);
        assert_true(nseen < MAX_SEEN);
        memcpy(seen[nseen++], key, sizeof key);
    }
    assert_true(wide_ep && apart);
    free(seen);
    tp_search_free(s);

    tp_search_space plain;
    tp_search_space_default(&plain);
    double folded = best_step(&c, &sp, it), unfolded = best_step(&c, &plain, NULL);
    assert_true(folded <= unfolded);
    /* an etp bound turns folding on; on a dense model it is refused */
    plain.etp.min = plain.etp.max = 1;
    assert_int_equal(tp_search_new(&c, &plain, &s, NULL), TP_OK);
    while (tp_search_next(s, it))
        assert_int_equal(tp_expert_tp(&it->config.train), 1);
    tp_search_free(s);
    tp_config d = preset("llama-3-8b", "h100-sxm");
    tp_error e;
    assert_int_equal(tp_search_new(&d, &plain, &s, &e), TP_ERR_INVALID_ARG);
    assert_string_equal(e.path, "layout.etp");
    free(it);
}

/*
 * Recompute variants: on a MoE model the search also tries selective
 * recompute with MoE-layer recompute (modules core_attn + moe); every
 * candidate validates, the variant appears, and the space with it contains
 * the one without (the best is never slower). A dense model gets no MoE
 * variant, only per-op SAC: one selective candidate more per layout.
 */
static void test_recompute_variants(void **state)
{
    (void)state;
    tp_config c = preset("mixtral-8x7b", "h100-sxm");
    c.train.num_gpus = 16;
    c.train.seq_len = 4096;
    c.train.global_batch = 32;
    tp_search_space sp;
    tp_search_space_default(&sp);
    sp.recompute_variants = true;
    verify_space_with(c, sp, false);
    tp_search *s;
    tp_search_item *it = items(1);
    assert_int_equal(tp_search_new(&c, &sp, &s, NULL), TP_OK);
    bool variant = false;
    while (tp_search_next(s, it)) {
        const tp_train *t = &it->config.train;
        if (t->recompute_modules && !it->config.opts.sac_ops) {
            assert_int_equal(t->recompute, TP_RECOMPUTE_SELECTIVE);
            assert_int_equal(t->recompute_modules, TP_RC_CORE_ATTN | TP_RC_MOE);
            variant = true;
        }
    }
    tp_search_free(s);
    assert_true(variant);
    tp_search_space plain;
    tp_search_space_default(&plain);
    assert_true(best_step(&c, &sp, NULL) <= best_step(&c, &plain, NULL));
    tp_search_stats a, b;
    size_t n;
    tp_config d = preset("llama-3-8b", "h100-sxm");
    d.train.num_gpus = 8;
    d.train.global_batch = 16;
    assert_int_equal(tp_search_top(&d, &sp, TP_RANK_TIME, NULL, 0, &n, &a, NULL), TP_OK);
    assert_int_equal(tp_search_top(&d, &plain, TP_RANK_TIME, NULL, 0, &n, &b, NULL), TP_OK);
    assert_true(a.candidates > b.candidates);
    tp_search_space moe_only = sp;
    d.opts.sac_ops = true; /* a base with SAC: no variant left for a dense model */
    assert_int_equal(tp_search_top(&d, &moe_only, TP_RANK_TIME, NULL, 0, &n, &a, NULL), TP_OK);
    assert_int_equal(tp_search_top(&d, &plain, TP_RANK_TIME, NULL, 0, &n, &b, NULL), TP_OK);
    assert_int_equal(a.candidates, b.candidates);
    free(it);
}

/*
 * Offload variants: Llama 3 70B on one 8-GPU node needs the optimizer
 * state somewhere; with offload variants the search finds layouts that fit
 * only because the state is on the host (ZeRO-Offload), every candidate
 * validates, and the space contains the plain one (best never slower).
 */
static void test_offload_variants(void **state)
{
    (void)state;
    tp_config c = preset("llama-3-70b", "h100-sxm");
    c.train.num_gpus = 8;
    c.train.seq_len = 4096;
    c.train.global_batch = 16;
    tp_search_space sp;
    tp_search_space_default(&sp);
    sp.offload_variants = true;
    sp.zero_mask = TP_SEARCH_BIT(0) | TP_SEARCH_BIT(1);
    verify_space_with(c, sp, false);
    tp_search *s;
    tp_search_item *it = items(1);
    assert_int_equal(tp_search_new(&c, &sp, &s, NULL), TP_OK);
    int offloaded = 0;
    while (tp_search_next(s, it)) {
        if (it->config.train.offload_optimizer > 0.0) {
            assert_int_equal(it->config.train.zero, 1);
            assert_true(it->result.memory.host_bytes > 0.0);
            offloaded++;
        }
    }
    tp_search_free(s);
    assert_true(offloaded > 0);
    tp_search_space plain = sp;
    plain.offload_variants = false;
    assert_true(best_step(&c, &sp, NULL) <= best_step(&c, &plain, NULL));
    free(it);
}

/* Offload variants at ZeRO 3 include FSDP2's CPU offload: weights and
 * optimizer on the host (verified against tp_eval, the bound kept); a base
 * with activation offload keeps it exactly where Megatron-Core allows it
 * (pp 1, no recompute) and drops it elsewhere. */
static void test_offload_params_search(void **state)
{
    (void)state;
    tp_config c = preset("llama-3-70b", "h100-sxm");
    c.train.num_gpus = 8;
    c.train.seq_len = 4096;
    c.train.global_batch = 16;
    tp_search_space sp;
    tp_search_space_default(&sp);
    sp.offload_variants = true;
    sp.zero_mask = TP_SEARCH_BIT(3);
    verify_space_with(c, sp, false);
    verify_space_with(c, sp, true);
    tp_search *s;
    tp_search_item *it = items(1);
    assert_int_equal(tp_search_new(&c, &sp, &s, NULL), TP_OK);
    int weights_off = 0;
    while (tp_search_next(s, it)) {
        if (it->config.train.offload_params == TP_OFFLOAD_CPU) {
            assert_int_equal(it->config.train.zero, 3);
            assert_true(it->config.train.offload_optimizer >= 1.0);
            assert_true(it->result.memory.weights_bytes <= 0.0);
            weights_off++;
        }
    }
    tp_search_free(s);
    assert_true(weights_off > 0);

    tp_search_space act;
    tp_search_space_default(&act);
    c = preset("llama-3-8b", "h100-sxm");
    c.train.num_gpus = 8;
    c.train.seq_len = 4096;
    c.train.global_batch = 16;
    c.train.offload_act_layers = 16;
    verify_space_with(c, act, false);
    assert_int_equal(tp_search_new(&c, &act, &s, NULL), TP_OK);
    int with = 0;
    while (tp_search_next(s, it)) {
        const tp_train *t = &it->config.train;
        bool allowed = t->pp == 1 && t->recompute == TP_RECOMPUTE_NONE;
        assert_int_equal(t->offload_act_layers, allowed ? 16 : 0);
        with += allowed;
    }
    tp_search_free(s);
    assert_true(with > 0);

    /* --offload-variants tries no recompute with all but one layer's
     * activations on the host, at PP 1 only */
    c.train.offload_act_layers = 0;
    act.offload_variants = true;
    verify_space_with(c, act, false);
    assert_int_equal(tp_search_new(&c, &act, &s, NULL), TP_OK);
    int act_off = 0;
    while (tp_search_next(s, it)) {
        const tp_train *t = &it->config.train;
        if (t->offload_act_layers > 0) {
            assert_int_equal(t->offload_act_layers, 31);
            assert_int_equal(t->pp, 1);
            assert_int_equal(t->recompute, TP_RECOMPUTE_NONE);
            act_off++;
        }
    }
    tp_search_free(s);
    assert_true(act_off > 0);
    free(it);
}

/* --recompute-variants tries torchtitan's per-op SAC on any model: the
 * candidates with it are selective, verified against tp_eval, and a base
 * that sets SAC itself gets no second copy of it. */
static void test_sac_variant(void **state)
{
    (void)state;
    tp_config c = preset("llama-3-8b", "h100-sxm");
    c.train.num_gpus = 8;
    c.train.seq_len = 8192;
    c.train.global_batch = 16;
    tp_search_space sp;
    tp_search_space_default(&sp);
    sp.recompute_variants = true;
    verify_space_with(c, sp, false);
    tp_search *s;
    tp_search_item *it = items(1);
    assert_int_equal(tp_search_new(&c, &sp, &s, NULL), TP_OK);
    int sac = 0, plain_selective = 0;
    while (tp_search_next(s, it)) {
        if (it->config.opts.sac_ops) {
            assert_int_equal(it->config.train.recompute, TP_RECOMPUTE_SELECTIVE);
            assert_int_equal(it->config.train.recompute_modules, 0);
            sac++;
        } else if (it->config.train.recompute == TP_RECOMPUTE_SELECTIVE) {
            plain_selective++;
        }
    }
    tp_search_free(s);
    assert_true(sac > 0 && plain_selective > 0);
    tp_search_space plain = sp;
    plain.recompute_variants = false;
    assert_true(best_step(&c, &sp, NULL) <= best_step(&c, &plain, NULL));
    free(it);
}

/* ---- runs-dev.csv ------------------------------------------------------------ */

typedef struct known_row {
    const char *id, *model, *gpu;
    tp_precision prec;
    int zero;      /* -1: not stated, any */
    int recompute; /* -1: not stated, any */
} known_row;

/* Rows with a full layout (torchtitan, NeMo, Megatron). The layout numbers
 * (GPUs, TP, PP, DP, CP, micro-batch, global batch, sequence, interleave)
 * are read from the CSV; the table names the preset for the model and GPU. */
static const known_row known[] = {
    {"titan-8b-128gpu-fsdp", "llama-3.1-8b", "h100-sxm", TP_PREC_BF16, 3, TP_RECOMPUTE_SELECTIVE},
    {"titan-70b-256gpu-2d", "llama-3.1-70b", "h100-sxm", TP_PREC_FP8, 3, TP_RECOMPUTE_FULL},
    {"nemo2407-LLAMA2-7B-8gpu", "llama-2-7b", "h100-sxm", TP_PREC_FP8, -1, -1},
    {"nemo2407-LLAMA2-13B-16gpu", "llama-2-13b", "h100-sxm", TP_PREC_FP8, -1, -1},
    {"nemo2407-LLAMA2-70B-64gpu", "llama-2-70b", "h100-sxm", TP_PREC_FP8, -1, -1},
    {"nemo2407-LLAMA3-8B-8gpu", "llama-3-8b", "h100-sxm", TP_PREC_FP8, -1, -1},
    {"megatron21-t1-76B", "megatron-gpt-76b", "a100-80gb", TP_PREC_FP16, 0, TP_RECOMPUTE_FULL},
    {"megatron21-t1-530B", "megatron-gpt-530b", "a100-80gb", TP_PREC_FP16, 0, TP_RECOMPUTE_FULL},
};

static int64_t cell_i64(const tp_io_csv *csv, size_t row, const char *col, int64_t def)
{
    const char *s = tp_io_csv_cell(csv, row, tp_io_csv_col(csv, col));
    return s[0] ? strtoll(s, NULL, 10) : def;
}

static void test_known_layouts(void **state)
{
    (void)state;
    tp_io_csv *csv;
    tp_error e;
    const char *path = TP_SOURCE_DIR "/data/runs/runs-dev.csv";
    if (tp_io_csv_read(path, &csv, &e) != TP_OK)
        fail_msg("%s: %s", path, e.message);
    int id_col = tp_io_csv_col(csv, "id");
    tp_search_item *it = items(1), *best = items(1);
    int checked = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        const known_row *kr = &known[k];
        size_t row = csv->num_rows;
        for (size_t r = 0; r < csv->num_rows; r++)
            if (strcmp(tp_io_csv_cell(csv, r, id_col), kr->id) == 0)
                row = r;
        if (row == csv->num_rows)
            fail_msg("row %s not in runs-dev.csv", kr->id);
        tp_config c = preset(kr->model, kr->gpu);
        c.train.precision = kr->prec;
        c.train.num_gpus = cell_i64(csv, row, "num_gpus", 0);
        c.train.gpus_per_node = cell_i64(csv, row, "gpus_per_node", 8);
        c.train.seq_len = cell_i64(csv, row, "seq_len", 0);
        c.train.global_batch = cell_i64(csv, row, "global_batch", 0);
        int64_t tp = cell_i64(csv, row, "tp", 1), pp = cell_i64(csv, row, "pp", 1);
        int64_t cp = cell_i64(csv, row, "cp", 1), dp = cell_i64(csv, row, "dp", 1);
        int64_t mb = cell_i64(csv, row, "micro_batch", 1);
        int64_t v = cell_i64(csv, row, "interleave_v", 1);
        assert_int_equal(tp * pp * cp * dp, c.train.num_gpus);

        /* Does some variant of the row's layout fit (ZeRO, recompute, SP where the
         * row does not state them)? tp_eval decides; the memory model's accuracy on
         * these rows is issue 3's concern, the search must find every one that fits. */
        bool row_fits = false;
        for (int z = 0; z <= 3; z++) {
            for (int rc = 0; rc <= 2; rc++) {
                for (int spo = 0; spo <= 1; spo++) {
                    if ((kr->zero >= 0 && z != kr->zero) ||
                        (kr->recompute >= 0 && rc != kr->recompute) || (spo && tp == 1))
                        continue;
                    tp_config v1 = c;
                    v1.train.tp = tp;
                    v1.train.pp = pp;
                    v1.train.cp = cp;
                    v1.train.vpp = v;
                    v1.train.schedule = v > 1 ? TP_SCHED_INTERLEAVED : TP_SCHED_1F1B;
                    v1.train.micro_batch = mb;
                    v1.train.zero = z;
                    v1.train.recompute = (tp_recompute)rc;
                    v1.train.sp = spo != 0;
                    tp_result r1;
                    assert_int_equal(tp_eval(&v1, &r1, NULL), TP_OK);
                    row_fits = row_fits || r1.memory.fits;
                }
            }
        }
        /* The open search streams this layout among those that fit. */
        tp_search *s;
        assert_int_equal(tp_search_new(&c, NULL, &s, &e), TP_OK);
        bool found = false;
        tp_search_item row_item;
        memset(&row_item, 0, sizeof row_item);
        while (tp_search_next(s, it)) {
            const tp_train *t = &it->config.train;
            if (t->tp == tp && t->pp == pp && t->cp == cp && it->result.dp == dp &&
                t->micro_batch == mb && t->vpp == v && (kr->zero < 0 || t->zero == kr->zero) &&
                (kr->recompute < 0 || (int)t->recompute == kr->recompute)) {
                if (!found || it->result.time.step_s < row_item.result.time.step_s)
                    row_item = *it;
                found = true;
            }
        }
        tp_search_free(s);
        if (found != row_fits)
            fail_msg("%s: TP %lld PP %lld CP %lld DP %lld mb %lld VPP %lld: tp_eval says %s, "
                     "the search %s it",
                     kr->id, (long long)tp, (long long)pp, (long long)cp, (long long)dp,
                     (long long)mb, (long long)v, row_fits ? "fits" : "does not fit",
                     found ? "streams" : "does not stream");
        if (!found) {
            print_message("note: %s: the memory model predicts the row's layout does not fit\n",
                          kr->id);
            continue;
        }
        checked++;
        /* The best is never predicted slower than the dataset's layout. */
        double b = best_step(&c, NULL, best);
        assert_true(row_item.result.time.computed);
        assert_le_rel(b, row_item.result.time.step_s);
    }
    assert_true(checked >= 5);
    free(it);
    free(best);
    tp_io_csv_free(csv);
}

/* ---- fixing an axis never makes the best faster --------------------------------- */

static void test_fixing_never_faster(void **state)
{
    (void)state;
    tp_config cs[2] = {preset("llama-3-70b", "h100-sxm"), vizz()};
    cs[0].train.num_gpus = 64;
    cs[0].train.seq_len = 8192;
    cs[0].train.global_batch = 128;
    for (size_t k = 0; k < 2; k++) {
        tp_config c = cs[k];
        tp_search_item *b = items(1);
        double open = best_step(&c, NULL, b);
        assert_true(isfinite(open));
        tp_search_space sp;
        int64_t vals[] = {1, 2, 4, 8};
        for (size_t i = 0; i < 4; i++) {
            tp_search_space_default(&sp);
            sp.tp.min = sp.tp.max = vals[i];
            assert_true(best_step(&c, &sp, NULL) >= open);
            tp_search_space_default(&sp);
            sp.pp.min = sp.pp.max = vals[i];
            assert_true(best_step(&c, &sp, NULL) >= open);
            tp_search_space_default(&sp);
            sp.cp.min = sp.cp.max = vals[i];
            assert_true(best_step(&c, &sp, NULL) >= open);
            tp_search_space_default(&sp);
            sp.zero_mask = TP_SEARCH_BIT(i);
            assert_true(best_step(&c, &sp, NULL) >= open);
        }
        for (int r = 0; r <= 2; r++) {
            tp_search_space_default(&sp);
            sp.recompute_mask = TP_SEARCH_BIT(r);
            assert_true(best_step(&c, &sp, NULL) >= open);
        }
        tp_search_space_default(&sp);
        sp.even_pp_only = true;
        assert_true(best_step(&c, &sp, NULL) >= open);
        /* Fixing every axis to the best's values gives the best back. */
        tp_search_space_default(&sp);
        const tp_train *t = &b->config.train;
        sp.tp.min = sp.tp.max = t->tp;
        sp.pp.min = sp.pp.max = t->pp;
        sp.cp.min = sp.cp.max = t->cp;
        sp.vpp.min = sp.vpp.max = t->vpp;
        sp.micro_batch.min = sp.micro_batch.max = t->micro_batch;
        sp.zero_mask = TP_SEARCH_BIT(t->zero);
        sp.recompute_mask = TP_SEARCH_BIT(t->recompute);
        assert_rel(best_step(&c, &sp, NULL), open, 1e-12);
        free(b);
    }
}

/* ---- infeasible: the binding constraint ----------------------------------------- */

static void test_binding(void **state)
{
    (void)state;
    /* 405B on one node: nothing fits; the closest say what binds. */
    tp_config c = preset("llama-3.1-405b", "h100-sxm");
    c.train.num_gpus = 8;
    c.train.seq_len = 8192;
    c.train.global_batch = 16;
    tp_search_space sp;
    tp_search_space_default(&sp);
    tp_search_stats st;
    size_t n = 1;
    tp_search_item *it = items(TP_SEARCH_CLOSEST);
    assert_int_equal(tp_search_top(&c, &sp, TP_RANK_TIME, it, 1, &n, &st, NULL), TP_OK);
    assert_int_equal(n, 0);
    assert_int_equal(st.feasible, 0);
    assert_true(st.pruned_states > 0);
    sp.no_prune = true;
    tp_search *s;
    assert_int_equal(tp_search_new(&c, &sp, &s, NULL), TP_OK);
    while (tp_search_next(s, NULL))
        ;
    size_t k = tp_search_closest(s, it, TP_SEARCH_CLOSEST);
    tp_search_free(s);
    assert_true(k > 0);
    for (size_t i = 1; i < k; i++)
        assert_true(it[i - 1].result.memory.total_bytes / it[i - 1].result.memory.capacity_bytes <=
                    it[i].result.memory.total_bytes / it[i].result.memory.capacity_bytes);
    tp_search_binding b;
    assert_int_equal(tp_search_binding_eval(&it[0].config, &b, NULL), TP_OK);
    assert_false(b.fits);
    assert_true(b.over_bytes > 0.0);
    assert_non_null(strstr(b.text, "GiB"));
    assert_non_null(strstr(b.text, "over"));
    /* the states of 405B need more GPUs: some PP (or TP) with more GPUs fits */
    assert_true(b.need_pp > 0 || b.need_tp > 0);
    if (b.need_pp) {
        assert_true(b.need_pp_gpus > c.train.num_gpus);
        assert_non_null(strstr(b.text, "PP >= "));
    }

    /* Activations bind even with full recompute: a 2M-token sequence, TP 8. */
    c = preset("llama-2-7b", "h100-sxm");
    c.train.num_gpus = 8;
    c.train.tp = 8;
    c.train.sp = true;
    c.train.seq_len = 2097152;
    c.train.global_batch = 1;
    c.train.recompute = TP_RECOMPUTE_FULL;
    c.train.fused_ce = true; /* else the fp32 logits are the largest part */
    assert_int_equal(tp_search_binding_eval(&c, &b, NULL), TP_OK);
    assert_false(b.fits);
    assert_string_equal(b.part, "activations");
    assert_true(b.full_recompute);
    assert_non_null(strstr(b.text, "even with full recompute"));
    assert_true(b.need_cp >= 2);
    assert_non_null(strstr(b.text, "needs CP >= "));
    /* and the CP it names does fit, one less does not */
    tp_config f = c;
    f.train.cp = b.need_cp;
    f.train.num_gpus = b.need_cp_gpus;
    tp_result r;
    assert_int_equal(tp_eval(&f, &r, NULL), TP_OK);
    assert_true(r.memory.fits);
    /* a fitting layout says so */
    c.train.seq_len = 4096;
    assert_int_equal(tp_search_binding_eval(&c, &b, NULL), TP_OK);
    assert_true(b.fits);
    free(it);
}

/* ---- S4-6: the largest micro-batch ------------------------------------------- */

static void check_mb(tp_config c)
{
    tp_mb_max m;
    tp_error e;
    if (tp_micro_batch_max(&c, &m, &e) != TP_OK)
        fail_msg("%s", e.message);
    assert_int_equal(m.formula, m.bisect);
    /* doubling = the largest power of two <= the exact maximum */
    if (m.bisect == 0) {
        assert_int_equal(m.doubling, 0);
    } else {
        assert_true(m.doubling <= m.bisect && 2 * m.doubling > m.bisect);
        assert_int_equal(m.doubling & (m.doubling - 1), 0);
    }
    /* and the answer is tight: b fits, b + 1 does not */
    tp_result r;
    int64_t dp = tp_train_dp(&c.train), ga = c.train.global_batch / (c.train.micro_batch * dp);
    if (m.bisect > 0) {
        c.train.micro_batch = m.bisect;
        c.train.global_batch = m.bisect * dp * ga;
        assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
        assert_true(r.memory.fits);
    }
    if (m.bisect < TP_MB_MAX_CAP) {
        c.train.micro_batch = m.bisect + 1;
        c.train.global_batch = (m.bisect + 1) * dp * ga;
        assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
        assert_false(r.memory.fits);
    }
}

static void test_s4_6_micro_batch(void **state)
{
    (void)state;
    /* Vizz, TP 8, PP 1, full recompute: 13.25 GiB + b x 8.6 GiB */
    tp_config c = vizz();
    c.train.tp = 8;
    c.train.sp = true;
    c.train.recompute = TP_RECOMPUTE_FULL;
    c.train.global_batch = 8;
    check_mb(c);
    tp_mb_max m;
    assert_int_equal(tp_micro_batch_max(&c, &m, NULL), TP_OK);
    assert_true(m.bisect >= 2); /* seed 004: "possibly mbs = 2 with aggressive checkpointing" */
    /* no recompute: not even one sequence */
    c.train.recompute = TP_RECOMPUTE_NONE;
    check_mb(c);
    assert_int_equal(tp_micro_batch_max(&c, &m, NULL), TP_OK);
    assert_int_equal(m.formula, 0);
    /* short context, PP 4 interleaved, uneven ZeRO: several stages bind */
    c = preset("llama-3-70b", "h100-sxm");
    c.train.num_gpus = 64;
    c.train.tp = 8;
    c.train.sp = true;
    c.train.pp = 4;
    c.train.vpp = 5;
    c.train.schedule = TP_SCHED_INTERLEAVED;
    c.train.zero = 1;
    c.train.seq_len = 2048;
    c.train.global_batch = 64;
    check_mb(c);
    c.train.vpp = 1;
    c.train.schedule = TP_SCHED_1F1B;
    c.train.pp = 3; /* 80 layers on 3 stages: uneven */
    c.train.num_gpus = 48;
    c.train.global_batch = 16;
    check_mb(c);
    c = preset("llama-3.2-1b", "a100-40gb");
    c.train.num_gpus = 8;
    c.train.global_batch = 8;
    c.train.seq_len = 512;
    check_mb(c);
}

/* ---- S3-3, S4-1..S4-6: the recipe on the Vizz case --------------------------------- */

static void test_recipe_vizz(void **state)
{
    (void)state;
    tp_config c = vizz();
    tp_recipe *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_int_equal(tp_recipe_run(&c, r, NULL), TP_OK);
    /* S3-1: the bill: 16 B/param, >= 2 H100 for the states */
    assert_rel(r->state_bytes_per_param, 16.0, 1e-12);
    assert_rel(r->state_bytes, 16.0 * 6738415616.0, 1e-12);
    assert_int_equal(r->gpus_for_state, 2);
    /* S4-1: TP inside the node, saturated: 4 heads per GPU */
    assert_int_equal(r->tp, 8);
    assert_int_equal(r->heads_per_gpu, 4);
    assert_false(r->tp_fits);
    /* S4-6 at the TP step: no micro-batch without recompute; with full
     * recompute formula and doubling agree */
    assert_true(r->long_context);
    assert_int_equal(r->mb[TP_RECOMPUTE_NONE].formula, 0);
    assert_int_equal(r->mb[TP_RECOMPUTE_FULL].formula, r->mb[TP_RECOMPUTE_FULL].bisect);
    assert_true(r->mb[TP_RECOMPUTE_FULL].formula >= 1);
    /* The walk-through takes PP 2 "to halve activation memory"; the physics
     * says the node holds the model and that, under 1F1B, PP 2 leaves stage 0
     * with the same activations as PP 1. The recipe records both numbers. */
    assert_int_equal(r->pp, 1);
    assert_false(r->pp_needed);
    assert_true(r->stage0_act_pp2_bytes > 0.0);
    assert_rel(r->stage0_act_pp2_bytes, r->stage0_act_pp1_bytes, 0.01);
    /* S4-2 / S4-4: DP 4 x (TP 8 x CP 2) = 64, ZeRO-1, micro-batch 1,
     * accumulation 8: 4 x 1 x 131072 x 8 = 4,194,304 tokens */
    assert_int_equal(r->cp, 2);
    assert_true(r->cp_considered);
    assert_int_equal(r->dp, 4);
    assert_int_equal(r->zero, 1);
    assert_int_equal(r->micro_batch, 1);
    assert_int_equal(r->grad_accum, 8);
    assert_int_equal(r->global_batch, 32);
    assert_rel(r->tokens_per_step, 4194304.0, 1e-12);
    assert_int_equal(r->tp * r->pp * r->cp * r->dp, 64);
    /* CP halves the activations per GPU */
    assert_rel(r->act_after_cp_bytes, 0.5 * r->act_before_cp_bytes, 0.02);
    /* S4-5: one head's scores 131072^2 = 1.72e10 elements; CP c divides by c^2 */
    assert_rel(r->scores_per_head, 1.717986918e10, 1e-9);
    assert_rel(r->scores_per_head / r->scores_per_head_cp, 4.0, 1e-12);
    assert_int_equal(r->ep, 1);
    assert_true(r->fits);
    assert_int_equal(r->config.train.tp, 8);
    assert_int_equal(r->config.train.cp, 2);
    assert_int_equal(r->result.dp, 4);
    assert_int_equal(r->result.grad_accum, 8);
    /* S4-2 per-GPU states at TP 8, PP 2 (the walk-through's layout): 0.84 B
     * parameters per GPU -> 1.7 GB of bf16 weights. (The document's 0.875 GB
     * divides 7B by TP 8 x PP 2 = 16: weights per GPU are N / 16 x 2 B.) */
    tp_config w = c;
    w.train.tp = 8;
    w.train.sp = true;
    w.train.pp = 2;
    w.train.zero = 1;
    tp_result wr;
    assert_int_equal(tp_eval(&w, &wr, NULL), TP_OK);
    assert_rel(wr.stage_first.params_on_gpu * 2.0, 2.0 * 6738415616.0 / 16.0, 0.05);
    free(r);
}

static void test_recipe_shapes(void **state)
{
    (void)state;
    /* S3-3 on other shapes: the layout multiplies out, TP stays in a node,
     * PP only when needed, and the layout fits. */
    struct {
        const char *model, *gpu;
        int64_t gpus, seq, batch;
    } cases[] = {
        {"llama-3-70b", "h100-sxm", 64, 4096, 128},
        {"llama-3.2-1b", "h100-sxm", 16, 2048, 256},
        {"mixtral-8x7b", "h100-sxm", 64, 4096, 256},
        {"llama-3.1-405b", "h100-sxm", 1024, 8192, 1024},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_config c = preset(cases[i].model, cases[i].gpu);
        c.train.num_gpus = cases[i].gpus;
        c.train.seq_len = cases[i].seq;
        c.train.global_batch = cases[i].batch;
        tp_recipe *r = calloc(1, sizeof *r);
        assert_non_null(r);
        assert_int_equal(tp_recipe_run(&c, r, NULL), TP_OK);
        assert_true(r->tp <= 8);
        assert_int_equal(r->tp * r->pp * r->cp * r->dp, c.train.num_gpus);
        assert_int_equal(r->micro_batch * r->grad_accum * r->dp, r->global_batch);
        assert_true(r->fits);
        if (!r->pp_needed)
            assert_int_equal(r->pp, 1);
        if (c.model.num_experts > 0)
            assert_true(r->ep > 1);
        /* the search's best is never slower than the recipe */
        double b = best_step(&c, NULL, NULL);
        assert_le_rel(b, r->result.time.step_s);
        free(r);
    }
    /* a 1B model fits one GPU: no TP */
    tp_config c = preset("llama-3.2-1b", "h100-sxm");
    c.train.num_gpus = 16;
    c.train.global_batch = 256;
    tp_recipe r;
    assert_int_equal(tp_recipe_run(&c, &r, NULL), TP_OK);
    assert_int_equal(r.tp, 1);
    assert_true(r.tp_fits);
    assert_false(r.long_context);
}

/*
 * The recipe's expert layout (step 8) is the seeds': EP carved out of DP,
 * expert TP = TP. Mixtral 8x7B on 64 H100 at seq 4096, batch 256: the
 * recipe takes TP 2, PP 1, CP 1, so DP = 64 / 2 = 32 and EP = gcd(8, 32) =
 * 8. An --etp given (1, or 8 which no recipe layout with TP 2 could use
 * at its one-GPU check) fixes the search's axis only: the recipe is the
 * same, step time and all.
 */
static void test_recipe_moe_ep(void **state)
{
    (void)state;
    tp_config c = preset("mixtral-8x7b", "h100-sxm");
    c.train.num_gpus = 64;
    c.train.seq_len = 4096;
    c.train.global_batch = 256;
    tp_recipe *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(tp_recipe_run(&c, a, NULL), TP_OK);
    assert_int_equal(a->tp, 2);
    assert_int_equal(a->dp, 32);
    assert_int_equal(a->ep, 8);
    assert_int_equal(tp_expert_tp(&a->config.train), 2);
    const int64_t etps[] = {1, 8};
    for (size_t i = 0; i < 2; i++) {
        c.train.etp = etps[i];
        assert_int_equal(tp_recipe_run(&c, b, NULL), TP_OK);
        assert_int_equal(b->tp, 2);
        assert_int_equal(b->ep, 8);
        assert_int_equal(tp_expert_tp(&b->config.train), 2);
        assert_rel(b->result.time.step_s, a->result.time.step_s, 0.0);
    }
    free(a);
    free(b);
}

/* ---- runner-up deltas ----------------------------------------------------------- */

static void test_delta(void **state)
{
    (void)state;
    tp_config c = preset("llama-3-70b", "h100-sxm");
    c.train.num_gpus = 64;
    c.train.seq_len = 8192;
    c.train.global_batch = 128;
    tp_search_item *t = items(3);
    size_t n;
    assert_int_equal(tp_search_top(&c, NULL, TP_RANK_TIME, t, 3, &n, NULL, NULL), TP_OK);
    assert_int_equal(n, 3);
    tp_search_delta d;
    tp_search_delta_eval(&t[0], &t[2], &d);
    assert_true(d.step_s >= 0.0);
    assert_rel(d.step_s, t[2].result.time.step_s - t[0].result.time.step_s, 1e-12);
    if (d.step_s > 0.0) {
        assert_true(d.time_part[0] != '\0');
        assert_true(d.time_part_s > 0.0);
    }
    tp_search_delta_eval(&t[0], &t[0], &d);
    assert_string_equal(d.layout, "");
    assert_rel(d.step_s, 0.0, 1e-12);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_candidate_validates),
        cmocka_unit_test(test_prune_keeps_feasible_set),
        cmocka_unit_test(test_time_bound_keeps_top),
        cmocka_unit_test(test_stream_matches_top),
        cmocka_unit_test(test_early_stop),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_no_silent_cut),
        cmocka_unit_test(test_bad_space),
        cmocka_unit_test(test_axes),
        cmocka_unit_test(test_known_layouts),
        cmocka_unit_test(test_fixing_never_faster),
        cmocka_unit_test(test_binding),
        cmocka_unit_test(test_s4_6_micro_batch),
        cmocka_unit_test(test_recipe_vizz),
        cmocka_unit_test(test_recipe_shapes),
        cmocka_unit_test(test_recipe_moe_ep),
        cmocka_unit_test(test_delta),
        cmocka_unit_test(test_moe_folding_search),
        cmocka_unit_test(test_recompute_variants),
        cmocka_unit_test(test_offload_variants),
        cmocka_unit_test(test_offload_params_search),
        cmocka_unit_test(test_sac_variant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
