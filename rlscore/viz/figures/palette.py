"""The colours and marker symbols every figure gives the classes.

Class colours come from one qualitative palette, indexed by the position of the class in
``classes`` (the engine's ``classes_`` order), so every figure colours a class the same way.
"""

from __future__ import annotations

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#e377c2",
    "#8c564b",
    "#bcbd22",
    "#7f7f7f",
)
SYMBOLS = ("circle", "square", "diamond", "triangle-up", "cross", "triangle-down", "pentagon")
UNDECIDED = "#b0b0b0"


def class_color(position: int) -> str:
    """Colour of the class at ``position`` in the classes list."""
    return PALETTE[position % len(PALETTE)]


def class_symbol(position: int) -> str:
    """Marker symbol of the class at ``position`` in the classes list (its labeled points)."""
    return SYMBOLS[position % len(SYMBOLS)]


def rgba(hex_colour: str, alpha: float) -> str:
    """``"#rrggbb"`` as a CSS ``rgba(r,g,b,alpha)`` string (e.g. a band's translucent fill).

    Parameters
    ----------
    hex_colour : str
        A colour of :data:`PALETTE` (``#`` and six hex digits).
    alpha : float
        Opacity in [0, 1].

    Returns
    -------
    str
    """
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


__all__ = ["PALETTE", "SYMBOLS", "UNDECIDED", "class_color", "class_symbol", "rgba"]
