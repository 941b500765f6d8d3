"""Per-point Python references for the label codes of a session's history: each label looked
up in a dict, one by one (the implementation before issue 25 made it one vectorized pass)."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score


def class_codes(pred, classes) -> np.ndarray:
    """Position of each prediction in ``classes``."""
    position = {c: k for k, c in enumerate(classes)}
    return np.array([position[v] for v in np.asarray(pred).tolist()], dtype=np.int64)


def validation_errors(y_true, y_pred) -> tuple[float | None, float | None]:
    """``(1 − accuracy, 1 − balanced accuracy)``, labels compared as Python objects."""
    t = np.asarray(y_true, dtype=object).tolist()
    p = np.asarray(y_pred, dtype=object).tolist()
    if not t:
        return None, None
    classes = {v: k for k, v in enumerate(dict.fromkeys([*t, *p]))}
    ti = [classes[v] for v in t]
    pi = [classes[v] for v in p]
    present = sorted(set(ti))
    recalls = [np.mean([b == c for a, b in zip(ti, pi, strict=True) if a == c]) for c in present]
    return 1.0 - accuracy_score(ti, pi), 1.0 - float(np.mean(recalls))
