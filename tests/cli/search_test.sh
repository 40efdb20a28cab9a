#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# search_test.sh: end-to-end tests of `trainplan search` and `trainplan
# explain`: exit codes (0 fits, 1 nothing fits, 2 bad input), the --json
# array (estimate objects plus "search"), --csv, fixed and bounded axes,
# the binding constraint when nothing fits, and the Vizz walk-through of
# seed 004 (S3-3, S4-1..S4-6).
#
#   bash tests/cli/search_test.sh /path/to/trainplan
#
# Env: TP_SOURCE_DIR (set by ctest) locates the tree, for the samples that
# docs/search.md shows. Needs python3 for JSON and CSV parsing. Prints one line per
# failure and a final "N passed, M failed"; exits non-zero on failure.
set -u

T=${1:?usage: search_test.sh /path/to/trainplan}
SRC=${TP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/lib.sh"

# expect_rc WANT NAME: the last run's status
expect_rc() {
    if [ "$rc" -eq "$1" ]; then ok; else bad "$2: exit $rc, want $1: $(head -c 300 "$tmp/err")"; fi
}

# check_py NAME PYTHON: run PYTHON with `out` = stdout text, `j` = parsed JSON
# (None if not JSON); it must print nothing and exit 0.
check_py() {
    local name=$1 code=$2 msg
    if msg=$(python3 - "$tmp/out" 2>&1 <<EOF
import csv, io, json, sys
out = open(sys.argv[1]).read()
try:
    j = json.loads(out)
except ValueError:
    j = None
def need(cond, what):
    if not cond:
        print(what)
        sys.exit(1)
$code
EOF
    ); then ok; else bad "$name: $msg"; fi
}

VIZZ="--model llama-2-7b --gpus 64 --seq-len 131072 --global-batch-tokens 4194304"
SMALL="--model llama-3-8b --gpus 16 --seq-len 4096 --global-batch 64"

# ---------------------------------------------------------------- help and bad input
run search --help
expect_rc 0 "search --help"
has "search --help" "usage: trainplan search"
has "search --help" "--rank time|cost|headroom"
run help explain
expect_rc 0 "help explain"
has "help explain" "usage: trainplan explain"
run help
has "help lists search" "search"
has "help lists explain" "explain"

expect_error "trainplan: error: search needs the target batch: --global-batch N (sequences) or --global-batch-tokens N" \
    search --model llama-3-8b --gpus 8
expect_error "trainplan: error: explain needs the target batch: --global-batch N (sequences) or --global-batch-tokens N" \
    explain --model llama-3-8b --gpus 8
expect_error 'trainplan: error: --rank: unknown value "tme" (did you mean "time"? expected one of time|cost|headroom)' \
    search $SMALL --rank tme
expect_error "trainplan: error: --force needs --svg FILE" search $SMALL --force
expect_error "trainplan: error: --schedule: the search chooses this itself (1F1B, interleaved with --vpp > 1, end stages with fewer layers when PP does not divide them)" \
    search $SMALL --schedule gpipe
expect_error "trainplan: error: --tp: search range is empty: min 8 > max 4" \
    search $SMALL --tp 8 --max-tp 4
expect_error 'trainplan: error: unexpected argument "extra" (search takes only flags)' \
    search $SMALL extra
expect_error "trainplan: error: --min-gpus: 32 is more than --gpus 16" search $SMALL --min-gpus 32

# ---------------------------------------------------------------- text report
# shellcheck disable=SC2086
run search $VIZZ --top 3
expect_rc 0 "search vizz"
has "search vizz" "Search: llama-2-7b on 64 x h100-sxm (8 per node), sequence 131072 tokens, global batch 32 sequences (4,194,304 tokens)"
has "search vizz" "#1  TP "
has "search vizz" "#3  TP "
has "search vizz" "vs #1: "
has "search vizz" "mostly "
has "search vizz" "time (s): compute "
has "search vizz" "memory (GiB): weights "
has "search vizz" "million evaluations/s"
# a preset's name on another shape says so in the header
run search --gpus 8 --layers 16 --global-batch 64 --top 1
has "search reshaped" "Search: llama-3-8b (reshaped: not the preset's shape) on 8 x h100-sxm"

# ---------------------------------------------------------------- --json
# shellcheck disable=SC2086
run search $VIZZ --top 5 --json
expect_rc 0 "search vizz --json"
check_py "search --json array of estimate objects + search" '
need(isinstance(j, list) and len(j) == 5, "not an array of 5")
steps = []
for i, o in enumerate(j):
    for k in ("model", "gpu", "layout", "memory", "time", "search"):
        need(k in o, "item %d lacks %s" % (i, k))
    L, s = o["layout"], o["search"]
    need(s["rank"] == i + 1 and s["rank_by"] == "time", "rank fields of item %d" % i)
    need(L["tp"] * L["pp"] * L["cp"] * L["dp"] == 64, "GPUs do not multiply out")
    need(L["micro_batch"] * L["grad_accum"] * L["dp"] == 32, "batch does not multiply out")
    need(o["memory"]["fits"] is True, "item %d does not fit" % i)
    need(("vs_best" in s) == (i > 0), "vs_best on item %d" % i)
    steps.append(o["time"]["step_s"])
need(steps == sorted(steps), "not ranked by step time: %s" % steps)
need(j[1]["search"]["vs_best"]["step_s"] >= 0, "runner-up faster than the best")
'

# ---------------------------------------------------------------- rankings, fixed axes, bounds
# shellcheck disable=SC2086
run search $SMALL --rank headroom --top 6 --json
expect_rc 0 "search --rank headroom"
check_py "headroom ranking" '
h = [o["memory"]["headroom_bytes"] for o in j]
need(h == sorted(h, reverse=True), "headroom not descending: %s" % h)
need(all(o["search"]["rank_by"] == "headroom" for o in j), "rank_by")
'
# shellcheck disable=SC2086
run search $SMALL --rank cost --top 4 --json --min-gpus 8
expect_rc 0 "search --rank cost --min-gpus"
check_py "cost ranking over cluster sizes" '
c = [o["search"]["cost_per_token_usd"] for o in j]
need(c == sorted(c), "cost not ascending: %s" % c)
need(all(o["layout"]["num_gpus"] in (8, 16) for o in j), "cluster sizes outside 8..16")
'
# shellcheck disable=SC2086
run search $VIZZ --tp 8 --recompute full --zero 1 --top 4 --json
expect_rc 0 "search fixed axes"
check_py "fixed axes are honoured" '
need(len(j) >= 1, "empty")
for o in j:
    L = o["layout"]
    need(L["tp"] == 8 and L["recompute"] == "full" and L["zero"] == 1, "axis not fixed: %s" % L)
'
# shellcheck disable=SC2086
run search $VIZZ --max-pp 1 --max-cp 2 --top 8 --json
expect_rc 0 "search bounded axes"
check_py "bounded axes are honoured" '
for o in j:
    need(o["layout"]["pp"] == 1 and o["layout"]["cp"] <= 2, "bound broken: %s" % o["layout"])
'
# fixing an axis never makes the best faster
# shellcheck disable=SC2086
run search $VIZZ --top 1 --json
best_open=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["time"]["step_s"])' "$tmp/out")
for fix in "--tp 8" "--tp 1" "--pp 2" "--cp 4" "--zero 1" "--recompute full" "--no-sp" "--even-pp"; do
    # shellcheck disable=SC2086
    run search $VIZZ $fix --top 1 --json
    expect_rc 0 "search $fix"
    check_py "search $fix is not faster than the open search" "
need(float(j[0]['time']['step_s']) >= $best_open * (1 - 1e-12), 'faster with $fix: %s < $best_open' % j[0]['time']['step_s'])
"
done

# ---------------------------------------------------------------- --csv
# shellcheck disable=SC2086
run search $SMALL --csv --top 4
expect_rc 0 "search --csv"
check_py "csv rows" '
rows = list(csv.reader(io.StringIO(out)))
need(rows[0][0] == "rank" and "step_s" in rows[0] and rows[0][-2:] == ["note", "etp"], "header: %s" % rows[0])
need(len(rows) == 5, "want 4 data rows, got %d" % (len(rows) - 1))
need(all(len(r) == len(rows[0]) for r in rows), "ragged rows")
need(rows[1][0] == "1" and rows[1][-2] == "" and rows[2][-2] != "", "notes")
'

# ---------------------------------------------------------------- docs/search.md's samples
run search --model llama-2-7b --gpus 64 --seq-len 131072 --global-batch-tokens 4194304 --top 2
expect_rc 0 "docs/search.md runner-up sample"
doc_sample "$SRC/docs/search.md" "#2  "
run search --model llama-3-8b --gpus 8 --seq-len 524288 --global-batch 1
expect_rc 1 "docs/search.md closest-layout sample"
doc_sample "$SRC/docs/search.md" "1. TP "

# runner-ups that tie on step time (ZeRO-1/2 at DP 1 x CP 4: the ZeRO-1 and
# ZeRO-2 collectives are the same reduce-scatter and all-gather): no
# "mostly X +0.000 s"
run search --model llama-3-8b --gpus 8 --global-batch 7
expect_rc 0 "ties on step time"
has "ties on step time" "vs #1: 0.000 s slower (+0.0%); ZeRO-1 vs 2"
if grep -q "+0\.000 s" "$tmp/out"; then bad "ties on step time: a part grew by +0.000 s"; else ok; fi

# ------------------------------------------- no DP divides the batch (bounds kept)
# With PP and CP fixed at 1, DP = 16 / TP is 2 at least (TP <= 8 per node); the
# hint names that, not DP 1 of TP 8 x PP 2, which the bounds exclude.
run search --gpus 16 --global-batch 3 --pp 1 --cp 1
expect_rc 1 "batch 3 on 16 GPUs, PP 1"
has "batch 3 on 16 GPUs, PP 1" "the smallest DP any layout has is 2, so try a global batch that is a multiple of 2."

# ---------------------------------------------------------------- nothing fits
run search --model llama-3.1-405b --gpus 8 --seq-len 8192 --global-batch 16 --top 3
expect_rc 1 "405B on 8 GPUs"
has "405B on 8 GPUs" "No layout fits."
has "405B on 8 GPUs" "GiB over; needs "
has "405B on 8 GPUs" "1. TP "
run search --model llama-3.1-405b --gpus 8 --seq-len 8192 --global-batch 16 --top 3 --json
expect_rc 1 "405B on 8 GPUs --json"
check_py "closest layouts as JSON" '
need(isinstance(j, list) and len(j) >= 1, "no closest layouts")
for o in j:
    need(o["memory"]["fits"] is False, "a closest layout fits")
    need(o["search"]["rank_by"] == "closest", "rank_by of a closest layout")
    need("over" in o["search"]["binding"], "binding: %s" % o["search"]["binding"])
'
# activations bind even with full recompute: a 2M-token sequence, TP 8 only
run search --model llama-2-7b --gpus 8 --seq-len 2097152 --global-batch 1 --tp 8 --pp 1 --cp 1 --recompute full --fused-ce
expect_rc 1 "2M tokens on one node"
has "2M tokens on one node" "even with full recompute"
if grep -Eq 'needs CP >= [0-9]+ \([0-9]+ GPUs\)' "$tmp/out"; then ok
else bad "2M tokens on one node: no CP fix named: $(cat "$tmp/out")"; fi
# the global batch cannot be split: 5128 = 8 x 641 GPUs
run search --model megatron-gpt-530b --gpu a100-80gb --gpus 5128 --global-batch 2520
expect_rc 1 "530B batch mismatch"
has "530B batch mismatch" "try a global batch that is a multiple of 641"

# ---------------------------------------------------------------- explain: the Vizz case
# shellcheck disable=SC2086
run explain $VIZZ
expect_rc 0 "explain vizz"
has "explain vizz" "1. The bill (16N + activations)"
has "explain vizz" "6.74 B parameters x 16 bytes (2 weights + 2 gradients + 12 optimizer) = 107.8 GB of model states"
has "explain vizz" "None fits without recompute: saturate the node, TP = 8 (4 heads per GPU)."
has "explain vizz" "largest micro-batch 0 (formula 0; doubling fails at 1)"
has "explain vizz" "long context, micro-batch 1 (recompute, PP or CP must make room)"
has "explain vizz" "The node holds it"
has "explain vizz" "PP 2 leaves"
has "explain vizz" "DP = 64 / (TP 8 x PP 1) = 8. ZeRO-1 is free"
has "explain vizz" "CP = 2, taken from DP (8 -> 4)"
has "explain vizz" "accumulation 4 -> 8"
has "explain vizz" "(4x fewer; FlashAttention never stores them)"
has "explain vizz" "Dense model: EP = 1."
has "explain vizz" "The recipe's layout: TP 8, PP 1, CP 2, DP 4, ZeRO-1, SP on, recompute none, micro-batch 1 x accumulation 8"
has "explain vizz" "The search's best (by predicted step time): "
# shellcheck disable=SC2086
run explain $VIZZ --json
expect_rc 0 "explain vizz --json"
check_py "explain --json: TP 8, DP 4, ZeRO-1, mb 1, accumulation 8, CP 2; PP 2 would not relieve stage 0" '
r = j["recipe"]
want = dict(tp=8, pp=1, cp=2, dp=4, zero=1, micro_batch=1, grad_accum=8, global_batch=32, ep=1)
for k, v in want.items():
    need(r[k] == v, "%s = %s, want %s" % (k, r[k], v))
need(r["long_context"] is True and r["fits"] is True, "flags")
need(abs(r["stage0_act_pp2_bytes"] / r["stage0_act_pp1_bytes"] - 1) < 0.01, "PP 2 changes stage-0 activations")
need(abs(r["act_after_cp_bytes"] / r["act_before_cp_bytes"] - 0.5) < 0.02, "CP 2 does not halve activations")
need(r["micro_batch_max_full_formula"] == r["micro_batch_max_full"], "S4-6: formula != bisection")
need(r["micro_batch_max_full_doubling"] <= r["micro_batch_max_full"] < 2 * r["micro_batch_max_full_doubling"], "S4-6: doubling")
need(abs(r["scores_per_head"] - 131072**2) < 1, "S4-5 scores")
need(j["recipe_layout"]["layout"]["grad_accum"] == 8, "recipe layout")
need(j["search_best"]["time"]["step_s"] <= j["recipe_layout"]["time"]["step_s"] * (1 + 1e-12), "search slower than the recipe")
'
# the recipe cannot fit 405B on one node
run explain --model llama-3.1-405b --gpus 8 --seq-len 8192 --global-batch 16
expect_rc 1 "explain 405B on 8 GPUs"
has "explain 405B on 8 GPUs" "DOES NOT FIT"
# the bill is the seed's 16N; under fp8 it says what the memory figures add:
# TransformerEngine's fp8 weight copies (docs/model.md 6), 2 B on H100
run explain --model llama-3-70b --gpu h100-sxm --gpus 64 --seq-len 4096 --global-batch 512 --precision fp8
has "explain fp8: the weight copies" "Beside them TransformerEngine keeps fp8 copies of the linear weights, 2 bytes a linear parameter"
run explain --model llama-3-70b --gpu h100-sxm --gpus 64 --seq-len 4096 --global-batch 512
if ! grep -qF "fp8 copies" "$tmp/out"; then ok; else bad "explain bf16 names fp8 weight copies"; fi

# ---------------------------------------------------------------- never NaN or inf
for args in "$SMALL" "$VIZZ" "--model mixtral-8x7b --gpus 64 --seq-len 4096 --global-batch 256"; do
    # shellcheck disable=SC2086
    run search $args --top 3
    if [ "$rc" -eq 0 ] && ! grep -Eiq '(^|[^a-z])(nan|inf|infinity)([^a-z]|$)' "$tmp/out"; then ok
    else bad "search $args: exit $rc or non-finite number"; fi
    # shellcheck disable=SC2086
    run explain $args
    if [ "$rc" -eq 0 ] && ! grep -Eiq '(^|[^a-z])(nan|inf|infinity)([^a-z]|$)' "$tmp/out"; then ok
    else bad "explain $args: exit $rc or non-finite number"; fi
done

# ---------------------------------------------------------------- reports against --json (issue 7)
# The CSV and Markdown carry the JSON's figures: same layouts in the same
# order, bytes exact, seconds and money to the printed precision.
run search $SMALL --top 4 --json
cp "$tmp/out" "$tmp/search.json"
run search $SMALL --top 4 --csv
cp "$tmp/out" "$tmp/search.csv"
pycheck "search --csv has the --json figures" "$tmp/search.csv" "$tmp/search.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
j = json.load(open(sys.argv[2]))
assert len(rows) == len(j) == 4, (len(rows), len(j))
def rel(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(abs(b), 1e-300)
for r, e in zip(rows, j):
    assert int(r["rank"]) == e["search"]["rank"]
    for k in ("tp", "pp", "cp", "ep", "dp", "vpp", "micro_batch", "grad_accum", "num_gpus"):
        assert int(r[k]) == e["layout"][k], k
    assert int(r["etp"]) == e["layout"].get("etp", e["layout"]["tp"])  # the last column
    assert r["zero"] == str(e["layout"]["zero"]) and r["recompute"] == e["layout"]["recompute"]
    assert int(r["peak_bytes"]) == e["memory"]["peak_bytes"]
    assert int(r["headroom_bytes"]) == e["memory"]["headroom_bytes"]
    for k, v in e["memory"]["breakdown"].items():
        assert abs(int(r[k + "_bytes"]) - v) <= 1, k
    t = e["time"]
    assert rel(float(r["step_s"]), t["step_s"]) and rel(float(r["mfu"]), t["throughput"]["mfu"])
    for k, v in t["breakdown"].items():
        assert rel(float(r[k + "_s"]), v), k
    assert rel(float(r["cost_per_token_usd"]), e["search"]["cost_per_token_usd"])
    assert rel(float(r["gpu_s_per_token"]), e["search"]["gpu_s_per_token"])
assert rows[0]["note"] == "" and all(r["note"] for r in rows[1:])
PY
run search $SMALL --top 4 --markdown
cp "$tmp/out" "$tmp/search.md"
pycheck "search --markdown has the --json figures, units in the headers" "$tmp/search.md" "$tmp/search.json" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("|")]
j = json.load(open(sys.argv[2]))
head = [c.strip() for c in lines[0].strip().strip("|").split("|")]
for unit in ("Memory (GiB)", "Headroom (GiB)", "Step (s)", "Tokens/s per GPU", "MFU (%)", "USD per 1M tokens"):
    assert unit in head, (unit, head)
rows = [dict(zip(head, (c.strip() for c in l.strip().strip("|").split("|")))) for l in lines[2:]]
assert len(rows) == len(j) == 4
for r, e in zip(rows, j):
    assert int(r["#"]) == e["search"]["rank"]
    for k in ("TP", "PP", "CP", "EP", "DP", "VPP"):
        assert int(r[k]) == e["layout"][k.lower()], k
    assert int(r["ZeRO"]) == e["layout"]["zero"] and r["Recompute"] == e["layout"]["recompute"]
    assert int(r["Accumulation"]) == e["layout"]["grad_accum"]
    assert abs(float(r["Memory (GiB)"]) - e["memory"]["peak_bytes"] / 2**30) <= 0.006
    assert abs(float(r["Headroom (GiB)"]) - e["memory"]["headroom_bytes"] / 2**30) <= 0.006
    t = e["time"]
    assert abs(float(r["Step (s)"]) - t["step_s"]) <= 6e-5
    assert abs(float(r["Tokens/s per GPU"]) - t["throughput"]["tokens_per_s_per_gpu"]) <= 0.06
    assert abs(float(r["MFU (%)"]) - 100 * t["throughput"]["mfu"]) <= 0.06
    assert abs(float(r["USD per 1M tokens"]) - 1e6 * e["search"]["cost_per_token_usd"]) <= 6e-5
text = open(sys.argv[1]).read()
assert text.startswith("## trainplan search: llama-3-8b on 16 x h100-sxm")
assert "- #2: " in text and "- #4: " in text
PY
# the last of --json, --markdown and --csv wins (as for estimate)
run search $SMALL --top 2 --json --csv
if [ "$rc" -eq 0 ] && head -1 "$tmp/out" | grep -q '^rank,model,gpu,'; then ok; else bad "search --json --csv: CSV wins"; fi
run search $SMALL --top 2 --csv --markdown --json
check_py "search --csv --markdown --json: JSON wins" 'need(isinstance(j, list) and len(j) == 2, "not the JSON")'
# nothing fits: the closest layouts in the same formats (exit 1)
run search --model llama-3.1-405b --gpus 8 --seq-len 8192 --global-batch 16 --top 3 --markdown
expect_rc 1 "405B on 8 GPUs --markdown"
has "405B --markdown" "**No layout fits.**"
has "405B --markdown" "| Binding constraint |"
run search --model llama-3.1-405b --gpus 8 --seq-len 8192 --global-batch 16 --top 3 --csv
expect_rc 1 "405B on 8 GPUs --csv"
check_py "closest layouts as CSV" '
rows = list(csv.DictReader(io.StringIO(out)))
need(len(rows) >= 1 and all(r["fits"] == "false" and "over" in r["note"] for r in rows), "rows: %s" % rows[:1])
'

# ---------------------------------------------------------------- --svg: the best layout's charts
run search $SMALL --top 4 --json --svg "$tmp/best.svg"
expect_rc 0 "search --svg"
svg_vs_estimate "search --svg draws the best layout's figures" "$tmp/best.svg" "$tmp/out" 0
render_check "search --svg" "$tmp/best.svg"
cp "$tmp/best.svg" "$tmp/best.before"
expect_error "trainplan: error: $tmp/best.svg exists (use --force to overwrite it)" \
    search $SMALL --top 4 --svg "$tmp/best.svg"
if cmp -s "$tmp/best.svg" "$tmp/best.before"; then ok; else bad "search --svg changed an existing file without --force"; fi
run search $SMALL --top 4 --svg "$tmp/best.svg" --force
expect_rc 0 "search --svg --force"
no_temp_files "search --svg" "$tmp"
run search --model llama-3.1-405b --gpus 8 --seq-len 8192 --global-batch 16 --svg "$tmp/none.svg"
if [ "$rc" -eq 1 ] && [ ! -e "$tmp/none.svg" ] && grep -qF "no chart is written" "$tmp/err"; then ok
else bad "search --svg with nothing fitting: exit $rc, file $(ls "$tmp/none.svg" 2>&1)"; fi

# ---------------------------------------------------------------- folded layouts show their ETP
# TP 2 fixed, ETP 1 fixed: every layout is folded; the Markdown EP cell says
# so, the CSV's last column (etp) is 1.
MOE="--model mixtral-8x7b --gpu h100-sxm --gpus 64 --seq-len 4096 --global-batch 256 --tp 2 --etp 1 --top 2"
# shellcheck disable=SC2086
run search $MOE --markdown
expect_rc 0 "search folded --markdown"
if grep -q '^| 1 | 64 | 2 | [0-9]* | [0-9]* | [0-9]* | [0-9]* (ETP 1) |' "$tmp/out"; then ok
else bad "search folded --markdown: the EP cell lacks (ETP 1): $(grep '^| 1 ' "$tmp/out")"; fi
# shellcheck disable=SC2086
run search $MOE --csv
if [ "$rc" -eq 0 ] && sed -n 2p "$tmp/out" | grep -q ',1$'; then ok; else bad "search folded --csv: etp last"; fi
# ---- --params N: the model is tp_scaling_shape's, as for plan and estimate ----
# 7e9: L0 = cbrt(7e9 / (12 x 128^2)) = 32.9, 32 heads, h 4096, FFN 11008; V 32000:
# layers (7e9 - 2Vh - h) / 202,383,360 = 33.3 -> 33: 33 x 202,383,360 + 262,148,096
run search --params 7e9 --gpus 16 --global-batch 256 --top 2 --json
json_check "search --params" 0 "len(j) == 2" \
    "all(x['model']['name'] == 'llama-style-7B' and x['model']['layers'] == 33 for x in j)" \
    "all(x['params']['total'] == 6940798976 == 33 * 202383360 + 262148096 for x in j)" \
    "all(x['from_params']['params'] == 7e9 for x in j)" \
    "all(x['from_params']['shape_rule'].startswith('Shape rule (tp_scaling_shape):') for x in j)"
run search --params 7e9 --gpus 16 --global-batch 256 --top 2
has "search --params text" "Model from --params: 7e+09 parameters asked, 6940798976 in the shape (33 layers, hidden 4096, 32"
run search --params 7e9 --gpus 16 --global-batch 256 --top 2 --csv
if [ "$rc" -eq 0 ] && ! grep -q "Shape rule" "$tmp/out"; then ok; else bad "search --params --csv: rows only"; fi
expect_error "trainplan: error: --params: it chooses the model's shape and --heads would override it (give a model file for a shape of your own)" \
    search --params 7e9 --heads 16 --gpus 16 --global-batch 256
expect_error "trainplan: error: --params: 5 is out of range [1e+06, 1e+14]" search --params 5 --gpus 16 --global-batch 256

# ---- plan's tie-break rule, stated, never applied (tp_plan_layout_simpler) ----
# Llama 3 70B on 16 GPUs, 256 sequences: #1 is TP 8 x PP 2 with 4 virtual
# stages; #4, the same without virtual stages, is 0.2% slower: within 3%, and
# simpler
TIE="--model llama-3-70b --gpus 16 --global-batch 256 --seq-len 4096"
# shellcheck disable=SC2086
run search $TIE --top 10
has "tie note" "Note: a simpler layout within 3% of #1's step time is listed: #4 (TP 8 x PP 2 x CP 1), 0.2% slower;"
# shellcheck disable=SC2086
run search $TIE --top 10 --json
json_check "tie note json" 0 "j[0]['search']['simpler_within_tie']['rank'] == 4" \
    "abs(j[0]['search']['simpler_within_tie']['slower_fraction'] - 0.00198637323454354) < 1e-9" \
    "j[3]['layout']['vpp'] == 1 and j[0]['layout']['vpp'] == 4" \
    "all('simpler_within_tie' not in x['search'] for x in j[1:])"
# with 3 listed none is simpler than #1 (#2 and #3 have more virtual stages): no note
# shellcheck disable=SC2086
run search $TIE --top 3
if [ "$rc" -eq 0 ] && ! grep -q "simpler layout" "$tmp/out"; then ok; else bad "tie note top 3"; fi
# the rule is about the fastest step: no note for another ranking, nor in CSV
# shellcheck disable=SC2086
run search $TIE --top 10 --rank cost --json
json_check "no tie note by cost" 0 "'simpler_within_tie' not in j[0]['search']"
# shellcheck disable=SC2086
run search $TIE --top 10 --csv
if [ "$rc" -eq 0 ] && ! grep -q "simpler layout" "$tmp/out"; then ok; else bad "tie note in CSV"; fi

# ---- --unfit N: the closest layouts that do not fit, after the ranked ones (issue 19) ----
# Llama 3 70B on 64 GPUs: 7,264 layouts fit; the closest that do not are a
# few tenths of a GiB over the 79.65 GiB of an H100
UNFIT="--model llama-3-70b --gpus 64 --seq-len 8192 --global-batch 512 --top 2"
# shellcheck disable=SC2086
run search $UNFIT --json
cp "$tmp/out" "$tmp/ranked.json"
# shellcheck disable=SC2086
run search $UNFIT --unfit 3 --json
json_check "unfit json" 0 "len(j) == 5" \
    "j[:2] == json.load(open('$tmp/ranked.json'))" \
    "all(x['memory']['fits'] for x in j[:2])" \
    "all(not x['memory']['fits'] and x['memory']['peak_bytes'] > x['memory']['capacity_bytes'] for x in j[2:])" \
    "[x['search']['rank'] for x in j[2:]] == [1, 2, 3] and all(x['search']['rank_by'] == 'closest' for x in j[2:])" \
    "j[2]['memory']['peak_bytes'] == 85525396467 and j[2]['memory']['capacity_bytes'] == 85520809984" \
    "[j[2]['layout'][k] for k in ('tp', 'pp', 'cp', 'zero', 'recompute')] == [2, 2, 16, 1, 'full']" \
    "j[2]['search']['binding'].startswith('stage 1 needs 79.7 GiB > 79.6 GiB (largest part: weights 32.9 GiB), 0.0 GiB over; needs CP >= 32 (128 GPUs)')"
# text: the ranked report unchanged (but its timing), then the closest
# shellcheck disable=SC2086
run search $UNFIT
grep -v "searched 42,636 layouts in" "$tmp/out" >"$tmp/ranked.txt"
# shellcheck disable=SC2086
run search $UNFIT --unfit 3
has "unfit text head" "The 3 closest layouts that do not fit (--unfit; smallest memory over capacity), with the constraint"
has "unfit text row" "1. TP 2, PP 2, CP 16, DP 1, SP off, ZeRO-1, recompute full, micro-batch 1 x accumulation 512"
if [ "$rc" -eq 0 ] && grep -v "searched 42,636 layouts in" "$tmp/out" | head -n "$(wc -l <"$tmp/ranked.txt")" |
    cmp -s - "$tmp/ranked.txt"; then ok; else bad "unfit text: the ranked report changed"; fi
# CSV: the rows that do not fit say so in the fits column, numbered among themselves
# shellcheck disable=SC2086
run search $UNFIT --unfit 3 --csv
pycheck "unfit csv" "$tmp/out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["rank"], r["fits"]) for r in rows] == [("1", "true"), ("2", "true"), ("1", "false"), ("2", "false"), ("3", "false")], rows
assert all(int(r["peak_bytes"]) > int(r["capacity_bytes"]) for r in rows[2:])
assert rows[2]["note"].startswith("stage 1 needs 79.7 GiB > 79.6 GiB"), rows[2]["note"]
PY
# Markdown: a second table before the footer
# shellcheck disable=SC2086
run search $UNFIT --unfit 1 --markdown
has "unfit markdown" "The 1 closest layout that does not fit (--unfit; smallest memory over capacity), with the constraint that binds:"
has "unfit markdown row" "| 1 | 64 | 2 | 2 | 1 | 16 | 1 | 1 | off | 1 | full | 1 | 512 | 79.65 | -0.00 | no |"
# nothing fits: the closest are the answer already; --unfit changes nothing
run search --model llama-3-70b --gpus 8 --seq-len 8192 --global-batch 512 --json
cp "$tmp/out" "$tmp/none.json"
run search --model llama-3-70b --gpus 8 --seq-len 8192 --global-batch 512 --json --unfit 2
if [ "$rc" -eq 1 ] && cmp -s "$tmp/out" "$tmp/none.json"; then ok; else bad "unfit when nothing fits: exit $rc or changed"; fi
# shellcheck disable=SC2086
expect_error "trainplan: error: --unfit: 0 is out of range [1, 8]" search $UNFIT --unfit 0
# shellcheck disable=SC2086
expect_error "trainplan: error: --unfit: 9 is out of range [1, 8]" search $UNFIT --unfit 9

finish
