/* SPDX-License-Identifier: MIT */
/*
 * cmd_plan.c: `trainplan plan [flags]`: the whole capacity plan, from
 * intent to cluster size, cost, schedule and checkpointing (docs/plan.md).
 *
 * With no arguments it runs the built-in example of seed 000: MPT-30B
 * (29.98B parameters, so 20 tokens/param is the seed's 600B tokens), 4096
 * tokens per sequence, 4M-token (1024-sequence) batches on A100-80GB and a
 * 3-week (504 h) deadline. Those are also the defaults under any other
 * flags: the example's flags come first on the command line, so every flag
 * the user gives overrides them.
 *
 * Layout: the layout search by default; a layout flag (--tp, --pp, --cp,
 * --ep, --vpp, --zero, --fsdp, --distributed-optimizer, --recompute,
 * --micro-batch, --sp/--no-sp) fixes that axis of the search, as for
 * `search` (issue 19); --schedule, --first/last-stage-layers or --layout
 * given fix the whole layout. --phase may be repeated; it is taken out of argv before the
 * shared parser runs (whose extra flags keep only the last value).
 *
 * Exit codes: 0 planned; 1 no layout fits (the report says why and what
 * would fix it); 2 bad arguments or input; 4 internal error.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "xio.h" /* issue 7: the report format, --svg FILE, --force */
#include "plan_in.h"
#include "plan_out.h"
#include "request.h"

static const char *const fit_names[] = {"besiroglu", "hoffmann", "hoffmann-rounded", NULL};
static const char *const size_at_names[] = {"auto", "predicted", "mfu", NULL};
static const char *const basis_names[] = {"exact", "6nd", NULL};
static const char *const layout_names[] = {"search", "recipe", "given", NULL};
static const char *const ckpt_mode_names[] = {"async", "sync", NULL};

enum {
    X_TOKENS,
    X_TOKENS_PER_PARAM,
    X_COMPUTE,
    X_FIT,
    X_SIZE_MODEL,
    X_PARAMS,
    X_DEADLINE,
    X_DEADLINE_DAYS,
    X_BUDGET,
    X_MFU,
    X_TFLOPS,
    X_SIZE_AT,
    X_BASIS,
    X_LAYOUT,
    X_MAX_GPUS,
    X_MEMORY_MARGIN,
    X_TIE_TOLERANCE,
    X_PHASE,
    X_PLAN_FILE,
    X_CKPT_MODE,
    X_STORAGE_GBPS,
    X_HOST_GBPS,
    X_FAILURE_RATE,
    X_RESTART_MIN,
    X_CKPT_EVERY,
    X_LR,
    X_MIN_LR,
    X_WARMUP,
    X_MARKDOWN,
    X_CSV,
    X_SVG,
    X_FORCE,
    X_LR_SCHEDULE,
    X_LR_POINTS,
    X_TIME_LIMIT,
    X_COUNT
};

#define G_TOK "Tokens and scaling laws"
#define G_CLU "Cluster, time and money (one of --gpus, --deadline, or neither: 3 weeks)"
#define G_PH "Phases"
#define G_CK "Checkpointing and failures"
#define G_LR "Learning rate"
#define G_OUT "Plan output"

#define INT(lo, hi) CLI_INT, (lo), (hi), 0.0, 0.0, NULL
#define NUM(lo, hi) CLI_NUM, 0, 0, (lo), (hi), NULL
#define NUM0(lo, hi) CLI_NUM0, 0, 0, (lo), (hi), NULL /* 0 = none */
#define ENUM(names) CLI_ENUM, 0, 0, 0.0, 0.0, (names)

static const cli_flag xflags[X_COUNT] = {
    [X_TOKENS] = {"--tokens", "N|budget", "tokens", "20 x parameters",
                  "training tokens; budget: what --budget buys for this model at --mfu",
                  NUM(1.0, 1e18), .group = G_TOK},
    [X_TOKENS_PER_PARAM] = {"--tokens-per-param", "X", "tokens per parameter", "20",
                            "training tokens as a multiple of the parameters (Chinchilla)",
                            NUM(1e-3, 1e6), .group = G_TOK},
    [X_COMPUTE] = {"--compute", "C", "FLOP", "unset",
                   "FLOP budget: tokens = C / 6N; with --size-model the compute-optimal N and D",
                   NUM(1e10, 1e35), .group = G_TOK},
    [X_FIT] = {"--fit", NULL, NULL, "besiroglu",
               "scaling-law fit for the loss and compute-optimal sizes (formulas.md 5.1)",
               ENUM(fit_names), .group = G_TOK},
    [X_SIZE_MODEL] = {"--size-model", NULL, NULL, "off",
                      "replace --model by a Llama-style model sized from --compute or --budget "
                      "(compute-optimal, or --tokens-per-param)",
                      CLI_SWITCH, .group = G_TOK},
    [X_PARAMS] = CLI_PARAMS_FLAG(G_TOK), /* shared with estimate and search */

    [X_DEADLINE] = {"--deadline", "H", "hours", "504 (3 weeks)",
                    "wall-clock deadline: size the cluster to meet it (a check with --gpus)",
                    NUM(0.001, 1e6), .group = G_CLU},
    [X_DEADLINE_DAYS] = {"--deadline-days", "D", "days", "21", "the deadline in days",
                         NUM(0.001, 1e5), .group = G_CLU},
    [X_BUDGET] = {"--budget", "USD", "US dollars", "none",
                  "money budget: checked, and the hours, GPUs and model it buys", NUM(0.01, 1e15),
                  .group = G_CLU},
    [X_MFU] = {"--mfu", "X", "fraction", "0.40",
               "user-given model FLOPs utilisation, as the seeds assume (0..1]", NUM(1e-4, 1.0),
               .group = G_CLU},
    [X_TFLOPS] = {"--tflops", "X", "TFLOP/s per GPU", "unset",
                  "sustained model TFLOP/s per GPU instead of --mfu (seed 000: 125 or 130)",
                  NUM(1e-3, 1e7), .group = G_CLU},
    [X_SIZE_AT] = {"--size-at", NULL, NULL, "auto",
                   "throughput that sizes the cluster: predicted (step-time model), mfu (--mfu), "
                   "auto (predicted when available)",
                   ENUM(size_at_names), .group = G_CLU},
    [X_BASIS] = {"--flops-basis", NULL, NULL, "exact",
                 "FLOPs that --mfu applies to (6nd: the seeds' convention)", ENUM(basis_names),
                 .group = G_CLU},
    [X_LAYOUT] = {"--layout", NULL, NULL, "search (given with --schedule or a stage split)",
                  "how each phase's layout is chosen", ENUM(layout_names), .group = G_CLU},
    [X_MAX_GPUS] = {"--max-gpus", "N", "GPUs", "131072", "largest cluster the sizing considers",
                    INT(1, TP_MAX_GPUS), .group = G_CLU},
    [X_MEMORY_MARGIN] = {"--memory-margin", "X", "fraction of capacity", "0.10",
                         "memory kept free on every GPU by the layouts the plan chooses (the "
                         "memory model's measured error, docs/ACCURACY.md); 0 = none",
                         NUM0(1e-6, 0.5), .group = G_CLU},
    [X_TIE_TOLERANCE] = {"--tie-tolerance", "X", "fraction", "0.03",
                         "layouts this close to the fastest count as a tie, won by the simpler "
                         "(fewer PP stages, no CP at short context, TP within a node)",
                         NUM0(1e-6, 0.5), .group = G_CLU},

    [X_PHASE] = {"--phase", "KEY=VALUE,...", NULL, "one phase of all tokens",
                 "a training phase (repeatable, in order); keys: name, tokens, seq, batch "
                 "(sequences), batch-tokens, frozen (parameters of a frozen module), "
                 "frozen-tokens, frozen-backward (0|1). A phase without tokens takes what the "
                 "others leave",
                 CLI_STR, .group = G_PH},
    [X_PLAN_FILE] = {"--plan-file", "FILE", NULL, "none",
                     "phases from a JSON file {\"phases\": [{\"name\": \"4k\", \"seq\": 4096}, "
                     "...]} with the keys of --phase; --phase flags are appended",
                     CLI_STR, .group = G_PH},

    [X_CKPT_MODE] = {"--ckpt-mode", NULL, NULL, "async",
                     "asynchronous (snapshot to host, persist in the background) or synchronous",
                     ENUM(ckpt_mode_names), .group = G_CK},
    [X_STORAGE_GBPS] = {"--storage-gbps", "X", "GB/s (1e9 bytes/s)", "1 per node",
                        "aggregate checkpoint write bandwidth of the storage", NUM(1e-3, 1e6),
                        .group = G_CK},
    [X_HOST_GBPS] = {"--host-gbps", "X", "GB/s per GPU", "10",
                     "GPU-to-host copy bandwidth (asynchronous checkpoints)", NUM(1e-3, 1e4),
                     .group = G_CK},
    [X_FAILURE_RATE] = {"--gpu-failure-rate", "X", "failures per GPU-hour", "1.97e-5 (Llama 3)",
                        "job-interrupting failures per GPU-hour (0: none)", NUM0(1e-9, 0.5),
                        .group = G_CK},
    [X_RESTART_MIN] = {"--restart-min", "X", "minutes", "10",
                       "time to detect, reschedule and reload after a failure", NUM0(1e-3, 1e5),
                       .group = G_CK},
    [X_CKPT_EVERY] = {"--ckpt-every-steps", "N", "steps", "Daly's optimum",
                      "checkpoint interval in optimizer steps", INT(1, 1000000000), .group = G_CK},

    [X_LR] = {"--lr", "X", NULL, "3e-4", "peak learning rate", NUM0(1e-12, 10.0), .group = G_LR},
    [X_MIN_LR] = {"--min-lr", "X", NULL, "10% of --lr", "learning rate at the end of the cosine",
                  NUM0(1e-12, 10.0), .group = G_LR},
    [X_WARMUP] = {"--warmup-steps", "N", "steps", "min(2000, 10% of the steps)", "linear warmup",
                  INT(0, 1000000000), .group = G_LR},

    [X_MARKDOWN] = {"--markdown", NULL, NULL, "off",
                    "print the report as Markdown (the last of --json, --markdown and --csv "
                    "wins)",
                    CLI_SWITCH, .group = G_OUT},
    [X_CSV] = {"--csv", NULL, NULL, "off",
               "print CSV instead: one row per phase (phase, phase_tokens, tokens_per_step, "
               "steps, steps_whole, gpu_hours, wall_s, then estimate's columns for its layout)",
               CLI_SWITCH, .group = G_OUT},
    [X_SVG] = {"--svg", "FILE", NULL, "none",
               "also write the charts of the chosen layout (the first phase's) to FILE; nothing "
               "is written when no layout fits",
               CLI_STR, .group = G_OUT},
    [X_FORCE] = {"--force", NULL, NULL, "off", "replace --svg FILE if it is a regular file",
                 CLI_SWITCH, .group = G_OUT},
    [X_LR_SCHEDULE] = {"--lr-schedule", NULL, NULL, "off",
                       "print the learning-rate series as CSV (step,tokens,phase,lr) instead",
                       CLI_SWITCH, .group = G_OUT},
    [X_LR_POINTS] = {"--lr-points", "N", "rows", "1000",
                     "rows of --lr-schedule (0: every step, when there are at most 1,000,000)",
                     INT(0, TP_IO_LR_MAX_POINTS), .group = G_OUT},
    [X_TIME_LIMIT] = {"--time-limit", "SECONDS", "s", "none",
                      "stop the plan's layout searches after this long with an error (exit 3)",
                      NUM(0.001, 1e6), .group = G_OUT},
};

/* The built-in example (seed 000); user flags come after and override it. */
static const char *const example_args[] = {
    "--model", "mpt-30b", "--gpu", "a100-80gb", "--seq-len", "4096", "--global-batch-tokens",
    "4194304"};
#define NUM_EXAMPLE (sizeof example_args / sizeof example_args[0])

void cmd_plan_help(FILE *f)
{
    fprintf(f, "usage: trainplan plan [flags]\n\n"
               "The whole capacity plan, one section per step with units: model and parameters;\n"
               "tokens from scaling laws (20 tokens/param, a FLOP budget, or given) with the\n"
               "predicted loss; sequence, batch and steps; FLOPs (6ND and exact); GPU-hours at\n"
               "the predicted MFU of the chosen layout and at --mfu; cost; the cluster for a\n"
               "deadline (whole nodes) or the wall clock on --gpus; the best layout from the\n"
               "search with its memory and step time; checkpoint size, write time, Young/Daly\n"
               "interval, failures and goodput; the budget's inverse problems; the learning-rate\n"
               "schedule; caveats (critical batch size, ...).\n\n"
               "With no flags it plans the built-in example (seed 000): MPT-30B (29.98B\n"
               "parameters, llm-foundry shape), 20 tokens/param = 600B tokens, sequence 4096,\n"
               "4,194,304-token batches (1024 sequences), A100-80GB, 3-week (504 h) deadline.\n"
               "Those stay the defaults when other flags are given (listed below).\n");
    static const cli_default defs[] = {
        {"--model", "mpt-30b"},
        {"--gpu", "a100-80gb"},
        {"--gpus", "sized for --deadline (whole nodes)"},
        {"--seq-len", "4096"},
        {"--global-batch-tokens", "4194304 (1024 sequences of 4096)"},
    };
    cli_print_shared_flags(f, "plan", defs, sizeof defs / sizeof defs[0]);
    cli_print_flags(f, xflags, X_COUNT);
    fprintf(f,
            "\nExit codes: 0 planned, 1 no layout fits (the report says what would fix it),\n"
            "2 bad arguments or input, 4 internal error.\n\n"
            "Examples:\n"
            "  trainplan plan\n"
            "  trainplan plan --tflops 130 --flops-basis 6nd --size-at mfu --deadline 500\n"
            "  trainplan plan --model llama-3-70b --gpu h100-sxm --tokens 2e12 --deadline-days 30\n"
            "  trainplan plan --gpus 512 --budget 2e6 --markdown\n"
            "  trainplan plan --csv --svg plan.svg\n"
            "  trainplan plan --phase name=4k,seq=4096 --phase name=32k,seq=32768,tokens=40e9\n"
            "  trainplan plan --size-model --compute 1e24 --fit besiroglu\n"
            "  trainplan plan --model llama-3-8b --budget 500k --tokens budget --gpus 64\n"
            "  trainplan plan --params 30B --deadline-days 30\n"
            "  trainplan plan --lr-schedule --lr-points 200 > lr.csv\n");
}

/* Flags that only a whole given layout can honour (the search picks them itself). */
static const char *const whole_layout_flags[] = {"--schedule", "--first-stage-layers",
                                                 "--last-stage-layers"};

static const char *const layout_flags[] = {"--tp",
                                           "--pp",
                                           "--cp",
                                           "--ep",
                                           "--etp",
                                           "--vpp",
                                           "--zero",
                                           "--fsdp",
                                           "--distributed-optimizer",
                                           "--recompute",
                                           "--micro-batch",
                                           "--schedule",
                                           "--first-stage-layers",
                                           "--last-stage-layers",
                                           "--sp",
                                           "--no-sp"};

#define TRY(x)                                                                                     \
    do {                                                                                           \
        if ((x) != TP_OK)                                                                          \
            return cli_error_print(&err, NULL);                                                    \
    } while (0)

const cli_flag *cmd_plan_flags(size_t *count)
{
    *count = X_COUNT;
    return xflags;
}

/* The flags a request may not pass (the server reads and writes no file, answers JSON only). */
static const int http_refused[] = {X_PLAN_FILE, X_MARKDOWN,    X_CSV,       X_SVG,
                                   X_FORCE,     X_LR_SCHEDULE, X_LR_POINTS, X_TIME_LIMIT};

void cli_plan_job_free(cli_plan_job *job)
{
    if (job) {
        free(job->av);
        job->av = NULL;
    }
}

#undef TRY
#define TRY(x) TP_TRY(x)
#define XF(id) (&xflags[id])
#define GETF(id, dst) TRY(xv[id] ? cli_flag_f64(XF(id), xv[id], &(dst), err) : TP_OK)
#define GETI(id, dst) TRY(xv[id] ? cli_flag_i64(XF(id), xv[id], &(dst), err) : TP_OK)
#define GETE(id, dst) TRY(xv[id] ? cli_flag_enum(XF(id), xv[id], &(dst), err) : TP_OK)

/* argv' = command, the example's flags, the user's flags minus --phase. */
static tp_status split_phases(int argc, char **argv, cli_plan_job *job, const char **specs,
                              int *nphase, tp_error *err)
{
    job->av = calloc((size_t)argc + NUM_EXAMPLE + 1, sizeof *job->av);
    if (!job->av)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
    int ac = 0;
    job->av[ac++] = argv[0];
    for (size_t i = 0; i < NUM_EXAMPLE; i++)
        job->av[ac++] = (char *)(uintptr_t)example_args[i]; /* not modified by the parser */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *spec = NULL;
        if (strcmp(a, "--phase") == 0) {
            if (i + 1 >= argc)
                return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                                    "--phase needs a value (e.g. name=long,seq=32768,tokens=40e9)");
            spec = argv[++i];
        } else if (strncmp(a, "--phase=", 8) == 0) {
            spec = a + 8;
        }
        if (spec) {
            if (*nphase >= TP_PLAN_MAX_PHASES)
                return tp_error_set(err, TP_ERR_INVALID_ARG, "", "--phase: at most %d phases",
                                    TP_PLAN_MAX_PHASES);
            specs[(*nphase)++] = spec;
            continue;
        }
        job->av[ac++] = argv[i];
    }
    job->av[ac] = NULL;
    job->ac = ac;
    return TP_OK;
}

/* Tokens, cluster, time and money: the flags of the first two groups. */
static tp_status plan_sizing(const char *const *xv, const tp_config *c, tp_plan_in *in,
                             tp_error *err)
{
    /* Tokens: --tokens, else --compute, else compute-optimal for a model sized
     * from --budget, else --tokens-per-param (20). */
    GETF(X_TOKENS_PER_PARAM, in->tokens_per_param);
    GETF(X_COMPUTE, in->compute_flops);
    bool from_budget = xv[X_TOKENS] && strcmp(xv[X_TOKENS], "budget") == 0;
    if (!from_budget)
        GETF(X_TOKENS, in->tokens);
    in->size_model = xv[X_SIZE_MODEL] != NULL;
    if (from_budget && !xv[X_BUDGET])
        return tp_error_set(err, TP_ERR_INVALID_ARG, "tokens",
                            "\"budget\" means the tokens a money budget buys: give --budget USD");
    if (from_budget && (xv[X_COMPUTE] || in->size_model))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "tokens",
                            "\"budget\" is for a given model; --compute and --size-model choose "
                            "the tokens themselves");
    if (from_budget)
        in->tokens_from = TP_TOKENS_COMPUTE;
    else if (xv[X_TOKENS])
        in->tokens_from = TP_TOKENS_GIVEN;
    else if (xv[X_COMPUTE] || (in->size_model && !xv[X_TOKENS_PER_PARAM]))
        in->tokens_from = TP_TOKENS_COMPUTE;
    else
        in->tokens_from = TP_TOKENS_PER_PARAM;
    int k = 0;
    if (xv[X_FIT]) {
        GETE(X_FIT, k);
        in->fit = (tp_fit_id)k;
    }

    /* Cluster, time, money. */
    double days = 0.0;
    if (xv[X_DEADLINE] && xv[X_DEADLINE_DAYS])
        return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                            "--deadline %s and --deadline-days %s both set the deadline: give "
                            "one (hours or days)",
                            xv[X_DEADLINE], xv[X_DEADLINE_DAYS]);
    GETF(X_DEADLINE, in->deadline_h);
    if (xv[X_DEADLINE_DAYS]) {
        GETF(X_DEADLINE_DAYS, days);
        in->deadline_h = days * 24.0;
    }
    if (in->size_by == TP_SIZE_GPUS && !xv[X_DEADLINE] && !xv[X_DEADLINE_DAYS])
        in->deadline_h = 0.0; /* no default deadline to check against */
    GETF(X_BUDGET, in->budget_usd);
    GETF(X_MFU, in->mfu);
    if (xv[X_TFLOPS]) {
        double tf = 0.0;
        GETF(X_TFLOPS, tf);
        double peak = c->gpu.peak_flops_per_s[c->train.precision];
        if (!(peak > 0.0) || tf * 1e12 > peak)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "tflops",
                                "%g TFLOP/s is more than the %s peak of %g TFLOP/s", tf,
                                c->gpu.name, peak / 1e12);
        in->mfu = tf * 1e12 / peak;
    }
    if (xv[X_SIZE_AT]) {
        GETE(X_SIZE_AT, k);
        in->size_at = (tp_size_at)k;
    }
    if (xv[X_BASIS]) {
        GETE(X_BASIS, k);
        in->basis = (tp_flops_basis)k;
    }
    if (xv[X_LAYOUT]) {
        GETE(X_LAYOUT, k);
        in->layout_from = k == 0 ? TP_LAYOUT_AUTO : k == 1 ? TP_LAYOUT_RECIPE : TP_LAYOUT_GIVEN;
    }
    GETI(X_MAX_GPUS, in->max_gpus);
    GETF(X_MEMORY_MARGIN, in->memory_margin);
    GETF(X_TIE_TOLERANCE, in->tie_tolerance);
    return TP_OK;
}

/* --params N: a model from a count (cli_params_value says which flags
 * clash with it). The vocabulary is --vocab's, else Llama 2's 32,000 (not
 * the default preset's); the library applies the shape (plan.c). */
static tp_status plan_params(const char *const *xv, const cli_user_flags *u, tp_plan_in *in,
                             tp_error *err)
{
    TP_TRY(cli_params_value_user(xv[X_PARAMS], u, &in->model_params, err));
    if (xv[X_PARAMS] && !cli_user_gave(u, "--vocab"))
        in->base.model.vocab = CLI_PARAMS_DEFAULT_VOCAB;
    return TP_OK;
}

/* Checkpointing, failures and the learning rate. */
static tp_status plan_ckpt_lr(const char *const *xv, tp_plan_in *in, tp_error *err)
{
    int k = 0;
    if (xv[X_CKPT_MODE]) {
        GETE(X_CKPT_MODE, k);
        in->ckpt.async = k == 0;
    }
    double x = 0.0;
    if (xv[X_STORAGE_GBPS]) {
        GETF(X_STORAGE_GBPS, x);
        in->ckpt.storage_bw_bytes_per_s = x * TP_GB;
    }
    if (xv[X_HOST_GBPS]) {
        GETF(X_HOST_GBPS, x);
        in->ckpt.host_bw_bytes_per_s = x * TP_GB;
    }
    GETF(X_FAILURE_RATE, in->ckpt.failures_per_gpu_hour);
    if (xv[X_RESTART_MIN]) {
        GETF(X_RESTART_MIN, x);
        in->ckpt.restart_s = x * 60.0;
    }
    GETI(X_CKPT_EVERY, in->ckpt_every_steps);
    GETF(X_LR, in->peak_lr);
    GETF(X_MIN_LR, in->min_lr);
    GETI(X_WARMUP, in->warmup_steps);
    return TP_OK;
}

/* Every flag of xflags agrees with its row of src/io/fields.c. */
static tp_status check_xflags(tp_error *err)
{
    for (size_t k = 0; k < X_COUNT; k++) /* one range per field (src/io/fields.c) */
        if (!cli_flag_agrees_with_field(&xflags[k]))
            return tp_error_set(err, TP_ERR_INTERNAL, "",
                                "internal: %s disagrees with its row in src/io/fields.c",
                                xflags[k].name);
    return TP_OK;
}

/*
 * After the configuration *c and plan's own values xv: the plan's input.
 * u: the flags the user gave (the example's are not); specs: the phases.
 */
static tp_status plan_finish(const cli_user_flags *u, cli_sources src, const tp_config *c,
                             const char *const *xv, const char *const *phase_specs, int nphase,
                             cli_plan_job *job, tp_error *err)
{
    if (src == CLI_PRESETS_ONLY)
        TRY(cli_refuse_over_http(xflags, xv, http_refused,
                                 sizeof http_refused / sizeof *http_refused,
                                 "reads and writes no files", err));

    tp_plan_in *in = &job->in;
    tp_plan_in_default(in);
    in->base = *c;
    bool gpus_given = cli_user_gave(u, "--gpus");
    bool layout_given = false, whole_given = false;
    for (size_t i = 0; i < sizeof layout_flags / sizeof layout_flags[0]; i++)
        layout_given = layout_given || cli_user_gave(u, layout_flags[i]);
    for (size_t i = 0; i < sizeof whole_layout_flags / sizeof whole_layout_flags[0]; i++)
        whole_given = whole_given || cli_user_gave(u, whole_layout_flags[i]);
    in->size_by = gpus_given ? TP_SIZE_GPUS : TP_SIZE_DEADLINE;
    /* issue 19: a layout flag fixes its axis of the search, as for `search --tp 4`;
     * only --schedule and the stage splits (or --layout given) freeze the layout */
    in->layout_from = whole_given ? TP_LAYOUT_GIVEN : TP_LAYOUT_AUTO;
    if (layout_given && !whole_given)
        TRY(cli_search_space(&job->co, NULL, c, &in->space, err));
    in->price_per_hour = -1.0; /* the GPU's, or --price (already applied to c.gpu) */
    TRY(plan_sizing(xv, c, in, err));
    TRY(plan_params(xv, u, in, err));

    /* Phases: the file's, then the flags'. */
    if (xv[X_PLAN_FILE] && tp_io_plan_file_load(xv[X_PLAN_FILE], in, err) != TP_OK) {
        job->co.err_file = err->code == TP_ERR_IO ? NULL : xv[X_PLAN_FILE];
        return err->code;
    }
    for (int i = 0; i < nphase; i++) {
        if (in->num_phases >= TP_PLAN_MAX_PHASES)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "", "at most %d phases in all",
                                TP_PLAN_MAX_PHASES);
        TRY(tp_io_phase_parse(phase_specs[i], &in->phases[in->num_phases], err));
        in->num_phases++;
    }
    TRY(plan_ckpt_lr(xv, in, err));
    job->lr_points = 1000;
    GETI(X_LR_POINTS, job->lr_points);
    GETF(X_TIME_LIMIT, job->time_limit_s);
    job->svg = xv[X_SVG];
    job->force = xv[X_FORCE] != NULL;
    job->lr_schedule = xv[X_LR_SCHEDULE] != NULL;
    if (job->force && !job->svg)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "--force needs --svg FILE");
    return TP_OK;
}

tp_status cli_plan_parse(int argc, char **argv, cli_sources src, cli_plan_job *job, tp_error *err)
{
    memset(job, 0, sizeof *job);
    const char *phase_specs[TP_PLAN_MAX_PHASES + 1];
    int nphase = 0;
    TRY(split_phases(argc, argv, job, phase_specs, &nphase, err));

    tp_config c;
    const char *xv[X_COUNT];
    TRY(check_xflags(err));
    cli_extra extra = {xflags, X_COUNT, xv};
    int argi = 1;
    TRY(cli_parse_config_from(job->ac, job->av, &argi, &extra, src, &c, &job->co, err));
    if (argi < job->ac)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                            "unexpected argument \"%.64s\" (plan takes only flags)", job->av[argi]);
    cli_user_flags u = {argc, argv, NULL};
    return plan_finish(&u, src, &c, xv, phase_specs, nphase, job, err);
}

/*
 * A request's phases, as split_phases takes them from argv: each "phase"
 * key is one ("phase": true, a switch, takes the next key as its value,
 * "--key" or "--key=text", as "--phase" followed by it on the command
 * line would; *owned holds those texts). The other keys go to kept[].
 */
static tp_status request_phases(const tp_io_request *rq, tp_io_request_item *kept, size_t *nkept,
                                const char **specs, int *nphase, char **owned, tp_error *err)
{
    *nkept = 0;
    for (size_t i = 0; i < rq->count; i++) {
        const tp_io_request_item *it = &rq->items[i];
        if (strcmp(it->key, "phase") != 0) {
            kept[(*nkept)++] = *it;
            continue;
        }
        const char *spec = it->text;
        if (!spec) {
            if (i + 1 >= rq->count)
                return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                                    "--phase needs a value (e.g. name=long,seq=32768,tokens=40e9)");
            const tp_io_request_item *next = &rq->items[++i];
            size_t n = strlen(next->key) + (next->text ? strlen(next->text) + 1 : 0) + 3;
            char *word = malloc(n);
            if (!word)
                return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
            snprintf(word, n, "--%s%s%s", next->key, next->text ? "=" : "",
                     next->text ? next->text : "");
            owned[*nphase] = word;
            spec = word;
        }
        if (*nphase >= TP_PLAN_MAX_PHASES)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "", "--phase: at most %d phases",
                                TP_PLAN_MAX_PHASES);
        specs[(*nphase)++] = spec;
    }
    return TP_OK;
}

/* The run description: the example's values, then the request's keys. */
static void request_desc(const tp_io_request_item *items, size_t n, tp_io_desc *d)
{
    tp_io_desc_init(d);
    for (size_t i = 0; i + 1 < NUM_EXAMPLE; i += 2)
        tp_io_desc_set(d, tp_io_desc_slot(example_args[i]), example_args[i + 1], TP_IO_ORIGIN_FLAG);
    for (size_t i = 0; i < n; i++)
        tp_io_desc_set(d, tp_io_desc_slot_key(items[i].key), items[i].text ? items[i].text : "",
                       TP_IO_ORIGIN_KEY);
}

static tp_status parse_request(const tp_io_request *rq, cli_plan_job *job, tp_io_request_item *kept,
                               char **owned, tp_error *err)
{
    const char *phase_specs[TP_PLAN_MAX_PHASES + 1];
    int nphase = 0;
    size_t nkept = 0;
    TRY(request_phases(rq, kept, &nkept, phase_specs, &nphase, owned, err));
    tp_io_desc desc;
    request_desc(kept, nkept, &desc);
    desc.model_text = rq->model_text; /* "model-config" */
    tp_config c;
    const char *xv[X_COUNT];
    cli_extra extra = {xflags, X_COUNT, xv};
    TRY(check_xflags(err));
    TRY(cli_parse_config_items(kept, nkept, &desc, &extra, &c, &job->co, err));
    cli_user_flags u = {0, NULL, rq};
    return plan_finish(&u, CLI_PRESETS_ONLY, &c, xv, phase_specs, nphase, job, err);
}

tp_status cli_plan_parse_request(const tp_io_request *rq, cli_plan_job *job, tp_error *err)
{
    memset(job, 0, sizeof *job);
    char *owned[TP_PLAN_MAX_PHASES + 1] = {0};
    tp_io_request_item *kept = malloc((rq->count + 1) * sizeof *kept);
    if (!kept)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
    tp_status st = parse_request(rq, job, kept, owned, err);
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        free(owned[i]);
    free(kept);
    return st;
}

/* Print a parse or plan error; a stop at --time-limit reads as such. */
static int plan_error_print(const tp_error *err, const cli_plan_job *job)
{
    if (err->code == TP_ERR_STOPPED && job->time_limit_s > 0.0) {
        return cli_time_limit_print(job->time_limit_s, "plan's layout search", err);
    }
    return cli_error_print(err, job->co.err_file);
}

/* The first phase's charts. Its memory total holds the frozen weights; the
 * chart draws components, so they are drawn as weights (frozen ones are
 * 16-bit weights too) and the stack adds up to the total. */
static int write_plan_svg(const cli_plan_job *job, const tp_plan_phase *ph)
{
    tp_result r = ph->res;
    tp_memory *m[3] = {&r.memory, &r.stage_first, &r.stage_last};
    for (int i = 0; i < 3; i++)
        m[i]->weights_bytes += ph->frozen_weight_bytes;
    return cli_write_svg(job->svg, job->force, &ph->cfg, &r);
}

int cmd_plan(int argc, char **argv)
{
    static cli_plan_job job; /* large: keep it off the stack (one per process) */
    static tp_plan plan;
    tp_error err = {0};
    int rc;
    if (cli_plan_parse(argc, argv, CLI_FILES_ALLOWED, &job, &err) != TP_OK) {
        rc = plan_error_print(&err, &job);
        goto out;
    }
    cli_deadline dl;
    if (job.time_limit_s > 0.0)
        cli_deadline_start(&dl, job.time_limit_s, &job.in.stop);
    if (tp_plan_run(&job.in, &plan, &err) != TP_OK) {
        rc = plan_error_print(&err, &job);
        goto out;
    }

    /* The JSON serializer checks every number; build it for every output. */
    json_t *j = tp_io_plan_json(&job.in, &plan);
    if (!j) {
        cli_say("trainplan: error: internal: the plan holds a non-finite number (a bug "
                "in trainplan; please report the command line)\n");
        rc = CLI_EXIT_INTERNAL;
        goto out;
    }
    rc = CLI_EXIT_OK;
    if (job.svg) { /* the chosen layout's charts, before any report */
        if (plan.feasible && plan.num_phases > 0)
            rc = write_plan_svg(&job, &plan.phases[0]);
        else
            cli_say("trainplan: note: --svg: no layout fits, so no chart is written\n");
        if (rc != CLI_EXIT_OK) {
            json_decref(j);
            goto out;
        }
    }
    /* the last of --json, --markdown and --csv wins, as for estimate */
    cli_xio_format fmt = cli_xio_format_of(&job.co);
    if (job.lr_schedule && plan.feasible &&
        tp_io_plan_lr_rows(&plan, job.lr_points) > TP_IO_LR_MAX_POINTS) {
        cli_say("trainplan: error: --lr-points 0: every step is %lld rows, more than the %d "
                "--lr-schedule writes (give --lr-points N, at most %d)\n",
                (long long)tp_io_plan_lr_rows(&plan, job.lr_points), TP_IO_LR_MAX_POINTS,
                TP_IO_LR_MAX_POINTS);
        rc = CLI_EXIT_USAGE;
    } else if (job.lr_schedule && plan.feasible)
        tp_io_plan_lr_csv(stdout, &plan, job.lr_points);
    else if (fmt == CLI_XIO_CSV)
        tp_io_plan_csv(stdout, &plan);
    else if (fmt == CLI_XIO_MARKDOWN)
        tp_io_plan_markdown(stdout, &job.in, &plan);
    else if (job.co.json)
        rc = cli_json_print(j);
    else {
        cli_text t;
        tp_io_plan_text(cli_text_open(&t, stdout), &job.in, &plan);
        cli_text_close(&t);
    }
    json_decref(j);
    if (rc > 0)
        goto out;
    if (!plan.feasible) {
        cli_say("trainplan: no feasible layout: %s\n", plan.reason);
        if (job.lr_schedule)
            cli_say("trainplan: (no learning-rate schedule without a plan)\n");
        rc = CLI_EXIT_NONE;
    } else {
        rc = CLI_EXIT_OK;
    }
out:
    cli_plan_job_free(&job);
    return rc;
}
