/* SPDX-License-Identifier: MIT */
/*
 * cmd_estimate.c: `trainplan estimate [flags]`: evaluate one configuration
 * and print the report, or with --json the JSON contract (docs/cli.md).
 * Exit 0 whenever it evaluated, whether or not the configuration fits.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "xio.h" /* issue 7: --from-megatron/--from-deepspeed, --markdown/--csv/--svg */

enum { X_MEASURED, X_PARAMS, X_COUNT };

static const cli_flag xflags[X_COUNT] = {
    [X_MEASURED] = {"--measured-tokens-per-s", "N", "tokens/s, the whole job", "none",
                    "a throughput you measured: prints the achieved MFU and HFU and how they "
                    "compare with the prediction (seed 001 exercise 2)",
                    CLI_NUM, 0, 0, 1e-6, 1e15, NULL, .group = "Measured run"},
    [X_PARAMS] = CLI_PARAMS_FLAG("Model from a parameter count"),
};

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
    cli_print_flags(f, xflags, X_COUNT);
    fprintf(f, "\nExit codes: 0 evaluated (whether or not it fits), 2 bad arguments or input,\n"
               "4 internal error.\n\n"
               "Examples:\n"
               "  trainplan estimate --model llama-3-8b --gpus 8 --zero 1\n"
               "  trainplan estimate --model llama-3-70b --gpus 64 --tp 8 --pp 4 \\\n"
               "      --seq-len 8192 --global-batch 512 --distributed-optimizer --json\n"
               "  trainplan estimate --model llama-2-7b --gpu h100-sxm --gpus 64 \\\n"
               "      --measured-tokens-per-s 150000\n");
}

/* Take estimate's own flags out of argv (the last value wins), leaving the
 * shared and output flags to cli_xio_parse, which takes only its own table
 * for estimate. "--" ends the flags. A flag given without its value is
 * an error here, in its own words. */
static tp_status take_own_flags(int *argc, char **argv, const char **xv, tp_error *err)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        int x = X_COUNT;
        size_t k = 0;
        for (int f = 0; f < X_COUNT && x == X_COUNT; f++) {
            k = strlen(xflags[f].name);
            if (strncmp(a, xflags[f].name, k) == 0 && (a[k] == '\0' || a[k] == '='))
                x = f;
        }
        if (x == X_COUNT) {
            argv[out++] = argv[i];
            continue;
        }
        if (a[k] == '=')
            xv[x] = a + k + 1;
        else if (i + 1 < *argc)
            xv[x] = argv[++i];
        else if (x == X_MEASURED)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "measured-tokens-per-s",
                                "needs a value (tokens per second of the whole job, "
                                "e.g. 150000)");
        else
            return tp_error_set(err, TP_ERR_INVALID_ARG, "params",
                                "needs a value (a parameter count, e.g. 7e9 or 7B)");
    }
    argv[out] = NULL;
    *argc = out;
    return TP_OK;
}

int cmd_estimate(int argc, char **argv)
{
    tp_config c;
    cli_common co;
    tp_error err = {0};
    int argi = 1;
    cli_xio xio; /* issue 7: cli_parse_config plus the import and output flags */
    const char *xv[X_COUNT] = {NULL};
    if (take_own_flags(&argc, argv, xv, &err) != TP_OK)
        return cli_error_print(&err, NULL);
    double from_params = 0.0; /* --params: the model is tp_scaling_shape's */
    /* its clashes first: an import named with it is not read */
    if (cli_params_value(xv[X_PARAMS], argc, argv, &from_params, &err) != TP_OK)
        return cli_error_print(&err, NULL);
    if (cli_xio_parse(argc, argv, &argi, NULL, &xio, &c, &co, &err) != TP_OK)
        return cli_error_print(&err, co.err_file);
    if (argi < argc) {
        cli_say("trainplan: error: unexpected argument \"%s\" (estimate takes only flags)\n",
                argv[argi]);
        return CLI_EXIT_USAGE;
    }
    if (cli_params_model(xv[X_PARAMS], argc, argv, &co, &c, &from_params, &err) != TP_OK)
        return cli_error_print(&err, NULL);

    tp_result r;
    if (tp_eval(&c, &r, &err) != TP_OK)
        return cli_error_print(&err, cli_xio_blame(&xio, &err));

    /* The JSON serializer checks every number is finite; build it even for
     * the text report so that neither output can show NaN or inf. */
    json_t *j = tp_io_estimate_json(&c, &r);
    tp_measured meas;
    bool measured = xv[X_MEASURED] != NULL;
    if (measured) {
        double tps = 0.0;
        if (cli_flag_f64(&xflags[X_MEASURED], xv[X_MEASURED], &tps, &err) != TP_OK ||
            tp_budget_measured(&c, &r, tps, &meas, &err) != TP_OK) {
            json_decref(j);
            return cli_error_print(&err, NULL);
        }
        json_t *mj = tp_io_measured_json(&meas);
        if (j && (!mj || json_object_set_new(j, "measured", mj) != 0)) {
            json_decref(j);
            j = NULL;
        }
    }
    if (j && from_params > 0.0 && cli_params_json(j, from_params) != 0) {
        json_decref(j);
        j = NULL;
    }
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
        FILE *tf = cli_text_open(&t, stdout);
        tp_io_result_text(tf, &c, &r);
        if (from_params > 0.0)
            cli_params_text(tf, from_params, &c);
        if (measured && rc == CLI_EXIT_OK)
            tp_io_measured_text(tf, &meas);
        cli_text_close(&t);
    }
    json_decref(j);
    return rc;
}
