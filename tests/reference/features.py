"""References for the features made from items (rlscore.data.features).

The TF-IDF matrix is written out with numpy from its definition (scikit-learn's documented
formula: smooth idf ``ln((1 + n) / (1 + df)) + 1``, sublinear tf ``1 + ln(tf)``, rows scaled
to unit length), on the counts of scikit-learn's CountVectorizer (the tokenizer is not what
is under test). The dense basis is the exact SVD of the TF-IDF matrix by LAPACK
(``numpy.linalg.svd``), not the randomized solver rlscore uses; a nearest-neighbour list is a
full sort of all distances.
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer


def tfidf_dense(
    texts: list[str], *, analyzer="word", ngram_range=(1, 1), max_features=None, sublinear=True
) -> tuple[np.ndarray, list[str]]:
    """TF-IDF rows (dense, l2-normalised) and the vocabulary, from the formula."""
    counter = CountVectorizer(analyzer=analyzer, ngram_range=ngram_range, max_features=max_features)
    counts = counter.fit_transform(texts).toarray().astype(np.float64)
    n = counts.shape[0]
    df = (counts > 0).sum(axis=0)
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    tf = np.where(counts > 0, 1.0 + np.log(np.where(counts > 0, counts, 1.0)), 0.0)
    if not sublinear:
        tf = counts
    W = tf * idf
    norms = np.linalg.norm(W, axis=1, keepdims=True)
    return W / np.where(norms > 0, norms, 1.0), counter.get_feature_names_out().tolist()


def exact_lsa(W: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coordinates ``U_k S_k``, singular values and the explained-variance ratios of the
    top ``k`` directions (variance of the coordinates over the total column variance, as
    scikit-learn's TruncatedSVD defines it)."""
    U, S, _ = np.linalg.svd(W, full_matrices=False)
    Z = U[:, :k] * S[:k]
    ratio = Z.var(axis=0) / W.var(axis=0).sum()
    return Z, S[:k], ratio


def nearest_by_sorting(X: np.ndarray, point: int, k: int) -> list[int]:
    """The ``k`` nearest other points by a full sort of (distance, index) pairs."""
    pairs = sorted(
        (float(np.sqrt(((X[j] - X[point]) ** 2).sum())), j) for j in range(len(X)) if j != point
    )
    return [j for _, j in pairs[:k]]
