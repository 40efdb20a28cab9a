/* SPDX-License-Identifier: MIT */
/*
 * fuzz_hw_profile.c: tp_io_hw_profile_parse (hwprofile.c: --hw-profile
 * files, the probe's output) over arbitrary text, applied to the GPU
 * preset the first byte picks. A profile that loads must leave a GPU that
 * validates, and a small model on it must evaluate to a finite, positive
 * step time at the sequence length the first byte's high bits pick (the
 * attention rate by sequence length reads the profile's sweep).
 */
#include <math.h>

#include "fuzz.h"
#include "io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 256 * 1024)
        return 0;
    char *text = fuzz_cstr(data + 1, size - 1);
    if (!text)
        return 0;
    static const char *const gpus[] = {"h100-sxm", "a100-80gb", "b200", "mi300x"};
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_config c;
    memset(&c, 0, sizeof c);
    if (tp_io_gpu_load(gpus[data[0] % 4], &c.gpu, &err) != TP_OK ||
        tp_io_model_load("llama-3.2-1b", &c.model, &err) != TP_OK)
        abort();
    if (tp_io_hw_profile_parse(text, &c.gpu, &err) == TP_OK) {
        if (tp_gpu_validate(&c.gpu, &err) != TP_OK)
            abort();
        tp_train_default(&c.train);
        tp_options_default(&c.opts);
        c.train.num_gpus = 8;
        c.train.seq_len = (int64_t)256 << ((data[0] >> 2) % 10); /* 256 .. 128k */
        c.train.micro_batch = 1;
        c.train.global_batch = 8;
        tp_result r;
        if (tp_config_validate(&c, &err) == TP_OK && tp_eval(&c, &r, &err) == TP_OK &&
            !(isfinite(r.time.step_s) && r.time.step_s > 0.0))
            abort();
    }
    free(text);
    return 0;
}
