/* SPDX-License-Identifier: MIT */
/*
 * torchtitan.c: a plan as a torchtitan configuration (tp_io_export with
 * TP_EXPORT_TORCHTITAN or TP_EXPORT_TORCHTITAN_TOML, export.h), and a
 * torchtitan configuration read back (titan_import.c).
 *
 * Versions spoken. torchtitan replaced its job TOML with Python
 * configurations on 2026-02-23 (9810191b, "Config System Refactor: TOML to
 * Python Dataclass Registry"): a function returning Trainer.Config,
 * selected with --module/--config. Two targets, each checked against the
 * fields of one commit as tools/torchtitan_fields.py lists them:
 *
 *   torchtitan       the Python form, pytorch/torchtitan @ b5bcd76c
 *                    (2026-08-21): TrainingConfig and ParallelismConfig of
 *                    torchtitan/config/configs.py, the FullAC/SelectiveAC
 *                    policies, the llama3 flavors 1B/3B/8B/70B/405B and the
 *                    recipes llama3_8b/70b/405b of torchtitan/models/llama3,
 *                    the pipeline module names tok_embeddings, layers.N,
 *                    norm, lm_head (data/engines/torchtitan-python-b5bcd76c.tsv),
 *                    and the flavors of the deepseek_v3, qwen3 and gpt_oss
 *                    families (titan_families[]);
 *   torchtitan-toml  the job TOML of the releases before, @ 238fa995
 *                    (2026-02-23, the last TOML commit): JobConfig of
 *                    torchtitan/config/job_config.py, flavors 8B/70B/405B,
 *                    module names tok_embeddings, layers.N, norm, output
 *                    (data/engines/torchtitan-toml-238fa995.tsv).
 *
 * Every llama3 flavor of both is Llama 3.1's architecture: rotary base
 * 500000 with Llama 3 scaling (factor 8, low/high frequency factors 1 and
 * 4, original context 8192), RMSNorm epsilon 1e-5; 1B and 3B tie their
 * embeddings. A model is matched to a flavor by shape, and what differs
 * from the flavor (rotary base or scaling, epsilon) is listed under "Not
 * expressible", as is a model no flavor has.
 *
 * Mapped: the flavor (fp8 as the float8 converter), batch, sequence,
 * steps, mixed precision, DP replicate or FSDP by ZeRO stage, TP (and SP in
 * the Python form), PP with its schedule and layer split, CP, EP, the
 * activation checkpointing policy, FSDP2's CPU offload
 * (training.enable_cpu_offload: parameter offload to the CPU with the whole
 * optimizer offloaded, ZeRO 3), torch.compile (the model unless the plan
 * runs the element-wise ops eager, the loss at 4 B a logit, async TP for TP
 * communication overlap; titan_compile_of). Not expressible: ZeRO-1 (FSDP shards
 * more), bf16 gradients, trainplan's selective recompute vs torchtitan's
 * op-level policy, full recompute in groups of k > 1, TP without SP (TOML
 * form), fp16, moments other than fp32, no master weights, dropout,
 * attention without FlashAttention, vocabulary padding, a fused
 * cross-entropy without logits (TOML form) or a loss at other than
 * torchtitan's (12 B a logit at TP 1, 16 at TP > 1, 4 compiled), TP
 * overlap with eager element-wise ops, expert TP other than TP, fp8 parameter
 * gather, block recompute, optimizer offload alone, parameter offload with
 * part of the optimizer or to NVMe (docs/export.md).
 *
 * Invariant: the export is a pure function of its inputs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "io.h"
#include "io_internal.h"

/* PyTorch pipelining's ScheduleDualPipeV (torch/distributed/pipelining/
 * schedules.py) is the "cut-in-half" DualPipeV: pp/2 ranks of two stages
 * each (deepseek-ai/DualPipe README), not DualPipe's layout. */
#define TITAN_DUALPIPEV                                                                            \
    " (PyTorch's ScheduleDualPipeV is the cut-in-half variant, stages i and 2n-1-i on n ranks, "   \
    "not this layout)"

/* ------------------------------------------------------------------ */
/* torchtitan                                                           */
/* ------------------------------------------------------------------ */

/* torchtitan's built-in llama3 flavors (torchtitan/models/llama3/__init__.py),
 * recognised by shape, not by name; vocabulary 128256 (the llama3
 * tokenizer); `recipe` is the config_registry function whose data,
 * optimizer and schedule the Python form starts from. */
typedef struct titan_flavor {
    const char *name;
    int64_t layers, hidden, heads, kv_heads, ffn;
    bool tied;
    bool python_only; /* not in the TOML era's flavors */
    const char *recipe;
} titan_flavor;

static const titan_flavor titan_flavors[] = {
    {"1B", 16, 2048, 32, 8, 8192, true, true, "llama3_8b"},
    {"3B", 28, 3072, 24, 8, 8192, true, true, "llama3_8b"},
    {"8B", 32, 4096, 32, 8, 14336, false, false, "llama3_8b"},
    {"70B", 80, 8192, 64, 8, 28672, false, false, "llama3_70b"},
    {"405B", 126, 16384, 128, 8, 53248, false, false, "llama3_405b"},
};
#define TITAN_FLAVORS (sizeof titan_flavors / sizeof titan_flavors[0])

const titan_flavor *titan_flavor_named(const char *name, bool toml);
const titan_flavor *titan_flavor_named(const char *name, bool toml)
{
    for (size_t i = 0; i < TITAN_FLAVORS; i++)
        if (strcmp(titan_flavors[i].name, name) == 0 && !(toml && titan_flavors[i].python_only))
            return &titan_flavors[i];
    return NULL;
}

/* trainplan models of flavors no preset has, in trainplan's schema
 * (docs/presets.md), from torchtitan/models/<family>/__init__.py @ b5bcd76c. */
#define QWEN3_DENSE(L, H, A, F, TIED)                                                              \
    "{\"name\": \"torchtitan-qwen3\", \"norm\": \"rmsnorm\", \"mlp\": \"swiglu\", "                \
    "\"position\": \"rotary\", \"linear_bias\": false, \"tie_embeddings\": " TIED ", "             \
    "\"num_layers\": " #L ", \"hidden\": " #H ", \"num_heads\": " #A ", \"num_kv_heads\": 8, "     \
    "\"head_dim\": 128, \"ffn_hidden\": " #F ", \"vocab\": 151936, \"max_positions\": 40960, "     \
    "\"attention\": {\"qk_norm\": \"head\"}}"
/* DeepSeek 16B (DeepSeek-V2-Lite's shape): MLA without a query LoRA, 64
 * experts of 1408 (2 shared), top 6, first layer dense; torchtitan's MoE
 * keeps an expert bias for load balancing (load_balance_coeff 1e-3, the
 * default of make_moe_config), as the 671B does: counted as its router bias. */
static const char deepseek_16b[] =
    "{\"name\": \"torchtitan-deepseek-v3-16b\", \"norm\": \"rmsnorm\", \"mlp\": \"swiglu\", "
    "\"position\": \"rotary\", \"linear_bias\": false, \"tie_embeddings\": false, \"num_layers\": "
    "27, \"hidden\": 2048, \"num_heads\": 16, \"ffn_hidden\": 10944, \"vocab\": 102400, \"mla\": "
    "{\"q_lora_rank\": 0, \"kv_lora_rank\": 512, \"qk_rope_head_dim\": 64, \"qk_nope_head_dim\": "
    "128, \"v_head_dim\": 128}, \"moe\": {\"num_experts\": 64, \"topk\": 6, \"ffn_hidden\": 1408, "
    "\"num_shared_experts\": 2, \"first_dense\": 1, \"layer_freq\": 1, \"router_bias\": true}}";
/* gpt-oss 20b: gpt-oss-120b's layers, 24 of them, 32 experts */
static const char gpt_oss_20b[] =
    "{\"name\": \"torchtitan-gpt-oss-20b\", \"norm\": \"rmsnorm\", \"mlp\": \"swiglu\", "
    "\"position\": \"rotary\", \"linear_bias\": true, \"tie_embeddings\": false, \"num_layers\": "
    "24, \"hidden\": 2880, \"num_heads\": 64, \"num_kv_heads\": 8, \"head_dim\": 64, "
    "\"ffn_hidden\": 2880, \"vocab\": 201088, \"max_positions\": 131072, \"attention\": "
    "{\"sliding_window\": 128, \"global_every\": 2, \"sinks\": true}, \"moe\": {\"num_experts\": "
    "32, \"topk\": 4, \"ffn_hidden\": 2880, \"num_shared_experts\": 0, \"first_dense\": 0, "
    "\"layer_freq\": 1, \"router_bias\": true}}";

/* The flavors of torchtitan's other families, read @ b5bcd76c in
 * torchtitan/models/<family>/__init__.py (the flavor's shape, rotary base,
 * scaling and RMSNorm epsilon: torchtitan's default 1e-5 unless the family
 * sets its own) and config_registry.py (the recipe the export starts from;
 * a flavor without one of its own takes the family's nearest):
 *   deepseek_v3 16B, 671B: MLA and fine-grained MoE, yarn factor 40 on base
 *     10000, num_mtp_layers a model_registry argument;
 *   qwen3 0.6B, 1.7B, 4B, 8B, 14B, 32B (the qwen3-4b, -8b, -14b, -32b
 *     presets; 0.6B to 4B tied), 30B-A3B, 235B-A22B (the qwen3-30b-a3b and
 *     qwen3-235b-a22b presets): per-head QK-norm, base 1e6 (235B: 5e6, its
 *     2507 release's), eps 1e-6;
 *   gpt_oss 20b, 120b: biases, sinks, a 128-token window on even layers,
 *     yarn factor 32 on base 150000. */
static const titan_family_flavor titan_families[] = {
    {"deepseek_v3", "16B", deepseek_16b, "deepseek_v3_16b", 10000.0, 1e-5, "yarn", true},
    {"deepseek_v3", "671B", "deepseek-v3", "deepseek_v3_671b", 10000.0, 1e-5, "yarn", true},
    {"qwen3", "0.6B", QWEN3_DENSE(28, 1024, 16, 3072, "true"), "qwen3_0_6b", 1e6, 1e-6, NULL,
     false},
    {"qwen3", "1.7B", QWEN3_DENSE(28, 2048, 16, 6144, "true"), "qwen3_1_7b", 1e6, 1e-6, NULL,
     false},
    {"qwen3", "4B", "qwen3-4b", "qwen3_1_7b", 1e6, 1e-6, NULL, false},
    {"qwen3", "8B", "qwen3-8b", "qwen3_14b", 1e6, 1e-6, NULL, false},
    {"qwen3", "14B", "qwen3-14b", "qwen3_14b", 1e6, 1e-6, NULL, false},
    {"qwen3", "32B", "qwen3-32b", "qwen3_32b", 1e6, 1e-6, NULL, false},
    {"qwen3", "30B-A3B", "qwen3-30b-a3b", "qwen3_30b_a3b", 1e6, 1e-6, NULL, false},
    {"qwen3", "235B-A22B", "qwen3-235b-a22b", "qwen3_30b_a3b", 5e6, 1e-6, NULL, false},
    {"gpt_oss", "20b", gpt_oss_20b, "gpt_oss_20b", 150000.0, 1e-5, "yarn", false},
    {"gpt_oss", "120b", "gpt-oss-120b", "gpt_oss_120b", 150000.0, 1e-5, "yarn", false},
};
#define TITAN_FAMILIES (sizeof titan_families / sizeof titan_families[0])

const titan_family_flavor *titan_family_named(const char *family, const char *flavor)
{
    for (size_t i = 0; i < TITAN_FAMILIES; i++)
        if (strcmp(titan_families[i].family, family) == 0 &&
            strcmp(titan_families[i].flavor, flavor) == 0)
            return &titan_families[i];
    return NULL;
}

static tp_status family_model(const titan_family_flavor *f, tp_model *m, tp_error *err)
{
    if (f->preset[0] == '{')
        return tp_io_model_parse(f->preset, "torchtitan flavor", m, err);
    return tp_io_model_load(f->preset, m, err);
}

tp_status titan_family_flags(const titan_family_flavor *f, sbuf *b, tp_error *err)
{
    if (f->preset[0] != '{') {
        sb_printf(b, "--model %s", f->preset);
        return TP_OK;
    }
    tp_model m;
    TP_TRY(family_model(f, &m, err));
    eng_model_shape_flags(b, &m, NULL, "");
    return TP_OK;
}

/* The family flavor with the model's architecture (its rotary base, epsilon
 * and MTP depth aside: the notes and num_mtp_layers say those). */
static const titan_family_flavor *titan_family_match(const tp_model *m)
{
    for (size_t i = 0; i < TITAN_FAMILIES; i++) {
        tp_model pre;
        if (family_model(&titan_families[i], &pre, NULL) == TP_OK && eng_same_arch(m, &pre))
            return &titan_families[i];
    }
    return NULL;
}

/* Group-limited routing is fixed by the flavor (torchtitan/models/
 * deepseek_v3/__init__.py: 671B n_expert_groups 8, n_limited_groups 4;
 * 16B and the other families none), so a model that routes otherwise is
 * not expressible; eng_same_arch leaves the groups out of the match. */
static void titan_group_note(const tp_model *m, const titan_family_flavor *f, notes *nx)
{
    tp_model pre;
    if (m->num_experts <= 0 || family_model(f, &pre, NULL) != TP_OK ||
        (m->moe_router_groups == pre.moe_router_groups && m->moe_group_topk == pre.moe_group_topk))
        return;
    char has[64] = "no group-limited routing", does[64] = "routes over all its experts";
    if (m->moe_router_groups > 0)
        snprintf(has, sizeof has, "group-limited routing (%" PRId64 " of %" PRId64 " groups)",
                 m->moe_group_topk, m->moe_router_groups);
    if (pre.moe_router_groups > 0)
        snprintf(does, sizeof does, "routes to %" PRId64 " of %" PRId64 " groups",
                 pre.moe_group_topk, pre.moe_router_groups);
    eng_note(nx, "%s: torchtitan's %s flavor %s %s", has, f->family, f->flavor, does);
}

/* What the family flavor builds differently from the model. */
static void titan_family_notes(const tp_model *m, const titan_family_flavor *f, notes *nx)
{
    char x[32], y[32];
    if (m->rope_theta > 0 && (m->rope_theta < f->rope_theta || m->rope_theta > f->rope_theta))
        eng_note(nx, "rotary base %s: torchtitan's %s flavor %s uses %s",
                 eng_real(x, sizeof x, m->rope_theta), f->family, f->flavor,
                 eng_real(y, sizeof y, f->rope_theta));
    if (m->rope_scaling == TP_ROPE_SCALING_LLAMA3 ||
        (f->scaling && m->rope_scaling == TP_ROPE_SCALING_NONE) ||
        (!f->scaling && m->rope_scaling != TP_ROPE_SCALING_NONE))
        eng_note(nx, "rotary scaling: torchtitan's %s flavor %s applies %s, unlike this model",
                 f->family, f->flavor, f->scaling ? f->scaling : "none");
    if (m->norm_eps > 0 && (m->norm_eps < f->norm_eps || m->norm_eps > f->norm_eps))
        eng_note(nx, "norm epsilon %s: torchtitan's %s flavor %s uses %s",
                 eng_real(x, sizeof x, m->norm_eps), f->family, f->flavor,
                 eng_real(y, sizeof y, f->norm_eps));
    if (m->mtp_layers > 0 && !f->mtp_arg)
        eng_note(nx, "%" PRId64 " MTP layers: torchtitan's %s has none", m->mtp_layers, f->family);
    titan_group_note(m, f, nx);
}

static const titan_flavor *titan_match(const tp_model *m, bool toml)
{
    if (m->mlp != TP_MLP_SWIGLU || m->norm != TP_NORM_RMSNORM || m->pos != TP_POS_ROTARY ||
        m->linear_bias || m->qkv_bias || m->num_experts > 0 || m->vocab != 128256 ||
        eng_head_dim(m) * m->num_heads != m->hidden)
        return NULL;
    for (size_t i = 0; i < TITAN_FLAVORS; i++) {
        const titan_flavor *f = &titan_flavors[i];
        if (m->num_layers == f->layers && m->hidden == f->hidden && m->num_heads == f->heads &&
            eng_kv_heads(m) == f->kv_heads && m->ffn_hidden == f->ffn &&
            m->tie_embeddings == f->tied && !(toml && f->python_only))
            return f;
    }
    return NULL;
}

/* What the flavor builds differently from the model: every flavor has
 * Llama 3.1's rotary base, scaling and epsilon (0 in the model: not
 * recorded, the flavor's value is taken). */
static void titan_model_notes(const tp_model *m, const char *flavor, notes *nx)
{
    char x[32];
    if (m->rope_theta > 0 && (m->rope_theta < 500000.0 || m->rope_theta > 500000.0))
        eng_note(nx, "rotary base %s: torchtitan's llama3 flavor %s uses 500000",
                 eng_real(x, sizeof x, m->rope_theta), flavor);
    bool llama31 = m->rope_scaling == TP_ROPE_SCALING_LLAMA3 && !(m->rope_factor < 8.0) &&
                   !(m->rope_factor > 8.0) && !(m->rope_low_freq_factor < 1.0) &&
                   !(m->rope_low_freq_factor > 1.0) && !(m->rope_high_freq_factor < 4.0) &&
                   !(m->rope_high_freq_factor > 4.0) && m->rope_original_max == 8192;
    if (!llama31 && m->rope_scaling == TP_ROPE_SCALING_LLAMA3)
        eng_note(nx,
                 "rotary scaling factor %s: torchtitan's llama3 flavor %s applies Llama 3.1's "
                 "scaling (factor 8, frequency factors 1 and 4, original context 8192)",
                 eng_real(x, sizeof x, m->rope_factor), flavor);
    else if (!llama31)
        eng_note(nx,
                 "rotary scaling: torchtitan's llama3 flavor %s applies Llama 3.1's scaling "
                 "(factor 8), which this model %s",
                 flavor, m->rope_scaling == TP_ROPE_SCALING_NONE ? "does not have" : "replaces");
    if (m->norm_eps > 0 && (m->norm_eps < 1e-5 || m->norm_eps > 1e-5))
        eng_note(nx, "norm epsilon %s: torchtitan's RMSNorm uses 1e-5",
                 eng_real(x, sizeof x, m->norm_eps));
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

/* module_fqns_per_model_part: the layers of each pipeline stage by name,
 * as TOML (the output head "output") or as a Python list ("lm_head"). */
static void stage_fqns(sbuf *b, const tp_config *c, bool python)
{
    const tp_train *t = &c->train;
    const char *indent = python ? "            " : "  ";
    int64_t L = c->model.num_layers, next = 0;
    sb_puts(b,
            python ? "        module_fqns_per_model_part=[\n" : "module_fqns_per_model_part = [\n");
    for (int64_t s = 0; s < t->pp; s++) {
        int64_t n = tp_stage_layers(t, L, s);
        sb_printf(b, "%s[", indent);
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
            sb_printf(b, "%s\"norm\", \"%s\"", first ? "" : ", ", python ? "lm_head" : "output");
        sb_printf(b, "]%s\n", python || s + 1 < t->pp ? "," : "");
    }
    sb_puts(b, python ? "        ],\n" : "]\n");
}

/* [job] (the plan in one line) and [model] (a built-in flavor, or a note). */
static void titan_job_model(sbuf *b, const tp_config *c, const tp_result *r, notes *nx)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    char mname[TP_NAME_MAX];
    eng_safe_name(m->name, mname, sizeof mname);

    /* [job] */
    sb_puts(b, "[job]\ndescription = ");
    sbuf d = {0};
    sb_puts(&d, "trainplan: ");
    eng_plan_summary(&d, c, r);
    toml_string(b, d.s ? d.s : "");
    sb_free(&d);
    sb_puts(b, "\n\n");

    /* [model] */
    const titan_flavor *fl = titan_match(m, true);
    sb_puts(b, "[model]\nname = \"llama3\"\nflavor = ");
    toml_string(b, fl ? fl->name : mname);
    sb_puts(b, "\n");
    if (!fl)
        eng_note(nx,
                 "model: torchtitan has no built-in flavor with this shape; add flavor \"%s\" to "
                 "torchtitan/models/llama3 (layers %" PRId64 ", dim %" PRId64 ", heads %" PRId64
                 ", kv heads %" PRId64 ", ffn %" PRId64 ", vocab %" PRId64 ")%s",
                 mname, m->num_layers, m->hidden, m->num_heads, eng_kv_heads(m), m->ffn_hidden,
                 m->vocab,
                 (m->mlp != TP_MLP_SWIGLU || m->norm != TP_NORM_RMSNORM || m->linear_bias ||
                  m->num_experts > 0 || m->tie_embeddings || m->pos != TP_POS_ROTARY)
                     ? "; its llama3 code has SwiGLU, RMSNorm, rotary positions, untied "
                       "embeddings and no biases or experts, unlike this model"
                     : "");
    else
        titan_model_notes(m, fl->name, nx);
    if (t->precision == TP_PREC_FP8)
        sb_puts(b, "converters = [\"float8\"]\n");
    sb_puts(b, "\n");
}

/* [optimizer]: AdamW, with what torchtitan cannot keep as planned. */
static void titan_optimizer(sbuf *b, const tp_config *c, notes *nx)
{
    const tp_train *t = &c->train;
    /* [optimizer] */
    sb_puts(b, "[optimizer]\nname = \"AdamW\"\n\n");
    if (t->optimizer.kind != TP_OPT_ADAMW)
        eng_note(nx, "optimizer %s: torchtitan builds Adam or AdamW only (written as AdamW)",
                 tp_io_optimizer_name(&t->optimizer));
    else if (t->optimizer.moment_dtype != TP_DTYPE_FP32)
        eng_note(nx, "optimizer moments in %s: torchtitan keeps AdamW moments in float32",
                 tp_io_dtype_name(t->optimizer.moment_dtype));
    if (!t->optimizer.master_weights)
        eng_note(nx, "no fp32 master weights: torchtitan keeps float32 parameters "
                     "(mixed_precision_param casts them for compute)");
}

/* FSDP2's CPU offload (training.enable_cpu_offload, CPUOffloadPolicy in
 * torchtitan/distributed/fsdp.py @ b5bcd76c, the same field @ 238fa995):
 * the sharded parameters, gradients and optimizer state on the CPU, which
 * steps the optimizer: trainplan's parameter offload to the CPU with the
 * whole optimizer state offloaded, at ZeRO 3. */
static bool titan_cpu_offload(const tp_train *t)
{
    return t->offload_params == TP_OFFLOAD_CPU && t->offload_optimizer >= 1.0 && t->zero == 3;
}

/* What torchtitan's fixed mixed precision (bfloat16 parameters, float32
 * reduction) changes of the plan's precision and gradient dtype. */
static void titan_precision_notes(const tp_train *t, notes *nx)
{
    if (t->precision == TP_PREC_FP16)
        eng_note(nx, "fp16 training: torchtitan's mixed precision is bfloat16 or float32 "
                     "(written as bfloat16)");
    if (t->precision == TP_PREC_TF32)
        eng_note(nx, "tf32 training: written as bfloat16 mixed precision");
    if (t->grad_dtype != TP_DTYPE_FP32)
        eng_note(nx, "bf16 gradients: torchtitan reduces and keeps gradients in float32 "
                     "(mixed_precision_reduce); estimate with --grad-dtype fp32 to match it");
}

/* Sequences per DP rank in one run of the pipeline schedule under PP
 * (--local-batch; else the whole step's); without PP the micro-batch. */
static int64_t titan_local(const tp_train *t, int64_t dp)
{
    if (t->pp <= 1)
        return t->micro_batch;
    return t->local_batch > 0 ? t->local_batch : t->global_batch / (dp > 0 ? dp : 1);
}

/* [training]: batch, sequence, steps, mixed precision; returns the steps
 * (0 when the plan has no token budget). */
static int64_t titan_training(sbuf *b, const tp_config *c, const tp_result *r,
                              const tp_export_opts *o, notes *nx)
{
    const tp_train *t = &c->train;
    /* [training] */
    int64_t dp = r->dp;
    int64_t local = titan_local(t, dp);
    sb_printf(b,
              "[training]\nlocal_batch_size = %" PRId64 "\nglobal_batch_size = %" PRId64
              "\nseq_len = %" PRId64 "\n",
              local, t->global_batch, t->seq_len);
    int64_t steps = eng_train_steps(c, o);
    if (steps > 0)
        sb_printf(b, "steps = %" PRId64 "\n", steps);
    sb_puts(b, "mixed_precision_param = \"bfloat16\"\nmixed_precision_reduce = \"float32\"\n");
    if (titan_cpu_offload(t))
        sb_puts(b, "enable_cpu_offload = true\n");
    sb_puts(b, "\n");
    titan_precision_notes(t, nx);
    return steps;
}

static void titan_dp(const tp_train *t, int64_t dp, int64_t *replicate, int64_t *shard,
                     const char **reshard, notes *nx)
{
    *replicate = dp;
    *shard = 1;
    *reshard = NULL;
    if (t->zero == 0)
        return;
    *replicate = 1;
    *shard = dp;
    if (t->zero == 1 && dp > 1)
        eng_note(nx, "ZeRO-1 (sharded optimizer only): torchtitan shards with FSDP, which also "
                     "shards gradients and weights (written as data_parallel_shard_degree)");
    if (t->zero == 2)
        *reshard = "never";
}

/* torch.compile as the plan runs (both forms write it): the model compiled
 * unless its element-wise ops run eager (--eager-elementwise, the cost of
 * torchtitan without compile); the loss compiled when the plan holds it
 * unchunked at 4 B a logit (the bf16 logits and their gradient,
 * framework.c torchtitan); async TP for TP communication overlap at TP > 1,
 * which needs the model compiled (compile.enable_async_tensor_parallel @
 * b5bcd76c, parallelism.enable_async_tensor_parallel @ 238fa995, both
 * refuse it without "model" in compile.components). */
typedef struct titan_compile {
    bool model, loss, async_tp;
} titan_compile;

static titan_compile titan_compile_of(const tp_config *c)
{
    double ce = tp_ce_bytes_at(&c->opts, c->train.tp);
    titan_compile k = {!c->opts.eager_elementwise, false, false};
    k.loss = !c->train.fused_ce && !(ce < ENG_TITAN_COMPILED_CE || ce > ENG_TITAN_COMPILED_CE);
    k.async_tp = k.model && c->train.tp > 1 && c->opts.tp_comm_overlap;
    return k;
}

/* What of the plan's TP overlap k does not write as it is. */
static void titan_compile_notes(const tp_config *c, titan_compile k, notes *nx)
{
    if (c->train.tp > 1 && c->opts.tp_comm_overlap && !k.model)
        eng_note(nx, "TP communication overlap with eager element-wise ops: torchtitan's "
                     "async TP needs the model compiled (not written)");
    if (k.async_tp && c->opts.tp_overlap_chunked)
        eng_note(nx, "TP overlap in chunks (TransformerEngine's userbuffers): written as "
                     "torchtitan's async TP, which trainplan models without the chunks "
                     "(plan without --tp-overlap-chunked)");
}

/* The compiled components as a list literal: ["model", "loss"]. */
static const char *titan_components(char *buf, size_t n, titan_compile k)
{
    snprintf(buf, n, "[%s%s%s]", k.model ? "\"model\"" : "", k.model && k.loss ? ", " : "",
             k.loss ? "\"loss\"" : "");
    return buf;
}

/* [parallelism]: DP replicate or shard by ZeRO stage, TP, PP with its schedule
 * and layer split, CP, EP. */
static void titan_parallelism(sbuf *b, const tp_config *c, const tp_result *r, titan_compile k,
                              notes *nx)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    int64_t replicate, shard;
    const char *reshard;
    titan_dp(t, r->dp, &replicate, &shard, &reshard, nx);
    sb_printf(b,
              "[parallelism]\ndata_parallel_replicate_degree = %" PRId64
              "\ndata_parallel_shard_degree = %" PRId64 "\n",
              replicate, shard);
    if (reshard)
        sb_printf(b, "fsdp_reshard_after_forward = \"%s\"\n", reshard);
    sb_printf(b, "tensor_parallel_degree = %" PRId64 "\n", t->tp);
    if (k.async_tp)
        sb_puts(b, "enable_async_tensor_parallel = true\n");
    if (t->tp > 1 && !t->sp)
        eng_note(nx, "tensor parallelism without sequence parallelism: torchtitan always shards "
                     "the sequence across the TP group");
    sb_printf(b, "pipeline_parallel_degree = %" PRId64 "\n", t->pp);
    if (t->pp > 1) {
        const char *sched = "1F1B";
        if (t->schedule == TP_SCHED_GPIPE)
            sched = "GPipe";
        else if (t->vpp > 1)
            sched = "Interleaved1F1B";
        if (t->schedule == TP_SCHED_1F1B && t->vpp > 1)
            eng_note(nx, "1F1B with virtual stages: written as Interleaved1F1B");
        if (t->schedule == TP_SCHED_GPIPE && t->vpp > 1)
            eng_note(nx, "GPipe with virtual stages: torchtitan's GPipe runs one stage per rank");
        sb_printf(b, "pipeline_parallel_schedule = \"%s\"\n", sched);
        sb_printf(b, "pipeline_parallel_microbatch_size = %" PRId64 "\n", t->micro_batch);
        if (t->vpp > 1) {
            int64_t per = m->num_layers / (t->pp * t->vpp);
            bool even = t->first_stage_layers == 0 && t->last_stage_layers == 0 &&
                        per * t->pp * t->vpp == m->num_layers;
            if (!even)
                eng_note(nx,
                         "virtual stages with an uneven split: torchtitan's "
                         "pipeline_parallel_layers_per_stage splits evenly (written as "
                         "%" PRId64 " layers per stage)",
                         per > 0 ? per : 1);
            sb_printf(b, "pipeline_parallel_layers_per_stage = %" PRId64 "\n", per > 0 ? per : 1);
        } else {
            stage_fqns(b, c, false);
        }
    }
    sb_printf(b, "context_parallel_degree = %" PRId64 "\n", t->cp);
    sb_printf(b, "expert_parallel_degree = %" PRId64 "\n\n", t->ep);
    if (t->ep > 1 && (t->ep < t->cp || t->ep > shard * t->cp))
        eng_note(nx,
                 "EP %" PRId64 ": torchtitan borrows expert parallelism from the FSDP and CP "
                 "degrees and needs CP <= EP <= data_parallel_shard_degree x CP (%" PRId64 ")",
                 t->ep, shard * t->cp);
}

/* [activation_checkpoint], [liger_kernel], and the model-code settings
 * torchtitan does not have. */
/* The issue 16 features: what torchtitan (either form) cannot hold. */
static void titan_feature_notes(const tp_config *c, bool python, notes *nx)
{
    const tp_train *t = &c->train;
    if (!python || c->model.num_experts == 0) {
        if (tp_expert_tp(t) != t->tp)
            eng_note(nx,
                     "expert tensor parallelism %" PRId64 " with tensor parallelism %" PRId64
                     " (MoE parallel folding): torchtitan's llama3 has no experts to lay out",
                     tp_expert_tp(t), t->tp);
    } else if (t->ep > 1 && tp_expert_tp(t) != 1) {
        /* models/common/MOE_SHARDING.md @ b5bcd76c: with EP the routed
         * experts are sharded over EP only, without EP over TP */
        eng_note(nx,
                 "expert tensor parallelism %" PRId64 " with EP %" PRId64 ": torchtitan shards "
                 "routed experts over EP only (expert TP 1); estimate with --etp 1 to match",
                 tp_expert_tp(t), t->ep);
    } else if (t->ep == 1 && tp_expert_tp(t) != t->tp) {
        eng_note(nx,
                 "expert tensor parallelism %" PRId64 " without EP: torchtitan shards the "
                 "experts over TP (%" PRId64 ")",
                 tp_expert_tp(t), t->tp);
    }
    if (t->fp8_param_gather)
        eng_note(nx, "fp8 parameter gather: not written; the torchtitan setting lists checked "
                     "against (data/engines) do not reach the float8 converter's FSDP "
                     "all-gather option");
    if (t->recompute == TP_RECOMPUTE_FULL && t->recompute_layers > 0)
        eng_note(nx,
                 "recompute of the first %" PRId64 " layers of each stage only: torchtitan's "
                 "full activation checkpointing recomputes every layer",
                 t->recompute_layers);
    if (t->offload_optimizer > 0.0 && t->offload_params == TP_OFFLOAD_NONE)
        eng_note(nx,
                 "optimizer offload of %g of the state: torchtitan's training.enable_cpu_offload "
                 "(FSDP2 CPUOffloadPolicy) moves the parameters and gradients to the CPU too; "
                 "not written",
                 t->offload_optimizer);
    if (t->offload_params == TP_OFFLOAD_NVME)
        eng_note(nx, "parameter offload to the NVMe: not written; torchtitan's "
                     "training.enable_cpu_offload (FSDP2 CPUOffloadPolicy) offloads to the CPU");
    else if (t->offload_params == TP_OFFLOAD_CPU && !titan_cpu_offload(t))
        eng_note(nx,
                 "parameter offload to the CPU with %g of the optimizer state offloaded: not "
                 "written; torchtitan's training.enable_cpu_offload (FSDP2 CPUOffloadPolicy) "
                 "offloads the whole optimizer state with the parameters; estimate with "
                 "--offload-optimizer 1 to match it",
                 t->offload_optimizer);
    if (t->offload_act_layers > 0)
        eng_note(nx,
                 "activations of %" PRId64 " layers offloaded to the CPU: torchtitan has no "
                 "activation offload",
                 t->offload_act_layers);
    if (t->fp8_recipe != TP_FP8_DELAYED)
        eng_note(nx,
                 "fp8 recipe %s: not written (torchtitan's float8 and mx converters are "
                 "not among the setting lists checked against, data/engines)",
                 t->fp8_recipe == TP_FP8_TENSORWISE ? "tensorwise"
                 : t->fp8_recipe == TP_FP8_MXFP8    ? "mxfp8"
                                                    : "nvfp4");
}

/* What the two forms write for the activation checkpointing policy, and
 * the words their notes differ in. */
typedef struct titan_form {
    bool python;
    const char *ac_none, *ac_selective, *ac_full; /* the lines written */
    const char *selective_how;                    /* the selective policy, in the note */
    const char *attention;                        /* the attention torchtitan always uses */
    const char *vocab_from;                       /* what sizes torchtitan's embedding */
} titan_form;

static const titan_form TITAN_TOML = {
    false,
    "mode = \"none\"\n",
    "mode = \"selective\"\nselective_ac_option = \"op\"\n",
    "mode = \"full\"\n",
    "op-level",
    "fused SDPA attention",
    "tokenizer",
};
static const titan_form TITAN_PY = {
    true,
    "    config.activation_checkpoint = None\n",
    "    config.activation_checkpoint = SelectiveAC.Config()\n",
    "    config.activation_checkpoint = FullAC.Config()\n",
    "per-op",
    "fused attention",
    "flavor's vocabulary",
};

/* The activation checkpointing policy and what it, and the parallel
 * features, leave unexpressed (titan_feature_notes). */
static void titan_recompute(sbuf *b, const tp_config *c, const titan_form *f, notes *nx)
{
    const tp_train *t = &c->train;
    switch (t->recompute) {
    case TP_RECOMPUTE_NONE: sb_puts(b, f->ac_none); break;
    case TP_RECOMPUTE_SELECTIVE:
        sb_puts(b, f->ac_selective);
        eng_note(nx,
                 "selective recompute: torchtitan's %s selective checkpointing saves matmul "
                 "outputs and recomputes the rest, not only the attention core",
                 f->selective_how);
        break;
    case TP_RECOMPUTE_FULL:
        sb_puts(b, f->ac_full);
        if (t->recompute_every > 1)
            eng_note(nx,
                     "full recompute in groups of %" PRId64 " layers: torchtitan checkpoints every "
                     "layer separately",
                     t->recompute_every);
        break;
    }
    titan_feature_notes(c, f->python, nx);
}

/* The loss as torchtitan runs it unchunked (framework.c torchtitan has
 * the sources): compiled 4 B a logit (titan_compile_of writes that for a
 * plan at 4); else PyTorch's cross-entropy on fp32-upcast logits, 12, and
 * at TP > 1 loss parallel, 16 (the torchtitan profile's two figures). A
 * plan at another figure is noted, with the flag that plans the run's. */
static void titan_loss_note(const tp_config *c, notes *nx)
{
    tp_options d;
    tp_options_default(&d);
    tp_framework_apply(TP_FW_TORCHTITAN, &d);
    double runs = tp_ce_bytes_at(&d, c->train.tp);
    double ce = tp_ce_bytes_at(&c->opts, c->train.tp);
    if (!(ce < runs || ce > runs) || !(ce < ENG_TITAN_COMPILED_CE || ce > ENG_TITAN_COMPILED_CE))
        return;
    char x[32], y[32], z[32], f[64];
    eng_note(nx,
             "the loss at %s B a logit: torchtitan's cross-entropy holds %s (%s), or %s compiled, "
             "so the run needs %s memory than the plan (plan with %s, or --framework "
             "torchtitan)",
             eng_real(x, sizeof x, ce), eng_real(y, sizeof y, runs),
             c->train.tp > 1 ? "loss parallel, fp32 log-probabilities"
                             : "the logits upcast to fp32",
             eng_real(z, sizeof z, ENG_TITAN_COMPILED_CE), ce < runs ? "more" : "less",
             eng_ce_flag(f, sizeof f, c, runs, true)); /* torchtitan's figure varies with TP */
}

/* What torchtitan's llama3 model code lacks. */
static void titan_code_notes(const tp_config *c, const titan_form *f, notes *nx)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    if (!t->flash_attn)
        eng_note(nx, "attention without FlashAttention: torchtitan always uses %s", f->attention);
    if (t->dropout)
        eng_note(nx, "dropout: torchtitan's llama3 has no dropout layers");
    if (t->pad_vocab_to > 1 && tp_padded_vocab(m->vocab, t->pad_vocab_to) != m->vocab)
        eng_note(nx,
                 "vocabulary padding to %" PRId64 ": torchtitan sizes the embedding from the %s",
                 tp_padded_vocab(m->vocab, t->pad_vocab_to), f->vocab_from);
    if (!t->fused_ce)
        titan_loss_note(c, nx);
}

static void titan_checkpoint(sbuf *b, const tp_config *c, titan_compile k, notes *nx)
{
    /* [activation_checkpoint] */
    sb_puts(b, "[activation_checkpoint]\n");
    titan_recompute(b, c, &TITAN_TOML, nx);
    if (c->train.fused_ce)
        eng_note(nx, "fused cross-entropy without a logits tensor: the job TOML of 238fa995 has "
                     "no setting for it (the Python form's ChunkedLossWrapper has)");
    titan_code_notes(c, &TITAN_TOML, nx);
    titan_compile_notes(c, k, nx);
    char list[32];
    sb_printf(b, "\n[compile]\nenable = %s\n", k.model || k.loss ? "true" : "false");
    if (k.model || k.loss)
        sb_printf(b, "components = %s\n", titan_components(list, sizeof list, k));
}

tp_status tp_engine_torchtitan_toml_export(const tp_config *c, const tp_result *r,
                                           const tp_export_opts *o, tp_export *out, tp_error *err)
{
    notes nx = {0};
    sbuf b = {0};
    titan_job_model(&b, c, r, &nx);
    titan_optimizer(&b, c, &nx);
    int64_t steps = titan_training(&b, c, r, o, &nx);
    titan_compile k = titan_compile_of(c);
    titan_parallelism(&b, c, r, k, &nx);
    titan_checkpoint(&b, c, k, &nx);
    eng_note_fp8_act_cache(&nx, c, "torchtitan");
    eng_note_fp8_hp_inputs(&nx, c, "torchtitan");
    eng_note_moe_sync_free(&nx, c, "torchtitan");
    eng_note_dualpipe(&nx, c, "torchtitan", TITAN_DUALPIPEV);

    sbuf doc = {0};
    eng_header(&doc, "# ",
               "torchtitan job TOML (releases before 2026-02-23; checked against @ 238fa995)", c, r,
               o, &nx, "torchtitan", "the config below");
    if (steps == 0)
        eng_wrap(&doc, "# ", "", 0,
                 "[training] steps is not set: the plan has no token budget (torchtitan's default "
                 "applies; pass --train-tokens to trainplan export).");
    eng_wrap(&doc, "# ", "", 0,
             "Add the dataset, tokenizer, learning rate and checkpoint settings of the run.");
    sb_puts(&doc, "\n");
    sb_puts(&doc, b.s ? b.s : "");
    if (b.failed)
        doc.failed = true;
    sb_free(&b);
    return eng_finish(out, &doc, &nx, err);
}

/* ------------------------------------------------------------------ */
/* torchtitan: the Python configuration (@ b5bcd76c)                    */
/* ------------------------------------------------------------------ */

/* The data-parallel degrees by ZeRO stage: replicate (ZeRO 0) or FSDP
 * shard; *reshard "never" keeps the weights gathered (ZeRO 2). */
/* config.model_spec of a family flavor (deepseek_v3, qwen3, gpt_oss): fp8
 * converts the dense and the grouped expert GEMMs, as the families' float8
 * recipes do; DeepSeek's MTP modules are a model_registry argument. */
static void py_family_model(sbuf *b, const tp_config *c, const titan_family_flavor *f, notes *nx)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    titan_family_notes(m, f, nx);
    sb_printf(b, "    config = %s()  # the recipe's data, tokenizer, optimizer and schedule\n",
              f->recipe);
    sb_printf(b, "    config.model_spec = model_registry(\n        \"%s\",\n", f->flavor);
    if (f->mtp_arg && m->mtp_layers > 0)
        sb_printf(b, "        num_mtp_layers=%" PRId64 ",\n", m->mtp_layers);
    if (t->precision == TP_PREC_FP8)
        sb_puts(b, "        converters=[\n            Float8LinearConverter.Config(),\n"
                   "            Float8GroupedExpertsConverter.Config(),\n        ],\n");
    sb_puts(b, "    )\n");
    if (f->mtp_arg && m->mtp_layers > 0) {
        /* the MTP loss adds the modules' losses; it has no chunked form */
        sb_puts(b, "    config.loss = MTPLoss.Config(\n"
                   "        global_vocab_size=decoder_vocab_size(config.model_spec)\n    )\n");
        if (t->fused_ce)
            eng_note(nx, "fused cross-entropy without logits: torchtitan's MTPLoss computes the "
                         "whole logits (written without the chunked loss)");
    } else if (!t->fused_ce) {
        sb_puts(b, "    config.loss = CrossEntropyLoss.Config(\n"
                   "        global_vocab_size=decoder_vocab_size(config.model_spec)\n    )\n");
    } else {
        sb_puts(b, "    config.loss = ChunkedLossWrapper.Config(\n"
                   "        loss_fn=CrossEntropyLoss.Config(\n"
                   "            global_vocab_size=decoder_vocab_size(config.model_spec)\n"
                   "        )\n    )\n");
    }
}

/* config.model_spec and the loss: the flavor, fp8, the chunked loss. */
static void py_model(sbuf *b, const tp_config *c, const titan_flavor *fl, notes *nx)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    char mname[TP_NAME_MAX];
    eng_safe_name(m->name, mname, sizeof mname);
    if (!fl) {
        eng_note(nx,
                 "model: torchtitan has no llama3 flavor with this shape (layers %" PRId64
                 ", dim %" PRId64 ", heads %" PRId64 ", kv heads %" PRId64 ", ffn %" PRId64
                 ", vocab %" PRId64 ", %s embeddings); write its Llama3Model.Config in "
                 "torchtitan/models/llama3 and set config.model_spec to it (8B written below)%s",
                 m->num_layers, m->hidden, m->num_heads, eng_kv_heads(m), m->ffn_hidden, m->vocab,
                 m->tie_embeddings ? "tied" : "untied",
                 (m->mlp != TP_MLP_SWIGLU || m->norm != TP_NORM_RMSNORM || m->linear_bias ||
                  m->qkv_bias || m->num_experts > 0 || m->pos != TP_POS_ROTARY)
                     ? "; its llama3 code has SwiGLU, RMSNorm, rotary positions and no biases or "
                       "experts, unlike this model"
                     : "");
        fl = &titan_flavors[2]; /* 8B */
    } else {
        titan_model_notes(m, fl->name, nx);
    }
    sb_printf(b, "    config = %s()  # the recipe's data, tokenizer, optimizer and schedule\n",
              fl->recipe);
    if (t->precision == TP_PREC_FP8)
        sb_printf(b,
                  "    config.model_spec = model_registry(\"%s\", "
                  "converters=[Float8LinearConverter.Config()])\n",
                  fl->name);
    else
        sb_printf(b, "    config.model_spec = model_registry(\"%s\")\n", fl->name);
    /* the recipes use ChunkedLossWrapper, which never holds the whole logits */
    if (!t->fused_ce)
        sb_puts(b, "    config.loss = CrossEntropyLoss.Config(\n"
                   "        global_vocab_size=decoder_vocab_size(config.model_spec)\n    )\n");
    else
        sb_puts(b, "    config.loss = ChunkedLossWrapper.Config(\n"
                   "        loss_fn=CrossEntropyLoss.Config(\n"
                   "            global_vocab_size=decoder_vocab_size(config.model_spec)\n"
                   "        )\n    )\n");
}

/* config.training: tokens per micro-batch and per step, context, steps. */
static int64_t py_training(sbuf *b, const tp_config *c, const tp_export_opts *o, notes *nx)
{
    const tp_train *t = &c->train;
    sb_printf(b, "    config.training.max_context_length = %" PRId64 "\n", t->seq_len);
    sb_printf(b, "    config.training.num_tokens_per_microbatch_per_dp_rank = %" PRId64 "\n",
              t->micro_batch * t->seq_len);
    sb_printf(b, "    config.training.num_tokens_per_train_step = %" PRId64 "\n",
              t->global_batch * t->seq_len);
    int64_t steps = eng_train_steps(c, o);
    if (steps > 0)
        sb_printf(b, "    config.training.steps = %" PRId64 "\n", steps);
    sb_puts(b, "    config.training.mixed_precision_param = \"bfloat16\"\n"
               "    config.training.mixed_precision_reduce = \"float32\"\n");
    if (titan_cpu_offload(t))
        sb_puts(b, "    config.training.enable_cpu_offload = True\n");
    titan_precision_notes(t, nx);
    return steps;
}

/* config.parallelism as one ParallelismConfig. */
static void py_parallelism(sbuf *b, const tp_config *c, const tp_result *r, notes *nx)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    int64_t replicate, shard;
    const char *reshard;
    titan_dp(t, r->dp, &replicate, &shard, &reshard, nx);
    sb_puts(b, "    config.parallelism = ParallelismConfig(\n");
    sb_printf(b, "        data_parallel_replicate_degree=%" PRId64 ",\n", replicate);
    sb_printf(b, "        data_parallel_shard_degree=%" PRId64 ",\n", shard);
    if (reshard)
        sb_printf(b, "        fsdp_reshard_after_forward=\"%s\",\n", reshard);
    sb_printf(b, "        tensor_parallel_degree=%" PRId64 ",\n", t->tp);
    sb_printf(b, "        enable_sequence_parallel=%s,\n", t->sp || t->tp == 1 ? "True" : "False");
    sb_printf(b, "        pipeline_parallel_degree=%" PRId64 ",\n", t->pp);
    if (t->pp > 1) {
        const char *sched = "1F1B";
        if (t->schedule == TP_SCHED_GPIPE)
            sched = "GPipe";
        else if (t->vpp > 1)
            sched = "Interleaved1F1B";
        if (t->schedule == TP_SCHED_1F1B && t->vpp > 1)
            eng_note(nx, "1F1B with virtual stages: written as Interleaved1F1B");
        if (t->schedule == TP_SCHED_GPIPE && t->vpp > 1)
            eng_note(nx, "GPipe with virtual stages: torchtitan's GPipe runs one stage per rank");
        sb_printf(b, "        pipeline_parallel_schedule=\"%s\",\n", sched);
        sb_printf(b, "        num_pp_microbatches=%" PRId64 ",\n",
                  titan_local(t, r->dp) / t->micro_batch);
        if (t->vpp > 1) {
            int64_t per = m->num_layers / (t->pp * t->vpp);
            bool even = t->first_stage_layers == 0 && t->last_stage_layers == 0 &&
                        per * t->pp * t->vpp == m->num_layers;
            if (!even)
                eng_note(nx,
                         "virtual stages with an uneven split: torchtitan's "
                         "pipeline_parallel_layers_per_stage splits evenly (written as "
                         "%" PRId64 " layers per stage)",
                         per > 0 ? per : 1);
            sb_printf(b, "        pipeline_parallel_layers_per_stage=%" PRId64 ",\n",
                      per > 0 ? per : 1);
        } else {
            stage_fqns(b, c, true);
        }
    }
    sb_printf(b, "        context_parallel_degree=%" PRId64 ",\n", t->cp);
    sb_printf(b, "        expert_parallel_degree=%" PRId64 ",\n", t->ep);
    sb_puts(b, "    )\n");
    int64_t dense = shard * t->cp * t->tp;
    if (t->ep > 1 && dense % t->ep != 0)
        eng_note(nx,
                 "EP %" PRId64 ": torchtitan borrows expert parallelism from the FSDP, CP and TP "
                 "ranks and needs it to divide data_parallel_shard_degree x CP x TP (%" PRId64 ")",
                 t->ep, dense);
}

/* config.activation_checkpoint and what torchtitan's model code lacks. */
static void py_checkpoint(sbuf *b, const tp_config *c, notes *nx)
{
    const tp_train *t = &c->train;
    titan_recompute(b, c, &TITAN_PY, nx);
    titan_code_notes(c, &TITAN_PY, nx);
    /* written whatever the recipe sets (llama3_405b compiles the model and
     * the loss with async TP, deepseek_v3_* the loss, the others nothing) */
    titan_compile k = titan_compile_of(c);
    titan_compile_notes(c, k, nx);
    char list[32];
    if (k.model || k.loss)
        sb_printf(b,
                  "    config.compile = CompileConfig(\n        enable=True,\n"
                  "        components=%s,\n%s    )\n",
                  titan_components(list, sizeof list, k),
                  k.async_tp ? "        enable_async_tensor_parallel=True,\n" : "");
    else
        sb_puts(b, "    config.compile = CompileConfig(enable=False)\n");
    if (t->optimizer.kind != TP_OPT_ADAMW)
        eng_note(nx, "optimizer %s: the recipe's optimizer is AdamW (default_adamw)",
                 tp_io_optimizer_name(&t->optimizer));
    else if (t->optimizer.moment_dtype != TP_DTYPE_FP32)
        eng_note(nx, "optimizer moments in %s: torchtitan keeps AdamW moments in float32",
                 tp_io_dtype_name(t->optimizer.moment_dtype));
    if (!t->optimizer.master_weights)
        eng_note(nx, "no fp32 master weights: torchtitan keeps float32 parameters "
                     "(mixed_precision_param casts them for compute)");
}

tp_status tp_engine_torchtitan_export(const tp_config *c, const tp_result *r,
                                      const tp_export_opts *o, tp_export *out, tp_error *err)
{
    const tp_train *t = &c->train;
    notes nx = {0};
    sbuf b = {0};
    const titan_flavor *fl = titan_match(&c->model, false);
    const titan_family_flavor *ff = fl ? NULL : titan_family_match(&c->model);
    eng_note_fp8_act_cache(&nx, c, "torchtitan");
    eng_note_fp8_hp_inputs(&nx, c, "torchtitan");
    eng_note_moe_sync_free(&nx, c, "torchtitan");
    eng_note_dualpipe(&nx, c, "torchtitan", TITAN_DUALPIPEV);
    sbuf body = {0};
    if (ff)
        py_family_model(&body, c, ff, &nx);
    else
        py_model(&body, c, fl, &nx);
    int64_t steps = py_training(&body, c, o, &nx);
    py_parallelism(&body, c, r, &nx);
    py_checkpoint(&body, c, &nx);
    sb_puts(&body, "    return config\n");

    const char *recipe = ff ? ff->recipe : fl ? fl->recipe : "llama3_8b";
    const char *family = ff ? ff->family : "llama3";
    bool mtp = ff && ff->mtp_arg && c->model.mtp_layers > 0;
    sb_puts(&b, "from torchtitan.components.loss import ");
    sb_puts(&b,
            t->fused_ce && !mtp ? "ChunkedLossWrapper, CrossEntropyLoss\n" : "CrossEntropyLoss\n");
    if (t->precision == TP_PREC_FP8)
        sb_printf(&b, "from torchtitan.components.quantization import %s\n",
                  ff ? "(\n    Float8GroupedExpertsConverter,\n    Float8LinearConverter,\n)"
                     : "Float8LinearConverter");
    sb_puts(&b, "from torchtitan.config import CompileConfig, ParallelismConfig\n");
    if (t->recompute != TP_RECOMPUTE_NONE)
        sb_printf(&b, "from torchtitan.distributed.activation_checkpoint import %s\n",
                  t->recompute == TP_RECOMPUTE_FULL ? "FullAC" : "SelectiveAC");
    sb_printf(&b,
              "from torchtitan.models.common.config_utils import decoder_vocab_size\n"
              "from torchtitan.models.%s import model_registry\n",
              family);
    sb_printf(&b, "from torchtitan.models.%s.config_registry import %s\n", family, recipe);
    if (mtp)
        sb_puts(&b, "from torchtitan.models.deepseek_v3.mtp import MTPLoss\n");
    sb_puts(&b, "from torchtitan.trainer import Trainer\n\n\n");
    sb_puts(&b, "def trainplan_config() -> Trainer.Config:\n");
    sbuf d = {0};
    eng_plan_summary(&d, c, r);
    eng_wrap(&b, "    # ", "", 0, d.s ? d.s : "");
    sb_free(&d);
    sb_puts(&b, body.s ? body.s : "");
    if (body.failed)
        b.failed = true;
    sb_free(&body);

    sbuf doc = {0};
    eng_header(&doc, "# ",
               "torchtitan configuration (Python, since 2026-02-23; checked against @ b5bcd76c)", c,
               r, o, &nx, "torchtitan", "the configuration below");
    int64_t gpn = eng_gpus_per_node(c);
    sb_puts(&doc, "#\n# Run: save as trainplan_run.py on PYTHONPATH, then\n");
    sb_printf(&doc,
              "#   NGPU=%" PRId64 " MODULE=trainplan_run CONFIG=trainplan_config ./run_train.sh\n",
              c->train.num_gpus < gpn ? c->train.num_gpus : gpn);
    if (c->train.num_gpus > gpn)
        sb_printf(&doc, "#   on each of %" PRId64 " nodes (torchrun --nnodes %" PRId64 ")\n",
                  (c->train.num_gpus + gpn - 1) / gpn, (c->train.num_gpus + gpn - 1) / gpn);
    if (steps == 0)
        eng_wrap(&doc, "# ", "", 0,
                 "training.steps is the recipe's: the plan has no token budget (pass "
                 "--train-tokens to trainplan export).");
    eng_wrap(&doc, "# ", "", 0,
             "The dataset, tokenizer, learning rate and checkpoints are the recipe's; change "
             "them in the function.");
    sb_puts(&doc, "\n");
    sb_puts(&doc, b.s ? b.s : "");
    if (b.failed)
        doc.failed = true;
    sb_free(&b);
    return eng_finish(out, &doc, &nx, err);
}
