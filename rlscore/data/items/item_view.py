"""What a person is shown of one point: its items (texts, images, context values) and, for a
project without items, its feature values as uploaded.

This is the non-UI half of the Label and Review pages' point view
(:func:`rlscore.ui.label.point_view.show_point` draws it). An image is read only from a file under
the project's image root (``meta["image_root"]``) or the server's (``$RLSCORE_IMAGE_ROOT``),
or from an http(s) URL if the server allows it (``$RLSCORE_ALLOW_IMAGE_URLS``), through
:func:`rlscore.data.features.images.load_image` (same checks and pixel cap as when the
project was made: the files may have changed since); a cell that cannot be shown
becomes a message naming the column and the row, never an exception, so one broken file never
stops the labeling loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from rlscore.data.features import FeatureInputError
from rlscore.data.features.image_urls import is_url, shown_url
from rlscore.data.features.images import load_image, server_image_root
from rlscore.data.items.columns import item_values, raw_feature_values
from rlscore.data.projects.project import Project

#: a text longer than this (characters) is shown in a scrolling box rather than inline
LONG_TEXT = 600
#: images are shown at most this many pixels on their longer side
MAX_SHOWN_SIDE = 400


@dataclass(frozen=True)
class ShownItem:
    """One item column of one point, ready to draw.

    Attributes
    ----------
    name : str
        The column's name (shown as plain text).
    kind : str
        ``"text"``, ``"image"``, ``"context"`` or ``"error"`` (a cell that cannot be shown;
        ``text`` then says why).
    text : str
        The text, the context value as text, or the error message.
    image : PIL.Image.Image or None
        The decoded image (at most :data:`MAX_SHOWN_SIDE` pixels on its longer side).
    """

    name: str
    kind: str
    text: str = ""
    image: Image.Image | None = None

    @property
    def long(self) -> bool:
        """Whether the text needs a scrolling box."""
        return len(self.text) > LONG_TEXT


def image_root(project: Project) -> Path | None:
    """The folder the project's image cells are relative to: the project's own
    (``meta["image_root"]``), else the server's (``$RLSCORE_IMAGE_ROOT``), else None."""
    root = (project.meta or {}).get("image_root")
    if root:
        return Path(root)
    return server_image_root()


def _image(project: Project, column: str, value, point: int) -> ShownItem:
    try:
        # no root (a project of URLs): load_image refuses a file path with a message
        im = load_image(str(value), image_root(project), column, point)
    except FeatureInputError as exc:
        return ShownItem(column, "error", str(exc))
    im.thumbnail((MAX_SHOWN_SIDE, MAX_SHOWN_SIDE))
    # a URL is named without its user-info and query (they may hold credentials)
    name = shown_url(str(value)) if is_url(str(value)) else str(value)
    return ShownItem(column, "image", name, im)


def shown_items(project: Project, point: int) -> list[ShownItem]:
    """The items of ``point`` in the order the uploader chose them (empty for a project
    without items)."""
    shown = []
    for name, kind, value in item_values(getattr(project, "items", None) or [], point):
        if kind == "image":
            shown.append(_image(project, name, value, point))
        else:
            shown.append(ShownItem(name, kind, "" if value is None else str(value)))
    return shown


def shown_features(project: Project, point: int) -> dict[str, float]:
    """The feature values of ``point`` as uploaded (a standardised project's scaling undone)."""
    return raw_feature_values(project.X, project.feature_names, project.meta or {}, point)


__all__ = [
    "LONG_TEXT",
    "MAX_SHOWN_SIDE",
    "ShownItem",
    "image_root",
    "shown_features",
    "shown_items",
]
