/* SPDX-License-Identifier: MIT */
/*
 * cmd_estimate.c: `trainplan estimate [flags]`: evaluate one configuration
 * and print the report, or with --json the JSON contract (docs/cli.md).
 * Exit 0 whenever it evaluated, whether or not the configuration fits.
 */
#include <stdio.h>

#include "cli.h"
#include "xio.h" /* issue 7: --from-megatron/--from-deepspeed, --markdown/--csv/--svg */

void cmd_estimate_help(FILE *f)
{
    fprintf(f, "usage: trainplan estimate [flags]\n\n"
               "Evaluates one training configuration: exact parameter counts, FLOPs per\n"
               "token and per step, memory per GPU by component on the heaviest pipeline\n"
               "stage with a FITS / DOES NOT FIT verdict, and the step time. Prints a\n"
               "report, or one JSON object with --json (keys in docs/cli.md).\n\n"
               "Sizes are counts; memory flags take GB (1e9 bytes) or GiB (2^30 bytes) as\n"
               "named. DP is derived: GPUs / (TP x PP x CP); the expert layers are laid out\n"
               "apart (Megatron-Core MoE parallel folding): GPUs / (ETP x EP x PP). When\n"
               "neither --global-batch nor --global-batch-tokens is given the global batch\n"
               "is micro-batch x DP (no gradient accumulation). When flags conflict\n"
               "(--sp/--no-sp, --zero/--fsdp, ...) the last one wins.\n");
    cli_print_config_flags(f);
    cli_xio_print_flags(f); /* issue 7 */
    fprintf(f, "\nExit codes: 0 evaluated (whether or not it fits), 2 bad arguments or input,\n"
               "4 internal error.\n\n"
               "Examples:\n"
               "  trainplan estimate --model llama-3-8b --gpus 8 --zero 1\n"
               "  trainplan estimate --model llama-3-70b --gpus 64 --tp 8 --pp 4 \\\n"
               "      --seq-len 8192 --global-batch 512 --distributed-optimizer --json\n");
}

int cmd_estimate(int argc, char **argv)
{
    tp_config c;
    cli_common co;
    tp_error err = {0};
    int argi = 1;
    cli_xio xio; /* issue 7: cli_parse_config plus the import and output flags */
    if (cli_xio_parse(argc, argv, &argi, NULL, &xio, &c, &co, &err) != TP_OK)
        return cli_error_print(&err, co.err_file);
    if (argi < argc) {
        cli_say("trainplan: error: unexpected argument \"%s\" (estimate takes only flags)\n",
                argv[argi]);
        return CLI_EXIT_USAGE;
    }

    tp_result r;
    if (tp_eval(&c, &r, &err) != TP_OK)
        return cli_error_print(&err, cli_xio_blame(&xio, &err));

    /* The JSON serializer checks every number is finite; build it even for
     * the text report so that neither output can show NaN or inf. */
    json_t *j = tp_io_estimate_json(&c, &r);
    if (!j) {
        cli_say("trainplan: error: internal: the result holds a non-finite number "
                "(a bug in trainplan; please report the command line)\n");
        return CLI_EXIT_INTERNAL;
    }
    int rc = CLI_EXIT_OK;
    if (cli_xio_output(&xio, &c, &r, &rc)) { /* issue 7: --svg FILE, --markdown, --csv */
    } else if (co.json)
        rc = cli_json_print(j);
    else {
        cli_text t;
        tp_io_result_text(cli_text_open(&t, stdout), &c, &r);
        cli_text_close(&t);
    }
    json_decref(j);
    return rc;
}
