/* SPDX-License-Identifier: MIT */
/*
 * framework.c: framework profiles (issue 17, item 4), the tp_options a
 * training framework implies when the user states nothing else.
 *
 * A step on the same GPUs with the same layout differs between frameworks
 * mostly by what each overlaps and what its recompute re-runs; those are
 * switches the step-time model already has (time.c header 5-7), so a
 * profile is a named set of them, each with its source, and no fitted
 * number. What a profile does not set (CUDA graphs, host launch gaps,
 * the optimizer step's kernel count) has no term in the model: those stay
 * inside the fitted efficiencies (docs/model.md section 11).
 *
 * `trainplan validate` applies the profile of each row's framework
 * (runs-dev.csv column `framework`) and then the row's own settings;
 * `--framework NAME` applies it from the command line, before the
 * explicit convention flags.
 */
#include <string.h>

#include "internal.h"

static const char *const fw_names[TP_FW_COUNT] = {
    [TP_FW_NONE] = "none",
    [TP_FW_MEGATRON_LM] = "megatron-lm",
    [TP_FW_MEGATRON_CORE] = "megatron-core",
    [TP_FW_DEEPSPEED] = "deepspeed",
    [TP_FW_TORCHTITAN] = "torchtitan",
    [TP_FW_TORCHTUNE] = "torchtune",
    [TP_FW_LLM_FOUNDRY] = "llm-foundry",
    [TP_FW_AUTOMODEL] = "nemo-automodel",
};

const char *tp_framework_name(tp_framework fw)
{
    return (unsigned)fw < TP_FW_COUNT ? fw_names[fw] : "none";
}

int tp_framework_of(const char *name)
{
    for (int i = 0; name && i < TP_FW_COUNT; i++)
        if (strcmp(fw_names[i], name) == 0)
            return i;
    return -1;
}

/* Megatron-Core + TransformerEngine (NeMo 2, Megatron-Bridge). */
static void megatron_core(tp_options *o)
{
    /* --overlap-grad-reduce and, with the distributed optimizer,
     * --overlap-param-gather (megatron/training/arguments.py); the NeMo and
     * Megatron-Bridge performance recipes turn both on */
    o->dp_comm_overlap = true;
    /* TE userbuffers overlap the TP all-gather / reduce-scatter with the
     * GEMMs (--tp-comm-overlap); the performance recipes set it whenever
     * TP > 1 (it has no effect at TP 1) */
    o->tp_comm_overlap = true;
    /* ... as TE's userbuffers: each collective pipelined with its GEMM in
     * TP chunks (Megatron-Bridge training/comm_overlap.py; time.c
     * tp_exposed) */
    o->tp_overlap_chunked = true;
    /* vocab-parallel cross-entropy keeps only the fp32 logits
     * (megatron/core/tensor_parallel/cross_entropy.py) */
    o->ce_bytes_per_logit = 4.0;
}

/* Megatron-LM as of Narayanan et al. 2021 (no TransformerEngine). */
static void megatron_lm(tp_options *o)
{
    /* --DDP-impl local (the 2021 default, megatron/arguments.py) all-reduces
     * the gradients after the backward pass; --DDP-impl torch overlaps
     * (state it with the convention flags) */
    o->dp_comm_overlap = false;
    o->ce_bytes_per_logit = 4.0; /* vocab-parallel cross-entropy, as Megatron-Core */
}

/* Megatron-DeepSpeed with DeepSpeed's pipeline engine (BLOOM, 2022). */
static void deepspeed(tp_options *o)
{
    /* the pipeline engine reduces the gradients after the pipeline flush
     * (deepspeed/runtime/pipe/engine.py, ReduceGrads after the schedule) */
    o->dp_comm_overlap = false;
    /* it sends whole activations between stages, not TP-sharded ones */
    o->pp_scatter_gather = false;
    /* BF16_Optimizer keeps the 16-bit gradients beside its fp32
     * accumulation buffer: 2 B per parameter (runtime/bf16_optimizer.py) */
    o->extra_param_bytes = 2.0;
    o->ce_bytes_per_logit = 4.0; /* Megatron's vocab-parallel loss */
}

/* torchtitan (Liang et al. 2024, arXiv 2410.06511). */
static void torchtitan(tp_options *o)
{
    /* FSDP2 prefetches the next layer's all-gather and overlaps the
     * gradient reduce-scatter with backward (fully_shard) */
    o->dp_comm_overlap = true;
    /* async TP is opt-in (enable_async_tensor_parallel, default off) */
    o->tp_comm_overlap = false;
    /* activation_checkpoint.mode = "selective" with "op" is per-op SAC: it
     * saves the block input, every other matmul output and the attention
     * output (torchtitan's _save_list). Under torchao Float8 too: the
     * policy's dispatch mode sees the aten.mm on the Float8Tensor operands
     * before the subclass turns it into aten._scaled_mm, so the mm count
     * and the saved every-other output hold (docs/ACCURACY.md, issue 17
     * third round: torchtitan per-op SAC under Float8) */
    o->sac_ops = true;
    /* with SP, PrepareModuleInput all-gathers the attention and MLP inputs
     * and the ColwiseParallel linears (and the output head) save that
     * gathered tensor for their backward (parallelize_llama.py apply_tp at
     * 9dec370); Float8 gathers it in fp8 (torchao PrepareFloat8ModuleInput)
     * and saves the fp8 copy (float8_linear.py:51 at eab345c) */
    o->tp_gathered_input = true;
    /* torchao's Float8Linear saves the 16-bit input for its backward
     * (matmul_with_hp_or_float8_args: ctx.save_for_backward(input_hp, ...),
     * torchao/float8/float8_linear.py:76 at 0afa4c1), not TransformerEngine's
     * quantized copy (memory.c te_fp8_saving); the 2024 tensorwise path saved
     * the fp8 input (line 51 at eab345c), but the measured memory of the
     * torchtitan Float8 rows fits the 16-bit count (docs/ACCURACY.md) */
    o->fp8_hp_saved_inputs = true;
    o->fp8_weight_cache = false; /* torchao casts the weights per call */
    /* unfused cross-entropy on fp32-upcast logits: the default 12 B at
     * TP 1. At TP > 1 the output head keeps its logits sharded over the
     * vocabulary and the loss runs loss-parallel, on by default
     * (parallelize.py apply_tp: output_layouts Shard(-1) unless
     * disable_loss_parallel @ 238fa995; always since b3b60dabf, 2026-06-18):
     * DTensor's cross-entropy (torch/distributed/tensor/parallel/loss.py)
     * or, since fec0c175d, _LossParallelCrossEntropy (components/loss.py @
     * b5bcd76c) keeps the fp32 log-probabilities and builds the gradient as
     * (zeros + exp(log_probs)) * grad in eager fp32 tensors: four 4-B
     * tensors a logit at the backward. A compiled loss (compile.components
     * "loss") fuses them: plan it with --ce-bytes-per-logit 4 and
     * --ce-bytes-per-logit-tp 4 (what the torchtitan import does). */
    o->ce_bytes_per_logit_tp = 16.0;
}

/* MosaicML llm-foundry / Composer (2023 benchmarks). */
static void llm_foundry(tp_options *o)
{
    o->dp_comm_overlap = true; /* PyTorch FSDP with backward prefetch */
    /* FlashAttention-2 or the triton flash attention of 2023, written for
     * Ampere (FlashAttention-3 appeared in July 2024): on Hopper it runs at
     * 1/1.75 of the native kernel's rate (Shah et al. 2024) */
    o->attn_ampere_kernel = true;
    /* TE modules (fc_type te) called without is_first_microbatch cast the
     * weights per call: no cached fp8 copy */
    o->fp8_weight_cache = false;
}

/* NeMo AutoModel: PyTorch FSDP2 with TransformerEngine kernels and DeepEP. */
static void automodel(tp_options *o)
{
    o->dp_comm_overlap = true; /* FSDP2, as torchtitan */
    o->tp_comm_overlap = false;
    /* TE's fused (cuDNN) attention: a Hopper-native kernel, the default */
    o->attn_ampere_kernel = false;
    /* its TE linears are called without is_first_microbatch: the fp8
     * weights are cast per call, not cached */
    o->fp8_weight_cache = false;
}

void tp_framework_apply(tp_framework fw, tp_options *o)
{
    switch (fw) {
    case TP_FW_MEGATRON_LM: megatron_lm(o); break;
    case TP_FW_MEGATRON_CORE: megatron_core(o); break;
    case TP_FW_DEEPSPEED: deepspeed(o); break;
    case TP_FW_TORCHTITAN: torchtitan(o); break;
    case TP_FW_LLM_FOUNDRY: llm_foundry(o); break;
    case TP_FW_AUTOMODEL: automodel(o); break;
    case TP_FW_TORCHTUNE: /* FSDP2 recipes: trainplan's defaults */
    case TP_FW_NONE:
    case TP_FW_COUNT:
    default: break;
    }
}
