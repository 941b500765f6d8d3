"""Text features: TF-IDF reduced by truncated SVD to a dense basis (latent semantic analysis).

Every strategy, the low-rank kernel machinery and the plots need a dense feature matrix of
modest width; TF-IDF of a real corpus has tens of thousands of sparse columns. So the texts
are turned into TF-IDF vectors by scikit-learn (:class:`~sklearn.feature_extraction.text.
TfidfVectorizer`, or :class:`~sklearn.feature_extraction.text.HashingVectorizer` followed by
:class:`~sklearn.feature_extraction.text.TfidfTransformer` when the vocabulary is too large to
keep) and projected on their leading singular directions by
:class:`~sklearn.decomposition.TruncatedSVD` (randomized, seeded: the same texts and settings
give the same features). The share of the TF-IDF matrix's variance the basis keeps is
recorded (``explained_variance``), so a user can see what the reduction lost.

The settings (:class:`TextFeatureSettings`) are project settings: analyzer (words or
character n-grams within word boundaries), n-gram range, vocabulary size, dimension,
hashing. Nothing is downloaded: the features come from the texts alone.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from rlscore.data.features import FeatureInputError, Progress, report
from rlscore.data.features.recent_results import RecentResults, input_digest

if TYPE_CHECKING:
    from scipy import sparse

#: analyzers offered: scikit-learn's ``"word"`` and ``"char_wb"`` (character n-grams inside
#: word boundaries: robust to typos, inflections and languages without a word tokenizer)
ANALYZERS = ("word", "char_wb")
#: the n-gram range used when the settings give none
DEFAULT_NGRAMS = {"word": (1, 1), "char_wb": (3, 5)}
#: texts hashed per chunk (the progress bar's step)
HASH_CHUNK = 10_000


@dataclass(frozen=True)
class TextFeatureSettings:
    """How texts become features (a project setting; the defaults suit a few hundred to a
    few hundred thousand short texts).

    Attributes
    ----------
    analyzer : str
        ``"word"`` (default) or ``"char_wb"``.
    ngram_range : tuple of int or None
        Smallest and largest n-gram; None: (1, 1) for words, (3, 5) for characters.
    vocabulary_size : int
        Keep the most frequent terms up to this many (TF-IDF columns). Ignored with hashing.
    n_components : int
        Dimension of the dense basis (capped below the number of texts and of terms).
    hashing : bool
        Hash terms into ``n_hash_features`` columns instead of keeping a vocabulary: constant
        memory for huge vocabularies; collisions are rare at the default size.
    n_hash_features : int
        Columns of the hashed TF-IDF matrix.
    min_df : int
        Drop terms found in fewer texts (vocabulary only).
    sublinear_tf : bool
        Use ``1 + log(tf)`` instead of raw counts (long texts do not dominate).
    lowercase : bool
        Lower-case the texts first.
    exact_svd : bool
        Use ARPACK's exact truncated SVD instead of the randomized one (slower on large
        corpora; the randomized basis keeps nearly the same variance).
    svd_sample : int
        With more texts than this, the basis is fitted on this many texts drawn at random
        (seeded) and every text is projected on it: the basis of a large corpus is well
        estimated from a sample, and the SVD's cost stops growing with the corpus.
    seed : int
        Seed of the randomized SVD.
    """

    analyzer: str = "word"
    ngram_range: tuple[int, int] | None = None
    vocabulary_size: int = 20_000
    n_components: int = 100
    hashing: bool = False
    n_hash_features: int = 2**20
    min_df: int = 1
    sublinear_tf: bool = True
    lowercase: bool = True
    exact_svd: bool = False
    svd_sample: int = 20_000
    seed: int = 0

    def __post_init__(self) -> None:
        if self.analyzer not in ANALYZERS:
            raise FeatureInputError(
                f"text analyzer {self.analyzer!r} is not offered: choose one of {ANALYZERS}"
            )
        lo, hi = self.ngrams
        if not (1 <= lo <= hi <= 10):
            raise FeatureInputError(f"n-gram range {self.ngrams} must be 1 ≤ low ≤ high ≤ 10")
        for name in ("vocabulary_size", "n_components", "n_hash_features", "min_df", "svd_sample"):
            if int(getattr(self, name)) < 1:
                raise FeatureInputError(f"text setting {name} must be at least 1")

    @property
    def ngrams(self) -> tuple[int, int]:
        """The n-gram range in effect."""
        return tuple(self.ngram_range or DEFAULT_NGRAMS[self.analyzer])

    def to_dict(self) -> dict:
        """JSON-serialisable form (recorded in the project's meta)."""
        d = asdict(self)
        d["ngram_range"] = list(self.ngrams)
        return d

    @classmethod
    def from_dict(cls, d: dict | None) -> TextFeatureSettings:
        """Inverse of :meth:`to_dict`; unknown keys are refused, missing keys default."""
        d = dict(d or {})
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(d) - known)
        if unknown:
            raise FeatureInputError(f"unknown text settings {unknown}: known are {sorted(known)}")
        if d.get("ngram_range") is not None:
            d["ngram_range"] = tuple(int(v) for v in d["ngram_range"])
        return cls(**d)


@dataclass
class TextFeatures:
    """Dense text features and what they were made with.

    Attributes
    ----------
    X : ndarray (n, k)
        The texts' coordinates in the SVD basis (float64).
    feature_names : list of str
        ``text_svd_1`` … ``text_svd_k``.
    explained_variance_ratio : ndarray (k,)
        Share of the TF-IDF matrix's variance along each basis direction.
    n_terms : int
        Columns of the TF-IDF matrix (vocabulary kept, or hashed columns).
    settings : TextFeatureSettings
    terms : list of str or None
        The vocabulary (column order of ``components``); None with hashing.
    components : ndarray (k, n_terms) or None
        The basis in term space (for explaining a feature by its top terms); None with
        hashing.
    """

    X: np.ndarray
    feature_names: list[str]
    explained_variance_ratio: np.ndarray
    n_terms: int
    settings: TextFeatureSettings
    terms: list[str] | None = None
    components: np.ndarray | None = field(default=None, repr=False)

    @property
    def explained_variance(self) -> float:
        """Total share of the TF-IDF variance the basis keeps (0–1)."""
        return float(np.sum(self.explained_variance_ratio))

    def top_terms(self, k: int = 8, components: int = 10) -> list[list[str]]:
        """The ``k`` terms weighing most (largest magnitude) in each of the first
        ``components`` basis directions: what a text feature means. Empty with hashing."""
        if self.terms is None or self.components is None:
            return []
        order = np.argsort(-np.abs(self.components[:components]), axis=1, kind="stable")
        return [[self.terms[j] for j in row[:k]] for row in order]

    def summary(self) -> dict:
        """What the project's meta records about its text features (with the top terms of the
        first basis directions, so a page can say what the features mean)."""
        return {
            **self.settings.to_dict(),
            "dimension": int(self.X.shape[1]),
            "n_terms": int(self.n_terms),
            "explained_variance": round(self.explained_variance, 6),
            "top_terms": self.top_terms(),
        }


def tfidf_matrix(
    texts: list[str], settings: TextFeatureSettings, progress: Progress | None = None
) -> tuple[sparse.csr_matrix, list[str] | None]:
    """The TF-IDF matrix (rows l2-normalised) of ``texts`` and its terms (None with hashing).

    Raises
    ------
    FeatureInputError
        No term found in any text (all empty, or only stop characters).
    """
    # imported here: projects import this module, and most pages never build text features
    from sklearn.feature_extraction.text import (
        HashingVectorizer,
        TfidfTransformer,
        TfidfVectorizer,
    )

    common = {
        "analyzer": settings.analyzer,
        "ngram_range": settings.ngrams,
        "lowercase": settings.lowercase,
        "dtype": np.float64,
    }
    try:
        if settings.hashing:
            hasher = HashingVectorizer(
                n_features=settings.n_hash_features, alternate_sign=False, norm=None, **common
            )
            chunks = []
            for start in range(0, len(texts), HASH_CHUNK):
                chunks.append(hasher.transform(texts[start : start + HASH_CHUNK]))
                report(progress, 0.6 * (start + HASH_CHUNK) / len(texts), "hashing the terms")
            from scipy import sparse  # here: a page that builds no text features never needs it

            counts = sparse.vstack(chunks, format="csr")
            if counts.nnz == 0:
                raise ValueError("empty vocabulary")
            tfidf = TfidfTransformer(sublinear_tf=settings.sublinear_tf).fit_transform(counts)
            return tfidf.tocsr(), None
        vectorizer = TfidfVectorizer(
            max_features=settings.vocabulary_size,
            min_df=settings.min_df,
            sublinear_tf=settings.sublinear_tf,
            **common,
        )
        report(progress, 0.0, "counting the terms")
        tfidf = vectorizer.fit_transform(texts)
        report(progress, 0.6, "counted the terms")
        return tfidf.tocsr(), vectorizer.get_feature_names_out().tolist()
    except ValueError as exc:
        if "empty vocabulary" not in str(exc):
            raise
        if settings.analyzer == "word":  # scikit-learn's words: two or more letters or digits
            found = (
                "no word of two or more letters or digits (every text is empty or holds only "
                "punctuation or one-character words)"
            )
        else:
            found = "no characters but spaces (every text is empty)"
        raise FeatureInputError(
            f"the texts contain no terms to build features from: {found}; choose a column "
            "with real texts"
            + (", or character n-grams (char_wb)" if settings.analyzer == "word" else "")
        ) from None


def _total_variance(W: sparse.csr_matrix) -> float:
    """Sum of the column variances of a sparse matrix (without densifying it)."""
    n = W.shape[0]
    mean = np.asarray(W.mean(axis=0)).ravel()
    return float(W.multiply(W).sum() / n - mean @ mean)


#: how many recent results :func:`build_text_features` keeps (:mod:`~rlscore.data.features.
#: recent_results`)
RECENT_RESULTS = 2
_RECENT: RecentResults[TextFeatures] = RecentResults(RECENT_RESULTS)


def build_text_features(
    texts: list[str],
    settings: TextFeatureSettings | None = None,
    progress: Progress | None = None,
) -> TextFeatures:
    """Dense features of ``texts``: TF-IDF, then truncated SVD (see the module's docstring).

    The same texts with the same settings give the same features; the last
    :data:`RECENT_RESULTS` results are kept and returned again (as copies) without rebuilding.

    Parameters
    ----------
    texts
        One text per point (empty texts get the zero vector).
    settings
        Defaults: :class:`TextFeatureSettings`.
    progress
        ``progress(fraction, message)``, called as the stages finish.

    Returns
    -------
    TextFeatures
    """
    settings = settings or TextFeatureSettings()
    texts = ["" if t is None else str(t) for t in texts]
    if len(texts) < 2:
        raise FeatureInputError("text features need at least 2 texts")
    key = input_digest([repr(sorted(asdict(settings).items())), *texts])
    kept = _RECENT.get(key)
    if kept is not None:
        report(progress, 1.0, f"text features ready: {kept.X.shape[1]} dimensions")
        return kept
    features = _build(texts, settings, progress)
    _RECENT.put(key, features)
    return features


def _build(
    texts: list[str], settings: TextFeatureSettings, progress: Progress | None
) -> TextFeatures:
    # imported here: projects import this module, and most pages never build text features
    from sklearn.decomposition import TruncatedSVD

    tfidf, terms = tfidf_matrix(texts, settings, progress)
    n_terms = tfidf.shape[1]
    if terms is None:  # hashed: the SVD rank is bounded by the columns actually used
        used = np.unique(tfidf.indices)
        tfidf = tfidf[:, used]
    k = max(1, min(settings.n_components, tfidf.shape[0] - 1, tfidf.shape[1] - 1))
    report(progress, 0.65, f"reducing {tfidf.shape[1]:,} terms to {k} dimensions")
    if tfidf.shape[1] < 2:  # one term: it is the basis
        X = tfidf.toarray()
        ratio = np.ones(1)
        components = np.ones((1, 1))
    else:
        algorithm = "arpack" if settings.exact_svd else "randomized"
        svd = TruncatedSVD(n_components=k, algorithm=algorithm, random_state=settings.seed)
        n = tfidf.shape[0]
        if n <= settings.svd_sample:
            X = svd.fit_transform(tfidf)
            ratio = svd.explained_variance_ratio_
        else:
            rng = np.random.default_rng(settings.seed)
            rows = np.sort(rng.choice(n, size=settings.svd_sample, replace=False))
            svd.fit(tfidf[rows])
            report(progress, 0.9, f"projecting {n:,} texts on the basis")
            X = np.asarray(tfidf @ svd.components_.T)
            ratio = X.var(axis=0) / _total_variance(tfidf)
        components = svd.components_
    report(progress, 1.0, f"text features ready: {k} dimensions")
    return TextFeatures(
        X=np.ascontiguousarray(X, dtype=np.float64),
        feature_names=[f"text_svd_{j + 1}" for j in range(X.shape[1])],
        explained_variance_ratio=np.asarray(ratio, dtype=np.float64),
        n_terms=int(n_terms),
        settings=settings,
        terms=terms,
        components=None if terms is None else np.asarray(components),
    )


__all__ = [
    "ANALYZERS",
    "DEFAULT_NGRAMS",
    "TextFeatureSettings",
    "TextFeatures",
    "build_text_features",
    "tfidf_matrix",
]
