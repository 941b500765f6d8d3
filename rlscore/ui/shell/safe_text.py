"""User strings (project, class, column and annotator names) shown as text, never as Markdown.

Streamlit renders Markdown in titles, captions, alerts, button labels, metric labels and
table cells: a class named ``![x](https://host/t.png)`` would make every viewer's browser
fetch that URL, ``**a**`` would turn bold and ``:red[a]`` colour. :func:`md_text` escapes
every ASCII punctuation character with a backslash (CommonMark allows that escape for all of
them, and Streamlit's ``:directive[...]`` and ``$math$`` parsers honour it too), so the string
reads exactly as typed. Raw HTML is never enabled anywhere in the app. Its bidirectional
controls are dropped (a right-to-left override in a name reversed the notice quoting it).
"""

from __future__ import annotations

import re
import string

from rlscore.core.conventions.user_names import without_bidi_controls

_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")
_WWW = re.compile(r"(?i)(www)\\\.")
_ESCAPED = re.compile(r"\\([" + re.escape(string.punctuation) + "])")
#: U+2060, invisible and no space: what breaks an automatic link in :func:`md_text`
WORD_JOINER = "\u2060"


def md_text(value: object) -> str:
    """``str(value)`` with every ASCII punctuation character backslash-escaped.

    Line breaks become spaces: a user string never starts a new Markdown block (a heading,
    a list, a table); bidirectional controls are dropped: the string cannot reorder the
    app's words around it. A URL or e-mail address in it is not made a link: an invisible word
    joiner (:data:`WORD_JOINER`) follows ``:`` and ``@`` and splits ``www.``.

    Parameters
    ----------
    value : object
        Any value shown to the user (a name, a label).

    Returns
    -------
    str
        Markdown that renders as the literal text of ``value``.
    """
    text = " ".join(without_bidi_controls(str(value)).splitlines())
    text = _PUNCTUATION.sub(r"\\\1", text)
    # GitHub-flavoured Markdown links URLs and e-mail addresses in the *text* it parsed
    # (escapes and character references are decoded first): an invisible word joiner after
    # ":" and "@" and inside "www." leaves them plain text and reads the same
    text = text.replace("\\:", "\\:" + WORD_JOINER).replace("\\@", "\\@" + WORD_JOINER)
    return _WWW.sub(r"\1" + WORD_JOINER + r"\\.", text)


def logged_text(markdown: str) -> str:
    """The text a reader of :func:`md_text`'s Markdown sees, for a log line: its backslash
    escapes and word joiners taken out (``md_text("a*b")`` logs as ``a*b``)."""
    return _ESCAPED.sub(r"\1", markdown.replace(WORD_JOINER, ""))


__all__ = ["WORD_JOINER", "logged_text", "md_text"]
