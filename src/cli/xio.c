/* SPDX-License-Identifier: MIT */
/*
 * xio.c: the import and output flags that estimate, search, plan and
 * export share (xio.h): --from-megatron, --from-deepspeed and --from read
 * ahead of the command line, --markdown/--csv/--svg/--force, and the CLI's
 * one way to write a file (cli_write_files, over tp_io_write_files in
 * src/io/util.c: a temporary file in the same directory, fsync'd, then
 * linked into place, so an existing file is never replaced without
 * --force and a reader never sees half a file).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fields.h"
#include "svg.h"
#include "tabular.h"
#include "xio.h"

#define G_IMPORT "Import (flags given on the command line override the file)"
#define G_REPORT "Reports and charts"

static const cli_flag import_flags[] = {
    {"--from-megatron", "FILE", NULL, "none",
     "Megatron-LM launch to estimate: pretrain_gpt.py arguments, one string or one per line "
     "(a torchrun/deepspeed launcher before the script gives the GPU count)",
     CLI_STR, .group = G_IMPORT},
    {"--from-deepspeed", "FILE", NULL, "none",
     "DeepSpeed ds_config.json to estimate; the model, GPUs and parallel sizes come from the "
     "flags",
     CLI_STR, .group = G_IMPORT},
    {"--from-torchtitan", "FILE", NULL, "none",
     "torchtitan configuration to estimate: a job TOML (releases before 2026-02-23) or a "
     "Python configuration module (its plain-data assignments)",
     CLI_STR, .group = G_IMPORT},
    {"--from-nemo", "FILE", NULL, "none",
     "NeMo / Megatron-Bridge YAML overrides to estimate (the sections of its ConfigContainer); "
     "the model and GPUs come from the flags",
     CLI_STR, .group = G_IMPORT},
};
#define NUM_IMPORT_FLAGS (sizeof import_flags / sizeof import_flags[0])

static const cli_flag output_flags[] = {
    {"--markdown", NULL, NULL, "text report", "print the report as Markdown tables", CLI_SWITCH,
     .group = G_REPORT},
    {"--csv", NULL, NULL, "text report",
     "print a CSV header and one row (the columns search and plan also use)", CLI_SWITCH,
     .group = G_REPORT},
    {"--svg", "FILE", NULL, "none",
     "also write charts to FILE: memory per GPU by component against capacity, the step-time "
     "breakdown and the pipeline schedule (one standalone SVG); never replaces an existing "
     "file without --force",
     CLI_STR, .group = G_REPORT},
    {"--force", NULL, NULL, "off", "replace --svg FILE if it is a regular file", CLI_SWITCH,
     .group = G_REPORT},
};
#define NUM_OUTPUT_FLAGS (sizeof output_flags / sizeof output_flags[0])

void cli_xio_print_import_flags(FILE *f)
{
    cli_print_flags(f, import_flags, NUM_IMPORT_FLAGS);
}

void cli_xio_print_flags(FILE *f)
{
    cli_xio_print_import_flags(f);
    cli_print_flags(f, output_flags, NUM_OUTPUT_FLAGS);
}

/* ------------------------------------------------------------------ */
/* Files: all through tp_io_write_files (src/io/util.c)                 */
/* ------------------------------------------------------------------ */

int cli_write_files(const tp_io_file *files, size_t n, bool force)
{
    tp_error err = {0};
    if (tp_io_write_files(files, n, force, &err) != TP_OK)
        return cli_error_print(&err, NULL);
    return CLI_EXIT_OK;
}

int cli_write_svg(const char *path, bool force, const tp_config *c, const tp_result *r)
{
    char *svg = tp_io_svg_report(c, r);
    if (!svg) {
        cli_say("trainplan: error: out of memory drawing the charts\n");
        return CLI_EXIT_INTERNAL;
    }
    tp_io_file f = {path, svg, strlen(svg), "--svg"};
    int rc = cli_write_files(&f, 1, force);
    free(svg);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The shared hooks                                                     */
/* ------------------------------------------------------------------ */

static const char *value_of(const cli_xio *x, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(x->flags[i].name, name) == 0)
            return x->values[i];
    return NULL;
}

/* One note line; the file's name and the names it holds are untrusted. */
static void note(const char *file, const char *what, const char *list)
{
    fputs("trainplan: note: ", stderr);
    tp_io_put_safe(stderr, file);
    fprintf(stderr, ": %s: ", what);
    tp_io_put_safe(stderr, list);
    fputc('\n', stderr);
}

static void print_notes(const char *file, const tp_import *im)
{
    if (im->ignored[0])
        note(file, "ignored (cannot change memory or time)", im->ignored);
    if (im->approximated[0])
        note(file, "approximated by trainplan's calibrated efficiencies", im->approximated);
    if (im->assumed[0])
        note(file, "assumed", im->assumed);
}

cli_xio_format cli_xio_format_of(const cli_common *co)
{
    const char *f = co->last_report; /* the parser saw them in order */
    if (f && strcmp(f, "--markdown") == 0)
        return CLI_XIO_MARKDOWN;
    if (f && strcmp(f, "--csv") == 0)
        return CLI_XIO_CSV;
    return CLI_XIO_DEFAULT;
}

const char *cli_xio_blame(const cli_xio *x, tp_error *err)
{
    if (!x->import_path || !x->user_valid || !err || !err->path[0])
        return NULL;
    /* the field's flag: a canonical name ("layout.tp") through the table,
     * else the flag's own name (the number parsers set "tp") */
    const tp_io_field *f = tp_io_field_find(err->path);
    char flag[sizeof err->path + 2];
    snprintf(flag, sizeof flag, "--%s", f ? f->flag + 2 : err->path);
    if (cli_given(&x->user, flag))
        return NULL;
    /* the file's own name for the setting, and where it is, when known */
    tp_io_desc_src src;
    if (tp_io_desc_file_source(&x->desc, tp_io_desc_slot(flag), &src)) {
        /* the number parsers' "--tp: " gives way to the file's name */
        char *msg = err->message;
        size_t n = strlen(flag);
        if (strncmp(msg, flag, n) == 0 && msg[n] == ':') {
            size_t skip = n + 1 + (msg[n + 1] == ' ');
            memmove(msg, msg + skip, strlen(msg + skip) + 1);
        }
        snprintf(err->path, sizeof err->path, "%s", src.key);
        err->line = src.line;
        err->column = src.col;
    }
    return x->import_path;
}

tp_status cli_xio_parse(int argc, char **argv, int *argi, const cli_extra *extra, cli_xio *x,
                        tp_config *c, cli_common *co, tp_error *err)
{
    /* called with outputs for estimate (extra == NULL), without for export */
    bool outputs = extra == NULL;
    memset(x, 0, sizeof *x);
    memset(co, 0, sizeof *co);
    size_t n = 0, n_cmd = extra ? extra->count : 0;
    if (n_cmd + NUM_IMPORT_FLAGS + NUM_OUTPUT_FLAGS > CLI_XIO_MAX_FLAGS)
        return tp_error_set(err, TP_ERR_INTERNAL, "", "too many command flags");
    for (size_t i = 0; i < n_cmd; i++)
        x->flags[n++] = extra->flags[i];
    for (size_t i = 0; i < NUM_IMPORT_FLAGS; i++)
        x->flags[n++] = import_flags[i];
    if (outputs)
        for (size_t i = 0; i < NUM_OUTPUT_FLAGS; i++)
            x->flags[n++] = output_flags[i];
    cli_extra all = {x->flags, n, x->values};

    int argi0 = *argi;
    tp_status st = cli_parse_config(argc, argv, argi, &all, c, co, err);
    for (size_t i = 0; i < n_cmd; i++)
        extra->values[i] = x->values[i];
    if (st != TP_OK)
        return st;

    const char *meg = value_of(x, n, "--from-megatron");
    const char *ds = value_of(x, n, "--from-deepspeed");
    const char *js = value_of(x, n, "--from");
    const char *tt = value_of(x, n, "--from-torchtitan");
    const char *nm = value_of(x, n, "--from-nemo");
    if ((meg != NULL) + (ds != NULL) + (js != NULL) + (tt != NULL) + (nm != NULL) > 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                            nm   ? "give one of --from-megatron, --from-deepspeed, "
                                   "--from-torchtitan, --from-nemo and --from"
                            : tt ? "give one of --from-megatron, --from-deepspeed, "
                                   "--from-torchtitan and --from"
                                 : "give one of --from-megatron, --from-deepspeed and --from");
    x->svg = outputs ? value_of(x, n, "--svg") : NULL;
    x->force = outputs && value_of(x, n, "--force") != NULL;
    if (outputs) {
        if (x->force && !x->svg)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "", "--force needs --svg FILE");
        x->format = cli_xio_format_of(co);
    }
    if (!meg && !ds && !js && !tt && !nm)
        return TP_OK;

    tp_import_user user = {
        .model = cli_given(co, "--model"),
        .vocab = cli_given(co, "--vocab"),
        .gpus = cli_given(co, "--gpus"),
        .micro_batch = cli_given(co, "--micro-batch"),
        .global_batch = cli_given(co, "--global-batch") || cli_given(co, "--global-batch-tokens"),
    };
    x->import_path = meg ? meg : ds ? ds : tt ? tt : nm ? nm : js;
    x->import_flag = meg  ? "--from-megatron"
                     : ds ? "--from-deepspeed"
                     : tt ? "--from-torchtitan"
                     : nm ? "--from-nemo"
                          : "--from";
    tp_import_kind kind = meg  ? TP_IMPORT_MEGATRON
                          : ds ? TP_IMPORT_DEEPSPEED
                          : tt ? TP_IMPORT_TORCHTITAN
                          : nm ? TP_IMPORT_NEMO
                               : TP_IMPORT_TRAINPLAN;
    st = tp_io_import_load(kind, x->import_path, &x->im, err);
    if (st != TP_OK) {
        if (st == TP_ERR_IO && err)
            snprintf(err->path, sizeof err->path, "%s", x->import_flag + 2);
        else
            co->err_file = x->import_path;
        return st;
    }

    /* the run description: the file's values, then everything the user wrote */
    x->user = *co; /* what the user's own flags gave */
    x->user_valid = true;
    *argi = argi0;
    st = cli_parse_config_import(argc, argv, argi, &all, &x->im, c, co, err);
    for (size_t i = 0; i < n_cmd; i++)
        extra->values[i] = x->values[i];
    x->desc = co->desc;
    if (st != TP_OK) {
        co->err_file = cli_xio_blame(x, err);
        return st;
    }
    st = tp_io_import_apply(&x->im, &user, c, err);
    if (st != TP_OK) {
        if ((kind == TP_IMPORT_DEEPSPEED || kind == TP_IMPORT_TORCHTITAN ||
             kind == TP_IMPORT_NEMO) &&
            err && err->code == TP_ERR_CONFIG)
            co->err_file = x->import_path;
        return st;
    }
    print_notes(x->import_path, &x->im);
    return TP_OK;
}

bool cli_xio_output(const cli_xio *x, const tp_config *c, const tp_result *r, int *rc)
{
    if (x->svg) {
        int wrc = cli_write_svg(x->svg, x->force, c, r);
        if (wrc != CLI_EXIT_OK) {
            *rc = wrc;
            return true;
        }
    }
    switch (x->format) {
    case CLI_XIO_MARKDOWN:
        tp_io_result_markdown(stdout, c, r);
        *rc = CLI_EXIT_OK;
        return true;
    case CLI_XIO_CSV:
        tp_io_csv_header(stdout);
        tp_io_csv_row(stdout, c, r);
        *rc = CLI_EXIT_OK;
        return true;
    case CLI_XIO_DEFAULT: break;
    }
    return false;
}
