"""A pool on a Dask cluster (issue 26): the block passes give the in-memory engine's picks and
risks on the same features, a worker killed during a pass costs nothing, an unreachable
scheduler and a too-small memory limit are clear errors.

The cluster is a ``LocalCluster`` of two worker processes on the loopback interface (one
thread each, no dashboard), started once for the module; the pool is 20 000 rows in 4 Parquet
files. The reference is the in-memory engine on the features the test computes itself with
the same fitted feature map: ``LowRankARLS``, ``FocusedARLS`` (its explore draws included)
and the baselines with ``kernel="linear"`` on Φ (the same RLS, ``K = ΦΦᵀ``). A
cluster-backed project's session labels with focused ARLS, the app's default strategy, as
the in-memory engine does.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from rlscore.core.kernels.lowrank import LowRankKernel  # noqa: E402
from rlscore.data.cluster.parquet_pool import (  # noqa: E402
    ClusterMemoryError,
    ClusterPool,
    ClusterUnavailableError,
    check_worker_memory,
    connect,
    worker_bytes_needed,
    write_pool,
)
from rlscore.query import FocusedARLS, LowRankARLS  # noqa: E402
from rlscore.query.baselines.strategies import EntropyQuery, RandomQuery, UncertaintyQuery  # noqa: E402
from rlscore.query.cluster.block_query import BlockQuery  # noqa: E402
from rlscore.sessions import LabelingSession  # noqa: E402
from rlscore.sessions.cluster.engine import landmark_rows  # noqa: E402
from rlscore.sessions.cluster.projects import create_cluster_project  # noqa: E402
from rlscore.storage import open_store  # noqa: E402

N, D, M = 20_000, 5, 100
ROWS_PER_FILE = 5_000
LAM = 0.5
QUERIES = 20
RTOL = 1e-10


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of the module's own (2 GiB workers), and its client: the tests that
    use it are marked ``cluster`` here (tests/conftest.py marks the users of its
    ``scheduler`` fixture)."""
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, memory_limit="2GiB",
    )  # fmt: skip
    c = distributed.Client(cluster, set_as_default=False)  # as the app will: explicit
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(26)
    y = rng.integers(0, 2, N)
    X = rng.normal(size=(N, D)) + 1.2 * y[:, None]
    folder = tmp_path_factory.mktemp("cluster_pool")
    write_pool(X, folder, rows_per_file=ROWS_PER_FILE)
    return X, np.where(y == 1, "pos", "neg"), str(folder)


@pytest.fixture(scope="module")
def pool(client, data):
    X, _, folder = data
    idx = np.random.default_rng(0).choice(N, M, replace=False)
    sample = ClusterPool.sample_rows(client, folder, idx)
    fmap = LowRankKernel(kernel="rbf", sigma=2.0, n_landmarks=M, landmarks="uniform").fit(sample)
    return ClusterPool.load(client, folder, fmap), fmap.transform(X), sample, idx


@pytest.mark.cluster
def test_sample_rows_are_the_pool_rows(pool, data):
    X = data[0]
    _, _, sample, idx = pool
    np.testing.assert_array_equal(sample, X[idx])


@pytest.mark.cluster
def test_the_blocks_hold_the_features(pool):
    cpool, phi, _, _ = pool
    assert cpool.n_pool == N and list(cpool.sizes) == [ROWS_PER_FILE] * 4
    rows = [0, 1, ROWS_PER_FILE - 1, ROWS_PER_FILE, N - 1, 13_337]
    q = cpool.query(["neg", "pos"], "uncertainty")
    np.testing.assert_allclose(q.rows(rows), phi[rows], rtol=0, atol=1e-13)


def _reference(name: str, phi: np.ndarray, classes):
    params = dict(kernel="linear", lam=LAM)
    if name == "arls":
        ref = LowRankARLS(**params, candidates=40, random_state=3)
    elif name == "arls-sample":
        ref = LowRankARLS(**params, candidates=40, risk_sample=5000, random_state=3)
    elif name == "arls-multiclass":
        ref = LowRankARLS(**params, candidates=24, risk_sample=4000, random_state=3)
    elif name == "arls-balanced":
        ref = LowRankARLS(**params, class_weight="balanced", candidates=24, random_state=3)
    elif name == "focused":
        ref = FocusedARLS(**params, explore=0.3, seed=5)
    elif name == "focused-balanced":
        ref = FocusedARLS(**params, class_weight="balanced", seed=7)
    elif name == "uncertainty":
        ref = UncertaintyQuery(**params)
    elif name == "entropy":
        ref = EntropyQuery(**params)
    else:
        ref = RandomQuery(**params, seed=11)
    return ref.start(phi, classes)


def _distributed(name: str, cpool: ClusterPool, classes):
    if name == "arls-balanced":
        return cpool.query(
            classes, "arls-lowrank", lam=LAM, class_weight="balanced", candidates=24,
            random_state=3,
        )  # fmt: skip
    if name.startswith("arls"):
        sample = {"arls": None, "arls-sample": 5000, "arls-multiclass": 4000}[name]
        k = 24 if name == "arls-multiclass" else 40
        return cpool.query(
            classes, "arls-lowrank", lam=LAM, candidates=k, risk_sample=sample, random_state=3
        )
    if name == "focused":
        return cpool.query(classes, "arls-focused", lam=LAM, explore=0.3, seed=5)
    if name == "focused-balanced":
        return cpool.query(classes, "arls-focused", lam=LAM, class_weight="balanced", seed=7)
    return cpool.query(classes, name, lam=LAM, seed=11)


def _truth(name: str, data):
    X, y, _ = data
    if name not in ("arls-multiclass", "arls-balanced", "focused-balanced"):
        return y, ["neg", "pos"]
    # three classes by the first coordinate's tertiles
    cuts = np.quantile(X[:, 0], [1 / 3, 2 / 3])
    return np.array(["a", "b", "c"])[np.searchsorted(cuts, X[:, 0])], ["a", "b", "c"]


@pytest.mark.cluster
@pytest.mark.parametrize(
    "name",
    [
        "arls", "arls-sample", "arls-multiclass", "arls-balanced", "focused",
        "focused-balanced", "uncertainty", "entropy", "random",
    ],
)  # fmt: skip
def test_picks_and_risks_equal_the_in_memory_engine(name, pool, data):
    cpool, phi, _, _ = pool
    truth, classes = _truth(name, data)
    ref = _reference(name, phi, classes)
    dist = _distributed(name, cpool, classes)
    first = [int(np.flatnonzero(truth == c)[0]) for c in classes]
    ref.teach_many(first, truth[first])
    dist.teach_many(first, truth[first])
    assert dist.estimated_risk() == pytest.approx(ref.estimated_risk(), rel=RTOL)
    explored = 0
    for _ in range(QUERIES):
        if name.startswith("focused"):
            explored += ref.exploration() is not None
        i_ref, s_ref = ref.next_query()
        i, s = dist.next_query()
        assert i == i_ref
        # an exploring query's point is scored only when it is a candidate (NaN otherwise)
        assert s == pytest.approx(s_ref, rel=RTOL, abs=1e-12, nan_ok=True)
        assert dist.estimated_risk() == pytest.approx(ref.estimated_risk(), rel=RTOL)
        if name == "arls-sample":
            assert dist.risk_standard_error_ == pytest.approx(ref.risk_standard_error_, rel=1e-8)
        ref.teach(i_ref, truth[i_ref])
        dist.teach(i, truth[i])
    if name == "focused":  # the uniform draws were made, and reproduced, on the client
        assert explored >= 2


@pytest.mark.cluster
@pytest.mark.parametrize("name", ["arls", "focused"])
def test_an_exclusion_is_drawn_around_as_in_memory(name, pool, data):
    cpool, phi, _, _ = pool
    truth, classes = _truth(name, data)
    ref = _reference(name, phi, classes)
    dist = _distributed(name, cpool, classes)
    first = [int(np.flatnonzero(truth == c)[0]) for c in classes]
    ref.teach_many(first, truth[first])
    dist.teach_many(first, truth[first])
    skipped = [ref.next_query()[0]]
    skipped.append(ref.next_query(exclude=skipped)[0])
    assert dist.next_query(exclude=skipped) == pytest.approx(ref.next_query(exclude=skipped))
    assert dist.next_query(exclude=skipped)[0] not in skipped


def _in_process(phi: np.ndarray, cuts) -> callable:
    """``map_blocks`` over row blocks of ``phi`` in this process (the client's side alone)."""
    bounds = list(zip([0, *cuts], [*cuts, phi.shape[0]], strict=True))
    return lambda fn, *args: [fn(phi[a:b], a, *args) for a, b in bounds]


@pytest.mark.parametrize("exclude", [(), (5, 17, 4000)])
def test_focused_arls_cold_start_draws_as_in_memory(exclude):
    """No label: FocusedARLS scores 1000 points drawn among the free ones; the client draws
    the same positions and finds their pool indices without an n-vector."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 4000)
    phi = rng.normal(size=(4000, 6)) + y[:, None]
    ref = FocusedARLS(kernel="linear", lam=LAM).start(phi, [0, 1])
    dist = BlockQuery(_in_process(phi, [999, 2500]), 4000, [0, 1], "arls-focused", lam=LAM)
    out = np.asarray(sorted(e for e in exclude if e < 4000), dtype=np.intp)  # 4000: none
    np.testing.assert_array_equal(
        dist.focused_candidates(out), np.sort(ref.candidate_indices(exclude))
    )
    i_ref, s_ref = ref.next_query(exclude)
    i, s = dist.next_query(exclude)
    assert i == i_ref and s == pytest.approx(s_ref, rel=RTOL)


@pytest.mark.parametrize("exclude", [(), (5, 17, 3999)])
def test_low_rank_arls_first_draw_is_the_in_memory_one(exclude):
    """No label: every margin ties at 0 and half the candidates are the first points of a
    random order of the free points (the other half drawn among the rest), made on the
    client in O(candidates) memory as the in-memory engine makes it."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 4000)
    phi = rng.normal(size=(4000, 6)) + y[:, None]
    for k in (1, 2, 41, 300):
        ref = LowRankARLS(kernel="linear", lam=LAM, candidates=k, random_state=9)
        ref.start(phi, [0, 1])
        dist = BlockQuery(
            _in_process(phi, [999, 2500]), 4000, [0, 1], "arls-lowrank", lam=LAM,
            candidates=k, random_state=9,
        )  # fmt: skip
        out = np.asarray(sorted(exclude), dtype=np.intp)
        cand = dist.candidate_indices(out)
        np.testing.assert_array_equal(cand, ref.candidate_indices(exclude))
        assert cand.size == k and not set(cand) & set(exclude)
        i_ref, s_ref = ref.next_query(exclude)
        assert dist.next_query(exclude) == pytest.approx((i_ref, s_ref), rel=RTOL)


def test_random_order_walks_past_points_labeled_out_of_order():
    """RandomQuery's order on the client, drawn only as far as the labeled points reach: a
    point labeled by hand far down the order, and an excluded one, are stepped over."""
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 3000)
    phi = rng.normal(size=(3000, 4)) + y[:, None]
    ref = RandomQuery(kernel="linear", lam=LAM, seed=11).start(phi, [0, 1])
    dist = BlockQuery(_in_process(phi, [1500]), 3000, [0, 1], "random", lam=LAM, seed=11)
    by_hand = [int(np.argmax(ref.scores())), 0, 1]  # the order's last point, and two others
    ref.teach_many(by_hand, y[by_hand])
    dist.teach_many(by_hand, y[by_hand])
    for _ in range(15):
        skip = [ref.next_query()[0]]
        i_ref, s_ref = ref.next_query(exclude=skip)
        assert dist.next_query(exclude=skip) == (i_ref, s_ref)
        ref.teach(i_ref, y[i_ref])
        dist.teach(i_ref, y[i_ref])
    assert len(dist._order) <= len(dist.labeled_) + 2  # the order drawn as far as needed


@pytest.mark.cluster
def test_forgetting_a_label_queries_as_in_memory(pool, data):
    cpool, phi, _, _ = pool
    truth, classes = _truth("uncertainty", data)
    ref = _reference("uncertainty", phi, classes)
    dist = _distributed("uncertainty", cpool, classes)
    first = [int(np.flatnonzero(truth == c)[k]) for k in range(3) for c in classes]
    ref.teach_many(first, truth[first])
    dist.teach_many(first, truth[first])
    ref.forget(first[2])
    dist.forget(first[2])
    assert dist.labeled_ == ref.labeled_
    i, s = dist.next_query()
    assert (i, s) == (ref.next_query()[0], pytest.approx(ref.next_query()[1], rel=RTOL))
    assert dist.estimated_risk() == pytest.approx(ref.estimated_risk(), rel=RTOL)
    with pytest.raises(ValueError, match="not among the classes"):
        dist.teach(i, "maybe")
    assert dist.labeled_ == ref.labeled_


@pytest.mark.cluster
def test_a_cluster_backed_session_labels_with_focused_arls(client, data, tmp_path, monkeypatch):
    """The app's default strategy on a cluster-backed project: the session's picks, scores and
    risks are those of the in-memory FocusedARLS on the features of the project's landmarks."""
    from rlscore.data.cluster.parquet_pool import SCHEDULER_ENV

    X, truth, folder = data
    monkeypatch.setenv(SCHEDULER_ENV, client.scheduler.address)
    store = open_store(str(tmp_path / "labels.db"))
    create_cluster_project(
        store, "big", folder, ["neg", "pos"], strategy="arls-focused", sigma=2.0, lam=LAM,
        n_landmarks=M,
    )  # fmt: skip
    session = LabelingSession(
        store, "big", strategy="arls-focused", sigma=2.0, lam=LAM, snapshots=False
    )
    fmap = LowRankKernel(kernel="rbf", sigma=2.0, n_landmarks=M, landmarks="uniform")
    phi = fmap.fit(X[landmark_rows(N, M, 0)]).transform(X)
    ref = FocusedARLS(kernel="linear", lam=LAM).start(phi, ["neg", "pos"])
    for _ in range(5):
        i, score = session.query()
        i_ref, s_ref = ref.next_query()
        assert i == i_ref and score == pytest.approx(s_ref, rel=RTOL, abs=1e-12, nan_ok=True)
        session.label(i, truth[i])
        ref.teach(i_ref, truth[i_ref])
        assert session.engine.estimated_risk() == pytest.approx(ref.estimated_risk(), rel=RTOL)
    assert session.labels == {int(i): truth[i] for i in ref.labeled_}
    rows = [N - 1, 3, session.query()[0]]
    np.testing.assert_allclose(
        session.engine.decision_at(rows), ref.decision_function()[rows], rtol=0, atol=1e-10
    )
    store.close()


@pytest.mark.cluster
def test_the_memory_check_names_the_size_needed(client, data):
    folder = data[2]
    before = set(client.who_has())
    with pytest.raises(ClusterMemoryError, match=r"needs about [\d,]+ MiB per worker") as err:
        ClusterPool.load(client, folder, None, memory_fraction=1e-5)
    need = worker_bytes_needed([ROWS_PER_FILE] * 4, D, D, 2)
    assert f"{need / 2**20:,.0f} MiB" in str(err.value)
    # nothing persisted (futures of earlier tests may be released meanwhile)
    assert set(client.who_has()) <= before


def test_worker_bytes_needed_is_the_share_plus_one_build():
    # 4 blocks of 10 rows over 2 workers: 20 rows of 3 features held, one block of 10 built
    assert worker_bytes_needed([10] * 4, 2, 3, 2) == 8 * (20 * 3 + 10 * (2 * 2 + 3))
    check_worker_memory([10] * 4, 2, 3, [0, 0])  # no limits: nothing to check
    with pytest.raises(ClusterMemoryError, match="at least"):
        check_worker_memory([10] * 4, 2, 3, [1000, 10_000])


def test_an_unreachable_scheduler_is_named(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    with pytest.raises(ClusterUnavailableError, match=address):
        connect(address, timeout=1.0)


def test_importing_rlscore_does_not_import_dask():
    code = (
        "import sys, rlscore, rlscore.query.cluster.block_query, "
        "rlscore.data.cluster.parquet_pool; "
        "print(any(m == 'dask' or m.startswith(('dask.', 'distributed')) for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _wait_for(condition, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.005)
    return value


@pytest.mark.cluster
def test_a_worker_killed_during_a_pass_is_retried(client, pool, data):
    """Last in the module: a worker is killed (its nanny starts a new one)."""
    cpool, phi, _, _ = pool
    truth, classes = _truth("arls", data)
    ref = _reference("arls", phi, classes)
    dist = _distributed("arls", cpool, classes)
    first = [int(np.flatnonzero(truth == c)[0]) for c in classes]
    ref.teach_many(first, truth[first])
    dist.teach_many(first, truth[first])
    expected = ref.next_query()
    pids = client.run(os.getpid)
    result = {}
    thread = threading.Thread(target=lambda: result.update(pick=dist.next_query()))
    thread.start()
    busy = _wait_for(
        lambda: next(
            (
                w
                for w, keys in client.processing().items()
                if any("lookahead" in str(k) for k in keys)
            ),
            None,
        )
    )
    os.kill(pids[busy], signal.SIGKILL)
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert result["pick"][0] == expected[0]
    assert result["pick"][1] == pytest.approx(expected[1], rel=RTOL)
    assert busy not in client.run(os.getpid) or client.run(os.getpid)[busy] != pids[busy]
