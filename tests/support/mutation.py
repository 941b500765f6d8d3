"""The mutation job: realistic small faults in the storage, session and stopping code, and
whether the tests notice them.

Each :class:`Mutation` of :data:`CATALOGUE` names a file, an exact piece of its text and what
to put instead (a clause dropped, a comparison flipped, an off-by-one, a wrong variable, a
swapped argument), and the tests that should catch it. :func:`run_job` copies the project's
files to a temporary folder once (never touching the working tree), then for each mutant
writes the mutated file there, runs its tests with ``pytest -x -q`` on that copy (the copy's
``rlscore`` first on ``PYTHONPATH``) and puts the file back. A mutant is *killed* when a test
fails (or the run exceeds the time limit), *survives* when every test passes; any other
outcome (no test collected, a collection error) is an *error* of the catalogue. A survivor
is a fault the tests let through: add the test that catches it, or say why it cannot be
caught (CONTRIBUTING.md, "Mutation job")::

    python tests/support/mutation.py            # the whole catalogue
    python tests/support/mutation.py --list     # names, files and tests, without running
    python tests/support/mutation.py --only store-stale-undo-clause --only plateau-window

Run it with the project's environment (``.venv/bin/python``). Before the mutants, the tests
they select run once on the unmutated copy (the *baseline*, skipped with ``--no-baseline``):
a test failing without a mutant would count every mutant as killed. The PostgreSQL tests run
as everywhere else (skipped without PostgreSQL). Exit status 0 when every mutant was killed,
1 when one survived, 2 on an error. ``tests/test_mutation_catalogue.py`` checks that every
entry's original text occurs exactly once in its file, so that the catalogue cannot rot
silently when the code changes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: the project's root folder (this file is tests/support/mutation.py)
ROOT = Path(__file__).resolve().parents[2]
#: seconds one mutant's tests may take before it counts as killed (an endless loop)
DEFAULT_TIMEOUT = 600.0
#: seconds an interrupted run may take to tear down (stop its PostgreSQL server) before a kill
TEARDOWN_SECONDS = 60.0
#: pytest with Python's KeyboardInterrupt on SIGINT whatever it inherited: a job started in the
#: background by a shell without job control (as a CI runner may start it) passes SIGINT on
#: ignored, so the interrupt at the time limit was lost and the run spun until the kill
#: (TEARDOWN_SECONDS later: a minute of a core per timed-out mutant)
INTERRUPTIBLE_PYTEST = (
    "import signal, sys, pytest; "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.exit(pytest.console_main())"
)


@dataclass(frozen=True)
class Mutation:
    """One fault to plant.

    Attributes
    ----------
    name : str
        A short unique name (``--only`` takes it).
    path : str
        The file, relative to the project's root.
    original : str
        Text that occurs exactly once in the file.
    replacement : str
        What the mutant has instead.
    tests : tuple of str
        pytest arguments selecting the tests that should catch it: files or node ids
        (``tests/test_x.py::test_name``).
    fault : str
        The fault in words.
    """

    name: str
    path: str
    original: str
    replacement: str
    tests: tuple[str, ...]
    fault: str


_STORE = "rlscore/storage/sql/store.py"
_ACCESS = "rlscore/storage/sql/access.py"
_LOG = "rlscore/sessions/state/label_log.py"
_OVERLAP = "rlscore/sessions/team/overlap.py"
_CLAIMS = "rlscore/sessions/team/claims.py"
_PERMISSIONS = "rlscore/sessions/team/permissions.py"
_RULES = "rlscore/core/evaluation/stopping_rules.py"
_INTERVAL = "rlscore/core/evaluation/accuracy_interval.py"
_ESTIMATE = "rlscore/sessions/stopping/accuracy_estimate.py"
_STOP_RULE = "rlscore/sessions/stopping/stop_rule.py"
_CURVES = "rlscore/sessions/stopping/curves.py"

_T_STORAGE = "tests/test_storage.py"
_T_ANNOTATORS = "tests/test_session_annotators.py"
_T_OVERLAP = "tests/test_session_overlap.py"
_T_PERMISSIONS = "tests/test_permissions.py"
_T_STOPPING = "tests/test_stopping.py"
_T_ESTIMATE = "tests/test_accuracy_estimate.py"

CATALOGUE: tuple[Mutation, ...] = (
    # -- the label store: validation, the stale check, undo targets, claims -------------------
    Mutation(
        "store-stale-undo-clause",
        _STORE,
        "\"(point = ? OR (kind = 'undo' AND target IN \"\n"
        '            "(SELECT id FROM events WHERE project_uid = ? AND point = ?))) ORDER BY id",\n'
        "            (uid, after, point, uid, point),",
        '"point = ? ORDER BY id",\n            (uid, after, point),',
        (f"{_T_STORAGE}::test_an_undo_alone_makes_the_point_stale",),
        "the stale check ignores an undo of the point's events",
    ),
    Mutation(
        "store-stale-undo-any-point",
        _STORE,
        '"(SELECT id FROM events WHERE project_uid = ? AND point = ?))) ORDER BY id",\n'
        "            (uid, after, point, uid, point),",
        '"(SELECT id FROM events WHERE project_uid = ?))) ORDER BY id",\n'
        "            (uid, after, point, uid),",
        (f"{_T_STORAGE}::test_an_undo_alone_makes_the_point_stale",),
        "the stale check counts an undo of any point's event",
    ),
    Mutation(
        "store-stale-seen-inclusive",
        _STORE,
        'FROM events WHERE project_uid = ? AND id > ? AND "',
        'FROM events WHERE project_uid = ? AND id >= ? AND "',
        (
            f"{_T_STORAGE}::test_a_review_is_subject_to_the_stale_check_and_releases_claims",
            f"{_T_ANNOTATORS}::test_a_stale_label_is_refused_and_a_confirmed_relabel_goes_through",
        ),
        "the event the annotator saw counts as newer than itself",
    ),
    Mutation(
        "store-claim-skips-stale-check",
        _STORE,
        "newer = self._events_on_point(uid, int(point), int(unchanged_since))",
        "newer = []",
        (f"{_T_STORAGE}::test_an_undo_alone_makes_the_point_stale", _T_OVERLAP),
        "a claim on a point labeled since the caller's log is granted",
    ),
    Mutation(
        "store-label-keeps-claims",
        _STORE,
        'self._db.run("DELETE FROM claims WHERE project_uid = ? AND point = ?", (uid, point))',
        "pass",
        (f"{_T_STORAGE}::test_a_review_is_subject_to_the_stale_check_and_releases_claims",),
        "a label, review or skip leaves the claims on its point",
    ),
    Mutation(
        "store-undo-of-an-undone-event",
        _STORE,
        "\"AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'undo' AND u.target = e.id)\"",
        '""',
        (
            f"{_T_STORAGE}::test_event_validation",
            f"{_T_STORAGE}::test_review_events_are_validated_like_labels_and_can_be_undone",
        ),
        "an event already undone can be undone again",
    ),
    Mutation(
        "store-point-range-off-by-one",
        _STORE,
        "if not 0 <= point < n:",
        "if not 0 <= point <= n:",
        (
            f"{_T_STORAGE}::test_event_validation",
            f"{_T_STORAGE}::test_review_events_are_validated_like_labels_and_can_be_undone",
        ),
        "a point one past the pool is accepted",
    ),
    Mutation(
        "store-review-label-unchecked",
        _STORE,
        'if event.kind in ("label", "review"):',
        'if event.kind == "label":',
        (f"{_T_STORAGE}::test_review_events_are_validated_like_labels_and_can_be_undone",),
        "a review's label is not checked against the classes",
    ),
    Mutation(
        "store-skip-keeps-label",
        _STORE,
        "else:\n                    label = None\n                target = None",
        "else:\n                    pass\n                target = None",
        (f"{_T_STORAGE}::test_events_round_trip_and_order",),
        "a skip event stores the label it was given",
    ),
    Mutation(
        "store-seen-not-recorded",
        _STORE,
        "seen = event.seen if event.seen is not None else unchanged_since",
        "seen = event.seen",
        (
            f"{_T_STORAGE}::test_a_review_is_subject_to_the_stale_check_and_releases_claims",
            f"{_T_ANNOTATORS}::test_a_stale_label_is_refused_and_a_confirmed_relabel_goes_through",
        ),
        "an event does not record the version its writer had seen",
    ),
    Mutation(
        "store-events-after-inclusive",
        _STORE,
        '"SELECT {EVENT_COLUMNS} FROM events WHERE project_uid = ? AND id > ? ORDER BY id"',
        '"SELECT {EVENT_COLUMNS} FROM events WHERE project_uid = ? AND id >= ? ORDER BY id"',
        (f"{_T_STORAGE}::test_events_round_trip_and_order",),
        "events(after_id) includes the event after_id itself",
    ),
    Mutation(
        "store-settings-change-flipped",
        _STORE,
        "if old.get(k) != new.get(k)",
        "if old.get(k) == new.get(k)",
        ("tests/test_audit.py",),
        "the settings audit records the keys that did not change",
    ),
    # -- members and the trash ------------------------------------------------------------------
    Mutation(
        "access-demote-any-owner",
        _ACCESS,
        'if previous == "owner" and role != "owner" and _owners(current) == [member]:',
        'if previous == "owner" and role != "owner":',
        (
            f"{_T_PERMISSIONS}::test_a_project_with_members_always_has_an_owner",
            "tests/test_members_cli.py",
        ),
        "an owner cannot be demoted even when another owner remains",
    ),
    Mutation(
        "access-remove-last-owner-off-by-one",
        _ACCESS,
        'if role == "owner" and _owners(current) == [member] and len(current) > 1:',
        'if role == "owner" and _owners(current) == [member] and len(current) > 2:',
        (
            f"{_T_PERMISSIONS}::test_a_project_with_members_always_has_an_owner",
            "tests/test_members_cli.py",
        ),
        "the last owner can be removed when one other member remains",
    ),
    Mutation(
        "access-purge-flipped",
        _ACCESS,
        "WHERE deleted IS NOT NULL AND deleted < ?",
        "WHERE deleted IS NOT NULL AND deleted > ?",
        (f"{_T_PERMISSIONS}::test_deleted_projects_are_purged_after_the_grace_period",),
        "the purge deletes the projects trashed after the grace period's start",
    ),
    Mutation(
        "access-member-id-case",
        "rlscore/core/conventions/user_names.py",
        'return name.casefold() if "@" in name else name',
        "return name",
        (_T_PERMISSIONS, "tests/test_members_cli.py"),
        "an e-mail address is a different member in another case",
    ),
    # -- the label log, overlap, claims, undo ------------------------------------------------
    Mutation(
        "log-majority-tie-oldest",
        _LOG,
        "return next(e for e in reversed(newest) if e.label in top)",
        "return next(e for e in newest if e.label in top)",
        (_T_OVERLAP,),
        "a majority tie goes to the oldest label",
    ),
    Mutation(
        "log-skip-hides-a-label",
        _LOG,
        "        elif skippers:\n            self.skipped.add(point)",
        "        if skippers:\n            self.skipped.add(point)",
        ("tests/test_session_commands.py", _T_OVERLAP),
        "a labeled point that someone skipped counts as skipped",
    ),
    Mutation(
        "log-undo-someone-elses",
        _LOG,
        "if who is None or user_key(self._by_id[eid].annotator) == who:",
        "if who is None or user_key(self._by_id[eid].annotator) != who:",
        (f"{_T_ANNOTATORS}::test_undo_reverts_only_your_own_last_action",),
        "an annotator's undo reverts a teammate's last action",
    ),
    Mutation(
        "log-disagreement-after-review",
        _LOG,
        "if p not in self.reviews and len({e.label for e in c.values()}) > 1),",
        "if len({e.label for e in c.values()}) > 1),",
        (_T_OVERLAP,),
        "a reviewed point stays in the review queue",
    ),
    Mutation(
        "overlap-asks-own-annotator",
        _OVERLAP,
        "and annotator not in current\n",
        "\n",
        (_T_OVERLAP,),
        "a point waits for the label of an annotator who already gave one",
    ),
    Mutation(
        "overlap-one-annotator-too-many",
        _OVERLAP,
        "if len(current) < self.k",
        "if len(current) <= self.k",
        (_T_OVERLAP,),
        "a point is handed out to k + 1 annotators",
    ),
    Mutation(
        "claims-teammates-points-mine",
        _CLAIMS,
        "taken = {p for p, (who, _) in claims.items() if who != annotator}",
        "taken = {p for p, (who, _) in claims.items() if who == annotator}",
        (f"{_T_ANNOTATORS}::test_annotators_are_shown_different_points_and_keep_theirs",),
        "an annotator's own claims count as taken by teammates",
    ),
    Mutation(
        "claims-renewed-too-rarely",
        _CLAIMS,
        "if point is not None and expires - time.time() > ttl / 2:",
        "if point is not None and expires - time.time() > 0:",
        (f"{_T_ANNOTATORS}::test_a_claim_is_written_again_only_once_half_its_time_is_gone",),
        "an annotator's claim is not renewed until it has expired",
    ),
    Mutation(
        "handout-skip-stale-inclusive",
        "rlscore/sessions/team/handout.py",
        "if seen is not None and log.label_events[point].id > seen:",
        "if seen is not None and log.label_events[point].id >= seen:",
        (
            f"{_T_ANNOTATORS}::test_a_skip_of_a_point_labeled_before_it_was_shown_is_refused_as_labeled_not_stale",
            "tests/test_session_commands.py",
        ),
        "a skip of a point labeled at the version seen is called stale",
    ),
    Mutation(
        "undo-expected-ignored",
        "rlscore/sessions/actions/undo.py",
        "if expected is not None and target.id != expected:",
        "if expected is not None and target.id == expected:",
        (f"{_T_ANNOTATORS}::test_undo_reverts_only_your_own_last_action",),
        "a stale Undo press reverts whatever is last now",
    ),
    Mutation(
        "permissions-undo-roles-swapped",
        _PERMISSIONS,
        '"undo_own" if same_user(user, whose) else "undo_others"',
        '"undo_others" if same_user(user, whose) else "undo_own"',
        (
            f"{_T_PERMISSIONS}::test_an_annotator_undoes_their_own_action_only",
            f"{_T_PERMISSIONS}::test_a_reviewer_undoes_a_teammates_action",
        ),
        "an annotator may undo a teammate's action but not their own",
    ),
    Mutation(
        "permissions-rank-strict",
        _PERMISSIONS,
        "return role is not None and RANK[role] >= RANK[needed]",
        "return role is not None and RANK[role] > RANK[needed]",
        (_T_PERMISSIONS,),
        "a role may not do what it is given, only what lesser roles are",
    ),
    Mutation(
        "dwell-boundary",
        "rlscore/sessions/actions/dwell.py",
        "if dwell < min_dwell:",
        "if dwell <= min_dwell:",
        ("tests/test_query_panel.py",),
        "an action exactly the minimum dwell after its point appeared is refused",
    ),
    # -- when to stop, and how accurate -----------------------------------------------------
    Mutation(
        "kappa-chance-sign",
        _RULES,
        "return (p_o - p_e) / (1.0 - p_e)",
        "return (p_o - p_e) / (1.0 + p_e)",
        (_T_STOPPING,),
        "Cohen's κ divided by 1 + p_e",
    ),
    Mutation(
        "stabilizing-first-step-late",
        _RULES,
        "for t in range(max(min_step, (window - 1) * lag), k.size):",
        "for t in range(max(min_step, window * lag), k.size):",
        (_T_STOPPING,),
        "the stabilizing rule waits one comparison too many",
    ),
    Mutation(
        "stabilizing-threshold-strict",
        _RULES,
        "if not np.isnan(values).any() and values.mean() >= threshold:\n            return t",
        "if not np.isnan(values).any() and values.mean() > threshold:\n            return t",
        (_T_STOPPING,),
        "the stabilizing rule needs more than the threshold",
    ),
    Mutation(
        "confidence-drop-ties-count",
        _RULES,
        "np.all(later < earlier)",
        "np.all(later <= earlier)",
        (_T_STOPPING,),
        "an unchanged confidence counts as a drop",
    ),
    Mutation(
        "plateau-window-short",
        _RULES,
        "values = c[t - window : t + 1]",
        "values = c[t - window : t]",
        (_T_STOPPING,),
        "the plateau leaves the newest value out of its window",
    ),
    Mutation(
        "steps-to-stabilize-future-now",
        _RULES,
        "values = np.where(steps <= t, k[np.minimum(steps, t)], now)",
        "values = np.where(steps <= t, k[np.minimum(steps, t)], 1.0)",
        (_T_STOPPING, "tests/test_stop_advice.py"),
        "the comparisons to come are taken as κ = 1 (a bound), not the current κ",
    ),
    Mutation(
        "wilson-centre",
        _INTERVAL,
        "centre = (p + z * z / (2.0 * n)) / denom",
        "centre = (p + z * z / n) / denom",
        (_T_ESTIMATE,),
        "the Wilson centre moved by z²/n instead of z²/2n",
    ),
    Mutation(
        "wilson-level",
        _INTERVAL,
        "z = float(ndtri(0.5 + level / 2.0))",
        "z = float(ndtri(level))",
        (_T_ESTIMATE,),
        "a one-sided quantile for a two-sided interval",
    ),
    Mutation(
        "clopper-pearson-upper-swapped",
        _INTERVAL,
        "betaincinv(k + 1, n - k, 1.0 - alpha / 2.0)",
        "betaincinv(n - k, k + 1, 1.0 - alpha / 2.0)",
        (_T_ESTIMATE,),
        "the beta parameters of the upper bound swapped",
    ),
    Mutation(
        "audit-schedule-off-by-one",
        _ESTIMATE,
        "return every > 0 and query_number > 0 and query_number % every == 0",
        "return every > 0 and query_number > 0 and query_number % every == 1",
        (_T_ESTIMATE, "tests/test_audit_queries.py"),
        "the random check is the query after every k-th",
    ),
    Mutation(
        "headline-uses-all-labels",
        "rlscore/core/evaluation/pool_accuracy.py",
        "share, worth = float(right[is_check].mean()), float(m)",
        "share, worth = float(right.mean()), float(m)",
        ("tests/test_pool_accuracy.py", "tests/test_headline_estimate.py"),
        "the headline is the LOO accuracy on all labels, not on the random checks",
    ),
    Mutation(
        "relabel-drops-the-check",
        "rlscore/sessions/state/label_log.py",
        'if any(e.kind == "label" and e.params.get("audit") for e in events):',
        'if events[-1].kind == "label" and events[-1].params.get("audit"):',
        ("tests/test_random_checks_log.py",),
        "a random check relabeled is no longer counted as one",
    ),
    Mutation(
        "first-stop-ignores-classes",
        _STOP_RULE,
        "if curves.n_labels[t] >= MIN_STOP_LABELS and curves.classes_seen[t] >= n_classes",
        "if curves.n_labels[t] >= MIN_STOP_LABELS",
        (_T_ESTIMATE, "tests/test_accuracy_estimate_session.py"),
        "a rule fires before every class has a label",
    ),
    Mutation(
        "estimate-audit-lags-a-step",
        _ESTIMATE,
        "audits = [a for a in curves.audit_correct[: t + 1] if a is not None]",
        "audits = [a for a in curves.audit_correct[:t] if a is not None]",
        (_T_ESTIMATE, "tests/test_accuracy_estimate_session.py"),
        "the audit accuracy leaves out the check of the step it is for",
    ),
    Mutation(
        "kappa-lag-off-by-one",
        _CURVES,
        "before = self.codes[t - lag] if t >= lag else None",
        "before = self.codes[t - lag + 1] if t >= lag else None",
        (_T_ESTIMATE, "tests/test_accuracy_estimate_session.py"),
        "the recorded κ compares models lag − 1 labels apart",
    ),
    Mutation(
        "stop-decision-more-labels",
        _STOP_RULE,
        "return StopDecision(rule, False, None, MIN_STOP_LABELS - n, message, evidence)",
        "return StopDecision(rule, False, None, MIN_STOP_LABELS - n + 1, message, evidence)",
        (_T_ESTIMATE,),
        "one label too many said to be missing before a rule can fire",
    ),
)


@dataclass(frozen=True)
class Outcome:
    """What became of one mutant: ``killed``, ``survived`` or ``error``."""

    mutation: Mutation
    verdict: str
    seconds: float
    detail: str = ""


def selected_files(tests: Iterable[str]) -> list[str]:
    """The files of pytest arguments (node ids without their ``::`` part)."""
    return [t.split("::", 1)[0] for t in tests]


def selected_test_names(tests: Iterable[str]) -> list[str]:
    """The test functions the node ids among ``tests`` name (parameters dropped)."""
    return [re.sub(r"\[.*\]$", "", t.split("::")[-1]) for t in tests if "::" in t]


def select(names: Sequence[str]) -> list[Mutation]:
    """The catalogue's mutations named ``names`` (all when empty); unknown names raise."""
    if not names:
        return list(CATALOGUE)
    known = {m.name: m for m in CATALOGUE}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown mutation(s) {unknown}: see --list")
    return [known[n] for n in names]


def copy_project(root: Path, dest: Path) -> None:
    """Copy the files git knows of (tracked, and new ones not ignored) from ``root`` to
    ``dest``: the code as it is being edited, without virtual environments, caches or
    databases."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = root / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def pytest_env(tree: Path) -> dict[str, str]:
    """The environment of a test run on the copy ``tree``: its ``rlscore`` first on the
    path, and no bytecode written (a mutated file of the same size and second as the
    original could otherwise be run from the original's cached bytecode)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), env.get("PYTHONPATH", "")]))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def check_import_root(tree: Path) -> None:
    """Refuse to run when the copy's Python does not import ``rlscore`` from the copy."""
    found = subprocess.run(
        [sys.executable, "-c", "import rlscore; print(rlscore.__file__)"],
        cwd=tree,
        env=pytest_env(tree),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(found).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"rlscore is imported from {found}, not from the copy {tree}")


def run_pytest(tree: Path, tests: Sequence[str], timeout: float) -> tuple[int | None, str]:
    """Run ``pytest -x -q`` on ``tests`` in ``tree``: its exit status (None: timed out) and
    its output.

    A run past ``timeout`` is interrupted as Ctrl-C would (SIGINT to its process group), so
    that pytest's teardown stops the PostgreSQL server it started; killed if it lingers."""
    command = [sys.executable, "-c", INTERRUPTIBLE_PYTEST, "-x", "-q", "-p", "no:cacheprovider"]
    command += tests
    with subprocess.Popen(
        command,
        cwd=tree,
        env=pytest_env(tree),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: the interrupt reaches its children
    ) as run:
        try:
            output, _ = run.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(run.pid, signal.SIGINT)
            try:
                run.communicate(timeout=TEARDOWN_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(run.pid, signal.SIGKILL)
                run.communicate()
            return None, f"timed out after {timeout:.0f} s"
    return run.returncode, output


def verdict(status: int | None) -> str:
    """``killed`` for failed tests (pytest's status 1) or a timeout, ``survived`` for passed
    ones (0), ``error`` for anything else (no tests collected, a collection or usage error)."""
    if status is None or status == 1:
        return "killed"
    return "survived" if status == 0 else "error"


def what_failed(output: str) -> str:
    """The failed test that ends a ``pytest -x`` run (from its short test summary), else the
    last lines of ``output``."""
    found = re.search(r"^(?:FAILED|ERROR) (\S+)", output, re.MULTILINE)
    return found.group(1) if found else "\n".join(output.strip().splitlines()[-15:])


def run_mutant(tree: Path, mutation: Mutation, timeout: float) -> Outcome:
    """Plant ``mutation`` in the copy ``tree``, run its tests, and put the file back."""
    path = tree / mutation.path
    original = path.read_text(encoding="utf-8")
    if original.count(mutation.original) != 1:
        return Outcome(mutation, "error", 0.0, "the original text does not occur exactly once")
    path.write_text(original.replace(mutation.original, mutation.replacement), encoding="utf-8")
    started = time.perf_counter()
    try:
        status, output = run_pytest(tree, mutation.tests, timeout)
    finally:
        path.write_text(original, encoding="utf-8")
    seconds = time.perf_counter() - started
    return Outcome(mutation, verdict(status), seconds, "" if status == 0 else what_failed(output))


def run_job(mutations: Sequence[Mutation], *, timeout: float, baseline: bool) -> list[Outcome]:
    """Run ``mutations`` on a temporary copy of the project, printing each outcome."""
    with tempfile.TemporaryDirectory(prefix="rlscore-mutation-") as folder:
        tree = Path(folder)
        copy_project(ROOT, tree)
        check_import_root(tree)
        if baseline:
            tests = list(dict.fromkeys(t for m in mutations for t in m.tests))
            started = time.perf_counter()
            status, output = run_pytest(tree, tests, timeout * 2)
            if status != 0:
                raise SystemExit(
                    f"the tests fail without a mutant: nothing to measure\n{what_failed(output)}"
                )
            seconds = time.perf_counter() - started
            print(f"baseline: {len(tests)} test selections pass without a mutant ({seconds:.0f} s)")
        outcomes = []
        for k, mutation in enumerate(mutations, 1):
            outcome = run_mutant(tree, mutation, timeout)
            outcomes.append(outcome)
            print(
                f"[{k:2d}/{len(mutations)}] {outcome.verdict:8s} {outcome.seconds:6.1f} s  "
                f"{mutation.name}  ({mutation.fault})",
                flush=True,
            )
            if outcome.verdict == "killed":
                print(f"    by {outcome.detail}", flush=True)
            elif outcome.verdict == "error":
                print(textwrap.indent(outcome.detail, "    "), flush=True)
        return outcomes


def summary(outcomes: Sequence[Outcome], seconds: float) -> str:
    """The score, the survivors and the errors, in words."""
    killed = sum(o.verdict == "killed" for o in outcomes)
    lines = [
        f"score: {killed}/{len(outcomes)} mutants killed "
        f"({100 * killed / max(len(outcomes), 1):.0f} %) in {seconds / 60:.1f} min"
    ]
    for kind in ("survived", "error"):
        for o in (o for o in outcomes if o.verdict == kind):
            lines.append(f"  {kind}: {o.mutation.name} — {o.mutation.fault} ({o.mutation.path})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module's docstring); returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list the catalogue and stop")
    parser.add_argument(
        "--only", action="append", default=[], metavar="NAME", help="run this mutant (repeatable)"
    )
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per mutant's tests"
    )
    parser.add_argument(
        "--no-baseline", action="store_true", help="skip the run of the tests without a mutant"
    )
    args = parser.parse_args(argv)
    mutations = select(args.only)
    if args.list:
        for m in mutations:
            print(f"{m.name}\n    {m.path}: {m.fault}\n    tests: {' '.join(m.tests)}")
        return 0
    started = time.perf_counter()
    outcomes = run_job(mutations, timeout=args.timeout, baseline=not args.no_baseline)
    print(summary(outcomes, time.perf_counter() - started))
    if any(o.verdict == "error" for o in outcomes):
        return 2
    return int(any(o.verdict == "survived" for o in outcomes))


if __name__ == "__main__":
    sys.exit(main())
