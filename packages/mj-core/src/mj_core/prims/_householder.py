"""Householder reductions of one matrix in NumPy: the eager impls of ``hessenberg``,
``householder_product`` and ``tridiagonal``.

NumPy has none of LAPACK's ``gehrd``, ``orgqr``/``ungqr`` or ``sytrd``/``hetrd`` (which JAX
calls and mj's lowering calls too), so these follow LAPACK's unblocked routines (``gehd2``,
``org2r``/``ung2r``, ``sytd2``/``hetd2``) step by step in the matrix's own precision, with each
reflector as ``larfg`` makes it (:func:`mj_core.prims._hqr._larfg`): the same reflectors, the
same storage (vectors below the subdiagonal, or above the superdiagonal, with an implicit unit
entry) and the same ``taus`` as LAPACK's, up to rounding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core.prims._hqr import _larfg

__all__ = ["gehrd_2d", "geqp3_2d", "orgqr_2d", "sytrd_2d"]


def gehrd_2d(a: Any) -> tuple[Any, Any]:
    """``(a_out, taus)``: LAPACK's ``gehd2`` on the square matrix ``a`` (``ilo = 1``,
    ``ihi = n``): the upper Hessenberg form in ``a_out``'s upper triangle and first
    subdiagonal, reflector ``i``'s vector below the subdiagonal of column ``i``."""
    n = a.shape[0]
    h = np.array(a)
    taus = np.zeros(max(n - 1, 0), a.dtype)
    for i in range(n - 1):
        beta, v, tau = _larfg(h[i + 1, i], h[i + 2 :, i])
        taus[i] = tau
        if tau != 0:
            # h <- h H on columns i+1.., then h <- H^H h on rows i+1.. (columns i+1..)
            h[:, i + 1 :] -= tau * np.outer(h[:, i + 1 :] @ v, np.conj(v))
            h[i + 1 :, i + 1 :] -= np.conj(tau) * np.outer(v, np.conj(v) @ h[i + 1 :, i + 1 :])
        h[i + 1, i] = beta
        h[i + 2 :, i] = v[1:]
    return h, taus


def geqp3_2d(a: Any, jpvt: Any) -> tuple[Any, Any, Any]:
    """``(a_out, jpvt_out, taus)``: LAPACK's ``geqp3`` (QR with column pivoting) on the
    ``m x n`` matrix ``a``: columns with a non-zero ``jpvt`` entry lead, in order; then at each
    step the remaining column of largest norm (below the rows done) is swapped in and reduced
    with ``larfg``'s reflector. ``R`` in the upper triangle, the reflectors' vectors below the
    diagonal, ``jpvt_out`` the 1-based column order (``a[:, jpvt_out - 1] = Q R``). The column
    norms are recomputed at each step, where LAPACK downdates them: the same pivots unless
    two norms tie to rounding."""
    m, n = a.shape
    h = np.array(a)
    fixed = [j for j in range(n) if jpvt[j] != 0]
    order = fixed + [j for j in range(n) if jpvt[j] == 0]
    h = h[:, order]
    perm = np.asarray(order)
    k = min(m, n)
    taus = np.zeros(k, a.dtype)
    for i in range(k):
        if i >= len(fixed):
            norms = np.linalg.norm(h[i:, i:], axis=0)
            p = i + int(np.argmax(norms))
            if p != i:
                h[:, [i, p]] = h[:, [p, i]]
                perm[[i, p]] = perm[[p, i]]
        beta, v, tau = _larfg(h[i, i], h[i + 1 :, i])
        taus[i] = tau
        if tau != 0:  # h <- H^H h on the trailing columns
            h[i:, i + 1 :] -= np.conj(tau) * np.outer(v, np.conj(v) @ h[i:, i + 1 :])
        h[i, i] = beta
        h[i + 1 :, i] = v[1:]
    return h, (perm + 1).astype(np.asarray(jpvt).dtype), taus


def orgqr_2d(a: Any, taus: Any) -> Any:
    """LAPACK's ``org2r``/``ung2r``: the ``m x n`` matrix ``H_1 ... H_k`` (first ``n``
    columns), ``H_i = I - taus[i] v_i v_i^H`` with ``v_i`` column ``i`` of ``a`` below the
    diagonal and a unit entry on it."""
    m, n = a.shape
    k = taus.shape[0]
    q = np.array(a)
    q[:, k:] = 0
    for j in range(k, n):
        q[j, j] = 1
    for i in range(k - 1, -1, -1):
        tau = taus[i]
        if i < n - 1:
            q[i, i] = 1
            v = q[i:, i].copy()
            w = np.conj(q[i:, i + 1 :]).T @ v  # larf('Left'): C <- C - tau v (C^H v)^H
            q[i:, i + 1 :] -= tau * np.outer(v, np.conj(w))
        if i < m - 1:
            q[i + 1 :, i] *= -tau
        q[i, i] = 1 - tau
        q[:i, i] = 0
    return q


def sytrd_2d(a: Any, lower: bool) -> tuple[Any, Any, Any, Any]:
    """``(a_out, d, e, taus)``: LAPACK's ``sytd2``/``hetd2`` on the ``lower`` (or upper)
    triangle of the symmetric (Hermitian) ``a``: ``d`` the tridiagonal form's diagonal, ``e``
    its off-diagonal, the reflectors' vectors below the subdiagonal (above the
    superdiagonal); the other triangle of ``a_out`` is ``a``'s, untouched."""
    n = a.shape[0]
    real = np.dtype(a.dtype).kind != "c"
    rdtype = np.real(np.zeros((), a.dtype)).dtype
    tri = np.tril(a) if lower else np.triu(a)
    w_full = tri + np.conj(np.swapaxes(np.tril(a, -1) if lower else np.triu(a, 1), 0, 1))
    if not real:
        w_full[np.diag_indices(n)] = np.real(np.diagonal(w_full))
    out = np.array(a)
    d = np.zeros(n, rdtype)
    e = np.zeros(max(n - 1, 0), rdtype)
    taus = np.zeros(max(n - 1, 0), a.dtype)
    steps = range(n - 1) if lower else range(n - 2, -1, -1)
    for i in steps:
        if lower:  # annihilate w[i+2:, i]: the reflector acts on rows/columns i+1..
            beta, v, tau = _larfg(w_full[i + 1, i], w_full[i + 2 :, i])
            block = slice(i + 1, n)
        else:  # annihilate w[:i, i+1]: the reflector acts on rows/columns ..i, unit at i
            beta, vr, tau = _larfg(w_full[i, i + 1], w_full[:i, i + 1][::-1])
            v = vr[::-1]
            block = slice(0, i + 1)
        taus[i] = tau
        e[i] = np.real(beta)
        if tau != 0:
            sub = w_full[block, block]
            x = tau * (sub @ v)
            alpha = -0.5 * tau * np.vdot(x, v)
            x = x + alpha * v
            sub -= np.outer(v, np.conj(x)) + np.outer(x, np.conj(v))
            if not real:
                sub[np.diag_indices(sub.shape[0])] = np.real(np.diagonal(sub))
            w_full[block, block] = sub
        if lower:
            out[i + 1, i] = e[i]
            out[i + 2 :, i] = v[1:]
            d[i] = np.real(w_full[i, i])
        else:
            out[i, i + 1] = e[i]
            out[:i, i + 1] = v[:-1]
            d[i + 1] = np.real(w_full[i + 1, i + 1])
    if n:
        last = n - 1 if lower else 0
        d[last] = np.real(w_full[last, last])
    out[np.diag_indices(n)] = d
    return out, d, e, taus
