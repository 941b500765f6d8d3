"""Names people type — an annotator's, a member's, a project's — and the control characters
they may not hold.

A name is shown on every page, written with every event and compared to find a user's role.
A control character (Unicode category ``Cc``: NUL, tab, newline, escape, DEL …) shows as
nothing, so two names differing only by one look the same on every page; and PostgreSQL
cannot store a text holding NUL at all, where SQLite can (the same name worked on one
database and failed with a driver error on the other).

**A user's name is cleaned, not refused** (:func:`clean_name`): runs of whitespace — tabs and
newlines too — become one space, as they always did, and every other control character is
removed. A name typed in the sidebar, given in the address bar (``?annotator=``), passed to
``--as`` or read from a sign-in provider then means the user the page shows: there is nothing
to refuse it with on a shared link, and no one can tell the two spellings apart anyway.

**One user, one key** (:func:`user_key`): an e-mail address (a name holding ``@``) names the
same person in any case, as mail systems treat it, so ``Ann@X.org`` and ``ann@x.org`` are one
annotator; other names keep their case (``Ann`` and ``ann`` are two people, as typed). The key —
the cleaned name, an address in lower case — is the one spelling the package writes and
compares: members are stored under it (:func:`~rlscore.storage.sql.access.member_id`), the
label store writes it with every event and claim and reads older rows through it (a database
holding both spellings of one address reads as one annotator), and a session, the app's tab
and the commands resolve a typed name to it when they are opened. So counts, the overlap
queue, undo, agreement and the export all see one annotator: a key compared in some places
and not others is what let one person be two (labeling a point twice, blind, and agreeing with
themselves). The key is computed from the name alone, not looked up in the project (say, the
spelling of its first event): it is the same before any event, on every server at once, and
it is what sign-in gives anyway (:mod:`rlscore.ui.shell.auth`: an address in lower case).

The bidirectional formatting controls (:data:`BIDI_CONTROLS`: embeddings, overrides and
isolates, category ``Cf``) are treated alike: they too show as nothing, yet a right-to-left
override reverses the text after it — in a notice that quotes the name, the app's own words
(``?project=%E2%80%AEevil`` made "There is no project …" read backwards).

**A project's name is refused** (:func:`check_no_control`): it is chosen once, by its creator,
who can be told; silently changing it would make ``--project NAME`` miss the project just
created. The label store refuses any name holding a control character, naming the field, on
SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

#: the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): they
#: reorder the text around them (Unicode's UAX #9), not only the name holding them
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def is_hidden_control(ch: str) -> bool:
    """Whether ``ch`` is a control character (``Cc``) or a bidirectional control
    (:data:`BIDI_CONTROLS`): invisible, so no name may hold one."""
    return ch in BIDI_CONTROLS or unicodedata.category(ch) == "Cc"


def control_characters(text: str) -> list[str]:
    """The distinct control characters (:func:`is_hidden_control`) of ``text``, in order of
    first appearance."""
    found: dict[str, None] = {}
    for ch in text:
        if is_hidden_control(ch):
            found.setdefault(ch)
    return list(found)


def clean_name(value: object, limit: int | None = None) -> str | None:
    """A user's name as typed, cleaned (what is stored and compared is its :func:`user_key`).

    Parameters
    ----------
    value
        The name (None or "" for none; anything else is taken as its text).
    limit
        At most this many characters are kept (None: all).

    Returns
    -------
    str or None
        Whitespace runs (tabs and newlines too) as one space, ends stripped, every other
        control character (NUL, escape, DEL, a bidirectional override …) removed; None when
        nothing is left.
    """
    text = "".join(ch for ch in str(value or "") if ch.isspace() or not is_hidden_control(ch))
    text = " ".join(text.split())[:limit]
    return text or None


def user_key(value: object) -> str:
    """The one spelling under which a user is written and compared (the module's "One user,
    one key").

    Parameters
    ----------
    value
        A user's name as typed, or as stored (None or "" for none).

    Returns
    -------
    str
        :func:`clean_name` of it, in lower case (``str.casefold``) when it holds ``@`` (an
        e-mail address); "" for no name.
    """
    return _key(str(value or ""))


@lru_cache(maxsize=4096)
def _key(text: str) -> str:
    # cached: the store reads every event's name through it, and a log holds few names
    name = clean_name(text) or ""
    return name.casefold() if "@" in name else name


def check_no_control(text: str, field: str) -> str:
    """``text`` unchanged, refused if it holds a control character.

    Parameters
    ----------
    text
        The text to store.
    field
        What it is, for the message (``"project name"``, ``"annotator name"``).

    Raises
    ------
    ValueError
        Naming ``field`` and the characters (as ``U+0000`` …).
    """
    found = control_characters(text)
    if found:
        codes = ", ".join(f"U+{ord(ch):04X}" for ch in found)
        raise ValueError(
            f"{field} {text!r} holds a control character ({codes}): choose one without "
            "(a tab, a newline, NUL, escape or a bidirectional override cannot be stored in a name)"
        )
    return text


def without_bidi_controls(text: str) -> str:
    """``text`` without its bidirectional controls (:data:`BIDI_CONTROLS`), for showing a
    user's string inside the app's own words."""
    return "".join(ch for ch in text if ch not in BIDI_CONTROLS)


__all__ = [
    "BIDI_CONTROLS",
    "check_no_control",
    "clean_name",
    "control_characters",
    "is_hidden_control",
    "user_key",
    "without_bidi_controls",
]
