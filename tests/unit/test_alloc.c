/* SPDX-License-Identifier: MIT */
/*
 * Failing-allocator test (issue 8, "Sanitizers and leaks"): for every N,
 * the Nth allocation fails, over the layout search, the capacity plan and
 * JSON loading (presets, trainplan model and GPU files, Hugging Face
 * config.json, runs CSV, Megatron and DeepSpeed imports). Each path must
 * return an error, free everything it allocated, and never crash. The loop
 * over N ends at the first run that completes without reaching the
 * failure; that run must succeed and leak nothing too.
 *
 * How: this program is linked with -Wl,--wrap=malloc,calloc,realloc,free,
 * strdup,strndup (CMakeLists.txt), so every call from libtp, libtpio and
 * this file goes through the __wrap_ functions below; jansson (a shared
 * library the linker cannot wrap) allocates through the functions that
 * src/io/parse.c hands it, which call malloc and free from libtpio, so
 * they are wrapped too. While armed, the wrappers count allocations, fail
 * the Nth, and record live pointers in a table; a pointer still in the
 * table after the path returned is a leak. Frees of pointers allocated
 * before arming, or by libc itself, are passed through untouched.
 *
 * The preset registry is built once per process (presets.c); its test runs
 * each N in a forked child so that every child builds it afresh.
 *
 * Under ASan (make asan) the same wrappers call ASan's allocator, so a
 * use-after-free or double free on an error path is caught as well.
 */
#include <execinfo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "import.h"
#include "io.h"
#include "runs_csv.h"
#include "tp/tp.h"

/* ---- the counting, failing allocator --------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

#define LIVE_SLOTS 65536 /* power of two; far above what any path holds at once */
#define TOMBSTONE ((void *)1)

static struct {
    int armed;        /* counting and tracking on */
    uint64_t calls;   /* allocations since arming */
    uint64_t fail_at; /* 1-based allocation to fail; 0 = none */
    int failed;       /* the failure was injected */
    size_t live;      /* pointers in the table */
    int overflow;     /* the table filled up (a test bug) */
    void *slot[LIVE_SLOTS];
} A;

static size_t slot_hash(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 7) & (LIVE_SLOTS - 1);
}

static void live_add(void *p)
{
    if (!A.armed || !p)
        return;
    if (A.live >= LIVE_SLOTS / 2) {
        A.overflow = 1;
        return;
    }
    size_t i = slot_hash(p);
    while (A.slot[i] && A.slot[i] != TOMBSTONE)
        i = (i + 1) & (LIVE_SLOTS - 1);
    A.slot[i] = p;
    A.live++;
}

/* Remove p if the table holds it (allocated while armed). */
static void live_remove(void *p)
{
    if (!p || !A.live)
        return;
    size_t i = slot_hash(p);
    while (A.slot[i]) {
        if (A.slot[i] == p) {
            A.slot[i] = TOMBSTONE;
            A.live--;
            return;
        }
        i = (i + 1) & (LIVE_SLOTS - 1);
    }
}

/* Whether this allocation is the one to fail. */
static int inject(void)
{
    if (!A.armed)
        return 0;
    A.calls++;
    if (A.fail_at && A.calls == A.fail_at) {
        A.failed = 1;
        if (getenv("TP_ALLOC_DEBUG")) { /* the stack of the failing allocation */
            void *bt[16];
            backtrace_symbols_fd(bt, backtrace(bt, 16), 2);
        }
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n)
{
    if (inject())
        return NULL;
    void *p = __real_malloc(n);
    live_add(p);
    return p;
}

void *__wrap_calloc(size_t k, size_t n)
{
    if (inject())
        return NULL;
    void *p = __real_calloc(k, n);
    live_add(p);
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    if (inject())
        return NULL; /* p stays valid and owned by the caller */
    void *q = __real_realloc(p, n);
    if (q || n == 0)
        live_remove(p);
    live_add(q);
    return q;
}

void __wrap_free(void *p)
{
    live_remove(p);
    __real_free(p);
}

char *__wrap_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = __wrap_malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

char *__wrap_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = __wrap_malloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

static void arm(uint64_t fail_at)
{
    memset(A.slot, 0, sizeof A.slot);
    A.calls = 0;
    A.fail_at = fail_at;
    A.failed = 0;
    A.live = 0;
    A.overflow = 0;
    A.armed = 1;
}

static void disarm(void)
{
    A.armed = 0;
}

/* ---- the driver --------------------------------------------------------- */

/* A path under test: returns its status; frees everything it allocated. */
typedef tp_status (*path_fn)(tp_error *err);

#define MAX_N 200000 /* a path that allocates more than this is a test bug */

/*
 * Run fn with the Nth allocation failing, N = 1, 2, ... until a run does
 * not reach N. Each failed run must return an error with a message (want,
 * unless TP_OK: that status) and leak nothing; the last must succeed.
 * Returns that N - 1: the number of allocations the path makes.
 */
static uint64_t countdown(const char *name, path_fn fn, tp_status want)
{
    for (uint64_t n = 1; n <= MAX_N; n++) {
        tp_error err;
        memset(&err, 0, sizeof err);
        arm(n);
        tp_status st = fn(&err);
        disarm();
        if (A.overflow)
            fail_msg("%s: live-pointer table overflow", name);
        if (A.live != 0)
            fail_msg("%s: allocation %llu failed: %zu allocation(s) leaked (status %s: %s: %s)",
                     name, (unsigned long long)n, A.live, tp_strerror(st), err.path, err.message);
        if (!A.failed) {
            if (st != TP_OK)
                fail_msg("%s: no allocation failed, yet status %s: %s: %s", name, tp_strerror(st),
                         err.path, err.message);
            print_message("%s: %llu allocations, each failed once: error returned, no leak\n", name,
                          (unsigned long long)(n - 1));
            return n - 1;
        }
        if (st == TP_OK)
            fail_msg("%s: allocation %llu failed, yet the path returned ok", name,
                     (unsigned long long)n);
        if (!err.message[0])
            fail_msg("%s: allocation %llu failed: status %s with an empty message", name,
                     (unsigned long long)n, tp_strerror(st));
        if (want != TP_OK && st != want)
            fail_msg("%s: allocation %llu failed: status %s (%s), want %s", name,
                     (unsigned long long)n, tp_strerror(st), err.message, tp_strerror(want));
    }
    fail_msg("%s: more than %d allocations", name, MAX_N);
    return 0;
}

/* ---- fixtures ------------------------------------------------------------ */

static tp_config base_cfg; /* llama-3-8b on h100-sxm, loaded before arming */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[len] = '\0';
    fclose(f);
    return buf;
}

static char tmp_model_path[64], tmp_csv_path[64];

static int setup(void **state)
{
    (void)state;
    /* Build the preset registry before arming: it lives for the process. */
    assert_true(tp_io_preset_count(TP_IO_MODEL) > 0);
    tp_error err;
    memset(&base_cfg, 0, sizeof base_cfg);
    assert_int_equal(tp_io_model_load("llama-3-8b", &base_cfg.model, &err), TP_OK);
    assert_int_equal(tp_io_gpu_load("h100-sxm", &base_cfg.gpu, &err), TP_OK);
    tp_options_default(&base_cfg.opts);
    tp_train_default(&base_cfg.train);
    base_cfg.train.num_gpus = 64;
    base_cfg.train.seq_len = 4096;
    base_cfg.train.global_batch = 256;

    /* A trainplan model file and a small runs CSV in the temporary folder. */
    snprintf(tmp_model_path, sizeof tmp_model_path, "/tmp/tp_alloc_%d_model.json", (int)getpid());
    FILE *f = fopen(tmp_model_path, "w");
    assert_non_null(f);
    fputs(tp_io_preset_text(TP_IO_MODEL, "mixtral-8x7b"), f);
    fclose(f);
    snprintf(tmp_csv_path, sizeof tmp_csv_path, "/tmp/tp_alloc_%d_runs.csv", (int)getpid());
    char *csv = slurp(TP_SOURCE_DIR "/data/runs/runs-dev.csv");
    if (!csv) { /* in the repository: its absence is a failure */
        fail_msg("cannot read %s", TP_SOURCE_DIR "/data/runs/runs-dev.csv");
        return -1;
    }
    f = fopen(tmp_csv_path, "w");
    assert_non_null(f);
    /* The header and the first 12 records (quoted fields included). */
    const char *p = csv;
    for (int lines = 0; *p && lines < 13; p++)
        if (*p == '\n')
            lines++;
    fwrite(csv, 1, (size_t)(p - csv), f);
    free(csv);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    remove(tmp_model_path);
    remove(tmp_csv_path);
    return 0;
}

/* ---- paths ------------------------------------------------------------------ */

static tp_status path_search_top(tp_error *err)
{
    tp_search_item top[4];
    size_t n = 0;
    tp_search_stats stats;
    tp_status st = tp_search_top(&base_cfg, NULL, TP_RANK_TIME, top, 4, &n, &stats, err);
    if (st == TP_OK && n == 0)
        return tp_error_set(err, TP_ERR_INTERNAL, "search", "no layout found");
    return st;
}

static tp_status path_search_iter(tp_error *err)
{
    tp_search *s = NULL;
    tp_search_space sp;
    tp_search_space_default(&sp);
    sp.include_infeasible = true;
    tp_status st = tp_search_new(&base_cfg, &sp, &s, err);
    if (st != TP_OK)
        return st;
    tp_search_item it;
    int k = 0;
    while (k < 50 && tp_search_next(s, &it))
        k++;
    tp_search_free(s);
    return k > 0 ? TP_OK : tp_error_set(err, TP_ERR_INTERNAL, "search", "empty");
}

static tp_status plan_with(tp_layout_from layout, tp_size_by size_by, tp_error *err)
{
    static tp_plan_in in; /* large: keep off the stack */
    static tp_plan pl;
    tp_plan_in_default(&in);
    in.base = base_cfg;
    in.layout_from = layout;
    in.size_by = size_by;
    in.deadline_h = 24.0 * 21.0;
    tp_status st = tp_plan_run(&in, &pl, err);
    if (st == TP_OK && !(pl.num_gpus > 0))
        return tp_error_set(err, TP_ERR_INTERNAL, "plan", "no cluster");
    return st;
}

static tp_status path_plan_search(tp_error *err)
{
    return plan_with(TP_LAYOUT_AUTO, TP_SIZE_GPUS, err);
}

static tp_status path_plan_deadline(tp_error *err)
{
    return plan_with(TP_LAYOUT_AUTO, TP_SIZE_DEADLINE, err);
}

static tp_status path_plan_infeasible(tp_error *err)
{
    /* 64 GPUs of 1 GiB: nothing fits; the plan diagnoses with a search. */
    static tp_plan_in in;
    static tp_plan pl;
    tp_plan_in_default(&in);
    in.base = base_cfg;
    in.base.gpu.mem_capacity_bytes = 1073741824.0;
    in.size_by = TP_SIZE_GPUS;
    tp_status st = tp_plan_run(&in, &pl, err);
    if (st == TP_OK && pl.feasible)
        return tp_error_set(err, TP_ERR_INTERNAL, "plan", "1 GiB GPUs should not fit");
    return st;
}

static tp_status path_model_preset(tp_error *err)
{
    tp_model m;
    return tp_io_model_load("mixtral-8x7b", &m, err);
}

static tp_status path_gpu_preset(tp_error *err)
{
    tp_gpu g;
    return tp_io_gpu_load("a100-80gb", &g, err);
}

static tp_status path_model_file(tp_error *err)
{
    tp_model m;
    return tp_io_model_load(tmp_model_path, &m, err);
}

static tp_status path_hf_config(tp_error *err)
{
    tp_model m;
    return tp_io_model_load(TP_SOURCE_DIR "/tests/data/hf/mixtral-8x7b/config.json", &m, err);
}

static tp_status path_hf_config_text(tp_error *err)
{
    tp_model m;
    return tp_io_model_parse("{\"model_type\": \"llama\", \"hidden_size\": 4096, "
                             "\"intermediate_size\": 14336, \"num_hidden_layers\": 32, "
                             "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
                             "\"vocab_size\": 128256, \"tie_word_embeddings\": false}",
                             "config.json", &m, err);
}

static tp_status path_runs_csv(tp_error *err)
{
    tp_io_csv *csv = NULL;
    tp_status st = tp_io_csv_read(tmp_csv_path, &csv, err);
    if (st != TP_OK)
        return st;
    if (csv->num_rows == 0)
        st = tp_error_set(err, TP_ERR_INTERNAL, "csv", "no rows");
    tp_io_csv_free(csv);
    return st;
}

static tp_status path_import_megatron(tp_error *err)
{
    static tp_import im;
    return tp_io_import_load(TP_IMPORT_MEGATRON,
                             TP_SOURCE_DIR "/tests/golden/export/llama3-70b-256xh100-tp8-pp2/"
                                           "megatron.txt",
                             &im, err);
}

static tp_status path_import_deepspeed(tp_error *err)
{
    static tp_import im;
    return tp_io_import_load(TP_IMPORT_DEEPSPEED,
                             TP_SOURCE_DIR "/tests/golden/export/llama3-8b-8xh100-fsdp/"
                                           "deepspeed.json",
                             &im, err);
}

/* ---- tests -------------------------------------------------------------------- */

static void test_search(void **state)
{
    (void)state;
    assert_int_equal(countdown("tp_search_top", path_search_top, TP_ERR_NOMEM), 1);
    assert_int_equal(countdown("tp_search_new/next", path_search_iter, TP_ERR_NOMEM), 1);
}

static void test_plan(void **state)
{
    (void)state;
    assert_true(countdown("tp_plan_run (GPUs given, search)", path_plan_search, TP_ERR_NOMEM) >= 1);
    assert_true(countdown("tp_plan_run (deadline, search)", path_plan_deadline, TP_ERR_NOMEM) >= 1);
    assert_true(countdown("tp_plan_run (nothing fits)", path_plan_infeasible, TP_ERR_NOMEM) >= 1);
}

static void test_json_loading(void **state)
{
    (void)state;
    assert_true(countdown("model preset", path_model_preset, TP_ERR_NOMEM) > 10);
    assert_true(countdown("gpu preset", path_gpu_preset, TP_ERR_NOMEM) > 10);
    /* A preset is parsed once; loading it again allocates nothing. */
    assert_int_equal(countdown("model preset, again", path_model_preset, TP_ERR_NOMEM), 0);
    assert_int_equal(countdown("gpu preset, again", path_gpu_preset, TP_ERR_NOMEM), 0);
    assert_true(countdown("model file", path_model_file, TP_ERR_NOMEM) > 10);
    assert_true(countdown("hf config.json file", path_hf_config, TP_ERR_NOMEM) > 10);
    assert_true(countdown("hf config text", path_hf_config_text, TP_ERR_NOMEM) > 10);
}

static void test_runs_csv(void **state)
{
    (void)state;
    assert_true(countdown("runs csv", path_runs_csv, TP_ERR_NOMEM) > 10);
}

static void test_imports(void **state)
{
    (void)state;
    assert_true(countdown("megatron import", path_import_megatron, TP_OK) > 1);
    assert_true(countdown("deepspeed import", path_import_deepspeed, TP_OK) > 1);
}

/*
 * One registry child: load a preset with allocation n failing (0: none).
 * Exit codes: 0 nothing failed and the load worked, 1 the failure was
 * handled, 10+ a check broke. With report_live, exit 100 + the number of
 * allocations still live (those of the registry, kept for the process).
 */
static int registry_child(uint64_t n, size_t registry_live, int report_live)
{
    tp_error err;
    tp_model m;
    memset(&err, 0, sizeof err);
    arm(n);
    tp_status st = tp_io_model_load("llama-3-8b", &m, &err);
    disarm();
    int failed = A.failed;
    if (report_live)
        return st == TP_OK && !failed && A.live < 100 ? 100 + (int)A.live : 15;
    if (failed && st == TP_OK)
        return 10; /* a failure was swallowed */
    if (failed && !err.message[0])
        return 11;
    if (!failed && (st != TP_OK || m.num_layers != 32))
        return 12;
    /* A failed build leaves nothing behind; a failure after it, only the registry. */
    int build_failed = strstr(err.message, "preset list") != NULL;
    if (failed && A.live != (build_failed ? 0 : registry_live))
        return 13;
    /* The next load, the allocator healthy again, works. */
    if (tp_io_model_load("llama-3-8b", &m, &err) != TP_OK || m.num_layers != 32)
        return 14;
    return failed ? 1 : 0;
}

/* Run registry_child in a fresh process (the registry is built once per process). */
static int registry_fork(uint64_t n, size_t registry_live, int report_live)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(registry_child(n, registry_live, report_live));
    int ws = 0;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    if (!WIFEXITED(ws))
        fail_msg("preset registry: allocation %llu failed: child died (signal %d)",
                 (unsigned long long)n, WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    return WEXITSTATUS(ws);
}

/*
 * The registry, for each N in a fresh child. A failed build must make the
 * load fail with TP_ERR_NOMEM and free what it built; a later load (the
 * allocator healthy again) must succeed: the registry is not left
 * half-built for the life of the process.
 */
static void test_preset_registry(void **state)
{
    (void)state;
    /* TP_ALLOC_REGISTRY_N=n reproduces one n in this process (no fork), for a debugger. */
    const char *only = getenv("TP_ALLOC_REGISTRY_N");
    if (only) {
        int code = registry_child(strtoull(only, NULL, 10), 0, 0);
        print_message("registry child: %d (live %zu)\n", code, A.live);
        return;
    }
    int live_code = registry_fork(0, 0, 1);
    assert_in_range(live_code, 101, 199);
    size_t registry_live = (size_t)(live_code - 100);
    for (uint64_t n = 1; n <= MAX_N; n++) {
        int code = registry_fork(n, registry_live, 0);
        if (code == 0) {
            print_message("preset registry: %llu allocations (%zu kept), each failed once: "
                          "error returned, no leak, next load works\n",
                          (unsigned long long)(n - 1), registry_live);
            assert_true(n > 10);
            return;
        }
        if (code != 1)
            fail_msg("preset registry: allocation %llu failed: check %d broke",
                     (unsigned long long)n, code);
    }
    fail_msg("preset registry: more than %d allocations", MAX_N);
}

int main(void)
{
    /* First, while this process has not built the registry (children do). */
    const struct CMUnitTest registry[] = {
        cmocka_unit_test(test_preset_registry),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_search),       cmocka_unit_test(test_plan),
        cmocka_unit_test(test_json_loading), cmocka_unit_test(test_runs_csv),
        cmocka_unit_test(test_imports),
    };
    int failed = cmocka_run_group_tests_name("registry", registry, NULL, NULL);
    failed += cmocka_run_group_tests_name("paths", tests, setup, teardown);
    return failed;
}
