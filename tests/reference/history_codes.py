"""The session history as it kept the predicted classes before 2026-11-27: the whole array
of codes per label (rlscore.sessions.views.diagnostics.History now keeps the latest array and the
differences). Kept as the reference its figures must equal."""

from __future__ import annotations

import numpy as np


class FullCodesHistory:
    """The figures of a session along its labeling path (entry n: the state with n labels)."""

    def __init__(self) -> None:
        self.risk: list[float] = []
        self.validation: list[float | None] = []
        self.balanced_validation: list[float | None] = []
        self.change: list[float | None] = []
        self._codes: list[np.ndarray] = []  # predicted class positions on the pool

    def record(
        self,
        n_labeled: int,
        risk: float,
        codes: np.ndarray,
        errors: tuple[float | None, float | None] | None,
    ) -> None:
        """Set entry ``n_labeled`` (dropping any later ones): the estimated ``risk``, the
        predicted class ``codes`` on the pool and the validation ``errors`` (None: no truth)."""
        for entries in (self.risk, self.validation, self.balanced_validation, self.change):
            del entries[n_labeled:]
        del self._codes[n_labeled:]
        prev = self._codes[n_labeled - 1] if 0 < n_labeled <= len(self._codes) else None
        self._codes.append(codes)
        self.risk.append(float(risk))
        self.change.append(None if prev is None else float(np.mean(codes != prev)))
        if errors is not None:
            self.validation.append(errors[0])
            self.balanced_validation.append(errors[1])

    def prediction_change(self, window: int) -> float | None:
        """Fraction of pool points whose predicted class changed over the last ``window``
        labels; None with fewer labels than that."""
        n = len(self._codes) - 1
        if n < window or window < 1:
            return None
        return float(np.mean(self._codes[n] != self._codes[n - window]))
