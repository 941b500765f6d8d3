"""Streamlit AppTest checks of the Label, Tune and Compare pages (no browser).

Each test uses its own label database (``RLSCORE_DB`` in a temporary directory) and checks
the app's state against an independent reader of that database.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support.app import REPO, TIMEOUT
from support.app import button as _button
from support.app import ok as _ok
from support.app import plain_markdown as _plain
from support.app import query_point as _query
from support.app import stored_log as _log

from rlscore.core.kernels.functions import GRAPH_KERNELS
from rlscore.data.samples.bundled import list_samples
from rlscore.storage import open_store


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    return path


def _app(annotator: str | None = "ada") -> AppTest:
    """The app, opened with ``?annotator=…`` in the link (None: a first visit, no name)."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    if annotator is not None:
        at.query_params["annotator"] = annotator
    return at


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _progress_text(at: AppTest) -> str:
    return at.get("progress")[0].proto.text


def _back_to_label(at: AppTest) -> AppTest:
    at.switch_page("pages/label.py")
    return at


def _open(project: str, annotator: str = "ada") -> AppTest:
    at = _ok(_app(annotator).run())
    if at.session_state["params"]["project"] != project:
        at.selectbox(key="w_project").set_value(project)
        _ok(at.run())
    assert at.session_state["params"]["project"] == project
    return at


# -- rendering ------------------------------------------------------------------------------
def test_first_run_opens_a_sample_with_a_focused_arls_query(db):
    at = _ok(_app().run())
    p = at.session_state["params"]
    assert p["project"] in list_samples() and p["strategy"] == "arls-focused"
    q = _query(at)
    with open_store(db) as store:
        n = store.load_project(p["project"]).n
    assert 0 <= q < n
    assert _progress_text(at) == f"Labeled 0 of {n}"
    labels = [b.label for b in at.button]
    assert "\\-1" in labels and "1" in labels and "Skip" in labels  # Markdown-escaped


@pytest.mark.parametrize("sample", list_samples())
def test_every_page_renders_for_every_sample(db, sample):
    at = _open(sample)
    with open_store(db) as store:
        project = store.load_project(sample)
    assert _query(at) >= 0
    pca = project.X.shape[1] > 2
    captions = " ".join(c.value for c in at.caption)
    assert ("PCA projection" in captions) == pca
    if project.meta.get("image_shape"):
        assert at.session_state["params"]["project"] == "digits123"
        assert any(b.label == "one" for b in at.button)
    # labels through the oracle, so Tune has something to fit
    at.number_input(key="n_auto").set_value(6)
    _ok(at.run())
    at.button(key="auto").click()
    _ok(at.run())
    assert len(_log(db, sample).labels) == 6
    assert _progress_text(at).startswith("Labeled 6 of")

    at.switch_page("pages/tune.py")
    _ok(at.run())
    headings = [h.value for h in at.subheader]
    if len(set(_log(db, sample).labels.values())) < 2:  # e.g. imbalanced circles
        assert any("from 2 classes" in i.value for i in at.info)
    else:
        assert "Leave-one-out error vs λ" in headings
        assert "Reliability (exact LOO, labeled points)" in headings
        at.radio(key="tune_method").set_value("bayes")
        _ok(at.run())

    at.switch_page("pages/compare.py")
    _ok(at.run())
    at.multiselect[0].set_value(["arls", "random"])
    at.number_input[0].set_value(2)  # queries
    at.number_input[1].set_value(2)  # seeds
    at.button[0].click()  # the form's Run button
    _ok(at.run())
    assert "Learning curves (validation error)" in [h.value for h in at.subheader]
    table = at.session_state["compare_results"][1]
    assert len(table) == 2 * 2 * 3  # strategies × seeds × (queries + 1)

    at.switch_page("pages/review.py")
    _ok(at.run())
    assert f"Review · {sample}" in [_plain(h.value) for h in at.subheader]
    assert "### Disagreements (0)" in [m.value for m in at.markdown]  # one annotator so far

    at.switch_page("pages/data.py")
    _ok(at.run())
    assert [t.value for t in at.title] == ["Data"]
    listed = [row for df in at.dataframe for _, row in df.value.iterrows() if sample in set(row)]
    assert len(listed) == 1  # the project's row, with its 6 labels
    assert [v for k, v in listed[0].items() if "labeled" in str(k).lower()] == [6]
    # back on the Label page, the labels are still there
    at = _ok(_back_to_label(at).run())
    assert _progress_text(at).startswith("Labeled 6 of")


def test_the_annotator_is_asked_once_then_kept_in_the_link(db):
    at = _ok(_app(annotator=None).run())
    assert not any(h.value.startswith("Next query") for h in at.subheader)
    name = next(t for t in at.text_input if t.label == "Your name")
    name.set_value("  ada   lovelace ")
    next(b for b in at.button if b.label == "Start labeling").click()
    _ok(at.run())
    assert at.query_params["annotator"] == "ada lovelace"
    assert _query(at) >= 0
    assert at.text_input(key="w_annotator").value == "ada lovelace"


# -- flows ----------------------------------------------------------------------------------
def test_label_skip_undo_change_the_stored_state(db):
    at = _open("two_moons")
    q0 = _query(at)
    _button(at, "label", 1).click()  # "Label as 1"
    _ok(at.run())
    log = _log(db, "two_moons")
    assert log.labels == {q0: 1}
    assert _progress_text(at) == "Labeled 1 of 220"
    q1 = _query(at)
    assert q1 != q0

    _button(at, "skip").click()
    _ok(at.run())
    assert _log(db, "two_moons").skipped == {q1}
    assert _metric(at, "Skipped") == "1"
    q2 = _query(at)
    assert q2 not in (q0, q1)

    _button(at, "undo").click()  # reverts the skip
    _ok(at.run())
    assert _log(db, "two_moons").skipped == set()
    assert _query(at) == q1
    _button(at, "undo").click()  # reverts the label
    _ok(at.run())
    assert _log(db, "two_moons").labels == {}
    assert _query(at) == q0
    assert _button(at, "undo").disabled


def test_the_label_page_counts_one_label_in_the_singular(db):
    """It said "Auto-labeled 1 points", "As of 1 labels." and "You (ada): 1 labels"."""
    at = _open("two_moons")
    at.number_input(key="n_auto").set_value(1)
    _ok(at.run())  # the button's arguments are those of the run that drew it
    at.button(key="auto").click()
    _ok(at.run())
    assert len(_log(db, "two_moons").labels) == 1
    assert [_plain(m.value) for m in at.success] == ["Auto-labeled 1 point with the truth."]
    assert "As of 1 label." in [c.value for c in at.caption]
    _button(at, "label", 1).click()
    _ok(at.run())
    assert len(_log(db, "two_moons").labels) == 2
    captions = [_plain(c.value) for c in at.caption]
    assert any(c.startswith("You (ada): 1 label · ") for c in captions), captions
    assert "As of 2 labels." in captions


def test_undo_with_nothing_to_undo_is_refused_not_crashing(db):
    at = _open("two_moons")
    # another tab labels and undoes meanwhile; this tab still shows an enabled Undo
    _button(at, "label", 0).click()
    _ok(at.run())
    with open_store(db) as store:
        from rlscore.storage import Event

        store.append_event("two_moons", Event("undo", annotator="other tab"))
    _button(at, "undo").click()
    _ok(at.run())
    assert _log(db, "two_moons").labels == {}
    assert [_plain(w.value) for w in at.warning] == [
        "Not saved: nothing to undo: no label or skip by ada yet"
    ]


def test_clicked_point_is_labeled_instead_of_the_query(db):
    at = _open("two_moons")
    q0 = _query(at)
    pick = (q0 + 7) % 220
    at.session_state["selected"] = pick  # what a click on the plot sets
    _ok(at.run())
    assert f"Selected point #{pick}" in [h.value for h in at.subheader]
    _button(at, "label", 0).click()
    _ok(at.run())
    assert _log(db, "two_moons").labels == {pick: -1}
    # back to the proposed query afterwards
    assert "selected" not in at.session_state
    _query(at)
    # relabeling a labeled point
    at.session_state["selected"] = pick
    _ok(at.run())
    assert _button(at, "label", 0).disabled and not _button(at, "label", 1).disabled
    _button(at, "label", 1).click()
    _ok(at.run())
    assert _log(db, "two_moons").labels == {pick: 1}


def test_annotator_and_time_are_recorded(db):
    at = _open("two_moons")
    at.text_input(key="w_annotator").set_value("alice")
    _ok(at.run())
    q = _query(at)
    _button(at, "label", 0).click()
    _ok(at.run())
    event = _log(db, "two_moons").label_events[q]
    assert event.annotator == "alice"
    assert event.seconds is not None and event.seconds >= 0
    assert event.params["strategy"] == "arls-focused" and event.params["sigma"] == 2.0


def test_parameter_changes_rebuild_the_engine_and_keep_the_labels(db):
    at = _open("two_moons")
    at.button(key="auto").click()
    _ok(at.run())
    labels = _log(db, "two_moons").labels
    assert len(labels) == 10
    assert _metric(at, "λ in effect") == "0.1"

    at.slider(key="w_lam").set_value(0.5)  # log10 λ
    _ok(at.run())
    assert at.session_state["params"]["lam"] == pytest.approx(10**0.5)
    assert _metric(at, "λ in effect") == "3.16"
    assert _progress_text(at) == "Labeled 10 of 220"

    at.selectbox(key="w_strategy").set_value("uncertainty")
    _ok(at.run())
    assert at.session_state["params"]["strategy"] == "uncertainty"
    assert any("· score " in c.value for c in at.caption)

    at.toggle(key="w_lam_auto").set_value(True)
    _ok(at.run())
    assert at.slider(key="w_lam").disabled
    # 10 labels: λ was re-chosen by LOO at 4 and 8 labels
    assert _metric(at, "λ in effect") != "3.16"
    assert _log(db, "two_moons").labels == labels

    # σ keeps its exact project value until the slider moves
    assert at.session_state["params"]["sigma"] == 2.0
    at.slider(key="w_sigma").set_value(0.0)
    _ok(at.run())
    assert at.session_state["params"]["sigma"] == 1.0


def test_budget_stops_the_queries(db):
    at = _open("two_moons")
    at.number_input(key="w_budget").set_value(1)
    _ok(at.run())
    _button(at, "label", 0).click()
    _ok(at.run())
    assert _progress_text(at) == "Labeled 1 of 1"
    assert any("budget is reached" in s.value for s in at.success)
    assert not any(b.label.startswith("Label as") for b in at.button)


def test_switching_project_and_pages_keeps_the_choice(db):
    at = _open("spheres")
    assert at.session_state["params"]["sigma"] == 1.7
    at.switch_page("pages/tune.py")
    _ok(at.run())
    assert at.session_state["params"]["project"] == "spheres"
    assert any("Label at least 3 points" in i.value for i in at.info)
    at = _ok(_back_to_label(at).run())
    assert at.session_state["params"]["project"] == "spheres"
    assert at.selectbox(key="w_project").value == "spheres"


def test_tune_apply_sets_the_session_parameters(db):
    at = _open("two_moons")
    at.button(key="auto").click()
    _ok(at.run())
    at.switch_page("pages/tune.py")
    _ok(at.run())
    at.slider(key="tune_log_lam").set_value(0.0)
    at.slider(key="tune_log_sigma").set_value(0.5)
    _ok(at.run())
    at.button(key="apply").click()
    _ok(at.run())
    p = at.session_state["params"]
    assert p["lam"] == pytest.approx(1.0) and p["sigma"] == pytest.approx(10**0.5)
    assert not p["lam_auto"]
    at = _ok(_back_to_label(at).run())
    assert _metric(at, "λ in effect") == "1"
    # applying the automatic λ uses the LOO choice shown on the page
    at.switch_page("pages/tune.py")
    _ok(at.run())
    _ok(at.run())
    auto = float(at.button(key="apply_auto").label.rsplit("=", 1)[1])
    at.button(key="apply_auto").click()
    _ok(at.run())
    assert at.session_state["params"]["lam"] == pytest.approx(auto, rel=5e-3)


def test_deleted_project_falls_back_without_error(db):
    at = _open("spheres")
    with open_store(db) as store:
        store.delete_project("spheres")
    _ok(at.run())
    assert at.session_state["params"]["project"] != "spheres"
    # the tab's buttons are inert until the annotator chooses to go on (issue 27, item 2)
    assert any("spheres was deleted" in w.value for w in at.warning)
    assert not any(b.key and b.key.startswith("label_") for b in at.button)
    # another run (a teammate's poll, a key press) does not make the fallback the tab's
    # project: the notice holds until the annotator chooses
    _ok(at.run())
    assert any("spheres was deleted" in w.value for w in at.warning)
    assert not any(b.key and b.key.startswith("label_") for b in at.button)
    at.button(key="continue_with_project").click()
    _ok(at.run())
    assert _query(at) >= 0


def test_a_project_chosen_in_the_sidebar_after_a_delete_is_labeled(db):
    at = _open("spheres")
    with open_store(db) as store:
        store.delete_project("spheres")
    _ok(at.run())
    assert any("spheres was deleted" in w.value for w in at.warning)
    at.sidebar.selectbox(key="w_project").select("circles")
    _ok(at.run())
    assert not any("was deleted" in w.value for w in at.warning)
    assert at.session_state["params"]["project"] == "circles" and _query(at) >= 0


def test_labels_from_another_tab_appear_on_rerun(db):
    at = _open("two_moons")
    q = _query(at)
    with open_store(db) as store:
        from rlscore.storage import Event

        store.append_event("two_moons", Event("label", point=q, label=1, annotator="bob"))
    _ok(at.run())
    assert _progress_text(at) == "Labeled 1 of 220"
    assert _query(at) != q


def test_labels_survive_a_fresh_app_session(db):
    at = _open("two_moons")
    _button(at, "label", 1).click()
    _ok(at.run())
    first = _log(db, "two_moons").labels
    q_next = _query(at)
    again = _open("two_moons")  # a new browser session (same server process)
    assert _progress_text(again) == "Labeled 1 of 220"
    assert _query(again) == q_next
    assert _log(db, "two_moons").labels == first
    assert 0 <= float(_metric(again, "Selection criterion (estimated risk)")) <= 220


@pytest.mark.parametrize(
    ("strategy", "name", "words"),
    [
        ("arls", "Selection criterion (estimated risk)", "not a count of errors"),
        ("aopt-klr", "Predictive variance (A-optimal)", "variance"),
    ],
)
def test_the_risk_metric_is_named_for_the_strategy_that_estimates_it(db, strategy, name, words):
    # review defect 9: A-optimal KLR showed a variance sum of 461 as the "estimated risk" of
    # a 300-point pool, i.e. as an error count
    at = _open("two_moons")
    at.selectbox(key="w_strategy").set_value(strategy)
    _ok(at.run())
    metric = next(m for m in at.metric if m.label == name)
    assert words in metric.proto.help
    assert not any(m.label == "Estimated risk of the pool" for m in at.metric)
    assert any(e.label == f"{name} after each label" for e in at.expander)  # its curve


def test_two_tabs_of_one_annotator_show_one_query_and_a_stale_press_is_ignored(db):
    a, b = _open("two_moons"), _open("two_moons")
    q0 = _query(a)
    assert _query(b) == q0  # the same annotator's claim: the same point in both tabs
    _button(a, "label", 1).click()
    _ok(a.run())
    # tab b still shows q0 unlabeled; its press is bound to q0 as shown, which changed since
    _button(b, "label", 0).click()
    _ok(b.run())
    with open_store(db) as store:
        events = [e for e in store.events("two_moons") if e.kind == "label"]
    assert [(e.point, e.label) for e in events] == [(q0, 1)]
    # the same annotator's different label from another tab: offered as a relabel
    assert any(f"after point #{q0} was shown" in w.value for w in b.warning)
    assert any(x.key and x.key.startswith("relabel_") for x in b.button)
    q1 = _query(b)
    assert q1 != q0
    _button(b, "label", 1).click()
    _ok(b.run())
    _ok(a.run())
    assert _progress_text(a) == "Labeled 2 of 220"
    assert _log(db, "two_moons").labels == {q0: 1, q1: 1}


def test_two_annotators_are_shown_different_points(db):
    a, b = _open("two_moons", "ada"), _open("two_moons", "bob")
    assert _query(a) != _query(b)
    with open_store(db) as store:
        claims = {who for who, _ in store.claims("two_moons").values()}
    assert claims == {"ada", "bob"}


def test_every_strategy_and_kernel_renders_and_labels(db):
    at = _open("two_moons")
    at.button(key="auto").click()
    _ok(at.run())
    n = len(_log(db, "two_moons").labels)
    for strategy in ("arls-weighted", "aopt-klr", "muq-klr", "uncertainty", "entropy", "random",
                     "lgc", "arls", "arls-focused"):  # fmt: skip
        at.selectbox(key="w_strategy").set_value(strategy)
        _ok(at.run())
        assert not at.error, [e.value for e in at.error]
        _button(at, "label", 0).click()
        _ok(at.run())
        n += 1
        assert _progress_text(at) == f"Labeled {n} of 220", strategy
    for kernel in ("linear", "polynomial", "regularized", "normalized_regularized", "diffusion",
                   "von_neumann"):  # fmt: skip
        at.selectbox(key="w_kernel").set_value(kernel)
        _ok(at.run())
        assert not at.error, (kernel, [e.value for e in at.error])
        assert at.slider(key="w_sigma").disabled == (kernel != "rbf")
        assert at.number_input(key="w_graph_t").disabled == (kernel not in GRAPH_KERNELS)
        _query(at)


def test_a_sigma_outside_the_slider_range_is_kept_exactly_a_lam_outside_is_ignored(db):
    """σ above the slider's range is kept (the data-adaptive default can lie there); a λ
    outside the app's λ range (stored by an older version) falls back to the default, and
    the sidebar says why (rlscore.sessions.state.settings.check_lam_in_range)."""
    at = _open("two_moons")
    at.button(key="auto").click()
    _ok(at.run())
    with open_store(db) as store:  # behind the settings' back, as an older version could
        store.save_settings("two_moons", {"lam": 1e-6, "sigma": 250.0})
    _ok(at.run())
    assert at.slider(key="w_sigma").value == 2.0
    assert at.session_state["params"]["sigma"] == 250.0
    assert at.session_state["params"]["lam"] == 0.1  # the sample's
    assert "lam must be within 0.0001 … 1000" in at.session_state["ignored_settings"]["lam"]
    at.switch_page("pages/tune.py")
    _ok(at.run())
    assert "σ = 250 (session 250)" in [c.value for c in at.caption]


def test_settings_are_the_projects_and_survive_a_new_browser_session(db):
    at = _open("two_moons")
    at.selectbox(key="w_strategy").set_value("entropy")
    at.slider(key="w_sigma").set_value(0.5)
    _ok(at.run())
    q = _query(at)
    with open_store(db) as store:
        saved = store.load_settings("two_moons")
    assert saved["strategy"] == "entropy" and saved["sigma"] == pytest.approx(10**0.5)
    again = _open("two_moons")  # a reload: a new browser session, same annotator
    assert again.session_state["params"]["strategy"] == "entropy"
    assert _query(again) == q
    other = _open("two_moons", "bob")  # another annotator sees the project's settings too
    assert other.selectbox(key="w_strategy").value == "entropy"


# -- a page run on its own (rlscore.ui.shell.navigation) -------------------------------------------
SIGN_IN_SECRETS = {
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "x" * 32,
    "client_id": "a",
    "client_secret": "b",
    "server_metadata_url": "https://login.example.org/.well-known/openid-configuration",
}


@pytest.mark.parametrize("page", ["admin.py", "data.py", "review.py", "tune.py"])
def test_a_page_run_on_its_own_shows_only_the_apps_sign_in(db, page):
    # as Streamlit runs pages/<page> itself on a fresh server's deep link: app.py's gate first
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "mallory"
    at.query_params["project"] = "two_moons"
    at.secrets["auth"] = SIGN_IN_SECRETS
    _ok(at.run())
    assert [b.label for b in at.button] == ["Sign in"]
    assert [t.value for t in at.title] == ["rlscore"]  # the sign-in screen's, no page's
    assert not at.text_input and not at.sidebar.selectbox
    assert "params" not in at.session_state  # no page ran, not even its sidebar


def test_a_page_run_on_its_own_in_local_mode_runs_inside_the_app(db):
    at = AppTest.from_file(str(REPO / "pages" / "data.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    _ok(at.run())
    # the app's gate (local mode's notice) and one page of its navigation, drawn once
    assert any("Local mode" in c.value for c in at.sidebar.caption)
    assert len(at.sidebar.text_input) == 1
    assert at.session_state["params"]["annotator"] == "ada"


def test_a_stored_class_weight_naming_no_class_is_named_and_the_project_opens(db):
    """A mapping stored before the settings checked it (here class '7' of a project whose
    classes are -1 and 1) does not close the project: the Label page opens with the default
    class weights and the sidebar names the class weights as the setting not used."""
    at = _ok(_app().run())
    project = at.session_state["params"]["project"]
    with open_store(db) as store:
        classes = store.load_project(project).classes
        assert 7 not in classes
        store.save_settings(project, {"class_weight": {"7": 5}})
    _ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert _query(at) >= 0
    shown = [_plain(w.value) for w in at.sidebar.warning]
    assert shown == [
        f"The saved class_weight is not used: class_weight names ['7'], which are not classes "
        f"of this project: its classes are {classes}. Its default is in force until it is "
        "chosen again here."
    ], shown


def test_a_class_weight_mapping_is_shown_as_custom_and_kept_until_another_is_chosen(db):
    """Weights per class set from Python or the CLI are not "none": the sidebar's radio shows
    them as a third choice, its caption names them, and a rerun leaves them in force until
    "none" or "balanced" is chosen."""
    at = _ok(_app().run())
    project = at.session_state["params"]["project"]
    with open_store(db) as store:
        first, second = store.load_project(project).classes[:2]
        store.save_settings(project, {"class_weight": {str(first): 3, str(second): 1}})
    _ok(at.run())
    radio = at.sidebar.radio(key="w_class_weight")
    assert radio.options == ["none", "balanced", "custom"] and radio.value == "custom"
    shown = " ".join(_plain(c.value) for c in at.sidebar.caption)
    assert f"{first}: 3" in shown and f"{second}: 1" in shown, shown
    _ok(at.run())
    assert at.session_state["params"]["class_weight"] == {first: 3, second: 1}
    radio = at.sidebar.radio(key="w_class_weight")
    _ok(radio.set_value("balanced").run())
    assert at.session_state["params"]["class_weight"] == "balanced"
    assert at.sidebar.radio(key="w_class_weight").options == ["none", "balanced"]


def _source(at: AppTest) -> str:
    """The query's caption: its id and the strategy (or rule) that proposed it."""
    return next(c.value for c in at.caption if c.value.startswith("id ") and " · " in c.value)


def test_after_a_change_of_strategy_every_tab_is_shown_the_new_strategys_query(db):
    ada = _ok(_app("ada").run())
    project = ada.session_state["params"]["project"]
    bob = _ok(_app("bob").run())
    assert "proposed by Focused ARLS" in _source(bob)
    ada.sidebar.selectbox(key="w_strategy").set_value("uncertainty")
    _ok(ada.run())
    assert _source(ada).endswith("proposed by Uncertainty sampling")
    with open_store(db) as store:
        assert "bob" not in {who for who, _ in store.claims(project).values()}
    _ok(bob.run())
    assert _source(bob).endswith("proposed by Uncertainty sampling"), _source(bob)
    # bob's claim went with the old strategy: his query was chosen anew, by the new one
    with open_store(db) as store:
        assert store.claims(project)[_query(bob)][0] == "bob"


def test_a_right_to_left_override_in_the_address_cannot_reverse_the_notice(db):
    """``?project=%E2%80%AEevil ton si siht``: the override reversed the rest of the page's
    own sentence on screen ("There is no project nac uoy taht …"); the name is quoted
    without its bidirectional controls."""
    at = _app()
    at.query_params["project"] = "\u202eevil ton si siht"
    _ok(at.run())
    said = [_plain(w.value) for w in (*at.info, *at.warning)]
    notice = next(t for t in said if t.startswith("There is no project"))
    assert "evil ton si siht" in notice
    assert not any(ch in notice for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def test_a_link_naming_two_projects_opens_the_first_and_says_so(db):
    """``?project=two_moons&project=circles`` silently opened circles (the last) and kept
    both in the address."""
    at = _app()
    at.query_params["project"] = ["two_moons", "circles"]
    _ok(at.run())
    said = [_plain(i.value) for i in at.info]
    assert "The address names several projects (two_moons, circles); showing two_moons." in said
    assert at.session_state["params"]["project"] == "two_moons"
    assert at.query_params["project"] in ("two_moons", ["two_moons"])  # one project left


def test_an_empty_project_in_the_address_is_said_to_name_none(db):
    """``?project=`` with nothing after it: the page says the address names no project (it
    said "There is no project  that you can open", the name missing) and opens the default."""
    at = _app()
    at.query_params["project"] = ""
    _ok(at.run())
    said = [_plain(i.value) for i in at.info]
    assert "There is no project name in the address; showing two_moons." in said, said
    assert at.session_state["params"]["project"] == "two_moons"
