/* SPDX-License-Identifier: MIT */
/*
 * test_request.c: the web API's request mapping (src/io/request.c): a JSON
 * object of flags -> its items and run description, with its errors. The HTTP
 * test (tests/http) checks the whole path against the CLI; this one pins
 * the mapping rules one by one, without a server.
 */
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "helpers.h"
#include "request.h"

/* Parse body and compare its items, as the CLI's argument vector, with want[]
 * (NULL-terminated). */
static void expect_argv(const char *body, const char *const *want)
{
    tp_io_request rq;
    tp_error err = {0};
    tp_status st = tp_io_request_parse(body, strlen(body), "estimate", &rq, &err);
    if (st != TP_OK)
        print_error("%s: %s: %s\n", body, err.path, err.message);
    assert_int_equal(st, TP_OK);
    int n = 0;
    while (want[n])
        n++;
    /* the items as the command line would say them: "--key" or "--key=text" */
    assert_int_equal(rq.count + 1, (size_t)n);
    assert_string_equal("estimate", want[0]);
    for (size_t i = 0; i < rq.count; i++) {
        char word[256];
        const tp_io_request_item *it = &rq.items[i];
        snprintf(word, sizeof word, "--%s%s%s", it->key, it->text ? "=" : "",
                 it->text ? it->text : "");
        assert_string_equal(word, want[i + 1]);
    }
    tp_io_request_free(&rq);
}

static void expect_error(const char *body, tp_status code, const char *path)
{
    tp_io_request rq;
    tp_error err = {0};
    tp_status st = tp_io_request_parse(body, strlen(body), "estimate", &rq, &err);
    assert_int_equal(st, code);
    assert_int_equal(err.code, code);
    assert_true(err.message[0] != '\0');
    if (path)
        assert_string_equal(err.path, path);
    assert_null(rq.items);
    assert_null(rq.model_text);
}

static void test_values(void **state)
{
    (void)state; /* unused */
    expect_argv("{}", (const char *const[]){"estimate", NULL});
    expect_argv(
        "{\"model\": \"llama-3-8b\", \"gpus\": 8, \"tp\": 2}",
        (const char *const[]){"estimate", "--model=llama-3-8b", "--gpus=8", "--tp=2", NULL});
    /* reals with 17 digits; 8.0 reads back as 8 */
    expect_argv("{\"fragmentation\": 0.05, \"gpus\": 8.0}",
                (const char *const[]){"estimate", "--fragmentation=0.050000000000000003",
                                      "--gpus=8", NULL});
    /* switches: true gives, false and null leave out */
    expect_argv("{\"sp\": true, \"fsdp\": false, \"dropout\": null, \"no-sp\": true}",
                (const char *const[]){"estimate", "--sp", "--no-sp", NULL});
    /* strings pass as written, even "--" at their start (attached with '=') */
    expect_argv("{\"tp\": \"--pp\"}", (const char *const[]){"estimate", "--tp=--pp", NULL});
    /* arrays repeat the flag */
    /* an array repeats plan's --phase; for any other key (the CLI keeps one value) it is
     * refused, so that no element can hide behind another (issue 14) */
    tp_io_request prq;
    tp_error perr = {0};
    static const char phases[] = "{\"phase\": [\"name=a\", \"name=b\"]}";
    assert_int_equal(tp_io_request_parse(phases, strlen(phases), "plan", &prq, &perr), TP_OK);
    assert_int_equal(prq.count, 2);
    assert_string_equal(prq.items[0].key, "phase");
    assert_string_equal(prq.items[0].text, "name=a");
    assert_string_equal(prq.items[1].text, "name=b");
    tp_io_request_free(&prq);
    expect_error(phases, TP_ERR_CONFIG, "phase"); /* estimate has no --phase to repeat */
    expect_error("{\"tp\": []}", TP_ERR_CONFIG, "tp");
    /* a GPU of one's own comes inline, never with "gpu" or an override of the preset */
    expect_error("{\"gpu\": \"h100-sxm\", \"gpu-config\": {}}", TP_ERR_CONFIG, "gpu-config");
    expect_error("{\"gpu-config\": {}, \"peak-tflops\": 900}", TP_ERR_CONFIG, "peak-tflops");
    expect_error("{\"gpu-config\": 5}", TP_ERR_CONFIG, "gpu-config");
    expect_error("{\"model\": [\"/etc/passwd\"]}", TP_ERR_CONFIG, "model");
    expect_error("{\"gpu\": [\"h100-sxm\", \"/etc/passwd\"]}", TP_ERR_CONFIG, "gpu");
}

static void test_errors(void **state)
{
    (void)state; /* unused */
    expect_error("{\"tp\": 2,", TP_ERR_PARSE, "");
    expect_error("", TP_ERR_PARSE, "");
    expect_error("[1]", TP_ERR_CONFIG, "");
    expect_error("{\"tp\": 2, \"tp\": 4}", TP_ERR_PARSE, "");
    expect_error("{\"tp\": {\"a\": 1}}", TP_ERR_CONFIG, "tp");
    expect_error("{\"tp\": [[1]]}", TP_ERR_CONFIG, "tp");
    expect_error("{\"TP\": 2}", TP_ERR_CONFIG, "");
    expect_error("{\"tp=2\": 1}", TP_ERR_CONFIG, "");
    expect_error("{\"--tp\": 1}", TP_ERR_CONFIG, "");
    expect_error("{\"model\": \"/etc/passwd\"}", TP_ERR_INVALID_ARG, "model");
    expect_error("{\"model\": \"x.json\"}", TP_ERR_INVALID_ARG, "model");
    expect_error("{\"gpu\": \"../g/h100.json\"}", TP_ERR_INVALID_ARG, "gpu");
    expect_error("{\"model-config\": 3}", TP_ERR_CONFIG, "model-config");
    expect_error("{\"model-config\": \"{}\", \"model\": \"llama-3-8b\"}", TP_ERR_CONFIG,
                 "model-config");
    expect_error("{\"model-config\": \"{}\", \"layers\": 4}", TP_ERR_CONFIG, "layers");

    /* the parse error's position */
    tp_io_request rq;
    tp_error err = {0};
    const char *body = "{\"tp\": 2,\n  \"pp\": }";
    assert_int_equal(tp_io_request_parse(body, strlen(body), "estimate", &rq, &err), TP_ERR_PARSE);
    assert_int_equal(err.line, 2);
    assert_true(err.column > 0);
}

static void test_model_config(void **state)
{
    (void)state; /* unused */
    const char *body = "{\"model-config\": \"{\\\"hidden_size\\\": 2048,\\n oops}\", \"gpus\": 4}";
    tp_io_request rq;
    tp_error err = {0};
    assert_int_equal(tp_io_request_parse(body, strlen(body), "estimate", &rq, &err), TP_OK);
    assert_non_null(rq.model_text);
    assert_int_equal(rq.count, 1);
    tp_model m;
    assert_int_not_equal(tp_io_request_model(&rq, &m, &err), TP_OK);
    assert_int_equal(err.line, 2); /* inside the pasted text */
    assert_true(strncmp(err.path, "model-config", 12) == 0);
    tp_io_request_free(&rq);
    tp_io_request_free(&rq); /* a second free is harmless */
    tp_io_request_free(NULL);
}

/* search's "offset"/"limit": page fields, not flags; other commands pass them on. */
static void test_search_page(void **state)
{
    (void)state; /* unused */
    tp_io_request rq;
    tp_error err = {0};
    const char *body = "{\"gpus\": 8, \"offset\": 20, \"limit\": 5, \"top\": 50}";
    assert_int_equal(tp_io_request_parse(body, strlen(body), "search", &rq, &err), TP_OK);
    assert_true(rq.paged);
    assert_int_equal(rq.offset, 20);
    assert_int_equal(rq.limit, 5);
    assert_int_equal(rq.count, 2); /* search --gpus=8 --top=50 */
    assert_string_equal(rq.items[0].key, "gpus");
    assert_string_equal(rq.items[0].text, "8");
    assert_string_equal(rq.items[1].key, "top");
    assert_string_equal(rq.items[1].text, "50");
    /* gpus is a field of the run description, top search's own */
    assert_string_equal(tp_io_desc_get(&rq.desc, tp_io_desc_slot_key("gpus")), "8");
    assert_int_equal(tp_io_desc_slot_key("top"), -1);
    tp_io_request_free(&rq);

    /* offset alone: the default page size; 3.0 reads as 3 */
    body = "{\"offset\": 3.0}";
    assert_int_equal(tp_io_request_parse(body, strlen(body), "search", &rq, &err), TP_OK);
    assert_true(rq.paged);
    assert_int_equal(rq.offset, 3);
    assert_int_equal(rq.limit, TP_IO_REQUEST_DEFAULT_LIMIT);
    tp_io_request_free(&rq);

    /* no page asked: not paged */
    body = "{\"gpus\": 8}";
    assert_int_equal(tp_io_request_parse(body, strlen(body), "search", &rq, &err), TP_OK);
    assert_false(rq.paged);
    tp_io_request_free(&rq);

    /* bad values name the field */
    static const char *const bad[][2] = {
        {"{\"offset\": -1}", "offset"},      {"{\"limit\": 0}", "limit"},
        {"{\"limit\": 1001}", "limit"},      {"{\"limit\": \"5\"}", "limit"},
        {"{\"offset\": 1.5}", "offset"},     {"{\"offset\": true}", "offset"},
        {"{\"offset\": 1000001}", "offset"}, {"{\"limit\": [5]}", "limit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(tp_io_request_parse(bad[i][0], strlen(bad[i][0]), "search", &rq, &err),
                         TP_ERR_CONFIG);
        assert_string_equal(err.path, bad[i][1]);
        assert_null(rq.items);
    }

    /* estimate has no pages: "offset" becomes a flag the CLI parser refuses */
    expect_argv("{\"offset\": 2}", (const char *const[]){"estimate", "--offset=2", NULL});

    /* the query string's setter: ranges as in the body */
    tp_io_request q = {0};
    assert_int_equal(tp_io_request_page(&q, "limit", 7, &err), TP_OK);
    assert_true(q.paged);
    assert_int_equal(q.limit, 7);
    assert_int_equal(q.offset, 0);
    assert_int_equal(tp_io_request_page(&q, "offset", TP_IO_REQUEST_MAX_OFFSET + 1, &err),
                     TP_ERR_CONFIG);
    assert_string_equal(err.path, "offset");
}

static void test_presets_and_errors_json(void **state)
{
    (void)state; /* unused */
    tp_error err = {0};
    json_t *p = tp_io_presets_json(&err);
    assert_non_null(p);
    assert_true(json_array_size(json_object_get(p, "models")) > 0);
    assert_true(json_array_size(json_object_get(p, "gpus")) > 0);
    json_decref(p);

    tp_error_set(&err, TP_ERR_INVALID_ARG, "tp", "3 does not divide %d", 32);
    json_t *e = tp_io_error_json(&err, NULL);
    assert_non_null(e);
    json_t *o = json_object_get(e, "error");
    assert_string_equal(json_string_value(json_object_get(o, "code")), "invalid-arg");
    assert_string_equal(json_string_value(json_object_get(o, "path")), "tp");
    assert_int_equal(json_integer_value(json_object_get(o, "line")), 0);
    assert_string_equal(json_string_value(json_object_get(o, "message")), "3 does not divide 32");
    json_decref(e);
    e = tp_io_error_json(&err, "not-found");
    assert_string_equal(json_string_value(json_object_get(json_object_get(e, "error"), "code")),
                        "not-found");
    json_decref(e);
}

/* The run description (src/io/desc.h): a body's fields, built as the CLI builds its flags. */
static void test_desc(void **state)
{
    (void)state; /* unused */
    tp_io_request rq;
    tp_error err = {0};
    tp_config c;
    const char *file = NULL;
    tp_io_desc_opts presets = {true, NULL};
    const char *body = "{\"gpus\": 16, \"tp\": 2, \"pp\": 2, \"micro-batch\": 2}";
    assert_int_equal(tp_io_request_parse(body, strlen(body), "estimate", &rq, &err), TP_OK);
    assert_int_equal(tp_io_desc_build(&rq.desc, &presets, &c, &file, &err), TP_OK);
    assert_int_equal(c.train.num_gpus, 16);
    assert_int_equal(c.train.tp, 2);
    assert_true(c.train.sp);                   /* derived: on when tp > 1 */
    assert_int_equal(c.train.global_batch, 8); /* derived: micro-batch 2 x DP 4 */
    assert_string_equal(tp_io_desc_model(&rq.desc), TP_IO_DEFAULT_MODEL);
    tp_io_request_free(&rq);

    /* of two opposite switches the later wins, in the order of the keys */
    body = "{\"zero\": 1, \"fsdp\": true, \"no-sp\": true, \"sp\": true, \"gpus\": 8}";
    assert_int_equal(tp_io_request_parse(body, strlen(body), "estimate", &rq, &err), TP_OK);
    assert_int_equal(tp_io_desc_build(&rq.desc, &presets, &c, &file, &err), TP_OK);
    assert_int_equal(c.train.zero, 3);
    assert_true(c.train.sp);
    tp_io_request_free(&rq);

    /* values are judged when built, with the field's range and the CLI's words */
    body = "{\"tp\": 0}";
    assert_int_equal(tp_io_request_parse(body, strlen(body), "estimate", &rq, &err), TP_OK);
    assert_int_equal(tp_io_desc_build(&rq.desc, &presets, &c, &file, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "tp");
    assert_string_equal(err.message, "--tp: 0 is out of range [1, 1048576]");
    tp_io_request_free(&rq);

    /* the last value of a field wins, and one overridden is never judged */
    tp_io_desc d;
    tp_io_desc_init(&d);
    int tp = tp_io_desc_slot("--tp");
    assert_true(tp >= 0);
    assert_int_equal(tp_io_desc_slot_key("tp"), tp);
    assert_int_equal(tp_io_desc_slot("--json"), -1);
    tp_io_desc_set(&d, tp, "0", TP_IO_ORIGIN_FLAG);
    tp_io_desc_set(&d, tp, "4", TP_IO_ORIGIN_FLAG);
    tp_io_desc_set(&d, tp_io_desc_slot("--gpus"), "8", TP_IO_ORIGIN_FLAG);
    assert_int_equal(tp_io_desc_build(&d, &presets, &c, &file, &err), TP_OK);
    assert_int_equal(c.train.tp, 4);

    /* the slots are the rows of src/io/fields.c; plan's own rows are none */
    const tp_io_field *row = tp_io_field_at((size_t)tp);
    assert_non_null(row);
    assert_string_equal(row->flag, "--tp");
    assert_ptr_equal(tp_io_field_find("layout.tp"), row);
    assert_int_equal(tp_io_desc_slot("--tokens"), -1);
    assert_non_null(tp_io_field_by_flag("--tokens"));
    for (size_t i = 0; i < tp_io_field_count(); i++) {
        const tp_io_field *f = tp_io_field_at(i);
        int s = tp_io_desc_slot(f->flag);
        assert_true(s == (strncmp(f->name, "plan.", 5) == 0 ? -1 : (int)i) ||
                    tp_io_field_by_flag(f->flag) != f); /* a flag's first row */
    }

    /* presets only: a file name is an unknown preset, never opened */
    tp_io_desc_set(&d, tp_io_desc_slot("--model"), "model.json", TP_IO_ORIGIN_KEY);
    assert_int_equal(tp_io_desc_build(&d, &presets, &c, &file, &err), TP_ERR_UNKNOWN);
    assert_string_equal(err.path, "model");
    assert_null(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),       cmocka_unit_test(test_errors),
        cmocka_unit_test(test_model_config), cmocka_unit_test(test_search_page),
        cmocka_unit_test(test_desc),         cmocka_unit_test(test_presets_and_errors_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
