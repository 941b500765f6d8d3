"""Export of a project's labels — the final label and every annotator's — as CSV, JSON,
JSON Lines or Parquet (from the event log; no engine).

A cluster-backed project (:mod:`rlscore.sessions.cluster.projects`) holds no features on this
server: its feature columns are its pool's raw Parquet columns, fetched from the cluster for
the labeled rows only (:func:`~rlscore.sessions.cluster.engine.raw_rows`), and its accuracy
estimate is the labeled RLS on those rows.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime

import numpy as np

from rlscore.core.conventions.label_sets import label_set_text
from rlscore.data.projects.project import Project
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.stopping.accuracy_estimate import (
    export_estimate,
)
from rlscore.sessions.stopping.set_accuracy import export_set_estimate
from rlscore.storage import Event

#: first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV injection")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# a plain decimal number such as -1, +3 or -0.5e-3: a spreadsheet reads it as that number
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def csv_cell(value: object) -> object:
    """``value`` made safe to open in a spreadsheet: text that a spreadsheet would run as a
    formula gets a leading ``'``.

    Text starting with one of :data:`FORMULA_START` is prefixed with ``'``, so the cell reads
    as text (OWASP's advice against CSV injection), except a plain number such as ``-1`` or
    ``+3``, which stays as it is and still reads as that number. Non-text values (ints,
    floats) are unchanged.

    Parameters
    ----------
    value : object
        A cell's value (a point id, a label, an annotator name, a column name, a number).

    Returns
    -------
    object
        ``"'" + value`` for formula-leading text, else ``value``.
    """
    if isinstance(value, str) and value.startswith(FORMULA_START) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def _iso(ts: float | None) -> str:
    return "" if ts is None else datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


#: export formats: text (CSV, JSON, JSON Lines) and Parquet (bytes)
EXPORT_FORMATS = ("csv", "json", "jsonl", "parquet")
#: columns of every export row, before the per-annotator columns and the features
FIXED_COLUMNS = (
    "point_id", "index", "label", "annotator", "timestamp", "seconds",
    "strategy", "kernel", "sigma", "lam", "decided_by", "reviewer", "n_annotators",
)  # fmt: skip


def _annotation(e: Event) -> dict:
    return {
        "annotator": e.annotator,
        "label": e.label,
        "timestamp": _iso(e.timestamp),
        "seconds": e.seconds,
        **{k: e.params.get(k) for k in ("strategy", "kernel", "sigma", "lam")},
    }


#: ``decided_by`` of a point whose annotators tie under the majority rule and no reviewer
#: decided: its final label is the latest of the tied labels, not a majority's
TIE = "tie (latest)"


def _decided_by(log: LabelLog, point: int) -> str:
    """How the point's final label was decided: ``review``, ``majority``, :data:`TIE` or
    ``latest``."""
    if point in log.reviews:
        return "review"
    if log.tied(point):  # a 1–1 disagreement has no majority (it said "majority" for one)
        return TIE
    # the fold's own rule: with "latest", a point of several annotators is decided by the
    # latest label, not by a majority (it said "majority" beside a minority's label)
    return log.rule


def _cluster_pool(project: Project) -> dict | None:
    """A cluster-backed project's ``meta["cluster"]`` (None: its pool is in memory)."""
    if project.X.shape[1]:
        return None  # a pool with features here: no need to load the cluster's modules
    from rlscore.data.cluster.parquet_pool import CLUSTER_META

    return (project.meta or {}).get(CLUSTER_META) or None


def _feature_names(project: Project) -> list[str]:
    pool = _cluster_pool(project)
    return list(pool.get("columns") or []) if pool else list(project.feature_names)


def _labeled_features(project: Project, order: list[int]) -> np.ndarray:
    """The feature rows of the points ``order`` (k, d): the stored ``X``'s, or a
    cluster-backed project's raw columns fetched from the cluster for those rows only."""
    pool = _cluster_pool(project)
    if pool:
        from rlscore.sessions.cluster.engine import raw_rows  # Dask's side: only when needed

        return raw_rows(pool, order)[1]
    return project.X[np.asarray(order, dtype=np.intp)]


def export_rows(
    project: Project,
    log: LabelLog,
    *,
    include_features: bool = True,
    features: np.ndarray | None = None,
) -> list[dict]:
    """One record per labeled point, in the order the final labels were given.

    Keys :data:`FIXED_COLUMNS` (the final label, who gave it, when, the seconds spent and the
    settings in effect; ``decided_by`` is ``review``, ``majority``, ``tie (latest)`` (no
    majority and no review: the latest of the tied labels, :data:`TIE`) or ``latest``;
    ``reviewer`` the reviewer's name or None), ``annotations`` (every annotator's current
    label of the point with its time, seconds and settings), ``label_name`` where the project
    names its classes (:func:`_named_classes`) and, with ``include_features``,
    ``features`` (name -> value): ``features`` when given (one row per labeled point, in
    that order), else the project's (module docstring for a cluster-backed project).

    A point decided by a review carries the review's own event: the reviewer, its time, and
    its seconds and settings, empty for a Review-page decision (made on the log, without a
    learner or a timer); the labels it overrode keep theirs in ``annotations``.
    """
    order = log.label_order()
    names = _feature_names(project)
    if include_features and features is None:
        features = _labeled_features(project, order)
    rows = []
    for k, point in enumerate(order):
        e = log.label_events[point]
        current = log.annotations.get(point, {})
        row = {
            "point_id": project.ids[point],
            "index": point,
            **{k: v for k, v in _annotation(e).items()},
            "decided_by": _decided_by(log, point),
            "reviewer": e.annotator if point in log.reviews else None,
            "n_annotators": len(current),
            "annotations": [_annotation(a) for a in sorted(current.values(), key=_event_id)],
            "items": {c.name: c.values[point] for c in project.items},
        }
        if _named_classes(project):
            row["label_name"] = project.class_text(e.label)
        if include_features:
            row["features"] = dict(zip(names, features[k].tolist(), strict=True))
        rows.append(row)
    return rows


def _named_classes(project: Project) -> bool:
    """Whether the project gives its classes readable names (``meta["class_names"]``, e.g.
    the bundled samples' "benign" for −1): its export then carries them beside the values
    (the labels were given by clicking the names; the file had only −1 and 1)."""
    return bool(project.class_names) and not project.multi_label


def _event_id(e: Event) -> int:
    return int(e.id or 0)


def class_columns(project: Project) -> list[str]:
    """The 0/1 columns of a multi-label project's flat export, one per class in class order:
    ``label:<class>`` (none for a single-label project)."""
    return [f"label:{c}" for c in project.classes] if project.multi_label else []


def _flat_label(project: Project, label) -> object:
    """A label as one cell: a multi-label project's set as its classes joined by ``|``
    (:func:`~rlscore.core.conventions.label_sets.label_set_text`), a class as it is."""
    if project.multi_label and label is not None:
        return label_set_text(label)
    return label


def _table(rows: list[dict], project: Project, include_features: bool) -> tuple[list, list]:
    """Header and rows of the flat (CSV, Parquet) export: the fixed columns, a multi-label
    project's 0/1 column per class (:func:`class_columns`), then ``label[name]`` and
    ``seconds[name]`` per annotator, then the item columns, then the features."""
    names = sorted({a["annotator"] for r in rows for a in r["annotations"]})
    named = ["label_name"] if _named_classes(project) else []
    header = list(FIXED_COLUMNS) + named + class_columns(project)
    for name in names:
        header += [f"label[{name}]", f"seconds[{name}]"]
    # an item or feature named like another column gets a prefix so nothing is overwritten
    taken = set(header)
    header += [f"item:{c.name}" if c.name in taken else c.name for c in project.items]
    taken = set(header)
    features = [f"feature:{f}" if f in taken else f for f in _feature_names(project)]
    if include_features:
        header += features
    table = []
    for r in rows:
        given = {a["annotator"]: a for a in r["annotations"]}
        values = [_flat_label(project, r[k]) if k == "label" else r[k] for k in FIXED_COLUMNS]
        values += [r[k] for k in named]
        if project.multi_label:
            values += [int(c in r["label"]) for c in project.classes]
        for name in names:
            a = given.get(name, {})
            values += [_flat_label(project, a.get("label")), a.get("seconds")]
        values += list(r["items"].values())
        if include_features:
            values += list(r["features"].values())
        table.append(values)
    return header, table


def export_labels(
    project: Project,
    events: Iterable[Event] | LabelLog,
    fmt: str = "csv",
    *,
    include_features: bool = True,
    estimate: bool = False,
    settings: dict | None = None,
) -> str | bytes:
    """The labels of a project as CSV, JSON, JSON Lines (text) or Parquet (bytes).

    One record per labeled point, in the order the final labels were given
    (:func:`export_rows`): the final label with ``annotator``, ``timestamp`` (ISO 8601, UTC),
    ``seconds`` spent, ``strategy``, ``kernel``, ``sigma``, ``lam`` in effect when it was
    given, how it was decided (``decided_by``, ``reviewer``, ``n_annotators``), the final
    label's readable name (``label_name``) where the project names its classes, every
    annotator's own label (CSV/Parquet: ``label[name]`` and ``seconds[name]`` columns;
    JSON/JSONL: an ``annotations`` list with their times and settings), then the items the
    annotator saw (CSV/Parquet: one column per item column, named as uploaded; JSON: an
    ``items`` object), then the feature values (CSV/Parquet: one column per feature; JSON: a
    ``features`` object).

    A multi-label project's label is a set (:mod:`rlscore.core.conventions.label_sets`): a
    JSON list in JSON/JSONL; in CSV/Parquet the ``label`` and ``label[name]`` cells join its
    classes by ``|`` and a 0/1 column per class follows the fixed columns
    (:func:`class_columns`); its headline is the micro-F1 of the predicted sets
    (``estimate``: :func:`~rlscore.sessions.stopping.set_accuracy.export_set_estimate`'s
    ``micro_f1_*`` columns).

    The CSV is safe to open in a spreadsheet: every text cell, header included, that a
    spreadsheet would run as a formula starts with ``'`` (:func:`csv_cell`); plain numbers
    such as a label ``-1`` stay as they are. JSON, JSONL and Parquet keep every string
    exactly.

    Parameters
    ----------
    project
        The project (ids, feature names, features).
    events
        Its event log, or a :class:`LabelLog` folded from it.
    fmt
        One of :data:`EXPORT_FORMATS`.
    include_features
        Add the feature values of each point (as stored, i.e. standardised if the project is).
    estimate
        Add the accuracy estimate at export time to every record (:func:`_add_estimate`).
    settings
        The learner settings of the estimate: the Label page's now (the app's and the CLI's,
        :func:`~rlscore.sessions.actions.session_params.headline_settings`). None: the newest
        label's (:func:`recorded_settings`), the page's only until a settings change.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"export format must be one of {EXPORT_FORMATS}, got {fmt!r}")
    log = events if isinstance(events, LabelLog) else LabelLog(events)
    fetched = None
    if _cluster_pool(project) and (include_features or estimate):
        fetched = _labeled_features(project, log.label_order())  # one fetch for both
    rows = export_rows(project, log, include_features=include_features, features=fetched)
    extra = []
    if estimate:  # a log alone says only which settings its newest label was given with
        params = recorded_settings(log) if settings is None else settings
        extra = _add_estimate(rows, project, log, params, fetched)
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False)
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    header, table = _table(rows, project, include_features)
    header, table = (
        header + extra,
        [v + [r[c] for c in extra] for v, r in zip(table, rows, strict=True)],
    )
    if fmt == "parquet":
        return _parquet_bytes(header, table)
    buf = io.StringIO()
    # CRLF rows (RFC 4180): the writer then quotes a cell holding either line break; with "\n"
    # rows a bare "\r" in a name went unquoted and split the row for CSV readers
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([csv_cell(c) for c in header])
    for values in table:
        writer.writerow([csv_cell("" if v is None else v) for v in values])
    return buf.getvalue()


def _add_estimate(
    rows: list[dict],
    project: Project,
    log: LabelLog,
    params: dict,
    features: np.ndarray | None = None,
) -> list[str]:
    """The Label page's headline at export time (the exact leave-one-out accuracy of the random
    checks and its interval, :func:`rlscore.sessions.stopping.accuracy_estimate.export_estimate`;
    a multi-label project's micro-F1 of the predicted sets,
    :func:`rlscore.sessions.stopping.set_accuracy.export_set_estimate`),
    fitted with the learner settings ``params``, the same in every record; returns the columns
    added. ``features``: the labeled rows of a cluster-backed project (in label order), on
    which its RLS is fitted."""
    order = log.label_order()
    if project.multi_label:  # the micro-F1 of the sets (a pool on a cluster is single-label)
        values = export_set_estimate(project, {i: log.labels[i] for i in order}, params, log.checks)
    elif features is not None:  # only the labeled rows are here: the RLS sees nothing else
        labels = {k: log.labels[i] for k, i in enumerate(order)}
        checks = [k for k, i in enumerate(order) if i in log.checks]
        values = export_estimate(features, labels, params, checks, classes=project.classes)
    else:
        labels = {i: log.labels[i] for i in order}
        values = export_estimate(project.X, labels, params, log.checks, classes=project.classes)
    for row in rows:
        row.update(values)
    return list(values)


def recorded_settings(log: LabelLog) -> dict:
    """The learner's settings recorded with the newest label or review in ``log`` that records
    them (``strategy`` and ``lam``), whoever gave it and whether or not it decides its point
    now; ``{}`` when none does. What a log alone says of its learner: the Label page's
    settings are its project's current ones
    (:func:`~rlscore.sessions.actions.session_params.headline_settings`), which a change
    since the newest label makes others.

    A decision made on the Review page records no settings (no learner is involved:
    :func:`~rlscore.sessions.actions.review.review_point`) and changes none, so it is passed
    over (taking the newest *final* event's settings left the estimate empty after such a
    decision).

    Parameters
    ----------
    log : LabelLog
        The project's label log.

    Returns
    -------
    dict
        The ``params`` of that event (a copy).
    """
    current = [e for events in log.annotations.values() for e in events.values()]
    recorded = [
        e
        for e in (*current, *log.reviews.values())
        if e.params.get("strategy") is not None and e.params.get("lam") is not None
    ]
    return dict(max(recorded, key=_event_id).params) if recorded else {}


def _parquet_bytes(header: list, table: list) -> bytes:
    """The flat export as Parquet; a column mixing numbers and text (labels of a project
    with mixed classes) is written as text so pyarrow can type it."""
    import pyarrow as pa  # a dependency; imported here so the text exports need not load it
    import pyarrow.parquet as pq

    columns = {}
    for j, name in enumerate(header):
        values = [row[j] for row in table]
        kinds = {type(v) for v in values if v is not None}
        if len(kinds) > 1 and str in kinds:
            values = [None if v is None else str(v) for v in values]
        columns[name] = values
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


__all__ = [
    "EXPORT_FORMATS",
    "class_columns",
    "FIXED_COLUMNS",
    "FORMULA_START",
    "csv_cell",
    "export_labels",
    "export_rows",
    "recorded_settings",
    "TIE",
]
