"""Labeling projects: a pool of points to label, with its ids, classes and known labels.

A :class:`Project` is what the store keeps and what a labeling session labels: the feature
matrix of the pool, one id per point, the classes to choose from and, when known, the true
labels (the oracle for auto-labeling and the validation error).

A project is made from a user's table (read by
:func:`~rlscore.data.upload.table_reading.read_table`, built by
:func:`~rlscore.data.projects.table_project.project_from_table`) or from a bundled sample
(:mod:`rlscore.data.samples.bundled`). What cannot become a project raises
:class:`ProjectInputError` with a message naming the problem and what to do about it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.core.conventions.label_sets import is_label_set, label_set, label_set_text
from rlscore.data.items.columns import (
    ItemColumn,
    ItemInputError,
    check_item_columns,
    item_texts,
)


class ProjectInputError(ValueError):
    """A user-supplied table cannot become a project; the message says why and what to do."""


class ProjectInputWarning(UserWarning):
    """Something in the table was fixed automatically (e.g. constant features dropped)."""


def warn_and_record(meta: dict, message: str) -> None:
    """Warn with a :class:`ProjectInputWarning` and keep the message in ``meta["warnings"]``
    (where the Data page reads it: it shows the fixes under the preview)."""
    warnings.warn(message, ProjectInputWarning, stacklevel=3)
    meta["warnings"].append(message)


class RowIds(Sequence):
    """The ids ``"0"``, ``"1"``, … ``str(n - 1)`` of a pool named by its row numbers, held as
    ``n`` alone: a pool of millions of rows (a cluster-backed project) would otherwise keep
    a string per row on the app server (about 60 bytes each).

    It reads as the list ``[str(i) for i in range(n)]`` (length, items, slices, ``index``,
    ``in``, equality with that list) and is stored as ``{"row_numbers": n}``
    (:func:`ids_to_json`, :func:`ids_from_json`).
    """

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = int(n)
        if self.n < 0:
            raise ValueError(f"a pool has no negative size, got {n}")

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [str(k) for k in range(self.n)[i]]
        return str(range(self.n)[i])  # IndexError / TypeError as a list's

    def __iter__(self):
        return (str(k) for k in range(self.n))

    def _row(self, value) -> int | None:
        text = value if isinstance(value, str) else None
        canonical = text is not None and text.isascii() and text.isdigit()
        if not canonical or (text.startswith("0") and text != "0"):
            return None  # only the canonical spelling of a row number is an id
        k = int(text)
        return k if k < self.n else None

    def __contains__(self, value) -> bool:
        return self._row(value) is not None

    def index(self, value, start: int = 0, stop: int | None = None) -> int:
        k = self._row(value)
        if k is None or k not in range(self.n)[start:stop]:
            raise ValueError(f"{value!r} is not in the ids")
        return k

    def count(self, value) -> int:
        return int(value in self)

    def __eq__(self, other) -> bool:
        if isinstance(other, RowIds):
            return self.n == other.n
        if isinstance(other, list | tuple):
            return len(other) == self.n and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None

    def __repr__(self) -> str:
        return f"RowIds({self.n})"


def ids_to_json(ids: Sequence[str]) -> list[str] | dict:
    """What the store writes for a project's ids (JSON-serialisable): the list, or
    ``{"row_numbers": n}`` for :class:`RowIds`."""
    return {"row_numbers": ids.n} if isinstance(ids, RowIds) else list(ids)


def ids_from_json(value: list | dict) -> list[str] | RowIds:
    """The ids :func:`ids_to_json` wrote."""
    return RowIds(value["row_numbers"]) if isinstance(value, dict) else value


@dataclass
class Project:
    """A pool of points to label.

    Attributes
    ----------
    name : str
        Unique name in the store.
    X : ndarray (n, d)
        Features of the pool, float64 (standardised if ``meta["standardized"]``).
    feature_names : list of str
        One per column of ``X``.
    ids : list of str or RowIds
        One per point, unique; exported with the labels (:class:`RowIds`: the row numbers,
        without a string per row).
    truth : ndarray (n,) or None
        True labels when known (sample data, a truth column), values from ``classes`` (a
        multi-label project's: label sets, tuples of classes,
        :mod:`rlscore.core.conventions.label_sets`).
    classes : list
        The classes an annotator chooses from (ints or strings), at least 2.
    meta : dict
        ``description``, ``sigma``, ``lam``, ``image_shape``, ``standardized``, ``source``,
        ``warnings`` … (JSON-serialisable).
    uid : int or None
        Set by the store: changes when a project is deleted and created again under the
        same name, so a cached session can tell that its pool is gone.
    items : list of ItemColumn
        What the annotator sees of each point (:mod:`rlscore.data.items.columns`): text, image and
        context columns, kept as uploaded (never standardised). Empty for a project that is
        only its features.
    multi_label : bool
        Whether a point's label is a set of classes ("select all that apply",
        :mod:`rlscore.core.conventions.label_sets`) rather than one class.
    """

    name: str
    X: np.ndarray
    feature_names: list[str]
    ids: list[str]
    truth: np.ndarray | None
    classes: list
    meta: dict = field(default_factory=dict)
    uid: int | None = None
    items: list[ItemColumn] = field(default_factory=list)
    multi_label: bool = False

    @property
    def n(self) -> int:
        """Number of points in the pool."""
        return int(self.X.shape[0])

    @property
    def class_names(self) -> dict[str, str]:
        """Readable class names the project gives (``meta["class_names"]``), keyed by ``str(c)``."""
        return dict((self.meta or {}).get("class_names") or {})

    def class_text(self, c) -> str:
        """The display text of class ``c``: its readable name if the project gives one."""
        return self.class_names.get(str(plain_scalar(c))) or str(plain_scalar(c))

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ProjectInputError("the project needs a name (a non-empty text)")
        self.name = self.name.strip()
        self.X = np.asarray(self.X, dtype=np.float64)
        n = self.X.shape[0]
        if self.X.ndim != 2:
            raise ProjectInputError(f"X must be 2-D (points × features), got shape {self.X.shape}")
        if len(self.feature_names) != self.X.shape[1]:
            raise ProjectInputError(
                f"{len(self.feature_names)} feature names for {self.X.shape[1]} feature columns"
            )
        self.feature_names = [str(f) for f in self.feature_names]
        if not isinstance(self.ids, RowIds):
            self.ids = [str(i) for i in self.ids]
        if len(self.ids) != n:
            raise ProjectInputError(f"{len(self.ids)} ids for {n} points")
        self.classes = [plain_scalar(c) for c in self.classes]
        if len(self.classes) < 2 or len(set(self.classes)) != len(self.classes):
            raise ProjectInputError(
                f"a project needs at least 2 distinct classes, got {self.classes!r}"
            )
        self.multi_label = bool(self.multi_label)
        if self.truth is not None:
            self.truth = self._checked_truth(n)
        try:
            self.items = check_item_columns(self.items, n)
        except ItemInputError as exc:
            raise ProjectInputError(str(exc)) from None

    def _checked_truth(self, n: int) -> np.ndarray:
        """The true labels as an (n,) object array: classes, or label sets (tuples)."""
        if len(self.truth) != n:
            raise ProjectInputError(f"{len(self.truth)} true labels for {n} points")
        if self.multi_label:
            truth = np.empty(n, dtype=object)  # of tuples: np.asarray would make it 2-D
            try:
                truth[:] = [label_set(t, self.classes) for t in self.truth]
            except ValueError as exc:
                raise ProjectInputError(f"a true label set is not valid: {exc}") from None
            return truth
        truth = np.asarray([plain_scalar(t) for t in self.truth], dtype=object)
        if truth.shape != (n,):
            raise ProjectInputError(f"{truth.size} true labels for {n} points")
        unknown = set(truth.tolist()) - set(self.classes)
        if unknown:
            raise ProjectInputError(
                f"true labels {sorted(map(str, unknown))} are not among the classes "
                f"{self.classes!r}"
            )
        return truth

    def check_label(self, label):
        """``label`` as this project stores it (:func:`checked_label`); ``ValueError`` if it
        is not a label of the project."""
        return checked_label(label, self.classes, self.multi_label)

    def label_text(self, label) -> str:
        """A label as the app shows it: the class's text, a label set's classes' texts
        joined by ``" | "`` (``"(none of these)"`` for the empty set)."""
        if is_label_set(label):
            texts = [self.class_text(c) for c in label]
            return " | ".join(texts) if texts else "(none of these)"
        return self.class_text(label)

    @property
    def texts(self) -> list[str] | None:
        """The text item columns joined per point (what search reads), None without any."""
        return item_texts(self.items)


def checked_label(label, classes: Sequence, multi_label: bool):
    """A label of a project with these ``classes`` in its stored form: one class of a
    single-label project, the label set (a tuple in class order) of a multi-label one.

    Raises
    ------
    ValueError
        A set for a single-label project, a single class for a multi-label one, or a class
        that is not one of ``classes``; the message names the problem.
    """
    if multi_label:
        if not is_label_set(label):
            raise ValueError(
                f"this project is multi-label: a label is a list of classes (empty for "
                f"'none of these'), got the single value {label!r}"
            )
        return label_set(label, classes)
    if is_label_set(label):
        raise ValueError(
            f"this project takes one class per point, got the set "
            f"{label_set_text(label)!r}; the classes are {list(classes)!r}"
        )
    label = plain_scalar(label)
    if label not in classes:
        raise ValueError(f"label {label!r} is not one of the classes {list(classes)}")
    return label


__all__ = [
    "Project",
    "ProjectInputError",
    "ProjectInputWarning",
    "RowIds",
    "checked_label",
    "ids_from_json",
    "ids_to_json",
    "warn_and_record",
]
