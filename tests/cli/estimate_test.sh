#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# estimate_test.sh: end-to-end tests of `trainplan estimate`, `presets`,
# `version`, `help`: the JSON contract (docs/cli.md), exit codes, derived
# defaults, and every bad-input case with its exact stderr line.
#
#   bash tests/cli/estimate_test.sh /path/to/trainplan
#
# TP_SOURCE_DIR (set by ctest) locates docs/trainplan.1. Needs python3 for
# JSON parsing. Prints one line per failure and a final "N passed, M failed".
set -u

T=${1:?usage: estimate_test.sh /path/to/trainplan}
SRC=${TP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/lib.sh"

# check_json NAME PYTHON_EXPR...: run after `run ... --json`; each expression
# is evaluated with j = the parsed object and must be true.
check_json() {
    local name=$1
    shift
    json_check "$name" 0 "$@"
}

# ---------------------------------------------------------------- usage
run
if [ "$rc" -eq 2 ] && grep -q '^usage: trainplan <command>' "$tmp/err"; then ok; else
    bad "no arguments: exit $rc, want 2 and usage on stderr"; fi
run --help
if [ "$rc" -eq 0 ] && grep -q 'estimate' "$tmp/out"; then ok; else bad "--help: exit $rc"; fi
run version
if [ "$rc" -eq 0 ] && grep -Eq '^trainplan [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out"; then ok; else
    bad "version: exit $rc, [$(cat "$tmp/out")]"; fi
run help estimate
if [ "$rc" -eq 0 ] && grep -q -- '--global-batch-tokens' "$tmp/out"; then ok; else
    bad "help estimate: exit $rc"; fi
expect_error 'trainplan: error: unknown command "estimat" (did you mean "estimate"?)' estimat

# --help / -h anywhere after the command, even after bad flags
for args in "--help" "-h" "--tp x --help" "--gpus 8 -h"; do
    # shellcheck disable=SC2086
    run estimate $args
    if [ "$rc" -eq 0 ] && grep -q '^usage: trainplan estimate' "$tmp/out"; then ok; else
        bad "estimate $args: exit $rc, want the help"; fi
done

# ---------------------------------------------------------------- --help lists every flag
flags="--model --layers --hidden --heads --kv-heads --head-dim --ffn-hidden --vocab --mlp --norm
--tie-embeddings --no-tie-embeddings --experts --topk --moe-ffn-hidden --shared-experts
--bias --position --max-positions --rope-theta --rope-scaling --rope-factor --norm-eps
--shared-ffn-hidden --moe-first-dense --moe-layer-freq
--q-lora-rank --kv-lora-rank --qk-rope-head-dim --qk-nope-head-dim --v-head-dim --mtp-layers
--sliding-window --global-every --attention-chunk --qk-norm --attn-sinks --router-bias --moe-imbalance
--moe-capacity-factor --moe-router-groups --moe-router-group-topk --image-tokens --freeze-vision
--seq-len --micro-batch --global-batch --global-batch-tokens --local-batch --packed-seq-len --gpu --gpus --gpus-per-node
--gpu-memory-gb --gpu-memory-gib --peak-tflops --nic-gbps --price --hw-profile --fitted-gemm --tp --pp --cp --ep --vpp --sp --no-sp
--schedule --first-stage-layers --last-stage-layers --pp-split --etp --zero --fsdp --distributed-optimizer
--recompute --recompute-every --precision --grad-dtype --optimizer --no-master-weights
--no-flash-attn --dropout --fused-ce --pad-vocab --fp8-param-gather --recompute-modules --offload-optimizer --host-memory-gb --pcie-gbps --host-mem-bw-gbps --recompute-block-layers --offload-params --nvme-gbps --offload-activations --fp8-recipe --attn-flops --act-model --ckpt-model
--coll-model --tp-comm-overlap --tp-overlap-chunked --no-dp-comm-overlap --attn-ampere-kernel --sac-ops --eager-elementwise --eager-experts --no-pp-scatter-gather
--extra-param-bytes --ce-bytes-per-logit --ce-bytes-per-logit-tp --cuda-context-gb --comm-buffer-gb --fragmentation --framework --unfused-full-matrix --grouped-gemm --tp-gathered-input --moe-a2a-overlap --moe-sync-free --moe-node-dispatch --fp8-activation-cache --fp8-hp-saved-inputs --no-fp8-weight-cache --json
--from-megatron --from-deepspeed --from-torchtitan --from-nemo --markdown --csv --svg --force --measured-tokens-per-s --params"
run estimate --help
cp "$tmp/out" "$tmp/help"
man="$SRC/docs/trainplan.1"
for fl in $flags; do
    if grep -Eq -- "^  $fl( |\$)" "$tmp/help"; then ok; else bad "estimate --help does not list $fl"; fi
    roff=$(printf '%s' "$fl" | sed 's/-/\\-/g')
    if [ -f "$man" ] && grep -Fq -- "$roff" "$man"; then ok; else bad "docs/trainplan.1 does not document $fl"; fi
done
# every flag in the help shows a default; every N / X flag shows a [unit]
nodef=$(python3 - "$tmp/help" <<'EOF'
import re, sys
entries, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("  --"):
        cur = [line]
        entries.append(cur)
    elif cur is not None and line.startswith(" " * 30):
        cur.append(line)
    else:
        cur = None
for e in entries:
    text = " ".join(x.strip() for x in e)
    flag = text.split()[0]
    numeric = re.match(r"--[a-z0-9-]+ [NXK] ", text)
    if "(default: " not in text or (numeric and not re.search(r"\[[^]]+\]", text)):
        print(flag)
EOF
)
if [ -z "$nodef" ]; then ok; else bad "flags without a default or unit in the help: $nodef"; fi
# and the help lists no flag outside the contract
extra=$(grep -Eo '^  --[a-z0-9-]+' "$tmp/help" | tr -d ' ' | sort -u |
    while read -r f; do case " $(echo $flags) " in *" $f "*) ;; *) echo "$f" ;; esac; done)
if [ -z "$extra" ]; then ok; else bad "undocumented flags in the help: $extra"; fi

# ---------------------------------------------------------------- the JSON contract
run estimate --json
check_json "default estimate: contract keys and types" \
    'integer(j["params"]["total"]) and j["params"]["total"] == 8030261248' \
    'integer(j["params"]["active"]) and j["params"]["active"] == 8030261248' \
    'all(integer(v) for v in j["params"]["breakdown"].values())' \
    'sum(j["params"]["breakdown"].values()) == j["params"]["total"]' \
    'all(num(j["flops"][k]) for k in ["model_per_token", "hardware_per_token", "six_n_per_token", "model_per_step"])' \
    'j["flops"]["attn_convention"] == "causal"' \
    'j["flops"]["model_per_token"] > 0 and j["flops"]["six_n_per_token"] == 6 * 8030261248' \
    'all(integer(j["memory"][k]) for k in ["peak_bytes", "capacity_bytes", "headroom_bytes", "stage"])' \
    'isinstance(j["memory"]["fits"], bool)' \
    'sorted(j["memory"]["breakdown"]) == sorted(["weights", "weights_gathered", "grads", "optimizer", "activations", "logits", "comm_buffers", "framework", "fragmentation"])' \
    'all(integer(v) and v >= 0 for v in j["memory"]["breakdown"].values())' \
    'abs(sum(j["memory"]["breakdown"].values()) - j["memory"]["peak_bytes"]) <= 9' \
    'j["memory"]["headroom_bytes"] == j["memory"]["capacity_bytes"] - j["memory"]["peak_bytes"] or abs(j["memory"]["headroom_bytes"] - (j["memory"]["capacity_bytes"] - j["memory"]["peak_bytes"])) <= 2' \
    'all(integer(j["layout"][k]) for k in ["tp", "pp", "cp", "ep", "dp", "vpp", "zero", "micro_batch", "global_batch", "grad_accum", "seq_len", "num_gpus", "gpus_per_node"])' \
    'isinstance(j["layout"]["sp"], bool) and j["layout"]["sp"] is False' \
    'j["layout"]["schedule"] == "1f1b" and j["layout"]["recompute"] == "none"' \
    'j["layout"]["num_gpus"] == 1 and j["layout"]["dp"] == 1 and j["layout"]["global_batch"] == 1' \
    'j["layout"]["seq_len"] == 2048 and j["layout"]["gpus_per_node"] == 8' \
    'j["model"]["name"] == "llama-3-8b" and j["model"]["layers"] == 32 and j["model"]["kv_heads"] == 8' \
    'j["gpu"]["name"] == "h100-sxm" and num(j["gpu"]["peak_flops_per_s"])' \
    'j["time"] is not None and num(j["time"]["step_s"]) and j["time"]["step_s"] > 0' \
    'sorted(j["time"]["breakdown"]) == sorted(["compute", "recompute", "tp_comm", "cp_comm", "ep_comm", "pp_comm", "bubble", "dp_comm", "optimizer"])' \
    'all(num(v) and v >= 0 for v in j["time"]["breakdown"].values())' \
    'close(sum(j["time"]["breakdown"].values()), j["time"]["step_s"], 1e-12)' \
    'sorted(j["time"]["throughput"]) == sorted(["tokens_per_s", "tokens_per_s_per_gpu", "model_tflops_per_gpu", "mfu", "hfu"])' \
    'close(j["time"]["throughput"]["tokens_per_s"], j["layout"]["global_batch"] * j["layout"]["seq_len"] / j["time"]["step_s"], 1e-12)' \
    'close(j["time"]["throughput"]["mfu"], j["time"]["throughput"]["model_tflops_per_gpu"] * 1e12 / j["gpu"]["peak_flops_per_s"], 1e-12)' \
    'j["time"]["throughput"]["hfu"] == j["time"]["throughput"]["mfu"]' \
    'j["time"]["bottleneck"] == "optimizer step"' \
    'isinstance(j["units"], dict) and "memory" in j["units"]' \
    'isinstance(j["reason"], str)'

# docs/cli.md's JSON example: every literal value it shows for a key is the
# value the program prints for that key.
run estimate --model llama-3-8b --gpus 8 --tp 2 --pp 2 --global-batch 32 --json
cp "$tmp/out" "$tmp/cli_sample.json"
pycheck "docs/cli.md JSON example" "$SRC/docs/cli.md" "$tmp/cli_sample.json" <<'PY'
import json, re, sys
doc = open(sys.argv[1]).read()
cmd = "$ trainplan estimate --model llama-3-8b --gpus 8 --tp 2 --pp 2 --global-batch 32 --json\n"
sample = doc[doc.index(cmd) + len(cmd):]
sample = sample[:sample.index("```")]
j = json.load(open(sys.argv[2]))
def find(o, key):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == key:
                yield v
            yield from find(v, key)
    elif isinstance(o, list):
        for v in o:
            yield from find(v, key)
seen = 0
for key, lit in re.findall(r'"(\w+)": ("[^"]*"|-?[0-9][0-9.e+-]*|true|false|null)', sample):
    want = json.loads(lit)
    got = list(find(j, key))
    same = lambda g: g == want if isinstance(want, (str, bool)) or want is None or isinstance(g, bool) \
        else isinstance(g, (int, float)) and abs(g - want) <= 1e-12 * abs(want)
    assert any(same(g) for g in got), "docs/cli.md shows %s = %r, the program prints %r" % (key, want, got)
    seen += 1
assert seen >= 10, "only %d values found in the sample" % seen
PY

# does not fit: still exit 0, fits false, a reason
run estimate --json --gpus 1
check_json "llama-3-8b on one GPU does not fit" \
    'j["memory"]["fits"] is False' 'j["memory"]["headroom_bytes"] < 0' 'len(j["reason"]) > 0'
run estimate --gpus 1
if [ "$rc" -eq 0 ] && grep -q 'DOES NOT FIT' "$tmp/out"; then ok; else bad "text: no DOES NOT FIT (exit $rc)"; fi
# the fix, search's words for a layout that does not fit (issue 19): the
# text under the verdict, the JSON's "oom" object (null when it fits)
if grep -qx '  fix (one change)           needs PP >= 2 (2 GPUs) or TP >= 2 (2 GPUs)' "$tmp/out"; then ok
else bad "text: no OOM fix line: $(grep -A1 'fix (one' "$tmp/out")"; fi
run estimate --json --gpus 1
check_json "estimate JSON carries the OOM fix" \
    'j["oom"]["binding"] == "optimizer state 89.7 GiB > 79.6 GiB on stage 0, 52.5 GiB over; needs PP >= 2 (2 GPUs) or TP >= 2 (2 GPUs)"' \
    'j["oom"]["fix"] == "needs PP >= 2 (2 GPUs) or TP >= 2 (2 GPUs)"' \
    '[j["oom"][k] for k in ("need_tp", "need_tp_gpus", "need_pp", "need_pp_gpus", "need_cp", "need_zero", "need_full_recompute")] == [2, 2, 2, 2, 0, -1, False]'

# fits
run estimate --json --gpus 8 --tp 2 --pp 2 --global-batch 32
check_json "llama-3-8b on 8 GPUs, TP 2 PP 2 fits" \
    'j["memory"]["fits"] is True' 'j["reason"] == ""' 'j["layout"]["dp"] == 2' \
    'j["layout"]["grad_accum"] == 16' 'j["layout"]["sp"] is True' \
    'j["memory"]["headroom_bytes"] > 0' 'j["oom"] is None'
run estimate --gpus 8 --tp 2 --pp 2 --global-batch 32
if [ "$rc" -eq 0 ] && grep -q 'FITS' "$tmp/out" && ! grep -q 'DOES NOT FIT\|fix (one change)' "$tmp/out"; then ok
else bad "text: no FITS verdict (exit $rc)"; fi

# text report: sections, labelled units, step time said to be absent when it is
run estimate --gpus 8 --zero 1
for want in '^Model: llama-3-8b' '8,030,261,248' '^Layout' '^FLOPs' '^Memory on the heaviest GPU' \
    'GiB (2^30 B)' 'GB (1e9 B)' '^Step time' 'causal'; do
    if grep -q -- "$want" "$tmp/out"; then ok; else bad "text report lacks [$want]"; fi
done
# a preset's name on another shape says so; the preset's own shape does not
if grep -q '^Model: llama-3-8b$' "$tmp/out"; then ok; else bad "the preset's shape called reshaped"; fi
run estimate --gpus 8 --layers 16
if grep -q "^Model: llama-3-8b, reshaped: not the preset's shape$" "$tmp/out"; then ok
else bad "--layers 16: the report does not say the preset was reshaped"; fi
run estimate --gpus 8 --layers 32 --hidden 4096
if grep -q '^Model: llama-3-8b$' "$tmp/out"; then ok; else bad "flags equal to the preset called reshaped"; fi
run estimate --gpus 8 --model mixtral-8x7b --topk 1 --markdown
if grep -q "^## trainplan estimate: mixtral-8x7b, reshaped (not the preset's shape) on 8" "$tmp/out"
then ok; else bad "--markdown: the preset's reshape not said"; fi
# and the JSON: model.reshaped beside the preset's name
run estimate --gpus 8 --layers 16 --json
check_json "--layers 16: model.reshaped" 'j["model"]["name"] == "llama-3-8b" and j["model"]["reshaped"] is True'
run estimate --gpus 8 --layers 32 --hidden 4096 --json
check_json "the preset's shape: model.reshaped false" 'j["model"]["reshaped"] is False'
# the step time is computed for every valid configuration ("time" is never
# null), and the report shows it
run estimate --json --gpus 8 --zero 1
check_json "step time computed" 'j["time"] is not None and j["time"]["step_s"] > 0'
run estimate --gpus 8 --zero 1
if grep -q 'MFU' "$tmp/out" && grep -q 'tokens/s' "$tmp/out" && ! grep -q 'not computed' "$tmp/out"; then
    ok
else
    bad "the report lacks MFU / tokens/s or says the step time is not computed"
fi

# ---------------------------------------------------------------- derived defaults and overrides
run estimate --json --gpus 8 --micro-batch 2
check_json "global batch defaults to micro-batch x DP" \
    'j["layout"]["global_batch"] == 16' 'j["layout"]["grad_accum"] == 1'
run estimate --json --gpus 8 --seq-len 4096 --global-batch-tokens 4194304
check_json "--global-batch-tokens" \
    'j["layout"]["global_batch"] == 1024' 'j["layout"]["global_batch_tokens"] == 4194304' \
    'j["layout"]["grad_accum"] == 128'
run estimate --json --gpus 8 --tp 2 --no-sp
check_json "--no-sp" 'j["layout"]["sp"] is False'
run estimate --json --gpus 8 --tp=2 --sp
check_json "--tp=2 --sp" 'j["layout"]["tp"] == 2 and j["layout"]["sp"] is True'
run estimate --json --gpus 8 --pp 2 --vpp 2 --global-batch 16
check_json "--vpp 2 implies interleaved" 'j["layout"]["schedule"] == "interleaved"' \
    'j["layout"]["vpp"] == 2'
run estimate --json --gpus 8 --fsdp
check_json "--fsdp is ZeRO 3" 'j["layout"]["zero"] == 3'
run estimate --json --gpus 8 --distributed-optimizer
check_json "--distributed-optimizer is ZeRO 1" 'j["layout"]["zero"] == 1'
run estimate --json --gpus 8 --fsdp --zero 2
check_json "the last of --fsdp / --zero wins" 'j["layout"]["zero"] == 2'
run estimate --json --gpu-memory-gb 100 --peak-tflops 500 --price 2.5 --gpus-per-node 4
check_json "GPU overrides" 'j["memory"]["capacity_bytes"] == 100000000000' \
    'j["gpu"]["peak_flops_per_s"] == 5e14' 'j["gpu"]["price_per_gpu_hour"] == 2.5' \
    'j["layout"]["gpus_per_node"] == 4'
# a slower NIC: the inter-node ring of 2 nodes runs at the 8 NICs of a node
# at NCCL's 0.94 of line rate (docs/model.md section 8), no longer at NVLink's
run estimate --json --gpus 16 --zero 1 --nic-gbps 25
check_json "--nic-gbps" 'j["gpu"]["inter_bw_bytes_per_s"] == 25e9' \
    'j["collectives"][0]["nodes"] == 2' 'close(j["collectives"][0]["busbw_bytes_per_s"], 8 * 0.94 * 25e9, 1e-12)'
run estimate --json --gpu-memory-gib 100
check_json "--gpu-memory-gib" 'j["memory"]["capacity_bytes"] == 107374182400'
run estimate --json --layers 16 --no-tie-embeddings
check_json "--layers override" 'j["model"]["layers"] == 16' \
    'j["params"]["total"] == 8030261248 - 16 * 218112000'
run estimate --json --tie-embeddings
check_json "--tie-embeddings" 'j["params"]["total"] == 8030261248 - 525336576' \
    'j["model"]["tie_embeddings"] is True'
run estimate --json --optimizer adamw-bf16 --no-master-weights --grad-dtype fp32 --precision fp8 \
    --recompute full --recompute-every 4 --fused-ce --attn-flops full --act-model korthikanti \
    --ckpt-model seed001 --coll-model simple --fragmentation 0 --cuda-context-gb 0 \
    --comm-buffer-gb 0 --no-flash-attn --dropout --pad-vocab 128
check_json "training and convention switches" \
    'j["training"]["optimizer"] == "adamw-bf16" and j["training"]["master_weights"] is False' \
    'j["training"]["grad_dtype"] == "fp32" and j["training"]["precision"] == "fp8"' \
    'j["layout"]["recompute"] == "full" and j["layout"]["recompute_every"] == 4' \
    'j["training"]["fused_ce"] is True and j["training"]["flash_attn"] is False' \
    'j["training"]["dropout"] is True and j["training"]["pad_vocab_to"] == 128' \
    'j["flops"]["attn_convention"] == "full" and j["conventions"]["act_model"] == "korthikanti"' \
    'j["conventions"]["ckpt_model"] == "seed001" and j["conventions"]["coll_model"] == "simple"' \
    'j["memory"]["breakdown"]["framework"] == 0 and j["memory"]["breakdown"]["fragmentation"] == 0' \
    'j["flops"]["hardware_per_token"] > j["flops"]["model_per_token"]'

# a Hugging Face config.json for Llama-3-8B gives the same count
cat >"$tmp/config.json" <<'EOF'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
 "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
 "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
 "tie_word_embeddings": false, "rms_norm_eps": 1e-05, "rope_theta": 500000.0}
EOF
run estimate --json --model "$tmp/config.json"
check_json "HF config.json import" 'j["params"]["total"] == 8030261248'

# MoE preset: total vs active
run estimate --json --model mixtral-8x7b --gpus 8 --ep 8
check_json "mixtral-8x7b with EP 8" 'j["params"]["total"] == 46702792704' \
    'j["params"]["active"] == 12879925248' 'j["layout"]["ep"] == 8'

# ---------------------------------------------------------------- presets
run presets --json
check_json "presets --json" \
    'any(m["name"] == "llama-3-8b" and m["params_total"] == 8030261248 for m in j["models"])' \
    'all(isinstance(m["name"], str) and integer(m["params_total"]) and integer(m["params_active"]) for m in j["models"])' \
    'all(isinstance(m["source"], str) and m["source"] for m in j["models"])' \
    'set(["a100-40gb", "a100-80gb", "h100-sxm", "h100-pcie", "h800", "h200", "b200", "gb200", "mi300x"]) <= set(g["name"] for g in j["gpus"])' \
    'set(["llama-2-7b", "llama-3-8b", "llama-3.1-405b", "gpt3-175b", "mixtral-8x7b"]) <= set(m["name"] for m in j["models"])' \
    'all(num(g["peak_bf16_flops_per_s"]) and integer(g["memory_bytes"]) and num(g["price_per_gpu_hour"]) for g in j["gpus"])' \
    '{g["name"]: g["hw_profile"] for g in j["gpus"]} == {"a100-40gb": "a100-40gb", "a100-80gb": "a100-80gb", "b200": "b200", "gb200": "gb200", "h100-96gb-500w": "h100-96gb-500w", "h100-pcie": None, "h100-sxm": "h100-sxm", "h200": "h200", "h800": "h100-sxm", "mi300x": "mi300x"}' \
    '{g["name"]: (g["host_link_bytes_per_s"], g["host_mem_bytes_per_node"], g["host_mem_bw_bytes_per_s"]) for g in j["gpus"] if g["host_link_bytes_per_s"] is not None} == {"a100-40gb": (25e9, 1000e9, 300e9), "a100-80gb": (25e9, 2000e9, 300e9), "gb200": (173e9, 17280e9, 13450e9)}' \
    'all(g["host_mem_bw_bytes_per_s"] is None for g in j["gpus"] if g["name"] in ("h100-sxm", "b200"))'
run presets
if [ "$rc" -eq 0 ] && grep -q 'llama-3-8b' "$tmp/out" && grep -q 'h100-sxm' "$tmp/out" &&
    grep -q 'TFLOP/s' "$tmp/out" && grep -q 'GiB' "$tmp/out"; then ok; else bad "presets: exit $rc"; fi
expect_error 'trainplan: error: unknown flag "--jsn" (did you mean "--json"?)' presets --jsn

# ---------------------------------------------------------------- bad input: exact messages, exit 2
expect_error 'trainplan: error: --tp: expected an integer, got "x"' estimate --tp x
expect_error 'trainplan: error: --tp: 0 is out of range [1, 1048576]' estimate --tp 0
expect_error 'trainplan: error: --tp: -2 is out of range [1, 1048576]' estimate --tp -2
expect_error 'trainplan: error: --micro-batch: -1 is out of range [1, 1099511627776]' \
    estimate --micro-batch -1
expect_error 'trainplan: error: --seq-len: expected an integer, got "1.5"' estimate --seq-len 1.5
expect_error 'trainplan: error: --seq-len: 0 is out of range [1, 134217728]' estimate --seq-len 0
expect_error 'trainplan: error: --tp: 3 does not divide the number of attention heads (32)' \
    estimate --gpus 3 --tp 3
expect_error 'trainplan: error: --tp: 16 does not divide the number of key/value heads (8)' \
    estimate --gpus 16 --tp 16
expect_error 'trainplan: error: --pp: 33 is larger than the number of layers (32)' \
    estimate --gpus 33 --pp 33
expect_error 'trainplan: error: --gpus: 6 GPUs are not divisible by tp*pp*cp = 4*1*1' \
    estimate --gpus 6 --tp 4
expect_error 'trainplan: error: --ep: 3 does not divide the number of experts (8)' \
    estimate --model mixtral-8x7b --gpus 3 --ep 3
expect_error 'trainplan: error: --ep: 2 needs a mixture-of-experts model (experts is 0)' \
    estimate --gpus 2 --ep 2
expect_error 'trainplan: error: --global-batch: 12 is not divisible by micro-batch * dp = 2 * 8' \
    estimate --gpus 8 --micro-batch 2 --global-batch 12
expect_error "trainplan: error: --model: unknown model \"llama-3-9b\" (did you mean \"llama-3-8b\"?); run 'trainplan presets' to list them" \
    estimate --model llama-3-9b
expect_error "trainplan: error: --gpu: unknown gpu \"h100\" (did you mean \"h100-sxm\"?); run 'trainplan presets' to list them" \
    estimate --gpu h100
expect_error 'trainplan: error: unknown flag "--tpp" (did you mean "--tp"?)' estimate --tpp 2
expect_error 'trainplan: error: unknown flag "--global-bach" (did you mean "--global-batch"?)' \
    estimate --global-bach 8
expect_error 'trainplan: error: unknown flag "--frobnicate"' estimate --frobnicate
expect_error 'trainplan: error: --tp needs a value' estimate --tp
expect_error 'trainplan: error: --tp needs a value' estimate --tp --pp 2
expect_error 'trainplan: error: --gpus: 99999999999 is out of range [1, 1048576]' \
    estimate --gpus 99999999999
expect_error 'trainplan: error: --layers: 99999999999999999999 is out of range [1, 100000]' \
    estimate --layers 99999999999999999999
expect_error 'trainplan: error: --global-batch-tokens: 1000 tokens is not a multiple of the sequence length 2048 (--seq-len)' \
    estimate --global-batch-tokens 1000
expect_error 'trainplan: error: --precision: unknown value "bf17" (did you mean "bf16"? expected one of bf16|fp16|fp8)' \
    estimate --precision bf17
expect_error 'trainplan: error: --schedule: unknown value "zigzag" (expected one of 1f1b|interleaved|gpipe|dualpipe)' \
    estimate --schedule zigzag
expect_error 'trainplan: error: --zero: 4 is out of range [0, 3]' estimate --zero 4
expect_error 'trainplan: error: --fragmentation: 2 is out of range (0, or [1e-06, 1])' estimate --fragmentation 2
expect_error 'trainplan: error: --ce-bytes-per-logit: 65 is out of range (0, or [1e-06, 64])' estimate --ce-bytes-per-logit 65
expect_error 'trainplan: error: --extra-param-bytes: expected a number, got "nan"' estimate --extra-param-bytes nan
expect_error 'trainplan: error: --gpu-memory-gb: expected a number, got "nan"' \
    estimate --gpu-memory-gb nan
expect_error 'trainplan: error: --peak-tflops: expected a number, got "inf"' \
    estimate --peak-tflops inf
expect_error 'trainplan: error: --json: takes no value (got "1")' estimate --json=1
expect_error 'trainplan: error: unexpected argument "foo" (estimate takes only flags)' estimate foo
expect_error 'trainplan: error: --vpp: virtual pipeline stages need pp >= 2' estimate --vpp 2

# files: unreadable, malformed JSON (line:col), a missing key
expect_error "trainplan: error: --model: cannot read \"$tmp/none.json\": No such file or directory" \
    estimate --model "$tmp/none.json"
printf '{"name": "x",\n "hidden": }\n' >"$tmp/bad.json"
expect_error "trainplan: error: $tmp/bad.json:2:12: invalid JSON: unexpected token near '}'" \
    estimate --model "$tmp/bad.json"
printf '{"name": "x", "norm": "rmsnorm", "mlp": "swiglu", "position": "rotary", "num_layers": 2}\n' \
    >"$tmp/partial.json"
expect_error "trainplan: error: $tmp/partial.json: missing key \"hidden\"" \
    estimate --model "$tmp/partial.json"

# ---------------------------------------------------------------- never NaN or inf
for args in "" "--gpus 8 --tp 8" "--gpus 64 --tp 8 --pp 8 --global-batch 512 --recompute full" \
    "--model mixtral-8x7b --gpus 64 --ep 8 --tp 2 --zero 3" "--seq-len 134217728 --gpus 8 --cp 8"; do
    # shellcheck disable=SC2086
    run estimate $args
    rc_text=$rc
    if [ "$rc_text" -eq 0 ] && ! grep -Eiq '(^|[^a-z])(nan|inf|infinity)([^a-z]|$)' "$tmp/out"; then ok
    else bad "estimate $args: exit $rc_text or non-finite number in the report"; fi
    # shellcheck disable=SC2086
    run estimate $args --json
    check_json "estimate $args --json is finite" 'True'
done

# ---------------------------------------------------------------- reports against --json (issue 7)
EF="--model llama-3-70b --gpus 64 --tp 8 --pp 4 --seq-len 8192 --global-batch 512 --distributed-optimizer --recompute selective"
# shellcheck disable=SC2086
run estimate $EF --json
cp "$tmp/out" "$tmp/est.json"
# shellcheck disable=SC2086
run estimate $EF --csv
pycheck "estimate --csv: every figure is the --json's, units in the column names" "$tmp/out" "$tmp/est.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
e = json.load(open(sys.argv[2]))
assert len(rows) == 2 and len(rows[0]) == len(rows[1])
r = dict(zip(*rows))
unitless = {"model", "gpu", "num_gpus", "gpus_per_node", "tp", "pp", "cp", "ep", "dp", "vpp", "sp",
            "zero", "schedule", "recompute", "recompute_every", "seq_len", "micro_batch",
            "global_batch", "grad_accum", "precision", "grad_dtype", "optimizer", "params_total",
            "params_active", "fits", "mfu", "hfu", "bubble_of_total", "reason", "etp"}
for c in rows[0]:
    assert c in unitless or c.endswith(("_bytes", "_s", "tokens_per_s", "tokens_per_s_per_gpu")), c
for k in ("num_gpus", "tp", "pp", "cp", "ep", "dp", "vpp", "micro_batch", "global_batch", "grad_accum", "seq_len"):
    assert int(r[k]) == e["layout"][k], k
assert int(r["params_total"]) == e["params"]["total"]
m = e["memory"]
for k in ("peak_bytes", "capacity_bytes", "headroom_bytes"):
    assert int(r[k]) == m[k], k
for k, v in m["breakdown"].items():
    assert abs(int(r[k + "_bytes"]) - v) <= 1, k
t = e["time"]
rel = lambda a, b: abs(a - b) <= 1e-12 * max(abs(b), 1e-300)
assert rel(float(r["step_s"]), t["step_s"])
for k, v in t["breakdown"].items():
    assert rel(float(r[k + "_s"]), v), k
for k in ("tokens_per_s", "tokens_per_s_per_gpu", "mfu", "hfu"):
    assert rel(float(r[k]), t["throughput"][k]), k
assert rel(float(r["bubble_of_total"]), t["bubble_fraction"]["of_total"])
assert r["fits"] == ("true" if m["fits"] else "false") and r["reason"] == e["reason"]
assert rows[0][-2:] == ["reason", "etp"] and r["etp"] == "8"  # added last; not folded: ETP = TP
PY
# folded: 64 GPUs, TP 2, EP 8, ETP 1; the JSON carries etp and edp (64 / 8 = 8)
EM="--model mixtral-8x7b --gpu h100-sxm --gpus 64 --tp 2 --ep 8 --etp 1 --zero 1 --seq-len 4096 --global-batch 256"
# shellcheck disable=SC2086
run estimate $EM --json
cp "$tmp/out" "$tmp/moe.json"
# shellcheck disable=SC2086
run estimate $EM --csv
pycheck "estimate --csv: the etp column, folded" "$tmp/out" "$tmp/moe.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
e = json.load(open(sys.argv[2]))
r = dict(zip(*rows))
assert rows[0][-1] == "etp" and r["etp"] == "1" and r["tp"] == "2" and r["ep"] == "8", r
assert e["layout"]["etp"] == 1 and e["layout"]["edp"] == 8 and e["layout"]["ep"] == 8
PY
# shellcheck disable=SC2086
run estimate $EF --markdown
pycheck "estimate --markdown: the --json figures" "$tmp/out" "$tmp/est.json" <<'PY'
import json, re, sys
md = open(sys.argv[1]).read()
e = json.load(open(sys.argv[2]))
cells = {}
for line in md.splitlines():
    c = [x.strip() for x in line.strip().strip("|").split("|")] if line.startswith("|") else []
    if len(c) >= 2:
        cells[c[0]] = c[1]
assert "| Component | GiB | Share |" in md and "| Part | Seconds | Share |" in md
b = e["memory"]["breakdown"]
for label, key in (("Weights", "weights"), ("Gradients", "grads"), ("Optimizer state", "optimizer"),
                   ("Activations", "activations"), ("Logits", "logits"), ("CUDA context", "framework")):
    assert abs(float(cells[label]) - b[key] / 2**30) <= 0.006, label
assert abs(float(cells["**Total**"].strip("*")) - e["memory"]["peak_bytes"] / 2**30) <= 0.006
t = e["time"]
for label, key in (("Compute", "compute"), ("Pipeline bubble", "bubble"), ("TP communication", "tp_comm"),
                   ("DP communication", "dp_comm")):
    assert abs(float(cells[label]) - t["breakdown"][key]) <= 6e-5, label
assert abs(float(cells["**Step**"].strip("*")) - t["step_s"]) <= 6e-5
m = re.search(r"Throughput: (\d+) tokens/s \(([\d.]+) per GPU\).*MFU ([\d.]+)%", md)
assert m and abs(int(m[1]) - t["throughput"]["tokens_per_s"]) <= 1
assert abs(float(m[3]) - 100 * t["throughput"]["mfu"]) <= 0.06
PY
# shellcheck disable=SC2086
run estimate $EF --csv --json
check_json "estimate --csv --json: the last wins" 'j["layout"]["tp"] == 8'
# --svg FILE: figures from the JSON, rendered; never replaces a file without --force
# shellcheck disable=SC2086
run estimate $EF --svg "$tmp/est.svg"
svg_vs_estimate "estimate --svg draws the --json figures" "$tmp/est.svg" "$tmp/est.json"
render_check "estimate --svg" "$tmp/est.svg"
cp "$tmp/est.svg" "$tmp/est.before"
# pipeline_schedule: one simulation (schedule.c) for the page and the chart;
# 1F1B with p = 4, m = 16 is the textbook (p-1)/(m+p-1) = 3/19, 3 (m+p-1) units
P4="--model llama-3-70b --gpus 64 --tp 8 --pp 4 --seq-len 8192 --global-batch 32"
# shellcheck disable=SC2086
run estimate $P4 --json
cp "$tmp/out" "$tmp/p4.json"
check_json "estimate --json: pipeline_schedule of 1F1B, PP 4, 16 micro-batches" \
    'j["pipeline_schedule"]["stages"] == 4 and j["pipeline_schedule"]["microbatches"] == 16' \
    'j["pipeline_schedule"]["microbatches_drawn"] == 16 and j["pipeline_schedule"]["drawn"]' \
    'j["pipeline_schedule"]["complete"] and j["pipeline_schedule"]["makespan"] == 57.0' \
    'abs(j["pipeline_schedule"]["bubble_fraction"] - 3.0 / 19.0) < 1e-12' \
    '[len(r) for r in j["pipeline_schedule"]["ops"]] == [32, 32, 32, 32]' \
    'j["pipeline_schedule"]["ops"][1][0] == {"backward": False, "microbatch": 0, "chunk": 0, "start": 1.0, "end": 2.0}' \
    'j["pipeline_schedule"]["ops"][3][1] == {"backward": True, "microbatch": 0, "chunk": 0, "start": 4.0, "end": 6.0}'
# shellcheck disable=SC2086
run estimate $P4 --svg "$tmp/p4.svg"
pycheck "the chart draws the schedule of the JSON" "$tmp/p4.svg" "$tmp/p4.json" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
g = ET.parse(sys.argv[1]).getroot().find(f".//{ns}g[@class='schedule']")
s = json.load(open(sys.argv[2]))["pipeline_schedule"]
assert abs(float(g.get("data-simulated-bubble-fraction")) - s["bubble_fraction"]) < 1e-9
fb = [(r.get("class"), int(r.get("data-microbatch"))) for r in g.iter(f"{ns}rect")
      if r.get("class") in ("fwd", "bwd")]
want = [("bwd" if o["backward"] else "fwd", o["microbatch"]) for row in s["ops"] for o in row]
assert fb == want, (fb[:6], want[:6])
PY
# interleaved, 256 micro-batches: the first 32 drawn, VPP 2 kept
# shellcheck disable=SC2086
run estimate $P4 --global-batch 512 --vpp 2 --schedule interleaved --json
check_json "estimate --json: pipeline_schedule draws 32 of 256 micro-batches, interleaved" \
    'j["pipeline_schedule"]["microbatches"] == 256 and j["pipeline_schedule"]["microbatches_drawn"] == 32' \
    'j["pipeline_schedule"]["virtual_stages"] == 2 and j["pipeline_schedule"]["schedule"] == "interleaved"' \
    '[len(r) for r in j["pipeline_schedule"]["ops"]] == [128, 128, 128, 128]' \
    'max(o["chunk"] for r in j["pipeline_schedule"]["ops"] for o in r) == 1'
# shellcheck disable=SC2086
expect_error "trainplan: error: $tmp/est.svg exists (use --force to overwrite it)" \
    estimate $EF --svg "$tmp/est.svg"
if cmp -s "$tmp/est.svg" "$tmp/est.before"; then ok; else bad "estimate --svg changed an existing file"; fi
# shellcheck disable=SC2086
run estimate $EF --svg "$tmp/est.svg" --force --json
if [ "$rc" -eq 0 ] && cmp -s "$tmp/out" "$tmp/est.json"; then ok; else bad "estimate --svg --force: exit $rc"; fi
no_temp_files "estimate --svg" "$tmp"
expect_error "trainplan: error: --force needs --svg FILE" estimate --force

# --attn-ampere-kernel: attention at 1/1.75 of the native rate on Hopper and
# newer (calib.c); no effect on an Ampere GPU, whose kernels are native.
step_of() { python3 -c 'import json,sys; print(json.load(sys.stdin)["time"]["step_s"])'; }
AK="--model llama-3-8b --gpus 8 --json"
# shellcheck disable=SC2086
h_nat=$("$T" estimate $AK --gpu h100-sxm | step_of)
# shellcheck disable=SC2086
h_amp=$("$T" estimate $AK --gpu h100-sxm --attn-ampere-kernel | step_of)
# shellcheck disable=SC2086
a_nat=$("$T" estimate $AK --gpu a100-80gb | step_of)
# shellcheck disable=SC2086
a_amp=$("$T" estimate $AK --gpu a100-80gb --attn-ampere-kernel | step_of)
if python3 -c "import sys; sys.exit(0 if float('$h_amp') > float('$h_nat') else 1)"; then ok
else bad "--attn-ampere-kernel on h100: step $h_amp not above $h_nat"; fi
if [ -n "$a_nat" ] && [ "$a_nat" = "$a_amp" ]; then ok
else bad "--attn-ampere-kernel on a100 changed the step ($a_nat -> $a_amp)"; fi

# --tp-gathered-input (torchtitan's DTensor TP): with SP the QKV and FC1
# inputs are saved whole, per layer 2 x (2h - 2h/t) x T more bytes, and the
# head's bf16 input 2Th(1 - 1/t). By hand for llama-3-8b, T 8192, h 4096,
# t 8: 3.5 x 8192 x 4096 = 117440512 and 1.75 x 8192 x 4096 = 58720256.
GI="--model llama-3-8b --gpus 8 --gpu h100-sxm --tp 8 --sp --recompute full --seq-len 8192 --micro-batch 1 --json"
gi_of() { python3 -c 'import json,sys; m=json.load(sys.stdin)["memory"]; print(m["act_per_layer_bytes"], m["breakdown"]["logits"])'; }
# shellcheck disable=SC2086
gi_off=$("$T" estimate $GI | gi_of)
# shellcheck disable=SC2086
gi_on=$("$T" estimate $GI --tp-gathered-input | gi_of)
# shellcheck disable=SC2086
gi_fw=$("$T" estimate $GI --framework torchtitan --ce-bytes-per-logit-tp 0 | gi_of)
if python3 -c "import sys; a, b = '$gi_off'.split(), '$gi_on'.split(); sys.exit(0 if (int(b[0]) - int(a[0]), int(b[1]) - int(a[1])) == (117440512, 58720256) else 1)"; then ok
else bad "--tp-gathered-input: activations/logits $gi_off -> $gi_on"; fi
if [ -n "$gi_on" ] && [ "$gi_fw" = "$gi_on" ]; then ok
else bad "--framework torchtitan does not save the gathered TP input ($gi_fw vs $gi_on)"; fi
# --ce-bytes-per-logit-tp: the loss at TP > 1 (torchtitan's loss parallel,
# 16 B a logit, its profile's). By hand at TP 8, T 8192, V 128256: 4 B a
# logit more than the default 12 is 4 x 8192 x 128256 / 8 = 525336576; at
# TP 1 the figure does not apply; 0 is ce_bytes_per_logit's.
# shellcheck disable=SC2086
ce_tp=$("$T" estimate $GI --ce-bytes-per-logit-tp 16 | gi_of)
# shellcheck disable=SC2086
ce_fw=$("$T" estimate $GI --framework torchtitan | gi_of)
# shellcheck disable=SC2086
ce_zero=$("$T" estimate $GI --ce-bytes-per-logit-tp 0 | gi_of)
if python3 -c "import sys; a, b = '$gi_off'.split(), '$ce_tp'.split(); sys.exit(0 if int(b[1]) - int(a[1]) == 525336576 else 1)" &&
    [ "$ce_zero" = "$gi_off" ] && [ "$(echo "$ce_fw" | cut -d' ' -f2)" -gt "$(echo "$gi_on" | cut -d' ' -f2)" ]; then ok
else bad "--ce-bytes-per-logit-tp 16 at TP 8: logits $gi_off -> $ce_tp (0: $ce_zero, torchtitan $ce_fw)"; fi
TP1="--model llama-3-8b --gpus 8 --gpu h100-sxm --tp 1 --seq-len 8192 --micro-batch 1 --recompute full --json"
# shellcheck disable=SC2086
if [ "$("$T" estimate $TP1 --ce-bytes-per-logit-tp 16 | gi_of)" = "$("$T" estimate $TP1 | gi_of)" ]; then ok
else bad "--ce-bytes-per-logit-tp changes the loss at TP 1"; fi

# issue 19, seed 001 exercise 2 (S1-7): 7B at 150k tokens/s on 64 H100 is
# MFU 150e3 x 6 x 7e9 / (64 x 989.4e12) = 9.95% with the seed's 6N and 7e9;
# llama-2-7b has 6.738e9 parameters (6N = 40,430,493,696 FLOP/token): 9.58%,
# and its model FLOPs (attention too, 41,253,076,992 per token): 9.77%
run estimate --model llama-2-7b --gpu h100-sxm --gpus 64 --measured-tokens-per-s 150000 --json
check_json "S1-7 measured MFU" \
    'close(j["measured"]["mfu_6n"], 150e3 * 40430493696 / (64 * 989.4e12), 1e-12)' \
    'close(j["measured"]["mfu_6n"] * 6 * 7e9 / 40430493696, 0.0995, 0.002)' \
    'close(j["measured"]["mfu"], 150e3 * 41253076992 / (64 * 989.4e12), 1e-12)' \
    'close(j["measured"]["hfu"], j["measured"]["mfu"], 1e-12)' \
    'close(j["measured"]["predicted_mfu"], j["time"]["throughput"]["mfu"], 1e-12)' \
    'close(j["measured"]["ratio_to_predicted"], j["measured"]["mfu"] / j["time"]["throughput"]["mfu"], 1e-12)' \
    'close(j["measured"]["step_s"], 131072 / 150e3, 1e-12)'
run estimate --model llama-2-7b --gpu h100-sxm --gpus 64 --measured-tokens-per-s 150000
has "measured text" "achieved                   MFU 9.77%, HFU 9.77% (6N per token: MFU 9.58%)"
# issue 19, seed 001's communication estimates: each collective's volume,
# group, busbw and time. 70B (h 8192, 80 layers), TP 8 PP 4 on 64 GPUs, seq
# 8192, 512 sequences: DP 2, m = 256 micro-batches of 1; stage: 20 layers.
# TP: 4 all-reduces per layer and micro-batch = 4 x 20 x 256 = 20,480 of
# 8192 x 8192 x 2 B = 134,217,728 B, no overlap by default, so their sum is
# the breakdown's TP time; PP: 2 x 256 sends of 134,217,728 / 8 (scatter/
# gather over TP) = 16,777,216 B, exposed in full under 1F1B.
run estimate --model llama-3-70b --gpus 64 --tp 8 --pp 4 --seq-len 8192 --global-batch 512 \
    --distributed-optimizer --json
check_json "collectives" \
    '[c["name"] for c in j["collectives"]] == ["TP all-reduce", "PP send/recv", "DP grad reduce-scatter", "DP weight all-gather"]' \
    'j["collectives"][0]["count"] == 20480 and j["collectives"][0]["bytes"] == 134217728 and j["collectives"][0]["group"] == 8' \
    'close(j["collectives"][0]["total_s"], j["time"]["breakdown"]["tp_comm"], 1e-12)' \
    'j["collectives"][1]["count"] == 512 and j["collectives"][1]["bytes"] == 16777216 and j["collectives"][1]["nodes"] == 4' \
    'close(j["collectives"][1]["total_s"], j["time"]["breakdown"]["pp_comm"], 1e-12)' \
    'close(j["collectives"][0]["each_s"] * j["collectives"][0]["count"], j["collectives"][0]["total_s"], 1e-12)' \
    'j["collectives"][2]["group"] == 2 and j["collectives"][2]["count"] == 1'
# issue 19, seed 003's low-MFU failure mode, flagged with cause and fix like
# the OOM one: TP 16 over nodes of 8 and 16 micro-batches through 4 stages
# (bubble (p-1)/(m+p-1) = 3/19 = 15.8%; m >= 9(p-1) = 27 brings it near 10%)
run estimate --model llama-2-70b --gpus 64 --tp 16 --pp 4 --seq-len 4096 --global-batch 16 \
    --kv-heads 64 --json
check_json "low MFU flagged" \
    'j["low_mfu"]["low"] is True and j["low_mfu"]["threshold"] == 0.35' \
    'j["time"]["throughput"]["mfu"] < 0.35' \
    'j["low_mfu"]["causes"][0]["cause"].startswith("TP 16 spans 2 nodes of 8 GPUs")' \
    '"--tp 8 or less" in j["low_mfu"]["causes"][0]["fix"]' \
    '"p = 4 stages, m = 16 micro-batches" in j["low_mfu"]["causes"][1]["cause"]' \
    '"m >= 27" in j["low_mfu"]["causes"][1]["fix"]'
run estimate --model llama-2-70b --gpus 64 --tp 16 --pp 4 --seq-len 4096 --global-batch 16 --kv-heads 64
has "low MFU text" "  verdict                    LOW MFU (26.1%, below 35%):"
run estimate --model llama-3-70b --gpus 64 --tp 8 --pp 4 --seq-len 8192 --global-batch 512 \
    --distributed-optimizer --json
check_json "no low-MFU flag at 40%" 'j["low_mfu"]["low"] is False and j["low_mfu"]["causes"] == []'
run estimate --model llama-3-70b --gpus 64 --tp 8 --pp 4 --seq-len 8192 --global-batch 512 --distributed-optimizer
has "collectives text" "  TP all-reduce              20480 x 134.2 MB on 8 GPUs (1 node) at 369 GB/s busbw: 0.649 ms each, 13.2820 s"
expect_error "trainplan: error: --measured-tokens-per-s: 1.5e+07 tokens/s is 977% MFU on 64 x h100-sxm: more than the peak (is it per GPU? this flag takes the whole job's)" \
    estimate --model llama-2-7b --gpu h100-sxm --gpus 64 --measured-tokens-per-s 15e6
# ---------------------------------------------------------------- issue 16: real HF configs
# the ignored keys of a config.json are listed, and the model reads its MLA, MTP and MoE
cfg="$SRC/tests/data/hf/deepseek-v3/config.json"
run estimate --model "$cfg" --json
if [ "$rc" -eq 0 ] && grep -Fq "$cfg: ignored (no effect on the parameters or the FLOPs): attention_dropout, auto_map," "$tmp/err"
then ok; else bad "deepseek-v3 config.json: exit $rc, no ignored-keys note: $(cat "$tmp/err")"; fi
# the keys read for the exports (rope, norm epsilon) are not listed as ignored
if grep -Eq "rope_theta|rope_scaling|rms_norm_eps" "$tmp/err"; then
    bad "deepseek-v3 config.json: keys that are read listed as ignored: $(cat "$tmp/err")"; else ok; fi
check_json "deepseek-v3 config.json" "j['params']['total'] == 682636487424" \
    "j['params']['breakdown']['mtp'] == 11610068224" "j['model']['kv_lora_rank'] == 512" \
    "j['model']['mtp_layers'] == 1" "j['model']['router_bias'] is True"
# DBRX (keys inside attn_config/ffn_config by their dotted names) and
# DeepSeek's native ModelArgs file list what they ignore too
for f in dbrx/config.json deepseek-v3-native/config_671B.json; do
    run estimate --model "$SRC/tests/data/hf/$f" --gpus 64 --ep 8 --json
    case $f in
    dbrx*) want="ignored (no effect on the parameters or the FLOPs): attn_config.clip_qkv, attn_config.model_type, attn_config.rope_theta, emb_pdrop, ffn_config.ffn_act_fn, ffn_config.model_type, ffn_config.moe_jitter_eps, ffn_config.moe_loss_weight, initializer_range, output_router_logits, resid_pdrop, router_aux_loss_coef, torch_dtype, transformers_version, use_cache" ;;
    *) want="ignored (no effect on the parameters or the FLOPs): route_scale, score_func, dtype" ;;
    esac
    if [ "$rc" -eq 0 ] && [ "$(cat "$tmp/err")" = "trainplan: note: $SRC/tests/data/hf/$f: $want" ]
    then ok; else bad "$f: exit $rc, ignored-keys note [$(cat "$tmp/err")]"; fi
done
# a DeepSeek-V3 plan exported as a Megatron launch imports back as the same model
ds_flags="--model deepseek-v3 --gpus 64 --ep 8 --global-batch 64 --seq-len 4096"
# shellcheck disable=SC2086
"$T" export --format megatron $ds_flags --out "$tmp/ds.sh" --force 2>/dev/null
run estimate --from-megatron "$tmp/ds.sh" --gpus 64 --vocab 129280 --json
check_json "deepseek-v3 megatron round trip" "j['params']['total'] == 682636487424" \
    "j['model']['kv_lora_rank'] == 512" "j['model']['mtp_layers'] == 1"
run estimate --model llama-3-8b --json
check_json "no new keys for a plain model" "'kv_lora_rank' not in j['model']" \
    "'mtp' not in j['params']['breakdown']" "'sliding_window' not in j['model']"

# ---------------------------------------------------------------- --params N (as plan's)
# 30B: tp_scaling_shape gives L 48, h 7168 (56 heads of 128), FFN 19200; with
# V 32000: 48 x (4h^2 + 3hf + 2h) + 2Vh + h = 48 x 618,412,032 + 458,759,168
run estimate --params 30B --gpus 64 --tp 8 --json
check_json "--params" "j['model']['name'] == 'llama-style-30B'" \
    "(j['model']['layers'], j['model']['hidden'], j['model']['heads'], j['model']['ffn_hidden'], j['model']['vocab']) == (48, 7168, 56, 19200, 32000)" \
    "j['params']['total'] == 30142536704" "j['from_params']['params'] == 30e9" \
    "j['from_params']['shape_rule'].startswith('Shape rule (tp_scaling_shape): a Llama-style dense decoder')"
run estimate --params=30e9 --gpus 64 --tp 8 --vocab 128256 --json
# the larger embedding leaves fewer layers: (30e9 - 2Vh - h) / 618,412,032 = 45.5 -> 46
check_json "--params with --vocab" "j['model']['vocab'] == 128256" "j['model']['layers'] == 46" \
    "j['params']['total'] == 46 * 618412032 + 2 * 128256 * 7168 + 7168 == 30285638656"
run estimate --params 30B --gpus 64 --tp 8
has "--params text" "Model from --params: 3e+10 parameters asked, 30142536704 in the shape (48 layers,"
has "--params rule" "Shape rule (tp_scaling_shape): a Llama-style dense decoder"
expect_error "trainplan: error: --params: it chooses the model's shape and --model would override it (give a model file for a shape of your own)" \
    estimate --params 30B --model llama-3-8b
expect_error "trainplan: error: --params: it chooses the model's shape and --mlp would override it (give a model file for a shape of your own)" \
    estimate --mlp gelu --params 30B
expect_error "trainplan: error: --params: it chooses the model's shape and --from-megatron would override it (give a model file for a shape of your own)" \
    estimate --params 30B --from-megatron x.sh
expect_error "trainplan: error: --params: 1e20 is out of range [1e+06, 1e+14]" estimate --params 1e20
expect_error "trainplan: error: --params: needs a value (a parameter count, e.g. 7e9 or 7B)" estimate --params


# ---- --framework: a named set of the convention flags (framework.c) ----
fw_base="--model llama-3-8b --gpu h100-sxm --gpus 16 --pp 2 --recompute selective --json"
# shellcheck disable=SC2086
for pair in "torchtitan|--sac-ops --tp-gathered-input --fp8-hp-saved-inputs --no-fp8-weight-cache --ce-bytes-per-logit-tp 16" \
    "deepspeed|--no-dp-comm-overlap --no-pp-scatter-gather --extra-param-bytes 2 --ce-bytes-per-logit 4" \
    "none|"; do
    run estimate $fw_base --framework "${pair%%|*}"
    cp "$tmp/out" "$tmp/fw_a.json"
    run estimate $fw_base ${pair#*|}
    if cmp -s "$tmp/out" "$tmp/fw_a.json"; then ok; else
        bad "--framework ${pair%%|*} differs from ${pair#*|}"; fi
done
run estimate $fw_base --framework torchtitan
cp "$tmp/out" "$tmp/fw_a.json"
run estimate $fw_base
if cmp -s "$tmp/out" "$tmp/fw_a.json"; then bad "--framework torchtitan changed nothing"; else ok; fi
# --unfused-full-matrix: the whole score matrix without FlashAttention, nothing with it
uf_base="--model llama-3-8b --gpu a100-80gb --gpus 8 --seq-len 4096 --json"
# shellcheck disable=SC2086
run estimate $uf_base --no-flash-attn
half=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["time"]["step_s"])' "$tmp/out")
# shellcheck disable=SC2086
run estimate $uf_base --no-flash-attn --unfused-full-matrix
full=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["time"]["step_s"])' "$tmp/out")
if python3 -c "import sys; sys.exit(not float('$full') > 1.05 * float('$half'))"; then ok; else
    bad "--unfused-full-matrix: step $full not above the causal half's $half"; fi
# shellcheck disable=SC2086
run estimate $uf_base
cp "$tmp/out" "$tmp/uf_a.json"
# shellcheck disable=SC2086
run estimate $uf_base --unfused-full-matrix
# (the result names the switch under "conventions"; everything else is equal)
if python3 - "$tmp/out" "$tmp/uf_a.json" <<'PY'; then ok; else
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a.pop("conventions") == dict(b.pop("conventions"), unfused_full_matrix=True)
sys.exit(a != b)
PY
    bad "--unfused-full-matrix changed a FlashAttention run"; fi
expect_error 'trainplan: error: --framework: unknown value "jax" (expected one of none|megatron-lm|megatron-core|deepspeed|torchtitan|torchtune|llm-foundry|nemo-automodel)' \
    estimate --framework jax
# ---------------------------------------------------------------- issue 16: vision towers
vl="$SRC/tests/data/hf/qwen2.5-vl-7b/config.json"
run estimate --model "$vl" --gpus 8 --zero 1 --image-tokens 4096 --json
check_json "vision tower in the JSON" "j['params']['total'] == 8292166656" \
    "j['params']['breakdown']['vision'] + j['params']['breakdown']['vision_projector'] == 676550144" \
    "j['model']['vision']['image_tokens'] == 4096" "j['model']['vision']['frozen'] == False" \
    "j['model']['vision']['pipeline_stage'] == 'first'"
run estimate --model "$vl" --gpus 8 --zero 1 --image-tokens 4096 --freeze-vision
has "frozen tower text" "frozen (forward only, no gradients or optimizer state; projector"
has "vision assumptions" "  assumed         dynamic resolution: the tower attends over all of a sample's"
expect_error "trainplan: error: --image-tokens: needs a model with a vision tower (a vision-language config: mllama, qwen2_vl, qwen2_5_vl, gemma3, llama4, or a model file's \"vision\"); this model has none" \
    estimate --model llama-3-8b --image-tokens 256
# ---------------------------------------------------------------- issue 17: the TP overlap line
# which TP overlap the step charges (time.c tp_exposed): none, the generic
# share (eff.overlap, calib.c PROFILE_OVERLAP), or TE's userbuffers chunks,
# which need SP; none at TP 1
tpo="estimate --model llama-3-70b --gpus 16 --tp 4 --pp 4 --sp --global-batch 64"
run $tpo
has "TP overlap off" "  TP overlap: none (--tp-comm-overlap): every TP collective is exposed"
run $tpo --tp-comm-overlap
has "TP overlap generic" "  TP overlap: up to 0.582 of each pass's TP time hides under its GEMMs"
run $tpo --framework megatron-core
has "TP overlap chunked" "  TP overlap: TransformerEngine's userbuffers in 4 chunks: one chunk of the forward"
has "TP overlap chunked, 2nd line" "              reduce-scatters stays exposed, and what the GEMMs cannot cover"
run $tpo --framework megatron-core --no-sp
has "TP overlap chunked without SP" "  TP overlap: none: TransformerEngine's userbuffers need sequence parallelism (--sp)"
run estimate --gpus 8 --zero 1
if grep -q "TP overlap" "$tmp/out"; then bad "TP overlap line at TP 1"; else ok; fi
# ---------------------------------------------------------------- issue 17: EP all-to-all overlap
# Mixtral 8x7B, TP 2 x EP 8 on 64 GPUs: DP 32, 256 sequences, m = 8
# micro-batches; the all-to-alls are small beside each layer's computation, so
# the 7 paired micro-batches each hide eff.overlap (0.5820, calib.c
# PROFILE_OVERLAP: h100-sxm's default GEMM model is its profile's) of theirs:
# 1 - 7/8 x 0.5820 = 0.4908 of the exposed all-to-all stays, and nothing
# else moves (docs/model.md 5)
moe="estimate --model mixtral-8x7b --gpu h100-sxm --gpus 64 --tp 2 --ep 8 --zero 1 --seq-len 4096 --global-batch 256 --recompute selective --json"
run $moe
cp "$tmp/out" "$tmp/a2a_off.json"
run $moe --moe-a2a-overlap
python3 - "$tmp/a2a_off.json" "$tmp/out" >"$tmp/a2a_chk" <<'PY'
import json, sys
a, b = (json.load(open(f))['time'] for f in sys.argv[1:3])
ea, eb = a['breakdown']['ep_comm'], b['breakdown']['ep_comm']
same = all(a['breakdown'][k] == b['breakdown'][k] for k in a['breakdown'] if k != 'ep_comm')
hid = 7 / 8 * 0.5820 * ea
print(ea > 0 and abs(eb - (ea - hid)) <= 1e-12 * ea and same and
      abs((a['step_s'] - b['step_s']) - hid) <= 1e-9 * a['step_s'])
PY
if [ "$(cat "$tmp/a2a_chk")" = True ]; then ok; else bad "--moe-a2a-overlap: ep_comm not 1 - 7/8 x 0.5820 of the exposed one"; fi
expect_error "trainplan: error: --moe-a2a-overlap: the expert-parallel all-to-all overlap needs ep > 1 (Megatron-Core: only supported with expert model parallelism), got ep 1" \
    estimate --model mixtral-8x7b --gpus 8 --moe-a2a-overlap
expect_error "trainplan: error: --moe-a2a-overlap: the expert-parallel all-to-all overlap needs the interleaved schedule (vpp > 1) when pp > 1 (Megatron-Core), got pp 2, vpp 1" \
    estimate --model mixtral-8x7b --gpus 16 --pp 2 --ep 8 --moe-a2a-overlap
expect_error "trainplan: error: --moe-a2a-overlap: the expert-parallel all-to-all overlap does not work with full recompute (Megatron-Core: disable full recomputation)" \
    estimate --model mixtral-8x7b --gpus 8 --ep 8 --recompute full --moe-a2a-overlap
expect_error "trainplan: error: --moe-a2a-overlap: the search does not take the expert-parallel all-to-all overlap (it needs ep > 1, no full recompute, vpp under pp): evaluate a layout with it instead" \
    search --model mixtral-8x7b --gpus 64 --global-batch 256 --moe-a2a-overlap
# node-deduplicating dispatch: DeepSeek-V3, EP 64 over 8 nodes, group-limited
# to 4 of 8 groups (one per node): a token reaches at most 4 nodes, so the
# NIC carries 4 x 7/8 copies per token instead of 8 x 7/8, half (docs/model.md 5)
ds="estimate --model deepseek-v3 --gpu h800 --gpus 2048 --pp 16 --ep 64 --zero 1 --precision fp8 --global-batch 15360 --seq-len 4096 --recompute selective --recompute-modules layernorm,mla_up_proj --json"
run $ds
cp "$tmp/out" "$tmp/nd_off.json"
run $ds --moe-node-dispatch --moe-router-groups 8 --moe-router-group-topk 4
python3 - "$tmp/nd_off.json" "$tmp/out" >"$tmp/nd_chk" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ea, eb = a['time']['breakdown']['ep_comm'], b['time']['breakdown']['ep_comm']
print(0.5 < eb / ea < 0.52, b['model']['moe_router_groups'], b['model']['moe_router_group_topk'])
PY
if [ "$(cat "$tmp/nd_chk")" = "True 8 4" ]; then ok; else bad "--moe-node-dispatch with groups: $(cat "$tmp/nd_chk")"; fi
# NeMo AutoModel's eager gpt-oss experts: per routed copy and layer 58f +
# 28h bytes more forward and 108f + 28h backward (f = h = 2880), at the
# preset's 3.35 TB/s x 0.8: 24 layers x 16 micro-batches x 8192 tokens x
# top-4 x 222 x 2880 B = 8.04 TB, 3.000 s more compute; the JSON says so
oss="estimate --model gpt-oss-20b --gpu h100-sxm --gpus 8 --ep 8 --fsdp --global-batch 256 --micro-batch 2 --seq-len 4096 --recompute none --json"
run $oss
cp "$tmp/out" "$tmp/ee_off.json"
run $oss --eager-experts
python3 - "$tmp/ee_off.json" "$tmp/out" >"$tmp/ee_chk" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
d = b['time']['breakdown']['compute'] - a['time']['breakdown']['compute']
want = 24 * 16 * 8192 * 4 * 222 * 2880 / (3.35e12 * 0.8)
print(abs(d / want - 1) < 1e-9, b['conventions'].get('eager_experts'), 'eager_experts' in a['conventions'])
PY
if [ "$(cat "$tmp/ee_chk")" = "True True False" ]; then ok; else bad "--eager-experts: $(cat "$tmp/ee_chk")"; fi
# the fp8 activation cache (DeepSeek-V3 report 3.3.3): the same layout's MoE
# layer stores 156672 B per token instead of TransformerEngine's 240256
# (test_arch.c test_fp8_act_cache, test_te_fp8_storage), T = 4096; the
# report line says so
run $ds --fp8-activation-cache
python3 - "$tmp/nd_off.json" "$tmp/out" >"$tmp/fa_chk" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
print(a['memory']['act_per_layer_bytes'] == 4096 * 240256, b['memory']['act_per_layer_bytes'] == 4096 * 156672)
PY
if [ "$(cat "$tmp/fa_chk")" = "True True" ]; then ok; else bad "--fp8-activation-cache: $(cat "$tmp/fa_chk")"; fi
run ${ds% --json} --fp8-activation-cache
if grep -q "cached in fp8; FlashAttention on" "$tmp/out"; then ok; else bad "--fp8-activation-cache not in the report"; fi
# fp8 saved inputs (memory.c te_fp8_saving): TransformerEngine's quantized
# copies by default, the 16-bit inputs with --fp8-hp-saved-inputs (292480 B
# per token, test_fp8_act_cache), which the cache overrides; Llama 3 8B at
# T = 4096 (test_arch.c test_te_fp8_storage): 120960 B per token under TE,
# 139392 with the switch or the torchtitan profile (torchao), as in bf16
run $ds --fp8-hp-saved-inputs
check_json "--fp8-hp-saved-inputs" 'j["memory"]["act_per_layer_bytes"] == 4096 * 292480' \
    'j["conventions"]["fp8_hp_saved_inputs"] is True'
run $ds --fp8-hp-saved-inputs --fp8-activation-cache
check_json "the cache over --fp8-hp-saved-inputs" 'j["memory"]["act_per_layer_bytes"] == 4096 * 156672'
te8="estimate --model llama-3-8b --gpu h100-sxm --gpus 8 --seq-len 4096 --micro-batch 1 --json"
for pair in "--precision fp8|120960" "--precision fp8 --fp8-hp-saved-inputs|139392" \
    "--precision fp8 --framework torchtitan|139392" "--precision bf16|139392"; do
    # shellcheck disable=SC2086
    run $te8 ${pair%%|*}
    check_json "fp8 saved inputs: ${pair%%|*}" "j['memory']['act_per_layer_bytes'] == 4096 * ${pair#*|}"
done
expect_error "trainplan: error: --moe-router-groups: 7 groups do not split the 8 experts evenly" \
    estimate --model mixtral-8x7b --gpus 8 --ep 8 --moe-router-groups 7 --moe-router-group-topk 1
expect_error "trainplan: error: --moe-router-group-topk: group-limited routing needs both the groups and the groups per token (got 4 and 0)" \
    estimate --model mixtral-8x7b --gpus 8 --ep 8 --moe-router-groups 4

# ---- --pp-split in-order (issue 17): PyTorch pipelining's split as NeMo
# AutoModel builds it. 61 layers on PP 4 x VPP 8 = 32 virtual stages, the
# first 29 with 2 layers: stage 0 holds virtual stages 0, 4, ..., 28 (16
# layers), the others 15. Stage 0 (16 layers and the embedding) is then
# byte for byte stage 0 of 64 layers split evenly. ----
shape="--layers 61 --hidden 4096 --heads 32 --kv-heads 8 --ffn-hidden 14336 --vocab 32000 --mlp swiglu --norm rmsnorm --gpus 32 --pp 4 --vpp 8 --global-batch 64"
# shellcheck disable=SC2086
run estimate $shape --pp-split in-order
has "in-order split shown" "  pipeline        schedule interleaved with 8 virtual stages per GPU; layers in order over 32 virtual stages: first stage 16, last stage 15"
# shellcheck disable=SC2086
run estimate $shape --pp-split in-order --json
cp "$tmp/out" "$tmp/split61.json"
# shellcheck disable=SC2086
run estimate ${shape/--layers 61/--layers 64} --pp-split in-order --json
python3 - "$tmp/split61.json" "$tmp/out" >"$tmp/split_cmp" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
f61, f64 = a["memory"]["stages"]["first"], b["memory"]["stages"]["first"]
print(a["layout"]["pp_split"], a["memory"]["stage"], f61["layers"], a["memory"]["stages"]["last"]["layers"],
      f61 == f64, "pp_split" in b["layout"])
PY
if [ "$(cat "$tmp/split_cmp")" = "in-order 0 16 15 True True" ]; then ok; else
    bad "--pp-split in-order: got $(cat "$tmp/split_cmp"), want 'in-order 0 16 15 True True'"; fi
# the default split leaves the JSON as it was (no pp_split key)
# shellcheck disable=SC2086
run estimate ${shape/--layers 61/--layers 64} --json
if grep -q '"pp_split"' "$tmp/out"; then bad "default split writes pp_split"; else ok; fi
# shellcheck disable=SC2086
expect_error 'trainplan: error: --vpp: layers 61 are not divisible by pp*vpp = 4*8' estimate $shape
# shellcheck disable=SC2086
expect_error 'trainplan: error: --vpp: layers 61 are fewer than the pp*vpp = 8*8 virtual stages of the in-order split' \
    estimate ${shape/--gpus 32 --pp 4/--gpus 64 --pp 8} --pp-split in-order
# shellcheck disable=SC2086
expect_error 'trainplan: error: --pp-split: the in-order split takes no first/last stage layer counts' \
    estimate $shape --pp-split in-order --first-stage-layers 16
expect_error 'trainplan: error: --pp-split: unknown value "front" (expected one of megatron|in-order)' \
    estimate --pp-split front

# ---------------------------------------------------------------- DualPipe
# --schedule dualpipe (memory.c 4b, time.c dualpipe_step): llama-3-8b on pp
# 4, dp 2, 16 micro-batches. Rank 0 holds stages 0 and 3 (16 layers) with
# 4 + 1 = 5 micro-batches in flight; the bubble fraction (p - 2)/(3m + p -
# 2) = 2/50 (eval.c); the schedule is not drawn.
dual="--model llama-3-8b --gpus 8 --pp 4 --schedule dualpipe"
run estimate $dual --global-batch 32 --json
check_json "dualpipe estimate" \
    'j["layout"]["schedule"] == "dualpipe"' \
    'j["memory"]["stage"] == 0 and j["memory"]["layers"] == 16' \
    'j["memory"]["inflight_microbatches"] == 5' \
    'j["memory"]["stages"]["last"]["stage"] == 3' \
    'j["memory"]["stages"]["last"]["peak_bytes"] == j["memory"]["stages"]["first"]["peak_bytes"]' \
    'j["time"]["bubble_fraction"]["of_total"] == 0.04' \
    'j["pipeline_schedule"]["drawn"] is False and j["pipeline_schedule"]["schedule"] == "dualpipe"'
run estimate $dual --global-batch 32
has "dualpipe text" "Memory on the heaviest GPU (pipeline rank 0, 0-based, of 4: stages 0 and 3 under DualPipe: 16"
has "dualpipe bubble text" "  bubble fraction            4.0% of the step, (p-2)/(3m+p-2) (DualPipe);"
expect_error 'trainplan: error: --pp: the dualpipe schedule needs an even pp >= 2 (rank i holds stages i and pp-1-i), got pp 3' \
    estimate --model llama-3-8b --gpus 6 --pp 3 --schedule dualpipe --global-batch 48
expect_error 'trainplan: error: --vpp: the dualpipe schedule has no virtual stages (vpp 1), got vpp 2' \
    estimate $dual --vpp 2 --global-batch 32
expect_error 'trainplan: error: --global-batch: the dualpipe schedule needs an even number of micro-batches per step (half enter at each end), got 17' \
    estimate $dual --global-batch 34
expect_error 'trainplan: error: --global-batch: the dualpipe schedule needs at least 2*pp = 8 micro-batches per step, got 6' \
    estimate $dual --global-batch 12

# ---------------------------------------------------------------- issue 17: the default GEMM model
# a GPU preset that names a shipped profile runs the kernel-level GEMM model
# (docs/model.md 1b) and the reports say so; --fitted-gemm returns to the
# fitted fractions; h100-pcie names none
run estimate --gpus 8 --zero 1
has "default GEMM model text" "  GEMM model      kernel-level: measured matmul rate 0.803 of peak (data/hardware/h100-sxm.json)"
has "default GEMM model text, tile" "                  x 0.825 sustained; 128 x 256 tiles in waves on 132 SMs"
# attention (docs/model.md 2): FlashAttention-3's 740 of 989.4 TFLOP/s
# (data/hardware/h100-sxm.json) x attn_sw 0.5307 (calib.c) x 0.879, the
# sequence-length factor at 2048 tokens (kernel.c: FA3's causal forward 521
# of 616 at 16k and backward 501 of 561, 1 : 2.5) = 0.349
has "default attention text" "  attention       FlashAttention at 0.349 of the 16-bit peak: best kernel 0.748 of peak"
has "default attention text, share" "                  (data/hardware/h100-sxm.json) x 0.5307 sustained"
has "default attention text, sequence length" "                  x 0.879: kernel calls of 2048 tokens, shorter than 16k"
run estimate --gpus 8 --zero 1 --json --attn-ampere-kernel
check_json "attention model JSON, Ampere kernel" \
    'close(j["gpu"]["attention_model"].pop("peak_fraction"), 0.5307 * 740 / 989.4 / 1.75 * seq_factor(2048), 1e-14)' \
    'close(j["gpu"]["attention_model"].pop("seq_len_factor"), seq_factor(2048), 1e-14)' \
    'j["gpu"]["attention_model"].pop("kernel_seq_tokens") == 2048' \
    'j["gpu"]["attention_model"].pop("seq_len_source") == "FlashAttention-3 paper"' \
    'close(j["gpu"]["attention_model"].pop("kernel_fraction"), 740 / 989.4, 1e-14)' \
    'close(j["gpu"]["attention_model"].pop("attn_sw"), 0.5307, 1e-14)' \
    'close(j["gpu"]["attention_model"].pop("ampere_kernel_factor"), 1 / 1.75, 1e-14)' \
    'j["gpu"]["attention_model"] == {"kind": "flash", "hw_profile": "h100-sxm"}'
run estimate --gpus 8 --zero 1 --attn-ampere-kernel
has "attention text, Ampere kernel" "                  x 0.571: a kernel written for Ampere on this GPU"
run estimate --gpus 8 --zero 1 --no-flash-attn --json
check_json "attention model JSON, unfused" 'j["gpu"]["attention_model"] == {"kind": "unfused"}'
# heads of 64 (gpt-oss): the rate the model charges, x 0.805 (kernel.c
# tp__attn_head_dim_factor), and the sequence-length factor of its global
# layers (2048 tokens) and windowed ones (128: below the figures, 0.535),
# by their work: 0.5307 x 740 / 989.4 x 0.805 x 0.822 = 0.264
run estimate --model gpt-oss-20b --gpus 8 --ep 8 --fsdp
has "attention text, narrow heads" "  attention       FlashAttention at 0.263 of the 16-bit peak: best kernel 0.748 of peak"
has "attention text, head-dim factor" "                  x 0.805: heads of 64, narrower than 128"
has "attention text, windowed layers" "                  x 0.822: kernel calls of 2048 tokens (128 in windowed layers), shorter than 16k"
run estimate --model gpt-oss-20b --gpus 8 --ep 8 --fsdp --json
check_json "attention model JSON, narrow heads" \
    'close(j["gpu"]["attention_model"]["peak_fraction"], 0.5307 * 740 / 989.4 * 0.805 * oss(), 1e-14)' \
    'close(j["gpu"]["attention_model"]["seq_len_factor"], oss(), 1e-14) and 0.8217 < oss() < 0.8219' \
    'close(j["gpu"]["attention_model"]["attn_sw"], 0.5307, 1e-14)' \
    'j["gpu"]["attention_model"]["head_dim_factor"] == 0.805'
# chunked layers alone shorter than 16k (Llama 4 Scout's 8192-token chunks
# beside its global layers, at 16384 tokens): the note says which calls
run estimate --model llama-4-scout --gpus 16 --ep 16 --fsdp --seq-len 16384
has "attention text, chunked layers only" "                  x 0.995: kernel calls of 16384 tokens (8192 in chunked layers, under 16k)"
has "MoE host floor text, one local expert" "  MoE host floor  3.40 ms + 1 local expert x 0.555 ms = 3.95 ms per MoE layer"
run estimate --gpu mi300x --gpus 8 --zero 1
has "attention text, no kernel measured" "                  (the profile measured no attention kernel: from its matmul rate)"
# a profile's own attention sweep sets the rate by sequence length
# (hardware.md, "The probe"): the shipped H100 profile with causal rows at
# head dim 128 of 1k and 4k tokens; at 2048 tokens halfway in log2
python3 - "$SRC/data/hardware/h100-sxm.json" "$tmp/sweep.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["attention"] = [{"seq": 1024, "head_dim": 128, "causal": True, "fwd_tflops": 300, "bwd_tflops": 250},
                  {"seq": 4096, "head_dim": 128, "causal": True, "fwd_tflops": 500, "bwd_tflops": 400}]
json.dump(d, open(sys.argv[2], "w"))
PY
run estimate --gpus 8 --zero 1 --hw-profile "$tmp/sweep.json" --json
check_json "attention sweep of the profile" \
    'j["gpu"]["attention_model"]["seq_len_source"] == "profile attention sweep"' \
    'close(j["gpu"]["attention_model"]["seq_len_factor"], 0.5 * (1 + (3.5 / (1 / 300 + 2.5 / 250)) / (3.5 / (1 / 500 + 2.5 / 400))), 1e-14)'
run estimate --gpus 8 --zero 1 --hw-profile "$tmp/sweep.json"
has "attention text, profile sweep" "                  x 0.809: kernel calls of 2048 tokens: the profile's attention sweep"
# the host floor of dropless MoE layers (docs/model.md 2b): calib.c's
# 3.3984 ms + 16 local experts (128 / EP 8) x 0.5547 ms = 12.27 ms
run estimate --model qwen3-30b-a3b --gpus 8 --ep 8 --fsdp
has "MoE host floor text" "  MoE host floor  3.40 ms + 16 local experts x 0.555 ms = 12.27 ms per MoE layer"
run estimate --model qwen3-30b-a3b --gpus 8 --ep 8 --fsdp --json
check_json "MoE host floor JSON" \
    'close(j["gpu"]["moe_host_floor"].pop("floor_s"), 3.3984e-3 + 16 * 0.5547e-3, 1e-12)' \
    'j["gpu"]["moe_host_floor"] == {"layer_s": 0.0033984, "expert_s": 0.0005547, "local_experts": 16}'
cp "$tmp/out" "$tmp/host_on.json"
run estimate --model qwen3-30b-a3b --gpus 8 --ep 8 --fsdp --json --moe-sync-free
check_json "--moe-sync-free: no floor" 'j["gpu"]["moe_host_floor"]["none"] == "--moe-sync-free"' \
    'j["gpu"]["moe_host_floor"]["floor_s"] == 0'
python3 - "$tmp/host_on.json" "$tmp/out" >"$tmp/host_chk" <<'PY'
import json, sys
a, b = (json.load(open(f))["time"]["breakdown"] for f in sys.argv[1:3])
# the floor binds here (16 local experts, 4096 tokens): compute only moves
print(a["compute"] > b["compute"] and all(a[k] == b[k] for k in a if k not in ("compute", "recompute")))
PY
if [ "$(cat "$tmp/host_chk")" = True ]; then ok; else bad "--moe-sync-free: the compute did not drop, or more moved"; fi
run estimate --model qwen3-30b-a3b --gpus 8 --ep 8 --fsdp --moe-capacity-factor 1.25
has "MoE host floor text, token drop" "  MoE host floor  none (a capacity factor: token drop, padded)"
run estimate --model llama-3-8b --gpus 8 --zero 1
if ! grep -q "MoE host floor" "$tmp/out"; then ok; else bad "a dense model shows a MoE host floor"; fi
run estimate --gpus 8 --zero 1 --fitted-gemm
has "fitted GEMM model text" "  GEMM model      fitted: large GEMMs at 0.716 of peak, smaller ones slower (calib.c)"
has "fitted attention text" "                  (a fitted fraction, calib.c)"
run estimate --gpu h800 --gpus 8 --zero 1 --precision fp8 --json
check_json "h800: h100-sxm's profile, fp8 rate" \
    'close(j["gpu"]["gemm_model"].pop("matmul_fraction"), 1402.6 / 1978.9, 1e-14)' \
    'j["gpu"]["gemm_model"] == {"kind": "kernel", "hw_profile": "h100-sxm", "gemm_sw": 0.8250, "sm_count": 132, "tile_m": 128, "tile_n": 256}'
run estimate --gpu h100-pcie --gpus 8 --zero 1 --json
check_json "h100-pcie: no profile" 'j["gpu"]["gemm_model"] == {"kind": "fitted", "gemm_fraction": 0.7156}'
run estimate --gpus 8 --zero 1 --json
cp "$tmp/out" "$tmp/gm_prof.json"
run estimate --gpus 8 --zero 1 --json --fitted-gemm
cp "$tmp/out" "$tmp/gm_fit.json"
python3 - "$tmp/gm_prof.json" "$tmp/gm_fit.json" >"$tmp/gm_chk" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
# only the compute part moves (the overlap too, but nothing is exposed here)
print(a["time"]["breakdown"]["compute"] != b["time"]["breakdown"]["compute"] and
      a["memory"] == b["memory"] and b["gpu"]["gemm_model"]["kind"] == "fitted")
PY
if [ "$(cat "$tmp/gm_chk")" = True ]; then ok; else bad "--fitted-gemm: not the fitted model, or memory moved"; fi
expect_error "trainplan: error: --fitted-gemm: --fitted-gemm and --hw-profile both given: --hw-profile applies a measured GEMM model, --fitted-gemm the fitted fractions; give one" \
    estimate --gpus 8 --fitted-gemm --hw-profile "$SRC/data/hardware/h100-sxm.json"
printf '{"name": "mine", "peak_tflops": {"bf16": 989.4}, "memory_mib": 81559, "memory_bw_gb_per_s": 3350, "intra_node_gb_per_s": 450, "nic_gb_per_s": 50, "gpus_per_node": 8, "hw_profile": "h100"}\n' >"$tmp/gpu_badprof.json"
expect_error "trainplan: error: $tmp/gpu_badprof.json: \"hw_profile\" \"h100\" is not a shipped hardware profile (one of a100-40gb, a100-80gb, b200, gb200, h100-96gb-500w, h100-sxm, h200, mi300x, data/hardware/)" \
    estimate --gpu "$tmp/gpu_badprof.json" --gpus 8

# ---------------------------------------------------------------- --local-batch (issue 17)
# torchtitan and NeMo AutoModel run the pipeline schedule once per local
# batch and accumulate over global / (local x DP) runs: 4 runs of 4
# micro-batches fill and drain the pipeline 4 times, so the step is 4 steps
# of a quarter of the batch (bubble, compute and the DP all-reduce, which
# torch.distributed.pipelining runs at the end of each run, 4x; the same
# memory), and
# 1F1B's bubble is (p-1)/(m+p-1) = 3/7 of the step at p = m = 4, not 3/19.
lb="--model llama-3-70b --gpus 64 --tp 8 --pp 4 --recompute full"
run estimate $lb --global-batch 8 --json
cp "$tmp/out" "$tmp/lb_quarter.json"
run estimate $lb --global-batch 32 --local-batch 4 --json
check_json "--local-batch 4" 'j["layout"]["local_batch"] == 4' 'j["layout"]["schedule_runs"] == 4' 'j["layout"]["grad_accum"] == 16' \
    'abs(j["time"]["bubble_fraction"]["of_total"] - 3/7) < 1e-12' \
    'abs(j["time"]["bubble_fraction"]["of_ideal"] - 3/4) < 1e-12' \
    'j["pipeline_schedule"]["runs"] == 4 and j["pipeline_schedule"]["microbatches"] == 4' \
    'abs(j["pipeline_schedule"]["bubble_fraction"] - 3/7) < 1e-12'
cp "$tmp/out" "$tmp/lb_on.json"
python3 - "$tmp/lb_quarter.json" "$tmp/lb_on.json" >"$tmp/lb_chk" <<'PY'
import json, sys
q, a = (json.load(open(f)) for f in sys.argv[1:3])
Q, A = q["time"]["breakdown"], a["time"]["breakdown"]
print(q["memory"] == a["memory"] and all(abs(A[k] - 4 * Q[k]) <= 1e-12 * A[k]
                                        for k in ("bubble", "compute", "recompute", "pp_comm", "dp_comm")))
PY
if [ "$(cat "$tmp/lb_chk")" = True ]; then ok; else
    bad "--local-batch 4: not 4 runs of the quarter batch (bubble, compute, memory)"; fi
run estimate $lb --global-batch 32 --json
check_json "no --local-batch: one schedule run" 'abs(j["time"]["bubble_fraction"]["of_total"] - 3/19) < 1e-12' \
    '"local_batch" not in j["layout"] and "schedule_runs" not in j["layout"]' \
    '"runs" not in j["pipeline_schedule"] and j["pipeline_schedule"]["microbatches"] == 16'
# the chart draws one run, as the model counts its bubble, and says so
run estimate $lb --global-batch 32 --local-batch 4 --svg "$tmp/lb.svg"
if grep -q 'Pipeline schedule: 1f1b, 4 stages, 4 runs of 4 micro-batches; bubble 42.9% of the step' "$tmp/lb.svg" &&
    grep -q 'data-microbatches="4" data-virtual-stages="1" data-bubble-fraction="0.428571429" data-simulated-bubble-fraction="0.428571429"' "$tmp/lb.svg" &&
    grep -q 'bubble of one run; the step repeats it)' "$tmp/lb.svg"; then ok; else
    bad "--svg with --local-batch: not one run of 4 drawn"; fi
run estimate $lb --global-batch 32 --local-batch 4
if grep -q 'local batch     4 sequences per DP rank in one schedule run: 4 runs per step, each filling and' "$tmp/out"; then
    ok; else bad "report: the local batch line is missing"; fi
run export --format megatron --from "$tmp/lb_on.json"
if grep -q -- '--local-batch 4$' "$tmp/out"; then ok; else
    bad "export --from: --local-batch lost on the way back"; fi
expect_error "trainplan: error: --local-batch: 3 is not a multiple of micro-batch 1 dividing global batch / dp = 32 / 2 (0: one schedule run per step)" \
    estimate $lb --global-batch 32 --local-batch 3
expect_error "trainplan: error: --local-batch: 32 is not a multiple of micro-batch 1 dividing global batch / dp = 32 / 2 (0: one schedule run per step)" \
    estimate $lb --global-batch 32 --local-batch 32
expect_error "trainplan: error: --local-batch: the interleaved schedule needs at least pp = 4 micro-batches per schedule run (local batch / micro-batch), got 2" \
    estimate $lb --global-batch 32 --local-batch 2 --schedule interleaved --vpp 2
expect_error "trainplan: error: --local-batch: 0 is out of range [1, 1099511627776]" \
    estimate $lb --global-batch 32 --local-batch 0

# ---------------------------------------------------------------- --packed-seq-len (issue 17)
# Llama 2 7B packed with 120-token examples: the causal core is 120 * 8192
# FLOPs per token per layer forward, x3 x32 = 94371840 (was 4096/120 times
# that); the memory does not move (FlashAttention keeps no scores).
pk="--model llama-2-7b --gpus 8 --seq-len 4096 --global-batch 32 --precision fp8"
run estimate $pk --json
cp "$tmp/out" "$tmp/pk_off.json"
run estimate $pk --packed-seq-len 120 --json
check_json "--packed-seq-len 120" 'j["flops"]["attn_per_token"] == 94371840' \
    'j["flops"]["model_per_token"] == 39736836096' 'j["layout"]["packed_seq_len"] == 120'
cp "$tmp/out" "$tmp/pk_on.json"
run export --format megatron --from "$tmp/pk_on.json"
if grep -q -- '--packed-seq-len 120$' "$tmp/out"; then ok; else
    bad "export --from: --packed-seq-len lost on the way back"; fi
if grep -q packed_seq_len "$tmp/pk_off.json"; then bad "layout.packed_seq_len when not set"; else ok; fi
python3 - "$tmp/pk_off.json" "$tmp/pk_on.json" >"$tmp/pk_chk" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
print(a["memory"] == b["memory"] and b["time"]["step_s"] < a["time"]["step_s"])
PY
if [ "$(cat "$tmp/pk_chk")" = True ]; then ok; else bad "--packed-seq-len: memory moved or the step did not shrink"; fi
# the export's Reproduce line carries it (and only when set)
run export --format megatron $pk --packed-seq-len 120
if grep -q -- '--optimizer adamw --packed-seq-len 120$' "$tmp/out"; then ok; else
    bad "export: the Reproduce line lacks --packed-seq-len 120"; fi
run export --format megatron $pk
if grep -q -- 'packed-seq-len' "$tmp/out"; then bad "export: --packed-seq-len when not set"; else ok; fi
expect_error "trainplan: error: --packed-seq-len: 4097 is out of range [1, seq_len 4096] (0: not packed)" \
    estimate $pk --packed-seq-len 4097
expect_error "trainplan: error: --packed-seq-len: 0 is out of range [1, 134217728]" \
    estimate $pk --packed-seq-len 0
expect_error "trainplan: error: --packed-seq-len: packed sequences attend per example only with FlashAttention (drop --no-flash-attn)" \
    estimate $pk --packed-seq-len 120 --no-flash-attn

# ---- the host side from the GPU preset (issue 17, eleventh round): a
# preset's host_link_gb_per_s, host_memory_gb_per_node and
# host_memory_bw_gb_per_s are the defaults of --pcie-gbps, --host-memory-gb
# and --host-mem-bw-gbps (presets/gpus/*.json host_source); the flags win
# wherever they stand; a preset that states none keeps 50 GB/s, 2000 GB and
# 450 GB/s. ----
OFF="--model llama-3-8b --gpus 8 --recompute none --offload-activations 16 --json"
host_same() { # NAME ARGS_A -- ARGS_B: the two estimates are the same JSON
    local name=$1 a=() b=()
    shift
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift
    "$T" estimate $OFF "${a[@]}" >"$tmp/ha" 2>&1
    "$T" estimate $OFF "$@" >"$tmp/hb" 2>&1
    if cmp -s "$tmp/ha" "$tmp/hb"; then ok; else bad "$name: $(diff "$tmp/ha" "$tmp/hb" | head -4)"; fi
}
host_same "a100-80gb: 25 GB/s, 2000 GB, 300 GB/s" --gpu a100-80gb -- --pcie-gbps 25 --host-memory-gb 2000 \
    --host-mem-bw-gbps 300 --gpu a100-80gb
host_same "a100-40gb: 25 GB/s, 1000 GB, 300 GB/s" --gpu a100-40gb -- --gpu a100-40gb --pcie-gbps 25 \
    --host-memory-gb 1000 --host-mem-bw-gbps 300
host_same "gb200: 173 GB/s, 17280 GB, 13450 GB/s" --gpu gb200 -- --pcie-gbps 173 --gpu gb200 \
    --host-mem-bw-gbps 13450 --host-memory-gb 17280
host_same "h100-sxm: the defaults" --gpu h100-sxm -- --gpu h100-sxm --pcie-gbps 50 --host-memory-gb 2000 \
    --host-mem-bw-gbps 450
run estimate $OFF --gpu a100-80gb
check_json "a100-80gb: offload at 25 GB/s, slower than at 50" \
    'j["time"]["act_offload_bytes"] > 0'
a100_s=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["time"]["step_s"])' "$tmp/out")
run estimate $OFF --gpu a100-80gb --pcie-gbps 50
check_json "a100-80gb: --pcie-gbps 50 is faster" "j[\"time\"][\"step_s\"] < $a100_s"
run estimate --model llama-3-8b --gpus 8 --recompute none --offload-activations 16 --gpu gb200
has "gb200: the report names the host link" "over the host link (173 GB/s)"
# a measured profile's host link (tools/probe/probe.py writes it) replaces
# the preset's as --pcie-gbps's default; the flag still wins
python3 - "$SRC/data/hardware/h100-sxm.json" "$tmp/link.json" "$tmp/nolink.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(d, open(sys.argv[3], "w"))  # the same profile, not the shipped text
d["host_link_gb_per_s"] = 20
d["host_link_source"] = "test: a slow host"
json.dump(d, open(sys.argv[2], "w"))
PY
step_of() { python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["time"]["step_s"])' "$tmp/out"; }
run estimate $OFF --gpu h100-sxm --hw-profile "$tmp/link.json"
s_prof=$(step_of)
run estimate $OFF --gpu h100-sxm --pcie-gbps 20 --hw-profile "$tmp/nolink.json"
s_flag=$(step_of)
run estimate $OFF --gpu h100-sxm --hw-profile "$tmp/nolink.json"
s_pre=$(step_of)
run estimate $OFF --gpu h100-sxm --pcie-gbps 50 --hw-profile "$tmp/link.json"
s_win=$(step_of)
if [ "$s_prof" = "$s_flag" ] && [ "$s_win" = "$s_pre" ] &&
    python3 -c "import sys; sys.exit(not float('$s_prof') > float('$s_pre'))"; then ok
else bad "profile host link: profile $s_prof, --pcie-gbps 20 $s_flag, preset $s_pre, flag wins $s_win"; fi
run estimate --model llama-3-8b --gpus 8 --recompute none --offload-activations 16 --gpu h100-sxm \
    --hw-profile "$tmp/link.json"
has "the profile's host link in the report" "over the host link (20 GB/s)"
# TransformerEngine's fp8 weight copies and userbuffers are parts of the
# weights and the communication buffers, named in the report and the JSON
# (docs/model.md 5 and 6); a bf16 plan without TP overlap has neither
run estimate --model llama-3-70b --gpus 64 --tp 4 --precision fp8 --framework megatron-core
has "report: fp8 weight copies" "    of which fp8 copies           31.88 GiB      34.23 GB"
has "report: userbuffers" "    of which userbuffers"
run estimate --model llama-3-70b --gpus 64 --tp 4 --precision fp8 --framework megatron-core --json
check_json "JSON: the copies are 2 B a linear parameter, inside the weights" \
    'abs(j["memory"]["fp8_copies_bytes"] - 34.23e9) < 0.01e9 and j["memory"]["breakdown"]["weights"] > j["memory"]["fp8_copies_bytes"] and j["memory"]["userbuffers_bytes"] > 0'
run estimate --model llama-3-70b --gpus 64 --tp 4 --json
check_json "JSON: neither part in a bf16 plan without TP overlap" \
    '"fp8_copies_bytes" not in j["memory"] and "userbuffers_bytes" not in j["memory"]'
# the CPU optimizer update runs at the node's memory bandwidth: a DGX A100's
# 300 GB/s is slower than the DGX H100 default's 450
CPUOPT="--model llama-3-8b --gpus 8 --gpu a100-80gb --zero 1 --offload-optimizer 1 --json"
run estimate $CPUOPT
a100_opt=$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["time"]["breakdown"]["optimizer"])' "$tmp/out")
run estimate $CPUOPT --host-mem-bw-gbps 450
check_json "a100-80gb: the CPU update at 450 GB/s is faster than at the preset's 300" \
    "j[\"time\"][\"breakdown\"][\"optimizer\"] < $a100_opt"

finish
