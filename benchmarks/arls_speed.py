"""ARLS speed and memory: time per query and peak memory against a naive refit and scikit-activeml.

For each pool (2-D points in a 60 × 60 box, labels from a smooth function; RBF σ = 1.7,
λ = 0.5) the script starts ARLS, teaches ``--warm`` labels chosen by ARLS itself, then times

* ``next_query`` (the full O(T² n²) expected-risk pass) and ``teach`` (the O(n²) update),
  median of ``--repeats`` query/teach cycles;
* the naive reference: refit RLS from scratch for every candidate and label (same state,
  same risk), one query — and checks it picks the same point;
* scikit-activeml's ``MonteCarloEER`` (expected error reduction, misclassification loss,
  Roy & McCallum 2001) with its ``ParzenWindowClassifier`` (RBF, same σ) on the same pool
  and labels, one query — the closest off-the-shelf strategy (it refits per candidate too).

Peak memory is measured with ``tracemalloc`` (numpy reports its buffers to it) over
``start`` + one query. Run ``python benchmarks/arls_speed.py`` (full) or ``--quick``.
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

from rlscore.query.arls import ARLS, pool_risk

SIGMA, LAM = 1.7, 0.5


def make_pool(n: int, T: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, list]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 60.0, size=(n, 2))
    g = np.sin(X[:, 0] / 5.0) + np.cos(X[:, 1] / 7.0)
    if T == 2:
        return X, np.where(g > 0, 1, -1), [-1, 1]
    y = np.digitize(g, np.quantile(g, np.linspace(0, 1, T + 1)[1:-1]))
    return X, y, list(range(T))


def warm(q: ARLS, y: np.ndarray, labels: int) -> None:
    for _ in range(labels):
        i, _ = q.next_query()
        q.teach(i, y[i].item())


def naive_query(q: ARLS) -> tuple[int, float]:
    """Refit RLS for every candidate × label from scratch; the same expected risk as ARLS."""
    K = q._K
    T = q.classes_.size
    L = list(q.labeled_)
    cls = [q.class_index(v) for v in q.labels_]
    w, inv_w = q.weights_, q._risk_weights()
    P = q.class_probabilities() * inv_w
    best, best_i = np.inf, -1
    for i in range(q.n_pool_):
        if i in L:
            continue
        expected = 0.0
        for c in range(T):
            idx = np.array([*L, i])
            Y = np.array([q.ova_targets(k) for k in [*cls, c]])
            G = K[np.ix_(idx, idx)] + LAM * np.diag(1.0 / w[np.array([*cls, c])])
            f = K[:, idx] @ scipy.linalg.solve(G, Y, assume_a="pos")  # (n, T')
            F = f.T[None].copy()
            expected += P[i, c] * pool_risk(F[:, 0] if F.shape[1] == 1 else F, inv_w)[0]
        if expected < best:
            best, best_i = expected, i
    return best_i, best


def skactiveml_query(X: np.ndarray, y: np.ndarray, q: ARLS) -> float | str:
    """Seconds for one MonteCarloEER query on the same pool and labels."""
    try:
        from skactiveml.classifier import ParzenWindowClassifier
        from skactiveml.pool import MonteCarloEER
    except ImportError:
        return "not installed"
    y_partial = np.full(len(y), np.nan)
    y_partial[q.labeled_] = y[q.labeled_]
    clf = ParzenWindowClassifier(
        classes=q.classes_.tolist(),
        metric="rbf",
        metric_dict={"gamma": 1.0 / (2.0 * SIGMA**2)},
        missing_label=np.nan,
    )
    strategy = MonteCarloEER(method="misclassification_loss", random_state=0)
    tic = time.perf_counter()
    strategy.query(X, y_partial, clf)
    return time.perf_counter() - tic


def peak_memory(X: np.ndarray, classes: list) -> float:
    """Peak traced MB over start + one query."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    q = ARLS(sigma=SIGMA, lam=LAM).start(X, classes)
    q.next_query()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del q
    return peak / 2**20


def run_case(n: int, T: int, args) -> dict:
    X, y, classes = make_pool(n, T)
    tic = time.perf_counter()
    q = ARLS(sigma=SIGMA, lam=LAM).start(X, classes)
    start_s = time.perf_counter() - tic
    warm(q, y, args.warm)
    query_s, query_cpu, teach_s = [], [], []
    for _ in range(args.repeats):
        tic, cpu = time.perf_counter(), time.process_time()
        i, _ = q.next_query()
        query_s.append(time.perf_counter() - tic)
        query_cpu.append(time.process_time() - cpu)
        tic = time.perf_counter()
        q.teach(i, y[i].item())
        teach_s.append(time.perf_counter() - tic)
    row = {
        "n": n,
        "T": T,
        "start_s": start_s,
        "query_s": float(np.median(query_s)),
        "query_cpu": float(np.median(query_cpu)),
        "teach_s": float(np.median(teach_s)),
        "peak_mb": peak_memory(X, classes),
        "theory_mb": 2 * n * n * 8 / 2**20,
    }
    if n <= args.naive_max:
        i_fast, r_fast = q.next_query()
        tic = time.perf_counter()
        i_naive, r_naive = naive_query(q)
        row["naive_s"] = time.perf_counter() - tic
        close = abs(r_fast - r_naive) < 1e-8 * max(1.0, r_fast)
        row["same_choice"] = bool(i_fast == i_naive and close)
    if n <= args.skactiveml_max:
        row["skactiveml_s"] = skactiveml_query(X, y, q)
    return row


def fmt(v, spec=".3f") -> str:
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "yes" if v else "NO"
    return format(v, spec)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small pools only (a few seconds)")
    p.add_argument("--warm", type=int, default=10, help="labels taught before timing")
    p.add_argument("--repeats", type=int, default=5, help="timed query/teach cycles")
    p.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="BLAS threads (default 1: multithreaded OpenBLAS crawls on a shared machine)",
    )
    args = p.parse_args(argv)
    if args.quick:
        cases = [(200, 2), (500, 2), (1000, 2), (500, 3)]
        args.naive_max, args.skactiveml_max, args.repeats = 500, 200, 3
    else:
        cases = [(500, 2), (1000, 2), (2000, 2), (5000, 2), (2000, 3)]
        args.naive_max, args.skactiveml_max = 5000, 1000
    print(
        f"ARLS speed: σ={SIGMA}, λ={LAM}, {args.warm} labels taught first; "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, "
        f"{args.blas_threads} BLAS thread(s)"
    )
    header = (
        f"{'n':>5} {'T':>2} {'start s':>8} {'query s':>8} {'cpu s':>6} {'teach s':>8} "
        f"{'peak MB':>8} {'2n² MB':>8} {'naive s':>8} {'same':>5} {'skactiveml s':>13}"
    )
    print(header)
    print("-" * len(header))
    for n, T in cases:
        with threadpool_limits(limits=args.blas_threads, user_api="blas"):
            r = run_case(n, T, args)
        print(
            f"{n:>5} {T:>2} {fmt(r['start_s']):>8} {fmt(r['query_s']):>8} "
            f"{fmt(r['query_cpu']):>6} {fmt(r['teach_s']):>8} "
            f"{fmt(r['peak_mb'], '.0f'):>8} {fmt(r['theory_mb'], '.0f'):>8} "
            f"{fmt(r.get('naive_s')):>8} {fmt(r.get('same_choice')):>5} "
            f"{fmt(r.get('skactiveml_s')):>13}",
            flush=True,
        )
    print(
        "query = one full expected-risk pass over every unlabeled candidate (median wall time; "
        "cpu = its process CPU time, less sensitive to other load); "
        "naive = refit per candidate × label; skactiveml = MonteCarloEER + ParzenWindowClassifier "
        "(different classifier, same pool and labels); '—' = not run at this size."
    )


if __name__ == "__main__":
    main()
