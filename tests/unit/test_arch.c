/* SPDX-License-Identifier: MIT */
/*
 * The 2024-26 architecture features (issue 16; model.c's design note):
 * multi-latent attention, fine-grained MoE with router bias and MTP,
 * sliding windows, sinks, QK-norm. Exact parameter counts against the
 * published totals (from real config files in tests/data/hf, README there
 * cites each), FLOPs against hand derivations written out here, the TP
 * split of MLA, the metamorphic "a window of the whole sequence is full
 * attention", and the refusals of what cannot be counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fixtures.h"
#include "helpers.h"
#include "internal.h"
#include "export.h"
#include "import.h"
#include "fixtures_io.h"
#include "io.h"
#include "tp/tp.h"

/* DeepSeek-V3 as its HF config.json states it, MTP left out (mtp = 0). */
static tp_model deepseek_v3(void)
{
    tp_model m = llama(61, 7168, 128, 0, 18432, 129280, false);
    m.kv_lora_rank = 512;
    m.q_lora_rank = 1536;
    m.qk_rope_head_dim = 64;
    m.qk_nope_head_dim = 128;
    m.v_head_dim = 128;
    m.num_experts = 256;
    m.topk = 8;
    m.moe_ffn_hidden = 2048;
    m.num_shared_experts = 1;
    m.moe_first_dense = 3;
    m.moe_layer_freq = 1;
    m.router_bias = true;
    return m;
}

/* DeepSeek-V2 paper section 2.1 shapes, summed by hand (model.c design note). */
static void test_mla_params(void **state)
{
    (void)state;
    tp_model m = deepseek_v3();
    tp_params p = params_of(&m);
    /* q_a 7168*1536 + norm 1536 + q_b 1536*128*192 + kv_a 7168*576 + norm 512
     * + kv_b 512*128*256 + o 128*128*7168 */
    int64_t attn = 11010048 + 1536 + 37748736 + 4128768 + 512 + 16777216 + 117440512;
    assert_int_equal(attn, 187107328);
    assert_int_equal(p.attention, 61 * attn);
    /* DeepSeek's published total (README_WEIGHTS.md "671B"), exactly */
    assert_int_equal(p.total, 671026419200LL);
    /* the 256 correction biases of each of the 58 MoE layers are in it */
    assert_int_equal(p.router, 58 * (7168 * 256 + 256));
    /* 8 of 256 routed experts per token: 37,552,297,472 (paper: "37B activated") */
    assert_int_equal(p.active, 37552297472LL);
    assert_int_equal(p.mtp, 0);

    /* one MTP module: enorm + hnorm + eh_proj 2h*h + one MoE layer + its norm */
    m.mtp_layers = 1;
    tp_params q = params_of(&m);
    assert_int_equal(q.mtp, 3 * 7168 + 2LL * 7168 * 7168 + p.per_layer_moe);
    assert_int_equal(q.mtp, 11610068224LL);
    assert_int_equal(q.total, 671026419200LL + 11610068224LL);
    assert_int_equal(q.mtp_routed, 256LL * 3 * 7168 * 2048);
    assert_int_equal(q.active - p.active, q.mtp - 248LL * 3 * 7168 * 2048);
}

/* Forward FLOPs per token of DeepSeek-V3, written out term by term. */
static void test_mla_flops(void **state)
{
    (void)state;
    tp_config c = fixture_config(deepseek_v3());
    c.train.seq_len = 4096;
    c.train.pad_vocab_to = 1;
    c.train.recompute = TP_RECOMPUTE_NONE;
    tp_result r;
    tp_error err;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    double h = 7168, s = 4096, a = 128, V = 129280;
    /* projections: the weight count less the two latent norms, 2 FLOP each */
    double proj = 2.0 * (187107328.0 - 1536.0 - 512.0);
    /* QK^T over d_qk = 192, AV over d_v = 128, causal half */
    double core = 2.0 * s * a * (192.0 + 128.0) * 0.5;
    double dense = 2.0 * 3.0 * h * 18432.0;
    double moe = 2.0 * 3.0 * h * 2048.0 * (8 + 1) + 2.0 * h * 256.0;
    double fwd = 61.0 * (proj + core) + 3.0 * dense + 58.0 * moe + 2.0 * h * V;
    assert_rel(r.flops.model_per_token, 3.0 * fwd, 1e-12);
    assert_rel(r.flops.attn_per_token, 3.0 * 61.0 * core, 1e-12);
    /* Megatron's num_floating_point_operations MLA term (its norm "+1"s aside):
     * q_lora*(h + a*d_qk) + kv_lora*(h + a*(d_nope + d_v)) + h*d_rope + a*d_v*h
     * + s*a*d_qk/2 + s*a*d_v/2, in MACs */
    double megatron_macs = 1536.0 * (h + a * 192.0) + 512.0 * (h + a * 256.0) + h * 64.0 +
                           a * 128.0 * h + s * a * 192.0 / 2.0 + s * a * 128.0 / 2.0;
    assert_rel(2.0 * megatron_macs, proj + core, 1e-12);

    /* one MTP module adds eh_proj, a MoE layer and a pass through the head */
    c.model.mtp_layers = 1;
    tp_result r2;
    assert_int_equal(tp_eval(&c, &r2, &err), TP_OK);
    double mtp = 2.0 * 2.0 * h * h + proj + core + moe + 2.0 * h * V;
    assert_rel(r2.flops.model_per_token - r.flops.model_per_token, 3.0 * mtp, 1e-12);
    /* and its work is on the (last) stage's critical path, its weights held there */
    assert_true(r2.time.step_s > r.time.step_s);
    assert_rel(r2.memory.params_on_gpu - r.memory.params_on_gpu, 11610068224.0, 1e-12);
    /* and its activations (one micro-batch in flight, TP 1, T = s): the two
     * norm inputs and the eh_proj input, 8h per token, one MoE layer (the
     * stage's largest, a_max), and its head's fp32 input and logits */
    assert_rel(r2.memory.activations_bytes - r.memory.activations_bytes,
               8.0 * s * h + r.memory.act_per_layer_bytes, 1e-12);
    assert_rel(r2.memory.logits_bytes - r.memory.logits_bytes, 4.0 * s * h + 4.0 * s * V, 1e-12);
    /* with TransformerEngine's fused loss (2 B a logit) the MTP head's too */
    c.opts.ce_bytes_per_logit = 2.0;
    tp_result r3;
    assert_int_equal(tp_eval(&c, &r3, &err), TP_OK);
    c.model.mtp_layers = 0;
    tp_result r4;
    assert_int_equal(tp_eval(&c, &r4, &err), TP_OK);
    assert_rel(r3.memory.logits_bytes - r4.memory.logits_bytes, 4.0 * s * h + 2.0 * s * V, 1e-12);
}

/* MLA's down-projections and latent norms stay whole on every TP rank. */
static void test_mla_tp_split(void **state)
{
    (void)state;
    tp_model m = deepseek_v3();
    m.num_experts = 0; /* dense, so only TP splits */
    m.topk = 0;
    m.num_shared_experts = 0;
    m.moe_first_dense = 0;
    m.router_bias = false;
    tp_config c = fixture_config(m);
    c.train.pad_vocab_to = 1;
    tp_result r1, r2;
    tp_error err;
    c.train.tp = 1;
    assert_int_equal(tp_eval(&c, &r1, &err), TP_OK);
    c.train.tp = 2;
    c.train.num_gpus = 2;
    c.train.global_batch = 1;
    if (tp_eval(&c, &r2, &err) != TP_OK) {
        print_error("%s: %s\n", err.path, err.message);
        fail();
    }
    /* held(t) = split/t + whole: 2*held(2) - held(1) = whole */
    double whole_per_layer = 7168.0 * (1536 + 512 + 64) + 1536 + 512 + 2 * 7168;
    double whole = 61.0 * whole_per_layer + 7168;
    assert_rel(2.0 * r2.memory.params_on_gpu - r1.memory.params_on_gpu, whole, 1e-12);
}

/*
 * Megatron-Core's mla_up_proj recompute (multi_latent_attention.py:
 * CheckpointWithoutOutput around the up-projections and RoPE), by hand on
 * DeepSeek-V3's attention, dense, TP 1, s 4096, b 1 (T = 4096 tokens): the
 * Q, K and V it frees are a(d_nope + d_rope) each for Q and K and a d_v for
 * V, 2 B each, per token and layer: 2 x 128 x (192 + 192 + 128) B; the
 * up-projections re-run forward, 2 x (r_q x a(d_nope + d_rope) + r_kv x
 * a(d_nope + d_v)) FLOPs per token and layer. A model without MLA refuses it.
 */
static void test_mla_up_proj_recompute(void **state)
{
    (void)state;
    tp_model m = deepseek_v3();
    m.num_experts = m.topk = m.num_shared_experts = m.moe_first_dense = 0;
    m.router_bias = false;
    m.num_layers = 4;
    tp_config c = fixture_config(m);
    c.gpu.mem_capacity_bytes = 1e15;
    c.train.seq_len = 4096;
    c.train.recompute = TP_RECOMPUTE_SELECTIVE;
    c.train.recompute_modules = TP_RC_CORE_ATTN;
    tp_result a, b;
    tp_error err;
    assert_int_equal(tp_eval(&c, &a, &err), TP_OK);
    c.train.recompute_modules = TP_RC_CORE_ATTN | TP_RC_MLA_UP_PROJ;
    assert_int_equal(tp_eval(&c, &b, &err), TP_OK);
    double L = 4.0, T = 4096.0;
    assert_rel(a.memory.activations_bytes - b.memory.activations_bytes,
               L * T * 2.0 * 128.0 * (192.0 + 192.0 + 128.0), 1e-12);
    assert_rel(b.flops.hardware_per_token - a.flops.hardware_per_token,
               L * 2.0 * (1536.0 * 128.0 * 192.0 + 512.0 * 128.0 * 256.0), 1e-12);
    assert_true(b.time.recompute_s > a.time.recompute_s);
    assert_memory_equal(&a.flops.model_per_token, &b.flops.model_per_token, sizeof(double));
    c.model = llama(4, 4096, 32, 8, 14336, 32000, false);
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "train.recompute_modules");
    assert_string_equal(err.message, "mla_up_proj recompute needs multi-latent attention "
                                     "(kv_lora_rank is 0), as Megatron-Core checks");
}

/*
 * The fp8 activation cache (opts.fp8_act_cache; DeepSeek-V3 report section
 * 3.3.3), by hand on DeepSeek-V3, TP 1, s 4096, b 1 (T = 4096), the row's
 * recompute (layernorm, mla_up_proj). Bytes per token of a MoE layer, off:
 * norms' inputs 4h 28672, latents 2(1536 + 512 + 64) 4224, 8 routed inputs
 * 8 x 2h 114688, router logits 4 x 256 1024; attention output 2 x 128 x 128
 * 32768, log-sum-exp 4 x 128 512, routed 8 x 6 x 2048 98304, shared 6 x 2048
 * 12288: 292480. On (fp8 element with a fp32 scale per 128: 1.03125 B; E5M6
 * 1.53125 B): routed inputs 8 x 7168 x 1.03125 = 59136, attention output
 * 16384 x 1.53125 = 25088, routed SwiGLU inputs 8 x 2 x 2048 x 1.03125 =
 * 33792 with the outputs recomputed, shared 2 x 2048 x 1.03125 = 4224:
 * 28672 + 4224 + 59136 + 1024 + 25088 + 512 + 33792 + 4224 = 156672.
 * A dense layer without recompute saves the QKV and FC1 inputs 2 x 7168 x
 * 0.96875 = 13888, the attention output 16384 x 0.46875 = 7680 and the FC2
 * input 18432 x 0.96875 = 17856: 39424 per token.
 */
static void test_fp8_act_cache(void **state)
{
    (void)state;
    tp_model m = deepseek_v3();
    m.num_layers = 4;
    m.moe_first_dense = 0;
    tp_config c = fixture_config(m);
    c.gpu.mem_capacity_bytes = 1e15;
    c.train.seq_len = 4096;
    c.train.precision = TP_PREC_FP8;
    c.train.recompute = TP_RECOMPUTE_SELECTIVE;
    c.train.recompute_modules = TP_RC_LAYERNORM | TP_RC_MLA_UP_PROJ;
    c.opts.fp8_hp_saved_inputs = true; /* off: 16-bit, not TE's fp8 copies */
    tp_result off, on;
    tp_error err;
    assert_int_equal(tp_eval(&c, &off, &err), TP_OK);
    c.opts.fp8_act_cache = true;
    assert_int_equal(tp_eval(&c, &on, &err), TP_OK);
    double T = 4096.0;
    assert_rel(off.memory.act_per_layer_bytes, T * 292480.0, 1e-12);
    assert_rel(on.memory.act_per_layer_bytes, T * 156672.0, 1e-12);
    /* the SwiGLU outputs are re-run from the cached inputs */
    assert_true(on.time.recompute_s > off.time.recompute_s);
    /* ... unless moe_act and shared_experts recompute them already: the
     * same recompute time, and the outputs are not subtracted twice */
    c.train.recompute_modules |= TP_RC_MOE_ACT | TP_RC_SHARED_EXPERTS;
    c.opts.fp8_act_cache = false;
    assert_int_equal(tp_eval(&c, &off, &err), TP_OK);
    c.opts.fp8_act_cache = true;
    assert_int_equal(tp_eval(&c, &on, &err), TP_OK);
    assert_memory_equal(&on.time.recompute_s, &off.time.recompute_s, sizeof(double));
    /* routed: 8 x 2048 x 2 x 0.96875 = 31744 (the outputs gone already);
     * shared experts recomputed whole: nothing of theirs is stored */
    assert_rel(off.memory.act_per_layer_bytes - on.memory.act_per_layer_bytes,
               T * (8.0 * 7168.0 * 0.96875 + 16384.0 * 0.46875 + 31744.0), 1e-12);

    c.model.num_experts = c.model.topk = c.model.num_shared_experts = 0;
    c.model.router_bias = false;
    c.train.recompute = TP_RECOMPUTE_NONE;
    c.train.recompute_modules = 0;
    c.opts.fp8_act_cache = false;
    assert_int_equal(tp_eval(&c, &off, &err), TP_OK);
    c.opts.fp8_act_cache = true;
    assert_int_equal(tp_eval(&c, &on, &err), TP_OK);
    assert_rel(off.memory.act_per_layer_bytes - on.memory.act_per_layer_bytes, T * 39424.0, 1e-12);
    assert_memory_equal(&on.time, &off.time, sizeof on.time); /* no experts to re-run */

    /* the combinations it is not modelled with */
    c.train.precision = TP_PREC_BF16;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "conventions.fp8_act_cache");
    assert_string_equal(err.message, "the fp8 activation cache needs precision fp8, got bf16");
    c.train.precision = TP_PREC_FP8;
    c.opts.act_model = TP_ACT_KORTHIKANTI;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "the fp8 activation cache needs the per-tensor activation "
                                     "accounting (act-model detailed), not seed 001's 34 sbh");
    c.opts.act_model = TP_ACT_DETAILED;
    c.opts.sac_ops = true;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "the fp8 activation cache is not modelled with per-op SAC "
                                     "(sac-ops), which saves another set of tensors");
}

/*
 * The fp8 activation cache beside the MTP module and torchtitan's gathered
 * inputs, by hand. MTP (DeepSeek-V3, 4 MoE layers + 1 MTP module, pp 1, no
 * recompute): each MoE layer saves 135808 B per token more than with the
 * row's recompute (test_fp8_act_cache: 292480 - 156672 + the QKV and FC1
 * inputs 13888 = 149696 here: no layernorm recompute), the MTP's layer the
 * same, and its eh_proj input 2h elements 2 x 7168 x 0.96875 = 13888.
 * Gathered inputs (GPT, h 12288, f 4h, t 8, SP, fp8): off, each of the two
 * inputs is its 2 B shard plus the 1 B gathered copy less the shard, 1 B
 * whole; on, 1.03125 B whole (fp8 tiles), +0.0625h; the attention output
 * saves 0.46875h / 8 and the FC2 input 0.96875 x 4h / 8: 0.48046875h net.
 */
static void test_fp8_act_cache_mtp_gathered(void **state)
{
    (void)state;
    tp_model m = deepseek_v3();
    m.num_layers = 4;
    m.moe_first_dense = 0;
    m.mtp_layers = 1;
    tp_config c = fixture_config(m);
    c.gpu.mem_capacity_bytes = 1e15;
    c.train.seq_len = 4096;
    c.train.precision = TP_PREC_FP8;
    c.opts.fp8_hp_saved_inputs = true; /* off: 16-bit, not TE's fp8 copies */
    tp_result off, on;
    tp_error err;
    assert_int_equal(tp_eval(&c, &off, &err), TP_OK);
    c.opts.fp8_act_cache = true;
    assert_int_equal(tp_eval(&c, &on, &err), TP_OK);
    double T = 4096.0;
    assert_rel(off.memory.activations_bytes - on.memory.activations_bytes,
               T * (5.0 * 149696.0 + 13888.0), 1e-12);

    c = fixture_config(gpt(96, 12288, 96, 51200, 2048));
    c.train.seq_len = 2048;
    c.train.num_gpus = 8;
    c.train.global_batch = 1;
    c.train.tp = 8;
    c.train.sp = true;
    c.train.precision = TP_PREC_FP8;
    c.opts.tp_gathered_input = true;
    c.opts.fp8_hp_saved_inputs = true;
    assert_int_equal(tp_eval(&c, &off, &err), TP_OK);
    c.opts.fp8_act_cache = true;
    assert_int_equal(tp_eval(&c, &on, &err), TP_OK);
    assert_rel(off.memory.act_per_layer_bytes - on.memory.act_per_layer_bytes,
               2048.0 * 12288.0 * 0.48046875, 1e-12);
}

/*
 * TransformerEngine's fp8 storage (memory.c te_fp8_saving), the default
 * under fp8, by hand. Llama 3 8B (h 4096, q 4096, K+V 2 x 1024, f 14336,
 * 32 heads), TP 1, s 4096, b 1 (T = 4096), FlashAttention, no recompute.
 * 16-bit (bf16, or fp8 with fp8_hp_saved_inputs) per token: norms' inputs
 * 4h 16384, QKV and FC1 inputs 4h 16384, Q 8192, K and V 4096, attention
 * output 8192, log-sum-exp 4 x 32 128, SwiGLU 6f 86016: 139392. TE fp8,
 * delayed: the QKV and FC1 inputs 1 B (-8192), the output projection's
 * fp8 copy of the attention output beside the kernel's (+4096), the FC2
 * input 1 B (-14336): 120960. Tensorwise: no projection copy (Megatron-
 * Core saves the original input there): 116864. MXFP8 (1 + 1/32 B): the
 * inputs -2 x 0.96875 x 4096 = -7936, the FC2 input -0.96875 x 14336 =
 * -13888: 117568. Delayed with the core_attn recompute module: the
 * recomputed core saves no output, the projection's fp8 copy replaces it
 * (-4096): 139392 - 8192 - 14336 - 4096 = 112768.
 * DeepSeek-V3 MoE layer (test_fp8_act_cache's 16-bit 292480, recompute
 * layernorm and mla_up_proj), delayed: 8 routed inputs 1 B (-57344), the
 * attention output's copy (+16384), the routed FC2 inputs 8 x 2048 1 B
 * (-16384), the shared expert's FC2 input (-2048) and its FC1 copy of the
 * norm output (+7168): 240256. MXFP8: -8 x 0.96875 x 7168 = -55552,
 * -0.96875 x (8 x 2048 + 2048) = -17856: 219072. moe_act drops the routed
 * FC2 inputs whole (16-bit -8 x 2 x 2048): delayed 240256 - 16384.
 */
static void test_te_fp8_storage(void **state)
{
    (void)state;
    tp_config c = fixture_config(llama(4, 4096, 32, 8, 14336, 128256, false));
    c.gpu.mem_capacity_bytes = 1e15;
    c.gpu.peak_fp4_flops_per_s = 1e16; /* lets mxfp8 run */
    c.train.seq_len = 4096;
    tp_result r;
    tp_error err;
    double T = 4096.0;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK); /* bf16 */
    assert_rel(r.memory.act_per_layer_bytes, T * 139392.0, 1e-12);
    c.train.precision = TP_PREC_FP8;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.act_per_layer_bytes, T * 120960.0, 1e-12);
    c.train.fp8_recipe = TP_FP8_TENSORWISE;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.act_per_layer_bytes, T * 116864.0, 1e-12);
    c.train.fp8_recipe = TP_FP8_MXFP8;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.act_per_layer_bytes, T * 117568.0, 1e-12);
    c.opts.fp8_hp_saved_inputs = true; /* torchao: the 16-bit inputs */
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.act_per_layer_bytes, T * 139392.0, 1e-12);
    c.opts.fp8_hp_saved_inputs = false;
    c.train.fp8_recipe = TP_FP8_DELAYED;
    c.train.recompute = TP_RECOMPUTE_SELECTIVE;
    c.train.recompute_modules = TP_RC_CORE_ATTN;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.act_per_layer_bytes, T * 112768.0, 1e-12);
    c.train.recompute = TP_RECOMPUTE_NONE;
    c.train.recompute_modules = 0;

    tp_model m = deepseek_v3();
    m.num_layers = 4;
    m.moe_first_dense = 0;
    c = fixture_config(m);
    c.gpu.mem_capacity_bytes = 1e15;
    c.gpu.peak_fp4_flops_per_s = 1e16;
    c.train.seq_len = 4096;
    c.train.precision = TP_PREC_FP8;
    c.train.recompute = TP_RECOMPUTE_SELECTIVE;
    c.train.recompute_modules = TP_RC_LAYERNORM | TP_RC_MLA_UP_PROJ;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.act_per_layer_bytes, T * 240256.0, 1e-12);
    tp_result cache;
    c.opts.fp8_act_cache = true; /* DeepSeek's storage takes precedence */
    assert_int_equal(tp_eval(&c, &cache, &err), TP_OK);
    assert_rel(cache.memory.act_per_layer_bytes, T * 156672.0, 1e-12);
    c.opts.fp8_act_cache = false;
    c.train.fp8_recipe = TP_FP8_MXFP8;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.act_per_layer_bytes, T * 219072.0, 1e-12);
    c.train.fp8_recipe = TP_FP8_DELAYED;
    c.train.recompute_modules |= TP_RC_MOE_ACT;
    assert_int_equal(tp_eval(&c, &r, &err), TP_OK);
    assert_rel(r.memory.act_per_layer_bytes, T * (240256.0 - 16384.0), 1e-12);
}

/* Bit-identical doubles. */
static bool same(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Packed sequences (train.packed_seq_len, NeMo packed SFT): Llama 2 7B at
 * s = 4096 packed with examples of N = 120 tokens. By hand: the causal
 * core is 2*N*(q + v)/2 = 120 * 8192 FLOPs per token per layer forward,
 * x3 (forward and backward) x32 layers = 94,371,840 per token, N/s of the
 * unpacked 3,221,225,472; the rest of the model is unchanged. N = s is the
 * unpacked run bit for bit. Out of [1, s], or without FlashAttention, it
 * is refused. */
static void test_packed_sequences_attend_per_example(void **state)
{
    (void)state;
    tp_config c = fixture_config(llama(32, 4096, 32, 32, 11008, 32000, false));
    c.train.seq_len = 4096;
    tp_result full, packed;
    tp_error err;
    assert_int_equal(tp_eval(&c, &full, &err), TP_OK);
    assert_rel(full.flops.attn_per_token, 3221225472.0, 1e-12);
    c.train.packed_seq_len = 120;
    assert_int_equal(tp_eval(&c, &packed, &err), TP_OK);
    assert_rel(packed.flops.attn_per_token, 94371840.0, 1e-12);
    assert_rel(packed.flops.model_per_token, full.flops.model_per_token - 3221225472.0 + 94371840.0,
               1e-12);
    assert_true(packed.time.step_s < full.time.step_s);
    assert_true(same(packed.memory.total_bytes, full.memory.total_bytes));

    c.train.packed_seq_len = 4096;
    assert_int_equal(tp_eval(&c, &packed, &err), TP_OK);
    assert_true(same(packed.flops.model_per_token, full.flops.model_per_token));
    assert_true(same(packed.time.step_s, full.time.step_s));

    c.train.packed_seq_len = 4097;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "train.packed_seq_len");
    assert_string_equal(err.message, "4097 is out of range [1, seq_len 4096] (0: not packed)");
    c.train.packed_seq_len = -1;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "-1 is out of range [1, seq_len 4096] (0: not packed)");
    c.train.packed_seq_len = 120;
    c.train.flash_attn = false;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "train.packed_seq_len");
    assert_string_equal(err.message, "packed sequences attend per example only with "
                                     "FlashAttention (drop --no-flash-attn)");
}

/* Metamorphic: a window that covers the sequence is full attention. */
static void test_window_of_the_sequence_is_full_attention(void **state)
{
    (void)state;
    tp_model m = llama(36, 2880, 64, 8, 2880, 201088, false);
    m.head_dim = 64;
    tp_config c = fixture_config(m);
    c.train.seq_len = 4096;
    tp_result full, win;
    tp_error err;
    assert_int_equal(tp_eval(&c, &full, &err), TP_OK);
    static const int64_t windows[] = {4096, 4097, 1 << 20};
    for (int flash = 0; flash < 2; flash++) {
        c.train.flash_attn = flash;
        c.model.sliding_window = 0;
        c.model.global_every = 0;
        assert_int_equal(tp_eval(&c, &full, &err), TP_OK);
        for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
            for (int64_t every = 0; every <= 2; every++) {
                c.model.sliding_window = windows[i];
                c.model.global_every = every;
                assert_int_equal(tp_eval(&c, &win, &err), TP_OK);
                assert_true(same(win.flops.model_per_token, full.flops.model_per_token));
                assert_true(same(win.flops.hardware_per_token, full.flops.hardware_per_token));
                assert_true(same(win.memory.total_bytes, full.memory.total_bytes));
                assert_true(same(win.time.step_s, full.time.step_s));
            }
        }
    }
    /* a window of 128 on every other layer (gpt-oss): the local layers do
     * w - w^2/(2s) of the s/2 keys per query */
    c.train.flash_attn = true;
    c.model.sliding_window = 0;
    c.model.global_every = 0;
    assert_int_equal(tp_eval(&c, &full, &err), TP_OK);
    c.model.sliding_window = 128;
    c.model.global_every = 2;
    assert_int_equal(tp_eval(&c, &win, &err), TP_OK);
    double s = 4096, w = 128, local = (w - w * w / (2 * s)) / (s / 2);
    assert_rel(win.flops.attn_per_token, full.flops.attn_per_token * (18 + 18 * local) / 36, 1e-12);
    assert_true(win.time.step_s < full.time.step_s);
}

/*
 * Chunked attention (Llama 4's attention_chunk_size): a chunk as long as
 * the sequence or longer is full attention, bit for bit, with and without
 * FlashAttention; chunks of C = 1536 over s = 4096 (n = 2 whole chunks and
 * r = 1024 left) do (2 C^2 + r^2) / s^2 of the score work on the local
 * layers, here 3 in 4 (global every 4th, as Llama 4's NoPE layers). Without
 * FlashAttention and every layer chunked, a layer stores the scores of at
 * most C keys per query. A chunk with a window is refused.
 */
static void test_chunked_attention(void **state)
{
    (void)state;
    tp_config c = fixture_config(llama(36, 2880, 64, 8, 2880, 201088, false));
    c.train.seq_len = 4096;
    tp_result full, ch;
    tp_error err;
    for (int flash = 0; flash < 2; flash++) {
        c.train.flash_attn = flash;
        c.model.attention_chunk = 0;
        c.model.global_every = 0;
        assert_int_equal(tp_eval(&c, &full, &err), TP_OK);
        static const int64_t chunks[] = {4096, 4097, 1 << 20};
        for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
            for (int64_t every = 0; every <= 4; every += 4) {
                c.model.attention_chunk = chunks[i];
                c.model.global_every = every;
                assert_int_equal(tp_eval(&c, &ch, &err), TP_OK);
                assert_true(same(ch.flops.model_per_token, full.flops.model_per_token));
                assert_true(same(ch.memory.total_bytes, full.memory.total_bytes));
                assert_true(same(ch.time.step_s, full.time.step_s));
            }
        }
    }
    c.train.flash_attn = true;
    c.model.attention_chunk = 0;
    c.model.global_every = 0;
    assert_int_equal(tp_eval(&c, &full, &err), TP_OK);
    c.model.attention_chunk = 1536;
    c.model.global_every = 4;
    assert_int_equal(tp_eval(&c, &ch, &err), TP_OK);
    double s = 4096, C = 1536, r = 1024, local = (2 * C * C + r * r) / (s * s);
    assert_rel(ch.flops.attn_per_token, full.flops.attn_per_token * (9 + 27 * local) / 36, 1e-12);
    assert_true(ch.time.step_s < full.time.step_s);
    /* unfused scores: every layer chunked, C keys per query instead of s */
    c.train.flash_attn = false;
    c.model.attention_chunk = 0;
    c.model.global_every = 0;
    assert_int_equal(tp_eval(&c, &full, &err), TP_OK);
    c.model.attention_chunk = 1024;
    assert_int_equal(tp_eval(&c, &ch, &err), TP_OK);
    double a = 64, T = 4096; /* 2 bytes per score, a heads, TP 1 */
    assert_rel(full.memory.act_per_layer_bytes - ch.memory.act_per_layer_bytes,
               T * a * (4096 - 1024) * 2.0, 1e-12);
    c.model.sliding_window = 512;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "model.attention_chunk");
    assert_string_equal(err.message,
                        "chunked attention and a sliding window (512) cannot both be set");
}

/* Real config files (tests/data/hf/README.md cites each) against published totals. */
static void test_hf_families(void **state)
{
    (void)state;
    tp_model ds = load(HF_DIR "deepseek-v3/config.json");
    tp_params p = params_of(&ds);
    assert_int_equal(ds.mtp_layers, 1);
    assert_true(ds.router_bias);
    assert_int_equal(ds.moe_first_dense, 3);
    assert_int_equal(p.total - p.mtp, 671026419200LL);
    assert_int_equal(p.mtp, 11610068224LL);
    /* n_group 8, topk_group 4: a token's experts from 4 of 8 groups */
    assert_int_equal(ds.moe_router_groups, 8);
    assert_int_equal(ds.moe_group_topk, 4);

    /* DeepSeek's own inference config gives the same model without MTP */
    tp_model native = load(HF_DIR "deepseek-v3-native/config_671B.json");
    tp_params pn = params_of(&native);
    assert_int_equal(pn.total, 671026419200LL);
    assert_int_equal(pn.active, 37552297472LL);
    /* n_expert_groups 8, n_limited_groups 4 */
    assert_int_equal(native.moe_router_groups, 8);
    assert_int_equal(native.moe_group_topk, 4);

    /* Kimi K2: 1,026,408,232,448 total, 32,861,500,928 active (card: 1T / 32B) */
    tp_model kimi = load(HF_DIR "kimi-k2/config.json");
    tp_params pk = params_of(&kimi);
    assert_int_equal(pk.total, 1026408232448LL);
    assert_int_equal(pk.active, 32861500928LL);
    assert_int_equal(kimi.mtp_layers, 0);
    /* n_group 1, topk_group 1: one group is no limit */
    assert_int_equal(kimi.moe_router_groups, 0);
    assert_int_equal(kimi.moe_group_topk, 0);

    /* gpt-oss-120b: 116,829,156,672 (model card Table 1: 116.83B; 5.13B active
     * without the input embedding) */
    tp_model oss = load(HF_DIR "gpt-oss-120b/config.json");
    tp_params po = params_of(&oss);
    assert_int_equal(po.total, 116829156672LL);
    assert_int_equal(po.active - po.embedding, 5132849472LL);
    assert_int_equal(oss.sliding_window, 128);
    assert_int_equal(oss.global_every, 2);
    assert_true(oss.attn_sinks && oss.router_bias && oss.linear_bias);

    /* Qwen3-30B-A3B: 30.53B total, 3.35B active (model card) */
    tp_model q3m = load(HF_DIR "qwen3-30b-a3b/config.json");
    tp_params pq = params_of(&q3m);
    assert_int_equal(pq.total, 30532122624LL);
    assert_int_equal(pq.active, 3353032704LL);
    assert_int_equal(q3m.qk_norm, TP_QK_NORM_HEAD);
    /* Qwen3-235B-A22B: 235B total, 22B activated, 234B non-embedding (model card) */
    tp_model q3b = load(HF_DIR "qwen3-235b-a22b/config.json");
    tp_params pqb = params_of(&q3b);
    assert_int_equal(pqb.total, 235093634560LL);
    assert_int_equal(pqb.active, 22190763520LL);
    assert_int_equal(pqb.total - pqb.embedding - pqb.output_head, 233848974848LL);

    /* Qwen3-8B: 8.2B total, 6.95B non-embedding (model card) */
    tp_model q3 = load(HF_DIR "qwen3-8b/config.json");
    tp_params p8 = params_of(&q3);
    assert_int_equal(p8.total, 8190735360LL);
    assert_int_equal(p8.total - p8.embedding - p8.output_head, 6946075648LL);
    /* Qwen3-4B (tied), 14B, 32B: the model cards' 4.0B / 3.6B, 14.8B /
     * 13.2B and 32.8B / 31.2B total / non-embedding */
    static const struct {
        const char *file;
        long long total, non_embedding;
    } q3s[] = {{"qwen3-4b/config.json", 4022468096LL, 3633511936LL},
               {"qwen3-14b/config.json", 14768307200LL, 13212482560LL},
               {"qwen3-32b/config.json", 32762123264LL, 31206298624LL}};
    for (size_t i = 0; i < sizeof q3s / sizeof q3s[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, HF_DIR "%s", q3s[i].file);
        tp_model q = load(path);
        tp_params pq3 = params_of(&q);
        assert_int_equal(pq3.total, q3s[i].total);
        assert_int_equal(pq3.total - pq3.embedding - pq3.output_head, q3s[i].non_embedding);
        assert_int_equal(q.qk_norm, TP_QK_NORM_HEAD);
    }

    /* Gemma 2 9B: 9.24B; 4 norms per layer, GeGLU, tied, every other layer local */
    tp_model g2 = load(HF_DIR "gemma-2-9b/config.json");
    assert_int_equal(params_of(&g2).total, 9241705984LL);
    assert_int_equal(g2.global_every, 2);
    assert_int_equal(g2.mlp, TP_MLP_GEGLU);
    /* Gemma 3 1B: 999,885,952; per-head QK-norm, 1 global layer in 6 */
    tp_model g3 = load(HF_DIR "gemma-3-1b/config.json");
    assert_int_equal(params_of(&g3).total, 999885952LL);
    assert_int_equal(g3.sliding_window, 512);
    assert_int_equal(g3.global_every, 6);
    /* DBRX: 131.6B total, 36.5B active (Databricks: 132B / 36B); LayerNorm without bias */
    tp_model dbrx = load(HF_DIR "dbrx/config.json");
    tp_params pd = params_of(&dbrx);
    assert_int_equal(pd.total, 131596523520LL);
    assert_int_equal(pd.active, 36469708800LL);

    /* the presets equal their config files */
    static const char *const pairs[][2] = {{"deepseek-v3", "deepseek-v3/config.json"},
                                           {"gpt-oss-120b", "gpt-oss-120b/config.json"},
                                           {"kimi-k2", "kimi-k2/config.json"},
                                           {"qwen3-30b-a3b", "qwen3-30b-a3b/config.json"},
                                           {"nemotron-h-8b", "nemotron-h-8b/config.json"},
                                           {"qwen2.5-vl-7b", "qwen2.5-vl-7b/config.json"},
                                           {"llama-4-scout", "llama-4-scout/config.json"},
                                           {"qwen3-8b", "qwen3-8b/config.json"},
                                           {"qwen3-4b", "qwen3-4b/config.json"},
                                           {"qwen3-14b", "qwen3-14b/config.json"},
                                           {"qwen3-32b", "qwen3-32b/config.json"},
                                           {"qwen3-235b-a22b", "qwen3-235b-a22b/config.json"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, HF_DIR "%s", pairs[i][1]);
        tp_model a = load(pairs[i][0]), b = load(path);
        tp_params pa = params_of(&a), pb = params_of(&b);
        assert_int_equal(pa.total, pb.total);
        assert_int_equal(pa.active, pb.active);
        assert_int_equal(pa.mtp, pb.mtp);
        /* the hybrid, vision-language and Qwen3 dense presets hold every field of their file */
        if (i >= 4) {
            memcpy(a.name, b.name, sizeof a.name);
            assert_memory_equal(&a, &b, sizeof a);
        }
    }
}

static void expect_lib_error(const tp_model *m, const char *path, const char *message)
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

static void expect_parse_error(const char *text, const char *path, const char *message)
{
    tp_model m;
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_status st = tp_io_model_parse(text, "tests/error.json", &m, &err);
    if (st != TP_ERR_CONFIG || strcmp(err.path, path) != 0 || strcmp(err.message, message) != 0) {
        print_error("input %s\ngot %s [%s] %s\nwant config [%s] %s\n", text, tp_strerror(st),
                    err.path, err.message, path, message);
        fail();
    }
}

#define HF_QWEN3_MOE                                                                               \
    "\"model_type\":\"qwen3_moe\",\"hidden_size\":64,\"num_hidden_layers\":4,"                     \
    "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100,"                      \
    "\"num_experts\":8,\"num_experts_per_tok\":2,\"moe_intermediate_size\":32"

/* What cannot be counted is refused, naming the field. */
static void test_refusals(void **state)
{
    (void)state;
    tp_model m = deepseek_v3();
    m.num_kv_heads = 8;
    expect_lib_error(&m, "model.num_kv_heads",
                     "8 kv heads with multi-latent attention: MLA has per-head keys and values "
                     "(leave kv heads unset or equal to the 128 heads)");
    m = deepseek_v3();
    m.attn_sinks = true;
    expect_lib_error(&m, "model.kv_lora_rank",
                     "multi-latent attention with attention biases, QK-norm or sinks cannot be "
                     "counted (DeepSeek's MLA has none)");
    m = deepseek_v3();
    m.v_head_dim = 0;
    expect_lib_error(&m, "model.v_head_dim",
                     "multi-latent attention needs v_head_dim >= 1 (it is 0)");
    m = llama(4, 64, 4, 0, 128, 100, false);
    m.q_lora_rank = 16;
    expect_lib_error(&m, "model.kv_lora_rank",
                     "multi-latent attention dims are given but kv_lora_rank is 0 (MLA needs "
                     "kv_lora_rank > 0)");
    m = llama(4, 64, 4, 0, 128, 100, false);
    m.global_every = 2;
    expect_lib_error(&m, "model.global_every",
                     "global_every 2 needs a sliding_window or an attention_chunk (both are 0)");
    m.sliding_window = 16;
    m.global_every = 5;
    expect_lib_error(&m, "model.global_every", "5 is out of range [0, 4]");
    m = llama(4, 64, 4, 0, 128, 100, false);
    m.qk_norm = (tp_qk_norm)7;
    expect_lib_error(&m, "model.qk_norm", "7 is not a QK-norm kind (none, head, full)");

    expect_parse_error("{" HF_QWEN3_MOE ",\"mlp_only_layers\":[1]}", "mlp_only_layers",
                       "\"mlp_only_layers\" must be empty: a list of dense layers is not a "
                       "pattern trainplan can express (first dense layers, then every n-th)");
    expect_parse_error("{\"model_type\":\"gpt_oss\",\"hidden_size\":64,\"num_hidden_layers\":3,"
                       "\"num_attention_heads\":4,\"intermediate_size\":32,\"vocab_size\":100,"
                       "\"num_local_experts\":4,\"num_experts_per_tok\":2,\"sliding_window\":8,"
                       "\"layer_types\":[\"sliding_attention\",\"full_attention\","
                       "\"full_attention\"]}",
                       "layer_types",
                       "\"layer_types\" is not a pattern trainplan can express (every n-th layer "
                       "full attention, the others sliding)");
    expect_parse_error("{\"model_type\":\"deepseek_v3\",\"hidden_size\":64,"
                       "\"num_hidden_layers\":4,\"num_attention_heads\":4,"
                       "\"intermediate_size\":128,\"vocab_size\":100,\"n_routed_experts\":8,"
                       "\"num_experts_per_tok\":2,\"moe_intermediate_size\":32,"
                       "\"qk_rope_head_dim\":8,\"qk_nope_head_dim\":8,\"v_head_dim\":8}",
                       "kv_lora_rank",
                       "missing key \"kv_lora_rank\" (HF config.json, model_type deepseek_v3)");
    /* group-limited routing: the groups split the experts, a token's groups are among them */
#define DS_SMALL                                                                                   \
    "{\"model_type\":\"deepseek_v3\",\"hidden_size\":64,\"num_hidden_layers\":4,"                  \
    "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100,"                      \
    "\"n_routed_experts\":8,\"num_experts_per_tok\":2,\"moe_intermediate_size\":32,"               \
    "\"kv_lora_rank\":16,\"qk_rope_head_dim\":8,\"qk_nope_head_dim\":8,\"v_head_dim\":8,"
    expect_parse_error(DS_SMALL "\"n_group\":3,\"topk_group\":1}", "n_group",
                       "\"n_group\" (3) must divide the 8 routed experts");
    expect_parse_error(DS_SMALL "\"n_group\":4,\"topk_group\":5}", "topk_group",
                       "\"topk_group\" (5) must not exceed \"n_group\" (4)");
    expect_parse_error(DS_SMALL "\"n_group\":0}", "n_group",
                       "\"n_group\" must be a positive integer, got 0");
#undef DS_SMALL
    expect_parse_error("{\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\","
                       "\"num_layers\":2,\"hidden\":64,\"num_heads\":4,\"ffn_hidden\":128,"
                       "\"vocab\":100,\"mla\":{\"kv_lora_rank\":16,\"qk_rope_head_dim\":8,"
                       "\"qk_nope_head_dim\":8}}",
                       "mla.v_head_dim", "missing key \"mla.v_head_dim\"");
    expect_parse_error("{\"norm\":\"rmsnorm\",\"mlp\":\"swiglu\",\"position\":\"rotary\","
                       "\"num_layers\":2,\"hidden\":64,\"num_heads\":4,\"ffn_hidden\":128,"
                       "\"vocab\":100,\"attention\":{\"window\":8}}",
                       "attention.window", "unknown key \"attention.window\"");

    expect_parse_error("{\"model_type\":\"jamba\",\"hidden_size\":64,\"num_hidden_layers\":8,"
                       "\"num_attention_heads\":4,\"intermediate_size\":128,\"vocab_size\":100,"
                       "\"mamba_proj_bias\":true}",
                       "mamba_proj_bias",
                       "\"mamba_proj_bias\": true is not supported for model_type jamba (Mamba-1 "
                       "projection biases are not modelled)");
    expect_parse_error("{\"model_type\":\"dbrx\",\"d_model\":64,\"n_heads\":4,\"n_layers\":2,"
                       "\"vocab_size\":100,\"attn_config\":{\"kv_n_heads\":2}}",
                       "ffn_config",
                       "missing object \"ffn_config\" (HF config.json, model_type dbrx)");

    /* a qwen3_moe with decoder_sparse_step 2: MoE on layers 1 and 3 */
    tp_model q;
    tp_error err;
    assert_int_equal(
        tp_io_model_parse("{" HF_QWEN3_MOE ",\"decoder_sparse_step\":2}", NULL, &q, &err), TP_OK);
    assert_false(tp__layer_is_moe(&q, 0));
    assert_true(tp__layer_is_moe(&q, 1));
    assert_false(tp__layer_is_moe(&q, 2));
    assert_true(tp__layer_is_moe(&q, 3));
}

/* A DeepSeek-V3 Megatron-LM launch (the MLA, MTP and router-bias arguments
 * of Megatron-Core's DeepSeek-V3 recipe) imports as the same model. */
static void test_megatron_import(void **state)
{
    (void)state;
    static const char launch[] =
        "--num-layers 61 --hidden-size 7168 --ffn-hidden-size 18432 "
        "--num-attention-heads 128 --kv-channels 128 --multi-latent-attention "
        "--q-lora-rank 1536 --kv-lora-rank 512 --qk-head-dim 128 --qk-pos-emb-head-dim 64 "
        "--v-head-dim 128 --qk-layernorm --normalization RMSNorm --swiglu "
        "--untie-embeddings-and-output-weights --disable-bias-linear "
        "--position-embedding-type rope --num-experts 256 "
        "--moe-layer-freq ([0]*3+[1]*58) --moe-ffn-hidden-size 2048 "
        "--moe-shared-expert-intermediate-size 2048 --moe-router-topk 8 "
        "--moe-router-enable-expert-bias --mtp-num-layers 1 --vocab-size 129280 "
        "--seq-length 4096 --micro-batch-size 1 --global-batch-size 8192 --bf16";
    tp_import im;
    tp_error err;
    memset(&err, 0, sizeof err);
    if (tp_io_import_megatron(launch, "dsv3.sh", &im, &err) != TP_OK) {
        print_error("%s: %s\n", err.path, err.message);
        fail();
    }
    tp_params p = params_of(&im.model);
    assert_int_equal(p.total, 682636487424LL);
    assert_int_equal(p.mtp, 11610068224LL);
    /* the equivalent trainplan flags rebuild it */
    const char *mla = tp_io_import_value(&im, "--kv-lora-rank");
    const char *mtp = tp_io_import_value(&im, "--mtp-layers");
    const char *kv = tp_io_import_value(&im, "--kv-heads");
    bool bias = tp_io_import_value(&im, "--router-bias") != NULL;
    assert_true(kv && strcmp(kv, "128") == 0);
    assert_true(mla && strcmp(mla, "512") == 0 && mtp && strcmp(mtp, "1") == 0);
    assert_true(bias);

    /* the trainplan flags of a changed preset carry the features back */
    tp_config c = fixture_config(load("deepseek-v3"));
    c.model.mtp_layers = 2;
    char *flags = tp_io_config_flags(&c);
    assert_non_null(flags);
    assert_non_null(strstr(flags, " --kv-lora-rank 512 "));
    assert_non_null(strstr(flags, " --mtp-layers 2 "));
    assert_non_null(strstr(flags, " --router-bias "));
    free(flags);
    /* and a feature of the preset the model lacks is written off, not
     * inherited from --model: no MTP module, no group-limited routing */
    c.model.mtp_layers = 0;
    c.model.moe_router_groups = c.model.moe_group_topk = 0;
    flags = tp_io_config_flags(&c);
    assert_non_null(flags);
    assert_non_null(strstr(flags, "--model deepseek-v3 "));
    assert_non_null(strstr(flags, " --mtp-layers 0 "));
    assert_non_null(strstr(flags, " --moe-router-groups 0 --moe-router-group-topk 0 "));
    free(flags);
    /* Qwen3's per-head q/k norms off; gpt-oss's sinks cannot be turned off
     * by a flag, so the line says it cannot carry the model */
    tp_config q = fixture_config(load("qwen3-30b-a3b"));
    q.model.qk_norm = TP_QK_NORM_NONE;
    flags = tp_io_config_flags(&q);
    assert_non_null(flags);
    assert_non_null(strstr(flags, " --qk-norm none "));
    free(flags);
    char lost[256];
    assert_int_equal(tp_io_config_flags_lost(&q, lost, sizeof lost), 0);
    tp_config g = fixture_config(load("gpt-oss-20b"));
    g.model.attn_sinks = false;
    assert_int_equal(tp_io_config_flags_lost(&g, lost, sizeof lost), 1);
    assert_string_equal(lost, "the model's attention sinks off (give its file with --model)");

    /* a window of 4096 left tokens, every 4th layer global; squared ReLU */
    static const char nemo[] = "--num-layers 8 --hidden-size 1024 --num-attention-heads 8 "
                               "--seq-length 8192 --micro-batch-size 1 --squared-relu "
                               "--window-size \"(4095, 0)\" --window-attn-skip-freq 4 --bf16";
    assert_int_equal(tp_io_import_megatron(nemo, NULL, &im, &err), TP_OK);
    assert_int_equal(im.model.sliding_window, 4096);
    assert_int_equal(im.model.global_every, 4);
    assert_int_equal(im.model.mlp, TP_MLP_SQRELU);
    /* a window that looks ahead is not causal attention */
    static const char ahead[] =
        "--num-layers 8 --hidden-size 1024 --num-attention-heads 8 "
        "--seq-length 8192 --micro-batch-size 1 --window-size 128,16 --bf16";
    assert_int_equal(tp_io_import_megatron(ahead, NULL, &im, &err), TP_ERR_CONFIG);
    assert_string_equal(err.path, "--window-size");
    assert_string_equal(err.message,
                        "\"--window-size\" 128,16 looks ahead 16 tokens; a causal window has "
                        "RIGHT 0");
}

/* The text_config of a stored llama4 config.json, as a llama4_text model. */
static tp_model llama4_text_of(const char *path)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    char *text = json_dumps(json_object_get(root, "text_config"), 0);
    tp_model m;
    tp_error err;
    if (!text || tp_io_model_parse(text, "llama4-text", &m, &err) != TP_OK) {
        print_error("%s: %s: %s\n", path, text ? err.path : "text_config", text ? err.message : "");
        fail();
    }
    free(text);
    json_decref(root);
    return m;
}

#define HF_LLAMA4_TEXT                                                                             \
    "\"model_type\":\"llama4_text\",\"hidden_size\":64,\"num_hidden_layers\":4,"                   \
    "\"num_attention_heads\":4,\"num_key_value_heads\":2,\"intermediate_size\":32,"                \
    "\"intermediate_size_mlp\":128,\"vocab_size\":100,\"num_local_experts\":4,"                    \
    "\"num_experts_per_tok\":1"

/* Llama 4 (hf_llama4.c): the released text models' exact counts, the MoE,
 * NoPE and chunk patterns, and the vision part refused naming its field. */
static void test_llama4(void **state)
{
    (void)state;
    /* Scout: 108,641,793,536 in the checkpoint (HF safetensors metadata) less
     * the 871,932,416 of its vision encoder and projector; 17.17B active (card: 17B) */
    tp_model scout = llama4_text_of(HF_DIR "llama-4-scout/config.json");
    tp_params ps = params_of(&scout);
    assert_int_equal(ps.total, 107769861120LL);
    assert_int_equal(ps.total + 871932416LL, 108641793536LL);
    assert_int_equal(ps.active, 17172894720LL);
    assert_int_equal(ps.num_moe_layers, 48);
    assert_int_equal(ps.moe_shared, 48LL * 3 * 5120 * 8192);
    assert_int_equal(ps.router, 48LL * 5120 * 16);
    assert_int_equal(scout.attention_chunk, 8192);
    assert_int_equal(scout.global_every, 4);          /* layers 3, 7, ...: NoPE, full attention */
    assert_int_equal(scout.qk_norm, TP_QK_NORM_NONE); /* Llama4TextL2Norm has no weight */
    assert_int_equal(scout.rope_scaling, TP_ROPE_SCALING_LLAMA3);
    /* Maverick: 401,583,781,376 in the checkpoint less the same vision part;
     * MoE on the odd layers, dense layers of intermediate_size_mlp between */
    tp_model mav = llama4_text_of(HF_DIR "llama-4-maverick/config.json");
    tp_params pm = params_of(&mav);
    assert_int_equal(pm.total, 400711848960LL);
    assert_int_equal(pm.total + 871932416LL, 401583781376LL);
    assert_int_equal(pm.active, 17184691200LL);
    assert_int_equal(pm.num_moe_layers, 24);
    assert_false(tp__layer_is_moe(&mav, 0));
    assert_true(tp__layer_is_moe(&mav, 1));
    assert_int_equal(pm.mlp_dense, 24LL * 3 * 5120 * 16384);

    /* the full files, vision tower included: the checkpoints' totals exactly */
    tp_model full = load(HF_DIR "llama-4-scout/config.json");
    tp_params pf = params_of(&full);
    assert_int_equal(pf.total, 108641793536LL);
    assert_int_equal(pf.vision + pf.vision_projector, 871932416LL);
    /* fc1 5632 x 4096, fc2 4096 x 4096, projector 4096 x 5120, no biases */
    assert_int_equal(pf.vision_projector, 23068672LL + 16777216LL + 20971520LL);
    assert_int_equal(full.vision.merge, 4);
    assert_int_equal(full.vision.positions, 577);
    assert_int_equal(full.vision.image_tokens, 576);
    tp_model mfull = load(HF_DIR "llama-4-maverick/config.json");
    assert_int_equal(params_of(&mfull).total, 401583781376LL);
    tp_model m;
    tp_error err;
#define L4_VISION                                                                                  \
    "\"vision_config\":{\"num_hidden_layers\":2,\"hidden_size\":32,\"num_attention_heads\":4,"     \
    "\"num_channels\":3,\"patch_size\":14,\"image_size\":56,\"projector_input_dim\":64,"           \
    "\"projector_output_dim\":64"
    expect_parse_error(
        "{\"model_type\":\"llama4\",\"text_config\":{" HF_LLAMA4_TEXT "}," L4_VISION
        ",\"intermediate_size\":128,\"pixel_shuffle_ratio\":0.5,\"vision_output_dim\":32}}",
        "vision_config.projector_output_dim",
        "\"vision_config.projector_input_dim\" (64), \"projector_output_dim\" "
        "(64) and \"vision_output_dim\" (32) must be equal (fc1's output is fc2's "
        "input and the projector's)");
    expect_parse_error(
        "{\"model_type\":\"llama4\",\"text_config\":{" HF_LLAMA4_TEXT "}," L4_VISION
        ",\"intermediate_size\":128,\"pixel_shuffle_ratio\":0.3,\"vision_output_dim\":64}}",
        "vision_config.pixel_shuffle_ratio",
        "\"vision_config.pixel_shuffle_ratio\" must merge a whole number of "
        "patches (1 / ratio^2: 0.5 merges 4)");
    expect_parse_error(
        "{\"model_type\":\"llama4\",\"text_config\":{" HF_LLAMA4_TEXT "}," L4_VISION
        ",\"intermediate_size\":96,\"pixel_shuffle_ratio\":0.5,\"vision_output_dim\":64}}",
        "vision_config.intermediate_size",
        "\"vision_config.intermediate_size\" 96 must be the pixel-shuffled width "
        "hidden_size x 4 = 128 (Llama4VisionMLP2's fc1 reads it)");
    assert_int_equal(tp_io_model_parse("{\"model_type\":\"llama4\",\"text_config\":{" HF_LLAMA4_TEXT
                                       "}," L4_VISION
                                       ",\"intermediate_size\":128,\"pixel_shuffle_ratio\":0.5,"
                                       "\"vision_output_dim\":64}}",
                                       NULL, &m, &err),
                     TP_OK);
    /* 16 patches, 4 language tokens; projector 128x64 + 64x64 + 64x64 */
    assert_int_equal(m.vision.image_tokens, 16);
    assert_int_equal(params_of(&m).vision_projector, 128 * 64 + 64 * 64 + 64 * 64);
    /* its forward: 2 FLOPs per multiply-add over the 4 language tokens, each linear */
    tp_vision_flops vf;
    tp__vision_flops(&m, 128.0, true, &vf);
    assert_rel(vf.projector, 2.0 * 4 * (128 * 64 + 64 * 64 + 64 * 64), 1e-15);
    m.vision.proj_hidden = 0;
    expect_lib_error(&m, "model.vision.proj_hidden2",
                     "a second projector width 64 needs a first (proj_hidden is 0)");
    /* without a vision_config, a llama4 file is its text model */
    assert_int_equal(tp_io_model_parse("{\"model_type\":\"llama4\",\"text_config\":{" HF_LLAMA4_TEXT
                                       "}}",
                                       NULL, &m, &err),
                     TP_OK);
    assert_int_equal(params_of(&m).num_moe_layers, 4);
    assert_int_equal(m.attention_chunk, 8192); /* Llama4TextConfig's defaults: chunk 8192, */
    assert_int_equal(m.global_every, 4);       /* every 4th layer NoPE and global */
    assert_int_equal(
        tp_io_model_parse("{" HF_LLAMA4_TEXT ",\"attention_chunk_size\":null}", NULL, &m, &err),
        TP_OK);
    assert_int_equal(m.attention_chunk, 0); /* null: no chunking */
    assert_int_equal(m.global_every, 0);
    /* a llama4 file's own tie_word_embeddings when its text_config has none */
    assert_int_equal(tp_io_model_parse("{\"model_type\":\"llama4\",\"tie_word_embeddings\":true,"
                                       "\"text_config\":{" HF_LLAMA4_TEXT "}}",
                                       NULL, &m, &err),
                     TP_OK);
    assert_true(m.tie_embeddings);
    expect_parse_error("{\"model_type\":\"llama4\",\"text_config\":{" HF_LLAMA4_TEXT
                       ",\"attention_chunk_size\":0}}",
                       "text_config.attention_chunk_size",
                       "\"attention_chunk_size\" must be a positive integer, got 0");
    expect_parse_error("{\"model_type\":\"llama4\"}", "text_config",
                       "missing object \"text_config\" (HF config.json, model_type llama4)");
    expect_parse_error("{" HF_LLAMA4_TEXT ",\"attention_chunk_size\":16,"
                       "\"no_rope_layers\":[1,0,0,1]}",
                       "no_rope_layers",
                       "\"no_rope_layers\" is not a pattern trainplan can express (every n-th "
                       "layer without RoPE and with full attention, the others chunked)");
    expect_parse_error("{" HF_LLAMA4_TEXT ",\"no_rope_layers\":[1,0,1]}", "no_rope_layers",
                       "\"no_rope_layers\" must be an array of 4 entries 0 or 1 (one per layer)");
    expect_parse_error("{" HF_LLAMA4_TEXT ",\"interleave_moe_layer_step\":2,"
                       "\"moe_layers\":[0,2]}",
                       "moe_layers",
                       "\"moe_layers\" is not a pattern trainplan can express (every "
                       "\"interleave_moe_layer_step\"-th layer, 2 here, from layer 1)");
    expect_parse_error("{" HF_LLAMA4_TEXT ",\"attention_bias\":true}", "attention_bias",
                       "\"attention_bias\": true is not supported for model_type llama4_text (a "
                       "bias on q, k, v and o with none on the MLP is not a layout trainplan "
                       "counts)");
    expect_parse_error("{" HF_LLAMA4_TEXT ",\"attention_chunk_size\":16,\"layer_types\":"
                       "[\"full_attention\",\"full_attention\",\"full_attention\","
                       "\"full_attention\"]}",
                       "layer_types",
                       "\"layer_types\" must be \"chunked_attention\" on the RoPE layers and "
                       "\"full_attention\" on the others (no_rope_layers), one per layer");
    /* no NoPE layer: every layer chunked */
    assert_int_equal(tp_io_model_parse("{" HF_LLAMA4_TEXT ",\"attention_chunk_size\":16,"
                                       "\"no_rope_layers\":[1,1,1,1]}",
                                       NULL, &m, &err),
                     TP_OK);
    assert_int_equal(m.attention_chunk, 16);
    assert_int_equal(m.global_every, 0);
}

/* Expert load: balanced by default; the busiest rank's work scales, FLOPs do not. */
static void test_expert_load(void **state)
{
    (void)state;
    tp_model m = llama(8, 1024, 8, 0, 4096, 1000, false);
    m.num_experts = 8;
    m.topk = 2;
    m.moe_layer_freq = 1;
    tp_config c = fixture_config(m);
    c.train.num_gpus = 8;
    c.train.ep = 8;
    c.train.global_batch = 8;
    tp_result r1, r2, r3, r4;
    tp_error err;
    assert_int_equal(tp_eval(&c, &r1, &err), TP_OK);
    c.model.moe_imbalance = 1.0; /* stating the default changes nothing */
    assert_int_equal(tp_eval(&c, &r2, &err), TP_OK);
    assert_true(same(r1.time.step_s, r2.time.step_s));
    assert_true(same(r1.memory.total_bytes, r2.memory.total_bytes));
    c.model.moe_imbalance = 2.0;
    assert_int_equal(tp_eval(&c, &r3, &err), TP_OK);
    assert_true(same(r1.flops.model_per_token, r3.flops.model_per_token));
    assert_true(r3.time.step_s > r1.time.step_s);
    assert_true(r3.memory.activations_bytes > r1.memory.activations_bytes);
    c.model.moe_capacity_factor = 1.0; /* drops everything past the mean: balanced again */
    assert_int_equal(tp_eval(&c, &r4, &err), TP_OK);
    assert_true(same(r1.time.step_s, r4.time.step_s));
    assert_true(same(r1.memory.activations_bytes, r4.memory.activations_bytes));
    c.model.moe_capacity_factor = 0.0;
    c.model.moe_imbalance = 0.5;
    expect_lib_error(&c.model, "model.moe_imbalance",
                     "0.5 is not a load imbalance: 0 (balanced) or [1, 1000], the busiest rank's "
                     "routed tokens over the mean");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mla_params),
        cmocka_unit_test(test_mla_flops),
        cmocka_unit_test(test_mla_tp_split),
        cmocka_unit_test(test_window_of_the_sequence_is_full_attention),
        cmocka_unit_test(test_packed_sequences_attend_per_example),
        cmocka_unit_test(test_chunked_attention),
        cmocka_unit_test(test_hf_families),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_llama4),
        cmocka_unit_test(test_megatron_import),
        cmocka_unit_test(test_mla_up_proj_recompute),
        cmocka_unit_test(test_fp8_act_cache),
        cmocka_unit_test(test_fp8_act_cache_mtp_gathered),
        cmocka_unit_test(test_te_fp8_storage),
        cmocka_unit_test(test_expert_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
