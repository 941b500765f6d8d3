"""Fixes offered for real tables: missing values (drop rows / impute) and one-hot encoding."""

import numpy as np
import pandas as pd
import pytest

from rlscore.data.projects.project import ProjectInputError
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.upload.table_fixes import (
    TableFixError,
    drop_missing_rows,
    impute_missing,
    missing_value_rows,
    one_hot_encode,
)


def penguins():
    """The shape of the published penguins table: string species, NaN rows, string island."""
    return pd.DataFrame(
        {
            "species": ["Adelie", "Adelie", "Gentoo", "Gentoo", "Chinstrap", "Adelie"],
            "island": ["Torgersen", "Biscoe", "Biscoe", None, "Dream", "Dream"],
            "bill_length_mm": [39.1, np.nan, 46.1, 50.0, 46.5, 38.0],
            "body_mass_g": [3750.0, np.nan, 4500.0, 5700.0, 3500.0, 3400.0],
        }
    )


def test_missing_rows_are_found_and_dropped():
    df = penguins()
    found = missing_value_rows(df, ["island", "bill_length_mm", "body_mass_g", "species"])
    assert {c: r.tolist() for c, r in found.items()} == {
        "island": [3], "bill_length_mm": [1], "body_mass_g": [1],
    }  # fmt: skip
    kept, note = drop_missing_rows(df, ["bill_length_mm", "body_mass_g"])
    assert kept["species"].tolist() == ["Adelie", "Gentoo", "Gentoo", "Chinstrap", "Adelie"]
    assert note == "dropped 1 row 2 with missing values" and df.shape[0] == 6  # not in place
    with pytest.raises(ProjectInputError, match="missing values"):
        project_from_table(df, "p", ["bill_length_mm", "body_mass_g"], truth_column="species")
    p = project_from_table(kept, "p", ["bill_length_mm", "body_mass_g"], truth_column="species")
    assert p.n == 5 and p.classes == ["Adelie", "Chinstrap", "Gentoo"]


def test_imputation_uses_the_median_or_the_most_frequent_value():
    out, note = impute_missing(penguins(), ["bill_length_mm", "island"])
    assert out["bill_length_mm"][1] == np.median([39.1, 46.1, 50.0, 46.5, 38.0])
    assert out["island"][3] in ("Biscoe", "Dream")  # the most frequent (a tie)
    assert "'bill_length_mm': 1 missing value set to the median" in note
    out, _ = impute_missing(penguins(), ["body_mass_g"], strategy="mean")
    assert out["body_mass_g"][1] == pytest.approx(np.mean([3750, 4500, 5700, 3500, 3400]))
    with pytest.raises(TableFixError, match="imputation must be one of"):
        impute_missing(penguins(), ["body_mass_g"], strategy="zero")


def test_one_hot_encoding_replaces_the_column_in_place():
    out, note = one_hot_encode(penguins(), "island")
    cols = ["island=Biscoe", "island=Dream", "island=Torgersen", "island=missing"]
    assert list(out.columns) == ["species", *cols, "bill_length_mm", "body_mass_g"]
    np.testing.assert_array_equal(out[cols].sum(axis=1), 1)
    assert out["island=missing"].tolist() == [0, 0, 0, 1, 0, 0]
    assert out["island=Dream"].tolist() == [0, 0, 0, 0, 1, 1]
    assert note.startswith("'island' replaced by 4 0/1 columns")
    with pytest.raises(TableFixError, match="more than 50"):
        one_hot_encode(pd.DataFrame({"id": [str(i) for i in range(60)]}), "id")
    with pytest.raises(TableFixError, match="not in the table"):
        one_hot_encode(penguins(), "sex")


def test_a_column_empty_in_every_row_is_named_as_the_one_to_leave_out():
    """Dropping rows or imputing cannot fix a column with no value at all: the message names
    that column (not a complete one beside it) and says to leave it out."""
    df = pd.DataFrame({"a": [0.1, 0.6, -0.5, 1.3], "nanc": [np.nan] * 4, "label": [0, 1, 0, 1]})
    assert df["a"].notna().all() and df["nanc"].isna().all()
    expected = "column 'nanc' is empty in every row: leave it out of the chosen columns"
    with pytest.raises(TableFixError) as dropped:
        drop_missing_rows(df, ["a", "nanc"])
    assert str(dropped.value) == expected
    with pytest.raises(TableFixError) as imputed:
        impute_missing(df, ["a", "nanc"])
    assert str(imputed.value) == expected


def test_rows_kept_by_the_drop_keep_the_file_row_numbers():
    df = penguins()
    kept, _ = drop_missing_rows(df, ["bill_length_mm", "island"])
    assert kept.index.tolist() == [i for i in range(6) if i not in (1, 3)]
    assert kept["species"].tolist() == df["species"].drop(index=[1, 3]).tolist()
