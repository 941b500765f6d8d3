"""Conversion of numpy values and metadata to plain JSON types (one rule for the package)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np


def plain_scalar(value):
    """A JSON-friendly Python scalar: numpy scalars -> Python, integral floats -> int."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def jsonable(obj):
    """Meta values as plain JSON types (tuples -> lists, numpy -> Python)."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def class_keys(mapping: Mapping, classes: Sequence) -> tuple[dict, list]:
    """``mapping`` keyed by the classes its keys name, and the keys that name none.

    A mapping keyed by class (class weights, class names) goes through JSON with its keys as
    text (:func:`jsonable`), so a key names a class when it is the class or the class's text:
    ``"1"`` names the class ``1``. This is the one rule for reading such keys back.

    Examples
    --------
    >>> class_keys({"1": 5.0, "7": 2.0}, [0, 1])
    ({1: 5.0}, ['7'])
    """
    plain = [plain_scalar(c) for c in classes]
    by_text = {str(c): c for c in plain}
    matched, unknown = {}, []
    for key, value in mapping.items():
        key = plain_scalar(key)
        known = next((c for c in plain if type(c) is type(key) and c == key), None)
        if known is None:
            known = by_text.get(str(key))
        if known is None:
            unknown.append(key)
        else:
            matched[known] = value
    return matched, unknown
