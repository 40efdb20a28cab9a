/* SPDX-License-Identifier: MIT */
/*
 * Model shapes shared by the unit tests, built inline from their published
 * shapes so that the tests do not depend on the preset files. Header-only
 * (static inline) so that each test program keeps its own copies.
 */
#ifndef TP_TEST_FIXTURES_H
#define TP_TEST_FIXTURES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tp/tp.h"

/* A reproducible xorshift64 sequence for the random-configuration tests
 * (each test file has its own state, same seed). */
static inline uint64_t rnd(void)
{
    static uint64_t state = 0x9E3779B97F4A7C15ULL;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

/* One of the n values at v, at random. */
static inline int64_t pick(const int64_t *v, size_t n)
{
    return v[rnd() % n];
}

/* A Llama-style decoder: RMSNorm, SwiGLU, rotary, grouped-query attention. */
static inline tp_model llama(int64_t L, int64_t h, int64_t a, int64_t kv, int64_t f, int64_t V,
                             bool tied)
{
    tp_model m;
    memset(&m, 0, sizeof m);
    strcpy(m.name, "llama");
    m.norm = TP_NORM_RMSNORM;
    m.mlp = TP_MLP_SWIGLU;
    m.pos = TP_POS_ROTARY;
    m.tie_embeddings = tied;
    m.num_layers = L;
    m.hidden = h;
    m.num_heads = a;
    m.num_kv_heads = kv;
    m.ffn_hidden = f;
    m.vocab = V;
    return m;
}

/* A GPT-style decoder: LayerNorm, GELU MLP of 4h, learned positions, biases,
 * tied embeddings. */
static inline tp_model gpt(int64_t L, int64_t h, int64_t a, int64_t V, int64_t S)
{
    tp_model m;
    memset(&m, 0, sizeof m);
    strcpy(m.name, "gpt");
    m.norm = TP_NORM_LAYERNORM;
    m.mlp = TP_MLP_GELU;
    m.pos = TP_POS_LEARNED;
    m.linear_bias = true;
    m.tie_embeddings = true;
    m.num_layers = L;
    m.hidden = h;
    m.num_heads = a;
    m.ffn_hidden = 4 * h;
    m.vocab = V;
    m.max_positions = S;
    return m;
}

/* H100 SXM as in presets/gpus/h100-sxm.json and formulas.md 7.1 (81,559 MiB
 * driver-reported), with the calibrated efficiencies. */
static inline tp_gpu fixture_h100(void)
{
    tp_gpu g;
    memset(&g, 0, sizeof g);
    strcpy(g.name, "h100-sxm");
    g.peak_flops_per_s[TP_PREC_BF16] = 989.4e12;
    g.peak_flops_per_s[TP_PREC_FP16] = 989.4e12;
    g.peak_flops_per_s[TP_PREC_FP8] = 1978.9e12;
    g.peak_flops_per_s[TP_PREC_TF32] = 494.7e12;
    g.mem_capacity_bytes = 81559.0 * 1048576.0;
    g.mem_bw_bytes_per_s = 3.35e12;
    g.intra_bw_bytes_per_s = 450e9;
    g.inter_bw_bytes_per_s = 50e9;
    g.gpus_per_node = 8;
    g.price_per_gpu_hour = 4.0;
    tp_gpu_default_eff(&g);
    return g;
}

/* Model m on fixture_h100() with the default training setup and options. */
static inline tp_config fixture_config(tp_model m)
{
    tp_config c;
    memset(&c, 0, sizeof c);
    c.model = m;
    c.gpu = fixture_h100();
    tp_train_default(&c.train);
    tp_options_default(&c.opts);
    return c;
}

#endif
