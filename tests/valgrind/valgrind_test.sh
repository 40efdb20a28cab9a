#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# valgrind memcheck over the CLI (issue 8): every invocation of the CLI test
# scripts (tests/cli/*_test.sh: the examples, the golden exports of
# tests/golden/), every model and GPU preset, the golden Megatron/DeepSpeed
# files imported back, and the CLI cases of the hostile-input catalogue
# (tests/hostile/cases.tsv: error paths) run under
#   valgrind --leak-check=full (definite, indirect and possible leaks are errors)
# and every run must end with "ERROR SUMMARY: 0 errors". Memory that stays
# reachable at exit (the preset registry, built once per process) is not a leak.
#
# Usage: valgrind_test.sh TRAINPLAN   (ctest registers it in builds without
# sanitizers; exit 77 = skipped when valgrind is not installed.)
# Runs two jobs at a time; about 12 minutes on 2 cores (726 s on 2026-11-25).
set -u
T=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind is not installed (tools/install-deps.sh installs it)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
logs=$work/logs
mkdir -p "$logs"

# The wrapper every test below runs instead of trainplan: same arguments,
# same exit code, one valgrind log per process.
vg=$work/trainplan
cat >"$vg" <<WRAP
#!/bin/sh
exec valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \\
    --errors-for-leak-kinds=definite,indirect,possible --track-origins=no \\
    --log-file="$logs/%p.log" "$T" "\$@"
WRAP
chmod +x "$vg"

jobs_file=$work/jobs
: >"$jobs_file"
n=0
anyrc=" "
# job CMD [any]: "any" = its exit status does not count (the CLI test scripts: their
# checks pass in the native run, and their timing checks cannot under valgrind).
job() {
    n=$((n + 1))
    [ "${2:-}" = any ] && anyrc="$anyrc $n "
    printf 's=$(date +%%s); ( %s ) >%q 2>&1; echo $? $(($(date +%%s) - s)) >%q\n' "$1" \
        "$work/job$n.out" "$work/job$n.rc" >>"$jobs_file"
}
# The CLI test scripts, with the wrapper as their binary (longest first).
# plan_test.sh is left out: its 60 plans take 4 minutes under valgrind; the
# plans below stand for it (the default, given layout, a small model, a deadline).
for sh in "$src"/tests/cli/*_test.sh; do
    [ "$(basename "$sh")" = plan_test.sh ] && continue
    job "$(printf 'TP_SOURCE_DIR=%q bash %q %q' "$src" "$sh" "$vg")" any
done
# The hostile catalogue's CLI cases (error paths) in two halves; HTTP bodies left out.
for i in 0 1; do
    job "$(printf 'TP_HOSTILE_NO_HTTP=1 TP_HOSTILE_SHARD=%d/2 python3 %q test %q' "$i" \
        "$src/tests/hostile/hostile.py" "$vg")"
done
for args in "--json" "--gpus 512 --tp 4 --pp 1 --zero 1 --json" \
    "--model llama-3.2-1b --gpus 64 --json" \
    "--gpu h100-sxm --tokens 2e12 --flops-basis 6nd --gpus 512 --deadline-days 30 --json"; do
    job "$(printf '%q plan %s >/dev/null' "$vg" "$args")"
done
# Every preset, and the golden imports.
job "$(printf '%q presets --json >/dev/null && %q presets >/dev/null' "$vg" "$vg")"
presets=$("$T" presets --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for kind in ("models", "gpus"):
    for p in d.get(kind, []):
        print(kind, p["name"])')
if [ -z "$presets" ]; then
    echo "FAIL: could not list the presets"
    exit 1
fi
while read -r kind name; do
    flag=--gpu
    [ "$kind" = models ] && flag=--model
    job "$(printf '%q estimate %s %q --gpus 8 --json >/dev/null' "$vg" "$flag" "$name")"
done <<<"$presets"
# The golden exports imported back, with the flags of their plan (README.md's table).
golden=$(sed -n 's/^| `\([^`]*\)` | `\([^`]*\)` |$/\1 \2/p' "$src/tests/golden/export/README.md")
if [ -z "$golden" ]; then
    echo "FAIL: no golden plans in tests/golden/export/README.md"
    exit 1
fi
while read -r dir flags; do
    d=$src/tests/golden/export/$dir
    gpus=$(printf '%s\n' "$flags" | sed -n 's/.*--gpus \([0-9]*\).*/\1/p')
    job "$(printf '%q estimate --gpus %s --from-megatron %q --json >/dev/null' "$vg" "$gpus" "$d/megatron.txt")"
    job "$(printf '%q estimate %s --from-deepspeed %q --json >/dev/null' "$vg" "$flags" "$d/deepspeed.json")"
    job "$(printf '%q estimate --from-torchtitan %q --json >/dev/null' "$vg" "$d/torchtitan.py")"
    job "$(printf '%q estimate --gpus %s --from-torchtitan %q --json >/dev/null' "$vg" "$gpus" "$d/torchtitan-toml.toml")"
done <<<"$golden"

start=$(date +%s)
tr '\n' '\0' <"$jobs_file" | xargs -0 -P 2 -I{} bash -c '{}'
elapsed=$(($(date +%s) - start))

fail=0
for i in $(seq 1 "$n"); do
    read -r rc secs <"$work/job$i.rc" || rc=missing
    [ "${TP_VALGRIND_VERBOSE:-}" ] && echo "job $i: exit $rc, ${secs:-?}s"
    case "$anyrc" in *" $i "*) continue ;; esac
    if [ "$rc" != 0 ]; then
        fail=$((fail + 1))
        echo "FAIL: job $i exited $rc: $(sed -n "${i}p" "$jobs_file" | cut -c1-200)"
        grep -E '^FAIL' "$work/job$i.out" | head -5
        tail -n 3 "$work/job$i.out"
    fi
done
nlogs=$(find "$logs" -name '*.log' | wc -l)
bad=0
for log in "$logs"/*.log; do
    if [ -s "$log" ]; then # -q: a clean run leaves an empty log
        bad=$((bad + 1))
        if [ "$bad" -le 3 ]; then
            echo "FAIL: valgrind reported errors or leaks ($log):"
            head -40 "$log"
        fi
    fi
done
echo "$n jobs, $nlogs trainplan processes under valgrind in ${elapsed}s: $bad with errors or leaks, $fail jobs failed"
if [ "$nlogs" -lt 300 ]; then
    echo "FAIL: expected at least 300 processes, got $nlogs"
    fail=$((fail + 1))
fi
[ "$bad" -eq 0 ] && [ "$fail" -eq 0 ]
