/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c: run a fuzz target over files without libFuzzer (gcc build).
 *
 *   fuzz_replay_NAME DIR_OR_FILE...
 *
 * Every regular file of each directory (not recursive) and every file named
 * is read whole and handed to LLVMFuzzerTestOneInput. A crash or an abort()
 * in the target fails the test; exit 0 after all inputs, 1 when an input
 * could not be read or no input was found.
 */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz.h"

#define REPLAY_MAX_BYTES ((size_t)16 * 1024 * 1024)

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            if (cap >= REPLAY_MAX_BYTES)
                break;
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        free(buf);
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            errors++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += replay_file(argv[i]) != 0;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            fprintf(stderr, "replay: cannot open directory %s\n", argv[i]);
            errors++;
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            size_t n = strlen(argv[i]) + strlen(e->d_name) + 2;
            char *path = malloc(n);
            if (!path) {
                errors++;
                break;
            }
            snprintf(path, n, "%s/%s", argv[i], e->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                errors += replay_file(path) != 0;
                files++;
            }
            free(path);
        }
        closedir(d);
    }
    printf("replay: %d input(s), %d error(s)\n", files, errors);
    return errors || files == 0 ? 1 : 0;
}
