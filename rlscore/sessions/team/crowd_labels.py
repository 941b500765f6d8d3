"""The label checker with several annotators per point: their labels and the model combined.

Where a point has current labels from two or more annotators, the "Probably wrong" queue
judges its final label by the consensus of those annotators and the leave-one-out model
(:func:`rlscore.core.evaluation.annotator_consensus.crowd_consensus`): the suggested class is
the consensus, the score the consensus's chance that the final label is wrong. A point with one
annotator keeps the checker's own suggestion and score. Each annotator's estimated error rate
is their disagreement with the consensus on the points they share with another annotator.
The table keeps its order (the label margin's, :mod:`rlscore.core.evaluation.label_issues`).

The model's class probabilities are read off the checker's table — no refit: ``1 − score`` on
the label, ``score`` on the suggested class when it differs, else shared evenly among the other
classes (for two classes exactly the calibrated LOO chance; docs/mathematics.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.evaluation.annotator_consensus import MISSING, crowd_consensus

if TYPE_CHECKING:
    import pandas as pd

    from rlscore.sessions.state.label_log import LabelLog

#: the columns of :attr:`TeamCheck.annotators`
ANNOTATOR_COLUMNS = ("annotator", "shared points", "estimated error rate")


@dataclass(frozen=True)
class TeamCheck:
    """The checker's ``table`` with the consensus on the points of several annotators, and
    the ``annotators``' estimated error rates (None: no point has two annotators)."""

    table: pd.DataFrame
    annotators: pd.DataFrame | None = None


def model_probabilities(table: pd.DataFrame, classes) -> np.ndarray:
    """(n, K) the model's class probabilities of the checker's rows (module docstring)."""
    classes = list(classes)
    K = len(classes)
    label = np.array([classes.index(c) for c in table["label"]], dtype=np.intp)
    suggested = np.array([classes.index(c) for c in table["suggested"]], dtype=np.intp)
    score = table["score"].to_numpy(dtype=np.float64)
    rows = np.arange(len(table))
    probs = np.repeat((score / (K - 1))[:, None], K, axis=1)
    disagree = suggested != label
    probs[disagree] = 0.0
    probs[rows[disagree], suggested[disagree]] = score[disagree]
    probs[rows, label] = 1.0 - score
    return probs


def ratings_matrix(log: LabelLog, points, classes) -> tuple[np.ndarray, list[str]]:
    """(len(points), M) the annotators' current class codes of ``points``
    (:data:`~rlscore.core.evaluation.annotator_consensus.MISSING` where one did not label
    one), and the M annotators' names."""
    classes = list(classes)
    names = sorted({a for p in points for a in log.annotations.get(p, {})}, key=str)
    column = {a: m for m, a in enumerate(names)}
    ratings = np.full((len(points), len(names)), MISSING, dtype=np.intp)
    for row, p in enumerate(points):
        for a, e in log.annotations.get(p, {}).items():
            ratings[row, column[a]] = classes.index(e.label)
    return ratings, names


def with_consensus(table: pd.DataFrame, log: LabelLog, classes) -> TeamCheck:
    """The checker's table (:func:`rlscore.sessions.views.label_issues.project_label_issues`)
    with ``suggested`` and ``score`` replaced by the consensus's on the points of several
    annotators, and the annotators' estimated error rates (module docstring). Unchanged, with
    no rates, when no point has two annotators.

    The rows are ranked anew, most likely wrong first: the labels whose suggestion differs
    first, then by ``score``, then by ``label_margin`` — on the rows of one annotator the
    checker's own order (its score is a non-decreasing function of the margin)."""
    import pandas as pd

    classes = list(classes)
    rated = [i for i, p in enumerate(table["index"]) if log.annotations.get(int(p))]
    points = [int(table["index"].iloc[i]) for i in rated]
    if not any(len(log.annotations[p]) >= 2 for p in points):
        return TeamCheck(table)
    ratings, names = ratings_matrix(log, points, classes)
    consensus = crowd_consensus(ratings, model_probabilities(table.iloc[rated], classes))
    out = table.copy()
    multi = (ratings != MISSING).sum(axis=1) >= 2
    rows = np.asarray(rated)[multi]
    label = np.array([classes.index(c) for c in out["label"].iloc[rows]], dtype=np.intp)
    chosen = consensus.labels[multi]
    out.loc[out.index[rows], "suggested"] = [classes[k] for k in chosen]
    on_label = consensus.posterior[multi][np.arange(rows.size), label]
    out.loc[out.index[rows], "score"] = 1.0 - on_label
    # the consensus changed the scores: the margin's order no longer ranks these rows
    doubted = out["suggested"] != out["label"]
    order = np.lexsort(
        (-out["label_margin"].to_numpy(), -out["score"].to_numpy(), ~doubted.to_numpy())
    )
    out = out.iloc[order].reset_index(drop=True)
    columns = (names, consensus.annotator_points, consensus.annotator_error)
    rates = pd.DataFrame(dict(zip(ANNOTATOR_COLUMNS, columns, strict=True)))
    rates = rates[rates["shared points"] > 0].sort_values("estimated error rate", ascending=False)
    return TeamCheck(out, rates.reset_index(drop=True))


__all__ = [
    "ANNOTATOR_COLUMNS",
    "TeamCheck",
    "model_probabilities",
    "ratings_matrix",
    "with_consensus",
]
