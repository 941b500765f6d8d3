"""How one pool point is shown to a person (Label and Review pages): its image when the
project's rows are images, else its feature values."""

from __future__ import annotations

import streamlit as st

from rlscore.data.projects import Project
from rlscore.ui.text import md_text
from rlscore.viz.geometry import image_array

#: up to this many features are shown inline; more go into an expander
INLINE_FEATURES = 6


def show_point(project: Project, i: int) -> None:
    """Draw point ``i`` of ``project``: an image (``meta["image_shape"]``) and the features."""
    shape = project.meta.get("image_shape")
    if shape:
        st.image(image_array(project.X[i], shape), width=112)
    x = project.X[i]
    if len(x) <= INLINE_FEATURES:
        st.caption(
            " · ".join(
                f"{md_text(f)} = {v:.4g}" for f, v in zip(project.feature_names, x, strict=True)
            )
        )
    else:
        with st.expander(f"{len(x)} feature values"):
            st.dataframe({"feature": project.feature_names, "value": x}, hide_index=True)


__all__ = ["show_point"]
