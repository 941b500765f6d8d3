"""Numeric feature columns beside text, image or embedding features: weighted, not dominant.

explore18, finding 3: a counter column (0, 3, …, 120) beside a text column made 99.95 % of the
mean squared distance, and the distances correlated 0.999999 with the counter's alone. The
reference here is independent of the code: pairwise distances from ``scipy.spatial.distance``
and eigenvalues of ``numpy.cov`` of the blocks, against the rule of
:mod:`rlscore.data.projects.standardization` (the numeric block's first principal component
given the variance of the other features').
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import pdist

from rlscore.data.items.columns import raw_feature_values
from rlscore.data.projects import standardization
from rlscore.data.projects.project import ProjectInputWarning
from rlscore.data.projects.standardization import leading_variance
from rlscore.data.projects.table_project import project_from_table

TOPICS = {
    "tech": "kernel python debian shell editor package library compiler".split(),
    "fruit": "apple banana cherry mango peach grape lemon melon".split(),
}


def counter_table(n: int = 60) -> pd.DataFrame:
    """Short texts of two topics (a few shared words) and a counter 0, 3, 6, … beside them."""
    rng = np.random.default_rng(5)
    topics = ["tech", "fruit"] * (n // 2)
    shared = "sound game graphics".split()
    texts = [" ".join(rng.choice(TOPICS[t] + shared, size=rng.integers(4, 12))) for t in topics]
    return pd.DataFrame({"text": texts, "topic": topics, "num": np.arange(n) * 3})


def correlation(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a, b)[0, 1])


def top_eigenvalue(X: np.ndarray) -> float:
    """The variance of the first principal component (population covariance)."""
    return float(np.linalg.eigvalsh(np.atleast_2d(np.cov(X, rowvar=False, bias=True)))[-1])


def build(df: pd.DataFrame, **kw):
    return project_from_table(
        df, "t", feature_columns=["num"], truth_column="topic", text_columns=["text"],
        text_settings={"n_components": 10, "exact_svd": True}, **kw,
    )  # fmt: skip


def test_a_counter_beside_texts_no_longer_decides_the_distances():
    df = counter_table()
    with pytest.warns(ProjectInputWarning, match="'num' standardised and weighted") as caught:
        p = build(df)
    warned = [str(w.message) for w in caught if "weighted" in str(w.message)]
    assert len(warned) == 1 and warned[0] in p.meta["warnings"]
    assert "against the text features" in warned[0] and "unscaled they made 99." in warned[0]
    D = pdist(p.X)
    by_counter = pdist(df[["num"]].to_numpy(dtype=float))
    by_texts = pdist(p.X[:, 1:])
    # the reporter's measure: 0.999999 before (here 0.9999995, and -0.03 with the texts'
    # distances); now the counter weighs as much as the texts' main topic axis, no more
    assert correlation(D, by_counter) < 0.7
    assert correlation(D, by_texts) > correlation(D, by_counter)
    # the rule: the counter's variance is the text block's first principal component's
    assert p.X[:, 0].var() == pytest.approx(top_eigenvalue(p.X[:, 1:]), rel=1e-9)
    np.testing.assert_allclose(p.X[:, 0].mean(), 0.0, atol=1e-12)
    assert p.meta["standardized"] is True
    # the annotator still reads the counter as uploaded
    assert raw_feature_values(p.X, p.feature_names, p.meta, 7)["num"] == pytest.approx(21)
    # "yes" (standardize=True) weighs the same way
    with pytest.warns(ProjectInputWarning, match="weighted"):
        np.testing.assert_array_equal(build(df, standardize=True).X, p.X)


def test_standardize_false_keeps_the_raw_values_and_says_nothing():
    df = counter_table()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ProjectInputWarning)
        p = build(df, standardize=False)
    np.testing.assert_array_equal(p.X[:, 0], df["num"])
    assert p.meta["standardized"] is False and p.meta["warnings"] == []
    assert correlation(pdist(p.X), pdist(df[["num"]].to_numpy(dtype=float))) > 0.999


def test_several_numeric_columns_are_one_block_against_an_embedding():
    rng = np.random.default_rng(3)
    n = 50
    emb = rng.normal(size=(n, 3)) * [0.02, 0.01, 0.005]
    df = pd.DataFrame(
        {
            "grams": rng.normal(4000, 800, n),
            "mm": rng.normal(40, 5, n),
            "emb": [json.dumps(list(v)) for v in emb],
            "y": ["a", "b"] * (n // 2),
        }
    )
    with pytest.warns(ProjectInputWarning, match=r"'grams', 'mm' standardised.*embedding 'emb'"):
        p = project_from_table(
            df, "e", feature_columns=["grams", "mm"], truth_column="y", embedding_column="emb"
        )
    numeric, embedding = p.X[:, :2], p.X[:, 2:]
    np.testing.assert_allclose(embedding, emb, rtol=1e-15)  # the embedding is left as it is
    # each numeric column counts alike (equal variance), the block as the embedding's top axis
    assert numeric[:, 0].var() == pytest.approx(numeric[:, 1].var(), rel=1e-9)
    assert top_eigenvalue(numeric) == pytest.approx(top_eigenvalue(emb), rel=1e-9)
    raw = raw_feature_values(p.X, p.feature_names, p.meta, 4)
    assert raw["grams"] == pytest.approx(df["grams"][4]) and raw["mm"] == pytest.approx(df["mm"][4])


def test_numeric_columns_alone_are_scaled_as_before():
    # no other features: standardised only when the spreads differ, never weighted
    df = pd.DataFrame({"a": [1.0, 2, 3, 5], "b": [0.5, 0.1, 0.3, 0.2], "y": [0, 1, 0, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ProjectInputWarning)
        p = project_from_table(df, "n", truth_column="y")
    np.testing.assert_array_equal(p.X, df[["a", "b"]])
    p = project_from_table(df, "n", truth_column="y", standardize=True)
    np.testing.assert_allclose(p.X.var(axis=0), [1.0, 1.0])


def test_a_large_blocks_strongest_direction_is_estimated_from_a_sample(monkeypatch):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(3000, 3)) * [3.0, 1.0, 0.5]
    full = top_eigenvalue(X)
    assert leading_variance([X[:, :2], X[:, 2:]]) == pytest.approx(full, rel=1e-9)
    monkeypatch.setattr(standardization, "DIRECTION_SAMPLE", 500)
    sampled = leading_variance([X])
    assert sampled != full and sampled == pytest.approx(full, rel=0.15)
