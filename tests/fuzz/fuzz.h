/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h: shared by the libFuzzer targets in tests/fuzz/ (issue 8).
 *
 * Each fuzz_<name>.c defines LLVMFuzzerTestOneInput. Built with clang
 * -fsanitize=fuzzer by `make fuzz`; built with gcc and linked with
 * replay_main.c into the ctest test fuzz_replay_<name>, which replays
 * tests/fuzz/corpus/<name>/ on every CI run.
 */
#ifndef TP_FUZZ_H
#define TP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (caller frees); NULL when out of memory. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return NULL;
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif /* TP_FUZZ_H */
