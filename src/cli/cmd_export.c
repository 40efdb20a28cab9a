/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c: `trainplan export --format megatron|torchtitan|deepspeed`
 * (the import flags it shares with estimate are xio.c's).
 *
 * Export evaluates the configuration the estimate flags describe (or an
 * imported launch, or a trainplan JSON result with --from) and writes the
 * engine's launch configuration. Files are written by tp_io_write_files
 * (src/io/util.c): a temporary file in the same directory, fsync'd, then
 * linked into place, so an existing file is never replaced without
 * --force and a reader never sees half a file.
 * DeepSpeed writes two files: FILE (the JSON) and FILE.notes.txt (the
 * comment file); without --out the JSON goes to stdout and the notes to
 * stderr.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "xio.h"

/* ------------------------------------------------------------------ */
/* trainplan export                                                     */
/* ------------------------------------------------------------------ */

static const char *const format_choices[] = {"megatron", "torchtitan", "deepspeed",
                                             "torchtitan-toml", NULL};

enum { X_FORMAT, X_OUT, X_FORCE, X_TOKENS, X_FROM, X_COUNT };

#define G_EXPORT "Export"
static const cli_flag export_flags[X_COUNT] = {
    [X_FORMAT] = {"--format", NULL, NULL, "required",
                  "engine to write the launch configuration for", CLI_ENUM, 0, 0, 0.0, 0.0,
                  format_choices, G_EXPORT},
    [X_OUT] = {"--out", "FILE", NULL, "standard output",
               "write FILE (DeepSpeed also writes FILE.notes.txt); never replaces an existing "
               "file without --force",
               CLI_STR, .group = G_EXPORT},
    [X_FORCE] = {"--force", NULL, NULL, "off", "replace --out FILE if it is a regular file",
                 CLI_SWITCH, .group = G_EXPORT},
    [X_TOKENS] = {"--train-tokens", "N", "tokens", "none",
                  "token budget of the run: sets the step count (Megatron --train-iters, "
                  "torchtitan steps)",
                  CLI_INT, 1, 1000000000000000000, 0.0, 0.0, NULL, G_EXPORT},
    [X_FROM] = {"--from", "FILE.json", NULL, "none",
                "a trainplan estimate, search or plan result (--json output) to export "
                "instead of flags (a plan's first phase, with its token budget); flags given "
                "here override it",
                CLI_STR, .group = G_EXPORT},
};

void cmd_export_help(FILE *f)
{
    fprintf(f,
            "usage: trainplan export --format megatron|torchtitan|deepspeed|torchtitan-toml\n"
            "                        [estimate flags] [--out FILE] [--force] [--train-tokens N]\n\n"
            "Writes the configuration the estimate flags describe as a launch configuration:\n"
            "  megatron    pretrain_gpt.py arguments, one per line, # comments\n"
            "  torchtitan  a Python configuration module (torchtitan since 2026-02-23:\n"
            "              --module/--config), a function returning Trainer.Config\n"
            "  deepspeed   a ds_config JSON, plus FILE.notes.txt with what the JSON cannot hold\n"
            "  torchtitan-toml  the job TOML of torchtitan releases before 2026-02-23\n"
            "Every export starts with a header: the trainplan version, the plan (as the flags\n"
            "that rebuild it) and its predicted memory and throughput, then what the engine\n"
            "cannot express (\"Not expressible\"), instead of dropping it. It accepts exactly\n"
            "the flags of `trainplan estimate`, including --from-megatron and --from-deepspeed,\n"
            "so a Megatron launch converts to torchtitan or DeepSpeed.\n");
    cli_print_flags(f, export_flags, X_COUNT);
    cli_xio_print_import_flags(f);
    cli_print_shared_flags(f, "export", NULL, 0);
    fprintf(f, "\nExit codes: 0 written (a plan that does not fit is written with a warning),\n"
               "2 bad arguments or input, or --out exists without --force, 4 internal error.\n\n"
               "Examples:\n"
               "  trainplan export --format megatron --model llama-3-70b --gpus 256 --tp 8 --pp 2 "
               "\\\n"
               "      --seq-len 8192 --global-batch 256 --distributed-optimizer --out args.txt\n"
               "  trainplan export --format torchtitan --from-megatron args.txt --gpus 256\n");
}

/* What the export could not do, on stderr once its text is out. */
static void export_said(const tp_result *r, const tp_export *e, tp_export_format fmt)
{
    if (!r->memory.fits) {
        char reason[TP_REASON_MAX];
        tp_result_reason(r, reason, sizeof reason);
        cli_say("trainplan: warning: this plan does not fit in GPU memory (%s); exported "
                "anyway\n",
                reason[0] ? reason : "over capacity");
    }
    if (e->num_unexpressed > 0)
        cli_say("trainplan: note: %d part%s of the plan cannot be expressed in %s; see \"Not "
                "expressible\" in the header\n",
                e->num_unexpressed, e->num_unexpressed == 1 ? "" : "s",
                tp_io_export_format_name(fmt));
}

int cmd_export(int argc, char **argv)
{
    tp_config c;
    cli_common co;
    tp_error err = {0};
    const char *vals[X_COUNT];
    cli_extra ex = {export_flags, X_COUNT, vals};
    cli_xio xio;
    int argi = 1;
    if (cli_xio_parse(argc, argv, &argi, &ex, &xio, &c, &co, &err) != TP_OK)
        return cli_error_print(&err, co.err_file);
    if (argi < argc) {
        cli_say("trainplan: error: unexpected argument \"%s\" (export takes only flags)\n",
                argv[argi]);
        return CLI_EXIT_USAGE;
    }
    if (!vals[X_FORMAT]) {
        cli_say("trainplan: error: --format is required (megatron, torchtitan or "
                "deepspeed)\n");
        return CLI_EXIT_USAGE;
    }
    int k;
    if (cli_flag_enum(&export_flags[X_FORMAT], vals[X_FORMAT], &k, &err) != TP_OK)
        return cli_error_print(&err, NULL);
    tp_export_opts opts = {0};
    opts.train_tokens = xio.im.train_tokens; /* a plan's budget (--from plan.json), else 0 */
    if (vals[X_TOKENS] &&
        cli_flag_i64(&export_flags[X_TOKENS], vals[X_TOKENS], &opts.train_tokens, &err) != TP_OK)
        return cli_error_print(&err, NULL);
    if (vals[X_FORCE] && !vals[X_OUT]) {
        cli_say("trainplan: error: --force needs --out FILE\n");
        return CLI_EXIT_USAGE;
    }

    tp_result r;
    if (tp_eval(&c, &r, &err) != TP_OK)
        return cli_error_print(&err, cli_xio_blame(&xio, &err));
    tp_export e;
    if (tp_io_export((tp_export_format)k, &c, &r, &opts, &e, &err) != TP_OK)
        return cli_error_print(&err, NULL);
    int rc = CLI_EXIT_OK;
    if (vals[X_OUT]) {
        /* DeepSpeed: FILE and FILE.notes.txt, both or neither */
        char notes_path[4200];
        tp_io_file files[2] = {{vals[X_OUT], e.text, strlen(e.text), "--out"}, {0}};
        size_t nfiles = 1;
        if (e.notes) {
            if (strlen(vals[X_OUT]) + sizeof ".notes.txt" > sizeof notes_path) {
                cli_say("trainplan: error: --out: the path is %zu bytes long; at most "
                        "%zu with --format deepspeed\n",
                        strlen(vals[X_OUT]), sizeof notes_path - sizeof ".notes.txt");
                tp_io_export_free(&e);
                return CLI_EXIT_USAGE;
            }
            snprintf(notes_path, sizeof notes_path, "%s.notes.txt", vals[X_OUT]);
            files[nfiles++] = (tp_io_file){notes_path, e.notes, strlen(e.notes), "--out"};
        }
        rc = cli_write_files(files, nfiles, vals[X_FORCE] != NULL);
    } else {
        fputs(e.text, stdout);
        if (e.notes)
            fputs(e.notes, stderr);
    }
    if (rc == CLI_EXIT_OK) /* after the files: a failed write says only why */
        export_said(&r, &e, (tp_export_format)k);
    tp_io_export_free(&e);
    return rc;
}
