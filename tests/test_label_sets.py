"""The label-set convention of multi-label projects (rlscore.core.conventions.label_sets):
round trips between cells, tuples and multi-hot rows, and refusals that name the problem."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from rlscore.core.conventions.label_sets import (
    SEPARATOR,
    from_multi_hot,
    label_set,
    label_set_text,
    multi_hot,
    parse_label_set,
    unpack_json_list,
)
from rlscore.experiments.simulation.multilabel import set_classes

CLASSES = ["news", "science", "sports"]


def test_every_subset_survives_text_and_multi_hot_round_trips():
    for r in range(len(CLASSES) + 1):
        for subset in itertools.combinations(CLASSES, r):
            # given in reverse order: the set comes back in class order
            s = label_set(list(reversed(subset)), CLASSES)
            assert s == subset
            assert parse_label_set(label_set_text(s), CLASSES) == s
            row = multi_hot([s], CLASSES)[0]
            # independent reference: membership tested class by class
            assert row.tolist() == [1.0 if c in subset else 0.0 for c in CLASSES]
            assert from_multi_hot(row, CLASSES) == s
            pm = multi_hot([s], CLASSES, negative=-1)[0]
            assert from_multi_hot(pm > 0, CLASSES) == s


def test_cells_of_csv_json_and_parquet():
    assert parse_label_set(f" sports {SEPARATOR}news ", CLASSES) == ("news", "sports")
    assert parse_label_set(None, CLASSES) == ()
    assert parse_label_set(float("nan"), CLASSES) == ()
    assert parse_label_set("  ", CLASSES) == ()
    assert parse_label_set(np.array(["sports"]), CLASSES) == ("sports",)
    assert parse_label_set("3|1", [1, 2, 3]) == (1, 3)
    assert label_set([np.int64(2)], [1, 2]) == (2,)
    assert type(label_set([np.int64(2)], [1, 2])[0]) is int


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("news", "list of classes"),
        (["news", "news"], "given twice"),
        (["weather"], "unknown class"),
    ],
)
def test_refusals_name_the_problem(value, message):
    with pytest.raises(ValueError, match=message):
        label_set(value, CLASSES)


def test_an_unknown_class_in_a_cell_is_named():
    with pytest.raises(ValueError, match=r"unknown class\(es\) \['weather'\] in the cell"):
        parse_label_set("news|weather", CLASSES)


def test_a_csv_cell_holding_a_json_list_is_that_list():
    """A CSV cell ``["a","c"]`` (how tools write a list to CSV) became the class ``["a","c"]``,
    and ``["a|b","c"]`` the classes ``["a`` and ``b","c"]``: it is read as the list, as a JSON
    or Parquet list cell is (reference: ``json.loads`` of the cell)."""
    import json

    cells = ['["a", "c"]', ' ["c"] ', "[]", '["b"]', '["a|b","c"]', "b|c", ""]
    listed = [json.loads(c) if c.strip().startswith("[") else None for c in cells]
    assert [unpack_json_list(c) for c in cells[:5]] == listed[:5]
    classes = set_classes(cells)
    assert classes == ["a", "a|b", "b", "c"]
    want = [tuple(c for c in classes if c in items) for items in listed[:5]]
    want += [("b", "c"), ()]
    assert [parse_label_set(c, classes) for c in cells] == want
    assert parse_label_set("[1, 3]", [1, 2, 3]) == (1, 3)


@pytest.mark.parametrize("cell", ["[draft]", "[draft]|news", "news|[draft", '{"a": 1}', 7])
def test_other_text_in_brackets_stays_text(cell):
    assert unpack_json_list(cell) == cell


@pytest.mark.parametrize(
    ("cell", "problem"),
    [
        ('["x", "y"', "its closing ']' is missing"),  # the exploratory tester's cell
        ("[1, 2", "its closing ']' is missing"),
        ("[x, y]", "expecting value at character 2"),  # items without quotes
        ('["a",]', "expecting value at character 6"),
        ('[1, 2]"', "extra data at character 7"),
    ],
)
def test_a_list_written_wrong_is_refused_not_read_as_a_class(cell, problem):
    """``["x", "y"`` (no closing bracket) became a class of that name beside ``x`` and ``y``:
    text starting with ``[`` that is no JSON is refused, unless it starts with a tag in
    brackets (``[draft]``, above)."""
    want = f"it starts with '[' but is not a JSON list ({problem})"
    for read in (unpack_json_list, lambda c: parse_label_set(c, CLASSES)):
        with pytest.raises(ValueError, match=re.escape(want)):
            read(cell)
    with pytest.raises(ValueError, match=re.escape(want)):  # the simulation reads it alike
        set_classes(["x", cell])


@pytest.mark.parametrize(
    ("cell", "item"),
    [
        ('[["a"]]', '["a"]'),
        ("[null]", "null"),
        ('["news", true]', "true"),
        (["news", None], "null"),
    ],
)
def test_a_list_holding_no_class_is_refused(cell, item):
    # kept as text, '["news", null]' was once read as a class of that name
    with pytest.raises(ValueError, match=re.escape(f"the list holds {item}, which is no class")):
        parse_label_set(cell, CLASSES)
