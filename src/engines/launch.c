/* SPDX-License-Identifier: MIT */
/*
 * launch.c: the syntax of a launch file, apart from what any engine's
 * arguments mean (launch.h): shell words, the environment assignments and
 * launcher (torchrun, python -m torch.distributed.run, deepspeed) before
 * the training script and the GPU count the launcher gives, and the Python
 * list expressions an argument may hold. Used by megatron.c; kept apart so
 * that an engine whose launch is a command line reads it the same way.
 *
 * Words follow POSIX shell quoting: single quotes take everything
 * literally, double quotes take backslash escapes of " \ $ ` and newline,
 * a backslash-newline continues the line, `#` starts a comment. Nothing is
 * expanded: a word holding $VAR or `cmd` is marked (word.var) so that the
 * engine can refuse it where its value matters. Positions are 1-based
 * line and column of a word's first character.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_build.h"
#include "launch.h"

/* ---- words ---- */

void launch_words_free(words *ws)
{
    free(ws->w);
    free(ws->store);
    memset(ws, 0, sizeof *ws);
}

/* A quote left open: the error points at the quote that opened it. */
static tp_status unterminated(tp_error *err, const char *which, int line, int col)
{
    tp_error_set(err, TP_ERR_PARSE, "", "unterminated %s quote", which);
    if (err) {
        err->line = line;
        err->column = col;
    }
    return TP_ERR_PARSE;
}

/* Split text into shell words. */
tp_status launch_split_words(const char *text, words *ws, tp_error *err)
{
    size_t len = strlen(text);
    ws->store = malloc(len + 1);
    if (!ws->store)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the arguments");
    char *o = ws->store;
    int line = 1, col = 1;
    size_t i = 0;
#define ADV()                                                                                      \
    do {                                                                                           \
        if (text[i] == '\n') {                                                                     \
            line++;                                                                                \
            col = 1;                                                                               \
        } else {                                                                                   \
            col++;                                                                                 \
        }                                                                                          \
        i++;                                                                                       \
    } while (0)
    while (i < len) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            ADV();
            continue;
        }
        if (c == '\\' && (text[i + 1] == '\n' || (text[i + 1] == '\r' && text[i + 2] == '\n'))) {
            ADV();
            continue;
        }
        if (c == '#') {
            while (i < len && text[i] != '\n')
                ADV();
            continue;
        }
        if (ws->n == ws->cap) {
            size_t cap = ws->cap ? ws->cap * 2 : 64;
            word *nw = realloc(ws->w, cap * sizeof *nw);
            if (!nw)
                return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory reading the arguments");
            ws->w = nw;
            ws->cap = cap;
        }
        word *w = &ws->w[ws->n++];
        w->s = o;
        w->line = line;
        w->col = col;
        w->var = false;
        while (i < len) {
            c = text[i];
            if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
                break;
            if (c == '\\') {
                ADV();
                if (i < len && text[i] == '\n') {
                    ADV();
                    continue;
                }
                if (i < len) {
                    *o++ = text[i];
                    ADV();
                }
            } else if (c == '\'') {
                int ql = line, qc = col;
                ADV();
                while (i < len && text[i] != '\'') {
                    *o++ = text[i];
                    ADV();
                }
                if (i >= len)
                    return unterminated(err, "single", ql, qc);
                ADV();
            } else if (c == '"') {
                int ql = line, qc = col;
                ADV();
                while (i < len && text[i] != '"') {
                    if (text[i] == '\\' && i + 1 < len && strchr("\"\\$`\n", text[i + 1])) {
                        ADV();
                        if (text[i] == '\n') {
                            ADV();
                            continue;
                        }
                    } else if (text[i] == '$' || text[i] == '`') {
                        w->var = true;
                    }
                    *o++ = text[i];
                    ADV();
                }
                if (i >= len)
                    return unterminated(err, "double", ql, qc);
                ADV();
            } else {
                if (c == '$' || c == '`')
                    w->var = true;
                *o++ = c;
                ADV();
            }
        }
        *o++ = '\0';
    }
#undef ADV
    return TP_OK;
}

tp_status word_at(tp_error *err, const word *w, tp_status code)
{
    if (err && w) {
        err->line = w->line;
        err->column = w->col;
    }
    return code;
}

/* ---- the launcher before the script ---- */

bool launch_is_env_assignment(const char *w)
{
    if (!((*w >= 'A' && *w <= 'Z') || (*w >= 'a' && *w <= 'z') || *w == '_'))
        return false;
    size_t n = strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
    return w[n] == '=';
}

/* Value of a launcher option at words[*i] ("--opt v" or "--opt=v"). */
static const char *launch_value(const words *ws, size_t *i, size_t end, const char *opt)
{
    const char *w = ws->w[*i].s;
    size_t n = strlen(opt);
    if (strncmp(w, opt, n) != 0)
        return NULL;
    if (w[n] == '=')
        return w + n + 1;
    if (w[n] != '\0' || *i + 1 >= end)
        return NULL;
    (*i)++;
    return ws->w[*i].s;
}

tp_status launch_scan(const words *ws, size_t *argstart, bool (*is_script_arg)(const char *w),
                      tp_import *im, tp_error *err)
{
    size_t i0 = *argstart, script = ws->n;
    for (size_t i = i0; i < ws->n; i++) {
        const char *w = ws->w[i].s;
        if (strncmp(w, "--", 2) == 0 && is_script_arg(w))
            break;
        size_t len = strlen(w);
        if (len > 3 && strcmp(w + len - 3, ".py") == 0) {
            script = i;
            break;
        }
    }
    if (script == ws->n)
        return TP_OK;
    int64_t nproc = 0, nnodes = 0, ds_gpus = 0, ds_nodes = 0;
    for (size_t i = i0; i < script; i++) {
        const char *v;
        int64_t *dst = NULL;
        const char *opt = NULL;
        static const char *const opts[] = {"--nproc_per_node", "--nproc-per-node", "--nnodes",
                                           "--num_gpus",       "--num-gpus",       "--num_nodes",
                                           "--num-nodes"};
        for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
            size_t j = i;
            v = launch_value(ws, &j, script, opts[k]);
            if (!v)
                continue;
            opt = opts[k];
            dst = k < 2 ? &nproc : k == 2 ? &nnodes : k < 5 ? &ds_gpus : &ds_nodes;
            const word *vw = &ws->w[j];
            i = j;
            if (vw->var) {
                assume(im, "the launcher's GPU count is a shell variable (give --gpus)");
                dst = NULL;
                break;
            }
            int64_t a = 0, b = 0;
            char tail = 0;
            int got = sscanf(v, "%" SCNd64 ":%" SCNd64 "%c", &a, &b, &tail);
            if (got == 2 && a != b) {
                tp_error_set(err, TP_ERR_CONFIG, opt,
                             "launcher option %s %s is an elastic range; give --gpus", opt, v);
                return word_at(err, vw, TP_ERR_CONFIG);
            }
            if (got < 1 || a < 1 || a > TP_MAX_GPUS ||
                (got == 1 && strspn(v, "0123456789") != strlen(v))) {
                char msg[160];
                snprintf(msg, sizeof msg, "launcher option %s %s is not a GPU count (give --gpus)",
                         opt, v);
                assume(im, msg);
                dst = NULL;
                break;
            }
            *dst = a;
            break;
        }
    }
    if (nproc > 0) { /* torchrun: --nnodes defaults to 1 */
        int64_t nodes = nnodes > 0 ? nnodes : 1;
        if (!push_i64(im, "--gpus", nproc * nodes) || !push_i64(im, "--gpus-per-node", nproc))
            return full(err);
        im->has_gpus = true;
    } else if (ds_gpus > 0 && ds_nodes > 0) {
        if (!push_i64(im, "--gpus", ds_gpus * ds_nodes) ||
            !push_i64(im, "--gpus-per-node", ds_gpus))
            return full(err);
        im->has_gpus = true;
    }
    *argstart = script + 1;
    return TP_OK;
}

/* ---- Python list expressions (--moe-layer-freq) ---- */

typedef struct pat {
    const char *p;
    int *v;
    size_t n, cap;
    bool bad;
} pat;

static void pat_push(pat *q, int x)
{
    if (q->bad)
        return;
    if (q->n >= 1000000) {
        q->bad = true;
        return;
    }
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 64;
        int *nv = realloc(q->v, cap * sizeof *nv);
        if (!nv) {
            q->bad = true;
            return;
        }
        q->v = nv;
        q->cap = cap;
    }
    q->v[q->n++] = x;
}

static long pat_int(pat *q)
{
    if (*q->p < '0' || *q->p > '9') {
        q->bad = true;
        return 0;
    }
    long v = 0;
    while (*q->p >= '0' && *q->p <= '9' && v < 10000000)
        v = v * 10 + (*q->p++ - '0');
    return v;
}

static void pat_expr(pat *q, int depth);

/* atom ('*' INT)* */
static void pat_term(pat *q, int depth)
{
    size_t start = q->n;
    if (*q->p == '[') {
        q->p++;
        for (;;) {
            long x = pat_int(q);
            if (q->bad)
                return;
            pat_push(q, (int)x);
            if (*q->p == ',') {
                q->p++;
                continue;
            }
            if (*q->p == ']') {
                q->p++;
                break;
            }
            q->bad = true;
            return;
        }
    } else if (*q->p == '(' && depth < 16) {
        q->p++;
        pat_expr(q, depth + 1);
        if (q->bad || *q->p != ')') {
            q->bad = true;
            return;
        }
        q->p++;
    } else {
        q->bad = true;
        return;
    }
    while (*q->p == '*' && !q->bad) {
        q->p++;
        long k = pat_int(q);
        size_t len = q->n - start;
        if (q->bad || k < 0 || (size_t)k * len > 1000000) {
            q->bad = true;
            return;
        }
        if (k == 0) {
            q->n = start;
            continue;
        }
        for (long r = 1; r < k; r++)
            for (size_t i = 0; i < len; i++)
                pat_push(q, q->v[start + i]);
    }
}

static void pat_expr(pat *q, int depth)
{
    pat_term(q, depth);
    while (!q->bad && *q->p == '+') {
        q->p++;
        pat_term(q, depth);
    }
}

/* A Python list expression of small integers, as Megatron-LM evaluates
 * --moe-layer-freq: "[1,0,1]", "([0]*3+[1]*29)", "[0]*2+[1,0]*15".
 * Spaces are ignored; lists, parentheses, '+' (concatenation) and '*'
 * (repetition) only, nesting at most 16 deep and at most a million
 * elements. */
bool launch_int_list(const char *expr, int **out, size_t *n)
{
    char compact[512];
    size_t o = 0;
    for (const char *p = expr; *p && o + 1 < sizeof compact; p++)
        if (*p != ' ')
            compact[o++] = *p;
    compact[o] = '\0';
    pat q = {compact, NULL, 0, 0, false};
    pat_expr(&q, 0);
    if (!q.bad && *q.p != '\0')
        q.bad = true;
    if (q.bad) {
        free(q.v);
        *out = NULL;
        *n = 0;
        return false;
    }
    *out = q.v;
    *n = q.n;
    return true;
}
