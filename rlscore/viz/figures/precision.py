"""Plotted numbers at the precision the eye can see, in the form plotly sends cheapest.

The figure's JSON is what the browser downloads on every rerun: coordinates are rounded to a
step well under a pixel of their axis (:func:`axis_decimals`) and sent as float32 where that
holds the rounded values (:func:`compact`).
"""

from __future__ import annotations

import numpy as np
import plotly

#: plotly >= 6 sends numpy arrays as binary typed arrays, older versions as JSON lists
_TYPED_ARRAYS = int(plotly.__version__.split(".")[0]) >= 6


def axis_decimals(values: np.ndarray, digits: int = 5) -> int | None:
    """Decimals that keep ``digits`` significant digits of the extent of ``values``.

    With 5, a step of at most 1/10 000 of the axis: under a pixel even zoomed in 10×. Relative
    to the extent of everything drawn on an axis, not to each number: a point far from 0 keeps
    the precision of the axis.

    Parameters
    ----------
    values : ndarray
        Everything drawn on one axis (non-finite values are ignored).
    digits : int

    Returns
    -------
    int or None
        None (keep every digit) when the finite values are all equal or there are none.
    """
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    extent = float(finite.max() - finite.min()) if finite.size else 0.0
    if not 0.0 < extent < np.inf:
        return None
    decimals = digits - 1 - int(np.floor(np.log10(extent)))
    return decimals if decimals <= 300 else None  # np.round scales by 10**decimals


def compact(values: np.ndarray, decimals: int | None) -> np.ndarray:
    """Plotted numbers rounded to ``decimals``, in the form plotly sends cheapest; NaN stays.

    As typed arrays (plotly >= 6), float32 (4 bytes a number instead of 8) when it holds that
    precision, which it does unless the values sit far from 0 compared with their extent. As
    JSON lists (plotly 5), float64: its rounded numbers print short, float32 ones in 17 digits.

    Parameters
    ----------
    values : ndarray
    decimals : int or None
        As :func:`axis_decimals` returns it (None: no rounding).

    Returns
    -------
    ndarray
        float32 or float64.
    """
    a = np.asarray(values, dtype=float)
    if decimals is not None:
        a = np.round(a, decimals)
    if _TYPED_ARRAYS:
        with np.errstate(over="ignore"):  # beyond float32's range: inf, caught just below
            single = a.astype(np.float32)
        tolerance = 0.0 if decimals is None else 0.5 * 10.0**-decimals
        if np.nanmax(np.abs(single - a), initial=0.0) <= tolerance:
            return single
    return a


def compact_axis(values: np.ndarray) -> np.ndarray:
    """``values`` (everything drawn on one axis) at their own axis's precision: :func:`compact`
    with :func:`axis_decimals` of ``values``."""
    return compact(values, axis_decimals(values))


__all__ = ["axis_decimals", "compact", "compact_axis"]
