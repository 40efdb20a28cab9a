/* SPDX-License-Identifier: MIT */
/*
 * memory.c: per-GPU memory of one pipeline stage, by component.
 *
 * Symbols: s sequence (tokens), b micro-batch (sequences), h hidden,
 * a heads, q = a*d_h, kv = n_kv*d_h, f MLP width, V padded vocabulary,
 * t/p/c/d/e tensor/pipeline/context/data/expert parallel sizes,
 * m micro-batches per step per pipeline, v virtual stages, L_s layers on
 * the stage. Bytes unless stated.
 *
 * 1. Parameters held (formulas.md 3.2, 3.4). Transformer linears are split
 *    t ways (routed experts: e ways across GPUs and t_e ways inside, the
 *    expert TP t_e = etp, default t; MoE parallel folding, config.c);
 *    norms and routers are replicated. Stage 0 holds the input embedding
 *    V*h/t (+ learned positions), the last stage the output head V*h/t and
 *    final norm; with tied weights and p > 1 both end stages hold the table
 *    (Megatron keeps a copy on each).
 * 2. States: weights 2 B/param (4 for tf32, 1 with fp8 parameter gather:
 *    TransformerEngine holds the weights in fp8, Megatron --fp8-param-gather),
 *    plus, under fp8 with opts.fp8_weight_cache, TransformerEngine's fp8
 *    copies of the linear weights (tp_fp8_weight_copy_bytes): the row-wise
 *    copy Megatron-Core caches over a step's micro-batches (none with fp8
 *    parameters, which are it) and the column-wise one for the backward, a
 *    transpose where fp8 GEMMs take only the TN layout (TE's
 *    is_non_tn_fp8_gemm_supported: any layout at compute capability 10.x,
 *    11.x and from 13.0; a GPU that states none is taken as such when it
 *    has an FP4 peak) and a separately scaled copy under MXFP8
 *    and NVFP4; under ZeRO-3 with the gathered layers only,
 *    gradients 2 or 4 (grad_dtype),
 *    optimizer = master 4 (if kept) + moments (AdamW 2, SGD-momentum 1, SGD 0
 *    moments of 4/2/1(+4/2048 block absmax) bytes). ZeRO shards over the
 *    d*c ranks that hold the same dense shard (Megatron's distributed
 *    optimizer and FSDP both shard over DP x CP), experts over the expert-
 *    data-parallel ranks d_e = gpus / (t_e*e*p) (= d*c/e when t_e = t):
 *      ZeRO-1: optimizer/D  ZeRO-2: + grads/D  ZeRO-3: + weights/D
 *    ZeRO-3 adds the gathered working set: prefetch_layers x the largest
 *    layer's weights + one layer of unsharded grads (DeepSpeed's
 *    estimate_zero3_model_states_mem_needs charges 4 B x largest layer),
 *    and the end stages' embedding/head when gathered.
 * 3. Activations per layer per micro-batch (formulas.md 3.3.3, DERIVED from
 *    Korthikanti et al. 2022 Table 2), tokens per GPU T = s*b/c:
 *      attention: LN input 2h, QKV input 2h, Q 2q, K 2kv, V 2kv, O 2q,
 *                 FlashAttention log-sum-exp 4a (fp32)  [no flash: + a*(s/c)*2
 *                 softmax against one ring block of s/c keys (+ 3*a*(s/c) dropout
 *                 mask and output with dropout)]
 *      MLP:       LN input 2h, FC1 input 2h, GeLU: 2f + 2f; SwiGLU: 4f + 2f
 *      MoE MLP:   per routed copy (k per token) 2h + the MLP tensors of f_e,
 *                 plus the shared experts' tensors and fp32 router logits 4E
 *      dropout:   2h of masks when hidden dropout is on
 *    TP divides everything but the 8h of LN/QKV/FC1 inputs (and dropout
 *    masks), which sequence parallelism divides too. GPT/MHA/GeLU with
 *    dropout gives Korthikanti's 34*s*b*h exactly (test). With
 *    opts.tp_gathered_input (torchtitan's DTensor TP) the QKV and FC1
 *    inputs stay whole under SP (gathered_input_extra; formulas.md 3.3.3).
 *    Korthikanti convention (seed 001): s*b*h*(34 + 5*a*s/h)/t per layer.
 *    Selective recompute drops the s^2 terms (no-op with flash attention).
 *    Megatron-Core's recompute modules (tp_train.recompute_modules, under
 *    selective): core_attn the s^2 terms; layernorm the norms' outputs (the
 *    QKV and FC1 inputs, 4h); mlp the dense MLP's tensors (its input kept);
 *    moe the whole MoE MLP (routed copies, shared experts, router logits);
 *    moe_act the experts' activation outputs (2 f_e per routed copy);
 *    shared_experts the shared experts' tensors; mla_up_proj MLA's Q, K
 *    and V (2q + 2(K+V) bytes: the up-projections' and RoPE's outputs,
 *    which Megatron-Core's CheckpointWithoutOutput frees after the core
 *    attention and rebuilds from the kept latents in the backward).
 *    opts.fp8_act_cache (DeepSeek-V3's storage, fp8_cache_saving): the
 *    linear layers' saved inputs at 1 + 4/128 B, the attention output at
 *    1.5 + 4/128 B (E5M6), a MoE MLP's activation input in fp8 and its
 *    output not stored (re-run: time.c moe_layer). Otherwise fp8 runs save
 *    TransformerEngine's quantized copies (te_fp8_saving): the QKV, dense
 *    FC1, FC2 and routed inputs at 1 B (MXFP8 1 + 1/32, NVFP4 0.5 + 1/16),
 *    under delayed scaling the output projection's and shared experts'
 *    extra copies; opts.fp8_hp_saved_inputs (torchao) keeps 16 bits.
 *    Full recompute with groups of k layers (formulas.md 3.3.1 last row):
 *      exact   : ceil(L_s/k) stored inputs of 2*T*h (/t with SP) per
 *                micro-batch in flight + k layers of one micro-batch (the
 *                largest kind of layer the stage holds: MoE-only stages, MoE)
 *      seed001 : (L_s/k + k) x per-layer activations (seed 001)
 *      block (recompute_layers = n < L_s, Megatron --recompute-method block):
 *                ceil(n/k) inputs + (L_s - n) layers of full activations (the
 *                stage's mean) per micro-batch in flight + k layers of working set
 * 4. Micro-batches in flight at peak (formulas.md 3.4): no PP 1; 1F1B
 *    min(m, p - i) on stage i; interleaved (p - i)*(1 + (p-1)/(p*v)) capped
 *    at m; GPipe m.
 * 4b. DualPipe (TP_SCHED_DUALPIPE; deepseek-ai/DualPipe dualpipe/dualpipe.py
 *    DualPipe.step @ 3da1bbe): the GPU at pipeline rank r holds stage
 *    j = min(r, p-1-r) of one direction and stage p-1-j of the other, each
 *    with its own weights, gradients and optimizer state (the README's 2x
 *    parameters; ranks 0 and p-1 hold the embedding and the head). Its
 *    forwards before the first backward are 2(p/2 - j - 1) + (j + 1) of
 *    stage j and j + 1 of stage p-1-j, and the main loop runs one more
 *    forward of stage j before a backward of stage p-1-j: p - j chunks of
 *    stage j and j + 1 of stage p-1-j, p + 1 in all (the README's PP + 1),
 *    which is p - i on either stage i, 1F1B's count. memory_rank_pair adds
 *    the two stages; the CUDA context and NCCL buffers are counted once.
 * 5. Logits on the last stage (formulas.md 3.5): the fp32 output-layer
 *    input 4*T*h/t plus the loss peak opts.ce_bytes_per_logit * T*V/t when
 *    the cross-entropy is not fused (Megatron's estimator counts 4, the fp32
 *    logits; PyTorch's F.cross_entropy on upcast logits also holds the fp32
 *    log-probabilities and their gradient at the backward: 12, calibrated on
 *    the torchtitan rows of runs-dev.csv; at TP > 1 opts.ce_bytes_per_logit_tp
 *    where set: torchtitan's loss parallel, 16); fused/chunked CE: 4*T*h/t. With
 *    opts.tp_gathered_input and SP the head also keeps its gathered bf16
 *    input, 2*T*h*(1 - 1/t) more.
 *    Per-op selective checkpointing (opts.sac_ops, torchtitan) stores the
 *    block input, every other matmul output and the attention output.
 *    ZeRO-3 under PP keeps the stage's 16-bit weights and its gradients (in
 *    the gradient dtype) gathered (torchtitan does not reshard between
 *    micro-batches; calibrated on its 405B rows); framework
 *    buffers per parameter (opts.extra_param_bytes, e.g. DeepSpeed
 *    BF16_Optimizer's 16-bit gradients) are unsharded.
 *    Optimizer offload (tp_train.offload_optimizer = f): f of the optimizer
 *    state leaves the GPU; the host holds it plus an fp32 gradient copy,
 *    f x shard x (optimizer + 4) bytes per GPU (ZeRO-Offload, Ren et al.
 *    2021), checked against opts.host_mem_bytes_per_node for the node.
 *    Parameter offload (tp_train.offload_params, ZeRO 3; move_params_off):
 *    the weight shard on the host or NVMe, and with the whole optimizer
 *    offloaded the gradient shard too (FSDP2's CPU offload). Activation
 *    offload (offload_act_layers = n, pp 1, no recompute;
 *    offload_activations): n layers' activations on the host, the GPU
 *    keeping the rest plus one layer in transit. The host total is checked
 *    per node.
 * 5b. A vision tower (vision.c design note) sits on stage 0: its weights
 *    (a frozen encoder's 16-bit weights only, apart in frozen_params) and
 *    its activations per sample in flight; mllama cross layers add the K, V
 *    of the image states on the stages that hold them.
 * 6. Fixed: CUDA context; NCCL buffers per communicator (groups of size >1);
 *    with TransformerEngine's chunked TP overlap (tp_tp_overlap_of
 *    CHUNKED) its userbuffers, counted with the NCCL buffers:
 *    initialize_ub (TE v2.9 module/base.py) registers one buffer for each
 *    of 12 GEMMs (qkv, proj, fc1, fc2 by fprop, dgrad, wgrad) of Megatron's
 *    shape [seq x micro-batch / CP, h] (training/initialize.py @
 *    core_v0.15.0), 2 B an element, 1 B for the 8 all-gather ones under
 *    fp8: 24 or 16 B per token and hidden unit (a reduce-scatter GEMM a
 *    user config moves to ring exchange takes 2 - 1/t times more, not
 *    counted);
 *    fragmentation = fraction x dynamic memory (activations, logits, ZeRO-3
 *    gathered set).
 *
 * Invariants (tests/unit/test_memory.c): every part >= 0; total = sum of
 * parts; raising t, p or the ZeRO stage never raises weights/grads/optimizer
 * per GPU; fits == (total <= capacity && host_fits), host_fits false only
 * with something offloaded (tests/fuzz/fuzz_eval_invariants.c).
 * Known approximations: biases of row-parallel linears are counted as split;
 * embedding-stage token ids and dropout masks are ignored (< 0.1%);
 * the interleaved in-flight count for stages i > 0 is the 1F1B count scaled
 * by the same interleaving penalty; MoE routing is balanced unless
 * model.moe_imbalance says otherwise (tp_moe_load: the busiest rank).
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "internal.h"

/* Parameters of this GPU's shard of one stage, split by kind. */
typedef struct stage_params {
    double dense;         /* sharded by t (and ZeRO over d*c) */
    double expert;        /* routed experts, sharded by t*e (and ZeRO over d*c/e) */
    double largest_layer; /* the largest layer's shard, for the ZeRO-3 working set */
    double ends;          /* embedding + head shard on this stage, part of dense */
    double frozen;        /* a frozen vision tower (stage 0): weights only */
} stage_params;

/* The vision tower on stage 0 and the mllama cross-attention extras on any
 * stage (vision.c design note): block linears split t ways, the rest whole;
 * a frozen encoder goes apart (weights only), its projector stays trainable. */
static void vision_shard(const tp_config *c, const tp_params *P, int64_t stage, int64_t first_layer,
                         int64_t layers, stage_params *sp)
{
    const tp_model *m = &c->model;
    double tpz = (double)c->train.tp;
    int64_t cross = tp__vision_cross_in(m, first_layer, layers);
    if (cross > 0) /* q/k norms and two gates per cross layer */
        sp->dense += (double)cross * (double)(P->vision_text - m->vision.extra_vocab * m->hidden) /
                     (double)tp__vision_cross_in(m, 0, m->num_layers);
    if (stage != 0)
        return;
    const tp_vision *v = &m->vision;
    double rep = (double)tp__vision_replicated_params(v);
    double enc = ((double)P->vision - rep) / tpz + rep;
    double norm =
        v->proj_norm > 0
            ? (double)(v->proj_norm_kind == TP_NORM_LAYERNORM ? 2 * v->proj_norm : v->proj_norm)
            : 0.0;
    double proj = ((double)P->vision_projector - norm) / tpz + norm;
    double rows = (double)(v->extra_vocab * m->hidden) / tpz; /* vocabulary-parallel */
    sp->dense += proj + rows;
    if (v->frozen)
        sp->frozen += enc;
    else
        sp->dense += enc;
}

/*
 * What every pipeline stage of one configuration shares: the per-layer
 * shards, the bytes per parameter, the activations of one layer. Computed
 * once per configuration (tp__memory_heaviest fills up to three stages
 * from it; a search evaluates millions of configurations), with the same
 * expressions as per stage, so every figure is the same to the bit.
 */
typedef struct mem_shared {
    int64_t dp, mb;
    tp_state_bytes bpp;
    double tpz, ep;
    double norm_w;                    /* one norm's weights */
    double dense_layer;               /* a dense layer's shard */
    double layer_dense, layer_expert; /* a MoE layer's non-expert and routed shards */
    double table, positions;          /* embedding / head table shard, position table */
    double a_dense, a_moe;            /* activations of one layer, one micro-batch */
    double a_mtp;                     /* the layer of an MTP module (mtp_activation_bytes) */
    double fp8_copy;                  /* TE's fp8 weight copies, B per linear parameter */
    double userbuffers;               /* TE's userbuffers (header 6), bytes */
} mem_shared;

static double userbuffer_bytes(const tp_config *c);

static double layer_activation_bytes(const tp_config *c, bool moe);

/* moe_act: also the activations of a MoE layer (some stage holds one).
 * acts (or NULL): the two layer activations, read when *have, else stored
 * there (tp__memory_stages_act). */
static void mem_shared_init(const tp_config *c, const tp_params *P, bool moe_act, mem_shared *x,
                            double *acts, bool *have)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    double tpz = (double)t->tp, ep = (double)t->ep, etp = (double)tp_expert_tp(t);
    int64_t h = m->hidden;
    double norm_w = (double)tp__norm_params(m);
    /* replicated on every TP rank: two norms, MLA down-projections, QK-norms */
    double whole = (double)tp__layer_norms(m) * norm_w + (double)tp__attn_replicated_params(m);
    /* every field is set below (no memset: this runs once per evaluation) */
    x->dp = tp_train_dp(t);
    x->mb = tp__flush_microbatches(t); /* in flight: one schedule run's */
    tp_state_bytes_per_param(t, &x->bpp);
    x->fp8_copy = tp_fp8_weight_copy_bytes(c);
    x->userbuffers = userbuffer_bytes(c);
    x->tpz = tpz;
    x->ep = ep;
    x->norm_w = norm_w;

    /* Dense layers: everything but the replicated weights is split t ways. */
    x->dense_layer = ((double)P->per_layer_dense - whole) / tpz + whole;
    x->layer_dense = x->layer_expert = 0.0;
    if (P->num_moe_layers > 0) {
        double routed = (double)P->moe_routed / (double)P->num_moe_layers;
        double shared = (double)P->moe_shared / (double)P->num_moe_layers;
        double router = (double)tp__router_params(m);
        double non_expert = (double)P->per_layer_moe - routed - shared - router - whole;
        x->layer_dense = (non_expert + shared) / tpz + router + whole;
        x->layer_expert = routed / (etp * ep);
    }
    int64_t V = tp__padded_vocab(m->vocab, t->pad_vocab_to);
    x->table = (double)V * (double)h / tpz;
    x->positions = m->pos == TP_POS_LEARNED ? (double)(m->max_positions * h) : 0.0;

    if (acts && *have) {
        x->a_dense = acts[0];
        x->a_moe = acts[1];
    } else {
        x->a_dense = layer_activation_bytes(c, false);
        x->a_moe = moe_act ? layer_activation_bytes(c, true) : 0.0;
        if (acts) {
            acts[0] = x->a_dense;
            acts[1] = x->a_moe;
            *have = true;
        }
    }
    /* a MoE layer when the model has experts, as the step time counts it */
    x->a_mtp = m->mtp_layers <= 0    ? 0.0
               : m->num_experts <= 0 ? x->a_dense
               : moe_act             ? x->a_moe
                                     : layer_activation_bytes(c, true);
}

static stage_params stage_param_shard(const tp_config *c, const tp_params *P, const mem_shared *x,
                                      int64_t stage, int64_t first_layer, int64_t n_moe,
                                      int64_t layers)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    double tpz = x->tpz, ep = x->ep;
    int64_t n_dense = layers - n_moe;
    stage_params sp = {0};

    sp.dense += (double)n_dense * x->dense_layer;
    double largest = n_dense > 0 ? x->dense_layer : 0.0;
    if (tp__is_hybrid(m)) { /* layer by layer (hybrid.c) */
        sp.dense = largest = 0.0;
        tp__hybrid_shard(c, P, first_layer, layers, &sp.dense, &sp.expert, &largest);
    } else if (n_moe > 0) {
        sp.dense += (double)n_moe * x->layer_dense;
        sp.expert += (double)n_moe * x->layer_expert;
        if (x->layer_dense + x->layer_expert > largest)
            largest = x->layer_dense + x->layer_expert;
    }
    sp.largest_layer = largest;

    bool first = stage == 0, last = stage == t->pp - 1;
    if (first)
        sp.ends += x->table + x->positions;
    if (last && P->mtp > 0) {
        /* MTP modules sit after the last layer (Megatron: on the last stage) */
        double mtp_routed = (double)P->mtp_routed;
        sp.dense += ((double)P->mtp - mtp_routed) / tpz;
        sp.expert += mtp_routed / (tpz * ep);
    }
    if (last) {
        sp.ends += x->norm_w; /* final norm */
        if (!m->tie_embeddings || t->pp > 1)
            sp.ends += x->table; /* untied head, or the tied copy on the last stage */
    }
    sp.dense += sp.ends;
    if (tp__has_vision(m))
        vision_shard(c, P, stage, first_layer, layers, &sp);
    return sp;
}

/*
 * Per-op selective activation checkpointing (torchtitan's "op" SAC, the
 * policy behind its `selective` mode): the block input is stored, and of the
 * operations inside only every other matmul output and the attention output
 * (with its fp32 log-sum-exp) are saved; norms, activations and the other
 * matmuls are recomputed. Llama layout (wq, wk, wv, wo, w1, w3, w2): wq, wv,
 * w1 and w2 are saved; fused GPT layout (qkv, o, fc1, fc2): qkv and fc1.
 * MoE layers: the routed copies' w1 outputs and the permuted input. Bytes per
 * token on this GPU (sharded by t but the block input, /t with SP).
 */
static double sac_bytes_per_token(const tp_config *c, bool moe)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    double h = (double)m->hidden, a = (double)m->num_heads, tpz = (double)t->tp;
    double q = (double)tp__q_width(m), kv = (double)tp__kv_width(m);
    double f = (double)m->ffn_hidden;
    double input = 2.0 * h;
    double saved = 2.0 * q + 4.0 * a; /* attention output and its log-sum-exp */
    if (tp_mlp_gated(m->mlp))
        saved += 2.0 * q + 2.0 * kv; /* wq, wv */
    else
        saved += 2.0 * (q + 2.0 * kv); /* fused qkv */
    if (moe) {
        double fe = (double)tp_expert_ffn_hidden(m);
        double k = (double)m->topk;
        saved += k * (2.0 * fe + 2.0 * h) + 2.0 * h;
    } else if (tp_mlp_gated(m->mlp)) {
        saved += 2.0 * f + 2.0 * h; /* w1, w2 */
    } else {
        saved += 2.0 * f; /* fc1 */
    }
    bool sp = t->sp && t->tp > 1;
    return saved / tpz + (sp ? input / tpz : input);
}

/* opts.fp8_act_cache (fp8_cache_saving): bytes per cached element, fp8 with
 * one fp32 scale per 1x128 tile, and the attention output's E5M6 (12 bits) */
#define FP8_TILE_BYTES (1.0 + 4.0 / 128.0)
#define E5M6_TILE_BYTES (1.5 + 4.0 / 128.0)

/* What one fp8 storage saves against the 16-bit activations, bytes per
 * element of each tensor it touches (fp8_saved_bytes; negative: added). */
typedef struct fp8_store {
    double cut;                /* a quantized linear input (2 B less its bytes) */
    double norm_inputs;        /* how many of the QKV and FC1 inputs (h each) */
    double attn_out;           /* the attention output, per element of v */
    double routed_per_fe;      /* a routed copy's expert tensors, per f_e */
    double shared_per_fsh;     /* the shared experts' tensors, per f_sh */
    double shared_added_per_h; /* beside the shared experts, per h */
} fp8_store;
static void fp8_saved_bytes(const tp_config *c, bool moe, unsigned rc, const fp8_store *st,
                            double *rep, double *shard);

/*
 * opts.tp_gathered_input (torchtitan's DTensor TP with SP): the attention's
 * input and a dense MLP's are all-gathered before their column-parallel
 * linears, which save the gathered tensor whole (2 B, or the 1 B fp8 copy
 * when Float8 gathers in fp8) where Megatron saves the 2 B sequence shard
 * and re-gathers it. Bytes per token beyond the shard layer_activation_bytes
 * counts. A MoE layer's routed inputs are counted apart (the MoE terms):
 * only its attention input here.
 */
static double te_saved_input_bytes(const tp_train *t);
static bool te_fp8_storage(const tp_config *c);

static double gathered_input_extra(const tp_config *c, bool moe)
{
    double h = (double)c->model.hidden, tpz = (double)c->train.tp;
    double in_bytes = c->train.precision == TP_PREC_FP8 ? 1.0 : 2.0;
    double inputs = moe ? 1.0 : 2.0;
    if (c->opts.fp8_act_cache) /* the shard and the gathered copy both in fp8 tiles */
        return inputs * h * (FP8_TILE_BYTES - FP8_TILE_BYTES / tpz);
    if (te_fp8_storage(c)) { /* the shard and the gathered copy both quantized */
        double b = te_saved_input_bytes(&c->train);
        return inputs * h * (b - b / tpz);
    }
    return inputs * h * (in_bytes - 2.0 / tpz);
}

/*
 * The fp8 activation cache (opts.fp8_act_cache; DeepSeek-V3 technical
 * report, arXiv 2412.19437, section 3.3.3 "Low-Precision Activation"): the
 * inputs the linear layers save for their backward are cached in fp8 with
 * the fine-grained quantization of section 3.3.2 (one fp32 scale per 1x128
 * tile: 1 + 4/128 B per element), the attention output (the input of the
 * output projection, which the attention's backward also reads) in the
 * report's 12-bit E5M6 on the same tiles (1.5 + 4/128 B), and a MoE MLP
 * (routed and shared experts) keeps its activation's input in fp8 and
 * recomputes the output in the backward. Here: the QKV and FC1 inputs
 * (unless the layernorm module recomputes them), the attention output, a
 * dense MLP's activation output (its FC2 input), a routed copy's permuted
 * input (its FC1 input) and the experts' activation input and output. The
 * norms' inputs, Q, K, V (the attention kernel's inputs), MLA's latents
 * (the latent norms' inputs), the log-sum-exp and the router logits keep
 * their bytes. Bytes per token saved, split like layer_activation_bytes.
 */
static void fp8_cache_saving(const tp_config *c, bool moe, unsigned rc, double *rep, double *shard)
{
    double cut = 2.0 - FP8_TILE_BYTES;
    double in_elems = tp_mlp_gated(c->model.mlp) ? 2.0 : 1.0; /* activation input per f */
    double in_saved = in_elems * cut;                         /* per f, output kept */
    fp8_store st = {
        .cut = cut,
        .norm_inputs = 2.0, /* the QKV and FC1 inputs, a MoE layer's too */
        .attn_out = 2.0 - E5M6_TILE_BYTES,
        /* routed: the input in fp8, the output (2 B per f_e) recomputed
         * unless moe_act has dropped it already */
        .routed_per_fe = in_saved + (rc & TP_RC_MOE_ACT ? 0.0 : 2.0),
        .shared_per_fsh = in_saved + 2.0,
        .shared_added_per_h = 0.0,
    };
    fp8_saved_bytes(c, moe, rc, &st, rep, shard);
}

/*
 * TransformerEngine's fp8 storage (te_fp8_saving; the default under
 * --precision fp8 unless opts.fp8_hp_saved_inputs or opts.fp8_act_cache).
 * Under fp8 autocast a TE linear quantizes its input for the forward GEMM
 * and saves that quantized copy, not the 16-bit tensor, for the weight-
 * gradient GEMM. Read at TransformerEngine d0067d0da (2026-08) and v1.11
 * (c27ee60ec, 2024, the rows' era), transformer_engine/pytorch/:
 *  - Linear (module/linear.py): `inputmat = input_quantizer(inputmat)`,
 *    own_quantized_input (lines 372-440); only the column-wise data is
 *    kept and `saved_inputmat = inputmat` (597-621), the local sequence
 *    shard under SP (the gathered inputmat_total is freed, 553-557, and
 *    re-gathered in the backward, 979-1001); save_original_input is the
 *    opt-out (299-334). v1.11 saves inputmat or its fp8 transpose
 *    inputmat_t (linear.py 287-299): one 1-byte copy either way.
 *  - LayerNormLinear (layernorm_linear.py): the norm writes ln_out
 *    quantized (with_quantized_norm, 243-317); ln_out, the local shard,
 *    is saved with one usage (478-497, 526-536) beside the 16-bit norm
 *    input `inputmat`. Megatron-Core's QKV (and a dense layer's FC1) is
 *    this module.
 *  - LayerNormMLP (layernorm_mlp.py): fc1_out, the GEMM output, stays
 *    16-bit for the activation's backward; act_out, the FC2 input, is
 *    quantized (628-655); both saved (807-824). Megatron-Core's separate
 *    FC2 (a TE Linear after its own bias-SwiGLU, which saves only its
 *    input) stores the same.
 *  - GroupedLinear (grouped_linear.py): the experts' inputs quantized,
 *    the row-wise data dropped, the rest saved (538-556); v1.11 the same
 *    (grouped_linear.py 209-221). So a routed copy's permuted tokens (FC1
 *    input) and its activation output (FC2 input) are 1 B per element.
 *  - DotProductAttention (attention/dot_product_attention/backends.py,
 *    FusedAttnFunc): without fp8 attention it saves q, k, v and its own
 *    16-bit out (1629-1664). The output projection's quantized copy of out
 *    is a second tensor: Megatron-Core says so and, from TE 2.6 with a
 *    recipe other than delayed, sets save_original_input on linear_proj
 *    to avoid it (megatron/core/transformer/attention.py 428-444 at
 *    Megatron-LM d98e8a64dd; commit 781e765818, 2025-08). So the extra
 *    copy is counted under the delayed recipe only. With the core_attn
 *    recompute module the checkpointed core saves q, k, v but not its
 *    output: under delayed scaling the projection's fp8 copy replaces
 *    the 16-bit output (with the other recipes the projection saves the
 *    16-bit original, as before).
 *  - MoE (Megatron-LM d98e8a64dd): the router's gating GEMM, outside TE,
 *    saves the pre-MLP norm output at 16 bits (moe/moe_utils.py 1382),
 *    so a MoE layer's FC1 input stays 2h; the shared experts' FC1 (a TE
 *    Linear) adds its quantized copy, again avoided with save_original_
 *    input from TE 2.6 except under delayed scaling (moe/shared_experts.py
 *    146-161). moe_act recompute with fp8 sets save_original_input on the
 *    experts' FC2 (moe/experts.py 269-276): its input, recomputed, is not
 *    stored at all (the moe_act term already drops it).
 * What stays 16-bit: the norms' inputs, Q, K, V and the kernel's output,
 * the log-sum-exp, the activations' inputs (FC1 outputs), MLA's latents,
 * the router logits. Bytes per element of a quantized copy: 1 with the
 * per-tensor recipes (one fp32 scale per tensor), MXFP8 1 + 1/32 (one E8M0
 * scale per 32 elements), NVFP4 0.5 + 1/16 (one E4M3 scale per 16), as the
 * fp8 weights of tp_state_bytes_per_param. The layernorm recompute module
 * drops the QKV and FC1 inputs outright (Megatron-Core sets save_original_
 * input on those linears too: transformer_layer.py 470-536), mlp, moe and
 * shared_experts drop their tensors as in layer_activation_bytes.
 * Hybrid models keep 16 bits (hybrid_activations splits a layer at 16-bit
 * sizes). Bytes per token saved (negative: added), split like
 * layer_activation_bytes.
 */
static double te_saved_input_bytes(const tp_train *t)
{
    switch (t->fp8_recipe) {
    case TP_FP8_MXFP8: return 1.0 + 1.0 / 32.0;
    case TP_FP8_NVFP4: return 0.5 + 1.0 / 16.0;
    case TP_FP8_DELAYED:
    case TP_FP8_TENSORWISE:
    default: return 1.0;
    }
}

/* TransformerEngine's storage applies (te_fp8_saving design note). */
static bool te_fp8_storage(const tp_config *c)
{
    return c->train.precision == TP_PREC_FP8 && !c->opts.fp8_act_cache &&
           !c->opts.fp8_hp_saved_inputs && !tp__is_hybrid(&c->model);
}

static void te_fp8_saving(const tp_config *c, bool moe, unsigned rc, double *rep, double *shard)
{
    double b = te_saved_input_bytes(&c->train), cut = 2.0 - b;
    bool delayed = c->train.fp8_recipe == TP_FP8_DELAYED;
    fp8_store st = {
        .cut = cut,
        /* the QKV input, and a dense layer's FC1 input (a MoE layer's
         * stays: the router holds it) */
        .norm_inputs = moe ? 1.0 : 2.0,
        /* the output projection's copy beside the attention kernel's
         * output; a recomputed core (core_attn) saves no output: the copy
         * alone */
        .attn_out = !delayed               ? 0.0
                    : rc & TP_RC_CORE_ATTN ? cut
                                           : -b,
        .routed_per_fe = rc & TP_RC_MOE_ACT ? 0.0 : cut, /* the experts' FC2 inputs */
        .shared_per_fsh = cut,
        /* the shared experts' FC1 copy of the norm output */
        .shared_added_per_h = delayed ? b : 0.0,
    };
    fp8_saved_bytes(c, moe, rc, &st, rep, shard);
}

/*
 * What either fp8 storage saves (fp8_cache_saving, te_fp8_saving), bytes
 * per token split like layer_activation_bytes: the QKV and FC1 inputs
 * (unless the layernorm module recomputes them), the attention output, a
 * dense MLP's FC2 input, a routed copy's permuted input and its experts'
 * tensors, the shared experts' tensors. The storages differ only in the
 * bytes per element (fp8_store).
 */
static void fp8_saved_bytes(const tp_config *c, bool moe, unsigned rc, const fp8_store *st,
                            double *rep, double *shard)
{
    const tp_model *m = &c->model;
    double h = (double)m->hidden;
    *rep = rc & TP_RC_LAYERNORM ? 0.0 : st->norm_inputs * st->cut * h;
    *shard = st->attn_out * (double)tp__v_width(m);
    if (!moe) {
        if (!(rc & TP_RC_MLP)) /* the FC2 input */
            *shard += st->cut * (double)m->ffn_hidden;
        return;
    }
    if (rc & TP_RC_MOE)
        return;
    double fe = (double)tp_expert_ffn_hidden(m);
    double fsh = (double)tp_shared_ffn_hidden(m);
    double k = (double)m->topk * tp_moe_load(m);
    double etp_share = (double)tp_expert_tp(&c->train) / (double)c->train.tp;
    *rep += k * st->cut * h * etp_share; /* permuted tokens */
    *shard += k * fe * st->routed_per_fe;
    if (fsh > 0.0 && !(rc & TP_RC_SHARED_EXPERTS)) {
        *shard += fsh * st->shared_per_fsh;
        *rep -= st->shared_added_per_h * h;
    }
}

/* Activation bytes of one layer for one micro-batch on one GPU. */
static double layer_activation_bytes(const tp_config *c, bool moe)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    double T = (double)t->seq_len * (double)t->micro_batch / (double)t->cp; /* tokens on GPU */
    double s = (double)t->seq_len;
    double h = (double)m->hidden, a = (double)m->num_heads;
    double tpz = (double)t->tp;
    bool sp = t->sp && t->tp > 1;
    bool selective = t->recompute == TP_RECOMPUTE_SELECTIVE;
    unsigned rc = selective ? tp_recompute_modules(t) : 0u;
    bool keep_scores = !t->flash_attn && !(rc & TP_RC_CORE_ATTN);

    if (c->opts.act_model == TP_ACT_KORTHIKANTI) {
        double per_tok = 34.0 * h + (keep_scores ? 5.0 * a * s / (double)t->cp : 0.0);
        return T * per_tok / tpz;
    }

    double q = (double)tp__q_width(m), kv = (double)tp__kv_width(m);
    double mlp_mult = tp_mlp_gated(m->mlp) ? 6.0 : 4.0; /* bytes per f element */
    /* Unsharded by TP unless SP: LN inputs (2h x2), QKV input 2h, FC1 input 2h. */
    double replicated = 8.0 * h + (t->dropout ? 2.0 * h : 0.0);
    /* Sharded by TP: Q, K, V, O and the attention statistics. */
    (void)kv;
    double sharded = 2.0 * q + 2.0 * (double)tp__kv2_width(m) + 2.0 * (double)tp__v_width(m);
    if (tp__is_mla(m)) /* the latents the up-projections keep (model.c design note) */
        replicated += 2.0 * (double)(m->q_lora_rank + m->kv_lora_rank + m->qk_rope_head_dim);
    if (t->flash_attn)
        sharded += 4.0 * a; /* fp32 log-sum-exp per head */
    if (keep_scores) {      /* per query token: scores against the s/c keys of one ring block */
        double keys = s / (double)t->cp;
        /* every layer local: the window caps the keys; with global layers the
         * peak layer is a global one */
        if (m->sliding_window > 0 && m->global_every == 0 && (double)m->sliding_window < keys)
            keys = (double)m->sliding_window;
        if (m->attention_chunk > 0 && m->global_every == 0 && (double)m->attention_chunk < keys)
            keys = (double)m->attention_chunk; /* chunked: keys of one chunk at most */
        sharded += a * keys * (t->dropout ? 5.0 : 2.0);
    }
    if (rc & TP_RC_LAYERNORM)
        replicated -= 4.0 * h;  /* the norms' outputs: QKV and FC1 inputs */
    if (rc & TP_RC_MLA_UP_PROJ) /* validated: MLA; the latents stay */
        sharded -= 2.0 * q + 2.0 * (double)tp__kv2_width(m);
    if (!moe) {
        if (!(rc & TP_RC_MLP)) /* recomputed from its input, which stays */
            sharded += mlp_mult * (double)m->ffn_hidden;
    } else if (rc & TP_RC_MOE) {
        /* the whole MoE MLP recomputed from its input: nothing of it stored */
    } else {
        double fe = (double)tp_expert_ffn_hidden(m);
        double fsh = (double)tp_shared_ffn_hidden(m);
        double k = (double)m->topk * tp_moe_load(m); /* the busiest rank's copies */
        /* Each routed copy stores its permuted input (2h, not TP-split) and the
         * expert MLP tensors (split by expert TP = t). With an expert TP t_e
         * apart from t the ETP group gathers t_e / t times the tokens this
         * GPU routes and splits their MLP t_e ways: the MLP tensors per GPU
         * are unchanged, the permuted inputs scale by t_e / t (1 when equal). */
        replicated += k * 2.0 * h * ((double)tp_expert_tp(t) / tpz);
        sharded += k * mlp_mult * fe + (rc & TP_RC_SHARED_EXPERTS ? 0.0 : mlp_mult * fsh);
        if (rc & TP_RC_MOE_ACT)
            sharded -= k * 2.0 * fe;                /* the activation's output, 2 B per f_e */
        replicated += 4.0 * (double)m->num_experts; /* fp32 router logits */
    }
    if (c->opts.fp8_act_cache) { /* validated: fp8, detailed accounting */
        double rep_saved, shard_saved;
        fp8_cache_saving(c, moe, rc, &rep_saved, &shard_saved);
        replicated -= rep_saved;
        sharded -= shard_saved;
    } else if (te_fp8_storage(c)) { /* validated: fp8 TE, te_fp8_saving */
        double rep_saved, shard_saved;
        te_fp8_saving(c, moe, rc, &rep_saved, &shard_saved);
        replicated -= rep_saved;
        sharded -= shard_saved;
    }
    double per_tok = sharded / tpz + (sp ? replicated / tpz : replicated);
    if (sp && c->opts.tp_gathered_input && !(rc & TP_RC_LAYERNORM))
        per_tok += gathered_input_extra(c, moe);
    if (t->recompute == TP_RECOMPUTE_SELECTIVE && c->opts.sac_ops)
        per_tok = sac_bytes_per_token(c, moe);
    return T * per_tok;
}

/*
 * Hybrid models (hybrid.c design note): the activations of layers [first,
 * first + n) for one micro-batch, summed into *per_mb, the largest layer's
 * into *a_max. The attention and MLP parts are the transformer layer's
 * above, split at its MLP (LN and FC1 inputs 4h, h of the dropout masks,
 * the MLP tensors); the Mamba-2 and gated delta-net mixers hybrid.c's.
 */
TP__COLD static void hybrid_activations(const tp_config *c, int64_t first, int64_t n,
                                        double *per_mb, double *a_max)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    double T = (double)t->seq_len * (double)t->micro_batch / (double)t->cp;
    double h = (double)m->hidden, tpz = (double)t->tp;
    bool sp = t->sp && t->tp > 1;
    double drop = t->dropout ? h : 0.0;
    double mlp_mult = tp_mlp_gated(m->mlp) ? 6.0 : 4.0;
    double whole_dense = layer_activation_bytes(c, false);
    double whole_moe = m->num_experts > 0 ? layer_activation_bytes(c, true) : 0.0;
    double ffn_dense =
        T * ((4.0 * h + drop) / (sp ? tpz : 1.0) + mlp_mult * (double)m->ffn_hidden / tpz);
    double mixer[5] = {0.0, whole_dense - ffn_dense, 0.0, 0.0, 0.0};
    for (int k = TP__MIX_MAMBA; k <= TP__MIX_MAMBA1; k++) {
        double rep = 0.0, shard = tp__mixer_act_bytes(m, k, &rep);
        mixer[k] = T * ((rep + drop) / (sp ? tpz : 1.0) + shard / tpz);
    }
    double ffn[3] = {0.0, ffn_dense, whole_moe - whole_dense + ffn_dense};
    *per_mb = 0.0;
    *a_max = 0.0;
    for (int64_t i = first; i < first + n; i++) {
        int kind = tp__layer_kind(m, i);
        double a = mixer[kind / 3] + ffn[kind % 3];
        *per_mb += a;
        if (a > *a_max)
            *a_max = a;
    }
}

static double optimizer_bytes_per_param(const tp_train *t);

/* TransformerEngine's fp8 copies of a linear weight beside the weight
 * itself, bytes per parameter (header 2; 0 when not kept). */
double tp_fp8_weight_copy_bytes(const tp_config *c)
{
    const tp_train *t = &c->train;
    const tp_options *o = &c->opts;
    if (t->precision != TP_PREC_FP8 || !o->fp8_weight_cache || o->fp8_hp_saved_inputs ||
        o->fp8_act_cache)
        return 0.0;
    double row, col;
    if (t->fp8_recipe == TP_FP8_MXFP8) {
        row = col = 1.0 + 1.0 / 32.0; /* E4M3 + one E8M0 scale per 32, each direction */
    } else if (t->fp8_recipe == TP_FP8_NVFP4) {
        row = col = 0.5 + 1.0 / 16.0; /* E2M1 + one E4M3 scale per 16 */
    } else {                          /* the transpose, where fp8 GEMMs take only TN */
        int cc = c->gpu.compute_capability;
        bool any_layout =
            cc > 0 ? (cc >= 100 && cc < 120) || cc >= 130 : c->gpu.peak_fp4_flops_per_s > 0.0;
        row = 1.0;
        col = any_layout ? 0.0 : 1.0;
    }
    return (t->fp8_param_gather ? 0.0 : row) + col;
}

void tp_state_bytes_per_param(const tp_train *t, tp_state_bytes *out)
{
    out->weights = t->precision == TP_PREC_TF32 ? 4.0 : 2.0;
    if (t->fp8_param_gather && t->precision == TP_PREC_FP8) {
        /* fp8 weights (Megatron --fp8-param-gather); the block-scaled
         * recipes keep their scales beside them: MXFP8 one E8M0 byte per
         * 32 elements, NVFP4 4-bit elements and one E4M3 byte per 16
         * (--fp4-param-gather) */
        out->weights = t->fp8_recipe == TP_FP8_MXFP8   ? 1.0 + 1.0 / 32.0
                       : t->fp8_recipe == TP_FP8_NVFP4 ? 0.5 + 1.0 / 16.0
                                                       : 1.0;
    }
    out->grads = t->precision == TP_PREC_TF32 ? 4.0 : tp__dtype_bytes(t->grad_dtype);
    out->optimizer = optimizer_bytes_per_param(t);
    out->total = out->weights + out->grads + out->optimizer;
}

/* Bytes of the optimizer state per parameter. */
static double optimizer_bytes_per_param(const tp_train *t)
{
    double master = (t->optimizer.master_weights && t->precision != TP_PREC_TF32) ? 4.0 : 0.0;
    double moment = tp__dtype_bytes(t->optimizer.moment_dtype);
    if (t->optimizer.moment_dtype == TP_DTYPE_INT8)
        moment += 4.0 / 2048.0; /* block-wise absmax, one fp32 per 2048 (Dettmers 2022) */
    double n = t->optimizer.kind == TP_OPT_ADAMW          ? 2.0
               : t->optimizer.kind == TP_OPT_SGD_MOMENTUM ? 1.0
                                                          : 0.0;
    return master + n * moment;
}

static double inflight_microbatches(const tp_train *t, int64_t stage, int64_t m)
{
    double p = (double)t->pp, mm = (double)m;
    if (t->pp <= 1)
        return 1.0;
    switch (t->schedule) {
    case TP_SCHED_GPIPE: return mm;
    case TP_SCHED_INTERLEAVED: {
        double v = (double)t->vpp;
        double n = (p - (double)stage) * (1.0 + (p - 1.0) / (p * v));
        return n < mm ? n : mm;
    }
    case TP_SCHED_DUALPIPE: /* p - i on stage i (header 4b); m >= 2p: never capped */
    case TP_SCHED_1F1B:
    default: {
        double n = p - (double)stage;
        return n < mm ? n : mm;
    }
    }
}

/*
 * Parameter offload (ZeRO-Infinity offload_param, FSDP2 CPUOffloadPolicy;
 * ZeRO 3, validated): this GPU's shard of the weights (w bytes) leaves the
 * GPU for the host or the NVMe drives; the gathered working set stays.
 * With the whole optimizer offloaded too the gradient shard (g bytes, the
 * framework buffers apart) goes to the host as it is reduced: the fp32
 * copy optimizer offload already counts on the host receives it.
 */
static void move_params_off(const tp_train *t, double w, double g, tp_memory *out)
{
    out->weights_bytes -= w;
    if (t->offload_params == TP_OFFLOAD_NVME)
        out->nvme_bytes += w;
    else
        out->host_bytes += w;
    if (t->offload_optimizer >= 1.0)
        out->grads_bytes -= g;
}

/*
 * Activation offload (Megatron-Core --cpu-offloading-num-layers n, TE's
 * CPU offload; pp 1 and no recompute, validated): n layers' activations
 * (at the stage's mean per layer) go to the host after their forward; the
 * GPU keeps the other layers' and one offloaded layer's buffer in transit
 * (TE double-buffers: the layer being copied back).
 */
static double offload_activations(const tp_train *t, double per_mb, double layers, double a_max,
                                  tp_memory *out)
{
    double n = (double)t->offload_act_layers;
    double away = n * per_mb / layers;
    out->act_host_bytes = away;
    out->host_bytes += away;
    return per_mb - away + a_max;
}

/*
 * Activations of the multi-token-prediction modules on the last stage, one
 * micro-batch (DeepSeek-V3; Megatron-Core's MTP block sits after the last
 * layer): each module stores the inputs of its two norms (the embedding
 * and the hidden state, 2h each) and of its eh_proj (their concatenation,
 * 4h; 2h elements in fp8 tiles with opts.fp8_act_cache), not split by TP
 * unless SP, and one transformer layer (a MoE layer when the model has
 * experts, as the step time counts it). Not recomputed.
 */
static double mtp_activation_bytes(const tp_config *c, const mem_shared *x)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    double T = (double)t->seq_len * (double)t->micro_batch / (double)t->cp;
    double in_b = c->opts.fp8_act_cache ? 4.0 + 2.0 * FP8_TILE_BYTES : 8.0; /* eh_proj: fp8 */
    double in = in_b * T * (double)m->hidden / (t->sp && t->tp > 1 ? (double)t->tp : 1.0);
    return (double)m->mtp_layers * (in + x->a_mtp);
}

/* TransformerEngine's userbuffers for the chunked TP overlap (header 6). */
static double userbuffer_bytes(const tp_config *c)
{
    if (tp_tp_overlap_of(c) != TP_TP_OVERLAP_CHUNKED)
        return 0.0;
    const tp_train *t = &c->train;
    double tokens = (double)t->seq_len * (double)t->micro_batch / (double)t->cp;
    double per = t->precision == TP_PREC_FP8 ? 8.0 * 1.0 + 4.0 * 2.0 : 12.0 * 2.0;
    return tokens * (double)c->model.hidden * per;
}

static int64_t num_communicators(const tp_train *t, int64_t dp)
{
    int64_t etp = tp_expert_tp(t);
    return (t->tp > 1) + (t->pp > 1) + (t->cp > 1) + (t->ep > 1) + (dp > 1) +
           (etp > 1 && etp != t->tp);
}

/* A stage's layers, its first layer and the MoE layers among them. */
typedef struct stage_layers {
    int64_t layers, n_moe, first;
} stage_layers;

static stage_layers layers_of(const tp_config *c, int64_t stage)
{
    const tp_train *t = &c->train;
    int64_t L = c->model.num_layers;
    int64_t layers = tp_stage_layers(t, L, stage);
    int64_t first_layer = tp__stage_first_layer(t, L, stage);
    stage_layers sl = {layers, tp__stage_moe_layers(t, &c->model, stage), first_layer};
    return sl;
}

static void memory_stage(const tp_config *c, const tp_params *P, const mem_shared *x, int64_t stage,
                         stage_layers sl, tp_memory *out)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    const tp_options *o = &c->opts;
    /* all zero: a copy of a zero struct compiles to vector moves, a memset
     * of this size to rep stos, whose start-up costs more (three stages
     * per evaluation) */
    static const tp_memory zero;
    *out = zero;
    assert(stage >= 0 && stage < t->pp); /* the documented precondition */

    int64_t layers = sl.layers;
    int64_t dp = x->dp;
    int64_t mb = x->mb;
    int64_t n_moe = sl.n_moe;
    stage_params sp = stage_param_shard(c, P, x, stage, sl.first, n_moe, layers);

    /* 2. States. */
    double wb = x->bpp.weights, gb = x->bpp.grads, ob = x->bpp.optimizer;
    double D = (double)dp * (double)t->cp; /* ranks sharing a dense shard  */
    double De = sp.expert > 0.0 ? (double)tp_train_edp(t)
                                : 1.0; /* ranks sharing an expert shard (d*c/e when t_e = t) */
    double w = sp.dense * wb, we = sp.expert * wb;
    double g = sp.dense * gb, ge = sp.expert * gb;
    double opt = sp.dense * ob, opte = sp.expert * ob;
    if (t->zero >= 1) {
        opt /= D;
        opte /= De;
    }
    if (t->zero >= 2) {
        g /= D;
        ge /= De;
    }
    if (t->zero >= 3) {
        w /= D;
        we /= De;
        if (t->pp > 1) {
            /* ZeRO-3 under a pipeline (torchtitan): parameters are not
             * resharded after forward (that would re-gather them for every
             * micro-batch) and gradients accumulate unsharded, in the
             * gradient (reduce) dtype, until the last micro-batch: the whole
             * stage is gathered. */
            out->weights_gathered_bytes = (sp.dense + sp.expert) * (wb + gb) + sp.frozen * wb;
        } else {
            out->weights_gathered_bytes = o->zero3_prefetch_layers * sp.largest_layer * wb +
                                          sp.largest_layer * gb + sp.ends * wb;
        }
    }
    /* Unsharded framework buffers per parameter (DeepSpeed BF16_Optimizer's
     * 16-bit gradients), counted with the gradients; range-checked by
     * tp_config_validate. */
    g += sp.dense * o->extra_param_bytes;
    ge += sp.expert * o->extra_param_bytes;
    if (sp.frozen > 0.0) /* frozen tower: 16-bit weights, sharded only by ZeRO-3 */
        w += sp.frozen * wb / (t->zero >= 3 ? D : 1.0);
    out->weights_bytes = w + we;
    double cache = x->fp8_copy;
    if (cache > 0.0) { /* TE's fp8 copies of the linear weights (header 2) */
        double lin = sp.dense - sp.ends + sp.expert;
        if (t->zero >= 3) /* with the gathered layers only */
            lin = t->pp > 1 ? lin : o->zero3_prefetch_layers * sp.largest_layer;
        out->fp8_copies_bytes = lin * cache;
        if (t->zero < 3)
            out->weights_bytes += out->fp8_copies_bytes;
        else
            out->weights_gathered_bytes += out->fp8_copies_bytes;
    }
    out->grads_bytes = g + ge;
    out->optimizer_bytes = opt + opte;
    if (t->offload_optimizer > 0.0) {
        /* ZeRO-Offload / Megatron optimizer CPU offload: the offloaded share
         * of the state lives on the host, beside an fp32 copy of its
         * gradients for the CPU update (DeepSpeed keeps one) */
        double f = t->offload_optimizer;
        double shard = sp.dense / D + sp.expert / De; /* parameters this GPU updates (ZeRO >= 1) */
        out->host_bytes = f * shard * (ob + 4.0);
        out->optimizer_bytes = (1.0 - f) * (opt + opte);
    }
    if (t->offload_params != TP_OFFLOAD_NONE)
        move_params_off(t, w + we, (g + ge) - (sp.dense + sp.expert) * o->extra_param_bytes, out);
    out->params_on_gpu = sp.dense + sp.expert + sp.frozen;
    out->frozen_params = sp.frozen;

    /* 3-4. Activations. */
    double a_dense = x->a_dense;
    double a_moe = n_moe > 0 ? x->a_moe : 0.0;
    double per_mb = (double)(layers - n_moe) * a_dense + (double)n_moe * a_moe;
    /* the largest layer the stage holds: a MoE-only stage has no dense one */
    double a_max = n_moe > 0 && (a_moe > a_dense || n_moe == layers) ? a_moe : a_dense;
    if (tp__is_hybrid(m))
        hybrid_activations(c, sl.first, layers, &per_mb, &a_max);
    double inflight = inflight_microbatches(t, stage, mb);
    double act;
    if (t->recompute == TP_RECOMPUTE_FULL) {
        double k = (double)t->recompute_every;
        if (k > (double)layers)
            k = (double)layers;
        double groups = ceil((double)layers / k);
        if (o->ckpt_model == TP_CKPT_SEED001) {
            act = inflight * ((double)layers / k + k) * a_max;
        } else {
            double T = (double)t->seq_len * (double)t->micro_batch / (double)t->cp;
            double input = 2.0 * T * (double)m->hidden;
            if (t->sp && t->tp > 1)
                input /= (double)t->tp;
            if (t->recompute_layers > 0 && t->recompute_layers < layers) {
                /* block method: n layers recomputed, the rest store everything
                 * (at the stage's mean per layer) */
                double n = (double)t->recompute_layers;
                double kb = k < n ? k : n;
                act = inflight *
                          (ceil(n / kb) * input + ((double)layers - n) * per_mb / (double)layers) +
                      kb * a_max;
            } else {
                act = inflight * groups * input + k * a_max;
            }
        }
    } else if (t->offload_act_layers > 0) {
        act = offload_activations(t, per_mb, (double)layers, a_max, out); /* pp 1: one in flight */
    } else {
        act = inflight * per_mb;
    }
    if (tp__has_vision(m)) {
        /* the tower's activations on stage 0 for every sample in flight, and
         * the mllama cross layers' K, V of the image states (vision.c) */
        if (stage == 0)
            act += inflight * (double)t->micro_batch * tp__vision_act_bytes(c);
        int64_t cross = tp__vision_cross_in(m, sl.first, layers);
        if (cross > 0 && t->recompute != TP_RECOMPUTE_FULL)
            act += inflight * (double)cross * tp__vision_cross_act_bytes(c);
    }
    if (stage == t->pp - 1 && m->mtp_layers > 0)
        act += inflight * mtp_activation_bytes(c, x);
    out->activations_bytes = act;
    out->act_per_layer_bytes = a_max;
    out->inflight_microbatches = inflight;

    /* 5. Logits. */
    if (stage == t->pp - 1) {
        double T = (double)t->seq_len * (double)t->micro_batch / (double)t->cp;
        double V = (double)tp__padded_vocab(m->vocab, t->pad_vocab_to);
        double h = (double)m->hidden;
        /* range-checked by tp_config_validate; at TP > 1 the vocabulary-
         * parallel figure where a framework has one (torchtitan's loss
         * parallel) */
        double ce = tp_ce_bytes_at(o, t->tp);
        out->logits_bytes = (4.0 * T * h + (t->fused_ce ? 0.0 : ce * T * V)) / (double)t->tp;
        /* the head's input gathered whole in bf16 (not converted to Float8:
         * torchtitan's float8.py filters "output") beside the shard */
        if (o->tp_gathered_input && t->sp && t->tp > 1)
            out->logits_bytes += 2.0 * T * h * (1.0 - 1.0 / (double)t->tp);
        /* each MTP module's head keeps its fp32 input and, unfused, what
         * Megatron-Core's loss (the main head's, compute_language_model_loss)
         * saves for the backward: the vocabulary-parallel loss's fp32
         * softmax, 4 B a logit, or with TransformerEngine's fused loss the
         * bf16 logits, 2 (MTP is Megatron-Core's: a larger ce is another
         * framework's loss, and its head still runs Megatron's) */
        double mtp_ce = ce < 4.0 ? ce : 4.0;
        out->logits_bytes += (double)m->mtp_layers *
                             (4.0 * T * h + (t->fused_ce ? 0.0 : mtp_ce * T * V)) / (double)t->tp;
    }

    /* 6. Fixed and reserve. */
    out->userbuffers_bytes = x->userbuffers;
    out->comm_buffers_bytes =
        (double)num_communicators(t, dp) * o->comm_buffer_bytes + out->userbuffers_bytes;
    out->framework_bytes = o->cuda_context_bytes;
    out->fragmentation_bytes = o->fragmentation * (out->activations_bytes + out->logits_bytes +
                                                   out->weights_gathered_bytes);
    out->total_bytes = out->weights_bytes + out->weights_gathered_bytes + out->grads_bytes +
                       out->optimizer_bytes + out->activations_bytes + out->logits_bytes +
                       out->comm_buffers_bytes + out->framework_bytes + out->fragmentation_bytes;
    out->capacity_bytes = c->gpu.mem_capacity_bytes;
    out->headroom_bytes = out->capacity_bytes - out->total_bytes;
    out->host_capacity_bytes = o->host_mem_bytes_per_node;
    out->host_fits = true;
    out->host_more = t->offload_params != TP_OFFLOAD_NONE || t->offload_act_layers > 0;
    if (out->host_bytes > 0.0 && o->host_mem_bytes_per_node > 0.0) {
        out->host_gpus = tp_gpus_per_node(t, &c->gpu);
        out->host_fits = out->host_bytes * (double)out->host_gpus <= o->host_mem_bytes_per_node;
    }
    out->fits = out->total_bytes <= out->capacity_bytes && out->host_fits;
    out->stage = stage;
    out->layers = layers;
}

/* The GPU at pipeline rank `rank` under DualPipe (header 4b): its two
 * stages added, the fixed parts once, the checks of memory_stage redone. */
static void memory_rank_pair(const tp_config *c, const tp_params *P, const mem_shared *x,
                             int64_t rank, tp_memory *out)
{
    int64_t p = c->train.pp;
    int64_t j = rank < p - 1 - rank ? rank : p - 1 - rank;
    tp_memory hi;
    memory_stage(c, P, x, j, layers_of(c, j), out);
    memory_stage(c, P, x, p - 1 - j, layers_of(c, p - 1 - j), &hi);
    out->weights_bytes += hi.weights_bytes;
    out->weights_gathered_bytes += hi.weights_gathered_bytes;
    out->fp8_copies_bytes += hi.fp8_copies_bytes;
    out->grads_bytes += hi.grads_bytes;
    out->optimizer_bytes += hi.optimizer_bytes;
    out->activations_bytes += hi.activations_bytes;
    out->logits_bytes += hi.logits_bytes;
    out->fragmentation_bytes += hi.fragmentation_bytes; /* linear in the dynamic parts */
    out->params_on_gpu += hi.params_on_gpu;
    out->frozen_params += hi.frozen_params;
    out->inflight_microbatches += hi.inflight_microbatches;
    if (hi.act_per_layer_bytes > out->act_per_layer_bytes)
        out->act_per_layer_bytes = hi.act_per_layer_bytes;
    out->host_bytes += hi.host_bytes;
    out->nvme_bytes += hi.nvme_bytes;
    out->act_host_bytes += hi.act_host_bytes;
    out->host_more = out->host_more || hi.host_more;
    out->total_bytes = out->weights_bytes + out->weights_gathered_bytes + out->grads_bytes +
                       out->optimizer_bytes + out->activations_bytes + out->logits_bytes +
                       out->comm_buffers_bytes + out->framework_bytes + out->fragmentation_bytes;
    out->headroom_bytes = out->capacity_bytes - out->total_bytes;
    out->host_fits = true;
    if (out->host_bytes > 0.0 && c->opts.host_mem_bytes_per_node > 0.0) {
        out->host_gpus = tp_gpus_per_node(&c->train, &c->gpu);
        out->host_fits =
            out->host_bytes * (double)out->host_gpus <= c->opts.host_mem_bytes_per_node;
    }
    out->fits = out->total_bytes <= out->capacity_bytes && out->host_fits;
    out->stage = rank;
    out->layers += hi.layers;
}

void tp_memory_stage(const tp_config *c, const tp_params *P, int64_t stage, tp_memory *out)
{
    stage_layers sl = layers_of(c, stage);
    mem_shared x;
    if (c->train.schedule == TP_SCHED_DUALPIPE) {
        mem_shared_init(c, P, P->num_moe_layers > 0, &x, NULL, NULL);
        memory_rank_pair(c, P, &x, stage, out);
        return;
    }
    mem_shared_init(c, P, sl.n_moe > 0, &x, NULL, NULL);
    memory_stage(c, P, &x, stage, sl, out);
}

void tp__memory_dualpipe(const tp_config *c, const tp_params *P, tp_result *r, double *acts,
                         bool *have)
{
    mem_shared x;
    mem_shared_init(c, P, P->num_moe_layers > 0, &x, acts, have);
    int64_t p = c->train.pp;
    memory_rank_pair(c, P, &x, 0, &r->stage_first);
    r->stage_last = r->stage_first; /* rank p-1 holds the same two stages */
    r->stage_last.stage = p - 1;
    r->memory = r->stage_first;
    for (int64_t j = 1; j < p / 2; j++) {
        tp_memory m;
        memory_rank_pair(c, P, &x, j, &m);
        if (m.total_bytes > r->memory.total_bytes)
            r->memory = m;
    }
}

void tp__memory_stages_act(const tp_config *c, const tp_params *P, const tp__stages *sg,
                           tp_memory *const *out, double *acts, bool *have)
{
    mem_shared x;
    mem_shared_init(c, P, P->num_moe_layers > 0, &x, acts, have);
    for (int i = 0; i < sg->n; i++) {
        stage_layers sl = {sg->layers[i], sg->moe[i], sg->first[i]};
        memory_stage(c, P, &x, sg->stage[i], sl, out[i]);
    }
}
