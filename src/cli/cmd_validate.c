/* SPDX-License-Identifier: MIT */
/*
 * cmd_validate.c: `trainplan validate FILE.csv [--json] [--line N] [--eff LIST]`.
 *
 * The flags, and the printing: a per-row table, how each row was compared
 * with the assumptions filled in, the rows not evaluated and the summary;
 * or one JSON object (docs/cli.md); with --line one row in full and the
 * command that reproduces it. Reading a row, evaluating it and the
 * summary statistics are src/io/validate.c. Exit status 0 whenever the
 * file was read (and --line names one of its rows).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io_internal.h"
#include "runs_csv.h"
#include "validate.h"

/* ------------------------------------------------------------------ */
/* flags                                                               */
/* ------------------------------------------------------------------ */

enum { VF_JSON, VF_LINE, VF_EFF, VF_UNFUSED, VF_GROUPED, VF_A2A, VF_FITTED, VF_COUNT };

static const cli_flag vflags[VF_COUNT] = {
    [VF_JSON] = {"--json", NULL, NULL, "off", "print one JSON object instead of the table",
                 CLI_SWITCH, 0, 0, 0, 0, NULL, "Output"},
    [VF_LINE] = {"--line", "N", NULL, "every row",
                 "print the row on line N of the file alone and in full: its measurement and "
                 "prediction, the step-time and memory parts, the assumptions and the "
                 "`trainplan estimate` command that reproduces it (with --json: its row object)",
                 CLI_INT, 2, 1 << 30, 0, 0, NULL, "Output"},
    [VF_EFF] =
        {"--eff", "LIST", NULL, "calibrated",
         "override efficiencies, e.g. gemm=0.7,attn=0.5,h100:gemm_fp8=0.6 (keys: gemm "
         "gemm_fp8 gemm_half_dim attn mem_bw intra_bw inter_bw overlap; fractions of a peak in "
         "[0.001, 1], overlap [0, 1], gemm_half_dim 0 or [1, 1e6]; a GPU preset or "
         "prefix limits one; gemm, gemm_fp8 and gemm_half_dim move only the fitted-fraction "
         "model, --fitted-gemm or a GPU without a profile); for sensitivity studies and "
         "tools/calibrate.py",
         CLI_STR, 0, 0, 0, 0, NULL, "Model"},
    [VF_UNFUSED] = {"--unfused-full-matrix", NULL, NULL, "off",
                    "rows without FlashAttention charge the whole score matrix (as estimate "
                    "--unfused-full-matrix; opt-in, docs/ACCURACY.md)",
                    CLI_SWITCH, 0, 0, 0, 0, NULL, "Model"},
    [VF_GROUPED] = {"--grouped-gemm", NULL, NULL, "off",
                    "every row runs its routed experts as one grouped GEMM (as estimate "
                    "--grouped-gemm; opt-in, docs/ACCURACY.md)",
                    CLI_SWITCH, 0, 0, 0, 0, NULL, "Model"},
    [VF_A2A] = {"--moe-a2a-overlap", NULL, NULL, "off",
                "every Megatron-Core row whose layout allows it hides its EP all-to-all "
                "(as estimate --moe-a2a-overlap; not with full recompute; docs/ACCURACY.md)",
                CLI_SWITCH, 0, 0, 0, 0, NULL, "Model"},
    [VF_FITTED] = {"--fitted-gemm", NULL, NULL, "off",
                   "every row's GEMMs at the fitted fractions of calib.c, not at its GPU "
                   "preset's measured matmul rate (as estimate --fitted-gemm)",
                   CLI_SWITCH, 0, 0, 0, 0, NULL, "Model"},
};

void cmd_validate_help(FILE *f)
{
    fprintf(f, "usage: trainplan validate FILE.csv [--json] [--line N] [--eff LIST]\n\n"
               "Predicts every row of a measured-runs file (the columns of runs-dev.csv) and\n"
               "compares: throughput as tokens/s per GPU (converted from TFLOP/s or MFU with\n"
               "the source's own FLOP convention where that is all the row gives), memory per\n"
               "GPU in the row's metric and unit, and the fit verdict (out-of-memory rows must\n"
               "not fit, the others must). Missing fields are filled with stated assumptions;\n"
               "rows that cannot be evaluated are listed with the reason. Prints a per-row\n"
               "table and a summary (median, 90th percentile and maximum absolute relative\n"
               "error; verdict accuracy), or one JSON object with --json.\n");
    cli_print_flags(f, vflags, VF_COUNT);
    fprintf(f, "\nExit codes: 0 the file was read and evaluated, 2 bad arguments or an\n"
               "unreadable or malformed file (the message names line and column).\n\n"
               "Examples:\n"
               "  trainplan validate data/runs/runs-dev.csv\n"
               "  trainplan validate data/runs/runs-dev.csv --line 99\n");
}

/* ------------------------------------------------------------------ */
/* output                                                              */
/* ------------------------------------------------------------------ */

/*
 * The per-row tables, within 100 columns (issue 19): throughput and the fit
 * verdict for every evaluated row, then memory for the rows that measured
 * it. A row is named by its line and its id cut to 22 characters; the
 * list after the tables gives every id whole.
 */
static void print_tables(FILE *f, const tp_io_vrow *rows, size_t n)
{
    fprintf(f, "%5s %-22s %-14s %-12s %9s %9s %7s  %s\n", "line", "run", "gpu", "compared as",
            "tok/s/GPU", "predicted", "error", "fit exp/pred");
    size_t with_mem = 0;
    for (size_t i = 0; i < n; i++) {
        const tp_io_vrow *v = &rows[i];
        if (!v->evaluated)
            continue;
        with_mem += v->has_mem;
        char t1[16] = "-", t2[16] = "-", t3[16] = "-";
        if (v->has_tput) {
            snprintf(t1, sizeof t1, "%.0f", v->meas_tps);
            snprintf(t2, sizeof t2, "%.0f", v->pred_tps);
            snprintf(t3, sizeof t3, "%+.1f%%", 100.0 * v->tput_err);
        }
        char kind[16];
        snprintf(kind, sizeof kind, "%s%s", v->has_tput ? v->tput_kind : "-",
                 v->assume[0] ? "*" : "");
        char id_s[256], gpu_s[TP_IO_SAFE_BYTES(sizeof v->gpu)];
        fprintf(f, "%5d %-22.22s %-14.14s %-12s %9s %9s %7s  %s/%s%s\n", v->line,
                tp_io_safe_text(v->id, id_s, sizeof id_s),
                tp_io_safe_text(v->gpu, gpu_s, sizeof gpu_s), kind, t1, t2, t3,
                v->expect_fit ? "fit" : "OOM", v->pred_fit ? "fit" : "OOM",
                v->expect_fit == v->pred_fit ? "" : "  WRONG");
    }
    if (with_mem == 0)
        return;
    fprintf(f, "\nMemory per GPU, the rows that measured it:\n");
    fprintf(f, "%5s %-22s %-26s %7s %7s %7s\n", "line", "run", "memory metric", "meas", "pred",
            "error");
    for (size_t i = 0; i < n; i++) {
        const tp_io_vrow *v = &rows[i];
        if (!v->evaluated || !v->has_mem)
            continue;
        char m0[32], id_s[256];
        snprintf(m0, sizeof m0, "%s %s", tp_io_mem_metric_name(v->metric), v->mem_unit);
        fprintf(f, "%5d %-22.22s %-26.26s %7.1f %7.1f %+6.1f%%\n", v->line,
                tp_io_safe_text(v->id, id_s, sizeof id_s), m0, v->meas_mem, v->pred_mem,
                100.0 * v->mem_err);
    }
}

static void print_text(FILE *f, const char *file, const tp_io_vrow *rows, size_t n)
{
    size_t evaluated, fit_ok;
    tp_io_validate_counts(rows, n, &evaluated, &fit_ok);
    fprintf(f, "trainplan validate: %s: %zu %s, %zu evaluated, %zu not evaluated\n\n", file, n,
            n == 1 ? "row" : "rows", evaluated, n - evaluated);
    print_tables(f, rows, n);
    fprintf(f, "(* = fields the source leaves out were filled with the assumptions listed below;\n"
               " HFU/MFU TFLOP/s = converted to tokens/s with the source's FLOP convention)\n");
    fprintf(f, "\nHow each row was compared, and the assumptions filled in:\n");
    for (size_t i = 0; i < n; i++) {
        const tp_io_vrow *v = &rows[i];
        if (!v->evaluated)
            continue;
        fputs("  ", f);
        tp_io_put_safe(f, v->id);
        fprintf(f,
                " (line %d): %s; recompute %s; predicted step %.3g s, MFU %.1f%%, "
                "bottleneck: %s; heaviest stage %lld: %.1f GB (%.1f GiB) of %.1f GB (%.1f GiB)",
                v->line, v->has_tput ? v->tput_basis : "no throughput measured", v->recompute,
                v->step_s, 100.0 * v->mfu, v->bottleneck, (long long)v->fit_stage,
                v->fit_total_bytes / TP_GB, v->fit_total_bytes / TP_GIB,
                v->fit_capacity_bytes / TP_GB, v->fit_capacity_bytes / TP_GIB);
        if (v->assume[0]) {
            fputs("; assumed: ", f);
            tp_io_put_safe(f, v->assume);
        }
        fprintf(f, "\n");
    }
    if (evaluated < n) {
        fprintf(f, "\nNot evaluated:\n");
        for (size_t i = 0; i < n; i++)
            if (!rows[i].evaluated) {
                fputs("  ", f);
                tp_io_put_safe(f, rows[i].id);
                fprintf(f, " (line %d): ", rows[i].line);
                tp_io_put_safe(f, rows[i].reason);
                fputc('\n', f);
            }
    }
    tp_io_vstats ts = tp_io_validate_stats(rows, n, false);
    tp_io_vstats ms = tp_io_validate_stats(rows, n, true);
    fprintf(f, "\nSummary (absolute relative error; the signed median is the bias, > 0 "
               "predicts more)\n");
    fprintf(f,
            "  throughput (tokens/s per GPU), %zu rows: median %.1f%%, p90 %.1f%%, max %.1f%%; "
            "signed median %+.1f%%\n",
            ts.n, 100.0 * ts.median, 100.0 * ts.p90, 100.0 * ts.max, 100.0 * ts.median_signed);
    fprintf(f,
            "  memory per GPU, %zu rows: median %.1f%%, p90 %.1f%%, max %.1f%%; "
            "signed median %+.1f%%\n",
            ms.n, 100.0 * ms.median, 100.0 * ms.p90, 100.0 * ms.max, 100.0 * ms.median_signed);
    fprintf(f, "  fit verdict: %zu of %zu right (%.1f%%)\n", fit_ok, evaluated,
            evaluated ? 100.0 * (double)fit_ok / (double)evaluated : 0.0);
}

/* A shell command folded for the terminal: at spaces outside quotes,
 * every line but the last ending in " \\" (a continuation, so that the
 * lines paste as one command), the next indented by eight; within `width`
 * columns wherever no single word is longer. Each word is written whole
 * (cut off in place by a NUL, then put back). */
static void put_command(FILE *f, char *cmd, int width)
{
    int col = 4;
    bool first = true; /* the line's first word */
    fputs("    ", f);
    for (char *p = cmd; *p;) {
        /* the next word, its quotes kept whole */
        char *w = p;
        char q = 0;
        while (*p && (q || *p != ' ')) {
            if (q ? *p == q : (*p == '\'' || *p == '"'))
                q = q ? 0 : *p;
            p++;
        }
        int n = (int)(p - w);
        if (!first && col + 1 + n + 2 > width) {
            fputs(" \\\n        ", f);
            col = 8;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        first = false;
        char end = *p;
        *p = '\0';
        tp_io_put_safe(f, w);
        *p = end;
        col += n;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}

/* --line N: one row in full (its command line through the same writer as
 * --json's "reproduce"). */
static void print_row(FILE *f, const char *file, const tp_io_vrow *v, bool eff_given)
{
    char s[256];
    fprintf(f, "trainplan validate: %s, line %d\n  run            ", file, v->line);
    tp_io_put_safe(f, v->id);
    fputc('\n', f);
    if (!v->evaluated) {
        fputs("  not evaluated: ", f);
        tp_io_put_safe(f, v->reason);
        fputc('\n', f);
        return;
    }
    fprintf(f, "  gpu            %s; recompute %s\n", tp_io_safe_text(v->gpu, s, sizeof s),
            v->recompute);
    if (v->has_tput)
        fprintf(f,
                "  throughput     measured %.0f, predicted %.0f tokens/s per GPU: %+.1f%% (%s)\n",
                v->meas_tps, v->pred_tps, 100.0 * v->tput_err, v->tput_basis);
    else
        fprintf(f, "  throughput     not measured\n");
    if (v->has_mem)
        fprintf(f, "  memory         %s: measured %.1f %s, predicted %.1f %s: %+.1f%%\n",
                tp_io_mem_metric_name(v->metric), v->meas_mem, v->mem_unit, v->pred_mem,
                v->mem_unit, 100.0 * v->mem_err);
    else
        fprintf(f, "  memory         not measured\n");
    fprintf(f,
            "  fit            expected %s, predicted %s: %s (stage %lld: %.1f GiB of %.1f GiB)\n",
            v->expect_fit ? "fits" : "out of memory", v->pred_fit ? "fits" : "out of memory",
            v->expect_fit == v->pred_fit ? "right" : "WRONG", (long long)v->fit_stage,
            v->fit_total_bytes / TP_GIB, v->fit_capacity_bytes / TP_GIB);
    fprintf(f, "  step           %.4g s, MFU %.1f%%, bottleneck: %s\n", v->step_s, 100.0 * v->mfu,
            v->bottleneck);
    fputs("  step parts (s)", f);
    for (size_t i = 0; i < TP_IO_NUM_TIME_PARTS; i++) {
        double x = tp_io_part_value(&v->time, &tp_io_time_parts[i]);
        if (x > 0.0)
            fprintf(f, " %s %.4g;", tp_io_time_parts[i].key, x);
    }
    fprintf(f, "\n  memory (GiB)   stage %lld:", (long long)v->mem.stage);
    for (size_t i = 0; i < TP_IO_NUM_MEM_PARTS; i++) {
        double x = tp_io_part_value(&v->mem, &tp_io_mem_parts[i]) / TP_GIB;
        if (x > 0.0)
            fprintf(f, " %s %.2f;", tp_io_mem_parts[i].key, x);
    }
    fprintf(f, " total %.2f of %.2f\n", v->mem.total_bytes / TP_GIB,
            v->mem.capacity_bytes / TP_GIB);
    if (v->assume[0]) {
        fputs("  assumed        ", f);
        tp_io_put_safe(f, v->assume);
        fputc('\n', f);
    }
    char why[512];
    char *line = tp_io_validate_reproduce(v, eff_given, why, sizeof why);
    if (line) {
        fputs("  reproduce (one command; estimate prints this prediction):\n", f);
        put_command(f, line, cli_columns());
    } else {
        fputs("  reproduce      unavailable: ", f);
        tp_io_put_safe(f, why);
        fputc('\n', f);
    }
    free(line);
}

/* json helpers: every number finite (NaN/inf never reach the output) */
static int jset(json_t *o, const char *k, json_t *v)
{
    return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *jnum(double x)
{
    return json_real(isfinite(x) ? x : 0.0);
}

static json_t *stats_json(tp_io_vstats s)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    jset(o, "rows", json_integer((json_int_t)s.n));
    jset(o, "median_abs_rel_error", jnum(s.median));
    jset(o, "p90_abs_rel_error", jnum(s.p90));
    jset(o, "max_abs_rel_error", jnum(s.max));
    jset(o, "median_rel_error", jnum(s.median_signed));
    return o;
}

/* "reproduce": the estimate command of the row's prediction, or null with
 * "reproduce_unavailable" saying why (tp_io_validate_reproduce). */
static void reproduce_json(json_t *o, const tp_io_vrow *v, bool eff_given)
{
    char why[512];
    char *line = tp_io_validate_reproduce(v, eff_given, why, sizeof why);
    jset(o, "reproduce", line ? json_string(line) : json_null());
    if (!line)
        jset(o, "reproduce_unavailable", json_string(why));
    free(line);
}

static json_t *row_json(const tp_io_vrow *v, bool eff_given)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    jset(o, "id", json_string(v->id));
    jset(o, "line", json_integer(v->line));
    jset(o, "evaluated", json_boolean(v->evaluated));
    if (!v->evaluated) {
        jset(o, "reason", json_string(v->reason));
        return o;
    }
    jset(o, "gpu", json_string(v->gpu));
    jset(o, "recompute", json_string(v->recompute));
    jset(o, "assumptions", json_string(v->assume));
    reproduce_json(o, v, eff_given);
    json_t *p = json_object();
    jset(p, "step_s", jnum(v->step_s));
    jset(p, "mfu", jnum(v->mfu));
    jset(p, "bottleneck", json_string(v->bottleneck));
    const tp_time *tm = &v->time;
    json_t *tb = json_object();
    for (size_t i = 0; i < TP_IO_NUM_TIME_PARTS; i++)
        jset(tb, tp_io_time_parts[i].key, jnum(tp_io_part_value(tm, &tp_io_time_parts[i])));
    jset(p, "time_breakdown_s", tb);
    const tp_memory *mm = &v->mem;
    json_t *mb = json_object();
    jset(mb, "stage", json_integer((json_int_t)mm->stage));
    for (size_t i = 0; i < TP_IO_NUM_MEM_PARTS; i++)
        jset(mb, tp_io_mem_parts[i].key, jnum(tp_io_part_value(mm, &tp_io_mem_parts[i]) / TP_GIB));
    jset(mb, "total", jnum(mm->total_bytes / TP_GIB));
    jset(mb, "capacity", jnum(mm->capacity_bytes / TP_GIB));
    jset(p, "memory_breakdown_gib", mb);
    jset(o, "predicted", p);
    if (v->has_tput) {
        json_t *t = json_object();
        jset(t, "compared_as", json_string(v->tput_kind));
        jset(t, "basis", json_string(v->tput_basis));
        jset(t, "measured_tokens_per_s_per_gpu", jnum(v->meas_tps));
        jset(t, "predicted_tokens_per_s_per_gpu", jnum(v->pred_tps));
        jset(t, "rel_error", jnum(v->tput_err));
        jset(o, "throughput", t);
    } else {
        jset(o, "throughput", json_null());
    }
    if (v->has_mem) {
        json_t *m = json_object();
        jset(m, "metric", json_string(tp_io_mem_metric_name(v->metric)));
        jset(m, "unit", json_string(v->mem_unit));
        jset(m, "measured", jnum(v->meas_mem));
        jset(m, "predicted", jnum(v->pred_mem));
        jset(m, "rel_error", jnum(v->mem_err));
        jset(o, "memory", m);
    } else {
        jset(o, "memory", json_null());
    }
    json_t *f = json_object();
    jset(f, "expected", json_string(v->expect_fit ? "fits" : "out of memory"));
    jset(f, "predicted", json_string(v->pred_fit ? "fits" : "out of memory"));
    jset(f, "correct", json_boolean(v->expect_fit == v->pred_fit));
    jset(f, "stage", json_integer((json_int_t)v->fit_stage));
    jset(f, "predicted_gib", jnum(v->fit_total_bytes / TP_GIB));
    jset(f, "capacity_gib", jnum(v->fit_capacity_bytes / TP_GIB));
    jset(o, "fit", f);
    return o;
}

static int print_json(const char *file, const tp_io_vrow *rows, size_t n, bool eff_given)
{
    json_t *root = json_object(), *arr = json_array();
    if (!root || !arr) {
        json_decref(root);
        json_decref(arr);
        return CLI_EXIT_INTERNAL;
    }
    size_t evaluated, fit_ok;
    tp_io_validate_counts(rows, n, &evaluated, &fit_ok);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, row_json(&rows[i], eff_given));
    jset(root, "file", json_string(file));
    jset(root, "rows", arr);
    json_t *s = json_object();
    jset(s, "rows", json_integer((json_int_t)n));
    jset(s, "evaluated", json_integer((json_int_t)evaluated));
    jset(s, "not_evaluated", json_integer((json_int_t)(n - evaluated)));
    jset(s, "throughput", stats_json(tp_io_validate_stats(rows, n, false)));
    jset(s, "memory", stats_json(tp_io_validate_stats(rows, n, true)));
    json_t *f = json_object();
    jset(f, "rows", json_integer((json_int_t)evaluated));
    jset(f, "correct", json_integer((json_int_t)fit_ok));
    jset(f, "accuracy", jnum(evaluated ? (double)fit_ok / (double)evaluated : 0.0));
    jset(s, "fit", f);
    jset(root, "summary", s);
    int rc = cli_json_print(root);
    json_decref(root);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    const char *values[VF_COUNT];
    cli_extra extra = {vflags, VF_COUNT, values};
    const char *file = NULL, *json = NULL, *eff = NULL, *unfused = NULL, *grouped = NULL,
               *a2a = NULL, *fitted = NULL, *line = NULL;
    tp_error err = {0};
    int argi = 1;
    while (argi < argc) {
        if (cli_parse_flags(argc, argv, &argi, &extra, &err) != TP_OK)
            return cli_error_print(&err, NULL);
        if (values[VF_JSON])
            json = values[VF_JSON];
        if (values[VF_LINE])
            line = values[VF_LINE];
        if (values[VF_EFF])
            eff = values[VF_EFF];
        if (values[VF_UNFUSED])
            unfused = values[VF_UNFUSED];
        if (values[VF_GROUPED])
            grouped = values[VF_GROUPED];
        if (values[VF_A2A])
            a2a = values[VF_A2A];
        if (values[VF_FITTED])
            fitted = values[VF_FITTED];
        if (argi < argc) {
            if (file) {
                cli_say("trainplan: error: validate takes one file (got \"%s\" and "
                        "\"%s\")\n",
                        file, argv[argi]);
                return CLI_EXIT_USAGE;
            }
            file = argv[argi++];
        }
    }
    if (!file) {
        cli_say("trainplan: error: validate needs a FILE.csv (run `trainplan validate "
                "--help`)\n");
        return CLI_EXIT_USAGE;
    }
    int64_t want = 0; /* --line */
    if (line && cli_flag_i64(&vflags[VF_LINE], line, &want, &err) != TP_OK)
        return cli_error_print(&err, NULL);
    tp_io_eff_overrides ov = {.n = 0};
    ov.unfused_full_matrix = unfused != NULL;
    ov.grouped_gemm = grouped != NULL;
    ov.moe_a2a_overlap = a2a != NULL;
    ov.fitted_gemm = fitted != NULL;
    if (eff && tp_io_eff_overrides_parse(eff, &ov, &err) != TP_OK)
        return cli_error_print(&err, NULL);

    tp_io_csv *csv = NULL;
    if (tp_io_csv_read(file, &csv, &err) != TP_OK) {
        cli_say("trainplan: error: %s\n", err.message);
        return cli_exit_code(err.code);
    }
    if (tp_io_runs_check(csv, &err) != TP_OK) {
        cli_say("trainplan: error: %s:1: %s\n", file, err.message);
        tp_io_csv_free(csv);
        return CLI_EXIT_USAGE;
    }
    tp_io_vrow *rows = calloc(csv->num_rows ? csv->num_rows : 1, sizeof *rows);
    if (!rows) {
        tp_io_csv_free(csv);
        cli_say("trainplan: error: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    for (size_t i = 0; i < csv->num_rows; i++)
        tp_io_validate_row(csv, i, &ov, &rows[i]);
    int rc = CLI_EXIT_OK;
    if (line) {
        size_t at = csv->num_rows;
        for (size_t i = 0; i < csv->num_rows; i++)
            if (rows[i].line == want)
                at = i;
        if (at == csv->num_rows) {
            cli_say("trainplan: error: --line: %lld is not a row of %s (its %zu rows are on lines "
                    "%d to %d)\n",
                    (long long)want, file, csv->num_rows, csv->num_rows ? rows[0].line : 0,
                    csv->num_rows ? rows[csv->num_rows - 1].line : 0);
            rc = CLI_EXIT_USAGE;
        } else if (json) {
            json_t *o = row_json(&rows[at], eff != NULL);
            rc = o ? cli_json_print(o) : CLI_EXIT_INTERNAL;
            json_decref(o);
        } else {
            cli_text t;
            print_row(cli_text_open(&t, stdout), file, &rows[at], eff != NULL);
            cli_text_close(&t);
        }
    } else if (json)
        rc = print_json(file, rows, csv->num_rows, eff != NULL);
    else {
        cli_text t;
        print_text(cli_text_open(&t, stdout), file, rows, csv->num_rows);
        cli_text_close(&t);
    }
    free(rows);
    tp_io_csv_free(csv);
    return rc;
}
