#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
grouped_gemm_check.py: the GEMM models of src/lib/time.c against the measured
shapes of data/hardware/grouped-gemm.csv (docs/ACCURACY.md, "Grouped GEMM by
shape"). Not part of the build; it restates time.c's formulas (header 1 and
1b, experts_gemm_s) for one GPU, the H100 SXM preset and profile (the H800
rows' die), so that a change there must be made here too:

    python3 tools/grouped_gemm_check.py [--markdown]

Columns: measured TFLOP/s, then predicted / measured for
  roofline   the default model, calib.c's published constants (fp8: gemm *
             fp8_rel of the fp8 peak, half-rate intensity ridge * peak/bw)
  flat       the kernel-level model of data/hardware/h100-sxm.json, one GEMM
             per group (each pays its own partial last wave)
  grouped    the same, the groups' tiles sharing the waves (--grouped-gemm)
The kernel-level columns use gemm_sw = 1 (a kernel's own rate, not a training
step's share of it).
"""
import csv
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# calib.c: KIND_HOPPER gemm, FP8_GEMM_REL, GEMM_RIDGE_FACTOR; eff.mem_bw
GEMM_HOPPER, FP8_REL, RIDGE, MEM_BW = 0.7069, 0.8665, 1.3156, 0.8


def load(path):
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def models():
    with open(os.path.join(ROOT, "presets", "gpus", "h100-sxm.json"), encoding="utf-8") as f:
        g = json.load(f)
    with open(os.path.join(ROOT, "data", "hardware", "h100-sxm.json"), encoding="utf-8") as f:
        p = json.load(f)
    peak8, bf16, bw = g["peak_tflops"]["fp8"] * 1e12, g["peak_tflops"]["bf16"] * 1e12, \
        g["memory_bw_gb_per_s"] * 1e9
    half = RIDGE * bf16 / bw
    sms, (tm, tn) = p["sm_count"], p.get("gemm_tile", [128, 256])
    mamf8 = p["matmul_tflops"]["fp8"] * 1e12  # = peak * mamf_fp8
    wave_s_per_k = 2.0 * sms * tm * tn / mamf8
    s_per_byte = 1.0 / (bw * MEM_BW)

    def roofline(G, M, N, K):  # time.c gemm_s, header 1
        return G * (2 * M * N * K + 2 * half * (M * K + K * N + M * N)) / \
            (peak8 * GEMM_HOPPER * FP8_REL)

    def shape(G, M, N, K, grouped):  # time.c gemm_shape_s / experts_gemm_s, header 1b
        tiles = math.ceil(M / tm) * math.ceil(N / tn)
        waves = math.ceil(G * tiles / sms) if grouped else G * math.ceil(tiles / sms)
        return waves * K * wave_s_per_k + G * 2 * (M * K + K * N + M * N) * s_per_byte
    return roofline, shape


def main():
    md = "--markdown" in sys.argv[1:]
    roofline, shape = models()
    rows = load(os.path.join(ROOT, "data", "hardware", "grouped-gemm.csv"))
    hdr = ("layout", "groups", "m", "n", "k", "measured", "roofline", "flat", "grouped")
    print("| " + " | ".join(hdr) + " |" if md else "  ".join(f"{h:>10s}" for h in hdr))
    if md:
        print("|---|" + "---:|" * (len(hdr) - 1))
    ratios = {"roofline": [], "flat": [], "grouped": []}
    for r in rows:
        G, M, N, K = (int(r[c]) for c in ("groups", "m_per_group", "n", "k"))
        flops = 2.0 * G * M * N * K
        meas = float(r["tflops"]) * 1e12
        pred = {"roofline": flops / roofline(G, M, N, K),
                "flat": flops / shape(G, M, N, K, False),
                "grouped": flops / shape(G, M, N, K, True)}
        cells = [r["layout"], str(G), str(M), str(N), str(K), r["tflops"]]
        for name in ("roofline", "flat", "grouped"):
            ratios[name].append(pred[name] / meas)
            cells.append(f"{pred[name] / meas:.2f}")
        print("| " + " | ".join(cells) + " |" if md else "  ".join(f"{c:>10s}" for c in cells))
    for name, v in ratios.items():
        err = sorted(abs(math.log(x)) for x in v)
        print(f"{name}: median |log(pred/meas)| {err[len(err) // 2]:.3f}, "
              f"max {err[-1]:.3f} over {len(v)} shapes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
