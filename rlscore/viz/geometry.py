"""Plane geometry for the app's pictures: pure numpy / scipy / pandas, no plotting.

Everything a figure needs computed before it is drawn: 2-D coordinates of a pool (the data
itself or a PCA projection), grids over the plane, the surfaces whose zero level is a
decision boundary, a point's features as a picture, and learning curves summarised over
seeds. The plotly builders in :mod:`rlscore.viz.figures` only draw these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass
class PlaneProjection:
    """2-D coordinates of a pool for plotting.

    Attributes
    ----------
    xy : ndarray of shape (n, 2)
    axis_titles : tuple of str
    is_pca : bool
        True when ``xy`` is a PCA projection (d > 2) rather than the data itself.
    explained : tuple of float or None
        Fraction of variance explained by each PCA axis.
    """

    xy: np.ndarray
    axis_titles: tuple[str, str]
    is_pca: bool
    explained: tuple[float, float] | None = None


def plane_projection(X: np.ndarray, feature_names: Sequence[str] | None = None) -> PlaneProjection:
    """Return 2-D plotting coordinates: the features for d <= 2, a PCA projection for d > 2.

    Parameters
    ----------
    X : array-like of shape (n, d)
    feature_names : sequence of str, optional
        Axis titles when the data is already 2-D.

    Returns
    -------
    PlaneProjection
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    n, d = X.shape
    names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(d)]
    if d == 1:
        return PlaneProjection(np.column_stack([X[:, 0], np.zeros(n)]), (names[0], ""), False)
    if d == 2:
        return PlaneProjection(X.copy(), (names[0], names[1]), False)
    centered = X - X.mean(axis=0)
    # Thin SVD: the right singular vectors are the principal axes.
    _, s, vt = np.linalg.svd(centered, full_matrices=False)
    xy = centered @ vt[:2].T
    total = float(np.sum(s**2))
    explained = tuple(float(v) for v in (s[:2] ** 2 / total)) if total > 0 else (0.0, 0.0)
    titles = (f"PC1 ({explained[0]:.0%} of variance)", f"PC2 ({explained[1]:.0%} of variance)")
    return PlaneProjection(xy, titles, True, explained)


def grid_points(
    xy: np.ndarray, resolution: int = 80, pad: float = 0.08
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A regular grid covering the 2-D points with a margin.

    Parameters
    ----------
    xy : array-like of shape (n, 2)
    resolution : int
        Grid lines per axis.
    pad : float
        Margin on each side, as a fraction of the data's extent.

    Returns
    -------
    xs : ndarray of shape (resolution,)
    ys : ndarray of shape (resolution,)
    points : ndarray of shape (resolution**2, 2)
        Row-major over (ys, xs): ``points.reshape(resolution, resolution, 2)[iy, ix]``.
    """
    xy = np.asarray(xy, dtype=float)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    xs = np.linspace(lo[0], hi[0], resolution)
    ys = np.linspace(lo[1], hi[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([gx.ravel(), gy.ravel()])


def grid_surface(
    xy: np.ndarray, decide: Callable[[np.ndarray], np.ndarray], resolution: int = 70
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A model's decision values on a grid over the 2-D points (for drawing its boundary).

    Parameters
    ----------
    xy : array-like of shape (n, 2)
    decide : callable
        Decision values of points of shape (m, 2): an array of shape (m,) or (m, T), e.g.
        ``RLSClassifier.decision_function``.
    resolution : int
        Grid lines per axis (see :func:`grid_points`).

    Returns
    -------
    xs, ys : ndarray of shape (resolution,)
    F : ndarray of shape (len(ys), len(xs)) or (len(ys), len(xs), T)
        Ready for ``pool_figure(grid=(xs, ys, F))``.
    """
    xs, ys, points = grid_points(xy, resolution)
    values = np.asarray(decide(points))
    return xs, ys, values.reshape((len(ys), len(xs)) + values.shape[1:])


def margin_surfaces(F: np.ndarray) -> np.ndarray:
    """Turn decision values on a grid into one surface per boundary to draw at level 0.

    Parameters
    ----------
    F : ndarray of shape (r, r) or (r, r, T)
        Binary decision values, or one column per class (T >= 2).

    Returns
    -------
    ndarray of shape (k, r, r)
        Binary: the surface itself (k = 1). Multiclass: for each class t,
        ``f_t − max_{s≠t} f_s``, whose zero level is the border of the region won by t.
    """
    F = np.asarray(F, dtype=float)
    if F.ndim == 2:
        return F[None]
    if F.ndim == 3 and F.shape[2] >= 2:
        T = F.shape[2]
        out = np.empty((T,) + F.shape[:2])
        for t in range(T):
            others = np.delete(F, t, axis=2).max(axis=2)
            out[t] = F[:, :, t] - others
        return out
    raise ValueError(f"decision values must have shape (r, r) or (r, r, T>=2), got {F.shape}")


def blank_flat(surfaces: np.ndarray, rtol: float = 1e-6) -> np.ndarray:
    """NaN where a decision surface is numerically flat at 0, so no boundary is drawn there.

    Far from every labeled point an RBF model decays to (underflowing) zeros; the sign of such
    values is noise, and a zero contour through them would draw a boundary where the model
    has no opinion.

    Parameters
    ----------
    surfaces : ndarray
    rtol : float
        Values with ``|f| < rtol · max(1, max |f|)`` are blanked.

    Returns
    -------
    ndarray of the same shape, float
    """
    surfaces = np.asarray(surfaces, dtype=float)
    finite = np.abs(surfaces[np.isfinite(surfaces)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    return np.where(np.abs(surfaces) < rtol * scale, np.nan, surfaces)


def interpolated_surface(
    xy: np.ndarray, values: np.ndarray, xs: np.ndarray, ys: np.ndarray
) -> np.ndarray:
    """Decision values known on the pool, linearly interpolated onto the grid ``xs × ys``.

    For models that cannot be evaluated off the pool (graph kernels are defined on the pool
    only). Outside the convex hull of the pool the surface is NaN, so no boundary is drawn
    where there is no data.

    Parameters
    ----------
    xy : ndarray of shape (n, 2)
        The pool's plot coordinates.
    values : ndarray of shape (n,) or (n, T)
    xs, ys : ndarray
        The grid (see :func:`grid_points`).

    Returns
    -------
    ndarray of shape (len(ys), len(xs)) or (len(ys), len(xs), T)
    """
    from scipy.interpolate import griddata  # scipy is slow to import; only graph kernels need it

    values = np.asarray(values, dtype=float)
    gx, gy = np.meshgrid(xs, ys)
    return griddata(np.asarray(xy, dtype=float), values, (gx, gy), method="linear")


def image_array(values: np.ndarray, shape: Sequence[int], scale: int = 16) -> np.ndarray:
    """One point's features as a grey-scale picture (e.g. an 8×8 digit), dark = large value.

    Parameters
    ----------
    values : ndarray of shape (rows · cols,)
    shape : (rows, cols)
    scale : int
        Side of the block of pixels drawn for each feature (no smoothing).

    Returns
    -------
    ndarray of uint8, shape (rows · scale, cols · scale)
        Ready for ``st.image``.
    """
    values = np.asarray(values, dtype=float)
    shape = tuple(int(s) for s in shape)
    if len(shape) != 2 or int(np.prod(shape)) != values.size:
        raise ValueError(f"cannot show {values.size} features as an image of shape {shape}")
    img = values.reshape(shape)
    lo, hi = float(img.min()), float(img.max())
    unit = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
    grey = np.round(255 * (1.0 - unit)).astype(np.uint8)
    return np.kron(grey, np.ones((scale, scale), dtype=np.uint8))


def summarize_curves(
    runs: pd.DataFrame, value: str, x: str = "n_labeled", group: str = "strategy"
) -> pd.DataFrame:
    """Mean and standard deviation of ``value`` per (group, x) over seeds.

    Parameters
    ----------
    runs : DataFrame
        One row per (group, seed, x), e.g. :func:`rlscore.experiments.compare.compare_strategies`.
    value, x, group : str
        Column names.

    Returns
    -------
    DataFrame
        Columns ``group, x, mean, sd, runs`` (``sd`` is 0 for a single run).
    """
    missing = {value, x, group} - set(runs.columns)
    if missing:
        raise ValueError(f"results lack columns {sorted(missing)}")
    agg = runs.groupby([group, x])[value].agg(["mean", "std", "count"]).reset_index()
    agg = agg.rename(columns={"std": "sd", "count": "runs"})
    agg["sd"] = agg["sd"].fillna(0.0)
    return agg
