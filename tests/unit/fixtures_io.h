/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the unit tests that read real model files (tests/data/hf):
 * load a config through the I/O layer and count its parameters, failing
 * the test with the library's message when either is refused. Header-only
 * (static inline), like fixtures.h; include it after cmocka.h.
 */
#ifndef TP_TEST_FIXTURES_IO_H
#define TP_TEST_FIXTURES_IO_H

#include "io.h"
#include "tp/tp.h"

#define HF_DIR TP_SOURCE_DIR "/tests/data/hf/"

static inline tp_params params_of(const tp_model *m)
{
    tp_params p;
    tp_error err;
    if (tp_model_params(m, 0, &p, &err) != TP_OK) {
        print_error("%s: %s\n", err.path, err.message);
        fail();
    }
    return p;
}

static inline tp_model load(const char *path)
{
    tp_model m;
    tp_error err;
    if (tp_io_model_load(path, &m, &err) != TP_OK) {
        print_error("%s: %s: %s\n", path, err.path, err.message);
        fail();
    }
    return m;
}

#endif /* TP_TEST_FIXTURES_IO_H */
