"""The pool's picture for a cached session: its 2-D projection and the decision surface.

Both are kept in the session handle's cache (:class:`rlscore.ui.shell.store.SessionHandle`), the
projection for the session's life, the surface until the labels or the engine change (and, for
an engine on features, the grid points' features until the engine or its feature map change). A
project of texts or images is drawn as a map of its items
(:func:`rlscore.data.items.item_map.map_coordinates`) whose hovers are escaped snippets
(:func:`rlscore.data.items.item_map.hover_texts`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import numpy as np

from rlscore.data.items.item_map import hover_texts, map_coordinates
from rlscore.ui.shell.store import SessionHandle
from rlscore.viz.figures.density_layer import draws_density
from rlscore.viz.figures.pool_sampling import MAX_POINTS
from rlscore.viz.plane.geometry import (
    DENSITY_BINS,
    PlaneProjection,
    density_grid,
    grid_points,
    grid_surface,
    interpolated_surface,
    plane_projection,
)


def _has_items(handle: SessionHandle) -> bool:
    return any(c.kind in ("text", "image") for c in handle.session.project.items)


def projection(handle: SessionHandle) -> PlaneProjection:
    """The 2-D coordinates of the session's pool (computed once per session): the items' map
    for a project of texts or images, else the features or their PCA projection."""
    if "projection" not in handle.cache:
        project = handle.session.project
        if _has_items(handle):
            xy = map_coordinates(project.X)
            plane = PlaneProjection(xy, ("map axis 1", "map axis 2"), project.X.shape[1] > 2)
        else:
            plane = plane_projection(project.X, project.feature_names)
        handle.cache["projection"] = plane
    return handle.cache["projection"]


def hovers(handle: SessionHandle) -> list[str] | None:
    """One escaped hover text per point for a project of texts or images, else None
    (computed once per session)."""
    if not _has_items(handle):
        return None
    if "hovers" not in handle.cache:
        project = handle.session.project
        handle.cache["hovers"] = hover_texts(project.items, list(project.ids))
    return handle.cache["hovers"]


def density_counts(
    handle: SessionHandle, plane: PlaneProjection, unlabeled: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The density layer's grid of the pool's ``plane`` (counted once per session: O(n) at
    every rerun otherwise, 25 ms at 10⁶ points), or None when the pool figure draws no layer
    for ``unlabeled`` unlabeled points by its default rule
    (:func:`~rlscore.viz.figures.density_layer.draws_density`).

    Returns
    -------
    (x_edges, y_edges, counts) or None
        For ``pool_figure(density_counts=...)``: the grid it would count from ``plane.xy``.
    """
    if not draws_density(None, False, unlabeled, MAX_POINTS):
        return None
    if "density" not in handle.cache:
        handle.cache["density"] = density_grid(plane.xy, DENSITY_BINS)
    return handle.cache["density"]


def decision_grid(
    handle: SessionHandle, plane: PlaneProjection, resolution: int = 70
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decision values of the session's engine on a grid over the pool's 2-D ``plane``.

    Exact (``engine.decision_function_at``) when the engine can score new points; otherwise
    (graph kernels, KLR) the pool values interpolated. Cached until the labels change. Call
    it under ``handle.lock``.

    Returns
    -------
    xs, ys, F
        See :func:`rlscore.viz.plane.geometry.grid_surface`.
    """
    s = handle.session
    state = (s.last_event_id, id(s.engine), resolution)
    cached = handle.cache.get("grid")
    if cached is not None and cached[0] == state:
        return cached[1]
    grid = None
    one = plane.one_feature
    if getattr(s.engine, "decision_function_at", None) is not None:
        try:
            corners = _extent(handle, plane)
            grid = grid_surface(corners, _grid_scorer(handle), resolution, one_feature=one)
        except ValueError:  # graph kernels are defined on the pool only
            grid = None
    if grid is None:
        xs, ys, _ = grid_points(plane.xy, resolution, one_feature=one)
        values = s.engine.decision_function()
        grid = (xs, ys, interpolated_surface(plane.xy, values, xs, ys, one_feature=one))
    handle.cache["grid"] = (state, grid)
    return grid


def _extent(handle: SessionHandle, plane: PlaneProjection) -> np.ndarray:
    """Two rows standing for the pool's plane in :func:`grid_surface`: the least and the
    greatest coordinates of its finite points (the plane itself when none is finite).

    The grid covers the points' extent and depends on nothing else
    (:func:`~rlscore.viz.plane.geometry.grid_points`), so it is the same from these two rows;
    found once per session instead of over every point at every label.
    """
    if "extent" not in handle.cache:
        xy = np.asarray(plane.xy, dtype=float).reshape(-1, 2)
        finite = xy[np.isfinite(xy).all(axis=1)]
        corners = np.vstack([finite.min(axis=0), finite.max(axis=0)]) if len(finite) else xy
        handle.cache["extent"] = corners
    return handle.cache["extent"]


def _grid_scorer(handle: SessionHandle) -> Callable[[np.ndarray], np.ndarray]:
    """The session's engine's decision values at the grid's points.

    An engine on features (``transform`` and ``decision_function_of_features``, e.g. low-rank
    ARLS) scores points as ``φ(Z) w``: the grid's features ``φ(Z)`` are kept in the handle's
    cache while the engine and its feature map are the same objects, since the grid is the
    same after every label and mapping its 4 900 points through every landmark's kernel cost
    more than the rest of the plot at 10⁵–10⁶ points. Other engines: ``decision_function_at``.
    """
    engine = handle.session.engine
    of_features = getattr(engine, "decision_function_of_features", None)
    if of_features is None or not hasattr(engine, "transform"):
        return engine.decision_function_at

    def decide(Z: np.ndarray) -> np.ndarray:
        # weak references, not ids (a freed object's id is reused) nor the objects (a
        # replaced engine's pool features would stay in memory)
        feature_map = getattr(engine, "lowrank_", None)
        kept = handle.cache.get("grid_features")
        if (
            kept is None
            or kept[0]() is not engine
            or (kept[1] and kept[1]()) is not feature_map
            or not np.array_equal(kept[2], Z)
        ):
            kept = (
                weakref.ref(engine),
                None if feature_map is None else weakref.ref(feature_map),
                np.array(Z),
                engine.transform(Z),
            )
            handle.cache["grid_features"] = kept
        return of_features(kept[3])

    return decide
