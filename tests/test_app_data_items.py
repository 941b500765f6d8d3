"""The Data page makes labeling projects of texts and images (AppTest): items and features
chosen on the form, the guesses, the fixes for real tables, and a clear message (never a
traceback) for every bad input; the Label page then shows the item's text."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from scipy.spatial.distance import pdist
from streamlit.testing.v1 import AppTest
from support.app import REPO, TIMEOUT, app_page, button, ok, query_point, stored_log
from support.markdown import plain

from rlscore.storage import open_store

ANIMALS = ["cat", "dog", "horse", "rabbit", "parrot", "goat"]
MARKETS = ["stocks", "bonds", "shares", "futures", "currencies", "options"]


def sentences() -> pd.DataFrame:
    """60 short sentences in two classes (pets and markets), each distinct."""
    rows = []
    for i in range(30):
        rows.append((f"the {ANIMALS[i % 6]} slept by the warm fire, night {i}", "pets"))
        rows.append((f"{MARKETS[i % 6]} fell sharply at the market on day {i}", "markets"))
    return pd.DataFrame(rows, columns=["text", "label"])


def csv_bytes(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False).encode()


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    monkeypatch.delenv("RLSCORE_IMAGE_ROOT", raising=False)
    return path


def uploaded(data: bytes, name: str) -> AppTest:
    at = app_page("data.py", timeout=TIMEOUT)
    ok(at.run())
    at.file_uploader(key="upload").set_value((name, data, "text/csv"))
    return ok(at.run())


def errors(at: AppTest) -> list[str]:
    return [plain(e.value) for e in at.error]


def test_a_text_csv_becomes_a_text_project_and_the_label_page_shows_its_text(db):
    table = sentences()
    at = uploaded(csv_bytes(table), "news.csv")
    # guessed: the sentences are the text item, 'label' the truth, no numeric feature
    assert at.multiselect(key="text_columns").value == ["text"]
    assert at.selectbox(key="truth_column").value == "label"
    assert at.selectbox(key="image_column").value == "(no image column)"
    assert at.multiselect(key="features").value == []
    at.number_input(key="text_dimension").set_value(12)
    ok(at.run())
    assert not at.error, errors(at)
    shown = " ".join(plain(c.value) for c in at.caption)
    assert "reduced to 12 dimensions, keeping" in shown and "% of the variance" in shown
    at.text_input(key="project_name").input("news")
    at.button(key="create").click()
    ok(at.run())
    assert not at.error, errors(at)
    assert at.selectbox(key="chosen").value == "news"
    after = " ".join(plain(c.value) for c in at.caption)  # still said once it is created
    assert "reduced to 12 dimensions, keeping" in after

    with open_store(db) as store:
        project = store.load_project("news")
    assert project.feature_names == [f"text_svd_{k}" for k in range(1, 13)]
    assert [(c.name, c.kind) for c in project.items] == [("text", "text")]
    assert project.items[0].values == table["text"].tolist()  # the texts as uploaded
    assert sorted(project.classes) == ["markets", "pets"]

    label = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    label.query_params["annotator"] = "ada"
    label.query_params["project"] = "news"
    ok(label.run())
    q = query_point(label)
    # the queried item's own sentence (row q of the upload: ids are row numbers) is on the page
    assert table["text"][q] in [t.value for t in label.text]
    button(label, "label", 1).click()
    ok(label.run())
    assert stored_log(db, "news").labels == {q: project.classes[1]}


def test_a_counter_beside_texts_is_not_proposed_and_when_chosen_is_weighted(db):
    # explore18, finding 3: a counter beside the texts was proposed as a feature and, unscaled,
    # decided every distance without a word
    table = sentences().assign(num=np.arange(60) * 3)
    at = uploaded(csv_bytes(table), "counted.csv")
    assert at.multiselect(key="text_columns").value == ["text"]
    assert at.multiselect(key="features").value == []  # not the counter
    assert not at.warning
    at.multiselect(key="features").set_value(["num"])
    ok(at.run())
    shown = [plain(w.value) for w in at.warning]
    assert any("'num' standardised and weighted against the text features" in w for w in shown)
    at.text_input(key="project_name").input("counted")
    at.button(key="create").click()
    ok(at.run())
    assert not at.error, errors(at)
    with open_store(db) as store:
        project = store.load_project("counted")
    assert project.feature_names[0] == "num"
    # the distances are no longer the counter's (0.999999 unscaled)
    D = pdist(project.X)
    assert np.corrcoef(D, pdist(table[["num"]].to_numpy(dtype=float)))[0, 1] < 0.7


def test_a_text_column_of_numbers_is_refused_with_a_message(db):
    table = sentences().assign(n=np.arange(60) * 1.5)
    at = uploaded(csv_bytes(table), "news.csv")
    at.multiselect(key="text_columns").set_value(["n"])
    ok(at.run())
    assert any("text column 'n' holds numbers" in e for e in errors(at)), errors(at)
    assert at.button(key="create").disabled


def image_table() -> pd.DataFrame:
    return pd.DataFrame(
        {"path": [f"img_{i}.png" for i in range(6)], "kind": ["a", "b"] * 3, "w": range(6)}
    )


def test_an_image_column_without_the_servers_image_root_is_refused(db):
    at = uploaded(csv_bytes(image_table()), "images.csv")
    assert at.selectbox(key="image_column").value == "path"  # guessed from the suffixes
    assert any("RLSCORE_IMAGE_ROOT=" in e and "'path'" in e for e in errors(at)), errors(at)
    assert at.button(key="create").disabled


def test_a_missing_image_is_named_by_row(db, tmp_path, monkeypatch):
    root = tmp_path / "images"
    root.mkdir()
    for i in (0, 1, 2, 4, 5):  # img_3.png is missing
        Image.fromarray(np.full((8, 8), 40 * i, dtype=np.uint8)).save(root / f"img_{i}.png")
    monkeypatch.setenv("RLSCORE_IMAGE_ROOT", str(root))
    at = uploaded(csv_bytes(image_table()), "images.csv")
    assert any("img_3.png" in e for e in errors(at)), errors(at)
    assert at.button(key="create").disabled
    (root / "img_3.png").write_bytes(_png())
    at.text_input(key="project_name").input("pictures")  # a new run reads the folder again
    ok(at.run())
    assert not at.error, errors(at)
    assert not at.button(key="create").disabled


def _png() -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.zeros((8, 8), dtype=np.uint8)).save(out, format="PNG")
    return out.getvalue()


PENGUINS = pd.DataFrame(
    {
        "species": ["Adelie", "Gentoo", "Chinstrap", "Adelie", "Gentoo", "Chinstrap"] * 2,
        "island": ["Torgersen", "Biscoe", "Dream"] * 4,
        "bill_mm": [39.1, 46.1, np.nan, 38.6, 47.3, 49.0, 40.3, 45.2, 50.1, 37.8, 48.4, 46.9],
        "year": [2007, 2008, 2009] * 4,
    }
)


def test_a_real_table_is_offered_its_fixes(db):
    at = uploaded(csv_bytes(PENGUINS), "penguins.csv")
    assert at.selectbox(key="truth_column").value == "species"  # a class-like name
    assert at.multiselect(key="features").value == ["bill_mm"]  # not the year
    assert any("bill_mm" in e and "row 3" in e for e in errors(at)), errors(at)
    at.radio(key="missing_fix").set_value("drop rows")
    at.multiselect(key="one_hot").set_value(["island"])
    ok(at.run())
    assert not at.error, errors(at)
    notes = [plain(i.value) for i in at.info]
    assert any("dropped 1 row 3 with missing values" in n for n in notes), notes
    assert any("'island' replaced by 3 0/1 columns" in n for n in notes), notes
    at.text_input(key="project_name").input("penguins")
    at.button(key="create").click()
    ok(at.run())
    with open_store(db) as store:
        project = store.load_project("penguins")
    assert project.n == 11
    assert project.feature_names == [
        "bill_mm", "island=Biscoe", "island=Dream", "island=Torgersen",
    ]  # fmt: skip


def test_after_dropping_rows_the_missing_label_is_named_at_its_row_in_the_file(db):
    """The rows "drop rows" kept keep the file's numbers: the missing label of data row 11
    is named as row 11 of the file, not as its row in the table left after the drop."""
    table = PENGUINS.copy()
    table.loc[1, "bill_mm"] = np.nan  # file rows 2 and 3 miss a feature: dropped
    table.loc[8, "species"] = None  # file row 9 misses its label
    label_row = int(np.flatnonzero(table["species"].isna())[0]) + 1  # 1-based data row
    assert label_row == 9
    at = uploaded(csv_bytes(table), "penguins.csv")
    at.selectbox(key="truth_column").set_value("species")
    ok(at.run())
    at.radio(key="missing_fix").set_value("drop rows")
    ok(at.run())
    notes = [plain(i.value) for i in at.info]
    assert any("dropped 2 rows 2, 3 with missing values" in n for n in notes), notes
    assert any(
        f"truth column 'species' has missing labels in row {label_row}:" in e for e in errors(at)
    ), errors(at)
