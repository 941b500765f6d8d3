"""A multi-label project's Save on the Label page (Streamlit's AppTest): disabled while no class
is chosen, and storing nothing if pressed then (one stray Enter stored "none of these" while
the page said "Chosen: nothing yet"); None of these stays the way to store the empty set.
The browser's side (Enter ignored with a note) is tests/e2e/test_multi_label_browser.py."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from support.app import app_page, button, ok, plain_markdown, query_point, stored_log
from support.multi_label import CLASSES, tagged_project

from rlscore.storage import open_store
from rlscore.ui.label_sets.set_panel import NOTHING_CHOSEN, choice_key


def shown_point(point: int):
    """What :func:`choice_key` reads of a point shown (its project's uid and the point)."""
    with open_store(os.environ["RLSCORE_DB"]) as store:
        uid = store.project_uid("tags")
    return SimpleNamespace(uid=uid, point=point)


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    with open_store(path) as store:
        store.create_project(tagged_project(n=30))
    return path


def _label_page():
    at = app_page("label.py")
    at.query_params["project"] = "tags"
    at.query_params["annotator"] = "wes"
    return ok(at.run())


def test_save_is_disabled_and_stores_nothing_until_a_class_is_chosen(db):
    at = _label_page()
    point = query_point(at)
    assert button(at, "label", "save").disabled
    assert not button(at, "label", "none").disabled
    assert "Chosen: nothing yet" in [c.value for c in at.caption]
    button(at, "label", "toggle1").click()
    ok(at.run())
    assert not button(at, "label", "save").disabled
    # a press that reaches Save with nothing chosen (sent before the redraw of a toggle that
    # took the last class out) stores nothing and says why
    key = choice_key(shown_point(point))
    assert at.session_state[key] == [1]
    at.session_state[key] = []
    button(at, "label", "save").click()
    ok(at.run())
    assert stored_log(db, "tags").labels == {}
    infos = [plain_markdown(i.value) for i in at.info]
    assert NOTHING_CHOSEN in infos, infos
    assert query_point(at) == point and button(at, "label", "save").disabled
    button(at, "label", "toggle1").click()
    ok(at.run())
    button(at, "label", "save").click()
    ok(at.run())
    assert stored_log(db, "tags").labels == {point: (CLASSES[1],)}


def test_none_of_these_stores_the_empty_set(db):
    at = _label_page()
    point = query_point(at)
    button(at, "label", "none").click()
    ok(at.run())
    assert stored_log(db, "tags").labels == {point: ()}
