#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# regen-goldens.sh: rewrite every file the tests compare with the
# program's own output, from the program as it is now, then show what
# changed, for review before a commit. The only way these files are meant
# to change: after a deliberate change of an output, run it (or
# `make goldens`), read the diff, and say in the commit why each line moved.
#
#   tools/regen-goldens.sh [build/trainplan]
#
# What it rewrites (docs/TESTING.md lists them):
#   tests/golden/       the export goldens: tests/cli/export_test.sh with
#                       TP_UPDATE_GOLDEN=1 (it writes each golden instead of
#                       comparing, and still runs its other checks);
#   docs/trainplan.1    the per-command flag sections (tools/gen_man.py);
#   docs/RELIABILITY.md the hostile-input table (tests/hostile/hostile.py doc);
#   docs/ACCURACY.md    the in-sample summary and per-row table
#                       (tools/accuracy_table.py write).
# Then prints `git diff --stat` and `git diff` of those and any new file.
# Exits non-zero when the export test's other checks or a generator failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
T=${1:-$root/build/trainplan}
T=$(cd "$(dirname "$T")" && pwd)/$(basename "$T")
if [ ! -x "$T" ]; then
    echo "regen-goldens: no program at $T (run make first)" >&2
    exit 2
fi
TP_UPDATE_GOLDEN=1 TP_SOURCE_DIR=$root bash "$root/tests/cli/export_test.sh" "$T"
rc=$?
cd "$root" || exit 2
python3 tools/gen_man.py "$T" || rc=1
python3 tests/hostile/hostile.py doc docs/RELIABILITY.md || rc=1
python3 tools/accuracy_table.py --trainplan "$T" write docs/ACCURACY.md || rc=1
paths="tests/golden docs/trainplan.1 docs/RELIABILITY.md docs/ACCURACY.md"
echo "---- changes to $paths (review, then commit with the reason):"
# shellcheck disable=SC2086
git --no-pager diff --stat -- $paths
# shellcheck disable=SC2086
git --no-pager status --short --untracked-files=all -- $paths | grep '^??' || true
# shellcheck disable=SC2086
git --no-pager diff -- $paths
# shellcheck disable=SC2086
if git diff --quiet -- $paths && [ -z "$(git status --porcelain -- $paths)" ]; then
    echo "(no change)"
fi
exit "$rc"
