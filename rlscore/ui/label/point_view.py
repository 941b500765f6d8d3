"""How one pool point is shown to a person (Label, Review and cold-start panels): its items —
texts, images, context values — when the project has them, else its picture (a project whose
rows are images) and its feature values as uploaded.

What is shown is worked out below the UI (:mod:`rlscore.data.items.item_view`); this module only
draws it. Every text is drawn as plain text (``st.text`` or escaped), never as Markdown or HTML.

Three sizes: :func:`show_point` draws the whole item (Review, search results, cold start);
with ``compact=True`` (the query panel) a text of more than :data:`COMPACT_TEXT_CHARS`
characters scrolls in a box :data:`COMPACT_TEXT_HEIGHT` pixels high and an image is drawn at
most :data:`COMPACT_IMAGE_SIDE` pixels on its longer side, so that at 1280 × 720 a
600-character text or a 400 × 400 image, the class buttons, Skip and Undo fit on one screen;
:func:`show_brief` draws a one-line snippet or a thumbnail (recent labels, Review's decisions).
"""

from __future__ import annotations

import base64
import html
import io

import streamlit as st
from PIL import Image

from rlscore.data.items.item_map import snippet
from rlscore.data.items.item_view import ShownItem, shown_features, shown_items
from rlscore.data.projects.project import Project
from rlscore.ui.shell.safe_text import md_text
from rlscore.viz.plane.geometry import image_array

#: up to this many features are shown inline; more go into an expander
INLINE_FEATURES = 6
#: height (pixels) of the scrolling box of a long text
TEXT_BOX_HEIGHT = 220
#: in the query panel, a text longer than this (characters) scrolls in a box …
COMPACT_TEXT_CHARS = 240
#: … this many pixels high (about seven lines)
COMPACT_TEXT_HEIGHT = 180
#: in the query panel, images are drawn at most this many pixels on their longer side
COMPACT_IMAGE_SIDE = 240
#: small images (an 8 × 8 or 32 × 32 digit) are enlarged to at least this many pixels
MIN_IMAGE_SIDE = 112
#: characters of a text shown in a one-line snippet
BRIEF_CHARS = 90
#: longer side (pixels) of a thumbnail
THUMBNAIL_SIDE = 56


def _shown_width(image: Image.Image, side: int | None) -> int | None:
    """Width (pixels) to draw ``image`` at: at most ``side`` on its longer side, small images
    enlarged to :data:`MIN_IMAGE_SIDE`; None: as it is."""
    longest = max(image.size)
    target = max(longest, MIN_IMAGE_SIDE)
    if side is not None:
        target = min(target, side)
    if target == longest:
        return None if side is None else image.size[0]
    return max(1, round(image.size[0] * target / longest))


def _show_item(item: ShownItem, compact: bool, named: bool) -> None:
    if item.kind == "text":
        if named:
            st.caption(md_text(item.name))
        if compact and len(item.text) > COMPACT_TEXT_CHARS:
            box = st.container(height=COMPACT_TEXT_HEIGHT, border=True)
        elif not compact and item.long:
            box = st.container(height=TEXT_BOX_HEIGHT, border=True)
        else:
            box = st.container()
        box.text(item.text or "(empty)")
    elif item.kind == "image":
        st.caption(md_text(f"{item.name}: {item.text}"))
        width = _shown_width(item.image, COMPACT_IMAGE_SIDE if compact else None)
        st.image(item.image, width=width if width is not None else "content")
    elif item.kind == "error":
        st.warning(md_text(item.text))
    else:
        st.caption(md_text(f"{item.name} = {item.text}"))


def show_point(project: Project, i: int, compact: bool = False) -> None:
    """Draw point ``i`` of ``project``: its items, else its picture and feature values.

    ``compact``: the query panel's size (long texts scroll in a lower box, images are drawn
    smaller; see the module docstring). A text column's name is shown only when the point
    has more than one item column.
    """
    items = shown_items(project, i)
    for item in items:
        _show_item(item, compact, named=len(items) > 1)
    if items:
        return
    shape = project.meta.get("image_shape")
    if shape:
        st.image(image_array(project.X[i], shape), width=112)
    values = shown_features(project, i)
    if len(values) <= INLINE_FEATURES:
        st.caption(" · ".join(f"{md_text(f)} = {v:.4g}" for f, v in values.items()))
    else:
        with st.expander(f"{len(values)} feature values"):
            st.dataframe({"feature": list(values), "value": list(values.values())}, hide_index=True)


def brief_text(project: Project, i: int, chars: int = BRIEF_CHARS) -> str:
    """A one-line plain-text summary of point ``i``: its first text's snippet, else its
    image's file name, else its first context value, else its id (not escaped: draw it with
    ``st.text`` or :func:`~rlscore.ui.shell.safe_text.md_text`)."""
    items = project.items or []
    for kinds in (("text",), ("image",), ("context",)):
        column = next((c for c in items if c.kind in kinds), None)
        if column is not None:
            value = column.values[i]
            if column.kind == "image":
                value = str(value).replace("\\", "/").rsplit("/", 1)[-1]
            elif column.kind == "context":
                value = f"{column.name} = {'' if value is None else value}"
            # the map's hover snippet (one line, cut with "…"), unescaped: here the text is
            # drawn by Streamlit, which escapes it itself
            return html.unescape(snippet("" if value is None else str(value), chars))
    return f"id {project.ids[i]}"


def thumbnail(project: Project, i: int) -> Image.Image | None:
    """Point ``i``'s image as a thumbnail (:data:`THUMBNAIL_SIDE` pixels on its longer side):
    its image item, else its picture for a project whose rows are images; None if it has
    neither or its image cannot be read."""
    image = None
    if any(c.kind == "image" for c in project.items or []):
        image = next((it.image for it in shown_items(project, i) if it.kind == "image"), None)
    elif project.meta.get("image_shape"):
        image = Image.fromarray(image_array(project.X[i], project.meta["image_shape"]))
    if image is None:
        return None
    image = image.copy()
    scale = THUMBNAIL_SIDE / max(image.size)
    size = (max(1, round(image.size[0] * scale)), max(1, round(image.size[1] * scale)))
    return image.resize(size, Image.Resampling.LANCZOS if scale < 1 else Image.Resampling.NEAREST)


def thumbnail_url(image: Image.Image | None) -> str | None:
    """A ``data:image/png;base64,…`` URL of ``image`` (for a table's image column)."""
    if image is None:
        return None
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def show_brief(project: Project, i: int) -> None:
    """Draw point ``i`` small, on one row: its number, its thumbnail when it is an image, and
    its one-line text (:func:`brief_text`) as plain text."""
    image = thumbnail(project, i)
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        if image is not None:
            st.image(image, width="content")
        st.text(f"#{i} · {brief_text(project, i)}")


__all__ = ["brief_text", "show_brief", "show_point", "thumbnail", "thumbnail_url"]
