/* SPDX-License-Identifier: MIT */
/*
 * eval.c: one evaluation = validate, count, FLOPs, memory of every distinct
 * pipeline stage (the heaviest is reported), step time. No allocation.
 * Why a layout does not fit is formatted only when asked for
 * (tp_result_reason): a search meets millions of layouts that do not.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

double tp_bubble_fraction(tp_schedule s, int64_t p, int64_t m, int64_t v, tp_bubble_def def)
{
    if (p <= 1 || m <= 0)
        return 0.0;
    double pp = (double)p, mm = (double)m;
    if (s == TP_SCHED_DUALPIPE) {
        /* deepseek-ai/DualPipe README: (p/2 - 1)(F&B + B - 3W), B the full
         * backward, F&B a forward and a backward overlapped. With F = 1, the
         * input gradient 1 and the weight gradient W = 1 (B = 2, the
         * uniform convention behind 1F1B's (p-1)/m) and F&B = F + B = 3
         * (only communication hides): p - 2 units against m(F + B) = 3m. */
        if (def == TP_BUBBLE_OF_IDEAL)
            return (pp - 2.0) / (3.0 * mm);
        return (pp - 2.0) / (3.0 * mm + pp - 2.0);
    }
    double vv = (s == TP_SCHED_INTERLEAVED && v > 1) ? (double)v : 1.0;
    /* Narayanan et al. 2021: bubble / ideal = (p-1)/(v*m); as a share of
     * the whole step (zero-bubble README convention): (p-1)/(v*m + p-1). */
    if (def == TP_BUBBLE_OF_IDEAL)
        return (pp - 1.0) / (vv * mm);
    return (pp - 1.0) / (vv * mm + pp - 1.0);
}

const char *tp__largest_mem_part(const tp_memory *m, double *bytes)
{
    struct {
        const char *name;
        double v;
    } parts[] = {
        {"weights", m->weights_bytes},
        {"ZeRO-3 gathered weights", m->weights_gathered_bytes},
        {"gradients", m->grads_bytes},
        {"optimizer state", m->optimizer_bytes},
        {"activations", m->activations_bytes},
        {"logits", m->logits_bytes},
    };
    size_t best = 0;
    for (size_t i = 1; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].v > parts[best].v)
            best = i;
    *bytes = parts[best].v;
    return parts[best].name;
}

void tp__memory_heaviest(const tp_config *c, const tp_params *padded, tp_result *r)
{
    tp__stages sg;
    tp__stages_of(&c->train, &c->model, &sg);
    tp__memory_heaviest_act(c, padded, &sg, r, NULL, NULL);
}

void tp__memory_heaviest_act(const tp_config *c, const tp_params *padded, const tp__stages *sg,
                             tp_result *r, double *acts, bool *have)
{
    /* Stage 0 and the last stage carry the embedding and the loss; with 1F1B
     * stage 0 also holds the most micro-batches. A middle stage can only be
     * the heaviest under an uneven split (stage 1 gets the first extra layer
     * and holds the most micro-batches of the middle stages), so stage 1 is
     * checked too, and under the in-order split the later middle stage of
     * as many layers with more MoE layers (tp__middle_stage), if any. Known
     * gap: under Megatron's split a MoE layer pattern that puts more MoE
     * layers on a later middle stage is not checked. */
    int64_t p = c->train.pp;
    if (c->train.schedule == TP_SCHED_DUALPIPE) { /* every rank holds a stage pair */
        tp__memory_dualpipe(c, padded, r, acts, have);
        return;
    }
    tp_memory mid[2];
    tp_memory *const out[4] = {&r->stage_first, &r->stage_last, &mid[0], &mid[1]};
    tp__memory_stages_act(c, padded, sg, out, acts, have);
    r->memory = r->stage_first;
    if (p == 1)
        r->stage_last = r->stage_first;
    for (int i = 1; i < sg->n; i++)
        if (out[i]->total_bytes > r->memory.total_bytes)
            r->memory = *out[i];
    /* the reported stage is the heaviest of those checked, and a real one */
    assert(r->memory.total_bytes >= r->stage_first.total_bytes &&
           r->memory.total_bytes >= r->stage_last.total_bytes);
    assert(r->memory.stage >= 0 && r->memory.stage < p);
}

const char *tp_result_reason(const tp_result *r, char *buf, size_t cap)
{
    const tp_memory *m = &r->memory;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    if (m->fits)
        return buf;
    if (m->total_bytes <= m->capacity_bytes) { /* then the host memory is what is short */
        snprintf(buf, cap,
                 "host memory: %lld GPUs x %.1f GiB of offloaded %s = %.1f GiB > "
                 "%.1f GiB per node",
                 (long long)m->host_gpus, m->host_bytes / TP_GIB,
                 m->host_more ? "state" : "optimizer state",
                 (double)m->host_gpus * m->host_bytes / TP_GIB, m->host_capacity_bytes / TP_GIB);
    } else {
        double part_bytes;
        const char *part = tp__largest_mem_part(m, &part_bytes);
        snprintf(buf, cap,
                 "stage %lld needs %.1f GiB > %.1f GiB capacity; largest part: %s %.1f GiB",
                 (long long)m->stage, m->total_bytes / TP_GIB, m->capacity_bytes / TP_GIB, part,
                 part_bytes / TP_GIB);
    }
    return buf;
}

tp_status tp_eval(const tp_config *c, tp_result *out, tp_error *err)
{
    tp_status st = tp_config_validate(c, err);
    if (st != TP_OK)
        return st;
    memset(out, 0, sizeof *out);
    /* the model and the pad are valid (tp_config_validate): not again */
    tp__model_params(&c->model, 0, &out->params);
    /* FLOPs and memory use the padded vocabulary when padding is asked for. */
    tp_params padded = out->params;
    if (c->train.pad_vocab_to > 1)
        tp__model_params(&c->model, c->train.pad_vocab_to, &padded);
    out->dp = tp_train_dp(&c->train);
    out->grad_accum = tp__grad_accum(&c->train);
    out->schedule_runs = tp__schedule_runs(&c->train);
    tp_flops_eval(c, &padded, &out->flops);

    tp__stages sg; /* the checked stages' bounds, once for both models */
    tp__stages_of(&c->train, &c->model, &sg);
    tp__memory_heaviest_act(c, &padded, &sg, out, NULL, NULL);
    tp__step_time(c, &sg, out);
    return TP_OK;
}
