/* SPDX-License-Identifier: MIT */
/*
 * common.c: what the three exports share (engines.h): the header every
 * export opens with (trainplan version, the plan, the flags that rebuild
 * it, predicted memory and throughput, and the "Not expressible" list),
 * the wrapping of comment lines, the model facts with their defaults
 * resolved, and the trainplan flags of a configuration
 * (tp_io_config_flags, export.h), which the header and the DeepSpeed notes
 * both print.
 *
 * Invariant: output is a pure function of (config, result, opts): no time
 * stamps, no paths, so the export goldens are stable.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "fields.h"
#include "io.h"
#include "io_internal.h"
#include "recompute_modules.h"

#define WRAP_COLS 96 /* comment lines are wrapped at this width */

/* ------------------------------------------------------------------ */
/* Notes: the lines under "Not expressible" (counted) or informational  */
/* ------------------------------------------------------------------ */

void eng_note(notes *n, const char *fmt, ...)
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

/* The fp8 activation cache (DeepSeek-V3's storage, opts.fp8_act_cache): no
 * engine trainplan writes for has a switch that stores the saved
 * activations that way. */
void eng_note_fp8_act_cache(notes *n, const tp_config *c, const char *engine)
{
    if (c->opts.fp8_act_cache)
        eng_note(n,
                 "fp8 activation cache (--fp8-activation-cache, DeepSeek-V3's storage): %s "
                 "has no switch for it; its saved activations stay 16-bit, more memory than "
                 "planned",
                 engine);
}

/* The host floor switched off (--moe-sync-free, docs/model.md 2b): the
 * plan assumes MoE layers that never wait on the host (a CUDA graph over a
 * sync-free dispatcher); no file trainplan writes sets one up. Noted only
 * where the flag removed a floor: libtp (tp_moe_host_floor_s) decides
 * whether one would apply without it (not to a dense model, a capacity
 * factor or a GPU without the floor constants, where the plan is the same
 * either way). */
void eng_note_moe_sync_free(notes *n, const tp_config *c, const char *engine)
{
    if (!c->opts.moe_sync_free)
        return;
    tp_config waits = *c;
    waits.opts.moe_sync_free = false;
    if (tp_moe_host_floor_s(&waits, NULL) > 0.0)
        eng_note(n,
                 "MoE layers that never wait on the host (--moe-sync-free): the plan assumes a "
                 "CUDA graph over a sync-free dispatcher, which this %s file does not set up; "
                 "without it each dropless MoE layer waits on the host and the step is slower "
                 "than planned",
                 engine);
}

/* fp8 saved inputs (docs/model.md, "FP8 saved inputs"): the plan counts
 * TransformerEngine's 1-byte copies unless --fp8-hp-saved-inputs; an engine
 * whose fp8 layers keep 16-bit inputs (torchao's Float8Linear) needs more.
 * Such a plan also counts TE's fp8 weight copies ("FP8 weight copies"),
 * which torchao does not keep (tp_fp8_weight_copy_bytes is 0 with
 * --fp8-hp-saved-inputs). */
void eng_note_fp8_hp_inputs(notes *n, const tp_config *c, const char *engine)
{
    if (c->train.precision == TP_PREC_FP8 && !c->opts.fp8_hp_saved_inputs && !c->opts.fp8_act_cache)
        eng_note(n,
                 "fp8 saved inputs: the plan counts TransformerEngine's 1-byte copies of the "
                 "linear layers' inputs; %s's Float8 layers (torchao) save them in 16 bits, more "
                 "activation memory than planned%s (plan with --fp8-hp-saved-inputs, or "
                 "--framework torchtitan)",
                 engine,
                 tp_fp8_weight_copy_bytes(c) > 0.0
                     ? "; it also counts TransformerEngine's fp8 copies of the linear weights, "
                       "which torchao does not keep (less weight memory than planned)"
                     : "");
}

/* TransformerEngine's fp8 weight copies (docs/model.md, "FP8 weight
 * copies"): Megatron-Core caches them over a step's micro-batches and
 * Megatron-LM has no argument that stops it (disable_parameter_transpose_
 * cache is a config field only), so a plan made without them
 * (--no-fp8-weight-cache) under-counts that file's memory. */
void eng_note_fp8_weight_cache(notes *n, const tp_config *c, const char *engine)
{
    if (c->opts.fp8_weight_cache)
        return;
    tp_config kept = *c; /* the copies the engine keeps, if the plan counted them */
    kept.opts.fp8_weight_cache = true;
    if (tp_fp8_weight_copy_bytes(&kept) > 0.0)
        eng_note(n,
                 "fp8 weight copies (--no-fp8-weight-cache): the plan does not count "
                 "TransformerEngine's cached fp8 copies of the linear weights, which %s keeps "
                 "through the step (up to 2 bytes per linear parameter): more memory than "
                 "planned",
                 engine);
}

/* DualPipe (--schedule dualpipe, DeepSeek-V3's): none of the engines
 * trainplan writes for runs it (deepseek-ai/DualPipe is a library of its
 * own, with a model written for it); the file keeps the engine's 1F1B. */
void eng_note_dualpipe(notes *n, const tp_config *c, const char *engine, const char *also)
{
    if (c->train.schedule == TP_SCHED_DUALPIPE && c->train.pp > 1)
        eng_note(n,
                 "DualPipe schedule (--schedule dualpipe): %s has no DualPipe%s; written as "
                 "1F1B, whose bubble is (pp-1)(F+B) against DualPipe's (pp/2-1)(F&B+B-3W), with "
                 "one stage per rank (half DualPipe's parameters)%s",
                 engine, also ? also : "",
                 c->train.ep > 1 ? " and the expert-parallel all-to-all exposed" : "");
}

/* Append text as comment lines: "<prefix><lead>" then continuation lines
 * indented by `indent` spaces after the prefix, wrapped at WRAP_COLS. */
void eng_wrap(sbuf *out, const char *prefix, const char *lead, size_t indent, const char *text)
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
void eng_put_items(sbuf *out, const char *prefix, const notes *n)
{
    const char *s = n->text.s;
    while (s && *s) {
        size_t len = strcspn(s, "\n");
        char item[1100];
        snprintf(item, sizeof item, "%.*s", (int)(len < 1099 ? len : 1099), s);
        eng_wrap(out, prefix, "  - ", 4, item);
        s += len;
        if (*s == '\n')
            s++;
    }
}

/* ------------------------------------------------------------------ */
/* Shared facts about the plan                                          */
/* ------------------------------------------------------------------ */

int64_t eng_gpus_per_node(const tp_config *c)
{
    return tp_gpus_per_node(&c->train, &c->gpu);
}

int64_t eng_kv_heads(const tp_model *m)
{
    return tp_kv_heads(m);
}

int64_t eng_head_dim(const tp_model *m)
{
    return tp_head_dim(m);
}

int64_t eng_expert_ffn(const tp_model *m)
{
    return tp_expert_ffn_hidden(m);
}

/* Steps of a run of train_tokens tokens, 0 when the plan has no budget. */
int64_t eng_train_steps(const tp_config *c, const tp_export_opts *o)
{
    if (!o || o->train_tokens <= 0)
        return 0;
    int64_t per_step = c->train.global_batch * c->train.seq_len;
    return per_step > 0 ? (o->train_tokens + per_step - 1) / per_step : 0;
}

/* A name safe to put in a comment line or a TOML/JSON string: printable ASCII. */
void eng_safe_name(const char *in, char *out, size_t n)
{
    size_t o = 0;
    for (const char *p = in; *p && o + 1 < n; p++)
        out[o++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    out[o] = '\0';
    if (o == 0)
        snprintf(out, n, "(unnamed)");
}

void eng_plan_summary(sbuf *b, const tp_config *c, const tp_result *r)
{
    const tp_train *t = &c->train;
    char mname[TP_NAME_MAX], gname[TP_NAME_MAX];
    eng_safe_name(c->model.name, mname, sizeof mname);
    eng_safe_name(c->gpu.name, gname, sizeof gname);
    sb_printf(b,
              "%s on %" PRId64 " x %s (%" PRId64 " per node): TP %" PRId64 " x PP %" PRId64
              " x CP %" PRId64 " x DP %" PRId64 ", EP %" PRId64,
              mname, t->num_gpus, gname, eng_gpus_per_node(c), t->tp, t->pp, t->cp, r->dp, t->ep);
    if (t->vpp > 1)
        sb_printf(b, ", %" PRId64 " virtual stages", t->vpp);
    sb_printf(b,
              ", sequence parallel %s, ZeRO %d, schedule %s; sequence %" PRId64
              " tokens, micro-batch %" PRId64 ", global batch %" PRId64 " (%" PRId64
              " %s per step); %s, recompute %s",
              t->sp ? "on" : "off", t->zero, tp_io_schedule_name(t->schedule), t->seq_len,
              t->micro_batch, t->global_batch, r->grad_accum,
              tp_io_plural((double)r->grad_accum, "micro-batch", "micro-batches"),
              tp_io_precision_name(t->precision), tp_io_recompute_name(t->recompute));
    if (t->recompute == TP_RECOMPUTE_FULL && t->recompute_every > 1)
        sb_printf(b, " (every %" PRId64 " layers)", t->recompute_every);
}

static void memory_summary(sbuf *b, const tp_result *r)
{
    const tp_memory *m = &r->memory;
    sb_printf(b, "%.2f GiB of %.2f GiB usable on the heaviest GPU (pipeline stage %" PRId64 "): ",
              m->total_bytes / TP_GIB, m->capacity_bytes / TP_GIB, m->stage);
    if (m->fits)
        sb_printf(b, "fits, %.2f GiB headroom", m->headroom_bytes / TP_GIB);
    else {
        char reason[TP_REASON_MAX];
        tp_result_reason(r, reason, sizeof reason);
        sb_printf(b, "DOES NOT FIT (%s)", reason[0] ? reason : "over capacity");
    }
}

static void time_summary(sbuf *b, const tp_result *r)
{
    const tp_time *t = &r->time;
    if (!t->computed) {
        sb_puts(b, "not computed (this build of trainplan has no step-time model)");
        return;
    }
    sb_printf(b,
              "step %.3f s, %.0f tokens/s (%.1f tokens/s per GPU), %.1f model TFLOP/s per "
              "GPU, MFU %.1f%%",
              t->step_s, t->tokens_per_s, t->tokens_per_s_per_gpu,
              t->model_flops_per_s_per_gpu / 1e12, 100.0 * t->mfu);
    if (t->bottleneck && t->bottleneck[0])
        sb_printf(b, ", largest non-compute part: %s", t->bottleneck);
}

/* The common header of every export, as comment lines under prefix. */
void eng_header(sbuf *out, const char *prefix, const char *title, const tp_config *c,
                const tp_result *r, const tp_export_opts *o, const notes *unexpressed,
                const char *engine, const char *where)
{
    sbuf s = {0};
    char lead[160];
    snprintf(lead, sizeof lead, "%s, written by trainplan %s", title, tp_version_string());
    eng_wrap(out, prefix, lead, 0, "");

    eng_plan_summary(&s, c, r);
    eng_wrap(out, prefix, "Plan: ", 6, s.s ? s.s : "");
    sb_free(&s);

    char *flags = tp_io_config_flags(c);
    sb_printf(&s, "trainplan estimate %s", flags ? flags : "(out of memory)");
    free(flags);
    eng_wrap(out, prefix, "Reproduce: ", 11, s.s ? s.s : "");
    sb_free(&s);
    sbuf lost = {0};
    if (eng_flags_lost(&lost, &c->model) > 0) {
        sb_printf(&s,
                  "(the flags cannot carry the model's %s: give the model's file with --model "
                  "to rebuild it exactly)",
                  lost.s ? lost.s : "");
        eng_wrap(out, prefix, "           ", 11, s.s ? s.s : "");
        sb_free(&s);
    }
    sb_free(&lost);

    memory_summary(&s, r);
    eng_wrap(out, prefix, "Predicted memory: ", 18, s.s ? s.s : "");
    sb_free(&s);

    time_summary(&s, r);
    eng_wrap(out, prefix, "Predicted throughput: ", 22, s.s ? s.s : "");
    sb_free(&s);

    int64_t steps = eng_train_steps(c, o);
    if (steps > 0) {
        sb_printf(&s, "%" PRId64 " tokens = %" PRId64 " steps of %" PRId64 " tokens",
                  o->train_tokens, steps, c->train.global_batch * c->train.seq_len);
        eng_wrap(out, prefix, "Training length: ", 17, s.s ? s.s : "");
        sb_free(&s);
    }
    if (unexpressed->count == 0) {
        snprintf(lead, sizeof lead, "Everything in the plan is expressed in %s (%s).", engine,
                 where);
        eng_wrap(out, prefix, lead, 0, "");
    } else {
        snprintf(lead, sizeof lead,
                 "Not expressible in %s (%d; the run differs from the plan here):", engine,
                 unexpressed->count);
        eng_wrap(out, prefix, lead, 0, "");
        eng_put_items(out, prefix, unexpressed);
    }
}

/* ------------------------------------------------------------------ */
/* trainplan flags of a configuration                                   */
/* ------------------------------------------------------------------ */

static bool same_rope(const tp_model *a, const tp_model *b);

/* The MoE layer frequency, 0 and 1 both meaning every layer. */
static int64_t moe_freq(const tp_model *m)
{
    return m->moe_layer_freq > 1 ? m->moe_layer_freq : 1;
}

/* Exactly equal (the values are read, never computed). */
static bool same_real(double a, double b)
{
    return !(a < b) && !(a > b);
}

/* Same model as far as the trainplan flags can tell. */
static bool same_shape(const tp_model *a, const tp_model *b)
{
    return a->num_layers == b->num_layers && a->hidden == b->hidden &&
           a->num_heads == b->num_heads && eng_kv_heads(a) == eng_kv_heads(b) &&
           eng_head_dim(a) == eng_head_dim(b) && a->ffn_hidden == b->ffn_hidden &&
           a->vocab == b->vocab && a->mlp == b->mlp && a->norm == b->norm &&
           a->tie_embeddings == b->tie_embeddings && a->num_experts == b->num_experts &&
           (a->num_experts == 0 ||
            (a->topk == b->topk && eng_expert_ffn(a) == eng_expert_ffn(b) &&
             a->num_shared_experts == b->num_shared_experts &&
             tp_shared_ffn_hidden(a) == tp_shared_ffn_hidden(b) &&
             a->moe_first_dense == b->moe_first_dense && moe_freq(a) == moe_freq(b))) &&
           a->linear_bias == b->linear_bias && a->pos == b->pos &&
           (a->linear_bias || a->qkv_bias == b->qkv_bias) &&
           (a->pos != TP_POS_LEARNED || a->max_positions == b->max_positions) &&
           same_real(a->rope_theta, b->rope_theta) && same_real(a->norm_eps, b->norm_eps) &&
           same_rope(a, b) && a->kv_lora_rank == b->kv_lora_rank &&
           a->q_lora_rank == b->q_lora_rank && a->qk_rope_head_dim == b->qk_rope_head_dim &&
           a->qk_nope_head_dim == b->qk_nope_head_dim && a->v_head_dim == b->v_head_dim &&
           a->mtp_layers == b->mtp_layers && a->sliding_window == b->sliding_window &&
           a->global_every == b->global_every && a->attention_chunk == b->attention_chunk &&
           a->qk_norm == b->qk_norm && a->attn_sinks == b->attn_sinks &&
           a->router_bias == b->router_bias &&
           (a->num_experts == 0 || (a->moe_router_groups == b->moe_router_groups &&
                                    a->moe_group_topk == b->moe_group_topk)) &&
           !(a->moe_imbalance < b->moe_imbalance || a->moe_imbalance > b->moe_imbalance) &&
           !(a->moe_capacity_factor < b->moe_capacity_factor ||
             a->moe_capacity_factor > b->moe_capacity_factor);
}

bool eng_same_arch(const tp_model *m, const tp_model *pre)
{
    tp_model p = *pre;
    p.rope_theta = m->rope_theta;
    p.rope_scaling = m->rope_scaling;
    p.rope_factor = m->rope_factor;
    p.norm_eps = m->norm_eps;
    p.mtp_layers = m->mtp_layers;
    p.moe_router_groups = m->moe_router_groups; /* routing, not shape: the engines note it */
    p.moe_group_topk = m->moe_group_topk;
    return same_shape(m, &p) && m->norms_per_layer == p.norms_per_layer &&
           m->norm_no_bias == p.norm_no_bias && m->attn_out_bias == p.attn_out_bias;
}

/* The rotary scaling, as far as the flags set it. */
static bool same_rope(const tp_model *a, const tp_model *b)
{
    return a->rope_scaling == b->rope_scaling &&
           (a->rope_scaling != TP_ROPE_SCALING_LLAMA3 || same_real(a->rope_factor, b->rope_factor));
}

static const char *bias_name(const tp_model *m)
{
    return m->linear_bias ? "all" : m->qkv_bias ? "qkv" : "none";
}

const char *eng_real(char *buf, size_t n, double x)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, x);
        if (same_real(strtod(buf, NULL), x))
            break;
    }
    return buf;
}

/* The issue-16 model flags (cli opts.c): those the model sets, and a zero
 * (or none) for each the base (the preset --model names, else the default
 * model) sets and the model does not, so that none is inherited. */
static void feature_flags(sbuf *b, const tp_model *m, const tp_model *base)
{
    if (m->kv_lora_rank > 0 || base->kv_lora_rank > 0)
        sb_printf(b,
                  " --q-lora-rank %" PRId64 " --kv-lora-rank %" PRId64
                  " --qk-rope-head-dim %" PRId64 " --qk-nope-head-dim %" PRId64
                  " --v-head-dim %" PRId64,
                  m->q_lora_rank, m->kv_lora_rank, m->qk_rope_head_dim, m->qk_nope_head_dim,
                  m->v_head_dim);
    if (m->mtp_layers > 0 || base->mtp_layers > 0)
        sb_printf(b, " --mtp-layers %" PRId64, m->mtp_layers);
    if (m->sliding_window > 0)
        sb_printf(b, " --sliding-window %" PRId64 " --global-every %" PRId64, m->sliding_window,
                  m->global_every);
    if (m->attention_chunk > 0)
        sb_printf(b, " --attention-chunk %" PRId64 " --global-every %" PRId64, m->attention_chunk,
                  m->global_every);
    if (m->sliding_window == 0 && base->sliding_window > 0)
        sb_puts(b, " --sliding-window 0");
    if (m->attention_chunk == 0 && base->attention_chunk > 0)
        sb_puts(b, " --attention-chunk 0");
    if (m->sliding_window == 0 && m->attention_chunk == 0 && base->global_every > 0)
        sb_puts(b, " --global-every 0");
    if (m->qk_norm != TP_QK_NORM_NONE || base->qk_norm != TP_QK_NORM_NONE)
        sb_printf(b, " --qk-norm %s", tp_io_qk_norm_names[m->qk_norm]);
    if (m->attn_sinks)
        sb_puts(b, " --attn-sinks");
    if (m->num_experts <= 0)
        return;
    if (m->router_bias)
        sb_puts(b, " --router-bias");
    if (m->moe_router_groups > 0 || base->moe_router_groups > 0)
        sb_printf(b, " --moe-router-groups %" PRId64 " --moe-router-group-topk %" PRId64,
                  m->moe_router_groups, m->moe_group_topk);
    if (m->moe_imbalance > 0.0 || base->moe_imbalance > 0.0)
        sb_printf(b, " --moe-imbalance %.17g", m->moe_imbalance);
    if (m->moe_capacity_factor > 0.0 || base->moe_capacity_factor > 0.0)
        sb_printf(b, " --moe-capacity-factor %.17g", m->moe_capacity_factor);
}

/* The model fields beyond the shape: biases, positions, rotary, norm epsilon. */
static void model_more_flags(sbuf *b, const tp_model *m)
{
    static const char *const pos[] = {"rotary", "learned", "alibi"};
    sb_printf(b, " --bias %s --position %s", bias_name(m), pos[m->pos]);
    if (m->pos == TP_POS_LEARNED && m->max_positions > 0)
        sb_printf(b, " --max-positions %" PRId64, m->max_positions);
    char x[32];
    if (m->rope_theta > 0)
        sb_printf(b, " --rope-theta %s", eng_real(x, sizeof x, m->rope_theta));
    /* always, so that a preset's scaling is not inherited */
    if (m->rope_scaling == TP_ROPE_SCALING_LLAMA3)
        sb_printf(b, " --rope-scaling llama3 --rope-factor %s",
                  eng_real(x, sizeof x, m->rope_factor));
    else if (m->rope_scaling == TP_ROPE_SCALING_NONE)
        sb_puts(b, " --rope-scaling none");
    /* another kind has no flag: eng_flags_lost names it, and the model's
     * file given with --model keeps it */
    if (m->norm_eps > 0)
        sb_printf(b, " --norm-eps %s", eng_real(x, sizeof x, m->norm_eps));
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

/* Whether the model is exactly its preset, so that --model NAME carries it. */
static bool is_preset(const tp_model *m, tp_model *pre)
{
    return m->name[0] && tp_io_preset_text(TP_IO_MODEL, m->name) != NULL &&
           tp_io_model_load(m->name, pre, NULL) == TP_OK;
}

/* The default model, which a line of flags without --model starts from. */
static void default_model(tp_model *base)
{
    memset(base, 0, sizeof *base);
    (void)tp_io_model_load(TP_IO_DEFAULT_MODEL, base, NULL); /* embedded: cannot fail */
}

int eng_flags_lost(sbuf *b, const tp_model *m)
{
    tp_model base; /* what the line starts from: the preset, else the default model */
    bool preset = is_preset(m, &base);
    if (preset && same_shape(m, &base))
        return 0;
    if (!preset)
        default_model(&base);
    /* the model fields no trainplan flag sets (a model file or HF config
     * does), and the switches a flag turns on only, on in the base */
    const char *lost[7];
    int n = 0;
    if (m->norms_per_layer > 2)
        lost[n++] = "extra norms per layer";
    if (m->norm_no_bias)
        lost[n++] = "LayerNorm without its bias";
    if (m->attn_out_bias)
        lost[n++] = "q/k/v/o biases alone";
    if (m->pos == TP_POS_ROTARY && m->rope_scaling == TP_ROPE_SCALING_OTHER)
        lost[n++] = "rotary scaling other than Llama 3's";
    if (m->pos == TP_POS_LEARNED && m->max_positions == 0)
        lost[n++] = "learned positions without a table";
    if (base.attn_sinks && !m->attn_sinks)
        lost[n++] = "attention sinks off";
    if (m->num_experts > 0 && base.router_bias && !m->router_bias)
        lost[n++] = "router bias off";
    for (int i = 0; i < n; i++)
        sb_printf(b, "%s%s", i ? ", " : "", lost[i]);
    return n;
}

/* The flags that change a preset GPU, p, into g: its memory, the peak of
 * the plan's precision, the NIC bandwidth and the price, each where it
 * differs. */
static void gpu_override_flags(sbuf *b, const tp_gpu *g, const tp_gpu *p, tp_precision prec)
{
    char x[32];
    if (!same_real(g->mem_capacity_bytes, p->mem_capacity_bytes))
        sb_printf(b, " --gpu-memory-gb %s", eng_real(x, sizeof x, g->mem_capacity_bytes / TP_GB));
    if (!same_real(g->peak_flops_per_s[prec], p->peak_flops_per_s[prec]))
        sb_printf(b, " --peak-tflops %s", eng_real(x, sizeof x, g->peak_flops_per_s[prec] / 1e12));
    if (!same_real(g->inter_bw_bytes_per_s, p->inter_bw_bytes_per_s))
        sb_printf(b, " --nic-gbps %s", eng_real(x, sizeof x, g->inter_bw_bytes_per_s / 1e9));
    if (!same_real(g->price_per_gpu_hour, p->price_per_gpu_hour))
        sb_printf(b, " --price %s", eng_real(x, sizeof x, g->price_per_gpu_hour));
}

/* "--model NAME [shape] --gpu NAME --gpus N [--gpus-per-node G]" */
void eng_model_gpu_flags(sbuf *b, const tp_config *c)
{
    const tp_train *t = &c->train;
    /* the model: its preset name, plus the shape when it is not exactly the preset */
    const tp_model *m = &c->model;
    tp_model pre;
    bool preset = is_preset(m, &pre);
    bool file_only = tp_model_is_hybrid(m) || m->attn_output_gate || m->shared_expert_gate;
    if (file_only) {
        /* no flag holds a layer pattern or the gates: the model file (or config.json) */
        sb_puts(b, "--model MODEL_FILE");
    } else if (preset) {
        sb_puts(b, "--model ");
        shell_word(b, m->name);
    }
    if (!file_only && (!preset || !same_shape(m, &pre))) {
        eng_model_shape_flags(b, m, preset ? &pre : NULL, preset ? " " : "");
    }
    sb_puts(b, " --gpu ");
    shell_word(b, c->gpu.name[0] ? c->gpu.name : "unnamed");
    /* a preset whose default GEMM model is its profile's, run without it */
    tp_gpu pg;
    char gname[TP_NAME_MAX + 1];
    snprintf(gname, sizeof gname, "%.*s", TP_NAME_MAX, c->gpu.name);
    if (tp_io_preset_text(TP_IO_GPU, gname) && tp_io_gpu_load(gname, &pg, NULL) == TP_OK) {
        if (pg.eff.mamf > 0.0 && !(c->gpu.eff.mamf > 0.0))
            sb_puts(b, " --fitted-gemm");
        gpu_override_flags(b, &c->gpu, &pg, t->precision);
    }
    sb_printf(b, " --gpus %" PRId64, t->num_gpus);
    if (t->gpus_per_node > 0)
        sb_printf(b, " --gpus-per-node %" PRId64, t->gpus_per_node);
}

void eng_model_shape_flags(sbuf *b, const tp_model *m, const tp_model *base, const char *lead)
{
    tp_model def;
    if (!base) {
        default_model(&def);
        base = &def;
    }
    sb_printf(b,
              "%s--layers %" PRId64 " --hidden %" PRId64 " --heads %" PRId64 " --kv-heads %" PRId64
              " --head-dim %" PRId64 " --ffn-hidden %" PRId64 " --vocab %" PRId64
              " --mlp %s --norm %s %s --experts %" PRId64,
              lead, m->num_layers, m->hidden, m->num_heads, eng_kv_heads(m), eng_head_dim(m),
              m->ffn_hidden, m->vocab, tp_mlp_name(m->mlp),
              m->norm == TP_NORM_RMSNORM ? "rmsnorm" : "layernorm",
              m->tie_embeddings ? "--tie-embeddings" : "--no-tie-embeddings", m->num_experts);
    if (m->num_experts > 0)
        sb_printf(b, " --topk %" PRId64 " --moe-ffn-hidden %" PRId64 " --shared-experts %" PRId64,
                  m->topk, eng_expert_ffn(m), m->num_shared_experts);
    if (m->num_experts > 0) /* all three, so that none is inherited from a preset */
        sb_printf(b,
                  " --shared-ffn-hidden %" PRId64 " --moe-first-dense %" PRId64
                  " --moe-layer-freq %" PRId64,
                  m->shared_ffn_hidden, m->moe_first_dense, moe_freq(m));
    model_more_flags(b, m);
    feature_flags(b, m, base);
}

void eng_layout_flags(sbuf *b, const tp_train *t)
{
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
    if (t->pp_split != TP_PP_SPLIT_MEGATRON)
        sb_printf(b, " --pp-split %s", tp_io_pp_split_names[t->pp_split]);
}

void eng_recompute_flags(sbuf *b, const tp_train *t)
{
    sb_printf(b, " --recompute %s", tp_io_recompute_name(t->recompute));
    if (t->recompute == TP_RECOMPUTE_FULL)
        sb_printf(b, " --recompute-every %" PRId64, t->recompute_every);
}

void eng_switch_flags(sbuf *b, const tp_train *t)
{
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

/* " FLAG V" for a plain convention that differs from its default d. */
static void convention_arg(sbuf *b, const tp_io_field *f, const tp_options *o, const tp_options *d)
{
    double v;
    if (!tp_io_field_convention_set(f, o, d, &v))
        return;
    if (f->type != TP_IO_FIELD_SWITCH)
        sb_printf(b, " %s %.9g", f->flag, v);
    else if ((v > 0.5) == tp_io_field_switch_sets(f))
        sb_printf(b, " %s", f->flag);
}

char *tp_io_config_flags(const tp_config *c)
{
    const tp_train *t = &c->train;
    sbuf b = {0};
    eng_model_gpu_flags(&b, c);
    eng_layout_flags(&b, t);
    sb_printf(&b, " --zero %d", t->zero);
    eng_recompute_flags(&b, t);
    sb_printf(&b, " --seq-len %" PRId64 " --micro-batch %" PRId64 " --global-batch %" PRId64,
              t->seq_len, t->micro_batch, t->global_batch);
    sb_printf(&b, " --precision %s --grad-dtype %s --optimizer %s",
              tp_io_precision_name(t->precision), tp_io_dtype_name(t->grad_dtype),
              tp_io_optimizer_name(&t->optimizer));
    eng_switch_flags(&b, t);
    /* issue 16 features, only when set (older lines unchanged) */
    if (t->etp > 0 && t->etp != t->tp)
        sb_printf(&b, " --etp %" PRId64, t->etp);
    if (t->fp8_param_gather)
        sb_puts(&b, " --fp8-param-gather");
    if (t->recompute == TP_RECOMPUTE_SELECTIVE && t->recompute_modules) {
        char mods[96];
        sb_printf(&b, " --recompute-modules %s",
                  tp_io_recompute_modules_text(t->recompute_modules, mods, sizeof mods));
    }
    if (t->recompute == TP_RECOMPUTE_FULL && t->recompute_layers > 0)
        sb_printf(&b, " --recompute-block-layers %" PRId64, t->recompute_layers);
    if (t->offload_optimizer > 0.0)
        sb_printf(&b, " --offload-optimizer %.9g", t->offload_optimizer);
    if (t->offload_params != TP_OFFLOAD_NONE)
        sb_printf(&b, " --offload-params %s",
                  t->offload_params == TP_OFFLOAD_NVME ? "nvme" : "cpu");
    if (t->offload_act_layers > 0)
        sb_printf(&b, " --offload-activations %" PRId64, t->offload_act_layers);
    static const char *const recipes[] = {"delayed", "tensorwise", "mxfp8", "nvfp4"};
    if (t->fp8_recipe > TP_FP8_DELAYED && t->fp8_recipe <= TP_FP8_NVFP4)
        sb_printf(&b, " --fp8-recipe %s", recipes[t->fp8_recipe]);
    if (t->local_batch > 0) /* schedule runs per step, only when set */
        sb_printf(&b, " --local-batch %" PRId64, t->local_batch);
    if (t->packed_seq_len > 0) /* issue 17: packed sequences, only when set */
        sb_printf(&b, " --packed-seq-len %" PRId64, t->packed_seq_len);
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
    if (fabs(op->host_mem_bytes_per_node - d.host_mem_bytes_per_node) > 0.5)
        sb_printf(&b, " --host-memory-gb %.9g", op->host_mem_bytes_per_node / 1e9);
    if (fabs(op->pcie_bw_bytes_per_s - d.pcie_bw_bytes_per_s) > 0.5)
        sb_printf(&b, " --pcie-gbps %.9g", op->pcie_bw_bytes_per_s / 1e9);
    if (fabs(op->host_mem_bw_bytes_per_s - d.host_mem_bw_bytes_per_s) > 0.5)
        sb_printf(&b, " --host-mem-bw-gbps %.9g", op->host_mem_bw_bytes_per_s / 1e9);
    if (op->sac_ops) /* search --recompute-variants may choose it */
        sb_puts(&b, " --sac-ops");
    if (fabs(op->nvme_bw_bytes_per_s - d.nvme_bw_bytes_per_s) > 0.5)
        sb_printf(&b, " --nvme-gbps %.9g", op->nvme_bw_bytes_per_s / 1e9);
    /* the plain conventions (fields.c rows), each when not the default: a
     * framework profile sets several of them, and the line names each */
    for (size_t i = 0; i < tp_io_field_count(); i++)
        convention_arg(&b, tp_io_field_at(i), op, &d);
    return sb_take(&b);
}

int tp_io_config_flags_lost(const tp_config *c, char *buf, size_t n)
{
    sbuf b = {0};
    int k = 0;
    if (c->model.vision.layers > 0 || c->model.parallel_attn) {
        sb_puts(&b, "the model's vision tower or parallel block (give its file with --model)");
        k++;
    } else {
        sbuf lost = {0};
        int m = eng_flags_lost(&lost, &c->model);
        if (m > 0)
            sb_printf(&b, "the model's %s (give its file with --model)", lost.s ? lost.s : "");
        sb_free(&lost);
        k += m > 0;
    }
    char gname[TP_NAME_MAX + 1];
    snprintf(gname, sizeof gname, "%.*s", TP_NAME_MAX, c->gpu.name);
    if (!tp_io_preset_text(TP_IO_GPU, gname)) {
        char safe[TP_NAME_MAX];
        eng_safe_name(c->gpu.name, safe, sizeof safe);
        sb_printf(&b, "%sthe GPU %s, not a preset (give its file with --gpu)", k ? "; " : "", safe);
        k++;
    }
    if (n > 0)
        snprintf(buf, n, "%s", b.s ? b.s : "");
    sb_free(&b);
    return k;
}

void eng_convention_flag(sbuf *b, const tp_options *o, const char *flag)
{
    tp_options d;
    tp_options_default(&d);
    const tp_io_field *f = tp_io_field_by_flag(flag);
    if (f)
        convention_arg(b, f, o, &d);
}

const char *eng_ce_flag(char *buf, size_t n, const tp_config *c, double y, bool by_tp)
{
    char x[32];
    bool tpf = c->train.tp > 1 && (by_tp || c->opts.ce_bytes_per_logit_tp > 0.0);
    snprintf(buf, n, "--ce-bytes-per-logit%s %s", tpf ? "-tp" : "", eng_real(x, sizeof x, y));
    return buf;
}

const char *const eng_mcore_ce_impls[] = {"native", "te", NULL};

double eng_mcore_ce_bytes(bool te_fused)
{
    if (te_fused) /* the gradient written into the bf16 logits (TE v2.9) */
        return 2.0;
    tp_options o;
    tp_options_default(&o);
    tp_framework_apply(TP_FW_MEGATRON_CORE, &o);
    return o.ce_bytes_per_logit;
}

tp_status eng_finish(tp_export *out, sbuf *doc, notes *nx, tp_error *err)
{
    out->num_unexpressed = nx->count;
    bool failed = nx->text.failed;
    sb_free(&nx->text);
    out->text = sb_take(doc);
    if (!out->text || failed) {
        tp_io_export_free(out);
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory writing the export");
    }
    return TP_OK;
}
