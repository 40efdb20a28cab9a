/* SPDX-License-Identifier: MIT */
/* recompute_modules.h: Megatron-Core's --recompute-modules names (recompute_modules.c). */
#ifndef TP_IO_RECOMPUTE_MODULES_H
#define TP_IO_RECOMPUTE_MODULES_H

#include <stddef.h>

#include "tp/tp.h"

/** The TP_RC_* bits of rc as "core_attn,moe" (Megatron's names, fixed order) in buf. */
const char *tp_io_recompute_modules_text(unsigned rc, char *buf, size_t n);

/** Parse a comma-separated list of Megatron module names; an unknown name is an error naming it. */
tp_status tp_io_recompute_modules_parse(const char *flag, const char *text, unsigned *out,
                                        tp_error *err);

#endif
