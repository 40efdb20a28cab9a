/* SPDX-License-Identifier: MIT */
/*
 * validate_recipes.c: the parts of a measured row's configuration that
 * its notes or its framework's published recipes state beyond the layout
 * cells (validate_row.h). Each reader says what it applied in the row's
 * assumptions, with the source it follows; a row whose notes do not name
 * the feature is left as validate.c built it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "validate.h"
#include "validate_row.h"

/* DeepSeek-V3's node-limited routing (a row of its model whose notes say
 * so): n_group 8 and topk_group 4 of its config.json, and its all-to-all
 * crossing the inter-node network once per destination node and fanning
 * out over NVLink (technical report section 3.2.2): --moe-node-dispatch. */
static void node_limited_routing(const rowref *r, tp_io_vrow *v, tp_config *c)
{
    tp_model *m = &c->model;
    if (!contains(cell(r, "notes"), "node-limited routing") || m->kv_lora_rank <= 0 ||
        m->num_experts != 256 || m->hidden != 7168)
        return;
    m->moe_router_groups = 8;
    m->moe_group_topk = 4;
    c->opts.moe_node_dispatch = true;
    tp_io__vnote(v, "node-limited routing: 4 of 8 expert groups per token (config.json n_group, "
                    "topk_group), one copy per destination node (report section 3.2.2)");
}

/* NeMo AutoModel's fake balanced gate (backend.fake_balanced_gate in the
 * benchmark configs; FakeBalancedGate in components/moe/layers.py
 * @01926a5c443b) gives token t the k consecutive experts from t*k (mod E),
 * whatever the model's n_group says: group-limited routing over E/k groups
 * of k experts, one group a token. Under Megatron-Core's expert order the
 * destinations follow (time_moe.c ep_dest_units): one GPU when a GPU holds
 * a multiple of k experts (Qwen3-30B, gpt-oss-20b), k/(E/ep) GPUs when k
 * is a multiple of what a GPU holds (gpt-oss-120b, DeepSeek-V3: 2), and
 * one node when a node holds a multiple of k. */
static void fake_gate_groups(tp_io_vrow *v, tp_config *c)
{
    tp_model *m = &c->model;
    if (m->topk <= 0 || m->num_experts % m->topk != 0)
        return;
    m->moe_router_groups = m->num_experts / m->topk;
    m->moe_group_topk = 1;
    tp_io__vnote(
        v,
        "fake balanced gate: a token's %lld experts are %lld consecutive ones (FakeBalancedGate: "
        "%lld groups, one a token)",
        (long long)m->topk, (long long)m->topk, (long long)m->moe_router_groups);
}

/* The DeepEP and HybridEP dispatchers where a row's recipe states one: a
 * token crosses the inter-node network once per destination node and goes
 * over NVLink once to each destination GPU, --moe-node-dispatch (time_moe.c
 * ep_node_a2a). NeMo AutoModel's benchmark configs
 * set backend.enable_deepep (examples/benchmark/configs/NAME_te_deepep.yaml
 * @01926a5c443b; the rows' notes say "DeepEP"); Megatron-Bridge's
 * performance presets set moe_flex_dispatcher_backend "deepep" or
 * "hybridep" (the row notes cite the preset). Either dispatcher permutes
 * the tokens it receives by expert once, without the alltoall
 * dispatcher's sort (time.c moe_mlp_part). */
static void deepep_dispatch(const rowref *r, framework fw, tp_io_vrow *v, tp_config *c)
{
    const char *notes = cell(r, "notes");
    const char *backend = NULL;
    if (fw == FW_AUTOMODEL && contains(notes, "DeepEP"))
        backend = "DeepEP (AutoModel backend.enable_deepep)";
    else if (fw == FW_MCORE && contains(notes, "flex dispatcher with the DeepEP backend"))
        backend = "DeepEP (the recipe's flex dispatcher)";
    else if (fw == FW_MCORE && contains(notes, "flex dispatcher with the HybridEP backend"))
        backend = "HybridEP (the recipe's flex dispatcher)";
    if (!backend || c->opts.moe_node_dispatch || c->model.num_experts <= 0 || c->train.ep <= 1)
        return;
    c->opts.moe_node_dispatch = true;
    int64_t gpn = c->train.gpus_per_node;
    tp_io__vnote(v,
                 "%s: one copy per destination %s; the received tokens permuted by expert once, no "
                 "sort by expert",
                 backend,
                 gpn > 0 && c->train.ep <= gpn ? "GPU"
                                               : "node, fanned out over NVLink once per GPU");
    if (fw == FW_AUTOMODEL && contains(notes, "fake balanced gate"))
        fake_gate_groups(v, c);
}

/* NeMo AutoModel's experts with biases, gpt-oss's (GroupedExpertsDeepEP
 * with expert_bias and expert_activation quick_geglu, components/moe/
 * layers.py at ce005dd86, the code of its published table): the activation
 * quick_geglu_deepep and the per-expert bias loop _apply_bias are eager
 * PyTorch, where the models without expert biases run the compiled
 * weighted_swiglu (time.c eager_expert_extra). */
static void automodel_eager_experts(framework fw, tp_io_vrow *v, tp_config *c)
{
    if (fw != FW_AUTOMODEL || c->model.num_experts <= 0 || !c->model.linear_bias)
        return;
    c->opts.eager_experts = true;
    tp_io__vnote(v,
                 "experts with biases (gpt-oss): quick_geglu_deepep and the per-expert bias loop "
                 "run as eager PyTorch kernels (components/moe/layers.py)");
}

/* Megatron-Bridge 25.09's token-drop runs (scripts/performance/
 * run_script.py at r0.1.0, apply_moe_token_drop: moe_expert_capacity_factor
 * 1.0 and moe_pad_expert_input_to_capacity, as the rows' notes state):
 * every expert gets exactly its capacity, static shapes, so the layers
 * never wait on the host (time.c host_floor). */
static void token_drop_padded(const rowref *r, tp_io_vrow *v, tp_config *c)
{
    if (c->model.num_experts <= 0 || !contains(cell(r, "notes"), "moe_expert_capacity_factor 1.0"))
        return;
    c->model.moe_capacity_factor = 1.0;
    tp_io__vnote(
        v, "token drop padded to capacity (capacity factor 1.0): static shapes, no host wait");
}

/* DeepSeek-V3's low-precision storage (technical report section 3.3.3,
 * "Low-Precision Storage and Communication"), where a fp8 row's notes state
 * it: activations cached in fp8 (--fp8-activation-cache), the AdamW moments
 * in bf16 (--optimizer adamw-bf16), the master weights and gradients kept in
 * fp32 (--grad-dtype fp32; the master copy is the default). */
static void low_precision_storage(const rowref *r, tp_io_vrow *v, tp_config *c)
{
    const char *notes = cell(r, "notes");
    if (c->train.precision != TP_PREC_FP8 || !contains(notes, "activations cached in FP8"))
        return;
    c->opts.fp8_act_cache = true;
    tp_io__vnote(v, "activations cached in fp8 (the linear layers' inputs; the attention output in "
                    "E5M6; the MoE SwiGLU input, its output recomputed; report section 3.3.3)");
    if (!contains(notes, "AdamW moments in BF16"))
        return;
    c->train.optimizer.moment_dtype = TP_DTYPE_BF16;
    c->train.grad_dtype = TP_DTYPE_FP32;
    tp_io__vnote(
        v, "AdamW moments in bf16, master weights and gradients in fp32 (report section 3.3.3)");
}

/* Packed sequences, where a row's notes state "packed-seq-len N" (N: the
 * mean example's tokens): each example attends within itself only, so
 * --packed-seq-len N.
 * - NeMo 24.07's packed SFT (NeMo-Framework-Launcher @ 24.07 examples/peft/
 *   llama/h100 7B, 13B, 70B; conf/peft/llama/sft.yaml: packed_sequence=true):
 *   the packs' cu_seqlens reach TransformerEngine in THD format (NVIDIA/NeMo
 *   @ 579983fbfc, the 24.07 r2.0.0rc1, megatron_gpt_model.py:
 *   PackedSeqParams(qkv_format='thd'));
 * - torchtune's packed datasets (pytorch/torchtune @ 1814feb17: PackedDataset;
 *   modules/attention_utils.py): flex_attention with a block-causal mask on
 *   a GPU of compute capability 7.5 or more (utils/_import_guard.py). */
static void packed_sequences(const rowref *r, framework fw, tp_io_vrow *v, tp_config *c)
{
    const char *pk = strstr(cell(r, "notes"), "packed-seq-len ");
    long long n = pk ? strtoll(pk + strlen("packed-seq-len "), NULL, 10) : 0;
    if (n <= 0)
        return;
    c->train.packed_seq_len = n;
    tp_io__vnote(
        v, "packed sequences: examples of %lld tokens, each attending within itself (%s)", n,
        fw == FW_TORCHTUNE ? "flex attention, block-causal mask" : "TransformerEngine THD");
}

/* NeMo 24.07's optimizers and weights, as notes state:
 * - "distributed_fused_adam in bf16": optim dtype bf16, grad_sync_dtype bf16
 *   (sft.yaml) of apex's DistributedFusedAdam, whose dtype is the "datatype
 *   for optimizer state" and which keeps "a distributed copy of the
 *   parameters as optimizer state" (store_params, default True; NVIDIA/apex
 *   @ d571f3ee2c apex/contrib/optimizers/distributed_fused_adam.py): bf16
 *   moments, that bf16 copy sharded over DP (2/DP B per parameter), no fp32
 *   master, bf16 gradients;
 * - "grad_sync_dtype=bf16" (the release's fp8 pretraining examples,
 *   NeMo-Framework-Launcher @ 24.07, examples/training, the fp8 scripts): the same
 *   optimizer with its default fp32 state and store_params, gradients
 *   accumulated and reduced in bf16: bf16 gradients only;
 * - "fp8_params": fp8 weights, gathered in fp8 (--fp8-param-gather). */
static void nemo_optimizer(const rowref *r, tp_io_vrow *v, tp_config *c)
{
    const char *notes = cell(r, "notes");
    if (contains(notes, "distributed_fused_adam in bf16")) {
        tp_train *t = &c->train;
        int64_t mp = t->tp * t->pp * t->cp;
        int64_t dp = mp > 0 ? t->num_gpus / mp : 1;
        t->optimizer.moment_dtype = TP_DTYPE_BF16;
        t->optimizer.master_weights = false;
        t->grad_dtype = TP_DTYPE_BF16;
        c->opts.extra_param_bytes += 2.0 / (double)(dp > 0 ? dp : 1);
        tp_io__vnote(v, "apex distributed Adam in bf16: bf16 moments and parameter copy (sharded), "
                        "bf16 gradients, no fp32 master");
    } else if (contains(notes, "grad_sync_dtype=bf16")) {
        c->train.grad_dtype = TP_DTYPE_BF16;
        tp_io__vnote(v, "apex distributed Adam with grad_sync_dtype bf16: bf16 gradients, fp32 "
                        "moments and parameter shard (the release's fp8 example)");
    }
    if (contains(notes, "fp8_params") && c->train.precision == TP_PREC_FP8) {
        c->train.fp8_param_gather = true;
        tp_io__vnote(v, "fp8 weights (fp8_params)");
    }
}

/* DeepSeek-V3's DualPipe (technical report section 3.2.1), where a
 * pipelined row's notes state it: --schedule dualpipe (config.c checks
 * its layout; a layout it refuses keeps 1F1B and says why). */
static void dualpipe_schedule(const rowref *r, tp_io_vrow *v, tp_config *c)
{
    if (c->train.pp <= 1 || !contains(cell(r, "notes"), "DualPipe schedule"))
        return;
    tp_error e;
    if (tp_config_validate(c, &e) != TP_OK)
        return; /* row_predict reports what is wrong */
    tp_schedule was = c->train.schedule;
    c->train.schedule = TP_SCHED_DUALPIPE;
    if (tp_config_validate(c, &e) != TP_OK) {
        c->train.schedule = was;
        tp_io__vnote(v, "DualPipe stated but not modelled: %s: %s", e.path, e.message);
        return;
    }
    tp_io__vnote(v,
                 "DualPipe schedule (report section 3.2.1): stages i and pp-1-i on rank i, the EP "
                 "all-to-all hidden in its paired chunks");
}

void tp_io__validate_recipes(const rowref *r, framework fw, tp_io_vrow *v, tp_config *c)
{
    node_limited_routing(r, v, c);
    deepep_dispatch(r, fw, v, c);
    automodel_eager_experts(fw, v, c);
    token_drop_padded(r, v, c);
    low_precision_storage(r, v, c);
    packed_sequences(r, fw, v, c);
    nemo_optimizer(r, v, c);
    dualpipe_schedule(r, v, c);
}
