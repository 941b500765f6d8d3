"""What a page renders as Markdown, and whether user strings in it are shown as text."""

from __future__ import annotations

import re
import string

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import AlertBase, HeadingBase, Markdown, Table, Toast

from rlscore.ui.shell.safe_text import WORD_JOINER

#: a name that would show a remote image if rendered as Markdown, and one that would be bold
IMAGE_NAME = "![x](http://example.invalid/t.png)"
BOLD_NAME = "**bold**"
#: characters that start Markdown links, images, emphasis, code or HTML: always escaped
_ACTIVE = set("[]()*_`!<>~")


def markdown_texts(at: AppTest) -> list[str]:
    """Every string on the page (main and sidebar) that Streamlit renders as Markdown:
    headings, captions, Markdown, alerts, toasts, widget and metric labels, radio options and
    table cells."""
    texts = []
    for node in [*at.main, *at.sidebar]:
        if isinstance(node, Markdown | HeadingBase | AlertBase | Toast):
            texts.append(node.value)
        elif isinstance(node, Table):
            df = node.value
            texts += [str(v) for v in [*df.columns, *df.index, *df.to_numpy().ravel()]]
        proto = getattr(node, "proto", None)
        if isinstance(getattr(proto, "label", None), str):
            texts.append(proto.label)
        if node.type == "radio":
            texts += list(proto.options)
    return texts


def plain(md: str) -> str:
    """The text CommonMark shows for ``md``'s backslash escapes and numeric character
    references (an escaped ASCII punctuation character is shown as itself)."""
    return re.sub(
        r"\\([" + re.escape(string.punctuation) + r"])|&#(\d+);",
        lambda m: m.group(1) or chr(int(m.group(2))),
        md.replace(WORD_JOINER, ""),  # invisible: md_text's guard against automatic links
    )


def _escaped(name: str) -> re.Pattern:
    """``name`` as Markdown that shows it literally: every active character escaped, other
    punctuation escaped or not."""
    parts = []
    for c in name:
        reference = re.escape(f"&#{ord(c)};")  # md_text writes ":", "@" as references
        if c in _ACTIVE:
            parts.append(rf"(?:\\{re.escape(c)}|{reference})")
        elif c in string.punctuation:
            parts.append(rf"(?:\\?{re.escape(c)}|{reference})")
        else:
            parts.append(re.escape(c))
    return re.compile("".join(parts))


def assert_shown_as_text(at: AppTest, *names: str) -> None:
    """Every occurrence of each name in the page's Markdown is escaped, and each name is shown
    at least once."""
    texts = [t.replace(WORD_JOINER, "") for t in markdown_texts(at)]
    for text in texts:
        assert "](http" not in text and "**bold" not in text, text
    for name in names:
        shown = 0
        for text in texts:
            n = plain(text).count(name)
            assert len(_escaped(name).findall(text)) == n, (name, text)
            shown += n
        assert shown, f"{name!r} is not shown"
