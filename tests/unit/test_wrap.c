/* SPDX-License-Identifier: MIT */
/*
 * test_wrap.c: tp_io_wrap, the folding of human text to the terminal's
 * width (src/io/wrap.c), rule by rule: lines that fit are untouched; a long
 * line breaks at its last space and continues under its value column (the
 * text after the first run of two spaces), or two past its indent; a word
 * wider than the room is cut, never inside a UTF-8 character; the width
 * has a floor of TP_IO_MIN_WIDTH.
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "io.h"

/* tp_io_wrap(in, width) as a string (caller frees). */
static char *wrapped(const char *in, int width)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    tp_io_wrap(f, in, strlen(in), width);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void expect(const char *in, int width, const char *want)
{
    char *got = wrapped(in, width);
    if (strcmp(got, want) != 0)
        print_error("width %d:\n[%s]\nwant\n[%s]\n", width, got, want);
    assert_string_equal(got, want);
    free(got);
}

static void test_fits_untouched(void **state)
{
    (void)state;
    expect("short line\n  another one\n", 40, "short line\n  another one\n");
    expect("no newline at the end", 40, "no newline at the end");
    expect("\n\n", 40, "\n\n");
    /* exactly the width: 40 characters */
    expect("0123456789012345678901234567890123456789\n", 40,
           "0123456789012345678901234567890123456789\n");
}

static void test_value_column(void **state)
{
    (void)state;
    /* "  label      value ...": continuations start under the value (col 13) */
    expect("  label      one two three four five six seven eight nine ten\n", 40,
           "  label      one two three four five six\n"
           "             seven eight nine ten\n");
}

static void test_hanging_indent(void **state)
{
    (void)state;
    /* no two-space gap: two past the line's own indent */
    expect("    alpha beta gamma delta epsilon zeta eta theta iota kappa\n", 40,
           "    alpha beta gamma delta epsilon zeta\n"
           "      eta theta iota kappa\n");
}

static void test_long_word_cut(void **state)
{
    (void)state;
    /* a 50-character word in 40 columns: cut at 40, the rest continues */
    expect("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", 40,
           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
           "  xxxxxxxxxx\n");
}

static void test_utf8_counts_characters(void **state)
{
    (void)state;
    /* 38 ASCII + "é" + "x" = 40 characters in 41 bytes: fits 40 */
    expect("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9x\n", 40,
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9x\n");
    /* 39 ASCII + "é" + "é": cut after 40 characters, never inside "é" */
    expect("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9\xc3\xa9\n", 40,
           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\xc3\xa9\n"
           "  \xc3\xa9\n");
}

static void test_width_floor(void **state)
{
    (void)state;
    /* a width below the floor folds at TP_IO_MIN_WIDTH (40), not at 10 */
    char *got = wrapped("one two three four five six seven eight nine ten eleven\n", 10);
    assert_string_equal(got, "one two three four five six seven eight\n  nine ten eleven\n");
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits_untouched),         cmocka_unit_test(test_value_column),
        cmocka_unit_test(test_hanging_indent),         cmocka_unit_test(test_long_word_cut),
        cmocka_unit_test(test_utf8_counts_characters), cmocka_unit_test(test_width_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
