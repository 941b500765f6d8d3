"""rlscore.data.upload.proposal: the truth column and features proposed for an uploaded table, and
the preview of the project built from it (the Data page's form)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from rlscore.data.projects.project import Project
from rlscore.data.upload.proposal import (
    MAX_LISTED,
    class_listing,
    default_features,
    guess_truth_column,
    listed,
    mostly_numeric_notes,
    project_preview,
)


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ({"w": [1.0, 2.0], "kind": ["cat", "dog"]}, "kind"),
        ({"Label": [1, -1], "x": [0.5, 0.2]}, "Label"),  # any case
        ({"x": [1.0, 2.0], "colour": ["red", "blue"]}, None),  # no label-like name
        ({"y": [0.5, 1.5], "class": ["a", "b"]}, "y"),  # the first label-like column
        ({"target_value": [1, 2], "kinds": ["a", "b"]}, None),  # whole names only
        # 'y' with more distinct values than classes can be is a feature; 'truth' is next
        ({"y": np.arange(MAX_LISTED + 1.0), "truth": [0, 1] * 10 + [0]}, "truth"),
        ({"y": np.arange(MAX_LISTED + 0.0)}, "y"),  # exactly the limit: still classes
    ],
)
def test_the_truth_column_guess(table, expected):
    assert guess_truth_column(pd.DataFrame(table)) == expected


def test_default_features_are_the_numeric_columns_left():
    df = pd.DataFrame(
        {"id": [1, 2], "w": [1.5, 2.0], "colour": ["r", "b"], "kind": [0, 1], "h": [3, 4]}
    )
    assert default_features(df) == ["id", "w", "kind", "h"]
    assert default_features(df, exclude=("id", "kind")) == ["w", "h"]
    assert default_features(df, exclude=(None, None)) == ["id", "w", "kind", "h"]
    # beside text, image or embedding features none is proposed, as project_from_table does
    assert default_features(df, exclude=("id",), beside_item_features=True) == []


def test_a_column_empty_in_every_row_is_not_proposed_as_a_feature():
    # read from a CSV, an empty column is numbers, all NaN (explore16's boolnan.csv)
    df = pd.read_csv(io.StringIO("a,nanc,label\n0.1,,False\n0.6,,True\n-0.5,,False\n"))
    assert pd.api.types.is_numeric_dtype(df["nanc"]) and df["nanc"].isna().all()
    assert default_features(df, exclude=["label"]) == ["a"]


def test_a_column_of_numbers_with_text_cells_is_named_where_it_is_not_proposed():
    """The reference for the cells is the project's own refusal of the column as a feature."""
    from rlscore.data.projects.project import ProjectInputError
    from rlscore.data.projects.table_project import project_from_table

    df = pd.read_csv(
        io.StringIO("w,age,year,colour,label\n1,28,2001,r,a\n2,unknown,x,b,b\n3,40,2003,r,a\n"
                    "4,?,2004,b,b\n5,51,2005,r,a\n")
    )  # fmt: skip
    notes = mostly_numeric_notes(df, exclude=["label"])
    assert len(notes) == 1  # not 'colour' (text), nor 'year' (a date: never proposed)
    with pytest.raises(ProjectInputError) as err:
        project_from_table(df, "p", ["w", "age"], truth_column="label")
    where = str(err.value).split("is not numeric ")[1].split(":")[0]
    assert where == "('unknown' in row 2; also row 4)"
    assert notes[0].startswith(
        f"Column 'age' is not proposed as a feature: it is not numeric {where}"
    )
    assert mostly_numeric_notes(df, exclude=["label", "age"]) == []
    # beside text, image or embedding features no numeric column is proposed: nothing to say
    assert mostly_numeric_notes(df, exclude=["label"], beside_item_features=True) == []


def test_listed_shortens_long_lists():
    assert listed([1, 2, 3]) == "1, 2, 3"
    assert listed(range(5), limit=3) == "0, 1, 2 …"
    assert listed([]) == ""


def project(truth) -> Project:
    rng = np.random.default_rng(0)
    return Project(
        "p", rng.normal(size=(5, 2)), ["a", "b"], [f"id{i}" for i in range(5)], truth,
        ["cat", "dog"],
    )  # fmt: skip


def test_class_listing_counts_the_truth():
    assert class_listing(project(np.array(["cat", "dog", "cat", "cat", "dog"]))) == (
        "cat: 3, dog: 2"
    )
    assert class_listing(project(None)) == "cat, dog"


def test_class_listing_of_label_sets_counts_the_items_with_each_class():
    classes = ["news", "sports", "tech"]
    truth = [("news", "tech"), ("tech",), (), ("news", "sports", "tech"), ("sports",)]
    p = Project("p", np.zeros((5, 1)), ["a"], list("abcde"), truth, classes, multi_label=True)
    expected = {"news": 2, "sports": 2, "tech": 3}  # counted by hand from ``truth`` above
    assert expected == {c: sum(c in t for t in truth) for c in classes}
    assert class_listing(p) == "news: 2, sports: 2, tech: 3"
    assert class_listing(p, limit=2) == "news: 2, sports: 2 …"


def test_project_preview_rows_ids_and_truth():
    p = project(np.array(["cat", "dog", "cat", "cat", "dog"]))
    preview = project_preview(p, rows=3)
    assert list(preview.index) == ["id0", "id1", "id2"]
    assert list(preview.columns) == ["a", "b", "truth"]
    np.testing.assert_array_equal(preview[["a", "b"]].to_numpy(), p.X[:3])
    assert preview["truth"].tolist() == ["cat", "dog", "cat"]
    assert "truth" not in project_preview(project(None)).columns
