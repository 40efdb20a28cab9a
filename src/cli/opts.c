/* SPDX-License-Identifier: MIT */
/*
 * opts.c: the configuration flags shared by estimate, search and plan.
 *
 * The flags are the fields of src/io/fields.c (type, range, choices) with
 * the --help lines below (metavar, unit, default, help, group), plus the
 * CLI's own --json. Parsing is two passes so that flags may come in any
 * order:
 *   1. scan argv and record the last value of each flag in a run
 *      description (src/io/desc.h; the order they came in too, so that of
 *      two opposite switches the later one wins);
 *   2. tp_io_desc_build turns it into the tp_config: loads --model and
 *      --gpu, takes the library defaults, applies every override, then the
 *      derived defaults (global batch = micro-batch x DP, sp when tp > 1,
 *      interleaved schedule when vpp > 1). The web API's requests are built
 *      by the same function, so both front ends get the same answers.
 * Every number goes through tp_io_parse_i64 / tp_io_parse_f64 with the
 * range of its row in src/io/fields.c;
 * cross-field constraints are left to tp_config_validate, which names the
 * field in err->path by its canonical name ("layout.tp"); cli_error_print
 * words it as the flag through the table of src/io/fields.h.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "cli.h"
#include "desc.h"
#include "fields.h"
#include "import.h"
#include "io_internal.h"
#include "recompute_modules.h"
#include "request.h"

/*
 * The --help lines of the shared flags, in the order --help lists them:
 * what a user reads (metavar, unit, default, help, group). The type,
 * range and choices of every flag that sets a field come from its row
 * in src/io/fields.c (table_init); a row here without a field is the
 * CLI's own (--json) and says its kind itself. Every field of the run
 * description must have a line here (check_table).
 */

#define G_MODEL "Model (architecture overrides apply after --model is loaded)"
#define G_BATCH "Batch"
#define G_GPU "Hardware"
#define G_LAYOUT "Parallel layout"
#define G_MEM "Memory and optimizer"
#define G_CONV "Conventions"
#define G_OVER "Calibrated overheads"
#define G_OUT "Output"

/* The table: defaults with .def = NULL are derived from the library. */
/* clang-format off */
static const cli_flag help_rows[] = {
    {"--model", "NAME|FILE", NULL, TP_IO_DEFAULT_MODEL,
     "model preset, trainplan model JSON file, or Hugging Face config.json", .group = G_MODEL},
    {"--layers", "N", "layers", "from --model",
     "number of transformer layers", .group = G_MODEL},
    {"--hidden", "N", "elements", "from --model",
     "hidden size (d_model)", .group = G_MODEL},
    {"--heads", "N", "heads", "from --model",
     "attention (query) heads", .group = G_MODEL},
    {"--kv-heads", "N", "heads", "from --model",
     "key/value heads (grouped-query attention)", .group = G_MODEL},
    {"--head-dim", "N", "elements", "from --model",
     "dimension of one attention head", .group = G_MODEL},
    {"--ffn-hidden", "N", "elements", "from --model",
     "dense MLP intermediate size", .group = G_MODEL},
    {"--vocab", "N", "tokens", "from --model",
     "vocabulary size (unpadded)", .group = G_MODEL},
    {"--mlp", NULL, NULL, "from --model",
     "MLP type", .group = G_MODEL},
    {"--norm", NULL, NULL, "from --model",
     "normalisation layer", .group = G_MODEL},
    {"--tie-embeddings", NULL, NULL, "from --model",
     "output head shares the input embedding", .group = G_MODEL},
    {"--no-tie-embeddings", NULL, NULL, "from --model",
     "separate output head", .group = G_MODEL},
    {"--experts", "N", "experts", "from --model",
     "routed experts per MoE layer (0 = dense)", .group = G_MODEL},
    {"--topk", "N", "experts", "from --model",
     "experts each token is routed to", .group = G_MODEL},
    {"--moe-ffn-hidden", "N", "elements", "from --model",
     "intermediate size of one expert", .group = G_MODEL},
    {"--shared-experts", "N", "experts", "from --model",
     "shared (always active) experts", .group = G_MODEL},
    {"--bias", NULL, NULL, "from --model",
     "linear biases: none, on q/k/v only (Qwen2), or on every linear (GPT-2)", .group = G_MODEL},
    {"--position", NULL, NULL, "from --model",
     "position embeddings", .group = G_MODEL},
    {"--max-positions", "N", "positions", "from --model",
     "learned position table size (learned positions only)", .group = G_MODEL},
    {"--rope-theta", "X", "ratio", "from --model",
     "rotary base (HF rope_theta; exports only, the estimate does not use it)", .group = G_MODEL},
    {"--rope-scaling", NULL, NULL, "from --model",
     "rotary frequency scaling (llama3: low/high frequency factors 1 and 4, "
     "original context 8192)", .group = G_MODEL},
    {"--rope-factor", "X", "ratio", "8 with --rope-scaling llama3",
     "rotary scaling factor", .group = G_MODEL},
    {"--norm-eps", "X", "added to the variance", "from --model",
     "norm epsilon (exports only, the estimate does not use it)", .group = G_MODEL},
    {"--shared-ffn-hidden", "N", "elements", "from --model",
     "total width of the shared experts (0: shared experts x expert width)", .group = G_MODEL},
    {"--moe-first-dense", "N", "layers", "from --model",
     "leading dense layers before the MoE layers (DeepSeek-style)", .group = G_MODEL},
    {"--moe-layer-freq", "N", "layers", "from --model",
     "every N-th layer after the leading dense ones is MoE", .group = G_MODEL},
    {"--q-lora-rank", "N", "elements", "from --model",
     "multi-latent attention: query compression rank (0 = none)", .group = G_MODEL},
    {"--kv-lora-rank", "N", "elements", "from --model",
     "multi-latent attention: compressed KV rank (0 = no MLA)", .group = G_MODEL},
    {"--qk-rope-head-dim", "N", "elements", "from --model",
     "multi-latent attention: RoPE dims per head", .group = G_MODEL},
    {"--qk-nope-head-dim", "N", "elements", "from --model",
     "multi-latent attention: position-free q/k dims per head", .group = G_MODEL},
    {"--v-head-dim", "N", "elements", "from --model",
     "multi-latent attention: value dims per head", .group = G_MODEL},
    {"--mtp-layers", "N", "modules", "from --model",
     "multi-token prediction modules (DeepSeek-V3: 1)", .group = G_MODEL},
    {"--sliding-window", "N", "tokens", "from --model",
     "local attention window (0 = full attention)", .group = G_MODEL},
    {"--global-every", "N", "layers", "from --model",
     "with a window, every N-th layer is global (0 = all local)", .group = G_MODEL},
    {"--attention-chunk", "N", "tokens", "from --model",
     "chunked attention (Llama 4 attention_chunk_size): a token attends to "
     "its own chunk only; --global-every marks full layers (0 = none)", .group = G_MODEL},
    {"--qk-norm", NULL, NULL, "from --model",
     "norms on q and k: per head (Qwen3) or full width (OLMo2)", .group = G_MODEL},
    {"--attn-sinks", NULL, NULL, "from --model",
     "a learned sink logit per head (gpt-oss)", .group = G_MODEL},
    {"--router-bias", NULL, NULL, "from --model",
     "a bias per expert on each router (gpt-oss, DeepSeek-V3)", .group = G_MODEL},
    {"--moe-imbalance", "X", "ratio", "from --model (0: balanced)",
     "routed tokens of the busiest expert-parallel rank over the mean", .group = G_MODEL},
    {"--moe-capacity-factor", "X", "ratio", "from --model (0: dropless)",
     "expert capacity in means; tokens beyond it are dropped", .group = G_MODEL},
    {"--moe-router-groups", "N", "groups", "from --model (0: none)",
     "group-limited routing: the experts in N equal groups (DeepSeek-V3 "
     "n_group)", .group = G_MODEL},
    {"--moe-router-group-topk", "N", "groups", "from --model",
     "the groups a token's experts come from (DeepSeek-V3 topk_group)", .group = G_MODEL},
    {"--image-tokens", "N", "patches", "from --model (one image)",
     "vision-encoder patches per sample (a vision-language model)", .group = G_MODEL},
    {"--freeze-vision", NULL, NULL, "trainable",
     "freeze the vision encoder: no gradients or optimizer state, forward "
     "only (the projector still trains)", .group = G_MODEL},
    {"--seq-len", "N", "tokens", NULL,
     "sequence length", .group = G_BATCH},
    {"--micro-batch", "N", "sequences", NULL,
     "micro-batch size per pipeline", .group = G_BATCH},
    {"--global-batch", "N", "sequences", "micro-batch x DP",
     "sequences per optimizer step", .group = G_BATCH},
    {"--global-batch-tokens", "N", "tokens", "unset",
     "tokens per optimizer step (a multiple of --seq-len)", .group = G_BATCH},
    {"--local-batch", "N", "sequences", "global batch / DP",
     "sequences per DP rank in one run of the pipeline schedule; the step "
     "accumulates over global / (N x DP) runs, each filling and draining the "
     "pipeline and, under PP, reducing the gradients (FSDP: gathering the "
     "weights again) (torchtitan and NeMo AutoModel local_batch_size)",
     .group = G_BATCH},
    {"--packed-seq-len", "N", "tokens", "not packed",
     "packed sequences of N-token examples, each attending only within itself "
     "(NeMo packed SFT): the attention core scales with N, not --seq-len",
     .group = G_BATCH},
    {"--gpu", "NAME|FILE", NULL, TP_IO_DEFAULT_GPU,
     "GPU preset or GPU JSON file", .group = G_GPU},
    {"--gpus", "N", "GPUs", NULL,
     "total number of GPUs", .group = G_GPU},
    {"--gpus-per-node", "N", "GPUs", "from --gpu",
     "GPUs per node (size of the fast intra-node domain)", .group = G_GPU},
    {"--gpu-memory-gb", "X", "GB (1e9 bytes)", "from --gpu",
     "usable memory per GPU", .group = G_GPU},
    {"--gpu-memory-gib", "X", "GiB (2^30 bytes)", "from --gpu",
     "usable memory per GPU", .group = G_GPU},
    {"--peak-tflops", "X", "TFLOP/s (1e12 FLOP/s)", "from --gpu",
     "dense peak of the chosen --precision", .group = G_GPU},
    {"--nic-gbps", "X", "GB/s per GPU per direction", "from --gpu",
     "scale-out network bandwidth of one GPU, the line rate of its share of the node's NICs "
     "(one 400 Gb/s port per GPU: 50)", .group = G_GPU},
    {"--price", "X", "USD per GPU-hour", "from --gpu",
     "price of one GPU-hour", .group = G_GPU},
    {"--hw-profile", "FILE", NULL, "the GPU preset's GEMM part",
     "hardware profile JSON (data/hardware/, tools/probe/): measured rates", .group = G_GPU},
    {"--fitted-gemm", NULL, NULL, "off: a GPU preset's measured matmul rate",
     "GEMMs at the fitted fractions of calib.c instead of the kernel-level model of the "
     "GPU's shipped hardware profile", .group = G_GPU},
    {"--tp", "N", "GPUs", NULL,
     "tensor-parallel size", .group = G_LAYOUT},
    {"--pp", "N", "stages", NULL,
     "pipeline-parallel size", .group = G_LAYOUT},
    {"--cp", "N", "GPUs", NULL,
     "context-parallel size", .group = G_LAYOUT},
    {"--ep", "N", "GPUs", NULL,
     "expert-parallel size (divides --experts; GPUs divisible by ETP x EP x PP)",
     .group = G_LAYOUT},
    {"--vpp", "N", "chunks per GPU", NULL,
     "virtual pipeline stages (> 1 implies --schedule interleaved)", .group = G_LAYOUT},
    {"--sp", NULL, NULL, "on when --tp > 1",
     "Megatron sequence parallelism", .group = G_LAYOUT},
    {"--no-sp", NULL, NULL, "off when --tp = 1",
     "no sequence parallelism", .group = G_LAYOUT},
    {"--schedule", NULL, NULL, NULL,
     "pipeline schedule (interleaved when --vpp > 1; dualpipe: DeepSeek's, pp even, "
     "micro-batches per step even and >= 2*pp, never searched)",
     .group = G_LAYOUT},
    {"--first-stage-layers", "N", "layers", "even split",
     "layers on the first pipeline stage", .group = G_LAYOUT},
    {"--last-stage-layers", "N", "layers", "even split",
     "layers on the last pipeline stage", .group = G_LAYOUT},
    {"--pp-split", NULL, NULL, "megatron",
     "where the layers PP x VPP does not divide go: megatron (middle stages first; VPP must "
     "divide) or in-order (the first virtual stages, PyTorch pipelining as in NeMo AutoModel)",
     .group = G_LAYOUT},
    {"--etp", "N", "GPUs", "--tp",
     "expert tensor-parallel size (MoE parallel folding: GPUs divisible by ETP x EP x PP)",
     .group = G_LAYOUT},
    {"--zero", "0|1|2|3", NULL, NULL,
     "ZeRO stage: 1 optimizer, 2 + gradients, 3 + weights sharded over DP", .group = G_MEM},
    {"--fsdp", NULL, NULL, "off",
     "same as --zero 3", .group = G_MEM},
    {"--distributed-optimizer", NULL, NULL, "off",
     "Megatron distributed optimizer, same as --zero 1", .group = G_MEM},
    {"--recompute", NULL, NULL, NULL,
     "activation recomputation", .group = G_MEM},
    {"--recompute-every", "K", "layers", NULL,
     "layers per checkpoint group under --recompute full", .group = G_MEM},
    {"--precision", NULL, NULL, NULL,
     "GEMM precision (fp8 keeps bf16 weights and fp32 master weights)", .group = G_MEM},
    {"--grad-dtype", NULL, NULL, NULL,
     "gradient (main grad) data type", .group = G_MEM},
    {"--optimizer", NULL, NULL, NULL,
     "optimizer and moment data type (fp32, bf16 or 8-bit moments)", .group = G_MEM},
    {"--no-master-weights", NULL, NULL, "fp32 master copy kept",
     "no fp32 master copy of the weights", .group = G_MEM},
    {"--no-flash-attn", NULL, NULL, "FlashAttention on",
     "materialise the attention score matrix", .group = G_MEM},
    {"--dropout", NULL, NULL, "off",
     "store dropout masks in the activations", .group = G_MEM},
    {"--fused-ce", NULL, NULL, "off",
     "fused cross-entropy: no full logits tensor", .group = G_MEM},
    {"--pad-vocab", "N", "tokens", "1 (no padding)",
     "round the vocabulary up to a multiple of N for memory and FLOPs", .group = G_MEM},
    {"--fp8-param-gather", NULL, NULL, "off",
     "weights held and all-gathered in fp8 (Megatron --fp8-param-gather; "
     "needs --precision fp8 and ZeRO >= 1)", .group = G_MEM},
    {"--recompute-modules", "LIST", NULL, "core_attn",
     "what selective recompute re-runs, Megatron-Core's names, comma-"
     "separated: core_attn, layernorm, mlp, moe, moe_act, shared_experts, mla_up_proj",
     .group = G_MEM},
    {"--offload-optimizer", "X", "fraction", "0 (none)",
     "share of the optimizer state kept and updated on the host CPU "
     "(ZeRO-Offload; Megatron --optimizer-offload-fraction); needs ZeRO >= 1", .group = G_MEM},
    {"--host-memory-gb", "X", "GB (1e9 bytes) per node", "the GPU preset's, else 2000",
     "host memory for offloaded state per node (0: not checked)", .group = G_MEM},
    {"--pcie-gbps", "X", "GB/s per GPU per direction",
     "--hw-profile's, else the GPU preset's, else 50",
     "achieved GPU-host bandwidth for offload (PCIe Gen5 x16 line rate: 63; "
     "Gen4: 32; GB200's NVLink-C2C: 225 a GPU)",
     .group = G_MEM},
    {"--host-mem-bw-gbps", "X", "GB/s per node", "the GPU preset's, else 450",
     "achieved CPU memory bandwidth of a node, for the CPU optimizer update", .group = G_MEM},
    {"--recompute-block-layers", "N", "layers per stage", "all layers",
     "under --recompute full recompute only the first N layers of each "
     "stage (Megatron --recompute-method block --recompute-num-layers N)", .group = G_MEM},
    {"--offload-params", NULL, NULL, "none",
     "where this GPU's ZeRO-3 shard of the weights lives: on the host CPU "
     "or the node's NVMe drives (ZeRO-Infinity offload_param, FSDP CPU "
     "offload); needs ZeRO 3", .group = G_MEM},
    {"--nvme-gbps", "X", "GB/s per node", NULL,
     "achieved NVMe bandwidth of a node for --offload-params nvme", .group = G_MEM},
    {"--offload-activations", "N", "layers", "0 (none)",
     "offload the activations of N layers to the host CPU (Megatron "
     "--cpu-offloading-num-layers); needs pp 1, no recompute, N < layers", .group = G_MEM},
    {"--fp8-recipe", NULL, NULL, "delayed",
     "fp8 scaling recipe: delayed, tensorwise (current scaling), mxfp8 or "
     "nvfp4 (FP4 GEMMs); the last two need a Blackwell GPU; needs --precision fp8",
     .group = G_MEM},
    {"--attn-flops", NULL, NULL, NULL,
     "attention FLOP convention: causal halves QK^T and AV", .group = G_CONV},
    {"--act-model", NULL, NULL, NULL,
     "activation accounting (korthikanti: s*b*h*(34+5*a*s/h)/t)", .group = G_CONV},
    {"--ckpt-model", NULL, NULL, NULL,
     "full-recompute accounting (seed001: (L/k + k) layers)", .group = G_CONV},
    {"--coll-model", NULL, NULL, NULL,
     "collective cost (simple: volume / bandwidth)", .group = G_CONV},
    {"--tp-comm-overlap", NULL, NULL, "off",
     "TP collectives overlapped with the GEMMs (Megatron --tp-comm-overlap, "
     "torchtitan async TP)", .group = G_CONV},
    {"--tp-overlap-chunked", NULL, NULL, "off (up to the overlap efficiency hides)",
     "with --tp-comm-overlap and SP: TransformerEngine userbuffers, each TP collective "
     "pipelined with its GEMM in TP chunks; one chunk of the forward reduce-scatters "
     "stays exposed (Megatron-Core)", .group = G_CONV},
    {"--no-dp-comm-overlap", NULL, NULL, "overlapped",
     "gradient reduction and parameter gathers not overlapped with compute", .group = G_CONV},
    {"--attn-ampere-kernel", NULL, NULL, "off",
     "attention runs a kernel written for Ampere (FlashAttention-2) on a "
     "Hopper or newer GPU: 1/1.75 of the native kernel's rate (FA3 paper)", .group = G_CONV},
    {"--sac-ops", NULL, NULL, "off (selective = attention core)",
     "selective recompute is torchtitan's per-op checkpointing", .group = G_CONV},
    {"--eager-elementwise", NULL, NULL, "off (fused, as TE or torch.compile)",
     "element-wise ops run as PyTorch eager kernels, one pass over memory each "
     "(torchtitan without torch.compile: RMSNorm, rotary, SwiGLU)", .group = G_CONV},
    {"--eager-experts", NULL, NULL, "off (one fused kernel)",
     "the routed experts' activation, routing-weight product and biases run as "
     "PyTorch eager kernels (NeMo AutoModel's gpt-oss experts)", .group = G_CONV},
    {"--no-pp-scatter-gather", NULL, NULL, "sharded over TP",
     "pipeline sends whole activations (DeepSpeed), not TP-sharded ones", .group = G_CONV},
    {"--extra-param-bytes", "X", "bytes per parameter", NULL,
     "unsharded framework buffers per parameter (DeepSpeed BF16_Optimizer: 5)", .group = G_OVER},
    {"--ce-bytes-per-logit", "X", "bytes per logit", NULL,
     "loss peak per logit when the cross-entropy is not fused (Megatron: 4)", .group = G_OVER},
    {"--ce-bytes-per-logit-tp", "X", "bytes per logit", "as --ce-bytes-per-logit",
     "the same at TP > 1, the logits sharded over the vocabulary (torchtitan's loss "
     "parallel: 16); 0: as --ce-bytes-per-logit", .group = G_OVER},
    {"--cuda-context-gb", "X", "GB (1e9 bytes)", NULL,
     "CUDA context and kernels per GPU", .group = G_OVER},
    {"--comm-buffer-gb", "X", "GB (1e9 bytes)", NULL,
     "NCCL buffers per communicator", .group = G_OVER},
    {"--fragmentation", "X", "fraction", NULL,
     "allocator reserve as a fraction of dynamic memory", .group = G_OVER},
    {"--framework", NULL, NULL, "none",
     "the conventions a training framework implies (overlaps, selective "
     "recompute, buffers, kernels; docs/model.md 11); the other convention "
     "flags add to it", .group = G_CONV},
    {"--unfused-full-matrix", NULL, NULL, "off (the causal half)",
     "without FlashAttention, charge the whole s x s score matrix, which "
     "the batched GEMMs and the mask compute and store (opt-in; "
     "docs/ACCURACY.md)", .group = G_CONV},
    {"--grouped-gemm", NULL, NULL, "off (one GEMM per expert)",
     "run the routed experts on a GPU as one grouped GEMM whose tiles share "
     "the waves (changes only the kernel-level model of a hardware profile, "
     "not --fitted-gemm; opt-in, docs/ACCURACY.md)", .group = G_CONV},
    {"--tp-gathered-input", NULL, NULL, "off (the shard, re-gathered)",
     "with SP, TP linears save the input they all-gather whole (torchtitan's "
     "DTensor TP), not the sequence shard Megatron re-gathers in the "
     "backward", .group = G_CONV},
    {"--moe-a2a-overlap", NULL, NULL, "off (exposed)",
     "hide one micro-batch's expert-parallel all-to-all behind another's "
     "computation (Megatron-Core --overlap-moe-expert-parallel-comm; needs "
     "ep > 1, no full or moe recompute, vpp under pp; docs/model.md 5)",
     .group = G_CONV},
    {"--moe-sync-free", NULL, NULL, "off (dropless layers wait on the host)",
     "the MoE layers never wait on the host (a CUDA graph over a sync-free "
     "dispatcher): no host floor on a dropless MoE layer (docs/model.md 2b)",
     .group = G_CONV},
    {"--moe-node-dispatch", NULL, NULL, "off (a copy per expert)",
     "the EP dispatcher sends a token once per destination GPU (across "
     "nodes once per node, then over NVLink once per GPU there), and "
     "permutes what it receives by expert once, without a sort by expert "
     "(DeepEP, HybridEP: Megatron-Core's flex dispatcher); with "
     "--moe-router-groups the groups bound the nodes and GPUs (docs/model.md "
     "5)", .group = G_CONV},
    {"--fp8-activation-cache", NULL, NULL, "off (TE fp8 copies)",
     "under fp8, cache the linear layers' saved inputs in fp8 (1x128 "
     "tiles), the attention output in E5M6, and a MoE MLP's activation "
     "input in fp8 with its output recomputed (DeepSeek-V3; docs/model.md "
     "11)", .group = G_CONV},
    {"--fp8-hp-saved-inputs", NULL, NULL, "off (fp8 saved inputs)",
     "under fp8, the linear layers save their 16-bit inputs for the "
     "backward (torchao Float8Linear; the torchtitan profile) instead of "
     "TransformerEngine's quantized copy (docs/model.md 11)", .group = G_CONV},
    {"--no-fp8-weight-cache", NULL, NULL, "kept through the step",
     "under fp8, TransformerEngine's fp8 copies of the linear weights (the "
     "cast Megatron-Core caches over a step's micro-batches, the transpose "
     "on Hopper) live with their layer only (TE called without "
     "is_first_microbatch; the torchtitan, llm-foundry and nemo-automodel "
     "profiles); docs/model.md 10", .group = G_CONV},
    {"--json", NULL, NULL, "text report",
     "print one JSON object instead of the report", .kind = CLI_SWITCH, .group = G_OUT},
};
/* clang-format on */

#define NUM_FLAGS (sizeof help_rows / sizeof help_rows[0])
_Static_assert(NUM_FLAGS <= CLI_MAX_FLAGS, "raise CLI_MAX_FLAGS in cli.h");

/* help_rows with each field's type, range and choices from src/io/fields.c. */
static cli_flag flag_table[NUM_FLAGS];

static void table_init(void)
{
    static const cli_kind kind_of[] = {
        [TP_IO_FIELD_INT] = CLI_INT,       [TP_IO_FIELD_NUM] = CLI_NUM,
        [TP_IO_FIELD_NUM0] = CLI_NUM0,     [TP_IO_FIELD_ENUM] = CLI_ENUM,
        [TP_IO_FIELD_SWITCH] = CLI_SWITCH, [TP_IO_FIELD_STR] = CLI_STR,
    };
    for (size_t i = 0; i < NUM_FLAGS; i++) {
        flag_table[i] = help_rows[i];
        int slot = tp_io_desc_slot(flag_table[i].name);
        const tp_io_field *f = slot >= 0 ? tp_io_field_at((size_t)slot) : NULL;
        if (!f)
            continue; /* the CLI's own */
        flag_table[i].kind = kind_of[f->type];
        flag_table[i].imin = f->imin;
        flag_table[i].imax = f->imax;
        flag_table[i].fmin = f->fmin;
        flag_table[i].fmax = f->fmax;
        flag_table[i].choices = f->choices;
    }
}

/* The shared table, filled once per process. */
static const cli_flag *table(void)
{
    static once_flag once = ONCE_FLAG_INIT;
    call_once(&once, table_init);
    return flag_table;
}

/* ---- small helpers ---- */

int cli_edit_distance(const char *a, const char *b)
{
    size_t d = tp_io_edit_distance(a, b, false);
    return d > 99 ? 99 : (int)d;
}

/* Closest name to `s` if it is close enough to be a plausible typo. */
static void closest(const char *s, const char *cand, int *best_d, const char **best)
{
    int d = cli_edit_distance(s, cand);
    if (d < *best_d) {
        *best_d = d;
        *best = cand;
    }
}

static bool plausible(const char *s, int d)
{
    size_t n = strlen(s);
    return d <= 3 && (size_t)d * 2 <= n;
}

/* Path for messages: the flag name without its dashes. */
static const char *bare(const cli_flag *fl)
{
    return fl->name + 2;
}

/* The parsers name the flag in the message ("--tp: ...") and set path "tp". */
tp_status cli_flag_i64(const cli_flag *fl, const char *val, int64_t *out, tp_error *err)
{
    return tp_io_parse_i64(fl->name, val, fl->imin, fl->imax, out, err);
}

tp_status cli_flag_f64(const cli_flag *fl, const char *val, double *out, tp_error *err)
{
    if (fl->kind == CLI_NUM0)
        return tp_io_parse_f64_or0(fl->name, val, fl->fmin, fl->fmax, out, err);
    return tp_io_parse_f64(fl->name, val, fl->fmin, fl->fmax, out, err);
}

static void choices_text(const cli_flag *fl, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; fl->choices[i] && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? "|" : "", fl->choices[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

tp_status cli_flag_enum(const cli_flag *fl, const char *val, int *out, tp_error *err)
{
    return tp_io_parse_enum(fl->name, fl->choices, val, out, err);
}

/* ---- --help ---- */

/* Default text of a common flag whose table entry derives it. */
static void derived_default(const char *name, char *buf, size_t n)
{
    tp_train t;
    tp_options o;
    tp_train_default(&t);
    tp_options_default(&o);
#define IS(flag) (strcmp(name, flag) == 0)
#define I64(x) snprintf(buf, n, "%lld", (long long)(x))
#define TXT(x) snprintf(buf, n, "%s", (x))
#define GB(x) snprintf(buf, n, "%g", (x) / TP_GB)
#define REAL(x) snprintf(buf, n, "%g", (x))
    if (IS("--seq-len"))
        I64(t.seq_len);
    else if (IS("--micro-batch"))
        I64(t.micro_batch);
    else if (IS("--gpus"))
        I64(t.num_gpus);
    else if (IS("--tp"))
        I64(t.tp);
    else if (IS("--pp"))
        I64(t.pp);
    else if (IS("--cp"))
        I64(t.cp);
    else if (IS("--ep"))
        I64(t.ep);
    else if (IS("--vpp"))
        I64(t.vpp);
    else if (IS("--schedule"))
        TXT(tp_io_schedule_name(t.schedule));
    else if (IS("--zero"))
        I64(t.zero);
    else if (IS("--recompute"))
        TXT(tp_io_recompute_name(t.recompute));
    else if (IS("--recompute-every"))
        I64(t.recompute_every);
    else if (IS("--precision"))
        TXT(tp_io_precision_name(t.precision));
    else if (IS("--grad-dtype"))
        TXT(tp_io_dtype_name(t.grad_dtype));
    else if (IS("--optimizer"))
        TXT(tp_io_optimizer_name(&t.optimizer));
    else if (IS("--attn-flops"))
        TXT(tp_io_attn_names[o.attn_flops]);
    else if (IS("--act-model"))
        TXT(tp_io_act_names[o.act_model]);
    else if (IS("--ckpt-model"))
        TXT(tp_io_ckpt_names[o.ckpt_model]);
    else if (IS("--coll-model"))
        TXT(tp_io_coll_names[o.coll_model]);
    else if (IS("--cuda-context-gb"))
        GB(o.cuda_context_bytes);
    else if (IS("--host-memory-gb"))
        GB(o.host_mem_bytes_per_node);
    else if (IS("--pcie-gbps"))
        GB(o.pcie_bw_bytes_per_s);
    else if (IS("--host-mem-bw-gbps"))
        GB(o.host_mem_bw_bytes_per_s);
    else if (IS("--nvme-gbps"))
        GB(o.nvme_bw_bytes_per_s);
    else if (IS("--comm-buffer-gb"))
        GB(o.comm_buffer_bytes);
    else if (IS("--fragmentation"))
        REAL(o.fragmentation);
    else if (IS("--extra-param-bytes"))
        REAL(o.extra_param_bytes);
    else if (IS("--ce-bytes-per-logit"))
        REAL(o.ce_bytes_per_logit);
    else
        TXT("-");
#undef IS
#undef I64
#undef TXT
#undef GB
#undef REAL
}

/* Help lines: flag at column 2, description word-wrapped from column HELP_COL. */
#define HELP_COL 30
#define HELP_WIDTH 79

static void print_wrapped(FILE *f, const char *lhs, const char *text)
{
    size_t pos;
    if (strlen(lhs) + 3 <= HELP_COL) {
        fprintf(f, "  %-*s", HELP_COL - 2, lhs);
    } else {
        fprintf(f, "  %s\n%*s", lhs, HELP_COL, "");
    }
    pos = HELP_COL;
    bool line_start = true;
    const char *p = text;
    while (*p) {
        const char *space = strchr(p, ' ');
        size_t wl = space ? (size_t)(space - p) : strlen(p);
        if (!line_start && pos + 1 + wl > HELP_WIDTH) {
            fprintf(f, "\n%*s", HELP_COL, "");
            pos = HELP_COL;
            line_start = true;
        }
        if (!line_start) {
            fputc(' ', f);
            pos++;
        }
        for (size_t k = 0; k < wl; k++) /* \001 is a space that does not break */
            fputc(p[k] == '\001' ? ' ' : p[k], f);
        pos += wl;
        line_start = false;
        p += wl;
        while (*p == ' ')
            p++;
    }
    fputc('\n', f);
}

static void print_table(FILE *f, const cli_flag *tab, size_t count, bool common)
{
    const char *group = NULL;
    for (size_t i = 0; i < count; i++) {
        const cli_flag *fl = &tab[i];
        if (!fl->name || !fl->help)
            continue;
        if (fl->group && (!group || strcmp(group, fl->group) != 0)) {
            group = fl->group;
            fprintf(f, "\n%s:\n", group);
        }
        char meta[160] = "";
        if (fl->kind == CLI_ENUM)
            choices_text(fl, meta, sizeof meta);
        else if (fl->metavar)
            snprintf(meta, sizeof meta, "%s", fl->metavar);
        char lhs[200];
        snprintf(lhs, sizeof lhs, "%s%s%s", fl->name, meta[0] ? " " : "", meta);
        char def[96];
        if (fl->def)
            snprintf(def, sizeof def, "%s", fl->def);
        else if (common)
            derived_default(fl->name, def, sizeof def);
        else
            def[0] = '\0';
        for (char *q = def; *q; q++) /* keep "(default: ...)" on one line */
            if (*q == ' ')
                *q = '\001';
        char text[512];
        snprintf(text, sizeof text, "%s%s%s%s%s%s%s", fl->help, fl->unit ? " [" : "",
                 fl->unit ? fl->unit : "", fl->unit ? "]" : "", def[0] ? " (default:\001" : "", def,
                 def[0] ? ")" : "");
        print_wrapped(f, lhs, text);
    }
}

void cli_print_flags(FILE *f, const cli_flag *tab, size_t count)
{
    print_table(f, tab, count, false);
}

void cli_print_config_flags(FILE *f)
{
    print_table(f, table(), NUM_FLAGS, true);
}

/* A group heading's short name: its words before " (". */
static void group_label(const char *group, char *buf, size_t n)
{
    const char *paren = strstr(group, " (");
    snprintf(buf, n, "%.*s", (int)(paren ? (size_t)(paren - group) : strlen(group)), group);
}

void cli_print_shared_flags(FILE *f, const char *cmd, const cli_default *defs, size_t n)
{
    fprintf(f, "\nShared flags: those of `trainplan estimate`, by group (`trainplan estimate\n"
               "--help` and trainplan(1) give each one's meaning, unit, range and default):\n");
    const cli_flag *flags = table();
    for (size_t i = 0; i < NUM_FLAGS;) {
        const char *group = flags[i].group ? flags[i].group : "Other";
        char names[1024] = "", label[64];
        size_t k = 0;
        for (; i < NUM_FLAGS && strcmp(flags[i].group ? flags[i].group : "Other", group) == 0; i++)
            if (flags[i].name && flags[i].help)
                k += (size_t)snprintf(names + k, k < sizeof names ? sizeof names - k : 0, "%s%s",
                                      k ? " " : "", flags[i].name);
        group_label(group, label, sizeof label);
        print_wrapped(f, label, names);
    }
    if (n == 0)
        return;
    fprintf(f, "\nDefaults of %s that differ from estimate's:\n", cmd);
    for (size_t i = 0; i < n; i++)
        print_wrapped(f, defs[i].flag, defs[i].value);
}

/* ---- pass 1: scan argv ---- */

typedef struct seen {
    const char *val[NUM_FLAGS]; /* value of the last occurrence, "" for switches */
    tp_io_desc desc;            /* what the flags set, for tp_io_desc_build */
    const char *last_report;    /* the last of --json, --markdown, --csv (cli_common) */
} seen;

/* A flag that picks the report's format: the last one given wins. */
static bool is_report_flag(const char *name)
{
    return strcmp(name, "--json") == 0 || strcmp(name, "--markdown") == 0 ||
           strcmp(name, "--csv") == 0;
}

static const cli_flag *find(const cli_flag *tab, size_t count, const char *name, size_t len,
                            size_t *idx)
{
    for (size_t i = 0; i < count; i++) {
        if (strlen(tab[i].name) == len && strncmp(tab[i].name, name, len) == 0) {
            *idx = i;
            return &tab[i];
        }
    }
    return NULL;
}

/* main() takes --help before a command runs; a request to the server cannot. */
static bool help_is_flag = true;

void cli_help_is_not_a_flag(void)
{
    help_is_flag = false;
}

/* A suggestion is only ever a flag this context accepts (issue 14: not --help in a request). */
static tp_status unknown_flag(const char *arg, size_t len, bool common, const cli_extra *extra,
                              tp_error *err)
{
    char name[TP_IO_QUOTE_MAX + 4];
    snprintf(name, sizeof name, "%.*s%s", (int)(len <= TP_IO_QUOTE_MAX ? len : TP_IO_QUOTE_MAX),
             arg, len <= TP_IO_QUOTE_MAX ? "" : "...");
    if (!help_is_flag && strcmp(name, "--help") == 0)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                            "unknown flag \"--help\" (a request has no help: its keys are the "
                            "flags of the command, see docs/serve.md)");
    int best_d = 99;
    const char *best = NULL;
    for (size_t i = 0; common && i < NUM_FLAGS; i++)
        closest(name, table()[i].name, &best_d, &best);
    for (size_t i = 0; extra && i < extra->count; i++)
        closest(name, extra->flags[i].name, &best_d, &best);
    if (help_is_flag)
        closest(name, "--help", &best_d, &best);
    if (best && best_d > 0 && plausible(name, best_d))
        return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                            "unknown flag \"%s\" (did you mean \"%s\"?)", name, best);
    return tp_error_set(err, TP_ERR_INVALID_ARG, "", "unknown flag \"%s\"", name);
}

bool cli_flag_agrees_with_field(const cli_flag *fl)
{
    const tp_io_field *f = tp_io_field_by_flag(fl->name);
    if (!f)
        return true; /* a flag that sets no field of the run (--json) */
    static const tp_io_field_type as[] = {
        [CLI_INT] = TP_IO_FIELD_INT,       [CLI_NUM] = TP_IO_FIELD_NUM,
        [CLI_NUM0] = TP_IO_FIELD_NUM0,     [CLI_ENUM] = TP_IO_FIELD_ENUM,
        [CLI_SWITCH] = TP_IO_FIELD_SWITCH, [CLI_STR] = TP_IO_FIELD_STR,
    };
    if (as[fl->kind] != f->type)
        return false;
    if (fl->kind == CLI_INT)
        return fl->imin == f->imin && fl->imax == f->imax;
    if (fl->kind == CLI_NUM || fl->kind == CLI_NUM0)
        return !(fl->fmin < f->fmin || fl->fmin > f->fmin || fl->fmax < f->fmax ||
                 fl->fmax > f->fmax);
    return true;
}

/* The shared table is whole: every field of the run description has a
 * --help line, and every line names its flag. */
static tp_status check_table_now(tp_error *err)
{
    const cli_flag *flags = table();
    for (size_t k = 0; k < NUM_FLAGS; k++)
        if (!flags[k].name || !flags[k].help)
            return tp_error_set(err, TP_ERR_INTERNAL, "", "internal: flag table entry %zu is empty",
                                k);
    size_t idx;
    for (size_t i = 0; i < tp_io_field_count(); i++) {
        const char *name = tp_io_field_at(i)->flag;
        if (tp_io_desc_slot(name) == (int)i && !find(flags, NUM_FLAGS, name, strlen(name), &idx))
            return tp_error_set(err, TP_ERR_INTERNAL, "",
                                "internal: %s (src/io/fields.c) has no --help line in "
                                "src/cli/opts.c",
                                name);
    }
    return TP_OK;
}

static bool table_ok;
static void check_table_once(void)
{
    tp_error e = {0};
    table_ok = check_table_now(&e) == TP_OK;
}

/*
 * check_table_now once per process: the tables are constant, and the check
 * (a look-up in fields.c per flag) would otherwise cost a web API request
 * more than the rest of its parse. A failed check is run again to say why.
 */
static tp_status check_table(tp_error *err)
{
    static once_flag once = ONCE_FLAG_INIT;
    call_once(&once, check_table_once);
    return table_ok ? TP_OK : check_table_now(err);
}

/* Scan flags of the shared table (when sn is given) and of `extra`. */
static tp_status scan(int argc, char **argv, int *argi, const cli_extra *extra, seen *sn,
                      tp_error *err)
{
    bool common = sn != NULL;
    TP_TRY(check_table(err));
    int i = *argi;
    while (i < argc) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (arg[0] != '-' || arg[1] == '\0')
            break; /* positional: the caller decides */
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        size_t idx = 0;
        bool is_extra = false;
        const cli_flag *fl = common ? find(table(), NUM_FLAGS, arg, len, &idx) : NULL;
        if (!fl && extra) {
            fl = find(extra->flags, extra->count, arg, len, &idx);
            is_extra = fl != NULL;
        }
        if (!fl)
            return unknown_flag(arg, len, common, extra, err);
        const char *val;
        if (fl->kind == CLI_SWITCH) {
            if (eq)
                return tp_error_set(err, TP_ERR_INVALID_ARG, bare(fl),
                                    "takes no value (got \"%s\")", eq + 1);
            val = "";
            i++;
        } else if (eq) {
            val = eq + 1;
            i++;
        } else {
            /* "-1" is a (bad) value worth its own message; "--pp" is not */
            if (i + 1 >= argc || strncmp(argv[i + 1], "--", 2) == 0)
                return tp_error_set(err, TP_ERR_INVALID_ARG, "", "%s needs a value", fl->name);
            val = argv[i + 1];
            i += 2;
        }
        if (fl->kind != CLI_SWITCH && val[0] == '\0')
            return tp_error_set(err, TP_ERR_INVALID_ARG, "", "%s needs a value", fl->name);
        if (sn && is_report_flag(fl->name))
            sn->last_report = fl->name;
        if (is_extra) {
            extra->values[idx] = val;
        } else if (sn) {
            sn->val[idx] = val;
            tp_io_desc_set(&sn->desc, tp_io_desc_slot(fl->name), val, TP_IO_ORIGIN_FLAG);
        }
    }
    *argi = i;
    return TP_OK;
}

/* ---- pass 2: build the configuration (src/io/desc.c) ---- */

/* A Hugging Face config.json given as --model: name the keys it holds that
 * trainplan does not read (issue 16: nothing is ignored silently). */
static void note_hf_ignored(const char *path)
{
    if (tp_io_preset_text(TP_IO_MODEL, path) != NULL)
        return;
    tp_io_read_opts o = {TP_IO_MAX_JSON_BYTES, false, true, "model"};
    char *text = NULL, list[1024];
    size_t len;
    if (tp_io_read_file(path, &o, &text, &len, NULL) != TP_OK)
        return;
    size_t n = tp_io_hf_ignored(text, list, sizeof list);
    free(text);
    if (n == 0)
        return;
    fputs("trainplan: note: ", stderr);
    tp_io_put_safe(stderr, path);
    fprintf(stderr, ": ignored (no effect on the parameters or the FLOPs): ");
    tp_io_put_safe(stderr, list);
    fputc('\n', stderr);
}

/* The index of a flag of the shared table (one that is there). */
static size_t index_of(const char *name)
{
    size_t idx = 0;
    find(table(), NUM_FLAGS, name, strlen(name), &idx);
    return idx;
}

/* What the scan found -> *co, and the run description -> *c. */
static tp_status build(const seen *sn, const tp_io_desc *desc, cli_sources sources, tp_config *c,
                       cli_common *co, tp_error *err)
{
    for (size_t k = 0; k < NUM_FLAGS; k++) { /* by a flag, a request key or an imported file */
        int slot = tp_io_desc_slot(table()[k].name);
        co->given[k] = sn->val[k] != NULL || (slot >= 0 && desc->order[slot] > 0);
    }
    co->json = sn->val[index_of("--json")] != NULL;
    co->last_report = sn->last_report;
    co->model = tp_io_desc_model(desc);
    co->gpu = tp_io_desc_gpu(desc);
    co->global_batch_given =
        co->given[index_of("--global-batch")] || co->given[index_of("--global-batch-tokens")];
    co->desc = *desc;

    tp_io_desc_opts o = {sources == CLI_PRESETS_ONLY, note_hf_ignored};
    return tp_io_desc_build(desc, &o, c, &co->err_file, err);
}

tp_status cli_parse_config(int argc, char **argv, int *argi, const cli_extra *extra, tp_config *c,
                           cli_common *co, tp_error *err)
{
    return cli_parse_config_from(argc, argv, argi, extra, CLI_FILES_ALLOWED, c, co, err);
}

/* The flags of argv, after the values of an imported file (im, may be NULL). */
static tp_status parse_after(int argc, char **argv, int *argi, const cli_extra *extra,
                             const tp_import *im, cli_sources sources, tp_config *c, cli_common *co,
                             tp_error *err)
{
    seen sn;
    memset(&sn, 0, sizeof sn);
    memset(co, 0, sizeof *co);
    memset(c, 0, sizeof *c);
    if (extra)
        for (size_t i = 0; i < extra->count; i++)
            extra->values[i] = NULL;
    if (im) {
        TP_TRY(check_table(err));
        TP_TRY(tp_io_import_fill(im, &sn.desc, err));
    }
    TP_TRY(scan(argc, argv, argi, extra, &sn, err));
    return build(&sn, &sn.desc, sources, c, co, err);
}

tp_status cli_parse_config_from(int argc, char **argv, int *argi, const cli_extra *extra,
                                cli_sources sources, tp_config *c, cli_common *co, tp_error *err)
{
    return parse_after(argc, argv, argi, extra, NULL, sources, c, co, err);
}

tp_status cli_parse_config_import(int argc, char **argv, int *argi, const cli_extra *extra,
                                  const tp_import *im, tp_config *c, cli_common *co, tp_error *err)
{
    return parse_after(argc, argv, argi, extra, im, CLI_FILES_ALLOWED, c, co, err);
}

/* The flag whose name without its dashes is key. */
static const cli_flag *find_key(const cli_flag *tab, size_t count, const char *key, size_t *idx)
{
    for (size_t i = 0; i < count; i++) {
        if (strcmp(tab[i].name + 2, key) == 0) {
            *idx = i;
            return &tab[i];
        }
    }
    return NULL;
}

/*
 * One key of a request, checked as scan checks a flag of argv: a key that
 * is no flag of the command, a value for a switch ("sp": 3), a flag
 * without a value ("tp": true or "") get the CLI's messages, in the order
 * of the keys. The value is the item's text ("" for a switch given).
 */
static tp_status scan_item(const tp_io_request_item *it, const cli_extra *extra, seen *sn,
                           tp_error *err)
{
    size_t idx = 0;
    bool is_extra = false;
    const cli_flag *fl = find_key(table(), NUM_FLAGS, it->key, &idx);
    if (!fl && extra) {
        fl = find_key(extra->flags, extra->count, it->key, &idx);
        is_extra = fl != NULL;
    }
    if (!fl) {
        char name[80];
        snprintf(name, sizeof name, "--%s", it->key); /* keys are at most 64 characters */
        return unknown_flag(name, strlen(name), true, extra, err);
    }
    const char *val = it->text;
    if (fl->kind == CLI_SWITCH && val)
        return tp_error_set(err, TP_ERR_INVALID_ARG, bare(fl), "takes no value (got \"%s\")", val);
    if (fl->kind == CLI_SWITCH)
        val = "";
    else if (!val || val[0] == '\0')
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "%s needs a value", fl->name);
    if (is_report_flag(fl->name))
        sn->last_report = fl->name;
    if (is_extra)
        extra->values[idx] = val;
    else
        sn->val[idx] = val;
    return TP_OK;
}

tp_status cli_parse_config_items(const tp_io_request_item *items, size_t n, const tp_io_desc *desc,
                                 const cli_extra *extra, tp_config *c, cli_common *co,
                                 tp_error *err)
{
    seen sn;
    memset(&sn, 0, sizeof sn);
    memset(co, 0, sizeof *co);
    memset(c, 0, sizeof *c);
    if (extra)
        for (size_t i = 0; i < extra->count; i++)
            extra->values[i] = NULL;
    TP_TRY(check_table(err));
    for (size_t i = 0; i < n; i++)
        TP_TRY(scan_item(&items[i], extra, &sn, err));
    return build(&sn, desc, CLI_PRESETS_ONLY, c, co, err);
}

tp_status cli_parse_config_request(const tp_io_request *rq, const cli_extra *extra, tp_config *c,
                                   cli_common *co, tp_error *err)
{
    return cli_parse_config_items(rq->items, rq->count, &rq->desc, extra, c, co, err);
}

tp_status cli_parse_flags(int argc, char **argv, int *argi, const cli_extra *extra, tp_error *err)
{
    for (size_t i = 0; i < extra->count; i++)
        extra->values[i] = NULL;
    return scan(argc, argv, argi, extra, NULL, err);
}

bool cli_given(const cli_common *co, const char *name)
{
    size_t idx;
    return find(table(), NUM_FLAGS, name, strlen(name), &idx) && co->given[idx];
}

/* ---- errors and output ---- */

int cli_exit_code(tp_status code)
{
    switch (code) {
    case TP_OK: return CLI_EXIT_OK;
    case TP_ERR_NOMEM:
    case TP_ERR_INTERNAL: return CLI_EXIT_INTERNAL;
    case TP_ERR_STOPPED: return CLI_EXIT_STOPPED;
    default: return CLI_EXIT_USAGE;
    }
}

/* A path made only of [a-z0-9-] is a flag name; anything else is a file field. */
static bool is_flag_path(const char *p)
{
    if (!p[0])
        return false;
    for (; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return false;
    return true;
}

/*
 * Does the message already name its field? The number parsers write
 * "--tp: ..." and the file loaders quote the key ("\"num_heads\" must ..."),
 * while tp_config_validate leaves the naming to us.
 */
static bool names_field(const char *msg, const char *path)
{
    size_t n = strlen(path);
    if (strncmp(msg, "--", 2) == 0 && strncmp(msg + 2, path, n) == 0 && msg[n + 2] == ':')
        return true;
    if (strncmp(msg, path, n) == 0 && msg[n] == ':')
        return true;
    char quoted[sizeof((tp_error *)0)->path + 2];
    snprintf(quoted, sizeof quoted, "\"%s\"", path);
    return strstr(msg, quoted) != NULL;
}

int cli_error_print(const tp_error *err, const char *file)
{
    /* messages quote what the user or a file gave: cli_say prints the line defused */
    const char *msg = err->message[0] ? err->message : tp_strerror(err->code);
    /* a field of the configuration is the flag's; a file's error names the file's key */
    const char *word = file ? err->path : tp_io_field_word(err->path, true);
    const char *path = names_field(msg, word) ? "" : word;
    const char *dashes = is_flag_path(path) && !file ? "--" : "";
    const char *sep = path[0] ? ": " : "";
    if (file && err->line > 0)
        cli_say("trainplan: error: %s:%d:%d: %s%s%s\n", file, err->line, err->column, path, sep,
                msg);
    else if (file)
        cli_say("trainplan: error: %s: %s%s%s\n", file, path, sep, msg);
    else
        cli_say("trainplan: error: %s%s%s%s\n", dashes, path, sep, msg);
    return cli_exit_code(err->code);
}

void cli_say(const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *text = small;
    if ((size_t)n >= sizeof small) {
        text = malloc((size_t)n + 1);
        if (!text) {
            fputs("trainplan: error: out of memory\n", stderr);
            return;
        }
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    bool newline = n > 0 && text[n - 1] == '\n';
    if (newline)
        text[n - 1] = '\0';
    tp_io_put_safe(stderr, text);
    if (newline)
        fputc('\n', stderr);
    if (text != small)
        free(text);
}

int cli_json_print(json_t *j)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    if (!s) {
        cli_say("trainplan: error: internal: could not serialise the result\n");
        return CLI_EXIT_INTERNAL;
    }
    fputs(s, stdout);
    fputc('\n', stdout);
    free(s);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_say("trainplan: error: could not write to standard output\n");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}
