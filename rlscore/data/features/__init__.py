"""Features made on the spot from a project's items, offline (no model weights downloaded).

* :mod:`~rlscore.data.features.text`: TF-IDF (scikit-learn) reduced by truncated SVD to a
  dense basis, with the explained variance recorded.
* :mod:`~rlscore.data.features.embeddings`: uploaded embeddings, as numeric columns or one
  column holding a vector per row, validated.
* :mod:`~rlscore.data.features.images`: downscaled grey pixels of images under a project
  root (Pillow), the fallback when no embedding is uploaded.

Every builder raises :class:`FeatureInputError` (a ``ValueError``) with a message naming the
column and the row; every long-running builder takes a ``progress(fraction, message)``
callback (the signature of Streamlit's ``st.progress``; ``None`` for none).
"""

from __future__ import annotations

from collections.abc import Callable

#: ``progress(fraction in [0, 1], message)``
Progress = Callable[[float, str], None]


class FeatureInputError(ValueError):
    """Features cannot be built from a column; the message names the column and the row."""


def report(progress: Progress | None, fraction: float, message: str) -> None:
    """Call ``progress`` if there is one."""
    if progress is not None:
        progress(min(max(float(fraction), 0.0), 1.0), message)


__all__ = ["FeatureInputError", "Progress", "report"]
