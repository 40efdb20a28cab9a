/* SPDX-License-Identifier: MIT */
/*
 * fields.c: the one table of a run description's fields (fields.h):
 * canonical name, CLI flag, web API key, type, range and choices. A row's
 * index is its slot in the run description (desc.h); the CLI's shared
 * flags (src/cli/opts.c) take their type, range and choices from here.
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "desc.h"
#include "fields.h"

/* clang-format off */
/* Type and range; the builder (desc.c) has code of its own for the field. */
#define NONE TP_IO_PART_NONE, 0, 0.0
#define INT(lo, hi) TP_IO_FIELD_INT, (lo), (hi), 0.0, 0.0, NULL, NONE
#define NUM(lo, hi) TP_IO_FIELD_NUM, 0, 0, (lo), (hi), NULL, NONE
#define NUM0(lo, hi) TP_IO_FIELD_NUM0, 0, 0, (lo), (hi), NULL, NONE
#define ENUM(names) TP_IO_FIELD_ENUM, 0, 0, 0.0, 0.0, (names), NONE
#define SWITCH TP_IO_FIELD_SWITCH, 0, 0, 0.0, 0.0, NULL, NONE
#define STR TP_IO_FIELD_STR, 0, 0, 0.0, 0.0, NULL, NONE
/* A plain field (fields.h): the member it sets, in the part's struct
 * (MODEL tp_model, TRAIN tp_train, CONVENTIONS tp_options, GPU tp_gpu),
 * which must be an int64_t (INT_IN), a double (NUM_IN, NUM0_IN) or a bool
 * (SWITCH_IN). The builder stores it with no code of its own where it
 * applies the part's plain fields (apply_plain in desc.c), in the order
 * of these rows. */
#define AT(part, member) TP_IO_PART_##part, offsetof(STRUCT_##part, member)
#define STRUCT_MODEL tp_model
#define STRUCT_TRAIN tp_train
#define STRUCT_CONVENTIONS tp_options
#define STRUCT_GPU tp_gpu
#define INT_IN(lo, hi, part, member) \
    TP_IO_FIELD_INT, (lo), (hi), 0.0, 0.0, NULL, AT(part, member), 1.0
#define NUM_IN(lo, hi, part, member) \
    TP_IO_FIELD_NUM, 0, 0, (lo), (hi), NULL, AT(part, member), 1.0
#define NUM0_IN(lo, hi, part, member) \
    TP_IO_FIELD_NUM0, 0, 0, (lo), (hi), NULL, AT(part, member), 1.0
#define SWITCH_IN(part, member) TP_IO_FIELD_SWITCH, 0, 0, 0.0, 0.0, NULL, AT(part, member), 0.0

static const tp_io_field fields[] = {
    /* model: tp_model, after the preset or file is loaded */
    {"model", "--model", "model", STR},
    {"model.num_layers", "--layers", "layers", INT(1, TP_MAX_LAYERS)},
    {"model.hidden", "--hidden", "hidden", INT(1, TP_MAX_DIM)},
    {"model.num_heads", "--heads", "heads", INT(1, TP_MAX_DIM)},
    {"model.num_kv_heads", "--kv-heads", "kv-heads", INT(1, TP_MAX_DIM)},
    {"model.head_dim", "--head-dim", "head-dim", INT(1, TP_MAX_DIM)},
    {"model.ffn_hidden", "--ffn-hidden", "ffn-hidden", INT(1, TP_MAX_FFN)},
    {"model.vocab", "--vocab", "vocab", INT(1, TP_MAX_VOCAB)},
    {"model.mlp", "--mlp", "mlp", ENUM(tp_io_mlp_names)},
    {"model.norm", "--norm", "norm", ENUM(tp_io_norm_names)},
    {"model.tie_embeddings", "--tie-embeddings", "tie-embeddings", SWITCH},
    {"model.tie_embeddings", "--no-tie-embeddings", "no-tie-embeddings", SWITCH},
    {"model.num_experts", "--experts", "experts", INT(0, TP_MAX_EXPERTS)},
    {"model.topk", "--topk", "topk", INT(1, TP_MAX_EXPERTS)},
    {"model.moe_ffn_hidden", "--moe-ffn-hidden", "moe-ffn-hidden", INT(1, TP_MAX_FFN)},
    {"model.num_shared_experts", "--shared-experts", "shared-experts", INT(0, TP_MAX_EXPERTS)},
    {"model.linear_bias", "--bias", "bias", ENUM(tp_io_bias_names)},
    {"model.pos", "--position", "position", ENUM(tp_io_pos_names)},
    {"model.max_positions", "--max-positions", "max-positions", INT(1, TP_MAX_SEQ)},
    {"model.rope_theta", "--rope-theta", "rope-theta", NUM(1.0, 1e12)},
    {"model.rope_scaling", "--rope-scaling", "rope-scaling", ENUM(tp_io_rope_names)},
    {"model.rope_factor", "--rope-factor", "rope-factor", NUM(1e-6, 1e6)},
    {"model.norm_eps", "--norm-eps", "norm-eps", NUM(1e-30, 0.1)},
    {"model.shared_ffn_hidden", "--shared-ffn-hidden", "shared-ffn-hidden", INT(0, TP_MAX_FFN)},
    {"model.moe_first_dense", "--moe-first-dense", "moe-first-dense", INT(0, TP_MAX_LAYERS)},
    {"model.moe_layer_freq", "--moe-layer-freq", "moe-layer-freq", INT(1, TP_MAX_LAYERS)},
    {"model.q_lora_rank", "--q-lora-rank", "q-lora-rank",
     INT_IN(0, TP_MAX_DIM, MODEL, q_lora_rank)},
    {"model.kv_lora_rank", "--kv-lora-rank", "kv-lora-rank",
     INT_IN(0, TP_MAX_DIM, MODEL, kv_lora_rank)},
    {"model.qk_rope_head_dim", "--qk-rope-head-dim", "qk-rope-head-dim",
     INT_IN(0, TP_MAX_DIM, MODEL, qk_rope_head_dim)},
    {"model.qk_nope_head_dim", "--qk-nope-head-dim", "qk-nope-head-dim",
     INT_IN(0, TP_MAX_DIM, MODEL, qk_nope_head_dim)},
    {"model.v_head_dim", "--v-head-dim", "v-head-dim", INT_IN(0, TP_MAX_DIM, MODEL, v_head_dim)},
    {"model.mtp_layers", "--mtp-layers", "mtp-layers", INT_IN(0, TP_MAX_LAYERS, MODEL, mtp_layers)},
    {"model.sliding_window", "--sliding-window", "sliding-window",
     INT_IN(0, TP_MAX_SEQ, MODEL, sliding_window)},
    {"model.global_every", "--global-every", "global-every",
     INT_IN(0, TP_MAX_LAYERS, MODEL, global_every)},
    {"model.attention_chunk", "--attention-chunk", "attention-chunk",
     INT_IN(0, TP_MAX_SEQ, MODEL, attention_chunk)},
    {"model.qk_norm", "--qk-norm", "qk-norm", ENUM(tp_io_qk_norm_names)},
    {"model.attn_sinks", "--attn-sinks", "attn-sinks", SWITCH_IN(MODEL, attn_sinks)},
    {"model.router_bias", "--router-bias", "router-bias", SWITCH_IN(MODEL, router_bias)},
    {"model.moe_imbalance", "--moe-imbalance", "moe-imbalance",
     NUM0_IN(1.0, 1e3, MODEL, moe_imbalance)},
    {"model.moe_capacity_factor", "--moe-capacity-factor", "moe-capacity-factor",
     NUM0_IN(0.01, 1e3, MODEL, moe_capacity_factor)},
    {"model.moe_router_groups", "--moe-router-groups", "moe-router-groups",
     INT_IN(0, TP_MAX_EXPERTS, MODEL, moe_router_groups)},
    {"model.moe_router_group_topk", "--moe-router-group-topk", "moe-router-group-topk",
     INT_IN(0, TP_MAX_EXPERTS, MODEL, moe_group_topk)},
    {"model.vision.image_tokens", "--image-tokens", "image-tokens", INT(0, 16777216)},
    {"model.vision.frozen", "--freeze-vision", "freeze-vision", SWITCH},
    /* gpu: tp_gpu, after the preset or file is loaded (--gpus-per-node is the
     * layout's: it overrides the GPU's without changing the GPU) */
    {"gpu", "--gpu", "gpu", STR},
    {"gpu.mem_capacity_bytes", "--gpu-memory-gb", "gpu-memory-gb", NUM(0.001, 1e6)},
    {"gpu.mem_capacity_bytes", "--gpu-memory-gib", "gpu-memory-gib", NUM(0.001, 1e6)},
    {"gpu.peak_flops_per_s", "--peak-tflops", "peak-tflops", NUM(0.001, 1e7)},
    {"gpu.inter_bw_bytes_per_s", "--nic-gbps", "nic-gbps", NUM(0.001, 1e5)},
    {"gpu.price_per_gpu_hour", "--price", "price", NUM0_IN(1e-3, 1e6, GPU, price_per_gpu_hour)},
    /* not a field of tp_gpu: a measured profile (a file) that refines the GPU's rates */
    {"hw_profile", "--hw-profile", "hw-profile", STR},
    /* not a field of tp_gpu: drops the GPU's default profile GEMM model */
    {"fitted_gemm", "--fitted-gemm", "fitted-gemm", SWITCH},
    /* layout: the parallel layout (tp_train) */
    {"layout.num_gpus", "--gpus", "gpus", INT(1, TP_MAX_GPUS)},
    {"layout.gpus_per_node", "--gpus-per-node", "gpus-per-node", INT(1, TP_MAX_GPUS_PER_NODE)},
    {"layout.tp", "--tp", "tp", INT(1, TP_MAX_GPUS)},
    {"layout.pp", "--pp", "pp", INT(1, TP_MAX_GPUS)},
    {"layout.cp", "--cp", "cp", INT(1, TP_MAX_GPUS)},
    {"layout.ep", "--ep", "ep", INT(1, TP_MAX_GPUS)},
    {"layout.etp", "--etp", "etp", INT(1, TP_MAX_GPUS)},
    {"layout.vpp", "--vpp", "vpp", INT(1, TP_MAX_LAYERS)},
    {"layout.sp", "--sp", "sp", SWITCH},
    {"layout.sp", "--no-sp", "no-sp", SWITCH},
    {"layout.schedule", "--schedule", "schedule", ENUM(tp_io_sched_names)},
    {"layout.first_stage_layers", "--first-stage-layers", "first-stage-layers",
     INT(1, TP_MAX_LAYERS)},
    {"layout.last_stage_layers", "--last-stage-layers", "last-stage-layers",
     INT(1, TP_MAX_LAYERS)},
    {"layout.pp_split", "--pp-split", "pp-split", ENUM(tp_io_pp_split_names)},
    {"layout.zero", "--zero", "zero", INT(0, 3)},
    {"layout.zero", "--fsdp", "fsdp", SWITCH},
    {"layout.zero", "--distributed-optimizer", "distributed-optimizer", SWITCH},
    /* train: the rest of tp_train */
    {"train.seq_len", "--seq-len", "seq-len", INT(1, TP_MAX_SEQ)},
    {"train.micro_batch", "--micro-batch", "micro-batch", INT(1, TP_MAX_BATCH)},
    {"train.global_batch", "--global-batch", "global-batch", INT(1, TP_MAX_BATCH)},
    {"train.global_batch", "--global-batch-tokens", "global-batch-tokens",
     INT(1, TP_MAX_TOKENS_PER_STEP)},
    {"train.local_batch", "--local-batch", "local-batch",
     INT_IN(1, TP_MAX_BATCH, TRAIN, local_batch)},
    {"train.recompute", "--recompute", "recompute", ENUM(tp_io_recomp_names)},
    {"train.recompute_every", "--recompute-every", "recompute-every", INT(1, TP_MAX_LAYERS)},
    {"train.precision", "--precision", "precision", ENUM(tp_io_prec_names)},
    {"train.grad_dtype", "--grad-dtype", "grad-dtype", ENUM(tp_io_grad_names)},
    {"train.optimizer", "--optimizer", "optimizer", ENUM(tp_io_opt_names)},
    {"train.optimizer.master_weights", "--no-master-weights", "no-master-weights",
     SWITCH_IN(TRAIN, optimizer.master_weights)},
    {"train.flash_attn", "--no-flash-attn", "no-flash-attn", SWITCH_IN(TRAIN, flash_attn)},
    {"train.dropout", "--dropout", "dropout", SWITCH_IN(TRAIN, dropout)},
    {"train.fused_ce", "--fused-ce", "fused-ce", SWITCH_IN(TRAIN, fused_ce)},
    {"train.pad_vocab_to", "--pad-vocab", "pad-vocab", INT(1, TP_MAX_VOCAB)},
    {"train.fp8_param_gather", "--fp8-param-gather", "fp8-param-gather",
     SWITCH_IN(TRAIN, fp8_param_gather)},
    {"train.recompute_modules", "--recompute-modules", "recompute-modules", STR},
    {"train.recompute_layers", "--recompute-block-layers", "recompute-block-layers",
     INT(1, TP_MAX_LAYERS)},
    {"train.offload_optimizer", "--offload-optimizer", "offload-optimizer", NUM0(1e-6, 1.0)},
    {"train.offload_params", "--offload-params", "offload-params", ENUM(tp_io_offload_names)},
    {"train.offload_act_layers", "--offload-activations", "offload-activations",
     INT(1, TP_MAX_LAYERS)},
    {"train.fp8_recipe", "--fp8-recipe", "fp8-recipe", ENUM(tp_io_recipe_names)},
    {"train.packed_seq_len", "--packed-seq-len", "packed-seq-len",
     INT_IN(1, TP_MAX_SEQ, TRAIN, packed_seq_len)},
    /* conventions: tp_options */
    {"conventions.attn_flops", "--attn-flops", "attn-flops", ENUM(tp_io_attn_names)},
    {"conventions.act_model", "--act-model", "act-model", ENUM(tp_io_act_names)},
    {"conventions.ckpt_model", "--ckpt-model", "ckpt-model", ENUM(tp_io_ckpt_names)},
    {"conventions.coll_model", "--coll-model", "coll-model", ENUM(tp_io_coll_names)},
    {"conventions.tp_comm_overlap", "--tp-comm-overlap", "tp-comm-overlap",
     SWITCH_IN(CONVENTIONS, tp_comm_overlap)},
    {"conventions.tp_overlap_chunked", "--tp-overlap-chunked", "tp-overlap-chunked",
     SWITCH_IN(CONVENTIONS, tp_overlap_chunked)},
    {"conventions.dp_comm_overlap", "--no-dp-comm-overlap", "no-dp-comm-overlap",
     SWITCH_IN(CONVENTIONS, dp_comm_overlap)},
    {"conventions.attn_ampere_kernel", "--attn-ampere-kernel", "attn-ampere-kernel",
     SWITCH_IN(CONVENTIONS, attn_ampere_kernel)},
    {"conventions.sac_ops", "--sac-ops", "sac-ops", SWITCH_IN(CONVENTIONS, sac_ops)},
    {"conventions.eager_elementwise", "--eager-elementwise", "eager-elementwise",
     SWITCH_IN(CONVENTIONS, eager_elementwise)},
    {"conventions.eager_experts", "--eager-experts", "eager-experts",
     SWITCH_IN(CONVENTIONS, eager_experts)},
    {"conventions.pp_scatter_gather", "--no-pp-scatter-gather", "no-pp-scatter-gather",
     SWITCH_IN(CONVENTIONS, pp_scatter_gather)},
    {"conventions.extra_param_bytes", "--extra-param-bytes", "extra-param-bytes",
     NUM0_IN(1e-6, 16.0, CONVENTIONS, extra_param_bytes)},
    {"conventions.ce_bytes_per_logit", "--ce-bytes-per-logit", "ce-bytes-per-logit",
     NUM0_IN(1e-6, 64.0, CONVENTIONS, ce_bytes_per_logit)},
    {"conventions.ce_bytes_per_logit_tp", "--ce-bytes-per-logit-tp", "ce-bytes-per-logit-tp",
     NUM0_IN(1e-6, 64.0, CONVENTIONS, ce_bytes_per_logit_tp)},
    {"conventions.cuda_context_bytes", "--cuda-context-gb", "cuda-context-gb",
     NUM0(1e-9, 1000.0)},
    {"conventions.comm_buffer_bytes", "--comm-buffer-gb", "comm-buffer-gb", NUM0(1e-9, 1000.0)},
    {"conventions.fragmentation", "--fragmentation", "fragmentation", NUM0(1e-6, 1.0)},
    {"conventions.framework", "--framework", "framework", ENUM(tp_io_fw_names)},
    {"conventions.unfused_full_matrix", "--unfused-full-matrix", "unfused-full-matrix",
     SWITCH_IN(CONVENTIONS, unfused_full_matrix)},
    {"conventions.grouped_gemm", "--grouped-gemm", "grouped-gemm",
     SWITCH_IN(CONVENTIONS, grouped_gemm)},
    {"conventions.tp_gathered_input", "--tp-gathered-input", "tp-gathered-input",
     SWITCH_IN(CONVENTIONS, tp_gathered_input)},
    {"conventions.moe_a2a_overlap", "--moe-a2a-overlap", "moe-a2a-overlap",
     SWITCH_IN(CONVENTIONS, moe_a2a_overlap)},
    {"conventions.moe_sync_free", "--moe-sync-free", "moe-sync-free",
     SWITCH_IN(CONVENTIONS, moe_sync_free)},
    {"conventions.moe_node_dispatch", "--moe-node-dispatch", "moe-node-dispatch",
     SWITCH_IN(CONVENTIONS, moe_node_dispatch)},
    {"conventions.fp8_act_cache", "--fp8-activation-cache", "fp8-activation-cache",
     SWITCH_IN(CONVENTIONS, fp8_act_cache)},
    {"conventions.fp8_hp_saved_inputs", "--fp8-hp-saved-inputs", "fp8-hp-saved-inputs",
     SWITCH_IN(CONVENTIONS, fp8_hp_saved_inputs)},
    {"conventions.fp8_weight_cache", "--no-fp8-weight-cache", "no-fp8-weight-cache",
     SWITCH_IN(CONVENTIONS, fp8_weight_cache)},
    {"conventions.host_mem_bytes_per_node", "--host-memory-gb", "host-memory-gb",
     NUM0(1e-3, 1e6)},
    {"conventions.pcie_bw_bytes_per_s", "--pcie-gbps", "pcie-gbps", NUM(0.001, 10000.0)},
    {"conventions.host_mem_bw_bytes_per_s", "--host-mem-bw-gbps", "host-mem-bw-gbps",
     NUM(0.001, 100000.0)},
    {"conventions.nvme_bw_bytes_per_s", "--nvme-gbps", "nvme-gbps", NUM(0.001, 100000.0)},
    /* plan: tp_plan_in (include/tp/plan.h), the flags of `trainplan plan` */
    {"plan.tokens", "--tokens", "tokens", NUM(1.0, 1e18)},
    {"plan.tokens_per_param", "--tokens-per-param", "tokens-per-param", NUM(1e-3, 1e6)},
    {"plan.compute_flops", "--compute", "compute", NUM(1e10, 1e35)},
    {"plan.fit", "--fit", "fit", ENUM(NULL)}, /* choices: cmd_plan.c's */
    {"plan.size_model", "--size-model", "size-model", SWITCH},
    {"plan.deadline_h", "--deadline", "deadline", NUM(0.001, 1e6)},
    {"plan.budget_usd", "--budget", "budget", NUM(0.01, 1e15)},
    {"plan.price_per_hour", "--price", "price", NUM0(1e-3, 1e6)},
    {"plan.mfu", "--mfu", "mfu", NUM(1e-4, 1.0)},
    {"plan.max_gpus", "--max-gpus", "max-gpus", INT(1, TP_MAX_GPUS)},
    {"plan.model_params", "--params", "params", NUM(1e6, 1e14)},
    {"plan.memory_margin", "--memory-margin", "memory-margin", NUM0(1e-6, 0.5)},
    {"plan.tie_tolerance", "--tie-tolerance", "tie-tolerance", NUM0(1e-6, 0.5)},
    {"plan.phases", "--phase", "phase", STR},
    {"plan.storage_bw_per_node", "--storage-gbps", "storage-gbps", NUM(1e-3, 1e6)},
    {"plan.ckpt_every_steps", "--ckpt-every-steps", "ckpt-every-steps", INT(1, 1000000000)},
    {"plan.peak_lr", "--lr", "lr", NUM0(1e-12, 10.0)},
    {"plan.min_lr", "--min-lr", "min-lr", NUM0(1e-12, 10.0)},
    {"plan.warmup_steps", "--warmup-steps", "warmup-steps", INT(0, 1000000000)},
};
/* clang-format on */
#define NUM_FIELDS (sizeof fields / sizeof fields[0])
_Static_assert(NUM_FIELDS < TP_IO_DESC_SLOTS, "raise TP_IO_DESC_SLOTS in desc.h");

size_t tp_io_field_count(void)
{
    return NUM_FIELDS;
}

const tp_io_field *tp_io_field_at(size_t i)
{
    return i < NUM_FIELDS ? &fields[i] : NULL;
}

bool tp_io_field_plain_convention(const tp_io_field *f)
{
    return f->part == TP_IO_PART_CONVENTIONS &&
           (f->type == TP_IO_FIELD_SWITCH || f->type == TP_IO_FIELD_NUM ||
            f->type == TP_IO_FIELD_NUM0) &&
           strcmp(f->name, "conventions.sac_ops") != 0;
}

const char *tp_io_field_member(const tp_io_field *f)
{
    const char *dot = strchr(f->name, '.');
    return dot ? dot + 1 : f->name;
}

bool tp_io_field_switch_sets(const tp_io_field *f)
{
    return strncmp(f->flag, "--no-", 5) != 0;
}

double tp_io_field_convention(const tp_io_field *f, const tp_options *o)
{
    const char *at = (const char *)o + f->offset;
    if (f->type == TP_IO_FIELD_SWITCH) {
        bool v;
        memcpy(&v, at, sizeof v);
        return v ? 1.0 : 0.0;
    }
    double v;
    memcpy(&v, at, sizeof v);
    return v;
}

bool tp_io_field_convention_set(const tp_io_field *f, const tp_options *o, const tp_options *d,
                                double *v)
{
    if (!tp_io_field_plain_convention(f))
        return false;
    *v = tp_io_field_convention(f, o);
    return fabs(*v - tp_io_field_convention(f, d)) > 1e-12;
}

const tp_io_field *tp_io_field_find(const char *name)
{
    for (size_t i = 0; name && i < NUM_FIELDS; i++)
        if (strcmp(fields[i].name, name) == 0)
            return &fields[i];
    return NULL;
}

const tp_io_field *tp_io_field_by_flag(const char *flag)
{
    for (size_t i = 0; flag && i < NUM_FIELDS; i++)
        if (strcmp(fields[i].flag, flag) == 0)
            return &fields[i];
    return NULL;
}

const char *tp_io_field_word(const char *path, bool for_cli)
{
    const tp_io_field *f = tp_io_field_find(path);
    if (!f)
        return path;
    return for_cli ? f->flag + 2 : f->key;
}

bool tp_io_field_key_overrides(const char *key, const char *part)
{
    size_t n = strlen(part);
    for (size_t i = 0; key && i < NUM_FIELDS; i++)
        if (strcmp(fields[i].key, key) == 0 && strncmp(fields[i].name, part, n) == 0 &&
            fields[i].name[n] == '.')
            return true;
    return false;
}
