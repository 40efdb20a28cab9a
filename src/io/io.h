/* SPDX-License-Identifier: MIT */
/**
 * io.h: the I/O edge of trainplan (not part of libtp). Loads presets and
 * user files into libtp structs, and turns results into JSON and text.
 * Uses jansson; json_t never appears in include/tp/tp.h.
 *
 * Ownership: functions returning char * or json_t * return new memory;
 * it is the caller's responsibility to free it (free() / json_decref()).
 */
#ifndef TP_IO_H
#define TP_IO_H

#include <jansson.h>
#include <stdio.h>

#include "tp/tp.h"

typedef enum tp_io_kind { TP_IO_MODEL = 0, TP_IO_GPU } tp_io_kind;

/** Evaluate a tp_status expression; return its status from the caller when it is not TP_OK. */
#define TP_TRY(x)                                                                                  \
    do {                                                                                           \
        tp_status tp_try_st_ = (x);                                                                \
        if (tp_try_st_ != TP_OK)                                                                   \
            return tp_try_st_;                                                                     \
    } while (0)

/* ---- presets (presets/models/ *.json, presets/gpus/ *.json, embedded) ---- */

/** Number of presets of a kind, sorted by name. */
size_t tp_io_preset_count(tp_io_kind kind);
/** i-th preset name (lowercase-hyphen), or NULL past the end. Static storage. */
const char *tp_io_preset_name(tp_io_kind kind, size_t i);
/** The preset's "source" text (citation), or NULL. Static storage. */
const char *tp_io_preset_source(tp_io_kind kind, const char *name);
/** Raw JSON text of a preset, or NULL. Static storage. */
const char *tp_io_preset_text(tp_io_kind kind, const char *name);
/** Closest preset name by edit distance (for "did you mean"), or NULL. */
const char *tp_io_preset_suggest(tp_io_kind kind, const char *name);

/**
 * Load a model: a preset name ("llama-3-8b"), a trainplan model JSON
 * file, or a Hugging Face config.json (detected by its keys). Errors:
 * TP_ERR_UNKNOWN (no such preset: message suggests the closest name),
 * TP_ERR_IO, TP_ERR_PARSE (line/column), TP_ERR_CONFIG (path names the key).
 */
tp_status tp_io_model_load(const char *name_or_path, tp_model *out, tp_error *err);

/**
 * Whether m bears a preset's name but not its shape: flags (--layers,
 * --hidden, ...) or a file changed the shape the report prints or the
 * parameter count. The text and markdown reports say so beside the name.
 */
bool tp_io_model_reshaped(const tp_model *m);

/** Parse a model from JSON text (trainplan schema or HF config.json). */
tp_status tp_io_model_parse(const char *text, const char *origin, tp_model *out, tp_error *err);

/**
 * The top-level keys of a Hugging Face config.json (text) that trainplan
 * does not read because they change neither the parameter count nor the
 * FLOPs (rope_theta, token ids, router scaling, quantization, ...), as
 * "a, b, c" in buf (whole names, as many as fit); their number. Also for
 * DBRX (keys inside attn_config and ffn_config as "ffn_config.moe_jitter_eps")
 * and DeepSeek's native config_671B.json. 0 and "" for anything else (a
 * trainplan model file, a model_type not supported).
 */
size_t tp_io_hf_ignored(const char *text, char *buf, size_t n);

/** Load a GPU: a preset name ("h100-sxm") or a GPU JSON file. Fills eff defaults. */
tp_status tp_io_gpu_load(const char *name_or_path, tp_gpu *out, tp_error *err);

/*
 * A hardware profile (hwprofile.c, docs/hardware.md) applied to *g: the
 * kernel-level GEMM model's SM count, tile and measured matmul rates, and
 * where measured the HBM and intra-node collective fractions; g->hw_profile
 * the profile's "name" when the text is that shipped profile's, else "".
 * *g is unchanged on error (TP_ERR_CONFIG naming the key, TP_ERR_IO,
 * TP_ERR_PARSE).
 */
tp_status tp_io_hw_profile_parse(const char *text, tp_gpu *g, tp_error *err);
tp_status tp_io_hw_profile_load(const char *path, tp_gpu *g, tp_error *err);

/*
 * Back to the fitted-fraction GEMM model (--fitted-gemm): drops the
 * kernel-level GEMM model a GPU's "hw_profile" set (eff.sm_count, tile,
 * mamf, mamf_fp8, gemm_sw; hw_profile) and restores the attention and
 * overlap fractions fitted with eff.gemm (tp_gpu_default_eff). A GPU
 * without a profile is unchanged.
 */
void tp_io_gpu_fitted_gemm(tp_gpu *g);

/*
 * The host side a GPU preset states (tp_gpu.host_link_bytes_per_s,
 * host_mem_bytes_per_node, host_mem_bw_bytes_per_s) made the options'
 * defaults: opts.pcie_bw_bytes_per_s, opts.host_mem_bytes_per_node and
 * opts.host_mem_bw_bytes_per_s take them where stated (non-zero), else
 * keep tp_options_default's (a DGX H100's). Call it once the GPU is final
 * (its preset, the user's GPU flags, a --hw-profile's measured host link)
 * and before the user's own option values.
 */
void tp_io_host_defaults(const tp_gpu *g, tp_options *o);

/*
 * Which GEMM model a GPU's eff describes, for the reports (text, JSON):
 * the kernel-level model of a hardware profile (docs/model.md 1b) or the
 * fitted fraction (1a). rate: of the dense peak of prec, the measured
 * matmul rate (eff.mamf, mamf_fp8 for fp8) or the fitted eff.gemm
 * (gemm_fp8). profile: g->hw_profile, the shipped profile whose GEMM part
 * the kernel-level model runs ("" for the fitted fraction, or a profile
 * file of the user's own).
 */
typedef struct tp_io_gemm_model {
    bool kernel;
    char profile[TP_NAME_MAX];
    double rate;
    double gemm_sw; /* kernel: the share a training step sustains */
    /* attention (docs/model.md 2): the fraction of the 16-bit peak it runs
     * at (tp_attn_rate_of: eff.attn, times the Ampere-kernel, head-dim and
     * sequence-length factors when they apply), and, when the profile measured its kernel,
     * that kernel's rate */
    double attn;
    double attn_kernel;       /* 0: a fitted fraction, no measured kernel */
    double attn_sw;           /* with attn_kernel: the share a step sustains (attn over the
                                 kernel's rate and the factors) */
    double attn_ampere_rel;   /* 1, or the factor of a kernel written for Ampere */
    double attn_head_dim_rel; /* 1, or the factor of heads narrower than 128 */
    double attn_seq_rel;      /* 1, or the factor of kernel calls shorter than 16k tokens */
    double attn_seq_tokens;   /* tokens a kernel call sees */
    double attn_local_tokens; /* a windowed or chunked layer's call, when fewer; else 0 */
    bool attn_seq_measured;   /* the factor from the profile's attention sweep, not FA3's */
} tp_io_gemm_model;
void tp_io_gemm_model_of(const tp_gpu *g, tp_precision prec, tp_io_gemm_model *out);
/* The attention part of out, for this run. */
void tp_io_attn_model_of(const tp_config *c, tp_io_gemm_model *out);

/* The host floor of a dropless MoE layer (docs/model.md 2b): false when
 * the model has no experts; floor_s 0 and why_none when no floor applies. */
typedef struct tp_io_moe_host {
    double layer_s, expert_s; /* the GPU's eff.moe_host_* */
    int64_t local_experts;    /* experts / EP */
    double floor_s;           /* layer_s + local_experts x expert_s, or 0 */
    const char *why_none;
} tp_io_moe_host;
bool tp_io_moe_host_of(const tp_config *c, tp_io_moe_host *out);

/** Parse a GPU from JSON text (trainplan GPU schema). */
tp_status tp_io_gpu_parse(const char *text, const char *origin, tp_gpu *out, tp_error *err);

/* ---- number parsing shared by the CLI and the file loaders ---- */

/**
 * Parse a whole decimal integer in [min, max]: digits, or a decimal whose
 * exact value is whole ("1e6", "2.5e3"; never through a double, so
 * "8.0000000000000001" is refused). No hex. A decimal suffix k/K, M,
 * B/G/b, T/t (1e3, 1e6, 1e9, 1e12) after a plain number is taken ("4k",
 * "1.5T"; issue 19), for reals too. field names the flag or key for the
 * message.
 */
tp_status tp_io_parse_i64(const char *field, const char *s, int64_t min, int64_t max, int64_t *out,
                          tp_error *err);
/**
 * Parse a finite double in [min, max]; rejects nan, inf, hex, trailing
 * garbage and nonzero values below 2.2e-308 (subnormal or underflowing to
 * 0); "-0" reads as 0.
 */
tp_status tp_io_parse_f64(const char *field, const char *s, double min, double max, double *out,
                          tp_error *err);
/** The same for a quantity where 0 means "none": 0, or a value in [min, max] (min > 0). */
tp_status tp_io_parse_f64_or0(const char *field, const char *s, double min, double max, double *out,
                              tp_error *err);

/* User values quoted in messages are cut as TP_ERR_VALUE_MAX says (tp.h). */
#define TP_IO_QUOTE_MAX TP_ERR_VALUE_MAX
/**
 * s, or its first TP_IO_QUOTE_MAX bytes (at a UTF-8 boundary) and "...", in
 * buf (at least TP_IO_QUOTE_MAX + 4 bytes); returns buf. The rule of
 * TP_ERR_VALUE_MAX, applied when the value is quoted, whatever the length
 * of the message.
 */
const char *tp_io_quote(const char *s, char *buf, size_t n);

/* ---- names of enums, shared by parsing and output ---- */

const char *tp_io_precision_name(tp_precision p);
const char *tp_io_schedule_name(tp_schedule s);
const char *tp_io_recompute_name(tp_recompute r);
const char *tp_io_dtype_name(tp_dtype d);
const char *tp_io_optimizer_name(const tp_optimizer *o); /* "adamw", "adamw-bf16", ... */

/* ---- output ---- */

/** The estimate JSON object (the CLI's --json contract). New reference. */
json_t *tp_io_result_json(const tp_config *c, const tp_result *r);
/**
 * The answer of `estimate --json` and /api/estimate: tp_io_result_json
 * plus "pipeline_schedule" (schedule.h), the simulated pipeline the page
 * and the SVG chart draw. New reference; NULL as tp_io_result_json.
 */
json_t *tp_io_estimate_json(const tp_config *c, const tp_result *r);
/** Human-readable estimate report. */
void tp_io_result_text(FILE *f, const tp_config *c, const tp_result *r);
/** tp_step_collectives' rows as a report section (nothing without a step time or a
 * collective). */
void tp_io_collectives_text(FILE *f, const tp_config *c, const tp_result *r);
/** The rows as a JSON array (empty without a step time); new reference, NULL on failure. */
json_t *tp_io_collectives_json(const tp_config *c, const tp_result *r);
/** The low-MFU failure mode of seed 003: each part of the step that makes it slow. */
#define TP_IO_LOW_MFU_MAX 6
typedef struct tp_io_low_mfu {
    bool low;   /* fits, has a step time, and MFU < 35% */
    double mfu; /* the predicted MFU */
    int n;
    struct {
        char cause[256];
        char fix[256];
    } item[TP_IO_LOW_MFU_MAX];
} tp_io_low_mfu;
void tp_io_low_mfu_eval(const tp_config *c, const tp_result *r, tp_io_low_mfu *out);
/** "verdict LOW MFU" with one cause and fix per line; nothing unless out->low. */
void tp_io_low_mfu_text(FILE *f, const tp_io_low_mfu *o);
/** {"low", "threshold", "causes": [{"cause", "fix"}]}; new reference, NULL on failure. */
json_t *tp_io_low_mfu_json(const tp_io_low_mfu *o);
/**
 * Out of memory, the fix (issue 19): tp_search_binding_eval of the layout,
 * the constraint that binds and the smallest single change of TP, PP, CP,
 * ZeRO or recompute that fits, the rest held (search's words for its
 * closest layouts). False, *out zeroed, when the layout fits or the
 * binding cannot be evaluated. The estimate text prints its fixes under
 * the DOES NOT FIT verdict, the estimate JSON carries it as "oom".
 */
bool tp_io_oom_fix(const tp_config *c, const tp_result *r, tp_search_binding *out);
/** The fixes of a binding: its text after the first "; " ("needs CP >= 2 or ..."). */
const char *tp_io_oom_fix_text(const tp_search_binding *b);
/**
 * {"binding", "fix", "need_tp", "need_tp_gpus", "need_pp", "need_pp_gpus",
 * "need_cp", "need_cp_gpus", "need_zero", "need_full_recompute"} of
 * tp_io_oom_fix, or JSON null when the layout fits; NULL on failure.
 */
json_t *tp_io_oom_fix_json(const tp_config *c, const tp_result *r);
/** `estimate --measured-tokens-per-s`: the achieved MFU/HFU against the prediction. */
void tp_io_measured_text(FILE *f, const tp_measured *m);
/** The same as the "measured" object of estimate --json; new reference, NULL on failure. */
json_t *tp_io_measured_json(const tp_measured *m);

/* ---- the terminal (wrap.c) ---- */

/** Human output is folded to this many columns unless COLUMNS says otherwise. */
#define TP_IO_DEFAULT_WIDTH 100
/** The narrowest width text is folded to (a smaller COLUMNS reads as this). */
#define TP_IO_MIN_WIDTH 40

/**
 * Write text[0..len) to out with every line folded to width columns
 * (at least TP_IO_MIN_WIDTH): lines that fit are written as they are;
 * longer ones break at a space and continue under their value column
 * (wrap.c says the rule).
 */
void tp_io_wrap(FILE *out, const char *text, size_t len, int width);

/* The rule of tp_scaling_shape, in the words the report and the JSON give
 * (estimate, search and plan --params; issue 19). */
#define TP_IO_SHAPE_RULE                                                                           \
    "Shape rule (tp_scaling_shape): a Llama-style dense decoder (RMSNorm, SwiGLU, RoPE, "          \
    "multi-head attention, untied embeddings) with head dimension 128 and a multiple of 8 "        \
    "heads, hidden about 128 x layers (N ~ 12 L h^2; Kaplan et al. 2020 find the loss flat "       \
    "over a wide range of this aspect ratio, and Llama 2 7B/13B use 128), FFN 8/3 x hidden "       \
    "rounded up to 256 (Llama), layers refitted so that N with embeddings is the count asked; "    \
    "vocabulary --vocab, else Llama 2's 32,000."

#endif /* TP_IO_H */
