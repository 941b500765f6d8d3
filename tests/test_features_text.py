"""Text features: TF-IDF and the SVD basis against the formula and an exact SVD."""

import numpy as np
import pytest
from reference.features import exact_lsa, tfidf_dense

from rlscore.data.features import FeatureInputError
from rlscore.data.features.text import TextFeatureSettings, build_text_features, tfidf_matrix

TEXTS = [
    "the cat sat on the mat",
    "a dog chased the cat",
    "stock markets fell sharply today",
    "the central bank raised interest rates",
    "my dog likes the park",
    "investors sold shares as markets fell",
    "a cat and a dog played",
    "bank shares rose after the rates decision",
    "",
    "the cat slept",
]


@pytest.mark.parametrize(
    "analyzer, ngrams, vocab",
    [("word", (1, 1), 20_000), ("word", (1, 2), 15), ("char_wb", (2, 3), 40)],
)
def test_tfidf_matches_the_formula(analyzer, ngrams, vocab):
    settings = TextFeatureSettings(analyzer=analyzer, ngram_range=ngrams, vocabulary_size=vocab)
    W, terms = tfidf_matrix(TEXTS, settings)
    ref, ref_terms = tfidf_dense(TEXTS, analyzer=analyzer, ngram_range=ngrams, max_features=vocab)
    assert terms == ref_terms
    np.testing.assert_allclose(W.toarray(), ref, atol=1e-12)


def _aligned(Z, ref):
    """Z with each column's sign flipped to agree with ref's."""
    return Z * np.sign(np.sum(Z * ref, axis=0))


def _random_texts(n=80, seed=0):
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(60)]
    return [" ".join(rng.choice(words, size=12)) for _ in range(n)]


def test_exact_svd_basis_matches_lapack():
    texts, k = _random_texts(), 5
    tf = build_text_features(texts, TextFeatureSettings(n_components=k, exact_svd=True))
    W, _ = tfidf_dense(texts)
    Z, _, ratio = exact_lsa(W, k)
    assert tf.X.shape == (80, k) and tf.feature_names == [f"text_svd_{j}" for j in range(1, 6)]
    np.testing.assert_allclose(_aligned(tf.X, Z), Z, atol=1e-8)
    np.testing.assert_allclose(tf.explained_variance_ratio, ratio, rtol=1e-8)
    assert tf.summary()["explained_variance"] == pytest.approx(ratio.sum(), rel=1e-5)
    assert tf.summary()["dimension"] == k and tf.summary()["n_terms"] == W.shape[1]
    # each direction's top terms: the largest entries of LAPACK's right singular vectors
    _, _, Vt = np.linalg.svd(W, full_matrices=False)
    terms = tfidf_dense(texts)[1]
    top = [[terms[j] for j in np.argsort(-np.abs(v), kind="stable")[:3]] for v in Vt[:k]]
    assert tf.top_terms(k=3) == top and tf.summary()["top_terms"] == tf.top_terms()


def test_randomized_basis_keeps_nearly_the_exact_variance():
    # a flat spectrum (random words) is the randomized solver's hardest case
    texts, k = _random_texts(), 5
    tf = build_text_features(texts, TextFeatureSettings(n_components=k))
    W, _ = tfidf_dense(texts)
    Z, S, ratio = exact_lsa(W, k)
    np.testing.assert_allclose(_aligned(tf.X, Z)[:, 0], Z[:, 0], atol=1e-5)
    kept = np.linalg.norm(tf.X, "fro") ** 2  # ‖W V_k‖² ≤ Σ top-k σ² (Ky Fan)
    assert 0.97 * np.sum(S**2) <= kept <= np.sum(S**2) * (1 + 1e-12)


def test_dimension_is_capped_and_the_same_texts_give_the_same_features():
    a = build_text_features(TEXTS, TextFeatureSettings(n_components=500))
    b = build_text_features(TEXTS, TextFeatureSettings(n_components=500))
    assert a.X.shape == (len(TEXTS), len(TEXTS) - 1)
    np.testing.assert_array_equal(a.X, b.X)
    assert np.all(a.X[TEXTS.index("")] == 0)  # an empty text is the origin


def test_hashing_gives_the_same_geometry_as_the_vocabulary():
    # no collisions at 2**20 columns for a few dozen terms: the same TF-IDF up to column order
    words = build_text_features(TEXTS, TextFeatureSettings(n_components=4))
    hashed = build_text_features(TEXTS, TextFeatureSettings(n_components=4, hashing=True))
    assert hashed.terms is None and hashed.components is None
    np.testing.assert_allclose(_aligned(hashed.X, words.X), words.X, atol=1e-6)
    W, _ = tfidf_matrix(TEXTS, TextFeatureSettings(hashing=True))
    ref, _ = tfidf_dense(TEXTS)
    np.testing.assert_allclose((W @ W.T).toarray(), ref @ ref.T, atol=1e-12)


def test_progress_is_reported_up_to_one():
    seen = []
    build_text_features(TEXTS, progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and all(m for _, m in seen)


def test_bad_texts_and_settings_are_refused():
    with pytest.raises(FeatureInputError, match="no terms"):
        build_text_features(["", "  ", "!!"])
    # a tester's texts "a", "b", "c", "d": not empty, not punctuation — words too short to count
    with pytest.raises(FeatureInputError, match="no word of two or more letters or digits"):
        build_text_features(["a", "b", "c", "d"])
    with pytest.raises(FeatureInputError, match="no characters but spaces"):
        build_text_features(["", " "], TextFeatureSettings(analyzer="char_wb"))
    with pytest.raises(FeatureInputError, match="analyzer 'chars'"):
        TextFeatureSettings(analyzer="chars")
    with pytest.raises(FeatureInputError, match="n-gram range"):
        TextFeatureSettings(ngram_range=(3, 1))
    with pytest.raises(FeatureInputError, match="unknown text settings"):
        TextFeatureSettings.from_dict({"dims": 3})
    assert TextFeatureSettings.from_dict(TextFeatureSettings(analyzer="char_wb").to_dict()) == (
        TextFeatureSettings(analyzer="char_wb", ngram_range=(3, 5))
    )


def test_a_large_corpus_is_projected_on_a_basis_fitted_to_a_sample():
    texts = _random_texts(n=120, seed=3)
    settings = TextFeatureSettings(n_components=4, svd_sample=50, exact_svd=True)
    tf = build_text_features(texts, settings)
    W, _ = tfidf_dense(texts)
    # every text's coordinates are its TF-IDF row on the basis (orthonormal rows)
    np.testing.assert_allclose(tf.X, W @ tf.components.T, atol=1e-12)
    np.testing.assert_allclose(tf.components @ tf.components.T, np.eye(4), atol=1e-10)
    # the basis is the exact top-4 right singular subspace of the sampled rows
    rows = np.sort(np.random.default_rng(0).choice(120, size=50, replace=False))
    _, _, Vt = np.linalg.svd(W[rows], full_matrices=False)
    np.testing.assert_allclose(np.abs(tf.components @ Vt[:4].T), np.eye(4), atol=1e-8)
    # and the explained variance is measured on all the texts
    np.testing.assert_allclose(tf.explained_variance_ratio, tf.X.var(0) / W.var(0).sum())
