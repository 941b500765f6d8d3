"""The pool's picture for a cached session: its 2-D projection and the decision surface.

Both are kept in the session handle's cache (:class:`rlscore.ui.store.SessionHandle`), the
projection for the session's life, the surface until the labels or the engine change.
"""

from __future__ import annotations

import numpy as np

from rlscore.ui.store import SessionHandle
from rlscore.viz.geometry import (
    PlaneProjection,
    grid_points,
    grid_surface,
    interpolated_surface,
    plane_projection,
)


def projection(handle: SessionHandle) -> PlaneProjection:
    """The 2-D coordinates of the session's pool (computed once per session)."""
    if "projection" not in handle.cache:
        project = handle.session.project
        handle.cache["projection"] = plane_projection(project.X, project.feature_names)
    return handle.cache["projection"]


def decision_grid(
    handle: SessionHandle, xy: np.ndarray, resolution: int = 70
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decision values of the session's engine on a grid over the 2-D pool ``xy``.

    Exact (``engine.decision_function_at``) when the engine can score new points; otherwise
    (graph kernels, KLR) the pool values interpolated. Cached until the labels change. Call
    it under ``handle.lock``.

    Returns
    -------
    xs, ys, F
        See :func:`rlscore.viz.geometry.grid_surface`.
    """
    s = handle.session
    state = (s.last_event_id, id(s.engine), resolution)
    cached = handle.cache.get("grid")
    if cached is not None and cached[0] == state:
        return cached[1]
    grid = None
    at = getattr(s.engine, "decision_function_at", None)
    if at is not None:
        try:
            grid = grid_surface(xy, at, resolution)
        except ValueError:  # graph kernels are defined on the pool only
            grid = None
    if grid is None:
        xs, ys, _ = grid_points(xy, resolution)
        grid = (xs, ys, interpolated_surface(xy, s.engine.decision_function(), xs, ys))
    handle.cache["grid"] = (state, grid)
    return grid
