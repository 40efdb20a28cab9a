#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# plan_test.sh: end-to-end tests of `trainplan plan` (docs/plan.md): the
# built-in example, the seed worked examples through the CLI (S0-1..S0-10,
# S1-7 via --tflops, S1-8; tests/data/seed-examples.md, 1%
# tolerance), round trips, phases, the plan file, output formats, the LR
# series, the infeasible plan (exit 1 with what would fix it) and bad input
# (exit 2).
#
#   bash tests/cli/plan_test.sh /path/to/trainplan
#
# TP_SOURCE_DIR (set by ctest) locates the source tree. Needs python3 for
# JSON. Prints one line per failure and a final "N passed, M failed";
# exits non-zero when anything failed.
set -u

T=${1:?usage: plan_test.sh /path/to/trainplan}
SRC=${TP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/lib.sh"

# check_json NAME WANT_RC PYTHON_EXPR...: after `run ... --json`; every
# expression is evaluated with j = the parsed object, close(a, b, rtol=0.01).
check_json() { json_check "$@"; }

# expect_usage NAME STDERR_SUBSTRING ARGS...: exit 2, the message, no stdout
expect_usage() {
    local name=$1 want=$2
    shift 2
    run "$@"
    if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok
    else
        bad "$name: exit $rc, stderr [$(cat "$tmp/err")], want exit 2 and [$want]"
    fi
}

# ---- the built-in example (the README's main job) ----
run plan
if [ "$rc" -eq 0 ]; then ok; else bad "plan (built-in example): exit $rc: $(cat "$tmp/err")"; fi
for s in "1. Model" "2. Tokens (scaling laws)" "3. Sequence length, batch and steps" "4. FLOPs" \
    "5. GPU-hours and cost" "6. Cluster and wall clock" "7. Parallel layout" \
    "8. Checkpointing and failures" "9. Learning-rate schedule" "mpt-30b" "a100-80gb" \
    "29,975,214,080" "4,194,304 tokens/step" "deadline                       504.0 h" \
    "GPU-hours" "predicted MFU" "goodput" "Young / Daly"; do
    has "example report" "$s"
done
doc_sample "$SRC/docs/plan.md" "trainplan plan: "
if grep -q "reshaped" "$tmp/out"; then bad "the example's preset called reshaped"; else ok; fi
run plan --layers 16
has "plan --layers 16" "model                          mpt-30b, reshaped: not the preset's shape"

run plan --json
check_json "example json" 0 \
    'j["feasible"] is True' \
    'j["model"]["params"] == 29975214080' \
    'close(j["scaling"]["tokens"], 600e9)' \
    'j["phases"][0]["seq_len"] == 4096 and j["phases"][0]["global_batch"] == 1024' \
    'j["cluster"]["gpu"] == "a100-80gb" and j["cluster"]["deadline_s"] == 504 * 3600' \
    'j["cluster"]["deadline_met"] and j["cluster"]["compute_wall_s"] <= 504 * 3600' \
    'j["cluster"]["num_gpus"] % 8 == 0' \
    'j["phases"][0]["layout"]["dp"] * j["phases"][0]["layout"]["tp"] * j["phases"][0]["layout"]["pp"] * j["phases"][0]["layout"]["cp"] == j["cluster"]["num_gpus"]' \
    'j["phases"][0]["memory"]["total_bytes"] <= j["phases"][0]["memory"]["capacity_bytes"]' \
    'close(j["checkpoint"]["chosen"]["size_bytes"], 14 * 29975214080, 1e-9)' \
    'j["checkpoint"]["chosen"]["goodput"] > 0.5 and j["checkpoint"]["chosen"]["goodput"] <= 1' \
    'j["lr_schedule"]["warmup_steps"] == 2000'

# ---- seed 000 through the CLI (the document's convention: 6ND at 130 TFLOP/s) ----
SEED="--tokens 600e9 --tflops 130 --flops-basis 6nd --size-at mfu"
# S0-3..S0-5: 1.08e23 FLOPs, 230,769 GPU-hours, $923k; S0-6: 8 GPUs -> 3.29 years
run plan $SEED --gpus 512 --json
check_json "S0-3..S0-5" 0 \
    'close(j["compute"]["flops_6nd"], 6 * 29975214080 * 600e9, 1e-9)' \
    'close(j["compute"]["flops_6nd"], 1.08e23)' \
    'close(j["compute"]["gpu_hours_mfu_6nd"], 230769)' \
    'close(j["compute"]["gpu_hours"], 230769)' \
    'close(j["compute"]["cost_usd"], 923077)' \
    'close(j["compute"]["mfu_user"], 130 / 312, 1e-9)'
# S0-4: 125 TFLOP/s -> 240,000 GPU-hours
run plan --tokens 600e9 --tflops 125 --flops-basis 6nd --size-at mfu --gpus 512 --json
check_json "S0-4" 0 'close(j["compute"]["gpu_hours_mfu_6nd"], 240000)'
# S0-7: 500 h -> 461.5 GPUs -> 464 (58 nodes); with TP 4 the first cluster
# whose DP divides 1024 sequences is the document's 512 -> 450.7 h = 18.8 days
run plan $SEED --deadline 500 --tp 4 --zero 1 --json
check_json "S0-7" 0 \
    'close(j["cluster"]["gpus_exact"], 461.5)' \
    'j["cluster"]["gpus_whole_nodes"] == 464' \
    'j["cluster"]["gpus_whole_nodes"] // 8 == 58' \
    'j["cluster"]["num_gpus"] == 512 and j["cluster"]["num_nodes"] == 64' \
    'close(j["cluster"]["compute_wall_s"] / 3600, 450.7)' \
    'close(j["cluster"]["compute_wall_s"] / 86400, 18.8)'
# S0-6: the same on 8 GPUs would take 3.29 years (no layout fits 8 GPUs:
# the time at the user MFU is still reported)
run plan $SEED --gpus 512 --json
check_json "S0-6" 0 'close(j["compute"]["gpu_hours_mfu_6nd"] / 8 / 8766, 3.29)'
# S0-8: 1024 sequences of 4096; 143,051 steps; 11.3 s/step; 500 steps = 1.58 h
run plan $SEED --gpus 512 --ckpt-every-steps 500 --json
check_json "S0-8" 0 \
    'j["phases"][0]["global_batch"] == 1024' \
    'close(j["phases"][0]["steps"], 143051)' \
    'close(j["phases"][0]["step_s"], 11.34)' \
    'close(j["checkpoint"]["chosen"]["interval_s"] / 3600, 1.58)'
# S0-9: 2 + 8 + 2 B/param without the fp32 master = 360 GB: not one GPU
run plan --no-master-weights --gpus 512 --json
check_json "S0-9" 0 \
    'j["model"]["state_bytes_per_param"] == 12' \
    'close(j["model"]["static_bytes"], 360e9)' \
    'j["model"]["min_gpus_static"] > 1'
# S0-10: 512 GPUs, TP 4, PP 1, 1024 sequences -> DP 128, 8 per replica
run plan --gpus 512 --tp 4 --pp 1 --zero 1 --json
check_json "S0-10" 0 \
    'j["phases"][0]["layout"]["dp"] == 128' \
    'j["phases"][0]["global_batch"] // j["phases"][0]["layout"]["dp"] == 8' \
    'j["phases"][0]["layout"]["micro_batch"] * j["phases"][0]["layout"]["grad_accum"] == 8'
# S0-1: 20 tokens/param (1B, 7B, 30B-class presets)
run plan --model llama-3.2-1b --gpus 64 --json
check_json "S0-1 1B" 0 'close(j["scaling"]["tokens"], 20 * j["model"]["params"], 1e-12)'
run plan --gpus 512 --json
check_json "S0-1 30B" 0 'close(j["scaling"]["tokens"], 600e9)'
# S0-2: 300B tokens, seq 4096, 2048 sequences -> 35,763 steps
run plan --tokens 300e9 --global-batch 2048 --gpus 512 --json
check_json "S0-2" 0 'close(j["phases"][0]["steps"], 35762.8, 1e-5)' \
    'j["phases"][0]["steps_whole"] == 35763'

# ---- seed 001 ----
# S1-8: $2M at $4 for 30 days buys 500,000 GPU-hours = 694 GPUs; 600B tokens
# on 640 H100 need 6.6% MFU (6ND); 1280 sequences so that DP can divide it.
run plan --gpu h100-sxm --tokens 600e9 --flops-basis 6nd --gpus 640 --global-batch 1280 \
    --deadline-days 30 --budget 2e6 --price 4 --json
check_json "S1-8 600B" 0 \
    'close(j["budget"]["gpu_hours"], 500000, 1e-9)' \
    'close(j["budget"]["gpus_for_deadline"], 694)' \
    'close(j["cluster"]["required_mfu"], 0.0658)' \
    'j["budget"]["within_budget"] is True'
run plan --gpu h100-sxm --tokens 2e12 --flops-basis 6nd --gpus 640 --global-batch 1280 \
    --deadline-days 30 --budget 2e6 --price 4 --json
check_json "S1-8 2T/640" 0 'close(j["cluster"]["required_mfu"], 0.219)'
run plan --gpu h100-sxm --tokens 2e12 --flops-basis 6nd --gpus 512 --deadline-days 30 \
    --budget 2e6 --price 4 --json
check_json "S1-8 2T/512" 0 'close(j["cluster"]["required_mfu"], 0.274)'
# issue 19, any two of budget, deadline and MFU give the third (seed 001):
# budget + deadline -> GPUs and the MFU they need: $2M / $4 / 720 h = 694.4
# GPUs -> 688 in whole nodes; 6ND of 600B tokens on them in 30 days needs
# 6 x 29,975,214,080 x 600e9 / (688 x 989.4e12 x 2,592,000) = 6.12%
run plan --gpu h100-sxm --tokens 600e9 --flops-basis 6nd --gpus 640 --global-batch 1280 \
    --deadline-days 30 --budget 2e6 --price 4 --json
check_json "S1-8 budget + deadline -> MFU" 0 \
    'j["budget"]["gpus_for_deadline_whole_nodes"] == 688' \
    'close(j["budget"]["required_mfu_for_deadline"], 6 * 29975214080 * 600e9 / (688 * 989.4e12 * 30 * 86400), 1e-9)' \
    'close(j["budget"]["required_mfu_for_deadline"], 0.0612, 0.001)'
# budget -> tokens for a fixed model: $500k at $4 = 125,000 GPU-hours; at
# --mfu 0.4 of 989.4 TFLOP/s with 6N per token (N = 8,030,261,248):
# 125000 x 3600 x 0.4 x 989.4e12 / (6 x 8030261248) = 3.697e12 tokens
run plan --model llama-3-8b --gpu h100-sxm --budget 500k --price 4 --tokens budget \
    --flops-basis 6nd --gpus 64 --json
check_json "budget -> tokens" 0 \
    'close(j["scaling"]["tokens"], 125000 * 3600 * 0.4 * 989.4e12 / (6 * 8030261248), 1e-9)' \
    'close(j["compute"]["gpu_hours_mfu_6nd"], 125000, 1e-9)'
# with exact FLOPs the tokens shrink so that the cost at --mfu is still the budget
run plan --model llama-3-8b --gpu h100-sxm --budget 500k --price 4 --tokens budget --gpus 64 --json
check_json "budget -> tokens (exact FLOPs)" 0 'close(j["compute"]["gpu_hours_mfu"], 125000, 1e-9)'
expect_error 'trainplan: error: --tokens: "budget" means the tokens a money budget buys: give --budget USD' \
    plan --tokens budget
# S1-7 (MFU of a measured throughput) is a library function; the CLI side:
# 45% MFU of 64 H100 on a 7B model (6N per token) is 678k tokens/s.
run plan --model llama-2-7b --gpu h100-sxm --gpus 64 --mfu 0.45 --size-at mfu \
    --flops-basis 6nd --json
check_json "S1-7" 0 \
    'close(j["phases"][0]["tokens_per_step"] / j["phases"][0]["mfu_step_s"] * j["model"]["params"] / 7e9, 678e3)' \
    'close(150e3 / (j["phases"][0]["tokens_per_step"] / j["phases"][0]["mfu_step_s"] * j["model"]["params"] / 7e9), 0.22)'

# ---- round trips: deadline -> GPUs -> deadline ----
run plan --json
g=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cluster"]["num_gpus"])' "$tmp/out")
w=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cluster"]["compute_wall_s"])' "$tmp/out")
run plan --gpus "$g" --deadline 504 --json
check_json "round trip deadline->gpus->deadline" 0 \
    "j['cluster']['deadline_met'] and close(j['cluster']['compute_wall_s'], $w, 1e-9)"
run plan --gpus $((g - 8)) --deadline 504 --json
if [ "$rc" -eq 1 ]; then
    ok
else
    check_json "one node fewer misses the deadline" 0 'not j["cluster"]["deadline_met"]'
fi
run plan $SEED --deadline 500 --json
h=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cluster"]["compute_wall_s"] / 3600)' "$tmp/out")
g2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cluster"]["num_gpus"])' "$tmp/out")
run plan $SEED --deadline "$h" --json
check_json "round trip at the user MFU" 0 "j['cluster']['num_gpus'] == $g2"

run plan --deadline 50 --max-gpus 1024 --json
check_json "unreachable deadline: the fastest cluster, flagged" 0 \
    'j["feasible"] and not j["cluster"]["deadline_met"] and j["cluster"]["num_gpus"] <= 1024' \
    'any("misses the deadline" in c for c in j["caveats"])'

# ---- scaling laws ----
run plan --size-model --compute 5.76e23 --gpus 1024 --json
check_json "compute-optimal model (besiroglu)" 0 \
    'close(j["scaling"]["compute_optimal"]["params"], 7.24e10)' \
    'close(j["model"]["params"], 7.24e10, 0.08)' \
    'close(j["compute"]["flops_6nd"], 5.76e23, 1e-9)'
run plan --compute 5.76e23 --fit hoffmann --gpus 1024 --json
check_json "hoffmann fit" 0 \
    'close(j["scaling"]["compute_optimal"]["params"], 4.04e10)' \
    'close(j["scaling"]["compute_optimal"]["tokens"], 2.38e12)' \
    'close(j["scaling"]["tokens"], 5.76e23 / 6 / 29975214080, 1e-9)'
run plan --size-model --budget 1e6 --gpus 256 --json
check_json "model a budget affords" 0 'j["model"]["sized_from_budget"] is True' \
    'j["model"]["params"] > 1e9'
run plan --global-batch-tokens 67108864 --gpus 512 --json
check_json "critical batch caveat" 0 'j["scaling"]["critical_batch_caveat"] is True' \
    'any("critical batch" in c for c in j["caveats"])'

# ---- phases ----
run plan --phase name=4k,seq=4096 --phase name=32k,seq=32768,tokens=40e9 --gpus 512 --json
check_json "context extension phases" 0 \
    'len(j["phases"]) == 2' \
    'close(j["phases"][1]["tokens"], 40e9, 1e-12)' \
    'j["phases"][1]["global_batch"] == 128' \
    'close(j["phases"][0]["tokens"] + j["phases"][1]["tokens"], j["scaling"]["tokens"], 1e-12)' \
    'j["phases"][1]["flops_exact"] / j["phases"][1]["tokens"] > j["phases"][0]["flops_exact"] / j["phases"][0]["tokens"]'
run plan --phase name=vlm,frozen=4e8,frozen-tokens=1e11 --gpus 512 --json
check_json "frozen vision encoder" 0 'close(j["phases"][0]["frozen_flops"], 4 * 4e8 * 1e11, 1e-12)'
cat >"$tmp/plan.json" <<'EOF'
{"phases": [{"name": "short", "seq": 2048},
            {"name": "long", "seq": 16384, "tokens": 20e9, "batch_tokens": 4194304}]}
EOF
run plan --plan-file "$tmp/plan.json" --gpus 512 --json
check_json "plan file" 0 'len(j["phases"]) == 2' 'j["phases"][0]["seq_len"] == 2048' \
    'j["phases"][1]["global_batch"] == 256'
echo '{"phases": [{"name": "x", "sq": 4096}]}' >"$tmp/bad.json"
run plan --plan-file "$tmp/bad.json"
if [ "$rc" -eq 2 ] && grep -qF 'phases[0].sq' "$tmp/err"; then ok; else bad "bad plan file: exit $rc [$(cat "$tmp/err")]"; fi
echo '{"phases": [' >"$tmp/broken.json"
run plan --plan-file "$tmp/broken.json"
if [ "$rc" -eq 2 ] && grep -qF 'broken.json:' "$tmp/err"; then ok; else bad "broken plan file: exit $rc [$(cat "$tmp/err")]"; fi

# ---- outputs ----
run plan --markdown
if [ "$rc" -eq 0 ] && head -1 "$tmp/out" | grep -q '^# Training plan' && grep -q '^| quantity | value |' "$tmp/out" &&
    grep -q '^## 8. Checkpointing and failures' "$tmp/out"; then ok; else bad "markdown: exit $rc"; fi
run plan --lr-schedule --lr-points 11
if [ "$rc" -eq 0 ] && [ "$(head -1 "$tmp/out")" = "step,tokens,phase,lr" ] &&
    [ "$(sed -n 2p "$tmp/out")" = "0,0,main,0" ] && grep -q '^2000,.*,main,0.0003$' "$tmp/out" &&
    tail -1 "$tmp/out" | grep -q ',3e-05$'; then ok; else bad "lr schedule: exit $rc: $(head -5 "$tmp/out")"; fi
run plan --lr-schedule --lr-points 0 --tokens 4194304000 --gpus 64 --warmup-steps 10
n=$(wc -l <"$tmp/out")
if [ "$rc" -eq 0 ] && [ "$n" -eq 1002 ]; then ok; else bad "lr schedule every step: exit $rc, $n lines (want 1002)"; fi
run plan --help
if [ "$rc" -eq 0 ] && grep -qF -- "--deadline" "$tmp/out" && grep -qF "built-in example" "$tmp/out"; then ok; else bad "plan --help"; fi
run help plan
if [ "$rc" -eq 0 ] && grep -qF "usage: trainplan plan" "$tmp/out"; then ok; else bad "help plan"; fi

# ---- infeasible: says so and what would fix it (exit 1) ----
run plan --gpus 8 --gpu-memory-gb 16
if [ "$rc" -eq 1 ] && grep -qF "No feasible layout" "$tmp/out" && grep -qF "To fix it:" "$tmp/out" &&
    grep -qF "use more GPUs" "$tmp/out" && grep -qF "no feasible layout" "$tmp/err"; then
    ok
else
    bad "infeasible: exit $rc: $(tail -5 "$tmp/out") / $(cat "$tmp/err")"
fi
run plan --gpus 8 --gpu-memory-gb 16 --json
check_json "infeasible json" 1 'j["feasible"] is False' 'j["reason"].startswith("no layout")' \
    '"GPUs" in j["fix"]' \
    '"cost_usd" not in j["compute"] and "gpu_hours" not in j["compute"]' \
    '"compute_wall_s" not in j["cluster"] and "checkpoint" not in j and "lr_schedule" not in j' \
    'close(j["compute"]["gpu_hours_mfu"], j["compute"]["flops_exact"] / (0.4 * 312e12) / 3600, 1e-9)'
run plan --gpus 8 --tp 2 --zero 0 --layout given
if [ "$rc" -eq 1 ] && grep -qF "fixed layout" "$tmp/out"; then ok; else bad "infeasible given layout: exit $rc"; fi

# ---- issue 19: correctness and consistency ----
# plan --tp 2 --zero 0 fixes those two axes, as search --tp 2 --zero 0 does;
# the rest is searched (on 8 GPUs the 30B then fits with PP, not frozen at PP 1)
run plan --gpus 8 --tp 2 --zero 0 --json
check_json "plan --tp fixes only TP" 0 \
    'j["phases"][0]["layout"]["tp"] == 2 and j["phases"][0]["layout"]["zero"] == 0' \
    'j["phases"][0]["layout"]["layouts_evaluated"] > 1'
# a frozen module is in the per-GPU total: 60e9 x 2 B / TP (/ DP under ZeRO-3)
run plan --phase name=vlm,frozen=60e9 --gpus 512 --json
check_json "frozen weights in the total" 0 \
    'close(j["phases"][0]["memory"]["frozen_weights_bytes"], 60e9 * 2 / j["phases"][0]["layout"]["tp"] / (j["phases"][0]["layout"]["dp"] if j["phases"][0]["layout"]["zero"] == 3 else 1), 1e-12)' \
    'close(j["phases"][0]["memory"]["total_bytes"], sum(v for k, v in j["phases"][0]["memory"].items() if k.endswith("_bytes") and k not in ("total_bytes", "capacity_bytes", "headroom_bytes", "margin_bytes")), 1e-12)' \
    'close(j["phases"][0]["memory"]["headroom_bytes"], j["phases"][0]["memory"]["capacity_bytes"] - j["phases"][0]["memory"]["total_bytes"], 1e-12)'
# the chart of a plan with a frozen module: its stack adds up to the total
run plan --phase name=vlm,frozen=60e9 --gpus 512 --svg "$tmp/frozen.svg"
pycheck "plan --svg with frozen weights adds up" "$tmp/frozen.svg" <<'PY'
import sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
mem = ET.parse(sys.argv[1]).getroot().find(f".//{ns}g[@class='memory']")
for g in mem.findall(f"{ns}g[@class='stage']"):
    got = sum(int(r.get("data-bytes")) for r in g.findall(f"{ns}rect") if r.get("data-bytes"))
    assert abs(got - int(mem.get("data-peak-bytes"))) <= 8, (got, mem.get("data-peak-bytes"))
PY
# too big a frozen module: the binding line says the frozen weights do not fit
run plan --phase name=vlm,frozen=100e9 --gpus 8 --tp 1 --pp 1 --zero 3 --recompute full --layout given
if [ "$rc" -eq 1 ] && ! grep -qF "headroom" "$tmp/out" && grep -qF "frozen weights" "$tmp/out"; then ok; else bad "frozen 100B: exit $rc: $(grep -i binding -A3 "$tmp/out")"; fi
# the memory margin: 10% of capacity stays free by default, --memory-margin 0 lifts it
run plan --gpus 512 --json
check_json "memory margin" 0 \
    'j["phases"][0]["memory"]["headroom_bytes"] >= 0.10 * j["phases"][0]["memory"]["capacity_bytes"]' \
    'close(j["phases"][0]["memory"]["margin_bytes"], 8 * 2**30, 1e-12)' 'j["cluster"]["memory_margin"] == 0.1'
run plan --gpus 512 --memory-margin 0 --json
check_json "no memory margin" 0 'j["phases"][0]["memory"]["margin_bytes"] == 0'
expect_usage "memory margin range" "--memory-margin" plan --memory-margin 0.9
# S0-7 with the search: 464 GPUs (58 nodes = 2^4 x 29 with DP dividing 1024
# sequences) only has layouts with 29 in TP, PP or CP (PP 29 of 48 layers);
# the first clean cluster is 512 = 64 nodes, the seed's own answer
run plan $SEED --deadline 500 --json
check_json "S0-7 clean cluster" 0 \
    'j["cluster"]["first_fit_gpus"] == 464 and j["cluster"]["moved_for_clean_layout"] is True' \
    'j["cluster"]["num_gpus"] == 512' \
    '48 % j["phases"][0]["layout"]["pp"] == 0 and j["phases"][0]["layout"]["cp"] == 1' \
    'j["phases"][0]["layout"]["tp"] <= 8'
# 24 h: 9,728 GPUs (2^9 x 19) would need PP 19; the clean sizes are 3-smooth
# multiples of DP: 12,288 = 1024 x 12 (TP x PP = 12), 26% more GPUs
run plan $SEED --deadline 24 --json
check_json "24 h clean cluster" 0 'j["cluster"]["first_fit_gpus"] == 9728' \
    'j["cluster"]["num_gpus"] == 12288' \
    '48 % j["phases"][0]["layout"]["pp"] == 0 and j["phases"][0]["layout"]["cp"] == 1'
# the tie-break: at seq 16384 on 512 GPUs TP 2 x PP 2 x CP 2 is 0.5% faster
# than TP 4 x CP 1; TP 4 without PP and CP is simpler
run plan --gpus 512 --seq-len 16384 --json
check_json "tie-break" 0 'j["phases"][0]["layout"]["tie_break"] is True' \
    'j["phases"][0]["layout"]["cp"] == 1 and j["phases"][0]["layout"]["tp"] == 4' \
    '"0.5% slower than the fastest, TP 2 x PP 2 x CP 2" in j["phases"][0]["layout"]["tie_break_note"]'
run plan --gpus 512 --seq-len 16384 --tie-tolerance 0 --json
check_json "no tie-break" 0 'j["phases"][0]["layout"]["tie_break"] is False' \
    'j["phases"][0]["layout"]["cp"] == 2'
expect_error "trainplan: error: --deadline 5 and --deadline-days 3 both set the deadline: give one (hours or days)" \
    plan --deadline 5 --deadline-days 3
# --params 30B: tp_scaling_shape, not a preset. L0 = cbrt(30e9 / (12 x 128^2))
# = 53.4 -> 53 heads of 128 -> 56 (a multiple of 8), h = 7168, FFN 8/3 h =
# 19115 -> 19200; a layer 4h^2 + 3hf + 2h = 618,412,032; (30e9 - 2 x 32000 x
# 7168) / that = 47.8 -> 48 layers: 48 x 618,412,032 + 458,752,000 + 7168 =
# 30,142,536,704 parameters
run plan --params 30B --gpus 512 --json
check_json "--params" 0 'j["model"]["num_layers"] == 48 and j["model"]["hidden"] == 7168' \
    'j["model"]["num_heads"] == 56 and j["model"]["params"] == 30142536704' \
    'j["model"]["from_params"] == 30e9 and j["model"]["shape_rule"].startswith("Shape rule (tp_scaling_shape)")'
run plan --params 30B --gpus 512
has "--params text" "  from --params                  30 B parameters asked, 30.14 B in the shape"
expect_error "trainplan: error: --params: it chooses the model's shape and --model would override it (give a model file for a shape of your own)" \
    plan --params 30B --model llama-3-8b
expect_usage "--params with --size-model" "--params: a parameter count gives the model" plan --params 30B --size-model --budget 1e6
# counts in people's words: 600B tokens, 4M-token batches (4,000,000 = 1000 x 4000), 4k sequences
run plan --tokens 600B --global-batch-tokens 4M --seq-len 4k --gpus 512 --json
check_json "suffixes" 0 'j["scaling"]["tokens"] == 600e9' \
    'j["phases"][0]["seq_len"] == 4000 and j["phases"][0]["global_batch"] == 1000'
run plan --phase name=a,tokens=1.5T --gpus 512 --json
check_json "suffix in a phase" 0 'j["phases"][0]["tokens"] == 1.5e12'
expect_error "trainplan: error: --mfu: 40 is out of range [0.0001, 1]: a fraction, not a percentage (40% is 0.4)" plan --mfu 40

# ---- bad input (exit 2) ----
expect_usage "mfu range" "--mfu" plan --mfu 1.5
expect_usage "unknown fit" "did you mean \"hoffmann\"" plan --fit hofman
expect_usage "bad phase key" "unknown key" plan --phase name=x,sek=4096
expect_usage "phase without value" "--phase needs a value" plan --phase
expect_usage "size-model without budget" "size-model" plan --size-model
expect_usage "tflops above peak" "--tflops" plan --tflops 400
expect_usage "positional" "unexpected argument" plan extra
expect_usage "unknown flag" "unknown flag" plan --deadlin 5
expect_usage "phases exceed the total" "leaving none" plan --phase name=a,seq=4096 \
    --phase name=b,seq=8192,tokens=7e11

# ---- reports against --json (issue 7): --csv, --markdown, --svg ----
PH="--phase name=4k,seq=4096 --phase name=16k,seq=16384,tokens=40e9"
# shellcheck disable=SC2086
run plan $PH --json
cp "$tmp/out" "$tmp/plan.json"
# shellcheck disable=SC2086
run plan $PH --csv
if [ "$rc" -eq 0 ]; then ok; else bad "plan --csv: exit $rc"; fi
pycheck "plan --csv: one row per phase with the --json figures" "$tmp/out" "$tmp/plan.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
j = json.load(open(sys.argv[2]))
assert len(rows) == len(j["phases"]) == 2, len(rows)
def rel(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(abs(b), 1e-300)
for r, ph in zip(rows, j["phases"]):
    assert r["phase"] == ph["name"]
    for k, jk in (("phase_tokens", "tokens"), ("tokens_per_step", "tokens_per_step"),
                  ("steps", "steps"), ("gpu_hours", "gpu_hours"), ("wall_s", "wall_s")):
        assert rel(float(r[k]), ph[jk]), (k, r[k], ph[jk])
    assert int(r["steps_whole"]) == ph["steps_whole"]
    assert int(r["seq_len"]) == ph["seq_len"] and int(r["global_batch"]) == ph["global_batch"]
    for k in ("tp", "pp", "cp", "ep", "vpp", "dp", "micro_batch", "grad_accum"):
        assert int(r[k]) == ph["layout"][k], k
    assert int(r["num_gpus"]) == j["cluster"]["num_gpus"]
    m = ph["memory"]
    assert abs(int(r["peak_bytes"]) - m["total_bytes"]) <= 1
    assert abs(int(r["weights_bytes"]) + int(r["weights_gathered_bytes"]) - m["weights_bytes"]) <= 2
    for k in ("grads", "optimizer", "activations", "logits"):
        assert abs(int(r[k + "_bytes"]) - m[k + "_bytes"]) <= 1, k
    t = ph["step_time"]
    for k in ("step", "compute", "recompute", "tp_comm", "pp_comm", "bubble", "dp_comm"):
        assert rel(float(r[k + "_s"]), t[k + "_s"]), k
    assert rel(float(r["mfu"]), t["mfu"]) and rel(float(r["tokens_per_s"]), t["tokens_per_s"])
PY
# shellcheck disable=SC2086
run plan $PH --markdown
pycheck "plan --markdown: the --json figures" "$tmp/out" "$tmp/plan.json" <<'PY'
import json, re, sys
md = open(sys.argv[1]).read()
j = json.load(open(sys.argv[2]))
m = re.search(r"\*\*Plan:\*\* (\d+) GPUs \((\d+) nodes\)", md)
assert m and (int(m[1]), int(m[2])) == (j["cluster"]["num_gpus"], j["cluster"]["num_nodes"]), m
m = re.search(r"^\$([\d,]+) at \$([\d.]+)/GPU-hour", md, re.M)
assert m and abs(int(m[1].replace(",", "")) - j["compute"]["cost_usd"]) <= 1, m
assert f"{j['model']['params']:,}" in md
assert md.startswith("# Training plan: ")
PY
# the last of --json, --markdown and --csv wins
run plan --csv --json
check_json "plan --csv --json: JSON wins" 0 'j["feasible"] is True'
run plan --json --csv
if [ "$rc" -eq 0 ] && head -1 "$tmp/out" | grep -q '^phase,phase_tokens,'; then ok; else bad "plan --json --csv: CSV wins"; fi
run plan --gpus 8 --gpu-memory-gb 16 --csv
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ]; then ok; else bad "infeasible plan --csv: exit $rc, want the header only"; fi
# --svg: the chosen layout's charts (the first phase's), figures from the JSON
# shellcheck disable=SC2086
run plan $PH --svg "$tmp/plan.svg"
if [ "$rc" -eq 0 ] && [ -s "$tmp/plan.svg" ]; then ok; else bad "plan --svg: exit $rc"; fi
pycheck "plan --svg draws the first phase's layout" "$tmp/plan.svg" "$tmp/plan.json" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
ph = json.load(open(sys.argv[2]))["phases"][0]
mem = svg.find(f".//{ns}g[@class='memory']")
assert abs(int(mem.get("data-peak-bytes")) - ph["memory"]["total_bytes"]) <= 1
assert abs(int(mem.get("data-capacity-bytes")) - ph["memory"]["capacity_bytes"]) <= 1
heavy = [g for g in mem.findall(f"{ns}g[@class='stage']") if int(g.get("data-stage")) == ph["memory"]["stage"]]
parts = {r.get("data-component"): int(r.get("data-bytes")) for r in heavy[0].findall(f"{ns}rect")}
assert abs(parts["weights"] + parts["weights_gathered"] - ph["memory"]["weights_bytes"]) <= 2
for k in ("grads", "optimizer", "activations", "logits"):
    assert abs(parts[k] - ph["memory"][k + "_bytes"]) <= 1, k
sched = svg.find(f".//{ns}g[@class='schedule']")
assert int(sched.get("data-stages")) == ph["layout"]["pp"]
assert int(sched.get("data-microbatches")) == ph["layout"]["grad_accum"]
tm = svg.find(f".//{ns}g[@class='time']")
secs = {r.get("data-component"): float(r.get("data-seconds")) for r in tm.findall(f"{ns}rect[@class='part']")}
for k in ("compute", "recompute", "tp_comm", "pp_comm", "bubble", "dp_comm", "optimizer"):
    v = ph["step_time"][k + "_s"]
    assert abs(secs[k] - v) <= 1e-8 * max(v, 1e-12), k
PY
render_check "plan --svg" "$tmp/plan.svg"
run plan --svg "$tmp/plan.svg"
if [ "$rc" -eq 2 ] && grep -qxF "trainplan: error: $tmp/plan.svg exists (use --force to overwrite it)" "$tmp/err" &&
    [ ! -s "$tmp/out" ]; then ok; else bad "plan --svg over an existing file: exit $rc $(cat "$tmp/err")"; fi
run plan --svg "$tmp/plan.svg" --force
if [ "$rc" -eq 0 ]; then ok; else bad "plan --svg --force: exit $rc"; fi
no_temp_files "plan --svg" "$tmp"
expect_usage "--force without --svg" "--force needs --svg FILE" plan --force
run plan --gpus 8 --gpu-memory-gb 16 --svg "$tmp/none.svg"
if [ "$rc" -eq 1 ] && [ ! -e "$tmp/none.svg" ]; then ok; else bad "infeasible plan --svg wrote a chart"; fi

# ---- the expert layers' layout (ETP x EP x EDP), folded or not ----
# 64 GPUs, TP 2: DP 32; EP 8 with ETP 1 leaves EDP 64 / (1 x 8) = 8, with
# ETP = TP 2 it leaves 64 / (2 x 8) = 4 (= DP 32 / EP 8).
run plan --model mixtral-8x7b --gpu h100-sxm --gpus 64 --tp 2 --ep 8 --etp 1 --zero 1
has "plan folded experts" "TP 2 x PP 1 x CP 1 x DP 32 (experts ETP 1 x EP 8 x EDP 8), ZeRO-1,"
run plan --model mixtral-8x7b --gpu h100-sxm --gpus 64 --tp 2 --ep 8 --zero 1
has "plan experts" "TP 2 x PP 1 x CP 1 x DP 32 (experts ETP 2 x EP 8 x EDP 4), ZeRO-1,"
if grep -qF "carved" "$tmp/out"; then bad "plan experts: still says EP is carved from DP"; else ok; fi
run plan --model mixtral-8x7b --gpu h100-sxm --gpus 64 --tp 2 --ep 8 --etp 1 --zero 1 --json
check_json "plan folded json" 0 'j["phases"][0]["layout"]["etp"] == 1 and j["phases"][0]["layout"]["edp"] == 8'
run plan --model mixtral-8x7b --gpu h100-sxm --gpus 64 --tp 2 --ep 8 --etp 1 --zero 1 --csv
if [ "$rc" -eq 0 ] && head -1 "$tmp/out" | grep -q ',reason,etp$' && sed -n 2p "$tmp/out" | grep -q ',1$'; then ok
else bad "plan folded csv: the etp column last"; fi

finish
