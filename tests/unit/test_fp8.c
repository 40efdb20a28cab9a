/* SPDX-License-Identifier: MIT */
/*
 * FP8 training's states and recipes (src/lib/memory.c header 2, time.c
 * header 11): fp8 parameter gather, the scaling recipes' cast bytes and
 * weight bytes, and TransformerEngine's fp8 copies of the linear weights,
 * each hand-derived on small Llama shapes against the H100 fixture (and a
 * Blackwell-like GPU: the fixture with an FP4 peak).
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "fixtures.h"
#include "time_checks.h"
#include "tp/tp.h"

/*
 * FP8 parameter gather (Megatron --fp8-param-gather): weights 1 B instead of
 * 2, so the weights on every stage halve exactly, gradients and optimizer
 * state (fp32 master + moments, 12 B) do not move; under ZeRO-1 the
 * parameter all-gather carries half the bytes, so the step is no slower.
 * Needs fp8 GEMMs and ZeRO >= 1.
 */
static void test_fp8_param_gather(void **state)
{
    (void)state;
    tp_config c = fixture_config(llama(16, 4096, 32, 8, 14336, 128256, false));
    c.train.num_gpus = 16;
    c.train.tp = 2;
    c.train.pp = 2;
    c.train.sp = true;
    c.train.zero = 1;
    c.train.seq_len = 4096;
    c.train.global_batch = 32;
    c.train.precision = TP_PREC_FP8;
    c.train.gpus_per_node = 4; /* DP 4 across nodes: the gather is visible */
    c.opts.dp_comm_overlap = false;
    tp_result a = eval_ok(&c);
    c.train.fp8_param_gather = true;
    tp_result b = eval_ok(&c);
    check_contract(&c, &b);
    assert_rel(b.memory.weights_bytes, 0.5 * a.memory.weights_bytes, 1e-15);
    assert_rel(b.stage_last.weights_bytes, 0.5 * a.stage_last.weights_bytes, 1e-15);
    assert_rel(b.memory.grads_bytes, a.memory.grads_bytes, 1e-15);
    assert_rel(b.memory.optimizer_bytes, a.memory.optimizer_bytes, 1e-15);
    assert_true(b.time.dp_comm_s < a.time.dp_comm_s);
    assert_true(b.time.step_s < a.time.step_s);
    tp_state_bytes sb;
    tp_state_bytes_per_param(&c.train, &sb);
    assert_rel(sb.total, 1.0 + 2.0 + 12.0, 1e-15);

    tp_error err = {0};
    c.train.zero = 0;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "train.fp8_param_gather");
    c.train.zero = 1;
    c.train.precision = TP_PREC_BF16;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "fp8 parameter gather needs precision fp8 (the weights are "
                                     "fp8 tensors), got bf16");
}

/*
 * FP8 recipes, hand-derived on one GPU with L = 4 dense layers (h 2048,
 * q 2048, f 8192), T = 2048 tokens, m = 1: tensorwise current scaling
 * reads every cast input once more (5 bytes per cast element against
 * delayed scaling's 3), so the step grows by the casts' 2h + 3q + 3f bytes
 * per token times 2/3, forward and twice backward, per layer at the
 * achieved HBM bandwidth. With fp8 weights (parameter gather) MXFP8 keeps
 * 1 + 1/32 bytes per weight and NVFP4 0.5 + 1/16. NVFP4's GEMMs run at
 * the fp4 peak: on a GPU whose fp4 peak is X it computes what delayed
 * scaling does on one whose fp8 peak is X, when memory traffic is free.
 * A GPU without an fp4 peak refuses the block-scaled recipes.
 */
static void test_fp8_recipes(void **state)
{
    (void)state;
    const double L = 4, h = 2048, q = 2048, f = 8192, T = 2048;
    tp_config c = fixture_config(llama((int64_t)L, (int64_t)h, 16, 16, (int64_t)f, 32000, false));
    c.train.seq_len = (int64_t)T;
    c.train.precision = TP_PREC_FP8;
    c.opts.fp8_weight_cache = false; /* the weights alone: test_fp8_weight_cache */
    tp_result d = eval_ok(&c);
    c.train.fp8_recipe = TP_FP8_TENSORWISE;
    tp_result tw = eval_ok(&c);
    check_contract(&c, &tw);
    double B = c.gpu.mem_bw_bytes_per_s * c.gpu.eff.mem_bw;
    double want = L * 3.0 * T * (2.0 * h + 3.0 * q + 3.0 * f) * (2.0 / 3.0) / B;
    assert_rel(tw.time.compute_s - d.time.compute_s, want, 1e-9);
    /* delayed scaling keeps the output projection's fp8 copy of the
     * attention output, 1 B x q per token (memory.c te_fp8_saving) */
    assert_rel(d.memory.act_per_layer_bytes - tw.memory.act_per_layer_bytes, T * q, 1e-12);
    assert_rel(tw.memory.weights_bytes, d.memory.weights_bytes, 1e-12);

    tp_error err = {0};
    c.train.fp8_recipe = TP_FP8_MXFP8; /* the fixture H100 has no fp4 peak */
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "train.fp8_recipe");
    assert_true(strstr(err.message, "(gpu.peak_fp4_flops_per_s is 0)") != NULL);
    c.gpu.peak_fp4_flops_per_s = 2.0 * c.gpu.peak_flops_per_s[TP_PREC_FP8];
    c.train.zero = 1;
    c.train.fp8_param_gather = true;
    tp_result mx = eval_ok(&c);
    double P = mx.memory.params_on_gpu;
    assert_rel(mx.memory.weights_bytes, (1.0 + 1.0 / 32.0) * P, 1e-12);
    c.train.fp8_recipe = TP_FP8_NVFP4;
    tp_result nv = eval_ok(&c);
    check_contract(&c, &nv);
    assert_rel(nv.memory.weights_bytes, (0.5 + 1.0 / 16.0) * P, 1e-12);

    /* NVFP4 at fp4 peak X == delayed at fp8 peak X, memory traffic free */
    c.gpu.mem_bw_bytes_per_s = 1e30;
    tp_result nv_free = eval_ok(&c);
    tp_config e = c;
    e.train.fp8_recipe = TP_FP8_DELAYED;
    e.gpu.peak_flops_per_s[TP_PREC_FP8] = c.gpu.peak_fp4_flops_per_s;
    tp_result d_free = eval_ok(&e);
    assert_rel(nv_free.time.compute_s, d_free.time.compute_s, 1e-12);

    c.train.precision = TP_PREC_BF16;
    c.train.fp8_param_gather = false;
    assert_int_equal(tp_config_validate(&c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.message, "the nvfp4 recipe needs precision fp8, got bf16");
}

/*
 * TransformerEngine's fp8 copies of the linear weights (memory.c header 2),
 * hand-derived on one GPU, L = 4 Llama layers (h 1024, f 4096), V 32000
 * untied: the linear parameters are every parameter but the embedding, the
 * head and the final norm, lin = P - 2Vh - h. Per linear parameter: on the
 * fixture H100 (no FP4 peak) the cached copy and its transpose, 2 B; with
 * fp8 parameters the transpose alone, 1 B. On a GPU with an FP4 peak
 * (Blackwell) no transpose: 1 B, and 0 with fp8 parameters; MXFP8 keeps a
 * column-wise copy of 1 + 1/32 B beside fp8 parameters. None in bf16, with
 * torchao's saved inputs or with the switch off. Under ZeRO 3 the gathered
 * working set carries them: 2 prefetched layers x 2 B.
 */
static void test_fp8_weight_cache(void **state)
{
    (void)state;
    const double h = 1024, V = 32000;
    tp_config c = fixture_config(llama(4, (int64_t)h, 8, 8, 4096, (int64_t)V, false));
    c.train.seq_len = 2048;
    c.train.precision = TP_PREC_FP8;
    tp_result on = eval_ok(&c);
    check_contract(&c, &on);
    double lin = on.memory.params_on_gpu - 2.0 * V * h - h;
    double layer = (on.memory.params_on_gpu - 2.0 * V * h - h) / 4.0;
    c.opts.fp8_weight_cache = false;
    tp_result off = eval_ok(&c);
    assert_rel(on.memory.weights_bytes - off.memory.weights_bytes, 2.0 * lin, 1e-12);
    assert_rel(on.memory.fp8_copies_bytes, 2.0 * lin, 1e-12); /* reported apart too */
    assert_true(off.memory.fp8_copies_bytes <= 0.0);
    /* a state: no fragmentation reserve on it (that is on dynamic memory) */
    assert_rel(on.memory.total_bytes - off.memory.total_bytes, 2.0 * lin, 1e-9);
    assert_rel(on.time.step_s, off.time.step_s, 1e-15); /* memory only */

    c.opts.fp8_weight_cache = true;
    c.train.zero = 1;
    c.train.fp8_param_gather = true;
    tp_result pg = eval_ok(&c);
    assert_rel(pg.memory.weights_bytes - on.memory.weights_bytes, -on.memory.params_on_gpu - lin,
               1e-12); /* weight 2 -> 1, copies 2 -> 1 */

    c.gpu.peak_fp4_flops_per_s = 2.0 * c.gpu.peak_flops_per_s[TP_PREC_FP8]; /* Blackwell */
    c.train.fp8_param_gather = false;
    tp_result bw = eval_ok(&c);
    assert_rel(bw.memory.weights_bytes - off.memory.weights_bytes, lin, 1e-12);
    /* a stated compute capability decides, not the FP4 peak: 9.0 takes the
     * transpose, 10.0 and 13.0 not, 12.0 (consumer Blackwell) does */
    static const struct {
        int cc;
        double copies;
    } by_cc[] = {{90, 2.0}, {100, 1.0}, {110, 1.0}, {120, 2.0}, {130, 1.0}};
    for (size_t i = 0; i < sizeof by_cc / sizeof by_cc[0]; i++) {
        c.gpu.compute_capability = by_cc[i].cc;
        tp_result r = eval_ok(&c);
        assert_rel(r.memory.fp8_copies_bytes, by_cc[i].copies * lin, 1e-12);
    }
    c.gpu.compute_capability = 0;
    c.train.fp8_param_gather = true;
    tp_result bwp = eval_ok(&c);
    assert_rel(bwp.memory.weights_bytes, on.memory.params_on_gpu, 1e-12); /* 1 B, no copy */
    c.train.fp8_recipe = TP_FP8_MXFP8;
    tp_result mx = eval_ok(&c);
    assert_rel(mx.memory.weights_bytes, (1.0 + 1.0 / 32.0) * (on.memory.params_on_gpu + lin),
               1e-12);

    c.train.fp8_recipe = TP_FP8_DELAYED;
    c.train.fp8_param_gather = false;
    c.gpu.peak_fp4_flops_per_s = 0.0;
    c.opts.fp8_hp_saved_inputs = true; /* torchao: cast per call */
    tp_result ao = eval_ok(&c);
    assert_rel(ao.memory.weights_bytes, off.memory.weights_bytes, 1e-12);
    c.opts.fp8_hp_saved_inputs = false;
    c.train.precision = TP_PREC_BF16;
    tp_result bf = eval_ok(&c);
    assert_rel(bf.memory.weights_bytes, off.memory.weights_bytes, 1e-12);

    c.train.precision = TP_PREC_FP8;
    c.train.num_gpus = 2;
    c.train.global_batch = 2;
    c.train.zero = 3;
    tp_result z3 = eval_ok(&c);
    c.opts.fp8_weight_cache = false;
    tp_result z3off = eval_ok(&c);
    assert_rel(z3.memory.weights_bytes, z3off.memory.weights_bytes, 1e-12);
    assert_rel(z3.memory.weights_gathered_bytes - z3off.memory.weights_gathered_bytes,
               c.opts.zero3_prefetch_layers * layer * 2.0, 1e-12);
    assert_rel(z3.memory.fp8_copies_bytes, c.opts.zero3_prefetch_layers * layer * 2.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp8_param_gather),
        cmocka_unit_test(test_fp8_recipes),
        cmocka_unit_test(test_fp8_weight_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
