/* SPDX-License-Identifier: MIT */
/*
 * Hardware profiles (src/io/hwprofile.c) and the kernel-level GEMM model
 * they switch on (src/lib/time.c 1b), issue 17:
 *  - a hand-written profile is read exactly: every mapped field to the bit;
 *  - every shipped profile (data/hardware/) loads onto its GPU preset;
 *  - bad profiles fail naming the key, and leave the GPU unchanged;
 *  - the GEMM model's tile and wave quantization, by hand.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "io.h"
#include "io_internal.h"
#include "time_internal.h"
#include "validate.h"

#define HW_DIR TP_SOURCE_DIR "/data/hardware/"

/* Bit-exact equality of two doubles ("read exactly"), without -Wfloat-equal. */
#define assert_same(got, want)                                                                     \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (memcmp(&g_, &w_, sizeof g_) != 0) {                                                    \
            print_error("%s = %.17g, want %.17g\n", #got, g_, w_);                                 \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

static tp_gpu gpu(const char *name)
{
    tp_gpu g;
    tp_error err;
    assert_int_equal(tp_io_gpu_load(name, &g, &err), TP_OK);
    return g;
}

/* H100 SXM: bf16 989.4, fp8 1978.9 TFLOP/s, HBM 3350 GB/s, NVLink 450, NIC 50 GB/s. */
static const char hand[] =
    "{\"format\": \"trainplan-hw-profile-1\", \"name\": \"hand\", \"sm_count\": 132,\n"
    " \"gemm_tile\": [256, 128],\n"
    " \"matmul_tflops\": {\"bf16\": 791.52, \"fp8\": 1187.34},\n"
    " \"hbm_gb_per_s\": 3015,\n"
    " \"collectives\": [\n"
    "  {\"op\": \"all_gather\", \"link\": \"nvlink\", \"gpus\": 8, \"gpus_per_node\": 8,\n"
    "   \"points\": [[8192, 1.75], [8589934592, 360]]},\n"
    "  {\"op\": \"all_reduce\", \"link\": \"nvlink\", \"gpus\": 8,\n"
    "   \"points\": [[8589934592, 480]]},\n"
    "  {\"op\": \"send_recv\", \"link\": \"network\", \"gpus\": 2, \"gpus_per_node\": 1,\n"
    "   \"points\": [[4096, 0.5], [8589934592, 45]]},\n"
    "  {\"op\": \"all_reduce\", \"link\": \"network\", \"gpus\": 16, \"gpus_per_node\": 8,\n"
    "   \"points\": [[8589934592, 338]]}]}\n";

static void test_hand_written_exact(void **state)
{
    (void)state;
    tp_gpu g = gpu("h100-sxm");
    tp_error err;
    assert_int_equal(tp_io_hw_profile_parse(hand, &g, &err), TP_OK);
    assert_same(g.eff.sm_count, 132.0);
    assert_same(g.eff.tile_m, 256.0);
    assert_same(g.eff.tile_n, 128.0);
    assert_same(g.eff.mamf, 791.52e12 / 989.4e12);
    assert_same(g.eff.mamf_fp8, 1187.34e12 / 1978.9e12);
    assert_same(g.eff.mem_bw, 3015e9 / 3350e9);
    /* the ring collective (all-gather) is preferred to the NVLS all-reduce */
    assert_same(g.eff.intra_bw, 360e9 / 450e9);
    /* latency per step: 8192 B * 7/8 / 1.75 GB/s over 7 steps */
    assert_same(g.eff.intra_lat_s, 8192.0 * (7.0 / 8.0) / 1.75e9 / 7.0);
    assert_same(g.eff.inter_bw, 45e9 / 50e9);
    assert_same(g.eff.inter_lat_s, 4096.0 / 0.5e9);
    /* the GEMM fraction stays (unused by the shape model); the constants
     * fitted with the profile model replace the others (calib.c) */
    tp_gpu d = gpu("h100-sxm");
    assert_same(g.eff.gemm, d.eff.gemm);
    assert_same(g.eff.gemm_sw, 0.8250);
    /* no attention_tflops: the kernel rate is 0.92 of the measured matmul
     * rate, times the fitted step share (calib.c) */
    assert_same(g.eff.attn_kernel, 0.0);
    assert_same(g.eff.attn, 0.5307 * (791.52e12 / 989.4e12 * 0.92));
    assert_same(g.eff.overlap, 0.5820);
    /* a profile of the user's own is not a shipped one: the reports name none */
    assert_string_equal(d.hw_profile, "h100-sxm");
    assert_string_equal(g.hw_profile, "");
    /* the 500 W part: no clock factor since issue 17's fourth round (its
     * peaks are derived from the datasheets; calib.c) */
    tp_gpu w = gpu("h100-sxm");
    snprintf(w.name, sizeof w.name, "h100-96gb-500w");
    tp_error err2;
    assert_int_equal(tp_io_hw_profile_parse(hand, &w, &err2), TP_OK);
    assert_same(w.eff.gemm_sw, 0.8250);
    assert_same(w.eff.attn, 0.5307 * (791.52e12 / 989.4e12 * 0.92));
    /* a measured attention kernel: its rate, not the matmul's */
    static const char with_attn[] =
        "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132,\n"
        " \"matmul_tflops\": {\"bf16\": 791.52}, \"attention_tflops\": {\"bf16\": 612.5},\n"
        " \"attention_source\": \"hand\"}\n";
    tp_gpu a = gpu("h100-sxm");
    assert_int_equal(tp_io_hw_profile_parse(with_attn, &a, &err2), TP_OK);
    assert_same(a.eff.attn_kernel, 612.5e12 / 989.4e12);
    assert_same(a.eff.attn, 0.5307 * (612.5e12 / 989.4e12));
    /* --fitted-gemm drops it with the rest of the kernel model */
    tp_io_gpu_fitted_gemm(&a);
    assert_same(a.eff.attn_kernel, 0.0);
    tp_gpu f = gpu("h100-sxm");
    tp_io_gpu_fitted_gemm(&f);
    assert_same(a.eff.attn, f.eff.attn);
    /* a measured host link (the probe's slower direction) replaces the
     * preset's, which h100-sxm leaves unstated */
    static const char with_link[] =
        "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132,\n"
        " \"matmul_tflops\": {\"bf16\": 791.52}, \"host_link_gb_per_s\": 53.4,\n"
        " \"host_link_source\": \"hand\"}\n";
    tp_gpu h = gpu("h100-sxm");
    assert_same(h.host_link_bytes_per_s, 0.0);
    assert_int_equal(tp_io_hw_profile_parse(with_link, &h, &err2), TP_OK);
    assert_same(h.host_link_bytes_per_s, 53.4e9);
    assert_same(g.host_link_bytes_per_s, 0.0); /* none in the profile: unchanged */
}

static void test_shipped_profiles_load(void **state)
{
    (void)state;
    static const char *const names[] = {"a100-40gb", "a100-80gb", "h100-sxm", "h200",
                                        "b200",      "gb200",     "mi300x"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        tp_gpu g = gpu(names[i]);
        char path[512];
        snprintf(path, sizeof path, HW_DIR "%s.json", names[i]);
        tp_error err;
        assert_int_equal(tp_io_hw_profile_load(path, &g, &err), TP_OK);
        assert_true(g.eff.sm_count >= 100.0 && g.eff.mamf > 0.5 && g.eff.mamf < 0.9);
    }
    /* the published H100 figures: MAMF 794.5 of 989.4, NCCL ring 370 of 450 */
    tp_gpu g = gpu("h100-sxm");
    tp_error err;
    assert_int_equal(tp_io_hw_profile_load(HW_DIR "h100-sxm.json", &g, &err), TP_OK);
    assert_same(g.eff.mamf, 794.5e12 / 989.4e12);
    assert_same(g.eff.mamf_fp8, 1402.6e12 / 1978.9e12);
    assert_same(g.eff.intra_bw, 370e9 / 450e9);
    assert_same(g.eff.inter_bw, 47e9 / 50e9);
    /* FlashAttention-3's 740 TFLOP/s (arXiv 2407.08608, abstract) */
    assert_same(g.eff.attn_kernel, 740e12 / 989.4e12);
    assert_same(g.eff.attn, 0.5307 * (740e12 / 989.4e12));
    /* the preset loads the same attention (its "hw_profile") */
    tp_gpu pre = gpu("h100-sxm");
    assert_same(pre.eff.attn, g.eff.attn);
    /* FlashAttention-2's 73% on A100 (arXiv 2307.08691), FlashAttention-4's
     * 1613 TFLOP/s on B200 (arXiv 2603.05451); MI300X measures none: 0.92
     * of its matmul rate, 668.4 of 1307.4 TFLOP/s */
    tp_gpu a100 = gpu("a100-80gb"), b200 = gpu("b200"), mi = gpu("mi300x");
    assert_same(a100.eff.attn_kernel, 227.8e12 / 312e12);
    assert_same(b200.eff.attn_kernel, 1613e12 / 2250e12);
    assert_same(mi.eff.attn_kernel, 0.0);
    assert_same(mi.eff.attn, 0.5307 * (mi.eff.mamf * 0.92));
    /* a shipped file names itself, also on a preset that names none */
    tp_gpu pcie = gpu("h100-pcie");
    assert_string_equal(pcie.hw_profile, "");
    assert_int_equal(tp_io_hw_profile_load(HW_DIR "a100-40gb.json", &pcie, &err), TP_OK);
    assert_string_equal(pcie.hw_profile, "a100-40gb");
    /* the shipped text with one byte more is a file of the user's own */
    const char *shipped = tp_io__hw_profile_text("h100-sxm");
    assert_non_null(shipped);
    size_t len = strlen(shipped);
    char *edited = malloc(len + 2);
    assert_non_null(edited);
    memcpy(edited, shipped, len);
    memcpy(edited + len, " ", 2);
    g = gpu("h100-sxm");
    assert_int_equal(tp_io_hw_profile_parse(edited, &g, &err), TP_OK);
    assert_same(g.eff.mamf, 794.5e12 / 989.4e12);
    assert_string_equal(g.hw_profile, "");
    assert_int_equal(tp_io_hw_profile_parse(shipped, &g, &err), TP_OK);
    assert_string_equal(g.hw_profile, "h100-sxm");
    free(edited);
}

static void expect_bad(const char *gpu_name, const char *text, const char *path, const char *msg)
{
    tp_gpu g = gpu(gpu_name), before = g;
    tp_error err;
    memset(&err, 0, sizeof err);
    assert_int_not_equal(tp_io_hw_profile_parse(text, &g, &err), TP_OK);
    assert_string_equal(err.path, path);
    assert_string_equal(err.message, msg);
    assert_memory_equal(&g, &before, sizeof g);
}

static void test_bad_profiles(void **state)
{
    (void)state;
    expect_bad("h100-sxm", "{\"format\": \"x\"}", "format",
               "\"format\" must be \"trainplan-hw-profile-1\" (a trainplan hardware profile)");
    expect_bad("h100-sxm",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132, \"speed\": 1}", "",
               "unknown key \"speed\"");
    expect_bad("h100-sxm",
               "{\"format\": \"trainplan-hw-profile-1\", \"matmul_tflops\": {\"bf16\": 1}}",
               "sm_count", "missing key \"sm_count\"");
    expect_bad("h100-sxm",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132, "
               "\"matmul_tflops\": {\"bf16\": 791.52}, \"host_link_gb_per_s\": 2e4}",
               "host_link_gb_per_s", "\"host_link_gb_per_s\" must be a number in [0.001, 10000]");
    expect_bad("h100-sxm",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 13.5, "
               "\"matmul_tflops\": {\"bf16\": 1}}",
               "sm_count", "\"sm_count\" must be a whole number");
    /* an H100 profile on an A100: 794.5 > 312 */
    expect_bad("a100-80gb",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132, "
               "\"matmul_tflops\": {\"bf16\": 794.5}}",
               "matmul_tflops.bf16",
               "\"matmul_tflops.bf16\" (794.5 TFLOP/s) is 2.55 of the peak of GPU a100-80gb "
               "(312 TFLOP/s): a measured rate must be in [0.001, 1] of it (a profile of "
               "another GPU?)");
    expect_bad("a100-80gb",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 108, "
               "\"matmul_tflops\": {\"bf16\": 270, \"fp8\": 500}}",
               "matmul_tflops.fp8",
               "\"matmul_tflops.fp8\" is given but GPU a100-80gb has no such peak");
    expect_bad("h100-sxm",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132, "
               "\"matmul_tflops\": {\"bf16\": 790}, \"collectives\": [{\"op\": \"all_gather\", "
               "\"link\": \"nvlink\", \"gpus\": 8, \"points\": [[1024, 1], [512, 2]]}]}",
               "collectives[0].points[1]",
               "\"collectives[0].points[1]\": message sizes must increase");
    expect_bad("h100-sxm",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132, "
               "\"matmul_tflops\": {\"bf16\": 790}, \"attention_tflops\": 600}",
               "attention_tflops",
               "\"attention_tflops\" must be an object of the measured forward TFLOP/s of the "
               "attention kernel by dtype (bf16 required)");
    expect_bad("h100-sxm",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132, "
               "\"matmul_tflops\": {\"bf16\": 790}, \"attention_tflops\": {\"fp8\": 900}}",
               "attention_tflops", "unknown key \"attention_tflops.fp8\"");
    expect_bad("a100-80gb",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 108, "
               "\"matmul_tflops\": {\"bf16\": 270}, \"attention_tflops\": {\"bf16\": 740}}",
               "attention_tflops.bf16",
               "\"attention_tflops.bf16\" (740 TFLOP/s) is 2.37 of the peak of GPU a100-80gb "
               "(312 TFLOP/s): a measured rate must be in [0.001, 1] of it (a profile of "
               "another GPU?)");
    expect_bad("h100-sxm",
               "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132, "
               "\"matmul_tflops\": {\"bf16\": 790}, \"collectives\": [{\"op\": \"bcast\", "
               "\"link\": \"nvlink\", \"gpus\": 8, \"points\": [[1024, 1]]}]}",
               "collectives[0].op",
               "\"collectives[0].op\" must be one of all_reduce, all_gather, reduce_scatter, "
               "all_to_all, send_recv");
}

/* Llama 3 8B on one GPU, one sequence of seq_len tokens per step, on the
 * GPU it is given afterwards. */
static void llama8b_one_gpu(tp_config *c, int64_t seq_len)
{
    memset(c, 0, sizeof *c);
    tp_error err;
    assert_int_equal(tp_io_model_load("llama-3-8b", &c->model, &err), TP_OK);
    tp_train_default(&c->train);
    tp_options_default(&c->opts);
    c->train.num_gpus = 1;
    c->train.seq_len = seq_len;
    c->train.micro_batch = 1;
    c->train.global_batch = 1;
}

/* One GEMM's forward time through the whole model: a one-layer model whose
 * step is dominated by it is awkward, so test the quantization through the
 * ratio of two estimates that differ only in a shape crossing a wave. */
static double step_s(const tp_gpu *g, int64_t hidden)
{
    tp_config c;
    llama8b_one_gpu(&c, 4096);
    c.model.hidden = hidden;
    c.model.num_heads = hidden / 128;
    c.model.num_kv_heads = hidden / 128;
    c.gpu = *g;
    tp_error err;
    tp_result r;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    return r.time.compute_s;
}

/* The attention kernels by head dim (kernel.c tp__attn_head_dim_factor): the
 * FlashAttention-3 paper's head-dim-64 rates over its head-dim-128 ones,
 * forward 420/579 and backward 422/501 in the 1 : 2.5 FLOP ratio. */
static void test_attn_head_dim(void **state)
{
    (void)state;
    tp_model m;
    memset(&m, 0, sizeof m);
    const double at64 = 3.5 / (579.0 / 420.0 + 2.5 * 501.0 / 422.0);
    assert_true(fabs(at64 - 0.805) < 5e-4);
    m.hidden = 4096;
    m.num_heads = 64; /* 64 */
    assert_same(tp__attn_head_dim_factor(&m), 0.805);
    m.head_dim = 96;
    assert_same(tp__attn_head_dim_factor(&m), 0.805 + (1.0 - 0.805) * 0.5);
    m.head_dim = 128;
    assert_same(tp__attn_head_dim_factor(&m), 1.0);
    m.head_dim = 32;
    assert_same(tp__attn_head_dim_factor(&m), 0.805);
    m.head_dim = 0; /* MLA: the q/k width, 128 + 64 */
    m.qk_nope_head_dim = 128;
    m.qk_rope_head_dim = 64;
    assert_same(tp__attn_head_dim_factor(&m), 1.0);
    /* the kernel-level model applies it, the fitted fractions do not: the
     * same q width in 64-wide heads costs the same FLOPs */
    tp_config c;
    llama8b_one_gpu(&c, 8192);
    tp_error err;
    c.model.num_layers = 2;
    for (int fitted = 0; fitted < 2; fitted++) {
        c.gpu = gpu("h100-sxm");
        if (fitted)
            tp_io_gpu_fitted_gemm(&c.gpu);
        tp_result r128, r64;
        c.model.num_heads = 32;
        c.model.num_kv_heads = 8;
        c.model.head_dim = 128;
        assert_int_equal(tp_eval(&c, &r128, &err), TP_OK);
        c.model.num_heads = 64;
        c.model.num_kv_heads = 16; /* the same K, V widths */
        c.model.head_dim = 64;
        assert_int_equal(tp_eval(&c, &r64, &err), TP_OK);
        if (fitted)
            assert_same(r64.time.compute_s, r128.time.compute_s);
        else
            assert_true(r64.time.compute_s > r128.time.compute_s * 1.01);
    }
}

/* The attention kernels by sequence length (kernel.c tp__attn_seq_factor):
 * the FlashAttention-3 paper's causal forward and backward rates at head
 * dim 128 over their 16k rates, in the 1 : 2.5 FLOP ratio; a kernel call
 * sees the CP rank's block, a windowed layer its window. */
static double seq_factor(tp_config *c, int64_t seq, int64_t cp, int64_t window, int64_t every)
{
    c->train.seq_len = seq;
    c->train.cp = cp;
    c->model.sliding_window = window;
    c->model.global_every = every;
    return tp__attn_seq_factor(c);
}

static void test_attn_seq_len(void **state)
{
    (void)state;
    const double at4k = 3.5 / (616.0 / 579.0 + 2.5 * 561.0 / 542.0);
    const double at512 = 3.5 / (616.0 / 292.0 + 2.5 * 561.0 / 316.0);
    assert_true(fabs(at4k - 0.9585) < 1e-4 && fabs(at512 - 0.5345) < 1e-4);
    assert_same(tp__attn_seq_factor_at(NULL, 4096), at4k);
    assert_same(tp__attn_seq_factor_at(NULL, 512), at512);
    assert_same(tp__attn_seq_factor_at(NULL, 100), at512); /* below the figures: the 512 value */
    assert_same(tp__attn_seq_factor_at(NULL, 16384), 1.0);
    assert_same(tp__attn_seq_factor_at(NULL, 1 << 20), 1.0);
    /* 3k: halfway between 2k and 4k in log2 would be 2^11.5; 2896 is */
    double at2k = tp__attn_seq_factor_at(NULL, 2048);
    double mid = tp__attn_seq_factor_at(NULL, 2048.0 * sqrt(2.0));
    assert_true(fabs(mid - 0.5 * (at2k + at4k)) < 1e-12);
    for (double n = 256; n < 40000; n *= 1.1) /* never falls as the calls grow */
        assert_true(tp__attn_seq_factor_at(NULL, n * 1.1) >= tp__attn_seq_factor_at(NULL, n));

    tp_config c;
    llama8b_one_gpu(&c, 4096);
    assert_same(seq_factor(&c, 4096, 1, 0, 0), at4k);
    assert_same(seq_factor(&c, 8192, 2, 0, 0), at4k); /* CP 2: 4k-token blocks */
    c.train.packed_seq_len = 512;                     /* packed: the example's length */
    assert_same(seq_factor(&c, 8192, 1, 0, 0), at512);
    c.train.packed_seq_len = 0;
    /* every layer windowed at 512 over 16k tokens: the window's rate */
    assert_same(seq_factor(&c, 16384, 1, 512, 0), at512);
    /* one global layer in two: the time-weighted mean of 1 (global, work
     * 1) and the window's factor (work w - w^2/2s over s/2) */
    double local = (512.0 - 512.0 * 512.0 / (2.0 * 16384.0)) / 8192.0;
    double want = (0.5 + 0.5 * local) / (0.5 / 1.0 + 0.5 * local / at512);
    assert_true(fabs(seq_factor(&c, 16384, 1, 512, 2) - want) < 1e-12);
    /* a window as long as the sequence changes nothing */
    assert_same(seq_factor(&c, 4096, 1, 4096, 2), at4k);
    /* the rate charged: the kernel-level model only */
    seq_factor(&c, 2048, 1, 0, 0);
    c.gpu = gpu("h100-sxm");
    tp_attn_rate a = tp_attn_rate_of(&c);
    assert_same(a.seq_rel, at2k);
    assert_same(a.seq_tokens, 2048.0);
    assert_same(a.fraction, c.gpu.eff.attn * at2k);
    tp_io_gpu_fitted_gemm(&c.gpu);
    a = tp_attn_rate_of(&c);
    assert_same(a.seq_rel, 1.0);
}

/* A profile's own attention sweep (hwprofile.c attention_sweep_parse): its
 * causal rows at head dim 128, by seq, forward and backward 1 : 2.5 over
 * the best point; other rows informative; bad rows refused. */
#define SWEEP_HEAD                                                                                 \
    "{\"format\": \"trainplan-hw-profile-1\", \"sm_count\": 132, "                                 \
    "\"matmul_tflops\": {\"bf16\": 794.5}, \"attention\": ["
#define SWEEP_ROW(seq, hd, causal, f, b)                                                           \
    "{\"seq\": " #seq ", \"head_dim\": " #hd ", \"causal\": " #causal ", \"fwd_tflops\": " #f      \
    ", \"bwd_tflops\": " #b ", \"kernel\": \"sdpa\"}"

static void test_attn_sweep(void **state)
{
    (void)state;
    tp_error err;
    tp_gpu g = gpu("h100-sxm");
    const char *text = SWEEP_HEAD SWEEP_ROW(4096, 128, true, 500, 400) ", " SWEEP_ROW(
        1024, 128, true, 300,
        250) ", " SWEEP_ROW(2048, 64, true, 900,
                            900) ", " SWEEP_ROW(2048, 128, false, 900,
                                                900) ", " SWEEP_ROW(8192, 128, true, 520, 420) "]}";
    assert_int_equal(tp_io_hw_profile_parse(text, &g, &err), TP_OK);
    assert_int_equal(g.eff.attn_seq_n, 3); /* the head-dim-64 and non-causal rows left */
    double r1k = 3.5 / (1.0 / 300 + 2.5 / 250), r4k = 3.5 / (1.0 / 500 + 2.5 / 400);
    double r8k = 3.5 / (1.0 / 520 + 2.5 / 420);
    assert_same(g.eff.attn_seq_tokens[0], 1024.0);
    assert_same(g.eff.attn_seq_tokens[2], 8192.0);
    assert_same(g.eff.attn_seq_rel[0], r1k / r8k);
    assert_same(g.eff.attn_seq_rel[1], r4k / r8k);
    assert_same(g.eff.attn_seq_rel[2], 1.0);
    /* the rate charged follows the sweep: 2048 tokens halfway in log2 */
    tp_config c;
    llama8b_one_gpu(&c, 2048);
    c.gpu = g;
    tp_attn_rate a = tp_attn_rate_of(&c);
    assert_true(fabs(a.seq_rel - 0.5 * (r1k + r4k) / r8k) < 1e-15);
    c.train.seq_len = 65536; /* beyond the sweep: its last point */
    assert_same(tp_attn_rate_of(&c).seq_rel, 1.0);
    c.train.seq_len = 256; /* before it: its first */
    assert_same(tp_attn_rate_of(&c).seq_rel, r1k / r8k);
    /* one usable row: the built-in shape */
    g = gpu("h100-sxm");
    assert_int_equal(
        tp_io_hw_profile_parse(SWEEP_HEAD SWEEP_ROW(4096, 128, true, 500, 400) "]}", &g, &err),
        TP_OK);
    assert_int_equal(g.eff.attn_seq_n, 0);
    /* --fitted-gemm drops it with the rest of the profile */
    g = gpu("h100-sxm");
    assert_int_equal(tp_io_hw_profile_parse(text, &g, &err), TP_OK);
    tp_io_gpu_fitted_gemm(&g);
    assert_int_equal(g.eff.attn_seq_n, 0);

    expect_bad("h100-sxm", SWEEP_HEAD "3]}", "attention[0]", "\"attention[0]\" must be an object");
    expect_bad("h100-sxm", SWEEP_HEAD SWEEP_ROW(4096.5, 128, true, 500, 400) "]}", "attention[0]",
               "\"attention[0].seq\" must be a whole number");
    expect_bad("h100-sxm", SWEEP_HEAD SWEEP_ROW(4096, 127.5, true, 500, 400) "]}", "attention[0]",
               "\"attention[0].head_dim\" must be a whole number");
    expect_bad("h100-sxm", SWEEP_HEAD SWEEP_ROW(4096, 128, true, 0, 400) "]}",
               "attention[0].fwd_tflops",
               "\"attention[0].fwd_tflops\" must be a number in [0.001, 1e+07]");
    expect_bad("h100-sxm",
               SWEEP_HEAD SWEEP_ROW(4096, 128, true, 500, 400) ", " SWEEP_ROW(4096, 128, true, 510,
                                                                              410) "]}",
               "attention[1]",
               "\"attention[1]\": the causal rows at head dim 128 must be at most 16, one per seq "
               "(seq 4096 repeats or one too many)");
    expect_bad("h100-sxm", SWEEP_HEAD "{\"seq\": 4096, \"causal\": true}]}",
               "attention[0].head_dim", "missing key \"attention[0].head_dim\"");
    /* a hand-built GPU's sweep is checked too */
    g = gpu("h100-sxm");
    g.eff.attn_seq_n = 2;
    g.eff.attn_seq_tokens[0] = 4096;
    g.eff.attn_seq_tokens[1] = 2048;
    g.eff.attn_seq_rel[0] = g.eff.attn_seq_rel[1] = 1.0;
    assert_int_not_equal(tp_gpu_validate(&g, &err), TP_OK);
    assert_string_equal(err.message, "eff.attn_seq point 1 of h100-sxm (2048 tokens, 1): tokens "
                                     "must increase from 1, rates be in [0.001, 1]");
    g.eff.attn_seq_n = 1;
    assert_int_not_equal(tp_gpu_validate(&g, &err), TP_OK);
    assert_string_equal(err.message, "eff.attn_seq_n of h100-sxm is 1: 0, or 2 to 16 points");
}

/* Host-bound dropless MoE layers (time.c host_floor): with a floor far
 * above the GPU's work every MoE layer costs exactly the floor, a third
 * forward and two thirds backward; a capacity factor, --moe-sync-free and
 * the fitted fractions have none. */
static double moe_compute_s(tp_config *c, double layer_s, double expert_s)
{
    c->gpu.eff.moe_host_layer_s = layer_s;
    c->gpu.eff.moe_host_expert_s = expert_s;
    tp_result r;
    tp_error err;
    assert_int_equal(tp_eval(c, &r, &err), TP_OK);
    return r.time.compute_s + r.time.recompute_s;
}

static void test_moe_host_floor(void **state)
{
    (void)state;
    tp_config c;
    memset(&c, 0, sizeof c);
    tp_error err;
    assert_int_equal(tp_io_model_load("qwen3-30b-a3b", &c.model, &err), TP_OK);
    c.gpu = gpu("h100-sxm");
    assert_same(c.gpu.eff.moe_host_layer_s, 3.3984e-3);
    assert_same(c.gpu.eff.moe_host_expert_s, 0.5547e-3);
    tp_train_default(&c.train);
    tp_options_default(&c.opts);
    c.train.num_gpus = 8;
    c.train.ep = 8;
    c.train.seq_len = 4096;
    c.train.micro_batch = 1;
    c.train.global_batch = 16; /* 2 micro-batches per GPU */
    double L = (double)c.model.num_layers, m = 2.0, local = 128.0 / 8.0;
    /* 0.5 s and 0.6 s a layer: 48 layers x 2 micro-batches x 0.1 s apart */
    double a = moe_compute_s(&c, 0.5, 0.0), b = moe_compute_s(&c, 0.6, 0.0);
    assert_true(fabs((b - a) - L * m * 0.1) < 1e-9);
    /* the per-expert share: 16 local experts */
    double e = moe_compute_s(&c, 0.5, 0.01);
    assert_true(fabs((e - a) - L * m * local * 0.01) < 1e-9);
    /* full recompute re-runs the forward: a third more */
    c.train.recompute = TP_RECOMPUTE_FULL;
    double fa = moe_compute_s(&c, 0.5, 0.0), fb = moe_compute_s(&c, 0.6, 0.0);
    assert_true(fabs((fb - fa) - L * m * 0.1 * 4.0 / 3.0) < 1e-9);
    c.train.recompute = TP_RECOMPUTE_NONE;
    /* no floor: sync-free, a capacity factor (token drop, padded) */
    double none = moe_compute_s(&c, 0.0, 0.0);
    c.opts.moe_sync_free = true;
    assert_same(moe_compute_s(&c, 0.5, 0.01), none);
    c.opts.moe_sync_free = false;
    c.model.moe_capacity_factor = 1.0;
    assert_same(moe_compute_s(&c, 0.5, 0.01), none);
    /* --fitted-gemm: no floor constants */
    tp_gpu f = gpu("h100-sxm");
    tp_io_gpu_fitted_gemm(&f);
    assert_same(f.eff.moe_host_layer_s, 0.0);
    assert_same(f.eff.moe_host_expert_s, 0.0);
}

static void test_shape_model_switch(void **state)
{
    (void)state;
    tp_gpu fitted = gpu("h100-sxm"), prof = fitted;
    tp_io_gpu_fitted_gemm(&fitted); /* the preset's default is the profile model */
    tp_error err;
    assert_int_equal(tp_io_hw_profile_load(HW_DIR "h100-sxm.json", &prof, &err), TP_OK);
    /* the profile changes the compute time; without one nothing changes.
     * At hidden 4096 the two models agree to 0.3% since the profile
     * constants' refit (calib.c), so the check takes 8192 (2.7% apart) */
    double a = step_s(&fitted, 8192), b8 = step_s(&prof, 8192);
    assert_true(a > 0.0 && b8 > 0.0 && fabs(a / b8 - 1.0) > 0.01);
    double b = step_s(&prof, 4096);
    /* gemm_sw scales the GEMM part only: halving it adds less than 2x */
    tp_gpu half = prof;
    half.eff.gemm_sw = 0.5;
    double c = step_s(&half, 4096);
    assert_true(c > 1.3 * b && c < 2.0 * b);
}

/* The fitted-fraction GPU of a preset: its eff as tp_gpu_default_eff gives it. */
static tp_gpu fitted_of(const char *name)
{
    tp_gpu g = gpu(name);
    memset(&g.eff, 0, sizeof g.eff);
    memset(g.hw_profile, 0, sizeof g.hw_profile);
    tp_gpu_default_eff(&g);
    return g;
}

/* The presets' default GEMM model is their shipped profile's GEMM part
 * (issue 17): the measured rates as fractions of the preset's own peaks,
 * the profile constants of calib.c; the HBM and collective fractions stay
 * the defaults (only --hw-profile FILE applies those). */
static void test_preset_default_profile(void **state)
{
    (void)state;
    tp_gpu g = gpu("h100-sxm"), f = fitted_of("h100-sxm");
    assert_same(g.eff.sm_count, 132.0);
    assert_same(g.eff.tile_m, 128.0);
    assert_same(g.eff.tile_n, 256.0);
    assert_same(g.eff.mamf, 794.5e12 / 989.4e12);
    assert_same(g.eff.mamf_fp8, 1402.6e12 / 1978.9e12);
    assert_same(g.eff.gemm_sw, 0.8250);
    assert_same(g.eff.attn_kernel, 740e12 / 989.4e12);
    assert_same(g.eff.attn, 0.5307 * (740e12 / 989.4e12));
    assert_same(g.eff.overlap, 0.5820);
    assert_same(g.eff.mem_bw, f.eff.mem_bw);
    assert_same(g.eff.intra_bw, f.eff.intra_bw);
    assert_same(g.eff.inter_bw, f.eff.inter_bw);
    assert_same(g.eff.intra_lat_s, f.eff.intra_lat_s);
    assert_string_equal(g.hw_profile, "h100-sxm");
    /* --fitted-gemm: exactly the fitted-fraction GPU again, no profile named */
    tp_io_gpu_fitted_gemm(&g);
    assert_memory_equal(&g, &f, sizeof g);
    assert_same(g.eff.gemm, 0.7156);
    assert_same(g.eff.attn, 0.3209);
    assert_same(g.eff.overlap, 0.8711);
    /* the H800 names h100-sxm's profile (the same die, SMs and peaks) */
    tp_gpu h8 = gpu("h800"), h1 = gpu("h100-sxm");
    assert_memory_equal(&h8.eff, &h1.eff, sizeof h8.eff);
    assert_string_equal(h8.hw_profile, "h100-sxm");
    /* the PCIe H100 names none: the fitted fractions */
    tp_gpu pcie = gpu("h100-pcie"), pf = fitted_of("h100-pcie");
    assert_memory_equal(&pcie, &pf, sizeof pcie);
    /* the A100 40 GB: its own profile, 271.2 of 312 TFLOP/s, no fp8 */
    tp_gpu a = gpu("a100-40gb");
    assert_same(a.eff.sm_count, 108.0);
    assert_same(a.eff.mamf, 271.2e12 / 312e12);
    assert_same(a.eff.mamf_fp8, 0.0);
    assert_same(a.eff.attn, 0.5307 * (227.8e12 / 312e12));
    /* the reports name the model and the profile */
    tp_io_gemm_model gm;
    tp_io_gemm_model_of(&h8, TP_PREC_FP8, &gm);
    assert_true(gm.kernel);
    assert_string_equal(gm.profile, "h100-sxm");
    assert_same(gm.rate, 1402.6e12 / 1978.9e12);
    assert_same(gm.gemm_sw, 0.8250);
    tp_io_gemm_model_of(&g, TP_PREC_BF16, &gm);
    assert_false(gm.kernel);
    assert_same(gm.rate, 0.7156);
    /* a profile from a file (--hw-profile) is not the preset's */
    tp_gpu hand_gpu = gpu("h100-sxm");
    tp_error err;
    assert_int_equal(tp_io_hw_profile_parse(hand, &hand_gpu, &err), TP_OK);
    tp_io_gemm_model_of(&hand_gpu, TP_PREC_BF16, &gm);
    assert_true(gm.kernel);
    assert_string_equal(gm.profile, "");
}

/* validate --eff: an override of the profile's GEMM part to another value
 * means the GPU no longer runs the shipped profile, so the reports must
 * not name it; gemm_sw, attn or the same value leave the name. */
static void test_eff_override_drops_name(void **state)
{
    (void)state;
    static const struct {
        const char *list, *profile;
    } cases[] = {
        {"gemm_sw=0.5,attn=0.4", "h100-sxm"},
        {"sm_count=132", "h100-sxm"},
        {"h100-sxm:tile_m=128", "h100-sxm"},
        {"a100:mamf=0.5", "h100-sxm"},
        {"sm_count=100", ""},
        {"tile_m=64", ""},
        {"tile_n=128", ""},
        {"mamf=0.5", ""},
        {"mamf_fp8=0", ""},
        {"h100:mamf=0.5", ""},
    };
    tp_error err;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *list = cases[i].list;
        tp_io_eff_overrides ov = {.n = 0};
        assert_int_equal(tp_io_eff_overrides_parse(list, &ov, &err), TP_OK);
        tp_gpu g = gpu("h100-sxm");
        tp_io_eff_overrides_apply(&ov, &g);
        tp_io_gemm_model gm;
        tp_io_gemm_model_of(&g, TP_PREC_BF16, &gm);
        if (strcmp(gm.profile, cases[i].profile) != 0)
            fail_msg("--eff %s: profile \"%s\"", list, gm.profile);
    }
}

/* A GPU file may name a shipped profile too; an unknown name fails naming
 * the key, the value and the shipped names. */
static void test_gpu_file_profile(void **state)
{
    (void)state;
    static const char base[] =
        "{\"name\": \"mine\", \"peak_tflops\": {\"bf16\": 989.4, \"fp8\": 1978.9}, "
        "\"memory_mib\": 81559, \"memory_bw_gb_per_s\": 3350, "
        "\"intra_node_gb_per_s\": 450, \"nic_gb_per_s\": 50, "
        "\"gpus_per_node\": 8, \"hw_profile\": \"%s\"}";
    char text[512];
    tp_gpu g;
    tp_error err;
    snprintf(text, sizeof text, base, "h100-sxm");
    assert_int_equal(tp_io_gpu_parse(text, "mine.json", &g, &err), TP_OK);
    assert_same(g.eff.sm_count, 132.0);
    assert_same(g.eff.mamf, 794.5e12 / 989.4e12);
    assert_same(g.eff.mamf_fp8, 1402.6e12 / 1978.9e12);
    assert_same(g.eff.gemm_sw, 0.8250);
    assert_same(g.eff.attn, 0.5307 * (740e12 / 989.4e12));
    assert_string_equal(g.hw_profile, "h100-sxm");
    snprintf(text, sizeof text, base, "h100-nvl");
    memset(&err, 0, sizeof err);
    assert_int_not_equal(tp_io_gpu_parse(text, "mine.json", &g, &err), TP_OK);
    assert_string_equal(err.path, "hw_profile");
    assert_string_equal(
        err.message, "\"hw_profile\" \"h100-nvl\" is not a shipped hardware profile (one of "
                     "a100-40gb, a100-80gb, b200, gb200, h100-96gb-500w, h100-sxm, h200, mi300x, "
                     "data/hardware/)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_written_exact),
        cmocka_unit_test(test_shipped_profiles_load),
        cmocka_unit_test(test_bad_profiles),
        cmocka_unit_test(test_shape_model_switch),
        cmocka_unit_test(test_attn_head_dim),
        cmocka_unit_test(test_attn_seq_len),
        cmocka_unit_test(test_attn_sweep),
        cmocka_unit_test(test_moe_host_floor),
        cmocka_unit_test(test_preset_default_profile),
        cmocka_unit_test(test_gpu_file_profile),
        cmocka_unit_test(test_eff_override_drops_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
