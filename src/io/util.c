/* SPDX-License-Identifier: MIT */
/*
 * util.c: small helpers shared across src/io and the CLI (io_internal.h).
 */
#include <ctype.h>
#include <string.h>

#include "io_internal.h"

size_t tp_io_edit_distance(const char *a, const char *b, bool fold_case)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > TP_IO_EDIT_MAX_LEN || lb > TP_IO_EDIT_MAX_LEN)
        return la > lb ? la : lb;
    size_t row[TP_IO_EDIT_MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            unsigned char ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];
            bool same = fold_case ? tolower(ca) == tolower(cb) : ca == cb;
            size_t best = diag + (same ? 0 : 1);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}
