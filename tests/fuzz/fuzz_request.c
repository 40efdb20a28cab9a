/* SPDX-License-Identifier: MIT */
/*
 * fuzz_request.c: a web API request body (src/io/request.h) through the
 * same steps the server takes: tp_io_request_parse for a command, the
 * "model-config" text through tp_io_request_model, the argument vector
 * through cli_parse_config, then validate and evaluate. The first byte
 * picks the command; the rest is the body (not NUL-terminated).
 * Also renders the error as the API's JSON error body.
 */
#include "cli.h"
#include "fuzz.h"
#include "request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > TP_IO_REQUEST_MAX_BYTES + 1)
        return 0;
    static const char *const commands[] = {"estimate", "search", "plan"};
    const char *command = commands[data[0] % 3];
    size_t len = size - 1;
    char *body = malloc(len ? len : 1); /* exactly len bytes: ASan sees overreads */
    if (!body)
        return 0;
    if (len)
        memcpy(body, data + 1, len);
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_io_request req;
    memset(&req, 0, sizeof req);
    tp_status st = tp_io_request_parse(body, len, command, &req, &err);
    if (st == TP_OK) {
        if ((req.count > 0) != (req.items != NULL))
            abort();
        tp_model m;
        int model_ok = req.model_text && tp_io_request_model(&req, &m, &err) == TP_OK;
        int paths = 0;
        for (size_t i = 0; i < req.count; i++) /* never let fuzz input open files */
            paths += req.items[i].text && strchr(req.items[i].text, '/') != NULL;
        tp_config *c = malloc(sizeof *c);
        cli_common *co = malloc(sizeof *co);
        if (!paths && c && co && cli_parse_config_request(&req, NULL, c, co, &err) == TP_OK) {
            if (model_ok)
                c->model = m;
            if (tp_config_validate(c, &err) == TP_OK) {
                tp_result r;
                (void)tp_eval(c, &r, &err);
            }
        }
        free(c);
        free(co);
    }
    if (st != TP_OK || err.code != TP_OK) {
        json_t *j = tp_io_error_json(&err, NULL);
        char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
        free(s);
        json_decref(j);
    }
    tp_io_request_free(&req);
    free(body);
    return 0;
}
