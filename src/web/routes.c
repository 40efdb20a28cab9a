/* SPDX-License-Identifier: MIT */
/*
 * routes.c: the web API and the page's files, as request -> reply
 * functions with no MHD types in them (see web.h).
 *
 *   GET  /                 the planner page (web/index.html)
 *   GET  /<file>           its scripts and styles (web/, compiled in)
 *   GET  /api/presets      = trainplan presets --json
 *   POST /api/estimate     = trainplan estimate --json <flags from the body>
 *   POST /api/search       = trainplan search --json   (501 until search exists)
 *   POST /api/plan         = trainplan plan --json     (501 until plan exists)
 *
 * Handlers are thin: parse -> library -> the CLI's serializer. A body is a
 * JSON object of CLI flags (src/io/request.h), turned into an argument
 * vector and parsed by the CLI's own cli_parse_config, so that the answer
 * (or the error message) is the CLI's. JSON is written exactly as the
 * CLI's --json writes it (2-space indent, final newline), so a reply and
 * the CLI's standard output are byte for byte the same.
 *
 * Status codes: 200; 400 bad input (TP_ERR_PARSE, _CONFIG, _INVALID_ARG,
 * _UNKNOWN, _RANGE); 404 no such route; 405 wrong method (with Allow);
 * 413 body too large and 415 not JSON (server.c); 501 not available yet;
 * 500 only for out-of-memory or a bug (TP_ERR_NOMEM, TP_ERR_INTERNAL).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "assets.h"
#include "cli.h"
#include "io_internal.h"
#include "request.h"
#include "web.h"

#define JSON_TYPE "application/json"
/* The dump flags of cli_json_print (src/cli/opts.c): the HTTP test compares
 * replies with the CLI's stdout byte for byte, so a change there shows. */
#define CLI_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

typedef void (*body_handler)(const tp_web_request *rq, tp_web_reply *out);
typedef void (*get_handler)(tp_web_reply *out);

static void api_presets(tp_web_reply *out);
static void api_estimate(const tp_web_request *rq, tp_web_reply *out);
static void api_search(const tp_web_request *rq, tp_web_reply *out);
static void api_plan(const tp_web_request *rq, tp_web_reply *out);

typedef struct route {
    const char *path;
    const char *method; /* "GET" (HEAD too) or "POST" */
    get_handler get;
    body_handler post;
} route;

static const route routes[] = {
    {"/api/presets", "GET", api_presets, NULL},
    {"/api/estimate", "POST", NULL, api_estimate},
    {"/api/search", "POST", NULL, api_search},
    {"/api/plan", "POST", NULL, api_plan},
};

#define NUM_ROUTES (sizeof routes / sizeof routes[0])

static double now_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ---- replies ---- */

void tp_web_reply_free(tp_web_reply *r)
{
    if (r && r->owned)
        free((void *)(uintptr_t)r->body);
    if (r) {
        r->body = NULL;
        r->owned = false;
    }
}

static void reply_init(tp_web_reply *out)
{
    memset(out, 0, sizeof *out);
    out->handler_ms = -1.0;
    out->cli_exit = -1;
}

/* The last resort when even an error body cannot be built. */
static void reply_static(tp_web_reply *out, unsigned status, const char *body)
{
    out->status = status;
    out->content_type = JSON_TYPE;
    out->body = body;
    out->len = strlen(body);
    out->owned = false;
}

static const char oom_body[] =
    "{\"error\": {\"code\": \"nomem\", \"path\": \"\", \"line\": 0, \"column\": 0, "
    "\"message\": \"out of memory\"}}\n";

/* Steals j. Written as cli_json_print writes it, with the final newline. */
static void reply_json(tp_web_reply *out, unsigned status, json_t *j)
{
    char *s = j ? json_dumps(j, CLI_JSON_FLAGS) : NULL;
    json_decref(j);
    if (!s) {
        reply_static(out, 500, oom_body);
        return;
    }
    size_t n = strlen(s);
    char *body = realloc(s, n + 2);
    if (!body) {
        free(s);
        reply_static(out, 500, oom_body);
        return;
    }
    body[n] = '\n';
    body[n + 1] = '\0';
    out->status = status;
    out->content_type = JSON_TYPE;
    out->body = body;
    out->len = n + 1;
    out->owned = true;
}

static unsigned http_status(tp_status st)
{
    switch (st) {
    case TP_ERR_INVALID_ARG:
    case TP_ERR_PARSE:
    case TP_ERR_CONFIG:
    case TP_ERR_UNKNOWN:
    case TP_ERR_RANGE:
    case TP_ERR_IO: return 400;
    default: return 500;
    }
}

static void reply_tp_error(tp_web_reply *out, const tp_error *err)
{
    reply_json(out, http_status(err->code), tp_io_error_json(err, NULL));
}

void tp_web_reply_error(tp_web_reply *out, unsigned status, const char *code, const char *path,
                        const char *message)
{
    tp_error err = {0};
    err.code = TP_ERR_INVALID_ARG;
    snprintf(err.path, sizeof err.path, "%s", path ? path : "");
    snprintf(err.message, sizeof err.message, "%s", message);
    reply_json(out, status, tp_io_error_json(&err, code));
}

/* ---- configuration from a request body ---- */

/*
 * Body -> tp_config through the CLI's parser, with "model-config" standing
 * in for `--model FILE`. extra: the command's own flags, or NULL.
 */
static tp_status config_from_body(const char *body, size_t len, const char *command,
                                  const cli_extra *extra, tp_config *c, tp_error *err)
{
    tp_io_request rq;
    tp_status st = tp_io_request_parse(body, len, command, &rq, err);
    if (st != TP_OK)
        return st;
    cli_common co;
    int argi = 1;
    st = cli_parse_config_from(rq.argc, rq.argv, &argi, extra, CLI_PRESETS_ONLY, c, &co, err);
    if (st == TP_OK && argi < rq.argc)
        st = tp_error_set(err, TP_ERR_CONFIG, "", "unexpected argument \"%s\"", rq.argv[argi]);
    if (st == TP_OK && rq.model_text)
        st = tp_io_request_model(&rq, &c->model, err);
    tp_io_request_free(&rq);
    return st;
}

/* ---- handlers ---- */

static void api_presets(tp_web_reply *out)
{
    tp_error err = {0};
    json_t *j = tp_io_presets_json(&err);
    if (!j) {
        if (err.code == TP_OK)
            err.code = TP_ERR_INTERNAL;
        reply_tp_error(out, &err);
        return;
    }
    reply_json(out, 200, j);
}

static void api_estimate(const tp_web_request *rq, tp_web_reply *out)
{
    tp_config c;
    tp_result r;
    tp_error err = {0};
    if (config_from_body(rq->body, rq->body_len, "estimate", NULL, &c, &err) != TP_OK ||
        tp_eval(&c, &r, &err) != TP_OK) {
        reply_tp_error(out, &err);
        return;
    }
    json_t *j = tp_io_result_json(&c, &r);
    if (!j) {
        tp_error_set(&err, TP_ERR_INTERNAL, "",
                     "the result holds a non-finite number (a bug in trainplan; please report "
                     "the request)");
        reply_tp_error(out, &err);
        return;
    }
    reply_json(out, 200, j);
}

static void not_yet(tp_web_reply *out, const char *what, const char *path)
{
    char msg[160];
    snprintf(msg, sizeof msg, "%s is not available yet in this build of trainplan", what);
    tp_web_reply_error(out, 501, "not-implemented", path, msg);
}

/* ---- search and plan: the CLI command in a child process (cli_run.c) ---- */

/*
 * The commands, when linked in (weak: NULL in a build without them). The
 * child runs the same binary, so a command linked here is one it has.
 */
extern int cmd_search(int argc, char **argv) __attribute__((weak));
extern int cmd_plan(int argc, char **argv) __attribute__((weak));

/* The commands' own flag tables (weak like the commands themselves). */
extern const cli_flag *cmd_search_flags(size_t *count) __attribute__((weak));
extern const cli_flag *cmd_plan_flags(size_t *count) __attribute__((weak));

/*
 * A request may pass a command's own flags (its table in cmd_search.c or
 * cmd_plan.c) except these: they name a file (--plan-file, --svg, --force)
 * or change the output format (the answer is always the --json one). A
 * refused flag goes on to cli_parse_config with the configuration flags and
 * is rejected there as unknown, so no flag that names a file or changes the
 * output format ever reaches the child.
 */
static const char *const refused[] = {"--csv",   "--markdown",     "--svg",        "--force",
                                      "--plan-file", "--lr-schedule", "--lr-points", NULL};

/* The flag name of "--key=value" / "--key" is k[0..n). */
static bool same_flag(const char *arg, const char *name)
{
    size_t n = strcspn(arg, "=");
    return strlen(name) == n && strncmp(name, arg, n) == 0;
}

/* arg ("--key" or "--key=value") is one of the command's own flags that a
 * request may pass to it. */
static bool command_flag(const char *arg, const cli_flag *flags, size_t count)
{
    for (size_t i = 0; refused[i]; i++)
        if (same_flag(arg, refused[i]))
            return false;
    for (size_t i = 0; i < count; i++)
        if (same_flag(arg, flags[i].name))
            return true;
    return false;
}

/* Write the pasted model into a fresh private folder as model-config.json. */
static tp_status model_file(const char *text, char *dir, size_t dir_size, char *path,
                            size_t path_size, tp_error *err)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 200)
        tmp = "/tmp";
    snprintf(dir, dir_size, "%s/trainplan-serve-XXXXXX", tmp);
    if (!mkdtemp(dir))
        return tp_error_set(err, TP_ERR_INTERNAL, "model-config",
                            "cannot create a temporary folder for the pasted config");
    snprintf(path, path_size, "%s/model-config.json", dir);
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok) {
        remove(path);
        rmdir(dir);
        dir[0] = '\0';
        return tp_error_set(err, TP_ERR_INTERNAL, "model-config",
                            "cannot write the pasted config to a temporary file");
    }
    return TP_OK;
}

/* A CLI error line "trainplan: error: --flag: message" as an error reply. */
static void reply_cli_error(tp_web_reply *out, unsigned status, const tp_web_run *run,
                            const char *fallback)
{
    static const char prefix[] = "trainplan: error: ";
    tp_error err = {0};
    err.code = status == 400 ? TP_ERR_INVALID_ARG : TP_ERR_INTERNAL;
    const char *line = run->err ? strstr(run->err, prefix) : NULL;
    if (line) {
        line += sizeof prefix - 1;
        size_t n = strcspn(line, "\n");
        snprintf(err.message, sizeof err.message, "%.*s", (int)n, line);
        if (strncmp(line, "--", 2) == 0) {
            size_t k = strcspn(line + 2, ": \n");
            if (line[2 + k] == ':')
                snprintf(err.path, sizeof err.path, "%.*s", (int)k, line + 2);
        }
    } else {
        snprintf(err.message, sizeof err.message, "%s", fallback);
    }
    reply_json(out, status, tp_io_error_json(&err, NULL));
}

/* A whole number in decimal, all of s. */
static bool parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s || strlen(s) > 19)
        return false;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end != '\0')
        return false;
    *out = (int64_t)v;
    return true;
}

/* The query string's "offset" and "limit" (search): they override the body's. */
static tp_status page_from_query(const tp_web_request *hr, tp_io_request *rq, tp_error *err)
{
    for (size_t i = 0; i < hr->num_query; i++) {
        const char *k = hr->query[i].name;
        if (!k || (strcmp(k, "offset") != 0 && strcmp(k, "limit") != 0))
            continue; /* other arguments are ignored, as on every route */
        int64_t v;
        if (!parse_i64(hr->query[i].value, &v))
            return tp_error_set(err, TP_ERR_CONFIG, k,
                                "\"%s\" in the query string must be a whole number", k);
        tp_status st = tp_io_request_page(rq, k, v, err);
        if (st != TP_OK)
            return st;
    }
    return TP_OK;
}

/*
 * One page of the child's JSON array (the CLI's objects, unchanged):
 * {"total": N, "offset": O, "limit": L, "results": [...]}. NULL when the
 * output is not an array (a bug) or memory runs out.
 */
static json_t *page_json(const char *text, size_t len, int64_t offset, int64_t limit)
{
    bool oom = false;
    json_t *all = tp_io__json_loads(text, len, 0, NULL, &oom);
    if (!json_is_array(all)) {
        json_decref(all);
        return NULL;
    }
    size_t total = json_array_size(all);
    json_t *results = json_array();
    for (size_t i = (size_t)offset; results && i < total && i < (size_t)(offset + limit); i++)
        if (json_array_append(results, json_array_get(all, i)) != 0) {
            json_decref(results);
            results = NULL;
        }
    json_decref(all);
    if (!results)
        return NULL;
    return json_pack("{s:I, s:I, s:I, s:o}", "total", (json_int_t)total, "offset",
                     (json_int_t)offset, "limit", (json_int_t)limit, "results", results);
}

static void run_command(const char *command, const cli_flag *flags, size_t nflags,
                        const tp_web_request *hr,
                        tp_web_reply *out)
{
    tp_io_request rq;
    tp_error err = {0};
    if (tp_io_request_parse(hr->body, hr->body_len, command, &rq, &err) != TP_OK ||
        (strcmp(command, "search") == 0 && page_from_query(hr, &rq, &err) != TP_OK)) {
        tp_io_request_free(&rq);
        reply_tp_error(out, &err);
        return;
    }
    char dir[256] = "", path[300] = "";
    char *model_flag = NULL;
    tp_web_run run = {0};
    bool ran = false;
    tp_config c;
    cli_common co;
    int argi = 1, nc = 0, na = 0;
    /* the in-process check's argv, and the child's: "trainplan", command, "--json", flags, --model */
    char **common = calloc((size_t)rq.argc + 1, sizeof *common);
    char **argv = calloc((size_t)rq.argc + 6, sizeof *argv);
    if (!common || !argv) {
        tp_error_set(&err, TP_ERR_NOMEM, "", "out of memory");
        goto fail;
    }
    common[nc++] = rq.argv[0];
    argv[na++] = (char *)(uintptr_t) "trainplan";
    argv[na++] = rq.argv[0];
    argv[na++] = (char *)(uintptr_t) "--json";
    bool top_given = false;
    for (int i = 1; i < rq.argc; i++) {
        if (!command_flag(rq.argv[i], flags, nflags))
            common[nc++] = rq.argv[i];
        top_given |= strncmp(rq.argv[i], "--top=", 6) == 0;
        argv[na++] = rq.argv[i];
    }
    /* a page of the whole ranked list: every layout the CLI can rank */
    if (rq.paged && !top_given)
        argv[na++] = (char *)(uintptr_t) "--top=" TP_WEB_SEARCH_MAX_TOP_TEXT;
    if (cli_parse_config_from(nc, common, &argi, NULL, CLI_PRESETS_ONLY, &c, &co, &err) != TP_OK)
        goto fail;
    if (rq.model_text) {
        if (tp_io_request_model(&rq, &c.model, &err) != TP_OK ||
            model_file(rq.model_text, dir, sizeof dir, path, sizeof path, &err) != TP_OK)
            goto fail;
        size_t n = strlen(path) + sizeof "--model=";
        model_flag = malloc(n);
        if (!model_flag) {
            tp_error_set(&err, TP_ERR_NOMEM, "", "out of memory");
            goto fail;
        }
        snprintf(model_flag, n, "--model=%s", path);
        argv[na++] = model_flag;
    }
    argv[na] = NULL;
    if (tp_web_run_cli(argv, TP_WEB_RUN_TIMEOUT_S, TP_WEB_RUN_MAX_BYTES, &run) != 0) {
        tp_error_set(&err, TP_ERR_INTERNAL, "", "could not start `trainplan %s`", command);
        goto fail;
    }
    ran = true;
    if (run.timed_out) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "`trainplan %s` ran past %d s and was stopped; narrow it (fix more axes, "
                 "lower the max-* bounds)",
                 command, TP_WEB_RUN_TIMEOUT_S);
        tp_web_reply_error(out, 503, "timeout", "", msg);
    } else if (run.too_big) {
        tp_web_reply_error(out, 500, "too-large", "", "the answer is larger than 16 MiB");
    } else if ((run.exit_code == 0 || run.exit_code == 1) && run.out && rq.paged) {
        json_t *page = page_json(run.out, run.out_len, rq.offset, rq.limit);
        if (!page) {
            tp_error_set(&err, TP_ERR_INTERNAL, "",
                         "`trainplan %s --json` did not print a JSON array (a bug in trainplan)",
                         command);
            goto fail;
        }
        reply_json(out, 200, page);
        out->cli_exit = run.exit_code;
    } else if ((run.exit_code == 0 || run.exit_code == 1) && run.out) {
        /* 0: found; 1: nothing fits (the closest layouts): both are answers */
        out->status = 200;
        out->content_type = JSON_TYPE;
        out->body = run.out;
        out->len = run.out_len;
        out->owned = true;
        out->cli_exit = run.exit_code;
        run.out = NULL;
    } else if (run.exit_code == 2) {
        reply_cli_error(out, 400, &run, "bad input");
    } else {
        reply_cli_error(out, 500, &run, "the command failed (a bug in trainplan)");
    }
    goto done;
fail:
    reply_tp_error(out, &err);
done:
    if (ran)
        tp_web_run_free(&run);
    if (dir[0]) {
        remove(path);
        rmdir(dir);
    }
    free(model_flag);
    free(argv);
    free(common);
    tp_io_request_free(&rq);
}

static void api_search(const tp_web_request *rq, tp_web_reply *out)
{
    if (!cmd_search || !cmd_search_flags) {
        not_yet(out, "search", "/api/search");
        return;
    }
    size_t n = 0;
    const cli_flag *flags = cmd_search_flags(&n);
    run_command("search", flags, n, rq, out);
}

static void api_plan(const tp_web_request *rq, tp_web_reply *out)
{
    if (!cmd_plan || !cmd_plan_flags) {
        not_yet(out, "plan", "/api/plan");
        return;
    }
    size_t n = 0;
    const cli_flag *flags = cmd_plan_flags(&n);
    run_command("plan", flags, n, rq, out);
}

/* ---- the router ---- */

const char *tp_web_header(const tp_web_request *rq, const char *name)
{
    for (size_t i = 0; i < rq->num_headers; i++)
        if (rq->headers[i].name && strcasecmp(rq->headers[i].name, name) == 0)
            return rq->headers[i].value ? rq->headers[i].value : "";
    return NULL;
}

static const tp_web_asset *find_asset(const char *url)
{
    if (strcmp(url, "/") == 0)
        url = "/index.html";
    for (size_t i = 0; i < tp_web_asset_count; i++)
        if (strcmp(tp_web_assets[i].path, url) == 0)
            return &tp_web_assets[i];
    return NULL;
}

static void method_not_allowed(tp_web_reply *out, const char *method, const char *url,
                               const char *allow)
{
    char msg[200];
    snprintf(msg, sizeof msg, "%.16s is not allowed on %.100s (use %s)", method, url, allow);
    tp_web_reply_error(out, 405, "method-not-allowed", url, msg);
    out->allow = allow;
}

/* The Host header names this server (DNS-rebinding guard when bound to loopback). */
static bool host_ok(const tp_web_site *site, const tp_web_request *rq)
{
    if (!site || !site->check_host)
        return true;
    const char *h = tp_web_header(rq, "Host");
    if (!h)
        return true; /* HTTP/1.0 without Host: not a browser, so not a rebinding attack */
    if (site->port == 0 || !site->addr)
        return false;
    char want[2][80];
    snprintf(want[0], sizeof want[0], "%.60s:%u", site->addr, site->port);
    snprintf(want[1], sizeof want[1], "localhost:%u", site->port);
    return strcasecmp(h, want[0]) == 0 || strcasecmp(h, want[1]) == 0;
}

/* "application/json", optionally with parameters ("; charset=utf-8"). */
static bool is_json_type(const char *ct)
{
    static const char want[] = "application/json";
    if (!ct || strncasecmp(ct, want, sizeof want - 1) != 0)
        return false;
    char next = ct[sizeof want - 1];
    return next == '\0' || next == ';' || next == ' ';
}

static void reply_too_large(tp_web_reply *out)
{
    char msg[128];
    snprintf(msg, sizeof msg, "the request body is larger than %zu bytes", TP_WEB_MAX_BODY);
    tp_web_reply_error(out, 413, "too-large", "", msg);
}

/* The checks of a POST route's headers; true when the body may be read. */
static bool post_headers_ok(const tp_web_request *rq, tp_web_reply *out)
{
    if (!is_json_type(tp_web_header(rq, "Content-Type"))) {
        tp_web_reply_error(out, 415, "unsupported-media-type", "Content-Type",
                           "the request body must be JSON (Content-Type: application/json)");
        return false;
    }
    const char *cl = tp_web_header(rq, "Content-Length");
    if (!cl) {
        tp_web_reply_error(out, 411, "length-required", "Content-Length",
                           "the request needs a Content-Length (bodies of unknown length are "
                           "not accepted)");
        return false;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long n = strtoull(cl, &end, 10);
    if (errno == ERANGE || end == cl || *end != '\0' || cl[0] == '-' || n > TP_WEB_MAX_BODY) {
        reply_too_large(out);
        return false;
    }
    return true;
}

tp_web_step tp_web_begin(const tp_web_site *site, const tp_web_request *rq, tp_web_reply *out)
{
    reply_init(out);
    const char *method = rq->method ? rq->method : "";
    const char *url = rq->path ? rq->path : "";
    if (!host_ok(site, rq)) {
        tp_web_reply_error(out, 403, "forbidden-host", "Host",
                           "the Host header does not name this server's loopback address "
                           "(a guard against DNS rebinding); open the URL trainplan printed");
        return TP_WEB_DONE;
    }
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    for (size_t i = 0; i < NUM_ROUTES; i++) {
        const route *rt = &routes[i];
        if (strcmp(url, rt->path) != 0)
            continue;
        if (rt->get && get) {
            double t0 = now_ms();
            rt->get(out);
            out->handler_ms = now_ms() - t0;
            return TP_WEB_DONE;
        }
        if (rt->post && strcmp(method, "POST") == 0)
            return post_headers_ok(rq, out) ? TP_WEB_NEEDS_BODY : TP_WEB_DONE;
        method_not_allowed(out, method, url, rt->get ? "GET, HEAD" : "POST");
        return TP_WEB_DONE;
    }
    const tp_web_asset *a = find_asset(url);
    if (a) {
        if (!get) {
            method_not_allowed(out, method, url, "GET, HEAD");
            return TP_WEB_DONE;
        }
        out->status = 200;
        out->content_type = a->content_type;
        out->body = (const char *)a->data;
        out->len = a->size;
        out->is_asset = true;
        return TP_WEB_DONE;
    }
    char msg[200];
    snprintf(msg, sizeof msg, "no such page or API route: %.120s", url);
    tp_web_reply_error(out, 404, "not-found", url, msg);
    return TP_WEB_DONE;
}

void tp_web_finish(const tp_web_request *rq, tp_web_reply *out)
{
    reply_init(out);
    const char *url = rq->path ? rq->path : "";
    if (rq->body_too_large || rq->body_len > TP_WEB_MAX_BODY) {
        reply_too_large(out);
        return;
    }
    for (size_t i = 0; i < NUM_ROUTES; i++) {
        if (routes[i].post && strcmp(url, routes[i].path) == 0) {
            double t0 = now_ms();
            routes[i].post(rq, out);
            out->handler_ms = now_ms() - t0;
            return;
        }
    }
    tp_web_reply_error(out, 404, "not-found", url, "no such API route");
}

void tp_web_handle(const tp_web_site *site, const tp_web_request *rq, tp_web_reply *out)
{
    if (tp_web_begin(site, rq, out) == TP_WEB_NEEDS_BODY)
        tp_web_finish(rq, out);
}
