/* SPDX-License-Identifier: MIT */
/*
 * fuzz_import.c: the importers of src/io/import.h over arbitrary text. The
 * first byte picks Megatron-LM arguments, DeepSpeed ds_config.json, a
 * trainplan --json result, (0x40 set) a torchtitan configuration or (0x60
 * set) a NeMo / Megatron-Bridge YAML override file. An import that succeeds is carried on as the CLI
 * does: its flags go through cli_parse_config, then tp_io_import_apply.
 */
#include "cli.h"
#include "fuzz.h"
#include "import.h"

#define MAX_ARGS (TP_IMPORT_MAX_ARGS + 2)

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
        if (im->argc < 0 || im->argc > TP_IMPORT_MAX_ARGS)
            abort();
        /* cli_parse_config takes char **: point into a writable copy */
        static char command[] = "estimate";
        static char args[sizeof im->argbuf];
        memcpy(args, im->argbuf, sizeof args);
        char *argv[MAX_ARGS + 1];
        int argc = 0, paths = 0;
        argv[argc++] = command;
        for (int i = 0; i < im->argc; i++) {
            const char *a = tp_io_import_arg(im, i);
            if (!a || a < im->argbuf || a >= im->argbuf + sizeof im->argbuf)
                abort();
            paths += strchr(a, '/') != NULL; /* never let fuzz input open files */
            argv[argc++] = args + (a - im->argbuf);
        }
        argv[argc] = NULL;
        tp_config *c = malloc(sizeof *c);
        cli_common *co = malloc(sizeof *co);
        int argi = 1;
        if (!paths && c && co && cli_parse_config(argc, argv, &argi, NULL, c, co, &err) == TP_OK) {
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
