"""A fitted Nyström feature map as plain arrays: ``φ(x) = k(x, Z) N``, without scikit-learn.

:class:`~rlscore.core.kernels.lowrank.LowRankKernel` fits the map — it chooses the landmarks
Z and ``N = K_mm^{-1/2}`` — and is a scikit-learn transformer, so importing it imports
scikit-learn (1.2–1.4 s of CPU on a cold server). :class:`NystromMap` is the fitted map of one
group of landmarks and nothing else: what the features of a large pool kept on disk are read
back as (:mod:`rlscore.sessions.state.feature_files`), so that a restarted server maps new
points (the pool plot's grid) without loading scikit-learn. Both compute the features with
:func:`nystrom_features`.
"""

from __future__ import annotations

import numpy as np

from rlscore.core.conventions.input_validation import check_matrix
from rlscore.core.kernels.functions import kernel_matrix

#: rows of the points whose kernel columns are computed at a time (n × m blocks stay small)
BLOCK_ROWS = 16_384


def nystrom_features(
    X: np.ndarray,
    landmarks: np.ndarray,
    normalization,
    *,
    kernel: str,
    sigma: float | None,
    degree: int,
) -> np.ndarray:
    """``k(X, Z) N`` for the landmarks Z and a normalization N (dense or sparse), computed
    over blocks of :data:`BLOCK_ROWS` rows."""
    out = np.empty((X.shape[0], normalization.shape[1]))
    for s in range(0, X.shape[0], BLOCK_ROWS):
        K = kernel_matrix(
            X[s : s + BLOCK_ROWS], landmarks, kernel=kernel, sigma=sigma, degree=degree
        )
        out[s : s + BLOCK_ROWS] = K @ normalization
    return out


class NystromMap:
    """The fitted feature map of one group of landmarks: ``φ(x) = k(x, Z) N``.

    Parameters
    ----------
    kernel : {"linear", "polynomial", "rbf"}
        The kernel the map approximates.
    sigma : float or None
        RBF width σ (None for the other kernels).
    degree : int
        Polynomial degree.
    landmarks : ndarray (m, d)
        The landmark points Z.
    normalization : ndarray (m, r)
        ``K_mm^{-1/2}`` on its r kept eigen-directions (or ``L⁻ᵀ`` of pivoted Cholesky).
    landmark_indices : ndarray (m,) or None
        The landmarks' pool indices (None when they are not pool points).
    features : ndarray (n, r) or None
        The pool's features Φ, if known.

    Attributes
    ----------
    landmarks_, normalization_, sigma_, landmark_indices_, features_
        As :class:`~rlscore.core.kernels.lowrank.LowRankKernel`'s fitted attributes of the
        same names.

    Raises
    ------
    ValueError
        Parts whose shapes do not fit together.
    """

    def __init__(
        self,
        kernel: str,
        sigma: float | None,
        degree: int,
        landmarks: np.ndarray,
        normalization: np.ndarray,
        landmark_indices: np.ndarray | None = None,
        features: np.ndarray | None = None,
    ) -> None:
        Z = check_matrix(landmarks, "landmarks", min_samples=1)
        N = np.asarray(normalization, dtype=np.float64)
        if N.ndim != 2 or N.shape[0] != Z.shape[0]:
            raise ValueError(f"normalization {N.shape} does not fit {Z.shape[0]} landmarks")
        if features is not None and (features.ndim != 2 or features.shape[1] != N.shape[1]):
            raise ValueError(f"features {features.shape} do not fit {N.shape[1]} directions")
        self.kernel, self.sigma_, self.degree = kernel, sigma, int(degree)
        self.landmarks_, self.normalization_ = Z, N
        self.landmark_indices_ = landmark_indices
        self.features_ = features

    def transform(self, X) -> np.ndarray:
        """Features ``φ(x) = k(x, Z) N`` of any points, (n, r)."""
        X = check_matrix(X, "X", min_samples=1)
        if X.shape[1] != self.landmarks_.shape[1]:
            raise ValueError(
                f"X has {X.shape[1]} features, the map's landmarks {self.landmarks_.shape[1]}"
            )
        return nystrom_features(
            X, self.landmarks_, self.normalization_,
            kernel=self.kernel, sigma=self.sigma_, degree=self.degree,
        )  # fmt: skip


__all__ = ["BLOCK_ROWS", "NystromMap", "nystrom_features"]
