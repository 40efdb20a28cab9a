/* SPDX-License-Identifier: MIT */
/*
 * cmd_presets.c: `trainplan presets [--json]`: the built-in models (name,
 * exact parameter counts, source) and GPUs (name, dense bf16 peak, memory,
 * price, source) as tables; --json prints tp_io_presets_json's object, the
 * one the server's /api/presets sends.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "io_internal.h"
#include "request.h"

static const cli_flag presets_flags[] = {
    {"--json", NULL, NULL, "tables",
     "print one JSON object {\"models\": [...], \"gpus\": [...]} with the full sources", CLI_SWITCH,
     0, 0, 0.0, 0.0, NULL, "Output"},
};
#define NUM_PRESETS_FLAGS (sizeof presets_flags / sizeof presets_flags[0])

void cmd_presets_help(FILE *f)
{
    fprintf(f, "usage: trainplan presets [--json]\n\n"
               "Lists the built-in presets: models with their exact parameter counts\n"
               "(total and active, true vocabulary) and source, and GPUs with their dense\n"
               "bf16 peak, usable memory and default price. Use a name with --model or\n"
               "--gpu.\n");
    cli_print_flags(f, presets_flags, NUM_PRESETS_FLAGS);
}

static int fail(const char *kind, const char *name, const tp_error *err)
{
    cli_say("trainplan: error: internal: %s preset \"%s\" does not load: %s: %s\n", kind, name,
            err->path, err->message);
    return CLI_EXIT_INTERNAL;
}

/*
 * The citation's head for the tables: up to its first ':', cut with "..."
 * to the `room` characters left of the terminal's width (cli_columns) by
 * the columns before it, and never to fewer than 12 (the full sources are
 * in --json).
 */
static void short_source(const char *src, size_t room, char *buf, size_t n)
{
    if (!src) {
        snprintf(buf, n, "-");
        return;
    }
    if (room < 12)
        room = 12;
    size_t len = strcspn(src, ":"), chars = 0, cut = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char)src[i] & 0xC0u) != 0x80u && ++chars == room - 2)
            cut = i; /* the first byte of character room-2: "..." replaces it on */
    if (chars > room)
        snprintf(buf, n, "%.*s...", (int)cut, src);
    else
        snprintf(buf, n, "%.*s", (int)len, src);
}

/* Characters the tables' columns take before the source. */
#define MODEL_COLS 80
#define GPU_COLS 67

static int list_models(FILE *f)
{
    size_t n = tp_io_preset_count(TP_IO_MODEL);
    fprintf(f,
            "Models (%zu), parameters with the true vocabulary (full sources: --json):\n"
            "  %-18s  %17s %9s  %17s %9s  %s\n",
            n, "name", "total", "", "active", "", "source");
    for (size_t i = 0; i < n; i++) {
        const char *name = tp_io_preset_name(TP_IO_MODEL, i);
        tp_model m;
        tp_params p;
        tp_error err = {0};
        if (tp_io_model_load(name, &m, &err) != TP_OK || tp_model_params(&m, 0, &p, &err) != TP_OK)
            return fail("model", name, &err);
        const char *src = tp_io_preset_source(TP_IO_MODEL, name);
        char tot[32], act[32];
        tp_io_commas(p.total, tot, sizeof tot);
        tp_io_commas(p.active, act, sizeof act);
        char cite[1024];
        short_source(src, (size_t)cli_columns() - MODEL_COLS, cite, sizeof cite);
        fprintf(f, "  %-18s  %17s %7.2f B  %17s %7.2f B  %s\n", name, tot, (double)p.total / 1e9,
                act, (double)p.active / 1e9, cite);
    }
    return CLI_EXIT_OK;
}

static int list_gpus(FILE *f)
{
    size_t n = tp_io_preset_count(TP_IO_GPU);
    fprintf(f,
            "\nGPUs (%zu), dense peaks (no sparsity):\n"
            "  %-12s %12s %14s %12s %9s  %s\n",
            n, "name", "bf16 TFLOP/s", "memory GiB", "memory GB", "USD/GPU-h", "source");
    for (size_t i = 0; i < n; i++) {
        const char *name = tp_io_preset_name(TP_IO_GPU, i);
        tp_gpu g;
        tp_error err = {0};
        if (tp_io_gpu_load(name, &g, &err) != TP_OK)
            return fail("GPU", name, &err);
        double peak = g.peak_flops_per_s[TP_PREC_BF16];
        if (!isfinite(peak) || !isfinite(g.mem_capacity_bytes) || !isfinite(g.price_per_gpu_hour)) {
            cli_say("trainplan: error: internal: GPU preset \"%s\" has a non-finite value\n", name);
            return CLI_EXIT_INTERNAL;
        }
        char cite[1024];
        short_source(tp_io_preset_source(TP_IO_GPU, name), (size_t)cli_columns() - GPU_COLS, cite,
                     sizeof cite);
        fprintf(f, "  %-12s %12.1f %10.2f GiB %9.2f GB %9.2f  %s\n", name, peak / 1e12,
                g.mem_capacity_bytes / TP_GIB, g.mem_capacity_bytes / TP_GB, g.price_per_gpu_hour,
                cite);
    }
    return CLI_EXIT_OK;
}

int cmd_presets(int argc, char **argv)
{
    const char *values[NUM_PRESETS_FLAGS];
    cli_extra extra = {presets_flags, NUM_PRESETS_FLAGS, values};
    tp_error err = {0};
    int argi = 1;
    if (cli_parse_flags(argc, argv, &argi, &extra, &err) != TP_OK)
        return cli_error_print(&err, NULL);
    if (argi < argc) {
        cli_say("trainplan: error: unexpected argument \"%s\" (presets takes only --json)\n",
                argv[argi]);
        return CLI_EXIT_USAGE;
    }
    if (values[0] != NULL) { /* --json: the object the server's /api/presets sends */
        json_t *out = tp_io_presets_json(&err);
        if (!out) {
            cli_say("trainplan: error: internal: presets: %s: %s\n", err.path, err.message);
            return CLI_EXIT_INTERNAL;
        }
        int rc = cli_json_print(out);
        json_decref(out);
        return rc;
    }
    cli_text t; /* the tables, folded to the terminal if a source still overflows */
    FILE *f = cli_text_open(&t, stdout);
    int rc = list_models(f);
    if (rc == CLI_EXIT_OK)
        rc = list_gpus(f);
    cli_text_close(&t);
    return rc;
}
