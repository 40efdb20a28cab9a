/* SPDX-License-Identifier: MIT */
/* Data files compiled into the binary by tools/embed.c (presets/). */
#ifndef TP_IO_EMBEDDED_H
#define TP_IO_EMBEDDED_H
#include <stddef.h>

typedef struct tp_io_embedded_file {
    const char *path; /* relative to the source root, e.g. "presets/gpus/h100-sxm.json" */
    const char *data; /* NUL-terminated contents */
    size_t size;      /* bytes, without the NUL */
} tp_io_embedded_file;

extern const tp_io_embedded_file tp_io_embedded[];
extern const size_t tp_io_embedded_count;

#endif
