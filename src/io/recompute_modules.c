/* SPDX-License-Identifier: MIT */
/*
 * recompute_modules.c: Megatron-Core's --recompute-modules names for
 * tp_train.recompute_modules (TP_RC_* bits), parsed from and written as a
 * comma-separated list in Megatron's spelling (megatron/core/transformer/
 * transformer_config.py recompute_modules at d98e8a64). Megatron's other
 * modules (gdn_*, gdp_*, mhc) name parts trainplan does not model and are
 * refused by name.
 */
#include <stdio.h>
#include <string.h>

#include "recompute_modules.h"

static const struct {
    const char *name;
    unsigned bit;
} modules[] = {
    {"core_attn", TP_RC_CORE_ATTN},
    {"layernorm", TP_RC_LAYERNORM},
    {"mlp", TP_RC_MLP},
    {"moe", TP_RC_MOE},
    {"moe_act", TP_RC_MOE_ACT},
    {"shared_experts", TP_RC_SHARED_EXPERTS},
    {"mla_up_proj", TP_RC_MLA_UP_PROJ}, /* last: the text of the others keeps its order */
};
#define N_MODULES (sizeof modules / sizeof modules[0])

const char *tp_io_recompute_modules_text(unsigned rc, char *buf, size_t n)
{
    size_t used = 0;
    if (n == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < N_MODULES; i++) {
        if (!(rc & modules[i].bit))
            continue;
        int w = snprintf(buf + used, n - used, "%s%s", used ? "," : "", modules[i].name);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
    return buf;
}

tp_status tp_io_recompute_modules_parse(const char *flag, const char *text, unsigned *out,
                                        tp_error *err)
{
    unsigned rc = 0;
    const char *p = text;
    char names[96];
    tp_io_recompute_modules_text(TP_RC_ALL, names, sizeof names);
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t i = 0;
        while (i < N_MODULES &&
               !(strlen(modules[i].name) == len && strncmp(modules[i].name, p, len) == 0))
            i++;
        if (i == N_MODULES) {
            char word[48];
            snprintf(word, sizeof word, "%.*s", len > 40 ? 40 : (int)len, p);
            return tp_error_set(err, TP_ERR_INVALID_ARG, flag + 2,
                                "%s: unknown recompute module \"%s\" (known: %s)", flag, word,
                                names);
        }
        rc |= modules[i].bit;
        if (!end)
            break;
        p = end + 1;
    }
    *out = rc;
    return TP_OK;
}
