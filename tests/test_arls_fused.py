"""ARLS's fused lookahead pass (issue 25) against the blocked numpy pass it replaced.

``tests/reference/arls_blocked.py`` is a copy of the scoring code before the fused kernel:
every score, the pick and the cached risks must equal it to 1e-10 on pools with two to five
classes (the multiclass kernel is compiled per number of columns), class weights (a dict and
balanced), unclipped probabilities and after undo, with candidate counts that do not fill the
kernel's groups of rows; also with columns sharing covariances out of order and with points
whose every column is clipped to 0.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.arls import naive_proba
from reference.arls_blocked import blocked_arls_scores, expected_risks, state_of

from rlscore.query import ARLS
from rlscore.query.arls import fused_lookahead
from rlscore.query.arls import thesis as arls
from rlscore.query.arls.fused_lookahead import ROWS, _is_one_vs_all, fused_expected_risks
from rlscore.query.arls.thesis import Lookahead

SIGMA, LAM = 1.3, 0.3


@pytest.fixture(params=["compiled", "numpy"])
def lookahead_path(request, monkeypatch):
    """Both lookaheads: the compiled pass and the numpy one small lookaheads take."""
    limit = -1 if request.param == "compiled" else 1 << 62
    monkeypatch.setattr(arls, "NUMPY_LOOKAHEAD", limit)


def pool(n: int, T: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.8
    if T == 2:
        return X, np.where(X[:, 0] + 0.5 * X[:, 1] > 0.4, 1, -1), [-1, 1]
    g = X[:, 0] - 0.3 * X[:, 1]
    return X, np.digitize(g, np.quantile(g, np.linspace(0, 1, T + 1)[1:-1])), list(range(T))


def assert_equal_to_blocked(q: ARLS) -> None:
    ref = blocked_arls_scores(state_of(q))
    got = q.scores()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    scale = max(1.0, float(np.nanmax(np.abs(ref))))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10 * scale, equal_nan=True)
    i, score = q.next_query()
    order = np.sort(ref[~np.isnan(ref)])
    if order.size > 1 and order[1] - order[0] > 1e-9 * scale:  # a clear winner
        assert i == int(np.nanargmin(ref))
    assert score == pytest.approx(order[0], abs=1e-10 * scale)


CASES = [
    pytest.param(2, None, None, True, id="binary"),
    pytest.param(2, None, None, False, id="binary-unclipped"),
    pytest.param(2, {-1: 1.0, 1: 4.0}, True, True, id="binary-dict-weights"),
    pytest.param(2, {-1: 0.5, 1: 3.0}, True, False, id="binary-dict-weights-unclipped"),
    pytest.param(2, "balanced", True, True, id="binary-balanced"),
    pytest.param(3, None, None, True, id="three-classes"),
    pytest.param(3, None, None, False, id="three-classes-unclipped"),
    pytest.param(3, {0: 1.0, 1: 2.5, 2: 0.7}, True, True, id="three-classes-dict-weights"),
    pytest.param(3, "balanced", True, True, id="three-classes-balanced"),
    pytest.param(3, "balanced", True, False, id="three-classes-balanced-unclipped"),
    pytest.param(4, "balanced", None, True, id="four-classes-balanced"),
    pytest.param(4, None, None, True, id="four-classes"),
    pytest.param(4, None, None, False, id="four-classes-unclipped"),
    pytest.param(4, {0: 2.0, 1: 0.5, 2: 1.0, 3: 3.0}, True, True, id="four-classes-dict-weights"),
    pytest.param(4, "balanced", True, False, id="four-classes-balanced-unclipped"),
    pytest.param(5, "balanced", True, True, id="five-classes-balanced"),
    pytest.param(5, None, None, True, id="five-classes"),
    pytest.param(5, None, None, False, id="five-classes-unclipped"),
]


@pytest.mark.parametrize(("T", "class_weight", "bias_corrected", "clip"), CASES)
@pytest.mark.parametrize("n", [37, 58])  # unlabeled counts of every remainder modulo ROWS
def test_scores_equal_the_blocked_pass_through_teach_and_undo(
    T, class_weight, bias_corrected, clip, n, lookahead_path
):
    X, y, classes = pool(n, T, seed=n)
    q = ARLS(
        sigma=SIGMA, lam=LAM, class_weight=class_weight, bias_corrected=bias_corrected, clip=clip
    ).start(X, classes)
    assert_equal_to_blocked(q)  # the empty start
    for c in classes:  # every class labeled: balanced weights are active
        q.teach(int(np.flatnonzero(y == c)[0]), c)
    for _ in range(ROWS + 1):
        assert_equal_to_blocked(q)
        i, _ = q.next_query()
        q.teach(i, y[i].item())
    assert_equal_to_blocked(q)
    for _ in range(3):
        q.undo()
        assert_equal_to_blocked(q)


def test_lookahead_on_copied_rows_equals_the_blocked_lookahead(lookahead_path):
    """``Lookahead.expected_risks`` (rows given as arrays, as focused ARLS passes them) on an
    unordered subset of candidates equals the reference's per-block computation."""
    X, y, classes = pool(45, 3, seed=4)
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight="balanced").start(X, classes)
    for i in (0, 5, 9, 13, 21, 30):
        q.teach(i, y[i].item())
    idx = np.array([44, 3, 17, 2, 40])
    rows = [D[idx] for D in q._Ds]
    got = Lookahead(q).expected_risks(idx, rows)
    ref = expected_risks(state_of(q), idx, rows)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10 * max(1.0, np.abs(ref).max()))


@pytest.mark.parametrize("clip", [True, False])
def test_columns_sharing_a_covariance_in_any_order_equal_the_reference(clip):
    """The multiclass pass reads column t's rows from ``Ds[group_of[t]]``: with two covariances
    shared by three columns out of order (0, 1, 0), and class weights, it equals the
    reference's per-block computation on the same state."""
    X, y, classes = pool(40, 3, seed=6)
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight="balanced", clip=clip).start(X, classes)
    for i in (0, 3, 8, 11, 19, 27, 33):
        q.teach(i, y[i].item())
    state = state_of(q)
    state["Ds"] = [q._Ds[2], q._Ds[1]]
    state["group_of"] = np.array([0, 1, 0])
    assert state["inv_w"].min() != state["inv_w"].max()  # the winner's weight matters
    fused_against_reference(state, np.setdiff1d(np.arange(40), q.labeled_), clip)


@pytest.mark.parametrize("class_weight", [None, {0: 1.0, 1: 2.0, 2: 0.5}])
def test_a_point_with_every_column_clipped_to_zero_counts_as_uniform(class_weight):
    """Where every hypothetical column is clipped to 0 the probabilities are uniform (1/T):
    predictions far below −1 on part of the pool make such points; the pass equals the
    reference there too."""
    X, y, classes = pool(36, 3, seed=8)
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, bias_corrected=True)
    q.start(X, classes)
    for i in (1, 4, 9, 16, 25):
        q.teach(i, y[i].item())
    state = state_of(q)
    m = state["m"].copy()
    m[::3] = -3.0  # every column of a third of the pool far below −1
    state["m"] = m
    idx = np.setdiff1d(np.arange(36), q.labeled_)
    ref = expected_risks(state, idx, [D[idx] for D in state["Ds"]])
    got = fused_expected_risks(
        state["Ds"], idx, idx, m, state["targets"], state["lam_w"], state["q"],
        state["group_of"], state["inv_w"], clip=True,
    )  # fmt: skip
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10 * max(1.0, np.abs(ref).max()))


@pytest.mark.parametrize("T", [2, 3])
def test_the_fused_pass_reads_every_covariance_entry_it_needs(T):
    """A covariance entry changed by hand changes the score of its candidate's row, and only
    that one: the pass reads each row in full and no other row."""
    X, y, classes = pool(30, T, seed=1)
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight="balanced").start(X, classes)
    for c in classes:
        q.teach(int(np.flatnonzero(y == c)[0]), c)
    before = q.scores()
    q._Ds[-1][7, 29] += 0.5  # one entry of candidate 7's row (not symmetrised on purpose)
    q._scores_cache = None
    after = q.scores()
    changed = np.flatnonzero(~np.isclose(after, before, rtol=0, atol=1e-12) & ~np.isnan(before))
    assert changed.tolist() == [7]


@pytest.mark.parametrize("class_weight", [{-1: 1.0, 1: 4.0}, {-1: 3.0, 1: 0.5}, None])
def test_binary_hypothetical_values_exactly_zero_follow_the_reference(class_weight):
    """A far cluster with no label: its predictions and its covariances with the labeled side
    underflow to exactly 0, so every hypothetical ``f_j`` there is exactly 0, where the
    weighted risk charges the negative class's weight (``f_j > 0`` is false). The binary pass,
    with its groups of rows, equals the reference on the whole pool."""
    rng = np.random.default_rng(11)
    X = np.vstack([rng.normal(size=(30, 2)), 500.0 + rng.normal(size=(11, 2))])
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0.1, 1, -1)
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight, bias_corrected=True)
    q.start(X, [-1, 1])
    q.teach_many([0, 1, 2, 3, 4, 5], y[:6].tolist())
    assert np.all(q._m[30:] == 0.0) and np.all(q._Ds[0][:30, 30:] == 0.0)
    assert_equal_to_blocked(q)


@pytest.mark.parametrize("T", [2, 3, 4, 7, 8, 9])
@pytest.mark.parametrize("clip", [True, False])
def test_expectation_weights_equal_the_direct_probabilities(T, clip):
    """The expectation weights of the lookahead (``class_probabilities``, clipped and
    normalised per point or raw; uniform where every column is clipped to 0) equal the direct
    per-point computation of docs/mathematics.md §1, for few classes and for many."""
    X, y, classes = pool(60, T, seed=T)
    q = ARLS(sigma=SIGMA, lam=LAM, clip=clip).start(X, classes)
    q.teach_many(list(range(0, 60, 4)), y[0:60:4].tolist())
    q._m[::5] = -3.0  # every column clipped to 0 on some points
    ref = naive_proba(q._m, clip, T)
    got = q.class_probabilities()
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-14)
    assert_equal_to_blocked(q)


def assert_terms_equal(got: tuple, want: tuple) -> None:
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("class_weight", ["balanced", None])
def test_lookahead_terms_follow_the_weights_through_teach_undo_and_new_parameters(T, class_weight):
    """The lookahead terms are kept while the weights stay the same: after every teach (the
    balanced weights change with each label), undo, a new λ or risk rule (with and without a
    rebuild) they equal the terms of a fresh strategy on the same labels, and so do the
    scores."""
    X, y, classes = pool(40, T, seed=3)
    q = ARLS(sigma=SIGMA, lam=LAM, class_weight=class_weight).start(X, classes)

    def check():
        fresh = ARLS(**q.get_params()).start(X, classes)
        fresh.teach_many(list(q.labeled_), list(q.labels_))
        assert_terms_equal(q.lookahead_terms(), fresh.lookahead_terms())
        ref = blocked_arls_scores(state_of(fresh))
        np.testing.assert_allclose(q.scores(), ref, rtol=0, atol=1e-10, equal_nan=True)

    check()
    for i in (0, 1, 2, 3, 5, 8, 13):
        q.teach(i, y[i].item())
        check()
    q.undo()
    check()
    q.set_params(bias_corrected=class_weight is None)  # the risk rule, no rebuild
    q._scores_cache = None
    check()
    q.set_params(lam=2.0 * LAM)
    q.rebuild()
    check()
    with pytest.raises(ValueError):
        q.lookahead_terms()[1][0, 0] = 1.0  # shared by the queries: read-only


def fused_against_reference(state: dict, idx: np.ndarray, clip: bool) -> None:
    ref = expected_risks(state, idx, [D[idx] for D in state["Ds"]])
    got = fused_expected_risks(
        state["Ds"], idx, idx, state["m"], state["targets"], state["lam_w"], state["q"],
        state["group_of"], state["inv_w"], clip=clip,
    )  # fmt: skip
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-10 * max(1.0, np.abs(ref).max()))


def unweighted_state(T: int, clip: bool, seed: int = 5):
    X, y, classes = pool(48, T, seed=seed)
    q = ARLS(sigma=SIGMA, lam=LAM, clip=clip).start(X, classes)
    q.teach_many(list(range(0, 48, 5)), y[0:48:5].tolist())
    state = state_of(q)
    assert state["inv_w"].min() == state["inv_w"].max()
    return state, np.setdiff1d(np.arange(48), q.labeled_)


@pytest.mark.parametrize("T", [3, 4, 5])
def test_arls_terms_take_the_one_vs_all_pass_and_others_do_not(T):
    """ARLS's own terms (one-vs-all targets, one λ/a per column and non-own label) take the
    one-sweep pass, with and without class weights; terms where a column's target or λ/a
    differs between two labels other than its own do not."""
    state, _ = unweighted_state(T, True)
    targets, lam_w = state["targets"], state["lam_w"]
    assert _is_one_vs_all(targets, lam_w)
    X, _, classes = pool(40, T)
    weighted = ARLS(sigma=SIGMA, lam=LAM, class_weight="balanced").start(X, classes)
    _, w_lam, w_targets, _ = weighted.lookahead_terms()
    assert _is_one_vs_all(w_targets, w_lam)
    lam = lam_w.copy()
    lam[0, T - 1] *= 1.5  # column 0 under the last label
    assert not _is_one_vs_all(targets, lam)
    lam = lam_w.copy()
    lam[1, 1] *= 1.5  # a column's own label may differ
    assert _is_one_vs_all(targets, lam)
    tg = targets.copy()
    tg[T - 1, 0] = 0.25
    assert not _is_one_vs_all(tg, lam_w)
    assert not _is_one_vs_all(targets[:, : T - 1], lam_w[: T - 1])  # fewer columns than labels


# T = 4 left out: with T = 5 two labels, with T = 4 one, sit untouched between column 0's
# changed ones; as test_unweighted_one_sweep_pass_reads_each_columns_own_covariance, 3 and 5
@pytest.mark.parametrize("T", [3, 5])
@pytest.mark.parametrize("clip", [True, False])
def test_unweighted_terms_outside_the_one_vs_all_form_equal_the_reference(T, clip):
    """Unweighted, but with λ/a of column 0 differing between two of the other labels, or a
    target that is not one-vs-all, or each column's own λ/a changed: the pass equals the
    reference (the one-sweep pass would take column 0's first other label's value for all)."""
    state, idx = unweighted_state(T, clip)
    lam = state["lam_w"].copy()
    lam[0, T - 1] = 4.0 * lam[0, 1]
    fused_against_reference({**state, "lam_w": lam}, idx, clip)
    targets = state["targets"].copy()
    targets[T - 1, 0] = 0.5
    fused_against_reference({**state, "targets": targets}, idx, clip)
    lam = state["lam_w"].copy()
    lam[np.arange(T), np.arange(T)] *= np.linspace(0.5, 3.0, T)  # one-vs-all still
    fused_against_reference({**state, "lam_w": lam}, idx, clip)


@pytest.mark.parametrize("T", [3, 5])
@pytest.mark.parametrize("clip", [True, False])
def test_unweighted_one_sweep_pass_reads_each_columns_own_covariance(T, clip):
    """Unweighted with the columns spread over two covariances out of order: each column's
    values come from its own covariance (one group, the pool's, and several equal the
    reference alike)."""
    state, idx = unweighted_state(T, clip, seed=9)
    fused_against_reference(state, idx, clip)  # one group
    D = state["Ds"][0]
    other = np.exp(-0.5 * (D - D.mean()) ** 2)  # symmetric, another covariance
    state["Ds"] = [D, other]
    state["group_of"] = np.arange(T) % 2
    fused_against_reference(state, idx, clip)


@pytest.mark.parametrize("clip", [True, False])
def test_tied_columns_equal_the_reference(clip):
    """Two columns with equal predictions and one covariance: every point's two values tie
    under the labels other than theirs (the largest of the others is then their common
    value), and many clip to the same 0 or 1."""
    state, idx = unweighted_state(4, clip, seed=2)
    m = state["m"].copy()
    m[:, 2] = m[:, 0]
    m[::4] = np.array([1.5, -0.2, 1.5, -2.0])  # ties at 1 after clipping
    state["m"] = m
    fused_against_reference(state, idx, clip)


def test_large_pools_take_the_compiled_pass_whatever_the_lookahead_size(monkeypatch):
    """From :data:`~rlscore.query.arls.thesis.COMPILED_LOOKAHEAD_POOL` points on (issue 36) a
    lookahead small enough for numpy takes the compiled pass, with the blocked reference's
    scores."""
    calls = []

    def counting(*args, **kwargs):
        calls.append(1)
        return fused_expected_risks(*args, **kwargs)

    monkeypatch.setattr(arls, "NUMPY_LOOKAHEAD", 1 << 62)
    monkeypatch.setattr(arls, "COMPILED_LOOKAHEAD_POOL", 60)
    monkeypatch.setattr("rlscore.query.arls.fused_lookahead.fused_expected_risks", counting)
    X, y, classes = pool(60, 3)
    q = ARLS(sigma=SIGMA, lam=LAM).start(X, classes)
    q.teach_many([0, 1, 2, 3, 4, 5], [y[i] for i in range(6)])
    assert_equal_to_blocked(q)
    assert calls


@pytest.mark.parametrize("T", [2, 3])
def test_read_only_inputs_give_the_same_scores_without_a_new_compilation(T):
    """numba compiles a kernel per argument type, and read-only is part of an array's type: a
    caller's read-only weights and targets (small arrays a state may keep frozen) must reuse
    the kernel compiled for writable ones (each compilation costs seconds) and score the
    same."""
    state, idx = unweighted_state(T, clip=True)
    kernel = fused_lookahead._binary if T == 2 else fused_lookahead._multiclass

    def scores(frozen: bool) -> np.ndarray:
        args = {k: state[k] for k in ("m", "targets", "lam_w", "q", "inv_w")}
        for k in ("targets", "lam_w", "inv_w"):
            args[k] = np.array(args[k])  # a writable copy
            args[k].setflags(write=not frozen)
        return fused_expected_risks(
            state["Ds"], idx, idx, args["m"], args["targets"], args["lam_w"], args["q"],
            state["group_of"], args["inv_w"], clip=True,
        )  # fmt: skip

    writable = scores(frozen=False)
    compiled = len(kernel.signatures)
    np.testing.assert_array_equal(scores(frozen=True), writable)
    assert len(kernel.signatures) == compiled
