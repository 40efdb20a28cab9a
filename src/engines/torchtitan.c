/* SPDX-License-Identifier: MIT */
/*
 * torchtitan.c: a plan as a torchtitan job TOML (tp_io_export with
 * TP_EXPORT_TORCHTITAN, export.h). There is no torchtitan import yet.
 *
 * Version spoken. Sections and keys as in pytorch/torchtitan
 * torchtitan/config/job_config.py @ 6404b932, module names as in
 * torchtitan/models/llama3/model/model.py @ 6404b932, the llama3 flavors
 * 8B/70B/405B as in torchtitan/models/llama3/__init__.py (stored version
 * 00f555e1), pipeline schedule names as in pytorch's
 * torch/distributed/pipelining/schedules.py; docs/export.md, "Sources of
 * the engine facts", names each fact with its source.
 *
 * Mapped: [job], [model] (name "llama3" and a built-in flavor when the
 * shape is exactly one, recognised by shape, not by name; fp8 as the
 * float8 converter), [optimizer], [training] (local and global batch,
 * sequence, steps, mixed precision), [parallelism] (ZeRO 0 as DP
 * replicate, ZeRO 2/3 as FSDP with or without resharding, TP, PP with its
 * schedule and layer split, CP, EP), [activation_checkpoint] and
 * [liger_kernel] for a fused cross-entropy. Listed under "Not
 * expressible" instead: ZeRO-1 (written as FSDP), bf16 gradients,
 * trainplan's selective recompute vs torchtitan's op-level policy, full
 * recompute in groups of k > 1, TP without sequence parallelism, EP
 * outside CP <= EP <= shard x CP, fp16, moments other than fp32, no master
 * weights, dropout, attention without FlashAttention, vocabulary padding,
 * a model that is not a built-in flavor (docs/export.md).
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
        m->vocab != 128256 || eng_head_dim(m) * m->num_heads != m->hidden)
        return NULL;
    for (size_t i = 0; i < sizeof titan_flavors / sizeof titan_flavors[0]; i++) {
        const titan_flavor *f = &titan_flavors[i];
        if (m->num_layers == f->layers && m->hidden == f->hidden && m->num_heads == f->heads &&
            eng_kv_heads(m) == f->kv_heads && m->ffn_hidden == f->ffn)
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
    const titan_flavor *fl = titan_match(m);
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

/* [training]: batch, sequence, steps, mixed precision; returns the steps
 * (0 when the plan has no token budget). */
static int64_t titan_training(sbuf *b, const tp_config *c, const tp_result *r,
                              const tp_export_opts *o, notes *nx)
{
    const tp_train *t = &c->train;
    /* [training] */
    int64_t dp = r->dp;
    int64_t local = t->pp > 1 ? t->global_batch / (dp > 0 ? dp : 1) : t->micro_batch;
    sb_printf(b,
              "[training]\nlocal_batch_size = %" PRId64 "\nglobal_batch_size = %" PRId64
              "\nseq_len = %" PRId64 "\n",
              local, t->global_batch, t->seq_len);
    int64_t steps = eng_train_steps(c, o);
    if (steps > 0)
        sb_printf(b, "steps = %" PRId64 "\n", steps);
    sb_puts(b, "mixed_precision_param = \"bfloat16\"\nmixed_precision_reduce = \"float32\"\n\n");
    if (t->precision == TP_PREC_FP16)
        eng_note(nx, "fp16 training: torchtitan's mixed precision is bfloat16 or float32 "
                     "(written as bfloat16)");
    if (t->precision == TP_PREC_TF32)
        eng_note(nx, "tf32 training: written as bfloat16 mixed precision");
    if (t->grad_dtype != TP_DTYPE_FP32)
        eng_note(nx, "bf16 gradients: torchtitan reduces and keeps gradients in float32 "
                     "(mixed_precision_reduce); estimate with --grad-dtype fp32 to match it");
    return steps;
}

/* [parallelism]: DP replicate or shard by ZeRO stage, TP, PP with its schedule
 * and layer split, CP, EP. */
static void titan_parallelism(sbuf *b, const tp_config *c, const tp_result *r, notes *nx)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    int64_t dp = r->dp;
    /* [parallelism] */
    int64_t replicate = dp, shard = 1;
    const char *reshard = NULL;
    switch (t->zero) {
    case 0: break;
    case 1:
        replicate = 1;
        shard = dp;
        if (dp > 1)
            eng_note(nx, "ZeRO-1 (sharded optimizer only): torchtitan shards with FSDP, which "
                         "also shards gradients and weights (written as "
                         "data_parallel_shard_degree)");
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
    sb_printf(b,
              "[parallelism]\ndata_parallel_replicate_degree = %" PRId64
              "\ndata_parallel_shard_degree = %" PRId64 "\n",
              replicate, shard);
    if (reshard)
        sb_printf(b, "fsdp_reshard_after_forward = \"%s\"\n", reshard);
    sb_printf(b, "tensor_parallel_degree = %" PRId64 "\n", t->tp);
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
            titan_stage_fqns(b, c);
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
static void titan_checkpoint(sbuf *b, const tp_config *c, notes *nx)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    /* [activation_checkpoint] */
    sb_puts(b, "[activation_checkpoint]\n");
    switch (t->recompute) {
    case TP_RECOMPUTE_NONE: sb_puts(b, "mode = \"none\"\n"); break;
    case TP_RECOMPUTE_SELECTIVE:
        sb_puts(b, "mode = \"selective\"\nselective_ac_option = \"op\"\n");
        eng_note(nx, "selective recompute: torchtitan's op-level selective checkpointing saves "
                     "matmul outputs and recomputes the rest, not only the attention core");
        break;
    case TP_RECOMPUTE_FULL:
        sb_puts(b, "mode = \"full\"\n");
        if (t->recompute_every > 1)
            eng_note(nx,
                     "full recompute in groups of %" PRId64 " layers: torchtitan checkpoints every "
                     "layer separately",
                     t->recompute_every);
        break;
    }
    if (t->fused_ce)
        sb_puts(b, "\n[liger_kernel]\nenable_fused_linear_cross_entropy = true\n");

    if (!t->flash_attn)
        eng_note(nx, "attention without FlashAttention: torchtitan always uses fused SDPA "
                     "attention");
    if (t->dropout)
        eng_note(nx, "dropout: torchtitan's llama3 has no dropout layers");
    if (t->pad_vocab_to > 1 && tp_padded_vocab(m->vocab, t->pad_vocab_to) != m->vocab)
        eng_note(nx,
                 "vocabulary padding to %" PRId64 ": torchtitan sizes the embedding from the "
                 "tokenizer",
                 tp_padded_vocab(m->vocab, t->pad_vocab_to));
}

tp_status tp_engine_torchtitan_export(const tp_config *c, const tp_result *r,
                                      const tp_export_opts *o, tp_export *out, tp_error *err)
{
    notes nx = {0};
    sbuf b = {0};
    titan_job_model(&b, c, r, &nx);
    titan_optimizer(&b, c, &nx);
    int64_t steps = titan_training(&b, c, r, o, &nx);
    titan_parallelism(&b, c, r, &nx);
    titan_checkpoint(&b, c, &nx);

    sbuf doc = {0};
    eng_header(&doc, "# ", "torchtitan job config", c, r, o, &nx, "torchtitan", "the config below");
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
