/* SPDX-License-Identifier: MIT */
/*
 * search_out.c: the search's JSON answer (see search_out.h), moved out of
 * src/cli/cmd_search.c so that the server writes the same bytes in its own
 * process instead of running the CLI as a child.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "search_out.h"

static const char *const rank_names[] = {"time", "cost", "headroom"}; /* tp_rank_by */

const char *tp_io_rank_name(tp_rank_by by)
{
    return (unsigned)by < sizeof rank_names / sizeof rank_names[0] ? rank_names[by] : "time";
}

static int delta_json(json_t *s, const tp_search_item *best, const tp_search_item *it)
{
    tp_search_delta d;
    tp_search_delta_eval(best, it, &d);
    json_t *v = json_object();
    if (!v)
        return 1;
    int bad = 0;
    bad |= json_object_set_new(v, "step_s", json_real(d.step_s));
    bad |= json_object_set_new(v, "step_rel", json_real(d.step_rel));
    bad |= json_object_set_new(v, "time_part", json_string(d.time_part));
    bad |= json_object_set_new(v, "time_part_s", json_real(d.time_part_s));
    bad |= json_object_set_new(v, "mem_part", json_string(d.mem_part));
    bad |= json_object_set_new(v, "mem_part_bytes", json_real(d.mem_part_bytes));
    bad |= json_object_set_new(v, "headroom_bytes", json_real(d.headroom_bytes));
    bad |= json_object_set_new(v, "cost_per_token_usd", json_real(d.cost_per_token_usd));
    bad |= json_object_set_new(v, "layout", json_string(d.layout));
    bad |= json_object_set_new(s, "vs_best", v);
    return bad;
}

/* One layout: the estimate object plus "search" (rank, and vs_best or binding). */
static json_t *item_json(const tp_search_item *it, size_t rank, const char *rank_by,
                         const tp_search_item *best, const char *binding)
{
    json_t *j = tp_io_result_json(&it->config, &it->result);
    if (!j)
        return NULL;
    json_t *s = json_object();
    if (!s) {
        json_decref(j);
        return NULL;
    }
    int bad = 0;
    bad |= json_object_set_new(s, "rank", json_integer((json_int_t)rank));
    bad |= json_object_set_new(s, "rank_by", json_string(rank_by));
    bad |= json_object_set_new(s, "cost_per_token_usd", json_real(it->cost_per_token_usd));
    bad |= json_object_set_new(s, "gpu_s_per_token", json_real(it->gpu_s_per_token));
    if (best)
        bad |= delta_json(s, best, it);
    if (binding)
        bad |= json_object_set_new(s, "binding", json_string(binding));
    bad |= json_object_set_new(j, "search", s);
    if (bad) {
        json_decref(j);
        return NULL;
    }
    return j;
}

json_t *tp_io_search_json(const tp_search_item *items, size_t n, tp_rank_by by)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        json_t *j = item_json(&items[i], i + 1, tp_io_rank_name(by), i ? &items[0] : NULL, NULL);
        if (!j || json_array_append_new(arr, j) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr;
}

tp_status tp_io_search_closest(const tp_config *c, const tp_search_space *sp0, size_t k,
                               tp_search_item *close, size_t *n, tp_error *err)
{
    tp_search_space sp = *sp0;
    sp.no_prune = true;
    sp.include_infeasible = false;
    *n = 0;
    tp_search *s;
    tp_status st = tp_search_new(c, &sp, &s, err);
    if (st != TP_OK)
        return st;
    while (tp_search_next(s, NULL))
        ;
    st = tp_search_status(s, err);
    if (st == TP_OK)
        *n = tp_search_closest(s, close, k < TP_SEARCH_CLOSEST ? k : TP_SEARCH_CLOSEST);
    tp_search_free(s);
    return st;
}

json_t *tp_io_search_closest_json(const tp_search_item *close, size_t n, tp_error *err)
{
    json_t *arr = json_array();
    if (!arr) {
        tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        tp_search_binding b;
        if (tp_search_binding_eval(&close[i].config, &b, err) != TP_OK) {
            json_decref(arr);
            return NULL;
        }
        json_t *j = item_json(&close[i], i + 1, "closest", NULL, b.text);
        if (!j || json_array_append_new(arr, j) != 0) {
            json_decref(arr);
            tp_error_set(err, TP_ERR_INTERNAL, "",
                         "a result holds a non-finite number (or memory ran out)");
            return NULL;
        }
    }
    return arr;
}

tp_status tp_io_search_run_json(const tp_config *c, const tp_search_space *sp, tp_rank_by by,
                                size_t k, json_t **out, bool *found, tp_search_stats *stats,
                                tp_error *err)
{
    *out = NULL;
    *found = false;
    tp_search_stats st_local;
    if (!stats)
        stats = &st_local;
    if (k < 1 || k > 1000)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "top", "%zu is out of range [1, 1000]", k);
    tp_search_item *items = calloc(k, sizeof *items);
    if (!items)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
    size_t n = 0;
    tp_status st = tp_search_top(c, sp, by, items, k, &n, stats, err);
    if (st == TP_OK && n > 0) {
        *found = true;
        *out = tp_io_search_json(items, n, by);
        if (!*out)
            st = tp_error_set(err, TP_ERR_INTERNAL, "",
                              "internal: a result holds a non-finite number");
    } else if (st == TP_OK && stats->candidates == 0) {
        *out = json_array(); /* no valid layout at all: the CLI explains on stderr */
        if (!*out)
            st = tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
    } else if (st == TP_OK) {
        size_t m = 0;
        tp_search_item *close = calloc(TP_SEARCH_CLOSEST, sizeof *close);
        if (!close)
            st = tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
        if (st == TP_OK)
            st = tp_io_search_closest(c, sp, k < 3 ? 3 : k, close, &m, err);
        if (st == TP_OK && !(*out = tp_io_search_closest_json(close, m, err)))
            st = err ? err->code : TP_ERR_INTERNAL;
        free(close);
    }
    free(items);
    return st;
}
