/* SPDX-License-Identifier: MIT */
/*
 * validate_gpu.c: the GPU preset a measured row's gpu_type names
 * (validate.c), from one table. The torchtitan rows' 96 GB HBM2e H100 at
 * 500 W is a preset of its own, derived from h100-sxm with its assumptions
 * stated in presets/gpus/h100-96gb-500w.json.
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

/*
 * gpu_type -> GPU: the first entry all of whose words the cell contains
 * (case-insensitively) decides; order matters ("GB200" before "B200", the
 * 96 GB 500 W H100 before the PCIe H100 before any H100). preset NULL: not
 * a GPU trainplan models. This table is the only place a row's GPU comes
 * from.
 */
static const tp_io__vgpu validate_gpus[] = {
    {{"TPU"}, NULL},
    {{"GB200"}, "gb200"},
    {{"B200"}, "b200"},
    {{"H200"}, "h200"},
    {{"H800"}, "h800"},
    {{"H100", "96GB", "500W"}, "h100-96gb-500w"},
    {{"H100", "PCIe"}, "h100-pcie"},
    {{"H100"}, "h100-sxm"},
    {{"A100", "40GB"}, "a100-40gb"},
    {{"A100"}, "a100-80gb"},
    {{"MI300X"}, "mi300x"},
};

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
