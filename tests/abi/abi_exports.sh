#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# abi_exports.sh: libtp.so exports exactly the functions that the public
# headers declare TP_API, and nothing else. libtp is compiled with
# -fvisibility=hidden (CMakeLists.txt), so a helper shared between the
# library's files (tp__gcd64, ...) stays inside it, and a TP_API that is
# declared but not defined fails here rather than at a user's link.
#
#   bash tests/abi/abi_exports.sh build/libtp.so include/tp
#
# Prints one line per difference and "N passed, M failed"; exits non-zero
# on any failure.
set -u
lib=${1:?usage: abi_exports.sh LIBTP_SO INCLUDE_DIR}
inc=${2:?usage: abi_exports.sh LIBTP_SO INCLUDE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# Defined dynamic symbols of code and data (nm -D: "ADDRESS TYPE NAME").
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDRB]$/ {print $3}' | sort -u >"$tmp/exported"
# Every "TP_API ... tp_name(" in the headers (a declaration may wrap after the name).
grep -ohE 'TP_API[^;(]*\btp_[a-z0-9_]+ *\(' "$inc"/*.h |
    grep -oE 'tp_[a-z0-9_]+ *\($' | tr -d ' (' | sort -u >"$tmp/declared"

if [ ! -s "$tmp/declared" ]; then
    echo "FAIL: no TP_API declaration found under $inc"
    fail=$((fail + 1))
fi
while read -r s; do
    echo "FAIL: $s is exported by $(basename "$lib") but not declared TP_API in $inc"
    fail=$((fail + 1))
done < <(comm -23 "$tmp/exported" "$tmp/declared")
while read -r s; do
    echo "FAIL: $s is declared TP_API but not exported by $(basename "$lib")"
    fail=$((fail + 1))
done < <(comm -13 "$tmp/exported" "$tmp/declared")
if [ "$fail" -eq 0 ]; then
    pass=$(wc -l <"$tmp/declared")
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
