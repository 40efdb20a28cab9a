# SPDX-License-Identifier: MIT
#
# lib.sh: the harness shared by the CLI test scripts (tests/cli/*_test.sh).
# Source it after `set -u` and setting T (the trainplan binary):
#
#   . "$(dirname "$0")/lib.sh"
#
# It makes $tmp (removed on exit) and the pass/fail counters, and defines
# ok, bad, run, expect_error, has, json_check and finish. Needs python3 for
# json_check.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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

# json_check NAME WANT_RC PYTHON_EXPR...: after `run ... --json`, the run
# exited WANT_RC and every expression, evaluated with j = the parsed object,
# is true. Helpers: num(x) (finite number), integer(x), close(a, b, rtol=0.01).
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

# finish: the final "N passed, M failed" line; fails when anything failed
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
