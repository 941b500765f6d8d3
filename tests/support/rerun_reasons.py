"""A pytest plugin: why each rerun test failed the first time, in the terminal summary.

pytest-rerunfailures lists a rerun by name (``RERUN`` with ``-rR``) but not its failure, and
the rerun that passed leaves no trace of it: a flaky browser test could not be looked into
from CI's log (tests/conftest.py gives browser tests one rerun). This plugin keeps the
failure's last lines (its ``E`` lines, else the last lines of the report) and prints them
under "why the reruns failed first". Loaded by tests/conftest.py (``pytest_plugins``); under
xdist the workers' reports reach the controller, which prints them.
"""

from __future__ import annotations

import pytest

#: the most lines kept of one first failure
MAX_LINES = 12


def failure_lines(text: str, limit: int = MAX_LINES) -> list[str]:
    """The lines of a failure report worth a log: its ``E`` lines, else its last lines."""
    lines = text.splitlines()
    errors = [line for line in lines if line.startswith("E ")]
    return (errors or lines)[-limit:]


class RerunReasons:
    """The first failures of one session's rerun tests (one object per pytest session)."""

    def __init__(self) -> None:
        self.reasons: list[tuple[str, list[str]]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.outcome == "rerun":
            self.reasons.append((report.nodeid, failure_lines(report.longreprtext)))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.reasons:
            return
        terminalreporter.section("why the reruns failed first")
        for nodeid, lines in self.reasons:
            terminalreporter.write_line(nodeid)
            for line in lines:
                terminalreporter.write_line(f"    {line}")


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(RerunReasons(), "rerun-reasons")
