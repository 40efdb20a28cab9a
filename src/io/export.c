/* SPDX-License-Identifier: MIT */
/*
 * export.c: the front door of `trainplan export` (export.h): the format
 * names, and tp_io_export, which hands the plan to its engine's writer in
 * src/engines (megatron.c, torchtitan.c, deepspeed.c; engines.h). What
 * the three writers share, the header every export opens with and the
 * trainplan flags of a configuration, is src/engines/common.c.
 *
 * Invariants (every writer keeps them; tests/golden/export pins them):
 *  1. Output is a pure function of (format, config, result, opts): no time
 *     stamps, no paths, so golden files are stable.
 *  2. num_unexpressed counts exactly the lines under "Not expressible"; an
 *     export with num_unexpressed == 0 imports back to the same estimate
 *     (Megatron, DeepSpeed; tests/cli/export_test.sh checks it).
 */
#include <stdlib.h>
#include <string.h>

#include "engines.h"
#include "export.h"

static const char *const format_names[TP_EXPORT_COUNT] = {"megatron", "torchtitan", "deepspeed",
                                                          "torchtitan-toml"};

const char *tp_io_export_format_name(tp_export_format f)
{
    return (f >= 0 && f < TP_EXPORT_COUNT) ? format_names[f] : "unknown";
}

tp_status tp_io_export_format_parse(const char *name, tp_export_format *out, tp_error *err)
{
    for (int i = 0; i < TP_EXPORT_COUNT; i++) {
        if (name && strcmp(name, format_names[i]) == 0) {
            *out = (tp_export_format)i;
            return TP_OK;
        }
    }
    return tp_error_set(err, TP_ERR_UNKNOWN, "format",
                        "unknown export format \"%s\" (choose megatron, torchtitan, deepspeed "
                        "or torchtitan-toml)",
                        name ? name : "");
}

void tp_io_export_free(tp_export *e)
{
    if (!e)
        return;
    free(e->text);
    free(e->notes);
    e->text = NULL;
    e->notes = NULL;
    e->num_unexpressed = 0;
}

tp_status tp_io_export(tp_export_format f, const tp_config *c, const tp_result *r,
                       const tp_export_opts *opts, tp_export *out, tp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!c || !r)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "", "tp_io_export: no configuration");
    /* Issue 16: no writer builds a vision tower or Falcon's parallel block;
     * refused rather than written as a different (text-only, sequential) model. */
    if (c->model.vision.layers > 0)
        return tp_error_set(err, TP_ERR_CONFIG, "model.vision",
                            "the model has a vision tower (%lld blocks of width %lld) that no "
                            "%s export can express: the run would train the language model "
                            "alone",
                            (long long)c->model.vision.layers, (long long)c->model.vision.hidden,
                            tp_io_export_format_name(f));
    if (c->model.parallel_attn)
        return tp_error_set(err, TP_ERR_CONFIG, "model.parallel_attn",
                            "the model runs attention and MLP in parallel (Falcon), which no %s "
                            "export can express: the run would build sequential layers",
                            tp_io_export_format_name(f));
    if (tp_model_is_hybrid(&c->model)) /* refused, never written as another model */
        return tp_error_set(err, TP_ERR_CONFIG, "model.layer_pattern",
                            "a hybrid model (layer pattern \"%.60s\") cannot be exported: the "
                            "%s writer has no Mamba-2 or gated delta-net layers",
                            c->model.layer_pattern, tp_io_export_format_name(f));
    if (c->model.attn_output_gate || c->model.shared_expert_gate)
        return tp_error_set(err, TP_ERR_CONFIG,
                            c->model.attn_output_gate ? "model.attn_output_gate"
                                                      : "model.shared_expert_gate",
                            "a model with an attention output gate or a shared-expert gate "
                            "cannot be exported: the %s writer has neither",
                            tp_io_export_format_name(f));
    switch (f) {
    case TP_EXPORT_MEGATRON: return tp_engine_megatron_export(c, r, opts, out, err);
    case TP_EXPORT_TORCHTITAN: return tp_engine_torchtitan_export(c, r, opts, out, err);
    case TP_EXPORT_TORCHTITAN_TOML: return tp_engine_torchtitan_toml_export(c, r, opts, out, err);
    case TP_EXPORT_DEEPSPEED: return tp_engine_deepspeed_export(c, r, opts, out, err);
    case TP_EXPORT_COUNT: break;
    }
    return tp_error_set(err, TP_ERR_INVALID_ARG, "format", "export format %d is out of range",
                        (int)f);
}
