"""Conversion of numpy values and metadata to plain JSON types (one rule for the package)."""

from __future__ import annotations

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
