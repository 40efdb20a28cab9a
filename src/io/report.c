/* SPDX-License-Identifier: MIT */
/*
 * report.c: the human-readable estimate report (`trainplan estimate`).
 *
 * Sections: Model, Layout, FLOPs, Memory on the heaviest GPU, Step time.
 * Every number carries its unit; memory is shown in GiB (2^30 bytes) and
 * GB (1e9 bytes), both labelled. The report never prints NaN or inf: the
 * CLI serialises the result to JSON first (which rejects non-finite
 * values), and this file checks again before printing anything.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"

static const char *plural(int64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* A modelled count: "123,457" when large, "12.3" when small. */
static const char *count_text(double v, char *buf, size_t n)
{
    if (fabs(v) >= 1000.0 && fabs(v) < 9e18)
        return tp_io_commas((int64_t)llround(v), buf, n);
    snprintf(buf, n, "%.3g", v);
    return buf;
}

static bool mem_finite(const tp_memory *m)
{
    const double v[] = {m->weights_bytes,      m->weights_gathered_bytes, m->grads_bytes,
                        m->optimizer_bytes,    m->activations_bytes,      m->logits_bytes,
                        m->comm_buffers_bytes, m->framework_bytes,        m->fragmentation_bytes,
                        m->total_bytes,        m->capacity_bytes,         m->headroom_bytes,
                        m->params_on_gpu,      m->inflight_microbatches,  m->act_per_layer_bytes};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static bool result_finite(const tp_config *c, const tp_result *r)
{
    const tp_flops *f = &r->flops;
    const tp_time *t = &r->time;
    const double v[] = {f->model_per_token,
                        f->hardware_per_token,
                        f->six_n_per_token,
                        f->attn_per_token,
                        f->logits_per_token,
                        f->model_per_step,
                        f->hardware_per_step,
                        f->tokens_per_step,
                        c->gpu.peak_flops_per_s[c->train.precision],
                        c->gpu.mem_capacity_bytes,
                        c->gpu.price_per_gpu_hour,
                        c->opts.fragmentation};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i]))
            return false;
    if (t->computed) {
        const double tv[] = {t->compute_s,
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
        for (size_t i = 0; i < sizeof tv / sizeof tv[0]; i++)
            if (!isfinite(tv[i]))
                return false;
    }
    return mem_finite(&r->memory) && mem_finite(&r->stage_first) && mem_finite(&r->stage_last);
}

/* The issue-16 architecture features, one line each, only when present. */
static void section_model_features(FILE *f, const tp_model *m, const tp_params *p)
{
    char a[32];
    if (m->kv_lora_rank > 0)
        fprintf(f,
                "  attention       multi-latent: q rank %lld, kv rank %lld, head dims %lld nope + "
                "%lld rope, v %lld\n",
                (long long)m->q_lora_rank, (long long)m->kv_lora_rank,
                (long long)m->qk_nope_head_dim, (long long)m->qk_rope_head_dim,
                (long long)m->v_head_dim);
    if (m->sliding_window > 0) {
        if (m->global_every > 0)
            fprintf(f, "  window          %lld tokens; 1 layer in %lld global\n",
                    (long long)m->sliding_window, (long long)m->global_every);
        else
            fprintf(f, "  window          %lld tokens on every layer\n",
                    (long long)m->sliding_window);
    }
    if (m->qk_norm != TP_QK_NORM_NONE || m->attn_sinks || m->router_bias || m->attn_out_bias)
        fprintf(f, "  extras         %s%s%s%s\n",
                m->qk_norm == TP_QK_NORM_HEAD   ? " QK-norm per head;"
                : m->qk_norm == TP_QK_NORM_FULL ? " QK-norm full width;"
                                                : "",
                m->attn_sinks ? " attention sinks;" : "", m->router_bias ? " router bias;" : "",
                m->attn_out_bias ? " q/k/v/o biases;" : "");
    if (m->num_experts > 0 && (m->moe_imbalance > 0.0 || m->moe_capacity_factor > 0.0)) {
        if (m->moe_capacity_factor > 0.0)
            fprintf(f, "  expert load     busiest rank %.3g x the mean, capacity factor %.3g\n",
                    tp_moe_load(m), m->moe_capacity_factor);
        else
            fprintf(f, "  expert load     busiest rank %.3g x the mean, dropless\n",
                    tp_moe_load(m));
    }
    if (m->mtp_layers > 0)
        fprintf(f, "  MTP             %lld multi-token prediction module(s), %s parameters\n",
                (long long)m->mtp_layers, tp_io_commas(p->mtp, a, sizeof a));
}

static void section_model(FILE *f, const tp_model *m, const tp_params *p)
{
    char a[32], b[32];
    int64_t kv = tp_kv_heads(m);
    int64_t hd = tp_head_dim(m);
    if (m->kv_lora_rank > 0) /* MLA: the q/k head width */
        hd = m->qk_nope_head_dim + m->qk_rope_head_dim;
    char name[TP_IO_SAFE_BYTES(TP_NAME_MAX)];
    fprintf(f, "Model: %s\n",
            m->name[0] ? tp_io_safe_text(m->name, name, sizeof name) : "(unnamed)");
    fprintf(f, "  parameters      %s total (%.2f B), %s active per token (%.2f B)\n",
            tp_io_commas(p->total, a, sizeof a), (double)p->total / 1e9,
            tp_io_commas(p->active, b, sizeof b), (double)p->active / 1e9);
    fprintf(f,
            "  shape           %lld layers, hidden %lld, %lld heads (%lld kv heads, head dim "
            "%lld), ffn %lld, vocab %s\n",
            (long long)m->num_layers, (long long)m->hidden, (long long)m->num_heads, (long long)kv,
            (long long)hd, (long long)m->ffn_hidden, tp_io_commas(m->vocab, a, sizeof a));
    fprintf(f, "  layers          %s MLP, %s, %s embeddings%s\n",
            m->mlp == TP_MLP_SWIGLU   ? "SwiGLU"
            : m->mlp == TP_MLP_SQRELU ? "squared-ReLU"
            : m->mlp == TP_MLP_GEGLU  ? "GeGLU"
                                      : "GELU",
            m->norm == TP_NORM_RMSNORM ? "RMSNorm" : "LayerNorm",
            m->tie_embeddings ? "tied" : "untied", m->linear_bias ? ", linear biases" : "");
    if (m->num_experts > 0) {
        int64_t fe = tp_expert_ffn_hidden(m);
        fprintf(f,
                "  experts         %lld routed (top-%lld, ffn %lld), %lld shared, "
                "%lld MoE layers\n",
                (long long)m->num_experts, (long long)m->topk, (long long)fe,
                (long long)m->num_shared_experts, (long long)p->num_moe_layers);
    }
    section_model_features(f, m, p);
    fprintf(f, "  breakdown       embedding %s, output head %s, norms %s (parameters)\n",
            tp_io_commas(p->embedding, a, sizeof a), tp_io_commas(p->output_head, b, sizeof b),
            tp_io_commas(p->norms, (char[32]){0}, 32));
    fprintf(f, "                  attention %s, dense MLP %s (parameters)\n",
            tp_io_commas(p->attention, a, sizeof a), tp_io_commas(p->mlp_dense, b, sizeof b));
    if (p->moe_routed || p->moe_shared || p->router)
        fprintf(f,
                "                  routed experts %s, shared experts %s, routers %s "
                "(parameters)\n",
                tp_io_commas(p->moe_routed, a, sizeof a), tp_io_commas(p->moe_shared, b, sizeof b),
                tp_io_commas(p->router, (char[32]){0}, 32));
}

static void section_layout(FILE *f, const tp_config *c, const tp_result *r)
{
    const tp_train *t = &c->train;
    const tp_gpu *g = &c->gpu;
    char a[32], b[32], name[TP_IO_SAFE_BYTES(TP_NAME_MAX)];
    int64_t gpn = tp_gpus_per_node(t, g);
    fprintf(f, "\nLayout\n");
    fprintf(f,
            "  GPUs            %lld x %s (%lld per node): %.1f TFLOP/s dense %s,\n"
            "                  %.2f GiB (%.2f GB) memory, %.2f USD/GPU-hour\n",
            (long long)t->num_gpus,
            g->name[0] ? tp_io_safe_text(g->name, name, sizeof name) : "(custom)", (long long)gpn,
            g->peak_flops_per_s[t->precision] / 1e12, tp_io_precision_name(t->precision),
            g->mem_capacity_bytes / TP_GIB, g->mem_capacity_bytes / TP_GB, g->price_per_gpu_hour);
    fprintf(f,
            "  parallelism     TP %lld x PP %lld x CP %lld x DP %lld = %lld GPUs; EP %lld "
            "(within DP); sequence parallel %s\n",
            (long long)t->tp, (long long)t->pp, (long long)t->cp, (long long)r->dp,
            (long long)(t->tp * t->pp * t->cp * r->dp), (long long)t->ep, t->sp ? "on" : "off");
    fprintf(f, "  pipeline        schedule %s", tp_io_schedule_name(t->schedule));
    if (t->vpp > 1)
        fprintf(f, " with %lld virtual stages per GPU", (long long)t->vpp);
    if (t->first_stage_layers > 0 || t->last_stage_layers > 0)
        fprintf(f, "; layers on first stage %lld, last stage %lld",
                (long long)r->stage_first.layers, (long long)r->stage_last.layers);
    fprintf(f, "\n");
    fprintf(f, "  memory savers   ZeRO stage %d; recompute %s", t->zero,
            tp_io_recompute_name(t->recompute));
    if (t->recompute == TP_RECOMPUTE_FULL)
        fprintf(f, " (every %lld layers)", (long long)t->recompute_every);
    fprintf(f, "; FlashAttention %s\n", t->flash_attn ? "on" : "off");
    fprintf(f, "  training        %s GEMMs, %s gradients, optimizer %s (%s master weights)%s%s\n",
            tp_io_precision_name(t->precision), tp_io_dtype_name(t->grad_dtype),
            tp_io_optimizer_name(&t->optimizer), t->optimizer.master_weights ? "fp32" : "no",
            t->dropout ? ", dropout" : "", t->fused_ce ? ", fused cross-entropy" : "");
    fprintf(f, "  batch           micro-batch %lld %s x gradient accumulation %lld x DP %lld\n",
            (long long)t->micro_batch, plural(t->micro_batch, "sequence", "sequences"),
            (long long)r->grad_accum, (long long)r->dp);
    fprintf(f,
            "                  = global batch %s %s = %s tokens per step (sequence length "
            "%lld tokens)\n",
            tp_io_commas(t->global_batch, a, sizeof a),
            plural(t->global_batch, "sequence", "sequences"),
            tp_io_commas(t->global_batch * t->seq_len, b, sizeof b), (long long)t->seq_len);
}

static void section_flops(FILE *f, const tp_config *c, const tp_flops *fl)
{
    bool causal = c->opts.attn_flops == TP_ATTN_FLOPS_CAUSAL;
    fprintf(f, "\nFLOPs (%s attention convention: %s; multiply-add = 2 FLOP)\n",
            causal ? "causal" : "full",
            causal ? "the mask halves QK^T and AV" : "no causal discount");
    fprintf(f, "  model           %.4g FLOP/token (attention %.4g, logits %.4g), %.4g FLOP/step\n",
            fl->model_per_token, fl->attn_per_token, fl->logits_per_token, fl->model_per_step);
    fprintf(f, "  hardware        %.4g FLOP/token, %.4g FLOP/step (model + recomputed forward)\n",
            fl->hardware_per_token, fl->hardware_per_step);
    fprintf(f, "  6N              %.4g FLOP/token (6 x active parameters)\n", fl->six_n_per_token);
    fprintf(f, "  tokens          %.6g tokens/step\n", fl->tokens_per_step);
}

static void mem_line(FILE *f, const char *label, double bytes)
{
    fprintf(f, "  %-26s %10.2f GiB %10.2f GB\n", label, bytes / TP_GIB, bytes / TP_GB);
}

static void section_memory(FILE *f, const tp_config *c, const tp_result *r)
{
    const tp_memory *m = &r->memory;
    fprintf(f,
            "\nMemory on the heaviest GPU (pipeline stage %lld, 0-based, of %lld: %lld layers, "
            "%.4g parameters held, %.3g micro-batches of activations in flight)\n",
            (long long)m->stage, (long long)c->train.pp, (long long)m->layers, m->params_on_gpu,
            m->inflight_microbatches);
    fprintf(f, "  %-26s %14s %13s\n", "component", "GiB (2^30 B)", "GB (1e9 B)");
    mem_line(f, "weights", m->weights_bytes);
    mem_line(f, "weights gathered (ZeRO-3)", m->weights_gathered_bytes);
    mem_line(f, "gradients", m->grads_bytes);
    mem_line(f, "optimizer state", m->optimizer_bytes);
    mem_line(f, "activations", m->activations_bytes);
    mem_line(f, "logits and loss", m->logits_bytes);
    mem_line(f, "communication buffers", m->comm_buffers_bytes);
    mem_line(f, "CUDA context", m->framework_bytes);
    mem_line(f, "fragmentation reserve", m->fragmentation_bytes);
    mem_line(f, "total", m->total_bytes);
    mem_line(f, "capacity", m->capacity_bytes);
    mem_line(f, "headroom", m->headroom_bytes);
    if (c->train.pp > 1)
        fprintf(f,
                "  stages                     first %.2f GiB (%.2f GB), last %.2f GiB (%.2f GB)\n",
                r->stage_first.total_bytes / TP_GIB, r->stage_first.total_bytes / TP_GB,
                r->stage_last.total_bytes / TP_GIB, r->stage_last.total_bytes / TP_GB);
    if (m->fits)
        fprintf(f, "  verdict                    FITS (%.1f%% of capacity)\n",
                100.0 * m->total_bytes / m->capacity_bytes);
    else
        fprintf(f, "  verdict                    DOES NOT FIT: %s\n",
                r->reason[0] ? r->reason : "total exceeds capacity");
}

static void time_line(FILE *f, const char *label, double s, double step)
{
    fprintf(f, "  %-26s %10.4f s %6.1f%% of the step\n", label, s,
            step > 0 ? 100.0 * s / step : 0.0);
}

static void section_time(FILE *f, const tp_config *c, const tp_time *t)
{
    fprintf(f, "\nStep time\n");
    if (!t->computed) {
        fprintf(f, "  not computed (step-time model not available yet)\n");
        return;
    }
    time_line(f, "compute", t->compute_s, t->step_s);
    time_line(f, "recompute", t->recompute_s, t->step_s);
    time_line(f, "TP communication", t->tp_comm_s, t->step_s);
    time_line(f, "CP communication", t->cp_comm_s, t->step_s);
    time_line(f, "EP all-to-all", t->ep_comm_s, t->step_s);
    time_line(f, "PP point-to-point", t->pp_comm_s, t->step_s);
    time_line(f, "pipeline bubble", t->bubble_s, t->step_s);
    time_line(f, "DP / ZeRO communication", t->dp_comm_s, t->step_s);
    time_line(f, "optimizer step", t->optimizer_s, t->step_s);
    time_line(f, "step", t->step_s, t->step_s);
    char tps[32], tpg[32];
    fprintf(f,
            "  bubble fraction            %.1f%% of the step, (p-1)/(m+p-1) style;\n"
            "                             %.1f%% of the ideal time, (p-1)/m style\n",
            100.0 * t->bubble_of_total, 100.0 * t->bubble_of_ideal);
    fprintf(f, "  throughput                 %s tokens/s (%s tokens/s per GPU)\n",
            count_text(t->tokens_per_s, tps, sizeof tps),
            count_text(t->tokens_per_s_per_gpu, tpg, sizeof tpg));
    fprintf(f, "  model FLOP/s               %.1f TFLOP/s per GPU (1e12 FLOP/s)\n",
            t->model_flops_per_s_per_gpu / 1e12);
    fprintf(f,
            "  utilisation                MFU %.1f%% (model FLOPs / peak), HFU %.1f%%\n"
            "                             (hardware FLOPs including recompute / peak)\n",
            100.0 * t->mfu, 100.0 * t->hfu);
    if (t->tokens_per_s > 0)
        fprintf(f,
                "  cost                       %.2f USD/hour for the cluster, %.4g USD per 1e9 "
                "tokens\n",
                c->gpu.price_per_gpu_hour * (double)c->train.num_gpus,
                c->gpu.price_per_gpu_hour * (double)c->train.num_gpus / 3600.0 / t->tokens_per_s *
                    1e9);
    fprintf(f, "  bottleneck                 %s\n", t->bottleneck ? t->bottleneck : "none");
}

void tp_io_result_text(FILE *f, const tp_config *c, const tp_result *r)
{
    bool finite = result_finite(c, r);
    assert(finite); /* the CLI rejects non-finite results before printing */
    if (!finite) {
        fprintf(f, "internal error: the result holds a non-finite number (a bug in trainplan)\n");
        return;
    }
    section_model(f, &c->model, &r->params);
    section_layout(f, c, r);
    section_flops(f, c, &r->flops);
    section_memory(f, c, r);
    section_time(f, c, &r->time);
}
