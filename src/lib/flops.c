/* SPDX-License-Identifier: MIT */
/*
 * flops.c: training FLOPs per token and per step (formulas.md section 2).
 *
 * Forward FLOPs per token (2 per multiply-add; GEMMs and the two attention
 * matmuls only, as Megatron's num_floating_point_operations, formulas.md
 * 2.4 [CODE]):
 *   attention projections  2*(h*q + 2*h*kv + q*h)
 *   attention core         2*2*s*q (QK^T and AV), halved under the causal
 *                          convention (default: it is what FlashAttention
 *                          executes; TP_ATTN_FLOPS_FULL keeps PaLM's 12LHQT);
 *                          with a sliding window scaled by tp__window_scale
 *                          (s is the packed example's length N under
 *                          train.packed_seq_len: per-example attention)
 *   MLA                    projections per model.c's design note, core
 *                          2*s*a*(d_qk + d_v)
 *   MTP module             2*2h*h + one layer + logits (its own head pass)
 *   dense MLP              2*h*f*(3 SwiGLU | 2 GeLU)
 *   MoE MLP                2*h*f_e*(3|2)*k + 2*h*f_sh*(3|2) + 2*h*E router
 *   logits                 2*h*V (padded V)
 *   vision tower           per sample, spread over its s tokens (vision.c):
 *                          encoder x3 (x1 frozen), projector x3 (x2
 *                          frozen), mllama cross layers' difference x3;
 *                          recompute re-runs language layers only
 * Model FLOPs = 3 x forward (forward, data-gradient, weight-gradient).
 * Hardware FLOPs add recomputation: full recompute re-runs every layer's
 * forward (not the logits), selective re-runs the attention core forward
 * (formulas.md 2.6). FlashAttention's own backward recompute of QK^T is not
 * counted (torchtitan and Megatron exclude it too).
 * Check: GPT-3 175B, s = 2048, V = 51200, full attention: 1.0764e12 per
 * token = 72*L*h^2*(1 + s/6h + V/12hL) (Narayanan 2021) (test).
 * Invariant: per-token FLOPs do not depend on the parallel layout.
 */
#include <string.h>

#include "internal.h"

/*
 * Forward FLOPs per token re-run by selective recompute: the core attention
 * (Megatron's default), or the modules of tp_train.recompute_modules: the
 * dense MLPs, the MoE MLPs (or their shared experts alone), MLA's
 * up-projections; norms and activations are element-wise (no FLOPs counted).
 */
static double recompute_modules_flops(const tp_train *t, double core, double mlp, double moe,
                                      double shared, double up)
{
    unsigned rc = tp_recompute_modules(t);
    double extra = 0.0;
    if (rc & TP_RC_CORE_ATTN)
        extra += core;
    if (rc & TP_RC_MLP)
        extra += mlp;
    if (rc & TP_RC_MOE)
        extra += moe;
    else if (rc & TP_RC_SHARED_EXPERTS)
        extra += shared;
    if (rc & TP_RC_MLA_UP_PROJ)
        extra += up;
    return extra;
}

/* Forward FLOPs per token of MLA's up-projections (mla_up_proj recompute):
 * queries from the query latent (or the hidden state without one), keys
 * and values from the KV latent; 0 without MLA. */
static double mla_up_flops(const tp_model *m)
{
    if (!tp__is_mla(m))
        return 0.0;
    double a = (double)m->num_heads;
    double rq = m->q_lora_rank > 0 ? (double)m->q_lora_rank : (double)m->hidden;
    return 2.0 * (rq * (double)tp__q_width(m) +
                  (double)m->kv_lora_rank * a * (double)(m->qk_nope_head_dim + m->v_head_dim));
}

void tp_flops_eval(const tp_config *c, const tp_params *P, tp_flops *out)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    memset(out, 0, sizeof *out);
    double h = (double)m->hidden, s = (double)t->seq_len;
    double q = (double)tp__q_width(m), kv = (double)tp__kv_width(m);
    double V = (double)tp__padded_vocab(m->vocab, t->pad_vocab_to);
    double L = (double)m->num_layers, L_moe = (double)P->num_moe_layers, L_dense = L - L_moe;
    double gate = tp_mlp_gated(m->mlp) ? 3.0 : 2.0;

    (void)kv;
    double proj = 2.0 * (double)tp__attn_proj_macs(m);
    /* QK^T over the q width, AV over the v width (= q but under MLA) */
    double span = tp__attn_span(t); /* s, or the packed example's length */
    double core = 2.0 * span * (q + (double)tp__v_width(m));
    bool causal = c->opts.attn_flops == TP_ATTN_FLOPS_CAUSAL;
    if (causal)
        core *= 0.5;
    core *= tp__window_scale(m, span, causal);
    double mlp = 2.0 * h * (double)m->ffn_hidden * gate;
    double moe = 0.0, shared = 0.0;
    if (m->num_experts > 0) {
        double fe = (double)tp_expert_ffn_hidden(m);
        double fsh = (double)tp_shared_ffn_hidden(m);
        shared = 2.0 * h * fsh * gate;
        moe = 2.0 * h * fe * gate * (double)m->topk + 2.0 * h * fsh * gate +
              2.0 * h * (double)m->num_experts;
    }
    double logits = 2.0 * h * V;
    double layers_fwd = L * (proj + core) + L_dense * mlp + L_moe * moe;
    double L_attn = L; /* layers with attention */
    if (tp__is_hybrid(m)) {
        /* per layer kind (hybrid.c): attention, Mamba-2, gated delta-net
         * mixers and dense / MoE MLPs where the pattern has them */
        double n[TP__KINDS] = {0};
        for (int64_t i = 0; i < m->num_layers; i++)
            n[tp__layer_kind(m, i)] += 1.0;
        double mixer[5] = {0.0, proj + core, tp__mamba_fwd_flops(m), tp__gdn_fwd_flops(m),
                           tp__mamba1_fwd_flops(m)};
        double ffn[3] = {0.0, mlp, moe};
        layers_fwd = 0.0;
        L_attn = L_dense = 0.0;
        for (int k = 0; k < TP__KINDS; k++) {
            layers_fwd += n[k] * (mixer[k / 3] + ffn[k % 3]);
            L_attn += k / 3 == TP__MIX_ATTN ? n[k] : 0.0;
            L_dense += k % 3 == TP__FFN_DENSE ? n[k] : 0.0;
        }
    }
    /* MTP module: eh_proj (2h -> h), one layer, and its own pass through the
     * shared output head (model.c design note) */
    double mtp = (double)m->mtp_layers *
                 (2.0 * 2.0 * h * h + proj + core + (m->num_experts > 0 ? moe : mlp) + logits);
    double fwd = layers_fwd + mtp + logits;

    out->model_per_token = 3.0 * fwd;
    if (tp__has_vision(m)) { /* per sample over the s tokens of it (vision.c) */
        tp_vision_flops vf;
        tp__vision_flops(m, s, causal, &vf);
        double enc = m->vision.frozen ? 1.0 : 3.0, prj = m->vision.frozen ? 2.0 : 3.0;
        out->model_per_token += (enc * vf.encoder + prj * vf.projector + 3.0 * vf.cross) / s;
    }
    out->attn_per_token = 3.0 * L_attn * core;
    out->logits_per_token = 3.0 * logits;
    double extra = 0.0;
    if (t->recompute == TP_RECOMPUTE_FULL && t->recompute_layers > 0 &&
        t->recompute_layers * t->pp < m->num_layers)
        /* block method: n layers per stage, p stages (exact for even splits) */
        extra = layers_fwd * (double)(t->recompute_layers * t->pp) / L;
    else if (t->recompute == TP_RECOMPUTE_FULL)
        extra = layers_fwd;
    else if (t->recompute == TP_RECOMPUTE_SELECTIVE)
        extra = recompute_modules_flops(t, L_attn * core, L_dense * mlp, L_moe * moe,
                                        L_moe * shared, L_attn * mla_up_flops(m));
    out->hardware_per_token = out->model_per_token + extra;
    out->six_n_per_token = 6.0 * (double)P->active;
    out->tokens_per_step = (double)t->global_batch * s;
    out->model_per_step = out->model_per_token * out->tokens_per_step;
    out->hardware_per_step = out->hardware_per_token * out->tokens_per_step;
}
