/* SPDX-License-Identifier: MIT */
/**
 * search_out.h: the output of `trainplan search`, written from libtp's
 * search results, for the CLI and the server alike: the JSON (/api/search
 * answers with these bytes; tests/http compares them with the CLI's
 * stdout), and the text report, Markdown and CSV tables.
 *
 * The answer is an array of estimate objects (tp_io_result_json), each
 * with a "search" member: rank, rank_by, cost, and against the best its
 * "vs_best" delta; when nothing fits, the closest layouts ranked
 * "closest" with the "binding" constraint instead.
 *
 * Ownership: functions returning json_t * return a new reference (the
 * caller json_decref()s it); NULL means out of memory or a non-finite
 * number in a result (a bug).
 */
#ifndef TP_IO_SEARCH_OUT_H
#define TP_IO_SEARCH_OUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tp/tp.h"

/** "time", "cost" or "headroom": the --rank name of a ranking. */
const char *tp_io_rank_name(tp_rank_by by);

/** The ranked array: items[0..n) best first (tp_search_top's output). */
json_t *tp_io_search_json(const tp_search_item *items, size_t n, tp_rank_by by);

/**
 * Nothing fits: up to k (<= TP_SEARCH_CLOSEST) closest layouts of the
 * space, searched again without pruning (pruned layouts were never
 * evaluated), into close[0..*n). The space's stop applies (TP_ERR_STOPPED).
 */
tp_status tp_io_search_closest(const tp_config *c, const tp_search_space *sp, size_t k,
                               tp_search_item *close, size_t *n, tp_error *err);

/** The closest layouts as the answer array, each with its binding constraint. */
json_t *tp_io_search_closest_json(const tp_search_item *close, size_t n, tp_error *err);

/**
 * The whole `search --json` answer: the best k (1..1000) layouts, or when
 * none fits the closest max(k, 3) (at most TP_SEARCH_CLOSEST). *found says
 * which (the CLI exits 0 or 1); stats (may be NULL) receives the search's
 * counters. With unfit > 0 (search --unfit) and something fitting, up to
 * unfit of the closest layouts that do not fit follow the ranked ones
 * (tp_io_search_closest_json's objects: "rank_by": "closest", a binding);
 * *n_unfit (may be NULL) receives how many. Errors: those of tp_search_top (TP_ERR_STOPPED included),
 * TP_ERR_NOMEM, TP_ERR_INTERNAL for a non-finite number.
 */
tp_status tp_io_search_run_json(const tp_config *c, const tp_search_space *sp, tp_rank_by by,
                                size_t k, size_t unfit, json_t **out, bool *found, size_t *n_unfit,
                                tp_search_stats *stats, tp_error *err);

/** --unfit: close[0..n) as tp_io_search_closest_json's objects, appended to arr. */
tp_status tp_io_search_unfit_append(json_t *arr, const tp_search_item *close, size_t n,
                                    tp_error *err);

/* ---- text, Markdown and CSV ---- */

typedef enum tp_io_search_format {
    TP_IO_SEARCH_TEXT = 0, /* the report: breakdowns and what each runner-up loses */
    TP_IO_SEARCH_MARKDOWN, /* a title, the counts, estimate's table (export.h), the deltas */
    TP_IO_SEARCH_CSV       /* rank, estimate's columns, cost, GPU-seconds per token, note */
} tp_io_search_format;

/**
 * The ranked layouts items[0..n) (n >= 1, best first) of a search of c
 * ranked by by; st are its counters and wall_s its duration (text only),
 * show_gpus prints each layout's GPU count (a --min-gpus search). Then
 * unfit[0..n_unfit) (search --unfit, tp_io_search_closest), numbered among
 * themselves, each with its binding constraint; CSV rows say fits 0. An
 * error evaluating a binding stops the rows and is returned.
 */
tp_status tp_io_search_write(FILE *f, tp_io_search_format fmt, const tp_config *c,
                             const tp_search_item *items, size_t n, tp_rank_by by,
                             const tp_search_stats *st, double wall_s, bool show_gpus,
                             const tp_search_item *unfit, size_t n_unfit, tp_error *err);

/**
 * Nothing fits: the closest layouts close[0..n) (tp_io_search_closest),
 * each with the constraint that binds (tp_search_binding_eval). On its
 * error the rows stop there, the table is closed and the error returned.
 */
tp_status tp_io_search_closest_write(FILE *f, tp_io_search_format fmt, const tp_config *c,
                                     const tp_search_item *close, size_t n,
                                     const tp_search_stats *st, double wall_s, tp_error *err);

/**
 * No layout to evaluate at all (st->candidates == 0): one sentence saying
 * why: DP divides no global batch (with the smallest DP the enumeration met
 * within the bounds, st->batch_mismatch_min_dp), or no layout is valid
 * within the bounds.
 */
void tp_io_search_none_text(FILE *f, const tp_config *c, const tp_search_stats *st);

#endif /* TP_IO_SEARCH_OUT_H */
