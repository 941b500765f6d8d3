"""One validation error: a labeling session and a simulation measure the same thing.

Both use :mod:`rlscore.core.evaluation.validation_error`: without a held-out split, the validation
set is the pool points not labeled yet. Reference: RLS refitted independently on the labels, its
predictions on the unlabeled points counted by hand.
"""

import numpy as np
import pytest
from support.sessions import moons_store, moons_subset, session

from rlscore.core.rls.classifier import RLSClassifier
from rlscore.experiments.comparison.compare import held_out_validation
from rlscore.experiments.simulation.simulate import simulate


def test_session_and_simulation_agree_on_the_same_labels(tmp_path):
    with moons_store(tmp_path) as store:
        s = session(store)  # ARLS, σ = 2, λ = 0.5 (the project's)
        s.auto_label(8)
        X, truth = s.project.X, s.project.truth.astype(int)
        res = simulate(
            X, truth, "arls", queries=8, params={"sigma": 2.0, "lam": 0.5}, classes=[-1, 1]
        )
        steps = res.runs[0].steps
        assert [st.index for st in steps[1:]] == list(s.labels)  # the same states
        assert s.validation_history == pytest.approx([st.validation_error for st in steps])
        assert s.balanced_validation_history == pytest.approx([st.balanced_error for st in steps])
        checked = 0
        for n in range(1, 9):
            labeled = list(s.labels)[:n]
            if len(set(truth[labeled])) < 2:
                continue
            pred = RLSClassifier(sigma=2.0, lam=0.5).fit(X[labeled], truth[labeled]).predict(X)
            rest = np.setdiff1d(np.arange(truth.size), labeled)
            wrong = pred[rest] != truth[rest]
            assert s.validation_history[n] == pytest.approx(wrong.mean())
            per_class = [wrong[truth[rest] == c].mean() for c in (-1, 1)]
            assert s.balanced_validation_history[n] == pytest.approx(np.mean(per_class))
            checked += 1
        assert checked >= 4


def test_compare_page_names_the_unlabeled_points_for_uploaded_projects():
    validation, where = held_out_validation(moons_subset(), ["arls"], {"kernel": "rbf"})
    assert validation is None and "unlabeled points of the pool (90)" in where
