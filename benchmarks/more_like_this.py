""" "More like this" on labeled text tasks: precision@20 of three rankings (issue 34, item 7).

For every point of a task, the 20 points ranked nearest to it are looked up and the share of
them with the point's own class is its precision@20; the figures are the mean over all points
(micro), the mean of the per-class means (macro) and the worst class. Rankings:

- ``euclidean``: Euclidean distance on the project's text features (what the Label page did
  before; the baseline);
- ``cosine``: the cosine of the same features (latent semantic analysis; what it does now:
  :func:`rlscore.data.items.search.more_like_this` with ``metric="cosine"``);
- ``tfidf-cosine``: the cosine in the full TF-IDF space (the issue's suggestion), computed
  here with scikit-learn's ``TfidfVectorizer`` and the same settings.

Every ranking is a full sort of one similarity matrix with numpy (ties by index); nothing of
the engine's search is used but its features, so the figures check the engine's choice from
outside. Tasks: the bundled samples debian_games and debian_sections, and the held-out text
tasks of ``benchmarks/heldout_tasks.py`` (npm_plugin_families, pypi_framework_extensions).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/more_like_this.py
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from harness import pin_blas, report_machine

pin_blas(1)

from heldout_tasks import TEXT_TASKS, text_rows  # noqa: E402
from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402

from rlscore.data.features.text import TextFeatureSettings, build_text_features  # noqa: E402
from rlscore.data.samples.bundled import project_from_sample  # noqa: E402

K = 20


def tasks() -> Iterator[tuple[str, list[str], np.ndarray, np.ndarray]]:
    """(name, texts, class of each text, the project's text features)."""
    for name in ("debian_games", "debian_sections"):
        p = project_from_sample(name)
        yield name, list(p.texts), np.asarray(p.truth).astype(str), p.X
    for name in TEXT_TASKS:
        rows = text_rows(name)
        texts = rows["text"].tolist()
        yield name, texts, rows["label"].to_numpy(), build_text_features(texts).X


def precision_at_k(similarity: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each point's share of same-class points among its :data:`K` most similar others."""
    S = np.array(similarity, dtype=np.float64)
    np.fill_diagonal(S, -np.inf)
    n = len(y)
    # ties by index: sort by (−similarity, index)
    top = np.lexsort((np.broadcast_to(np.arange(n), S.shape), -S), axis=1)[:, :K]
    return (y[top] == y[:, None]).mean(axis=1)


def rankings(texts: list[str], X: np.ndarray) -> dict[str, np.ndarray]:
    """Similarity matrices, higher = nearer."""
    sq = np.einsum("ij,ij->i", X, X)
    unit = X / np.linalg.norm(X, axis=1, keepdims=True).clip(1e-300)
    s = TextFeatureSettings()
    tfidf = TfidfVectorizer(
        max_features=s.vocabulary_size, min_df=s.min_df, sublinear_tf=s.sublinear_tf
    ).fit_transform(texts)  # rows of unit length: their dot products are cosines
    return {
        "euclidean": -(sq[:, None] + sq[None, :] - 2 * X @ X.T),
        "cosine": unit @ unit.T,
        "tfidf-cosine": (tfidf @ tfidf.T).toarray(),
    }


def main() -> None:
    report_machine()
    print(f"precision@{K}: micro (all points) / macro (class means) / worst class")
    print(
        f"{'task':28} {'n':>5} {'classes':>7}  "
        + "  ".join(f"{m:>20}" for m in ("euclidean", "cosine", "tfidf-cosine"))
    )
    for name, texts, y, X in tasks():
        cells = []
        for S in rankings(texts, X).values():
            hit = precision_at_k(S, y)
            per_class = [hit[y == c].mean() for c in np.unique(y)]
            cells.append(f"{hit.mean():.3f}/{np.mean(per_class):.3f}/{min(per_class):.3f}")
        print(
            f"{name:28} {len(y):>5} {len(np.unique(y)):>7}  " + "  ".join(f"{c:>20}" for c in cells)
        )


if __name__ == "__main__":
    main()
