"""Export of a project's current labels as CSV or JSON (from the event log; no engine)."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime

from rlscore.data.projects import Project
from rlscore.sessions.log import LabelLog
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


def export_labels(
    project: Project,
    events: Iterable[Event] | LabelLog,
    fmt: str = "csv",
    *,
    include_features: bool = True,
) -> str:
    """The current labels of a project as CSV or JSON text.

    One row per labeled point, in the order the labels were given: ``point_id``, ``index``
    (row in the pool), ``label``, ``annotator``, ``timestamp`` (ISO 8601, UTC), ``seconds``
    spent, ``strategy``, ``kernel``, ``sigma``, ``lam`` in effect when it was labeled, then
    the feature values (CSV: one column per feature; JSON: a ``features`` object).

    The CSV is safe to open in a spreadsheet: every text cell, header included, that a
    spreadsheet would run as a formula starts with ``'`` (:func:`csv_cell`); plain numbers
    such as a label ``-1`` stay as they are. The JSON keeps every string exactly.

    Parameters
    ----------
    project
        The project (ids, feature names, features).
    events
        Its event log, or a :class:`LabelLog` folded from it.
    fmt
        ``"csv"`` or ``"json"``.
    include_features
        Add the feature values of each point (as stored, i.e. standardised if the project is).
    """
    if fmt not in ("csv", "json"):
        raise ValueError(f"export format must be 'csv' or 'json', got {fmt!r}")
    log = events if isinstance(events, LabelLog) else LabelLog(events)
    rows = []
    for point in log.label_order():
        e = log.label_events[point]
        row = {
            "point_id": project.ids[point],
            "index": point,
            "label": e.label,
            "annotator": e.annotator,
            "timestamp": _iso(e.timestamp),
            "seconds": e.seconds,
            "strategy": e.params.get("strategy"),
            "kernel": e.params.get("kernel"),
            "sigma": e.params.get("sigma"),
            "lam": e.params.get("lam"),
        }
        if include_features:
            row["features"] = dict(
                zip(project.feature_names, project.X[point].tolist(), strict=True)
            )
        rows.append(row)
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False)
    fixed = [
        "point_id", "index", "label", "annotator", "timestamp", "seconds",
        "strategy", "kernel", "sigma", "lam",
    ]  # fmt: skip
    # a feature named like a fixed column gets a prefix so no column is overwritten
    names = [f"feature:{f}" if f in fixed else f for f in project.feature_names]
    buf = io.StringIO()
    # CRLF rows (RFC 4180): the writer then quotes a cell holding either line break; with "\n"
    # rows a bare "\r" in a name went unquoted and split the row for CSV readers
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow([csv_cell(c) for c in fixed + (names if include_features else [])])
    for row in rows:
        values = [("" if row[k] is None else row[k]) for k in fixed]
        if include_features:
            values += list(row["features"].values())
        writer.writerow([csv_cell(v) for v in values])
    return buf.getvalue()


__all__ = ["FORMULA_START", "csv_cell", "export_labels"]
