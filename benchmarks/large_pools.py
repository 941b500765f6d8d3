"""ARLS on low-rank features for pools of 10⁵–10⁶ points (issue 10, docs/mathematics.md §7).

Data: ``n`` points of a 10-dimensional standard normal, labels ``x₀ + sin(2x₁) + x₂x₃/2 > 0``
(two classes, about balanced), RBF σ = 3, λ = 0.5, no class weights, 10 random labels taught
first; ``rlscore.query.LowRankARLS`` with m = 500 landmarks of the engine's default rule
(k-means centres; ``--landmarks`` another), without and with ``refine = --refine`` (default 10:
the 10 candidates of lowest low-rank score re-scored by exact ARLS's expected risk on the exact
kernel, the best of them queried). Three parts:

1. **n = 100 000**: the start (landmarks, features Φ), the time of one query right after a
   label (median of ``--repeats``, the label undone after each) for two settings — 200
   candidates with the risk summed over the whole pool, and 200 candidates with the risk
   estimated on 20 000 sampled points — and the peak memory (``tracemalloc``: start, labels
   and one query). Beside it, from the same run, a **naive reference** written here with
   numpy only and sharing no code with the engine: it rebuilds ``P`` from the labels with
   ``numpy.linalg.inv``, forms the whole (s × c) product ``Φ_S(I − P)Φ_Cᵀ`` at once and
   loops over the candidates and labels with its own risk function; it scores the same
   candidates on the same risk points, and the script checks the same pick and the largest
   score difference. With ``refine`` the naive reference is exact ARLS on the shortlist from
   the RBF kernel columns of the labeled points and the shortlist (numpy only). Each setting
   also reports the peak traced memory of one query right after a label (*query GB*), and the
   run the peak of start + labels + one query with refine off and then one with refine on.
   The settings are measured again with 200 labels (a second start).
2. **n = 1 000 000** with 200 candidates and a risk sample of 20 000 points, refine off and
   on: start (one run), query (median), teach, peak memory, and the same naive references.
3. **Exact vs low-rank** on n = 5000 (m = 500): dense ``ARLS`` on the exact RBF kernel and
   ``LowRankARLS`` with every candidate and the whole pool. Same pick: both are asked for
   their query on the same labeled set at each of 100 steps (the exact pick is taught to
   both); *near tie*: the low-rank pick's exact score is within 1e-3 (relative) of the exact
   best. Learning curves: each strategy follows its own picks for 100 steps; accuracy on a
   held-out test set of 2000 points every 10 labels; also the low-rank classifier's accuracy
   on the exact picks (same labels: the approximation's own effect on the classifier).
   Calibration: exact ARLS with λ × 1.001 against exact ARLS — how far a learning curve moves
   when a few near-tied picks go the other way. The same for ``LowRankARLS(refine=K)`` (its
   classifier is the Nyström one, as without refine).

``--fidelity RULE:M …`` runs only part 3 for several landmark rules and m over ``--starts``
starts (initial labels and landmarks), with dense ARLS on the Nyström kernel ``ΦΦᵀ`` standing in
for ``LowRankARLS`` (the same scores, checked at the first query), and the start and query time
of each at n = 100 000. Its refined side is the shortlist of that stand-in re-scored by dense
exact ARLS (checked against ``LowRankARLS(refine=K)`` at the first query).

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

from rlscore.core.kernels.lowrank import LowRankKernel  # noqa: E402
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


def naive_expected(m_S, D_SC, m_C, s, n: int) -> np.ndarray:
    """Expected risk on the risk points S (× n/|S|) after labeling each candidate: the
    predictions ``m_S`` there, the candidates' covariance columns ``D_SC``, their predictions
    ``m_C`` and ``s = D_ii + λ``."""
    p_plus = np.clip((m_C + 1.0) / 2.0, 0.0, 1.0)
    out = np.empty(len(m_C))
    for k in range(len(m_C)):
        expected = 0.0
        for y, p in ((1.0, p_plus[k]), (-1.0, 1.0 - p_plus[k])):
            expected += p * naive_risk(m_S + D_SC[:, k] * (y - m_C[k]) / s[k])
        out[k] = expected * n / m_S.shape[0]
    return out


def naive_scores(phi, L, labels, cand, S, lam: float) -> np.ndarray:
    """Expected pool risk of labeling each candidate (binary, no weights), all at full size."""
    n, r = phi.shape
    phi_L = phi[L]
    y_L = np.where(np.asarray(labels) == 1, 1.0, -1.0)
    H_inv = np.linalg.inv(phi_L.T @ phi_L + lam * np.eye(r))
    w = H_inv @ (phi_L.T @ y_L)  # primal RLS
    C = lam * H_inv  # I − P
    phi_S = phi if S is None else phi[S]
    phi_C = phi[cand]
    D_SC = phi_S @ (C @ phi_C.T)  # d_i on the risk points, every candidate at once
    s = np.einsum("ij,ij->i", phi_C @ C, phi_C) + lam
    return naive_expected(phi_S @ w, D_SC, phi_C @ w, s, n)


def naive_rbf(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    d2 = (A**2).sum(axis=1)[:, None] + (B**2).sum(axis=1)[None] - 2.0 * A @ B.T
    return np.exp(-np.maximum(d2, 0.0) / (2.0 * SIGMA**2))


def naive_exact_scores(X, L, labels, cand, S, lam: float) -> np.ndarray:
    """Exact ARLS's expected pool risk of labeling each candidate (binary, no weights, the
    RBF kernel), from the kernel columns of the labeled points and of the candidates."""
    n = X.shape[0]
    K_nL, K_nC = naive_rbf(X, X[L]), naive_rbf(X, X[cand])
    G = K_nL[L] + lam * np.eye(len(L))
    y_L = np.where(np.asarray(labels) == 1, 1.0, -1.0)
    m = K_nL @ np.linalg.solve(G, y_L)
    D = K_nC - K_nL @ np.linalg.solve(G, K_nC[L])  # covariance columns, (n, c)
    s = D[cand, np.arange(len(cand))] + lam
    rows = slice(None) if S is None else S
    return naive_expected(m[rows], D[rows], m[cand], s, n)


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


def query_peak_gb(q, y: np.ndarray) -> float:
    """Peak traced memory (GB) of one query right after a label, beyond the state held before
    it (teach, query, undo; with refine, the new label's kernel column included)."""
    free = np.setdiff1d(np.arange(q.n_pool_), q.labeled_)
    i = int(np.random.default_rng(3).choice(free))
    tracemalloc.start()
    q.teach(i, int(y[i]))
    q.next_query()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    q.undo()
    return peak / 1e9


def big_pool(
    n: int, landmarks: int, settings: list[tuple], args, start_repeats: int, labels: int
) -> dict:
    """Start, query, teach and memory of LowRankARLS on one pool with ``labels`` random labels,
    for each setting (candidates, risk sample, refine), with the naive references: the rows
    of ``settings`` without refine, of ``refined`` with it."""
    X, y = make_pool(n)
    L = np.random.default_rng(1).choice(n, labels, replace=False).tolist()
    row = {"n": n, "m": landmarks, "rule": args.landmarks, "labels": labels}
    row["settings"], row["refined"] = [], []
    c0, s0, _ = settings[0]

    def make(candidates, risk_sample):
        return LowRankARLS(
            sigma=SIGMA,
            lam=LAM,
            n_landmarks=landmarks,
            landmarks=args.landmarks,
            candidates=candidates,
            risk_sample=risk_sample,
        )

    # one traced run: start + labels + one query, then one refined query (numpy's buffers
    # are traced; the refined peak includes the exact side's kernel columns)
    tracemalloc.start()
    tic = time.perf_counter()
    q = make(c0, s0).start(X, [0, 1])
    first_start = time.perf_counter() - tic
    q.teach_many(L, y[L].tolist())
    q.next_query()
    row["peak_gb"] = tracemalloc.get_traced_memory()[1] / 1e9
    tracemalloc.reset_peak()
    q.set_params(refine=args.refine)
    q.next_query()
    row["peak_refine_gb"] = tracemalloc.get_traced_memory()[1] / 1e9
    tracemalloc.stop()
    q.set_params(refine=None)
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
    for setting in settings:
        key = "settings" if setting[2] is None else "refined"
        row[key].append(measure_setting(q, setting, y, args.repeats))
    return row


def measure_setting(q, setting: tuple, y: np.ndarray, repeats: int) -> dict:
    """Query time and memory of one setting (candidates, risk sample, refine), and its scores
    against the naive reference (low-rank scores, or exact scores of the shortlist)."""
    candidates, risk_sample, refine = setting
    q.set_params(candidates=candidates, risk_sample=risk_sample, refine=refine)
    out = {"candidates": candidates, "risk_sample": risk_sample, "refine": refine}
    out["query_s"] = fresh_query_seconds(q, y, repeats)
    out["query_gb"] = query_peak_gb(q, y)
    i, score = q.next_query()
    S = q.risk_points()
    if refine is None:
        cand = q.candidate_indices()
        mine = q.scores()[cand]

        def naive(c=cand, s=S):
            return naive_scores(q.features_, q.labeled_, q.labels_, c, s, LAM)
    else:
        refined = q.refined_scores()
        cand = np.flatnonzero(~np.isnan(refined))
        mine = refined[cand]

        def naive(c=cand, s=S):
            return naive_exact_scores(q.X_, q.labeled_, q.labels_, c, s, LAM)

    tracemalloc.start()
    ref = naive()
    out["naive_peak_gb"] = tracemalloc.get_traced_memory()[1] / 1e9
    tracemalloc.stop()
    out["naive_s"] = timed(naive, repeats=3, warmup=0)
    out["max_diff"] = float(np.max(np.abs(ref - mine)))
    out["same"] = bool(cand[int(np.argmin(ref))] == i)
    out["se"] = q.risk_standard_error_
    out["score"] = score
    return out


#: a low-rank pick counts as a near tie when its exact score is within this of the exact best
NEAR_TIE = 1e-3
#: the calibration's relative change of λ: small enough to keep nearly every pick, large
#: enough to break the near ties differently
LAM_NUDGE = 1e-3


def test_accuracy(X_test: np.ndarray, y_test: np.ndarray):
    """Test accuracy of a strategy's classifier, with its own kernel (exact or Nyström)."""
    return lambda q: float(np.mean(q.predict_at(X_test) == y_test))


def nystrom_accuracy(K_test: np.ndarray, y_test: np.ndarray):
    """Test accuracy of dense ARLS run on a Nyström kernel ``K̃ = ΦΦᵀ``: its predictions on
    new points are ``K̃_test,L c`` with ``K̃_test = φ(X_test) Φᵀ`` (``predict_at`` would use
    the exact kernel)."""
    return lambda q: float(
        np.mean((K_test[:, q.labeled_] @ q.dual_coef()[:, 0] > 0).astype(int) == y_test)
    )


def fidelity_pool(n: int, n_test: int):
    X, y = make_pool(n + n_test, seed=5)
    return X[:n], y[:n], X[n:], y[n:]


def own_curve(q, y, accuracy, steps: int, every: int) -> list[float]:
    """Accuracy every ``every`` labels while ``q`` follows its own picks (q already started)."""
    curve = [accuracy(q)]
    for t in range(1, steps + 1):
        i, _ = q.next_query()
        q.teach(i, int(y[i]))
        if t % every == 0:
            curve.append(accuracy(q))
    return curve


def exact_reference(X, y, accuracy, init, steps: int, every: int, lam: float = LAM) -> dict:
    """Exact ARLS's picks, their full score vectors and its learning curve."""
    q = ARLS(sigma=SIGMA, lam=lam).start(X, [0, 1])
    q.teach_many(init, y[init].tolist())
    picks, scores, curve = [], [], [accuracy(q)]
    for t in range(1, steps + 1):
        s = q.scores()
        i = int(np.nanargmin(s))
        picks.append(i)
        scores.append(s)
        q.teach(i, int(y[i]))
        if t % every == 0:
            curve.append(accuracy(q))
    return {"picks": picks, "scores": scores, "curve": curve}


def follow_exact(q, ref: dict, y, accuracy, every: int) -> dict:
    """``q`` (started, initial labels taught) asked for its pick on the exact trajectory:
    same picks, near ties (its pick's exact score within :data:`NEAR_TIE` of the exact best)
    and its accuracy on the same labels as exact ARLS."""
    same = near = 0
    curve = [accuracy(q)]
    for t, (i, s) in enumerate(zip(ref["picks"], ref["scores"], strict=True), start=1):
        j, _ = q.next_query()
        same += i == j
        near += bool(s[j] - s[i] <= NEAR_TIE * abs(s[i]))
        q.teach(i, int(y[i]))
        if t % every == 0:
            curve.append(accuracy(q))
    return {"same": same, "near": near, "same_labels_curve": curve}


def curve_gap(a: list[float], b: list[float]) -> float:
    """Largest difference of two learning curves, in points of accuracy."""
    return 100.0 * float(np.max(np.abs(np.subtract(a, b))))


def compare_exact(n: int, landmarks: int, rule: str, steps: int, n_test: int, refine: int) -> dict:
    """Same picks on the exact trajectory, both learning curves (every 10 labels), and a
    calibration: exact ARLS with λ nudged by :data:`LAM_NUDGE` against exact ARLS; for
    ``LowRankARLS`` without and with ``refine``."""
    X, y, X_test, y_test = fidelity_pool(n, n_test)
    init = np.random.default_rng(6).choice(n, 4, replace=False).tolist()
    every = max(1, steps // 10)
    accuracy = test_accuracy(X_test, y_test)
    ref = exact_reference(X, y, accuracy, init, steps, every)
    out = {"n": n, "m": landmarks, "rule": rule, "steps": steps}
    out["labels"] = [len(init) + k * every for k in range(len(ref["curve"]))]
    out["curve_exact"] = ref["curve"]
    sides = {}
    for side, k in (("low", None), ("refined", refine)):

        def low_rank(k=k):
            q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=landmarks, landmarks=rule, refine=k)
            q.start(X, [0, 1]).teach_many(init, y[init].tolist())
            return q

        tic = time.perf_counter()
        followed = follow_exact(low_rank(), ref, y, accuracy, every)
        curve = own_curve(low_rank(), y, accuracy, steps, every)
        gaps = [100.0 * abs(a - b) for a, b in zip(ref["curve"], curve, strict=True)]
        sides[side] = {
            "same": int(followed["same"]),
            "near": int(followed["near"]),
            "curve": curve,
            "curve_same_labels": followed["same_labels_curve"],
            "max_gap": max(gaps),
            "mean_gap": statistics.mean(gaps),
            "same_labels_gap": curve_gap(ref["curve"], followed["same_labels_curve"]),
            # every query of both runs (2 × steps) and their labels
            "query_s": (time.perf_counter() - tic) / (2 * steps),
        }
    # the pure low-rank side at the top level (as before refine), the refined one beside
    out.update(sides["low"])
    out["refined"] = {"refine": refine, **sides["refined"]}
    nudged_lam = LAM * (1 + LAM_NUDGE)
    nudged = ARLS(sigma=SIGMA, lam=nudged_lam).start(X, [0, 1])
    nudged.teach_many(init, y[init].tolist())
    calibration = follow_exact(nudged, ref, y, accuracy, every)
    nudged_curve = exact_reference(X, y, accuracy, init, steps, every, nudged_lam)["curve"]
    out["nudged_same"] = int(calibration["same"])
    out["nudged_gap"] = curve_gap(ref["curve"], nudged_curve)
    return out


class RefinedStandIn:
    """``LowRankARLS(refine=k)`` from two dense strategies taught the same labels: ``low``
    (ARLS on K̃ = ΦΦᵀ) gives the low-rank scores and the classifier, ``exact`` (ARLS on the
    exact kernel) the exact scores of the k lowest of them, the best of which is queried."""

    def __init__(self, low: ARLS, exact: ARLS, k: int) -> None:
        self.low, self.exact, self.k = low, exact, k

    @property
    def labeled_(self) -> list[int]:
        return self.low.labeled_

    def dual_coef(self) -> np.ndarray:
        return self.low.dual_coef()

    def shortlist(self) -> np.ndarray:
        s = self.low.scores()
        scored = np.flatnonzero(~np.isnan(s))
        return scored[np.argsort(s[scored], kind="stable")[: self.k]]

    def next_query(self) -> tuple[int, float]:
        short, exact = self.shortlist(), self.exact.scores()
        i = int(short[np.argmin(exact[short])])
        return i, float(exact[i])

    def teach(self, i: int, label) -> None:
        self.low.teach(i, label)
        self.exact.teach(i, label)


def fidelity_sweep(
    configs: list[tuple[str, int]], starts: int, n: int, n_test: int, steps: int, refine: int
):
    """Exact vs low-rank ARLS for several landmark rules and m, over several starts, without
    and with ``refine``.

    Each start draws its own 4 initial labels and its own landmarks (``random_state`` = the
    start). The low-rank side is dense ``ARLS`` on the Nyström kernel ``K̃ = ΦΦᵀ`` of the
    features ``LowRankKernel`` builds (``LowRankARLS`` gives the same scores to 1e-8,
    ``tests/test_arls_lowrank.py``, and this function checks it at the first query of the first
    start): a query costs 0.1–0.3 s instead of 3–6 s with every candidate on the whole pool.
    The refined side is :class:`RefinedStandIn` (checked against ``LowRankARLS(refine=k)``
    at the same first query). Calibration row: exact ARLS with λ nudged by :data:`LAM_NUDGE`.
    """
    X, y, X_test, y_test = fidelity_pool(n, n_test)
    every = max(1, steps // 10)
    exact_acc = test_accuracy(X_test, y_test)
    K_exact = ARLS(sigma=SIGMA, lam=LAM).pool_kernel(X)
    rows: dict[str, dict] = {}

    def record(name: str, followed: dict, curve: list[float], ref: dict) -> None:
        row = rows.setdefault(name, {"same": [], "near": [], "labels_gap": [], "gap": []})
        row["same"].append(followed["same"])
        row["near"].append(followed["near"])
        row["labels_gap"].append(curve_gap(ref["curve"], followed["same_labels_curve"]))
        row["gap"].append(curve_gap(ref["curve"], curve))
        row.setdefault("curves", []).append(curve)

    exact_curves = []
    for start in range(starts):
        init = np.random.default_rng(6 + start).choice(n, 4, replace=False).tolist()
        ref = exact_reference(X, y, exact_acc, init, steps, every)
        exact_curves.append(ref["curve"])
        lam = LAM * (1 + LAM_NUDGE)
        nudged = ARLS(sigma=SIGMA, lam=lam).start(X, [0, 1])
        nudged.teach_many(init, y[init].tolist())
        followed = follow_exact(nudged, ref, y, exact_acc, every)
        curve = exact_reference(X, y, exact_acc, init, steps, every, lam)["curve"]
        record(f"exact, λ × (1 + {LAM_NUDGE:g})", followed, curve, ref)
        for rule, m in configs:
            lowrank = LowRankKernel(sigma=SIGMA, n_landmarks=m, landmarks=rule, random_state=start)
            phi = lowrank.fit(X).features_
            K_low = phi @ phi.T
            accuracy = nystrom_accuracy(lowrank.transform(X_test) @ phi.T, y_test)

            def dense(K=K_low, init=init):
                q = ARLS(sigma=SIGMA, lam=LAM).start(X, [0, 1], K=K)
                q.teach_many(init, y[init].tolist())
                return q

            def refined(dense=dense):
                return RefinedStandIn(dense(), dense(K_exact), refine)

            if start == 0 and (rule, m) == configs[0]:
                check_stand_ins(dense(), refined(), X, y, init, rule, m, refine)
            followed = follow_exact(dense(), ref, y, accuracy, every)
            curve = own_curve(dense(), y, accuracy, steps, every)
            record(f"{rule}, m = {m}", followed, curve, ref)
            followed = follow_exact(refined(), ref, y, accuracy, every)
            curve = own_curve(refined(), y, accuracy, steps, every)
            record(f"{rule}, m = {m}, refine {refine}", followed, curve, ref)
    mean_exact = np.mean(exact_curves, axis=0)
    for row in rows.values():
        row["mean_curve_gap"] = curve_gap(mean_exact, np.mean(row["curves"], axis=0))
    return rows


def check_stand_ins(dense, refined, X, y, init, rule: str, m: int, refine: int) -> None:
    """Print the largest relative difference of the first query's scores: dense ARLS on
    ``K̃ = ΦΦᵀ`` against ``LowRankARLS`` (every candidate, whole pool) with the same landmarks,
    and the refined stand-in's exact scores against ``LowRankARLS(refine=k)``'s."""
    low = LowRankARLS(
        sigma=SIGMA, lam=LAM, n_landmarks=m, landmarks=rule, random_state=0, refine=refine
    )
    low.start(X, [0, 1]).teach_many(init, y[init].tolist())
    a, b = dense.scores(), low.scores()
    ok = ~np.isnan(a)
    diff = float(np.max(np.abs(a[ok] - b[ok]) / np.abs(a[ok])))
    same = int(np.nanargmin(a)) == int(np.nanargmin(b))
    short = refined.shortlist()
    mine = low.refined_scores()
    ref = refined.exact.scores()[short]
    refined_diff = float(np.max(np.abs(mine[short] - ref) / ref))
    refined_same = refined.next_query()[0] == low.next_query()[0]
    same_short = set(short) == set(np.flatnonzero(~np.isnan(mine)))
    print(
        f"check: dense ARLS on K̃ = ΦΦᵀ vs LowRankARLS ({rule}, m = {m}), first query: largest "
        f"relative score difference {diff:.1e}, same pick: {'yes' if same else 'NO'}; refine "
        f"{refine}: same shortlist {'yes' if same_short else 'NO'}, "
        f"largest relative exact-score difference {refined_diff:.1e}, same pick: "
        f"{'yes' if refined_same else 'NO'}",
        flush=True,
    )


def cost_at(n: int, rule: str, m: int, repeats: int, sample: int, refine: int) -> dict:
    """Start (one run) and query time (median, right after a label) of ``LowRankARLS`` on the
    ``n``-point pool of parts 1–2: 200 candidates, whole-pool risk and ``sample`` risk points,
    without and with ``refine``."""
    X, y = make_pool(n)
    L = np.random.default_rng(1).choice(n, SEED_LABELS, replace=False).tolist()
    tic = time.perf_counter()
    q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=m, landmarks=rule, candidates=200)
    q.start(X, [0, 1])
    start_s = time.perf_counter() - tic
    q.teach_many(L, y[L].tolist())
    out = {"start_s": start_s}
    for key, k in (("plain", None), ("refined", refine)):
        q.set_params(refine=k, risk_sample=None)
        full = fresh_query_seconds(q, y, repeats)
        q.set_params(risk_sample=sample)
        out[key] = {"query_full_s": full, "query_s": fresh_query_seconds(q, y, repeats)}
    return out


def print_sweep(
    rows: dict, costs: dict, starts: int, n: int, steps: int, n_cost: int, sample: int
) -> None:
    print(
        f"exact vs low-rank ARLS on n = {n}, {steps} steps, {starts} starts (initial labels and "
        "landmarks): same pick and near tie (exact score within "
        f"{NEAR_TIE:g} relative of the exact best) on the exact trajectory, % of steps; curve "
        "gaps in points (largest over the checkpoints): on the same labels, each following its "
        f"own picks (mean over starts), and between the curves averaged over the starts; start "
        f"and query seconds of LowRankARLS at n = {n_cost} (200 candidates; whole-pool risk / "
        f"{sample} risk points)"
    )
    header = (
        f"{'low-rank side':<28} {'same %':>7} {'near %':>7} {'same-lab':>9} {'own':>6} "
        f"{'avg':>6} {'start s':>8} {'query s':>13}"
    )
    print(header)
    print("-" * len(header))
    for name, row in rows.items():
        cost = costs.get(name)
        timing = (
            f"{cost['start_s']:>8.1f} {cost['query_full_s']:>6.2f}/{cost['query_s']:<6.2f}"
            if cost
            else f"{'':>8} {'':>13}"
        )
        print(
            f"{name:<28} {100 * np.mean(row['same']) / steps:>7.1f} "
            f"{100 * np.mean(row['near']) / steps:>7.1f} {np.mean(row['labels_gap']):>9.2f} "
            f"{np.mean(row['gap']):>6.2f} {row['mean_curve_gap']:>6.2f} {timing}",
            flush=True,
        )
    print("per start, same picks:", {k: v["same"] for k, v in rows.items()})


def goal(ok: bool) -> str:
    return "met" if ok else "NOT met"


def print_big(row: dict) -> None:
    runs = f"median of {row['start_runs']}" if row["start_runs"] > 1 else "one run"
    print(
        f"n = {row['n']}, m = {row['m']} {row['rule']} landmarks (r = {row['r']} features), "
        f"{row['labels']} labels: start {row['start_s']:.2f} s ({runs}), teach "
        f"{row['teach_s']:.3f} s, peak traced memory {row['peak_gb']:.2f} GB (start + labels + "
        f"one query), {row['peak_refine_gb']:.2f} GB with one refined query after it"
    )
    header = (
        f"{'candidates':>10} {'risk pts':>9} {'refine':>6} {'query s':>8} {'query GB':>9} "
        f"{'naive s':>8} {'naive GB':>9} {'max|Δscore|':>12} {'same pick':>9} {'score':>10} "
        f"{'SE':>8}"
    )
    print(header)
    print("-" * len(header))
    for o in row["settings"] + row["refined"]:
        pts = "all" if o["risk_sample"] is None else str(o["risk_sample"])
        refine = "off" if o["refine"] is None else str(o["refine"])
        print(
            f"{o['candidates']:>10} {pts:>9} {refine:>6} {o['query_s']:>8.3f} "
            f"{o['query_gb']:>9.3f} {o['naive_s']:>8.3f} {o['naive_peak_gb']:>9.2f} "
            f"{o['max_diff']:>12.1e} {'yes' if o['same'] else 'NO':>9} {o['score']:>10.1f} "
            f"{o['se']:>8.1f}",
            flush=True,
        )


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes (a few seconds)")
    p.add_argument("--repeats", type=int, default=5, help="timed queries (median)")
    p.add_argument(
        "--landmarks", default=LowRankARLS().landmarks, help="landmark rule (engine default)"
    )
    p.add_argument(
        "--refine",
        type=int,
        default=10,
        help="candidates re-scored by exact ARLS on the refined side (LowRankARLS(refine=K))",
    )
    p.add_argument(
        "--fidelity",
        nargs="+",
        metavar="RULE:M",
        help="only the exact-vs-low-rank sweep over these landmark rules and m (e.g. "
        "uniform:500 kmeans:1000), with the start and query cost of each at n = 100 000",
    )
    p.add_argument("--starts", type=int, default=3, help="starts of the --fidelity sweep")
    args = p.parse_args(argv)
    if args.quick:
        sizes = {"100k": 3000, "1M": 6000, "exact": 300}
        landmarks, steps, n_test, sample, start_repeats, many = 40, 10, 300, 1000, 1, 40
        args.repeats = 2
    else:
        sizes = {"100k": 100_000, "1M": 1_000_000, "exact": 5000}
        landmarks, steps, n_test, sample, start_repeats, many = 500, 100, 2000, 20_000, 3, 200
    K = args.refine
    report_machine()
    print(
        f"d = {D}, RBF σ = {SIGMA}, λ = {LAM}, no class weights, {SEED_LABELS} labels first; "
        f"refined side: refine = {K}"
    )
    out = {}
    if args.fidelity:
        configs = [(c.split(":")[0], int(c.split(":")[1])) for c in args.fidelity]
        if args.quick:
            configs = [(rule, min(m, landmarks)) for rule, m in configs]
        rows = fidelity_sweep(configs, args.starts, sizes["exact"], n_test, steps, K)
        costs = {}
        for rule, m in configs:
            c = cost_at(sizes["100k"], rule, m, 3, sample, K)
            costs[f"{rule}, m = {m}"] = {"start_s": c["start_s"], **c["plain"]}
            costs[f"{rule}, m = {m}, refine {K}"] = {"start_s": c["start_s"], **c["refined"]}
        print_sweep(rows, costs, args.starts, sizes["exact"], steps, sizes["100k"], sample)
        print(f"load average at the end: {load_average()}")
        return {"fidelity": rows, "costs": costs}
    big = [(200, None, None), (200, None, K), (200, sample, None), (200, sample, K)]
    out["100k"] = big_pool(sizes["100k"], landmarks, big, args, start_repeats, SEED_LABELS)
    print_big(out["100k"])
    out["100k-many"] = big_pool(sizes["100k"], landmarks, big, args, 1, many)
    print_big(out["100k-many"])
    settings = [(200, sample, None), (200, sample, K)]
    out["1M"] = big_pool(sizes["1M"], landmarks, settings, args, 1, SEED_LABELS)
    print_big(out["1M"])
    ex = out["exact"] = compare_exact(sizes["exact"], landmarks, args.landmarks, steps, n_test, K)
    print(
        f"exact ARLS vs LowRankARLS, n = {ex['n']}, m = {ex['m']} {ex['rule']} landmarks, every "
        f"candidate, whole pool; same pick and near tie (the low-rank pick's exact score within "
        f"{NEAR_TIE:g} relative of the exact best) of {ex['steps']} steps on the exact trajectory"
    )
    for o, name in ((ex, "refine off"), (ex["refined"], f"refine {K}")):
        print(
            f"  {name:<10}: same pick {o['same']}, near tie {o['near']}, query "
            f"{o['query_s']:.2f} s (with its label); learning curve (own picks): largest gap "
            f"{o['max_gap']:.1f} points, mean {o['mean_gap']:.1f}; on the exact picks: "
            f"largest gap {o['same_labels_gap']:.1f}"
        )
    print(f"{'labels':>6} {'exact acc':>10} {'low-rank acc':>13} {'refined acc':>12}")
    curves = (ex["labels"], ex["curve_exact"], ex["curve"], ex["refined"]["curve"])
    for k, a, b, c in zip(*curves, strict=True):
        print(f"{k:>6} {a:>10.3f} {b:>13.3f} {c:>12.3f}")
    print(
        f"(test set of {n_test} points) calibration, exact ARLS with λ × (1 + {LAM_NUDGE:g}): "
        f"same pick on {ex['nudged_same']} of {ex['steps']}, learning curve (its own picks) "
        f"within {ex['nudged_gap']:.1f} points of exact ARLS"
    )
    print(
        "median query: right after a label (taught, queried, undone), "
        f"{args.repeats} repeats after a warm-up; naive: median of 3"
    )
    if not args.quick:
        print_goals(out, sample, K)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB on Linux
    print(f"process max RSS {rss:.2f} GB; load average at the end: {load_average()}")
    return out


def print_goals(out: dict, sample: int, K: int) -> None:
    a, b, ex = out["100k"], out["1M"], out["exact"]
    q = {(o["risk_sample"], o["refine"]): o["query_s"] for o in a["settings"] + a["refined"]}
    print("goals:")
    print(f"  n = 100 000 start ≤ 30 s: {goal(a['start_s'] <= 30)} ({a['start_s']:.2f} s)")
    for pts, name in ((None, "whole-pool risk"), (sample, f"{sample} risk points")):
        for k in (None, K):
            t = q[(pts, k)]
            label = "" if k is None else f", refine {k}"
            print(
                f"  n = 100 000 query ≤ 1 s, 200 candidates, {name}{label}: "
                f"{goal(t <= 1)} ({t:.3f} s)"
            )
    for key, name in (("peak_gb", "refine off"), ("peak_refine_gb", f"refine {K}")):
        print(f"  n = 100 000 peak memory ≤ 2 GB, {name}: {goal(a[key] <= 2)} ({a[key]:.2f} GB)")
    for o in b["settings"] + b["refined"]:
        label = "refine off" if o["refine"] is None else f"refine {o['refine']}"
        t = o["query_s"]
        print(f"  n = 1 000 000 query ≤ 3 s, {label}: {goal(t <= 3)} ({t:.3f} s)")
    for key, name in (("peak_gb", "refine off"), ("peak_refine_gb", f"refine {K}")):
        print(f"  n = 1 000 000 peak memory ≤ 8 GB, {name}: {goal(b[key] <= 8)} ({b[key]:.2f} GB)")
    for o, name in ((ex, "refine off"), (ex["refined"], f"refine {K}")):
        print(f"  same pick ≥ 90 of 100 steps, {name}: {goal(o['same'] >= 90)} ({o['same']})")
        print(
            f"  learning curves within 1 point, {name}: {goal(o['max_gap'] <= 1.0)} "
            f"(largest gap {o['max_gap']:.1f})"
        )


if __name__ == "__main__":
    main()
