"""How well a project's annotators agree: the report behind ``python -m rlscore agreement``.

Built from the label log's fold (:class:`~rlscore.sessions.state.label_log.LabelLog`): each
annotator's *current* label of a point (their latest label not undone; reviews are not ratings), the
points' final labels and the review decisions. The coefficients are those of
:mod:`rlscore.core.evaluation.agreement` over the points labeled by two or more annotators (the
*overlap*); points labeled once say nothing about agreement and are left out of them.

Each annotator's **agreement with the final label** is over their points that someone else
labeled too or a reviewer decided, except the *ties* no review decided
(:meth:`LabelLog.tied <rlscore.sessions.state.label_log.LabelLog.tied>`: under the majority rule,
a 1–1 disagreement of two annotators). A tie's final label is only the latest of the tied
labels: counted, it would credit whoever labeled second with every unresolved tie and blame the
other. A reviewer's decision on a tie counts as on any other point.

In a **multi-label** project (a label is a set of classes) the measures are those of
:mod:`rlscore.core.evaluation.set_agreement` instead: Krippendorff's α with the MASI distance (the
headline: {a, b} against {a} is a partial disagreement, not a full one), Cohen's κ per class
(each class a yes/no question) for each pair of annotators over the points both labeled, and
the share of overlapped points on which every annotator gave exactly the same set. Fleiss' κ,
which would count each distinct set as one category, is not reported for them.

Who may read it: :func:`agreement_as` checks the *reviewer* role once the project has members
(:mod:`rlscore.sessions.team.permissions`); the app reads it through that function. The
``agreement`` command reads it unchecked (:func:`project_agreement`): shell access to the
database is an administrator's, as for ``members``.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rlscore.core.conventions.counted_words import counted
from rlscore.core.conventions.label_sets import label_set
from rlscore.core.evaluation.agreement import (
    NO_OVERLAP,
    fleiss_kappa,
    krippendorff_alpha,
    pairwise_cohen,
    undefined_reason,
)
from rlscore.core.evaluation.set_agreement import krippendorff_alpha_sets, per_label_kappa
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.state.settings import final_label_log
from rlscore.sessions.team.permissions import require
from rlscore.storage import LabelStore

#: the reason reported when the project has fewer than two annotators
ONE_ANNOTATOR = "fewer than two annotators have labeled"
#: the reason reported when a multi-label project's α is undefined although points overlap
ONE_SET = "every annotator gave the same label set on every point, so chance disagreement is 0"


@dataclass(frozen=True)
class PairRow:
    """Cohen's κ of two annotators over the points both labeled (``nan``: undefined).

    In a multi-label project the κ is of one class, :attr:`label_class`: of the two
    annotators' yes/no decisions on whether their sets hold it (None in a single-label one).
    """

    annotator_a: str
    annotator_b: str
    n_items: int
    kappa: float
    label_class: object = None


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
        The annotator's points that someone else labeled too or a reviewer decided, less
        the ties no review decided (:attr:`AgreementReport.ties`): a point only they labeled
        agrees with its final label by construction, and a tie's final label is only the
        latest of the tied labels, so both are left out. Under the majority rule the
        annotator's own vote is part of the final label.
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
        the reason in :attr:`reason`. In a multi-label project α is of the label sets with the
        MASI distance (:func:`~rlscore.core.evaluation.set_agreement.krippendorff_alpha_sets`)
        and Fleiss' κ is ``nan``.
    reason : str or None
        Why the two coefficients are undefined ("not enough overlap yet"), else None.
    pairwise : list of PairRow
        Every pair of annotators, names in sorted order; in a multi-label project every pair
        that labeled a point in common, once per class in class order.
    per_annotator : list of AnnotatorRow
        Every annotator with a current label, sorted by name.
    ratings, final, reviewed
        The inputs (point -> annotator -> label; point -> final label; reviewed points).
    ties : frozenset of int
        Points whose final label broke a tie that no review decided: left out of every
        annotator's agreement with the final label (:class:`AnnotatorRow`), still among the
        :meth:`disagreements`.
    multi_label : bool
        Whether the labels are label sets (the measures above are then the set ones).
    same_set : float
        Multi-label projects: the share of the :attr:`n_points_overlap` points on which every
        annotator gave exactly the same set (``nan`` without overlap, and in a single-label
        project).
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
    multi_label: bool = False
    same_set: float = math.nan
    ties: frozenset[int] = field(default=frozenset(), repr=False)

    def disagreements(self) -> list[int]:
        """Points whose annotators' current labels differ and no review decided, by index."""
        return sorted(
            p
            for p, by in self.ratings.items()
            if p not in self.reviewed and len(set(by.values())) > 1
        )

    def to_dict(self) -> dict:
        """The report as JSON-serialisable plain data (``nan`` becomes None).

        A multi-label project's has ``multi_label``, ``krippendorff_alpha_masi`` and
        ``same_set`` in place of ``fleiss_kappa`` and ``krippendorff_alpha``, and a ``class``
        in each pair's row; its labels are lists. ``ties_without_review`` lists the points
        left out of the annotators' agreement as ties (:attr:`ties`).
        """
        if self.multi_label:
            head = {
                "multi_label": True,
                "n_points_overlap": self.n_points_overlap,
                "krippendorff_alpha_masi": _json_number(self.krippendorff_alpha),
                "same_set": _json_number(self.same_set),
            }
        else:
            head = {
                "n_points_overlap": self.n_points_overlap,
                "fleiss_kappa": _json_number(self.fleiss_kappa),
                "krippendorff_alpha": _json_number(self.krippendorff_alpha),
            }
        return {
            **head,
            "reason": self.reason,
            "pairwise": [
                {
                    "annotator_a": r.annotator_a,
                    "annotator_b": r.annotator_b,
                    **({"class": r.label_class} if self.multi_label else {}),
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
            "ties_without_review": sorted(self.ties),
            "disagreements": [
                {"point": p, "labels": {a: _json_label(y) for a, y in self.ratings[p].items()}}
                for p in self.disagreements()
            ],
        }

    def to_text(self) -> str:
        """The report as aligned plain-text tables."""
        lines = [f"Points labeled by two or more annotators: {self.n_points_overlap}"]
        lines += self._headline_text()
        if self.pairwise and self.multi_label:
            lines += [
                "",
                "Pairs (Cohen's kappa per class, whether the set holds it, "
                "over the points both labeled)",
            ]
            lines += _table(
                ("annotator A", "annotator B", "class", "points", "kappa"),
                "lllrr",
                [
                    (r.annotator_a, r.annotator_b, r.label_class, r.n_items, _fmt(r.kappa))
                    for r in self.pairwise
                ],
            )
        elif self.pairwise:
            lines += ["", "Pairs (Cohen's kappa over the points both labeled)"]
            lines += _table(
                ("annotator A", "annotator B", "points", "kappa"),
                "llrr",
                [(r.annotator_a, r.annotator_b, r.n_items, _fmt(r.kappa)) for r in self.pairwise],
            )
        lines += [
            "",
            "Annotators (agreement with the final label on points overlapped or reviewed, "
            "ties without a review left out)",
        ]
        lines += _table(
            ("annotator", "labels", "median s", "agreement", "points"),
            "lrrrr",
            [
                (r.annotator, r.labels, _fmt(r.median_seconds, ".1f"), _fmt(r.agreement), r.n)
                for r in self.per_annotator
            ],
        )
        if self.ties:
            lines.append(
                f"  Left out: {counted(len(self.ties), 'tie')} without a review (a tie's final "
                "label is only the latest of the tied labels)"
            )
        points = self.disagreements()
        lines += ["", f"Disagreements without a review: {len(points)}"]
        lines += [
            f"  point {p}: "
            + ", ".join(f"{a}={_text_label(y)}" for a, y in sorted(self.ratings[p].items()))
            for p in points
        ]
        return "\n".join(lines)

    def _headline_text(self) -> list[str]:
        """The coefficients' lines of :meth:`to_text`."""
        if not self.multi_label:
            if self.reason is not None:
                return [f"Fleiss' kappa, Krippendorff's alpha: not defined ({self.reason})"]
            return [
                f"Fleiss' kappa:         {self.fleiss_kappa:.3f}",
                f"Krippendorff's alpha:  {self.krippendorff_alpha:.3f}",
            ]
        alpha = "Krippendorff's alpha (MASI distance): "
        if self.reason is None:
            lines = [f"{alpha}{self.krippendorff_alpha:.3f}"]
        else:
            lines = [f"{alpha}not defined ({self.reason})"]
        if self.n_points_overlap:
            lines.append(f"Same set from every annotator:        {self.same_set:.1%} of them")
        return lines


def agreement_report(
    ratings: Mapping[int, Mapping[str, object]],
    final: Mapping[int, object],
    seconds: Mapping[str, list[float]] | None = None,
    reviewed: Collection[int] = (),
    classes: Sequence | None = None,
    ties: Collection[int] = (),
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
        disagreements.
    classes
        A multi-label project's classes, in order: the labels are then label sets and the
        report's measures are the set ones (module docstring). None for a single-label project.
    ties
        Points whose final label broke a tie that no review decided
        (:meth:`LabelLog.tied`): left out of the annotators' agreement with the final label.
        :func:`log_agreement` passes all but ``classes`` from a :class:`LabelLog`.

    Returns
    -------
    AgreementReport
    """
    ratings = {int(p): dict(by) for p, by in ratings.items() if by}
    if classes is not None:  # one spelling of a set: equal sets compare equal and hash alike
        ratings = {
            p: {a: label_set(y, classes) for a, y in by.items()} for p, by in ratings.items()
        }
        final = {p: None if y is None else label_set(y, classes) for p, y in final.items()}
    reviewed = frozenset(int(p) for p in reviewed)
    ties = frozenset(int(p) for p in ties) - reviewed  # a review decides a tie
    seconds = seconds or {}
    annotators = sorted({a for by in ratings.values() for a in by})
    overlap = {p: by for p, by in ratings.items() if len(by) >= 2}
    # items × annotators table of the overlapped points only: the others carry no pairs
    table = np.empty((len(overlap), len(annotators)), dtype=object)
    for i, by in enumerate(overlap.values()):
        for j, a in enumerate(annotators):
            table[i, j] = by.get(a)
    same_set = math.nan
    if len(annotators) < 2:
        kappa, alpha, reason, pairwise = math.nan, math.nan, ONE_ANNOTATOR, []
    elif classes is not None:
        kappa = math.nan
        alpha = krippendorff_alpha_sets(table) if overlap else math.nan
        reason = NO_OVERLAP if not overlap else ONE_SET if math.isnan(alpha) else None
        pairwise = _class_pairs(table, annotators, classes)
        if overlap:
            same_set = sum(len(set(by.values())) == 1 for by in overlap.values()) / len(overlap)
    else:
        kappa, alpha = fleiss_kappa(table), krippendorff_alpha(table)
        reason = undefined_reason(table)
        pairs = pairwise_cohen(table, annotators)
        pairwise = [PairRow(a, b, n, k) for (a, b), (k, n) in pairs.items()]
    return AgreementReport(
        n_points_overlap=len(overlap),
        fleiss_kappa=kappa,
        krippendorff_alpha=alpha,
        reason=reason,
        pairwise=pairwise,
        per_annotator=_annotator_rows(
            ratings, final, seconds, reviewed | set(overlap), ties, annotators
        ),
        ratings=ratings,
        final=dict(final),
        reviewed=reviewed,
        multi_label=classes is not None,
        same_set=same_set,
        ties=ties,
    )


def _class_pairs(table: np.ndarray, annotators: list[str], classes: Sequence) -> list[PairRow]:
    """Cohen's κ per class of every pair of annotators who labeled a point in common: per
    pair rather than pooled over the pairs, as Cohen's κ is of two raters' marginals."""
    rows = []
    for i, a in enumerate(annotators):
        for j in range(i + 1, len(annotators)):
            n_both = sum(x is not None and y is not None for x, y in table[:, [i, j]])
            if not n_both:
                continue
            kappas = per_label_kappa(list(table[:, i]), list(table[:, j]), classes)
            rows += [PairRow(a, annotators[j], n_both, kappas[c], c) for c in classes]
    return rows


def _annotator_rows(ratings, final, seconds, compared, ties, annotators) -> list[AnnotatorRow]:
    """Each annotator's row of the report (:class:`AnnotatorRow`): agreement over their
    points among ``compared`` (overlapped or reviewed) that are not ``ties``."""
    rows = []
    for a in annotators:
        mine = {p: by[a] for p, by in ratings.items() if a in by}
        judged = [p for p in mine if p in compared and p not in ties]
        hits = sum(mine[p] == final.get(p) for p in judged)
        times = seconds.get(a, [])
        rows.append(
            AnnotatorRow(
                annotator=a,
                labels=len(mine),
                median_seconds=float(np.median(times)) if times else None,
                agreement=hits / len(judged) if judged else math.nan,
                n=len(judged),
            )
        )
    return rows


def log_agreement(log: LabelLog, classes: Sequence | None = None) -> AgreementReport:
    """:func:`agreement_report` of a folded log: its ratings, final labels, times, reviews
    and ties (``classes``: a multi-label project's, as there)."""
    ties = [p for p in log.annotations if log.tied(p)]
    return agreement_report(
        log.ratings(), log.labels, log.label_seconds(), log.reviews, classes, ties
    )


def project_agreement(store: LabelStore, name: str, rule: str | None = None) -> AgreementReport:
    """The agreement report of a project's event log.

    ``rule`` is the final-label rule of the fold
    (:data:`~rlscore.sessions.state.label_log.FINAL_RULES`), by default the project's own
    (:attr:`Overlap.rule <rlscore.sessions.team.overlap.Overlap.rule>` of its saved settings): the
    annotators' agreement with the final label is with the label the learner trains on. A
    multi-label project's report has the set measures. Raises
    :class:`~rlscore.storage.UnknownProjectError` for an unknown project.
    """
    classes = _set_classes(store, name)
    log = final_label_log(store, name) if rule is None else LabelLog(store.events(name), rule=rule)
    return log_agreement(log, classes)


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
    if log is None:
        return project_agreement(store, name, rule)
    return log_agreement(log, _set_classes(store, name))


def _set_classes(store: LabelStore, name: str) -> list | None:
    """The classes of ``name`` if it is a multi-label project, else None (from the project
    summaries, which do not load the features). Raises ``UnknownProjectError`` for an
    unknown project."""
    summary = next((s for s in store.project_summaries() if s["name"] == name), None)
    if summary is None:
        store.load_project(name)  # raises UnknownProjectError naming the projects
    return list(summary["classes"]) if summary.get("multi_label") else None


def _json_number(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _json_label(label):
    """A label as JSON: a label set (a tuple) as a list."""
    return list(label) if isinstance(label, tuple) else label


def _text_label(label) -> str:
    """A label in the text report: a label set as ``{a, b}`` (``{}`` for the empty set)."""
    if isinstance(label, tuple):
        return "{" + ", ".join(str(c) for c in label) + "}"
    return str(label)


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
    "ONE_SET",
    "AgreementReport",
    "AnnotatorRow",
    "PairRow",
    "agreement_as",
    "agreement_report",
    "log_agreement",
    "project_agreement",
]
