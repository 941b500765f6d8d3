"""rlscore — active learning with regularized least squares and kernel logistic regression.

The engine behind the rlscore labeling app: kernels, RLS with exact leave-one-out, confidence
estimates, and query strategies (ARLS, A-optimal KLR, baselines) under one protocol.
"""

from rlscore.core import confidence
from rlscore.core.kernels import graph_kernel, kernel_matrix, pool_kernel
from rlscore.core.klr import KernelLogisticRegression
from rlscore.core.rls import RLSClassifier
from rlscore.core.rls_path import RLSPath
from rlscore.data.projects import Project, ProjectInputError, project_from_table, read_table
from rlscore.data.samples import Dataset, ensure_sample_projects, list_samples, load_sample
from rlscore.experiments.compare import compare_strategies
from rlscore.experiments.simulate import simulate
from rlscore.query import (
    ARLS,
    STRATEGIES,
    AOptimalKLR,
    EntropyQuery,
    MaxEntropyKLR,
    QueryStrategy,
    RandomQuery,
    UncertaintyQuery,
    make_strategy,
)
from rlscore.sessions import (
    LabelingSession,
    Overlap,
    export_labels,
    project_agreement,
    project_settings,
    save_project_settings,
    undo_last,
)
from rlscore.storage import (
    Event,
    LabelStore,
    PostgresLabelStore,
    SQLiteLabelStore,
    StaleActionError,
    open_store,
)

__version__ = "0.1.0"

__all__ = [
    "ensure_sample_projects",
    "ARLS",
    "AOptimalKLR",
    "KernelLogisticRegression",
    "MaxEntropyKLR",
    "STRATEGIES",
    "EntropyQuery",
    "RandomQuery",
    "UncertaintyQuery",
    "simulate",
    "Dataset",
    "Event",
    "LabelStore",
    "LabelingSession",
    "Project",
    "ProjectInputError",
    "QueryStrategy",
    "RLSClassifier",
    "RLSPath",
    "Overlap",
    "PostgresLabelStore",
    "SQLiteLabelStore",
    "project_agreement",
    "StaleActionError",
    "compare_strategies",
    "confidence",
    "export_labels",
    "graph_kernel",
    "kernel_matrix",
    "list_samples",
    "load_sample",
    "make_strategy",
    "open_store",
    "pool_kernel",
    "project_from_table",
    "project_settings",
    "read_table",
    "save_project_settings",
    "undo_last",
]
