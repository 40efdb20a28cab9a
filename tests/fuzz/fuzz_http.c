/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http.c: the web server's router (src/web/routes.c, tp_web_handle)
 * on a whole HTTP request made of the fuzz input: method, path, query,
 * headers and body, without libmicrohttpd or a socket.
 *
 * Input format (a raw HTTP/1.x request, loosely):
 *
 *   METHOD SP TARGET [SP anything] LF     request line; TARGET is
 *                                         PATH[?QUERY], QUERY k=v&k=v
 *                                         (%XX and + are decoded, as MHD does)
 *   Name: value LF                        zero or more headers (a CR before
 *   ...                                   the LF is dropped; at most 32)
 *   LF                                    an empty line
 *   BODY                                  the rest, as the body (any bytes)
 *
 * Input without an empty line is all headers and no body. The router sees
 * the server as bound to 127.0.0.1:8080 (so "Host: 127.0.0.1:8080" passes
 * the DNS-rebinding guard). /api/search and /api/plan normally run the CLI
 * in a child process (src/web/cli_run.c); here tp_web_run_cli is a stub:
 * an array of three results (exit 0), or, picked by one flag, one result
 * (exit 1, nothing fits: "top": 1), a usage error (exit 2: "rank":
 * "headroom"), a timeout ("max-vpp": 1) or an object where an array is
 * expected ("max-cp": 1), so that paging and every error path run. No file is read; a pasted
 * "model-config" is written to and removed from a private folder under
 * $TMPDIR, as the server does.
 *
 * Checks (abort() on a violation): every reply has a status in 200..599
 * and a content type; a body that is not a page file is one JSON value
 * (an object, or the stub's array); an error status carries
 * {"error": {code, path, line, column, message}}; 405 carries Allow.
 */
#include <stdio.h>

#include "cli.h"
#include "fuzz.h"
#include "web.h"

#define MAX_HEADERS 32
#define MAX_QUERY 32

/* routes.c tests these weak symbols to know whether search and plan exist
 * (and which flags are theirs). */
int cmd_search(int argc, char **argv)
{
    (void)argc; /* unused: never run; tp_web_run_cli is stubbed */
    (void)argv;
    return 0;
}

int cmd_plan(int argc, char **argv)
{
    (void)argc; /* unused: never run; tp_web_run_cli is stubbed */
    (void)argv;
    return 0;
}

/* The commands' own flags as routes.c sees them: the ones the stub's
 * outcomes hang on, a few more, and ones routes.c must refuse (--csv,
 * --svg, --plan-file). Only the names matter to routes.c. */
static const cli_flag search_stub[] = {
    {.name = "--top"},    {.name = "--rank"}, {.name = "--max-vpp"}, {.name = "--max-cp"},
    {.name = "--max-tp"}, {.name = "--csv"},  {.name = "--svg"},
};
static const cli_flag plan_stub[] = {
    {.name = "--tokens"}, {.name = "--phase"},     {.name = "--deadline"},
    {.name = "--mfu"},    {.name = "--plan-file"}, {.name = "--markdown"},
};

const cli_flag *cmd_search_flags(size_t *count)
{
    *count = sizeof search_stub / sizeof search_stub[0];
    return search_stub;
}

const cli_flag *cmd_plan_flags(size_t *count)
{
    *count = sizeof plan_stub / sizeof plan_stub[0];
    return plan_stub;
}

static char *dup_text(const char *s)
{
    size_t n = strlen(s);
    char *d = malloc(n + 1);
    if (d)
        memcpy(d, s, n + 1);
    return d;
}

int tp_web_run_cli(char *const argv[], double timeout_s, size_t max_bytes, tp_web_run *r)
{
    (void)timeout_s; /* unused: nothing runs */
    (void)max_bytes;
    memset(r, 0, sizeof *r);
    size_t n = 0;
    while (argv[n])
        n++;
    if (n < 3 || strcmp(argv[0], "trainplan") != 0 || strcmp(argv[2], "--json") != 0)
        abort(); /* routes.c always runs "trainplan COMMAND --json ..." */
    for (size_t i = 3; i < n; i++)
        if (strncmp(argv[i], "--", 2) != 0)
            abort(); /* every argument is a flag: nothing can be read as a file name */
    /* the outcome is picked by one flag, so that the seeds reach each path */
    int outcome = 0;
    for (size_t i = 3; i < n; i++) {
        if (strcmp(argv[i], "--top=1") == 0)
            outcome = 1;
        else if (strcmp(argv[i], "--rank=headroom") == 0)
            outcome = 2;
        else if (strcmp(argv[i], "--max-vpp=1") == 0)
            outcome = 3;
        else if (strcmp(argv[i], "--max-cp=1") == 0)
            outcome = 4;
    }
    switch (outcome) {
    case 0:
        r->exit_code = 0;
        r->out = dup_text("[\n  {\"search\": {\"rank\": 1}},\n  {\"search\": {\"rank\": 2}},\n"
                          "  {\"search\": {\"rank\": 3}}\n]\n");
        break;
    case 1:
        r->exit_code = 1;
        r->out = dup_text("[{\"search\": {\"rank\": 1, \"binding\": \"memory\"}}]\n");
        break;
    case 2:
        r->exit_code = 2;
        r->err = dup_text("trainplan: error: --max-tp: 3 is not a power of two\n");
        break;
    case 3:
        r->exit_code = -1;
        r->timed_out = true;
        break;
    default:
        r->exit_code = 0;
        r->out = dup_text("{\"not\": \"an array\"}\n"); /* a paged search must say 500 */
        break;
    }
    r->out_len = r->out ? strlen(r->out) : 0;
    r->err_len = r->err ? strlen(r->err) : 0;
    return 0;
}

void tp_web_run_free(tp_web_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

static int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decode %XX and '+' in place (a %00 ends the string, as in C). */
static void url_decode(char *s)
{
    char *w = s;
    for (char *p = s; *p; p++) {
        if (*p == '+') {
            *w++ = ' ';
        } else if (*p == '%' && hex(p[1]) >= 0 && hex(p[2]) >= 0) {
            *w++ = (char)(hex(p[1]) * 16 + hex(p[2]));
            p += 2;
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
}

/* The next line of [*p, end), NUL-terminated in place (CR LF or LF); NULL at the end. */
static char *next_line(char **p, char *end)
{
    if (*p >= end)
        return NULL;
    char *line = *p;
    char *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl) {
        *p = end;
        return line; /* the buffer has a NUL at end */
    }
    *nl = '\0';
    if (nl > line && nl[-1] == '\r')
        nl[-1] = '\0';
    *p = nl + 1;
    return line;
}

static void check_reply(const tp_web_reply *r)
{
    if (r->status < 200 || r->status > 599 || !r->content_type || (r->len && !r->body))
        abort();
    if (r->status == 405 && !r->allow)
        abort();
    if (r->is_asset)
        return;
    json_error_t je;
    json_t *j = json_loadb(r->body, r->len, 0, &je);
    if (!j)
        abort(); /* every API answer is JSON */
    if (r->status >= 400) {
        json_t *e = json_object_get(j, "error");
        if (!json_is_object(e) || !json_is_string(json_object_get(e, "code")) ||
            !json_is_string(json_object_get(e, "path")) ||
            !json_is_integer(json_object_get(e, "line")) ||
            !json_is_integer(json_object_get(e, "column")) ||
            !json_is_string(json_object_get(e, "message")) ||
            json_string_length(json_object_get(e, "message")) == 0)
            abort();
    }
    json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > TP_WEB_MAX_BODY + 4096)
        return 0;
    char *buf = fuzz_cstr(data, size);
    if (!buf)
        return 0;
    char *p = buf, *end = buf + size;
    tp_web_kv headers[MAX_HEADERS], query[MAX_QUERY];
    tp_web_request rq;
    memset(&rq, 0, sizeof rq);
    rq.headers = headers;
    rq.query = query;

    char *line = next_line(&p, end);
    if (!line) {
        free(buf);
        return 0;
    }
    /* request line: METHOD TARGET [VERSION] */
    char *sp = strchr(line, ' ');
    rq.method = line;
    static char empty[1];
    char *target = empty;
    if (sp) {
        *sp = '\0';
        target = sp + 1;
        char *sp2 = strchr(target, ' ');
        if (sp2)
            *sp2 = '\0';
    }
    char *qs = strchr(target, '?');
    if (qs) {
        *qs++ = '\0';
        while (qs && *qs && rq.num_query < MAX_QUERY) {
            char *amp = strchr(qs, '&');
            if (amp)
                *amp++ = '\0';
            char *eq = strchr(qs, '=');
            if (eq)
                *eq++ = '\0';
            url_decode(qs);
            if (eq)
                url_decode(eq);
            query[rq.num_query].name = qs;
            query[rq.num_query].value = eq ? eq : "";
            rq.num_query++;
            qs = amp;
        }
    }
    url_decode(target);
    rq.path = target;
    /* headers up to an empty line */
    while ((line = next_line(&p, end)) != NULL && *line) {
        char *colon = strchr(line, ':');
        if (!colon || rq.num_headers >= MAX_HEADERS)
            continue; /* MHD would refuse a malformed header; skip it */
        *colon = '\0';
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        headers[rq.num_headers].name = line;
        headers[rq.num_headers].value = v;
        rq.num_headers++;
    }
    /* the body: an exactly-sized heap copy, so ASan sees an overread */
    size_t blen = line ? (size_t)(end - p) : 0;
    char *body = malloc(blen ? blen : 1);
    if (!body) {
        free(buf);
        return 0;
    }
    if (blen)
        memcpy(body, p, blen);
    rq.body = body;
    rq.body_len = blen;

    tp_web_site site = {true, "127.0.0.1", 8080};
    tp_web_reply r;
    tp_web_handle(&site, &rq, &r);
    check_reply(&r);
    tp_web_reply_free(&r);
    free(body);
    free(buf);
    return 0;
}
