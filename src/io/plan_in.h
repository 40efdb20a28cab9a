/* SPDX-License-Identifier: MIT */
/**
 * plan_in.h: the input side of `trainplan plan` (not part of libtp): the
 * phases of a plan from --phase specifications and from a plan file. The
 * writers are in plan_out.h.
 */
#ifndef TP_PLAN_IN_H
#define TP_PLAN_IN_H

#include "tp/tp.h"

/**
 * Parse one phase from "key=value,key=value" (the --phase flag). Keys:
 * name, tokens (count, "40e9"), seq (tokens), batch (sequences),
 * batch-tokens (tokens per step), frozen (parameters of a frozen module),
 * frozen-tokens (tokens through it), frozen-backward (1 = backward runs
 * through it, the default; 0 = nothing trainable before it). Errors:
 * TP_ERR_INVALID_ARG, err->path "phase", the message names the key.
 */
tp_status tp_io_phase_parse(const char *spec, tp_phase *out, tp_error *err);

/**
 * Load phases from a plan file: {"phases": [{"name": "4k", "seq": 4096},
 * {"name": "32k", "seq": 32768, "tokens": 40e9}]}, the same keys as
 * --phase ("batch_tokens" and "batch-tokens" both accepted), numbers or
 * strings. Appends to in->phases. Errors: TP_ERR_IO, TP_ERR_PARSE (line,
 * column), TP_ERR_CONFIG (path "phases[1].seq").
 */
tp_status tp_io_plan_file_load(const char *path, tp_plan_in *in, tp_error *err);

#endif /* TP_PLAN_IN_H */
