"""rlscore — active learning with regularized least squares and kernel logistic regression.

The engine behind the rlscore labeling app: kernels, RLS with exact leave-one-out, confidence
estimates, and query strategies (ARLS, A-optimal KLR, baselines) under one protocol. The
estimators follow scikit-learn's API: RLS, kernel logistic regression, LGC label spreading,
Graph-OCL (positive-unlabeled), BDLDA and the specified-error classifier; those with an RBF
kernel read their width off the data unless given one (``sigma="median"``,
:mod:`rlscore.core.kernels.rbf_width`).
"""

from rlscore.core.lazy.exports import lazy_exports

# : defining module -> the public names taken from it; each is imported on first access, so :
# ``import rlscore.ui.shell.sidebar`` (the app's first page) does not import every floor,
# scikit-learn : and pandas with it
_EXPORTS = {
    "rlscore.core.rls": ("confidence",),
    "rlscore.core.evaluation.label_issues": ("label_issues",),
    "rlscore.core.classifiers.bdlda": ("BDLDA",),
    "rlscore.core.classifiers.specified_error": ("SpecifiedErrorClassifier",),
    "rlscore.core.graph.ocl": ("GraphOCL",),
    "rlscore.core.kernels.rbf_width": ("SIGMA_RULES", "median_sigma", "scale_sigma"),
    "rlscore.core.kernels.functions": ("graph_kernel", "kernel_matrix", "pool_kernel"),
    "rlscore.core.klr.classifier": ("KernelLogisticRegression",),
    "rlscore.core.graph.lgc_classifier": ("LGCClassifier",),
    "rlscore.core.kernels.lowrank": ("LowRankKernel",),
    "rlscore.core.rls.reduced": ("ReducedRLSClassifier",),
    "rlscore.core.rls.classifier": ("RLSClassifier",),
    "rlscore.core.rls.multilabel": ("MultiLabelRLS",),
    "rlscore.core.rls.path": ("RLSPath",),
    "rlscore.data.projects.project": ("Project", "ProjectInputError"),
    "rlscore.data.projects.table_project": ("project_from_table",),
    "rlscore.data.upload.table_reading": ("read_table",),
    "rlscore.data.samples.bundled": (
        "Dataset",
        "ensure_sample_projects",
        "list_samples",
        "load_sample",
    ),
    "rlscore.experiments.comparison.compare": ("compare_strategies",),
    "rlscore.experiments.simulation.simulate": ("simulate",),
    "rlscore.query": (
        "ARLS",
        "DEFAULT_MULTILABEL_STRATEGY",
        "MULTILABEL_STRATEGIES",
        "STRATEGIES",
        "AOptimalKLR",
        "EntropyQuery",
        "FocusedARLS",
        "LGCQuery",
        "LowRankAOptimalKLR",
        "LowRankARLS",
        "MaxEntropyKLR",
        "NoCandidatesError",
        "QueryStrategy",
        "RandomQuery",
        "UncertaintyQuery",
        "make_strategy",
        "predicted_sets",
    ),
    "rlscore.sessions": (
        "LabelingSession",
        "Overlap",
        "export_labels",
        "project_agreement",
        "project_settings",
        "save_project_settings",
        "undo_last",
    ),
    "rlscore.storage": (
        "Event",
        "LabelStore",
        "PostgresLabelStore",
        "SQLiteLabelStore",
        "StaleActionError",
        "open_store",
    ),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())

__version__ = "0.1.0"
