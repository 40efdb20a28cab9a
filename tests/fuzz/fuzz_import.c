/* SPDX-License-Identifier: MIT */
/*
 * fuzz_import.c: the importers of src/io/import.h over arbitrary text. The
 * first byte picks Megatron-LM arguments, DeepSpeed ds_config.json, a
 * trainplan --json result, (0x40 set) a torchtitan configuration or (0x60
 * set) a NeMo / Megatron-Bridge YAML override file. An import that
 * succeeds is carried on as the CLI does: its values fill the run
 * description (cli_parse_config_import), then tp_io_import_apply.
 */
#include "cli.h"
#include "fuzz.h"
#include "import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 128 * 1024)
        return 0;
    char *text = fuzz_cstr(data + 1, size - 1);
    tp_import *im = malloc(sizeof *im);
    if (!text || !im) {
        free(text);
        free(im);
        return 0;
    }
    tp_error err;
    memset(&err, 0, sizeof err);
    tp_status st;
    switch ((data[0] & 0x60) == 0x60 ? 4 : (data[0] & 0x40) ? 3 : data[0] % 3) {
    case 4: st = tp_io_import_nemo(text, "overrides.yaml", im, &err); break;
    case 3: st = tp_io_import_torchtitan(text, "job.toml", im, &err); break;
    case 0: st = tp_io_import_megatron(text, "fuzz.sh", im, &err); break;
    case 1: st = tp_io_import_deepspeed(text, "ds_config.json", im, &err); break;
    default: st = tp_io_import_trainplan(text, "result.json", im, &err); break;
    }
    if (st == TP_OK) {
        if (im->nvals < 0 || im->nvals > TP_IMPORT_MAX_VALUES)
            abort();
        int paths = 0;
        for (int i = 0; i < im->nvals; i++) {
            if (im->vals[i].off >= sizeof im->buf || im->vals[i].slot < 0)
                abort();
            const char *a = im->buf + im->vals[i].off;
            if (!memchr(a, '\0', sizeof im->buf - im->vals[i].off))
                abort();
            paths += strchr(a, '/') != NULL; /* never let fuzz input open files */
        }
        static char command[] = "estimate";
        char *argv[] = {command, NULL};
        tp_config *c = malloc(sizeof *c);
        cli_common *co = malloc(sizeof *co);
        int argi = 1;
        if (!paths && c && co &&
            cli_parse_config_import(1, argv, &argi, NULL, im, c, co, &err) == TP_OK) {
            tp_import_user user;
            memset(&user, 0, sizeof user);
            user.gpus = data[0] & 0x80;
            if (tp_io_import_apply(im, &user, c, &err) == TP_OK &&
                tp_config_validate(c, &err) == TP_OK) {
                tp_result r;
                (void)tp_eval(c, &r, &err);
            }
        }
        free(c);
        free(co);
    }
    free(im);
    free(text);
    return 0;
}
