"""How one pool point is shown to a person (Label, Review and cold-start panels): its items —
texts, images, context values — when the project has them, else its picture (a project whose
rows are images) and its feature values as uploaded.

What is shown is worked out below the UI (:mod:`rlscore.data.item_view`); this module only
draws it. Every text is drawn as plain text (``st.text`` or escaped), never as Markdown or HTML.
"""

from __future__ import annotations

import streamlit as st

from rlscore.data.item_view import ShownItem, shown_features, shown_items
from rlscore.data.projects import Project
from rlscore.ui.text import md_text
from rlscore.viz.geometry import image_array

#: up to this many features are shown inline; more go into an expander
INLINE_FEATURES = 6
#: height (pixels) of the scrolling box of a long text
TEXT_BOX_HEIGHT = 220


def _show_item(item: ShownItem) -> None:
    if item.kind == "text":
        st.caption(md_text(item.name))
        box = st.container(height=TEXT_BOX_HEIGHT, border=True) if item.long else st.container()
        box.text(item.text or "(empty)")
    elif item.kind == "image":
        st.caption(md_text(f"{item.name}: {item.text}"))
        st.image(item.image)
    elif item.kind == "error":
        st.warning(md_text(item.text))
    else:
        st.caption(md_text(f"{item.name} = {item.text}"))


def show_point(project: Project, i: int) -> None:
    """Draw point ``i`` of ``project``: its items, else its picture and feature values."""
    items = shown_items(project, i)
    for item in items:
        _show_item(item)
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


__all__ = ["show_point"]
