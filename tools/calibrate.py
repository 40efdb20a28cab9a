#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
calibrate.py: fit the step-time model's free constants on runs-dev.csv.

Not part of the build. It reads only the measured-runs file, through
`trainplan validate FILE --json --eff ...` (the same model the library
uses, so the fit cannot drift from the code), and prints the fitted
constants and the error they leave. Copy the printed values into
src/lib/calib.c and docs/ACCURACY.md.

    python3 tools/calibrate.py [--trainplan build/trainplan]
                               [--csv ../shared/reference/runs-dev.csv]

Free constants (10):
  gemm_KIND     large bf16/fp16 GEMM fraction of the dense peak, KIND = ampere
                (A100), hopper (H100, H200, H800), blackwell (B200, GB200)
  attn_KIND     FlashAttention fraction of the 16-bit dense peak, per KIND
  fp8_rel       fp8 GEMM fraction of the fp8 peak, relative to gemm
  ridge         GEMM half-rate intensity / the GPU's roofline ridge (peak/HBM bw)
  overlap       fraction of overlappable communication that hides
  clock_500w    achieved-clock factor of the 96 GB H100 capped at 500 W
                (torchtitan rows), applied to the hopper values
Fixed (not fitted, sources in calib.c and time.c): memory-bandwidth
fraction 0.8, NCCL busbw fractions 0.82 (NVLink) and 0.94 (NIC), latencies
2 and 5 us, the Ampere-era attention kernel ratio on Hopper 35/75
(FlashAttention-3 paper), unfused attention dropout 5 B per score.

Objective: mean |log(predicted / measured)| over every row with a
throughput plus the 90th percentile of the same (the median target and the
tail target both count; no single row can pull the constants far). Search: coordinate descent with shrinking steps from several starts
(the objective is cheap: one validate run takes ~10 ms), pure Python.
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PARAMS = [
    # name, start, lower, upper
    # starts: the values in src/lib/calib.c (a warm start; the search
    # still walks the whole box with steps of a quarter of each range)
    ("gemm_ampere", 0.6995, 0.30, 1.00),
    ("attn_ampere", 0.7500, 0.10, 0.75),
    ("gemm_hopper", 0.7069, 0.30, 1.00),
    ("attn_hopper", 0.2922, 0.10, 0.75),
    ("gemm_blackwell", 0.7227, 0.30, 1.00),
    ("attn_blackwell", 0.4038, 0.10, 0.75),
    ("fp8_rel", 0.8665, 0.40, 1.00),
    ("ridge", 1.3156, 0.0, 8.0),
    ("overlap", 1.0, 0.0, 1.0),
    ("clock_500w", 0.7482, 0.30, 1.20),
]

# GPU name prefix (as --eff matches it) -> (kind, clock factor parameter or None)
GPUS = {
    "a100-80gb": ("ampere", None), "a100-40gb": ("ampere", None),
    "h100-sxm": ("hopper", None), "h200": ("hopper", None), "h800": ("hopper", None),
    "h100-96gb": ("hopper", "clock_500w"),
    "b200": ("blackwell", None), "gb200": ("blackwell", None),
}
# peak bf16 FLOP/s / HBM bytes/s of each GPU (presets; the derived 500 W part)
RIDGE = {"a100-80gb": 312e12 / 2039e9, "a100-40gb": 312e12 / 1555e9,
         "h100-sxm": 989.4e12 / 3350e9, "h200": 989.4e12 / 4800e9, "h800": 989.4e12 / 3350e9,
         "h100-96gb": 989.4e12 / 2400e9, "b200": 2250e12 / 8000e9, "gb200": 2500e12 / 8000e9}


def gpu_eff(p, name):
    kind, clock = GPUS[name]
    c = p[clock] if clock else 1.0
    g = min(1.0, p["gemm_" + kind] * c)
    return g, min(1.0, g * p["fp8_rel"]), min(1.0, p["attn_" + kind] * c)


def eff_list(p):
    items = []
    for name in GPUS:
        g, g8, a = gpu_eff(p, name)
        items += [f"{name}:gemm={g:.6f}", f"{name}:gemm_fp8={g8:.6f}", f"{name}:attn={a:.6f}",
                  f"{name}:gemm_half_dim={p['ridge'] * RIDGE[name]:.3f}"]
    items.append(f"overlap={p['overlap']:.6f}")
    return ",".join(items)


def run(trainplan, csv, p):
    out = subprocess.run([trainplan, "validate", csv, "--json", "--eff", eff_list(p)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def errors(doc):
    return [(r["id"], r["throughput"]["rel_error"]) for r in doc["rows"]
            if r.get("evaluated") and r.get("throughput")]


def objective(trainplan, csv, p):
    """Mean absolute log error plus its 90th percentile: the median and the
    tail both count, and no single row can pull the constants far."""
    errs = sorted(abs(math.log1p(e)) for _, e in errors(run(trainplan, csv, p)))
    if not errs:
        return 0.0
    pos = 0.9 * (len(errs) - 1)
    lo = int(pos)
    p90 = errs[lo] if lo + 1 >= len(errs) else errs[lo] + (pos - lo) * (errs[lo + 1] - errs[lo])
    return sum(errs) / len(errs) + p90


def stats(values):
    v = sorted(abs(x) for x in values)
    if not v:
        return 0.0, 0.0, 0.0

    def pct(q):
        pos = q * (len(v) - 1)
        lo = int(pos)
        if lo + 1 >= len(v):
            return v[-1]
        return v[lo] + (pos - lo) * (v[lo + 1] - v[lo])
    return pct(0.5), pct(0.9), v[-1]


def fit(trainplan, csv):
    best = {n: s for n, s, _, _ in PARAMS}
    fbest = objective(trainplan, csv, best)
    step = {n: (hi - lo) / 4 for n, _, lo, hi in PARAMS}
    for _ in range(60):
        improved = False
        for n, _, lo, hi in PARAMS:
            for sign in (1, -1):
                trial = dict(best)
                trial[n] = min(hi, max(lo, best[n] + sign * step[n]))
                f = objective(trainplan, csv, trial)
                if f < fbest - 1e-9:
                    best, fbest, improved = trial, f, True
                    break
        if not improved:
            for n in step:
                step[n] /= 2
            if max(step[n] / (hi - lo) for n, _, lo, hi in PARAMS) < 1e-3:
                break
    return best, fbest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--trainplan", default=os.path.join(ROOT, "build", "trainplan"))
    ap.add_argument("--csv", default=os.path.join(ROOT, "..", "shared", "reference",
                                                  "runs-dev.csv"))
    ap.add_argument("--show", action="store_true", help="print per-row errors")
    args = ap.parse_args()
    p, f = fit(args.trainplan, args.csv)
    doc = run(args.trainplan, args.csv, p)
    errs = errors(doc)
    med, p90, mx = stats([e for _, e in errs])
    print("fitted constants (mean |log error| %.4f):" % f)
    for n, _, _, _ in PARAMS:
        print(f"  {n:13s} {p[n]:.4f}")
    for name in GPUS:
        g, g8, a = gpu_eff(p, name)
        print(f"  -> {name:10s} gemm {g:.3f}  gemm_fp8 {g8:.3f}  attn {a:.3f}  "
              f"half_dim {p['ridge'] * RIDGE[name]:.0f}")
    print(f"throughput over {len(errs)} rows: median {100 * med:.1f}%, "
          f"p90 {100 * p90:.1f}%, max {100 * mx:.1f}%")
    m = doc["summary"]["memory"]
    print(f"memory over {m['rows']} rows: median {100 * m['median_abs_rel_error']:.1f}%, "
          f"p90 {100 * m['p90_abs_rel_error']:.1f}%, max {100 * m['max_abs_rel_error']:.1f}%")
    fit_ = doc["summary"]["fit"]
    print(f"fit verdict: {fit_['correct']} of {fit_['rows']}")
    if args.show:
        for i, e in sorted(errs, key=lambda x: x[1]):
            print(f"  {100 * e:+7.1f}%  {i}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
