"""How a command fails: one ``error: …`` line on standard error and exit status 2.

Every command raises :class:`CommandError` (or lets a ``ValueError``, ``OSError``, a database
error … propagate) and :func:`run_command` turns it into a single line naming the problem;
no Python traceback reaches the user. Exit status 2 for every failure, the status argparse
already gives a bad option, so a script tells "it failed" (2) from "it worked" (0) alone.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable

#: exit status of every failed command (argparse's own for a bad option)
EXIT_FAILURE = 2
#: exit status after Ctrl-C (128 + SIGINT, as a shell reports it)
EXIT_INTERRUPTED = 130
#: a reader that stopped early (``… | head``): quiet, Python's status for a broken pipe
EXIT_BROKEN_PIPE = 1
#: set to 1 to see the traceback of an unexpected error (developers)
TRACEBACK_ENV = "RLSCORE_TRACEBACK"

#: failures with a message meant for the user; anything else is an unexpected error
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    OSError,  # includes ConnectionError (the PostgreSQL store's, password already removed)
    sqlite3.Error,
    MemoryError,
    LookupError,
    RuntimeError,
)


class CommandError(ValueError):
    """A command cannot do what it was asked; the message says why, for the user (a
    ``ValueError``: bad input, caught where a command already reports those)."""


def one_line(message: object) -> str:
    """``message`` on one line (libpq's and SQLite's messages span several)."""
    return " ".join(str(message).split())


def error_line(exc: BaseException) -> str:
    """The ``error: …`` line for ``exc``."""
    text = one_line(exc)
    if isinstance(exc, MemoryError):
        return f"error: not enough memory{': ' + text if text else ''}"
    if isinstance(exc, EXPECTED_ERRORS):  # CommandError is a ValueError
        return f"error: {text or type(exc).__name__}"
    return (
        f"error: unexpected {type(exc).__name__}: {text or 'no message'} (a bug: please "
        f"report it; {TRACEBACK_ENV}=1 shows the traceback)"
    )


def run_command(main: Callable[[list[str]], int | None], argv: list[str]) -> int:
    """Run a command's ``main(argv)`` and return its exit status; a failure becomes one
    ``error:`` line on standard error and :data:`EXIT_FAILURE`."""
    try:
        return int(main(argv) or 0)
    except SystemExit as exc:  # argparse: it has printed its own usage and error line
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(f"error: {one_line(exc.code)}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader stopped early (`… | head`): not an error of ours. Python flushes stdout
        # at exit, which would fail again: it goes to /dev/null (Python's docs, "Note on
        # SIGPIPE"), and the status is Python's own for a broken pipe
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as exc:
        if os.environ.get(TRACEBACK_ENV) == "1":
            raise
        print(error_line(exc), file=sys.stderr)
        return EXIT_FAILURE


__all__ = [
    "EXIT_BROKEN_PIPE",
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "TRACEBACK_ENV",
    "CommandError",
    "error_line",
    "one_line",
    "run_command",
]
