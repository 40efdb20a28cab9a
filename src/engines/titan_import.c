/* SPDX-License-Identifier: MIT */
/*
 * titan_import.c: a torchtitan configuration read as trainplan settings
 * (--from-torchtitan, tp_io_import_torchtitan in import.h), in either form
 * torchtitan.c writes (its header names the versions):
 *
 *   - the job TOML of the releases before 2026-02-23 (`[section]` and
 *     `key = value` lines; arrays may span lines);
 *   - the Python configuration since then, as far as it is plain data:
 *     `config.SECTION.FIELD = VALUE` lines, the keywords of a
 *     `config.parallelism = ParallelismConfig(...)` call, the flavor of
 *     `model_registry("8B", ...)`, a Float8LinearConverter, the
 *     activation checkpointing policy (FullAC, SelectiveAC or None) and the
 *     loss (ChunkedLossWrapper: no whole logits tensor). Every other line
 *     (imports, the def, comments, a return) is left alone; a `config.`
 *     assignment of a field this reader does not know is an error, since
 *     trainplan cannot tell whether it matters;
 *   - torchtitan's own recipes, one `Trainer.Config(...)` expression whose
 *     keyword arguments are read the same way (trainer_call), the family
 *     from `from torchtitan.models.X import model_registry` or from the
 *     recipe function's name (`from . import model_registry` in
 *     config_registry.py): llama3, deepseek_v3, qwen3, gpt_oss; and a
 *     Python configuration that starts from one (`config = llama3_70b()`)
 *     starts from that recipe's settings (titan_recipes), its own lines
 *     replacing them.
 *
 * Both become the same keys (section.field, the TOML names) and then the
 * trainplan flags: the flavor as the preset of the same architecture
 * (every llama3 flavor is Llama 3.1's: 1B and 3B are Llama 3.2's shapes
 * with factor-8 rotary scaling), the batch, the degrees (the GPU count is
 * their product when data_parallel_shard_degree is given), the ZeRO stage
 * from replicate/shard/reshard, the schedule and layer split, recompute,
 * fp8 (the float8 converter: torchao's Float8Linear, which saves 16-bit
 * inputs, --fp8-hp-saved-inputs), the gradient dtype and FSDP2's CPU
 * offload (enable_cpu_offload: --offload-params cpu --offload-optimizer 1).
 *
 * Invariant: an import never allocates memory that outlives the call.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "import_build.h"
#include "io.h"
#include "io_internal.h"

#define TK_MAX 48

typedef struct tkey {
    char key[96];   /* "parallelism.tensor_parallel_degree" */
    char val[1024]; /* the value as written (arrays: the layer count per part, see below) */
    int line;
} tkey;

typedef struct tkeys {
    tkey k[TK_MAX];
    int n;
    bool python;
    char family[64]; /* the torchtitan model family of model_registry */
    int family_line;
    char recipe[64];       /* `config = RECIPE()`: the recipe the configuration starts from */
    bool compile_replaced; /* compile given whole (CompileConfig(...)): not the recipe's */
    int recipe_line;
    tp_import *im; /* for the lists of ignored and approximated settings */
} tkeys;

static const tkey *tk_get(const tkeys *t, const char *key)
{
    for (int i = t->n - 1; i >= 0; i--) /* the last assignment wins */
        if (strcmp(t->k[i].key, key) == 0)
            return &t->k[i];
    return NULL;
}

/* The line of a key, 0 when absent. */
static int tk_line(const tkeys *t, const char *key)
{
    const tkey *k = tk_get(t, key);
    return k ? k->line : 0;
}

/* Forget the keys that start with prefix: a later value replaces the whole
 * of what they were part of (a ParallelismConfig(...) or model_registry(...)
 * given whole: its fields not given are torchtitan's defaults again, not a
 * recipe's). */
static void tk_drop(tkeys *t, const char *prefix)
{
    size_t n = strlen(prefix);
    int w = 0;
    for (int i = 0; i < t->n; i++)
        if (strncmp(t->k[i].key, prefix, n) != 0)
            t->k[w++] = t->k[i];
    t->n = w;
}

/* The keys read, with what the Python names are in the TOML's terms. */
static const char *const titan_keys[] = {"model.name",
                                         "model.flavor",
                                         "model.num_mtp_layers",
                                         "model.converters",
                                         "training.local_batch_size",
                                         "training.global_batch_size",
                                         "training.seq_len",
                                         "training.steps",
                                         "training.mixed_precision_param",
                                         "training.mixed_precision_reduce",
                                         "training.max_context_length",
                                         "training.num_tokens_per_microbatch_per_dp_rank",
                                         "training.num_tokens_per_train_step",
                                         "training.enable_cpu_offload",
                                         "parallelism.data_parallel_replicate_degree",
                                         "parallelism.data_parallel_shard_degree",
                                         "parallelism.fsdp_reshard_after_forward",
                                         "parallelism.tensor_parallel_degree",
                                         "parallelism.enable_sequence_parallel",
                                         "parallelism.pipeline_parallel_degree",
                                         "parallelism.pipeline_parallel_schedule",
                                         "parallelism.pipeline_parallel_microbatch_size",
                                         "parallelism.num_pp_microbatches",
                                         "parallelism.pipeline_parallel_layers_per_stage",
                                         "parallelism.module_fqns_per_model_part",
                                         "parallelism.context_parallel_degree",
                                         "parallelism.expert_parallel_degree",
                                         "activation_checkpoint.mode",
                                         "activation_checkpoint.selective_ac_option",
                                         "job.description",
                                         "loss.chunked",
                                         "compile.enable",
                                         "compile.components",
                                         "compile.enable_async_tensor_parallel",
                                         "parallelism.enable_async_tensor_parallel",
                                         "parallelism.disable_loss_parallel",
                                         "optimizer.name",
                                         NULL};

/* Sections and keys that cannot change memory or time (run length, data,
 * logging, checkpoints, learning rate, numerics) or only through what the
 * calibrated efficiencies stand for (compilation, async TP). */
static const char *const ignored_sections[] = {"job.",
                                               "profiling.",
                                               "metrics.",
                                               "lr_scheduler.",
                                               "checkpoint.",
                                               "validation.",
                                               "comm.",
                                               "debug.",
                                               "fault_tolerance.",
                                               "experimental.",
                                               "memory_estimation.",
                                               "quantize.",
                                               "dataloader.",
                                               "profiler.",
                                               NULL};
static const char *const ignored_keys[] = {"model.hf_assets_path",
                                           "model.tokenizer_path",
                                           "model.print_after_conversion",
                                           "optimizer.lr",
                                           "optimizer.eps",
                                           "optimizer.weight_decay",
                                           "optimizer.beta1",
                                           "optimizer.beta2",
                                           "optimizer.implementation",
                                           "training.dataset",
                                           "training.dataset_path",
                                           "training.max_norm",
                                           "training.gc_freq",
                                           "training.gc_debug",
                                           "training.steps",
                                           "training.dtype",
                                           "training.seed",
                                           "training.deterministic",
                                           "parallelism.context_parallel_load_balancer",
                                           "parallelism.pipeline_parallel_schedule_csv",
                                           "parallelism.spmd_backend",
                                           NULL};
static const char *const approx_prefixes[] = {"compile.", "training.disable_cuda_graphs",
                                              "parallelism.enable_fsdp_symm_mem", NULL};

static bool has_prefix(const char *k, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strncmp(k, list[i], strlen(list[i])) == 0)
            return true;
    return false;
}

static bool known_key(const char *k)
{
    for (size_t i = 0; titan_keys[i]; i++)
        if (strcmp(titan_keys[i], k) == 0)
            return true;
    return false;
}

static tp_status tk_error(tp_error *err, int line, const char *key, const char *what)
{
    tp_status st = tp_error_set(err, TP_ERR_CONFIG, key, "\"%s\" %s", key, what);
    if (err && line > 0) {
        err->line = line;
        err->column = 1; /* the setting's line; its start */
    }
    return st;
}

/* A Python or TOML true. */
static bool is_true(const char *v)
{
    return strncmp(v, "true", 4) == 0 || strncmp(v, "True", 4) == 0;
}

static tp_status tk_add(tkeys *t, const char *key, const char *val, int line, tp_error *err)
{
    if (strcmp(key, "training.dtype") == 0 && strstr(val, "float32") == NULL)
        return tk_error(err, line, key,
                        "keeps the parameters in bfloat16 without float32 master weights, which "
                        "changes memory in a way trainplan does not model");
    if ((strcmp(key, "training.enable_cpu_offload") == 0 ||
         strcmp(key, "optimizer.early_step_in_backward") == 0) &&
        !is_true(val))
        return TP_OK; /* off: changes nothing */
    if (has_prefix(key, ignored_sections) || has_prefix(key, ignored_keys)) {
        list_add(t->im->ignored, sizeof t->im->ignored, key);
        return TP_OK;
    }
    if (has_prefix(key, approx_prefixes) && !known_key(key)) {
        list_add(t->im->approximated, sizeof t->im->approximated, key);
        return TP_OK;
    }
    if (!known_key(key))
        return tk_error(err, line, key,
                        "is not a torchtitan setting trainplan reads: it cannot tell whether it "
                        "changes memory or time");
    if (t->n >= TK_MAX)
        return tk_error(err, line, key, "is one setting too many (at most 48)");
    tkey *k = &t->k[t->n++];
    snprintf(k->key, sizeof k->key, "%s", key);
    snprintf(k->val, sizeof k->val, "%s", val);
    k->line = line;
    return TP_OK;
}

/* Trim spaces and a trailing comma; strip a `#` comment outside quotes. */
static void trim(char *s)
{
    bool q = false;
    for (char *p = s; *p; p++) {
        if (*p == '"')
            q = !q;
        else if (*p == '#' && !q) {
            *p = '\0';
            break;
        }
    }
    size_t n = strlen(s);
    while (n > 0 && (isspace((unsigned char)s[n - 1]) || s[n - 1] == ','))
        s[--n] = '\0';
    size_t i = 0;
    while (isspace((unsigned char)s[i]))
        i++;
    memmove(s, s + i, strlen(s + i) + 1);
}

/* module_fqns_per_model_part: only the number of layers of each part
 * matters; the value kept is "n0,n1,...". */
static void fqn_counts(const char *v, char *out, size_t cap)
{
    out[0] = '\0';
    int depth = 0, count = 0;
    size_t len = 0;
    for (const char *p = v; *p; p++) {
        if (*p == '[' && ++depth == 2)
            count = 0;
        else if (*p == ']' && depth-- == 2)
            len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%d", len ? "," : "",
                                    count);
        else if (depth == 2 && strncmp(p, "\"layers.", 8) == 0)
            count++;
        if (len >= cap)
            break;
    }
}

/* Append line to the pending multi-line value; true when its brackets close. */
static bool balanced(const char *s)
{
    int d = 0;
    for (; *s; s++)
        d += *s == '[' || *s == '(' ? 1 : *s == ']' || *s == ')' ? -1 : 0;
    return d <= 0;
}

/* torchtitan's model families trainplan reads (torchtitan/models/<name>). */
static const char *const titan_families_read[] = {"llama3", "deepseek_v3", "qwen3", "gpt_oss",
                                                  NULL};

/* The family a recipe function's name starts with ("deepseek_v3_671b"). */
static const char *family_of_function(const char *fn)
{
    for (size_t i = 0; titan_families_read[i]; i++) {
        size_t n = strlen(titan_families_read[i]);
        if (strncmp(fn, titan_families_read[i], n) == 0 && fn[n] == '_')
            return titan_families_read[i];
    }
    return NULL;
}

/* The next keyword argument of a call's argument list at *p (after its
 * opening parenthesis): name and value as written, the value's offset in
 * the list; false at the closing parenthesis. Arguments are separated by
 * commas or line ends outside brackets and quotes (the reader drops the
 * trailing commas of lines). A positional argument has an empty name. */
static bool kw_next(const char **p, char *name, size_t nn, char *val, size_t vn, size_t *at)
{
    const char *s = *p;
    while (*s == ' ' || *s == ',' || *s == '\n')
        s++;
    if (*s == '\0' || *s == ')')
        return false;
    const char *start = s;
    size_t k = 0;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    const char *eq = s;
    while (*eq == ' ')
        eq++;
    if (s > start && *eq == '=' && eq[1] != '=') {
        k = (size_t)(s - start);
        snprintf(name, nn, "%.*s", (int)(k < nn ? k : nn - 1), start);
        s = eq + 1;
        while (*s == ' ')
            s++;
    } else {
        name[0] = '\0';
        s = start;
    }
    *at = (size_t)(s - start);
    const char *v = s;
    int depth = 0;
    char q = 0;
    for (; *s; s++) {
        if (q) {
            if (*s == '\\' && s[1])
                s++;
            else if (*s == q)
                q = 0;
            continue;
        }
        if (*s == '"' || *s == '\'')
            q = *s;
        else if (*s == '(' || *s == '[' || *s == '{')
            depth++;
        else if ((*s == ')' || *s == ']' || *s == '}') && depth-- == 0)
            break;
        else if ((*s == ',' || *s == '\n') && depth == 0)
            break;
    }
    size_t len = (size_t)(s - v);
    while (len > 0 && v[len - 1] == ' ')
        len--;
    snprintf(val, vn, "%.*s", (int)(len < vn ? len : vn - 1), v);
    *at += (size_t)(start - *p);
    *p = s;
    return true;
}

/* An integer product as the recipes write one ("4 * 4096"), in place; other
 * values are left as written. */
static void int_product(char *v)
{
    int64_t r = 1;
    bool any = false;
    const char *p = v;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!isdigit((unsigned char)*p))
            return;
        char *end;
        long long x = strtoll(p, &end, 10);
        if (x < 0 || x > (INT64_C(1) << 40) || r > (INT64_C(1) << 50) / (x ? x : 1))
            return; /* too large: the range check names it */
        r *= x;
        any = true;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == '*')
            p++;
        else if (*p)
            return;
    }
    if (any && strchr(v, '*'))
        snprintf(v, 24, "%" PRId64, r);
}

/* The line of offset `at` of a call read from line `line` on. */
static int line_at(const char *call, size_t at, int line)
{
    for (size_t i = 0; i < at && call[i]; i++)
        line += call[i] == '\n';
    return line;
}

/* model_registry("FLAVOR", num_mtp_layers=N, converters=[...]) */
static tp_status registry_call(tkeys *t, const char *call, int line, tp_error *err)
{
    const char *q = strchr(call, '"');
    char fl[32] = "", v[48];
    if (q)
        sscanf(q + 1, "%31[^\"]", fl);
    snprintf(v, sizeof v, "\"%s\"", fl);
    tk_drop(t, "model.num_mtp_layers"); /* a new model_spec: the recipe's are gone */
    tk_drop(t, "model.converters");
    TP_TRY(tk_add(t, "model.flavor", v, line, err));
    const char *m = strstr(call, "num_mtp_layers=");
    if (m) {
        char n[24] = "";
        sscanf(m + 15, "%23[0-9]", n);
        TP_TRY(tk_add(t, "model.num_mtp_layers", n, line_at(call, (size_t)(m - call), line), err));
    }
    if (strstr(call, "Float8LinearConverter"))
        TP_TRY(tk_add(t, "model.converters", "[\"float8\"]", line, err));
    return TP_OK;
}

/* activation_checkpoint = FullAC.Config() / SelectiveAC.Config() / None */
static tp_status ac_policy(tkeys *t, const char *v, int line, tp_error *err)
{
    const char *mode = strncmp(v, "FullAC", 6) == 0         ? "\"full\""
                       : strncmp(v, "SelectiveAC", 11) == 0 ? "\"selective\""
                       : strcmp(v, "None") == 0             ? "\"none\""
                                                            : NULL;
    if (!mode)
        return tk_error(err, line, "activation_checkpoint",
                        "is a policy trainplan does not read (FullAC, SelectiveAC or None)");
    return tk_add(t, "activation_checkpoint.mode", mode, line, err);
}

/* The keyword arguments of a `CLASS(...)` value (TrainingConfig,
 * ParallelismConfig, CompileConfig) as section.name keys; `line` is the
 * line the value starts on. */
static tp_status call_keys(tkeys *t, const char *section, const char *val, int line, tp_error *err)
{
    const char *q = strchr(val, '(');
    char k2[64], v2[1024], key[160];
    size_t at;
    for (q = q ? q + 1 : ""; kw_next(&q, k2, sizeof k2, v2, sizeof v2, &at);) {
        if (!k2[0])
            return tk_error(err, line, section, "has a positional argument");
        int_product(v2);
        snprintf(key, sizeof key, "%s.%s", section, k2);
        TP_TRY(tk_add(t, key, v2, line_at(val, (size_t)(q - val) - strlen(v2), line), err));
    }
    return TP_OK;
}

/* Top-level settings of Trainer.Config(...) that cannot change memory or
 * time (data, logging, checkpoints, the learning rate and its schedule). */
static const char *const trainer_ignored[] = {
    "hf_assets_path", "dataloader", "lr_scheduler", "checkpoint", "metrics",  "validator",
    "profiler",       "tokenizer",  "debug",        "comm",       "override", NULL};

/* The compile setting, `CompileConfig(...)` as compile.* keys; anything
 * else (a variable, as llama3_405b's compile_config) is not read: listed as
 * approximated, and planned as not compiled (tk_compile), which is said. */
static tp_status compile_value(tkeys *t, const char *val, int line, tp_error *err)
{
    if (strncmp(val, "CompileConfig(", 14) == 0) {
        t->compile_replaced = true;
        return call_keys(t, "compile", val, line, err);
    }
    list_add(t->im->approximated, sizeof t->im->approximated, "compile");
    char a[160];
    snprintf(a, sizeof a, "compile = %.40s (not a CompileConfig(...)): planned as not compiled",
             val);
    assume(t->im, a);
    return TP_OK;
}

/* One recipe written as `return Trainer.Config(...)` (the form of
 * torchtitan's own config_registry.py): its keyword arguments, the
 * TrainingConfig and ParallelismConfig ones as section.field keys. */
static tp_status trainer_call(tkeys *t, const char *call, int line, tp_error *err)
{
    const char *p = strchr(call, '(');
    char name[64], val[4096];
    size_t at;
    for (p = p ? p + 1 : ""; kw_next(&p, name, sizeof name, val, sizeof val, &at);) {
        int ln = line_at(call, (size_t)(p - call) - strlen(val), line);
        (void)at;
        if (strcmp(name, "model_spec") == 0)
            continue; /* the model_registry(...) call read on its own line */
        if (strcmp(name, "loss") == 0) {
            TP_TRY(tk_add(t, "loss.chunked", strstr(val, "ChunkedLossWrapper") ? "true" : "false",
                          ln, err));
        } else if (strcmp(name, "activation_checkpoint") == 0) {
            TP_TRY(ac_policy(t, val, ln, err));
        } else if (strcmp(name, "optimizer") == 0) {
            if (strncmp(val, "default_adamw(", 14) != 0)
                return tk_error(err, ln, "optimizer",
                                "is not default_adamw(...), the optimizer trainplan reads");
            list_add(t->im->ignored, sizeof t->im->ignored, "optimizer (lr)");
        } else if (strcmp(name, "compile") == 0) {
            TP_TRY(compile_value(t, val, ln, err));
        } else if (strcmp(name, "training") == 0 || strcmp(name, "parallelism") == 0) {
            if (strncmp(val, "TrainingConfig(", 15) != 0 &&
                strncmp(val, "ParallelismConfig(", 18) != 0)
                return tk_error(err, ln, name,
                                "is not a TrainingConfig(...) or "
                                "ParallelismConfig(...) trainplan can read");
            TP_TRY(call_keys(t, name, val, ln, err));
        } else {
            bool ign = false;
            for (size_t i = 0; trainer_ignored[i]; i++)
                ign = ign || strcmp(name, trainer_ignored[i]) == 0;
            if (!ign)
                return tk_error(err, ln, name[0] ? name : "Trainer.Config",
                                "is not a torchtitan setting trainplan reads: it cannot tell "
                                "whether it changes memory or time");
            list_add(t->im->ignored, sizeof t->im->ignored, name);
        }
    }
    return TP_OK;
}

/* A Python line that names the model family or starts a call read whole:
 * true when the line is taken (then it is not read as an assignment). */
static bool python_family(tkeys *t, const char *line)
{
    const char *fam = NULL;
    char buf[64];
    if (strncmp(line, "from torchtitan.models.", 23) == 0 &&
        strstr(line, " import model_registry") != NULL) {
        snprintf(buf, sizeof buf, "%.*s", (int)strcspn(line + 23, ". "), line + 23);
        fam = buf;
    } else if (strncmp(line, "def ", 4) == 0 && !t->family[0]) {
        fam = family_of_function(line + 4); /* `from . import model_registry` recipes */
        if (!fam)
            return false;
    } else {
        return false;
    }
    snprintf(t->family, sizeof t->family, "%s", fam);
    return true;
}

/*
 * What torchtitan's recipes set that changes memory or time, as the lines a
 * configuration would write (torchtitan/models/FAMILY/config_registry.py @
 * b5bcd76c, each recipe's Trainer.Config(...)): the flavor and its fp8
 * converter, the loss, the tokens per micro-batch and the context, the
 * ParallelismConfig fields the recipe gives, the activation checkpointing.
 * Their compile is read by tk_compile (recipe_compile). A configuration that
 * starts from one (`config = llama3_70b()`) starts from these: its own
 * lines after that replace them, a whole `config.parallelism =
 * ParallelismConfig(...)` or `config.model_spec = model_registry(...)` all
 * of the recipe's parallelism or model settings (tk_drop).
 */
typedef struct titan_recipe {
    const char *name; /* its family is the one it is named after (family_of_function) */
    const char *lines;
    /* what its CompileConfig compiles: llama3_405b the model and the loss
     * (the default components) with async TP; deepseek_v3_16b and _671b
     * the loss only; the others nothing */
    bool compile_model, compile_loss, async_tp;
} titan_recipe;

/* one recipe a block, one setting a line */
/* clang-format off */
#define TR_MODEL(flavor) "config.model_spec = model_registry(\"" flavor "\")\n"
#define TR_LOSS "config.loss = ChunkedLossWrapper.Config()\n"
#define TR_TOKENS(micro, context) \
    "config.training.num_tokens_per_microbatch_per_dp_rank = " micro "\n" \
    "config.training.max_context_length = " context "\n"
#define TR_PAR(field, value) "config.parallelism." field " = " value "\n"
#define TR_FULL "config.activation_checkpoint = FullAC.Config()\n"
#define TR_SELECTIVE "config.activation_checkpoint = SelectiveAC.Config()\n"
/* qwen3_14b, _30b_a3b, _32b: ParallelismConfig(data_parallel_shard_degree=-1,
 * the tensor, context and pipeline degrees 1) */
#define TR_QWEN_PAR \
    TR_PAR("data_parallel_shard_degree", "-1") TR_PAR("tensor_parallel_degree", "1") \
    TR_PAR("context_parallel_degree", "1") TR_PAR("pipeline_parallel_degree", "1")

static const titan_recipe titan_recipes[] = {
    {"llama3_8b",
     TR_MODEL("8B") TR_LOSS TR_TOKENS("8192", "8192")
     TR_SELECTIVE,
     false, false, false},
    {"llama3_70b",
     TR_MODEL("70B") TR_LOSS TR_TOKENS("65536", "8192")
     TR_PAR("tensor_parallel_degree", "8")
     TR_FULL,
     false, false, false},
    {"llama3_405b",
     "config.model_spec = model_registry(\"405B\", converters=[Float8LinearConverter.Config()])\n"
     TR_LOSS TR_TOKENS("16384", "8192")
     TR_PAR("tensor_parallel_degree", "8")
     TR_FULL,
     true, true, true},
    {"deepseek_v3_16b",
     TR_MODEL("16B") TR_LOSS TR_TOKENS("16384", "4096")
     TR_PAR("pipeline_parallel_schedule", "\"Interleaved1F1B\"")
     TR_PAR("expert_parallel_degree", "8")
     TR_SELECTIVE,
     false, true, false},
    {"deepseek_v3_671b",
     TR_MODEL("671B") TR_LOSS TR_TOKENS("16384", "4096")
     TR_PAR("pipeline_parallel_schedule", "\"Interleaved1F1B\"")
     TR_PAR("expert_parallel_degree", "2")
     TR_SELECTIVE,
     false, true, false},
    {"qwen3_0_6b",
     TR_MODEL("0.6B") TR_LOSS TR_TOKENS("16384", "4096")
     TR_SELECTIVE,
     false, false, false},
    {"qwen3_1_7b",
     TR_MODEL("1.7B") TR_LOSS TR_TOKENS("16384", "4096")
     TR_SELECTIVE,
     false, false, false},
    {"qwen3_14b",
     TR_MODEL("14B") TR_LOSS TR_TOKENS("16384", "4096")
     TR_QWEN_PAR
     TR_FULL,
     false, false, false},
    {"qwen3_30b_a3b",
     TR_MODEL("30B-A3B") TR_LOSS TR_TOKENS("8192", "4096")
     TR_QWEN_PAR
     TR_FULL,
     false, false, false},
    {"qwen3_32b",
     TR_MODEL("32B") TR_LOSS TR_TOKENS("8192", "4096")
     TR_QWEN_PAR
     TR_FULL,
     false, false, false},
    {"gpt_oss_20b",
     TR_MODEL("20b") TR_LOSS TR_TOKENS("8192", "8192")
     TR_PAR("expert_parallel_degree", "1")
     TR_FULL,
     false, false, false},
    {"gpt_oss_120b",
     TR_MODEL("120b") TR_LOSS TR_TOKENS("8192", "8192")
     TR_PAR("expert_parallel_degree", "1")
     TR_FULL,
     false, false, false},
};
/* clang-format on */
#define TITAN_RECIPES (sizeof titan_recipes / sizeof titan_recipes[0])

static const titan_recipe *recipe_named(const char *name)
{
    for (size_t i = 0; i < TITAN_RECIPES; i++)
        if (strcmp(name, titan_recipes[i].name) == 0)
            return &titan_recipes[i];
    return NULL;
}

static tp_status tk_read_at(const char *text, tkeys *t, int at, tp_error *err);

/* `config = RECIPE()`: the recipe's settings, at that line. */
static tp_status recipe_start(tkeys *t, const char *name, int line, tp_error *err)
{
    const titan_recipe *r = recipe_named(name);
    if (!r) {
        char known[512] = "";
        for (size_t i = 0; i < TITAN_RECIPES; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     titan_recipes[i].name);
        char what[768];
        snprintf(what, sizeof what,
                 "starts from %.63s(), a torchtitan recipe whose settings trainplan does not "
                 "know (it knows %s: config_registry.py @ b5bcd76c); write the configuration "
                 "whole instead",
                 name, known);
        return tk_error(err, line, "config", what);
    }
    snprintf(t->recipe, sizeof t->recipe, "%s", r->name);
    t->recipe_line = line;
    const char *fam = family_of_function(r->name); /* every recipe's is one read */
    if (!t->family[0] && fam) {
        snprintf(t->family, sizeof t->family, "%s", fam);
        t->family_line = line;
    }
    return tk_read_at(r->lines, t, line, err);
}

/* Read the text line by line into keys (TOML or Python). */
static tp_status tk_read(const char *text, tkeys *t, tp_error *err)
{
    return tk_read_at(text, t, 0, err);
}

/* tk_read with every line reported as line `at` when at > 0 (a recipe's). */
static tp_status tk_read_at(const char *text, tkeys *t, int at, tp_error *err)
{
    char section[40] = "", pending_key[96] = "";
    char line[1024], acc[4096];
    acc[0] = '\0';
    const char *in_call = NULL; /* "parallelism" or "compile" inside `config.X = CLASS(` */
    int in_call_line = 0;
    int no = 0, acc_line = 0, call_kind = 0, call_line = 0;
    char call[16384];
    call[0] = '\0';
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        no = at > 0 ? at : no + 1;
        if (n >= sizeof line)
            return tk_error(err, no, "line", "is longer than 1023 characters");
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (p[n] == '\n');
        trim(line);
        if (pending_key[0]) { /* a value spanning lines */
            strncat(acc, line, sizeof acc - strlen(acc) - 1);
            if (!balanced(acc))
                continue;
            char v[1024];
            if (strstr(pending_key, "module_fqns_per_model_part"))
                fqn_counts(acc, v, sizeof v);
            else
                snprintf(v, sizeof v, "%.1023s", acc);
            TP_TRY(tk_add(t, pending_key, v, acc_line, err));
            pending_key[0] = '\0';
            continue;
        }
        if (!line[0])
            continue;
        if (t->python) {
            if (call_kind) { /* a call read whole: model_registry or Trainer.Config */
                if (strlen(call) + strlen(line) + 2 >= sizeof call)
                    return tk_error(err, call_line,
                                    call_kind == 1 ? "model_registry" : "Trainer.Config",
                                    "is longer than 16383 characters");
                strcat(call, "\n");
                strcat(call, line);
                if (!balanced(call))
                    continue;
                TP_TRY(call_kind == 1 ? registry_call(t, call, call_line, err)
                                      : trainer_call(t, call, call_line, err));
                call_kind = 0;
                continue;
            }
            if (python_family(t, line)) {
                t->family_line = no;
                continue;
            }
            const char *reg = strstr(line, "model_registry(");
            const char *tr = strstr(line, "Trainer.Config(");
            if (reg || tr) {
                call_kind = reg ? 1 : 2;
                call_line = no;
                snprintf(call, sizeof call, "%s", reg ? reg : tr);
                if (!balanced(call))
                    continue;
                TP_TRY(call_kind == 1 ? registry_call(t, call, call_line, err)
                                      : trainer_call(t, call, call_line, err));
                call_kind = 0;
                continue;
            }
            if (strncmp(line, "config.parallelism = ParallelismConfig(", 39) == 0 ||
                strncmp(line, "config.compile = ", 17) == 0) {
                bool par = line[7] == 'p';
                const char *v = line + (par ? 21 : 17);
                if (par) /* given whole: the recipe's fields are gone */
                    tk_drop(t, "parallelism.");
                if (!balanced(v)) {
                    if (par || strcmp(v, "CompileConfig(") == 0) {
                        t->compile_replaced = t->compile_replaced || !par;
                        in_call = par ? "parallelism" : "compile";
                        in_call_line = no;
                        continue;
                    }
                    return tk_error(err, no, "config.compile",
                                    "is not a CompileConfig(...) trainplan can read (on one "
                                    "line, or one keyword a line after \"CompileConfig(\")");
                }
                TP_TRY(par ? call_keys(t, "parallelism", v, no, err)
                           : compile_value(t, v, no, err));
                continue;
            }
            if (in_call && strcmp(line, ")") == 0) {
                in_call = NULL;
                continue;
            }
            size_t ll = strlen(line), rn = ll > 11 ? ll - 11 : 0; /* "config = " NAME "()" */
            if (rn > 0 && strncmp(line, "config = ", 9) == 0 && strcmp(line + ll - 2, "()") == 0 &&
                strspn(line + 9,
                       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == rn) {
                char rname[64]; /* a longer name is no recipe's: recipe_start says so */
                snprintf(rname, sizeof rname, "%.*s", (int)(rn < 63 ? rn : 63), line + 9);
                TP_TRY(recipe_start(t, rname, no, err));
                continue;
            }
            if (strncmp(line, "config.loss = ", 14) == 0)
                TP_TRY(tk_add(t, "loss.chunked",
                              strstr(line, "ChunkedLossWrapper") ? "true" : "false", no, err));
            if (strncmp(line, "config.activation_checkpoint = ", 31) == 0) {
                TP_TRY(ac_policy(t, line + 31, no, err));
                continue;
            }
            char key[96], *eq = strchr(line, '=');
            if (!eq)
                continue;
            *eq = '\0';
            char *lhs = line, *rhs = eq + 1;
            trim(lhs);
            trim(rhs);
            if (in_call)
                snprintf(key, sizeof key, "%s.%.80s", in_call, lhs);
            else if (strncmp(lhs, "config.", 7) == 0 && strchr(lhs + 7, '.'))
                snprintf(key, sizeof key, "%.95s", lhs + 7);
            else
                continue; /* config = ..., config.model_spec = ..., config.loss = ... */
            if (strcmp(key, "model_spec") == 0)
                continue;
            if (!balanced(rhs)) {
                snprintf(pending_key, sizeof pending_key, "%s", key);
                snprintf(acc, sizeof acc, "%s", rhs);
                acc_line = no;
                continue;
            }
            TP_TRY(tk_add(t, key, rhs, no, err));
            continue;
        }
        /* TOML */
        if (line[0] == '[' && line[1] != '[') {
            if (sscanf(line, "[%39[^]]]", section) != 1)
                return tk_error(err, no, "section", "is not a [section] line");
            continue;
        }
        char *eq = strchr(line, '=');
        if (!eq)
            return tk_error(err, no, line, "is not a key = value line");
        *eq = '\0';
        char *lhs = line, *rhs = eq + 1, key[96];
        trim(lhs);
        trim(rhs);
        snprintf(key, sizeof key, "%.39s.%.55s", section, lhs);
        if (!balanced(rhs)) {
            snprintf(pending_key, sizeof pending_key, "%s", key);
            snprintf(acc, sizeof acc, "%s", rhs);
            acc_line = no;
            continue;
        }
        if (strcmp(key, "parallelism.module_fqns_per_model_part") == 0) {
            char v[1024];
            fqn_counts(rhs, v, sizeof v);
            TP_TRY(tk_add(t, key, v, no, err));
        } else {
            TP_TRY(tk_add(t, key, rhs, no, err));
        }
    }
    if (pending_key[0])
        return tk_error(err, acc_line, pending_key, "has an array that is never closed");
    if (call_kind)
        return tk_error(err, call_line, call_kind == 1 ? "model_registry" : "Trainer.Config",
                        "has a parenthesis that is never closed");
    if (in_call)
        return tk_error(err, in_call_line,
                        in_call[0] == 'p' ? "config.parallelism" : "config.compile",
                        "has a parenthesis that is never closed");
    return TP_OK;
}

/* An integer value; def when absent. */
static tp_status tk_int(const tkeys *t, const char *key, int64_t def, int64_t lo, int64_t hi,
                        int64_t *out, tp_error *err)
{
    const tkey *k = tk_get(t, key);
    if (!k) {
        *out = def;
        return TP_OK;
    }
    char *end;
    long long v = strtoll(k->val, &end, 10);
    if (end == k->val || *end || v < lo || v > hi) {
        char what[96];
        snprintf(what, sizeof what, "must be an integer in [%" PRId64 ", %" PRId64 "], got %.20s",
                 lo, hi, k->val);
        return tk_error(err, k->line, key, what);
    }
    *out = v;
    return TP_OK;
}

/* A string value without its quotes (Python also 'x'); def when absent. */
static const char *tk_str(const tkeys *t, const char *key, const char *def, char *buf, size_t n)
{
    const tkey *k = tk_get(t, key);
    if (!k)
        return def;
    snprintf(buf, n, "%.63s", k->val[0] == '"' || k->val[0] == '\'' ? k->val + 1 : k->val);
    size_t len = strlen(buf);
    if (len && (buf[len - 1] == '"' || buf[len - 1] == '\''))
        buf[len - 1] = '\0';
    return buf;
}

/* A family flavor's model flags ("--model NAME" or the shape flags), one
 * flag and its value at a time. */
static tp_status push_words(tp_import *im, const titan_family_flavor *f, tp_error *err)
{
    sbuf b = {0};
    tp_status st = titan_family_flags(f, &b, err);
    if (st == TP_OK && (b.failed || !b.s))
        st = tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the configuration");
    char *save = NULL;
    for (char *w = st == TP_OK ? strtok_r(b.s, " ", &save) : NULL; w;) {
        char *v = strtok_r(NULL, " ", &save);
        if (v && strncmp(v, "--", 2) != 0) {
            if (!push_str(im, w, v)) {
                st = full(err);
                break;
            }
            w = strtok_r(NULL, " ", &save);
        } else {
            if (!push_flag(im, w)) {
                st = full(err);
                break;
            }
            w = v;
        }
    }
    sb_free(&b);
    return st;
}

/* The flavor as a preset and the flags that make it exactly the flavor. */
static tp_status tk_model(const tkeys *t, tp_import *im, tp_error *err)
{
    char b[64];
    const char *name = t->family[0] ? t->family : tk_str(t, "model.name", "llama3", b, sizeof b);
    int name_line = t->family[0] ? t->family_line : tk_line(t, "model.name");
    char f[64];
    const char *fl = tk_str(t, "model.flavor", "", f, sizeof f);
    if (strcmp(name, "llama3") != 0) {
        if (!t->python)
            return tk_error(
                err, name_line, "model.name",
                "is not \"llama3\", the only torchtitan model trainplan reads in the job TOML");
        bool known = false;
        for (size_t i = 0; titan_families_read[i]; i++)
            known = known || strcmp(name, titan_families_read[i]) == 0;
        if (!known) {
            char what[160];
            snprintf(what, sizeof what,
                     "names the model family \"%.40s\"; trainplan reads llama3, deepseek_v3, "
                     "qwen3 and gpt_oss",
                     name);
            return tk_error(err, name_line, "model_registry", what);
        }
        const titan_family_flavor *ff = titan_family_named(name, fl);
        if (!ff) {
            char what[240];
            snprintf(
                what, sizeof what,
                "is not a torchtitan flavor trainplan reads (deepseek_v3 16B, 671B; qwen3 0.6B, "
                "1.7B, 4B, 8B, 14B, 32B, 30B-A3B, 235B-A22B; gpt_oss 20b, 120b), got %.20s "
                "%.20s",
                name, fl);
            return tk_error(err, tk_line(t, "model.flavor"), "model.flavor", what);
        }
        /* the flavor's architecture is the preset's; the rotary base and
         * epsilon are the flavor's own (its yarn scaling has no flag) */
        TP_TRY(push_words(im, ff, err));
        char x[32];
        PUSH(push_str(im, "--rope-theta", eng_real(x, sizeof x, ff->rope_theta)));
        PUSH(push_str(im, "--norm-eps", eng_real(x, sizeof x, ff->norm_eps)));
        if (ff->scaling)
            assume(im, "the flavor's yarn rotary scaling: trainplan records none (it changes "
                       "neither memory nor time)");
        int64_t mtp = 0;
        if (ff->mtp_arg)
            TP_TRY(tk_int(t, "model.num_mtp_layers", 0, 0, TP_MAX_LAYERS, &mtp, err));
        else if (tk_get(t, "model.num_mtp_layers"))
            return tk_error(err, tk_line(t, "model.num_mtp_layers"), "model.num_mtp_layers",
                            "is not an argument of this family's model_registry");
        PUSH(push_i64(im, "--mtp-layers", mtp));
        return TP_OK;
    }
    if (tk_get(t, "model.num_mtp_layers"))
        return tk_error(err, tk_line(t, "model.num_mtp_layers"), "model.num_mtp_layers",
                        "is not an argument of llama3's model_registry");
    static const char *const map[][3] = {{"1B", "llama-3.2-1b", "8"},
                                         {"3B", "llama-3.2-3b", "8"},
                                         {"8B", "llama-3.1-8b", NULL},
                                         {"70B", "llama-3.1-70b", NULL},
                                         {"405B", "llama-3.1-405b", NULL}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(fl, map[i][0]) != 0)
            continue;
        if (!t->python && i < 2)
            break; /* no 1B/3B in the TOML era */
        PUSH(push_str(im, "--model", map[i][1]));
        if (map[i][2]) /* torchtitan scales Llama 3.2's shapes with factor 8 */
            PUSH(push_str(im, "--rope-factor", map[i][2]));
        return TP_OK;
    }
    return tk_error(err, tk_line(t, "model.flavor"), "model.flavor",
                    t->python ? "is not a llama3 flavor trainplan knows (1B, 3B, 8B, 70B, 405B)"
                              : "is not a llama3 flavor of the job TOML (8B, 70B, 405B)");
}

/* module_fqns_per_model_part's layer counts ("n0,n1,...") as the first and
 * last stage of an uneven split (an even one needs no flag). */
static tp_status tk_split(const char *counts, tp_import *im, tp_error *err)
{
    long n[4096];
    int k = 0;
    if (!counts[0])
        return TP_OK;
    for (const char *p = counts; *p && k < 4096; k++) {
        n[k] = strtol(p, NULL, 10);
        p = strchr(p, ',');
        if (!p)
            break;
        p++;
    }
    k++;
    bool even = true;
    for (int i = 1; i < k; i++)
        even = even && n[i] == n[0];
    if (!even) {
        PUSH(push_i64(im, "--first-stage-layers", n[0]));
        PUSH(push_i64(im, "--last-stage-layers", n[k - 1]));
    }
    return TP_OK;
}

/* Degrees, ZeRO stage, schedule and split. */
static tp_status tk_layout(const tkeys *t, tp_import *im, int64_t *dp, int64_t *pp, tp_error *err)
{
    int64_t rep, shard, tp, cp, ep;
    TP_TRY(tk_int(t, "parallelism.data_parallel_replicate_degree", 1, 1, TP_MAX_GPUS, &rep, err));
    TP_TRY(tk_int(t, "parallelism.data_parallel_shard_degree", -1, -1, TP_MAX_GPUS, &shard, err));
    TP_TRY(tk_int(t, "parallelism.tensor_parallel_degree", 1, 1, TP_MAX_GPUS, &tp, err));
    TP_TRY(tk_int(t, "parallelism.pipeline_parallel_degree", 1, 1, TP_MAX_GPUS, pp, err));
    TP_TRY(tk_int(t, "parallelism.context_parallel_degree", 1, 1, TP_MAX_GPUS, &cp, err));
    TP_TRY(tk_int(t, "parallelism.expert_parallel_degree", 1, 1, TP_MAX_GPUS, &ep, err));
    PUSH(push_i64(im, "--tp", tp));
    PUSH(push_i64(im, "--pp", *pp));
    PUSH(push_i64(im, "--cp", cp));
    PUSH(push_i64(im, "--ep", ep));
    /* with EP, torchtitan shards the routed experts over EP only
     * (models/common/MOE_SHARDING.md @ b5bcd76c): expert TP 1 */
    if (t->python && ep > 1 && tp > 1)
        PUSH(push_i64(im, "--etp", 1));
    char b[32];
    const char *sp = tk_str(t, "parallelism.enable_sequence_parallel", "True", b, sizeof b);
    PUSH(push_flag(im, strcmp(sp, "False") == 0 || tp == 1 ? "--no-sp" : "--sp"));
    *dp = 0;
    if (shard == 0)
        return tk_error(err, tk_line(t, "parallelism.data_parallel_shard_degree"),
                        "parallelism.data_parallel_shard_degree", "must be -1 or positive");
    if (shard > 0) {
        *dp = rep * shard;
        PUSH(push_i64(im, "--gpus", rep * shard * tp * *pp * cp));
        im->has_gpus = true;
    } else {
        assume(im, "data_parallel_shard_degree -1 (the rest of the GPUs): --gpus gives them");
    }
    char r[32];
    const char *reshard =
        tk_str(t, "parallelism.fsdp_reshard_after_forward", "default", r, sizeof r);
    int zero = shard == 1 || (shard < 0 && rep > 1) ? 0 : strcmp(reshard, "never") == 0 ? 2 : 3;
    PUSH(push_i64(im, "--zero", zero));
    if (*pp > 1) {
        char s[32];
        const char *sched =
            tk_str(t, "parallelism.pipeline_parallel_schedule", "1F1B", s, sizeof s);
        const char *mine = strcmp(sched, "GPipe") == 0             ? "gpipe"
                           : strcmp(sched, "Interleaved1F1B") == 0 ? "interleaved"
                           : strcmp(sched, "1F1B") == 0            ? "1f1b"
                                                                   : NULL;
        if (!mine)
            return tk_error(err, tk_line(t, "parallelism.pipeline_parallel_schedule"),
                            "parallelism.pipeline_parallel_schedule",
                            "is a schedule trainplan does not model (1F1B, Interleaved1F1B, "
                            "GPipe)");
        PUSH(push_str(im, "--schedule", mine));
        int64_t per;
        TP_TRY(tk_int(t, "parallelism.pipeline_parallel_layers_per_stage", 0, 0, TP_MAX_LAYERS,
                      &per, err));
        if (per > 0)
            im->titan_layers_per_stage = per; /* virtual stages: in apply, with the layers */
        const tkey *fq = tk_get(t, "parallelism.module_fqns_per_model_part");
        if (fq && per == 0)
            TP_TRY(tk_split(fq->val, im, err));
    }
    return TP_OK;
}

/* Batch: micro-batch, global batch and sequence in each form's terms. */
static tp_status tk_batch(const tkeys *t, tp_import *im, int64_t dp, int64_t pp, tp_error *err)
{
    int64_t seq, mb = 0, gb = 0;
    if (t->python) {
        int64_t tok_mb, tok_step;
        TP_TRY(tk_int(t, "training.max_context_length", 2048, 1, TP_MAX_SEQ, &seq, err));
        TP_TRY(tk_int(t, "training.num_tokens_per_microbatch_per_dp_rank", 16384, 1,
                      INT64_C(1) << 50, &tok_mb, err));
        TP_TRY(tk_int(t, "training.num_tokens_per_train_step", -1, -1, INT64_C(1) << 50, &tok_step,
                      err));
        if (tok_mb % seq != 0)
            return tk_error(err, tk_line(t, "training.num_tokens_per_microbatch_per_dp_rank"),
                            "training.num_tokens_per_microbatch_per_dp_rank",
                            "is not a multiple of training.max_context_length: trainplan "
                            "plans whole sequences");
        mb = tok_mb / seq;
        int64_t m = 1; /* micro-batches per schedule run (trainer.py) */
        if (pp > 1)
            TP_TRY(tk_int(t, "parallelism.num_pp_microbatches", 1, 1, TP_MAX_BATCH, &m, err));
        if (tok_step > 0) {
            if (tok_step % seq != 0)
                return tk_error(err, tk_line(t, "training.num_tokens_per_train_step"),
                                "training.num_tokens_per_train_step",
                                "is not a multiple of training.max_context_length");
            gb = tok_step / seq;
            /* trainer.py accumulates over gb / (mb x m x dp) schedule runs
             * (and raises where that does not divide) */
            if (pp > 1 && dp > 0 && gb > mb * m * dp) {
                if (gb % (mb * m * dp) != 0)
                    return tk_error(err, tk_line(t, "training.num_tokens_per_train_step"),
                                    "training.num_tokens_per_train_step",
                                    "is not a multiple of the tokens of one gradient "
                                    "accumulation iteration (micro-batch x "
                                    "parallelism.num_pp_microbatches x data-parallel degree)");
                from(im, "parallelism.num_pp_microbatches",
                     tk_line(t, "parallelism.num_pp_microbatches"), 1);
                PUSH(push_i64(im, "--local-batch", mb * m));
            }
        } else if (dp > 0) {
            gb = mb * dp * m;
        }
    } else {
        int64_t local;
        TP_TRY(tk_int(t, "training.seq_len", 2048, 1, TP_MAX_SEQ, &seq, err));
        TP_TRY(tk_int(t, "training.local_batch_size", 8, 1, TP_MAX_BATCH, &local, err));
        TP_TRY(tk_int(t, "training.global_batch_size", -1, -1, TP_MAX_BATCH, &gb, err));
        if (pp > 1)
            TP_TRY(tk_int(t, "parallelism.pipeline_parallel_microbatch_size", 1, 1, TP_MAX_BATCH,
                          &mb, err));
        else
            mb = local;
        if (gb <= 0 && dp > 0)
            gb = local * dp;
        /* train.py runs the pipeline schedule once per local batch and
         * accumulates over global / (local x dp) runs (its own check) */
        if (pp > 1 && dp > 0 && gb > local * dp) {
            if (gb % (local * dp) != 0)
                return tk_error(err, tk_line(t, "training.global_batch_size"),
                                "training.global_batch_size",
                                "is not a multiple of training.local_batch_size x the "
                                "data-parallel degree (torchtitan's gradient accumulation)");
            from(im, "training.local_batch_size", tk_line(t, "training.local_batch_size"), 1);
            PUSH(push_i64(im, "--local-batch", local));
        }
    }
    PUSH(push_i64(im, "--seq-len", seq));
    PUSH(push_i64(im, "--micro-batch", mb));
    if (gb > 0)
        PUSH(push_i64(im, "--global-batch", gb));
    return TP_OK;
}

static bool tk_true(const tkeys *t, const char *key)
{
    const tkey *k = tk_get(t, key);
    return k && is_true(k->val);
}

/* The recipe's compile (titan_recipes), or NULL where it compiles nothing. */
static const titan_recipe *recipe_compile(const char *recipe)
{
    const titan_recipe *r = recipe_named(recipe);
    return r && (r->compile_model || r->compile_loss) ? r : NULL;
}

/* Whether a components list ("[\"model\", \"loss\"]") names c. */
static bool names_component(const char *list, const char *c)
{
    char q1[24], q2[24];
    snprintf(q1, sizeof q1, "\"%s\"", c);
    snprintf(q2, sizeof q2, "'%s'", c);
    return strstr(list, q1) || strstr(list, q2);
}

/*
 * torch.compile and what it changes (framework.c torchtitan has the
 * sources), from the file's settings, else the recipe it starts from
 * (`config = RECIPE()`), else torchtitan's defaults (compile off; its
 * components ["model", "loss"]):
 *   - the model not compiled: its element-wise ops run eager,
 *     --eager-elementwise (said when only the default says so);
 *   - async TP (compile.enable_async_tensor_parallel, or in the TOML form
 *     parallelism.enable_async_tensor_parallel) at TP > 1:
 *     --tp-comm-overlap; without the model compiled torchtitan refuses it,
 *     and so does the import;
 *   - the loss: ChunkedLossWrapper (the recipes' default), --fused-ce;
 *     compiled, 4 B a logit, the bf16 logits and their bf16 gradient
 *     (measured at TP 1, validate's H200 rows; taken the same under loss
 *     parallel, which is said at TP > 1); otherwise 12 at TP 1 and 16 at
 *     TP > 1 (loss parallel), --ce-bytes-per-logit-tp 16 whatever the TP,
 *     so that another --tp keeps it; parallelism.disable_loss_parallel
 *     replicates the logits over TP, which trainplan plans sharded
 *     (approximated, and said).
 */
static tp_status tk_compile(const tkeys *t, tp_import *im, tp_error *err)
{
    int64_t tp;
    TP_TRY(tk_int(t, "parallelism.tensor_parallel_degree", 1, 1, TP_MAX_GPUS, &tp, err));
    /* a whole CompileConfig(...) replaces the recipe's: its defaults apply */
    const titan_recipe *rc =
        t->recipe[0] && !t->compile_replaced ? recipe_compile(t->recipe) : NULL;
    const tkey *en = tk_get(t, "compile.enable"), *comp = tk_get(t, "compile.components");
    const tkey *as = tk_get(t, "compile.enable_async_tensor_parallel");
    if (!as)
        as = tk_get(t, "parallelism.enable_async_tensor_parallel");
    bool enabled = en ? tk_true(t, "compile.enable") : rc != NULL;
    bool model = enabled && (comp ? names_component(comp->val, "model")
                             : rc ? rc->compile_model
                                  : true);
    bool loss = enabled && (comp ? names_component(comp->val, "loss")
                            : rc ? rc->compile_loss
                                 : true);
    bool async_tp = as ? is_true(as->val) : rc && rc->async_tp;
    const char *ckey = comp ? "compile.components" : en ? "compile.enable" : "config";
    int cline = comp ? comp->line : en ? en->line : t->recipe_line;
    if (async_tp && !model && !as)
        async_tp = false;   /* the recipe's, with its compile turned off */
    if (async_tp && !model) /* given in the file (as) */
        return tk_error(err, as->line,
                        as->key[0] == 'c' ? "compile.enable_async_tensor_parallel"
                                          : "parallelism.enable_async_tensor_parallel",
                        "needs \"model\" in compile.components and compile.enable (torchtitan "
                        "refuses async TP without it)");
    if (!model) {
        from(im, ckey, cline, 1);
        PUSH(push_flag(im, "--eager-elementwise"));
        if (!en && !rc)
            assume(im, "no compile.enable: torchtitan's default, the model not compiled (its "
                       "element-wise ops eager, --eager-elementwise)");
    }
    if (async_tp && tp > 1) {
        from(im,
             as ? (as->key[0] == 'c' ? "compile.enable_async_tensor_parallel"
                                     : "parallelism.enable_async_tensor_parallel")
                : "config",
             as ? as->line : t->recipe_line, 1);
        PUSH(push_flag(im, "--tp-comm-overlap"));
    }
    if (rc && !en) {
        char a[160];
        snprintf(a, sizeof a, "the recipe %s's compile: the model %s, the loss %s", t->recipe,
                 rc->compile_model ? "compiled" : "not compiled",
                 rc->compile_loss ? "compiled" : "not compiled");
        assume(im, a);
    }

    char l[16];
    const char *chunked = tk_str(t, "loss.chunked", t->python ? "true" : "false", l, sizeof l);
    if (strcmp(chunked, "true") == 0) {
        from(im, "loss", tk_line(t, "loss.chunked"), 1);
        PUSH(push_flag(im, "--fused-ce"));
        return TP_OK;
    }
    /* the figures: compiled, else the torchtitan profile's (12 and 16) */
    tp_options d;
    tp_options_default(&d);
    tp_framework_apply(TP_FW_TORCHTITAN, &d);
    char x[32];
    if (loss) {
        eng_real(x, sizeof x, ENG_TITAN_COMPILED_CE);
        from(im, ckey, cline, 1);
        PUSH(push_str(im, "--ce-bytes-per-logit", x));
        from(im, ckey, cline, 1);
        PUSH(push_str(im, "--ce-bytes-per-logit-tp", x));
        if (tp > 1) {
            char a[128];
            snprintf(a, sizeof a,
                     "the compiled loss under loss parallel (TP > 1) taken at %s B a logit, as "
                     "measured at TP 1",
                     x);
            assume(im, a);
        }
        return TP_OK;
    }
    if (tk_true(t, "parallelism.disable_loss_parallel")) {
        int line = tk_line(t, "parallelism.disable_loss_parallel");
        from(im, "parallelism.disable_loss_parallel", line, 1);
        PUSH(push_str(im, "--ce-bytes-per-logit-tp", eng_real(x, sizeof x, d.ce_bytes_per_logit)));
        if (tp > 1) {
            list_add(im->approximated, sizeof im->approximated,
                     "parallelism.disable_loss_parallel");
            assume(im, "disable_loss_parallel replicates the logits over TP: trainplan plans "
                       "them sharded, TP times less loss memory than the run's");
        }
        return TP_OK;
    }
    from(im, "parallelism.tensor_parallel_degree", tk_line(t, "parallelism.tensor_parallel_degree"),
         1);
    PUSH(push_str(im, "--ce-bytes-per-logit-tp", eng_real(x, sizeof x, d.ce_bytes_per_logit_tp)));
    return TP_OK;
}

/* Precision, gradients, recompute, the loss. */
static tp_status tk_training(const tkeys *t, tp_import *im, tp_error *err)
{
    char b[64];
    const char *conv = tk_str(t, "model.converters", "", b, sizeof b);
    PUSH(push_str(im, "--precision", strstr(conv, "float8") ? "fp8" : "bf16"));
    if (strstr(conv, "float8")) /* torchao's Float8Linear saves its 16-bit input */
        PUSH(push_flag(im, "--fp8-hp-saved-inputs"));
    char r[32];
    const char *reduce = tk_str(t, "training.mixed_precision_reduce", "float32", r, sizeof r);
    PUSH(push_str(im, "--grad-dtype", strcmp(reduce, "float32") == 0 ? "fp32" : "bf16"));
    char m[32];
    const char *mode = tk_str(t, "activation_checkpoint.mode", "selective", m, sizeof m);
    if (strcmp(mode, "none") != 0 && strcmp(mode, "selective") != 0 && strcmp(mode, "full") != 0)
        return tk_error(err, tk_line(t, "activation_checkpoint.mode"), "activation_checkpoint.mode",
                        "is a policy trainplan does not model (none, selective, full)");
    PUSH(push_str(im, "--recompute", mode));
    if (strcmp(mode, "selective") == 0)
        assume(im, "selective activation checkpointing read as trainplan's selective recompute");
    TP_TRY(tk_compile(t, im, err));
    /* FSDP2's CPUOffloadPolicy (torchtitan/distributed/fsdp.py,
     * apply_fsdp_to_decoder @ b5bcd76c): the sharded parameters, their
     * gradients and the optimizer state live on the CPU, which runs the
     * optimizer step: trainplan's parameter offload to the CPU with the
     * whole optimizer offloaded (ZeRO 3, as it checks). tk_add kept it only
     * when true. */
    int line = tk_line(t, "training.enable_cpu_offload");
    if (line > 0) {
        from(im, "training.enable_cpu_offload", line, 1);
        PUSH(push_str(im, "--offload-params", "cpu"));
        from(im, "training.enable_cpu_offload", line, 1);
        PUSH(push_str(im, "--offload-optimizer", "1"));
    }
    return TP_OK;
}

tp_status tp_io_import_torchtitan(const char *text, const char *origin, tp_import *out,
                                  tp_error *err)
{
    (void)origin;
    memset(out, 0, sizeof *out);
    out->kind = TP_IMPORT_TORCHTITAN;
    if (!text)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "no torchtitan configuration");
    tkeys *t = calloc(1, sizeof *t);
    if (!t)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the configuration");
    /* Python: a function returning Trainer.Config (or any def or import) */
    t->python = strstr(text, "Trainer.Config") != NULL || strncmp(text, "def ", 4) == 0 ||
                strstr(text, "\ndef ") != NULL || strncmp(text, "from ", 5) == 0 ||
                strstr(text, "\nfrom ") != NULL || strncmp(text, "import ", 7) == 0;
    t->im = out;
    int64_t dp = 0, pp = 1;
    tp_status st = tk_read(text, t, err);
    if (st == TP_OK)
        st = tk_model(t, out, err);
    if (st == TP_OK)
        st = tk_layout(t, out, &dp, &pp, err);
    if (st == TP_OK)
        st = tk_batch(t, out, dp, pp, err);
    if (st == TP_OK)
        st = tk_training(t, out, err);
    free(t);
    return st;
}

tp_status tp_engine_torchtitan_apply(const tp_import *im, const tp_import_user *user, tp_config *c,
                                     tp_error *err)
{
    (void)user;
    /* pipeline_parallel_layers_per_stage: virtual stages from the layers */
    if (im->titan_layers_per_stage > 0) {
        int64_t per = im->titan_layers_per_stage, pp = c->train.pp;
        int64_t L = c->model.num_layers;
        if (per * pp == 0 || L % (per * pp) != 0)
            return tp_error_set(err, TP_ERR_CONFIG,
                                "parallelism.pipeline_parallel_layers_per_stage",
                                "%" PRId64 " layers per stage x %" PRId64
                                " stages does not divide the model's %" PRId64 " layers",
                                per, pp, L);
        c->train.vpp = L / (per * pp);
    }
    return TP_OK;
}
