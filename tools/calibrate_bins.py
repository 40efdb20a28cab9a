#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
calibrate_bins.py: the cross-validation errors against model size, GPU count,
GPU type, framework and MoE.

    python3 tools/calibrate.py --cv --cv-json base.json
    python3 tools/calibrate.py --cv --profiles --cv-json prof.json
    python3 tools/calibrate_bins.py base.json prof.json [--csv data/runs/runs-dev.csv]

For each --cv-json file (calibrate.py) it prints the median and the 90th
percentile of |predicted / measured - 1| (held out, and in-sample beside it)
by model size (params_reported of the row), by GPU count (num_gpus), by GPU
type (gpu_type, as validate reads it), by framework (the framework column)
and dense against MoE (moe_experts), and the signed median (does the error
grow or change sign with size?).
Percentiles as calibrate.py's (linear interpolation). Not part of the build.
"""
import argparse
import csv
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZE_BINS = [(0, 10e9, "< 10B"), (10e9, 50e9, "10-50B"), (50e9, 200e9, "50-200B"),
             (200e9, 1e15, ">= 200B")]
GPU_BINS = [(1, 16, "1-15"), (16, 128, "16-127"), (128, 1024, "128-1023"), (1024, 10 ** 9, ">= 1024")]


def pct(values, q):
    v = sorted(values)
    if not v:
        return float("nan")
    pos = q * (len(v) - 1)
    lo = int(pos)
    return v[-1] if lo + 1 >= len(v) else v[lo] + (pos - lo) * (v[lo + 1] - v[lo])


def params_of(text):
    """The first size in the cell: '175B', 'MPT-7b', 'Llama 3 70B', 'Qwen3-30B-A3B'
    (30B: total), 'MPT-350m', '6658859008' -> parameters; None when there is none."""
    if re.fullmatch(r"\s*[0-9]+\s*", text or ""):
        return float(text)  # an exact count (Mosaic's rows)
    m = re.search(r"([0-9]+(?:\.[0-9]+)?)\s*([KMBT])(?![A-Z])", text or "", re.IGNORECASE)
    if not m:
        return None
    return float(m.group(1)) * {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}[m.group(2).upper()]


def table(rows, key, bins, label):
    print(f"  by {label}:")
    print(f"    {'bin':10s} {'rows':>4s} {'held-out median / p90':>22s} {'signed median':>14s}"
          f" {'in-sample median / p90':>23s}")
    for lo, hi, name in bins:
        sel = [r for r in rows if r[key] is not None and lo <= r[key] < hi]
        if not sel:
            continue
        ho = [abs(r["held_out"]) for r in sel]
        ins = [abs(r["in_sample"]) for r in sel]
        signed = pct([r["held_out"] for r in sel], 0.5)
        print(f"    {name:10s} {len(sel):4d} {100 * pct(ho, .5):9.1f}% / {100 * pct(ho, .9):6.1f}%"
              f" {100 * signed:+13.1f}% {100 * pct(ins, .5):10.1f}% / {100 * pct(ins, .9):6.1f}%")


# gpu_type words -> the GPU validate evaluates the row on (validate.c's table, same order)
GPU_KINDS = [(("GB200",), "gb200"), (("B200",), "b200"), (("H200",), "h200"), (("H800",), "h800"),
             (("H100", "96GB", "500W"), "h100-96gb-500w"), (("H100",), "h100-sxm"),
             (("A100", "40GB"), "a100-40gb"), (("A100",), "a100-80gb")]


def gpu_of(cell):
    up = (cell or "").upper()
    for words, name in GPU_KINDS:
        if all(w in up for w in words):
            return name
    return None


def label_table(rows, key, label):
    """The table of `table` with one bin per distinct value of r[key]."""
    names = sorted({r[key] for r in rows if r[key] is not None})
    bins = [(n, n, n) for n in names]
    print(f"  by {label}:")
    print(f"    {'bin':15s} {'rows':>4s} {'held-out median / p90':>22s} {'signed median':>14s}"
          f" {'in-sample median / p90':>23s}")
    for name, _, _ in bins:
        sel = [r for r in rows if r[key] == name]
        ho = [abs(r["held_out"]) for r in sel]
        ins = [abs(r["in_sample"]) for r in sel]
        signed = pct([r["held_out"] for r in sel], 0.5)
        print(f"    {name:15s} {len(sel):4d} {100 * pct(ho, .5):9.1f}% / {100 * pct(ho, .9):6.1f}%"
              f" {100 * signed:+13.1f}% {100 * pct(ins, .5):10.1f}% / {100 * pct(ins, .9):6.1f}%")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("cv_json", nargs="+")
    ap.add_argument("--csv", default=os.path.join(ROOT, "data", "runs", "runs-dev.csv"))
    ap.add_argument("--only", choices=("dense", "MoE"), help="the dense or the MoE rows only")
    args = ap.parse_args()
    with open(args.csv, newline="", encoding="utf-8") as f:
        meta = {r["id"]: r for r in csv.DictReader(f)}
    for path in args.cv_json:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        rows = doc["rows"]
        for r in rows:
            m = meta.get(r["id"], {})
            r["params"] = params_of(m.get("params_reported", ""))
            try:
                r["gpus"] = int(float(m.get("num_gpus", "")))
            except ValueError:
                r["gpus"] = None
            r["gpu"] = gpu_of(m.get("gpu_type", ""))
            r["framework"] = m.get("framework") or "(none)"
            r["moe"] = "MoE" if (m.get("moe_experts") or "").strip() else "dense"
        if args.only:
            rows = [r for r in rows if r["moe"] == args.only]
        print(f"{path} ({'hardware profiles' if doc['profiles'] else 'fitted fractions'}, "
              f"{len(rows)} rows)")
        table(rows, "params", SIZE_BINS, "model size (params_reported)")
        table(rows, "gpus", GPU_BINS, "GPU count")
        label_table(rows, "gpu", "GPU type")
        label_table(rows, "framework", "framework")
        label_table(rows, "moe", "dense or MoE")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
