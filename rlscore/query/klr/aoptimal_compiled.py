"""The per-pair arithmetic of fast-mode A-optimal KLR in one compiled pass (numba).

For every risk point j and candidate k, the one-Newton-step risk after labeling k with each
class needs the posterior block ``Σ_jk`` times the candidate's step and variance factors
(docs/mathematics.md §6, "The fast mode on the m features"), then the new probabilities at j
and ``tr(F'_j² Σ_jj) − ‖F'_j Σ_jk B‖²``. Written as numpy operations this was a dozen
passes over (classes × candidates × points) planes; here each pair's block is read once and
every label's term is made in registers. The blocks come in the basis orthogonal to the
softmax null vector ``1`` (h' = h − 1 coordinates, h' = h = 1 for two classes), which the
risk does not see.

Three classes — the app's commonest softmax case — have a kernel of their own
(:func:`_accumulate_three`): a pair's whole arithmetic written out in one loop over the
candidates, which LLVM vectorises with every value in registers, 2.4× faster than the general
pass (17 against 41 ns a pair). The general pass serves two classes and four or more.

The kernels compile on first use (cached on disk by numba afterwards); this module is imported
only when a fast-mode query runs (with the blocks by Woodbury on the m features or on the
labeled points).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

__all__ = ["accumulate_pair_risks"]

# reassociation lets LLVM vectorise the small loops (the order of a float sum changes the last
# bits only); no "nnan"/"ninf": NaN and inf keep their meaning. Every kernel is compiled with
# error_model="numpy": a float division then has no zero check (a branch that kept its loop
# scalar; the pass divides by sums of exponentials ≥ 1 only), 1.4× faster at three classes
_FASTMATH = {"reassoc", "contract", "nsz"}
#: the three-class kernel's flags: its loop over candidates vectorises without reassociation,
#: which would fold the magic-number rounding of its inlined exp away
_FASTMATH_THREE = {"contract", "nsz"}


# exp of non-positive arguments in a loop LLVM vectorises (the libm call is scalar and was most
# of the pass): Cody–Waite reduction x = n ln 2 + r, |r| ≤ ln 2 / 2, a degree-12 Taylor
# polynomial (truncation < 2e-16 relative) and 2ⁿ from the exponent bits; below −700 the
# argument is clamped (e⁻⁷⁰⁰ ≈ 1e-304 beside the 1 of the largest term)
_LOG2E = 1.4426950408889634
_LN2_HI = 0.693147180369123816490
_LN2_LO = 1.90821492927058770002e-10
_MAGIC = 6755399441055744.0  # 1.5 · 2⁵²: adding it leaves round(x) in the low bits
_MAGIC_BITS = 0x4338000000000000
_C = [1.0 / math.factorial(i) for i in range(13)]
_C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12 = _C[2:]


@numba.njit(cache=True, fastmath={"contract"}, inline="always", error_model="numpy")
def _exp_poly(r):  # pragma: no cover
    """``exp(r)`` for ``|r| ≤ ln 2 / 2`` by its degree-12 Taylor polynomial (Horner), the
    mantissa of :func:`_exp_nonpositive` and :func:`_exp_nonpositive_one`."""
    q = _C12
    q = q * r + _C11
    q = q * r + _C10
    q = q * r + _C9
    q = q * r + _C8
    q = q * r + _C7
    q = q * r + _C6
    q = q * r + _C5
    q = q * r + _C4
    q = q * r + _C3
    q = q * r + _C2
    q = q * r + 1.0
    return q * r + 1.0


# no "reassoc" here: it would fold the magic-number rounding and the two-part reduction away
@numba.njit(cache=True, fastmath={"contract"}, nogil=True, error_model="numpy")
def _exp_nonpositive(x, work):  # pragma: no cover
    for i in range(x.size):
        v = max(x[i], -700.0)
        t = v * _LOG2E + _MAGIC
        work[i] = t
        n = t - _MAGIC
        r = (v - n * _LN2_HI) - n * _LN2_LO
        x[i] = _exp_poly(r)
    bits = work.view(np.int64)
    for i in range(x.size):
        bits[i] = (bits[i] - _MAGIC_BITS + 1023) << 52
    for i in range(x.size):
        x[i] *= work[i]


# the steps below are inlined into _accumulate (numba IR, before LLVM), so the compiled pass is
# the one loop nest it was: the named steps cost no call and keep every loop's vectorisation
@numba.njit(cache=True, fastmath=_FASTMATH, inline="always", error_model="numpy")
def _variance_block(Dp, j, Qp, N):  # pragma: no cover
    """``N = Q' D'_j Q'ᵀ`` (h, h): the variance block at point j without its ``11ᵀ`` part
    (``F 1 = 0``)."""
    h, hp = Qp.shape
    for a in range(h):
        for b in range(h):
            s = 0.0
            for e in range(hp):
                t = 0.0
                for f in range(hp):
                    t += Dp[j, e, f] * Qp[b, f]
                s += Qp[a, e] * t
            N[a, b] = s


@numba.njit(cache=True, fastmath=_FASTMATH, inline="always", error_model="numpy")
def _pair_steps(Z, j, Qp, Xr, Zf, Y):  # pragma: no cover
    """``Y = (Q' S'_jk) X'_k`` (h, R, c): ``Σ_jk`` times every label's step and factor
    columns, for every candidate k (``Zf``: work space for ``Q' S'_jk``)."""
    h, hp = Qp.shape
    R, c = Xr.shape[1], Xr.shape[2]
    for a in range(h):
        for f in range(hp):
            for k in range(c):
                Zf[a, f, k] = 0.0
            for e in range(hp):
                q = Qp[a, e]
                for k in range(c):
                    Zf[a, f, k] += q * Z[j, e, f, k]
    for a in range(h):
        for r in range(R):
            for k in range(c):
                Y[a, r, k] = 0.0
            for f in range(hp):
                for k in range(c):
                    Y[a, r, k] += Zf[a, f, k] * Xr[f, r, k]


@numba.njit(cache=True, fastmath=_FASTMATH, inline="always", error_model="numpy")
def _binary_terms(beta, j, n00, Y, c0, c1, flat, work, p, term):  # pragma: no cover
    """``term[k]``: point j's risk term after labeling candidate k with the label whose step is
    ``Y[0, c0]`` and factor columns ``Y[0, c0 + 1 : c1]``, two classes (h = 1)."""
    c = term.size
    b0 = beta[j, 0]
    for k in range(c):
        flat[k] = -abs(b0 - Y[0, c0, k])
    _exp_nonpositive(flat[:c], work[:c])
    for k in range(c):
        e = flat[k]  # e^{−|z|}: σ(z)(1 − σ(z)) = e / (1 + e)² for either sign
        q = e / ((1.0 + e) * (1.0 + e))
        p[0, k] = q
        term[k] = q * q * n00
    for r in range(c0 + 1, c1):
        for k in range(c):
            fy = p[0, k] * Y[0, r, k]
            term[k] -= fy * fy


@numba.njit(cache=True, fastmath=_FASTMATH, inline="always", error_model="numpy")
def _softmax_terms(beta, j, N, Y, c0, c1, flat, work, p, Np, acc, term):  # pragma: no cover
    """``term[k]``: point j's risk term after labeling candidate k with the label whose step is
    ``Y[:, c0]`` and factor columns ``Y[:, c0 + 1 : c1]``, h ≥ 2 classes (``p`` views
    ``flat``)."""
    h, c = p.shape
    for k in range(c):
        term[k] = beta[j, 0] - Y[0, c0, k]  # the largest logit so far
    for a in range(1, h):
        for k in range(c):
            term[k] = max(term[k], beta[j, a] - Y[a, c0, k])
    for a in range(h):
        for k in range(c):
            p[a, k] = beta[j, a] - Y[a, c0, k] - term[k]
    _exp_nonpositive(flat, work)
    # every loop below runs over the candidates innermost (unit stride: vectorised), the class
    # sums accumulated in rows of ``acc``
    for k in range(c):
        term[k] = p[0, k]
    for a in range(1, h):
        for k in range(c):
            term[k] += p[a, k]
    for k in range(c):
        term[k] = 1.0 / term[k]
    for a in range(h):
        for k in range(c):
            p[a, k] *= term[k]
    # tr(F²N) = Σ p_a² N_aa − 2 (p∘p)ᵀNp + ‖p‖² pᵀNp, F = diag(p) − ppᵀ
    for a in range(h):
        for k in range(c):
            Np[a, k] = 0.0
        for b in range(h):
            nab = N[a, b]
            for k in range(c):
                Np[a, k] += nab * p[b, k]
    sq, t1, t2, t3 = acc[0], acc[1], acc[2], acc[3]
    for k in range(c):
        sq[k] = 0.0
        t1[k] = 0.0
        t2[k] = 0.0
        t3[k] = 0.0
    for a in range(h):
        naa = N[a, a]
        for k in range(c):
            qa = p[a, k] * p[a, k]
            sq[k] += qa
            t1[k] += qa * naa
            t2[k] += qa * Np[a, k]
            t3[k] += p[a, k] * Np[a, k]
    for k in range(c):
        term[k] = t1[k] - 2.0 * t2[k] + sq[k] * t3[k]
    py = acc[0]
    for r in range(c0 + 1, c1):
        for k in range(c):
            py[k] = p[0, k] * Y[0, r, k]
        for a in range(1, h):
            for k in range(c):
                py[k] += p[a, k] * Y[a, r, k]
        for a in range(h):
            for k in range(c):
                fy = p[a, k] * (Y[a, r, k] - py[k])
                term[k] -= fy * fy


@numba.njit(cache=True, fastmath=_FASTMATH, nogil=True, error_model="numpy")
def _accumulate(Z, Dp, beta, Xr, Qp, n_labels, own, out):  # pragma: no cover
    # candidates are the innermost axis of every array: each loop of the steps runs over the c
    # candidates with unit stride, which LLVM vectorises (exp excepted)
    nb, hp, c = Z.shape[0], Z.shape[1], Z.shape[3]
    h = Qp.shape[0]
    R = Xr.shape[1]
    per_label = R // n_labels
    N = np.empty((h, h))
    Zf = np.empty((h, hp, c))
    Y = np.empty((h, R, c))
    flat = np.empty(h * c)
    work = np.empty(h * c)
    p = flat.reshape(h, c)
    Np = np.empty((h, c))
    acc = np.empty((4, c))
    term = np.empty(c)
    for j in range(nb):
        _variance_block(Dp, j, Qp, N)
        _pair_steps(Z, j, Qp, Xr, Zf, Y)
        for lab in range(n_labels):
            c0 = lab * per_label
            if h == 1:
                _binary_terms(beta, j, N[0, 0], Y, c0, c0 + per_label, flat, work, p, term)
            else:
                _softmax_terms(beta, j, N, Y, c0, c0 + per_label, flat, work, p, Np, acc, term)
            for k in range(c):
                if own[k] != j:  # the candidate is labeled after the query: not in the sum
                    out[k, lab] += term[k]


@intrinsic
def _float_bits(typingctx, x):  # pragma: no cover
    """The bits of a float64 as an int64 (an LLVM bitcast, which vectorises)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))

    return types.int64(types.float64), codegen


@intrinsic
def _bits_float(typingctx, x):  # pragma: no cover
    """The float64 of an int64's bits (an LLVM bitcast)."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return types.float64(types.int64), codegen


@numba.njit(cache=True, fastmath={"contract"}, inline="always", error_model="numpy")
def _exp_nonpositive_one(x):  # pragma: no cover
    """:func:`_exp_nonpositive` of one number, for a loop that LLVM vectorises whole."""
    v = max(x, -700.0)
    t = v * _LOG2E + _MAGIC
    n = t - _MAGIC
    r = (v - n * _LN2_HI) - n * _LN2_LO
    return _exp_poly(r) * _bits_float((_float_bits(t) - _MAGIC_BITS + 1023) << 52)


@numba.njit(cache=True, fastmath=_FASTMATH_THREE, inline="always", error_model="numpy")
def _factor_drop(f, p0, p1, p2, x0, x1):  # pragma: no cover
    """``‖F'_j Y‖²`` for one factor column, three classes: ``Y = (Q'S'_jk) x`` with ``f`` the
    six entries of ``Q'S'_jk`` (row-major 3 × 2), ``F'_j = diag(p) − ppᵀ``."""
    y0 = f[0] * x0 + f[1] * x1
    y1 = f[2] * x0 + f[3] * x1
    y2 = f[4] * x0 + f[5] * x1
    py = p0 * y0 + p1 * y1 + p2 * y2
    g0, g1, g2 = p0 * (y0 - py), p1 * (y1 - py), p2 * (y2 - py)
    return g0 * g0 + g1 * g1 + g2 * g2


@numba.njit(cache=True, fastmath=_FASTMATH_THREE, inline="always", error_model="numpy")
def _three_class_term(f, b, n, xv0, xv1, xa0, xa1, xb0, xb1):  # pragma: no cover
    """One pair's risk term after labeling its candidate with one label, three classes:
    :func:`_softmax_terms` written out for h = 3. ``f``: the six entries of ``Q'S'_jk``
    (row-major 3 × 2); ``b``: the point's decision values; ``n``: its variance block ``N``
    (00, 01, 02, 11, 12, 22); ``(xv0, xv1)``: the label's step, ``(xa0, xa1)`` and ``(xb0,
    xb1)``: its two factor columns, in the reduced basis."""
    u0 = b[0] - (f[0] * xv0 + f[1] * xv1)
    u1 = b[1] - (f[2] * xv0 + f[3] * xv1)
    u2 = b[2] - (f[4] * xv0 + f[5] * xv1)
    top = u0 if u0 > u1 else u1
    top = top if top > u2 else u2
    e0 = _exp_nonpositive_one(u0 - top)
    e1 = _exp_nonpositive_one(u1 - top)
    e2 = _exp_nonpositive_one(u2 - top)
    inv = 1.0 / (e0 + e1 + e2)
    p0, p1, p2 = e0 * inv, e1 * inv, e2 * inv
    np0 = n[0] * p0 + n[1] * p1 + n[2] * p2
    np1 = n[1] * p0 + n[3] * p1 + n[4] * p2
    np2 = n[2] * p0 + n[4] * p1 + n[5] * p2
    a0, a1, a2 = p0 * p0, p1 * p1, p2 * p2
    # tr(F²N) = Σ p_a² N_aa − 2 (p∘p)ᵀNp + ‖p‖² pᵀNp, F = diag(p) − ppᵀ
    term = (a0 * n[0] + a1 * n[3] + a2 * n[5]) - 2.0 * (a0 * np0 + a1 * np1 + a2 * np2)
    term += (a0 + a1 + a2) * (p0 * np0 + p1 * np1 + p2 * np2)
    term -= _factor_drop(f, p0, p1, p2, xa0, xa1)
    return term - _factor_drop(f, p0, p1, p2, xb0, xb1)


@numba.njit(cache=True, fastmath=_FASTMATH_THREE, nogil=True, error_model="numpy")
def _accumulate_three(Z, Dp, beta, Xr, Qp, own, out):  # pragma: no cover
    # :func:`_accumulate` for three classes (h' = 2, three labels of one step and two factor
    # columns each): a pair's whole arithmetic in one loop over the candidates, its values in
    # registers, which LLVM vectorises (the general pass makes a dozen loops through arrays
    # per label); everything is written out, a loop left inside would keep it scalar
    nb, c = Z.shape[0], Z.shape[3]
    N = np.empty((3, 3))
    acc = np.zeros((3, c))
    X0, X1, A0, A1, A2 = Xr[0], Xr[1], acc[0], acc[1], acc[2]
    q00, q01, q10, q11, q20, q21 = Qp[0, 0], Qp[0, 1], Qp[1, 0], Qp[1, 1], Qp[2, 0], Qp[2, 1]
    for j in range(nb):
        _variance_block(Dp, j, Qp, N)
        n = (N[0, 0], N[0, 1], N[0, 2], N[1, 1], N[1, 2], N[2, 2])
        b = (beta[j, 0], beta[j, 1], beta[j, 2])
        Z00, Z01, Z10, Z11 = Z[j, 0, 0], Z[j, 0, 1], Z[j, 1, 0], Z[j, 1, 1]
        for k in range(c):
            f = (
                q00 * Z00[k] + q01 * Z10[k],
                q00 * Z01[k] + q01 * Z11[k],
                q10 * Z00[k] + q11 * Z10[k],
                q10 * Z01[k] + q11 * Z11[k],
                q20 * Z00[k] + q21 * Z10[k],
                q20 * Z01[k] + q21 * Z11[k],
            )
            keep = 0.0 if own[k] == j else 1.0  # the candidate leaves the sum over U
            A0[k] += keep * _three_class_term(
                f, b, n, X0[0, k], X1[0, k], X0[1, k], X1[1, k], X0[2, k], X1[2, k]
            )
            A1[k] += keep * _three_class_term(
                f, b, n, X0[3, k], X1[3, k], X0[4, k], X1[4, k], X0[5, k], X1[5, k]
            )
            A2[k] += keep * _three_class_term(
                f, b, n, X0[6, k], X1[6, k], X0[7, k], X1[7, k], X0[8, k], X1[8, k]
            )
    for k in range(c):
        out[k, 0] += A0[k]
        out[k, 1] += A1[k]
        out[k, 2] += A2[k]


def accumulate_pair_risks(
    Z: np.ndarray,
    Dp: np.ndarray,
    beta: np.ndarray,
    Xr: np.ndarray,
    Qp: np.ndarray,
    n_labels: int,
    own: np.ndarray,
    out: np.ndarray,
) -> None:
    """Add every candidate's per-label risk terms over a block of risk points to ``out``.

    Parameters
    ----------
    Z : ndarray (nb, h', h', c)
        ``S'_jk``: the posterior blocks between the block's points j and the candidates k in
        the reduced basis (candidates last).
    Dp : ndarray (nb, h', h')
        ``S'_jj``, the reduced variance blocks of the block's points.
    beta : ndarray (nb, h)
        The current decision values at the block's points.
    Xr : ndarray (h', R, c)
        ``Q'ᵀ X_k``: per label, the Newton step ``v`` then the factor columns ``B`` of
        ``A = BBᵀ`` (R = n_labels · (1 + columns of B)).
    Qp : ndarray (h, h')
        The reduced basis (orthonormal columns orthogonal to ``1``; ``[[1]]`` for binary).
    n_labels : int
    own : ndarray (c,) of int
        Each candidate's row in this block (−1 when it is not in it): its own term is skipped.
    out : ndarray (c, n_labels)
        Accumulated in place.
    """
    if Qp.shape == (3, 2) and n_labels == 3 and Xr.shape[1] == 9:
        _accumulate_three(
            Z,
            np.ascontiguousarray(Dp),
            np.ascontiguousarray(beta),
            np.ascontiguousarray(Xr),
            np.ascontiguousarray(Qp),
            np.ascontiguousarray(own, dtype=np.int64),
            out,
        )
        return
    _accumulate(
        Z,
        np.ascontiguousarray(Dp),
        np.ascontiguousarray(beta),
        np.ascontiguousarray(Xr),
        np.ascontiguousarray(Qp),
        int(n_labels),
        np.ascontiguousarray(own, dtype=np.int64),
        out,
    )
