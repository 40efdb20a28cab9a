/* SPDX-License-Identifier: MIT */
/*
 * fuzz_eval_invariants.c: fuzz bytes -> a bounded, valid tp_config built
 * field by field -> tp_eval, then the model's invariants; abort() on a
 * violation (so libFuzzer and the replay test report it):
 *  - no NaN or infinity in the memory, FLOPs and time results;
 *  - each stage's memory parts sum to its total, and fits == (total <=
 *    capacity and the offloaded state fits the node's host memory);
 *  - per-GPU weights + gradients + optimizer state never increase when the
 *    ZeRO stage goes up (everything else equal).
 * Configurations the library rejects (tp_config_validate) are skipped:
 * the builder aims at valid ones, it need not hit them every time.
 */
#include <math.h>
#include <stdio.h>

#include "fuzz.h"
#include "io.h"

typedef struct bytes {
    const uint8_t *p;
    size_t n, i;
} bytes;

/* The next byte (0 once the input is used up). */
static unsigned next(bytes *b)
{
    return b->i < b->n ? b->p[b->i++] : 0u;
}

/* A value in [lo, hi] from the next two bytes. */
static int64_t range(bytes *b, int64_t lo, int64_t hi)
{
    unsigned v = next(b) << 8;
    v |= next(b);
    return lo + (int64_t)(v % (unsigned)(hi - lo + 1));
}

static int64_t pow2(bytes *b, unsigned max_log2)
{
    return (int64_t)1 << (next(b) % (max_log2 + 1));
}

static void fail(const char *what, double a, double b)
{
    fprintf(stderr, "fuzz_eval_invariants: %s (%.17g vs %.17g)\n", what, a, b);
    abort();
}

static void check_finite(const char *what, double x)
{
    if (!isfinite(x))
        fail(what, x, 0.0);
}

static int close_rel(double a, double b)
{
    double scale = fmax(1.0, fmax(fabs(a), fabs(b)));
    return fabs(a - b) <= 1e-9 * scale;
}

static void check_memory(const tp_memory *m)
{
    const double parts[] = {
        m->weights_bytes,      m->weights_gathered_bytes, m->grads_bytes,
        m->optimizer_bytes,    m->activations_bytes,      m->logits_bytes,
        m->comm_buffers_bytes, m->framework_bytes,        m->fragmentation_bytes};
    double sum = 0.0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        check_finite("memory part", parts[i]);
        if (parts[i] < 0.0)
            fail("negative memory part", parts[i], 0.0);
        sum += parts[i];
    }
    check_finite("memory total", m->total_bytes);
    check_finite("memory capacity", m->capacity_bytes);
    check_finite("memory headroom", m->headroom_bytes);
    check_finite("params on gpu", m->params_on_gpu);
    check_finite("activations per layer", m->act_per_layer_bytes);
    check_finite("in-flight micro-batches", m->inflight_microbatches);
    if (!close_rel(sum, m->total_bytes))
        fail("memory parts do not sum to the total", sum, m->total_bytes);
    if (m->fits != (m->total_bytes <= m->capacity_bytes && m->host_fits))
        fail("fits disagrees with total <= capacity and host_fits", m->total_bytes,
             m->capacity_bytes);
    if (!m->host_fits && !(m->host_bytes > 0.0))
        fail("host memory exceeded with nothing offloaded", m->host_bytes, 0.0);
}

static void check_result(const tp_result *r)
{
    check_memory(&r->memory);
    check_memory(&r->stage_first);
    check_memory(&r->stage_last);
    const tp_flops *f = &r->flops;
    const double fl[] = {f->model_per_token,   f->hardware_per_token, f->six_n_per_token,
                         f->attn_per_token,    f->logits_per_token,   f->model_per_step,
                         f->hardware_per_step, f->tokens_per_step};
    for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++)
        check_finite("flops", fl[i]);
    if (r->time.computed) {
        const tp_time *t = &r->time;
        const double tm[] = {t->compute_s,
                             t->recompute_s,
                             t->tp_comm_s,
                             t->cp_comm_s,
                             t->ep_comm_s,
                             t->pp_comm_s,
                             t->bubble_s,
                             t->dp_comm_s,
                             t->optimizer_s,
                             t->step_s,
                             t->bubble_of_total,
                             t->bubble_of_ideal,
                             t->tokens_per_s,
                             t->tokens_per_s_per_gpu,
                             t->model_flops_per_s_per_gpu,
                             t->mfu,
                             t->hfu};
        for (size_t i = 0; i < sizeof tm / sizeof tm[0]; i++)
            check_finite("time", tm[i]);
    }
}

static double states(const tp_memory *m)
{
    return m->weights_bytes + m->grads_bytes + m->optimizer_bytes;
}

static void build(bytes *b, tp_config *c)
{
    memset(c, 0, sizeof *c);
    /* GPU: a preset, whose efficiencies are the calibrated ones */
    size_t ngpu = tp_io_preset_count(TP_IO_GPU);
    const char *gname = ngpu ? tp_io_preset_name(TP_IO_GPU, next(b) % ngpu) : "h100-sxm";
    if (tp_io_gpu_load(gname, &c->gpu, NULL) != TP_OK)
        abort(); /* every preset must load */

    /* model */
    tp_model *m = &c->model;
    snprintf(m->name, sizeof m->name, "fuzz");
    m->norm = next(b) & 1 ? TP_NORM_RMSNORM : TP_NORM_LAYERNORM;
    m->mlp = next(b) & 1 ? TP_MLP_SWIGLU : TP_MLP_GELU;
    unsigned pos = next(b) % 3;
    m->pos = pos == 0 ? TP_POS_ROTARY : pos == 1 ? TP_POS_LEARNED : TP_POS_ALIBI;
    m->linear_bias = next(b) & 1;
    m->tie_embeddings = next(b) & 1;
    m->qkv_bias = next(b) & 1;
    m->num_layers = range(b, 1, 96);
    m->num_heads = pow2(b, 6);                       /* 1..64 */
    m->num_kv_heads = m->num_heads >> (next(b) % 4); /* a divisor of the heads */
    if (m->num_kv_heads < 1)
        m->num_kv_heads = 1;
    int64_t head_dim = 16 * range(b, 1, 16);
    m->hidden = m->num_heads * head_dim;
    m->head_dim = next(b) & 1 ? head_dim : 0;
    m->ffn_hidden = 64 * range(b, 1, 512);
    m->vocab = range(b, 1, 262144);
    m->max_positions = m->pos == TP_POS_LEARNED ? range(b, 1, 1 << 16) : 0;
    if (next(b) % 4 == 0) {          /* MoE */
        m->num_experts = pow2(b, 7); /* 1..128 */
        m->topk = range(b, 1, m->num_experts < 8 ? m->num_experts : 8);
        m->moe_ffn_hidden = next(b) & 1 ? 64 * range(b, 1, 128) : 0;
        m->num_shared_experts = range(b, 0, 2);
        m->moe_first_dense = range(b, 0, m->num_layers - 1);
        m->moe_layer_freq = range(b, 0, 2);
    }

    /* training setup and layout */
    tp_train *t = &c->train;
    tp_train_default(t);
    t->tp = pow2(b, 3);
    t->pp = range(b, 1, m->num_layers < 8 ? m->num_layers : 8);
    t->cp = pow2(b, 1);
    int64_t dp = range(b, 1, 16);
    t->num_gpus = t->tp * t->pp * t->cp * dp;
    t->ep = m->num_experts ? pow2(b, 3) : 1;
    t->seq_len = range(b, 1, 32768);
    t->micro_batch = range(b, 1, 16);
    t->global_batch = t->micro_batch * dp * range(b, 1, 16);
    t->sp = t->tp > 1 && (next(b) & 1);
    t->zero = (int)(next(b) % 4);
    unsigned sch = next(b) % 3;
    t->schedule = sch == 0 ? TP_SCHED_1F1B : sch == 1 ? TP_SCHED_INTERLEAVED : TP_SCHED_GPIPE;
    t->vpp = t->schedule == TP_SCHED_INTERLEAVED ? range(b, 1, 4) : 1;
    unsigned rc = next(b) % 3;
    t->recompute = rc == 0   ? TP_RECOMPUTE_NONE
                   : rc == 1 ? TP_RECOMPUTE_SELECTIVE
                             : TP_RECOMPUTE_FULL;
    t->recompute_every = range(b, 1, 4);
    unsigned pr = next(b) % 4;
    t->precision = pr == 0   ? TP_PREC_BF16
                   : pr == 1 ? TP_PREC_FP16
                   : pr == 2 ? TP_PREC_FP8
                             : TP_PREC_TF32;
    t->grad_dtype = next(b) & 1 ? TP_DTYPE_FP32 : TP_DTYPE_BF16;
    unsigned ok = next(b) % 3;
    t->optimizer.kind = ok == 0 ? TP_OPT_ADAMW : ok == 1 ? TP_OPT_SGD_MOMENTUM : TP_OPT_SGD;
    unsigned md = next(b) % 3;
    t->optimizer.moment_dtype = md == 0 ? TP_DTYPE_FP32 : md == 1 ? TP_DTYPE_BF16 : TP_DTYPE_INT8;
    t->optimizer.master_weights = !(next(b) & 1);
    t->flash_attn = !(next(b) & 1);
    t->dropout = next(b) & 1;
    t->fused_ce = next(b) & 1;
    t->pad_vocab_to = next(b) & 1 ? 128 * t->tp : 0;

    /* conventions and calibrated overheads */
    tp_options_default(&c->opts);
    c->opts.attn_flops = next(b) & 1 ? TP_ATTN_FLOPS_FULL : TP_ATTN_FLOPS_CAUSAL;
    c->opts.act_model = next(b) & 1 ? TP_ACT_KORTHIKANTI : TP_ACT_DETAILED;
    c->opts.ckpt_model = next(b) & 1 ? TP_CKPT_SEED001 : TP_CKPT_EXACT;
    c->opts.coll_model = next(b) & 1 ? TP_COLL_SIMPLE : TP_COLL_RING;
    unsigned tpo = next(b); /* one byte, two switches: the corpus keeps its meaning */
    c->opts.tp_comm_overlap = tpo & 1;
    c->opts.tp_overlap_chunked = (tpo >> 1) & 1;
    c->opts.dp_comm_overlap = next(b) & 1;
    unsigned sac = next(b); /* three switches, one byte, as above */
    c->opts.sac_ops = sac & 1;
    c->opts.eager_elementwise = (sac >> 1) & 1;
    c->opts.eager_experts = (sac >> 2) & 1;
    c->opts.pp_scatter_gather = next(b) & 1;
    c->opts.fragmentation = (double)range(b, 0, 50) / 100.0;
    if (next(b) % 8 == 0)
        c->gpu.mem_capacity_bytes = (double)range(b, 1, 1024) * 1e9;

    /* issue 16 training features, read last so that older corpus inputs
     * (which end before them) decode as before: all off at 0 */
    t->offload_optimizer = (double)(next(b) % 5) / 4.0;
    t->offload_params = (int)(next(b) % 3);
    t->offload_act_layers = range(b, 0, m->num_layers);
    t->fp8_recipe = (int)(next(b) % 4);
    if (next(b) & 1)
        c->gpu.peak_fp4_flops_per_s = 2.0 * c->gpu.peak_flops_per_s[TP_PREC_FP8];
    m->attention_chunk = next(b) & 1 ? range(b, 1, 65536) : 0;
    m->global_every = m->attention_chunk > 0 ? range(b, 0, m->num_layers) : 0;
    /* issue 17, sixth round (the attention rate by the tokens a kernel
     * call sees, kernel.c): a sliding window where no chunk is set, and
     * packed examples; read last, all off at 0 */
    if (!m->attention_chunk && (next(b) & 1)) {
        m->sliding_window = range(b, 1, 65536);
        m->global_every = range(b, 0, m->num_layers);
    }
    if (next(b) & 1)
        t->packed_seq_len = range(b, 1, t->seq_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    bytes b = {data, size, 0};
    tp_config c;
    build(&b, &c);
    tp_error err;
    memset(&err, 0, sizeof err);
    if (tp_config_validate(&c, &err) != TP_OK)
        return 0;
    tp_result r;
    if (tp_eval(&c, &r, &err) != TP_OK)
        fail("tp_eval rejects a configuration tp_config_validate accepts", 0.0, 0.0);
    check_result(&r);

    /* ZeRO: model states per GPU never grow with the stage */
    double prev = -1.0;
    for (int z = 0; z <= 3; z++) {
        tp_config cz = c;
        cz.train.zero = z;
        tp_result rz;
        if (tp_config_validate(&cz, &err) != TP_OK || tp_eval(&cz, &rz, &err) != TP_OK) {
            prev = -1.0;
            continue;
        }
        check_result(&rz);
        double s = states(&rz.stage_first);
        if (prev >= 0.0 && s > prev * (1.0 + 1e-12) + 1e-6)
            fail("weights+grads+optimizer per GPU grew with the ZeRO stage", s, prev);
        prev = s;
    }
    return 0;
}
