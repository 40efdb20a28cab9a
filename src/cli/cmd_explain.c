/* SPDX-License-Identifier: MIT */
/*
 * cmd_explain.c: `trainplan explain [flags]`: narrate the seeds' ordered
 * recipe (libtp tp_recipe_run: bill, TP in a node, largest micro-batch, PP
 * only if needed, DP and ZeRO, batch, CP, EP, MFU) with the numbers of
 * each step, then compare its layout with the search's best and say which
 * cost the recipe ignored. --json prints the numbers instead. The text and
 * the JSON are written by src/io/explain_out.c; this file parses flags,
 * runs the recipe and the search, and prints.
 * Exit 0 when the recipe's layout fits, 1 when it does not, 2 bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "explain_out.h" /* the narration and the JSON */
#include "request.h"

void cmd_explain_help(FILE *f)
{
    fprintf(f, "usage: trainplan explain --model M --gpu G --gpus N --seq-len S\n"
               "                         (--global-batch B | --global-batch-tokens T) [flags]\n\n"
               "Walks through the ordered recipe of the design seeds (003, 004) for the model\n"
               "and cluster, with the numbers at each step: the memory bill (16N + activations),\n"
               "TP inside a node first, the largest micro-batch (formula and doubling), PP only\n"
               "if a node cannot hold the model (minding the bubble), DP from the remaining\n"
               "GPUs with the cheapest ZeRO stage that fits, global batch and gradient\n"
               "accumulation, CP for long context, EP for MoE, and the predicted MFU. Then it\n"
               "runs the search and says whether it finds a faster layout, and which cost the\n"
               "recipe ignored. Layout flags given (--tp 8, --zero 1, ...) fix those axes of\n"
               "the search; the recipe chooses its own.\n");
    static const cli_default defs[] = {
        {"--tp --pp --cp --ep --vpp", "chosen by the recipe; searched (a value given fixes the "
                                      "search's axis)"},
        {"--micro-batch --zero --recompute --sp", "the same"},
    };
    cli_print_shared_flags(f, "explain", defs, sizeof defs / sizeof defs[0]);
    fprintf(f, "\nExit codes: 0 the recipe's layout fits, 1 it does not, 2 bad arguments or\n"
               "input, 4 internal error.\n\n"
               "Example (the Vizz walk-through of seed 004):\n"
               "  trainplan explain --model llama-2-7b --gpus 64 --seq-len 131072 \\\n"
               "      --global-batch-tokens 4194304\n");
}

/* After the configuration: the target batch, then the search space. */
static tp_status explain_finish(cli_explain_job *job, tp_error *err)
{
    if (!job->co.global_batch_given)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                            "explain needs the target batch: --global-batch N (sequences) or "
                            "--global-batch-tokens N");
    return cli_search_space(&job->co, NULL, &job->c, &job->sp, err);
}

tp_status cli_explain_parse(int argc, char **argv, cli_sources src, cli_explain_job *job,
                            tp_error *err)
{
    memset(job, 0, sizeof *job);
    int argi = 1;
    TP_TRY(cli_parse_config_from(argc, argv, &argi, NULL, src, &job->c, &job->co, err));
    job->config_read = true;
    if (argi < argc)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "",
                            "unexpected argument \"%.200s\" (explain takes only flags)",
                            argv[argi]);
    return explain_finish(job, err);
}

tp_status cli_explain_parse_request(const tp_io_request *rq, cli_explain_job *job, tp_error *err)
{
    memset(job, 0, sizeof *job);
    TP_TRY(cli_parse_config_request(rq, NULL, &job->c, &job->co, err));
    job->config_read = true;
    return explain_finish(job, err);
}

int cmd_explain(int argc, char **argv)
{
    static cli_explain_job job; /* large: off the stack (one per process) */
    tp_error err = {0};
    if (cli_explain_parse(argc, argv, CLI_FILES_ALLOWED, &job, &err) != TP_OK)
        return cli_error_print(&err, job.config_read ? NULL : job.co.err_file);
    const tp_config *c = &job.c;
    tp_recipe *r = calloc(1, sizeof *r);
    tp_search_item *best = calloc(1, sizeof *best);
    if (!r || !best) {
        free(r);
        free(best);
        cli_say("trainplan: error: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    int rc = CLI_EXIT_OK;
    size_t n = 0;
    if (tp_io_explain_run(c, &job.sp, r, best, &n, &err) != TP_OK) {
        rc = cli_error_print(&err, NULL);
        goto done;
    }
    if (job.co.json) { /* the answer the server gives too (explain_out.h) */
        json_t *j = tp_io_explain_json(r, n ? best : NULL);
        if (!j) {
            cli_say("trainplan: error: internal: a result holds a non-finite number\n");
            rc = CLI_EXIT_INTERNAL;
            goto done;
        }
        rc = cli_json_print(j);
        json_decref(j);
    } else {
        cli_text t;
        tp_io_explain_text(cli_text_open(&t, stdout), c, r, n ? best : NULL);
        cli_text_close(&t);
    }
    if (rc == CLI_EXIT_OK && !r->fits)
        rc = CLI_EXIT_NONE;
done:
    free(r);
    free(best);
    return rc;
}
