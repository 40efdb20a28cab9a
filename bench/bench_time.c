/* SPDX-License-Identifier: MIT */
/*
 * bench_time: evaluations per second on one core of the step-time model
 * alone (tp__step_time on an evaluated result) and of a full evaluation
 * (tp_eval: validation, parameters, FLOPs, memory of the end stages, step
 * time), for a few real configurations: dense data-parallel, 3D with
 * interleaving, ZeRO-3 with context parallelism, and MoE with expert
 * parallelism. Target: at least 1 million full evaluations per second.
 * Run by `make bench`; never a timed test.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "io.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct bench_case {
    const char *label, *model, *gpu;
    int64_t gpus, tp, pp, cp, ep, vpp, zero, mb, gb, seq;
    tp_recompute rc;
    tp_precision prec;
} bench_case;

static const bench_case cases[] = {
    {"llama-3-8b FSDP x8", "llama-3-8b", "h100-sxm", 8, 1, 1, 1, 1, 1, 3, 2, 16, 8192,
     TP_RECOMPUTE_SELECTIVE, TP_PREC_BF16},
    {"llama-3-70b TP8 PP4 v5 DP8", "llama-3-70b", "h100-sxm", 256, 8, 4, 1, 1, 5, 1, 1, 512, 8192,
     TP_RECOMPUTE_SELECTIVE, TP_PREC_FP8},
    {"llama-3.1-405b TP8 PP8 CP2 ZeRO-3", "llama-3.1-405b", "h100-sxm", 1024, 8, 8, 2, 1, 1, 3, 1,
     256, 32768, TP_RECOMPUTE_FULL, TP_PREC_BF16},
    {"mixtral-8x7b TP2 PP4 EP4", "mixtral-8x7b", "h100-sxm", 256, 2, 4, 1, 4, 1, 1, 1, 256, 4096,
     TP_RECOMPUTE_NONE, TP_PREC_BF16},
};

#define NUM_CASES (sizeof cases / sizeof cases[0])

int main(void)
{
    tp_config cfg[NUM_CASES];
    tp_result res[NUM_CASES];
    for (size_t i = 0; i < NUM_CASES; i++) {
        const bench_case *b = &cases[i];
        tp_error err = {0};
        tp_config *c = &cfg[i];
        memset(c, 0, sizeof *c);
        tp_train_default(&c->train);
        tp_options_default(&c->opts);
        if (tp_io_model_load(b->model, &c->model, &err) != TP_OK ||
            tp_io_gpu_load(b->gpu, &c->gpu, &err) != TP_OK) {
            fprintf(stderr, "bench_time: %s: %s\n", err.path, err.message);
            return 1;
        }
        tp_train *t = &c->train;
        t->num_gpus = b->gpus;
        t->tp = b->tp;
        t->sp = b->tp > 1;
        t->pp = b->pp;
        t->cp = b->cp;
        t->ep = b->ep;
        t->vpp = b->vpp;
        t->schedule = b->vpp > 1 ? TP_SCHED_INTERLEAVED : TP_SCHED_1F1B;
        t->zero = (int)b->zero;
        t->micro_batch = b->mb;
        t->global_batch = b->gb;
        t->seq_len = b->seq;
        t->recompute = b->rc;
        t->precision = b->prec;
        c->opts.tp_comm_overlap = b->tp > 1;
        if (tp_eval(c, &res[i], &err) != TP_OK) {
            fprintf(stderr, "bench_time: %s: %s: %s\n", b->label, err.path, err.message);
            return 1;
        }
        printf("bench_time: %-36s step %8.3f s  MFU %5.1f%%  %s\n", b->label, res[i].time.step_s,
               100.0 * res[i].time.mfu, res[i].time.bottleneck);
    }

    volatile double sink = 0.0;
    const long time_iters = 4000000;
    double t0 = now_s();
    for (long k = 0; k < time_iters; k++) {
        size_t i = (size_t)k % NUM_CASES;
        tp__step_time(&cfg[i], NULL, &res[i]);
        sink += res[i].time.step_s;
    }
    double t_time = now_s() - t0;

    const long full_iters = 2000000;
    double per_case[NUM_CASES];
    double t_full = 0.0;
    for (size_t i = 0; i < NUM_CASES; i++) {
        long n = full_iters / (long)NUM_CASES;
        t0 = now_s();
        for (long k = 0; k < n; k++) {
            tp_result r;
            if (tp_eval(&cfg[i], &r, NULL) != TP_OK)
                return 1;
            sink += r.time.step_s + r.memory.total_bytes;
        }
        per_case[i] = now_s() - t0;
        t_full += per_case[i];
        printf("bench_time: full evaluation, %-36s %.2f million/s\n", cases[i].label,
               (double)n / per_case[i] / 1e6);
    }
    printf("bench_time: step-time model alone: %.2f million evaluations/s (%.0f ns each)\n",
           (double)time_iters / t_time / 1e6, t_time / (double)time_iters * 1e9);
    printf("bench_time: full evaluation (memory + time): %.2f million evaluations/s (%.0f ns "
           "each; target >= 1 million/s)\n",
           (double)full_iters / t_full / 1e6, t_full / (double)full_iters * 1e9);
    (void)sink;
    return 0;
}
