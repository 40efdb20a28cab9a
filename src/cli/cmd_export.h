/* SPDX-License-Identifier: MIT */
/**
 * cmd_export.h: the flags of issue 7 that other commands share, and their
 * two hooks.
 *
 * Import (estimate, export): --from-megatron FILE, --from-deepspeed FILE.
 * cli_xio_parse() is cli_parse_config() with the file read first: the
 * file becomes the equivalent trainplan flags, parsed ahead of the
 * command line, so a flag given on the command line overrides the file.
 *
 * Outputs (estimate): --markdown, --csv (the last of --json, --markdown,
 * --csv wins) and --svg FILE (written in addition to the report).
 * cli_xio_output() writes them after evaluation.
 *
 * A cli_xio is a plain value on the caller's stack; nothing to free.
 */
#ifndef TP_CMD_EXPORT_H
#define TP_CMD_EXPORT_H

#include "cli.h"
#include "import.h"

#define CLI_XIO_MAX_FLAGS 48  /* the command's extra flags plus these */
#define CLI_XIO_MAX_ARGS 1024 /* command-line words after the import */

typedef enum cli_xio_format {
    CLI_XIO_DEFAULT = 0, /* the command's own text report, or --json */
    CLI_XIO_MARKDOWN,
    CLI_XIO_CSV
} cli_xio_format;

typedef struct cli_xio {
    const char *import_path;  /* --from-megatron / --from-deepspeed / --from file, or NULL */
    const char *import_flag;  /* which of them */
    const char *svg;          /* --svg FILE, or NULL */
    cli_xio_format format;
    tp_import im;
    /* scratch of cli_xio_parse: the merged flag table and argv */
    cli_flag flags[CLI_XIO_MAX_FLAGS];
    const char *values[CLI_XIO_MAX_FLAGS];
    char *argv2[CLI_XIO_MAX_ARGS];
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
 * Write --svg FILE (if given) and print --markdown or --csv (if chosen).
 * Returns true when it has dealt with the output (printed the report, or
 * failed: *rc is then the exit code); false when the command prints its
 * own report (text or --json).
 */
bool cli_xio_output(const cli_xio *x, const tp_config *c, const tp_result *r, int *rc);

/** --help lines for the import and output flags. */
void cli_xio_print_flags(FILE *f);

#endif /* TP_CMD_EXPORT_H */
