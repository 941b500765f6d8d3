"""Cluster-backed projects: a pool of partitioned Parquet files that the app never loads.

:func:`create_cluster_project` stores a project that records where its pool lives (the
folder or fsspec URL of the Parquet files and the feature columns, ``meta["cluster"]``) and
its size, read from the files' footers — no row is read. Its ``X`` is an (n, 0) placeholder:
the features are built on the Dask workers when a server with a scheduler opens it
(:mod:`rlscore.sessions.cluster.engine`). Its points are named by their row number in the
files' order (the order ``dask.dataframe.read_parquet`` reads them: the files sorted by
name). Its settings are saved for a strategy with a cluster pass (default low-rank ARLS).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.data.cluster.parquet_pool import CLUSTER_META
from rlscore.data.projects.project import Project, ProjectInputError, RowIds
from rlscore.query.cluster.block_query import BLOCK_STRATEGIES
from rlscore.sessions.state.settings import check_settings, save_project_settings
from rlscore.storage import LabelStore

#: the low-rank settings a cluster-backed project starts with (candidates, risk points: 0 is
#: every point)
CLUSTER_DEFAULTS = {"n_landmarks": 200, "candidates": 200, "risk_sample": 20_000}


def parquet_shape(url: str, columns: Sequence[str] | None = None) -> tuple[int, list[str]]:
    """Rows of the Parquet files at ``url`` (from their footers) and the feature columns: the
    given ones, checked to exist and be numeric, else every numeric column.

    Raises
    ------
    ProjectInputError
        No Parquet files there, or a column missing or not numeric.
    """
    import fsspec
    import pyarrow as pa
    import pyarrow.dataset as ds

    try:
        fs, path = fsspec.core.url_to_fs(str(url))
        dataset = ds.dataset(path, filesystem=fs, format="parquet")
        n = int(dataset.count_rows())
    except FileNotFoundError:
        # its message is the path alone
        raise ProjectInputError(
            f"cannot read Parquet files at {url}: no such file or folder"
        ) from None
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise ProjectInputError(f"cannot read Parquet files at {url}: {exc}") from None
    schema = dataset.schema
    numeric = [
        f.name for f in schema if pa.types.is_floating(f.type) or pa.types.is_integer(f.type)
    ]
    if columns is None:
        chosen = numeric
    else:
        chosen = [str(c) for c in columns]
        missing = [c for c in chosen if c not in schema.names]
        if missing:
            raise ProjectInputError(
                f"columns {missing} are not in the Parquet files at {url} (they have "
                f"{schema.names})"
            )
        other = [c for c in chosen if c not in numeric]
        if other:
            raise ProjectInputError(f"feature columns {other} are not numeric")
    if not chosen:
        raise ProjectInputError(f"the Parquet files at {url} have no numeric column")
    if n < 2:
        raise ProjectInputError(f"the Parquet files at {url} hold {n} rows: a pool needs 2")
    return n, chosen


def _checked_settings(strategy, sigma, lam, n_landmarks, candidates, risk_sample) -> dict:
    """The project's settings, validated (:func:`check_settings`: ``ValueError`` naming the
    first bad one)."""
    return check_settings(
        {
            "strategy": strategy,
            "kernel": "rbf",
            "sigma": plain_scalar(sigma),
            "lam": plain_scalar(lam),
            "lam_auto": False,
            "n_landmarks": plain_scalar(n_landmarks),
            "landmarks": "uniform",
            "candidates": plain_scalar(candidates),
            "risk_sample": plain_scalar(risk_sample),
            "refine": 0,
        }
    )


def create_cluster_project(
    store: LabelStore,
    name: str,
    url: str,
    classes: Sequence,
    *,
    feature_columns: Sequence[str] | None = None,
    strategy: str = "arls-lowrank",
    sigma: float = 1.0,
    lam: float = 0.5,
    n_landmarks: int = CLUSTER_DEFAULTS["n_landmarks"],
    candidates: int = CLUSTER_DEFAULTS["candidates"],
    risk_sample: int = CLUSTER_DEFAULTS["risk_sample"],
    description: str = "",
) -> Project:
    """Store a project whose pool is the Parquet files at ``url``, and its settings.

    Parameters
    ----------
    store
        The label store (``ValueError`` if ``name`` is taken).
    name
        Project name.
    url
        A folder or fsspec URL of Parquet files that this machine and the Dask workers read.
    classes
        The classes to choose from (at least 2).
    feature_columns
        The raw feature columns (default: every numeric column).
    strategy
        One of :data:`~rlscore.query.cluster.block_query.BLOCK_STRATEGIES`.
    sigma, lam
        The RBF width of the landmark features and λ.
    n_landmarks, candidates, risk_sample
        Low-rank settings: landmarks (1 … 5000), candidates and risk points (0: every point).
    description
        Shown on the Data page.

    Returns
    -------
    Project
        As stored (with its uid).
    """
    if strategy not in BLOCK_STRATEGIES:
        raise ProjectInputError(
            f"strategy {strategy!r} has no cluster pass: choose one of {list(BLOCK_STRATEGIES)}"
        )
    # checked before anything is stored: a bad σ or λ left a project behind, with the bad
    # value in its meta and none of these settings saved
    settings = _checked_settings(strategy, sigma, lam, n_landmarks, candidates, risk_sample)
    sigma, lam = settings["sigma"], settings["lam"]
    n_landmarks = settings["n_landmarks"]
    n, columns = parquet_shape(url, feature_columns)
    meta = {
        "description": description or f"Pool of {n:,} rows on a Dask cluster, read from {url}",
        "sigma": float(sigma),
        "lam": float(lam),
        "source": str(url),
        CLUSTER_META: {"url": str(url), "columns": columns, "n_landmarks": int(n_landmarks)},
    }
    project = Project(
        name=name,
        X=np.empty((n, 0)),
        feature_names=[],
        ids=RowIds(n),
        truth=None,
        classes=list(classes),
        meta=meta,
    )
    store.create_project(project)
    save_project_settings(store, project.name, settings, checked=False)
    return store.load_project(project.name)


__all__ = ["CLUSTER_DEFAULTS", "create_cluster_project", "parquet_shape"]
