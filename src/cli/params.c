/* SPDX-License-Identifier: MIT */
/*
 * params.c: --params N, a dense decoder sized from a parameter count, for
 * estimate, search and plan (cli.h). The shape is the library's rule
 * (tp_scaling_shape, src/lib/scaling.c); the words that state it are the
 * io layer's (TP_IO_SHAPE_RULE, io.h), the ones plan's report prints. Here
 * only what the three commands share: which flags clash with it, the
 * vocabulary it takes, and the lines the estimate and search reports add.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fields.h"
#include "io.h"
#include "io_internal.h"
#include "request.h"

/* The flags that give the model another way: every flag that sets a
 * model field (the rows "model" and "model.*" of src/io/fields.c) but
 * --vocab (the rule takes the vocabulary), and the imports of estimate.
 * Any of them with --params would be silently lost. */
static const char *const params_imports[] = {"--from-megatron", "--from-deepspeed",
                                             "--from-torchtitan", "--from-nemo"};

static bool sets_model(const tp_io_field *f)
{
    return strncmp(f->name, "model", 5) == 0 && (f->name[5] == '\0' || f->name[5] == '.') &&
           strcmp(f->name, "model.vocab") != 0;
}

/* Whether the user's argv names flag `name` ("--x" or "--x=v"), before "--". */
static bool argv_has(int argc, char **argv, const char *name)
{
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strncmp(argv[i], name, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
            return true;
    }
    return false;
}

bool cli_user_gave(const cli_user_flags *u, const char *name)
{
    if (!u->rq)
        return argv_has(u->argc, u->argv, name);
    for (size_t i = 0; i < u->rq->count; i++)
        if (strcmp(u->rq->items[i].key, name + 2) == 0)
            return true;
    return false;
}

/* Whether the flag was given: by the user's words (u), else as co says
 * (a web request of estimate or search, whose own keys are gone by now). */
static bool was_given(const cli_user_flags *u, const cli_common *co, const char *name)
{
    return u ? cli_user_gave(u, name) : co && cli_given(co, name);
}

/* --params' value; a clash is named with its dashes when u is given. */
static tp_status params_value(const char *val, const cli_user_flags *u, const cli_common *co,
                              double *n_out, tp_error *err)
{
    static const cli_flag flag = CLI_PARAMS_FLAG(NULL);
    *n_out = 0.0;
    if (!val)
        return TP_OK;
    const char *clash = NULL;
    for (size_t i = 0; !clash && i < tp_io_field_count(); i++) {
        const tp_io_field *f = tp_io_field_at(i);
        if (sets_model(f) && was_given(u, co, f->flag))
            clash = f->flag;
    }
    for (size_t i = 0; !clash && i < sizeof params_imports / sizeof params_imports[0]; i++)
        if (was_given(u, co, params_imports[i]))
            clash = params_imports[i];
    if (clash)
        return tp_error_set(err, TP_ERR_INVALID_ARG, "params",
                            "it chooses the model's shape and %s would override it (give a "
                            "model file for a shape of your own)",
                            u ? clash : clash + 2);
    return cli_flag_f64(&flag, val, n_out, err);
}

tp_status cli_params_value(const char *val, int argc, char **argv, double *n_out, tp_error *err)
{
    cli_user_flags u = {argc, argv, NULL};
    return params_value(val, &u, NULL, n_out, err);
}

tp_status cli_params_value_user(const char *val, const cli_user_flags *u, double *n_out,
                                tp_error *err)
{
    return params_value(val, u, NULL, n_out, err);
}

tp_status cli_params_value_in(const char *val, int argc, char **argv, const cli_common *co,
                              double *n_out, tp_error *err)
{
    cli_user_flags u = {argc, argv, NULL};
    return params_value(val, argv ? &u : NULL, co, n_out, err);
}

tp_status cli_params_model(const char *val, int argc, char **argv, const cli_common *co,
                           tp_config *c, double *n_out, tp_error *err)
{
    TP_TRY(cli_params_value_in(val, argc, argv, co, n_out, err));
    if (!val)
        return TP_OK;
    cli_user_flags u = {argc, argv, NULL};
    int64_t vocab =
        was_given(argv ? &u : NULL, co, "--vocab") ? c->model.vocab : CLI_PARAMS_DEFAULT_VOCAB;
    return tp_scaling_shape(*n_out, vocab, &c->model, err);
}

void cli_params_text(FILE *f, double n, const tp_config *c)
{
    tp_params p;
    if (tp_model_params(&c->model, 0, &p, NULL) != TP_OK)
        return;
    const tp_model *m = &c->model;
    fprintf(f,
            "\nModel from --params: %.4g parameters asked, %lld in the shape (%lld layers, "
            "hidden %lld, %lld heads, FFN %lld, vocab %lld)\n  %s\n",
            n, (long long)p.total, (long long)m->num_layers, (long long)m->hidden,
            (long long)m->num_heads, (long long)m->ffn_hidden, (long long)m->vocab,
            TP_IO_SHAPE_RULE);
}

int cli_params_json(json_t *j, double n)
{
    json_t *o = json_pack("{s:f, s:s}", "params", n, "shape_rule", TP_IO_SHAPE_RULE);
    return o ? json_object_set_new(j, "from_params", o) : -1; /* steals o, even on failure */
}
