"""scikit-learn's estimator checks (``check_estimator``) for every estimator ``rlscore`` exports.

``RLSPath`` is not an estimator (it takes the kernel and the targets in ``__init__``); every
other class ``rlscore`` exports from :mod:`rlscore.core` is, and is checked here in the
configurations below. Checks that cannot apply are declared per configuration in
:func:`expected_failed_checks`, each with its reason; pytest's ``xfail_strict`` option
(pyproject.toml) makes one that starts passing fail the run, so the list cannot go stale.

Why some configurations are not the defaults:

* ``LGCClassifier(n_neighbors=3)``: most checks fit on 10 points, and a graph of the 10 nearest
  neighbours needs more than 10 (``fit`` says so; tests/test_lgc.py tests that message);
* ``SpecifiedErrorClassifier(eta=1.0)``: the checks fit on random labels, where no classifier
  meets error targets below 1: ``fit`` then reports "targets infeasible" and ``predict``
  raises (tests/test_error_rates.py tests that), so the checks would never reach a prediction.
  With ``eta = 1`` (κ = 0) there is always a solution, the maximum-margin separation of the
  class means, and every check runs on the same code path as any other target.
"""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from rlscore import (
    BDLDA,
    GraphOCL,
    KernelLogisticRegression,
    LGCClassifier,
    LowRankKernel,
    MultiLabelRLS,
    ReducedRLSClassifier,
    RLSClassifier,
    SpecifiedErrorClassifier,
)

ESTIMATORS = [
    # RLS: the kernels, the offset, balanced weights, automatic λ and the precomputed kernel
    RLSClassifier(),
    RLSClassifier(kernel="linear", lam="auto", offset=True, class_weight="balanced"),
    RLSClassifier(kernel="polynomial", degree=2, lam=0.5, loo_error="squared", offset=True),
    RLSClassifier(kernel="precomputed", lam=0.5),
    ReducedRLSClassifier(),
    ReducedRLSClassifier(method="nystrom", kernel="linear", landmarks="ic"),
    KernelLogisticRegression(),
    KernelLogisticRegression(kernel="precomputed"),
    KernelLogisticRegression(kernel="graph", graph_k=3),
    LGCClassifier(n_neighbors=3),
    LGCClassifier(affinity="precomputed"),
    GraphOCL(),
    BDLDA(),
    BDLDA(treelet_level=2, max_features=4),
    SpecifiedErrorClassifier(eta=1.0),
    SpecifiedErrorClassifier(eta=1.0, kernel="rbf", solver="iterative"),
    LowRankKernel(),
    LowRankKernel(landmarks="ensemble", n_landmarks=3),
    MultiLabelRLS(),
    MultiLabelRLS(kernel="linear", lam="auto", offset=True, class_weight="balanced"),
]

#: checks that predict on points other than the ones fitted (a transductive model refuses them)
PREDICT_ELSEWHERE = (
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit_idempotent",
)
#: checks that pass class labels (0, 1, 2 …, or floats) where GraphOCL takes its positive mask
MASK_AS_LABELS = (
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_estimators_nan_inf",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1feature",
    "check_dict_unchanged",
    "check_n_features_in",
    "check_fit2d_predict1d",
)


#: checks that pass one column of class labels where MultiLabelRLS takes an (n, L) multi-hot Y
MULTI_HOT_AS_LABELS = (
    "check_complex_data",
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_dtype_object",
    "check_estimator_sparse_array",
    "check_estimator_sparse_matrix",
    "check_estimator_sparse_tag",
    "check_estimators_dtypes",
    "check_estimators_empty_data_messages",
    "check_estimators_fit_returns_self",
    "check_estimators_nan_inf",
    "check_estimators_overwrite_params",
    "check_estimators_pickle",
    "check_estimators_pickle(readonly_memmap=True)",
    "check_f_contiguous_array_estimator",
    "check_fit2d_1feature",
    "check_fit2d_1sample",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_fit_idempotent",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in",
    "check_n_features_in_after_fitting",
    "check_pipeline_consistency",
    "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
)


def expected_failed_checks(estimator) -> dict[str, str]:
    """Checks that do not apply to a configuration, with the reason."""
    failing = {}
    if isinstance(estimator, RLSClassifier):
        if not estimator.offset:
            failing["check_class_weight_classifiers"] = (
                "RBF RLS without offset decays to 0 away from the data whatever the class "
                "weights, so the argmax there is decided by tiny values (with offset=True the "
                "heavy class's offset is about +1 and the check passes)"
            )
        if estimator.class_weight == "balanced" and estimator.lam == "auto":
            failing["check_sample_weight_equivalence_on_dense_data"] = (
                "balanced weights and the auto-λ grid depend on the class counts, which "
                "repeating or removing points changes"
            )
    if getattr(estimator, "kernel", None) == "precomputed" and not isinstance(
        estimator, SpecifiedErrorClassifier
    ):
        failing["check_decision_proba_consistency"] = (
            "the check passes raw features, not a kernel matrix"
        )
    transductive = isinstance(estimator, LGCClassifier) or (
        isinstance(estimator, KernelLogisticRegression) and estimator.kernel == "graph"
    )
    if transductive:
        failing.update(
            dict.fromkeys(PREDICT_ELSEWHERE, "transductive: predicts only the pool it was fit on")
        )
    if isinstance(estimator, KernelLogisticRegression) and estimator.kernel == "graph":
        failing["check_decision_proba_consistency"] = (
            "transductive: predicts only the pool it was fit on"
        )
    if isinstance(estimator, LGCClassifier) and estimator.affinity == "precomputed":
        failing["check_fit2d_1feature"] = (
            "with a precomputed affinity the check's labels come from the affinity's first "
            "column, which holds one class only"
        )
    if isinstance(estimator, GraphOCL):
        failing.update(
            dict.fromkeys(
                MASK_AS_LABELS,
                "fit takes positive_mask (True = labeled positive, the rest unlabeled); the "
                "check passes class labels, which are not such a mask",
            )
        )
    if isinstance(estimator, MultiLabelRLS):
        failing.update(
            dict.fromkeys(
                MULTI_HOT_AS_LABELS,
                "fit takes an (n, L) 0/1 multi-hot Y (or label sets with their classes); the "
                "check passes one column of class labels, which is not such a matrix",
            )
        )
    return failing


# strict xfails (an expected failure that passes fails the run) come from pytest's
# xfail_strict option in pyproject.toml: the keyword of the same name needs scikit-learn 1.7
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
