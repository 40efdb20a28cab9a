/* SPDX-License-Identifier: MIT */
/**
 * svg.h: charts of an estimate as standalone SVG documents (no scripts, no
 * external fonts or files), to open in a browser or paste into a document.
 *
 *  - memory:   per-GPU memory by component, one stacked bar per pipeline
 *              stage shown (heaviest, first, last), against the capacity line;
 *  - time:     the step-time breakdown as one stacked bar;
 *  - schedule: the pipeline schedule, micro-batches per stage over time,
 *              forward and backward blocks, idle time (the bubble) shaded.
 *
 * Every drawn quantity also sits in data-* attributes (data-bytes,
 * data-seconds, data-fraction) so tests compare the figures with the JSON
 * output exactly instead of reading pixels.
 *
 * Ownership: each function returns a new NUL-terminated string; it is the
 * caller's responsibility to free it. NULL means out of memory.
 */
#ifndef TP_IO_SVG_H
#define TP_IO_SVG_H

#include "schedule.h" /* the simulation the schedule chart draws */
#include "tp/tp.h"

char *tp_io_svg_memory(const tp_config *c, const tp_result *r);
char *tp_io_svg_time(const tp_config *c, const tp_result *r);
char *tp_io_svg_schedule(const tp_config *c, const tp_result *r);

/** The three charts stacked in one document (what `--svg FILE` writes). */
char *tp_io_svg_report(const tp_config *c, const tp_result *r);

#endif /* TP_IO_SVG_H */
