"""Block-diagonal LDA with greedy feature blocks (BDLDA) and its treelet front end (T-BDLDA).

Sheng, *Novel Algorithms for Large Scale Supervised and One Class Learning* (USC PhD, 2013),
chapter 2 (seed 001; docs/mathematics.md §8), after Pique-Regi & Ortega's BDLDA. Two classes A and B
with a
common covariance K. Notation of the thesis: ``d = m_A − m_B``, ``J_K(w) = (dᵀw)²/(wᵀKw)``
(eqs. 2.2, 2.5), maximised by ``ŵ = K⁻¹d`` with ``J = dᵀK⁻¹d = Δ²`` (2.3, 2.6), and the
plug-in error of the LDA rule (2.8, ``Φ`` the standard normal cdf)::

    P̂_e = π_A Φ(−(Δ²/2 + ln(π_A/π_B))/Δ) + π_B Φ(−(Δ²/2 − ln(π_A/π_B))/Δ).

The algorithm (Algorithms 1 and 3, §2.2.2–2.2.5):

1. *prescreening* ("threshold data by t-score"): keep feature i if
   ``|d_i/σ_i| ≥ fraction · (mean of the top_k largest |d_j/σ_j|)`` with
   ``σ_i² = (SS_A,i + SS_B,i)/n + c`` (thesis: fraction 1/3, top_k 1, or 10 on real data);
2. optional *treelets* (§2.2.4, Algorithm 2; Lee, Nadler & Wasserman, *Treelets — an adaptive
   multi-scale basis for sparse unordered data*, Ann. Appl. Stat. 2(2):435–471, 2008): ``𝓛``
   Jacobi rotations, each decorrelating the two most similar sum variables; BDLDA then runs on
   the coefficients ``x^(𝓛) = Bᵀx`` (eq. 2.9; :mod:`rlscore.core.classifiers.treelets`);
3. a *tree of block-diagonal models* (Algorithm 1, fig. 2.1): from the best single feature,
   every model of F < MaxFeature features spawns (1) the model with a new 1-feature block and
   (2), when the last block is smaller than MaxGrow and than the block before it, the model
   whose last block grows by one feature; each child takes the feature maximising ``J``
   (2.5). The model of least ``P̂_e`` (2.8) is kept;
4. *RFSS* (§2.2.3): remove that model's features and repeat 𝒩 times; the 𝒩 models are
   concatenated block-diagonally (fig. 2.2);
5. the LDA rule on the combined model: ``g(x) = ŵᵀ(x − (m̂_A + m̂_B)/2) + ln(π̂_A/π̂_B)`` with
   ``ŵ = K̂⁻¹d̂`` block by block, class A when ``g(x) ≥ 0`` (2.1).

Estimates are the maximum-likelihood ones the thesis names (§2.2.1): class means, priors
``n_k/n`` and the pooled within-class covariance ``(S_A + S_B)/n``. Class A is ``classes_[1]``
(positive decision values, scikit-learn's convention).

Where the thesis is silent or inconsistent, and what this module does:

* eqs. 2.4/2.7 print ``b = log π_B / log π_A``; the rule consistent with (2.8) (and with any
  LDA text) is ``b = ŵᵀ(m̂_A + m̂_B)/2 − ln(π̂_A/π̂_B)`` in ``g = ŵᵀx − b``: used here.
* Algorithm 1, step 2(2) grows the last block "if F < MaxGrow and F + 1 does not exceed any
  previous subblocks"; with F the model size this would forbid any block after the third
  feature. The caption's L (size of the last block) is meant: ``L < MaxGrow`` and
  ``L + 1 ≤`` the previous block's size (block sizes non-increasing, §2.2.2).
* "do either of the following" with fig. 2.1's branching: both children are generated (a tree;
  its nodes are the partitions of F into parts ≤ MaxGrow), not one greedy path.
* ``P̂_e`` is a strictly decreasing function of ``Ĵ = Δ̂²`` for fixed priors (its derivative
  is ``−π_A φ(a)`` < 0), so "least ``P̂_e``" selects the candidate of largest ``Ĵ``: because
  ``Ĵ`` never decreases along a branch, the kept model has MaxFeature features whenever
  enough candidates remain. MaxFeature therefore acts as the model size. Implemented as
  written (compared in log space, so no underflow ties); see ``search_path_``.
* RFSS step 5 "remove S": the features of the kept model are removed (§2.2.3 "the features
  selected during the first iteration"); features explored by other branches stay available.
* treelets are built on the prescreened features (Algorithm 3: threshold first), with no
  second prescreening on the coefficients; their own choices are in
  :mod:`rlscore.core.classifiers.treelets`.
* ties (equal scores) go to the lower index; the fit is deterministic.

Only two classes: the thesis derives BDLDA for classes A and B (use
:class:`sklearn.multiclass.OneVsRestClassifier` for more).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy.special import expit, log_ndtr
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.classifiers.treelets import Treelets, treelets

__all__ = [
    "BDLDA",
    "count_candidate_models",
    "estimated_error_rate",
    "log_estimated_error_rate",
    "separation_scores",
]

#: refuse searches whose tree has more models than this (partitions grow fast with MaxGrow)
MAX_CANDIDATE_MODELS = 200_000
#: a variance or Schur complement below this fraction of the largest variance counts as zero
_RTOL = 1e-10


# ------------------------------------------------------------------------ model-selection metric


def _check_priors(prior_a: float, prior_b: float | None) -> tuple[float, float]:
    pa = float(prior_a)
    pb = 1.0 - pa if prior_b is None else float(prior_b)
    if not (0.0 < pa < 1.0 and 0.0 < pb < 1.0) or abs(pa + pb - 1.0) > 1e-9:
        raise ValueError(f"priors must lie in (0, 1) and sum to 1, got π_A={pa!r}, π_B={pb!r}")
    return pa, pb


def log_estimated_error_rate(
    delta2: float | np.ndarray, prior_a: float = 0.5, prior_b: float | None = None
) -> np.ndarray:
    """Natural log of the plug-in LDA error ``P̂_e`` of Sheng eq. 2.8.

    Parameters
    ----------
    delta2
        ``Δ̂² = d̂ᵀK̂⁻¹d̂`` (= ``J`` of eq. 2.5 at ``ŵ``), ≥ 0; scalar or array.
    prior_a, prior_b
        Class priors ``π̂_A``, ``π̂_B`` (``prior_b`` defaults to ``1 − prior_a``).

    Returns
    -------
    numpy.ndarray
        ``log P̂_e`` with the shape of ``delta2``. At ``Δ = 0`` the rule always answers the
        more probable class, so ``P̂_e = min(π_A, π_B)`` (the limit of eq. 2.8).
    """
    pa, pb = _check_priors(prior_a, prior_b)
    d2 = np.asarray(delta2, dtype=np.float64)
    if np.any(~np.isfinite(d2)) or np.any(d2 < 0):
        raise ValueError("delta2 (the Mahalanobis distance Δ² = dᵀK⁻¹d) must be finite and ≥ 0")
    c = np.log(pa / pb)
    delta = np.sqrt(d2)
    safe = np.where(delta > 0, delta, 1.0)
    # log Φ keeps the comparison of very separable models exact where Φ itself underflows
    out = np.logaddexp(
        np.log(pa) + log_ndtr(-(0.5 * d2 + c) / safe),
        np.log(pb) + log_ndtr(-(0.5 * d2 - c) / safe),
    )
    return np.where(delta > 0, out, np.log(min(pa, pb)))


def estimated_error_rate(
    delta2: float | np.ndarray, prior_a: float = 0.5, prior_b: float | None = None
) -> np.ndarray:
    """Plug-in LDA error ``P̂_e`` of Sheng eq. 2.8 (see :func:`log_estimated_error_rate`)."""
    return np.exp(log_estimated_error_rate(delta2, prior_a, prior_b))


def separation_scores(
    X: np.ndarray, is_a: np.ndarray, reg: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-feature class separation ``|d_i/σ_i|`` of Sheng §2.2.3 (prescreening).

    Parameters
    ----------
    X
        (n, p) data.
    is_a
        (n,) booleans, True for class A.
    reg
        The regularisation ``c ≥ 0`` added to ``σ_i²``.

    Returns
    -------
    d, sigma2, score
        ``d_i = m_Ai − m_Bi``; ``σ_i² = (Σ_A (x_i − m_Ai)² + Σ_B (x_i − m_Bi)²)/n + c``;
        ``|d_i|/σ_i`` (0 where ``σ_i = 0``).
    """
    Xa, Xb = X[is_a], X[~is_a]
    ma, mb = Xa.mean(axis=0), Xb.mean(axis=0)
    ss = ((Xa - ma) ** 2).sum(axis=0) + ((Xb - mb) ** 2).sum(axis=0)
    sigma2 = ss / X.shape[0] + reg
    d = ma - mb
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(sigma2 > 0, np.abs(d) / np.sqrt(sigma2), 0.0)
    return d, sigma2, score


# ------------------------------------------------------------------------ greedy block search


def count_candidate_models(max_features: int, max_grow: int) -> int:
    """Models in the search tree of Algorithm 1: partitions of F ≤ MaxFeature into parts ≤ MaxGrow.

    A model is a sequence of non-increasing block sizes, so the tree has one node per
    partition of each F = 1 … MaxFeature into parts of size at most MaxGrow.
    """
    # counts[f] = partitions of f into parts ≤ g, built part size by part size (coin change)
    counts = np.zeros(max_features + 1, dtype=object)
    counts[0] = 1
    for g in range(1, max_grow + 1):
        for f in range(g, max_features + 1):
            counts[f] += counts[f - g]
    return int(sum(counts[1:]))


@dataclass
class _Node:
    blocks: tuple[tuple[int, ...], ...]
    fisher: float  # J of the whole model (eq. 2.5 at ŵ)
    fisher_last: float  # J of the last block alone
    inv_last: np.ndarray  # K̂⁻¹ of the last block

    @property
    def size(self) -> int:
        return sum(len(b) for b in self.blocks)


class _BlockSearch:
    """Algorithm 1, steps 1–4, on within-class-centred features ``Xc`` (K̂ = XcᵀXc/n)."""

    def __init__(self, Xc: np.ndarray, d: np.ndarray, score: np.ndarray, priors: tuple) -> None:
        self.Xc = Xc
        self.n = Xc.shape[0]
        self.d = d
        self.var = np.einsum("ij,ij->j", Xc, Xc) / self.n
        self.eligible = self.var > _RTOL * max(float(self.var.max(initial=0.0)), 1e-300)
        self.score = np.where(self.eligible, score, -np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            # J of a 1-feature block, d_i²/K_ii: the new-block gain of step 2(1)
            self.gain1 = np.where(self.eligible, d**2 / self.var, -np.inf)
        self.priors = priors
        self._rows: dict[int, np.ndarray] = {}

    def _cov_rows(self, block: tuple[int, ...]) -> np.ndarray:
        """Rows of K̂ for the block's features, (L, p); each feature's row computed once."""
        for j in block:
            if j not in self._rows:
                self._rows[j] = self.Xc[:, j] @ self.Xc / self.n
        return np.stack([self._rows[j] for j in block])

    def _new_block(self, node: _Node, order: np.ndarray) -> _Node | None:
        used = {j for b in node.blocks for j in b}
        i = next((int(j) for j in order if j not in used), None)
        if i is None:
            return None
        g = float(self.gain1[i])
        return _Node(node.blocks + ((i,),), node.fisher + g, g, np.array([[1.0 / self.var[i]]]))

    def _grow_last(self, node: _Node, available: np.ndarray) -> _Node | None:
        last = node.blocks[-1]
        C = self._cov_rows(last)  # (L, p): K̂_{B,i} for every candidate i
        U = node.inv_last @ C
        schur = self.var - np.einsum("lp,lp->p", C, U)  # K_ii − c_iᵀK_B⁻¹c_i
        resid = self.d - (node.inv_last @ self.d[list(last)]) @ C  # d_i − c_iᵀK_B⁻¹d_B
        ok = available & (schur > _RTOL * self.var)
        ok[[j for b in node.blocks for j in b]] = False
        if not ok.any():
            return None
        gain = np.full(self.d.shape, -np.inf)
        gain[ok] = resid[ok] ** 2 / schur[ok]  # J(B ∪ {i}) − J(B), by the Schur complement
        i = int(np.argmax(gain))
        u, s = U[:, i], schur[i]
        L = len(last)
        inv = np.empty((L + 1, L + 1))  # block inverse of [[K_B, c], [cᵀ, K_ii]]
        inv[:L, :L] = node.inv_last + np.outer(u, u) / s
        inv[:L, L] = inv[L, :L] = -u / s
        inv[L, L] = 1.0 / s
        g = float(gain[i])
        blocks = node.blocks[:-1] + (last + (i,),)
        return _Node(blocks, node.fisher + g, node.fisher_last + g, inv)

    def run(
        self, available: np.ndarray, max_features: int, max_grow: int
    ) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
        """The model of least ``P̂_e`` in the tree over the ``available`` features.

        Returns the kept model's blocks and the (m, 3) table ``[F, J, log P̂_e]`` of every
        model in the tree, breadth-first (so ties go to the smaller model).
        """
        avail = available & self.eligible
        if not avail.any():
            return (), np.empty((0, 3))
        order = np.flatnonzero(avail)
        order = order[np.argsort(-self.gain1[order], kind="stable")]
        root = int(np.flatnonzero(avail)[np.argmax(self.score[avail])])  # step 1: max |d_i/σ_i|
        g = float(self.gain1[root])
        frontier = [_Node(((root,),), g, g, np.array([[1.0 / self.var[root]]]))]
        nodes = list(frontier)
        for _ in range(1, max_features):
            children = []
            for node in frontier:
                child = self._new_block(node, order)
                if child is not None:
                    children.append(child)
                L = len(node.blocks[-1])
                if L < max_grow and (len(node.blocks) == 1 or L < len(node.blocks[-2])):
                    child = self._grow_last(node, avail)
                    if child is not None:
                        children.append(child)
            if not children:
                break
            nodes.extend(children)
            frontier = children
        fisher = np.array([nd.fisher for nd in nodes])
        log_pe = log_estimated_error_rate(fisher, *self.priors)
        best = int(np.argmin(log_pe))  # step 4: least P̂_e (eq. 2.8)
        table = np.column_stack([[nd.size for nd in nodes], fisher, log_pe])
        return nodes[best].blocks, table


# ------------------------------------------------------------------------------- estimator


def _two_classes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two classes of ``y`` and each label's index (class A = index 1), or raise."""
    check_classification_targets(y)
    classes, y_index = np.unique(y, return_inverse=True)
    if classes.size > 2:
        raise ValueError(
            "Only binary classification is supported: BDLDA (Sheng §2.2) is derived for "
            f"two classes; the type of the target is {type_of_target(y)} with "
            f"{classes.size} classes. Wrap it in sklearn.multiclass.OneVsRestClassifier."
        )
    if classes.size < 2:
        raise ValueError(f"y has only one class ({classes[0]!r}): a classifier needs two classes")
    return classes, y_index


def _block_lda_weights(Zc: np.ndarray, d: np.ndarray, blocks: list[np.ndarray]) -> np.ndarray:
    """The LDA rule block by block, ``ŵ_b = K̂_b⁻¹ d̂_b`` (eq. 2.6), zero off the blocks.

    ``Zc`` are the within-class-centred features (``K̂ = ZcᵀZc/n``), ``d`` the difference of
    the class means. Raises when a block's pooled covariance is singular.
    """
    n = Zc.shape[0]
    w = np.zeros(Zc.shape[1])
    for b in blocks:
        Kb = Zc[:, b].T @ Zc[:, b] / n
        ev = np.linalg.eigvalsh(Kb)
        if ev[0] <= _RTOL * max(ev[-1], 1e-300):
            raise ValueError(
                f"the pooled covariance of the block {b.tolist()} is singular: LDA needs "
                f"more samples than features in a block (n − 2 = {n - 2}) and no constant "
                "or collinear features"
            )
        w[b] = np.linalg.solve(Kb, d[b])
    return w


def _check_int(value, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
        raise ValueError(f"{name} must be an integer ≥ {low}, got {value!r}")
    return int(value)


class BDLDA(ClassifierMixin, BaseEstimator):
    """Block-diagonal LDA with greedy feature blocks, optionally on treelets (Sheng ch. 2).

    Two classes only. The full algorithm, the equations and the choices made where the thesis
    is silent are in the module docstring (:mod:`rlscore.core.classifiers.bdlda`).

    Parameters
    ----------
    max_grow
        MaxGrow, the largest block size (thesis: 3).
    max_features
        MaxFeature, the largest number of features in one model of the search (thesis: 20).
        Because ``P̂_e`` (2.8) decreases with ``J``, the kept model has this many features when
        enough candidates remain.
    n_models
        𝒩, the number of RFSS repetitions whose models are concatenated (thesis: 5).
    treelet_level
        𝓛, the number of treelet rotations before BDLDA (0: plain BDLDA; T-BDLDA in
        Table 2.1: 5). Clipped to (prescreened features − 1).
    prescreen
        Threshold the features by ``|d_i/σ_i|`` first (Algorithm 3, step 1).
    prescreen_fraction
        Keep features with score ≥ this fraction of the reference score (thesis: 1/3).
    prescreen_top
        The reference score is the mean of the ``prescreen_top`` largest scores (thesis: 1 —
        the maximum — in the simulations, 10 on real data).
    prescreen_reg
        The regularisation c ≥ 0 in ``σ_i²`` (the thesis gives no value).
    blocks
        A fixed block structure instead of the search: a sequence of sequences of column
        indices of X (disjoint). Prescreening and the search are skipped; needs
        ``treelet_level=0``. ``[range(d)]`` is plain LDA, ``[[0], [1], …]`` diagonal LDA.

    Attributes
    ----------
    classes_ : ndarray (2,)
        Class labels; class A (``g ≥ 0``) is ``classes_[1]``.
    priors_ : ndarray (2,)
        ``π̂_B, π̂_A`` (order of ``classes_``).
    prescreened_ : ndarray of int
        Columns of X that passed prescreening (all columns when skipped).
    separation_ : ndarray (n_features_in_,)
        ``|d_i/σ_i|`` of every column of X (§2.2.3).
    treelets_ : Treelets or None
        The treelet basis on ``X[:, prescreened_]`` (None when ``treelet_level`` is 0).
    treelet_level_ : int
        The number of rotations applied.
    blocks_ : list of ndarray of int
        The blocks of the combined model, in order: columns of X without treelets, treelet
        coefficients (columns of ``treelets_.basis``) with treelets.
    model_of_block_ : ndarray of int
        The RFSS repetition (0 … 𝒩−1) each block came from.
    search_path_ : list of ndarray (m, 3)
        Per repetition, every model of the search tree: ``[F, J, log P̂_e]``.
    fisher_ratio_ : float
        ``Ĵ = Σ_b d̂_bᵀK̂_b⁻¹d̂_b`` of the combined model (eqs. 2.5, 2.6).
    estimated_error_ : float
        ``P̂_e`` (2.8) of the combined model: a resubstitution estimate, optimistic.
    coef_ : ndarray (1, n_features_in_)
        ``ŵ`` mapped back to the columns of X (zero outside the selected features).
    intercept_ : ndarray (1,)
        ``−ŵᵀ(m̂_A + m̂_B)/2 + ln(π̂_A/π̂_B)``: ``g(x) = x·coef_ + intercept_``.
    n_features_in_ : int
    """

    def __init__(
        self,
        max_grow: int = 3,
        *,
        max_features: int = 20,
        n_models: int = 5,
        treelet_level: int = 0,
        prescreen: bool = True,
        prescreen_fraction: float = 1.0 / 3.0,
        prescreen_top: int = 1,
        prescreen_reg: float = 0.0,
        blocks: Sequence[Sequence[int]] | None = None,
    ) -> None:
        self.max_grow = max_grow
        self.max_features = max_features
        self.n_models = n_models
        self.treelet_level = treelet_level
        self.prescreen = prescreen
        self.prescreen_fraction = prescreen_fraction
        self.prescreen_top = prescreen_top
        self.prescreen_reg = prescreen_reg
        self.blocks = blocks

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_params(self, d: int) -> list[np.ndarray] | None:
        max_grow = _check_int(self.max_grow, "max_grow (MaxGrow)", 1)
        max_features = _check_int(self.max_features, "max_features (MaxFeature)", 1)
        _check_int(self.n_models, "n_models (𝒩)", 1)
        _check_int(self.treelet_level, "treelet_level (𝓛)", 0)
        _check_int(self.prescreen_top, "prescreen_top", 1)
        if not isinstance(self.prescreen, bool | np.bool_):
            raise ValueError(f"prescreen must be True or False, got {self.prescreen!r}")
        frac = self.prescreen_fraction
        if isinstance(frac, bool) or not isinstance(frac, Real) or not 0 <= frac <= 1:
            raise ValueError(f"prescreen_fraction must be a number in [0, 1], got {frac!r}")
        reg = self.prescreen_reg
        if isinstance(reg, bool) or not isinstance(reg, Real) or not 0 <= reg < np.inf:
            raise ValueError(f"prescreen_reg (c) must be a finite number ≥ 0, got {reg!r}")
        if self.blocks is None:
            count = count_candidate_models(max_features, max_grow)
            if count > MAX_CANDIDATE_MODELS:
                raise ValueError(
                    f"max_features={max_features}, max_grow={max_grow} give {count} candidate "
                    f"models per repetition (more than {MAX_CANDIDATE_MODELS}); lower them "
                    "(the thesis uses 20 and 3)"
                )
            return None
        if self.treelet_level != 0:
            raise ValueError("blocks (a fixed structure on the columns of X) needs treelet_level=0")
        try:
            blocks = [np.asarray(list(b)) for b in self.blocks]
        except TypeError:
            raise ValueError(
                "blocks must be a sequence of sequences of column indices, e.g. [[0, 1], [2]]"
            ) from None
        flat = np.concatenate(blocks) if blocks else np.empty(0)
        if (
            not blocks
            or any(b.size == 0 for b in blocks)
            or not np.issubdtype(flat.dtype, np.integer)
        ):
            raise ValueError(
                "blocks must be a non-empty sequence of non-empty sequences of integer column "
                f"indices, got {self.blocks!r}"
            )
        if flat.min() < 0 or flat.max() >= d:
            raise ValueError(f"blocks index columns outside [0, {d - 1}] (X has {d} features)")
        if np.unique(flat).size != flat.size:
            raise ValueError("blocks must be disjoint: a column appears in two blocks or twice")
        return [b.astype(np.intp) for b in blocks]

    def fit(self, X, y) -> BDLDA:
        """Prescreen, build the treelets, search the block structure and fit the LDA rule.

        Parameters
        ----------
        X
            (n, d) training inputs.
        y
            (n,) labels of exactly two classes.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        classes, y_index = _two_classes(y)
        fixed = self._check_params(X.shape[1])
        n, d_in = X.shape
        is_a = y_index == 1
        priors = np.bincount(y_index, minlength=2) / n
        _, _, score_all = separation_scores(X, is_a, float(self.prescreen_reg))
        keep = self._prescreened(score_all, fixed)
        tl = self._treelets(X[:, keep], fixed)
        Z = X[:, keep] if tl is None else tl.transform(X[:, keep])

        # within-class centring: K̂ = XcᵀXc/n is the pooled maximum-likelihood covariance
        ma, mb = Z[is_a].mean(axis=0), Z[~is_a].mean(axis=0)
        Zc = Z - np.where(is_a[:, None], ma, mb)
        dz = ma - mb
        if fixed is not None:
            blocks, owner, paths = fixed, np.zeros(len(fixed), dtype=np.intp), []
        else:
            _, _, score = separation_scores(Z, is_a, float(self.prescreen_reg))
            search = _BlockSearch(Zc, dz, score, (priors[1], priors[0]))
            blocks, owner, paths = self._rfss(search, Z.shape[1])
        w = _block_lda_weights(Zc, dz, blocks)
        fisher = float(dz @ w)
        coef = np.zeros(d_in)
        coef[keep] = w if tl is None else tl.basis @ w  # g = wᵀBᵀx = (Bw)ᵀx

        self.classes_ = classes
        self.priors_ = priors
        self.separation_ = score_all
        self.prescreened_ = keep
        self.treelets_ = tl
        self.treelet_level_ = 0 if tl is None else tl.merges.shape[0]
        self.blocks_ = [keep[b] for b in blocks] if tl is None else list(blocks)
        self.model_of_block_ = owner
        self.search_path_ = paths
        self.fisher_ratio_ = fisher
        self.estimated_error_ = float(estimated_error_rate(fisher, priors[1], priors[0]))
        self.coef_ = coef[None, :]
        midpoint = 0.5 * (ma + mb)
        self.intercept_ = np.array([np.log(priors[1] / priors[0]) - float(w @ midpoint)])
        return self

    def _prescreened(self, score: np.ndarray, fixed: list | None) -> np.ndarray:
        """Algorithm 3, step 1: the columns whose ``|d_i/σ_i|`` reaches the fraction of the
        reference score (all columns without prescreening or with fixed blocks)."""
        if fixed is not None or not self.prescreen:
            return np.arange(score.size)
        top = np.sort(score)[::-1][: int(self.prescreen_top)]
        return np.flatnonzero(score >= float(self.prescreen_fraction) * top.mean())

    def _treelets(self, X: np.ndarray, fixed: list | None) -> Treelets | None:
        """The treelet basis of the prescreened columns (None at level 0 or with one column);
        its level is clipped to the columns − 1."""
        if fixed is not None or self.treelet_level == 0 or X.shape[1] < 2:
            return None
        return treelets(X, min(int(self.treelet_level), X.shape[1] - 1))

    def _rfss(
        self, search: _BlockSearch, p: int
    ) -> tuple[list[np.ndarray], np.ndarray, list[np.ndarray]]:
        """RFSS (§2.2.3): 𝒩 searches, each on the features the previous ones left.

        Returns the blocks in order, the repetition each came from and each repetition's
        search table (see :meth:`_BlockSearch.run`).
        """
        available = np.ones(p, dtype=bool)
        blocks, owner, paths = [], [], []
        for rep in range(int(self.n_models)):
            found, table = search.run(available, int(self.max_features), int(self.max_grow))
            if not found:
                break  # not enough candidate features left
            paths.append(table)
            for b in found:
                blocks.append(np.asarray(b, dtype=np.intp))
                owner.append(rep)
                available[list(b)] = False
        return blocks, np.asarray(owner, dtype=np.intp), paths

    def decision_function(self, X) -> np.ndarray:
        """``g(x) = ŵᵀ(x − (m̂_A + m̂_B)/2) + ln(π̂_A/π̂_B)`` (eq. 2.1), (m,); ≥ 0 is class A."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X) -> np.ndarray:
        """Class A (``classes_[1]``) where ``g(x) ≥ 0``, class B otherwise (eq. 2.1)."""
        g = self.decision_function(X)  # checks fitted before classes_ is read
        return self.classes_[(g >= 0).astype(np.intp)]

    def predict_proba(self, X) -> np.ndarray:
        """Posterior under the fitted Gaussian model, ``P(A|x) = 1/(1 + e^{−g(x)})``, (m, 2)."""
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])
