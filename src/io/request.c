/* SPDX-License-Identifier: MIT */
/*
 * request.c: web API requests -> a run description (src/io/desc.h) and
 * the command's own keys (see request.h for the mapping), the preset
 * list, and the error body.
 *
 * The keys that are fields of the run description (src/io/fields.c) are
 * recorded in r->desc, which tp_io_desc_build turns into the tp_config
 * exactly as it does the CLI's flags: the same ranges, defaults, derived
 * values and messages, with no second mapping to keep in step. Every key
 * is also kept, in order, as an item (key, value as text), for the
 * command's parser: it checks the keys the run description does not know
 * (search's "top", an unknown key) with the command's flag table, so that
 * a key that is no flag is worded as the CLI words an unknown flag.
 *
 * Safety: keys are restricted to [a-z0-9-] (they are flag names, nothing
 * else); "model" and "gpu" must not name files: the server reads no files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "io.h"
#include "io_internal.h"
#include "request.h"

#define MODEL_CONFIG_KEY "model-config"
#define GPU_CONFIG_KEY "gpu-config"

/* Keys that change the preset GPU: its fields (src/io/fields.c), and
 * plan's --tflops, which is not a field of the run description. */
static bool is_gpu_override(const char *key)
{
    return tp_io_field_key_overrides(key, "gpu") || strcmp(key, "tflops") == 0;
}

/* Keys that change the preset model's architecture (src/io/fields.c); the
 * vision tower's training settings (tp_vision.image_tokens, frozen) are
 * not: they apply to an inline model as to a --model file. */
static bool is_model_override(const char *key)
{
    return tp_io_field_key_overrides(key, "model") && strcmp(key, "image-tokens") != 0 &&
           strcmp(key, "freeze-vision") != 0;
}

static bool flag_name_ok(const char *key)
{
    if (!(key[0] >= 'a' && key[0] <= 'z'))
        return false;
    size_t n = 0;
    for (const char *p = key; *p; p++, n++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return false;
    return n <= 64;
}

/* A flag the command takes more than once (an array in a request). */
static bool repeatable(const char *command, const char *key)
{
    return strcmp(command, "plan") == 0 && strcmp(key, "phase") == 0;
}

/* The same test as the loaders' (presets.c): a '/' or a ".json" ending. */
static bool looks_like_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') != NULL || (n >= 5 && strcmp(s + n - 5, ".json") == 0);
}

static tp_status nomem(tp_error *err)
{
    return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the request");
}

/* The value's text, owned, in *out: NULL for true (a switch given); *skip for false/null. */
static tp_status value_text(const char *key, json_t *v, char **out, bool *skip, tp_error *err)
{
    char num[64];
    *out = NULL;
    *skip = v == NULL;
    if (!v)
        return TP_OK;
    switch (json_typeof(v)) {
    case JSON_TRUE: return TP_OK; /* a switch given, as "--key" */
    case JSON_FALSE:
    case JSON_NULL: *skip = true; return TP_OK;
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        *out = strdup(num);
        break;
    case JSON_REAL:
        /* finite by construction: jansson rejects NaN/inf while parsing; 17
         * digits so that the text reads back as the same double (8.0 as 8) */
        snprintf(num, sizeof num, "%.17g", json_real_value(v));
        *out = strdup(num);
        break;
    case JSON_STRING: {
        const char *s = json_string_value(v);
        if (strlen(s) != json_string_length(v))
            return tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" must not contain a NUL character",
                                key);
        *out = strdup(s);
        break;
    }
    default:
        return tp_error_set(err, TP_ERR_CONFIG, key,
                            "\"%s\" must be a string, a number or a boolean, as --%s takes "
                            "(an array only for plan's \"phase\")",
                            key, key);
    }
    return *out ? TP_OK : nomem(err);
}

/* "model"/"gpu": a preset name, never a file. */
static tp_status check_preset(const char *key, tp_io_kind kind, json_t *v, tp_error *err)
{
    if (!json_is_string(v))
        return TP_OK; /* the CLI parser reports the wrong type */
    const char *s = json_string_value(v);
    if (tp_io_preset_text(kind, s) || !looks_like_path(s))
        return TP_OK; /* a preset, or an unknown name the loader reports with a hint */
    if (kind == TP_IO_MODEL)
        return tp_error_set(err, TP_ERR_INVALID_ARG, key,
                            "\"%s\" looks like a file path; the server reads no files: send the "
                            "file's text as \"" MODEL_CONFIG_KEY "\" instead",
                            s);
    return tp_error_set(err, TP_ERR_INVALID_ARG, key,
                        "\"%s\" looks like a file path; the server reads no files: choose a GPU "
                        "preset or send the file's text as \"" GPU_CONFIG_KEY "\"",
                        s);
}

tp_status tp_io_request_page(tp_io_request *r, const char *key, int64_t v, tp_error *err)
{
    bool is_offset = strcmp(key, "offset") == 0;
    int64_t lo = is_offset ? 0 : 1;
    int64_t hi = is_offset ? TP_IO_REQUEST_MAX_OFFSET : TP_IO_REQUEST_MAX_LIMIT;
    if (v < lo || v > hi)
        return tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" must be from %lld to %lld (got %lld)",
                            key, (long long)lo, (long long)hi, (long long)v);
    if (!r->paged)
        r->limit = TP_IO_REQUEST_DEFAULT_LIMIT;
    r->paged = true;
    if (is_offset)
        r->offset = v;
    else
        r->limit = v;
    return TP_OK;
}

/* search's "offset"/"limit": a whole number (a JSON integer, or a real equal to one). */
static tp_status take_page(json_t *v, const char *key, tp_io_request *out, tp_error *err)
{
    int64_t x;
    if (json_is_integer(v)) {
        x = (int64_t)json_integer_value(v);
    } else if (json_is_real(v) && fabs(json_real_value(v)) <= 1e18 &&
               !(fabs(json_real_value(v) - trunc(json_real_value(v))) > 0.0)) {
        x = (int64_t)json_real_value(v);
    } else {
        return tp_error_set(err, TP_ERR_CONFIG, key,
                            "\"%s\" must be a whole number (a page of the search results)", key);
    }
    return tp_io_request_page(out, key, x, err);
}

/* "model-config" / "gpu-config": the config's text (a string), or the object itself. */
static tp_status take_config(json_t *v, const char *key, const char *what, char **text,
                             tp_error *err)
{
    if (json_is_string(v)) {
        if (strlen(json_string_value(v)) != json_string_length(v))
            return tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" must not contain a NUL character",
                                key);
        *text = strdup(json_string_value(v));
    } else if (json_is_object(v)) {
        *text = json_dumps(v, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    } else {
        return tp_error_set(err, TP_ERR_CONFIG, key,
                            "\"%s\" must be the text of %s (a string), or that object", key, what);
    }
    return *text ? TP_OK : nomem(err);
}

/* Append an item (key copied, text owned: freed on failure). */
static int push_item(tp_io_request *out, size_t *cap, const char *key, char *text)
{
    if (out->count + 1 > *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        tp_io_request_item *a = realloc(out->items, ncap * sizeof *a);
        if (!a) {
            free(text);
            return -1;
        }
        out->items = a;
        *cap = ncap;
    }
    char *k = strdup(key);
    if (!k) {
        free(text);
        return -1;
    }
    out->items[out->count].key = k;
    out->items[out->count].text = text;
    out->count++;
    return 0;
}

/* The run description: every item that sets one of its fields, in order. */
static void fill_desc(tp_io_request *r)
{
    tp_io_desc_init(&r->desc);
    r->desc.model_text = r->model_text;
    for (size_t i = 0; i < r->count; i++) {
        const tp_io_request_item *it = &r->items[i];
        tp_io_desc_set(&r->desc, tp_io_desc_slot_key(it->key), it->text ? it->text : "",
                       TP_IO_ORIGIN_KEY);
    }
}

tp_status tp_io_request_parse(const char *body, size_t len, const char *command, tp_io_request *out,
                              tp_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > TP_IO_REQUEST_MAX_BYTES)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "request body larger than %zu bytes",
                            TP_IO_REQUEST_MAX_BYTES);
    json_error_t je;
    bool oom = false;
    json_t *root = tp_io__json_loads(body ? body : "", len, JSON_REJECT_DUPLICATES, &je, &oom);
    if (oom)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the request body");
    if (!root) {
        tp_error_set(err, TP_ERR_PARSE, "", "invalid JSON: %s", je.text);
        if (err) {
            /* jansson reports line 1 column 0 for an empty body; columns are 1-based here */
            err->line = je.line > 0 ? je.line : 1;
            err->column = je.column > 0 ? je.column : 1;
        }
        return TP_ERR_PARSE;
    }
    tp_status st = TP_OK;
    if (!json_is_object(root)) {
        st = tp_error_set(err, TP_ERR_CONFIG, "",
                          "the request must be a JSON object of flags, e.g. {\"model\": "
                          "\"llama-3-8b\", \"gpus\": 8, \"tp\": 2}");
        goto done;
    }

    size_t cap = 0;

    const char *key;
    json_t *v;
    const char *override = NULL, *gpu_override = NULL;
    bool have_model = false, have_gpu = false;
    json_object_foreach(root, key, v)
    {
        if (strcmp(key, MODEL_CONFIG_KEY) == 0) {
            if ((st = take_config(v, key, "a model JSON or a Hugging Face config.json",
                                  &out->model_text, err)) != TP_OK)
                goto done;
            continue;
        }
        if (strcmp(key, GPU_CONFIG_KEY) == 0) {
            if ((st = take_config(v, key, "a GPU JSON", &out->gpu_text, err)) != TP_OK)
                goto done;
            continue;
        }
        if (strcmp(command, "search") == 0 &&
            (strcmp(key, "offset") == 0 || strcmp(key, "limit") == 0)) {
            if ((st = take_page(v, key, out, err)) != TP_OK)
                goto done;
            continue;
        }
        if (!flag_name_ok(key)) {
            st = tp_error_set(err, TP_ERR_CONFIG, "",
                              "\"%.64s\" is not a flag name (keys are the CLI's flags without "
                              "the dashes, e.g. \"global-batch\")",
                              key);
            goto done;
        }
        if (strcmp(key, "model") == 0 && !json_is_null(v))
            have_model = true;
        if (!override && is_model_override(key) && !json_is_null(v) && !json_is_false(v))
            override = key;
        if (strcmp(key, "gpu") == 0 && !json_is_null(v))
            have_gpu = true;
        if (!gpu_override && is_gpu_override(key) && !json_is_null(v) && !json_is_false(v))
            gpu_override = key;
        if (strcmp(key, "model") == 0 && (st = check_preset(key, TP_IO_MODEL, v, err)) != TP_OK)
            goto done;
        if (strcmp(key, "gpu") == 0 && (st = check_preset(key, TP_IO_GPU, v, err)) != TP_OK)
            goto done;
        /* an array is the flag repeated, in order: only for a flag the CLI takes more than
         * once; for any other the CLI would keep the last, which hides the rest */
        if (json_is_array(v) && !repeatable(command, key)) {
            st = tp_error_set(err, TP_ERR_CONFIG, key,
                              "\"%s\" takes one value, not an array (only plan's \"phase\" "
                              "may be repeated)",
                              key);
            goto done;
        }
        size_t n = json_is_array(v) ? json_array_size(v) : 1;
        for (size_t i = 0; i < n; i++) {
            json_t *x = json_is_array(v) ? json_array_get(v, i) : v;
            char *text;
            bool skip;
            if (json_is_array(v) && (json_is_array(x) || json_is_object(x))) {
                st = tp_error_set(err, TP_ERR_CONFIG, key,
                                  "\"%s\" must be an array of strings, numbers or booleans", key);
                goto done;
            }
            if ((st = value_text(key, x, &text, &skip, err)) != TP_OK)
                goto done;
            if (!skip && push_item(out, &cap, key, text) != 0) {
                st = nomem(err);
                goto done;
            }
        }
    }
    if (out->model_text && have_model) {
        st = tp_error_set(err, TP_ERR_CONFIG, MODEL_CONFIG_KEY,
                          "give either \"model\" (a preset) or \"" MODEL_CONFIG_KEY
                          "\" (a config), not both");
        goto done;
    }
    if (out->gpu_text && have_gpu) {
        st = tp_error_set(err, TP_ERR_CONFIG, GPU_CONFIG_KEY,
                          "give either \"gpu\" (a preset) or \"" GPU_CONFIG_KEY
                          "\" (a config), not both");
        goto done;
    }
    if (out->gpu_text && gpu_override) {
        st = tp_error_set(err, TP_ERR_CONFIG, gpu_override,
                          "\"%s\" overrides a preset GPU; with \"" GPU_CONFIG_KEY
                          "\" edit the config instead",
                          gpu_override);
        goto done;
    }
    if (out->model_text && override) {
        st = tp_error_set(err, TP_ERR_CONFIG, override,
                          "\"%s\" overrides a preset's architecture; with \"" MODEL_CONFIG_KEY
                          "\" edit the config instead",
                          override);
        goto done;
    }
    fill_desc(out);

done:
    json_decref(root);
    if (st != TP_OK)
        tp_io_request_free(out);
    return st;
}

void tp_io_request_free(tp_io_request *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->items && i < r->count; i++) {
        free(r->items[i].key);
        free(r->items[i].text);
    }
    free(r->items);
    free(r->model_text);
    free(r->gpu_text);
    memset(r, 0, sizeof *r);
}

/* Prefix err->path with key and a dot ("model-config.num_heads"), cut to fit. */
static void prefix_path(tp_error *err, const char *key)
{
    char path[sizeof err->path];
    memcpy(path, err->path, sizeof path);
    path[sizeof path - 1] = '\0';
    size_t np = strlen(key);
    memcpy(err->path, key, np);
    if (path[0]) {
        err->path[np++] = '.';
        size_t rest = strlen(path);
        if (rest > sizeof err->path - 1 - np)
            rest = sizeof err->path - 1 - np;
        memcpy(err->path + np, path, rest);
        np += rest;
    }
    err->path[np] = '\0';
}

tp_status tp_io_inline_model_parse(const char *text, tp_model *out, tp_error *err)
{
    tp_status st = tp_io_model_parse(text, MODEL_CONFIG_KEY, out, err);
    if (st != TP_OK && err)
        prefix_path(err, MODEL_CONFIG_KEY);
    return st;
}

tp_status tp_io_request_model(const tp_io_request *r, tp_model *out, tp_error *err)
{
    return tp_io_inline_model_parse(r->model_text, out, err);
}

tp_status tp_io_request_gpu(const tp_io_request *r, tp_gpu *out, tp_error *err)
{
    tp_status st = tp_io_gpu_parse(r->gpu_text, GPU_CONFIG_KEY, out, err);
    if (st != TP_OK && err)
        prefix_path(err, GPU_CONFIG_KEY);
    return st;
}

tp_status tp_io_request_inline(const tp_io_request *r, tp_config *c, tp_error *err)
{
    return r->gpu_text ? tp_io_request_gpu(r, &c->gpu, err) : TP_OK;
}

/* ---- presets: the object of `trainplan presets --json` (cmd_presets.c) ---- */

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static int append(json_t *arr, json_t *o)
{
    return o && json_array_append_new(arr, o) == 0 ? 0 : -1;
}

static int models_json(json_t *arr, tp_error *err)
{
    size_t n = tp_io_preset_count(TP_IO_MODEL);
    for (size_t i = 0; i < n; i++) {
        const char *name = tp_io_preset_name(TP_IO_MODEL, i);
        tp_model m;
        tp_params p;
        if (tp_io_model_load(name, &m, err) != TP_OK || tp_model_params(&m, 0, &p, err) != TP_OK)
            return -1;
        if (append(arr, json_pack("{s:s, s:I, s:I, s:o}", "name", name, "params_total",
                                  (json_int_t)p.total, "params_active", (json_int_t)p.active,
                                  "source", str_or_null(tp_io_preset_source(TP_IO_MODEL, name)))) !=
            0) {
            nomem(err);
            return -1;
        }
    }
    return 0;
}

/* A host-side figure a preset may leave unstated (0): null then. */
static json_t *stated_or_null(double v)
{
    return v > 0.0 ? json_real(v) : json_null();
}

static int gpus_json(json_t *arr, tp_error *err)
{
    size_t n = tp_io_preset_count(TP_IO_GPU);
    for (size_t i = 0; i < n; i++) {
        const char *name = tp_io_preset_name(TP_IO_GPU, i);
        tp_gpu g;
        if (tp_io_gpu_load(name, &g, err) != TP_OK)
            return -1;
        double peak = g.peak_flops_per_s[TP_PREC_BF16];
        if (!isfinite(peak) || !isfinite(g.mem_capacity_bytes) || !isfinite(g.price_per_gpu_hour) ||
            !isfinite(g.mem_bw_bytes_per_s) || !isfinite(g.intra_bw_bytes_per_s)) {
            tp_error_set(err, TP_ERR_INTERNAL, "gpu", "GPU preset \"%s\" has a non-finite value",
                         name);
            return -1;
        }
        if (append(arr,
                   json_pack("{s:s, s:f, s:I, s:f, s:f, s:I, s:f, s:o, s:o, s:o, s:o, s:o}", "name",
                             name, "peak_bf16_flops_per_s", peak, "memory_bytes",
                             (json_int_t)llround(g.mem_capacity_bytes), "mem_bw_bytes_per_s",
                             g.mem_bw_bytes_per_s, "intra_bw_bytes_per_s", g.intra_bw_bytes_per_s,
                             "gpus_per_node", (json_int_t)g.gpus_per_node, "price_per_gpu_hour",
                             g.price_per_gpu_hour, "hw_profile",
                             str_or_null(g.hw_profile[0] ? g.hw_profile : NULL),
                             "host_link_bytes_per_s", stated_or_null(g.host_link_bytes_per_s),
                             "host_mem_bytes_per_node", stated_or_null(g.host_mem_bytes_per_node),
                             "host_mem_bw_bytes_per_s", stated_or_null(g.host_mem_bw_bytes_per_s),
                             "source", str_or_null(tp_io_preset_source(TP_IO_GPU, name)))) != 0) {
            nomem(err);
            return -1;
        }
    }
    return 0;
}

json_t *tp_io_presets_json(tp_error *err)
{
    json_t *models = json_array();
    json_t *gpus = json_array();
    if (!models || !gpus) {
        json_decref(models);
        json_decref(gpus);
        nomem(err);
        return NULL;
    }
    if (models_json(models, err) != 0 || gpus_json(gpus, err) != 0) {
        json_decref(models);
        json_decref(gpus);
        return NULL;
    }
    /* json_object_set_new steals the value even when it fails (or o is NULL) */
    json_t *o = json_object();
    int bad = json_object_set_new(o, "models", models) != 0;
    bad |= json_object_set_new(o, "gpus", gpus) != 0;
    if (bad) {
        json_decref(o);
        nomem(err);
        return NULL;
    }
    return o;
}

/* ---- errors ---- */

void tp_io_request_word_error(tp_error *err)
{
    if (!err)
        return;
    /* a field of the run description: the request key that sets it */
    const char *key = tp_io_field_word(err->path, false);
    if (key != err->path)
        memmove(err->path, key, strlen(key) + 1);
    /* the number parsers begin with the CLI's spelling ("--tp: "): the
     * body's "path" names the key, so the message starts after it */
    size_t n = strlen(err->path);
    char *msg = err->message;
    if (n > 0 && strncmp(msg, "--", 2) == 0 && strncmp(msg + 2, err->path, n) == 0 &&
        msg[n + 2] == ':' && msg[n + 3] == ' ')
        memmove(msg, msg + n + 4, strlen(msg + n + 4) + 1);
}

json_t *tp_io_error_json(const tp_error *err, const char *code_name)
{
    const char *msg = err->message[0] ? err->message : tp_strerror(err->code);
    json_t *e = json_pack("{s:s, s:s, s:i, s:i, s:s}", "code",
                          code_name ? code_name : tp_strerror(err->code), "path", err->path, "line",
                          err->line, "column", err->column, "message", msg);
    if (!e) {
        /* a message cut inside a UTF-8 sequence is not a valid string: say less */
        e = json_pack("{s:s, s:s, s:i, s:i, s:s}", "code",
                      code_name ? code_name : tp_strerror(err->code), "path", "", "line", err->line,
                      "column", err->column, "message", "(message is not valid UTF-8)");
        if (!e)
            return NULL;
    }
    return json_pack("{s:o}", "error", e);
}
