"""Cost of reopening a labeling session: full replay of the event log vs the snapshot cache.

Baselines in the same run: a bare engine taught the same labels one by one (no event log, no
histories), and the same engine built in one batch (``teach_many``, where the strategy has
it). Also times one label + next query + undo, a sync with nothing new, and the exact LOO on
the labeled set that the stopping indicator computes once per new state (it is cached after).

Every figure is the median of ``--repeats`` runs after one warm-up, with BLAS pinned to one
thread (``harness.py``); the machine's load average is printed with them. A snapshot is
written once after labeling (whatever the cache's own write policy would have decided), so
the "snapshot" column always measures a restore: its ``restored`` column says so.

The fast paths are checked against the full replay in the same run: ``max|Δscore|`` is the
largest difference of the candidate scores (``engine.scores()``) between the replayed engine
and the snapshot-restored one, the bare engine and the ``teach_many`` one.

    python benchmarks/session_rebuild.py [--labels 100 300] [--project circles]
        [--strategy arls] [--repeats 5] [--quick]
"""

from __future__ import annotations

from harness import pin_blas, report_machine, timed

pin_blas(1)  # before numpy does any work

import argparse  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import rlscore.sessions.state.snapshots as snapshots  # noqa: E402
from rlscore.data.samples.bundled import ensure_sample_projects  # noqa: E402
from rlscore.query import make_strategy  # noqa: E402
from rlscore.sessions import LabelingSession  # noqa: E402
from rlscore.sessions.state.loo_refit import loo_errors  # noqa: E402
from rlscore.storage import open_store  # noqa: E402


def write_snapshot(path: Path, project: str, strategy: str) -> None:
    """Open the session once with the write policy off, so a snapshot of its state exists."""
    saved = snapshots.SNAPSHOT_MIN_SECONDS, snapshots.SNAPSHOT_OVERHEAD_RATIO
    snapshots.SNAPSHOT_MIN_SECONDS, snapshots.SNAPSHOT_OVERHEAD_RATIO = 0.0, 0.0
    try:
        LabelingSession(open_store(path), project, strategy)
    finally:
        snapshots.SNAPSHOT_MIN_SECONDS, snapshots.SNAPSHOT_OVERHEAD_RATIO = saved


def run(n_labels: int, project: str, strategy: str, repeats: int) -> dict:
    path = Path(tempfile.mkdtemp()) / "labels.sqlite3"
    store = open_store(path)
    ensure_sample_projects(store)
    s = LabelingSession(store, project, strategy)
    s.auto_label(n_labels)
    write_snapshot(path, project, strategy)

    def reopen() -> LabelingSession:
        return LabelingSession(open_store(path), project, strategy)

    restored = reopen().restored_from_snapshot_ is not None
    t_snapshot = timed(reopen, repeats)
    t_full = timed(
        lambda: LabelingSession(open_store(path), project, strategy, snapshots=False), repeats
    )

    def bare():
        engine = make_strategy(strategy, **s.engine.get_params())
        engine.start(s.project.X, s.project.classes)
        for i, y in s.labels.items():
            engine.teach(i, y)
        return engine

    def batch():
        engine = make_strategy(strategy, **s.engine.get_params())
        engine.start(s.project.X, s.project.classes)
        engine.teach_many(list(s.labels), list(s.labels.values()))
        return engine

    t_bare = timed(bare, repeats)
    t_batch = timed(batch, repeats) if hasattr(s.engine, "teach_many") else float("nan")
    t_sync = timed(s.sync, repeats)

    def label_and_query():  # label the proposal, then undo it: the next repeat is the same
        i, _ = s.query()
        s.label(i, s.project.truth[i])
        s.query()
        s.undo()

    t_label = timed(label_and_query, repeats)
    # uncached: what the first stopping() after a label costs
    t_loo = timed(lambda: loo_errors(s.engine, s.project.X, s.labels, s.lam_), repeats)

    # the fast paths must rebuild the same state: scores of every candidate, restored vs the rest
    reference = LabelingSession(open_store(path), project, strategy, snapshots=False).engine
    engines = [reopen().engine, bare()]
    if hasattr(s.engine, "teach_many"):
        engines.append(batch())
    ref_scores = reference.scores()
    diff = max(float(np.nanmax(np.abs(e.scores() - ref_scores))) for e in engines)
    return {
        "labels": n_labels,
        "n pool": s.project.n,
        "restored": restored,
        "full replay s": t_full,
        "snapshot s": t_snapshot,
        "bare engine s": t_bare,
        "teach_many s": t_batch,
        "label+undo s": t_label,
        "sync ms": 1e3 * t_sync,
        "stopping LOO s": t_loo,
        "max|Δscore|": diff,
    }


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", type=int, nargs="+", default=[100, 300])
    ap.add_argument("--project", default="circles")
    ap.add_argument("--strategy", default="arls")
    ap.add_argument("--repeats", type=int, default=5, help="median of this many runs")
    ap.add_argument("--quick", action="store_true", help="30 labels on two_moons, 3 repeats")
    a = ap.parse_args(argv)
    if a.quick:
        a.labels, a.project, a.repeats = [30], "two_moons", 3
    report_machine()
    rows = [run(n, a.project, a.strategy, a.repeats) for n in a.labels]
    print(f"project {a.project}, strategy {a.strategy}, median of {a.repeats} runs")
    cols = list(rows[0])
    print("  ".join(f"{c:>14}" for c in cols))
    for r in rows:
        cells = (_cell(r[c], c) for c in cols)
        print("  ".join(cells))
    print(
        "max|Δscore|: largest difference between the candidate scores of the full replay and "
        "those of the snapshot restore, the bare engine and teach_many (same state ⇒ ~1e-12)"
    )
    report_machine()  # the load again: figures taken under a changing load are suspect
    return rows


def _cell(value, column: str) -> str:
    if isinstance(value, bool) or not isinstance(value, float):
        return f"{value!s:>14}"
    return f"{value:>14.1e}" if column.startswith("max") else f"{value:>14.3f}"


if __name__ == "__main__":
    main()
