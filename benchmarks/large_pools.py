"""ARLS on low-rank features for pools of 10⁵–10⁶ points (issue 10, SPEC §7).

Data: ``n`` points of a 10-dimensional standard normal, labels ``x₀ + sin(2x₁) + x₂x₃/2 > 0``
(two classes, about balanced), RBF σ = 3, λ = 0.5, no class weights, 10 random labels taught
first; ``rlscore.query.LowRankARLS`` with m = 500 uniform landmarks. Three parts:

1. **n = 100 000**: the start (landmarks, features Φ), the time of one query right after a
   label (median of ``--repeats``, the label undone after each) for two settings — 200
   candidates with the risk summed over the whole pool, and 200 candidates with the risk
   estimated on 20 000 sampled points — and the peak memory (``tracemalloc``: start, labels
   and one query). Beside it, from the same run, a **naive reference** written here with
   numpy only and sharing no code with the engine: it rebuilds ``P`` from the labels with
   ``numpy.linalg.inv``, forms the whole (s × c) product ``Φ_S(I − P)Φ_Cᵀ`` at once and
   loops over the candidates and labels with its own risk function; it scores the same
   candidates on the same risk points, and the script checks the same pick and the largest
   score difference.
2. **n = 1 000 000** with 200 candidates and a risk sample of 20 000 points: start (one run),
   query (median), teach, peak memory, and the same naive reference.
3. **Exact vs low-rank** on n = 5000 (m = 500): dense ``ARLS`` on the exact RBF kernel and
   ``LowRankARLS`` with every candidate and the whole pool. Same pick: both are asked for
   their query on the same labeled set at each of 100 steps (the exact pick is taught to
   both). Learning curves: each strategy follows its own picks for 100 steps; accuracy on a
   held-out test set of 2000 points every 10 labels.

BLAS is pinned to one thread; the machine and its load average are printed before and after,
with the process's maximum resident set size.

Run ``python benchmarks/large_pools.py`` (full, several minutes) or ``--quick`` (tiny sizes).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
import tracemalloc

from harness import load_average, pin_blas, report_machine, timed

pin_blas(1)

import numpy as np  # noqa: E402

from rlscore.query import ARLS, LowRankARLS  # noqa: E402

D, SIGMA, LAM, SEED_LABELS = 10, 3.0, 0.5, 10


def make_pool(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    g = X[:, 0] + np.sin(2.0 * X[:, 1]) + 0.5 * X[:, 2] * X[:, 3]
    return X, (g > 0).astype(int)


# -- the naive reference (numpy only) ---------------------------------------------------------
def naive_risk(f: np.ndarray) -> float:
    """Σ_z min(p̂, 1 − p̂), p̂ = clip((f + 1)/2, 0, 1): the expected errors on the points."""
    p = np.clip((f + 1.0) / 2.0, 0.0, 1.0)
    return float(np.minimum(p, 1.0 - p).sum())


def naive_scores(phi, L, labels, cand, S, lam: float) -> np.ndarray:
    """Expected pool risk of labeling each candidate (binary, no weights), all at full size."""
    n, r = phi.shape
    phi_L = phi[L]
    y_L = np.where(np.asarray(labels) == 1, 1.0, -1.0)
    H_inv = np.linalg.inv(phi_L.T @ phi_L + lam * np.eye(r))
    w = H_inv @ (phi_L.T @ y_L)  # primal RLS
    C = lam * H_inv  # I − P
    phi_S = phi if S is None else phi[S]
    m_S = phi_S @ w
    phi_C = phi[cand]
    m_C = phi_C @ w
    p_plus = np.clip((m_C + 1.0) / 2.0, 0.0, 1.0)
    D_SC = phi_S @ (C @ phi_C.T)  # d_i on the risk points, every candidate at once
    s = np.einsum("ij,ij->i", phi_C @ C, phi_C) + lam
    out = np.empty(len(cand))
    for k in range(len(cand)):
        expected = 0.0
        for y, p in ((1.0, p_plus[k]), (-1.0, 1.0 - p_plus[k])):
            expected += p * naive_risk(m_S + D_SC[:, k] * (y - m_C[k]) / s[k])
        out[k] = expected * n / phi_S.shape[0]
    return out


# -- measurement ------------------------------------------------------------------------------
def fresh_query_seconds(q, y: np.ndarray, repeats: int) -> float:
    """Median seconds of a query right after a label (the scores of a state are cached):
    teach one point, time the query, undo it; the first query is a warm-up."""
    free = np.setdiff1d(np.arange(q.n_pool_), q.labeled_)
    times = []
    for i in np.random.default_rng(2).choice(free, repeats + 1, replace=False).tolist():
        q.teach(i, int(y[i]))
        tic = time.perf_counter()
        q.next_query()
        times.append(time.perf_counter() - tic)
        q.undo()
    return statistics.median(times[1:])


def big_pool(n: int, landmarks: int, settings: list[tuple], args, start_repeats: int) -> dict:
    """Start, query, teach and memory of LowRankARLS on one pool, with the naive reference."""
    X, y = make_pool(n)
    L = np.random.default_rng(1).choice(n, SEED_LABELS, replace=False).tolist()
    row = {"n": n, "m": landmarks, "settings": []}
    c0, s0 = settings[0]

    def make(candidates, risk_sample):
        return LowRankARLS(
            sigma=SIGMA,
            lam=LAM,
            n_landmarks=landmarks,
            candidates=candidates,
            risk_sample=risk_sample,
        )

    # one traced run: start + labels + one query (numpy's buffers are traced)
    tracemalloc.start()
    tic = time.perf_counter()
    q = make(c0, s0).start(X, [0, 1])
    first_start = time.perf_counter() - tic
    q.teach_many(L, y[L].tolist())
    q.next_query()
    row["peak_gb"] = tracemalloc.get_traced_memory()[1] / 1e9
    tracemalloc.stop()
    row["r"] = q.features_.shape[1]
    if start_repeats > 1:
        row["start_s"] = timed(lambda: make(c0, s0).start(X, [0, 1]), start_repeats, warmup=0)
    else:
        row["start_s"] = first_start
    row["start_runs"] = start_repeats
    free = np.setdiff1d(np.arange(n), q.labeled_)
    j = int(np.random.default_rng(4).choice(free))
    tic = time.perf_counter()
    q.teach(j, int(y[j]))
    row["teach_s"] = time.perf_counter() - tic
    q.undo()
    for candidates, risk_sample in settings:
        q.set_params(candidates=candidates, risk_sample=risk_sample)
        out = {"candidates": candidates, "risk_sample": risk_sample}
        out["query_s"] = fresh_query_seconds(q, y, args.repeats)
        i, score = q.next_query()
        cand = q.candidate_indices()
        S = q.risk_points()
        mine = q.scores()[cand]
        tracemalloc.start()
        ref = naive_scores(q.features_, q.labeled_, q.labels_, cand, S, LAM)
        out["naive_peak_gb"] = tracemalloc.get_traced_memory()[1] / 1e9
        tracemalloc.stop()
        out["naive_s"] = timed(
            lambda c=cand, s=S: naive_scores(q.features_, q.labeled_, q.labels_, c, s, LAM),
            repeats=3,
            warmup=0,
        )
        out["max_diff"] = float(np.max(np.abs(ref - mine)))
        out["same"] = bool(cand[int(np.argmin(ref))] == i)
        out["se"] = q.risk_standard_error_
        out["score"] = score
        row["settings"].append(out)
    return row


def compare_exact(n: int, landmarks: int, steps: int, n_test: int) -> dict:
    """Same picks on the exact trajectory, and both learning curves (every 10 labels)."""
    X, y = make_pool(n + n_test, seed=5)
    X, y, X_test, y_test = X[:n], y[:n], X[n:], y[n:]
    init = np.random.default_rng(6).choice(n, 4, replace=False).tolist()
    every = max(1, steps // 10)

    def accuracy(q) -> float:
        return float(np.mean(q.predict_at(X_test) == y_test))

    exact = ARLS(sigma=SIGMA, lam=LAM).start(X, [0, 1])
    low = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=landmarks).start(X, [0, 1])
    for q in (exact, low):
        q.teach_many(init, y[init].tolist())
    same = 0
    curve_exact = [(len(init), accuracy(exact))]
    for t in range(1, steps + 1):
        i, _ = exact.next_query()
        j, _ = low.next_query()
        same += i == j
        exact.teach(i, int(y[i]))
        low.teach(i, int(y[i]))
        if t % every == 0:
            curve_exact.append((len(init) + t, accuracy(exact)))
    own = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=landmarks).start(X, [0, 1])
    own.teach_many(init, y[init].tolist())
    curve_low = [(len(init), accuracy(own))]
    for t in range(1, steps + 1):
        i, _ = own.next_query()
        own.teach(i, int(y[i]))
        if t % every == 0:
            curve_low.append((len(init) + t, accuracy(own)))
    gaps = [100.0 * abs(a[1] - b[1]) for a, b in zip(curve_exact, curve_low, strict=True)]
    return {
        "n": n,
        "m": landmarks,
        "steps": steps,
        "same": int(same),
        "curve_exact": curve_exact,
        "curve_low": curve_low,
        "max_gap": max(gaps),
        "mean_gap": statistics.mean(gaps),
    }


def goal(ok: bool) -> str:
    return "met" if ok else "NOT met"


def print_big(row: dict) -> None:
    runs = f"median of {row['start_runs']}" if row["start_runs"] > 1 else "one run"
    print(
        f"n = {row['n']}, m = {row['m']} landmarks (r = {row['r']} features): start "
        f"{row['start_s']:.2f} s ({runs}), "
        f"teach {row['teach_s']:.3f} s, peak traced memory {row['peak_gb']:.2f} GB "
        "(start + labels + one query)"
    )
    header = (
        f"{'candidates':>10} {'risk pts':>9} {'query s':>8} {'naive s':>8} {'naive GB':>9} "
        f"{'max|Δscore|':>12} {'same pick':>9} {'score':>10} {'SE':>8}"
    )
    print(header)
    print("-" * len(header))
    for o in row["settings"]:
        pts = "all" if o["risk_sample"] is None else str(o["risk_sample"])
        print(
            f"{o['candidates']:>10} {pts:>9} {o['query_s']:>8.3f} {o['naive_s']:>8.3f} "
            f"{o['naive_peak_gb']:>9.2f} {o['max_diff']:>12.1e} "
            f"{'yes' if o['same'] else 'NO':>9} {o['score']:>10.1f} {o['se']:>8.1f}",
            flush=True,
        )


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes (a few seconds)")
    p.add_argument("--repeats", type=int, default=5, help="timed queries (median)")
    args = p.parse_args(argv)
    if args.quick:
        sizes = {"100k": 3000, "1M": 6000, "exact": 300}
        landmarks, steps, n_test, sample, start_repeats = 40, 10, 300, 1000, 1
        args.repeats = 2
    else:
        sizes = {"100k": 100_000, "1M": 1_000_000, "exact": 5000}
        landmarks, steps, n_test, sample, start_repeats = 500, 100, 2000, 20_000, 3
    report_machine()
    print(f"d = {D}, RBF σ = {SIGMA}, λ = {LAM}, no class weights, {SEED_LABELS} labels first")
    out = {}
    out["100k"] = big_pool(
        sizes["100k"], landmarks, [(200, None), (200, sample)], args, start_repeats
    )
    print_big(out["100k"])
    out["1M"] = big_pool(sizes["1M"], landmarks, [(200, sample)], args, 1)
    print_big(out["1M"])
    ex = out["exact"] = compare_exact(sizes["exact"], landmarks, steps, n_test)
    print(
        f"exact ARLS vs LowRankARLS, n = {ex['n']}, m = {ex['m']}: same pick on {ex['same']} "
        f"of {ex['steps']} steps (on the exact trajectory)"
    )
    print(f"{'labels':>6} {'exact acc':>10} {'low-rank acc':>13}")
    for (k, a), (_, b) in zip(ex["curve_exact"], ex["curve_low"], strict=True):
        print(f"{k:>6} {a:>10.3f} {b:>13.3f}")
    print(
        f"learning curves: largest gap {ex['max_gap']:.1f} points, mean {ex['mean_gap']:.1f} "
        f"(test set of {n_test} points)"
    )
    print(
        "median query: right after a label (taught, queried, undone), "
        f"{args.repeats} repeats after a warm-up; naive: median of 3"
    )
    if not args.quick:
        a, b = out["100k"], out["1M"]
        q_full, q_sample = (o["query_s"] for o in a["settings"])
        print("goals:")
        print(f"  n = 100 000 start ≤ 30 s: {goal(a['start_s'] <= 30)} ({a['start_s']:.2f} s)")
        print(
            f"  n = 100 000 query ≤ 1 s, 200 candidates, whole-pool risk: "
            f"{goal(q_full <= 1)} ({q_full:.3f} s)"
        )
        print(
            f"  n = 100 000 query ≤ 1 s, 200 candidates, {sample} risk points: "
            f"{goal(q_sample <= 1)} ({q_sample:.3f} s)"
        )
        print(
            f"  n = 100 000 peak memory ≤ 2 GB: {goal(a['peak_gb'] <= 2)} ({a['peak_gb']:.2f} GB)"
        )
        q_big = b["settings"][0]["query_s"]
        print(f"  n = 1 000 000 query ≤ 3 s: {goal(q_big <= 3)} ({q_big:.3f} s)")
        print(
            f"  n = 1 000 000 peak memory ≤ 8 GB: {goal(b['peak_gb'] <= 8)} ({b['peak_gb']:.2f} GB)"
        )
        print(f"  same pick ≥ 90 of 100 steps: {goal(ex['same'] >= 90)} ({ex['same']})")
        print(
            f"  learning curves within 1 point: {goal(ex['max_gap'] <= 1.0)} "
            f"(largest gap {ex['max_gap']:.1f})"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB on Linux
    print(f"process max RSS {rss:.2f} GB; load average at the end: {load_average()}")
    return out


if __name__ == "__main__":
    main()
