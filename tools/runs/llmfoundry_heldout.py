#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Held-out rows from llm-foundry's benchmark tables (issue 17).

Reads a local copy of mosaicml/llm-foundry's
scripts/train/benchmarking/README.md (the tables as of commit 5e85bd62d,
2024-01-06) and writes, in runs-dev.csv's columns, every bf16 row of its
H100 and A100 tables that data/runs/runs-dev.csv does not already hold
(same GPU, model, sequence length, GPU count and micro-batch). No constant
of trainplan was fitted on these rows: `trainplan validate` on the output
measures the error on runs of a known source that the fit never saw.

    git show 5e85bd62d:scripts/train/benchmarking/README.md > README.md
    python3 tools/runs/llmfoundry_heldout.py README.md data/runs/runs-dev.csv \
        > data/runs/heldout-llmfoundry.csv

The FP8 table is left out (its MFU is against the bf16 peak while its
Model TFLOP column is not; the recipe is not stated). The model shapes are
those of scripts/train/yamls/pretrain/mpt-*.yaml at the same commit.
"""
import csv
import sys

COMMIT = "5e85bd62d"
# d_model, n_heads, n_layers (expansion ratio 4, vocabulary 50368)
SHAPES = {
    "125m": (768, 12, 12), "350m": (1024, 16, 24), "760m": (1536, 12, 24),
    "1b": (2048, 16, 24), "3b": (2560, 20, 32), "7b": (4096, 32, 32),
    "13b": (5120, 40, 40), "30b": (7168, 56, 48), "70b": (8192, 64, 80),
}
# the README's section title -> (gpu_type cell, id tag, peak bf16 TFLOP/s)
TABLES = {
    "H100 80GB BF16 (Large Scale, >= 128 GPUs)":
        ("H100-80GB (SXM assumed by composer peak table)", "h100bf16", 989.5),
    "H100 80GB BF16": ("H100-80GB (SXM assumed by composer peak table)", "h100bf16", 989.5),
    "A100 80GB with 1600 Gbps node-node interconnect (RoCE)": ("A100-80GB", "a10080", 312.0),
    "A100 40GB with 1600 Gbps node-node interconnect (RoCE)": ("A100-40GB", "a10040", 312.0),
}
PRECISION = {
    ("amp_bf16", "DEFAULT"): "bf16 (torch autocast, fp32 master weights)",
    ("bf16", "PURE"): "bf16 (FSDP mixed precision PURE: params/grads/comm in bf16)",
}
SHARDING = {"FULL_SHARD": ("fsdp", "FSDP FULL_SHARD (ZeRO-3-like)"),
            "SHARD_GRAD_OP": ("2", "FSDP SHARD_GRAD_OP (ZeRO-2-like)")}


def tables(lines):
    """(title, header, rows) of each Markdown table under a '## ' title."""
    title, header, rows = None, None, []
    for line in lines + ["## end"]:
        if line.startswith("## "):
            if title and header:
                yield title, header, rows
            title, header, rows = line[3:].strip(), None, []
        elif line.startswith("|") and title:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
            elif not cells[0].startswith("---"):
                rows.append(dict(zip(header, cells)))


def key(gpu, model, seq, gpus, mb):
    return (gpu, model.lower(), int(seq), int(gpus), int(mb))


def main():
    readme, runs_dev = sys.argv[1], sys.argv[2]
    with open(readme, encoding="utf-8") as f:
        lines = f.read().splitlines()
    with open(runs_dev, encoding="utf-8", newline="") as f:
        dev = list(csv.DictReader(f))
        fields = list(dev[0].keys())
    have = {key(r["gpu_type"], r["model_name"], r["seq_len"], r["num_gpus"], r["micro_batch"])
            for r in dev if r["framework"] == "llm-foundry"}
    out = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n")
    out.writeheader()
    seen = set()
    for title, _, rows in tables(lines):
        if title not in TABLES:
            continue
        gpu_type, tag, peak = TABLES[title]
        for r in rows:
            size = r["Model"]
            d, heads, layers = SHAPES[size]
            name = "MPT-" + size
            seq, gpus, mb = int(r["SeqLen (T)"]), int(r["# GPUs"]), int(r["MicroBatchSize"])
            if key(gpu_type, name, seq, gpus, mb) in have:
                continue
            rid = f"mosaic-heldout-{tag}-mpt{size}-s{seq}-g{gpus}-mb{mb}"
            if rid in seen:
                sys.exit(f"llmfoundry_heldout.py: two rows of '{title}' make the id {rid}")
            seen.add(rid)
            accum, ac = int(r["GradAccum"]), r["Activation Checkpointing"] == "True"
            zero, shard_note = SHARDING[r["Sharding Strategy"]]
            prec = PRECISION[(r["Precision"], r["MP Mode"])]
            tflop = float(r["Model TFLOP"]) if "Model TFLOP" in r else 0.0
            # the A100 tables print Model TFLOP in other units (1e14 to 1e16);
            # only the H100 ones give it as FLOP/s (or as TFLOP/s, large scale)
            tflops = (tflop / 1e12 if tflop > 1e13 else tflop) if tag == "h100bf16" else None
            notes = (f"{shard_note}, grad accum {accum}; total throughput {r['Throughput (T/s)']} "
                     f"tok/s; NumParams {r['NumParams']} includes learned positional embedding "
                     f"(max_seq_len x d_model, so it grows with seq_len), biases, tied embedding; "
                     f"MPT arch from scripts/train/yamls/pretrain/mpt-{size}.yaml (MHA, GELU MLP "
                     f"expansion 4, vocab 50368); attn_impl triton (submit_benchmarks.py "
                     f"default); 12-step benchmark runs; held out: not in runs-dev.csv, no "
                     f"constant fitted on it")
            row = {k: "" for k in fields}
            row.update({
                "id": rid,
                "source": (f"mosaicml/llm-foundry scripts/train/benchmarking/README.md (tables "
                           f"last updated commit {COMMIT}, 2024-01-06) '{title}' table"),
                "model_name": name, "params_reported": r["NumParams"], "layers": layers,
                "hidden": d, "heads": heads, "kv_heads": heads, "ffn_hidden": 4 * d,
                "vocab": 50368, "seq_len": seq, "gpu_type": gpu_type, "num_gpus": gpus,
                "gpus_per_node": 8,
                "interconnect": "" if tag == "h100bf16" else "1600 Gbps node-node RoCE",
                "precision": prec, "tp": 1, "pp": 1, "dp": gpus, "cp": 1, "ep": 1, "sp": "n",
                "zero_or_fsdp": zero, "recompute": "full" if ac else "none",
                "micro_batch": mb, "global_batch": int(r["GlobalBatchSize"]),
                "measured_tflops_per_gpu": f"{tflops:.1f}" if tflops else "",
                "tflops_basis": ("model FLOPs per GPU (6N + attention 12*L*d*s per token; "
                                 "excludes recompute)") if tflops else "",
                "peak_tflops_for_mfu": peak,
                "measured_mfu": f"{float(r['MFU']) / 100:.4f}",
                "measured_hfu": f"{float(r['HFU']) / 100:.4f}",
                "measured_tokens_per_sec": r["Throughput (T/s/GPU)"],
                "tokens_per_sec_unit": "per GPU", "notes": notes, "framework": "llm-foundry",
            })
            out.writerow(row)


if __name__ == "__main__":
    main()
