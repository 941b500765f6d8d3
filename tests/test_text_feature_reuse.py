"""Text features are built once per texts and settings: the Data page asks again on every
widget change, and a rebuild of a large upload took seconds each time.

The reference is a build with the kept results cleared; the count of TF-IDF passes shows
what was rebuilt."""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.data.features import text
from rlscore.data.features.recent_results import RecentResults
from rlscore.data.features.text import TextFeatureSettings, build_text_features

TEXTS = [
    "the kernel of the galaxy",
    "a sprite in the puzzle",
    "chord and tempo of the song",
    "an enzyme in the cell",
    "the shader draws a vector",
    "puzzle games with sprites",
]
SETTINGS = TextFeatureSettings(n_components=3)


@pytest.fixture
def passes(monkeypatch) -> list:
    """The TF-IDF passes made (one per build), with an empty memory of earlier results."""
    monkeypatch.setattr(text, "_RECENT", RecentResults(text.RECENT_RESULTS))
    made = []
    real = text.tfidf_matrix

    def counted(*args, **kwargs):
        made.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(text, "tfidf_matrix", counted)
    return made


def fresh(texts, settings):
    """The features built from scratch (by the builder behind the memory)."""
    return text._build(list(texts), settings, None)


def test_the_same_texts_and_settings_are_not_built_again(passes):
    first = build_text_features(TEXTS, SETTINGS)
    again = build_text_features(list(TEXTS), SETTINGS)
    assert len(passes) == 1
    reference = fresh(TEXTS, SETTINGS)
    for got in (first, again):
        np.testing.assert_array_equal(got.X, reference.X)
        np.testing.assert_array_equal(
            got.explained_variance_ratio, reference.explained_variance_ratio
        )
        assert got.terms == reference.terms and got.feature_names == reference.feature_names


def test_other_texts_or_settings_are_built(passes):
    build_text_features(TEXTS, SETTINGS)
    build_text_features(TEXTS, TextFeatureSettings(n_components=2))
    # the same characters cut differently are other texts
    build_text_features(["the kernel of the", "galaxy", *TEXTS[1:]], SETTINGS)
    build_text_features(["the kernel of", "the galaxy", *TEXTS[1:]], SETTINGS)
    assert len(passes) == 4


def test_a_caller_changing_the_features_does_not_change_the_next_result(passes):
    got = build_text_features(TEXTS, SETTINGS)
    got.X[:] = 7.0
    got.feature_names.append("spoiled")
    again = build_text_features(TEXTS, SETTINGS)
    assert len(passes) == 1
    np.testing.assert_array_equal(again.X, fresh(TEXTS, SETTINGS).X)
    assert "spoiled" not in again.feature_names
    again.X[:] = -1.0
    np.testing.assert_array_equal(build_text_features(TEXTS, SETTINGS).X, fresh(TEXTS, SETTINGS).X)


def test_only_the_most_recent_results_are_kept(passes):
    sizes = [2, 3, 4][: text.RECENT_RESULTS + 1]
    for k in sizes:
        build_text_features(TEXTS, TextFeatureSettings(n_components=k))
    built = len(passes)
    build_text_features(TEXTS, TextFeatureSettings(n_components=sizes[-1]))  # kept
    assert len(passes) == built
    build_text_features(TEXTS, TextFeatureSettings(n_components=sizes[0]))  # the oldest: gone
    assert len(passes) == built + 1
