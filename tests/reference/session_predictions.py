"""What a session recorded and showed per click before issue 25 part 4, computed the direct
way: the whole pool's ``predict()`` and ``predict_proba()`` (an object array of labels for
string classes), coded point by point, the validation errors from the labels themselves."""

from __future__ import annotations

import numpy as np

from rlscore.core.conventions.json_values import plain_scalar
from rlscore.core.evaluation.validation_error import validation_errors

__all__ = ["point_prediction", "pool_predictions", "recorded", "validation_errors"]


def point_prediction(engine, i: int) -> tuple[object, float]:
    """The query panel's predicted class and confidence of point ``i``."""
    predicted = plain_scalar(np.asarray(engine.predict())[i])
    return predicted, float(np.max(np.asarray(engine.predict_proba())[i]))


def pool_predictions(engine) -> tuple[np.ndarray, np.ndarray]:
    """The pool plot's predicted classes and largest class probabilities."""
    confidence = np.asarray(engine.predict_proba(), dtype=float).max(axis=1)
    return np.asarray(engine.predict()), confidence


def recorded(engine, truth, classes, labeled) -> tuple[np.ndarray, tuple | None]:
    """The history entry of a click: the predicted classes' positions in ``classes`` and the
    ``(error, balanced error)`` on the unlabeled points (None without truth)."""
    pred = np.asarray(engine.predict())
    position = {c: k for k, c in enumerate(classes)}
    codes = np.array([position[v] for v in pred.tolist()], dtype=np.int64)
    if truth is None:
        return codes, None
    mask = np.ones(len(truth), dtype=bool)
    mask[list(labeled)] = False
    return codes, validation_errors(np.asarray(truth)[mask], pred[mask])
