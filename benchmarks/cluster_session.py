"""The app server's memory with a cluster-backed project (issue 26): a labeling session's peak
RSS as the pool grows, beside the same session with the pool in memory.

Per pool size n, two child processes each open a fresh SQLite label store, create the project
and run a :class:`~rlscore.sessions.LabelingSession` with ``--strategy`` (by default low-rank
ARLS: m uniform landmarks, ``--candidates``, ``--risk-sample``; ``arls-focused``, the app's
default, on the same features): ``--labels`` labels (the generating class of each
queried point), the query before each timed. *cluster*: the project of
:mod:`rlscore.sessions.cluster_project`, its pool on a ``LocalCluster`` of two worker
processes started by this script (the child is the app server: it keeps the labels, the state
and the pool's n-vectors); *memory*: the same rows stored in the project and held by the
session. The floor is each child's RSS after its imports and the store, before the project;
the peak is the child's own high-water mark (:func:`cluster_fixture.peak_rss_gb`).

    OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/cluster_session.py --sizes 200000 1000000
"""

from __future__ import annotations

import os

from harness import load_average, pin_blas, report_machine

pin_blas(1)  # before numpy; the workers and the children inherit the environment

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from cluster_fixture import local_cluster, peak_rss_gb, rss_gb  # noqa: E402

D = 10
SIGMA, LAM = 3.0, 0.5


def _pool(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and classes (the classes are the generator's first draw: :func:`_truth`)."""
    rng = np.random.default_rng(n)
    y = rng.integers(0, 2, n)
    return rng.normal(size=(n, D)) + 1.5 * y[:, None], np.where(y == 1, "pos", "neg")


def _truth(n: int) -> np.ndarray:
    """The classes of :func:`_pool` without its rows (the labeler's answers)."""
    return np.where(np.random.default_rng(n).integers(0, 2, n) == 1, "pos", "neg")


def child(args) -> None:
    """One session in this process; prints a JSON line of its figures."""
    from rlscore.sessions import LabelingSession
    from rlscore.storage import open_store

    store = open_store(str(Path(args.work) / f"{args.mode}.sqlite3"))
    floor = rss_gb()
    truth = _truth(args.n)
    params = dict(
        strategy=args.strategy, sigma=SIGMA, lam=LAM, n_landmarks=args.m,
        candidates=args.candidates, risk_sample=args.risk_sample, snapshots=False,
    )  # fmt: skip
    if args.mode == "cluster":
        from rlscore.sessions.cluster_project import create_cluster_project

        create_cluster_project(
            store, "pool", args.folder, ["neg", "pos"], strategy=args.strategy, sigma=SIGMA,
            lam=LAM, n_landmarks=args.m, candidates=args.candidates, risk_sample=args.risk_sample,
        )  # fmt: skip
    else:
        from rlscore.data.projects import Project

        X = _pool(args.n)[0]
        project = Project("pool", X, [f"x{j}" for j in range(D)], [str(i) for i in range(args.n)],
                          None, ["neg", "pos"], {"sigma": SIGMA, "lam": LAM})  # fmt: skip
        store.create_project(project)
        del project, X
        params["landmarks"] = "uniform"
    started = time.perf_counter()
    session = LabelingSession(store, "pool", **params)
    opened = time.perf_counter() - started
    times = []
    for _ in range(args.labels):
        t = time.perf_counter()
        i, _ = session.query()
        times.append(time.perf_counter() - t)
        session.label(i, truth[i])
    print(json.dumps({
        "floor": floor, "peak": peak_rss_gb(), "open": opened, "query": float(np.median(times)),
    }))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000])
    parser.add_argument("--m", type=int, default=100)
    parser.add_argument("--candidates", type=int, default=200)
    parser.add_argument("--risk-sample", type=int, default=20_000)
    parser.add_argument("--labels", type=int, default=10)
    parser.add_argument("--strategy", default="arls-lowrank")
    parser.add_argument("--modes", nargs="+", choices=("cluster", "memory"),
                        default=["cluster", "memory"])  # fmt: skip
    parser.add_argument("--child", choices=("cluster", "memory"), dest="mode")
    parser.add_argument("--n", type=int)
    parser.add_argument("--work")
    parser.add_argument("--folder")
    args = parser.parse_args()
    if args.mode:
        child(args)
        return

    from rlscore.data.cluster_pool import SCHEDULER_ENV

    report_machine()
    with local_cluster(2, "4GiB") as cluster:
        _sizes(args, {**os.environ, SCHEDULER_ENV: cluster.scheduler_address})
    print(f"# load average at the end: {load_average()}")


def _sizes(args, env: dict) -> None:
    """One row per pool size and mode: the child sessions on the cluster at ``env``."""
    from rlscore.data.cluster_pool import write_pool

    print(
        f"# {args.strategy}; m = {args.m} uniform landmarks, candidates {args.candidates}, "
        f"risk sample {args.risk_sample}, {args.labels} labels; d = {D}; LocalCluster of 2 "
        "worker processes"
    )
    print(f"{'n':>9}  {'mode':>7}  {'floor GB':>8}  {'peak RSS GB':>11}  {'open s':>7}  "
          f"{'query s (median)':>16}")  # fmt: skip
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as work:
            folder = Path(work) / "pool"
            write_pool(_pool(n)[0], folder, rows_per_file=100_000)
            for mode in args.modes:
                cmd = [
                    sys.executable, __file__, "--child", mode, "--n", str(n), "--work", work,
                    "--folder", str(folder), "--m", str(args.m),
                    "--candidates", str(args.candidates),
                    "--risk-sample", str(args.risk_sample), "--labels", str(args.labels),
                    "--strategy", args.strategy,
                ]  # fmt: skip
                out = subprocess.run(cmd, env=env, capture_output=True, text=True)
                if out.returncode:
                    print(out.stderr[-2000:])
                    raise SystemExit(out.returncode)
                r = json.loads(out.stdout.strip().splitlines()[-1])
                print(
                    f"{n:>9}  {mode:>7}  {r['floor']:>8.2f}  {r['peak']:>11.2f}  "
                    f"{r['open']:>7.1f}  {r['query']:>16.3f}"
                )


if __name__ == "__main__":
    main()
