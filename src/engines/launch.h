/* SPDX-License-Identifier: MIT */
/*
 * launch.h: a launch file as words (launch.c): the shell syntax, the
 * launcher before the training script, and Python list expressions in an
 * argument's value. Internal to libtpio's engine layer.
 */
#ifndef TP_ENGINES_LAUNCH_H
#define TP_ENGINES_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "import.h"
#include "tp/tp.h"

typedef struct word {
    char *s;       /* unquoted text */
    int line, col; /* 1-based position of its first character */
    bool var;      /* holds an unexpanded $VAR or `cmd` */
} word;

typedef struct words {
    word *w;
    size_t n, cap;
    char *store; /* all word texts, NUL-separated */
} words;

/* Split text into shell words (*ws zeroed by the caller; free it with
 * launch_words_free, also after an error). Errors: TP_ERR_PARSE for an
 * unterminated quote (err->line/column: the quote), TP_ERR_NOMEM. */
tp_status launch_split_words(const char *text, words *ws, tp_error *err);
void launch_words_free(words *ws);

/* Set err's position to w's (when both are given) and return code. */
tp_status word_at(tp_error *err, const word *w, tp_status code);

/* NAME=value, as the environment assignments before a command. */
bool launch_is_env_assignment(const char *w);

/*
 * Find the training script ("x.py") from words[*argstart]: the launcher
 * precedes it. Stops at the first word is_script_arg accepts (an engine
 * argument: there is no launcher). When a script is found, *argstart
 * moves past it and the launcher's GPU count (torchrun --nnodes x
 * --nproc-per-node, deepspeed --num_nodes x --num_gpus) becomes --gpus
 * and --gpus-per-node in im (im->has_gpus). A count trainplan cannot use
 * (a shell variable, not a number) is noted in im->assumed; an elastic
 * range is TP_ERR_CONFIG.
 */
tp_status launch_scan(const words *ws, size_t *argstart, bool (*is_script_arg)(const char *w),
                      tp_import *im, tp_error *err);

/* Evaluate a Python list expression of small integers ("([0]*3+[1]*29)";
 * launch.c has the grammar): true and *out (new memory, the caller frees
 * it) with *n elements, or false when it is not such an expression. */
bool launch_int_list(const char *expr, int **out, size_t *n);

#endif /* TP_ENGINES_LAUNCH_H */
