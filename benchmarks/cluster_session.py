"""The app server's memory with a cluster-backed project (issue 26): a labeling session's peak
RSS as the pool grows, beside the same session with the pool in memory.

Per pool size n, two child processes each open a fresh SQLite label store, create the project
and run a :class:`~rlscore.sessions.LabelingSession` with ``--strategy`` (by default low-rank
ARLS: m uniform landmarks, ``--candidates``, ``--risk-sample``; ``arls-focused``, the app's
default, on the same features): ``--labels`` labels (the generating class of each
queried point), the query before each timed. *cluster*: the project of
:mod:`rlscore.sessions.cluster.projects`, its pool on a ``LocalCluster`` of two worker
processes started by this script (the child is the app server: it keeps the labels, the state
and the pool's n-vectors); *memory*: the same rows stored in the project and held by the
session. The floor is each child's RSS after its imports and the store, before the project;
the peak is the child's own high-water mark (:func:`cluster_fixture.peak_rss_gb`); "growth"
is the peak's increase per added point from the previous size of the same mode, in this run
(the app server's memory flat in n: a few bytes per point at most, from noise). The client
keeps a little per Parquet file (Dask's graph and metadata, each pass's per-block tasks), so
``--files`` fixes their number to separate that from n.

    OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/cluster_session.py --sizes 200000 1000000
    OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/cluster_session.py \
        --sizes 1000000 2000000 4000000 --modes cluster [--files 10]
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
#: rows per Parquet file unless ``--files`` is given (then the files grow with n)
ROWS_PER_FILE = 100_000
SIGMA, LAM = 3.0, 0.5


def _classes(rows: np.ndarray) -> np.ndarray:
    """The class (0 or 1) of each pool row, a fixed hash of its index (the top bit of
    SplitMix64's finaliser): the labeler answers for the queried row alone, so the child
    holds no n-vector of classes (an earlier version's n strings of the classes, 12 bytes a
    point, and their int64 draw were most of the child's growth with n)."""
    z = np.asarray(rows, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return ((z ^ (z >> np.uint64(31))) >> np.uint64(63)).astype(np.int64)


def _pool(n: int) -> np.ndarray:
    """The pool's rows: normal, shifted by 1.5 in every coordinate for class 1."""
    y = _classes(np.arange(n))
    return np.random.default_rng(n).normal(size=(n, D)) + 1.5 * y[:, None]


def _truth(i: int) -> str:
    """The labeler's answer for row ``i``."""
    return ("neg", "pos")[int(_classes(np.array([i]))[0])]


def child(args) -> None:
    """One session in this process; prints a JSON line of its figures."""
    from rlscore.sessions import LabelingSession
    from rlscore.storage import open_store

    store = open_store(str(Path(args.work) / f"{args.mode}.sqlite3"))
    floor = rss_gb()
    params = dict(
        strategy=args.strategy, sigma=SIGMA, lam=LAM, n_landmarks=args.m,
        candidates=args.candidates, risk_sample=args.risk_sample, snapshots=False,
    )  # fmt: skip
    if args.mode == "cluster":
        from rlscore.sessions.cluster.projects import create_cluster_project

        create_cluster_project(
            store, "pool", args.folder, ["neg", "pos"], strategy=args.strategy, sigma=SIGMA,
            lam=LAM, n_landmarks=args.m, candidates=args.candidates, risk_sample=args.risk_sample,
        )  # fmt: skip
    else:
        from rlscore.data.projects.project import Project

        X = _pool(args.n)
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
        session.label(i, _truth(i))
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
    parser.add_argument("--files", type=int, default=None,
                        help="Parquet files per pool (default: one per 100 000 rows)")  # fmt: skip
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

    from rlscore.data.cluster.parquet_pool import SCHEDULER_ENV

    report_machine()
    with local_cluster(2, "4GiB") as cluster:
        _sizes(args, {**os.environ, SCHEDULER_ENV: cluster.scheduler_address})
    print(f"# load average at the end: {load_average()}")


def _sizes(args, env: dict) -> None:
    """One row per pool size and mode: the child sessions on the cluster at ``env``."""
    from rlscore.data.cluster.parquet_pool import write_pool

    print(
        f"# {args.strategy}; m = {args.m} uniform landmarks, candidates {args.candidates}, "
        f"risk sample {args.risk_sample}, {args.labels} labels; d = {D}; LocalCluster of 2 "
        "worker processes; Parquet files: "
        + (f"{ROWS_PER_FILE} rows each" if args.files is None else f"{args.files} per pool")
    )
    print(f"{'n':>9}  {'mode':>7}  {'floor GB':>8}  {'peak RSS GB':>11}  "
          f"{'growth B/point':>14}  {'open s':>7}  {'query s (median)':>16}")  # fmt: skip
    previous: dict[str, tuple[int, float]] = {}  # mode → (n, peak GB) of the last size
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as work:
            folder = Path(work) / "pool"
            per_file = ROWS_PER_FILE if args.files is None else -(-n // args.files)
            write_pool(_pool(n), folder, rows_per_file=per_file)
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
                growth = ""
                if mode in previous and n != previous[mode][0]:
                    m0, p0 = previous[mode]
                    growth = f"{(r['peak'] - p0) * 2**30 / (n - m0):.1f}"
                previous[mode] = (n, r["peak"])
                print(
                    f"{n:>9}  {mode:>7}  {r['floor']:>8.2f}  {r['peak']:>11.3f}  "
                    f"{growth:>14}  {r['open']:>7.1f}  {r['query']:>16.3f}"
                )


if __name__ == "__main__":
    main()
