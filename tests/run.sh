#!/usr/bin/env bash
# Installs everything the test suite needs — Debian's chromium for the browser tests, Debian's
# postgresql for the PostgreSQL label store tests and a fresh virtual environment with the
# package and its test extras — then lints and runs every test, twice: with the newest releases
# pip picks, and with the declared minimum versions of the runtime dependencies
# (tests/constraints-floor.txt, in .venv-floor). Extra arguments go to pytest. CI (.ci/run)
# calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# apt_install PACKAGE…: install Debian packages, waiting for another apt/dpkg process (e.g.
# unattended upgrades) instead of failing
apt_install() {
  local lock=(-o DPkg::Lock::Timeout=900)
  $sudo apt-get "${lock[@]}" update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get "${lock[@]}" install -y -qq "$@" >/dev/null
}

if ! command -v chromium >/dev/null 2>&1; then
  apt_install chromium
fi

# The tests start a throwaway PostgreSQL server of their own (tests/pg_cluster.py, which says
# whether it finds initdb): only the server programs are needed. Their package would start the
# system's service; a policy-rc.d that refuses every start (as Docker images have) stops that.
if ! python3 tests/pg_cluster.py >/dev/null 2>&1; then
  policy=/usr/sbin/policy-rc.d
  if [ -e "$policy" ]; then
    apt_install postgresql
  else
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
    apt_install postgresql || { $sudo rm -f "$policy"; exit 1; }
    $sudo rm -f "$policy"
  fi
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
# browser and PostgreSQL tests fail instead of skipping when chromium or PostgreSQL is missing
export RLSCORE_REQUIRE_BROWSER=1 RLSCORE_REQUIRE_POSTGRES=1
.venv/bin/python -m pytest "$@"

echo "== again with the minimum supported versions (tests/constraints-floor.txt)"
make_venv .venv-floor -c tests/constraints-floor.txt
.venv-floor/bin/python -m pytest "$@"
