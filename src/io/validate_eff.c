/* SPDX-License-Identifier: MIT */
/*
 * validate_eff.c: the efficiency overrides of `trainplan validate --eff`
 * (validate.h), parsed and applied to a row's GPU. tools/calibrate.py
 * drives the fit through them; a GPU prefix names a preset or a GPU that
 * validate derives from one (validate.c, validate_gpus).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"
#include "validate.h"

/* ------------------------------------------------------------------ */
/* efficiency overrides (--eff)                                       */
/* ------------------------------------------------------------------ */

/*
 * The keys of --eff and the range where each means something: fractions of
 * a peak rate in [TP_MIN_EFF, 1] = [1e-3, 1] (below that the step time is
 * dominated by a factor no real GPU shows, and at 0 or a subnormal every row's time
 * divides to 0 or inf); gemm_fp8 0 = "as gemm"; gemm_half_dim in elements,
 * 0 = no size penalty; overlap a fraction in [0, 1]. The library checks the
 * same ranges (tp_gpu_validate).
 */
typedef struct eff_key {
    const char *name;
    size_t offset; /* into tp_gpu_eff */
    double lo, hi;
    bool zero_ok; /* 0, or [lo, hi] */
} eff_key;

#define EFF_KEY(f, lo, hi, z)                                                                      \
    {                                                                                              \
#f, offsetof(tp_gpu_eff, f), (lo), (hi), (z)                                               \
    }
static const eff_key eff_keys[] = {
    EFF_KEY(gemm, TP_MIN_EFF, 1.0, false),
    EFF_KEY(gemm_fp8, TP_MIN_EFF, 1.0, true),
    EFF_KEY(gemm_half_dim, 1.0, 1e6, true),
    EFF_KEY(attn, TP_MIN_EFF, 1.0, false),
    EFF_KEY(mem_bw, TP_MIN_EFF, 1.0, false),
    EFF_KEY(intra_bw, TP_MIN_EFF, 1.0, false),
    EFF_KEY(inter_bw, TP_MIN_EFF, 1.0, false),
    EFF_KEY(overlap, 0.0, 1.0, false),
    /* the kernel-level GEMM model of a hardware profile (issue 17, time.c 1b) */
    EFF_KEY(sm_count, 1.0, TP_MAX_SMS, true),
    EFF_KEY(tile_m, 1.0, TP_MAX_GEMM_TILE, true),
    EFF_KEY(tile_n, 1.0, TP_MAX_GEMM_TILE, true),
    EFF_KEY(mamf, TP_MIN_EFF, 1.0, true),
    EFF_KEY(mamf_fp8, TP_MIN_EFF, 1.0, true),
    EFF_KEY(gemm_sw, TP_MIN_EFF, 1.0, true),
    /* host-bound MoE layers (time.c host_floor), seconds */
    EFF_KEY(moe_host_layer_s, 0.0, 1.0, true),
    EFF_KEY(moe_host_expert_s, 0.0, 1.0, true),
};
#define NUM_EFF_KEYS (sizeof eff_keys / sizeof eff_keys[0])

static const eff_key *eff_key_of(const char *key)
{
    for (size_t i = 0; i < NUM_EFF_KEYS; i++)
        if (strcmp(key, eff_keys[i].name) == 0)
            return &eff_keys[i];
    return NULL;
}

static double *eff_field(tp_gpu_eff *e, const char *key)
{
    const eff_key *k = eff_key_of(key);
    return k ? (double *)(void *)((char *)e + k->offset) : NULL;
}

/* "a, b, c" of the GPU presets; a prefix must match one of them. */
static void gpu_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < tp_io_preset_count(TP_IO_GPU) && used < n; i++) {
        int w =
            snprintf(buf + used, n - used, "%s%s", i ? ", " : "", tp_io_preset_name(TP_IO_GPU, i));
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* A preset's name starts with prefix. */
static bool gpu_prefix_known(const char *prefix)
{
    for (size_t i = 0; i < tp_io_preset_count(TP_IO_GPU); i++)
        if (strncmp(tp_io_preset_name(TP_IO_GPU, i), prefix, strlen(prefix)) == 0)
            return true;
    return false;
}

tp_status tp_io_eff_overrides_parse(const char *list, tp_io_eff_overrides *ov, tp_error *err)
{
    ov->n = 0;
    const char *p = list;
    char q[TP_IO_QUOTE_MAX + 4];
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[96];
        if (len == 0 || len >= sizeof item)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "eff",
                                "--eff: bad item in \"%s\" (an empty item, or one over %zu bytes)",
                                tp_io_quote(list, q, sizeof q), sizeof item - 1);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (!eq)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "eff",
                                "--eff: expected KEY=VALUE or GPU:KEY=VALUE, got \"%s\"",
                                tp_io_quote(item, q, sizeof q));
        if (ov->n >= TP_IO_EFF_MAX_OVERRIDES)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "eff", "--eff: at most %d items",
                                TP_IO_EFF_MAX_OVERRIDES);
        *eq = '\0';
        tp_io_eff_override *o = &ov->v[ov->n];
        memset(o, 0, sizeof *o);
        char *colon = strchr(item, ':');
        const char *key = item;
        if (colon) {
            *colon = '\0';
            if (!*item || strlen(item) >= sizeof o->gpu || !gpu_prefix_known(item)) {
                char names[512];
                gpu_names(names, sizeof names);
                return tp_error_set(err, TP_ERR_INVALID_ARG, "eff",
                                    "--eff: unknown GPU \"%s\" (a GPU preset or a prefix of one: "
                                    "%s)",
                                    tp_io_quote(item, q, sizeof q), names);
            }
            snprintf(o->gpu, sizeof o->gpu, "%.23s", item); /* fits: checked above */
            key = colon + 1;
        }
        const eff_key *k = eff_key_of(key);
        if (!k)
            return tp_error_set(err, TP_ERR_INVALID_ARG, "eff",
                                "--eff: unknown efficiency \"%s\" (expected one of gemm, "
                                "gemm_fp8, gemm_half_dim, attn, mem_bw, intra_bw, inter_bw, "
                                "overlap, sm_count, tile_m, tile_n, mamf, mamf_fp8, gemm_sw, "
                                "moe_host_layer_s, moe_host_expert_s)",
                                tp_io_quote(key, q, sizeof q));
        snprintf(o->key, sizeof o->key, "%s", k->name);
        char field[40];
        snprintf(field, sizeof field, "--eff %s", k->name);
        tp_status st = k->zero_ok ? tp_io_parse_f64_or0(field, eq + 1, k->lo, k->hi, &o->value, err)
                                  : tp_io_parse_f64(field, eq + 1, k->lo, k->hi, &o->value, err);
        if (st != TP_OK)
            return st;
        ov->n++;
        p = end ? end + 1 : p + len;
    }
    return TP_OK;
}

/* A key of the profile's GEMM part (hwprofile.c): set to another value,
 * the GPU no longer runs the shipped profile g->hw_profile names (gemm_sw
 * is a calibrated constant, not the profile's). */
static bool profile_key(const char *key)
{
    static const char *const keys[] = {"sm_count", "tile_m", "tile_n", "mamf", "mamf_fp8"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return true;
    return false;
}

void tp_io_eff_overrides_apply(const tp_io_eff_overrides *ov, tp_gpu *g)
{
    for (size_t i = 0; i < ov->n; i++) {
        const tp_io_eff_override *o = &ov->v[i];
        if (o->gpu[0] && strncmp(g->name, o->gpu, strlen(o->gpu)) != 0)
            continue;
        double *f = eff_field(&g->eff, o->key);
        if (f && (*f < o->value || *f > o->value) && profile_key(o->key))
            memset(g->hw_profile, 0, sizeof g->hw_profile);
        if (f)
            *f = o->value;
    }
}
