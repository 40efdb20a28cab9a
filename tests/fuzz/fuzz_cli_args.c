/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cli_args.c: the shared flag parser (cli_parse_config, src/cli/opts.c)
 * over an argument vector made of the input split at NUL and newline bytes.
 * opts.c neither exits nor prints while parsing, so it is called directly.
 *
 * The first byte picks: the shared table plus a command's extra flags
 * (as estimate/search/plan call it), or cli_parse_flags with the extra
 * table alone (as presets/serve do). A configuration that parses is
 * validated and, when valid, evaluated.
 *
 * '/' in arguments is replaced by '_': --model and --gpu read files, and a
 * fuzzer that finds /dev/stdin or /dev/zero only measures the file system.
 * File loading is fuzzed through fuzz_model_json instead.
 */
#include "cli.h"
#include "fuzz.h"

#define MAX_ARGS 64

static const char *const sort_names[] = {"time", "cost", "memory", NULL};
static const cli_flag extra_flags[] = {
    {"--max-tp", "N", "GPUs", "8", "largest TP", CLI_INT, 1, 1024, 0.0, 0.0, NULL, "Search"},
    {"--top", "N", NULL, "5", "results", CLI_INT, 1, 100, 0.0, 0.0, NULL, "Search"},
    {"--budget", "X", "USD", NULL, "budget", CLI_NUM, 0, 0, 0.0, 1e12, NULL, "Search"},
    {"--sort", NULL, NULL, "time", "order", CLI_ENUM, 0, 0, 0.0, 0.0, sort_names, "Search"},
    {"--verbose", NULL, NULL, NULL, "more", CLI_SWITCH, 0, 0, 0.0, 0.0, NULL, "Output"},
    {"--out", "FILE", NULL, NULL, "file", CLI_STR, 0, 0, 0.0, 0.0, NULL, "Output"},
};
#define N_EXTRA (sizeof extra_flags / sizeof extra_flags[0])

static volatile int64_t fuzz_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    uint8_t mode = data[0];
    char *buf = fuzz_cstr(data + 1, size - 1);
    if (!buf)
        return 0;
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    static char command[] = "estimate";
    argv[argc++] = command;
    char *start = buf;
    for (size_t i = 0; i <= size - 1 && argc < MAX_ARGS; i++) {
        if (buf[i] == '/')
            buf[i] = '_';
        if (buf[i] == '\0' || buf[i] == '\n') {
            buf[i] = '\0';
            argv[argc++] = start;
            start = buf + i + 1;
        }
    }
    argv[argc] = NULL;

    const char *values[N_EXTRA] = {NULL};
    cli_extra ex = {extra_flags, N_EXTRA, values};
    tp_error err;
    memset(&err, 0, sizeof err);
    int argi = 1;
    if (mode % 4 == 3) {
        (void)cli_parse_flags(argc, argv, &argi, &ex, &err);
    } else {
        tp_config *c = malloc(sizeof *c);
        cli_common *co = malloc(sizeof *co);
        if (c && co &&
            cli_parse_config(argc, argv, &argi, mode % 4 == 0 ? NULL : &ex, c, co, &err) == TP_OK) {
            if (argi < 1 || argi > argc)
                abort(); /* must stop inside argv */
            int64_t v = cli_given(co, "--tp") + cli_given(co, "--no-such-flag");
            if (values[0] && cli_flag_i64(&extra_flags[0], values[0], &v, &err) != TP_OK)
                v = 0;
            double x = 0.0;
            if (values[2] && cli_flag_f64(&extra_flags[2], values[2], &x, &err) != TP_OK)
                x = 0.0;
            int k = 0;
            if (values[3] && cli_flag_enum(&extra_flags[3], values[3], &k, &err) != TP_OK)
                k = 0;
            fuzz_sink = v + k + (x > 0.0);
            if (tp_config_validate(c, &err) == TP_OK) {
                tp_result r;
                (void)tp_eval(c, &r, &err);
            }
        }
        free(c);
        free(co);
    }
    fuzz_sink = cli_edit_distance(argv[argc - 1], "--global-batch");
    free(buf);
    return 0;
}
