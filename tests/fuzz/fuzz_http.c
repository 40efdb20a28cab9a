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
 * the DNS-rebinding guard). /api/search and /api/plan run in-process as
 * the server runs them (tp_web_job_run, the CLI's parsers and writers),
 * with a 50 ms deadline so that a huge search space ends as a 503; the
 * parse is presets-only, so no input can make it read a file.
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

    /* a short deadline: a search of a huge space is a 503, not a slow input */
    tp_web_site site = {true, "127.0.0.1", 8080, 0.05};
    tp_web_reply r;
    tp_web_handle(&site, &rq, &r);
    check_reply(&r);
    tp_web_reply_free(&r);
    free(body);
    free(buf);
    return 0;
}
