/* SPDX-License-Identifier: MIT */
/*
 * megatron_model.c: Megatron-LM, read: the model a pretrain_gpt.py launch
 * builds (part of the --from-megatron import; megatron_import.c has the
 * scan and the entry points, megatron_import.h the shared types).
 *
 * Version spoken: NVIDIA/Megatron-LM @ d98e8a64ddf3 (2026-08-22) and @
 * 000c4ac24f61 (2025-11-13). Sources: megatron/training/arguments.py (the
 * defaults: LayerNorm, GELU, learned absolute positions, tied embeddings,
 * biases, ffn 4h or int(8h/3/64)*64 with --swiglu, the MLA defaults),
 * megatron/training/tokenizer/tokenizer.py (_vocab_size_with_padding),
 * megatron/core/models/common/embeddings/rotary_pos_embedding.py (Llama 3
 * scaling), megatron/core/transformer/transformer_config.py (the Mamba-2
 * defaults) and the hybrid layer pattern of arguments.py.
 *
 * The steps read the slots into im->model (shape, positions and rotary,
 * the parallel sizes the vocabulary padding needs, experts, hybrid
 * layers, MLA, MTP, windows, sinks) and push the model's trainplan flags;
 * all of the model is read and checked before any of its flags is pushed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "launch.h"
#include "megatron_import.h"

/* ---- the MoE layer pattern (--moe-layer-freq) ---- */

/* --moe-layer-freq as trainplan's (first dense layers, every k-th after). */
static tp_status moe_freq(const slot *s, int64_t L, int64_t *first_dense, int64_t *freq,
                          tp_error *err)
{
    const char *v;
    tp_status st = mg_one_value(s, &v, err);
    if (st != TP_OK)
        return st;
    if (v[0] >= '0' && v[0] <= '9' && strspn(v, "0123456789") == strlen(v)) {
        int64_t n;
        st = mg_val_i64(s, 1, TP_MAX_LAYERS, &n, err);
        if (st != TP_OK)
            return st;
        *first_dense = 0; /* Megatron: layer i is MoE when i % n == 0 */
        *freq = n;
        return TP_OK;
    }
    int *layers;
    size_t n;
    bool parsed = launch_int_list(v, &layers, &n);
    if (!parsed || (int64_t)n != L) {
        free(layers);
        if (!parsed)
            return word_at(err, mg_val_word(s, 0),
                           tp_error_set(err, TP_ERR_CONFIG, s->name,
                                        "\"%s\" value \"%s\" is not an integer or a list "
                                        "expression such as ([0]*3+[1]*29)",
                                        s->name, v));
        return word_at(err, mg_val_word(s, 0),
                       tp_error_set(err, TP_ERR_CONFIG, s->name,
                                    "\"%s\" lists %zu layers but the model has %" PRId64, s->name,
                                    n, L));
    }
    int64_t d = -1, k = 0;
    for (int64_t i = 0; i < L; i++) {
        if (layers[i] != 0 && d < 0) {
            d = i;
        } else if (layers[i] != 0 && k == 0) {
            k = i - d;
        }
    }
    bool ok = d >= 0;
    if (ok && k == 0)
        k = L - d; /* a single MoE layer */
    for (int64_t i = 0; ok && i < L; i++) {
        bool moe = i >= d && (i - d) % k == 0;
        if (moe != (layers[i] != 0))
            ok = false;
    }
    free(layers);
    if (!ok)
        return word_at(err, mg_val_word(s, 0),
                       tp_error_set(err, TP_ERR_CONFIG, s->name,
                                    "\"%s\" pattern \"%s\" is not \"N dense layers, then every "
                                    "k-th layer MoE\", the only layer patterns trainplan models",
                                    s->name, v));
    *first_dense = d;
    *freq = k;
    return TP_OK;
}

/* Layers, hidden size, heads, FFN width, head width, KV groups, norm,
 * embeddings tying and biases. */
tp_status mg_read_shape(const slot *sl, tp_import *im, mread *x, tp_error *err)
{
    tp_model *m = &im->model;
    bool pattern = sl[M_HYB_LAYER].set || sl[M_HYB_OVERRIDE].set; /* gives the layers */
    if (!sl[M_NUM_LAYERS].set && !pattern)
        return mg_missing("--num-layers", err);
    if (!sl[M_HIDDEN].set)
        return mg_missing("--hidden-size", err);
    if (!sl[M_HEADS].set)
        return mg_missing("--num-attention-heads", err);
    if (sl[M_NUM_LAYERS].set)
        TP_TRY(mg_val_i64(&sl[M_NUM_LAYERS], 1, TP_MAX_LAYERS, &m->num_layers, err));
    TP_TRY(mg_val_i64(&sl[M_HIDDEN], 1, TP_MAX_DIM, &m->hidden, err));
    TP_TRY(mg_val_i64(&sl[M_HEADS], 1, TP_MAX_DIM, &m->num_heads, err));
    int64_t h = m->hidden, a = m->num_heads;
    bool swiglu = sl[M_SWIGLU].set;
    x->swiglu = swiglu;
    m->mlp = swiglu ? TP_MLP_SWIGLU : TP_MLP_GELU;
    /* Megatron's default: 4h, or int((4h * 2/3) / 64) * 64 with SwiGLU */
    TP_TRY(mg_opt_i64(&sl[M_FFN], swiglu ? (8 * h / 192) * 64 : 4 * h, 1, TP_MAX_FFN,
                      &m->ffn_hidden, err));
    if (m->ffn_hidden < 1)
        return mg_missing("--ffn-hidden-size", err);
    if (sl[M_KV_CHANNELS].set) {
        TP_TRY(mg_val_i64(&sl[M_KV_CHANNELS], 1, TP_MAX_DIM, &m->head_dim, err));
    } else {
        if (h % a != 0)
            return word_at(err, sl[M_HIDDEN].flag,
                           tp_error_set(err, TP_ERR_CONFIG, "--hidden-size",
                                        "\"--hidden-size\" %" PRId64
                                        " is not a multiple of \"--num-attention-heads\" %" PRId64
                                        " and \"--kv-channels\" is not set",
                                        h, a));
        m->head_dim = h / a;
    }
    m->num_kv_heads = a;
    if (sl[M_GQA].set)
        TP_TRY(mg_opt_i64(&sl[M_QUERY_GROUPS], 1, 1, TP_MAX_DIM, &m->num_kv_heads, err));
    m->norm = TP_NORM_LAYERNORM;
    if (sl[M_NORM].set) {
        static const char *const norms[] = {"LayerNorm", "RMSNorm", NULL};
        int k;
        TP_TRY(mg_val_choice(&sl[M_NORM], norms, &k, err));
        m->norm = k == 1 ? TP_NORM_RMSNORM : TP_NORM_LAYERNORM;
    }
    m->tie_embeddings = !sl[M_UNTIE].set;
    m->linear_bias = !sl[M_NO_BIAS].set;
    m->qkv_bias = sl[M_QKV_BIAS].set && !m->linear_bias;
    m->norm_eps = 1e-5; /* Megatron's --norm-epsilon default */
    if (sl[M_NORM_EPS].set)
        TP_TRY(mg_val_f64(&sl[M_NORM_EPS], 1e-30, 0.1, &m->norm_eps, err));
    return TP_OK;
}

/* The rotary base and Llama 3's frequency scaling, as Megatron builds them:
 * --rotary-base (an integer, default 10000), --use-rope-scaling with
 * --rope-scaling-factor (default 8) and the fixed low/high frequency
 * factors 1 and 4 and original context 8192 of RotaryEmbedding._apply_scaling. */
static tp_status read_rope(const slot *sl, tp_model *m, tp_error *err)
{
    if (m->pos != TP_POS_ROTARY)
        return TP_OK;
    int64_t base = 10000;
    TP_TRY(mg_opt_i64(&sl[M_ROPE_BASE], 10000, 1, INT64_C(1000000000000), &base, err));
    m->rope_theta = (double)base;
    if (sl[M_ROPE_SCALING].set) {
        m->rope_scaling = TP_ROPE_SCALING_LLAMA3;
        m->rope_factor = 8.0;
        if (sl[M_ROPE_FACTOR].set)
            TP_TRY(mg_val_f64(&sl[M_ROPE_FACTOR], 1e-6, 1e6, &m->rope_factor, err));
        m->rope_low_freq_factor = 1.0;
        m->rope_high_freq_factor = 4.0;
        m->rope_original_max = 8192;
    }
    return TP_OK;
}

/* --enable-gpt-oss (megatron/post_training/arguments.py): ModelOpt's
 * builder (model_builder.py, modelopt_gpt_hybrid_builder) then sets
 * position_embedding_type "yarn" with gpt-oss's YaRN values (factor 32 over
 * 131072 positions): rotary positions with scaling of a kind trainplan
 * records as "other" (no parameters, no cost). Without ModelOpt, nothing. */
static tp_status gpt_oss_yarn(const slot *sl, tp_import *im, tp_error *err)
{
    tp_model *m = &im->model;
    bool modelopt;
    TP_TRY(mg_modelopt(sl, &sl[M_GPT_OSS], im, &modelopt, err));
    if (!modelopt || !sl[M_GPT_OSS].set)
        return TP_OK;
    if (m->pos != TP_POS_ROTARY) {
        m->pos = TP_POS_ROTARY;
        m->max_positions = 0;
        TP_TRY(read_rope(sl, m, err));
    }
    m->rope_scaling = TP_ROPE_SCALING_OTHER;
    m->rope_factor = m->rope_low_freq_factor = m->rope_high_freq_factor = 0.0;
    m->rope_original_max = 0;
    return TP_OK;
}

/* The sequence length and the position embeddings. */
tp_status mg_read_positions(const slot *sl, tp_import *im, mread *x, tp_error *err)
{
    tp_model *m = &im->model;
    if (!sl[M_SEQ].set)
        return mg_missing("--seq-length", err);
    TP_TRY(mg_val_i64(&sl[M_SEQ], 1, TP_MAX_SEQ, &x->seq, err));
    int64_t max_pos = x->seq;
    if (sl[M_MAX_POS].set)
        TP_TRY(mg_val_i64(&sl[M_MAX_POS], 1, TP_MAX_SEQ, &max_pos, err));
    else
        assume(im, "--max-position-embeddings not set: taken as --seq-length");
    int pos = 0; /* Megatron's default: learned_absolute */
    if (sl[M_POS_TYPE].set) {
        static const char *const types[] = {"learned_absolute", "rope", "none", "mrope",
                                            "relative",         NULL};
        TP_TRY(mg_val_choice(&sl[M_POS_TYPE], types, &pos, err));
        if (pos >= 3) {
            char what[120];
            snprintf(what, sizeof what,
                     "\"--position-embedding-type %s\" uses %s position "
                     "embeddings",
                     types[pos], pos == 3 ? "multimodal rotary" : "relative");
            return mg_not_modelled(&sl[M_POS_TYPE], what, err);
        }
    }
    if (sl[M_ROTARY].set)
        pos = 1;
    if (pos == 2)
        assume(im, "--position-embedding-type none: counted like rotary positions (no "
                   "parameters)");
    m->pos = pos == 0 ? TP_POS_LEARNED : TP_POS_ROTARY;
    m->max_positions = m->pos == TP_POS_LEARNED ? max_pos : 0;
    TP_TRY(pos == 2 ? TP_OK : read_rope(sl, m, err));
    return gpt_oss_yarn(sl, im, err);
}

/* TP, PP, CP, EP and expert TP (read before the vocabulary, whose padding
 * needs TP). Expert TP defaults to TP, as in Megatron (MoE parallel
 * folding when it differs). */
tp_status mg_read_parallel_sizes(const slot *sl, mread *x, tp_error *err)
{
    TP_TRY(mg_opt_i64(&sl[M_TP], 1, 1, TP_MAX_GPUS, &x->tp, err));
    TP_TRY(mg_opt_i64(&sl[M_PP], 1, 1, TP_MAX_GPUS, &x->pp, err));
    TP_TRY(mg_opt_i64(&sl[M_CP], 1, 1, TP_MAX_GPUS, &x->cp, err));
    TP_TRY(mg_opt_i64(&sl[M_EP], 1, 1, TP_MAX_GPUS, &x->ep, err));
    return mg_opt_i64(&sl[M_ETP], x->tp, 1, TP_MAX_GPUS, &x->etp, err);
}

/* The vocabulary, and the padding Megatron adds to it. */
tp_status mg_read_vocab(const slot *sl, tp_import *im, mread *x, tp_error *err)
{
    tp_model *m = &im->model;
    x->pad = 0;
    if (sl[M_PADDED_VOCAB].set) {
        TP_TRY(mg_val_i64(&sl[M_PADDED_VOCAB], 1, TP_MAX_VOCAB, &m->vocab, err));
        im->has_vocab = true;
        assume(im, "--padded-vocab-size: used as the vocabulary, without further padding");
        return TP_OK;
    }
    int64_t div;
    TP_TRY(mg_opt_i64(&sl[M_MAKE_DIV], 128, 1, TP_MAX_VOCAB, &div, err));
    /* Megatron pads to a multiple of make_vocab_size_divisible_by x TP
     * (_vocab_size_with_padding), whether the vocabulary is an argument or
     * comes from the tokenizer (then from --vocab); when a known vocabulary
     * is already a multiple, no padding flag is needed. */
    int64_t multiple = div * x->tp;
    if (sl[M_VOCAB].set) {
        TP_TRY(mg_val_i64(&sl[M_VOCAB], 1, TP_MAX_VOCAB, &m->vocab, err));
        im->has_vocab = true;
        if (multiple > 1 && m->vocab % multiple != 0)
            x->pad = multiple;
    } else if (multiple > 1) {
        x->pad = multiple;
    }
    return TP_OK;
}

/* Experts: count, top-k, widths, shared experts and the MoE layer pattern. */
tp_status mg_read_experts(const slot *sl, tp_import *im, tp_error *err)
{
    tp_model *m = &im->model;
    if (sl[M_EXPERTS].set)
        TP_TRY(mg_val_i64(&sl[M_EXPERTS], 0, TP_MAX_EXPERTS, &m->num_experts, err));
    if (m->num_experts > 0) {
        TP_TRY(mg_opt_i64(&sl[M_TOPK], 2, 1, TP_MAX_EXPERTS, &m->topk, err));
        TP_TRY(mg_opt_i64(&sl[M_MOE_FFN], m->ffn_hidden, 1, TP_MAX_FFN, &m->moe_ffn_hidden, err));
        int64_t shared = 0;
        TP_TRY(mg_opt_i64(&sl[M_SHARED], 0, 0, TP_MAX_FFN, &shared, err));
        m->num_shared_experts = shared > 0 ? 1 : 0;
        m->shared_ffn_hidden = shared;
        m->moe_layer_freq = 1;
        if (sl[M_MOE_FREQ].set)
            TP_TRY(moe_freq(&sl[M_MOE_FREQ], m->num_layers, &m->moe_first_dense, &m->moe_layer_freq,
                            err));
    }
    return TP_OK;
}

/* "--window-size L,R" (Megatron's tuple, optionally in parentheses): the
 * left context L; a causal model has R = 0. Keys per query: L + 1. */
static tp_status window_size(const slot *s, int64_t *out, tp_error *err)
{
    const char *v;
    TP_TRY(mg_one_value(s, &v, err));
    char buf[64];
    size_t n = strlen(v);
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) /* drop parentheses, brackets and blanks */
        if (!strchr("()[] ", v[i]))
            buf[k++] = v[i];
    buf[k] = '\0';
    char *comma = strchr(buf, ',');
    int64_t left = 0, right = 0;
    if (!comma)
        return mg_value_error(s,
                              tp_error_set(err, TP_ERR_CONFIG, s->name,
                                           "\"%s\" must be \"LEFT,RIGHT\" (got \"%s\")", s->name,
                                           v),
                              err);
    *comma = '\0';
    TP_TRY(mg_value_error(s, tp_io_parse_i64(s->name, buf, -1, TP_MAX_SEQ, &left, err), err));
    TP_TRY(
        mg_value_error(s, tp_io_parse_i64(s->name, comma + 1, -1, TP_MAX_SEQ, &right, err), err));
    if (right != 0 && right != -1)
        return mg_value_error(s,
                              tp_error_set(err, TP_ERR_CONFIG, s->name,
                                           "\"%s\" %s looks ahead %" PRId64
                                           " tokens; a causal window has RIGHT 0",
                                           s->name, v, right),
                              err);
    *out = left < 0 ? 0 : left + 1; /* -1: no window */
    return TP_OK;
}

/*
 * Hybrid models (Megatron-Core's pretrain_hybrid.py / pretrain_mamba.py;
 * src/lib/hybrid.c): --hybrid-layer-pattern (or the deprecated
 * --hybrid-override-pattern) of 'M' Mamba-2, '*' attention, '-' MLP and
 * 'E' MoE layers; the layer count is the pattern's, as arguments.py
 * derives it (a different --num-layers is noted and overridden). The
 * Mamba-2 shape: TransformerConfig's defaults (transformer_config.py at
 * d98e8a64) mamba_state_dim 128, mamba_head_dim 64, mamba_num_groups 8,
 * mamba_num_heads 2h / head dim (MambaMixer: expand 2, d_conv 4, conv
 * bias, no projection biases). --spec is read only as the hybrid or Mamba
 * stack spec. Refused: a pattern's '|' pipeline and '/' MTP separators,
 * 'G', 'D' and '+' layers, --is-hybrid-model without a pattern (the layers
 * would come from --hybrid-attention-ratio and --hybrid-mlp-ratio).
 */
tp_status mg_read_hybrid(const slot *sl, tp_import *im, tp_error *err)
{
    tp_model *m = &im->model;
    const slot *ps = sl[M_HYB_LAYER].set ? &sl[M_HYB_LAYER] : &sl[M_HYB_OVERRIDE];
    if (sl[M_SPEC].set) {
        char spec[256] = "";
        for (int i = 0; i < sl[M_SPEC].nv; i++)
            snprintf(spec + strlen(spec), sizeof spec - strlen(spec), "%s%s", i ? " " : "",
                     sl[M_SPEC].v[i]);
        bool stack = strcmp(spec, "megatron.core.models.hybrid.hybrid_layer_specs "
                                  "hybrid_stack_spec") == 0 ||
                     strcmp(spec, "megatron.core.models.mamba.mamba_layer_specs "
                                  "mamba_stack_spec") == 0;
        if (!stack || !ps->set)
            return mg_not_modelled(&sl[M_SPEC],
                                   "\"--spec\" builds the layers from a custom module spec", err);
    }
    if (!ps->set) {
        if (sl[M_IS_HYBRID].set)
            return word_at(err, sl[M_IS_HYBRID].flag,
                           tp_error_set(err, TP_ERR_CONFIG, "--is-hybrid-model",
                                        "\"--is-hybrid-model\" without \"--hybrid-layer-pattern\": "
                                        "the layers would come from --hybrid-attention-ratio and "
                                        "--hybrid-mlp-ratio, which trainplan does not read"));
        return TP_OK;
    }
    if (sl[M_HYB_LAYER].set && sl[M_HYB_OVERRIDE].set)
        return word_at(err, sl[M_HYB_OVERRIDE].flag,
                       tp_error_set(err, TP_ERR_CONFIG, "--hybrid-override-pattern",
                                    "\"--hybrid-override-pattern\" and \"--hybrid-layer-pattern\" "
                                    "are both given (Megatron-LM refuses it)"));
    const char *p;
    TP_TRY(mg_one_value(ps, &p, err));
    size_t n = strlen(p);
    for (size_t i = 0; i < n; i++)
        if (!strchr("M*-E", p[i]))
            return word_at(err, ps->vw[0],
                           tp_error_set(err, TP_ERR_CONFIG, ps->name,
                                        "\"%s\" character %zu '%c': only 'M' Mamba-2, '*' "
                                        "attention, '-' MLP and 'E' MoE layers are read (no '|' "
                                        "pipeline or '/' MTP separators, no 'G', 'D' or '+' "
                                        "layers)",
                                        ps->name, i + 1, p[i] > 32 && p[i] < 127 ? p[i] : '?'));
    if (n < 1 || n >= TP_PATTERN_MAX)
        return word_at(err, ps->vw[0],
                       tp_error_set(err, TP_ERR_CONFIG, ps->name,
                                    "\"%s\" must have 1 to %d layers, got %zu", ps->name,
                                    TP_PATTERN_MAX - 1, n));
    if (sl[M_NUM_LAYERS].set && m->num_layers != (int64_t)n) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "--num-layers %lld: Megatron-LM uses the pattern's %zu layers instead",
                 (long long)m->num_layers, n);
        assume(im, msg);
    }
    m->num_layers = (int64_t)n;
    memcpy(m->layer_pattern, p, n + 1);
    if (strchr(p, 'M')) {
        TP_TRY(mg_opt_i64(&sl[M_MAMBA_STATE], 128, 1, TP_MAX_DIM, &m->mamba_state, err));
        TP_TRY(mg_opt_i64(&sl[M_MAMBA_HEAD_DIM], 64, 1, TP_MAX_DIM, &m->mamba_head_dim, err));
        TP_TRY(mg_opt_i64(&sl[M_MAMBA_GROUPS], 8, 1, TP_MAX_DIM, &m->mamba_groups, err));
        int64_t inner = 2 * m->hidden; /* MambaMixer: d_inner = expand * h, expand 2 */
        if (!sl[M_MAMBA_HEADS].set && inner % m->mamba_head_dim != 0)
            return word_at(err, sl[M_MAMBA_HEAD_DIM].set ? sl[M_MAMBA_HEAD_DIM].flag : ps->flag,
                           tp_error_set(err, TP_ERR_CONFIG, "--mamba-head-dim",
                                        "2 x \"--hidden-size\" (%lld) is not a multiple of the "
                                        "Mamba head dim %lld (Megatron-LM asserts it); give "
                                        "\"--mamba-num-heads\"",
                                        (long long)inner, (long long)m->mamba_head_dim));
        TP_TRY(mg_opt_i64(&sl[M_MAMBA_HEADS], inner / m->mamba_head_dim, 1, TP_MAX_DIM,
                          &m->mamba_heads, err));
        m->mamba_conv = 4;
    }
    return TP_OK;
}

/* Group-limited routing (--moe-router-num-groups, --moe-router-group-topk;
 * Megatron-Core transformer_config.py: the groups matter only with a group
 * top-k, which needs the groups). */
static tp_status read_router_groups(const slot *sl, tp_import *im, tp_model *m, tp_error *err)
{
    if (!sl[M_ROUTER_GROUP_TOPK].set || m->num_experts <= 0) {
        if (sl[M_ROUTER_GROUPS].set)
            list_add(im->ignored, sizeof im->ignored, "--moe-router-num-groups");
        if (sl[M_ROUTER_GROUP_TOPK].set)
            list_add(im->ignored, sizeof im->ignored, "--moe-router-group-topk");
        return TP_OK;
    }
    TP_TRY(mg_opt_i64(&sl[M_ROUTER_GROUP_TOPK], 0, 1, TP_MAX_EXPERTS, &m->moe_group_topk, err));
    if (!sl[M_ROUTER_GROUPS].set)
        return tp_error_set(err, TP_ERR_CONFIG, "--moe-router-group-topk",
                            "\"--moe-router-group-topk\" needs \"--moe-router-num-groups\" "
                            "(Megatron-Core)");
    return mg_opt_i64(&sl[M_ROUTER_GROUPS], 0, 1, TP_MAX_EXPERTS, &m->moe_router_groups, err);
}

/* Multi-latent attention, MTP, QK-norm, windows, squared ReLU, router bias. */
tp_status mg_read_arch(const slot *sl, tp_import *im, tp_error *err)
{
    tp_model *m = &im->model;
    if (sl[M_MLA].set) {
        /* Megatron-LM's defaults (arguments.py): q_lora_rank None, kv_lora_rank 32,
         * qk_head_dim 128, qk_pos_emb_head_dim 64, v_head_dim 128 */
        TP_TRY(mg_opt_i64(&sl[M_Q_LORA], 0, 0, TP_MAX_DIM, &m->q_lora_rank, err));
        TP_TRY(mg_opt_i64(&sl[M_KV_LORA], 32, 1, TP_MAX_DIM, &m->kv_lora_rank, err));
        TP_TRY(mg_opt_i64(&sl[M_QK_HEAD], 128, 0, TP_MAX_DIM, &m->qk_nope_head_dim, err));
        TP_TRY(mg_opt_i64(&sl[M_QK_POS], 64, 0, TP_MAX_DIM, &m->qk_rope_head_dim, err));
        TP_TRY(mg_opt_i64(&sl[M_V_HEAD], 128, 1, TP_MAX_DIM, &m->v_head_dim, err));
        /* MLA has per-head K and V; its widths are the MLA dimensions
         * above, and head_dim (--kv-channels, which MLA ignores) stays as
         * given so that an export of the import writes the same arguments */
        m->num_kv_heads = m->num_heads;
        if (m->linear_bias)
            return word_at(err, sl[M_MLA].flag,
                           tp_error_set(err, TP_ERR_CONFIG, "--multi-latent-attention",
                                        "\"--multi-latent-attention\" with linear biases cannot "
                                        "be counted: add \"--disable-bias-linear\""));
        if (!sl[M_QK_LN].set)
            assume(im, "--multi-latent-attention without --qk-layernorm: the latent norms "
                       "(q_lora_rank + kv_lora_rank per layer) are counted anyway");
    } else if (sl[M_QK_LN].set) {
        m->qk_norm = TP_QK_NORM_HEAD; /* one norm of kv_channels each on q and k */
    }
    if (sl[M_MTP].set)
        TP_TRY(mg_val_i64(&sl[M_MTP], 0, TP_MAX_LAYERS, &m->mtp_layers, err));
    if (sl[M_WINDOW].set) {
        TP_TRY(window_size(&sl[M_WINDOW], &m->sliding_window, err));
        if (sl[M_WINDOW_SKIP].set && m->sliding_window > 0)
            TP_TRY(mg_val_i64(&sl[M_WINDOW_SKIP], 1, m->num_layers, &m->global_every, err));
    }
    if (sl[M_SQRELU].set) {
        if (sl[M_SWIGLU].set)
            return word_at(err, sl[M_SQRELU].flag,
                           tp_error_set(err, TP_ERR_CONFIG, "--squared-relu",
                                        "\"--squared-relu\" and \"--swiglu\" are both given"));
        m->mlp = TP_MLP_SQRELU;
        if (sl[M_QUICK_GEGLU].set) /* argument_utils.py: squared ReLU wins */
            list_add(im->ignored, sizeof im->ignored, "--quick-geglu");
    } else if (sl[M_QUICK_GEGLU].set) {
        /* gpt-oss's MLP (argument_utils.py): gated, quick_gelu x*sigmoid(1.702x);
         * the weights, FLOPs and stored tensors of a GeGLU */
        if (sl[M_SWIGLU].set)
            return word_at(err, sl[M_QUICK_GEGLU].flag,
                           tp_error_set(err, TP_ERR_CONFIG, "--quick-geglu",
                                        "\"--quick-geglu\" and \"--swiglu\" are both given"));
        m->mlp = TP_MLP_GEGLU;
    }
    if (sl[M_EXPERT_BIAS].set && m->num_experts > 0)
        m->router_bias = true;
    if (sl[M_SOFTMAX].set) {
        /* "learnable": one learned offset (sink logit) per head per layer,
         * gpt-oss's attention sinks; "off-by-one" adds a constant 1 to the
         * denominator, no parameter and no cost trainplan can tell */
        static const char *const kinds[] = {"vanilla", "off-by-one", "learnable", NULL};
        int k;
        TP_TRY(mg_val_choice(&sl[M_SOFTMAX], kinds, &k, err));
        m->attn_sinks = k == 2;
    }
    if (sl[M_CAPACITY].set && m->num_experts > 0) /* tokens past it are dropped */
        TP_TRY(mg_val_f64(&sl[M_CAPACITY], 0.01, 1e3, &m->moe_capacity_factor, err));
    return read_router_groups(sl, im, m, err);
}

/* Group-limited routing as trainplan flags (read_router_groups). */
static tp_status emit_router_groups(const slot *sl, tp_import *im, const tp_model *m, tp_error *err)
{
    if (m->moe_router_groups <= 0)
        return TP_OK;
    PUSH((mg_from_slot(im, &sl[M_ROUTER_GROUPS]),
          push_i64(im, "--moe-router-groups", m->moe_router_groups)));
    PUSH((mg_from_slot(im, &sl[M_ROUTER_GROUP_TOPK]),
          push_i64(im, "--moe-router-group-topk", m->moe_group_topk)));
    return TP_OK;
}

/* The features read_arch found, as trainplan flags (none for a plain model). */
tp_status mg_emit_arch(const slot *sl, tp_import *im, tp_error *err)
{
    const tp_model *m = &im->model;
    if (m->kv_lora_rank > 0) {
        mg_from_slot(im, &sl[M_MLA]);
        PUSH(push_i64(im, "--q-lora-rank", m->q_lora_rank));
        PUSH(push_i64(im, "--kv-lora-rank", m->kv_lora_rank));
        PUSH(push_i64(im, "--qk-rope-head-dim", m->qk_rope_head_dim));
        PUSH(push_i64(im, "--qk-nope-head-dim", m->qk_nope_head_dim));
        PUSH(push_i64(im, "--v-head-dim", m->v_head_dim));
    }
    if (m->qk_norm == TP_QK_NORM_HEAD)
        PUSH((mg_from_slot(im, &sl[M_QK_LN]), push_str(im, "--qk-norm", "head")));
    if (m->mtp_layers > 0)
        PUSH((mg_from_slot(im, &sl[M_MTP]), push_i64(im, "--mtp-layers", m->mtp_layers)));
    if (m->sliding_window > 0) {
        mg_from_slot(im, &sl[M_WINDOW]);
        PUSH(push_i64(im, "--sliding-window", m->sliding_window));
        if (m->global_every > 0)
            PUSH((mg_from_slot(im, &sl[M_WINDOW_SKIP]),
                  push_i64(im, "--global-every", m->global_every)));
    }
    if (m->router_bias)
        PUSH((mg_from_slot(im, &sl[M_EXPERT_BIAS]), push_flag(im, "--router-bias")));
    if (m->attn_sinks)
        PUSH((mg_from_slot(im, &sl[M_SOFTMAX]), push_flag(im, "--attn-sinks")));
    if (m->moe_capacity_factor > 0.0) {
        char cf[32];
        snprintf(cf, sizeof cf, "%.17g", m->moe_capacity_factor);
        PUSH((mg_from_slot(im, &sl[M_CAPACITY]), push_str(im, "--moe-capacity-factor", cf)));
    }
    return emit_router_groups(sl, im, m, err);
}

/* The model read above as trainplan flags. */
tp_status mg_emit_model(const slot *sl, tp_import *im, const mread *x, tp_error *err)
{
    const tp_model *m = &im->model;
    mg_from_slot(im, &sl[M_NUM_LAYERS]);
    PUSH(push_i64(im, "--layers", m->num_layers));
    mg_from_slot(im, &sl[M_HIDDEN]);
    PUSH(push_i64(im, "--hidden", m->hidden));
    mg_from_slot(im, &sl[M_HEADS]);
    PUSH(push_i64(im, "--heads", m->num_heads));
    PUSH(push_i64(im, "--kv-heads", m->num_kv_heads));
    PUSH(push_i64(im, "--head-dim", m->head_dim));
    mg_from_slot(im, &sl[M_FFN]);
    PUSH(push_i64(im, "--ffn-hidden", m->ffn_hidden));
    if (im->has_vocab)
        PUSH((mg_from_slot(im, &sl[M_VOCAB]), push_i64(im, "--vocab", m->vocab)));
    PUSH(push_str(im, "--mlp",
                  x->swiglu                 ? "swiglu"
                  : m->mlp == TP_MLP_SQRELU ? "squared-relu"
                  : m->mlp == TP_MLP_GEGLU  ? "geglu"
                                            : "gelu"));
    PUSH(push_str(im, "--norm", m->norm == TP_NORM_RMSNORM ? "rmsnorm" : "layernorm"));
    PUSH(push_flag(im, m->tie_embeddings ? "--tie-embeddings" : "--no-tie-embeddings"));
    PUSH(push_i64(im, "--experts", m->num_experts));
    if (m->num_experts > 0) {
        PUSH(push_i64(im, "--topk", m->topk));
        PUSH(push_i64(im, "--moe-ffn-hidden", m->moe_ffn_hidden));
        PUSH(push_i64(im, "--shared-experts", m->num_shared_experts));
    }
    return TP_OK;
}
