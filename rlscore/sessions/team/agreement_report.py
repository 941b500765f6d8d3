"""How well a project's annotators agree: the report behind ``python -m rlscore agreement``.

Built from the label log's fold (:class:`~rlscore.sessions.state.label_log.LabelLog`): each
annotator's *current* label of a point (their latest label not undone; reviews are not ratings), the
points' final labels and the review decisions. The coefficients are those of
:mod:`rlscore.core.evaluation.agreement` over the points labeled by two or more annotators (the
*overlap*); points labeled once say nothing about agreement and are left out of them.

Who may read it: :func:`agreement_as` checks the *reviewer* role once the project has members
(:mod:`rlscore.sessions.team.permissions`); the app reads it through that function. The
``agreement`` command reads it unchecked (:func:`project_agreement`): shell access to the
database is an administrator's, as for ``members``.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

import numpy as np

from rlscore.core.evaluation.agreement import (
    fleiss_kappa,
    krippendorff_alpha,
    pairwise_cohen,
    undefined_reason,
)
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.state.settings import project_settings
from rlscore.sessions.team.overlap import Overlap
from rlscore.sessions.team.permissions import require
from rlscore.storage import LabelStore

#: the reason reported when the project has fewer than two annotators
ONE_ANNOTATOR = "fewer than two annotators have labeled"


@dataclass(frozen=True)
class PairRow:
    """Cohen's κ of two annotators over the points both labeled (``nan``: undefined)."""

    annotator_a: str
    annotator_b: str
    n_items: int
    kappa: float


@dataclass(frozen=True)
class AnnotatorRow:
    """One annotator's work.

    Attributes
    ----------
    annotator : str
    labels : int
        Points the annotator has a current label on.
    median_seconds : float or None
        Median time spent per current label (None: no label recorded its time).
    agreement : float
        Fraction of :attr:`n` points where the annotator's label equals the final label
        (``nan`` when ``n`` is 0).
    n : int
        The annotator's points that someone else labeled too or a reviewer decided: a
        point only they labeled agrees with its final label by construction, so it is left
        out. Under the majority rule the annotator's own vote is part of the final label.
    """

    annotator: str
    labels: int
    median_seconds: float | None
    agreement: float
    n: int


@dataclass(frozen=True)
class AgreementReport:
    """Agreement among a project's annotators (:func:`agreement_report`).

    Attributes
    ----------
    n_points_overlap : int
        Points with current labels from two or more annotators.
    fleiss_kappa, krippendorff_alpha : float
        Over those points (:func:`rlscore.core.evaluation.agreement.fleiss_kappa`,
        :func:`~rlscore.core.evaluation.agreement.krippendorff_alpha`); ``nan`` when undefined, with
        the reason in :attr:`reason`.
    reason : str or None
        Why the two coefficients are undefined ("not enough overlap yet"), else None.
    pairwise : list of PairRow
        Every pair of annotators, names in sorted order.
    per_annotator : list of AnnotatorRow
        Every annotator with a current label, sorted by name.
    ratings, final, reviewed
        The inputs (point -> annotator -> label; point -> final label; reviewed points).
    """

    n_points_overlap: int
    fleiss_kappa: float
    krippendorff_alpha: float
    reason: str | None
    pairwise: list[PairRow]
    per_annotator: list[AnnotatorRow]
    ratings: dict[int, dict[str, object]] = field(repr=False)
    final: dict[int, object] = field(repr=False)
    reviewed: frozenset[int] = field(repr=False)

    def disagreements(self) -> list[int]:
        """Points whose annotators' current labels differ and no review decided, by index."""
        return sorted(
            p
            for p, by in self.ratings.items()
            if p not in self.reviewed and len(set(by.values())) > 1
        )

    def to_dict(self) -> dict:
        """The report as JSON-serialisable plain data (``nan`` becomes None)."""
        return {
            "n_points_overlap": self.n_points_overlap,
            "fleiss_kappa": _json_number(self.fleiss_kappa),
            "krippendorff_alpha": _json_number(self.krippendorff_alpha),
            "reason": self.reason,
            "pairwise": [
                {
                    "annotator_a": r.annotator_a,
                    "annotator_b": r.annotator_b,
                    "n_items": r.n_items,
                    "kappa": _json_number(r.kappa),
                }
                for r in self.pairwise
            ],
            "per_annotator": [
                {
                    "annotator": r.annotator,
                    "labels": r.labels,
                    "median_seconds": r.median_seconds,
                    "agreement": _json_number(r.agreement),
                    "n": r.n,
                }
                for r in self.per_annotator
            ],
            "disagreements": [
                {"point": p, "labels": dict(self.ratings[p])} for p in self.disagreements()
            ],
        }

    def to_text(self) -> str:
        """The report as aligned plain-text tables."""
        lines = [f"Points labeled by two or more annotators: {self.n_points_overlap}"]
        if self.reason is None:
            lines += [
                f"Fleiss' kappa:         {self.fleiss_kappa:.3f}",
                f"Krippendorff's alpha:  {self.krippendorff_alpha:.3f}",
            ]
        else:
            lines.append(f"Fleiss' kappa, Krippendorff's alpha: not defined ({self.reason})")
        if self.pairwise:
            lines += ["", "Pairs (Cohen's kappa over the points both labeled)"]
            lines += _table(
                ("annotator A", "annotator B", "points", "kappa"),
                "llrr",
                [(r.annotator_a, r.annotator_b, r.n_items, _fmt(r.kappa)) for r in self.pairwise],
            )
        lines += [
            "",
            "Annotators (agreement with the final label on points overlapped or reviewed)",
        ]
        lines += _table(
            ("annotator", "labels", "median s", "agreement", "points"),
            "lrrrr",
            [
                (r.annotator, r.labels, _fmt(r.median_seconds, ".1f"), _fmt(r.agreement), r.n)
                for r in self.per_annotator
            ],
        )
        points = self.disagreements()
        lines += ["", f"Disagreements without a review: {len(points)}"]
        lines += [
            f"  point {p}: " + ", ".join(f"{a}={y}" for a, y in sorted(self.ratings[p].items()))
            for p in points
        ]
        return "\n".join(lines)


def agreement_report(
    ratings: Mapping[int, Mapping[str, object]],
    final: Mapping[int, object],
    seconds: Mapping[str, list[float]] | None = None,
    reviewed: Collection[int] = (),
) -> AgreementReport:
    """The agreement report of a project's labels.

    Parameters
    ----------
    ratings
        point -> {annotator: their current label} (:meth:`LabelLog.ratings`).
    final
        point -> final label (:attr:`LabelLog.labels`).
    seconds
        annotator -> seconds spent per label (:meth:`LabelLog.label_seconds`).
    reviewed
        Points a review decided (:attr:`LabelLog.reviews`): they count towards the
        annotators' agreement with the final label even when labeled once, and are no
        disagreements. :func:`log_agreement` passes all four from a :class:`LabelLog`.

    Returns
    -------
    AgreementReport
    """
    ratings = {int(p): dict(by) for p, by in ratings.items() if by}
    reviewed = frozenset(int(p) for p in reviewed)
    seconds = seconds or {}
    annotators = sorted({a for by in ratings.values() for a in by})
    overlap = {p: by for p, by in ratings.items() if len(by) >= 2}
    if len(annotators) < 2:
        kappa, alpha, reason, pairs = math.nan, math.nan, ONE_ANNOTATOR, {}
    else:
        # items × annotators table of the overlapped points only: the others carry no pairs
        table = np.empty((len(overlap), len(annotators)), dtype=object)
        for i, by in enumerate(overlap.values()):
            for j, a in enumerate(annotators):
                table[i, j] = by.get(a)
        kappa, alpha = fleiss_kappa(table), krippendorff_alpha(table)
        reason = undefined_reason(table)
        pairs = pairwise_cohen(table, annotators)
    pairwise = [PairRow(a, b, n, k) for (a, b), (k, n) in pairs.items()]
    per_annotator = []
    for a in annotators:
        mine = {p: by[a] for p, by in ratings.items() if a in by}
        judged = [p for p in mine if p in reviewed or p in overlap]
        hits = sum(mine[p] == final.get(p) for p in judged)
        times = seconds.get(a, [])
        per_annotator.append(
            AnnotatorRow(
                annotator=a,
                labels=len(mine),
                median_seconds=float(np.median(times)) if times else None,
                agreement=hits / len(judged) if judged else math.nan,
                n=len(judged),
            )
        )
    return AgreementReport(
        n_points_overlap=len(overlap),
        fleiss_kappa=kappa,
        krippendorff_alpha=alpha,
        reason=reason,
        pairwise=pairwise,
        per_annotator=per_annotator,
        ratings=ratings,
        final=dict(final),
        reviewed=reviewed,
    )


def log_agreement(log: LabelLog) -> AgreementReport:
    """:func:`agreement_report` of a folded log: its ratings, final labels, times and reviews."""
    return agreement_report(log.ratings(), log.labels, log.label_seconds(), log.reviews)


def project_agreement(store: LabelStore, name: str, rule: str | None = None) -> AgreementReport:
    """The agreement report of a project's event log.

    ``rule`` is the final-label rule of the fold
    (:data:`~rlscore.sessions.state.label_log.FINAL_RULES`), by default the project's own
    (:attr:`Overlap.rule <rlscore.sessions.team.overlap.Overlap.rule>` of its saved settings): the
    annotators' agreement with the final label is with the label the learner trains on. Raises
    :class:`~rlscore.storage.UnknownProjectError` for an unknown project.
    """
    if rule is None:
        settings = project_settings(store, name)
        rule = Overlap.of_settings(settings).rule
    return log_agreement(LabelLog(store.events(name), rule=rule))


def agreement_as(
    store: LabelStore,
    name: str,
    user: str | None,
    *,
    log: LabelLog | None = None,
    rule: str | None = None,
) -> AgreementReport:
    """The agreement report of ``name`` as ``user`` may read it: a reviewer's or owner's
    once the project has members (anyone's while it is open).

    ``log`` is the project's log already folded by the caller (then ``rule`` is its fold's);
    without it, :func:`project_agreement` with ``rule``.

    Raises
    ------
    PermissionDeniedError
        ``user`` lacks the reviewer role in a project with members; the message names it.
    """
    require(store, name, user, "agreement")
    return project_agreement(store, name, rule) if log is None else log_agreement(log)


def _json_number(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _fmt(x: float | None, spec: str = ".3f") -> str:
    return "-" if x is None or math.isnan(x) else format(x, spec)


def _table(header: tuple[str, ...], align: str, rows: list[tuple]) -> list[str]:
    """Lines of a plain-text table, column ``j`` left- (``"l"``) or right-aligned (``"r"``)."""
    cells = [header, *[tuple(str(c) for c in row) for row in rows]]
    widths = [max(len(row[j]) for row in cells) for j in range(len(header))]
    pad = {"l": str.ljust, "r": str.rjust}
    return [
        "  " + "  ".join(pad[a](c, w) for c, w, a in zip(row, widths, align, strict=True)).rstrip()
        for row in cells
    ]


__all__ = [
    "ONE_ANNOTATOR",
    "AgreementReport",
    "AnnotatorRow",
    "PairRow",
    "agreement_as",
    "agreement_report",
    "log_agreement",
    "project_agreement",
]
