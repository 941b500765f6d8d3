"""A count and its noun in words ("1 label", "2 labels"): one rule for every text the app
and the command line write about a number of things."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` followed by ``noun``, in the plural unless ``n`` is 1.

    Parameters
    ----------
    n : int
        The count.
    noun : str
        The singular, with any words before the noun (``"more label"``).
    plural : str, optional
        The plural when it is not ``noun + "s"`` (``"classes"``).

    Returns
    -------
    str
        ``"1 label"``, ``"0 labels"``, ``"2 more labels"``, ``"2 classes"``.
    """
    n = int(n)
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


__all__ = ["counted"]
