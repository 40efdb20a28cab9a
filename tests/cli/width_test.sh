#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# width_test.sh: human output fits the terminal (issue 19). For every
# command line below (realistic inputs: the presets, the seeds' examples,
# a layout that does not fit, the measured runs, every --help):
#   - with COLUMNS unset, no line is wider than 100 characters;
#   - with COLUMNS=60, none is wider than 60 (COLUMNS is honoured);
#   - folding loses nothing: the text without its whitespace is the same
#     as with COLUMNS=100000 (no folding at all);
# and COLUMNS that is not a number reads as unset, a wide COLUMNS lets a
# long line through, JSON/CSV/Markdown are never folded, and in all of it a
# noun agrees with its count ("1 node") and counts are grouped ("30,048").
#
#   bash tests/cli/width_test.sh /path/to/trainplan
set -u
T=${1:?usage: width_test.sh /path/to/trainplan}
SRC=${TP_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$(dirname "$0")/lib.sh"
unset COLUMNS # lib.sh sets it for the content checks; this test is about folding

# One command line per line ({src} is the source tree); '#' starts a comment;
# a leading '~' marks output whose text depends on the width (presets cuts
# its citations to the columns left), checked for width only.
cases=$(sed "s|{src}|$SRC|g" <<'EOF'
--help
help
version
~presets
estimate
estimate --model llama-3-70b --gpus 64 --tp 8 --pp 4
estimate --model mixtral-8x7b --gpus 64 --ep 8 --global-batch 512
estimate --model llama-3.1-405b --gpus 8
estimate --from-megatron {src}/tests/golden/export/llama3-70b-256xh100-tp8-pp2/megatron.txt --gpus 256
plan
plan --model llama-3-70b --gpus 256
plan --model llama-3.1-405b --gpu h100-sxm --deadline-days 30
search --gpus 64 --global-batch 512
search --model llama-3-70b --gpus 256 --global-batch 1024 --seq-len 8192 --top 10
search --model llama-2-7b --gpus 8 --seq-len 2097152 --global-batch 1
explain --gpus 64 --global-batch 512
explain --model llama-2-7b --gpus 64 --seq-len 131072 --global-batch-tokens 4194304
explain --model mixtral-8x7b --gpus 64 --global-batch 512
validate {src}/data/runs/runs-dev.csv
validate {src}/tests/data/bloom-prequel-heldout.csv
estimate --help
plan --help
search --help
explain --help
validate --help
export --help
presets --help
serve --help
EOF
)

# widest WIDTH FILE: every line of FILE has at most WIDTH characters (UTF-8)
widest() {
    python3 - "$1" "$2" <<'PY'
import sys
w = int(sys.argv[1])
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
over = [l for l in lines if len(l) > w]
if over:
    print("%d lines over %d, the widest %d: %s" % (len(over), w, max(map(len, over)), over[0][:140]))
    sys.exit(1)
PY
}

# same_text A B: the two files hold the same text but for whitespace (and
# the search's own timing, which differs from run to run)
same_text() {
    python3 - "$1" "$2" <<'PY'
import re, sys
def text(f):
    s = "".join(open(f, encoding="utf-8").read().split())
    return re.sub(r"in[0-9.]+s\([0-9.]+millionevaluations/s\)", "", s)
sys.exit(text(sys.argv[1]) != text(sys.argv[2]))
PY
}

while IFS= read -r line; do
    case $line in "" | "#"*) continue ;; esac
    same=yes
    case $line in "~"*) same=no line=${line#"~"} ;; esac
    # shellcheck disable=SC2086
    "$T" $line >"$tmp/w100" 2>&1
    # shellcheck disable=SC2086
    COLUMNS=60 "$T" $line >"$tmp/w60" 2>&1
    # shellcheck disable=SC2086
    COLUMNS=100000 "$T" $line >"$tmp/wide" 2>&1
    cat "$tmp/wide" >>"$tmp/all"
    if [ ! -s "$tmp/w100" ]; then
        bad "$line: no output"
        continue
    fi
    if why=$(widest 100 "$tmp/w100"); then ok; else bad "$line (COLUMNS unset): $why"; fi
    if why=$(widest 60 "$tmp/w60"); then ok; else bad "$line (COLUMNS=60): $why"; fi
    [ "$same" = yes ] || continue
    if same_text "$tmp/w100" "$tmp/wide"; then ok; else bad "$line: folding to 100 changed the text"; fi
    if same_text "$tmp/w60" "$tmp/wide"; then ok; else bad "$line: folding to 60 changed the text"; fi
done <<<"$cases"

# Plurals agree and counts are grouped (issue 19: "1 node", "142,933 steps")
# in everything printed above, plus a plan on one node.
COLUMNS=100000 "$T" plan --model llama-3-8b --tokens 1e9 --deadline-days 30 >>"$tmp/all" 2>&1
if why=$(python3 - "$tmp/all" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
nouns = "nodes|GPUs|layouts|sequences|micro-batches|experts|layers|rows|steps"
bad = re.findall(r"(?<![\d.,x*/^e+-])1 (?:%s)\b" % nouns, text)
# a sequence length is a flag value ("sequence 131072 tokens"), written as typed
bad += re.findall(r"(?<![\d.,e+-])(?<!sequence )(?<!seq )\d{5,} (?:tokens|layouts|steps|sequences|tokens/s)\b", text)
if bad:
    print(sorted(set(bad))[:8])
    sys.exit(1)
PY
); then ok; else bad "a plural or an ungrouped count: $why"; fi

# COLUMNS that is not a width reads as unset; a wide one lets long lines through
"$T" search --gpus 64 --global-batch 512 >"$tmp/a" 2>&1
COLUMNS=abc "$T" search --gpus 64 --global-batch 512 >"$tmp/b" 2>&1
if same_text "$tmp/a" "$tmp/b" && widest 100 "$tmp/b" >/dev/null; then ok; else bad "COLUMNS=abc is not read as unset"; fi
COLUMNS=250 "$T" search --gpus 64 --global-batch 512 >"$tmp/c" 2>&1
if ! widest 100 "$tmp/c" >/dev/null && widest 250 "$tmp/c" >/dev/null; then ok; else
    bad "COLUMNS=250: want some line over 100 and none over 250"; fi
# a COLUMNS below the floor folds at 40
COLUMNS=10 "$T" plan >"$tmp/d" 2>&1
if widest 40 "$tmp/d" >/dev/null && ! widest 39 "$tmp/d" >/dev/null; then ok; else
    bad "COLUMNS=10: want lines of at most 40 (the floor), some of 40"; fi
# JSON, CSV and Markdown are data: never folded
for fmt in --json --csv --markdown; do
    "$T" search --gpus 64 --global-batch 512 --top 2 "$fmt" >"$tmp/e" 2>&1
    COLUMNS=40 "$T" search --gpus 64 --global-batch 512 --top 2 "$fmt" >"$tmp/f" 2>&1
    sed -E 's/[0-9.]+ s \([0-9.]+ million evaluations\/s\)//; s/"wall_s": [0-9.e-]+//' "$tmp/e" >"$tmp/e2"
    sed -E 's/[0-9.]+ s \([0-9.]+ million evaluations\/s\)//; s/"wall_s": [0-9.e-]+//' "$tmp/f" >"$tmp/f2"
    if cmp -s "$tmp/e2" "$tmp/f2" && ! widest 40 "$tmp/f" >/dev/null; then ok; else
        bad "search $fmt changed under COLUMNS=40"; fi
done

finish
