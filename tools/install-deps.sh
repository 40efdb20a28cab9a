#!/usr/bin/env bash
# Install trainplan's build and test dependencies from Debian 12's packages.
# Shared by the README's quick start and by .ci/run. Needs root (or sudo).
set -euo pipefail
pkgs=(
  build-essential cmake pkg-config   # compiler and build
  clang-format                       # make format-check (.clang-format), run by CI
  libjansson-dev                     # JSON I/O (CLI, presets, files)
  libcmocka-dev                      # unit tests
  libmicrohttpd-dev                  # trainplan serve
  python3                            # end-to-end tests parse JSON/TOML with the stdlib
  librsvg2-bin                       # rsvg-convert: export_test.sh renders the --svg charts
  valgrind                           # memcheck over the CLI (tests/valgrind/valgrind_test.sh)
  chromium                           # the real-browser test of the serve page (tests/browser)
  python3-torch                      # tools/probe/, tools/steps/ on the CPU (tests/cli/probe_test.sh, steps_test.sh)
)
# node and npm drive chromium (playwright-core, tests/browser): Debian's unless
# some node is already installed (Debian 12's node 18 runs the pinned version).
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The browser test's one npm package (playwright-core, pinned by
# tests/browser/package-lock.json; it downloads no browser: the test drives
# Debian's chromium), so that `make test` runs every test after this script.
# Outside CI a failed npm ci (no registry at hand) only leaves that test skipped.
(cd "$(dirname "$0")/../tests/browser" && npm ci --no-audit --no-fund --loglevel=error) ||
  [ "${CI:-}" != true ]
