#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check_lengths_test.sh: tools/check-lengths.sh (issue 15's limits, run by
# `make format-check`) on synthetic sources at and just past each limit:
# a function of 200 lines passes and one of 201 fails, counted from the
# first line of a multi-line declaration to the closing brace; a file of
# 1,500 lines passes and one of 1,501 fails; the offender is named.
#
#   bash tests/tools/check_lengths_test.sh
set -u
CHECK="$(cd "$(dirname "$0")/../.." && pwd)/tools/check-lengths.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pass=0
fail=0
bad() {
    fail=$((fail + 1))
    printf 'FAIL: %s\n' "$*"
}

# fn NAME TOTAL: a function of TOTAL lines, its declaration on two lines
fn() {
    printf 'static int %s(int a,\n               int b)\n{\n' "$1"
    for ((i = 0; i < $2 - 5; i++)); do
        printf '    a += b;\n'
    done
    printf '    return a;\n}\n'
}

# expect FILE RC OUTPUT: the check's exit status and its first line
expect() {
    local out rc
    out=$("$CHECK" "$1" 2>&1)
    rc=$?
    if [ "$rc" != "$2" ] || [ "${out%%$'\n'*}" != "$3" ]; then
        bad "$1: got rc $rc, \"${out%%$'\n'*}\"; want rc $2, \"$3\""
    else
        pass=$((pass + 1))
    fi
}

{ fn small 10; echo; fn at_limit 200; } >"$dir/ok.c"
expect "$dir/ok.c" 0 "check-lengths: 1 files, none over 1500 lines, no function over 200"

{ fn small 10; echo; fn too_long 201; } >"$dir/long.c"
expect "$dir/long.c" 1 "$dir/long.c:12: function too_long is 201 lines (limit 200)"

# a table, not a function: its lines count toward the file only
{ echo 'static const int table[] = {'; for ((i = 0; i < 1498; i++)); do echo '    1,'; done
  echo '};'; } >"$dir/file_ok.c"
expect "$dir/file_ok.c" 0 "check-lengths: 1 files, none over 1500 lines, no function over 200"

{ cat "$dir/file_ok.c"; echo; } >"$dir/file_long.c"
expect "$dir/file_long.c" 1 "$dir/file_long.c:1501: 1501 lines (limit 1500)"

echo "check_lengths_test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
