/* SPDX-License-Identifier: MIT */
/**
 * cli.h: shared pieces of the trainplan command-line program.
 *
 * Commands. Every command is `int cmd_NAME(int argc, char **argv)`, where
 * argv[0] is the command name and argv[1..argc-1] its arguments; it
 * returns the process exit status (CLI_EXIT_*). Its help is printed by
 * `void cmd_NAME_help(FILE *f)`. To add a command: declare both here and
 * add one line to the command table in main.c.
 *
 * Flags. Commands that evaluate a configuration (estimate, search, plan)
 * share one table of model / GPU / layout / training flags, parsed by
 * cli_parse_config() into a tp_config. A command adds its own flags with a
 * second table (cli_extra); cli_parse_config() collects their values and
 * the command interprets them with cli_flag_i64() and friends. `--help`
 * text is generated from the tables, so every flag shows its unit and
 * default in one place.
 */
#ifndef TP_CLI_H
#define TP_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "desc.h"
#include "io.h"
#include "tp/tp.h"

/* Exit codes (documented in docs/trainplan.1). */
enum {
    CLI_EXIT_OK = 0,      /* evaluated (whether or not it fits) */
    CLI_EXIT_NONE = 1,    /* no feasible configuration (search) */
    CLI_EXIT_USAGE = 2,   /* bad arguments or input             */
    CLI_EXIT_STOPPED = 3, /* stopped at --time-limit            */
    CLI_EXIT_INTERNAL = 4 /* a bug in trainplan                 */
};

/* ---- commands ---- */

int cmd_estimate(int argc, char **argv);
void cmd_estimate_help(FILE *f);
int cmd_presets(int argc, char **argv);
void cmd_presets_help(FILE *f);
int cmd_serve(int argc, char **argv); /* src/cli/cmd_serve.c */
void cmd_serve_help(FILE *f);
int cmd_validate(int argc, char **argv); /* src/cli/cmd_validate.c */
void cmd_validate_help(FILE *f);
int cmd_plan(int argc, char **argv); /* src/cli/cmd_plan.c */
void cmd_plan_help(FILE *f);
int cmd_search(int argc, char **argv); /* src/cli/cmd_search.c */
void cmd_search_help(FILE *f);
int cmd_explain(int argc, char **argv); /* src/cli/cmd_explain.c */
void cmd_explain_help(FILE *f);
int cmd_export(int argc, char **argv);
void cmd_export_help(FILE *f); /* cmd_export.c, issue 7 */

/* ---- flag tables ---- */

typedef enum cli_kind {
    CLI_INT,   /* whole number in [imin, imax] */
    CLI_NUM,   /* finite real number in [fmin, fmax] */
    CLI_NUM0,  /* 0 ("none"), or a real number in [fmin, fmax], fmin > 0 */
    CLI_ENUM,  /* one of `choices` */
    CLI_STR,   /* free text: a preset name or a file path */
    CLI_SWITCH /* takes no value */
} cli_kind;

typedef struct cli_flag {
    const char *name;    /* with dashes: "--tp" */
    const char *metavar; /* "N", "X", "NAME|FILE"; enums show their choices */
    const char *unit;    /* "GPUs", "tokens", ...; NULL when dimensionless */
    const char *def;     /* default text for --help; NULL: derived (common table) or none */
    const char *help;    /* one line */
    cli_kind kind;
    int64_t imin, imax;         /* CLI_INT range */
    double fmin, fmax;          /* CLI_NUM, CLI_NUM0 range */
    const char *const *choices; /* CLI_ENUM: NULL-terminated names */
    const char *group;          /* --help section heading */
} cli_flag;

/* The command's own flag tables (the web API passes these flags through). */
const cli_flag *cmd_search_flags(size_t *count);
const cli_flag *cmd_plan_flags(size_t *count);

/**
 * A command's own flags. values[i] receives the argument of flags[i] ("" for
 * a switch), or stays NULL when the flag is absent; the caller provides the
 * array of `count` pointers (zeroed by cli_parse_config).
 */
/**
 * Does flag fl say what src/io/fields.c says of the field it sets (kind
 * and range)? True for a flag that sets no field. Each flag table is
 * checked with it before parsing (a mismatch is an internal error).
 */
bool cli_flag_agrees_with_field(const cli_flag *fl);

typedef struct cli_extra {
    const cli_flag *flags;
    size_t count;
    const char **values; /* OUT */
} cli_extra;

#define CLI_MAX_FLAGS 128 /* capacity of cli_common.given; opts.c checks its table fits */

/** What the shared flags say beyond the tp_config itself. */
typedef struct cli_common {
    bool json;                 /* --json: one JSON object on stdout */
    const char *model;         /* --model argument (preset name or file) */
    const char *gpu;           /* --gpu argument */
    bool global_batch_given;   /* --global-batch or --global-batch-tokens was given;
                                  else it is micro-batch x DP */
    const char *err_file;      /* on a loader error: the file it refers to, else NULL */
    bool given[CLI_MAX_FLAGS]; /* by shared-table index; read it with cli_given() */
    const char *last_report;   /* the last of --json, --markdown and --csv given (the
                                  command's flag name), NULL if none: the one that wins */
    tp_io_desc desc;           /* the run description the flags (and an import) filled */
} cli_common;

/**
 * Parse argv[*argi..argc-1]: the shared configuration flags plus the
 * command's `extra` flags (may be NULL). Stops at the first argument that is
 * not a flag (or after "--") and leaves *argi there. Then builds *c: loads
 * the model and GPU, applies tp_train_default / tp_options_default, every
 * override, and the derived defaults (global batch = micro-batch x DP, sp on
 * when tp > 1, interleaved schedule when vpp > 1). Does not run
 * tp_config_validate. On error fills err: err->path is a flag name without
 * dashes, or, when co->err_file is set, a field of that model/GPU file
 * (with err->line/column when the file is not valid JSON). Print it with
 * cli_error_print(err, co->err_file).
 */
tp_status cli_parse_config(int argc, char **argv, int *argi, const cli_extra *extra, tp_config *c,
                           cli_common *co, tp_error *err);

/**
 * Where --model and --gpu may come from. The server parses request bodies
 * with CLI_PRESETS_ONLY: the value is looked up among the embedded presets
 * and nowhere else, so no request can make the process open a file (a
 * model or GPU of its own comes inline, "model-config" / "gpu-config").
 */
typedef enum cli_sources {
    CLI_FILES_ALLOWED = 0, /* a preset name, or a model / GPU JSON file (the CLI) */
    CLI_PRESETS_ONLY       /* a preset name only; anything else is TP_ERR_UNKNOWN */
} cli_sources;

/** cli_parse_config with the sources --model and --gpu may name. */
tp_status cli_parse_config_from(int argc, char **argv, int *argi, const cli_extra *extra,
                                cli_sources sources, tp_config *c, cli_common *co, tp_error *err);

struct tp_import; /* src/io/import.h */

/**
 * cli_parse_config with the values of an imported file first: the run
 * description takes the file's values (origin TP_IO_ORIGIN_FILE, with
 * where each came from), then the flags of argv, which override them.
 * co->given and co->desc count the file's values as given.
 */
tp_status cli_parse_config_import(int argc, char **argv, int *argi, const cli_extra *extra,
                                  const struct tp_import *im, tp_config *c, cli_common *co,
                                  tp_error *err);

struct tp_io_request; /* src/io/request.h */

/**
 * cli_parse_config_from(..., CLI_PRESETS_ONLY, ...) for a web API request:
 * its keys are checked in order as the flags of argv are (a key that is
 * no flag of the command, a value for a switch, a switch without one:
 * the same messages), the command's own keys land in extra->values, and
 * the tp_config is built from the request's run description (rq->desc,
 * filled by tp_io_request_parse) by tp_io_desc_build.
 */
tp_status cli_parse_config_request(const struct tp_io_request *rq, const cli_extra *extra,
                                   tp_config *c, cli_common *co, tp_error *err);

struct tp_io_request_item; /* src/io/request.h */

/**
 * The same with the items checked and the run description given apart:
 * for a command that takes some keys of the request itself (plan's
 * phases) and sets values of its own first (plan's example).
 */
tp_status cli_parse_config_items(const struct tp_io_request_item *items, size_t n,
                                 const tp_io_desc *desc, const cli_extra *extra, tp_config *c,
                                 cli_common *co, tp_error *err);

/**
 * Parse argv[*argi..argc-1] against the command's own flags only (for
 * commands that take no configuration: presets, serve). Same rules as
 * cli_parse_config: "--name value" or "--name=value", suggestions for
 * unknown flags, stops at the first non-flag argument.
 */
tp_status cli_parse_flags(int argc, char **argv, int *argi, const cli_extra *extra, tp_error *err);

/**
 * Was the shared flag `name` ("--tp") on the command line? For commands that
 * search: a flag given fixes that dimension, an absent one may be searched
 * (the tp_config then holds the default).
 */
bool cli_given(const cli_common *co, const char *name);

/**
 * The search space the flags describe (src/cli/cmd_search.c): every layout
 * flag given (cli_given) fixes its axis, search's own --max-* flags in `ex`
 * (NULL: none) bound one. Errors name the flag.
 */
tp_status cli_search_space(const cli_common *co, const cli_extra *ex, const tp_config *c,
                           tp_search_space *sp, tp_error *err);

/* ---- commands as data: parsed here, run by the CLI or by the server ---- */

/**
 * A time limit for the CLI's searches (--time-limit): start the clock and
 * point stop at it (stop->ctx is d; d must outlive the search).
 */
typedef struct cli_deadline {
    double limit_s; /* as given */
    double end_s;   /* CLOCK_MONOTONIC seconds at which it passes */
} cli_deadline;
void cli_deadline_start(cli_deadline *d, double limit_s, tp_search_stop *stop);

/**
 * Print the error of a search stopped at --time-limit ("--time-limit: S s
 * passed; the <what> <how far it got>") and return its exit code; search
 * and plan word it alike.
 */
int cli_time_limit_print(double limit_s, const char *what, const tp_error *err);

/**
 * The server's refusals, shared by search and plan: the first flag of
 * refused[0..n) given in vals (indexes into flags) is an error naming it;
 * `server_files` says what the server does not do with files ("writes no
 * files"). TP_OK when none was given.
 */
tp_status cli_refuse_over_http(const cli_flag *flags, const char *const *vals, const int *refused,
                               size_t n, const char *server_files, tp_error *err);

#define CLI_SEARCH_MAX_FLAGS 24 /* capacity of cli_search_job.vals; cmd_search.c checks */

/**
 * `trainplan search` parsed (cmd_search.c): the base configuration, the
 * space (its stop zeroed: the runner sets it), the ranking and how many.
 * The server runs the same job through tp_io_search_run_json.
 */
typedef struct cli_search_job {
    tp_config c;
    cli_common co;
    tp_search_space sp;
    tp_rank_by by;
    size_t top; /* --top (5) */
    bool top_given;
    double time_limit_s;                    /* --time-limit; 0: none */
    int argi;                               /* where parsing stopped */
    const char *vals[CLI_SEARCH_MAX_FLAGS]; /* search's own flags, as given (borrowed) */
    double from_params;                     /* --params N (c.model is its shape); 0: none */
    size_t unfit; /* --unfit N: closest layouts that do not fit, after the ranked; 0: none */
} cli_search_job;

/**
 * Parse search's arguments (argv[0] the command). With CLI_PRESETS_ONLY
 * (the server) the flags that name a file or change the output format
 * (--svg, --force, --csv, --markdown) and --time-limit are refused, naming
 * the flag. Errors name the flag, as the CLI prints them.
 */
tp_status cli_search_parse(int argc, char **argv, cli_sources src, cli_search_job *job,
                           tp_error *err);
/** cli_search_parse for a web API request (CLI_PRESETS_ONLY; see cli_parse_config_request). */
tp_status cli_search_parse_request(const struct tp_io_request *rq, cli_search_job *job,
                                   tp_error *err);

/**
 * `trainplan explain` parsed (cmd_explain.c): the configuration and the
 * space its search explores (its stop zeroed: the runner sets it). The
 * server runs the same job through tp_io_explain_run_json.
 */
typedef struct cli_explain_job {
    tp_config c;
    cli_common co;
    tp_search_space sp;
    bool config_read; /* the flags parsed: later errors are not the config file's */
} cli_explain_job;

/** Parse explain's arguments (argv[0] the command); errors name the flag. */
tp_status cli_explain_parse(int argc, char **argv, cli_sources src, cli_explain_job *job,
                            tp_error *err);
/** cli_explain_parse for a web API request (CLI_PRESETS_ONLY). */
tp_status cli_explain_parse_request(const struct tp_io_request *rq, cli_explain_job *job,
                                    tp_error *err);

/**
 * `trainplan plan` parsed (cmd_plan.c): the plan's input (large: allocate
 * the job) and the output flags. The server runs tp_plan_run on job->in.
 */
typedef struct cli_plan_job {
    tp_plan_in in;
    cli_common co;
    double time_limit_s; /* --time-limit; 0: none */
    int64_t lr_points;   /* --lr-points (1000) */
    const char *svg;     /* --svg FILE, or NULL */
    bool force, lr_schedule;
    int ac;    /* the argument vector the shared parser saw (the example's */
    char **av; /* flags first), owned: free with cli_plan_job_free */
} cli_plan_job;

/** Parse plan's arguments; the same refusals as cli_search_parse under CLI_PRESETS_ONLY. */
tp_status cli_plan_parse(int argc, char **argv, cli_sources src, cli_plan_job *job, tp_error *err);
/**
 * The same for a web request (presets only): its "phase" keys are the
 * phases, the rest fill the run description after the example's values
 * and plan's own fields, as the same flags on the command line would.
 */
tp_status cli_plan_parse_request(const struct tp_io_request *rq, cli_plan_job *job, tp_error *err);
void cli_plan_job_free(cli_plan_job *job);

/** Print the shared configuration flags, grouped, for --help. */
void cli_print_config_flags(FILE *f);
/** Print a table of flags for --help under their group headings. */
void cli_print_flags(FILE *f, const cli_flag *flags, size_t count);

/** A command's own default for one of the shared flags (its --help shows it). */
typedef struct cli_default {
    const char *flag;  /* "--model", or several: "--tp --pp --cp" */
    const char *value; /* "mpt-30b", "searched", ... */
} cli_default;
/**
 * For the commands that take estimate's flags (plan, search, explain,
 * export): the shared flags by group, named, not described again (estimate
 * --help and trainplan(1) describe them), then the command's defaults
 * where they differ from estimate's (defs[0..n)).
 */
void cli_print_shared_flags(FILE *f, const char *cmd, const cli_default *defs, size_t n);

/** Interpret an extra flag's value (from cli_extra.values), range-checked. */
tp_status cli_flag_i64(const cli_flag *fl, const char *val, int64_t *out, tp_error *err);
tp_status cli_flag_f64(const cli_flag *fl, const char *val, double *out, tp_error *err);
/** Index of val in fl->choices, or an error suggesting the closest choice. */
tp_status cli_flag_enum(const cli_flag *fl, const char *val, int *out, tp_error *err);

/** Edit distance (Levenshtein) between a and b, capped at 99. */
int cli_edit_distance(const char *a, const char *b);
/* From now on this process parses flags of requests, where --help is no flag:
 * "did you mean" never offers it (cmd_serve, before the server starts). */
void cli_help_is_not_a_flag(void);

/**
 * Print `trainplan: error: ...` for err on stderr and return the exit code
 * for its status. Without a file, a canonical field name in err->path
 * ("layout.tp", tp.h) is worded as its flag through src/io/fields.c
 * ("--tp: ..."), a flag path as --path; with a file, the path is the
 * file's (file:line:col when known) and is printed as it is.
 */
int cli_error_print(const tp_error *err, const char *file);

/**
 * Print one "trainplan: error|warning|note: ..." line (fmt ends with
 * "\n") to stderr with every untrusted part defused (tp_io_safe_text:
 * control characters become \xNN), so that a value quoted from argv or a
 * file cannot send escape sequences to the terminal. Never cut short.
 */
void cli_say(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/** Exit code for a status: 0, 2 (input), 4 (internal, out of memory). */
int cli_exit_code(tp_status code);

/** Write a JSON value to stdout, indented, with a final newline. */
int cli_json_print(json_t *j);

/* ---- the terminal (term.c) ---- */

/** The width human output is folded to: COLUMNS when set to a number, else 100. */
int cli_columns(void);

/**
 * Human output of a command, folded to cli_columns() (tp_io_wrap): write
 * it to cli_text_open's stream, then cli_text_close writes it, folded, to
 * `out`. Where no buffer can be had, the stream is `out` itself (unfolded).
 */
typedef struct cli_text {
    FILE *f, *out;
    char *buf;
    size_t len;
} cli_text;
FILE *cli_text_open(cli_text *t, FILE *out);
void cli_text_close(cli_text *t);

/* ---- --params N: a dense decoder from a parameter count (params.c) ---- */

/**
 * The --params flag of estimate, search and plan (one definition: each
 * command's table holds CLI_PARAMS_FLAG(group)); its range is the row
 * "plan.model_params" of src/io/fields.c and tp_scaling_shape's.
 */
#define CLI_PARAMS_FLAG(grp)                                                                              \
    {                                                                                                     \
        "--params", "N", "parameters", "none (--model)",                                                  \
            "a dense Llama-style decoder of about N parameters instead of --model: head dimension 128, "  \
            "a multiple of 8 heads, hidden ~ 128 x layers, SwiGLU FFN 8/3 hidden, vocabulary --vocab or " \
            "32000 (the report states the shape)",                                                        \
            CLI_NUM, 0, 0, 1e6, 1e14, NULL, .group = (grp)                                                \
    }
#define CLI_PARAMS_DEFAULT_VOCAB 32000 /* Llama 2's, not the default preset's */

/**
 * Read --params' value `val` (NULL: not given; *n_out = 0). The flags
 * that give the model otherwise (--model, every shape flag but --vocab,
 * the --from-* imports) would fight the rule: each is an error naming
 * it, looked up in the user's argv[1..argc-1].
 */
tp_status cli_params_value(const char *val, int argc, char **argv, double *n_out, tp_error *err);
/** Where the flags a user gave are: the words of argv[1..argc-1] (the
 * CLI, before "--"), or the keys of a web request (rq, when not NULL). */
typedef struct cli_user_flags {
    int argc;
    char **argv;
    const struct tp_io_request *rq;
} cli_user_flags;

/** Did the user give flag `name` ("--gpus"; a request: key "gpus")? */
bool cli_user_gave(const cli_user_flags *u, const char *name);

/** cli_params_value with the user's flags in u (a clash is named "--x"). */
tp_status cli_params_value_user(const char *val, const cli_user_flags *u, double *n_out,
                                tp_error *err);

/* The same, with argv NULL for a web request: the clashes are the flags
 * the request gave (cli_given on co). */
tp_status cli_params_value_in(const char *val, int argc, char **argv, const cli_common *co,
                              double *n_out, tp_error *err);

/**
 * --params for estimate and search: replace c->model by tp_scaling_shape
 * of the count (vocabulary --vocab when given, else
 * CLI_PARAMS_DEFAULT_VOCAB). *n_out = the count, 0 when not given.
 */
tp_status cli_params_model(const char *val, int argc, char **argv, const cli_common *co,
                           tp_config *c, double *n_out, tp_error *err);

/** The report's words for a model from --params (as plan's): text and JSON. */
void cli_params_text(FILE *f, double n, const tp_config *c);
int cli_params_json(json_t *j, double n);

#endif /* TP_CLI_H */
