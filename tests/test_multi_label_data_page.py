"""Multi-label projects made on the Data page (Streamlit's AppTest): the "Several labels per
item" box is ticked at first when the chosen truth column's cells hold ``|``, left clear for
one class per cell, and the project created from it keeps the label sets."""

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from support.app import app_page, plain_markdown

from rlscore.data.projects.class_labels import looks_multi_label, truth_values
from rlscore.storage import open_store

TAGS = (
    b"x,y,tags,kind\n"
    b"0.1,1.0,news|sports,a\n"
    b"0.5,0.2,tech,b\n"
    b"0.9,0.4,,a\n"
    b"0.3,0.8,sports | tech | news,b\n"
)


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    return path


def uploaded() -> AppTest:
    at = app_page("data.py", timeout=60)
    at.run()
    at.file_uploader(key="upload").set_value(("tags.csv", TAGS, "text/csv"))
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_box_is_guessed_from_the_truth_column_and_makes_a_multi_label_project(db):
    at = uploaded()
    at.selectbox(key="truth_column").select("kind")
    at.run()
    assert at.checkbox(key="multi_label_kind").value is False  # one class per cell
    at.selectbox(key="truth_column").select("tags")
    at.run()
    assert at.checkbox(key="multi_label_tags").value is True  # cells hold "|"
    assert not at.error, [e.value for e in at.error]
    at.multiselect(key="features").set_value(["x", "y"])
    at.text_input(key="project_name").input("tagged")
    at.run()
    # the preview counts the items whose set holds each class (not whole sets equal to it)
    preview = [plain_markdown(c.value) for c in at.caption if "points ×" in c.value]
    assert preview == [
        "4 points × 2 features; 3 classes, items with each: news: 2, sports: 2, tech: 2"
    ]
    at.button(key="create").click()
    at.run()
    assert not at.exception, at.exception
    assert "Created project 'tagged'" in at.success[0].value
    p = open_store(db).load_project("tagged")
    assert p.multi_label and p.classes == ["news", "sports", "tech"]
    assert list(p.truth) == [("news", "sports"), ("tech",), (), ("news", "sports", "tech")]


#: a truth column of JSON lists, as tools that write lists to CSV write them
JSON_TAGS = (
    b'id,text,labels\n1,hello world,"[""a"",""c""]"\n2,world peace,"[""c""]"\n'
    b'3,foo bar,"[]"\n4,bar baz,"[""b""]"\n'
)


def test_a_column_of_json_lists_ticks_the_box_and_is_read_as_sets(db):
    """The box stayed clear for these cells and the preview counted 4 classes named
    ``["a","c"]``, ``["b"]`` …; they are lists, read as Python's ``json`` reads them."""
    import csv
    import io
    import json

    at = app_page("data.py", timeout=60)
    at.run()
    at.file_uploader(key="upload").set_value(("json.csv", JSON_TAGS, "text/csv"))
    at.run()
    at.selectbox(key="truth_column").select("labels")
    at.run()
    assert at.checkbox(key="multi_label_labels").value is True
    rows = list(csv.DictReader(io.StringIO(JSON_TAGS.decode())))
    sets = [json.loads(r["labels"]) for r in rows]
    preview = [plain_markdown(c.value) for c in at.caption if "points ×" in c.value]
    assert len(preview) == 1 and "3 classes, items with each: a: 1, b: 1, c: 2" in preview[0]
    at.text_input(key="project_name").input("jsonl")
    at.run()
    at.button(key="create").click()
    at.run()
    assert not at.exception, at.exception
    p = open_store(db).load_project("jsonl")
    assert p.multi_label and p.classes == ["a", "b", "c"]
    assert list(p.truth) == [tuple(c for c in p.classes if c in s) for s in sets]


def test_the_guess_and_the_classes_of_a_column_of_sets():
    assert looks_multi_label(["a|b", "c"]) and looks_multi_label([["a"], []])
    assert looks_multi_label(['["a"]', "b"]) and looks_multi_label(["[]", "b"])
    assert not looks_multi_label(["[draft]", "b"])
    assert looks_multi_label(['["a", "b"', "b"])  # a list written wrong: refused when built
    df = pd.DataFrame({"t": ['["a|b", "c"]', "[]", '["c"]']})
    assert truth_values(df, "t", multi_label=True) == ["a|b", "c"]
    assert not looks_multi_label(["a", "b", 3])
    df = pd.DataFrame({"t": ["b|a", None, "c", "1|2"]})
    assert truth_values(df, "t", multi_label=True) == [1, 2, "a", "b", "c"]
    assert truth_values(df, "t") == ["1|2", "b|a", "c"]


def test_the_export_caption_says_what_a_multi_label_export_holds(db):
    at = uploaded()
    at.selectbox(key="truth_column").select("tags")
    at.run()
    at.multiselect(key="features").set_value(["x", "y"])
    at.text_input(key="project_name").input("tagged")
    at.run()
    at.button(key="create").click()
    at.run()
    at.run()
    (caption,) = [plain_markdown(c.value) for c in at.caption if "labeled points:" in c.value]
    assert "accuracy estimate" not in caption and "0/1 column" in caption, caption
    # the export's micro-F1 headline is named as the columns it carries (the caption said
    # the export had no estimate)
    for column in ("micro_f1_estimate", "micro_f1_low", "micro_f1_high", "micro_f1_checks",
                   "micro_f1_labels"):  # fmt: skip
        assert column in caption, caption
