"""Every kernel the sidebar offers works on every sample project at the sidebar's defaults.

Issue 27: the von Neumann kernel failed on every project at its default t = 1 (its t must be
below 1/ρ(B), and ρ(B) ≥ k on a kNN graph), graph kernels failed on a 2-point pool (a 6-NN
graph needs 7 points), and λ = 1e-4, the documented smallest λ, had to work for A-optimal KLR
with a linear kernel. The sessions are opened as the app opens them, on the project's saved settings
(:meth:`rlscore.sessions.LabelingSession.from_settings`), below the UI.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.graph_kernels import (
    graph_kernel_reference,
    path_graph,
    path_spectral_radius,
    two_point_kernel,
)
from sklearn.linear_model import LogisticRegression
from streamlit.testing.v1 import AppTest
from support.app import REPO, TIMEOUT, plain_markdown
from support.app import button as app_button
from support.app import ok as app_ok

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.core.kernels.functions import (
    GRAPH_KERNELS,
    VECTOR_KERNELS,
    VON_NEUMANN_FRACTION,
    graph_kernel,
    knn_graph,
    pool_kernel,
)
from rlscore.data.projects.project import Project
from rlscore.data.samples.bundled import list_samples, project_from_sample
from rlscore.sessions import LabelingSession
from rlscore.sessions.state.settings import save_project_settings
from rlscore.storage import open_store
from rlscore.ui.shell.sidebar import KERNELS, kernels_for
from rlscore.ui.shell.strategy_names import STRATEGY_LABELS

#: the strategies checked with every kernel: the projects' default and A-optimal KLR
STRATEGIES = ("default", "aopt-klr")


def app_session(store, project: str, **changes) -> LabelingSession:
    """The session the app opens for ``project`` after the sidebar saved ``changes``."""
    if changes:
        save_project_settings(store, project, changes)
    return LabelingSession.from_settings(store, project, annotator="ada", snapshots=False)


def label_queries(session: LabelingSession, truth, n: int, annotator: str = "ada") -> list[int]:
    """Label the next ``n`` queried points with their true labels; the points."""
    done = []
    for _ in range(n):
        i = session.query(annotator=annotator)[0]
        session.label(i, plain_scalar(truth[i]), annotator=annotator)
        done.append(i)
    return done


@pytest.fixture
def sample_store(tmp_path):
    """A new, empty label database."""
    with open_store(tmp_path / "labels.sqlite3") as store:
        yield store


def add_sample(store, name: str) -> Project:
    """Put the sample project ``name`` into ``store``; the project."""
    project = project_from_sample(name)
    store.create_project(project)
    return project


# -- the sidebar's kernels on every sample ------------------------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sample", list_samples())
def test_every_offered_kernel_labels_every_sample_at_its_defaults(
    sample_store, sample, kernel, strategy
):
    project = add_sample(sample_store, sample)
    changes = {"kernel": kernel} | ({} if strategy == "default" else {"strategy": strategy})
    session = app_session(sample_store, sample, **changes)
    labeled = label_queries(session, np.asarray(project.truth), 3)
    assert session.labels == {i: plain_scalar(project.truth[i]) for i in labeled}
    assert session.query(annotator="ada")[0] not in labeled
    assert np.all(np.isfinite(session.engine.decision_function()))


def test_the_sidebar_offers_every_kernel_but_graph_kernels_to_low_rank_strategies():
    assert set(GRAPH_KERNELS) <= set(KERNELS)
    for strategy in STRATEGY_LABELS:
        low_rank = "lowrank" in strategy
        assert kernels_for(strategy) == (VECTOR_KERNELS if low_rank else KERNELS), strategy


@pytest.mark.parametrize(
    ("strategy", "kernel"),
    [(s, k) for s in STRATEGY_LABELS for k in kernels_for(s)],
)
def test_every_strategy_labels_with_every_kernel_it_is_offered(sample_store, strategy, kernel):
    """two_moons, the app's default project: each strategy of the sidebar with each kernel
    the sidebar offers it, at the defaults."""
    project = add_sample(sample_store, "two_moons")
    session = app_session(sample_store, "two_moons", strategy=strategy, kernel=kernel)
    labeled = label_queries(session, np.asarray(project.truth), 3)
    assert session.labels == {i: plain_scalar(project.truth[i]) for i in labeled}


# -- the von Neumann kernel: data-adaptive default, clear range -----------------------------
def test_von_neumann_matches_its_definition_on_a_path_graph():
    """On 5 points on a line (1-NN graph = the path), the default t is half of
    1/ρ(path) = 1/(2 cos(π/6)), and K = (I − tB)⁻¹ of the path written by hand."""
    X = np.array([[0.0], [1.0], [3.0], [6.0], [10.0]])
    B = path_graph(5)
    np.testing.assert_array_equal(knn_graph(X, k=1).toarray(), B)
    g = graph_kernel(X, kind="von_neumann", k=1)
    t = VON_NEUMANN_FRACTION / path_spectral_radius(5)
    assert g.t == pytest.approx(t, rel=1e-12)
    np.testing.assert_allclose(g.K, graph_kernel_reference(B, "von_neumann", t), atol=1e-12)
    assert np.all(np.linalg.eigvalsh(g.K) > 0)  # a kernel: positive definite below the bound
    t = 0.55  # below 1/ρ = 0.577: accepted as given
    np.testing.assert_allclose(
        graph_kernel(X, kind="von_neumann", k=1, t=t).K,
        graph_kernel_reference(B, "von_neumann", t),
        atol=1e-10,
    )


@pytest.mark.parametrize("t", [0.6, 1.0, 5.0])
def test_von_neumann_names_its_range_for_a_t_too_large(t):
    X = np.array([[0.0], [1.0], [3.0], [6.0], [10.0]])
    bound = 1.0 / path_spectral_radius(5)
    with pytest.raises(ValueError, match=rf"0 < t < 1/ρ\(B\) = {bound:.4g}.*got t = {t:g}"):
        graph_kernel(X, kind="von_neumann", k=1, t=t)


def test_von_neumann_default_on_a_sample_pool_is_the_definition():
    """On two_moons (220 points, 6-NN graph), the default is half of 1/ρ(B), ρ from a dense
    eigendecomposition."""
    X = project_from_sample("two_moons").X
    B = knn_graph(X, k=6, connect=True).toarray()
    rho = np.linalg.eigvalsh(B)[-1]
    assert rho >= 6  # why t = 1 could never work
    K = pool_kernel(X, "von_neumann")
    np.testing.assert_allclose(
        K, graph_kernel_reference(B, "von_neumann", VON_NEUMANN_FRACTION / rho), atol=1e-9
    )


# -- tiny pools ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", GRAPH_KERNELS)
def test_graph_kernels_on_two_points_are_their_closed_forms(kind):
    """k = 6 on 2 points: the only neighbour is the other point (the complete graph)."""
    X = np.array([[0.0, 0.0], [1.0, 2.0]])
    g = graph_kernel(X, kind=kind)
    t = 0.5 if kind == "von_neumann" else 1.0  # ρ(B) = 1: half the bound
    assert g.t == pytest.approx(t)
    np.testing.assert_allclose(g.K, two_point_kernel(kind, t), atol=1e-12)
    np.testing.assert_allclose(
        graph_kernel(X, kind=kind, t=0.3).K, two_point_kernel(kind, 0.3), atol=1e-12
    )


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("strategy", ["arls-focused", "aopt-klr"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_a_tiny_pool_labels_with_every_kernel(tmp_path, n, strategy, kernel):
    X = np.array([[0.0, 0.0], [1.0, 0.5], [3.0, 1.0]])[:n]
    truth = np.array(["no", "yes", "yes"])[:n]
    with open_store(tmp_path / "labels.sqlite3") as store:
        store.create_project(
            Project("tiny", X, ["a", "b"], [f"p{i}" for i in range(n)], truth, ["no", "yes"])
        )
        session = app_session(store, "tiny", kernel=kernel, strategy=strategy)
        labeled = label_queries(session, truth, n)
        assert sorted(labeled) == list(range(n))
        assert session.labels == {i: plain_scalar(truth[i]) for i in range(n)}


# -- the documented λ range ----------------------------------------------------------------
def test_aoptimal_klr_linear_at_the_smallest_documented_lam_fits_the_reference(sample_store):
    """λ = 1e-4 (the slider's minimum) with a linear kernel on two_moons: 12 labels, each
    fit equal to scikit-learn's logistic regression with C = 1/λ and no intercept (the same
    objective, docs/mathematics.md §6), solved independently."""
    project = add_sample(sample_store, "two_moons")
    lam = 1e-4
    session = app_session(
        sample_store, "two_moons", strategy="aopt-klr", kernel="linear", lam=lam, lam_auto=False
    )
    assert session.engine.get_params()["tune"] == "none" and session.lam_ == lam
    labeled = label_queries(session, np.asarray(project.truth), 12)
    X, y = project.X, np.array([plain_scalar(v) for v in project.truth[labeled]])
    reference = LogisticRegression(C=1.0 / lam, fit_intercept=False, tol=1e-12, max_iter=10_000)
    reference.fit(X[labeled], y)
    positive = session.engine.classes_[1]
    sign = 1.0 if reference.classes_[1] == positive else -1.0
    np.testing.assert_allclose(
        session.engine.decision_function(),
        sign * reference.decision_function(X),
        rtol=1e-4,
        atol=1e-4 * np.abs(reference.decision_function(X)).max(),
    )
    assert np.isfinite(session.query(annotator="ada")[1])


# -- the sidebar -------------------------------------------------------------------------------
def test_the_sidebar_sets_the_graph_scale_and_von_neumann_labels(tmp_path, monkeypatch):
    db = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(db))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    app_ok(at.run())
    assert at.number_input(key="w_graph_t").disabled  # RBF: no graph scale
    at.selectbox(key="w_kernel").set_value("von_neumann")
    app_ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert not at.number_input(key="w_graph_t").disabled
    assert any("t = default" in c.value and "1/ρ(B)" in c.value for c in at.caption)
    app_button(at, "label", 0).click()
    app_ok(at.run())
    assert not at.error, [e.value for e in at.error]
    at.number_input(key="w_graph_t").set_value(0.05)
    app_ok(at.run())
    project = at.session_state["params"]["project"]
    with open_store(db) as store:
        assert store.load_settings(project)["graph_t"] == 0.05
        n_labels = len(store.events(project))
    assert not at.error, [e.value for e in at.error]
    app_button(at, "label", 0).click()
    app_ok(at.run())
    with open_store(db) as store:
        assert len(store.events(project)) == n_labels + 1
    at.number_input(key="w_graph_t").set_value(5.0)  # above 1/ρ(B): the page says why
    app_ok(at.run())
    shown = [plain_markdown(e.value) for e in at.error]
    assert any("needs 0 < t < 1/ρ(B)" in e and "got t = 5" in e for e in shown), shown
