/* SPDX-License-Identifier: MIT */
/*
 * wrap.c: human text folded to a terminal's width (issue 19).
 *
 * The text writers lay out their reports as "label   value" rows, indented
 * sections and prose lines; they do not know the width they will be read
 * at. tp_io_wrap folds the finished text instead, one rule for every
 * command, so no writer carries its own line breaking:
 *
 *  - a line that fits is written as it is (so output that already fits is
 *    byte-identical);
 *  - a longer line breaks at its last space that fits, and every
 *    continuation is indented to the line's value column: where the text
 *    resumes after the first run of two or more spaces that follows the
 *    label ("  step time (predicted)    10.91 s: ..." continues under
 *    "10.91"), or, for a line with no such column, two columns past the
 *    line's own indent;
 *  - a word longer than the room left is cut at the width (never inside a
 *    UTF-8 character), so no line is ever wider than asked.
 *
 * Width counts characters (UTF-8 code points), which is what a terminal
 * shows for the text trainplan writes (no wide or combining characters).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "io.h"

/* Characters in s[0..n): bytes that do not continue a UTF-8 sequence. */
static size_t chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0u) != 0x80u;
    return c;
}

/* Bytes of s[0..n) that hold its first `cols` characters. */
static size_t bytes_for(const char *s, size_t n, size_t cols)
{
    size_t i = 0, c = 0;
    while (i < n) {
        if (((unsigned char)s[i] & 0xC0u) != 0x80u) {
            if (c == cols)
                break;
            c++;
        }
        i++;
    }
    return i;
}

/*
 * The column where a long line's continuations start: after its label
 * and the first gap of two or more spaces, when that is in the left half
 * of the width; else two past the line's indent (also capped at half).
 */
static size_t hang_indent(const char *s, size_t n, size_t width)
{
    size_t lead = 0;
    while (lead < n && s[lead] == ' ')
        lead++;
    for (size_t i = lead; i + 2 < n; i++) {
        if (s[i] == ' ' && s[i + 1] == ' ') {
            size_t j = i;
            while (j < n && s[j] == ' ')
                j++;
            size_t col = chars(s, j);
            if (j < n && col <= width / 2)
                return col;
            break;
        }
    }
    size_t col = chars(s, lead) + 2;
    return col <= width / 2 ? col : width / 2;
}

/* Write one line (no newline in s[0..n)) folded to width, then '\n'. */
static void wrap_line(FILE *out, const char *s, size_t n, size_t width)
{
    if (chars(s, n) <= width) {
        fwrite(s, 1, n, out);
        fputc('\n', out);
        return;
    }
    size_t indent = hang_indent(s, n, width);
    size_t first_room = width; /* the first line has its own indent in s */
    bool first = true;
    while (n > 0) {
        size_t room = first ? first_room : width - indent;
        if (chars(s, n) <= room) {
            fwrite(s, 1, n, out);
            break;
        }
        size_t fit = bytes_for(s, n, room); /* s[0..fit) fits; s[fit] does not */
        size_t cut = fit;
        /* the last space that fits, past the indent on the first line */
        size_t floor = first ? bytes_for(s, n, indent) : 0;
        while (cut > floor && s[cut] != ' ')
            cut--;
        if (cut <= floor) /* one word wider than the room: cut it */
            cut = fit;
        size_t end = cut;
        while (end > 0 && s[end - 1] == ' ')
            end--;
        fwrite(s, 1, end, out);
        fputc('\n', out);
        while (cut < n && s[cut] == ' ')
            cut++;
        s += cut;
        n -= cut;
        if (n > 0)
            fprintf(out, "%*s", (int)indent, "");
        first = false;
    }
    fputc('\n', out);
}

void tp_io_wrap(FILE *out, const char *text, size_t len, int width)
{
    size_t w = width < TP_IO_MIN_WIDTH ? TP_IO_MIN_WIDTH : (size_t)width;
    while (len > 0) {
        const char *nl = memchr(text, '\n', len);
        size_t n = nl ? (size_t)(nl - text) : len;
        if (nl || n > 0) {
            if (!nl) { /* a last line without a newline stays without one */
                if (chars(text, n) <= w) {
                    fwrite(text, 1, n, out);
                    return;
                }
            }
            wrap_line(out, text, n, w);
        }
        if (!nl)
            return;
        text += n + 1;
        len -= n + 1;
    }
}
