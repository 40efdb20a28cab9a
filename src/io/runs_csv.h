/* SPDX-License-Identifier: MIT */
/**
 * runs_csv.h: an RFC 4180 CSV reader, and the columns of a measured-runs
 * file (data/runs/runs-dev.csv) that `trainplan validate` reads.
 *
 * Grammar (RFC 4180): records end in CRLF or LF (the last one may be
 * missing); fields are separated by commas; a field is either unquoted (no
 * '"', ',' or line break in it) or enclosed in double quotes, where '""'
 * stands for one '"' and commas and line breaks are data. The first record
 * is the header. Every record must have as many fields as the header.
 * Leniencies: a UTF-8 byte-order mark before the header is skipped; an
 * empty line (no characters at all) is skipped.
 *
 * Errors: TP_ERR_PARSE with err->line / err->column (1-based, of the
 * offending character; a record's fields may span lines) and a message
 * naming the problem: unterminated quoted field (the line where it
 * opened), a character after a closing quote, a quote inside an unquoted
 * field, a record with the wrong number of fields, a NUL byte, an empty
 * file. TP_ERR_IO when the file cannot be read, TP_ERR_NOMEM.
 *
 * Limits: at most TP_IO_CSV_MAX_ROWS data records and TP_IO_CSV_MAX_CELLS
 * fields in all (the header's included), each an error at the record or
 * field that passes it; a file of runs has a few hundred rows of 40
 * columns. They bound the memory a hostile file costs (about 40 bytes a
 * field) where the 64 MiB file limit alone would allow 3 GB.
 *
 * Ownership: tp_io_csv_read / tp_io_csv_parse return a new table in *out;
 * it is the caller's responsibility to free it with tp_io_csv_free. Cell
 * strings live as long as the table.
 */
#ifndef TP_RUNS_CSV_H
#define TP_RUNS_CSV_H

#include <stddef.h>

#include "tp/tp.h"

#define TP_IO_CSV_MAX_ROWS 100000
#define TP_IO_CSV_MAX_ROWS_TEXT "100,000"
#define TP_IO_CSV_MAX_CELLS 1000000
#define TP_IO_CSV_MAX_CELLS_TEXT "1,000,000"

typedef struct tp_io_csv {
    size_t num_cols;
    char **header;   /* num_cols column names */
    size_t num_rows; /* data records (the header not counted) */
    char **cells;    /* num_rows * num_cols strings, row-major; "" when empty */
    int *line;       /* 1-based line on which each data record starts */
} tp_io_csv;

/** Read and parse a CSV file (at most 64 MiB). */
tp_status tp_io_csv_read(const char *path, tp_io_csv **out, tp_error *err);

/** Parse CSV text of `len` bytes; origin names it in messages (may be NULL). */
tp_status tp_io_csv_parse(const char *text, size_t len, const char *origin, tp_io_csv **out,
                          tp_error *err);

/** Free a table; NULL is a no-op. */
void tp_io_csv_free(tp_io_csv *csv);

/** Index of the column named `name` (exact match), or -1. */
int tp_io_csv_col(const tp_io_csv *csv, const char *name);

/** Cell of data record `row` in column `col`; "" when col < 0 or out of range. */
const char *tp_io_csv_cell(const tp_io_csv *csv, size_t row, int col);

/** The columns of runs-dev.csv, in file order, NULL-terminated. */
extern const char *const tp_io_runs_columns[];

/**
 * Check that every runs-dev.csv column is in the header. On failure
 * TP_ERR_CONFIG, err->path = the missing column, err->line = 1.
 */
tp_status tp_io_runs_check(const tp_io_csv *csv, tp_error *err);

#endif /* TP_RUNS_CSV_H */
