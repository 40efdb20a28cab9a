/* SPDX-License-Identifier: MIT */
/**
 * xio.h: the import and output flags of issue 7 that estimate, search,
 * plan and export share, and their two hooks (xio.c).
 *
 * Import (estimate, export): --from-megatron FILE, --from-deepspeed FILE.
 * cli_xio_parse() is cli_parse_config() with the file read first: the
 * file's values fill the run description (src/io/desc.h) ahead of the
 * command line's flags, so a flag given on the command line overrides
 * the file, and an error about a value the file set names the file.
 *
 * Outputs (estimate): --markdown, --csv (the last of --json, --markdown,
 * --csv wins) and --svg FILE [--force] (written in addition to the
 * report). cli_xio_output() writes them after evaluation. search and plan
 * have their own flag tables but the same rules: cli_xio_last_format()
 * picks the format, cli_write_svg() writes the chart.
 *
 * Files: cli_write_files() is the CLI's only way to write a file (it
 * wraps tp_io_write_files, src/io/util.c: temporary file, fsync, atomic
 * link or rename, never replacing a file without --force).
 *
 * A cli_xio is a plain value on the caller's stack; nothing to free.
 */
#ifndef TP_CLI_XIO_H
#define TP_CLI_XIO_H

#include "cli.h"
#include "import.h"
#include "io_internal.h"

#define CLI_XIO_MAX_FLAGS 48 /* the command's extra flags plus these */

typedef enum cli_xio_format {
    CLI_XIO_DEFAULT = 0, /* the command's own text report, or --json */
    CLI_XIO_MARKDOWN,
    CLI_XIO_CSV
} cli_xio_format;

typedef struct cli_xio {
    const char *import_path; /* --from-megatron / --from-deepspeed / --from file, or NULL */
    const char *import_flag; /* which of them */
    const char *svg;         /* --svg FILE, or NULL */
    bool force;              /* --force: --svg may replace an existing file */
    cli_xio_format format;
    tp_import im;
    cli_common user; /* with an import: what the user's own flags gave */
    bool user_valid;
    tp_io_desc desc; /* with an import: the run description (the file's values, the flags) */
    /* scratch of cli_xio_parse: the merged flag table */
    cli_flag flags[CLI_XIO_MAX_FLAGS];
    const char *values[CLI_XIO_MAX_FLAGS];
} cli_xio;

/**
 * cli_parse_config() plus the import and output flags. `extra` is the
 * command's own table (may be NULL); its values are filled as
 * cli_parse_config() would. *argi indexes argv as given. On an error in
 * an imported file co->err_file names it (print with cli_error_print).
 * Notes on what the import ignored or assumed go to stderr.
 */
tp_status cli_xio_parse(int argc, char **argv, int *argi, const cli_extra *extra, cli_xio *x,
                        tp_config *c, cli_common *co, tp_error *err);

/**
 * With an import: the imported file when err is about a flag the user did
 * not give (the value came from the file), else NULL. For cli_error_print,
 * so that such an error names the file, not a flag never written; where
 * the import recorded it, err->path becomes the file's own argument or key
 * and err->line/column its position.
 */
const char *cli_xio_blame(const cli_xio *x, tp_error *err);

/**
 * Write --svg FILE (if given) and print --markdown or --csv (if chosen).
 * Returns true when it has dealt with the output (printed the report, or
 * failed: *rc is then the exit code); false when the command prints its
 * own report (text or --json).
 */
bool cli_xio_output(const cli_xio *x, const tp_config *c, const tp_result *r, int *rc);

/**
 * The report format the command line asks for: the last of --json,
 * --markdown and --csv the parser saw (co->last_report; CLI_XIO_DEFAULT
 * for --json or the text report: the caller knows which from co->json).
 */
cli_xio_format cli_xio_format_of(const cli_common *co);

/**
 * Write files with tp_io_write_files (all or nothing, atomic, an existing
 * file only replaced with force); on error print it. Returns the exit code.
 */
int cli_write_files(const tp_io_file *files, size_t n, bool force);

/** Draw the charts of (c, r) (tp_io_svg_report) and write them to path. */
int cli_write_svg(const char *path, bool force, const tp_config *c, const tp_result *r);

/** --help lines for the import and output flags. */
void cli_xio_print_flags(FILE *f);
/** --help lines for the import flags alone (export has its own outputs). */
void cli_xio_print_import_flags(FILE *f);

#endif /* TP_CLI_XIO_H */
