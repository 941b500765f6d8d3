"""The pool figure: the pool's points with their labels and predictions, the next query and the
decision boundary, over a density layer when the pool is large.

Layers, from the bottom: the density layer (:mod:`~rlscore.viz.figures.density_layer`), the
decision boundary (:mod:`~rlscore.viz.figures.decision_contours`), the unlabeled points tinted
by their prediction, the skipped points, the labeled points, the query and the selected point
(:mod:`~rlscore.viz.figures.pool_points`). Which unlabeled points are drawn is
:mod:`~rlscore.viz.figures.pool_sampling`'s: a large pool is sampled, and :func:`sampling_note`
says so under the figure.

A point's tint: its predicted class's colour, at an opacity growing from 0.2 at chance (1/T) to
0.9 at full confidence; grey ("undecided") when its confidence does not exceed chance or is not
a number.

The figure is built on every rerun of the Label page's plot: its layers and layout are plain
dicts in plotly's figure schema, turned into one ``go.Figure`` at the end, so plotly validates
each property once instead of once per trace object and again as the figure takes it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from rlscore.viz.figures.decision_contours import boundary_traces
from rlscore.viz.figures.density_layer import checked_density, density_heatmap, draws_density
from rlscore.viz.figures.palette import UNDECIDED, class_color, class_symbol
from rlscore.viz.figures.pool_points import PointTraces
from rlscore.viz.figures.pool_sampling import (
    DENSITY_SAMPLE,
    MAX_POINTS,
    PoolMembers,
    check_density_sample,
    drawn_quota,
)
from rlscore.viz.figures.user_text import class_text, plain_text
from rlscore.viz.plane.geometry import DENSITY_BINS, density_grid


def pool_figure(
    xy: np.ndarray,
    classes: Sequence,
    labels: Mapping[int, object],
    predicted: np.ndarray | None = None,
    confidence: np.ndarray | None = None,
    *,
    query: int | None = None,
    selected: int | None = None,
    skipped: Sequence[int] = (),
    axis_titles: tuple[str, str] = ("x1", "x2"),
    grid: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
    confidence_contours: bool = False,
    title: str | None = None,
    height: int = 560,
    webgl: bool | None = None,
    class_names: Mapping[str, str] | None = None,
    max_points: int | None = MAX_POINTS,
    sample_seed: int = 0,
    density: bool | None = None,
    density_bins: int = DENSITY_BINS,
    density_sample: int = DENSITY_SAMPLE,
    hover: Sequence[str] | None = None,
    density_counts: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> go.Figure:
    """Scatter of the pool with labels, predictions, the next query and a decision boundary.

    Parameters
    ----------
    xy, classes, labels : ndarray (n, 2), sequence, mapping int -> label
        Plot coordinates (:func:`rlscore.viz.plane.geometry.plane_projection`), the classes in
        the engine's order (fixes the colours) and the labeled points.
    predicted, confidence : ndarray of shape (n,), optional
        Each point's predicted class and its confidence in [0, 1]: an unlabeled point's tint.
    query, selected, skipped : int, int, sequence of int
        Drawn as a large star, a ring (a point the user clicked) and grey crosses.
    grid, confidence_contours : (xs, ys, F), bool
        Decision values on a grid and whether to draw ``f = ±0.5`` too (binary):
        :func:`~rlscore.viz.figures.decision_contours.boundary_traces`.
    axis_titles, title, height : (str, str), str, int
        Plain text (escaped here); the height in pixels.
    webgl : bool, optional
        Every point trace in WebGL; default: above ``pool_points.WEBGL_MIN_POINTS`` drawn.
    class_names, hover : mapping str -> str, sequence of str, optional
        Display names of the classes (:func:`~rlscore.viz.figures.user_text.class_text`); one
        hover text per point, already HTML-escaped (plotly reads hover text as HTML).
    max_points, sample_seed, density_sample : int or None, int, int
        At most ``max_points`` unlabeled points drawn (None: all), over a density layer also
        at most ``density_sample``, sampled by a seeded priority
        (:mod:`~rlscore.viz.figures.pool_sampling`).
    density, density_bins, density_counts : bool, int, (x_edges, y_edges, counts), optional
        Draw the density layer (default: when the unlabeled points exceed ``max_points``) of
        ``density_bins`` cells per axis counted from ``xy``, or the grid ``density_counts``
        computed elsewhere (:mod:`~rlscore.viz.figures.density_layer`; implies the layer).

    Returns
    -------
    plotly.graph_objects.Figure
        Every drawn point has its pool index as ``customdata``; ``layout.meta`` says what was
        drawn (:meth:`~rlscore.viz.figures.pool_sampling.PoolMembers.meta`).
    """
    xy = np.asarray(xy, dtype=float)
    members = PoolMembers.split(xy.shape[0], labels, skipped)
    check_density_sample(density_sample)
    shaded = draws_density(density, density_counts is not None, members.unlabeled_total, max_points)
    given = None if density_counts is None else checked_density(*density_counts)
    quota = drawn_quota(max_points, density_sample, shaded)
    members = members.sampled(quota, (query, selected), sample_seed)
    draw = PointTraces.of_pool(xy, webgl, hover, drawn=members.drawn)
    data = []
    counts = None
    if shaded:  # one drawing for both: the grid given, or the one counted here from xy
        counts = given if given is not None else density_grid(xy, density_bins)
        data.append(density_heatmap(*counts))
    if grid is not None:
        data.extend(boundary_traces(grid, confidence_contours))
    data.extend(prediction_traces(draw, members, classes, predicted, confidence, class_names))
    data.extend(label_traces(draw, members, classes, labels, class_names))
    data.extend(mark_traces(draw, query, selected))
    fig = go.Figure(data)  # the layout after the data: its JSON keeps its key order
    return fig.update_layout(_pool_layout(title, height, axis_titles, members, counts))


def prediction_traces(
    draw: PointTraces,
    members: PoolMembers,
    classes: Sequence,
    predicted: np.ndarray | None,
    confidence: np.ndarray | None,
    class_names: Mapping[str, str] | None = None,
) -> list[dict]:
    """The unlabeled points drawn, tinted by their prediction: one grey trace of the undecided
    (all of them without predictions), then one trace per predicted class (see the module's
    docstring for the tint); traces as :meth:`PointTraces.trace` makes them."""
    idx = np.arange(members.n)
    unlabeled = members.unlabeled
    if predicted is None:
        return [draw.trace(idx[unlabeled], UNDECIDED, 7, "unlabeled", opacity=0.6)]
    predicted = np.asarray(predicted)
    conf = np.ones(members.n) if confidence is None else np.asarray(confidence, dtype=float)
    chance = 1.0 / max(len(classes), 2)
    # NaN confidence is no confidence: grey, like chance
    undecided = unlabeled & ~(conf > chance + 1e-9)
    traces = [draw.trace(idx[undecided], UNDECIDED, 7, "unlabeled (undecided)", 0.6)]
    for position, c in enumerate(classes):
        tinted = idx[unlabeled & ~undecided & (predicted == c)]
        if tinted.size == 0:
            continue
        strength = np.clip((conf[tinted] - chance) / (1 - chance), 0.0, 1.0)
        traces.append(
            draw.trace(
                tinted,
                class_color(position),
                7,
                f"predicted {class_text(c, class_names)}",
                opacity=0.2 + 0.7 * strength,
                extra=[f"p={v:.2f}" for v in conf[tinted]],
            )
        )
    return traces


def label_traces(
    draw: PointTraces,
    members: PoolMembers,
    classes: Sequence,
    labels: Mapping[int, object],
    class_names: Mapping[str, str] | None = None,
) -> list[dict]:
    """The points already answered: the skipped ones (grey crosses, if any), then one trace of
    labeled points per class, large and outlined in the class's colour and symbol."""
    traces = []
    if members.is_skipped.any():
        skipped = np.flatnonzero(members.is_skipped)
        traces.append(draw.trace(skipped, "#555555", 9, "skipped", symbol="x"))
    label_values = list(labels.values())
    for position, c in enumerate(classes):
        labeled = np.sort(members.labeled[[v == c for v in label_values]])
        if labeled.size == 0:
            continue
        traces.append(
            draw.trace(
                labeled,
                class_color(position),
                11,
                f"labeled {class_text(c, class_names)}",
                symbol=class_symbol(position),
                line=1,
            )
        )
    return traces


def mark_traces(draw: PointTraces, query: int | None, selected: int | None) -> list[dict]:
    """The marks on top: the next query (a gold star) and the selected point (a magenta ring),
    unless it is the query."""
    traces = []
    if query is not None:
        traces.append(draw.trace([query], "#ffd700", 22, "next query", symbol="star", line=2))
    if selected is not None and selected != query:
        # open symbols draw their outline in the marker colour
        traces.append(
            draw.trace([selected], "#ff00ff", 24, "selected", symbol="circle-open", line=3)
        )
    return traces


def _pool_layout(
    title: str | None,
    height: int,
    axis_titles: tuple[str, str],
    members: PoolMembers,
    counts: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
) -> dict:
    """The pool figure's layout: titles escaped, the legend above, a click selects a point and
    a drag pans; the zoom survives reruns (``uirevision``); ``meta`` says what was drawn of
    ``members`` and how many points the density layer's ``counts`` (if any) hold."""
    return dict(
        title=None if title is None else plain_text(title),
        height=height,
        margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        xaxis_title=plain_text(axis_titles[0]),
        yaxis_title=plain_text(axis_titles[1]),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
        clickmode="event+select",
        dragmode="pan",
        uirevision="pool",
        meta=members.meta(None if counts is None else int(counts[2].sum())),
    )


def sampling_note(fig: go.Figure) -> str | None:
    """A caption saying how many unlabeled points :func:`pool_figure` drew, if it sampled them,
    and what the density layer's shading means, if it has one.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        A :func:`pool_figure`.

    Returns
    -------
    str or None
        None when every point is drawn.
    """
    meta = fig.layout.meta
    if not isinstance(meta, Mapping):
        return None
    shading = ""
    if meta.get("density_points") is not None:
        shading = (
            f"Shading: how many of the {meta['density_points']:,} pool points fall in each "
            "cell (darker: more, on a logarithmic scale). "
        )
    if meta.get("unlabeled_drawn") == meta.get("unlabeled_total"):
        return shading.rstrip() or None
    return shading + (
        f"Showing a random {meta['unlabeled_drawn']:,} of the {meta['unlabeled_total']:,} "
        "unlabeled points (the same ones on every run); every labeled and skipped point, the "
        "query and the selected point are always shown."
    )


__all__ = ["label_traces", "mark_traces", "pool_figure", "prediction_traces", "sampling_note"]
