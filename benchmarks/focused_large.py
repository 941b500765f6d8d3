"""Focused ARLS on large pools, on the exact kernel, beside the low-rank ARLS it replaces
below :data:`rlscore.sessions.settings.LOW_RANK_MIN_POOL` and a naive numpy margin query.

For each pool size: the start, the median query (the next query right after a label) and
teach, and the peak memory traced over start, labels and queries, with 10 and with 1000 labels
(focused ARLS keeps the kernel columns of the labeled points: 8·n bytes per label).
*low-rank* is ``LowRankARLS`` with the app's large-pool settings (m = 500 uniform landmarks,
500 candidates, risk on 20 000 points); *naive* is a margin query written here with numpy
only (RBF columns of the labeled points, a Cholesky solve, the smallest |f|): a floor for any
query that looks at every point's prediction.

    python benchmarks/focused_large.py [--sizes 50000 200000] [--labels 10 1000] [--quick]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from harness import pin_blas, report_machine

pin_blas(1)

import numpy as np  # noqa: E402

from rlscore.query import make_strategy  # noqa: E402

SIGMA, LAM, D = 3.0, 0.5, 10


def pool(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    return X, np.where(X[:, 0] + 0.5 * np.sin(2 * X[:, 1]) > 0, 1, -1)


def naive_margin_query(X: np.ndarray, labeled: list[int], y: np.ndarray) -> int:
    """Smallest |f| of an RLS on the labeled points (numpy only, no code of the engine)."""
    XL = X[labeled]
    sq = (X**2).sum(1)[:, None] + (XL**2).sum(1)[None, :] - 2 * X @ XL.T
    KL = np.exp(-np.maximum(sq, 0) / (2 * SIGMA**2))
    c = np.linalg.solve(KL[labeled] + LAM * np.eye(len(labeled)), y[labeled].astype(float))
    f = np.abs(KL @ c)
    f[labeled] = np.inf
    return int(np.argmin(f))


def measure(name: str, X: np.ndarray, y: np.ndarray, labels: int, repeats: int) -> dict:
    params = {"sigma": SIGMA, "lam": LAM}
    if name == "arls-lowrank":
        params |= {"n_landmarks": 500, "landmarks": "uniform", "candidates": 500,
                   "risk_sample": 20_000}  # fmt: skip
    rng = np.random.default_rng(1)
    tracemalloc.start()
    tic = time.perf_counter()
    q = make_strategy(name, **params).start(X, [-1, 1])
    start = time.perf_counter() - tic
    first = [int(i) for i in rng.choice(X.shape[0], labels, replace=False)]
    first += [int(np.flatnonzero(y == c)[0]) for c in (-1, 1)]  # both classes
    first = list(dict.fromkeys(first))
    q.teach_many(first, [int(y[i]) for i in first])
    queries, teaches = [], []
    for _ in range(repeats):
        tic = time.perf_counter()
        i, _ = q.next_query()
        queries.append(time.perf_counter() - tic)
        tic = time.perf_counter()
        q.teach(i, int(y[i]))
        teaches.append(time.perf_counter() - tic)
    peak = tracemalloc.get_traced_memory()[1] / 2**30
    tracemalloc.stop()
    return {"start": start, "query": float(np.median(queries)),
            "teach": float(np.median(teaches)), "peak_gb": peak}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[50_000, 200_000])
    p.add_argument("--labels", type=int, nargs="+", default=[10, 1000])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="n = 20 000, 10 labels, 3 repeats")
    args = p.parse_args(argv)
    if args.quick:
        args.sizes, args.labels, args.repeats = [20_000], [10], 3
    report_machine()
    print(f"d = {D}, RBF σ = {SIGMA}, λ = {LAM}; medians of {args.repeats} queries")
    header = f"{'n':>9} {'labels':>6} {'strategy':>13} {'start s':>8} {'query s':>8} "
    print(header + f"{'teach s':>8} {'peak GB':>8}")
    for n in args.sizes:
        X, y = pool(n)
        for labels in args.labels:
            for name in ("arls-focused", "arls-lowrank"):
                r = measure(name, X, y, labels, args.repeats)
                print(f"{n:>9} {labels:>6} {name:>13} {r['start']:>8.2f} {r['query']:>8.3f} "
                      f"{r['teach']:>8.3f} {r['peak_gb']:>8.2f}", flush=True)  # fmt: skip
            labeled = [int(i) for i in np.random.default_rng(1).choice(n, labels, replace=False)]
            tic = time.perf_counter()
            naive_margin_query(X, labeled, y)
            print(f"{n:>9} {labels:>6} {'naive margin':>13} {'':>8} "
                  f"{time.perf_counter() - tic:>8.3f}", flush=True)  # fmt: skip
    report_machine()


if __name__ == "__main__":
    main()
