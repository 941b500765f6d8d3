"""Streamlit AppTest checks of the Review page: agreement, decisions, the overlap setting."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rlscore.data.samples.bundled import ensure_sample_projects
from rlscore.sessions import LabelLog
from rlscore.sessions.state.settings import project_settings, save_project_settings
from rlscore.sessions.team.agreement_tables import measure_text
from rlscore.storage import Event, open_store

REPO = Path(__file__).resolve().parents[1]
PROJECT = "two_moons"


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    with open_store(path) as store:
        ensure_sample_projects(store)
        # ada and bob agree on 0 and 1, disagree on 2 and 3; cy labels 0 only
        for point, a, b in [(0, 1, 1), (1, -1, -1), (2, 1, -1), (3, -1, 1)]:
            store.append_event(PROJECT, Event("label", point, a, "ada", seconds=2.0))
            store.append_event(PROJECT, Event("label", point, b, "bob", seconds=4.0))
        store.append_event(PROJECT, Event("label", 0, 1, "cy", seconds=1.0))
    return path


def _points(customdata) -> set[int]:
    """Point indices of a trace's customdata (plotly's typed-array encoding or a list)."""
    if isinstance(customdata, dict):
        raw = base64.b64decode(customdata["bdata"])
        return set(np.frombuffer(raw, dtype=np.dtype(customdata["dtype"])).tolist())
    return {int(v) for v in customdata}


def _review(annotator: str | None = "rev") -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = PROJECT
    if annotator:
        at.query_params["annotator"] = annotator
    at.run()
    at.switch_page("pages/review.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _log(db: Path) -> LabelLog:
    with open_store(db) as store:
        return LabelLog(store.events(PROJECT))


def test_review_page_shows_agreement_and_decides_a_disagreement(db):
    at = _review()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Points with ≥ 2 labels"] == "4"
    # ada vs bob: 2 of 4 agree, both raters 50/50 → p_o = 0.5 = p_e → κ = 0
    assert any("Disagreements (2)" in m.value for m in at.markdown)
    decide = [b for b in at.button if b.key and b.key.startswith("decide_2_")]
    assert [b.label for b in decide] == ["\\-1", "1"] or len(decide) == 2
    next(b for b in decide if b.key.startswith("decide_2_-1_")).click()
    at.run()
    assert not at.exception
    log = _log(db)
    assert log.reviews[2].annotator == "rev" and log.labels[2] == -1
    assert any("Disagreements (1)" in m.value for m in at.markdown)
    # the audit trail lists the decision; Undo reverts it
    trail = at.dataframe[-1].value
    assert trail["reviewer"].tolist() == ["rev"] and trail["point"].tolist() == [2]
    at.button(key=next(b.key for b in at.button if b.key.startswith("undo_review_"))).click()
    at.run()
    assert 2 not in _log(db).reviews


def test_a_stale_decision_is_refused_and_said(db):
    at = _review()
    button = next(b for b in at.button if b.key and b.key.startswith("decide_3_1_"))
    with open_store(db) as store:  # another reviewer decides first
        store.append_event(PROJECT, Event("review", 3, -1, "other"))
    button.click()
    at.run()
    assert _log(db).reviews[3].annotator == "other"
    assert any("Not saved" in w.value and "other" in w.value for w in at.warning)


def test_decisions_need_a_name(db):
    at = _review(annotator=None)
    assert any("Enter your name" in i.value for i in at.info)
    assert all(b.disabled for b in at.button if b.key and b.key.startswith("decide_"))


def test_overlap_setting_is_saved_for_the_project(db):
    at = _review()
    at.number_input(key="overlap_k").set_value(3)
    at.slider(key="overlap_fraction").set_value(0.5)
    at.button(key="apply_overlap").click()
    at.run()
    assert not at.exception
    with open_store(db) as store:
        s = project_settings(store, PROJECT)
    assert (s["overlap"], s["overlap_fraction"]) == (3, 0.5)
    captions = [re.sub(r"\\(.)", r"\1", c.value.replace("\u2060", "")) for c in at.caption]
    assert any("3 annotators per point on 50% of the points" in c for c in captions), captions
    saved = [re.sub(r"\\(.)", r"\1", m.value) for m in at.success]
    assert saved == ["Saved: 3 annotators per point on 50%."], saved


def test_the_per_annotator_table_names_its_columns_and_says_why_a_cell_is_empty(db):
    """It showed ``median_seconds``, ``n`` and "None" under agreement for an annotator whose
    points no one else labeled (dee, point 10 only, no time recorded)."""
    with open_store(db) as store:
        store.append_event(PROJECT, Event("label", 10, 1, "dee"))
    at = _review()
    table = next(d.value for d in at.dataframe if "Median seconds per label" in d.value.columns)
    assert table.columns.tolist() == [
        "Annotator",
        "Labels",
        "Median seconds per label",
        "Agreement with the final label",
        "Points compared",
    ]
    rows = table.set_index("Annotator").to_dict("index")
    # ada: 4 labels of 2 s, all shared; her labels are the final ones on 0, 1 only
    assert rows["ada"] == {
        "Labels": 4,
        "Median seconds per label": "2.0",
        "Agreement with the final label": rows["ada"]["Agreement with the final label"],
        "Points compared": 4,
    }
    assert rows["dee"] == {
        "Labels": 1,
        "Median seconds per label": "—",
        "Agreement with the final label": "—",
        "Points compared": 0,
    }
    captions = [re.sub(r"\\(.)", r"\1", c.value.replace("\u2060", "")) for c in at.caption]
    assert any(c.startswith("Agreement — for dee: no one else labeled") for c in captions)
    pairs = next(d.value for d in at.dataframe if "Cohen's κ" in d.value.columns)
    assert pairs.columns.tolist() == [
        "Annotator A", "Annotator B", "Points both labeled", "Cohen's κ"
    ]  # fmt: skip


def test_with_overlap_unreviewed_ties_are_left_out_of_the_agreement_and_said_so(db):
    """With two annotators per point, ada and bob's 1–1 disagreements on 2 and 3 were "decided"
    by bob's later labels: bob agreed 100 % with the final label, ada 50 %. Those ties are left
    out (both agree on 0 and 1); once a reviewer decides point 2 for ada it counts."""
    with open_store(db) as store:
        save_project_settings(store, PROJECT, {"overlap": 2})
    at = _review()
    table = next(d.value for d in at.dataframe if "Points compared" in d.value.columns)
    rows = table.set_index("Annotator").to_dict("index")
    got = {a: (r["Agreement with the final label"], r["Points compared"]) for a, r in rows.items()}
    assert got == {"ada": ("100%", 2), "bob": ("100%", 2), "cy": ("100%", 1)}
    captions = [re.sub(r"\\(.)", r"\1", c.value.replace("\u2060", "")) for c in at.caption]
    assert any(
        c.startswith("Left out of the agreement with the final label: 2 ties no reviewer decided")
        for c in captions
    ), captions
    with open_store(db) as store:
        store.append_event(PROJECT, Event("review", 2, 1, "rev"))
    at.run()
    table = next(d.value for d in at.dataframe if "Points compared" in d.value.columns)
    rows = table.set_index("Annotator").to_dict("index")
    got = {a: (r["Agreement with the final label"], r["Points compared"]) for a, r in rows.items()}
    assert got == {"ada": ("100%", 3), "bob": ("67%", 3), "cy": ("100%", 1)}
    captions = [re.sub(r"\\(.)", r"\1", c.value.replace("\u2060", "")) for c in at.caption]
    left_out = "Left out of the agreement with the final label: 1 tie "
    assert any(c.startswith(left_out) for c in captions), captions


def test_with_overlap_a_teammates_point_is_asked_blind_on_the_label_page(db):
    with open_store(db) as store:
        save_project_settings(store, PROJECT, {"overlap": 3})
        store.append_event(PROJECT, Event("label", 7, 1, "ada"))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = PROJECT
    at.query_params["annotator"] = "bob"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    # bob labeled 0 … 3 himself; 7 (ada's only) waits for a second and a third annotator
    heading = next(h.value for h in at.subheader if h.value.startswith("Next query: point #"))
    captions = " ".join(c.value for c in at.caption)
    assert heading == "Next query: point #7"
    assert "a teammate labeled it" in captions and "Predicted" not in captions
    assert not any("is labeled" in i.value for i in at.info)
    assert not any(b.disabled for b in at.button if b.key and b.key.startswith("label_"))
    assert "3 annotators per point" in captions.replace("\u2060", "")
    # the plot is blind too: point 7 is neither drawn as labeled nor tinted by a prediction
    spec = json.loads(next(c for c in at.get("plotly_chart") if "pool" in c.proto.id).proto.spec)
    drawn = {t["name"]: _points(t["customdata"]) for t in spec["data"] if "customdata" in t}
    assert 7 in drawn["unlabeled (undecided)"] and 7 in drawn["next query"]
    assert not any(7 in v for k, v in drawn.items() if k.startswith(("labeled", "predicted")))


@pytest.mark.parametrize(
    ("value", "shown"), [(float("nan"), "—"), (0.0, "0.000"), (-0.12345, "-0.123"), (1.0, "1.000")]
)
def test_agreement_measures_show_three_decimals_or_a_dash(value, shown):
    assert measure_text(value) == shown
