/* SPDX-License-Identifier: MIT */
/*
 * engines.h: the engine layer's inside. One module per training engine,
 * each holding everything trainplan knows of that engine's language:
 *
 *   megatron.c    Megatron-LM: export; megatron_import.c, megatron_model.c,
 *                 megatron_train.c (megatron_import.h): --from-megatron
 *   deepspeed.c   DeepSpeed: import (--from-deepspeed) and export
 *   torchtitan.c  torchtitan: export, Python (current) and job TOML (older);
 *                 titan_import.c: --from-torchtitan
 *   nemo.c        NeMo / Megatron-Bridge YAML overrides: --from-nemo
 *   common.c      what the exports share: the header every export opens
 *                 with, the "Not expressible" notes, comment wrapping,
 *                 the model facts they all read, and the trainplan flags
 *                 of a configuration (tp_io_config_flags)
 *
 * The public faces stay in src/io: import.h (tp_io_import_megatron,
 * tp_io_import_deepspeed, tp_io_import_apply) and export.h (tp_io_export,
 * which dispatches to the writers below). Every function here is internal
 * to libtpio.
 */
#ifndef TP_ENGINES_H
#define TP_ENGINES_H

#include <stdbool.h>
#include <stdint.h>

#include "export.h"
#include "import.h"
#include "sbuf.h"
#include "tp/tp.h"

/* ---- the writers, one per engine (tp_io_export dispatches) ---- */

tp_status tp_engine_megatron_export(const tp_config *c, const tp_result *r, const tp_export_opts *o,
                                    tp_export *out, tp_error *err);
tp_status tp_engine_torchtitan_export(const tp_config *c, const tp_result *r,
                                      const tp_export_opts *o, tp_export *out, tp_error *err);
tp_status tp_engine_torchtitan_toml_export(const tp_config *c, const tp_result *r,
                                           const tp_export_opts *o, tp_export *out, tp_error *err);
tp_status tp_engine_deepspeed_export(const tp_config *c, const tp_result *r,
                                     const tp_export_opts *o, tp_export *out, tp_error *err);

/* ---- the second step of an import (tp_io_import_apply dispatches) ---- */

/* Megatron: the model fields no flag expresses; refuses --model and asks for
 * the vocabulary and GPU count when neither the file nor a flag gave them. */
tp_status tp_engine_megatron_apply(const tp_import *im, const tp_import_user *user, tp_config *c,
                                   tp_error *err);
/* torchtitan's flavors of its other model families (the Python form, @
 * b5bcd76c): each is the architecture of one trainplan preset, with the
 * rotary base and norm epsilon the flavor builds (torchtitan.c). */
typedef struct titan_family_flavor {
    const char *family; /* torchtitan/models/<family> */
    const char *flavor; /* the model_registry name */
    const char *preset; /* trainplan's preset of the same architecture, or its
                         * model JSON (trainplan's schema) when there is none */
    const char *recipe; /* the config_registry function of the flavor */
    double rope_theta, norm_eps;
    const char *scaling; /* the flavor's rotary scaling other than none, or NULL */
    bool mtp_arg;        /* its model_registry takes num_mtp_layers */
} titan_family_flavor;
const titan_family_flavor *titan_family_named(const char *family, const char *flavor);
/* The flavor's architecture as trainplan flags ("--model NAME" or its
 * shape), for the import. */
tp_status titan_family_flags(const titan_family_flavor *f, sbuf *b, tp_error *err);

/* torchtitan: virtual stages from pipeline_parallel_layers_per_stage. */
tp_status tp_engine_torchtitan_apply(const tp_import *im, const tp_import_user *user, tp_config *c,
                                     tp_error *err);
/* NeMo: asks for --model and --gpus, which the overrides do not hold. */
tp_status tp_engine_nemo_apply(const tp_import *im, const tp_import_user *user, tp_config *c,
                               tp_error *err);
/* DeepSpeed: train_batch_size = micro x accumulation x DP, derived or checked. */
tp_status tp_engine_deepspeed_apply(const tp_import *im, const tp_import_user *user, tp_config *c,
                                    tp_error *err);

/* ---- shared by the exports (common.c) ---- */

/* The lines under "Not expressible" (counted), or informational ones. */
typedef struct notes {
    sbuf text; /* one item per line, no prefix */
    int count;
} notes;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void eng_note(notes *n, const char *fmt, ...);
void eng_note_fp8_act_cache(notes *n, const tp_config *c, const char *engine);
void eng_note_moe_sync_free(notes *n, const tp_config *c, const char *engine);
void eng_note_fp8_hp_inputs(notes *n, const tp_config *c, const char *engine);
void eng_note_fp8_weight_cache(notes *n, const tp_config *c, const char *engine);
/* --schedule dualpipe: not expressible in any engine (common.c); `also`
 * (or NULL) is appended after "has no DualPipe". */
void eng_note_dualpipe(notes *n, const tp_config *c, const char *engine, const char *also);

/* Append text as comment lines: "<prefix><lead>" then continuation lines
 * indented by `indent` spaces after the prefix, wrapped at 96 columns. */
void eng_wrap(sbuf *out, const char *prefix, const char *lead, size_t indent, const char *text);

/* Each line of a notes list as a wrapped "- item" under prefix. */
void eng_put_items(sbuf *out, const char *prefix, const notes *n);

/* The common header of every export, as comment lines under prefix:
 * title and trainplan version, the plan, the flags that reproduce it,
 * predicted memory and throughput, the training length, and what
 * `engine` cannot express (or that everything is expressed in `where`). */
void eng_header(sbuf *out, const char *prefix, const char *title, const tp_config *c,
                const tp_result *r, const tp_export_opts *o, const notes *unexpressed,
                const char *engine, const char *where);

/* One line describing the plan: model, GPUs, layout, batch, precision,
 * recompute (the header's "Plan:", torchtitan's [job] description). */
void eng_plan_summary(sbuf *b, const tp_config *c, const tp_result *r);

/* "--model NAME [shape] --gpu NAME --gpus N [--gpus-per-node G]" */
void eng_model_gpu_flags(sbuf *b, const tp_config *c);
/* The model as shape and feature flags ("--layers ... --qk-norm head"),
 * after lead, over base (the preset --model names; NULL: the default model,
 * which a line without --model starts from): a feature base has and m has
 * not is written off. What eng_flags_lost names is not among them. */
void eng_model_shape_flags(sbuf *b, const tp_model *m, const tp_model *base, const char *lead);
/* The model features those flags cannot carry (Gemma's four norms, yarn
 * rotary scaling, ...), as a comma list appended to b; their number (0 for
 * an exact preset, which --model NAME carries whole). */
int eng_flags_lost(sbuf *b, const tp_model *m);
/* Whether m has pre's architecture, its rotary base and scaling, norm
 * epsilon and MTP depth aside (a torchtitan flavor matched by shape). */
bool eng_same_arch(const tp_model *m, const tp_model *pre);
/* The parts of tp_io_config_flags that an export's notes reuse: the
 * parallel layout (--tp ... --last-stage-layers), recomputation, and the
 * memory switches (--no-master-weights ... --pad-vocab). */
void eng_layout_flags(sbuf *b, const tp_train *t);
void eng_recompute_flags(sbuf *b, const tp_train *t);
void eng_switch_flags(sbuf *b, const tp_train *t);
/* " FLAG V" (a switch: " FLAG") when the plain convention of that flag
 * (fields.c) differs from its default, as the Reproduce line writes it. */
void eng_convention_flag(sbuf *b, const tp_options *o, const char *flag);

/* Megatron-Core's loss in bytes per logit (language_module.py
 * compute_language_model_loss @ core_v0.15.0): TransformerEngine's fused
 * cross-entropy (te_fused), else the vocabulary-parallel one of the
 * megatron-core framework profile. The implementations Megatron-Core names
 * (--cross-entropy-fusion-impl, cross_entropy_fusion_impl), "te" second. */
double eng_mcore_ce_bytes(bool te_fused);
extern const char *const eng_mcore_ce_impls[];

/* Facts of the plan with its defaults resolved (0 fields mean "the usual"). */
/* The export's last step: its text taken from doc, nx's count kept, nx freed;
 * TP_ERR_NOMEM (out freed) when any of it ran out of memory. */
tp_status eng_finish(tp_export *out, sbuf *doc, notes *nx, tp_error *err);
int64_t eng_gpus_per_node(const tp_config *c);
int64_t eng_kv_heads(const tp_model *m);
int64_t eng_head_dim(const tp_model *m);
int64_t eng_expert_ffn(const tp_model *m);
/* x in the fewest digits (6 or more) that read back as exactly x; buf is returned. */
const char *eng_real(char *buf, size_t n, double x);
/* The flag that plans the loss at y B a logit at the plan's TP
 * (tp_ce_bytes_at): "--ce-bytes-per-logit-tp Y" where that figure rules
 * (TP > 1 with it set, or by_tp: an engine whose figure varies with TP),
 * else "--ce-bytes-per-logit Y". */
const char *eng_ce_flag(char *buf, size_t n, const tp_config *c, double y, bool by_tp);

/* torchtitan's compiled cross-entropy (compile.components "loss"), in bytes
 * a logit: Inductor fuses the fp32 upcast, log-softmax and their backward,
 * leaving the bf16 logits and their bf16 gradient (validate's H200 rows,
 * "loss compiled"; measured at TP 1 only). */
#define ENG_TITAN_COMPILED_CE 4.0
/* Steps of a run of o->train_tokens tokens, 0 when the plan has no budget. */
int64_t eng_train_steps(const tp_config *c, const tp_export_opts *o);
/* A name safe to put in a comment line or a TOML/JSON string: printable ASCII. */
void eng_safe_name(const char *in, char *out, size_t n);

#endif /* TP_ENGINES_H */
