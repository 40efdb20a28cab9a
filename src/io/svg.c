/* SPDX-License-Identifier: MIT */
/*
 * svg.c: the estimate as SVG charts (svg.h).
 *
 * Layout: every chart is 900 px wide, a title line, then bars. Scales are
 * linear from 0; a bar's width is value / axis_max x plot width, where
 * axis_max is the larger of the stacked total and the capacity line, plus
 * 5 % so the line stays visible. Text is 12 px sans-serif; labels that do
 * not fit inside their block are left out (the legend carries the values).
 *
 * Pipeline schedule: drawn from the simulation of schedule.c (one
 * simulation for every writer), not from a formula.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "sbuf.h"
#include "svg.h"

#define W 900.0      /* chart width, px */
#define PLOT_X 150.0 /* left edge of the bars */
#define PLOT_W 700.0 /* bar area width */

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static void xml_text(sbuf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        switch (*p) {
        case '&': sb_puts(b, "&amp;"); break;
        case '<': sb_puts(b, "&lt;"); break;
        case '>': sb_puts(b, "&gt;"); break;
        case '"': sb_puts(b, "&quot;"); break;
        default:
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                sb_puts(b, "?");
            else
                sb_putn(b, p, 1);
        }
    }
}

static void doc_open(sbuf *b, double height, const char *title)
{
    sb_printf(b,
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
              "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
              "font-size=\"12\">\n<title>",
              W, height, W, height);
    xml_text(b, title);
    sb_printf(b,
              "</title>\n<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" "
              "fill=\"#ffffff\"/>\n",
              W, height);
}

static void chart_title(sbuf *b, double y, const char *text)
{
    sb_printf(b, "<text x=\"10\" y=\"%.1f\" font-size=\"15\" font-weight=\"bold\">", y);
    xml_text(b, text);
    sb_puts(b, "</text>\n");
}

static void label(sbuf *b, double x, double y, const char *anchor, const char *fill,
                  const char *text)
{
    sb_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\">", x, y, anchor, fill);
    xml_text(b, text);
    sb_puts(b, "</text>\n");
}

/* ------------------------------------------------------------------ */
/* Memory                                                               */
/* ------------------------------------------------------------------ */

/* The parts (data-component = JSON breakdown key, legend = label) are
 * tp_io_mem_parts; these are their colours, in the same order. */
static const char *const mem_colors[TP_IO_NUM_MEM_PARTS] = {
    "#4e79a7", "#a0cbe8", "#f28e2b", "#ffbe7d", "#59a14f",
    "#8cd17d", "#b6992d", "#9d7660", "#bab0ac",
};

static double finite_or0(double x)
{
    return isfinite(x) ? x : 0.0;
}

/* The memory chart's body at vertical offset y0; returns its height. */
static double memory_body(sbuf *b, const tp_config *c, const tp_result *r, double y0)
{
    const tp_memory *rows[3];
    const char *names[3];
    int n = 0;
    char t0[64], t1[64], t2[64];
    bool dual = c->train.schedule == TP_SCHED_DUALPIPE; /* per rank: its two stages */
    snprintf(t0, sizeof t0, "%s %" PRId64 " (peak)", dual ? "rank" : "stage", r->memory.stage);
    rows[n] = &r->memory;
    names[n++] = t0;
    if (c->train.pp > 1 && dual && r->stage_first.stage != r->memory.stage) {
        snprintf(t1, sizeof t1, "rank %" PRId64 " (first)", r->stage_first.stage);
        rows[n] = &r->stage_first;
        names[n++] = t1;
    } else if (c->train.pp > 1 && !dual) {
        if (r->stage_first.stage != r->memory.stage) {
            snprintf(t1, sizeof t1, "stage %" PRId64 " (first)", r->stage_first.stage);
            rows[n] = &r->stage_first;
            names[n++] = t1;
        }
        if (r->stage_last.stage != r->memory.stage) {
            snprintf(t2, sizeof t2, "stage %" PRId64 " (last)", r->stage_last.stage);
            rows[n] = &r->stage_last;
            names[n++] = t2;
        }
    }
    double cap = finite_or0(r->memory.capacity_bytes);
    double axis = cap;
    for (int i = 0; i < n; i++)
        if (finite_or0(rows[i]->total_bytes) > axis)
            axis = rows[i]->total_bytes;
    axis = axis > 0.0 ? axis * 1.05 : 1.0;

    char title[200];
    snprintf(title, sizeof title, "Memory per GPU: %.2f GiB of %.2f GiB (%s)",
             finite_or0(r->memory.total_bytes) / TP_GIB, cap / TP_GIB,
             r->memory.fits ? "fits" : "does not fit");
    chart_title(b, y0 + 20.0, title);
    double y = y0 + 40.0, bar_h = 26.0;
    sb_printf(b,
              "<g class=\"memory\" data-capacity-bytes=\"%.0f\" data-peak-bytes=\"%.0f\" "
              "data-fits=\"%s\">\n",
              cap, finite_or0(r->memory.total_bytes), r->memory.fits ? "true" : "false");
    for (int i = 0; i < n; i++) {
        sb_printf(b, "<g class=\"stage\" data-stage=\"%" PRId64 "\" data-total-bytes=\"%.0f\">\n",
                  rows[i]->stage, finite_or0(rows[i]->total_bytes));
        label(b, PLOT_X - 8.0, y + bar_h / 2.0 + 4.0, "end", "#333333", names[i]);
        double x = PLOT_X;
        for (size_t k = 0; k < TP_IO_NUM_MEM_PARTS; k++) {
            double bytes = finite_or0(tp_io_part_value(rows[i], &tp_io_mem_parts[k]));
            double w = bytes / axis * PLOT_W;
            sb_printf(b,
                      "<rect class=\"part\" data-component=\"%s\" data-bytes=\"%.0f\" "
                      "x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\">"
                      "<title>%s: %.2f GiB</title></rect>\n",
                      tp_io_mem_parts[k].key, bytes, x, y, w, bar_h, mem_colors[k],
                      tp_io_mem_parts[k].label, bytes / TP_GIB);
            x += w;
        }
        char tot[48];
        snprintf(tot, sizeof tot, "%.2f GiB", finite_or0(rows[i]->total_bytes) / TP_GIB);
        label(b, x + 4.0 > PLOT_X + PLOT_W - 60.0 ? PLOT_X + PLOT_W - 60.0 : x + 4.0,
              y + bar_h / 2.0 + 4.0, "start", "#333333", tot);
        sb_puts(b, "</g>\n");
        y += bar_h + 10.0;
    }
    /* capacity line */
    double cx = PLOT_X + cap / axis * PLOT_W;
    sb_printf(b,
              "<line class=\"capacity\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
              "stroke=\"#e15759\" stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n",
              cx, y0 + 34.0, cx, y - 4.0);
    char capl[64];
    snprintf(capl, sizeof capl, "capacity %.2f GiB", cap / TP_GIB);
    label(b, cx, y + 10.0, "middle", "#e15759", capl);
    y += 24.0;
    /* legend: two columns of component, GiB */
    for (size_t k = 0; k < TP_IO_NUM_MEM_PARTS; k++) {
        double lx = 20.0 + (double)(k % 3) * 290.0, ly = y + (double)(k / 3) * 18.0;
        sb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", lx,
                  ly - 10.0, mem_colors[k]);
        char t[96];
        snprintf(t, sizeof t, "%s %.2f GiB", tp_io_mem_parts[k].label,
                 finite_or0(tp_io_part_value(&r->memory, &tp_io_mem_parts[k])) / TP_GIB);
        label(b, lx + 18.0, ly, "start", "#333333", t);
    }
    y += 3.0 * 18.0 + 4.0;
    sb_puts(b, "</g>\n");
    return y - y0;
}

/* ------------------------------------------------------------------ */
/* Step time                                                            */
/* ------------------------------------------------------------------ */

/* The parts are tp_io_time_parts; these are their colours, in order. */
static const char *const time_colors[TP_IO_NUM_TIME_PARTS] = {
    "#4e79a7", "#76b7b2", "#f28e2b", "#ffbe7d", "#b07aa1",
    "#ff9da7", "#bab0ac", "#e15759", "#59a14f",
};

static double time_body(sbuf *b, const tp_result *r, double y0)
{
    const tp_time *t = &r->time;
    if (!t->computed) {
        chart_title(b, y0 + 20.0, "Step time");
        sb_puts(b, "<g class=\"time\" data-computed=\"false\">\n");
        label(b, 20.0, y0 + 46.0, "start", "#333333",
              "not computed: this build of trainplan has no step-time model");
        sb_puts(b, "</g>\n");
        return 64.0;
    }
    double v[TP_IO_NUM_TIME_PARTS];
    for (size_t k = 0; k < TP_IO_NUM_TIME_PARTS; k++)
        v[k] = tp_io_part_value(t, &tp_io_time_parts[k]);
    double step = finite_or0(t->step_s);
    double axis = step > 0.0 ? step : 1.0;
    char title[200];
    snprintf(title, sizeof title, "Step time: %.3f s (%.0f tokens/s, MFU %.1f%%)", step,
             finite_or0(t->tokens_per_s), 100.0 * finite_or0(t->mfu));
    chart_title(b, y0 + 20.0, title);
    double y = y0 + 40.0, bar_h = 30.0;
    sb_printf(b, "<g class=\"time\" data-computed=\"true\" data-step-seconds=\"%.9g\">\n", step);
    label(b, PLOT_X - 8.0, y + bar_h / 2.0 + 4.0, "end", "#333333", "one step");
    double x = PLOT_X;
    for (size_t k = 0; k < TP_IO_NUM_TIME_PARTS; k++) {
        double s = finite_or0(v[k]);
        double w = s / axis * PLOT_W;
        sb_printf(b,
                  "<rect class=\"part\" data-component=\"%s\" data-seconds=\"%.9g\" x=\"%.2f\" "
                  "y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s: %.4f s"
                  "</title></rect>\n",
                  tp_io_time_parts[k].key, s, x, y, w, bar_h, time_colors[k],
                  tp_io_time_parts[k].label, s);
        if (w > 60.0) {
            char t2[48];
            snprintf(t2, sizeof t2, "%.0f%%", 100.0 * s / axis);
            label(b, x + w / 2.0, y + bar_h / 2.0 + 4.0, "middle", "#ffffff", t2);
        }
        x += w;
    }
    y += bar_h + 22.0;
    for (size_t k = 0; k < TP_IO_NUM_TIME_PARTS; k++) {
        double lx = 20.0 + (double)(k % 3) * 290.0, ly = y + (double)(k / 3) * 18.0;
        sb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", lx,
                  ly - 10.0, time_colors[k]);
        char t2[96];
        snprintf(t2, sizeof t2, "%s %.4f s (%.1f%%)", tp_io_time_parts[k].label, finite_or0(v[k]),
                 100.0 * finite_or0(v[k]) / axis);
        label(b, lx + 18.0, ly, "start", "#333333", t2);
    }
    y += 3.0 * 18.0 + 4.0;
    sb_puts(b, "</g>\n");
    return y - y0;
}

/* ------------------------------------------------------------------ */
/* Pipeline schedule                                                    */
/* ------------------------------------------------------------------ */

static double schedule_body(sbuf *b, const tp_config *c, const tp_result *r, double y0)
{
    const tp_train *t = &c->train;
    int64_t p, m, v;
    double tb;
    tp_io_sched_of(c, r, &p, &m, &v, &tb);
    int64_t m_draw = m;
    while (m_draw > 1 && p * m_draw * v > TP_IO_SCHED_MAX_OPS / 2)
        m_draw = m_draw / 2 > p ? (m_draw / 2) / p * p : m_draw / 2;
    double model_bubble = r->time.computed
                              ? r->time.bubble_of_total
                              : tp_bubble_fraction(t->schedule, p, m, v, TP_BUBBLE_OF_TOTAL);
    tp_io_sched s;
    bool ok = tp_io_sched_run(&s, t->schedule, p, m_draw, v, tb);
    double simb = ok ? tp_io_sched_idle(&s) : 0.0;
    int64_t runs = r->schedule_runs > 1 ? r->schedule_runs : 1;
    char title[256], of_runs[64] = "";
    if (runs > 1) /* --local-batch: the step repeats the run drawn */
        snprintf(of_runs, sizeof of_runs, "%" PRId64 " runs of ", runs);
    snprintf(title, sizeof title,
             "Pipeline schedule: %s, %" PRId64 " stage%s, %s%" PRId64 " micro-batch%s%s; bubble "
             "%.1f%% of the step",
             tp_io_schedule_name(t->schedule), p, p == 1 ? "" : "s", of_runs, m, m == 1 ? "" : "es",
             v > 1 ? ", interleaved" : "", 100.0 * finite_or0(model_bubble));
    chart_title(b, y0 + 20.0, title);
    sb_printf(b,
              "<g class=\"schedule\" data-stages=\"%" PRId64 "\" data-microbatches=\"%" PRId64
              "\" data-virtual-stages=\"%" PRId64 "\" data-bubble-fraction=\"%.9g\" "
              "data-simulated-bubble-fraction=\"%.9g\">\n",
              p, m, v, finite_or0(model_bubble), simb);
    double y = y0 + 36.0;
    if (!ok) {
        label(b, 20.0, y + 14.0, "start", "#333333",
              t->schedule == TP_SCHED_DUALPIPE
                  ? "dualpipe is not drawn (its two directions are not simulated); the bubble "
                    "above is the model's"
                  : "schedule too large to draw");
        sb_puts(b, "</g>\n");
        return y + 30.0 - y0;
    }
    double row_h = p <= 16 ? 22.0 : (p <= 64 ? 10.0 : 4.0);
    double scale = PLOT_W / (s.makespan > 0.0 ? s.makespan : 1.0);
    /* time axis: seconds when the step time is known, else forward-pass units */
    double unit_s = 0.0;
    if (r->time.computed && s.makespan > 0.0)
        unit_s = (r->time.compute_s + r->time.recompute_s + r->time.bubble_s) /
                 ((double)runs * s.makespan);
    for (int64_t st = 0; st < p; st++) {
        double ry = y + (double)st * (row_h + 2.0);
        char sl[32];
        snprintf(sl, sizeof sl, "stage %" PRId64, st);
        if (row_h >= 10.0)
            label(b, PLOT_X - 8.0, ry + row_h / 2.0 + 4.0, "end", "#333333", sl);
        /* the bubble: the row's background, visible wherever the stage idles */
        sb_printf(b,
                  "<rect class=\"bubble\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
                  "fill=\"#d9d9d9\"/>\n",
                  PLOT_X, ry, s.makespan * scale, row_h);
        for (int64_t k = 0; k < s.n_per; k++) {
            const tp_io_sched_op *o = &s.ops[st * s.n_per + k];
            double x = PLOT_X + o->start * scale, w = (o->end - o->start) * scale;
            const char *fill = o->bwd ? (o->chunk % 2 ? "#f6a15c" : "#f28e2b")
                                      : (o->chunk % 2 ? "#7ea6cf" : "#4e79a7");
            sb_printf(b,
                      "<rect class=\"%s\" data-microbatch=\"%" PRId64 "\" data-chunk=\"%" PRId64
                      "\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" "
                      "stroke=\"#ffffff\" stroke-width=\"0.5\"/>\n",
                      o->bwd ? "bwd" : "fwd", o->mb, o->chunk, x, ry, w, row_h, fill);
            if (w >= 16.0 && row_h >= 14.0) {
                char n[24];
                snprintf(n, sizeof n, "%" PRId64, o->mb + 1);
                label(b, x + w / 2.0, ry + row_h / 2.0 + 4.0, "middle", "#ffffff", n);
            }
        }
    }
    y += (double)p * (row_h + 2.0) + 16.0;
    char axis[160];
    if (unit_s > 0.0)
        snprintf(axis, sizeof axis, "time: 0 to %.3f s (compute, recompute and bubble of %s)",
                 s.makespan * unit_s, runs > 1 ? "one run; the step repeats it" : "one step");
    else
        snprintf(axis, sizeof axis, "time in forward passes of one micro-batch: 0 to %.1f",
                 s.makespan);
    label(b, PLOT_X, y, "start", "#333333", axis);
    y += 20.0;
    static const struct {
        const char *name, *color;
    } legend[] = {{"forward", "#4e79a7"}, {"backward", "#f28e2b"}, {"idle (bubble)", "#d9d9d9"}};
    for (size_t k = 0; k < 3; k++) {
        double lx = 20.0 + (double)k * 200.0;
        sb_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", lx,
                  y - 10.0, legend[k].color);
        label(b, lx + 18.0, y, "start", "#333333", legend[k].name);
    }
    if (m_draw < m || s.stalled) {
        char note[160];
        snprintf(note, sizeof note, "%s", s.stalled ? "(simulation stopped early)" : "");
        if (m_draw < m)
            snprintf(note, sizeof note, "drawn for %" PRId64 " of %" PRId64 " micro-batches",
                     m_draw, m);
        label(b, 640.0, y, "start", "#333333", note);
    }
    y += 14.0;
    sb_puts(b, "</g>\n");
    tp_io_sched_free(&s);
    return y - y0;
}

/* ------------------------------------------------------------------ */
/* Documents                                                            */
/* ------------------------------------------------------------------ */

typedef double (*body_fn)(sbuf *b, const tp_config *c, const tp_result *r, double y0);

static double time_body_c(sbuf *b, const tp_config *c, const tp_result *r, double y0)
{
    (void)c; /* the time chart needs only the result */
    return time_body(b, r, y0);
}

/* Draw the bodies into a scratch buffer first to learn the height. */
static char *document(const tp_config *c, const tp_result *r, const body_fn *fns, size_t n,
                      const char *title)
{
    sbuf body = {0};
    double y = 0.0;
    for (size_t i = 0; i < n; i++) {
        y += fns[i](&body, c, r, y);
        y += 10.0;
    }
    sbuf doc = {0};
    doc_open(&doc, y, title);
    if (body.s)
        sb_puts(&doc, body.s);
    sb_puts(&doc, "</svg>\n");
    if (body.failed)
        doc.failed = true;
    sb_free(&body);
    return sb_take(&doc);
}

static void doc_title(const tp_config *c, const char *what, char *out, size_t n)
{
    snprintf(out, n, "trainplan %s: %s, %s on %" PRId64 " x %s", tp_version_string(), what,
             c->model.name[0] ? c->model.name : "(unnamed)", c->train.num_gpus,
             c->gpu.name[0] ? c->gpu.name : "(custom)");
}

char *tp_io_svg_memory(const tp_config *c, const tp_result *r)
{
    char t[256];
    doc_title(c, "memory per GPU", t, sizeof t);
    const body_fn f[] = {memory_body};
    return document(c, r, f, 1, t);
}

char *tp_io_svg_time(const tp_config *c, const tp_result *r)
{
    char t[256];
    doc_title(c, "step time", t, sizeof t);
    const body_fn f[] = {time_body_c};
    return document(c, r, f, 1, t);
}

char *tp_io_svg_schedule(const tp_config *c, const tp_result *r)
{
    char t[256];
    doc_title(c, "pipeline schedule", t, sizeof t);
    const body_fn f[] = {schedule_body};
    return document(c, r, f, 1, t);
}

char *tp_io_svg_report(const tp_config *c, const tp_result *r)
{
    char t[256];
    doc_title(c, "memory, step time and pipeline schedule", t, sizeof t);
    const body_fn f[] = {memory_body, time_body_c, schedule_body};
    return document(c, r, f, 3, t);
}
