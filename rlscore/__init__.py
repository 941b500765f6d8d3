"""rlscore — active learning with regularized least squares and kernel logistic regression.

The engine behind the rlscore labeling app: kernels, RLS with exact leave-one-out, confidence
estimates, and query strategies (ARLS, A-optimal KLR, baselines) under one protocol.
"""

from rlscore.datasets import Dataset, list_samples, load_sample
from rlscore.kernels import graph_kernel, kernel_matrix, pool_kernel
from rlscore.query import STRATEGIES, QueryStrategy, make_strategy

__version__ = "0.1.0"

__all__ = [
    "STRATEGIES",
    "Dataset",
    "QueryStrategy",
    "graph_kernel",
    "kernel_matrix",
    "list_samples",
    "load_sample",
    "make_strategy",
    "pool_kernel",
]
