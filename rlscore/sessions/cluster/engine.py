"""A session's engine on a pool that lives on a Dask cluster (a *cluster-backed* project).

The project records where its pool is (``meta["cluster"]``: the Parquet folder or URL and
its feature columns; :mod:`rlscore.sessions.cluster.projects` creates it) and holds no
features: the app server keeps the labels, the m × m state of the labeled rows and the
shortlist of a query, the workers the n × r features. The server's scheduler is given by
:data:`~rlscore.data.cluster.parquet_pool.SCHEDULER_ENV` (``RLSCORE_DASK_SCHEDULER=tcp://host:port``);
without it, opening the project is a :class:`ClusterPoolError` naming the variable.

The pool is loaded into the workers once per server process (:func:`shared_pool`, keyed by
the scheduler, the files and the feature map) and shared by every session on it, as the app
caches its in-memory pools. Features: with ``n_landmarks`` m, the Nyström features of the
session's kernel and σ on m landmark rows drawn uniformly from the pool
(:func:`landmark_rows`); with ``n_landmarks`` None, the raw columns themselves (an RLS with
the linear kernel). Queries run the block passes of :mod:`rlscore.query.cluster.block_passes`: the
pick and score equal the in-memory engine's on the same features.

**Labels never wait for the cluster.** A label reaches the engine after it is committed to
the database (:meth:`~rlscore.sessions.actions.session.LabelingSession.label`), and the engine only
records it (:meth:`ClusterEngine.teach` never touches the cluster); the labeled rows are
fetched at the next pass, all pending ones at once. A cluster that fails then (a worker lost
beyond Dask's retries, the scheduler gone) is a :class:`ClusterPoolError` with the address;
the labels are in the database and still pending, so the next pass fetches them again.

Dask is imported only when such a project is opened.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import CancelledError
from contextlib import contextmanager
from functools import partial

import numpy as np

from rlscore.core.kernels.lowrank import LowRankKernel
from rlscore.core.rls.confidence import predicted_index, soft_probabilities
from rlscore.data.cluster.parquet_pool import (
    SCHEDULER_ENV,
    ClusterMemoryError,
    ClusterPool,
    ClusterUnavailableError,
    connect,
)
from rlscore.query.arls.focused import DEFAULT_EXPLORE, DEFAULT_FOCUS, DEFAULT_OFFSET_PRECISION
from rlscore.query.cluster.block_passes import BlockPredictions
from rlscore.query.cluster.block_query import BLOCK_STRATEGIES, BlockQuery
from rlscore.query.protocol.strategy import QueryStrategy

#: feature maps loaded at once per server (each holds the pool's features on the workers)
MAX_POOLS = 2
#: points of the pool plot's sample (fetched from the cluster; never the whole pool)
PLOT_SAMPLE = 2000
#: cells per axis of the pool plot's density layer (the in-memory plot's grid)
DENSITY_BINS = 100


class ClusterPoolError(ValueError):
    """A cluster-backed pool cannot be used now; the message says why and what to do."""


def scheduler_address() -> str:
    """The scheduler address of this server (:data:`SCHEDULER_ENV`), or a
    :class:`ClusterPoolError` naming the variable."""
    address = os.environ.get(SCHEDULER_ENV, "").strip()
    if not address:
        raise ClusterPoolError(
            f"this project's pool lives on a Dask cluster, and this app server has no "
            f"scheduler: start it with {SCHEDULER_ENV}=tcp://host:port (the address of "
            "`dask scheduler`), or open a project held in memory"
        )
    return address


def landmark_rows(n: int, m: int, seed: int) -> np.ndarray:
    """The pool rows whose features are the Nyström landmarks: ``m`` of ``n`` drawn uniformly
    without replacement by ``numpy.random.default_rng(seed)``, sorted."""
    return np.sort(np.random.default_rng(seed).choice(n, m, replace=False))


@contextmanager
def cluster_errors(address: str) -> Iterator[None]:
    """Turn the cluster's failures into :class:`ClusterPoolError` (a message, no traceback):
    the scheduler unreachable or gone, workers lost beyond Dask's retries, memory too small."""
    try:
        yield
    except (ClusterUnavailableError, ClusterMemoryError) as exc:
        raise ClusterPoolError(str(exc)) from None
    except (OSError, TimeoutError, CancelledError) as exc:
        _drop_pools(address)  # the next open connects and loads again
        raise ClusterPoolError(
            f"the Dask cluster at {address} stopped answering during a pass "
            f"({type(exc).__name__}); the labels are saved in the database: check the "
            "scheduler and workers, then reload the page"
        ) from None


# -- the pools loaded by this server ---------------------------------------------------------
_POOLS: OrderedDict[tuple, ClusterPool] = OrderedDict()
_CLIENTS: dict[str, object] = {}
_LOCK = threading.RLock()  # re-entered when a failed load drops the address's pools


def _client(address: str):
    client = _CLIENTS.get(address)
    if client is None or client.status not in ("running", "connecting"):
        client = connect(address)
        _CLIENTS[address] = client
    return client


def _drop_pools(address: str) -> None:
    with _LOCK:
        for key in [k for k in _POOLS if k[0] == address]:
            del _POOLS[key]
        client = _CLIENTS.pop(address, None)
    if client is not None:
        try:
            client.close()
        except Exception:  # noqa: BLE001 - closing a dead client may fail any way: ignore
            pass


def shared_pool(
    address: str,
    url: str,
    columns: Sequence[str],
    n_landmarks: int | None,
    kernel: str,
    sigma: float,
    seed: int,
) -> ClusterPool:
    """The pool of Parquet files ``url`` as feature blocks on the workers of ``address``,
    loaded once per server process and feature map (module docstring)."""
    columns = list(columns)
    fmap_key = None if not n_landmarks else (int(n_landmarks), kernel, float(sigma), int(seed))
    key = (address, url, tuple(columns), fmap_key)
    with _LOCK, cluster_errors(address):
        pool = _POOLS.get(key)
        if pool is not None and pool.client.status == "running":
            _POOLS.move_to_end(key)
            return pool
        client = _client(address)
        fmap = None
        if fmap_key is not None:
            frame = ClusterPool.read(url, columns)
            n = int(ClusterPool.partition_sizes(client, frame).sum())
            m = min(int(n_landmarks), n)
            rows = ClusterPool.sample_rows(client, url, landmark_rows(n, m, seed), columns)
            fmap = LowRankKernel(kernel=kernel, sigma=sigma, n_landmarks=m, landmarks="uniform")
            fmap.fit(rows)
        pool = ClusterPool.load(client, url, fmap, columns)
        _POOLS[key] = pool
        while len(_POOLS) > MAX_POOLS:
            # forgotten, not released: a session still open on it keeps it until it closes
            # (Dask frees the blocks with the last reference to their futures)
            _POOLS.popitem(last=False)
        return pool


def raw_rows(pool: dict, indices: Sequence[int]) -> tuple[list[str], np.ndarray]:
    """The raw feature columns of a cluster-backed project's pool (``pool``: its
    ``meta["cluster"]``) at the rows ``indices`` only, read by the workers of this server's
    scheduler (:func:`scheduler_address`) and shipped here in that order: the columns' names
    and a (k, d) array. What an export writes for the labeled rows; the other rows never leave
    the workers."""
    url, columns = str(pool["url"]), list(pool.get("columns") or [])
    idx = np.asarray(list(indices), dtype=np.intp).reshape(-1)
    if not idx.size:
        return columns, np.empty((0, len(columns)))
    address = scheduler_address()
    with _LOCK, cluster_errors(address):
        client = _client(address)
        return columns, ClusterPool.sample_rows(client, url, idx, columns)


# -- the engine ------------------------------------------------------------------------------
class ClusterEngine(QueryStrategy):
    """A query strategy of a cluster-backed project, as a session's engine (module docstring).

    Parameters
    ----------
    pool : dict
        The project's ``meta["cluster"]``: ``url``, ``columns`` and ``n_landmarks`` (the m
        used when the strategy takes none).
    strategy : {"arls-lowrank", "arls-focused", "uncertainty", "entropy", "random"}
        The in-memory strategy reproduced
        (:data:`~rlscore.query.cluster.block_query.BLOCK_STRATEGIES`).
    kernel, sigma, n_landmarks
        The feature map: m landmarks of this kernel (None: the project's m; the raw columns
        if it has none).
    lam, class_weight, candidates, risk_sample, random_state, seed, focus, fit_intercept, explore,
    offset_precision
        As :class:`~rlscore.query.cluster.block_query.BlockQuery`; ``random_state`` also seeds the
        landmark draw.
    tune : {"none"}
        The automatic λ (RLS leave-one-out on the labeled rows) is not available here.
    """

    # the state is the labels: replaying them is one fetch of their rows
    snapshot_worthy = False

    def __init__(
        self,
        pool: dict | None = None,
        strategy: str = "arls-lowrank",
        kernel: str = "rbf",
        sigma: float = 1.0,
        lam: float = 1.0,
        class_weight=None,
        n_landmarks: int | None = None,
        candidates: int | None = None,
        risk_sample: int | None = None,
        random_state: int | None = 0,
        seed: int | None = 0,
        tune: str = "none",
        focus: int = DEFAULT_FOCUS,
        fit_intercept: bool = True,
        explore: float = DEFAULT_EXPLORE,
        offset_precision: float = DEFAULT_OFFSET_PRECISION,
    ) -> None:
        self.pool = pool
        self.strategy = strategy
        self.kernel = kernel
        self.sigma = sigma
        self.lam = lam
        self.class_weight = class_weight
        self.n_landmarks = n_landmarks
        self.candidates = candidates
        self.risk_sample = risk_sample
        self.random_state = random_state
        self.seed = seed
        self.tune = tune
        self.focus = focus
        self.fit_intercept = fit_intercept
        self.explore = explore
        self.offset_precision = offset_precision

    def needs_pool_kernel(self) -> bool:
        return False

    def kernel_params(self) -> dict:
        return {"kernel": self.kernel, "sigma": self.sigma, "n_landmarks": self.n_landmarks}

    def memory_bytes(self, n: int, n_classes: int = 2) -> int:
        """Bytes on the app server that grow with the pool's ``n`` points: none. A labeling
        session reads no n-vector of the pool here — the history keeps a classifier's state per
        label (:meth:`pool_predictions`), the draws are made as far as they go
        (:class:`~rlscore.query.protocol.random_order.SparseShuffle`), the panel and the plot read a
        few rows — so 0: only the whole-pool reads no click makes (:meth:`decision_function`,
        :meth:`predicted_positions`, :meth:`scores`) allocate n values, on demand."""
        return 0

    def _check(self) -> None:
        if self.strategy not in BLOCK_STRATEGIES:
            names = ", ".join(repr(s) for s in BLOCK_STRATEGIES)
            raise ClusterPoolError(
                f"strategy {self.strategy!r} has no pass over a pool on a cluster: choose "
                f"one of {names} in the sidebar"
            )
        if self.tune != "none":
            raise ClusterPoolError(
                "the automatic λ is not available for a pool on a cluster: untick it and "
                "set λ in the sidebar"
            )
        if not self.pool or not self.pool.get("url"):
            raise ClusterPoolError("the project does not say where its pool lives")

    # -- lifecycle ------------------------------------------------------------------------
    def start(self, X, classes: Sequence, *, K: np.ndarray | None = None) -> ClusterEngine:
        """Start on the project's pool: ``X`` is its (n, 0) placeholder (only n is read);
        connects to the scheduler and loads the pool if this server has not yet."""
        self._check()
        classes = np.asarray(list(classes))
        if classes.ndim != 1 or classes.size < 2 or np.unique(classes).size != classes.size:
            raise ValueError(f"classes must list at least 2 distinct classes, got {classes!r}")
        n = int(np.shape(X)[0])
        self.address_ = scheduler_address()
        url, columns = str(self.pool["url"]), list(self.pool.get("columns") or [])
        # the project's m when the strategy takes none (uncertainty, entropy, random): every
        # strategy of the project runs on the same features
        m = self.n_landmarks if self.n_landmarks is not None else self.pool.get("n_landmarks")
        cpool = shared_pool(
            self.address_, url, columns, m, self.kernel, float(self.sigma),
            int(self.random_state or 0),
        )  # fmt: skip
        if cpool.n_pool != n:
            raise ClusterPoolError(
                f"the project has {n:,} points but the Parquet files at {url} now hold "
                f"{cpool.n_pool:,} rows: the files changed since the project was created"
            )
        self.X_ = np.empty((n, 0))
        self.classes_ = classes
        self.n_pool_ = n
        self.sigma_ = float(self.sigma)
        self.labeled_, self.labels_ = [], []
        self._K_given, self._K_params = None, self.kernel_params()
        self.cluster_pool_ = cpool
        self._query: BlockQuery = cpool.query(
            classes, self.strategy, lam=float(self.lam), class_weight=self.class_weight,
            candidates=self.candidates, risk_sample=self.risk_sample,
            random_state=self.random_state, seed=self.seed, focus=self.focus,
            fit_intercept=self.fit_intercept, explore=self.explore,
            offset_precision=self.offset_precision,
        )  # fmt: skip
        self._pending: dict[int, object] = {}
        self._version = 0
        self._values: tuple[int, np.ndarray] | None = None
        self._positions: tuple[int, np.ndarray] | None = None
        self._pick: tuple[int, tuple, tuple[int, float]] | None = None
        return self

    def _start(self, X, K) -> None:  # pragma: no cover - start is overridden
        raise NotImplementedError

    # -- labels: recorded here, sent with the next pass -----------------------------------
    def _add(self, i: int, c: int) -> None:
        self._pending[int(i)] = self.classes_[c].item()
        self._version += 1

    def _remove(self, position: int) -> None:
        i = int(self.labeled_[position])
        if self._pending.pop(i, None) is None:
            self._query.forget(i)  # local: the state is rebuilt from the other rows
        self._version += 1

    def _flush(self) -> BlockQuery:
        """The block query taught every label (the pending rows fetched in one pass)."""
        if self._pending:
            with cluster_errors(self.address_):
                self._query.teach_many(list(self._pending), list(self._pending.values()))
            self._pending = {}
        return self._query

    # -- passes ---------------------------------------------------------------------------
    def next_query(self, exclude=None) -> tuple[int, float]:
        """The in-memory strategy's pick and score (cached until the labels change)."""
        self._check_started()
        ex = () if exclude is None else tuple(sorted({int(e) for e in exclude}))
        if self._pick is not None and self._pick[:2] == (self._version, ex):
            return self._pick[2]
        q = self._flush()
        with cluster_errors(self.address_):
            pick = q.next_query(exclude=ex)
        self._pick = (self._version, ex, pick)
        return pick

    def scores(self) -> np.ndarray:
        """NaN but at the last pick (its score): only the shortlist's winner reaches this
        server, never a score per pool point."""
        self._check_started()
        out = np.full(self.n_pool_, np.nan)
        if self._pick is not None and self._pick[0] == self._version:
            out[self._pick[2][0]] = self._pick[2][1]
        return out

    def score_at(self, i: int) -> float:
        """The last pick's score at ``i``, NaN elsewhere (:meth:`scores` without its n-vector)."""
        self._check_started()
        pick = self._pick
        if pick is not None and pick[0] == self._version and pick[2][0] == int(i):
            return float(pick[2][1])
        return float("nan")

    @property
    def risk_standard_error_(self) -> float:
        return float(self._query.risk_standard_error_)

    def estimated_risk(self) -> float:
        """``R̂(f)`` on the whole pool (the summary pass)."""
        self._check_started()
        q = self._flush()
        with cluster_errors(self.address_):
            return float(q.estimated_risk())

    def decision_function(self) -> np.ndarray:
        """Decision values on every pool point, (n,) or (n, T) (one pass, cached until the
        labels change): n × T floats on this server, never the features. No caller of a
        labeling click reads it: the history reads :meth:`pool_predictions`, the panel
        and the plot :meth:`decision_at` and :meth:`sample_view`."""
        self._check_started()
        if self._values is None or self._values[0] != self._version:
            q = self._flush()
            with cluster_errors(self.address_):
                values = q.decision_values()
            self._values = (self._version, values[:, 0] if values.shape[1] == 1 else values)
        return self._values[1]

    def predicted_positions(self) -> np.ndarray:
        """The position in ``classes_`` of every pool point's predicted class (what
        :meth:`predict` would index ``classes_`` by: ``predicted_index`` of the decision
        values), (n,) in the smallest integer dtype, read-only: computed on the workers
        (:meth:`~rlscore.query.cluster.block_query.BlockQuery.predicted_positions`), so this server
        holds n bytes (up to 256 classes) instead of the n × T' decision values. Cached until
        the labels change. For a caller that needs every point's class; the session's history
        reads :meth:`pool_predictions` instead (no n-vector)."""
        self._check_started()
        if self._positions is None or self._positions[0] != self._version:
            q = self._flush()
            with cluster_errors(self.address_):
                positions = q.predicted_positions()
            positions.flags.writeable = False  # shared by every caller until the labels change
            self._positions = (self._version, positions)
        return self._positions[1]

    def pool_predictions(self) -> BlockPredictions:
        """The pool's predicted classes under the current labels, kept as the r × T' state
        that makes them (:class:`~rlscore.query.cluster.block_passes.BlockPredictions`): what the
        session's history records per label
        (:func:`rlscore.sessions.views.diagnostics.predicted_codes`) instead of n codes. Comparing
        two (``count_changed``) is one pass on the workers that
        returns one count per block; its failures are :class:`ClusterPoolError`."""
        self._check_started()
        return self._flush().pool_predictions(partial(cluster_errors, self.address_))

    def decision_at(self, indices: Sequence[int]) -> np.ndarray:
        """Decision values at the pool rows ``indices`` only, (k,) or (k, T): their features
        fetched in one rows pass, the rest of the pool untouched. What a caller that shows a
        few points (the query panel, the plot's sample) reads instead of
        :meth:`decision_function`, whose n values this server would otherwise hold."""
        self._check_started()
        idx = np.asarray(list(indices), dtype=np.intp).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.n_pool_):
            raise ValueError(f"point indices outside the pool (0 … {self.n_pool_ - 1})")
        q = self._flush()
        with cluster_errors(self.address_):
            phi = q.rows(idx) if idx.size else np.empty((0, q.coefficients().shape[0]))
        values = q.decisions(phi)
        return values[:, 0] if values.shape[1] == 1 else values

    def predict_proba_at(self, indices: Sequence[int]) -> np.ndarray:
        """:meth:`predict_proba` at the rows ``indices`` only, (k, T) (:meth:`decision_at`)."""
        return soft_probabilities(self.decision_at(indices))

    def predict_at(self, indices: Sequence[int]) -> np.ndarray:
        """:meth:`predict` at the rows ``indices`` only, (k,) (:meth:`decision_at`)."""
        return self.classes_[predicted_index(self.decision_at(indices))]

    def density(
        self, center: np.ndarray, axes: np.ndarray, bins: int = DENSITY_BINS
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pool plot's density layer computed on the workers: every pool row's features
        projected by ``(φ − center) A`` (e.g. the PCA of the plot's sample) and counted on a
        ``bins`` × ``bins`` grid over their extent; ``(x_edges, y_edges, counts)`` as
        :meth:`~rlscore.query.cluster.block_query.BlockQuery.density`. Only the grid reaches this
        server."""
        self._check_started()
        with cluster_errors(self.address_):
            return self._query.density(center, axes, bins)

    def sample_view(self, size: int = PLOT_SAMPLE, extra: Sequence[int] = ()) -> dict:
        """What the pool plot draws: ``size`` rows drawn uniformly (seeded by the pool size,
        so the same rows every time) plus the rows ``extra`` (the query, the labeled points),
        fetched in one pass: their pool indices, features, decision values and
        probabilities. Never more rows than that reach this server."""
        self._check_started()
        q = self._flush()
        n = self.n_pool_
        drawn = np.random.default_rng(n).choice(n, min(int(size), n), replace=False)
        idx = np.union1d(drawn, np.asarray(list(extra), dtype=np.intp))
        with cluster_errors(self.address_):
            phi = q.rows(idx)
        values = q.decisions(phi)
        f = values[:, 0] if values.shape[1] == 1 else values
        return {
            "indices": idx,
            "features": phi,
            "decision": f,
            "probabilities": soft_probabilities(f),
        }


__all__ = [
    "DENSITY_BINS",
    "MAX_POOLS",
    "PLOT_SAMPLE",
    "ClusterEngine",
    "ClusterPoolError",
    "cluster_errors",
    "landmark_rows",
    "raw_rows",
    "scheduler_address",
    "shared_pool",
]
