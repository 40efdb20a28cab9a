# SPDX-License-Identifier: MIT
#
# lib.sh: the harness shared by the CLI test scripts (tests/cli/*_test.sh).
# Source it after `set -u` and setting T (the trainplan binary):
#
#   . "$(dirname "$0")/lib.sh"
#
# It makes $tmp (removed on exit) and the pass/fail counters, and defines
# ok, bad, run, expect_error, has, doc_sample, json_check, pycheck, svg_vs_estimate,
# render_check, no_temp_files and finish. Needs python3 for the checks.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Human output is folded to COLUMNS (100 when unset). The checks here read
# whole lines of content, so they run unfolded; width_test.sh checks the
# folding itself (every command within 100 columns, COLUMNS honoured).
export COLUMNS=100000

pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    printf 'FAIL: %s\n' "$*"
}

# run ARGS...: stdout -> $tmp/out, stderr -> $tmp/err, status -> $rc
run() {
    "$T" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# expect_error WANT_STDERR_LINE ARGS...: exit 2, exactly that stderr, no stdout
expect_error() {
    local want=$1
    shift
    run "$@"
    local got
    got=$(cat "$tmp/err")
    if [ "$rc" -eq 2 ] && [ "$got" = "$want" ] && [ ! -s "$tmp/out" ]; then
        ok
    else
        bad "trainplan $*: exit $rc, stderr [$got], want exit 2 and [$want]"
    fi
}

# has NAME TEXT: stdout of the last run contains TEXT (fixed string)
has() {
    if grep -qF -- "$2" "$tmp/out"; then ok; else bad "$1: stdout lacks [$2]"; fi
}

# doc_sample DOC PREFIX: the fenced block of DOC whose first line starts
# with PREFIX is an abridged copy of stdout of the last run: each of its
# lines, but for "...", is a whole line of that stdout. Keeps the samples in
# docs/ true as the model changes.
doc_sample() {
    local doc=$1 prefix=$2 sample line
    sample=$(awk -v p="$prefix" '/^```/ { if (inside) exit; if ((getline l) > 0 && index(l, p) == 1) { inside = 1; print l }; next }
                                 inside && $0 !~ /^ *\.\.\.$/ { print }' "$doc")
    if [ -z "$sample" ]; then
        bad "$doc: no sample beginning [$prefix]"
        return
    fi
    while IFS= read -r line; do
        if grep -qxF -- "$line" "$tmp/out"; then ok; else bad "$doc shows a line the program does not print: [$line]"; fi
    done <<<"$sample"
}

# json_check NAME WANT_RC PYTHON_EXPR...: after `run ... --json`, the run
# exited WANT_RC and every expression, evaluated with j = the parsed object,
# is true. Helpers: num(x) (finite number), integer(x), close(a, b, rtol=0.01),
# by_id(rows) (a list of objects as a dict by their "id").
json_check() {
    local name=$1 want=$2
    shift 2
    if [ "$rc" -ne "$want" ]; then
        bad "$name: exit $rc (want $want): $(head -c 300 "$tmp/err")"
        return
    fi
    local out
    if out=$(python3 - "$tmp/out" "$@" 2>&1 <<'PY'
import json, math, sys

def no_const(c):
    raise ValueError("non-finite JSON constant " + c)

with open(sys.argv[1]) as f:
    j = json.load(f, parse_constant=no_const)

def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)

def integer(x):
    return isinstance(x, int) and not isinstance(x, bool)

def close(a, b, rtol=0.01):
    return abs(a - b) <= rtol * abs(b)

def by_id(rows):
    return {r["id"]: r for r in rows}

# the sequence-length factor of attention (kernel.c tp__attn_seq_factor_at)
# at the FlashAttention-3 paper's points: its causal forward and backward
# TFLOP/s at head dim 128 over their 16k rates, in the 1 : 2.5 FLOP ratio
FA3_FWD = {512: 292, 1024: 423, 2048: 521, 4096: 579, 8192: 602, 16384: 616}
FA3_BWD = {512: 316, 1024: 424, 2048: 501, 4096: 542, 8192: 559, 16384: 561}

def seq_factor(n):
    return 3.5 / (FA3_FWD[16384] / FA3_FWD[n] + 2.5 * FA3_BWD[16384] / FA3_BWD[n])

# gpt-oss at 2048 tokens: one layer in two global, the others windowed at
# 128 (their causal work (128 - 128^2/4096) / 1024 of a global one's, at
# the 512 point's factor: below the figures), weighted by work
def oss():
    local = (128 - 128 * 128 / 4096) / 1024
    return (1 + local) / (1 / seq_factor(2048) + local / seq_factor(512))

failed = []
for e in sys.argv[2:]:
    try:
        if not eval(e):
            failed.append(e)
    except Exception as ex:
        failed.append(e + " (" + repr(ex) + ")")
if failed:
    print("; ".join(failed))
    sys.exit(1)
PY
    ); then
        ok
    else
        bad "$name: $out"
    fi
}

# pycheck NAME ARGS... <<'PY' ... PY: run the Python script on stdin with
# ARGS as sys.argv[1:]; passes when it exits 0 (an assert failing or an
# exception fails it, and its last lines are shown).
pycheck() {
    local name=$1 out
    shift
    if out=$(python3 - "$@" 2>&1); then ok; else bad "$name: $(printf '%s' "$out" | tail -4)"; fi
}

# svg_vs_estimate NAME SVG JSON [INDEX]: every figure drawn in SVG (its
# data-* attributes) is the estimate object's in JSON (INDEX: the array
# element, for search --json): capacity, peak, each stage's memory parts,
# each step-time part, the bubble fraction, pipeline stages and
# micro-batches.
svg_vs_estimate() {
    local name=$1
    shift
    pycheck "$name" "$@" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
e = json.load(open(sys.argv[2]))
if len(sys.argv) > 3 and sys.argv[3] != "":
    e = e[int(sys.argv[3])]
assert svg.tag == ns + "svg", svg.tag
mem = svg.find(f".//{ns}g[@class='memory']")
assert int(mem.get("data-capacity-bytes")) == e["memory"]["capacity_bytes"]
assert int(mem.get("data-peak-bytes")) == e["memory"]["peak_bytes"]
# bars: the heaviest stage, then the first and the last where they differ
m, pp = e["memory"], e["layout"]["pp"]
want = {m["stage"]: m}
if pp > 1:
    want.setdefault(0, m["stages"]["first"])
    want.setdefault(pp - 1, m["stages"]["last"])
stages = mem.findall(f"{ns}g[@class='stage']")
assert sorted(int(g.get("data-stage")) for g in stages) == sorted(want), \
    ([g.get("data-stage") for g in stages], sorted(want))
for st in stages:
    w = want[int(st.get("data-stage"))]
    parts = {r.get("data-component"): int(r.get("data-bytes")) for r in st.findall(f"{ns}rect")}
    for k, v in w["breakdown"].items():
        assert abs(parts[k] - v) <= 1, (k, parts[k], v)
sched = svg.find(f".//{ns}g[@class='schedule']")
assert int(sched.get("data-stages")) == e["layout"]["pp"]
assert int(sched.get("data-microbatches")) == e["layout"]["grad_accum"]
t = e["time"]
assert t is not None, "no step time: every valid configuration has one"
assert abs(float(sched.get("data-bubble-fraction")) - t["bubble_fraction"]["of_total"]) <= 1e-9
tm = svg.find(f".//{ns}g[@class='time']")
parts = {r.get("data-component"): float(r.get("data-seconds"))
         for r in tm.findall(f"{ns}rect[@class='part']")}
assert sorted(parts) == sorted(t["breakdown"]), (sorted(parts), sorted(t["breakdown"]))
for k, v in t["breakdown"].items():
    assert abs(parts[k] - v) <= 1e-8 * max(abs(v), 1e-12), (k, parts[k], v)
PY
}

# render_check NAME SVG: rsvg-convert (Debian librsvg2-bin) renders it to a
# PNG; required under CI=true, skipped with a note elsewhere.
render_check() {
    local name=$1 svg=$2
    if command -v rsvg-convert >/dev/null 2>&1; then
        if rsvg-convert -o "$svg.png" "$svg" 2>"$tmp/rsvg.err" &&
            python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); sys.exit(not (d[:8]==b"\x89PNG\r\n\x1a\n" and len(d)>2000))' "$svg.png"; then
            ok
        else
            bad "$name: rsvg-convert cannot render $svg: $(cat "$tmp/rsvg.err")"
        fi
    elif [ "${CI:-}" = true ]; then
        bad "$name: rsvg-convert is missing under CI (tools/install-deps.sh installs librsvg2-bin)"
    else
        echo "note: rsvg-convert not installed (Debian librsvg2-bin); $name not rendered"
    fi
}

# no_temp_files NAME DIR: no PATH.tmp.XXXXXX left in DIR (tp_io_write_files)
no_temp_files() {
    local left
    left=$(find "$2" -maxdepth 1 -name '*.tmp.*' | head -3)
    if [ -z "$left" ]; then ok; else bad "$1: temporary files left behind: $left"; fi
}

# finish: the final "N passed, M failed" line; fails when anything failed
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}

# need_torch_python WHAT: PY is the first python3 on PATH that imports
# torch (tools/probe, tools/steps). Without one, under CI=true a failure
# (tools/install-deps.sh installs python3-torch), else the test skips
# (exit 77: ctest's SKIP_RETURN_CODE) saying that WHAT runs went untested.
need_torch_python() {
    PY=""
    for py in $(type -ap python3 python3.11 python3.12 2>/dev/null | awk '!seen[$0]++'); do
        if "$py" -c "import torch" 2>/dev/null; then PY=$py; break; fi
    done
    [ -n "$PY" ] && return 0
    if [ "${CI:-}" = true ]; then
        bad "no python3 with PyTorch under CI=true (tools/install-deps.sh installs python3-torch)"
        finish
        exit 1
    fi
    echo "SKIP: no python3 with PyTorch on PATH: the $1 runs were not tested" \
        "(Debian: apt-get install python3-torch, or tools/install-deps.sh)"
    exit 77
}
