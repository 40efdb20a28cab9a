/* SPDX-License-Identifier: MIT */
/*
 * main.c: `trainplan <command> [flags]`.
 *
 * Dispatches through `commands[]`; a new command is one line there plus its
 * two declarations in cli.h. `--help` or `-h` anywhere after a command
 * prints that command's help. The program, not the library, owns exit
 * codes: 0 ok, 1 no feasible configuration, 2 bad arguments or input,
 * 4 internal error (docs/trainplan.1).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static int cmd_version(int argc, char **argv);
static void cmd_version_help(FILE *f);
static int cmd_help(int argc, char **argv);
static void cmd_help_help(FILE *f);

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    void (*help)(FILE *f);
    const char *summary;
} command;

static const command commands[] = {
    {"estimate", cmd_estimate, cmd_estimate_help,
     "evaluate one configuration: parameters, FLOPs, memory per GPU, step time"},
    {"presets", cmd_presets, cmd_presets_help, "list the built-in model and GPU presets"},
    {"plan", cmd_plan, cmd_plan_help,
     "the whole capacity plan: tokens, FLOPs, GPUs, cost, schedule, checkpoints"},
    {"serve", cmd_serve, cmd_serve_help, "serve the interactive planner page and its JSON API"},
    {"validate", cmd_validate, cmd_validate_help,
     "predict measured runs (runs-dev.csv columns) and report the error"},
    {"search", cmd_search, cmd_search_help,
     "find the fastest layouts that fit: ranked, with breakdowns and the binding constraint"},
    {"explain", cmd_explain, cmd_explain_help,
     "walk through the seeds' ordered recipe with numbers, then compare with the search"},
    {"export", cmd_export, cmd_export_help,
     "write a plan as Megatron-LM, torchtitan or DeepSpeed launch config"},
    {"version", cmd_version, cmd_version_help, "print the version"},
    {"help", cmd_help, cmd_help_help, "show the help of a command"},
};

#define NUM_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: trainplan <command> [flags]\n\n"
               "Plans distributed LLM training: parameter counts, FLOPs, memory per GPU\n"
               "and step time for a model, a GPU type and a parallel layout.\n\n"
               "Commands:\n");
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nRun `trainplan <command> --help` for the flags of a command.\n"
               "Exit codes: 0 ok, 1 no feasible configuration, 2 bad arguments or input,\n"
               "4 internal error. See trainplan(1).\n");
}

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *best = NULL;
    int best_d = 99;
    for (size_t i = 0; i < NUM_COMMANDS; i++) {
        int d = cli_edit_distance(name, commands[i].name);
        if (d < best_d) {
            best_d = d;
            best = commands[i].name;
        }
    }
    if (best && best_d <= 3 && (size_t)best_d * 2 <= strlen(name))
        cli_say("trainplan: error: unknown command \"%s\" (did you mean \"%s\"?)\n", name, best);
    else
        cli_say("trainplan: error: unknown command \"%s\" (run `trainplan help`)\n", name);
    return CLI_EXIT_USAGE;
}

static void cmd_version_help(FILE *f)
{
    fprintf(f, "usage: trainplan version\n\nPrints the version of trainplan.\n");
}

static int cmd_version(int argc, char **argv)
{
    if (argc > 1) {
        cli_say("trainplan: error: version takes no arguments (got \"%s\")\n", argv[1]);
        return CLI_EXIT_USAGE;
    }
    printf("trainplan %s\n", tp_version_string());
    return CLI_EXIT_OK;
}

static void cmd_help_help(FILE *f)
{
    fprintf(f, "usage: trainplan help [COMMAND]\n\n"
               "Prints the list of commands, or the help of COMMAND.\n");
}

/* Help and the command list, folded to the terminal like every human output. */
static void print_folded(void (*print)(FILE *), FILE *out)
{
    cli_text t;
    print(cli_text_open(&t, out));
    cli_text_close(&t);
}

static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        print_folded(usage, stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 2) {
        cli_say("trainplan: error: help takes one command name\n");
        return CLI_EXIT_USAGE;
    }
    const command *c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    print_folded(c->help, stdout);
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_folded(usage, stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_folded(usage, stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0)
        name = "version";
    const command *c = find_command(name);
    if (!c)
        return unknown_command(name);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_folded(c->help, stdout);
            return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
        }
    }
    int rc = c->run(argc - 1, argv + 1);
    if (fflush(stdout) != 0 && rc == CLI_EXIT_OK) {
        cli_say("trainplan: error: could not write to standard output\n");
        rc = CLI_EXIT_USAGE;
    }
    return rc;
}
