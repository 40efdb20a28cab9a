/* SPDX-License-Identifier: MIT */
/**
 * tabular.h: the estimate as Markdown and CSV, and the rows that search,
 * plan and validate build their tables from (markdown.c, csv.c).
 */
#ifndef TP_IO_TABULAR_H
#define TP_IO_TABULAR_H

#include <stdint.h>
#include <stdio.h>

#include "tp/tp.h"

/** The estimate as Markdown: configuration, memory, step time, throughput. */
void tp_io_result_markdown(FILE *f, const tp_config *c, const tp_result *r);

/**
 * CSV (RFC 4180, "\n" line ends). Every column name carries its unit
 * (*_bytes, *_s, tokens_per_s, fractions in [0, 1]); reals have the 15
 * significant digits of the JSON. tp_io_csv_columns / tp_io_csv_fields
 * write the names / values without a line end, so that search and plan
 * can add their own columns around them; tp_io_csv_header / tp_io_csv_row
 * are the same plus "\n".
 */
void tp_io_csv_columns(FILE *f);
void tp_io_csv_fields(FILE *f, const tp_config *c, const tp_result *r);
void tp_io_csv_header(FILE *f);
void tp_io_csv_row(FILE *f, const tp_config *c, const tp_result *r);
/**
 * The columns added later ("etp": the expert tensor-parallel size in
 * effect, TP unless folded), each with its leading comma: every CSV
 * writes them at the very end of its row, after its own columns, so that
 * no earlier column moves.
 */
void tp_io_csv_late_columns(FILE *f);
void tp_io_csv_late_fields(FILE *f, const tp_config *c);
/** One CSV text field, quoted when it holds a comma, quote or line break. */
void tp_io_csv_text(FILE *f, const char *s);

/**
 * A Markdown table of ranked configurations: the header, then one row per
 * result (GPUs, layout, memory and headroom in GiB = 2^30 bytes, step in
 * s, tokens/s per GPU, MFU in percent). `extra` adds one last column (its
 * title in the header, its cell in each row); NULL for none.
 */
void tp_io_markdown_rows_header(FILE *f, const char *extra);
void tp_io_markdown_row(FILE *f, int64_t rank, const tp_config *c, const tp_result *r,
                        const char *extra);

#endif /* TP_IO_TABULAR_H */
