"""A-optimal KLR speed: time per query, exact vs fast mode, against a naive dense reference.

Pools of M points (Gaussian blobs in 8-D, 3 blobs per class, the class is the blob index
mod T), Yajima's graph kernel ``(I + L̃)⁻¹`` (kNN k = 6), λ = 0.01, ``--labels`` labels
taught first (stratified random). For each M ∈ {300, 1000, 3000} and T ∈ {2, 3}:

* ``fast``: one ``scores()`` pass over every unlabeled candidate (the query), median of
  ``--repeats``; ``fast@100``: the same on the 100 most uncertain candidates;
* ``exact``: a full KLR refit per candidate and label. Measured over every candidate up to
  ``--exact-max`` pool points; above that it is timed on 100 candidates and **extrapolated**
  linearly to all of them (marked ``~``);
* ``naive``: the dense reference — refit with the sparse graph Newton, then invert the dense
  ``hM × hM`` Hessian per candidate and label — timed on 3 candidates and extrapolated
  (marked ``~``); skipped above 1000 points (an (hM)³ inverse per candidate);
* ``teach``: the refit after one label.

Then, on M = 300 pools, fast vs exact on the same states: how often the chosen point agrees,
and the accuracy gap after ``--queries`` queries of each mode's own trajectory.

Run ``python benchmarks/aopt_speed.py`` (full) or ``--quick`` (M ≤ 1000, fewer repeats).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.datasets import make_blobs

from rlscore.core.kernels import graph_kernel
from rlscore.core.klr import fisher_blocks, newton_graph, probabilities, targets
from rlscore.query.aoptimal import AOptimalKLR

LAM = 0.01


def make_pool(M: int, T: int, seed: int = 0):
    X, blob = make_blobs(
        n_samples=M,
        centers=3 * T,
        n_features=8,
        cluster_std=2.5,
        center_box=(-8, 8),
        random_state=seed,
    )
    return X, blob % T


def start(X, y, K, mode, labels, seed=0, **kw):
    T = int(y.max()) + 1
    s = AOptimalKLR(kernel="graph", lam=LAM, mode=mode, **kw).start(X, list(range(T)), K=K)
    rng = np.random.default_rng(seed)
    first = [int(rng.choice(np.flatnonzero(y == c))) for c in range(T)]
    rest = rng.choice(np.setdiff1d(np.arange(y.size), first), labels - T, replace=False)
    for i in [*first, *rest.tolist()]:
        s.teach(int(i), int(y[i]))
    return s


def time_scores(s, repeats) -> float:
    times = []
    for _ in range(repeats):
        s._cache = None
        t0 = time.perf_counter()
        s.scores()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def naive_seconds_per_candidate(gk, y, s, n_cands=3) -> float:
    """Dense reference: sparse-Newton refit + inverse of the dense Hessian, per candidate."""
    K_inv = gk.K_inv.toarray()
    T = s.classes_.size
    h = 1 if T == 2 else T
    M = y.size
    U = np.setdiff1d(np.arange(M), s.labeled_)
    t0 = time.perf_counter()
    for k in U[:n_cands]:
        L2 = np.array([*s.labeled_, k])
        for c in range(T):
            beta, _ = newton_graph(gk.K_inv, L2, targets([*y[s.labeled_], c], T), LAM)
            P = probabilities(beta)
            F = fisher_blocks(P)
            H = LAM * np.kron(np.eye(h), K_inv)
            for a in range(h):
                for b in range(h):
                    H[a * M + L2, b * M + L2] += F[L2, a, b]
            H_inv = np.linalg.inv(H)
            U2 = U[U != k]
            idx = np.add.outer(np.arange(h) * M, U2)  # (h, u): rows of the point blocks
            blocks = H_inv[idx[:, None, :], idx[None, :, :]]  # (h, h, u)
            _ = sum(np.einsum("ua,abu,ub->", F[U2, r], blocks, F[U2, r]) for r in range(h))
    return (time.perf_counter() - t0) / n_cands


def speed_table(sizes, classes, labels, repeats, exact_max):
    print(f"\nTime per query (seconds; {labels} labels taught; λ = {LAM}; ~ = extrapolated)")
    head = f"{'M':>5} {'T':>2} {'fast':>8} {'fast@100':>9} {'exact':>10} {'naive':>10} {'teach':>7}"
    print(head)
    rows = []
    for M in sizes:
        for T in classes:
            X, y = make_pool(M, T)
            t0 = time.perf_counter()
            gk = graph_kernel(X)
            K = gk.K
            t_kernel = time.perf_counter() - t0
            fast = start(X, y, K, "fast", labels)
            t_fast = time_scores(fast, repeats)
            sub = start(X, y, K, "fast", labels, candidates=100)
            t_sub = time_scores(sub, repeats)
            exact = start(X, y, K, "exact", labels)
            u = M - labels
            if M <= exact_max:
                t_exact, mark = time_scores(exact, 1), " "
            else:
                cands = exact.candidate_set()[:100]
                t0 = time.perf_counter()
                exact.exact_label_risks(cands)
                t_exact, mark = (time.perf_counter() - t0) * u / cands.size, "~"
            if M <= 1000:
                naive = f"~{naive_seconds_per_candidate(gk, y, exact) * u:.1f}"
            else:
                naive = "skipped"
            i, _ = fast.next_query()
            t0 = time.perf_counter()
            fast.teach(i, int(y[i]))
            t_teach = time.perf_counter() - t0
            exact_txt = f"{mark}{t_exact:.2f}".strip()
            print(
                f"{M:5d} {T:2d} {t_fast:8.3f} {t_sub:9.3f} {exact_txt:>10} {naive:>10} "
                f"{t_teach:7.3f}   (graph kernel build {t_kernel:.1f} s; load average "
                f"{os.getloadavg()[0]:.1f})"
            )
            rows.append((M, T, t_fast, t_sub, t_exact))
    return rows


def agreement(classes, queries, pools, labels=None):
    print(f"\nFast vs exact on M = 300 pools ({pools} pools, {queries} queries each)")
    for T in classes:
        agree = n = 0
        gaps = []
        for seed in range(pools):
            X, y = make_pool(300, T, seed=seed)
            K = graph_kernel(X).K
            ex = start(X, y, K, "exact", T, seed=seed)
            fa = start(X, y, K, "fast", T, seed=seed)
            probe = start(X, y, K, "fast", T, seed=seed)
            for _ in range(queries):
                i, _ = ex.next_query()
                agree += int(probe.next_query()[0] == i)
                n += 1
                ex.teach(i, int(y[i]))
                probe.teach(i, int(y[i]))
                j, _ = fa.next_query()
                fa.teach(j, int(y[j]))
            gaps.append(np.mean(ex.predict() == y) - np.mean(fa.predict() == y))
        print(
            f"  T = {T}: same point chosen on {agree}/{n} states ({100 * agree / n:.0f} %); "
            f"accuracy after {queries} queries, exact − fast: mean {100 * np.mean(gaps):+.1f} "
            f"points, per pool {[round(100 * float(g), 1) for g in gaps]}"
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--labels", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--exact-max", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--pools", type=int, default=3)
    args = ap.parse_args(argv)
    sizes = [300, 1000, 3000]
    if args.quick:
        sizes, args.repeats, args.exact_max, args.queries, args.pools = [300, 1000], 1, 300, 4, 1
    speed_table(sizes, (2, 3), args.labels, args.repeats, args.exact_max)
    agreement((2, 3), args.queries, args.pools)


if __name__ == "__main__":
    main()
