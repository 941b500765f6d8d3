"""Reads on the pages with sign-in (issue 34 item 1), in Streamlit's AppTest: a signed-in
non-member neither lists nor opens a project with members — not from the sidebar, the Data
page's table, nor a deep link — and is told so neutrally (an info, never an error box); the
members' addresses and the audit are shown to owners only; in local mode every project is
read as before.

AppTest cannot sign in through a provider, so the sign-in is stood in for inside
:mod:`rlscore.ui.shell.auth` (its ``[auth]`` section and the ID token's claims); the browser
test (tests/e2e/test_read_permissions_browser.py) signs in for real. The database is the page
permission tests' team (alice owner, bob annotator, carol reviewer of ``private``) beside the
open samples (``private`` is named so that no sample name contains it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.access import team_database
from support.app import app_page, ok
from support.markdown import plain

from rlscore.sessions.team import permissions
from rlscore.storage import open_store
from rlscore.ui.shell import auth

PROJECT = "private"


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    team_database(path, PROJECT, [(0, 1, "bob"), (1, -1, "carol")])
    return path


@pytest.fixture
def signed_in(monkeypatch):
    """``signed_in(user)``: the app's sign-in is configured and ``user`` signed in."""

    def sign_in(user: str) -> None:
        provider = {"client_id": "a", "server_metadata_url": "https://idp.invalid/"}
        monkeypatch.setattr(auth, "_auth_section", lambda: provider)
        monkeypatch.setattr(auth, "_logged_in", lambda: True)
        claims = {"email": user, "email_verified": True, "sub": user, "name": user}
        monkeypatch.setattr(auth, "_claims", lambda: claims)

    return sign_in


def page(name: str, project: str | None = PROJECT):
    at = app_page(name)
    if project is not None:
        at.query_params["project"] = project
    return ok(at.run())


def said(at) -> str:
    return " ".join(plain(a.value) for a in [*at.success, *at.info, *at.warning, *at.error])


def options(at) -> list[str]:
    return list(at.sidebar.selectbox(key="w_project").options)


def everything_shown(at) -> str:
    """Every text, table cell and option the page drew (what a user could read)."""
    parts = [said(at), *(plain(m.value) for m in at.markdown), *(t.value for t in at.text)]
    parts += [str(c.value) for c in at.caption] + [str(d.value) for d in at.dataframe]
    parts += [str(o) for s in at.selectbox for o in s.options]
    return "\n".join(parts)


@pytest.mark.parametrize("name", ["label.py", "tune.py", "review.py", "compare.py", "admin.py"])
def test_a_non_member_neither_lists_nor_opens_the_project(db, signed_in, name):
    signed_in("eve@example.org")
    at = page(name)
    assert not at.error  # a refusal, not a failure
    assert at.session_state["params"]["project"] != PROJECT
    assert not any(PROJECT in o for o in options(at))
    assert f"no project {PROJECT} that you can open" in said(at)
    assert any(PROJECT in i.value for i in at.info)  # said neutrally
    shown = everything_shown(at)
    assert "alice" not in shown and "bob" not in shown and "carol" not in shown


def test_a_non_member_sees_no_row_of_it_on_the_data_page(db, signed_in):
    signed_in("eve@example.org")
    at = page("data.py", project=None)
    assert not at.error
    (table,) = at.dataframe
    listed = list(table.value["project"])
    with open_store(db) as store:
        assert listed == [p for p in store.list_projects() if p != PROJECT]
    assert PROJECT not in at.selectbox(key="chosen").options


def test_the_data_page_says_a_refused_link_itself(db, signed_in):
    # it said nothing and the next page said it (an exploratory test)
    signed_in("eve@example.org")
    at = page("data.py")
    assert not at.error
    assert f"no project {PROJECT} that you can open" in said(at)
    assert at.selectbox(key="chosen").value != PROJECT
    at.switch_page("pages/review.py")
    assert "that you can open" not in said(ok(at.run()))  # said once, where it happened


@pytest.mark.parametrize("user", ["alice", "bob", "carol"])
def test_members_open_it(db, signed_in, user):
    signed_in(user)
    at = page("label.py")
    assert not at.error and at.session_state["params"]["project"] == PROJECT
    assert any(PROJECT in o for o in options(at))


@pytest.mark.parametrize("user, owner", [("alice", True), ("bob", False), ("carol", False)])
def test_the_members_addresses_and_audit_are_shown_to_owners_only(db, signed_in, user, owner):
    signed_in(user)
    at = page("admin.py")
    assert not at.error
    member_rows = [t.value for t in at.text]
    if owner:
        assert {"alice", "bob", "carol"} <= set(member_rows)
        assert any(h.value == "Audit trail" for h in at.header)
    else:
        assert not {"alice", "bob", "carol"} & set(member_rows)
        assert not any(h.value == "Audit trail" for h in at.header)
        assert "shown to the project's owners only" in said(at)


def test_an_open_project_says_it_is_open_to_every_signed_in_user(db, signed_in):
    signed_in("eve@example.org")
    at = page("admin.py", project="two_moons")
    assert "every signed-in user can list it" in said(at)


def test_nothing_open_to_a_user_is_said_neutrally(db, signed_in):
    with open_store(db) as store:
        for name in store.list_projects():
            if not store.members(name):
                permissions.add_member(store, name, "alice", "owner", None)
    signed_in("eve@example.org")
    at = page("label.py", project=None)
    assert not at.error and not at.exception
    assert "No project on this server is open to you" in said(at)


def test_local_mode_reads_as_before(db):
    """No sign-in: nobody is authenticated, every project is listed and opened."""
    at = page("label.py")
    assert at.session_state["params"]["project"] == PROJECT
    at = page("admin.py")
    assert {"alice", "bob", "carol"} <= {t.value for t in at.text}


def _refusing_script() -> None:
    import streamlit as st

    from rlscore.sessions.team.permissions import PermissionDeniedError
    from rlscore.ui.shell.errors import report_errors

    with report_errors("Opening project P"):
        raise PermissionDeniedError("'eve' may not read anything in project 'P'")
    st.text("the page goes on")


def test_a_refusal_is_information_not_a_failure_nor_a_logged_traceback(caplog):
    from streamlit.testing.v1 import AppTest

    caplog.set_level("DEBUG", logger="rlscore")
    at = ok(AppTest.from_function(_refusing_script).run())
    assert not at.error and "failed" not in said(at)
    assert [plain(i.value) for i in at.info] == ["'eve' may not read anything in project 'P'"]
    assert [t.value for t in at.text] == ["the page goes on"]
    assert not [r for r in caplog.records if r.name.startswith("rlscore")]
