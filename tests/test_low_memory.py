"""The low-memory path of the baselines: only the kernel columns of the labeled points.

References: the dense path (the pool kernel passed explicitly), and an independent one —
scikit-learn's kernels and ``KernelRidge`` (which solves ``(K_LL + λA⁻¹)c = y`` with sample
weights ``A``, docs/mathematics.md §3) per one-vs-all column, with the docs/mathematics.md §1
weights, probabilities and
risk written out in ``test_arls_reference.py``. Then pools far beyond an n × n kernel: a
200 000-point pool in tens of MB, and the session's memory check naming what fits.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from reference.arls import naive_risk, spec_weights
from reference.kernel_ridge import reference_f, reference_scores, sk_kernel

import rlscore.core.conventions.memory_budget
import rlscore.core.kernels.functions
import rlscore.query.rls_state.on_kernel
from rlscore.data.projects.project import Project
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.upload.table_reading import read_table
from rlscore.query import STRATEGIES, make_strategy
from rlscore.sessions import LabelingSession, PoolTooLargeError
from rlscore.sessions.state.engine import KernelCache, check_pool_size
from rlscore.sessions.state.settings import engine_settings, project_settings, save_project_settings
from rlscore.storage import open_store

SIGMA, LAM, DEGREE = 1.3, 0.3, 2
BASELINES = ("random", "uncertainty", "entropy")
GiB = 2**30


# -- (a) low-memory = dense = reference ---------------------------------------------------------
def small_pool(T, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(45, 2)) * 1.5
    score = X[:, 0] - 0.4 * X[:, 1]
    y = np.where(score > 0.3, 1, -1) if T == 2 else np.digitize(score, [-0.8, 0.9])
    return X, y, ([-1, 1] if T == 2 else [0, 1, 2])


def check_same(low, dense, name, X, Z, kernel, class_weight):
    """Both paths against the reference: decision values (pool and new points), scores,
    estimated risk and the next query (an argmin of the reference scores)."""
    assert low.labeled_ == dense.labeled_ and low.labels_ == dense.labels_
    classes, lam, sigma = list(low.classes_.tolist()), low.lam, low.sigma
    args = (low.labeled_, low.labels_, classes, kernel, sigma, lam, class_weight, low.degree)
    f = reference_f(X, X, *args)
    f_new = reference_f(X, Z, *args)
    T = len(classes)
    idx = [classes.index(v) for v in low.labels_]
    _, w = spec_weights(idx, classes, class_weight)
    inv_w = np.ones(T) if class_weight is None else 1.0 / w
    risk = naive_risk(f, inv_w, True, T)
    scores = reference_scores(name, f, low.labeled_, low.seed if name == "random" else 0, len(X))
    best = np.nanmin(scores)
    for q in (low, dense):
        np.testing.assert_allclose(q.decision_function().reshape(f.shape), f, rtol=0, atol=1e-10)
        # new points go through c = W(y − m_L)/λ (eq. 3.54): y − m_L cancels about cond(G)·ε
        # (~1e-9 for the cubic kernel at λ = 0.05), on either path
        np.testing.assert_allclose(
            q.decision_function_at(Z).reshape(f_new.shape), f_new, rtol=1e-8, atol=1e-8
        )
        assert q.estimated_risk() == pytest.approx(risk, rel=0, abs=1e-10)
        np.testing.assert_allclose(q.scores(), scores, rtol=0, atol=1e-10)
        i, s = q.next_query()
        assert s == pytest.approx(best, rel=0, abs=1e-10) and scores[i] <= best + 1e-10
    np.testing.assert_array_equal(low.predict(), dense.predict())


@pytest.mark.parametrize("name", BASELINES)
@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("kernel", ["rbf", "linear", "polynomial"])
@pytest.mark.parametrize("weights", [None, "balanced", "dict"])
def test_low_memory_path_equals_dense_path_and_reference(name, T, kernel, weights):
    X, y, classes = small_pool(T)
    Z = np.random.default_rng(9).normal(size=(7, 2))
    class_weight = {classes[0]: 3.0, classes[-1]: 0.5} if weights == "dict" else weights
    params = {"kernel": kernel, "sigma": SIGMA, "degree": DEGREE, "lam": LAM}
    low = make_strategy(name, class_weight=class_weight, **params).start(X, classes)
    dense = make_strategy(name, class_weight=class_weight, **params)
    dense.start(X, classes, K=sk_kernel(X, X, kernel, SIGMA))
    assert not low.needs_pool_kernel()

    def check():
        check_same(low, dense, name, X, Z, kernel, class_weight)

    check()
    for _ in range(9):  # the low-memory path's own queries, taught to both
        i, _ = low.next_query()
        low.teach(i, y[i].item())
        dense.teach(i, y[i].item())
        check()
    for q in (low, dense):
        q.undo()
    check()
    middle = low.labeled_[2]
    for q in (low, dense):
        q.forget(middle)
    check()
    for q in (low, dense):  # λ: the dense path keeps the kernel it was given
        q.set_params(lam=0.05)
        q.rebuild()
    check()
    K = sk_kernel(X, X, kernel, 0.8, degree=3)
    for q in (low, dense):
        q.set_params(sigma=0.8, degree=3)
    low.rebuild()
    dense.rebuild(K=K)
    check()
    labeled, labels = list(low.labeled_), list(low.labels_)
    low.start(X, classes)  # a whole session replayed at once
    dense.start(X, classes, K=K)
    for q in (low, dense):
        q.teach_many(labeled, labels)
    check()


def test_memory_follows_the_labels():
    """One kernel column (8 n bytes) per label, freed when labels are removed."""
    n = 20_000
    X = np.random.default_rng(5).normal(size=(n, 2))
    column = 8 * n
    tracemalloc.start()
    try:
        q = make_strategy("uncertainty", sigma=SIGMA, lam=LAM).start(X, [-1, 1])
        started = tracemalloc.get_traced_memory()[0]
        for i in range(40):
            q.teach(i, 1 if X[i, 0] > 0 else -1)
        taught = tracemalloc.get_traced_memory()[0]
        for _ in range(35):
            q.undo()
        undone = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert 40 * column <= taught - started <= 60 * column  # columns come in blocks of 16
    assert taught - undone >= 30 * column
    with pytest.raises(AttributeError, match="does not keep the covariance"):
        _ = q.covariance_


def test_graph_kernels_and_arls_keep_the_pool_kernel():
    X, _, classes = small_pool(2)
    assert make_strategy("uncertainty", kernel="graph").needs_pool_kernel()
    assert make_strategy("arls").needs_pool_kernel()
    cache = KernelCache()
    assert cache.get(make_strategy("entropy", sigma=SIGMA), X) is None
    assert cache.get(make_strategy("uncertainty", kernel="graph"), X).shape == (len(X),) * 2
    K = cache.get(make_strategy("arls", sigma=SIGMA), X)
    np.testing.assert_allclose(K, sk_kernel(X, X, "rbf", SIGMA), rtol=0, atol=1e-12)
    # a low-memory strategy is never given the cached matrix (same kernel parameters)
    assert cache.get(make_strategy("random", sigma=SIGMA), X) is None


def test_bad_kernel_parameters_are_refused_at_start():
    X, _, classes = small_pool(2)
    with pytest.raises(ValueError, match="degree"):
        make_strategy("uncertainty", kernel="polynomial", degree=0).start(X, classes)
    with pytest.raises(ValueError, match="unknown kernel"):
        make_strategy("uncertainty", kernel="nope").start(X, classes)


# -- (b) a 200 000-point pool ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["random", "uncertainty"])
def test_a_200k_pool_fits_in_tens_of_megabytes(name, monkeypatch):
    """Memory and work are counted, not timed: a peak of tens of megabytes, and one kernel
    column (n entries) per label — kernel entries computed are counted at the RBF kernel."""
    n = 200_000  # an n × n kernel would be 320 GB
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1)
    entries = []
    # the low-memory path computes its columns from the pool's kept norms (issue 25)
    columns = rlscore.query.rls_state.on_kernel.checked_kernel_matrix

    def counting_rbf(X, Z, **params):
        K = columns(X, Z, **params)
        entries.append(K.size)
        return K

    monkeypatch.setattr(rlscore.query.rls_state.on_kernel, "checked_kernel_matrix", counting_rbf)
    tracemalloc.start()
    try:
        q = make_strategy(name, sigma=1.0, lam=0.5).start(X, [-1, 1])
        for _ in range(20):
            i, _ = q.next_query()
            q.teach(i, int(y[i]))
        i, _ = q.next_query()
        risk = q.estimated_risk()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200e6, f"peak {peak / 1e6:.0f} MB"
    labels = len(q.labeled_)
    assert labels * n <= sum(entries) <= (labels + 1) * n, (sum(entries), labels)
    assert i not in q.labeled_ and 0.0 < risk < n / 2
    # the predictions on a sample of the pool against the reference
    sample = rng.choice(n, 300, replace=False)
    f = reference_f(X, X[sample], q.labeled_, q.labels_, [-1, 1], "rbf", 1.0, 0.5, None)
    np.testing.assert_allclose(q.decision_function()[sample], f[:, 0], rtol=0, atol=1e-10)


# -- (c) the memory check names the strategies that fit ----------------------------------------
@pytest.fixture
def sixteen_gib(monkeypatch):
    monkeypatch.setattr(
        rlscore.core.conventions.memory_budget, "available_memory_bytes", lambda: 16 * GiB
    )


def advised(message: str) -> set[str]:
    """The strategy names the refusal advises."""
    assert "fit this pool" in message
    tail = message.split("fit this pool", 1)[1]
    return {name for name in STRATEGIES if f"'{name}'" in tail}


def test_baselines_accept_a_million_points(sixteen_gib):
    for name in BASELINES:
        engine = make_strategy(name, sigma=1.0)
        assert engine.memory_bytes(10**6) < 5 * GiB  # O(n): a 1 000 000 × 1 000 000 K is 7 TiB
        check_pool_size(engine, 10**6, name)
        check_pool_size(engine, 200_000, name)


def test_arls_refusal_names_the_strategies_that_fit(sixteen_gib):
    with pytest.raises(PoolTooLargeError, match=r"pool too large for 'arls'.*GiB") as err:
        check_pool_size(make_strategy("arls", sigma=1.0), 200_000, "arls")
    # the low-rank form of ARLS keeps n × m features instead of n × n matrices
    # LGC keeps a sparse kNN graph (O(n k)) and focused ARLS the kernel columns of the labeled
    # points and its candidates: they fit too
    assert advised(str(err.value)) == set(BASELINES) | {"arls-lowrank", "lgc", "arls-focused"}
    for name in advised(str(err.value)):  # never advise a strategy that is refused too
        check_pool_size(make_strategy(name, sigma=1.0), 200_000, name)


def test_graph_kernel_refusal_advises_a_vector_kernel(sixteen_gib, monkeypatch):
    # LGC is a graph strategy that fits any pool: it is advised first …
    with pytest.raises(PoolTooLargeError, match="with kernel 'graph'") as err:
        check_pool_size(make_strategy("uncertainty", kernel="graph"), 200_000, "uncertainty")
    assert advised(str(err.value)) == {"lgc"}
    # … and without it, a vector kernel
    monkeypatch.delitem(STRATEGIES, "lgc")
    with pytest.raises(PoolTooLargeError, match="vector kernel") as err:
        check_pool_size(make_strategy("uncertainty", kernel="graph"), 200_000, "uncertainty")
    assert advised(str(err.value)) == {"random", "entropy", "arls-lowrank", "arls-focused"}


def test_nothing_fits_advises_a_subsample(monkeypatch):
    monkeypatch.setattr(
        rlscore.core.conventions.memory_budget, "available_memory_bytes", lambda: 10**6
    )
    with pytest.raises(PoolTooLargeError, match="no strategy fits.*subsample"):
        check_pool_size(make_strategy("random"), 200_000, "random")


def test_a_session_labels_a_200k_pool_with_uncertainty(tmp_path):
    n = 200_000
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 2))
    truth = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    store = open_store(tmp_path / "x.sqlite3")
    store.create_project(
        Project(
            name="big",
            X=X,
            feature_names=["a", "b"],
            ids=[f"p{i}" for i in range(n)],
            truth=truth,
            classes=[-1, 1],
            meta={"sigma": 1.0, "lam": 0.5},
        )
    )
    s = LabelingSession(store, "big", "uncertainty", snapshots=False)
    for _ in range(6):
        i, _ = s.query()
        s.label(i, int(truth[i]))
    s.undo()
    i, _ = s.query()
    assert s.n_labeled == 5 and i not in s.labels
    assert not s.engine.needs_pool_kernel()
    labeled = list(s.labels)
    sample = rng.choice(n, 300, replace=False)
    f = reference_f(
        X, X[sample], labeled, [s.labels[j] for j in labeled], [-1, 1], "rbf", 1.0, 0.5, None
    )
    np.testing.assert_allclose(s.engine.decision_function()[sample], f[:, 0], rtol=0, atol=1e-10)


@pytest.mark.slow
def test_a_million_row_upload_becomes_a_low_rank_session_that_labels(tmp_path):
    # the Data page's path: CSV bytes → table → project → database → the project's settings
    n = 1_000_000
    rng = np.random.default_rng(2)
    X = rng.normal(size=(n, 3)).round(4)
    lines = "\n".join(f"{a},{b},{c},{'yes' if a + b > 0 else 'no'}" for a, b, c in X.tolist())
    table = read_table(("x0,x1,x2,label\n" + lines).encode(), "million.csv")
    project = project_from_table(table, "million", truth_column="label")
    store = open_store(tmp_path / "x.sqlite3")
    store.create_project(project)
    settings = project_settings(store, "million")
    assert settings["strategy"] == "arls-lowrank"  # switched by itself above 10 000 points
    save_project_settings(store, "million", {"n_landmarks": 40, "risk_sample": 5000})
    settings = project_settings(store, "million")
    s = LabelingSession(
        store, "million", settings["strategy"], sigma=1.0, lam=0.5, snapshots=False,
        **engine_settings(settings),
    )  # fmt: skip
    assert s.engine.features_.shape == (n, 40) and not s.engine.needs_pool_kernel()
    for _ in range(4):
        i, _ = s.query(annotator="ada")
        s.label(i, project.truth[i], annotator="ada", seen=s.last_event_id)
    assert s.n_labeled == 4
    assert np.isfinite(s.engine.risk_standard_error_)  # the risk was estimated on a sample
