"""One app server shared by the browser tests that can share it, and each test's share of it.

Starting a server costs each test a Streamlit start and a first page that imports the whole
app (seconds on a loaded 2-core machine). The tests that start no server of their own — no
setting at start, no second server, no stop or crash, no "first request of a fresh server"
— share one: :class:`ServerShare` is one test's view of it. They are kept apart by project:
a test labels only projects of its own (a copy of a bundled sample made by
:func:`copy_sample`, or a project it creates under a name no other test uses), and
:func:`changed_samples` checks after each test that the bundled samples are as a fresh
server has them, so that no test sees another's labels or settings.
"""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

from streamlit_server import StreamlitServer

from rlscore.storage import open_store

#: numbers the sample copies: one name per copy in a test run
_COPY_NUMBERS = itertools.count(1)


class ServerShare:
    """One test's share of a running :class:`StreamlitServer`: its address and database,
    and what it logged during the test (not before)."""

    def __init__(self, server: StreamlitServer):
        if server.proc is None or server.proc.poll() is not None:
            # it stopped under an earlier test (a crash of the app, not a test's doing): the
            # next tests get a new process on the same database
            server.start()
        self.server = server
        self.url = server.url
        self.db = server.db
        self._log_start = _size(server.log_path)

    def logged(self) -> str:
        """What the server logged since this test began."""
        with open(self.server.log_path, "rb") as f:
            f.seek(self._log_start)
            return f.read().decode(errors="replace")

    def save_log(self, path: Path) -> None:
        """Write :meth:`logged` to ``path`` (the test's artifacts, as a server of its own
        would have written its log there)."""
        path.write_text(self.logged())


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def copy_sample(db: Path | str, sample: str) -> str:
    """Copy the bundled sample project ``sample`` in ``db`` to a new name (``two_moons_7``):
    the same points, truth, classes, meta and saved settings, none of its labels; the new
    name. The sidebar lists it as uploaded (``"two_moons_7 (uploaded)"``)."""
    name = f"{sample}_{next(_COPY_NUMBERS)}"
    with open_store(db) as store:
        project = store.load_project(sample)
        store.create_project(dataclasses.replace(project, name=name, uid=None))
        settings = store.load_settings(sample)
        if settings:
            store.save_settings(name, settings)
    return name


def changed_samples(db: Path | str, pristine: Path | str) -> list[str]:
    """The projects of ``pristine`` (a database of the bundled samples, as a fresh server
    has them) whose labels or settings in ``db`` differ from it."""
    changed = []
    with open_store(pristine) as before, open_store(db) as now:
        for name in before.list_projects():
            same_events = list(now.events(name)) == list(before.events(name))
            if not same_events or now.load_settings(name) != before.load_settings(name):
                changed.append(name)
    return changed
