/* SPDX-License-Identifier: MIT */
/**
 * explain_out.h: the output of `trainplan explain` (not part of libtp),
 * written from libtp's results for the CLI and any other front end: the
 * seeds' ordered recipe (tp_recipe_run) narrated with the numbers of each
 * step and compared with the search's best (tp_search_top ranked by time),
 * or the same numbers as JSON (the --json contract, docs/cli.md).
 *
 * Ownership: functions returning json_t * return a new reference; it is
 * the caller's responsibility to json_decref() it.
 */
#ifndef TP_IO_EXPLAIN_OUT_H
#define TP_IO_EXPLAIN_OUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tp/tp.h"

/**
 * {"recipe": {...}, "recipe_layout": estimate, "search_best": estimate};
 * best is the search's best layout, or NULL when none fits ("search_best"
 * is then absent). NULL on OOM or a non-finite number in a result (a bug).
 */
json_t *tp_io_explain_json(const tp_recipe *r, const tp_search_item *best);

/**
 * The narration: a title line (model, cluster, batch), the recipe's nine
 * steps for configuration c, then why the search's best (NULL: none fits)
 * is faster, which costs the recipe ignored.
 */
void tp_io_explain_text(FILE *f, const tp_config *c, const tp_recipe *r,
                        const tp_search_item *best);

/**
 * What explain computes: the recipe (tp_recipe_run) into *r and the
 * search's best by step time (tp_search_top over sp, which may carry a
 * stop) into *best, *n = 1, or *n = 0 when no layout fits. Errors: those
 * of tp_recipe_run and tp_search_top (TP_ERR_STOPPED included).
 */
tp_status tp_io_explain_run(const tp_config *c, const tp_search_space *sp, tp_recipe *r,
                            tp_search_item *best, size_t *n, tp_error *err);

/**
 * The whole `explain --json` answer (what /api/explain replies): run, then
 * tp_io_explain_json. *fits says whether the recipe's layout fits (the CLI
 * exits 0 or 1). Errors: those of tp_io_explain_run, TP_ERR_NOMEM,
 * TP_ERR_INTERNAL for a non-finite number.
 */
tp_status tp_io_explain_run_json(const tp_config *c, const tp_search_space *sp, json_t **out,
                                 bool *fits, tp_error *err);

#endif /* TP_IO_EXPLAIN_OUT_H */
