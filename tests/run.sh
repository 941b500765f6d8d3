#!/usr/bin/env bash
# Installs everything the test suite needs — Debian's chromium for the browser tests and a fresh
# virtual environment with the package and its test extras — then lints and runs every test.
# Extra arguments go to pytest. CI (.ci/run) calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

python3 -m venv --clear .venv
if ! .venv/bin/python -m pip install -q --disable-pip-version-check -e ".[test]" >.venv/pip.log 2>&1; then
  cat .venv/pip.log
  exit 1
fi

.venv/bin/ruff check .
.venv/bin/ruff format --check .
# browser tests fail instead of skipping when chromium is missing
RLSCORE_REQUIRE_BROWSER=1 .venv/bin/python -m pytest "$@"
