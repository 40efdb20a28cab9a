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
                               [--csv data/runs/runs-dev.csv]
    python3 tools/calibrate.py --cv      # leave one source out (minutes)
    python3 tools/calibrate.py --cv --cv-by framework   # leave one framework out
    python3 tools/calibrate.py --profiles [--cv] [--cv-json FILE]
                                 # the kernel-level GEMM model of data/hardware/
    python3 tools/calibrate.py --unfused-full-matrix [--cv]
                                 # unfused attention over the whole matrix (opt-in)
    python3 tools/calibrate.py --profiles --grouped-gemm [--cv]
                                 # routed experts as one grouped GEMM (opt-in)
    python3 tools/calibrate.py --profiles --heldout data/runs/heldout-llmfoundry.csv
                                 # a file never fitted on, by constants refit
                                 # without its source families (minutes)
    python3 tools/calibrate_bins.py FILE.json...   # --cv errors by size, GPUs, GPU type,
                                                   # framework, dense/MoE

Copy the binary first when rebuilding meanwhile (--trainplan /tmp/tp): a
run replaced mid-fit stops the fit.

The constants in calib.c were fitted on the file's first 91 rows, before
20 rows were added (2026-11-23); to reproduce them, fit on those:
`head -n 92 data/runs/runs-dev.csv >fitted.csv` and `--csv fitted.csv`
(docs/ACCURACY.md).

The GPU presets' default GEMM model is the kernel-level one of their
shipped profiles (--profiles fits its constants, PROFILE_* in calib.c);
without --profiles every validate run gets --fitted-gemm, so the nine
constants below stay the fitted-fraction model's (tp_gpu_default_eff).

--cv answers "how wrong is the model on a source it was not fitted on":
for each source family (the row id's first word: megatron21, mcore24,
bloom, titan, torchtune, mosaic, nemo2407, nemo, mbridge2511) it refits
the constants on the other families, from the neutral start neutral()
(the middle of each box, so nothing of the held-out rows leaks in through
a warm start), and predicts the held-out rows.

Free constants (9):
  gemm_KIND     large bf16/fp16 GEMM fraction of the dense peak, KIND = ampere
                (A100), hopper (H100, H200, H800), blackwell (B200, GB200)
  attn_KIND     FlashAttention fraction of the 16-bit dense peak, per KIND
  fp8_rel       fp8 GEMM fraction of the fp8 peak, relative to gemm
  ridge         GEMM half-rate intensity / the GPU's roofline ridge (peak/HBM bw)
  overlap       fraction of overlappable communication that hides
Fixed (not fitted, sources in calib.c, time.c and validate.c): memory-bandwidth
fraction 0.8, NCCL busbw fractions 0.82 (NVLink) and 0.94 (NIC), latencies
2 and 5 us, the Ampere-era attention kernel on Hopper at 1/1.75 of the
native rate (FlashAttention-3 paper), unfused attention dropout 5 B per
score, the 500 W H100's peaks (0.8963 of the SXM's, from the datasheets).
Until issue 17's fourth round a tenth constant, clock_500w, scaled the
500 W H100 rows (torchtitan); with the attention kernel those rows ran
(FlashAttention-2, validate.c) it fitted 1.04 and was dropped.

With --profiles (the presets' default model) 5 constants are free instead:
  gemm_sw       share of the profile's measured matmul rate a step sustains
  attn_sw       share of the profile's best attention kernel (attention_tflops)
  overlap       as above
  moe_host_layer_ms, moe_host_expert_ms
                the host floor of a dropless MoE layer (time.c host_floor):
                base and per local expert, milliseconds
the profiles' measured rates (data/hardware/) being fixed.

Objective: mean |log(predicted / measured)| over every row with a
throughput plus the 90th percentile of the same (the median target and the
tail target both count; no single row can pull the constants far). Search: coordinate descent with shrinking steps from one start (the values
in calib.c, or neutral() under --cv; the objective is cheap: one validate
run takes ~10 ms), pure Python. It finds a local minimum: --cv shows that
another start reaches a different one of similar objective; --cv --starts N
fits every fold from N starts and keeps the best (docs/ACCURACY.md, "How
much the held-out figures depend on the fit's start").
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
    ("gemm_ampere", 0.7047, 0.30, 1.00),
    ("attn_ampere", 0.7500, 0.10, 0.75),
    ("gemm_hopper", 0.7156, 0.30, 1.00),
    ("attn_hopper", 0.3209, 0.10, 0.75),
    ("gemm_blackwell", 0.6910, 0.30, 1.00),
    ("attn_blackwell", 0.4148, 0.10, 0.75),
    ("fp8_rel", 0.9039, 0.40, 1.00),
    ("ridge", 2.0000, 0.0, 8.0),
    ("overlap", 0.8711, 0.0, 1.0),
]

# --profiles: the kernel-level model of data/hardware/ (time.c 1b and 2). The
# GEMM rate is measured (the profile's maximum achievable matmul rate, by
# dtype, with tile and wave quantization on the SM count), so gemm_KIND,
# fp8_rel and ridge are gone; the attention rate is the profile's best
# attention kernel (attention_tflops), so attn_KIND is gone. Five constants
# are left: what a training step loses against the best GEMM kernel
# (gemm_sw) and against the best attention kernel (attn_sw), both shared by
# every GPU, the overlap, and the two of the MoE host floor. 5 instead of 9.
PARAMS_PROFILE = [
    ("gemm_sw", 0.8154, 0.30, 1.00),
    ("attn_sw", 0.5430, 0.10, 1.00),
    ("overlap", 0.6055, 0.0, 1.0),
    # host-bound dropless MoE layers (time.c host_floor), milliseconds
    ("moe_host_layer_ms", 3.4375, 0.0, 20.0),
    ("moe_host_expert_ms", 0.5469, 0.0, 2.0),
]
# calib.c ATTN_KERNEL_OF_MAMF: a profile without attention_tflops
ATTN_KERNEL_OF_MAMF = 0.92
PROFILES = False  # set by --profiles
UNFUSED_FULL = False  # set by --unfused-full-matrix (validate's switch, time.c unfused_attention)
GROUPED_GEMM = False  # set by --grouped-gemm (validate's switch, time.c experts_gemm_s)

# the profile each GPU name of runs-dev.csv uses (its preset's "hw_profile":
# the H800 has the H100 SXM's die and clocks, no MAMF of it is published;
# the 500 W H100's is the SXM's scaled to its peaks), and the preset whose
# peaks the profile's rates divide
PROFILE_OF = {"a100-80gb": "a100-80gb", "a100-40gb": "a100-40gb", "h100-sxm": "h100-sxm",
              "h200": "h200", "h800": "h100-sxm", "h100-96gb": "h100-96gb-500w", "b200": "b200",
              "gb200": "gb200"}
PRESET_OF = {"h800": "h800", "h100-96gb": "h100-96gb-500w"}


def params():
    return PARAMS_PROFILE if PROFILES else PARAMS


def profile_fractions(name):
    """(sm_count, tile_m, tile_n, mamf, mamf_fp8, attention kernel) of the profile of GPU
    `name`, rates as fractions of the preset's dense peaks."""
    prof = PROFILE_OF[name]
    with open(os.path.join(ROOT, "data", "hardware", prof + ".json"), encoding="utf-8") as f:
        d = json.load(f)
    preset = PRESET_OF.get(name, name)
    with open(os.path.join(ROOT, "presets", "gpus", preset + ".json"), encoding="utf-8") as f:
        peak = json.load(f)["peak_tflops"]
    mm = d["matmul_tflops"]
    fp8 = mm["fp8"] / peak["fp8"] if "fp8" in mm and peak.get("fp8") else 0.0
    tm, tn = d.get("gemm_tile", [128, 256])
    mamf = mm["bf16"] / peak["bf16"]
    at = d.get("attention_tflops", {}).get("bf16")
    return d["sm_count"], tm, tn, mamf, fp8, at / peak["bf16"] if at else mamf * ATTN_KERNEL_OF_MAMF


# GPU name prefix (as --eff matches it) -> its kind
GPUS = {
    "a100-80gb": "ampere", "a100-40gb": "ampere",
    "h100-sxm": "hopper", "h200": "hopper", "h800": "hopper", "h100-96gb": "hopper",
    "b200": "blackwell", "gb200": "blackwell",
}
# peak bf16 FLOP/s / HBM bytes/s of each GPU (presets)
RIDGE = {"a100-80gb": 312e12 / 2039e9, "a100-40gb": 312e12 / 1555e9,
         "h100-sxm": 989.4e12 / 3350e9, "h200": 989.4e12 / 4800e9, "h800": 989.4e12 / 3350e9,
         "h100-96gb": 886.8e12 / 2400e9, "b200": 2250e12 / 8000e9, "gb200": 2500e12 / 8000e9}


def gpu_eff(p, name):
    kind = GPUS[name]
    g = p["gemm_" + kind]
    return g, min(1.0, g * p["fp8_rel"]), p["attn_" + kind]


def eff_list_profiles(p):
    items = []
    for name in GPUS:
        sms, tm, tn, mamf, mamf8, attn_kernel = profile_fractions(name)
        items += [f"{name}:sm_count={sms}", f"{name}:tile_m={tm}", f"{name}:tile_n={tn}",
                  f"{name}:mamf={mamf:.6f}", f"{name}:mamf_fp8={mamf8:.6f}",
                  f"{name}:gemm_sw={p['gemm_sw']:.6f}",
                  f"{name}:attn={p['attn_sw'] * attn_kernel:.6f}",
                  f"{name}:moe_host_layer_s={p['moe_host_layer_ms'] * 1e-3:.8f}",
                  f"{name}:moe_host_expert_s={p['moe_host_expert_ms'] * 1e-3:.8f}"]
    items.append(f"overlap={p['overlap']:.6f}")
    return ",".join(items)


def eff_list(p):
    if PROFILES:
        return eff_list_profiles(p)
    items = []
    for name in GPUS:
        g, g8, a = gpu_eff(p, name)
        items += [f"{name}:gemm={g:.6f}", f"{name}:gemm_fp8={g8:.6f}", f"{name}:attn={a:.6f}",
                  f"{name}:gemm_half_dim={p['ridge'] * RIDGE[name]:.3f}"]
    items.append(f"overlap={p['overlap']:.6f}")
    return ",".join(items)


def run(trainplan, csv, p):
    """validate --json with the constants p (None: the published ones, calib.c)."""
    cmd = [trainplan, "validate", csv, "--json"] + (["--eff", eff_list(p)] if p else [])
    if not PROFILES:
        # the GPU presets' default is the profile model: the nine fitted
        # constants are the fitted-fraction model's (validate --fitted-gemm)
        cmd.append("--fitted-gemm")
    if UNFUSED_FULL:
        cmd.append("--unfused-full-matrix")
    if GROUPED_GEMM:
        cmd.append("--grouped-gemm")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def errors(doc):
    return [(r["id"], r["throughput"]["rel_error"]) for r in doc["rows"]
            if r.get("evaluated") and r.get("throughput")]


def objective(trainplan, csv, p):
    """Mean absolute log error plus its 90th percentile: the median and the
    tail both count, and no single row can pull the constants far."""
    return log_objective([e for _, e in errors(run(trainplan, csv, p))])


def log_objective(rel_errors):
    errs = sorted(abs(math.log1p(e)) for e in rel_errors)
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


def fit(trainplan, csv, start=None):
    best = dict(start) if start else {n: s for n, s, _, _ in params()}
    fbest = objective(trainplan, csv, best)
    step = {n: (hi - lo) / 4 for n, _, lo, hi in params()}
    for _ in range(60):
        improved = False
        for n, _, lo, hi in params():
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
            if max(step[n] / (hi - lo) for n, _, lo, hi in params()) < 1e-3:
                break
    return best, fbest


def neutral():
    """The start of every --cv fit: the middle of each constant's box."""
    return {n: (lo + hi) / 2 for n, _, lo, hi in params()}


def halton(i, base):
    """The i-th point of the van der Corput sequence in `base`, in [0, 1)."""
    f, r = 1.0, 0.0
    while i > 0:
        f /= base
        r += f * (i % base)
        i //= base
    return r


STARTS = 1  # --starts: neutral() and STARTS - 1 Halton points over the box


def fit_best(trainplan, csv):
    """fit() from neutral() and from STARTS - 1 more starts spread over the
    box (a Halton sequence, one prime base per constant: deterministic);
    the fit with the lowest training objective wins. The search is local,
    so this measures how much a fold's result owes to its start."""
    primes = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31)
    best = fit(trainplan, csv, neutral())
    for i in range(1, STARTS):
        start = {n: lo + (hi - lo) * halton(i, primes[j])
                 for j, (n, _, lo, hi) in enumerate(params())}
        p, f = fit(trainplan, csv, start)
        if f < best[1] - 1e-9:
            best = (p, f)
    return best


def family(row_id):
    return row_id.split("-", 1)[0]


FOLD_BY = "family"  # --cv-by: "family" (the id's first word) or "framework" (the column)


def fold_keys(lines, header):
    """The fold of each row: its family, or with --cv-by framework its
    framework cell (rows without one fold by their family)."""
    import csv as csvmod
    rows = list(csvmod.reader([header] + lines))
    head, body = rows[0], rows[1:]
    col = head.index("framework") if "framework" in head else None
    keys = []
    for r in body:
        fw = r[col] if col is not None and col < len(r) else ""
        keys.append(fw if FOLD_BY == "framework" and fw else family(r[0]))
    return keys


def cross_validate(trainplan, csv, tmpdir):
    """Leave one source family out: refit on the rest from neutral(),
    predict the held-out rows. Returns {family: [(id, error with the
    published constants, in-sample refit error, held-out error)]} and the
    constants of each fold."""
    with open(csv, encoding="utf-8") as f:
        header, *lines = f.read().splitlines()
    keys = fold_keys(lines, header)
    rows = list(zip(keys, lines))
    key_of = {r.split(",", 1)[0]: k for k, r in rows}
    published = dict(errors(run(trainplan, csv, None)))
    # folds with no evaluable row (a TPU, MLA) have nothing to predict
    fams = sorted({key_of[i] for i in published})
    full, _ = fit_best(trainplan, csv)
    insample = dict(errors(run(trainplan, csv, full)))
    out, consts = {}, {"(all)": full}
    for fam in fams:
        held = [r for f, r in rows if f == fam]
        rest = [r for f, r in rows if f != fam]
        train_csv = os.path.join(tmpdir, f"train-{fam}.csv")
        test_csv = os.path.join(tmpdir, f"test-{fam}.csv")
        for path, part in ((train_csv, rest), (test_csv, held)):
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join([header] + part) + "\n")
        p, _ = fit_best(trainplan, train_csv)
        consts[fam] = p
        errs = errors(run(trainplan, test_csv, p))
        if errs:
            out[fam] = [(i, published[i], insample[i], e) for i, e in errs]
        print(f"  fold {fam}: {len(errs)} rows", file=sys.stderr)
    return out, consts


def heldout_file(trainplan, csv, extra, tmpdir):
    """--heldout FILE: FILE's rows predicted by constants that never saw a
    row of their source families. Refit on csv without the families FILE
    holds (from neutral(), as every --cv fold), then predict FILE; beside
    it the published constants and the whole-file refit. Returns
    {label: [errors]} and the out-of-family constants."""
    with open(csv, encoding="utf-8") as f:
        header, *lines = f.read().splitlines()
    with open(extra, encoding="utf-8") as f:
        eheader, *elines = f.read().splitlines()
    fams = set(fold_keys(elines, eheader))
    keys = fold_keys(lines, header)
    rest = [r for k, r in zip(keys, lines) if k not in fams]
    train_csv = os.path.join(tmpdir, "train.csv")
    with open(train_csv, "w", encoding="utf-8") as f:
        f.write("\n".join([header] + rest) + "\n")
    print(f"  refit without {', '.join(sorted(fams))}: {len(rest)} of {len(lines)} rows",
          file=sys.stderr)
    p, _ = fit_best(trainplan, train_csv)
    full, _ = fit_best(trainplan, csv)
    out = {"published": [e for _, e in errors(run(trainplan, extra, None))],
           "whole-file refit": [e for _, e in errors(run(trainplan, extra, full))],
           "out of family": [e for _, e in errors(run(trainplan, extra, p))]}
    return out, p, sorted(fams)


def print_heldout(extra, out, p, fams):
    print(f"{extra}: throughput error, |predicted / measured - 1|")
    print("  published:        the constants of calib.c")
    print("  whole-file refit: refit on every row of the fit file from the neutral start")
    print(f"  out of family:    refit from the neutral start without {', '.join(fams)}")
    for label, v in out.items():
        m, q, mx = stats(v)
        print(f"  {label:17s} {len(v):4d} rows: median {100 * m:.1f}%, p90 {100 * q:.1f}%, "
              f"max {100 * mx:.1f}%")
    print("out-of-family constants:")
    for n, _, _, _ in params():
        print(f"  {n:17s} {p[n]:.4f}")


def print_cv(out, consts):
    print("throughput error, |predicted / measured - 1|, median / p90 per family:")
    print("  published: the constants of calib.c, fitted on every row (warm-started)")
    print("  in-sample: refit on every row from the neutral start")
    print("  held out:  refit from the neutral start without the family, then the family")
    print(f"  {'family':12s} {'rows':>4s} {'published':>16s} {'in-sample':>16s} {'held out':>16s}")
    cols = ([], [], [])

    def cell(v):
        m, p, _ = stats(v)
        return f"{100 * m:6.1f}% /{100 * p:6.1f}%"
    for fam, rows in out.items():
        per = [[r[k] for r in rows] for k in (1, 2, 3)]
        for c, v in zip(cols, per):
            c += v
        print(f"  {fam:12s} {len(rows):4d} " + " ".join(f"{cell(v):>16s}" for v in per))
    print(f"  {'all':12s} {len(cols[0]):4d} " + " ".join(f"{cell(v):>16s}" for v in cols))
    print(f"  {'max':12s} {'':4s} " +
          " ".join(f"{100 * stats(v)[2]:15.0f}%" for v in cols))
    print(f"  {'objective':12s} {'':4s} " +
          " ".join(f"{log_objective(v):16.4f}" for v in cols) +
          "   (mean + p90 of |log(predicted / measured)|; the fit minimises it)")
    print("constants of each fold:")
    names = [n for n, _, _, _ in params()]
    print("  " + f"{'fold':12s}" + "".join(f"{n[:11]:>12s}" for n in names))
    for fam, p in consts.items():
        print("  " + f"{fam:12s}" + "".join(f"{p[n]:12.4f}" for n in names))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--trainplan", default=os.path.join(ROOT, "build", "trainplan"))
    ap.add_argument("--csv", default=os.path.join(ROOT, "data", "runs", "runs-dev.csv"))
    ap.add_argument("--show", action="store_true", help="print per-row errors")
    ap.add_argument("--cv", action="store_true",
                    help="leave one source family out: out-of-sample error")
    ap.add_argument("--profiles", action="store_true",
                    help="the kernel-level GEMM model of data/hardware/ (6 constants)")
    ap.add_argument("--cv-by", choices=("family", "framework"), default="family",
                    help="with --cv: hold out a source family (default) or a framework at a time")
    ap.add_argument("--unfused-full-matrix", action="store_true",
                    help="rows without FlashAttention charge the whole score matrix (opt-in)")
    ap.add_argument("--grouped-gemm", action="store_true",
                    help="the routed experts as one grouped GEMM (opt-in; moves --profiles only)")
    ap.add_argument("--cv-json", metavar="FILE",
                    help="with --cv: write every row's three errors and the folds' constants")
    ap.add_argument("--fit-from-neutral", action="store_true",
                    help="start the fit from the middle of each box, not the starts")
    ap.add_argument("--heldout", metavar="FILE",
                    help="predict FILE's rows (a runs file never fitted on) with constants "
                    "refit without their source families, beside the published ones")
    ap.add_argument("--starts", type=int, default=1, metavar="N",
                    help="with --cv: fit every fold from N starts (the box's middle and "
                    "N - 1 Halton points), keep the best training objective (default 1)")
    args = ap.parse_args()
    if args.starts < 1 or args.starts > 64:
        ap.error(f"--starts {args.starts}: must be an integer in [1, 64]")
    global PROFILES, UNFUSED_FULL, GROUPED_GEMM, FOLD_BY, STARTS
    STARTS = args.starts
    PROFILES = args.profiles
    FOLD_BY = args.cv_by
    UNFUSED_FULL = args.unfused_full_matrix
    GROUPED_GEMM = args.grouped_gemm
    if args.heldout:
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            out, p, fams = heldout_file(args.trainplan, args.csv, args.heldout, d)
        print_heldout(args.heldout, out, p, fams)
        return 0
    if args.cv:
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            out, consts = cross_validate(args.trainplan, args.csv, d)
        print_cv(out, consts)
        if args.cv_json:
            rows = [{"id": i, "family": fam, "published": a, "in_sample": b, "held_out": c}
                    for fam, rs in out.items() for i, a, b, c in rs]
            with open(args.cv_json, "w", encoding="utf-8") as f:
                json.dump({"profiles": PROFILES, "unfused_full_matrix": UNFUSED_FULL,
                           "grouped_gemm": GROUPED_GEMM, "rows": rows,
                           "constants": consts}, f, indent=1)
        return 0
    p, f = fit(args.trainplan, args.csv, neutral() if args.fit_from_neutral else None)
    doc = run(args.trainplan, args.csv, p)
    errs = errors(doc)
    med, p90, mx = stats([e for _, e in errs])
    print("fitted constants (mean |log error| %.4f):" % f)
    for n, _, _, _ in params():
        print(f"  {n:13s} {p[n]:.4f}")
    for name in ([] if PROFILES else GPUS):
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
