"""rlscore — active learning with regularized least squares and kernel logistic regression.

The engine behind the rlscore labeling app: kernels, RLS with exact leave-one-out, confidence
estimates, and query strategies (ARLS, A-optimal KLR, baselines) under one protocol. The
estimators follow scikit-learn's API: RLS, kernel logistic regression, LGC label spreading,
Graph-OCL (positive-unlabeled), BDLDA and the specified-error classifier; those with an RBF
kernel read their width off the data unless given one (``sigma="median"``,
:mod:`rlscore.core.kernel_width`).
"""

from rlscore.core import confidence
from rlscore.core.bdlda import BDLDA
from rlscore.core.error_rates import SpecifiedErrorClassifier
from rlscore.core.graph_ocl import GraphOCL
from rlscore.core.kernel_width import SIGMA_RULES, median_sigma, scale_sigma
from rlscore.core.kernels import graph_kernel, kernel_matrix, pool_kernel
from rlscore.core.klr import KernelLogisticRegression
from rlscore.core.lgc import LGCClassifier
from rlscore.core.lowrank import LowRankKernel
from rlscore.core.reduced_rls import ReducedRLSClassifier
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
    FocusedARLS,
    LGCQuery,
    LowRankAOptimalKLR,
    LowRankARLS,
    MaxEntropyKLR,
    NoCandidatesError,
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
    # estimators (scikit-learn API)
    "BDLDA",
    "GraphOCL",
    "KernelLogisticRegression",
    "LGCClassifier",
    "LowRankKernel",
    "RLSClassifier",
    "RLSPath",
    "ReducedRLSClassifier",
    "SpecifiedErrorClassifier",
    # kernels and the RBF width rules
    "SIGMA_RULES",
    "graph_kernel",
    "kernel_matrix",
    "median_sigma",
    "pool_kernel",
    "scale_sigma",
    "confidence",
    # query strategies
    "ARLS",
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
    "STRATEGIES",
    "UncertaintyQuery",
    "make_strategy",
    # projects, sample data, storage
    "Dataset",
    "Event",
    "LabelStore",
    "PostgresLabelStore",
    "Project",
    "ProjectInputError",
    "SQLiteLabelStore",
    "StaleActionError",
    "ensure_sample_projects",
    "list_samples",
    "load_sample",
    "open_store",
    "project_from_table",
    "read_table",
    # labeling sessions and experiments
    "LabelingSession",
    "Overlap",
    "compare_strategies",
    "export_labels",
    "project_agreement",
    "project_settings",
    "save_project_settings",
    "simulate",
    "undo_last",
]
