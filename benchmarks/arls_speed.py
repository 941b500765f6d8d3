"""ARLS speed and memory: one query against a naive ARLS that refits RLS from scratch.

For each pool (2-D points in a 60 × 60 box, labels from a smooth function; RBF σ = 1.7,
λ = 0.5, no class weights) the script teaches ``l`` random labeled points (l = 10, 100, 500)
and times one query of

* **ARLS** (``rlscore.query.ARLS.next_query``: the expected risk of every candidate from the
  O(n) rank-one lookahead, docs/mathematics.md §5), each right after a label (taught, then undone),
  median
  of ``--repeats`` queries after a warm-up;
* **naive ARLS**, written here with numpy/scipy only and sharing no code with the engine: for
  every unlabeled candidate i and every label c it refits RLS on L ∪ {i} from scratch
  (its own RBF kernel, a Cholesky factorisation of ``K_{L+i} + λI`` per candidate, one solve
  per label), predicts the pool, computes the pool risk of docs/mathematics.md §5 of that
  classifier, and takes
  the expectation over the current model's ``p̂(c | x_i)``; median of ``--naive-repeats`` (≥ 3)
  calls after one traced call. Where a full run would take minutes (``n · max(l, 50)`` above
  10⁶) it scores ``--naive-candidates`` random candidates and the time is extrapolated
  linearly to all of them (marked ``~``).

It checks that both choose the same point (on the scored subset where subsampled) with the
same expected risks (to 1e-8), and reports both peak memories (``tracemalloc``). BLAS is
pinned to one thread; the machine and its load average are printed before and after.

The earlier comparison with scikit-activeml is gone: the package is not installed in the
project's environment (and is not a dependency), so it could not be kept cheap and honest.

**The memory-bandwidth floor** (``--floor``, issue 25). A query must read every covariance
``D`` once (``8 n²`` bytes per covariance: one, or T with balanced multiclass weights); the
floor is the time of a plain read of the same bytes in the same process (``np.add.reduce``
over the covariance), timed interleaved with the queries. Printed per pool: the query (right
after a label, as above) and the floor in process CPU time and wall time (medians of
``--repeats``), their ratio, and the blocked numpy pass the fused one replaced
(``tests/reference/arls_blocked.py``, on the same state) for comparison. The fused pass
reads each covariance row once for every label and column (columns sharing a covariance
read it once), so "MB read" counts each distinct covariance once. The floor is the read
only: per covariance entry the pass also computes T · T' / G hypothetical decision values
(T labels, T' one-vs-all columns, G covariances; clipped, compared, summed and, with three
or more classes, normalised by a division), 2 for two classes; with three or more classes
and no weights one sweep serves every label, forming 2T' values per entry (each column
under a foreign label and under its own: 6 for three classes); "values/entry" prints that
count, the arithmetic a plain read does not have.

Run ``python benchmarks/arls_speed.py`` (full) or ``--quick`` (small pools, a few seconds);
``python benchmarks/arls_speed.py --floor [--repeats 7]`` for the floor table only.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

from harness import load_average, pin_blas, report_machine, timed

pin_blas(1)

import numpy as np  # noqa: E402
import scipy.linalg  # noqa: E402

from rlscore.query import ARLS  # noqa: E402

SIGMA, LAM = 1.7, 0.5


def make_pool(n: int, T: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, list]:
    """``n`` points in a 60 × 60 box with ``T`` classes from a smooth function."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 60.0, size=(n, 2))
    g = np.sin(X[:, 0] / 5.0) + np.cos(X[:, 1] / 7.0)
    if T == 2:
        return X, np.where(g > 0, 1, -1), [-1, 1]
    y = np.digitize(g, np.quantile(g, np.linspace(0, 1, T + 1)[1:-1]))
    return X, y, list(range(T))


# -- the naive reference (numpy/scipy only) ---------------------------------------------------
def rbf(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    sq = (A**2).sum(1)[:, None] + (B**2).sum(1)[None, :] - 2.0 * A @ B.T
    return np.exp(-np.maximum(sq, 0.0) / (2.0 * SIGMA**2))


def probabilities(F: np.ndarray) -> np.ndarray:
    """p̂(c | z), (n, T): binary [1 − p̂, p̂] with p̂ = clip((f + 1)/2); multiclass the clipped
    OvA scores normalised to sum 1 (uniform where all are 0)."""
    if F.shape[1] == 1:
        p = np.clip((F[:, 0] + 1.0) / 2.0, 0.0, 1.0)
        return np.column_stack([1.0 - p, p])
    P = np.clip((F + 1.0) / 2.0, 0.0, 1.0)
    s = P.sum(1, keepdims=True)
    return np.where(s > 0, P / np.where(s > 0, s, 1.0), 1.0 / F.shape[1])


def risk(F: np.ndarray) -> float:
    """Σ_z Σ_{l ≠ ĉ_z} p̂(l | z): the estimated number of errors on the pool."""
    P = probabilities(F)
    predicted = (F[:, 0] > 0).astype(int) if F.shape[1] == 1 else F.argmax(1)
    return float((1.0 - P[np.arange(len(P)), predicted]).sum())


def targets(codes: list[int], T: int) -> np.ndarray:
    """±1 targets: one column for two classes (class 1 = +1), one per class otherwise."""
    codes = np.asarray(codes)
    if T == 2:
        return np.where(codes == 1, 1.0, -1.0)[:, None]
    return np.where(codes[:, None] == np.arange(T), 1.0, -1.0)


def naive_scores(
    X: np.ndarray, L: list[int], codes: list[int], T: int, candidates: np.ndarray
) -> np.ndarray:
    """Σ_c p̂(c | x_i) R̂(f refit on L ∪ {(i, c)}) for every candidate i, each from scratch."""
    K_pool = rbf(X, X[L])
    G = rbf(X[L], X[L]) + LAM * np.eye(len(L))
    current = K_pool @ scipy.linalg.solve(G, targets(codes, T), assume_a="pos")
    P_now = probabilities(current)
    out = np.empty(len(candidates))
    for k, i in enumerate(candidates.tolist()):
        idx = [*L, i]
        # the hypothetical labeled set L ∪ {i}: its own kernel, its own factorisation (the
        # matrix does not depend on the label, so one Cholesky serves both labels)
        factor = scipy.linalg.cho_factor(rbf(X[idx], X[idx]) + LAM * np.eye(len(idx)))
        K_cols = np.column_stack([K_pool, rbf(X, X[i : i + 1])])
        expected = 0.0
        for c in range(T):
            coef = scipy.linalg.cho_solve(factor, targets([*codes, c], T))
            expected += P_now[i, c] * risk(K_cols @ coef)
        out[k] = expected
    return out


def naive_query(X: np.ndarray, L: list[int], codes: list[int], T: int) -> tuple[int, float]:
    """argmin over the unlabeled candidates of :func:`naive_scores` (first on ties)."""
    candidates = np.setdiff1d(np.arange(len(X)), L)
    scores = naive_scores(X, L, codes, T, candidates)
    k = int(np.argmin(scores))
    return int(candidates[k]), float(scores[k])


# -- measurement ------------------------------------------------------------------------------
def traced_peak_mb(fn) -> tuple[float, object]:
    """Peak traced MB (numpy's buffers included) over one call of ``fn``, and its result."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        out = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / 2**20, out


def arls_with_labels(X, classes, L, labels) -> ARLS:
    q = ARLS(sigma=SIGMA, lam=LAM).start(X, classes)
    q.teach_many(L, labels)
    return q


def fresh_query_seconds(q: ARLS, y: np.ndarray, repeats: int) -> float:
    """Median seconds of a query right after a label (ARLS caches the scores of a state, so
    asking twice would time the cache): teach one point, time the query, undo it."""
    free = np.setdiff1d(np.arange(q.n_pool_), q.labeled_)
    times = []
    for i in np.random.default_rng(2).choice(free, repeats + 1, replace=False).tolist():
        q.teach(i, y[i].item())
        tic = time.perf_counter()
        q.next_query()
        times.append(time.perf_counter() - tic)
        q.undo()
    return statistics.median(times[1:])  # the first is a warm-up


def run_case(n: int, T: int, l: int, args) -> dict:
    """One pool: ARLS's query time and peak memory, the naive reference's, and agreement.

    The naive reference scores every unlabeled candidate when ``n · max(l, 50)`` is within
    ``args.naive_budget``; above it, a random subset of ``args.naive_candidates`` candidates,
    timed and extrapolated linearly to all of them (``naive_extrapolated``), and the pick is
    checked within that subset (the argmin of ARLS's own scores restricted to it).
    """
    X, y, classes = make_pool(n, T)
    L = sorted(np.random.default_rng(1).choice(n, l, replace=False).tolist())
    labels = y[L].tolist()
    codes = [classes.index(v) for v in labels]
    q = arls_with_labels(X, classes, L, labels)
    row = {"n": n, "T": T, "l": l, "query_s": fresh_query_seconds(q, y, args.repeats)}
    row["peak_mb"], _ = traced_peak_mb(lambda: arls_with_labels(X, classes, L, labels).next_query())
    if args.naive_budget is None:
        return row
    i_fast, r_fast = q.next_query()
    fast = q.scores()
    unlabeled = np.setdiff1d(np.arange(n), L)
    full = n * max(l, 50) <= args.naive_budget
    if full:
        cands = unlabeled
    else:
        rng = np.random.default_rng(3)
        cands = np.sort(rng.choice(unlabeled, min(args.naive_candidates, unlabeled.size), False))
    # one traced call (memory; it is also the warm-up), then the timed ones
    row["naive_mb"], ref = traced_peak_mb(lambda: naive_scores(X, L, codes, T, cands))
    measured = timed(
        lambda: naive_scores(X, L, codes, T, cands), repeats=args.naive_repeats, warmup=0
    )
    row["naive_s"] = measured * unlabeled.size / cands.size
    row["naive_extrapolated"] = not full
    row["naive_candidates"] = int(cands.size)
    row["candidates"] = int(unlabeled.size)
    row["max_risk_diff"] = float(np.max(np.abs(ref - fast[cands])))
    k_naive = int(np.argmin(ref))
    tol = 1e-8 * max(1.0, abs(r_fast))
    if full:
        row["same"] = bool(cands[k_naive] == i_fast and abs(ref[k_naive] - r_fast) < tol)
    else:
        k_fast = int(np.argmin(fast[cands]))
        row["same"] = bool(k_naive == k_fast and row["max_risk_diff"] < tol)
    return row


def floor_case(n: int, T: int, class_weight, l: int, repeats: int) -> dict:
    """Query vs the read floor of its covariances, interleaved; CPU and wall medians (ms)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from reference.arls_blocked import blocked_arls_scores, state_of

    X, y, classes = make_pool(n, T)
    L = sorted(np.random.default_rng(1).choice(n, l, replace=False).tolist())
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight).start(X, classes)
    q.teach_many(L, y[L].tolist())
    free = np.setdiff1d(np.arange(n), q.labeled_)
    picks = np.random.default_rng(2).choice(free, repeats + 1, replace=False).tolist()
    Ds = list(q._Ds)  # the covariances a query reads (one per group of columns)
    nbytes = sum(D.nbytes for D in Ds)
    cpu = {"query": [], "floor": [], "blocked": []}
    wall = {"query": [], "floor": [], "blocked": []}

    def clock(key, fn, keep):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        if keep:
            cpu[key].append(time.process_time() - c0)
            wall[key].append(time.perf_counter() - w0)
        return out

    same = True
    for r, i in enumerate(picks):  # round 0 is the warm-up (and compiles the kernel)
        q.teach(i, y[i].item())
        clock("floor", lambda: [np.add.reduce(D, axis=None) for D in Ds], r > 0)
        fused = clock("query", lambda: q.next_query() and q.scores(), r > 0)
        if r < 2:  # the replaced pass is slow: two rounds check agreement, all time it
            blocked = clock("blocked", lambda: blocked_arls_scores(state_of(q)), r > 0)
            scale = max(1.0, float(np.nanmax(np.abs(blocked))))
            same &= bool(np.nanmax(np.abs(fused - blocked)) <= 1e-10 * scale)
        q.undo()
    med = {k: 1e3 * statistics.median(v) for k, v in cpu.items()}
    medw = {k: 1e3 * statistics.median(v) for k, v in wall.items()}
    # hypothetical decision values per covariance entry read: T labels × T' columns, over the
    # covariances the columns share; unweighted multiclass: every column under a foreign label
    # and under its own, in one sweep for all labels (rlscore/query/arls/fused_lookahead.py)
    columns = q._m.shape[1]
    values = 2 * columns if T >= 3 and class_weight is None else T * columns / len(Ds)
    return {"n": n, "T": T, "weights": class_weight or "none", "l": l, "mb": nbytes / 2**20,
            "cpu": med, "wall": medw, "same": same, "values": values}  # fmt: skip


def main_floor(repeats: int, quick: bool) -> None:
    report_machine()
    cases = [(2000, 2, None), (5000, 2, None), (2000, 2, "balanced"), (5000, 2, "balanced"),
             (2000, 3, None), (5000, 3, None), (2000, 3, "balanced"),
             (2000, 4, None), (2000, 4, "balanced")]  # fmt: skip
    if quick:
        cases = [(300, 2, None), (300, 3, "balanced")]
    print(
        f"ARLS query vs the memory-bandwidth floor (a plain read of the covariances it must "
        f"read, np.add.reduce, same process); RBF σ = {SIGMA}, λ = {LAM}, 100 labels; medians "
        f"of {repeats} interleaved rounds; times in ms (CPU = process time, the figure to "
        "read on a shared machine)"
    )
    header = (
        f"{'n':>5} {'T':>2} {'weights':>8} {'MB read':>8} {'query CPU':>10} {'floor CPU':>10} "
        f"{'ratio':>6} {'query wall':>11} {'floor wall':>11} {'ratio':>6} {'GB/s':>5} "
        f"{'blocked CPU':>12} {'= blocked':>10} {'values/entry':>13}"
    )
    print(header)
    print("-" * len(header))
    for n, T, cw in cases:
        r = floor_case(n, T, cw, 100 if not quick else 20, repeats)
        c, w = r["cpu"], r["wall"]
        print(
            f"{n:>5} {T:>2} {r['weights']:>8} {r['mb']:>8.0f} {c['query']:>10.2f} "
            f"{c['floor']:>10.2f} {c['query'] / c['floor']:>5.2f}× {w['query']:>11.2f} "
            f"{w['floor']:>11.2f} {w['query'] / w['floor']:>5.2f}× "
            f"{r['mb'] * 2**20 / 1e6 / c['floor']:>5.1f} {c['blocked']:>12.2f} "
            f"{'yes' if r['same'] else 'NO':>10} {r['values']:>13g}",
            flush=True,
        )
    print(
        "GB/s: the floor's read bandwidth (CPU time). blocked: the numpy pass the fused one "
        "replaced (tests/reference/arls_blocked.py), median of 1 timed round; '= blocked': "
        "scores equal to 1e-10. values/entry: hypothetical decision values the pass computes "
        "per covariance entry read (T labels × T' columns / covariances; 2T' for the unweighted "
        "multiclass sweep).\n"
        f"Load average at the end: {load_average()}"
    )


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="small pools only (a few seconds)")
    p.add_argument("--repeats", type=int, default=7, help="timed ARLS queries (median)")
    p.add_argument("--naive-repeats", type=int, default=3, help="timed naive queries (median, ≥ 3)")
    p.add_argument(
        "--naive-candidates",
        type=int,
        default=200,
        help="candidates the naive reference scores above the budget (time extrapolated)",
    )
    p.add_argument("--floor", action="store_true", help="the query vs its read floor only")
    args = p.parse_args(argv)
    if args.floor:
        main_floor(max(args.repeats, 5), args.quick)
        return []
    if args.naive_repeats < 3:
        p.error("--naive-repeats must be at least 3")
    if args.quick:
        cases = [(200, 2, 10), (200, 2, 50), (150, 3, 10)]
        args.naive_budget, args.repeats = 10**5, 3
    else:
        cases = [(n, 2, l) for n in (1000, 2000) for l in (10, 100, 500)]
        cases += [(5000, 2, 10), (5000, 2, 500), (2000, 3, 10), (2000, 3, 100)]
        # above n · max(l, 50) = 10⁶ the naive reference scores a candidate subset (minutes)
        args.naive_budget = 10**6
    report_machine()
    print(f"ARLS, RBF σ = {SIGMA}, λ = {LAM}, no class weights; l random labels taught first")
    header = (
        f"{'n':>5} {'T':>2} {'l':>4} {'ARLS query s':>13} {'ARLS MB':>8} "
        f"{'naive s':>9} {'naive MB':>9} {'naive/ARLS':>11} {'max|Δrisk|':>11} {'same pick':>10}"
    )
    print(header)
    print("-" * len(header))
    rows = []
    for n, T, l in cases:
        r = run_case(n, T, l, args)
        rows.append(r)
        mark = "~" if r["naive_extrapolated"] else ""
        same = ("yes" if r["same"] else "NO") + (" (sub)" if r["naive_extrapolated"] else "")
        print(
            f"{n:>5} {T:>2} {l:>4} {r['query_s']:>13.3g} {r['peak_mb']:>8.3g} "
            f"{mark + format(r['naive_s'], '.3g'):>9} {r['naive_mb']:>9.3g} "
            f"{mark + format(r['naive_s'] / r['query_s'], '.0f') + '×':>11} "
            f"{r['max_risk_diff']:>11.1e} {same:>10}",
            flush=True,
        )
    print(
        f"ARLS: median of {args.repeats} queries, each right after a label; naive: median of "
        f"{args.naive_repeats} calls, all unlabeled candidates scored, except '~' rows: "
        f"{args.naive_candidates} random candidates scored (n · max(l, 50) above "
        f"{args.naive_budget:.0e}), time extrapolated × (candidates / {args.naive_candidates}), "
        "pick and risks checked on that subset ('(sub)').\n"
        "MB: peak traced memory (tracemalloc) — ARLS: start + teach the l labels + one query; "
        "naive: one scoring call. max|Δrisk|: largest difference of the expected risks of the "
        "scored candidates.\n"
        f"Load average at the end: {load_average()}"
    )
    return rows


if __name__ == "__main__":
    main()
