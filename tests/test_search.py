"""Search over items (substring, regex, "more like this") and the map of the items."""

import numpy as np
import pytest
from reference.features import nearest_by_sorting

from rlscore.data.items.columns import ItemColumn
from rlscore.data.items.item_map import hover_texts, map_coordinates, snippet
from rlscore.data.items.search import SearchError, more_like_this, search_texts

TEXTS = ["A puzzle GAME", "arcade game for kids", "image viewer", "Gamepad driver", "chess"]


def test_substring_search_ignores_case_and_reads_text_literally():
    assert search_texts(TEXTS, "game").tolist() == [0, 1, 3]
    assert search_texts(TEXTS, "game", case_sensitive=True).tolist() == [1]
    assert search_texts(["a.b", "axb"], "a.b").tolist() == [0]  # "." is not a wildcard
    assert search_texts(TEXTS, "game", candidates=np.array([3, 1])).tolist() == [1, 3]
    assert search_texts(TEXTS, "game", limit=2).tolist() == [0, 1]
    assert search_texts(TEXTS, "zebra").tolist() == []


def test_regular_expressions():
    assert search_texts(TEXTS, r"\bgame\b", regex=True).tolist() == [0, 1]
    assert search_texts(TEXTS, r"^(chess|image)", regex=True).tolist() == [2, 4]


@pytest.mark.parametrize(
    "query, message",
    [
        ("(unclosed", r"not a valid regular expression: missing \), unterminated subpattern at "
         r"position 0"),
        ("[a-", "not a valid regular expression: unterminated character set at position 0"),
        ("", "type something"),
        ("x" * 501, "longer than 500"),
    ],
)  # fmt: skip
def test_bad_searches_say_what_is_wrong(query, message):
    with pytest.raises(SearchError, match=message):
        search_texts(TEXTS, query, regex=True)


def test_more_like_this_against_a_full_sort():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 7))
    X[50] = X[3]  # a duplicate: distance 0, found first
    X[60] = X[3] + 1e-3
    for point in (3, 0, 199):
        assert more_like_this(X, point, 15).tolist() == nearest_by_sorting(X, point, 15)
    assert more_like_this(X, 3, 2).tolist() == [50, 60]
    cands = np.arange(100, 200)
    got = more_like_this(X, 3, 5, candidates=cands)
    assert set(got) <= set(cands.tolist()) and 3 not in got
    assert got.tolist() == [j for j in nearest_by_sorting(X, 3, 199) if j >= 100][:5]
    with pytest.raises(SearchError, match="not in the pool of 200"):
        more_like_this(X, 200)


def test_cosine_more_like_this_against_scipy_distances():
    """The cosine ranking is scipy's cosine distance sorted (ties by index); scaling a point
    changes nothing, and an all-zero point comes last."""
    from scipy.spatial.distance import cdist

    rng = np.random.default_rng(2)
    X = rng.normal(size=(120, 6))
    X[40] = 7.5 * X[9]  # the same direction, far away: nearest by angle
    X[41] = 0.0
    for point in (9, 0, 119):
        far = cdist(X[[point]], np.delete(X, [point, 41], axis=0), "cosine")[0]
        others = np.delete(np.arange(120), [point, 41])
        expected = others[np.lexsort((others, far))].tolist() + [41]
        assert more_like_this(X, point, 119, metric="cosine").tolist() == expected
    assert more_like_this(X, 9, 1, metric="cosine").tolist() == [40]
    with pytest.raises(SearchError, match="metric must be one of"):
        more_like_this(X, 9, metric="manhattan")


def test_map_is_the_first_two_principal_components():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 5)) * [5, 3, 1, 0.5, 0.1]
    Z = map_coordinates(X)
    U, S, _ = np.linalg.svd(X - X.mean(axis=0), full_matrices=False)
    ref = U[:, :2] * S[:2]
    np.testing.assert_allclose(np.abs(Z), np.abs(ref), atol=1e-9)
    assert np.all(Z[np.argmax(np.abs(Z), axis=0), [0, 1]] > 0)  # signs fixed
    np.testing.assert_array_equal(
        map_coordinates(X[:, :1]), np.column_stack([X[:, 0], 0 * X[:, 0]])
    )


def test_hover_texts_are_short_single_line_and_escaped():
    assert snippet("<b>bold</b> &\n  more", 80) == "&lt;b&gt;bold&lt;/b&gt; &amp; more"
    assert snippet("word " * 40, 20) == "word word word word…"
    items = [ItemColumn("t", "text", ["<script>x</script>", "plain"])]
    assert hover_texts(items, ["a", "b"]) == ["&lt;script&gt;x&lt;/script&gt;", "plain"]
    images = [ItemColumn("p", "image", ["cats/<1>.png", "dogs\\2.png"])]
    assert hover_texts(images, ["a", "b"]) == ["&lt;1&gt;.png", "2.png"]
    assert hover_texts([], ["<id>", "b"]) == ["&lt;id&gt;", "b"]


def test_an_image_url_hover_shows_its_file_name_without_credentials_or_query():
    urls = [
        "https://user:secret@example.org/img/cat.png?token=abc#frag",
        "http://example.org/dog.jpg",
        "http://[::1/x.png",
    ]
    hovers = hover_texts([ItemColumn("u", "image", urls)], ["a", "b", "c"])
    assert hovers == ["cat.png", "dog.jpg", ""]
    assert not any(s in h for h in hovers for s in ("secret", "token", "abc", "user"))


def test_hover_texts_drop_bidirectional_controls():
    # an item's U+202E reversed the hover's own text after it ("· p=0.55" read "55.0=p")
    items = [ItemColumn("t", "text", ["pay \u202eusd 100", "a\u2066b\u2069c \u202ad\u202c"])]
    assert hover_texts(items, ["a", "b"]) == ["pay usd 100", "abc d"]
    assert snippet("x\u202ey" * 3) == "xyxyxy"
