"""The Review page's wiring: decide a point, change the team's overlap, tables of the log and
of the "Probably wrong" queue (keep and relabel are decisions, :func:`decide`).

Each decision button carries the point and ``seen`` (the log version the page was drawn
from) in its key and arguments, as the Label page's buttons do (:mod:`rlscore.ui.label.actions`):
a decision on a point that changed after it was shown is refused and said so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import streamlit as st

from rlscore.core.conventions.counted_words import counted
from rlscore.data.projects.project import Project
from rlscore.sessions.actions.review import Decision, review_point
from rlscore.sessions.actions.undo import REVERTED_ACTION, undo_last
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.team.agreement_tables import ANNOTATOR_COLUMN_HELP
from rlscore.storage import StaleActionError
from rlscore.ui.label.point_view import brief_text, show_point, thumbnail, thumbnail_url
from rlscore.ui.shell.errors import user_message
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.params import update_params
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import get_store


def decide(project: str, point: int, label, reviewer: str, seen: int, shown: str) -> None:
    """Callback: the reviewer decides ``point``'s label (``shown``: the class as displayed)."""
    try:
        review_point(get_store(), project, point, label, reviewer, seen=seen)
    except StaleActionError as exc:
        who = md_text(exc.events[-1].annotator or "someone")
        flash("warning", f"Not saved: {who} changed point #{point} after it was shown to you.")
    except Exception as exc:  # shown, never raised into the page
        flash("warning", f"Not saved: {user_message(exc)}")
    else:
        flash("success", f"Point #{point}: final label **{md_text(shown)}** ({md_text(reviewer)}).")


def undo_mine(project: str, reviewer: str, expected: int) -> None:
    """Callback: revert the reviewer's own last action (a decision, a label or a skip)."""
    try:
        reverted = undo_last(get_store(), project, annotator=reviewer, expected=expected)
    except Exception as exc:
        flash("warning", f"Nothing undone: {user_message(exc)}")
        return
    if reverted is not None:
        what = REVERTED_ACTION[reverted.kind]
        flash("info", f"Undone: your {what} of point #{reverted.point}.")


def apply_overlap(k_key: str, fraction_key: str) -> None:
    """Callback: save the team's overlap setting (the widgets' values now, not when the button
    was drawn) for the project."""
    k, fraction = st.session_state[k_key], st.session_state[fraction_key]
    try:
        update_params(overlap=int(k), overlap_fraction=float(fraction))
    except Exception as exc:
        flash("error", f"Not applied: {user_message(exc)}")
    else:
        annotators = counted(k, "annotator")
        flash("success", f"Saved: {annotators} per point on {float(fraction):.0%}.")


def _when(ts: float | None) -> str:
    return "" if ts is None else datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S")


def decision_options(project: Project, log: LabelLog, point: int) -> list:
    """The final labels a reviewer chooses among for ``point``: the classes, or in a
    multi-label project the distinct sets its annotators gave (in the order first given)."""
    if not project.multi_label:
        return list(project.classes)
    given = sorted(log.annotations.get(point, {}).values(), key=lambda e: e.id)
    return list(dict.fromkeys(e.label for e in given))


def ratings_table(log: LabelLog, point: int, class_text) -> list[dict]:
    """The annotators' current labels of ``point``, oldest first."""
    current = sorted(log.annotations.get(point, {}).values(), key=lambda e: e.id)
    return [
        {
            "annotator": e.annotator or "unnamed",
            "label": class_text(e.label),
            "when (UTC)": _when(e.timestamp),
            "seconds": e.seconds,
        }
        for e in current
    ]


def audit_table(trail: list[Decision], class_text, project: Project | None = None) -> list[dict]:
    """The review decisions, newest first: who, when, which point and label, and status.

    With ``project``, each row also shows the decided item as the Label page's recent labels
    do: its one-line text (``item``, plain text in the table) and, for a project of images, a
    thumbnail (``image``: a ``data:`` URL, drawn by :data:`AUDIT_COLUMNS`)."""
    rows = []
    images = project is not None and _has_images(project)
    for d in trail:
        row = {
            "when (UTC)": _when(d.event.timestamp),
            "reviewer": d.event.annotator or "unnamed",
            "point": d.event.point,
        }
        if project is not None:
            if images:
                row["image"] = thumbnail_url(thumbnail(project, d.event.point))
            row["item"] = brief_text(project, d.event.point)
        row["label"] = class_text(d.event.label)
        row["status"] = (
            "holds"
            if d.holds
            else f"undone by {d.undone_by.annotator or 'unnamed'} {_when(d.undone_by.timestamp)}"
        )
        rows.append(row)
    return rows


def suspect_table(row, class_text) -> list[dict]:
    """One suspect of the "Probably wrong" queue as a one-row table: its label, who gave
    it, the class the leave-one-out model suggests and the chance the label is wrong."""
    return [
        {
            "label": class_text(row["label"]),
            "given by": row["annotator"] or "unnamed",
            "suggested": class_text(row["suggested"]),
            "chance wrong": f"{row['score']:.0%}",
        }
    ]


def annotator_rates(rates) -> list[dict]:
    """The annotators' estimated error rates (:attr:`~rlscore.sessions.views.label_issues.
    SuspectQueue.annotators`) as shown: the rate in percent, over how many shared points."""
    return [
        {
            "annotator": r["annotator"] or "unnamed",
            "estimated error rate": f"{r['estimated error rate']:.0%}",
            "points shared with another annotator": int(r["shared points"]),
        }
        for r in rates.to_dict("records")
    ]


def _has_images(project: Project) -> bool:
    return bool(project.meta.get("image_shape")) or any(
        c.kind == "image" for c in project.items or []
    )


#: how :func:`audit_table`'s item columns are drawn in ``st.dataframe``
AUDIT_COLUMNS = {
    "image": st.column_config.ImageColumn("image", width="small"),
    "item": st.column_config.TextColumn("item", width="medium"),
}

#: how the "Per annotator" agreement table's columns are drawn: with their help (which
#: points an annotator's agreement is over, ties without a review left out)
ANNOTATOR_COLUMNS = {
    name: st.column_config.Column(help=text) for name, text in ANNOTATOR_COLUMN_HELP.items()
}


@contextmanager
def point_card(project: Project, point: int) -> Iterator[None]:
    """A bordered card for ``point``: its number and id, its item on the left; the body of the
    ``with`` block draws in the right column (the disagreements' and the suspects' cards)."""
    with st.container(border=True):
        st.markdown(f"**Point #{point}** · id {md_text(project.ids[point])}")
        left, right = st.columns([1, 2])
        with left:
            show_point(project, point)
        with right:
            yield


__all__ = [
    "decision_options",
    "AUDIT_COLUMNS",
    "ANNOTATOR_COLUMNS",
    "annotator_rates",
    "apply_overlap",
    "audit_table",
    "decide",
    "point_card",
    "ratings_table",
    "suspect_table",
    "undo_mine",
]
