/* SPDX-License-Identifier: MIT */
/*
 * plan_out.c: the output of `trainplan plan`: the text report, Markdown,
 * JSON, CSV and the LR-schedule series (docs/plan.md). Its input (phase
 * specifications, the plan file) is read by plan_in.c.
 *
 * The text report and the Markdown come from one code path: a tiny
 * document writer (sections of label/value rows and notes) renders rows as
 * aligned text or as two-column Markdown tables. Every number carries its
 * unit; GB is 1e9 bytes and GiB 2^30 bytes, always labelled.
 *
 * JSON rules (as json_out.c): base units (FLOP, seconds, bytes, USD,
 * tokens), fractions 0..1, exact counts as integers, and no NaN or inf:
 * tp_io_plan_json returns NULL if any number is not finite.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "export.h" /* the estimate's CSV columns, shared by plan --csv */
#include "io_internal.h"
#include "plan_out.h"

/* ------------------------------------------------------------------ */
/* Number formatting                                                   */
/* ------------------------------------------------------------------ */

/* "29,975,214,080": x rounded to a whole number; beyond 9e18 (or NaN), "%.4g". */
static const char *commas(double x, char *buf, size_t n)
{
    double r = floor(fabs(x) + 0.5);
    if (!(r <= 9e18)) {
        snprintf(buf, n, "%.4g", x);
        return buf;
    }
    return tp_io_commas(x < 0 ? -(int64_t)r : (int64_t)r, buf, n);
}

/* 599.5e9 -> "599.5 B"; 1.4e12 -> "1.40 T" (B = billion 1e9, T = 1e12). */
static const char *si(double x, char *buf, size_t n)
{
    double a = fabs(x);
    if (a >= 1e12)
        snprintf(buf, n, "%.3g T", x / 1e12);
    else if (a >= 1e9)
        snprintf(buf, n, "%.4g B", x / 1e9);
    else if (a >= 1e6)
        snprintf(buf, n, "%.4g M", x / 1e6);
    else if (a >= 1e3)
        snprintf(buf, n, "%.4g K", x / 1e3);
    else
        snprintf(buf, n, "%.4g", x);
    return buf;
}

/* "398.1 h (16.6 days)" */
static const char *hours(double s, char *buf, size_t n)
{
    double h = s / 3600.0;
    if (h >= 24.0 * 365.25 * 2)
        snprintf(buf, n, "%.1f h (%.2f years)", h, h / 8766.0);
    else if (h >= 48.0)
        snprintf(buf, n, "%.1f h (%.1f days)", h, h / 24.0);
    else
        snprintf(buf, n, "%.2f h", h);
    return buf;
}

/* seconds, adaptive */
static const char *secs(double s, char *buf, size_t n)
{
    if (s >= 3600.0)
        snprintf(buf, n, "%.0f s (%.2f h)", s, s / 3600.0);
    else if (s >= 60.0)
        snprintf(buf, n, "%.0f s (%.1f min)", s, s / 60.0);
    else if (s >= 1.0)
        snprintf(buf, n, "%.2f s", s);
    else
        snprintf(buf, n, "%.3g ms", s * 1e3);
    return buf;
}

static const char *usd(double x, char *buf, size_t n)
{
    char c[48];
    snprintf(buf, n, "$%s", commas(x, c, sizeof c));
    return buf;
}

/* ------------------------------------------------------------------ */
/* Caveats (shared by every output)                                    */
/* ------------------------------------------------------------------ */

#define MAX_CAVEATS 10
typedef struct caveats {
    int n;
    char text[MAX_CAVEATS][400];
} caveats;

static void caveat(caveats *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void caveat(caveats *c, const char *fmt, ...)
{
    if (c->n >= MAX_CAVEATS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->text[c->n++], sizeof c->text[0], fmt, ap);
    va_end(ap);
}

static void collect_caveats(const tp_plan_in *in, const tp_plan *p, caveats *c)
{
    memset(c, 0, sizeof *c);
    char a[32], b[32];
    if (p->crit_batch_caveat)
        caveat(c,
               "critical batch: the global batch is %.1fx the critical batch size estimated at the "
               "predicted loss (%s tokens; Kaplan et al. 2020 sec. 5.1, B_crit = 2e8 / L^(1/0.21) "
               "tokens; McCandlish et al. 2018). Far above it, more data parallelism buys little "
               "speed-up and the run needs more tokens for the same loss; a rough, "
               "setup-dependent estimate (formulas.md 5.4).",
               p->batch_over_crit, si(p->crit_batch_tokens, a, sizeof a));
    if (p->positions_caveat)
        caveat(c,
               "%s has a learned position table of %lld positions, shorter than the sequence "
               "planned; the released checkpoint may use a different position scheme (MPT-30B: "
               "ALiBi, 8192) -- the counts here keep the table as given.",
               p->model.name, (long long)p->model.max_positions);
    if (p->feasible && !p->used_predicted && in->size_at != TP_SIZE_AT_MFU)
        caveat(c,
               "the step-time model gave no prediction: time and cost use the --mfu %.0f%% "
               "assumption.",
               in->mfu * 100.0);
    if (p->feasible && p->used_predicted) {
        double lo = 1.0, hi = 0.0;
        for (int i = 0; i < p->num_phases; i++) {
            double m = p->phases[i].predicted_mfu;
            lo = m < lo ? m : lo;
            hi = m > hi ? m : hi;
        }
        if (hi > 0.6)
            caveat(c,
                   "the predicted MFU (%.0f%%) is above what large published runs report "
                   "(about 35-55%%); the --mfu %.0f%% columns show the plan at a more "
                   "conservative figure (docs/ACCURACY.md gives the model's error).",
                   hi * 100.0, in->mfu * 100.0);
        (void)lo;
    }
    if (p->feasible && in->deadline_h > 0.0 && p->deadline_met && p->wall_s > 0.0 &&
        p->wall_s > in->deadline_h * 3600.0)
        caveat(c,
               "the deadline is met on compute time (%s) but not once expected failures and "
               "checkpoints are counted (%s).",
               hours(p->compute_wall_s, a, sizeof a), hours(p->wall_s, b, sizeof b));
    if (p->feasible && in->deadline_h > 0.0 && !p->deadline_met)
        caveat(c,
               "the plan misses the deadline of %s: it needs %s of compute on %lld GPUs "
               "(%s).",
               hours(in->deadline_h * 3600.0, a, sizeof a), hours(p->compute_wall_s, b, sizeof b),
               (long long)p->num_gpus,
               in->size_by == TP_SIZE_DEADLINE ? "the fastest cluster up to --max-gpus" : "--gpus");
    if (p->feasible && !p->ckpt.progress)
        caveat(c, "failures arrive faster than checkpoints save work: the job would not make "
                  "progress; lower the failure rate or the restart time, or checkpoint faster.");
    if (p->feasible && in->budget_usd > 0.0 && !p->within_budget)
        caveat(c, "the plan costs %s, over the budget of %s.", usd(p->cost_usd, a, sizeof a),
               usd(in->budget_usd, b, sizeof b));
    if (p->tokens_per_param > 0.0 && (p->tokens_per_param < 5.0 || p->tokens_per_param > 500.0))
        caveat(c,
               "%.0f tokens per parameter is far from the ~20 of the Chinchilla fits; the "
               "predicted loss extrapolates the fit.",
               p->tokens_per_param);
}

/* ------------------------------------------------------------------ */
/* Document writer: aligned text or Markdown                           */
/* ------------------------------------------------------------------ */

typedef struct doc {
    FILE *f;
    bool md;
    int sec;
    bool table;
} doc;

static void d_section(doc *d, const char *title)
{
    d->sec++;
    d->table = false;
    if (d->md)
        fprintf(d->f, "\n## %d. %s\n\n", d->sec, title);
    else
        fprintf(d->f, "\n%d. %s\n", d->sec, title);
}

static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
    }
}

static void d_row(doc *d, const char *label, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void d_row(doc *d, const char *label, const char *fmt, ...)
{
    char raw[640], v[TP_IO_SAFE_BYTES(640)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    tp_io_safe_text(raw, v, sizeof v); /* names from files are untrusted */
    if (d->md) {
        if (!d->table) {
            fputs("| quantity | value |\n|---|---|\n", d->f);
            d->table = true;
        }
        fputs("| ", d->f);
        md_cell(d->f, label);
        fputs(" | ", d->f);
        md_cell(d->f, v);
        fputs(" |\n", d->f);
    } else {
        fprintf(d->f, "  %-30s %s\n", label, v);
    }
}

/* A paragraph: wrapped at 79 columns in text, a plain paragraph in Markdown. */
static void d_note(doc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void d_note(doc *d, const char *fmt, ...)
{
    char raw[1024], v[TP_IO_SAFE_BYTES(1024)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    tp_io_safe_text(raw, v, sizeof v); /* names from files are untrusted */
    if (d->md) {
        if (d->table)
            fputc('\n', d->f);
        d->table = false;
        fprintf(d->f, "%s\n\n", v);
        return;
    }
    const int width = 79;
    int indent = 2, col = 0;
    const char *p = v;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *sp = strchr(p, ' ');
        int wl = sp ? (int)(sp - p) : (int)strlen(p);
        if (wl == 0)
            break;
        if (col == 0) {
            fprintf(d->f, "%*s", indent, "");
            col = indent;
            if (strncmp(p, "- ", 2) == 0)
                indent += 2; /* hanging indent under a list dash */
        } else if (col + 1 + wl > width) {
            fprintf(d->f, "\n%*s", indent, "");
            col = indent;
        } else {
            fputc(' ', d->f);
            col++;
        }
        fwrite(p, 1, (size_t)wl, d->f);
        col += wl;
        p += wl;
    }
    fputc('\n', d->f);
}

/* ------------------------------------------------------------------ */
/* The report                                                          */
/* ------------------------------------------------------------------ */

/* The expert layers' layout when they have one of their own (EP > 1 or an
 * expert TP apart from TP), as report.c words it; "" otherwise. */
static const char *experts_text(const tp_train *t, char *buf, size_t n)
{
    buf[0] = '\0';
    if (t->ep > 1 || tp_expert_tp(t) != t->tp)
        snprintf(buf, n, " (experts ETP %lld x EP %lld x EDP %lld)", (long long)tp_expert_tp(t),
                 (long long)t->ep, (long long)tp_train_edp(t));
    return buf;
}

static const char *layout_text(const tp_plan_phase *ph, char *buf, size_t n)
{
    const tp_train *t = &ph->cfg.train;
    char ex[96];
    snprintf(buf, n,
             "TP %lld x PP %lld x CP %lld x DP %lld%s, ZeRO-%d, SP %s, recompute %s%s%.0lld",
             (long long)t->tp, (long long)t->pp, (long long)t->cp, (long long)ph->res.dp,
             experts_text(t, ex, sizeof ex), t->zero, t->sp ? "on" : "off",
             tp_io_recompute_name(t->recompute),
             t->vpp > 1 ? ", interleaved schedule, virtual stages " : "",
             t->vpp > 1 ? (long long)t->vpp : 0LL);
    return buf;
}

static void report_model(doc *d, const tp_plan_in *in, const tp_plan *p)
{
    char a[48], b[48];
    const tp_model *m = &p->model;
    d_section(d, "Model");
    d_row(d, "model", "%s%s", m->name,
          in->size_model            ? " (sized from the budget)"
          : tp_io_model_reshaped(m) ? ", reshaped: not the preset's shape"
                                    : "");
    d_row(d, "shape", "%lld layers, hidden %lld, %lld heads (%lld kv), FFN %lld, vocab %lld",
          (long long)m->num_layers, (long long)m->hidden, (long long)m->num_heads,
          (long long)(m->num_kv_heads ? m->num_kv_heads : m->num_heads), (long long)m->ffn_hidden,
          (long long)m->vocab);
    if (in->model_params > 0.0) {
        d_row(d, "from --params", "%s parameters asked, %s in the shape",
              si(in->model_params, a, sizeof a), si((double)p->params.total, b, sizeof b));
        d_note(d, "%s", TP_IO_SHAPE_RULE);
    }
    d_row(d, "parameters N", "%s (%s)", commas((double)p->params.total, a, sizeof a),
          si((double)p->params.total, b, sizeof b));
    if (p->params.active != p->params.total)
        d_row(d, "active parameters", "%s per token", si((double)p->params.active, a, sizeof a));
    d_row(d, "model states per copy",
          "%.0f GB = %.0f B/param x N (%.0f weights + %.0f grads + "
          "%.0f optimizer)",
          p->static_bytes / TP_GB, p->state_bytes.total, p->state_bytes.weights,
          p->state_bytes.grads, p->state_bytes.optimizer);
    d_row(d, "fits one GPU?",
          "%s: %.0f GB vs %.1f GB (%.1f GiB) per %s; >= %lld GPUs for the "
          "states alone",
          p->min_gpus_static > 1 ? "no, must shard" : "yes", p->static_bytes / TP_GB,
          in->base.gpu.mem_capacity_bytes / TP_GB, in->base.gpu.mem_capacity_bytes / TP_GIB,
          in->base.gpu.name, (long long)p->min_gpus_static);
}

static void report_tokens(doc *d, const tp_plan_in *in, const tp_plan *p)
{
    char a[48], b[48], c[48];
    d_section(d, "Tokens (scaling laws)");
    switch (in->tokens_from) {
    case TP_TOKENS_GIVEN:
        d_row(d, "training tokens D", "%s (given)", si(p->tokens, a, sizeof a));
        break;
    case TP_TOKENS_COMPUTE:
        if (in->compute_flops > 0.0)
            d_row(d, "training tokens D", "%s = C / 6N for C = %.3g FLOP (--compute)",
                  si(p->tokens, a, sizeof a), p->compute_budget_flops);
        else if (in->size_model)
            d_row(d, "training tokens D",
                  "%s = C / 6N for C = %.3g FLOP (what %s buys at the "
                  "user MFU %.0f%%)",
                  si(p->tokens, a, sizeof a), p->compute_budget_flops,
                  usd(in->budget_usd, b, sizeof b), in->mfu * 100.0);
        else
            d_row(d, "training tokens D",
                  "%s = C / (%s FLOP per token) for C = %.3g FLOP (what %s buys at the "
                  "user MFU %.0f%%, --tokens budget)",
                  si(p->tokens, a, sizeof a), in->basis == TP_BASIS_6ND ? "6N" : "exact",
                  p->compute_budget_flops, usd(in->budget_usd, b, sizeof b), in->mfu * 100.0);
        break;
    default:
        d_row(d, "training tokens D", "%s = %g tokens/param x N (Chinchilla rule)",
              si(p->tokens, a, sizeof a), in->tokens_per_param);
        break;
    }
    if (p->num_phases > 1 || in->num_phases > 0)
        d_row(d, "", "total of %d phases (section 4)", p->num_phases);
    d_row(d, "tokens per parameter", "%.1f", p->tokens_per_param);
    d_row(d, "predicted loss", "%.3f nats/token (L = E + A/N^a + B/D^b, %s fit)", p->loss,
          p->fit->name);
    d_row(d, "compute-optimal, same 6ND", "N %s, D %s (%.1f tokens/param), loss %.3f",
          si(p->optimal.params, a, sizeof a), si(p->optimal.tokens, b, sizeof b),
          p->optimal.tokens_per_param, p->optimal.loss);
    d_row(d, "20 tokens/param, same 6ND", "N %s, D %s, loss %.3f",
          si(p->rule20.params, a, sizeof a), si(p->rule20.tokens, b, sizeof b), p->rule20.loss);
    d_note(d,
           "Fit: %s. Losses are for the fit's data and tokenizer: compare plans with them, "
           "do not promise them.%s",
           p->fit->source,
           p->tokens_per_param > 30.0 ? " Training past compute-optimal (\"over-training\", as "
                                        "Llama 3 does) buys a smaller model for inference."
                                      : "");
    (void)c;
}

static void report_batch_steps(doc *d, const tp_plan *p)
{
    char a[48], b[48], c[48];
    d_section(d, "Sequence length, batch and steps");
    for (int i = 0; i < p->num_phases; i++) {
        const tp_plan_phase *ph = &p->phases[i];
        char label[64];
        snprintf(label, sizeof label, "phase %d \"%s\"", i + 1, ph->spec.name);
        d_row(d, label, "%s tokens at seq %lld; batch %lld sequences = %s tokens/step",
              si(ph->spec.tokens, a, sizeof a), (long long)ph->spec.seq_len,
              (long long)ph->spec.global_batch, commas(ph->tokens_per_step, b, sizeof b));
        d_row(d, "  steps", "%s / %s = %.1f -> %s steps", si(ph->spec.tokens, a, sizeof a),
              commas(ph->tokens_per_step, b, sizeof b), ph->steps,
              commas((double)ph->steps_whole, c, sizeof c));
        if (ph->spec.frozen_params > 0.0)
            d_row(d, "  frozen module", "%s parameters, %s tokens through it, %s",
                  si(ph->spec.frozen_params, a, sizeof a),
                  si(ph->spec.frozen_tokens > 0.0 ? ph->spec.frozen_tokens : ph->spec.tokens, b,
                     sizeof b),
                  ph->spec.frozen_no_backward ? "forward only" : "forward + backward-through");
    }
    d_row(d, "critical batch (estimate)", "%s tokens at loss %.3f; largest batch = %.2f x B_crit%s",
          si(p->crit_batch_tokens, a, sizeof a), p->loss, p->batch_over_crit,
          p->crit_batch_caveat ? " (CAVEAT, see the end)" : "");
    d_note(d, "B_crit ~= 2e8 / L^(1/0.21) tokens (Kaplan et al. 2020 sec. 5.1; McCandlish et "
              "al. 2018): above it data parallelism stops buying proportional speed-up. A rough "
              "estimate for Kaplan's setup; it grows as the loss falls, so early training has a "
              "smaller one.");
}

static void report_flops(doc *d, const tp_plan *p)
{
    char a[48];
    d_section(d, "FLOPs");
    d_row(d, "6ND", "%.4g FLOP (6 x %s active params x tokens%s)", p->flops_6nd,
          si((double)p->params.active, a, sizeof a),
          p->phases[0].frozen_flops > 0.0 ? " + frozen module" : "");
    d_row(d, "exact (model FLOPs)", "%.4g FLOP = %.3f x 6ND", p->flops_exact,
          p->flops_6nd > 0.0 ? p->flops_exact / p->flops_6nd : 0.0);
    for (int i = 0; i < p->num_phases; i++) {
        const tp_plan_phase *ph = &p->phases[i];
        const tp_flops *f = &ph->res.flops;
        char label[64];
        snprintf(label, sizeof label, "  per token, \"%s\"", ph->spec.name);
        double lm =
            ph->spec.tokens > 0.0 ? (ph->flops_exact - ph->frozen_flops) / ph->spec.tokens : 0.0;
        if (f->model_per_token > 0.0)
            d_row(d, label, "%.4g FLOP (6N %.4g; attention %.3g; logits %.3g)", lm,
                  f->six_n_per_token, f->attn_per_token, f->logits_per_token);
        else
            d_row(d, label, "%.4g FLOP", lm);
        if (ph->frozen_flops > 0.0)
            d_row(d, "  frozen module", "%.4g FLOP (%s N_f per token, no weight gradients)",
                  ph->frozen_flops, ph->spec.frozen_no_backward ? "2" : "4");
    }
    d_note(d, "Exact: GEMMs and the two attention matmuls, 3 x forward, causal attention "
              "halved (formulas.md 2.4); 6ND ignores attention and counts every parameter as "
              "a matmul weight (formulas.md 2.1).");
}

static void report_hours_cost(doc *d, const tp_plan_in *in, const tp_plan *p)
{
    char a[48], b[48];
    double peak = p->peak_flops_per_s;
    d_section(d, "GPU-hours and cost");
    d_row(d, "peak per GPU", "%.0f TFLOP/s dense (%s, %s)", peak / 1e12, in->base.gpu.name,
          tp_io_precision_name(in->base.train.precision));
    if (p->feasible && p->gpu_hours_predicted > 0.0) {
        double mfu = p->flops_exact / (p->gpu_hours_predicted * 3600.0 * peak);
        d_row(d, "at the predicted MFU",
              "%s GPU-hours (MFU %.1f%% = %.0f TFLOP/s per GPU, "
              "layout of section 6)%s",
              commas(p->gpu_hours_predicted, a, sizeof a), mfu * 100.0, mfu * peak / 1e12,
              p->used_predicted ? " <- plan" : "");
    }
    d_row(d, "at the user MFU (--mfu)",
          "%s GPU-hours exact, %s GPU-hours 6ND (MFU %.1f%% = "
          "%.0f TFLOP/s per GPU)%s",
          commas(p->gpu_hours_mfu, a, sizeof a), commas(p->gpu_hours_mfu_6nd, b, sizeof b),
          in->mfu * 100.0, in->mfu * peak / 1e12,
          p->feasible && !p->used_predicted ? " <- plan" : "");
    d_row(d, "price", "$%.2f per GPU-hour", p->price_per_hour);
    if (p->feasible)
        d_row(d, "cost of the plan", "%s", usd(p->cost_usd, a, sizeof a));
    d_row(d, "cost at the user MFU", "%s exact, %s 6ND",
          usd(p->gpu_hours_mfu * p->price_per_hour, a, sizeof a),
          usd(p->gpu_hours_mfu_6nd * p->price_per_hour, b, sizeof b));
}

static void report_cluster(doc *d, const tp_plan_in *in, const tp_plan *p)
{
    char a[64], b[64];
    d_section(d, "Cluster and wall clock");
    if (in->deadline_h > 0.0)
        d_row(d, "deadline", "%s", hours(in->deadline_h * 3600.0, a, sizeof a));
    if (p->gpus_exact > 0.0)
        d_row(d, "GPUs for it at the user MFU", "%.1f -> %lld in whole nodes (%lld %s of %lld)",
              p->gpus_exact, (long long)p->gpus_whole_nodes,
              (long long)(p->gpus_whole_nodes / p->gpus_per_node),
              tp_io_plural((double)(p->gpus_whole_nodes / p->gpus_per_node), "node", "nodes"),
              (long long)p->gpus_per_node);
    if (p->gpus_exact_predicted > 0.0)
        d_row(d, "GPUs for it, predicted MFU", "%.1f at the chosen layout's MFU",
              p->gpus_exact_predicted);
    d_row(d, in->size_by == TP_SIZE_GPUS ? "cluster (given)" : "cluster (sized)",
          "%lld GPUs = %lld node%s of %lld x %s", (long long)p->num_gpus, (long long)p->num_nodes,
          p->num_nodes == 1 ? "" : "s", (long long)p->gpus_per_node, in->base.gpu.name);
    if (in->size_by == TP_SIZE_DEADLINE && p->feasible && !p->deadline_met)
        d_note(d,
               "No cluster of up to --max-gpus %lld GPUs meets the deadline: this is the "
               "fastest one tried.",
               (long long)in->max_gpus);
    else if (in->size_by == TP_SIZE_DEADLINE && p->feasible)
        d_note(d,
               "The smallest whole-node cluster on which every phase has a layout that fits "
               "and the %s throughput meets the deadline (DP must divide the global batch, "
               "so not every node count has a layout).",
               p->used_predicted ? "predicted" : "--mfu");
    if (p->feasible && p->clean_moved)
        d_note(d,
               "Moved up from %lld GPUs, the first cluster that fits, whose best layout is "
               "one nobody runs (%s), to the first with a clean layout (TP within a node, PP "
               "dividing the layers, no CP at short context).",
               (long long)p->first_fit_gpus, p->clean_note);
    else if (p->feasible && p->first_fit_gpus > 0)
        d_note(d,
               "Its layout is not a clean one (%s) and no cluster up to a third larger has "
               "one that meets the deadline.",
               p->clean_note);
    if (!p->feasible)
        return;
    d_row(d, "wall clock (compute)", "%s%s", hours(p->compute_wall_s, a, sizeof a),
          in->deadline_h > 0.0
              ? (p->deadline_met ? ", meets the deadline" : ", MISSES the deadline")
              : "");
    if (p->required_mfu > 0.0)
        d_row(d, "MFU the deadline needs", "%.1f%% on %lld GPUs", p->required_mfu * 100.0,
              (long long)p->num_gpus);
    d_row(d, "with failures (section 8)", "%s expected",
          p->wall_s > 0.0 ? hours(p->wall_s, b, sizeof b) : "no progress");
}

static void report_layouts(doc *d, const tp_plan_in *in, const tp_plan *p)
{
    char a[320], b[48];
    d_section(d, "Parallel layout");
    for (int i = 0; i < p->num_phases; i++) {
        const tp_plan_phase *ph = &p->phases[i];
        const tp_result *r = &ph->res;
        const tp_memory *m = &r->memory;
        const tp_time *t = &r->time;
        char label[64];
        snprintf(label, sizeof label, "phase \"%s\" layout", ph->spec.name);
        d_row(d, label, "%s", layout_text(ph, a, sizeof a));
        d_row(d, "  chosen by", "%s",
              in->layout_from == TP_LAYOUT_GIVEN    ? "the flags (--tp, --pp, ...)"
              : in->layout_from == TP_LAYOUT_RECIPE ? "the seeds' ordered recipe"
              : p->clean_layouts ? "the layout search, shortest predicted step among clean layouts"
                                 : "the layout search, shortest predicted step");
        if (in->layout_from == TP_LAYOUT_AUTO)
            d_row(d, "  searched", "%s layouts evaluated, %s fit",
                  commas((double)ph->layouts_evaluated, a, sizeof a),
                  commas((double)ph->layouts_feasible, b, sizeof b));
        if (ph->tie_break)
            d_row(d, "  tie-break", "%s", ph->tie_note + strlen("tie-break: "));
        if (ph->margin_bytes > 0.0)
            d_row(d, "  memory margin", "%.1f GiB (%.0f%% of capacity) kept free (--memory-margin)",
                  ph->margin_bytes / TP_GIB, in->memory_margin * 100.0);
        d_row(d, "  batch",
              "%lld sequences = micro-batch %lld x %lld accumulation x DP %lld "
              "(%lld %s per replica)",
              (long long)ph->cfg.train.global_batch, (long long)ph->cfg.train.micro_batch,
              (long long)r->grad_accum, (long long)r->dp,
              (long long)(r->dp > 0 ? ph->cfg.train.global_batch / r->dp : 0),
              tp_io_plural((double)(r->dp > 0 ? ph->cfg.train.global_batch / r->dp : 0), "sequence",
                           "sequences"));
        d_row(d, "  memory per GPU (stage)", "%.1f GiB of %.1f GiB on stage %lld (%.1f GiB free)",
              m->total_bytes / TP_GIB, m->capacity_bytes / TP_GIB, (long long)m->stage,
              m->headroom_bytes / TP_GIB);
        d_row(d, "    weights/grads/optimizer", "%.2f / %.2f / %.2f GiB",
              (m->weights_bytes + m->weights_gathered_bytes) / TP_GIB, m->grads_bytes / TP_GIB,
              m->optimizer_bytes / TP_GIB);
        d_row(d, "    activations/logits", "%.2f / %.2f GiB (%.0f %s in flight)",
              m->activations_bytes / TP_GIB, m->logits_bytes / TP_GIB, m->inflight_microbatches,
              tp_io_plural(m->inflight_microbatches, "micro-batch", "micro-batches"));
        d_row(d, "    buffers/context/reserve", "%.2f / %.2f / %.2f GiB",
              m->comm_buffers_bytes / TP_GIB, m->framework_bytes / TP_GIB,
              m->fragmentation_bytes / TP_GIB);
        if (ph->frozen_weight_bytes > 0.0)
            d_row(d, "    frozen weights", "%.2f GiB", ph->frozen_weight_bytes / TP_GIB);
        if (t->computed) {
            d_row(d, "  step time (predicted)",
                  "%s: compute %.3f, recompute %.3f, TP %.3f, "
                  "CP %.3f, EP %.3f, PP %.3f, bubble %.3f, DP %.3f, optimizer %.3f s",
                  secs(t->step_s, b, sizeof b), t->compute_s, t->recompute_s, t->tp_comm_s,
                  t->cp_comm_s, t->ep_comm_s, t->pp_comm_s, t->bubble_s, t->dp_comm_s,
                  t->optimizer_s);
            d_row(d, "  predicted MFU",
                  "%.1f%% (HFU %.1f%%), %s tokens/s, largest non-compute "
                  "part: %s",
                  t->mfu * 100.0, t->hfu * 100.0, commas(t->tokens_per_s, b, sizeof b),
                  t->bottleneck && t->bottleneck[0] ? t->bottleneck : "none");
        }
        d_row(d, "  step time (used)", "%s at %s -> %s", secs(ph->step_s, b, sizeof b),
              p->used_predicted ? "the predicted MFU" : "the user MFU",
              hours(ph->wall_s, a, sizeof a));
    }
}

static void report_budget(doc *d, const tp_plan_in *in, const tp_plan *p)
{
    char a[48], b[48], c[48];
    if (!(in->budget_usd > 0.0))
        return;
    d_section(d, "Budget");
    d_row(d, "budget", "%s at $%.2f per GPU-hour = %s GPU-hours", usd(in->budget_usd, a, sizeof a),
          p->price_per_hour, commas(p->budget_gpu_hours, b, sizeof b));
    if (p->budget_gpus_whole_nodes > 0)
        d_row(d, "with the deadline",
              "rents %lld GPUs (%lld nodes) for %s; they need MFU %.1f%% "
              "to finish in time",
              (long long)p->budget_gpus_whole_nodes,
              (long long)(p->budget_gpus_whole_nodes / p->gpus_per_node),
              hours(in->deadline_h * 3600.0, a, sizeof a), p->budget_required_mfu * 100.0);
    if (p->budget_tokens_at_mfu > 0.0 && in->tokens_from != TP_TOKENS_COMPUTE)
        d_row(d, "tokens it buys",
              "%s of %s at the user MFU %.0f%% (--tokens budget trains on them)",
              si(p->budget_tokens_at_mfu, a, sizeof a), p->model.name, in->mfu * 100.0);
    if (!p->feasible)
        return;
    d_row(d, "plan cost", "%s (%s)", usd(p->cost_usd, a, sizeof a),
          p->within_budget ? "within budget" : "OVER budget");
    d_row(d, "hours it rents the cluster", "%s on %lld GPUs",
          hours(p->budget_hours_on_cluster * 3600.0, a, sizeof a), (long long)p->num_gpus);
    if (p->budget_gpus_for_deadline > 0.0)
        d_row(d, "GPUs it rents for the deadline", "%.1f for %s", p->budget_gpus_for_deadline,
              hours(in->deadline_h * 3600.0, a, sizeof a));
    if (p->budget_affords.params > 0.0)
        d_row(d, "model it affords (optimal)",
              "N %s, D %s, loss %.3f (%.3g FLOP at the plan's "
              "MFU, %s fit)",
              si(p->budget_affords.params, a, sizeof a), si(p->budget_affords.tokens, b, sizeof b),
              p->budget_affords.loss, p->budget_affords.compute_flops, p->fit->name);
    (void)c;
}

static void report_ckpt(doc *d, const tp_plan_in *in, const tp_plan *p)
{
    char a[64], b[64], c[64];
    const tp_ckpt *k = &p->ckpt;
    d_section(d, "Checkpointing and failures");
    double n = p->params_n;
    d_row(d, "checkpoint size",
          "%.0f GB = weights %.0f GB + optimizer %.0f GB (%.0f + %.0f + "
          "%.0f B/param: 16-bit weights, fp32 master, moments)",
          k->total_bytes / TP_GB, k->weights_bytes / TP_GB, k->optimizer_bytes / TP_GB,
          k->weights_bytes / n, in->base.train.optimizer.master_weights ? 4.0 : 0.0,
          k->optimizer_bytes / n - (in->base.train.optimizer.master_weights ? 4.0 : 0.0));
    d_row(d, "write (synchronous)", "%s at %.0f GB/s aggregate storage bandwidth%s",
          secs(p->ckpt_sync.write_s, a, sizeof a), p->storage_bw_bytes_per_s / TP_GB,
          in->ckpt.storage_bw_bytes_per_s > 0.0 ? " (--storage-gbps)"
                                                : " (1 GB/s per node, Llama 3's Tectonic)");
    d_row(d, "write (asynchronous)",
          "stall %s (host copy of 1/%lld of it at %.0f GB/s per "
          "GPU), durable %s later",
          secs(p->ckpt_async.stall_s, a, sizeof a), (long long)p->num_gpus,
          (in->ckpt.host_bw_bytes_per_s > 0.0 ? in->ckpt.host_bw_bytes_per_s : 10e9) / TP_GB,
          secs(p->ckpt_async.write_s, b, sizeof b));
    d_row(d, "failure rate", "%.3g per GPU-hour%s", in->ckpt.failures_per_gpu_hour,
          fabs(in->ckpt.failures_per_gpu_hour - TP_LLAMA3_FAILURES_PER_GPU_HOUR) <
                  1e-6 * TP_LLAMA3_FAILURES_PER_GPU_HOUR
              ? " (Llama 3 405B: 419 unexpected interruptions in 16,384 GPUs x 54 days)"
              : " (--gpu-failure-rate)");
    d_row(d, "job MTBF", "%s on %lld GPUs",
          k->job_mtbf_s > 0.0 ? hours(k->job_mtbf_s, a, sizeof a) : "no failures",
          (long long)p->num_gpus);
    d_row(d, "mode", "%s",
          in->ckpt.async ? "asynchronous (--ckpt-mode sync to compare)" : "synchronous");
    d_row(d, "interval: Young / Daly", "%s / %s of compute (delta = %s stall)",
          secs(k->young_s, a, sizeof a), secs(k->daly_s, b, sizeof b),
          secs(k->stall_s, c, sizeof c));
    d_row(d, "checkpoint every", "%s = %.0f steps%s%s", secs(k->interval_s, a, sizeof a),
          p->ckpt_every_steps, in->ckpt_every_steps > 0 ? " (--ckpt-every-steps)" : " (Daly)",
          k->raised_to_step    ? ", raised to one step (checkpoints are taken between steps)"
          : k->interval_raised ? ", raised to one asynchronous write"
                               : "");
    if (!k->progress) {
        d_note(d, "Failures arrive faster than checkpoints save work: no progress.");
        return;
    }
    d_row(d, "expected failures", "%.1f over the run", k->failures);
    d_row(d, "time lost", "rework %s + restarts %s (%.0f min each) + checkpoint stalls %s",
          hours(k->rework_s, a, sizeof a), hours(k->restart_total_s, b, sizeof b),
          in->ckpt.restart_s / 60.0, hours(k->ckpt_overhead_s, c, sizeof c));
    d_row(d, "expected wall clock", "%s, goodput %.1f%%", hours(k->wall_s, a, sizeof a),
          k->goodput * 100.0);
    const tp_ckpt *o = in->ckpt.async ? &p->ckpt_sync : &p->ckpt_async;
    if (o->progress)
        d_row(d, in->ckpt.async ? "  synchronous instead" : "  asynchronous instead",
              "every %s, wall clock %s, goodput %.1f%%", secs(o->interval_s, a, sizeof a),
              hours(o->wall_s, b, sizeof b), o->goodput * 100.0);
    d_note(d, "Young 1974 / Daly 2006 (formulas.md 6.2); expected wall clock W = T (1 + "
              "delta/tau) / (1 - (tau/2 + lag + R) / M), first order, independent failures.");
}

static void report_lr(doc *d, const tp_plan *p)
{
    const tp_lr_schedule *s = &p->lr;
    char a[48];
    d_section(d, "Learning-rate schedule");
    d_row(d, "schedule", "linear warmup %lld steps to %.3g, cosine to %.3g at step %s",
          (long long)s->warmup_steps, s->peak_lr, s->min_lr,
          commas((double)s->total_steps, a, sizeof a));
    const double fr[] = {0.0, 0.25, 0.5, 0.75, 1.0};
    char line[256];
    size_t o = 0;
    line[0] = '\0';
    for (size_t i = 0; i < sizeof fr / sizeof fr[0]; i++) {
        int64_t st = (int64_t)llround((double)s->total_steps * fr[i]);
        if (i == 0)
            st = s->warmup_steps;
        char sa[32];
        int w = snprintf(line + o, sizeof line - o, "%s%s: %.3g", i ? ", " : "",
                         commas((double)st, sa, sizeof sa), tp_lr_at(s, st));
        if (w < 0 || (size_t)w >= sizeof line - o)
            break;
        o += (size_t)w;
    }
    d_row(d, "lr at step", "%s", line);
    for (int i = 1; i < p->num_phases; i++) {
        char label[64];
        snprintf(label, sizeof label, "phase \"%s\" starts", p->phases[i].spec.name);
        d_row(d, label, "step %.0f (lr %.3g)", p->phases[i].lr_start_step,
              tp_lr_at(s, (int64_t)p->phases[i].lr_start_step));
    }
    d_note(d, "The whole series: --lr-schedule (CSV step,tokens,phase,lr).");
}

static void report(FILE *f, bool md, const tp_plan_in *in, const tp_plan *p)
{
    doc d = {f, md, 0, false};
    char a[48], b[64];
    char mname[TP_IO_SAFE_BYTES(TP_NAME_MAX)], gname[TP_IO_SAFE_BYTES(TP_NAME_MAX)];
    tp_io_safe_text(p->model.name, mname, sizeof mname);
    tp_io_safe_text(in->base.gpu.name, gname, sizeof gname);
    if (md)
        fprintf(f, "# Training plan: %s, %s tokens on %s\n", mname, si(p->tokens, a, sizeof a),
                gname);
    else
        fprintf(f, "trainplan plan: %s, %s tokens on %s\n", mname, si(p->tokens, a, sizeof a),
                gname);
    if (p->feasible) {
        if (md)
            fprintf(f, "\n");
        fprintf(f, "%s%lld %s (%lld %s), %s, %s GPU-hours\n", md ? "**Plan:** " : "  => ",
                (long long)p->num_gpus, tp_io_plural((double)p->num_gpus, "GPU", "GPUs"),
                (long long)p->num_nodes, tp_io_plural((double)p->num_nodes, "node", "nodes"),
                hours(p->compute_wall_s, b, sizeof b), commas(p->gpu_hours, a, sizeof a));
        char c[48];
        fprintf(f, "%s%s at $%.2f/GPU-hour; %s expected with failures\n", md ? "\n" : "     ",
                usd(p->cost_usd, c, sizeof c), p->price_per_hour,
                p->wall_s > 0.0 ? hours(p->wall_s, b, sizeof b) : "no progress");
    } else {
        fprintf(f, "%sNO FEASIBLE LAYOUT\n", md ? "\n**Plan:** " : "  => ");
    }
    report_model(&d, in, p);
    report_tokens(&d, in, p);
    report_batch_steps(&d, p);
    report_flops(&d, p);
    report_hours_cost(&d, in, p);
    report_cluster(&d, in, p);
    if (!p->feasible) {
        d_section(&d, "No feasible layout");
        d_note(&d, "%s.", p->reason);
        d_note(&d, "To fix it: %s.", p->fix);
    } else {
        report_layouts(&d, in, p);
        report_ckpt(&d, in, p);
        report_budget(&d, in, p);
        report_lr(&d, p);
    }
    caveats cv;
    collect_caveats(in, p, &cv);
    if (cv.n > 0) {
        d_section(&d, "Caveats");
        for (int i = 0; i < cv.n; i++)
            d_note(&d, "%s%s", md ? "- " : "- ", cv.text[i]);
    }
}

void tp_io_plan_text(FILE *f, const tp_plan_in *in, const tp_plan *p)
{
    report(f, false, in, p);
}

void tp_io_plan_markdown(FILE *f, const tp_plan_in *in, const tp_plan *p)
{
    report(f, true, in, p);
}

/* ------------------------------------------------------------------ */
/* CSV: one row per phase                                               */
/* ------------------------------------------------------------------ */

void tp_io_plan_csv(FILE *f, const tp_plan *p)
{
    fputs("phase,phase_tokens,tokens_per_step,steps,steps_whole,gpu_hours,wall_s,", f);
    tp_io_csv_columns(f);
    tp_io_csv_late_columns(f);
    fputc('\n', f);
    if (!p->feasible)
        return;
    for (int i = 0; i < p->num_phases; i++) {
        const tp_plan_phase *ph = &p->phases[i];
        tp_io_csv_text(f, ph->spec.name);
        fprintf(f, ",%.15g,%.15g,%.15g,%lld,%.15g,%.15g,", ph->spec.tokens, ph->tokens_per_step,
                ph->steps, (long long)ph->steps_whole, ph->gpu_hours, ph->wall_s);
        tp_io_csv_fields(f, &ph->cfg, &ph->res);
        tp_io_csv_late_fields(f, &ph->cfg);
        fputc('\n', f);
    }
}

/* ------------------------------------------------------------------ */
/* LR series                                                           */
/* ------------------------------------------------------------------ */

static int phase_of(const tp_plan *p, int64_t step)
{
    int k = 0;
    for (int i = 1; i < p->num_phases; i++)
        if ((double)step >= p->phases[i].lr_start_step)
            k = i;
    return k;
}

static double tokens_at(const tp_plan *p, int64_t step)
{
    int k = phase_of(p, step);
    double t = 0.0;
    for (int i = 0; i < k; i++)
        t += (double)p->phases[i].steps_whole * p->phases[i].tokens_per_step;
    return t + ((double)step - p->phases[k].lr_start_step) * p->phases[k].tokens_per_step;
}

static void lr_line(FILE *f, const tp_plan *p, int64_t step)
{
    fprintf(f, "%lld,%.0f,%s,%.6g\n", (long long)step, tokens_at(p, step),
            p->phases[phase_of(p, step)].spec.name, tp_lr_at(&p->lr, step));
}

int64_t tp_io_plan_lr_rows(const tp_plan *p, int64_t points)
{
    int64_t every = p->lr.total_steps + 1;
    return points <= 0 || points >= every ? every : points;
}

void tp_io_plan_lr_csv(FILE *f, const tp_plan *p, int64_t points)
{
    int64_t T = p->lr.total_steps;
    fprintf(f, "step,tokens,phase,lr\n");
    if (tp_io_plan_lr_rows(p, points) > TP_IO_LR_MAX_POINTS)
        points = TP_IO_LR_MAX_POINTS;
    if (points <= 0 || points >= T + 1) {
        for (int64_t s = 0; s <= T; s++)
            lr_line(f, p, s);
        return;
    }
    /* Evenly spaced, plus the warmup end and each phase's first step. */
    int64_t prev = -1;
    for (int64_t i = 0; i < points; i++) {
        int64_t s = points > 1 ? (int64_t)llround((double)T * (double)i / (double)(points - 1)) : 0;
        int64_t extra[TP_PLAN_MAX_PHASES + 1];
        int ne = 0;
        if (p->lr.warmup_steps > prev && p->lr.warmup_steps < s)
            extra[ne++] = p->lr.warmup_steps;
        for (int k = 1; k < p->num_phases; k++) {
            int64_t b = (int64_t)p->phases[k].lr_start_step;
            if (b > prev && b < s)
                extra[ne++] = b;
        }
        for (int a = 0; a < ne; a++) /* few: insertion order by value */
            for (int b = a + 1; b < ne; b++)
                if (extra[b] < extra[a]) {
                    int64_t t = extra[a];
                    extra[a] = extra[b];
                    extra[b] = t;
                }
        for (int a = 0; a < ne; a++)
            if (extra[a] != prev) {
                lr_line(f, p, extra[a]);
                prev = extra[a];
            }
        if (s != prev) {
            lr_line(f, p, s);
            prev = s;
        }
    }
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

static void put_str(jb *b, json_t *o, const char *key, const char *v)
{
    jb_put_str(b, o, key, v, "(not valid UTF-8)");
}

static json_t *point_json(jb *b, const tp_scaling_point *pt)
{
    json_t *o = jb_obj(b);
    put_real(b, o, "compute_flops", pt->compute_flops);
    put_real(b, o, "params", pt->params);
    put_real(b, o, "tokens", pt->tokens);
    put_real(b, o, "tokens_per_param", pt->tokens_per_param);
    put_real(b, o, "loss", pt->loss);
    return o;
}

static json_t *ckpt_json(jb *b, const tp_ckpt *k)
{
    json_t *o = jb_obj(b);
    put_real(b, o, "size_bytes", k->total_bytes);
    put_real(b, o, "weights_bytes", k->weights_bytes);
    put_real(b, o, "optimizer_bytes", k->optimizer_bytes);
    put_real(b, o, "write_s", k->write_s);
    put_real(b, o, "stall_s", k->stall_s);
    put_real(b, o, "persist_lag_s", k->persist_lag_s);
    put_real(b, o, "job_mtbf_s", k->job_mtbf_s);
    put_real(b, o, "young_s", k->young_s);
    put_real(b, o, "daly_s", k->daly_s);
    put_real(b, o, "interval_s", k->interval_s);
    put_bool(b, o, "interval_raised", k->interval_raised);
    put_bool(b, o, "interval_raised_to_step", k->raised_to_step);
    put_real(b, o, "failures", k->failures);
    put_real(b, o, "checkpoint_overhead_s", k->ckpt_overhead_s);
    put_real(b, o, "rework_s", k->rework_s);
    put_real(b, o, "restart_total_s", k->restart_total_s);
    put_real(b, o, "wall_s", k->wall_s);
    put_real(b, o, "goodput", k->goodput);
    put_bool(b, o, "progress", k->progress);
    return o;
}

static json_t *phase_json(jb *b, const tp_plan *p, const tp_plan_phase *ph)
{
    json_t *o = jb_obj(b);
    put_str(b, o, "name", ph->spec.name);
    put_real(b, o, "tokens", ph->spec.tokens);
    put_int(b, o, "seq_len", ph->spec.seq_len);
    put_int(b, o, "global_batch", ph->spec.global_batch);
    put_real(b, o, "tokens_per_step", ph->tokens_per_step);
    put_real(b, o, "steps", ph->steps);
    put_int(b, o, "steps_whole", ph->steps_whole);
    put_real(b, o, "flops_6nd", ph->flops_6nd);
    put_real(b, o, "flops_exact", ph->flops_exact);
    put_real(b, o, "frozen_params", ph->spec.frozen_params);
    put_real(b, o, "frozen_flops", ph->frozen_flops);
    put_real(b, o, "gpu_hours_mfu", ph->gpu_hours_mfu);
    put_real(b, o, "gpu_hours_mfu_6nd", ph->gpu_hours_mfu_6nd);
    put_bool(b, o, "fits", ph->fits);
    if (p->feasible) {
        const tp_train *t = &ph->cfg.train;
        const tp_result *r = &ph->res;
        json_t *l = jb_obj(b);
        put_int(b, l, "tp", t->tp);
        put_int(b, l, "pp", t->pp);
        put_int(b, l, "cp", t->cp);
        put_int(b, l, "ep", t->ep);
        if (t->etp > 0 && t->etp != t->tp) { /* folded only, as in the estimate's layout */
            put_int(b, l, "etp", t->etp);
            put_int(b, l, "edp", tp_train_edp(t));
        }
        put_int(b, l, "vpp", t->vpp);
        put_int(b, l, "dp", r->dp);
        put_bool(b, l, "sp", t->sp);
        put_int(b, l, "zero", t->zero);
        put_str(b, l, "recompute", tp_io_recompute_name(t->recompute));
        put_str(b, l, "schedule", tp_io_schedule_name(t->schedule));
        put_int(b, l, "micro_batch", t->micro_batch);
        put_int(b, l, "grad_accum", r->grad_accum);
        put_int(b, l, "layouts_evaluated", (int64_t)ph->layouts_evaluated);
        put_int(b, l, "layouts_feasible", (int64_t)ph->layouts_feasible);
        put_bool(b, l, "tie_break", ph->tie_break);
        if (ph->tie_break)
            put_str(b, l, "tie_break_note", ph->tie_note);
        jb_set(b, o, "layout", l);
        const tp_memory *m = &r->memory;
        json_t *mj = jb_obj(b);
        put_int(b, mj, "stage", m->stage);
        put_real(b, mj, "weights_bytes", m->weights_bytes + m->weights_gathered_bytes);
        put_real(b, mj, "grads_bytes", m->grads_bytes);
        put_real(b, mj, "optimizer_bytes", m->optimizer_bytes);
        put_real(b, mj, "activations_bytes", m->activations_bytes);
        put_real(b, mj, "logits_bytes", m->logits_bytes);
        put_real(b, mj, "comm_buffers_bytes", m->comm_buffers_bytes);
        put_real(b, mj, "framework_bytes", m->framework_bytes);
        put_real(b, mj, "fragmentation_bytes", m->fragmentation_bytes);
        put_real(b, mj, "frozen_weights_bytes", ph->frozen_weight_bytes);
        put_real(b, mj, "total_bytes", m->total_bytes);
        put_real(b, mj, "capacity_bytes", m->capacity_bytes);
        put_real(b, mj, "headroom_bytes", m->headroom_bytes);
        put_real(b, mj, "margin_bytes", ph->margin_bytes);
        jb_set(b, o, "memory", mj);
        const tp_time *tm = &r->time;
        json_t *tj = jb_obj(b);
        put_bool(b, tj, "computed", tm->computed);
        put_real(b, tj, "compute_s", tm->compute_s);
        put_real(b, tj, "recompute_s", tm->recompute_s);
        put_real(b, tj, "tp_comm_s", tm->tp_comm_s);
        put_real(b, tj, "cp_comm_s", tm->cp_comm_s);
        put_real(b, tj, "ep_comm_s", tm->ep_comm_s);
        put_real(b, tj, "pp_comm_s", tm->pp_comm_s);
        put_real(b, tj, "bubble_s", tm->bubble_s);
        put_real(b, tj, "dp_comm_s", tm->dp_comm_s);
        put_real(b, tj, "optimizer_s", tm->optimizer_s);
        put_real(b, tj, "step_s", tm->step_s);
        put_real(b, tj, "mfu", tm->mfu);
        put_real(b, tj, "hfu", tm->hfu);
        put_real(b, tj, "tokens_per_s", tm->tokens_per_s);
        jb_set(b, o, "step_time", tj);
        put_real(b, o, "predicted_mfu", ph->predicted_mfu);
        put_real(b, o, "predicted_step_s", ph->predicted_step_s);
        put_real(b, o, "mfu_step_s", ph->mfu_step_s);
        put_real(b, o, "step_s", ph->step_s);
        put_real(b, o, "gpu_hours_predicted", ph->gpu_hours_predicted);
        put_real(b, o, "gpu_hours", ph->gpu_hours);
        put_real(b, o, "wall_s", ph->wall_s);
        put_real(b, o, "lr_start_step", ph->lr_start_step);
    }
    return o;
}

json_t *tp_io_plan_json(const tp_plan_in *in, const tp_plan *p)
{
    jb b = {true};
    json_t *root = jb_obj(&b);

    json_t *m = jb_obj(&b);
    put_str(&b, m, "name", p->model.name);
    put_bool(&b, m, "sized_from_budget", in->size_model);
    if (in->model_params > 0.0) {
        put_real(&b, m, "from_params", in->model_params);
        put_str(&b, m, "shape_rule", TP_IO_SHAPE_RULE);
    }
    put_int(&b, m, "num_layers", p->model.num_layers);
    put_int(&b, m, "hidden", p->model.hidden);
    put_int(&b, m, "num_heads", p->model.num_heads);
    put_int(&b, m, "params", p->params.total);
    put_int(&b, m, "active_params", p->params.active);
    put_real(&b, m, "state_bytes_per_param", p->state_bytes.total);
    put_real(&b, m, "static_bytes", p->static_bytes);
    put_int(&b, m, "min_gpus_static", p->min_gpus_static);
    jb_set(&b, root, "model", m);

    json_t *s = jb_obj(&b);
    put_str(&b, s, "fit", p->fit->name);
    put_str(&b, s, "tokens_from",
            in->tokens_from == TP_TOKENS_GIVEN     ? "given"
            : in->tokens_from == TP_TOKENS_COMPUTE ? "compute"
                                                   : "per_param");
    put_real(&b, s, "tokens", p->tokens);
    put_real(&b, s, "tokens_per_param", p->tokens_per_param);
    put_real(&b, s, "compute_budget_flops", p->compute_budget_flops);
    put_real(&b, s, "loss", p->loss);
    jb_set(&b, s, "compute_optimal", point_json(&b, &p->optimal));
    jb_set(&b, s, "rule_20", point_json(&b, &p->rule20));
    put_real(&b, s, "critical_batch_tokens", p->crit_batch_tokens);
    put_real(&b, s, "batch_over_critical", p->batch_over_crit);
    put_bool(&b, s, "critical_batch_caveat", p->crit_batch_caveat);
    jb_set(&b, root, "scaling", s);

    json_t *f = jb_obj(&b);
    put_real(&b, f, "flops_6nd", p->flops_6nd);
    put_real(&b, f, "flops_exact", p->flops_exact);
    put_real(&b, f, "peak_flops_per_s", p->peak_flops_per_s);
    put_real(&b, f, "mfu_user", in->mfu);
    put_str(&b, f, "mfu_basis", in->basis == TP_BASIS_6ND ? "6nd" : "exact");
    put_real(&b, f, "gpu_hours_mfu", p->gpu_hours_mfu);
    put_real(&b, f, "gpu_hours_mfu_6nd", p->gpu_hours_mfu_6nd);
    /* issue 19: without a layout there is no schedule, so no hours, cost or wall
     * clock: absent (the root "reason" says why), never a fake 0 */
    if (p->feasible) {
        put_real(&b, f, "gpu_hours_predicted", p->gpu_hours_predicted);
        put_real(&b, f, "gpu_hours", p->gpu_hours);
    }
    put_bool(&b, f, "used_predicted", p->used_predicted);
    put_real(&b, f, "price_per_gpu_hour", p->price_per_hour);
    if (p->feasible)
        put_real(&b, f, "cost_usd", p->cost_usd);
    jb_set(&b, root, "compute", f);

    json_t *c = jb_obj(&b);
    put_str(&b, c, "gpu", in->base.gpu.name);
    put_str(&b, c, "sized_by", in->size_by == TP_SIZE_GPUS ? "gpus" : "deadline");
    put_real(&b, c, "deadline_s", in->deadline_h * 3600.0);
    put_real(&b, c, "gpus_exact", p->gpus_exact);
    put_int(&b, c, "gpus_whole_nodes", p->gpus_whole_nodes);
    put_real(&b, c, "gpus_exact_predicted", p->gpus_exact_predicted);
    put_int(&b, c, "num_gpus", p->num_gpus);
    put_int(&b, c, "gpus_per_node", p->gpus_per_node);
    put_int(&b, c, "num_nodes", p->num_nodes);
    if (p->feasible) {
        put_real(&b, c, "compute_wall_s", p->compute_wall_s);
        put_real(&b, c, "wall_s", p->wall_s);
    }
    put_bool(&b, c, "deadline_met", p->deadline_met);
    if (p->feasible)
        put_real(&b, c, "required_mfu", p->required_mfu);
    put_real(&b, c, "memory_margin", in->memory_margin);
    if (p->first_fit_gpus > 0) {
        put_int(&b, c, "first_fit_gpus", p->first_fit_gpus);
        put_bool(&b, c, "moved_for_clean_layout", p->clean_moved);
        put_str(&b, c, "first_fit_not_clean", p->clean_note);
    }
    jb_set(&b, root, "cluster", c);

    json_t *ph = json_array();
    if (!ph)
        b.ok = false;
    for (int i = 0; i < p->num_phases && ph; i++)
        if (json_array_append_new(ph, phase_json(&b, p, &p->phases[i])) != 0)
            b.ok = false;
    jb_set(&b, root, "phases", ph);

    json_t *bu = jb_obj(&b);
    put_real(&b, bu, "budget_usd", in->budget_usd);
    put_real(&b, bu, "gpu_hours", p->budget_gpu_hours);
    put_real(&b, bu, "gpus_for_deadline", p->budget_gpus_for_deadline);
    put_int(&b, bu, "gpus_for_deadline_whole_nodes", p->budget_gpus_whole_nodes);
    put_real(&b, bu, "required_mfu_for_deadline", p->budget_required_mfu);
    put_real(&b, bu, "tokens_at_mfu", p->budget_tokens_at_mfu);
    if (p->feasible) { /* not worked out without a layout */
        put_real(&b, bu, "hours_on_cluster", p->budget_hours_on_cluster);
        put_bool(&b, bu, "within_budget", p->within_budget);
        jb_set(&b, bu, "affords", point_json(&b, &p->budget_affords));
    }
    jb_set(&b, root, "budget", bu);

    json_t *k = jb_obj(&b);
    put_str(&b, k, "mode", in->ckpt.async ? "async" : "sync");
    put_real(&b, k, "failures_per_gpu_hour", in->ckpt.failures_per_gpu_hour);
    put_real(&b, k, "restart_s", in->ckpt.restart_s);
    put_real(&b, k, "storage_bw_bytes_per_s", p->storage_bw_bytes_per_s);
    put_real(&b, k, "every_steps", p->ckpt_every_steps);
    jb_set(&b, k, "chosen", ckpt_json(&b, &p->ckpt));
    jb_set(&b, k, "sync", ckpt_json(&b, &p->ckpt_sync));
    jb_set(&b, k, "async", ckpt_json(&b, &p->ckpt_async));
    if (p->feasible)
        jb_set(&b, root, "checkpoint", k);
    else
        json_decref(k);

    json_t *lr = jb_obj(&b);
    put_real(&b, lr, "peak_lr", p->lr.peak_lr);
    put_real(&b, lr, "min_lr", p->lr.min_lr);
    put_int(&b, lr, "warmup_steps", p->lr.warmup_steps);
    put_int(&b, lr, "total_steps", p->lr.total_steps);
    if (p->feasible)
        jb_set(&b, root, "lr_schedule", lr);
    else
        json_decref(lr);

    put_bool(&b, root, "feasible", p->feasible);
    put_str(&b, root, "reason", p->reason);
    put_str(&b, root, "fix", p->fix);
    caveats cv;
    collect_caveats(in, p, &cv);
    json_t *ca = json_array();
    if (!ca)
        b.ok = false;
    for (int i = 0; i < cv.n && ca; i++)
        if (json_array_append_new(ca, json_string(cv.text[i])) != 0)
            b.ok = false;
    jb_set(&b, root, "caveats", ca);

    if (!b.ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}
