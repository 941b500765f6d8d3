"""rlscore — active learning with regularized least squares and kernel logistic regression.

The engine behind the rlscore labeling app: kernels, RLS with exact leave-one-out, confidence
estimates, and query strategies (ARLS, A-optimal KLR, baselines) under one protocol.
"""

from rlscore import confidence
from rlscore.compare import compare_strategies
from rlscore.datasets import Dataset, list_samples, load_sample
from rlscore.kernels import graph_kernel, kernel_matrix, pool_kernel
from rlscore.klr import KernelLogisticRegression
from rlscore.labeling import LabelingSession, export_labels
from rlscore.projects import Project, ProjectInputError, project_from_table, read_table
from rlscore.query import STRATEGIES, QueryStrategy, make_strategy
from rlscore.query.aoptimal import AOptimalKLR, MaxEntropyKLR
from rlscore.query.arls import ARLS
from rlscore.query.baselines import EntropyQuery, RandomQuery, UncertaintyQuery
from rlscore.rls import RLSClassifier, RLSPath
from rlscore.simulate import simulate
from rlscore.storage import Event, LabelStore, SQLiteLabelStore, open_store

__version__ = "0.1.0"

__all__ = [
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
    "SQLiteLabelStore",
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
    "read_table",
]
