"""The agreement report as the Review page shows it: tables with readable column names, a dash
where a figure is undefined, and a note that says why.

The report itself (and its JSON and text forms for ``python -m rlscore agreement``) is
:mod:`rlscore.sessions.team.agreement_report`; this module only words it. Annotator names are
user text: the page escapes the notes (``rlscore.ui.shell.safe_text.md_text``), and a table
cell is never rendered as Markdown.
"""

from __future__ import annotations

import math

from rlscore.core.conventions.counted_words import counted
from rlscore.sessions.team.agreement_report import AgreementReport

#: what stands in a cell whose figure is undefined
UNDEFINED = "—"
#: why a tie without a review is left out of an annotator's agreement with the final label
TIE_REASON = (
    "a tie's final label is only the latest of the tied labels, so counting it would credit "
    "whoever labeled last"
)
#: the help of the "Per annotator" table's columns that need one (the Review page's)
ANNOTATOR_COLUMN_HELP = {
    "Agreement with the final label": "Share of the points compared (next column) on which "
    "their label is the point's final label.",
    "Points compared": "Their points that someone else labeled too or a reviewer decided, "
    f"except ties no reviewer decided (such as a 1–1 disagreement): {TIE_REASON}.",
}


def measure_text(value: float) -> str:
    """An agreement measure as shown: three decimals, or :data:`UNDEFINED` when undefined
    (NaN: too few points labeled twice)."""
    return UNDEFINED if math.isnan(value) else f"{value:.3f}"


def share_text(value: float) -> str:
    """A share as shown: a percentage, or :data:`UNDEFINED` when undefined (NaN)."""
    return UNDEFINED if math.isnan(value) else f"{value:.0%}"


def annotator_table(report: AgreementReport) -> list[dict]:
    """The "Per annotator" table: each annotator's labels, median time, agreement with the
    final label and the points that agreement is over (:class:`~rlscore.sessions.team.
    agreement_report.AnnotatorRow`), :data:`UNDEFINED` where a figure is undefined
    (:func:`annotator_table_note` says why)."""
    return [
        {
            "Annotator": r.annotator or "unnamed",
            "Labels": r.labels,
            "Median seconds per label": UNDEFINED
            if r.median_seconds is None
            else f"{r.median_seconds:.1f}",
            "Agreement with the final label": share_text(r.agreement),
            "Points compared": r.n,
        }
        for r in report.per_annotator
    ]


def annotator_table_note(report: AgreementReport) -> str | None:
    """Which points :func:`annotator_table` leaves out and why its cells are
    :data:`UNDEFINED` (None: nothing to say). An annotator's agreement is over the points
    someone else labeled too or a reviewer decided, ties without a review excepted: a point
    only they labeled agrees with its final label by construction, and a tie's final label is
    only the latest of the tied labels."""
    tied = {a for p in report.ties for a in report.ratings[p]}
    undefined = [r.annotator for r in report.per_annotator if r.n == 0]
    alone = [a or "unnamed" for a in undefined if a not in tied]
    only_ties = [a or "unnamed" for a in undefined if a in tied]
    untimed = [r.annotator or "unnamed" for r in report.per_annotator if r.median_seconds is None]
    notes = []
    if report.ties:
        notes.append(
            f"Left out of the agreement with the final label: {counted(len(report.ties), 'tie')} "
            f"no reviewer decided; {TIE_REASON}."
        )
    if alone:
        notes.append(
            f"Agreement {UNDEFINED} for {', '.join(alone)}: no one else labeled their points "
            "and no reviewer decided one, so there is nothing to compare their labels with (a "
            "point only they labeled agrees with its final label by construction)."
        )
    if only_ties:
        notes.append(
            f"Agreement {UNDEFINED} for {', '.join(only_ties)}: each of their points that "
            "someone else labeled is a tie no reviewer decided."
        )
    if untimed:
        notes.append(
            f"Median seconds {UNDEFINED} for {', '.join(untimed)}: none of their labels "
            "recorded its time."
        )
    return " ".join(notes) or None


def pair_table(report: AgreementReport) -> list[dict]:
    """The table of Cohen's κ per pair of annotators (per class too in a multi-label
    project), :data:`UNDEFINED` where κ is undefined (:func:`pair_table_note`)."""
    return [
        {
            "Annotator A": r.annotator_a or "unnamed",
            "Annotator B": r.annotator_b or "unnamed",
            **({"Class": str(r.label_class)} if report.multi_label else {}),
            "Points both labeled": r.n_items,
            "Cohen's κ": measure_text(r.kappa),
        }
        for r in report.pairwise
    ]


def pair_table_note(report: AgreementReport) -> str | None:
    """Why a κ of :func:`pair_table` is :data:`UNDEFINED` (None: none is)."""
    if not any(math.isnan(r.kappa) for r in report.pairwise):
        return None
    return (
        f"Cohen's κ {UNDEFINED}: the two annotators share no labeled point, or both gave the "
        "same single answer on every point they share (chance agreement is then certain)."
    )


__all__ = [
    "ANNOTATOR_COLUMN_HELP",
    "TIE_REASON",
    "UNDEFINED",
    "annotator_table",
    "annotator_table_note",
    "measure_text",
    "pair_table",
    "pair_table_note",
    "share_text",
]
