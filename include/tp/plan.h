/* SPDX-License-Identifier: MIT */
/* Part of the libtp public contract (included by tp/tp.h). */
#ifndef TP_PLAN_H
#define TP_PLAN_H
#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif /* TP_PLAN_H */
