"""Fixtures shared by the test modules, and the markers that say what a test needs.

The label store fixtures (``db_target``, ``store``) are parametrised over both backends:
SQLite (a file in the test's folder) and PostgreSQL (a new database in a throwaway server
that the tests start themselves, :mod:`pg_cluster`). Without PostgreSQL installed the
PostgreSQL variants skip, unless ``RLSCORE_REQUIRE_POSTGRES=1`` (CI), when they fail.

Markers (registered in pyproject.toml) are given here by what a test uses, so that no test
can forget its own: ``browser`` (tests/e2e), ``postgres`` (a PostgreSQL server: the
``pg_cluster`` or ``outage_server`` fixture, or the PostgreSQL case of ``db_target``) and
``cluster`` (the ``scheduler`` fixture's Dask LocalCluster; a module with a cluster of its
own marks its tests itself). ``slow`` is written on the tests themselves. Select or skip
them with ``-m``, e.g. ``pytest -m "not browser and not cluster"``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

# the references and helpers the test modules import keep pytest's detailed assertion messages
pytest.register_assert_rewrite("reference", "support")

from pg_cluster import INSTALL_HINT, PostgresCluster, find_bindir  # noqa: E402
from support.pg_outage import OutageCluster  # noqa: E402
from support.sessions import moons_store  # noqa: E402

from rlscore.storage import SQLLabelStore  # noqa: E402

#: why a rerun test failed the first time, printed in the summary; pytester for its test
pytest_plugins = ["support.rerun_reasons", "pytester"]

#: the label store backends every test of ``db_target`` or ``store`` runs on
BACKENDS = ("sqlite", "postgres")
#: tests of the shared ``store`` fixture that check what only a SQLite store has
SQLITE_ONLY = {
    "test_snapshot_eviction_and_opt_out": (
        "asserts the SQLite file's snapshot folder (<file>.snapshots); the PostgreSQL "
        "store's folder is tested in test_storage_postgres.py"
    ),
}


#: fixtures that start a PostgreSQL server (directly or through another fixture)
POSTGRES_FIXTURES = {"pg_cluster", "outage_server"}
#: fixtures that start a Dask LocalCluster
CLUSTER_FIXTURES = {"scheduler"}


def needs(item: pytest.Item) -> set[str]:
    """The markers ``item`` earns by where it is and the fixtures it uses."""
    fixtures = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    backend = callspec.params.get("db_target") if callspec is not None else None
    found = set()
    if "e2e" in item.path.parts:
        found.add("browser")
    if fixtures & POSTGRES_FIXTURES or backend == "postgres":
        found.add("postgres")
    if fixtures & CLUSTER_FIXTURES:
        found.add("cluster")
    return found


#: runs more of a browser test that failed (pytest-rerunfailures, the test extra)
BROWSER_RERUNS = 1


@pytest.hookimpl(tryfirst=True)  # before ``-m`` selects by them
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every collected test with what it needs (:func:`needs`), and give a browser test
    one more run if it fails: a page, a server and Chromium share two cores, and a browser
    test failed in 15 of the 47 suite runs of CONTRIBUTING.md's "CI time" table — mostly a
    race in the test's reading of the page, some a real fault of the app. So a rerun is no
    pass to forget: pytest lists it (``RERUN`` in the short summary, "1 rerun" in the last
    line) and it is looked into like a failure."""
    reruns = config.pluginmanager.hasplugin("rerunfailures")
    for item in items:
        found = needs(item)
        for marker in sorted(found):
            item.add_marker(marker)
        if reruns and "browser" in found:
            item.add_marker(pytest.mark.flaky(reruns=BROWSER_RERUNS))


@pytest.fixture(autouse=True)
def keep_main_module():
    """Put back the interpreter's ``__main__`` after each test: Streamlit's AppTest runs a
    page as ``__main__``, and a process started with "spawn" later would run that page again
    before its target (the multiprocessing tests of the store and the sessions)."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


@pytest.fixture(autouse=True)
def scripted_presses(request, monkeypatch):
    """AppTest clicks arrive the instant a page is drawn, as no person's can: outside the
    browser tests (tests/e2e) the minimum dwell (rlscore.sessions.actions.dwell) is off."""
    if "e2e" not in request.path.parts:
        monkeypatch.setenv("RLSCORE_MIN_DWELL_MS", "0")


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    """A PostgreSQL server of the test session's own (about 1 s to start; see
    :mod:`pg_cluster`); skips when PostgreSQL is not installed, unless
    ``RLSCORE_REQUIRE_POSTGRES=1``."""
    bindir = find_bindir()
    if bindir is None:
        if os.environ.get("RLSCORE_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"RLSCORE_REQUIRE_POSTGRES=1 but {INSTALL_HINT}", pytrace=False)
        pytest.skip(INSTALL_HINT)
    with PostgresCluster(bindir) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a Dask ``LocalCluster`` of the module's own: two worker processes of
    one thread and 1 GiB each, on loopback (the cluster-backed project tests)."""
    import distributed

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, memory_limit="1GiB",
    )  # fmt: skip
    yield cluster.scheduler_address
    cluster.close()


@pytest.fixture(scope="module")
def outage_server() -> Iterator[OutageCluster]:
    """A PostgreSQL server of the module's own, for the tests that stop it (a database
    outage) and start it again; skips as :func:`pg_cluster` does."""
    bindir = find_bindir()
    if bindir is None:
        if os.environ.get("RLSCORE_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"RLSCORE_REQUIRE_POSTGRES=1 but {INSTALL_HINT}", pytrace=False)
        pytest.skip(INSTALL_HINT)
    with OutageCluster(bindir) as cluster:
        yield cluster


@pytest.fixture
def outage_cluster(outage_server, tmp_path, monkeypatch) -> Iterator[OutageCluster]:
    """:func:`outage_server`, running at the start and at the end of the test (a test that
    halted it without resuming leaves it running for the next)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if not outage_server.running:
        outage_server.resume()
    yield outage_server
    if not outage_server.running:
        outage_server.resume()


@pytest.fixture
def pg_url(pg_cluster, tmp_path, monkeypatch) -> Iterator[str]:
    """The URL of a new empty database (about 40 ms to create), dropped after the test.

    Sessions on it keep their snapshots under the test's folder (``$XDG_CACHE_HOME``, which
    processes the test starts inherit), not in the user's cache.
    """
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    url = pg_cluster.create_database()
    yield url
    pg_cluster.drop_database(url)


@pytest.fixture(params=BACKENDS)
def db_target(request, tmp_path) -> str:
    """A new empty label database, as :func:`~rlscore.storage.open_store` takes it: the
    path of a SQLite file in the test's folder, or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "labels.sqlite3")
    reason = SQLITE_ONLY.get(request.node.originalname)
    if reason:
        pytest.skip(reason)
    return request.getfixturevalue("pg_url")


@pytest.fixture
def store(db_target, tmp_path) -> Iterator[SQLLabelStore]:
    """A label store holding the two_moons sample project, on each backend: the session
    tests' default (a module that needs another store, e.g. ``test_storage.py``, defines
    its own)."""
    with moons_store(tmp_path, db_target) as s:
        yield s


@pytest.fixture
def moons_sqlite(tmp_path):
    """A SQLite store of the moons sample (one backend: for tests of the pages' notices, not
    of the storage)."""
    from support.sessions import moons_store

    with moons_store(tmp_path) as s:
        yield s


@pytest.fixture
def moons_tab(blank_tab):
    """This tab's session state (:func:`blank_tab`), on the moons project."""
    blank_tab["project"] = "moons"
    return blank_tab


@pytest.fixture
def blank_tab():
    """This tab's Streamlit session state, for a page's callbacks called outside a page run:
    empty at the start and the end of the test."""
    import streamlit as st

    st.session_state.clear()
    yield st.session_state
    st.session_state.clear()
