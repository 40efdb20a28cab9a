/* SPDX-License-Identifier: MIT */
/*
 * vision.c: the vision tower of a vision-language model (tp_vision):
 * its exact parameter count, forward FLOPs per sample, stored activations
 * and the language-side cross-attention layers of Llama 3.2 Vision.
 *
 * Symbols: h_v encoder width, a_v its heads, f_v its MLP width, L_v its
 * blocks, P patch side, C channels, T_p frames per patch (Qwen2-VL: 2), N
 * encoder patches per sample (tp_vision.image_tokens, a training setting),
 * r patches merged into one language token, N_lm = N / r, H, q, kv, d_h the
 * language model's width, query width, key/value width and head width, s
 * the sequence, w(x) = 2x for a LayerNorm with bias, x for an RMSNorm.
 *
 * Design note (issue 16). Parameters (the HF modeling code of each family):
 *   patch embedding   C*T_p*P^2*h_v (+ h_v conv bias: SigLIP)
 *   positions         n_pos*h_v learned rows (mllama 1601, SigLIP 4096;
 *                     Qwen2-VL: rotary, none) (+ h_v class token: mllama)
 *   block             4*h_v^2 (+ 4h_v biases) + MLP(f_v) + 2 w(h_v)
 *                     MLP: 2*h_v*f_v (+ f_v + h_v) GELU, 3*h_v*f_v
 *                     (+ 2f_v + h_v) SwiGLU (Qwen2.5-VL)
 *   final norms       n_fn * w(h_v) (SigLIP post_layernorm 1; mllama pre
 *                     and post 2; Qwen: 0)
 *   mllama extras     tile position table aspect*tiles*n_pos*h_v + its gate
 *                     1, pre/post tile tables 2*(aspect*tiles*h_v + 1),
 *                     2 gates per global (gated) block
 *   projector         w(proj_norm) + in*H (one linear) or in*p_h + p_h*H (MLP),
 *                     or in*p_h + p_h*p_2 + p_2*H (three linears: Llama 4's
 *                     Llama4VisionMLP2 fc1, fc2, then Llama4MultiModalProjector),
 *                     + biases; in = h_v*r (Qwen: 2x2 patches concatenated),
 *                     or set (mllama: h_v x 6 layers' outputs = 7680; Gemma 3
 *                     average-pools 4x4 patches: in = h_v)
 *   language side     extra_vocab*H embedding rows (mllama: 8); per mllama
 *                     cross-attention layer 2*w(d_h) q/k norms + 2 gates
 *                     (the layer's projections, MLP and norms are those of
 *                     a language layer and are counted there)
 *   Checks (tests/unit/test_vision.c, against the released checkpoints'
 *   totals, docs/models.md): Llama-3.2-11B-Vision 10,670,220,835 (vision
 *   863,567,379, projector 31,461,376, language side 34,832); Qwen2-VL-7B
 *   8,291,375,616; Qwen2.5-VL-7B 8,292,166,656; Gemma-3-4B 4,300,079,472;
 *   Llama 4 Scout 108,641,793,536, vision part 871,932,416 (test_arch.c).
 *   Hand derivation, Qwen2-VL-7B (h_v 1280, f_v 5120, 32 blocks, P 14,
 *   T_p 2): patch 3*2*14*14*1280 = 1,505,280; block 4*1280^2 + 4*1280 +
 *   2*1280*5120 + 5120 + 1280 + 2*2560 = 19,677,440, x32 = 629,678,080;
 *   merger 2560 + 5120*5120 + 5120 + 5120*3584 + 3584 = 44,575,744; with the
 *   Qwen2-7B language model 7,615,616,512: 8,291,375,616.
 * FLOPs per sample, forward (2 per multiply-add; GEMMs and attention only):
 *   patch 2*N*C*T_p*P^2*h_v; blocks L_v*N*(2*(4h_v^2 + g*h_v*f_v) + 4*span*h_v)
 *   (g = 2 GELU, 3 SwiGLU; bidirectional, no causal halving; span = the
 *   patches one attention sees: an image, tiles*((image/P)^2 + class), capped
 *   at N, or all N for dynamic resolution (one image per sample, stated);
 *   Qwen2.5-VL's windowed blocks min(window, span)); projector
 *   2*N_lm*(in*H) or 2*N_lm*(in*p_h + p_h*H).
 *   mllama cross layer, replacing the self-attention a language layer has:
 *   k/v projections on N_lm image states 4*H*kv*N_lm instead of 4*H*kv*s,
 *   core 4*s*N_lm*q (every text token sees every image token) instead of
 *   the causal self-attention core.
 * Training: a trainable tower costs 3x its forward (forward, data and
 *   weight gradients) like the language layers. A frozen one (the usual
 *   LLaVA/Qwen recipe: encoder frozen, projector trained) runs its forward
 *   only, stores no activations (nothing upstream needs its gradient), and
 *   holds 16-bit weights without gradients or optimizer state; its
 *   projector costs 2x forward (forward and weight gradient; no data
 *   gradient flows into the frozen encoder).
 * Memory per sample (trainable; 16-bit, flash attention): per patch per
 *   block the LN inputs 4h_v, QKV and FC1 inputs 4h_v (split by t with SP
 *   only), Q, K, V, O 8h_v, log-sum-exp 4a_v, MLP 4f_v (GELU) or 6f_v
 *   (SwiGLU), split by t; the pixels 2*C*T_p*P^2 per patch; the projector
 *   keeps its input 2*in and (MLP) 4*p_h per language token. Recompute
 *   applies to the language layers only: the tower keeps its activations
 *   (stated in the estimate's assumptions).
 * Placement: the tower and projector sit on pipeline stage 0 before the
 *   first language layer (Megatron-Core's and NeMo's VLM layout); tensor
 *   parallelism splits the blocks' attention (a_v heads, divisible by t)
 *   and MLP and the projector's linears like the language layers, the
 *   patch embedding, positions and norms are replicated.
 * Hand derivation of the FLOPs, Qwen2-VL-7B, N = 1024 patches, s = 4096
 *   (tests/unit/test_vision.c): patch 2*1024*1176*1280; blocks 32*1024*
 *   (2*(4*1280^2 + 2*1280*5120) + 4*1024*1280); projector 2*256*(5120^2 +
 *   5120*3584); trained: 3x their sum / 4096 per token.
 * Known approximations (stated, none silent): the image states' transfer
 *   to later pipeline stages (mllama) and the ZeRO-3 all-gather of a frozen
 *   tower's weights are not in the step time; with CP a cross layer keeps
 *   the self-attention's ring exchange; recompute does not re-run the
 *   tower; the search's states bound leaves the tower out (a bound stays a
 *   bound); 6N counts the tower's parameters like the language model's;
 *   with no image tokens mllama skips its cross layers whole
 *   (MllamaTextModel), where trainplan keeps their q/o projections and MLP.
 */
#include <string.h>

#include "internal.h"

static int64_t vnorm(tp_norm k, int64_t width)
{
    return k == TP_NORM_LAYERNORM ? 2 * width : width;
}

static int64_t v_channels(const tp_vision *v)
{
    return v->channels > 0 ? v->channels : 3;
}

static int64_t v_temporal(const tp_vision *v)
{
    return v->temporal > 0 ? v->temporal : 1;
}

/* Pixels (per channel-frame) one patch covers x channels x frames. */
int64_t tp__vision_patch_in(const tp_vision *v)
{
    return v_channels(v) * v_temporal(v) * v->patch * v->patch;
}

int64_t tp__vision_proj_in(const tp_vision *v)
{
    int64_t r = v->merge > 0 ? v->merge : 1;
    return v->proj_in > 0 ? v->proj_in : v->hidden * r;
}

/* One encoder block's parameters. */
int64_t tp__vision_block_params(const tp_vision *v)
{
    int64_t h = v->hidden, f = v->ffn_hidden;
    bool gated = tp_mlp_gated(v->mlp);
    int64_t attn = 4 * h * h + (v->attn_bias ? 4 * h : 0);
    int64_t mlp = (gated ? 3 : 2) * h * f + (v->mlp_bias ? (gated ? 2 * f : f) + h : 0);
    return attn + mlp + 2 * vnorm(v->norm, h);
}

/* Parameters every TP rank of the tower holds whole: patch embedding,
 * positions, class token, mllama tables and gates, the norms. */
int64_t tp__vision_replicated_params(const tp_vision *v)
{
    int64_t h = v->hidden;
    int64_t w = tp__vision_patch_in(v) * h + (v->patch_bias ? h : 0) + v->positions * h +
                (v->class_token ? h : 0) + v->final_norms * vnorm(v->norm, h) +
                v->layers * 2 * vnorm(v->norm, h) + 2 * v->gated_layers;
    if (v->aspect_ids > 0) {
        int64_t tiles = v->tiles > 0 ? v->tiles : 1;
        w += v->aspect_ids * tiles * v->positions * h + 1 + 2 * (v->aspect_ids * tiles * h + 1);
    }
    return w;
}

int64_t tp__vision_cross_in(const tp_model *m, int64_t first, int64_t n)
{
    const tp_vision *v = &m->vision;
    if (v->cross_every <= 0)
        return 0;
    /* count of i in [first, first + n) with i >= cross_first, (i - f0) % every == 0 */
    int64_t lo = first > v->cross_first ? first : v->cross_first, hi = first + n;
    if (lo >= hi)
        return 0;
    int64_t e = v->cross_every;
    int64_t below_hi = (hi - v->cross_first + e - 1) / e;
    int64_t below_lo = (lo - v->cross_first + e - 1) / e;
    return below_hi - below_lo;
}

int64_t tp_model_num_cross_layers(const tp_model *m)
{
    return tp__vision_cross_in(m, 0, m->num_layers);
}

void tp__vision_params(const tp_model *m, tp_params *p)
{
    const tp_vision *v = &m->vision;
    if (!tp__has_vision(m))
        return;
    int64_t H = m->hidden, in = tp__vision_proj_in(v);
    p->vision = v->layers * (tp__vision_block_params(v) - 2 * vnorm(v->norm, v->hidden)) +
                tp__vision_replicated_params(v);
    int64_t p2 = v->proj_hidden2, out = p2 > 0 ? p2 : H; /* the width after proj_hidden */
    int64_t proj = v->proj_hidden > 0 ? in * v->proj_hidden + v->proj_hidden * out +
                                            (v->proj_bias ? v->proj_hidden + out : 0)
                                      : in * H + (v->proj_bias ? H : 0);
    if (v->proj_hidden > 0 && p2 > 0)
        proj += p2 * H + (v->proj_bias ? H : 0);
    p->vision_projector = proj + (v->proj_norm > 0 ? vnorm(v->proj_norm_kind, v->proj_norm) : 0);
    int64_t dh = tp_head_dim(m);
    int64_t cross = tp__vision_cross_in(m, 0, m->num_layers);
    p->vision_text = v->extra_vocab * H + cross * (2 * vnorm(m->norm, dh) + 2);
}

/* Patches one attention of the tower spans (design note). */
double tp__vision_span(const tp_vision *v)
{
    double N = (double)v->image_tokens;
    if (v->image_size > 0 && v->patch > 0) {
        double side = (double)(v->image_size / v->patch);
        double tiles = v->tiles > 0 ? (double)v->tiles : 1.0;
        double per = tiles * (side * side + (v->class_token ? 1.0 : 0.0));
        return per < N ? per : N;
    }
    return N;
}

/* Mean attention span over the blocks (windows on all but full_layers). */
static double mean_span(const tp_vision *v)
{
    double span = tp__vision_span(v);
    if (v->window <= 0 || v->layers <= 0)
        return span;
    double w = (double)v->window < span ? (double)v->window : span;
    double Lv = (double)v->layers, full = (double)v->full_layers;
    return (full * span + (Lv - full) * w) / Lv;
}

void tp__vision_flops(const tp_model *m, double s, bool causal, tp_vision_flops *out)
{
    const tp_vision *v = &m->vision;
    memset(out, 0, sizeof *out);
    if (!tp__has_vision(m))
        return;
    double N = (double)v->image_tokens, h = (double)v->hidden, f = (double)v->ffn_hidden;
    double g = tp_mlp_gated(v->mlp) ? 3.0 : 2.0;
    double r = v->merge > 0 ? (double)v->merge : 1.0, Nlm = N / r;
    double H = (double)m->hidden, in = (double)tp__vision_proj_in(v);
    double ph = (double)v->proj_hidden, p2 = (double)v->proj_hidden2;
    out->encoder =
        2.0 * N * (double)tp__vision_patch_in(v) * h +
        (double)v->layers * N * (2.0 * (4.0 * h * h + g * h * f) + 4.0 * mean_span(v) * h);
    out->projector =
        2.0 * Nlm * (ph > 0.0 ? in * ph + (p2 > 0.0 ? ph * p2 + p2 * H : ph * H) : in * H);
    double cross = (double)tp__vision_cross_in(m, 0, m->num_layers);
    if (cross > 0.0) {
        double q = (double)tp__q_width(m), kv = (double)tp__kv_width(m);
        double self_core = 2.0 * s * (q + (double)tp__v_width(m)) * (causal ? 0.5 : 1.0) *
                           tp__window_scale(m, s, causal);
        out->cross_per_layer = 4.0 * H * kv * (Nlm - s) + 4.0 * s * Nlm * q - s * self_core;
        out->cross = cross * out->cross_per_layer;
    }
}

/* Activation bytes of the tower and projector for one sample, one GPU. */
double tp__vision_act_bytes(const tp_config *c)
{
    const tp_model *m = &c->model;
    const tp_vision *v = &m->vision;
    if (!tp__has_vision(m))
        return 0.0;
    const tp_train *t = &c->train;
    double N = (double)v->image_tokens, h = (double)v->hidden, tt = (double)t->tp;
    double r = v->merge > 0 ? (double)v->merge : 1.0;
    double proj = N / r *
                  (2.0 * (double)tp__vision_proj_in(v) +
                   4.0 * ((double)v->proj_hidden + (double)v->proj_hidden2));
    if (v->frozen)
        return proj / tt;
    bool sp = t->sp && t->tp > 1;
    double rep = 8.0 * h;
    double shard = 8.0 * h + 4.0 * (double)v->heads +
                   (tp_mlp_gated(v->mlp) ? 6.0 : 4.0) * (double)v->ffn_hidden;
    double block = shard / tt + (sp ? rep / tt : rep);
    double pixels = 2.0 * (double)tp__vision_patch_in(v);
    return N * ((double)v->layers * block + pixels) + proj / tt;
}

/* Language-side activation bytes one mllama cross layer adds over a self-
 * attention layer, one micro-batch: K, V of N_lm image states instead of
 * the s/c text tokens (split by t), and the image states kept as the k/v
 * projections' input. */
double tp__vision_cross_act_bytes(const tp_config *c)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    const tp_vision *v = &m->vision;
    double b = (double)t->micro_batch, T = (double)t->seq_len * b / (double)t->cp;
    double r = v->merge > 0 ? (double)v->merge : 1.0;
    double Nlm = b * (double)v->image_tokens / r;
    double kv2 = 2.0 * (double)tp__kv2_width(m) / (double)t->tp;
    return Nlm * (2.0 * (double)m->hidden + kv2) - T * kv2;
}

double tp__vision_params_approx(const tp_model *m)
{
    const tp_vision *v = &m->vision;
    if (!tp__has_vision(m))
        return 0.0;
    double h = (double)v->hidden, f = (double)v->ffn_hidden, H = (double)m->hidden;
    double in = (double)tp__vision_proj_in(v), ph = (double)v->proj_hidden;
    double p2 = (double)v->proj_hidden2;
    double tiles = v->tiles > 0 ? (double)v->tiles : 1.0;
    return (double)v->layers * (4.0 * h * h + 3.0 * h * f + 8.0 * h) +
           (double)v->positions * h * (1.0 + (double)v->aspect_ids * tiles) +
           (ph > 0.0 ? in * ph + (p2 > 0.0 ? ph * p2 + p2 * H : ph * H) : in * H) +
           (double)v->extra_vocab * H + (double)tp__vision_patch_in(v) * h;
}

/* Whether any field but layers is set (field by field: padding may hold anything). */
static bool vision_fields_set(const tp_vision *v)
{
    int64_t any = v->hidden | v->heads | v->ffn_hidden | v->channels | v->patch | v->temporal |
                  v->positions | v->tiles | v->aspect_ids | v->gated_layers | v->final_norms |
                  v->image_size | v->window | v->full_layers | v->merge | v->proj_in |
                  v->proj_hidden | v->proj_hidden2 | v->proj_norm | v->extra_vocab |
                  v->cross_every | v->cross_first | v->image_tokens;
    return any != 0 || v->mlp != TP_MLP_GELU || v->norm != TP_NORM_LAYERNORM ||
           v->proj_norm_kind != TP_NORM_LAYERNORM || v->attn_bias || v->mlp_bias || v->patch_bias ||
           v->class_token || v->frozen;
}

tp_status tp__vision_validate(const tp_model *m, tp_error *err)
{
    const tp_vision *v = &m->vision;
    if (!tp__has_vision(m)) {
        if (v->layers < 0 || vision_fields_set(v))
            return tp_error_set(err, TP_ERR_INVALID_ARG, "model.vision.layers",
                                "vision settings are given but the vision tower has %lld layers "
                                "(it needs layers >= 1)",
                                (long long)v->layers);
        return TP_OK;
    }
    TP__CHECK_RANGE(v->layers, "model.vision.layers", 1, 1000);
    TP__CHECK_RANGE(v->hidden, "model.vision.hidden", 1, 65536);
    TP__CHECK_RANGE(v->heads, "model.vision.heads", 1, v->hidden);
    TP__CHECK_RANGE(v->ffn_hidden, "model.vision.ffn_hidden", 1, 1048576);
    TP__CHECK_RANGE(v->channels, "model.vision.channels", 0, 16);
    TP__CHECK_RANGE(v->patch, "model.vision.patch", 1, 1024);
    TP__CHECK_RANGE(v->temporal, "model.vision.temporal", 0, 64);
    TP__CHECK_RANGE(v->positions, "model.vision.positions", 0, 65536);
    TP__CHECK_RANGE(v->tiles, "model.vision.tiles", 0, 16);
    TP__CHECK_RANGE(v->aspect_ids, "model.vision.aspect_ids", 0, 64);
    TP__CHECK_RANGE(v->gated_layers, "model.vision.gated_layers", 0, v->layers);
    TP__CHECK_RANGE(v->final_norms, "model.vision.final_norms", 0, 8);
    TP__CHECK_RANGE(v->image_size, "model.vision.image_size", 0, 65536);
    TP__CHECK_RANGE(v->window, "model.vision.window", 0, 1048576);
    TP__CHECK_RANGE(v->full_layers, "model.vision.full_layers", 0, v->layers);
    TP__CHECK_RANGE(v->merge, "model.vision.merge", 0, 1024);
    TP__CHECK_RANGE(v->proj_in, "model.vision.proj_in", 0, 1048576);
    TP__CHECK_RANGE(v->proj_hidden, "model.vision.proj_hidden", 0, 1048576);
    TP__CHECK_RANGE(v->proj_hidden2, "model.vision.proj_hidden2", 0, 1048576);
    if (v->proj_hidden2 > 0 && v->proj_hidden == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.vision.proj_hidden2",
                            "a second projector width %lld needs a first (proj_hidden is 0)",
                            (long long)v->proj_hidden2);
    TP__CHECK_RANGE(v->proj_norm, "model.vision.proj_norm", 0, 1048576);
    TP__CHECK_RANGE(v->extra_vocab, "model.vision.extra_vocab", 0, 65536);
    TP__CHECK_RANGE(v->cross_every, "model.vision.cross_every", 0, m->num_layers);
    TP__CHECK_RANGE(v->cross_first, "model.vision.cross_first", 0, m->num_layers - 1);
    TP__CHECK_RANGE(v->image_tokens, "model.vision.image_tokens", 0, 16777216);
    if (v->hidden % v->heads != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.vision.heads",
                            "%lld vision heads do not divide the vision width %lld",
                            (long long)v->heads, (long long)v->hidden);
    if ((int)v->mlp < 0 || v->mlp > TP_MLP_GEGLU || (int)v->norm < 0 || v->norm > TP_NORM_RMSNORM ||
        (int)v->proj_norm_kind < 0 || v->proj_norm_kind > TP_NORM_RMSNORM)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.vision",
                            "invalid vision norm or mlp kind");
    if (v->image_size > 0 && v->image_size % v->patch != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.vision.image_size",
                            "image side %lld is not a whole number of %lld-pixel patches",
                            (long long)v->image_size, (long long)v->patch);
    int64_t r = v->merge > 0 ? v->merge : 1;
    if (v->image_tokens % r != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.vision.image_tokens",
                            "%lld image tokens per sample are not a whole number of merged "
                            "groups of %lld patches",
                            (long long)v->image_tokens, (long long)r);
    if (v->cross_every == 0 && v->cross_first != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "model.vision.cross_first",
                            "cross_first %lld needs cross_every >= 1 (it is 0)",
                            (long long)v->cross_first);
    return TP_OK;
}
