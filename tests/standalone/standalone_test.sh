#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# standalone_test.sh: the repository stands alone (issue 15). No tracked
# file names the shared reference folder that used to sit beside the
# checkout (`git grep -n '\.\./shared'` finds nothing), and the data the
# tests and docs cite is in the repository: data/runs/runs-dev.csv (111
# rows, as validate_test.sh counts them) with its sources,
# tests/data/seed-examples.md and docs/formulas.md.
#
#   TP_SOURCE_DIR=. bash tests/standalone/standalone_test.sh
#
# The pattern is built from two pieces so that this file does not match
# itself. .ci/run also runs the whole suite in a clone with nothing beside
# it, which catches a read that no pattern names. Outside a git checkout
# (a release tarball) the tree is searched with grep instead.
set -u
SRC=${TP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$SRC" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    printf 'FAIL: %s\n' "$*"
}

up='\.\.'
pattern="$up/shared"
if git -c safe.directory='*' rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    found=$(git -c safe.directory='*' grep -n -e "$pattern" -- . 2>&1)
    st=$?
else
    found=$(grep -rIn --exclude-dir='.git' --exclude-dir='build*' --exclude-dir=node_modules \
        -e "$pattern" . 2>&1)
    st=$?
fi
# grep: 1 = nothing found (what we want), 0 = found, 2 = an error.
if [ "$st" -eq 1 ]; then ok; else bad "files name the shared folder (grep exit $st):"$'\n'"$found"; fi

for f in data/runs/runs-dev.csv data/runs/runs-dev-sources.md tests/data/seed-examples.md \
    docs/formulas.md; do
    if [ -s "$f" ]; then ok; else bad "$f is missing or empty"; fi
done
# 111 records (one line each) under the header; the header names the columns
# src/io/runs_csv.h reads.
lines=$(wc -l <data/runs/runs-dev.csv)
if [ "$lines" -eq 112 ]; then ok; else bad "data/runs/runs-dev.csv has $lines lines, want 112"; fi
if head -n 1 data/runs/runs-dev.csv | grep -q '^id,source,model_name,'; then ok; else
    bad "data/runs/runs-dev.csv: unexpected header"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
