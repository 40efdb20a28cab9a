/* SPDX-License-Identifier: MIT */
/*
 * hwprofile.c: hardware profiles (--hw-profile FILE, data/hardware/NAME.json).
 *
 * A profile is what was measured on one GPU system, as opposed to the
 * datasheet figures of a GPU preset: the SM count, the maximum achievable
 * matmul rate by dtype, the achieved HBM bandwidth and collective
 * bus-bandwidth curves by message size, group size and link. The shipped
 * profiles hold published measurements, each with its source; the probe
 * (tools/probe/) writes the same format from the user's own machine.
 * docs/model.md section 1b and docs/hardware.md describe the format.
 *
 * Applying a profile to a tp_gpu sets the kernel-level GEMM model's inputs
 * (eff.sm_count, tile, mamf, mamf_fp8), the constants fitted with that
 * model (tp_gpu_profile_eff: gemm_sw, attention, overlap) and, where the
 * profile measures them, eff.mem_bw, the intra-node busbw fraction and
 * latency, and the host link (tp_gpu.host_link_bytes_per_s, which desc.c
 * makes --pcie-gbps's default). A GPU preset that names a shipped profile
 * ("hw_profile", presets/gpus/) gets its GEMM part by default
 * (tp_io__hw_profile_gemm): the measured matmul rate replaces the fitted
 * GEMM fraction unless --fitted-gemm says otherwise. The rates are divided
 * by the GPU's own peaks, so a profile measured on a faster GPU than --gpu
 * names is refused (a fraction above 1), never clamped. The name of the
 * shipped profile whose GEMM part a GPU runs goes with it
 * (tp_gpu.hw_profile), for the reports to cite.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "io_internal.h"

#define PROFILE_FORMAT "trainplan-hw-profile-1"
#define MAX_CURVES 256
#define MAX_POINTS 256
/* A curve's smallest message gives the per-step latency when at most this
 * big (64 KiB: a few microseconds of bandwidth on any link). */
#define SMALL_MESSAGE_BYTES 65536.0

static const char *const profile_keys[] = {"format",
                                           "name",
                                           "gpu",
                                           "source",
                                           "measured",
                                           "sm_count",
                                           "gemm_tile",
                                           "peak_tflops",
                                           "matmul_tflops",
                                           "matmul_source",
                                           "hbm_gb_per_s",
                                           "hbm_source",
                                           "collectives",
                                           "gemm_sweep",
                                           "attention",
                                           "probe",
                                           "attention_tflops",
                                           "attention_source",
                                           "host_link_gb_per_s",
                                           "host_link_source",
                                           NULL};
static const char *const curve_keys[] = {"op",    "link",   "gpus",   "gpus_per_node",
                                         "dtype", "source", "points", NULL};
static const char *const dtype_keys[] = {"bf16", "fp16", "fp8", "tf32", NULL}; /* tp_precision */
static const char *const ops[] = {"all_reduce", "all_gather", "reduce_scatter",
                                  "all_to_all", "send_recv",  NULL};
static const char *const links[] = {"nvlink", "network", "pcie", NULL};

static tp_status unknown_keys(json_t *obj, const char *parent, const char *const *allowed,
                              tp_error *err)
{
    const char *key;
    json_t *value;
    json_object_foreach(obj, key, value)
    {
        (void)value;
        bool known = false;
        for (size_t i = 0; allowed[i] && !known; i++)
            known = strcmp(key, allowed[i]) == 0;
        if (!known)
            return tp_error_set(err, TP_ERR_CONFIG, parent, "unknown key \"%s%s%s\"", parent,
                                parent[0] ? "." : "", key);
    }
    return TP_OK;
}

/* A finite number in [lo, hi] at obj[key]; absent leaves *out (unless required). */
static tp_status num(const json_t *obj, const char *path, const char *key, bool required, double lo,
                     double hi, double *out, tp_error *err)
{
    char full[96];
    snprintf(full, sizeof full, "%s%s%s", path, path[0] ? "." : "", key);
    const json_t *v = json_object_get(obj, key);
    if (!v) {
        if (required)
            return tp_error_set(err, TP_ERR_CONFIG, full, "missing key \"%s\"", full);
        return TP_OK;
    }
    double d = json_is_number(v) ? json_number_value(v) : (double)NAN;
    if (!isfinite(d) || !(d >= lo && d <= hi))
        return tp_error_set(err, TP_ERR_CONFIG, full, "\"%s\" must be a number in [%g, %g]", full,
                            lo, hi);
    *out = d;
    return TP_OK;
}

static tp_status str(const json_t *obj, const char *key, const char *const *allowed,
                     const char *parent, const char **out, tp_error *err)
{
    char full[96];
    snprintf(full, sizeof full, "%s%s%s", parent, parent[0] ? "." : "", key);
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return TP_OK;
    if (!json_is_string(v))
        return tp_error_set(err, TP_ERR_CONFIG, full, "\"%s\" must be a string", full);
    const char *s = json_string_value(v);
    if (allowed) {
        bool ok = false;
        char list[160] = "";
        for (size_t i = 0; allowed[i]; i++) {
            ok = ok || strcmp(s, allowed[i]) == 0;
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", allowed[i]);
        }
        if (!ok)
            return tp_error_set(err, TP_ERR_CONFIG, full, "\"%s\" must be one of %s", full, list);
    }
    *out = s;
    return TP_OK;
}

/* The measured busbw fraction and per-step latency one curve gives. */
typedef struct link_fit {
    double busbw; /* largest busbw of the curve, bytes/s */
    double lat_s; /* per-step latency from the smallest message; < 0: none */
    int rank;     /* preference: ring-like collectives over all-reduce (NVLS) */
} link_fit;

/* Steps of a ring collective on n ranks (comm.c's alpha-beta): all-reduce
 * 2(n-1), all-gather / reduce-scatter / all-to-all n-1, send/recv 1; and
 * nccl-tests' busbw factor (time = bytes * factor / busbw). */
static void op_steps(const char *op, double n, double *steps, double *factor)
{
    if (strcmp(op, "all_reduce") == 0) {
        *steps = 2.0 * (n - 1.0);
        *factor = 2.0 * (n - 1.0) / n;
    } else if (strcmp(op, "send_recv") == 0) {
        *steps = 1.0;
        *factor = 1.0;
    } else {
        *steps = n - 1.0;
        *factor = (n - 1.0) / n;
    }
}

static tp_status curve_parse(json_t *c, size_t idx, link_fit *intra, link_fit *inter, tp_error *err)
{
    char path[64];
    snprintf(path, sizeof path, "collectives[%zu]", idx);
    if (!json_is_object(c))
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be an object", path);
    TP_TRY(unknown_keys(c, path, curve_keys, err));
    const char *op = NULL, *link = NULL, *src = NULL, *dtype = NULL;
    TP_TRY(str(c, "op", ops, path, &op, err));
    TP_TRY(str(c, "link", links, path, &link, err));
    TP_TRY(str(c, "source", NULL, path, &src, err));
    TP_TRY(str(c, "dtype", NULL, path, &dtype, err));
    if (!op || !link)
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" needs \"op\" and \"link\"", path);
    double gpus = 0.0, per_node = 0.0;
    TP_TRY(num(c, path, "gpus", true, 2.0, TP_MAX_GPUS, &gpus, err));
    TP_TRY(num(c, path, "gpus_per_node", false, 1.0, TP_MAX_GPUS_PER_NODE, &per_node, err));
    const json_t *pts = json_object_get(c, "points");
    char ppath[80];
    snprintf(ppath, sizeof ppath, "%s.points", path);
    if (!json_is_array(pts) || json_array_size(pts) < 1 || json_array_size(pts) > MAX_POINTS)
        return tp_error_set(err, TP_ERR_CONFIG, ppath,
                            "\"%s\" must be an array of 1 to %d [bytes, busbw GB/s] pairs", ppath,
                            MAX_POINTS);
    double steps, factor;
    op_steps(op, gpus, &steps, &factor);
    double best = 0.0, small_bytes = HUGE_VAL, small_s = 0.0, prev = 0.0;
    for (size_t i = 0; i < json_array_size(pts); i++) {
        const json_t *p = json_array_get(pts, i);
        const json_t *b = json_array_get(p, 0), *w = json_array_get(p, 1);
        double bytes = json_is_number(b) ? json_number_value(b) : (double)NAN;
        double gbps = json_is_number(w) ? json_number_value(w) : (double)NAN;
        char pp[128];
        snprintf(pp, sizeof pp, "%s[%zu]", ppath, i);
        if (!json_is_array(p) || json_array_size(p) != 2 || !(bytes >= 1.0 && bytes <= 1e13) ||
            !(gbps >= 1e-6 && gbps <= 1e5))
            return tp_error_set(err, TP_ERR_CONFIG, pp,
                                "\"%s\" must be [bytes in [1, 1e13], busbw GB/s in [1e-6, 1e5]]",
                                pp);
        if (bytes <= prev)
            return tp_error_set(err, TP_ERR_CONFIG, pp, "\"%s\": message sizes must increase", pp);
        prev = bytes;
        double gb = gbps * TP_GB;
        if (gb > best)
            best = gb;
        if (bytes < small_bytes) {
            small_bytes = bytes;
            small_s = bytes * factor / gb;
        }
    }
    /* Only one-link measurements map onto the model: inside one node
     * (NVLink, PCIe), or across nodes with one GPU per node (the NIC
     * alone). A multi-node curve with several GPUs per node mixes both
     * links (NCCL's hierarchical algorithms): kept, not mapped. */
    bool one_node = per_node < 1.0 || per_node >= gpus;
    /* the latency only from a message small enough that it dominates */
    double lat = small_bytes <= SMALL_MESSAGE_BYTES ? small_s / steps : -1.0;
    link_fit f = {best, lat, strcmp(op, "all_reduce") == 0 ? 1 : 2};
    link_fit *dst = NULL;
    if (strcmp(link, "network") == 0) {
        if (fpclassify(per_node - 1.0) == FP_ZERO)
            dst = inter;
    } else if (one_node) {
        dst = intra;
    }
    if (dst && (f.rank > dst->rank || (f.rank == dst->rank && f.busbw > dst->busbw)))
        *dst = f;
    return TP_OK;
}

/* The fraction rate / peak, which must be in [TP_MIN_EFF, 1]; scale and
 * unit say how the file writes both (1e12 "TFLOP/s", 1e9 "GB/s"). */
static tp_status fraction(const char *path, double rate, double peak, double scale,
                          const char *unit, const char *gpu, double *out, tp_error *err)
{
    if (!(peak > 0.0))
        return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" is given but GPU %s has no such peak",
                            path, gpu);
    double f = rate / peak;
    if (!(f >= TP_MIN_EFF && f <= 1.0))
        return tp_error_set(err, TP_ERR_CONFIG, path,
                            "\"%s\" (%g %s) is %.3g of the peak of GPU %s (%g %s): a measured "
                            "rate must be in [%g, 1] of it (a profile of another GPU?)",
                            path, rate / scale, unit, f, gpu, peak / scale, unit, TP_MIN_EFF);
    *out = f;
    return TP_OK;
}

static tp_status matmul_parse(json_t *root, tp_gpu *g, tp_error *err)
{
    json_t *m = json_object_get(root, "matmul_tflops");
    if (!json_is_object(m))
        return tp_error_set(err, TP_ERR_CONFIG, "matmul_tflops",
                            "\"matmul_tflops\" must be an object of measured TFLOP/s by dtype "
                            "(bf16 required)");
    TP_TRY(unknown_keys(m, "matmul_tflops", dtype_keys, err));
    double bf16 = 0.0, fp8 = 0.0;
    TP_TRY(num(m, "matmul_tflops", "bf16", true, 1e-3, 1e7, &bf16, err));
    TP_TRY(num(m, "matmul_tflops", "fp8", false, 1e-3, 1e7, &fp8, err));
    TP_TRY(fraction("matmul_tflops.bf16", bf16 * 1e12, g->peak_flops_per_s[TP_PREC_BF16], 1e12,
                    "TFLOP/s", g->name, &g->eff.mamf, err));
    g->eff.mamf_fp8 = 0.0;
    if (fp8 > 0.0)
        TP_TRY(fraction("matmul_tflops.fp8", fp8 * 1e12, g->peak_flops_per_s[TP_PREC_FP8], 1e12,
                        "TFLOP/s", g->name, &g->eff.mamf_fp8, err));
    return TP_OK;
}

/*
 * "attention_tflops": {"bf16": R}, the best forward rate of the attention
 * kernel measured on this GPU (the probe: the fastest point of its sweep;
 * the shipped profiles: the FlashAttention papers' headline rates). Optional:
 * without it eff.attn_kernel is 0 and tp_gpu_profile_eff derives the kernel
 * rate from the measured matmul rate (calib.c).
 */
static tp_status attention_parse(json_t *root, tp_gpu *g, tp_error *err)
{
    g->eff.attn_kernel = 0.0;
    json_t *a = json_object_get(root, "attention_tflops");
    if (!a)
        return TP_OK;
    if (!json_is_object(a))
        return tp_error_set(err, TP_ERR_CONFIG, "attention_tflops",
                            "\"attention_tflops\" must be an object of the measured forward "
                            "TFLOP/s of the attention kernel by dtype (bf16 required)");
    static const char *const keys[] = {"bf16", NULL};
    TP_TRY(unknown_keys(a, "attention_tflops", keys, err));
    double bf16 = 0.0;
    TP_TRY(num(a, "attention_tflops", "bf16", true, 1e-3, 1e7, &bf16, err));
    return fraction("attention_tflops.bf16", bf16 * 1e12, g->peak_flops_per_s[TP_PREC_BF16], 1e12,
                    "TFLOP/s", g->name, &g->eff.attn_kernel, err);
}

/*
 * "attention": the probe's sweep, rows {"seq", "head_dim", "causal",
 * "fwd_tflops", "bwd_tflops", ...}. Its causal rows at head dim 128 (the
 * heads the rate is charged at; other head dims take kernel.c's factor)
 * set the rate by sequence length (docs/model.md 2): at each seq, forward
 * and backward in the 1 : 2.5 FLOP ratio of the step time, over the best
 * of those points. Fewer than two such rows: the built-in shape (kernel.c,
 * the FlashAttention-3 paper's). The rows used are checked; the others are
 * informative.
 */
static tp_status attention_sweep_parse(json_t *root, tp_gpu *g, tp_error *err)
{
    tp_gpu_eff *e = &g->eff;
    e->attn_seq_n = 0;
    json_t *rows = json_object_get(root, "attention");
    size_t i;
    json_t *row;
    double tok[TP_ATTN_SEQ_POINTS], rate[TP_ATTN_SEQ_POINTS];
    int n = 0;
    json_array_foreach(rows, i, row)
    {
        char path[48];
        snprintf(path, sizeof path, "attention[%zu]", i);
        if (!json_is_object(row))
            return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s\" must be an object", path);
        double hd = 0.0;
        TP_TRY(num(row, path, "head_dim", true, 1.0, 4096.0, &hd, err));
        if (hd > floor(hd))
            return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s.head_dim\" must be a whole number",
                                path);
        if ((int64_t)hd != 128 || !json_is_true(json_object_get(row, "causal")))
            continue;
        double seq = 0.0, fwd = 0.0, bwd = 0.0;
        TP_TRY(num(row, path, "seq", true, 1.0, 1e9, &seq, err));
        if (seq > floor(seq))
            return tp_error_set(err, TP_ERR_CONFIG, path, "\"%s.seq\" must be a whole number",
                                path);
        TP_TRY(num(row, path, "fwd_tflops", true, 1e-3, 1e7, &fwd, err));
        TP_TRY(num(row, path, "bwd_tflops", true, 1e-3, 1e7, &bwd, err));
        int at = n;
        while (at > 0 && tok[at - 1] > seq)
            at--;
        if ((at > 0 && !(tok[at - 1] < seq)) || n == TP_ATTN_SEQ_POINTS)
            return tp_error_set(err, TP_ERR_CONFIG, path,
                                "\"%s\": the causal rows at head dim 128 must be at most %d, "
                                "one per seq (seq %g repeats or one too many)",
                                path, TP_ATTN_SEQ_POINTS, seq);
        memmove(tok + at + 1, tok + at, (size_t)(n - at) * sizeof tok[0]);
        memmove(rate + at + 1, rate + at, (size_t)(n - at) * sizeof rate[0]);
        tok[at] = seq;
        rate[at] = 3.5 / (1.0 / fwd + 2.5 / bwd); /* per FLOP of the two passes */
        n++;
    }
    if (n < 2)
        return TP_OK;
    double best = 0.0;
    for (int k = 0; k < n; k++)
        best = rate[k] > best ? rate[k] : best;
    for (int k = 0; k < n; k++) {
        e->attn_seq_tokens[k] = tok[k];
        e->attn_seq_rel[k] = rate[k] / best;
    }
    e->attn_seq_n = n;
    return TP_OK;
}

static tp_status shape_parse(const json_t *root, tp_gpu *g, tp_error *err)
{
    double sms = 0.0;
    TP_TRY(num(root, "", "sm_count", true, 1.0, TP_MAX_SMS, &sms, err));
    if (sms > floor(sms))
        return tp_error_set(err, TP_ERR_CONFIG, "sm_count", "\"sm_count\" must be a whole number");
    g->eff.sm_count = sms;
    g->eff.tile_m = 128.0;
    g->eff.tile_n = 256.0;
    const json_t *t = json_object_get(root, "gemm_tile");
    if (!t)
        return TP_OK;
    double tm = json_number_value(json_array_get(t, 0));
    double tn = json_number_value(json_array_get(t, 1));
    if (!json_is_array(t) || json_array_size(t) != 2 || !json_is_integer(json_array_get(t, 0)) ||
        !json_is_integer(json_array_get(t, 1)) || !(tm >= 1.0 && tm <= TP_MAX_GEMM_TILE) ||
        !(tn >= 1.0 && tn <= TP_MAX_GEMM_TILE))
        return tp_error_set(err, TP_ERR_CONFIG, "gemm_tile",
                            "\"gemm_tile\" must be [rows, columns], whole numbers in [1, %g]",
                            TP_MAX_GEMM_TILE);
    g->eff.tile_m = tm;
    g->eff.tile_n = tn;
    return TP_OK;
}

static tp_status collectives_parse(const json_t *root, tp_gpu *g, tp_error *err)
{
    const json_t *cs = json_object_get(root, "collectives");
    if (!cs)
        return TP_OK;
    if (!json_is_array(cs) || json_array_size(cs) > MAX_CURVES)
        return tp_error_set(err, TP_ERR_CONFIG, "collectives",
                            "\"collectives\" must be an array of at most %d curves", MAX_CURVES);
    link_fit intra = {0.0, 0.0, 0}, inter = {0.0, 0.0, 0};
    for (size_t i = 0; i < json_array_size(cs); i++)
        TP_TRY(curve_parse(json_array_get(cs, i), i, &intra, &inter, err));
    /* busbw may exceed the line rate (NVLink SHARP all-reduce): the model's
     * ring uses the line rate at most. */
    if (intra.rank > 0) {
        g->eff.intra_bw = fmin(1.0, intra.busbw / g->intra_bw_bytes_per_s);
        if (g->eff.intra_bw < TP_MIN_EFF)
            return tp_error_set(err, TP_ERR_CONFIG, "collectives",
                                "\"collectives\": the intra-node busbw %g GB/s is below %g of "
                                "the link of GPU %s (%g GB/s)",
                                intra.busbw / TP_GB, TP_MIN_EFF, g->name,
                                g->intra_bw_bytes_per_s / TP_GB);
        if (intra.lat_s >= 0.0)
            g->eff.intra_lat_s = intra.lat_s;
    }
    if (inter.rank > 0) {
        g->eff.inter_bw = fmin(1.0, inter.busbw / g->inter_bw_bytes_per_s);
        if (g->eff.inter_bw < TP_MIN_EFF)
            return tp_error_set(err, TP_ERR_CONFIG, "collectives",
                                "\"collectives\": the network busbw %g GB/s is below %g of the "
                                "NIC of GPU %s (%g GB/s)",
                                inter.busbw / TP_GB, TP_MIN_EFF, g->name,
                                g->inter_bw_bytes_per_s / TP_GB);
        if (inter.lat_s >= 0.0)
            g->eff.inter_lat_s = inter.lat_s;
    }
    return TP_OK;
}

static tp_status informative_parse(json_t *root, tp_error *err)
{
    static const char *const strs[] = {
        "name",          "gpu",        "source",           "measured",
        "matmul_source", "hbm_source", "attention_source", "host_link_source"};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        const char *s;
        TP_TRY(str(root, strs[i], NULL, "", &s, err));
    }
    static const char *const arrays[] = {"gemm_sweep", "attention"};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        const json_t *a = json_object_get(root, arrays[i]);
        if (a && !json_is_array(a))
            return tp_error_set(err, TP_ERR_CONFIG, arrays[i], "\"%s\" must be an array",
                                arrays[i]);
    }
    json_t *pk = json_object_get(root, "peak_tflops");
    if (pk && !json_is_object(pk))
        return tp_error_set(err, TP_ERR_CONFIG, "peak_tflops", "\"peak_tflops\" must be an object");
    if (pk)
        TP_TRY(unknown_keys(pk, "peak_tflops", dtype_keys, err));
    const json_t *probe = json_object_get(root, "probe");
    if (probe && !json_is_object(probe))
        return tp_error_set(err, TP_ERR_CONFIG, "probe", "\"probe\" must be an object");
    return TP_OK;
}

/* The checks of the whole file and its GEMM part: the SM count, the tile,
 * the matmul rates (what a GPU preset's "hw_profile" applies). */
static tp_status gemm_apply(json_t *root, tp_gpu *g, tp_error *err)
{
    TP_TRY(unknown_keys(root, "", profile_keys, err));
    const json_t *f = json_object_get(root, "format");
    if (!json_is_string(f) || strcmp(json_string_value(f), PROFILE_FORMAT) != 0)
        return tp_error_set(err, TP_ERR_CONFIG, "format",
                            "\"format\" must be \"" PROFILE_FORMAT "\" (a trainplan hardware "
                            "profile)");
    TP_TRY(informative_parse(root, err));
    TP_TRY(shape_parse(root, g, err));
    TP_TRY(matmul_parse(root, g, err));
    TP_TRY(attention_parse(root, g, err));
    return attention_sweep_parse(root, g, err);
}

static tp_status apply(json_t *root, tp_gpu *g, tp_error *err)
{
    TP_TRY(gemm_apply(root, g, err));
    double hbm = 0.0;
    TP_TRY(num(root, "", "hbm_gb_per_s", false, 1e-3, 1e7, &hbm, err));
    if (hbm > 0.0)
        TP_TRY(fraction("hbm_gb_per_s", hbm * TP_GB, g->mem_bw_bytes_per_s, TP_GB, "GB/s", g->name,
                        &g->eff.mem_bw, err));
    /* a measured host link replaces the preset's (tp_io_host_defaults) */
    double link = 0.0;
    TP_TRY(num(root, "", "host_link_gb_per_s", false, 1e-3, 1e4, &link, err));
    if (link > 0.0)
        g->host_link_bytes_per_s = link * TP_GB;
    return collectives_parse(root, g, err);
}

/*
 * g->hw_profile after a profile's text replaced the GEMM part: its "name"
 * when the text is that shipped profile's, byte for byte (--hw-profile
 * data/hardware/h100-sxm.json), else "". A profile of the user's own, even
 * one named like a shipped one, is not data/hardware/NAME.json, which the
 * reports would then cite.
 */
static void shipped_name(const json_t *root, const char *text, tp_gpu *g)
{
    const char *name = json_string_value(json_object_get(root, "name"));
    const char *shipped = name ? tp_io__hw_profile_text(name) : NULL;
    memset(g->hw_profile, 0, sizeof g->hw_profile);
    if (shipped && strcmp(shipped, text) == 0)
        snprintf(g->hw_profile, sizeof g->hw_profile, "%s", name);
}

tp_status tp_io_hw_profile_parse(const char *text, tp_gpu *g, tp_error *err)
{
    json_t *root;
    TP_TRY(tp_io__json_parse(text, JSON_REJECT_DUPLICATES, "out of memory parsing JSON",
                             "invalid JSON: ", &root, err));
    if (!json_is_object(root)) {
        json_decref(root);
        return tp_error_set(err, TP_ERR_CONFIG, "", "a hardware profile is a JSON object");
    }
    tp_gpu out = *g;
    tp_status st = apply(root, &out, err);
    if (st == TP_OK) {
        tp_gpu_profile_eff(&out); /* after apply: attention follows the profile's kernel */
        shipped_name(root, text, &out);
    }
    json_decref(root);
    if (st != TP_OK)
        return st;
    TP_TRY(tp_gpu_validate(&out, err));
    *g = out;
    return TP_OK;
}

tp_status tp_io_hw_profile_load(const char *path, tp_gpu *g, tp_error *err)
{
    tp_io_read_opts o = {TP_IO_MAX_JSON_BYTES, false, true, "hw-profile"};
    char *text;
    size_t len;
    TP_TRY(tp_io_read_file(path, &o, &text, &len, err));
    tp_status st = strlen(text) == len
                       ? tp_io_hw_profile_parse(text, g, err)
                       : tp_error_set(err, TP_ERR_PARSE, "", "invalid JSON: a NUL byte");
    free(text);
    return st;
}

tp_status tp_io__hw_profile_gemm(const char *name, const char *key, tp_gpu *g, tp_error *err)
{
    const char *text = tp_io__hw_profile_text(name);
    if (!text) {
        char names[256];
        tp_io__hw_profile_names(names, sizeof names);
        return tp_error_set(err, TP_ERR_CONFIG, key,
                            "\"%s\" \"%.64s\" is not a shipped hardware profile (one of %s, "
                            "data/hardware/)",
                            key, name, names);
    }
    json_t *root;
    TP_TRY(tp_io__json_parse(text, JSON_REJECT_DUPLICATES, "out of memory parsing JSON",
                             "invalid JSON: ", &root, err));
    tp_gpu out = *g;
    tp_status st = gemm_apply(root, &out, err);
    json_decref(root);
    if (st != TP_OK && err) {
        /* the profile's key means nothing in the GPU file: name the file's */
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "%s", err->message);
        return tp_error_set(err, st, key, "\"%s\" \"%.64s\": %s", key, name, msg);
    }
    if (st != TP_OK)
        return st;
    tp_gpu_profile_eff(&out);
    snprintf(out.hw_profile, sizeof out.hw_profile, "%s", name); /* shipped: a short name */
    *g = out;
    return TP_OK;
}

void tp_io_gpu_fitted_gemm(tp_gpu *g)
{
    tp_gpu fitted = *g;
    tp_gpu_default_eff(&fitted);
    g->eff.attn = fitted.eff.attn;
    g->eff.overlap = fitted.eff.overlap;
    g->eff.sm_count = 0.0;
    g->eff.tile_m = 0.0;
    g->eff.tile_n = 0.0;
    g->eff.mamf = 0.0;
    g->eff.mamf_fp8 = 0.0;
    g->eff.gemm_sw = 0.0;
    g->eff.attn_kernel = 0.0;
    g->eff.attn_seq_n = 0;
    g->eff.moe_host_layer_s = 0.0;
    g->eff.moe_host_expert_s = 0.0;
    memset(g->hw_profile, 0, sizeof g->hw_profile);
}

void tp_io_gemm_model_of(const tp_gpu *g, tp_precision prec, tp_io_gemm_model *out)
{
    memset(out, 0, sizeof *out);
    const tp_gpu_eff *e = &g->eff;
    bool fp8 = prec == TP_PREC_FP8;
    out->kernel = tp_gpu_kernel_model(g);
    if (!out->kernel) {
        out->rate = fp8 && e->gemm_fp8 > 0.0 ? e->gemm_fp8 : e->gemm;
        return;
    }
    out->rate = fp8 && e->mamf_fp8 > 0.0 ? e->mamf_fp8 : e->mamf;
    out->gemm_sw = e->gemm_sw > 0.0 ? e->gemm_sw : 1.0;
    /* bounded: a tp_gpu built by hand may fill the array without a NUL */
    snprintf(out->profile, sizeof out->profile, "%.*s", (int)sizeof out->profile - 1,
             g->hw_profile);
}

void tp_io_attn_model_of(const tp_config *c, tp_io_gemm_model *out)
{
    tp_attn_rate a = tp_attn_rate_of(c); /* the rate time.c charges */
    out->attn = a.fraction;
    out->attn_ampere_rel = a.ampere_rel;
    out->attn_head_dim_rel = a.head_dim_rel;
    out->attn_seq_rel = a.seq_rel;
    out->attn_seq_tokens = a.seq_tokens;
    out->attn_local_tokens = a.local_seq_tokens;
    out->attn_seq_measured = c->gpu.eff.attn_seq_n >= 2;
    out->attn_kernel = c->gpu.eff.attn_kernel;
    out->attn_sw = out->attn_kernel > 0.0
                       ? a.fraction / a.ampere_rel / a.head_dim_rel / a.seq_rel / out->attn_kernel
                       : 0.0;
}

bool tp_io_moe_host_of(const tp_config *c, tp_io_moe_host *out)
{
    memset(out, 0, sizeof *out);
    if (c->model.num_experts <= 0)
        return false;
    int64_t ep = c->train.ep > 0 ? c->train.ep : 1;
    out->layer_s = c->gpu.eff.moe_host_layer_s;
    out->expert_s = c->gpu.eff.moe_host_expert_s;
    out->local_experts = c->model.num_experts / ep;
    out->floor_s = tp_moe_host_floor_s(c, &out->why_none);
    return true;
}

void tp_io_host_defaults(const tp_gpu *g, tp_options *o)
{
    if (g->host_link_bytes_per_s > 0.0)
        o->pcie_bw_bytes_per_s = g->host_link_bytes_per_s;
    if (g->host_mem_bytes_per_node > 0.0)
        o->host_mem_bytes_per_node = g->host_mem_bytes_per_node;
    if (g->host_mem_bw_bytes_per_s > 0.0)
        o->host_mem_bw_bytes_per_s = g->host_mem_bw_bytes_per_s;
}
