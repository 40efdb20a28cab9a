#!/usr/bin/env bash
# The man page's per-command flag sections match each command's --help
# (docs as tests): regenerate with tools/gen_man.py when this fails.
set -u
exe="$1"
cd "${TP_SOURCE_DIR:?}" || exit 1
if python3 tools/gen_man.py "$exe" --check; then
  echo "1 passed, 0 failed"
else
  echo "0 passed, 1 failed"
  exit 1
fi
