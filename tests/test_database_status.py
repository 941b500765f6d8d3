"""What a tab is told when the label database goes away (issue 23, item 5): the Label page's
callbacks (rlscore.ui.label.actions) and the outage's recovery (rlscore.ui.shell.database_status)
called directly, as Streamlit calls them (``st.session_state`` works outside a script run).

The PostgreSQL server is one of these tests' own, stopped with ``pg_ctl stop -m immediate``
and started again (:class:`support.pg_outage.OutageCluster`); a commit is cut on cue by
:class:`support.pg_outage.CutStore`. Every "was saved" / "was not saved" is checked against
what the database holds, read on a connection of the test's own (``raw_sql``).
"""

from __future__ import annotations

import time

import pytest
import streamlit as st
from support.pg_outage import CutStore, connection_lost
from support.sessions import moons_subset, session
from support.stores import raw_sql

from rlscore.ui.label import actions
from rlscore.ui.shell import database_status
from rlscore.ui.shell.store import SessionHandle


@pytest.fixture
def tab():
    """This tab's session state, empty at the start and the end of the test."""
    st.session_state.clear()
    yield st.session_state
    st.session_state.clear()


@pytest.fixture
def cut_store(outage_cluster, monkeypatch):
    """A store on a database of :func:`outage_cluster` holding project ``moons``; yields
    (store, url). It is the store the UI's outage recovery tries."""
    url = outage_cluster.create_database()
    store = CutStore(url)
    store.create_project(moons_subset())
    monkeypatch.setattr(database_status, "get_store", lambda: store)
    yield store, url
    store.close()
    if not outage_cluster.running:  # a test that failed in the outage
        outage_cluster.resume()
    outage_cluster.drop_database(url)


def notice() -> tuple[str, str] | None:
    message = st.session_state.get("flash")
    return None if message is None else message[:2]


def stored_labels(url: str) -> list[tuple]:
    return raw_sql(url, "SELECT point, annotator FROM events WHERE kind = 'label' ORDER BY id")


def shown(handle: SessionHandle, point: int) -> actions.ShownPoint:
    s = handle.session
    return actions.ShownPoint("moons", s.project.uid, point, s.last_event_id, time.monotonic() - 1)


def test_a_label_refused_by_the_outage_says_not_saved_and_nothing_is_written(
    outage_cluster, cut_store, tab
):
    store, url = cut_store
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    first = handle.session.query(annotator="ada")[0]
    actions.label(handle, "ada", shown(handle, first), 1)
    assert notice()[0] == "success"
    second = handle.session.query(annotator="ada")[0]
    outage_cluster.halt()

    actions.label(handle, "ada", shown(handle, second), -1)
    kind, text = notice()
    assert kind == "warning"
    assert text == (
        f"The label database is unreachable — your last label (point #{second}) was not "
        "saved: do it again once the page is back."
    )
    assert database_status.outage_text(3).startswith(
        "The label database is unreachable; retrying in 3 s — your last label "
        f"(point #{second}) was not saved"
    )
    assert database_status.database_back() is False  # still down

    outage_cluster.resume()
    assert database_status.database_back() is True
    assert notice() == (
        "warning",
        f"The label database is back: your label of point #{second} was not saved; do it again.",
    )
    assert stored_labels(url) == [(first, "ada")]
    # the same store and session go on
    actions.label(handle, "ada", shown(handle, second), -1)
    assert notice()[0] == "success"
    assert stored_labels(url) == [(first, "ada"), (second, "ada")]


@pytest.mark.parametrize("server_committed", [True, False])
def test_a_label_whose_commit_was_cut_is_looked_up_once_the_database_is_back(
    outage_cluster, cut_store, tab, server_committed
):
    store, url = cut_store
    handle = SessionHandle(session(store))
    tab["project"] = "moons"
    point = handle.session.query(annotator="ada")[0]

    def cut(conn):
        if server_committed:
            conn.execute("COMMIT")
        conn.close()
        outage_cluster.halt()  # no server to ask whether it committed
        raise connection_lost()

    store.at_commit = cut
    actions.label(handle, "ada", shown(handle, point), 1)
    kind, text = notice()
    assert kind == "warning" and f"your last label (point #{point}) may not have reached" in text
    assert "checked as soon as it is back" in text

    outage_cluster.resume()
    assert database_status.database_back() is True
    if server_committed:
        assert notice() == (
            "success",
            f"The label database is back: your label of point #{point} was saved.",
        )
        assert stored_labels(url) == [(point, "ada")]
    else:
        assert notice() == (
            "warning",
            f"The label database is back: your label of point #{point} was not saved; do it again.",
        )
        assert stored_labels(url) == []
    # the outage is over: the message says what the database holds now
    status = "was saved" if server_committed else "was not saved"
    assert f"(point #{point}) {status}" in database_status.last_write_text()


def test_a_setting_changed_in_the_outage_is_said_not_saved_and_never_raised(
    outage_cluster, cut_store, tab, monkeypatch
):
    """A sidebar setting's callback meets the outage (a fresh-clone-style run showed
    Streamlit's exception box for it): flashed as not saved, the page then shows the outage
    message, and the setting is unchanged in the database."""
    from rlscore.sessions.state.settings import project_settings
    from rlscore.ui.shell import params, sidebar

    store, url = cut_store
    monkeypatch.setattr(params, "get_store", lambda: store)
    tab["project"] = "moons"
    before = project_settings(store, "moons")["lam"]
    tab["w_lam"] = 2.0  # the λ slider's log₁₀
    outage_cluster.halt()
    sidebar._changed("lam")  # as Streamlit calls it: nothing raised
    kind, text = notice()
    assert kind == "warning" and text.startswith("Setting not saved: ")
    assert "unreachable" in text and database_status.outage_pending()
    outage_cluster.resume()
    assert database_status.database_back() is True
    assert project_settings(store, "moons")["lam"] == before
