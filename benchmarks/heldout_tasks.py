"""Held-out tasks for issue 33: two tables and two text tasks that are in no other suite.

Nothing here was used to tune a strategy, an estimate or a stop rule; the tasks exist to check
them on data they were not chosen on. Every task loads offline from ``benchmarks/data/``
(committed CSVs; their builders there state source, date and licence).

=============================  =====  ====  ==  =============================================
name                               n     d   T  definition
=============================  =====  ====  ==  =============================================
``penguins_sex``                 333    11   2  Palmer penguins (CC0): sex from bill length and
                                                depth, flipper length, body mass, year and the
                                                one-hot species and island; rows with a
                                                missing value dropped
``anes96_party``                 944     9   3  ANES 1996 (public domain): party identification
                                                in three groups, Democrat (strong or weak) /
                                                independent (incl. leaners) / Republican
                                                (strong or weak), from the other 9 columns
``npm_plugin_families``         1000   100   5  npm descriptions: which tool the package
                                                extends (eslint, babel, webpack, postcss,
                                                gulp), the tool's name masked
``pypi_framework_extensions``   1000   100   5  PyPI summaries: which framework the package
                                                extends (flask, fastapi, pytest, sphinx,
                                                mkdocs), the framework's name masked
=============================  =====  ====  ==  =============================================

Same contract as :data:`strategy_suite.DATASETS`: a loader returns ``(X, y)``, numeric
features standardised over the whole set, labels ``0 … T − 1`` (classes in sorted order of
their names). The text tasks turn texts into features exactly as a text project does
(:func:`rlscore.data.features.text.build_text_features`, default settings), like
``text_strategies.text_task``; d is the feature dimension that gives. :func:`register` adds
the tasks to :data:`strategy_suite.DATASETS`, so the suite's scripts run them by name.

Run ``python benchmarks/heldout_tasks.py`` for a sanity table: per task n, d, T, the class
shares and the 5-fold stratified accuracy of scikit-learn's ``SVC()`` (RBF, its defaults)
beside the majority-class share: learnable, not trivial.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import strategy_suite  # noqa: E402
from strategy_suite import Dataset  # noqa: E402

from rlscore.data.features.text import build_text_features  # noqa: E402

DATA_DIR = Path(__file__).resolve().parent / "data"


def _standardise(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _codes(labels: pd.Series | np.ndarray) -> np.ndarray:
    """Labels → 0 … T − 1 in sorted order of the label values."""
    return np.unique(np.asarray(labels), return_inverse=True)[1].astype(np.int64)


def penguins_sex() -> Dataset:
    """Palmer penguins: sex (female 0, male 1) from the other columns (table above)."""
    frame = pd.read_csv(DATA_DIR / "penguins.csv").dropna()
    X = pd.get_dummies(frame.drop(columns="sex"), columns=["species", "island"], dtype=float)
    return _standardise(X.to_numpy()), _codes(frame["sex"])


#: ANES 1996 party identification (0 strong Democrat … 6 strong Republican) → three groups
PARTY_GROUPS = np.array([0, 0, 1, 1, 1, 2, 2])


def anes96_party() -> Dataset:
    """ANES 1996: Democrat 0 / independent 1 / Republican 2 from the other columns."""
    frame = pd.read_csv(DATA_DIR / "anes96.csv", sep="\t")
    frame.columns = [c.strip("'") for c in frame.columns]
    y = PARTY_GROUPS[frame["PID"].to_numpy().astype(int)]
    return _standardise(frame.drop(columns="PID").to_numpy()), y.astype(np.int64)


def text_rows(name: str) -> pd.DataFrame:
    """The ``text,label`` rows of the text task ``name`` (``benchmarks/data/<name>.csv``)."""
    return pd.read_csv(DATA_DIR / f"{name}.csv", dtype=str, keep_default_na=False)


def text_task(name: str) -> Callable[[], Dataset]:
    """A loader of the text task ``name``: texts → features, labels → 0 … T − 1."""

    def load() -> Dataset:
        rows = text_rows(name)
        return build_text_features(rows["text"].tolist()).X, _codes(rows["label"])

    return load


TEXT_TASKS = ("npm_plugin_families", "pypi_framework_extensions")

#: name → loader returning (X, y integer labels 0 … T − 1)
HELDOUT_TASKS: dict[str, Callable[[], Dataset]] = {
    "penguins_sex": penguins_sex,
    "anes96_party": anes96_party,
    **{name: text_task(name) for name in TEXT_TASKS},
}


def register() -> None:
    """Add :data:`HELDOUT_TASKS` to :data:`strategy_suite.DATASETS` (under the same names)."""
    strategy_suite.DATASETS.update(HELDOUT_TASKS)


def sanity_row(name: str, folds: int = 5) -> str:
    """One line of the sanity table: n, d, T, class shares, SVC accuracy, majority share."""
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.svm import SVC

    X, y = HELDOUT_TASKS[name]()
    shares = np.bincount(y) / len(y)
    cv = StratifiedKFold(folds, shuffle=True, random_state=0)
    acc = cross_val_score(SVC(), X, y, cv=cv)
    share_text = " ".join(f"{s:.2f}" for s in shares)
    return (
        f"{name:27s} {len(y):5d} {X.shape[1]:4d} {len(shares):2d}  {share_text:30s}"
        f" {100 * acc.mean():5.1f} ± {100 * acc.std():3.1f}  {100 * shares.max():5.1f}"
    )


def main() -> None:
    print(
        f"{'task':27s} {'n':>5s} {'d':>4s} {'T':>2s}  {'class shares':30s}"
        f" {'SVC 5-fold %':>12s}  {'major %':>7s}"
    )
    for name in HELDOUT_TASKS:
        print(sanity_row(name), flush=True)


if __name__ == "__main__":
    main()
