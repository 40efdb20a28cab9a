/* SPDX-License-Identifier: MIT */
/*
 * schedule.c: the pipeline schedule of one step, simulated (schedule.h):
 * the one simulation every writer draws from (the SVG chart of svg.c).
 *
 * Simulated, not computed from a formula. Each stage runs
 * its operations in the order of its schedule:
 *   1F1B        warm-up of min(p - s - 1, m) forwards, then one forward and
 *               one backward alternately, then the remaining backwards;
 *   GPipe       all forwards, then all backwards;
 *   interleaved Megatron-LM's order (schedules.py, forward_backward_pipelining_
 *               with_interleaving): warm-up (p - s - 1) x 2 + (v - 1) x p
 *               (everything when m = p), forward k on chunk (k mod pv) / p,
 *               backward k on chunk v - 1 - (k mod pv) / p.
 * An operation starts when its stage is free and its input is ready: the
 * forward of micro-batch i on stage s waits for stage s - 1 (or, for a
 * later chunk, for the last stage's previous chunk); the backward waits
 * for stage s + 1 (or the first stage's next chunk). Forward takes 1/v,
 * backward b/v units (b = 2, 3 with full recompute). Idle time inside the
 * makespan is the bubble; for 1F1B it is exactly (p-1)/(m+p-1) of p x
 * makespan, the textbook value (Narayanan et al. 2021, section 2.2).
 * DualPipe is not simulated (its micro-batches enter from both ends and
 * every GPU runs two stages; its bubble is the model's, time.c): the
 * writers say it is not drawn.
 */
#include <stdlib.h>
#include <string.h>

#include "io.h" /* tp_io_schedule_name */
#include "schedule.h"

void tp_io_sched_free(tp_io_sched *s)
{
    free(s->ops);
    free(s->fend);
    free(s->bend);
    memset(s, 0, sizeof *s);
}

static size_t idx(const tp_io_sched *s, int64_t c, int64_t st, int64_t i)
{
    return (size_t)((c * s->p + st) * s->m + i);
}

/* The order of operations of stage st (the header of this file). */
static void sim_order(tp_io_sched *s, tp_schedule sched, int64_t st)
{
    tp_io_sched_op *o = s->ops + st * s->n_per;
    int64_t p = s->p, m = s->m, v = s->v, n = 0;
    if (s->interleaved) {
        int64_t total = m * v;
        int64_t warm = m == p ? total : (p - st - 1) * 2 + (v - 1) * p;
        if (warm > total)
            warm = total;
        for (int64_t k = 0; k < total + total; k++) {
            /* position k of the sequence: warm-up F, then F/B pairs, then B */
            bool bwd;
            int64_t j;
            if (k < warm) {
                bwd = false;
                j = k;
            } else if (k < warm + 2 * (total - warm)) {
                int64_t q = k - warm;
                bwd = q % 2 == 1;
                j = bwd ? q / 2 : warm + q / 2;
            } else {
                bwd = true;
                j = (total - warm) + (k - warm - 2 * (total - warm));
            }
            int64_t in_group = j % (p * v);
            int64_t chunk = in_group / p;
            if (bwd)
                chunk = v - 1 - chunk;
            o[n].bwd = bwd;
            o[n].chunk = chunk;
            o[n].mb = (j / (p * v)) * p + j % p;
            n++;
        }
        return;
    }
    if (sched == TP_SCHED_GPIPE) {
        for (int64_t i = 0; i < m; i++)
            o[n++] = (tp_io_sched_op){false, 0, i, 0.0, 0.0};
        for (int64_t i = 0; i < m; i++)
            o[n++] = (tp_io_sched_op){true, 0, i, 0.0, 0.0};
        return;
    }
    int64_t warm = p - st - 1 < m ? p - st - 1 : m, f = 0, bk = 0;
    for (; f < warm; f++)
        o[n++] = (tp_io_sched_op){false, 0, f, 0.0, 0.0};
    while (f < m) {
        o[n++] = (tp_io_sched_op){false, 0, f++, 0.0, 0.0};
        o[n++] = (tp_io_sched_op){true, 0, bk++, 0.0, 0.0};
    }
    while (bk < m)
        o[n++] = (tp_io_sched_op){true, 0, bk++, 0.0, 0.0};
}

/* End time of the input an operation waits for; < 0 while not ready. */
static double dep_end(const tp_io_sched *s, int64_t st, const tp_io_sched_op *o)
{
    if (!o->bwd) {
        if (st > 0)
            return s->fend[idx(s, o->chunk, st - 1, o->mb)];
        if (o->chunk > 0)
            return s->fend[idx(s, o->chunk - 1, s->p - 1, o->mb)];
        return 0.0;
    }
    double own = s->fend[idx(s, o->chunk, st, o->mb)];
    if (own < 0.0)
        return -1.0;
    double up;
    if (st < s->p - 1)
        up = s->bend[idx(s, o->chunk, st + 1, o->mb)];
    else if (o->chunk < s->v - 1)
        up = s->bend[idx(s, o->chunk + 1, 0, o->mb)];
    else
        up = own;
    return up < 0.0 ? -1.0 : (up > own ? up : own);
}

bool tp_io_sched_run(tp_io_sched *s, tp_schedule sched, int64_t p, int64_t m, int64_t v, double tb)
{
    memset(s, 0, sizeof *s);
    if (p < 1 || m < 1 || v < 1 || p * m * v > TP_IO_SCHED_MAX_OPS / 2 || !(tb > 0.0) ||
        sched == TP_SCHED_DUALPIPE)
        return false;
    s->interleaved = v > 1 && m % p == 0 && sched != TP_SCHED_GPIPE;
    if (!s->interleaved)
        v = 1;
    s->p = p;
    s->m = m;
    s->v = v;
    s->tb = tb;
    s->n_per = 2 * m * v;
    size_t cells = (size_t)(p * m * v);
    s->ops = calloc((size_t)(p * s->n_per), sizeof *s->ops);
    s->fend = malloc(cells * sizeof *s->fend);
    s->bend = malloc(cells * sizeof *s->bend);
    if (!s->ops || !s->fend || !s->bend) {
        tp_io_sched_free(s);
        return false;
    }
    for (size_t i = 0; i < cells; i++)
        s->fend[i] = s->bend[i] = -1.0;
    for (int64_t st = 0; st < p; st++)
        sim_order(s, sched, st);
    int64_t *next = calloc((size_t)p, sizeof *next);
    double *free_at = calloc((size_t)p, sizeof *free_at);
    if (!next || !free_at) {
        free(next);
        free(free_at);
        tp_io_sched_free(s);
        return false;
    }
    double unit_f = 1.0 / (double)v, unit_b = tb / (double)v;
    int64_t left = p * s->n_per;
    while (left > 0) {
        bool progress = false;
        for (int64_t st = 0; st < p; st++) {
            while (next[st] < s->n_per) {
                tp_io_sched_op *o = &s->ops[st * s->n_per + next[st]];
                double ready = dep_end(s, st, o);
                if (ready < 0.0)
                    break;
                o->start = ready > free_at[st] ? ready : free_at[st];
                o->end = o->start + (o->bwd ? unit_b : unit_f);
                free_at[st] = o->end;
                (o->bwd ? s->bend : s->fend)[idx(s, o->chunk, st, o->mb)] = o->end;
                next[st]++;
                left--;
                progress = true;
            }
        }
        if (!progress) {
            s->stalled = true;
            break;
        }
    }
    for (int64_t st = 0; st < p; st++)
        if (free_at[st] > s->makespan)
            s->makespan = free_at[st];
    free(next);
    free(free_at);
    return true;
}

double tp_io_sched_idle(const tp_io_sched *s)
{
    if (!(s->makespan > 0.0))
        return 0.0;
    double busy = 0.0;
    for (int64_t i = 0; i < s->p * s->n_per; i++)
        busy += s->ops[i].end - s->ops[i].start;
    return 1.0 - busy / ((double)s->p * s->makespan);
}

double tp_io_schedule_bubble(tp_schedule sched, int64_t p, int64_t m, int64_t v,
                             double backward_units)
{
    tp_io_sched s;
    if (!tp_io_sched_run(&s, sched, p, m, v, backward_units))
        return -1.0;
    double b = s.stalled ? -1.0 : tp_io_sched_idle(&s);
    tp_io_sched_free(&s);
    return b;
}

void tp_io_sched_of(const tp_config *c, const tp_result *r, int64_t *p, int64_t *m, int64_t *v,
                    double *tb)
{
    const tp_train *t = &c->train;
    *p = t->pp;
    int64_t runs = r->schedule_runs > 1 ? r->schedule_runs : 1;
    *m = r->grad_accum >= runs ? r->grad_accum / runs : 1;
    *v = t->schedule == TP_SCHED_INTERLEAVED && t->vpp > 1 ? t->vpp : 1;
    *tb = t->recompute == TP_RECOMPUTE_FULL ? 3.0 : 2.0;
}

/*
 * The micro-batches the JSON draws: all up to TP_IO_SCHED_JSON_MICROBATCHES,
 * else as many whole groups of p as fit (at least one), so that an
 * interleaved schedule (m % p == 0) stays interleaved when drawn.
 */
static int64_t json_microbatches(int64_t p, int64_t m)
{
    const int64_t cap = TP_IO_SCHED_JSON_MICROBATCHES;
    if (m <= cap || m % p != 0)
        return m <= cap ? m : cap;
    return p >= cap ? p : cap / p * p;
}

static json_t *op_json(const tp_io_sched_op *o)
{
    return json_pack("{s:b, s:I, s:I, s:f, s:f}", "backward", o->bwd, "microbatch",
                     (json_int_t)o->mb, "chunk", (json_int_t)o->chunk, "start", o->start, "end",
                     o->end);
}

/* Per stage, its operations in order; NULL on OOM. */
static json_t *stages_json(const tp_io_sched *s)
{
    json_t *stages = json_array();
    for (int64_t st = 0; stages && st < s->p; st++) {
        json_t *row = json_array();
        for (int64_t k = 0; row && k < s->n_per; k++) {
            const tp_io_sched_op *o = &s->ops[st * s->n_per + k];
            if (o->end <= o->start) /* not run: the order stalled before it */
                continue;
            if (json_array_append_new(row, op_json(o)) != 0) {
                json_decref(row);
                row = NULL;
            }
        }
        if (!row || json_array_append_new(stages, row) != 0) {
            json_decref(stages);
            stages = NULL;
        }
    }
    return stages;
}

json_t *tp_io_schedule_json(const tp_config *c, const tp_result *r)
{
    int64_t p, m, v;
    double tb;
    tp_io_sched_of(c, r, &p, &m, &v, &tb);
    int64_t m_draw = json_microbatches(p, m);
    tp_io_sched s;
    memset(&s, 0, sizeof s);
    bool drawn =
        p <= TP_IO_SCHED_JSON_STAGES && tp_io_sched_run(&s, c->train.schedule, p, m_draw, v, tb);
    json_t *stages = drawn ? stages_json(&s) : json_array();
    json_t *j =
        stages ? json_pack("{s:s, s:I, s:I, s:I, s:I, s:f, s:b, s:b, s:f, s:f, s:o}", "schedule",
                           tp_io_schedule_name(c->train.schedule), "stages", (json_int_t)p,
                           "microbatches", (json_int_t)m, "microbatches_drawn",
                           (json_int_t)(drawn ? m_draw : 0), "virtual_stages",
                           (json_int_t)(drawn ? s.v : v), "backward_units", tb, "drawn", drawn,
                           "complete", drawn && !s.stalled, "makespan", s.makespan,
                           "bubble_fraction", drawn ? tp_io_sched_idle(&s) : 0.0, "ops", stages)
               : NULL;
    if (j && r->schedule_runs > 1 && /* --local-batch only: older readers unchanged */
        json_object_set_new(j, "runs", json_integer((json_int_t)r->schedule_runs)) != 0) {
        json_decref(j);
        j = NULL;
    }
    if (drawn)
        tp_io_sched_free(&s);
    return j;
}
