"""ARLS on low-rank features for pools of 10⁵–10⁶ points (issue 10, SPEC §7).

Data: ``n`` points of a 10-dimensional standard normal, labels ``x₀ + sin(2x₁) + x₂x₃/2 > 0``
(two classes, about balanced), RBF σ = 3, λ = 0.5, no class weights, 10 random labels taught
first; ``rlscore.query.LowRankARLS`` with m = 500 landmarks of the engine's default rule
(k-means centres; ``--landmarks`` another). Three parts:

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
   both); *near tie*: the low-rank pick's exact score is within 1e-3 (relative) of the exact
   best. Learning curves: each strategy follows its own picks for 100 steps; accuracy on a
   held-out test set of 2000 points every 10 labels; also the low-rank classifier's accuracy
   on the exact picks (same labels: the approximation's own effect on the classifier).
   Calibration: exact ARLS with λ × 1.001 against exact ARLS — how far a learning curve moves
   when a few near-tied picks go the other way.

``--fidelity RULE:M …`` runs only part 3 for several landmark rules and m over ``--starts``
starts (initial labels and landmarks), with dense ARLS on the Nyström kernel ``ΦΦᵀ`` standing in
for ``LowRankARLS`` (the same scores, checked at the first query), and the start and query time
of each at n = 100 000.

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

from rlscore.core.lowrank import LowRankKernel  # noqa: E402
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
    row = {"n": n, "m": landmarks, "rule": args.landmarks, "settings": []}
    c0, s0 = settings[0]

    def make(candidates, risk_sample):
        return LowRankARLS(
            sigma=SIGMA,
            lam=LAM,
            n_landmarks=landmarks,
            landmarks=args.landmarks,
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


def compare_exact(n: int, landmarks: int, rule: str, steps: int, n_test: int) -> dict:
    """Same picks on the exact trajectory, both learning curves (every 10 labels), and a
    calibration: exact ARLS with λ nudged by :data:`LAM_NUDGE` against exact ARLS."""
    X, y, X_test, y_test = fidelity_pool(n, n_test)
    init = np.random.default_rng(6).choice(n, 4, replace=False).tolist()
    every = max(1, steps // 10)
    accuracy = test_accuracy(X_test, y_test)
    ref = exact_reference(X, y, accuracy, init, steps, every)

    def low_rank():
        q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=landmarks, landmarks=rule)
        q.start(X, [0, 1]).teach_many(init, y[init].tolist())
        return q

    low = low_rank()
    tic = time.perf_counter()
    followed = follow_exact(low, ref, y, accuracy, every)
    query_s = (time.perf_counter() - tic) / steps
    curve_low = own_curve(low_rank(), y, accuracy, steps, every)
    nudged_lam = LAM * (1 + LAM_NUDGE)
    nudged = ARLS(sigma=SIGMA, lam=nudged_lam).start(X, [0, 1])
    nudged.teach_many(init, y[init].tolist())
    calibration = follow_exact(nudged, ref, y, accuracy, every)
    nudged_curve = exact_reference(X, y, accuracy, init, steps, every, nudged_lam)["curve"]
    gaps = [100.0 * abs(a - b) for a, b in zip(ref["curve"], curve_low, strict=True)]
    return {
        "n": n,
        "m": landmarks,
        "rule": rule,
        "steps": steps,
        "same": int(followed["same"]),
        "near": int(followed["near"]),
        "labels": [len(init) + k * every for k in range(len(ref["curve"]))],
        "curve_exact": ref["curve"],
        "curve_low": curve_low,
        "curve_same_labels": followed["same_labels_curve"],
        "max_gap": max(gaps),
        "mean_gap": statistics.mean(gaps),
        "same_labels_gap": curve_gap(ref["curve"], followed["same_labels_curve"]),
        "query_s": query_s,
        "nudged_same": int(calibration["same"]),
        "nudged_gap": curve_gap(ref["curve"], nudged_curve),
    }


def fidelity_sweep(configs: list[tuple[str, int]], starts: int, n: int, n_test: int, steps: int):
    """Exact vs low-rank ARLS for several landmark rules and m, over several starts.

    Each start draws its own 4 initial labels and its own landmarks (``random_state`` = the
    start). The low-rank side is dense ``ARLS`` on the Nyström kernel ``K̃ = ΦΦᵀ`` of the
    features ``LowRankKernel`` builds (``LowRankARLS`` gives the same scores to 1e-8,
    ``tests/test_arls_lowrank.py``, and this function checks it at the first query of the first
    start): a query costs 0.1–0.3 s instead of 3–6 s with every candidate on the whole pool.
    Calibration row: exact ARLS with λ nudged by :data:`LAM_NUDGE`.
    """
    X, y, X_test, y_test = fidelity_pool(n, n_test)
    every = max(1, steps // 10)
    exact_acc = test_accuracy(X_test, y_test)
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

            def dense(K_low=K_low, init=init):
                q = ARLS(sigma=SIGMA, lam=LAM).start(X, [0, 1], K=K_low)
                q.teach_many(init, y[init].tolist())
                return q

            if start == 0 and (rule, m) == configs[0]:
                check_dense_equals_low_rank(dense(), X, y, init, rule, m)
            followed = follow_exact(dense(), ref, y, accuracy, every)
            curve = own_curve(dense(), y, accuracy, steps, every)
            record(f"{rule}, m = {m}", followed, curve, ref)
    mean_exact = np.mean(exact_curves, axis=0)
    for row in rows.values():
        row["mean_curve_gap"] = curve_gap(mean_exact, np.mean(row["curves"], axis=0))
    return rows


def check_dense_equals_low_rank(dense, X, y, init, rule: str, m: int) -> None:
    """Print the largest relative difference of the first query's scores: dense ARLS on
    ``K̃ = ΦΦᵀ`` against ``LowRankARLS`` (every candidate, whole pool) with the same landmarks."""
    low = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=m, landmarks=rule, random_state=0)
    low.start(X, [0, 1]).teach_many(init, y[init].tolist())
    a, b = dense.scores(), low.scores()
    ok = ~np.isnan(a)
    diff = float(np.max(np.abs(a[ok] - b[ok]) / np.abs(a[ok])))
    same = int(np.nanargmin(a)) == int(np.nanargmin(b))
    print(
        f"check: dense ARLS on K̃ = ΦΦᵀ vs LowRankARLS ({rule}, m = {m}), first query: largest "
        f"relative score difference {diff:.1e}, same pick: {'yes' if same else 'NO'}",
        flush=True,
    )


def cost_at(n: int, rule: str, m: int, repeats: int, sample: int) -> dict:
    """Start (one run) and query time (median, right after a label) of ``LowRankARLS`` on the
    ``n``-point pool of parts 1–2: 200 candidates, whole-pool risk and ``sample`` risk points."""
    X, y = make_pool(n)
    L = np.random.default_rng(1).choice(n, SEED_LABELS, replace=False).tolist()
    tic = time.perf_counter()
    q = LowRankARLS(sigma=SIGMA, lam=LAM, n_landmarks=m, landmarks=rule, candidates=200)
    q.start(X, [0, 1])
    start_s = time.perf_counter() - tic
    q.teach_many(L, y[L].tolist())
    full = fresh_query_seconds(q, y, repeats)
    q.set_params(risk_sample=sample)
    return {"start_s": start_s, "query_full_s": full, "query_s": fresh_query_seconds(q, y, repeats)}


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
        f"{'low-rank side':<24} {'same %':>7} {'near %':>7} {'same-lab':>9} {'own':>6} "
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
            f"{name:<24} {100 * np.mean(row['same']) / steps:>7.1f} "
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
        f"n = {row['n']}, m = {row['m']} {row['rule']} landmarks (r = {row['r']} features): start "
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
    p.add_argument(
        "--landmarks", default=LowRankARLS().landmarks, help="landmark rule (engine default)"
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
        landmarks, steps, n_test, sample, start_repeats = 40, 10, 300, 1000, 1
        args.repeats = 2
    else:
        sizes = {"100k": 100_000, "1M": 1_000_000, "exact": 5000}
        landmarks, steps, n_test, sample, start_repeats = 500, 100, 2000, 20_000, 3
    report_machine()
    print(f"d = {D}, RBF σ = {SIGMA}, λ = {LAM}, no class weights, {SEED_LABELS} labels first")
    out = {}
    if args.fidelity:
        configs = [(c.split(":")[0], int(c.split(":")[1])) for c in args.fidelity]
        if args.quick:
            configs = [(rule, min(m, landmarks)) for rule, m in configs]
        rows = fidelity_sweep(configs, args.starts, sizes["exact"], n_test, steps)
        costs = {
            f"{rule}, m = {m}": cost_at(sizes["100k"], rule, m, 3, sample) for rule, m in configs
        }
        print_sweep(rows, costs, args.starts, sizes["exact"], steps, sizes["100k"], sample)
        print(f"load average at the end: {load_average()}")
        return {"fidelity": rows, "costs": costs}
    out["100k"] = big_pool(
        sizes["100k"], landmarks, [(200, None), (200, sample)], args, start_repeats
    )
    print_big(out["100k"])
    out["1M"] = big_pool(sizes["1M"], landmarks, [(200, sample)], args, 1)
    print_big(out["1M"])
    ex = out["exact"] = compare_exact(sizes["exact"], landmarks, args.landmarks, steps, n_test)
    print(
        f"exact ARLS vs LowRankARLS, n = {ex['n']}, m = {ex['m']} {ex['rule']} landmarks: same "
        f"pick on {ex['same']} of {ex['steps']} steps (on the exact trajectory); near tie (the "
        f"low-rank pick's exact score within {NEAR_TIE:g} relative of the exact best) on "
        f"{ex['near']}; low-rank query {ex['query_s']:.2f} s (every candidate, whole pool)"
    )
    print(f"{'labels':>6} {'exact acc':>10} {'low-rank acc':>13} {'same labels':>12}")
    curves = (ex["labels"], ex["curve_exact"], ex["curve_low"], ex["curve_same_labels"])
    for k, a, b, c in zip(*curves, strict=True):
        print(f"{k:>6} {a:>10.3f} {b:>13.3f} {c:>12.3f}")
    print(
        f"learning curves (each its own picks): largest gap {ex['max_gap']:.1f} points, mean "
        f"{ex['mean_gap']:.1f} (test set of {n_test} points); on the same labels (the exact "
        f"picks): largest gap {ex['same_labels_gap']:.1f}"
    )
    print(
        f"calibration, exact ARLS with λ × (1 + {LAM_NUDGE:g}): same pick on {ex['nudged_same']} "
        f"of {ex['steps']}, learning curve (its own picks) within {ex['nudged_gap']:.1f} points "
        "of exact ARLS"
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
