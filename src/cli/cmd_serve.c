/* SPDX-License-Identifier: MIT */
/*
 * cmd_serve.c: `trainplan serve [--port N] [--bind ADDR]`: the planner
 * page and its JSON API on a local HTTP server (src/web/, docs/serve.md).
 *
 * This file only parses the flags; the server is src/web/server.c. When
 * trainplan is built without libmicrohttpd (TP_WEB off or not found) the
 * command still exists and says so.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifdef TP_HAVE_WEB
#include "web.h"
#endif

#define DEFAULT_PORT "8080"
#define DEFAULT_BIND "127.0.0.1"

enum {
    S_PORT,
    S_BIND,
    S_ALLOW_REMOTE,
    S_THREADS,
    S_MAX_CONN,
    S_TIMEOUT,
    S_TIME_LIMIT,
    S_COMPUTE_THREADS,
    S_QUEUE,
    S_LOG,
    S_COUNT
};

/* The compute pool's defaults (web.h has them too; a build without the server has no web.h). */
#define DEFAULT_TIME_LIMIT "5"
#define DEFAULT_COMPUTE_THREADS "2"
#define DEFAULT_QUEUE "16"

#define INT(lo, hi) CLI_INT, (lo), (hi), 0.0, 0.0, NULL
#define STR CLI_STR, 0, 0, 0.0, 0.0, NULL
#define SWITCH CLI_SWITCH, 0, 0, 0.0, 0.0, NULL

static const cli_flag serve_flags[S_COUNT] = {
    [S_PORT] = {"--port", "N", NULL, DEFAULT_PORT, "TCP port; 0 picks a free one (printed)",
                INT(0, 65535), "Server"},
    [S_BIND] = {"--bind", "ADDR", NULL, DEFAULT_BIND,
                "numeric IPv4/IPv6 address to listen on; only loopback unless --allow-remote", STR,
                "Server"},
    [S_ALLOW_REMOTE] = {"--allow-remote", NULL, NULL, "off",
                        "permit a non-loopback --bind (there is no authentication)", SWITCH,
                        "Server"},
    [S_THREADS] = {"--threads", "N", "threads", "4", "worker thread pool size", INT(1, 64),
                   "Limits"},
    [S_MAX_CONN] = {"--max-connections", "N", "connections", "64",
                    "open connections at once; more are refused", INT(1, 4096), "Limits"},
    [S_TIMEOUT] = {"--timeout", "S", "seconds", "15", "close a connection idle this long",
                   INT(1, 3600), "Limits"},
    [S_TIME_LIMIT] = {"--time-limit", "S", "seconds", DEFAULT_TIME_LIMIT,
                      "deadline of a search or plan from its arrival; later: 503", CLI_NUM, 0, 0,
                      0.01, 3600.0, NULL, "Limits"},
    [S_COMPUTE_THREADS] = {"--compute-threads", "N", "threads", DEFAULT_COMPUTE_THREADS,
                           "threads running searches and plans (the page, presets and "
                           "estimates never wait for them)",
                           INT(1, 64), "Limits"},
    [S_QUEUE] = {"--queue", "N", "requests", DEFAULT_QUEUE,
                 "searches and plans waiting for a compute thread; more: 503 busy", INT(0, 1024),
                 "Limits"},
    [S_LOG] = {"--log", NULL, NULL, "off", "one line per request on standard error", SWITCH,
               "Output"},
};

void cmd_serve_help(FILE *f)
{
    fprintf(f,
            "usage: trainplan serve [--port N] [--bind ADDR] [flags]\n\n"
            "Serves the interactive planner page and its JSON API. Pick a model (a preset\n"
            "or a pasted config.json) and a cluster, move the layout controls, and see at\n"
            "once the memory per GPU by component against capacity (out of memory: the\n"
            "fitting layout the search gives, or the constraint that binds), the step\n"
            "time, MFU, cost and the pipeline schedule. A search panel ranks every\n"
            "layout in a table (DP, SP, accumulation; Load puts one into the controls)\n"
            "and a scatter of step time against memory (hollow: the closest that do not\n"
            "fit). A plan panel (tokens, deadline, budget, MFU, price, phases) answers as\n"
            "`trainplan plan` in words, with a timeline of phases and checkpoints and a\n"
            "deadline -> GPUs and cost curve. The address bar holds the configuration.\n"
            "The page and its files are compiled into trainplan; nothing is fetched from\n"
            "the internet.\n\n"
            "API (request bodies are JSON objects of the estimate flags, e.g.\n"
            "{\"model\": \"llama-3-8b\", \"gpus\": 8, \"tp\": 2}; answers are the CLI's --json):\n"
            "  GET  /api/presets    POST /api/estimate    POST /api/search    POST /api/plan\n"
            "  POST /api/explain\n"
            "See docs/serve.md. Stop the server with Ctrl-C (SIGINT) or SIGTERM.\n");
    cli_print_flags(f, serve_flags, S_COUNT);
    fprintf(f, "\nExit codes: 0 stopped by a signal, 2 bad flags, address or port in use,\n"
               "4 internal error.\n\n"
               "Examples:\n"
               "  trainplan serve                 # http://127.0.0.1:" DEFAULT_PORT "/\n"
               "  trainplan serve --port 0        # any free port; the URL is printed\n");
}

/* The flags of serve only: no configuration flags. */
static int parse(int argc, char **argv, const char **vals)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        const cli_flag *fl = NULL;
        size_t k = 0;
        for (; k < S_COUNT; k++) {
            if (strlen(serve_flags[k].name) == len && strncmp(serve_flags[k].name, arg, len) == 0) {
                fl = &serve_flags[k];
                break;
            }
        }
        if (!fl) {
            const char *best = NULL;
            int best_d = 99;
            for (size_t j = 0; j < S_COUNT; j++) {
                int d = cli_edit_distance(arg, serve_flags[j].name);
                if (d < best_d) {
                    best_d = d;
                    best = serve_flags[j].name;
                }
            }
            if (arg[0] != '-')
                fprintf(stderr,
                        "trainplan: error: unexpected argument \"%s\" (serve takes only "
                        "flags)\n",
                        arg);
            else if (best && best_d <= 3)
                fprintf(stderr, "trainplan: error: unknown flag \"%s\" (did you mean \"%s\"?)\n",
                        arg, best);
            else
                fprintf(stderr, "trainplan: error: unknown flag \"%s\"\n", arg);
            return CLI_EXIT_USAGE;
        }
        if (fl->kind == CLI_SWITCH) {
            if (eq) {
                fprintf(stderr, "trainplan: error: %s takes no value (got \"%s\")\n", fl->name,
                        eq + 1);
                return CLI_EXIT_USAGE;
            }
            vals[k] = "";
            continue;
        }
        if (eq) {
            vals[k] = eq + 1;
        } else if (i + 1 < argc) {
            vals[k] = argv[++i];
        } else {
            fprintf(stderr, "trainplan: error: %s needs a value\n", fl->name);
            return CLI_EXIT_USAGE;
        }
        if (vals[k][0] == '\0') {
            fprintf(stderr, "trainplan: error: %s needs a value\n", fl->name);
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}

static int get_uint(int id, const char **vals, const char *def, int64_t *out)
{
    tp_error err = {0};
    const char *v = vals[id] ? vals[id] : def;
    if (cli_flag_i64(&serve_flags[id], v, out, &err) != TP_OK)
        return cli_error_print(&err, NULL);
    return CLI_EXIT_OK;
}

int cmd_serve(int argc, char **argv)
{
    const char *vals[S_COUNT] = {0};
    int rc = parse(argc, argv, vals);
    if (rc != CLI_EXIT_OK)
        return rc;
    int64_t port, threads, max_conn, timeout_s, compute_threads, queue;
    if ((rc = get_uint(S_PORT, vals, DEFAULT_PORT, &port)) != CLI_EXIT_OK ||
        (rc = get_uint(S_THREADS, vals, "4", &threads)) != CLI_EXIT_OK ||
        (rc = get_uint(S_MAX_CONN, vals, "64", &max_conn)) != CLI_EXIT_OK ||
        (rc = get_uint(S_TIMEOUT, vals, "15", &timeout_s)) != CLI_EXIT_OK ||
        (rc = get_uint(S_COMPUTE_THREADS, vals, DEFAULT_COMPUTE_THREADS, &compute_threads)) !=
            CLI_EXIT_OK ||
        (rc = get_uint(S_QUEUE, vals, DEFAULT_QUEUE, &queue)) != CLI_EXIT_OK)
        return rc;
    double time_limit_s = 0.0;
    tp_error err = {0};
    if (cli_flag_f64(&serve_flags[S_TIME_LIMIT],
                     vals[S_TIME_LIMIT] ? vals[S_TIME_LIMIT] : DEFAULT_TIME_LIMIT, &time_limit_s,
                     &err) != TP_OK)
        return cli_error_print(&err, NULL);
#ifdef TP_HAVE_WEB
    tp_web_opts o = {
        .bind = vals[S_BIND] ? vals[S_BIND] : DEFAULT_BIND,
        .port = (uint16_t)port,
        .allow_remote = vals[S_ALLOW_REMOTE] != NULL,
        .threads = (unsigned)threads,
        .max_connections = (unsigned)max_conn,
        .timeout_s = (unsigned)timeout_s,
        .log = vals[S_LOG] != NULL,
        .time_limit_s = time_limit_s,
        .compute_threads = (unsigned)compute_threads,
        .queue = (unsigned)queue,
    };
    cli_help_is_not_a_flag();
    return tp_web_serve(&o);
#else
    (void)time_limit_s; /* unused without the server */
    (void)compute_threads;
    (void)queue;
    fprintf(stderr, "trainplan: error: this trainplan was built without the web server "
                    "(libmicrohttpd not found or -DTP_WEB=OFF); install libmicrohttpd-dev "
                    "and rebuild\n");
    return CLI_EXIT_USAGE;
#endif
}
