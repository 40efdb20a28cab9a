/* SPDX-License-Identifier: MIT */
/*
 * fuzz_model_json.c: tp_io_model_parse (trainplan model JSON and Hugging
 * Face config.json) and tp_io_gpu_parse over arbitrary text. The first byte
 * picks the parser; a model that parses is validated and counted.
 */
#include "fuzz.h"
#include "io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 256 * 1024)
        return 0;
    char *text = fuzz_cstr(data + 1, size - 1);
    if (!text)
        return 0;
    tp_error err;
    memset(&err, 0, sizeof err);
    if (data[0] % 4 == 3) {
        tp_gpu g;
        if (tp_io_gpu_parse(text, "fuzz.json", &g, &err) == TP_OK)
            (void)tp_gpu_validate(&g, &err);
    } else {
        tp_model m;
        const char *origin = data[0] % 4 == 0   ? "fuzz.json"
                             : data[0] % 4 == 1 ? "config.json"
                                                : NULL;
        if (tp_io_model_parse(text, origin, &m, &err) == TP_OK) {
            tp_params p;
            (void)tp_model_params(&m, (int64_t)(data[0] >> 2), &p, &err);
        }
    }
    free(text);
    return 0;
}
