/* SPDX-License-Identifier: MIT */
/**
 * plan_out.h: the writers of `trainplan plan` (not part of libtp): the
 * plan as a text report, JSON, Markdown, CSV and an LR-schedule series,
 * for the CLI and the server alike. The input side is plan_in.h.
 *
 * Ownership: functions returning json_t * return a new reference; it is
 * the caller's responsibility to json_decref() it.
 */
#ifndef TP_PLAN_OUT_H
#define TP_PLAN_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "tp/tp.h"

/** The plan as one JSON object (docs/plan.md); NULL if a number is not finite or on OOM. */
json_t *tp_io_plan_json(const tp_plan_in *in, const tp_plan *p);

/** The text report: one numbered section per planning step, every number with its unit. */
void tp_io_plan_text(FILE *f, const tp_plan_in *in, const tp_plan *p);

/** The same report as Markdown (headings and two-column tables) for a design document. */
void tp_io_plan_markdown(FILE *f, const tp_plan_in *in, const tp_plan *p);

/**
 * The plan as CSV: a header, then one row per phase: phase (name),
 * phase_tokens, tokens_per_step, steps (fractional), steps_whole,
 * gpu_hours, wall_s, then the estimate's columns (export.h) for the
 * phase's chosen layout. Only the header when the plan is infeasible.
 * Reals with 15 significant digits, as in the JSON.
 */
void tp_io_plan_csv(FILE *f, const tp_plan *p);

/* Most rows of the learning-rate CSV (about 40 MB); callers refuse more. */
#define TP_IO_LR_MAX_POINTS 1000000

/**
 * The learning-rate schedule as CSV "step,tokens,phase,lr": every step when
 * points is 0 or at least the number of steps, else `points` evenly spaced
 * steps plus the end of warmup and the first step of every phase. The
 * caller keeps the rows within TP_IO_LR_MAX_POINTS (tp_io_plan_lr_rows);
 * beyond it, TP_IO_LR_MAX_POINTS evenly spaced steps are written.
 */
void tp_io_plan_lr_csv(FILE *f, const tp_plan *p, int64_t points);
/** The number of evenly spaced rows tp_io_plan_lr_csv writes for points (0: every step). */
int64_t tp_io_plan_lr_rows(const tp_plan *p, int64_t points);

#endif /* TP_PLAN_OUT_H */
