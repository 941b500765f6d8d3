"""The rerun plugin (``tests/support/rerun_reasons.py``) prints why a rerun test failed first."""

from __future__ import annotations

FLAKY = """
import pytest

calls = []


@pytest.mark.flaky(reruns=1)
def test_fails_once():
    calls.append(1)
    assert len(calls) > 1, "first run: the notice about #58 never came"


def test_steady():
    assert True
"""


def test_a_rerun_tests_first_failure_is_in_the_summary(pytester):
    pytester.makepyfile(FLAKY)
    result = pytester.runpytest("-p", "rerunfailures", "-p", "support.rerun_reasons")
    assert result.parseoutcomes() == {"passed": 2, "rerun": 1}
    result.stdout.fnmatch_lines(
        [
            "*why the reruns failed first*",
            "*test_fails_once",
            "*E*AssertionError: first run: the notice about #58 never came",
        ]
    )


def test_no_section_without_a_rerun(pytester):
    pytester.makepyfile("def test_ok():\n    assert True\n")
    result = pytester.runpytest("-p", "rerunfailures", "-p", "support.rerun_reasons")
    result.assert_outcomes(passed=1)
    assert "why the reruns failed first" not in result.stdout.str()
