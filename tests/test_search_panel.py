"""The Label page's "Find items" (issue 22 item 4): the search state
(rlscore.sessions.views.search_results) against a direct scan and a brute-force nearest-neighbour
sort, the pool map's escaped hovers, and the page: search debian_games, label a result in
place, read it back from the database."""

from __future__ import annotations

import re

import numpy as np
import pytest
from reference.search import matching, nearest, nearest_by_angle
from streamlit.testing.v1 import AppTest
from support.app import REPO, TIMEOUT, ok

from rlscore.data.items.columns import ItemColumn
from rlscore.data.items.item_map import hover_texts
from rlscore.data.samples.bundled import project_from_sample
from rlscore.sessions import LabelingSession
from rlscore.sessions.views.search_results import (
    MAX_RESULTS,
    SearchError,
    similar_points,
    text_search,
)
from rlscore.storage import open_store
from rlscore.viz.figures.pool_figure import pool_figure


@pytest.fixture(scope="module")
def games():
    return project_from_sample("debian_games")


@pytest.fixture
def store(tmp_path, games):
    s = open_store(tmp_path / "labels.sqlite3")
    s.create_project(games)
    yield s
    s.close()


def test_text_search_finds_what_a_plain_scan_finds(store, games):
    s = LabelingSession(store, games.name, "random")
    r = text_search(s, "ada", "game")
    assert list(r.points) == matching(games.texts, "game")[:MAX_RESULTS]
    assert len(r.points) == MAX_RESULTS
    r = text_search(s, "ada", r"\bpuzzle|chess\b", regex=True)
    assert list(r.points) == matching(games.texts, r"\bpuzzle|chess\b", regex=True)[:MAX_RESULTS]
    assert r.points and r.labels == (None,) * len(r.points)


def test_a_plain_search_reads_regex_characters_literally(store, games):
    s = LabelingSession(store, games.name, "random")
    assert list(text_search(s, "ada", "(").points) == matching(games.texts, "(")[:MAX_RESULTS]


def test_a_bad_regular_expression_is_a_message(store, games):
    s = LabelingSession(store, games.name, "random")
    with pytest.raises(SearchError, match="not a valid regular expression"):
        text_search(s, "ada", "(unclosed", regex=True)


def test_more_like_this_is_the_brute_force_order_by_angle_for_texts(store, games):
    """A text project's neighbours are those of the smallest angle between text features
    (issue 34: precision@20 on labeled text tasks, docs/benchmarks/text.md)."""
    s = LabelingSession(store, games.name, "random")
    r = similar_points(s, "ada", 7)
    assert games.texts is not None
    assert list(r.points) == nearest_by_angle(games.X.tolist(), 7, MAX_RESULTS)
    assert list(r.points) != nearest(games.X.tolist(), 7, MAX_RESULTS)  # not the distance


def test_results_say_their_current_label(store, games):
    s = LabelingSession(store, games.name, "random")
    first = text_search(s, "ada", "game").points
    s.label(first[1], 1, annotator="ada")
    r = text_search(s, "ada", "game")
    assert r.labels[1] == 1 and r.labels[0] is None and r.seen == s.last_event_id


def test_map_hovers_show_markup_literally_escaped():
    texts = ["<b>bold</b>", "<script>alert(1)</script>", "**x**"]
    hover = hover_texts([ItemColumn("text", "text", texts)], ["a", "b", "c"])
    assert hover == ["&lt;b&gt;bold&lt;/b&gt;", "&lt;script&gt;alert(1)&lt;/script&gt;", "**x**"]
    xy = np.column_stack([np.arange(3.0), np.arange(3.0)])
    fig = pool_figure(
        xy, [0, 1], {0: 1}, np.array([1, 0, 1]), np.array([1.0, 0.9, 0.8]), query=2, hover=hover
    )
    drawn = {}
    for trace in fig.data:
        for i, text in zip(trace.customdata, trace.text, strict=True):
            assert text.startswith(hover[i])  # each point's own snippet, as escaped
            drawn[int(i)] = text
    assert sorted(drawn) == [0, 1, 2]
    # the template shows the text as data, never the raw markup
    assert all("<b>" not in t and "<script>" not in t for t in drawn.values())


def test_the_label_page_finds_games_and_labels_a_result_in_place(tmp_path, monkeypatch, games):
    db = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(db))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = "debian_games"
    ok(at.run())
    at.text_input(key="search_query").set_value("game")
    ok(at.button(key="FormSubmitter:search_form-Search").click().run())
    expected = matching(games.texts, "game")[:MAX_RESULTS]
    # class buttons: search_c<class>_<point>_<seen> (rlscore.ui.label.actions.widget_key)
    buttons = [re.fullmatch(r"search_c(-?\d+)_(\d+)_\d+", b.key or "") for b in at.button]
    keys = {(int(m[1]), int(m[2])): m[0] for m in buttons if m}
    found = sorted({point for _, point in keys})
    assert found == sorted(expected)
    point = expected[3]
    assert games.texts[point] in [t.value for t in at.text]
    ok(at.button(key=keys[1, point]).click().run())
    with open_store(db) as stored:  # read independently of the app
        events = stored.events("debian_games")
    assert [(e.point, e.label, e.annotator) for e in events if e.kind == "label"] == [
        (point, 1, "ada")
    ]
    assert "Labeled: " + games.class_text(1) in [t.value for t in at.text]


def test_a_bad_regular_expression_reads_as_typed_on_the_page(tmp_path, monkeypatch):
    monkeypatch.setenv("RLSCORE_DB", str(tmp_path / "labels.sqlite3"))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = "debian_games"
    ok(at.run())
    at.text_input(key="search_query").set_value("(game")
    at.checkbox(key="search_regex").check()
    ok(at.button(key="FormSubmitter:search_form-Search").click().run())
    shown = [w.value for w in at.warning if "regular expression" in w.value]
    assert len(shown) == 1
    # Markdown-escaped once (what Streamlit renders back to the text), not twice: the reader
    # sees "untick 'regular expression'", not backslashes
    rendered = re.sub(r"\\(.)", r"\1", shown[0])
    assert "\\" not in rendered and "untick 'regular expression'" in rendered, shown


def test_a_positive_found_by_search_starts_graph_ocl_on_a_text_project(tmp_path, monkeypatch):
    db = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(db))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = "debian_games"
    ok(at.run())
    at.text_input(key="search_query").set_value("game")
    ok(at.button(key="FormSubmitter:search_form-Search").click().run())
    for k in range(3):  # three positives found by the search, labeled in place
        key = [b.key for b in at.button if re.fullmatch(r"search_c1_\d+_\d+", b.key or "")][k]
        ok(at.button(key=key).click().run())
    ok(next(b for b in at.button if (b.key or "").startswith("propose_")).click().run())
    confirm = next(b for b in at.button if (b.key or "").startswith("confirm_"))
    proposed = [int(c.key.split("_")[-1]) for c in at.checkbox if c.key.startswith("negative_")]
    assert proposed
    ok(confirm.click().run())
    with open_store(db) as stored:
        events = stored.events("debian_games")
    labeled = {e.point: (e.label, e.annotator) for e in events if e.kind == "label"}
    assert {i: labeled[i] for i in proposed} == {i: (-1, "ada") for i in proposed}


def test_a_press_sooner_than_the_minimum_dwell_after_the_list_appeared_is_refused(
    tmp_path, monkeypatch
):
    db = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(db))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = "debian_games"
    ok(at.run())
    at.text_input(key="search_query").set_value("game")
    ok(at.button(key="FormSubmitter:search_form-Search").click().run())
    monkeypatch.setenv("RLSCORE_MIN_DWELL_MS", "3600000")  # an hour: every press is too soon
    key = next(b.key for b in at.button if re.fullmatch(r"search_c1_\d+_\d+", b.key or ""))
    ok(at.button(key=key).click().run())
    with open_store(db) as stored:
        assert [e for e in stored.events("debian_games") if e.kind == "label"] == []
    assert any("Press ignored" in m.value for m in at.info)
