/* SPDX-License-Identifier: MIT */
/*
 * export.c: a plan as Megatron-LM arguments, a torchtitan job TOML or a
 * DeepSpeed config, and the estimate as Markdown or CSV.
 *
 * Each writer walks the plan field by field (docs/export.md is the same
 * table in prose) and either writes the engine's setting or records a line
 * under "Not expressible": nothing in the plan is dropped silently. The
 * header of every export names the trainplan version, the plan (as the
 * trainplan flags that rebuild it) and the predicted memory and
 * throughput, so that a launch file found later says where it came from.
 *
 * Sources for the engine vocabularies:
 *  - Megatron-LM megatron/training/arguments.py @ 000c4ac2 (the tests
 *    check every name and value against data/engines/megatron-args-d98e8a64.tsv);
 *  - torchtitan torchtitan/config/job_config.py @ 6404b932 (sections and
 *    keys: [training] local_batch_size, [parallelism] ..., [activation_checkpoint]);
 *  - DeepSpeed ds_config keys (train_batch_size, train_micro_batch_size_per_gpu,
 *    gradient_accumulation_steps, zero_optimization.stage, bf16/fp16.enabled,
 *    data_types.grad_accum_dtype, activation_checkpointing, optimizer.type).
 *
 * Invariants:
 *  1. Output is a pure function of (format, config, result, opts): no time
 *     stamps, no paths, so golden files are stable.
 *  2. num_unexpressed counts exactly the lines under "Not expressible"; an
 *     export with num_unexpressed == 0 imports back to the same estimate
 *     (Megatron, DeepSpeed; tests/cli/export_test.sh checks it).
 */
#include <ctype.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "export.h"
#include "io.h"
#include "io_internal.h"
#include "sbuf.h"

#define GIB 1073741824.0 /* 2^30 bytes */
#define WRAP_COLS 96     /* comment lines are wrapped at this width */

static const char *const format_names[TP_EXPORT_COUNT] = {"megatron", "torchtitan", "deepspeed"};

const char *tp_io_export_format_name(tp_export_format f)
{
    return (f >= 0 && f < TP_EXPORT_COUNT) ? format_names[f] : "unknown";
}

tp_status tp_io_export_format_parse(const char *name, tp_export_format *out, tp_error *err)
{
    for (int i = 0; i < TP_EXPORT_COUNT; i++) {
        if (name && strcmp(name, format_names[i]) == 0) {
            *out = (tp_export_format)i;
            return TP_OK;
        }
    }
    return tp_error_set(err, TP_ERR_UNKNOWN, "format",
                        "unknown export format \"%s\" (choose megatron, torchtitan or deepspeed)",
                        name ? name : "");
}

void tp_io_export_free(tp_export *e)
{
    if (!e)
        return;
    free(e->text);
    free(e->notes);
    e->text = NULL;
    e->notes = NULL;
    e->num_unexpressed = 0;
}

/* ------------------------------------------------------------------ */
/* Notes: the lines under "Not expressible" (counted) or informational  */
/* ------------------------------------------------------------------ */

typedef struct notes {
    sbuf text; /* one item per line, no prefix */
    int count;
} notes;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void note(notes *n, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sb_puts(&n->text, line);
    sb_puts(&n->text, "\n");
    n->count++;
}

/* Append text as comment lines: "<prefix><lead>" then continuation lines
 * indented by `indent` spaces after the prefix, wrapped at WRAP_COLS. */
static void wrap(sbuf *out, const char *prefix, const char *lead, size_t indent, const char *text)
{
    size_t col = strlen(prefix) + strlen(lead);
    sb_puts(out, prefix);
    sb_puts(out, lead);
    const char *p = text;
    bool first = true;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t w = strcspn(p, " ");
        /* keep "--flag value" together on one line */
        if (w > 2 && p[0] == '-' && p[1] == '-' && p[w] == ' ' && p[w + 1] != '-' &&
            p[w + 1] != '\0' && p[w + 1] != ' ')
            w += 1 + strcspn(p + w + 1, " ");
        if (!first && col + 1 + w > WRAP_COLS) {
            sb_puts(out, "\n");
            sb_puts(out, prefix);
            for (size_t i = 0; i < indent; i++)
                sb_puts(out, " ");
            col = strlen(prefix) + indent;
            first = true;
        }
        if (!first) {
            sb_puts(out, " ");
            col++;
        }
        sb_putn(out, p, w);
        col += w;
        p += w;
        first = false;
    }
    sb_puts(out, "\n");
}

/* Each line of a notes list as a wrapped "- item" under prefix. */
static void put_items(sbuf *out, const char *prefix, const notes *n)
{
    const char *s = n->text.s;
    while (s && *s) {
        size_t len = strcspn(s, "\n");
        char item[1100];
        snprintf(item, sizeof item, "%.*s", (int)(len < 1099 ? len : 1099), s);
        wrap(out, prefix, "  - ", 4, item);
        s += len;
        if (*s == '\n')
            s++;
    }
}

/* ------------------------------------------------------------------ */
/* Shared facts about the plan                                          */
/* ------------------------------------------------------------------ */

static int64_t gpus_per_node(const tp_config *c)
{
    return c->train.gpus_per_node > 0 ? c->train.gpus_per_node : c->gpu.gpus_per_node;
}

static int64_t kv_heads(const tp_model *m)
{
    return m->num_kv_heads > 0 ? m->num_kv_heads : m->num_heads;
}

static int64_t head_dim(const tp_model *m)
{
    return m->head_dim > 0 ? m->head_dim : m->hidden / m->num_heads;
}

static int64_t expert_ffn(const tp_model *m)
{
    return m->moe_ffn_hidden > 0 ? m->moe_ffn_hidden : m->ffn_hidden;
}

static int64_t shared_width(const tp_model *m)
{
    if (m->num_experts <= 0 || m->num_shared_experts <= 0)
        return 0;
    return m->shared_ffn_hidden > 0 ? m->shared_ffn_hidden
                                    : m->num_shared_experts * expert_ffn(m);
}

static int64_t padded_vocab(int64_t v, int64_t pad)
{
    return pad > 1 ? (v + pad - 1) / pad * pad : v;
}

/* Steps of a run of train_tokens tokens, 0 when the plan has no budget. */
static int64_t train_steps(const tp_config *c, const tp_export_opts *o)
{
    if (!o || o->train_tokens <= 0)
        return 0;
    int64_t per_step = c->train.global_batch * c->train.seq_len;
    return per_step > 0 ? (o->train_tokens + per_step - 1) / per_step : 0;
}

/* Is layer i a MoE layer under the model's pattern (model.c's convention)? */
static bool layer_is_moe(const tp_model *m, int64_t i)
{
    if (m->num_experts <= 0 || i < m->moe_first_dense)
        return false;
    int64_t freq = m->moe_layer_freq > 1 ? m->moe_layer_freq : 1;
    return (i - m->moe_first_dense) % freq == 0;
}

/* A name safe to put in a comment line or a TOML/JSON string: printable ASCII. */
static void safe_name(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (const char *p = in; *p && o + 1 < n; p++)
        out[o++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    out[o] = '\0';
    if (o == 0)
        snprintf(out, n, "(unnamed)");
}

static void plan_summary(sbuf *b, const tp_config *c, const tp_result *r)
{
    const tp_train *t = &c->train;
    char mname[TP_NAME_MAX], gname[TP_NAME_MAX];
    safe_name(c->model.name, mname, sizeof mname);
    safe_name(c->gpu.name, gname, sizeof gname);
    sb_printf(b, "%s on %" PRId64 " x %s (%" PRId64 " per node): TP %" PRId64 " x PP %" PRId64
                 " x CP %" PRId64 " x DP %" PRId64 ", EP %" PRId64,
              mname, t->num_gpus, gname, gpus_per_node(c), t->tp, t->pp, t->cp, r->dp, t->ep);
    if (t->vpp > 1)
        sb_printf(b, ", %" PRId64 " virtual stages", t->vpp);
    sb_printf(b, ", sequence parallel %s, ZeRO %d, schedule %s; sequence %" PRId64
                 " tokens, micro-batch %" PRId64 ", global batch %" PRId64 " (%" PRId64
                 " micro-batches per step); %s, recompute %s",
              t->sp ? "on" : "off", t->zero, tp_io_schedule_name(t->schedule), t->seq_len,
              t->micro_batch, t->global_batch, r->grad_accum, tp_io_precision_name(t->precision),
              tp_io_recompute_name(t->recompute));
    if (t->recompute == TP_RECOMPUTE_FULL && t->recompute_every > 1)
        sb_printf(b, " (every %" PRId64 " layers)", t->recompute_every);
}

static void memory_summary(sbuf *b, const tp_result *r)
{
    const tp_memory *m = &r->memory;
    sb_printf(b, "%.2f GiB of %.2f GiB usable on the heaviest GPU (pipeline stage %" PRId64
                 "): ",
              m->total_bytes / GIB, m->capacity_bytes / GIB, m->stage);
    if (m->fits)
        sb_printf(b, "fits, %.2f GiB headroom", m->headroom_bytes / GIB);
    else
        sb_printf(b, "DOES NOT FIT (%s)", r->reason[0] ? r->reason : "over capacity");
}

static void time_summary(sbuf *b, const tp_result *r)
{
    const tp_time *t = &r->time;
    if (!t->computed) {
        sb_puts(b, "not computed (this build of trainplan has no step-time model)");
        return;
    }
    sb_printf(b, "step %.3f s, %.0f tokens/s (%.1f tokens/s per GPU), %.1f model TFLOP/s per "
                 "GPU, MFU %.1f%%",
              t->step_s, t->tokens_per_s, t->tokens_per_s_per_gpu,
              t->model_flops_per_s_per_gpu / 1e12, 100.0 * t->mfu);
    if (t->bottleneck && t->bottleneck[0])
        sb_printf(b, ", largest non-compute part: %s", t->bottleneck);
}

/* The common header of every export, as comment lines under prefix. */
static void header(sbuf *out, const char *prefix, const char *title, const tp_config *c,
                   const tp_result *r, const tp_export_opts *o, const notes *unexpressed,
                   const char *engine, const char *where)
{
    sbuf s = {0};
    char lead[160];
    snprintf(lead, sizeof lead, "%s, written by trainplan %s", title, tp_version_string());
    wrap(out, prefix, lead, 0, "");

    plan_summary(&s, c, r);
    wrap(out, prefix, "Plan: ", 6, s.s ? s.s : "");
    sb_free(&s);

    char *flags = tp_io_config_flags(c);
    sb_printf(&s, "trainplan estimate %s", flags ? flags : "(out of memory)");
    free(flags);
    wrap(out, prefix, "Reproduce: ", 11, s.s ? s.s : "");
    sb_free(&s);

    memory_summary(&s, r);
    wrap(out, prefix, "Predicted memory: ", 18, s.s ? s.s : "");
    sb_free(&s);

    time_summary(&s, r);
    wrap(out, prefix, "Predicted throughput: ", 22, s.s ? s.s : "");
    sb_free(&s);

    int64_t steps = train_steps(c, o);
    if (steps > 0) {
        sb_printf(&s, "%" PRId64 " tokens = %" PRId64 " steps of %" PRId64 " tokens",
                  o->train_tokens, steps, c->train.global_batch * c->train.seq_len);
        wrap(out, prefix, "Training length: ", 17, s.s ? s.s : "");
        sb_free(&s);
    }
    if (unexpressed->count == 0) {
        snprintf(lead, sizeof lead, "Everything in the plan is expressed in %s (%s).", engine,
                 where);
        wrap(out, prefix, lead, 0, "");
    } else {
        snprintf(lead, sizeof lead,
                 "Not expressible in %s (%d; the run differs from the plan here):", engine,
                 unexpressed->count);
        wrap(out, prefix, lead, 0, "");
        put_items(out, prefix, unexpressed);
    }
}

/* ------------------------------------------------------------------ */
/* trainplan flags of a configuration                                   */
/* ------------------------------------------------------------------ */

/* Same shape as far as the trainplan flags can tell. */
static bool same_shape(const tp_model *a, const tp_model *b)
{
    return a->num_layers == b->num_layers && a->hidden == b->hidden &&
           a->num_heads == b->num_heads && kv_heads(a) == kv_heads(b) &&
           head_dim(a) == head_dim(b) && a->ffn_hidden == b->ffn_hidden && a->vocab == b->vocab &&
           a->mlp == b->mlp && a->norm == b->norm && a->tie_embeddings == b->tie_embeddings &&
           a->num_experts == b->num_experts &&
           (a->num_experts == 0 ||
            (a->topk == b->topk && expert_ffn(a) == expert_ffn(b) &&
             a->num_shared_experts == b->num_shared_experts)) &&
           a->linear_bias == b->linear_bias && a->pos == b->pos;
}

/* A value as one shell word: bare when it is made of safe characters. */
static void shell_word(sbuf *b, const char *s)
{
    bool bare = s[0] != '\0';
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("-_.,/:+@", *p)))
            bare = false;
    if (bare) {
        sb_puts(b, s);
        return;
    }
    sb_puts(b, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            sb_puts(b, "'\\''");
        else if (*p >= 0x20 && *p < 0x7f)
            sb_putn(b, p, 1);
        else
            sb_puts(b, "?");
    }
    sb_puts(b, "'");
}

/* "--model NAME [shape] --gpu NAME --gpus N [--gpus-per-node G]" */
static void model_gpu_flags(sbuf *b, const tp_config *c)
{
    const tp_train *t = &c->train;
    /* the model: its preset name, plus the shape when it is not exactly the preset */
    const tp_model *m = &c->model;
    tp_model pre;
    bool preset = m->name[0] && tp_io_preset_text(TP_IO_MODEL, m->name) != NULL &&
                  tp_io_model_load(m->name, &pre, NULL) == TP_OK;
    if (preset) {
        sb_puts(b, "--model ");
        shell_word(b, m->name);
    }
    if (!preset || !same_shape(m, &pre)) {
        sb_printf(b, "%s--layers %" PRId64 " --hidden %" PRId64 " --heads %" PRId64
                     " --kv-heads %" PRId64 " --head-dim %" PRId64 " --ffn-hidden %" PRId64
                     " --vocab %" PRId64 " --mlp %s --norm %s %s --experts %" PRId64,
                  preset ? " " : "", m->num_layers, m->hidden, m->num_heads, kv_heads(m),
                  head_dim(m), m->ffn_hidden, m->vocab, m->mlp == TP_MLP_SWIGLU ? "swiglu" : "gelu",
                  m->norm == TP_NORM_RMSNORM ? "rmsnorm" : "layernorm",
                  m->tie_embeddings ? "--tie-embeddings" : "--no-tie-embeddings", m->num_experts);
        if (m->num_experts > 0)
            sb_printf(b, " --topk %" PRId64 " --moe-ffn-hidden %" PRId64 " --shared-experts %" PRId64,
                      m->topk, expert_ffn(m), m->num_shared_experts);
    }
    sb_puts(b, " --gpu ");
    shell_word(b, c->gpu.name[0] ? c->gpu.name : "unnamed");
    sb_printf(b, " --gpus %" PRId64, t->num_gpus);
    if (t->gpus_per_node > 0)
        sb_printf(b, " --gpus-per-node %" PRId64, t->gpus_per_node);
}

char *tp_io_config_flags(const tp_config *c)
{
    const tp_train *t = &c->train;
    sbuf b = {0};
    model_gpu_flags(&b, c);
    sb_printf(&b, " --tp %" PRId64 " --pp %" PRId64 " --cp %" PRId64 " --ep %" PRId64, t->tp,
              t->pp, t->cp, t->ep);
    if (t->vpp > 1)
        sb_printf(&b, " --vpp %" PRId64, t->vpp);
    sb_puts(&b, t->sp ? " --sp" : " --no-sp");
    sb_printf(&b, " --schedule %s", tp_io_schedule_name(t->schedule));
    if (t->first_stage_layers > 0)
        sb_printf(&b, " --first-stage-layers %" PRId64, t->first_stage_layers);
    if (t->last_stage_layers > 0)
        sb_printf(&b, " --last-stage-layers %" PRId64, t->last_stage_layers);
    sb_printf(&b, " --zero %d --recompute %s", t->zero, tp_io_recompute_name(t->recompute));
    if (t->recompute == TP_RECOMPUTE_FULL)
        sb_printf(&b, " --recompute-every %" PRId64, t->recompute_every);
    sb_printf(&b, " --seq-len %" PRId64 " --micro-batch %" PRId64 " --global-batch %" PRId64,
              t->seq_len, t->micro_batch, t->global_batch);
    sb_printf(&b, " --precision %s --grad-dtype %s --optimizer %s",
              tp_io_precision_name(t->precision), tp_io_dtype_name(t->grad_dtype),
              tp_io_optimizer_name(&t->optimizer));
    if (!t->optimizer.master_weights)
        sb_puts(&b, " --no-master-weights");
    if (!t->flash_attn)
        sb_puts(&b, " --no-flash-attn");
    if (t->dropout)
        sb_puts(&b, " --dropout");
    if (t->fused_ce)
        sb_puts(&b, " --fused-ce");
    if (t->pad_vocab_to > 1)
        sb_printf(&b, " --pad-vocab %" PRId64, t->pad_vocab_to);
    tp_options d;
    tp_options_default(&d);
    const tp_options *op = &c->opts;
    if (op->attn_flops != d.attn_flops)
        sb_printf(&b, " --attn-flops %s", op->attn_flops == TP_ATTN_FLOPS_FULL ? "full" : "causal");
    if (op->act_model != d.act_model)
        sb_printf(&b, " --act-model %s",
                  op->act_model == TP_ACT_KORTHIKANTI ? "korthikanti" : "detailed");
    if (op->ckpt_model != d.ckpt_model)
        sb_printf(&b, " --ckpt-model %s", op->ckpt_model == TP_CKPT_SEED001 ? "seed001" : "exact");
    if (op->coll_model != d.coll_model)
        sb_printf(&b, " --coll-model %s", op->coll_model == TP_COLL_SIMPLE ? "simple" : "ring");
    if (fabs(op->cuda_context_bytes - d.cuda_context_bytes) > 0.5)
        sb_printf(&b, " --cuda-context-gb %.9g", op->cuda_context_bytes / 1e9);
    if (fabs(op->comm_buffer_bytes - d.comm_buffer_bytes) > 0.5)
        sb_printf(&b, " --comm-buffer-gb %.9g", op->comm_buffer_bytes / 1e9);
    if (fabs(op->fragmentation - d.fragmentation) > 1e-12)
        sb_printf(&b, " --fragmentation %.9g", op->fragmentation);
    return sb_take(&b);
}

/* ------------------------------------------------------------------ */
/* Megatron-LM                                                          */
/* ------------------------------------------------------------------ */

/* The MoE layer pattern as a Megatron --moe-layer-freq value: an integer
 * when Megatron's `i % N == 0` rule gives the same layers, else a list. */
static void moe_pattern(sbuf *b, const tp_model *m)
{
    int64_t L = m->num_layers;
    int64_t freq = m->moe_layer_freq > 1 ? m->moe_layer_freq : 1;
    if (m->moe_first_dense == 0) {
        sb_printf(b, "%" PRId64, freq);
        return;
    }
    if (freq == 1) {
        sb_printf(b, "([0]*%" PRId64 "+[1]*%" PRId64 ")", m->moe_first_dense,
                  L - m->moe_first_dense);
        return;
    }
    sb_puts(b, "[");
    for (int64_t i = 0; i < L; i++)
        sb_printf(b, "%s%d", i ? "," : "", layer_is_moe(m, i) ? 1 : 0);
    sb_puts(b, "]");
}

typedef struct argw {
    sbuf body;
} argw;

static void arg_section(argw *w, const char *title)
{
    sb_printf(&w->body, "%s# %s\n", w->body.len ? "\n" : "", title);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void arg(argw *w, const char *flag, const char *fmt, ...)
{
    char v[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    sb_printf(&w->body, "%s %s\n", flag, v);
}

/* A switch: the flag alone on its line. */
static void sw(argw *w, const char *flag)
{
    sb_printf(&w->body, "%s\n", flag);
}

static void megatron_model(argw *w, const tp_config *c, notes *nx)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    arg_section(w, "model");
    arg(w, "--num-layers", "%" PRId64, m->num_layers);
    arg(w, "--hidden-size", "%" PRId64, m->hidden);
    arg(w, "--ffn-hidden-size", "%" PRId64, m->ffn_hidden);
    arg(w, "--num-attention-heads", "%" PRId64, m->num_heads);
    if (kv_heads(m) != m->num_heads) {
        sw(w, "--group-query-attention");
        arg(w, "--num-query-groups", "%" PRId64, kv_heads(m));
    }
    if (m->hidden % m->num_heads != 0 || head_dim(m) != m->hidden / m->num_heads)
        arg(w, "--kv-channels", "%" PRId64, head_dim(m));
    int64_t max_pos = t->seq_len;
    if (m->pos == TP_POS_LEARNED) {
        max_pos = m->max_positions > 0 ? m->max_positions : t->seq_len;
        if (max_pos < t->seq_len)
            note(nx,
                 "learned position table of %" PRId64 " positions is shorter than the sequence "
                 "(%" PRId64 " tokens); Megatron-LM requires --max-position-embeddings >= "
                 "--seq-length",
                 max_pos, t->seq_len);
        arg(w, "--position-embedding-type", "learned_absolute");
    } else if (m->pos == TP_POS_ALIBI) {
        note(nx, "ALiBi position bias: Megatron-LM has none; written as "
                 "--position-embedding-type none (same parameters and memory)");
        arg(w, "--position-embedding-type", "none");
    } else {
        arg(w, "--position-embedding-type", "rope");
    }
    arg(w, "--max-position-embeddings", "%" PRId64, max_pos);
    arg(w, "--normalization", "%s", m->norm == TP_NORM_RMSNORM ? "RMSNorm" : "LayerNorm");
    if (m->mlp == TP_MLP_SWIGLU)
        sw(w, "--swiglu");
    if (!m->tie_embeddings)
        sw(w, "--untie-embeddings-and-output-weights");
    if (!m->linear_bias) {
        sw(w, "--disable-bias-linear");
        if (m->qkv_bias)
            sw(w, "--add-qkv-bias");
    }
    /* Megatron pads V to a multiple of make_vocab_size_divisible_by x TP. */
    arg(w, "--vocab-size", "%" PRId64, m->vocab);
    int64_t pad = t->pad_vocab_to > 1 ? t->pad_vocab_to : 1;
    int64_t want = padded_vocab(m->vocab, pad);
    int64_t div = 1;
    if (pad % t->tp == 0)
        div = pad / t->tp;
    int64_t got = padded_vocab(m->vocab, div * t->tp);
    if (got != want)
        note(nx,
             "vocabulary padding: the plan uses %" PRId64 " rows (--pad-vocab %" PRId64
             "); Megatron-LM pads to a multiple of --make-vocab-size-divisible-by x TP and "
             "gets %" PRId64,
             want, pad, got);
    arg(w, "--make-vocab-size-divisible-by", "%" PRId64, div);
    if (m->num_experts > 0) {
        arg(w, "--num-experts", "%" PRId64, m->num_experts);
        arg(w, "--moe-router-topk", "%" PRId64, m->topk);
        arg(w, "--moe-ffn-hidden-size", "%" PRId64, expert_ffn(m));
        if (shared_width(m) > 0)
            arg(w, "--moe-shared-expert-intermediate-size", "%" PRId64, shared_width(m));
        if (m->moe_first_dense > 0 || m->moe_layer_freq > 1) {
            sbuf p = {0};
            moe_pattern(&p, m);
            arg(w, "--moe-layer-freq", "%s", p.s ? p.s : "1");
            sb_free(&p);
        }
    }
    arg(w, "--attention-dropout", "%s", t->dropout ? "0.1" : "0.0");
    arg(w, "--hidden-dropout", "%s", t->dropout ? "0.1" : "0.0");
    arg(w, "--attention-backend", "%s", t->flash_attn ? "flash" : "unfused");
}

static void megatron_layout(argw *w, const tp_config *c, notes *nx)
{
    const tp_train *t = &c->train;
    const tp_model *m = &c->model;
    arg_section(w, "parallel layout");
    arg(w, "--tensor-model-parallel-size", "%" PRId64, t->tp);
    arg(w, "--pipeline-model-parallel-size", "%" PRId64, t->pp);
    arg(w, "--context-parallel-size", "%" PRId64, t->cp);
    if (m->num_experts > 0 || t->ep > 1)
        arg(w, "--expert-model-parallel-size", "%" PRId64, t->ep);
    if (t->sp)
        sw(w, "--sequence-parallel");

    /* Uneven split: Megatron sets the first and last stage; the middle
     * stages must then be even, which trainplan's split may not be. */
    bool uneven = false;
    if (t->pp > 1) {
        int64_t first = tp_stage_layers(t, m->num_layers, 0);
        int64_t last = tp_stage_layers(t, m->num_layers, t->pp - 1);
        int64_t mid = t->pp > 2 ? tp_stage_layers(t, m->num_layers, 1) : first;
        bool even = true, middle_even = true;
        for (int64_t s = 0; s < t->pp; s++) {
            int64_t n = tp_stage_layers(t, m->num_layers, s);
            if (n != first)
                even = false;
            if (s > 0 && s < t->pp - 1 && n != mid)
                middle_even = false;
        }
        if (!even) {
            uneven = true;
            if (!middle_even)
                note(nx,
                     "pipeline split: the middle stages hold different numbers of layers; "
                     "Megatron-LM splits the middle stages evenly (first and last stage "
                     "written below)");
            arg(w, "--decoder-first-pipeline-num-layers", "%" PRId64, first);
            arg(w, "--decoder-last-pipeline-num-layers", "%" PRId64, last);
        }
    }
    if (t->vpp > 1) {
        int64_t per = m->num_layers / (t->pp * t->vpp);
        if (!uneven && per * t->pp * t->vpp == m->num_layers)
            arg(w, "--num-layers-per-virtual-pipeline-stage", "%" PRId64, per);
        else
            arg(w, "--num-virtual-stages-per-pipeline-rank", "%" PRId64, t->vpp);
    }
    if (t->schedule == TP_SCHED_GPIPE && t->pp > 1)
        note(nx, "GPipe schedule: Megatron-LM runs 1F1B (interleaved with virtual stages); "
                 "the bubble is the same, the in-flight activations differ");
    if (t->schedule == TP_SCHED_INTERLEAVED && t->vpp <= 1 && t->pp > 1)
        note(nx, "interleaved schedule with one virtual stage: Megatron-LM runs it as 1F1B");
    if (t->schedule == TP_SCHED_1F1B && t->vpp > 1)
        note(nx, "1F1B schedule with virtual stages: Megatron-LM interleaves whenever there "
                 "are virtual stages");

    switch (t->zero) {
    case 0: break;
    case 1: sw(w, "--use-distributed-optimizer"); break;
    default:
        sw(w, "--use-megatron-fsdp");
        arg(w, "--data-parallel-sharding-strategy", "%s",
            t->zero == 2 ? "optim_grads" : "optim_grads_params");
        arg(w, "--ckpt-format", "fsdp_dtensor");
        break;
    }
}

static void megatron_training(argw *w, const tp_config *c, const tp_export_opts *o, notes *nx)
{
    const tp_train *t = &c->train;
    arg_section(w, "batch");
    arg(w, "--seq-length", "%" PRId64, t->seq_len);
    arg(w, "--micro-batch-size", "%" PRId64, t->micro_batch);
    arg(w, "--global-batch-size", "%" PRId64, t->global_batch);
    int64_t steps = train_steps(c, o);
    if (steps > 0)
        arg(w, "--train-iters", "%" PRId64, steps);

    arg_section(w, "activation recomputation");
    if (t->recompute == TP_RECOMPUTE_SELECTIVE) {
        arg(w, "--recompute-granularity", "selective");
    } else if (t->recompute == TP_RECOMPUTE_FULL) {
        arg(w, "--recompute-granularity", "full");
        arg(w, "--recompute-method", "uniform");
        arg(w, "--recompute-num-layers", "%" PRId64, t->recompute_every);
    }

    arg_section(w, "precision and optimizer");
    switch (t->precision) {
    case TP_PREC_FP16: sw(w, "--fp16"); break;
    case TP_PREC_FP8:
        sw(w, "--bf16");
        arg(w, "--fp8-format", "hybrid");
        break;
    case TP_PREC_TF32:
        note(nx, "tf32 training: Megatron-LM trains in fp32 without --bf16/--fp16; trainplan "
                 "cannot read such a launch back");
        break;
    default: sw(w, "--bf16"); break;
    }
    if (t->grad_dtype == TP_DTYPE_FP32)
        sw(w, "--accumulate-allreduce-grads-in-fp32");
    else if (t->precision != TP_PREC_FP16)
        sw(w, "--grad-reduce-in-bf16");

    const tp_optimizer *op = &t->optimizer;
    if (op->kind == TP_OPT_ADAMW) {
        arg(w, "--optimizer", "adam");
        if (op->moment_dtype != TP_DTYPE_FP32) {
            const char *d = op->moment_dtype == TP_DTYPE_INT8 ? "fp8" : "bf16";
            if (op->moment_dtype == TP_DTYPE_INT8)
                note(nx, "8-bit optimizer moments: Megatron-LM's nearest is fp8 moments with "
                         "the precision-aware optimizer (same bytes, different format)");
            sw(w, "--use-precision-aware-optimizer");
            arg(w, "--exp-avg-dtype", "%s", d);
            arg(w, "--exp-avg-sq-dtype", "%s", d);
        }
    } else {
        arg(w, "--optimizer", "sgd");
        arg(w, "--sgd-momentum", "%s", op->kind == TP_OPT_SGD_MOMENTUM ? "0.9" : "0.0");
        if (op->kind == TP_OPT_SGD_MOMENTUM && op->moment_dtype != TP_DTYPE_FP32)
            note(nx, "low-precision SGD momentum: Megatron-LM keeps it in fp32");
    }
    if (!op->master_weights)
        note(nx, "no fp32 master weights: Megatron-LM always keeps fp32 main parameters with "
                 "--bf16/--fp16");
    if (t->fused_ce)
        note(nx, "fused cross-entropy without a logits tensor: Megatron-LM's "
                 "--cross-entropy-loss-fusion fuses the loss but still stores the logits");
}

static tp_status export_megatron(const tp_config *c, const tp_result *r, const tp_export_opts *o,
                                 tp_export *out, tp_error *err)
{
    argw w = {0};
    notes nx = {0};
    megatron_model(&w, c, &nx);
    megatron_layout(&w, c, &nx);
    megatron_training(&w, c, o, &nx);

    sbuf doc = {0};
    header(&doc, "# ", "Megatron-LM pretrain_gpt.py arguments", c, r, o, &nx, "Megatron-LM",
           "the arguments below");
    int64_t gpn = gpus_per_node(c);
    int64_t nodes = (c->train.num_gpus + gpn - 1) / gpn;
    sb_puts(&doc, "#\n");
    sb_puts(&doc, "# Launch:\n");
    sb_printf(&doc,
              "#   torchrun --nnodes %" PRId64 " --nproc-per-node %" PRId64
              " pretrain_gpt.py $(grep -v '^#' THIS_FILE) \\\n"
              "#     plus the data, tokenizer, learning-rate and checkpoint arguments of the run\n",
              nodes, c->train.num_gpus < gpn ? c->train.num_gpus : gpn);
    wrap(&doc, "# ", "", 0,
         "(--vocab-size is the model's vocabulary; with a real tokenizer Megatron-LM takes it "
         "from --tokenizer-model.)");
    sb_puts(&doc, "\n");
    sb_puts(&doc, w.body.s ? w.body.s : "");
    if (w.body.failed)
        doc.failed = true;
    sb_free(&w.body);
    out->num_unexpressed = nx.count;
    bool failed = nx.text.failed;
    sb_free(&nx.text);
    out->text = sb_take(&doc);
    if (!out->text || failed) {
        tp_io_export_free(out);
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory writing the export");
    }
    return TP_OK;
}

/* ------------------------------------------------------------------ */
/* torchtitan                                                           */
/* ------------------------------------------------------------------ */

/* torchtitan's built-in llama3 flavors (torchtitan/models/llama3/__init__.py),
 * recognised by shape, not by name; vocabulary from the llama3 tokenizer. */
typedef struct titan_flavor {
    const char *name;
    int64_t layers, hidden, heads, kv_heads, ffn;
} titan_flavor;

static const titan_flavor titan_flavors[] = {
    {"8B", 32, 4096, 32, 8, 14336},
    {"70B", 80, 8192, 64, 8, 28672},
    {"405B", 126, 16384, 128, 8, 53248},
};

static const titan_flavor *titan_match(const tp_model *m)
{
    if (m->mlp != TP_MLP_SWIGLU || m->norm != TP_NORM_RMSNORM || m->pos != TP_POS_ROTARY ||
        m->tie_embeddings || m->linear_bias || m->qkv_bias || m->num_experts > 0 ||
        m->vocab != 128256 || head_dim(m) * m->num_heads != m->hidden)
        return NULL;
    for (size_t i = 0; i < sizeof titan_flavors / sizeof titan_flavors[0]; i++) {
        const titan_flavor *f = &titan_flavors[i];
        if (m->num_layers == f->layers && m->hidden == f->hidden && m->num_heads == f->heads &&
            kv_heads(m) == f->kv_heads && m->ffn_hidden == f->ffn)
            return f;
    }
    return NULL;
}

static void toml_string(sbuf *b, const char *s)
{
    sb_puts(b, "\"");
    for (const char *p = s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_printf(b, "\\%c", *p);
        else if ((unsigned char)*p < 0x20 || *p == 0x7f)
            sb_printf(b, "\\u%04x", (unsigned)(unsigned char)*p);
        else
            sb_putn(b, p, 1);
    }
    sb_puts(b, "\"");
}

/* module_fqns_per_model_part: the layers of each pipeline stage by name. */
static void titan_stage_fqns(sbuf *b, const tp_config *c)
{
    const tp_train *t = &c->train;
    int64_t L = c->model.num_layers, next = 0;
    sb_puts(b, "module_fqns_per_model_part = [\n");
    for (int64_t s = 0; s < t->pp; s++) {
        int64_t n = tp_stage_layers(t, L, s);
        sb_puts(b, "  [");
        bool first = true;
        if (s == 0) {
            sb_puts(b, "\"tok_embeddings\"");
            first = false;
        }
        for (int64_t i = 0; i < n; i++, next++) {
            sb_printf(b, "%s\"layers.%" PRId64 "\"", first ? "" : ", ", next);
            first = false;
        }
        if (s == t->pp - 1)
            sb_printf(b, "%s\"norm\", \"output\"", first ? "" : ", ");
        sb_printf(b, "]%s\n", s + 1 < t->pp ? "," : "");
    }
    sb_puts(b, "]\n");
}

static tp_status export_torchtitan(const tp_config *c, const tp_result *r,
                                   const tp_export_opts *o, tp_export *out, tp_error *err)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    notes nx = {0};
    sbuf b = {0};
    char mname[TP_NAME_MAX];
    safe_name(m->name, mname, sizeof mname);

    /* [job] */
    sb_puts(&b, "[job]\ndescription = ");
    sbuf d = {0};
    sb_puts(&d, "trainplan: ");
    plan_summary(&d, c, r);
    toml_string(&b, d.s ? d.s : "");
    sb_free(&d);
    sb_puts(&b, "\n\n");

    /* [model] */
    const titan_flavor *fl = titan_match(m);
    sb_puts(&b, "[model]\nname = \"llama3\"\nflavor = ");
    toml_string(&b, fl ? fl->name : mname);
    sb_puts(&b, "\n");
    if (!fl)
        note(&nx,
             "model: torchtitan has no built-in flavor with this shape; add flavor \"%s\" to "
             "torchtitan/models/llama3 (layers %" PRId64 ", dim %" PRId64 ", heads %" PRId64
             ", kv heads %" PRId64 ", ffn %" PRId64 ", vocab %" PRId64 ")%s",
             mname, m->num_layers, m->hidden, m->num_heads, kv_heads(m), m->ffn_hidden, m->vocab,
             (m->mlp != TP_MLP_SWIGLU || m->norm != TP_NORM_RMSNORM || m->linear_bias ||
              m->num_experts > 0 || m->tie_embeddings || m->pos != TP_POS_ROTARY)
                 ? "; its llama3 code has SwiGLU, RMSNorm, rotary positions, untied "
                   "embeddings and no biases or experts, unlike this model"
                 : "");
    if (t->precision == TP_PREC_FP8)
        sb_puts(&b, "converters = [\"float8\"]\n");
    sb_puts(&b, "\n");

    /* [optimizer] */
    sb_puts(&b, "[optimizer]\nname = \"AdamW\"\n\n");
    if (t->optimizer.kind != TP_OPT_ADAMW)
        note(&nx, "optimizer %s: torchtitan builds Adam or AdamW only (written as AdamW)",
             tp_io_optimizer_name(&t->optimizer));
    else if (t->optimizer.moment_dtype != TP_DTYPE_FP32)
        note(&nx, "optimizer moments in %s: torchtitan keeps AdamW moments in float32",
             tp_io_dtype_name(t->optimizer.moment_dtype));
    if (!t->optimizer.master_weights)
        note(&nx, "no fp32 master weights: torchtitan keeps float32 parameters "
                  "(mixed_precision_param casts them for compute)");

    /* [training] */
    int64_t dp = r->dp;
    int64_t local = t->pp > 1 ? t->global_batch / (dp > 0 ? dp : 1) : t->micro_batch;
    sb_printf(&b, "[training]\nlocal_batch_size = %" PRId64 "\nglobal_batch_size = %" PRId64
                  "\nseq_len = %" PRId64 "\n",
              local, t->global_batch, t->seq_len);
    int64_t steps = train_steps(c, o);
    if (steps > 0)
        sb_printf(&b, "steps = %" PRId64 "\n", steps);
    sb_puts(&b, "mixed_precision_param = \"bfloat16\"\nmixed_precision_reduce = \"float32\"\n\n");
    if (t->precision == TP_PREC_FP16)
        note(&nx, "fp16 training: torchtitan's mixed precision is bfloat16 or float32 (written as "
                  "bfloat16)");
    if (t->precision == TP_PREC_TF32)
        note(&nx, "tf32 training: written as bfloat16 mixed precision");
    if (t->grad_dtype != TP_DTYPE_FP32)
        note(&nx, "bf16 gradients: torchtitan reduces and keeps gradients in float32 "
                  "(mixed_precision_reduce); estimate with --grad-dtype fp32 to match it");

    /* [parallelism] */
    int64_t replicate = dp, shard = 1;
    const char *reshard = NULL;
    switch (t->zero) {
    case 0: break;
    case 1:
        replicate = 1;
        shard = dp;
        if (dp > 1)
            note(&nx, "ZeRO-1 (sharded optimizer only): torchtitan shards with FSDP, which also "
                      "shards gradients and weights (written as data_parallel_shard_degree)");
        break;
    case 2:
        replicate = 1;
        shard = dp;
        reshard = "never";
        break;
    default:
        replicate = 1;
        shard = dp;
        break;
    }
    sb_printf(&b, "[parallelism]\ndata_parallel_replicate_degree = %" PRId64
                  "\ndata_parallel_shard_degree = %" PRId64 "\n",
              replicate, shard);
    if (reshard)
        sb_printf(&b, "fsdp_reshard_after_forward = \"%s\"\n", reshard);
    sb_printf(&b, "tensor_parallel_degree = %" PRId64 "\n", t->tp);
    if (t->tp > 1 && !t->sp)
        note(&nx, "tensor parallelism without sequence parallelism: torchtitan always shards "
                  "the sequence across the TP group");
    sb_printf(&b, "pipeline_parallel_degree = %" PRId64 "\n", t->pp);
    if (t->pp > 1) {
        const char *sched = "1F1B";
        if (t->schedule == TP_SCHED_GPIPE)
            sched = "GPipe";
        else if (t->vpp > 1)
            sched = "Interleaved1F1B";
        if (t->schedule == TP_SCHED_1F1B && t->vpp > 1)
            note(&nx, "1F1B with virtual stages: written as Interleaved1F1B");
        if (t->schedule == TP_SCHED_GPIPE && t->vpp > 1)
            note(&nx, "GPipe with virtual stages: torchtitan's GPipe runs one stage per rank");
        sb_printf(&b, "pipeline_parallel_schedule = \"%s\"\n", sched);
        sb_printf(&b, "pipeline_parallel_microbatch_size = %" PRId64 "\n", t->micro_batch);
        if (t->vpp > 1) {
            int64_t per = m->num_layers / (t->pp * t->vpp);
            bool even = t->first_stage_layers == 0 && t->last_stage_layers == 0 &&
                        per * t->pp * t->vpp == m->num_layers;
            if (!even)
                note(&nx, "virtual stages with an uneven split: torchtitan's "
                          "pipeline_parallel_layers_per_stage splits evenly (written as %" PRId64
                          " layers per stage)",
                     per > 0 ? per : 1);
            sb_printf(&b, "pipeline_parallel_layers_per_stage = %" PRId64 "\n", per > 0 ? per : 1);
        } else {
            titan_stage_fqns(&b, c);
        }
    }
    sb_printf(&b, "context_parallel_degree = %" PRId64 "\n", t->cp);
    sb_printf(&b, "expert_parallel_degree = %" PRId64 "\n\n", t->ep);
    if (t->ep > 1 && (t->ep < t->cp || t->ep > shard * t->cp))
        note(&nx,
             "EP %" PRId64 ": torchtitan borrows expert parallelism from the FSDP and CP "
             "degrees and needs CP <= EP <= data_parallel_shard_degree x CP (%" PRId64 ")",
             t->ep, shard * t->cp);

    /* [activation_checkpoint] */
    sb_puts(&b, "[activation_checkpoint]\n");
    switch (t->recompute) {
    case TP_RECOMPUTE_NONE: sb_puts(&b, "mode = \"none\"\n"); break;
    case TP_RECOMPUTE_SELECTIVE:
        sb_puts(&b, "mode = \"selective\"\nselective_ac_option = \"op\"\n");
        note(&nx, "selective recompute: torchtitan's op-level selective checkpointing saves "
                  "matmul outputs and recomputes the rest, not only the attention core");
        break;
    case TP_RECOMPUTE_FULL:
        sb_puts(&b, "mode = \"full\"\n");
        if (t->recompute_every > 1)
            note(&nx,
                 "full recompute in groups of %" PRId64 " layers: torchtitan checkpoints every "
                 "layer separately",
                 t->recompute_every);
        break;
    }
    if (t->fused_ce)
        sb_puts(&b, "\n[liger_kernel]\nenable_fused_linear_cross_entropy = true\n");

    if (!t->flash_attn)
        note(&nx, "attention without FlashAttention: torchtitan always uses fused SDPA "
                  "attention");
    if (t->dropout)
        note(&nx, "dropout: torchtitan's llama3 has no dropout layers");
    if (t->pad_vocab_to > 1 && padded_vocab(m->vocab, t->pad_vocab_to) != m->vocab)
        note(&nx, "vocabulary padding to %" PRId64 ": torchtitan sizes the embedding from the "
                  "tokenizer",
             padded_vocab(m->vocab, t->pad_vocab_to));

    sbuf doc = {0};
    header(&doc, "# ", "torchtitan job config", c, r, o, &nx, "torchtitan", "the config below");
    if (steps == 0)
        wrap(&doc, "# ", "", 0,
             "[training] steps is not set: the plan has no token budget (torchtitan's default "
             "applies; pass --train-tokens to trainplan export).");
    wrap(&doc, "# ", "", 0,
         "Add the dataset, tokenizer, learning rate and checkpoint settings of the run.");
    sb_puts(&doc, "\n");
    sb_puts(&doc, b.s ? b.s : "");
    if (b.failed)
        doc.failed = true;
    sb_free(&b);
    out->num_unexpressed = nx.count;
    bool failed = nx.text.failed;
    sb_free(&nx.text);
    out->text = sb_take(&doc);
    if (!out->text || failed) {
        tp_io_export_free(out);
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory writing the export");
    }
    return TP_OK;
}

/* ------------------------------------------------------------------ */
/* DeepSpeed                                                            */
/* ------------------------------------------------------------------ */

/* json_object_set_new with a sticky failure flag. */
static void jset(bool *ok, json_t *o, const char *key, json_t *v)
{
    if (!o || !v || json_object_set_new(o, key, v) != 0)
        *ok = false;
}

/* The trainplan flags of what ds_config.json cannot hold. */
static void ds_outside_flags(sbuf *b, const tp_config *c)
{
    const tp_train *t = &c->train;
    model_gpu_flags(b, c);
    sb_printf(b, " --tp %" PRId64 " --pp %" PRId64 " --cp %" PRId64 " --ep %" PRId64, t->tp, t->pp,
              t->cp, t->ep);
    if (t->vpp > 1)
        sb_printf(b, " --vpp %" PRId64, t->vpp);
    sb_puts(b, t->sp ? " --sp" : " --no-sp");
    sb_printf(b, " --schedule %s", tp_io_schedule_name(t->schedule));
    if (t->first_stage_layers > 0)
        sb_printf(b, " --first-stage-layers %" PRId64, t->first_stage_layers);
    if (t->last_stage_layers > 0)
        sb_printf(b, " --last-stage-layers %" PRId64, t->last_stage_layers);
    sb_printf(b, " --seq-len %" PRId64 " --recompute %s", t->seq_len,
              tp_io_recompute_name(t->recompute));
    if (t->recompute == TP_RECOMPUTE_FULL)
        sb_printf(b, " --recompute-every %" PRId64, t->recompute_every);
    if (t->precision == TP_PREC_FP8)
        sb_puts(b, " --precision fp8");
    if (!t->optimizer.master_weights)
        sb_puts(b, " --no-master-weights");
    if (!t->flash_attn)
        sb_puts(b, " --no-flash-attn");
    if (t->dropout)
        sb_puts(b, " --dropout");
    if (t->fused_ce)
        sb_puts(b, " --fused-ce");
    if (t->pad_vocab_to > 1)
        sb_printf(b, " --pad-vocab %" PRId64, t->pad_vocab_to);
}

static tp_status export_deepspeed(const tp_config *c, const tp_result *r,
                                  const tp_export_opts *o, tp_export *out, tp_error *err)
{
    const tp_train *t = &c->train;
    notes nx = {0};
    notes outside = {0};
    bool ok = true;
    json_t *j = json_object();
    if (!j)
        ok = false;
    jset(&ok, j, "train_batch_size", json_integer((json_int_t)t->global_batch));
    jset(&ok, j, "train_micro_batch_size_per_gpu", json_integer((json_int_t)t->micro_batch));
    jset(&ok, j, "gradient_accumulation_steps", json_integer((json_int_t)r->grad_accum));

    json_t *half = json_object();
    jset(&ok, half, "enabled", json_true());
    jset(&ok, j, t->precision == TP_PREC_FP16 ? "fp16" : "bf16", half);
    if (t->precision == TP_PREC_TF32)
        note(&nx, "tf32 training: DeepSpeed trains in fp32 without bf16/fp16 (written as bf16)");
    if (t->precision == TP_PREC_FP8)
        note(&outside, "fp8 GEMMs: not a DeepSpeed setting; use Transformer Engine layers in "
                       "the model code (bf16 is enabled below)");

    json_t *dt = json_object();
    jset(&ok, dt, "grad_accum_dtype",
         json_string(t->grad_dtype == TP_DTYPE_FP32
                         ? "fp32"
                         : (t->precision == TP_PREC_FP16 ? "fp16" : "bf16")));
    jset(&ok, j, "data_types", dt);

    json_t *zo = json_object();
    jset(&ok, zo, "stage", json_integer(t->zero));
    jset(&ok, j, "zero_optimization", zo);
    if (t->zero >= 2 && t->pp > 1)
        note(&nx, "ZeRO-%d with pipeline parallelism: DeepSpeed's pipeline engine supports "
                  "ZeRO-1 only",
             t->zero);

    const tp_optimizer *op = &t->optimizer;
    if (op->kind == TP_OPT_ADAMW) {
        json_t *opt = json_object();
        jset(&ok, opt, "type", json_string("AdamW"));
        jset(&ok, j, "optimizer", opt);
        if (op->moment_dtype != TP_DTYPE_FP32)
            note(&nx, "optimizer moments in %s: DeepSpeed's AdamW keeps fp32 moments",
                 tp_io_dtype_name(op->moment_dtype));
    } else {
        note(&nx, "optimizer %s: ds_config has no SGD type; pass torch.optim.SGD to "
                  "deepspeed.initialize (no \"optimizer\" section written)",
             tp_io_optimizer_name(op));
    }
    if (!op->master_weights)
        note(&nx, "no fp32 master weights: DeepSpeed keeps fp32 master weights with bf16/fp16");

    if (t->recompute == TP_RECOMPUTE_FULL) {
        json_t *ac = json_object();
        jset(&ok, ac, "partition_activations", json_false());
        jset(&ok, ac, "cpu_checkpointing", json_false());
        jset(&ok, j, "activation_checkpointing", ac);
        note(&outside,
             "full recompute: the model code checkpoints every %" PRId64
             " layer(s) (deepspeed.checkpointing.checkpoint or the model's gradient "
             "checkpointing); the config's activation_checkpointing section only configures it",
             t->recompute_every);
    } else if (t->recompute == TP_RECOMPUTE_SELECTIVE) {
        note(&nx, "selective recompute: DeepSpeed's config cannot select the attention core; "
                  "the model code must checkpoint it (Megatron-DeepSpeed: "
                  "--recompute-granularity selective)");
    }

    /* What a DeepSpeed run sets outside ds_config.json (Megatron-DeepSpeed
     * arguments, PipelineModule, the model code). */
    note(&outside,
         "parallel sizes: tensor %" PRId64 ", pipeline %" PRId64 " (%s%s), context %" PRId64
         ", expert %" PRId64 ", sequence parallel %s: set in the launcher or model code "
         "(Megatron-DeepSpeed --tensor-model-parallel-size, --pipeline-model-parallel-size, "
         "deepspeed.pipe.PipelineModule(num_stages=...))",
         t->tp, t->pp, tp_io_schedule_name(t->schedule),
         t->vpp > 1 ? ", virtual stages" : "", t->cp, t->ep, t->sp ? "on" : "off");
    if (!t->flash_attn || t->dropout || t->fused_ce)
        note(&outside, "model code: %s%s%s", t->flash_attn ? "" : "attention without "
                                                                 "FlashAttention; ",
             t->dropout ? "dropout masks stored; " : "",
             t->fused_ce ? "fused cross-entropy without a logits tensor; " : "");

    char *json = NULL;
    if (ok)
        json = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);

    sbuf doc = {0}, nb = {0};
    if (json) {
        sb_puts(&doc, json);
        sb_puts(&doc, "\n");
    } else {
        doc.failed = true;
    }
    free(json);
    header(&nb, "# ", "DeepSpeed config notes (the comment file of ds_config.json)", c, r, o,
           &nx, "DeepSpeed", "ds_config.json and the settings below");
    sb_puts(&nb, "#\n");
    wrap(&nb, "# ", "Set outside ds_config.json:", 0, "");
    put_items(&nb, "# ", &outside);
    sbuf fl = {0};
    ds_outside_flags(&fl, c);
    wrap(&nb, "# ", "", 0,
         "The model, the GPUs and these settings as trainplan flags (trainplan estimate "
         "--from-deepspeed ds_config.json FLAGS gives this plan back):");
    wrap(&nb, "#   ", "", 0, fl.s ? fl.s : "");
    if (fl.failed)
        nb.failed = true;
    sb_free(&fl);
    int64_t steps = train_steps(c, o);
    if (steps > 0)
        wrap(&nb, "# ", "", 0,
             "Run length: DeepSpeed has no step count in its config; run the training loop "
             "for the number of steps above.");

    out->num_unexpressed = nx.count;
    bool failed = nx.text.failed || outside.text.failed;
    sb_free(&nx.text);
    sb_free(&outside.text);
    out->text = sb_take(&doc);
    out->notes = sb_take(&nb);
    if (!out->text || !out->notes || failed) {
        tp_io_export_free(out);
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory writing the export");
    }
    return TP_OK;
}

tp_status tp_io_export(tp_export_format f, const tp_config *c, const tp_result *r,
                       const tp_export_opts *opts, tp_export *out, tp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!c || !r)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "tp_io_export: no configuration");
    switch (f) {
    case TP_EXPORT_MEGATRON: return export_megatron(c, r, opts, out, err);
    case TP_EXPORT_TORCHTITAN: return export_torchtitan(c, r, opts, out, err);
    case TP_EXPORT_DEEPSPEED: return export_deepspeed(c, r, opts, out, err);
    case TP_EXPORT_COUNT: break;
    }
    return tp_error_set(err, TP_ERR_INVALID_ARG, "format", "export format %d is out of range",
                        (int)f);
}

/* ------------------------------------------------------------------ */
/* Markdown and CSV                                                     */
/* ------------------------------------------------------------------ */

/* Markdown text: untrusted, so defused (tp_io_safe_text: no line break or
 * escape sequence is left), then the characters that would break a table
 * cell or start emphasis are escaped. */
static void md_text(FILE *f, const char *s)
{
    size_t len = strlen(s);
    char small[TP_IO_SAFE_BYTES(64)];
    char *safe = len <= 64 ? small : malloc(TP_IO_SAFE_BYTES(len));
    if (!safe) {
        fputs("?", f); /* out of memory: never the raw text */
        return;
    }
    tp_io_safe_text(s, safe, len <= 64 ? sizeof small : TP_IO_SAFE_BYTES(len));
    for (const char *p = safe; *p; p++) {
        if (*p == '|' || *p == '\\' || *p == '*' || *p == '_' || *p == '`')
            fputc('\\', f);
        fputc(*p, f);
    }
    if (safe != small)
        free(safe);
}

/* "| Label | v / unit | share of total |", the label capitalised. */
static void md_row(FILE *f, const char *label, double v, double unit, int decimals, double total)
{
    fprintf(f, "| %c%s | %.*f | %.1f%% |\n", toupper((unsigned char)label[0]), label + 1,
            decimals, v / unit, total > 0.0 ? 100.0 * v / total : 0.0);
}

void tp_io_result_markdown(FILE *f, const tp_config *c, const tp_result *r)
{
    const tp_train *t = &c->train;
    const tp_memory *m = &r->memory;
    fputs("## trainplan estimate: ", f);
    md_text(f, c->model.name[0] ? c->model.name : "(unnamed)");
    fprintf(f, " on %" PRId64 " x ", t->num_gpus);
    md_text(f, c->gpu.name[0] ? c->gpu.name : "(custom)");
    fputs("\n\n| Setting | Value |\n|---|---|\n", f);
    fprintf(f, "| Parameters | %.3f B total, %.3f B active |\n", (double)r->params.total / 1e9,
            (double)r->params.active / 1e9);
    fprintf(f,
            "| Layout | TP %" PRId64 " x PP %" PRId64 " x CP %" PRId64 " x DP %" PRId64
            ", EP %" PRId64 ", VPP %" PRId64 ", sequence parallel %s |\n",
            t->tp, t->pp, t->cp, r->dp, t->ep, t->vpp, t->sp ? "on" : "off");
    fprintf(f, "| Memory savers | ZeRO %d, recompute %s, schedule %s |\n", t->zero,
            tp_io_recompute_name(t->recompute), tp_io_schedule_name(t->schedule));
    fprintf(f,
            "| Batch | sequence %" PRId64 " tokens, micro-batch %" PRId64 ", global batch %" PRId64
            " (%" PRId64 " micro-batches per step) |\n",
            t->seq_len, t->micro_batch, t->global_batch, r->grad_accum);
    fprintf(f, "| Precision | %s GEMMs, %s gradients, optimizer %s |\n",
            tp_io_precision_name(t->precision), tp_io_dtype_name(t->grad_dtype),
            tp_io_optimizer_name(&t->optimizer));
    char *flags = tp_io_config_flags(c);
    if (flags) {
        fputs("| Flags | `trainplan estimate ", f);
        for (const char *p = flags; *p; p++)
            fputc(*p == '`' || *p == '|' ? '?' : *p, f);
        fputs("` |\n", f);
        free(flags);
    }

    fprintf(f, "\n### Memory per GPU (heaviest stage: %" PRId64 ", %" PRId64 " layers)\n\n",
            m->stage, m->layers);
    fputs("| Component | GiB | Share |\n|---|---:|---:|\n", f);
    double tot = m->total_bytes;
    for (size_t k = 0; k < TP_IO_NUM_MEM_PARTS; k++)
        md_row(f, tp_io_mem_parts[k].label, tp_io_part_value(m, &tp_io_mem_parts[k]), GIB, 2, tot);
    fprintf(f, "| **Total** | **%.2f** | 100.0%% |\n", tot / GIB);
    fprintf(f, "| Capacity | %.2f | |\n\n", m->capacity_bytes / GIB);
    if (m->fits)
        fprintf(f, "**Fits**, %.2f GiB headroom (GiB = 2^30 bytes).\n", m->headroom_bytes / GIB);
    else {
        fputs("**Does not fit**: ", f);
        md_text(f, r->reason[0] ? r->reason : "over capacity");
        fputs(" (GiB = 2^30 bytes).\n", f);
    }

    const tp_time *tm = &r->time;
    fputs("\n### Step time\n\n", f);
    if (!tm->computed) {
        fputs("Not computed: this build of trainplan has no step-time model.\n", f);
        return;
    }
    fputs("| Part | Seconds | Share |\n|---|---:|---:|\n", f);
    double st = tm->step_s;
    for (size_t k = 0; k < TP_IO_NUM_TIME_PARTS; k++)
        md_row(f, tp_io_time_parts[k].label, tp_io_part_value(tm, &tp_io_time_parts[k]), 1.0, 4,
               st);
    fprintf(f, "| **Step** | **%.4f** | 100.0%% |\n\n", st);
    fprintf(f,
            "Throughput: %.0f tokens/s (%.1f per GPU), %.1f model TFLOP/s per GPU, MFU %.1f%%, "
            "HFU %.1f%%; pipeline bubble %.1f%% of the step.\n",
            tm->tokens_per_s, tm->tokens_per_s_per_gpu, tm->model_flops_per_s_per_gpu / 1e12,
            100.0 * tm->mfu, 100.0 * tm->hfu, 100.0 * tm->bubble_of_total);
}

/*
 * CSV field: untrusted text, so first made safe for a terminal
 * (tp_io_safe_text: control characters become "\\xNN", so no line break
 * is left), then quoted when it holds a comma or quote (RFC 4180). A field
 * that begins with =, +, - or @ would be a formula to a spreadsheet (CSV
 * injection; OWASP's advice): it is prefixed with ' and quoted.
 */
void tp_io_csv_text(FILE *f, const char *s)
{
    size_t len = strlen(s);
    char small[TP_IO_SAFE_BYTES(64)];
    char *safe = len <= 64 ? small : malloc(TP_IO_SAFE_BYTES(len));
    if (!safe) {
        fputs("?", f); /* out of memory: never the raw text */
        return;
    }
    tp_io_safe_text(s, safe, len <= 64 ? sizeof small : TP_IO_SAFE_BYTES(len));
    bool formula = safe[0] && strchr("=+-@", safe[0]) != NULL;
    if (!formula && strpbrk(safe, ",\"") == NULL) {
        fputs(safe, f);
    } else {
        fputc('"', f);
        if (formula)
            fputc('\'', f);
        for (const char *p = safe; *p; p++) {
            if (*p == '"')
                fputc('"', f);
            fputc(*p, f);
        }
        fputc('"', f);
    }
    if (safe != small)
        free(safe);
}

/* Column names carry their unit: *_bytes, *_s, tokens_per_s*, fractions
 * (mfu, hfu, bubble_of_total) in [0, 1]; counts are plain. The memory and
 * step-time parts are the one list's keys (util.c) with the unit added. */
static const char *const csv_head[] = {
    "model", "gpu", "num_gpus", "gpus_per_node", "tp", "pp", "cp", "ep", "dp", "vpp", "sp", "zero",
    "schedule", "recompute", "recompute_every", "seq_len", "micro_batch", "global_batch",
    "grad_accum", "precision", "grad_dtype", "optimizer", "params_total", "params_active", "fits",
    "peak_bytes", "capacity_bytes", "headroom_bytes"};
static const char *const csv_tail[] = {"tokens_per_s", "tokens_per_s_per_gpu", "mfu", "hfu",
                                       "bubble_of_total", "reason"};

void tp_io_csv_columns(FILE *f)
{
    for (size_t i = 0; i < sizeof csv_head / sizeof csv_head[0]; i++)
        fprintf(f, "%s%s", i ? "," : "", csv_head[i]);
    for (size_t i = 0; i < TP_IO_NUM_MEM_PARTS; i++)
        fprintf(f, ",%s_bytes", tp_io_mem_parts[i].key);
    fputs(",step_s", f);
    for (size_t i = 0; i < TP_IO_NUM_TIME_PARTS; i++)
        fprintf(f, ",%s_s", tp_io_time_parts[i].key);
    for (size_t i = 0; i < sizeof csv_tail / sizeof csv_tail[0]; i++)
        fprintf(f, ",%s", csv_tail[i]);
}

void tp_io_csv_header(FILE *f)
{
    tp_io_csv_columns(f);
    fputc('\n', f);
}

static void csv_bytes(FILE *f, double v)
{
    fprintf(f, ",%lld", isfinite(v) ? (long long)llround(v) : 0LL);
}

/* Reals with the JSON's 15 significant digits; empty when not computed. */
static void csv_real(FILE *f, bool have, double v)
{
    if (have && isfinite(v))
        fprintf(f, ",%.15g", v);
    else
        fputc(',', f);
}

void tp_io_csv_fields(FILE *f, const tp_config *c, const tp_result *r)
{
    const tp_train *t = &c->train;
    const tp_memory *m = &r->memory;
    const tp_time *tm = &r->time;
    tp_io_csv_text(f, c->model.name);
    fputc(',', f);
    tp_io_csv_text(f, c->gpu.name);
    fprintf(f,
            ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
            ",%" PRId64 ",%s,%d,%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
            ",%s,%s,%s,%" PRId64 ",%" PRId64 ",%s",
            t->num_gpus, gpus_per_node(c), t->tp, t->pp, t->cp, t->ep, r->dp, t->vpp,
            t->sp ? "true" : "false", t->zero, tp_io_schedule_name(t->schedule),
            tp_io_recompute_name(t->recompute), t->recompute_every, t->seq_len, t->micro_batch,
            t->global_batch, r->grad_accum, tp_io_precision_name(t->precision),
            tp_io_dtype_name(t->grad_dtype), tp_io_optimizer_name(&t->optimizer), r->params.total,
            r->params.active, m->fits ? "true" : "false");
    csv_bytes(f, m->total_bytes);
    csv_bytes(f, m->capacity_bytes);
    csv_bytes(f, m->headroom_bytes);
    for (size_t i = 0; i < TP_IO_NUM_MEM_PARTS; i++)
        csv_bytes(f, tp_io_part_value(m, &tp_io_mem_parts[i]));
    bool h = tm->computed;
    csv_real(f, h, tm->step_s);
    for (size_t i = 0; i < TP_IO_NUM_TIME_PARTS; i++)
        csv_real(f, h, tp_io_part_value(tm, &tp_io_time_parts[i]));
    csv_real(f, h, tm->tokens_per_s);
    csv_real(f, h, tm->tokens_per_s_per_gpu);
    csv_real(f, h, tm->mfu);
    csv_real(f, h, tm->hfu);
    csv_real(f, h, tm->bubble_of_total);
    fputc(',', f);
    tp_io_csv_text(f, r->reason);
}

void tp_io_csv_row(FILE *f, const tp_config *c, const tp_result *r)
{
    tp_io_csv_fields(f, c, r);
    fputc('\n', f);
}

void tp_io_markdown_rows_header(FILE *f, const char *extra)
{
    fputs("| # | GPUs | TP | PP | VPP | CP | EP | DP | SP | ZeRO | Recompute | Micro-batch | "
          "Accumulation | Memory (GiB) | Headroom (GiB) | Fits | Step (s) | Tokens/s per GPU | "
          "MFU (%) |",
          f);
    if (extra) {
        fputc(' ', f);
        md_text(f, extra);
        fputs(" |", f);
    }
    fputs("\n|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---|---:|"
          "---:|---:|",
          f);
    fputs(extra ? "---:|\n" : "\n", f);
}

void tp_io_markdown_row(FILE *f, int64_t rank, const tp_config *c, const tp_result *r,
                        const char *extra)
{
    const tp_train *t = &c->train;
    const tp_time *tm = &r->time;
    const tp_memory *m = &r->memory;
    fprintf(f,
            "| %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64 " | %" PRId64
            " | %" PRId64 " | %" PRId64 " | %s | %d | %s | %" PRId64 " | %" PRId64
            " | %.2f | %.2f | %s |",
            rank, t->num_gpus, t->tp, t->pp, t->vpp, t->cp, t->ep, r->dp, t->sp ? "on" : "off",
            t->zero, tp_io_recompute_name(t->recompute), t->micro_batch, r->grad_accum,
            m->total_bytes / GIB, m->headroom_bytes / GIB, m->fits ? "yes" : "no");
    if (tm->computed)
        fprintf(f, " %.4f | %.1f | %.1f |", tm->step_s, tm->tokens_per_s_per_gpu,
                100.0 * tm->mfu);
    else
        fputs(" - | - | - |", f);
    if (extra) {
        fputc(' ', f);
        md_text(f, extra);
        fputs(" |", f);
    }
    fputc('\n', f);
}
