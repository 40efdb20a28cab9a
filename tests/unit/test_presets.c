/* SPDX-License-Identifier: MIT */
/*
 * Presets and loaders (src/io/presets.c, model_parse.c, hf.c, parse.c):
 *  - every embedded preset loads, validates and is named like its file;
 *  - every model preset's params_expected (a published exact count) equals
 *    tp_model_params' total exactly, and the counts the brief names are hit;
 *  - Hugging Face config.json import (tests/data/hf) gives the presets' counts;
 *  - error cases with their exact messages (the text is the contract);
 *  - number parsing and enum names shared with the CLI.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "io.h"

#define HF_DIR TP_SOURCE_DIR "/tests/data/hf/"
#define BYTES_PER_MIB 1048576.0

/* ---- helpers ---- */

static int64_t total_params(const tp_model *m)
{
    tp_params p;
    tp_error err;
    assert_int_equal(tp_model_params(m, 0, &p, &err), TP_OK);
    return p.total;
}

static int64_t active_params(const tp_model *m)
{
    tp_params p;
    tp_error err;
    assert_int_equal(tp_model_params(m, 0, &p, &err), TP_OK);
    return p.active;
}

static tp_model load_model(const char *name)
{
    tp_model m;
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_status st = tp_io_model_load(name, &m, &err);
    if (st != TP_OK) {
        print_error("loading %s: %s: %s: %s\n", name, tp_strerror(st), err.path, err.message);
        fail();
    }
    return m;
}

/* Parse model text and check the error code, path and message exactly. */
static void expect_model_error(const char *text, tp_status code, const char *path,
                               const char *message)
{
    tp_model m;
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_status st = tp_io_model_parse(text, "tests/error.json", &m, &err);
    if (st != code || strcmp(err.path, path) != 0 || strcmp(err.message, message) != 0) {
        print_error("input %s\n got  %s [%s] %s\n want %s [%s] %s\n", text, tp_strerror(st),
                    err.path, err.message, tp_strerror(code), path, message);
        fail();
    }
}

static void expect_gpu_error(const char *text, const char *path, const char *message)
{
    tp_gpu g;
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_status st = tp_io_gpu_parse(text, "tests/error.json", &g, &err);
    if (st != TP_ERR_CONFIG || strcmp(err.path, path) != 0 || strcmp(err.message, message) != 0) {
        print_error("input %s\n got  %s [%s] %s\n want config [%s] %s\n", text, tp_strerror(st),
                    err.path, err.message, path, message);
        fail();
    }
}

/* A valid trainplan model object with one key's value spliced in front. */
#define BASE_MODEL                                                                                 \
    "\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\",\"num_layers\":2,"            \
    "\"hidden\":64,\"num_heads\":4,\"ffn_hidden\":128,\"vocab\":100"

/* ---- the registry ---- */

static const char *const required_models[] = {"gpt3-125m",
                                              "gpt3-350m",
                                              "gpt3-760m",
                                              "gpt3-1.3b",
                                              "gpt3-2.7b",
                                              "gpt3-6.7b",
                                              "gpt3-13b",
                                              "gpt3-175b",
                                              "llama-2-7b",
                                              "llama-2-13b",
                                              "llama-2-70b",
                                              "llama-3-8b",
                                              "llama-3-70b",
                                              "llama-3.1-8b",
                                              "llama-3.1-70b",
                                              "llama-3.1-405b",
                                              "llama-3.2-1b",
                                              "llama-3.2-3b",
                                              "mistral-7b",
                                              "mixtral-8x7b",
                                              "mixtral-8x22b",
                                              "qwen2.5-7b",
                                              "qwen2.5-72b",
                                              "mpt-125m",
                                              "mpt-350m",
                                              "mpt-1b",
                                              "mpt-3b",
                                              "mpt-7b",
                                              "mpt-13b",
                                              "mpt-30b",
                                              "mpt-70b",
                                              "bloom-176b",
                                              "megatron-gpt-1.7b",
                                              "megatron-gpt-3.6b",
                                              "megatron-gpt-7.5b",
                                              "megatron-gpt-18b",
                                              "megatron-gpt-39b",
                                              "megatron-gpt-76b",
                                              "megatron-gpt-145b",
                                              "megatron-gpt-310b",
                                              "megatron-gpt-530b",
                                              "megatron-gpt-1t",
                                              "mcore-gpt-7.1b",
                                              "mcore-gpt-16b",
                                              "mcore-gpt-32b",
                                              "mcore-gpt-119b",
                                              "mcore-gpt-314b",
                                              "mcore-gpt-462b",
                                              NULL};

static const char *const required_gpus[] = {"a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie",
                                            "h800",      "h200",      "b200",     "gb200",
                                            "mi300x",    NULL};

static void test_registry(void **state)
{
    (void)state;
    for (int k = TP_IO_MODEL; k <= TP_IO_GPU; k++) {
        tp_io_kind kind = (tp_io_kind)k;
        size_t n = tp_io_preset_count(kind);
        assert_true(n > 0);
        for (size_t i = 0; i + 1 < n; i++)
            assert_true(strcmp(tp_io_preset_name(kind, i), tp_io_preset_name(kind, i + 1)) < 0);
        assert_null(tp_io_preset_name(kind, n));
    }
    for (size_t i = 0; required_models[i]; i++) {
        if (!tp_io_preset_text(TP_IO_MODEL, required_models[i])) {
            print_error("missing model preset %s\n", required_models[i]);
            fail();
        }
    }
    for (size_t i = 0; required_gpus[i]; i++) {
        if (!tp_io_preset_text(TP_IO_GPU, required_gpus[i])) {
            print_error("missing GPU preset %s\n", required_gpus[i]);
            fail();
        }
    }
    assert_null(tp_io_preset_text(TP_IO_MODEL, "no-such-model"));
    assert_null(tp_io_preset_source(TP_IO_GPU, "no-such-gpu"));
    assert_null(tp_io_preset_text(TP_IO_GPU, "llama-3-8b")); /* kinds are separate */
    assert_null(tp_io_preset_suggest(TP_IO_MODEL, ""));
    assert_null(tp_io_preset_suggest(TP_IO_MODEL, "qqqqqqqqqq"));
    assert_string_equal(tp_io_preset_suggest(TP_IO_MODEL, "llama3-8b"), "llama-3-8b");
    assert_string_equal(tp_io_preset_suggest(TP_IO_GPU, "h100"), "h100-sxm");
    assert_string_equal(tp_io_preset_suggest(TP_IO_GPU, "mi300"), "mi300x");
    assert_string_equal(tp_io_preset_suggest(TP_IO_MODEL, "gpt-3-175b"), "gpt3-175b");
}

/* ---- model presets ---- */

static void test_model_presets_load_and_match_published_counts(void **state)
{
    (void)state;
    size_t n = tp_io_preset_count(TP_IO_MODEL), checked = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = tp_io_preset_name(TP_IO_MODEL, i);
        const char *source = tp_io_preset_source(TP_IO_MODEL, name);
        if (!source || strlen(source) < 20) {
            print_error("%s: no \"source\" citation\n", name);
            fail();
        }
        tp_model m = load_model(name);
        assert_string_equal(m.name, name);

        json_error_t jerr;
        json_t *root = json_loads(tp_io_preset_text(TP_IO_MODEL, name), 0, &jerr);
        assert_non_null(root);
        assert_string_equal(json_string_value(json_object_get(root, "name")), name);
        json_t *expected = json_object_get(root, "params_expected");
        if (expected) {
            int64_t want = (int64_t)json_integer_value(expected);
            int64_t got = total_params(&m);
            if (got != want) {
                print_error("%s: %lld parameters, published %lld\n", name, (long long)got,
                            (long long)want);
                fail();
            }
            checked++;
        }
        json_decref(root);
    }
    /* Every Llama, Mistral, Mixtral, Qwen and MPT preset and GPT-3 175B carry one. */
    assert_true(checked >= 24);
}

static void test_exact_counts(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int64_t total;
    } cases[] = {
        {"llama-2-7b", 6738415616LL},   {"llama-3-8b", 8030261248LL},
        {"llama-3-70b", 70553706496LL}, {"llama-3.1-405b", 405853388800LL},
        {"gpt3-175b", 174604259328LL},  {"mixtral-8x7b", 46702792704LL},
        {"llama-3.2-1b", 1235814400LL}, {"mpt-7b", 6658859008LL},
        {"mpt-70b", 64862437376LL},     {"qwen2.5-7b", 7615616512LL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_model m = load_model(cases[i].name);
        assert_int_equal(total_params(&m), cases[i].total);
    }
    tp_model mixtral = load_model("mixtral-8x7b");
    assert_int_equal(active_params(&mixtral), 12879925248LL);
}

/*
 * BLOOM's published total (176,247,271,424, the HF safetensors sum) includes
 * word_embeddings_layernorm, 2h parameters that tp_model has no field for.
 */
static void test_bloom_embedding_norm_gap(void **state)
{
    (void)state;
    tp_model m = load_model("bloom-176b");
    assert_int_equal(total_params(&m) + 2 * m.hidden, 176247271424LL);
}

/* Reported sizes of the Megatron rows (runs-dev.csv params_reported), 0.1% tolerance. */
static void test_megatron_reported_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double billions;
    } cases[] = {{"megatron-gpt-76b", 76.1},
                 {"megatron-gpt-530b", 529.6},
                 {"megatron-gpt-1t", 1008.0},
                 {"mcore-gpt-7.1b", 7.1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_model m = load_model(cases[i].name);
        assert_rel((double)total_params(&m) / 1e9, cases[i].billions, 5e-3);
    }
}

static void test_case_insensitive_names(void **state)
{
    (void)state;
    tp_model m = load_model("Llama-3-8B");
    assert_string_equal(m.name, "llama-3-8b");
    tp_gpu g;
    tp_error err;
    assert_int_equal(tp_io_gpu_load("H100-SXM", &g, &err), TP_OK);
    assert_string_equal(g.name, "h100-sxm");
}

/* ---- GPU presets ---- */

static void test_gpu_presets(void **state)
{
    (void)state;
    size_t n = tp_io_preset_count(TP_IO_GPU);
    for (size_t i = 0; i < n; i++) {
        const char *name = tp_io_preset_name(TP_IO_GPU, i);
        assert_non_null(tp_io_preset_source(TP_IO_GPU, name));
        tp_gpu g;
        tp_error err;
        memset(&err, 0, sizeof err);
        if (tp_io_gpu_load(name, &g, &err) != TP_OK) {
            print_error("%s: %s: %s\n", name, err.path, err.message);
            fail();
        }
        assert_string_equal(g.name, name);
        assert_true(g.peak_flops_per_s[TP_PREC_BF16] > 0.0);
        assert_true(g.peak_flops_per_s[TP_PREC_FP16] > 0.0);
        assert_true(g.peak_flops_per_s[TP_PREC_TF32] > 0.0);
        assert_true(g.mem_capacity_bytes > 0.0);
        assert_true(g.mem_bw_bytes_per_s > 0.0 && g.intra_bw_bytes_per_s > 0.0 &&
                    g.inter_bw_bytes_per_s > 0.0);
        assert_true(g.gpus_per_node >= 8);
        assert_true(g.price_per_gpu_hour > 0.0);
        assert_true(g.eff.gemm > 0.0 && g.eff.gemm <= 1.0); /* tp_gpu_default_eff ran */

        json_t *root = json_loads(tp_io_preset_text(TP_IO_GPU, name), 0, NULL);
        assert_non_null(root);
        assert_string_equal(json_string_value(json_object_get(root, "name")), name);
        assert_non_null(json_string_value(json_object_get(root, "price_source")));
        assert_rel(g.mem_capacity_bytes,
                   json_number_value(json_object_get(root, "memory_mib")) * BYTES_PER_MIB, 1e-15);
        json_decref(root);
    }

    tp_gpu g;
    tp_error err;
    assert_int_equal(tp_io_gpu_load("h100-sxm", &g, &err), TP_OK);
    assert_rel(g.peak_flops_per_s[TP_PREC_BF16], 989.4e12, 1e-12);
    assert_rel(g.peak_flops_per_s[TP_PREC_FP8], 1978.9e12, 1e-12);
    assert_rel(g.mem_capacity_bytes, 81559.0 * BYTES_PER_MIB, 1e-15);
    assert_rel(g.mem_bw_bytes_per_s, 3350e9, 1e-12);
    assert_rel(g.intra_bw_bytes_per_s, 450e9, 1e-12);
    assert_rel(g.inter_bw_bytes_per_s, 50e9, 1e-12);
    assert_rel(g.price_per_gpu_hour, 4.0, 1e-12);
    assert_int_equal(tp_io_gpu_load("a100-80gb", &g, &err), TP_OK);
    assert_rel(g.peak_flops_per_s[TP_PREC_BF16], 312e12, 1e-12);
    assert_true(g.peak_flops_per_s[TP_PREC_FP8] <= 0.0); /* no FP8 on Ampere */
    assert_rel(g.mem_capacity_bytes, 81920.0 * BYTES_PER_MIB, 1e-15);
    assert_rel(g.price_per_gpu_hour, 4.0, 1e-12);
    assert_int_equal(tp_io_gpu_load("h800", &g, &err), TP_OK);
    assert_rel(g.intra_bw_bytes_per_s, 200e9, 1e-12);
    assert_int_equal(tp_io_gpu_load("gb200", &g, &err), TP_OK);
    assert_int_equal(g.gpus_per_node, 72);
    /* the host side (presets' host_source): NVLink-C2C's 900 GB/s both
     * ways shared by two GPUs, x 346/450 as a GH200 measured; 36 Graces of
     * 480 GB per NVL72 */
    assert_rel(g.host_link_bytes_per_s, 173e9, 1e-12);
    assert_rel(g.host_mem_bytes_per_node, 17280e9, 1e-12);
    /* 36 Graces x 512 GB/s LPDDR5X = 18.4 TB/s, x 0.73 as the DGX H100 default */
    assert_rel(g.host_mem_bw_bytes_per_s, 13450e9, 1e-12);
    assert_int_equal(tp_io_gpu_load("a100-40gb", &g, &err), TP_OK);
    assert_rel(g.host_link_bytes_per_s, 25e9, 1e-12);     /* PCIe Gen4 x16, measured 25.13 */
    assert_rel(g.host_mem_bytes_per_node, 1000e9, 1e-12); /* DGX A100 320GB */
    /* two EPYC 7742 x 8 DDR4-3200 channels = 409.6 GB/s, x 0.73 */
    assert_rel(g.host_mem_bw_bytes_per_s, 300e9, 1e-12);
    assert_int_equal(tp_io_gpu_load("a100-80gb", &g, &err), TP_OK);
    assert_rel(g.host_mem_bytes_per_node, 2000e9, 1e-12); /* DGX A100 640GB */
    assert_rel(g.host_mem_bw_bytes_per_s, 300e9, 1e-12);
    assert_int_equal(tp_io_gpu_load("h100-sxm", &g, &err), TP_OK);
    assert_true(g.host_link_bytes_per_s <= 0.0 && g.host_mem_bytes_per_node <= 0.0 &&
                g.host_mem_bw_bytes_per_s <= 0.0);
    /* compute capability (NVIDIA's list), major x 10 + minor; none for AMD */
    static const struct {
        const char *name;
        int cc;
    } ccs[] = {{"a100-40gb", 80}, {"a100-80gb", 80}, {"h100-sxm", 90},
               {"h100-pcie", 90}, {"h800", 90},      {"h200", 90},
               {"b200", 100},     {"gb200", 100},    {"mi300x", 0}};
    for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
        tp_gpu x;
        assert_int_equal(tp_io_gpu_load(ccs[i].name, &x, &err), TP_OK);
        assert_int_equal(x.compute_capability, ccs[i].cc);
    }

    /* tp_io_host_defaults: a stated side replaces the options' defaults */
    tp_options o;
    tp_options_default(&o);
    tp_io_host_defaults(&g, &o); /* h100-sxm states none */
    assert_rel(o.pcie_bw_bytes_per_s, 50e9, 1e-12);
    assert_rel(o.host_mem_bytes_per_node, 2e12, 1e-12);
    assert_rel(o.host_mem_bw_bytes_per_s, 450e9, 1e-12);
    assert_int_equal(tp_io_gpu_load("gb200", &g, &err), TP_OK);
    tp_io_host_defaults(&g, &o);
    assert_rel(o.pcie_bw_bytes_per_s, 173e9, 1e-12);
    assert_rel(o.host_mem_bytes_per_node, 17280e9, 1e-12);
    assert_rel(o.host_mem_bw_bytes_per_s, 13450e9, 1e-12);
}

/* ---- unknown names ---- */

static void test_unknown_names(void **state)
{
    (void)state;
    tp_model m;
    tp_gpu g;
    tp_error err;
    assert_int_equal(tp_io_model_load("llama3-8b", &m, &err), TP_ERR_UNKNOWN);
    assert_string_equal(err.path, "model");
    assert_string_equal(err.message, "unknown model \"llama3-8b\" (did you mean \"llama-3-8b\"?); "
                                     "run 'trainplan presets' to list them");
    assert_int_equal(tp_io_model_load("zzzzzz", &m, &err), TP_ERR_UNKNOWN);
    assert_string_equal(err.message,
                        "unknown model \"zzzzzz\"; run 'trainplan presets' to list them");
    assert_int_equal(tp_io_gpu_load("h100", &g, &err), TP_ERR_UNKNOWN);
    assert_string_equal(err.path, "gpu");
    assert_string_equal(err.message, "unknown gpu \"h100\" (did you mean \"h100-sxm\"?); run "
                                     "'trainplan presets' to list them");
    assert_int_equal(tp_io_model_load("", &m, &err), TP_ERR_INVALID_ARG);
    assert_int_equal(tp_io_model_load(NULL, &m, &err), TP_ERR_INVALID_ARG);

    /* Paths: '/' or ".json" means a file. */
    assert_int_equal(tp_io_model_load("/nonexistent/model.json", &m, &err), TP_ERR_IO);
    assert_string_equal(err.path, "model");
    assert_string_equal(err.message,
                        "cannot read \"/nonexistent/model.json\": No such file or directory");
    assert_int_equal(tp_io_gpu_load("missing-gpu.json", &g, &err), TP_ERR_IO);
    assert_string_equal(err.message, "cannot read \"missing-gpu.json\": No such file or directory");
    assert_int_equal(tp_io_model_load(HF_DIR, &m, &err), TP_ERR_IO); /* a directory */
}

/* ---- Hugging Face import ---- */

static void test_hf_import(void **state)
{
    (void)state;
    static const char *const names[] = {"llama-3-8b", "mistral-7b", "mixtral-8x7b", "qwen2.5-7b"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, HF_DIR "%s/config.json", names[i]);
        tp_model hf = load_model(path);
        tp_model preset = load_model(names[i]);
        assert_string_equal(hf.name, names[i]); /* named after the folder */
        assert_int_equal(total_params(&hf), total_params(&preset));
        assert_int_equal(active_params(&hf), active_params(&preset));
        assert_int_equal(hf.num_kv_heads, preset.num_kv_heads);
        assert_int_equal(hf.qkv_bias, preset.qkv_bias);
        assert_int_equal(hf.tie_embeddings, preset.tie_embeddings);
    }
    tp_model mixtral = load_model(HF_DIR "mixtral-8x7b/config.json");
    assert_int_equal(total_params(&mixtral), 46702792704LL);
    assert_int_equal(active_params(&mixtral), 12879925248LL);
    assert_int_equal(mixtral.num_experts, 8);
    assert_int_equal(mixtral.topk, 2);

    /* GPT-2 small: llm.c's 124,439,808 (formulas.md 1.1). */
    tp_model gpt2 = load_model(HF_DIR "gpt2/config.json");
    assert_int_equal(total_params(&gpt2), 124439808LL);
    assert_int_equal(gpt2.pos, TP_POS_LEARNED);
    assert_int_equal(gpt2.max_positions, 1024);
    assert_int_equal(gpt2.ffn_hidden, 4 * 768);
    assert_true(gpt2.tie_embeddings);

    /* Without a folder the name is hf-<model_type>; architectures alone is enough. */
    tp_model m;
    tp_error err;
    assert_int_equal(tp_io_model_parse("{\"architectures\":[\"LlamaForCausalLM\"],"
                                       "\"hidden_size\":64,\"num_hidden_layers\":2,"
                                       "\"num_attention_heads\":4,\"intermediate_size\":128,"
                                       "\"vocab_size\":100}",
                                       NULL, &m, &err),
                     TP_OK);
    assert_string_equal(m.name, "hf-llama");
    assert_int_equal(m.norm, TP_NORM_RMSNORM);
    /* gpt_neox: biases, rotary, untied. */
    assert_int_equal(tp_io_model_parse("{\"model_type\":\"gpt_neox\",\"hidden_size\":64,"
                                       "\"num_hidden_layers\":2,\"num_attention_heads\":4,"
                                       "\"intermediate_size\":256,\"vocab_size\":100,"
                                       "\"rotary_pct\":0.25,\"use_parallel_residual\":true}",
                                       "config.json", &m, &err),
                     TP_OK);
    assert_string_equal(m.name, "hf-gpt_neox");
    assert_true(m.linear_bias);
    assert_false(m.tie_embeddings);
    assert_int_equal(m.pos, TP_POS_ROTARY);
}

static void test_hf_errors(void **state)
{
    (void)state;
    expect_model_error("{\"model_type\":\"llama\",\"hidden_size\":4096}", TP_ERR_CONFIG,
                       "num_hidden_layers",
                       "missing key \"num_hidden_layers\" (HF config.json, model_type llama)");
    expect_model_error("{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_head\":12}", TP_ERR_CONFIG,
                       "n_layer", "missing key \"n_layer\" (HF config.json, model_type gpt2)");
    expect_model_error("{\"model_type\":\"bert\"}", TP_ERR_CONFIG, "model_type",
                       "unsupported model_type \"bert\" (HF config.json); supported: llama, "
                       "mistral, mixtral, qwen2, gpt2, gpt_neox, qwen3, qwen3_moe, deepseek_v3, "
                       "kimi_k2, gpt_oss, olmo2, phi3, gemma2, gemma3_text, dbrx, mllama, "
                       "qwen2_vl, qwen2_5_vl, gemma3, falcon, nemotron_h, qwen3_next, jamba, "
                       "llama4_text, llama4");
    expect_model_error("{\"model_type\":\"llama\",\"hidden_size\":\"4096\"}", TP_ERR_CONFIG,
                       "hidden_size", "\"hidden_size\" must be a positive integer, got \"4096\"");
    expect_model_error("{\"model_type\":\"mixtral\",\"hidden_size\":64,\"num_hidden_layers\":2,"
                       "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100}",
                       TP_ERR_CONFIG, "num_local_experts",
                       "missing key \"num_local_experts\" (HF config.json, model_type mixtral)");
    expect_model_error("{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,"
                       "\"num_attention_heads\":4,\"num_key_value_heads\":3,"
                       "\"intermediate_size\":128,\"vocab_size\":100}",
                       TP_ERR_CONFIG, "num_key_value_heads",
                       "\"num_key_value_heads\" (3) must divide \"num_attention_heads\" (4)");
    expect_model_error("{\"model_type\":\"llama\",\"hidden_size\":64,\"num_hidden_layers\":2,"
                       "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100,"
                       "\"attention_bias\":true}",
                       TP_ERR_CONFIG, "attention_bias",
                       "\"attention_bias\": true is not supported for model_type llama "
                       "(trainplan counts biases on q/k/v only or on every linear)");
}

/* ---- trainplan model file errors ---- */

static void test_model_file_errors(void **state)
{
    (void)state;
    /* Syntax: jansson's position and text. */
    tp_model m;
    tp_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(tp_io_model_parse("{\n  \"name\": \"x\",\n  \"norm\": }", "t.json", &m, &err),
                     TP_ERR_PARSE);
    assert_int_equal(err.line, 3);
    assert_int_equal(err.column, 11);
    assert_string_equal(err.message, "invalid JSON: unexpected token near '}'");
    assert_int_equal(tp_io_model_parse("{\"hidden\": 64, \"hidden\": 128}", "t.json", &m, &err),
                     TP_ERR_PARSE);
    assert_int_equal(err.line, 1);
    assert_int_equal(err.column, 23);
    assert_string_equal(err.message, "invalid JSON: duplicate object key near '\"hidden\"'");
    assert_int_equal(tp_io_model_parse("{\"vocab\": 1} trailing", "t.json", &m, &err),
                     TP_ERR_PARSE);
    assert_string_equal(err.message, "invalid JSON: end of file expected near 'trailing'");

    /* Shape of the document. */
    expect_model_error("[1, 2]", TP_ERR_CONFIG, "",
                       "expected a JSON object at the top level, got an array");
    expect_model_error("{" BASE_MODEL ",\"num_layer\":32}", TP_ERR_CONFIG, "num_layer",
                       "unknown key \"num_layer\" (did you mean \"num_layers\"?)");
    expect_model_error("{" BASE_MODEL ",\"colour\":\"red\"}", TP_ERR_CONFIG, "colour",
                       "unknown key \"colour\"");
    expect_model_error("{\"mlp\":\"swiglu\",\"position\":\"rotary\"}", TP_ERR_CONFIG, "norm",
                       "missing key \"norm\" (one of \"layernorm\", \"rmsnorm\")");
    expect_model_error("{\"norm\":\"batchnorm\"}", TP_ERR_CONFIG, "norm",
                       "\"norm\" must be one of \"layernorm\", \"rmsnorm\", got \"batchnorm\"");
    expect_model_error("{\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\"}",
                       TP_ERR_CONFIG, "num_layers", "missing key \"num_layers\"");

    /* Types and ranges. */
    expect_model_error("{" BASE_MODEL ",\"num_layers\":-3}", TP_ERR_PARSE, "",
                       "invalid JSON: duplicate object key near '\"num_layers\"'");
    expect_model_error("{\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\","
                       "\"num_layers\":-3}",
                       TP_ERR_CONFIG, "num_layers",
                       "\"num_layers\" must be a positive integer, got -3");
    expect_model_error("{\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\","
                       "\"num_layers\":\"abc\"}",
                       TP_ERR_CONFIG, "num_layers",
                       "\"num_layers\" must be a positive integer, got \"abc\"");
    expect_model_error("{\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\","
                       "\"num_layers\":2.5}",
                       TP_ERR_CONFIG, "num_layers",
                       "\"num_layers\" must be a positive integer, got 2.5");
    expect_model_error("{\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\","
                       "\"num_layers\":1e30}",
                       TP_ERR_CONFIG, "num_layers",
                       "\"num_layers\" must be a positive integer, got 1e+30");
    expect_model_error("{\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\","
                       "\"num_layers\":200000}",
                       TP_ERR_CONFIG, "num_layers",
                       "\"num_layers\" must be at most 100000, got 200000");
    expect_model_error("{" BASE_MODEL ",\"linear_bias\":1}", TP_ERR_CONFIG, "linear_bias",
                       "\"linear_bias\" must be true or false, got 1");
    expect_model_error("{" BASE_MODEL ",\"name\":7}", TP_ERR_CONFIG, "name",
                       "\"name\" must be a string, got 7");
    expect_model_error("{" BASE_MODEL ",\"num_kv_heads\":0}", TP_ERR_CONFIG, "num_kv_heads",
                       "\"num_kv_heads\" must be a positive integer, got 0");
    expect_model_error("{" BASE_MODEL ",\"max_positions\":-1}", TP_ERR_CONFIG, "max_positions",
                       "\"max_positions\" must be a non-negative integer, got -1");

    /* Nested keys carry their parent in the path. */
    expect_model_error("{" BASE_MODEL ",\"moe\":{\"num_experts\":8,\"topk\":\"x\"}}", TP_ERR_CONFIG,
                       "moe.topk", "\"moe.topk\" must be a positive integer, got \"x\"");
    expect_model_error("{" BASE_MODEL ",\"moe\":{\"num_expert\":8}}", TP_ERR_CONFIG,
                       "moe.num_expert",
                       "unknown key \"moe.num_expert\" (did you mean \"moe.num_experts\"?)");
    expect_model_error("{" BASE_MODEL ",\"moe\":{\"num_experts\":2,\"topk\":4}}", TP_ERR_CONFIG,
                       "moe.topk", "\"moe.topk\" (4) must not exceed \"moe.num_experts\" (2)");
    expect_model_error("{" BASE_MODEL ",\"moe\":[]}", TP_ERR_CONFIG, "moe",
                       "\"moe\" must be an object, got an array");

    /* Cross-field constraints, named by the file's keys. */
    expect_model_error(
        "{\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\","
        "\"num_layers\":2,\"hidden\":64,\"num_heads\":6,\"ffn_hidden\":128,"
        "\"vocab\":100}",
        TP_ERR_CONFIG, "num_heads",
        "\"num_heads\" (6) must divide \"hidden\" (64) unless \"head_dim\" is given");
    expect_model_error("{\"norm\":\"layernorm\",\"mlp\":\"gelu\",\"position\":\"learned\","
                       "\"num_layers\":2,\"hidden\":64,\"num_heads\":4,\"ffn_hidden\":256,"
                       "\"vocab\":100}",
                       TP_ERR_CONFIG, "max_positions",
                       "\"max_positions\" must be given when \"position\" is \"learned\" (it is "
                       "the size of the position table)");
}

static void test_model_file_defaults(void **state)
{
    (void)state;
    tp_model m;
    tp_error err;
    /* Optional keys default; exact-integer reals are accepted; the name comes from the file. */
    assert_int_equal(tp_io_model_parse("{" BASE_MODEL ",\"params_expected\":1.0e3}",
                                       "dir/my-model.json", &m, &err),
                     TP_OK);
    assert_string_equal(m.name, "my-model");
    assert_int_equal(m.num_kv_heads, 0);
    assert_int_equal(m.head_dim, 0);
    assert_int_equal(m.max_positions, 0);
    assert_false(m.linear_bias);
    assert_false(m.qkv_bias);
    assert_false(m.tie_embeddings);
    assert_int_equal(m.num_experts, 0);
    assert_int_equal(
        tp_io_model_parse("{" BASE_MODEL ",\"hidden\":64.0,\"name\":\"tiny\"}", NULL, &m, &err),
        TP_ERR_PARSE); /* duplicate "hidden" */
    assert_int_equal(tp_io_model_parse("{\"name\":\"tiny\",\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\","
                                       "\"position\":\"alibi\",\"num_layers\":2,\"hidden\":64.0,"
                                       "\"num_heads\":4,\"ffn_hidden\":128,\"vocab\":100}",
                                       NULL, &m, &err),
                     TP_OK);
    assert_string_equal(m.name, "tiny");
    assert_int_equal(m.hidden, 64);
    assert_int_equal(m.pos, TP_POS_ALIBI);
}

/* ---- GPU file errors ---- */

#define BASE_GPU                                                                                   \
    "\"peak_tflops\":{\"bf16\":100},\"memory_mib\":1024,\"memory_bw_gb_per_s\":100,"               \
    "\"intra_node_gb_per_s\":10,\"nic_gb_per_s\":5,\"gpus_per_node\":8"

/* tp_gpu_validate on a hand-built GPU's host side: each rate is 0 (not
 * stated) or in its range; NaN, negative and sub-range values are refused
 * with the field named. */
static void test_gpu_host_validate(void **state)
{
    (void)state;
    tp_gpu g;
    tp_error err;
    assert_int_equal(tp_io_gpu_load("gb200", &g, &err), TP_OK);
    assert_int_equal(tp_gpu_validate(&g, &err), TP_OK);
    g.host_link_bytes_per_s = NAN;
    assert_int_not_equal(tp_gpu_validate(&g, &err), TP_OK);
    assert_string_equal(err.path, "gpu.host_link_bytes_per_s");
    assert_string_equal(err.message,
                        "the host link of gb200 must be 0 (not stated) or in [0.001, 10000] GB/s");
    g.host_link_bytes_per_s = 0.0;
    assert_int_equal(tp_gpu_validate(&g, &err), TP_OK);
    g.host_mem_bw_bytes_per_s = 5e5; /* 0.0005 GB/s: below the range, not 0 */
    assert_int_not_equal(tp_gpu_validate(&g, &err), TP_OK);
    assert_string_equal(err.path, "gpu.host_mem_bw_bytes_per_s");
    assert_string_equal(err.message, "the host memory bandwidth of gb200 must be 0 (not stated) "
                                     "or in [0.001, 1e5] GB/s a node");
    g.host_mem_bw_bytes_per_s = -1.0;
    assert_int_not_equal(tp_gpu_validate(&g, &err), TP_OK);
    g.host_mem_bw_bytes_per_s = INFINITY;
    assert_int_not_equal(tp_gpu_validate(&g, &err), TP_OK);
    g.host_mem_bw_bytes_per_s = 0.0;
    assert_int_equal(tp_gpu_validate(&g, &err), TP_OK);
    g.compute_capability = 1000;
    assert_int_not_equal(tp_gpu_validate(&g, &err), TP_OK);
    assert_string_equal(err.path, "gpu.compute_capability");
    assert_string_equal(err.message, "the compute capability of gb200 must be 0 (not stated) or in "
                                     "[1.0, 99.9] (major x 10 + minor: 10 to 999), got 1000");
}

static void test_gpu_file(void **state)
{
    (void)state;
    tp_gpu g;
    tp_error err;
    assert_int_equal(tp_io_gpu_parse("{" BASE_GPU "}", "gpus/lab-gpu.json", &g, &err), TP_OK);
    assert_string_equal(g.name, "lab-gpu");
    assert_rel(g.peak_flops_per_s[TP_PREC_BF16], 100e12, 1e-15);
    assert_true(g.peak_flops_per_s[TP_PREC_FP8] <= 0.0);
    assert_rel(g.mem_capacity_bytes, 1024.0 * BYTES_PER_MIB, 1e-15);
    assert_rel(g.inter_bw_bytes_per_s, 5e9, 1e-15);
    assert_true(g.price_per_gpu_hour <= 0.0);

    expect_gpu_error("{" BASE_GPU ",\"memory_gb\":80}", "memory_gb",
                     "unknown key \"memory_gb\" (did you mean \"memory_mib\"?)");
    expect_gpu_error("{\"peak_tflops\":{\"bf16\":100,\"int4\":1}}", "peak_tflops.int4",
                     "unknown key \"peak_tflops.int4\"");
    expect_gpu_error("{\"memory_mib\":1024}", "peak_tflops",
                     "missing key \"peak_tflops\" (dense TFLOP/s by precision: bf16, fp16, fp8, "
                     "tf32)");
    expect_gpu_error("{\"peak_tflops\":{\"fp16\":100}}", "peak_tflops.bf16",
                     "missing key \"peak_tflops.bf16\"");
    expect_gpu_error("{\"peak_tflops\":{\"bf16\":0}}", "peak_tflops.bf16",
                     "\"peak_tflops.bf16\" must be a positive number, got 0");
    expect_gpu_error("{\"peak_tflops\":{\"bf16\":100},\"memory_mib\":\"80GB\"}", "memory_mib",
                     "\"memory_mib\" must be a positive number, got \"80GB\"");
    expect_gpu_error("{\"peak_tflops\":{\"bf16\":100},\"memory_mib\":1024,"
                     "\"memory_bw_gb_per_s\":100,\"intra_node_gb_per_s\":10,\"nic_gb_per_s\":5}",
                     "gpus_per_node", "missing key \"gpus_per_node\"");
    expect_gpu_error("{" BASE_GPU ",\"price_per_gpu_hour_usd\":-1}", "price_per_gpu_hour_usd",
                     "\"price_per_gpu_hour_usd\" must be a non-negative number, got -1");
    expect_gpu_error("{" BASE_GPU ",\"host_link_gb_per_s\":64}", "host_source",
                     "missing key \"host_source\": the host link and memory need their source");
    expect_gpu_error("{" BASE_GPU ",\"host_link_gb_per_s\":-1,\"host_source\":\"x\"}",
                     "host_link_gb_per_s",
                     "\"host_link_gb_per_s\" must be a non-negative number, got -1");
    expect_gpu_error("{" BASE_GPU ",\"host_memory_gb_per_node\":1e7,\"host_source\":\"x\"}",
                     "host_memory_gb_per_node",
                     "\"host_memory_gb_per_node\": 1e+07 is out of range (0, or [0.001, 1e+06])");
    expect_gpu_error("{" BASE_GPU ",\"compute_capability\":0.5}", "compute_capability",
                     "\"compute_capability\": 0.5 is out of range (0, or [1, 99.9])");
    expect_gpu_error("{" BASE_GPU ",\"host_memory_bw_gb_per_s\":300}", "host_source",
                     "missing key \"host_source\": the host link and memory need their source");
    expect_gpu_error("{" BASE_GPU ",\"host_memory_bw_gb_per_s\":2e5,\"host_source\":\"x\"}",
                     "host_memory_bw_gb_per_s",
                     "\"host_memory_bw_gb_per_s\": 200000 is out of range (0, or [0.001, 100000])");
    assert_int_equal(tp_io_gpu_parse("{" BASE_GPU ",\"host_link_gb_per_s\":64,\"host_source\":"
                                     "\"lab\"}",
                                     "gpus/lab-gpu.json", &g, &err),
                     TP_OK);
    assert_rel(g.host_link_bytes_per_s, 64e9, 1e-15);
    assert_true(g.host_mem_bytes_per_node <= 0.0);
}

/* ---- numbers and names shared with the CLI ---- */

static void expect_i64_error(const char *s, const char *message)
{
    int64_t v;
    tp_error err;
    assert_int_equal(tp_io_parse_i64("--tp", s, 1, 1048576, &v, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "tp");
    assert_string_equal(err.message, message);
}

static void test_parse_numbers(void **state)
{
    (void)state;
    int64_t v = 0;
    double d = 0.0;
    tp_error err;
    assert_int_equal(tp_io_parse_i64("--tp", "8", 1, 1048576, &v, &err), TP_OK);
    assert_int_equal(v, 8);
    assert_int_equal(tp_io_parse_i64("--tokens", "1e6", 1, INT64_MAX, &v, &err), TP_OK);
    assert_int_equal(v, 1000000);
    assert_int_equal(tp_io_parse_i64("--tokens", "2.5e3", 1, INT64_MAX, &v, &err), TP_OK);
    assert_int_equal(v, 2500);
    expect_i64_error("x", "--tp: expected an integer, got \"x\"");
    expect_i64_error("0", "--tp: 0 is out of range [1, 1048576]");
    expect_i64_error("", "--tp: expected an integer, got \"\"");
    expect_i64_error("12abc", "--tp: expected an integer, got \"12abc\"");
    expect_i64_error(" 5", "--tp: expected an integer, got \" 5\"");
    expect_i64_error("1.5", "--tp: expected an integer, got \"1.5\"");
    expect_i64_error("nan", "--tp: expected an integer, got \"nan\"");
    expect_i64_error("inf", "--tp: expected an integer, got \"inf\"");
    expect_i64_error("0x10", "--tp: expected an integer, got \"0x10\"");
    expect_i64_error("99999999999999999999",
                     "--tp: 99999999999999999999 is out of range [1, 1048576]");
    expect_i64_error("1e30", "--tp: 1e30 is out of range [1, 1048576]");

    assert_int_equal(tp_io_parse_f64("--mfu", "0.45", 0.0, 1.0, &d, &err), TP_OK);
    assert_rel(d, 0.45, 1e-15);
    assert_int_equal(tp_io_parse_f64("--mfu", "1.5", 0.0, 1.0, &d, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "mfu");
    assert_string_equal(err.message, "--mfu: 1.5 is out of range [0, 1]");
    assert_int_equal(tp_io_parse_f64("--mfu", "nan", 0.0, 1.0, &d, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "--mfu: expected a number, got \"nan\"");
    assert_int_equal(tp_io_parse_f64("--mfu", "-inf", 0.0, 1.0, &d, &err), TP_ERR_INVALID_ARG);
    assert_int_equal(tp_io_parse_f64("--mfu", "0.5x", 0.0, 1.0, &d, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "--mfu: expected a number, got \"0.5x\"");
    assert_int_equal(tp_io_parse_f64("--mfu", "1e400", 0.0, 1.0, &d, &err), TP_ERR_INVALID_ARG);
}

/* Issue 19: counts with decimal suffixes; a rejected form says the accepted one. */
static void test_parse_suffixes(void **state)
{
    (void)state;
    int64_t v = 0;
    double d = 0.0;
    tp_error err;
    assert_int_equal(tp_io_parse_f64("--tokens", "600B", 1.0, 1e18, &d, &err), TP_OK);
    assert_rel(d, 600e9, 0.0);
    assert_int_equal(tp_io_parse_f64("--tokens", "1.5T", 1.0, 1e18, &d, &err), TP_OK);
    assert_rel(d, 1.5e12, 0.0);
    assert_int_equal(tp_io_parse_f64("--tokens", "600G", 1.0, 1e18, &d, &err), TP_OK);
    assert_rel(d, 600e9, 0.0);
    assert_int_equal(tp_io_parse_i64("--global-batch-tokens", "4M", 1, INT64_MAX, &v, &err), TP_OK);
    assert_int_equal(v, 4000000); /* decimal: not 4 x 2^20 */
    assert_int_equal(tp_io_parse_i64("--seq-len", "4k", 1, INT64_MAX, &v, &err), TP_OK);
    assert_int_equal(v, 4000);
    assert_int_equal(tp_io_parse_i64("--seq-len", "32K", 1, INT64_MAX, &v, &err), TP_OK);
    assert_int_equal(v, 32000);
    assert_int_equal(tp_io_parse_i64("--n", "1.5k", 1, INT64_MAX, &v, &err), TP_OK);
    assert_int_equal(v, 1500);
    expect_i64_error("1.0001k", "--tp: expected an integer, got \"1.0001k\"");
    expect_i64_error("2M", "--tp: 2M is out of range [1, 1048576]");
    expect_i64_error("1e3k", "--tp: expected an integer, got \"1e3k\"");
    expect_i64_error("4m", "--tp: expected an integer, got \"4m\" (counts take a decimal suffix: "
                           "k = 1e3, M = 1e6, B or G = 1e9, T = 1e12, as in 600B or 4M; or write "
                           "600e9)");
    assert_int_equal(tp_io_parse_f64("--tokens", "600GB", 1.0, 1e18, &d, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message,
                        "--tokens: expected a number, got \"600GB\" (counts take a decimal suffix: "
                        "k = 1e3, M = 1e6, B or G = 1e9, T = 1e12, as in 600B or 4M; or write "
                        "600e9)");
    assert_int_equal(tp_io_parse_f64("--mfu", "40", 1e-4, 1.0, &d, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "--mfu: 40 is out of range [0.0001, 1]: a fraction, not a "
                                     "percentage (40% is 0.4)");
}

/* Issue 14: integers are exact decimals; reals are never subnormal, -0 is 0. */
static void test_parse_numbers_exact(void **state)
{
    (void)state;
    int64_t v = 0;
    double d = 1.0;
    tp_error err;
    expect_i64_error("8.0000000000000001", "--tp: expected an integer, got \"8.0000000000000001\"");
    expect_i64_error("1e-320", "--tp: expected an integer, got \"1e-320\"");
    expect_i64_error("9007199254740993e0", "--tp: 9007199254740993e0 is out of range [1, 1048576]");
    expect_i64_error("1e", "--tp: expected an integer, got \"1e\"");
    expect_i64_error(".", "--tp: expected an integer, got \".\"");
    expect_i64_error("1.5.0", "--tp: expected an integer, got \"1.5.0\"");
    assert_int_equal(tp_io_parse_i64("--tp", "8.0", 1, 1048576, &v, &err), TP_OK);
    assert_int_equal(v, 8);
    assert_int_equal(tp_io_parse_i64("--tp", "0.08e2", 1, 1048576, &v, &err), TP_OK);
    assert_int_equal(v, 8);
    assert_int_equal(tp_io_parse_i64("--tp", "800e-2", 1, 1048576, &v, &err), TP_OK);
    assert_int_equal(v, 8);
    /* beyond 2^53 a double would round; the exact reading does not */
    assert_int_equal(tp_io_parse_i64("--n", "9007199254740993", 1, INT64_MAX, &v, &err), TP_OK);
    assert_true(v == 9007199254740993LL);
    assert_int_equal(tp_io_parse_i64("--n", "9.007199254740993e15", 1, INT64_MAX, &v, &err), TP_OK);
    assert_true(v == 9007199254740993LL);
    assert_int_equal(tp_io_parse_i64("--n", "9223372036854775807", 1, INT64_MAX, &v, &err), TP_OK);
    assert_true(v == INT64_MAX);
    assert_int_equal(tp_io_parse_i64("--n", "-9223372036854775808", INT64_MIN, 0, &v, &err), TP_OK);
    assert_true(v == INT64_MIN);
    assert_int_equal(tp_io_parse_i64("--n", "9223372036854775808", 1, INT64_MAX, &v, &err),
                     TP_ERR_INVALID_ARG);
    assert_string_equal(err.message,
                        "--n: 9223372036854775808 is out of range [1, 9223372036854775807]");
    assert_int_equal(tp_io_parse_i64("--n", "1e100000000000", 1, 10, &v, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "--n: 1e100000000000 is out of range [1, 10]");
    assert_int_equal(tp_io_parse_i64("--n", "-0", 0, 10, &v, &err), TP_OK);
    assert_int_equal(v, 0);

    assert_int_equal(tp_io_parse_f64("--price", "-0", 0.0, 10.0, &d, &err), TP_OK);
    assert_false(signbit(d));
    assert_int_equal(tp_io_parse_f64("--x", "1e-320", 0.0, 1.0, &d, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "--x: 1e-320 is too small to compute with (0, or a magnitude "
                                     "of at least 2.22507e-308)");
    assert_int_equal(tp_io_parse_f64("--x", "1e-400", 0.0, 1.0, &d, &err), TP_ERR_INVALID_ARG);
    assert_int_equal(tp_io_parse_f64("--x", "0e-400", 0.0, 1.0, &d, &err), TP_OK);
    assert_true(fpclassify(d) == FP_ZERO);
    assert_int_equal(tp_io_parse_f64("--x", "0x10", 0.0, 100.0, &d, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "--x: expected a number, got \"0x10\"");
    assert_int_equal(tp_io_parse_f64_or0("--r", "0", 1e-9, 0.5, &d, &err), TP_OK);
    assert_int_equal(tp_io_parse_f64_or0("--r", "1e-3", 1e-9, 0.5, &d, &err), TP_OK);
    assert_rel(d, 1e-3, 1e-15);
    assert_int_equal(tp_io_parse_f64_or0("--r", "1e-320", 1e-9, 0.5, &d, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "r");
    assert_string_equal(err.message, "--r: 1e-320 is out of range (0, or [1e-09, 0.5])");
    assert_int_equal(tp_io_parse_f64_or0("--r", "1e-10", 1e-9, 0.5, &d, &err), TP_ERR_INVALID_ARG);
    assert_int_equal(tp_io_parse_f64_or0("--r", "-0.1", 1e-9, 0.5, &d, &err), TP_ERR_INVALID_ARG);

    /* a long value is quoted in part, so the message keeps its constraint */
    char big[400];
    memset(big, '7', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(tp_io_parse_i64("--tp", big, 1, 1048576, &v, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "--tp: 777777777777777777777777777777777777777777777777777777"
                                     "777777... is out of range [1, 1048576]");
    big[100] = 'x';
    assert_int_equal(tp_io_parse_f64("--mfu", big, 0.0, 1.0, &d, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message,
                        "--mfu: expected a number, got \"777777777777777777777777777777"
                        "777777777777777777777777777777...\"");
    char q[TP_IO_QUOTE_MAX + 4];
    /* "é" (2 bytes) straddling byte 60 is cut before it, never in half */
    char u[80];
    memset(u, 'a', 59);
    memcpy(u + 59, "\xc3\xa9zzzzzzzz", 11);
    u[70] = '\0';
    assert_string_equal(tp_io_quote(u, q, sizeof q),
                        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...");
    assert_string_equal(tp_io_quote("short", q, sizeof q), "short");
}

static void test_enum_names(void **state)
{
    (void)state;
    assert_string_equal(tp_io_precision_name(TP_PREC_BF16), "bf16");
    assert_string_equal(tp_io_precision_name(TP_PREC_FP8), "fp8");
    assert_string_equal(tp_io_precision_name(TP_PREC_TF32), "tf32");
    assert_string_equal(tp_io_schedule_name(TP_SCHED_INTERLEAVED), "interleaved");
    assert_string_equal(tp_io_recompute_name(TP_RECOMPUTE_SELECTIVE), "selective");
    assert_string_equal(tp_io_dtype_name(TP_DTYPE_INT8), "int8");
    tp_optimizer o = {TP_OPT_ADAMW, TP_DTYPE_FP32, true};
    assert_string_equal(tp_io_optimizer_name(&o), "adamw");
    o.moment_dtype = TP_DTYPE_BF16;
    assert_string_equal(tp_io_optimizer_name(&o), "adamw-bf16");
    o.moment_dtype = TP_DTYPE_INT8;
    assert_string_equal(tp_io_optimizer_name(&o), "adamw-8bit");
    o.kind = TP_OPT_SGD_MOMENTUM;
    o.moment_dtype = TP_DTYPE_FP32;
    assert_string_equal(tp_io_optimizer_name(&o), "sgd-momentum");
    o.kind = TP_OPT_SGD;
    assert_string_equal(tp_io_optimizer_name(&o), "sgd");
    assert_string_equal(tp_io_optimizer_name(NULL), "unknown");
}

/* The model file's "vision" object: tp_vision field for field (docs/presets.md). */
static void test_model_vision_object(void **state)
{
    (void)state;
    tp_model m;
    tp_error err;
    assert_int_equal(tp_io_model_parse("{" BASE_MODEL ",\"vision\":{\"layers\":2,\"hidden\":32,"
                                       "\"heads\":4,\"ffn_hidden\":128,\"patch\":14,\"merge\":4,"
                                       "\"proj_hidden\":64,\"proj_hidden2\":48,\"mlp\":\"swiglu\","
                                       "\"norm\":\"rmsnorm\",\"attn_bias\":true,"
                                       "\"image_tokens\":16,\"frozen\":true}}",
                                       NULL, &m, &err),
                     TP_OK);
    assert_int_equal(m.vision.layers, 2);
    assert_int_equal(m.vision.proj_hidden2, 48);
    assert_int_equal(m.vision.mlp, TP_MLP_SWIGLU);
    assert_int_equal(m.vision.norm, TP_NORM_RMSNORM);
    assert_true(m.vision.attn_bias && m.vision.frozen && !m.vision.mlp_bias);
    assert_int_equal(m.vision.image_tokens, 16);
    expect_model_error("{" BASE_MODEL ",\"vision\":{\"layers\":2}}", TP_ERR_CONFIG, "vision.hidden",
                       "missing key \"vision.hidden\"");
    expect_model_error("{" BASE_MODEL ",\"vision\":{\"layers\":2,\"hidden\":32,\"heads\":4,"
                       "\"ffn_hidden\":128,\"patch\":14,\"mlp\":\"relu\"}}",
                       TP_ERR_CONFIG, "vision.mlp",
                       "\"vision.mlp\" must be one of \"gelu\", \"swiglu\", \"squared-relu\", "
                       "\"geglu\", got \"relu\"");
    expect_model_error("{" BASE_MODEL ",\"vision\":{\"layers\":2,\"hidden\":32,\"heads\":4,"
                       "\"ffn_hidden\":128,\"patch\":14,\"tokens\":16}}",
                       TP_ERR_CONFIG, "vision.tokens",
                       "unknown key \"vision.tokens\" (did you mean \"vision.tiles\"?)");
    expect_model_error("{" BASE_MODEL ",\"vision\":{\"layers\":2,\"hidden\":32,\"heads\":5,"
                       "\"ffn_hidden\":128,\"patch\":14}}",
                       TP_ERR_INVALID_ARG, "model.vision.heads",
                       "5 vision heads do not divide the vision width 32");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_model_presets_load_and_match_published_counts),
        cmocka_unit_test(test_exact_counts),
        cmocka_unit_test(test_bloom_embedding_norm_gap),
        cmocka_unit_test(test_megatron_reported_sizes),
        cmocka_unit_test(test_case_insensitive_names),
        cmocka_unit_test(test_gpu_presets),
        cmocka_unit_test(test_unknown_names),
        cmocka_unit_test(test_hf_import),
        cmocka_unit_test(test_hf_errors),
        cmocka_unit_test(test_model_file_errors),
        cmocka_unit_test(test_model_file_defaults),
        cmocka_unit_test(test_gpu_file),
        cmocka_unit_test(test_gpu_host_validate),
        cmocka_unit_test(test_parse_numbers),
        cmocka_unit_test(test_parse_suffixes),
        cmocka_unit_test(test_parse_numbers_exact),
        cmocka_unit_test(test_enum_names),
        cmocka_unit_test(test_model_vision_object),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
