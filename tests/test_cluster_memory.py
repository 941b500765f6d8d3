"""The app server's memory with a cluster-backed project (issue 26): the session's history
keeps a classifier state per label and counts the changed predictions on the workers, the
pool's predicted classes (when asked) come from the workers as one byte a point, and a
labeling click never builds an n-vector of the pool on the app server.

The reference is the in-memory engine on the features the test computes itself (the Nyström
map of the session's kernel on the documented landmark rows,
``default_rng(random_state).choice(n, m, replace=False)``): its ``decision_function`` coded
by :func:`~rlscore.sessions.views.diagnostics.predicted_codes`, and an in-memory
:class:`~rlscore.sessions.LabelingSession` on those features with the linear kernel (the
same RLS), whose history the cluster-backed session's must equal.
"""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from rlscore.core.kernels.lowrank import LowRankKernel  # noqa: E402
from rlscore.core.rls.confidence import predicted_index  # noqa: E402
from rlscore.data.cluster.parquet_pool import SCHEDULER_ENV, write_pool  # noqa: E402
from rlscore.data.projects.project import Project  # noqa: E402
from rlscore.query import LowRankARLS, QueryStrategy  # noqa: E402
from rlscore.query.cluster.block_passes import (  # noqa: E402
    BlockPredictions,
    block_changed,
    block_predicted_positions,
)
from rlscore.query.cluster.block_query import BlockQuery  # noqa: E402
from rlscore.sessions import LabelingSession  # noqa: E402
from rlscore.sessions.cluster.engine import ClusterEngine  # noqa: E402
from rlscore.sessions.cluster.plot_sample import sample_plot  # noqa: E402
from rlscore.sessions.cluster.projects import create_cluster_project  # noqa: E402
from rlscore.sessions.stopping.stopping_view import stopping_view  # noqa: E402
from rlscore.sessions.views.diagnostics import class_codes, predicted_codes  # noqa: E402
from rlscore.sessions.views.label_page import LearnerFigures, PoolPlotState, QueryPanelState  # noqa: E402
from rlscore.storage import open_store  # noqa: E402

N, D, M = 12_000, 4, 40
SIGMA, LAM, CANDIDATES, RISK = 2.0, 0.5, 30, 2000
#: the in-memory and block decision values agree to ~1e-13: a point this close to a class
#: boundary could be predicted either way by either engine, so the test checks there is none
NEAR_TIE = 1e-9

TWO = ["neg", "pos"]
THREE = ["oak", "ash", "elm"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Rows of three overlapping groups, their group, the Parquet folder and the features."""
    rng = np.random.default_rng(2626)
    y = rng.integers(0, 3, N)
    centers = np.array([[0.0, 0, 0, 0], [1.6, 0, 1.0, 0], [0, 1.6, 0, 1.0]])
    X = rng.normal(size=(N, D)) + centers[y]
    folder = tmp_path_factory.mktemp("cluster_memory")
    write_pool(X, folder, rows_per_file=3000)
    rows = np.sort(np.random.default_rng(0).choice(N, M, replace=False))
    fmap = LowRankKernel(kernel="rbf", sigma=SIGMA, n_landmarks=M, landmarks="uniform")
    return X, y, str(folder), fmap.fit(X[rows]).transform(X)


def _truth(y: np.ndarray, classes: list[str]) -> np.ndarray:
    """Two classes: the first group against the others; three: the groups."""
    return np.asarray(classes)[np.minimum(y, len(classes) - 1)]


@pytest.fixture
def store(tmp_path):
    s = open_store(str(tmp_path / "labels.db"))
    yield s
    s.close()


def _cluster_session(store, folder, classes, **params):
    create_cluster_project(
        store, "big", folder, classes, sigma=SIGMA, lam=LAM, n_landmarks=M,
        candidates=CANDIDATES, risk_sample=RISK,
    )  # fmt: skip
    return LabelingSession(
        store, "big", strategy="arls-lowrank", sigma=SIGMA, lam=LAM, n_landmarks=M,
        candidates=CANDIDATES, risk_sample=RISK, snapshots=False, **params,
    )  # fmt: skip


def _memory_session(store, phi, classes, **params):
    ids = [str(i) for i in range(N)]
    names = [f"phi{j}" for j in range(phi.shape[1])]
    store.create_project(Project("mem", phi, names, ids, None, classes, {"lam": LAM}))
    return LabelingSession(
        store, "mem", strategy="arls-lowrank", kernel="linear", lam=LAM,
        candidates=CANDIDATES, risk_sample=RISK, snapshots=False, **params,
    )  # fmt: skip


def _reference(phi, classes):
    return LowRankARLS(kernel="linear", lam=LAM, candidates=CANDIDATES, risk_sample=RISK).start(
        phi, classes
    )


def _margin(F: np.ndarray) -> np.ndarray:
    """Distance of each point's decision values from a change of predicted class."""
    if F.ndim == 1:
        return np.abs(F)
    top = np.sort(F, axis=1)
    return top[:, -1] - top[:, -2]


# -- the block pass ----------------------------------------------------------------------------
@pytest.mark.parametrize("T", [1, 3, 4])
def test_the_block_pass_is_the_decision_rule_ties_included(T):
    rng = np.random.default_rng(T)
    phi = rng.normal(size=(50, 3))
    coef = rng.normal(size=(3, T))
    phi[:10] = 0.0  # zero decision values: the two-class sign rule and the ties
    phi[10:20, :] = phi[20:30, :]
    if T > 1:
        coef[:, 1] = coef[:, 0]  # the first two columns tie everywhere: the first one wins
    lookup = np.array([2, 0, 1, 3][: max(T, 2)], dtype=np.uint8)
    got = block_predicted_positions(phi, 0, coef, None, lookup)
    F = phi @ coef
    f = F[:, 0] if T == 1 else F
    # the rule written out: positive for one column, else the first largest
    want = (f > 0).astype(int) if T == 1 else np.array([int(np.argmax(row)) for row in f])
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, lookup[want])
    if T == 1:
        assert (got[:10] == lookup[0]).all()  # f = 0 is the first class
    else:
        assert not (got == lookup[1]).any()  # the tied second column never wins


def test_the_client_gets_one_byte_a_point_in_block_order():
    rng = np.random.default_rng(5)
    phi = rng.normal(size=(1000, 6))
    blocks = [(phi[a:b], a) for a, b in ((0, 300), (300, 310), (310, 1000))]

    def map_blocks(fn, *args):
        return [fn(block, offset, *args) for block, offset in blocks]

    y = np.array(THREE)[rng.integers(0, 3, 1000)]
    q = BlockQuery(map_blocks, 1000, THREE, "arls-lowrank", lam=LAM)
    ref = _reference(phi, THREE)
    np.testing.assert_array_equal(q.predicted_positions(), np.zeros(1000))  # ties: the first
    picks = rng.choice(1000, 40, replace=False)
    q.teach_many(picks, y[picks])
    ref.teach_many(picks, y[picks])
    positions = q.predicted_positions()
    assert positions.dtype == np.uint8 and positions.nbytes == 1000
    F = ref.decision_function()
    assert _margin(F).min() > NEAR_TIE
    np.testing.assert_array_equal(positions, predicted_index(F))


def _blocks(phi: np.ndarray, cuts=(300, 310)):
    """``map_blocks`` over row blocks of ``phi`` in this process (a cluster's contract)."""
    edges = [0, *cuts, phi.shape[0]]
    blocks = [(phi[a:b], a) for a, b in zip(edges[:-1], edges[1:], strict=True)]

    def map_blocks(fn, *args):
        return [fn(block, offset, *args) for block, offset in blocks]

    return map_blocks


@pytest.mark.parametrize("T", [1, 3])
def test_the_changed_predictions_pass_counts_the_rules_differences(T):
    rng = np.random.default_rng(10 + T)
    phi = rng.normal(size=(1000, 5))
    phi[:50] = 0.0  # zero decision values for the state without offsets: the tie rule
    coef, former = rng.normal(size=(5, T)), rng.normal(size=(5, T))
    offsets = rng.normal(size=T)
    now = BlockPredictions(_blocks(phi), 1000, coef, offsets)
    before = BlockPredictions(_blocks(phi), 1000, former, None)
    former[:] = 0.0  # the state is copied: a later change of the caller's array plays no part
    F, G = phi @ coef + offsets, phi @ before.coef

    def rule(F):  # written out: positive for one column, else the first largest
        return (F[:, 0] > 0).astype(int) if T == 1 else np.array([int(np.argmax(r)) for r in F])

    want = int(np.count_nonzero(rule(F) != rule(G)))
    assert 0 < want < 1000
    assert now.count_changed(before) == want == before.count_changed(now)
    assert now.count_changed(now) == 0
    assert block_changed(phi[:10], 0, coef, offsets, coef, offsets) == 0


def test_a_state_per_label_counts_the_in_memory_engines_changes():
    rng = np.random.default_rng(8)
    phi = rng.normal(size=(1000, 6))
    y = np.array(THREE)[rng.integers(0, 3, 1000)]
    q = BlockQuery(_blocks(phi), 1000, THREE, "arls-lowrank", lam=LAM)
    ref = _reference(phi, THREE)
    states, codes = [q.pool_predictions()], [class_codes(ref.predict(), THREE)]
    picks = rng.choice(1000, 25, replace=False)
    for part in np.array_split(picks, 5):
        q.teach_many(part, y[part])
        ref.teach_many(part, y[part])
        assert _margin(ref.decision_function()).min() > NEAR_TIE
        states.append(q.pool_predictions())
        codes.append(class_codes(ref.predict(), THREE))
    counts = [[b.count_changed(a) for a in states] for b in states]
    want = [[int(np.count_nonzero(cb != ca)) for ca in codes] for cb in codes]
    assert counts == want
    assert any(c for row in counts for c in row)


# -- the engine and the history on a LocalCluster ----------------------------------------------
@pytest.mark.parametrize("classes", [TWO, THREE], ids=["two", "three"])
def test_positions_equal_the_in_memory_predicted_codes(
    store, data, scheduler, monkeypatch, classes
):
    X, y, folder, phi = data
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    session = _cluster_session(store, folder, classes)
    engine, ref = session.engine, _reference(phi, classes)
    truth = _truth(y, classes)
    # before any label every decision value is 0: the tie rule decides every point
    np.testing.assert_array_equal(engine.predicted_positions(), predicted_codes(ref, classes))
    assert isinstance(predicted_codes(engine, classes), BlockPredictions)  # the history's
    rng = np.random.default_rng(len(classes))
    for k in range(3):
        picks = [int(i) for i in rng.choice(N, 4 + 3 * k, replace=False) if i not in session.labels]
        for i in picks:
            session.label(i, truth[i])
        ref.teach_many(picks, truth[picks])
        F = ref.decision_function()
        assert _margin(F).min() > NEAR_TIE
        positions = engine.predicted_positions()
        assert positions.dtype == np.uint8 and positions.shape == (N,)
        np.testing.assert_array_equal(positions, predicted_index(F))
        np.testing.assert_array_equal(
            engine.classes_[positions], ref.predict()
        )  # the classes themselves, in the engine's order
        assert engine.predicted_positions() is positions  # cached until the labels change


def test_the_history_equals_an_in_memory_sessions(store, data, scheduler, monkeypatch):
    X, y, folder, phi = data
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    truth = _truth(y, THREE)
    cluster = _cluster_session(store, folder, THREE, stop_window=4)
    memory = _memory_session(store, phi, THREE, stop_window=4)
    # labels, undos (one, then three in a row), a relabeled point and labels after them
    steps = ["label"] * 8 + ["undo"] + ["label"] * 3 + ["undo"] * 3 + ["relabel"] + ["label"] * 3
    for step in steps:
        if step == "undo":
            cluster.undo()  # a rewound history
            memory.undo()
        elif step == "relabel":  # the latest point given another class: an entry replaced
            i = max(cluster.labels, key=lambda p: list(cluster.labels).index(p))
            other = next(c for c in THREE if c != cluster.labels[i])
            cluster.label(i, other)
            memory.label(i, other)
        else:
            i, _ = cluster.query()
            assert memory.query()[0] == i
            cluster.label(i, truth[i])
            memory.label(i, truth[i])
        assert cluster.change_history == memory.change_history, step
        a, b = cluster.stopping(), memory.stopping()
        for key in ("prediction_change", "change_history", "missing_classes", "stable", "message"):
            assert a[key] == b[key], (step, key)
    assert cluster.n_labeled == memory.n_labeled == 10
    assert sum(c > 0 for c in cluster.change_history[1:]) >= 3  # the figures say something
    np.testing.assert_allclose(cluster.risk_history, memory.risk_history, rtol=1e-10)
    assert cluster.stopping()["prediction_change"] is not None
    # the learner's figures as the Label page draws them (the risks to rounding)
    fa, fb = LearnerFigures.of(cluster), LearnerFigures.of(memory)
    np.testing.assert_allclose(fa.risk_history, fb.risk_history, rtol=1e-10)
    assert {**vars(fa), "risk_history": None} == {**vars(fb), "risk_history": None}


def test_a_labeling_click_reads_no_whole_pool_values(store, data, scheduler, monkeypatch):
    X, y, folder, phi = data
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    truth = _truth(y, TWO)
    calls: list[str] = []
    # predict and predict_proba are the base class's, on decision_function: counting there
    # sees them without replacing them (a replaced predict would change the callers' path)
    assert ClusterEngine.predict is QueryStrategy.predict
    assert ClusterEngine.predict_proba is QueryStrategy.predict_proba
    original = ClusterEngine.decision_function

    def whole_pool(self):
        calls.append("decision_function")
        return original(self)

    monkeypatch.setattr(ClusterEngine, "decision_function", whole_pool)
    original_pass = BlockQuery.decision_values

    def pool_pass(self):
        calls.append("decision_values")
        return original_pass(self)

    monkeypatch.setattr(BlockQuery, "decision_values", pool_pass)
    original_scores = ClusterEngine.scores

    def pool_scores(self):  # an n-vector of NaN but the pick: the hand-out asks one score
        calls.append("scores")
        return original_scores(self)

    monkeypatch.setattr(ClusterEngine, "scores", pool_scores)
    original_positions = BlockQuery.predicted_positions

    def pool_positions(self):  # n bytes: no click reads them any more (the history counts)
        calls.append("predicted_positions")
        return original_positions(self)

    monkeypatch.setattr(BlockQuery, "predicted_positions", pool_positions)
    session = _cluster_session(store, folder, TWO)
    ref = _reference(phi, TWO)
    for _ in range(4):  # label → history → next query → panel → plot
        panel = QueryPanelState.for_annotator(session, "ada")
        i = panel.target
        view = PoolPlotState.for_annotator(session, "ada")
        plot = sample_plot(session, view, size=200)
        LearnerFigures.of(session)
        stopping_view(session)
        assert view.query == i and view.predicted is None and view.confidence is None
        F = ref.decision_function()
        assert session.n_labeled == 0 or _margin(F).min() > NEAR_TIE  # zeros at first: ties
        assert panel.predicted == ref.predict()[i]
        assert panel.confidence == pytest.approx(ref.predict_proba()[i].max(), abs=1e-10)
        np.testing.assert_array_equal(plot.predicted, ref.predict()[plot.indices])
        session.label(i, truth[i], annotator="ada")
        ref.teach(i, truth[i])
    assert session.n_labeled == 4 and len(session.change_history) == 5
    assert calls == []
    session.engine.decision_function()  # the instrument counts a call
    assert calls == ["decision_function", "decision_values"]


def test_a_query_waiting_for_a_teammate_is_drawn_blind(store, data, scheduler, monkeypatch):
    X, y, folder, phi = data
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    truth = _truth(y, TWO)
    session = _cluster_session(store, folder, TWO, overlap=2)
    q = QueryPanelState.for_annotator(session, "ada").target
    session.label(q, truth[q], annotator="ada")
    view = PoolPlotState.for_annotator(session, "bob")
    assert view.query == q and view.query_blind and q not in view.labels
    plot = sample_plot(session, view, size=100)
    assert np.isnan(plot.confidence[plot.query])
    assert np.isfinite(np.delete(plot.confidence, plot.query)).all()
    assert not PoolPlotState.for_annotator(session, "ada").query_blind
