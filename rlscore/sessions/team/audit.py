"""A project's audit: who changed its settings or members, exported or deleted it, and when.

The records are written by the store in the same transaction as the change they record
(:mod:`rlscore.storage.sql.access`: settings, members, deletions and restores) or, for an export,
by :func:`export_project`, which checks the role, exports the labels and records the export.
Review decisions are not repeated here: each is an event of the labeling log, with its own
audit trail (:func:`rlscore.sessions.actions.review.audit_trail`).

:func:`project_audit` reads a project's records (a deleted one's too, by uid), :func:`audit_as`
as a user may (an owner's: the records name members by their addresses);
:func:`audit_rows` and :func:`export_audit` give them as plain rows and as CSV, JSON, JSON
Lines or Parquet, so they travel with the labels (:func:`export_project`).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from rlscore.sessions.state.settings import final_label_log
from rlscore.sessions.team.permissions import require
from rlscore.sessions.views.export import EXPORT_FORMATS, csv_cell, export_labels
from rlscore.storage import LabelStore
from rlscore.storage.sql.access import AuditRecord, member_id

#: the columns of an exported audit
AUDIT_COLUMNS = ("id", "time", "project", "action", "actor", "details")


def project_audit(
    store: LabelStore, project: str | None = None, *, uid: int | None = None
) -> list[AuditRecord]:
    """The audit of ``project`` (or of the project of ``uid``, e.g. a deleted one's, from
    :meth:`~rlscore.storage.interface.label_store.LabelStore.trashed_projects`), oldest first."""
    return store.audit(project, uid=uid)


def audit_as(store: LabelStore, project: str, user: str | None) -> list[AuditRecord]:
    """:func:`project_audit` of ``project`` as ``user`` may read it: an owner's once the
    project has members (the records name members by their addresses), anyone's while it is
    open.

    Raises
    ------
    PermissionDeniedError
        ``user`` is not an owner of a project with members.
    """
    require(store, project, user, "see_members")
    return project_audit(store, project)


def audit_rows(records: list[AuditRecord]) -> list[dict]:
    """One plain dict per record with keys :data:`AUDIT_COLUMNS`: ``time`` in ISO 8601
    (UTC), ``details`` as an object."""
    return [
        {
            "id": r.id,
            "time": datetime.fromtimestamp(r.timestamp, UTC).isoformat(timespec="seconds"),
            "project": r.project,
            "action": r.action,
            "actor": r.actor,
            "details": r.details,
        }
        for r in records
    ]


def export_audit(records: list[AuditRecord], fmt: str = "csv") -> str | bytes:
    """The audit as CSV, JSON, JSON Lines (text) or Parquet (bytes), in the formats of the
    labels' export (:data:`~rlscore.sessions.views.export.EXPORT_FORMATS`). In CSV and Parquet
    ``details`` is a JSON text; the CSV is safe to open in a spreadsheet
    (:func:`~rlscore.sessions.views.export.csv_cell`)."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"export format must be one of {EXPORT_FORMATS}, got {fmt!r}")
    rows = audit_rows(records)
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False)
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    flat = [{**r, "details": json.dumps(r["details"], ensure_ascii=False)} for r in rows]
    if fmt == "parquet":
        import pyarrow as pa  # as the labels' export: only the Parquet export loads it
        import pyarrow.parquet as pq

        types = {c: pa.int64() if c == "id" else pa.string() for c in AUDIT_COLUMNS}
        columns = {c: pa.array([r[c] for r in flat], type=types[c]) for c in AUDIT_COLUMNS}
        buf = io.BytesIO()
        pq.write_table(pa.table(columns), buf)
        return buf.getvalue()
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")  # RFC 4180, as the labels' CSV
    writer.writerow(AUDIT_COLUMNS)
    for r in flat:
        writer.writerow([csv_cell(r[c]) for c in AUDIT_COLUMNS])
    return buf.getvalue()


@dataclass(frozen=True)
class ProjectExport:
    """What :func:`export_project` gives: the labels and the project's audit, both in the
    format asked for.

    Attributes
    ----------
    labels : str or bytes
        :func:`~rlscore.sessions.views.export.export_labels` of the project.
    audit : str or bytes
        :func:`export_audit` of the project's audit, this export's record included.
    """

    labels: str | bytes
    audit: str | bytes


def labels_export(
    store: LabelStore,
    project: str,
    fmt: str = "csv",
    *,
    include_features: bool = True,
    estimate: bool = False,
) -> str | bytes:
    """``project``'s labels as :func:`~rlscore.sessions.views.export.export_labels` gives them,
    folded with its final-label rule, with (``estimate``) the Label page's headline now: fitted
    with the project's current settings
    (:func:`~rlscore.sessions.actions.session_params.headline_settings`), not those of its
    newest label, which a settings change made others. No permission is checked and nothing is
    recorded (:func:`export_project` does both).

    Parameters
    ----------
    store : LabelStore
        The label database.
    project : str
        The project's name.
    fmt : str
        One of :data:`~rlscore.sessions.views.export.EXPORT_FORMATS`.
    include_features : bool
        Add the feature values of each point.
    estimate : bool
        Add the accuracy estimate at export time.

    Returns
    -------
    str or bytes
        The export (bytes for Parquet).
    """
    # imported here: the session's modules are not needed for an audit export
    from rlscore.sessions.actions.session_params import headline_settings

    loaded = store.load_project(project)
    log = final_label_log(store, project)
    settings = headline_settings(store, loaded, log) if estimate else None
    return export_labels(
        loaded, log, fmt, include_features=include_features, estimate=estimate, settings=settings
    )


def export_project(
    store: LabelStore,
    project: str,
    user: str | None,
    fmt: str = "csv",
    *,
    include_features: bool = True,
    estimate: bool = False,
) -> ProjectExport:
    """Export ``project``'s labels and audit as ``user`` (an owner, or anyone while the
    project is open), and record the export in the audit. ``estimate`` adds the accuracy
    estimate at export time (as :func:`~rlscore.sessions.views.export.export_labels`).

    Raises
    ------
    PermissionDeniedError
        ``user`` is not an owner of a project with members (nothing is exported or
        recorded).
    """
    require(store, project, user, "export")
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"export format must be one of {EXPORT_FORMATS}, got {fmt!r}")
    labels = labels_export(
        store, project, fmt, include_features=include_features, estimate=estimate
    )
    actor = "" if user is None or not str(user).strip() else member_id(str(user))
    details = {"format": fmt, "include_features": bool(include_features)}
    if estimate:
        details["estimate"] = True
    store.record_audit(project, "export", actor, details)
    return ProjectExport(labels, export_audit(project_audit(store, project), fmt))


__all__ = [
    "AUDIT_COLUMNS",
    "ProjectExport",
    "audit_as",
    "audit_rows",
    "export_audit",
    "export_project",
    "labels_export",
    "project_audit",
]
