"""Cost of reopening a labeling session: full replay of the event log vs the snapshot cache.

Baselines in the same run: a bare engine taught the same labels one by one (no event log, no
histories), and the same engine built in one batch (``teach_many``, where the strategy has
it). Also times one label + next query, a sync with nothing new, and the stopping indicator.

    python benchmarks/session_rebuild.py [--labels 100 300] [--project circles]
        [--strategy arls] [--quick]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rlscore.data.samples import ensure_sample_projects
from rlscore.query import make_strategy
from rlscore.sessions import LabelingSession
from rlscore.storage import open_store


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def run(n_labels: int, project: str, strategy: str) -> dict:
    path = Path(tempfile.mkdtemp()) / "labels.sqlite3"
    store = open_store(path)
    ensure_sample_projects(store)
    s = LabelingSession(store, project, strategy)
    s.auto_label(n_labels)
    # the snapshot (if the cache decided to write one) exists now; reopen both ways
    _, t_snapshot = timed(lambda: LabelingSession(open_store(path), project, strategy))
    _, t_full = timed(lambda: LabelingSession(open_store(path), project, strategy, snapshots=False))

    def bare():
        engine = make_strategy(strategy, **s.engine.get_params())
        engine.start(s.project.X, s.project.classes)
        for i, y in s.labels.items():
            engine.teach(i, y)

    _, t_bare = timed(bare)

    def batch():
        engine = make_strategy(strategy, **s.engine.get_params())
        engine.start(s.project.X, s.project.classes)
        engine.teach_many(list(s.labels), list(s.labels.values()))

    _, t_batch = timed(batch) if hasattr(s.engine, "teach_many") else (None, float("nan"))
    _, t_sync = timed(s.sync)
    i, _ = s.query()
    _, t_label = timed(lambda: (s.label(i, s.project.truth[i]), s.query()))
    _, t_stop = timed(s.stopping)
    return {
        "labels": n_labels,
        "full replay s": t_full,
        "snapshot s": t_snapshot,
        "bare engine s": t_bare,
        "teach_many s": t_batch,
        "label+query s": t_label,
        "sync ms": 1e3 * t_sync,
        "stopping s": t_stop,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", type=int, nargs="+", default=[100, 300])
    ap.add_argument("--project", default="circles")
    ap.add_argument("--strategy", default="arls")
    ap.add_argument("--quick", action="store_true", help="30 labels on two_moons")
    a = ap.parse_args()
    if a.quick:
        a.labels, a.project = [30], "two_moons"
    rows = [run(n, a.project, a.strategy) for n in a.labels]
    print(f"project {a.project}, strategy {a.strategy}")
    cols = list(rows[0])
    print("  ".join(f"{c:>14}" for c in cols))
    for r in rows:
        cells = (f"{r[c]:>14.3f}" if isinstance(r[c], float) else f"{r[c]:>14}" for c in cols)
        print("  ".join(cells))


if __name__ == "__main__":
    main()
