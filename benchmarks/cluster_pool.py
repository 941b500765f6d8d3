"""A pool on a Dask cluster (issue 26): query time beside the in-memory engine, memory of the
client and of the workers.

A ``LocalCluster`` of worker processes on this machine holds the pool's low-rank features
(RBF Nyström, m uniform landmarks fitted on the client from m rows fetched from the files);
the client (this process) keeps only the labels and the m × m state. The pool is generated
(two Gaussian classes, d features) and written as Parquet in a temporary folder. Per strategy:
10 labels first, then ``--queries`` queries, each followed by the truth label; the median
query time. The in-memory engine (``LowRankARLS``, ``FocusedARLS`` / the baselines with
``kernel="linear"`` on the same features) runs the same loop in a child process, so its memory
does not count towards the client's; the picks of both are compared. Focused ARLS runs with
the app's defaults (10 candidates by margin, 10 % uniform draws, its risk on every row).

    OPENBLAS_NUM_THREADS=1 python benchmarks/cluster_pool.py --n 2000000 --m 100
"""

from __future__ import annotations

from harness import load_average, pin_blas, report_machine

pin_blas(1)  # before numpy; the workers and the child inherit the environment

import argparse  # noqa: E402
import json  # noqa: E402
import pickle  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from cluster_fixture import local_cluster, peak_rss_gb, rss_gb  # noqa: E402

STRATEGIES = ("arls-lowrank", "arls-focused", "uncertainty", "entropy", "random")
LAM = 0.5
FIRST_LABELS = 10


def write_pool(folder: Path, n: int, d: int, rows_per_file: int) -> None:
    """Files of generated rows; class = the sign of the first coordinate's shift (seeded)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for k, s in enumerate(range(0, n, rows_per_file)):
        rows = min(rows_per_file, n - s)
        rng = np.random.default_rng([26, k])
        y = rng.integers(0, 2, rows)
        X = rng.normal(size=(rows, d)) + 1.0 * y[:, None]
        cols = {f"x{j}": X[:, j] for j in range(d)}
        cols["y"] = y
        pq.write_table(pa.table(cols), folder / f"part-{k:05d}.parquet")


def truth(folder: Path) -> np.ndarray:
    import pyarrow.parquet as pq

    files = sorted(folder.glob("part-*.parquet"))
    return np.concatenate([pq.read_table(f, columns=["y"])["y"].to_numpy() for f in files])


def run_loop(q, y: np.ndarray, queries: int) -> tuple[float, float, list[int]]:
    """Median seconds of ``queries`` queries and of the teaching that follows each, and the
    picks."""
    first = [int(np.flatnonzero(y == c)[k]) for k in range(FIRST_LABELS // 2) for c in (0, 1)]
    q.teach_many(first, y[first])
    times, teach, picks = [], [], []
    for _ in range(queries):
        t = time.perf_counter()
        i, _ = q.next_query()
        q.estimated_risk()
        times.append(time.perf_counter() - t)
        picks.append(i)
        t = time.perf_counter()
        q.teach(i, y[i])
        teach.append(time.perf_counter() - t)
    return float(np.median(times)), float(np.median(teach)), picks


def in_memory(args) -> None:
    """The child process: the in-memory engine on the same features."""
    import pyarrow.parquet as pq

    from rlscore.query import FocusedARLS, LowRankARLS
    from rlscore.query.baselines.strategies import EntropyQuery, RandomQuery, UncertaintyQuery

    folder = Path(args.folder)
    fmap = pickle.loads((folder / "map.pkl").read_bytes())
    files = sorted(folder.glob("part-*.parquet"))
    cols = [f"x{j}" for j in range(args.d)]
    X = np.vstack([pq.read_table(f, columns=cols).to_pandas().to_numpy() for f in files])
    y = truth(folder)
    t = time.perf_counter()
    phi = fmap.transform(X)
    del X
    start = time.perf_counter() - t
    out = {"features_s": start}
    for name in STRATEGIES:
        params = dict(kernel="linear", lam=LAM)
        if name == "arls-lowrank":
            s = LowRankARLS(**params, candidates=args.candidates, risk_sample=args.risk_sample)
        elif name == "arls-focused":
            s = FocusedARLS(**params)  # the app's default: focus 10, DEFAULT_EXPLORE, seed 0
        else:
            s = {"uncertainty": UncertaintyQuery, "entropy": EntropyQuery}.get(name)
            s = RandomQuery(**params, seed=0) if s is None else s(**params)
        s.start(phi, [0, 1])
        out[name] = run_loop(s, y, args.queries)
    out["peak_rss_gb"] = peak_rss_gb()
    print(json.dumps(out))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=2_000_000)
    p.add_argument("--d", type=int, default=10)
    p.add_argument("--m", type=int, default=100)
    p.add_argument("--rows-per-file", type=int, default=250_000)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--memory-limit", default="4GiB")
    p.add_argument("--queries", type=int, default=5)
    p.add_argument("--candidates", type=int, default=200)
    p.add_argument("--risk-sample", type=int, default=20_000)
    p.add_argument("--folder", help=argparse.SUPPRESS)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        in_memory(args)
        return

    import distributed

    report_machine()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        write_pool(folder, args.n, args.d, args.rows_per_file)
        print(f"pool: n = {args.n}, d = {args.d}, {len(list(folder.glob('*.parquet')))} files, "
              f"written in {time.perf_counter() - t:.1f} s")  # fmt: skip
        y = truth(folder)
        with local_cluster(args.workers, args.memory_limit) as cluster:
            client = distributed.Client(cluster)
            results, workers, workers_after, load_s, rss_before = _on_cluster(
                client, folder, y, args
            )
            client_peak = peak_rss_gb()
            client.close()
        child = subprocess.run(
            [sys.executable, __file__, "--child", "--folder", str(folder), "--d", str(args.d),
             "--queries", str(args.queries), "--candidates", str(args.candidates),
             "--risk-sample", str(args.risk_sample)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        ref = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"cluster: {args.workers} worker processes, 1 thread each, memory limit "
          f"{args.memory_limit}; m = {args.m} uniform landmarks, RBF σ = 3; load "
          f"(landmarks + features on the workers) {load_s:.1f} s; worker RSS after load: "
          + ", ".join(f"{v:.2f} GB" for v in workers.values()))  # fmt: skip
    print(
        f"medians of {args.queries} queries (each = next_query + estimated_risk, then the label "
        f"taught); low-rank ARLS: {args.candidates} candidates, {args.risk_sample} risk points; "
        "focused ARLS: the app's defaults (focus 10, its exploration share), risk on every point"
    )
    print(
        f"{'strategy':>14} {'cluster query s':>16} {'teach s':>8} {'in-memory query s':>18} "
        f"{'teach s':>8} {'same picks':>11}"
    )
    for name in STRATEGIES:
        c, r = results[name], ref[name]
        same = sum(a == b for a, b in zip(c[2], r[2], strict=True))
        print(
            f"{name:>14} {c[0]:>16.3f} {c[1]:>8.3f} {r[0]:>18.3f} {r[1]:>8.3f} "
            f"{same:>5} of {args.queries}"
        )
    print(f"client (this process): RSS {rss_before:.2f} GB before the load, peak "
          f"{client_peak:.2f} GB (includes writing the files, 1 file at a time)")  # fmt: skip
    print(
        "workers' RSS after the queries: "
        + ", ".join(f"{v:.2f} GB" for v in workers_after.values())
    )
    print(f"in-memory engine (child process): features {ref['features_s']:.1f} s, peak RSS "
          f"{ref['peak_rss_gb']:.2f} GB")  # fmt: skip
    print(f"# load average at the end: {load_average()}")


def _on_cluster(client, folder: Path, y: np.ndarray, args) -> tuple:
    """Load the pool into the workers (the feature map saved for the child) and run every
    strategy's loop on it: the loops' figures, the workers' RSS after the load and after the
    queries, the load's seconds and this process's RSS before it."""
    from rlscore.core.kernels.lowrank import LowRankKernel
    from rlscore.data.cluster.parquet_pool import ClusterPool

    cols = [f"x{j}" for j in range(args.d)]
    rss_before = rss_gb()
    t = time.perf_counter()
    idx = np.random.default_rng(0).choice(args.n, args.m, replace=False)
    sample = ClusterPool.sample_rows(client, str(folder), idx, columns=cols)
    fmap = LowRankKernel(kernel="rbf", sigma=3.0, n_landmarks=args.m, landmarks="uniform")
    fmap.fit(sample)
    (folder / "map.pkl").write_bytes(pickle.dumps(fmap))
    pool = ClusterPool.load(client, str(folder), fmap, columns=cols)
    load_s = time.perf_counter() - t
    workers = client.run(rss_gb)
    results = {}
    for name in STRATEGIES:
        q = pool.query(
            [0, 1], name, lam=LAM, candidates=args.candidates, risk_sample=args.risk_sample,
            random_state=0, seed=0,
        )  # fmt: skip
        results[name] = run_loop(q, y, args.queries)
    return results, workers, client.run(rss_gb), load_s, rss_before


if __name__ == "__main__":
    main()
