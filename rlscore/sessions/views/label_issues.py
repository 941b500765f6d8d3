"""A project's labels that are probably wrong, judged by the project's own model.

:func:`project_label_issues` folds the project's log (undone labels left out, the final label
of each point: :class:`~rlscore.sessions.state.label_log.LabelLog`) and ranks the labels with
:func:`rlscore.core.evaluation.label_issues.label_issues`, the exact leave-one-out RLS with the
project's current kernel, σ, λ (or automatic λ) and class weights — the model of the Label
page's leave-one-out figures (:func:`rlscore.sessions.state.loo_refit.labeled_rls_params`).
Read-only: nothing is written. :func:`team_label_issues` adds, on the points of several
annotators, their consensus with the model; the ``label-issues`` command prints it
(:func:`label_issues_as`: a reviewer's, as the Review page checks), and the
Review page's "Probably wrong" queue is :func:`probably_wrong_queue`, its suspects no reviewer
has decided; the Label page's note counts those a reviewer has not seen in it yet
(:func:`unseen_suspects`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.conventions.counted_words import counted
from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.sessions.state.engine import make_engine
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.state.loo_refit import MIN_LABELS, labeled_rls_params
from rlscore.sessions.state.settings import engine_settings, project_settings
from rlscore.sessions.team.crowd_labels import TeamCheck, with_consensus
from rlscore.sessions.team.overlap import Overlap
from rlscore.sessions.team.permissions import require

if TYPE_CHECKING:
    import pandas as pd

    from rlscore.data.projects.project import Project
    from rlscore.storage import Event, LabelStore

#: the columns of :func:`project_label_issues`, in order
ISSUE_COLUMNS = ("index", "point_id", "label", "suggested", "score", "label_margin", "annotator")
#: a label enters the Review page's queue when its chance of being wrong is at least this
SUSPECT_SCORE = 0.5
#: the queues last computed: a rerun of the Review page (a teammate's refresh, a widget) on
#: the same log and settings reuses its queue rather than fitting the checker again
_QUEUES: OrderedDict[tuple, SuspectQueue] = OrderedDict()
_QUEUES_MAX = 16


def project_label_issues(
    project: Project, events: Iterable[Event], settings: dict, rule: str = "latest"
) -> pd.DataFrame:
    """The project's labeled points, most likely wrong first.

    Parameters
    ----------
    project
        The project (its pool ``X``, ids, classes).
    events
        Its label log, in commit order.
    settings
        Its settings (:func:`rlscore.sessions.state.settings.project_settings`).
    rule
        How a point's final label is chosen among its annotators' (``"latest"``,
        ``"majority"``: :class:`~rlscore.sessions.state.label_log.LabelLog`).

    Returns
    -------
    pandas.DataFrame
        :data:`ISSUE_COLUMNS`: the pool ``index`` and ``point_id`` of each labeled point, its final
        ``label``, the ``suggested`` class, the ``score`` (calibrated chance that the label is
        wrong), the ``label_margin`` and the ``annotator`` who gave the final label; ``attrs``
        as :func:`~rlscore.core.evaluation.label_issues.label_issues`'.

    Raises
    ------
    ValueError
        Fewer than :data:`~rlscore.sessions.state.loo_refit.MIN_LABELS` labels or two classes,
        a pool whose features live on a cluster, or a multi-label project.
    """
    from rlscore.core.evaluation.label_issues import label_issues

    if project.multi_label:  # the checker's leave-one-out model predicts one class
        raise ValueError(
            f"project {project.name!r} is multi-label: checking its labels is not available "
            "for multi-label projects yet"
        )
    log = LabelLog(events, rule=rule)
    present = set(log.labels.values())
    if len(log.labels) < MIN_LABELS or len(present) < 2:
        # "0 labels of 0 classes" read as a project without classes
        has = (
            "no label yet"
            if not log.labels
            else f"{counted(len(log.labels), 'label')} of "
            f"{counted(len(present), 'class', 'classes')}"
        )
        raise ValueError(
            f"project {project.name!r} has {has}: "
            f"checking the labels needs at least {MIN_LABELS} labels of 2 classes"
        )
    if project.X.shape[1] == 0:
        raise ValueError(
            f"project {project.name!r} keeps its features on a cluster: its labels cannot be "
            "checked on this server"
        )
    engine = make_engine({**settings, **engine_settings(settings)}, float(settings["lam"]))
    model = labeled_rls_params(engine, present, classes=project.classes)
    y = np.full(project.n, None, dtype=object)
    points = np.fromiter(log.labels, dtype=np.intp, count=len(log.labels))
    y[points] = list(log.labels.values())
    lam = "auto" if settings.get("lam_auto") else float(settings["lam"])
    if is_graph_kernel(model["kernel"]):
        # a graph kernel exists on the pool only: the checker fits on its labeled block
        inputs, model = engine.pool_kernel(project.X), {**model, "kernel": "precomputed"}
    else:
        inputs = project.X
    table = label_issues(inputs, y, lam=lam, **model)
    table.insert(1, "point_id", [project.ids[i] for i in table["index"]])
    table["annotator"] = [log.label_events[i].annotator for i in table["index"]]
    return table


def team_label_issues(
    project: Project, events: Iterable[Event], settings: dict, rule: str = "latest"
) -> TeamCheck:
    """:func:`project_label_issues` with, on the points of several annotators, their
    consensus with the model (:func:`rlscore.sessions.team.crowd_labels.with_consensus`):
    the table the Review page's queue filters and the ``label-issues`` command prints.

    Parameters
    ----------
    project, events, settings, rule
        As :func:`project_label_issues`.

    Returns
    -------
    TeamCheck
        ``table`` (:data:`ISSUE_COLUMNS`, most likely wrong first) and the annotators'
        estimated error rates (None when no point has two annotators).

    Raises
    ------
    ValueError
        As :func:`project_label_issues`.
    """
    events = list(events)  # read twice: by the checker and by the consensus
    table = project_label_issues(project, events, settings, rule=rule)
    return with_consensus(table, LabelLog(events, rule=rule), project.classes)


def stored_label_issues(store: LabelStore, name: str) -> TeamCheck:
    """:func:`team_label_issues` of the stored project ``name`` with its settings and its
    final-label rule (the majority where it asks for overlap), unchecked: the database
    administrator's (:func:`label_issues_as` checks a user's role). Where the project names
    its classes, ``label_name`` and ``suggested_name`` follow ``label`` and ``suggested``.

    Raises
    ------
    ValueError
        As :func:`project_label_issues`.
    """
    project, events = store.load_project(name), store.events(name)
    settings = project_settings(store, name)
    team = team_label_issues(project, events, settings, rule=Overlap.of_settings(settings).rule)
    if project.class_names:
        # the names the annotators clicked (a bundled sample's "benign" for −1), beside the
        # values the table keys on
        for column in ("label", "suggested"):
            names = [project.class_text(c) for c in team.table[column]]
            team.table.insert(team.table.columns.get_loc(column) + 1, f"{column}_name", names)
    return team


def label_issues_as(store: LabelStore, name: str, user: str | None) -> TeamCheck:
    """:func:`stored_label_issues` as ``user`` may read it: a reviewer's or owner's once the
    project has members, as the Review page's queue (anyone's while it has none).

    Raises
    ------
    PermissionDeniedError
        ``user`` lacks the reviewer role in a project with members; the message names it.
    ValueError
        As :func:`project_label_issues`.
    """
    require(store, name, user, "see_labels")
    return stored_label_issues(store, name)


@dataclass(frozen=True)
class SuspectQueue:
    """The Review page's "Probably wrong" queue: ``suspects`` (rows of
    :func:`project_label_issues`, most likely wrong first) or, when the labels cannot be
    checked yet, the ``reason`` why; with several annotators per point, their estimated
    error rates (``annotators``: :class:`~rlscore.sessions.team.crowd_labels.TeamCheck`);
    ``kept``: how many labels the model doubts as much but a reviewer has decided, kept or
    relabeled (left out of ``suspects``); ``unsure``: how many unreviewed labels the model
    disagrees with at a chance below the threshold (its own predictions are too often wrong
    to call them probably wrong). In words: :func:`queue_summary`."""

    suspects: pd.DataFrame | None
    reason: str | None = None
    annotators: pd.DataFrame | None = None
    kept: int = 0
    unsure: int = 0


def probably_wrong_queue(
    project: Project,
    events: list[Event],
    settings: dict,
    rule: str = "latest",
    threshold: float = SUSPECT_SCORE,
) -> SuspectQueue:
    """The labels a reviewer should look at: the model suggests another class, its chance
    of the label being wrong is at least ``threshold``, and no review decision holds on the
    point (keeping or relabeling it is a review:
    :func:`rlscore.sessions.actions.review.review_point`). On a point labeled by several
    annotators, the suggestion and chance are their consensus with the model's
    (:func:`rlscore.sessions.team.crowd_labels.with_consensus`). Remembered for the same
    project, log (its digest), settings, rule and threshold."""
    log = LabelLog(events, rule=rule)
    key = (project.name, project.uid, log.history, repr(sorted(settings.items())), rule, threshold)
    if key in _QUEUES:
        _QUEUES.move_to_end(key)
        return _QUEUES[key]
    try:
        team = team_label_issues(project, events, settings, rule=rule)
    except ValueError as exc:
        queue = SuspectQueue(None, str(exc))
    else:
        table = team.table
        disagrees = table["suggested"] != table["label"]
        doubted = (table["score"] >= threshold) & disagrees
        reviewed = table["index"].isin(set(log.reviews))
        queue = SuspectQueue(
            table[doubted & ~reviewed].reset_index(drop=True),
            annotators=team.annotators,
            kept=int((doubted & reviewed).sum()),
            unsure=int((disagrees & ~doubted & ~reviewed).sum()),
        )
    _QUEUES[key] = queue
    while len(_QUEUES) > _QUEUES_MAX:
        _QUEUES.popitem(last=False)
    return queue


def queue_summary(queue: SuspectQueue) -> str:
    """The "Probably wrong" queue in one sentence (the Review page's caption above it): how
    many labels wait for a review, how many the model doubts but a reviewer kept, or why the
    labels cannot be checked yet (:attr:`SuspectQueue.reason`)."""
    if queue.suspects is None:
        return str(queue.reason)
    n, kept = len(queue.suspects), queue.kept
    if n == 0:
        if kept:
            return f"No suspect left to review ({kept} kept by a reviewer)."
        if queue.unsure:
            # "no label looks wrong" read as "the model agrees with every label" while it
            # disagreed with 10 of 15 (an exploratory test)
            return (
                f"The model trained on all the other labels disagrees with "
                f"{counted(queue.unsure, 'label')}, but it is itself wrong too often on these "
                "labels to call any of them probably wrong; more labels will sharpen it."
            )
        return "No label looks wrong to the leave-one-out model."
    text = f"{counted(n, 'label')} the model trained on all the others disagrees with"
    if n > 1:
        text += ", most likely wrong first"
    if kept:
        text += f" (and {kept} kept by a reviewer)"
    if queue.annotators is not None:
        return (
            f"{text}; where several annotators labeled a point, their consensus with the model "
            "judges its label."
        )
    return f"{text}."


def unseen_suspects(queue: SuspectQueue, seen: Collection[int] | None) -> list[int]:
    """The points of ``queue`` a reviewer has not seen in it yet.

    Parameters
    ----------
    queue
        The "Probably wrong" queue now (:func:`probably_wrong_queue`).
    seen
        The points the queue held when the reviewer last opened it (None: never opened).

    Returns
    -------
    list of int
        The queue's points not in ``seen``, most likely wrong first (all of them when
        ``seen`` is None; none when the labels cannot be checked yet).
    """
    if queue.suspects is None:
        return []
    points = [int(i) for i in queue.suspects["index"]]
    if seen is None:
        return points
    known = set(seen)
    return [i for i in points if i not in known]


__all__ = [
    "ISSUE_COLUMNS",
    "SUSPECT_SCORE",
    "SuspectQueue",
    "label_issues_as",
    "probably_wrong_queue",
    "project_label_issues",
    "queue_summary",
    "stored_label_issues",
    "team_label_issues",
    "unseen_suspects",
]
