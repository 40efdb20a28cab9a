/* SPDX-License-Identifier: MIT */
/*
 * model_json.h: what the two model readers share: the trainplan model
 * JSON (model_parse.c) and the Hugging Face config.json (hf.c). Both read
 * keys with the same typed getters, word errors the same way (err->path
 * the file's key) and check the attention shape before the library does,
 * so that its error names the file's key rather than a CLI flag. Internal
 * to libtpio.
 */
#ifndef TP_IO_MODEL_JSON_H
#define TP_IO_MODEL_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "tp/tp.h"

/* Bounds on model sizes, the same as the library's (src/lib/internal.h TP__MAX_*). */

/* Set an error (its arguments may point into root), release root, return. */
#define FAIL(...)                                                                                  \
    do {                                                                                           \
        tp_status fail_ = tp_error_set(__VA_ARGS__);                                               \
        json_decref(root);                                                                         \
        return fail_;                                                                              \
    } while (0)

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        tp_status st_ = (expr);                                                                    \
        if (st_ != TP_OK) {                                                                        \
            json_decref(root);                                                                     \
            return st_;                                                                            \
        }                                                                                          \
    } while (0)

/* The file's own names for the attention-shape keys, for messages. */
typedef struct shape_keys {
    const char *hidden, *heads, *kv_heads, *head_dim;
} shape_keys;

/* The `required` argument of tp_io__get_int. */
enum { OPTIONAL = 0, REQUIRED = 1 };

/* A JSON value as the user wrote it, for messages: "abc" quoted, 1.5, true, an object. */
void tp_io__describe(const json_t *v, char *buf, size_t n);

/* Whether key is one of keys (NULL-terminated; NULL keys: none): the
 * readers' lists of the keys they read, and of the names they accept. */
bool tp_io__key_listed(const char *key, const char *const *keys);

/* Integer key in [min, max] (model_parse.c has the rules); missing_note
 * completes the "missing key" message. */
tp_status tp_io__get_int(const json_t *obj, const char *parent, const char *key, int required,
                         int64_t min, int64_t max, const char *missing_note, int64_t *out,
                         tp_error *err);

/* Boolean key; absent or null leaves *out unchanged. */
tp_status tp_io__get_bool(const json_t *obj, const char *key, bool *out, tp_error *err);

/* Real key in [min, max] (parent names it in messages, may be NULL);
 * absent or null leaves *out unchanged. */
tp_status tp_io__get_real(const json_t *obj, const char *parent, const char *key, double min,
                          double max, double *out, tp_error *err);

/* The rotary scaling object (HF "rope_scaling", the trainplan schema's
 * "rope_scaling"), absent or null for none, into m. Llama 3's is kept with
 * its factors; another kind is recorded as TP_ROPE_SCALING_OTHER. */
tp_status tp_io__get_rope_scaling(const json_t *obj, const char *key, tp_model *m, tp_error *err);

/* A model name from the origin (a path or a preset name); empty if none. */
void tp_io__name_from_origin(const char *origin, char *dst, size_t n);

/* The head-shape constraints of tp_model_validate, worded with k's keys. */
tp_status tp_io__check_shape(const tp_model *m, const shape_keys *k, tp_error *err);

/* A Hugging Face config.json object (root, released here) as *out. */
tp_status tp_io__hf_model_parse(json_t *root, const char *origin, tp_model *out, tp_error *err);

/* The end of every Hugging Face reader (hf.c): m named after the file
 * origin names (else fallback), root released, the whole model validated
 * into *out. */
tp_status tp_io__hf_finish(json_t *root, const char *origin, const char *fallback, tp_model *m,
                           tp_model *out, tp_error *err);

/* DeepSeek's native inference ModelArgs JSON (config_671B.json): root has
 * "dim", "n_layers" and "kv_lora_rank" and no "model_type". */
tp_status tp_io__deepseek_native_parse(json_t *root, const char *origin, tp_model *out,
                                       tp_error *err);

/* Vision-language configs (hf_vlm.c): mllama, qwen2_vl, qwen2_5_vl, gemma3. */
bool tp_io__hf_vlm_type(const char *model_type);
tp_status tp_io__hf_vlm_parse(json_t *root, const char *origin, tp_model *out, tp_error *err);
/* Falcon's config.json (hf_vlm.c). */
tp_status tp_io__hf_falcon_parse(json_t *root, const char *origin, tp_model *out, tp_error *err);
/* Whether hf_vlm.c reads top-level key of a config of model_type. */
bool tp_io__hf_vlm_reads(const char *model_type, const char *key);
/* The hf.c family a VLM's text_config is read as (NULL: not a VLM), and
 * whether hf_vlm.c reads key of its vision_config. */
const char *tp_io__hf_vlm_family(const char *model_type);
bool tp_io__hf_vlm_vision_reads(const char *model_type, const char *key);
/* Hybrid models (hf_hybrid.c): a nemotron_h config.json (root, released
 * here) as *out, and whether that reader reads `key`. */
tp_status tp_io__hf_nemotron_h_parse(json_t *root, const char *origin, tp_model *out,
                                     tp_error *err);
bool tp_io__hf_nemotron_h_reads(const char *key);
tp_status tp_io__hf_qwen3_next_parse(json_t *root, const char *origin, tp_model *out,
                                     tp_error *err);
bool tp_io__hf_qwen3_next_reads(const char *key);
tp_status tp_io__hf_jamba_parse(json_t *root, const char *origin, tp_model *out, tp_error *err);
bool tp_io__hf_jamba_reads(const char *key);
/* Llama 4 (hf_llama4.c): a llama4_text config.json, or a llama4 one (its
 * text_config and vision_config); whether that reader reads `key` of the
 * top level or text_config, and of vision_config. */
tp_status tp_io__hf_llama4_parse(json_t *root, const char *origin, tp_model *out, tp_error *err);
bool tp_io__hf_llama4_reads(const char *key);
bool tp_io__hf_llama4_vision_reads(const char *key);

#endif /* TP_IO_MODEL_JSON_H */
