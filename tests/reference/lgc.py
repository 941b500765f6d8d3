"""Local and global consistency (Sheng eq. 3.5) as the references of the LGC strategy's tests:
an independently fitted :class:`rlscore.core.graph.lgc_classifier.LGCClassifier` (its own dense or
sparse solve on the whole system) and the margin of its probabilities, written out.
"""

from __future__ import annotations

import numpy as np

from rlscore.core.graph.lgc_classifier import LGCClassifier


def reference_proba(X, y, idx, graph_k=6, alpha=0.99, normalization="random_walk"):
    """LGCClassifier fitted on the labels of ``idx`` (classes sorted, as the session's)."""
    yy = np.full(X.shape[0], np.nan)
    yy[idx] = y[idx]
    clf = LGCClassifier(n_neighbors=graph_k, alpha=alpha, normalization=normalization)
    return clf.fit(X, yy).predict_proba(X)


def reference_margin(P: np.ndarray, labeled) -> np.ndarray:
    top = np.sort(P, axis=1)
    s = top[:, -1] - top[:, -2]
    s[list(labeled)] = np.nan
    return s
