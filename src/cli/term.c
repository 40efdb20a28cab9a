/* SPDX-License-Identifier: MIT */
/*
 * term.c: the CLI's human output, folded to the terminal (issue 19). The
 * width is COLUMNS when it is set to a whole number (shells export it for
 * an interactive terminal; `COLUMNS=80 trainplan plan` asks for 80), else
 * 100, and never below TP_IO_MIN_WIDTH. Output to a pipe folds the same
 * way, so what a test or a log sees is what a terminal shows. JSON, CSV
 * and Markdown are never folded.
 */
#include <stdlib.h>

#include "cli.h"

int cli_columns(void)
{
    const char *s = getenv("COLUMNS");
    if (!s || !*s)
        return TP_IO_DEFAULT_WIDTH;
    int64_t v;
    tp_error e;
    if (tp_io_parse_i64("COLUMNS", s, 1, 100000, &v, &e) != TP_OK)
        return TP_IO_DEFAULT_WIDTH; /* not a width: as if unset */
    return v < TP_IO_MIN_WIDTH ? TP_IO_MIN_WIDTH : (int)v;
}

FILE *cli_text_open(cli_text *t, FILE *out)
{
    t->out = out;
    t->buf = NULL;
    t->len = 0;
    t->f = open_memstream(&t->buf, &t->len);
    return t->f ? t->f : out;
}

void cli_text_close(cli_text *t)
{
    if (!t->f)
        return;
    fclose(t->f); /* what it holds is written even if it failed: never lose output */
    if (t->buf)
        tp_io_wrap(t->out, t->buf, t->len, cli_columns());
    free(t->buf);
    t->f = NULL;
    t->buf = NULL;
}
