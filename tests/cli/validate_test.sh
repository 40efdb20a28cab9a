#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# validate_test.sh: end-to-end tests of `trainplan validate FILE.csv`:
# the per-row table and summary on data/runs/runs-dev.csv, the
# --json contract, the accuracy it reaches (a regression guard at the
# levels docs/ACCURACY.md reports), rows listed with reasons rather than
# dropped, assumptions shown, --eff overrides, and every bad-input case
# (RFC 4180 errors with line and column, missing columns, bad flags).
#
#   bash tests/cli/validate_test.sh /path/to/trainplan
#
# TP_SOURCE_DIR (set by ctest) locates data/runs/runs-dev.csv. Needs
# python3 for JSON parsing. Prints one line per failure and a final
# "N passed, M failed"; exits non-zero on any failure.
set -u

T=${1:?usage: validate_test.sh /path/to/trainplan}
SRC=${TP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CSV=$SRC/data/runs/runs-dev.csv
. "$(dirname "$0")/lib.sh"

# check_json NAME PYTHON_EXPR...: the last run exited 0 and every expression
# holds, with j = the parsed --json output (by_id: rows by their id).
check_json() {
    local name=$1
    shift
    json_check "$name" 0 "$@"
}

if [ ! -f "$CSV" ]; then
    bad "runs-dev.csv not found at $CSV (set TP_SOURCE_DIR)"
    finish
    exit 1
fi

# ---- docs/ACCURACY.md's generated block is what this binary validates ----
# (its summary, memory by metric and every row: tools/accuracy_table.py)
if python3 "$SRC/tools/accuracy_table.py" --trainplan "$T" --runs "$CSV" check "$SRC/docs/ACCURACY.md" \
    >"$tmp/acc.out" 2>&1; then ok; else
    bad "docs/ACCURACY.md is stale: $(head -c 2000 "$tmp/acc.out")"; fi

# ---- the text report ----
run validate "$CSV"
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ]; then ok; else bad "validate: exit $rc: $(cat "$tmp/err")"; fi
has "header" "111 rows, 106 evaluated, 5 not evaluated"
has "summary" "Summary (absolute relative error; the signed median is the bias, > 0 predicts more)"
has "throughput summary" "throughput (tokens/s per GPU), 105 rows: median"
has "memory summary" "memory per GPU, 27 rows: median"
has "signed median" "; signed median "
has "fit summary" "fit verdict: "
# the wrong verdict shows its numbers (the heaviest stage against the capacity)
has "verdict numbers" "bloom-prequel-206B-L82-h14336-nh128-tp4pp12dp8-mbs2 (line 24): no throughput measured; recompute full; predicted step 114 s, MFU 38.5%, bottleneck: activation recompute; heaviest stage 0: 68.7 GB (64.0 GiB) of 85.9 GB (80.0 GiB);"
has "TPU row listed" "palm540b-tpuv4 (line 25): TPU, not a GPU: out of the planner's domain"
# MLA rows: the model is the preset their name gives, their shape cells checked against it
# its stated recompute: the RMSNorms and MLA up-projections (report Sec 3.2.3)
has "MLA row evaluated" "deepseekv3-pretrain-2048xH800 (line 26): tokens/s per GPU as published; recompute selective;"
has "MLA preset stated" "model: preset deepseek-v3 (MLA; the row's shape cells agree), with its MTP module"
# the B200 row at its recipe's recompute (mla_up_proj, deepseek_workload_base_configs.py @ v0.3.0)
has "MLA B200 row" "   99 mbridge2602-b200-deeps b200           published*        2689      2101  -21.9%  fit/fit"
has "missing architecture listed" "nemo2407-GPT3-20B-64gpu (line 64): architecture not stated"
has "missing layout listed" "mcore24-strong-177B-4608gpu (line 13): parallel layout (TP, PP, DP) not stated"
# AutoModel's in-order pipeline split of 61 layers over 32 virtual stages (config.c header)
has "uneven interleaving evaluated" "pipeline split in order over pp*vpp = 32 virtual stages (AutoModel's pipelining; heaviest stage 0: 8 layers)"
# AutoModel's benchmark loop runs the pipeline schedule once per local
# batch: DeepSeek-V3 on 1,024 GPUs, LBS 8 and GA 4
has "schedule runs per step" "local batch 8: 4 schedule runs per step, each filling and draining the pipeline"
# MoE parallel folding: EP 32 with TP 2 on 256 GPUs runs with the row's expert TP 1 (etp column)
has "EP wider than DP evaluated" "mbridge2602-h100-qwen3-235b-a22b (line 97): tokens/s per GPU as published; recompute none;"
has "expert TP stated" "expert TP 1 apart from TP 2 (etp column: MoE parallel folding, EDP 1)"
has "HFU conversion named" "Megatron HFU 96BsLh^2(1+s/6h+V/16Lh), no causal discount"
has "NeMo conversion named" "NeMo model FLOPs, no causal discount, unpadded V"
has "step-time basis named" "from the step time: global batch x seq / step / GPUs"
has "assumption shown" "recompute not stated: none (the least that fits)"
has "memory metric named" "torch reserved GiB"
has "nvidia-smi metric named" "nvidia-smi used G"
has "active metric named" "torch peak active"
has "OOM row expected" "OOM/"
has "Ampere attention kernel stated" "attention kernel written for Ampere (FlashAttention-2/triton, 2023) on Hopper"
has "compiled loss stated" "loss compiled with the model (torchtitan since"
has "loss parallel stated" "loss parallel (torchtitan's default at TP > 1)"

# ---- JSON: contract and accuracy (regression guard at the reported levels) ----
run validate "$CSV" --json
check_json "json contract" \
    'j["summary"]["rows"] == 111 and j["summary"]["evaluated"] == 106' \
    'j["summary"]["not_evaluated"] == 5' \
    'len(j["rows"]) == 111' \
    'all(("reason" in r) != r["evaluated"] for r in j["rows"])' \
    'all(r["throughput"] is None or r["throughput"]["measured_tokens_per_s_per_gpu"] > 0 for r in j["rows"] if r["evaluated"])' \
    'all(abs(sum(r["predicted"]["time_breakdown_s"].values()) - r["predicted"]["step_s"]) <= 1e-9 * r["predicted"]["step_s"] for r in j["rows"] if r["evaluated"])' \
    'by_id(j["rows"])["bloom-prequel-206B-L82-h14336-nh128-tp4pp12dp8-mbs2"]["fit"]["expected"] == "out of memory"' \
    'all((r["fit"]["predicted"] == "fits") == (r["fit"]["predicted_gib"] <= r["fit"]["capacity_gib"]) for r in j["rows"] if r["evaluated"])' \
    'all(r["fit"]["predicted_gib"] == r["predicted"]["memory_breakdown_gib"]["total"] for r in j["rows"] if r["evaluated"] and r["fit"]["stage"] == r["predicted"]["memory_breakdown_gib"]["stage"])' \
    'by_id(j["rows"])["titan-8b-8gpu-fsdp"]["memory"]["metric"] == "torch reserved" and by_id(j["rows"])["titan-8b-8gpu-fsdp"]["memory"]["unit"] == "GiB"' \
    'by_id(j["rows"])["torchtune-3b-a100-ac"]["memory"]["metric"] == "torch peak active"' \
    'by_id(j["rows"])["megatron21-t1-1T"]["throughput"]["basis"].startswith("from 163.0 hardware TFLOP/s/GPU")' \
    'by_id(j["rows"])["mosaic-a10080-mpt7b-s2048-g8"]["throughput"]["basis"] == "tokens/s per GPU as published"'
# torchtitan compiles the loss with the model since bbb1b616e (2025): the
# H200 rows (e7c0cae) hold 4 B per logit, the 2024 rows (9dec370, loss
# compile off) the eager 12. By hand, T = 2 x 8192 = 16384 tokens, h 4096,
# V 128256, GiB: (4Th + 4TV)/2^30 = 8.078125; (4Th + 12TV)/2^30 = 23.734375.
check_json "torchtitan compiled loss" \
    'by_id(j["rows"])["titan-8b-h200-32gpu-fsdp-fp8"]["predicted"]["memory_breakdown_gib"]["logits"] == 8.078125' \
    'by_id(j["rows"])["titan-8b-h200-64gpu-fsdp-fp8"]["predicted"]["memory_breakdown_gib"]["logits"] == 8.078125' \
    'by_id(j["rows"])["titan-8b-128gpu-fsdp-compile"]["predicted"]["memory_breakdown_gib"]["logits"] == 23.734375' \
    'by_id(j["rows"])["titan-8b-128gpu-fsdp"]["predicted"]["memory_breakdown_gib"]["logits"] == 23.734375' \
    'all(abs(by_id(j["rows"])[i]["memory"]["rel_error"]) < 0.03 for i in ("titan-8b-h200-32gpu-fsdp-fp8", "titan-8b-h200-64gpu-fsdp-fp8"))'
# torchtitan's loss parallel at TP > 1 (DTensor cross-entropy, 16 B per
# logit) and its head's gathered bf16 input (--tp-gathered-input). By hand
# for the 70B row, T = 16 x 8192 = 131072, h 8192, V 128256, t 8, GiB:
# 4Th/t 0.5 + 16TV/t 31.3125 + 2Th(1 - 1/t) 1.75 = 33.5625.
check_json "torchtitan loss parallel" \
    'by_id(j["rows"])["titan-70b-256gpu-2d"]["predicted"]["memory_breakdown_gib"]["logits"] == 33.5625' \
    'abs(by_id(j["rows"])["titan-70b-256gpu-2d"]["memory"]["rel_error"]) < 0.06'
# The constants of src/lib/calib.c are fitted on the whole file (its 105
# throughput rows, from the neutral start; issue 17, third round). The
# guard is still split by the rows' history: the file's first 91 rows (the
# rows the earlier constants were fitted on) and the 20 rows added on
# 2026-11-23 (ids mbridge2509-, mbridge2602-, mbridge2606-, automodel-;
# data/runs/runs-dev-sources.md) with the DeepSeek-V3 pre-training row
# (line 26; a whole-run average under DualPipe), whose errors are much
# larger (fine-grained MoE, gpt-oss, PyTorch-native FSDP2). The whole-file
# refit trades the first rows for the added ones: their p90 moves from
# 14.7% to 17.3%, above the 15% target it met before (docs/ACCURACY.md).
# Each guard is at its figure of today plus a small margin, so that a change
# that makes it worse fails here and one that makes it better is recorded by
# tightening these bounds. Percentiles as the program's (NumPy's linear).
# Loosened once, in issue 17's fourth round (median 5.0% to 5.9%): the
# torchtitan rows' attention kernel replaced the fitted 500 W clock, which
# the held-out error gains from (docs/ACCURACY.md, "Headline").
# These guard the fitted fractions (tp_gpu_default_eff, what calibrate.py
# fits without --profiles): --fitted-gemm. The GPU presets' default, the
# kernel-level model of their profiles, has its own guard below.
run validate "$CSV" --json --fitted-gemm
check_json "accuracy guard (whole file)" \
    'j["summary"]["throughput"]["rows"] == 105' \
    'j["summary"]["throughput"]["median_abs_rel_error"] <= 0.065' \
    'j["summary"]["throughput"]["p90_abs_rel_error"] <= 0.22' \
    'j["summary"]["memory"]["rows"] == 27' \
    'j["summary"]["memory"]["median_abs_rel_error"] <= 0.03' \
    'j["summary"]["fit"]["rows"] == 106 and j["summary"]["fit"]["correct"] == 105'
pycheck "accuracy guard (fitted rows, added rows)" "$tmp/out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
# the rows added on 2026-11-23 and the DeepSeek-V3 pre-training row (not
# evaluated, MLA, when the earlier constants were fitted)
ADDED = ("mbridge2509-", "mbridge2602-", "mbridge2606-", "automodel-", "deepseekv3-pretrain-")


def pct(xs, q):
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    return xs[-1] if lo + 1 >= len(xs) else xs[lo] + (pos - lo) * (xs[lo + 1] - xs[lo])


def figures(rows):
    ev = [r for r in rows if r["evaluated"]]
    tput = [abs(r["throughput"]["rel_error"]) for r in ev if r["throughput"]]
    mem = [abs(r["memory"]["rel_error"]) for r in ev if r["memory"]]
    return len(rows), len(ev), tput, mem, sum(r["fit"]["correct"] for r in ev)


fitted = [r for r in j["rows"] if not r["id"].startswith(ADDED)]
added = [r for r in j["rows"] if r["id"].startswith(ADDED)]
n, ev, tput, mem, right = figures(fitted)
# 84: all but the BLOOM 206B row, which a same-source twin contradicts
# (docs/ACCURACY.md); the GB200 Llama 3 70B row fits with TE's fused loss
assert (n, ev, len(tput), len(mem), right) == (90, 85, 84, 27, 84), (n, ev, len(tput), len(mem), right)
assert pct(tput, 0.5) <= 0.05, pct(tput, 0.5)   # 4.6% today
assert pct(tput, 0.9) <= 0.15, pct(tput, 0.9)   # 13.9% today (17.3% after the refit; tightened in the ninth round): see docs/ACCURACY.md
assert pct(mem, 0.5) <= 0.10, pct(mem, 0.5)
n, ev, tput, mem, right = figures(added)
# 21 right: the DeepSeek-V3 row fits at its stated recompute with the FP8
# activation cache and BF16 moments its notes state (docs/ACCURACY.md); the
# 26.02 GB200 Llama 3 70B row with its recipe's offload and TE's fused loss
assert (n, ev, len(tput), len(mem), right) == (21, 21, 21, 0, 21), (n, ev, len(tput), len(mem), right)
assert pct(tput, 0.5) <= 0.15, pct(tput, 0.5)   # 12.1% today (13.7% before the tenth round)
# loosened from 42% in issue 17's eighth round: the flex dispatcher's rows
# lost the alltoall dispatcher's sort by expert (time.c moe_mlp_part), and
# the fitted fractions over-predict the 26.02/26.06 Qwen3 rows (+151%, +50%)
assert pct(tput, 0.9) <= 0.53, pct(tput, 0.9)   # 50.2% today
reasons = sorted(r["reason"].split(":")[0] for r in added if not r["evaluated"])
assert reasons == [], reasons   # all evaluated since the in-order split (61 layers, 32 virtual stages)
PY
# The default model (issue 17: the presets' profiles, time.c 1b, 2 and
# the host floor, with the constants calibrate.py --profiles fits):
# in-sample 7.9% / 16.6% on the whole file; it is the better model held
# out (docs/ACCURACY.md).
# Tightened from 7.5% / 25% when its five constants were refit after the
# NeMo 24.07 SFT rows were corrected (calib.c, objective 0.2838); loosened
# from 7% in the fifth round, when the three attention fractions gave way
# to one share of each profile's measured attention kernel (three
# constants instead of five): held out by family 9.2% / 23.6% -> 8.0% /
# 20.8%, in-sample 6.6% -> 7.9%; with the host floor of dropless MoE
# layers (five constants) the p90 guard tightens from 21% to 20% (18.5%
# then) and the median's loosens to 8.5% (8.0%). Sixth round (the
# recipes' layouts, the attention rate by sequence length, refit): 7.9% /
# 16.6% today, the p90 guard tightens to 17.5%. Seventh round (TE's
# userbuffers chunks for Megatron-Core's TP overlap, refit): 6.8% / 18.0%;
# the median's guard tightens to 7.5%, the p90's loosens to 18.5% (the
# NeMo H100 long-context rows, over-predicted, move up with less TP time;
# held out by family the p90 stays 19.2%: docs/ACCURACY.md). With
# torchtitan's eager rows' element-wise kernels: 6.5% / 18.0%. Eighth
# round (the flex dispatcher, DeepEP and HybridEP, has no sort by expert):
# 6.7% / 18.5%; the p90's guard loosens to 19% (the AutoModel rows, which
# other costs keep too fast, move up; held out by family the figures go
# from 7.3% / 19.0% to 6.9% / 19.1%: docs/ACCURACY.md). Ninth round
# (AutoModel and torchtitan run the pipeline schedule once per local
# batch; AutoModel's configs' virtual stages): 6.7% / 17.8%, the p90's
# guard tightens to 18%. Tenth round (AutoModel's eager gpt-oss experts;
# DeepEP sends a token once per destination GPU): 5.9% / 16.0%, the guards
# tighten to 6.5% / 17%. Eleventh round (the GB200 Llama 3 70B rows run
# their recipe's activation offload over the preset's host link;
# Megatron-Bridge's bf16 gradients): 5.9% / 15.6%, the p90's guard
# tightens to 16.5%; their two verdicts turn wrong (below). Thirteenth
# round (torchtune's packed examples; Megatron-Bridge's fused loss turns
# those two verdicts right): 5.6% / 15.4%, the guards tighten to 6% / 16%.
run validate "$CSV" --json
check_json "accuracy guard (default: profile GEMM model)" \
    'j["summary"]["throughput"]["rows"] == 105' \
    'j["summary"]["throughput"]["median_abs_rel_error"] <= 0.06' \
    'j["summary"]["throughput"]["p90_abs_rel_error"] <= 0.16' \
    'j["summary"]["memory"]["rows"] == 27' \
    'j["summary"]["memory"]["median_abs_rel_error"] <= 0.03' \
    'j["summary"]["fit"]["rows"] == 106 and j["summary"]["fit"]["correct"] == 105'

# ---- held-out rows: the same chronicle table's rows that runs-dev.csv leaves
# out (tests/data/bloom-prequel-heldout.csv, never used to calibrate). The
# 203B row has the 206B OOM row's layout and per-stage parameters within 1%,
# and ran; the two TP4 PP6 DP16 rows ran out of memory. ----
run validate "$SRC/tests/data/bloom-prequel-heldout.csv" --json --fitted-gemm
check_json "held-out BLOOM rows (fitted fractions)" \
    'j["summary"]["rows"] == 9 and j["summary"]["evaluated"] == 9' \
    'j["summary"]["fit"]["correct"] == 9' \
    'j["summary"]["memory"]["rows"] == 7 and j["summary"]["memory"]["median_abs_rel_error"] <= 0.10' \
    'j["summary"]["throughput"]["rows"] == 7 and j["summary"]["throughput"]["median_abs_rel_error"] <= 0.07' \
    'abs(by_id(j["rows"])["heldout-bloom-prequel-203B-L94-h13312-nh128-tp4pp12dp8-mbs2"]["memory"]["rel_error"]) <= 0.05' \
    'by_id(j["rows"])["heldout-bloom-prequel-184B-L100-h12288-nh64-tp4pp6dp16-mbs1"]["fit"]["predicted"] == "out of memory"'
# the default (A100 80 GB profile): 8.1% median today (8.2% before the
# default model's constants were refit after the SFT rows' correction, 3.0%
# with gemm_sw 0.776, 6.5% with 0.809, 7.2% with the fifth round's 0.815,
# 8.1% with the sixth round's 0.824: gemm_sw alone moves it; these rows run
# no FlashAttention)
run validate "$SRC/tests/data/bloom-prequel-heldout.csv" --json
check_json "held-out BLOOM rows (default)" \
    'j["summary"]["fit"]["correct"] == 9' \
    'j["summary"]["throughput"]["rows"] == 7 and j["summary"]["throughput"]["median_abs_rel_error"] <= 0.085'

# ---- held-out llm-foundry rows (data/runs/heldout-llmfoundry.csv: the 193
# bf16 rows of its benchmark tables that runs-dev.csv leaves out, never used
# to calibrate; tools/runs/llmfoundry_heldout.py). Every row evaluates and
# ran; the guards sit above today's 6.9% / 17.4% (2026-11-24). ----
run validate "$SRC/data/runs/heldout-llmfoundry.csv" --json
check_json "held-out llm-foundry rows (default)" \
    'j["summary"]["rows"] == 193 and j["summary"]["evaluated"] == 193' \
    'j["summary"]["fit"]["rows"] == 193 and j["summary"]["fit"]["correct"] == 193' \
    'j["summary"]["throughput"]["rows"] == 193' \
    'j["summary"]["throughput"]["median_abs_rel_error"] <= 0.075' \
    'j["summary"]["throughput"]["p90_abs_rel_error"] <= 0.19'
# the signed median is the rows' own median, and these rows run too fast
check_json "held-out llm-foundry rows: the signed median (the bias)" \
    'j["summary"]["throughput"]["median_rel_error"] == __import__("statistics").median([r["throughput"]["rel_error"] for r in j["rows"] if r.get("throughput")])' \
    'j["summary"]["throughput"]["median_rel_error"] > 0.0' \
    'j["summary"]["memory"]["rows"] == 0 and j["summary"]["memory"]["median_rel_error"] == 0.0'
run validate "$SRC/data/runs/heldout-llmfoundry.csv"
has "held-out llm-foundry rows: the bias in the text" "193 rows: median 6.9%, p90 17.4%, max 30.5%; signed median +3.7%"

# ---- --eff overrides change the prediction, and only where asked ----
# gemm is the fitted fraction's (--fitted-gemm); the default kernel-level
# model of a profile takes mamf and gemm_sw instead
run validate "$CSV" --json --eff "h100-sxm:gemm=0.3" --fitted-gemm
check_json "eff override (prefix)" \
    'by_id(j["rows"])["mcore24-weak-7.1B"]["throughput"]["rel_error"] < -0.2' \
    'abs(by_id(j["rows"])["mosaic-a10080-mpt7b-s2048-g8"]["throughput"]["rel_error"]) < 0.1'
run validate "$CSV" --json --eff "h100-sxm:mamf=0.3"
check_json "eff override (prefix, profile model)" \
    'by_id(j["rows"])["mcore24-weak-7.1B"]["throughput"]["rel_error"] < -0.2' \
    'abs(by_id(j["rows"])["mosaic-a10080-mpt7b-s2048-g8"]["throughput"]["rel_error"]) < 0.1'

# ---- a file of our own: a quoted field with a comma, a newline and "" ----
python3 - "$CSV" "$tmp/two.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
ids = ("mosaic-a10080-mpt7b-s2048-g8", "palm540b-tpuv4")
pick = sorted((r for r in rows[1:] if r[0] in ids), key=lambda r: ids.index(r[0]))
pick[0][head.index("notes")] = 'a note, with a comma\nand a "quoted" line'
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\r\n")
    w.writerow(head)
    w.writerows(pick)
EOF
run validate "$tmp/two.csv" --json
check_json "quoted fields, CRLF" \
    'j["summary"]["rows"] == 2 and j["summary"]["evaluated"] == 1' \
    'by_id(j["rows"])["palm540b-tpuv4"]["evaluated"] is False' \
    'by_id(j["rows"])["mosaic-a10080-mpt7b-s2048-g8"]["line"] == 2' \
    'by_id(j["rows"])["palm540b-tpuv4"]["line"] == 4'

# ---- integer cells are read exactly (tp_io_parse_i64), never clamped ----
# layers beyond int64 (strtoll used to clamp it to 2^63-1), "2.5" (not whole)
# and "1e2" (exactly 100, read as such) in copies of the first run.
python3 - "$CSV" "$tmp/ints.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, first = rows[0], rows[1]
L = head.index("layers")
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(head)
    for name, layers in (("huge", "99999999999999999999"), ("half", "2.5"), ("sci", "1e2")):
        w.writerow([name] + first[1:L] + [layers] + first[L + 1:])
EOF
run validate "$tmp/ints.csv" --json
check_json "integer cells exact" \
    'by_id(j["rows"])["huge"]["evaluated"] is False' \
    'by_id(j["rows"])["huge"]["reason"] == "layers: 99999999999999999999 is out of range [0, 9223372036854775807]"' \
    'by_id(j["rows"])["half"]["reason"] == "layers: expected an integer, got \"2.5\""' \
    'by_id(j["rows"])["sci"]["evaluated"] is True'

# row_variants OUT ID NAME|COLUMN|VALUE...: a CSV of the row ID of runs-dev.csv
# followed by one copy per variant, renamed NAME, with COLUMN set to VALUE
# (NAME|id|NAME: the row unchanged under another id; NAME|COLUMN~TEXT|VALUE:
# TEXT in the cell replaced by VALUE)
row_variants() {
    python3 - "$CSV" "$@" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
src = next(r for r in rows if r[0] == sys.argv[3])
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(head)
    w.writerow(src)
    for variant in sys.argv[4:]:
        name, key, value = variant.split("|", 2)
        r = list(src)
        key, _, old = key.partition("~")
        if old:  # COLUMN~TEXT: TEXT in the cell replaced by VALUE
            assert old in r[head.index(key)], (key, old)
            value = r[head.index(key)].replace(old, value)
        r[head.index(key)] = value
        r[0] = name
        w.writerow(r)
PY
}

# ---- MLA rows: the preset the name gives, the row's shape cells checked ----
# the DeepSeek-V3 pre-training row (line 26) and copies of it: as it is
# under another id; with 60 layers; with 128 experts; renamed to a model
# with no MLA preset
row_variants "$tmp/mla.csv" deepseekv3-pretrain-2048xH800 "same|id|same" "layers60|layers|60" \
    "experts128|moe_experts|128 routed" "other|model_name|DeepSeek-V2" \
    "rcbad|recompute|selective (layernorm,bogus)" \
    "nofp8|notes~activations cached in FP8|(left out)" \
    "nomoments|notes~AdamW moments in BF16|(left out)" \
    "nodual|notes~DualPipe schedule|(left out)"
run validate "$tmp/mla.csv" --json
check_json "MLA rows" \
    'by_id(j["rows"])["same"]["evaluated"] is True' \
    'by_id(j["rows"])["same"]["throughput"]["predicted_tokens_per_s_per_gpu"] == by_id(j["rows"])["deepseekv3-pretrain-2048xH800"]["throughput"]["predicted_tokens_per_s_per_gpu"] > 0' \
    'by_id(j["rows"])["layers60"]["reason"] == "layers \"60\" disagrees with the MLA preset'"'"'s 61"' \
    'by_id(j["rows"])["experts128"]["reason"] == "moe_experts \"128 routed\" disagrees with the MLA preset'"'"'s 256"' \
    'by_id(j["rows"])["other"]["reason"] == "multi-head latent attention (MLA) with no preset for \"DeepSeek-V2\" (the row cannot state the latent ranks)"' \
    'by_id(j["rows"])["rcbad"]["reason"] == "--recompute-modules: unknown recompute module \"bogus\" (known: core_attn,layernorm,mlp,moe,moe_act,shared_experts,mla_up_proj)"'
# The row's low-precision storage (report section 3.3.3; docs/ACCURACY.md),
# by hand, under 1F1B (the row without its DualPipe, "nodual"): stage 1
# holds 4 MoE layers and 15 micro-batches in flight, T = 4096 tokens,
# 156672 B per token and layer with the FP8 cache (test_arch.c
# test_fp8_act_cache), 292480 with 16-bit inputs: 60 x 4096 x 156672 / 2^30 =
# 35.859375 GiB, 60 x 4096 x 292480 / 2^30 = 66.943359375 GiB (out of
# memory, the verdict wrong). FP32 gradients are twice the 16-bit weights;
# BF16 moments make the optimizer state 4 + 2 x 2 = 8 B of 4 + 2 x 4 = 12.
# Under DualPipe (the row as it is; memory.c header 4b) the heaviest GPU is
# rank 0: stage 0 (the 3 dense layers, 16 micro-batches in flight) and
# stage 15 (3 MoE layers and the MTP module, 1 in flight). A dense layer
# stores per token the norms' inputs 28672, the latents 4224, the attention
# output 25088 (E5M6), the log-sum-exp 512, the SwiGLU input 2f x 2 B =
# 73728 and the FC2 input 18432 x 1.03125 = 19008 (fp8 tiles): 151232 B;
# the MTP module its eh_proj input 7168 x 6.0625 = 43456 (2h in fp8 tiles,
# with the 4h of its norms' inputs) and a MoE layer 156672: 200128 B.
# 4096 x (16 x 3 x 151232 + 3 x 156672 + 200128) / 2^30 = 7929280 / 2^18
# = 30.247802734375 GiB.
pycheck "DeepSeek-V3 low-precision storage" "$tmp/out" <<'PY'
import json, sys
rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
ds = rows["nodual"]
mem = ds["predicted"]["memory_breakdown_gib"]
assert ds["fit"]["predicted"] == "fits" and ds["fit"]["correct"], ds["fit"]
assert mem["stage"] == 1 and mem["activations"] == 35.859375, mem
assert abs(mem["grads"] / mem["weights"] - 2) < 1e-12, mem   # 15 digits in JSON
assert ds["assumptions"].endswith(
    "activations cached in fp8 (the linear layers' inputs; the attention output in E5M6; the MoE "
    "SwiGLU input, its output recomputed; report section 3.3.3); AdamW moments in bf16, master "
    "weights and gradients in fp32 (report section 3.3.3)"), ds["assumptions"]
dual = rows["deepseekv3-pretrain-2048xH800"]
dm = dual["predicted"]["memory_breakdown_gib"]
assert dm["stage"] == 0 and dm["activations"] == 30.247802734375, dm
assert dual["fit"]["predicted"] == "fits" and dual["fit"]["correct"], dual["fit"]
assert dual["assumptions"].endswith(
    "AdamW moments in bf16, master weights and gradients in fp32 (report section 3.3.3); DualPipe "
    "schedule (report section 3.2.1): stages i and pp-1-i on rank i, the EP all-to-all hidden in "
    "its paired chunks"), dual["assumptions"]
off = rows["nofp8"]
# without the cache rank 2 is the heaviest: stages 2 and 13, 4 MoE layers
# each, 14 + 3 = 17 micro-batches in flight, TransformerEngine's fp8 copies
# (240256 B per token, test_arch.c test_te_fp8_storage): 68 x 240256 / 2^18
# GiB, still out of memory
assert off["predicted"]["memory_breakdown_gib"]["stage"] == 2, off
assert off["predicted"]["memory_breakdown_gib"]["activations"] == 62.322265625, off
assert off["fit"]["predicted"] == "out of memory" and not off["fit"]["correct"], off["fit"]
assert "fp8" not in off["assumptions"] and "bf16" not in off["assumptions"], off["assumptions"]
nom = rows["nomoments"]["predicted"]["memory_breakdown_gib"]
assert nom["activations"] == 30.247802734375 and nom["grads"] == nom["weights"], nom
assert abs(nom["optimizer"] * 8 / 12 / dm["optimizer"] - 1) < 1e-12, (nom, dm)
assert rows["nomoments"]["assumptions"].endswith("in its paired chunks"), rows["nomoments"]
PY

# ---- named presets: gpt-oss-120b is not the GPT family its name suggests ----
# the Megatron-Bridge gpt-oss row and copies: as it is under another id; with
# 48 heads; with 2048-wide experts; renamed "gpt-x" (read by the GPT family
# rules: a two-matrix GeLU MLP and head_dim 45, so less work and a higher
# prediction than the preset's SwiGLU experts and head_dim 64)
row_variants "$tmp/oss.csv" mbridge2602-h100-gptoss120b-bf16 "same|id|same" "heads48|heads|48" \
    "ffn2048|ffn_hidden|2048 per expert" "gptx|model_name|gpt-x"
run validate "$tmp/oss.csv" --json
check_json "gpt-oss preset" \
    'by_id(j["rows"])["same"]["evaluated"] is True' \
    'by_id(j["rows"])["same"]["assumptions"].startswith("model: preset gpt-oss-120b (its architecture")' \
    'by_id(j["rows"])["same"]["throughput"]["predicted_tokens_per_s_per_gpu"] == by_id(j["rows"])["mbridge2602-h100-gptoss120b-bf16"]["throughput"]["predicted_tokens_per_s_per_gpu"] > 0' \
    'by_id(j["rows"])["heads48"]["reason"] == "heads \"48\" disagrees with the preset'"'"'s 64"' \
    'by_id(j["rows"])["ffn2048"]["reason"] == "ffn_hidden \"2048 per expert\" disagrees with the preset'"'"'s 2880"' \
    'by_id(j["rows"])["gptx"]["throughput"]["predicted_tokens_per_s_per_gpu"] > by_id(j["rows"])["same"]["throughput"]["predicted_tokens_per_s_per_gpu"]'

# ---- bad input ----
expect_error "trainplan: error: validate needs a FILE.csv (run \`trainplan validate --help\`)" validate
expect_error "trainplan: error: cannot read $tmp/none.csv: No such file or directory" validate "$tmp/none.csv"
printf 'id,source\n"open,x\n' >"$tmp/q.csv"
expect_error "trainplan: error: $tmp/q.csv:2:1: quoted field opened at column 1 never closes" validate "$tmp/q.csv"
printf 'id,source\na,b,c\n' >"$tmp/n.csv"
expect_error "trainplan: error: $tmp/n.csv:2:1: record has 3 fields, the header has 2" validate "$tmp/n.csv"
printf 'id,source\n"a"b,c\n' >"$tmp/a.csv"
expect_error "trainplan: error: $tmp/a.csv:2:4: character after a closing quote (expected a comma or the end of the line)" validate "$tmp/a.csv"
printf 'id,source\na"b,c\n' >"$tmp/u.csv"
expect_error "trainplan: error: $tmp/u.csv:2:2: quote inside an unquoted field (quote the whole field and double the quote)" validate "$tmp/u.csv"
: >"$tmp/e.csv"
expect_error "trainplan: error: $tmp/e.csv:1:1: empty file: no header line" validate "$tmp/e.csv"
printf 'id,source\na,b\n' >"$tmp/c.csv"
expect_error "trainplan: error: $tmp/c.csv:1: the header has no column \"model_name\" (a runs file needs the columns of runs-dev.csv)" validate "$tmp/c.csv"
expect_error "trainplan: error: validate takes one file (got \"$CSV\" and \"x.csv\")" validate "$CSV" x.csv
expect_error "trainplan: error: --eff: unknown efficiency \"speed\" (expected one of gemm, gemm_fp8, gemm_half_dim, attn, mem_bw, intra_bw, inter_bw, overlap, sm_count, tile_m, tile_n, mamf, mamf_fp8, gemm_sw, moe_host_layer_s, moe_host_expert_s)" validate "$CSV" --eff speed=1
expect_error "trainplan: error: --eff: expected KEY=VALUE or GPU:KEY=VALUE, got \"gemm\"" validate "$CSV" --eff gemm
expect_error "trainplan: error: unknown flag \"--jsn\" (did you mean \"--json\"?)" validate "$CSV" --jsn

# ---- help ----
run validate --help
if [ "$rc" -eq 0 ] && grep -q "usage: trainplan validate FILE.csv" "$tmp/out"; then ok; else bad "validate --help"; fi
has "help names --eff" "--eff"

# ---- memory metrics (issue 17): every phrasing compared like with like ----
python3 - "$CSV" "$tmp/metrics.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, row = rows[0], next(r for r in rows if r[0] == "torchtune-3b-a100-ac")
col = head.index("memory_metric")
out = [head]
for i, metric in enumerate(["GiB, peak active memory (torch)",
                            "GiB, torch.cuda.max_memory_allocated()",
                            "GiB, torch.cuda.max_memory_reserved()",
                            "GB, NVML used memory",
                            "GiB, resident set size"]):
    r = list(row)
    r[0], r[col] = f"m{i}", metric
    out.append(r)
csv.writer(open(sys.argv[2], "w", newline="")).writerows(out)
PY
run validate "$tmp/metrics.csv" --json
check_json "memory metrics" \
    '[by_id(j["rows"])[f"m{i}"]["memory"]["metric"] for i in range(4)] == ["torch peak active", "torch max allocated", "torch reserved", "nvidia-smi used"]' \
    'by_id(j["rows"])["m0"]["memory"]["predicted"] == by_id(j["rows"])["m1"]["memory"]["predicted"]' \
    'by_id(j["rows"])["m1"]["memory"]["predicted"] < by_id(j["rows"])["m2"]["memory"]["predicted"]' \
    'by_id(j["rows"])["m3"]["memory"]["unit"] == "GB"' \
    'by_id(j["rows"])["m4"]["memory"] is None' \
    '"memory metric \"GiB, resident set size\" not recognised (nvidia-smi, reserved, active, allocated): memory not compared" in by_id(j["rows"])["m4"]["assumptions"]'


# ---- the framework column names the row's profile (framework.c) ----
# copies of a BLOOM row with a neutral id and source: "deepspeed" gives the
# original's prediction, an empty cell the generic conventions, an unknown
# name the same with a note
python3 - "$CSV" "$tmp/fw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
src = next(r for r in rows[1:] if r[0] == "bloom-prequel-176B-L70-h14336-nh64-tp4pp12dp8-mbs2")
fwc, sc = head.index("framework"), head.index("source")
out = [head, src]
for name, fw in (("x-named", "deepspeed"), ("x-none", ""), ("x-unknown", "jax")):
    r = list(src)
    r[0], r[sc], r[fwc] = name, "a copy", fw
    out.append(r)
csv.writer(open(sys.argv[2], "w", newline="")).writerows(out)
PY
run validate "$tmp/fw.csv" --json
check_json "framework column" \
    'by_id(j["rows"])["x-named"]["memory"]["predicted"] == by_id(j["rows"])["bloom-prequel-176B-L70-h14336-nh64-tp4pp12dp8-mbs2"]["memory"]["predicted"]' \
    'by_id(j["rows"])["x-named"]["throughput"]["predicted_tokens_per_s_per_gpu"] == by_id(j["rows"])["bloom-prequel-176B-L70-h14336-nh64-tp4pp12dp8-mbs2"]["throughput"]["predicted_tokens_per_s_per_gpu"]' \
    'by_id(j["rows"])["x-none"]["memory"]["predicted"] < by_id(j["rows"])["x-named"]["memory"]["predicted"]' \
    'by_id(j["rows"])["x-unknown"]["memory"]["predicted"] == by_id(j["rows"])["x-none"]["memory"]["predicted"]' \
    'by_id(j["rows"])["x-unknown"]["assumptions"].startswith("framework \"jax\" has no profile: conventions from the id and source; ")'

# ---- torchtitan's eager rows (no torch.compile) take --eager-elementwise,
# and say so; the benchmark measures eager 14% slower than compiled (Llama
# 3.1 8B on 128 GPUs: 5,605 against 6,514 tok/s/GPU), trainplan 19% ----
run validate "$CSV" --json
check_json "eager rows" \
    'sorted(r["id"] for r in j["rows"] if "eager (no torch.compile)" in r.get("assumptions", "")) == ["titan-8b-128gpu-fsdp", "titan-8b-8gpu-fsdp"]' \
    'abs(by_id(j["rows"])["titan-8b-128gpu-fsdp-compile"]["throughput"]["predicted_tokens_per_s_per_gpu"] / by_id(j["rows"])["titan-8b-128gpu-fsdp"]["throughput"]["predicted_tokens_per_s_per_gpu"] - 1.19) < 0.01'

# ---- NeMo AutoModel's gpt-oss experts (expert biases) run eager
# (--eager-experts) and say so; no other row does ----
check_json "eager experts" \
    'sorted(r["id"] for r in j["rows"] if "run as eager PyTorch kernels" in r.get("assumptions", "")) == ["automodel-h100-gptoss120b-64gpu", "automodel-h100-gptoss20b-8gpu"]'

# ---- --unfused-full-matrix: only the rows without FlashAttention move ----
run validate "$CSV" --json
cp "$tmp/out" "$tmp/uf_half.json"
run validate "$CSV" --json --unfused-full-matrix
python3 - "$tmp/uf_half.json" "$tmp/out" >"$tmp/uf_diff" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pa = {r["id"]: r["throughput"]["predicted_tokens_per_s_per_gpu"] for r in a["rows"] if r.get("throughput")}
pb = {r["id"]: r["throughput"]["predicted_tokens_per_s_per_gpu"] for r in b["rows"] if r.get("throughput")}
moved = sorted({i.split("-")[0] for i in pa if pb[i] != pa[i]})
slower = all(pb[i] < pa[i] for i in pa if pb[i] != pa[i])
print(" ".join(moved), slower, round(100 * (pb["megatron21-t1-1.7B"] / 9288 - 1), 1))
PY
if [ "$(cat "$tmp/uf_diff")" = "bloom megatron21 True -6.0" ]; then ok; else
    bad "validate --unfused-full-matrix: moved $(cat "$tmp/uf_diff"), want 'bloom megatron21 True -6.0'"; fi

# ---- --grouped-gemm: nothing moves under the fitted fractions' roofline
# (--fitted-gemm); with the default kernel-level model of the presets'
# profiles only MoE rows move, faster ----
run validate "$CSV" --json --fitted-gemm
cp "$tmp/out" "$tmp/gg_fitted.json"
run validate "$CSV" --json --fitted-gemm --grouped-gemm
# the same but for the reproduce lines, which carry the switch
pycheck "validate --grouped-gemm leaves the fitted-fraction (roofline) output" \
    "$tmp/gg_fitted.json" "$tmp/out" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for ra, rb in zip(a["rows"], b["rows"]):
    if ra.get("reproduce"):
        assert rb["reproduce"].count(" --grouped-gemm") == 1, rb["reproduce"]
        assert rb["reproduce"].replace(" --grouped-gemm", "") == ra["reproduce"], rb["reproduce"]
        ra["reproduce"] = rb["reproduce"] = None
assert a == b
PY
cp "$tmp/uf_half.json" "$tmp/gg_flat.json"
run validate "$CSV" --json --grouped-gemm
python3 - "$tmp/gg_flat.json" "$tmp/out" "$CSV" >"$tmp/gg_diff" <<'PY'
import csv, json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
experts = {r["id"]: r["moe_experts"].strip() not in ("", "0") for r in csv.DictReader(open(sys.argv[3]))}
pa = {r["id"]: r["throughput"]["predicted_tokens_per_s_per_gpu"] for r in a["rows"] if r.get("throughput")}
pb = {r["id"]: r["throughput"]["predicted_tokens_per_s_per_gpu"] for r in b["rows"] if r.get("throughput")}
moved = [i for i in pa if pb[i] != pa[i]]
print(len(moved) > 0, all(experts[i] for i in moved), all(pb[i] > pa[i] for i in moved))
PY
if [ "$(cat "$tmp/gg_diff")" = "True True True" ]; then ok; else
    bad "validate --grouped-gemm with a profile: got $(cat "$tmp/gg_diff"), want 'True True True'"; fi

# ---- NeMo AutoModel rows: what the benchmark configs state (issue 17) ----
# The Qwen3-30B-A3B row alone: examples/benchmark/configs/
# qwen3_moe_30b_te_deepep.yaml @01926a5c443b trains bf16 weights with
# torch.optim.Adam (bf16 moments, no fp32 master), so weights, gradients and
# the two moments are 2 B each per parameter, all sharded alike: optimizer =
# 2 x gradients = 2 x weights. With them the run fits (it ran); the fp32
# master and moments assumed before put it at 87.3 GB of 85.5.
python3 - "$CSV" "$tmp/am.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\r\n")
    w.writerow(rows[0])
    w.writerows(r for r in rows[1:] if r[0] == "automodel-h100-qwen3-30b-a3b-8gpu")
EOF
run validate "$tmp/am.csv"
has "AutoModel row fits" "    2 automodel-h100-qwen3-3 h100-sxm       published*       12040     11551   -4.1%  fit/fit"
has "AutoModel assumptions" "NeMo AutoModel benchmark config (examples/benchmark/configs @01926a5c443b): PyTorch FSDP2 (not Megatron-Core); bf16 weights and torch.optim.Adam on them (bf16 moments and gradients, no fp32 master); MaskedCrossEntropy without fp32 upcast (6 B per logit); TE attention"
has "AutoModel recompute stated" "automodel-h100-qwen3-30b-a3b-8gpu (line 2): tokens/s per GPU as published; recompute full;"
run validate "$tmp/am.csv" --json
check_json "AutoModel optimizer state" \
    'j["rows"][0]["fit"]["predicted"] == "fits" and j["rows"][0]["fit"]["correct"]' \
    'abs(j["rows"][0]["predicted"]["memory_breakdown_gib"]["grads"] / j["rows"][0]["predicted"]["memory_breakdown_gib"]["weights"] - 1) < 1e-12' \
    'abs(j["rows"][0]["predicted"]["memory_breakdown_gib"]["optimizer"] / j["rows"][0]["predicted"]["memory_breakdown_gib"]["grads"] - 2) < 1e-12' \
    '"recompute not stated" not in j["rows"][0]["assumptions"]'

# ---- --moe-a2a-overlap: only the Megatron-Core rows whose layout Megatron-Core
# allows the overlap on (EP > 1, no full recompute, a virtual pipeline under
# PP > 1) move, faster, and say so; the seven are Megatron-Bridge Qwen3 rows
# (docs/ACCURACY.md, third round) ----
run validate "$CSV" --json
cp "$tmp/out" "$tmp/a2a_off.json"
run validate "$CSV" --json --moe-a2a-overlap
python3 - "$tmp/a2a_off.json" "$tmp/out" >"$tmp/a2a_diff" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
pa = {r["id"]: r["throughput"]["predicted_tokens_per_s_per_gpu"] for r in a["rows"] if r.get("throughput")}
pb = {r["id"]: r["throughput"]["predicted_tokens_per_s_per_gpu"] for r in b["rows"] if r.get("throughput")}
moved = sorted(i for i in pa if pb[i] != pa[i])
said = sorted(r["id"] for r in b["rows"] if "EP all-to-all overlap on" in r.get("assumptions", ""))
print(len(moved), moved == said, all(i.startswith("mbridge") and "qwen3" in i for i in moved),
      all(pb[i] > pa[i] for i in moved), round(100 * (pb["mbridge2602-h100-qwen3-235b-a22b"] / 1633 - 1), 1))
PY
if [ "$(cat "$tmp/a2a_diff")" = "7 True True True 20.0" ]; then ok; else
    bad "validate --moe-a2a-overlap: got $(cat "$tmp/a2a_diff"), want '7 True True True 20.0'"; fi

# ---- DeepEP/HybridEP dispatch (issue 17): exactly the rows whose recipes
# state the dispatcher say so: the six AutoModel rows
# (backend.enable_deepep) and the three Megatron-Bridge rows whose presets
# set moe_flex_dispatcher_backend; those whose EP group spans nodes send a
# token once per node and once per GPU there, the others once per GPU.
# AutoModel's fake balanced gate gives a token k consecutive experts
# (FakeBalancedGate): E/k groups, one a token ----
run validate "$CSV" --json
python3 - "$tmp/out" >"$tmp/nd_rows" <<'PY'
import json, sys
rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
said = sorted(i for i, r in rows.items() if "one copy per destination node, fanned out over NVLink once per GPU; " in r.get("assumptions", ""))
inside = sorted(i for i, r in rows.items() if "one copy per destination GPU; the received tokens permuted by expert once, no sort by expert" in r.get("assumptions", ""))
gate = sorted(i for i, r in rows.items() if "fake balanced gate: a token's" in r.get("assumptions", ""))
print(said)
print(inside)
print(gate)
a = rows["automodel-h100-deepseekv3-256gpu"]["assumptions"]
print(a.endswith("; DeepEP (AutoModel backend.enable_deepep): one copy per destination node, fanned out over NVLink once per GPU; the received tokens permuted by expert once, no sort by expert; fake balanced gate: a token's 8 experts are 8 consecutive ones (FakeBalancedGate: 32 groups, one a token)"))
b = rows["mbridge2606-h100-qwen3-30b-a3b-ep16"]["assumptions"]
print("HybridEP (the recipe's flex dispatcher): one copy per destination node, fanned out over NVLink once per GPU; the received tokens permuted by expert once, no sort by expert; " in b)
print(round(rows["mbridge2606-h100-qwen3-30b-a3b-ep16"]["throughput"]["predicted_tokens_per_s_per_gpu"]))
PY
cat >"$tmp/nd_want" <<'EOF'
['automodel-h100-deepseekv3-1024gpu', 'automodel-h100-deepseekv3-256gpu', 'automodel-h100-gptoss120b-64gpu', 'automodel-h100-kimi-k2-256gpu', 'mbridge2606-h100-qwen3-30b-a3b-ep16']
['automodel-h100-gptoss20b-8gpu', 'automodel-h100-qwen3-30b-a3b-8gpu', 'mbridge2602-b200-deepseekv3-mxfp8', 'mbridge2602-h100-qwen3-30b-a3b']
['automodel-h100-deepseekv3-1024gpu', 'automodel-h100-deepseekv3-256gpu', 'automodel-h100-gptoss120b-64gpu', 'automodel-h100-gptoss20b-8gpu', 'automodel-h100-kimi-k2-256gpu', 'automodel-h100-qwen3-30b-a3b-8gpu']
True
True
8818
EOF
if cmp -s "$tmp/nd_rows" "$tmp/nd_want"; then ok; else
    bad "DeepEP/HybridEP rows: $(diff "$tmp/nd_want" "$tmp/nd_rows")"; fi

# ---- NeMo 24.07 packed SFT (issue 17; docs/ACCURACY.md, fourth round) ----
# The 70B SFT row (line 75) and copies without its packing and without its
# bf16 distributed Adam. By hand, per parameter: fp8 weights 1 B, and 1 B
# more for the transpose TE keeps of each linear weight on H100 (all but
# the embedding: docs/model.md, "FP8 weight copies"); the bf16
# gradients 2 B plus apex's bf16 parameter copy 2/DP = 2 B (DP 1, counted
# with the gradients) = 4 B; bf16 moments 2 x 2 = 4 B, no master. Without
# it: fp32 gradients 4 B, master 4 + moments 2 x 4 = 12 B: out of memory,
# the wrong verdict. Unpacked, the attention core is s/N = 4096/120 times
# larger: the prediction falls, memory unmoved.
row_variants "$tmp/sft.csv" nemo2407-sft-LLAMA2-70B-16gpu \
    "nopack|notes~packed-seq-len 120|(left out)" \
    "noadam|notes~distributed_fused_adam in bf16|(left out)"
run validate "$tmp/sft.csv" --json
pycheck "NeMo packed SFT row" "$tmp/out" <<'PY'
import json, sys
rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
sft, nopack, noadam = rows["nemo2407-sft-LLAMA2-70B-16gpu"], rows["nopack"], rows["noadam"]
m = sft["predicted"]["memory_breakdown_gib"]
per_b = m["grads"] / 4  # GiB per byte a parameter
assert m["optimizer"] == m["grads"] and 0.98 < (m["weights"] - per_b) / per_b < 1.0, m
assert sft["fit"]["predicted"] == "fits" and sft["fit"]["correct"], sft["fit"]
assert sft["recompute"] == "none", sft["recompute"]
assert sft["assumptions"].endswith(
    "packed sequences: examples of 120 tokens, each attending within itself (TransformerEngine "
    "THD); apex distributed Adam in bf16: bf16 moments and parameter copy (sharded), bf16 "
    "gradients, no fp32 master; fp8 weights (fp8_params)"), sft["assumptions"]
n = noadam["predicted"]["memory_breakdown_gib"]
assert n["optimizer"] == 3 * n["grads"] and n["grads"] == m["grads"] and n["weights"] == m["weights"], n
assert noadam["fit"]["predicted"] == "out of memory" and not noadam["fit"]["correct"], noadam
tp = lambda r: r["throughput"]["predicted_tokens_per_s_per_gpu"]
assert tp(nopack) < tp(sft), (tp(nopack), tp(sft))
assert nopack["predicted"]["memory_breakdown_gib"] == m
assert "packed" not in nopack["assumptions"], nopack["assumptions"]
PY

# ---- torchtune's packed Alpaca (issue 17, thirteenth round;
# runs-dev-sources.md section 11): flex attention with a block-causal mask,
# examples of 210 tokens (the length-weighted mean). Both rows within 3% of
# the published tokens/s
# (7210 and 9174); as whole 4096-token sequences they were 15% slow. The
# figure the row states is derived, not measured: 100 or 300 tokens move the
# prediction by under 2%. Memory does not move (the same tokens a step).
# The copies keep "-ac" in their ids: the id names the cumulative
# technique (chunked cross-entropy is on from that row on). ----
row_variants "$tmp/tt.csv" torchtune-3b-a100-ac \
    "whole-ac|notes~, packed-seq-len 210|" \
    "short-ac|notes~packed-seq-len 210|packed-seq-len 100" \
    "long-ac|notes~packed-seq-len 210|packed-seq-len 300"
run validate "$tmp/tt.csv" --json
pycheck "torchtune packed Alpaca rows" "$tmp/out" <<'PY'
import json, sys
rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
ac, whole = rows["torchtune-3b-a100-ac"], rows["whole-ac"]
tp = lambda r: r["throughput"]["predicted_tokens_per_s_per_gpu"]
assert ac["throughput"]["measured_tokens_per_s_per_gpu"] == 7210
assert abs(ac["throughput"]["rel_error"]) < 0.03, ac["throughput"]
assert whole["throughput"]["rel_error"] < -0.12, whole["throughput"]
assert ac["assumptions"].endswith(
    "packed sequences: examples of 210 tokens, each attending within itself (flex attention, "
    "block-causal mask)"), ac["assumptions"]
assert "packed" not in whole["assumptions"], whole["assumptions"]
for other in ("short-ac", "long-ac"):
    assert abs(tp(rows[other]) / tp(ac) - 1) < 0.02, (other, tp(rows[other]), tp(ac))
assert tp(rows["short-ac"]) > tp(ac) > tp(rows["long-ac"])
assert whole["predicted"]["memory_breakdown_gib"] == ac["predicted"]["memory_breakdown_gib"]
PY
run validate "$CSV" --json
pycheck "torchtune chunked-CE row" "$tmp/out" <<'PY'
import json, sys
r = next(r for r in json.load(open(sys.argv[1]))["rows"] if r["id"] == "torchtune-3b-a100-chunkedce")
assert r["throughput"]["measured_tokens_per_s_per_gpu"] == 9174
assert abs(r["throughput"]["rel_error"]) < 0.03, r["throughput"]
assert "examples of 210 tokens" in r["assumptions"], r["assumptions"]
PY

# ---- NeMo 24.07's fp8 pretraining examples reduce gradients in bf16
# (issue 17, twelfth round): +training.model.optim.grad_sync_dtype=bf16 over
# distributed_fused_adam in every fp8 example of NeMo-Framework-Launcher
# 24.07; the five rows whose notes cite one get bf16 gradients, fp32 state.
# A copy without the clause keeps Megatron's fp32 gradients: twice the
# gradient memory, a slower step. ----
run validate "$CSV" --json
pycheck "NeMo 24.07 grad_sync_dtype bf16 rows" "$tmp/out" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
said = ("apex distributed Adam with grad_sync_dtype bf16: bf16 gradients, fp32 moments and "
        "parameter shard (the release's fp8 example)")
got = sorted(r["id"] for r in rows if said in r.get("assumptions", ""))
assert got == ["nemo2407-GPT3-175B-512gpu", "nemo2407-LLAMA2-13B-16gpu", "nemo2407-LLAMA2-70B-64gpu",
               "nemo2407-LLAMA2-7B-8gpu", "nemo2407-LLAMA3-8B-8gpu"], got
PY
row_variants "$tmp/gs.csv" nemo2407-LLAMA2-70B-64gpu "fp32|notes~grad_sync_dtype=bf16|(left out)"
run validate "$tmp/gs.csv" --json
pycheck "without grad_sync_dtype bf16: fp32 gradients" "$tmp/out" <<'PY'
import json, sys
rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
bf, fp = rows["nemo2407-LLAMA2-70B-64gpu"], rows["fp32"]
g = lambda r: r["predicted"]["memory_breakdown_gib"]["grads"]
assert abs(g(fp) - 2 * g(bf)) < 1e-9 * g(fp), (g(fp), g(bf))
assert fp["predicted"]["step_s"] > bf["predicted"]["step_s"]
assert "grad_sync_dtype" not in fp["assumptions"], fp["assumptions"]
PY

# ---- the recipe's layout where the published table prints another (issue
# 17, sixth round): the 25.11 Qwen3-30B row (line 89) cites the r0.2.0
# preset (VP 12, MBS 1) where the table prints the 25.09 cells (VP 24,
# MBS 2). Copies: the clause left out (the table's cells stand), and a
# clause naming only VP in another case ("vp 6 (the table prints VP 24)").
# With the recipe's micro-batch the step holds twice as many micro-batches,
# each paying the MoE host floor (model.md 2b): the prediction falls. ----
row_variants "$tmp/recipe.csv" mbridge2511-h100-qwen3-30b-a3b \
    "table|notes~VP 12 and MBS 1 (default) where the table prints VP 24 and MBS 2|VP 24 and MBS 2" \
    "vponly|notes~VP 12 and MBS 1 (default) where the table prints|vp 6 (the table prints"
run validate "$tmp/recipe.csv" --json
pycheck "recipe layout over the table" "$tmp/out" <<'PY'
import json, sys
rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
row, table, vponly = rows["mbridge2511-h100-qwen3-30b-a3b"], rows["table"], rows["vponly"]
assert ("; micro-batch 1 as the cited recipe sets (the table prints 2); interleaving 12 as the "
        "cited recipe sets (the table prints 24); ") in row["assumptions"], row["assumptions"]
assert "cited recipe" not in table["assumptions"], table["assumptions"]
assert vponly["assumptions"].count("as the cited recipe sets") == 1, vponly["assumptions"]
assert "; interleaving 6 as the cited recipe sets (the table prints 24); " in vponly["assumptions"]
tp = lambda r: r["throughput"]["predicted_tokens_per_s_per_gpu"]
assert tp(row) < 0.65 * tp(table), (tp(row), tp(table))
assert abs(row["throughput"]["rel_error"]) < abs(table["throughput"]["rel_error"])
PY

# ---- the GB200 Llama 3 70B rows' recipe (issue 17, eleventh round):
# Megatron-Bridge's presets (LLAMA3_70B_GB200_FP8_CS_BASE_CONFIG at
# v0.2.0, ..._V2 at v0.3.0) set no recompute and cpu_offloading_num_layers
# 40, which the rows' recompute cells now state. The activations of 40 of
# the 80 layers cross the gb200 preset's host link (173 GB/s a GPU a
# direction, presets/gpus/gb200.json); with the fp8 weights of its FP8
# recipe (twelfth round) the stage came to 186.4 GiB of 185.0, a verdict
# wrong on rows that ran; with the loss TransformerEngine fuses (the
# performance scripts' cross_entropy_fusion_impl "te": 2 B per logit, not
# 4; thirteenth round) it is 182.2 GiB and fits. Copies: the
# cell left blank (the least recompute that fits: full), 20 layers
# offloaded (more memory, less traffic). And Megatron-Bridge's bf16
# gradients on its rows only. ----
row_variants "$tmp/gb200.csv" mbridge2511-gb200-llama3-70b \
    "blank|recompute|" "off20|recompute|none; cpu_offloading_num_layers=20"
run validate "$tmp/gb200.csv" --json
pycheck "GB200 offload recipe" "$tmp/out" <<'PY'
import json, sys
rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
row, blank, off20 = rows["mbridge2511-gb200-llama3-70b"], rows["blank"], rows["off20"]
note = "activations of 40 layers offloaded to the host (the recipe's cpu_offloading_num_layers)"
assert row["recompute"] == "none" and note in row["assumptions"], row["assumptions"]
assert round(row["predicted"]["step_s"], 3) == 8.949, row["predicted"]["step_s"]
assert round(row["throughput"]["rel_error"], 3) == -0.151, row["throughput"]
assert row["fit"]["predicted"] == "fits" and row["fit"]["correct"], row["fit"]
assert round(row["fit"]["predicted_gib"], 1) == 182.2, row["fit"]
mem = row["predicted"]["memory_breakdown_gib"]
# the logits: 2 x 8192 tokens of the fp32 head input (4 B x 8192 wide) and
# of the bf16 logits (2 B x 128256), whole at TP 1
assert abs(mem["logits"] - 2 * 8192 * (4 * 8192 + 2 * 128256) / 2**30) < 1e-9, mem
assert blank["recompute"] == "full" and blank["fit"]["predicted"] == "fits"
assert "offloaded to the host" not in blank["assumptions"]
assert blank["predicted"]["step_s"] > row["predicted"]["step_s"]
assert off20["predicted"]["memory_breakdown_gib"]["activations"] > mem["activations"]
assert off20["predicted"]["time_breakdown_s"]["recompute"] < row["predicted"]["time_breakdown_s"]["recompute"]
PY
run validate "$CSV" --json
pycheck "Megatron-Bridge bf16 gradients" "$tmp/out" "$CSV" <<'PY'
import csv, json, sys
rows = json.load(open(sys.argv[1]))["rows"]
src = {r["id"]: r["source"] for r in csv.DictReader(open(sys.argv[2], newline=""))}
said = "bf16 gradients, reduced in bf16 (grad_reduce_in_fp32 false in Megatron-Bridge's performance configs)"
got = sorted(r["id"] for r in rows if said in r.get("assumptions", ""))
want = sorted(i for i, s in src.items() if "Megatron-Bridge" in s)
assert got == want and len(got) == 18, (got, want)
# and TransformerEngine's fused cross-entropy (the performance scripts'
# cross_entropy_fusion_impl "te"), on the same rows only
said = ("TransformerEngine's fused cross-entropy (cross_entropy_fusion_impl te): the bf16 logits, "
        "the gradient written in place")
got = sorted(r["id"] for r in rows if said in r.get("assumptions", ""))
assert got == want, (got, want)
PY
# ---- Megatron-Bridge's FP8 recipes gather fp8 weights (issue 17, twelfth
# round): fp8_param_gather = True in bf16_with_fp8_current_scaling_mixed,
# ..._delayed_scaling_mixed and bf16_with_mxfp8_mixed (mixed_precision.py
# at v0.1.0rc4, v0.2.0, v0.3.0). Its 17 fp8 rows say so, its bf16 row
# does not; the 405B row's weights are 1 B a parameter, half of its copy
# run in bf16, plus the 1 B transpose H100 needs of each linear weight
# (all but the embedding and head: over 90% of the stage). ----
pycheck "Megatron-Bridge fp8 weights" "$tmp/out" "$CSV" <<'PY'
import csv, json, sys
rows = json.load(open(sys.argv[1]))["rows"]
src = {r["id"]: (r["source"], r["precision"]) for r in csv.DictReader(open(sys.argv[2], newline=""))}
said = "fp8 weights, gathered in fp8 (fp8_param_gather in Megatron-Bridge's FP8 recipes)"
got = sorted(r["id"] for r in rows if said in r.get("assumptions", ""))
want = sorted(i for i, (s, p) in src.items() if "Megatron-Bridge" in s and "bf16" not in p)
assert got == want and len(got) == 17, (got, want)
PY
row_variants "$tmp/fp8w.csv" mbridge2509-h100-llama31-405b "bf16|precision|bf16"
run validate "$tmp/fp8w.csv" --json
pycheck "fp8 weights: half the bf16 copy, and the transposes" "$tmp/out" <<'PY'
import json, sys
rows = {r["id"]: r for r in json.load(open(sys.argv[1]))["rows"]}
fp8, bf16 = rows["mbridge2509-h100-llama31-405b"], rows["bf16"]
w = lambda r: r["predicted"]["memory_breakdown_gib"]["weights"]
half = 0.5 * w(bf16)
assert 0.9 < (w(fp8) - half) / half < 1.0, (w(fp8), w(bf16))
assert "fp8_param_gather" not in bf16["assumptions"], bf16["assumptions"]
PY

# ---- every row's prediction is one estimate command away: "reproduce"
# runs the configuration validate built (its assumptions included) through
# the CLI and gives the same step time, throughput and memory, every
# evaluated row (the torchtitan rows' 500 W H100 is a preset of its own).
# The round trip covers the flags writer the exports' Reproduce line uses.
run validate "$CSV" --json
cp "$tmp/out" "$tmp/repro.json"
pycheck "reproduce: every evaluated row's line gives its prediction" "$tmp/repro.json" "$T" <<'PY'
import json, shlex, subprocess, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["evaluated"]]
some = [r for r in rows if r["reproduce"] is not None]
assert len(some) == 106, len(some)
assert sum("--gpu h100-96gb-500w " in r["reproduce"] for r in some) == 17
def close(a, b):
    return abs(a - b) <= 1e-9 * abs(b)
for r in some:
    words = shlex.split(r["reproduce"])
    assert words[:2] == ["trainplan", "estimate"], words[:2]
    p = subprocess.run([sys.argv[2], "estimate", "--json"] + words[2:], capture_output=True, text=True)
    assert p.returncode == 0 and p.stderr == "", (r["id"], p.returncode, p.stderr)
    e = json.load(__import__("io").StringIO(p.stdout))
    want = r["predicted"]
    assert close(e["time"]["step_s"], want["step_s"]), (r["id"], e["time"]["step_s"], want["step_s"])
    assert e["memory"]["stage"] == r["fit"]["stage"], r["id"]
    assert close(e["memory"]["peak_bytes"] / 2**30, r["fit"]["predicted_gib"]), r["id"]
    if r["throughput"]:
        tps = e["time"]["throughput"]["tokens_per_s_per_gpu"]
        assert close(tps, r["throughput"]["predicted_tokens_per_s_per_gpu"]), r["id"]
PY
run validate "$CSV" --json --eff gemm=0.7
pycheck "reproduce: not given under --eff" "$tmp/out" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["evaluated"]]
assert all(r["reproduce"] is None for r in rows)
assert {r["reproduce_unavailable"] for r in rows} == {"efficiencies set with --eff (no flag sets them)"}
PY


# --line N: one row alone, in full; its reproduce command, folded with
# continuations, runs as one shell command and gives the row's step time
run validate "$CSV" --line 99 --json
cp "$tmp/out" "$tmp/row99.json"
pycheck "--line 99 --json: the row object" "$tmp/row99.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["line"] == 99 and r["id"] == "mbridge2602-b200-deepseekv3-mxfp8" and r["evaluated"], r["id"]
assert r["reproduce"].startswith("trainplan estimate --model deepseek-v3 --gpu b200 ")
PY
run validate "$CSV" --line 99
if [ "$(head -2 "$tmp/out")" = "trainplan validate: $CSV, line 99
  run            mbridge2602-b200-deepseekv3-mxfp8" ] &&
    grep -q "^  fit            expected fits, predicted fits: right (stage 1: " "$tmp/out" &&
    grep -q "^  reproduce (one command; estimate prints this prediction):$" "$tmp/out"; then ok
else bad "--line 99: $(head -3 "$tmp/out")"; fi
# folded to 100 columns, the command with continuations
COLUMNS=100 run validate "$CSV" --line 99
if [ "$(awk '{ if (length($0) > 100) n++ } END { print n + 0 }' "$tmp/out")" = 0 ]; then ok
else bad "--line 99: lines over 100 columns"; fi
sed -n '/^  reproduce (one command/,$p' "$tmp/out" | tail -n +2 >"$tmp/cmd.sh"
sed -i '$ s/$/ --json/' "$tmp/cmd.sh"
if [ "$(wc -l <"$tmp/cmd.sh")" -gt 1 ] &&
    (bindir=$(cd "$(dirname "$T")" && pwd) && cd "$tmp" && PATH="$bindir:$PATH" bash "$tmp/cmd.sh" >"$tmp/cmd.json" 2>"$tmp/cmd.err") &&
    python3 - "$tmp/cmd.json" "$tmp/row99.json" <<'PY'; then ok; else bad "--line 99: the folded command: $(cat "$tmp/cmd.sh" "$tmp/cmd.err")"; fi
import json, sys
e, r = (json.load(open(p)) for p in sys.argv[1:3])
assert abs(e["time"]["step_s"] - r["predicted"]["step_s"]) <= 1e-9 * r["predicted"]["step_s"]
PY
run validate "$CSV" --line 13
if [ "$rc" -eq 0 ] && [ "$(sed -n 3p "$tmp/out")" = "  not evaluated: parallel layout (TP, PP, DP) not stated" ]; then ok
else bad "--line 13 (not evaluated): exit $rc $(cat "$tmp/out")"; fi
expect_error "trainplan: error: --line: 500 is not a row of $CSV (its 111 rows are on lines 2 to 112)" \
    validate "$CSV" --line 500
expect_error "trainplan: error: --line: 1 is out of range [2, 1073741824]" \
    validate "$CSV" --line 1
expect_error "trainplan: error: --line: expected an integer, got \"2x\"" \
    validate "$CSV" --line 2x

finish
