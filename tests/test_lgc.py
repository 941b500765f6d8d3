"""LGC (Sheng §3.2, Zhou et al. 2004) against the iteration, dense solves and scikit-learn.

The α property (Sheng §3.4): the thesis derives the bound ``B_α = min(0.005, 0.01/|S_jx − S_ix|)``
(eq. 3.37) below which the pairwise ranking by ``F*`` should not depend on α. That bound is
always 0.005 for ``S = D⁻¹W`` and comes from first-order approximations (3.25, 3.28, 3.30,
3.32); :func:`test_sheng_bound_alone_does_not_guarantee_a_stable_ranking` shows a graph whose
ranking changes at α ≈ 0.002. The property that does hold, tested with hypothesis, is the
series form of the same argument: with ``F*/(1 − α) = Σ_k α^k S^k Y`` and
``d_k = (S^k y)_i − (S^k y)_j``, the sign of the pair (i, j) is the sign of its first non-zero
``d_m`` for every ``α < |d_m| / (|d_m| + osc_{m+1})``, where ``osc_k = max S^k y − min S^k y``
(non-increasing because ``S`` is stochastic, and ``≥ |d_k|``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits
from sklearn.semi_supervised import LabelSpreading

from rlscore.core.graph.lgc import (
    initial_labels,
    lgc_propagate,
    lgc_solve,
    one_class_log_scores,
    propagation_matrix,
    sheng_alpha_bound,
)
from rlscore.core.graph.lgc_classifier import LGCClassifier
from rlscore.core.kernels.functions import knn_graph


def _dense_S(W, normalization):
    """``D⁻¹W`` or ``D^{-1/2}WD^{-1/2}`` with numpy only (no isolated points)."""
    W = np.asarray(W.toarray() if sp.issparse(W) else W, dtype=float)
    d = W.sum(axis=1)
    if normalization == "random_walk":
        return W / d[:, None]
    return W / np.sqrt(np.outer(d, d))


def _dense_F(W, Y, alpha, normalization):
    S = _dense_S(W, normalization)
    return (1.0 - alpha) * np.linalg.solve(np.eye(S.shape[0]) - alpha * S, Y)


def _points(n=60, d=3, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def _codes(n, labeled_per_class, n_classes, seed=0):
    rng = np.random.default_rng(seed)
    codes = np.full(n, -1)
    picks = rng.permutation(n)[: labeled_per_class * n_classes]
    codes[picks] = np.repeat(np.arange(n_classes), labeled_per_class)
    return codes


# -- closed form, iteration and dense solve ------------------------------------------------------
@pytest.mark.parametrize("normalization", ["random_walk", "symmetric"])
@pytest.mark.parametrize("unlabeled_init", ["uniform", "zeros"])
@pytest.mark.parametrize("alpha", [0.001, 0.5, 0.95])
@pytest.mark.parametrize("weights", ["binary", "heat"])
def test_closed_form_equals_iteration_and_dense_solve(
    normalization, unlabeled_init, alpha, weights
):
    X = _points()
    W = knn_graph(X, k=5, weights=weights, heat_width=2.0)
    Y = initial_labels(_codes(60, 3, 3), 3, unlabeled_init)
    dense = _dense_F(W, Y, alpha, normalization)
    iterated, n_iter = lgc_propagate(W, Y, alpha, normalization, tol=1e-12)
    for solver in ("cg", "direct"):
        sol = lgc_solve(W, Y, alpha, normalization, solver=solver)
        np.testing.assert_allclose(sol.F, iterated, atol=1e-8, rtol=0)
        np.testing.assert_allclose(sol.F, dense, atol=1e-10, rtol=0)
        # the increments: F = (1 − α)(Y + αH) with H = S(I − αS)⁻¹Y
        S = _dense_S(W, normalization)
        H = S @ np.linalg.solve(np.eye(60) - alpha * S, Y)
        np.testing.assert_allclose(sol.H, H, atol=1e-10, rtol=0)
    assert n_iter > 1


def test_propagation_matrix_and_row_sums():
    W = knn_graph(_points(), k=4, weights="heat", heat_width=1.5)
    for norm in ("random_walk", "symmetric"):
        np.testing.assert_allclose(propagation_matrix(W, norm).toarray(), _dense_S(W, norm))
    Y = initial_labels(_codes(60, 2, 3), 3, "uniform")
    # Sheng §3.2.2: with S = D⁻¹W the rows of F* are probability distributions
    F = lgc_solve(W, Y, 0.7).F
    np.testing.assert_allclose(F.sum(axis=1), 1.0, atol=1e-12)
    assert F.min() >= 0
    # …and with Zhou's symmetric S they are not (the reason the thesis rejects it for ranking)
    F_sym = lgc_solve(W, Y, 0.7, "symmetric").F
    assert np.abs(F_sym.sum(axis=1) - 1.0).max() > 1e-3


def test_uniform_and_zero_initial_rows_give_the_same_argmax():
    X = _points(80, seed=2)
    codes = _codes(80, 2, 3, seed=3)
    y = np.where(codes >= 0, codes, np.nan)
    for norm in ("random_walk", "symmetric"):
        a = LGCClassifier(n_neighbors=5, alpha=0.9, normalization=norm).fit(X, y)
        b = LGCClassifier(n_neighbors=5, alpha=0.9, normalization=norm, unlabeled_init="zeros")
        b.fit(X, y)
        np.testing.assert_array_equal(a.transduction_, b.transduction_)
        # F_uniform − F_zeros is the same vector in every column
        diff = a.F_ - b.F_
        np.testing.assert_allclose(diff, diff[:, :1].repeat(3, axis=1), atol=1e-12)


# -- scikit-learn's LabelSpreading ---------------------------------------------------------------
def _sklearn_spreading(X, y_sk, alpha, **kw):
    ls = LabelSpreading(alpha=alpha, tol=1e-12, max_iter=200_000, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ConvergenceWarning would make the comparison moot
        return ls.fit(X, y_sk)


def test_equals_label_spreading_with_the_same_affinity():
    # LabelSpreading with a callable kernel uses S = D^{-1/2}WD^{-1/2} of exactly that W, zero
    # initial rows for unlabeled points and row-normalised outputs: our symmetric/zeros form.
    X = _points(70, seed=4)
    W = knn_graph(X, k=5, weights="heat", heat_width=2.0)
    codes = _codes(70, 3, 3, seed=5)
    ours = LGCClassifier(
        alpha=0.6, normalization="symmetric", unlabeled_init="zeros", affinity="precomputed"
    ).fit(W, np.where(codes >= 0, codes, np.nan))
    ref = _sklearn_spreading(X, codes, 0.6, kernel=lambda A, B: W.toarray())
    np.testing.assert_allclose(ours.label_distributions_, ref.label_distributions_, atol=1e-9)
    np.testing.assert_array_equal(ours.transduction_, ref.transduction_)


@pytest.mark.parametrize("shape", [(40,), (7, 9)])
def test_equals_label_spreading_knn_on_a_regular_mutual_graph(shape):
    # LabelSpreading(kernel="knn", n_neighbors=m) builds the directed graph A of the m nearest
    # points, each point counted as its own neighbour; scipy's normalised Laplacian ignores the
    # self-loops, so S_sk = D_in^{-1/2}(A − diag A)D_in^{-1/2} with in-degrees. This is our
    # symmetric S of the (m − 1)-NN graph exactly when the (m − 1)-NN relation is mutual
    # (A = Aᵀ, so symmetrising changes nothing), with the same α, zero initial rows for the
    # unlabeled points and rows normalised. Otherwise sklearn keeps the directed graph and we
    # symmetrise it: the two differ. Equally spaced points on a circle (2-NN) or on a 7 × 9
    # torus (4-NN) are mutual; they are also regular, so D⁻¹W = D^{-1/2}WD^{-1/2} there and
    # Sheng's form gives the same labels.
    grids = np.meshgrid(*[np.arange(s) * 2 * np.pi / s for s in shape], indexing="ij")
    X = np.column_stack([f(g.ravel()) for g in grids for f in (np.cos, np.sin)])
    n, r = X.shape[0], 2 * len(shape)
    W = knn_graph(X, k=r)
    assert np.array_equal(np.asarray(W.sum(axis=1)).ravel(), np.full(n, r))  # regular, mutual
    codes = np.full(n, -1)
    codes[[0, 5, 17]] = [0, 1, 2]
    alpha = 0.9
    ref = _sklearn_spreading(X, codes, alpha, kernel="knn", n_neighbors=r + 1)
    y = np.where(codes >= 0, codes, np.nan)
    ours = LGCClassifier(r, alpha=alpha, normalization="symmetric", unlabeled_init="zeros")
    ours.fit(X, y)
    np.testing.assert_allclose(ours.label_distributions_, ref.label_distributions_, atol=1e-9)
    rw = LGCClassifier(r, alpha=alpha).fit(X, y)  # regular: D⁻¹W = D^{-1/2}WD^{-1/2}
    top2 = np.sort(rw.F_, axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-9  # points halfway between two labels are exact ties
    assert clear.mean() > 0.8
    np.testing.assert_array_equal(rw.transduction_[clear], ref.transduction_[clear])
    # a non-mutual kNN relation: sklearn keeps the directed graph, we symmetrise it
    X_odd = _points(40, d=2, seed=9)
    codes_odd = _codes(40, 2, 2, seed=9)
    ref_odd = _sklearn_spreading(X_odd, codes_odd, alpha, kernel="knn", n_neighbors=4)
    odd = LGCClassifier(3, alpha=alpha, normalization="symmetric", unlabeled_init="zeros")
    odd.fit(X_odd, np.where(codes_odd >= 0, codes_odd, np.nan))
    assert np.abs(odd.label_distributions_ - ref_odd.label_distributions_).max() > 1e-3


# -- Sheng §3.4: α below a bound and the pairwise ranking ---------------------------------------
def _series(S, y, order):
    """``S^k y`` for k = 0 … order − 1, shape (order, n)."""
    out = [np.asarray(y, dtype=float)]
    for _ in range(order - 1):
        out.append(S @ out[-1])
    return np.array(out)


def _certified_pairs(S, y, zero=1e-12):
    """Per pair (i < j): the first non-zero order m, ``d_m``, ``osc_{m+1}``, the α below which
    the sign of the pair is certain (inf for exact ties) and whether it is an exact tie."""
    n = S.shape[0]
    P = _series(S, y, n + 2)  # Cayley–Hamilton: n zero terms mean zero for every k
    osc = P.max(axis=1) - P.min(axis=1)
    iu, ju = np.triu_indices(n, 1)
    D = P[:, iu] - P[:, ju]  # (order, pairs)
    nonzero = np.abs(D[:n]) > zero
    tied = ~nonzero.any(axis=0)
    m = np.argmax(nonzero, axis=0)
    d_m = D[m, np.arange(iu.size)]
    osc_next = osc[m + 1]
    bound = np.abs(d_m) / (np.abs(d_m) + osc_next)
    return {
        "i": iu,
        "j": ju,
        "m": m.astype(float),
        "d_m": d_m,
        "osc_next": osc_next,
        "bound": np.where(tied, np.inf, bound),
        "tied": tied,
    }


@st.composite
def _graphs(draw):
    n = draw(st.integers(4, 7))
    # a spanning path keeps the graph connected; extra edges with small integer weights keep
    # the non-zero d_k far above rounding
    W = np.zeros((n, n))
    order = draw(st.permutations(range(n)))
    for a, b in zip(order[:-1], order[1:], strict=True):
        W[a, b] = W[b, a] = draw(st.integers(1, 3))
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=8))
    for a, b in extra:
        if a != b:
            W[a, b] = W[b, a] = draw(st.integers(1, 3))
    n_classes = draw(st.integers(2, 3))
    labels = draw(st.lists(st.integers(-1, n_classes - 1), min_size=n, max_size=n))
    codes = np.array(labels)
    assume(set(codes[codes >= 0]) == set(range(n_classes)))  # classes_ = 0 … c − 1
    return W, codes, n_classes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_graphs(), u1=st.floats(0.01, 1.0), u2=st.floats(0.01, 1.0))
def test_pairwise_ranking_is_the_same_for_every_alpha_below_the_bound(data, u1, u2):
    """Sheng §3.4 (eq. 3.37): the ranking by a column of ``F*`` does not change with α below
    ``B_α`` — here below ``min(B_α, certified bound)`` (module docstring), for ``S = D⁻¹W``."""
    W, codes, n_classes = data
    Y = initial_labels(codes, n_classes, "uniform")
    pairs = _certified_pairs(_dense_S(W, "random_walk"), Y[:, 0])
    top = min(sheng_alpha_bound(W), float(pairs["bound"].min())) * (1 - 1e-9)
    y = np.where(codes >= 0, codes, np.nan)
    d = np.abs(pairs["d_m"])
    orders, resolvables = [], []
    for u in (u1, u2):
        alpha = u * top
        model = LGCClassifier(alpha=alpha, affinity="precomputed", solver="direct").fit(W, y)
        pos = np.empty(W.shape[0], dtype=int)
        pos[model.rank(0)] = np.arange(W.shape[0])
        # a pair is numerically resolvable when its certified gap in F* is above rounding:
        # |F_i − F_j| ≥ (1 − α) α^m (|d_m| − α osc_{m+1} / (1 − α))
        gap = (1 - alpha) * alpha ** pairs["m"] * (d - alpha * pairs["osc_next"] / (1 - alpha))
        resolvable = ~pairs["tied"] & (gap > 1e-11)
        # rank puts the larger F* first: i before j exactly when d_m > 0
        before = pos[pairs["i"]] < pos[pairs["j"]]
        np.testing.assert_array_equal(before[resolvable], pairs["d_m"][resolvable] > 0)
        orders.append(before)
        resolvables.append(resolvable)
    both = resolvables[0] & resolvables[1]
    assert both.any()
    np.testing.assert_array_equal(orders[0][both], orders[1][both])


def test_sheng_bound_alone_does_not_guarantee_a_stable_ranking():
    # Two unlabeled points i = 1, j = 2 with nearly the same share of weight to the labeled
    # point 0 (1/3 against 1/3.01: d_1 = 5.5e-4) but very different second neighbours (j's
    # neighbour 4 is heavily tied to the label: d_2 = −0.28). Their order flips at α ≈ 0.002,
    # below Sheng's B_α = 0.005 (eq. 3.37): the bound rests on first-order approximations.
    W = np.zeros((6, 6))
    for a, b, w in [(0, 1, 1), (1, 3, 2), (0, 2, 1), (2, 4, 2.01), (4, 0, 10), (3, 5, 1)]:
        W[a, b] = W[b, a] = w
    assert sheng_alpha_bound(W) == 0.005
    Y = initial_labels([0, -1, -1, -1, -1, -1], 2)
    diff = [np.diff(lgc_solve(W, Y, a, solver="direct").F[[2, 1], 0])[0] for a in (1e-3, 4e-3)]
    assert diff[0] > 0 > diff[1]
    # the certified bound of the module docstring stops short of the flip: for this pair
    # |d_1| / (|d_1| + osc_2) = 0.0015, and below it the order is the one at α = 0.001
    pairs = _certified_pairs(_dense_S(W, "random_walk"), Y[:, 0])
    k = np.flatnonzero((pairs["i"] == 1) & (pairs["j"] == 2))[0]
    assert 1e-3 < pairs["bound"][k] < 2e-3 and pairs["d_m"][k] > 0


@pytest.mark.parametrize("normalization", ["random_walk", "symmetric"])
def test_sheng_bound_is_always_0_005(normalization):
    # 0 ≤ S_ix ≤ 1, so 0.01/|S_jx − S_ix| ≥ 0.01 > 0.005 (eq. 3.37)
    for seed, weights in [(0, "binary"), (1, "heat")]:
        W = knn_graph(_points(50, seed=seed), k=3, weights=weights, heat_width=0.5)
        S = _dense_S(W, normalization)
        spread = max(np.abs(S[:, None, x] - S[None, :, x]).max() for x in range(50))
        assert spread <= 1.0
        assert sheng_alpha_bound(W, normalization) == min(0.005, 0.01 / spread) == 0.005


def test_one_class_log_scores_are_the_exact_positive_column():
    # F*_{i1} = ½ + ½(1 − α)P_i (Sheng §3.5.1's Y): compare P with the dense solve where the
    # solve still has digits to spare, and the order with H where it does not
    rng = np.random.default_rng(11)
    X = np.vstack([rng.normal(size=(60, 2)), rng.normal(size=(5, 2)) + 50.0])
    W = knn_graph(X, k=4)
    labeled = np.arange(6)
    codes = np.full(65, -1)
    codes[labeled] = 0
    for alpha in (0.3, 0.01, 0.001):
        logP = one_class_log_scores(W, labeled, alpha)
        assert np.all(np.isinf(logP[60:])) and np.all(np.isfinite(logP[:60]))
        P = (
            2
            * _dense_F(
                W[:60][:, :60].toarray(), initial_labels(codes[:60], 2), alpha, "random_walk"
            )[:, 0]
        )
        P = (P - 1) / (1 - alpha)
        big = P > 1e-6
        np.testing.assert_allclose(np.exp(logP[:60][big]), P[big], rtol=1e-8)
        assert np.all(logP[labeled] >= 0)  # P ≥ 1 on the labeled points
    with pytest.raises(RuntimeError, match="did not converge in 3 terms"):
        one_class_log_scores(W, labeled, 0.5, max_terms=3)
    with pytest.raises(ValueError, match="at least one labeled point"):
        one_class_log_scores(W, [], 0.5)


# -- the estimator: multiclass, ranking, components ----------------------------------------------
def _digits(classes=(1, 2, 3), per_class=60, labeled=3, seed=0):
    d = load_digits()
    rng = np.random.default_rng(seed)
    idx = np.concatenate(
        [rng.choice(np.flatnonzero(d.target == c), per_class, replace=False) for c in classes]
    )
    X, y = d.data[idx], d.target[idx]
    y_partial = y.astype(float)
    keep = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), labeled, replace=False) for c in classes]
    )
    hide = np.setdiff1d(np.arange(y.size), keep)
    y_partial[hide] = np.nan
    return X, y, y_partial, keep


def test_multiclass_transduction_and_rank():
    X, y, y_partial, keep = _digits(classes=(0, 1, 2, 3))
    model = LGCClassifier(n_neighbors=8, alpha=0.9).fit(X, y_partial)
    assert list(model.classes_) == [0, 1, 2, 3]
    assert model.F_.shape == (X.shape[0], 4)
    assert (model.transduction_ == y).mean() > 0.9
    np.testing.assert_array_equal(model.predict(X), model.transduction_)
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    assert np.array_equal(np.sort(model.labeled_), np.sort(keep))
    for c in model.classes_:
        order = model.rank(c)
        col = model.F_[:, list(model.classes_).index(c)]
        assert np.all(np.diff(col[order]) <= 0)
        assert np.all(np.diff(col[model.rank(c, descending=False)]) >= 0)
    # ranking with a small α: the labeled points of a class come first in its column
    small = LGCClassifier(n_neighbors=8, alpha=0.001).fit(X, y_partial)
    top = small.rank(2)[:3]
    assert set(top) == set(keep[y[keep] == 2])
    # the score of a classifier
    assert model.score(X, y) == (model.transduction_ == y).mean()


def test_unlabeled_markers():
    X, y, y_nan, _ = _digits(per_class=20)
    ref = LGCClassifier(n_neighbors=5).fit(X, y_nan)
    y_obj = np.array([None if np.isnan(v) else int(v) for v in y_nan], dtype=object)
    y_minus = np.where(np.isnan(y_nan), -1, y).astype(int)
    y_str = np.array(["?" if np.isnan(v) else f"d{int(v)}" for v in y_nan])
    for yy, marker, classes in [
        (y_obj, None, [1, 2, 3]),
        (y_minus, -1, [1, 2, 3]),
        (y_str, "?", ["d1", "d2", "d3"]),
        (y_nan, float("nan"), [1.0, 2.0, 3.0]),
    ]:
        m = LGCClassifier(n_neighbors=5, unlabeled=marker).fit(X, yy)
        assert list(m.classes_) == classes
        np.testing.assert_allclose(m.F_, ref.F_)


def test_disconnected_components_are_solved_separately():
    # two far-apart blobs: the 4-NN graph has two components
    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(size=(30, 2)), rng.normal(size=(25, 2)) + 100.0])
    W = knn_graph(X, k=4)
    y = np.full(55, np.nan)
    y[[0, 1]] = [0, 1]
    with pytest.warns(UserWarning, match="25 of 55 points lie in graph components without"):
        model = LGCClassifier(n_neighbors=4, alpha=0.5).fit(X, y)
    np.testing.assert_array_equal(model.unreached_, np.arange(55) >= 30)
    # the unreached component keeps its initial rows: 1/c with S = D⁻¹W and uniform rows…
    np.testing.assert_allclose(model.F_[30:], 0.5, atol=1e-14)
    assert np.all(model.F_[30:, 0] == model.F_[30:, 1])  # exact ties
    assert (model.transduction_[30:] == 0).all()  # classes_[0] by convention
    # …and the labeled component is the LGC of that component alone
    Y_a = initial_labels(np.r_[0, 1, np.full(28, -1)], 2)
    np.testing.assert_allclose(model.F_[:30], lgc_solve(W[:30][:, :30], Y_a, 0.5).F, atol=1e-12)
    with pytest.warns(UserWarning):
        zeros = LGCClassifier(n_neighbors=4, alpha=0.5, unlabeled_init="zeros").fit(X, y)
    assert np.all(zeros.F_[30:] == 0) and np.all(zeros.label_distributions_[30:] == 0)
    # a label in each component: no warning, each component solved independently
    y[[30, 31]] = [1, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        both = LGCClassifier(n_neighbors=4, alpha=0.5).fit(X, y)
    assert not both.unreached_.any()
    Y_b = initial_labels(np.r_[1, 0, np.full(23, -1)], 2)
    np.testing.assert_allclose(both.F_[30:], lgc_solve(W[30:][:, 30:], Y_b, 0.5).F, atol=1e-12)


def test_isolated_point_of_a_precomputed_affinity_keeps_its_initial_row():
    W = np.zeros((5, 5))
    W[0, 1] = W[1, 0] = W[1, 2] = W[2, 1] = 1.0
    W[3, 4] = W[4, 3] = 2.0  # point 4 is labeled 1; point 3 hangs on it; nothing else isolated
    W_iso = np.pad(W, ((0, 1), (0, 1)))  # point 5: degree 0
    Y = initial_labels([0, -1, -1, -1, 1, 1], 2)
    sol = lgc_solve(W_iso, Y, 0.4)
    np.testing.assert_allclose(sol.F[5], 0.6 * Y[5])
    np.testing.assert_allclose(sol.F[:5], lgc_solve(W, Y[:5], 0.4).F, atol=1e-14)


def test_large_sparse_pool_cg():
    # sparse solves only: 20 000 points, k = 10 (benchmarks/reproduce_sheng.py runs 100 000)
    X = np.random.default_rng(0).uniform(size=(20_000, 2))
    y = np.full(20_000, np.nan)
    y[np.argmin(X[:, 0])], y[np.argmax(X[:, 0])] = 0, 1
    model = LGCClassifier(n_neighbors=10, alpha=0.99).fit(X, y)
    assert model.n_iter_ < 200
    left = X[:, 0] < 0.3
    assert (model.transduction_[left] == 0).mean() > 0.9
    np.testing.assert_allclose(model.F_.sum(axis=1), 1.0, atol=1e-9)


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"alpha": 0.0}, "alpha must lie strictly between 0 and 1"),
        ({"alpha": 1.0}, "alpha must lie strictly between 0 and 1"),
        ({"alpha": "big"}, "alpha must be a number"),
        ({"normalization": "laplacian"}, "normalization must be one of"),
        ({"unlabeled_init": "ones"}, "unlabeled_init must be one of"),
        ({"solver": "inverse"}, "solver must be one of"),
        ({"affinity": "rbf"}, "affinity must be one of"),
        ({"n_neighbors": 0}, "n_neighbors must be a positive integer"),
        ({"n_neighbors": 2.5}, "n_neighbors must be a positive integer"),
        ({"n_neighbors": 40}, "n_neighbors=40 needs more than 40 points"),
    ],
)
def test_bad_parameters(params, match):
    X, _, y, _ = _digits(per_class=10)
    with pytest.raises(ValueError, match=match):
        LGCClassifier(**params).fit(X, y)


def test_bad_data():
    X, _, y, _ = _digits(per_class=10)
    with pytest.raises(ValueError, match="y has shape"):
        LGCClassifier(n_neighbors=3).fit(X, y[:-1])
    with pytest.raises(ValueError, match="y has no labeled points"):
        LGCClassifier(n_neighbors=3).fit(X, np.full(30, np.nan))
    one = np.full(30, np.nan)
    one[:3] = 1
    with pytest.raises(ValueError, match=r"only one class \(1.0\).*GraphOCL"):
        LGCClassifier(n_neighbors=3).fit(X, one)
    X_nan = X.copy()
    X_nan[4, 2] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        LGCClassifier(n_neighbors=3).fit(X_nan, y)
    pre = LGCClassifier(affinity="precomputed")
    with pytest.raises(ValueError, match="not symmetric"):
        pre.fit(np.triu(np.ones((30, 30)), 1), y)
    with pytest.raises(ValueError, match="negative entries"):
        pre.fit(-np.ones((30, 30)), y)
    with pytest.raises(ValueError, match="square"):
        pre.fit(np.ones((30, 4)), y)
    model = LGCClassifier(n_neighbors=3).fit(X, y)
    with pytest.raises(ValueError, match="transductive"):
        model.predict(X[:5])
    with pytest.raises(ValueError, match="transductive"):
        model.predict_proba(model.affinity_)
    # a precomputed affinity: the same matrix, dense or sparse, is the same pool
    pre_fit = LGCClassifier(affinity="precomputed").fit(model.affinity_, y)
    np.testing.assert_array_equal(pre_fit.predict(model.affinity_.toarray()), pre_fit.transduction_)
    with pytest.raises(ValueError, match="transductive"):
        pre_fit.predict(2 * model.affinity_)
    with pytest.raises(ValueError, match="unknown class 7"):
        model.rank(7)
    with pytest.raises(ValueError, match="Y must have shape"):
        lgc_solve(model.affinity_, np.ones((5, 2)), 0.5)
    with pytest.raises(ValueError, match="tol must be"):
        lgc_solve(model.affinity_, np.ones((30, 2)), 0.5, tol=0)
    W = knn_graph(_points(200), k=5)
    with pytest.raises(RuntimeError, match="did not reach tol"):
        lgc_solve(W, initial_labels([0, 1] + [-1] * 198, 2), 0.99, max_iter=2)
