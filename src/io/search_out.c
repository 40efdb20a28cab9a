/* SPDX-License-Identifier: MIT */
/*
 * search_out.c: the search's answer (see search_out.h): the JSON, the text
 * report, Markdown and CSV, moved out of src/cli/cmd_search.c so that the
 * server writes the same bytes in its own process instead of running the
 * CLI as a child, and every front end writes what the CLI writes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h" /* the estimate's CSV columns and Markdown rows */
#include "io.h"
#include "io_internal.h" /* tp_io_safe_text */
#include "recompute_modules.h"
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

/*
 * plan's tie-break rule, stated and never applied (issue 19): ranked by step
 * time, the simplest of the listed layouts (tp_plan_layout_simpler) within
 * TP_PLAN_TIE_TOLERANCE of #1's step, when that is not #1. The ranking stays
 * as it is; the note says which layout plan would run instead. Its index in
 * *pick, the words in buf; false when there is none (any other ranking:
 * the rule is about the fastest step).
 */
static bool simpler_within_tie(const tp_search_item *items, size_t n, tp_rank_by by, size_t *pick,
                               double *slower, char *buf, size_t len)
{
    if (by != TP_RANK_TIME || n < 2 || !items[0].result.time.computed)
        return false;
    double t0 = items[0].result.time.step_s;
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (!(items[i].result.time.step_s <= t0 * (1.0 + TP_PLAN_TIE_TOLERANCE)))
            break;
        if (tp_plan_layout_simpler(&items[i].config, &items[k].config) < 0)
            k = i;
    }
    if (k == 0 || !(t0 > 0.0))
        return false;
    const tp_train *t = &items[k].config.train;
    char vpp[48] = "";
    if (t->vpp > 1)
        snprintf(vpp, sizeof vpp, ", %lld virtual stages", (long long)t->vpp);
    *pick = k;
    *slower = items[k].result.time.step_s / t0 - 1.0;
    snprintf(buf, len,
             "a simpler layout within %.0f%% of #1's step time is listed: #%zu (TP %lld x PP %lld "
             "x CP %lld%s), %.1f%% slower; plan would run it (its tie-break, "
             "tp_plan_layout_simpler: TP within a node, no CP at short context, PP dividing the "
             "layers, fewer stages, fewer virtual stages, less CP, less TP)",
             TP_PLAN_TIE_TOLERANCE * 100.0, k + 1, (long long)t->tp, (long long)t->pp,
             (long long)t->cp, vpp, *slower * 100.0);
    return true;
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
    size_t k;
    double slower;
    char note[512];
    if (arr && simpler_within_tie(items, n, by, &k, &slower, note, sizeof note)) {
        json_t *s = json_object_get(json_array_get(arr, 0), "search");
        json_t *o = json_pack("{s:I, s:f, s:s}", "rank", (json_int_t)(k + 1), "slower_fraction",
                              slower, "note", note);
        if (!s || !o || json_object_set_new(s, "simpler_within_tie", o) != 0) {
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

tp_status tp_io_search_unfit_append(json_t *arr, const tp_search_item *close, size_t n,
                                    tp_error *err)
{
    json_t *more = tp_io_search_closest_json(close, n, err);
    if (!more)
        return err->code;
    tp_status st = json_array_extend(arr, more) == 0
                       ? TP_OK
                       : tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
    json_decref(more);
    return st;
}

/* --unfit: the closest layouts that do not fit, appended to the ranked answer. */
static tp_status append_unfit(json_t *arr, const tp_config *c, const tp_search_space *sp,
                              size_t unfit, size_t *n_unfit, tp_error *err)
{
    tp_search_item *close = calloc(TP_SEARCH_CLOSEST, sizeof *close);
    if (!close)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory");
    size_t m = 0;
    tp_status st = tp_io_search_closest(c, sp, unfit, close, &m, err);
    if (st == TP_OK)
        st = tp_io_search_unfit_append(arr, close, m, err);
    if (st == TP_OK)
        *n_unfit = m;
    free(close);
    return st;
}

tp_status tp_io_search_run_json(const tp_config *c, const tp_search_space *sp, tp_rank_by by,
                                size_t k, size_t unfit, json_t **out, bool *found, size_t *n_unfit,
                                tp_search_stats *stats, tp_error *err)
{
    *out = NULL;
    *found = false;
    size_t n_unfit_local;
    if (!n_unfit)
        n_unfit = &n_unfit_local;
    *n_unfit = 0;
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
        if (st == TP_OK && unfit > 0)
            st = append_unfit(*out, c, sp, unfit, n_unfit, err);
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

/* ---- text, Markdown and CSV ------------------------------------------- */

static const char *rc_name(tp_recompute r)
{
    return tp_io_recompute_name(r);
}

static void layout_line(FILE *f, const tp_search_item *it)
{
    const tp_train *t = &it->config.train;
    fprintf(f, "TP %lld, PP %lld", (long long)t->tp, (long long)t->pp);
    if (t->vpp > 1)
        fprintf(f, " (VPP %lld)", (long long)t->vpp);
    fprintf(f, ", CP %lld, DP %lld", (long long)t->cp, (long long)it->result.dp);
    if (it->config.model.num_experts > 0)
        fprintf(f, ", EP %lld", (long long)t->ep);
    if (t->etp > 0 && t->etp != t->tp)
        fprintf(f, ", ETP %lld", (long long)t->etp);
    char mods[96] = "";
    if (t->offload_act_layers > 0)
        snprintf(mods, sizeof mods, " (activations of %lld layers on the host)",
                 (long long)t->offload_act_layers);
    else if (t->recompute == TP_RECOMPUTE_SELECTIVE && it->config.opts.sac_ops)
        snprintf(mods, sizeof mods, " (per-op SAC)");
    else if (t->recompute == TP_RECOMPUTE_SELECTIVE && t->recompute_modules) {
        char list[80];
        snprintf(mods, sizeof mods, " (%s)",
                 tp_io_recompute_modules_text(t->recompute_modules, list, sizeof list));
    }
    char off[80] = "";
    if (t->offload_optimizer > 0.0)
        snprintf(off, sizeof off, " (optimizer %.0f%% on the host%s)", 100.0 * t->offload_optimizer,
                 t->offload_params == TP_OFFLOAD_CPU    ? ", weights too"
                 : t->offload_params == TP_OFFLOAD_NVME ? ", weights on NVMe"
                                                        : "");
    else if (t->offload_params != TP_OFFLOAD_NONE)
        snprintf(off, sizeof off, " (weights on %s)",
                 t->offload_params == TP_OFFLOAD_NVME ? "NVMe" : "the host");
    fprintf(f, ", SP %s, ZeRO-%d%s, recompute %s%s, micro-batch %lld x accumulation %lld",
            t->sp ? "on" : "off", t->zero, off, rc_name(t->recompute), mods,
            (long long)t->micro_batch, (long long)it->result.grad_accum);
}

/*
 * ", mostly PART +X s": the step-time part that grew most against #1, or ""
 * when there is none or its growth would print as zero at this many decimals.
 */
static void mostly_text(const tp_search_delta *d, int decimals, char *buf, size_t n)
{
    buf[0] = '\0';
    if (d->time_part[0] && fabs(d->time_part_s) >= 0.5 * pow(10.0, -decimals))
        snprintf(buf, n, ", mostly %s %+.*f s", d->time_part, decimals, d->time_part_s);
}

static void print_item(FILE *f, size_t rank, const tp_search_item *it, const tp_search_item *best,
                       tp_rank_by by, bool show_gpus)
{
    const tp_result *r = &it->result;
    const tp_time *tm = &r->time;
    const tp_memory *m = &r->memory;
    fprintf(f, "#%zu  ", rank);
    if (show_gpus)
        fprintf(f, "%lld GPUs: ", (long long)it->config.train.num_gpus);
    layout_line(f, it);
    fputc('\n', f);
    char tps[32];
    if (tm->computed)
        fprintf(f,
                "    step %.3f s, MFU %.1f%%, %s tokens/s, %.2f USD per 1M tokens; "
                "memory %.2f of %.2f GiB (stage %lld, %.2f GiB headroom)\n",
                tm->step_s, 100.0 * tm->mfu,
                tp_io_commas((int64_t)llround(tm->tokens_per_s), tps, sizeof tps),
                1e6 * it->cost_per_token_usd, m->total_bytes / TP_GIB, m->capacity_bytes / TP_GIB,
                (long long)m->stage, m->headroom_bytes / TP_GIB);
    else
        fprintf(f, "    step time not available; memory %.2f of %.2f GiB (stage %lld)\n",
                m->total_bytes / TP_GIB, m->capacity_bytes / TP_GIB, (long long)m->stage);
    if (tm->computed)
        fprintf(f,
                "    time (s): compute %.3f, recompute %.3f, TP %.3f, CP %.3f, EP %.3f, "
                "PP %.3f, bubble %.3f, DP %.3f, optimizer %.3f\n",
                tm->compute_s, tm->recompute_s, tm->tp_comm_s, tm->cp_comm_s, tm->ep_comm_s,
                tm->pp_comm_s, tm->bubble_s, tm->dp_comm_s, tm->optimizer_s);
    fprintf(f,
            "    memory (GiB): weights %.2f, gradients %.2f, optimizer %.2f, activations %.2f, "
            "logits %.2f, other %.2f\n",
            (m->weights_bytes + m->weights_gathered_bytes) / TP_GIB, m->grads_bytes / TP_GIB,
            m->optimizer_bytes / TP_GIB, m->activations_bytes / TP_GIB, m->logits_bytes / TP_GIB,
            (m->comm_buffers_bytes + m->framework_bytes + m->fragmentation_bytes) / TP_GIB);
    if (!best)
        return;
    tp_search_delta d;
    tp_search_delta_eval(best, it, &d);
    char mostly[96];
    mostly_text(&d, 3, mostly, sizeof mostly);
    fprintf(f, "    vs #1: ");
    if (by == TP_RANK_HEADROOM) {
        fprintf(f, "%.2f GiB less headroom", -d.headroom_bytes / TP_GIB);
        if (d.mem_part[0])
            fprintf(f, " (%s %+.2f GiB)", d.mem_part, d.mem_part_bytes / TP_GIB);
        if (tm->computed)
            fprintf(f, ", step %+.3f s", d.step_s);
    } else if (by == TP_RANK_COST && tm->computed) {
        fprintf(f, "%+.3f USD per 1M tokens, step %+.3f s (%+.1f%%)", 1e6 * d.cost_per_token_usd,
                d.step_s, 100.0 * d.step_rel);
        fputs(mostly, f);
    } else if (tm->computed) {
        fprintf(f, "%.3f s slower (%+.1f%%)", d.step_s, 100.0 * d.step_rel);
        fputs(mostly, f);
    } else {
        fprintf(f, "same predicted step (time model unavailable)");
    }
    fprintf(f, "; %s\n", d.layout[0] ? d.layout : "same layout axes");
}

/* CSV: rank, estimate's columns (export.h), then what search adds. */
static void print_csv_header(FILE *f)
{
    fputs("rank,", f);
    tp_io_csv_columns(f);
    fputs(",cost_per_token_usd,gpu_s_per_token,note", f);
    tp_io_csv_late_columns(f);
    fputc('\n', f);
}

static void print_csv_row(FILE *f, size_t rank, const tp_search_item *it, const char *note)
{
    fprintf(f, "%zu,", rank);
    tp_io_csv_fields(f, &it->config, &it->result);
    fprintf(f, ",%.15g,%.15g,", it->cost_per_token_usd, it->gpu_s_per_token);
    tp_io_csv_text(f, note ? note : "");
    tp_io_csv_late_fields(f, &it->config);
    fputc('\n', f);
}

/* Markdown: a title, the search in one line, the ranked table. */
static void md_title(FILE *f, const tp_config *c, const char *what)
{
    const tp_train *t = &c->train;
    int64_t node = tp_gpus_per_node(t, &c->gpu);
    char mname[TP_IO_SAFE_BYTES(TP_NAME_MAX)], gname[TP_IO_SAFE_BYTES(TP_NAME_MAX)];
    fprintf(f, "## trainplan search: %s on %lld x %s (%lld per node)\n\n",
            tp_io_safe_text(c->model.name, mname, sizeof mname), (long long)t->num_gpus,
            tp_io_safe_text(c->gpu.name, gname, sizeof gname), (long long)node);
    fprintf(f, "Sequence %lld tokens, global batch %lld sequences (%.0f tokens); %s.\n\n",
            (long long)t->seq_len, (long long)t->global_batch,
            (double)t->global_batch * (double)t->seq_len, what);
}

static void md_stats(FILE *f, const tp_search_stats *st)
{
    fprintf(f, "Searched %llu layouts: %llu fit, %llu do not fit, %llu pruned.\n\n",
            (unsigned long long)st->candidates, (unsigned long long)st->feasible,
            (unsigned long long)st->infeasible,
            (unsigned long long)(st->pruned_states + st->pruned_micro_batch));
}

static void md_cost(const tp_search_item *it, char *buf, size_t n)
{
    if (it->result.time.computed)
        snprintf(buf, n, "%.4f", 1e6 * it->cost_per_token_usd);
    else
        snprintf(buf, n, "-");
}

#define MD_COST_COLUMN "USD per 1M tokens"
#define MD_FOOTER                                                                                  \
    "\nGiB = 2^30 bytes; memory is the heaviest pipeline stage; MFU in percent of the GPU's "      \
    "dense peak.\n"

/* The delta of a runner-up, in one line, for CSV and Markdown. */
static void delta_text(const tp_search_item *best, const tp_search_item *it, char *buf, size_t n)
{
    tp_search_delta d;
    tp_search_delta_eval(best, it, &d);
    char part[96];
    mostly_text(&d, 4, part, sizeof part);
    snprintf(buf, n, "%+.4f s (%+.1f%%)%s; %s", d.step_s, 100.0 * d.step_rel, part,
             d.layout[0] ? d.layout : "same layout axes");
}

void tp_io_run_header(FILE *f, const tp_config *c, const char *verb)
{
    const tp_train *t = &c->train;
    int64_t node = tp_gpus_per_node(t, &c->gpu);
    char mname[TP_IO_SAFE_BYTES(TP_NAME_MAX)], gname[TP_IO_SAFE_BYTES(TP_NAME_MAX)];
    char gb[32], tok[32];
    fprintf(f,
            "%s %s%s on %lld x %s (%lld per node), sequence %lld tokens, global batch %s "
            "%s (%s tokens)\n",
            verb, tp_io_safe_text(c->model.name, mname, sizeof mname),
            tp_io_model_reshaped(&c->model) ? " (reshaped: not the preset's shape)" : "",
            (long long)t->num_gpus, tp_io_safe_text(c->gpu.name, gname, sizeof gname),
            (long long)node, (long long)t->seq_len, tp_io_commas(t->global_batch, gb, sizeof gb),
            tp_io_plural((double)t->global_batch, "sequence", "sequences"),
            tp_io_commas(t->global_batch * t->seq_len, tok, sizeof tok));
}

static void stats_text(FILE *f, const tp_search_stats *st, double wall_s, double capacity)
{
    char a[32], b[32], c[32], d[32], e[32];
    fprintf(f, "  searched %s %s in %.3f s", tp_io_commas((int64_t)st->candidates, a, sizeof a),
            tp_io_plural((double)st->candidates, "layout", "layouts"), wall_s);
    if (st->evaluated > 0 && wall_s > 0.0)
        fprintf(f, " (%.2f million evaluations/s)", 1e-6 * (double)st->evaluated / wall_s);
    fprintf(f,
            ": %s fit, %s do not fit, %s pruned (model states alone exceed %.2f GiB: "
            "%s; larger micro-batches of a layout that did not fit: %s)\n",
            tp_io_commas((int64_t)st->feasible, a, sizeof a),
            tp_io_commas((int64_t)st->infeasible, b, sizeof b),
            tp_io_commas((int64_t)(st->pruned_states + st->pruned_micro_batch), c, sizeof c),
            capacity / TP_GIB, tp_io_commas((int64_t)st->pruned_states, d, sizeof d),
            tp_io_commas((int64_t)st->pruned_micro_batch, e, sizeof e));
    if (st->batch_mismatch)
        fprintf(f,
                "  %s (GPUs, TP, PP, CP) %s skipped: no micro-batch x DP divides the "
                "global batch\n",
                tp_io_commas((int64_t)st->batch_mismatch, a, sizeof a),
                tp_io_plural((double)st->batch_mismatch, "layout", "layouts"));
}

void tp_io_search_none_text(FILE *f, const tp_config *c, const tp_search_stats *st)
{
    if (st->batch_mismatch) {
        int64_t dmin = st->batch_mismatch_min_dp; /* the enumeration's own, within the bounds */
        fprintf(f,
                "No layout: for every (TP, PP, CP) layout of %lld GPUs, DP = GPUs / (TP x PP "
                "x CP) does not divide the global batch of %lld sequences (or no allowed "
                "micro-batch does); the smallest DP any layout has is %lld, so try a global "
                "batch that is a multiple of %lld.\n",
                (long long)c->train.num_gpus, (long long)c->train.global_batch, (long long)dmin,
                (long long)dmin);
        return;
    }
    fprintf(f,
            "No valid layout within the given bounds: TP must divide the %lld heads and "
            "%lld kv heads and the %lld-GPU node, PP <= %lld layers, 2 x CP must divide "
            "the sequence, and TP x PP x CP must divide %lld GPUs.\n",
            (long long)c->model.num_heads,
            (long long)(c->model.num_kv_heads ? c->model.num_kv_heads : c->model.num_heads),
            (long long)tp_gpus_per_node(&c->train, &c->gpu), (long long)c->model.num_layers,
            (long long)c->train.num_gpus);
}

tp_status tp_io_search_closest_write(FILE *f, tp_io_search_format fmt, const tp_config *c,
                                     const tp_search_item *close, size_t n,
                                     const tp_search_stats *st, double wall_s, tp_error *err)
{
    if (fmt == TP_IO_SEARCH_CSV) {
        print_csv_header(f);
    } else if (fmt == TP_IO_SEARCH_MARKDOWN) {
        md_title(f, c, "no layout fits");
        md_stats(f, st);
        fprintf(f,
                "**No layout fits.** The %zu closest (smallest memory over capacity), with the "
                "constraint that binds:\n\n",
                n);
        tp_io_markdown_rows_header(f, "Binding constraint");
    } else {
        tp_io_run_header(f, c, "Search:");
        stats_text(f, st, wall_s, c->gpu.mem_capacity_bytes);
        if (n == 1)
            fprintf(f, "\nNo layout fits. The closest (smallest memory over capacity), with the "
                       "constraint that binds:\n");
        else
            fprintf(f,
                    "\nNo layout fits. The %zu closest (smallest memory over capacity), with the "
                    "constraint that binds:\n",
                    n);
    }
    tp_status rc = TP_OK;
    for (size_t i = 0; i < n; i++) {
        tp_search_binding b;
        rc = tp_search_binding_eval(&close[i].config, &b, err);
        if (rc != TP_OK)
            break;
        if (fmt == TP_IO_SEARCH_CSV) {
            print_csv_row(f, i + 1, &close[i], b.text);
        } else if (fmt == TP_IO_SEARCH_MARKDOWN) {
            tp_io_markdown_row(f, (int64_t)(i + 1), &close[i].config, &close[i].result, b.text);
        } else {
            fprintf(f, "%zu. ", i + 1);
            layout_line(f, &close[i]);
            fprintf(f, "\n   %s\n", b.text);
        }
    }
    if (fmt == TP_IO_SEARCH_MARKDOWN)
        fputs(MD_FOOTER, f);
    return rc;
}

static void search_csv(FILE *f, const tp_search_item *items, size_t n)
{
    print_csv_header(f);
    for (size_t i = 0; i < n; i++) {
        char note[512] = "";
        if (i)
            delta_text(&items[0], &items[i], note, sizeof note);
        print_csv_row(f, i + 1, &items[i], note);
    }
}

/*
 * --unfit: the closest layouts that do not fit, after the ranked ones, each
 * with the constraint that binds; numbered among themselves, closest first
 * (CSV: its fits column says 0). On an error the rows stop there.
 */
static tp_status unfit_write(FILE *f, tp_io_search_format fmt, const tp_search_item *close,
                             size_t n, tp_error *err)
{
    if (n == 0)
        return TP_OK;
    if (fmt == TP_IO_SEARCH_MARKDOWN) {
        fprintf(f,
                "\nThe %zu closest %s that %s not fit (--unfit; smallest memory over capacity), "
                "with the constraint that binds:\n\n",
                n, tp_io_plural((double)n, "layout", "layouts"), n == 1 ? "does" : "do");
        tp_io_markdown_rows_header(f, "Binding constraint");
    } else if (fmt == TP_IO_SEARCH_TEXT) {
        fprintf(f,
                "\nThe %zu closest %s that %s not fit (--unfit; smallest memory over capacity), "
                "with the constraint that binds:\n",
                n, tp_io_plural((double)n, "layout", "layouts"), n == 1 ? "does" : "do");
    }
    for (size_t i = 0; i < n; i++) {
        tp_search_binding b;
        tp_status rc = tp_search_binding_eval(&close[i].config, &b, err);
        if (rc != TP_OK)
            return rc;
        if (fmt == TP_IO_SEARCH_CSV) {
            print_csv_row(f, i + 1, &close[i], b.text);
        } else if (fmt == TP_IO_SEARCH_MARKDOWN) {
            tp_io_markdown_row(f, (int64_t)(i + 1), &close[i].config, &close[i].result, b.text);
        } else {
            fprintf(f, "%zu. ", i + 1);
            layout_line(f, &close[i]);
            fprintf(f, "\n   %s\n", b.text);
        }
    }
    return TP_OK;
}

static tp_status search_markdown(FILE *f, const tp_config *c, const tp_search_item *items, size_t n,
                                 tp_rank_by by, const char *by_text, const tp_search_stats *st,
                                 const tp_search_item *unfit, size_t n_unfit, tp_error *err)
{
    char what[160];
    snprintf(what, sizeof what, "ranked by %s", by_text);
    md_title(f, c, what);
    md_stats(f, st);
    tp_io_markdown_rows_header(f, MD_COST_COLUMN);
    for (size_t i = 0; i < n; i++) {
        char cost[32];
        md_cost(&items[i], cost, sizeof cost);
        tp_io_markdown_row(f, (int64_t)(i + 1), &items[i].config, &items[i].result, cost);
    }
    if (n > 1)
        fputs("\nWhat each runner-up loses against #1:\n\n", f);
    for (size_t i = 1; i < n; i++) {
        char note[512];
        delta_text(&items[0], &items[i], note, sizeof note);
        fprintf(f, "- #%zu: %s\n", i + 1, note);
    }
    size_t k;
    double slower;
    char tie[512];
    if (simpler_within_tie(items, n, by, &k, &slower, tie, sizeof tie))
        fprintf(f, "\nNote: %s.\n", tie);
    tp_status rc = unfit_write(f, TP_IO_SEARCH_MARKDOWN, unfit, n_unfit, err);
    fputs(MD_FOOTER, f);
    return rc;
}

/* What a ranking orders by, in words. */
static const char *rank_text(tp_rank_by by)
{
    if (by == TP_RANK_COST)
        return "cost per token (GPUs x step time x price / tokens)";
    if (by == TP_RANK_HEADROOM)
        return "memory headroom on the heaviest stage";
    return "predicted step time";
}

tp_status tp_io_search_write(FILE *f, tp_io_search_format fmt, const tp_config *c,
                             const tp_search_item *items, size_t n, tp_rank_by by,
                             const tp_search_stats *st, double wall_s, bool show_gpus,
                             const tp_search_item *unfit, size_t n_unfit, tp_error *err)
{
    const char *by_text = rank_text(by);
    if (fmt == TP_IO_SEARCH_CSV) {
        search_csv(f, items, n);
    } else if (fmt == TP_IO_SEARCH_MARKDOWN) {
        return search_markdown(f, c, items, n, by, by_text, st, unfit, n_unfit, err);
    } else {
        tp_io_run_header(f, c, "Search:");
        stats_text(f, st, wall_s, c->gpu.mem_capacity_bytes);
        fprintf(f, "  ranked by %s%s\n\n", by_text,
                items[0].result.time.computed ? "" : " (step-time model unavailable: ties)");
        for (size_t i = 0; i < n; i++)
            print_item(f, i + 1, &items[i], i ? &items[0] : NULL, by, show_gpus);
        size_t k;
        double slower;
        char tie[512];
        if (simpler_within_tie(items, n, by, &k, &slower, tie, sizeof tie))
            fprintf(f, "\nNote: %s.\n", tie);
    }
    return unfit_write(f, fmt, unfit, n_unfit, err);
}
