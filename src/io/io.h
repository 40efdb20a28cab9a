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

/** Parse a model from JSON text (trainplan schema or HF config.json). */
tp_status tp_io_model_parse(const char *text, const char *origin, tp_model *out, tp_error *err);

/** Load a GPU: a preset name ("h100-sxm") or a GPU JSON file. Fills eff defaults. */
tp_status tp_io_gpu_load(const char *name_or_path, tp_gpu *out, tp_error *err);

/*
 * A hardware profile (hwprofile.c, docs/hardware.md) applied to *g: the
 * kernel-level GEMM model's SM count, tile and measured matmul rates, and
 * where measured the HBM and intra-node collective fractions. *g is
 * unchanged on error (TP_ERR_CONFIG naming the key, TP_ERR_IO, TP_ERR_PARSE).
 */
tp_status tp_io_hw_profile_parse(const char *text, tp_gpu *g, tp_error *err);
tp_status tp_io_hw_profile_load(const char *path, tp_gpu *g, tp_error *err);

/** Parse a GPU from JSON text (trainplan GPU schema). */
tp_status tp_io_gpu_parse(const char *text, const char *origin, tp_gpu *out, tp_error *err);

/* ---- number parsing shared by the CLI and the file loaders ---- */

/**
 * Parse a whole decimal integer in [min, max]: digits, or a decimal whose
 * exact value is whole ("1e6", "2.5e3"; never through a double, so
 * "8.0000000000000001" is refused). No hex, no K/M/G suffixes. field
 * names the flag or key for the message.
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

/* User values quoted in messages are cut to this many bytes, then "...". */
#define TP_IO_QUOTE_MAX 60
/** s, or its first TP_IO_QUOTE_MAX bytes (at a UTF-8 boundary) and "...", in buf; returns buf. */
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

#endif /* TP_IO_H */
