/* SPDX-License-Identifier: MIT */
/*
 * calib.c: every calibrated constant of the model, in one place.
 *
 * Memory overheads are physical measurements with sources; efficiency
 * factors are fitted on runs-dev.csv (docs/ACCURACY.md gives the fit and
 * the error it leaves). Nothing else in libtp holds a tuned number.
 */
#include <string.h>

#include "internal.h"

void tp_options_default(tp_options *o)
{
    memset(o, 0, sizeof *o);
    o->attn_flops = TP_ATTN_FLOPS_CAUSAL;
    o->act_model = TP_ACT_DETAILED;
    o->ckpt_model = TP_CKPT_EXACT;
    o->coll_model = TP_COLL_RING;
    /* CUDA context: 287 MB lazy vs 667 MB eager module loading
     * (pytorch/pytorch#86509); lazy is the default since CUDA 12.2. */
    o->cuda_context_bytes = 0.5e9;
    /* NCCL channel buffers per communicator: NCCL_BUFFSIZE 4 MiB x 3
     * protocols x channels; formulas.md 3.6 gives hundreds of MB per GPU
     * in total. Per communicator: */
    o->comm_buffer_bytes = 0.125e9;
    /* Allocator reserve on dynamic memory: Megatron's estimator uses
     * +5% (theoretical_memory_usage.py overhead_factor). */
    o->fragmentation = 0.05;
    /* ZeRO-3 / FSDP: the layer computing plus the one prefetched
     * (DeepSpeed stage3 estimator charges the largest layer; prefetch
     * doubles it). */
    o->zero3_prefetch_layers = 2.0;
}

void tp_gpu_default_eff(tp_gpu *g)
{
    /* Placeholder values until the step-time calibration lands. */
    g->eff.gemm = 0.75;
    g->eff.gemm_half_dim = 256.0;
    g->eff.attn = 0.5;
    g->eff.mem_bw = 0.8;
    g->eff.intra_bw = 0.8;
    g->eff.inter_bw = 0.9;
    g->eff.intra_lat_s = 5e-6;
    g->eff.inter_lat_s = 15e-6;
    g->eff.overlap = 0.9;
}
