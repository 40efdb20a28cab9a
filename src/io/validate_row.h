/* SPDX-License-Identifier: MIT */
/*
 * validate_row.h: internal to validate.c and validate_recipes.c. One row
 * of a measured-runs file as both read it, the framework it ran on, and
 * the helpers the recipe readers share with the row builder: a cell by
 * column name, a case-insensitive substring test and an assumption added
 * to the row's list.
 */
#ifndef TP_IO_VALIDATE_ROW_H
#define TP_IO_VALIDATE_ROW_H

#include <stdbool.h>
#include <stddef.h>

#include "runs_csv.h"
#include "tp/tp.h"
#include "validate.h"

typedef struct rowref {
    const tp_io_csv *csv;
    size_t row;
} rowref;

typedef enum framework {
    FW_GENERIC = 0,
    FW_MEGATRON21, /* Megatron-LM 2021 (Narayanan et al.) */
    FW_MCORE,      /* Megatron-Core, NeMo, Megatron-Bridge */
    FW_DEEPSPEED,  /* Megatron-DeepSpeed (BLOOM) */
    FW_TORCHTITAN,
    FW_TORCHTUNE,
    FW_MOSAIC,    /* llm-foundry / composer FSDP */
    FW_AUTOMODEL, /* NeMo AutoModel: PyTorch FSDP2, TE kernels, DeepEP */
    FW_COUNT
} framework;

/* The row's cell in column col ("" when the column or cell is absent). */
static inline const char *cell(const rowref *r, const char *col)
{
    return tp_io_csv_cell(r->csv, r->row, tp_io_csv_col(r->csv, col));
}

/* Case-insensitive substring. */
static inline bool contains(const char *hay, const char *needle)
{
    return tp_io__contains_ci(hay, needle);
}

/* Append one assumption to v->assume ("; "-separated; silently cut at
 * the buffer's end, as validate.c's own notes are). */
void tp_io__vnote(tp_io_vrow *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * validate_recipes.c: what a row's notes and its framework's recipes say
 * beyond the layout (node-limited routing, the flex dispatcher, eager
 * experts, padded token drop, low-precision storage, packed sequences,
 * NeMo 24.07's optimizers and fp8 weights, DualPipe), applied to c in that
 * order after build_train.
 */
void tp_io__validate_recipes(const rowref *r, framework fw, tp_io_vrow *v, tp_config *c);

#endif
