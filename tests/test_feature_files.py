"""A large pool's low-rank features kept on disk (``rlscore.sessions.state.feature_files``).

Against independent references: the features a reopened session reads equal a fresh
``LowRankKernel(...).fit(X)`` written here, bit for bit, and its picks and predictions equal
those of a session that keeps nothing (``snapshots=False``: built from scratch); a changed
input — the data, σ, the number of landmarks or their rule — is built afresh (the fit is
called, and its features equal the fresh reference of the changed input), never served from
the file of the old one; a damaged or foreign file is refused, deleted and built again; a
restarted process reads them without importing scikit-learn.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rlscore.sessions.state.feature_files as feature_files
from rlscore.core.kernels.lowrank import LowRankKernel
from rlscore.data.projects.project import Project
from rlscore.query import make_strategy
from rlscore.query.rls_state.on_features import FeaturePoolStrategy
from rlscore.sessions import LabelingSession
from rlscore.storage import open_store

REPO = Path(__file__).resolve().parents[1]
N = 800
#: the session's low-rank settings (small, so that the test is quick)
SETTINGS = {"n_landmarks": 40, "landmarks": "uniform", "candidates": 60, "risk_sample": 300}
SIGMA, LAM = 1.2, 0.1


def pool(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 3))
    y = (X[:, 0] + 0.5 * np.sin(2 * X[:, 1]) > 0.2).astype(int)
    return X, y


def add_project(store, name: str, X: np.ndarray, y: np.ndarray) -> None:
    store.create_project(Project(name, X, ["a", "b", "c"], [str(i) for i in range(N)], y, [0, 1]))


def fresh_features(X: np.ndarray, sigma: float = SIGMA, **changes) -> np.ndarray:
    """The reference: the Nyström features of the settings, fitted here."""
    s = {**SETTINGS, **changes}
    return (
        LowRankKernel(sigma=sigma, n_landmarks=s["n_landmarks"], landmarks=s["landmarks"])
        .fit(X)
        .features_
    )


def open_session(store, name: str = "p", sigma: float = SIGMA, **kw) -> LabelingSession:
    settings = {**SETTINGS, **{k: v for k, v in kw.items() if k in SETTINGS}}
    rest = {k: v for k, v in kw.items() if k not in SETTINGS}
    session = LabelingSession(store, name, "arls-lowrank", sigma=sigma, lam=LAM, **settings, **rest)
    feature_files.wait_for_writes()  # a file the session keeps is written by a thread
    return session


@pytest.fixture
def keep_small_pools(monkeypatch):
    """Keep the features of the small test pools too."""
    monkeypatch.setattr(feature_files, "MIN_KEPT_ROWS", 0)


@pytest.fixture
def fits(monkeypatch):
    """The number of times a Nyström map is fitted (appended to by every fit)."""
    calls = []
    original = LowRankKernel.fit

    def counted(self, X, y=None):
        calls.append(X.shape)
        return original(self, X, y)

    monkeypatch.setattr(LowRankKernel, "fit", counted)
    return calls


def feature_dir(tmp_path):
    return tmp_path / "labels.sqlite3.snapshots" / feature_files.FEATURE_FOLDER


def test_a_reopened_session_reads_the_kept_features_and_picks_as_a_fresh_build(
    tmp_path, keep_small_pools, fits
):
    X, y = pool()
    with open_store(tmp_path / "labels.sqlite3") as store:
        add_project(store, "p", X, y)
        open_session(store)  # builds and keeps them
        assert len(fits) == 1
        assert len(list(feature_dir(tmp_path).glob("*.npy"))) == 1
        kept = open_session(store)  # a restart: reads them
        scratch = open_session(store, snapshots=False)  # keeps nothing, builds them
        assert len(fits) == 2  # the second session read them, the third fitted
        features = kept.engine.features_
        assert np.array_equal(features, fresh_features(X))
        assert isinstance(features.base, np.memmap) and not features.flags.writeable
        grid = np.random.default_rng(1).normal(size=(50, 3))
        assert np.array_equal(kept.engine.transform(grid), scratch.engine.transform(grid))
        for _ in range(8):
            q, score = scratch.query(claim=False)
            assert kept.query(claim=False) == (q, score)
            scratch.label(q, int(y[q]), annotator="a")
            kept.sync()
            assert np.array_equal(
                kept.engine.decision_function(), scratch.engine.decision_function()
            )


@pytest.mark.parametrize(
    "change",
    [{"sigma": 0.7}, {"n_landmarks": 30}, {"landmarks": "kmeans"}, {"data": True}],
    ids=["sigma", "n_landmarks", "landmark rule", "data"],
)
def test_a_changed_input_is_built_afresh_not_served_from_the_old_file(
    tmp_path, keep_small_pools, fits, change
):
    X, y = pool()
    with open_store(tmp_path / "labels.sqlite3") as store:
        add_project(store, "p", X, y)
        open_session(store)
        name, X2 = "p", X
        if change.pop("data", False):
            X2 = X.copy()
            X2[123, 1] += 1e-9  # one value of the pool
            add_project(store, "q", X2, y)
            name = "q"
        changed = open_session(store, name, **change)
        assert len(fits) == 2
        sigma = change.pop("sigma", SIGMA)
        assert np.array_equal(changed.engine.features_, fresh_features(X2, sigma, **change))
        assert len(list(feature_dir(tmp_path).glob("*.map.npz"))) == 2


@pytest.mark.parametrize("damage", ["other features", "truncated", "other key"])
def test_a_damaged_or_foreign_file_is_refused_and_built_again(
    tmp_path, keep_small_pools, fits, damage
):
    X, y = pool()
    with open_store(tmp_path / "labels.sqlite3") as store:
        add_project(store, "p", X, y)
        open_session(store)
        (phi_path,) = feature_dir(tmp_path).glob("*.npy")
        (map_path,) = feature_dir(tmp_path).glob("*.map.npz")
        if damage == "other features":  # the same shape, of another σ
            np.save(phi_path, fresh_features(X, 0.9))
            fits.pop()  # the reference's own fit
        elif damage == "truncated":
            phi_path.write_bytes(phi_path.read_bytes()[: phi_path.stat().st_size // 2])
        else:
            with np.load(map_path) as parts:
                others = {k: parts[k] for k in parts.files if k != "key"}
            with open(map_path, "wb") as fh:
                np.savez(fh, key=np.asarray("0" * 32), **others)
        reopened = open_session(store)
        assert len(fits) == 2
        assert np.array_equal(reopened.engine.features_, fresh_features(X))
        # the refused file was replaced by the features just built
        assert np.array_equal(np.load(phi_path), fresh_features(X))


def test_a_rebuild_with_the_same_kernel_reuses_the_features_in_memory(
    tmp_path, keep_small_pools, fits
):
    X, y = pool()
    with open_store(tmp_path / "labels.sqlite3") as store:
        add_project(store, "p", X, y)
        session = open_session(store, snapshots=False)
        session.set_params(lam=0.5)  # a rebuild of the engine with the same features
        assert len(fits) == 1
        assert np.array_equal(session.engine.features_, fresh_features(X))


def test_small_pools_and_other_engines_keep_nothing(tmp_path, fits):
    X, y = pool()
    with open_store(tmp_path / "labels.sqlite3") as store:
        add_project(store, "p", X, y)
        open_session(store)  # below MIN_KEPT_ROWS
        LabelingSession(store, "p", "arls-focused", sigma=SIGMA, lam=LAM)
    assert not feature_dir(tmp_path).exists()
    assert feature_files.keeps_features(make_strategy("arls-lowrank"))
    assert not feature_files.keeps_features(make_strategy("arls-focused"))

    class RowsAreFeatures(FeaturePoolStrategy):
        def pool_features(self, X):
            return X, None

    assert not feature_files.keeps_features(RowsAreFeatures())


def test_the_least_recently_used_files_go_first(tmp_path, keep_small_pools, monkeypatch):
    monkeypatch.setattr(feature_files, "FEATURE_FILES_KEEP", 2)
    X, y = pool()
    with open_store(tmp_path / "labels.sqlite3") as store:
        add_project(store, "p", X, y)
        for sigma in (0.8, 1.0, 1.2):
            open_session(store, sigma=sigma)
    kept = sorted(feature_dir(tmp_path).iterdir())
    assert len(kept) == 4  # two maps and their features
    X_key = {
        feature_files.feature_key(
            X, make_strategy("arls-lowrank", sigma=s, **SETTINGS).kernel_params()
        )
        for s in (1.0, 1.2)
    }
    assert {p.name.split(".")[0] for p in kept} == X_key


def test_a_restart_on_kept_features_loads_no_scikit_learn(tmp_path, keep_small_pools):
    """A fresh interpreter opens the session on kept features, queries and maps new points
    (the pool plot's grid) without importing scikit-learn, which the fit needs (1.2–1.4 s of
    CPU on a cold server); its query is the one of the session that built them."""
    X, y = pool()
    db = tmp_path / "labels.sqlite3"
    with open_store(db) as store:
        add_project(store, "p", X, y)
        built = open_session(store)
        expected = built.query(claim=False)
        grid = built.engine.transform(X[:5] + 0.5)
    code = f"""
import sys
import numpy as np
import rlscore.sessions.state.feature_files as feature_files
from rlscore.sessions import LabelingSession
from rlscore.storage import open_store
feature_files.MIN_KEPT_ROWS = 0
with open_store({str(db)!r}) as store:
    s = LabelingSession(store, "p", "arls-lowrank", sigma={SIGMA}, lam={LAM}, **{SETTINGS!r})
    print(s.query(claim=False))
    print(np.asarray(s.engine.transform(np.load(sys.argv[1]))).tobytes().hex())
print(sorted(m for m in sys.modules if m == "sklearn" or m.startswith("sklearn.")))
"""
    np.save(tmp_path / "grid.npy", X[:5] + 0.5)
    run = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "grid.npy")],
        capture_output=True, text=True, cwd=REPO,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    query, mapped, sklearn_modules = run.stdout.splitlines()
    assert query == str(expected)
    assert bytes.fromhex(mapped) == np.ascontiguousarray(grid).tobytes()
    assert sklearn_modules == "[]"
