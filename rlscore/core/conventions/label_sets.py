"""The label-set convention of multi-label projects: one definition for the engine, the stores,
the sessions, the exports and the pages.

In a multi-label project a point's label is a **label set**: the classes that apply to it.

* In Python it is a ``tuple`` of distinct classes in the project's class order; the empty
  tuple ``()`` is a valid label ("none of these"), not a missing one. An unlabeled point has
  no label set (None, as in :mod:`~rlscore.core.conventions.missing_labels`).
* In JSON (the label stores, ``--out`` files) it is a list.
* In a table cell (CSV) it is the classes' texts joined by :data:`SEPARATOR`; an empty cell
  of a truth column is the empty set. JSON and Parquet cells may hold a list instead, and a
  CSV cell a JSON list of strings and numbers (``["news", "sports"]``, as tools that export
  lists to CSV write them), read as that list (:func:`unpack_json_list`): a ``|`` inside one of
  its items is part of the class's name. Other text starting with ``[`` is refused unless it
  starts with a tag in brackets (``[draft]``): a list written wrong is no class name. A
  list's items are classes, so each is a string or a finite number (:func:`check_set_items`):
  a null, true/false, a list or an object in it is refused, never read as a class.
* For the engine it is a multi-hot row: 1.0 for each class in the set, 0.0 otherwise, in
  class order (:func:`multi_hot`); the RLS targets are ±1 (:func:`multi_hot` with
  ``negative=-1``), as for one binary problem per class (docs/mathematics.md §1).

A single-label project keeps one class per point; nothing here applies to it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence

import numpy as np

__all__ = [
    "SEPARATOR",
    "check_set_classes",
    "check_set_items",
    "from_multi_hot",
    "is_label_set",
    "label_set",
    "label_set_text",
    "multi_hot",
    "parse_label_set",
    "unpack_json_list",
]

#: the separator of the classes in a table cell: ``"news|sports"``
SEPARATOR = "|"
#: a cell starting with a tag in brackets (``[draft]``, ``[draft]|news``): text, not a list;
#: brackets holding a quote, a comma or another bracket, or never closed, are a list
_BRACKETED_TAG = re.compile(r"\[[^\[\]{}\",]*\]")


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def is_label_set(value) -> bool:
    """Whether ``value`` is written as a set of classes (a list, tuple, set or 1-D array)
    rather than as one class."""
    if isinstance(value, np.ndarray):
        return value.ndim == 1
    return isinstance(value, list | tuple | set | frozenset)


def label_set(value, classes: Sequence) -> tuple:
    """``value`` as a label set of ``classes``: a tuple of distinct classes in class order.

    Parameters
    ----------
    value
        A list, tuple, set or 1-D array of classes (empty for "none of these").
    classes
        The project's classes, in order.

    Raises
    ------
    ValueError
        ``value`` is not a collection, or holds a class not in ``classes`` or one twice.

    Examples
    --------
    >>> label_set({"sports", "news"}, ["news", "science", "sports"])
    ('news', 'sports')
    >>> label_set([], ["news", "sports"])
    ()
    """
    if not is_label_set(value):
        raise ValueError(
            f"a multi-label point's label is a list of classes (empty for none), got {value!r}"
        )
    items = [_plain(v) for v in value]
    order = {_plain(c): k for k, c in enumerate(classes)}
    unknown = [v for v in items if v not in order]
    if unknown:
        raise ValueError(f"unknown class(es) {unknown!r}; the classes are {list(order)!r}")
    if len(set(items)) != len(items):
        raise ValueError(f"a class is given twice in the label set {items!r}")
    return tuple(sorted(items, key=order.__getitem__))


def multi_hot(sets: Iterable, classes: Sequence, *, negative: float = 0.0) -> np.ndarray:
    """(m, L) targets of ``m`` label sets over the ``L`` classes: 1.0 where the class is in
    the set, ``negative`` (0 for KLR and the metrics, −1 for RLS) where it is not.

    Examples
    --------
    >>> multi_hot([("a",), (), ("a", "c")], ["a", "b", "c"])
    array([[1., 0., 0.],
           [0., 0., 0.],
           [1., 0., 1.]])
    """
    position = {_plain(c): k for k, c in enumerate(classes)}
    rows = [label_set(s, classes) for s in sets]
    Y = np.full((len(rows), len(position)), float(negative))
    for r, s in enumerate(rows):
        Y[r, [position[c] for c in s]] = 1.0
    return Y


def from_multi_hot(row, classes: Sequence) -> tuple:
    """The label set of one multi-hot (or score) row: the classes whose entry is > 0.5 for
    0/1 rows; pass ``row > 0`` for ±1 targets or decision values."""
    row = np.asarray(row)
    hit = row if row.dtype == bool else row > 0.5
    return tuple(_plain(c) for c, h in zip(classes, hit, strict=True) if h)


def unpack_json_list(cell):
    """``cell`` as a table cell of label sets is read: text that is a JSON list
    (``'["news", "sports"]'``, surrounding spaces ignored) as that list, any other value
    unchanged.

    A CSV file cannot hold a list, so tools that export one write it as JSON text; read as
    text, its brackets and quotes would become part of class names. Text starting with a
    tag in brackets (a class named ``[draft]``: not JSON) stays text. A JSON list is
    returned whatever its items: one holding a null, a list or an object is a list of
    classes written wrong, which :func:`check_set_items` refuses (kept as text, it was once
    read as one class named by the whole cell).

    Raises
    ------
    ValueError
        Text starting with ``[`` that is no JSON, and no tag in brackets either: a list
        written wrong (``["x", "y"`` without its closing bracket, ``[x, y]`` without quotes),
        which kept as text became one class named by the whole cell.

    Examples
    --------
    >>> unpack_json_list('["a|b", "c"]')
    ['a|b', 'c']
    >>> unpack_json_list("[]")
    []
    >>> unpack_json_list("[draft]")
    '[draft]'
    >>> unpack_json_list('["x", "y"')
    Traceback (most recent call last):
    ...
    ValueError: it starts with '[' but is not a JSON list (its closing ']' is missing): write \
a list as JSON (["a", "b"]), or the classes joined by '|' (a|b)
    """
    if not isinstance(cell, str):
        return cell
    text = cell.strip()
    if not text.startswith("["):
        return cell
    try:
        return json.loads(text)  # text in brackets: a JSON array if it is JSON at all
    except ValueError as exc:
        if _BRACKETED_TAG.match(text):
            return cell
        if exc.pos >= len(text) or "]" not in text:
            problem = "its closing ']' is missing"
        else:  # "expecting value at character 2" (an item without quotes)
            problem = f"{exc.msg[:1].lower()}{exc.msg[1:]} at character {exc.pos + 1}"
    except RecursionError:  # nested beyond the parser: no list of classes
        problem = "its lists are nested too deep"
    raise ValueError(
        f"it starts with '[' but is not a JSON list ({problem}): write a list as JSON "
        f'(["a", "b"]), or the classes joined by {SEPARATOR!r} (a{SEPARATOR}b)'
    )


def _json_text(value) -> str:
    """``value`` as JSON writes it (``null``, ``true``, ``["b"]``), else as Python does."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError):  # e.g. a Parquet cell's nested array
        return repr(value)


def check_set_items(items: Iterable) -> list:
    """The items of a label set's list (a table cell's) as plain values, after checking that
    each can be a class: a string or a finite number.

    Parameters
    ----------
    items
        The list, tuple or 1-D array a cell holds (:func:`unpack_json_list`).

    Returns
    -------
    list
        The items, numpy scalars as the Python values they hold.

    Raises
    ------
    ValueError
        Naming the first item that is no class: null (None, NaN), true/false, a list or an
        object (a class is a string or a number; as text such an item would become a class
        named ``None`` or ``['b']``).

    Examples
    --------
    >>> check_set_items(["news", 2])
    ['news', 2]
    >>> check_set_items(["news", None])
    Traceback (most recent call last):
    ...
    ValueError: the list holds null, which is no class (a class is a string or a number)
    """
    plain = [_plain(v) for v in items]
    for v in plain:
        number = isinstance(v, int | float) and not isinstance(v, bool)
        if isinstance(v, str) or (number and math.isfinite(v)):
            continue
        raise ValueError(
            f"the list holds {_json_text(v)}, which is no class (a class is a string or a number)"
        )
    return plain


def parse_label_set(cell, classes: Sequence) -> tuple:
    """The label set written in one table cell: a list (JSON, Parquet, or JSON text in a CSV
    cell: :func:`unpack_json_list`), or text with the classes joined by :data:`SEPARATOR`
    (matched to the classes by their text); an empty or blank cell is the empty set.

    Examples
    --------
    >>> parse_label_set("sports | news", ["news", "sports"])
    ('news', 'sports')
    >>> parse_label_set("", ["news", "sports"])
    ()
    >>> parse_label_set("2|1", [1, 2, 3])
    (1, 2)
    >>> parse_label_set('["sports", "news"]', ["news", "sports"])
    ('news', 'sports')
    """
    cell = unpack_json_list(cell)
    if is_label_set(cell):
        return label_set(check_set_items(cell), classes)
    if cell is None or (isinstance(cell, float) and np.isnan(cell)):
        return ()
    by_text = {str(_plain(c)): _plain(c) for c in classes}
    parts = [p.strip() for p in str(cell).split(SEPARATOR)]
    parts = [p for p in parts if p]
    unknown = [p for p in parts if p not in by_text]
    if unknown:
        raise ValueError(
            f"unknown class(es) {unknown!r} in the cell {str(cell)!r}; the classes are "
            f"{list(by_text)!r}"
        )
    return label_set([by_text[p] for p in parts], classes)


def check_set_classes(classes: Sequence) -> None:
    """Raise ``ValueError`` naming a class of a multi-label project whose text cannot stand in a
    table cell's label set: one containing :data:`SEPARATOR`, empty, or with spaces at its ends
    (:func:`parse_label_set` splits on the separator and strips the parts, so such a class
    would be read back as other classes, or as none)."""
    for c in classes:
        text = str(_plain(c))
        if SEPARATOR in text:
            problem = f"contains {SEPARATOR!r}, which separates the classes of a label set"
        elif not text.strip():
            problem = "is empty"
        elif text != text.strip():
            problem = "starts or ends with a space, which a label set's cell drops"
        else:
            continue
        raise ValueError(
            f"class {text!r} {problem} in a table cell (a CSV truth column, the exports' "
            "joined column): rename it for a multi-label project"
        )


def label_set_text(value: Iterable) -> str:
    """A label set as the text of a table cell (the inverse of :func:`parse_label_set`)."""
    return SEPARATOR.join(str(_plain(c)) for c in value)
