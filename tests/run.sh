#!/usr/bin/env bash
# Installs everything the test suite needs — Debian's chromium for the browser tests and a fresh
# virtual environment with the package and its test extras — then lints and runs every test,
# twice: with the newest releases pip picks, and with the declared minimum versions of the
# runtime dependencies (tests/constraints-floor.txt, in .venv-floor). Extra arguments go to
# pytest. CI (.ci/run) calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # wait for another apt/dpkg process (e.g. unattended upgrades) instead of failing
  lock=(-o DPkg::Lock::Timeout=900)
  $sudo apt-get "${lock[@]}" update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get "${lock[@]}" install -y -qq chromium >/dev/null
fi

# make_venv DIR [pip options…]: a fresh virtual environment with the package and its test extras
make_venv() {
  local dir=$1
  shift
  python3 -m venv --clear "$dir"
  if ! "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@" -e ".[test]" \
    >"$dir/pip.log" 2>&1; then
    cat "$dir/pip.log"
    exit 1
  fi
}

make_venv .venv

.venv/bin/ruff check .
.venv/bin/ruff format --check .
# browser tests fail instead of skipping when chromium is missing
RLSCORE_REQUIRE_BROWSER=1 .venv/bin/python -m pytest "$@"

echo "== again with the minimum supported versions (tests/constraints-floor.txt)"
make_venv .venv-floor -c tests/constraints-floor.txt
RLSCORE_REQUIRE_BROWSER=1 .venv-floor/bin/python -m pytest "$@"
