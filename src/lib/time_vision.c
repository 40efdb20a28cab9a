/* SPDX-License-Identifier: MIT */
/*
 * time_vision.c: step time of a vision-language model's extra work (time.c
 * header 10; vision.c design note): the vision tower and projector, which
 * ride with the embedding on stage 0, and what an mllama cross-attention
 * layer costs over the self-attention layer it is counted as. Called once
 * per evaluation of a model with a tower (tp__has_vision); time.c adds the
 * tower to the embedding's cost and the cross differences to the stages
 * that hold cross layers (add_cross). The GEMMs and attention cores go
 * through time.c's (tp__time_gemm_s, tp__time_core).
 */
#include <string.h>

#include "time_internal.h"

/*
 * The vision tower and projector on stage 0, one micro-batch (vision.c
 * design note): M = b*N patches through the blocks' GEMMs (split t ways
 * like the language layers', with their two all-reduces each way), a
 * bidirectional attention core over the mean span, element-wise norms,
 * residuals and activation; the patch embedding runs whole on every rank.
 * Frozen: the encoder has no backward, the projector only its weight
 * gradient. Recompute never re-runs the tower.
 */
void tp__time_vision(const ctx *x, cost *o)
{
    const tp_config *c = x->c;
    const tp_vision *v = &c->model.vision;
    double tt = x->tt, b = (double)c->train.micro_batch;
    double M = b * (double)v->image_tokens, hv = (double)v->hidden, fv = (double)v->ffn_hidden;
    double r = v->merge > 0 ? (double)v->merge : 1.0;
    memset(o, 0, sizeof *o);
    if (!(M > 0.0))
        return;
    double gv = tp_mlp_gated(v->mlp) ? 2.0 : 1.0;
    double blk = tp__time_gemm_s(x, M, 3.0 * hv / tt, hv) + tp__time_gemm_s(x, M, hv, hv / tt) +
                 tp__time_gemm_s(x, M, gv * fv / tt, hv) + tp__time_gemm_s(x, M, hv, fv / tt);
    tp_vision_flops vf;
    tp__vision_flops(&c->model, (double)c->train.seq_len, true, &vf);
    double span_flops = vf.encoder / (double)v->image_tokens -
                        2.0 * (double)tp__vision_patch_in(v) * hv -
                        (double)v->layers * 2.0 * (4.0 * hv * hv + (gv + 1.0) * hv * fv);
    double attn_f, attn_b; /* all blocks' cores: vf.encoder less its GEMMs */
    double heads = (double)v->heads / tt, span = tp__vision_span(v);
    tp__time_core(x, M * span_flops / tt, (double)v->layers * M * heads * span, &attn_f, &attn_b);
    double elem = M * (20.0 * hv / (x->sp ? tt : 1.0) + (gv + 1.0) * 2.0 * fv / tt) / x->mem_bw;
    double enc_f = (double)v->layers * (blk + elem) + attn_f +
                   tp__time_gemm_s(x, M, hv, (double)tp__vision_patch_in(v));
    double Mp = M / r, in = (double)tp__vision_proj_in(v), ph = (double)v->proj_hidden;
    double p2 = (double)v->proj_hidden2; /* Llama 4: a third linear */
    double proj = ph > 0.0 ? tp__time_gemm_s(x, Mp, ph / tt, in) +
                                 tp__time_gemm_s(x, Mp, p2 > 0.0 ? p2 : x->h, ph / tt)
                           : tp__time_gemm_s(x, Mp, x->h / tt, in);
    if (ph > 0.0 && p2 > 0.0)
        proj += tp__time_gemm_s(x, Mp, x->h / tt, p2);
    o->gemm_fwd = (double)v->layers * blk + proj;
    o->fwd = enc_f + proj;
    o->bwd = v->frozen ? proj : 2.0 * (enc_f - attn_f) + attn_b + 2.0 * proj;
    if (c->train.tp > 1) {
        double ar = tp_group_coll_time(&c->gpu, c->opts.coll_model, TP_COLL_ALL_REDUCE,
                                       M * hv * 2.0, &x->tp_pl);
        o->tp_f = 2.0 * (double)v->layers * ar;
        o->tp_b = v->frozen ? 0.0 : o->tp_f;
    }
}

/*
 * What one mllama cross-attention layer costs over the self-attention
 * layer it is counted as (vision.c design note): k/v projections over the
 * b*N_lm image states instead of the T text tokens, and a core where each
 * text token sees all N_lm image tokens of its sample instead of the causal
 * self-attention core. Components may be negative.
 */
void tp__time_cross_delta(const ctx *x, cost *o)
{
    const tp_config *c = x->c;
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    double T = x->T, tt = x->tt, h = x->h, q = x->q, kv = x->kv;
    double b = (double)t->micro_batch, s = (double)t->seq_len;
    double r = m->vision.merge > 0 ? (double)m->vision.merge : 1.0;
    double n = (double)m->vision.image_tokens / r; /* image states per sample */
    memset(o, 0, sizeof *o);
    double g = tp__time_gemm_s(x, T, q / tt, h) + tp__time_gemm_s(x, b * n, 2.0 * kv / tt, h) -
               tp__time_gemm_s(x, T, (q + 2.0 * kv) / tt, h);
    double qv = 0.5 * (q + (double)tp__v_width(m));
    double heads = (double)m->num_heads / tt;
    double wsc = tp__window_scale(m, s, true);
    double cf, cb, sf, sb;
    tp__time_core(x, 4.0 * T * n * qv / tt, T * heads * n, &cf, &cb);
    tp__time_core(x, 4.0 * b * s * s * qv / (x->cc * tt) * 0.5 * wsc,
                  b * heads * s * s / x->cc * 0.5 * wsc, &sf, &sb);
    o->gemm_fwd = g;
    o->attn_fwd = cf - sf;
    o->fwd = g + cf - sf;
    o->bwd = 2.0 * g + cb - sb;
}
