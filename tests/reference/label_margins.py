"""The label checker's thresholded values written out from their definition
(docs/mathematics.md, "Which labels are probably wrong"), for tests that hold the checker to
brute-force LOO values."""

import numpy as np


def thresholded_values(F: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """(n, T) LOO values ``F`` with each class's values less half their mean over the points
    labeled with that class (``codes``: each point's class position)."""
    F = F.copy()
    for k in range(F.shape[1]):
        F[:, k] -= 0.5 * np.mean([F[i, k] for i in range(codes.size) if codes[i] == k])
    return F
