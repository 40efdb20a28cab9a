/* SPDX-License-Identifier: MIT */
/*
 * fuzz_runs_csv.c: the RFC 4180 reader (tp_io_csv_parse) and the
 * runs-dev.csv column check, then every cell accessor, over arbitrary bytes
 * (not NUL-terminated: the reader takes a length).
 */
#include "fuzz.h"
#include "runs_csv.h"

static volatile size_t fuzz_sink; /* keeps the reads */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1024 * 1024)
        return 0;
    /* a heap copy of exactly `size` bytes, so ASan sees any read past the end */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_io_csv *csv = NULL;
    if (tp_io_csv_parse(text, size, "fuzz.csv", &csv, &err) == TP_OK) {
        (void)tp_io_runs_check(csv, &err);
        size_t sum = 0;
        for (size_t c = 0; c < csv->num_cols; c++)
            sum += strlen(csv->header[c]);
        for (size_t r = 0; r <= csv->num_rows; r++)
            for (int c = -1; c <= (int)csv->num_cols && c < 64; c++)
                sum += strlen(tp_io_csv_cell(csv, r, c));
        if (csv->num_cols)
            (void)tp_io_csv_col(csv, csv->header[0]);
        (void)tp_io_csv_col(csv, "gpus");
        fuzz_sink = sum;
    }
    tp_io_csv_free(csv);
    free(text);
    return 0;
}
