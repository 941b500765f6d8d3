"""Roles on the Data, Tune, Review and Label pages in Streamlit's AppTest.

A project with an owner alice, an annotator bob and a reviewer carol. A button the user may
not use is disabled with the role it needs; the same action forced (the page's callback called
straight with the user, or the engine function) is refused with that role's message and
writes nothing; what is allowed is written, and the audit names who did it. The database is
read independently (``open_store``).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support.access import team_database
from support.app import REPO, button, ok, query_point, stored_log
from support.markdown import plain

from rlscore.sessions.state.settings import project_settings, save_project_settings
from rlscore.sessions.team import permissions
from rlscore.storage import open_store

PROJECT = "moons"


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    # a disagreement for the Review page: bob and alice differ on point 2
    team_database(path, PROJECT, [(0, 1, "bob"), (1, -1, "bob"), (2, 1, "bob"), (2, -1, "alice")])
    return path


def page(path: str, user: str | None) -> AppTest:
    """``pages/<path>`` through the app's navigation, as ``user``, on the project."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = PROJECT
    if user:
        at.query_params["annotator"] = user
    at.run()
    at.switch_page(f"pages/{path}")
    return ok(at.run())


def data_page(user: str | None) -> AppTest:
    at = page("data.py", user)
    at.selectbox(key="chosen").select(PROJECT)
    return ok(at.run())


def messages(at: AppTest) -> str:
    return " ".join(plain(a.value) for a in [*at.success, *at.info, *at.warning, *at.error])


def _callback_script(module: str, name: str, args: tuple, state: dict) -> None:
    """A Streamlit script calling a page callback straight (a crafted call), then showing
    what it flashed."""
    import importlib

    import streamlit as st

    from rlscore.ui.shell.flash import show_flash

    st.session_state.update(state)
    result = getattr(importlib.import_module(module), name)(*args)
    show_flash()
    if isinstance(result, str):  # what a download would have given
        st.text(result)


def crafted(module: str, name: str, *args, **state) -> AppTest:
    """Run callback ``module.name(*args)`` straight with widget values ``state``."""
    at = AppTest.from_function(
        _callback_script, args=(module, name, args, state), default_timeout=60
    )
    return ok(at.run())


def audit_of(db: Path) -> list[tuple[str, str]]:
    """(actor, action) of the project's audit, oldest first."""
    with open_store(db) as store:
        return [(r.actor, r.action) for r in store.audit(PROJECT)]


def downloads(at: AppTest) -> list:
    return list(at.get("download_button"))


# -- bob, an annotator ----------------------------------------------------------------------
def test_an_annotator_cannot_delete_or_export(db):
    at = data_page("bob")
    assert at.button(key="delete").disabled
    assert "owner role" in at.button(key="delete").help
    assert at.text_input(key="confirm_delete").disabled
    exports = downloads(at)
    assert len(exports) == 8 and all(b.proto.disabled for b in exports)
    assert all("owner role" in b.proto.help for b in exports)
    # forced: the callbacks called straight with bob
    at = crafted("rlscore.ui.forms.admin", "delete_project", PROJECT, "bob", confirm_delete=PROJECT)
    assert "needs the owner role" in messages(at)
    with open_store(db) as store:
        assert PROJECT in store.list_projects()
    at = crafted("rlscore.ui.forms.admin", "export_file", PROJECT, "bob", "csv", "labels")
    downloaded = at.text[0].value
    assert "needs the owner role" in downloaded
    assert downloaded.startswith("not exported: ") and downloaded.count("\n") <= 1  # no labels
    assert ("bob", "export") not in audit_of(db)
    with open_store(db) as store, pytest.raises(permissions.PermissionDeniedError, match="owner"):
        permissions.delete_project(store, PROJECT, "bob")


#: sidebar settings no other setting disables
SIDEBAR_SETTINGS = ("w_strategy", "w_kernel", "w_lam_auto", "w_class_weight", "w_budget")


def sidebar_settings_disabled(at: AppTest) -> list[bool]:
    widgets = {w.key: w for w in at.sidebar if getattr(w, "key", None) in SIDEBAR_SETTINGS}
    assert set(widgets) == set(SIDEBAR_SETTINGS)
    return [widgets[k].disabled for k in SIDEBAR_SETTINGS]


def test_an_annotator_cannot_save_settings(db):
    before = project_settings(open_store(db), PROJECT)
    at = page("label.py", "bob")  # the sidebar shows the settings, and says who may change them
    assert all(sidebar_settings_disabled(at))
    assert "needs the owner role" in " ".join(plain(c.value) for c in at.sidebar.caption).lower()
    at = page("tune.py", "bob")
    assert at.button(key="apply").disabled and "owner role" in at.button(key="apply").help
    at = page("review.py", "bob")
    assert at.button(key="apply_overlap").disabled
    # forced: the sidebar's callback of the σ slider, as bob (Tune's "Apply" saves alike,
    # through rlscore.ui.shell.params.update_params)
    at = crafted(
        "rlscore.ui.shell.sidebar",
        "_changed",
        "sigma",
        w_sigma=0.2,
        annotator="bob",
        project=PROJECT,
    )
    assert "needs the owner role" in messages(at)
    assert project_settings(open_store(db), PROJECT) == before
    with pytest.raises(permissions.PermissionDeniedError, match="owner role"):
        save_project_settings(open_store(db), PROJECT, {"sigma": 1.5}, user="bob")


# -- carol, a reviewer ----------------------------------------------------------------------
def test_a_reviewer_decides_reviews_but_cannot_change_settings(db):
    at = page("review.py", "carol")
    decide = [b for b in at.button if b.key and b.key.startswith("decide_2_")]
    assert decide and not any(b.disabled for b in decide)
    assert at.button(key="apply_overlap").disabled
    assert "owner role" in at.button(key="apply_overlap").help
    ok(next(b for b in decide if b.key.startswith("decide_2_1_")).click().run())
    assert stored_log(db, PROJECT).reviews[2].annotator == "carol"
    before = project_settings(open_store(db), PROJECT)
    at = crafted(
        "rlscore.ui.forms.review",
        "apply_overlap",
        "k",
        "f",
        k=2,
        f=0.5,
        annotator="carol",
        project=PROJECT,
    )
    assert "needs the owner role" in messages(at)
    assert project_settings(open_store(db), PROJECT) == before


def _page_text(at: AppTest) -> str:
    """Everything the page shows as text: markdown, captions, messages and table cells."""
    tables = [df.value.to_csv() for df in at.dataframe]
    texts = [plain(e.value) for e in [*at.markdown, *at.caption, *at.text, *at.subheader]]
    return " ".join([messages(at), *texts, *tables])


def test_an_annotator_cannot_decide_reviews_or_read_the_agreement(db):
    at = page("review.py", "bob")
    # a tester saw the disagreement on point 2 with alice's name and label, as annotator bob
    # (and, three annotators a point, a point still waiting for his own blind label)
    assert not [b for b in at.button if b.key and b.key.startswith("decide_")]
    shown = _page_text(at)
    assert "alice" not in shown and "#2" not in shown
    assert "Needs the reviewer role" in messages(at)
    assert not at.metric  # no agreement figures
    carol = _page_text(page("review.py", "carol"))  # the reviewer reads them
    assert "alice" in carol and "#2" in carol
    at = crafted("rlscore.ui.forms.review", "decide", PROJECT, 2, 1, "bob", 10**9, "1")
    assert "needs the reviewer role" in messages(at)
    assert 2 not in stored_log(db, PROJECT).reviews


def test_an_annotator_labels_the_point_shown(db):
    at = page("label.py", "bob")
    point = query_point(at)
    ok(button(at, "label", 1).click().run())  # class 1 of -1, 1
    assert stored_log(db, PROJECT).annotations[point]["bob"].label == 1


# -- an outsider ----------------------------------------------------------------------------
def test_an_outsider_gets_no_point_on_the_label_page(db):
    at = page("label.py", "mallory")
    assert "'mallory' may not label points" in messages(at)
    assert "needs the annotator role" in messages(at)
    # said once (the query panel), not again by the plot, which draws the pool without a query
    assert messages(at).count("may not label points") == 1
    # the pool plot: st.plotly_chart at the tab's first draw, the live plot from its second on
    # (here: app.py's run drew it first; rlscore.ui.figures.live_plot)
    assert any(c.proto.id.endswith("-pool_live") for c in at.get("bidi_component"))
    assert not [b for b in at.button if b.key and b.key.startswith("label_")]
    with open_store(db) as store:
        assert all(who != "mallory" for who, _ in store.claims(PROJECT).values())


# -- alice, the owner -----------------------------------------------------------------------
def test_the_owner_does_all_and_the_audit_names_her(db):
    at = data_page("alice")
    assert not any(b.proto.disabled for b in downloads(at))
    at = crafted("rlscore.ui.forms.admin", "export_file", PROJECT, "alice", "csv", "labels")
    rows = list(csv.DictReader(io.StringIO(at.text[0].value)))
    assert len(rows) == 3  # the labeled points, with the accuracy estimate at export time
    assert all(r["accuracy_labels"] == "3" for r in rows)
    at = crafted("rlscore.ui.forms.admin", "export_file", PROJECT, "alice", "json", "audit")
    assert '"action": "export"' in at.text[0].value  # the audit travels with the labels
    # the audit alone is a read: it was recorded as a labels export (an exploratory test)
    with open_store(db) as store:
        before = [(r.action, r.actor) for r in store.audit(PROJECT)]
    for fmt in ("json", "jsonl", "csv"):
        crafted("rlscore.ui.forms.admin", "export_file", PROJECT, "alice", fmt, "audit")
    with open_store(db) as store:
        assert [(r.action, r.actor) for r in store.audit(PROJECT)] == before
    at = crafted("rlscore.ui.forms.admin", "export_file", PROJECT, "bob", "json", "audit")
    assert at.text[0].value.startswith("not exported:") and "owner role" in at.text[0].value
    label_page = page("label.py", "alice")
    assert not any(sidebar_settings_disabled(label_page))
    # the oracle is no member: auto-labeling is off in a team's project, even for its owner
    auto = label_page.button(key="auto")
    assert auto.disabled and "without members" in auto.help
    at = page("tune.py", "alice")
    assert not at.button(key="apply").disabled
    # a λ to apply (an unchanged one records nothing); the button takes the run's values
    ok(at.slider(key="tune_log_lam").set_value(-1.5).run())
    ok(at.button(key="apply").click().run())
    # the Admin page's audit trail shows each action with who did it
    audit = page("admin.py", "alice").dataframe[0].value
    shown = set(zip(audit["who"], audit["action"], strict=True))
    assert {("alice", "export"), ("alice", "settings")} <= shown
    assert any("with the accuracy estimate" in w for w in audit["what"])
    at = data_page("alice")
    at.text_input(key="confirm_delete").input(PROJECT)
    ok(at.run())
    ok(at.button(key="delete").click().run())
    assert "restore it with its labels on the Admin page" in messages(at)
    assert "Its owners can restore it" in messages(at)  # not anyone: it has members
    actions = audit_of_any(db)
    assert ("alice", "export") in actions
    assert ("alice", "settings") in actions
    assert ("alice", "delete") in actions


def audit_of_any(db: Path) -> list[tuple[str, str]]:
    """(actor, action) of the audit of the deleted project PROJECT."""
    with open_store(db) as store:
        (trashed,) = [t for t in store.trashed_projects() if t["name"] == PROJECT]
        return [(r.actor, r.action) for r in store.audit(uid=trashed["uid"])]


def test_an_annotators_label_page_names_no_teammate(db):
    # a tester's Label page said "You (bob): 7 labels · bob 7, alice 6" to annotator bob
    bob = _page_text(page("label.py", "bob"))
    assert "You (bob): 3 labels" in bob and "alice" not in bob
    carol = _page_text(page("label.py", "carol"))  # a reviewer sees who labeled how much
    assert "bob 3" in carol and "alice 1" in carol
