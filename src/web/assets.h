/* SPDX-License-Identifier: MIT */
/*
 * assets.h: the web page's files, compiled into the binary. assets.c is
 * GENERATED from web/ by tools/embed_web.c (a build rule in
 * CMakeLists.txt); the server never reads the file system.
 */
#ifndef TP_WEB_ASSETS_H
#define TP_WEB_ASSETS_H

#include <stddef.h>

typedef struct tp_web_asset {
    const char *path;          /* URL path, "/index.html" */
    const char *content_type;  /* from the file's extension */
    const unsigned char *data; /* NUL-terminated after size bytes */
    size_t size;               /* bytes */
} tp_web_asset;

extern const tp_web_asset tp_web_assets[];
extern const size_t tp_web_asset_count;

#endif /* TP_WEB_ASSETS_H */
