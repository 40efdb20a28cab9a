/* SPDX-License-Identifier: MIT */
/*
 * Export, import and charts (issue 7): the Megatron argument table against
 * the generated lists of data/engines, struct-level round trips (export, import, same
 * configuration), import errors with their exact messages and positions,
 * the simulated pipeline schedule against the closed-form bubble, and the
 * SVG/CSV figures against the result they draw; and tp_io_write_files,
 * the atomic, never-overwriting file writer (issue 8 "Files").
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "desc.h"
#include "export.h"
#include "helpers.h"
#include "import.h"
#include "io.h"
#include "io_internal.h"
#include "megatron_args.h"
#include "svg.h"
#include "tp/tp.h"

/* ---- fixtures: the two reference plans of tests/golden/export ---- */

static void plan_70b(tp_config *c)
{
    memset(c, 0, sizeof *c);
    assert_int_equal(tp_io_model_load("llama-3-70b", &c->model, NULL), TP_OK);
    assert_int_equal(tp_io_gpu_load("h100-sxm", &c->gpu, NULL), TP_OK);
    tp_train_default(&c->train);
    tp_options_default(&c->opts);
    tp_train *t = &c->train;
    t->num_gpus = 256;
    t->tp = 8;
    t->pp = 2;
    t->sp = true;
    t->zero = 1;
    t->seq_len = 8192;
    t->micro_batch = 1;
    t->global_batch = 256;
    t->recompute = TP_RECOMPUTE_SELECTIVE;
}

static void plan_8b(tp_config *c)
{
    memset(c, 0, sizeof *c);
    assert_int_equal(tp_io_model_load("llama-3-8b", &c->model, NULL), TP_OK);
    assert_int_equal(tp_io_gpu_load("h100-sxm", &c->gpu, NULL), TP_OK);
    tp_train_default(&c->train);
    tp_options_default(&c->opts);
    tp_train *t = &c->train;
    t->num_gpus = 8;
    t->zero = 3;
    t->seq_len = 8192;
    t->micro_batch = 2;
    t->global_batch = 64;
    t->recompute = TP_RECOMPUTE_FULL;
    t->grad_dtype = TP_DTYPE_FP32;
}

/* ---- the Megatron argument table (data/engines/megatron-*.tsv) ---- */

/* The Megatron-LM version the export targets: its generated argument list. */
#define MEGATRON_TARGET_ARGS TP_SOURCE_DIR "/data/engines/megatron-args-d98e8a64.tsv"

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Is name the first column of a line of the generated argument list? */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == '\n') && p[n] == '\t')
            return true;
    return false;
}

static void print_sources(const tp_io_marg *e)
{
    for (size_t k = 0; k < tp_io_marg_sources_count; k++)
        if (e->sources & (1u << k))
            print_error(" %s", tp_io_marg_sources[k]);
}

/* Every name of every generated list is classified, and the classification
 * names nothing that no list has: a refresh of the lists forces a decision. */
static void test_megatron_tables_are_facts(void **state)
{
    (void)state;
    assert_int_equal(tp_io_marg_sources_count, 2);
    bool ok = true;
    for (size_t i = 0; i < tp_io_margs_count; i++) {
        const tp_io_marg *e = &tp_io_margs[i];
        if (e->cls == TP_IO_MARG_UNCLASSIFIED) {
            print_error("%s (in", e->name);
            print_sources(e);
            print_error(") is not classified in data/engines/megatron-classes.tsv\n");
            ok = false;
        }
        if (e->sources == 0) {
            print_error("%s is classified in data/engines/megatron-classes.tsv but is in no "
                        "generated argument list\n",
                        e->name);
            ok = false;
        }
    }
    assert_true(ok);
    /* 609 names at 000c4ac2, 900 at d98e8a64 (with pretrain_gpt.py's
     * ModelOpt arguments), 944 together */
    assert_int_equal(tp_io_import_megatron_known_count(), 944);
    assert_int_equal(tp_io_margs_count, 944);
    assert_null(tp_io_import_megatron_known(tp_io_margs_count));
    /* the sorted index is sorted and covers each entry once */
    for (size_t i = 1; i < tp_io_margs_count; i++)
        assert_true(strcmp(tp_io_margs[tp_io_margs_by_name[i - 1]].name,
                           tp_io_margs[tp_io_margs_by_name[i]].name) < 0);
    /* the mapped class is exactly the names megatron_import.c reads into settings */
    size_t mapped = 0;
    for (size_t i = 0; i < tp_io_margs_count; i++)
        mapped += tp_io_margs[i].cls == TP_IO_MARG_MAPPED;
    size_t n = 0;
    for (const char *name; (name = tp_io_import_megatron_mapped(n)) != NULL; n++) {
        bool found = false;
        for (size_t i = 0; i < tp_io_margs_count; i++)
            if (strcmp(tp_io_margs[i].name, name) == 0)
                found = tp_io_margs[i].cls == TP_IO_MARG_MAPPED;
        if (!found) {
            print_error("megatron_import.c maps %s, which megatron-classes.tsv does not class as "
                        "mapped\n",
                        name);
            fail();
        }
    }
    assert_int_equal(n, mapped);
}

/* Switches come from the generated lists (store_true/store_false), and a
 * name in both lists takes what either version accepts. */
static void test_megatron_table_values(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int min, max;
    } cases[] = {
        {"--bf16", 0, 0},
        {"--use-mup", 0, 0},                  /* new since 000c4ac2 */
        {"--fsdp-manual-registration", 0, 0}, /* new since 000c4ac2 */
        {"--hybrid-attention-ratio", 1, 1},   /* gone since 000c4ac2 */
        {"--num-layers", 1, 1},
        {"--recompute-modules", 0, TP_IO_MARG_UNBOUNDED}, /* '*' then '+' */
        {"--data-path", 0, TP_IO_MARG_UNBOUNDED},
        {"--rampup-batch-size", 0, TP_IO_MARG_UNBOUNDED}, /* '*' then 3 */
        {"--no-inference-wandb-logging", 0, 0},           /* BooleanOptionalAction's --no-X */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const tp_io_marg *e = NULL;
        for (size_t i = 0; i < tp_io_margs_count; i++)
            if (strcmp(tp_io_margs[i].name, cases[k].name) == 0)
                e = &tp_io_margs[i];
        if (!e || e->min_values != cases[k].min || e->max_values != cases[k].max) {
            print_error("%s takes %d..%d values, expected %d..%d\n", cases[k].name,
                        e ? e->min_values : -1, e ? e->max_values : -1, cases[k].min, cases[k].max);
            fail();
        }
    }
}

static void test_megatron_export_uses_known_args(void **state)
{
    (void)state;
    char *list = read_text(MEGATRON_TARGET_ARGS);
    tp_config cs[2];
    plan_70b(&cs[0]);
    plan_8b(&cs[1]);
    for (int k = 0; k < 2; k++) {
        tp_result r;
        assert_int_equal(tp_eval(&cs[k], &r, NULL), TP_OK);
        tp_export e;
        assert_int_equal(tp_io_export(TP_EXPORT_MEGATRON, &cs[k], &r, NULL, &e, NULL), TP_OK);
        assert_null(e.notes);
        for (char *line = strtok(e.text, "\n"); line; line = strtok(NULL, "\n")) {
            if (strncmp(line, "--", 2) != 0)
                continue;
            line[strcspn(line, " ")] = '\0';
            if (!in_list(list, line)) {
                print_error("exported %s is not a Megatron-LM argument\n", line);
                fail();
            }
        }
        tp_io_export_free(&e);
    }
    free(list);
}

/* ---- round trips at the struct level ---- */

/* Apply an import's flags the way the CLI does, on a config built by hand. */
static const char *flag_value(const tp_import *im, const char *flag)
{
    const char *v = tp_io_import_value(im, flag);
    return v && v[0] ? v : NULL;
}

static bool has_flag(const tp_import *im, const char *flag)
{
    return tp_io_import_value(im, flag) != NULL;
}

static void test_megatron_round_trip_flags(void **state)
{
    (void)state;
    tp_config c;
    plan_70b(&c);
    tp_result r;
    assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
    tp_export e;
    /* the default loss, PyTorch's 12 B a logit, is not Megatron's */
    assert_int_equal(tp_io_export(TP_EXPORT_MEGATRON, &c, &r, NULL, &e, NULL), TP_OK);
    assert_int_equal(e.num_unexpressed, 1);
    assert_non_null(
        strstr(e.text, "the loss at 12 B a logit: Megatron-LM's cross-entropy holds 4"));
    tp_io_export_free(&e);
    c.opts.ce_bytes_per_logit = 4.0; /* Megatron's vocabulary-parallel loss */
    assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
    assert_int_equal(tp_io_export(TP_EXPORT_MEGATRON, &c, &r, NULL, &e, NULL), TP_OK);
    assert_int_equal(e.num_unexpressed, 0);
    tp_import im;
    tp_error err = {0};
    assert_int_equal(tp_io_import_megatron(e.text, "plan.txt", &im, &err), TP_OK);
    assert_string_equal(flag_value(&im, "--layers"), "80");
    assert_string_equal(flag_value(&im, "--kv-heads"), "8");
    assert_string_equal(flag_value(&im, "--vocab"), "128256");
    assert_string_equal(flag_value(&im, "--tp"), "8");
    assert_string_equal(flag_value(&im, "--pp"), "2");
    assert_string_equal(flag_value(&im, "--zero"), "1");
    assert_string_equal(flag_value(&im, "--recompute"), "selective");
    assert_string_equal(flag_value(&im, "--global-batch"), "256");
    assert_string_equal(flag_value(&im, "--grad-dtype"), "bf16");
    assert_string_equal(flag_value(&im, "--ce-bytes-per-logit"), "4");
    assert_true(has_flag(&im, "--sp"));
    assert_true(has_flag(&im, "--no-tie-embeddings"));
    assert_false(has_flag(&im, "--pad-vocab")); /* 128256 is a multiple of 1 x TP 8 */
    assert_false(has_flag(&im, "--dropout"));
    assert_false(im.has_gpus);
    assert_string_equal(im.model.name, "plan");
    assert_false(im.model.linear_bias);
    assert_int_equal(im.model.pos, TP_POS_ROTARY);
    assert_string_equal(im.ignored, "");
    tp_io_export_free(&e);
}

static void test_deepspeed_round_trip_flags(void **state)
{
    (void)state;
    tp_config c;
    plan_8b(&c);
    tp_result r;
    assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
    tp_export e;
    assert_int_equal(tp_io_export(TP_EXPORT_DEEPSPEED, &c, &r, NULL, &e, NULL), TP_OK);
    assert_non_null(e.notes);
    assert_int_equal(e.num_unexpressed, 0);
    tp_import im;
    tp_error err = {0};
    assert_int_equal(tp_io_import_deepspeed(e.text, "ds.json", &im, &err), TP_OK);
    assert_string_equal(flag_value(&im, "--micro-batch"), "2");
    assert_string_equal(flag_value(&im, "--global-batch"), "64");
    assert_string_equal(flag_value(&im, "--zero"), "3");
    assert_string_equal(flag_value(&im, "--precision"), "bf16");
    assert_string_equal(flag_value(&im, "--grad-dtype"), "fp32");
    assert_string_equal(flag_value(&im, "--optimizer"), "adamw");
    assert_string_equal(flag_value(&im, "--recompute"), "full");
    assert_int_equal(im.ds_grad_accum, 4);
    /* the batch identity holds for DP 8 and fails for DP 4 */
    assert_int_equal(tp_io_import_apply(&im, NULL, &c, &err), TP_OK);
    c.train.num_gpus = 4;
    assert_int_equal(tp_io_import_apply(&im, NULL, &c, &err), TP_ERR_CONFIG);
    assert_string_equal(err.path, "train_batch_size");
    assert_string_equal(err.message,
                        "64 is not train_micro_batch_size_per_gpu 2 x gradient_accumulation_steps "
                        "4 x data-parallel size 4 (= 32)");
    tp_io_export_free(&e);
}

/* ---- Megatron import: defaults, launcher, patterns, errors ---- */

static void test_megatron_defaults_and_launcher(void **state)
{
    (void)state;
    const char *text = "CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun --nproc_per_node 8 --nnodes=4 \\\n"
                       "  pretrain_gpt.py --num-layers 24 --hidden-size 2048 \\\n"
                       "  --num-attention-heads 16 --seq-length 2048 --max-position-embeddings "
                       "2048 # GPT-style\n"
                       "  --micro-batch-size 4 --bf16 --vocab-size 50257 --lr 3e-4 "
                       "--data-path 0.5 a 0.5 'b c' --tensor-model-parallel-size=2\n";
    tp_import im;
    tp_error err = {0};
    assert_int_equal(tp_io_import_megatron(text, "gpt.sh", &im, &err), TP_OK);
    assert_true(im.has_gpus);
    assert_string_equal(flag_value(&im, "--gpus"), "32");
    assert_string_equal(flag_value(&im, "--gpus-per-node"), "8");
    assert_string_equal(flag_value(&im, "--ffn-hidden"), "8192"); /* 4h */
    assert_string_equal(flag_value(&im, "--mlp"), "gelu");
    assert_string_equal(flag_value(&im, "--norm"), "layernorm");
    assert_true(has_flag(&im, "--tie-embeddings"));
    assert_true(has_flag(&im, "--dropout"));                    /* Megatron's 0.1 defaults */
    assert_string_equal(flag_value(&im, "--pad-vocab"), "256"); /* 128 x TP 2 */
    assert_string_equal(flag_value(&im, "--grad-dtype"), "fp32");
    assert_true(has_flag(&im, "--sp") == false);
    assert_true(im.model.linear_bias);
    assert_int_equal(im.model.pos, TP_POS_LEARNED);
    assert_int_equal(im.model.max_positions, 2048);
    assert_string_equal(im.ignored, "CUDA_DEVICE_MAX_CONNECTIONS (environment), --lr, --data-path");
}

static void test_megatron_swiglu_default_ffn(void **state)
{
    (void)state;
    tp_import im;
    tp_error err = {0};
    assert_int_equal(tp_io_import_megatron("--num-layers 2 --hidden-size 4096 "
                                           "--num-attention-heads 32 --swiglu --seq-length 4096 "
                                           "--micro-batch-size 1 --bf16",
                                           NULL, &im, &err),
                     TP_OK);
    /* int((4 * 4096 * 2 / 3) / 64) * 64 = 10880 */
    assert_string_equal(flag_value(&im, "--ffn-hidden"), "10880");
    assert_false(im.has_vocab);
}

static void test_megatron_moe_patterns(void **state)
{
    (void)state;
    static const struct {
        const char *freq;
        int64_t first, every;
    } cases[] = {{"1", 0, 1},
                 {"2", 0, 2},
                 {"([0]*3+[1]*5)", 3, 1},
                 {"[0,1,0,1,0,1,0,1]", 1, 2},
                 {"([0]+[1]*1)*4", 1, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "--num-layers 8 --hidden-size 1024 --num-attention-heads 8 --seq-length 1024 "
                 "--micro-batch-size 1 --bf16 --num-experts 8 --moe-router-topk 2 "
                 "--moe-layer-freq '%s'",
                 cases[i].freq);
        tp_import im;
        tp_error err = {0};
        assert_int_equal(tp_io_import_megatron(text, NULL, &im, &err), TP_OK);
        assert_int_equal(im.model.moe_first_dense, cases[i].first);
        assert_int_equal(im.model.moe_layer_freq, cases[i].every);
    }
}

typedef struct err_case {
    const char *text;
    tp_status code;
    int line, column;
    const char *message;
} err_case;

static const char *const base_args = "--num-layers 2 --hidden-size 512 --num-attention-heads 8 "
                                     "--seq-length 512 --micro-batch-size 1 --bf16 ";

/* An import's values fill the run description with their place in the
 * file; a later value (the user's flag) takes the field and its source. */
static void test_import_fills_desc(void **state)
{
    (void)state;
    tp_import im;
    tp_error err = {0};
    const char *text = "--num-layers 2 --hidden-size 512 --num-attention-heads 8\n"
                       "--seq-length 512 --micro-batch-size 1 --bf16\n"
                       "  --tensor-model-parallel-size 2\n";
    assert_int_equal(tp_io_import_megatron(text, "a.sh", &im, &err), TP_OK);
    assert_string_equal(tp_io_import_value(&im, "--tp"), "2");
    assert_null(tp_io_import_value(&im, "--json")); /* no field */
    tp_io_desc d;
    tp_io_desc_init(&d);
    assert_int_equal(tp_io_import_fill(&im, &d, &err), TP_OK);
    int tp = tp_io_desc_slot("--tp");
    assert_string_equal(tp_io_desc_get(&d, tp), "2");
    assert_int_equal(d.origin[tp], TP_IO_ORIGIN_FILE);
    tp_io_desc_src src;
    assert_true(tp_io_desc_file_source(&d, tp, &src));
    assert_string_equal(src.key, "--tensor-model-parallel-size");
    assert_int_equal(src.line, 3);
    assert_int_equal(src.col, 3);
    tp_io_desc_set(&d, tp, "4", TP_IO_ORIGIN_FLAG); /* the user's --tp 4 */
    assert_false(tp_io_desc_file_source(&d, tp, &src));
    assert_string_equal(tp_io_desc_get(&d, tp), "4");
}

static void test_megatron_errors(void **state)
{
    (void)state;
    static const err_case cases[] = {
        {"--num-layers 2\n--hiden-size 512\n", TP_ERR_CONFIG, 2, 1,
         "unknown Megatron-LM argument \"--hiden-size\" (did you mean \"--hidden-size\"?): "
         "trainplan cannot tell whether it changes memory or time"},
        {"--foo 1 --bar", TP_ERR_CONFIG, 1, 1,
         "unknown Megatron-LM arguments \"--foo\", \"--bar\": trainplan cannot tell whether "
         "they change memory or time"},
        {"--num-layers 2 --distribute-saved-activations", TP_ERR_CONFIG, 1, 16,
         "\"--distribute-saved-activations\" splits the stored activations across the "
         "tensor-parallel group, which changes memory or time in a way trainplan does not model"},
        {"--num-layers $L --hidden-size 512 --num-attention-heads 8", TP_ERR_CONFIG, 1, 14,
         "\"--num-layers\" has the unexpanded shell value \"$L\"; expand the variables before "
         "importing"},
        {"--num-layers two --hidden-size 512 --num-attention-heads 8", TP_ERR_INVALID_ARG, 1, 14,
         "--num-layers: expected an integer, got \"two\""},
        {"--hidden-size 512 --num-attention-heads 8 --num-layers", TP_ERR_CONFIG, 1, 43,
         "\"--num-layers\" needs a value"},
        {"--swiglu=1", TP_ERR_CONFIG, 1, 1, "\"--swiglu\" takes no value (got \"1\")"},
        {"--num-layers 2 \\\n  --seq-length '512", TP_ERR_PARSE, 2, 16,
         "unterminated single quote"},
        {"pretrain_gpt.py.bak --num-layers 2", TP_ERR_CONFIG, 1, 1,
         "unexpected argument \"pretrain_gpt.py.bak\" (expected a --flag of Megatron-LM)"},
        {"--hidden-size 512", TP_ERR_CONFIG, 0, 0, "the arguments do not set \"--num-layers\""},
        {"--num-layers 2 --attention-output-gate", TP_ERR_CONFIG, 1, 16,
         "\"--attention-output-gate\" adds a gate to the attention output, which changes "
         "memory or time in a way trainplan does not model"},
        /* switches and values of names trainplan ignores come from the lists too */
        {"--num-layers 2 --use-mup 1", TP_ERR_CONFIG, 1, 26,
         "\"--use-mup\" takes no value (got \"1\")"},
        {"--overlap-grad-reduce=yes", TP_ERR_CONFIG, 1, 1,
         "\"--overlap-grad-reduce\" takes no value (got \"yes\")"},
        {"--lion-beta1\n--num-layers 2", TP_ERR_CONFIG, 1, 1, "\"--lion-beta1\" needs a value"},
        {"--num-distributed-optimizer-instances 2", TP_ERR_CONFIG, 1, 1,
         "\"--num-distributed-optimizer-instances 2\" keeps several distributed-optimizer "
         "copies, which changes memory or time in a way trainplan does not model"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_import im;
        tp_error err = {0};
        tp_status st = tp_io_import_megatron(cases[i].text, "args.txt", &im, &err);
        if (st != cases[i].code || strcmp(err.message, cases[i].message) != 0 ||
            err.line != cases[i].line || err.column != cases[i].column) {
            print_error("case %zu: got %d %d:%d \"%s\"\n", i, (int)st, err.line, err.column,
                        err.message);
            fail();
        }
    }
    /* errors found while interpreting a complete argument list */
    static const struct {
        const char *extra, *message;
    } more[] = {
        {"--recompute-granularity full",
         "\"--recompute-granularity full\" needs \"--recompute-method uniform\""},
        {"--recompute-granularity full --recompute-method uniform --moe-layer-recompute",
         "\"--moe-layer-recompute\" cannot be combined with \"--recompute-granularity full\""},
        {"--fp16", "\"--bf16\" and \"--fp16\" cannot both be set"},
        {"--normalization RMSnorm", "\"--normalization\" must be one of LayerNorm, RMSNorm (got "
                                    "\"RMSnorm\")"},
        {"--recompute-activations --recompute-modules core_attn mhc",
         "--recompute-modules: unknown recompute module \"mhc\" (known: "
         "core_attn,layernorm,mlp,moe,moe_act,shared_experts,mla_up_proj)"},
        {"--swiglu --quick-geglu", "\"--quick-geglu\" and \"--swiglu\" are both given"},
        {"--use-megatron-fsdp --megatron-fsdp-main-grads-dtype fp32 "
         "--megatron-fsdp-grad-comm-dtype bf16",
         "\"--megatron-fsdp-grad-comm-dtype bf16\" reduces gradients in bf16 but keeps them in "
         "fp32 (trainplan has one gradient dtype), which changes memory or time in a way "
         "trainplan does not model"},
        {"--megatron-fsdp-grad-comm-dtype fp8",
         "\"--megatron-fsdp-grad-comm-dtype\" must be one of fp32, bf16, fp16, auto (got "
         "\"fp8\")"},
        {"--load /ckpt --export-force-local-attention",
         "\"--export-force-local-attention\" takes effect only when ModelOpt builds the model, "
         "which a ModelOpt checkpoint in \"--load\" turns on: trainplan cannot tell from the "
         "arguments; add \"--modelopt-enabled\" if the checkpoint has ModelOpt state, or "
         "remove \"--export-force-local-attention\""},
        {"--optimizer-cpu-offload --optimizer-offload-fraction 1.5",
         "--optimizer-offload-fraction: 1.5 is out of range [0, 1]"},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s", base_args, more[i].extra);
        tp_import im;
        tp_error err = {0};
        tp_status st = tp_io_import_megatron(text, NULL, &im, &err);
        if (st == TP_OK || strcmp(err.message, more[i].message) != 0) {
            print_error("case %zu: got %d \"%s\"\n", i, (int)st, err.message);
            fail();
        }
    }
}

/* A launch of the current Megatron-LM (names new since 000c4ac2) and one
 * of the older (names gone since) are both read. */
static void test_megatron_current_names(void **state)
{
    (void)state;
    char text[512];
    snprintf(text, sizeof text, "%s%s", base_args,
             "--fsdp-manual-registration --use-mup --lion-beta1 0.9 --no-pad-vocab-size=x");
    tp_import im;
    tp_error err = {0};
    /* --no-pad-vocab-size is a switch that trainplan refuses: the refusal wins */
    assert_int_equal(tp_io_import_megatron(text, NULL, &im, &err), TP_ERR_CONFIG);
    assert_string_equal(err.message, "\"--no-pad-vocab-size\" turns off the padding of the "
                                     "vocabulary, which changes memory or time in a way "
                                     "trainplan does not model");
    snprintf(text, sizeof text, "%s%s", base_args,
             "--fsdp-manual-registration --use-mup --lion-beta1 0.9 --mtp-hsm "
             "--hybrid-attention-ratio 0 --use-legacy-models");
    assert_int_equal(tp_io_import_megatron(text, NULL, &im, &err), TP_OK);
    assert_string_equal(im.approximated, "--fsdp-manual-registration, --use-legacy-models");
    assert_string_equal(im.ignored, "--use-mup, --lion-beta1, --mtp-hsm");
    /* a rejected name given its neutral value (Megatron-LM's default) is ignored */
    snprintf(text, sizeof text, "%s%s", base_args,
             "--mlp-chunks-for-training 1 --outer-dp-sharding-strategy=no_shard");
    assert_int_equal(tp_io_import_megatron(text, NULL, &im, &err), TP_OK);
    assert_string_equal(im.ignored, "--mlp-chunks-for-training, --outer-dp-sharding-strategy");
    snprintf(text, sizeof text, "%s%s", base_args, "--mlp-chunks-for-training 2");
    assert_int_equal(tp_io_import_megatron(text, NULL, &im, &err), TP_ERR_CONFIG);
    assert_string_equal(err.message, "\"--mlp-chunks-for-training\" computes the MLP in chunks "
                                     "of the sequence, which changes memory or time in a way "
                                     "trainplan does not model");
    snprintf(text, sizeof text, "%s%s", base_args, "--mlp-chunks-for-training $N");
    assert_int_equal(tp_io_import_megatron(text, NULL, &im, &err), TP_ERR_CONFIG);
    /* the plan is the one without the new names */
    snprintf(text, sizeof text, "%s%s", base_args,
             "--fsdp-manual-registration --use-mup --lion-beta1 0.9 --mtp-hsm "
             "--hybrid-attention-ratio 0 --use-legacy-models");
    assert_int_equal(tp_io_import_megatron(text, NULL, &im, &err), TP_OK);
    tp_import plain;
    assert_int_equal(tp_io_import_megatron(base_args, NULL, &plain, &err), TP_OK);
    assert_int_equal(im.nvals, plain.nvals);
    for (int i = 0; i < im.nvals; i++) {
        assert_int_equal(im.vals[i].slot, plain.vals[i].slot);
        assert_string_equal(im.buf + im.vals[i].off, plain.buf + plain.vals[i].off);
    }
}

static void test_megatron_apply_errors(void **state)
{
    (void)state;
    tp_import im;
    tp_error err = {0};
    assert_int_equal(tp_io_import_megatron(base_args, NULL, &im, &err), TP_OK);
    tp_config c;
    plan_8b(&c);
    tp_import_user u = {0};
    assert_int_equal(tp_io_import_apply(&im, &u, &c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "vocab");
    u.vocab = true;
    assert_int_equal(tp_io_import_apply(&im, &u, &c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "gpus");
    u.gpus = true;
    u.model = true;
    assert_int_equal(tp_io_import_apply(&im, &u, &c, &err), TP_ERR_INVALID_ARG);
    assert_string_equal(err.path, "model");
    u.model = false;
    assert_int_equal(tp_io_import_apply(&im, &u, &c, &err), TP_OK);
    assert_true(c.model.linear_bias); /* Megatron's default */
}

static void test_deepspeed_errors(void **state)
{
    (void)state;
    static const err_case cases[] = {
        {"{\"train_batch_size\": 8,\n \"zero_optimization\": {\"stage\": 3, "
         "\"offload_optimizer\": {\"device\": \"nvme\"}}}",
         TP_ERR_CONFIG, 0, 0,
         "\"zero_optimization.offload_optimizer\" \"nvme\" offloads to the NVMe drive, which "
         "changes memory or time in a way trainplan does not model"},
        {"{\"zero_optimization\": {\"stage\": 3, \"offload_param\": {\"device\": \"disk\"}}}",
         TP_ERR_CONFIG, 0, 0,
         "\"zero_optimization.offload_param.device\" must be \"none\", \"cpu\" or \"nvme\""},
        {"{\"zero_optimization\": {\"stage\": 3, \"offload_optimizer\": {\"device\": \"cpu\", "
         "\"ratio\": 2}}}",
         TP_ERR_CONFIG, 0, 0,
         "\"zero_optimization.offload_optimizer.ratio\" must be a number from 0 to 1"},
        {"{\"train_batch_size\": 8, \"zero_optimisation\": {}}", TP_ERR_CONFIG, 0, 0,
         "unknown DeepSpeed config key \"zero_optimisation\": trainplan cannot tell whether it "
         "changes memory or time"},
        {"{\"train_batch_size\": 8,\n \"bf16\": {\"enabled\": true,}}", TP_ERR_PARSE, 2, 27,
         "string or '}' expected near '}'"},
        {"{\"train_micro_batch_size_per_gpu\": 0}", TP_ERR_CONFIG, 0, 0,
         "\"train_micro_batch_size_per_gpu\" must be a positive integer or \"auto\""},
        {"{\"bf16\": {\"enabled\": true}, \"fp16\": {\"enabled\": true}}", TP_ERR_CONFIG, 0, 0,
         "\"bf16.enabled\" and \"fp16.enabled\" cannot both be true"},
        {"{\"optimizer\": {\"type\": \"Lamb\"}}", TP_ERR_CONFIG, 0, 0,
         "\"optimizer.type\" \"Lamb\" keeps optimizer state other than AdamW's or SGD's, which "
         "changes memory or time in a way trainplan does not model"},
        {"[1, 2]", TP_ERR_CONFIG, 0, 0, "a DeepSpeed config must be a JSON object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tp_import im;
        tp_error err = {0};
        tp_status st = tp_io_import_deepspeed(cases[i].text, "ds.json", &im, &err);
        if (st != cases[i].code || strcmp(err.message, cases[i].message) != 0 ||
            err.line != cases[i].line || err.column != cases[i].column) {
            print_error("case %zu: got %d %d:%d \"%s\"\n", i, (int)st, err.line, err.column,
                        err.message);
            fail();
        }
    }
    /* "auto" counts as not given; known tuning keys are listed, not errors */
    tp_import im;
    tp_error err = {0};
    assert_int_equal(tp_io_import_deepspeed("{\"train_micro_batch_size_per_gpu\": \"auto\", "
                                            "\"gradient_clipping\": 1.0, \"zero_optimization\": "
                                            "{\"stage\": 2, \"overlap_comm\": true}}",
                                            NULL, &im, &err),
                     TP_OK);
    assert_int_equal(im.ds_micro_batch, 0);
    assert_string_equal(im.ignored, "gradient_clipping");
    assert_string_equal(im.approximated, "zero_optimization.overlap_comm");
    assert_string_equal(flag_value(&im, "--zero"), "2");
}

/* ---- exports: structure ---- */

static void test_exports_mark_the_inexpressible(void **state)
{
    (void)state;
    tp_config c;
    plan_70b(&c);
    c.train.schedule = TP_SCHED_GPIPE;
    c.train.fused_ce = true;
    tp_result r;
    assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
    tp_export e;
    assert_int_equal(tp_io_export(TP_EXPORT_MEGATRON, &c, &r, NULL, &e, NULL), TP_OK);
    assert_int_equal(e.num_unexpressed, 2);
    assert_non_null(strstr(e.text, "# Not expressible in Megatron-LM (2;"));
    assert_non_null(strstr(e.text, "GPipe schedule"));
    tp_io_export_free(&e);

    plan_70b(&c);
    assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
    assert_int_equal(tp_io_export(TP_EXPORT_TORCHTITAN_TOML, &c, &r, NULL, &e, NULL), TP_OK);
    /* ZeRO-1, bf16 gradients and selective recompute have no torchtitan equivalent, its
     * 70B flavor is Llama 3.1's, with the rotary scaling Llama 3 70B lacks, and at TP 8
     * its loss parallel holds 16 B a logit, not the plan's 12 */
    assert_int_equal(e.num_unexpressed, 5);
    assert_non_null(strstr(e.text, "\n[parallelism]\n"));
    assert_non_null(strstr(e.text, "flavor = \"70B\""));
    assert_non_null(strstr(e.text, "rotary scaling: torchtitan's llama3 flavor 70B applies"));
    assert_non_null(
        strstr(e.text, "the loss at 12 B a logit: torchtitan's cross-entropy holds 16"));
    tp_io_export_free(&e);
    /* the Python form: the same five (its recipe llama3_70b does not compile the loss) */
    assert_int_equal(tp_io_export(TP_EXPORT_TORCHTITAN, &c, &r, NULL, &e, NULL), TP_OK);
    assert_int_equal(e.num_unexpressed, 5);
    assert_non_null(
        strstr(e.text, "the loss at 12 B a logit: torchtitan's cross-entropy holds 16"));
    tp_io_export_free(&e);
    /* planned at the loss-parallel figure, the loss is expressed */
    c.opts.ce_bytes_per_logit_tp = 16.0;
    assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
    assert_int_equal(tp_io_export(TP_EXPORT_TORCHTITAN, &c, &r, NULL, &e, NULL), TP_OK);
    assert_int_equal(e.num_unexpressed, 4);
    assert_null(strstr(e.text, "the loss at"));
    assert_non_null(strstr(e.text, "    config = llama3_70b()"));
    assert_non_null(strstr(e.text, "    config.model_spec = model_registry(\"70B\")\n"));
    assert_non_null(strstr(e.text, "        tensor_parallel_degree=8,\n"));
    tp_io_export_free(&e);
    assert_int_equal(tp_io_export(TP_EXPORT_COUNT, &c, &r, NULL, &e, NULL), TP_ERR_INVALID_ARG);
}

static void test_train_tokens_set_steps(void **state)
{
    (void)state;
    tp_config c;
    plan_8b(&c);
    tp_result r;
    assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
    tp_export_opts o = {.train_tokens = 1000000000}; /* 1e9 / (64 x 8192) = 1907.3 -> 1908 */
    tp_export e;
    assert_int_equal(tp_io_export(TP_EXPORT_MEGATRON, &c, &r, &o, &e, NULL), TP_OK);
    assert_non_null(strstr(e.text, "\n--train-iters 1908\n"));
    tp_io_export_free(&e);
    assert_int_equal(tp_io_export(TP_EXPORT_TORCHTITAN_TOML, &c, &r, &o, &e, NULL), TP_OK);
    assert_non_null(strstr(e.text, "\nsteps = 1908\n"));
    tp_io_export_free(&e);
    assert_int_equal(tp_io_export(TP_EXPORT_TORCHTITAN, &c, &r, &o, &e, NULL), TP_OK);
    assert_non_null(strstr(e.text, "\n    config.training.steps = 1908\n"));
    tp_io_export_free(&e);
}

/* ---- charts ---- */

static void test_schedule_bubble_matches_closed_form(void **state)
{
    (void)state;
    for (int64_t p = 1; p <= 8; p *= 2) {
        for (int64_t m = p; m <= 32; m *= 2) {
            double want = (double)(p - 1) / (double)(m + p - 1);
            assert_rel(tp_io_schedule_bubble(TP_SCHED_1F1B, p, m, 1, 2.0) + 1.0, want + 1.0, 1e-12);
            assert_rel(tp_io_schedule_bubble(TP_SCHED_GPIPE, p, m, 1, 3.0) + 1.0, want + 1.0,
                       1e-12);
            /* interleaved: (p - 1) / (v m + p - 1) (Narayanan et al. 2021, 2.2.2) */
            for (int64_t v = 2; v <= 4; v *= 2) {
                double wi = (double)(p - 1) / (double)(v * m + p - 1);
                assert_rel(tp_io_schedule_bubble(TP_SCHED_INTERLEAVED, p, m, v, 2.0) + 1.0,
                           wi + 1.0, 1e-12);
            }
        }
    }
    assert_true(tp_io_schedule_bubble(TP_SCHED_1F1B, 0, 4, 1, 2.0) < 0.0);
}

/* Value of attribute attr in the first element at or after `from`. */
static double attr_after(const char *from, const char *attr)
{
    const char *p = strstr(from, attr);
    assert_non_null(p);
    return strtod(p + strlen(attr), NULL);
}

static void test_svg_figures_match_result(void **state)
{
    (void)state;
    tp_config c;
    plan_70b(&c);
    tp_result r;
    assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
    char *svg = tp_io_svg_report(&c, &r);
    assert_non_null(svg);
    assert_int_equal(strncmp(svg, "<?xml", 5), 0);
    assert_non_null(strstr(svg, "</svg>\n"));
    const char *w = strstr(svg, "data-component=\"weights\" data-bytes=\"");
    assert_non_null(w);
    assert_rel(attr_after(w, "data-bytes=\""), r.memory.weights_bytes, 1e-9);
    const char *a = strstr(svg, "data-component=\"activations\" data-bytes=\"");
    assert_rel(attr_after(a, "data-bytes=\""), r.memory.activations_bytes, 1e-9);
    assert_rel(attr_after(svg, "data-capacity-bytes=\""), r.memory.capacity_bytes, 1e-9);
    const char *s = strstr(svg, "class=\"schedule\"");
    assert_non_null(s);
    double model = attr_after(s, "data-bubble-fraction=\"");
    double sim = attr_after(s, "data-simulated-bubble-fraction=\"");
    assert_rel(sim + 1.0, model + 1.0, 1e-6);
    free(svg);
}

static int count_fields(const char *line)
{
    int n = 1;
    bool q = false;
    for (const char *p = line; *p && *p != '\n'; p++) {
        if (*p == '"')
            q = !q;
        else if (*p == ',' && !q)
            n++;
    }
    return n;
}

static void test_csv_columns(void **state)
{
    (void)state;
    tp_config c;
    plan_8b(&c);
    tp_result r;
    assert_int_equal(tp_eval(&c, &r, NULL), TP_OK);
    char buf[8192];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    assert_non_null(f);
    tp_io_csv_header(f);
    tp_io_csv_row(f, &c, &r);
    fclose(f);
    const char *row = strchr(buf, '\n') + 1;
    assert_int_equal(count_fields(buf), count_fields(row));
    assert_int_equal(strncmp(buf, "model,gpu,num_gpus,", 19), 0);
    assert_int_equal(strncmp(row, "llama-3-8b,h100-sxm,8,", 22), 0);
}

/* ---- tp_io_write_files ---- */

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[256];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Entries of dir other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void test_write_files_atomic_and_no_overwrite(void **state)
{
    (void)state;
    char dir[] = "/tmp/tp_write_files_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[128], b[128], missing[160];
    snprintf(a, sizeof a, "%s/a.txt", dir);
    snprintf(b, sizeof b, "%s/b.txt", dir);
    snprintf(missing, sizeof missing, "%s/no/such/dir.txt", dir);
    tp_error err = {0};

    /* a new file: exactly the bytes given, mode 0666 & ~umask, nothing else */
    tp_io_file f1 = {a, "first\n", 6, NULL};
    assert_int_equal(tp_io_write_files(&f1, 1, false, &err), TP_OK);
    assert_string_equal(slurp_file(a), "first\n");
    mode_t um = umask(0);
    umask(um);
    struct stat st;
    assert_int_equal(stat(a, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0666 & ~um);
    assert_int_equal(count_entries(dir), 1);

    /* an existing file is refused without force, named with the flag, kept */
    tp_io_file f2 = {a, "second\n", 7, NULL};
    assert_int_equal(tp_io_write_files(&f2, 1, false, &err), TP_ERR_IO);
    char want[200];
    snprintf(want, sizeof want, "%s exists (use --force to overwrite it)", a);
    assert_string_equal(err.message, want);
    assert_string_equal(slurp_file(a), "first\n");
    assert_int_equal(count_entries(dir), 1);

    /* and replaced with force */
    assert_int_equal(tp_io_write_files(&f2, 1, true, &err), TP_OK);
    assert_string_equal(slurp_file(a), "second\n");
    assert_int_equal(count_entries(dir), 1);

    /* two files, all or nothing: the second cannot be created, so neither is */
    tp_io_file two[2] = {{b, "b\n", 2, NULL}, {missing, "m\n", 2, NULL}};
    assert_int_equal(tp_io_write_files(two, 2, false, &err), TP_ERR_IO);
    assert_non_null(strstr(err.message, "cannot create a file beside"));
    assert_int_equal(access(b, F_OK), -1);
    assert_int_equal(count_entries(dir), 1); /* no b.txt, no temporary file */

    /* bad calls */
    tp_io_file dup[2] = {{b, "x", 1, NULL}, {b, "y", 1, NULL}};
    assert_int_equal(tp_io_write_files(dup, 2, false, &err), TP_ERR_INVALID_ARG);
    tp_io_file empty = {"", "x", 1, NULL};
    assert_int_equal(tp_io_write_files(&empty, 1, false, &err), TP_ERR_INVALID_ARG);
    assert_int_equal(count_entries(dir), 1);

    assert_int_equal(unlink(a), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Issue 14: untrusted text reaches no terminal as a control sequence. */
static void test_safe_text(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(tp_io_safe_text("a\x1b[2Jb\x7f\xc2\x9b\xc3\xa9\xff\t\n", buf, sizeof buf),
                        "a\\x1b[2Jb\\x7f\\xc2\\x9b\xc3\xa9\\xff\\x09\\x0a");
    assert_string_equal(tp_io_safe_text("llama-3-8b", buf, sizeof buf), "llama-3-8b");
    /* overlong and surrogate encodings are not UTF-8 */
    assert_string_equal(tp_io_safe_text("\xc0\xaf\xed\xa0\x80", buf, sizeof buf),
                        "\\xc0\\xaf\\xed\\xa0\\x80");
    /* a full buffer ends before a character, never inside an escape */
    char small[6];
    assert_string_equal(tp_io_safe_text("ab\x1b", small, sizeof small), "ab");
    assert_string_equal(tp_io_safe_text("\x01\x02", small, sizeof small), "\\x01");
}

/* Issue 14: the one reader refuses what is not a regular file, and big files. */
static void test_read_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/tp_read_file_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[128], reg[128];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(reg, sizeof reg, "%s/reg", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    tp_io_read_opts o = {(size_t)1 << 20, false, false, "x"};
    tp_error err = {0};
    char *buf = NULL;
    size_t len = 0;
    /* a FIFO with no writer: refused at once, not waited on */
    assert_int_equal(tp_io_read_file(fifo, &o, &buf, &len, &err), TP_ERR_IO);
    char want[256];
    snprintf(want, sizeof want, "%s is a FIFO (named pipe); trainplan reads regular files only",
             fifo);
    assert_string_equal(err.message, want);
    assert_string_equal(err.path, "x");
    assert_null(buf);
    /* exactly the limit is read; one byte more is refused */
    FILE *f = fopen(reg, "wb");
    assert_non_null(f);
    for (size_t i = 0; i < ((size_t)1 << 20); i++)
        fputc('a', f);
    fclose(f);
    assert_int_equal(tp_io_read_file(reg, &o, &buf, &len, &err), TP_OK);
    assert_int_equal(len, (size_t)1 << 20);
    assert_int_equal(buf[len], '\0');
    free(buf);
    f = fopen(reg, "ab");
    assert_non_null(f);
    fputc('a', f);
    fclose(f);
    assert_int_equal(tp_io_read_file(reg, &o, &buf, &len, &err), TP_ERR_IO);
    snprintf(want, sizeof want, "cannot read %s: larger than 1 MiB", reg);
    assert_string_equal(err.message, want);
    /* a directory keeps read()'s wording */
    o.quote = true;
    assert_int_equal(tp_io_read_file(dir, &o, &buf, &len, &err), TP_ERR_IO);
    snprintf(want, sizeof want, "cannot read \"%s\": Is a directory", dir);
    assert_string_equal(err.message, want);
    assert_int_equal(unlink(fifo), 0);
    assert_int_equal(unlink(reg), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron_tables_are_facts),
        cmocka_unit_test(test_megatron_table_values),
        cmocka_unit_test(test_megatron_current_names),
        cmocka_unit_test(test_megatron_export_uses_known_args),
        cmocka_unit_test(test_megatron_round_trip_flags),
        cmocka_unit_test(test_deepspeed_round_trip_flags),
        cmocka_unit_test(test_megatron_defaults_and_launcher),
        cmocka_unit_test(test_megatron_swiglu_default_ffn),
        cmocka_unit_test(test_megatron_moe_patterns),
        cmocka_unit_test(test_import_fills_desc),
        cmocka_unit_test(test_megatron_errors),
        cmocka_unit_test(test_megatron_apply_errors),
        cmocka_unit_test(test_deepspeed_errors),
        cmocka_unit_test(test_exports_mark_the_inexpressible),
        cmocka_unit_test(test_train_tokens_set_steps),
        cmocka_unit_test(test_schedule_bubble_matches_closed_form),
        cmocka_unit_test(test_svg_figures_match_result),
        cmocka_unit_test(test_csv_columns),
        cmocka_unit_test(test_write_files_atomic_and_no_overwrite),
        cmocka_unit_test(test_safe_text),
        cmocka_unit_test(test_read_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
