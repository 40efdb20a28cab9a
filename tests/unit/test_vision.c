/* SPDX-License-Identifier: MIT */
/*
 * Vision-language models and Falcon (issue 16; vision.c's design note):
 * exact parameter counts of real config files (tests/data/hf/<name>/SOURCE
 * cites each) against the released checkpoints' totals, the tower's FLOPs
 * against the hand derivation, frozen vs trained memory, mllama's
 * cross-attention layers, the metamorphic "no tower is today's text model",
 * and the refusals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "helpers.h"
#include "internal.h"
#include "export.h"
#include "fixtures_io.h"
#include "io.h"
#include "tp/tp.h"

/* Bit-for-bit equal doubles (no tolerance: the metamorphic checks). */
static bool same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static tp_result eval_ok(const tp_config *c)
{
    tp_result r;
    tp_error err;
    if (tp_eval(c, &r, &err) != TP_OK) {
        print_error("%s: %s\n", err.path, err.message);
        fail();
    }
    return r;
}

/* The four vision-language families against the released checkpoints. */
static void test_vlm_counts(void **state)
{
    (void)state;
    /* Llama-3.2-11B-Vision: 10,670,220,835 (HF count of the released weights) */
    tp_model ml = load(HF_DIR "llama-3.2-11b-vision/config.json");
    tp_params p = params_of(&ml);
    assert_int_equal(p.total, 10670220835LL);
    /* patch 3*14*14*1280 + class 1280 + positions 1601*1280 + gate 1 + tiles
     * 9*4*1601*1280 + pre/post tile tables 2*(9*4*1280 + 1) + LN pre/post
     * 2*2560 + 40 blocks of 19,672,320 + 8 global blocks' 2 gates */
    int64_t block = 4 * 1280 * 1280 + 2 * 1280 * 5120 + 5120 + 1280 + 2 * 2560;
    assert_int_equal(block, 19672320);
    assert_int_equal(p.vision,
                     752640 + 1280 + 2049280 + 1 + 73774080 + 2 * 46081 + 5120 + 40 * block + 16);
    assert_int_equal(p.vision, 863567379);
    assert_int_equal(p.vision_projector, 7680 * 4096 + 4096);
    /* 8 extra embedding rows, q/k norms (2 x 128) and 2 gates per cross layer */
    assert_int_equal(p.vision_text, 8 * 4096 + 8 * (256 + 2));
    assert_int_equal(tp_model_num_cross_layers(&ml), 8);
    assert_int_equal(ml.vision.image_tokens, 4 * 1601);

    /* Qwen2-VL-7B: 8,291,375,616; the language model is Qwen2-7B's 7,615,616,512 */
    tp_model q2 = load(HF_DIR "qwen2-vl-7b/config.json");
    tp_params p2 = params_of(&q2);
    assert_int_equal(p2.total, 8291375616LL);
    assert_int_equal(tp__vision_block_params(&q2.vision), 19677440);
    assert_int_equal(p2.vision, 1505280 + 32 * 19677440);
    assert_int_equal(p2.vision_projector, 2560 + 5120 * 5120 + 5120 + 5120 * 3584 + 3584);
    assert_int_equal(p2.total - p2.vision - p2.vision_projector, 7615616512LL);
    assert_int_equal(q2.vision.merge, 4);

    /* Qwen2.5-VL-7B: 8,292,166,656, of which "visual" 676,550,144 */
    tp_model q25 = load(HF_DIR "qwen2.5-vl-7b/config.json");
    tp_params p25 = params_of(&q25);
    assert_int_equal(p25.total, 8292166656LL);
    assert_int_equal(p25.vision + p25.vision_projector, 676550144LL);
    assert_int_equal(q25.vision.mlp, TP_MLP_SWIGLU);
    assert_int_equal(q25.vision.window, 64); /* 112 px / 14 = 8 x 8 patches */
    assert_int_equal(q25.vision.full_layers, 4);

    /* Gemma-3-4B: 4,300,079,472; SigLIP 416,866,032 + projector 2,950,272 */
    tp_model g3 = load(HF_DIR "gemma-3-4b/config.json");
    tp_params pg = params_of(&g3);
    assert_int_equal(pg.total, 4300079472LL);
    assert_int_equal(pg.vision, 678528 + 4096 * 1152 + 27 * 15239504 + 2304);
    assert_int_equal(pg.vision_projector, 1152 + 1152 * 2560);
    assert_int_equal(g3.vision.merge, 16); /* 64 x 64 patches pooled to 16 x 16 */
    assert_int_equal(g3.global_every, 6);
    assert_true(g3.tie_embeddings);
}

/* Falcon: multi-query with one norm per layer; the new architecture with kv heads. */
static void test_falcon_counts(void **state)
{
    (void)state;
    tp_model f7 = load(HF_DIR "falcon-7b/config.json");
    tp_params p7 = params_of(&f7);
    /* qkv 4544 x (4544 + 2*64), dense 4544^2, MLP 2 x 4544 x 18176, one LayerNorm */
    int64_t l7 = 4544LL * 4672 + 4544LL * 4544 + 2LL * 4544 * 18176 + 2 * 4544;
    assert_int_equal(p7.total, 32 * l7 + 65024LL * 4544 + 2 * 4544);
    assert_int_equal(p7.total, 6921720704LL);
    assert_int_equal(f7.num_kv_heads, 1);
    assert_true(f7.parallel_attn && f7.tie_embeddings);
    tp_model f40 = load(HF_DIR "falcon-40b/config.json");
    tp_params p40 = params_of(&f40);
    int64_t l40 = 8192LL * 9216 + 8192LL * 8192 + 2LL * 8192 * 32768 + 2 * 2 * 8192;
    assert_int_equal(p40.total, 60 * l40 + 65024LL * 8192 + 2 * 8192);
    assert_int_equal(p40.total, 41303293952LL);
    assert_int_equal(f40.num_kv_heads, 8);
    assert_int_equal(f40.norms_per_layer, 2);

    /* parallel attention: one TP all-reduce per layer each way instead of two */
    tp_config c = fixture_config(f40);
    c.train.num_gpus = 8;
    c.train.tp = 8;
    c.train.global_batch = 8;
    tp_result par = eval_ok(&c);
    c.model.parallel_attn = false;
    tp_result seq = eval_ok(&c);
    /* sequential: (4L + 1) all-reduces of T*h*2 bytes (the embedding's one
     * forward), parallel 2L + 1: so 2 par - seq is exactly one of them */
    assert_rel(2 * par.time.tp_comm_s - seq.time.tp_comm_s, seq.time.tp_comm_s / (4 * 60 + 1),
               1e-9);
    assert_true(same(par.flops.model_per_token, seq.flops.model_per_token));
}

/* Forward FLOPs of the tower and projector, by hand (vision.c design note). */
static void test_vision_flops(void **state)
{
    (void)state;
    tp_model m = load(HF_DIR "qwen2-vl-7b/config.json");
    tp_config c = fixture_config(m);
    c.train.seq_len = 4096;
    tp_result none = eval_ok(&c);
    double N = 1024, h = 1280, f = 5120, s = 4096;
    /* the Conv3d sees 3 channels x 2 frames x 14 x 14 = 1176 pixels per patch */
    double enc = 2 * N * 1176 * h + 32 * N * (2 * (4 * h * h + 2 * h * f) + 4 * N * h);
    double proj = 2 * (N / 4) * (5120.0 * 5120 + 5120.0 * 3584);
    c.model.vision.image_tokens = 1024;
    tp_result r = eval_ok(&c);
    assert_rel(r.flops.model_per_token - none.flops.model_per_token, 3 * (enc + proj) / s, 1e-12);
    assert_true(r.time.step_s > none.time.step_s);
    /* frozen: the encoder's forward only, the projector's forward and weight gradient */
    c.model.vision.frozen = true;
    tp_result fr = eval_ok(&c);
    assert_rel(fr.flops.model_per_token - none.flops.model_per_token, (enc + 2 * proj) / s, 1e-12);
    assert_true(fr.time.step_s < r.time.step_s);
    /* Qwen2.5-VL: 28 windowed blocks see 64 patches, 4 see the whole image */
    tp_model q = load(HF_DIR "qwen2.5-vl-7b/config.json");
    tp_vision_flops vf;
    q.vision.image_tokens = 1024;
    tp__vision_flops(&q, s, true, &vf);
    double fq = 3420;
    double span = (4 * 1024.0 + 28 * 64.0) / 32;
    assert_rel(vf.encoder,
               2 * N * 1176 * h + 32 * N * (2 * (4 * h * h + 3 * h * fq) + 4 * span * h), 1e-12);
}

/* Frozen: no gradients or optimizer state for the encoder, no stored activations. */
static void test_frozen_memory(void **state)
{
    (void)state;
    tp_model m = load(HF_DIR "gemma-3-4b/config.json");
    tp_config c = fixture_config(m);
    c.train.seq_len = 4096;
    tp_result tr = eval_ok(&c);
    c.model.vision.frozen = true;
    tp_result fr = eval_ok(&c);
    double enc = (double)tr.params.vision;
    assert_true(same(fr.memory.weights_bytes, tr.memory.weights_bytes));
    assert_rel(tr.memory.grads_bytes - fr.memory.grads_bytes, 2 * enc, 1e-12);
    assert_rel(tr.memory.optimizer_bytes - fr.memory.optimizer_bytes, 12 * enc, 1e-12);
    assert_true(same(fr.memory.frozen_params, enc));
    /* the trained tower stores per patch per block 16 h_v + 4 a_v + 4 f_v
     * bytes and 2 x 588 bytes of pixels; the projector 2 x 1152 per token */
    double N = 4096, hv = 1152, tower = N * (27 * (16 * hv + 4 * 16 + 4 * 4304) + 2 * 588);
    double proj = N / 16 * 2 * hv;
    assert_rel(tr.memory.activations_bytes - fr.memory.activations_bytes, tower, 1e-12);
    c.model.vision.image_tokens = 0;
    tp_result zero = eval_ok(&c);
    assert_rel(fr.memory.activations_bytes - zero.memory.activations_bytes, proj, 1e-12);
}

/* mllama: 8 cross layers, every 5th from 3; per stage; their FLOPs by hand. */
static void test_cross_layers(void **state)
{
    (void)state;
    tp_model m = load(HF_DIR "llama-3.2-11b-vision/config.json");
    assert_int_equal(tp__vision_cross_in(&m, 0, 40), 8);
    assert_int_equal(tp__vision_cross_in(&m, 0, 10), 2);  /* 3, 8 */
    assert_int_equal(tp__vision_cross_in(&m, 10, 10), 2); /* 13, 18 */
    assert_int_equal(tp__vision_cross_in(&m, 4, 4), 0);   /* 4..7 */
    assert_int_equal(tp__vision_cross_in(&m, 38, 2), 1);  /* 38 */
    double s = 4096, H = 4096, q = 4096, kv = 1024, n = 6404;
    tp_vision_flops vf;
    tp__vision_flops(&m, s, true, &vf);
    double self_core = 2 * s * (q + q) * 0.5;
    assert_rel(vf.cross_per_layer, 4 * H * kv * (n - s) + 4 * s * n * q - s * self_core, 1e-12);
    assert_rel(vf.cross, 8 * vf.cross_per_layer, 1e-12);
    /* under PP 4 every stage holds 2 cross layers; the run evaluates */
    tp_config c = fixture_config(m);
    c.train.num_gpus = 8;
    c.train.pp = 4;
    c.train.tp = 2;
    c.train.global_batch = 16;
    c.train.seq_len = 4096;
    tp_result r = eval_ok(&c);
    assert_true(r.time.step_s > 0.0 && r.memory.total_bytes > 0.0);
}

/* No vision tower is today's text model, byte for byte: the VLM with its
 * tower removed evaluates exactly as the language model's own config. */
static void test_no_tower_is_the_text_model(void **state)
{
    (void)state;
    tp_model vlm = load(HF_DIR "qwen2.5-vl-7b/config.json");
    tp_model text = load(HF_DIR "qwen2.5-7b/config.json");
    memset(&vlm.vision, 0, sizeof vlm.vision);
    static const int64_t tps[] = {1, 2, 4}, pps[] = {1, 2, 4};
    for (size_t i = 0; i < 3; i++) {
        for (size_t j = 0; j < 3; j++) {
            tp_config a = fixture_config(vlm), b = fixture_config(text);
            a.train.num_gpus = b.train.num_gpus = 16;
            a.train.tp = b.train.tp = tps[i];
            a.train.pp = b.train.pp = pps[j];
            a.train.zero = b.train.zero = 1;
            a.train.global_batch = b.train.global_batch = 64;
            a.train.recompute = b.train.recompute = TP_RECOMPUTE_SELECTIVE;
            tp_result ra = eval_ok(&a), rb = eval_ok(&b);
            assert_memory_equal(&ra, &rb, sizeof ra);
        }
    }
    /* and a tower with no image tokens changes the FLOPs of no token */
    tp_model full = load(HF_DIR "qwen2.5-vl-7b/config.json");
    tp_config a = fixture_config(full), b = fixture_config(text);
    tp_result ra = eval_ok(&a), rb = eval_ok(&b);
    assert_true(same(ra.flops.model_per_token, rb.flops.model_per_token));
    assert_true(ra.memory.weights_bytes > rb.memory.weights_bytes);
}

/* The search over a VLM: every candidate evaluates as tp_eval does, and
 * pruning (its states bound leaves the tower out) keeps the feasible set. */
static void test_search_vlm(void **state)
{
    (void)state;
    tp_config c = fixture_config(load(HF_DIR "llama-3.2-11b-vision/config.json"));
    c.train.num_gpus = 32;
    c.train.seq_len = 4096;
    c.train.global_batch = 64;
    c.model.vision.frozen = true;
    tp_search_space a, b;
    tp_search_space_default(&a);
    a.verify = true;
    b = a;
    b.no_prune = true;
    tp_search_stats sa, sb;
    size_t na, nb;
    tp_search_item *ta = calloc(8, sizeof *ta), *tb = calloc(8, sizeof *tb);
    assert_non_null(ta);
    assert_non_null(tb);
    assert_int_equal(tp_search_top(&c, &a, TP_RANK_TIME, ta, 8, &na, &sa, NULL), TP_OK);
    assert_int_equal(tp_search_top(&c, &b, TP_RANK_TIME, tb, 8, &nb, &sb, NULL), TP_OK);
    assert_int_equal(sa.verify_failures, 0);
    assert_int_equal(sa.feasible, sb.feasible);
    assert_true(na > 0 && na == nb);
    for (size_t i = 0; i < na; i++) {
        /* the tower's 16 heads bound TP (TP 32 would not divide them) */
        assert_int_equal(16 % ta[i].config.train.tp, 0);
        assert_rel(ta[i].result.time.step_s, tb[i].result.time.step_s, 1e-12);
    }
    free(ta);
    free(tb);
}

static void expect_parse_error(const char *text, const char *path, const char *message)
{
    tp_model m;
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_status st = tp_io_model_parse(text, "tests/error.json", &m, &err);
    if (st == TP_OK || strcmp(err.path, path) != 0 || strcmp(err.message, message) != 0) {
        print_error("input %s\ngot %s [%s] %s\nwant [%s] %s\n", text, tp_strerror(st), err.path,
                    err.message, path, message);
        fail();
    }
}

#define MLLAMA_TEXT(cross)                                                                         \
    "\"text_config\":{\"hidden_size\":64,\"num_hidden_layers\":10,\"num_attention_heads\":4,"      \
    "\"intermediate_size\":128,\"vocab_size\":100,\"cross_attention_layers\":" cross "}"
#define MLLAMA_VISION                                                                              \
    "\"vision_config\":{\"hidden_size\":32,\"num_hidden_layers\":2,\"num_global_layers\":1,"       \
    "\"attention_heads\":2,\"intermediate_size\":64,\"patch_size\":14,\"image_size\":56,"          \
    "\"vision_output_dim\":96,\"supported_aspect_ratios\":[[1,1]]}"

/* What cannot be counted is refused, naming the field. */
static void test_refusals(void **state)
{
    (void)state;
    /* a small mllama is read */
    tp_model m;
    tp_error err;
    const char *ok = "{\"model_type\":\"mllama\"," MLLAMA_TEXT("[1,4,7]") "," MLLAMA_VISION "}";
    assert_int_equal(tp_io_model_parse(ok, "x.json", &m, &err), TP_OK);
    assert_int_equal(tp_model_num_cross_layers(&m), 3);
    expect_parse_error("{\"model_type\":\"mllama\"," MLLAMA_TEXT("[1,4,8]") "," MLLAMA_VISION "}",
                       "text_config.cross_attention_layers",
                       "\"text_config.cross_attention_layers\" is not a pattern trainplan can "
                       "express (every n-th layer from the first)");
    expect_parse_error("{\"model_type\":\"mllama\"," MLLAMA_TEXT("[1,4]") "," MLLAMA_VISION "}",
                       "text_config.cross_attention_layers",
                       "\"text_config.cross_attention_layers\" stops before the last layer of its "
                       "pattern (every 3-th from 1): not a pattern trainplan can express");
    expect_parse_error("{\"model_type\":\"mllama\"," MLLAMA_TEXT("[1,4,7]") "}", "vision_config",
                       "missing object \"vision_config\" (HF config.json, model_type mllama): a "
                       "vision-language config needs its vision tower");
    expect_parse_error("{\"model_type\":\"gemma3\",\"text_config\":{},\"vision_config\":"
                       "{\"vision_use_head\":true}}",
                       "vision_config.vision_use_head",
                       "\"vision_config.vision_use_head\": true (SigLIP's attention-pooling head) "
                       "is not counted: Gemma 3 builds its tower without it");
    expect_parse_error("{\"model_type\":\"qwen2_vl\",\"hidden_size\":64,\"num_hidden_layers\":2,"
                       "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100,"
                       "\"vision_config\":{\"depth\":2,\"embed_dim\":32,\"mlp_ratio\":4,"
                       "\"num_heads\":2,\"hidden_size\":48,\"patch_size\":14,"
                       "\"spatial_merge_size\":2,\"temporal_patch_size\":2}}",
                       "vision_config.hidden_size",
                       "the merger's output width 48 must be the language model's hidden_size 64");
    expect_parse_error(
        "{\"model_type\":\"falcon\",\"hidden_size\":64,\"num_hidden_layers\":2,"
        "\"num_attention_heads\":4,\"vocab_size\":100,\"activation\":\"relu\"}",
        "activation",
        "\"activation\" must be \"gelu\" (the Falcon MLP trainplan counts), got relu");

    /* the nested keys a VLM config sets and the count does not use are listed */
    char ignored[1024];
    const char *vlm = "{\"model_type\":\"mllama\",\"image_token_index\":1," MLLAMA_TEXT(
        "[1,4,7]") ",\"vision_config\":{\"hidden_size\":32,\"norm_eps\":1e-5}}";
    assert_int_equal(tp_io_hf_ignored(vlm, ignored, sizeof ignored), 2);
    assert_string_equal(ignored, "image_token_index, vision_config.norm_eps");

    /* the library refuses vision settings without a tower, and a partial merge group */
    tp_model t = llama(4, 64, 4, 0, 128, 100, false);
    t.vision.image_tokens = 16;
    tp_params p;
    assert_int_equal(tp_model_params(&t, 0, &p, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "model.vision.layers");
    tp_model q = load(HF_DIR "qwen2-vl-7b/config.json");
    q.vision.image_tokens = 1022;
    assert_int_equal(tp_model_params(&q, 0, &p, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "model.vision.image_tokens");
    assert_string_equal(err.message, "1022 image tokens per sample are not a whole number of "
                                     "merged groups of 4 patches");

    /* exports refuse rather than write the language model alone */
    tp_config c = fixture_config(load(HF_DIR "gemma-3-4b/config.json"));
    tp_result r = eval_ok(&c);
    tp_export_opts o;
    memset(&o, 0, sizeof o);
    tp_export out;
    assert_int_equal(tp_io_export(TP_EXPORT_MEGATRON, &c, &r, &o, &out, &err), TP_ERR_CONFIG);
    assert_string_equal(err.path, "model.vision");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vlm_counts),   cmocka_unit_test(test_falcon_counts),
        cmocka_unit_test(test_vision_flops), cmocka_unit_test(test_frozen_memory),
        cmocka_unit_test(test_cross_layers), cmocka_unit_test(test_no_tower_is_the_text_model),
        cmocka_unit_test(test_search_vlm),   cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
