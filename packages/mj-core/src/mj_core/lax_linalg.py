"""``jax.lax.linalg`` for mj: one wrapper per linear-algebra primitive, plus the few batched
matrix helpers (``matmul``, ``mT``, ``tril``/``triu``, ``eye``) that the wrappers, the
derivative rules in mj-autodiff and ``mj.numpy.linalg`` all build on.

Every function works on the last two axes and treats leading axes as batch axes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.prims import linalg as la
from mj_core.shapes import shape_of
from mj_core.trace import bind, bind1

__all__ = [
    "cholesky",
    "diagonal",
    "eigh",
    "eye_like",
    "lu",
    "mT",
    "matmul",
    "qr",
    "svd",
    "symmetrize",
    "triangular_solve",
    "tril",
    "triu",
]

Array = Any


def _dtype(x: Array) -> np.dtype[Any]:
    dtype = getattr(x, "dtype", None)
    return np.result_type(x) if dtype is None else np.dtype(dtype)


def as_float_matrix(name: str, x: Array, *, square: bool = False) -> Array:
    """``x`` if it is a float32/float64 array of rank >= 2 (of square matrices if ``square``),
    else a ``TypeError``/``ValueError`` naming ``name`` (integers are rejected like JAX does,
    rather than silently converted)."""
    dtype, shape = _dtype(x), shape_of(x)
    if dtype.kind != "f" or dtype.itemsize < 4:
        raise TypeError(
            f"{name}: expected a float32 or float64 array, got {dtype}{list(shape)}"
            f"{user_line_suffix()}"
        )
    if len(shape) < 2:
        raise ValueError(
            f"{name}: expected an array of rank >= 2 (a matrix or a batch of matrices), "
            f"got shape {shape}{user_line_suffix()}"
        )
    if square and shape[-1] != shape[-2]:
        raise ValueError(
            f"{name}: expected square matrices in the last two axes, got shape {shape}"
            f"{user_line_suffix()}"
        )
    return x


# --- batched matrix helpers -------------------------------------------------------------------
def mT(x: Array) -> Array:  # noqa: N802 (the Array API's name)
    """Swap the last two axes."""
    nd = len(shape_of(x))
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def matmul(x: Array, y: Array) -> Array:
    """``x @ y`` for arrays with the same leading batch dims (a 1-D ``y`` is a vector)."""
    xn, yn = len(shape_of(x)), len(shape_of(y))
    batch = tuple(range(xn - 2))
    if yn == xn - 1:  # matrix @ vector
        return lax.dot_general(x, y, (((xn - 1,), (yn - 1,)), (batch, batch)))
    return lax.dot_general(x, y, (((xn - 1,), (yn - 2,)), (batch, batch)))


def _band_mask(shape: tuple[int, ...], k: int, lower: bool) -> Array:
    rows = lax.broadcasted_iota(np.int64, shape[-2:], 0)
    cols = lax.broadcasted_iota(np.int64, shape[-2:], 1)
    diff = lax.sub(cols, rows)  # j - i
    mask = lax.less_equal(diff, k) if lower else lax.greater_equal(diff, k)
    return lax.broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))


def tril(x: Array, k: int = 0) -> Array:
    """Zero above the ``k``-th diagonal of each matrix."""
    shape = shape_of(x)
    return lax.select(_band_mask(shape, k, True), x, lax.full_like(x, 0))


def triu(x: Array, k: int = 0) -> Array:
    """Zero below the ``k``-th diagonal of each matrix."""
    shape = shape_of(x)
    return lax.select(_band_mask(shape, k, False), x, lax.full_like(x, 0))


def eye_like(x: Array, n: int | None = None) -> Array:
    """The ``n x n`` identity (default: ``x``'s last dim), in ``x``'s dtype and batch shape."""
    shape = shape_of(x)
    n = shape[-1] if n is None else n
    full = (*shape[:-2], n, n)
    eq = lax.eq(
        lax.broadcasted_iota(np.int64, full, len(full) - 2),
        lax.broadcasted_iota(np.int64, full, len(full) - 1),
    )
    return lax.convert_element_type(eq, _dtype(x))


def diagonal(x: Array) -> Array:
    """The main diagonal of each square matrix, ``x[..., i, i]`` (linear in ``x``)."""
    return lax.reduce_sum(lax.mul(x, eye_like(x)), (len(shape_of(x)) - 1,))


def symmetrize(x: Array) -> Array:
    """``(x + x^T) / 2``: the symmetric part a Hermitian factorisation should see."""
    return lax.div(lax.add(x, mT(x)), lax.full_like(x, 2))


# --- the primitives -----------------------------------------------------------------------------
def cholesky(x: Array, *, symmetrize_input: bool = True) -> Array:
    """Lower Cholesky factor ``L`` with ``x = L L^T`` (NaNs where ``x`` is not positive
    definite). With ``symmetrize_input`` the factorisation sees ``(x + x^T) / 2``, so its
    derivative is symmetric too, as in JAX."""
    x = as_float_matrix("cholesky", x, square=True)
    if symmetrize_input:
        x = symmetrize(x)
    return bind1(la.cholesky_p, x)


def triangular_solve(
    a: Array,
    b: Array,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Array:
    """Solve ``op(a) x = b`` (``left_side``) or ``x op(a) = b`` with triangular ``a``, where
    ``op`` transposes when ``transpose_a``; only ``a``'s ``lower``/upper triangle is read."""
    a = as_float_matrix("triangular_solve", a)
    b = as_float_matrix("triangular_solve", b)
    return bind1(
        la.triangular_solve_p,
        a,
        b,
        left_side=bool(left_side),
        lower=bool(lower),
        transpose_a=bool(transpose_a),
        conjugate_a=bool(conjugate_a),
        unit_diagonal=bool(unit_diagonal),
    )


def lu(x: Array) -> tuple[Array, Array, Array]:
    """``(lu, pivots, permutation)`` with partial pivoting: ``x[perm] = L @ U``, ``L`` unit
    lower (below the diagonal of ``lu``) and ``U`` upper; ``pivots`` are LAPACK's row swaps."""
    x = as_float_matrix("lu", x)
    lu_, pivots, perm = bind(la.lu_p, x)
    return lu_, pivots, perm


def eigh(
    x: Array, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True
) -> tuple[Array, Array]:
    """``(v, w)``: eigenvectors (columns of ``v``) and ascending eigenvalues of a symmetric
    matrix, reading its ``lower`` (or upper) triangle."""
    x = as_float_matrix("eigh", x, square=True)
    if symmetrize_input:
        x = symmetrize(x)
    v, w = bind(la.eigh_p, x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues))
    return v, w


def svd(x: Array, *, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """``(u, s, vt)`` with ``x = u @ diag(s) @ vt`` and ``s`` descending; only ``s`` when not
    ``compute_uv``."""
    x = as_float_matrix("svd", x)
    outs = bind(la.svd_p, x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


def qr(x: Array, *, full_matrices: bool = True) -> tuple[Array, Array]:
    """``(q, r)`` with ``x = q @ r``, ``q`` orthonormal columns, ``r`` upper triangular."""
    x = as_float_matrix("qr", x)
    q, r = bind(la.qr_p, x, full_matrices=bool(full_matrices))
    return q, r
