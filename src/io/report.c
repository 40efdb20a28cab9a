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
#include "desc.h"
#include "recompute_modules.h"

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

/* The vision tower (vision.c design note) and what its estimate assumes. */
static void section_model_vision(FILE *f, const tp_model *m, const tp_params *p)
{
    const tp_vision *v = &m->vision;
    char a[32], b[32], c[32];
    if (v->layers <= 0)
        return;
    fprintf(f,
            "  vision tower    %lld blocks, width %lld, %lld heads, %s MLP %lld, patch %lld%s; "
            "%s; on pipeline stage 0, TP splits its attention and MLP\n",
            (long long)v->layers, (long long)v->hidden, (long long)v->heads,
            tp_mlp_gated(v->mlp) ? "SwiGLU" : "GELU", (long long)v->ffn_hidden, (long long)v->patch,
            v->temporal > 1 ? " x 2 frames" : "",
            v->frozen ? "frozen (forward only, no gradients or optimizer state; projector "
                        "trained)"
                      : "trained");
    fprintf(f, "  image tokens    %s encoder patches per sample, %s language %s (merge %lld)\n",
            tp_io_commas(v->image_tokens, a, sizeof a),
            tp_io_commas(v->image_tokens / (v->merge > 0 ? v->merge : 1), b, sizeof b),
            v->cross_every > 0 ? "image states cross-attended" : "tokens in the sequence",
            (long long)(v->merge > 0 ? v->merge : 1));
    if (v->image_tokens == 0)
        fprintf(f, "                  none: the tower is held but does no work (set "
                   "--image-tokens; a dynamic-resolution model has no default)\n");
    if (v->cross_every > 0)
        fprintf(f, "  cross-attention one layer in %lld from layer %lld reads the image states\n",
                (long long)v->cross_every, (long long)v->cross_first);
    fprintf(f, "                  vision %s, projector %s, language side %s (parameters)\n",
            tp_io_commas(p->vision, a, sizeof a), tp_io_commas(p->vision_projector, b, sizeof b),
            tp_io_commas(p->vision_text, c, sizeof c));
    fprintf(f,
            "  assumed         %s; the tower %s and runs whole on every CP rank; image tokens "
            "in the sequence are part of --seq-len\n",
            v->image_size > 0 ? "each attention of the tower spans one image at the config's size"
                              : "dynamic resolution: the tower attends over all of a sample's "
                                "patches at once (one image per sample)",
            v->frozen ? "stores no activations (frozen)" : "keeps its activations under recompute");
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
    if (m->attention_chunk > 0) {
        if (m->global_every > 0)
            fprintf(
                f, "  chunked         attention in chunks of %lld tokens; 1 layer in %lld global\n",
                (long long)m->attention_chunk, (long long)m->global_every);
        else
            fprintf(f, "  chunked         attention in chunks of %lld tokens on every layer\n",
                    (long long)m->attention_chunk);
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
    if (m->parallel_attn)
        fprintf(f, "  parallel block  attention and MLP read the same input (one TP all-reduce "
                   "per layer each way)\n");
    section_model_vision(f, m, p);
}

/* A hybrid model's layers (src/lib/hybrid.c): the pattern, the count of
 * each kind and the mixers' parameters. */
static void section_hybrid(FILE *f, const tp_model *m, const tp_params *p)
{
    int64_t n[8] = {0}; /* A L S M G * - E */
    static const char kinds[] = "ALSMG*-E";
    for (int64_t i = 0; i < m->num_layers; i++) {
        const char *k = strchr(kinds, tp_layer_char(m, i));
        if (k && *k)
            n[k - kinds]++;
    }
    char a[32];
    fprintf(f, "                  Mamba / gated delta-net mixers %s (parameters)\n",
            tp_io_commas(p->mixers, a, sizeof a));
    fprintf(f, "  layer pattern   %.100s%s\n", m->layer_pattern,
            strlen(m->layer_pattern) > 100 ? "..." : "");
    fprintf(f,
            "                  %lld attention + MLP, %lld gated delta-net + MLP, %lld Mamba-1 + "
            "MLP, %lld Mamba-2, %lld gated delta-net, %lld attention, %lld MLP, %lld MoE layers\n",
            (long long)n[0], (long long)n[1], (long long)n[2], (long long)n[3], (long long)n[4],
            (long long)n[5], (long long)n[6], (long long)n[7]);
    if (m->mamba_heads > 0)
        fprintf(f, "  Mamba-2         %lld heads of %lld, %lld groups, state %lld, conv %lld\n",
                (long long)m->mamba_heads, (long long)m->mamba_head_dim, (long long)m->mamba_groups,
                (long long)m->mamba_state, (long long)(m->mamba_conv > 0 ? m->mamba_conv : 4));
    if (m->mamba1_inner > 0)
        fprintf(f, "  Mamba-1         inner %lld, dt rank %lld, state %lld, conv %lld\n",
                (long long)m->mamba1_inner, (long long)m->mamba1_dt_rank, (long long)m->mamba_state,
                (long long)(m->mamba_conv > 0 ? m->mamba_conv : 4));
    if (m->gdn_k_heads > 0)
        fprintf(f,
                "  gated delta-net %lld key heads of %lld, %lld value heads of %lld, conv %lld\n",
                (long long)m->gdn_k_heads, (long long)m->gdn_k_head_dim, (long long)m->gdn_v_heads,
                (long long)m->gdn_v_head_dim, (long long)(m->gdn_conv > 0 ? m->gdn_conv : 4));
    if (m->attn_output_gate || m->shared_expert_gate)
        fprintf(f, "  gates           %s%s%s\n", m->attn_output_gate ? "attention output gate" : "",
                m->attn_output_gate && m->shared_expert_gate ? ", " : "",
                m->shared_expert_gate ? "shared-expert gate" : "");
}

static void section_model(FILE *f, const tp_model *m, const tp_params *p)
{
    char a[32], b[32];
    int64_t kv = tp_kv_heads(m);
    int64_t hd = tp_head_dim(m);
    if (m->kv_lora_rank > 0) /* MLA: the q/k head width */
        hd = m->qk_nope_head_dim + m->qk_rope_head_dim;
    char name[TP_IO_SAFE_BYTES(TP_NAME_MAX)];
    fprintf(f, "Model: %s%s\n",
            m->name[0] ? tp_io_safe_text(m->name, name, sizeof name) : "(unnamed)",
            tp_io_model_reshaped(m) ? ", reshaped: not the preset's shape" : "");
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
    if (tp_model_is_hybrid(m))
        section_hybrid(f, m, p);
}

/* Which GEMM model produced the compute time (docs/model.md 1a, 1b). */
static void section_gemm_model(FILE *f, const tp_gpu *g, tp_precision prec)
{
    tp_io_gemm_model gm;
    tp_io_gemm_model_of(g, prec, &gm);
    if (!gm.kernel) {
        fprintf(f,
                "  GEMM model      fitted: large GEMMs at %.3f of peak, smaller ones slower "
                "(calib.c)\n",
                gm.rate);
        return;
    }
    char origin[TP_NAME_MAX + 32] = "a hardware profile";
    if (gm.profile[0])
        snprintf(origin, sizeof origin, "data/hardware/%s.json", gm.profile);
    fprintf(f,
            "  GEMM model      kernel-level: measured matmul rate %.3f of peak (%s)\n"
            "                  x %.3f sustained; %g x %g tiles in waves on %g SMs\n",
            gm.rate, origin, gm.gemm_sw, g->eff.tile_m > 0.0 ? g->eff.tile_m : 128.0,
            g->eff.tile_n > 0.0 ? g->eff.tile_n : 256.0, floor(g->eff.sm_count));
}

/* The rate attention runs at (docs/model.md 2). */
static void section_attn_model(FILE *f, const tp_config *c)
{
    if (!c->train.flash_attn) {
        fprintf(f,
                "  attention       unfused: its matmuls as GEMMs, the scores at HBM bandwidth\n");
        return;
    }
    tp_io_gemm_model gm;
    tp_io_gemm_model_of(&c->gpu, c->train.precision, &gm);
    tp_io_attn_model_of(c, &gm);
    fprintf(f, "  attention       FlashAttention at %.3f of the 16-bit peak", gm.attn);
    if (gm.attn_kernel > 0.0) {
        char origin[TP_NAME_MAX + 32] = "the profile's";
        if (gm.profile[0])
            snprintf(origin, sizeof origin, "data/hardware/%s.json", gm.profile);
        fprintf(f, ": best kernel %.3f of peak\n                  (%s) x %.4g sustained\n",
                gm.attn_kernel, origin, gm.attn_sw);
    } else {
        fprintf(f, "\n                  (%s)\n",
                gm.kernel ? "the profile measured no attention kernel: from its matmul rate"
                          : "a fitted fraction, calib.c");
    }
    if (gm.attn_ampere_rel < 1.0)
        fprintf(f, "                  x %.3f: a kernel written for Ampere on this GPU\n",
                gm.attn_ampere_rel);
    if (gm.attn_head_dim_rel < 1.0)
        fprintf(f, "                  x %.3f: heads of %lld, narrower than 128\n",
                gm.attn_head_dim_rel, (long long)tp_head_dim(&c->model));
    if (gm.attn_seq_rel < 1.0) {
        fprintf(f, "                  x %.3f: kernel calls of %.0f tokens", gm.attn_seq_rel,
                gm.attn_seq_tokens);
        /* "shorter than 16k" says which calls are: the global ones, or
         * only the windowed or chunked layers' */
        bool global_short = gm.attn_seq_tokens < 16384.0;
        if (gm.attn_local_tokens > 0.0)
            fprintf(f, " (%.0f in %s layers%s)", gm.attn_local_tokens,
                    c->model.attention_chunk > 0 ? "chunked" : "windowed",
                    gm.attn_seq_measured || global_short ? "" : ", under 16k");
        fprintf(f, "%s\n",
                gm.attn_seq_measured ? ": the profile's attention sweep"
                : global_short       ? ", shorter than 16k"
                                     : "");
    }
}

/* The host floor of dropless MoE layers (docs/model.md 2b). */
static void section_moe_host(FILE *f, const tp_config *c)
{
    tp_io_moe_host h;
    if (!tp_io_moe_host_of(c, &h))
        return;
    if (h.floor_s > 0.0)
        fprintf(f,
                "  MoE host floor  %.2f ms + %lld local expert%s x %.3f ms = %.2f ms per MoE "
                "layer\n"
                "                  (forward and backward; dropless layers wait on the host)\n",
                h.layer_s * 1e3, (long long)h.local_experts, h.local_experts == 1 ? "" : "s",
                h.expert_s * 1e3, h.floor_s * 1e3);
    else
        fprintf(f, "  MoE host floor  none (%s)\n", h.why_none);
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
    section_gemm_model(f, g, t->precision);
    section_attn_model(f, c);
    section_moe_host(f, c);
    if (t->etp > 0 && t->etp != t->tp)
        /* MoE parallel folding: the expert layers' own layout */
        fprintf(f,
                "  parallelism     TP %lld x PP %lld x CP %lld x DP %lld = %lld GPUs; experts "
                "ETP %lld x EP %lld x EDP %lld x PP %lld; sequence parallel %s\n",
                (long long)t->tp, (long long)t->pp, (long long)t->cp, (long long)r->dp,
                (long long)(t->tp * t->pp * t->cp * r->dp), (long long)t->etp, (long long)t->ep,
                (long long)tp_train_edp(t), (long long)t->pp, t->sp ? "on" : "off");
    else
        fprintf(f,
                "  parallelism     TP %lld x PP %lld x CP %lld x DP %lld = %lld %s; EP %lld "
                "(%s); sequence parallel %s\n",
                (long long)t->tp, (long long)t->pp, (long long)t->cp, (long long)r->dp,
                (long long)(t->tp * t->pp * t->cp * r->dp),
                tp_io_plural((double)(t->tp * t->pp * t->cp * r->dp), "GPU", "GPUs"),
                (long long)t->ep, r->dp % t->ep == 0 ? "within DP" : "over CP x DP",
                t->sp ? "on" : "off");
    fprintf(f, "  pipeline        schedule %s", tp_io_schedule_name(t->schedule));
    if (t->vpp > 1)
        fprintf(f, " with %lld virtual stages per GPU", (long long)t->vpp);
    if (t->first_stage_layers > 0 || t->last_stage_layers > 0)
        fprintf(f, "; layers on first stage %lld, last stage %lld",
                (long long)r->stage_first.layers, (long long)r->stage_last.layers);
    if (t->pp_split == TP_PP_SPLIT_IN_ORDER && t->pp > 1)
        fprintf(f, "; layers in order over %lld virtual stages: first stage %lld, last stage %lld",
                (long long)(t->pp * t->vpp), (long long)r->stage_first.layers,
                (long long)r->stage_last.layers);
    fprintf(f, "\n");
    fprintf(f, "  memory savers   ZeRO stage %d; recompute %s", t->zero,
            tp_io_recompute_name(t->recompute));
    if (t->recompute == TP_RECOMPUTE_FULL)
        fprintf(f, " (every %lld %s)", (long long)t->recompute_every,
                tp_io_plural((double)t->recompute_every, "layer", "layers"));
    if (t->recompute == TP_RECOMPUTE_FULL && t->recompute_layers > 0)
        fprintf(f, " of the first %lld layers per stage", (long long)t->recompute_layers);
    if (t->recompute == TP_RECOMPUTE_SELECTIVE && t->recompute_modules) {
        char mods[96];
        fprintf(f, " (modules %s)",
                tp_io_recompute_modules_text(t->recompute_modules, mods, sizeof mods));
    }
    if (t->offload_params != TP_OFFLOAD_NONE)
        fprintf(f, "; weights offloaded to %s",
                t->offload_params == TP_OFFLOAD_NVME ? "NVMe" : "CPU");
    if (t->offload_act_layers > 0)
        fprintf(f, "; activations of %lld %s offloaded to CPU", (long long)t->offload_act_layers,
                tp_io_plural((double)t->offload_act_layers, "layer", "layers"));
    if (c->opts.fp8_act_cache)
        fprintf(f, "; activations cached in fp8");
    fprintf(f, "; FlashAttention %s\n", t->flash_attn ? "on" : "off");
    fprintf(f, "  training        %s GEMMs, %s gradients, optimizer %s (%s master weights)%s%s%s\n",
            tp_io_precision_name(t->precision), tp_io_dtype_name(t->grad_dtype),
            tp_io_optimizer_name(&t->optimizer), t->optimizer.master_weights ? "fp32" : "no",
            t->dropout ? ", dropout" : "", t->fused_ce ? ", fused cross-entropy" : "",
            !t->fp8_param_gather            ? ""
            : t->fp8_recipe == TP_FP8_NVFP4 ? ", fp4 weights and parameter gather"
                                            : ", fp8 weights and parameter gather");
    if (t->fp8_recipe != TP_FP8_DELAYED)
        fprintf(f, "  fp8 recipe      %s%s\n", tp_io_recipe_names[t->fp8_recipe],
                t->fp8_recipe == TP_FP8_NVFP4 ? " (GEMMs at the fp4 peak)" : "");
    fprintf(f, "  batch           micro-batch %lld %s x gradient accumulation %lld x DP %lld\n",
            (long long)t->micro_batch, plural(t->micro_batch, "sequence", "sequences"),
            (long long)r->grad_accum, (long long)r->dp);
    fprintf(f,
            "                  = global batch %s %s = %s tokens per step (sequence length "
            "%lld tokens)\n",
            tp_io_commas(t->global_batch, a, sizeof a),
            plural(t->global_batch, "sequence", "sequences"),
            tp_io_commas(t->global_batch * t->seq_len, b, sizeof b), (long long)t->seq_len);
    if (t->local_batch > 0) {
        long long runs = (long long)r->schedule_runs;
        fprintf(
            f, "  local batch     %lld %s per DP rank in one schedule run: %lld run%s per step%s\n",
            (long long)t->local_batch, plural(t->local_batch, "sequence", "sequences"), runs,
            runs == 1 ? "" : "s",
            t->pp > 1 && runs > 1 ? ", each filling and draining the pipeline" : "");
    }
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
    char tps[32];
    fprintf(f, "  tokens          %s tokens/step\n",
            tp_io_commas((int64_t)llround(fl->tokens_per_step), tps, sizeof tps));
}

static void mem_line(FILE *f, const char *label, double bytes)
{
    fprintf(f, "  %-26s %10.2f GiB %10.2f GB\n", label, bytes / TP_GIB, bytes / TP_GB);
}

/* A part of the line above, when there is one: TransformerEngine's fp8
 * weight copies (docs/model.md 6), its userbuffers (model.md 5). */
static void mem_part(FILE *f, const char *label, double bytes)
{
    if (bytes > 0.0)
        fprintf(f, "    %-24s %10.2f GiB %10.2f GB\n", label, bytes / TP_GIB, bytes / TP_GB);
}

static void section_memory(FILE *f, const tp_config *c, const tp_result *r)
{
    const tp_memory *m = &r->memory;
    if (c->train.schedule == TP_SCHED_DUALPIPE) { /* a rank holds two stages (memory.c 4b) */
        int64_t p = c->train.pp, j = m->stage < p - 1 - m->stage ? m->stage : p - 1 - m->stage;
        fprintf(f,
                "\nMemory on the heaviest GPU (pipeline rank %lld, 0-based, of %lld: stages %lld "
                "and %lld under DualPipe",
                (long long)m->stage, (long long)p, (long long)j, (long long)(p - 1 - j));
    } else {
        fprintf(f, "\nMemory on the heaviest GPU (pipeline stage %lld, 0-based, of %lld",
                (long long)m->stage, (long long)c->train.pp);
    }
    fprintf(f,
            ": %lld %s, "
            "%.4g parameters held, %.3g %s of activations in flight)\n",
            (long long)m->layers, tp_io_plural((double)m->layers, "layer", "layers"),
            m->params_on_gpu, m->inflight_microbatches,
            tp_io_plural(m->inflight_microbatches, "micro-batch", "micro-batches"));
    fprintf(f, "  %-26s %14s %13s\n", "component", "GiB (2^30 B)", "GB (1e9 B)");
    mem_line(f, "weights", m->weights_bytes);
    if (c->train.zero < 3)
        mem_part(f, "of which fp8 copies", m->fp8_copies_bytes);
    mem_line(f, "weights gathered (ZeRO-3)", m->weights_gathered_bytes);
    if (c->train.zero >= 3)
        mem_part(f, "of which fp8 copies", m->fp8_copies_bytes);
    mem_line(f, "gradients", m->grads_bytes);
    mem_line(f, "optimizer state", m->optimizer_bytes);
    mem_line(f, "activations", m->activations_bytes);
    mem_line(f, "logits and loss", m->logits_bytes);
    mem_line(f, "communication buffers", m->comm_buffers_bytes);
    mem_part(f, "of which userbuffers", m->userbuffers_bytes);
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
    const tp_train *tr = &c->train;
    if (m->host_bytes > 0.0 && !tr->offload_params && !tr->offload_act_layers)
        fprintf(f, "  host (offload)             %.2f GiB (%.2f GB) per GPU of optimizer state\n",
                m->host_bytes / TP_GIB, m->host_bytes / TP_GB);
    else if (m->host_bytes > 0.0)
        fprintf(f,
                "  host (offload)             %.2f GiB (%.2f GB) per GPU (%s%s%s%s%s), x %lld "
                "GPUs per node\n",
                m->host_bytes / TP_GIB, m->host_bytes / TP_GB,
                tr->offload_optimizer > 0.0 ? "optimizer state" : "",
                tr->offload_optimizer > 0.0 && tr->offload_params == TP_OFFLOAD_CPU ? ", " : "",
                tr->offload_params == TP_OFFLOAD_CPU ? "weights" : "",
                m->act_host_bytes > 0.0 && m->host_bytes > m->act_host_bytes ? ", " : "",
                m->act_host_bytes > 0.0 ? "activations" : "",
                (long long)tp_gpus_per_node(tr, &c->gpu));
    if (m->nvme_bytes > 0.0)
        fprintf(
            f, "  NVMe (offload)             %.2f GiB (%.2f GB) per GPU of weights (not checked)\n",
            m->nvme_bytes / TP_GIB, m->nvme_bytes / TP_GB);
    if (m->fits)
        fprintf(f, "  verdict                    FITS (%.1f%% of capacity)\n",
                100.0 * m->total_bytes / m->capacity_bytes);
    else {
        char reason[TP_REASON_MAX];
        tp_result_reason(r, reason, sizeof reason);
        fprintf(f, "  verdict                    DOES NOT FIT: %s\n",
                reason[0] ? reason : "total exceeds capacity");
    }
    tp_search_binding b; /* the fix search gives its closest layouts (issue 19) */
    if (tp_io_oom_fix(c, r, &b) && tp_io_oom_fix_text(&b)[0])
        fprintf(f, "  fix (one change)           %s\n", tp_io_oom_fix_text(&b));
}

bool tp_io_oom_fix(const tp_config *c, const tp_result *r, tp_search_binding *out)
{
    memset(out, 0, sizeof *out);
    tp_error err = {0};
    if (r->memory.fits || tp_search_binding_eval(c, out, &err) != TP_OK || out->fits) {
        memset(out, 0, sizeof *out);
        return false;
    }
    return true;
}

const char *tp_io_oom_fix_text(const tp_search_binding *b)
{
    const char *semi = strstr(b->text, "; ");
    return semi ? semi + 2 : "";
}

json_t *tp_io_oom_fix_json(const tp_config *c, const tp_result *r)
{
    tp_search_binding b;
    if (!tp_io_oom_fix(c, r, &b))
        return json_null();
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:b}", "binding", b.text, "fix",
                     tp_io_oom_fix_text(&b), "need_tp", (json_int_t)b.need_tp, "need_tp_gpus",
                     (json_int_t)b.need_tp_gpus, "need_pp", (json_int_t)b.need_pp, "need_pp_gpus",
                     (json_int_t)b.need_pp_gpus, "need_cp", (json_int_t)b.need_cp, "need_cp_gpus",
                     (json_int_t)b.need_cp_gpus, "need_zero", b.need_zero, "need_full_recompute",
                     (int)b.need_full_recompute);
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
    if (t->act_offload_s > 0.0 || t->act_offload_bytes > 0.0)
        fprintf(f,
                "    of it activation offload %10.4f s exposed of %.2f GB per step over the host "
                "link (%.0f GB/s)\n",
                t->act_offload_s, t->act_offload_bytes / TP_GB,
                c->opts.pcie_bw_bytes_per_s / TP_GB);
    time_line(f, "TP communication", t->tp_comm_s, t->step_s);
    time_line(f, "CP communication", t->cp_comm_s, t->step_s);
    time_line(f, "EP all-to-all", t->ep_comm_s, t->step_s);
    time_line(f, "PP point-to-point", t->pp_comm_s, t->step_s);
    time_line(f, "pipeline bubble", t->bubble_s, t->step_s);
    time_line(f, "DP / ZeRO communication", t->dp_comm_s, t->step_s);
    if (t->param_offload_bytes > 0.0)
        fprintf(f,
                "    of it parameter offload  %10.4f s exposed of %.2f GB per step over %sthe host "
                "link (%.0f GB/s)\n",
                t->param_offload_s, t->param_offload_bytes / TP_GB,
                c->train.offload_params == TP_OFFLOAD_NVME ? "NVMe and " : "",
                c->opts.pcie_bw_bytes_per_s / TP_GB);
    time_line(f, "optimizer step", t->optimizer_s, t->step_s);
    time_line(f, "step", t->step_s, t->step_s);
    char tps[32], tpg[32];
    if (c->train.schedule == TP_SCHED_DUALPIPE) /* eval.c: F = W, B = 2W */
        fprintf(f,
                "  bubble fraction            %.1f%% of the step, (p-2)/(3m+p-2) (DualPipe);\n"
                "                             %.1f%% of the ideal time, (p-2)/(3m)\n",
                100.0 * t->bubble_of_total, 100.0 * t->bubble_of_ideal);
    else
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

/* The step-time section's low-MFU verdict (the memory section has the OOM one). */
static void section_low_mfu(FILE *f, const tp_config *c, const tp_result *r)
{
    tp_io_low_mfu o;
    tp_io_low_mfu_eval(c, r, &o);
    tp_io_low_mfu_text(f, &o);
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
    section_low_mfu(f, c, r);
    tp_io_collectives_text(f, c, r);
}

/* seed 001 exercise 2: "we measure N tokens/s, what MFU is that?" The
 * 15% band is the step-time model's p90 error on measured runs
 * (docs/ACCURACY.md): outside it the difference is worth a look. */
void tp_io_measured_text(FILE *f, const tp_measured *m)
{
    char tps[32];
    fprintf(f, "\nMeasured throughput\n");
    fprintf(f, "  measured                   %s tokens/s, %.4g s per step\n",
            count_text(m->tokens_per_s, tps, sizeof tps), m->step_s);
    fprintf(f, "  achieved                   MFU %.2f%%, HFU %.2f%% (6N per token: MFU %.2f%%)\n",
            100.0 * m->mfu, 100.0 * m->hfu, 100.0 * m->mfu_6n);
    if (m->predicted_mfu > 0.0)
        fprintf(f, "  against the prediction     %.2f x the predicted MFU %.1f%% (%s)\n", m->ratio,
                100.0 * m->predicted_mfu,
                m->ratio < 0.85   ? "slower than predicted: look for what the model leaves out"
                : m->ratio > 1.15 ? "faster than predicted: the model is pessimistic here"
                                  : "within 15% of the prediction");
}

json_t *tp_io_measured_json(const tp_measured *m)
{
    jb b = {true};
    json_t *o = jb_obj(&b);
    put_real(&b, o, "tokens_per_s", m->tokens_per_s);
    put_real(&b, o, "step_s", m->step_s);
    put_real(&b, o, "mfu", m->mfu);
    put_real(&b, o, "hfu", m->hfu);
    put_real(&b, o, "mfu_6n", m->mfu_6n);
    put_real(&b, o, "predicted_mfu", m->predicted_mfu);
    if (m->predicted_mfu > 0.0)
        put_real(&b, o, "ratio_to_predicted", m->ratio);
    if (!b.ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- collectives (issue 19; counted by the model, src/lib/colls.c) ---- */

static const char *bytes_text(double b, char *buf, size_t n)
{
    if (b >= 1e9)
        snprintf(buf, n, "%.2f GB", b / 1e9);
    else if (b >= 1e6)
        snprintf(buf, n, "%.1f MB", b / 1e6);
    else
        snprintf(buf, n, "%.1f kB", b / 1e3);
    return buf;
}

/* A count per step: whole, or with two decimals where a schedule halves a
 * stage's share or recompute covers part of its layers. */
static const char *coll_count_text(double n, char *buf, size_t size)
{
    double whole = floor(n + 0.5);
    snprintf(buf, size, fabs(n - whole) < 1e-9 * (whole > 1.0 ? whole : 1.0) ? "%.0f" : "%.2f", n);
    return buf;
}

void tp_io_collectives_text(FILE *f, const tp_config *c, const tp_result *r)
{
    tp_coll_row rows[TP_COLL_ROWS_MAX];
    int n = tp_step_collectives(c, r, rows, TP_COLL_ROWS_MAX);
    if (n == 0)
        return;
    if (c->train.pp > 1 && c->train.schedule != TP_SCHED_DUALPIPE)
        fprintf(
            f,
            "\nCollectives per step (one GPU of stage %lld, which sets the step; DP of stage 0)\n",
            (long long)r->time.critical_stage);
    else if (c->train.pp > 1)
        fprintf(
            f,
            "\nCollectives per step (one GPU: stages 0 and %lld, half the micro-batches each; DP "
            "of stage 0)\n",
            (long long)(c->train.pp - 1));
    else
        fprintf(f, "\nCollectives per step (one GPU)\n");
    for (int i = 0; i < n; i++) {
        const tp_coll_row *w = &rows[i];
        char vol[32], cnt[32];
        fprintf(f,
                "  %-26s %s x %s on %lld GPUs (%lld node%s) at %.0f GB/s busbw: %.3g ms each, "
                "%.4f s\n",
                w->name, coll_count_text(w->count, cnt, sizeof cnt),
                bytes_text(w->bytes, vol, sizeof vol), (long long)w->group, (long long)w->nodes,
                w->nodes == 1 ? "" : "s", w->busbw_bytes_per_s / 1e9, w->each_s * 1e3, w->total_s);
    }
    fprintf(f, "  (before overlap: the step-time breakdown above shows what stays exposed)\n");
    if (c->train.tp <= 1)
        return;
    switch (tp_tp_overlap_of(c)) {
    case TP_TP_OVERLAP_NEEDS_SP:
        fprintf(f, "  TP overlap: none: TransformerEngine's userbuffers need sequence "
                   "parallelism (--sp)\n");
        break;
    case TP_TP_OVERLAP_CHUNKED:
        fprintf(f,
                "  TP overlap: TransformerEngine's userbuffers in %lld chunks: one chunk of the "
                "forward\n              reduce-scatters stays exposed, and what the GEMMs "
                "cannot cover\n",
                (long long)c->train.tp);
        break;
    case TP_TP_OVERLAP_SHARE:
        fprintf(f, "  TP overlap: up to %.3f of each pass's TP time hides under its GEMMs\n",
                c->gpu.eff.overlap);
        break;
    default:
        fprintf(f, "  TP overlap: none (--tp-comm-overlap): every TP collective is exposed\n");
        break;
    }
}

json_t *tp_io_collectives_json(const tp_config *c, const tp_result *r)
{
    tp_coll_row rows[TP_COLL_ROWS_MAX];
    int n = tp_step_collectives(c, r, rows, TP_COLL_ROWS_MAX);
    jb b = {true};
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (int i = 0; i < n; i++) {
        json_t *o = jb_obj(&b);
        jb_put_str(&b, o, "name", rows[i].name, "?");
        put_int(&b, o, "group", rows[i].group);
        put_int(&b, o, "nodes", rows[i].nodes);
        put_real(&b, o, "bytes", rows[i].bytes);
        put_real(&b, o, "count", rows[i].count);
        put_real(&b, o, "busbw_bytes_per_s", rows[i].busbw_bytes_per_s);
        put_real(&b, o, "each_s", rows[i].each_s);
        put_real(&b, o, "total_s", rows[i].total_s);
        if (o && json_array_append_new(a, o) != 0)
            b.ok = false;
    }
    if (!b.ok) {
        json_decref(a);
        return NULL;
    }
    return a;
}

/* ---- the low-MFU failure mode (seed 003; issue 19) ---- */

/*
 * Seed 003 names two ways a layout fails: it does not fit (the memory
 * verdict), or it fits and runs slowly. Below TP_IO_LOW_MFU (the low end
 * of the 35-55% large published runs report, docs/ACCURACY.md) each part
 * of the step that costs at least TP_IO_LOW_MFU_PART of it is named with
 * its cause and the change that shrinks it: TP across nodes, a fat
 * pipeline bubble, exposed TP/CP/EP/DP communication, a micro-batch too
 * small for efficient GEMMs.
 */
#define TP_IO_LOW_MFU 0.35
#define TP_IO_LOW_MFU_PART 0.10
#define SMALL_GEMM_TOKENS 2048.0 /* b s / cp below this: GEMMs of few rows */

static void low_add(tp_io_low_mfu *o, const char *cause, const char *fix)
{
    if (o->n >= TP_IO_LOW_MFU_MAX)
        return;
    snprintf(o->item[o->n].cause, sizeof o->item[o->n].cause, "%s", cause);
    snprintf(o->item[o->n].fix, sizeof o->item[o->n].fix, "%s", fix);
    o->n++;
}

void tp_io_low_mfu_eval(const tp_config *c, const tp_result *r, tp_io_low_mfu *o)
{
    memset(o, 0, sizeof *o);
    const tp_time *tm = &r->time;
    const tp_train *t = &c->train;
    if (!tm->computed || !r->memory.fits || !(tm->step_s > 0.0) || tm->mfu >= TP_IO_LOW_MFU)
        return;
    o->low = true;
    o->mfu = tm->mfu;
    double step = tm->step_s, part = TP_IO_LOW_MFU_PART * step;
    int64_t gpn = tp_gpus_per_node(t, &c->gpu);
    char cause[256], fix[256];
    if (t->tp > gpn && tm->tp_comm_s >= part) {
        snprintf(cause, sizeof cause,
                 "TP %lld spans %lld nodes of %lld GPUs: its all-reduces (%.3g s, %.0f%% of the "
                 "step) cross the %.0f GB/s network instead of the %.0f GB/s node links",
                 (long long)t->tp, (long long)((t->tp + gpn - 1) / gpn), (long long)gpn,
                 tm->tp_comm_s, 100.0 * tm->tp_comm_s / step, c->gpu.inter_bw_bytes_per_s / 1e9,
                 c->gpu.intra_bw_bytes_per_s / 1e9);
        snprintf(fix, sizeof fix,
                 "keep TP within a node (--tp %lld or less) and span nodes with PP or DP "
                 "(seed 003's recipe)",
                 (long long)gpn);
        low_add(o, cause, fix);
    } else if (tm->tp_comm_s >= part) {
        snprintf(cause, sizeof cause, "exposed TP communication: %.3g s, %.0f%% of the step",
                 tm->tp_comm_s, 100.0 * tm->tp_comm_s / step);
        snprintf(fix, sizeof fix, "%s a smaller TP with PP or ZeRO for the memory",
                 c->opts.tp_comm_overlap ? "use"
                                         : "overlap it with the GEMMs (--tp-comm-overlap), or use");
        low_add(o, cause, fix);
    }
    if (t->pp > 1 && tm->bubble_s >= part) {
        double m = (double)r->grad_accum, p = (double)t->pp;
        snprintf(cause, sizeof cause,
                 "pipeline bubble: %.3g s, %.0f%% of the step ((p-1)/(m+p-1) with p = %lld "
                 "stages, m = %lld %s)",
                 tm->bubble_s, 100.0 * tm->bubble_s / step, (long long)t->pp,
                 (long long)r->grad_accum,
                 tp_io_plural((double)r->grad_accum, "micro-batch", "micro-batches"));
        snprintf(fix, sizeof fix,
                 "more micro-batches per step (m >= %.0f keeps it near 10%%: a larger global "
                 "batch or a smaller micro-batch), interleaving (--vpp), or fewer stages",
                 ceil(9.0 * (p - 1.0)) > m ? ceil(9.0 * (p - 1.0)) : m);
        low_add(o, cause, fix);
    }
    if (tm->cp_comm_s >= part) {
        snprintf(cause, sizeof cause, "exposed CP communication: %.3g s, %.0f%% of the step",
                 tm->cp_comm_s, 100.0 * tm->cp_comm_s / step);
        low_add(o, cause,
                "a smaller CP (CP pays off for long sequences only), with recompute "
                "or PP for the activation memory");
    }
    if (tm->ep_comm_s >= part) {
        snprintf(cause, sizeof cause, "exposed EP all-to-all: %.3g s, %.0f%% of the step",
                 tm->ep_comm_s, 100.0 * tm->ep_comm_s / step);
        low_add(o, cause, "keep the EP group within a node, or a smaller EP");
    }
    if (tm->dp_comm_s >= part) {
        snprintf(cause, sizeof cause,
                 "exposed DP/ZeRO communication: %.3g s, %.0f%% of the step (ZeRO-%d over %lld "
                 "replicas)",
                 tm->dp_comm_s, 100.0 * tm->dp_comm_s / step, t->zero, (long long)r->dp);
        low_add(o, cause,
                "more work per step to hide it behind (more accumulation or a larger "
                "micro-batch), a lower ZeRO stage, or fewer replicas with more TP/PP");
    }
    double rows = (double)t->micro_batch * (double)t->seq_len / (double)t->cp;
    if (rows < SMALL_GEMM_TOKENS) {
        snprintf(cause, sizeof cause,
                 "tiny micro-batch: %.0f tokens per GPU per micro-batch (micro-batch %lld x "
                 "sequence %lld / CP %lld) make small, inefficient GEMMs",
                 rows, (long long)t->micro_batch, (long long)t->seq_len, (long long)t->cp);
        low_add(o, cause, "a larger micro-batch (fewer accumulation steps) or less CP");
    }
    if (o->n == 0)
        low_add(o,
                "no single part stands out: the compute itself runs below peak (GEMM and "
                "attention efficiency of this shape)",
                "larger matrices per GPU (less TP, a larger micro-batch) or another GPU");
}

void tp_io_low_mfu_text(FILE *f, const tp_io_low_mfu *o)
{
    if (!o->low)
        return;
    fprintf(f, "  verdict                    LOW MFU (%.1f%%, below %.0f%%):\n", 100.0 * o->mfu,
            100.0 * TP_IO_LOW_MFU);
    for (int i = 0; i < o->n; i++)
        fprintf(f, "    - %s;\n      fix: %s\n", o->item[i].cause, o->item[i].fix);
}

json_t *tp_io_low_mfu_json(const tp_io_low_mfu *o)
{
    jb b = {true};
    json_t *j = jb_obj(&b);
    put_bool(&b, j, "low", o->low);
    put_real(&b, j, "threshold", TP_IO_LOW_MFU);
    json_t *a = json_array();
    for (int i = 0; a && i < o->n; i++) {
        json_t *it = jb_obj(&b);
        jb_put_str(&b, it, "cause", o->item[i].cause, "?");
        jb_put_str(&b, it, "fix", o->item[i].fix, "?");
        if (it && json_array_append_new(a, it) != 0)
            b.ok = false;
    }
    jb_set(&b, j, "causes", a);
    if (!b.ok) {
        json_decref(j);
        return NULL;
    }
    return j;
}
