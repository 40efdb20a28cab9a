/* SPDX-License-Identifier: MIT */
/*
 * validate_gpu.c: the GPU a measured row's gpu_type names (validate.c):
 * one table of GPU presets, and the GPUs derived from one with stated
 * changes for rows whose GPU no preset describes (the 96 GB HBM2e H100 at
 * 500 W of the torchtitan rows). tools/calibrate.py fits a derived GPU's
 * constants by its name (tp_io__derived_gpu_known, validate_eff.c).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "io.h"
#include "validate.h"

bool tp_io__contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

/* A GPU derived from a preset for rows whose GPU no preset describes. */
struct tp_io__derived_gpu {
    const char *name;
    double mem_capacity_bytes;
    double mem_bw_bytes_per_s;
    double peak_rel;  /* tensor-core peaks relative to the preset's */
    const char *note; /* the assumption, as listed with the row */
};

/*
 * The torchtitan benchmark GPUs: H100 with 96 GB HBM2e capped at 500 W on
 * Meta's Grand Teton (runs-dev-sources.md section 10; the benchmark doc
 * says their peak is unknown). Derived from h100-sxm, stated assumptions:
 *  - capacity: 96 GiB of HBM2e less the same driver reserve as the 80 GB
 *    H100 (81,559 of 81,920 MiB): 97,871 MiB = 95.6 GiB;
 *  - HBM2e bandwidth: the 80 GB HBM2e H100 PCIe's 2.0 TB/s for 5 stacks,
 *    scaled to 6 stacks: 2.4 TB/s;
 *  - peak FLOP/s: the benchmark doc (footnote 2) puts the part's peak
 *    "between SXM and NVL". NVIDIA's datasheets give the H100 NVL (350-400
 *    W) 1,671 and the H100 SXM (700 W) 1,979 bf16 TFLOP/s with sparsity,
 *    835.5 and 989.4 dense: the peak follows the clock the power limit
 *    allows. Interpolated linearly in power between 400 W and 700 W, a
 *    500 W part peaks at 835.5 + 153.9 / 3 = 886.8 TFLOP/s, 0.8963 of the
 *    SXM's (the cube law of dynamic power, f ~ P^(1/3), from either end
 *    gives 0.894-0.910). The fitted 500 W factor of calib.c is what the
 *    rows run below that peak (docs/ACCURACY.md).
 */
static const struct tp_io__derived_gpu h100_96gb_500w = {
    "h100-96gb-500w", 96.0 * TP_GIB *(81559.0 / 81920.0), 2.4e12,
    (835.5 + (989.4 - 835.5) * (500.0 - 400.0) / (700.0 - 400.0)) / 989.4,
    "GPU: derived h100-96gb-500w (95.6 GiB, 2.4 TB/s, peaks 0.896 of the SXM's: 500 W "
    "between the NVL's 400 W and the SXM's 700 W)"};

/*
 * gpu_type -> GPU: the first entry all of whose words the cell contains
 * (case-insensitively) decides; order matters ("GB200" before "B200", the
 * 96 GB 500 W H100 before the PCIe H100 before any H100). preset NULL: not
 * a GPU trainplan models. This table is the only place a row's GPU comes
 * from.
 */
static const tp_io__vgpu validate_gpus[] = {
    {{"TPU"}, NULL, NULL},
    {{"GB200"}, "gb200", NULL},
    {{"B200"}, "b200", NULL},
    {{"H200"}, "h200", NULL},
    {{"H800"}, "h800", NULL},
    {{"H100", "96GB", "500W"}, "h100-sxm", &h100_96gb_500w},
    {{"H100", "PCIe"}, "h100-pcie", NULL},
    {{"H100"}, "h100-sxm", NULL},
    {{"A100", "40GB"}, "a100-40gb", NULL},
    {{"A100"}, "a100-80gb", NULL},
    {{"MI300X"}, "mi300x", NULL},
};

/* tools/calibrate.py fits the derived GPUs' constants by name (--eff
 * h100-96gb:gemm=...): a derived name is as known as a preset's
 * (validate_eff.c). */
bool tp_io__derived_gpu_known(const char *prefix)
{
    for (size_t i = 0; i < sizeof validate_gpus / sizeof validate_gpus[0]; i++) {
        const struct tp_io__derived_gpu *d = validate_gpus[i].derived;
        if (d && strncmp(d->name, prefix, strlen(prefix)) == 0)
            return true;
    }
    return false;
}

const tp_io__vgpu *tp_io__validate_gpu_of(const char *type)
{
    for (size_t i = 0; i < sizeof validate_gpus / sizeof validate_gpus[0]; i++) {
        const tp_io__vgpu *e = &validate_gpus[i];
        bool all = true;
        for (size_t k = 0; k < 3 && e->all_of[k] && all; k++)
            all = tp_io__contains_ci(type, e->all_of[k]);
        if (all)
            return e;
    }
    return NULL;
}

const char *tp_io__derive_gpu(const tp_io__vgpu *e, tp_gpu *g)
{
    const struct tp_io__derived_gpu *d = e->derived;
    snprintf(g->name, sizeof g->name, "%s", d->name);
    g->mem_capacity_bytes = d->mem_capacity_bytes;
    g->mem_bw_bytes_per_s = d->mem_bw_bytes_per_s;
    for (int p = 0; p < TP_PREC_COUNT; p++)
        g->peak_flops_per_s[p] *= d->peak_rel;
    g->peak_fp4_flops_per_s *= d->peak_rel;
    tp_gpu_default_eff(g);
    /* the preset's profile stays, as fractions of the derived peaks (no
     * MAMF of the derived part is published; the same die and clocks'
     * per-SM rate), with the constants fitted with it */
    if (g->eff.mamf > 0.0)
        tp_gpu_profile_eff(g);
    return d->note;
}
