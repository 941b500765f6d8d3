"""RLS by scikit-learn's KernelRidge, one per one-vs-all column with the docs/mathematics.md §1 loss
weights as
sample weights, and the baselines' scores from its decision values: the references of the
low-memory strategies (no pool kernel, kernel columns of the labeled points only).
"""

from __future__ import annotations

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

from reference.arls import naive_proba, spec_weights, targets
from reference.fisher_yates import fisher_yates


def sk_kernel(X, Z, kernel, sigma, degree=2):
    """k(X, Z) by scikit-learn (RBF ``gamma = 1/(2σ²)``, polynomial ``(1 + x·z)^p``)."""
    if kernel == "rbf":
        return rbf_kernel(X, Z, gamma=1.0 / (2.0 * sigma**2))
    if kernel == "linear":
        return linear_kernel(X, Z)
    return polynomial_kernel(X, Z, degree=degree, gamma=1.0, coef0=1.0)


def reference_f(X, Z, labeled, labels, classes, kernel, sigma, lam, class_weight, degree=2):
    """RLS decision values at ``Z`` (n_Z, T'): one KernelRidge per one-vs-all column, each
    with its own docs/mathematics.md §1 loss weights as sample weights."""
    T = len(classes)
    cols = 1 if T == 2 else T
    if not labeled:
        return np.zeros((Z.shape[0], cols))
    idx = [classes.index(v) for v in labels]
    W, _ = spec_weights(idx, classes, class_weight)
    Y = targets(idx, T)
    XL = X[labeled]
    K_LL, K_ZL = sk_kernel(XL, XL, kernel, sigma, degree), sk_kernel(Z, XL, kernel, sigma, degree)
    f = np.empty((Z.shape[0], cols))
    for t in range(cols):
        krr = KernelRidge(alpha=lam, kernel="precomputed")
        f[:, t] = krr.fit(K_LL, Y[:, t], sample_weight=W[t, idx]).predict(K_ZL)
    return f


def reference_scores(name, f, labeled, seed, n):
    """Scores of a baseline from the reference decision values, NaN on labeled points."""
    T = 2 if f.shape[1] == 1 else f.shape[1]
    if name == "random":
        rank = np.empty(n)
        rank[fisher_yates(np.random.default_rng(seed), n)] = np.arange(n)
        s = rank
    elif name == "uncertainty":
        top = np.sort(f, axis=1)
        s = np.abs(f[:, 0]) if T == 2 else top[:, -1] - top[:, -2]
    else:
        P = naive_proba(f, True, T)
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.where(P > 0, P * np.log(P), 0.0).sum(axis=1)  # minus the entropy
    s = s.astype(float)
    s[labeled] = np.nan
    return s
