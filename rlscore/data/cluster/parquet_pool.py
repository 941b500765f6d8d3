"""A pool on a Dask cluster: Parquet files loaded once into the workers' memory as feature blocks.

The blocks are row blocks of low-rank features, queried by the block passes of
:mod:`rlscore.query.cluster.block_passes`.

The client (the app server) holds the feature map (m landmarks and ``K_mm^{-1/2}``, shipped to
the workers once inside the tasks that build the blocks), the labels, the labeled rows'
features and the m × m state; the workers hold the n × r features. The blocks are Dask futures
of a graph that starts at the Parquet files, so a block lost with a worker is rebuilt by the
scheduler from the files (the pass is retried, not failed). ``dask.distributed`` is imported
here only, when a cluster pool is used: ``import rlscore`` does not import Dask.

The storage format: one row per pool item, the raw features in float columns (by default
every column), any number of Parquet files in a folder or any fsspec URL the workers can read
(``dask.dataframe.read_parquet``); the row order of the files is the pool order.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from rlscore.query.cluster.block_query import BlockQuery


#: share of each worker's memory limit the pool's blocks may take (the rest: the passes'
#: working blocks, the Parquet reader, Dask itself)
MEMORY_FRACTION = 0.5
#: seconds to wait for a scheduler before saying it is unreachable
CONNECT_TIMEOUT = 10.0
#: the key of a cluster-backed project's meta (where its pool is)
CLUSTER_META = "cluster"
#: the environment variable the app will read the scheduler address from
SCHEDULER_ENV = "RLSCORE_DASK_SCHEDULER"


class ClusterUnavailableError(RuntimeError):
    """No Dask scheduler answers at the given address."""


class ClusterMemoryError(MemoryError):
    """The workers' memory limits cannot hold the pool's blocks."""


def connect(address: str, timeout: float = CONNECT_TIMEOUT):
    """A ``distributed.Client`` of the scheduler at ``address``, or a clear error.

    Raises
    ------
    ClusterUnavailableError
        Naming the address when no scheduler answers within ``timeout`` seconds.
    """
    from distributed import Client

    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterUnavailableError(
            f"no Dask scheduler answered at {address} within {timeout:g} s "
            f"({type(exc).__name__}); start one there with `dask scheduler` and workers with "
            f"`dask worker {address}`, or unset {SCHEDULER_ENV} to keep the pool in memory"
        ) from None


def write_pool(X, folder, rows_per_file: int = 100_000) -> list[Path]:
    """Write a pool ``X`` (n, d) as Parquet files ``part-00000.parquet``, … in ``folder``
    (columns ``x0 … x{d-1}``, float64), in row order; returns the paths."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    X = np.asarray(X, dtype=np.float64)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, s in enumerate(range(0, X.shape[0], rows_per_file)):
        rows = X[s : s + rows_per_file]
        table = pa.table({f"x{j}": rows[:, j] for j in range(X.shape[1])})
        path = folder / f"part-{k:05d}.parquet"
        pq.write_table(table, path)
        paths.append(path)
    return paths


def worker_bytes_needed(sizes, n_raw: int, n_features: int, n_workers: int) -> int:
    """Bytes one worker needs for its share of the blocks: the larger of the biggest block and
    an even share of all of them (8 bytes × r per row), plus building the biggest block (its
    raw rows twice — Parquet and numpy — and its features)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.size == 0:
        return 0
    biggest = int(sizes.max())
    share = max(biggest, -(-int(sizes.sum()) // max(n_workers, 1)))
    return 8 * (share * n_features + biggest * (2 * n_raw + n_features))


def check_worker_memory(
    sizes, n_raw: int, n_features: int, limits, fraction: float = MEMORY_FRACTION
) -> None:
    """Raise :class:`ClusterMemoryError` with the size needed when the workers' memory limits
    (bytes, 0 for none) cannot hold the blocks in ``fraction`` of the smallest limit."""
    limits = [int(x) for x in limits]
    if not limits:
        raise ClusterMemoryError("the cluster has no workers: start `dask worker <scheduler>`")
    need = worker_bytes_needed(sizes, n_raw, n_features, len(limits))
    bounded = [x for x in limits if x > 0]
    if not bounded or need <= fraction * min(bounded):
        return
    n = int(np.sum(sizes))
    raise ClusterMemoryError(
        f"the pool needs about {need / 2**20:,.0f} MiB per worker ({n:,} rows × {n_features} "
        f"features × 8 bytes over {len(limits)} workers, and building a block of "
        f"{int(np.max(sizes)):,} rows), but a worker's memory limit is "
        f"{min(bounded) / 2**20:,.0f} MiB and the pool may use {fraction:.0%} of it: give each "
        f"worker at least {need / fraction / 2**20:,.0f} MiB (`dask worker --memory-limit`), "
        f"add workers, or write the pool in smaller files"
    )


def _feature_block(frame, feature_map) -> np.ndarray:
    """The features of one partition: ``feature_map.transform`` of its rows (the rows
    themselves with no map), float64, C order."""
    X = frame.to_numpy(dtype=np.float64)
    out = X if feature_map is None else feature_map.transform(X)
    return np.ascontiguousarray(out, dtype=np.float64)


def _raw_rows(frame, local: np.ndarray) -> np.ndarray:
    return frame.to_numpy(dtype=np.float64)[local]


class ClusterPool:
    """A pool's feature blocks held by Dask workers (module docstring).

    Build it with :meth:`load`; :meth:`map_blocks` runs a block pass, :meth:`query` gives a
    :class:`~rlscore.query.cluster.block_query.BlockQuery` on it.

    Attributes
    ----------
    sizes : ndarray (P,)
        Rows per block, in pool order; ``offsets`` their first global index.
    n_features : int
        Features per row (r).
    """

    def __init__(self, client, futures, sizes, n_features: int) -> None:
        self.client = client
        self._futures = list(futures)
        self.sizes = np.asarray(sizes, dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.int64)
        self.n_features = int(n_features)

    def __deepcopy__(self, memo) -> ClusterPool:
        # one handle on the workers' blocks, which no pass changes: a copy of a query state
        # (a lookahead, rlscore.query.protocol.batch) shares it rather than copying the client
        return self

    @property
    def n_pool(self) -> int:
        return int(self.sizes.sum())

    @staticmethod
    def read(url: str, columns: list[str] | None = None):
        """The Parquet pool as a ``dask.dataframe`` (lazy)."""
        import dask.dataframe as dd

        return dd.read_parquet(url, columns=columns)

    @staticmethod
    def partition_sizes(client, frame) -> np.ndarray:
        """Rows of each partition (one pass over the files on the client's workers, whether
        or not the client is Dask's default)."""
        return np.asarray(client.compute(frame.map_partitions(len)).result(), dtype=np.int64)

    @classmethod
    def sample_rows(cls, client, url: str, indices, columns: list[str] | None = None):
        """The raw rows ``indices`` of the Parquet pool (e.g. to fit the landmarks), (q, d)."""
        import dask

        frame = cls.read(url, columns)
        sizes = cls.partition_sizes(client, frame)
        idx = np.asarray(indices, dtype=np.intp)
        order = np.argsort(idx, kind="stable")
        ends = np.cumsum(sizes)
        starts = ends - sizes
        tasks = []
        for part, s, e in zip(frame.to_delayed(), starts, ends, strict=True):
            lo, hi = np.searchsorted(idx[order], [s, e])
            if hi > lo:
                tasks.append(dask.delayed(_raw_rows)(part, idx[order][lo:hi] - s))
        rows = np.vstack(client.gather(client.compute(tasks)))
        out = np.empty_like(rows)
        out[order] = rows
        return out

    @classmethod
    def load(
        cls,
        client,
        url: str,
        feature_map=None,
        columns: list[str] | None = None,
        memory_fraction: float = MEMORY_FRACTION,
    ) -> ClusterPool:
        """Load the Parquet pool at ``url`` into the workers as feature blocks and wait.

        Parameters
        ----------
        client : distributed.Client
        url : str
            A folder or fsspec URL of Parquet files (the workers read it).
        feature_map : object with ``transform(X)`` (e.g. a fitted
            :class:`~rlscore.core.kernels.lowrank.LowRankKernel`), or None
            Applied to each partition on the workers; None keeps the raw columns.
        columns : list of str, optional
            The raw feature columns (default: every column).
        memory_fraction : float
            Share of a worker's memory limit the blocks may take.

        Raises
        ------
        ClusterMemoryError
            Before anything is persisted, with the size needed per worker.
        """
        import dask

        frame = cls.read(url, columns)
        n_raw = len(frame.columns)
        r = (
            n_raw
            if feature_map is None
            else int(feature_map.transform(np.zeros((1, n_raw))).shape[1])
        )
        sizes = cls.partition_sizes(client, frame)
        limits = [w.get("memory_limit", 0) for w in client.scheduler_info()["workers"].values()]
        check_worker_memory(sizes, n_raw, r, limits, memory_fraction)
        shipped = dask.delayed(feature_map, traverse=False)  # one copy in the graph
        blocks = [dask.delayed(_feature_block)(p, shipped) for p in frame.to_delayed()]
        futures = client.compute(blocks)
        # wait for every block, through this client (it need not be Dask's default)
        built = client.gather([client.submit(len, f) for f in futures])
        if list(built) != sizes.tolist():
            raise RuntimeError(f"the blocks have {built} rows, the partitions {sizes.tolist()}")
        return cls(client, futures, sizes, r)

    def map_blocks(self, fn, *args) -> list:
        """``[fn(Φ_b, offset_b, *args) for every block b]``, run where the blocks live."""
        client = self.client
        # wrapped in a list: a tuple or dict scattered bare would become one future per item
        shared = [
            client.scatter([a], broadcast=True)[0] if _send_once(a, len(self._futures)) else a
            for a in args
        ]
        tasks = [
            client.submit(fn, block, int(off), *shared, pure=False)
            for block, off in zip(self._futures, self.offsets, strict=True)
        ]
        from distributed import KilledWorker

        try:
            return client.gather(tasks)
        except KilledWorker as exc:
            # Dask already rebuilt the lost blocks and retried (allowed-failures); give up
            # with a message rather than a traceback: the labels were committed before
            raise ClusterUnavailableError(
                f"the pass {getattr(fn, '__name__', fn)} failed: workers of the cluster at "
                f"{self.address} died while running it ({exc}); check the workers' logs and "
                "memory, then retry (the labels are not affected)"
            ) from None

    @property
    def address(self) -> str:
        """The scheduler's address."""
        return str(self.client.scheduler.address)

    def query(self, classes, strategy: str = "arls-lowrank", **params) -> BlockQuery:
        """A :class:`~rlscore.query.cluster.block_query.BlockQuery` on this pool."""
        # imported here: the block passes load the low-rank features' scikit-learn, which a
        # page that only asks whether a project is cluster-backed never needs
        from rlscore.query.cluster.block_query import BlockQuery

        return BlockQuery(self.map_blocks, self.n_pool, classes, strategy, **params)

    def release(self) -> None:
        """Drop the blocks from the workers' memory."""
        self.client.cancel(self._futures)
        self._futures = []


def _array_bytes(value) -> int:
    """Bytes of the arrays in ``value`` (an array, or tuples, lists and dicts of them)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(_array_bytes(v) for v in value)
    if isinstance(value, dict):
        return sum(_array_bytes(v) for v in value.values())
    return 0


def _send_once(value, blocks: int) -> bool:
    """Whether an argument is worth sending once to every worker rather than inside each of
    the ``blocks`` tasks: its copies would add up to more than 1 MB (a lookahead's payload of
    160 kB, pickled into each of 1000 blocks' tasks, made the app server's memory grow with
    the number of files)."""
    return _array_bytes(value) * blocks > 1 << 20


__all__ = [
    "CLUSTER_META",
    "CONNECT_TIMEOUT",
    "MEMORY_FRACTION",
    "SCHEDULER_ENV",
    "ClusterMemoryError",
    "ClusterPool",
    "ClusterUnavailableError",
    "check_worker_memory",
    "connect",
    "worker_bytes_needed",
    "write_pool",
]
