"""Secrets stay secret (issue 23 item 4): a database URL with a password is accepted, and the
password never appears in an error's text, ``str`` or ``repr``, its traceback, a log record,
a command's output, the store's attributes, the audit or an export."""

from __future__ import annotations

import logging
import socket
import traceback

import pytest
from support.sessions import moons_subset, session

from rlscore.cli import main
from rlscore.sessions.state.settings import save_project_settings
from rlscore.sessions.team.audit import export_project
from rlscore.sessions.team.permissions import claim_ownership, delete_project, restore_project
from rlscore.storage import open_store
from rlscore.storage.backends.postgres import PostgresLabelStore

SECRET = "s3cr3t-Pa55"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _urls(port: int) -> list[str]:
    return [
        f"postgresql://ann:{SECRET}@127.0.0.1:{port}/labels",
        f"postgres://ann:{SECRET}@127.0.0.1:{port}/labels?sslmode=disable",
        f"postgresql://ann@127.0.0.1:{port}/labels?password={SECRET}&connect_timeout=5",
    ]


def _everything_said(exc: BaseException) -> str:
    """Whatever a log or a page could show of ``exc``: its str, repr, args and the whole
    formatted traceback, chained exceptions included."""
    return "\n".join(
        [str(exc), repr(exc), repr(exc.args), *traceback.format_exception(exc, chain=True)]
    )


@pytest.mark.parametrize("create", [True, False])
def test_a_failing_connection_never_shows_the_password(caplog, create):
    caplog.set_level(logging.DEBUG)  # every logger, every level
    port = _free_port()
    for url in _urls(port):
        with pytest.raises(ConnectionError) as info:
            open_store(url, create=create)
        said = _everything_said(info.value)
        assert SECRET not in said
        assert f"127.0.0.1:{port}/labels" in str(info.value) and "***" in str(info.value)
    assert SECRET not in caplog.text
    assert all(SECRET not in str(r.args) for r in caplog.records)


def test_commands_never_print_the_password(capsys):
    port = _free_port()
    for url in _urls(port):
        for command in (
            ["members", "--db", url, "--project", "P", "--list"],
            ["members", "--db", url, "--project", "P", "--add", "a@b.c", "--role", "owner"],
            ["settings", "--db", url, "--project", "P"],
        ):
            assert main(command) == 2
            out, err = capsys.readouterr()
            assert out == "" and err.count("\n") == 1 and err.startswith("error: ")
            assert SECRET not in err and "***" in err


def test_an_invalid_url_with_a_password_is_refused_without_it():
    with pytest.raises(ValueError) as info:
        open_store(f"postgresql://ann:{SECRET}@127.0.0.1:notaport/labels")
    assert SECRET not in _everything_said(info.value)


def test_a_working_store_opened_with_a_password_never_repeats_it(pg_url, tmp_path, caplog):
    """The test server trusts local connections, so it accepts the URL with any password:
    what matters is where the URL goes afterwards."""
    caplog.set_level(logging.DEBUG)
    url = pg_url.replace("://postgres@", f"://postgres:{SECRET}@")
    assert SECRET in url
    with open_store(url) as store:
        assert isinstance(store, PostgresLabelStore)
        for shown in (repr(store), str(store.path), store.location, str(store.snapshot_dir)):
            assert SECRET not in shown
        assert ":***@" in store.location
        store.create_project(moons_subset())
        s = session(store, snapshots=False, annotator="olga@example.org")
        s.label(0, s.project.truth[0])
        claim_ownership(store, "olga@example.org")
        save_project_settings(store, "moons", {"lam": 0.2}, user="olga@example.org")
        out = export_project(store, "moons", "olga@example.org", "json")
        delete_project(store, "moons", "olga@example.org")
        restore_project(store, "moons", "olga@example.org")
        for text in (out.labels, out.audit, repr(store.audit("moons")), repr(s)):
            assert SECRET not in text
    assert SECRET not in caplog.text
