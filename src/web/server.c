/* SPDX-License-Identifier: MIT */
/*
 * server.c: the libmicrohttpd daemon behind `trainplan serve`.
 *
 * Threads and limits. MHD runs its own polling threads
 * (MHD_USE_INTERNAL_POLLING_THREAD) as a fixed pool of `threads` workers.
 * They answer the cheap routes (the page, presets, estimate: well under a
 * millisecond) themselves and never run a search or a plan: those are
 * parsed on the worker (bad input is a 400 at once), then queued for the
 * compute pool below while the connection is suspended
 * (MHD_ALLOW_SUSPEND_RESUME), so that eight long searches cannot keep
 * `GET /` waiting. At most `max_connections` connections are open at
 * once, and one idle for `timeout_s` seconds is closed
 * (MHD_OPTION_CONNECTION_TIMEOUT; a suspended connection is not idle). The
 * main thread only waits for SIGINT/SIGTERM, then stops the compute pool
 * (which answers what is still queued), then the daemon (which joins the
 * workers), and frees everything, so leak checkers see a clean exit.
 *
 * The compute pool: `compute_threads` threads and a queue of at most
 * `queue` waiting jobs. Every job has a deadline, `time_limit_s` from the
 * moment its body is in; the library polls it (tp_search_stop) and a job
 * still waiting when it passes is not started. A full queue is a 503
 * "busy" with Retry-After, a passed deadline a 503 "deadline", a stopping
 * server a 503 "shutting-down": every request gets a status, and none
 * waits much longer than the deadline.
 *
 * A request, as MHD delivers it (the access handler is called repeatedly):
 *   1. headers only: tp_web_begin() (routes.c) on the method, path, query
 *      and headers: framing (400 for a duplicate Host or Content-Length,
 *      or HTTP/1.1 without Host), the Host guard (DNS rebinding), the
 *      route, and for a
 *      POST route the Content-Type (415 unless JSON) and the
 *      Content-Length: required (411 without one, so a chunked body of
 *      unknown size is never read) and at most the cap (413, before a
 *      byte of the body is read);
 *   2. body pieces: appended to a buffer. Should more arrive than the cap
 *      (not possible with a checked Content-Length; kept as a guard), it
 *      is dropped as it comes (MHD 0.9.75 cannot reply in the middle of a
 *      body) and answered 413 at the end, or cut off after DISCARD_MAX;
 *   3. end of body: tp_web_finish(): a reply, sent now; or a search or
 *      plan job, queued (submit) with the connection suspended;
 *   4. (a job) once a compute thread has put the reply in the request's
 *      state and resumed the connection, MHD calls the handler again and
 *      the reply is sent.
 *
 * Every reply carries the security headers below; the page's policy
 * allows nothing but this server (no inline script or style, no external
 * source of any kind).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <jansson.h>

#include "web.h"

/* Bytes of an over-long chunked body dropped before the connection is cut. */
#define DISCARD_MAX ((size_t)1 << 20)

static const char csp[] = "default-src 'self'; base-uri 'none'; form-action 'self'; "
                          "frame-ancestors 'none'; object-src 'none'";

/* A job waiting for, or running on, a compute thread. */
typedef struct pending {
    struct MHD_Connection *conn; /* suspended until the reply is held */
    struct request_state *rs;
    tp_web_job *job;
    tp_web_limit lim;
    struct pending *next;
} pending;

typedef struct compute_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pending *head, *tail; /* waiting jobs, oldest first */
    unsigned waiting, max_waiting;
    bool stopping;      /* no new jobs; the threads drain the queue and exit */
    atomic_bool cancel; /* running jobs stop at their next poll */
    pthread_t threads[64];
    unsigned num_threads;
    double limit_s;
} compute_pool;

typedef struct server {
    bool check_host;                 /* bound to loopback: only our own names in Host */
    char addr[INET6_ADDRSTRLEN + 2]; /* the bound address as a URL host ("[::1]") */
    atomic_uint port;                /* the bound port; 0 until known (written once, after start) */
    bool log;
    unsigned timeout_s; /* idle timeout of a connection, seconds */
    compute_pool pool;
} server;

/* Per-request state, freed by on_completed. */
typedef struct request_state {
    bool replied;   /* a response has been queued */
    bool too_large; /* the body passed the cap: discarding the rest */
    size_t discarded;
    char *buf; /* the body so far */
    size_t len, cap;
    double t0_ms;
    unsigned status;
    bool holding; /* `held` is the reply, to be sent once the request is in */
    tp_web_reply held;
    char method[12]; /* for the log line */
    char url[100];
} request_state;

/*
 * While MHD_start_daemon runs, its messages (why a bind failed) are kept
 * here rather than printed, so that a failed start prints one line that
 * names the address and the reason, not MHD's line and then ours.
 */
typedef struct start_log {
    atomic_bool capturing;
    char text[256];
} start_log;

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    start_log *sl = cls;
    if (sl && atomic_load(&sl->capturing)) {
        size_t used = strlen(sl->text);
        if (used + 3 < sizeof sl->text) {
            if (used > 0)
                used += (size_t)snprintf(sl->text + used, sizeof sl->text - used, "; ");
            vsnprintf(sl->text + used, sizeof sl->text - used, fmt, ap);
        }
        size_t n = strlen(sl->text);
        while (n > 0 && (sl->text[n - 1] == '\n' || sl->text[n - 1] == '.'))
            sl->text[--n] = '\0';
        return;
    }
    fputs("trainplan: serve: ", stderr);
    vfprintf(stderr, fmt, ap);
    size_t n = strlen(fmt);
    if (n == 0 || fmt[n - 1] != '\n')
        fputc('\n', stderr);
}

/* Add a header; a failure (out of memory) fails the whole response. */
static bool header(struct MHD_Response *r, const char *name, const char *value)
{
    return MHD_add_response_header(r, name, value) == MHD_YES;
}

/* Turn a reply into an MHD response and queue it. Takes ownership of rep->body. */
static enum MHD_Result send_reply(struct MHD_Connection *conn, request_state *rs, tp_web_reply *rep)
{
    struct MHD_Response *r;
    if (rep->owned) {
        r = MHD_create_response_from_buffer(rep->len, (void *)(uintptr_t)rep->body,
                                            MHD_RESPMEM_MUST_FREE);
        if (!r)
            tp_web_reply_free(rep);
    } else {
        r = MHD_create_response_from_buffer(rep->len, (void *)(uintptr_t)rep->body,
                                            MHD_RESPMEM_PERSISTENT);
    }
    if (!r)
        return MHD_NO; /* closes the connection: nothing better to do without memory */
    char timing[64];
    bool ok = header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rep->content_type) &&
              header(r, "Content-Security-Policy", csp) &&
              header(r, "X-Content-Type-Options", "nosniff") &&
              header(r, "X-Frame-Options", "DENY") && header(r, "Referrer-Policy", "no-referrer") &&
              header(r, "Cross-Origin-Resource-Policy", "same-origin") &&
              header(r, MHD_HTTP_HEADER_CACHE_CONTROL, rep->is_asset ? "no-cache" : "no-store");
    if (ok && rep->allow)
        ok = header(r, MHD_HTTP_HEADER_ALLOW, rep->allow);
    if (ok && rep->cli_exit >= 0) {
        char code[16];
        snprintf(code, sizeof code, "%d", rep->cli_exit);
        ok = header(r, "X-Trainplan-Exit", code);
    }
    if (ok && rep->retry_after_s > 0) {
        char secs[16];
        snprintf(secs, sizeof secs, "%u", rep->retry_after_s);
        ok = header(r, MHD_HTTP_HEADER_RETRY_AFTER, secs);
    }
    if (ok && rep->handler_ms >= 0.0) {
        snprintf(timing, sizeof timing, "handler;dur=%.3f", rep->handler_ms);
        ok = header(r, "Server-Timing", timing);
    }
    enum MHD_Result res = MHD_NO;
    if (ok)
        res = MHD_queue_response(conn, rep->status, r);
    MHD_destroy_response(r);
    if (res == MHD_YES) {
        rs->replied = true;
        rs->status = rep->status;
    }
    return res;
}

static enum MHD_Result send_error(struct MHD_Connection *conn, request_state *rs, unsigned status,
                                  const char *code, const char *path, const char *msg)
{
    tp_web_reply rep;
    tp_web_reply_init(&rep);
    tp_web_reply_error(&rep, status, code, path, msg);
    return send_reply(conn, rs, &rep);
}

static bool has_body(struct MHD_Connection *conn)
{
    const char *cl =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *te =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    return te != NULL || (cl != NULL && strcmp(cl, "0") != 0);
}

static enum MHD_Result hold_reply(request_state *rs, tp_web_reply *rep)
{
    rs->held = *rep;
    rs->holding = true;
    return MHD_YES;
}

/*
 * The request as the router sees it (web.h): every occurrence of the
 * headers it reads (a duplicate is a 400 there) and up to MAX_QUERY query
 * arguments, all borrowed from MHD for this call.
 */
#define MAX_QUERY 16
#define MAX_HEADERS 16
typedef struct request_view {
    tp_web_request rq;
    tp_web_kv headers[MAX_HEADERS];
    tp_web_kv query[MAX_QUERY];
} request_view;

static enum MHD_Result add_query(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    (void)kind; /* unused: only query arguments are asked for */
    request_view *v = cls;
    if (v->rq.num_query >= MAX_QUERY)
        return MHD_NO; /* the rest is ignored */
    v->query[v->rq.num_query].name = key;
    v->query[v->rq.num_query].value = value ? value : "";
    v->rq.num_query++;
    return MHD_YES;
}

static enum MHD_Result add_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                  const char *value)
{
    (void)kind; /* unused: only headers are asked for */
    static const char *const names[] = {MHD_HTTP_HEADER_HOST, MHD_HTTP_HEADER_CONTENT_TYPE,
                                        MHD_HTTP_HEADER_CONTENT_LENGTH,
                                        MHD_HTTP_HEADER_TRANSFER_ENCODING};
    request_view *v = cls;
    if (!key || v->rq.num_headers >= MAX_HEADERS)
        return v->rq.num_headers < MAX_HEADERS ? MHD_YES : MHD_NO;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(key, names[i]) == 0) {
            v->headers[v->rq.num_headers].name = names[i];
            v->headers[v->rq.num_headers].value = value ? value : "";
            v->rq.num_headers++;
            break;
        }
    }
    return MHD_YES;
}

static void view_request(struct MHD_Connection *conn, const char *method, const char *url,
                         const char *version, request_view *v)
{
    memset(v, 0, sizeof *v);
    v->rq.method = method;
    v->rq.version = version;
    v->rq.path = url;
    v->rq.headers = v->headers;
    v->rq.query = v->query;
    MHD_get_connection_values(conn, MHD_HEADER_KIND, add_header, v);
    MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_query, v);
}

/* Headers are in: answer what needs no body, or get ready to read it. */
static enum MHD_Result begin(const server *sv, struct MHD_Connection *conn, request_state *rs,
                             const char *url, const char *method, const char *version)
{
    request_view v;
    view_request(conn, method, url, version, &v);
    tp_web_site site = {sv->check_host, sv->addr, atomic_load(&sv->port), sv->pool.limit_s};
    tp_web_reply rep;
    if (tp_web_begin(&site, &v.rq, &rep) == TP_WEB_NEEDS_BODY)
        return MHD_YES;
    /*
     * Answered from the headers alone. With no body coming, reply on the
     * next call: MHD 0.9.75 closes a connection whose reply is queued
     * before the request is complete, and the page's GETs should keep
     * theirs alive. With a body (a POST to a GET route, a refused POST),
     * reply now and let MHD close rather than read a body nobody wants.
     */
    if (!has_body(conn))
        return hold_reply(rs, &rep);
    return send_reply(conn, rs, &rep);
}

/* ---- the compute pool ---- */

static void *compute_main(void *arg)
{
    compute_pool *pool = arg;
    for (;;) {
        pthread_mutex_lock(&pool->lock);
        while (!pool->head && !pool->stopping)
            pthread_cond_wait(&pool->wake, &pool->lock);
        pending *p = pool->head;
        if (p) {
            pool->head = p->next;
            if (!pool->head)
                pool->tail = NULL;
            pool->waiting--;
        }
        pthread_mutex_unlock(&pool->lock);
        if (!p)
            return NULL; /* stopping, and nothing left to answer */
        tp_web_reply rep;
        tp_web_reply_init(&rep);
        if (atomic_load(&pool->cancel) || tp_web_now_s() >= p->lim.end_s)
            tp_web_reply_stopped(&rep, &p->lim, NULL); /* never started */
        else
            tp_web_job_run(p->job, &p->lim, &rep);
        tp_web_job_free(p->job);
        p->rs->held = rep; /* seen by the MHD thread after the resume (MHD's lock orders it) */
        p->rs->holding = true;
        MHD_resume_connection(p->conn); /* on_request sends `held` */
        free(p);
    }
}

/*
 * Queue a job and suspend its connection, or answer 503 at once when the
 * queue is full or the server is stopping. The check, the enqueue and the
 * suspend happen under the pool's lock, so a stopping pool, which drains
 * the queue under the same lock, never leaves a connection suspended.
 */
static enum MHD_Result submit(server *sv, struct MHD_Connection *conn, request_state *rs,
                              tp_web_job *job)
{
    compute_pool *pool = &sv->pool;
    pending *p = calloc(1, sizeof *p);
    tp_web_reply rep;
    tp_web_reply_init(&rep);
    pthread_mutex_lock(&pool->lock);
    if (!p || pool->stopping || pool->waiting >= pool->max_waiting) {
        bool stopping = pool->stopping;
        pthread_mutex_unlock(&pool->lock);
        free(p);
        tp_web_job_free(job);
        if (stopping) {
            tp_web_reply_error(&rep, 503, "shutting-down", "",
                               "the server is shutting down; the request was not started");
        } else {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "the server is busy: %u searches and plans are running and %u waiting "
                     "(serve --compute-threads, --queue); retry later",
                     pool->num_threads, pool->max_waiting);
            tp_web_reply_error(&rep, 503, "busy", "", msg);
            rep.retry_after_s = 1;
        }
        return send_reply(conn, rs, &rep);
    }
    p->conn = conn;
    p->rs = rs;
    p->job = job;
    p->lim.limit_s = pool->limit_s;
    p->lim.end_s = tp_web_now_s() + pool->limit_s;
    p->lim.cancel = &pool->cancel;
    if (pool->tail)
        pool->tail->next = p;
    else
        pool->head = p;
    pool->tail = p;
    pool->waiting++;
    MHD_suspend_connection(conn);
    pthread_cond_signal(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    return MHD_YES;
}

static bool pool_start(compute_pool *pool, const tp_web_opts *o)
{
    memset(pool, 0, sizeof *pool);
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    atomic_init(&pool->cancel, false);
    pool->max_waiting = o->queue;
    pool->limit_s = o->time_limit_s > 0.0 ? o->time_limit_s : TP_WEB_DEFAULT_TIME_LIMIT_S;
    unsigned n = o->compute_threads;
    if (n < 1)
        n = 1;
    if (n > sizeof pool->threads / sizeof pool->threads[0])
        n = sizeof pool->threads / sizeof pool->threads[0];
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&pool->threads[i], NULL, compute_main, pool) != 0)
            return false;
        pool->num_threads++;
    }
    return true;
}

/* Stop taking jobs, stop the running ones, answer the waiting ones, join. */
static void pool_stop(compute_pool *pool)
{
    pthread_mutex_lock(&pool->lock);
    pool->stopping = true;
    atomic_store(&pool->cancel, true);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 0; i < pool->num_threads; i++)
        pthread_join(pool->threads[i], NULL);
    pool->num_threads = 0;
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->lock);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    server *sv = cls;
    request_state *rs = *con_cls;
    if (!rs) {
        rs = calloc(1, sizeof *rs);
        if (!rs)
            return MHD_NO;
        rs->t0_ms = tp_web_now_ms();
        snprintf(rs->method, sizeof rs->method, "%s", method);
        snprintf(rs->url, sizeof rs->url, "%s", url);
        *con_cls = rs;
        return begin(sv, conn, rs, url, method, version);
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (rs->replied || rs->holding)
            return MHD_YES; /* already answered: drop the rest (bounded by has_body) */
        if (rs->too_large || n > TP_WEB_MAX_BODY - rs->len) {
            /*
             * A body without Content-Length (chunked) ran past the cap. MHD
             * 0.9.75 can queue a response only before the body or after
             * it, so drop what comes and answer 413 at the end; a client
             * that keeps sending past DISCARD_MAX is cut off instead.
             */
            rs->too_large = true;
            rs->discarded += n;
            return rs->discarded > DISCARD_MAX ? MHD_NO : MHD_YES;
        }
        if (rs->len + n > rs->cap) {
            size_t cap = rs->cap ? rs->cap : 4096;
            while (cap < rs->len + n)
                cap *= 2;
            if (cap > TP_WEB_MAX_BODY)
                cap = TP_WEB_MAX_BODY;
            char *bigger = realloc(rs->buf, cap);
            if (!bigger)
                return send_error(conn, rs, 500, "nomem", "", "out of memory reading the body");
            rs->buf = bigger;
            rs->cap = cap;
        }
        memcpy(rs->buf + rs->len, upload_data, n);
        rs->len += n;
        return MHD_YES;
    }
    if (rs->replied)
        return MHD_YES;
    if (rs->holding) {
        rs->holding = false;
        return send_reply(conn, rs, &rs->held);
    }
    request_view v;
    view_request(conn, method, url, version, &v);
    v.rq.body = rs->buf;
    v.rq.body_len = rs->len;
    v.rq.body_too_large = rs->too_large; /* tp_web_finish answers 413 */
    tp_web_reply rep;
    tp_web_job *job = NULL;
    if (tp_web_finish(&v.rq, &rep, &job) == TP_WEB_NEEDS_COMPUTE)
        return submit(sv, conn, rs, job);
    return send_reply(conn, rs, &rep);
}

/*
 * Untrusted text (the method, the decoded path) for a log line: printable
 * ASCII as is, anything else (a newline that would forge a line, an
 * escape sequence for the terminal, a byte above 0x7e) as \xHH, and the
 * backslash itself doubled, so that a log line is always one line and
 * says exactly what came.
 */
static void log_text(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (; *s && k + 5 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\')
            k += (size_t)snprintf(out + k, n - k, "\\\\");
        else if (c < 0x20 || c > 0x7e)
            k += (size_t)snprintf(out + k, n - k, "\\x%02x", c);
        else
            out[k++] = (char)c;
    }
    out[k] = '\0';
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)conn; /* unused: the state says all */
    const server *sv = cls;
    request_state *rs = *con_cls;
    if (!rs)
        return;
    if (sv->log) {
        char method[4 * sizeof rs->method + 1], url[4 * sizeof rs->url + 1];
        log_text(method, sizeof method, rs->method);
        log_text(url, sizeof url, rs->url);
        fprintf(stderr, "trainplan: serve: %s %s %u %.3f ms%s\n", method, url, rs->status,
                tp_web_now_ms() - rs->t0_ms,
                toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : " (not completed)");
    }
    if (rs->holding)
        tp_web_reply_free(&rs->held); /* the connection died before the reply went out */
    free(rs->buf);
    free(rs);
    *con_cls = NULL;
}

/* ---- addresses ---- */

typedef struct bind_addr {
    struct sockaddr_storage ss;
    bool v6;
    bool loopback;
    char text[INET6_ADDRSTRLEN]; /* numeric form */
} bind_addr;

static bool parse_bind(const char *s, uint16_t port, bind_addr *b)
{
    memset(b, 0, sizeof *b);
    if (strcmp(s, "localhost") == 0)
        s = "127.0.0.1";
    struct sockaddr_in *a4 = (struct sockaddr_in *)&b->ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&b->ss;
    if (inet_pton(AF_INET, s, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons(port);
        b->loopback = (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
        inet_ntop(AF_INET, &a4->sin_addr, b->text, sizeof b->text);
        return true;
    }
    if (inet_pton(AF_INET6, s, &a6->sin6_addr) == 1) {
        if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
            /* ::ffff:a.b.c.d is the IPv4 address a.b.c.d: an IPv6-only socket
             * cannot bind it, so check and bind it as the IPv4 address it is. */
            struct in_addr v4;
            memcpy(&v4, &a6->sin6_addr.s6_addr[12], sizeof v4);
            memset(&b->ss, 0, sizeof b->ss);
            a4->sin_addr = v4;
            a4->sin_family = AF_INET;
            a4->sin_port = htons(port);
            b->loopback = (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
            inet_ntop(AF_INET, &a4->sin_addr, b->text, sizeof b->text);
            return true;
        }
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons(port);
        b->v6 = true;
        b->loopback = IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
        inet_ntop(AF_INET6, &a6->sin6_addr, b->text, sizeof b->text);
        return true;
    }
    return false;
}

/* ---- the server ---- */

int tp_web_serve(const tp_web_opts *o)
{
    bind_addr ba;
    if (!parse_bind(o->bind, o->port, &ba)) {
        fprintf(stderr,
                "trainplan: error: --bind: \"%s\" is not a numeric IPv4 or IPv6 address "
                "(e.g. 127.0.0.1 or ::1)\n",
                o->bind);
        return 2;
    }
    if (!ba.loopback && !o->allow_remote) {
        fprintf(stderr,
                "trainplan: error: --bind: %s is not a loopback address; the planner has no "
                "authentication, so serving it beyond this machine needs --allow-remote\n",
                ba.text);
        return 2;
    }

    /* Signals: the workers inherit this mask, so SIGINT/SIGTERM reach sigwait below. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigset_t old;
    if (pthread_sigmask(SIG_BLOCK, &stop, &old) != 0) {
        fprintf(stderr, "trainplan: error: cannot block signals\n");
        return 4;
    }
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    if (sigaction(SIGPIPE, &ign, NULL) != 0) {
        fprintf(stderr, "trainplan: error: cannot ignore SIGPIPE\n");
        return 4;
    }
    /* jansson seeds its hash function on first use; do it before the workers start. */
    json_object_seed(0);

    server sv;
    memset(&sv, 0, sizeof sv);
    sv.check_host = ba.loopback;
    snprintf(sv.addr, sizeof sv.addr, ba.v6 ? "[%s]" : "%s", ba.text);
    atomic_init(&sv.port, 0u);
    sv.log = o->log;
    sv.timeout_s = o->timeout_s;

    if (!pool_start(&sv.pool, o)) {
        fprintf(stderr, "trainplan: error: cannot start the compute threads\n");
        pool_stop(&sv.pool);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 4;
    }

    static start_log startup; /* the logger's; lives as long as the daemon */
    startup.text[0] = '\0';
    atomic_init(&startup.capturing, true);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG |
                     MHD_ALLOW_SUSPEND_RESUME;
    if (ba.v6)
        flags |= MHD_USE_IPv6;
    /* MHD reads each option's value with va_arg: pass exactly the documented types. */
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, o->port, NULL, NULL, on_request, &sv, MHD_OPTION_EXTERNAL_LOGGER, mhd_log,
        &startup, /* first, so that it logs the rest */
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ba.ss, MHD_OPTION_THREAD_POOL_SIZE,
        (unsigned int)o->threads, MHD_OPTION_CONNECTION_LIMIT, (unsigned int)o->max_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)o->timeout_s, MHD_OPTION_NOTIFY_COMPLETED,
        on_completed, &sv, MHD_OPTION_END);
    atomic_store(&startup.capturing, false);
    if (!d) {
        bool in_use = strstr(startup.text, "in use") != NULL;
        fprintf(stderr, "trainplan: error: cannot listen on %s port %u: %s%s\n", ba.text,
                (unsigned)o->port, startup.text[0] ? startup.text : "the server did not start",
                in_use ? " (try --port 0 for any free port)" : "");
        pool_stop(&sv.pool);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 2;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    if (!info || info->port == 0) {
        fprintf(stderr, "trainplan: error: cannot learn the port the server listens on\n");
        pool_stop(&sv.pool);
        MHD_stop_daemon(d);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 4;
    }
    unsigned port = info->port;
    atomic_store(&sv.port, port);
    printf("trainplan: serving on http://%s:%u/\n", sv.addr, port);
    if (fflush(stdout) != 0)
        fprintf(stderr, "trainplan: serve: could not write the URL to standard output\n");
    fprintf(stderr, "trainplan: serve: press Ctrl-C to stop\n");

    int sig = 0;
    int rc = 0;
    if (sigwait(&stop, &sig) != 0) {
        fprintf(stderr, "trainplan: error: waiting for a signal failed\n");
        rc = 4;
    }
    pool_stop(&sv.pool); /* first: MHD must not be stopped with a connection suspended */
    MHD_stop_daemon(d);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        fprintf(stderr, "trainplan: serve: stopped (signal %d)\n", sig);
    return rc;
}
