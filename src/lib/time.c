/* SPDX-License-Identifier: MIT */
/*
 * time.c: step-time model, built from the operations of one layer.
 * docs/model.md holds the same equations with their sources; calib.c the
 * constants; docs/ACCURACY.md the error they leave on runs-dev.csv.
 *
 * Files: time.c holds the transformer's layers (dense, MoE, MTP), the
 * stage sums, the pipeline, the data-parallel, optimizer and offload terms
 * and tp__step_time; time_hybrid.c the layers of hybrid models (Mamba-2,
 * Mamba-1, gated delta-net; hybrid.c design note); time_vision.c the
 * vision tower and the mllama cross layers (header 10); kernel.c the
 * attention rate and the MoE host floor the reports state too;
 * time_internal.h
 * the context and cost types they share and the out-of-line entries to
 * time.c's static helpers (which stay static for the hot path's inlining).
 *
 * Symbols (per GPU, per micro-batch): b micro-batch, s sequence, c/t/e/p/d
 * context/tensor/expert/pipeline/data parallel sizes, T = b*s/c tokens, h
 * hidden, q = a*d_h, kv = n_kv*d_h, f MLP width (f_e per expert, f_sh
 * shared), g = 2 for SwiGLU (gate|up) else 1, k top-k, E experts, V padded
 * vocabulary, m micro-batches per step, v virtual stages. Seconds, bytes.
 *
 * 1. GEMMs (forward; backward = data-gradient + weight-gradient = 2x):
 *      QKV  M=T N=(q+2kv)/t K=h      O    M=T N=h K=q/t
 *      FC1  M=T N=g*f/t    K=h       FC2  M=T N=h K=f/t
 *      MoE: router M=T N=E K=h; E/e local experts each with M = T*k*e/E
 *           * (t_e/t) tokens and the FC1/FC2 shapes of f_e split t_e ways
 *           (expert TP t_e = etp, default t); shared experts as FC1/FC2
 *      logits (last stage) M=T N=V/t K=h
 *      MTP modules (last stage) eh_proj M=T N=h/t K=2h, one layer and
 *                             one more logits pass each
 *    time = 2MNK / (peak * eff), eff = gemm * I / (I + I_half), where
 *    I = 1/(1/M + 1/N + 1/K) is the GEMM's arithmetic intensity in
 *    FLOP per 2-byte element. This is the additive roofline
 *    time = [2MNK + 2*I_half*(MK + KN + MN)] / (gemm * peak): a GEMM pays
 *    its FLOPs at the achieved peak plus its operand traffic; small hidden
 *    sizes and high TP (small N or K) run far from peak. The data- and
 *    weight-gradient GEMMs have the same three dimensions, so the same I.
 *    fp8 GEMMs use the fp8 peak and eff.gemm_fp8 (and 1-byte operands, so
 *    I_half in elements is unchanged); everything else stays 16-bit.
 * 1b. With a hardware profile (eff.sm_count and eff.mamf set, --hw-profile):
 *    the kernel-level model replaces eff.gemm and I_half. A GEMM's M x N
 *    output is cut into tile_m x tile_n tiles (cuBLAS's large tiles,
 *    128 x 256 unless the profile says otherwise) and runs in
 *    ceil(tiles / SMs) waves; every wave costs tile_m*tile_n*2K*SMs FLOPs
 *    at peak * eff.mamf (the maximum achievable matmul rate measured on
 *    that GPU, eff.mamf_fp8 for fp8) * eff.gemm_sw (the share a training
 *    step sustains), so a partial last wave and tile padding are paid in
 *    full (tile and wave quantization, NVIDIA's "Matrix Multiplication
 *    Background" guide). The operands (2 bytes per element) cross HBM
 *    once, added: time = that + 2(MK+KN+MN) / (HBM bw * eff.mem_bw).
 * 2. FlashAttention: forward 4*b*s^2*q/(c*t) * 1/2 FLOPs (it skips the
 *    masked half; ring attention with load balancing gives every CP rank
 *    1/c of it), backward 2.5x forward (it recomputes QK^T: 5 matmuls
 *    against 2), at the 16-bit peak times eff.attn (times 1/1.75 for a kernel
 *    written for Ampere on a Hopper or newer GPU, opts.attn_ampere_kernel
 *    and eff.attn_ampere_kernel, calib.c; with a hardware profile eff.attn
 *    is a share of the profile's best kernel, calib.c, and narrow heads pay
 *    tp__attn_head_dim_factor; tp_attn_rate_of). Without FlashAttention
 *    the two matmuls run as GEMMs and the s x s scores cost 8 bytes per
 *    score forward and 16 backward at memory bandwidth, over the causal
 *    half, or with opts.unfused_full_matrix over the whole matrix, which
 *    the batched GEMMs and the mask compute and store (unfused_attention).
 * 2b. Host floor (time_moe.c tp__time_host_floor): with a hardware profile a dropless MoE
 *    layer's forward and backward take at least 1/3 and 2/3 of
 *    eff.moe_host_layer_s + local experts * eff.moe_host_expert_s, the
 *    host's time to issue them after the layer waited on the host for its
 *    experts' token counts; none with a capacity factor or
 *    opts.moe_sync_free.
 * 3. Memory-bound work at HBM bandwidth * eff.mem_bw, forward bytes per
 *    token (backward = 2x): two norms 8h and two residual adds 12h
 *    (divided by t only with sequence parallelism), hidden dropout 10h,
 *    rotary 4(q+kv), activation GeLU 4f / SwiGLU 6f, fp8 casts 2h + 3(q+f)
 *    (TransformerEngine casts every GEMM input; the norm-fused ones cost
 *    1 byte), MoE token dispatch (permute 4h and unpermute 2h per routed
 *    copy + 2h, with EP the expert sort and unsort 8h per copy, not
 *    under opts.moe_node_dispatch's flex dispatcher) and router 8E;
 *    unfused attention dropout 5 B per score each way;
 *    cross-entropy over V/t logits 20 bytes per logit fwd+bwd (8 fused).
 *    opts.eager_elementwise (PyTorch eager, torchtitan 9dec370): norms 72h,
 *    rotary 20(q+kv), SwiGLU 10f, + the attention output's copy 4q and
 *    repeat_kv's 4(q+kv) under GQA (docs/model.md 3).
 *    opts.eager_experts (NeMo AutoModel's gpt-oss experts at ce005dd86):
 *    per routed copy the activation 48f forward and 108f backward instead
 *    of 6f and 12f, the expert biases 16f + 28h and 12f + 28h more
 *    (eager_expert_extra; the backward counted, not 2x).
 * 4. Recompute: full re-runs each layer's forward (compute and its TP/CP/EP
 *    collectives) inside backward (with the block method, recompute_layers
 *    = n, only n of a stage's layers: n / L_s of the stage's recompute); selective re-runs the attention core, or
 *    with Megatron-Core's recompute modules the forward of each module: the
 *    norms (8h bytes per token), the dense MLP (FC1, FC2, activation), the
 *    MoE MLP (router, experts, shared experts, dispatch and its two
 *    all-to-alls), the experts' activation, the shared experts.
 * 5. Collectives (comm.c, ring alpha-beta, link by rank order TP, CP, DP,
 *    PP): TP 2 all-reduces of T*h*2 bytes per layer forward, 2 backward
 *    (reduce-scatter + all-gather with SP: same time); exposed in full
 *    unless opts.tp_comm_overlap, then hidden up to eff.overlap of it under
 *    the layer's GEMMs, or with opts.tp_overlap_chunked (TransformerEngine's
 *    userbuffers) all but one chunk of the forward reduce-scatters
 *    (tp_exposed); a MoE layer with t_e != t pays one all-reduce on the
 *    TP group and one of t_e/t times the bytes on the ETP group. CP: c-1 ring steps of K,V (2*T*kv/t*2 bytes)
 *    forward and K,V + dK,dV backward, each hidden under its step's
 *    attention (1/c of it) up to eff.overlap (formulas.md 4.8). EP: 4
 *    all-to-alls of (T/t)*k*h*2 bytes per MoE layer (formulas.md 4.9),
 *    or with opts.moe_node_dispatch one copy per destination node over the
 *    NIC and one per destination GPU over NVLink (time_moe.c ep_node_a2a;
 *    inside one node, an all-to-all of one copy per GPU), exposed unless
 *    opts.moe_a2a_overlap (time_moe.c). PP: per micro-batch and
 *    virtual stage one activation T*h*2/t (SP, or Megatron's scatter/
 *    gather optimisation) forward and one gradient backward, p2p; exposed with 1F1B/GPipe, overlapped with
 *    compute (up to eff.overlap) by the interleaved schedule.
 * 6. Pipeline (Narayanan 2021): per-micro-batch time t_i of every stage
 *    (forward + backward + recompute + exposed TP/CP/EP), stage 0 adding
 *    the embedding and the last stage the logits and loss; the step is
 *    m * t_max + (sum_i t_i - t_max) / v: the bubble is (p-1)(t_f+t_b)/v
 *    for uniform stages (1F1B, GPipe v = 1; interleaved v). DualPipe
 *    (dualpipe_step): the busiest rank's m chunks at its stage pair's mean,
 *    the EP all-to-all hidden in its paired chunks, the bubble
 *    (p/2 - 1)(F&B + B - 3W), the p2p overlapped as the interleaved one's.
 *    Expert groups follow Megatron-Core's expert rank order ETP, EP, EDP, PP
 *    (parallel_state.py): the EP group's members are t_e ranks apart, so it
 *    stays inside a node when t_e * e <= the node, whatever c is.
 * 7. Data parallel over D = d*c ranks (experts over d_e = GPUs/(t_e*e*p)), on stage 0, which
 *    finishes its backward last (formulas.md 4.6-4.7): ZeRO-0 all-reduce of
 *    the gradients; ZeRO-1/2 reduce-scatter of gradients + all-gather of
 *    16-bit parameters; ZeRO-3 per micro-batch an all-gather forward, an
 *    all-gather backward and a reduce-scatter (one per layer). With
 *    opts.dp_comm_overlap, up to eff.overlap of the gradient traffic hides
 *    under the last micro-batch's backward, the parameter gather under the
 *    first forward, ZeRO-3 gathers under each micro-batch's forward and
 *    backward; one layer's share is always exposed.
 * 8. Optimizer: every parameter this GPU updates (its ZeRO shard: dense
 *    over DP x CP, routed experts over EDP; updated_params) reads and
 *    writes its master weight and moments, reads its gradient twice (norm,
 *    update) and writes the 16-bit weight, at memory bandwidth.
 *    With fp8 parameter gather the weights are 1 B (tp_state_bytes_per_param):
 *    the ZeRO parameter all-gather moves half the bytes and the update
 *    writes fp8 weights.
 *
 * 9. Optimizer offload (tp_train.offload_optimizer = f; time_offload.c):
 *    f of the update runs on the CPU: gradients down (grad bytes) and
 *    weights up (weight bytes) over the host link at
 *    opts.pcie_bw_bytes_per_s, the CPU Adam at
 *    opts.host_mem_bw_bytes_per_s / GPUs per node reading and
 *    writing master and moments and reading an fp32 gradient twice; counted
 *    in optimizer_s (and reported as offload_s). When it is the largest
 *    part the bottleneck reads "optimizer offload (host link and CPU)": the
 *    step is transfer-bound.
 * 10. A vision tower (vision.c design note) runs on stage 0 with the
 *    embedding: its blocks' GEMMs, core and element-wise work as above over
 *    b*N patches, two TP all-reduces per block each way, the projector; a
 *    frozen encoder has no backward. mllama cross layers add their
 *    difference from a self-attention layer on the stages that hold them
 *    (with CP they keep the self-attention's ring exchange: an
 *    over-estimate, stated in vision.c).
 * 11. Parameter offload (offload_params; time_offload.c): per gather
 *    the weight shard comes up over the host link (NVMe: the node's drives
 *    shared by its GPUs, the slower of the two), prefetched under compute up to
 *    eff.overlap as ZeRO-3's gathers, and goes back after the update; in
 *    dp_comm_s (param_offload_s). Activation offload (offload_act_layers;
 *    time_offload.c): the offloaded layers' activations down during the
 *    forward and up during the backward, each hidden under that pass up to
 *    eff.overlap; in recompute_s (act_offload_s). FP8 recipes
 *    (fp8_recipe): the cast bytes of header 3 scaled (fp8_cast_ratio),
 *    NVFP4's GEMMs at the GPU's fp4 peak. Bottleneck: "parameter offload
 *    (host link|NVMe)", "activation offload (host link)" when
 *    transfer-bound.
 * Outputs: parts sum to step_s; tokens/s = B*s / step; MFU and HFU use the
 * dense peak of the precision used (fp8 runs: the fp8 peak).
 * Cost: no loops over layers or stages (closed forms per stage type),
 * a few dozen divisions, no libm calls.
 * Known approximations: GEMM efficiency from arithmetic intensity only (no
 * wave quantisation); attention efficiency independent of head dim and
 * sequence; kernel launch and framework overheads not modelled except
 * through the fitted efficiencies; MoE routing assumed balanced; 1F1B p2p
 * never overlapped, all-to-all only under opts.moe_a2a_overlap (Megatron-
 * Core's combined 1F1B: time_moe.c tp__time_ep_overlap); ZeRO-3 per-micro-batch traffic
 * is not inside the bubble.
 */
#include <math.h>
#include <string.h>

#include "time_internal.h"

/* Fraction of the step below which no part is called the bottleneck. */
#define BOTTLENECK_MIN_SHARE 0.05

/* Bytes per attention score of an unfused attention dropout, forward and
 * again backward: read 2 + write 2 + 1-byte mask (torch dropout, fp16/bf16). */
#define ATTN_DROPOUT_BYTES 5.0

static double compute_of(const cost *x)
{
    return x->fwd + x->bwd;
}

static double comm_of(const cost *x)
{
    return x->tp_f + x->tp_b + x->cp_f + x->cp_b + x->ep_f + x->ep_b;
}

/* Per-micro-batch time of a stage: everything on its critical path. */
static double stage_time(const cost *x)
{
    return compute_of(x) + x->recomp + comm_of(x);
}

/*
 * Kernel-level GEMM time (header 1b): the output is cut into tile_m x
 * tile_n tiles, run in waves of one tile per SM; the last wave's idle SMs
 * and the tiles' padding past M and N are paid at the full-wave rate. The
 * operands' one pass over HBM is added, not overlapped (max): the additive
 * form predicted the held-out source families better (docs/ACCURACY.md).
 */
/* ceil(x) for x >= 0 without a libm call (the evaluation's hot path). */
static double ceil_pos(double x)
{
    if (!(x < 4e18))
        return x; /* whole already at this size (and never reached: dims are bounded) */
    double i = (double)(int64_t)x;
    return i < x ? i + 1.0 : i;
}

/* ceil(a / b) for a >= 0, b >= 1 whole, by the reciprocal inv_b = 1 / b
 * (a multiply, not a divide: the hot path), corrected to the exact
 * quotient's ceiling where the rounded reciprocal put it one off. */
static double ceil_div(double a, double b, double inv_b)
{
    double q = ceil_pos(a * inv_b);
    if (q * b < a)
        return q + 1.0;
    if (q >= 1.0 && (q - 1.0) * b >= a)
        return q - 1.0;
    return q;
}

static double gemm_shape_s(const ctx *x, double M, double N, double K)
{
    double tiles = ceil_div(M, x->tile_m, x->inv_tile_m) * ceil_div(N, x->tile_n, x->inv_tile_n);
    double compute = ceil_div(tiles, x->sms, x->inv_sms) * K * x->wave_s_per_k;
    double bytes = 2.0 * (M * K + K * N + M * N);
    return compute + bytes * x->s_per_byte;
}

/* Forward time of one GEMM (M x K) x (K x N), additive roofline (header 1). */
static double gemm_s(const ctx *x, double M, double N, double K)
{
    if (!(M > 0.0 && N > 0.0 && K > 0.0))
        return 0.0;
    if (x->sms > 0.0)
        return gemm_shape_s(x, M, N, K);
    double flops = 2.0 * M * N * K;
    double traffic = 2.0 * x->half * (M * K + K * N + M * N); /* = flops * I_half / I */
    return (flops + traffic) / (x->peak_gemm * x->gemm_eff);
}

/* Exposed part of `comm` seconds overlapped with a window of compute. */
static double exposed(double comm, double window, double ov)
{
    double hidden = min2(ov * comm, window);
    return comm - (hidden > 0.0 ? hidden : 0.0);
}

/*
 * Attention without FlashAttention (Megatron-LM 2021, Megatron-DeepSpeed;
 * issue 17), counted from its operations. Per head and micro-batch two
 * batched GEMMs (baddbmm for QK^T, bmm for AV) over the whole s x s score
 * matrix: the causal mask is applied to their output, so the masked half is
 * computed and stored too (the FLOP conventions' causal half is FlashAttention's
 * saving, not theirs); with CP each rank has s/c query rows against s keys.
 * Their FLOPs (2 d_qk + 2 d_v per score forward, twice that backward) run at
 * the large-GEMM rate; what their short head-size dimension costs is the
 * scores' HBM traffic, counted apart over the whole matrix: QK^T writes the
 * 16-bit scores, the fused softmax reads and writes them, AV reads them (8 B
 * forward, 16 B backward); attention dropout (Megatron --attention-dropout,
 * on with t->dropout) reads and writes them and writes a 1-byte mask forward,
 * and reads the gradient and the mask and writes the gradient backward (5 B
 * each). Under opts.unfused_full_matrix (opt-in: counting the whole matrix
 * removes the Megatron 2021 series' error slope with model size but does not
 * improve the held-out error as a whole, docs/ACCURACY.md); else the causal
 * half of the same, as before issue 17.
 */
static void unfused_attention(const ctx *x, double *fwd, double *bwd)
{
    const tp_config *c = x->c;
    const tp_model *m = &c->model;
    double b = (double)c->train.micro_batch, s = (double)c->train.seq_len;
    double a = (double)m->num_heads;
    double heads = b * a / x->tt; /* (micro-batch, head) pairs on this GPU */
    double sq = s / x->cc;        /* query rows on this CP rank */
    double d_qk = x->q / a, d_v = (double)tp__v_width(m) / a;
    double scores = heads * sq * s;
    double flops = 2.0 * scores * (d_qk + d_v); /* QK^T and AV forward */
    double drop = c->train.dropout ? ATTN_DROPOUT_BYTES : 0.0;
    double rate = x->peak_gemm * x->gemm_eff;
    *fwd = flops / rate + (8.0 + drop) * scores / x->mem_bw;
    *bwd = 2.0 * flops / rate + (16.0 + drop) * scores / x->mem_bw;
}

/* Forward and backward time of an attention core of `flops` forward FLOPs
 * over `scores` scores (used without FlashAttention only; header 2). */
static void core_time(const ctx *x, double flops, double scores, double *fwd, double *bwd)
{
    const tp_train *t = &x->c->train;
    if (t->flash_attn) {
        *fwd = flops / (x->peak_attn * x->attn_eff);
        *bwd = 2.5 * *fwd;
        return;
    }
    /* 16-bit scores: QK^T writes them, the fused softmax reads and
     * writes them, AV reads them (8 B forward, 16 B backward); attention
     * dropout (Megatron --attention-dropout, on with t->dropout) reads
     * and writes them and writes a 1-byte mask forward, and reads the
     * gradient and the mask and writes the gradient backward (5 B each) */
    double drop = t->dropout ? ATTN_DROPOUT_BYTES : 0.0;
    *fwd = flops / (x->peak_gemm * x->gemm_eff) + (8.0 + drop) * scores / x->mem_bw;
    *bwd = 2.0 * flops / (x->peak_gemm * x->gemm_eff) + (16.0 + drop) * scores / x->mem_bw;
}

/* Attention, element-wise work and the collectives every layer has. */
static void attention_part(const ctx *x, cost *o, module_parts *mp, double *rep_bytes,
                           double *shard_bytes)
{
    const tp_config *c = x->c;
    const tp_train *t = &c->train;
    double T = x->T, tt = x->tt, h = x->h, q = x->q, kv = x->kv;
    double b = (double)t->micro_batch, s = (double)t->seq_len;

    double g_qkv, g_o;
    if (tp__is_mla(&c->model)) {
        /* MLA (model.c design note): the down-projections run whole on every
         * TP rank, the up-projections and o_proj split t ways */
        const tp_model *m = &c->model;
        double a = (double)m->num_heads, rq = (double)m->q_lora_rank;
        double lat = (double)(m->kv_lora_rank + m->qk_rope_head_dim);
        double kv_up = a * (double)(m->qk_nope_head_dim + m->v_head_dim);
        g_qkv = gemm_s(x, T, lat, h) + gemm_s(x, T, kv_up / tt, (double)m->kv_lora_rank);
        g_qkv +=
            rq > 0.0 ? gemm_s(x, T, rq, h) + gemm_s(x, T, q / tt, rq) : gemm_s(x, T, q / tt, h);
        if (x->modules) /* mla_up_proj: the up-projections and RoPE (4(q+kv) B) again */
            mp->up_fwd = gemm_s(x, T, kv_up / tt, (double)m->kv_lora_rank) +
                         gemm_s(x, T, q / tt, rq > 0.0 ? rq : h) +
                         T * 4.0 * (q + kv) / tt / x->mem_bw;
        g_o = gemm_s(x, T, h, (double)tp__v_width(m) / tt);
    } else {
        double qg = c->model.attn_output_gate ? 2.0 * q : q; /* queries and output gates */
        g_qkv = gemm_s(x, T, (qg + 2.0 * kv) / tt, h);
        g_o = gemm_s(x, T, h, q / tt);
    }
    o->gemm_fwd += g_qkv + g_o;

    /* attention core: per CP rank 1/c of the causal work (header 2), QK^T
     * over the q width and AV over the v width, capped by a window */
    double qv = 0.5 * (q + (double)tp__v_width(&c->model));
    double span = tp__attn_span(t); /* keys per query row: s, or the packed example's N */
    double wsc = tp__window_scale(&c->model, span, true);
    double core_flops = 4.0 * b * s * span * qv / (x->cc * tt) * 0.5 * wsc;
    double attn_f, attn_b;
    if (!t->flash_attn && c->opts.unfused_full_matrix) {
        unfused_attention(x, &attn_f, &attn_b);
    } else {
        /* the s x s scores matter without FlashAttention only (the causal
         * half of unfused_attention's work; its comment gives the bytes) */
        double scores =
            t->flash_attn ? 0.0 : b * ((double)c->model.num_heads / tt) * s * s / x->cc * 0.5 * wsc;
        core_time(x, core_flops, scores, &attn_f, &attn_b);
    }
    o->attn_fwd += attn_f;
    o->fwd += g_qkv + g_o + attn_f;
    o->bwd += 2.0 * (g_qkv + g_o) + attn_b;

    /* element-wise bytes per token (header 3) */
    bool eager = c->opts.eager_elementwise;
    double norms = eager ? 72.0 * h : 8.0 * h; /* two norms */
    *rep_bytes += norms + 12.0 * h + (t->dropout ? 10.0 * h : 0.0);
    if (x->modules)
        mp->norm_fwd = T * norms / (x->sp ? tt : 1.0) / x->mem_bw;
    if (c->model.pos == TP_POS_ROTARY)
        *shard_bytes += (eager ? 20.0 : 4.0) * (q + kv);
    if (eager) /* the attention output made contiguous; repeat_kv's copies */
        *shard_bytes += 4.0 * q + (kv < q ? 4.0 * (q + kv) : 0.0);
    if (t->precision == TP_PREC_FP8) {
        *rep_bytes += 2.0 * h * x->cast;
        *shard_bytes += 3.0 * q * x->cast;
    }

    /* CP ring exchange of K and V, hidden under the step's attention (4.8) */
    if (t->cp > 1) {
        double kv_bytes = T * (double)tp__kv2_width(&c->model) / tt * 2.0;
        double step_f =
            tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_P2P, kv_bytes, &x->cp_pl);
        double steps = x->cc - 1.0;
        o->cp_f += steps * exposed(step_f, attn_f / x->cc, x->ov);
        o->cp_b += steps * exposed(2.0 * step_f, attn_b / x->cc, x->ov);
    }
}

/*
 * Exposed part of a layer's TP collectives, `raw` seconds each way, beside
 * the GEMMs of the pass (header 5), by kernel.c's tp_tp_overlap_of (x->tpo,
 * as the reports say). Chunked: TransformerEngine's userbuffers as
 * Megatron-Bridge configures them (training/comm_overlap.py, every
 * TransformerLayerTPOverlapCfg): forward, the QKV and FC1 all-gathers run
 * as a ring exchange, GEMM chunk i on the shard that has arrived while the
 * next arrives, and the proj and FC2 reduce-scatters are split with their
 * GEMMs into chunks sent while the next is computed, so one chunk of the
 * reduce-scatter half (raw / 2 over t chunks) stays exposed; backward, the
 * dgrad all-gathers run as a ring exchange and the rest in bulk beside the
 * other GEMM of the pair, nothing exposed; what the GEMMs cannot cover
 * stays exposed. The SMs the userbuffers take from the GEMMs (1 for a ring
 * exchange, 2 to 32 in bulk or split) are not charged. Share (torchtitan's
 * async TP, or the flag alone): up to eff.overlap hides under the GEMMs.
 */
static void tp_exposed(const ctx *x, double raw, double gemm_f, double gemm_b, cost *o)
{
    switch (x->tpo) {
    case TP_TP_OVERLAP_CHUNKED:
        o->tp_f += max2(0.5 * raw / x->tt, raw - gemm_f);
        o->tp_b += max2(0.0, raw - gemm_b);
        break;
    case TP_TP_OVERLAP_SHARE:
        o->tp_f += exposed(raw, gemm_f, x->ov);
        o->tp_b += exposed(raw, gemm_b, x->ov);
        break;
    default: o->tp_f += raw; o->tp_b += raw;
    }
}

/* TP collectives of one layer: 2 all-reduces forward, 2 backward (4.4). */
static void tp_part(const ctx *x, cost *o)
{
    const tp_config *c = x->c;
    if (c->train.tp <= 1)
        return;
    double X = x->T * x->h * 2.0;
    double ar = tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_ALL_REDUCE, X, &x->tp_pl);
    /* parallel attention + MLP (Falcon): their outputs are summed before one all-reduce */
    double raw = (c->model.parallel_attn ? 1.0 : 2.0) * ar;
    tp_exposed(x, raw, o->gemm_fwd, 2.0 * o->gemm_fwd, o);
}

/*
 * TP collectives of a MoE layer whose experts have their own TP size t_e
 * (MoE parallel folding): the attention's all-reduce on the TP group, and
 * the expert part's on the ETP group, over t_e / t times the tokens (the
 * ETP group gathers the tokens its members route). With t_e = t this is
 * tp_part's pair of all-reduces; moe_layer then calls tp_part itself.
 */
static void tp_part_folded(const ctx *x, cost *o)
{
    const tp_config *c = x->c;
    double X = x->T * x->h * 2.0;
    double raw = 0.0;
    if (c->train.tp > 1)
        raw += tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_ALL_REDUCE, X, &x->tp_pl);
    if (x->et > 1.0)
        raw += tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_ALL_REDUCE,
                                  X * (x->et / x->tt), &x->etp_pl);
    tp_exposed(x, raw, o->gemm_fwd, 2.0 * o->gemm_fwd, o);
}

/* Recompute of one layer (header 4). */
static void recompute_part(const ctx *x, cost *o, const module_parts *mp)
{
    switch (x->c->train.recompute) {
    case TP_RECOMPUTE_FULL: o->recomp = o->fwd + o->tp_f + o->cp_f + o->ep_f; break;
    case TP_RECOMPUTE_SELECTIVE: {
        /* Megatron: the attention core; per-op SAC: the element-wise ops
         * and every other matmul (the attention output is kept) */
        unsigned rc = tp_recompute_modules(&x->c->train);
        if (x->c->opts.sac_ops || rc == TP_RC_CORE_ATTN) {
            o->recomp = x->c->opts.sac_ops ? o->elem_fwd + o->sac_gemm : o->attn_fwd;
            break;
        }
        /* Megatron-Core's recompute modules: each re-runs its forward */
        double r = 0.0;
        if (rc & TP_RC_CORE_ATTN)
            r += o->attn_fwd;
        if (rc & TP_RC_LAYERNORM)
            r += mp->norm_fwd;
        if (rc & TP_RC_MLP)
            r += mp->mlp_fwd;
        if (rc & TP_RC_MOE) {
            r += mp->moe_fwd;
        } else {
            if (rc & TP_RC_MOE_ACT)
                r += mp->act_fwd;
            if (rc & TP_RC_SHARED_EXPERTS)
                r += mp->shared_fwd;
        }
        if (rc & TP_RC_MLA_UP_PROJ)
            r += mp->up_fwd;
        o->recomp = r;
        break;
    }
    case TP_RECOMPUTE_NONE:
    default: o->recomp = 0.0; break;
    }
}

static double act_bytes_per_f(const tp_model *m)
{
    return tp_mlp_gated(m->mlp) ? 6.0 : 4.0;
}

/* With opts.eager_elementwise: eager SwiGLU runs silu (read 2, write 2) and
 * the product (read 4, write 2) apart, 10 B per element; GeLU is one kernel. */
static double act_bytes(const ctx *x)
{
    const tp_model *m = &x->c->model;
    double g = act_bytes_per_f(m);
    return x->c->opts.eager_elementwise && tp_mlp_gated(m->mlp) ? g + 4.0 : g;
}

/* opts.eager_experts: NeMo AutoModel's GroupedExpertsDeepEP runs gpt-oss's
 * expert activation, quick_geglu_deepep (components/moe/layers.py at
 * ce005dd86, the code of its published table), as eager PyTorch ops on the
 * interleaved 2f-wide FC1 output: two clamps of strided halves (each reads
 * the whole row), alpha * g, sigmoid, g * sigmoid, u + 1, the product, the
 * product with the fp32 routing weight (an fp32 result) and the cast back:
 * 48f bytes per routed copy forward against the fused kernel's 6f. Autograd
 * runs each op's backward and the strided slices' (zeros, then a strided
 * copy, then the sum of both halves): 108f against 12f. With expert biases
 * (linear_bias), _apply_bias adds them expert by expert over torch.split
 * and torch.cat: after FC1 16f forward (add, cat) and 12f backward (the
 * bias sum, split's cat), after FC2 with the routing weight in fp32 28h
 * forward (b * p, add, cat, cast) and 28h backward (the casts, split's
 * cat, the bias gradient). Bytes per routed copy beyond the fused
 * activation's, f the expert width and he the FC2 output width; docs/model.md
 * 3 lists every op. */
static void eager_expert_extra(const tp_model *m, double f, double he, double *fwd, double *bwd)
{
    *fwd = (48.0 - 6.0) * f;
    *bwd = (108.0 - 12.0) * f;
    if (m->linear_bias) {
        *fwd += 16.0 * f + 28.0 * he;
        *bwd += 12.0 * f + 28.0 * he;
    }
}

/* Forward bytes per token of the routed experts' element-wise work (the
 * activation, eager or fused) on the busiest rank; *bwd_excess (may be
 * NULL): what the eager backward moves beyond twice that forward, the
 * convention of tp__elem_s (negative: it moves less). */
static double routed_act_bytes(const ctx *x, double *bwd_excess)
{
    const tp_config *c = x->c;
    const tp_model *m = &c->model;
    double kl = (double)m->topk * tp_moe_load(m);
    double fe = (double)tp_expert_ffn_hidden(m);
    double ef = 0.0, eb = 0.0;
    if (c->opts.eager_experts)
        eager_expert_extra(m, fe, x->h * x->et, &ef, &eb);
    if (bwd_excess)
        *bwd_excess = kl * (eb - 2.0 * ef);
    return kl * (act_bytes(x) * fe + ef);
}

static void dense_layer(const ctx *x, cost *o)
{
    const tp_config *c = x->c;
    double T = x->T, tt = x->tt, h = x->h, f = x->f;
    double rep = 0.0, shard = 0.0;
    cost_zero(o);
    module_parts mp = {0};
    attention_part(x, o, &mp, &rep, &shard);
    double g1 = gemm_s(x, T, x->gate * f / tt, h);
    double g2 = gemm_s(x, T, h, f / tt);
    o->gemm_fwd += g1 + g2;
    o->fwd += g1 + g2;
    o->bwd += 2.0 * (g1 + g2);
    shard += act_bytes(x) * f;
    if (c->train.precision == TP_PREC_FP8)
        shard += 3.0 * f * x->cast;
    double elem = tp__elem_s(x, rep, shard);
    o->fwd += elem;
    o->bwd += 2.0 * elem;
    o->elem_fwd = elem;
    if (x->modules)
        mp.mlp_fwd = g1 + g2 + T * act_bytes(x) * f / tt / x->mem_bw;
    if (c->opts.sac_ops && c->train.recompute == TP_RECOMPUTE_SELECTIVE) {
        /* re-run matmuls: Llama wk, wo, w3; fused GPT o, fc2 */
        if (tp_mlp_gated(c->model.mlp))
            o->sac_gemm =
                gemm_s(x, T, x->kv / tt, h) + gemm_s(x, T, h, x->q / tt) + gemm_s(x, T, f / tt, h);
        else
            o->sac_gemm = gemm_s(x, T, h, x->q / tt) + g2;
    }
    tp_part(x, o);
    recompute_part(x, o, &mp);
}

/*
 * One GEMM of the routed experts on this GPU: `local` experts of Me rows
 * each, (Me x K) x (K x N) per expert. Flat (the default): a GEMM of its
 * own per expert, local * gemm_s, so that under the kernel-level model
 * (header 1b) every expert pays its own partial last wave. With
 * opts.grouped_gemm, one grouped GEMM (TransformerEngine's GroupedLinear,
 * DeepGEMM's contiguous layout, CUTLASS's grouped kernels with one
 * persistent tile scheduler over all groups): every expert's rows are
 * padded to tile_m (the contiguous layout aligns each expert's segment to
 * the block M) and the tiles of all experts share the waves,
 *     waves = ceil(local * ceil(Me/tile_m) * ceil(N/tile_n) / SMs),
 * with every expert's operands crossing HBM once as before. DeepGEMM's
 * H800 table (data/hardware/grouped-gemm.csv) measures exactly this: 4
 * groups of 256 rows run at 932 TFLOPS where one 128-row GEMM of the same
 * N and K runs at 533. The roofline (header 1) has no waves, and a sum of
 * equal rooflines is the group's roofline: there both are the same.
 */
static double experts_gemm_s(const ctx *x, double local, double Me, double N, double K)
{
    if (!(x->sms > 0.0 && x->c->opts.grouped_gemm) || !(local > 1.0))
        return local * gemm_s(x, Me, N, K);
    if (!(Me > 0.0 && N > 0.0 && K > 0.0))
        return 0.0;
    double tiles =
        local * ceil_div(Me, x->tile_m, x->inv_tile_m) * ceil_div(N, x->tile_n, x->inv_tile_n);
    double compute = ceil_div(tiles, x->sms, x->inv_sms) * K * x->wave_s_per_k;
    double bytes = 2.0 * local * (Me * K + K * N + Me * N);
    return compute + bytes * x->s_per_byte;
}

/*
 * The MoE MLP of one layer (after its attention): router, experts and
 * shared experts through the GEMM path, their activations into *shard,
 * the token dispatcher's bytes per token into *perm. *g and *g_shared: the
 * GEMM seconds (for Megatron's recompute modules).
 */
static void moe_mlp_part(const ctx *x, cost *o, double *shard, double *perm, double *g_out,
                         double *g_shared_out)
{
    const tp_config *c = x->c;
    const tp_model *m = &c->model;
    double T = x->T, tt = x->tt, h = x->h;
    double E = (double)m->num_experts, k = (double)m->topk, ep = (double)c->train.ep;
    double fe = (double)tp_expert_ffn_hidden(m);
    double fsh = (double)tp_shared_ffn_hidden(m);

    double et = x->et;     /* expert TP (= tt unless folded apart) */
    double local = E / ep; /* experts on this GPU */
    /* tokens per local expert: the ETP group gathers et / tt times what this
     * GPU routes (x 1.0 exactly when et = tt), on the busiest rank */
    double Me = T * k * ep / E * (et / tt) * tp_moe_load(m);
    if (Me < 1.0)
        Me = 1.0;
    double g = gemm_s(x, T, E, h); /* router */
    g += experts_gemm_s(x, local, Me, x->gate * fe / et, h) +
         experts_gemm_s(x, local, Me, h, fe / et);
    double g_shared = 0.0;
    if (fsh > 0.0) {
        g_shared = gemm_s(x, T, x->gate * fsh / tt, h) + gemm_s(x, T, h, fsh / tt);
        g += g_shared;
    }
    o->gemm_fwd += g;
    o->fwd += g;
    o->bwd += 2.0 * g;
    double a = act_bytes(x), bwd_excess;
    *shard += routed_act_bytes(x, &bwd_excess) + a * fsh;
    o->bwd += T * bwd_excess / tt / x->mem_bw; /* the eager backward as counted */
    if (c->train.precision == TP_PREC_FP8)
        *shard += 3.0 * (k * fe + fsh) * x->cast;
    /* Token dispatcher (Megatron-Core moe/token_dispatcher.py, fused
     * permutation, 16-bit copies): permute gathers every routed copy (read
     * and write, 4h per copy), unpermute reads the copies and writes the
     * combined token (2h per copy + 2h); with EP and more than one local
     * expert the received chunks are sorted by expert before the experts
     * and back after them (sort_chunks_by_idxs, 4h per copy each way); the
     * flex dispatcher (opts.moe_node_dispatch: DeepEP, HybridEP) permutes
     * the received tokens once, by expert, and has no such sort. Router:
     * fp32 logits read and probabilities written, 8 B per expert. */
    *perm = (6.0 * k + 2.0) * h;
    if (c->train.ep > 1 && local > 1.0 && !c->opts.moe_node_dispatch)
        *perm += 8.0 * k * h;
    *g_out = g;
    *g_shared_out = g_shared;
}

static void moe_layer(const ctx *x, cost *o)
{
    const tp_config *c = x->c;
    const tp_model *m = &c->model;
    double T = x->T, tt = x->tt, h = x->h;
    double E = (double)m->num_experts, k = (double)m->topk, ep = (double)c->train.ep;
    double fe = (double)tp_expert_ffn_hidden(m);
    double fsh = (double)tp_shared_ffn_hidden(m);
    double rep = 0.0, shard = 0.0;
    cost_zero(o);
    module_parts mp = {0};
    attention_part(x, o, &mp, &rep, &shard);
    /* the attention block's passes with their element-wise share: the
     * windows of tp__time_ep_overlap */
    double pre_elem = tp__elem_s(x, rep, shard);
    double pre_f = o->fwd + pre_elem, pre_b = o->bwd + 2.0 * pre_elem;

    double et = x->et;     /* expert TP (= tt unless folded apart) */
    double local = E / ep; /* experts on this GPU */
    double Me = T * k * ep / E * (et / tt) * tp_moe_load(m);
    if (Me < 1.0)
        Me = 1.0;
    double g, g_shared, perm;
    moe_mlp_part(x, o, &shard, &perm, &g, &g_shared);
    double a = act_bytes(x);
    double rep_attn = rep, shard_attn = shard;
    rep += perm + 8.0 * E;
    double elem = tp__elem_s(x, rep, shard);
    o->fwd += elem;
    o->bwd += 2.0 * elem;
    o->elem_fwd = elem;
    tp__time_host_floor(x, o);
    if (x->modules) { /* the MoE MLP's own element-wise share, its pieces */
        double routed = routed_act_bytes(x, NULL);
        shard_attn -= routed + a * fsh +
                      (c->train.precision == TP_PREC_FP8 ? 3.0 * (k * fe + fsh) * x->cast : 0.0);
        double elem_attn = tp__elem_s(x, rep_attn, shard_attn);
        mp.act_fwd = T * routed / tt / x->mem_bw;
        mp.shared_fwd = g_shared + T * a * fsh / tt / x->mem_bw;
        mp.moe_fwd = g + (elem - elem_attn);
    }
    if (c->opts.sac_ops && c->train.recompute == TP_RECOMPUTE_SELECTIVE)
        o->sac_gemm = gemm_s(x, T, x->kv / tt, h) + gemm_s(x, T, h, x->q / tt) +
                      experts_gemm_s(x, local, Me, fe / et, h);
    if (tp_expert_tp(&c->train) == c->train.tp)
        tp_part(x, o);
    else
        tp_part_folded(x, o);
    tp__time_ep(x, o, &mp);
    tp__time_ep_overlap(x, o, pre_f, pre_b);
    recompute_part(x, o, &mp);
    /* the fp8 activation cache (memory.c fp8_cache_saving) re-runs the
     * experts' activation from its cached input, where no recompute does */
    unsigned rc = tp_recompute_modules(&c->train);
    if (c->opts.fp8_act_cache && c->train.recompute != TP_RECOMPUTE_FULL && !(rc & TP_RC_MOE)) {
        if (!(rc & TP_RC_MOE_ACT))
            o->recomp += T * k * a * fe / tt / x->mem_bw;
        if (!(rc & TP_RC_SHARED_EXPERTS))
            o->recomp += T * a * fsh / tt / x->mem_bw;
    }
}

/* The output layer and loss, on the last stage. */
static void logits_part(const ctx *x, cost *o)
{
    const tp_config *c = x->c;
    double T = x->T, tt = x->tt;
    cost_zero(o);
    double g = gemm_s(x, T, x->V / tt, x->h);
    double ce = T * x->V / tt * (c->train.fused_ce ? 8.0 : 20.0) / x->mem_bw;
    o->gemm_fwd = g;
    o->fwd = g + 0.5 * ce;
    o->bwd = 2.0 * g + 0.5 * ce;
}

/* The input embedding on stage 0: vocabulary-parallel lookup all-reduce. */
static void embedding_part(const ctx *x, cost *o)
{
    const tp_config *c = x->c;
    cost_zero(o);
    if (c->train.tp > 1)
        o->tp_f = tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_ALL_REDUCE,
                                     x->T * x->h * 2.0, &x->tp_pl);
}

/* Add the cross-layer differences of the layers [first, first + n). */
static void add_cross(cost *st, const ctx *x, const cost *cross, int64_t first, int64_t n)
{
    if (x->c->model.vision.cross_every <= 0)
        return; /* no cross layers: the common case, kept off the hot path */
    int64_t k = tp__vision_cross_in(&x->c->model, first, n);
    if (k > 0)
        cost_axpy(st, (double)k, cross);
}

/* ---- entries for time_hybrid.c and time_vision.c (time_internal.h) --- */

/* Out-of-line calls of the static helpers above: the dense path calls these
 * helpers directly and the compiler inlines them (make bench); the hybrid
 * and vision layers, off that path, call them through these. */
double tp__time_gemm_s(const ctx *x, double M, double N, double K)
{
    return gemm_s(x, M, N, K);
}

double tp__time_exposed(double comm, double window, double ov)
{
    return exposed(comm, window, ov);
}

void tp__time_tp_exposed(const ctx *x, double raw, double gemm_f, double gemm_b, cost *o)
{
    tp_exposed(x, raw, gemm_f, gemm_b, o);
}

void tp__time_core(const ctx *x, double flops, double scores, double *fwd, double *bwd)
{
    core_time(x, flops, scores, fwd, bwd);
}

void tp__time_attention(const ctx *x, cost *o, module_parts *mp, double *rep_bytes,
                        double *shard_bytes)
{
    attention_part(x, o, mp, rep_bytes, shard_bytes);
}

void tp__time_moe_mlp(const ctx *x, cost *o, double *shard, double *perm, double *g_out,
                      double *g_shared_out)
{
    moe_mlp_part(x, o, shard, perm, g_out, g_shared_out);
}

void tp__time_recompute(const ctx *x, cost *o, const module_parts *mp)
{
    recompute_part(x, o, mp);
}

double tp__time_act_bytes(const ctx *x)
{
    return act_bytes(x);
}

/* One sub-layer's pre-norm and residual, bytes per token: half of
 * attention_part's two norms and 12h (fused 4h + 6h = 10h; eager 36h + 6h). */
double tp__time_sublayer_bytes(const ctx *x)
{
    return (x->c->opts.eager_elementwise ? 36.0 : 4.0) * x->h + 6.0 * x->h;
}

void tp__time_dense_layer(const ctx *x, cost *o)
{
    dense_layer(x, o);
}

void tp__time_moe_layer(const ctx *x, cost *o)
{
    moe_layer(x, o);
}

/* Cost of a stage with nd dense and nm MoE layers, and its ends. */
static cost stage_cost(const cost *dense, const cost *moe, double nd, double nm, bool first,
                       bool last, const cost *emb, const cost *head, double block)
{
    cost s;
    cost_zero(&s);
    /* a kind of layer the stage does not hold adds exact zeros: skipped */
    if (!(nd >= 0.0 && nd <= 0.0))
        cost_axpy(&s, nd, dense);
    if (!(nm >= 0.0 && nm <= 0.0))
        cost_axpy(&s, nm, moe);
    /* block method: `block` layers of the stage(s) recomputed (0: all) */
    double n = block, layers = nd + nm;
    if (n > 0.0 && n < layers)
        s.recomp *= n / layers;
    if (first)
        cost_axpy(&s, 1.0, emb);
    if (last)
        cost_axpy(&s, 1.0, head);
    return s;
}

static int64_t nodes_gpus(const tp_config *c)
{
    int64_t g = tp_gpus_per_node(&c->train, &c->gpu);
    return g > 0 ? g : 1;
}

/* The kernel-level GEMM model's constants (header 1b), when the GPU's
 * profile gives an SM count and a measured matmul rate; else off. */
static void gemm_shape_init(const tp_config *c, ctx *x)
{
    const tp_gpu_eff *e = &c->gpu.eff;
    x->sms = x->tile_m = x->tile_n = x->inv_sms = x->inv_tile_m = x->inv_tile_n = 0.0;
    x->wave_s_per_k = x->s_per_byte = 0.0;
    if (!tp_gpu_kernel_model(&c->gpu))
        return;
    bool fp8 = c->train.precision == TP_PREC_FP8;
    double mamf = fp8 && e->mamf_fp8 > 0.0 ? e->mamf_fp8 : e->mamf;
    double sw = e->gemm_sw > 0.0 ? e->gemm_sw : 1.0;
    x->sms = floor(e->sm_count);
    x->tile_m = e->tile_m >= 1.0 ? e->tile_m : 128.0;
    x->tile_n = e->tile_n >= 1.0 ? e->tile_n : 256.0;
    /* one wave: every SM computes one tile, 2 * tile_m * tile_n * K FLOPs */
    x->wave_s_per_k = 2.0 * x->sms * x->tile_m * x->tile_n / (x->peak_gemm * mamf * sw);
    x->s_per_byte = 1.0 / (c->gpu.mem_bw_bytes_per_s * (e->mem_bw > 0.0 ? e->mem_bw : 1.0));
    x->inv_sms = 1.0 / x->sms;
    x->inv_tile_m = 1.0 / x->tile_m;
    x->inv_tile_n = 1.0 / x->tile_n;
}

/*
 * Bytes of one fp8 cast per element relative to delayed scaling's 3 (read
 * 2, write 1; header 10): tensorwise current scaling reads the input once
 * more for its amax (5); MXFP8 writes a row-wise and a column-wise copy
 * with one E8M0 scale per 32 elements each (2 + 2 + 2/32); NVFP4 the two
 * 4-bit copies with one E4M3 scale per 16 each (2 + 1 + 2/16).
 */
static double fp8_cast_ratio(int recipe)
{
    switch (recipe) {
    case TP_FP8_TENSORWISE: return 5.0 / 3.0;
    case TP_FP8_MXFP8: return (4.0 + 2.0 / 32.0) / 3.0;
    case TP_FP8_NVFP4: return (3.0 + 2.0 / 16.0) / 3.0;
    default: return 1.0;
    }
}

void tp__time_ctx(const tp_config *c, ctx *x)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    const tp_gpu_eff *e = &c->gpu.eff;
    /* every field is set below (no memset: this runs once per evaluation) */
    x->c = c;
    x->sg = NULL;
    x->tt = (double)t->tp;
    x->et = (double)tp_expert_tp(t);
    x->cc = (double)t->cp;
    x->T = (double)t->micro_batch * (double)t->seq_len / x->cc;
    x->h = (double)m->hidden;
    x->q = (double)tp__q_width(m);
    x->kv = (double)tp__kv_width(m);
    x->f = (double)m->ffn_hidden;
    x->gate = tp_mlp_gated(m->mlp) ? 2.0 : 1.0;
    x->V = (double)tp__padded_vocab(m->vocab, t->pad_vocab_to);
    x->sp = t->sp && t->tp > 1;
    x->tpo = tp_tp_overlap_of(c);
    x->modules = t->recompute == TP_RECOMPUTE_SELECTIVE && t->recompute_modules != 0 &&
                 t->recompute_modules != TP_RC_CORE_ATTN && !c->opts.sac_ops;

    const double *pk = c->gpu.peak_flops_per_s;
    double bf16 = pk[TP_PREC_BF16];
    double gemm = e->gemm > 0.0 ? e->gemm : 1.0;
    switch (t->precision) {
    case TP_PREC_FP8:
        x->peak_gemm = pk[TP_PREC_FP8] > 0.0 ? pk[TP_PREC_FP8] : bf16;
        if (t->fp8_recipe == TP_FP8_NVFP4) /* validated: the GPU has an fp4 peak */
            x->peak_gemm = c->gpu.peak_fp4_flops_per_s;
        x->gemm_eff = (e->gemm_fp8 > 0.0 && e->gemm_fp8 <= 1.0) ? e->gemm_fp8 : gemm;
        x->peak_attn = bf16;
        break;
    case TP_PREC_FP16:
    case TP_PREC_TF32:
        x->peak_gemm = pk[t->precision] > 0.0 ? pk[t->precision] : bf16;
        x->gemm_eff = gemm;
        x->peak_attn = x->peak_gemm;
        break;
    case TP_PREC_BF16:
    default:
        x->peak_gemm = bf16;
        x->gemm_eff = gemm;
        x->peak_attn = bf16;
        break;
    }
    x->cast = fp8_cast_ratio(t->fp8_recipe);
    x->half = e->gemm_half_dim > 0.0 ? e->gemm_half_dim : 0.0;
    gemm_shape_init(c, x);
    x->attn_eff = tp_attn_rate_of(c).fraction;
    x->mem_bw = c->gpu.mem_bw_bytes_per_s * (e->mem_bw > 0.0 ? e->mem_bw : 1.0);
    x->ov = e->overlap >= 0.0 && e->overlap <= 1.0 ? e->overlap : 0.0;

    int64_t gpn = nodes_gpus(c);
    int64_t dp = tp_train_dp(t);
    int64_t ep = t->ep > 0 ? t->ep : 1, etp = tp_expert_tp(t);
    tp_group_place_of(t->tp, 1, gpn, &x->tp_pl);
    tp_group_place_of(t->cp, t->tp, gpn, &x->cp_pl);
    tp_group_place_of(t->pp, t->tp * t->cp * dp, gpn, &x->pp_pl);
    tp_group_place_of(dp * t->cp, t->tp, gpn, &x->dp_pl);
    /* expert layers, Megatron-Core's expert rank order ETP, EP, EDP, PP
     * (parallel_state.py: the expert RankGenerator has cp = 1) */
    tp_group_place_of(etp, 1, gpn, &x->etp_pl);
    tp_group_place_of(ep, etp, gpn, &x->ep_pl);
    int64_t edp = etp == t->tp ? dp * t->cp / ep : tp_train_edp(t); /* equal when etp = tp */
    tp_group_place_of(edp, etp * ep, gpn, &x->edp_pl);
}

/* Routed-expert parameters of a stage on this GPU (split ETP x EP ways). */
static double stage_expert_params(const ctx *x, const tp_result *r, int64_t stage)
{
    const tp_model *mo = &x->c->model;
    const tp_train *t = &x->c->train;
    if (mo->num_experts <= 0 || r->params.num_moe_layers <= 0)
        return 0.0;
    int64_t n = -1; /* the checked stages' count when x carries them */
    for (int i = 0; x->sg && i < x->sg->n && n < 0; i++)
        if (x->sg->stage[i] == stage)
            n = x->sg->moe[i];
    double nm = (double)(n >= 0 ? n : tp__stage_moe_layers(t, mo, stage));
    double routed_layer = (double)r->params.moe_routed / (double)r->params.num_moe_layers;
    return nm * routed_layer / (x->et * (double)t->ep);
}

/* Routed-expert parameters on the GPU of stage `stage`: under DualPipe
 * that GPU also holds stage pp-1-stage (memory.c memory_rank_pair), and
 * its tp_memory counts the parameters of both. */
static double held_expert_params(const ctx *x, const tp_result *r, int64_t stage)
{
    const tp_train *t = &x->c->train;
    double e = stage_expert_params(x, r, stage);
    if (t->schedule == TP_SCHED_DUALPIPE && t->pp - 1 - stage != stage)
        e += stage_expert_params(x, r, t->pp - 1 - stage);
    return e;
}

int64_t tp__time_layers0(const tp_config *c, const tp_result *r)
{
    const tp_train *t = &c->train;
    if (t->schedule == TP_SCHED_DUALPIPE) /* memory.c: a rank's two stages */
        return tp_stage_layers(t, c->model.num_layers, 0);
    return r->stage_first.layers;
}

void tp__time_dp_counts(const tp_train *t, double m, double runs, double layers0, tp__dp_counts *n)
{
    bool pipe = t->pp > 1;
    n->grad_kind = t->zero == 0 ? TP_COLL_ALL_REDUCE : TP_COLL_REDUCE_SCATTER;
    n->pieces = 1.0;
    n->grads = pipe ? runs : 1.0;
    n->gathers = t->zero >= 1 ? 1.0 : 0.0;
    if (t->zero >= 3) {
        /* one collective per layer; under a pipeline the stage stays
         * gathered: one all-gather in a run's first forward, one
         * reduce-scatter after its last backward; else every micro-batch
         * gathers forward and backward and reduces */
        n->pieces = layers0 >= 1.0 ? layers0 : 1.0;
        n->grads = pipe ? runs : m;
        n->gathers = pipe ? runs : 2.0 * m;
    }
}

/* Stage 0's trained parameters on this GPU, split into the routed experts'
 * (reduced over the expert-data-parallel group) and the rest (over DP x
 * CP): the volumes of dp_exposed and of colls.c's DP rows. Under DualPipe
 * the GPU of stage 0 also holds stage pp-1, and reduces the routed experts
 * of both over EDP. */
void tp__time_dp_params(const ctx *x, const tp_result *r, double *dense, double *expert)
{
    double total = r->stage_first.params_on_gpu - r->stage_first.frozen_params;
    *expert = held_expert_params(x, r, 0);
    *dense = total - *expert > 0.0 ? total - *expert : 0.0;
}

/* Data-parallel / ZeRO traffic exposed per step, on stage 0 (header 7).
 * runs: the step's runs of the pipeline schedule (tp_train.local_batch).
 * torch.distributed.pipelining turns gradient sync on for the last
 * backward of each run (stage.py backward_maybe_with_nosync: FSDP's
 * post-backward reduce-scatter and reshard, DDP's all-reduce), so under
 * PP each run reduces the gradients and, under FSDP, gathers the weights
 * again; ZeRO 1-2's weight gather follows the optimizer, once a step. */
static double dp_exposed(const ctx *x, const tp_result *r, const cost *st0, double m, double runs,
                         double layers0)
{
    const tp_config *c = x->c;
    const tp_train *t = &c->train;
    if (x->dp_pl.size <= 1 && x->edp_pl.size <= 1)
        return 0.0;
    tp_state_bytes bpp;
    tp_state_bytes_per_param(t, &bpp);
    double wb = bpp.weights, gb = bpp.grads;

    /* parameters of stage 0 on this GPU, split dense / routed experts */
    double dense, expert;
    tp__time_dp_params(x, r, &dense, &expert);

    const tp_gpu *g = &c->gpu;
    tp_coll_model cm = c->opts.coll_model;
    double L = layers0 >= 1.0 ? layers0 : 1.0;
    double window_f = st0->fwd, window_b = st0->bwd + st0->recomp;
    tp__dp_counts n;
    tp__time_dp_counts(t, m, runs, L, &n);

    /* one whole-stage reduction and gather: n.pieces collectives of a
     * piece's share each */
#define COLL2(kind, bytes_dense, bytes_exp)                                                        \
    (n.pieces * (tp_group_coll_time(g, cm, kind, bytes_dense / n.pieces, &x->dp_pl) +              \
                 tp_group_coll_time(g, cm, kind, bytes_exp / n.pieces, &x->edp_pl)))
    double grad = COLL2(n.grad_kind, dense * gb, expert * gb);
    double gather = n.gathers > 0.0 ? COLL2(TP_COLL_ALL_GATHER, dense * wb, expert * wb) : 0.0;
#undef COLL2
    if (!c->opts.dp_comm_overlap)
        return n.grads * grad + n.gathers * gather;
    if (t->zero >= 3 && t->pp <= 1) {
        /* each micro-batch: the forward's gather alone, the backward's
         * beside the reduce-scatter */
        double ex_f = max2(exposed(gather, window_f, x->ov), gather / L);
        double ex_b = max2(exposed(gather + grad, window_b, x->ov), (gather + grad) / L);
        return n.grads * (ex_f + ex_b);
    }
    return n.grads * max2(exposed(grad, window_b, x->ov), grad / L) +
           n.gathers * max2(exposed(gather, window_f, x->ov), gather / L);
}

/*
 * Parameters of a stage this GPU updates under ZeRO >= 1: its shard of the
 * dense parameters over the DP x CP group and of the routed experts over
 * the expert-data-parallel group (EDP = GPUs / (ETP x EP x PP)), as
 * memory.c shards their optimizer state. When the two groups are the same
 * size this is the stage's parameters over DP x CP, computed so.
 */
static double sharded_params(const ctx *x, const tp_result *r, const tp_memory *st)
{
    double D = x->dp_pl.size > 1 ? (double)x->dp_pl.size : 1.0;
    double De = x->edp_pl.size > 1 ? (double)x->edp_pl.size : 1.0;
    bool apart = x->edp_pl.size != x->dp_pl.size;
    double expert = apart ? held_expert_params(x, r, st->stage) : 0.0;
    double trained = st->params_on_gpu - st->frozen_params; /* a frozen tower is not updated */
    if (!(expert > 0.0))
        return trained / D;
    double dense = trained - expert;
    return (dense > 0.0 ? dense : 0.0) / D + expert / De;
}

/* Parameters this GPU updates: the larger of the first and last stages'. */
static double updated_params(const ctx *x, const tp_result *r)
{
    double a = sharded_params(x, r, &r->stage_first);
    double b = sharded_params(x, r, &r->stage_last);
    return b > a ? b : a;
}

double tp__time_sharded_params(const ctx *x, const tp_result *r, const tp_memory *st)
{
    return sharded_params(x, r, st);
}

double tp__time_updated_params(const ctx *x, const tp_result *r)
{
    return updated_params(x, r);
}

int64_t tp__time_nodes_gpus(const tp_config *c)
{
    return nodes_gpus(c);
}

/* Optimizer step at memory bandwidth (header 8). */
static double optimizer_time(const ctx *x, const tp_result *r)
{
    const tp_train *t = &x->c->train;
    tp_state_bytes bpp;
    tp_state_bytes_per_param(t, &bpp);
    double params = r->stage_first.params_on_gpu - r->stage_first.frozen_params;
    if (r->stage_last.params_on_gpu - r->stage_last.frozen_params > params)
        params = r->stage_last.params_on_gpu - r->stage_last.frozen_params;
    if (t->zero >= 1)
        params = updated_params(x, r);
    double bytes = 2.0 * bpp.optimizer + 2.0 * bpp.grads + bpp.weights;
    double f = t->offload_optimizer;
    if (!(f > 0.0))
        return params * bytes / x->mem_bw;
    return (1.0 - f) * params * bytes / x->mem_bw;
}

/*
 * Micro-batches of the critical stage (pipeline rank r) whose forward runs
 * beside another's backward under the EP all-to-all overlap, in whole
 * micro-batches of the stage (tp__time_ep_overlap). Without a pipeline the
 * first forward and the last backward run alone (Megatron-Core
 * combined_1f1b_schedule_for_no_pipelining): m - 1. Under the interleaved
 * schedule, of the m*v chunk passes the warm-up forwards and as many
 * cool-down backwards run alone: W = 2(p - r - 1) + (v - 1)p + 1
 * (schedules.py get_pp_rank_microbatches: microbatch_group_size_per_vp_stage
 * defaults to p; the overlap adds one forward), at most m*v; the rest pair,
 * each a chunk of 1/v of the stage's layers: (m*v - W) / v.
 */
static double ep_paired(const tp_train *t, double m, double v, int64_t r)
{
    if (t->pp <= 1)
        return m - 1.0;
    double p = (double)t->pp;
    double warm = 2.0 * (p - (double)r - 1.0) + (v - 1.0) * p + 1.0;
    double passes = m * v;
    return warm < passes ? (passes - warm) / v : 0.0;
}

/* What a stage's cost is built from (tp__step_time), for the stages
 * DualPipe pairs (dualpipe_step); cross and kinds are read only for
 * models that have cross layers or are hybrid. */
typedef struct stage_kit {
    const ctx *x;
    const cost *dense, *moe, *emb, *head, *cross, *kinds;
    double blk;
    bool hybrid;
} stage_kit;

/* Per-micro-batch cost of pipeline stage s, as tp__step_time builds its
 * first, last and middle stages. */
static cost stage_at(const stage_kit *k, int64_t s)
{
    const tp_train *t = &k->x->c->train;
    const tp_model *m = &k->x->c->model;
    int64_t L = m->num_layers, n = tp_stage_layers(t, L, s);
    int64_t f = tp__stage_first_layer(t, L, s);
    double nm = (double)tp__stage_moe_layers(t, m, s);
    bool first = s == 0, last = s == t->pp - 1;
    cost st = k->hybrid
                  ? tp__time_hybrid_stage(m, k->kinds, f, n, first, last, k->emb, k->head, k->blk)
                  : stage_cost(k->dense, k->moe, (double)n - nm, nm, first, last, k->emb, k->head,
                               k->blk);
    add_cross(&st, k->x, k->cross, f, n);
    return st;
}

/*
 * Paired forward-and-backward chunks (F&B) of the GPU at pipeline rank j
 * under DualPipe (deepseek-ai/DualPipe dualpipe/dualpipe.py DualPipe.step
 * @ 3da1bbe), with H = p/2 and j = min(rank, p-1-rank): step 4 runs
 * C/2 - p + j + 1 rounds of two, step 5 H - j - 1 more, so
 * C - 3H + j + 1; the middle ranks (j = H - 1) run their first pair apart
 * ("we don't overlap these two chunks"): one fewer. The other chunks run
 * alone.
 */
static double dualpipe_pairs(double m, int64_t p, int64_t j)
{
    double H = (double)(p / 2);
    double n = m - 3.0 * H + (double)j + 1.0 - (j == p / 2 - 1 ? 1.0 : 0.0);
    return n > 0.0 ? n : 0.0;
}

/*
 * DualPipe's step (TP_SCHED_DUALPIPE; DeepSeek-V3 report arXiv 2412.19437
 * section 3.2.1; deepseek-ai/DualPipe @ 3da1bbe). The GPU at rank j
 * (j < p/2; rank p-1-j runs the mirror image) holds stages j and p-1-j
 * and runs half the m micro-batches through each: m chunks of the pair's
 * mean cost. Each of its F&B chunks (dualpipe_pairs) hides the EP
 * all-to-all as Megatron-Core's combined 1F1B does (tp__time_ep_overlap's
 * ep_hid, up to eff.overlap and never more than the computation beside
 * it), on every rank, with no virtual stages needed. The busiest rank
 * sets the step. Its bubble is the README's (p/2 - 1)(F&B + B - 3W), F
 * the forward chunk, B the full backward chunk (recompute included), W
 * its weight-gradient part, F&B = F + B less what the pair hides (two
 * chunks' computation does not overlap; their communication does), all
 * the pair's means with their exposed TP/CP/EP collectives. trainplan's
 * backward is not split in two: W is taken as the forward's GEMM time
 * (gemm_fwd): a weight-gradient GEMM has the shape of its forward GEMM
 * (header 1), and the attention core, norms and element-wise work have
 * no weight gradient. Sets the compute, recompute, TP, CP, EP and bubble
 * parts of tm.
 */
static void dualpipe_step(const stage_kit *k, double mf, double fl, tp_time *tm)
{
    int64_t p = k->x->c->train.pp;
    double m = mf * fl; /* fl runs of the schedule, mf micro-batches each */
    cost crit;
    cost_zero(&crit);
    double busy = -1.0, pairs = 0.0;
    for (int64_t j = 0; j < p / 2; j++) {
        cost a = stage_at(k, j), b = stage_at(k, p - 1 - j), pair;
        cost_zero(&pair);
        cost_axpy(&pair, 0.5, &a);
        cost_axpy(&pair, 0.5, &b);
        double n = fl * dualpipe_pairs(mf, p, j);
        double t = m * stage_time(&pair) - n * pair.ep_hid;
        if (t > busy) {
            busy = t;
            crit = pair;
            pairs = n;
        }
    }
    tm->compute_s = m * compute_of(&crit);
    tm->recompute_s = m * crit.recomp;
    tm->tp_comm_s = m * (crit.tp_f + crit.tp_b);
    tm->cp_comm_s = m * (crit.cp_f + crit.cp_b);
    tm->ep_comm_s = m * (crit.ep_f + crit.ep_b) - pairs * crit.ep_hid;
    double F = crit.fwd + crit.tp_f + crit.cp_f + crit.ep_f;
    double B = crit.bwd + crit.recomp + crit.tp_b + crit.cp_b + crit.ep_b;
    double W = crit.gemm_fwd;
    double bubble = (double)(p / 2 - 1) * (F + B - crit.ep_hid + B - 3.0 * W);
    tm->bubble_s = bubble > 0.0 ? fl * bubble : 0.0;
}

static const char *bottleneck_of(const tp_time *tm, bool nvme)
{
    struct {
        const char *name;
        double v;
    } parts[] = {
        {"activation recompute", tm->recompute_s},
        {"exposed tensor-parallel communication", tm->tp_comm_s},
        {"exposed context-parallel communication", tm->cp_comm_s},
        {"expert-parallel all-to-all", tm->ep_comm_s},
        {"pipeline point-to-point communication", tm->pp_comm_s},
        {"pipeline bubble", tm->bubble_s},
        {"exposed data-parallel communication", tm->dp_comm_s},
        {"optimizer step", tm->optimizer_s},
    };
    size_t best = 0;
    for (size_t i = 1; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].v > parts[best].v)
            best = i;
    if (!(parts[best].v > BOTTLENECK_MIN_SHARE * tm->step_s))
        return "compute (no other part above 5% of the step)";
    if (best == sizeof parts / sizeof parts[0] - 1 && tm->offload_s > 0.5 * tm->optimizer_s)
        return "optimizer offload (host link and CPU)";
    if (best == 6 && tm->param_offload_s > 0.5 * tm->dp_comm_s)
        return nvme ? "parameter offload (NVMe)" : "parameter offload (host link)";
    if (best == 0 && tm->act_offload_s > 0.5 * tm->recompute_s)
        return "activation offload (host link)";
    return parts[best].name;
}

void tp__step_time(const tp_config *c, const tp__stages *sg, tp_result *r)
{
    const tp_train *t = &c->train;
    const tp_model *m = &c->model;
    tp_time *tm = &r->time;
    static const tp_time zero; /* all zero; vector moves, not rep stos (memory.c) */
    *tm = zero;
    tm->bottleneck = "";
    tp__stages own;
    if (!sg) {
        tp__stages_of(t, m, &own);
        sg = &own;
    }

    ctx x;
    tp__time_ctx(c, &x);
    x.sg = sg;
    if (!(x.peak_gemm > 0.0 && x.peak_attn > 0.0 && x.mem_bw > 0.0 && x.T > 0.0))
        return; /* a validated config never gets here */

    cost dense, moe, emb, head;
    dense_layer(&x, &dense);
    /* block method: layers recomputed per stage (0: all) */
    double blk = t->recompute == TP_RECOMPUTE_FULL ? (double)t->recompute_layers : 0.0;
    if (m->num_experts > 0)
        moe_layer(&x, &moe);
    else
        cost_zero(&moe);
    embedding_part(&x, &emb);
    logits_part(&x, &head);
    cost cross;              /* read by add_cross only with cross layers, which sets it below */
    if (tp__has_vision(m)) { /* the tower rides with the embedding on stage 0 */
        cost vis;
        tp__time_vision(&x, &vis);
        cost_axpy(&emb, 1.0, &vis);
        tp__time_cross_delta(&x, &cross);
    }
    if (m->mtp_layers > 0) {
        /* MTP modules on the last stage: eh_proj (2h -> h), one layer and a
         * pass through the shared head each (model.c design note) */
        cost mtp = head;
        double g = gemm_s(&x, x.T, x.h / x.tt, 2.0 * x.h);
        mtp.gemm_fwd += g;
        mtp.fwd += g;
        mtp.bwd += 2.0 * g;
        cost_axpy(&mtp, 1.0, m->num_experts > 0 ? &moe : &dense);
        cost_axpy(&head, (double)m->mtp_layers, &mtp);
    }

    /* Stage types: first, last, and the middle ones (header 6). */
    int64_t L = m->num_layers, p = t->pp;
    double mb = r->grad_accum > 0 ? (double)r->grad_accum : 1.0;
    /* the step's schedule runs (tp_train.local_batch): each fills and
     * drains the pipeline, mf micro-batches at a time */
    int64_t mf_i = tp__flush_microbatches(t);
    double mf = mf_i > 0 ? (double)mf_i : mb, fl = mb / mf;
    double v = (t->schedule == TP_SCHED_INTERLEAVED && t->vpp > 1) ? (double)t->vpp : 1.0;
    bool dual = t->schedule == TP_SCHED_DUALPIPE; /* memory.c: a rank's two stages */
    int64_t L0 = tp__time_layers0(c, r);
    double nm0 = (double)sg->moe[0];
    bool hybrid = tp__is_hybrid(m);
    cost kinds[TP__KINDS]; /* set (and read) for hybrid models only: the hot path skips it */
    if (hybrid) {          /* one cost per layer kind the pattern has (hybrid.c) */
        memset(kinds, 0, sizeof kinds);
        bool seen[TP__KINDS] = {false};
        for (int64_t i = 0; i < L; i++)
            seen[tp__layer_kind(m, i)] = true;
        for (int k = 0; k < TP__KINDS; k++)
            if (seen[k])
                tp__time_hybrid_layer(&x, k, &kinds[k]);
    }
    cost st0 =
        hybrid ? tp__time_hybrid_stage(m, kinds, 0, L0, true, p == 1, &emb, &head, blk)
               : stage_cost(&dense, &moe, (double)L0 - nm0, nm0, true, p == 1, &emb, &head, blk);
    add_cross(&st0, &x, &cross, 0, L0);
    cost crit = st0;
    int64_t crit_rank = 0; /* its pipeline rank (ep_paired) */
    double t0 = stage_time(&st0), tmax = t0, tsum = t0;
    /* the other stages for 1F1B's critical stage and bubble; DualPipe
     * prices its rank's stage pairs itself (dualpipe_step) */
    if (p > 1 && !dual) {
        int64_t Ll = r->stage_last.layers;
        double nml = (double)sg->moe[1]; /* stage p - 1 */
        cost stl =
            hybrid ? tp__time_hybrid_stage(m, kinds, L - Ll, Ll, false, true, &emb, &head, blk)
                   : stage_cost(&dense, &moe, (double)Ll - nml, nml, false, true, &emb, &head, blk);
        add_cross(&stl, &x, &cross, L - Ll, Ll);
        double tl = stage_time(&stl);
        tsum += tl;
        if (tl > tmax) {
            tmax = tl;
            crit = stl;
            crit_rank = p - 1;
        }
        if (p > 2) {
            /* all middle stages together, and the largest of them (stage 1) */
            double n_mid = (double)(L - L0 - Ll);
            double nm_mid = (double)r->params.num_moe_layers - nm0 - nml;
            cost all_mid = hybrid ? tp__time_hybrid_stage(m, kinds, L0, L - L0 - Ll, false, false,
                                                          &emb, &head, blk * (double)(p - 2))
                                  : stage_cost(&dense, &moe, n_mid - nm_mid, nm_mid, false, false,
                                               &emb, &head, blk * (double)(p - 2));
            add_cross(&all_mid, &x, &cross, L0, L - L0 - Ll);
            tsum += stage_time(&all_mid);
            /* the largest middle stage, 1, and under the in-order split
             * the one with more MoE layers (tp__middle_stage), when that is
             * another: sg's stages 2 and 3 */
            for (int k = 2; k < sg->n; k++) {
                int64_t s1 = sg->stage[k], L1 = sg->layers[k], f1 = sg->first[k];
                double nm1 = (double)sg->moe[k];
                cost st1 =
                    hybrid ? tp__time_hybrid_stage(m, kinds, f1, L1, false, false, &emb, &head, blk)
                           : stage_cost(&dense, &moe, (double)L1 - nm1, nm1, false, false, &emb,
                                        &head, blk);
                add_cross(&st1, &x, &cross, f1, L1);
                double t1 = stage_time(&st1);
                if (t1 > tmax) {
                    tmax = t1;
                    crit = st1;
                    crit_rank = s1;
                }
            }
        }
    }

    if (dual) {
        const stage_kit kit = {&x, &dense, &moe, &emb, &head, &cross, kinds, blk, hybrid};
        dualpipe_step(&kit, mf, fl, tm);
    } else {
        tm->compute_s = mb * compute_of(&crit);
        tm->recompute_s = mb * crit.recomp;
        tm->tp_comm_s = mb * (crit.tp_f + crit.tp_b);
        tm->cp_comm_s = mb * (crit.cp_f + crit.cp_b);
        tm->ep_comm_s = mb * (crit.ep_f + crit.ep_b);
        if (crit.ep_hid > 0.0) /* opts.moe_a2a_overlap: the paired passes hide some */
            tm->ep_comm_s -= fl * ep_paired(t, mf, v, crit_rank) * crit.ep_hid;
        tm->bubble_s = p > 1 ? fl * (tsum - tmax) / v : 0.0;
        if (tm->bubble_s < 0.0)
            tm->bubble_s = 0.0;
        tm->critical_stage = crit_rank;
    }
    if (p > 1) {
        /* one activation forward and one gradient backward per micro-batch
         * and virtual stage; sharded t ways (SP, or Megatron's scatter/gather
         * of the p2p tensor over the TP group, Narayanan 2021 4.1) */
        double X = x.T * x.h * 2.0 / (x.sp || c->opts.pp_scatter_gather ? x.tt : 1.0);
        double p2p = tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_P2P, X, &x.pp_pl);
        double raw = mb * 2.0 * v * p2p;
        /* the interleaved schedule overlaps p2p with compute (Megatron-Core
         * overlap_p2p_comm), DualPipe too (its README: "full overlap of
         * forward and backward computation-communication phases"; report
         * section 3.2.1, recalled: the PP communication fully hidden);
         * 1F1B and GPipe wait for every transfer */
        tm->pp_comm_s = v > 1.0 || dual ? exposed(raw, tm->compute_s, x.ov) : raw;
    }
    tm->dp_comm_s = dp_exposed(&x, r, &st0, mb, fl, (double)L0);
    if (t->offload_params != TP_OFFLOAD_NONE) {
        tm->param_offload_s =
            tp__time_param_offload(&x, r, &st0, mb, (double)L0, &tm->param_offload_bytes);
        tm->dp_comm_s += tm->param_offload_s;
    }
    if (t->offload_act_layers > 0) {
        tm->act_offload_s = tp__time_act_offload(&x, r, &st0, mb, &tm->act_offload_bytes);
        tm->recompute_s += tm->act_offload_s;
    }
    tm->optimizer_s = optimizer_time(&x, r);
    if (t->offload_optimizer > 0.0) {
        tm->offload_s = tp__time_opt_offload(&x, r, st0.bwd + st0.recomp);
        tm->optimizer_s += tm->offload_s;
    }
    tm->step_s = tm->compute_s + tm->recompute_s + tm->tp_comm_s + tm->cp_comm_s + tm->ep_comm_s +
                 tm->pp_comm_s + tm->bubble_s + tm->dp_comm_s + tm->optimizer_s;
    if (!(tm->step_s > 0.0))
        return;

    tm->bubble_of_total = tp_bubble_fraction(t->schedule, p, mf_i, t->vpp, TP_BUBBLE_OF_TOTAL);
    tm->bubble_of_ideal = tp_bubble_fraction(t->schedule, p, mf_i, t->vpp, TP_BUBBLE_OF_IDEAL);
    double gpus = (double)t->num_gpus;
    tm->tokens_per_s = r->flops.tokens_per_step / tm->step_s;
    tm->tokens_per_s_per_gpu = tm->tokens_per_s / gpus;
    tm->model_flops_per_s_per_gpu = r->flops.model_per_step / tm->step_s / gpus;
    double peak = c->gpu.peak_flops_per_s[t->precision];
    if (!(peak > 0.0))
        peak = c->gpu.peak_flops_per_s[TP_PREC_BF16];
    tm->mfu = tm->model_flops_per_s_per_gpu / peak;
    tm->hfu = r->flops.hardware_per_step / tm->step_s / gpus / peak;
    tm->bottleneck = bottleneck_of(tm, t->offload_params == TP_OFFLOAD_NVME);
    tm->computed = true;
}
