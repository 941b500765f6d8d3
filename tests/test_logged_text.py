"""Failures are logged with the user's names as typed, not as the Markdown escapes that keep
them plain on the page (``rlscore.ui.shell.safe_text``, ``rlscore.ui.shell.errors``)."""

from __future__ import annotations

import string

import pytest
from support.markdown import BOLD_NAME, IMAGE_NAME

from rlscore.ui.shell.safe_text import WORD_JOINER, logged_text, md_text

NAMES = [
    BOLD_NAME,
    IMAGE_NAME,
    string.punctuation,
    "back\\slash \\* and \\\\",
    "mail bob@example.invalid, https://example.invalid and www.example.invalid",
    "two\nlines",
    "plain",
    "σ = 1.5 — ünïcode",
]


def test_a_shown_name_holds_no_bidirectional_control():
    # a right-to-left override in a name reversed the app's words after it on screen
    shown = md_text("\u202eevil\u2067 ton\u2069")
    assert shown == "evil ton"


@pytest.mark.parametrize("name", NAMES)
def test_the_logged_text_is_the_name_as_typed(name):
    shown = md_text(name)
    assert shown != name or name in ("plain", "σ = 1.5 — ünïcode")  # escaped on the page
    assert logged_text(shown) == " ".join(name.splitlines())
    assert WORD_JOINER not in logged_text(shown)


def _failing_script() -> None:
    from rlscore.ui.shell.errors import report_errors
    from rlscore.ui.shell.safe_text import md_text

    with report_errors(f"Creating project '{md_text('**my** project_1')}'"):
        raise RuntimeError("disk full")


def test_a_failure_is_logged_with_the_plain_name(caplog):
    from streamlit.testing.v1 import AppTest

    caplog.set_level("ERROR", logger="rlscore")
    at = AppTest.from_function(_failing_script).run()
    assert len(at.error) == 1 and "failed" in at.error[0].value
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("rlscore")]
    assert logged == ["Creating project '**my** project_1' failed"]
