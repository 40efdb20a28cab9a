/* SPDX-License-Identifier: MIT */
/*
 * json_out.c: the estimate result as one JSON object, the contract of
 * `trainplan estimate --json` (key by key in docs/cli.md) and of the web
 * API, which uses this same serializer.
 *
 * Rules:
 *  1. Exact counts (parameters, layout sizes) are JSON integers.
 *  2. Memory is in bytes, rounded to whole bytes, as JSON integers (above
 *     9e18, beyond int64, as a JSON real of the whole value); the
 *     breakdown parts are rounded independently, so their sum may differ
 *     from peak_bytes by a few bytes.
 *  3. Every other modelled quantity is a JSON real in base units (FLOP,
 *     seconds, FLOP/s, bytes/s); fractions (mfu, hfu, bubble) are 0..1.
 *  4. No NaN or infinity ever: every real is checked, and the function
 *     returns NULL when one is not finite (the CLI exits 4).
 */
#include <math.h>

#include "io.h"
#include "desc.h"
#include "fields.h"
#include "io_internal.h"
#include "recompute_modules.h"
#include "schedule.h"

/* Beyond this a whole number does not fit a JSON integer (int64, 2^63 = 9.22e18). */
#define JSON_INT_LIMIT 9.0e18

/*
 * Bytes (or another modelled count) as a whole JSON integer; a count too
 * large for int64 (activations of a huge batch: 1e19 bytes and more) is a
 * result all the same, written as a JSON real of the rounded value. Only a
 * non-finite value fails the result.
 */
static void put_bytes(jb *b, json_t *o, const char *key, double v)
{
    if (!isfinite(v)) {
        b->ok = false;
        return;
    }
    if (fabs(v) > JSON_INT_LIMIT)
        jb_set(b, o, key, json_real(nearbyint(v)));
    else
        jb_set(b, o, key, json_integer((json_int_t)llround(v)));
}

/* Not UTF-8 (a name taken from a file path): keep the output valid. */
static void put_str(jb *b, json_t *o, const char *key, const char *v)
{
    jb_put_str(b, o, key, v, "(name is not valid UTF-8)");
}

static const char *mlp_name(tp_mlp m)
{
    return tp_mlp_name(m);
}

static const char *norm_name(tp_norm n)
{
    return n == TP_NORM_RMSNORM ? "rmsnorm" : "layernorm";
}

static const char *pos_name(tp_pos p)
{
    switch (p) {
    case TP_POS_ROTARY: return "rotary";
    case TP_POS_LEARNED: return "learned";
    case TP_POS_ALIBI: return "alibi";
    }
    return "unknown";
}

/* The details that define the model beyond its shape, each only when the
 * model records it (outputs of models without them are unchanged), so
 * that `export --from RESULT.json` writes the same model (issue 18). */
static void model_details_json(jb *b, json_t *o, const tp_model *m)
{
    if (!m->linear_bias && m->qkv_bias)
        put_bool(b, o, "qkv_bias", true);
    if (m->pos == TP_POS_LEARNED && m->max_positions > 0)
        put_int(b, o, "max_positions", m->max_positions);
    if (m->rope_theta > 0)
        put_real(b, o, "rope_theta", m->rope_theta);
    if (m->rope_scaling == TP_ROPE_SCALING_LLAMA3) {
        put_str(b, o, "rope_scaling", "llama3");
        put_real(b, o, "rope_factor", m->rope_factor);
        put_real(b, o, "rope_low_freq_factor",
                 m->rope_low_freq_factor > 0 ? m->rope_low_freq_factor : 1.0);
        put_real(b, o, "rope_high_freq_factor",
                 m->rope_high_freq_factor > 0 ? m->rope_high_freq_factor : 4.0);
        put_int(b, o, "rope_original_max", m->rope_original_max > 0 ? m->rope_original_max : 8192);
    } else if (m->rope_scaling == TP_ROPE_SCALING_OTHER) {
        put_str(b, o, "rope_scaling", "other");
    }
    if (m->norm_eps > 0)
        put_real(b, o, "norm_eps", m->norm_eps);
    if (m->num_experts > 0) {
        if (m->shared_ffn_hidden > 0 && m->num_shared_experts > 0)
            put_int(b, o, "shared_ffn_hidden", m->shared_ffn_hidden);
        if (m->moe_first_dense > 0)
            put_int(b, o, "moe_first_dense", m->moe_first_dense);
        if (m->moe_layer_freq > 1)
            put_int(b, o, "moe_layer_freq", m->moe_layer_freq);
    }
}

static json_t *model_json(jb *b, const tp_model *m)
{
    json_t *o = jb_obj(b);
    int64_t kv = tp_kv_heads(m);
    int64_t hd = tp_head_dim(m);
    put_str(b, o, "name", m->name);
    put_bool(b, o, "reshaped", tp_io_model_reshaped(m));
    put_int(b, o, "layers", m->num_layers);
    put_int(b, o, "hidden", m->hidden);
    put_int(b, o, "heads", m->num_heads);
    put_int(b, o, "kv_heads", kv);
    put_int(b, o, "head_dim", hd);
    put_int(b, o, "ffn_hidden", m->ffn_hidden);
    put_int(b, o, "vocab", m->vocab);
    put_str(b, o, "mlp", mlp_name(m->mlp));
    put_str(b, o, "norm", norm_name(m->norm));
    put_str(b, o, "position", pos_name(m->pos));
    put_bool(b, o, "linear_bias", m->linear_bias);
    put_bool(b, o, "tie_embeddings", m->tie_embeddings);
    put_int(b, o, "experts", m->num_experts);
    put_int(b, o, "topk", m->num_experts > 0 ? m->topk : 0);
    put_int(b, o, "moe_ffn_hidden", m->num_experts > 0 ? tp_expert_ffn_hidden(m) : 0);
    put_int(b, o, "shared_experts", m->num_experts > 0 ? m->num_shared_experts : 0);
    /* issue-16 features: present only when used, so older outputs keep their bytes */
    if (m->kv_lora_rank > 0) {
        put_int(b, o, "q_lora_rank", m->q_lora_rank);
        put_int(b, o, "kv_lora_rank", m->kv_lora_rank);
        put_int(b, o, "qk_rope_head_dim", m->qk_rope_head_dim);
        put_int(b, o, "qk_nope_head_dim", m->qk_nope_head_dim);
        put_int(b, o, "v_head_dim", m->v_head_dim);
    }
    if (m->sliding_window > 0) {
        put_int(b, o, "sliding_window", m->sliding_window);
        put_int(b, o, "global_every", m->global_every);
    }
    if (m->attention_chunk > 0) { /* written only when set */
        put_int(b, o, "attention_chunk", m->attention_chunk);
        put_int(b, o, "global_every", m->global_every);
    }
    if (m->mtp_layers > 0)
        put_int(b, o, "mtp_layers", m->mtp_layers);
    if (m->qk_norm != TP_QK_NORM_NONE)
        put_str(b, o, "qk_norm", m->qk_norm == TP_QK_NORM_HEAD ? "head" : "full");
    if (m->router_bias)
        put_bool(b, o, "router_bias", true);
    if (m->attn_sinks)
        put_bool(b, o, "attn_sinks", true);
    if (m->attn_out_bias)
        put_bool(b, o, "attn_out_bias", true);
    if (m->norm_no_bias)
        put_bool(b, o, "norm_no_bias", true);
    if (m->norms_per_layer > 0)
        put_int(b, o, "norms_per_layer", m->norms_per_layer);
    if (m->num_experts > 0 && m->moe_imbalance > 0.0)
        put_real(b, o, "moe_imbalance", m->moe_imbalance);
    if (m->num_experts > 0 && m->moe_capacity_factor > 0.0)
        put_real(b, o, "moe_capacity_factor", m->moe_capacity_factor);
    if (m->num_experts > 0 && m->moe_router_groups > 0) {
        put_int(b, o, "moe_router_groups", m->moe_router_groups);
        put_int(b, o, "moe_router_group_topk", m->moe_group_topk);
    }
    if (m->parallel_attn)
        put_bool(b, o, "parallel_attn", true);
    if (m->vision.layers > 0) { /* the tower and its training settings (vision.c) */
        json_t *v = jb_obj(b);
        put_int(b, v, "layers", m->vision.layers);
        put_int(b, v, "hidden", m->vision.hidden);
        put_int(b, v, "heads", m->vision.heads);
        put_int(b, v, "ffn_hidden", m->vision.ffn_hidden);
        put_int(b, v, "patch", m->vision.patch);
        put_int(b, v, "merge", m->vision.merge > 0 ? m->vision.merge : 1);
        put_int(b, v, "cross_layers", tp_model_num_cross_layers(m));
        put_int(b, v, "image_tokens", m->vision.image_tokens);
        put_bool(b, v, "frozen", m->vision.frozen);
        put_str(b, v, "pipeline_stage", "first");
        jb_set(b, o, "vision", v);
    }
    if (m->layer_pattern[0]) { /* hybrid models (src/lib/hybrid.c) */
        put_str(b, o, "layer_pattern", m->layer_pattern);
        if (m->mamba_heads > 0) {
            put_int(b, o, "mamba_heads", m->mamba_heads);
            put_int(b, o, "mamba_head_dim", m->mamba_head_dim);
            put_int(b, o, "mamba_groups", m->mamba_groups);
            put_int(b, o, "mamba_state", m->mamba_state);
            put_int(b, o, "mamba_conv", m->mamba_conv > 0 ? m->mamba_conv : 4);
        }
        if (m->mamba1_inner > 0) {
            put_int(b, o, "mamba1_inner", m->mamba1_inner);
            put_int(b, o, "mamba1_dt_rank", m->mamba1_dt_rank);
            put_int(b, o, "mamba_state", m->mamba_state);
            put_int(b, o, "mamba_conv", m->mamba_conv > 0 ? m->mamba_conv : 4);
        }
        if (m->gdn_k_heads > 0) {
            put_int(b, o, "gdn_k_heads", m->gdn_k_heads);
            put_int(b, o, "gdn_v_heads", m->gdn_v_heads);
            put_int(b, o, "gdn_k_head_dim", m->gdn_k_head_dim);
            put_int(b, o, "gdn_v_head_dim", m->gdn_v_head_dim);
            put_int(b, o, "gdn_conv", m->gdn_conv > 0 ? m->gdn_conv : 4);
        }
    }
    if (m->attn_output_gate)
        put_bool(b, o, "attn_output_gate", true);
    if (m->shared_expert_gate)
        put_bool(b, o, "shared_expert_gate", true);
    model_details_json(b, o, m);
    return o;
}

/* Which GEMM model produced the compute time (docs/model.md 1a, 1b). */
static json_t *gemm_model_json(jb *b, const tp_gpu *g, tp_precision prec)
{
    tp_io_gemm_model gm;
    tp_io_gemm_model_of(g, prec, &gm);
    json_t *o = jb_obj(b);
    put_str(b, o, "kind", gm.kernel ? "kernel" : "fitted");
    if (!gm.kernel) {
        put_real(b, o, "gemm_fraction", gm.rate);
        return o;
    }
    if (gm.profile[0])
        put_str(b, o, "hw_profile", gm.profile);
    put_real(b, o, "matmul_fraction", gm.rate);
    put_real(b, o, "gemm_sw", gm.gemm_sw);
    put_int(b, o, "sm_count", (int64_t)g->eff.sm_count);
    put_int(b, o, "tile_m", (int64_t)(g->eff.tile_m > 0.0 ? g->eff.tile_m : 128.0));
    put_int(b, o, "tile_n", (int64_t)(g->eff.tile_n > 0.0 ? g->eff.tile_n : 256.0));
    return o;
}

/* The rate attention ran at (docs/model.md 2), as the report's line. */
static json_t *attn_model_json(jb *b, const tp_config *c)
{
    json_t *o = jb_obj(b);
    put_str(b, o, "kind", c->train.flash_attn ? "flash" : "unfused");
    if (!c->train.flash_attn)
        return o;
    tp_io_gemm_model gm;
    tp_io_gemm_model_of(&c->gpu, c->train.precision, &gm);
    tp_io_attn_model_of(c, &gm);
    put_real(b, o, "peak_fraction", gm.attn);
    if (gm.attn_kernel > 0.0) {
        if (gm.profile[0])
            put_str(b, o, "hw_profile", gm.profile);
        put_real(b, o, "kernel_fraction", gm.attn_kernel);
        put_real(b, o, "attn_sw", gm.attn_sw);
    }
    if (gm.attn_ampere_rel < 1.0)
        put_real(b, o, "ampere_kernel_factor", gm.attn_ampere_rel);
    if (gm.attn_head_dim_rel < 1.0)
        put_real(b, o, "head_dim_factor", gm.attn_head_dim_rel);
    if (gm.attn_seq_rel < 1.0) {
        put_real(b, o, "seq_len_factor", gm.attn_seq_rel);
        put_real(b, o, "kernel_seq_tokens", gm.attn_seq_tokens);
        put_str(b, o, "seq_len_source",
                gm.attn_seq_measured ? "profile attention sweep" : "FlashAttention-3 paper");
    }
    return o;
}

static json_t *gpu_json(jb *b, const tp_config *c)
{
    const tp_gpu *g = &c->gpu;
    const tp_train *t = &c->train;
    json_t *o = jb_obj(b);
    put_str(b, o, "name", g->name);
    put_real(b, o, "peak_flops_per_s", g->peak_flops_per_s[t->precision]);
    put_str(b, o, "peak_precision", tp_io_precision_name(t->precision));
    put_bytes(b, o, "memory_capacity_bytes", g->mem_capacity_bytes);
    put_real(b, o, "mem_bw_bytes_per_s", g->mem_bw_bytes_per_s);
    put_real(b, o, "intra_bw_bytes_per_s", g->intra_bw_bytes_per_s);
    put_real(b, o, "inter_bw_bytes_per_s", g->inter_bw_bytes_per_s);
    put_int(b, o, "gpus_per_node", g->gpus_per_node);
    put_real(b, o, "price_per_gpu_hour", g->price_per_gpu_hour);
    jb_set(b, o, "gemm_model", gemm_model_json(b, g, t->precision));
    jb_set(b, o, "attention_model", attn_model_json(b, c));
    tp_io_moe_host h;
    if (tp_io_moe_host_of(c, &h)) {
        json_t *mh = jb_obj(b);
        put_real(b, mh, "layer_s", h.layer_s);
        put_real(b, mh, "expert_s", h.expert_s);
        put_int(b, mh, "local_experts", h.local_experts);
        put_real(b, mh, "floor_s", h.floor_s);
        if (h.why_none)
            put_str(b, mh, "none", h.why_none);
        jb_set(b, o, "moe_host_floor", mh);
    }
    return o;
}

static json_t *layout_json(jb *b, const tp_gpu *g, const tp_train *t, const tp_result *r)
{
    json_t *o = jb_obj(b);
    put_int(b, o, "tp", t->tp);
    put_int(b, o, "pp", t->pp);
    put_int(b, o, "cp", t->cp);
    put_int(b, o, "ep", t->ep);
    if (t->etp > 0 && t->etp != t->tp) { /* MoE parallel folding only: older readers unchanged */
        put_int(b, o, "etp", t->etp);
        put_int(b, o, "edp", tp_train_edp(t));
    }
    put_int(b, o, "dp", r->dp);
    put_int(b, o, "vpp", t->vpp);
    put_bool(b, o, "sp", t->sp);
    put_int(b, o, "zero", t->zero);
    put_str(b, o, "schedule", tp_io_schedule_name(t->schedule));
    put_str(b, o, "recompute", tp_io_recompute_name(t->recompute));
    put_int(b, o, "recompute_every", t->recompute_every);
    put_int(b, o, "first_stage_layers", t->first_stage_layers);
    put_int(b, o, "last_stage_layers", t->last_stage_layers);
    if (t->pp_split != TP_PP_SPLIT_MEGATRON) /* absent: the default, as before the field */
        put_str(b, o, "pp_split", tp_io_pp_split_names[t->pp_split]);
    put_int(b, o, "micro_batch", t->micro_batch);
    put_int(b, o, "global_batch", t->global_batch);
    put_int(b, o, "global_batch_tokens", t->global_batch * t->seq_len);
    put_int(b, o, "grad_accum", r->grad_accum);
    put_int(b, o, "seq_len", t->seq_len);
    if (t->local_batch > 0) { /* --local-batch only: older readers unchanged */
        put_int(b, o, "local_batch", t->local_batch);
        put_int(b, o, "schedule_runs", r->schedule_runs);
    }
    if (t->packed_seq_len > 0) /* --packed-seq-len only: older readers unchanged */
        put_int(b, o, "packed_seq_len", t->packed_seq_len);
    put_int(b, o, "num_gpus", t->num_gpus);
    put_int(b, o, "gpus_per_node", tp_gpus_per_node(t, g));
    return o;
}

static json_t *training_json(jb *b, const tp_train *t)
{
    json_t *o = jb_obj(b);
    put_str(b, o, "precision", tp_io_precision_name(t->precision));
    put_str(b, o, "grad_dtype", tp_io_dtype_name(t->grad_dtype));
    put_str(b, o, "optimizer", tp_io_optimizer_name(&t->optimizer));
    put_bool(b, o, "master_weights", t->optimizer.master_weights);
    put_bool(b, o, "flash_attn", t->flash_attn);
    put_bool(b, o, "dropout", t->dropout);
    put_bool(b, o, "fused_ce", t->fused_ce);
    put_int(b, o, "pad_vocab_to", t->pad_vocab_to > 1 ? t->pad_vocab_to : 1);
    if (t->fp8_param_gather) /* written only when on: older outputs unchanged */
        put_bool(b, o, "fp8_param_gather", true);
    if (t->recompute_layers > 0) /* written only when set */
        put_int(b, o, "recompute_layers", t->recompute_layers);
    if (t->offload_optimizer > 0.0) /* written only when set */
        put_real(b, o, "offload_optimizer", t->offload_optimizer);
    if (t->offload_params != TP_OFFLOAD_NONE) /* written only when set */
        put_str(b, o, "offload_params", tp_io_offload_names[t->offload_params]);
    if (t->offload_act_layers > 0) /* written only when set */
        put_int(b, o, "offload_activations", t->offload_act_layers);
    if (t->fp8_recipe != TP_FP8_DELAYED) /* written only when set */
        put_str(b, o, "fp8_recipe", tp_io_recipe_names[t->fp8_recipe]);
    if (t->recompute_modules) { /* written only when set */
        char mods[96];
        put_str(b, o, "recompute_modules",
                tp_io_recompute_modules_text(t->recompute_modules, mods, sizeof mods));
    }
    return o;
}

static json_t *conventions_json(jb *b, const tp_options *op)
{
    json_t *o = jb_obj(b);
    put_str(b, o, "attn_flops", op->attn_flops == TP_ATTN_FLOPS_FULL ? "full" : "causal");
    put_str(b, o, "act_model", op->act_model == TP_ACT_KORTHIKANTI ? "korthikanti" : "detailed");
    put_str(b, o, "ckpt_model", op->ckpt_model == TP_CKPT_SEED001 ? "seed001" : "exact");
    put_str(b, o, "coll_model", op->coll_model == TP_COLL_SIMPLE ? "simple" : "ring");
    put_bytes(b, o, "cuda_context_bytes", op->cuda_context_bytes);
    put_bytes(b, o, "comm_buffer_bytes", op->comm_buffer_bytes);
    put_real(b, o, "fragmentation", op->fragmentation);
    if (op->sac_ops) /* written only when on (search --recompute-variants may choose it) */
        put_bool(b, o, "sac_ops", true);
    /* the plain conventions (fields.c rows), each written only when it is
     * not the default (older outputs unchanged; result_read.c reads them) */
    tp_options d;
    tp_options_default(&d);
    for (size_t i = 0; i < tp_io_field_count(); i++) {
        const tp_io_field *f = tp_io_field_at(i);
        double v;
        if (!tp_io_field_convention_set(f, op, &d, &v))
            continue;
        if (f->type == TP_IO_FIELD_SWITCH)
            put_bool(b, o, tp_io_field_member(f), v > 0.5);
        else
            put_real(b, o, tp_io_field_member(f), v);
    }
    return o;
}

static json_t *params_json(jb *b, const tp_params *p)
{
    json_t *o = jb_obj(b);
    put_int(b, o, "total", p->total);
    put_int(b, o, "active", p->active);
    json_t *bd = jb_obj(b);
    put_int(b, bd, "embedding", p->embedding);
    put_int(b, bd, "output_head", p->output_head);
    put_int(b, bd, "attention", p->attention);
    put_int(b, bd, "mlp_dense", p->mlp_dense);
    put_int(b, bd, "moe_routed", p->moe_routed);
    put_int(b, bd, "moe_shared", p->moe_shared);
    put_int(b, bd, "router", p->router);
    put_int(b, bd, "norms", p->norms);
    if (p->mtp > 0)
        put_int(b, bd, "mtp", p->mtp);
    if (p->vision + p->vision_projector + p->vision_text > 0) { /* a vision tower (issue 16) */
        put_int(b, bd, "vision", p->vision);
        put_int(b, bd, "vision_projector", p->vision_projector);
        put_int(b, bd, "vision_text", p->vision_text);
    }
    if (p->mixers > 0)
        put_int(b, bd, "mixers", p->mixers);
    jb_set(b, o, "breakdown", bd);
    put_int(b, o, "per_layer_dense", p->per_layer_dense);
    put_int(b, o, "per_layer_moe", p->per_layer_moe);
    put_int(b, o, "num_moe_layers", p->num_moe_layers);
    return o;
}

static json_t *flops_json(jb *b, const tp_flops *f, const tp_options *op)
{
    json_t *o = jb_obj(b);
    put_real(b, o, "model_per_token", f->model_per_token);
    put_real(b, o, "hardware_per_token", f->hardware_per_token);
    put_real(b, o, "six_n_per_token", f->six_n_per_token);
    put_real(b, o, "attn_per_token", f->attn_per_token);
    put_real(b, o, "logits_per_token", f->logits_per_token);
    put_real(b, o, "model_per_step", f->model_per_step);
    put_real(b, o, "hardware_per_step", f->hardware_per_step);
    put_real(b, o, "tokens_per_step", f->tokens_per_step);
    put_str(b, o, "attn_convention", op->attn_flops == TP_ATTN_FLOPS_FULL ? "full" : "causal");
    return o;
}

static json_t *breakdown_json(jb *b, const tp_memory *m)
{
    json_t *o = jb_obj(b);
    for (size_t k = 0; k < TP_IO_NUM_MEM_PARTS; k++)
        put_bytes(b, o, tp_io_mem_parts[k].key, tp_io_part_value(m, &tp_io_mem_parts[k]));
    return o;
}

/* One stage; `full` adds the verdict fields used at the top of "memory". */
static void memory_fields(jb *b, json_t *o, const tp_memory *m)
{
    put_bytes(b, o, "peak_bytes", m->total_bytes);
    put_bytes(b, o, "capacity_bytes", m->capacity_bytes);
    put_bytes(b, o, "headroom_bytes", m->headroom_bytes);
    put_bool(b, o, "fits", m->fits);
    if (m->host_bytes > 0.0) /* offload only: older outputs unchanged */
        put_bytes(b, o, "host_bytes", m->host_bytes);
    if (m->act_host_bytes > 0.0) /* activation offload only */
        put_bytes(b, o, "act_host_bytes", m->act_host_bytes);
    if (m->nvme_bytes > 0.0) /* NVMe parameter offload only */
        put_bytes(b, o, "nvme_bytes", m->nvme_bytes);
    if (m->fp8_copies_bytes > 0.0) /* fp8 with TE's cached weight copies only */
        put_bytes(b, o, "fp8_copies_bytes", m->fp8_copies_bytes);
    if (m->userbuffers_bytes > 0.0) /* TE's chunked TP overlap only */
        put_bytes(b, o, "userbuffers_bytes", m->userbuffers_bytes);
    put_int(b, o, "stage", m->stage);
    put_int(b, o, "layers", m->layers);
    put_bytes(b, o, "params_on_gpu", m->params_on_gpu);
    put_real(b, o, "inflight_microbatches", m->inflight_microbatches);
    put_bytes(b, o, "act_per_layer_bytes", m->act_per_layer_bytes);
    jb_set(b, o, "breakdown", breakdown_json(b, m));
}

static json_t *memory_json(jb *b, const tp_result *r)
{
    json_t *o = jb_obj(b);
    memory_fields(b, o, &r->memory);
    json_t *stages = jb_obj(b);
    json_t *first = jb_obj(b);
    json_t *last = jb_obj(b);
    memory_fields(b, first, &r->stage_first);
    memory_fields(b, last, &r->stage_last);
    jb_set(b, stages, "first", first);
    jb_set(b, stages, "last", last);
    jb_set(b, o, "stages", stages);
    return o;
}

static json_t *time_json(jb *b, const tp_time *t)
{
    if (!t->computed)
        return json_null();
    json_t *o = jb_obj(b);
    put_real(b, o, "step_s", t->step_s);
    json_t *bd = jb_obj(b);
    for (size_t k = 0; k < TP_IO_NUM_TIME_PARTS; k++)
        put_real(b, bd, tp_io_time_parts[k].key, tp_io_part_value(t, &tp_io_time_parts[k]));
    jb_set(b, o, "breakdown", bd);
    if (t->param_offload_bytes > 0.0) { /* of dp_comm; written only with parameter offload */
        put_real(b, o, "param_offload_s", t->param_offload_s);
        put_bytes(b, o, "param_offload_bytes", t->param_offload_bytes);
    }
    if (t->act_offload_bytes > 0.0) { /* of recompute; written only with activation offload */
        put_real(b, o, "act_offload_s", t->act_offload_s);
        put_bytes(b, o, "act_offload_bytes", t->act_offload_bytes);
    }
    json_t *bub = jb_obj(b);
    put_real(b, bub, "of_total", t->bubble_of_total);
    put_real(b, bub, "of_ideal", t->bubble_of_ideal);
    jb_set(b, o, "bubble_fraction", bub);
    json_t *th = jb_obj(b);
    put_real(b, th, "tokens_per_s", t->tokens_per_s);
    put_real(b, th, "tokens_per_s_per_gpu", t->tokens_per_s_per_gpu);
    put_real(b, th, "model_tflops_per_gpu", t->model_flops_per_s_per_gpu / 1e12);
    put_real(b, th, "mfu", t->mfu);
    put_real(b, th, "hfu", t->hfu);
    jb_set(b, o, "throughput", th);
    put_str(b, o, "bottleneck", t->bottleneck ? t->bottleneck : "none");
    put_int(b, o, "critical_stage", t->critical_stage);
    return o;
}

static json_t *units_json(jb *b)
{
    json_t *o = jb_obj(b);
    put_str(b, o, "params", "parameters (exact integer counts)");
    put_str(b, o, "flops", "floating-point operations; a multiply-add counts as 2");
    put_str(b, o, "memory", "bytes, rounded to whole bytes (1 GB = 1e9 bytes, 1 GiB = 2^30 bytes)");
    put_str(b, o, "time", "seconds");
    put_str(b, o, "tokens_per_s", "tokens per second");
    put_str(b, o, "model_tflops_per_gpu", "1e12 model FLOP per second per GPU");
    put_str(b, o, "mfu_hfu_bubble", "fractions in [0, 1]");
    put_str(b, o, "bandwidth", "bytes per second per direction");
    put_str(b, o, "price", "USD per GPU-hour");
    put_str(b, o, "layout", "counts: GPUs, layers, sequences, tokens");
    return o;
}

json_t *tp_io_result_json(const tp_config *c, const tp_result *r)
{
    jb b = {true};
    json_t *o = jb_obj(&b);
    put_str(&b, o, "trainplan_version", tp_version_string());
    jb_set(&b, o, "model", model_json(&b, &c->model));
    jb_set(&b, o, "gpu", gpu_json(&b, c));
    jb_set(&b, o, "layout", layout_json(&b, &c->gpu, &c->train, r));
    jb_set(&b, o, "training", training_json(&b, &c->train));
    jb_set(&b, o, "conventions", conventions_json(&b, &c->opts));
    jb_set(&b, o, "params", params_json(&b, &r->params));
    jb_set(&b, o, "flops", flops_json(&b, &r->flops, &c->opts));
    jb_set(&b, o, "memory", memory_json(&b, r));
    jb_set(&b, o, "time", time_json(&b, &r->time));
    char reason[TP_REASON_MAX];
    put_str(&b, o, "reason", tp_result_reason(r, reason, sizeof reason));
    jb_set(&b, o, "units", units_json(&b));
    if (!b.ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *tp_io_estimate_json(const tp_config *c, const tp_result *r)
{
    json_t *j = tp_io_result_json(c, r);
    json_t *s = j ? tp_io_schedule_json(c, r) : NULL;
    if (!s || json_object_set_new(j, "pipeline_schedule", s) != 0) {
        json_decref(j);
        return NULL;
    }
    json_t *co = tp_io_collectives_json(c, r); /* issue 19: seed 001's communication rows */
    if (!co || json_object_set_new(j, "collectives", co) != 0) {
        json_decref(j);
        return NULL;
    }
    tp_io_low_mfu lm;
    tp_io_low_mfu_eval(c, r, &lm);
    json_t *lj = tp_io_low_mfu_json(&lm); /* issue 19: seed 003's slow-layout failure mode */
    if (!lj || json_object_set_new(j, "low_mfu", lj) != 0) {
        json_decref(j);
        return NULL;
    }
    json_t *oj = tp_io_oom_fix_json(c, r); /* issue 19: the fix the text prints, or null */
    if (!oj || json_object_set_new(j, "oom", oj) != 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}
