#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# steps_test.sh: tools/steps/steps.py (issue 17, item 5) on the CPU, tiny
# shapes: its pure logic (parameter counts, the gpu_type of a device name,
# the grid, the out-of-memory test, the column layout), then a run of a few
# configurations, one of them failed as out of memory on purpose, whose
# rows must have the header of data/runs/runs-dev.csv and the cells the
# script states, and which `trainplan validate` lists as not evaluated
# (a CPU is no GPU trainplan models); --append and the option errors.
#
#   bash tests/cli/steps_test.sh /path/to/trainplan
#
# Needs a python3 with PyTorch (Debian: python3-torch, tools/install-deps.sh).
# Without one it skips (exit 77) with a message, except under CI=true where
# it fails: CI installs it. The times measured on the CPU mean nothing;
# what is tested is that the rows are rows trainplan reads.
set -u

T=${1:?usage: steps_test.sh /path/to/trainplan}
SRC=${TP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
STEPS=$SRC/tools/steps/steps.py
. "$(dirname "$0")/lib.sh"

# ---------------------------------------------------------------- logic (no torch needed)
pycheck "steps.py logic" "$SRC/tools/steps" "$SRC/data/runs/runs-dev.csv" <<'EOF'
import csv, sys
sys.path.insert(0, sys.argv[1])
import steps
# the rows' columns are the runs file's, in its order
assert steps.COLUMNS == next(csv.reader(open(sys.argv[2]))), "COLUMNS != runs-dev.csv header"
m = steps.shapes(False)
# dense-125m by hand: embedding + head 2*32000*768; per layer two norms
# 2*768, q and o 2*768*768, k and v 2*768*256, SwiGLU 3*768*2048; final norm 768
assert m["dense-125m"].params() == 2 * 32000 * 768 + 12 * (
    2 * 768 + 2 * 768 * 768 + 2 * 768 * 256 + 3 * 768 * 2048) + 768 == 124_668_672
# moe-8e-top2: router 768*8 and 8 experts of 3*768*1024 per layer; active: 2 of them
moe = m["moe-8e-top2"]
attn = 2 * 768 * 768 + 2 * 768 * 256
assert moe.params() == 2 * 32000 * 768 + 12 * (2 * 768 + attn + 768 * 8 + 8 * 3 * 768 * 1024) + 768
assert moe.params(active=True) == moe.params() - 12 * 6 * 3 * 768 * 1024
dense = sorted(s.params() for s in m.values() if not s.experts)
assert len(dense) == 4 and 120e6 < dense[0] < 130e6 and 1.2e9 < dense[-1] < 1.4e9, dense
assert sum(1 for s in m.values() if s.experts) == 2
assert [s.head_dim for s in m.values()] == [64, 64, 128, 128, 64, 128]
assert set(steps.shapes(True)) == set(m)
assert steps.human_count(124_668_672) == "124.7M" and steps.human_count(1_263_000_000) == "1.26B"
# gpu_type: the runs file's style, which validate maps to its presets
for name, want in [("NVIDIA H100 80GB HBM3", "H100-SXM-80GB"), ("NVIDIA H200", "H200-SXM-141GB"),
                   ("NVIDIA H100 PCIe", "H100-PCIe-80GB"), ("NVIDIA H100 NVL", "H100-NVL"),
                   ("NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"), ("NVIDIA B200", "B200"),
                   ("NVIDIA GH200 480GB", "GH200"), ("AMD Instinct MI300X", "Instinct-MI300X"),
                   ("CPU", "CPU")]:
    assert steps.gpu_type_of(name) == want, (name, steps.gpu_type_of(name))
# the grid: 6 models x 3 sequence lengths x 3 micro-batches x 2 recompute modes
full = steps.grid(list(m.values()), steps.SEQ_LENS, steps.MICRO_BATCHES, steps.RECOMPUTE)
assert len(full) == 108 and full[0][1:] == (1024, 1, "none") and full[-1][1:] == (4096, 4, "full")
assert steps.config_id("H100-SXM-80GB", m["dense-1.3b"], 4096, 2, "full", False) == \
    "steps-h100-dense-1.3b-s4096-mb2-rcfull"
assert steps.parse_list("4096,1024", steps.SEQ_LENS, "--seq-lens", int) == [1024, 4096]
for bad, msg in [("512", '--seq-lens: "512" is not one of 1024,2048,4096'),
                 ("x", '--seq-lens: "x" is not one of 1024,2048,4096')]:
    try:
        steps.parse_list(bad, steps.SEQ_LENS, "--seq-lens", int)
        raise SystemExit("parse_list accepted " + bad)
    except ValueError as e:
        assert str(e) == msg, str(e)
# out of memory: the device's exception type, a host MemoryError, torch's messages; nothing else
class Oom(RuntimeError):
    pass
assert steps.is_oom(Oom("x"), Oom) and steps.is_oom(MemoryError())
assert steps.is_oom(RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"))
assert steps.is_oom(RuntimeError("[enforce fail] DefaultCPUAllocator: can't allocate memory"))
assert steps.is_oom(RuntimeError("CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling cublasCreate"))
assert not steps.is_oom(RuntimeError("shape mismatch")) and not steps.is_oom(ValueError("x"), Oom)
EOF

# ---------------------------------------------------------------- a python3 with torch
need_torch_python step

# ---------------------------------------------------------------- the model is causal
# changing tokens from position 20 on leaves the logits before it alone and
# moves those after; recompute full gives the gradients of none (dense, MoE)
if "$PY" - "$SRC/tools/steps" >"$tmp/model.err" 2>&1 <<'EOF'; then ok; else
import sys
sys.path.insert(0, sys.argv[1])
import steps
import torch
for name in ("dense-350m", "moe-8e-top2"):
    s = steps.shapes(True)[name]
    grads = {}
    for rc in ("none", "full"):
        torch.manual_seed(0)
        m, _ = steps.build_model(torch, s, torch.device("cpu"), rc)
        assert sum(p.numel() for p in m.parameters()) == s.params()
        cap = {}
        m.head.register_forward_hook(lambda mod, i, o: cap.__setitem__("x", o.detach()))
        torch.manual_seed(1)
        t = torch.randint(0, s.vocab, (2, 32))
        y = torch.randint(0, s.vocab, (2, 32))
        m(t, y).backward()
        # (an expert no token chose has no gradient)
        grads[rc] = [None if p.grad is None else p.grad.clone() for p in m.parameters()]
        a = cap["x"].clone()
        t[:, 20:] = (t[:, 20:] + 1) % s.vocab
        m(t, y)
        assert torch.equal(a[:, :20], cap["x"][:, :20]), (name, rc, "not causal")
        assert (a[:, 20:] - cap["x"][:, 20:]).abs().max() > 1e-3, (name, rc)
    assert all(g is h is None or torch.allclose(g, h, atol=1e-6)
               for g, h in zip(grads["none"], grads["full"])), name
EOF
    bad "the model: $(tail -3 "$tmp/model.err")"; fi

# ---------------------------------------------------------------- a run of four configurations
# dense and MoE, recompute none and full, at seq 64 and micro-batch 2; the
# dense one with full recompute fails as out of memory (--simulate-oom)
OOM_ID=steps-cpu-tiny-dense-125m-s64-mb2-rcfull
args=(--device cpu --tiny --iters 2 --warmup 1 --models dense-125m,moe-8e-top2 --seq-lens 64
    --micro-batches 2)
if "$PY" "$STEPS" --out "$tmp/rows.csv" "${args[@]}" --simulate-oom "$OOM_ID" \
    >"$tmp/steps.out" 2>"$tmp/steps.err"; then ok; else
    bad "steps.py failed: $(tail -3 "$tmp/steps.err")"; fi
if grep -qx "# skipped $OOM_ID: out of memory on CPU: CUDA out of memory (simulated by --simulate-oom)" \
    "$tmp/steps.err"; then ok; else bad "no '# skipped' line: $(cat "$tmp/steps.err")"; fi
if grep -qx "steps.py: wrote $tmp/rows.csv: 3 configuration(s), 6 row(s), 1 skipped (out of memory)" \
    "$tmp/steps.err" && [ ! -s "$tmp/steps.out" ]; then ok; else
    bad "steps.py summary: $(tail -1 "$tmp/steps.err")"; fi
if [ "$(head -1 "$tmp/rows.csv")" = "$(head -1 "$SRC/data/runs/runs-dev.csv")" ]; then ok; else
    bad "header differs from data/runs/runs-dev.csv's"; fi
pycheck "rows.csv cells" "$tmp/rows.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ids = [r["id"] for r in rows]
want = []
for cid in ("steps-cpu-tiny-dense-125m-s64-mb2-rcnone", "steps-cpu-tiny-moe-8e-top2-s64-mb2-rcnone",
            "steps-cpu-tiny-moe-8e-top2-s64-mb2-rcfull"):
    want += [cid, cid + "-reserved"]
assert ids == want, ids
same = {"num_gpus": "1", "gpus_per_node": "1", "tp": "1", "pp": "1", "dp": "1", "cp": "1",
        "ep": "1", "sp": "n", "zero_or_fsdp": "0", "gpu_type": "CPU", "framework": "none",
        "micro_batch": "2", "global_batch": "2", "seq_len": "64", "vocab": "512", "layers": "2",
        "hidden": "64", "heads": "4", "kv_heads": "2", "precision": "fp32 (CPU: no autocast)",
        "measured_memory_gb_per_gpu": "", "memory_metric": "", "measured_tokens_per_sec": ""}
for r in rows:
    for k, v in same.items():
        assert r[k] == v, (r["id"], k, r[k], v)
    assert r["source"].startswith("tools/steps/steps.py @ ") and ", CPU, torch " in r["source"]
    assert r["source"].endswith(", tiny CPU shapes: for tests, not a measurement"), r["source"]
    assert r["recompute"] == ("full" if "-rcfull" in r["id"] else "none")
    assert ("torch.utils.checkpoint around every layer" in r["notes"]) == (r["recompute"] == "full")
    assert "masked math attention" in r["notes"] or "scaled_dot_product_attention" in r["notes"]
    assert "torch.optim.AdamW (for-loop" in r["notes"] and "fp32 (CPU: no autocast)" in r["notes"]
    assert "median of 2 after 1 warm-up" in r["notes"], r["notes"]
    assert "OUT OF MEMORY" not in r["notes"]  # validate would expect the row not to fit
    moe = "moe" in r["id"]
    assert r["model_name"] == "Llama-shaped tiny %s (tools/steps/steps.py)" % (
        "moe-8e-top2" if moe else "dense-125m")
    assert r["ffn_hidden"] == ("64 per expert" if moe else "128")
    assert (r["moe_experts"], r["moe_topk"]) == (("8", "2") if moe else ("", ""))
    assert ("dropless" in r["notes"]) == moe
    # dense: 2*512*64 + 2*(2*64 + 2*64*64 + 2*64*32 + 3*64*128) + 64
    assert r["params_reported"] == ("288.1K total / 140.6K active" if moe else "139.6K"), \
        r["params_reported"]
    if r["id"].endswith("-reserved"):
        assert r["measured_step_time_s"] == "" and "max_memory_reserved twin of row" in r["notes"]
    else:
        assert float(r["measured_step_time_s"]) > 0, r["measured_step_time_s"]
EOF

# ---------------------------------------------------------------- trainplan validate reads them
run validate "$tmp/rows.csv"
if [ "$rc" -eq 0 ]; then ok; else bad "validate rows.csv: exit $rc $(cat "$tmp/err")"; fi
has "validate count" "trainplan validate: $tmp/rows.csv: 6 rows, 0 evaluated, 6 not evaluated"
line=2
for id in $(cut -d, -f1 "$tmp/rows.csv" | tail -n +2); do
    has "validate $id" "  $id (line $line): CPU: not a GPU trainplan models"
    line=$((line + 1))
done

# ---------------------------------------------------------------- --append and errors
# a configuration already in the file is skipped (a resumed run), a new one added
if "$PY" "$STEPS" --out "$tmp/rows.csv" --append --device cpu --tiny --iters 1 --warmup 0 \
    --models dense-125m,dense-350m --seq-lens 32,64 --micro-batches 2 --recompute none \
    2>"$tmp/steps.err"; then ok
else bad "--append failed: $(tail -3 "$tmp/steps.err")"; fi
if grep -qx "# already in $tmp/rows.csv: steps-cpu-tiny-dense-125m-s64-mb2-rcnone" "$tmp/steps.err" &&
    grep -qx "steps.py: wrote $tmp/rows.csv: 3 configuration(s), 6 row(s), 0 skipped (out of memory)" \
        "$tmp/steps.err"; then ok
else bad "--append: $(cat "$tmp/steps.err")"; fi
pycheck "appended" "$tmp/rows.csv" <<'EOF'
import sys
lines = open(sys.argv[1]).read().splitlines()
assert sum(l.startswith("id,source,") for l in lines) == 1
ids = [l.split(",")[0] for l in lines if l.startswith("steps-")]
assert len(ids) == len(set(ids)) == 12, ids
assert ids[6:] == [f"steps-cpu-tiny-{m}-s{s}-mb2-rcnone{r}" for m, s in
                   (("dense-125m", 32), ("dense-350m", 32), ("dense-350m", 64)) for r in ("", "-reserved")]
EOF
printf 'id,source\n' >"$tmp/other.csv"
"$PY" "$STEPS" --out "$tmp/other.csv" --append --device cpu --tiny --models dense-125m \
    >/dev/null 2>"$tmp/steps.err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(cat "$tmp/steps.err")" = \
    "steps.py: $tmp/other.csv: --append: its header is not the runs file's (2 columns)" ]; then ok
else bad "--append to another header: exit $rc $(cat "$tmp/steps.err")"; fi
"$PY" "$STEPS" --out "$tmp/x.csv" --tiny --models dense-125m,dense-9b >/dev/null 2>"$tmp/steps.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -q 'error: --models: "dense-9b" is not one of dense-125m,dense-350m,' \
    "$tmp/steps.err" && [ ! -e "$tmp/x.csv" ]; then ok
else bad "--models dense-9b: exit $rc $(cat "$tmp/steps.err")"; fi

finish
