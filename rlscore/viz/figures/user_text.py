"""User strings in a figure: class, feature, group and project names shown as typed.

Plotly renders a subset of HTML in every text field (``<a href>``, ``<br>``, ``<span style>``…),
so every user string goes through :func:`plain_text` before it reaches a figure. Templates
(``hovertemplate``) never contain them: they refer to the trace's name instead.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from rlscore.core.conventions.json_values import plain_scalar


def plain_text(value: object) -> str:
    """``str(value)`` escaped so that plotly shows it as typed instead of rendering its HTML.

    Only ``&``, ``<`` and ``>`` are escaped: plotly decodes exactly those entities (and
    numeric ones), so ``&quot;`` would show literally, while a quote outside a tag is harmless.

    Parameters
    ----------
    value : object
        A user string: a class, feature, project or group name.

    Returns
    -------
    str
    """
    return html.escape(str(value), quote=False)


def class_text(c: object, class_names: Mapping[str, str] | None = None) -> str:
    """The display name of class ``c`` (``class_names[str(c)]``, else ``c``), escaped for plotly.

    Parameters
    ----------
    c : object
        A class value.
    class_names : mapping str -> str, optional
        The project's display names, keyed by ``str(class value)``.

    Returns
    -------
    str
    """
    c = plain_scalar(c)  # the key rule of Project.class_text: np.float64(1.0) is class "1"
    return plain_text((class_names or {}).get(str(c)) or c)


__all__ = ["class_text", "plain_text"]
