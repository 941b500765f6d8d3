"""Issue 22, "Also found": a real table (penguins as published) becomes a project that learns.

The table is penguins-shaped, made here (no download): string species, island and sex, NA in
two rows, a year column, measurements in millimetres beside a body mass in grams. The upload
guesses the truth from the class-like name "species", does not propose the year as a feature,
offers the fixes (drop or impute the missing rows, one-hot encode island and sex); a new
project's scaling and σ are read off the data, so it learns without any setting, and the
annotator is shown the values as uploaded, not standardised ones.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist
from support.app import app_page
from support.markdown import plain

from rlscore.data.items.item_view import shown_features
from rlscore.data.projects.project import ProjectInputError, ProjectInputWarning
from rlscore.data.projects.standardization import SPREAD_RATIO, needs_scaling
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.upload.proposal import (
    STANDARDIZE_CHOICES,
    apply_fixes,
    categorical_columns,
    columns_with_missing_values,
    default_features,
    fixed_features,
    guess_truth_column,
)
from rlscore.data.upload.table_reading import read_table
from rlscore.experiments.simulation.simulate import simulate
from rlscore.sessions.state.settings import project_settings
from rlscore.storage import open_store

#: per species: mean bill length, bill depth, flipper length (mm), body mass (g), island
SPECIES = {
    "Adelie": (38.8, 18.3, 190.0, 3700.0, "Torgersen"),
    "Chinstrap": (48.8, 18.4, 196.0, 3730.0, "Dream"),
    "Gentoo": (47.5, 15.0, 217.0, 5080.0, "Biscoe"),
}
MEASURES = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
#: published within-species standard deviations, roughly
SPREADS = (2.8, 1.2, 6.5, 460.0)
NA_ROWS = (3, 40)


def penguins_csv(per_species: int = 30) -> bytes:
    """The published table's shape as CSV bytes, NA (the file's own spelling) in two rows."""
    rng = np.random.default_rng(7)
    rows = []
    for k in range(per_species):
        for species, (*means, island) in SPECIES.items():
            values = rng.normal(means, SPREADS)
            rows.append({
                "species": species, "island": island,
                **{m: round(float(v), 1) for m, v in zip(MEASURES, values, strict=True)},
                "sex": "female" if k % 2 else "male", "year": 2007 + k % 3,
            })  # fmt: skip
    df = pd.DataFrame(rows)
    df.loc[list(NA_ROWS), [*MEASURES, "sex"]] = np.nan
    buf = io.StringIO()
    df.to_csv(buf, index=False, na_rep="NA")
    return buf.getvalue().encode()


@pytest.fixture
def table() -> pd.DataFrame:
    return read_table(penguins_csv(), "penguins.csv")


def test_the_upload_proposes_the_truth_features_and_fixes(table):
    assert not pd.api.types.is_numeric_dtype(table["species"])  # strings, as published
    assert table["bill_length_mm"].isna().sum() == 2  # the file's NA
    assert guess_truth_column(table) == "species"
    assert default_features(table, exclude=["species"]) == MEASURES  # not 'year'
    assert columns_with_missing_values(table, [*MEASURES, "sex"]) == [*MEASURES, "sex"]
    assert categorical_columns(table, exclude=["species"]) == ["island", "sex"]
    # as published it is refused, naming the column and the rows …
    with pytest.raises(ProjectInputError, match=r"'bill_length_mm' has missing values .*rows 4"):
        project_from_table(table, "p", MEASURES, truth_column="species")
    # … and each fix the page offers makes it a project
    for fix, n in (("drop rows", 88), ("impute median", 90)):
        fixed, notes = apply_fixes(table, fix, [*MEASURES, "sex"], ["island", "sex"])
        features = fixed_features(fixed, MEASURES, ["island", "sex"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ProjectInputWarning)
            project = project_from_table(fixed, "p", features, truth_column="species")
        assert project.n == n and project.classes == ["Adelie", "Chinstrap", "Gentoo"]
        assert "island=Dream" in project.feature_names and "sex=male" in project.feature_names
        assert len(notes) == 3


def fixed_project(table: pd.DataFrame, standardize) -> object:
    fixed, _ = apply_fixes(table, "drop rows", MEASURES, [])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ProjectInputWarning)
        return fixed, project_from_table(
            fixed, "p", MEASURES, truth_column="species", standardize=standardize
        )


def test_scaling_is_decided_from_the_data_and_the_annotator_sees_the_uploaded_values(table):
    fixed, _ = apply_fixes(table, "drop rows", MEASURES, [])
    spread = fixed[MEASURES].std(ddof=0)
    assert spread.max() / spread.min() > SPREAD_RATIO and needs_scaling(fixed[MEASURES])
    with pytest.warns(ProjectInputWarning, match=r"'body_mass_g' against 'bill_depth_mm'"):
        project = project_from_table(fixed, "p", MEASURES, truth_column="species")
    assert project.meta["standardized"] is True
    np.testing.assert_allclose(project.X.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(project.X.std(axis=0), 1, atol=1e-12)
    assert any("standardised" in w for w in project.meta["warnings"])
    for point in (0, 41, 87):
        shown = shown_features(project, point)
        np.testing.assert_allclose(
            [shown[m] for m in MEASURES], fixed.iloc[point][MEASURES].to_numpy(float), rtol=1e-12
        )
    # columns of similar spread are left as uploaded
    similar = fixed[["bill_length_mm", "flipper_length_mm"]].assign(species=fixed["species"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kept = project_from_table(similar, "s", truth_column="species")
    assert kept.meta["standardized"] is False
    np.testing.assert_array_equal(kept.X, similar[["bill_length_mm", "flipper_length_mm"]])


def test_a_new_project_learns_without_any_setting(table):
    """At its defaults (scaling decided from the data, σ the median distance) the learner
    separates the species; the same table unscaled, where the body mass in grams decides every
    distance, does much worse — the trap the issue found."""
    _, auto = fixed_project(table, None)
    _, raw = fixed_project(table, False)
    params = {"sigma": "median", "lam": 1.0}
    final = {}
    for name, project in (("auto", auto), ("raw", raw)):
        result = simulate(project.X, project.truth, "arls-focused", queries=25, init=3,
                          seeds=3, params=params)  # fmt: skip
        final[name] = float(np.mean([r.steps[-1].validation_error for r in result.runs]))
    assert final["auto"] <= 0.1, final
    assert final["raw"] >= final["auto"] + 0.15, final


def test_the_data_page_scales_a_new_project_automatically(tmp_path, monkeypatch):
    db = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(db))
    at = app_page("data.py", timeout=120)
    at.run()
    at.file_uploader(key="upload").set_value(("penguins.csv", penguins_csv(), "text/csv"))
    at.run()
    assert not at.exception, at.exception
    assert at.radio(key="standardize").value == next(iter(STANDARDIZE_CHOICES))  # automatic
    assert STANDARDIZE_CHOICES[at.radio(key="standardize").value] is None
    assert at.selectbox(key="truth_column").value == "species"
    assert at.multiselect(key="features").value == MEASURES
    at.radio(key="missing_fix").set_value("drop rows")
    at.run()
    assert not at.error, [plain(e.value) for e in at.error]
    assert any("standardised" in plain(w.value) for w in at.warning)
    at.text_input(key="project_name").input("penguins")
    at.button(key="create").click()
    at.run()
    assert not at.exception, at.exception
    with open_store(db) as store:
        project = store.load_project("penguins")
        sigma = project_settings(store, "penguins")["sigma"]
    assert project.n == 88 and project.meta["standardized"] is True
    # σ of a new project: the median distance between two of its (standardised) points
    assert sigma == pytest.approx(np.median(pdist(project.X)), rel=1e-12)
    assert shown_features(project, 0)["body_mass_g"] == pytest.approx(
        read_table(penguins_csv(), "p.csv")["body_mass_g"][0], rel=1e-12
    )
