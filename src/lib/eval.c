/* SPDX-License-Identifier: MIT */
/*
 * eval.c: one evaluation = validate, count, FLOPs, memory of every distinct
 * pipeline stage (the heaviest is reported), step time. No allocation.
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
    /* Stage 0 and the last stage carry the embedding and the loss; with 1F1B
     * stage 0 also holds the most micro-batches. A middle stage can only be
     * the heaviest under an uneven split (stage 1 gets the first extra layer
     * and holds the most micro-batches of the middle stages), so stage 1 is
     * checked too. Known gap: a MoE layer pattern that puts more MoE layers
     * on a later middle stage is not checked. */
    int64_t p = c->train.pp;
    tp_memory_stage(c, padded, 0, &r->stage_first);
    r->memory = r->stage_first;
    if (p > 1) {
        tp_memory_stage(c, padded, p - 1, &r->stage_last);
        if (r->stage_last.total_bytes > r->memory.total_bytes)
            r->memory = r->stage_last;
        if (p > 2) {
            tp_memory mid;
            tp_memory_stage(c, padded, 1, &mid);
            if (mid.total_bytes > r->memory.total_bytes)
                r->memory = mid;
        }
    } else {
        r->stage_last = r->stage_first;
    }
    /* the reported stage is the heaviest of those checked, and a real one */
    assert(r->memory.total_bytes >= r->stage_first.total_bytes &&
           r->memory.total_bytes >= r->stage_last.total_bytes);
    assert(r->memory.stage >= 0 && r->memory.stage < p);
}

tp_status tp_eval(const tp_config *c, tp_result *out, tp_error *err)
{
    tp_status st = tp_config_validate(c, err);
    if (st != TP_OK)
        return st;
    memset(out, 0, sizeof *out);
    st = tp_model_params(&c->model, 0, &out->params, err);
    if (st != TP_OK)
        return st;
    /* FLOPs and memory use the padded vocabulary when padding is asked for. */
    tp_params padded = out->params;
    if (c->train.pad_vocab_to > 1) {
        st = tp_model_params(&c->model, c->train.pad_vocab_to, &padded, err);
        if (st != TP_OK)
            return st;
    }
    out->dp = tp_train_dp(&c->train);
    out->grad_accum = tp__grad_accum(&c->train);
    tp_flops_eval(c, &padded, &out->flops);

    tp__memory_heaviest(c, &padded, out);
    if (!out->memory.fits && out->memory.total_bytes <= out->memory.capacity_bytes) {
        int64_t gpn = tp_gpus_per_node(&c->train, &c->gpu);
        snprintf(out->reason, sizeof out->reason,
                 "host memory: %lld GPUs x %.1f GiB of offloaded %s = %.1f GiB > "
                 "%.1f GiB per node",
                 (long long)gpn, out->memory.host_bytes / TP_GIB,
                 c->train.offload_params || c->train.offload_act_layers ? "state"
                                                                        : "optimizer state",
                 (double)gpn * out->memory.host_bytes / TP_GIB,
                 c->opts.host_mem_bytes_per_node / TP_GIB);
    } else if (!out->memory.fits) {
        double part_bytes;
        const char *part = tp__largest_mem_part(&out->memory, &part_bytes);
        snprintf(out->reason, sizeof out->reason,
                 "stage %lld needs %.1f GiB > %.1f GiB capacity; largest part: %s %.1f GiB",
                 (long long)out->memory.stage, out->memory.total_bytes / TP_GIB,
                 out->memory.capacity_bytes / TP_GIB, part, part_bytes / TP_GIB);
    }
    tp__step_time(c, out);
    return TP_OK;
}
