/* SPDX-License-Identifier: MIT */
/*
 * megatron_table: the Megatron-LM argument table as a C source file, so
 * that the importer looks names up in a sorted constant array and never
 * reads or parses a file at run time (src/io/megatron_args.h).
 *
 *   megatron_table OUT.c ROOT CLASSES.tsv ARGS.tsv...
 *
 * CLASSES.tsv: "name<TAB>class[<TAB>why[<TAB>neutral]]"
 * (data/engines/megatron-classes.tsv);
 * each ARGS.tsv: "name<TAB>dest<TAB>action<TAB>nargs<TAB>choices" as written
 * by tools/megatron_args.py. '#' lines are comments. A malformed line is an
 * error naming file:line (the build stops); a name missing from one side is
 * not (the unit tests name it), so the tests can say what to decide.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 8192
#define MAX_SOURCES 8
#define UNBOUNDED 255

typedef struct entry {
    char *name, *why, *neutral;
    int cls; /* 0 unclassified, 1 mapped, 2 rejected, 3 approximated, 4 ignored */
    int order;
    int min_values, max_values, sources;
} entry;

static entry names[MAX_NAMES];
static int n_names;
static const char *const class_names[] = {"", "mapped", "rejected", "approximated", "ignored"};
static const char *const class_enums[] = {"TP_IO_MARG_UNCLASSIFIED", "TP_IO_MARG_MAPPED",
                                          "TP_IO_MARG_REJECTED", "TP_IO_MARG_APPROXIMATED",
                                          "TP_IO_MARG_IGNORED"};

static void die(const char *file, int line, const char *what, const char *arg)
{
    fprintf(stderr, "%s:%d: %s%s%s\n", file, line, what, arg ? ": " : "", arg ? arg : "");
    exit(1);
}

static entry *find(const char *name)
{
    for (int i = 0; i < n_names; i++)
        if (strcmp(names[i].name, name) == 0)
            return &names[i];
    return NULL;
}

static entry *add(const char *file, int line, const char *name)
{
    if (strncmp(name, "--", 2) != 0 || strlen(name) < 3 || strpbrk(name, " \"\\="))
        die(file, line, "not an argument name", name);
    if (n_names == MAX_NAMES)
        die(file, line, "too many names", NULL);
    entry *e = &names[n_names++];
    memset(e, 0, sizeof *e);
    e->name = strdup(name);
    e->why = strdup("");
    e->neutral = strdup("");
    e->order = -1;
    e->min_values = UNBOUNDED; /* lowered by the first list that has it */
    e->max_values = 0;
    return e;
}

/* Split line (modified) at tabs into at most max fields; returns the count. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    f[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\t') {
            *p = '\0';
            f[n++] = p + 1;
        }
    return n;
}

static FILE *open_or_die(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

static void read_classes(const char *path)
{
    FILE *f = open_or_die(path);
    char buf[1024], *fld[5];
    int line = 0, order = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        int n = split(buf, fld, 5);
        if (n < 2 || n > 4)
            die(path, line, "expected name<TAB>class[<TAB>why[<TAB>neutral]]", NULL);
        if (find(fld[0]))
            die(path, line, "classified twice", fld[0]);
        entry *e = add(path, line, fld[0]);
        for (int c = 1; c <= 4; c++)
            if (strcmp(fld[1], class_names[c]) == 0)
                e->cls = c;
        if (e->cls == 0)
            die(path, line, "class is not mapped, rejected, approximated or ignored", fld[1]);
        const char *why = n >= 3 ? fld[2] : "", *neutral = n == 4 ? fld[3] : "";
        if ((e->cls == 2) != (why[0] != '\0'))
            die(path, line, "a rejected name needs a why, and only a rejected one", fld[0]);
        if (strpbrk(why, "\"\\") || strpbrk(neutral, "\"\\"))
            die(path, line, "why and neutral must not hold quotes or backslashes", fld[0]);
        if (n == 4 && neutral[0] == '\0')
            die(path, line, "an empty neutral value", fld[0]);
        free(e->why);
        e->why = strdup(why);
        free(e->neutral);
        e->neutral = strdup(neutral);
        e->order = order++;
    }
    fclose(f);
}

/* nargs as written by megatron_args.py: 0 (a switch), N, ?, *, + */
static void values_of(const char *path, int line, const char *nargs, int *lo, int *hi)
{
    char *end;
    long v = strtol(nargs, &end, 10);
    if (strcmp(nargs, "?") == 0)
        *lo = 0, *hi = 1;
    else if (strcmp(nargs, "*") == 0)
        *lo = 0, *hi = UNBOUNDED;
    else if (strcmp(nargs, "+") == 0)
        *lo = 1, *hi = UNBOUNDED;
    else if (end != nargs && *end == '\0' && v >= 0 && v < UNBOUNDED)
        *lo = *hi = (int)v;
    else
        die(path, line, "nargs is not 0, N, ?, * or +", nargs);
}

static void read_args(const char *path, int source)
{
    FILE *f = open_or_die(path);
    char buf[4096], *fld[6];
    int line = 0;
    while (fgets(buf, sizeof buf, f)) {
        line++;
        if (buf[0] == '#' || buf[0] == '\n')
            continue;
        if (split(buf, fld, 6) != 5)
            die(path, line, "expected name<TAB>dest<TAB>action<TAB>nargs<TAB>choices", NULL);
        entry *e = find(fld[0]);
        if (!e)
            e = add(path, line, fld[0]);
        if (e->sources & (1 << source))
            die(path, line, "listed twice", fld[0]);
        int lo, hi;
        values_of(path, line, fld[3], &lo, &hi);
        e->sources |= 1 << source;
        if (lo < e->min_values)
            e->min_values = lo;
        if (hi > e->max_values)
            e->max_values = hi;
    }
    fclose(f);
}

/* Classified first, in the classification's order; then the rest by name. */
static int by_order(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if ((x->order < 0) != (y->order < 0))
        return x->order < 0 ? 1 : -1;
    if (x->order >= 0)
        return x->order - y->order;
    return strcmp(x->name, y->name);
}

static int by_name_index(const void *a, const void *b)
{
    return strcmp(names[*(const int *)a].name, names[*(const int *)b].name);
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc - 4 > MAX_SOURCES) {
        fprintf(stderr, "usage: megatron_table OUT.c ROOT CLASSES.tsv ARGS.tsv...\n");
        return 2;
    }
    read_classes(argv[3]);
    for (int i = 4; i < argc; i++)
        read_args(argv[i], i - 4);
    qsort(names, (size_t)n_names, sizeof names[0], by_order);
    static int idx[MAX_NAMES];
    for (int i = 0; i < n_names; i++) {
        idx[i] = i;
        if (names[i].sources == 0) /* no list has it: take any number of values */
            names[i].min_values = 0, names[i].max_values = UNBOUNDED;
    }
    qsort(idx, (size_t)n_names, sizeof idx[0], by_name_index);

    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 1;
    }
    size_t rootlen = strlen(argv[2]);
    fprintf(out, "/* GENERATED by tools/megatron_table.c: do not edit. */\n"
                 "#include \"megatron_args.h\"\n\nconst tp_io_marg tp_io_margs[] = {\n");
    for (int i = 0; i < n_names; i++) {
        const entry *e = &names[i];
        fprintf(out, "    {\"%s\", \"%s\", \"%s\", %s, %d, %d, %d},\n", e->name, e->why, e->neutral,
                class_enums[e->cls], e->min_values, e->max_values, e->sources);
    }
    fprintf(out,
            "};\nconst size_t tp_io_margs_count = %d;\n\n"
            "const unsigned short tp_io_margs_by_name[] = {",
            n_names);
    for (int i = 0; i < n_names; i++)
        fprintf(out, "%s%d,", i % 16 ? "" : "\n    ", idx[i]);
    fprintf(out, "\n};\n\nconst char *const tp_io_marg_sources[] = {\n");
    for (int i = 4; i < argc; i++) {
        const char *p = argv[i];
        if (strncmp(p, argv[2], rootlen) == 0)
            p += rootlen + (p[rootlen] == '/');
        fprintf(out, "    \"%s\",\n", p);
    }
    fprintf(out, "};\nconst size_t tp_io_marg_sources_count = %d;\n", argc - 4);
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
