#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Load test of `trainplan serve` (issue 8): wrk (Debian package `wrk`)
# against POST /api/estimate on loopback, and the server's resident memory
# (VmRSS, /proc/PID/status) before, after a warm-up and after the run.
#
#   tools/loadtest.sh [path/to/trainplan] [seconds] [connections]
#   (defaults: build/trainplan, 60 s, 64 connections; 2 wrk threads)
#
# LONG_SEARCHES=N (issue 14): N clients POST a search of about 10^8
# layouts to /api/search in a loop for the whole run (each ends at the
# server's 5 s --time-limit, or as 503 busy), and a second wrk run asks for
# GET / meanwhile; every search must get a status (200 or 503).
#
# Prints wrk's summary, the errors and timeouts, requests/s and the three
# RSS figures; exits 1 if a request failed or timed out, a reply was not
# 200, or RSS grew by more than 10% (or 4 MiB) from after the warm-up to
# the end. Not part of ctest (it takes a minute); see docs/RELIABILITY.md.
#
# Uses wrk, and curl with LONG_SEARCHES (Debian packages `wrk`, `curl`),
# which neither tools/install-deps.sh nor CI installs; without them it uses
# tools/loadgen.py (python3 only) instead and says so: the same checks,
# but request rates far below wrk's, not comparable with the figures in
# docs/RELIABILITY.md. LOADGEN=python uses loadgen.py even where wrk and
# curl are installed. What the suite itself runs under load is
# tests/http/limits_test.py (ctest http_limits).
set -euo pipefail
exe=${1:-build/trainplan}
secs=${2:-60}
conns=${3:-64}
here=$(cd "$(dirname "$0")" && pwd)
estimate_body='{"model": "llama-3-70b", "gpus": 64, "tp": 8, "pp": 4, "seq-len": 8192, "global-batch": 512}'
if [ "${LOADGEN:-}" != python ] && command -v wrk >/dev/null; then
  have_wrk=1
else
  have_wrk=0
  echo "loadtest: wrk not found: using tools/loadgen.py (python3; its rates are not wrk's)" >&2
fi
# load SECONDS URL [BODY]: wrk's summary of GET URL, or POST BODY to it
load() {
  if [ "$have_wrk" = 1 ]; then
    if [ $# -ge 3 ]; then
      wrk -t2 -c"$conns" -d"$1s" --timeout 10s --latency -s "$work/post.lua" "$2"
    else
      wrk -t2 -c"$conns" -d"$1s" --timeout 10s --latency "$2"
    fi
  else
    python3 "$here/loadgen.py" "$2" ${3:+--body "$3"} --seconds "$1" --connections "$conns"
  fi
}
# post_once URL BODY: the status code of one POST (000 when it failed)
post_once() {
  if [ "$have_wrk" = 1 ] && command -v curl >/dev/null; then
    curl -s -o /dev/null -w '%{http_code}\n' -m 60 -H 'Content-Type: application/json' \
      -d "$2" "$1" || echo 000
  else
    python3 "$here/loadgen.py" "$1" --once --body "$2" --timeout 60 || echo 000
  fi
}
[ -x "$exe" ] || { echo "loadtest: $exe is not a trainplan binary (make first)" >&2; exit 2; }

work=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" && wait "$server_pid" || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# wrk needs a Lua script to POST; it also counts non-2xx replies.
cat >"$work/post.lua" <<'EOF'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
EOF
printf "wrk.body = '%s'\n" "$estimate_body" >>"$work/post.lua"

# One worker thread per core (at most 4) and room for wrk's 64 connections.
threads=$(nproc 2>/dev/null || echo 2)
[ "$threads" -gt 4 ] && threads=4
"$exe" serve --port 0 --threads "$threads" --max-connections $((conns + 16)) >"$work/url" 2>"$work/err" &
server_pid=$!
for _ in $(seq 100); do grep -q "serving on" "$work/url" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^trainplan: serving on //p' "$work/url")
[ -n "$url" ] || { echo "loadtest: the server did not start:" >&2; cat "$work/err" >&2; exit 1; }

rss() { awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status"; }   # KiB
rss0=$(rss)
load 5 "${url}api/estimate" "$estimate_body" >"$work/warmup"   # warm-up
rss1=$(rss)
long=${LONG_SEARCHES:-0}
searchers=()
if [ "$long" -gt 0 ]; then
  body='{"gpus": 55440, "gpus-per-node": 16, "layers": 55440, "hidden": 256, "heads": 8,
    "kv-heads": 8, "ffn-hidden": 1024, "vocab": 1000, "global-batch": 232792560, "seq-len": 128}'
  touch "$work/stop"
  for i in $(seq "$long"); do
    ( while [ -e "$work/stop" ]; do
        post_once "${url}api/search" "$body" >>"$work/codes"
      done ) &
    searchers+=($!)
  done
  sleep 1
fi
load "$secs" "${url}api/estimate" "$estimate_body" | tee "$work/wrk"
if [ "$long" -gt 0 ]; then
  page_secs=$((secs < 10 ? secs : 10))
  load "$page_secs" "$url" | tee "$work/wrk-page"
  rm -f "$work/stop"
  wait "${searchers[@]}"
fi
rss2=$(rss)

reqs=$(awk '/requests in/ {print $1}' "$work/wrk")
rps=$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk")
sockerr=$(sed -n 's/.*Socket errors: //p' "$work/wrk")
non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$work/wrk")
echo
echo "loadtest: $conns connections, ${secs} s, $threads server threads, $(nproc) cores"
echo "loadtest: $reqs requests, $rps requests/s"
echo "loadtest: socket errors: ${sockerr:-none}; non-2xx replies: ${non2xx:-0}"
echo "loadtest: VmRSS: ${rss0} KiB at start, ${rss1} KiB after the warm-up, ${rss2} KiB at the end"

fail=0
[ -z "$sockerr" ] || fail=1
[ -z "$non2xx" ] || fail=1
if [ "$long" -gt 0 ]; then
  psockerr=$(sed -n 's/.*Socket errors: //p' "$work/wrk-page")
  pnon2xx=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$work/wrk-page")
  echo "loadtest: GET / while $long long searches run: $(awk '/requests in/ {print $1}' \
    "$work/wrk-page") requests; socket errors: ${psockerr:-none}; non-2xx: ${pnon2xx:-0}"
  echo "loadtest: the searches' statuses: $(sort "$work/codes" | uniq -c | tr -s ' \n' ' ')"
  [ -z "$psockerr" ] || fail=1
  [ -z "$pnon2xx" ] || fail=1
  grep -qv '^\(200\|503\)$' "$work/codes" && { echo "loadtest: a search got no status"; fail=1; }
fi
grow=$((rss2 - rss1))
limit=$((rss1 / 10 > 4096 ? rss1 / 10 : 4096))
if [ "$grow" -gt "$limit" ]; then
  echo "loadtest: resident memory grew by $grow KiB (more than $limit KiB)"
  fail=1
fi
kill -TERM "$server_pid"
rc=0
wait "$server_pid" || rc=$?
server_pid=""
[ "$rc" -eq 0 ] || { echo "loadtest: serve exited $rc"; fail=1; }
[ "$fail" -eq 0 ] && echo "loadtest: ok" || echo "loadtest: FAILED"
exit "$fail"
