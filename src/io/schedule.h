/* SPDX-License-Identifier: MIT */
/**
 * schedule.h: the pipeline schedule of one training step, simulated
 * operation by operation (not part of libtp): per stage, each forward and
 * backward of each micro-batch (and model chunk, interleaved) with its
 * start and end time. The charts (svg.c) draw it; schedule.c's header
 * gives the orders and the dependencies.
 *
 * Ownership: tp_io_sched_run allocates; free with tp_io_sched_free.
 */
#ifndef TP_IO_SCHEDULE_H
#define TP_IO_SCHEDULE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "tp/tp.h"

/* Most operations one simulation holds (p x m x v x 2). */
#define TP_IO_SCHED_MAX_OPS 65536

typedef struct tp_io_sched_op {
    bool bwd;          /* backward, else forward */
    int64_t chunk, mb; /* model chunk on this GPU (0..v-1) and micro-batch (0..m-1) */
    double start, end; /* time in forward passes of one micro-batch through a stage */
} tp_io_sched_op;

typedef struct tp_io_sched {
    int64_t p, m, v;     /* stages, micro-batches, chunks (1 unless interleaving applies) */
    double tb;           /* backward units per micro-batch per stage */
    tp_io_sched_op *ops; /* p rows of n_per operations, each row in its stage's order */
    int64_t n_per;       /* 2 m v */
    double *fend, *bend; /* scratch: end time of F / B (chunk, stage, mb); -1 = not yet */
    double makespan;     /* end of the last operation */
    bool stalled;        /* the order deadlocked: the operations after it stay at 0 */
    bool interleaved;
} tp_io_sched;

/**
 * Simulate schedule sched for p stages, m micro-batches, v virtual stages
 * per GPU (interleaving applies when v > 1, m % p == 0 and sched is not
 * GPipe), forward 1/v and backward tb/v units. False when p, m, v < 1,
 * tb <= 0, p x m x v > TP_IO_SCHED_MAX_OPS / 2, sched is DualPipe (not
 * simulated: its two directions share every GPU) or out of memory (*s is
 * then empty); else free with tp_io_sched_free.
 */
bool tp_io_sched_run(tp_io_sched *s, tp_schedule sched, int64_t p, int64_t m, int64_t v, double tb);
void tp_io_sched_free(tp_io_sched *s);

/** The idle share of p x makespan: the bubble, as drawn. */
double tp_io_sched_idle(const tp_io_sched *s);

/**
 * The schedule of an estimate: p = PP, m = the micro-batches of one run of
 * the schedule (the step's under one run; tp_result.schedule_runs runs of m
 * under a local batch, each filling and draining the pipeline), v = VPP
 * under the interleaved schedule (else 1), backward 2 forward passes (3
 * with full recompute).
 */
void tp_io_sched_of(const tp_config *c, const tp_result *r, int64_t *p, int64_t *m, int64_t *v,
                    double *tb);

/* Most stages and micro-batches the schedule JSON draws (the page's diagram). */
#define TP_IO_SCHED_JSON_STAGES 64
#define TP_IO_SCHED_JSON_MICROBATCHES 32

/**
 * The "pipeline_schedule" object of estimate's answer (docs/cli.md): the
 * estimate's schedule simulated for its first micro-batches, per stage
 * each operation with its start and end. New reference; NULL on OOM.
 */
json_t *tp_io_schedule_json(const tp_config *c, const tp_result *r);

/**
 * The bubble of the simulated schedule (tp_io_sched_idle) with backward
 * `backward_units`, or a negative value when the arguments are out of
 * range (p, m, v >= 1; p * m * v <= TP_IO_SCHED_MAX_OPS / 2) or the order
 * stalls.
 */
double tp_io_schedule_bubble(tp_schedule s, int64_t p, int64_t m, int64_t v, double backward_units);

#endif /* TP_IO_SCHEDULE_H */
