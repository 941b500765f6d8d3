"""Plane geometry for the app's pictures: pure numpy / scipy / pandas, no plotting.

Everything a figure needs computed before it is drawn: 2-D coordinates of a pool (the data
itself or a PCA projection), grids over the plane, the surfaces whose zero level is a
decision boundary, a point's features as a picture, and learning curves summarised over
seeds. The plotly builders in :mod:`rlscore.viz.figures` only draw these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: cells per axis of a pool's density grid (:func:`density_grid`)
DENSITY_BINS = 100


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
    one_feature : bool
        True when the pool has a single feature: ``xy[:, 0]`` is that feature and ``xy[:, 1]``
        the pool index, so a model's decision values depend on ``x`` alone. Pass it on to
        :func:`grid_points`, :func:`grid_surface` and :func:`interpolated_surface`.
    center, axes : ndarray of shape (d,) and (d, 2), or None
        The map of features to the plane, ``xy = (X − center) @ axes``: e.g. to project other
        rows on the same plane (:meth:`project`) or to count a whole pool on it where the pool
        lives. None when ``xy`` is not such a map (one feature: ``y`` is the pool index).
    """

    xy: np.ndarray
    axis_titles: tuple[str, str]
    is_pca: bool
    explained: tuple[float, float] | None = None
    one_feature: bool = False
    center: np.ndarray | None = None
    axes: np.ndarray | None = None

    def project(self, X: np.ndarray) -> np.ndarray:
        """Rows ``X`` (k, d) of the same features on this plane, (k, 2); ``ValueError`` when
        the plane is not a map of the features (:attr:`axes` None)."""
        if self.axes is None or self.center is None:
            raise ValueError("this plane is not a linear map of the features (one feature)")
        X = np.asarray(X, dtype=float).reshape(-1, self.center.size)
        return (X - self.center) @ self.axes


def plane_projection(X: np.ndarray, feature_names: Sequence[str] | None = None) -> PlaneProjection:
    """Return 2-D plotting coordinates: the features for d <= 2, a PCA projection for d > 2.

    One feature is plotted against the pool index: the points spread out without jitter (the
    picture is the same on every run) and each one stays clickable, where a constant second
    axis would pile duplicates onto one spot.

    Parameters
    ----------
    X : array-like of shape (n, d)
    feature_names : sequence of str, optional
        Axis titles when the data has at most two features.

    Returns
    -------
    PlaneProjection
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    n, d = X.shape
    names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(d)]
    if d == 1:
        xy = np.column_stack([X[:, 0], np.arange(n, dtype=float)])
        return PlaneProjection(xy, (names[0], "pool index"), False, one_feature=True)
    if d == 2:
        return PlaneProjection(
            X.copy(), (names[0], names[1]), False, center=np.zeros(2), axes=np.eye(2)
        )
    center = X.mean(axis=0)
    centered = X - center
    # Thin SVD: the right singular vectors are the principal axes.
    _, s, vt = np.linalg.svd(centered, full_matrices=False)
    axes = vt[:2].T
    xy = centered @ axes
    total = float(np.sum(s**2))
    explained = tuple(float(v) for v in (s[:2] ** 2 / total)) if total > 0 else (0.0, 0.0)
    titles = (f"PC1 ({explained[0]:.0%} of variance)", f"PC2 ({explained[1]:.0%} of variance)")
    return PlaneProjection(xy, titles, True, explained, center=center, axes=axes)


def grid_points(
    xy: np.ndarray, resolution: int = 80, pad: float = 0.08, *, one_feature: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A regular grid covering the 2-D points with a margin.

    Parameters
    ----------
    xy : array-like of shape (n, 2)
        Rows that are not finite are ignored.
    resolution : int
        Grid lines per axis.
    pad : float
        Margin on each side, as a fraction of the data's extent.
    one_feature : bool
        ``xy`` is a :class:`PlaneProjection` of one feature: a surface over it is constant
        along ``y``, so ``ys`` is just the two ends of the margin.

    Returns
    -------
    xs : ndarray of shape (resolution,)
    ys : ndarray of shape (resolution,), or (2,) with ``one_feature``
    points : ndarray of shape (len(ys) * len(xs), 2)
        Row-major over (ys, xs): ``points.reshape(len(ys), len(xs), 2)[iy, ix]``.
    """
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    finite = xy[np.isfinite(xy).all(axis=1)]
    lo, hi = (finite.min(axis=0), finite.max(axis=0)) if len(finite) else (np.zeros(2), np.ones(2))
    span = np.where(hi > lo, hi - lo, 1.0)
    lo, hi = lo - pad * span, hi + pad * span
    xs = np.linspace(lo[0], hi[0], resolution)
    ys = np.array([lo[1], hi[1]]) if one_feature else np.linspace(lo[1], hi[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    return xs, ys, np.column_stack([gx.ravel(), gy.ravel()])


def grid_surface(
    xy: np.ndarray,
    decide: Callable[[np.ndarray], np.ndarray],
    resolution: int = 70,
    *,
    one_feature: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A model's decision values on a grid over the 2-D points (for drawing its boundary).

    Parameters
    ----------
    xy : array-like of shape (n, 2)
    decide : callable
        Decision values of points in the model's feature space, shape (m, 2) (or (m, 1) with
        ``one_feature``): an array of shape (m,) or (m, T), e.g.
        ``RLSClassifier.decision_function``.
    resolution : int
        Grid lines per axis (see :func:`grid_points`).
    one_feature : bool
        ``xy`` is a projection of one feature (:attr:`PlaneProjection.one_feature`):
        ``decide`` gets that feature only, once per grid column, and the surface is constant
        along ``y``, so its zero level is drawn as vertical lines.

    Returns
    -------
    xs, ys : ndarray
        See :func:`grid_points`.
    F : ndarray of shape (len(ys), len(xs)) or (len(ys), len(xs), T)
        Ready for ``pool_figure(grid=(xs, ys, F))``.
    """
    xs, ys, points = grid_points(xy, resolution, one_feature=one_feature)
    if one_feature:
        values = np.asarray(decide(xs[:, None]))
        return xs, ys, np.repeat(values[None], len(ys), axis=0)
    values = np.asarray(decide(points))
    return xs, ys, values.reshape((len(ys), len(xs)) + values.shape[1:])


def density_grid(
    xy: np.ndarray, bins: int = DENSITY_BINS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How many points fall in each cell of a ``bins`` × ``bins`` grid over their extent.

    The picture of a pool too large to send to the browser point by point: the browser gets
    ``bins²`` counts whatever the pool's size. O(n) with numpy (one ``bincount``).

    Parameters
    ----------
    xy : array-like of shape (n, 2)
        Rows that are not finite are not counted.
    bins : int
        Cells per axis (at least 1).

    Returns
    -------
    x_edges, y_edges : ndarray of shape (bins + 1,)
        Cell edges, from the smallest to the largest coordinate (an axis where every point
        has the same coordinate spans one unit from it).
    counts : ndarray of int64, shape (bins, bins)
        Row-major over (y, x), as plotly's heatmap ``z``: ``counts[iy, ix]`` points have
        ``x_edges[ix] ≤ x < x_edges[ix + 1]`` and likewise in y, the last cell of an axis
        also holding its upper edge (the cells of :func:`numpy.histogram2d`). The counts sum
        to the number of finite rows.
    """
    if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    # one contiguous column per axis: reductions along a strided (n, 2) axis are slow
    columns = [np.ascontiguousarray(xy[:, k]) for k in range(2)]
    finite = np.isfinite(columns[0]) & np.isfinite(columns[1])
    if not finite.all():
        columns = [v[finite] for v in columns]
    empty = columns[0].size == 0
    lo = np.array([0.0 if empty else v.min() for v in columns])
    hi = np.array([1.0 if empty else v.max() for v in columns])
    span = np.where(hi > lo, hi - lo, 1.0)
    edges = [lo[k] + span[k] * np.arange(bins + 1) / bins for k in range(2)]
    cells = []
    for k, v in enumerate(columns):
        i = np.clip(((v - lo[k]) * (bins / span[k])).astype(np.intp), 0, bins - 1)
        # the division may land a point next to its cell: settle it against the edges
        i -= v < edges[k][i]
        i += (v >= edges[k][i + 1]) & (i < bins - 1)
        cells.append(i)
    counts = np.bincount(cells[1] * bins + cells[0], minlength=bins * bins)
    return edges[0], edges[1], counts.reshape(bins, bins).astype(np.int64)


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
    """NaN where a decision surface is numerically flat at 0 or not finite, so no boundary is
    drawn there.

    Far from every labeled point an RBF model decays to (underflowing) zeros; the sign of such
    values is noise, and a zero contour through them would draw a boundary where the model
    has no opinion. Infinite values (a diverged model) have no place on a contour either, and
    JSON cannot carry them.

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
    finite = np.isfinite(surfaces)
    magnitude = np.abs(surfaces[finite])
    scale = max(1.0, float(magnitude.max())) if magnitude.size else 1.0
    return np.where(finite & (np.abs(surfaces) >= rtol * scale), surfaces, np.nan)


def interpolated_surface(
    xy: np.ndarray,
    values: np.ndarray,
    xs: np.ndarray,
    ys: np.ndarray,
    *,
    one_feature: bool = False,
) -> np.ndarray:
    """Decision values known on the pool, linearly interpolated onto the grid ``xs × ys``.

    For models that cannot be evaluated off the pool (graph kernels are defined on the pool
    only). Outside the convex hull of the pool the surface is NaN, so no boundary is drawn
    where there is no data. Never raises for finite input: duplicated points are merged
    (their values averaged), points on one line (including fewer than 3 distinct points,
    where a triangulation does not exist) are interpolated along that line within a band
    5% of its length wide, a single distinct point gives an all-NaN surface, and rows whose
    coordinates or values are not finite are ignored.

    Parameters
    ----------
    xy : ndarray of shape (n, 2)
        The pool's plot coordinates.
    values : ndarray of shape (n,) or (n, T)
    xs, ys : ndarray
        The grid (see :func:`grid_points`).
    one_feature : bool
        ``xy`` is a projection of one feature (:attr:`PlaneProjection.one_feature`): the
        values are interpolated along ``x`` and the surface is constant along ``y``.

    Returns
    -------
    ndarray of shape (len(ys), len(xs)) or (len(ys), len(xs), T)
    """
    xy = np.asarray(xy, dtype=float).reshape(-1, 2)
    values = np.asarray(values, dtype=float)
    flat = values.reshape(len(xy), -1)
    used = xy[:, :1] if one_feature else xy
    keep = np.isfinite(used).all(axis=1) & np.isfinite(flat).all(axis=1)
    gx, gy = np.meshgrid(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float))
    queries = np.column_stack([gx.ravel(), gy.ravel()])[:, : used.shape[1]]
    if not keep.any():
        return np.full(gx.shape + values.shape[1:], np.nan)
    points, queries = _normalised(used[keep], queries)
    if one_feature:
        out = _interpolate_on_line(points, flat[keep], queries)
    else:
        out = _interpolate_on_plane(points, flat[keep], queries)
    return out.reshape(gx.shape + values.shape[1:])


def _normalised(points: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``points`` and ``queries`` moved and scaled alike so the points span about [-0.5, 0.5].

    Linear interpolation does not change under this map, but Qhull fails on coordinates far
    from 1 (e.g. 1e200). Halving first keeps every difference finite.
    """
    low, high = points.min(axis=0) / 2, points.max(axis=0) / 2
    centre, size = low + high, float(np.max(high - low))
    size = size if size > 0 else 1.0  # one distinct point: nothing to interpolate anyway
    return (points / 2 - centre / 2) / size, (queries / 2 - centre / 2) / size


def _merge_duplicates(points: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``points`` (sorted) and the mean of the ``values`` of each one's copies."""
    distinct, inverse = np.unique(points, axis=0, return_inverse=True)
    inverse = inverse.ravel()  # numpy 2.0.0 returns it 2-D
    sums = np.zeros((len(distinct), values.shape[1]))
    np.add.at(sums, inverse, values)
    return distinct, sums / np.bincount(inverse, minlength=len(distinct))[:, None]


def _interpolate_on_plane(
    points: np.ndarray, values: np.ndarray, queries: np.ndarray
) -> np.ndarray:
    """Linear interpolation over the Delaunay triangulation, or along the line if there is none."""
    from scipy.interpolate import griddata  # scipy is slow to import; only graph kernels need it
    from scipy.spatial import QhullError

    points, values = _merge_duplicates(points, values)
    if len(points) >= 3:
        s = np.linalg.svd(points - points.mean(axis=0), compute_uv=False)
        if s[1] > 1e-9 * s[0]:
            try:
                return griddata(points, values, queries, method="linear")
            except QhullError:
                pass  # a degenerate input Qhull still rejects: interpolate along its main axis
    return _interpolate_on_line(points, values, queries, band=0.05)


def _interpolate_on_line(
    points: np.ndarray, values: np.ndarray, queries: np.ndarray, band: float | None = None
) -> np.ndarray:
    """Linear interpolation along the points' principal axis: NaN beyond their ends and, when
    ``band`` is given, farther than ``band`` × their length from the axis."""
    out = np.full((len(queries), values.shape[1]), np.nan)
    if len(points) < 2:
        return out
    centre = points.mean(axis=0)
    axis = np.linalg.svd(points - centre, full_matrices=False)[2][0]
    t, values = _merge_duplicates((points - centre) @ axis[:, None], values)
    t = t[:, 0]
    if len(t) < 2:  # all copies of one point: no direction to interpolate along
        return out
    tq = (queries - centre) @ axis
    inside = (tq >= t[0]) & (tq <= t[-1])
    if band is not None:
        off_axis = np.linalg.norm(queries - centre - tq[:, None] * axis, axis=1)
        inside &= off_axis <= band * (t[-1] - t[0])
    for k in range(values.shape[1]):
        out[inside, k] = np.interp(tq[inside], t, values[:, k])
    return out


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
        One row per (group, seed, x), e.g.
        :func:`rlscore.experiments.comparison.compare.compare_strategies`.
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
