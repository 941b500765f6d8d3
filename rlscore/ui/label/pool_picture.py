"""The pool's picture for a cached session: its 2-D projection and the decision surface.

Both are kept in the session handle's cache (:class:`rlscore.ui.shell.store.SessionHandle`), the
projection for the session's life, the surface until the labels or the engine change. A
project of texts or images is drawn as a map of its items
(:func:`rlscore.data.items.item_map.map_coordinates`) whose hovers are escaped snippets
(:func:`rlscore.data.items.item_map.hover_texts`).
"""

from __future__ import annotations

import numpy as np

from rlscore.data.items.item_map import hover_texts, map_coordinates
from rlscore.ui.shell.store import SessionHandle
from rlscore.viz.plane.geometry import (
    PlaneProjection,
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
    at = getattr(s.engine, "decision_function_at", None)
    if at is not None:
        try:
            grid = grid_surface(plane.xy, at, resolution, one_feature=one)
        except ValueError:  # graph kernels are defined on the pool only
            grid = None
    if grid is None:
        xs, ys, _ = grid_points(plane.xy, resolution, one_feature=one)
        values = s.engine.decision_function()
        grid = (xs, ys, interpolated_surface(plane.xy, values, xs, ys, one_feature=one))
    handle.cache["grid"] = (state, grid)
    return grid
