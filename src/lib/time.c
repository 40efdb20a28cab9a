/* SPDX-License-Identifier: MIT */
/* time.c: step-time model. Not computed yet (issue 3). */
#include <string.h>

#include "internal.h"

void tp__step_time(const tp_config *c, tp_result *r)
{
    (void)c; /* unused until the step-time model lands */
    memset(&r->time, 0, sizeof r->time);
    r->time.computed = false;
    r->time.bottleneck = "";
}
