/* SPDX-License-Identifier: MIT */
/*
 * deadline.c: --time-limit for the CLI's searches, as a tp_search_stop
 * callback on the monotonic clock (libtp has no clock and no globals; the
 * search polls this every TP_SEARCH_POLL_STEPS steps).
 */
#include <time.h>

#include "cli.h"

static double now_s(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool passed(void *ctx)
{
    const cli_deadline *d = ctx;
    return now_s() >= d->end_s;
}

void cli_deadline_start(cli_deadline *d, double limit_s, tp_search_stop *stop)
{
    d->limit_s = limit_s;
    d->end_s = now_s() + limit_s;
    stop->should_stop = passed;
    stop->ctx = d;
}
