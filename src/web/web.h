/* SPDX-License-Identifier: MIT */
/**
 * web.h: `trainplan serve`, the planner page and its JSON API over
 * libmicrohttpd (src/web/). Not part of libtp.
 *
 * Two layers, so that the routes can be tested and fuzzed without a
 * socket:
 *  - routes.c: the router, a pure function of the request (method, path,
 *    query, headers, body: tp_web_request) to a reply (status, headers,
 *    body: tp_web_reply), with no MHD types. A request is handled in two
 *    steps: tp_web_begin() sees everything but the body (before any body
 *    is read) and answers what needs no body, including the Host guard
 *    and the 411/413/415 checks; tp_web_finish() answers a POST route
 *    once its body (at most TP_WEB_MAX_BODY bytes) is in. tp_web_handle()
 *    does both for a request whose body is whole (the fuzz target).
 *    /api/search, /api/plan and /api/explain are parsed by tp_web_finish into a
 *    tp_web_job, run by tp_web_job_run with a deadline on a compute
 *    thread; no process is ever started and no file is ever read.
 *    routes.c and the page's files form the MHD-free library tpweb_core.
 *  - server.c: the libmicrohttpd glue: binding, limits, security headers,
 *    body accumulation with the size cap, the compute pool (a bounded
 *    queue; connections suspended while their job runs), and the signal
 *    loop.
 */
#ifndef TP_WEB_H
#define TP_WEB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Request bodies above this many bytes are answered 413. */
#define TP_WEB_MAX_BODY ((size_t)64 * 1024)

/** What `trainplan serve` was asked for (cmd_serve.c fills it). */
typedef struct tp_web_opts {
    const char *bind;  /* numeric IPv4/IPv6 address or "localhost" */
    uint16_t port;     /* 0: any free port */
    bool allow_remote; /* permit a non-loopback bind address */
    unsigned threads;  /* worker threads (1..64) */
    unsigned max_connections;
    unsigned timeout_s;       /* idle time after which a connection is closed */
    bool log;                 /* one line per request on stderr */
    double time_limit_s;      /* deadline of a search or plan, from its arrival */
    unsigned compute_threads; /* threads running searches and plans (1..64) */
    unsigned queue;           /* searches and plans waiting for one (0..1024); more: 503 */
} tp_web_opts;

/** Defaults of `trainplan serve` (docs/serve.md). */
#define TP_WEB_DEFAULT_TIME_LIMIT_S 5.0
#define TP_WEB_DEFAULT_COMPUTE_THREADS 2
#define TP_WEB_DEFAULT_QUEUE 16

/**
 * Serve until SIGINT or SIGTERM. Prints "trainplan: serving on URL" on
 * stdout once listening. Returns the process exit status: 0 after a clean
 * stop, 2 for a bad address or a port in use, 4 when the server cannot
 * start for another reason.
 */
int tp_web_serve(const tp_web_opts *o);

/** A reply built by the routes; server.c turns it into an MHD response. */
typedef struct tp_web_reply {
    unsigned status;          /* HTTP status */
    const char *content_type; /* static string */
    const char *body;         /* static data, or malloc'd when owned */
    size_t len;               /* bytes of body */
    bool owned;               /* body must be free()d (MHD does it) */
    bool is_asset;            /* a static page file (cacheable) */
    const char *allow;        /* Allow header (405), or NULL */
    int cli_exit;             /* X-Trainplan-Exit: the CLI's exit code (0/1); -1 none */
    double handler_ms;        /* time spent computing it (Server-Timing); < 0 none */
    unsigned retry_after_s;   /* Retry-After header (a 503 for a full queue); 0 none */
} tp_web_reply;

/** A name and a value: one request header or one query argument. */
typedef struct tp_web_kv {
    const char *name;
    const char *value;
} tp_web_kv;

/** What the router knows of the server it answers for. */
typedef struct tp_web_site {
    bool check_host;     /* bound to loopback: a Host header must name this server */
    const char *addr;    /* the bound address as a URL host: "127.0.0.1", "[::1]" */
    unsigned port;       /* the bound port; 0 while unknown (no Host matches then) */
    double time_limit_s; /* tp_web_handle's deadline for a job; 0: the default */
} tp_web_site;

/**
 * One HTTP request, as plain strings (no MHD types): what the router needs
 * and what the fuzz target (tests/fuzz/fuzz_http.c) makes up. Strings are
 * NUL-terminated and borrowed for the duration of the call.
 */
typedef struct tp_web_request {
    const char *method;     /* "GET", "POST", ... */
    const char *version;    /* "HTTP/1.1", ...; NULL when unknown (no Host check then) */
    const char *path;       /* the URL path, decoded, without the query */
    const tp_web_kv *query; /* query arguments, decoded, in order */
    size_t num_query;
    const tp_web_kv *headers; /* request headers, every occurrence (a duplicate Host or
                                  Content-Length is a 400); names are case-insensitive */
    size_t num_headers;
    const char *body; /* step 2: the body (body_len bytes, not NUL-terminated) */
    size_t body_len;
    bool body_too_large; /* step 2: more than TP_WEB_MAX_BODY came and was dropped */
} tp_web_request;

typedef enum tp_web_step {
    TP_WEB_DONE = 0,     /* *out holds the reply */
    TP_WEB_NEEDS_BODY,   /* read the body (at most TP_WEB_MAX_BODY), then tp_web_finish */
    TP_WEB_NEEDS_COMPUTE /* run the job (tp_web_job_run), off the connection's thread */
} tp_web_step;

/** A parsed /api/search, /api/plan or /api/explain request (routes.c), self-contained. */
typedef struct tp_web_job tp_web_job;

/** When a job must stop: a deadline, and the server's stop flag. */
typedef struct tp_web_limit {
    double end_s;              /* CLOCK_MONOTONIC second at which the deadline passes */
    double limit_s;            /* the time limit, for the message */
    const atomic_bool *cancel; /* true once the server stops; NULL: never */
} tp_web_limit;

/**
 * Step 1, once the headers are in (rq->body unused): 400 for a duplicate
 * Host or Content-Length or an HTTP/1.1 request without Host, the Host
 * guard, the route and method, and for a POST route its Content-Type (415),
 * Content-Length (411 without one, 413 above the cap, all before a byte
 * of the body is read). Fills *out and returns TP_WEB_DONE, or returns
 * TP_WEB_NEEDS_BODY (*out then holds nothing to free).
 */
tp_web_step tp_web_begin(const tp_web_site *site, const tp_web_request *rq, tp_web_reply *out);

/**
 * Step 2, for TP_WEB_NEEDS_BODY: the body is in rq->body. Fills *out and
 * returns TP_WEB_DONE (bad input is answered here, at once), or returns
 * TP_WEB_NEEDS_COMPUTE with *job, a parsed search or plan to run with
 * tp_web_job_run and free with tp_web_job_free.
 */
tp_web_step tp_web_finish(const tp_web_request *rq, tp_web_reply *out, tp_web_job **job);

/**
 * Run a job within lim (the library polls it) and fill *out: 200 with the
 * CLI's --json bytes and cli_exit 0/1, 400/500 as for any request, or 503
 * when the deadline passed or the server is stopping. Thread-safe for
 * distinct jobs; lim must outlive the call.
 */
void tp_web_job_run(tp_web_job *job, const tp_web_limit *lim, tp_web_reply *out);
void tp_web_job_free(tp_web_job *job);

/**
 * The 503 of a job stopped by lim: "shutting-down", or "deadline" with
 * detail (the library's account of how far the search got), or with
 * detail NULL, a job whose deadline passed while it waited in the queue.
 */
void tp_web_reply_stopped(tp_web_reply *out, const tp_web_limit *lim, const char *detail);

/**
 * Both steps on a request whose body is already whole (the fuzz target,
 * tests): a body longer than TP_WEB_MAX_BODY is answered 413; a search or
 * plan runs at once on the caller's thread, within site->time_limit_s.
 * Free an owned reply with tp_web_reply_free. Thread-safe.
 */
void tp_web_handle(const tp_web_site *site, const tp_web_request *rq, tp_web_reply *out);

/** The first header called name (case-insensitive), or NULL. */
const char *tp_web_header(const tp_web_request *rq, const char *name);

/**
 * An error reply {"error": {...}} with the given HTTP status, HTTP-level
 * code name ("not-found", "too-large", ...), path and message.
 */
void tp_web_reply_error(tp_web_reply *out, unsigned status, const char *code, const char *path,
                        const char *message);

/** Free an owned body that was not handed to MHD. */
void tp_web_reply_free(tp_web_reply *r);

/** An empty reply: no body, no X-Trainplan-Exit (-1), no Server-Timing (-1). */
void tp_web_reply_init(tp_web_reply *out);

/**
 * The server's one clock: CLOCK_MONOTONIC in milliseconds or seconds (0 if
 * it cannot be read), for Server-Timing, the log and tp_web_limit.end_s.
 */
double tp_web_now_ms(void);
double tp_web_now_s(void);

/**
 * A page of /api/search ("offset"/"limit") ranks this many layouts (the
 * CLI's largest --top) unless the request gives "top".
 */
#define TP_WEB_SEARCH_MAX_TOP 1000

#endif /* TP_WEB_H */
