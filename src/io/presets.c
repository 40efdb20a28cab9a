/* SPDX-License-Identifier: MIT */
/*
 * presets.c: the registry of built-in presets and the model/GPU loaders.
 *
 * The preset files presets/models/<name>.json and presets/gpus/<name>.json
 * are compiled into the binary by tools/embed.c (tp_io_embedded[], see
 * embedded.h), so the program never reads the file system for them. The
 * registry is an index over that array, sorted by kind and name, built on
 * first use under a mutex; its names and "source" strings live for the
 * life of the process, which is what "static storage" in io.h promises.
 * Each preset is parsed once, on its first load, and the value kept.
 * A build that runs out of memory frees what it made and leaves the
 * registry unbuilt: the loaders then fail with TP_ERR_NOMEM (never
 * "unknown model"), the listings are empty, and the next call tries again
 * (tests/unit/test_alloc.c). Lookups are case-insensitive: names are lowercase-hyphen, and
 * "Llama-3-8B" means the same preset.
 *
 * A load argument is a preset name if one matches; otherwise a file path
 * if it contains '/' or ends in ".json"; otherwise an unknown preset, and
 * the message suggests the closest name (a prefix match, else the smallest
 * edit distance within about a third of the name's length).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "embedded.h"
#include "io.h"
#include "io_internal.h"

#define MODELS_DIR "presets/models/"
#define GPUS_DIR "presets/gpus/"
#define HARDWARE_DIR "data/hardware/"
#define JSON_EXT ".json"
/* A model or GPU description is a few KiB; refuse anything absurd before reading it all. */

typedef struct preset {
    tp_io_kind kind;
    char name[TP_NAME_MAX];
    const char *text; /* embedded JSON, static */
    char *source;     /* the "source" string, allocated once, never freed */
    bool parsed;      /* value holds the parsed preset (under registry_lock) */
    union {
        tp_model model;
        tp_gpu gpu;
    } value;
} preset;

static struct {
    preset *items; /* sorted by (kind, name) */
    size_t count;
    size_t start[2]; /* first index of each tp_io_kind */
    size_t num[2];   /* presets of each tp_io_kind */
} registry;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int registry_built; /* read and written under registry_lock */

static int preset_cmp(const void *pa, const void *pb)
{
    const preset *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return strcmp(a->name, b->name);
}

/*
 * The "source" string of a preset text into *out (a new string, or NULL
 * when the preset has none). Returns 0 when out of memory (the embedded
 * texts are valid JSON: tests/unit/test_presets.c).
 */
static int extract_source(const char *text, char **out)
{
    *out = NULL;
    bool oom;
    json_t *root = tp_io__json_loads(text, strlen(text), 0, NULL, &oom);
    if (!root)
        return 0;
    const char *s = json_string_value(json_object_get(root, "source"));
    *out = s ? strdup(s) : NULL;
    json_decref(root);
    return !s || *out;
}

static void registry_free(size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(registry.items[i].source);
    free(registry.items);
    memset(&registry, 0, sizeof registry);
}

/* Build the registry; 0 (and nothing allocated) when out of memory. */
static int registry_build(void)
{
    registry.items = calloc(tp_io_embedded_count ? tp_io_embedded_count : 1, sizeof(preset));
    if (!registry.items)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < tp_io_embedded_count; i++) {
        const char *path = tp_io_embedded[i].path;
        tp_io_kind kind;
        const char *base;
        if (strncmp(path, MODELS_DIR, strlen(MODELS_DIR)) == 0) {
            kind = TP_IO_MODEL;
            base = path + strlen(MODELS_DIR);
        } else if (strncmp(path, GPUS_DIR, strlen(GPUS_DIR)) == 0) {
            kind = TP_IO_GPU;
            base = path + strlen(GPUS_DIR);
        } else {
            continue;
        }
        size_t len = strlen(base);
        if (len <= strlen(JSON_EXT) || strcmp(base + len - strlen(JSON_EXT), JSON_EXT) != 0)
            continue;
        len -= strlen(JSON_EXT);
        if (len >= TP_NAME_MAX)
            continue; /* cannot be a tp_model/tp_gpu name; tests/unit/test_presets.c checks */
        preset *p = &registry.items[n++];
        p->kind = kind;
        memcpy(p->name, base, len);
        p->name[len] = '\0';
        p->text = tp_io_embedded[i].data;
        if (!extract_source(p->text, &p->source)) {
            registry_free(n);
            return 0;
        }
    }
    qsort(registry.items, n, sizeof(preset), preset_cmp);
    registry.count = n;
    for (size_t i = n; i-- > 0;)
        registry.start[registry.items[i].kind] = i;
    for (size_t i = 0; i < n; i++)
        registry.num[registry.items[i].kind]++;
    return 1;
}

/* Whether the registry is built (building it if need be). */
static int registry_init(void)
{
    pthread_mutex_lock(&registry_lock);
    if (!registry_built)
        registry_built = registry_build();
    int ok = registry_built;
    pthread_mutex_unlock(&registry_lock);
    return ok;
}

static int valid_kind(tp_io_kind kind)
{
    return kind == TP_IO_MODEL || kind == TP_IO_GPU;
}

static preset *find(tp_io_kind kind, const char *name)
{
    registry_init();
    if (!valid_kind(kind) || !name)
        return NULL;
    for (size_t i = 0; i < registry.num[kind]; i++) {
        preset *p = &registry.items[registry.start[kind] + i];
        if (strcasecmp(p->name, name) == 0)
            return p;
    }
    return NULL;
}

size_t tp_io_preset_count(tp_io_kind kind)
{
    registry_init();
    return valid_kind(kind) ? registry.num[kind] : 0;
}

const char *tp_io_preset_name(tp_io_kind kind, size_t i)
{
    registry_init();
    if (!valid_kind(kind) || i >= registry.num[kind])
        return NULL;
    return registry.items[registry.start[kind] + i].name;
}

const char *tp_io_preset_source(tp_io_kind kind, const char *name)
{
    const preset *p = find(kind, name);
    return p ? p->source : NULL;
}

const char *tp_io_preset_text(tp_io_kind kind, const char *name)
{
    const preset *p = find(kind, name);
    return p ? p->text : NULL;
}

const char *tp_io_preset_suggest(tp_io_kind kind, const char *name)
{
    registry_init();
    if (!valid_kind(kind) || !name || !*name)
        return NULL;
    size_t len = strlen(name);
    const char *best = NULL;
    /* A prefix ("h100", "mixtral") means its shortest completion ("h100-sxm"). */
    if (len >= 2) {
        for (size_t i = 0; i < registry.num[kind]; i++) {
            const char *cand = registry.items[registry.start[kind] + i].name;
            if (strncasecmp(cand, name, len) == 0 && (!best || strlen(cand) < strlen(best)))
                best = cand;
        }
        if (best)
            return best;
    }
    /* Otherwise the nearest name, if at most about a third of it is wrong. */
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < registry.num[kind]; i++) {
        const char *cand = registry.items[registry.start[kind] + i].name;
        size_t d = tp_io_edit_distance(name, cand, true);
        if (d < best_d) {
            best_d = d;
            best = cand;
        }
    }
    return best && best_d <= len / 3 + 1 ? best : NULL;
}

/* The shipped hardware profile data/hardware/NAME.json (exact name, no
 * registry: a handful of files, read once per GPU preset parse), or
 * NULL. */
const char *tp_io__hw_profile_text(const char *name)
{
    size_t dir = strlen(HARDWARE_DIR), len = strlen(name);
    for (size_t i = 0; i < tp_io_embedded_count; i++) {
        const char *path = tp_io_embedded[i].path;
        if (strncmp(path, HARDWARE_DIR, dir) == 0 && strncmp(path + dir, name, len) == 0 &&
            strcmp(path + dir + len, JSON_EXT) == 0)
            return tp_io_embedded[i].data;
    }
    return NULL;
}

/* The names of the shipped hardware profiles, ", "-separated, into buf. */
void tp_io__hw_profile_names(char *buf, size_t n)
{
    size_t dir = strlen(HARDWARE_DIR), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < tp_io_embedded_count && used < n; i++) {
        const char *path = tp_io_embedded[i].path;
        size_t len = strlen(path);
        if (strncmp(path, HARDWARE_DIR, dir) != 0 || len <= dir + strlen(JSON_EXT) ||
            strcmp(path + len - strlen(JSON_EXT), JSON_EXT) != 0)
            continue;
        int w = snprintf(buf + used, n - used, "%s%.*s", used ? ", " : "",
                         (int)(len - dir - strlen(JSON_EXT)), path + dir);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */
/* ------------------------------------------------------------------ */

static int looks_like_path(const char *s)
{
    size_t len = strlen(s);
    return strchr(s, '/') != NULL ||
           (len >= strlen(JSON_EXT) && strcmp(s + len - strlen(JSON_EXT), JSON_EXT) == 0);
}

/* Read a whole file into a new NUL-terminated buffer (caller frees). */
static tp_status read_file(const char *path, const char *what, char **out, tp_error *err)
{
    *out = NULL;
    tp_io_read_opts o = {TP_IO_MAX_JSON_BYTES, false, true, what};
    char *buf;
    size_t len;
    tp_status rs = tp_io_read_file(path, &o, &buf, &len, err);
    if (rs != TP_OK)
        return rs;
    size_t text_len = strlen(buf);
    if (text_len != len) {
        /* JSON text cannot hold a NUL byte; say where it is. */
        int line = 1, column = 1;
        for (size_t i = 0; i < text_len; i++) {
            if (buf[i] == '\n') {
                line++;
                column = 1;
            } else {
                column++;
            }
        }
        free(buf);
        tp_error_set(err, TP_ERR_PARSE, "", "invalid JSON: \"%s\" contains a NUL byte", path);
        if (err) {
            err->line = line;
            err->column = column;
        }
        return TP_ERR_PARSE;
    }
    *out = buf;
    return TP_OK;
}

typedef tp_status (*parse_fn)(const char *text, const char *origin, void *out, tp_error *err);

static tp_status model_parse(const char *text, const char *origin, void *out, tp_error *err)
{
    return tp_io_model_parse(text, origin, out, err);
}

static tp_status gpu_parse(const char *text, const char *origin, void *out, tp_error *err)
{
    return tp_io_gpu_parse(text, origin, out, err);
}

/*
 * A preset's parsed value, parsed on first use and kept: loading "llama-3-8b"
 * a second time costs a copy, not a JSON parse (the CLI parser's fuzz
 * targets and the server load presets on every input). A failed parse
 * (out of memory) is not kept.
 */
static tp_status preset_value(tp_io_kind kind, preset *p, parse_fn parse, void *out, tp_error *err)
{
    size_t size = kind == TP_IO_MODEL ? sizeof(tp_model) : sizeof(tp_gpu);
    tp_status st = TP_OK;
    pthread_mutex_lock(&registry_lock);
    if (!p->parsed) {
        st = parse(p->text, p->name, &p->value, err);
        p->parsed = st == TP_OK;
    }
    if (st == TP_OK)
        memcpy(out, &p->value, size);
    pthread_mutex_unlock(&registry_lock);
    return st;
}

static tp_status load(tp_io_kind kind, const char *arg, parse_fn parse, void *out, tp_error *err)
{
    const char *what = kind == TP_IO_MODEL ? "model" : "gpu";
    if (!arg || !*arg)
        return tp_error_set(err, TP_ERR_INVALID_ARG, what, "no %s given", what);
    if (!registry_init())
        return tp_error_set(err, TP_ERR_NOMEM, what, "out of memory building the preset list");
    preset *p = find(kind, arg);
    if (p)
        return preset_value(kind, p, parse, out, err);
    if (looks_like_path(arg)) {
        char *text;
        tp_status st = read_file(arg, what, &text, err);
        if (st != TP_OK)
            return st;
        st = parse(text, arg, out, err);
        free(text);
        return st;
    }
    const char *hint = tp_io_preset_suggest(kind, arg);
    if (hint)
        return tp_error_set(err, TP_ERR_UNKNOWN, what,
                            "unknown %s \"%s\" (did you mean \"%s\"?); run 'trainplan presets' to "
                            "list them",
                            what, arg, hint);
    return tp_error_set(err, TP_ERR_UNKNOWN, what,
                        "unknown %s \"%s\"; run 'trainplan presets' to list them", what, arg);
}

tp_status tp_io_model_load(const char *name_or_path, tp_model *out, tp_error *err)
{
    return load(TP_IO_MODEL, name_or_path, model_parse, out, err);
}

tp_status tp_io_gpu_load(const char *name_or_path, tp_gpu *out, tp_error *err)
{
    return load(TP_IO_GPU, name_or_path, gpu_parse, out, err);
}

/* The fields the report prints of a model, plus its parameter count, which
 * every other shape field moves. */
static bool same_printed_shape(const tp_model *a, const tp_model *b)
{
    tp_params pa, pb;
    if (tp_model_params(a, 1, &pa, NULL) != TP_OK || tp_model_params(b, 1, &pb, NULL) != TP_OK)
        return false;
    return pa.total == pb.total && pa.active == pb.active && a->num_layers == b->num_layers &&
           a->hidden == b->hidden && a->num_heads == b->num_heads &&
           tp_kv_heads(a) == tp_kv_heads(b) && tp_head_dim(a) == tp_head_dim(b) &&
           a->ffn_hidden == b->ffn_hidden && a->vocab == b->vocab && a->mlp == b->mlp &&
           a->norm == b->norm && a->tie_embeddings == b->tie_embeddings &&
           a->num_experts == b->num_experts && a->topk == b->topk;
}

bool tp_io_model_reshaped(const tp_model *m)
{
    char name[TP_NAME_MAX + 1];
    snprintf(name, sizeof name, "%.*s", TP_NAME_MAX, m->name);
    tp_model base;
    memset(&base, 0, sizeof base);
    if (!tp_io_preset_text(TP_IO_MODEL, name) || tp_io_model_load(name, &base, NULL) != TP_OK)
        return false;
    return !same_printed_shape(m, &base);
}
