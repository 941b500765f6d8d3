"""Starting a two-class project from positives only: Graph-OCL proposes reliable negatives.

An annotator looking for rare positives often labels a few of them before any negative. A
learner needs both classes, so the Label page (and :func:`propose_negatives` from Python, and
``python -m rlscore negatives``) offers Sheng's Graph-OCL (§3.5,
:class:`rlscore.core.graph.ocl.GraphOCL`): some labeled positives hide as *spies* among the
unlabeled points, LGC ranks the pool on its kNN graph, and the unlabeled points ranked below
every spy — at most as many as there are labeled positives — are the reliable negatives.

They are a *proposal*: nothing is written until the annotator, who sees each proposed point,
confirms it (:func:`confirm_negatives`, one ordinary label event per point, in the annotator's
name and refused for a point that changed since the proposal was shown). Then both classes are
labeled and the active loop goes on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rlscore.core.conventions.counted_words import counted
from rlscore.data.projects.project import Project
from rlscore.sessions.state.settings import final_label_log
from rlscore.storage import LabelStore, StaleActionError

#: neighbours of the kNN graph when the project's settings name none
DEFAULT_NEIGHBORS = 10


@dataclass(frozen=True)
class NegativeProposal:
    """Reliable negatives proposed for confirmation.

    Attributes
    ----------
    positive, negative
        The class the labeled points share, and the project's other class.
    points
        Pool indices of the reliable negatives, most negative first.
    spies
        The labeled positives hidden while ranking.
    n_below_spies
        Unlabeled points ranked below every spy, before the cap at the number of positives.
    n_positives
        Labeled positives the ranking started from.
    """

    positive: object
    negative: object
    points: tuple[int, ...]
    spies: tuple[int, ...]
    n_below_spies: int
    n_positives: int

    def describe(self) -> str:
        """One sentence for the page and the command line."""
        spies = counted(len(self.spies), "hidden spy", "hidden spies")
        return (
            f"{counted(len(self.points), 'reliable negative')}: unlabeled points ranked below "
            f"{'the' if len(self.spies) == 1 else 'all'} {spies} of the {self.n_positives} "
            f"labeled positives ({self.n_below_spies} ranked below "
            f"{'it' if len(self.spies) == 1 else 'them'}, capped at {self.n_positives})."
        )


def cold_start_class(project: Project, labels: Mapping[int, object]) -> object | None:
    """The positive class when a two-class project's labels are all of one class, else None
    (always None for a multi-label project).

    Parameters
    ----------
    project
        The project (its ``classes``).
    labels
        Final label of each labeled point.
    """
    if project.multi_label or len(project.classes) != 2 or not labels:
        return None  # a multi-label project's labels are sets: no one-class cold start
    found = set(labels.values())
    return next(iter(found)) if len(found) == 1 else None


def propose_negatives(
    project: Project,
    labels: Mapping[int, object],
    *,
    n_neighbors: int = DEFAULT_NEIGHBORS,
    seed: int = 0,
) -> NegativeProposal:
    """Graph-OCL's reliable negatives for a two-class project labeled with one class so far.

    Parameters
    ----------
    project
        A two-class project.
    labels
        Final labels; all of one class (the positives), at least 2 of them.
    n_neighbors
        k of the pool's kNN graph (clipped to the pool).
    seed
        Draws the spies (a fixed seed: the same labels give the same proposal).

    Raises
    ------
    ValueError
        The project is not in a cold start (:func:`cold_start_class`), too few positives, or
        no unlabeled point ranks below the spies (the message says what to do).
    """
    positive = cold_start_class(project, labels)
    if project.multi_label:  # its labels are sets: listing them as classes said nothing
        raise ValueError(
            f"project {project.name!r} is multi-label: reliable negatives are proposed for a "
            "two-class single-label project whose labels are all of one class"
        )
    if positive is None:
        # the classes and the labels named alike, in the project's order and words
        labeled = set(labels.values())
        named = [project.class_text(c) for c in project.classes if c in labeled]
        raise ValueError(
            "reliable negatives are proposed for a two-class project whose labels are all of "
            f"one class; project {project.name!r} has classes "
            f"{[project.class_text(c) for c in project.classes]} and labels of "
            f"{named or 'no class'}"
        )
    negative = next(c for c in project.classes if c != positive)
    mask = np.zeros(project.n, dtype=bool)
    mask[np.fromiter(labels, dtype=np.intp)] = True
    # imported here: Graph-OCL loads scikit-learn, which only this proposal needs
    from rlscore.core.graph.ocl import GraphOCL, NoReliableNegativeError

    k = int(min(n_neighbors, project.n - 1))
    model = GraphOCL(n_neighbors=k, random_state=seed)
    try:
        model.fit(project.X, mask)
    except NoReliableNegativeError:
        # the estimator's message names its Python parameters; a session's callers (the
        # command line, the app) offer the number of neighbours only
        raise ValueError(
            "no reliable negative: every unlabeled point ranks at or above some hidden spy; "
            f"label more positives, or build the graph with another number of neighbours "
            f"(k = {k})"
        ) from None
    return NegativeProposal(
        positive=positive,
        negative=negative,
        points=tuple(int(i) for i in model.reliable_negatives_),
        spies=tuple(int(i) for i in model.spies_),
        n_below_spies=int(model.n_below_spies_),
        n_positives=int(mask.sum()),
    )


def project_proposal(
    store: LabelStore, name: str, *, n_neighbors: int = DEFAULT_NEIGHBORS, seed: int = 0
) -> tuple[Project, NegativeProposal]:
    """:func:`propose_negatives` for a stored project, on its final labels (the project's
    final-label rule); raises :class:`~rlscore.storage.UnknownProjectError` for an unknown
    name."""
    project = store.load_project(name)
    labels = final_label_log(store, name).labels
    return project, propose_negatives(project, labels, n_neighbors=n_neighbors, seed=seed)


def confirm_negatives(
    session, points: Iterable[int], negative, annotator: str, *, seen: int
) -> tuple[list[int], list[int]]:
    """Label each confirmed point as ``negative`` in ``annotator``'s name.

    Parameters
    ----------
    session
        The project's :class:`~rlscore.sessions.LabelingSession`.
    points
        The proposed points the annotator kept.
    negative
        The negative class.
    annotator
        Who confirmed them.
    seen
        The log version the proposal was shown at: a point labeled, skipped or undone since is
        not written (another annotator decided it).

    Returns
    -------
    (written, refused)
        Points labeled, and points refused because they changed since ``seen``.
    """
    written, refused = [], []
    for i in points:
        try:
            session.label(int(i), negative, annotator=annotator, seen=seen)
        except StaleActionError:
            refused.append(int(i))
        else:
            written.append(int(i))
    return written, refused


#: characters of a text shown in a printed proposal's ``item``
ITEM_CHARS = 80


def proposal_table(project: Project, proposal: NegativeProposal) -> Sequence[dict]:
    """Rows (rank, point, id) of a proposal, for printing; a text project's rows add ``item``,
    the point's text on one line (cut at :data:`ITEM_CHARS` characters with "…"), so the
    proposal can be read without opening the app."""
    texts = project.texts
    rows = []
    for r, i in enumerate(proposal.points):
        row = {"rank": r + 1, "point": i, "id": project.ids[i]}
        if texts is not None:
            line = " ".join(texts[i].split())
            row["item"] = line if len(line) <= ITEM_CHARS else line[: ITEM_CHARS - 1] + "…"
        rows.append(row)
    return rows


__all__ = [
    "DEFAULT_NEIGHBORS",
    "ITEM_CHARS",
    "NegativeProposal",
    "cold_start_class",
    "confirm_negatives",
    "project_proposal",
    "propose_negatives",
    "proposal_table",
]
