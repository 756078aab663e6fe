"""Dense linear-algebra primitives (``jax.lax.linalg``'s): factorisations and triangular solves.

All act on the last two axes; leading axes are batch axes. Each has a typing rule (the one
source of truth mj-ir's abstract eval uses) and a NumPy impl rule (``np.linalg``; LU has no
NumPy routine, so it is a batched partial-pivoting elimination here, picking pivots exactly
as LAPACK's ``getrf`` does). Like JAX, a failed factorisation (a Cholesky of a matrix that is
not positive definite) gives NaNs rather than an exception, so eager and jit agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core.avals import ShapedArray
from mj_core.primitive import Primitive, impl_rules
from mj_core.prims.out_avals import check_operands, out_aval_rules
from mj_core.shapes import aval_error

__all__ = ["cholesky_p", "eigh_p", "lu_p", "qr_p", "svd_p", "triangular_solve_p"]

cholesky_p = Primitive("cholesky")
triangular_solve_p = Primitive("triangular_solve")
lu_p = Primitive("lu", multiple_results=True)
eigh_p = Primitive("eigh", multiple_results=True)
svd_p = Primitive("svd", multiple_results=True)
qr_p = Primitive("qr", multiple_results=True)


def _check_matrix(name: str, a: ShapedArray, *, square: bool) -> None:
    """Operands are float32/float64 arrays of rank >= 2 (square when ``square``)."""
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise aval_error(name, "expected a float32 or float64 matrix", [a])
    if len(a.shape) < 2:
        raise aval_error(name, "expected an array of rank >= 2 (a matrix or a batch)", [a])
    if square and a.shape[-1] != a.shape[-2]:
        raise aval_error(name, "expected square matrices in the last two axes", [a])


def _strong(a: ShapedArray) -> ShapedArray:
    return ShapedArray(a.shape, a.dtype)


# --- cholesky ---------------------------------------------------------------------------------
@out_aval_rules.register(cholesky_p)
def _cholesky_avals(a: ShapedArray) -> list[ShapedArray]:
    _check_matrix("cholesky", a, square=True)
    return [_strong(a)]


@impl_rules.register(cholesky_p)
def _cholesky_impl(a: Any) -> list[Any]:
    (out,) = check_operands(cholesky_p, [a], {})
    x = np.asarray(a)
    try:
        return [np.asarray(np.linalg.cholesky(x), out.dtype)]
    except np.linalg.LinAlgError:  # some matrix is not positive definite: NaNs for it only
        flat = np.reshape(x, (-1, *x.shape[-2:]))
        res = np.empty_like(flat)
        for i in range(flat.shape[0]):
            try:
                res[i] = np.linalg.cholesky(flat[i])
            except np.linalg.LinAlgError:  # NaN on and below the diagonal, as under jit
                res[i] = np.tril(np.full(flat.shape[-2:], np.nan, flat.dtype))
        return [np.reshape(res, x.shape)]


# --- triangular_solve -------------------------------------------------------------------------
@out_aval_rules.register(triangular_solve_p)
def _triangular_solve_avals(
    a: ShapedArray,
    b: ShapedArray,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> list[ShapedArray]:
    _check_matrix("triangular_solve", a, square=True)
    _check_matrix("triangular_solve", b, square=False)
    if a.dtype != b.dtype:
        raise aval_error("triangular_solve", "a and b must have the same dtype", [a, b])
    if a.shape[:-2] != b.shape[:-2]:
        raise aval_error("triangular_solve", "a and b must have the same batch dims", [a, b])
    common = b.shape[-2] if left_side else b.shape[-1]
    if a.shape[-1] != common:
        side = "b.shape[-2]" if left_side else "b.shape[-1]"
        raise aval_error("triangular_solve", f"a's size must match {side}", [a, b])
    return [_strong(b)]


def triangle(a: Any, lower: bool, unit_diagonal: bool) -> Any:
    """The ``lower`` (or upper) triangle of ``a``, with ones on the diagonal if asked."""
    t = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        n = a.shape[-1]
        t = np.where(np.eye(n, dtype=bool), np.ones((), a.dtype), t)
    return t


@impl_rules.register(triangular_solve_p)
def _triangular_solve_impl(a: Any, b: Any, **params: Any) -> list[Any]:
    (out,) = check_operands(triangular_solve_p, [a, b], params)
    op_a = triangle(np.asarray(a), params["lower"], params["unit_diagonal"])
    if params["transpose_a"]:
        op_a = np.swapaxes(op_a, -1, -2)
    b = np.asarray(b)
    if params["left_side"]:  # op(a) @ x = b
        x = np.linalg.solve(op_a, b)
    else:  # x @ op(a) = b  <=>  op(a)^T @ x^T = b^T
        x = np.swapaxes(np.linalg.solve(np.swapaxes(op_a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    return [np.asarray(x, out.dtype)]


# --- lu ---------------------------------------------------------------------------------------
@out_aval_rules.register(lu_p)
def _lu_avals(a: ShapedArray) -> list[ShapedArray]:
    _check_matrix("lu", a, square=False)
    *batch, m, n = a.shape
    int32 = np.dtype(np.int32)
    return [
        _strong(a),
        ShapedArray((*batch, min(m, n)), int32),
        ShapedArray((*batch, m), int32),
    ]


@impl_rules.register(lu_p)
def _lu_impl(a: Any) -> list[Any]:
    out = check_operands(lu_p, [a], {})
    x = np.array(a, dtype=out[0].dtype)  # a private copy, overwritten by the factors
    *batch, m, n = x.shape
    k = min(m, n)
    lu = np.reshape(x, (-1, m, n))
    nb = lu.shape[0]
    rows = np.arange(nb)
    pivots = np.zeros((nb, k), np.int32)
    perm = np.tile(np.arange(m, dtype=np.int32), (nb, 1))
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)  # LAPACK's i?amax: the first maximum
        pivots[:, j] = p
        row_j, row_p = np.copy(lu[rows, j, :]), np.copy(lu[rows, p, :])
        lu[rows, j, :], lu[rows, p, :] = row_p, row_j
        perm_j, perm_p = np.copy(perm[rows, j]), np.copy(perm[rows, p])
        perm[rows, j], perm[rows, p] = perm_p, perm_j
        pivot = lu[:, j, j]
        nonzero = pivot != 0  # a zero pivot leaves its (all-zero) column as it is
        scale = np.where(nonzero, pivot, np.ones((), lu.dtype))
        lu[:, j + 1 :, j] = lu[:, j + 1 :, j] / scale[:, None]
        lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 :]
    return [
        np.reshape(lu, x.shape),
        np.reshape(pivots, (*batch, k)),
        np.reshape(perm, (*batch, m)),
    ]


# --- eigh -------------------------------------------------------------------------------------
@out_aval_rules.register(eigh_p)
def _eigh_avals(a: ShapedArray, *, lower: bool, sort_eigenvalues: bool) -> list[ShapedArray]:
    _check_matrix("eigh", a, square=True)
    return [_strong(a), ShapedArray(a.shape[:-1], a.dtype)]


@impl_rules.register(eigh_p)
def _eigh_impl(a: Any, *, lower: bool, sort_eigenvalues: bool) -> list[Any]:
    v_aval, w_aval = check_operands(
        eigh_p, [a], {"lower": lower, "sort_eigenvalues": sort_eigenvalues}
    )
    w, v = np.linalg.eigh(np.asarray(a), UPLO="L" if lower else "U")  # ascending already
    return [np.asarray(v, v_aval.dtype), np.asarray(w, w_aval.dtype)]


# --- svd --------------------------------------------------------------------------------------
@out_aval_rules.register(svd_p)
def _svd_avals(a: ShapedArray, *, full_matrices: bool, compute_uv: bool) -> list[ShapedArray]:
    _check_matrix("svd", a, square=False)
    *batch, m, n = a.shape
    k = min(m, n)
    s = ShapedArray((*batch, k), a.dtype)
    if not compute_uv:
        return [s]
    u = ShapedArray((*batch, m, m if full_matrices else k), a.dtype)
    vt = ShapedArray((*batch, n if full_matrices else k, n), a.dtype)
    return [s, u, vt]


@impl_rules.register(svd_p)
def _svd_impl(a: Any, *, full_matrices: bool, compute_uv: bool) -> list[Any]:
    avals = check_operands(svd_p, [a], {"full_matrices": full_matrices, "compute_uv": compute_uv})
    x = np.asarray(a)
    if not compute_uv:
        return [np.asarray(np.linalg.svd(x, compute_uv=False), avals[0].dtype)]
    u, s, vt = np.linalg.svd(x, full_matrices=full_matrices)
    return [np.asarray(v, av.dtype) for v, av in zip((s, u, vt), avals, strict=True)]


# --- qr ---------------------------------------------------------------------------------------
@out_aval_rules.register(qr_p)
def _qr_avals(a: ShapedArray, *, full_matrices: bool) -> list[ShapedArray]:
    _check_matrix("qr", a, square=False)
    *batch, m, n = a.shape
    k = m if full_matrices else min(m, n)
    return [ShapedArray((*batch, m, k), a.dtype), ShapedArray((*batch, k, n), a.dtype)]


@impl_rules.register(qr_p)
def _qr_impl(a: Any, *, full_matrices: bool) -> list[Any]:
    q_aval, r_aval = check_operands(qr_p, [a], {"full_matrices": full_matrices})
    q, r = np.linalg.qr(np.asarray(a), mode="complete" if full_matrices else "reduced")
    return [np.asarray(q, q_aval.dtype), np.asarray(r, r_aval.dtype)]
