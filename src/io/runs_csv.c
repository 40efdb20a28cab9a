/* SPDX-License-Identifier: MIT */
/*
 * runs_csv.c: RFC 4180 CSV reader (grammar and error contract in
 * runs_csv.h) and the column list of the measured-runs file.
 *
 * One pass over the text with a small state machine: the current field is
 * built in a growing buffer, finished fields are appended to a growing
 * array of strings, and every record is checked against the header's field
 * count as it ends. Positions are tracked for messages: line and column of
 * every character (a quoted field may span lines), and the line where the
 * current record and the current quoted field started.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "runs_csv.h"

const char *const tp_io_runs_columns[] = {"id",
                                          "source",
                                          "model_name",
                                          "params_reported",
                                          "layers",
                                          "hidden",
                                          "heads",
                                          "kv_heads",
                                          "ffn_hidden",
                                          "vocab",
                                          "seq_len",
                                          "moe_experts",
                                          "moe_topk",
                                          "gpu_type",
                                          "num_gpus",
                                          "gpus_per_node",
                                          "interconnect",
                                          "precision",
                                          "tp",
                                          "pp",
                                          "dp",
                                          "cp",
                                          "ep",
                                          "sp",
                                          "zero_or_fsdp",
                                          "recompute",
                                          "micro_batch",
                                          "global_batch",
                                          "interleave_v",
                                          "measured_tflops_per_gpu",
                                          "tflops_basis",
                                          "peak_tflops_for_mfu",
                                          "measured_mfu",
                                          "measured_hfu",
                                          "measured_tokens_per_sec",
                                          "tokens_per_sec_unit",
                                          "measured_step_time_s",
                                          "measured_memory_gb_per_gpu",
                                          "memory_metric",
                                          "notes",
                                          NULL};

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static int buf_put(buf *b, char ch)
{
    if (b->len + 1 >= b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    b->p[b->len++] = ch;
    b->p[b->len] = '\0';
    return 0;
}

typedef struct strvec {
    char **v;
    size_t len, cap;
} strvec;

static int vec_push(strvec *s, char *str)
{
    if (s->len == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        char **v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->len++] = str;
    return 0;
}

typedef struct intvec {
    int *v;
    size_t len, cap;
} intvec;

static int ivec_push(intvec *s, int x)
{
    if (s->len == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        int *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->len++] = x;
    return 0;
}

static void free_strings(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void tp_io_csv_free(tp_io_csv *csv)
{
    if (!csv)
        return;
    free_strings(csv->header, csv->num_cols);
    free_strings(csv->cells, csv->num_rows * csv->num_cols);
    free(csv->line);
    free(csv);
}

static tp_status parse_error(tp_error *err, const char *origin, int line, int col, const char *what)
{
    tp_error_set(err, TP_ERR_PARSE, "csv", "%s:%d:%d: %s", origin ? origin : "<csv>", line, col,
                 what);
    if (err) {
        err->line = line;
        err->column = col;
    }
    return TP_ERR_PARSE;
}

typedef struct parser {
    strvec fields;      /* all finished fields, header first */
    intvec rec_line;    /* start line of every record (header first) */
    size_t cur_fields;  /* fields in the record being read */
    size_t header_cols; /* 0 until the header is complete */
    buf field;
} parser;

/* The current field is complete: move it to the list (-2: over the cell limit). */
static int finish_field(parser *ps)
{
    if (ps->fields.len >= TP_IO_CSV_MAX_CELLS)
        return -2;
    char *s = ps->field.p ? ps->field.p : strdup("");
    ps->field.p = NULL;
    ps->field.len = ps->field.cap = 0;
    if (!s || vec_push(&ps->fields, s) != 0) {
        free(s);
        return -1;
    }
    ps->cur_fields++;
    return 0;
}

tp_status tp_io_csv_parse(const char *text, size_t len, const char *origin, tp_io_csv **out,
                          tp_error *err)
{
    *out = NULL;
    parser ps;
    memset(&ps, 0, sizeof ps);
    size_t i = 0;
    if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        i = 3; /* UTF-8 byte-order mark */
    int line = 1, col = 1;
    tp_status st = TP_OK;
    enum { REC_START, FIELD_START, UNQUOTED, QUOTED, AFTER_QUOTE } state = REC_START;
    int quote_line = 0, quote_col = 0, rec_line = 1;

#define FAIL_PARSE(l, c, msg)                                                                      \
    do {                                                                                           \
        st = parse_error(err, origin, l, c, msg);                                                  \
        goto done;                                                                                 \
    } while (0)
#define OOM()                                                                                      \
    do {                                                                                           \
        st = tp_error_set(err, TP_ERR_NOMEM, "csv", "out of memory reading %s",                    \
                          origin ? origin : "<csv>");                                              \
        goto done;                                                                                 \
    } while (0)

    /* A field is complete: keep it, or fail on memory or the cell limit. */
#define FINISH_FIELD()                                                                             \
    do {                                                                                           \
        int rc_ = finish_field(&ps);                                                               \
        if (rc_ == -2)                                                                             \
            FAIL_PARSE(line, col,                                                                  \
                       "more than " TP_IO_CSV_MAX_CELLS_TEXT " cells (a limit of "                 \
                       "trainplan's CSV reader)");                                                 \
        if (rc_ != 0)                                                                              \
            OOM();                                                                                 \
    } while (0)

    /* End of a record: check its field count against the header. */
#define END_RECORD()                                                                               \
    do {                                                                                           \
        FINISH_FIELD();                                                                            \
        if (ps.header_cols == 0) {                                                                 \
            ps.header_cols = ps.cur_fields;                                                        \
        } else if (ps.cur_fields != ps.header_cols) {                                              \
            char msg_[160];                                                                        \
            snprintf(msg_, sizeof msg_, "record has %zu fields, the header has %zu",               \
                     ps.cur_fields, ps.header_cols);                                               \
            FAIL_PARSE(rec_line, 1, msg_);                                                         \
        }                                                                                          \
        if (ps.rec_line.len > TP_IO_CSV_MAX_ROWS)                                                  \
            FAIL_PARSE(rec_line, 1,                                                                \
                       "more than " TP_IO_CSV_MAX_ROWS_TEXT " records (a limit of "                \
                       "trainplan's CSV reader)");                                                 \
        if (ivec_push(&ps.rec_line, rec_line) != 0)                                                \
            OOM();                                                                                 \
        ps.cur_fields = 0;                                                                         \
    } while (0)

    for (; i < len; i++) {
        char ch = text[i];
        if (ch == '\0')
            FAIL_PARSE(line, col, "NUL byte in the file");
        bool is_cr = ch == '\r', is_lf = ch == '\n';
        bool crlf = is_cr && i + 1 < len && text[i + 1] == '\n';
        switch (state) {
        case REC_START:
            if (is_lf || crlf) { /* empty line: skipped */
                if (crlf)
                    i++;
                line++;
                col = 1;
                rec_line = line;
                continue;
            }
            rec_line = line;
            state = FIELD_START;
            /* fall through */
        case FIELD_START:
            if (ch == '"') {
                state = QUOTED;
                quote_line = line;
                quote_col = col;
                break;
            }
            state = UNQUOTED;
            /* fall through */
        case UNQUOTED:
            if (ch == ',') {
                FINISH_FIELD();
                state = FIELD_START;
            } else if (is_lf || crlf) {
                END_RECORD();
                if (crlf)
                    i++;
                line++;
                col = 0;
                state = REC_START;
            } else if (ch == '"') {
                FAIL_PARSE(line, col,
                           "quote inside an unquoted field (quote the whole field "
                           "and double the quote)");
            } else if (is_cr) {
                FAIL_PARSE(line, col, "carriage return not followed by a line feed");
            } else if (buf_put(&ps.field, ch) != 0) {
                OOM();
            }
            break;
        case QUOTED:
            if (ch == '"') {
                if (i + 1 < len && text[i + 1] == '"') {
                    if (buf_put(&ps.field, '"') != 0)
                        OOM();
                    i++;
                    col++;
                } else {
                    state = AFTER_QUOTE;
                }
            } else {
                if (buf_put(&ps.field, ch) != 0)
                    OOM();
                if (is_lf) {
                    line++;
                    col = 0;
                }
            }
            break;
        case AFTER_QUOTE:
            if (ch == ',') {
                FINISH_FIELD();
                state = FIELD_START;
            } else if (is_lf || crlf) {
                END_RECORD();
                if (crlf)
                    i++;
                line++;
                col = 0;
                state = REC_START;
            } else {
                FAIL_PARSE(line, col,
                           "character after a closing quote (expected a comma or "
                           "the end of the line)");
            }
            break;
        }
        col++;
    }
    if (state == QUOTED) {
        char msg[96];
        snprintf(msg, sizeof msg, "quoted field opened at column %d never closes", quote_col);
        FAIL_PARSE(quote_line, quote_col, msg);
    }
    if (state != REC_START)
        END_RECORD(); /* last record without a line break */
    if (ps.header_cols == 0)
        FAIL_PARSE(1, 1, "empty file: no header line");

    tp_io_csv *csv = calloc(1, sizeof *csv);
    if (!csv)
        OOM();
    csv->num_cols = ps.header_cols;
    csv->num_rows = ps.rec_line.len - 1;
    csv->header = ps.fields.v;
    csv->cells = NULL;
    csv->line = NULL;
    if (csv->num_rows > 0) {
        csv->cells = malloc(csv->num_rows * csv->num_cols * sizeof *csv->cells);
        csv->line = malloc(csv->num_rows * sizeof *csv->line);
        if (!csv->cells || !csv->line) {
            free(csv->cells);
            free(csv->line);
            free(csv);
            OOM();
        }
        memcpy(csv->cells, ps.fields.v + csv->num_cols,
               csv->num_rows * csv->num_cols * sizeof *csv->cells);
        memcpy(csv->line, ps.rec_line.v + 1, csv->num_rows * sizeof *csv->line);
    }
    /* header strings stay in ps.fields.v[0..num_cols); shrink ownership to them */
    ps.fields.v = NULL;
    ps.fields.len = 0;
    free(ps.rec_line.v);
    free(ps.field.p);
    *out = csv;
    return TP_OK;

done:
    free_strings(ps.fields.v, ps.fields.len);
    free(ps.rec_line.v);
    free(ps.field.p);
    return st;
#undef FAIL_PARSE
#undef OOM
#undef END_RECORD
#undef FINISH_FIELD
}

tp_status tp_io_csv_read(const char *path, tp_io_csv **out, tp_error *err)
{
    *out = NULL;
    tp_io_read_opts o = {TP_IO_MAX_CSV_BYTES, false, false, "csv"};
    char *text;
    size_t len;
    tp_status rs = tp_io_read_file(path, &o, &text, &len, err);
    if (rs != TP_OK)
        return rs;
    tp_status st = tp_io_csv_parse(text, len, path, out, err);
    free(text);
    return st;
}

int tp_io_csv_col(const tp_io_csv *csv, const char *name)
{
    for (size_t i = 0; i < csv->num_cols; i++)
        if (strcmp(csv->header[i], name) == 0)
            return (int)i;
    return -1;
}

const char *tp_io_csv_cell(const tp_io_csv *csv, size_t row, int col)
{
    if (col < 0 || (size_t)col >= csv->num_cols || row >= csv->num_rows)
        return "";
    return csv->cells[row * csv->num_cols + (size_t)col];
}

tp_status tp_io_runs_check(const tp_io_csv *csv, tp_error *err)
{
    for (size_t i = 0; tp_io_runs_columns[i]; i++) {
        if (tp_io_csv_col(csv, tp_io_runs_columns[i]) < 0) {
            tp_error_set(err, TP_ERR_CONFIG, tp_io_runs_columns[i],
                         "the header has no column \"%s\" (a runs file needs the columns of "
                         "runs-dev.csv)",
                         tp_io_runs_columns[i]);
            if (err)
                err->line = 1;
            return TP_ERR_CONFIG;
        }
    }
    return TP_OK;
}
