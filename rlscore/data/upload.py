"""An uploaded table before it becomes a project: the columns to propose, and its preview.

The Data page proposes a ground-truth column (:func:`guess_truth_column`: named like a label
column and holding few enough values to be classes) and the numeric columns as features
(:func:`default_features`); once :func:`rlscore.data.projects.project_from_table` has built
the project, :func:`class_listing` and :func:`project_preview` are what the page shows of it.
Texts returned here are plain: the page escapes them for Markdown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from rlscore.data.projects import Project

#: column names (lower case) that suggest the ground truth
TRUTH_GUESSES = ("label", "labels", "class", "kind", "category", "target", "y", "truth")
#: values listed in a label or caption (a truth column's values, a project's classes); a
#: column with more distinct values is not proposed as the truth
MAX_LISTED = 20
#: rows of a table or a project shown as a preview
MAX_PREVIEW_ROWS = 200


def listed(values: Sequence, limit: int = MAX_LISTED) -> str:
    """The first ``limit`` values, comma-separated, with " …" when there are more."""
    values = list(values)
    return ", ".join(map(str, values[:limit])) + (" …" if len(values) > limit else "")


def looks_like_truth(column: pd.Series) -> bool:
    """Whether a column holds few enough distinct values to be classes (a 200 000-row
    feature called ``y`` is not a truth column)."""
    return column.nunique() <= MAX_LISTED


def guess_truth_column(df: pd.DataFrame) -> str | None:
    """The first column named like a label column (:data:`TRUTH_GUESSES`, any case) whose
    values look like classes (:func:`looks_like_truth`), or None.

    >>> guess_truth_column(pd.DataFrame({"x": [0.1, 0.2], "Kind": ["a", "b"]}))
    'Kind'
    """
    return next(
        (str(c) for c in df.columns if str(c).lower() in TRUTH_GUESSES and looks_like_truth(df[c])),
        None,
    )


def default_features(df: pd.DataFrame, exclude: Iterable[str | None] = ()) -> list[str]:
    """The numeric columns of ``df`` except ``exclude`` (the id and truth columns), in order:
    the features proposed for a new project."""
    skip = set(exclude)
    return [
        str(c) for c in df.columns if str(c) not in skip and pd.api.types.is_numeric_dtype(df[c])
    ]


def class_listing(project: Project, limit: int = MAX_LISTED) -> str:
    """The project's classes, each with its number of points when the truth is known
    (``"cat: 2, dog: 2"``), at most ``limit`` of them."""
    classes = project.classes[: limit + 1]  # listed() adds "…" past the limit
    if project.truth is not None:
        counts = pd.Series(project.truth).value_counts()
        classes = [f"{c}: {counts.get(c, 0)}" for c in classes]
    return listed(classes, limit)


def project_preview(project: Project, rows: int = MAX_PREVIEW_ROWS) -> pd.DataFrame:
    """The first ``rows`` points of a project: features (as stored, standardised or not),
    indexed by the point ids, and the truth when known."""
    preview = pd.DataFrame(
        project.X[:rows], columns=project.feature_names, index=project.ids[:rows]
    )
    if project.truth is not None:
        preview["truth"] = project.truth[:rows]
    return preview


__all__ = [
    "MAX_LISTED",
    "MAX_PREVIEW_ROWS",
    "TRUTH_GUESSES",
    "class_listing",
    "default_features",
    "guess_truth_column",
    "listed",
    "looks_like_truth",
    "project_preview",
]
