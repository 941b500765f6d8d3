"""Items shown everywhere a label is (issue 22 part 3): the Label page's recent labels and the
Review page show each point as its item — a one-line snippet of its text or its image's
thumbnail — as plain text, never Markdown or HTML; and the Label page's captions say only
what is true (the ranking score explained, no validation error before a label, no promised
boundary before one is drawn), with class names first and each key on its own.

References are written here: the snippet as "the text on one line, cut at 90 characters
with …", thumbnails by Pillow straight from the image file, and the boundary by checking the
sign of every grid value.
"""

from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest
from support.app import REPO, TIMEOUT, button, ok, query_point
from support.markdown import BOLD_NAME, assert_shown_as_text, markdown_texts

from rlscore.data.projects.table_project import project_from_table
from rlscore.storage import Event, open_store
from rlscore.ui.label.point_view import BRIEF_CHARS, THUMBNAIL_SIDE
from rlscore.ui.label.query_panel import SCORE_HELP, boundary_caption, buttons_per_row

N_TEXTS = 24
N_IMAGES = 8


def expected_snippet(text: str, chars: int = BRIEF_CHARS) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= chars else one_line[: chars - 1].rstrip() + "…"


def _texts() -> pd.DataFrame:
    texts = [
        f"note {i}: **not bold** <b>not html</b> [link](http://example.invalid)"
        + (" apples and pears" if i % 2 else " engines and brakes") * 6
        for i in range(N_TEXTS)
    ]
    return pd.DataFrame({"text": texts, "label": [BOLD_NAME, "plain"] * (N_TEXTS // 2)})


def _images(root) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    for i in range(N_IMAGES):
        pixels = rng.integers(0, 255, (400, 400, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(root / f"pic_{i}.png")
    return pd.DataFrame(
        {"path": [f"pic_{i}.png" for i in range(N_IMAGES)], "label": ["-1", "1"] * (N_IMAGES // 2)}
    )


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    root = tmp_path / "pics"
    root.mkdir()
    with open_store(path) as store:
        store.create_project(
            project_from_table(_texts(), "notes", truth_column="label", text_columns=["text"])
        )
        store.create_project(
            project_from_table(
                _images(root), "pics", truth_column="label", image_column="path", image_root=root
            )
        )
    return path


def _label_page(project: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = project
    return ok(at.run())


def _thumbnail_reference(path) -> np.ndarray:
    with Image.open(path) as im:
        scale = THUMBNAIL_SIDE / max(im.size)
        size = (round(im.size[0] * scale), round(im.size[1] * scale))
        return np.asarray(im.convert("RGB").resize(size, Image.Resampling.LANCZOS))


# -- the Label page ---------------------------------------------------------------------------
def test_recent_labels_show_each_items_text_as_plain_text(db):
    texts = _texts().text.tolist()
    at = _label_page("notes")
    first = query_point(at)
    button(at, "label", 0).click()
    ok(at.run())
    second = query_point(at)
    button(at, "label", 1).click()
    ok(at.run())
    shown = [t.value for t in at.text]
    for point in (first, second):
        assert f"#{point} · {expected_snippet(texts[point])}" in shown
    # the class names on buttons and captions are escaped; the items never reach Markdown
    assert_shown_as_text(at, BOLD_NAME)
    assert not any("not html" in m for m in markdown_texts(at))


def test_recent_labels_show_an_images_thumbnail_and_file_name(db):
    at = _label_page("pics")
    point = query_point(at)
    before = len(at.get("image"))
    button(at, "label", 0).click()
    ok(at.run())
    assert f"#{point} · pic_{point}.png" in [t.value for t in at.text]
    assert len(at.get("image")) == before + 1  # the thumbnail beside the recent label


def test_class_buttons_name_the_class_and_carry_their_key_apart(db):
    at = _label_page("pics")
    labels = [b for b in at.button if b.key and b.key.startswith("label_")]
    # class -1 is key 1 and class 1 key 2: the label is the class name, the key is separate
    assert [(b.proto.label, b.proto.shortcut) for b in labels] == [("\\-1", "1"), ("1", "2")]
    assert buttons_per_row(["-1", "1"]) == 2
    assert buttons_per_row(["games", "graphics", "science", "sound"]) == 2
    assert buttons_per_row([str(d) for d in range(10)]) == 3
    assert buttons_per_row(["a very long class name indeed", "b"]) == 1


def test_the_ranking_score_is_explained_and_one_accuracy_headline(db):
    at = _label_page("notes")
    (caption,) = [c for c in at.caption if c.value.startswith("Predicted ")]
    assert "· score " in caption.value and caption.proto.help == SCORE_HELP
    button(at, "label", 0).click()
    ok(at.run())
    labels = [m.label for m in at.metric]
    # issue 33: one headline; the validation error against the truth is in an expander
    assert "Validation error" not in labels and "Agreement with the truth column" not in labels


# -- the pool plot's caption ------------------------------------------------------------------
def _sign_changes(F: np.ndarray) -> bool:
    """Reference: does any boundary surface take both signs (two classes: F itself; more:
    each class's value minus the best other)?"""
    F = np.asarray(F, dtype=float)
    surfaces = (
        [F]
        if F.ndim == 2
        else [F[:, :, t] - np.delete(F, t, axis=2).max(axis=2) for t in range(F.shape[2])]
    )
    return any((z > 0).any() and (z < 0).any() for z in surfaces)


@pytest.mark.parametrize(
    "F",
    [
        np.full((5, 5), -0.3),  # one class labeled: no sign change
        np.full((5, 5), 0.2),
        np.linspace(-1, 1, 25).reshape(5, 5),  # a boundary
        np.stack([np.linspace(-1, 1, 25).reshape(5, 5), np.zeros((5, 5)) + 0.1], axis=2),
        np.stack([np.ones((5, 5)), np.zeros((5, 5)), -np.ones((5, 5))], axis=2),  # one class wins
    ],
)
def test_the_caption_promises_a_boundary_only_when_one_is_drawn(F):
    xs = ys = np.linspace(0, 1, 5)
    caption = boundary_caption((xs, ys, F))
    if _sign_changes(F):
        assert "line" in caption and "No boundary" not in caption
        assert ("Black" in caption) == (F.ndim == 2)
    else:
        assert caption.startswith("No boundary yet")
    assert boundary_caption(None).startswith("No boundary yet")
    # with two classes labeled, a surface of one sign is no fault of the labels
    caption = boundary_caption((xs, ys, F), labeled_classes=2)
    assert caption.startswith("No boundary on the plot") != _sign_changes(F)


# -- the Review page --------------------------------------------------------------------------
def _review(db, project: str, decided: int, open_point: int) -> AppTest:
    with open_store(db) as store:
        classes = store.load_project(project).classes
        for point in (decided, open_point):
            store.append_event(project, Event("label", point, classes[0], "ada"))
            store.append_event(project, Event("label", point, classes[1], "bob"))
        store.append_event(project, Event("review", decided, classes[1], "rev"))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["project"] = project
    at.query_params["annotator"] = "rev"
    ok(at.run())
    at.switch_page("pages/review.py")
    return ok(at.run())


def test_review_shows_the_items_of_decisions_and_disagreements_as_text(db):
    texts = _texts().text.tolist()
    at = _review(db, "notes", decided=3, open_point=5)
    trail = at.dataframe[-1].value
    assert trail["point"].tolist() == [3]
    assert trail["item"].tolist() == [expected_snippet(texts[3])]
    assert "image" not in trail.columns
    assert texts[5] in [t.value for t in at.text]  # the disagreement's item, in full
    assert_shown_as_text(at, BOLD_NAME)  # the decision buttons and tables


def test_review_shows_a_thumbnail_of_each_decided_image(db, tmp_path):
    at = _review(db, "pics", decided=2, open_point=4)
    trail = at.dataframe[-1].value
    assert trail["item"].tolist() == ["pic_2.png"]
    (url,) = trail["image"].tolist()
    assert url.startswith("data:image/png;base64,")
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as im:
        shown = np.asarray(im.convert("RGB"))
    expected = _thumbnail_reference(tmp_path / "pics" / "pic_2.png")
    assert shown.shape == expected.shape == (THUMBNAIL_SIDE, THUMBNAIL_SIDE, 3)
    assert np.abs(shown.astype(int) - expected.astype(int)).max() <= 1
