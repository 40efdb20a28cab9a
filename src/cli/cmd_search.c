/* SPDX-License-Identifier: MIT */
/*
 * cmd_search.c: `trainplan search [flags]`: enumerate every valid layout
 * of a model on a cluster (libtp tp_search_*), keep those that fit, rank
 * them and print the top K with their breakdowns and what each runner-up
 * loses against the best; --json (array of estimate objects plus a
 * "search" member), --markdown or --csv (the last of the three wins; CSV
 * and Markdown use estimate's columns, tabular.h), and --svg FILE, the
 * charts of the best layout. When nothing fits, the closest layouts with
 * the constraint that binds; with --unfit N, up to N of them also after the
 * ranked ones (issue 19: the page's scatter shows both sides of capacity).
 * Exit 0 something fits, 1 nothing fits, 2 bad input, 4 internal error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "xio.h" /* issue 7: --markdown, --csv, --svg, --force */
#include "request.h"
#include "search_out.h"

static const char *const rank_names[] = {"time", "cost", "headroom", NULL}; /* tp_rank_by */

enum {
    X_TOP,
    X_RANK,
    X_CSV,
    X_MARKDOWN,
    X_SVG,
    X_FORCE,
    X_ACROSS,
    X_EVEN_PP,
    X_MAX_TP,
    X_MAX_PP,
    X_MAX_VPP,
    X_MAX_CP,
    X_MAX_EP,
    X_MAX_MB,
    X_MAX_ZERO,
    X_MIN_GPUS,
    X_NO_PRUNE,
    X_TIME_LIMIT,
    X_MOE_FOLDING,
    X_RECOMPUTE_VARIANTS,
    X_OFFLOAD_VARIANTS,
    X_UNFIT,
    X_PARAMS,
    X_COUNT
};

#define G_SEARCH "Search"
_Static_assert(X_COUNT <= CLI_SEARCH_MAX_FLAGS, "raise CLI_SEARCH_MAX_FLAGS in cli.h");
static const cli_flag search_flags[X_COUNT] = {
    [X_TOP] = {"--top", "K", "layouts", "5", "how many of the best layouts to print", CLI_INT, 1,
               1000, 0.0, 0.0, NULL, G_SEARCH},
    [X_RANK] = {"--rank", NULL, NULL, "time",
                "rank by predicted step time, cost per token, or memory headroom", CLI_ENUM, 0, 0,
                0.0, 0.0, rank_names, G_SEARCH},
    [X_CSV] = {"--csv", NULL, NULL, "text report",
               "print CSV instead: one row per layout, estimate's columns between rank and "
               "cost_per_token_usd, gpu_s_per_token, note",
               CLI_SWITCH, 0, 0, 0.0, 0.0, NULL, G_SEARCH},
    [X_MARKDOWN] = {"--markdown", NULL, NULL, "text report",
                    "print the ranking as a Markdown table instead (the last of --json, "
                    "--markdown and --csv wins)",
                    CLI_SWITCH, 0, 0, 0.0, 0.0, NULL, G_SEARCH},
    [X_SVG] = {"--svg", "FILE", NULL, "none",
               "also write the charts of the best layout to FILE (memory by component, step "
               "time, pipeline schedule); nothing is written when no layout fits",
               CLI_STR, 0, 0, 0.0, 0.0, NULL, G_SEARCH},
    [X_FORCE] = {"--force", NULL, NULL, "off", "replace --svg FILE if it is a regular file",
                 CLI_SWITCH, 0, 0, 0.0, 0.0, NULL, G_SEARCH},
    [X_ACROSS] = {"--tp-across-nodes", NULL, NULL, "off", "also try TP groups spanning whole nodes",
                  CLI_SWITCH, 0, 0, 0.0, 0.0, NULL, G_SEARCH},
    [X_EVEN_PP] = {"--even-pp", NULL, NULL, "off",
                   "only PP sizes that divide the layers (no uneven split)", CLI_SWITCH, 0, 0, 0.0,
                   0.0, NULL, G_SEARCH},
    [X_MAX_TP] = {"--max-tp", "N", "GPUs", "the node", "largest TP to try", CLI_INT, 1, TP_MAX_GPUS,
                  0.0, 0.0, NULL, G_SEARCH},
    [X_MAX_PP] = {"--max-pp", "N", "stages", "layers", "largest PP to try", CLI_INT, 1, TP_MAX_GPUS,
                  0.0, 0.0, NULL, G_SEARCH},
    [X_MAX_VPP] = {"--max-vpp", "N", "chunks per GPU", "layers / PP",
                   "largest number of virtual stages to try", CLI_INT, 1, TP_MAX_LAYERS, 0.0, 0.0,
                   NULL, G_SEARCH},
    [X_MAX_CP] = {"--max-cp", "N", "GPUs", "no limit", "largest CP to try", CLI_INT, 1, TP_MAX_GPUS,
                  0.0, 0.0, NULL, G_SEARCH},
    [X_MAX_EP] = {"--max-ep", "N", "GPUs", "no limit", "largest EP to try", CLI_INT, 1, TP_MAX_GPUS,
                  0.0, 0.0, NULL, G_SEARCH},
    [X_MAX_MB] = {"--max-micro-batch", "N", "sequences", "no limit", "largest micro-batch to try",
                  CLI_INT, 1, 1099511627776, 0.0, 0.0, NULL, G_SEARCH},
    [X_MAX_ZERO] = {"--max-zero", "0|1|2|3", NULL, "3", "deepest ZeRO stage to try", CLI_INT, 0, 3,
                    0.0, 0.0, NULL, G_SEARCH},
    [X_MIN_GPUS] =
        {"--min-gpus", "N", "GPUs", "--gpus",
         "also try smaller clusters, in whole nodes, from N up to --gpus (at most 1,024 sizes)",
         CLI_INT, 1, TP_MAX_GPUS, 0.0, 0.0, NULL, G_SEARCH},
    [X_NO_PRUNE] = {"--no-prune", NULL, NULL, "off",
                    "evaluate every layout (no lower-bound pruning; slower)", CLI_SWITCH, 0, 0, 0.0,
                    0.0, NULL, G_SEARCH},
    [X_TIME_LIMIT] = {"--time-limit", "SECONDS", "s", "none",
                      "stop the search after this long with an error (exit 3) naming what "
                      "makes the space large",
                      CLI_NUM, 0, 0, 0.001, 1e6, NULL, G_SEARCH},
    [X_MOE_FOLDING] = {"--moe-folding", NULL, NULL, "off (ETP = TP, EP within DP)",
                       "MoE parallel folding: also try expert TP and EP apart from TP, CP and DP "
                       "(GPUs divisible by ETP x EP x PP, Megatron-Core); --etp N fixes ETP",
                       CLI_SWITCH, 0, 0, 0.0, 0.0, NULL, G_SEARCH},
    [X_RECOMPUTE_VARIANTS] = {"--recompute-variants", NULL, NULL, "off (none, selective, full)",
                              "also try selective recompute with Megatron-Core's MoE-layer "
                              "recompute (--recompute-modules core_attn,moe) on MoE models, and "
                              "torchtitan's per-op selective checkpointing (--sac-ops)",
                              CLI_SWITCH, 0, 0, 0.0, 0.0, NULL, G_SEARCH},
    [X_OFFLOAD_VARIANTS] = {"--offload-variants", NULL, NULL, "off",
                            "also try every ZeRO stage >= 1 with the optimizer state offloaded "
                            "to the host CPU (--offload-optimizer 1, ZeRO-Offload), ZeRO 3 "
                            "with the weights there too (--offload-params cpu, FSDP2 CPU offload), "
                            "and PP 1 without recompute with all but one layer's activations "
                            "there (--offload-activations)",
                            CLI_SWITCH, 0, 0, 0.0, 0.0, NULL, G_SEARCH},
    [X_UNFIT] = {"--unfit", "N", "layouts", "none",
                 "also list up to N (at most 8) of the closest layouts that do not fit, after the "
                 "ranked ones, each with the constraint that binds (a second search, unpruned)",
                 CLI_INT, 1, TP_SEARCH_CLOSEST, 0.0, 0.0, NULL, G_SEARCH},
    [X_PARAMS] = CLI_PARAMS_FLAG(G_SEARCH),
};

void cmd_search_help(FILE *f)
{
    fprintf(f, "usage: trainplan search --model M --gpu G --gpus N --seq-len S\n"
               "                        (--global-batch B | --global-batch-tokens T) [flags]\n\n"
               "Enumerates every valid parallel layout of the model on the cluster: TP (dividing\n"
               "the heads and kv heads, inside a node unless --tp-across-nodes), sequence\n"
               "parallel on/off, PP (uneven splits where the layers do not divide: the end\n"
               "stages get fewer), virtual stages, CP, EP (MoE), ZeRO 0-3, recompute\n"
               "none/selective/full and micro-batch; DP and gradient accumulation are derived\n"
               "from the GPUs and the global batch. Each layout gets the full memory and\n"
               "step-time model; those that fit are ranked (--rank) and the best --top are\n"
               "printed with their breakdowns and what each runner-up loses against the best.\n\n"
               "A layout flag given on the command line fixes that axis (--tp 8, --zero 1,\n"
               "--recompute full, --sp, --micro-batch 2, ...); --max-* flags bound one.\n"
               "When nothing fits, the closest layouts are printed with the constraint that\n"
               "binds and by how much, and what single change would make them fit.\n");
    cli_print_flags(f, search_flags, X_COUNT);
    static const cli_default defs[] = {
        {"--tp --pp --cp --ep --vpp", "searched (a value given fixes the axis)"},
        {"--micro-batch", "searched (a value given fixes it)"},
        {"--sp --no-sp", "both searched"},
        {"--zero --fsdp", "ZeRO 0-3 searched (--max-zero bounds it)"},
        {"--recompute", "none, selective and full searched"},
    };
    cli_print_shared_flags(f, "search", defs, sizeof defs / sizeof defs[0]);
    fprintf(f,
            "\nExit codes: 0 some layout fits, 1 none fits, 2 bad arguments or input,\n"
            "4 internal error.\n\n"
            "Examples:\n"
            "  trainplan search --model llama-3-70b --gpus 64 --seq-len 8192 --global-batch 512\n"
            "  trainplan search --model llama-2-7b --gpus 64 --seq-len 131072 \\\n"
            "      --global-batch-tokens 4194304 --rank cost --top 3 --json\n");
}

/* ---- space from the flags ---------------------------------------------- */

static tp_status fix_axis(const cli_common *co, const char *flag, int64_t v, tp_axis *a)
{
    if (cli_given(co, flag))
        a->min = a->max = v;
    return TP_OK;
}

static tp_status bound(const cli_extra *ex, int id, tp_axis *a, tp_error *err)
{
    const char *v = ex->values[id];
    if (!v)
        return TP_OK;
    int64_t x;
    tp_status st = cli_flag_i64(&ex->flags[id], v, &x, err);
    if (st != TP_OK)
        return st;
    a->max = x;
    return TP_OK;
}

/* Shared with cmd_explain.c through cli.h: the space the flags describe. */
tp_status cli_search_space(const cli_common *co, const cli_extra *ex, const tp_config *c,
                           tp_search_space *sp, tp_error *err)
{
    tp_search_space_default(sp);
    const tp_train *t = &c->train;
    const char *layout_only[] = {"--schedule", "--first-stage-layers", "--last-stage-layers"};
    for (size_t i = 0; i < sizeof layout_only / sizeof layout_only[0]; i++)
        if (cli_given(co, layout_only[i]))
            return tp_error_set(err, TP_ERR_INVALID_ARG, layout_only[i] + 2,
                                "the search chooses this itself (1F1B, interleaved with --vpp > 1, "
                                "end stages with fewer layers when PP does not divide them)");
    TP_TRY(fix_axis(co, "--tp", t->tp, &sp->tp));
    TP_TRY(fix_axis(co, "--pp", t->pp, &sp->pp));
    TP_TRY(fix_axis(co, "--cp", t->cp, &sp->cp));
    TP_TRY(fix_axis(co, "--ep", t->ep, &sp->ep));
    TP_TRY(fix_axis(co, "--etp", t->etp, &sp->etp));
    TP_TRY(fix_axis(co, "--vpp", t->vpp, &sp->vpp));
    TP_TRY(fix_axis(co, "--micro-batch", t->micro_batch, &sp->micro_batch));
    if (cli_given(co, "--zero") || cli_given(co, "--fsdp") ||
        cli_given(co, "--distributed-optimizer"))
        sp->zero_mask = TP_SEARCH_BIT(t->zero);
    if (cli_given(co, "--recompute"))
        sp->recompute_mask = TP_SEARCH_BIT(t->recompute);
    if (cli_given(co, "--sp") || cli_given(co, "--no-sp"))
        sp->sp_mask = t->sp ? TP_SEARCH_SP_ON : TP_SEARCH_SP_OFF;
    if (!ex)
        return TP_OK;
    TP_TRY(bound(ex, X_MAX_TP, &sp->tp, err));
    TP_TRY(bound(ex, X_MAX_PP, &sp->pp, err));
    TP_TRY(bound(ex, X_MAX_VPP, &sp->vpp, err));
    TP_TRY(bound(ex, X_MAX_CP, &sp->cp, err));
    TP_TRY(bound(ex, X_MAX_EP, &sp->ep, err));
    if (ex->values[X_MOE_FOLDING])
        sp->moe_folding = true;
    if (ex->values[X_RECOMPUTE_VARIANTS])
        sp->recompute_variants = true;
    if (ex->values[X_OFFLOAD_VARIANTS])
        sp->offload_variants = true;
    TP_TRY(bound(ex, X_MAX_MB, &sp->micro_batch, err));
    if (ex->values[X_MAX_ZERO]) {
        int64_t z;
        TP_TRY(cli_flag_i64(&ex->flags[X_MAX_ZERO], ex->values[X_MAX_ZERO], &z, err));
        unsigned mask = sp->zero_mask ? sp->zero_mask : 0xFu;
        mask &= (1u << (unsigned)(z + 1)) - 1u;
        if (!mask)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "max-zero",
                                "%lld is below the ZeRO stage fixed by --zero (%d)", (long long)z,
                                t->zero);
        sp->zero_mask = mask;
    }
    if (ex->values[X_MIN_GPUS]) {
        int64_t g;
        TP_TRY(cli_flag_i64(&ex->flags[X_MIN_GPUS], ex->values[X_MIN_GPUS], &g, err));
        if (g > t->num_gpus)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "min-gpus",
                                "%lld is more than --gpus %lld", (long long)g,
                                (long long)t->num_gpus);
        sp->gpus.min = g;
        sp->gpus.max = t->num_gpus;
    }
    sp->tp_across_nodes = ex->values[X_ACROSS] != NULL;
    sp->even_pp_only = ex->values[X_EVEN_PP] != NULL;
    sp->no_prune = ex->values[X_NO_PRUNE] != NULL;
    return TP_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The writer (search_out.h) of a --markdown / --csv choice; --json is written apart. */
static tp_io_search_format search_format(cli_xio_format fmt)
{
    if (fmt == CLI_XIO_CSV)
        return TP_IO_SEARCH_CSV;
    if (fmt == CLI_XIO_MARKDOWN)
        return TP_IO_SEARCH_MARKDOWN;
    return TP_IO_SEARCH_TEXT;
}

static int search_error_print(const tp_error *err, const tp_search_space *sp);

/* Nothing fits: explain with the closest layouts; returns the exit code. */
static int explain_none(const tp_config *c, const tp_search_space *sp0, const tp_search_stats *st,
                        double wall_s, bool json, cli_xio_format fmt, size_t k)
{
    tp_io_search_format out = search_format(fmt); /* text when json */
    tp_error err = {0};
    if (st->candidates == 0) {
        if (json)
            fputs("[]\n", stdout);
        /* the message is the report in text; beside data, it goes to stderr */
        cli_text t;
        tp_io_search_none_text(
            cli_text_open(&t, json || out != TP_IO_SEARCH_TEXT ? stderr : stdout), c, st);
        cli_text_close(&t);
        return CLI_EXIT_NONE;
    }
    tp_search_item *close = calloc(TP_SEARCH_CLOSEST, sizeof *close);
    if (!close) {
        cli_say("trainplan: error: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    size_t n = 0;
    if (tp_io_search_closest(c, sp0, k, close, &n, &err) != TP_OK) {
        free(close);
        return search_error_print(&err, sp0);
    }
    if (json) { /* the answer the server gives too (search_out.h) */
        json_t *arr = tp_io_search_closest_json(close, n, &err);
        int rc = arr ? cli_json_print(arr) : cli_error_print(&err, NULL);
        json_decref(arr);
        free(close);
        return rc == CLI_EXIT_OK ? CLI_EXIT_NONE : rc;
    }
    int rc = CLI_EXIT_NONE;
    cli_text t; /* folded when text; Markdown and CSV are not */
    FILE *f = out == TP_IO_SEARCH_TEXT ? cli_text_open(&t, stdout) : stdout;
    if (tp_io_search_closest_write(f, out, c, close, n, st, wall_s, &err) != TP_OK)
        rc = cli_error_print(&err, NULL);
    if (out == TP_IO_SEARCH_TEXT)
        cli_text_close(&t);
    free(close);
    return rc;
}

const cli_flag *cmd_search_flags(size_t *count)
{
    *count = X_COUNT;
    return search_flags;
}

/* A stop at the time limit reads as such; anything else as the library words it. */
static int search_error_print(const tp_error *err, const tp_search_space *sp)
{
    if (err->code != TP_ERR_STOPPED || !sp->stop.should_stop)
        return cli_error_print(err, NULL);
    const cli_deadline *d = sp->stop.ctx;
    return cli_time_limit_print(d->limit_s, "search", err);
}

/* The flags a request may not pass (the server writes no file, answers JSON only). */
static const int http_refused[] = {X_CSV, X_MARKDOWN, X_SVG, X_FORCE, X_TIME_LIMIT};

static tp_status search_finish(cli_sources src, int argc, char **argv, cli_search_job *job,
                               tp_error *err);

tp_status cli_search_parse(int argc, char **argv, cli_sources src, cli_search_job *job,
                           tp_error *err)
{
    memset(job, 0, sizeof *job);
    cli_extra ex = {search_flags, X_COUNT, job->vals};
    job->argi = 1;
    tp_status st = cli_parse_config_from(argc, argv, &job->argi, &ex, src, &job->c, &job->co, err);
    if (st != TP_OK)
        return st;
    if (job->argi < argc)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                            "unexpected argument \"%.64s\" (search takes only flags)",
                            argv[job->argi]);
    return search_finish(src, argc, argv, job, err);
}

tp_status cli_search_parse_request(const tp_io_request *rq, cli_search_job *job, tp_error *err)
{
    memset(job, 0, sizeof *job);
    cli_extra ex = {search_flags, X_COUNT, job->vals};
    TP_TRY(cli_parse_config_request(rq, &ex, &job->c, &job->co, err));
    return search_finish(CLI_PRESETS_ONLY, 0, NULL, job, err);
}

/* After the configuration: search's own flags, then the search space
 * (argv NULL for a web request). */
static tp_status search_finish(cli_sources src, int argc, char **argv, cli_search_job *job,
                               tp_error *err)
{
    cli_extra ex = {search_flags, X_COUNT, job->vals};
    if (src == CLI_PRESETS_ONLY && cli_refuse_over_http(search_flags, job->vals, http_refused,
                                                        sizeof http_refused / sizeof *http_refused,
                                                        "writes no files", err) != TP_OK)
        return err->code;
    /* --params: the model is tp_scaling_shape's, before the space reads it */
    TP_TRY(cli_params_model(job->vals[X_PARAMS], argc, argv, &job->co, &job->c, &job->from_params,
                            err));
    if (!job->co.global_batch_given)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                            "search needs the target batch: --global-batch N (sequences) or "
                            "--global-batch-tokens N");
    int64_t top = 5;
    int rank = 0;
    const char *const *v = job->vals;
    if (v[X_TOP])
        TP_TRY(cli_flag_i64(&search_flags[X_TOP], v[X_TOP], &top, err));
    if (v[X_RANK])
        TP_TRY(cli_flag_enum(&search_flags[X_RANK], v[X_RANK], &rank, err));
    if (v[X_TIME_LIMIT])
        TP_TRY(cli_flag_f64(&search_flags[X_TIME_LIMIT], v[X_TIME_LIMIT], &job->time_limit_s, err));
    if (v[X_FORCE] && !v[X_SVG])
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "--force needs --svg FILE");
    if (v[X_UNFIT]) {
        int64_t unfit;
        TP_TRY(cli_flag_i64(&search_flags[X_UNFIT], v[X_UNFIT], &unfit, err));
        job->unfit = (size_t)unfit;
    }
    job->top = (size_t)top;
    job->top_given = v[X_TOP] != NULL;
    job->by = (tp_rank_by)rank;
    return cli_search_space(&job->co, &ex, &job->c, &job->sp, err);
}

int cmd_search(int argc, char **argv)
{
    static cli_search_job job; /* large: off the stack (one per process) */
    tp_error err = {0};
    if (cli_search_parse(argc, argv, CLI_FILES_ALLOWED, &job, &err) != TP_OK)
        return cli_error_print(&err, job.co.err_file);
    const char *const *vals = job.vals;
    tp_config *c = &job.c;
    tp_search_space *sp = &job.sp;
    tp_rank_by by = job.by;
    /* the last of --json, --markdown and --csv wins, as for estimate */
    cli_xio_format fmt = cli_xio_format_of(&job.co);
    bool json = job.co.json && fmt == CLI_XIO_DEFAULT;
    bool force = vals[X_FORCE] != NULL;
    cli_deadline dl;
    if (job.time_limit_s > 0.0)
        cli_deadline_start(&dl, job.time_limit_s, &sp->stop);

    size_t k = job.top;
    tp_search_item *items = calloc(k, sizeof *items);
    if (!items) {
        cli_say("trainplan: error: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    size_t n = 0;
    tp_search_stats st;
    double t0 = now_s();
    tp_status s = tp_search_top(c, sp, by, items, k, &n, &st, &err);
    double wall = now_s() - t0;
    if (s != TP_OK) {
        free(items);
        return search_error_print(&err, sp);
    }
    if (n == 0) {
        free(items);
        if (vals[X_SVG])
            cli_say("trainplan: note: --svg: no layout fits, so no chart is written\n");
        return explain_none(c, sp, &st, wall, json, fmt, k < 3 ? 3 : k);
    }

    bool show_gpus = sp->gpus.min > 0 || sp->gpus.max > 0;
    int rc = CLI_EXIT_OK;
    /* --unfit: the closest that do not fit, from a second, unpruned search */
    tp_search_item unfit[TP_SEARCH_CLOSEST];
    size_t n_unfit = 0;
    if (job.unfit > 0 && tp_io_search_closest(c, sp, job.unfit, unfit, &n_unfit, &err) != TP_OK) {
        free(items);
        return search_error_print(&err, sp);
    }
    if (vals[X_SVG]) { /* the best layout's charts, before any report */
        rc = cli_write_svg(vals[X_SVG], force, &items[0].config, &items[0].result);
        if (rc != CLI_EXIT_OK) {
            free(items);
            return rc;
        }
    }
    if (json) { /* the answer the server gives too (search_out.h) */
        json_t *arr = tp_io_search_json(items, n, by);
        if (arr && tp_io_search_unfit_append(arr, unfit, n_unfit, &err) != TP_OK) {
            json_decref(arr);
            free(items);
            return cli_error_print(&err, NULL);
        }
        for (size_t i = 0; arr && job.from_params > 0.0 && i < json_array_size(arr); i++)
            if (cli_params_json(json_array_get(arr, i), job.from_params) != 0) {
                json_decref(arr);
                arr = NULL;
            }
        if (!arr) {
            cli_say("trainplan: error: internal: a result holds a non-finite number\n");
            rc = CLI_EXIT_INTERNAL;
        } else {
            rc = cli_json_print(arr);
            json_decref(arr);
        }
    } else {
        bool text = search_format(fmt) == TP_IO_SEARCH_TEXT;
        cli_text t; /* folded when text; Markdown and CSV are not */
        FILE *f = text ? cli_text_open(&t, stdout) : stdout;
        if (tp_io_search_write(f, search_format(fmt), c, items, n, by, &st, wall, show_gpus, unfit,
                               n_unfit, &err) != TP_OK)
            rc = cli_error_print(&err, NULL);
        if (job.from_params > 0.0 && search_format(fmt) != TP_IO_SEARCH_CSV)
            cli_params_text(f, job.from_params, c); /* CSV stays rows only */
        if (text)
            cli_text_close(&t);
    }
    free(items);
    return rc;
}
