/* SPDX-License-Identifier: MIT */
/*
 * validate_stats.c: the summary of `trainplan validate` (validate.h): the
 * median, 90th percentile and maximum of the absolute relative errors, the
 * median of the signed ones, and
 * the counts of evaluated rows and right fit verdicts. validate.c predicts
 * the rows; this only sums them up.
 */
#include <math.h>
#include <stdlib.h>

#include "validate.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile by linear interpolation between closest ranks (NumPy default). */
static double percentile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    if (lo + 1 >= n)
        return sorted[n - 1];
    double frac = pos - (double)lo;
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

tp_io_vstats tp_io_validate_stats(const tp_io_vrow *rows, size_t n, bool memory)
{
    tp_io_vstats s = {0, 0.0, 0.0, 0.0, 0.0};
    double *e = malloc((n ? n : 1) * sizeof *e);
    if (!e)
        return s;
    for (size_t i = 0; i < n; i++) {
        if (memory ? rows[i].has_mem : rows[i].has_tput)
            e[s.n++] = memory ? rows[i].mem_err : rows[i].tput_err;
    }
    qsort(e, s.n, sizeof *e, cmp_double);
    s.median_signed = percentile(e, s.n, 0.5);
    for (size_t i = 0; i < s.n; i++)
        e[i] = fabs(e[i]);
    qsort(e, s.n, sizeof *e, cmp_double);
    s.median = percentile(e, s.n, 0.5);
    s.p90 = percentile(e, s.n, 0.9);
    s.max = s.n ? e[s.n - 1] : 0.0;
    free(e);
    return s;
}

void tp_io_validate_counts(const tp_io_vrow *rows, size_t n, size_t *evaluated, size_t *fit_ok)
{
    *evaluated = *fit_ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].evaluated) {
            (*evaluated)++;
            *fit_ok += rows[i].expect_fit == rows[i].pred_fit;
        }
    }
}
