/* SPDX-License-Identifier: MIT */
/*
 * nemo.c: a NeMo / Megatron-Bridge YAML override file read as trainplan
 * settings (--from-nemo, tp_io_import_nemo in import.h).
 *
 * Version spoken. Megatron-Bridge's recipes are Python functions building a
 * ConfigContainer; its example scripts merge a YAML file of overrides on
 * top ("the structure matches the ConfigContainer and its
 * sub-configurations"): NVIDIA-NeMo/Megatron-Bridge
 * examples/recipes/qwen3_moe/conf/qwen3_moe_30b_a3b_pretrain_override_example.yaml
 * @ 2d06bc32 and examples/llm/llama3_8b/conf/llama3_8b_pretrain_override_example.yaml
 * @ c7761623 (tests/data/engines/nemo). The sections are the
 * ConfigContainer's fields, written `model:` or, in the older examples,
 * `model_config:`; the field names are Megatron-Core's (ModelParallelConfig,
 * TransformerConfig, DistributedDataParallelConfig, OptimizerConfig).
 *
 * The file is plain data, so this reads a YAML subset: block mappings
 * indented with spaces, `key: value` scalars (plain, "double" or 'single'
 * quoted, null/~), flow sequences on one line and block sequences of
 * scalars, `#` comments, a leading `---`. Anchors, aliases, tags, merge
 * keys, block scalars (| >), flow mappings, sequences of mappings, tabs in
 * indentation, duplicate keys and a second document are refused with the
 * file's line, never guessed at.
 *
 * Mapped: the parallel sizes and sequence parallelism, virtual stages,
 * the sequence length, the shape fields an override may set (layers,
 * hidden, FFN, heads, query groups, kv channels), recompute granularity,
 * method and layers, fp8, the mixed precision, micro and global batch,
 * the distributed optimizer or Megatron-FSDP sharding (the ZeRO stage),
 * fp32 gradient reduction, the optimizer kind and its CPU offload, the
 * loss (n_loss: Megatron-Core's, 4 B a logit unless TE's fused one). The
 * model otherwise comes from the recipe, which the file does not hold:
 * --model gives it (tp_engine_nemo_apply asks for it). Run control, data,
 * logging, checkpoints, the learning rate and its schedule are ignored;
 * communication overlap is approximated; anything else is an error naming
 * the key and its line, since trainplan cannot tell whether it matters.
 *
 * Invariant: an import never allocates memory that outlives the call.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "import_build.h"
#include "io.h"
#include "io_internal.h"

#define NY_MAX 256 /* keys in one file */
#define NY_DEPTH 8 /* nesting levels */
#define NY_VAL 256 /* bytes of one value */
#define NY_KEY 128 /* bytes of one dotted key */

typedef struct nkey {
    char key[NY_KEY]; /* "model.tensor_model_parallel_size" */
    char val[NY_VAL]; /* the scalar, unquoted; a sequence as "[a, b]" */
    int line;
} nkey;

typedef struct nkeys {
    nkey k[NY_MAX];
    int n;
} nkeys;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static tp_status
ny_error(tp_error *err, int line, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tp_status st = tp_error_set(err, TP_ERR_CONFIG, key, "%s", msg);
    if (err && line > 0) {
        err->line = line;
        err->column = 1;
    }
    return st;
}

/* ------------------------------------------------------------------ */
/* The YAML subset                                                      */
/* ------------------------------------------------------------------ */

/* Cut a `#` comment that starts the value or follows a space, outside
 * quotes, and the spaces before it. */
static void cut_comment(char *s)
{
    char q = 0;
    for (char *p = s; *p; p++) {
        if (q) {
            if (*p == q)
                q = 0;
        } else if (*p == '"' || *p == '\'') {
            q = *p;
        } else if (*p == '#' && (p == s || p[-1] == ' ')) {
            *p = '\0';
            break;
        }
    }
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == ' ')
        s[--n] = '\0';
}

/* What a value may not be in plain data, or NULL. */
static const char *unreadable(const char *v)
{
    switch (v[0]) {
    case '&': return "is a YAML anchor, which trainplan does not read (write the value out)";
    case '*': return "is a YAML alias, which trainplan does not read (write the value out)";
    case '!': return "has a YAML tag, which trainplan does not read (plain data only)";
    case '|':
    case '>': return "is a YAML block scalar, which trainplan does not read";
    case '{': return "is a YAML flow mapping, which trainplan does not read (use indented keys)";
    case '@':
    case '`': return "starts with a character YAML reserves";
    default: return NULL;
    }
}

/* Strip matching quotes in place; false when a quote is not closed. */
static bool unquote(char *v)
{
    size_t n = strlen(v);
    if (v[0] != '"' && v[0] != '\'')
        return true;
    if (n < 2 || v[n - 1] != v[0])
        return false;
    memmove(v, v + 1, n - 2);
    v[n - 2] = '\0';
    return true;
}

typedef struct ny_level {
    int indent;
    char prefix[NY_KEY]; /* "model." */
} ny_level;

/* The state of the reader between lines. */
typedef struct ny_state {
    ny_level lv[NY_DEPTH + 1];
    int depth;       /* lv[0] is the top level, indent 0 */
    int open_indent; /* -1: the last key holds a value; else its indent */
    char open_key[NY_KEY];
    int open_line;
    bool seq;     /* the open key holds a block sequence */
    bool content; /* a key was read (a later `---` is a second document) */
} ny_state;

static tp_status ny_add(nkeys *out, const char *key, const char *val, int line, tp_error *err)
{
    for (int i = 0; i < out->n; i++)
        if (strcmp(out->k[i].key, key) == 0)
            return ny_error(err, line, key, "\"%s\" is given twice (YAML keys are unique)", key);
    if (out->n >= NY_MAX)
        return ny_error(err, line, key, "\"%s\" is one key too many (at most 256)", key);
    nkey *k = &out->k[out->n++];
    snprintf(k->key, sizeof k->key, "%s", key);
    snprintf(k->val, sizeof k->val, "%s", val);
    k->line = line;
    return TP_OK;
}

/* A block sequence item ("- value") of the open key. */
static tp_status ny_item(ny_state *s, nkeys *out, char *item, int no, tp_error *err)
{
    if (!s->seq) {
        s->seq = true;
        TP_TRY(ny_add(out, s->open_key, "[]", s->open_line, err));
    }
    nkey *k = &out->k[out->n - 1];
    if (strchr(item, ':') && !(item[0] == '"' || item[0] == '\''))
        return ny_error(err, no, s->open_key,
                        "\"%s\" is a sequence of mappings, which trainplan does not read",
                        s->open_key);
    const char *why = unreadable(item);
    if (why)
        return ny_error(err, no, s->open_key, "this item of \"%s\" %s", s->open_key, why);
    size_t len = strlen(k->val);
    if (len + strlen(item) + 3 >= sizeof k->val)
        return ny_error(err, no, s->open_key, "\"%s\" is longer than 255 characters", s->open_key);
    snprintf(k->val + len - 1, sizeof k->val - len + 1, "%s%s]", len > 2 ? ", " : "", item);
    return TP_OK;
}

/* One `key: value` or `key:` line at indent ind. */
static tp_status ny_pair(ny_state *s, nkeys *out, char *line, int ind, int no, tp_error *err)
{
    /* a key holding nothing yet opens a level if this line is deeper */
    if (s->open_indent >= 0) {
        if (ind > s->open_indent && !s->seq) {
            if (s->depth >= NY_DEPTH)
                return ny_error(err, no, s->open_key, "\"%s\" nests deeper than 8 levels",
                                s->open_key);
            s->depth++;
            s->lv[s->depth].indent = ind;
            snprintf(s->lv[s->depth].prefix, sizeof s->lv[s->depth].prefix, "%.126s.", s->open_key);
        } else if (!s->seq) {
            TP_TRY(ny_add(out, s->open_key, "null", s->open_line, err)); /* `key:` alone */
        }
        s->open_indent = -1;
        s->seq = false;
    }
    while (s->depth > 0 && ind < s->lv[s->depth].indent)
        s->depth--;
    if (ind != s->lv[s->depth].indent)
        return ny_error(err, no, "", "this line's indentation matches no enclosing key");
    char *colon = NULL;
    for (char *p = line; *p; p++)
        if (*p == ':' && (p[1] == ' ' || p[1] == '\0')) {
            colon = p;
            break;
        }
    if (!colon)
        return ny_error(err, no, "", "this line is not a \"key: value\" line");
    *colon = '\0';
    char *v = colon + 1;
    while (*v == ' ')
        v++;
    for (const char *p = line; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-'))
            return ny_error(err, no, "",
                            "\"%s\" is not a plain key (letters, digits, _ and -; no merge keys "
                            "or quoted keys)",
                            line);
    char key[NY_KEY];
    if (strlen(s->lv[s->depth].prefix) + strlen(line) >= sizeof key)
        return ny_error(err, no, "", "\"%s\" makes a key longer than 127 characters", line);
    size_t pl = strlen(s->lv[s->depth].prefix);
    memcpy(key, s->lv[s->depth].prefix, pl);
    memcpy(key + pl, line, strlen(line) + 1);
    s->content = true;
    if (!*v) { /* a mapping or a sequence follows, or null */
        s->open_indent = ind;
        snprintf(s->open_key, sizeof s->open_key, "%s", key);
        s->open_line = no;
        return TP_OK;
    }
    const char *why = unreadable(v);
    if (why)
        return ny_error(err, no, key, "\"%s\" %s", key, why);
    if (strlen(v) >= NY_VAL)
        return ny_error(err, no, key, "\"%s\" has a value longer than 255 characters", key);
    if (!unquote(v))
        return ny_error(err, no, key, "\"%s\" has a quote that is never closed", key);
    return ny_add(out, key, v, no, err);
}

static tp_status ny_read(const char *text, nkeys *out, tp_error *err)
{
    ny_state s = {.open_indent = -1};
    char line[1024];
    int no = 0;
    if (strncmp(text, "\xef\xbb\xbf", 3) == 0)
        text += 3; /* a UTF-8 byte-order mark */
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        no++;
        if (n >= sizeof line)
            return ny_error(err, no, "", "this line is longer than 1023 characters");
        memcpy(line, p, n);
        line[n] = '\0';
        p += n + (p[n] == '\n');
        if (n > 0 && line[n - 1] == '\r')
            line[n - 1] = '\0';
        int ind = 0;
        while (line[ind] == ' ')
            ind++;
        if (line[ind] == '\t')
            return ny_error(err, no, "",
                            "a tab indents this line (YAML indents "
                            "with spaces)");
        char *body = line + ind;
        cut_comment(body);
        if (!*body)
            continue;
        if (ind == 0 && (strcmp(body, "---") == 0 || strncmp(body, "--- ", 4) == 0)) {
            if (s.content)
                return ny_error(
                    err, no, "",
                    "a second YAML document starts here (an override file is one document)");
            continue;
        }
        if (ind == 0 && strcmp(body, "...") == 0)
            break;
        if (body[0] == '%')
            return ny_error(err, no, "", "YAML directives are not read");
        if (body[0] == '-' && (body[1] == ' ' || body[1] == '\0')) {
            if (s.open_indent < 0 || ind < s.open_indent)
                return ny_error(err, no, "", "this sequence item belongs to no key");
            char *item = body + 1;
            while (*item == ' ')
                item++;
            if (!unquote(item))
                return ny_error(err, no, s.open_key, "\"%s\" has a quote that is never closed",
                                s.open_key);
            TP_TRY(ny_item(&s, out, item, no, err));
            continue;
        }
        TP_TRY(ny_pair(&s, out, body, ind, no, err));
    }
    if (s.open_indent >= 0 && !s.seq)
        TP_TRY(ny_add(out, s.open_key, "null", s.open_line, err));
    return TP_OK;
}

/* ------------------------------------------------------------------ */
/* The ConfigContainer fields                                           */
/* ------------------------------------------------------------------ */

typedef enum nid {
    N_TP,
    N_PP,
    N_CP,
    N_EP,
    N_ETP,
    N_VPP,
    N_SP,
    N_SEQ,
    N_LAYERS,
    N_HIDDEN,
    N_FFN,
    N_HEADS,
    N_GROUPS,
    N_KV_CH,
    N_RECOMP_GRAN,
    N_RECOMP_METHOD,
    N_RECOMP_NUM,
    N_FP8,
    N_MIXED,    /* mixed_precision: "bf16_mixed" (a recipe name) */
    N_MP_DTYPE, /* mixed_precision.dtype / params_dtype */
    N_MP_BF16,
    N_MP_FP16,
    N_MB,
    N_GB,
    N_DISTOPT,
    N_MFSDP,
    N_SHARDING,
    N_GRAD_FP32,
    N_OPTIMIZER,
    N_OPT_OFFLOAD,
    N_OPT_OFFLOAD_FRAC,
    N_FP8_GATHER,
    N_NO_WCACHE, /* model.disable_parameter_transpose_cache */
    N_CE_FUSION, /* model.cross_entropy_loss_fusion */
    N_CE_IMPL,   /* model.cross_entropy_fusion_impl */
    N_COUNT
} nid;

/* section.field (the section without a "_config" suffix) -> meaning. */
static const struct {
    const char *key;
    nid id;
} nemo_map[] = {
    {"model.tensor_model_parallel_size", N_TP},
    {"model.pipeline_model_parallel_size", N_PP},
    {"model.context_parallel_size", N_CP},
    {"model.expert_model_parallel_size", N_EP},
    {"model.expert_tensor_parallel_size", N_ETP},
    {"model.virtual_pipeline_model_parallel_size", N_VPP},
    {"model.sequence_parallel", N_SP},
    {"model.seq_length", N_SEQ},
    {"dataset.seq_length", N_SEQ},
    {"dataset.sequence_length", N_SEQ},
    {"model.num_layers", N_LAYERS},
    {"model.hidden_size", N_HIDDEN},
    {"model.ffn_hidden_size", N_FFN},
    {"model.num_attention_heads", N_HEADS},
    {"model.num_query_groups", N_GROUPS},
    {"model.kv_channels", N_KV_CH},
    {"model.recompute_granularity", N_RECOMP_GRAN},
    {"model.recompute_method", N_RECOMP_METHOD},
    {"model.recompute_num_layers", N_RECOMP_NUM},
    {"model.fp8", N_FP8},
    {"mixed_precision", N_MIXED},
    {"mixed_precision.dtype", N_MP_DTYPE},
    {"mixed_precision.params_dtype", N_MP_DTYPE},
    {"mixed_precision.bf16", N_MP_BF16},
    {"mixed_precision.fp16", N_MP_FP16},
    {"mixed_precision.fp8", N_FP8},
    {"mixed_precision.grad_reduce_in_fp32", N_GRAD_FP32},
    {"mixed_precision.fp8_param_gather", N_FP8_GATHER},
    {"mixed_precision.fp8_param", N_FP8_GATHER},
    {"train.micro_batch_size", N_MB},
    {"train.global_batch_size", N_GB},
    {"ddp.use_distributed_optimizer", N_DISTOPT},
    {"optimizer.use_distributed_optimizer", N_DISTOPT},
    {"ddp.use_megatron_fsdp", N_MFSDP},
    {"ddp.data_parallel_sharding_strategy", N_SHARDING},
    {"ddp.grad_reduce_in_fp32", N_GRAD_FP32},
    {"optimizer.optimizer", N_OPTIMIZER},
    {"optimizer.optimizer_cpu_offload", N_OPT_OFFLOAD},
    {"optimizer.optimizer_offload_fraction", N_OPT_OFFLOAD_FRAC},
    {"model.disable_parameter_transpose_cache", N_NO_WCACHE},
    {"model.cross_entropy_loss_fusion", N_CE_FUSION},
    {"model.cross_entropy_fusion_impl", N_CE_IMPL},
};
#define NEMO_MAP (sizeof nemo_map / sizeof nemo_map[0])

/* Sections and fields that cannot change memory or time. */
static const char *const nemo_ignored[] = {"scheduler.",
                                           "logger.",
                                           "checkpoint.",
                                           "tokenizer.",
                                           "rng.",
                                           "profiling.",
                                           "ft.",
                                           "straggler.",
                                           "nvrx_straggler.",
                                           "inprocess_restart.",
                                           "tensor_inspect.",
                                           "dataset.",
                                           "train.",
                                           "validation.",
                                           "optimizer.lr",
                                           "optimizer.min_lr",
                                           "optimizer.weight_decay",
                                           "optimizer.adam_beta1",
                                           "optimizer.adam_beta2",
                                           "optimizer.adam_eps",
                                           "optimizer.clip_grad",
                                           "optimizer.sgd_momentum",
                                           "model.init_method_std",
                                           "model.seed",
                                           "mixed_precision.loss_scale",
                                           "mixed_precision.initial_loss_scale",
                                           "mixed_precision.min_loss_scale",
                                           "mixed_precision.loss_scale_window",
                                           "mixed_precision.hysteresis",
                                           NULL};
/* Settings whose effect is one of trainplan's calibrated efficiencies. */
static const char *const nemo_approx[] = {"comm_overlap.",
                                          "dist.",
                                          "ddp.overlap_grad_reduce",
                                          "ddp.overlap_param_gather",
                                          "ddp.bucket_size",
                                          "ddp.average_in_collective",
                                          "ddp.check_for_nan_in_grad",
                                          "ddp.align_param_gather",
                                          "model.tp_comm_overlap",
                                          "model.gradient_accumulation_fusion",
                                          "model.apply_rope_fusion",
                                          "model.bias_activation_fusion",
                                          "model.masked_softmax_fusion",
                                          "model.moe_grouped_gemm",
                                          "model.moe_token_dispatcher_type",
                                          "model.moe_permute_fusion",
                                          "model.attention_backend",
                                          "model.defer_embedding_wgrad_compute",
                                          "model.wgrad_deferral_limit",
                                          "model.cuda_graph_impl",
                                          "model.cuda_graph_scope",
                                          "model.moe_router_dtype",
                                          "model.moe_aux_loss_coeff",
                                          "model.moe_router_load_balancing_type",
                                          "mixed_precision.fp8_recipe",
                                          "mixed_precision.fp8_margin",
                                          "mixed_precision.fp8_amax_history_len",
                                          "mixed_precision.fp8_amax_compute_algo",
                                          "mixed_precision.fp8_wgrad",
                                          "mixed_precision.autocast_enabled",
                                          "mixed_precision.pipeline_dtype",
                                          NULL};

static bool has_prefix(const char *k, const char *const *list)
{
    for (size_t i = 0; list[i]; i++) {
        size_t n = strlen(list[i]);
        if (strncmp(k, list[i], n) == 0 && (list[i][n - 1] == '.' || k[n] == '\0'))
            return true;
    }
    return false;
}

/* "model_config.x" -> "model.x": the older examples' section names. */
static void section_name(const char *key, char *out, size_t n)
{
    const char *dot = strchr(key, '.');
    size_t head = dot ? (size_t)(dot - key) : strlen(key);
    if (head > 7 && strncmp(key + head - 7, "_config", 7) == 0)
        snprintf(out, n, "%.*s%s", (int)(head - 7), key, key + head);
    else
        snprintf(out, n, "%s", key);
}

typedef struct nslot {
    const nkey *k; /* NULL: not given */
} nslot;

static bool is_null(const char *v)
{
    return strcmp(v, "null") == 0 || strcmp(v, "~") == 0 || strcmp(v, "None") == 0 || !*v;
}

/* YAML 1.2's booleans (and 1.1's yes/no, which Hydra/OmegaConf still read). */
static tp_status n_bool(const nkey *k, bool *out, tp_error *err)
{
    static const char *const yes[] = {"true", "True", "TRUE", "yes", "on", NULL};
    static const char *const no[] = {"false", "False", "FALSE", "no", "off", NULL};
    for (size_t i = 0; yes[i]; i++)
        if (strcmp(k->val, yes[i]) == 0)
            return (*out = true), TP_OK;
    for (size_t i = 0; no[i]; i++)
        if (strcmp(k->val, no[i]) == 0)
            return (*out = false), TP_OK;
    return ny_error(err, k->line, k->key, "\"%s\" must be true or false, got %.40s", k->key,
                    k->val);
}

static tp_status n_int(const nkey *k, int64_t lo, int64_t hi, int64_t *out, tp_error *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(k->val, &end, 10);
    if (end == k->val || *end || errno || v < lo || v > hi)
        return ny_error(err, k->line, k->key,
                        "\"%s\" must be an integer in [%" PRId64 ", %" PRId64 "], got %.40s",
                        k->key, lo, hi, k->val);
    *out = v;
    return TP_OK;
}

/* The next flag pushed comes from key k (its name cut to what the import
 * records). */
static void n_from(tp_import *im, const nkey *k)
{
    char name[sizeof im->src];
    snprintf(name, sizeof name, "%.*s", (int)sizeof name - 1, k->key);
    from(im, name, k->line, 1);
}

/* Push flag with the integer of slot id, named after its key and line. */
static tp_status n_push_int(tp_import *im, const nslot *sl, nid id, const char *flag, int64_t lo,
                            int64_t hi, tp_error *err)
{
    const nkey *k = sl[id].k;
    if (!k || is_null(k->val))
        return TP_OK;
    int64_t v = 0;
    TP_TRY(n_int(k, lo, hi, &v, err));
    n_from(im, k);
    PUSH(push_i64(im, flag, v));
    return TP_OK;
}

/* Sort the keys into slots; ignored and approximated ones into the lists. */
static tp_status n_classify(const nkeys *ks, nslot *sl, tp_import *im, tp_error *err)
{
    for (int i = 0; i < ks->n; i++) {
        const nkey *k = &ks->k[i];
        char key[NY_KEY];
        section_name(k->key, key, sizeof key);
        bool mapped = false;
        for (size_t j = 0; j < NEMO_MAP && !mapped; j++)
            if (strcmp(key, nemo_map[j].key) == 0) {
                sl[nemo_map[j].id].k = k;
                mapped = true;
            }
        if (mapped)
            continue;
        if (strcmp(key, "peft") == 0 || strncmp(key, "peft.", 5) == 0)
            return ny_error(err, k->line, k->key,
                            "\"%s\" fine-tunes adapters (PEFT/LoRA), which changes memory or "
                            "time in a way trainplan does not model",
                            k->key);
        if (has_prefix(key, nemo_ignored))
            list_add(im->ignored, sizeof im->ignored, k->key);
        else if (has_prefix(key, nemo_approx))
            list_add(im->approximated, sizeof im->approximated, k->key);
        else
            return ny_error(err, k->line, k->key,
                            "\"%s\" is not a Megatron-Bridge setting trainplan reads: it cannot "
                            "tell whether it changes memory or time",
                            k->key);
    }
    return TP_OK;
}

/* A string slot's value among choices: its index, or an error naming them. */
static tp_status n_choice(const nkey *k, const char *const *choices, int *out, tp_error *err)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(k->val, choices[i]) == 0)
            return (*out = i), TP_OK;
    char list[160] = "";
    for (int i = 0; choices[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 choices[i]);
    return ny_error(err, k->line, k->key, "\"%s\" must be one of %s, got %.40s", k->key, list,
                    k->val);
}

/* Parallel sizes, sequence parallelism, virtual stages, sequence, shape. */
static tp_status n_layout(const nslot *sl, tp_import *im, tp_error *err)
{
    TP_TRY(n_push_int(im, sl, N_TP, "--tp", 1, TP_MAX_GPUS, err));
    TP_TRY(n_push_int(im, sl, N_PP, "--pp", 1, TP_MAX_GPUS, err));
    TP_TRY(n_push_int(im, sl, N_CP, "--cp", 1, TP_MAX_GPUS, err));
    TP_TRY(n_push_int(im, sl, N_EP, "--ep", 1, TP_MAX_GPUS, err));
    TP_TRY(n_push_int(im, sl, N_ETP, "--etp", 1, TP_MAX_GPUS, err));
    if (sl[N_VPP].k && !is_null(sl[N_VPP].k->val)) {
        TP_TRY(n_push_int(im, sl, N_VPP, "--vpp", 1, TP_MAX_LAYERS, err));
        PUSH(push_str(im, "--schedule", "interleaved")); /* Megatron interleaves with VPP */
    }
    if (sl[N_SP].k) {
        bool sp;
        TP_TRY(n_bool(sl[N_SP].k, &sp, err));
        n_from(im, sl[N_SP].k);
        PUSH(push_flag(im, sp ? "--sp" : "--no-sp"));
    }
    TP_TRY(n_push_int(im, sl, N_SEQ, "--seq-len", 1, TP_MAX_SEQ, err));
    if (!sl[N_SEQ].k)
        assume(im, "no seq_length: the recipe's sequence length taken from the trainplan flags");
    TP_TRY(n_push_int(im, sl, N_LAYERS, "--layers", 1, TP_MAX_LAYERS, err));
    TP_TRY(n_push_int(im, sl, N_HIDDEN, "--hidden", 1, TP_MAX_DIM, err));
    TP_TRY(n_push_int(im, sl, N_FFN, "--ffn-hidden", 1, TP_MAX_FFN, err));
    TP_TRY(n_push_int(im, sl, N_HEADS, "--heads", 1, TP_MAX_DIM, err));
    TP_TRY(n_push_int(im, sl, N_GROUPS, "--kv-heads", 1, TP_MAX_DIM, err));
    TP_TRY(n_push_int(im, sl, N_KV_CH, "--head-dim", 1, TP_MAX_DIM, err));
    TP_TRY(n_push_int(im, sl, N_MB, "--micro-batch", 1, TP_MAX_BATCH, err));
    TP_TRY(n_push_int(im, sl, N_GB, "--global-batch", 1, TP_MAX_BATCH, err));
    return TP_OK;
}

/* Recompute: granularity, and the method's layer count. */
static tp_status n_recompute(const nslot *sl, tp_import *im, tp_error *err)
{
    const nkey *g = sl[N_RECOMP_GRAN].k;
    if (!g || is_null(g->val))
        return TP_OK;
    static const char *const grans[] = {"selective", "full", NULL};
    int gi;
    TP_TRY(n_choice(g, grans, &gi, err));
    n_from(im, g);
    PUSH(push_str(im, "--recompute", grans[gi]));
    const nkey *m = sl[N_RECOMP_METHOD].k;
    if (gi != 1 || !m || is_null(m->val))
        return TP_OK;
    static const char *const methods[] = {"uniform", "block", NULL};
    int mi;
    TP_TRY(n_choice(m, methods, &mi, err));
    TP_TRY(n_push_int(im, sl, N_RECOMP_NUM,
                      mi == 0 ? "--recompute-every" : "--recompute-block-layers", 1, TP_MAX_LAYERS,
                      err));
    return TP_OK;
}

/* The precision: mixed_precision (a recipe name or its fields), fp8. */
static tp_status n_precision(const nslot *sl, tp_import *im, tp_error *err)
{
    const char *prec = NULL;
    const nkey *src = NULL;
    if (sl[N_MIXED].k && !is_null(sl[N_MIXED].k->val)) {
        const nkey *k = sl[N_MIXED].k;
        /* Megatron-Bridge's named recipes: bf16_mixed, fp16_mixed,
         * bf16_with_fp8_*_mixed, ... */
        prec = strstr(k->val, "fp8")             ? "fp8"
               : strncmp(k->val, "bf16", 4) == 0 ? "bf16"
               : strncmp(k->val, "fp16", 4) == 0 ? "fp16"
                                                 : NULL;
        if (!prec)
            return ny_error(err, k->line, k->key,
                            "\"%s\" is a mixed-precision recipe trainplan does not read (bf16_*, "
                            "fp16_*, *fp8*), got %.40s",
                            k->key, k->val);
        src = k;
        /* the recipes of mixed_precision.py: bf16 ones reduce gradients in
         * fp32 (fp16 ones in fp16, trainplan's default for fp16); the fp8
         * ones but subchannel gather fp8 parameters */
        if (!sl[N_GRAD_FP32].k && strncmp(k->val, "bf16", 4) == 0) {
            n_from(im, k);
            PUSH(push_str(im, "--grad-dtype", "fp32"));
        }
        if (!sl[N_FP8_GATHER].k && strstr(k->val, "fp8") && !strstr(k->val, "subchannel")) {
            n_from(im, k);
            PUSH(push_flag(im, "--fp8-param-gather"));
        }
    }
    if (sl[N_FP8_GATHER].k && !is_null(sl[N_FP8_GATHER].k->val)) {
        bool on;
        TP_TRY(n_bool(sl[N_FP8_GATHER].k, &on, err));
        if (on) {
            n_from(im, sl[N_FP8_GATHER].k);
            PUSH(push_flag(im, "--fp8-param-gather"));
        }
    }
    for (nid id = N_MP_DTYPE; id <= N_MP_FP16; id++) {
        const nkey *k = sl[id].k;
        if (!k || is_null(k->val))
            continue;
        if (id == N_MP_DTYPE) {
            static const char *const d[] = {
                "bf16", "fp16", "bfloat16", "float16", "torch.bfloat16", "torch.float16", NULL};
            int i;
            TP_TRY(n_choice(k, d, &i, err));
            prec = i % 2 == 0 ? "bf16" : "fp16";
        } else {
            bool on;
            TP_TRY(n_bool(k, &on, err));
            if (!on)
                continue;
            prec = id == N_MP_BF16 ? "bf16" : "fp16";
        }
        src = k;
    }
    const nkey *f8 = sl[N_FP8].k;
    if (f8 && !is_null(f8->val) && strcmp(f8->val, "false") != 0 && strcmp(f8->val, "False") != 0) {
        static const char *const fmts[] = {"hybrid", "e4m3", "true", "True", NULL};
        int i;
        TP_TRY(n_choice(f8, fmts, &i, err));
        prec = "fp8";
        src = f8;
    }
    if (prec) {
        n_from(im, src);
        PUSH(push_str(im, "--precision", prec));
    } else {
        assume(im, "no mixed_precision: the recipe's precision taken from the trainplan flags");
    }
    return TP_OK;
}

/* The ZeRO stage (distributed optimizer, Megatron-FSDP), gradients, optimizer. */
static tp_status n_optimizer(const nslot *sl, tp_import *im, tp_error *err)
{
    bool on = false;
    if (sl[N_MFSDP].k)
        TP_TRY(n_bool(sl[N_MFSDP].k, &on, err));
    if (on) {
        static const char *const st[] = {"no_shard", "optim", "optim_grads", "optim_grads_params",
                                         NULL};
        int zero = 3; /* Megatron-Core's default strategy: optim_grads_params */
        const nkey *k = sl[N_SHARDING].k;
        if (k)
            TP_TRY(n_choice(k, st, &zero, err));
        n_from(im, k ? k : sl[N_MFSDP].k);
        PUSH(push_i64(im, "--zero", zero));
    } else if (sl[N_DISTOPT].k) {
        TP_TRY(n_bool(sl[N_DISTOPT].k, &on, err));
        n_from(im, sl[N_DISTOPT].k);
        PUSH(push_i64(im, "--zero", on ? 1 : 0));
    } else {
        assume(im, "no use_distributed_optimizer or Megatron-FSDP: the recipe's ZeRO stage "
                   "taken from the trainplan flags");
    }
    if (sl[N_GRAD_FP32].k) {
        TP_TRY(n_bool(sl[N_GRAD_FP32].k, &on, err));
        n_from(im, sl[N_GRAD_FP32].k);
        PUSH(push_str(im, "--grad-dtype", on ? "fp32" : "bf16"));
    }
    if (sl[N_OPTIMIZER].k) {
        static const char *const kinds[] = {"adam", "sgd", NULL};
        int i;
        TP_TRY(n_choice(sl[N_OPTIMIZER].k, kinds, &i, err));
        n_from(im, sl[N_OPTIMIZER].k);
        PUSH(push_str(im, "--optimizer", i == 0 ? "adamw" : "sgd-momentum"));
    }
    if (sl[N_OPT_OFFLOAD].k) {
        TP_TRY(n_bool(sl[N_OPT_OFFLOAD].k, &on, err));
        if (on) {
            char frac[32] = "1";
            const nkey *k = sl[N_OPT_OFFLOAD_FRAC].k;
            if (k && !is_null(k->val)) {
                char *end;
                double x = strtod(k->val, &end);
                if (end == k->val || *end || !(x > 0.0 && x <= 1.0))
                    return ny_error(err, k->line, k->key,
                                    "\"%s\" must be a fraction in (0, 1], got %.40s", k->key,
                                    k->val);
                snprintf(frac, sizeof frac, "%.17g", x);
            }
            n_from(im, sl[N_OPT_OFFLOAD].k);
            PUSH(push_str(im, "--offload-optimizer", frac));
        }
    }
    if (sl[N_NO_WCACHE].k) { /* TE casts the fp8 weights per micro-batch */
        TP_TRY(n_bool(sl[N_NO_WCACHE].k, &on, err));
        if (on) {
            n_from(im, sl[N_NO_WCACHE].k);
            PUSH(push_flag(im, "--no-fp8-weight-cache"));
        }
    }
    return TP_OK;
}

/*
 * The loss is Megatron-Core's (language_module.py compute_language_model_loss
 * @ core_v0.15.0), as in megatron_train.c emit_loss: with the fusion and
 * the "te" implementation, TransformerEngine's cross-entropy writes the
 * gradient into the bf16 logits (2 B a logit); otherwise the
 * vocabulary-parallel loss saves the fp32 softmax (4 B), also when the
 * file leaves both to the recipe. The native fusion's speed is
 * approximated.
 */
static tp_status n_loss(const nslot *sl, tp_import *im, tp_error *err)
{
    const nkey *fk = sl[N_CE_FUSION].k, *ik = sl[N_CE_IMPL].k;
    bool fused = false;
    int impl = 0; /* TransformerConfig's default, native */
    if (fk && !is_null(fk->val))
        TP_TRY(n_bool(fk, &fused, err));
    if (ik && !is_null(ik->val))
        TP_TRY(n_choice(ik, eng_mcore_ce_impls, &impl, err));
    bool te = fused && impl == 1;
    char x[32], y[32];
    if (te) {
        n_from(im, ik);
    } else {
        if (fused)
            list_add(im->approximated, sizeof im->approximated, fk->key);
        else if (fk)
            list_add(im->ignored, sizeof im->ignored, fk->key);
        if (ik)
            list_add(im->ignored, sizeof im->ignored, ik->key); /* without the fusion */
        if (!fk && !ik) {
            char text[160];
            snprintf(text, sizeof text,
                     "no cross_entropy_loss_fusion: Megatron-Core's vocabulary-parallel loss, %s "
                     "B a logit (a recipe with TransformerEngine's holds %s)",
                     eng_real(x, sizeof x, eng_mcore_ce_bytes(false)),
                     eng_real(y, sizeof y, eng_mcore_ce_bytes(true)));
            assume(im, text);
        }
    }
    PUSH(push_str(im, "--ce-bytes-per-logit", eng_real(x, sizeof x, eng_mcore_ce_bytes(te))));
    return TP_OK;
}

tp_status tp_io_import_nemo(const char *text, const char *origin, tp_import *out, tp_error *err)
{
    (void)origin; /* the overrides do not name the model */
    memset(out, 0, sizeof *out);
    out->kind = TP_IMPORT_NEMO;
    if (!text)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "no NeMo override file");
    nkeys *ks = calloc(1, sizeof *ks);
    if (!ks)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the overrides");
    nslot sl[N_COUNT] = {{0}};
    tp_status st = ny_read(text, ks, err);
    if (st == TP_OK)
        st = n_classify(ks, sl, out, err);
    if (st == TP_OK)
        st = n_layout(sl, out, err);
    if (st == TP_OK)
        st = n_recompute(sl, out, err);
    if (st == TP_OK)
        st = n_precision(sl, out, err);
    if (st == TP_OK)
        st = n_optimizer(sl, out, err);
    if (st == TP_OK)
        st = n_loss(sl, out, err);
    out->has_model = sl[N_LAYERS].k != NULL; /* the file sets the shape itself */
    free(ks);
    return st;
}

tp_status tp_engine_nemo_apply(const tp_import *im, const tp_import_user *user, tp_config *c,
                               tp_error *err)
{
    (void)c;
    if (!user->model && !im->has_model)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "--model",
                            "--model: the NeMo overrides do not define the model (the recipe "
                            "does); add --model NAME or FILE");
    if (!user->gpus)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "--gpus",
                            "--gpus: the NeMo overrides do not give the number of GPUs (the "
                            "launcher does); add --gpus N");
    return TP_OK;
}
