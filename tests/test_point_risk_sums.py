"""The compiled sums of a sampled lookahead (``rlscore.query.arls.fused_lookahead.point_risk_sums``,
issue 36).

* against the definition written here, one point, candidate and label at a time (eqs. 3.47,
  3.49 through ``tests/reference/arls.py``'s ``naive_risk``): two to four classes, class
  weights, clipped and raw probabilities, columns sharing covariances out of order, points
  whose every column is clipped to 0, sums added to what the arrays held;
* low-rank ARLS with a risk sample, compiled against its numpy lookahead on the same state:
  the same scores, standard errors and pick;
* a fresh interpreter's first large binary lookahead runs in numpy and does not load numba.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from reference.arls import naive_risk

from rlscore.query import LowRankARLS
from rlscore.query.arls import fused_lookahead, thesis
from rlscore.query.arls.fused_lookahead import point_risk_sums


def reference_sums(Ds, group_of, alphas, m_rows, q, inv_w, clip):
    """``Σ_z g_i(z)`` and ``Σ_z g_i(z)²``, ``g_i(z) = Σ_y q_iy ρ(m_z + d_i(z) α_i(y))``."""
    p, b = Ds[0].shape
    T, Tm = q.shape[1], m_rows.shape[1]
    total, squares = np.zeros(b), np.zeros(b)
    for i in range(b):
        for z in range(p):
            g = 0.0
            for y in range(T):
                f = np.array(
                    [[m_rows[z, t] + Ds[group_of[t]][z, i] * alphas[y][i, t] for t in range(Tm)]]
                )
                g += q[i, y] * naive_risk(f, inv_w, clip, T)
            total[i] += g
            squares[i] += g * g
    return total, squares


def block(T: int, groups: int, seed: int):
    rng = np.random.default_rng(seed)
    p, b = 37, 13  # no multiple of a vector width
    Tm = 1 if T == 2 else T
    Ds = [rng.normal(scale=0.6, size=(p, b)) for _ in range(groups)]
    group_of = rng.integers(0, groups, size=Tm)
    group_of[: min(groups, Tm)] = np.arange(groups)[::-1][: min(groups, Tm)]  # out of order
    alphas = [rng.normal(scale=1.5, size=(b, Tm)) for _ in range(T)]
    m_rows = rng.uniform(-1.4, 1.4, size=(p, Tm))
    if Tm > 1:
        m_rows[:4] = -3.0  # every column clipped to 0 there (unless a step lifts one)
    q = rng.uniform(0.0, 1.0, size=(b, T))
    return Ds, group_of, alphas, m_rows, q


@pytest.mark.parametrize("T", [2, 3, 4])
@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("clip", [True, False])
def test_the_sums_equal_the_definition_point_by_point(T, weights, clip):
    groups = 1 if T == 2 else 2
    Ds, group_of, alphas, m_rows, q = block(T, groups, seed=T + 10 * weights + 100 * clip)
    inv_w = np.array([0.5, 2.0, 1.3, 0.8][:T]) if weights else np.full(T, 1.7)
    total, squares = np.full(q.shape[0], 2.0), np.full(q.shape[0], -1.0)
    point_risk_sums(Ds, group_of, alphas, m_rows, q, inv_w, clip, total, squares)
    ref_total, ref_squares = reference_sums(Ds, group_of, alphas, m_rows, q, inv_w, clip)
    np.testing.assert_allclose(total, 2.0 + ref_total, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(squares, -1.0 + ref_squares, rtol=1e-12, atol=1e-12)


def test_the_all_clipped_points_take_the_uniform_probabilities():
    # every column clipped to 0 on every point: each label's risk is (Σ 1/w − 1/w_ĉ)/T
    T = 3
    Ds, group_of, alphas, m_rows, q = block(T, 1, seed=5)
    Ds = [np.zeros_like(Ds[0])]
    m_rows = np.full_like(m_rows, -3.0)
    m_rows[:, 1] = -2.5  # the winner: column 1
    inv_w = np.array([0.5, 2.0, 1.3])
    total, squares = np.zeros(q.shape[0]), np.zeros(q.shape[0])
    point_risk_sums(Ds, group_of, alphas, m_rows, q, inv_w, True, total, squares)
    rho = (0.5 + 1.3) / 3
    p = m_rows.shape[0]
    np.testing.assert_allclose(total, p * q.sum(axis=1) * rho, rtol=1e-13)
    np.testing.assert_allclose(squares, p * (q.sum(axis=1) * rho) ** 2, rtol=1e-13)


def pool(n: int, T: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    g = X[:, 0] + 0.5 * np.sin(2.0 * X[:, 1])
    return X, (g > 0.3).astype(int) if T == 2 else np.digitize(g, np.linspace(-0.6, 0.6, T - 1))


@pytest.mark.parametrize(
    ("T", "class_weight", "clip"),
    [(2, None, True), (2, {0: 1.0, 1: 3.0}, False), (3, "balanced", True), (4, None, False)],
)
def test_low_rank_arls_scores_the_same_compiled_and_in_numpy(T, class_weight, clip, monkeypatch):
    X, y = pool(3000, T, seed=T)
    labeled = [int(np.flatnonzero(y == c)[k]) for c in range(T) for k in range(3)]
    found = {}
    for path, limit in (("numpy", 1 << 62), ("compiled", 1 << 15)):
        monkeypatch.setattr(thesis, "NUMPY_LOOKAHEAD", limit)
        q = LowRankARLS(
            sigma=1.0, lam=0.3, n_landmarks=40, candidates=60, risk_sample=700,
            class_weight=class_weight, clip=clip,
        ).start(X, list(range(T)))  # fmt: skip
        q.teach_many(labeled, y[labeled].tolist())
        assert q.candidate_indices().size * q.risk_points().size > limit or path == "numpy"
        found[path] = (q.next_query(), q.scores(), q.standard_errors())
    (i, score), scores, errors = found["compiled"]
    (ref_i, ref_score), ref_scores, ref_errors = found["numpy"]
    np.testing.assert_allclose(scores, ref_scores, rtol=1e-11, equal_nan=True)
    np.testing.assert_allclose(errors, ref_errors, rtol=1e-9, equal_nan=True)
    order = np.sort(ref_scores[~np.isnan(ref_scores)])
    assert order[1] - order[0] > 1e-9 * order[0]  # a clear winner
    assert (i, score) == (ref_i, pytest.approx(ref_score, rel=1e-11))


LOADS = """
import sys
import numpy as np
from rlscore.query import LowRankARLS
from rlscore.query.arls import thesis
thesis.NUMPY_LOOKAHEAD = 1 << 12
T = {T}
X = np.random.default_rng(0).normal(size=(2000, 2))
q = LowRankARLS(sigma=1.0, lam=0.3, n_landmarks=20, candidates=40, risk_sample=500).start(
    X, list(range(T)))
q.teach_many(list(range(T)), list(range(T)))
loaded = []
for k in range(T, T + 3):
    q.next_query()
    loaded.append("numba" in sys.modules)
    q.teach(k, k % T)
print(loaded)
"""


@pytest.mark.parametrize(("T", "loaded"), [(2, [False, True, True]), (3, [True, True, True])])
def test_a_first_binary_lookahead_does_not_wait_for_numba(T, loaded):
    # a fresh interpreter: the first large binary lookahead runs in numpy without loading
    # numba, the next loads it; with three classes the first does
    out = subprocess.run(
        [sys.executable, "-c", LOADS.format(T=T)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(loaded)


def test_read_only_weights_give_the_same_sums_without_a_new_compilation():
    """The class weights' reciprocals, read-only or not, take the one compiled kernel (read-only
    is part of an array's type for numba, and each compilation costs seconds)."""
    Ds, group_of, alphas, m_rows, q = block(3, 2, seed=41)
    sums = {}
    for frozen in (False, True):
        inv_w = np.array([0.5, 2.0, 1.3])
        inv_w.setflags(write=not frozen)
        total, squares = np.zeros(q.shape[0]), np.zeros(q.shape[0])
        point_risk_sums(Ds, group_of, alphas, m_rows, q, inv_w, True, total, squares)
        sums[frozen] = (total, squares)
        if not frozen:
            compiled = len(fused_lookahead._sampled_multiclass.signatures)
    np.testing.assert_array_equal(sums[True][0], sums[False][0])
    np.testing.assert_array_equal(sums[True][1], sums[False][1])
    assert len(fused_lookahead._sampled_multiclass.signatures) == compiled
