"""ARLS's scoring pass as it was before the fused kernel (issue 25), kept as a reference.

A plain-function copy of ``ARLS.scores``, ``Lookahead.expected_risks``,
``hypothetical_risks`` and ``pool_risk`` (rlscore 2026-11-26): numpy passes over blocks of
covariance rows, one pass per operation, label and class. ``tests/test_arls_fused.py`` checks
the fused pass against it to 1e-10. It reads the strategy's state only through
:func:`state_of` and imports nothing of the scoring path.
"""

from __future__ import annotations

import numpy as np

#: float64 elements per working block (1 MiB), as the engine had it
BLOCK_ELEMENTS = 1 << 17


def state_of(q) -> dict:
    """What the scoring pass reads of a started ARLS: covariances, predictions, weights."""
    inv_w, lam_w, targets, group_of = q.lookahead_terms()
    return {
        "Ds": list(q._Ds),
        "m": q._m,
        "q": q.class_probabilities() * inv_w,
        "inv_w": inv_w,
        "lam_w": lam_w,
        "targets": targets,
        "group_of": group_of,
        "clip": q.clip,
        "labeled": list(q.labeled_),
    }


def blocked_arls_scores(state: dict) -> np.ndarray:
    """Expected risk of every unlabeled candidate (NaN for labeled points), the old way."""
    Ds, m = state["Ds"], state["m"]
    n, Tm = m.shape
    out = np.full(n, np.nan)
    unlabeled = np.setdiff1d(np.arange(n), state["labeled"])
    step = max(1, BLOCK_ELEMENTS // (n * Tm))
    for a in range(0, unlabeled.size, step):
        idx = unlabeled[a : a + step]
        out[idx] = expected_risks(state, idx, [D[idx] for D in Ds])
    return out


def expected_risks(state: dict, idx: np.ndarray, rows: list[np.ndarray]) -> np.ndarray:
    """``Σ_y p̂(y|x_i)/w_y · R̂^w(f^{+(i,y)})`` for the candidates ``idx``."""
    targets, m, group_of = state["targets"], state["m"], state["group_of"]
    shared = not group_of.any()
    diag = np.column_stack([r[np.arange(idx.size), idx] for r in rows])
    dii = diag if shared else diag[:, group_of]
    total = np.zeros(idx.size)
    for c in range(targets.shape[0]):
        alpha = (targets[c][None, :] - m[idx]) / (dii + state["lam_w"][:, c])
        risk = hypothetical_risks(rows, alpha, m, group_of, state["inv_w"], clip=state["clip"])
        total += state["q"][idx, c] * risk
    return total


def hypothetical_risks(rows, alpha, m, group_of, inv_w, *, clip: bool) -> np.ndarray:
    """Risk (eq. 3.49) of each hypothetical classifier ``f' = m + d_i α_i`` on the points."""
    b, p = rows[0].shape
    Tm = m.shape[1]
    F = np.empty((b, p) if Tm == 1 else (b, Tm, p))
    if Tm == 1:
        np.multiply(rows[0], alpha[:, :1], out=F)
        F += m[:, 0]
        return pool_risk(F, inv_w, clip=clip)
    if not group_of.any():
        np.multiply(rows[0][:, None, :], 0.5 * alpha[:, :, None], out=F)
    else:
        for t in range(Tm):
            np.multiply(rows[group_of[t]], 0.5 * alpha[:, t, None], out=F[:, t])
    F += 0.5 * (m.T[None] + 1.0)
    return pool_risk(F, inv_w, clip=clip, halved=True)


def pool_risk(F: np.ndarray, inv_w: np.ndarray, *, clip: bool = True, halved: bool = False):
    """Estimated risk ``Σ_z Σ_{l ≠ ĉ_z} p̂(l|z)/w_l`` of each row of classifiers; F overwritten."""
    if F.ndim == 2:
        n = F.shape[1]
        weighted = inv_w[0] != inv_w[1]
        positive = F > 0 if weighted else None
        np.abs(F, out=F)
        if clip:
            np.minimum(F, 1.0, out=F)
        if not weighted:
            return inv_w[0] * 0.5 * (n - F.sum(axis=1))
        np.subtract(1.0, F, out=F)
        total = F.sum(axis=1)
        np.multiply(F, positive, out=F)
        return 0.5 * (inv_w[1] * total + (inv_w[0] - inv_w[1]) * F.sum(axis=1))
    T = F.shape[1]
    if not halved:
        F += 1.0
        F *= 0.5
    weighted = inv_w.min() != inv_w.max()
    best = np.maximum(F[:, 0], F[:, 1])
    winner = np.zeros(best.shape, dtype=np.intp) if weighted else None
    if weighted:
        winner[F[:, 1] > F[:, 0]] = 1
    for t in range(2, T):
        if weighted:
            np.copyto(winner, t, where=F[:, t] > best)
        np.maximum(best, F[:, t], out=best)
    if clip:
        np.clip(F, 0.0, 1.0, out=F)
        np.clip(best, 0.0, 1.0, out=best)
    total = F.sum(axis=1)
    if weighted:
        errors = np.tensordot(inv_w, F, axes=(0, 1)) - best * inv_w[winner]
    else:
        errors = (total - best) * inv_w[0]
    if not clip:
        return errors.sum(axis=1)
    if weighted:
        uniform = (inv_w.sum() - inv_w[winner]) / T
    else:
        uniform = np.full_like(errors, inv_w[0] * (T - 1) / T)
    risk = np.divide(errors, total, out=uniform, where=total > 0.0)
    return risk.sum(axis=1)
