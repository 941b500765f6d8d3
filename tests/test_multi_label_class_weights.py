"""Class weights in a multi-label project (issue 38 item 2): the project's "balanced" setting
reaches the multi-label engine, whose predictions equal weighted from-scratch solves of the
session's labels, and the Label page runs on it (Streamlit's AppTest); a mapping class ->
weight, which a multi-label strategy does not take, is refused with a message naming it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from reference.multilabel import balanced_weights, naive_predictions
from streamlit.testing.v1 import AppTest
from support.app import app_page, ok
from support.multi_label import CLASSES, labeled_tags_db

from rlscore.core.kernels.functions import rbf_kernel
from rlscore.sessions import LabelingSession, save_project_settings
from rlscore.storage import open_store

REPO = Path(__file__).resolve().parents[1]
SETS = [["news"], ["sports", "tech"], [], ["news", "tech"], ["sports"]]


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    return labeled_tags_db(path, SETS * 2)


def test_balanced_weights_reach_the_engine_and_the_label_page(db):
    with open_store(db) as store:
        s = LabelingSession(store, "tags", lam=0.5, class_weight="balanced", snapshots=False)
        assert s.engine.get_params()["class_weight"] == "balanced"
        labeled = list(s.labels)
        sets = [s.labels[i] for i in labeled]
        K = rbf_kernel(s.project.X, sigma=s.engine.get_params()["sigma"])
        A = balanced_weights(sets, CLASSES)
        ref = naive_predictions(K, labeled, sets, CLASSES, 0.5, A)
        np.testing.assert_allclose(s.engine.decision_function(), ref, atol=1e-8)
        save_project_settings(store, "tags", {"class_weight": "balanced"})
    at = app_page("label.py")
    at.query_params["project"] = "tags"
    at.query_params["annotator"] = "ada"
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert at.sidebar.radio(key="w_class_weight").value == "balanced"


def test_a_weight_mapping_is_refused_with_a_message(db):
    with open_store(db) as store:
        with pytest.raises(ValueError, match="class_weight of a multi-label project"):
            LabelingSession(store, "tags", lam=0.5, class_weight={"news": 3.0}, snapshots=False)
        with pytest.raises(ValueError, match="class_weight of a multi-label project"):
            save_project_settings(store, "tags", {"class_weight": {"news": 3.0}})
        assert store.load_settings("tags") is None  # nothing saved
        store.save_settings("tags", {"class_weight": {"news": 3.0}})  # saved before the check
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = "tags"
    at.query_params["annotator"] = "ada"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    # the project opens with its default class weights; the sidebar says which setting is unused
    assert not at.error, [e.value for e in at.error]
    # Markdown escaped, a word joiner after each colon
    shown = [w.value.replace("\\", "").replace("\u2060", "") for w in at.sidebar.warning]
    assert any(
        m.startswith("The saved class_weight is not used: class_weight of a multi-label project "
                     "must be none or 'balanced'") for m in shown
    ), shown  # fmt: skip
