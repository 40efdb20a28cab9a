/* SPDX-License-Identifier: MIT */
/*
 * markdown.c: the estimate as a Markdown report, and the rows of the
 * ranked tables of search and plan (tabular.h). Every name in the output
 * is untrusted text: it is defused (tp_io_safe_text) and escaped so that
 * it cannot break a table cell or start emphasis.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h" /* tp_io_config_flags */
#include "io.h"
#include "io_internal.h"
#include "tabular.h"

/* Markdown text: untrusted, so defused (tp_io_safe_text: no line break or
 * escape sequence is left), then the characters that would break a table
 * cell or start emphasis are escaped. */
static void md_text(FILE *f, const char *s)
{
    char small[TP_IO_SAFE_BYTES(64)];
    char *safe = tp_io_safe_dup(s, small, sizeof small);
    if (!safe) {
        fputs("?", f); /* out of memory: never the raw text */
        return;
    }
    for (const char *p = safe; *p; p++) {
        if (*p == '|' || *p == '\\' || *p == '*' || *p == '_' || *p == '`')
            fputc('\\', f);
        fputc(*p, f);
    }
    if (safe != small)
        free(safe);
}

/* "| Label | v / unit | share of total |", the label capitalised. */
static void md_row(FILE *f, const char *label, double v, double unit, int decimals, double total)
{
    fprintf(f, "| %c%s | %.*f | %.1f%% |\n", toupper((unsigned char)label[0]), label + 1, decimals,
            v / unit, total > 0.0 ? 100.0 * v / total : 0.0);
}

void tp_io_result_markdown(FILE *f, const tp_config *c, const tp_result *r)
{
    const tp_train *t = &c->train;
    const tp_memory *m = &r->memory;
    fputs("## trainplan estimate: ", f);
    md_text(f, c->model.name[0] ? c->model.name : "(unnamed)");
    if (tp_io_model_reshaped(&c->model))
        fputs(", reshaped (not the preset's shape)", f);
    fprintf(f, " on %" PRId64 " x ", t->num_gpus);
    md_text(f, c->gpu.name[0] ? c->gpu.name : "(custom)");
    fputs("\n\n| Setting | Value |\n|---|---|\n", f);
    fprintf(f, "| Parameters | %.3f billion total, %.3f billion active |\n",
            (double)r->params.total / 1e9, (double)r->params.active / 1e9);
    fprintf(f,
            "| Layout | TP %" PRId64 " x PP %" PRId64 " x CP %" PRId64 " x DP %" PRId64
            ", EP %" PRId64 ", VPP %" PRId64 ", sequence parallel %s |\n",
            t->tp, t->pp, t->cp, r->dp, t->ep, t->vpp, t->sp ? "on" : "off");
    fprintf(f, "| Memory savers | ZeRO %d, recompute %s, schedule %s |\n", t->zero,
            tp_io_recompute_name(t->recompute), tp_io_schedule_name(t->schedule));
    fprintf(f,
            "| Batch | sequence %" PRId64 " tokens, micro-batch %" PRId64 ", global batch %" PRId64
            " (%" PRId64 " %s per step) |\n",
            t->seq_len, t->micro_batch, t->global_batch, r->grad_accum,
            tp_io_plural((double)r->grad_accum, "micro-batch", "micro-batches"));
    fprintf(f, "| Precision | %s GEMMs, %s gradients, optimizer %s |\n",
            tp_io_precision_name(t->precision), tp_io_dtype_name(t->grad_dtype),
            tp_io_optimizer_name(&t->optimizer));
    /* flags cannot describe a vision tower or Falcon's parallel block (issue 16) */
    bool no_flags = c->model.vision.layers > 0 || c->model.parallel_attn;
    char *flags = no_flags ? NULL : tp_io_config_flags(c);
    if (no_flags)
        fputs("| Flags | (not expressible: no flags describe this model's vision tower or "
              "parallel block; give its config.json to --model) |\n",
              f);
    if (flags) {
        fputs("| Flags | `trainplan estimate ", f);
        for (const char *p = flags; *p; p++)
            fputc(*p == '`' || *p == '|' ? '?' : *p, f);
        fputs("` |\n", f);
        free(flags);
    }

    /* Stages are numbered as in the text report and the JSON: 0-based, said so. */
    if (t->schedule == TP_SCHED_DUALPIPE) { /* a rank holds two stages (memory.c 4b) */
        int64_t j = m->stage < t->pp - 1 - m->stage ? m->stage : t->pp - 1 - m->stage;
        fprintf(f,
                "\n### Memory per GPU (heaviest: pipeline rank %" PRId64 ", 0-based, of %" PRId64
                ", holding stages %" PRId64 " and %" PRId64 " under DualPipe; %" PRId64
                " layers)\n\n",
                m->stage, t->pp, j, t->pp - 1 - j, m->layers);
    } else {
        fprintf(f,
                "\n### Memory per GPU (heaviest: pipeline stage %" PRId64 ", 0-based, of %" PRId64
                "; %" PRId64 " layers)\n\n",
                m->stage, t->pp, m->layers);
    }
    fputs("| Component | GiB | Share |\n|---|---:|---:|\n", f);
    double tot = m->total_bytes;
    for (size_t k = 0; k < TP_IO_NUM_MEM_PARTS; k++)
        md_row(f, tp_io_mem_parts[k].label, tp_io_part_value(m, &tp_io_mem_parts[k]), TP_GIB, 2,
               tot);
    fprintf(f, "| **Total** | **%.2f** | 100.0%% |\n", tot / TP_GIB);
    fprintf(f, "| Capacity | %.2f | |\n\n", m->capacity_bytes / TP_GIB);
    if (m->fits)
        fprintf(f, "**Fits**, %.2f GiB headroom (GiB = 2^30 bytes).\n", m->headroom_bytes / TP_GIB);
    else {
        fputs("**Does not fit**: ", f);
        char reason[TP_REASON_MAX];
        tp_result_reason(r, reason, sizeof reason);
        md_text(f, reason[0] ? reason : "over capacity");
        fputs(" (GiB = 2^30 bytes).\n", f);
    }

    const tp_time *tm = &r->time;
    fputs("\n### Step time\n\n", f);
    if (!tm->computed) {
        fputs("Not computed: this build of trainplan has no step-time model.\n", f);
        return;
    }
    fputs("| Part | Seconds | Share |\n|---|---:|---:|\n", f);
    double st = tm->step_s;
    for (size_t k = 0; k < TP_IO_NUM_TIME_PARTS; k++)
        md_row(f, tp_io_time_parts[k].label, tp_io_part_value(tm, &tp_io_time_parts[k]), 1.0, 4,
               st);
    fprintf(f, "| **Step** | **%.4f** | 100.0%% |\n\n", st);
    fprintf(f,
            "Throughput: %.0f tokens/s (%.1f per GPU), %.1f model TFLOP/s per GPU, MFU %.1f%%, "
            "HFU %.1f%%; pipeline bubble %.1f%% of the step.\n",
            tm->tokens_per_s, tm->tokens_per_s_per_gpu, tm->model_flops_per_s_per_gpu / 1e12,
            100.0 * tm->mfu, 100.0 * tm->hfu, 100.0 * tm->bubble_of_total);
}

void tp_io_markdown_rows_header(FILE *f, const char *extra)
{
    fputs("| # | GPUs | TP | PP | VPP | CP | EP | DP | SP | ZeRO | Recompute | Micro-batch | "
          "Accumulation | Memory (GiB) | Headroom (GiB) | Fits | Step (s) | Tokens/s per GPU | "
          "MFU (%) |",
          f);
    if (extra) {
        fputc(' ', f);
        md_text(f, extra);
        fputs(" |", f);
    }
    fputs("\n|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---|---:|"
          "---:|---:|",
          f);
    fputs(extra ? "---:|\n" : "\n", f);
}

void tp_io_markdown_row(FILE *f, int64_t rank, const tp_config *c, const tp_result *r,
                        const char *extra)
{
    const tp_train *t = &c->train;
    const tp_time *tm = &r->time;
    const tp_memory *m = &r->memory;
    char ep[48]; /* EP, with the expert TP when folded: "8 (ETP 1)" */
    if (t->etp > 0 && t->etp != t->tp)
        snprintf(ep, sizeof ep, "%" PRId64 " (ETP %" PRId64 ")", t->ep, t->etp);
    else
        snprintf(ep, sizeof ep, "%" PRId64, t->ep);
    fprintf(f,
            "| %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64
            " | %s | %" PRId64 " | %s | %d | %s | %" PRId64 " | %" PRId64 " | %.2f | %.2f | %s |",
            rank, t->num_gpus, t->tp, t->pp, t->vpp, t->cp, ep, r->dp, t->sp ? "on" : "off",
            t->zero, tp_io_recompute_name(t->recompute), t->micro_batch, r->grad_accum,
            m->total_bytes / TP_GIB, m->headroom_bytes / TP_GIB, m->fits ? "yes" : "no");
    if (tm->computed)
        fprintf(f, " %.4f | %.1f | %.1f |", tm->step_s, tm->tokens_per_s_per_gpu, 100.0 * tm->mfu);
    else
        fputs(" - | - | - |", f);
    if (extra) {
        fputc(' ', f);
        md_text(f, extra);
        fputs(" |", f);
    }
    fputc('\n', f);
}
