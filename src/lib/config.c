/* SPDX-License-Identifier: MIT */
/*
 * config.c: training-setup defaults, derived sizes and the validation of a
 * whole configuration.
 *
 * Layout: num_gpus = tp * pp * cp * dp for the dense layers. The expert
 * layers are folded apart (Megatron-Core "MoE parallel folding",
 * megatron/core/parallel_state.py initialize_model_parallel at d98e8a64):
 * num_gpus = etp * ep * edp * pp, with the expert tensor-parallel size etp
 * (default tp) and ep chosen independently of tp, cp and dp. Megatron's
 * rules: world size divisible by etp * ep * pp (it raises "world_size is not
 * divisible by expert_tensor_model_pipeline_parallel size"), expert-data-
 * parallel size edp = world / (etp * ep * pp), and the experts divisible by
 * ep (megatron/training/arguments.py). Expert weights are replicated over
 * the edp ranks, and ZeRO shards their state over them. With etp = tp and
 * ep dividing dp this is the older "EP carved out of DP" layout, edp =
 * dp * cp / ep.
 *
 * Pipeline split: stage i holds tp_stage_layers(i) consecutive layers. With
 * first/last_stage_layers given, the rest is split evenly over the middle
 * stages (which must divide). Otherwise L/p each, and when p does not divide
 * L the remainder goes one layer each to the middle stages first, then the
 * last, then the first (the end stages also carry the embedding and loss).
 * The in-order split (pp_split TP_PP_SPLIT_IN_ORDER) is PyTorch's, as NeMo
 * AutoModel builds it (components/distributed/pipelining/functional.py,
 * generate_hf_model_fqn_per_model_part and stage_ids_this_rank "loop"):
 * S = p*v virtual stages in order, the first L mod S of them one layer more
 * than L/S, virtual stage j on stage j mod p, so stage i holds
 * v*(L/S) + ceil((L mod S - i)/p) layers (the last term 0 for i >= L mod S):
 * 61 layers on p 4, v 8 give 16, 15, 15, 15. Stage 0 is the heaviest and
 * the counts never rise with i, so the checks of stages 0, 1 and p-1 still
 * find the heaviest by layer count. L need not divide by p*v (S <= L). The
 * MoE/dense pattern is counted over the stage's own virtual stages
 * (tp__stage_moe_layers); under Megatron's split, interleaved or not, a
 * stage's layers are counted as one consecutive run.
 */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "internal.h"

void tp_train_default(tp_train *t)
{
    memset(t, 0, sizeof *t);
    t->num_gpus = 1;
    t->tp = t->pp = t->cp = t->ep = t->vpp = 1;
    t->sp = false;
    t->zero = 0;
    t->schedule = TP_SCHED_1F1B;
    t->recompute = TP_RECOMPUTE_NONE;
    t->recompute_every = 1;
    t->seq_len = 2048;
    t->micro_batch = 1;
    t->global_batch = 1;
    t->precision = TP_PREC_BF16;
    t->grad_dtype = TP_DTYPE_BF16;
    t->optimizer.kind = TP_OPT_ADAMW;
    t->optimizer.moment_dtype = TP_DTYPE_FP32;
    t->optimizer.master_weights = true;
    t->flash_attn = true;
    t->dropout = false;
    t->fused_ce = false;
    t->pad_vocab_to = 0;
}

int64_t tp_train_dp(const tp_train *t)
{
    if (t->tp < 1 || t->pp < 1 || t->cp < 1 || t->num_gpus < 1)
        return 0;
    int64_t mp = t->tp * t->pp * t->cp;
    if (mp > t->num_gpus || t->num_gpus % mp != 0)
        return 0;
    return t->num_gpus / mp;
}

int64_t tp_train_edp(const tp_train *t)
{
    int64_t etp = tp_expert_tp(t);
    if (etp < 1 || t->ep < 1 || t->pp < 1 || t->num_gpus < 1)
        return 0;
    if ((double)etp * (double)t->ep * (double)t->pp > (double)t->num_gpus)
        return 0;
    int64_t emp = etp * t->ep * t->pp;
    if (t->num_gpus % emp != 0)
        return 0;
    return t->num_gpus / emp;
}

int64_t tp__grad_accum(const tp_train *t)
{
    int64_t dp = tp_train_dp(t);
    if (dp < 1 || t->micro_batch < 1)
        return 0;
    return t->global_batch / (t->micro_batch * dp);
}

int64_t tp__flush_microbatches(const tp_train *t)
{
    int64_t m = tp__grad_accum(t);
    if (t->local_batch > 0 && t->micro_batch > 0 && t->local_batch % t->micro_batch == 0) {
        int64_t f = t->local_batch / t->micro_batch;
        if (f > 0 && f <= m && m % f == 0)
            return f;
    }
    return m;
}

int64_t tp__schedule_runs(const tp_train *t)
{
    int64_t m = tp__grad_accum(t), f = tp__flush_microbatches(t);
    return f > 0 ? m / f : 1;
}

double tp__dtype_bytes(tp_dtype d)
{
    switch (d) {
    case TP_DTYPE_FP32: return 4.0;
    case TP_DTYPE_BF16:
    case TP_DTYPE_FP16: return 2.0;
    case TP_DTYPE_INT8: return 1.0;
    }
    return 4.0;
}

int64_t tp_stage_layers(const tp_train *t, int64_t L, int64_t stage)
{
    int64_t p = t->pp;
    if (p <= 1)
        return L;
    if (stage < 0 || stage >= p)
        return 0;
    if (t->pp_split == TP_PP_SPLIT_IN_ORDER) {
        int64_t v = t->vpp > 1 ? t->vpp : 1, S = p * v, rem = L % S;
        /* its virtual stages stage + k*p below rem carry the extra layers */
        return v * (L / S) + (stage < rem ? (rem - stage + p - 1) / p : 0);
    }
    int64_t first = t->first_stage_layers, last = t->last_stage_layers;
    if (first > 0 || last > 0) {
        int64_t rest = L - first - last;
        int64_t middle = p - (first > 0) - (last > 0);
        if (stage == 0 && first > 0)
            return first;
        if (stage == p - 1 && last > 0)
            return last;
        return middle > 0 ? rest / middle : 0;
    }
    int64_t base = L / p, rem = L % p;
    /* Order in which stages receive one extra layer: middle, last, first. */
    int64_t rank;
    if (stage == 0)
        rank = p - 1;
    else if (stage == p - 1)
        rank = p - 2;
    else
        rank = stage - 1;
    return base + (rank < rem ? 1 : 0);
}

int64_t tp__stage_first_layer(const tp_train *t, int64_t L, int64_t stage)
{
    int64_t p = t->pp;
    if (p <= 1 || stage <= 0)
        return 0;
    if (stage >= p)
        return L;
    if (t->pp_split == TP_PP_SPLIT_IN_ORDER) {
        int64_t first = 0; /* stage < p: at most p - 1 terms */
        for (int64_t i = 0; i < stage; i++)
            first += tp_stage_layers(t, L, i);
        return first;
    }
    /* Closed form of the sum of tp_stage_layers(0 .. stage-1); stages
     * 1 .. stage-1 are all middle stages here (stage <= p - 1). */
    if (t->first_stage_layers > 0 || t->last_stage_layers > 0) {
        int64_t middle = stage > 1 ? tp_stage_layers(t, L, 1) : 0;
        return tp_stage_layers(t, L, 0) + (stage - 1) * middle;
    }
    /* Even split: L/p each; the remainder goes to middle stages 1, 2, ...
     * first, so stage 0 never has an extra layer (rem < p). */
    int64_t rem = L % p, mids = stage - 1;
    return stage * (L / p) + (mids < rem ? mids : rem);
}

/* MoE layers of a stage whose first layer and layer count are known (the
 * in-order split with VPP > 1 reads neither: its virtual stages lie apart). */
static int64_t stage_moe(const tp_train *t, const tp_model *m, int64_t stage, int64_t first,
                         int64_t n)
{
    if (m->num_experts <= 0) /* dense: no MoE layer anywhere */
        return 0;
    if (t->pp_split == TP_PP_SPLIT_IN_ORDER && t->pp > 1 && t->vpp > 1) {
        /* the stage's virtual stages j = stage + k*p lie apart in the model
         * (DeepSeek-V3's dense layers 0-2 on p 4, v 8: 0 and 1 on stage 0,
         * 2 on stage 1); at most v terms */
        int64_t L = m->num_layers;
        int64_t S = t->pp * t->vpp, base = L / S, rem = L % S, k = 0;
        for (int64_t j = stage; j >= 0 && j < S; j += t->pp)
            k += tp__moe_layers_in(m, j * base + (j < rem ? j : rem), base + (j < rem ? 1 : 0));
        return k;
    }
    return tp__moe_layers_in(m, first, n);
}

int64_t tp__stage_moe_layers(const tp_train *t, const tp_model *m, int64_t stage)
{
    if (m->num_experts <= 0) /* dense: no MoE layer anywhere (the stage's bounds cost divisions) */
        return 0;
    int64_t L = m->num_layers;
    return stage_moe(t, m, stage, tp__stage_first_layer(t, L, stage), tp_stage_layers(t, L, stage));
}

int64_t tp__middle_stage(const tp_train *t, const tp_model *m)
{
    /* Stage 1 holds the most layers of the middle stages under either
     * split. Under the in-order split with VPP > 1 the leading dense layers
     * sit on the first virtual stages, so a later stage with as many layers
     * can hold more MoE layers (DeepSeek-V3 on PP 4 x VPP 8: stage 2, 15
     * MoE layers against stage 1's 14): the first such stage with the most. */
    if (t->pp_split != TP_PP_SPLIT_IN_ORDER || t->vpp <= 1 || t->pp <= 2 || m->num_experts <= 0)
        return 1;
    int64_t L = m->num_layers, n1 = tp_stage_layers(t, L, 1);
    int64_t best = 1, most = tp__stage_moe_layers(t, m, 1);
    for (int64_t s = 2; s < t->pp - 1 && tp_stage_layers(t, L, s) == n1; s++) {
        int64_t n = tp__stage_moe_layers(t, m, s);
        if (n > most) {
            most = n;
            best = s;
        }
    }
    return best;
}

int tp__checked_stages(const tp_train *t, const tp_model *m, int64_t stages[4])
{
    int n = 0;
    stages[n++] = 0;
    if (t->pp > 1)
        stages[n++] = t->pp - 1;
    if (t->pp > 2) {
        stages[n++] = 1;
        int64_t s = tp__middle_stage(t, m);
        if (s != 1)
            stages[n++] = s;
    }
    return n;
}

void tp__stages_of(const tp_train *t, const tp_model *m, tp__stages *out)
{
    int64_t L = m->num_layers;
    out->n = tp__checked_stages(t, m, out->stage);
    for (int i = 0; i < out->n; i++) {
        int64_t s = out->stage[i];
        out->layers[i] = tp_stage_layers(t, L, s);
        /* stage 1 follows stage 0 (the split gives stages in order) */
        out->first[i] = s == 1 ? out->layers[0] : tp__stage_first_layer(t, L, s);
        out->moe[i] = stage_moe(t, m, s, out->first[i], out->layers[i]);
    }
}

#define REQUIRE_RANGE(v, path, lo, hi)                                                             \
    do {                                                                                           \
        if ((v) < (lo) || (v) > (hi))                                                              \
            return tp_error_set(err, TP_ERR_INVALID_ARG, path,                                     \
                                "%lld is out of range [%lld, %lld]", (long long)(v),               \
                                (long long)(lo), (long long)(hi));                                 \
    } while (0)

static tp_status validate_options(const tp_options *o, tp_error *err)
{
    if (!(isfinite(o->cuda_context_bytes) && o->cuda_context_bytes >= 0.0 &&
          o->cuda_context_bytes <= 1e12))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.cuda_context_bytes",
                            "must be a finite number in [0, 1000] GB");
    if (!(isfinite(o->comm_buffer_bytes) && o->comm_buffer_bytes >= 0.0 &&
          o->comm_buffer_bytes <= 1e12))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.comm_buffer_bytes",
                            "must be a finite number in [0, 1000] GB");
    if (!(isfinite(o->fragmentation) && o->fragmentation >= 0.0 && o->fragmentation <= 1.0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.fragmentation",
                            "must be a fraction in [0, 1]");
    if (!(isfinite(o->zero3_prefetch_layers) && o->zero3_prefetch_layers >= 0.0 &&
          o->zero3_prefetch_layers <= 64.0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.zero3_prefetch_layers",
                            "must be in [0, 64]");
    if (!(isfinite(o->extra_param_bytes) && o->extra_param_bytes >= 0.0 &&
          o->extra_param_bytes <= 16.0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.extra_param_bytes",
                            "must be a finite number in [0, 16] bytes per parameter");
    if (!(isfinite(o->ce_bytes_per_logit) && o->ce_bytes_per_logit >= 0.0 &&
          o->ce_bytes_per_logit <= 64.0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.ce_bytes_per_logit",
                            "must be a finite number in [0, 64] bytes per logit");
    if (!(isfinite(o->ce_bytes_per_logit_tp) && o->ce_bytes_per_logit_tp >= 0.0 &&
          o->ce_bytes_per_logit_tp <= 64.0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.ce_bytes_per_logit_tp",
                            "must be a finite number in [0, 64] bytes per logit (0: as "
                            "ce_bytes_per_logit)");
    if (!(isfinite(o->host_mem_bytes_per_node) && o->host_mem_bytes_per_node >= 0.0 &&
          o->host_mem_bytes_per_node <= 1e15))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.host_mem_bytes_per_node",
                            "must be a finite number in [0, 1e15] bytes");
    if (!(isfinite(o->pcie_bw_bytes_per_s) && o->pcie_bw_bytes_per_s >= 1e6 &&
          o->pcie_bw_bytes_per_s <= 1e13))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.pcie_bw_bytes_per_s",
                            "must be a finite number in [1e6, 1e13] bytes/s");
    if (!(isfinite(o->nvme_bw_bytes_per_s) && o->nvme_bw_bytes_per_s >= 1e6 &&
          o->nvme_bw_bytes_per_s <= 1e14))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.nvme_bw_bytes_per_s",
                            "must be a finite number in [1e6, 1e14] bytes/s");
    if (!(isfinite(o->host_mem_bw_bytes_per_s) && o->host_mem_bw_bytes_per_s >= 1e6 &&
          o->host_mem_bw_bytes_per_s <= 1e14))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions.host_mem_bw_bytes_per_s",
                            "must be a finite number in [1e6, 1e14] bytes/s");
    if ((int)o->attn_flops < 0 || o->attn_flops > TP_ATTN_FLOPS_FULL || (int)o->act_model < 0 ||
        o->act_model > TP_ACT_KORTHIKANTI || (int)o->ckpt_model < 0 ||
        o->ckpt_model > TP_CKPT_SEED001 || (int)o->coll_model < 0 || o->coll_model > TP_COLL_SIMPLE)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "conventions", "invalid convention value");
    return TP_OK;
}

/* Parameter and activation offload (tp_train.offload_params,
 * offload_act_layers): the engines' own rules. */
static tp_status check_offload(const tp_config *c, tp_error *err)
{
    const tp_train *t = &c->train;
    if (t->offload_params < TP_OFFLOAD_NONE || t->offload_params > TP_OFFLOAD_NVME)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.offload_params",
                            "%d is not a device (0 none, 1 cpu, 2 nvme)", t->offload_params);
    if (t->offload_params != TP_OFFLOAD_NONE && t->zero < 3)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.offload_params",
                            "parameter offload needs ZeRO 3 (DeepSpeed offload_param, FSDP CPU "
                            "offload), got ZeRO %d",
                            t->zero);
    int64_t L = c->model.num_layers;
    if (t->offload_act_layers < 0 || t->offload_act_layers >= L)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.offload_act_layers",
                            "%lld is out of range [0, %lld] (fewer than the %lld layers; "
                            "Megatron-Core transformer_config)",
                            (long long)t->offload_act_layers, (long long)(L - 1), (long long)L);
    if (t->offload_act_layers > 0 && t->pp > 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.offload_act_layers",
                            "activation offload does not support pipeline parallelism "
                            "(Megatron-Core), got pp %lld",
                            (long long)t->pp);
    if (t->offload_act_layers > 0 && t->recompute != TP_RECOMPUTE_NONE)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.offload_act_layers",
                            "activation offload does not work with activation recompute "
                            "(Megatron-Core), got recompute %s",
                            t->recompute == TP_RECOMPUTE_FULL ? "full" : "selective");
    return TP_OK;
}

/*
 * The EP all-to-all overlap (opts.moe_a2a_overlap): the combinations
 * Megatron-Core refuses for --overlap-moe-expert-parallel-comm
 * (megatron/core/transformer/transformer_config.py __post_init__, NVIDIA/
 * Megatron-LM d98e8a64dd): expert parallelism, the interleaved schedule when
 * pp > 1, no full recompute (nor a block count), no "moe" recompute module,
 * a 16-bit model (fp8 is a recipe over bf16 there), at most one MTP layer.
 * Its token dispatcher must be alltoall or flex; trainplan's is alltoall.
 */
#define A2A_OVERLAP "conventions.moe_a2a_overlap"
static tp_status check_a2a_overlap(const tp_config *c, tp_error *err)
{
    const tp_train *t = &c->train;
    if (!c->opts.moe_a2a_overlap)
        return TP_OK;
    if (t->ep <= 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, A2A_OVERLAP,
                            "the expert-parallel all-to-all overlap needs ep > 1 (Megatron-Core: "
                            "only supported with expert model parallelism), got ep %lld",
                            (long long)t->ep);
    if (t->schedule == TP_SCHED_DUALPIPE)
        return tp_error_set(err, TP_ERR_INVALID_ARG, A2A_OVERLAP,
                            "the expert-parallel all-to-all overlap is Megatron-Core's combined "
                            "1F1B; the dualpipe schedule overlaps the all-to-all itself (leave "
                            "the overlap off)");
    if (t->pp > 1 && !(t->schedule == TP_SCHED_INTERLEAVED && t->vpp > 1))
        return tp_error_set(err, TP_ERR_INVALID_ARG, A2A_OVERLAP,
                            "the expert-parallel all-to-all overlap needs the interleaved "
                            "schedule (vpp > 1) when pp > 1 (Megatron-Core), got pp %lld, vpp %lld",
                            (long long)t->pp, (long long)(t->vpp > 1 ? t->vpp : 1));
    if (t->recompute == TP_RECOMPUTE_FULL)
        return tp_error_set(err, TP_ERR_INVALID_ARG, A2A_OVERLAP,
                            "the expert-parallel all-to-all overlap does not work with full "
                            "recompute (Megatron-Core: disable full recomputation)");
    if (t->recompute == TP_RECOMPUTE_SELECTIVE && (t->recompute_modules & TP_RC_MOE))
        return tp_error_set(err, TP_ERR_INVALID_ARG, A2A_OVERLAP,
                            "the expert-parallel all-to-all overlap does not work with the moe "
                            "recompute module (Megatron-Core: disable moe in recompute_modules)");
    if (t->precision == TP_PREC_TF32)
        return tp_error_set(err, TP_ERR_INVALID_ARG, A2A_OVERLAP,
                            "the expert-parallel all-to-all overlap needs a bf16 or fp16 model "
                            "(Megatron-Core), got precision tf32");
    if (c->model.mtp_layers > 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, A2A_OVERLAP,
                            "the expert-parallel all-to-all overlap takes at most one MTP layer "
                            "(Megatron-Core), got %lld",
                            (long long)c->model.mtp_layers);
    return TP_OK;
}

/*
 * The fp8 activation cache (opts.fp8_act_cache, memory.c header 3): fp8
 * runs only, and only where memory.c counts tensor by tensor (not seed 001's
 * 34 sbh, not per-op SAC's saved set, not the hybrid mixers).
 */
#define FP8_ACT "conventions.fp8_act_cache"
static tp_status check_fp8_act_cache(const tp_config *c, tp_error *err)
{
    const tp_train *t = &c->train;
    if (!c->opts.fp8_act_cache)
        return TP_OK;
    if (t->precision != TP_PREC_FP8)
        return tp_error_set(err, TP_ERR_INVALID_ARG, FP8_ACT,
                            "the fp8 activation cache needs precision fp8, got %s",
                            t->precision == TP_PREC_FP16   ? "fp16"
                            : t->precision == TP_PREC_TF32 ? "tf32"
                                                           : "bf16");
    if (c->opts.act_model == TP_ACT_KORTHIKANTI)
        return tp_error_set(err, TP_ERR_INVALID_ARG, FP8_ACT,
                            "the fp8 activation cache needs the per-tensor activation "
                            "accounting (act-model detailed), not seed 001's 34 sbh");
    if (c->opts.sac_ops)
        return tp_error_set(err, TP_ERR_INVALID_ARG, FP8_ACT,
                            "the fp8 activation cache is not modelled with per-op SAC "
                            "(sac-ops), which saves another set of tensors");
    if (tp__is_hybrid(&c->model))
        return tp_error_set(err, TP_ERR_INVALID_ARG, FP8_ACT,
                            "the fp8 activation cache is not modelled for hybrid "
                            "(Mamba, delta-net) layers");
    return TP_OK;
}

static const char *const fp8_recipe_names[] = {"delayed", "tensorwise", "mxfp8", "nvfp4"};

/* The low-precision recipe (tp_train.fp8_recipe): under fp8 only, and the
 * block-scaled formats only on a GPU whose tensor cores run them. */
static tp_status check_fp8_recipe(const tp_config *c, tp_error *err)
{
    const tp_train *t = &c->train;
    if (t->fp8_recipe < TP_FP8_DELAYED || t->fp8_recipe > TP_FP8_NVFP4)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.fp8_recipe",
                            "%d is not a recipe (0 delayed, 1 tensorwise, 2 mxfp8, 3 nvfp4)",
                            t->fp8_recipe);
    if (t->fp8_recipe == TP_FP8_DELAYED)
        return TP_OK;
    const char *name = fp8_recipe_names[t->fp8_recipe];
    if (t->precision != TP_PREC_FP8)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.fp8_recipe",
                            "the %s recipe needs precision fp8, got %s", name,
                            t->precision == TP_PREC_FP16   ? "fp16"
                            : t->precision == TP_PREC_TF32 ? "tf32"
                                                           : "bf16");
    if (t->fp8_recipe >= TP_FP8_MXFP8 && !(c->gpu.peak_fp4_flops_per_s > 0.0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.fp8_recipe",
                            "%s needs block-scaled FP4/FP8 tensor cores (Blackwell: b200, "
                            "gb200); %s has none (gpu.peak_fp4_flops_per_s is 0)",
                            name, c->gpu.name);
    return TP_OK;
}

/* The pipeline split: Megatron's (uneven first/last stage counts, then
 * an even rest; virtual stages dividing the layers) or PyTorch
 * pipelining's in-order one (tp_train.pp_split). */
/*
 * DualPipe's layout (deepseek-ai/DualPipe dualpipe/dualpipe.py DualPipe.step
 * @ 3da1bbe asserts num_ranks % 2 == 0, num_chunks % 2 == 0 and num_chunks
 * >= num_ranks * 2): rank i holds stages i and pp-1-i, so pp is even; half
 * the micro-batches enter at each end. It has no virtual stages. mb < 0:
 * the micro-batches are not known yet (checked again once they are).
 */
/* What one run of the pipeline schedule is called in messages, and the
 * field that sets its micro-batches. */
static const char *run_unit(const tp_train *t)
{
    return t->local_batch ? "schedule run (local batch / micro-batch)" : "step";
}

static const char *run_field(const tp_train *t)
{
    return t->local_batch ? "train.local_batch" : "train.global_batch";
}

static tp_status check_dualpipe(const tp_train *t, int64_t mb, tp_error *err)
{
    if (t->schedule != TP_SCHED_DUALPIPE)
        return TP_OK;
    if (t->pp < 2 || t->pp % 2 != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.pp",
                            "the dualpipe schedule needs an even pp >= 2 (rank i holds stages i "
                            "and pp-1-i), got pp %lld",
                            (long long)t->pp);
    if (t->vpp > 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.vpp",
                            "the dualpipe schedule has no virtual stages (vpp 1), got vpp %lld",
                            (long long)t->vpp);
    /* mb: one schedule run's micro-batches (the step's, or the local batch's) */
    const char *path = run_field(t), *per = run_unit(t);
    if (mb >= 0 && mb % 2 != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, path,
                            "the dualpipe schedule needs an even number of micro-batches per "
                            "%s (half enter at each end), got %lld",
                            per, (long long)mb);
    if (mb >= 0 && mb < 2 * t->pp)
        return tp_error_set(err, TP_ERR_INVALID_ARG, path,
                            "the dualpipe schedule needs at least 2*pp = %lld micro-batches per "
                            "%s, got %lld",
                            (long long)(2 * t->pp), per, (long long)mb);
    return TP_OK;
}

static tp_status check_pp_split(const tp_config *c, tp_error *err)
{
    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    int64_t L = m->num_layers, p = t->pp;
    if (t->first_stage_layers < 0 || t->last_stage_layers < 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.first_stage_layers",
                            "layer counts must be >= 0");
    if ((int)t->pp_split < 0 || t->pp_split > TP_PP_SPLIT_IN_ORDER)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.pp_split", "unknown split %d",
                            (int)t->pp_split);
    if (t->pp_split == TP_PP_SPLIT_IN_ORDER &&
        (t->first_stage_layers > 0 || t->last_stage_layers > 0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.pp_split",
                            "the in-order split takes no first/last stage layer counts");
    if ((t->first_stage_layers > 0 || t->last_stage_layers > 0)) {
        if (p < 2)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.first_stage_layers",
                                "an uneven split needs pp >= 2");
        int64_t rest = L - t->first_stage_layers - t->last_stage_layers;
        int64_t middle = p - (t->first_stage_layers > 0) - (t->last_stage_layers > 0);
        if (rest < 0 || (middle == 0 && rest != 0) ||
            (middle > 0 && (rest < middle || rest % middle != 0)))
            return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.first_stage_layers",
                                "the %lld layers left after the first/last stages do not "
                                "split evenly over the %lld other stages",
                                (long long)rest, (long long)middle);
    }
    if (t->vpp > 1) {
        if (p < 2)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.vpp",
                                "virtual pipeline stages need pp >= 2");
        if (t->schedule != TP_SCHED_INTERLEAVED)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.vpp",
                                "virtual pipeline stages need the interleaved schedule");
        if (t->pp_split == TP_PP_SPLIT_IN_ORDER && p * t->vpp > L)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.vpp",
                                "layers %lld are fewer than the pp*vpp = %lld*%lld virtual stages "
                                "of the in-order split",
                                (long long)L, (long long)p, (long long)t->vpp);
        if (t->pp_split == TP_PP_SPLIT_MEGATRON && t->first_stage_layers == 0 &&
            t->last_stage_layers == 0 && L % (p * t->vpp) != 0)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.vpp",
                                "layers %lld are not divisible by pp*vpp = %lld*%lld", (long long)L,
                                (long long)p, (long long)t->vpp);
    }
    return TP_OK;
}

tp_status tp_config_validate(const tp_config *c, tp_error *err)
{
    if (!c)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "config", "no configuration given");
    tp_status st = tp_model_validate(&c->model, err);
    if (st == TP_OK)
        st = tp_gpu_validate(&c->gpu, err);
    if (st == TP_OK)
        st = validate_options(&c->opts, err);
    if (st != TP_OK)
        return st;

    const tp_model *m = &c->model;
    const tp_train *t = &c->train;
    REQUIRE_RANGE(t->num_gpus, "layout.num_gpus", 1, TP_MAX_GPUS);
    REQUIRE_RANGE(t->gpus_per_node, "layout.gpus_per_node", 0, TP_MAX_GPUS_PER_NODE);
    REQUIRE_RANGE(t->tp, "layout.tp", 1, TP_MAX_GPUS);
    REQUIRE_RANGE(t->pp, "layout.pp", 1, TP_MAX_GPUS);
    REQUIRE_RANGE(t->cp, "layout.cp", 1, TP_MAX_GPUS);
    REQUIRE_RANGE(t->ep, "layout.ep", 1, TP_MAX_GPUS);
    REQUIRE_RANGE(t->etp, "layout.etp", 0, TP_MAX_GPUS);
    REQUIRE_RANGE(t->vpp, "layout.vpp", 1, TP_MAX_LAYERS);
    REQUIRE_RANGE(t->zero, "layout.zero", 0, 3);
    REQUIRE_RANGE(t->seq_len, "train.seq_len", 1, TP_MAX_SEQ);
    REQUIRE_RANGE(t->micro_batch, "train.micro_batch", 1, TP_MAX_BATCH);
    REQUIRE_RANGE(t->global_batch, "train.global_batch", 1, TP_MAX_BATCH);
    REQUIRE_RANGE(t->recompute_every, "train.recompute_every", 1, m->num_layers);
    REQUIRE_RANGE(t->pad_vocab_to, "train.pad_vocab_to", 0, TP_MAX_VOCAB);
    if (t->packed_seq_len != 0 && (t->packed_seq_len < 1 || t->packed_seq_len > t->seq_len))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.packed_seq_len",
                            "%lld is out of range [1, seq_len %lld] (0: not packed)",
                            (long long)t->packed_seq_len, (long long)t->seq_len);
    /* per-example attention is the variable-length kernels' (FlashAttention,
     * TransformerEngine); a masked full matrix costs the whole s^2 (NeMo
     * docs/source/features/throughput_optimizations.rst) */
    if (t->packed_seq_len != 0 && !t->flash_attn)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.packed_seq_len",
                            "packed sequences attend per example only with FlashAttention "
                            "(drop --no-flash-attn)");
    if ((int)t->schedule < 0 || t->schedule > TP_SCHED_DUALPIPE)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.schedule", "invalid schedule");
    if ((int)t->recompute < 0 || t->recompute > TP_RECOMPUTE_FULL)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.recompute", "invalid recompute mode");
    if ((int)t->precision < 0 || t->precision >= TP_PREC_COUNT)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.precision", "invalid precision");
    if ((int)t->grad_dtype < 0 || t->grad_dtype > TP_DTYPE_FP16)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.grad_dtype",
                            "gradients must be fp32, bf16 or fp16");
    if ((int)t->optimizer.kind < 0 || t->optimizer.kind > TP_OPT_SGD ||
        (int)t->optimizer.moment_dtype < 0 || t->optimizer.moment_dtype > TP_DTYPE_INT8)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.optimizer", "invalid optimizer");

    int64_t a = m->num_heads, kvh = tp__kv_heads(m);
    if (a % t->tp != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.tp",
                            "%lld does not divide the number of attention heads (%lld)",
                            (long long)t->tp, (long long)a);
    if (kvh % t->tp != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.tp",
                            "%lld does not divide the number of key/value heads (%lld)",
                            (long long)t->tp, (long long)kvh);
    if (m->vision.layers > 0 && m->vision.heads % t->tp != 0) /* TP splits the tower too */
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.tp",
                            "%lld does not divide the vision tower's attention heads (%lld)",
                            (long long)t->tp, (long long)m->vision.heads);
    if (t->pp > m->num_layers)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.pp",
                            "%lld is larger than the number of layers (%lld)", (long long)t->pp,
                            (long long)m->num_layers);
    int64_t mp = t->tp * t->pp * t->cp; /* each <= 2^20 and checked below */
    if ((double)t->tp * (double)t->pp * (double)t->cp > (double)TP_MAX_GPUS ||
        t->num_gpus % mp != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.num_gpus",
                            "%lld GPUs are not divisible by tp*pp*cp = %lld*%lld*%lld",
                            (long long)t->num_gpus, (long long)t->tp, (long long)t->pp,
                            (long long)t->cp);
    int64_t dp = t->num_gpus / mp;
    if (t->cp > 1 && t->seq_len % (2 * t->cp) != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.cp",
                            "seq-len %lld is not divisible by 2*cp = %lld (causal load "
                            "balancing splits the sequence into 2*cp chunks)",
                            (long long)t->seq_len, (long long)(2 * t->cp));
    int64_t etp = tp_expert_tp(t);
    if ((t->ep > 1 || etp != t->tp) && m->num_experts == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, t->ep > 1 ? "layout.ep" : "layout.etp",
                            "%lld needs a mixture-of-experts model (experts is 0)",
                            (long long)(t->ep > 1 ? t->ep : etp));
    if (t->ep > 1 && m->num_experts % t->ep != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.ep",
                            "%lld does not divide the number of experts (%lld)", (long long)t->ep,
                            (long long)m->num_experts);
    /* Megatron-Core: world size divisible by etp * ep * pp (the expert
     * tensor-model-pipeline group); the rest is expert data parallel. */
    if ((double)etp * (double)t->ep * (double)t->pp > (double)t->num_gpus ||
        t->num_gpus % (etp * t->ep * t->pp) != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "layout.ep",
                            "%lld GPUs are not divisible by etp*ep*pp = %lld*%lld*%lld (the "
                            "expert layers' layout)",
                            (long long)t->num_gpus, (long long)etp, (long long)t->ep,
                            (long long)t->pp);
    if ((st = check_dualpipe(t, -1, err)) != TP_OK || (st = check_pp_split(c, err)) != TP_OK)
        return st;
    if (dp * t->micro_batch > TP_MAX_BATCH || t->global_batch % (t->micro_batch * dp) != 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.global_batch",
                            "%lld is not divisible by micro-batch * dp = %lld * %lld",
                            (long long)t->global_batch, (long long)t->micro_batch, (long long)dp);
    int64_t mb = t->global_batch / (t->micro_batch * dp);
    int64_t mf = mb; /* micro-batches per schedule run */
    if (t->local_batch != 0) {
        if (t->local_batch < 0 || t->local_batch % t->micro_batch != 0 ||
            (t->global_batch / dp) % t->local_batch != 0)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "train.local_batch",
                                "%lld is not a multiple of micro-batch %lld dividing global "
                                "batch / dp = %lld / %lld (0: one schedule run per step)",
                                (long long)t->local_batch, (long long)t->micro_batch,
                                (long long)t->global_batch, (long long)dp);
        mf = t->local_batch / t->micro_batch;
    }
    if (t->schedule == TP_SCHED_INTERLEAVED && t->pp > 1 && mf < t->pp)
        return tp_error_set(err, TP_ERR_INVALID_ARG, run_field(t),
                            "the interleaved schedule needs at least pp = %lld micro-batches "
                            "per %s, got %lld",
                            (long long)t->pp, run_unit(t), (long long)mf);
    if ((st = check_dualpipe(t, mf, err)) != TP_OK)
        return st;
    if (t->recompute_modules & ~TP_RC_ALL)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.recompute_modules",
                            "unknown recompute module bits 0x%x",
                            t->recompute_modules & ~TP_RC_ALL);
    if (t->recompute_modules && t->recompute != TP_RECOMPUTE_SELECTIVE)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.recompute_modules",
                            "recompute modules need selective recompute (Megatron-Core: "
                            "recompute_modules apply to recompute_granularity selective)");
    if (t->recompute_modules && c->opts.sac_ops)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.recompute_modules",
                            "recompute modules are Megatron-Core's selective recompute; per-op "
                            "SAC (sac-ops) is another policy");
    if (t->recompute_modules & (TP_RC_MOE | TP_RC_MOE_ACT | TP_RC_SHARED_EXPERTS) &&
        m->num_experts == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.recompute_modules",
                            "moe, moe_act and shared_experts recompute need a mixture-of-experts "
                            "model (experts is 0)");
    if (t->recompute_modules & TP_RC_MLA_UP_PROJ && !tp__is_mla(m))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.recompute_modules",
                            "mla_up_proj recompute needs multi-latent attention (kv_lora_rank is "
                            "0), as Megatron-Core checks");
    REQUIRE_RANGE(t->recompute_layers, "train.recompute_layers", 0, m->num_layers);
    if (t->recompute_layers > 0 && t->recompute != TP_RECOMPUTE_FULL)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.recompute_layers",
                            "a partial layer count needs full recompute (Megatron: "
                            "--recompute-granularity full --recompute-method block)");
    if (t->recompute_layers > 0 && c->opts.ckpt_model == TP_CKPT_SEED001)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.recompute_layers",
                            "a partial layer count needs the exact checkpoint accounting "
                            "(ckpt-model exact), not seed 001's");
    if (!(isfinite(t->offload_optimizer) && t->offload_optimizer >= 0.0 &&
          t->offload_optimizer <= 1.0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.offload_optimizer",
                            "must be a fraction in [0, 1] of the optimizer state");
    if (t->offload_optimizer > 0.0 && t->zero < 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.offload_optimizer",
                            "optimizer offload needs a sharded optimizer (ZeRO >= 1: "
                            "ZeRO-Offload, Megatron's distributed optimizer), got ZeRO 0");
    if ((st = check_offload(c, err)) != TP_OK || (st = check_fp8_recipe(c, err)) != TP_OK ||
        (st = check_a2a_overlap(c, err)) != TP_OK || (st = check_fp8_act_cache(c, err)) != TP_OK)
        return st;
    if (t->fp8_param_gather && t->precision != TP_PREC_FP8)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.fp8_param_gather",
                            "fp8 parameter gather needs precision fp8 (the weights are fp8 "
                            "tensors), got %s",
                            t->precision == TP_PREC_FP16   ? "fp16"
                            : t->precision == TP_PREC_TF32 ? "tf32"
                                                           : "bf16");
    if (t->fp8_param_gather && t->zero < 1)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.fp8_param_gather",
                            "fp8 parameter gather needs the distributed optimizer or FSDP "
                            "(ZeRO >= 1; Megatron-LM arguments.py), got ZeRO 0");
    if (t->precision == TP_PREC_FP8 && !(c->gpu.peak_flops_per_s[TP_PREC_FP8] > 0.0))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "train.precision",
                            "fp8 is not supported by %s (no fp8 peak)", c->gpu.name);
    if ((double)t->seq_len * (double)t->global_batch > (double)TP_MAX_TOKENS_PER_STEP)
        return tp_error_set(err, TP_ERR_RANGE, "train.global_batch",
                            "%lld sequences of %lld tokens is more than %.0e tokens per step",
                            (long long)t->global_batch, (long long)t->seq_len,
                            (double)TP_MAX_TOKENS_PER_STEP);
    st = tp__hybrid_validate_config(c, err); /* Mamba-2 / gated delta-net layouts */
    if (st != TP_OK)
        return st;
    /* what every later computation relies on: the layout covers the GPUs
     * exactly, and the batch is whole micro-batches on every DP rank */
    assert(t->tp * t->pp * t->cp * dp == t->num_gpus);
    assert(mb >= 1 && mb * t->micro_batch * dp == t->global_batch);
    return TP_OK;
}
