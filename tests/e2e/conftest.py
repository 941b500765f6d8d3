"""Fixtures for the browser tests: Debian's chromium driven by Playwright, live servers.

Most tests share one app server (``server``, a share of ``shared_server``; see
:mod:`server_share`) and label only projects of their own (``own_sample``). A test that
stops or kills its server, needs a fresh server's first request, a setting at start, sign-in
or a second server starts its own (``own_server``, ``start_server``, ``signed_in_server``,
``two_servers``).

Without chromium the tests are skipped, unless ``RLSCORE_REQUIRE_BROWSER=1`` (CI), which
turns "browser missing" into a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from browser_context import TIMEOUT_MS, new_context
from server_share import ServerShare, changed_samples, copy_sample
from streamlit_server import CHROMIUM_ARGS, REPO, StreamlitServer, chromium_executable

ARTIFACTS = REPO / "tests" / "e2e" / "artifacts"


def _browser_missing(reason: str):
    if os.environ.get("RLSCORE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason} (RLSCORE_REQUIRE_BROWSER=1)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    exe = chromium_executable()
    if exe is None:
        _browser_missing("chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _browser_missing("playwright is not installed (pip install playwright)")
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def artifacts(request) -> Path:
    """Screenshots and downloads of one test: tests/e2e/artifacts/<test name>/ (gitignored)."""
    path = ARTIFACTS / request.node.name.replace("/", "_")
    path.mkdir(parents=True, exist_ok=True)
    return path


#: teammate poll of the two-server tests (seconds)
TEAM_POLL_SECONDS = 1.0


@pytest.fixture
def two_servers(pg_url, artifacts):
    """Two app servers on one PostgreSQL database (a team), polling for teammates' labels."""
    servers = [
        StreamlitServer(pg_url, artifacts / f"server{k}.log", poll_seconds=TEAM_POLL_SECONDS)
        for k in (1, 2)
    ]
    try:
        for s in servers:
            s.start()
        yield servers
    finally:
        for s in servers:
            s.stop()


@pytest.fixture(scope="session")
def samples_db(tmp_path_factory) -> Path:
    """A SQLite label database holding the bundled sample projects, made once per test run.

    A fresh server makes them on its first page (``rlscore.ui.shell.store``; the AppTest tests
    start from empty databases); made here once and copied, they cost each test nothing, and
    no first page waits for them (a cold machine once took longer than the browser's timeout
    to featurise the text samples).
    """
    from rlscore.data.samples.bundled import ensure_sample_projects
    from rlscore.storage import open_store

    path = tmp_path_factory.mktemp("samples") / "labels.sqlite3"
    with open_store(path) as store:
        ensure_sample_projects(store)
    return path


def fresh_db(samples_db: Path, path: Path) -> Path:
    """``path``: a copy of :func:`samples_db` (closed, so its write-ahead log is merged),
    unless the test made a database there itself before starting the server."""
    if not path.exists():
        shutil.copyfile(samples_db, path)
    return path


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory, samples_db):
    """The app server of every test that can share one (:mod:`server_share`): started by
    the first test that asks for :func:`server`, on a copy of :func:`samples_db`, with no
    setting at start (the tests that need one use :func:`start_server`)."""
    folder = tmp_path_factory.mktemp("shared_server")
    srv = StreamlitServer(fresh_db(samples_db, folder / "labels.sqlite3"), folder / "server.log")
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def server(shared_server, samples_db, artifacts):
    """This test's share of :func:`shared_server`: label only projects of your own
    (:func:`own_sample`, or a project made under a name no other test uses). Fails the test
    if it changed the labels or settings of a bundled sample, which the next tests expect as
    a fresh server has them."""
    share = ServerShare(shared_server)
    yield share
    share.save_log(artifacts / "server.log")
    changed = changed_samples(share.db, samples_db)
    assert not changed, (
        f"the test changed the shared server's samples {changed}: label a copy (own_sample)"
    )


@pytest.fixture
def own_sample(server):
    """Factory: ``own_sample("two_moons")`` copies a bundled sample into the shared server's
    database under a name of this test's own (``two_moons_7``, listed in the sidebar as
    ``"two_moons_7 (uploaded)"``) and returns that name."""
    return lambda sample: copy_sample(server.db, sample)


@pytest.fixture
def own_server(tmp_path, artifacts, samples_db):
    """A server of the test's own, on a copy of :func:`samples_db`: for a test that stops
    or kills it, or needs the first request a fresh server answers."""
    srv = StreamlitServer(
        fresh_db(samples_db, tmp_path / "labels.sqlite3"), artifacts / "server.log"
    )
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def start_server(tmp_path, artifacts, monkeypatch, samples_db):
    """Factory of servers with their own database and environment (e.g. the minimum dwell
    ``RLSCORE_MIN_DWELL_MS``, or teammates' polling): ``start_server(poll_seconds=…, **env)``."""
    servers = []

    def start(poll_seconds: float = 0.0, **env) -> StreamlitServer:
        for key, value in env.items():
            monkeypatch.setenv(key, str(value))  # the server process inherits it
        k = len(servers)
        db = fresh_db(samples_db, tmp_path / f"labels{k}.sqlite3")
        srv = StreamlitServer(db, artifacts / f"server{k}.log", poll_seconds=poll_seconds)
        servers.append(srv.start())
        return srv

    yield start
    for srv in servers:
        srv.stop()


@pytest.fixture
def fresh_page(browser):
    """Factory of pages, each in a context of its own (closed at the end of the test)."""
    contexts = []

    def make():
        contexts.append(new_context(browser, height=1000))
        return contexts[-1].new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(browser, artifacts, request):
    context = new_context(browser)
    pg = context.new_page()
    yield pg
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:  # what the browser showed when the test failed
        pg.screenshot(path=artifacts / "failure.png", full_page=True)
    context.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


#: the users of the test OpenID Connect provider: user name typed at its login form -> claims
OIDC_USERS = {
    "alice": {"email": "Alice@Example.org", "email_verified": True, "name": "Alice Archer"},
    "bob": {"email": "bob@example.org", "email_verified": True, "name": "Bob Baker"},
    # an address the provider does not vouch for: named by subject and issuer instead
    "carol": {"email": "alice@example.org", "email_verified": False, "name": "Carol Chen"},
}


@pytest.fixture
def oidc_provider():
    """A throwaway OpenID Connect provider on 127.0.0.1 (tests/support/oidc_provider.py)."""
    from support.oidc_provider import OIDCProvider

    with OIDCProvider(OIDC_USERS) as provider:
        yield provider


@pytest.fixture
def signed_in_server(tmp_path, artifacts, oidc_provider, monkeypatch):
    """An app server with sign-in through :func:`oidc_provider` (its own secrets file and a
    fresh label database)."""
    from support.oidc_provider import secrets_toml

    monkeypatch.delenv("RLSCORE_ALLOW_UNAUTHENTICATED", raising=False)
    secrets = tmp_path / "secrets.toml"
    srv = StreamlitServer(tmp_path / "labels.sqlite3", artifacts / "server.log", secrets=secrets)
    secrets.write_text(secrets_toml(oidc_provider, srv.url))
    srv.start()
    yield srv
    srv.stop()
