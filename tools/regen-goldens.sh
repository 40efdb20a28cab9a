#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# regen-goldens.sh: rewrite the golden files of tests/golden/ from the
# program as it is now, then show what changed, for review before a commit.
# The only way the goldens are meant to change: after a deliberate change
# of an output, run it, read the diff, and say in the commit why each line
# moved.
#
#   tools/regen-goldens.sh [build/trainplan]
#
# Runs tests/cli/export_test.sh with TP_UPDATE_GOLDEN=1 (it writes each
# golden instead of comparing, and still runs its other checks), then
# prints `git diff --stat` and `git diff` of tests/golden/ and any new file
# there. Exits non-zero when the test script's other checks failed.
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
echo "---- changes to tests/golden/ (review, then commit with the reason):"
git --no-pager diff --stat -- tests/golden
git --no-pager status --short --untracked-files=all -- tests/golden | grep '^??' || true
git --no-pager diff -- tests/golden
if git diff --quiet -- tests/golden && [ -z "$(git status --porcelain -- tests/golden)" ]; then
    echo "(no change)"
fi
exit "$rc"
