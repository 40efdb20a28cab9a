/* SPDX-License-Identifier: MIT */
/*
 * Hybrid models (issue 16; src/lib/hybrid.c design note): Mamba-2 and gated
 * delta-net layers mixed with attention by a layer pattern. The exact count
 * of Nemotron-H-8B from its real config.json (tests/data/hf/nemotron-h-8b,
 * README there cites it) against the released checkpoint's total, the
 * mixers' parameters and FLOPs against the hand derivations of the design
 * note, the TP split, two metamorphic tests (a pattern of 'A' is the
 * transformer byte for byte; "*-" twice as deep is the same transformer)
 * and the refusals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "helpers.h"
#include "internal.h"
#include "export.h"
#include "import.h"
#include "fixtures_io.h"
#include "io.h"
#include "tp/tp.h"

static tp_result eval_ok(const tp_config *c)
{
    tp_result r;
    tp_error err;
    memset(&r, 0, sizeof r);
    if (tp_eval(c, &r, &err) != TP_OK) {
        print_error("%s: %s\n", err.path, err.message);
        fail();
    }
    return r;
}

/* Nemotron-H-8B's shape (its config.json), built by hand. */
static tp_model nemotron_h_8b(void)
{
    tp_model m = llama(52, 4096, 32, 8, 21504, 131072, false);
    m.mlp = TP_MLP_SQRELU;
    strcpy(m.layer_pattern, "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-");
    m.mamba_heads = 128;
    m.mamba_head_dim = 64;
    m.mamba_groups = 8;
    m.mamba_state = 128;
    return m;
}

/* Qwen3-Next-80B-A3B's shape (HF config.json keys in the comments): 48
 * layers, every 4th full attention (full_attention_interval 4), 512 experts
 * of 512 top-10 with a gated shared expert of 512 on every layer. */
static tp_model qwen3_next(void)
{
    tp_model m = llama(48, 2048, 16, 2, 5120, 151936, false);
    m.head_dim = 256;
    m.qk_norm = TP_QK_NORM_HEAD;
    m.attn_output_gate = true;
    m.num_experts = 512;
    m.topk = 10;
    m.moe_ffn_hidden = 512;
    m.shared_ffn_hidden = 512;
    m.num_shared_experts = 1;
    m.shared_expert_gate = true;
    strcpy(m.layer_pattern, "LLLA");
    m.gdn_k_heads = 16; /* linear_num_key_heads */
    m.gdn_v_heads = 32; /* linear_num_value_heads */
    m.gdn_k_head_dim = 128;
    m.gdn_v_head_dim = 128;
    return m;
}

static void test_nemotron_h_count(void **state)
{
    (void)state;
    /* 8,100,852,736: the released checkpoint's total (docs/models.md) and
     * hybrid.c's hand sum */
    tp_model hf = load(HF_DIR "nemotron-h-8b/config.json");
    tp_params p = params_of(&hf);
    assert_int_equal(p.total, 8100852736LL);
    assert_int_equal(p.active, 8100852736LL);
    assert_int_equal(p.mixers, 24LL * 109635968LL);
    assert_int_equal(tp__mamba_params(&hf), 109635968LL);
    assert_int_equal(p.attention, 4LL * 41943040LL);
    assert_int_equal(p.mlp_dense, 24LL * 176160768LL);
    assert_int_equal(p.norms, 53LL * 4096LL);
    assert_int_equal(p.num_moe_layers, 0);
    assert_string_equal(hf.layer_pattern, nemotron_h_8b().layer_pattern);
    assert_true(tp_model_is_hybrid(&hf));
    /* the file and the hand-built shape are the same model */
    tp_model hand = nemotron_h_8b();
    assert_int_equal(params_of(&hand).total, p.total);
}

static void test_gdn_count(void **state)
{
    (void)state;
    tp_model m = qwen3_next();
    /* design note: 33,718,464 per gated delta-net mixer */
    assert_int_equal(tp__gdn_params(&m), 33718464LL);
    tp_params p = params_of(&m);
    /* gated attention: q_proj 2048 x 8192 (queries and gates), k and v
     * 2048 x 512, o 4096 x 2048, two head norms of 256 */
    int64_t attn = 16777216LL + 2 * 1048576LL + 8388608LL + 512LL;
    int64_t moe = 512LL * 3 * 2048 * 512 + 3LL * 2048 * 512 + 2048LL * 512 + 2048LL;
    assert_int_equal(p.attention, 12 * attn);
    assert_int_equal(p.mixers, 36 * 33718464LL);
    assert_int_equal(p.num_moe_layers, 48);
    assert_int_equal(p.moe_routed + p.moe_shared + p.router, 48 * moe);
    /* one gated delta-net + MoE layer: 1,648,531,648, transformers' own count
     * (tests/data/hf/qwen3-next-80b-a3b/SOURCE) */
    assert_int_equal(tp__gdn_params(&m) + moe + 2 * 2048, 1648531648LL);
    /* 79,674,391,296: the hand sum of the shapes above (Qwen: "80B"), no MTP */
    assert_int_equal(p.total, 79674391296LL);
    /* Megatron's one-sublayer symbols twice as deep ("GE" for "L", "*E" for
     * "A") are the same model */
    tp_model split = m;
    split.num_layers = 96;
    strcpy(split.layer_pattern, "GEGEGE*E");
    tp_params ps = params_of(&split);
    assert_int_equal(ps.total, p.total);
    assert_int_equal(ps.active, p.active);
    assert_int_equal(ps.num_moe_layers, 48);
    /* the real config.json reads the same model */
    tp_model hf = load(HF_DIR "qwen3-next-80b-a3b/config.json");
    assert_string_equal(hf.layer_pattern, "LLLA");
    assert_true(hf.attn_output_gate && hf.shared_expert_gate);
    tp_params ph = params_of(&hf);
    assert_int_equal(ph.total, 79674391296LL);
    assert_int_equal(ph.active, p.active);
    assert_int_equal(ph.active, 79674391296LL - 48LL * 502 * 3 * 2048 * 512);
}

/* Jamba (Mamba-1 + attention, MoE every other layer) from its config.json. */
static void test_jamba_count(void **state)
{
    (void)state;
    tp_model m = load(HF_DIR "jamba-1.5-mini/config.json");
    assert_string_equal(m.layer_pattern, "SSSSASSS");
    assert_int_equal(m.mamba1_inner, 8192);
    assert_int_equal(m.mamba1_dt_rank, 256);
    /* design note: 105,308,448 per Mamba-1 mixer */
    assert_int_equal(tp__mamba1_params(&m), 105308448LL);
    tp_params p = params_of(&m);
    assert_int_equal(p.mixers, 28LL * 105308448LL);
    assert_int_equal(p.num_moe_layers, 16);
    /* 51,570,323,328 total, 12,110,311,296 active (AI21: 52B, 12B active) */
    assert_int_equal(p.total, 51570323328LL);
    assert_int_equal(p.active, 12110311296LL);
    /* TP splits the inner width; CP of Mamba-1 layers is refused */
    tp_config c = fixture_config(m);
    c.train.num_gpus = 2;
    c.train.cp = 2;
    tp_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "layout.cp");
    c.train.cp = 1;
    c.train.tp = 2;
    c.train.sp = true;
    tp_result r = eval_ok(&c);
    assert_true(r.time.step_s > 0.0 && r.time.tp_comm_s > 0.0);
}

/* The row of the listing named name, or NULL. */
static const tp_coll_row *coll_row(const tp_coll_row *rows, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

/*
 * Jamba's TP collectives (tp_step_collectives, colls.c), 8 GPUs, TP 2 with
 * SP, sequence 4096, 32 sequences: DP 4, 8 micro-batches of 4,096 tokens.
 * Each of the 32 layers has two h-wide all-reduces a pass (mixer and
 * feed-forward: 8 x 32 x 2 x 2 = 1,024, and the embedding's 8); each of
 * the 28 Mamba-1 mixers also all-reduces its x_proj outputs, dt_rank 256 +
 * 2 x state 16 = 288 values a token: 4,096 x 288 x 2 B = 2,359,296 B, one
 * forward and one backward, 8 x 28 x 2 = 448. Without a TP overlap the
 * step charges both rows whole.
 */
static void test_jamba_collectives(void **state)
{
    (void)state;
    tp_config c = fixture_config(load(HF_DIR "jamba-1.5-mini/config.json"));
    c.train.num_gpus = 8;
    c.train.tp = 2;
    c.train.sp = true;
    c.train.seq_len = 4096;
    c.train.global_batch = 32;
    tp_result r = eval_ok(&c);
    assert_int_equal(r.grad_accum, 8);
    tp_coll_row rows[TP_COLL_ROWS_MAX];
    int n = tp_step_collectives(&c, &r, rows, TP_COLL_ROWS_MAX);
    const tp_coll_row *tp = coll_row(rows, n, "TP all-reduce"),
                      *xp = coll_row(rows, n, "TP all-reduce, x_proj");
    assert_non_null(tp);
    assert_non_null(xp);
    assert_rel(tp->count, 1032.0, 0.0);
    assert_rel(tp->bytes, 4096.0 * 4096.0 * 2.0, 0.0);
    assert_rel(xp->count, 448.0, 0.0);
    assert_rel(xp->bytes, 2359296.0, 0.0);
    assert_int_equal(xp->group, 2);
    assert_int_equal(xp->kind, TP_COLL_ALL_REDUCE);
    assert_rel(tp->total_s + xp->total_s, r.time.tp_comm_s, 1e-12);
    /* full recompute re-runs the forward ones: 3 a layer and micro-batch */
    c.train.recompute = TP_RECOMPUTE_FULL;
    r = eval_ok(&c);
    n = tp_step_collectives(&c, &r, rows, TP_COLL_ROWS_MAX);
    xp = coll_row(rows, n, "TP all-reduce, x_proj");
    assert_non_null(xp);
    assert_rel(xp->count, 8.0 * 28.0 * 3.0, 0.0);
}

static void test_flops(void **state)
{
    (void)state;
    tp_config c = fixture_config(nemotron_h_8b());
    c.train.seq_len = 8192;
    tp_result r = eval_ok(&c);
    /* forward per token: 24 Mamba-2 2*4096*18560 + 7*8192*128 + 2*8192*4096
     * = 226,492,416; 4 attention 2*41,943,040 + 2*8192*8192/2 = 150,994,944;
     * 24 MLPs 2*2*4096*21504 = 352,321,536; logits 2*4096*131072 */
    double mamba = 226492416.0, attn = 150994944.0, mlp = 352321536.0, logits = 1073741824.0;
    assert_rel(tp__mamba_fwd_flops(&c.model), mamba, 0.0);
    double fwd = 24.0 * mamba + 4.0 * attn + 24.0 * mlp + logits;
    assert_rel(r.flops.model_per_token, 3.0 * fwd, 0.0);
    assert_rel(r.flops.attn_per_token, 3.0 * 4.0 * 67108864.0, 0.0);
    /* full recompute re-runs every layer's forward, not the logits */
    c.train.recompute = TP_RECOMPUTE_FULL;
    r = eval_ok(&c);
    assert_rel(r.flops.hardware_per_token, 3.0 * fwd + fwd - logits, 0.0);
}

/* A pattern of 'A' alone is the transformer: every number identical. */
static void test_all_attention_is_the_transformer(void **state)
{
    (void)state;
    tp_model base[2] = {llama(8, 1024, 16, 4, 2816, 32000, false),
                        llama(12, 2048, 16, 8, 5632, 50000, false)};
    base[1].num_experts = 8;
    base[1].topk = 2;
    base[1].moe_first_dense = 1;
    base[1].moe_layer_freq = 2;
    const char *pats[] = {"A", "AAAA"};
    for (int i = 0; i < 2; i++) {
        for (int j = 0; j < 2; j++) {
            tp_config a = fixture_config(base[i]), b;
            a.train.num_gpus = 8;
            a.train.tp = 2;
            a.train.pp = 2;
            a.train.sp = true;
            a.train.global_batch = 16;
            a.train.recompute = TP_RECOMPUTE_SELECTIVE;
            b = a;
            strcpy(b.model.layer_pattern, pats[j]);
            assert_false(tp_model_is_hybrid(&b.model));
            tp_result ra = eval_ok(&a), rb = eval_ok(&b);
            assert_memory_equal(&ra.params, &rb.params, sizeof ra.params);
            assert_memory_equal(&ra.flops, &rb.flops, sizeof ra.flops);
            assert_memory_equal(&ra.memory, &rb.memory, sizeof ra.memory);
            assert_memory_equal(&ra.stage_first, &rb.stage_first, sizeof ra.stage_first);
            assert_memory_equal(&ra.stage_last, &rb.stage_last, sizeof ra.stage_last);
            assert_rel(ra.time.step_s, rb.time.step_s, 0.0);
            assert_rel(ra.time.tp_comm_s, rb.time.tp_comm_s, 0.0);
            assert_rel(ra.time.dp_comm_s, rb.time.dp_comm_s, 0.0);
        }
    }
}

/* Megatron's one-sublayer layers "*-" twice as deep are the same transformer:
 * the same parameters, FLOPs, activations and step time (to rounding), with
 * fused element-wise kernels and with eager ones (--eager-elementwise: each
 * sub-layer's norm and the eager SwiGLU, time.c act_bytes). */
static void test_split_sublayers_are_the_transformer(void **state)
{
    (void)state;
    tp_model dense = llama(8, 1024, 16, 4, 2816, 32000, false);
    tp_model split = dense;
    split.num_layers = 16;
    strcpy(split.layer_pattern, "*-");
    assert_true(tp_model_is_hybrid(&split));
    for (int k = 0; k < 4; k++) {
        int tpz = 1 + k % 2;
        tp_config a = fixture_config(dense), b;
        a.opts.eager_elementwise = k >= 2;
        a.train.num_gpus = tpz; /* no DP: its exposed tail is one layer's share */
        a.train.tp = tpz;
        a.train.sp = tpz > 1;
        a.train.global_batch = 8;
        a.train.seq_len = 4096;
        b = a;
        b.model = split;
        tp_result ra = eval_ok(&a), rb = eval_ok(&b);
        assert_int_equal(ra.params.total, rb.params.total);
        assert_int_equal(ra.params.attention, rb.params.attention);
        assert_int_equal(ra.params.mlp_dense, rb.params.mlp_dense);
        assert_int_equal(ra.params.norms, rb.params.norms);
        assert_rel(rb.flops.model_per_token, ra.flops.model_per_token, 1e-12);
        assert_rel(rb.memory.params_on_gpu, ra.memory.params_on_gpu, 1e-12);
        assert_rel(rb.memory.activations_bytes, ra.memory.activations_bytes, 1e-12);
        assert_rel(rb.time.compute_s, ra.time.compute_s, 1e-12);
        assert_rel(rb.time.tp_comm_s + 1.0, ra.time.tp_comm_s + 1.0, 1e-12);
        assert_rel(rb.time.step_s, ra.time.step_s, 1e-12);
    }
}

/* --eager-elementwise on Mamba-2 and MLP sub-layers: each pays the eager
 * pre-norm, 36h read and written per token against the fused 4h (time.c
 * tp__time_sublayer_bytes), forward once and backward twice; the squared
 * ReLU is one kernel either way. 8 sub-layers of h 4096, 4 micro-batches of
 * 4096 tokens, at the fixture's HBM rate. */
static void test_eager_sublayers(void **state)
{
    (void)state;
    tp_model m = nemotron_h_8b();
    m.num_layers = 8;
    strcpy(m.layer_pattern, "M-");
    tp_config c = fixture_config(m);
    c.train.num_gpus = 1;
    c.train.seq_len = 4096;
    c.train.micro_batch = 1;
    c.train.global_batch = 4;
    c.train.recompute = TP_RECOMPUTE_NONE;
    tp_result fused = eval_ok(&c);
    c.opts.eager_elementwise = true;
    tp_result eager = eval_ok(&c);
    double bw = c.gpu.mem_bw_bytes_per_s * c.gpu.eff.mem_bw;
    assert_rel(eager.time.compute_s - fused.time.compute_s, 3 * 8 * 4 * 4096.0 * 32 * 4096 / bw,
               1e-9);
}

/* Megatron-Core splits the whole Mamba-2 mixer over TP; the norms stay whole. */
static void test_tp_split(void **state)
{
    (void)state;
    tp_config c = fixture_config(nemotron_h_8b());
    c.train.num_gpus = 4;
    c.train.tp = 4;
    c.train.sp = true;
    c.train.global_batch = 4;
    tp_result r = eval_ok(&c);
    double mamba = 109635968.0, attn = 41943040.0, mlp = 176160768.0, table = 536870912.0;
    double want = 24.0 * mamba / 4.0 + 4.0 * attn / 4.0 + 24.0 * mlp / 4.0 + 52.0 * 4096.0 +
                  2.0 * table / 4.0 + 4096.0;
    assert_rel(r.memory.params_on_gpu, want, 1e-15);
    /* a TP that does not divide the groups is refused, naming the layout field */
    c.train.num_gpus = 16;
    c.train.tp = 16;
    c.model.num_heads = 32;
    c.model.num_kv_heads = 16;
    tp_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "layout.tp");
    assert_string_equal(err.message, "16 does not divide the Mamba-2 heads (128) and groups (8) "
                                     "(Megatron-Core splits both over TP)");
}

/* Mamba-2 and gated delta-net context parallelism: two all-to-alls each way,
 * c dividing the heads per TP rank. */
static void test_cp(void **state)
{
    (void)state;
    tp_config c = fixture_config(nemotron_h_8b());
    c.train.num_gpus = 4;
    c.train.cp = 4;
    c.train.seq_len = 8192;
    c.train.global_batch = 1;
    tp_result r = eval_ok(&c);
    assert_true(r.time.cp_comm_s > 0.0);
    tp_config q = fixture_config(qwen3_next());
    q.train.num_gpus = 2;
    q.train.cp = 2;
    q.train.seq_len = 8192;
    r = eval_ok(&q);
    assert_true(r.time.cp_comm_s > 0.0);
    q.train.num_gpus = 32;
    q.train.cp = 32;
    tp_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(tp_config_validate(&q, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "layout.cp");
    assert_string_equal(err.message,
                        "32 does not divide the gated delta-net key heads (16) and value heads "
                        "(32) per TP rank (Megatron-Core's gated delta-net context parallelism "
                        "splits them over CP)");
    q.train.cp = 1;
    q.train.num_gpus = 8;
    q.train.ep = 8;
    q.train.global_batch = 8;
    r = eval_ok(&q);
    assert_true(r.time.ep_comm_s > 0.0 && r.time.step_s > 0.0);
}

/* The search enumerates only layouts the hybrid layers allow (verify mode
 * re-checks each with tp_config_validate and tp_eval). */
static void test_search(void **state)
{
    (void)state;
    tp_model models[3] = {nemotron_h_8b(), qwen3_next(), load(HF_DIR "jamba-1.5-mini/config.json")};
    for (int i = 0; i < 3; i++) {
        tp_config c = fixture_config(models[i]);
        c.train.num_gpus = 16;
        c.train.global_batch = 64;
        c.train.seq_len = 8192;
        tp_search_space sp;
        tp_search_space_default(&sp);
        sp.verify = true;
        sp.include_infeasible = true;
        tp_search *s = NULL;
        tp_error err;
        assert_int_equal(tp_search_new(&c, &sp, &s, &err), TP_OK);
        tp_search_item it;
        uint64_t n = 0, cp = 0;
        while (tp_search_next(s, &it)) {
            n++;
            cp += it.config.train.cp > 1;
            assert_int_equal(it.config.model.mamba_groups % it.config.train.tp, 0);
        }
        tp_search_stats st;
        tp_search_get_stats(s, &st);
        tp_search_free(s);
        assert_int_equal(st.verify_failures, 0);
        assert_true(n > 0);
        if (i < 2)
            assert_true(cp > 0); /* Mamba-2, gated delta-net: context parallelism modelled */
        else
            assert_int_equal(cp, 0); /* Mamba-1: never */
    }
}

static void expect_model_error(const tp_model *m, const char *path, const char *message)
{
    tp_params p;
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_status st = tp_model_params(m, 0, &p, &err);
    if (st == TP_OK || strcmp(err.path, path) != 0 || strcmp(err.message, message) != 0) {
        print_error("got %s [%s] %s\nwant [%s] %s\n", tp_strerror(st), err.path, err.message, path,
                    message);
        fail();
    }
}

static void test_refusals(void **state)
{
    (void)state;
    tp_model m = nemotron_h_8b();
    strcpy(m.layer_pattern, "M-X");
    expect_model_error(&m, "model.layer_pattern",
                       "character 3 'X' is not a layer kind (A attention + MLP, L gated "
                       "delta-net + MLP, S Mamba-1 + MLP, M Mamba-2, G gated delta-net, * "
                       "attention, - MLP, E MoE)");
    strcpy(m.layer_pattern, "M-M*-");
    expect_model_error(&m, "model.layer_pattern",
                       "5 characters do not divide the 52 layers (give one per layer, or a "
                       "period that repeats)");
    m = nemotron_h_8b();
    m.mamba_groups = 0;
    expect_model_error(&m, "model.mamba_groups", "0 is out of range [1, 128]");
    m = nemotron_h_8b();
    m.mamba_groups = 3;
    expect_model_error(&m, "model.mamba_groups", "3 groups do not divide the 128 Mamba-2 heads");
    m = llama(4, 64, 4, 0, 128, 100, false);
    m.mamba_heads = 8;
    expect_model_error(&m, "model.mamba_heads",
                       "Mamba-2 dimensions are given but layer_pattern has no 'M' layer");
    m = nemotron_h_8b();
    m.mtp_layers = 1;
    expect_model_error(&m, "model.mtp_layers",
                       "not modelled together with a hybrid layer_pattern (multi-token "
                       "prediction, sliding windows, multi-latent attention and extra norms are "
                       "counted for transformer layers only)");
    m = nemotron_h_8b();
    strcpy(m.layer_pattern, "ME");
    expect_model_error(&m, "model.layer_pattern",
                       "'E' (MoE) layers need experts (num_experts is 0)");
    m = qwen3_next();
    m.gdn_v_heads = 24;
    expect_model_error(&m, "model.gdn_v_heads",
                       "24 value heads are not a multiple of the 16 key heads");
}

/* An export never writes a hybrid model as another model. */
static void test_export_refused(void **state)
{
    (void)state;
    tp_config c = fixture_config(nemotron_h_8b());
    tp_result r = eval_ok(&c);
    tp_export_opts o;
    memset(&o, 0, sizeof o);
    for (int f = 0; f < TP_EXPORT_COUNT; f++) {
        tp_export e;
        tp_error err;
        memset(&err, 0, sizeof err);
        assert_int_equal(tp_io_export((tp_export_format)f, &c, &r, &o, &e, &err), TP_ERR_CONFIG);
        assert_string_equal(err.path, "model.layer_pattern");
        assert_non_null(strstr(err.message, "cannot be exported"));
        tp_io_export_free(&e);
    }
}

/* The trainplan model file's "hybrid" object reads the same model. */
static void test_model_file(void **state)
{
    (void)state;
    const char *text =
        "{\"num_layers\":52,\"hidden\":4096,\"num_heads\":32,\"num_kv_heads\":8,"
        "\"ffn_hidden\":21504,\"vocab\":131072,\"mlp\":\"squared-relu\",\"norm\":\"rmsnorm\",\"position\":\"rotary\","
        "\"hybrid\":{\"layer_pattern\":\"M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-\","
        "\"mamba_heads\":128,\"mamba_head_dim\":64,\"mamba_groups\":8,\"mamba_state\":128}}";
    tp_model m;
    tp_error err;
    if (tp_io_model_parse(text, "hybrid.json", &m, &err) != TP_OK) {
        print_error("%s: %s\n", err.path, err.message);
        fail();
    }
    assert_int_equal(params_of(&m).total, 8100852736LL);
    memset(&err, 0, sizeof err);
    assert_int_equal(
        tp_io_model_parse(
            "{\"num_layers\":2,\"hidden\":64,\"num_heads\":4,"
            "\"ffn_hidden\":128,\"vocab\":100,\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\",\"hybrid\":{"
            "\"layer_pattern\":\"\"}}",
            "x.json", &m, &err),
        TP_ERR_CONFIG);
    assert_string_equal(err.path, "hybrid.layer_pattern");
}

/* A Megatron-LM hybrid launch (pretrain_hybrid.py, Megatron-Core's Mamba
 * stack) reads as the same model as Nemotron-H-8B's config.json. */
static void test_megatron_import(void **state)
{
    (void)state;
    static const char launch[] =
        "torchrun --nproc_per_node 8 pretrain_hybrid.py --tensor-model-parallel-size 4 "
        "--hybrid-layer-pattern M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M- "
        "--hidden-size 4096 --ffn-hidden-size 21504 --num-attention-heads 32 "
        "--group-query-attention --num-query-groups 8 --kv-channels 128 --squared-relu "
        "--mamba-num-heads 128 --normalization RMSNorm --disable-bias-linear "
        "--untie-embeddings-and-output-weights --position-embedding-type none "
        "--vocab-size 131072 --seq-length 8192 --micro-batch-size 1 --global-batch-size 8 "
        "--bf16 --spec megatron.core.models.mamba.mamba_layer_specs mamba_stack_spec";
    tp_import im;
    tp_error err;
    memset(&err, 0, sizeof err);
    if (tp_io_import_megatron(launch, "nemotron-h.sh", &im, &err) != TP_OK) {
        print_error("%s: %s\n", err.path, err.message);
        fail();
    }
    assert_int_equal(im.model.num_layers, 52);
    assert_int_equal(im.model.mamba_groups, 8);    /* Megatron's default */
    assert_int_equal(im.model.mamba_state, 128);   /* Megatron's default */
    assert_int_equal(im.model.mamba_head_dim, 64); /* Megatron's default */
    assert_int_equal(params_of(&im.model).total, 8100852736LL);

    /* what is not read is refused by name */
    static const char pipes[] = "--hybrid-layer-pattern M*|M- --hidden-size 256 "
                                "--num-attention-heads 4 --seq-length 128 --micro-batch-size 1";
    memset(&err, 0, sizeof err);
    assert_int_equal(tp_io_import_megatron(pipes, NULL, &im, &err), TP_ERR_CONFIG);
    assert_string_equal(err.path, "--hybrid-layer-pattern");
    assert_string_equal(err.message,
                        "\"--hybrid-layer-pattern\" character 3 '|': only 'M' Mamba-2, '*' "
                        "attention, '-' MLP and 'E' MoE layers are read (no '|' pipeline or '/' "
                        "MTP separators, no 'G', 'D' or '+' layers)");
    static const char ratio[] = "--is-hybrid-model --num-layers 4 --hidden-size 256 "
                                "--num-attention-heads 4 --seq-length 128 --micro-batch-size 1";
    memset(&err, 0, sizeof err);
    assert_int_equal(tp_io_import_megatron(ratio, NULL, &im, &err), TP_ERR_CONFIG);
    assert_string_equal(err.path, "--is-hybrid-model");
    static const char spec[] = "--num-layers 4 --hidden-size 256 --num-attention-heads 4 "
                               "--seq-length 128 --micro-batch-size 1 --spec my.module my_spec";
    memset(&err, 0, sizeof err);
    assert_int_equal(tp_io_import_megatron(spec, NULL, &im, &err), TP_ERR_CONFIG);
    assert_string_equal(err.message, "\"--spec\" builds the layers from a custom module spec, "
                                     "which changes memory or time in a way trainplan does not "
                                     "model");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nemotron_h_count),
        cmocka_unit_test(test_gdn_count),
        cmocka_unit_test(test_jamba_count),
        cmocka_unit_test(test_flops),
        cmocka_unit_test(test_eager_sublayers),
        cmocka_unit_test(test_all_attention_is_the_transformer),
        cmocka_unit_test(test_split_sublayers_are_the_transformer),
        cmocka_unit_test(test_tp_split),
        cmocka_unit_test(test_cp),
        cmocka_unit_test(test_jamba_collectives),
        cmocka_unit_test(test_search),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_export_refused),
        cmocka_unit_test(test_model_file),
        cmocka_unit_test(test_megatron_import),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
