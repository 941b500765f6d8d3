"""rlscore.data.upload.proposal for items: which columns are proposed as texts, images, truth and
features, the fixes the Data page applies, and the caption of the text features."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rlscore.data.projects.table_project import project_from_table
from rlscore.data.upload.proposal import (
    apply_fixes,
    categorical_columns,
    columns_with_missing_values,
    default_features,
    fixed_features,
    guess_image_column,
    guess_text_columns,
    guess_truth_column,
    text_feature_caption,
    text_settings,
)
from rlscore.data.upload.table_fixes import TableFixError

SENTENCES = [f"a sentence of several words about item {i}" for i in range(8)]


def test_free_text_is_proposed_as_text_and_short_or_numeric_strings_are_not():
    df = pd.DataFrame(
        {
            "text": SENTENCES,
            "colour": ["red", "blue"] * 4,  # short: a category
            "code": [f"{1000000 + i}.25" for i in range(8)],  # numbers written as strings
            "n": np.arange(8.0),
        }
    )
    assert guess_text_columns(df) == ["text"]
    assert guess_text_columns(df, exclude=("text",)) == []


def test_image_paths_are_proposed_as_the_image_column():
    df = pd.DataFrame(
        {
            "name": [f"item {i}" for i in range(6)],
            "file": [f"dir/img_{i}.PNG" for i in range(6)],
            "other": [f"b/{i}.jpg" for i in range(6)],
        }
    )
    assert guess_image_column(df) == "file"  # the first; suffixes in any case
    assert guess_image_column(df, exclude=("file",)) == "other"
    assert guess_image_column(df.drop(columns=["file", "other"])) is None
    mixed = pd.DataFrame({"p": ["a.png", "b.txt", "c.csv", "d.png"]})
    assert guess_image_column(mixed) is None  # most values are not images


def test_species_is_a_truth_and_a_year_is_not_a_feature():
    df = pd.DataFrame(
        {"species": ["Adelie", "Gentoo"] * 3, "bill": np.arange(6.0), "year": [2007] * 6}
    )
    assert guess_truth_column(df) == "species"
    assert default_features(df, exclude=("species",)) == ["bill"]


def test_missing_and_categorical_columns_are_found():
    df = pd.DataFrame(
        {"a": [1.0, np.nan, 3.0], "s": ["x", "y", None], "t": ["p", "p", "p"], "u": [1, 2, 3]}
    )
    assert columns_with_missing_values(df, ["a", "u", "s"]) == ["a", "s"]
    # a missing value is a category of its own: 's' has three; 't' a single one
    assert categorical_columns(df) == ["s"]
    assert categorical_columns(df, exclude=("s",)) == []


def test_fixes_drop_or_impute_then_encode_and_features_follow():
    df = pd.DataFrame(
        {"a": [1.0, np.nan, 3.0, 5.0], "isle": ["x", "y", "x", "z"], "b": [1.0, 2, 3, 4]}
    )
    dropped, notes = apply_fixes(df, "drop rows", ["a", "b"], ["isle"])
    assert dropped["a"].tolist() == [1.0, 3.0, 5.0]
    assert dropped["isle=x"].tolist() == [1.0, 1.0, 0.0]
    assert len(notes) == 2 and "dropped 1 row 2" in notes[0]
    # the only 'y' row was dropped: its category is gone
    assert fixed_features(dropped, ["a", "isle", "b"], ["isle"]) == ["a", "b", "isle=x", "isle=z"]
    assert fixed_features(dropped, ["a"], ["isle"]) == ["a", "isle=x", "isle=z"]
    imputed, notes = apply_fixes(df, "impute median", ["a"])
    assert imputed["a"].tolist() == [1.0, 3.0, 3.0, 5.0] and "median" in notes[0]
    kept, notes = apply_fixes(df, "keep", ["a"])
    assert kept is df and notes == []
    with pytest.raises(TableFixError, match="missing values: choose one of"):
        apply_fixes(df, "guess", ["a"])


def test_text_feature_caption_reports_the_variance_the_basis_keeps():
    df = pd.DataFrame({"text": SENTENCES + ["other words entirely, not like the rest"] * 2})
    settings = text_settings("words", 500, 3)
    assert settings.analyzer == "word" and settings.n_components == 3
    project = project_from_table(df, "t", text_columns=["text"], text_settings=settings)
    variance = project.meta["text_features"]["explained_variance"]
    caption = text_feature_caption(project)
    assert "reduced to 3 dimensions" in caption
    assert f"keeping {100 * variance:.1f} % of the variance" in caption
    numeric = project_from_table(pd.DataFrame({"x": [1.0, 2.0]}), "n")
    assert text_feature_caption(numeric) is None
    assert text_settings("character n-grams", 10, 2).analyzer == "char_wb"
