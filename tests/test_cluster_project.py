"""Cluster-backed projects (issue 26, the app's side): created from Parquet files by the API
and the CLI, labeled through a :class:`~rlscore.sessions.LabelingSession` whose engine runs on
a Dask ``LocalCluster`` (two worker processes, loopback), with the in-memory engine's picks;
no scheduler, an unreachable one and a failing pass are messages, and a label is in the
database before any pass.

The reference is :class:`~rlscore.query.LowRankARLS` with ``kernel="linear"`` on the features
the test computes itself: the Nyström map of the session's kernel fitted on the documented
landmark rows (``default_rng(random_state).choice(n, m, replace=False)``).
"""

from __future__ import annotations

import socket

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from rlscore.cli import main as cli_main  # noqa: E402
from rlscore.core.lowrank import LowRankKernel  # noqa: E402
from rlscore.data.cluster_pool import SCHEDULER_ENV, ClusterUnavailableError, write_pool  # noqa: E402
from rlscore.query import LowRankARLS  # noqa: E402
from rlscore.sessions import LabelingSession  # noqa: E402
from rlscore.sessions.cluster_engine import ClusterPoolError  # noqa: E402
from rlscore.sessions.cluster_project import create_cluster_project  # noqa: E402
from rlscore.sessions.settings import project_settings  # noqa: E402
from rlscore.storage import open_store  # noqa: E402

N, D, M = 20_000, 4, 60
SIGMA, LAM, CANDIDATES, RISK = 2.0, 0.5, 40, 3000
RTOL = 1e-10


@pytest.fixture(scope="module")
def scheduler():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, memory_limit="1GiB",
    )  # fmt: skip
    yield cluster.scheduler_address
    cluster.close()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(261)
    y = rng.integers(0, 2, N)
    X = rng.normal(size=(N, D)) + 1.5 * y[:, None]
    folder = tmp_path_factory.mktemp("cluster_project")
    write_pool(X, folder, rows_per_file=5000)
    return X, np.where(y == 1, "pos", "neg"), str(folder)


@pytest.fixture
def store(tmp_path):
    s = open_store(str(tmp_path / "labels.db"))
    yield s
    s.close()


def _create(store, folder, name="big"):
    return create_cluster_project(
        store, name, folder, ["neg", "pos"], sigma=SIGMA, lam=LAM, n_landmarks=M,
        candidates=CANDIDATES, risk_sample=RISK,
    )  # fmt: skip


def _session(store, name="big"):
    return LabelingSession(
        store, name, strategy="arls-lowrank", sigma=SIGMA, lam=LAM, n_landmarks=M,
        candidates=CANDIDATES, risk_sample=RISK, snapshots=False,
    )  # fmt: skip


def _reference(X):
    rows = np.random.default_rng(0).choice(N, M, replace=False)
    fmap = LowRankKernel(kernel="rbf", sigma=SIGMA, n_landmarks=M, landmarks="uniform")
    phi = fmap.fit(X[np.sort(rows)]).transform(X)
    ref = LowRankARLS(kernel="linear", lam=LAM, candidates=CANDIDATES, risk_sample=RISK)
    return ref.start(phi, ["neg", "pos"])


def test_the_project_records_where_its_pool_lives(store, data):
    project = _create(store, data[2])
    assert project.n == N and project.X.shape == (N, 0)
    columns = [f"x{j}" for j in range(D)]
    assert project.meta["cluster"] == {"url": data[2], "columns": columns, "n_landmarks": M}
    settings = project_settings(store, "big")
    assert settings["strategy"] == "arls-lowrank" and settings["n_landmarks"] == M
    assert "big" in store.list_projects()


def test_the_cli_creates_it(tmp_path, store, data, capsys):
    db = str(tmp_path / "labels.db")
    argv = ["create-cluster-project", "viacli", data[2], "--db", db, "--classes", "a,b"]
    assert cli_main([*argv, "--feature-columns", "x0,x2", "--landmarks", "30"]) == 0
    assert "20,000 points" in capsys.readouterr().out
    project = store.load_project("viacli")
    assert project.meta["cluster"]["columns"] == ["x0", "x2"] and project.classes == ["a", "b"]
    argv = ["create-cluster-project", "other", data[2], "--db", db, "--classes", "a,b"]
    assert cli_main([*argv, "--feature-columns", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_a_session_labels_like_the_in_memory_engine(store, data, scheduler, monkeypatch):
    X, truth, folder = data
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    _create(store, folder)
    session = _session(store)
    ref = _reference(X)
    assert session.engine.estimated_risk() == pytest.approx(ref.estimated_risk(), rel=RTOL)
    for _ in range(6):
        i, score = session.query()
        i_ref, s_ref = ref.next_query()
        assert i == i_ref and score == pytest.approx(s_ref, rel=RTOL, abs=1e-12)
        session.label(i, truth[i])
        ref.teach(i_ref, truth[i_ref])
        assert session.engine.estimated_risk() == pytest.approx(ref.estimated_risk(), rel=RTOL)
    assert session.labels == {int(i): truth[i] for i in ref.labeled_}
    np.testing.assert_allclose(
        session.engine.decision_function(), ref.decision_function(), rtol=0, atol=1e-10
    )
    # the plot's sample: a few thousand rows and the asked ones, never the pool
    view = session.engine.sample_view(500, extra=[N - 1])
    assert N - 1 in view["indices"] and len(view["indices"]) <= 501
    np.testing.assert_allclose(
        view["decision"], ref.decision_function()[view["indices"]], rtol=0, atol=1e-10
    )
    # a second session on this server reuses the pool loaded in the workers
    again = _session(store)
    assert again.engine.cluster_pool_ is session.engine.cluster_pool_
    assert again.query(annotator="bob")[0] != session.query()[0]  # claims still apply


def test_without_a_scheduler_the_message_names_the_variable(store, data, monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    _create(store, data[2])
    with pytest.raises(ClusterPoolError, match=SCHEDULER_ENV):
        _session(store)


def test_an_unreachable_scheduler_is_named(store, data, monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    monkeypatch.setenv(SCHEDULER_ENV, address)
    _create(store, data[2])
    with pytest.raises(ClusterPoolError, match=address):
        _session(store)


def test_a_failing_pass_is_a_message_and_the_label_is_saved(store, data, scheduler, monkeypatch):
    X, truth, folder = data
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    _create(store, folder)
    session = _session(store)
    i, _ = session.query()

    def lost(fn, *args):
        raise ClusterUnavailableError(f"workers of the cluster at {scheduler} died")

    monkeypatch.setattr(session.engine.cluster_pool_, "map_blocks", lost)
    session.engine._query._map = lost  # the block query holds the pool's map
    with pytest.raises(ClusterPoolError, match=scheduler):
        session.label(i, truth[i])
    assert [e.point for e in store.events("big") if e.kind == "label"] == [i]
    # the cluster back: the pending label reaches the engine, picks as in memory
    monkeypatch.undo()
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    session.engine._query._map = session.engine.cluster_pool_.map_blocks
    ref = _reference(X)
    ref.teach(i, truth[i])
    assert session.query(annotator="ada")[0] == ref.next_query()[0]


def test_a_strategy_without_landmarks_runs_on_the_projects_features(
    store, data, scheduler, monkeypatch
):
    """Uncertainty takes no ``n_landmarks``: the project's m gives the same features."""
    from rlscore.query.baselines import UncertaintyQuery

    X, truth, folder = data
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    _create(store, folder)
    session = LabelingSession(
        store, "big", strategy="uncertainty", sigma=SIGMA, lam=LAM, snapshots=False
    )
    phi = _reference(X).features_
    ref = UncertaintyQuery(kernel="linear", lam=LAM).start(phi, ["neg", "pos"])
    for _ in range(4):
        i, score = session.query()
        i_ref, s_ref = ref.next_query()
        assert i == i_ref and score == pytest.approx(s_ref, rel=RTOL, abs=1e-12)
        session.label(i, truth[i])
        ref.teach(i, truth[i])
