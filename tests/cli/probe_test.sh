#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# probe_test.sh: tools/probe/probe.py (issue 17) on the CPU, tiny shapes:
# its pure logic (nccl-tests' busbw factors, the link of a layout), then a
# one-process run and a two-process run (gloo, --spawn) whose profile files
# trainplan reads with --hw-profile; and the errors a bad profile gives.
#
#   bash tests/cli/probe_test.sh /path/to/trainplan
#
# Needs a python3 with PyTorch (Debian: python3-torch, tools/install-deps.sh).
# Without one it skips (exit 77) with a message, except under CI=true where
# it fails: CI installs it. The numbers measured on the CPU mean nothing;
# what is tested is that the file the probe writes is one trainplan reads.
set -u

T=${1:?usage: probe_test.sh /path/to/trainplan}
SRC=${TP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PROBE=$SRC/tools/probe/probe.py
. "$(dirname "$0")/lib.sh"

# ---------------------------------------------------------------- logic (no torch needed)
if python3 - "$SRC/tools/probe" <<'EOF'; then ok; else bad "probe.py logic"; fi
import sys
sys.path.insert(0, sys.argv[1])
import probe
# nccl-tests PERFORMANCE.md: 8 ranks, 1 GB in 10 ms
assert abs(probe.busbw_gb_per_s("all_reduce", 1e9, 0.01, 8) - 175.0) < 1e-9
assert abs(probe.busbw_gb_per_s("all_gather", 1e9, 0.01, 8) - 87.5) < 1e-9
assert abs(probe.busbw_gb_per_s("send_recv", 1e9, 0.01, 2) - 100.0) < 1e-9
assert probe.link_of(8, 8, True) == "nvlink"
assert probe.link_of(2, 2, False) == "pcie"
assert probe.link_of(16, 8, True) == "network"
try:
    probe.busbw_gb_per_s("all_reduce", 1, 0.0, 2)
    raise SystemExit("a zero time must be refused")
except ValueError:
    pass
# the host link: the slower direction, with both in the source; none on the CPU
f = probe.host_link_fields({"h2d": 346.2, "d2h": 295.04, "bytes": 1 << 30}, 2)
assert f["host_link_gb_per_s"] == 295.04, f
assert "2 rank(s) at once" in f["host_link_source"] and "346.2" in f["host_link_source"]
assert probe.host_link_fields(None, 1) == {}
try:
    probe.host_link_fields({"h2d": 0.0, "d2h": 1.0, "bytes": 1}, 1)
    raise SystemExit("a zero rate must be refused")
except ValueError:
    pass
EOF

# ---------------------------------------------------------------- a python3 with torch
need_torch_python probe

# ---------------------------------------------------------------- one process
probe_args=(--device cpu --tiny --iters 2 --warmup 1 --gpu cpu-test)
if "$PY" "$PROBE" --out "$tmp/one.json" "${probe_args[@]}" >"$tmp/probe.out" 2>&1; then ok; else
    bad "probe.py (one process) failed: $(tail -3 "$tmp/probe.out")"; fi
if python3 - "$tmp/one.json" <<'EOF'; then ok; else bad "one.json content"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "trainplan-hw-profile-1" and d["measured"] == "probe"
assert d["gpu"] == "cpu-test" and d["sm_count"] >= 1
assert len(d["gemm_sweep"]) == 4 and all(r[3] == "bf16" and r[4] > 0 for r in d["gemm_sweep"])
assert d["matmul_tflops"]["bf16"] == max(r[4] for r in d["gemm_sweep"])
assert len(d["attention"]) == 2 and all(a["fwd_tflops"] > 0 for a in d["attention"])
assert d["attention_tflops"]["bf16"] == round(max(a["fwd_tflops"] for a in d["attention"]), 4)
assert d["hbm_gb_per_s"] > 0 and "collectives" not in d
assert "host_link_gb_per_s" not in d  # no host link to time on the CPU
EOF

# ---------------------------------------------------------------- two processes (gloo)
# --spawn starts the ranks itself: Debian 12's torchrun (torch 1.13) does not
# start under Python 3.11; the ranks see the environment torchrun would set.
if "$PY" "$PROBE" --spawn 2 --out "$tmp/two.json" "${probe_args[@]}" --skip-attention \
    >"$tmp/probe2.out" 2>&1; then ok
else bad "probe.py --spawn 2 failed: $(tail -3 "$tmp/probe2.out")"; fi
if python3 - "$tmp/two.json" <<'EOF'; then ok; else bad "two.json collectives"; fi
import json, sys
d = json.load(open(sys.argv[1]))
ops = {c["op"]: c for c in d["collectives"]}
assert {"all_reduce", "all_gather", "send_recv"} <= set(ops), sorted(ops)
for c in d["collectives"]:
    assert c["link"] == "pcie" and c["gpus"] == 2 and c["gpus_per_node"] == 2
    sizes = [p[0] for p in c["points"]]
    assert sizes == [1024, 8192, 65536] and all(p[1] > 0 for p in c["points"])
EOF

# ---------------------------------------------------------------- trainplan reads it
# mkgpu PROFILE OUT: a GPU description at twice each rate PROFILE measured,
# so that every fraction trainplan derives is 1/2.
mkgpu() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
bw = max([p[1] for c in d.get("collectives", []) for p in c["points"]] + [1.0])
json.dump({"name": "cpu-test", "peak_tflops": {"bf16": 2 * d["matmul_tflops"]["bf16"]},
           "memory_mib": 1e6, "memory_bw_gb_per_s": 2 * d["hbm_gb_per_s"],
           "intra_node_gb_per_s": 2 * bw, "nic_gb_per_s": 1, "gpus_per_node": 8},
          open(sys.argv[2], "w"))
EOF
}
mkgpu "$tmp/two.json" "$tmp/gpu.json"
mkgpu "$tmp/one.json" "$tmp/gpu1.json"
est=(estimate --model llama-3-8b --layers 2 --gpu "$tmp/gpu.json" --gpus 2 --seq-len 1024 --json)
run "${est[@]}"
cp "$tmp/out" "$tmp/fitted.json"
run "${est[@]}" --hw-profile "$tmp/two.json"
if [ "$rc" -eq 0 ]; then ok; else bad "estimate --hw-profile two.json: exit $rc $(cat "$tmp/err")"; fi
if python3 - "$tmp/fitted.json" "$tmp/out" <<'EOF'; then ok; else bad "the profile changes nothing"; fi
import json, sys
a, b = (json.load(open(p))["time"]["step_s"] for p in sys.argv[1:3])
assert a > 0 and b > 0 and abs(a / b - 1) > 1e-6, (a, b)
EOF
run estimate --model llama-3-8b --layers 2 --gpu "$tmp/gpu1.json" --gpus 2 --seq-len 1024 \
    --hw-profile "$tmp/one.json"
if [ "$rc" -eq 0 ]; then ok; else bad "estimate --hw-profile one.json: exit $rc $(cat "$tmp/err")"; fi

# ---------------------------------------------------------------- errors name the file and key
python3 -c "
import json; d = json.load(open('$tmp/one.json')); d['sm_count'] = 0.5
json.dump(d, open('$tmp/bad.json', 'w'))"
expect_error "trainplan: error: $tmp/bad.json: \"sm_count\" must be a number in [1, 100000]" \
    "${est[@]}" --hw-profile "$tmp/bad.json"
expect_error "trainplan: error: --hw-profile: cannot read \"$tmp/none.json\": No such file or directory" \
    "${est[@]}" --hw-profile "$tmp/none.json"
# a profile of this CPU on an H100 preset: a rate far below 1/1000 of the peak
run estimate --gpu h100-sxm --hw-profile "$tmp/one.json"
if [ "$rc" -eq 2 ] && grep -q 'matmul_tflops.bf16.*of the peak of GPU h100-sxm' "$tmp/err"; then ok
else bad "CPU profile on h100-sxm: exit $rc $(cat "$tmp/err")"; fi

finish
