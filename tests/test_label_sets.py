"""The label-set convention of multi-label projects (rlscore.core.conventions.label_sets):
round trips between cells, tuples and multi-hot rows, and refusals that name the problem."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rlscore.core.conventions.label_sets import (
    SEPARATOR,
    from_multi_hot,
    label_set,
    label_set_text,
    multi_hot,
    parse_label_set,
)

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
