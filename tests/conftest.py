"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest
from test_session_replay import moons_store


@pytest.fixture
def store(tmp_path):
    """A label store holding the two_moons sample project, the session tests' default (a
    module that needs another store, e.g. ``test_storage.py``, defines its own)."""
    with moons_store(tmp_path) as s:
        yield s
