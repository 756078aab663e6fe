"""Dense linear-algebra primitives (``jax.lax.linalg``'s): factorisations and triangular solves.

All act on the last two axes; leading axes are batch axes, and every one takes float32,
float64, complex64 or complex128 matrices, as JAX's. Each has a typing rule (the one
source of truth mj-ir's abstract eval uses) and a NumPy impl rule (``np.linalg``; LU has no
NumPy routine, so it is a batched partial-pivoting elimination here, picking pivots exactly
as LAPACK's ``getrf`` does). Like JAX, a failed factorisation (a Cholesky of a matrix that is
not positive definite) gives NaNs rather than an exception, so eager and jit agree.

The lax wrappers (``jax.lax.linalg``: ``cholesky``, ``triangular_solve``, ``lu``, ``eig``,
``eigh``, ``svd``, ``qr``) and the batched matrix helpers they, the derivative rules of
mj-autodiff and ``mj.numpy.linalg`` build on (``matmul``, ``mT``, ``mH``, ``tril``/``triu``,
``eye_like``, ``diagonal``) follow the rules; ``__all__`` is what :mod:`mj_core.lax_linalg`
(``lax.linalg``) shows.
"""

from __future__ import annotations

import enum
import math
from typing import Any

import numpy as np

from mj_core._avals import ShapedArray, get_aval
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error, shape_of
from mj_core._typing import Array, ArrayLike
from mj_core.dtypes import dtype_of
from mj_core.errors import user_line_suffix
from mj_core.prims._householder import gehrd_2d, geqp3_2d, orgqr_2d, sytrd_2d
from mj_core.prims._hqr import schur_2d
from mj_core.prims._operands import bind, bind1, check_operands
from mj_core.prims.complex import complex_dtype, conj, real_dtype
from mj_core.prims.contractions import dot_general
from mj_core.prims.conversions import convert_element_type
from mj_core.prims.elementwise import (
    add,
    div,
    eq,
    greater_equal,
    less_equal,
    mul,
    select,
    select_n,
    sub,
)
from mj_core.prims.reductions import reduce_sum
from mj_core.prims.structural import (
    broadcast_in_dim,
    broadcasted_iota,
    expand_dims,
    full_like,
    iota,
    squeeze,
    transpose,
)
from mj_core.prims.structural import slice as lax_slice

__all__ = [
    "EigImplementation",
    "SvdAlgorithm",
    "as_float_matrix",
    "cholesky",
    "cholesky_p",
    "diagonal",
    "eig",
    "eig_p",
    "eigh",
    "eigh_p",
    "eye_like",
    "geqp3_p",
    "geqrf_p",
    "hessenberg",
    "hessenberg_p",
    "householder_product",
    "householder_product_p",
    "lu",
    "lu_p",
    "lu_pivots_to_permutation",
    "mH",
    "mT",
    "matmul",
    "qr",
    "qr_p",
    "schur",
    "schur_p",
    "svd",
    "svd_p",
    "symmetrize",
    "triangular_solve",
    "triangular_solve_p",
    "tridiagonal",
    "tridiagonal_p",
    "tridiagonal_solve",
    "tridiagonal_solve_p",
    "tril",
    "triu",
]

cholesky_p = Primitive("cholesky")
triangular_solve_p = Primitive("triangular_solve")
lu_p = Primitive("lu", multiple_results=True)
eig_p = Primitive("eig", multiple_results=True)
eigh_p = Primitive("eigh", multiple_results=True)
svd_p = Primitive("svd", multiple_results=True)
qr_p = Primitive("qr", multiple_results=True)
schur_p = Primitive("schur", multiple_results=True)


_DTYPES_TEXT = "a float32, float64, complex64 or complex128"


def _is_lapack_dtype(dtype: np.dtype[Any], *, complex_ok: bool = True) -> bool:
    """float32/float64 (and complex64/complex128 when ``complex_ok``): LAPACK's four types."""
    return (dtype.kind == "f" and dtype.itemsize >= 4) or (complex_ok and dtype.kind == "c")


def _check_matrix(name: str, a: ShapedArray, *, square: bool) -> None:
    """Operands are float or complex arrays of rank >= 2 (square when ``square``)."""
    if not _is_lapack_dtype(a.dtype):
        raise aval_error(name, f"expected {_DTYPES_TEXT} matrix", [a])
    if len(a.shape) < 2:
        raise aval_error(name, "expected an array of rank >= 2 (a matrix or a batch)", [a])
    if square and a.shape[-1] != a.shape[-2]:
        raise aval_error(name, "expected square matrices in the last two axes", [a])


def _strong(a: ShapedArray) -> ShapedArray:
    return ShapedArray(a.shape, a.dtype)


# --- cholesky ---------------------------------------------------------------------------------
@abstract_eval_rules.register(cholesky_p)
def _cholesky_avals(a: ShapedArray) -> list[ShapedArray]:
    _check_matrix("cholesky", a, square=True)
    return [_strong(a)]


@impl_rules.register(cholesky_p)
def _cholesky_impl(a: ArrayLike) -> list[Any]:
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
@abstract_eval_rules.register(triangular_solve_p)
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
    if params["conjugate_a"]:
        op_a = np.conj(op_a)
    if params["transpose_a"]:
        op_a = np.swapaxes(op_a, -1, -2)
    b = np.asarray(b)
    lower = params["lower"] != params["transpose_a"]  # op(a)'s triangle
    if params["left_side"]:  # op(a) @ x = b
        x = _solve(op_a, b, lower)
    else:  # x @ op(a) = b  <=>  op(a)^T @ x^T = b^T
        x = np.swapaxes(
            _solve(np.swapaxes(op_a, -1, -2), np.swapaxes(b, -1, -2), not lower), -1, -2
        )
    return [np.asarray(x, out.dtype)]


def _solve(t: Any, b: Any, lower: bool) -> Any:
    """``t @ x = b`` for triangular ``t``: LAPACK's solve, or where it refuses a singular
    ``t``, substitution, which divides by the zero pivots as XLA's triangular solve does
    (infinities and NaNs, no exception: eager and jit give the same answer)."""
    try:
        return np.linalg.solve(t, b)
    except np.linalg.LinAlgError:
        pass
    n = t.shape[-1]
    x = np.zeros(np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n) if lower else range(n - 1, -1, -1):
            done = slice(0, i) if lower else slice(i + 1, n)
            acc = b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, done], x[..., done, :])
            x[..., i, :] = acc / t[..., i, i, None]
    return x


# --- lu ---------------------------------------------------------------------------------------
@abstract_eval_rules.register(lu_p)
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
def _lu_impl(a: ArrayLike) -> list[Any]:
    out = check_operands(lu_p, [a], {})
    x = np.array(a, dtype=out[0].dtype)  # a private copy, overwritten by the factors
    *batch, m, n = x.shape
    k = min(m, n)
    nb = math.prod(batch)
    lu = np.reshape(x, (nb, m, n))  # (not -1: a 0x0 matrix has no size to infer it from)
    rows = np.arange(nb)
    pivots = np.zeros((nb, k), np.int32)
    perm = np.tile(np.arange(m, dtype=np.int32), (nb, 1))
    # LAPACK's i?amax: the first maximum of |x| (of |re| + |im| for complex types)
    magnitude = np.abs if x.dtype.kind != "c" else lambda c: np.abs(c.real) + np.abs(c.imag)
    for j in range(k):
        p = j + np.argmax(magnitude(lu[:, j:, j]), axis=1)
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
@abstract_eval_rules.register(eigh_p)
def _eigh_avals(a: ShapedArray, *, lower: bool, sort_eigenvalues: bool) -> list[ShapedArray]:
    _check_matrix("eigh", a, square=True)
    return [_strong(a), ShapedArray(a.shape[:-1], real_dtype(a.dtype))]


@impl_rules.register(eigh_p)
def _eigh_impl(a: ArrayLike, *, lower: bool, sort_eigenvalues: bool) -> list[Any]:
    v_aval, w_aval = check_operands(
        eigh_p, [a], {"lower": lower, "sort_eigenvalues": sort_eigenvalues}
    )
    w, v = np.linalg.eigh(np.asarray(a), UPLO="L" if lower else "U")  # ascending already
    return [np.asarray(v, v_aval.dtype), np.asarray(w, w_aval.dtype)]


# --- eig --------------------------------------------------------------------------------------
@abstract_eval_rules.register(eig_p)
def _eig_avals(
    a: ShapedArray,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool,
) -> list[ShapedArray]:
    _check_matrix("eig", a, square=True)
    dtype = complex_dtype(a.dtype)
    vectors = [ShapedArray(a.shape, dtype)] * (
        compute_left_eigenvectors + compute_right_eigenvectors
    )
    return [ShapedArray(a.shape[:-1], dtype), *vectors]


def _geev_normalized(v: Any) -> Any:
    """Columns scaled as LAPACK's ``geev`` leaves them: unit 2-norm, largest-modulus entry
    real (and here positive)."""
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    k = np.argmax(np.abs(v), axis=-2)[..., None, :]
    top = np.take_along_axis(v, k, axis=-2)
    return v * (np.abs(top) / top)


@impl_rules.register(eig_p)
def _eig_impl(a: ArrayLike, **params: bool) -> list[Any]:
    avals = check_operands(eig_p, [a], params)
    dtype = avals[0].dtype
    x = np.asarray(a)
    finite = np.isfinite(x).all(axis=(-2, -1))  # LAPACK fails on the others: NaNs for them
    x = np.where(finite[..., None, None], x, np.eye(x.shape[-1], dtype=x.dtype))
    w, vr = np.linalg.eig(x)  # LAPACK's geev, so vr has its normalisation
    outs = [w]
    if params["compute_left_eigenvectors"]:
        # the rows of vr^-1 are the left eigenvectors' conjugates: vl^H a = diag(w) vl^H
        outs.append(_geev_normalized(np.conj(np.swapaxes(np.linalg.inv(vr), -1, -2))))
    if params["compute_right_eigenvectors"]:
        outs.append(vr)
    return [
        np.asarray(
            np.where(np.reshape(finite, finite.shape + (1,) * (o.ndim - finite.ndim)), o, np.nan),
            dtype,
        )
        for o in outs
    ]


# --- svd --------------------------------------------------------------------------------------
@abstract_eval_rules.register(svd_p)
def _svd_avals(a: ShapedArray, *, full_matrices: bool, compute_uv: bool) -> list[ShapedArray]:
    _check_matrix("svd", a, square=False)
    *batch, m, n = a.shape
    k = min(m, n)
    s = ShapedArray((*batch, k), real_dtype(a.dtype))
    if not compute_uv:
        return [s]
    u = ShapedArray((*batch, m, m if full_matrices else k), a.dtype)
    vt = ShapedArray((*batch, n if full_matrices else k, n), a.dtype)
    return [s, u, vt]


@impl_rules.register(svd_p)
def _svd_impl(a: ArrayLike, *, full_matrices: bool, compute_uv: bool) -> list[Any]:
    avals = check_operands(svd_p, [a], {"full_matrices": full_matrices, "compute_uv": compute_uv})
    x = np.asarray(a)
    try:
        if not compute_uv:
            return [np.asarray(np.linalg.svd(x, compute_uv=False), avals[0].dtype)]
        u, s, vt = np.linalg.svd(x, full_matrices=full_matrices)
    except np.linalg.LinAlgError:  # did not converge (a NaN or inf): NaNs, as XLA returns
        return [np.full(av.shape, np.nan, av.dtype) for av in avals]
    return [np.asarray(v, av.dtype) for v, av in zip((s, u, vt), avals, strict=True)]


# --- qr ---------------------------------------------------------------------------------------
@abstract_eval_rules.register(qr_p)
def _qr_avals(a: ShapedArray, *, full_matrices: bool) -> list[ShapedArray]:
    _check_matrix("qr", a, square=False)
    *batch, m, n = a.shape
    k = m if full_matrices else min(m, n)
    return [ShapedArray((*batch, m, k), a.dtype), ShapedArray((*batch, k, n), a.dtype)]


@impl_rules.register(qr_p)
def _qr_impl(a: ArrayLike, *, full_matrices: bool) -> list[Any]:
    q_aval, r_aval = check_operands(qr_p, [a], {"full_matrices": full_matrices})
    q, r = np.linalg.qr(np.asarray(a), mode="complete" if full_matrices else "reduced")
    return [np.asarray(q, q_aval.dtype), np.asarray(r, r_aval.dtype)]


# --- schur ------------------------------------------------------------------------------------
_SORT_TEXT = "The sort feature of LAPACK's gees routine is not implemented."


@abstract_eval_rules.register(schur_p)
def _schur_avals(
    a: ShapedArray, *, compute_schur_vectors: bool, sort_eig_vals: bool, select_callable: Any
) -> list[ShapedArray]:
    _check_matrix("schur", a, square=True)
    return [_strong(a)] * (2 if compute_schur_vectors else 1)


@impl_rules.register(schur_p)
def _schur_impl(a: ArrayLike, **params: Any) -> list[Any]:
    avals = check_operands(schur_p, [a], params)
    if params["sort_eig_vals"]:
        raise NotImplementedError(f"{_SORT_TEXT}{user_line_suffix()}")
    x = np.asarray(a, avals[0].dtype)
    flat = np.reshape(x, (-1, *x.shape[-2:]))
    ts, zs = np.empty_like(flat), np.empty_like(flat)
    for i in range(flat.shape[0]):
        ts[i], zs[i] = schur_2d(flat[i])
    outs = [np.reshape(ts, x.shape), np.reshape(zs, x.shape)]
    return outs[: len(avals)]


# --- lax wrappers (jax.lax.linalg) and the batched matrix helpers they build on -------------
def as_float_matrix(
    name: str, x: ArrayLike, *, square: bool = False, complex_ok: bool = False
) -> ArrayLike:
    """``x`` if it is a float32/float64 (or, when ``complex_ok``, complex64/complex128) array
    of rank >= 2 (of square matrices if ``square``), else a ``TypeError``/``ValueError``
    naming ``name`` (integers are rejected like JAX does, rather than silently converted);
    float16/bfloat16 are JAX's ``NotImplementedError`` (no LAPACK kernel for them)."""
    dtype, shape = dtype_of(x), shape_of(x)
    if dtype.kind == "f" and dtype.itemsize < 4:
        # JAX's CPU kernels' refusal (raised when lowering: float16/bfloat16 have none)
        raise NotImplementedError(f"Unsupported dtype {dtype}.{user_line_suffix()}")
    if not _is_lapack_dtype(dtype, complex_ok=complex_ok):
        expected = _DTYPES_TEXT if complex_ok else "a float32 or float64"
        raise TypeError(
            f"{name}: expected {expected} array, got {dtype}{list(shape)}{user_line_suffix()}"
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
def mT(x: ArrayLike) -> Array:  # noqa: N802 (the Array API's name)
    """Swap the last two axes."""
    nd = len(shape_of(x))
    return transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def mH(x: ArrayLike) -> Array:  # noqa: N802 (the Array API's name)
    """The conjugate transpose of each matrix (``mT`` for real dtypes)."""
    return conj(mT(x)) if dtype_of(x).kind == "c" else mT(x)


def matmul(x: ArrayLike, y: ArrayLike) -> Array:
    """``x @ y`` for arrays with the same leading batch dims (a 1-D ``y`` is a vector)."""
    xn, yn = len(shape_of(x)), len(shape_of(y))
    batch = tuple(range(xn - 2))
    if yn == xn - 1:  # matrix @ vector
        return dot_general(x, y, (((xn - 1,), (yn - 1,)), (batch, batch)))
    return dot_general(x, y, (((xn - 1,), (yn - 2,)), (batch, batch)))


def _band_mask(shape: tuple[int, ...], k: int, lower: bool) -> Array:
    rows = broadcasted_iota(np.int64, shape[-2:], 0)
    cols = broadcasted_iota(np.int64, shape[-2:], 1)
    diff = sub(cols, rows)  # j - i
    mask = less_equal(diff, k) if lower else greater_equal(diff, k)
    return broadcast_in_dim(mask, shape, (len(shape) - 2, len(shape) - 1))


def tril(x: ArrayLike, k: int = 0) -> Array:
    """Zero above the ``k``-th diagonal of each matrix."""
    shape = shape_of(x)
    return select(_band_mask(shape, k, True), x, full_like(x, 0))


def triu(x: ArrayLike, k: int = 0) -> Array:
    """Zero below the ``k``-th diagonal of each matrix."""
    shape = shape_of(x)
    return select(_band_mask(shape, k, False), x, full_like(x, 0))


def eye_like(x: ArrayLike, n: int | None = None) -> Array:
    """The ``n x n`` identity (default: ``x``'s last dim), in ``x``'s dtype and batch shape."""
    shape = shape_of(x)
    n = shape[-1] if n is None else n
    full = (*shape[:-2], n, n)
    identity = eq(
        broadcasted_iota(np.int64, full, len(full) - 2),
        broadcasted_iota(np.int64, full, len(full) - 1),
    )
    return convert_element_type(identity, dtype_of(x))


def diagonal(x: ArrayLike) -> Array:
    """The main diagonal of each square matrix, ``x[..., i, i]`` (linear in ``x``)."""
    return reduce_sum(mul(x, eye_like(x)), (len(shape_of(x)) - 1,))


def symmetrize(x: ArrayLike) -> Array:
    """``(x + x^H) / 2``: the Hermitian part a Hermitian factorisation should see."""
    return div(add(x, mH(x)), full_like(x, 2))


# --- the primitives' wrappers --------------------------------------------------------------------
def cholesky(x: ArrayLike, *, symmetrize_input: bool = True) -> Array:
    """Lower Cholesky factor ``L`` with ``x = L L^H`` (NaNs where ``x`` is not positive
    definite). With ``symmetrize_input`` the factorisation sees ``(x + x^H) / 2``, so its
    derivative is Hermitian too, as in JAX."""
    x = as_float_matrix("cholesky", x, square=True, complex_ok=True)
    if symmetrize_input:
        x = symmetrize(x)
    return bind1(cholesky_p, x)


def triangular_solve(
    a: ArrayLike,
    b: ArrayLike,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
) -> Array:
    """Solve ``op(a) x = b`` (``left_side``) or ``x op(a) = b`` with triangular ``a``, where
    ``op`` transposes when ``transpose_a`` and conjugates when ``conjugate_a``; only ``a``'s
    ``lower``/upper triangle is read. A ``b`` of one rank less than ``a`` is a (batch of)
    vectors, as in JAX: a column when ``left_side``, else a row."""
    a = as_float_matrix("triangular_solve", a, complex_ok=True)
    singleton = len(shape_of(b)) == len(shape_of(a)) - 1
    if singleton:
        b = expand_dims(b, (len(shape_of(b)) if left_side else len(shape_of(b)) - 1,))
    b = as_float_matrix("triangular_solve", b, complex_ok=True)
    out = bind1(
        triangular_solve_p,
        a,
        b,
        left_side=bool(left_side),
        lower=bool(lower),
        transpose_a=bool(transpose_a),
        conjugate_a=bool(conjugate_a),
        unit_diagonal=bool(unit_diagonal),
    )
    if singleton:
        out = squeeze(out, (len(shape_of(out)) - (1 if left_side else 2),))
    return out


def lu(x: ArrayLike) -> tuple[Array, Array, Array]:
    """``(lu, pivots, permutation)`` with partial pivoting: ``x[perm] = L @ U``, ``L`` unit
    lower (below the diagonal of ``lu``) and ``U`` upper; ``pivots`` are LAPACK's row swaps."""
    x = as_float_matrix("lu", x, complex_ok=True)
    lu_, pivots, perm = bind(lu_p, x)
    return lu_, pivots, perm


class EigImplementation(enum.Enum):
    """JAX's choice of eigendecomposition kernel; mj has one (LAPACK's ``geev``)."""

    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


class SvdAlgorithm(enum.Enum):
    """JAX's choice of SVD algorithm; mj computes every one with its single SVD kernel."""

    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


def eig(
    x: ArrayLike,
    *,
    compute_left_eigenvectors: bool = True,
    compute_right_eigenvectors: bool = True,
    enable_eigvec_derivs: bool = False,
    implementation: EigImplementation | None = None,
    use_magma: bool | None = None,
) -> list[Array]:
    """``[w, vl, vr]`` (the vectors only when asked): the complex eigenvalues of a general
    square matrix and its left (``vl^H x = diag(w) vl^H``) and right (``x vr = vr diag(w)``)
    eigenvectors, unit-norm with their largest entry real as LAPACK's ``geev`` leaves them.
    Eigenvector derivatives assume distinct eigenvalues, so they need
    ``enable_eigvec_derivs``, as in JAX."""
    x = as_float_matrix("eig", x, square=True, complex_ok=True)
    return bind(
        eig_p,
        x,
        compute_left_eigenvectors=bool(compute_left_eigenvectors),
        compute_right_eigenvectors=bool(compute_right_eigenvectors),
        enable_eigvec_derivs=bool(enable_eigvec_derivs),
    )


def eigh(
    x: ArrayLike,
    *,
    lower: bool = True,
    symmetrize_input: bool = True,
    sort_eigenvalues: bool = True,
) -> tuple[Array, Array]:
    """``(v, w)``: eigenvectors (columns of ``v``) and ascending (real) eigenvalues of a
    symmetric or Hermitian matrix, reading its ``lower`` (or upper) triangle."""
    x = as_float_matrix("eigh", x, square=True, complex_ok=True)
    if symmetrize_input:
        x = symmetrize(x)
    v, w = bind(eigh_p, x, lower=bool(lower), sort_eigenvalues=bool(sort_eigenvalues))
    return v, w


def svd(
    x: ArrayLike,
    *,
    full_matrices: bool = True,
    compute_uv: bool = True,
    subset_by_index: tuple[int, int] | None = None,
    algorithm: SvdAlgorithm | None = None,
) -> Any:
    """``(u, s, vt)`` with ``x = u @ diag(s) @ vt`` and ``s`` descending; only ``s`` when not
    ``compute_uv``. Every ``algorithm`` gives the same decomposition here; ``subset_by_index``
    is not implemented."""
    if subset_by_index is not None:
        raise NotImplementedError(f"svd: subset_by_index is not implemented{user_line_suffix()}")
    if algorithm is not None and not isinstance(algorithm, SvdAlgorithm):
        raise TypeError(f"svd: algorithm must be an SvdAlgorithm, got {algorithm!r}")
    x = as_float_matrix("svd", x, complex_ok=True)
    outs = bind(svd_p, x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    if not compute_uv:
        return outs[0]
    s, u, vt = outs
    return u, s, vt


def qr(x: ArrayLike, *, full_matrices: bool = True) -> tuple[Array, Array]:
    """``(q, r)`` with ``x = q @ r``, ``q`` orthonormal (unitary) columns, ``r`` upper
    triangular."""
    x = as_float_matrix("qr", x, complex_ok=True)
    q, r = bind(qr_p, x, full_matrices=bool(full_matrices))
    return q, r


def schur(
    x: ArrayLike,
    *,
    compute_schur_vectors: bool = True,
    sort_eig_vals: bool = False,
    select_callable: Any = None,
) -> list[Array]:
    """``[T, Q]`` (only ``[T]`` without ``compute_schur_vectors``) with ``x = Q T Q^H``, ``Q``
    unitary and ``T`` upper triangular (complex ``x``) or quasi-triangular with 2x2 blocks for
    complex eigenvalue pairs (real ``x``), as LAPACK's ``gees``. ``sort_eig_vals`` is not
    implemented (JAX's error); ``select_callable`` is unused, as in JAX."""
    dtype, shape = dtype_of(x), shape_of(x)
    if not _is_lapack_dtype(dtype):  # JAX's wordings
        raise TypeError(
            f"schur does not accept dtype {dtype} at position 0. Accepted dtypes at position 0 "
            f"are subtypes of floating, complexfloating.{user_line_suffix()}"
        )
    if len(shape) < 2:
        raise TypeError(
            f"Input 0 to schur must have rank at least 2, but got shape={shape}{user_line_suffix()}"
        )
    if shape[-1] != shape[-2]:
        raise ValueError(
            f"The input to schur must be a square matrix. Got shape {shape[-2:]}."
            f"{user_line_suffix()}"
        )
    return bind(
        schur_p,
        x,
        compute_schur_vectors=bool(compute_schur_vectors),
        sort_eig_vals=bool(sort_eig_vals),
        select_callable=select_callable,
    )


def lu_pivots_to_permutation(pivots: ArrayLike, permutation_size: int) -> Array:
    """The permutation (``int32``, length ``permutation_size``) that LAPACK's row swaps
    ``i <-> pivots[..., i]`` apply, in turn, to ``iota(permutation_size)``; leading axes of
    ``pivots`` are batch axes (JAX's ``lax.linalg.lu_pivots_to_permutation``)."""
    shape = tuple(get_aval(pivots).shape)
    batch, k = shape[:-1], shape[-1]
    m = int(permutation_size)
    if k > m:
        raise ValueError(
            f"Output permutation size {m} has to exceed the trailing dimension of the pivots. "
            f"Got pivots size {k}"
        )
    nb = len(batch)
    dtype = np.dtype(get_aval(pivots).dtype)
    positions = iota(np.dtype(np.int32), m)
    perm = broadcast_in_dim(positions, (*batch, m), (nb,))
    pivots = convert_element_type(pivots, np.dtype(np.int32))
    for i in range(k):
        p = lax_slice(pivots, (0,) * nb + (i,), (*batch, i + 1))
        at_i = broadcast_in_dim(eq(positions, np.int32(i)), (*batch, m), (nb,))
        at_p = eq(
            broadcast_in_dim(positions, (*batch, m), (nb,)),
            broadcast_in_dim(p, (*batch, m), tuple(range(nb + 1))),
        )
        zeros = broadcast_in_dim(np.int32(0), (*batch, m), ())
        val_i = lax_slice(perm, (0,) * nb + (i,), (*batch, i + 1))
        val_p = reduce_sum(select_n(at_p, zeros, perm), (nb,))
        val_p = broadcast_in_dim(val_p, (*batch, m), tuple(range(nb)))
        val_i = broadcast_in_dim(val_i, (*batch, m), tuple(range(nb + 1)))
        perm = select_n(at_i, select_n(at_p, perm, val_i), val_p)
    return convert_element_type(perm, dtype)


# --- tridiagonal_solve --------------------------------------------------------------------------
tridiagonal_solve_p = Primitive("tridiagonal_solve")


@abstract_eval_rules.register(tridiagonal_solve_p)
def _tridiagonal_solve_avals(
    dl: ShapedArray, d: ShapedArray, du: ShapedArray, b: ShapedArray, *, perturb_singular: bool
) -> list[ShapedArray]:
    for a in (dl, d, du, b):
        if not _is_lapack_dtype(a.dtype):
            raise TypeError(
                f"tridiagonal_solve does not accept dtype {a.dtype}. Accepted dtypes are "
                "subtypes of floating or complexfloating."
            )
    if b.ndim < 2:
        raise TypeError(f"tridiagonal_solve requires b of rank >= 2, got shape {b.shape}")
    if dl.shape != d.shape or dl.shape != du.shape:
        raise TypeError(
            "tridiagonal_solve requires that all diagonal arguments have the same shape."
        )
    if dl.shape != b.shape[:-1]:
        raise TypeError(
            "tridiagonal_solve requires that the leading ndim-1 dimensions of b equal the "
            "dimensions of the diagonal arguments."
        )
    if len({a.dtype for a in (dl, d, du, b)}) != 1:
        raise TypeError(
            "tridiagonal_solve requires that all arguments have the same dtype, got "
            f"{[str(a.dtype) for a in (dl, d, du, b)]}"
        )
    return [_strong(b)]


def _magnitude(x: Any) -> Any:
    """LAPACK's pivot size: ``|x|``, or ``|re| + |im|`` (``CABS1``) for complex numbers."""
    if np.iscomplexobj(x):
        return np.abs(x.real) + np.abs(x.imag)
    return np.abs(x)


@impl_rules.register(tridiagonal_solve_p)
def _tridiagonal_solve_impl(
    dl: ArrayLike, d: ArrayLike, du: ArrayLike, b: ArrayLike, *, perturb_singular: bool
) -> list[Any]:
    """LAPACK's ``gtsv`` (Gaussian elimination with partial pivoting, rows interchanged where
    the sub-diagonal entry is larger), every batch element at once; a zero pivot makes that
    element's solution NaN, as JAX's CPU lowering does. With ``perturb_singular`` a zero or
    tiny pivot is replaced by ``eps * max|A|`` instead (finite, very large solutions)."""
    (out,) = check_operands(
        tridiagonal_solve_p, [dl, d, du, b], {"perturb_singular": perturb_singular}
    )
    n = out.shape[-2]
    x = np.array(b, out.dtype, copy=True)
    diag = np.array(d, out.dtype, copy=True)
    sub = np.array(np.asarray(dl, out.dtype)[..., 1:], copy=True)  # A[i+1, i]
    sup = np.array(np.asarray(du, out.dtype)[..., :-1], copy=True)  # A[i, i+1]
    second = np.zeros_like(sub)  # U's second super-diagonal (row interchanges)
    batch = diag.shape[:-1]
    failed = np.zeros(batch, np.bool_)
    eps = np.finfo(out.dtype).eps
    scale = np.max(
        np.concatenate([_magnitude(np.asarray(a, out.dtype)) for a in (dl, d, du)], axis=-1),
        axis=-1,
        initial=0.0,
    )
    tiny = np.where(scale > 0, eps * scale, np.finfo(out.dtype).tiny)

    def pivot(p: Any) -> Any:
        if not perturb_singular:
            return p
        small = _magnitude(p) < tiny
        return np.where(small, np.where(p == 0, tiny, p / _magnitude(p) * tiny), p)

    with np.errstate(all="ignore"):
        for i in range(n - 1):
            keep = _magnitude(diag[..., i]) >= _magnitude(sub[..., i])
            di, li, ui = diag[..., i], sub[..., i], sup[..., i]
            pi = pivot(di)  # the pivot where the rows stay (li where they are interchanged)
            failed |= keep & (pi == 0)
            fact = np.where(keep, li / np.where(pi == 0, 1, pi), di / np.where(keep, 1, li))
            nxt = diag[..., i + 1].copy()
            diag[..., i] = np.where(keep, pi, li)
            diag[..., i + 1] = np.where(keep, nxt - fact * ui, ui - fact * nxt)
            sup[..., i] = np.where(keep, ui, nxt)
            if i < n - 2:
                after = sup[..., i + 1].copy()
                second[..., i] = np.where(keep, 0, after)
                sup[..., i + 1] = np.where(keep, after, -fact * after)
            xi, xn = x[..., i, :].copy(), x[..., i + 1, :].copy()
            k = keep[..., None]
            f = fact[..., None]
            x[..., i, :] = np.where(k, xi, xn)
            x[..., i + 1, :] = np.where(k, xn - f * xi, xi - f * xn)
        last = pivot(diag[..., n - 1])
        diag[..., n - 1] = last
        failed |= last == 0
        for i in range(n - 1, -1, -1):
            rhs = x[..., i, :]
            if i + 1 < n:
                rhs = rhs - sup[..., i, None] * x[..., i + 1, :]
            if i + 2 < n:
                rhs = rhs - second[..., i, None] * x[..., i + 2, :]
            x[..., i, :] = rhs / diag[..., i, None]
    if not perturb_singular:
        x[failed] = np.nan
    return [x]


def tridiagonal_solve(
    dl: ArrayLike, d: ArrayLike, du: ArrayLike, b: ArrayLike, *, perturb_singular: bool = False
) -> Array:
    """Solve the tridiagonal systems ``A x = b`` (``jax.lax.linalg.tridiagonal_solve``): ``dl``,
    ``d``, ``du`` (shape ``[..., m]``) are ``A``'s sub-, main and super-diagonal
    (``dl[i] = A[i, i-1]``, ``du[i] = A[i, i+1]``; ``dl[0]`` and ``du[m-1]`` are ignored),
    ``b`` is ``[..., m, n]``. Partial pivoting, as LAPACK's ``gtsv``; a singular system gives
    NaNs, or with ``perturb_singular`` a finite solution of tiny pivots perturbed by about
    ``eps * max|A|``."""
    return bind1(tridiagonal_solve_p, dl, d, du, b, perturb_singular=bool(perturb_singular))


# --- hessenberg, householder_product, tridiagonal: Householder reductions ----------------------
hessenberg_p = Primitive("hessenberg", multiple_results=True)
householder_product_p = Primitive("householder_product")
tridiagonal_p = Primitive("tridiagonal", multiple_results=True)


def _check_jax_operands(name: str, avals: list[ShapedArray], ranks: list[int]) -> None:
    """JAX's ``linalg_primitive`` checks (and wordings): float or complex operands of one dtype,
    each of rank at least ``ranks[i]``, all with the same number of batch axes."""
    for i, a in enumerate(avals):
        if not _is_lapack_dtype(a.dtype):
            raise TypeError(
                f"{name} does not accept dtype {a.dtype} at position {i}. Accepted dtypes at "
                f"position {i} are subtypes of floating, complexfloating.{user_line_suffix()}"
            )
    if len({a.dtype for a in avals}) > 1:
        raise TypeError(
            f"lax.{name} requires arguments to have the same dtypes, got "
            f"{', '.join(str(a.dtype) for a in avals)}.{user_line_suffix()}"
        )
    for i, (a, rank) in enumerate(zip(avals, ranks, strict=True)):
        if a.ndim < rank:
            raise TypeError(
                f"Input {i} to {name} must have rank at least {rank}, but got "
                f"shape={a.shape}{user_line_suffix()}"
            )
    batches = [a.shape[: a.ndim - r] for a, r in zip(avals, ranks, strict=True)]
    if len({len(b) for b in batches}) > 1:
        raise TypeError(
            f"All inputs to {name} must have the same number of batch dimensions, but got "
            f"{[len(b) for b in batches]} batch dimensions for the inputs.{user_line_suffix()}"
        )
    if len(set(batches)) > 1:
        raise TypeError(
            f"All inputs to {name} must have the same batch dimensions, got "
            f"{batches}{user_line_suffix()}"
        )


def _per_matrix(fn: Any, *arrays: Any, core_ranks: tuple[int, ...]) -> list[Any]:
    """``fn`` on each batch element of ``arrays`` (their last ``core_ranks`` axes), its
    outputs stacked back into the batch shape."""
    batch = arrays[0].shape[: arrays[0].ndim - core_ranks[0]]
    results: list[list[Any]] = []
    for index in np.ndindex(*batch):
        out = fn(*(x[index] for x in arrays))
        results.append(list(out) if isinstance(out, tuple) else [out])
    return results


@abstract_eval_rules.register(hessenberg_p)
def _hessenberg_avals(a: ShapedArray) -> list[ShapedArray]:
    _check_jax_operands("hessenberg", [a], [2])
    if a.shape[-2] != a.shape[-1]:
        raise ValueError(
            "Argument to Hessenberg reduction must have shape [..., n, n], got shape "
            f"{a.shape[-2:]}{user_line_suffix()}"
        )
    n = a.shape[-1]
    return [_strong(a), ShapedArray((*a.shape[:-2], max(n - 1, 0)), a.dtype)]


def _stacked(outs: list[list[Any]], avals: list[ShapedArray]) -> list[Any]:
    """The per-matrix results ``outs`` as arrays of ``avals`` (empty batches included)."""
    return [
        np.reshape(np.asarray([o[j] for o in outs], av.dtype), av.shape)
        if outs
        else np.zeros(av.shape, av.dtype)
        for j, av in enumerate(avals)
    ]


@impl_rules.register(hessenberg_p)
def _hessenberg_impl(a: ArrayLike) -> list[Any]:
    avals = check_operands(hessenberg_p, [a], {})
    x = np.asarray(a, avals[0].dtype)
    with np.errstate(all="ignore"):
        outs = _per_matrix(gehrd_2d, x, core_ranks=(2,))
    return _stacked(outs, list(avals))


@abstract_eval_rules.register(householder_product_p)
def _householder_product_avals(a: ShapedArray, taus: ShapedArray) -> list[ShapedArray]:
    _check_jax_operands("householder_product", [a, taus], [2, 1])
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError(
            "The first argument to householder_product must have at least as many rows as "
            f"columns, got shape {a.shape[-2:]}{user_line_suffix()}"
        )
    if taus.shape[-1] > min(m, n):
        raise ValueError(
            "The second argument to householder_product must not have more rows than the "
            f"minimum of the first argument's rows and columns.{user_line_suffix()}"
        )
    return [_strong(a)]


@impl_rules.register(householder_product_p)
def _householder_product_impl(a: ArrayLike, taus: ArrayLike) -> list[Any]:
    (out,) = check_operands(householder_product_p, [a, taus], {})
    x, t = np.asarray(a, out.dtype), np.asarray(taus, out.dtype)
    with np.errstate(all="ignore"):
        outs = _per_matrix(orgqr_2d, x, t, core_ranks=(2, 1))
    return _stacked(outs, [out])


@abstract_eval_rules.register(tridiagonal_p)
def _tridiagonal_avals(a: ShapedArray, *, lower: bool) -> list[ShapedArray]:
    _check_jax_operands("tridiagonal", [a], [2])
    if a.shape[-2] != a.shape[-1] or a.shape[-1] == 0:
        raise ValueError(
            f"The input to tridiagonal must be a square matrix. Got shape {a.shape[-2:]}."
            f"{user_line_suffix()}"
        )
    *batch, n = a.shape[:-1]
    real = real_dtype(a.dtype)
    return [
        _strong(a),
        ShapedArray((*batch, n), real),
        ShapedArray((*batch, n - 1), real),
        ShapedArray((*batch, n - 1), a.dtype),
    ]


@impl_rules.register(tridiagonal_p)
def _tridiagonal_impl(a: ArrayLike, *, lower: bool) -> list[Any]:
    avals = check_operands(tridiagonal_p, [a], {"lower": lower})
    x = np.asarray(a, avals[0].dtype)
    with np.errstate(all="ignore"):
        outs = _per_matrix(lambda m: sytrd_2d(m, bool(lower)), x, core_ranks=(2,))
    return _stacked(outs, list(avals))


# --- geqrf, geqp3: LAPACK's QR factors (JAX's internal primitives, not in jax.lax.linalg) ----
geqrf_p = Primitive("geqrf", multiple_results=True)
geqp3_p = Primitive("geqp3", multiple_results=True)


@abstract_eval_rules.register(geqrf_p)
def _geqrf_avals(a: ShapedArray) -> list[ShapedArray]:
    _check_jax_operands("geqrf", [a], [2])
    *batch, m, n = a.shape
    return [_strong(a), ShapedArray((*batch, min(m, n)), a.dtype)]


@impl_rules.register(geqrf_p)
def _geqrf_impl(a: ArrayLike) -> list[Any]:
    a_aval, taus_aval = check_operands(geqrf_p, [a], {})
    h, taus = np.linalg.qr(np.asarray(a, a_aval.dtype), mode="raw")  # LAPACK's geqrf
    return [np.asarray(np.swapaxes(h, -1, -2), a_aval.dtype), np.asarray(taus, taus_aval.dtype)]


@abstract_eval_rules.register(geqp3_p)
def _geqp3_avals(a: ShapedArray, jpvt: ShapedArray) -> list[ShapedArray]:
    _check_jax_operands("geqp3", [a], [2])
    if jpvt.dtype.kind not in "iu" or jpvt.shape != (*a.shape[:-2], a.shape[-1]):
        raise TypeError(
            f"geqp3: expected integer column pivots of shape {(*a.shape[:-2], a.shape[-1])}, "
            f"got {jpvt.dtype}{list(jpvt.shape)}{user_line_suffix()}"
        )
    *batch, m, n = a.shape
    return [_strong(a), _strong(jpvt), ShapedArray((*batch, min(m, n)), a.dtype)]


@impl_rules.register(geqp3_p)
def _geqp3_impl(a: ArrayLike, jpvt: ArrayLike) -> list[Any]:
    avals = check_operands(geqp3_p, [a, jpvt], {})
    x, p = np.asarray(a, avals[0].dtype), np.asarray(jpvt, avals[1].dtype)
    with np.errstate(all="ignore"):
        outs = _per_matrix(geqp3_2d, x, p, core_ranks=(2, 1))
    return _stacked(outs, list(avals))


def geqrf(a: ArrayLike) -> tuple[Array, Array]:
    """``(a, taus)``: LAPACK's ``geqrf``, ``R`` in the upper triangle of ``a`` and ``Q``'s
    Householder reflectors below the diagonal with their factors ``taus``."""
    a_out, taus = bind(geqrf_p, a)
    return a_out, taus


def geqp3(a: ArrayLike, jpvt: ArrayLike) -> tuple[Array, Array, Array]:
    """``(a, jpvt, taus)``: LAPACK's ``geqp3``, the QR decomposition with column pivoting of
    ``a`` as :func:`geqrf`'s, ``jpvt`` the 1-based column order (``a[..., jpvt - 1] = Q R``);
    columns whose ``jpvt`` entry is non-zero lead."""
    a_out, jpvt_out, taus = bind(geqp3_p, a, jpvt)
    return a_out, jpvt_out, taus


def hessenberg(a: ArrayLike) -> tuple[Array, Array]:
    """``(a, taus)``: the reduction of square ``a`` to upper Hessenberg form, as LAPACK's
    ``gehrd`` (``jax.lax.linalg.hessenberg``): the Hessenberg matrix in the upper triangle and
    first subdiagonal, the Householder reflectors below it, their scalar factors in ``taus``
    (``[..., n - 1]``)."""
    h, taus = bind(hessenberg_p, a)
    return h, taus


def householder_product(a: ArrayLike, taus: ArrayLike) -> Array:
    """The product of the elementary Householder reflectors stored in ``a`` (``[..., m, n]``,
    ``m >= n``: reflector ``i``'s vector below the diagonal of column ``i``) with scalar factors
    ``taus`` (``[..., k]``, ``k <= n``): the first ``n`` columns of ``H_1 ... H_k``, as LAPACK's
    ``orgqr``/``ungqr`` (``jax.lax.linalg.householder_product``)."""
    return bind1(householder_product_p, a, taus)


def tridiagonal(a: ArrayLike, *, lower: bool = True) -> tuple[Array, Array, Array, Array]:
    """``(a, d, e, taus)``: the reduction of symmetric (Hermitian) ``a`` to tridiagonal form
    reading its ``lower`` (or upper) triangle, as LAPACK's ``sytrd``/``hetrd``
    (``jax.lax.linalg.tridiagonal``): ``d`` the diagonal, ``e`` the off-diagonal, the
    reflectors stored outside the tridiagonal band of that triangle, their factors ``taus``."""
    out, d, e, taus = bind(tridiagonal_p, a, lower=bool(lower))
    return out, d, e, taus
