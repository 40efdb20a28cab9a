/* SPDX-License-Identifier: MIT */
/*
 * routes.c: the web API and the page's files, as request -> reply
 * functions with no MHD types in them (see web.h).
 *
 *   GET  /                 the planner page (web/index.html)
 *   GET  /<file>           its scripts and styles (web/, compiled in)
 *   GET  /api/presets      = trainplan presets --json
 *   POST /api/estimate     = trainplan estimate --json <flags from the body>
 *   POST /api/search       = trainplan search --json   (a job: run on the compute pool)
 *   POST /api/plan         = trainplan plan --json     (a job: run on the compute pool)
 *   POST /api/explain      = trainplan explain --json  (a job: run on the compute pool)
 *
 * Handlers are thin: parse -> library -> the writer the CLI uses. A body
 * is a JSON object of CLI flags (src/io/request.h): its keys fill the run
 * description (src/io/desc.h) that tp_io_desc_build turns into the
 * tp_config, as for the CLI's flags, and the command's own keys are
 * checked by the command's flag table (cli_parse_config_request,
 * cli_search_parse_request, cli_explain_parse_request,
 * cli_plan_parse_request), always presets only, so that the
 * answer (or the error message) is the CLI's and no value can name a file.
 * JSON is written exactly as the CLI's --json writes it (2-space indent,
 * final newline), so a reply and the CLI's standard output are byte for
 * byte the same.
 *
 * Cheap routes (the page, presets, estimate) are answered on the caller's
 * thread. /api/search, /api/plan and /api/explain are parsed on it (bad input is a 400
 * at once) into a tp_web_job, which server.c runs on its compute pool
 * with a deadline (tp_web_job_run): the library polls a tp_search_stop
 * that reads the clock and the server's stop flag. No process is started.
 *
 * Status codes: 200; 400 bad input (TP_ERR_PARSE, _CONFIG, _INVALID_ARG,
 * _UNKNOWN, _RANGE); 404 no such route; 405 wrong method (with Allow);
 * 413 body too large and 415 not JSON; 503 the deadline passed, the
 * compute queue is full or the server is stopping; 500 only for
 * out-of-memory or a bug (TP_ERR_NOMEM, TP_ERR_INTERNAL).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "assets.h"
#include "cli.h"
#include "explain_out.h"
#include "io_internal.h"
#include "plan_out.h"
#include "request.h"
#include "search_out.h"
#include "web.h"

#define JSON_TYPE "application/json"
/* The dump flags of cli_json_print (src/cli/opts.c): the HTTP test compares
 * replies with the CLI's stdout byte for byte, so a change there shows. */
#define CLI_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

typedef void (*body_handler)(const tp_web_request *rq, tp_web_reply *out);
typedef void (*get_handler)(tp_web_reply *out);

static void api_presets(tp_web_reply *out);
static void api_estimate(const tp_web_request *rq, tp_web_reply *out);

typedef struct route {
    const char *path;
    const char *method; /* "GET" (HEAD too) or "POST" */
    get_handler get;
    body_handler post; /* answered at once (cheap) */
    int job;           /* a job_kind: parsed here, run on the compute pool */
} route;

/* The commands run as jobs (route.job; 0: none). */
enum job_kind { JOB_SEARCH = 1, JOB_PLAN, JOB_EXPLAIN };

static const route routes[] = {
    {"/api/presets", "GET", api_presets, NULL, 0},
    {"/api/estimate", "POST", NULL, api_estimate, 0},
    {"/api/search", "POST", NULL, NULL, JOB_SEARCH},
    {"/api/plan", "POST", NULL, NULL, JOB_PLAN},
    {"/api/explain", "POST", NULL, NULL, JOB_EXPLAIN},
};

#define NUM_ROUTES (sizeof routes / sizeof routes[0])

double tp_web_now_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double tp_web_now_s(void)
{
    return tp_web_now_ms() / 1e3;
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

void tp_web_reply_init(tp_web_reply *out)
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
    tp_error worded = *err; /* the request key, not the CLI flag or the canonical name */
    tp_io_request_word_error(&worded);
    reply_json(out, http_status(err->code), tp_io_error_json(&worded, NULL));
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
 * Body -> tp_config through the run description, with "model-config"
 * standing in for `--model FILE`. extra: the command's own flags, or NULL.
 */
static tp_status config_from_body(const char *body, size_t len, const char *command,
                                  const cli_extra *extra, tp_config *c, tp_error *err)
{
    tp_io_request rq;
    tp_status st = tp_io_request_parse(body, len, command, &rq, err);
    if (st != TP_OK)
        return st;
    cli_common co;
    st = cli_parse_config_request(&rq, extra, c, &co, err);
    if (st == TP_OK)
        st = tp_io_request_inline(&rq, c, err);
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
    json_t *j = tp_io_estimate_json(&c, &r);
    if (!j) {
        tp_error_set(&err, TP_ERR_INTERNAL, "",
                     "the result holds a non-finite number (a bug in trainplan; please report "
                     "the request)");
        reply_tp_error(out, &err);
        return;
    }
    reply_json(out, 200, j);
}

/* ---- search and plan: parsed here, run on the compute pool (server.c) ---- */

/*
 * A parsed /api/search, /api/plan or /api/explain request, self-contained
 * (no pointer into the request): the server queues it and runs it on a
 * compute thread with a deadline, through the same library calls and JSON
 * writers as the CLI's `search --json` / `plan --json` / `explain --json`.
 */
struct tp_web_job {
    enum job_kind kind;
    cli_search_job search;   /* search: the parsed command (its borrowed strings are not used) */
    cli_explain_job explain; /* explain: the parsed command */
    bool paged;              /* search: answer one page {"total", "offset", "limit", "results"} */
    int64_t offset, limit;
    cli_plan_job *plan; /* plan: the parsed command (large, so allocated) */
};

void tp_web_job_free(tp_web_job *job)
{
    if (!job)
        return;
    if (job->plan) {
        cli_plan_job_free(job->plan);
        free(job->plan);
    }
    free(job);
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

/* Parse a job's body; the configuration as the CLI parses it. */
static tp_status job_parse(const tp_web_request *hr, enum job_kind kind, tp_web_job **out,
                           tp_error *err)
{
    *out = NULL;
    tp_io_request rq;
    bool is_plan = kind == JOB_PLAN;
    const char *command = is_plan ? "plan" : kind == JOB_EXPLAIN ? "explain" : "search";
    tp_status st = tp_io_request_parse(hr->body, hr->body_len, command, &rq, err);
    if (st == TP_OK && kind == JOB_SEARCH)
        st = page_from_query(hr, &rq, err);
    tp_web_job *job = NULL;
    if (st == TP_OK && !(job = calloc(1, sizeof *job)))
        st = tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
    if (st == TP_OK && is_plan && !(job->plan = malloc(sizeof *job->plan)))
        st = tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
    if (st == TP_OK && is_plan) {
        job->kind = JOB_PLAN;
        st = cli_plan_parse_request(&rq, job->plan, err);
        if (st == TP_OK)
            st = tp_io_request_inline(&rq, &job->plan->in.base, err);
    } else if (st == TP_OK && kind == JOB_EXPLAIN) {
        job->kind = JOB_EXPLAIN;
        st = cli_explain_parse_request(&rq, &job->explain, err);
        if (st == TP_OK)
            st = tp_io_request_inline(&rq, &job->explain.c, err);
    } else if (st == TP_OK) {
        job->kind = JOB_SEARCH;
        st = cli_search_parse_request(&rq, &job->search, err);
        if (st == TP_OK)
            st = tp_io_request_inline(&rq, &job->search.c, err);
        job->paged = rq.paged;
        job->offset = rq.offset;
        job->limit = rq.limit;
        /* a page of the whole ranked list: every layout the CLI can rank */
        if (rq.paged && !job->search.top_given)
            job->search.top = TP_WEB_SEARCH_MAX_TOP;
    }
    tp_io_request_free(&rq);
    if (st != TP_OK) {
        tp_web_job_free(job);
        return st;
    }
    *out = job;
    return TP_OK;
}

/* The page of the ranked objects; steals all. */
static json_t *page_results(json_t *all, int64_t offset, int64_t limit)
{
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

/*
 * One page of the answer array (the CLI's objects, unchanged):
 * {"total": N, "offset": O, "limit": L, "results": [...]}. Steals all.
 * With "unfit" asked, its last n_unfit objects (the closest layouts that
 * do not fit) are not paged: every page carries them as "unfit": [...].
 */
static json_t *page_json(json_t *all, int64_t offset, int64_t limit, size_t n_unfit)
{
    json_t *unfit = NULL;
    if (n_unfit > 0) {
        size_t ranked = json_array_size(all) - n_unfit;
        unfit = json_array();
        for (size_t i = ranked; unfit && i < json_array_size(all); i++)
            if (json_array_append(unfit, json_array_get(all, i)) != 0) {
                json_decref(unfit);
                unfit = NULL;
            }
        while (unfit && json_array_size(all) > ranked)
            json_array_remove(all, json_array_size(all) - 1);
        if (!unfit) {
            json_decref(all);
            return NULL;
        }
    }
    json_t *page = page_results(all, offset, limit);
    if (page && unfit && json_object_set_new(page, "unfit", unfit) != 0) {
        json_decref(page);
        return NULL;
    }
    if (!page)
        json_decref(unfit);
    return page;
}

/* tp_search_stop's callback: the deadline passed, or the server is stopping. */
static bool limit_reached(void *ctx)
{
    const tp_web_limit *lim = ctx;
    return (lim->cancel && atomic_load(lim->cancel)) || tp_web_now_s() >= lim->end_s;
}

void tp_web_reply_stopped(tp_web_reply *out, const tp_web_limit *lim, const char *detail)
{
    char msg[sizeof((tp_error *)0)->message];
    if (lim->cancel && atomic_load(lim->cancel)) {
        tp_web_reply_error(out, 503, "shutting-down", "",
                           "the server is shutting down; the request was not completed");
        return;
    }
    snprintf(msg, sizeof msg, "the server's time limit of %g s passed%s%.200s", lim->limit_s,
             detail ? "; the search "
                    : " before the request could start (the compute pool was "
                      "busy); retry later or narrow the search",
             detail ? detail : "");
    tp_web_reply_error(out, 503, "deadline", "", msg);
}

void tp_web_job_run(tp_web_job *job, const tp_web_limit *lim, tp_web_reply *out)
{
    tp_web_reply_init(out);
    double t0 = tp_web_now_ms();
    tp_search_stop stop = {limit_reached, (void *)(uintptr_t)lim, 0};
    tp_error err = {0};
    json_t *j = NULL;
    bool found = false;
    tp_status st;
    if (job->kind == JOB_PLAN) {
        tp_plan *plan = malloc(sizeof *plan);
        job->plan->in.stop = stop;
        st = plan ? tp_plan_run(&job->plan->in, plan, &err)
                  : tp_error_set(&err, TP_ERR_NOMEM, "", "out of memory");
        if (st == TP_OK && !(j = tp_io_plan_json(&job->plan->in, plan)))
            st = tp_error_set(&err, TP_ERR_INTERNAL, "",
                              "internal: the plan holds a non-finite number (a bug in "
                              "trainplan; please report the request)");
        found = st == TP_OK && plan->feasible;
        free(plan);
    } else if (job->kind == JOB_EXPLAIN) {
        job->explain.sp.stop = stop;
        st = tp_io_explain_run_json(&job->explain.c, &job->explain.sp, &j, &found, &err);
    } else {
        job->search.sp.stop = stop;
        size_t n_unfit = 0;
        st = tp_io_search_run_json(&job->search.c, &job->search.sp, job->search.by, job->search.top,
                                   job->search.unfit, &j, &found, &n_unfit, NULL, &err);
        if (st == TP_OK && job->paged && !(j = page_json(j, job->offset, job->limit, n_unfit)))
            st = tp_error_set(&err, TP_ERR_NOMEM, "", "out of memory");
    }
    if (st == TP_ERR_STOPPED)
        tp_web_reply_stopped(out, lim, err.message);
    else if (st != TP_OK)
        reply_tp_error(out, &err);
    else {
        reply_json(out, 200, j);
        out->cli_exit = found ? 0 : 1; /* 1: nothing fits (the closest layouts): an answer */
        j = NULL;
    }
    json_decref(j);
    out->handler_ms = tp_web_now_ms() - t0;
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

static size_t header_count(const tp_web_request *rq, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < rq->num_headers; i++)
        n += rq->headers[i].name && strcasecmp(rq->headers[i].name, name) == 0;
    return n;
}

/*
 * RFC 9112: a request with two Host headers, or an HTTP/1.1 request with
 * none, is answered 400 (section 3.2); two Content-Length headers make the
 * body's length ambiguous (request smuggling), so 400 too (section 6.3).
 */
static bool framing_ok(const tp_web_request *rq, tp_web_reply *out)
{
    size_t hosts = header_count(rq, "Host");
    const char *why = NULL;
    if (hosts > 1)
        why = "the request has more than one Host header";
    else if (hosts == 0 && rq->version && strcmp(rq->version, "HTTP/1.1") == 0)
        why = "an HTTP/1.1 request needs a Host header";
    else if (header_count(rq, "Content-Length") > 1)
        why = "the request has more than one Content-Length header";
    if (!why)
        return true;
    tp_web_reply_error(out, 400, "bad-request", "", why);
    return false;
}

tp_web_step tp_web_begin(const tp_web_site *site, const tp_web_request *rq, tp_web_reply *out)
{
    tp_web_reply_init(out);
    const char *method = rq->method ? rq->method : "";
    const char *url = rq->path ? rq->path : "";
    if (!framing_ok(rq, out))
        return TP_WEB_DONE;
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
            double t0 = tp_web_now_ms();
            rt->get(out);
            out->handler_ms = tp_web_now_ms() - t0;
            return TP_WEB_DONE;
        }
        if ((rt->post || rt->job) && strcmp(method, "POST") == 0)
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

tp_web_step tp_web_finish(const tp_web_request *rq, tp_web_reply *out, tp_web_job **job)
{
    tp_web_reply_init(out);
    *job = NULL;
    const char *url = rq->path ? rq->path : "";
    if (rq->body_too_large || rq->body_len > TP_WEB_MAX_BODY) {
        reply_too_large(out);
        return TP_WEB_DONE;
    }
    for (size_t i = 0; i < NUM_ROUTES; i++) {
        if (strcmp(url, routes[i].path) != 0)
            continue;
        double t0 = tp_web_now_ms();
        if (routes[i].post) {
            routes[i].post(rq, out);
        } else if (routes[i].job) {
            tp_error err = {0};
            if (job_parse(rq, (enum job_kind)routes[i].job, job, &err) == TP_OK)
                return TP_WEB_NEEDS_COMPUTE;
            reply_tp_error(out, &err);
        } else {
            break;
        }
        out->handler_ms = tp_web_now_ms() - t0;
        return TP_WEB_DONE;
    }
    tp_web_reply_error(out, 404, "not-found", url, "no such API route");
    return TP_WEB_DONE;
}

void tp_web_handle(const tp_web_site *site, const tp_web_request *rq, tp_web_reply *out)
{
    if (tp_web_begin(site, rq, out) != TP_WEB_NEEDS_BODY)
        return;
    tp_web_job *job;
    if (tp_web_finish(rq, out, &job) != TP_WEB_NEEDS_COMPUTE)
        return;
    double limit_s =
        site && site->time_limit_s > 0.0 ? site->time_limit_s : TP_WEB_DEFAULT_TIME_LIMIT_S;
    tp_web_limit lim = {tp_web_now_s() + limit_s, limit_s, NULL};
    tp_web_job_run(job, &lim, out);
    tp_web_job_free(job);
}
