/* SPDX-License-Identifier: MIT */
/*
 * explain_out.c: the output of `trainplan explain` (see explain_out.h):
 * the seeds' ordered recipe (libtp tp_recipe_run) narrated step by step
 * with its numbers, compared with the search's best, and the same numbers
 * as JSON. Moved out of src/cli/cmd_explain.c so that any front end
 * writes the same bytes from the same library results.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_out.h"
#include "io.h"
#include "io_internal.h" /* tp_io_safe_text */

static const char *rc_name(tp_recompute r)
{
    return tp_io_recompute_name(r);
}

static void layout_text(char *buf, size_t n, const tp_config *c, const tp_result *r)
{
    const tp_train *t = &c->train;
    char ep[48] = "";
    if (c->model.num_experts > 0 && t->etp > 0 && t->etp != t->tp)
        snprintf(ep, sizeof ep, ", EP %lld, ETP %lld", (long long)t->ep, (long long)t->etp);
    else if (c->model.num_experts > 0)
        snprintf(ep, sizeof ep, ", EP %lld", (long long)t->ep);
    char vpp[32] = "";
    if (t->vpp > 1)
        snprintf(vpp, sizeof vpp, " (VPP %lld)", (long long)t->vpp);
    snprintf(buf, n,
             "TP %lld, PP %lld%s, CP %lld, DP %lld%s, ZeRO-%d, SP %s, recompute %s, "
             "micro-batch %lld x accumulation %lld",
             (long long)t->tp, (long long)t->pp, vpp, (long long)t->cp, (long long)r->dp, ep,
             t->zero, t->sp ? "on" : "off", rc_name(t->recompute), (long long)t->micro_batch,
             (long long)r->grad_accum);
}

static void mb_line(FILE *f, const char *mode, const tp_mb_max *m)
{
    fprintf(f,
            "     %-10s fixed %.2f GiB + b x %.2f GiB per sequence: largest micro-batch %lld "
            "(formula %lld; doubling ",
            mode, m->fixed_bytes / TP_GIB, m->per_seq_bytes / TP_GIB, (long long)m->bisect,
            (long long)m->formula);
    if (m->doubling == 0) {
        fprintf(f, "fails at 1)\n");
        return;
    }
    for (int64_t b = 1; b <= m->doubling; b *= 2)
        fprintf(f, "%lld, ", (long long)b);
    fprintf(f, "then %lld fails -> %lld; bisection %lld)\n", (long long)(2 * m->doubling),
            (long long)m->doubling, (long long)m->bisect);
}

typedef struct time_part {
    const char *name, *why;
    double d; /* recipe - best, seconds */
} time_part;

/* Why the search's best is faster: the step-time parts the recipe pays more for. */
static void compare(FILE *f, const tp_recipe *rc, const tp_search_item *best)
{
    const tp_time *a = &rc->result.time, *b = &best->result.time;
    char lay[320];
    layout_text(lay, sizeof lay, &best->config, &best->result);
    fprintf(f, "\nThe search's best (by predicted step time): %s\n", lay);
    if (!b->computed) {
        fprintf(f, "  (the step-time model is not available: no comparison of speed)\n");
        return;
    }
    fprintf(f, "  step %.3f s, MFU %.1f%%, memory %.2f of %.2f GiB\n", b->step_s, 100.0 * b->mfu,
            best->result.memory.total_bytes / TP_GIB, best->result.memory.capacity_bytes / TP_GIB);
    if (!rc->fits) {
        fprintf(f, "  The recipe's layout does not fit; the search's best does.\n");
        return;
    }
    double d = a->step_s - b->step_s;
    if (d <= 0.005 * a->step_s) {
        fprintf(f,
                "  The search finds nothing meaningfully faster: the recipe's layout is within "
                "0.5%% of the best (%+.3f s).\n",
                d);
        return;
    }
    fprintf(f,
            "  The search is faster by %.3f s per step (%.1f%% of the recipe's %.3f s; MFU "
            "%.1f%% vs %.1f%%).\n",
            d, 100.0 * d / a->step_s, a->step_s, 100.0 * b->mfu, 100.0 * a->mfu);
    /* which GEMM model made the compute time (docs/model.md 1a, 1b) */
    tp_io_gemm_model gm;
    tp_io_gemm_model_of(&best->config.gpu, best->config.train.precision, &gm);
    char gemm_why[240];
    snprintf(gemm_why, sizeof gemm_why,
             "GEMM efficiency (%s): TP and CP shrink every GEMM, smaller GEMMs run further "
             "from peak (the recipe counts only memory)",
             gm.kernel ? "kernel-level: the measured matmul rate, tile and wave quantization"
                       : "the fitted fraction, less for small GEMMs");
    time_part parts[] = {
        {"compute", gemm_why, a->compute_s - b->compute_s},
        {"recompute", "the extra forward of activation recomputation",
         a->recompute_s - b->recompute_s},
        {"TP communication",
         "TP all-reduces on the critical path of every layer (the recipe "
         "takes TP first, to fit, not for speed)",
         a->tp_comm_s - b->tp_comm_s},
        {"CP ring exchange", "the exposed part of the ring-attention K/V exchange",
         a->cp_comm_s - b->cp_comm_s},
        {"EP all-to-all", "expert dispatch and combine", a->ep_comm_s - b->ep_comm_s},
        {"PP point-to-point", "activations sent between stages", a->pp_comm_s - b->pp_comm_s},
        {"pipeline bubble", "fill and drain of the pipeline", a->bubble_s - b->bubble_s},
        {"DP/ZeRO communication", "gradient reduction and ZeRO gathers not hidden by compute",
         a->dp_comm_s - b->dp_comm_s},
        {"optimizer step", "the optimizer update", a->optimizer_s - b->optimizer_s},
    };
    size_t np = sizeof parts / sizeof parts[0];
    /* largest first */
    for (size_t i = 0; i < np; i++)
        for (size_t j = i + 1; j < np; j++)
            if (parts[j].d > parts[i].d) {
                time_part tmp = parts[i];
                parts[i] = parts[j];
                parts[j] = tmp;
            }
    fprintf(f, "  Costs the recipe ignored (recipe minus best, per step):\n");
    int shown = 0;
    for (size_t i = 0; i < np; i++) {
        if (parts[i].d <= 0.01 * d && shown > 0)
            break;
        if (parts[i].d <= 0.0)
            break;
        fprintf(f, "    %-22s +%.3f s  %s\n", parts[i].name, parts[i].d, parts[i].why);
        shown++;
    }
    for (size_t i = 0; i < np; i++)
        if (parts[i].d < -0.01 * d)
            fprintf(f, "    %-22s %.3f s  (the best pays more here)\n", parts[i].name, parts[i].d);
}

/* Steps 1 to 4: what must fit, and TP, micro-batch and PP to fit it. */
static void narrate_fit(FILE *f, const tp_config *c, const tp_recipe *r)
{
    const tp_model *m = &c->model;
    const tp_train *bt = &c->train;
    double cap = r->capacity_bytes;
    int64_t kv = tp_kv_heads(m);
    tp_state_bytes sb;
    tp_state_bytes_per_param(bt, &sb);

    fprintf(f,
            "The ordered recipe (seeds 003, 004): apply the axes cheapest communication first "
            "and stop as soon as it fits %.2f GiB (%.2f GB) per GPU.\n\n",
            cap / TP_GIB, cap / TP_GB);

    fprintf(f, "1. The bill (16N + activations)\n");
    fprintf(f,
            "   %.3g B parameters x %.4g bytes (%.4g weights + %.4g gradients + %.4g optimizer) "
            "= %.1f GB of model states (weights alone %.1f GB): at least %lld GPUs before any "
            "activation.\n",
            r->params / 1e9, r->state_bytes_per_param, sb.weights, sb.grads, sb.optimizer,
            r->state_bytes / TP_GB, r->weights_bytes / TP_GB, (long long)r->gpus_for_state);
    double copies = tp_fp8_weight_copy_bytes(c);
    if (copies > 0.0)
        fprintf(f,
                "   Beside them TransformerEngine keeps fp8 copies of the linear weights, %.4g "
                "bytes a linear parameter (docs/model.md 6): the memory figures below count "
                "them, the bill does not.\n",
                copies);
    fprintf(f,
            "   Activations of one %lld-token sequence through %lld layers: %.1f GB without "
            "recompute, %.1f GB with full recompute.\n\n",
            (long long)bt->seq_len, (long long)m->num_layers, r->act_seq_bytes / TP_GB,
            r->act_seq_full_bytes / TP_GB);

    fprintf(f, "2. TP inside a node first (the fast link; chatty all-reduces stay in the node)\n");
    fprintf(f,
            "   TP must divide %lld heads, %lld kv heads and the %lld-GPU node. Memory per GPU at "
            "micro-batch 1, PP 1, ZeRO-0, no recompute:\n  ",
            (long long)m->num_heads, (long long)kv, (long long)r->gpus_per_node);
    for (int i = 0; i < r->n_tp_tries; i++)
        fprintf(f, " TP %lld: %.1f GiB%s%s", (long long)r->tp_tries[i].value,
                r->tp_tries[i].total_bytes / TP_GIB, r->tp_tries[i].fits ? " (fits)" : "",
                i + 1 < r->n_tp_tries ? ";" : ".");
    fprintf(f, "\n");
    if (r->tp_fits)
        fprintf(f, "   TP = %lld is the smallest that fits (%lld heads per GPU).\n\n",
                (long long)r->tp, (long long)r->heads_per_gpu);
    else
        fprintf(f,
                "   None fits without recompute: saturate the node, TP = %lld (%lld heads per "
                "GPU).\n\n",
                (long long)r->tp, (long long)r->heads_per_gpu);

    fprintf(f,
            "3. The largest micro-batch at TP %lld (PP 1, ZeRO-0); memory is affine in the "
            "micro-batch b:\n",
            (long long)r->tp);
    mb_line(f, "none", &r->mb[TP_RECOMPUTE_NONE]);
    mb_line(f, "selective", &r->mb[TP_RECOMPUTE_SELECTIVE]);
    mb_line(f, "full", &r->mb[TP_RECOMPUTE_FULL]);
    const tp_mb_max *m0 = &r->mb[TP_RECOMPUTE_NONE];
    if (m0->fixed_bytes + m0->per_seq_bytes > cap && m0->fixed_bytes > 0.5 * cap &&
        r->mb[TP_RECOMPUTE_FULL].formula < 1)
        fprintf(f,
                "   The model states and fixed overheads alone take %.1f GiB at PP 1: the node "
                "cannot hold the model (step 4).\n\n",
                m0->fixed_bytes / TP_GIB);
    else if (r->long_context)
        fprintf(f,
                "   Not even one sequence fits without recompute, and what it adds (%.1f GiB of "
                "activations, logits and reserve) outweighs the states (%.1f GiB): long context, "
                "micro-batch 1 (recompute, PP or CP must make room).\n\n",
                m0->per_seq_bytes / TP_GIB, m0->fixed_bytes / TP_GIB);
    else if (m0->formula >= 1)
        fprintf(f, "   Up to %lld sequences fit without recompute.\n\n", (long long)m0->formula);
    else
        fprintf(f, "   Micro-batch 1 needs recompute here.\n\n");

    fprintf(f, "4. PP only if a node cannot hold the model (minding the bubble)\n");
    if (!r->pp_needed) {
        fprintf(f,
                "   The node holds it (micro-batch 1 fits at PP 1 with %s recompute): PP = 1, no "
                "bubble.\n",
                r->mb[TP_RECOMPUTE_NONE].formula >= 1        ? "no"
                : r->mb[TP_RECOMPUTE_SELECTIVE].formula >= 1 ? "selective"
                                                             : "full");
    } else {
        fprintf(f, "   Micro-batch 1 does not fit at PP 1 even with full recompute. With the "
                   "cheapest recompute that fits:\n  ");
        for (int i = 0; i < r->n_pp_tries; i++)
            fprintf(f, " PP %lld: %.1f GiB%s%s", (long long)r->pp_tries[i].value,
                    r->pp_tries[i].total_bytes / TP_GIB, r->pp_tries[i].fits ? " (fits)" : "",
                    i + 1 < r->n_pp_tries ? ";" : ".");
        fprintf(f,
                "\n   PP = %lld; with %lld %s per step the bubble is %.1f%% of the step "
                "((p-1)/(m+p-1)), %.1f%% of the ideal time ((p-1)/m).\n",
                (long long)r->pp, (long long)r->grad_accum,
                tp_io_plural((double)r->grad_accum, "micro-batch", "micro-batches"),
                100.0 * r->bubble_of_total, 100.0 * r->bubble_of_ideal);
    }
    if (r->long_context && r->stage0_act_pp2_bytes > 0.0) {
        fprintf(f,
                "   PP splits the model states, not stage 0's activations: under 1F1B stage 0 "
                "keeps min(m, p) micro-batches in flight, so at micro-batch 1 without recompute "
                "PP 2 leaves %.1f GiB of activations on stage 0, against %.1f GiB at PP 1",
                r->stage0_act_pp2_bytes / TP_GIB, r->stage0_act_pp1_bytes / TP_GIB);
        int64_t dp2 = bt->num_gpus / (r->tp * 2);
        if (r->pp == 1 && dp2 > 0 && bt->global_batch % dp2 == 0) {
            int64_t m2 = bt->global_batch / dp2;
            fprintf(f, ", and it would add a bubble of %.1f%% of the step at m = %lld",
                    100.0 * tp_bubble_fraction(TP_SCHED_1F1B, 2, m2, 1, TP_BUBBLE_OF_TOTAL),
                    (long long)m2);
        }
        fprintf(f, ".\n");
    }
    fprintf(f, "\n");
}

/* Steps 5 to 9: DP and ZeRO, the batch, CP, EP, and the score. */
static void narrate_spread(FILE *f, const tp_config *c, const tp_recipe *r)
{
    const tp_model *m = &c->model;
    const tp_train *bt = &c->train;
    double cap = r->capacity_bytes;

    int64_t dp_before = r->cp > 1 ? r->dp * r->cp : r->dp;
    fprintf(f, "5. DP from the remaining GPUs, the cheapest ZeRO stage that fits\n");
    fprintf(f, "   DP = %lld / (TP %lld x PP %lld) = %lld. ", (long long)bt->num_gpus,
            (long long)r->tp, (long long)r->pp, (long long)dp_before);
    if (dp_before > 1)
        fprintf(f,
                "ZeRO-1 is free (its reduce-scatter + all-gather move the bytes of the all-reduce "
                "it replaces); ZeRO-2 and 3 only if needed.\n  ");
    else
        fprintf(f, "One replica: nothing to shard.\n  ");
    for (int z = 0; z <= 3; z++)
        if (r->zero_total_bytes[z] > 0.0)
            fprintf(f, " ZeRO-%d: %.1f GiB;", z, r->zero_total_bytes[z] / TP_GIB);
    fprintf(f, " -> ZeRO-%d with recompute %s.\n\n", r->zero, rc_name(r->recompute_before_cp));

    fprintf(f, "6. Global batch = micro-batch x accumulation x DP\n");
    int64_t ga_before = r->cp > 1 ? r->global_batch / (r->micro_batch * dp_before) : r->grad_accum;
    char seqs[32], toks[32];
    int64_t seq_step = r->micro_batch * ga_before * dp_before;
    fprintf(f, "   %lld x %lld x %lld = %s %s = %s tokens per step", (long long)r->micro_batch,
            (long long)ga_before, (long long)dp_before, tp_io_commas(seq_step, seqs, sizeof seqs),
            tp_io_plural((double)seq_step, "sequence", "sequences"),
            tp_io_commas(seq_step * bt->seq_len, toks, sizeof toks));
    if (r->global_batch != r->global_batch_requested)
        fprintf(f, " (requested %lld: DP does not divide it, accumulation rounded up)",
                (long long)r->global_batch_requested);
    fprintf(f, ".\n\n");

    fprintf(f, "7. CP for long context\n");
    if (!r->cp_considered) {
        fprintf(f, "   Not needed: not long context (one sequence fits without recompute, or the "
                   "states, not its activations, are what overflow).\n\n");
    } else {
        for (int i = 0; i < r->n_cp_tries; i++)
            fprintf(f,
                    "   CP %lld (DP %lld): %.1f GiB at micro-batch %lld, ZeRO-0, no recompute%s\n",
                    (long long)r->cp_tries[i].value, (long long)(dp_before / r->cp_tries[i].value),
                    r->cp_tries[i].total_bytes / TP_GIB, (long long)r->micro_batch,
                    r->cp_tries[i].fits ? ": fits" : "");
        if (r->cp > 1) {
            fprintf(f,
                    "   CP = %lld, taken from DP (%lld -> %lld): activations per GPU %.1f -> %.1f "
                    "GiB (memory %.1f GiB, %.1f GiB headroom)",
                    (long long)r->cp, (long long)dp_before, (long long)r->dp,
                    r->act_before_cp_bytes / TP_GIB, r->act_after_cp_bytes / TP_GIB,
                    r->result.memory.total_bytes / TP_GIB,
                    r->result.memory.headroom_bytes / TP_GIB);
            if (r->recompute != r->recompute_before_cp)
                fprintf(f, "; recompute %s -> %s", rc_name(r->recompute_before_cp),
                        rc_name(r->recompute));
            fprintf(f, "; accumulation %lld -> %lld.\n", (long long)ga_before,
                    (long long)r->grad_accum);
            fprintf(f,
                    "   Attention scores of one head: %.3g elements (%.1f GB in 16 bits) -> %.3g "
                    "per GPU (%.0fx fewer; FlashAttention never stores them).\n",
                    r->scores_per_head, 2.0 * r->scores_per_head / TP_GB, r->scores_per_head_cp,
                    r->scores_per_head / r->scores_per_head_cp);
            if (r->step_before_cp_s > 0.0 && r->result.time.computed)
                fprintf(f, "   Predicted step: %.3f s without CP, %.3f s with it.\n",
                        r->step_before_cp_s, r->result.time.step_s);
        } else {
            fprintf(f, "   No CP size taken from DP fits without recompute: keep recompute %s.\n",
                    rc_name(r->recompute));
        }
        fprintf(f, "\n");
    }

    fprintf(f, "8. EP for mixture-of-experts\n");
    if (r->moe)
        fprintf(f,
                "   %lld experts sharded over EP = %lld of the %lld DP ranks (%lld %s per "
                "GPU).\n\n",
                (long long)m->num_experts, (long long)r->ep, (long long)r->dp,
                (long long)(m->num_experts / r->ep),
                tp_io_plural((double)(m->num_experts / r->ep), "expert", "experts"));
    else
        fprintf(f, "   Dense model: EP = 1.\n\n");

    char lay[320];
    layout_text(lay, sizeof lay, &r->config, &r->result);
    const tp_time *tm = &r->result.time;
    fprintf(f, "9. Score by MFU\n");
    char tps[32];
    if (tm->computed)
        fprintf(f,
                "   Predicted step %.3f s, MFU %.1f%%, %s tokens/s (bottleneck: %s); memory "
                "%.2f of %.2f GiB on stage %lld.\n",
                tm->step_s, 100.0 * tm->mfu,
                tp_io_commas((int64_t)llround(tm->tokens_per_s), tps, sizeof tps),
                tm->bottleneck && tm->bottleneck[0] ? tm->bottleneck : "compute",
                r->result.memory.total_bytes / TP_GIB, cap / TP_GIB,
                (long long)r->result.memory.stage);
    else
        fprintf(f, "   Step time not available; memory %.2f of %.2f GiB.\n",
                r->result.memory.total_bytes / TP_GIB, cap / TP_GIB);
    fprintf(f, "\nThe recipe's layout: %s%s\n", lay, r->fits ? "" : " -- DOES NOT FIT");
    char reason[TP_REASON_MAX];
    if (!r->fits)
        fprintf(f, "   %s\n", tp_result_reason(&r->result, reason, sizeof reason));
}

/* The recipe, step by step, with its numbers. */
static void narrate(FILE *f, const tp_config *c, const tp_recipe *r)
{
    narrate_fit(f, c, r);
    narrate_spread(f, c, r);
}

json_t *tp_io_explain_json(const tp_recipe *r, const tp_search_item *best)
{
    json_t *j = json_object();
    if (!j)
        return NULL;
    int bad = 0;
#define NUM(obj, k, v) bad |= json_object_set_new(obj, k, json_real((double)(v)))
#define INT(obj, k, v) bad |= json_object_set_new(obj, k, json_integer((json_int_t)(v)))
    json_t *s = json_object();
    if (!s) {
        json_decref(j);
        return NULL;
    }
    NUM(s, "params", r->params);
    NUM(s, "state_bytes_per_param", r->state_bytes_per_param);
    NUM(s, "state_bytes", r->state_bytes);
    NUM(s, "act_seq_bytes", r->act_seq_bytes);
    NUM(s, "act_seq_full_bytes", r->act_seq_full_bytes);
    INT(s, "gpus_for_state", r->gpus_for_state);
    INT(s, "tp", r->tp);
    bad |= json_object_set_new(s, "tp_fits", json_boolean(r->tp_fits));
    INT(s, "micro_batch_max_none", r->mb[0].bisect);
    INT(s, "micro_batch_max_selective", r->mb[1].bisect);
    INT(s, "micro_batch_max_full", r->mb[2].bisect);
    INT(s, "micro_batch_max_full_formula", r->mb[2].formula);
    INT(s, "micro_batch_max_full_doubling", r->mb[2].doubling);
    bad |= json_object_set_new(s, "long_context", json_boolean(r->long_context));
    INT(s, "pp", r->pp);
    bad |= json_object_set_new(s, "pp_needed", json_boolean(r->pp_needed));
    NUM(s, "stage0_act_pp1_bytes", r->stage0_act_pp1_bytes);
    NUM(s, "stage0_act_pp2_bytes", r->stage0_act_pp2_bytes);
    NUM(s, "bubble_of_total", r->bubble_of_total);
    NUM(s, "bubble_of_ideal", r->bubble_of_ideal);
    INT(s, "dp", r->dp);
    INT(s, "zero", r->zero);
    INT(s, "cp", r->cp);
    INT(s, "ep", r->ep);
    INT(s, "micro_batch", r->micro_batch);
    INT(s, "grad_accum", r->grad_accum);
    INT(s, "global_batch", r->global_batch);
    INT(s, "global_batch_requested", r->global_batch_requested);
    bad |= json_object_set_new(s, "recompute", json_string(rc_name(r->recompute)));
    NUM(s, "act_before_cp_bytes", r->act_before_cp_bytes);
    NUM(s, "act_after_cp_bytes", r->act_after_cp_bytes);
    NUM(s, "scores_per_head", r->scores_per_head);
    NUM(s, "scores_per_head_cp", r->scores_per_head_cp);
    bad |= json_object_set_new(s, "fits", json_boolean(r->fits));
    bad |= json_object_set_new(j, "recipe", s);
    json_t *est = tp_io_result_json(&r->config, &r->result);
    bad |= est ? json_object_set_new(j, "recipe_layout", est) : -1;
    if (best) {
        json_t *b = tp_io_result_json(&best->config, &best->result);
        bad |= b ? json_object_set_new(j, "search_best", b) : -1;
    }
#undef NUM
#undef INT
    if (bad) {
        json_decref(j);
        return NULL;
    }
    return j;
}

void tp_io_explain_text(FILE *f, const tp_config *c, const tp_recipe *r, const tp_search_item *best)
{
    tp_io_run_header(f, c, "Explain:");
    fputc('\n', f);
    narrate(f, c, r);
    if (best)
        compare(f, r, best);
    else
        fprintf(f, "\nThe search finds no layout that fits (run `trainplan search` with the same "
                   "flags for the binding constraints).\n");
}

tp_status tp_io_explain_run(const tp_config *c, const tp_search_space *sp, tp_recipe *r,
                            tp_search_item *best, size_t *n, tp_error *err)
{
    *n = 0;
    TP_TRY(tp_recipe_run(c, r, err));
    return tp_search_top(c, sp, TP_RANK_TIME, best, 1, n, NULL, err);
}

tp_status tp_io_explain_run_json(const tp_config *c, const tp_search_space *sp, json_t **out,
                                 bool *fits, tp_error *err)
{
    *out = NULL;
    *fits = false;
    tp_recipe *r = calloc(1, sizeof *r); /* large: off the stack */
    tp_search_item *best = calloc(1, sizeof *best);
    size_t n = 0;
    tp_status st = r && best ? tp_io_explain_run(c, sp, r, best, &n, err)
                             : tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
    if (st == TP_OK && !(*out = tp_io_explain_json(r, n ? best : NULL)))
        st = tp_error_set(err, TP_ERR_INTERNAL, "", "internal: a result holds a non-finite number");
    if (st == TP_OK)
        *fits = r->fits;
    free(r);
    free(best);
    return st;
}
