#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-lengths.sh: the size limits of issue 15 on the C sources git tracks
# (src/, include/, tests/, bench/, tools/): no file over 1,500 lines, no
# function over 200. Run by `make format-check` (and so by CI); no
# exemptions: a file or function over a limit is split along a seam, as
# time.c was (time_hybrid.c, time_vision.c).
#
# A function is counted from the first line of its declaration to its
# closing brace. .clang-format (BreakBeforeBraces: Linux) puts a function's
# opening and closing braces alone at column 0 and nothing else there, so
# the check is a line scan, not a parser: the declaration starts at the
# last line beginning with an identifier before a "{" line at column 0.
#
# Usage: tools/check-lengths.sh [FILE...] (default: the tracked sources).
# Prints one line per offender, FILE:LINE: what, and exits 1 if any;
# with CHECK_LENGTHS_ALL=1 also every function's length, name and place.
set -eu

MAX_FILE_LINES=1500
MAX_FUNCTION_LINES=200

if [ $# -eq 0 ]; then
    cd "$(dirname "$0")/.."
    # shellcheck disable=SC2046 # one word per path: the tree's paths have no blanks
    set -- $(git ls-files 'src/*.[ch]' 'include/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' \
        'tools/*.[ch]')
fi

awk -v max_file="$MAX_FILE_LINES" -v max_fn="$MAX_FUNCTION_LINES" '
function finish_file() {
    if (file != "" && lines > max_file) {
        printf "%s:%d: %d lines (limit %d)\n", file, lines, lines, max_file
        bad++
    }
}
FNR == 1 {
    finish_file()
    file = FILENAME; lines = 0; in_fn = 0; sig = 0; sig_text = ""
}
{ lines = FNR }
in_fn && /^}/ {
    n = FNR - sig + 1
    if (ENVIRON["CHECK_LENGTHS_ALL"] != "") printf "%d %s:%d %s\n", n, file, sig, name
    if (n > max_fn) {
        printf "%s:%d: function %s is %d lines (limit %d)\n", file, sig, name, n, max_fn
        bad++
    }
    in_fn = 0; sig = 0; sig_text = ""
    next
}
in_fn { next }
/^[A-Za-z_]/ { sig = FNR; sig_text = $0; next }
/^{[ \t]*$/ && sig {
    name = sig_text
    if (match(name, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/))
        name = substr(name, RSTART, RLENGTH - 1)
    sub(/[ \t]+$/, "", name)
    in_fn = 1
    next
}
/^[ \t]/ && sig { sig_text = sig_text " " $0; next }
{ sig = 0; sig_text = "" }
END {
    finish_file()
    if (bad) {
        printf "check-lengths: %d over the limits (files %d lines, functions %d)\n", bad, max_file, max_fn
        exit 1
    }
    printf "check-lengths: %d files, none over %d lines, no function over %d\n", ARGC - 1, max_file, max_fn
}' "$@"
