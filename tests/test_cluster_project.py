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
from rlscore.core.kernels.lowrank import LowRankKernel  # noqa: E402
from rlscore.data.cluster.parquet_pool import SCHEDULER_ENV, ClusterUnavailableError, write_pool  # noqa: E402
from rlscore.query import LowRankARLS  # noqa: E402
from rlscore.sessions import LabelingSession  # noqa: E402
from rlscore.sessions.cluster.engine import ClusterPoolError  # noqa: E402
from rlscore.sessions.cluster.plot_sample import sample_plot  # noqa: E402
from rlscore.sessions.cluster.projects import create_cluster_project  # noqa: E402
from rlscore.sessions.state.settings import project_settings  # noqa: E402
from rlscore.sessions.views.label_page import PoolPlotState  # noqa: E402
from rlscore.storage import open_store  # noqa: E402

N, D, M = 20_000, 4, 60
SIGMA, LAM, CANDIDATES, RISK = 2.0, 0.5, 40, 3000
RTOL = 1e-10


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
    missing = str(tmp_path / "nowhere")
    assert cli_main(["create-cluster-project", "x", missing, "--db", db, "--classes", "a,b"]) == 2
    assert f"at {missing}: no such file or folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "value", "setting"),
    [("--sigma", "-1", "sigma"), ("--lam", "0", "lam"), ("--candidates", "-3", "candidates")],
)
def test_a_bad_setting_stores_no_project(tmp_path, store, data, capsys, option, value, setting):
    """The command failed on a bad σ or λ only after storing the project (exit 2 and an
    ``error:`` line, yet a new project with the bad value in its meta)."""
    db = str(tmp_path / "labels.db")
    before = store.list_projects()
    argv = ["create-cluster-project", "bad", data[2], "--db", db, "--classes", "a,b"]
    assert cli_main([*argv, option, value]) == 2
    assert setting in capsys.readouterr().err
    assert store.list_projects() == before and "bad" not in store.list_projects()


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
    # values at a few rows, without the pool's n-vectors (what the panel and plot read)
    rows = [N - 1, 3, 17, session.query()[0]]
    np.testing.assert_allclose(
        session.engine.decision_at(rows), ref.decision_function()[rows], rtol=0, atol=1e-10
    )
    np.testing.assert_allclose(
        session.engine.predict_proba_at(rows), ref.predict_proba()[rows], rtol=0, atol=1e-10
    )
    assert session.engine.predict_at(rows).tolist() == ref.predict()[rows].tolist()
    assert session.engine.decision_at([]).shape == (0,)
    with pytest.raises(ValueError, match="outside the pool"):
        session.engine.decision_at([N])
    plot = sample_plot(session, PoolPlotState.for_annotator(session, "ada"), size=300)
    assert plot.predicted.tolist() == ref.predict()[plot.indices].tolist()
    np.testing.assert_allclose(
        plot.confidence, ref.predict_proba()[plot.indices].max(axis=1), rtol=0, atol=1e-10
    )
    assert session.project.ids == [str(i) for i in range(N)]  # row numbers, not n strings
    # a second session on this server reuses the pool loaded in the workers
    again = _session(store)
    assert again.engine.cluster_pool_ is session.engine.cluster_pool_
    assert again.query(annotator="bob")[0] != session.query()[0]  # claims still apply


def test_without_a_scheduler_the_message_names_the_variable(store, data, monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    _create(store, data[2])
    with pytest.raises(ClusterPoolError, match=SCHEDULER_ENV):
        _session(store)


@pytest.mark.slow  # the client waits out its connection timeout
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
    from rlscore.query.baselines.strategies import UncertaintyQuery

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


def test_the_export_carries_the_labeled_rows_read_from_the_parquet_files(
    tmp_path, store, data, scheduler, monkeypatch, capsys
):
    """The export of a cluster-backed project is the export of the same pool held in memory:
    its features are the Parquet files' rows (read here by pandas) for the labeled points,
    fetched from the cluster; ids, labels, annotators, times and the estimate as in memory."""
    import io
    import json

    import pandas as pd

    from rlscore.data.projects.project import Project
    from rlscore.sessions import export_labels

    X, truth, folder = data
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    _create(store, folder)
    session = _session(store)
    session.set_params(audit_every=2)  # random checks: the estimate rests on them
    for who in ("ada", "bob", "ada", "bob", "ada"):
        i, _ = session.query(annotator=who)
        session.label(i, truth[i], annotator=who, seconds=1.5)
    session.label(i, truth[i], annotator="bob")  # a second annotator on the same point
    table = pd.read_parquet(folder)  # the files sorted by name: the pool's row order
    columns = [f"x{j}" for j in range(D)]
    memory = Project("mem", table[columns].to_numpy(), columns, [str(k) for k in range(N)],
                     None, ["neg", "pos"])  # fmt: skip
    project, events = store.load_project("big"), store.events("big")
    for fmt in ("csv", "jsonl"):
        assert export_labels(project, events, fmt, estimate=True) == export_labels(
            memory, events, fmt, estimate=True
        )
    got = pd.read_parquet(io.BytesIO(export_labels(project, events, "parquet", estimate=True)))
    want = pd.read_parquet(io.BytesIO(export_labels(memory, events, "parquet", estimate=True)))
    pd.testing.assert_frame_equal(got, want)
    points = got["index"].to_numpy()
    assert sorted(points) == sorted(session.labels) and got["accuracy_labels"].iloc[0] == 5
    assert got["accuracy_checks"].iloc[0] >= 1  # the random checks, found in the log
    assert 0 <= got["accuracy_estimate"].iloc[0] <= 1  # fitted on the fetched rows
    assert got["point_id"].tolist() == [str(k) for k in points]
    assert got["label"].tolist() == [session.labels[k] for k in points]
    np.testing.assert_array_equal(got[columns].to_numpy(), table[columns].to_numpy()[points])
    assert set(got.columns) >= {"label[ada]", "label[bob]", "seconds[ada]", "timestamp"}
    # the CLI writes the same file
    db, out = tmp_path / "labels.db", tmp_path / "labels.parquet"
    argv = ["labels", "--db", str(db), "--project", "big", "--format", "parquet"]
    assert cli_main([*argv, "--output", str(out)]) == 0
    pd.testing.assert_frame_equal(pd.read_parquet(out), want)
    # without features nothing is fetched: no scheduler needed
    monkeypatch.delenv(SCHEDULER_ENV)
    rows = json.loads(export_labels(project, events, "json", include_features=False,
                                    estimate=False))  # fmt: skip
    assert [r["point_id"] for r in rows] == [str(k) for k in points]
    with pytest.raises(ClusterPoolError, match=SCHEDULER_ENV):
        export_labels(project, events, "csv")


def test_the_density_layer_is_counted_on_the_workers(store, data, scheduler, monkeypatch):
    """Every row's features projected on the plot's plane and counted on the grid: numpy's
    histogram2d of the same projection of the reference features, only the grid shipped."""
    from rlscore.viz.plane.geometry import density_grid

    X, truth, folder = data
    monkeypatch.setenv(SCHEDULER_ENV, scheduler)
    _create(store, folder)
    engine = _session(store).engine
    phi = _reference(X).features_
    rng = np.random.default_rng(7)
    center = phi[rng.choice(N, 500, replace=False)].mean(axis=0)  # as a sample's PCA
    axes = np.linalg.qr(rng.normal(size=(phi.shape[1], 2)))[0]
    xy = (phi - center) @ axes
    for bins in (1, 37):
        x_edges, y_edges, counts = engine.density(center, axes, bins)
        lo, hi = xy.min(axis=0), xy.max(axis=0)
        np.testing.assert_allclose([x_edges[[0, -1]], y_edges[[0, -1]]], np.c_[lo, hi], atol=1e-9)
        # the workers' features and products agree with the reference to ~1e-12, so a row on
        # a cell edge (the extreme rows are) may fall on either side: a few rows, never more
        ref, _, _ = np.histogram2d(xy[:, 0], xy[:, 1], bins=[x_edges, y_edges])
        assert np.abs(counts - ref.T).sum() <= 4
        assert counts.dtype == np.int64 and counts.sum() == N
        grid = density_grid(xy, bins)  # the in-memory plot's layer, cell for cell
        assert np.abs(counts - grid[2]).sum() <= 4
    with pytest.raises(ValueError, match="bins"):
        engine.density(center, axes, 0)
