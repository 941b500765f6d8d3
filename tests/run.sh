#!/usr/bin/env bash
# Installs everything the test suite needs — Debian's chromium for the browser tests, Debian's
# postgresql for the PostgreSQL label store tests and fresh virtual environments with the
# package and its test extras — then lints and runs the tests twice: every test with the
# newest releases (.venv), and the tests that depend on the versions (FLOOR_TESTS
# below) with the declared minimum versions of the runtime dependencies
# (tests/constraints-floor.txt, in .venv-floor). The installs overlap (apt beside .venv,
# .venv-floor beside lint and the newest pass; uv fills both: below) and the tests run in two
# pytest-xdist workers.
# It prints the wall time of each phase and the total (CONTRIBUTING.md, "CI time"). Extra
# arguments go to pytest, and then both passes run what they select. CI (.ci/run) calls
# exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# -- the floor pass: what depends on the versions -------------------------------------------
# The newest pass runs every test; the floor pass runs again only what a dependency's version
# can change, so that a floor that is too low still fails CI:
FLOOR_TESTS=(
  # the engine: the numerics of rlscore/core and rlscore/query (kernels, RLS and its
  # leave-one-out, KLR and A-optimal design, graph kernels, the classifiers, the query
  # strategies, the stopping rules) against their references. numpy's and scipy's linear
  # algebra, scikit-learn's estimator checks, numba's compiled lookahead and cvxpy/Clarabel's
  # conic solver are where a version changes a result.
  # every module imports at the floors (a newer API than a floor allows fails here)
  tests/test_modules_import.py
  tests/test_kernels.py tests/test_kernel_width.py tests/test_lowrank.py
  tests/test_rls*.py tests/test_reduced_rls.py tests/test_cholesky_loo.py
  tests/test_klr*.py tests/test_aopt*.py
  tests/test_graph_*.py tests/test_lgc*.py
  tests/test_bdlda.py tests/test_error_rates.py tests/test_confidence.py tests/test_encoding.py
  tests/test_estimator_checks.py tests/test_parameter_constraints.py tests/test_partial_labels.py
  tests/test_weighting.py tests/test_stopping.py
  tests/test_arls*.py tests/test_point_risk_sums.py tests/test_focused_speedpath.py
  tests/test_baselines.py
  tests/test_batch_queries.py tests/test_query_base.py tests/test_parameters.py
  tests/test_sparse_draw.py tests/test_strategy_family.py tests/test_strategy_width.py
  # storage: the SQLite and PostgreSQL label stores (numpy arrays stored as bytes, psycopg's
  # floor), their schema migration and backups
  tests/test_storage*.py tests/test_schema_migration_v5.py tests/test_backup_restore.py
  tests/test_row_ids.py
  # Dask's floor: one labeling session on a LocalCluster against the in-memory engine
  tests/test_cluster_project.py::test_a_session_labels_like_the_in_memory_engine
  # a browser smoke set: Streamlit's and plotly's front end at their floors — the Label page
  # by buttons, keys and a plot click, Tune and Compare, a kill and restart
  # (test_label_with…); the Data page's upload (pandas reads the CSV) and export; plotly's
  # WebGL points; sign-in through st.login (Authlib and httpx at their floors); an image
  # project (pillow's floor decodes and shrinks the pictures)
  tests/e2e/test_browser.py::test_label_with_buttons_keys_and_clicks_then_reload_and_crash
  tests/e2e/test_browser.py::test_upload_csv_label_it_and_export
  tests/e2e/test_browser.py::test_large_pool_webgl_points_can_be_clicked
  tests/e2e/test_sign_in_browser.py::test_visitor_sees_only_sign_in_then_labels_as_the_signed_in_user
  tests/e2e/test_image_project_browser.py::test_upload_images_see_the_queried_picture_and_label_five_by_keys
)
# Deselected in the floor pass: two of the three λ of the A-optimal fast-mode statistics (about
# 50 s of a worker at the floor versions); the third and every other A-optimal test run there.
FLOOR_DESELECT=(
  --deselect "tests/test_aoptimal.py::test_fast_mode_picks_the_exact_choice_or_a_near_one[0.0001]"
  --deselect "tests/test_aoptimal.py::test_fast_mode_picks_the_exact_choice_or_a_near_one[0.01]"
)
# Not in the floor pass: the sessions, experiments, CLI, figures and AppTest page tests (they
# run the engine and the stores checked above through the package's own code; what they take
# from Streamlit, plotly and pandas the smoke set runs at the floors) and the other Dask
# cluster tests (about 12 s each, mostly worker start-ups).

# -- wall time of each phase ----------------------------------------------------------------
PHASES=()
START=$SECONDS
BACKGROUND=() # the background jobs not awaited yet, NAME:PID
JOBS_DIR=$(mktemp -d) # each background job's output and wall time
CURRENT="" # the phase running, and when it began
CURRENT_T0=0

# minutes:seconds of a number of seconds
clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# record NAME SECONDS: one line of the table of phases
record() { PHASES+=("$(printf '%-36s %8s' "$1" "$(clock "$2")")"); }

# phase NAME COMMAND…: run COMMAND as the phase NAME and record its wall time (a failing
# command ends the script, as before: set -e)
phase() {
  CURRENT=$1 CURRENT_T0=$SECONDS
  shift
  echo "== $CURRENT"
  "$@"
  record "$CURRENT" $((SECONDS - CURRENT_T0))
  CURRENT=""
}

# on exit, also after a failure: the wall time of each phase that ran, and the total
summary() {
  local status=$? line
  [ -z "$CURRENT" ] || record "$CURRENT (failed)" $((SECONDS - CURRENT_T0))
  # a job still running after a failure: let it finish (a pip install, a minute or two) so
  # that nothing outlives the script
  for line in "${BACKGROUND[@]}"; do
    wait "${line#*:}" || true
  done
  rm -rf "$JOBS_DIR"
  echo "== wall time"
  for line in "${PHASES[@]}"; do
    echo "   $line"
  done
  printf '   %-36s %8s\n' "total" "$(clock $((SECONDS - START)))"
  return $status
}
trap summary EXIT

# -- the phases -----------------------------------------------------------------------------
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# apt_install PACKAGE…: install Debian packages, waiting for another apt/dpkg process (e.g.
# unattended upgrades) instead of failing
apt_install() {
  local lock=(-o DPkg::Lock::Timeout=900)
  $sudo apt-get "${lock[@]}" update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get "${lock[@]}" install -y -qq "$@" >/dev/null
}

system_packages() {
  if ! command -v chromium >/dev/null 2>&1; then
    apt_install chromium
  fi
  # The tests start a throwaway PostgreSQL server of their own (tests/pg_cluster.py, which
  # says whether it finds initdb): only the server programs are needed. Their package would
  # start the system's service; a policy-rc.d that refuses every start (as Docker images
  # have) stops that.
  if ! python3 tests/pg_cluster.py >/dev/null 2>&1; then
    local policy=/usr/sbin/policy-rc.d
    if [ -e "$policy" ]; then
      apt_install postgresql
    else
      printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
      $sudo chmod +x "$policy"
      apt_install postgresql || { $sudo rm -f "$policy"; exit 1; }
      $sudo rm -f "$policy"
    fi
  fi
}

# The virtual environments are filled by uv (PyPI's `uv`, installed into .venv by pip): it
# resolves the same versions as pip (the newest, or the floor's constraints) and installs them
# in 40 s and 65 s with empty caches, where pip took 1.5 minutes for .venv and 3 minutes for
# .venv-floor, the second beside the tests (CONTRIBUTING.md, "CI time"). Where uv cannot be had
# or fails, pip does it.
# --compile-bytecode: pip writes the libraries' .pyc files at install and uv does not by
# default; without them every Python process (each app server a browser test starts) would
# compile the sources again where PYTHONDONTWRITEBYTECODE is set.
UV=""

# get_uv: pip installs uv into .venv (just made); UV is its path, or empty if that failed
get_uv() {
  if .venv/bin/python -m pip install -q --disable-pip-version-check uv >.venv/uv.log 2>&1; then
    UV=.venv/bin/uv
  else
    echo "uv could not be installed (.venv/uv.log): pip installs the environments"
  fi
}

# make_venv DIR [install options…]: a fresh virtual environment with the package and its test
# extras, by uv (pip if uv is missing or fails); the installer's output in DIR/install.log
make_venv() {
  local dir=$1
  shift
  python3 -m venv --clear "$dir"
  [ "$dir" != .venv ] || get_uv # .venv is made first
  if [ -n "$UV" ] && "$UV" pip install -q --compile-bytecode --python "$dir/bin/python" "$@" -e ".[test]" \
    >"$dir/install.log" 2>&1; then
    return 0
  fi
  [ -z "$UV" ] || { cat "$dir/install.log"; echo "uv failed for $dir: pip installs it"; }
  if ! "$dir/bin/python" -m pip install -q --disable-pip-version-check "$@" -e ".[test]" \
    >"$dir/install.log" 2>&1; then
    cat "$dir/install.log"
    return 1
  fi
}

# background NAME COMMAND…: start COMMAND while the next phases run (installs are network-
# and disk-bound, the tests CPU-bound); await_background NAME waits for it
background() {
  local name=$1
  shift
  (
    t0=$SECONDS
    trap 'echo $((SECONDS - t0)) >"$JOBS_DIR/$name.time"' EXIT
    "$@" >"$JOBS_DIR/$name.log" 2>&1 # set -e: the first failing command ends the job
  ) &
  BACKGROUND+=("$name:$!")
}

# await_background NAME: wait for the background job NAME, record its own wall time and show
# its output if it failed
await_background() {
  local entry pid="" status=0 left=()
  for entry in "${BACKGROUND[@]}"; do
    if [ "${entry%%:*}" = "$1" ]; then pid=${entry#*:}; else left+=("$entry"); fi
  done
  BACKGROUND=("${left[@]}")
  wait "$pid" || status=$?
  record "$1 (in the background)" "$(cat "$JOBS_DIR/$1.time")"
  if [ $status -ne 0 ]; then
    cat "$JOBS_DIR/$1.log"
    echo "== $1 failed"
  fi
  return $status
}

# .venv while apt installs chromium and PostgreSQL (they touch different things); .venv-floor
# later, while the newest pass runs: the two installs build the same editable checkout (its
# rlscore_active.egg-info), which is not safe to do twice at once
installs() {
  # a password prompt cannot be answered in the background (its input is /dev/null): ask first
  if [ -n "$sudo" ] && ! { command -v chromium && python3 tests/pg_cluster.py; } >/dev/null 2>&1; then
    sudo -v
  fi
  background apt system_packages
  make_venv .venv
  await_background apt
}

# Both passes run the tests in two pytest-xdist workers: the browser tests mostly wait on a
# server and the browser, so two nearly halve them even on two cores (a third was measured:
# no faster on a quiet machine, and more browser tests timed out under the contention,
# CONTRIBUTING.md "CI time"). A test module stays in
# one worker (loadfile), so a module's fixtures (a Dask cluster, a server) start once; each
# worker starts its own session fixtures (the shared app server, a PostgreSQL server), on
# free ports and in temporary folders of its own.
XDIST=(-n 2 --dist loadfile)

lint() {
  .venv/bin/ruff check .
  .venv/bin/ruff format --check .
}

phase "installs (apt, .venv)" installs
background venv-floor make_venv .venv-floor -c tests/constraints-floor.txt
phase "lint" lint
# browser and PostgreSQL tests fail instead of skipping when chromium or PostgreSQL is missing
export RLSCORE_REQUIRE_BROWSER=1 RLSCORE_REQUIRE_POSTGRES=1
phase "tests, newest releases" .venv/bin/python -m pytest "${XDIST[@]}" --durations=25 "$@"
phase "wait for .venv-floor" await_background venv-floor
if [ $# -eq 0 ]; then
  set -- "${FLOOR_TESTS[@]}" "${FLOOR_DESELECT[@]}"
fi
phase "tests, floor versions" .venv-floor/bin/python -m pytest "${XDIST[@]}" --durations=25 "$@"
