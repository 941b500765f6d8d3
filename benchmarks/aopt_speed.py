"""A-optimal KLR speed: time per query of the engine (fast and exact modes) against a dense
reference, and whether they choose the same point.

Pools of M points (Gaussian blobs in 8-D, 3 blobs per class, the class is the blob index
mod T), Yajima's graph kernel ``(I + L̃)⁻¹`` (kNN k = 6), λ = 0.01, ``--labels`` labels
taught first (stratified random). For each M ∈ {250, 500, 1000, 2000} and T ∈ {2, 3}, every
figure is :func:`harness.timed` (median of ``--repeats`` runs after one warm-up), BLAS pinned
to one thread, over **every** unlabeled candidate (no subsampling, no extrapolation):

* ``fast``: the engine's query in ``mode="fast"`` (one warm-started Newton step per candidate);
* ``exact``: the engine's query in ``mode="exact"`` (a full KLR refit per candidate and label);
* ``dense``: the baseline, written here with numpy/scipy only and sharing no code with the
  engine: for every candidate and label, KLR refitted by damped Newton in the representer
  coefficients (dense (l·h)² systems), then the A-optimal risk of docs/mathematics.md §6 in its
  Sherman–Morrison–Woodbury form (a Cholesky solve for binary, an LU solve of the (l·h)²
  system for softmax; never an inverse of the hM × hM Hessian);
* ``pick``: ``exact=dense`` when the exact engine and the baseline choose the same point (and
  agree on its score to 1e-6), ``fast=dense`` likewise for the fast mode's point.

The engine's scores are cached per state, so each timed run clears the cache first. Both
sides get the same precomputed kernel matrix (input, not timed).

Then, on M = 300 pools, fast vs exact on the same states: how often the chosen point agrees,
and the accuracy gap after ``--queries`` queries of each mode's own trajectory.

Run ``python benchmarks/aopt_speed.py`` (full) or ``--quick`` (M ≤ 500, 3 repeats).

``--label-step`` (issue 36) times the label step (teach the pick, refit the KLR, score the next
query) at the same sizes, beside the step as the engine took it before issue 36 (the n × l
kernel block multiplied once, LU Newton on the labels, the diagonal from general products),
process CPU and wall, medians of ``--repeats`` interleaved runs, same pick and risk gap.

``--interactive`` (issue 25.5) times one fast-mode query of the low-rank A-optimal KLR at
``--large-n`` points (m = 500 Nyström features, 1000 labels, 200 candidates, the risk over a
``--risk-points`` sample, 20 000 by default), T = 2 and 3: the engine beside the old path on
the same state (one product with Φ_U per class and step column, the per-pair arithmetic as
numpy planes, the diagonal from the (hm)² triangular inverse) and beside its own floor (the
products with Φ_U's rows that it needs, timed alone), process CPU and wall time, medians
of ``--repeats`` interleaved runs, same pick and largest relative score gap.

``--sample NAME`` (issue 36.2) times ``--queries`` queries of A-optimal KLR on a bundled sample
with the app's kernel and λ for it (RBF at the median width, λ = 0.1, kept), labeling
each pick with its true label, in ``mode="auto"``, ``"exact"`` and ``"fast"``: process CPU
per query (median and largest), the mode ``"auto"`` chose, and the picks.

``--large`` measures the large-pool pieces instead (issue 10), on Gaussian pools in d
dimensions (the hard case for a tree: no low intrinsic dimension):

* the kNN graph: scikit-learn's ``algorithm="auto"`` search that ``knn_graph`` used before
  (a kd-tree at d = 10) against ``knn_graph`` now (brute force above 7 features);
* graph-kernel columns ``(I + tL̃)⁻¹[:, idx]`` by block CG on the sparse ``I + tL̃`` at
  ``--large-n`` points, beside the dense inverse that the dense path needs (at n ≤ 4000);
* one query of the low-rank A-optimal KLR (Nyström features, m landmarks, 200 candidates,
  risk over every unlabeled point) at ``--large-n`` points, with 15 and 300 labels: the
  posterior by Woodbury on the m features (the engine) beside Woodbury on the labeled points
  (the engine's dense path on the same features, the baseline), same pick and score gap
  (``--lowrank`` runs this table alone).
"""

from __future__ import annotations

import argparse
import functools
import time
from functools import partial

from harness import load_average, pin_blas, report_machine, timed

pin_blas(1)  # before numpy does any work

import numpy as np  # noqa: E402
import scipy.linalg  # noqa: E402
from sklearn.datasets import make_blobs  # noqa: E402

from rlscore.core.graph.kernel_family import RegularizedGraphKernels  # noqa: E402
from rlscore.core.kernels.blocks import FeatureKernel  # noqa: E402
from rlscore.core.kernels.functions import graph_kernel, knn_graph, laplacian  # noqa: E402
from rlscore.core.klr.posterior import FeaturePosterior  # noqa: E402
from rlscore.query import AOptimalKLR  # noqa: E402
from rlscore.query.klr.aoptimal_lowrank import LowRankAOptimalKLR  # noqa: E402

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


def labeled_pool(
    n: int, T: int, labels: int, m: int, candidates: int, risk_points: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """A ``T``-class pool of ``n`` points, ``labels`` of them labeled (5 of each class first,
    the rest at random), and the low-rank A-optimal strategy's parameters for it."""
    X, y = make_pool(n, T)
    sigma = float(np.median(np.linalg.norm(X[:300, None] - X[None, :300], axis=-1)))
    order = np.random.default_rng(1).permutation(n)
    L = np.concatenate([np.flatnonzero(y == c)[:5] for c in range(T)])
    L = np.concatenate([L, order[~np.isin(order, L)][: labels - L.size]])
    kw = dict(
        sigma=sigma,
        lam=LAM,
        n_landmarks=m,
        mode="fast",
        candidates=candidates,
        risk_points=risk_points,
    )
    return X, y, L, kw


def start(X, y, K, mode, labels, seed=0, **kw):
    T = int(y.max()) + 1
    s = AOptimalKLR(kernel="graph", lam=LAM, mode=mode, **kw).start(X, list(range(T)), K=K)
    rng = np.random.default_rng(seed)
    first = [int(rng.choice(np.flatnonzero(y == c))) for c in range(T)]
    rest = rng.choice(np.setdiff1d(np.arange(y.size), first), labels - T, replace=False)
    for i in [*first, *rest.tolist()]:
        s.teach(int(i), int(y[i]))
    return s


def _keep(results: list, fn) -> None:
    results.append(fn())


def engine_query(s: AOptimalKLR):
    """One query from scratch: the scores of a state are cached, so drop the cache first."""

    def run():
        s._cache = None
        return s.next_query()

    return run


# -- the dense reference (numpy/scipy only) ---------------------------------------------------
def dense_probabilities(F: np.ndarray) -> np.ndarray:
    """(n, h') decision values -> (n, h) class probabilities: sigmoid (h' = 1) or softmax."""
    if F.shape[1] == 1:
        p = 1.0 / (1.0 + np.exp(-F[:, 0]))
        return np.column_stack([1.0 - p, p])
    E = np.exp(F - F.max(1, keepdims=True))
    return E / E.sum(1, keepdims=True)


def dense_fit(K_LL: np.ndarray, codes: np.ndarray, T: int, tol: float = 1e-10) -> np.ndarray:
    """KLR coefficients α (l, h') minimising (λ/2) tr(αᵀKα) + Σ log-loss, by damped Newton."""
    h = 1 if T == 2 else T
    l = len(codes)
    Y = (codes[:, None] == (np.array([1]) if T == 2 else np.arange(T))).astype(float)
    alpha = np.zeros((l, h))

    def objective(a):
        F = K_LL @ a
        if h == 1:
            loss = np.logaddexp(0.0, F[:, 0]) - Y[:, 0] * F[:, 0]
        else:
            loss = np.log(np.exp(F - F.max(1, keepdims=True)).sum(1)) + F.max(1)
            loss -= (Y * F).sum(1)
        return 0.5 * LAM * np.sum(a * F) + loss.sum()

    for _ in range(100):
        P = dense_probabilities(K_LL @ alpha)[:, -h:]
        r = LAM * alpha + P - Y  # zero at the optimum (representer form)
        if np.abs(r).max() <= tol:
            return alpha
        # Jacobian of r: λI + R (I_h ⊗ K_LL), R the per-point Fisher blocks, (c, i) ordering
        R = np.zeros((h * l, h * l))
        for c in range(h):
            for d in range(h):
                R[c * l : (c + 1) * l, d * l : (d + 1) * l] = np.diag(
                    P[:, c] * ((c == d) - P[:, d])
                )
        J = LAM * np.eye(h * l) + R @ np.kron(np.eye(h), K_LL)
        step = -np.linalg.solve(J, r.T.ravel()).reshape(h, l).T
        t, J0 = 1.0, objective(alpha)
        while objective(alpha + t * step) > J0 + 1e-12 * max(1.0, abs(J0)) and t > 1e-10:
            t /= 2
        alpha = alpha + t * step
    raise RuntimeError("dense reference: Newton did not converge")


def dense_risk(K: np.ndarray, L: np.ndarray, alpha: np.ndarray, T: int) -> float:
    """A-optimal risk (docs/mathematics.md §6, eqs. 4.23 / 5.29) over the unlabeled points, by
    SMW."""
    U = np.setdiff1d(np.arange(K.shape[0]), L)
    P = dense_probabilities(K[:, L] @ alpha)
    K_LL, K_LU, l = K[np.ix_(L, L)], K[np.ix_(L, U)], len(L)
    if T == 2:
        z = P[L, 1] * P[L, 0]
        Kbar = LAM * np.diag(1.0 / z) + K_LL
        quad = (K_LU * scipy.linalg.solve(Kbar, K_LU, assume_a="pos")).sum(0)
        var = (np.diag(K)[U] - quad) / LAM
        return float(np.sum((P[U, 1] * P[U, 0]) ** 2 * var))
    h = T
    Z = np.zeros((h * l, h * l))  # Z̄_M in (c, i) ordering
    for c in range(h):
        for d in range(h):
            Z[c * l : (c + 1) * l, d * l : (d + 1) * l] = np.diag(P[L, c] * ((c == d) - P[L, d]))
    A = LAM * np.eye(h * l) + Z @ np.kron(np.eye(h), K_LL)
    total = 0.0
    for c in range(h):
        S = P[U, c][:, None] * ((np.arange(h) == c)[None, :] - P[U])  # s_j^c, (u, h)
        V = (S.T[:, None, :] * K_LU[None, :, :]).reshape(h * l, -1)  # columns s ⊗ k̄_j
        quad = (V * np.linalg.solve(A, Z @ V)).sum(0)
        total += float(np.sum(((S**2).sum(1) * np.diag(K)[U] - quad) / LAM))
    return total


def dense_scores(K: np.ndarray, L: list, codes: list, T: int, cands) -> np.ndarray:
    """Expected A-optimal risk Σ_c p̂(c | x_k) R(refit with (k, c)) of each candidate."""
    L, codes = np.asarray(L), np.asarray(codes)
    P = dense_probabilities(K[:, L] @ dense_fit(K[np.ix_(L, L)], codes, T))
    out = np.empty(len(cands))
    for n, k in enumerate(cands):
        L2 = np.append(L, k)
        K_LL2 = K[np.ix_(L2, L2)]
        out[n] = sum(
            P[k, c] * dense_risk(K, L2, dense_fit(K_LL2, np.append(codes, c), T), T)
            for c in range(T)
        )
    return out


def speed_table(sizes, classes, labels, repeats):
    print(
        f"\nSeconds per query over every unlabeled candidate ({labels} labels taught; "
        f"λ = {LAM}; median of {repeats} after a warm-up)"
    )
    print(
        f"{'M':>5} {'T':>2} {'fast':>8} {'exact':>8} {'dense':>8} {'dense/exact':>11} "
        f"{'dense/fast':>10} {'exact=dense':>11} {'fast=dense':>10}"
    )
    for M in sizes:
        for T in classes:
            X, y = make_pool(M, T)
            K = graph_kernel(X).K
            fast = start(X, y, K, "fast", labels)
            exact = start(X, y, K, "exact", labels)
            t_fast = timed(engine_query(fast), repeats=repeats)
            t_exact = timed(engine_query(exact), repeats=repeats)
            L, codes = list(exact.labeled_), [int(v) for v in exact.labels_]
            cands = np.setdiff1d(np.arange(M), L)
            results: list = []
            run = partial(_keep, results, partial(dense_scores, K, L, codes, T, cands))
            t_dense = timed(run, repeats=repeats)
            d = results[-1]
            i_dense = int(cands[np.argmin(d)])
            i_exact, r_exact = exact.next_query()
            i_fast, _ = fast.next_query()
            same_exact = i_exact == i_dense and abs(d.min() - r_exact) <= 1e-6 * abs(r_exact)
            print(
                f"{M:5d} {T:2d} {t_fast:8.3f} {t_exact:8.3f} {t_dense:8.3f} "
                f"{t_dense / t_exact:10.1f}× {t_dense / t_fast:9.1f}× "
                f"{'yes' if same_exact else 'NO':>11} {'yes' if i_fast == i_dense else 'no':>10}"
                f"   (load average {load_average()})",
                flush=True,
            )


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


def _old_knn(X, k=6):
    """The neighbour search knn_graph ran before: NearestNeighbors with algorithm="auto"."""
    from sklearn.neighbors import NearestNeighbors

    return NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X)


def large_tables(n_large: int, repeats: int, graph_ts=(1.0,)) -> None:
    rng = np.random.default_rng(0)
    print("\nkNN graph (k = 6), Gaussian pools; seconds (median of repeats; 1 run at n ≥ 50 000)")
    print(f"{'n':>7} {'d':>3} {'before (auto)':>14} {'knn_graph now':>14}")
    for n, d in ((20_000, 3), (20_000, 10), (n_large, 10)):
        X = rng.standard_normal((n, d))
        reps = 1 if n >= 50_000 else repeats
        warm = 0 if n >= 50_000 else 1
        before = timed(lambda X=X: _old_knn(X), repeats=reps, warmup=warm)
        now = timed(lambda X=X: knn_graph(X), repeats=reps, warmup=warm)
        print(
            f"{n:7d} {d:3d} {before:14.2f} {now:14.2f}   (load average {load_average()})",
            flush=True,
        )

    print("\nGraph-kernel columns (I + tL̃)⁻¹[:, idx], k = 6, d = 10; seconds")
    for n in (2000, 4000):
        X = rng.standard_normal((n, 10))
        Kinv = sp_identity_plus(X, 1.0)
        t_inv = timed(lambda A=Kinv: np.linalg.inv(A), repeats=1, warmup=0)
        print(
            f"  n = {n:6d}: dense inverse of I + L̃ (what the dense path does) {t_inv:7.2f}"
            f"   (load average {load_average()})",
            flush=True,
        )
    X = rng.standard_normal((n_large, 10))
    t0 = time.perf_counter()
    fam = RegularizedGraphKernels(X, "graph", solver="cg")
    graph_s = time.perf_counter() - t0
    print(
        f"  n = {n_large}: graph and Laplacian {graph_s:.1f} s; a dense K would take "
        f"{8 * n_large**2 / 2**30:.0f} GiB"
    )
    idx = rng.choice(n_large, 50, replace=False)
    for t in (1.0, 10.0):
        sec = timed(lambda t=t: fam.columns(t, idx), repeats=1, warmup=0)
        print(
            f"  n = {n_large}: 50 columns at t = {t:g} by block CG {sec:7.2f} s"
            f"   (load average {load_average()})",
            flush=True,
        )

    X, y = make_pool(n_large, 3)
    print("\nGraph A-optimal KLR with graph_solver='cg' (fast mode), T = 3, d = 8 blobs")
    for t in graph_ts:
        t0 = time.perf_counter()
        s = AOptimalKLR(
            lam=LAM, graph_t=t, graph_solver="cg", mode="fast", candidates=200, risk_points=1000
        ).start(X, [0, 1, 2])
        for c in range(3):
            for i in np.flatnonzero(y == c)[:5]:
                s.teach(int(i), c)
        start_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        i, _ = s.next_query()
        first = time.perf_counter() - t0
        s.teach(i, int(y[i]))
        t0 = time.perf_counter()
        s.next_query()
        second = time.perf_counter() - t0
        print(
            f"  n = {n_large}, t = {t:g}: graph + 15 labels {start_s:.1f} s; first query "
            f"(200 candidates, 1000 risk points, their diagonal solved) {first:.1f} s; next "
            f"query {second:.1f} s   (load average {load_average()})",
            flush=True,
        )

    lowrank_table(X, y, n_large)


class LabeledWoodburyKLR(LowRankAOptimalKLR):
    """The baseline of :func:`lowrank_table`: the same features and model, with the posterior
    by Woodbury on the labeled points (``AOptimalKLR``'s path: O(c·u·l·h²) per query) instead
    of on the m features."""

    _posterior = AOptimalKLR._posterior
    _risk_terms = AOptimalKLR._risk_terms
    _fast_label_risks = AOptimalKLR._fast_label_risks


def lowrank_table(
    X, y, n: int, label_counts=(15, 300), ms=(100, 200), risk_points: int | None = None
) -> None:
    """One fast-mode query of the low-rank A-optimal KLR (200 candidates, the risk over every
    unlabeled point or over ``risk_points`` drawn once; after one warm-up), the engine (its
    posterior by Woodbury on the m features once l ≥ m, on the labeled points before) against
    Woodbury on the labeled points always, on the same state; same pick and largest relative
    score difference."""
    where = "every unlabeled point" if risk_points is None else f"{risk_points} pool points"
    print(
        "\nLow-rank A-optimal KLR, RBF on Nyström features (uniform landmarks), T = 3, fast "
        f"mode, 200 candidates, risk over {where}; one query, seconds"
    )
    print(
        f"{'n':>7} {'m':>4} {'labels':>6} {'engine s':>9} {'its path':>9} {'on labels s':>12} "
        f"{'same':>5} {'Δscore':>8}"
    )
    sigma = float(np.median(np.linalg.norm(X[:300, None] - X[None, :300], axis=-1)))
    order = np.random.default_rng(1).permutation(n)
    for m in ms:
        for l in label_counts:
            L = np.concatenate([np.flatnonzero(y == c)[:5] for c in range(3)])
            L = np.concatenate([L, order[~np.isin(order, L)][: l - L.size]])
            row = []
            for cls in (LowRankAOptimalKLR, LabeledWoodburyKLR):
                s = cls(
                    sigma=sigma,
                    lam=LAM,
                    n_landmarks=m,
                    mode="fast",
                    candidates=200,
                    risk_points=risk_points,
                )
                s.start(X, [0, 1, 2])
                s.teach_many(L.tolist(), y[L].tolist())

                def query(s=s):
                    s._cache = s._posterior_cache = None  # the factorisation is timed too
                    return s.scores()

                sec = timed(query, repeats=1, warmup=1)
                row.append((sec, s.scores()))
            (a, sa), (b, sb) = row
            ok = ~np.isnan(sa)
            diff = float(np.max(np.abs(sa[ok] - sb[ok]) / np.abs(sb[ok])))
            same = int(np.nanargmin(sa)) == int(np.nanargmin(sb))
            path = "m" if l >= m else "labels"  # LowRankAOptimalKLR._posterior's rule
            print(
                f"{n:7d} {m:4d} {l:6d} {a:9.2f} {path:>9} {b:12.2f} "
                f"{'yes' if same else 'NO':>5} {diff:8.1e}   (load average {load_average()})",
                flush=True,
            )


class _OldFeaturePosterior(FeaturePosterior):
    """The diagonal as the engine made it before issue 25.5: rows of the triangular inverse
    of the full (hm × hm) precision's Cholesky factor (O(u·h²m²))."""

    def diagonal(self) -> np.ndarray:
        h, m = self.h, self.features.shape[1]
        chol = scipy.linalg.cholesky(self._precision(self._F), lower=True)
        Cinv_t = scipy.linalg.solve_triangular(chol, np.eye(h * m), lower=True).T
        E = [self._phi_U @ Cinv_t[a * m : (a + 1) * m] for a in range(h)]
        out = np.empty((self.U.size, h, h))
        for a in range(h):
            for b in range(h):
                out[:, a, b] = np.einsum("ij,ij->i", E[a], E[b])
        return out


class OldPathKLR(LowRankAOptimalKLR):
    """The baseline of :func:`interactive_table`: the same features and model scored as before
    issue 25.5 — one product with Φ_U per class and step column, the per-pair arithmetic as
    numpy planes (``AOptimalKLR._fast_label_risks``), the old diagonal."""

    _fast_label_risks = AOptimalKLR._fast_label_risks

    def _posterior(self, U):
        return _OldFeaturePosterior(self.features_, self._L, U, self._P[self._L], self._lam)


def interactive_table(
    n: int, m: int, labels: int, risk_points: int, candidates: int, repeats: int, classes
) -> None:
    """Issue 25.5: one fast-mode query of the low-rank A-optimal KLR at ``n`` points, ``m``
    landmarks, ``labels`` labels, the risk over ``risk_points`` points, beside the old path on
    the same state and the floor of the new one (the products of Φ_U's rows with the
    candidates' and the diagonal's columns it needs, timed alone), interleaved, process CPU
    and wall seconds, medians of ``repeats``."""
    print(
        f"\nA-optimal KLR interactive (issue 25.5): n = {n}, m = {m}, {labels} labels, "
        f"{candidates} candidates, risk over {risk_points} points; process CPU / wall s, "
        f"medians of {repeats} interleaved repeats after a warm-up"
    )
    print(
        f"{'T':>2} {'new CPU':>8} {'new wall':>9} {'floor CPU':>10} {'new/floor':>10} "
        f"{'old CPU':>8} {'old wall':>9} {'old/new':>8} {'same':>5} {'Δscore':>8}  load"
    )
    for T in classes:
        X, y, L, kw = labeled_pool(n, T, labels, m, candidates, risk_points)
        new = LowRankAOptimalKLR(**kw).start(X, list(range(T)))
        new.teach_many(L.tolist(), y[L].tolist())
        old = OldPathKLR(**kw)
        # same pool, features and labels: share the fitted state instead of a second start
        old.__dict__.update({k: v for k, v in new.__dict__.items() if k != "_posterior_cache"})

        def query(s):
            s._cache = s._posterior_cache = None  # the factorisation is timed too
            return s.scores()

        U = new._risk_set()
        post = FeaturePosterior(new.features_, new._L, U, new._P[new._L], new._lam)
        _, V = post.reduced_at(new.candidate_set())

        def floor(post=post, V=V):
            post.__dict__.pop("reduced_diagonal", None)  # a cached property: made again
            _ = post.reduced_diagonal
            for _ in post.reduced_blocks(V):
                pass

        runs = {"new": [], "old": [], "floor": []}
        fns = {"new": partial(query, new), "old": partial(query, old), "floor": floor}
        for f in fns.values():
            f()  # warm-up (and numba's first compile)
        for _ in range(repeats):
            for name, f in fns.items():
                c0, w0 = time.process_time(), time.perf_counter()
                f()
                runs[name].append((time.process_time() - c0, time.perf_counter() - w0))
        med = {k: np.median(np.array(v), axis=0) for k, v in runs.items()}
        sa, sb = new.scores(), old.scores()
        ok = ~np.isnan(sa)
        diff = float(np.max(np.abs(sa[ok] - sb[ok]) / np.abs(sb[ok])))
        same = int(np.nanargmin(sa)) == int(np.nanargmin(sb))
        print(
            f"{T:2d} {med['new'][0]:8.2f} {med['new'][1]:9.2f} {med['floor'][0]:10.2f} "
            f"{med['new'][0] / med['floor'][0]:9.2f}× {med['old'][0]:8.2f} {med['old'][1]:9.2f} "
            f"{med['old'][0] / med['new'][0]:7.1f}× {'yes' if same else 'NO':>5} {diff:8.1e}"
            f"  {load_average()}",
            flush=True,
        )


class _BeforeFeaturePosterior(FeaturePosterior):
    """The posterior as the engine made it before issue 36: ``S'`` formed (a Cholesky solve
    with the identity), the diagonal from general products with the blocks ``S'_ab``, the
    precision's blocks all general products."""

    def _precision(self, F):
        m, g, phi_L = self.features.shape[1], F.shape[-1], self._phi_L
        M = np.zeros((g, m, g, m))
        for a in range(g):
            for b in range(a, g):
                M[a, :, b] = (phi_L * F[:, a, b, None]).T @ phi_L
                M[b, :, a] = M[a, :, b].T
        M = M.reshape(g * m, g * m)
        M[np.diag_indices(g * m)] += self.lam
        return M

    @functools.cached_property
    def reduced(self):
        Qp, m = self.basis, self.features.shape[1]
        g = Qp.shape[1]
        M = self._precision(Qp.T @ self._F @ Qp)
        S = scipy.linalg.cho_solve((scipy.linalg.cholesky(M, lower=True), True), np.eye(g * m))
        return S.reshape(g, m, g, m)

    def reduced_at(self, C):
        Sr, Qp, h = self.reduced, self.basis, self.h
        phi_C = self.features[np.asarray(C, dtype=np.intp)]
        V = np.einsum("ambn,kn->mabk", Sr, phi_C)
        S_kk = Qp @ np.einsum("mabk,km->kab", V, phi_C) @ Qp.T
        if h > 1:
            S_kk += (np.einsum("km,km->k", phi_C, phi_C) / (self.lam * h))[:, None, None]
        return S_kk, np.ascontiguousarray(V)

    @functools.cached_property
    def reduced_diagonal(self):
        Sr = self.reduced
        g, m = Sr.shape[0], Sr.shape[1]
        pairs = [(a, b) for a in range(g) for b in range(a, g)]
        W = np.concatenate([Sr[a, :, b] for a, b in pairs], axis=1)
        out = np.empty((self.U.size, g, g))
        for s, e, phi in self._row_blocks(W.shape[1]):
            G = phi @ W
            for i, (a, b) in enumerate(pairs):
                out[s:e, a, b] = np.einsum("ij,ij->i", G[:, i * m : (i + 1) * m], phi)
                out[s:e, b, a] = out[s:e, a, b]
        return out


class _BeforeKernel:
    """The features as the KLR refit used them before issue 36: ``K[:, L]`` made whole
    (n × l) and then multiplied by the coefficients; not a ``FeatureKernel``, so the refit's
    Newton solves its (lh)² systems by LU on the labels."""

    def __init__(self, kernel: FeatureKernel):
        self._kernel, self.features, self.n, self.family = kernel, kernel.features, kernel.n, None

    def block(self, rows, cols):
        return self._kernel.block(rows, cols)

    def columns(self, cols):
        return self._kernel.columns(cols)

    def diagonal(self, idx):
        return self._kernel.diagonal(idx)

    def columns_times(self, cols, coef):
        return self._kernel.columns(cols) @ coef


class BeforeStepKLR(LowRankAOptimalKLR):
    """The baseline of :func:`label_step_table`: the engine's label step before issue 36 (the
    n × l kernel block, LU Newton on the labels, ``K_LL`` made afresh, the posterior of
    :class:`_BeforeFeaturePosterior`) on the same features and labels."""

    def _initial_kernel(self, X, K):
        return _BeforeKernel(super()._initial_kernel(X, K))

    def _labeled_block(self, kern, L):
        return kern.block(L, L)

    def _posterior(self, U):
        key = (tuple(self._L), tuple(self._codes), U.size)
        cached = getattr(self, "_posterior_cache", None)
        if cached is None or cached[0] != key:
            P_L = self._P[self._L]
            post = _BeforeFeaturePosterior(self.features_, self._L, U, P_L, self._lam)
            self._posterior_cache = cached = (key, post)
        return cached[1]


def _label_step(s, i: int, label: int):
    """Teach ``i`` its label and query (timed: process CPU, wall, of which the refit), then
    undo the label and query again (not timed), so that every repeat starts alike."""
    c0, w0 = time.process_time(), time.perf_counter()
    s.teach(i, label)
    c1 = time.process_time()
    pick = s.next_query()[0]
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    risks = s.scores()
    s.undo()
    s.next_query()
    return (cpu, wall, c1 - c0, cpu - (c1 - c0)), pick, risks


def _products_floor(s: LowRankAOptimalKLR) -> float:
    """Process CPU of the products with Φ_U's rows that a query of ``s`` needs (its posterior's
    diagonal and the candidates' blocks), timed alone."""
    U = s._risk_set()
    post = FeaturePosterior(s.features_, s._L, U, s._P[s._L], s._lam)
    _, V = post.reduced_at(s.candidate_set())
    _ = post._phi_U, post._form_factors  # gathered and factorised before the clock
    c0 = time.process_time()
    _ = post.reduced_diagonal
    for _ in post.reduced_blocks(V):
        pass
    return time.process_time() - c0


def label_step_table(
    n: int, m: int, labels: int, risk_points: int, candidates: int, repeats: int, classes
) -> None:
    """Issue 36: the A-optimal label step — teach the pick, refit the KLR, score the next
    query — of the low-rank A-optimal KLR at ``n`` points, ``m`` landmarks, ``labels``
    labels, beside the same step before issue 36 (:class:`BeforeStepKLR`) on the same state,
    interleaved; process CPU and wall seconds, medians of ``repeats``; *floor*: the query's
    products with Φ_U's rows alone (:func:`_products_floor`)."""
    print(
        f"\nA-optimal KLR label step (issue 36): n = {n}, m = {m}, {labels} labels, "
        f"{candidates} candidates, risk over {risk_points} points; process CPU / wall s of "
        f"teach + refit + next query, medians of {repeats} interleaved repeats after a warm-up"
    )
    print(
        f"{'T':>2} {'new CPU':>8} {'new wall':>9} {'refit':>6} {'query':>6} {'floor':>6} "
        f"{'before CPU':>11} {'before wall':>12} {'before/new':>11} {'same':>5} {'Δrisk':>8}  load"
    )
    for T in classes:
        X, y, L, kw = labeled_pool(n, T, labels, m, candidates, risk_points)
        strategies = {"new": LowRankAOptimalKLR(**kw), "before": BeforeStepKLR(**kw)}
        for s in strategies.values():
            s.start(X, list(range(T)))
            s.teach_many(L.tolist(), y[L].tolist())
        i = strategies["new"].next_query()[0]
        runs = {name: [] for name in strategies}
        last = {}
        for s in strategies.values():
            _label_step(s, i, int(y[i]))  # warm-up (and numba's first compile)
        floors = []
        for _ in range(repeats):
            for name, s in strategies.items():
                times, pick, risks = _label_step(s, i, int(y[i]))
                runs[name].append(times)
                last[name] = (pick, risks)
            new = strategies["new"]
            new.teach(i, int(y[i]))
            floors.append(_products_floor(new))
            new.undo()
        med = {k: np.median(np.array(v), axis=0) for k, v in runs.items()}
        (pick_new, risks_new), (pick_before, risks_before) = last["new"], last["before"]
        ok = ~np.isnan(risks_new)
        gap = float(np.max(np.abs(risks_new[ok] - risks_before[ok]) / np.abs(risks_before[ok])))
        same = "yes" if pick_new == pick_before else "NO"
        print(
            f"{T:2d} {med['new'][0]:8.2f} {med['new'][1]:9.2f} {med['new'][2]:6.2f} "
            f"{med['new'][3]:6.2f} {np.median(floors):6.2f} {med['before'][0]:11.2f} "
            f"{med['before'][1]:12.2f} {med['before'][0] / med['new'][0]:10.1f}× {same:>5} "
            f"{gap:8.1e}  {load_average()}",
            flush=True,
        )


def sample_table(name: str, queries: int) -> None:
    """Issue 36.2: process CPU per A-optimal query on the bundled sample ``name`` (RBF at the
    median width, λ = 0.1 kept: the app's LOO tuning between queries is not what is timed),
    each pick labeled with its true label, in the three modes."""
    from rlscore.core.kernels.rbf_width import median_sigma
    from rlscore.data.samples.bundled import project_from_sample

    project = project_from_sample(name)
    X, truth = np.asarray(project.X, dtype=float), list(project.truth)
    classes = sorted(set(truth))
    print(
        f"\nA-optimal KLR on {name} ({X.shape[0]} points, {len(classes)} classes): process CPU "
        f"seconds per query over {queries} queries from no labels"
    )
    print(f"{'mode':>5} {'chose':>5} {'median':>7} {'largest':>7}  picks")
    for mode in ("auto", "exact", "fast"):
        s = AOptimalKLR(kernel="rbf", sigma=median_sigma(X), lam=0.1, mode=mode)
        s.start(X, classes)
        cpu, picks = [], []
        for _ in range(queries):
            c0 = time.process_time()
            i = int(s.next_query()[0])
            cpu.append(time.process_time() - c0)
            s.teach(i, truth[i])
            picks.append(i)
        print(
            f"{mode:>5} {s.resolved_mode:>5} {np.median(cpu):7.2f} {max(cpu):7.2f}  {picks}"
            f"   (load average {load_average()})",
            flush=True,
        )


def sp_identity_plus(X, t):
    """Dense ``I + tL̃`` of the kNN graph of X (k = 6)."""
    L = laplacian(knn_graph(X, connect=True), normalized=True)
    return np.eye(X.shape[0]) + t * L.toarray()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--labels", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per figure (median)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000])
    ap.add_argument("--queries", type=int, default=10)
    ap.add_argument("--pools", type=int, default=3)
    ap.add_argument("--large", action="store_true", help="the large-pool pieces (issue 10)")
    ap.add_argument("--large-n", type=int, default=100_000)
    ap.add_argument("--large-t", type=float, nargs="+", default=[1.0], help="graph scales")
    ap.add_argument(
        "--lowrank", action="store_true", help="only the low-rank A-optimal table of --large"
    )
    ap.add_argument("--landmarks", type=int, nargs="+", default=[100, 200], help="--lowrank m")
    ap.add_argument(
        "--labels-lowrank", type=int, nargs="+", default=[15, 300], help="--lowrank labels"
    )
    ap.add_argument("--risk-points", type=int, default=None, help="--lowrank risk sample")
    ap.add_argument(
        "--interactive",
        action="store_true",
        help="issue 25.5: one query at --large-n points, m = 500, 1000 labels, beside the old path",
    )
    ap.add_argument(
        "--label-step",
        action="store_true",
        help="issue 36: teach + refit + next query at --large-n points, m = 500, 1000 labels, "
        "beside the step before",
    )
    ap.add_argument("--sample", help="issue 36.2: CPU per query on this bundled sample")
    args = ap.parse_args(argv)
    report_machine()
    if args.sample:
        sample_table(args.sample, args.queries)
        print(f"# load average at the end: {load_average()}")
        return
    if args.label_step:
        label_step_table(
            args.large_n,
            m=500,
            labels=1000,
            risk_points=args.risk_points or 20_000,
            candidates=200,
            repeats=args.repeats,
            classes=(2, 3),
        )
        print(f"# load average at the end: {load_average()}")
        return
    if args.interactive:
        interactive_table(
            args.large_n,
            m=500,
            labels=1000,
            risk_points=args.risk_points or 20_000,
            candidates=200,
            repeats=args.repeats,
            classes=(2, 3),
        )
        print(f"# load average at the end: {load_average()}")
        return
    if args.lowrank:
        lowrank_table(
            *make_pool(args.large_n, 3),
            args.large_n,
            label_counts=args.labels_lowrank,
            ms=args.landmarks,
            risk_points=args.risk_points,
        )
        print(f"# load average at the end: {load_average()}")
        return
    if args.large:
        large_tables(args.large_n, args.repeats, args.large_t)
        print(f"# load average at the end: {load_average()}")
        return
    if args.quick:
        args.sizes, args.repeats, args.queries, args.pools = [250, 500], 3, 4, 1
    speed_table(args.sizes, (2, 3), args.labels, args.repeats)
    agreement((2, 3), args.queries, args.pools)
    print(f"# load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
