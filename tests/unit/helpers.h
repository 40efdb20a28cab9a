/* SPDX-License-Identifier: MIT */
/* cmocka helpers shared by the unit tests. */
#ifndef TP_TEST_HELPERS_H
#define TP_TEST_HELPERS_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

/* Relative comparison with a description (GSL gsl_test_rel style). */
#define assert_rel(got, want, rtol)                                                                \
    do {                                                                                           \
        double g_ = (double)(got), w_ = (double)(want);                                            \
        double d_ = fabs(g_ - w_) / (fabs(w_) > 0.0 ? fabs(w_) : 1.0);                             \
        if (!(d_ <= (rtol))) {                                                                     \
            print_error("%s = %.9g, want %.9g (rel err %.3g > %.3g)\n", #got, g_, w_, d_,          \
                        (double)(rtol));                                                           \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

#define assert_le_rel(a, b)                                                                        \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b);                                                 \
        if (!(a_ <= b_ * (1.0 + 1e-12) + 1e-9)) {                                                  \
            print_error("%s = %.9g > %s = %.9g\n", #a, a_, #b, b_);                                \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

#endif
