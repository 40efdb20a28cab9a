/* SPDX-License-Identifier: MIT */
/*
 * deadline.c: --time-limit for the CLI's searches, as a tp_search_stop
 * callback on the monotonic clock (libtp has no clock and no globals; the
 * search polls this every TP_SEARCH_POLL_STEPS steps), and what search and
 * plan share about it: the message of a stop, and the server's refusal of
 * the flag (and of the flags that name files).
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

int cli_time_limit_print(double limit_s, const char *what, const tp_error *err)
{
    cli_say("trainplan: error: --time-limit: %g s passed; the %s %s\n", limit_s, what,
            err->message);
    return cli_exit_code(err->code);
}

tp_status cli_refuse_over_http(const cli_flag *flags, const char *const *vals, const int *refused,
                               size_t n, const char *server_files, tp_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (vals[refused[i]])
            return tp_error_set(err, TP_ERR_INVALID_ARG, flags[refused[i]].name + 2,
                                "not available over HTTP: the server %s, answers JSON only and "
                                "applies its own time limit",
                                server_files);
    return TP_OK;
}
