/* SPDX-License-Identifier: MIT */
/*
 * csv.c: the estimate as CSV (RFC 4180, "\n" line ends), and the columns
 * that search and plan extend (tabular.h). Every column name carries its
 * unit; reals have the 15 significant digits of the JSON; text fields are
 * defused and guarded against spreadsheet formulas.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "tabular.h"

/* The node size in effect (the layout's, else the GPU's): tp.h's rule. */
static int64_t gpus_per_node(const tp_config *c)
{
    return tp_gpus_per_node(&c->train, &c->gpu);
}

/*
 * CSV field: untrusted text, so first made safe for a terminal
 * (tp_io_safe_text: control characters become "\\xNN", so no line break
 * is left), then quoted when it holds a comma or quote (RFC 4180). A field
 * that begins with =, +, - or @ would be a formula to a spreadsheet (CSV
 * injection; OWASP's advice): it is prefixed with ' and quoted.
 */
void tp_io_csv_text(FILE *f, const char *s)
{
    char small[TP_IO_SAFE_BYTES(64)];
    char *safe = tp_io_safe_dup(s, small, sizeof small);
    if (!safe) {
        fputs("?", f); /* out of memory: never the raw text */
        return;
    }
    bool formula = safe[0] && strchr("=+-@", safe[0]) != NULL;
    if (!formula && strpbrk(safe, ",\"") == NULL) {
        fputs(safe, f);
    } else {
        fputc('"', f);
        if (formula)
            fputc('\'', f);
        for (const char *p = safe; *p; p++) {
            if (*p == '"')
                fputc('"', f);
            fputc(*p, f);
        }
        fputc('"', f);
    }
    if (safe != small)
        free(safe);
}

/* Column names carry their unit: *_bytes, *_s, tokens_per_s*, fractions
 * (mfu, hfu, bubble_of_total) in [0, 1]; counts are plain. The memory and
 * step-time parts are the one list's keys (util.c) with the unit added. */
static const char *const csv_head[] = {"model",
                                       "gpu",
                                       "num_gpus",
                                       "gpus_per_node",
                                       "tp",
                                       "pp",
                                       "cp",
                                       "ep",
                                       "dp",
                                       "vpp",
                                       "sp",
                                       "zero",
                                       "schedule",
                                       "recompute",
                                       "recompute_every",
                                       "seq_len",
                                       "micro_batch",
                                       "global_batch",
                                       "grad_accum",
                                       "precision",
                                       "grad_dtype",
                                       "optimizer",
                                       "params_total",
                                       "params_active",
                                       "fits",
                                       "peak_bytes",
                                       "capacity_bytes",
                                       "headroom_bytes"};
static const char *const csv_tail[] = {"tokens_per_s", "tokens_per_s_per_gpu", "mfu",
                                       "hfu",          "bubble_of_total",      "reason"};

void tp_io_csv_columns(FILE *f)
{
    for (size_t i = 0; i < sizeof csv_head / sizeof csv_head[0]; i++)
        fprintf(f, "%s%s", i ? "," : "", csv_head[i]);
    for (size_t i = 0; i < TP_IO_NUM_MEM_PARTS; i++)
        fprintf(f, ",%s_bytes", tp_io_mem_parts[i].key);
    fputs(",step_s", f);
    for (size_t i = 0; i < TP_IO_NUM_TIME_PARTS; i++)
        fprintf(f, ",%s_s", tp_io_time_parts[i].key);
    for (size_t i = 0; i < sizeof csv_tail / sizeof csv_tail[0]; i++)
        fprintf(f, ",%s", csv_tail[i]);
}

void tp_io_csv_late_columns(FILE *f)
{
    fputs(",etp", f);
}

void tp_io_csv_late_fields(FILE *f, const tp_config *c)
{
    fprintf(f, ",%" PRId64, tp_expert_tp(&c->train));
}

void tp_io_csv_header(FILE *f)
{
    tp_io_csv_columns(f);
    tp_io_csv_late_columns(f);
    fputc('\n', f);
}

static void csv_bytes(FILE *f, double v)
{
    fprintf(f, ",%lld", isfinite(v) ? (long long)llround(v) : 0LL);
}

/* Reals with the JSON's 15 significant digits; empty when not computed. */
static void csv_real(FILE *f, bool have, double v)
{
    if (have && isfinite(v))
        fprintf(f, ",%.15g", v);
    else
        fputc(',', f);
}

void tp_io_csv_fields(FILE *f, const tp_config *c, const tp_result *r)
{
    const tp_train *t = &c->train;
    const tp_memory *m = &r->memory;
    const tp_time *tm = &r->time;
    tp_io_csv_text(f, c->model.name);
    fputc(',', f);
    tp_io_csv_text(f, c->gpu.name);
    fprintf(f,
            ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
            ",%" PRId64 ",%s,%d,%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
            ",%s,%s,%s,%" PRId64 ",%" PRId64 ",%s",
            t->num_gpus, gpus_per_node(c), t->tp, t->pp, t->cp, t->ep, r->dp, t->vpp,
            t->sp ? "true" : "false", t->zero, tp_io_schedule_name(t->schedule),
            tp_io_recompute_name(t->recompute), t->recompute_every, t->seq_len, t->micro_batch,
            t->global_batch, r->grad_accum, tp_io_precision_name(t->precision),
            tp_io_dtype_name(t->grad_dtype), tp_io_optimizer_name(&t->optimizer), r->params.total,
            r->params.active, m->fits ? "true" : "false");
    csv_bytes(f, m->total_bytes);
    csv_bytes(f, m->capacity_bytes);
    csv_bytes(f, m->headroom_bytes);
    for (size_t i = 0; i < TP_IO_NUM_MEM_PARTS; i++)
        csv_bytes(f, tp_io_part_value(m, &tp_io_mem_parts[i]));
    bool h = tm->computed;
    csv_real(f, h, tm->step_s);
    for (size_t i = 0; i < TP_IO_NUM_TIME_PARTS; i++)
        csv_real(f, h, tp_io_part_value(tm, &tp_io_time_parts[i]));
    csv_real(f, h, tm->tokens_per_s);
    csv_real(f, h, tm->tokens_per_s_per_gpu);
    csv_real(f, h, tm->mfu);
    csv_real(f, h, tm->hfu);
    csv_real(f, h, tm->bubble_of_total);
    fputc(',', f);
    char reason[TP_REASON_MAX];
    tp_io_csv_text(f, tp_result_reason(r, reason, sizeof reason));
}

void tp_io_csv_row(FILE *f, const tp_config *c, const tp_result *r)
{
    tp_io_csv_fields(f, c, r);
    tp_io_csv_late_fields(f, c);
    fputc('\n', f);
}
