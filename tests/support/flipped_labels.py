"""Labels with a few flipped on purpose, for the "probably wrong" queue's tests.

Forty points of a project are labeled by ``ada`` through the store with their true class,
except two whose 7 nearest labeled neighbours all share their true class (deep inside a
class, where a flipped label is plainly wrong): those get the other class (labels ±1).
"""

from __future__ import annotations

import numpy as np

from rlscore.storage import Event


def label_with_flips(
    store, project: str, n_labels: int = 40, n_flipped: int = 2
) -> tuple[list[int], list[int], np.ndarray]:
    """Append the labels to ``store``; returns the flipped points, the other points deep inside
    their class (labeled right) and the project's truth."""
    loaded = store.load_project(project)
    truth, X = loaded.truth, loaded.X
    points = np.random.default_rng(0).choice(truth.size, n_labels, replace=False).tolist()
    Xl = X[points]
    near = np.argsort(((Xl[:, None] - Xl[None]) ** 2).sum(axis=2), axis=1)[:, 1:8]
    inside = [
        p for k, p in enumerate(points) if (truth[np.take(points, near[k])] == truth[p]).all()
    ]
    flipped = inside[:n_flipped]
    for i in points:
        label = -truth[i] if i in flipped else truth[i]
        store.append_event(project, Event("label", i, int(label), "ada"))
    return flipped, inside[n_flipped:], truth
