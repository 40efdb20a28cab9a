#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# engines_test.sh: issue 18, the engines as they are. For each engine,
# export -> import gives the identical model, layout and training settings
# over a dozen models (dense and MoE, tied and untied, QKV biases, learned
# positions, Llama 3 rotary scaling, leading dense MoE layers and shared
# experts): the estimate of the import equals the original's (exact
# parameter count included), and the Megatron arguments written from the
# import equal the original export's (they name every model-defining
# setting). Then what DeepSpeed cannot run (context parallelism,
# interleaving, ZeRO 0 under bf16) and how its imports read it.
#
#   bash tests/cli/engines_test.sh /path/to/trainplan
#
# TP_SOURCE_DIR (set by ctest) locates the source tree. Needs python3.
# Prints one line per failure and a final "N passed, M failed".
set -u

T=${1:?usage: engines_test.sh /path/to/trainplan}
SRC=${TP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DATA="$SRC/tests/data/engines"
. "$(dirname "$0")/lib.sh"

# same A B [shared]: two estimate JSON files equal except the model name
# (and its "reshaped", which says whether the name is a preset's own shape);
# with "shared", the number of shared experts may differ when their total
# width and so the count are the same (Megatron has one shared-expert MLP
# of --moe-shared-expert-intermediate-size: two of width f are one of 2f).
same() {
    python3 - "$1" "$2" "${3:-}" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for x in (a, b):
    x["model"].pop("name")
    x["model"].pop("reshaped")
    if sys.argv[3] == "shared":
        x["model"].pop("shared_experts")
        x["model"].pop("shared_ffn_hidden", None)
if a != b:
    for k in a:
        if a[k] != b.get(k):
            print("differs:", k, a[k], "!=", b.get(k), file=sys.stderr)
    sys.exit(1)
PY
}
# args FILE: the Megatron arguments of an export, comments dropped.
args() { grep -v '^#' "$1"; }
# dsflags NOTES: the trainplan flags the DeepSpeed notes give.
dsflags() { sed -n '/as trainplan flags/,$p' "$1" | sed -n 's/^#   //p' | tr '\n' ' '; }

# total JSON: the exact parameter count of an estimate
total() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["params"]["total"])' "$1"; }

# name | flags (the models: presets, a published HF config, a model file)
MODELS=(
    "llama-3.1-70b|--model llama-3.1-70b --gpus 64 --tp 8 --pp 2 --distributed-optimizer --global-batch 64 --recompute selective"
    "llama-3.2-1b|--model llama-3.2-1b --gpus 8 --distributed-optimizer --micro-batch 2 --global-batch 64"
    "llama-3-8b|--model llama-3-8b --gpus 16 --fsdp --seq-len 8192 --global-batch 32 --recompute full --grad-dtype fp32"
    "llama-2-7b|--model llama-2-7b --gpus 32 --tp 4 --cp 2 --distributed-optimizer --seq-len 8192 --global-batch 32"
    "mistral-7b|--model mistral-7b --gpus 16 --tp 2 --pp 4 --vpp 2 --schedule interleaved --distributed-optimizer --global-batch 64"
    "qwen2.5-7b|--model qwen2.5-7b --gpus 16 --tp 4 --distributed-optimizer --global-batch 64"
    "qwen2.5-32b|--model $DATA/qwen2.5-32b/config.json --gpus 64 --tp 8 --distributed-optimizer --global-batch 64"
    "mixtral-8x7b|--model mixtral-8x7b --gpus 64 --tp 2 --ep 8 --distributed-optimizer --global-batch 64"
    "moe-shared|--model $DATA/moe-shared.json --gpus 16 --ep 8 --distributed-optimizer --global-batch 64"
    "gpt3-1.3b|--model gpt3-1.3b --norm-eps 1e-5 --gpus 8 --distributed-optimizer --global-batch 64 --dropout"
    "mcore-gpt-7.1b|--model mcore-gpt-7.1b --norm-eps 1e-5 --gpus 16 --tp 2 --pp 2 --distributed-optimizer --global-batch 64"
    "gpt3-175b-pad|--model gpt3-175b --norm-eps 1e-5 --gpus 1024 --tp 8 --pp 16 --distributed-optimizer --global-batch 1024 --pad-vocab 1024"
    "deepseek-v3|--model deepseek-v3 --rope-theta 10000 --norm-eps 1e-6 --gpus 1024 --tp 2 --pp 8 --first-stage-layers 5 --last-stage-layers 8 --ep 64 --distributed-optimizer --global-batch 1024 --recompute full"
    "kimi-k2|--model kimi-k2 --rope-theta 50000 --norm-eps 1e-6 --gpus 2048 --pp 16 --first-stage-layers 1 --last-stage-layers 4 --ep 128 --distributed-optimizer --global-batch 2048 --recompute full"
    "gpt-oss-120b|--model gpt-oss-120b --rope-theta 150000 --norm-eps 1e-5 --gpus 64 --ep 8 --pp 2 --distributed-optimizer --global-batch 64 --recompute full"
    "qwen3-30b-a3b|--model qwen3-30b-a3b --rope-theta 1000000 --norm-eps 1e-6 --gpus 32 --tp 2 --ep 8 --distributed-optimizer --global-batch 64"
)

# ---------------------------------------------------------------- round trips
for entry in "${MODELS[@]}"; do
    name=${entry%%|*}
    read -r -a fl <<<"${entry#*|}"
    d=$tmp/$name
    mkdir -p "$d"
    gpus=""
    for ((i = 0; i < ${#fl[@]}; i++)); do [ "${fl[$i]}" = --gpus ] && gpus=${fl[$((i + 1))]}; done
    if ! "$T" estimate "${fl[@]}" --json >"$d/plan.json" 2>"$tmp/err"; then
        bad "$name: the plan does not estimate: $(cat "$tmp/err")"
        continue
    fi
    "$T" export --format megatron "${fl[@]}" >"$d/meg.txt" 2>/dev/null
    # Megatron: the launch read back. The plan's loss holds PyTorch's 12 B a
    # logit; Megatron's holds 4, which the export notes and the import reads
    "$T" estimate "${fl[@]}" --ce-bytes-per-logit 4 --json >"$d/plan4.json" 2>/dev/null
    "$T" estimate --from-megatron "$d/meg.txt" --gpus "$gpus" --json >"$d/meg.json" 2>"$tmp/err"
    if same "$d/plan4.json" "$d/meg.json" shared 2>"$tmp/why"; then ok; else
        bad "$name: Megatron round trip differs: $(cat "$tmp/why" "$tmp/err")"; fi
    if grep -q "the loss at 12 B a logit: Megatron-LM's cross-entropy holds 4" "$d/meg.txt"; then ok; else
        bad "$name: the Megatron export does not note the 12-B loss"; fi
    "$T" export --format megatron --from-megatron "$d/meg.txt" --gpus "$gpus" >"$d/meg2.txt" 2>/dev/null
    if cmp -s <(args "$d/meg.txt") <(args "$d/meg2.txt"); then ok; else
        bad "$name: Megatron export of the import differs: $(diff <(args "$d/meg.txt") <(args "$d/meg2.txt") | head -5)"; fi
    # DeepSpeed: the config and the flags of its notes
    "$T" export --format deepspeed "${fl[@]}" --out "$d/ds.json" 2>/dev/null
    read -r -a dsf <<<"$(dsflags "$d/ds.json.notes.txt")"
    "$T" estimate --from-deepspeed "$d/ds.json" "${dsf[@]}" --json >"$d/ds_back.json" 2>"$tmp/err"
    if same "$d/plan.json" "$d/ds_back.json" 2>"$tmp/why"; then ok; else
        bad "$name: DeepSpeed round trip differs: $(cat "$tmp/why" "$tmp/err")"; fi
    "$T" export --format megatron --from-deepspeed "$d/ds.json" "${dsf[@]}" >"$d/ds_meg.txt" 2>/dev/null
    if cmp -s <(args "$d/meg.txt") <(args "$d/ds_meg.txt"); then ok; else
        bad "$name: the DeepSpeed import defines another model: $(diff <(args "$d/meg.txt") <(args "$d/ds_meg.txt") | head -5)"; fi
done

# the loss at TP > 1 (--ce-bytes-per-logit-tp) rides in the DeepSpeed notes'
# flags, so the plan comes back
d=$tmp/ds-cetp
mkdir -p "$d"
cetp=(--model llama-3-8b --gpus 8 --tp 2 --zero 1 --global-batch 64 --ce-bytes-per-logit-tp 16)
"$T" estimate "${cetp[@]}" --json >"$d/plan.json" 2>/dev/null
"$T" export --format deepspeed "${cetp[@]}" --out "$d/ds.json" 2>/dev/null
read -r -a dsf <<<"$(dsflags "$d/ds.json.notes.txt")"
"$T" estimate --from-deepspeed "$d/ds.json" "${dsf[@]}" --json >"$d/back.json" 2>"$tmp/err"
if same "$d/plan.json" "$d/back.json" 2>"$tmp/why" && grep -q -- "--ce-bytes-per-logit-tp 16" "$d/ds.json.notes.txt"; then ok; else
    bad "DeepSpeed: the loss at TP > 1 does not come back: $(cat "$tmp/why" "$tmp/err")"; fi

# issue 16 features: MoE parallel folding (expert TP != TP), fp8 parameter
# gather, recompute modules, block recompute, optimizer offload. Megatron
# writes each with its own argument and reads it back; DeepSpeed holds the
# offload in its config and says what it cannot hold (the flags of its
# notes carry the rest, so the plan still comes back).
F16=(
    "f16-etp|--model mixtral-8x7b --gpus 64 --tp 4 --etp 1 --ep 8 --distributed-optimizer --global-batch 64 --ce-bytes-per-logit 4||expert tensor parallelism 1 with tensor parallelism 4"
    "f16-fp8g|--model llama-3-8b --gpus 16 --tp 2 --precision fp8 --fp8-param-gather --distributed-optimizer --global-batch 64 --ce-bytes-per-logit 4||fp8 parameter gather: DeepSpeed has no fp8 weights"
    "f16-mods|--model mixtral-8x7b --gpus 64 --tp 2 --ep 8 --distributed-optimizer --global-batch 64 --recompute selective --recompute-modules core_attn,moe_act,layernorm --ce-bytes-per-logit 4||selective recompute of core_attn,layernorm,moe_act: DeepSpeed's config cannot select"
    "f16-block|--model llama-3-8b --gpus 16 --pp 4 --distributed-optimizer --global-batch 64 --recompute full --recompute-block-layers 3 --ce-bytes-per-logit 4|x|"
    "f16-off1|--model llama-3-8b --gpus 16 --tp 2 --distributed-optimizer --global-batch 64 --offload-optimizer 1 --ce-bytes-per-logit 4|x|"
    "f16-off3|--model llama-3-8b --gpus 16 --tp 2 --zero 3 --global-batch 64 --offload-optimizer 0.5 --ce-bytes-per-logit 4|x|"
    "f16-act|--model llama-3-8b --gpus 16 --tp 2 --distributed-optimizer --global-batch 64 --offload-activations 8 --ce-bytes-per-logit 4||activations of 8 layers offloaded to the CPU"
    "f16-tw|--model llama-3-8b --gpus 16 --tp 2 --precision fp8 --fp8-recipe tensorwise --distributed-optimizer --global-batch 64 --ce-bytes-per-logit 4||fp8 recipe tensorwise"
)
for entry in "${F16[@]}"; do
    IFS='|' read -r name flags full note <<<"$entry"
    read -r -a fl <<<"$flags"
    d=$tmp/$name
    mkdir -p "$d"
    gpus=${fl[3]}
    "$T" estimate "${fl[@]}" --json >"$d/plan.json" 2>"$tmp/err" || bad "$name: the plan does not estimate: $(cat "$tmp/err")"
    "$T" export --format megatron "${fl[@]}" >"$d/meg.txt" 2>/dev/null
    if grep -q "Everything in the plan is expressed in Megatron-LM" "$d/meg.txt"; then ok; else
        bad "$name: the Megatron export notes something: $(sed -n '/Not expressible/,/^#$/p' "$d/meg.txt" | head -4)"; fi
    "$T" estimate --from-megatron "$d/meg.txt" --gpus "$gpus" --json >"$d/meg.json" 2>"$tmp/err"
    if same "$d/plan.json" "$d/meg.json" 2>"$tmp/why"; then ok; else
        bad "$name: Megatron round trip differs: $(cat "$tmp/why" "$tmp/err")"; fi
    "$T" export --format megatron --from-megatron "$d/meg.txt" --gpus "$gpus" >"$d/meg2.txt" 2>/dev/null
    if cmp -s <(args "$d/meg.txt") <(args "$d/meg2.txt"); then ok; else
        bad "$name: Megatron export of the import differs: $(diff <(args "$d/meg.txt") <(args "$d/meg2.txt") | head -5)"; fi
    "$T" export --format deepspeed "${fl[@]}" --out "$d/ds.json" 2>/dev/null
    if [ -n "$full" ]; then
        if grep -q "Everything in the plan is expressed in DeepSpeed" "$d/ds.json.notes.txt"; then ok; else
            bad "$name: the DeepSpeed export notes something: $(sed -n '/Not expressible/,/^#$/p' "$d/ds.json.notes.txt" | head -4)"; fi
    elif grep -q -- "$note" "$d/ds.json.notes.txt" && ! grep -q "Everything in the plan is expressed" "$d/ds.json.notes.txt"; then ok; else
        bad "$name: the DeepSpeed notes must say \"$note\""; fi
    read -r -a dsf <<<"$(dsflags "$d/ds.json.notes.txt")"
    "$T" estimate --from-deepspeed "$d/ds.json" "${dsf[@]}" --json >"$d/ds_back.json" 2>"$tmp/err"
    if same "$d/plan.json" "$d/ds_back.json" 2>"$tmp/why"; then ok; else
        bad "$name: DeepSpeed round trip differs: $(cat "$tmp/why" "$tmp/err")"; fi
done
# the Megatron arguments of each feature, and the JSON fields that carry it
want_args() { # want_args NAME LINE...: each LINE is an argument line of NAME's export
    local n=$1 l
    shift
    for l in "$@"; do
        if grep -qxF -- "$l" "$tmp/$n/meg.txt"; then ok; else bad "$n: the Megatron export lacks \"$l\""; fi
    done
}
want_args f16-etp "--expert-tensor-parallel-size 1" "--expert-model-parallel-size 8" "--tensor-model-parallel-size 4"
want_args f16-fp8g "--fp8-param-gather" "--fp8-format hybrid"
want_args f16-mods "--recompute-granularity selective" "--recompute-modules core_attn layernorm moe_act"
want_args f16-block "--recompute-granularity full" "--recompute-method block" "--recompute-num-layers 3"
want_args f16-off1 "--use-precision-aware-optimizer" "--optimizer-cpu-offload" "--optimizer-offload-fraction 1"
want_args f16-off3 "--optimizer-offload-fraction 0.5" "--use-megatron-fsdp"
want_args f16-act "--cpu-offloading-num-layers 8"
want_args f16-tw "--fp8-format hybrid" "--fp8-recipe tensorwise"
# the Blackwell recipes: Megatron's --fp8-recipe mxfp8 and its --fp4 switches
# for NVFP4, read back on the same GPU (an H100 refuses them, naming the field)
for r in mxfp8 nvfp4; do
    "$T" export --format megatron --model llama-3-8b --gpus 16 --tp 2 --precision fp8 --fp8-recipe $r --fp8-param-gather --distributed-optimizer --global-batch 64 --gpu b200 >"$tmp/$r.txt" 2>/dev/null
    "$T" estimate --from-megatron "$tmp/$r.txt" --gpus 16 --gpu b200 --json >"$tmp/$r.json" 2>"$tmp/err"
    got=$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["training"]; print(t.get("fp8_recipe"), t.get("fp8_param_gather"))' "$tmp/$r.json" 2>&1)
    if [ "$got" = "$r True" ]; then ok; else bad "$r: the Megatron round trip reads $got $(cat "$tmp/err")"; fi
done
if grep -qx -- "--fp8-recipe mxfp8" "$tmp/mxfp8.txt" && grep -qx -- "--fp4-format e2m1" "$tmp/nvfp4.txt" &&
    grep -qx -- "--fp4-recipe nvfp4" "$tmp/nvfp4.txt" && grep -qx -- "--fp4-param-gather" "$tmp/nvfp4.txt" &&
    ! grep -q -- "--fp8-format" "$tmp/nvfp4.txt"; then ok; else bad "the Megatron export of mxfp8 and nvfp4"; fi
if "$T" estimate --from-megatron "$tmp/nvfp4.txt" --gpus 16 2>"$tmp/err" >/dev/null; then
    bad "nvfp4 on an H100 is refused"
elif grep -q "h100-sxm has none (gpu.peak_fp4_flops_per_s is 0)" "$tmp/err"; then ok; else
    bad "nvfp4 on an H100: $(cat "$tmp/err")"; fi
# parameter offload: DeepSpeed's offload_param holds it and reads it back
"$T" export --format deepspeed --model llama-3-8b --gpus 16 --zero 3 --offload-params cpu --offload-optimizer 1 --global-batch 64 --out "$tmp/offp.json" 2>/dev/null
"$T" estimate --model llama-3-8b --gpus 16 --zero 3 --offload-params cpu --offload-optimizer 1 --global-batch 64 --json >"$tmp/offp_plan.json" 2>/dev/null
"$T" estimate --from-deepspeed "$tmp/offp.json" --model llama-3-8b --gpus 16 --json >"$tmp/offp_back.json" 2>"$tmp/err"
if grep -q '"offload_param"' "$tmp/offp.json" && same "$tmp/offp_plan.json" "$tmp/offp_back.json" 2>"$tmp/why"; then ok; else
    bad "DeepSpeed parameter offload round trip: $(cat "$tmp/why" "$tmp/err")"; fi
# parameter offload: Megatron-LM cannot hold it and says so
"$T" export --format megatron --model llama-3-8b --gpus 16 --zero 3 --offload-params cpu --offload-optimizer 1 --global-batch 64 >"$tmp/offp.txt" 2>/dev/null
if grep -q "^#   - parameter offload to the CPU: Megatron-LM has no argument" "$tmp/offp.txt" &&
    grep -q -- "--offload-params cpu" "$tmp/offp.txt"; then ok; else bad "Megatron: parameter offload is noted and reproduced"; fi
f16json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l, t = d["layout"], d["training"]; print(l.get("etp"), t.get("fp8_param_gather"), t.get("recompute_modules"), t.get("recompute_layers"), t.get("offload_optimizer"))' "$1"; }
for want in "f16-etp|1 None None None None" "f16-fp8g|None True None None None" "f16-mods|None None core_attn,layernorm,moe_act None None" \
    "f16-block|None None None 3 None" "f16-off3|None None None None 0.5"; do
    n=${want%%|*}
    if [ "$(f16json "$tmp/$n/meg.json")" = "${want#*|}" ]; then ok; else
        bad "$n: the Megatron import reads $(f16json "$tmp/$n/meg.json"), want ${want#*|}"; fi
done
if grep -q '"ratio": 0.5' "$tmp/f16-off3/ds.json" && grep -q '"device": "cpu"' "$tmp/f16-off1/ds.json" &&
    ! grep -q '"ratio"' "$tmp/f16-off1/ds.json"; then ok; else
    bad "DeepSpeed offload: device cpu, a ratio at ZeRO 3 only"; fi
# a partial offload below ZeRO 3: DeepSpeed offloads all of it, and says so
dsn=$tmp/f16-offz1
mkdir -p "$dsn"
"$T" export --format deepspeed --model llama-3-8b --gpus 16 --tp 2 --zero 1 --offload-optimizer 0.5 --out "$dsn/ds.json" 2>/dev/null
if grep -q "optimizer offload of 0.5 of the state: DeepSpeed's offload_optimizer.ratio applies at ZeRO" "$dsn/ds.json.notes.txt" &&
    ! grep -q '"ratio"' "$dsn/ds.json"; then ok; else bad "DeepSpeed: a partial offload at ZeRO 1 is said to be whole"; fi
# Megatron-LM: offload with SGD is not written (it needs the Adam-only
# precision-aware optimizer), and block recompute in groups is noted
"$T" export --format megatron --model llama-3-8b --gpus 16 --tp 2 --distributed-optimizer --optimizer sgd-momentum --offload-optimizer 1 >"$tmp/sgdoff.txt" 2>/dev/null
if grep -q "^#   - optimizer offload with SGD: not written" "$tmp/sgdoff.txt" && ! grep -q -- "^--optimizer-cpu-offload" "$tmp/sgdoff.txt"; then ok; else
    bad "Megatron: offload with SGD is noted, not written"; fi
"$T" export --format megatron --model llama-3-8b --gpus 16 --pp 4 --distributed-optimizer --recompute full --recompute-every 2 --recompute-block-layers 4 >"$tmp/blk2.txt" 2>/dev/null
if grep -q "^#   - recompute groups of 2 layers over the first 4 layers of each stage" "$tmp/blk2.txt"; then ok; else
    bad "Megatron: block recompute in groups of 2 is noted"; fi
# a dense launch's --expert-tensor-parallel-size: no expert layers, ignored
printf -- '--num-layers 2 --hidden-size 256 --num-attention-heads 4 --seq-length 512 --max-position-embeddings 512 --micro-batch-size 1 --vocab-size 1000 --bf16 --tensor-model-parallel-size 2 --expert-tensor-parallel-size 1\n' >"$tmp/detp.txt"
if "$T" estimate --from-megatron "$tmp/detp.txt" --gpus 8 --json 2>"$tmp/err" >/dev/null &&
    grep -q "ignored (cannot change memory or time): --expert-tensor-parallel-size" "$tmp/err"; then ok; else
    bad "a dense launch's expert TP is ignored: $(cat "$tmp/err")"; fi
# torchtitan (both forms) says what it cannot hold of them
for fmt in torchtitan torchtitan-toml; do
    "$T" export --format "$fmt" --model llama-3.1-8b --gpus 16 --fsdp --grad-dtype fp32 --global-batch 64 \
        --precision fp8 --fp8-hp-saved-inputs --fp8-param-gather --recompute full --recompute-block-layers 4 --offload-optimizer 1 >"$tmp/f16.$fmt" 2>/dev/null
    if grep -q "Not expressible in torchtitan (3;" "$tmp/f16.$fmt" &&
        grep -q "^#   - fp8 parameter gather: not written" "$tmp/f16.$fmt" &&
        grep -q "^#   - recompute of the first 4 layers of each stage only: torchtitan's full" "$tmp/f16.$fmt" &&
        grep -q "^#   - optimizer offload of 1 of the state: torchtitan's training.enable_cpu_offload" "$tmp/f16.$fmt" &&
        ! grep -q "Everything in the plan is expressed" "$tmp/f16.$fmt"; then ok; else
        bad "$fmt: the issue 16 features are listed as not expressible"; fi
done
# Megatron's deprecated --moe-layer-recompute: selective, core_attn + moe
printf -- '--num-layers 2\n--hidden-size 256\n--num-attention-heads 4\n--seq-length 512\n--max-position-embeddings 512\n--micro-batch-size 1\n--vocab-size 1000\n--num-experts 4\n--moe-router-topk 2\n--expert-model-parallel-size 4\n--moe-layer-recompute\n--bf16\n--use-distributed-optimizer\n' >"$tmp/mlr.txt"
"$T" estimate --from-megatron "$tmp/mlr.txt" --gpus 4 --json >"$tmp/mlr.json" 2>/dev/null
if [ "$(f16json "$tmp/mlr.json")" = "None None core_attn,moe None None" ]; then ok; else
    bad "--moe-layer-recompute reads as $(f16json "$tmp/mlr.json")"; fi

# torchtitan: the llama3 flavors (Llama 3.1's architecture; 1B and 3B are
# Llama 3.2's shapes with factor-8 rotary scaling), both forms, with fp32
# gradients (torchtitan reduces in fp32) and ZeRO 0, 2 or 3
TITAN=(
    "t-8b|--model llama-3.1-8b --gpus 16 --tp 2 --zero 0 --grad-dtype fp32 --micro-batch 2 --global-batch 64"
    "t-70b|--model llama-3.1-70b --gpus 256 --tp 8 --pp 2 --fsdp --grad-dtype fp32 --seq-len 8192 --global-batch 256 --recompute full"
    "t-405b|--model llama-3.1-405b --gpus 1792 --tp 8 --pp 7 --vpp 2 --schedule interleaved --cp 2 --fsdp --grad-dtype fp32 --global-batch 512 --recompute full"
    "t-8b-offload|--model llama-3.1-8b --gpus 16 --fsdp --offload-params cpu --offload-optimizer 1 --grad-dtype fp32 --global-batch 64"
    "t-8b-uneven|--model llama-3.1-8b --gpus 16 --pp 4 --first-stage-layers 5 --last-stage-layers 9 --schedule gpipe --fsdp --grad-dtype fp32 --global-batch 64 --precision fp8 --fp8-hp-saved-inputs"
    "t-1b|--model llama-3.2-1b --rope-factor 8 --gpus 8 --zero 2 --grad-dtype fp32 --global-batch 64"
    "t-3b|--model llama-3.2-3b --rope-factor 8 --gpus 8 --tp 2 --no-sp --fsdp --grad-dtype fp32 --global-batch 32 --fused-ce"
    "tf-dsv3|--model deepseek-v3 --rope-theta 10000 --norm-eps 1e-5 --gpus 256 --ep 32 --fsdp --grad-dtype fp32 --global-batch 256 --precision fp8 --fp8-hp-saved-inputs --recompute full"
    "tf-ds16b|--model deepseek-v3 --layers 27 --hidden 2048 --heads 16 --ffn-hidden 10944 --vocab 102400 --q-lora-rank 0 --experts 64 --topk 6 --moe-ffn-hidden 1408 --shared-experts 2 --moe-first-dense 1 --mtp-layers 0 --moe-router-groups 0 --moe-router-group-topk 0 --rope-theta 10000 --norm-eps 1e-5 --gpus 16 --ep 8 --fsdp --grad-dtype fp32 --global-batch 64"
    "tf-q30b|--model qwen3-30b-a3b --rope-theta 1000000 --norm-eps 1e-6 --gpus 32 --ep 8 --fsdp --grad-dtype fp32 --global-batch 64 --recompute full"
    "tf-q8b|--model $SRC/tests/data/hf/qwen3-8b/config.json --gpus 16 --tp 2 --pp 2 --fsdp --grad-dtype fp32 --global-batch 64 --fused-ce"
    "tf-oss|--model gpt-oss-120b --rope-theta 150000 --norm-eps 1e-5 --gpus 64 --tp 2 --ep 8 --etp 1 --fsdp --grad-dtype fp32 --global-batch 64 --recompute full"
)
# the torchtitan families' flavors apply yarn rotary scaling, which the
# presets do not record: the one thing each export notes (name|note)
TITAN_NOTE=(
    "tf-dsv3|rotary scaling: torchtitan's deepseek_v3 flavor 671B applies yarn, unlike this model"
    "tf-ds16b|rotary scaling: torchtitan's deepseek_v3 flavor 16B applies yarn, unlike this model"
    "tf-oss|rotary scaling: torchtitan's gpt_oss flavor 120b applies yarn, unlike this model"
)
titan_note() { local e; for e in "${TITAN_NOTE[@]}"; do [ "${e%%|*}" = "$1" ] && echo "${e#*|}"; done; }
# the loss as torchtitan runs it, unchunked and not compiled (framework.c
# torchtitan): 12 B a logit at TP 1, 16 under loss parallel at TP > 1
titan_loss() {
    case "$1" in
    *--fused-ce*) ;;
    *) echo "--ce-bytes-per-logit-tp 16" ;;
    esac
}
for entry in "${TITAN[@]}"; do
    name=${entry%%|*}
    d=$tmp/$name
    mkdir -p "$d"
    forms="torchtitan"
    case $name in t-1b | t-3b | tf-*) ;; *) forms="torchtitan torchtitan-toml" ;; esac
    for fmt in $forms; do
        read -r -a fl <<<"${entry#*|} $(titan_loss "$entry" "$fmt")"
        "$T" estimate "${fl[@]}" --json >"$d/plan.json" 2>/dev/null
        "$T" export --format megatron "${fl[@]}" >"$d/meg.txt" 2>/dev/null
        "$T" export --format "$fmt" "${fl[@]}" >"$d/$fmt" 2>"$tmp/err"
        note=$(titan_note "$name")
        if [ -n "$note" ]; then
            if grep -q "Not expressible in torchtitan (1;" "$d/$fmt" && grep -qF -- "#   - $note" "$d/$fmt"; then ok; else
                bad "$name: $fmt export must note only \"$note\": $(sed -n '/Not expressible/,/^#$/p' "$d/$fmt" | head -4)"; fi
        elif grep -q "Everything in the plan is expressed in torchtitan" "$d/$fmt" ||
            [ "$name/$fmt" = "t-3b/torchtitan" ]; then ok; else
            bad "$name: $fmt export notes something: $(sed -n '/Not expressible/,/^#$/p' "$d/$fmt" | head -4)"; fi
        "$T" estimate --from-torchtitan "$d/$fmt" --json >"$d/back.json" 2>"$tmp/err"
        if same "$d/plan.json" "$d/back.json" 2>"$tmp/why"; then ok; else
            bad "$name: $fmt round trip differs: $(cat "$tmp/why" "$tmp/err" | head -3)"; fi
        "$T" export --format megatron --from-torchtitan "$d/$fmt" >"$d/meg2.txt" 2>/dev/null
        if cmp -s <(args "$d/meg.txt") <(args "$d/meg2.txt"); then ok; else
            bad "$name: the $fmt import defines another model: $(diff <(args "$d/meg.txt") <(args "$d/meg2.txt") | head -4)"; fi
    done
done
# group-limited routing is the flavor's (torchtitan/models/deepseek_v3/
# __init__.py: 671B 4 of 8 groups, as the deepseek-v3 preset and its
# config.json; 16B none): tf-dsv3's round trip above keeps 4 of 8, and a
# 16B-shaped model that keeps the preset's groups is noted and read back
# without them
if python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["model"]; sys.exit(not (m["moe_router_groups"], m["moe_router_group_topk"]) == (8, 4))' "$tmp/tf-dsv3/back.json"; then ok; else
    bad "tf-dsv3: the torchtitan 671B flavor reads back without its 4 of 8 groups"; fi
read -r -a fl <<<"$(printf '%s\n' "${TITAN[@]}" | sed -n 's/^tf-ds16b|//p' | sed 's/ --moe-router-groups 0 --moe-router-group-topk 0//') --ce-bytes-per-logit-tp 16"
"$T" export --format torchtitan "${fl[@]}" >"$tmp/g16.py" 2>/dev/null
"$T" estimate --from-torchtitan "$tmp/g16.py" --json >"$tmp/g16.json" 2>/dev/null
if grep -q "Not expressible in torchtitan (2;" "$tmp/g16.py" &&
    tr '\n' ' ' <"$tmp/g16.py" | sed 's/ *# */ /g' | grep -qF -- "- group-limited routing (4 of 8 groups): torchtitan's deepseek_v3 flavor 16B routes over all its experts" &&
    python3 -c 'import json,sys; sys.exit("moe_router_groups" in json.load(open(sys.argv[1]))["model"])' "$tmp/g16.json"; then ok; else
    bad "16B with 4 of 8 groups: the torchtitan export must note the groups and read back none: $(sed -n '/Not expressible/,/^#$/p' "$tmp/g16.py")"; fi
# FSDP2's CPU offload is torchtitan's training.enable_cpu_offload (both
# forms, round trip above); a partial optimizer offload or NVMe is noted
if grep -qx "    config.training.enable_cpu_offload = True" "$tmp/t-8b-offload/torchtitan" &&
    grep -qx "enable_cpu_offload = true" "$tmp/t-8b-offload/torchtitan-toml"; then ok; else
    bad "t-8b-offload: enable_cpu_offload is written"; fi
"$T" export --format torchtitan --model llama-3.1-8b --gpus 16 --fsdp --offload-params cpu --offload-optimizer 0.5 --grad-dtype fp32 >"$tmp/po.py" 2>/dev/null
if grep -q "^#   - parameter offload to the CPU with 0.5 of the optimizer state offloaded: not" "$tmp/po.py" &&
    ! grep -q "enable_cpu_offload" <(sed '/^#/d' "$tmp/po.py"); then ok; else
    bad "torchtitan: parameter offload with half the optimizer state is noted, not written"; fi
"$T" export --format torchtitan-toml --model llama-3.1-8b --gpus 16 --fsdp --offload-params nvme --offload-optimizer 1 --grad-dtype fp32 >"$tmp/po.toml" 2>/dev/null
if grep -q "^#   - parameter offload to the NVMe: not written" "$tmp/po.toml" && ! grep -q "^enable_cpu_offload" "$tmp/po.toml"; then ok; else
    bad "torchtitan: parameter offload to NVMe is noted, not written"; fi
# a torchtitan file with CPU offload but no sharding (ZeRO 0) is refused,
# naming the setting and its line (trainplan models it at ZeRO 3)
printf '[model]\nname = "llama3"\nflavor = "8B"\n[training]\nlocal_batch_size = 1\nseq_len = 2048\nenable_cpu_offload = true\n[parallelism]\ndata_parallel_replicate_degree = 8\ndata_parallel_shard_degree = 1\n' >"$tmp/off0.toml"
run estimate --from-torchtitan "$tmp/off0.toml"
if [ "$rc" = 2 ] && grep -qF "off0.toml:7:1: training.enable_cpu_offload: optimizer offload needs a sharded optimizer (ZeRO >= 1" "$tmp/err"; then ok; else
    bad "torchtitan: CPU offload without sharding: exit $rc, $(cat "$tmp/err")"; fi

# torchtitan accumulates over schedule runs: under PP, train.py runs the
# schedule once per local batch (toml) or per num_pp_microbatches
# micro-batches (trainer.py at b5bcd76c): 64 / (8 x DP 4) = 2 runs per
# step, read as --local-batch 8 and written back as the same keys
printf '[model]\nname = "llama3"\nflavor = "8B"\n[training]\nlocal_batch_size = 8\nglobal_batch_size = 64\nseq_len = 2048\n[parallelism]\ndata_parallel_replicate_degree = 1\ndata_parallel_shard_degree = 4\npipeline_parallel_degree = 2\npipeline_parallel_microbatch_size = 1\n' >"$tmp/lb.toml"
run estimate --from-torchtitan "$tmp/lb.toml" --gpus 8 --json
json_check "torchtitan: local batch read" 0 'j["layout"]["local_batch"] == 8' 'j["layout"]["grad_accum"] == 16'
run export --format torchtitan-toml --from-torchtitan "$tmp/lb.toml" --gpus 8
if grep -q '^local_batch_size = 8$' "$tmp/out" && grep -q '^global_batch_size = 64$' "$tmp/out"; then ok; else
    bad "torchtitan-toml: local_batch_size 8 not written back"; fi
run export --format torchtitan --from-torchtitan "$tmp/lb.toml" --gpus 8
cp "$tmp/out" "$tmp/lb.py"
if grep -q 'num_pp_microbatches=8,' "$tmp/lb.py"; then ok; else bad "torchtitan: num_pp_microbatches 8 not written"; fi
run estimate --from-torchtitan "$tmp/lb.py" --gpus 8 --json
json_check "torchtitan python: local batch read back" 0 'j["layout"]["local_batch"] == 8'
sed -i 's/global_batch_size = 64/global_batch_size = 48/' "$tmp/lb.toml"
run estimate --from-torchtitan "$tmp/lb.toml" --gpus 8
if [ "$rc" = 2 ] && grep -qF 'lb.toml:6:1: "training.global_batch_size" is not a multiple of training.local_batch_size x the data-parallel degree' "$tmp/err"; then ok; else
    bad "torchtitan: a global batch that is not whole local batches: exit $rc, $(cat "$tmp/err")"; fi

# t-3b: TP without SP is expressible in the Python form only
if grep -q "enable_sequence_parallel=False" "$tmp/t-3b/torchtitan"; then ok; else bad "t-3b: enable_sequence_parallel=False"; fi
# every key written is in the generated list of the version targeted
python3 - "$SRC/data/engines/torchtitan-python-b5bcd76c.tsv" "$SRC/data/engines/torchtitan-toml-238fa995.tsv" "$tmp"/t-*/torchtitan "$tmp"/tf-*/torchtitan "$tmp"/t-*/torchtitan-toml <<'PY' && ok || bad "a torchtitan export writes a key outside its version's list"
import re, sys, tomllib
def names(f):
    return {l.split("\t")[0] for l in open(f) if not l.startswith("#")}
py, toml = names(sys.argv[1]), names(sys.argv[2])
for f in sys.argv[3:]:
    text = open(f).read()
    if f.endswith("-toml"):
        for sec, kv in tomllib.loads(text).items():
            for k in kv:
                assert f"{sec}.{k}" in toml, (f, sec, k)
        continue
    body = text.split("def trainplan_config", 1)[1]
    for k in re.findall(r"^    config\.(\w+\.\w+) = ", body, re.M):
        assert k in py, (f, k)
    for k in re.findall(r"^    config\.(\w+) = ", body, re.M):
        assert k in py, (f, k)
    par = body.split("ParallelismConfig(", 1)[1].split("\n    )", 1)[0]
    for k in re.findall(r"^        (\w+)=", par, re.M):
        assert "parallelism." + k in py, (f, k)
    for pol in re.findall(r"activation_checkpoint = (\w+)\.Config", body):
        assert f"activation_checkpoint={pol}.Config" in py, (f, pol)
PY
# the families' flavors (torchtitan/models/{deepseek_v3,qwen3,gpt_oss} @
# b5bcd76c): the model_registry call, the recipe, MTP and the MoE float8
# converter as written, and the exact counts read back (tests/data/hf
# README cites them; DeepSeek-V3 with its MTP module)
want_py() { # want_py NAME LINE...: each LINE is a line of NAME's Python export, spaces trimmed
    local n=$1 l
    shift
    for l in "$@"; do
        if sed 's/^ *//' "$tmp/$n/torchtitan" | grep -qxF -- "$l"; then ok; else bad "$n: the torchtitan export lacks \"$l\""; fi
    done
}
want_py tf-dsv3 "from torchtitan.models.deepseek_v3 import model_registry" \
    "from torchtitan.models.deepseek_v3.config_registry import deepseek_v3_671b" "\"671B\"," \
    "num_mtp_layers=1," "Float8GroupedExpertsConverter.Config()," "config.loss = MTPLoss.Config(" \
    "expert_parallel_degree=32,"
want_py tf-ds16b "\"16B\"," "from torchtitan.models.deepseek_v3.config_registry import deepseek_v3_16b"
want_py tf-q30b "\"30B-A3B\"," "from torchtitan.models.qwen3 import model_registry" "config.activation_checkpoint = FullAC.Config()"
want_py tf-q8b "\"8B\"," "from torchtitan.models.qwen3.config_registry import qwen3_14b" "pipeline_parallel_degree=2,"
want_py tf-oss "\"120b\"," "from torchtitan.models.gpt_oss.config_registry import gpt_oss_120b"
for want in "tf-dsv3|682636487424" "tf-oss|116829156672" "tf-q30b|30532122624" "tf-q8b|8190735360"; do
    n=${want%%|*}
    if [ "$(total "$tmp/$n/back.json")" = "${want#*|}" ]; then ok; else
        bad "$n: the torchtitan import counts $(total "$tmp/$n/back.json"), want ${want#*|}"; fi
done
# with EP torchtitan shards routed experts over EP only (expert TP 1,
# models/common/MOE_SHARDING.md @ b5bcd76c): a plan with expert TP = TP 2
# says so; the import of tf-oss (TP 2, EP 8) reads expert TP 1
"$T" export --format torchtitan --model gpt-oss-120b --gpus 64 --tp 2 --ep 8 --fsdp --grad-dtype fp32 >"$tmp/etp.py" 2>/dev/null
if grep -q "expert tensor parallelism 2 with EP 8: torchtitan shards routed experts over EP only" "$tmp/etp.py"; then ok; else
    bad "torchtitan: expert TP 2 with EP 8 is noted"; fi
if [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layout"].get("etp"))' "$tmp/tf-oss/back.json")" = 1 ]; then ok; else
    bad "the torchtitan import with EP and TP reads expert TP 1"; fi
# the job TOML of 238fa995 is written for llama3 only: another family is noted
"$T" export --format torchtitan-toml --model deepseek-v3 --gpus 256 --ep 32 --fsdp >"$tmp/x.toml" 2>/dev/null
if grep -q "model: torchtitan has no built-in flavor with this shape" "$tmp/x.toml"; then ok; else
    bad "torchtitan-toml: DeepSeek-V3 has no flavor in the job TOML"; fi
# num_mtp_layers is DeepSeek's argument only
printf 'from torchtitan.models.qwen3 import model_registry\ndef f():\n    config.model_spec = model_registry("8B", num_mtp_layers=1)\n' >"$tmp/mtp.py"
expect_error "trainplan: error: $tmp/mtp.py:3:1: \"model.num_mtp_layers\" is not an argument of this family's model_registry" \
    estimate --from-torchtitan "$tmp/mtp.py" --gpus 8

# a model no flavor has, and one whose rotary scaling differs, are said so
"$T" export --format torchtitan --model qwen2.5-7b --gpus 8 >"$tmp/x.py" 2>/dev/null
if grep -q "model: torchtitan has no llama3 flavor with this shape" "$tmp/x.py"; then ok; else bad "torchtitan: a model no flavor has"; fi
"$T" export --format torchtitan --model llama-3.2-1b --gpus 8 >"$tmp/x.py" 2>/dev/null
if grep -q "rotary scaling factor 32: torchtitan's llama3 flavor 1B applies Llama 3.1's" "$tmp/x.py"; then ok; else bad "torchtitan: Llama 3.2's factor 32 is not the 1B flavor's"; fi
# an unknown key is refused, naming it and its line
printf '[model]\nname = "llama3"\nflavor = "8B"\n[training]\nseq_len = 4096\nfancy = 3\n' >"$tmp/bad.toml"
expect_error "trainplan: error: $tmp/bad.toml:6:1: \"training.fancy\" is not a torchtitan setting trainplan reads: it cannot tell whether it changes memory or time" \
    estimate --from-torchtitan "$tmp/bad.toml" --gpus 8

# torchtitan's own job TOMLs (@ 238fa995, tests/data/engines/torchtitan), on
# the 64 GPUs their header names: the layout and model the files set
lay() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["layout"]; print(d["model"]["name"], *(l[k] for k in ("tp","pp","dp","zero","micro_batch","global_batch","seq_len","recompute")))' "$1"; }
for want in "llama3_8b|llama-3.1-8b 1 1 64 3 1 64 8192 selective" "llama3_70b|llama-3.1-70b 8 1 8 3 8 64 8192 full"; do
    f=$DATA/torchtitan/${want%%|*}.toml
    "$T" estimate --from-torchtitan "$f" --gpus 64 --json >"$tmp/tt.json" 2>"$tmp/err"
    if [ "$(lay "$tmp/tt.json")" = "${want#*|}" ]; then ok; else
        bad "torchtitan's ${want%%|*}.toml reads as $(lay "$tmp/tt.json"), want ${want#*|} ($(cat "$tmp/err"))"; fi
done

# torchtitan's own recipes @ b5bcd76c (Trainer.Config(...) expressions,
# tests/data/engines/torchtitan/*.py, excerpts of config_registry.py), on
# 64 GPUs (data_parallel_shard_degree -1 takes the rest): the model, its
# exact count (DeepSeek-V3 without MTP: 671,026,419,200) and the layout
rl() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["layout"]; t=d["training"]; print(d["params"]["total"], *(l[k] for k in ("tp","pp","ep","dp","zero","micro_batch","global_batch","seq_len","recompute")), t["precision"], t["grad_dtype"], t.get("fused_ce"))' "$1"; }
for want in "deepseek_v3_671b|671026419200 1 1 2 64 3 4 256 4096 selective bf16 fp32 True" \
    "qwen3_30b_a3b|30532122624 1 1 1 64 3 2 128 4096 full bf16 fp32 True" \
    "gpt_oss_120b|116829156672 1 1 1 64 3 1 64 8192 full bf16 fp32 True" \
    "llama3_8b|8030261248 1 1 1 64 3 1 64 8192 selective bf16 fp32 True" \
    "llama3_70b|70553706496 8 1 1 8 3 8 64 8192 full bf16 fp32 True"; do
    f=$DATA/torchtitan/${want%%|*}.py
    "$T" estimate --from-torchtitan "$f" --gpus 64 --json >"$tmp/tt.json" 2>"$tmp/err"
    if [ "$(rl "$tmp/tt.json")" = "${want#*|}" ]; then ok; else
        bad "torchtitan's ${want%%|*} recipe reads as $(rl "$tmp/tt.json"), want ${want#*|} ($(cat "$tmp/err"))"; fi
done

# Megatron-LM's own example launches (@ d98e8a64, tests/data/engines/megatron):
# the script run by bash with its torchrun line printed instead of run
expand() { # expand SCRIPT ARGS...: the command the script would run
    local f=$1
    shift
    sed 's/^torchrun /printf "%q " torchrun /' "$f" | env -i PATH="$PATH" SLURM_NNODES=4 bash -s "$@"
}
ml() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["layout"]; m=d["model"]; print(d["params"]["total"], m["experts"], m["topk"], *(l[k] for k in ("tp","pp","ep","dp","zero","sp","micro_batch","global_batch","seq_len")))' "$1"; }
expand "$DATA/megatron/train_gpt3_175b_distributed.sh" /ckpt /tb /vocab.json /merges.txt /data >"$tmp/g175.txt"
# NUM_NODES=1 in the file ("change for multinode"): TP 8 x PP 16 needs 128 GPUs
"$T" estimate --from-megatron "$tmp/g175.txt" --gpus 128 --vocab 50257 --json >"$tmp/m.json" 2>"$tmp/err"
if [ "$(ml "$tmp/m.json")" = "174604259328 0 0 8 16 1 1 0 False 1 1536 2048" ]; then ok; else
    bad "Megatron's GPT-3 175B example reads as $(ml "$tmp/m.json") ($(cat "$tmp/err"))"; fi
expand "$DATA/megatron/train_mixtral_8x7b_distributed.sh" /ckpt /tokenizer.model /data >"$tmp/mix.txt"
# SLURM_NNODES=4: 32 GPUs from the launcher; Mixtral's count, EP 8 over DP 8
"$T" estimate --from-megatron "$tmp/mix.txt" --vocab 32000 --json >"$tmp/m.json" 2>"$tmp/err"
if [ "$(ml "$tmp/m.json")" = "46702792704 8 2 1 4 8 8 1 False 1 256 4096" ]; then ok; else
    bad "Megatron's Mixtral 8x7B example reads as $(ml "$tmp/m.json") ($(cat "$tmp/err"))"; fi
if grep -qx -- "--rotary-base 1000000" <("$T" export --format megatron --from-megatron "$tmp/mix.txt" --vocab 32000 2>/dev/null); then ok; else
    bad "the Mixtral example's --rotary-base 1000000 is kept"; fi

# Megatron-LM's Megatron-FSDP DeepSeek-V3 launch (@ d98e8a64,
# examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh): the script run by
# bash up to its sbatch submission, its TRAINING_CMD's python line
# imported. Its nodes are placeholders: 256 GPUs here; its tokenizer gives
# DeepSeek-V3's vocabulary, 129280. The model is the deepseek-v3 preset
# exactly (682,636,487,424 parameters with the MTP module: HF config and
# README_WEIGHTS.md, presets/models/deepseek-v3.json); the file's layout:
# EP 8 (expert TP 1 = TP), Megatron-FSDP optim_grads_params (ZeRO 3), bf16
# gradients (--megatron-fsdp-main-grads-dtype and -grad-comm-dtype bf16),
# selective recompute of layernorm, mlp, moe and mla_up_proj, the
# vocabulary padded to a multiple of 3232
mkdir "$tmp/dsv3"
(cd "$tmp/dsv3" && { sed '/^set +e$/,$d' "$DATA/megatron/sbatch_mfsdp_deepseek_v3.sh"; echo 'printf "%s\n" "$TRAINING_CMD"'; } |
    env -i PATH="$PATH" OUTPUT_PATH="$tmp/dsv3/out" bash -s) | sed -n 's/^ *python /python /p' >"$tmp/dsv3.txt"
dsl() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["layout"]; t=d["training"]; m=d["model"]; print(d["params"]["total"], m["mtp_layers"], *(l[k] for k in ("tp","pp","ep","dp","zero","sp","micro_batch","global_batch","seq_len","recompute")), t["recompute_modules"], t["grad_dtype"], t["pad_vocab_to"])' "$1"; }
"$T" estimate --from-megatron "$tmp/dsv3.txt" --gpus 256 --vocab 129280 --json >"$tmp/m.json" 2>"$tmp/err"
if [ "$(dsl "$tmp/m.json")" = "682636487424 1 1 1 8 256 3 False 4 2048 4096 selective layernorm,mlp,moe,mla_up_proj bf16 3232" ]; then ok; else
    bad "Megatron's DeepSeek-V3 example reads as $(dsl "$tmp/m.json" 2>&1) ($(cat "$tmp/err"))"; fi
"$T" estimate --model deepseek-v3 --gpus 256 --json >"$tmp/p.json"
if [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["params"]["total"])' "$tmp/p.json")" = 682636487424 ]; then ok; else
    bad "the deepseek-v3 preset's count is not 682,636,487,424"; fi
"$T" export --format megatron --from-megatron "$tmp/dsv3.txt" --gpus 256 --vocab 129280 >"$tmp/dsv3.args" 2>/dev/null
if grep -qx -- "--recompute-modules layernorm mlp moe mla_up_proj" "$tmp/dsv3.args"; then ok; else
    bad "the DeepSeek-V3 example's mla_up_proj recompute is exported"; fi

# Megatron-FSDP with its gradient dtype left "auto": the gradient buffer
# takes the parameters' dtype, bf16 under --bf16 (megatron_fsdp/
# param_and_grad_buffer.py _resolve_group_grad_dtype @ d98e8a64), not the
# fp32 main gradients of Megatron's DDP; the export of an fp32-gradient
# FSDP plan names the dtype so that the launch keeps fp32 gradients
printf '%s\n' "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --seq-length 512" \
    "--max-position-embeddings 512 --micro-batch-size 1 --vocab-size 1000 --bf16" \
    "--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params" \
    "--ckpt-format fsdp_dtensor" >"$tmp/mfsdp.txt"
gd() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["training"]["grad_dtype"])' "$1"; }
"$T" estimate --from-megatron "$tmp/mfsdp.txt" --gpus 8 --json >"$tmp/mf.json" 2>"$tmp/err"
if [ "$(gd "$tmp/mf.json")" = bf16 ]; then ok; else
    bad "Megatron-FSDP's auto gradient dtype reads as $(gd "$tmp/mf.json" 2>&1) ($(cat "$tmp/err"))"; fi
echo "--megatron-fsdp-main-grads-dtype fp32" >>"$tmp/mfsdp.txt"
"$T" estimate --from-megatron "$tmp/mfsdp.txt" --gpus 8 --json >"$tmp/mf.json" 2>"$tmp/err"
if [ "$(gd "$tmp/mf.json")" = fp32 ]; then ok; else
    bad "--megatron-fsdp-main-grads-dtype fp32 reads as $(gd "$tmp/mf.json" 2>&1)"; fi
"$T" export --format megatron --model llama-3-8b --gpus 8 --zero 3 --grad-dtype fp32 >"$tmp/mf.args" 2>/dev/null
if grep -qx -- "--megatron-fsdp-main-grads-dtype fp32" "$tmp/mf.args"; then ok; else
    bad "an fp32-gradient Megatron-FSDP export does not name its gradient dtype"; fi

# Megatron-LM's gpt-oss launch (@ d98e8a64, examples/gptoss/02_train.sh),
# run by bash in a directory with a pretrain_gpt.py and a checkpoint
# directory, its python line imported. Its model is a small gpt-oss (12
# layers, hidden 512, 64 heads of 8 in 8 KV groups, 4 experts of 2048, top
# 2, quick-GeGLU, no biases, untied, vocabulary 128256, learned sinks, a
# 128-token window on every other layer), counted by hand: embeddings 2 x
# 128256 x 512, per layer q and o 2 x 512 x 512, k and v 2 x 512 x 64, 64
# sinks, 2 norms of 512, router 512 x 4, experts 4 x 3 x 512 x 2048; a
# final norm. It sets PP to the world size: Megatron-LM refuses 12 layers
# on its default 8 GPUs, so does the import; its --distributed-config-file
# gives 4 GPUs per node (PP 4). --enable-gpt-oss and
# --export-force-local-attention act only under ModelOpt's builder, which
# the launch does not turn on (noted); with --modelopt-enabled, the YaRN
# rotary scaling and the unfused local attention are read.
gptoss() { # gptoss GPUS_PER_NODE: the launch's command line
    rm -rf "$tmp/go" && mkdir -p "$tmp/go/ckpt" && : >"$tmp/go/pretrain_gpt.py" && echo "GPUS_PER_NODE=$1" >"$tmp/go/dist.sh"
    (cd "$tmp/go" && sed 's/^python -m torch.distributed.run /printf "%q " python -m torch.distributed.run /' "$DATA/megatron/gptoss_02_train.sh" |
        env -i PATH="$PATH" bash -s -- --checkpoint-path ckpt --distributed-config-file dist.sh) | grep -a '^python '
}
gol() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["layout"]; t=d["training"]; m=d["model"]; print(d["params"]["total"], *(m[k] for k in ("layers","hidden","heads","kv_heads","head_dim","experts","topk","moe_ffn_hidden","mlp","sliding_window","global_every","attn_sinks","vocab")), *(l[k] for k in ("tp","pp","ep","dp","zero","micro_batch","global_batch","seq_len","recompute")), t["precision"], t["fp8_param_gather"], t["flash_attn"], m.get("rope_scaling"))' "$1"; }
want=$(python3 -c 'V,h,L=128256,512,12; print(2*V*h + L*(2*h*h + 2*h*64 + 64 + 2*h + h*4 + 4*3*h*2048) + h)')
gptoss 4 >"$tmp/gptoss.txt"
"$T" estimate --from-megatron "$tmp/gptoss.txt" --json >"$tmp/m.json" 2>"$tmp/err"
if [ "$(gol "$tmp/m.json")" = "$want 12 512 64 8 8 4 2 2048 geglu 128 2 True 128256 1 4 1 1 1 1 128 8192 selective fp8 True True None" ]; then ok; else
    bad "Megatron's gpt-oss example reads as $(gol "$tmp/m.json" 2>&1), want $want parameters ($(cat "$tmp/err"))"; fi
if grep -q 'assumed: --enable-gpt-oss: without ModelOpt' "$tmp/err"; then ok; else
    bad "the gpt-oss example's ModelOpt-only arguments are noted ($(cat "$tmp/err"))"; fi
printf ' --modelopt-enabled' >>"$tmp/gptoss.txt"
"$T" estimate --from-megatron "$tmp/gptoss.txt" --json >"$tmp/m.json" 2>"$tmp/err"
if [ "$(gol "$tmp/m.json")" = "$want 12 512 64 8 8 4 2 2048 geglu 128 2 True 128256 1 4 1 1 1 1 128 8192 selective fp8 True False other" ]; then ok; else
    bad "the gpt-oss example with --modelopt-enabled reads as $(gol "$tmp/m.json" 2>&1) ($(cat "$tmp/err"))"; fi
gptoss 8 >"$tmp/gptoss.txt"
run estimate --from-megatron "$tmp/gptoss.txt"
if [ "$rc" = 2 ] && grep -q ': 12 layers do not split evenly over "--pipeline-model-parallel-size" 8 (Megatron-LM asserts it' "$tmp/err"; then ok; else
    bad "Megatron's gpt-oss example on 8 GPUs (PP 8, 12 layers): exit $rc, $(cat "$tmp/err")"; fi

# DeepSpeed's own configs (@ edaa7221, tests/data/engines/deepspeed) on 8 GPUs
dl() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["layout"]; t=d["training"]; print(*(l[k] for k in ("dp","zero","micro_batch","global_batch","grad_accum")), t["precision"])' "$1"; }
for want in "ds_config_func_bs8_zero1|8 1 1 8 1 fp16" "ds_config_zero3|8 3 1 8 1 bf16"; do
    "$T" estimate --from-deepspeed "$DATA/deepspeed/${want%%|*}.json" --model llama-3-8b --gpus 8 --json >"$tmp/d.json" 2>"$tmp/err"
    if [ "$(dl "$tmp/d.json")" = "${want#*|}" ]; then ok; else
        bad "DeepSpeed's ${want%%|*}.json reads as $(dl "$tmp/d.json"), want ${want#*|} ($(cat "$tmp/err"))"; fi
done
# DeepSpeedExamples' AutoEP (a Qwen3.5 MoE preset there; Qwen3-30B-A3B here,
# the MoE trainplan has) and AutoTP configs, on 8 GPUs: EP 8 over DP 8 at
# ZeRO 1, micro-batch 2; AutoTP 4 without SP at ZeRO 2 ("auto" batch sizes
# from the flags)
dle() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["layout"]; t=d["training"]; print(*(l[k] for k in ("tp","ep","dp","zero","sp","micro_batch","global_batch")), t["precision"])' "$1"; }
for want in "ds_autoep_zero1_qwen3_5_moe|qwen3-30b-a3b|1 8 8 1 False 2 16 bf16" "ds_config_autotp|llama-3-8b|4 1 2 2 False 1 2 bf16"; do
    IFS='|' read -r f mdl lay <<<"$want"
    "$T" estimate --from-deepspeed "$DATA/deepspeed/$f.json" --model "$mdl" --gpus 8 --json >"$tmp/d.json" 2>"$tmp/err"
    if [ "$(dle "$tmp/d.json")" = "$lay" ]; then ok; else
        bad "DeepSpeedExamples' $f.json reads as $(dle "$tmp/d.json"), want $lay ($(cat "$tmp/err"))"; fi
done

# NeMo / Megatron-Bridge YAML overrides (--from-nemo): the examples'
# own files (tests/data/engines/nemo, with their origin) on 64 GPUs read
# as the layout they set; the model comes from --model (the recipe's)
nl() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["layout"]; t=d["training"]; print(*(l.get(k) for k in ("tp","pp","ep","etp","dp","zero","sp","vpp","micro_batch","global_batch","seq_len","recompute")), t["precision"], t["grad_dtype"])' "$1"; }
for want in "qwen3_moe_30b_a3b_pretrain_override_example|qwen3-30b-a3b|4 2 4 1 8 0 True 1 2 256 4096 none bf16 fp32" \
    "llama3_8b_pretrain_override_example|llama-3.1-8b|2 2 1 None 16 0 True 1 4 256 2048 none bf16 fp32"; do
    IFS='|' read -r f mdl lay <<<"$want"
    "$T" estimate --from-nemo "$DATA/nemo/$f.yaml" --model "$mdl" --gpus 64 --json >"$tmp/n.json" 2>"$tmp/err"
    if [ "$(nl "$tmp/n.json")" = "$lay" ]; then ok; else
        bad "Megatron-Bridge's $f.yaml reads as $(nl "$tmp/n.json"), want $lay ($(cat "$tmp/err"))"; fi
done
# the older example names its sections model_config, train_config, ...
if grep -q "ignored (cannot change memory or time): train_config.train_iters" "$tmp/err" &&
    grep -q "assumed: no seq_length: the recipe.s sequence length taken from the trainplan flags; no mixed_precision" "$tmp/err"; then ok; else
    bad "the llama3 overrides' notes: $(cat "$tmp/err")"; fi
# every mapped field: Megatron-FSDP, block recompute, fp8, virtual stages,
# a shape override, optimizer offload, comments, quotes, a block sequence
cat >"$tmp/full.yaml" <<'YAML'
---
# a Megatron-Bridge override
model:
  num_layers: 32            # the shape, when the override sets it
  hidden_size: 4096
  ffn_hidden_size: 14336
  num_attention_heads: 32
  num_query_groups: 8
  tensor_model_parallel_size: 2
  pipeline_model_parallel_size: 2
  virtual_pipeline_model_parallel_size: 2
  context_parallel_size: 1
  sequence_parallel: false
  seq_length: "8192"
  recompute_granularity: full
  recompute_method: block
  recompute_num_layers: 4
  fp8: hybrid
  tp_comm_overlap: true
train:
  micro_batch_size: 1
  global_batch_size: 64
ddp:
  use_megatron_fsdp: true
  data_parallel_sharding_strategy: 'optim_grads'
  grad_reduce_in_fp32: false
  overlap_grad_reduce: true
optimizer:
  optimizer: adam
  optimizer_cpu_offload: true
  optimizer_offload_fraction: 0.5
  lr: 3.0e-4
profiling:
  profile_ranks:
    - 0
    - 1
YAML
"$T" estimate --from-nemo "$tmp/full.yaml" --model llama-3-8b --gpus 16 --json >"$tmp/n.json" 2>"$tmp/err"
if [ "$(nl "$tmp/n.json")" = "2 2 1 None 4 2 False 2 1 64 8192 full fp8 bf16" ] &&
    [ "$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["training"]; print(t.get("recompute_layers"), t.get("offload_optimizer"))' "$tmp/n.json")" = "4 0.5" ] &&
    grep -q "approximated by trainplan's calibrated efficiencies: model.tp_comm_overlap, ddp.overlap_grad_reduce" "$tmp/err"; then ok; else
    bad "the full NeMo override reads as $(nl "$tmp/n.json") ($(cat "$tmp/err"))"; fi
# a named mixed-precision recipe (Megatron-Bridge mixed_precision.py):
# bf16 with fp8 delayed scaling reduces in fp32 and gathers fp8 parameters
printf 'mixed_precision: bf16_with_fp8_delayed_scaling_mixed\n' >"$tmp/mp.yaml"
if [ "$("$T" estimate --from-nemo "$tmp/mp.yaml" --model llama-3-8b --gpus 8 --distributed-optimizer --json 2>/dev/null |
    python3 -c 'import json,sys; t=json.load(sys.stdin)["training"]; print(t["precision"], t["grad_dtype"], t.get("fp8_param_gather"))')" = "fp8 fp32 True" ]; then ok; else
    bad "mixed_precision: bf16_with_fp8_delayed_scaling_mixed is fp8, fp32 gradients, fp8 parameter gather"; fi
# Megatron-Bridge's disable_parameter_transpose_cache (set by its llama3
# fine-tuning performance configs at v0.3.0): TE casts the fp8 weights per
# call, no cached copies (docs/model.md, "FP8 weight copies")
printf 'model:\n  fp8: hybrid\n  disable_parameter_transpose_cache: true\n' >"$tmp/wc.yaml"
if [ "$("$T" estimate --from-nemo "$tmp/wc.yaml" --model llama-3-8b --gpus 8 --json 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["conventions"].get("fp8_weight_cache"))')" = False ]; then ok; else
    bad "model.disable_parameter_transpose_cache: true is --no-fp8-weight-cache"; fi
printf 'model:\n  fp8: hybrid\n  disable_parameter_transpose_cache: false\n' >"$tmp/wc0.yaml"
if [ "$("$T" estimate --from-nemo "$tmp/wc0.yaml" --model llama-3-8b --gpus 8 --json 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["conventions"].get("fp8_weight_cache"))')" = None ]; then ok; else
    bad "model.disable_parameter_transpose_cache: false keeps the default cache"; fi
printf 'model:\n  tensor_model_parallel_size: 2\n' >"$tmp/tp.yaml"
# the loss (issue 17, fourteenth round): Megatron-Core's, 2 B a logit with
# TransformerEngine's fused cross-entropy, else 4 (the fp32 softmax), also
# when the file leaves it to the recipe (said so)
ce_of() { "$T" estimate --from-nemo "$1" --model llama-3-8b --gpus 8 --json 2>"$tmp/err" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["conventions"].get("ce_bytes_per_logit"))' 2>/dev/null; }
printf 'model:\n  cross_entropy_loss_fusion: true\n  cross_entropy_fusion_impl: te\n' >"$tmp/ce_te.yaml"
if [ "$(ce_of "$tmp/ce_te.yaml")" = 2.0 ]; then ok; else bad "NeMo: TE's fused loss is not 2 B a logit"; fi
printf 'model:\n  cross_entropy_loss_fusion: true\n' >"$tmp/ce_native.yaml"
if [ "$(ce_of "$tmp/ce_native.yaml")" = 4.0 ] && grep -q "approximated.*model.cross_entropy_loss_fusion" "$tmp/err"; then ok; else
    bad "NeMo: the native fused loss is not 4 B a logit, approximated: $(cat "$tmp/err")"; fi
if [ "$(ce_of "$tmp/tp.yaml")" = 4.0 ] && grep -q "no cross_entropy_loss_fusion: Megatron-Core's vocabulary-parallel loss, 4 B a logit" "$tmp/err"; then ok; else
    bad "NeMo: a file without the loss does not assume Megatron-Core's: $(cat "$tmp/err")"; fi
printf 'model:\n  cross_entropy_loss_fusion: true\n  cross_entropy_fusion_impl: triton\n' >"$tmp/ce_bad.yaml"
expect_error "trainplan: error: $tmp/ce_bad.yaml:3:1: \"model.cross_entropy_fusion_impl\" must be one of native, te, got triton" \
    estimate --from-nemo "$tmp/ce_bad.yaml" --model llama-3-8b --gpus 8
# the overrides hold no model and no GPU count: both are asked for
expect_error "trainplan: error: --model: the NeMo overrides do not define the model (the recipe does); add --model NAME or FILE" \
    estimate --from-nemo "$tmp/tp.yaml" --gpus 8
expect_error "trainplan: error: --gpus: the NeMo overrides do not give the number of GPUs (the launcher does); add --gpus N" \
    estimate --from-nemo "$tmp/tp.yaml" --model llama-3-8b
# a flag given wins over the file, and a value the file sets is blamed on it
if [ "$("$T" estimate --from-nemo "$tmp/tp.yaml" --model llama-3-8b --gpus 8 --tp 4 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["layout"]["tp"])')" = 4 ]; then ok; else
    bad "--tp on the command line overrides the NeMo file"; fi
printf 'model:\n  tensor_model_parallel_size: 3\n' >"$tmp/tp3.yaml"
if ! "$T" estimate --from-nemo "$tmp/tp3.yaml" --model llama-3-8b --gpus 24 >/dev/null 2>"$tmp/err" &&
    grep -q "^trainplan: error: $tmp/tp3.yaml:2:1: model.tensor_model_parallel_size: 3 does not divide" "$tmp/err"; then ok; else
    bad "a bad TP from the NeMo file names the key and line: $(cat "$tmp/err")"; fi

# exact totals of the models whose count the issue names
for f in "$tmp/qwen2.5-32b/plan.json" "$tmp/qwen2.5-32b/ds_back.json" "$tmp/qwen2.5-32b/meg.json"; do
    if [ "$(total "$f")" = 32763876352 ]; then ok; else bad "Qwen2.5-32B: $(basename "$f") counts $(total "$f"), want 32763876352"; fi
done

# MLA, MTP, MoE and windowed models come back with their exact counts
# (DeepSeek-V3 with its MTP module, Kimi K2, gpt-oss-120b: tests/data/hf
# README cites each) through both engines, with the arguments that say so
for want in "deepseek-v3|682636487424" "kimi-k2|1026408232448" "gpt-oss-120b|116829156672" "qwen3-30b-a3b|30532122624"; do
    n=${want%%|*}
    for f in plan meg ds_back; do
        if [ "$(total "$tmp/$n/$f.json")" = "${want#*|}" ]; then ok; else
            bad "$n: $f.json counts $(total "$tmp/$n/$f.json"), want ${want#*|}"; fi
    done
done
want_args deepseek-v3 "--multi-latent-attention" "--q-lora-rank 1536" "--kv-lora-rank 512" "--qk-head-dim 128" \
    "--qk-pos-emb-head-dim 64" "--v-head-dim 128" "--mtp-num-layers 1" "--moe-layer-freq ([0]*3+[1]*58)" \
    "--moe-router-enable-expert-bias" "--decoder-first-pipeline-num-layers 5" "--decoder-last-pipeline-num-layers 8"
# the preset's group-limited routing (config.json n_group 8, topk_group 4)
# is Megatron's --moe-router-num-groups/--moe-router-group-topk (above);
# DeepSpeed's config holds no model, so its notes' flags carry the groups,
# and a model that drops the preset's groups says so with 0 0
want_args deepseek-v3 "--moe-router-num-groups 8" "--moe-router-group-topk 4"
g0=(--model deepseek-v3 --moe-router-groups 0 --moe-router-group-topk 0 --gpus 64 --ep 8 --global-batch 64)
"$T" estimate "${g0[@]}" --json >"$tmp/g0_plan.json" 2>/dev/null
"$T" export --format deepspeed "${g0[@]}" --out "$tmp/g0.json" 2>/dev/null
read -r -a dsf <<<"$(dsflags "$tmp/g0.json.notes.txt")"
"$T" estimate --from-deepspeed "$tmp/g0.json" "${dsf[@]}" --json >"$tmp/g0_back.json" 2>"$tmp/err"
if grep -q -- "--router-bias --moe-router-groups 0 --moe-router-group-topk 0" <(dsflags "$tmp/g0.json.notes.txt") &&
    same "$tmp/g0_plan.json" "$tmp/g0_back.json" 2>"$tmp/why"; then ok; else
    bad "deepseek-v3 without its groups through DeepSpeed: $(cat "$tmp/why" "$tmp/err" | head -3)"; fi
want_args gpt-oss-120b "--window-size 127,0" "--window-attn-skip-freq 2" "--softmax-type learnable" "--num-experts 128"
want_args qwen3-30b-a3b "--qk-layernorm" "--rotary-base 1000000"
# (all but the plan's 12-B loss, the one note, checked above)
for n in deepseek-v3 kimi-k2 gpt-oss-120b qwen3-30b-a3b; do
    if grep -q "^# Not expressible in Megatron-LM (1; " "$tmp/$n/meg.txt"; then ok; else
        bad "$n: the Megatron export notes something: $(sed -n '/Not expressible/,/^#$/p' "$tmp/$n/meg.txt" | head -4)"; fi
done
# what Megatron-LM cannot express is said, never claimed: Gemma 2's GeGLU
# and four norms per layer, gpt-oss's yarn rotary scaling (HF configs in
# tests/data/hf). No trainplan flag carries those either: the header's
# Reproduce line and the DeepSpeed notes say so and ask for the model's
# file, with which the DeepSpeed round trip is exact (Gemma 2 9B:
# 9,241,705,984; gpt-oss-120b: 116,829,156,672)
for want in "gemma-2-9b|features Megatron-LM has no argument for (GeGLU|extra norms per layer|9241705984|--tp 2" \
    "gpt-oss-120b|rotary scaling other than Llama 3's (yarn|rotary scaling other than Llama 3's|116829156672|--ep 8"; do
    IFS='|' read -r n mnote lost count lay <<<"$want"
    d=$tmp/hf-$n
    mkdir -p "$d"
    file=$SRC/tests/data/hf/$n/config.json
    fl=(--model "$file" --gpus 64 $lay --distributed-optimizer --global-batch 64 --ce-bytes-per-logit 4)
    "$T" estimate "${fl[@]}" --json >"$d/plan.json" 2>/dev/null
    "$T" export --format megatron "${fl[@]}" >"$d/meg.txt" 2>"$tmp/err"
    if grep -qF -- "$mnote" "$d/meg.txt" && ! grep -q "Everything in the plan is expressed" "$d/meg.txt" &&
        grep -q "1 part of the plan cannot be expressed in megatron" "$tmp/err"; then ok; else
        bad "$n: the Megatron export must say \"$mnote\""; fi
    if grep -q "^#            (the flags cannot carry the model's $lost" "$d/meg.txt"; then ok; else
        bad "$n: the Reproduce line must say the flags cannot carry the $lost"; fi
    "$T" export --format deepspeed "${fl[@]}" --out "$d/ds.json" 2>/dev/null
    if tr '\n' ' ' <"$d/ds.json.notes.txt" | sed 's/ *# */ /g' | grep -qF "the flags cannot carry its $lost"; then ok; else
        bad "$n: the DeepSpeed notes must say the flags cannot carry the $lost"; fi
    read -r -a dsf <<<"$(dsflags "$d/ds.json.notes.txt")"
    "$T" estimate --from-deepspeed "$d/ds.json" "${dsf[@]}" --model "$file" --json >"$d/ds_back.json" 2>"$tmp/err"
    if same "$d/plan.json" "$d/ds_back.json" 2>"$tmp/why"; then ok; else
        bad "$n: DeepSpeed round trip with the model's file differs: $(cut -c1-300 "$tmp/why" "$tmp/err")"; fi
    if [ "$(total "$d/ds_back.json")" = "$count" ]; then ok; else
        bad "$n through DeepSpeed counts $(total "$d/ds_back.json"), want $count"; fi
done
# Megatron's learnable softmax offset is gpt-oss's attention sinks; the
# off-by-one softmax has no parameter
printf -- '--num-layers 2\n--hidden-size 256\n--num-attention-heads 4\n--seq-length 512\n--max-position-embeddings 512\n--micro-batch-size 1\n--vocab-size 1000\n--bf16\n--softmax-type %s\n' learnable >"$tmp/sink.txt"
sinks() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["model"].get("attn_sinks"), d["params"]["total"])' "$1"; }
"$T" estimate --from-megatron "$tmp/sink.txt" --gpus 1 --json >"$tmp/s.json" 2>/dev/null
a=$(sinks "$tmp/s.json")
sed -i 's/learnable/off-by-one/' "$tmp/sink.txt"
"$T" estimate --from-megatron "$tmp/sink.txt" --gpus 1 --json >"$tmp/s.json" 2>/dev/null
b=$(sinks "$tmp/s.json")
# 2 layers x 4 heads: 8 sink logits
if [ "${a%% *}" = True ] && [ "${b%% *}" = None ] && [ $((${a#* } - ${b#* })) = 8 ]; then ok; else
    bad "--softmax-type learnable/off-by-one read as $a / $b"; fi
expect_error_re() { :; }
sed -i 's/off-by-one/fancy/' "$tmp/sink.txt"
if ! "$T" estimate --from-megatron "$tmp/sink.txt" --gpus 1 >/dev/null 2>"$tmp/err" &&
    grep -q 'softmax-type' "$tmp/err" && grep -q 'fancy' "$tmp/err"; then ok; else
    bad "--softmax-type fancy is refused naming it: $(cat "$tmp/err")"; fi

# export --from RESULT.json: the estimate JSON carries the model's details
# (QKV bias, rotary base and scaling, norm epsilon, MoE layer pattern and
# shared width), so the export from it is the export of the plan itself
for name in qwen2.5-32b llama-3.1-70b llama-3.2-1b moe-shared gpt3-175b-pad; do
    "$T" export --format megatron --from "$tmp/$name/plan.json" >"$tmp/$name/from.txt" 2>"$tmp/err"
    if cmp -s <(args "$tmp/$name/meg.txt") <(args "$tmp/$name/from.txt"); then ok; else
        bad "$name: export --from its estimate JSON differs: $(diff <(args "$tmp/$name/meg.txt") <(args "$tmp/$name/from.txt") | head -5) $(cat "$tmp/err")"; fi
done
"$T" estimate --from-megatron "$tmp/qwen2.5-32b/from.txt" --gpus 64 --json >"$tmp/qf.json" 2>/dev/null
if [ "$(total "$tmp/qf.json")" = 32763876352 ]; then ok; else
    bad "Qwen2.5-32B through its estimate JSON counts $(total "$tmp/qf.json"), want 32763876352"; fi
mdet() { python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["model"]; print(*(m.get(k) for k in ("qkv_bias","rope_theta","rope_scaling","rope_factor","norm_eps")))' "$1"; }
if [ "$(mdet "$tmp/qwen2.5-32b/plan.json")" = "True 1000000.0 None None 1e-05" ] &&
    [ "$(mdet "$tmp/llama-3.1-70b/plan.json")" = "None 500000.0 llama3 8.0 1e-05" ]; then ok; else
    bad "estimate JSON model details: $(mdet "$tmp/qwen2.5-32b/plan.json") / $(mdet "$tmp/llama-3.1-70b/plan.json")"; fi

# the details read back are checked like any input
python3 - "$tmp/llama-3.1-70b/plan.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["model"]["rope_original_max"] = 10**9
json.dump(d, open(sys.argv[2] + "/bad_orig.json", "w"))
d["model"]["rope_original_max"] = 8192
d["model"]["rope_low_freq_factor"] = -1
json.dump(d, open(sys.argv[2] + "/bad_low.json", "w"))
PY
expect_error "trainplan: error: $tmp/bad_orig.json: \"model.rope_original_max\" must be at most 134217728, got 1000000000" \
    export --format megatron --from "$tmp/bad_orig.json"
expect_error "trainplan: error: $tmp/bad_low.json: \"model.rope_low_freq_factor\" must be a number in (0, 1e6], got -1" \
    export --format megatron --from "$tmp/bad_low.json"

# ---------------------------------------------------------------- Megatron model settings
m=$tmp/llama-3.1-70b/meg.txt
for want in "--rotary-base 500000" "--use-rope-scaling" "--rope-scaling-factor 8" "--norm-epsilon 1e-05" \
    "--untie-embeddings-and-output-weights" "--disable-bias-linear"; do
    if grep -qx -- "$want" "$m"; then ok; else bad "Llama-3.1-70B export lacks \"$want\""; fi
done
if grep -qx -- "--rope-scaling-factor 32" "$tmp/llama-3.2-1b/meg.txt" &&
    ! grep -q -- "--untie-embeddings" "$tmp/llama-3.2-1b/meg.txt"; then ok; else
    bad "Llama-3.2-1B: rope factor 32 and tied embeddings"; fi
if grep -qx -- "--add-qkv-bias" "$tmp/qwen2.5-32b/meg.txt" && grep -qx -- "--rotary-base 1000000" "$tmp/qwen2.5-32b/meg.txt"; then ok; else
    bad "Qwen2.5-32B: --add-qkv-bias and --rotary-base 1000000"; fi
if grep -qx -- "--moe-layer-freq (\[0\]\*1+\[1\]\*26)" "$tmp/moe-shared/meg.txt" &&
    grep -qx -- "--moe-shared-expert-intermediate-size 2816" "$tmp/moe-shared/meg.txt"; then ok; else
    bad "moe-shared: layer pattern and shared width"; fi
# a model that does not record its epsilon: not written, and said so
run export --format megatron --model gpt3-1.3b --gpus 8
if ! grep -q -- "--norm-epsilon" "$tmp/out" &&
    grep -q "^#   - norm epsilon (Megatron-LM's default 1e-5 applies)" "$tmp/out"; then ok; else
    bad "gpt3-1.3b: the unrecorded epsilon is named, not written"; fi
# what Megatron cannot express is listed, not claimed
run export --format megatron --model llama-3-8b --rope-theta 500000.5 --gpus 8
if grep -q "rotary base 500000.5: Megatron-LM's --rotary-base takes an integer; written as 500000" "$tmp/out"; then ok; else
    bad "a fractional rotary base is noted"; fi
# every name written is in the generated list of the version targeted
python3 - "$SRC/data/engines/megatron-args-d98e8a64.tsv" "$tmp"/*/meg.txt <<'PY' && ok || bad "a Megatron export writes a name outside megatron-args-d98e8a64.tsv"
import sys
known = {l.split("\t")[0] for l in open(sys.argv[1]) if l.startswith("--")}
for f in sys.argv[2:]:
    for l in open(f):
        if l.startswith("--"):
            assert l.split()[0] in known, (f, l)
PY

# Megatron's padding: make_vocab_size_divisible_by (128) x TP (8) = 1024, so
# 50257 -> 51200, whether the vocabulary is an argument or a flag (tokenizer)
printf -- '--num-layers 24\n--hidden-size 2048\n--num-attention-heads 16\n--seq-length 2048\n--max-position-embeddings 2048\n--micro-batch-size 1\n--global-batch-size 64\n--tensor-model-parallel-size 8\n--bf16\n--tokenizer-type GPT2BPETokenizer\n' >"$tmp/pad.txt"
padded() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["training"]["pad_vocab_to"]; v=d["model"]["vocab"]; print(-(-v // p) * p)' "$1"; }
"$T" estimate --from-megatron "$tmp/pad.txt" --vocab 50257 --gpus 8 --json >"$tmp/p.json" 2>/dev/null
if [ "$(padded "$tmp/p.json")" = 51200 ]; then ok; else bad "vocabulary from --vocab: padded to $(padded "$tmp/p.json"), want 51200"; fi
printf -- '--vocab-size 50257\n' >>"$tmp/pad.txt"
"$T" estimate --from-megatron "$tmp/pad.txt" --gpus 8 --json >"$tmp/p.json" 2>/dev/null
if [ "$(padded "$tmp/p.json")" = 51200 ]; then ok; else bad "--vocab-size 50257 at TP 8: padded to $(padded "$tmp/p.json"), want 51200"; fi

# every DeepSpeed key written is in the generated list of DeepSpeed @ edaa7221
python3 - "$SRC/data/engines/deepspeed-keys-edaa7221.tsv" "$tmp"/*/ds.json <<'PY' && ok || bad "a DeepSpeed export writes a key outside deepspeed-keys-edaa7221.tsv"
import json, sys
keys = {tuple(l.rstrip("\n").split("\t")) for l in open(sys.argv[1]) if not l.startswith("#")}
scoped = {"zero_optimization", "activation_checkpointing", "tensor_parallel", "expert_parallel"}
nested = 0
for f in sys.argv[2:]:
    for k, v in json.load(open(f)).items():
        assert ("config", k) in keys, (f, k)
        if isinstance(v, dict):
            for k2, v2 in v.items():
                assert ((k if k in scoped else "config"), k2) in keys, (f, k, k2)
                if isinstance(v2, dict):  # zero_optimization.offload_optimizer: its fields
                    for k3, v3 in v2.items():
                        assert (f"{k}.{k2}", k3) in keys, (f, k, k2, k3)
                        nested += 1
                        if k3 == "device":
                            assert (f"{k}.{k2}.device", v3) in keys, (f, k2, v3)
assert nested > 0  # the offload plans write the nested keys
PY
# and so is every key the import maps
python3 - "$SRC/data/engines/deepspeed-keys-edaa7221.tsv" <<'PY' && ok || bad "the DeepSpeed import maps a key outside deepspeed-keys-edaa7221.tsv"
import sys
keys = {tuple(l.rstrip("\n").split("\t")) for l in open(sys.argv[1]) if not l.startswith("#")}
for k in [("config", "train_batch_size"), ("config", "train_micro_batch_size_per_gpu"),
          ("config", "gradient_accumulation_steps"), ("zero_optimization", "stage"),
          ("zero_optimization", "offload_optimizer"), ("zero_optimization", "offload_param"),
          ("config", "grad_accum_dtype"), ("tensor_parallel", "autotp_size"),
          ("tensor_parallel", "partition_config"), ("expert_parallel", "enabled"),
          ("expert_parallel", "autoep_size"), ("expert_parallel", "expert_tensor_parallel_size"),
          ("zero_optimization.offload_optimizer", "device"),
          ("zero_optimization.offload_optimizer", "ratio"),
          ("zero_optimization.offload_optimizer.device", "cpu"),
          ("zero_optimization.offload_optimizer.device", "nvme"),
          ("zero_optimization.offload_param", "device"),
          ("zero_optimization.offload_param.device", "cpu")]:
    assert k in keys, k
PY

# ---------------------------------------------------------------- DeepSpeed: no overclaiming
dsnotes() { # dsnotes FLAGS...: the notes of a DeepSpeed export in $tmp/notes
    "$T" export --format deepspeed "$@" --out "$tmp/x.json" --force 2>/dev/null
    cp "$tmp/x.json.notes.txt" "$tmp/notes"
}
dsnotes --model llama-3-8b --gpus 16 --tp 2 --cp 2 --zero 1
if grep -q "context parallelism 2: DeepSpeed and Megatron-DeepSpeed have no" "$tmp/notes" &&
    ! grep -q "Everything in the plan is expressed" "$tmp/notes"; then ok; else
    bad "DeepSpeed export with CP 2 must say CP is not expressible"; fi
dsnotes --model llama-3-8b --gpus 16 --tp 2 --pp 4 --vpp 2 --zero 1 --global-batch 16
if grep -q "interleaved schedule with 2 virtual stages: DeepSpeed's pipeline" "$tmp/notes"; then ok; else
    bad "DeepSpeed export of an interleaved plan must say DeepSpeed runs 1F1B"; fi
dsnotes --model llama-3-8b --gpus 16 --tp 2 --pp 4 --schedule gpipe --zero 1
if grep -q "GPipe schedule: DeepSpeed's pipeline engine runs 1F1B only" "$tmp/notes"; then ok; else
    bad "DeepSpeed export of a GPipe plan must say DeepSpeed runs 1F1B"; fi
dsnotes --model llama-3-8b --gpus 16 --tp 2 --pp 4 --zero 0
if grep -q "ZeRO 0 with bf16 and a pipeline: DeepSpeed wraps the optimizer in its" "$tmp/notes"; then ok; else
    bad "DeepSpeed export of ZeRO 0 + bf16 + PP must name BF16_Optimizer"; fi
dsnotes --model llama-3-8b --gpus 16 --tp 2 --zero 0 --grad-dtype fp32
if grep -q '"stage": 1' "$tmp/x.json" && grep -q "written as ZeRO stage" "$tmp/notes"; then ok; else
    bad "DeepSpeed export of ZeRO 0 + bf16 + fp32 gradients writes stage 1 and says why"; fi
dsnotes --model llama-3-8b --gpus 16 --tp 2 --zero 1
if grep -q "Everything in the plan is expressed in DeepSpeed" "$tmp/notes"; then ok; else
    bad "a plain ZeRO-1 plan is fully expressed in DeepSpeed"; fi

# ---------------------------------------------------------------- DeepSpeed imports
printf '{"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 8, "bf16": {"enabled": true}, "zero_optimization": {"stage": 0}}\n' >"$tmp/z0.json"
zero_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layout"]["zero"])' "$1"; }
"$T" estimate --from-deepspeed "$tmp/z0.json" --model llama-3-8b --gpus 16 --tp 2 --pp 4 --json >"$tmp/z.json" 2>"$tmp/err"
if [ "$(zero_of "$tmp/z.json")" = 1 ] && grep -q "BF16_Optimizer" "$tmp/err"; then ok; else
    bad "bf16 + ZeRO 0 + pipeline is read as ZeRO-1 (BF16_Optimizer): $(cat "$tmp/err")"; fi
"$T" estimate --from-deepspeed "$tmp/z0.json" --model llama-3-8b --gpus 16 --tp 2 --json >"$tmp/z.json" 2>/dev/null
if [ "$(zero_of "$tmp/z.json")" = 0 ]; then ok; else bad "bf16 + ZeRO 0 without a pipeline stays ZeRO 0"; fi
printf '{"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true}, "data_types": {"grad_accum_dtype": "fp32"}, "zero_optimization": {"stage": 0}}\n' >"$tmp/z0f.json"
expect_error "trainplan: error: $tmp/z0f.json: zero_optimization.stage: ZeRO stage 0 with bf16 weights and fp32 gradient accumulation: DeepSpeed refuses this mix (unsupported mix of model_dtype and grad_accum_dtype); use ZeRO stage 1 or bf16 accumulation" \
    estimate --from-deepspeed "$tmp/z0f.json" --model llama-3-8b --gpus 8

# AutoTP and AutoEP sections (DeepSpeed @ edaa7221): sizes read, folding refused
layout_of() { python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["layout"]; print(l["tp"], l["ep"], l["sp"])' "$1"; }
printf '{"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true}, "zero_optimization": {"stage": 1}, "tensor_parallel": {"autotp_size": 4, "tp_overlap_comm": true}}\n' >"$tmp/atp.json"
"$T" estimate --from-deepspeed "$tmp/atp.json" --model llama-3-8b --gpus 16 --json >"$tmp/a.json" 2>/dev/null
if [ "$(layout_of "$tmp/a.json")" = "4 1 False" ]; then ok; else bad "AutoTP 4 is TP 4 without SP: $(layout_of "$tmp/a.json")"; fi
printf '{"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true}, "zero_optimization": {"stage": 1}, "expert_parallel": {"enabled": true, "autoep_size": 8, "preset_model": "mixtral"}}\n' >"$tmp/aep.json"
"$T" estimate --from-deepspeed "$tmp/aep.json" --model mixtral-8x7b --gpus 64 --json >"$tmp/a.json" 2>/dev/null
if [ "$(layout_of "$tmp/a.json")" = "1 8 False" ]; then ok; else bad "AutoEP 8 is EP 8: $(layout_of "$tmp/a.json")"; fi
printf '{"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true}, "tensor_parallel": {"autotp_size": 2}, "expert_parallel": {"enabled": true, "autoep_size": 8}}\n' >"$tmp/afold.json"
expect_error "trainplan: error: $tmp/afold.json: \"expert_parallel.autoep_size\" with tensor_parallel.autotp_size > 1 folds the expert-parallel group over the AutoTP ranks (module_inject/auto_ep_folding.py), which changes memory or time in a way trainplan does not model" \
    estimate --from-deepspeed "$tmp/afold.json" --model mixtral-8x7b --gpus 64
printf '{"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true}, "expert_parallel": {"enabled": true, "autoep_size": 8, "expert_tensor_parallel_size": 2}}\n' >"$tmp/aetp.json"
expect_error "trainplan: error: $tmp/aetp.json: \"expert_parallel.expert_tensor_parallel_size\" shards each expert over its own tensor-parallel group, which changes memory or time in a way trainplan does not model" \
    estimate --from-deepspeed "$tmp/aetp.json" --model mixtral-8x7b --gpus 64

# ---- the EP all-to-all overlap: --moe-a2a-overlap is Megatron-Core's
# --overlap-moe-expert-parallel-comm, written with the alltoall dispatcher it
# needs (and --delay-wgrad-compute), read back to the same prediction; a
# launch that leaves the dispatcher at Megatron's allgather is refused ----
a2a="--model mixtral-8x7b --gpus 64 --tp 2 --ep 8 --zero 1 --seq-len 4096 --global-batch 256 --recompute selective --moe-a2a-overlap"
"$T" export --format megatron $a2a >"$tmp/a2a.txt" 2>/dev/null
"$T" estimate $a2a --json >"$tmp/a2a_plan.json" 2>/dev/null
"$T" estimate --from-megatron "$tmp/a2a.txt" --gpus 64 --json >"$tmp/a2a_back.json" 2>"$tmp/err"
got=$(python3 -c 'import json,sys; a,b=(json.load(open(f))["time"]["breakdown"]["ep_comm"] for f in sys.argv[1:3]); print(a == b and a > 0)' "$tmp/a2a_plan.json" "$tmp/a2a_back.json" 2>&1)
if [ "$got" = True ] && grep -qx -- "--overlap-moe-expert-parallel-comm" "$tmp/a2a.txt" &&
    grep -qx -- "--moe-token-dispatcher-type alltoall" "$tmp/a2a.txt" &&
    grep -qx -- "--delay-wgrad-compute" "$tmp/a2a.txt"; then ok; else
    bad "the Megatron round trip of --moe-a2a-overlap: $got $(cat "$tmp/err")"; fi
grep -v -- "--moe-token-dispatcher-type" "$tmp/a2a.txt" >"$tmp/a2a_ag.txt"
expect_error "trainplan: error: $tmp/a2a_ag.txt: \"--overlap-moe-expert-parallel-comm\" needs \"--moe-token-dispatcher-type\" alltoall or flex (Megatron-Core), got allgather (the default)" \
    estimate --from-megatron "$tmp/a2a_ag.txt" --gpus 64
printf -- '--moe-token-dispatcher-type allgather\n' >>"$tmp/a2a_ag.txt"
expect_error "trainplan: error: $tmp/a2a_ag.txt: \"--overlap-moe-expert-parallel-comm\" needs \"--moe-token-dispatcher-type\" alltoall or flex (Megatron-Core), got allgather" \
    estimate --from-megatron "$tmp/a2a_ag.txt" --gpus 64
# node-deduplicating dispatch and group-limited routing: Megatron-Core's flex
# dispatcher with its DeepEP backend, --moe-router-num-groups/-group-topk
nd="--model deepseek-v3 --gpus 64 --ep 64 --zero 1 --global-batch 64 --recompute selective --moe-node-dispatch --moe-router-groups 8 --moe-router-group-topk 4"
"$T" export --format megatron $nd >"$tmp/nd.txt" 2>/dev/null
"$T" estimate $nd --json >"$tmp/nd_plan.json" 2>/dev/null
"$T" estimate --from-megatron "$tmp/nd.txt" --gpus 64 --json >"$tmp/nd_back.json" 2>"$tmp/err"
got=$(python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:3]); print(a["time"]["breakdown"]["ep_comm"] == b["time"]["breakdown"]["ep_comm"] > 0, b["model"].get("moe_router_groups"), b["model"].get("moe_router_group_topk"))' "$tmp/nd_plan.json" "$tmp/nd_back.json" 2>&1)
if [ "$got" = "True 8 4" ] && grep -qx -- "--moe-token-dispatcher-type flex" "$tmp/nd.txt" &&
    grep -qx -- "--moe-flex-dispatcher-backend deepep" "$tmp/nd.txt" &&
    grep -qx -- "--moe-router-num-groups 8" "$tmp/nd.txt" && grep -qx -- "--moe-router-group-topk 4" "$tmp/nd.txt"; then ok; else
    bad "the Megatron round trip of --moe-node-dispatch and the router groups: $got $(cat "$tmp/err")"; fi
grep -v -- "--moe-router-num-groups" "$tmp/nd.txt" >"$tmp/nd_ng.txt"
expect_error "trainplan: error: $tmp/nd_ng.txt: \"--moe-router-group-topk\" needs \"--moe-router-num-groups\" (Megatron-Core)" \
    estimate --from-megatron "$tmp/nd_ng.txt" --gpus 64

# the loss (issue 17, thirteenth round): --cross-entropy-loss-fusion with
# --cross-entropy-fusion-impl te is TransformerEngine's cross-entropy, the
# gradient written into the bf16 logits: 2 B a logit, and the export writes
# the two arguments back. The native fusion, or none, is Megatron's
# vocabulary-parallel loss: the fp32 softmax, 4 B a logit (the native
# fusion's speed stays approximated; issue 17, fourteenth round). Llama 3 8B,
# 2048 tokens, TP 1: logits 4 x 2048 x 4096 (the fp32 head input) + 2 x 2048
# x 128256 bytes.
ce="--model llama-3-8b --gpus 8 --distributed-optimizer --global-batch 64 --ce-bytes-per-logit 2"
"$T" export --format megatron $ce >"$tmp/ce.txt" 2>/dev/null
"$T" estimate --from-megatron "$tmp/ce.txt" --gpus 8 --json >"$tmp/ce_back.json" 2>"$tmp/err"
got=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["conventions"]["ce_bytes_per_logit"], j["memory"]["stages"]["last"]["breakdown"]["logits"] == 4*2048*4096 + 2*2048*128256)' "$tmp/ce_back.json" 2>&1)
if [ "$got" = "2.0 True" ] && grep -qx -- "--cross-entropy-loss-fusion" "$tmp/ce.txt" &&
    grep -qx -- "--cross-entropy-fusion-impl te" "$tmp/ce.txt" && ! grep -q "approximated.*cross-entropy" "$tmp/err"; then ok; else
    bad "the Megatron round trip of TE's cross-entropy: $got $(cat "$tmp/err")"; fi
sed 's/^--cross-entropy-fusion-impl te$/--cross-entropy-fusion-impl native/' "$tmp/ce.txt" >"$tmp/ce_native.txt"
"$T" estimate --from-megatron "$tmp/ce_native.txt" --gpus 8 --json >"$tmp/ce_native.json" 2>"$tmp/err"
got=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["conventions"]["ce_bytes_per_logit"], j["memory"]["stages"]["last"]["breakdown"]["logits"] == 4*2048*4096 + 4*2048*128256)' "$tmp/ce_native.json" 2>&1)
if [ "$got" = "4.0 True" ] &&
    grep -q "approximated by trainplan's calibrated efficiencies: .*--cross-entropy-loss-fusion, --cross-entropy-fusion-impl" "$tmp/err"; then ok; else
    bad "the native fused loss: not 4 B a logit, or not approximated: $got $(cat "$tmp/err")"; fi
# torchtitan's loss and torch.compile (framework.c torchtitan; issue 17,
# fifteenth round). Both forms write compile as the plan runs: the model
# compiled unless --eager-elementwise, the loss when the plan holds it at 4
# B a logit, async TP for --tp-comm-overlap at TP > 1; the import reads them
# back. Uncompiled, torchtitan's loss holds 12 B a logit at TP 1 and 16
# under loss parallel at TP > 1: a plan at another figure is noted.
flat() { tr '\n' ' ' <"$1" | sed 's/ *# */ /g'; }
conv_of() { python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["conventions"]; print(c.get("ce_bytes_per_logit", 12), c.get("ce_bytes_per_logit_tp", 0), c.get("eager_elementwise", False), c.get("tp_comm_overlap", False))' "$1"; }
titan_trip() { # titan_trip FMT NAME FLAGS...: export, import, the same plan
    local fmt=$1 n=$2
    shift 2
    "$T" estimate "$@" --json >"$tmp/$n.plan.json" 2>/dev/null
    "$T" export --format "$fmt" "$@" >"$tmp/$n.$fmt" 2>/dev/null
    "$T" estimate --from-torchtitan "$tmp/$n.$fmt" --json >"$tmp/$n.back.json" 2>"$tmp/err"
    same "$tmp/$n.plan.json" "$tmp/$n.back.json" 2>"$tmp/why"
}
for fmt in torchtitan torchtitan-toml; do
    base=(--model llama-3.1-8b --gpus 8 --grad-dtype fp32 --global-batch 64)
    if titan_trip $fmt ce4 "${base[@]}" --fsdp --ce-bytes-per-logit 4 --ce-bytes-per-logit-tp 4 &&
        grep -Eq 'components ?= ?\["model", "loss"\]' "$tmp/ce4.$fmt" && ! grep -q "the loss at" "$tmp/ce4.$fmt"; then ok; else
        bad "$fmt: a 4-B loss is not written compiled and read back: $(cat "$tmp/why" "$tmp/err")"; fi
    if titan_trip $fmt eager "${base[@]}" --tp 2 --eager-elementwise --ce-bytes-per-logit-tp 16 &&
        grep -Eq '^enable = false$|CompileConfig\(enable=False\)' "$tmp/eager.$fmt" &&
        grep -q "Everything in the plan is expressed" "$tmp/eager.$fmt"; then ok; else
        bad "$fmt: eager element-wise ops are not written uncompiled and read back: $(cat "$tmp/why" "$tmp/err")"; fi
    if titan_trip $fmt async "${base[@]}" --tp 2 --tp-comm-overlap --ce-bytes-per-logit-tp 16 &&
        grep -Eq 'enable_async_tensor_parallel ?= ?(true|True)' "$tmp/async.$fmt" &&
        grep -q "Everything in the plan is expressed" "$tmp/async.$fmt"; then ok; else
        bad "$fmt: TP overlap is not written as async TP and read back: $(cat "$tmp/why" "$tmp/err")"; fi
    "$T" export --format $fmt "${base[@]}" --tp 2 --tp-comm-overlap --eager-elementwise >"$tmp/ea.txt" 2>/dev/null
    if flat "$tmp/ea.txt" | grep -qF "TP communication overlap with eager element-wise ops: torchtitan's async TP needs the model compiled (not written)" &&
        ! grep -Eq 'enable_async_tensor_parallel' "$tmp/ea.txt"; then ok; else
        bad "$fmt: async TP without a compiled model is not noted"; fi
    "$T" export --format $fmt "${base[@]}" --tp 2 >"$tmp/ce_tp.txt" 2>/dev/null
    if flat "$tmp/ce_tp.txt" | grep -qF "the loss at 12 B a logit: torchtitan's cross-entropy holds 16 (loss parallel, fp32 log-probabilities), or 4 compiled, so the run needs more memory than the plan (plan with --ce-bytes-per-logit-tp 16, or --framework torchtitan)"; then ok; else
        bad "the $fmt export does not note a 12-B loss at TP 2: $(sed -n '/Not expressible/,/^#$/p' "$tmp/ce_tp.txt")"; fi
    "$T" export --format $fmt "${base[@]}" --ce-bytes-per-logit 6 >"$tmp/ce6.txt" 2>/dev/null
    if flat "$tmp/ce6.txt" | grep -qF "the loss at 6 B a logit: torchtitan's cross-entropy holds 12 (the logits upcast to fp32), or 4 compiled, so the run needs more memory than the plan (plan with --ce-bytes-per-logit 12, or --framework torchtitan)"; then ok; else
        bad "the $fmt export does not note a 6-B loss: $(sed -n '/Not expressible/,/^#$/p' "$tmp/ce6.txt")"; fi
    "$T" export --format $fmt "${base[@]}" --tp 2 --framework torchtitan >"$tmp/ce_fw.txt" 2>/dev/null
    if ! grep -q "the loss at" "$tmp/ce_fw.txt"; then ok; else bad "the $fmt export notes the torchtitan profile's loss"; fi
done
# the import: compile (its default components hold "model" and "loss") from
# the file, else the recipe, else torchtitan's default (off). Llama 3.1 8B,
# 2048 tokens, TP 2: logits (4 x 2048 x 4096 + ce x 2048 x 128256) / 2 bytes
"$T" export --format torchtitan-toml --model llama-3.1-8b --gpus 8 --tp 2 --grad-dtype fp32 --global-batch 64 2>/dev/null | sed '/^\[compile\]$/,$d' >"$tmp/lp.toml"
"$T" export --format torchtitan --model llama-3.1-8b --gpus 8 --tp 2 --grad-dtype fp32 --global-batch 64 2>/dev/null | sed '/^    config.compile = CompileConfig($/,/^    )$/d' >"$tmp/lp.py"
loss_of() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); c=j["conventions"]; l=j["memory"]["stages"]["last"]["breakdown"]["logits"]; ce=(2*l - 4*2048*4096)/(2048*128256); print(c.get("ce_bytes_per_logit", 12), c.get("ce_bytes_per_logit_tp", 0), ce, c.get("eager_elementwise", False), c.get("tp_comm_overlap", False))' "$1"; }
ll=(
    "lp.toml||12 16.0 16.0 True False|assumed: no compile.enable: torchtitan's default, the model not compiled (its element-wise ops eager, --eager-elementwise)"
    "lp.toml|[compile]~enable = true|4.0 4.0 4.0 False False|assumed: the compiled loss under loss parallel (TP > 1) taken at 4 B a logit, as measured at TP 1"
    "lp.toml|[compile]~enable = true~components = [\"model\"]|12 16.0 16.0 False False|"
    "lp.toml|[compile]~enable = true~components = [\"loss\"]|4.0 4.0 4.0 True False|"
    "lp.toml|[compile]~enable = false|12 16.0 16.0 True False|"
    "lp.py||12 16.0 16.0 True False|"
    "lp.py|    config.compile.enable = True|4.0 4.0 4.0 False False|assumed: the compiled loss under loss parallel"
    "lp.py|    config.compile = CompileConfig(enable=True, components=[\"model\"], enable_async_tensor_parallel=True)|12 16.0 16.0 False True|"
    "lp.py|    config.compile = CompileConfig(~        enable=True,~        components=[\"loss\"],~    )|4.0 4.0 4.0 True False|"
    "lp.py|    config.compile = compile_config|12 16.0 16.0 True False|assumed: compile = compile_config (not a CompileConfig(...)): planned as not compiled"
)
for e in "${ll[@]}"; do
    IFS='|' read -r base add want msg <<<"$e"
    if [ "$base" = lp.toml ]; then
        { cat "$tmp/lp.toml"; printf '%s\n' "$add" | tr '~' '\n'; } >"$tmp/ll.toml"
        f=$tmp/ll.toml
    else
        sed '/^    return config$/d' "$tmp/lp.py" >"$tmp/ll.py"
        { printf '%s\n' "$add" | tr '~' '\n'; echo "    return config"; } >>"$tmp/ll.py"
        f=$tmp/ll.py
    fi
    "$T" estimate --from-torchtitan "$f" --json >"$tmp/ll.json" 2>"$tmp/err"
    got=$(loss_of "$tmp/ll.json" 2>&1)
    if [ "$got" = "$want" ] && { [ -z "$msg" ] || grep -qF -- "$msg" "$tmp/err"; }; then ok; else
        bad "torchtitan import, $base + '$add': reads $got, want $want ($msg): $(cat "$tmp/err")"; fi
done
# async TP in the TOML form (parallelism.enable_async_tensor_parallel):
# with the model compiled, TP overlap; without, torchtitan's error
sed 's/^\[parallelism\]$/[parallelism]\nenable_async_tensor_parallel = true/' "$tmp/lp.toml" >"$tmp/as.toml"
{ cat "$tmp/as.toml"; printf '[compile]\nenable = true\ncomponents = ["model"]\n'; } >"$tmp/as2.toml"
"$T" estimate --from-torchtitan "$tmp/as2.toml" --json >"$tmp/as2.json" 2>"$tmp/err"
if [ "$(loss_of "$tmp/as2.json")" = "12 16.0 16.0 False True" ]; then ok; else bad "TOML async TP: $(loss_of "$tmp/as2.json") $(cat "$tmp/err")"; fi
if ! "$T" estimate --from-torchtitan "$tmp/as.toml" --json >/dev/null 2>"$tmp/err" &&
    grep -qF '"parallelism.enable_async_tensor_parallel" needs "model" in compile.components and compile.enable (torchtitan refuses async TP without it)' "$tmp/err"; then ok; else
    bad "async TP without compile is not an error: $(cat "$tmp/err")"; fi
# disable_loss_parallel (TOML form): the logits replicate over TP, which the
# plan shards: 12 B a logit, approximated and said
sed 's/^\[parallelism\]$/[parallelism]\ndisable_loss_parallel = true/' "$tmp/lp.toml" >"$tmp/dlp.toml"
"$T" estimate --from-torchtitan "$tmp/dlp.toml" --json >"$tmp/dlp.json" 2>"$tmp/err"
if [ "$(loss_of "$tmp/dlp.json")" = "12 12.0 12.0 True False" ] &&
    grep -q "approximated by trainplan's calibrated efficiencies: .*parallelism.disable_loss_parallel" "$tmp/err" &&
    grep -qF "disable_loss_parallel replicates the logits over TP: trainplan plans them sharded, TP times less loss memory than the run's" "$tmp/err"; then ok; else
    bad "disable_loss_parallel: $(loss_of "$tmp/dlp.json") $(cat "$tmp/err")"; fi
# a recipe's compile (llama3_405b: the model and the loss, with async TP)
sed 's/= llama3_8b()/= llama3_405b()/' "$tmp/lp.py" >"$tmp/r405.py"
"$T" estimate --from-torchtitan "$tmp/r405.py" --json >"$tmp/r405.json" 2>"$tmp/err"
if [ "$(loss_of "$tmp/r405.json")" = "4.0 4.0 4.0 False True" ] && grep -qF "assumed: the recipe llama3_405b's compile: the model compiled, the loss compiled" "$tmp/err"; then ok; else
    bad "config = llama3_405b(): $(loss_of "$tmp/r405.json") $(cat "$tmp/err")"; fi
# without the fusion, Megatron's vocabulary-parallel loss: 4 B a logit too
grep -v -- "--cross-entropy-" "$tmp/ce.txt" >"$tmp/ce_plain.txt"
"$T" estimate --from-megatron "$tmp/ce_plain.txt" --gpus 8 --json >"$tmp/ce_plain.json" 2>"$tmp/err"
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["conventions"]["ce_bytes_per_logit"])' "$tmp/ce_plain.json" 2>&1)
if [ "$got" = "4.0" ] && ! grep -q "cross-entropy" "$tmp/err"; then ok; else
    bad "the unfused Megatron loss: $got $(cat "$tmp/err")"; fi
sed 's/^--cross-entropy-fusion-impl te$/--cross-entropy-fusion-impl fast/' "$tmp/ce.txt" >"$tmp/ce_bad.txt"
n=$(grep -n -- "--cross-entropy-fusion-impl" "$tmp/ce_bad.txt" | cut -d: -f1)
expect_error "trainplan: error: $tmp/ce_bad.txt:$n:29: \"--cross-entropy-fusion-impl\" must be one of native, te (got \"fast\")" \
    estimate --from-megatron "$tmp/ce_bad.txt" --gpus 8


# ---------------------------------------------------------------- a configuration that starts from a recipe
# torchtitan/models/*/config_registry.py @ b5bcd76c: llama3_70b() sets the
# 70B flavor, 8 x 8192 tokens a micro-batch at a context of 8192, TP 8 and
# FullAC; a file that starts from it and sets only the steps runs all that.
recipe_file() { # FILE RECIPE [LINES...]: a configuration starting from RECIPE
    local f=$1 r=$2
    shift 2
    {
        echo "from torchtitan.config import ParallelismConfig"
        echo "from torchtitan.trainer import Trainer"
        echo
        echo
        echo "def my_config() -> Trainer.Config:"
        echo "    config = $r()"
        for l in "$@"; do echo "    $l"; done
        echo "    return config"
    } >"$f"
}
lay_of() { # JSON: the model's parameters, the layout fields a recipe sets, the precision
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); l = d["layout"]
print(d["params"]["total"], l["tp"], l["pp"], l["ep"], l["schedule"], l["recompute"],
      l["micro_batch"], l["seq_len"], d["training"]["precision"])' "$1" 2>&1
}
# recipe_case NAME GPUS WANT RECIPE [LINES...]: a configuration starting
# from RECIPE, imported at GPUS, gives WANT (lay_of)
recipe_case() {
    local name=$1 gpus=$2 want=$3
    shift 3
    recipe_file "$tmp/rc.py" "$@"
    "$T" estimate --from-torchtitan "$tmp/rc.py" --gpus "$gpus" --json >"$tmp/rc.json" 2>"$tmp/err"
    if [ "$(lay_of "$tmp/rc.json")" = "$want" ]; then ok; else
        bad "$name: $(lay_of "$tmp/rc.json") $(cat "$tmp/err")"; fi
}
recipe_case "config = llama3_70b()" 64 "70553706496 8 1 1 1f1b full 8 8192 bf16" \
    llama3_70b "config.training.steps = 100"
# a field of the recipe's ParallelismConfig changed: the rest stays the recipe's
recipe_case "llama3_70b() with TP 4" 64 "70553706496 4 1 1 1f1b selective 8 8192 bf16" \
    llama3_70b "config.parallelism.tensor_parallel_degree = 4" \
    "config.activation_checkpoint = SelectiveAC.Config()"
# a whole ParallelismConfig(...) replaces the recipe's: TP back to torchtitan's 1
recipe_case "llama3_70b() with a whole ParallelismConfig" 64 \
    "70553706496 1 1 1 1f1b full 8 8192 bf16" \
    llama3_70b "config.parallelism = ParallelismConfig(data_parallel_shard_degree=64)"
# llama3_405b's model_spec carries Float8LinearConverter; a model_registry(...)
# given whole without one is bf16 again
recipe_case "config = llama3_405b()" 512 "405853388800 8 1 1 1f1b full 2 8192 fp8" llama3_405b
recipe_case "llama3_405b() with a bf16 model_spec" 512 "405853388800 8 1 1 1f1b full 2 8192 bf16" \
    llama3_405b 'config.model_spec = model_registry("405B")'
# qwen3_32b: the 32B flavor (64 layers, hidden 5120, ffn 25600, vocab 151,936
# untied: 32.76 B), 2 x 4096 tokens, FullAC
recipe_case "config = qwen3_32b()" 64 "32762123264 1 1 1 1f1b full 2 4096 bf16" qwen3_32b
# torchtitan's qwen3 8B flavor is the qwen3-8b preset, by name
recipe_file "$tmp/rc8.py" qwen3_14b 'config.model_spec = model_registry("8B")'
"$T" estimate --from-torchtitan "$tmp/rc8.py" --gpus 8 --json >"$tmp/rc8.json" 2>"$tmp/err"
got=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["model"]; print(m["name"], m["reshaped"])' "$tmp/rc8.json" 2>&1)
if [ "$got" = "qwen3-8b False" ] && [ "$(lay_of "$tmp/rc8.json")" = "8190735360 1 1 1 1f1b full 4 4096 bf16" ]; then ok
else bad "qwen3 8B flavor: $got $(lay_of "$tmp/rc8.json") $(cat "$tmp/err")"; fi
# ... and the 4B, 14B, 32B and 235B-A22B flavors their presets (from
# qwen3_30b_a3b's recipe: FSDP over the GPUs, no EP)
for fl in 4B 14B 32B 235B-A22B; do
    recipe_file "$tmp/rcq.py" qwen3_30b_a3b "config.model_spec = model_registry(\"$fl\")"
    "$T" estimate --from-torchtitan "$tmp/rcq.py" --gpus 64 --json >"$tmp/rcq.json" 2>"$tmp/err"
    got=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["model"]; print(m["name"], m["reshaped"])' "$tmp/rcq.json" 2>&1)
    want="qwen3-$(echo "$fl" | tr 'A-Z' 'a-z') False"
    if [ "$got" = "$want" ]; then ok; else bad "qwen3 $fl flavor: $got $(cat "$tmp/err")"; fi
done
# qwen3_0_6b and qwen3_1_7b: their flavors by shape (0.6B: 28 layers, dim
# 1024, 16 heads of 128, hidden 3072, tied: 596,049,920, the model card's
# 0.6B, 0.44B without the embedding; 1.7B: dim 2048, hidden 6144:
# 1,720,574,976, the card's 1.7B, 1.4B), 4 x 4096 tokens, SelectiveAC
recipe_case "config = qwen3_0_6b()" 8 "596049920 1 1 1 1f1b selective 4 4096 bf16" qwen3_0_6b
recipe_case "config = qwen3_1_7b()" 8 "1720574976 1 1 1 1f1b selective 4 4096 bf16" qwen3_1_7b
# a recipe whose settings trainplan does not know is refused, not read as defaults
recipe_file "$tmp/rcx.py" llama3_8b_mxfp8
expect_error "trainplan: error: $tmp/rcx.py:6:1: \"config\" starts from llama3_8b_mxfp8(), a torchtitan recipe whose settings trainplan does not know (it knows llama3_8b, llama3_70b, llama3_405b, deepseek_v3_16b, deepseek_v3_671b, qwen3_0_6b, qwen3_1_7b, qwen3_14b, qwen3_30b_a3b, qwen3_32b, gpt_oss_20b, gpt_oss_120b: config_registry.py @ b5bcd76c); write the configuration whole instead" \
    estimate --from-torchtitan "$tmp/rcx.py" --gpus 8

finish
