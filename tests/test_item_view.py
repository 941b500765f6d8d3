"""What a person is shown of a point (rlscore.data.items.item_view, drawn by
rlscore.ui.label.point_view): the item itself — its text, its image, its context — read back against
the uploaded table,
images only from under the project's root, and the Label page showing the queried item."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest
from support.app import REPO, TIMEOUT, ok, query_point

from rlscore.data.items.item_view import shown_features, shown_items
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.samples.bundled import project_from_sample


def _texts() -> pd.DataFrame:
    words = ["apple pie recipe", "engine oil change", "apple tart", "brake pads worn"]
    return pd.DataFrame(
        {
            "text": [f"{w} <b>{i}</b> **not bold**" for i, w in enumerate(words * 5)],
            "source": [f"s{i}" for i in range(20)],
            "label": ["food", "car", "food", "car"] * 5,
        }
    )


def test_a_text_project_shows_each_points_own_text_and_context_unchanged():
    df = _texts()
    p = project_from_table(
        df, "t", truth_column="label", text_columns=["text"], context_columns=["source"]
    )
    for i in (0, 7, 19):
        shown = {item.name: item for item in shown_items(p, i)}
        assert shown["text"].kind == "text" and shown["text"].text == df.text[i]
        assert shown["source"].kind == "context" and shown["source"].text == df.source[i]


def test_long_texts_are_marked_for_a_scrolling_box():
    df = _texts()
    df.loc[3, "text"] = "word " * 200
    p = project_from_table(df, "t", truth_column="label", text_columns=["text"])
    assert shown_items(p, 3)[0].long and not shown_items(p, 2)[0].long


def _image_table(root, n=12) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    for i in range(n):
        Image.fromarray(rng.integers(0, 255, (30, 20), dtype=np.uint8)).save(root / f"{i}.png")
    return pd.DataFrame({"path": [f"{i}.png" for i in range(n)], "label": ["a", "b"] * (n // 2)})


def test_an_image_project_shows_the_file_of_the_row(tmp_path):
    df = _image_table(tmp_path)
    p = project_from_table(
        df, "img", truth_column="label", image_column="path", image_root=tmp_path
    )
    item = shown_items(p, 5)[0]
    assert item.kind == "image" and item.text == "5.png"
    expected = np.asarray(Image.open(tmp_path / "5.png"))
    assert np.array_equal(np.asarray(item.image), expected)


def test_an_image_that_went_missing_or_leaves_the_root_is_a_message_not_an_error(tmp_path):
    df = _image_table(tmp_path)
    p = project_from_table(
        df, "img", truth_column="label", image_column="path", image_root=tmp_path
    )
    (tmp_path / "3.png").unlink()
    item = shown_items(p, 3)[0]
    assert item.kind == "error" and "3.png" in item.text and "row 4" in item.text
    p.items[0].values[4] = "../outside.png"  # a cell changed under the project (e.g. by hand)
    item = shown_items(p, 4)[0]
    assert item.kind == "error" and ".." in item.text and item.image is None


def test_a_standardised_numeric_project_shows_the_values_as_uploaded():
    df = pd.DataFrame({"mass": [3750.0, 3800.0, 3250.0, 4100.0], "len": [39.1, 39.5, 40.3, 36.7]})
    df["label"] = ["a", "b", "a", "b"]
    p = project_from_table(df, "n", ["mass", "len"], truth_column="label", standardize=True)
    assert not np.allclose(p.X[0], [3750.0, 39.1])  # the learner sees standardised values
    assert shown_items(p, 0) == []
    assert shown_features(p, 0) == pytest.approx({"mass": 3750.0, "len": 39.1})


def test_the_label_page_shows_the_queried_items_text(tmp_path, monkeypatch):
    monkeypatch.setenv("RLSCORE_DB", str(tmp_path / "labels.sqlite3"))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = "debian_sections"
    ok(at.run())
    assert at.session_state["params"]["project"] == "debian_sections"
    point = query_point(at)
    project = project_from_sample("debian_sections")
    text = next(c.values for c in project.items if c.kind == "text")[point]
    assert text in [t.value for t in at.text]
