"""Fixtures shared by the test modules."""

from __future__ import annotations

import sys

import pytest
from test_session_replay import moons_store


@pytest.fixture(autouse=True)
def keep_main_module():
    """Put back the interpreter's ``__main__`` after each test: Streamlit's AppTest runs a
    page as ``__main__``, and a process started with "spawn" later would run that page again
    before its target (the multiprocessing tests of the store and the sessions)."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


@pytest.fixture
def store(tmp_path):
    """A label store holding the two_moons sample project, the session tests' default (a
    module that needs another store, e.g. ``test_storage.py``, defines its own)."""
    with moons_store(tmp_path) as s:
        yield s
