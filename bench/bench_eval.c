/* SPDX-License-Identifier: MIT */
/*
 * bench_eval: evaluations per second of the memory model (one pipeline
 * stage, tp_memory_stage) and of a full evaluation (tp_eval: validation,
 * parameter count, FLOPs, memory of the end stages, step time) on one core:
 * all five models, the dense ones, the MoE/MLA one, the four of the
 * figures before MLA (2026-11-21: compare like with like), and all five
 * with a hardware profile's GEMM model.
 * Run by `make bench`; the figures go in the README. Never a timed test.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "io.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* per core, whatever else runs */
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bench_case {
    const char *model, *gpu;
    int64_t gpus, tp, pp, cp, zero, mb, gb, seq;
} bench_case;

static const bench_case cases[] = {
    {"llama-3-8b", "h100-sxm", 8, 1, 1, 1, 3, 2, 16, 8192},
    {"llama-3-70b", "h100-sxm", 256, 8, 1, 1, 1, 1, 512, 8192},
    {"llama-3.1-405b", "h100-sxm", 512, 8, 8, 1, 1, 1, 256, 8192},
    {"mixtral-8x7b", "h100-sxm", 64, 2, 4, 1, 1, 1, 256, 4096},
    /* fine-grained MoE with multi-latent attention and an MTP module */
    {"deepseek-v3", "h100-sxm", 1024, 1, 16, 1, 1, 1, 4096, 4096},
};
#define DENSE_CASES 3 /* cases[0..2] are dense */
#define MLA_CASE 4    /* cases[4] is the MoE/MLA model */
#define OLD_CASES 4   /* cases[0..3]: the workload of the figures before MLA (2026-11-21) */

int main(void)
{
    const size_t n = sizeof cases / sizeof cases[0];
    tp_config cfg[sizeof cases / sizeof cases[0]];
    tp_params params[sizeof cases / sizeof cases[0]];
    for (size_t i = 0; i < n; i++) {
        tp_error err;
        tp_config *c = &cfg[i];
        memset(c, 0, sizeof *c);
        tp_train_default(&c->train);
        tp_options_default(&c->opts);
        if (tp_io_model_load(cases[i].model, &c->model, &err) != TP_OK ||
            tp_io_gpu_load(cases[i].gpu, &c->gpu, &err) != TP_OK) {
            fprintf(stderr, "bench_eval: %s: %s\n", err.path, err.message);
            return 1;
        }
        c->train.num_gpus = cases[i].gpus;
        c->train.tp = cases[i].tp;
        c->train.sp = cases[i].tp > 1;
        c->train.pp = cases[i].pp;
        c->train.cp = cases[i].cp;
        c->train.ep = c->model.num_experts > 0 ? (c->model.kv_lora_rank > 0 ? 8 : 2) : 1;
        c->train.zero = (int)cases[i].zero;
        c->train.micro_batch = cases[i].mb;
        c->train.global_batch = cases[i].gb;
        c->train.seq_len = cases[i].seq;
        c->train.recompute = TP_RECOMPUTE_SELECTIVE;
        if (tp_config_validate(c, &err) != TP_OK ||
            tp_model_params(&c->model, 0, &params[i], &err) != TP_OK) {
            fprintf(stderr, "bench_eval: case %zu: %s: %s\n", i, err.path, err.message);
            return 1;
        }
    }

    const long iters = 4000000;
    volatile double sink = 0.0;
    double t0 = now_s();
    for (long k = 0; k < iters; k++) {
        size_t i = (size_t)k % n;
        tp_memory m;
        tp_memory_stage(&cfg[i], &params[i], 0, &m);
        sink += m.total_bytes;
    }
    double t_mem = now_s() - t0;

    const long full_iters = 2000000;
    t0 = now_s();
    for (long k = 0; k < full_iters; k++) {
        size_t i = (size_t)k % n;
        tp_result r;
        if (tp_eval(&cfg[i], &r, NULL) != TP_OK)
            return 1;
        sink += r.memory.total_bytes + r.time.step_s;
    }
    double t_full = now_s() - t0;

    /* the dense models alone (the issue-16 budget: above 1 million/s/core),
     * and the MoE/MLA model alone */
    const long part_iters = 600000;
    t0 = now_s();
    for (long k = 0; k < part_iters; k++) {
        tp_result r;
        if (tp_eval(&cfg[(size_t)k % DENSE_CASES], &r, NULL) != TP_OK)
            return 1;
        sink += r.time.step_s;
    }
    double t_dense = now_s() - t0;
    t0 = now_s();
    for (long k = 0; k < part_iters; k++) {
        tp_result r;
        if (tp_eval(&cfg[MLA_CASE], &r, NULL) != TP_OK)
            return 1;
        sink += r.time.step_s;
    }
    double t_mla = now_s() - t0;
    t0 = now_s();
    for (long k = 0; k < full_iters; k++) {
        tp_result r;
        if (tp_eval(&cfg[(size_t)k % OLD_CASES], &r, NULL) != TP_OK)
            return 1;
        sink += r.memory.total_bytes + r.time.step_s;
    }
    double t_old = now_s() - t0;
    /* the same with the kernel-level GEMM model (a hardware profile's
     * fields, data/hardware/h100-sxm.json: issue 17) */
    for (size_t i = 0; i < n; i++) {
        cfg[i].gpu.eff.sm_count = 132.0;
        cfg[i].gpu.eff.tile_m = 128.0;
        cfg[i].gpu.eff.tile_n = 256.0;
        cfg[i].gpu.eff.mamf = 794.5 / 989.4;
        cfg[i].gpu.eff.gemm_sw = 0.75;
    }
    t0 = now_s();
    for (long k = 0; k < full_iters; k++) {
        size_t i = (size_t)k % n;
        tp_result r;
        if (tp_eval(&cfg[i], &r, NULL) != TP_OK)
            return 1;
        sink += r.memory.total_bytes + r.time.step_s;
    }
    double t_prof = now_s() - t0;

    printf("bench_eval: memory model (one stage): %.2f million evaluations/s (%.0f ns each)\n",
           (double)iters / t_mem / 1e6, t_mem / (double)iters * 1e9);
    printf("bench_eval: full evaluation (tp_eval): %.2f million evaluations/s (%.0f ns each)\n",
           (double)full_iters / t_full / 1e6, t_full / (double)full_iters * 1e9);
    printf("bench_eval: full evaluation, dense models: %.2f million evaluations/s (%.0f ns each)\n",
           (double)part_iters / t_dense / 1e6, t_dense / (double)part_iters * 1e9);
    printf("bench_eval: full evaluation, MoE + MLA (deepseek-v3): %.2f million evaluations/s "
           "(%.0f ns each)\n",
           (double)part_iters / t_mla / 1e6, t_mla / (double)part_iters * 1e9);
    printf("bench_eval: full evaluation, the four models before MLA (no deepseek-v3): %.2f million "
           "evaluations/s (%.0f ns each)\n",
           (double)full_iters / t_old / 1e6, t_old / (double)full_iters * 1e9);
    printf("bench_eval: full evaluation, --hw-profile GEMM model: %.2f million evaluations/s "
           "(%.0f ns each)\n",
           (double)full_iters / t_prof / 1e6, t_prof / (double)full_iters * 1e9);
    (void)sink;
    return 0;
}
