"""``mj.numpy.linalg``: ``jax.numpy.linalg`` for mj.

Factorisations are primitives (``mj_core.lax_linalg``: cholesky, LU, eigh, SVD, QR and
triangular solves) with every rule, so everything here works eagerly, under ``make_jaxpr``,
``jit``, ``grad``/``jvp``/``vjp`` and ``vmap``, and on stacks of matrices (leading axes are
batch axes). ``solve``/``inv``/``det``/``slogdet`` are compositions of the LU factorisation
with triangular solves, as in JAX; ``det`` carries JAX's derivative ``det(a) tr(a^-1 da)``.
``eig``/``eigvals`` (LAPACK's ``geev``) always return complex arrays, as in JAX.
The factorisations, solves, determinants and ``pinv`` take float32/float64 and
complex64/complex128 inputs (integers raise ``TypeError``); ``lstsq`` is real-only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

import mj_core.numpy as cnp
from mj.numpy import _array_api, _cross
from mj_autodiff import custom_jvp
from mj_core import lax, lax_linalg
from mj_core.dtypes import is_float, is_inexact
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, DTypeLike, promote_inexact
from mj_core.lax import PrecisionLike
from mj_core.lax_linalg import matmul as _matmul
from mj_core.lax_linalg import mH, mT
from mj_core.prims.linalg import geqrf

__all__ = [
    "EigResult",
    "EighResult",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "multi_dot",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vecdot",
    "vector_norm",
]


def vector_norm(
    x: ArrayLike, axis: int | Sequence[int] | None = None, keepdims: bool = False, ord: Any = 2
) -> Array:
    """The ``ord``-norm of vectors along ``axis`` (all elements when ``None``)."""
    x = cnp.asarray(x)
    if not is_inexact(x.dtype):
        x = lax.convert_element_type(x, np.float64)
    if ord == 2:
        a = x if is_float(x.dtype) else lax.abs(x)  # a real square needs no abs
        return cnp.sqrt(cnp.sum(lax.mul(a, a), axis=axis, keepdims=keepdims))
    a = lax.abs(x)
    if ord == 1:
        return cnp.sum(a, axis=axis, keepdims=keepdims)
    if ord == np.inf:  # 0 for empty vectors, as JAX's
        return cnp.max(a, axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return cnp.min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        nonzero = lax.convert_element_type(lax.ne(a, 0), a.dtype)
        return cnp.sum(nonzero, axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        msg = f"Invalid order '{ord}' for vector norm."
        if ord in ("inf", "-inf"):
            msg += f"Use '{ord[:-3]}jax.numpy.inf' instead."
        raise ValueError(msg)
    p = float(ord)
    return lax.pow(cnp.sum(lax.pow(a, p), axis=axis, keepdims=keepdims), 1.0 / p)


def norm(
    x: ArrayLike,
    ord: int | float | str | None = None,
    axis: int | tuple[int, int] | None = None,
    keepdims: bool = False,
) -> Array:
    """Vector or matrix norm, as ``numpy.linalg.norm``.

    ``axis=None`` gives the 2-norm of the flattened array when ``ord`` is ``None``; an int
    ``axis`` gives vector norms; a pair of axes gives matrix norms (``'fro'``, 1, -1, inf,
    -inf, and through an SVD 2, -2 and ``'nuc'``). Integers and bools are computed in JAX's
    float for them (int32 -> float32, also with enable_x64).
    """
    (x,) = promote_inexact(cnp.asarray(x))
    ndim = cnp.ndim(x)
    if axis is None:
        if ord is None:  # the 2-norm of all elements (no flattening needed)
            return vector_norm(x, None, keepdims)
        axis = (0, 1) if ndim == 2 else 0
    if isinstance(axis, int):
        return vector_norm(x, axis, keepdims, 2 if ord is None else ord)
    pair = tuple(axis)
    if len(pair) == 1:
        return vector_norm(x, pair, keepdims, 2 if ord is None else ord)
    if len(pair) != 2:
        raise ValueError(
            f"Improper number of axes for norm: axis={pair}. Pass one axis to compute a "
            f"vector-norm, or two axes to compute a matrix-norm."
        )
    row, col = (a % ndim for a in pair)
    if ord in (None, "fro"):
        return vector_norm(x, (row, col), keepdims, 2)
    if ord in (1, -1):
        col_sums = cnp.sum(lax.abs(x), axis=row, keepdims=True)
        out = (
            cnp.max(col_sums, axis=col, keepdims=True, initial=0)
            if ord == 1
            else cnp.min(col_sums, axis=col, keepdims=True)
        )
    elif ord in (np.inf, -np.inf):
        row_sums = cnp.sum(lax.abs(x), axis=col, keepdims=True)
        out = (
            cnp.max(row_sums, axis=row, keepdims=True, initial=0)
            if ord == np.inf
            else cnp.min(row_sums, axis=row, keepdims=True)
        )
    elif ord in (2, -2, "nuc"):
        moved = cnp.moveaxis(x, (row, col), (-2, -1))
        s = svd(moved, compute_uv=False)
        if ord == "nuc":
            out = cnp.sum(s, axis=-1)
        else:  # the 2-norm of an empty matrix is 0, as JAX's
            out = cnp.max(s, axis=-1, initial=0) if ord == 2 else cnp.min(s, axis=-1)
        return cnp.expand_dims(out, (row, col)) if keepdims else out
    else:
        raise ValueError(f"norm: invalid ord {ord!r} for a matrix norm")
    return out if keepdims else cnp.squeeze(out, axis=(row, col))


def matrix_power(a: AnyArray, n: int) -> AnyArray:
    """``a`` multiplied by itself ``n >= 0`` times (by repeated squaring)."""
    a = cnp.asarray(a)
    if cnp.ndim(a) < 2 or cnp.shape(a)[-1] != cnp.shape(a)[-2]:
        raise ValueError(f"matrix_power: expected a square matrix, got shape {cnp.shape(a)}")
    if n < 0:
        a, n = inv(a), -n
    result = None
    base = a
    while n:
        if n & 1:
            result = base if result is None else cnp.matmul(result, base)
        n >>= 1
        if n:
            base = cnp.matmul(base, base)
    if result is None:
        eye = cnp.eye(cnp.shape(a)[-1], dtype=a.dtype)
        return cnp.broadcast_to(eye, cnp.shape(a))
    return result


# --- result types (JAX's names) ---------------------------------------------------------------
class EigResult(NamedTuple):
    eigenvalues: AnyArray
    eigenvectors: AnyArray


class EighResult(NamedTuple):
    eigenvalues: AnyArray
    eigenvectors: AnyArray


class SVDResult(NamedTuple):
    U: AnyArray
    S: AnyArray
    Vh: AnyArray


class QRResult(NamedTuple):
    Q: AnyArray
    R: AnyArray


class SlogdetResult(NamedTuple):
    sign: AnyArray
    logabsdet: AnyArray


def _matrix(name: str, a: ArrayLike, *, square: bool = True, complex_ok: bool = True) -> AnyArray:
    """``a`` as a float (or complex) matrix or batch; ``TypeError``/``ValueError`` naming
    ``name``."""
    return lax_linalg.as_float_matrix(name, cnp.asarray(a), square=square, complex_ok=complex_ok)


# --- Cholesky ---------------------------------------------------------------------------------
def cholesky(a: ArrayLike, *, upper: bool = False, symmetrize_input: bool = True) -> Array:
    """Cholesky factor of a Hermitian positive definite ``a``: lower ``L`` with ``a = L L^H``
    (``upper``: ``U = L^H``). NaNs where ``a`` is not positive definite."""
    low = lax_linalg.cholesky(_matrix("cholesky", a), symmetrize_input=symmetrize_input)
    return mH(low) if upper else low


# --- LU-based: solve, inv, det, slogdet -------------------------------------------------------
def permutation_matrix(perm: AnyArray, dtype: DTypeLike | None) -> AnyArray:
    """``P`` with ``P @ x == x[..., perm, :]`` (a one-hot matrix: differentiable in ``x``)."""
    m = cnp.shape(perm)[-1]
    eq = lax.eq(cnp.expand_dims(perm, -1), lax.iota(perm.dtype, m))
    return lax.convert_element_type(eq, dtype)


def lu_solve_factors(lu: AnyArray, perm: AnyArray, b: AnyArray) -> AnyArray:
    """Solve ``a x = b`` for matrices ``b`` from ``lu(a)``: ``x = U^-1 L^-1 P b``."""
    pb = _matmul(permutation_matrix(perm, lu.dtype), b)
    y = lax_linalg.triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
    return lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)


def solve(a: AnyArray, b: AnyArray) -> AnyArray:
    """``x`` with ``a @ x == b``. ``b`` is a vector when it is 1-D (NumPy 2 / JAX), otherwise
    a (stack of) matrices; batch axes broadcast."""
    a = _matrix("solve", a)
    b = cnp.asarray(b)
    if cnp.ndim(b) == 0:
        raise ValueError(f"solve: b must have rank >= 1, got a scalar{user_line_suffix()}")
    vector = cnp.ndim(b) == 1
    b = lax_linalg.as_float_matrix(
        "solve", cnp.expand_dims(b, -1) if vector else b, complex_ok=True
    )
    if a.dtype != b.dtype:
        dtype = np.promote_types(a.dtype, b.dtype)
        a, b = lax.convert_element_type(a, dtype), lax.convert_element_type(b, dtype)
    a_shape, b_shape = cnp.shape(a), cnp.shape(b)
    batch = np.broadcast_shapes(a_shape[:-2], b_shape[:-2])
    a = cnp.broadcast_to(a, (*batch, *a_shape[-2:]))
    b = cnp.broadcast_to(b, (*batch, *b_shape[-2:]))
    lu, _, perm = lax_linalg.lu(a)
    x = lu_solve_factors(lu, perm, b)
    return cnp.squeeze(x, -1) if vector else x


def inv(a: ArrayLike) -> AnyArray:
    """The inverse of each square matrix (``solve(a, I)``)."""
    a = _matrix("inv", a)
    eye = lax_linalg.eye_like(a)
    lu, _, perm = lax_linalg.lu(a)
    return lu_solve_factors(lu, perm, eye)


def _lu_sign_and_diag(a: AnyArray) -> tuple[AnyArray, AnyArray]:
    """The sign of ``a``'s row permutation and the diagonal of ``U`` in ``P a = L U``."""
    lu, pivots, _ = lax_linalg.lu(a)
    k = cnp.shape(pivots)[-1]
    swaps = lax.ne(pivots, lax.iota(pivots.dtype, k))
    parity = cnp.sum(lax.convert_element_type(swaps, np.int32), axis=-1) % 2
    sign = lax.sub(lax.full_like(parity, 1, a.dtype), lax.convert_element_type(2 * parity, a.dtype))
    diag = lax_linalg.diagonal(lu)
    return sign, diag


@custom_jvp
def _det(a: ArrayLike) -> Array:
    sign, diag = _lu_sign_and_diag(a)
    return lax.mul(sign, cnp.prod(diag, axis=-1))


def _cofactor_solve(a: AnyArray, b: AnyArray) -> tuple[AnyArray, AnyArray]:
    """``(det(a), adj(a) @ b)``, finite for singular ``a`` (JAX's ``_cofactor_solve``).

    With ``P a = L U``, ``det(a) a^-1 b = det(a) U^-1 L^-1 P b``. The last diagonal entry of
    ``U`` is replaced by ``1 / det(U without it)`` and every row but the last of ``L^-1 P b``
    is scaled by ``det(a)``: exact for rank ``n`` and ``n - 1``. A matrix whose modified
    ``U`` is still singular (rank below ``n - 1``) has a zero adjugate."""
    n = cnp.shape(a)[-1]
    if n == 1:
        return a[..., 0, 0], b
    lu, pivots, perm = lax_linalg.lu(a)
    swaps = lax.ne(pivots, lax.iota(pivots.dtype, n))
    parity = cnp.sum(lax.convert_element_type(swaps, np.int32), axis=-1) % 2
    sign = lax.sub(lax.full_like(parity, 1, a.dtype), lax.convert_element_type(2 * parity, a.dtype))
    partial_det = lax.mul(lax.cumprod(lax_linalg.diagonal(lu), axis=-1), cnp.expand_dims(sign, -1))
    corner = lax.bitwise_and(
        lax.eq(cnp.expand_dims(lax.iota(np.int32, n), -1), np.int32(n - 1)),
        lax.eq(lax.iota(np.int32, n), np.int32(n - 1)),
    )
    inv_partial = lax.div(lax.full_like(partial_det[..., -2], 1), partial_det[..., -2])
    lu = cnp.where(corner, inv_partial[..., None, None], lu)
    ones = cnp.ones((*cnp.shape(b)[:-1], 1), b.dtype)
    d = lax_linalg.triangular_solve(lu, ones, left_side=True, lower=False)[..., 0]
    singular = cnp.any(lax.bitwise_not(lax.is_finite(d)), axis=-1)[..., None, None]
    x = cnp.where(singular, cnp.zeros_like(b), b)
    x = _matmul(permutation_matrix(perm, lu.dtype), x)
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=True, unit_diagonal=True)
    x = cnp.concatenate(
        [lax.mul(x[..., :-1, :], partial_det[..., -1, None, None]), x[..., -1:, :]], axis=-2
    )
    x = lax_linalg.triangular_solve(lu, x, left_side=True, lower=False)
    return partial_det[..., -1], cnp.where(singular, cnp.zeros_like(x), x)


@_det.defjvp
def _det_jvp(primals: tuple[ArrayLike], tangents: tuple[ArrayLike]) -> tuple[Array, Array]:
    (a,), (a_dot,) = primals, tangents
    a, a_dot = cnp.asarray(a), cnp.asarray(a_dot)
    a_dot = cnp.broadcast_to(a_dot, cnp.shape(a)) if cnp.shape(a_dot) != cnp.shape(a) else a_dot
    y, z = _cofactor_solve(a, a_dot)  # y tr(a^-1 da), finite at singular a
    return y, cnp.sum(lax_linalg.diagonal(z), axis=-1)


def _det_2x2(a: AnyArray) -> AnyArray:
    return lax.sub(lax.mul(a[..., 0, 0], a[..., 1, 1]), lax.mul(a[..., 0, 1], a[..., 1, 0]))


def _det_3x3(a: AnyArray) -> AnyArray:
    def term(i: int, j: int, k: int) -> AnyArray:  # a[0, i] a[1, j] a[2, k]
        return lax.mul(lax.mul(a[..., 0, i], a[..., 1, j]), a[..., 2, k])

    plus = lax.add(lax.add(term(0, 1, 2), term(1, 2, 0)), term(2, 0, 1))
    return lax.sub(lax.sub(lax.sub(plus, term(2, 1, 0)), term(0, 2, 1)), term(1, 0, 2))


def det(a: ArrayLike) -> AnyArray:
    """The determinant of each square matrix: JAX's closed forms for 2x2 and 3x3 matrices
    (plain arithmetic, so every derivative order exists), otherwise from the LU factorisation
    with JAX's adjugate derivative (finite at singular matrices)."""
    a = _matrix("det", a)
    n = cnp.shape(a)[-1]
    if n == 2:
        return _det_2x2(a)
    if n == 3:
        return _det_3x3(a)
    return _det(a)


def slogdet(a: ArrayLike, *, method: str | None = None) -> SlogdetResult:
    """``(sign, log|det a|)``: the determinant without overflow (``sign`` 0 when singular;
    for complex ``a`` a unit-modulus complex ``sign`` and a real ``logabsdet``). As JAX's:
    closed forms for 1x1 and 2x2 matrices, LU otherwise, and a custom JVP
    (``d log|det a| = re tr(a^-1 da)``; for complex ``a`` the sign turns by
    ``i im tr(a^-1 da)``, for real ``a`` its tangent is 0). ``method`` ``'qr'`` is accepted
    and computed by LU too (the same values up to rounding)."""
    if method not in (None, "lu", "qr"):
        raise ValueError(
            f"Unknown slogdet method '{method}'. Supported methods are 'lu' (`None`), and "
            f"'qr'.{user_line_suffix()}"
        )
    a = _matrix("slogdet", a)
    n = cnp.shape(a)[-1]
    sign, logabsdet = _slogdet_small(a) if n in (1, 2) else _slogdet_lu(a)
    return SlogdetResult(sign, logabsdet)


def matmul(
    x1: ArrayLike,
    x2: ArrayLike,
    /,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """``jnp.matmul`` (``jax.numpy.linalg.matmul`` is the same function)."""
    return cnp.matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def _small_det(a: Array) -> Array:
    if cnp.shape(a)[-1] == 1:
        return a[..., 0, 0]
    return lax.sub(lax.mul(a[..., 0, 0], a[..., 1, 1]), lax.mul(a[..., 0, 1], a[..., 1, 0]))


@custom_jvp
def _slogdet_small(a: Array) -> tuple[Array, Array]:
    det_a = _small_det(a)
    return cnp.sign(det_a), cnp.real(cnp.log(cnp.abs(det_a)))


@custom_jvp
def _slogdet_lu(a: Array) -> tuple[Array, Array]:
    sign, diag = _lu_sign_and_diag(a)
    logabsdet = cnp.sum(cnp.log(cnp.abs(diag)), axis=-1)
    sign = lax.mul(sign, cnp.prod(cnp.sign(diag), axis=-1))  # complex sign(z) is z / |z|
    return sign, logabsdet


def _slogdet_tangents(a: Array, sign: Array, ans_dot: Array) -> tuple[Array, Array]:
    """``(sign_dot, logabsdet_dot)`` from ``tr(a^-1 da)``, as JAX's rule."""
    if a.dtype.kind == "c":
        imaginary = lax.sub(ans_dot, lax.convert_element_type(cnp.real(ans_dot), ans_dot.dtype))
        return lax.mul(imaginary, sign), cnp.real(ans_dot)
    return cnp.zeros_like(sign), ans_dot


@_slogdet_small.defjvp
def _slogdet_small_jvp(
    primals: tuple[Array], tangents: tuple[Array]
) -> tuple[tuple[Array, Array], tuple[Array, Array]]:
    (a,), (g,) = primals, tangents
    sign, ans = _slogdet_small(a)
    if cnp.shape(a)[-1] == 1:
        ans_dot = lax.div(g[..., 0, 0], a[..., 0, 0])
    else:
        numerator = lax.add(
            lax.sub(
                lax.sub(lax.mul(g[..., 0, 0], a[..., 1, 1]), lax.mul(g[..., 0, 1], a[..., 1, 0])),
                lax.mul(g[..., 1, 0], a[..., 0, 1]),
            ),
            lax.mul(g[..., 1, 1], a[..., 0, 0]),
        )
        ans_dot = lax.div(numerator, _small_det(a))
    return (sign, ans), _slogdet_tangents(a, sign, ans_dot)


@_slogdet_lu.defjvp
def _slogdet_lu_jvp(
    primals: tuple[Array], tangents: tuple[Array]
) -> tuple[tuple[Array, Array], tuple[Array, Array]]:
    (a,), (g,) = primals, tangents
    sign, ans = _slogdet_lu(a)
    ans_dot = cnp.sum(lax_linalg.diagonal(solve(a, g)), axis=-1)  # tr(a^-1 da)
    return (sign, ans), _slogdet_tangents(a, sign, ans_dot)


# --- eig, eigh, svd, qr -----------------------------------------------------------------------
def eig(a: ArrayLike) -> EigResult:
    """Eigenvalues and right eigenvectors (columns, unit norm) of general square matrices;
    always complex (complex64 for 32-bit input), as in JAX. Only the eigenvalues are
    differentiable (eigenvectors need ``lax.linalg.eig(..., enable_eigvec_derivs=True)``)."""
    w, v = lax_linalg.eig(_matrix("eig", a), compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a: ArrayLike) -> Array:
    """The (complex) eigenvalues of general square matrices."""
    (w,) = lax_linalg.eig(
        _matrix("eigvals", a), compute_left_eigenvectors=False, compute_right_eigenvectors=False
    )
    return w


def eigh(a: ArrayLike, UPLO: str | None = None, symmetrize_input: bool = True) -> EighResult:  # noqa: N803
    """Eigenvalues (ascending, real) and eigenvectors (columns) of symmetric or Hermitian
    matrices, reading the ``UPLO`` (``'L'`` default, or ``'U'``) triangle."""
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}{user_line_suffix()}")
    v, w = lax_linalg.eigh(_matrix("eigh", a), lower=UPLO != "U", symmetrize_input=symmetrize_input)
    return EighResult(w, v)


def eigvalsh(a: ArrayLike, UPLO: str | None = "L") -> AnyArray:  # noqa: N803
    """The eigenvalues (ascending) of symmetric matrices."""
    return eigh(a, UPLO).eigenvalues


def svd(
    a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False
) -> Any:
    """``SVDResult(U, S, Vh)`` with ``a = U @ diag(S) @ Vh``, ``S`` descending; only ``S``
    when not ``compute_uv``. (``hermitian`` is accepted for API compatibility.)"""
    a = _matrix("svd", a, square=False)
    if not compute_uv:
        return lax_linalg.svd(a, full_matrices=full_matrices, compute_uv=False)
    u, s, vt = lax_linalg.svd(a, full_matrices=full_matrices)
    return SVDResult(u, s, vt)


def qr(a: ArrayLike, mode: str = "reduced") -> Any:
    """``QRResult(Q, R)``: ``mode`` ``'reduced'`` (``Q`` m x k; ``'full'``, NumPy's deprecated
    name, the same as JAX), ``'complete'`` (``Q`` m x m), ``'r'`` (``R`` only) or ``'raw'``
    (LAPACK's ``geqrf`` factors as NumPy returns them: the reflectors and ``R`` transposed,
    ``(..., n, m)``, and ``taus``)."""
    if mode not in ("reduced", "complete", "r", "raw", "full"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'{user_line_suffix()}")
    (arr,) = promote_inexact(cnp.asarray(a))  # JAX's promotion (integers to float)
    arr = _matrix("qr", arr, square=False)
    if mode == "raw":
        h, taus = geqrf(arr)
        return QRResult(mT(h), taus)
    q, r = lax_linalg.qr(arr, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def _default_rtol(a: AnyArray) -> float:
    m, n = cnp.shape(a)[-2:]
    return 10.0 * max(m, n) * float(np.finfo(a.dtype).eps)


def pinv(a: ArrayLike, rtol: Any = None, hermitian: bool = False, *, rcond: Any = None) -> AnyArray:
    """Moore-Penrose pseudo-inverse from the SVD, dropping singular values at or below
    ``rtol * max(s)`` (default ``10 * max(m, n) * eps``; ``rcond`` is its older name), as
    JAX's; its derivative is Golub and Pereyra's formula (JAX's custom JVP), so it is exact
    at rank-deficient matrices too."""
    if rcond is not None:
        if rtol is not None:
            # JAX's exact text (its tests match it literally)
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    arr = _matrix("pinv", a, square=False)
    m, n = cnp.shape(arr)[-2:]
    if m == 0 or n == 0:
        return cnp.zeros((*cnp.shape(arr)[:-2], n, m), arr.dtype)
    rtol = _default_rtol(arr) if rtol is None else rtol
    return _pinv(arr, rtol, bool(hermitian))


def _pinv_impl(a: AnyArray, rtol: Any, hermitian: bool) -> AnyArray:
    u, s, vt = lax_linalg.svd(a, full_matrices=False)
    rtol = cnp.asarray(rtol, dtype=s.dtype)
    cutoff = lax.mul(s[..., 0:1], cnp.expand_dims(rtol, -1) if cnp.ndim(rtol) else rtol)
    keep = lax.greater(s, cutoff)
    safe = cnp.where(keep, s, lax.full_like(s, 1))
    s_inv = cnp.where(keep, lax.div(lax.full_like(s, 1), safe), lax.full_like(s, 0))
    s_inv = lax.convert_element_type(s_inv, a.dtype)  # real singular values, maybe complex a
    return _matmul(mH(vt), lax.mul(cnp.expand_dims(s_inv, -1), mH(u)))


_pinv = custom_jvp(_pinv_impl, nondiff_argnums=(1, 2))


@_pinv.defjvp
def _pinv_jvp(
    rtol: Any, hermitian: bool, primals: tuple[AnyArray], tangents: tuple[AnyArray]
) -> tuple[AnyArray, AnyArray]:
    (a,), (a_dot,) = primals, tangents
    p = _pinv(a, rtol, hermitian)  # n x m
    m, n = cnp.shape(a)[-2:]
    if m >= n:
        s = _matmul(_matmul(p, mH(p)), mH(a_dot))
        t = _matmul(_matmul(mH(a_dot), mH(p)), p)
        p_dot = lax.add(
            lax.sub(lax.add(lax.neg(_matmul(_matmul(p, a_dot), p)), s), _matmul(_matmul(s, a), p)),
            lax.sub(t, _matmul(_matmul(p, a), t)),
        )
    else:
        s = _matmul(p, _matmul(mH(p), mH(a_dot)))
        t = _matmul(mH(a_dot), _matmul(mH(p), p))
        p_dot = lax.add(
            lax.sub(lax.add(lax.neg(_matmul(p, _matmul(a_dot, p))), s), _matmul(s, _matmul(a, p))),
            lax.sub(t, _matmul(p, _matmul(a, t))),
        )
    return p, p_dot


def matrix_rank(
    M: ArrayLike,  # noqa: N803 (JAX's name)
    rtol: ArrayLike | None = None,
    *,
    hermitian: bool = False,
    tol: ArrayLike | None = None,
) -> Array:
    """The number of singular values above ``rtol`` (default ``max(s) * max(m, n) * eps``)
    per matrix, as an int64 count; for fewer than 2 dimensions, whether any element is
    non-zero. As in JAX, a given ``rtol`` (or its alias ``tol``) is compared with the
    singular values directly."""
    if tol is not None:
        if rtol is not None:
            raise ValueError(
                "matrix_rank: only one of tol or rtol may be specified."  # JAX's exact text
            )
        rtol = tol
    m = cnp.asarray(M)
    if not is_inexact(m.dtype):
        m = lax.convert_element_type(m, np.float64)
    if cnp.ndim(m) < 2:
        return lax.convert_element_type(cnp.any(lax.ne(m, lax.full_like(m, 0))), np.int32)
    s = svd(m, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        eps = float(np.finfo(s.dtype).eps)
        rtol = lax.mul(cnp.max(s, axis=-1), max(cnp.shape(m)[-2:]) * eps)
    cutoff = cnp.expand_dims(cnp.asarray(rtol), cnp.ndim(rtol))
    return cnp.sum(lax.greater(s, cutoff), axis=-1)


def lstsq(
    a: AnyArray, b: AnyArray, rcond: float | None = None, *, numpy_resid: bool = False
) -> tuple[AnyArray, AnyArray, AnyArray, AnyArray]:
    """``(x, residuals, rank, s)`` minimising ``|a x - b|`` for one real or complex matrix
    ``a`` (via the SVD, as JAX: singular values below ``rcond * s[0]`` are dropped); ``b`` is
    a vector or a matrix."""
    a = _matrix("lstsq", a, square=False)
    b = cnp.asarray(b)
    if a.dtype != b.dtype:
        b = lax.convert_element_type(b, np.promote_types(a.dtype, b.dtype))
        a = lax.convert_element_type(a, b.dtype)
    if cnp.ndim(a) != 2 or cnp.ndim(b) not in (1, 2):
        raise ValueError(
            f"lstsq: expected a 2-D a and a 1-D or 2-D b, got shapes {cnp.shape(a)} and "
            f"{cnp.shape(b)}{user_line_suffix()}"
        )
    vector = cnp.ndim(b) == 1
    b2 = cnp.expand_dims(b, -1) if vector else b
    m, n = cnp.shape(a)
    if m == 0 or n == 0:  # JAX's: no singular values, rank 0, x zero
        x = cnp.zeros((n, *cnp.shape(b2)[1:]), a.dtype)
        s = cnp.zeros((0,), a.dtype)
        rank = cnp.sum(cnp.zeros((0,), np.int32))
        if numpy_resid and (n > 0 or m <= n):
            resid = cnp.asarray([])  # JAX's: the default float dtype
        else:
            r = lax.abs(b2)  # a x is zero
            resid = cnp.sum(lax.mul(r, r), axis=0)
        return (cnp.squeeze(x, -1) if vector else x), resid, rank, s
    u, s, vt = lax_linalg.svd(a, full_matrices=False)
    rcond = float(np.finfo(a.dtype).eps) * max(m, n) if rcond is None else rcond
    cutoff = lax.mul(cnp.max(s), lax.convert_element_type(rcond, s.dtype))
    keep = lax.bitwise_and(lax.greater(s, lax.full_like(s, 0)), lax.ge(s, cutoff))
    safe = cnp.where(keep, s, lax.full_like(s, 1))
    s_inv = cnp.where(keep, lax.div(lax.full_like(s, 1), safe), lax.full_like(s, 0))
    s_inv = lax.convert_element_type(s_inv, a.dtype)
    uTb = _matmul(mH(u), b2)  # noqa: N806
    x = _matmul(mH(vt), lax.mul(cnp.expand_dims(s_inv, -1), uTb))
    rank = cnp.sum(lax.convert_element_type(keep, np.int32))
    r = lax.abs(lax.sub(_matmul(a, x), b2))
    resid = cnp.sum(lax.mul(r, r), axis=0)
    if numpy_resid and (rank < n or m <= n):
        resid = cnp.asarray([])  # JAX's: the default float dtype
    if vector:  # JAX keeps the residuals' axis: shape (1,) for a vector b
        x = cnp.squeeze(x, -1)
    return x, resid, rank, s


# --- the array API's linalg names (NumPy's too) ---------------------------------------------
def matrix_transpose(x: ArrayLike, /) -> Array:
    """The last two axes swapped."""
    return _array_api.matrix_transpose(x)


def diagonal(x: ArrayLike, /, *, offset: int = 0) -> Array:
    """The diagonal of the last two axes (``offset`` above it when positive)."""
    return cnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def trace(x: ArrayLike, /, *, offset: int = 0, dtype: DTypeLike | None = None) -> Array:
    """The sum of the diagonal of the last two axes."""
    return cnp.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Array:
    """The cross product of 3-vectors along ``axis`` (only 3, unlike ``mnp.cross``)."""
    if cnp.shape(x1)[axis] != 3 or cnp.shape(x2)[axis] != 3:
        raise ValueError(
            "linalg.cross: both input arrays must be (arrays of) 3-dimensional vectors, got "
            f"shapes {cnp.shape(x1)} and {cnp.shape(x2)} along axis {axis}{user_line_suffix()}"
        )
    return _cross.cross(x1, x2, axis=axis)


def outer(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """The outer product of two 1-D arrays."""
    if cnp.ndim(x1) != 1 or cnp.ndim(x2) != 1:
        raise ValueError(
            "linalg.outer: input arrays must be one-dimensional, but they are "
            f"x1.ndim={cnp.ndim(x1)} and x2.ndim={cnp.ndim(x2)}{user_line_suffix()}"
        )
    return cnp.outer(x1, x2)


def vecdot(
    x1: ArrayLike,
    x2: ArrayLike,
    /,
    *,
    axis: int = -1,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """``sum(conj(x1) * x2)`` along ``axis``, broadcasting the other axes."""
    return _array_api.vecdot(
        x1, x2, axis=axis, precision=precision, preferred_element_type=preferred_element_type
    )


def tensordot(
    x1: ArrayLike,
    x2: ArrayLike,
    /,
    *,
    axes: object = 2,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """``mnp.tensordot`` with the array API's positional-only operands."""
    return cnp.tensordot(
        x1, x2, axes=axes, precision=precision, preferred_element_type=preferred_element_type
    )


def matrix_norm(
    x: ArrayLike, /, *, keepdims: bool = False, ord: int | float | str | None = "fro"
) -> Array:
    """The norm of the matrices in the last two axes (``ord`` as :func:`norm`'s)."""
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def svdvals(x: ArrayLike, /) -> AnyArray:
    """The singular values, descending."""
    return svd(x, compute_uv=False)


def cond(x: ArrayLike, p: Any = None) -> Array:
    """The condition number: ``s_max / s_min`` for ``p`` None or 2 (``s_min / s_max`` for
    -2), else ``norm(x, p) * norm(inv(x), p)``; infinite for singular matrices."""
    x = _matrix("cond", x, square=p not in (None, 2, -2))
    if p in (None, 2, -2):
        s = svdvals(x)
        r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    else:
        r = matrix_norm(x, ord=p) * matrix_norm(inv(x), ord=p)
    singular = cnp.isnan(r) & ~cnp.any(cnp.isnan(x), axis=(-2, -1))
    return cnp.where(singular, np.inf, r)


def multi_dot(arrays: Sequence[AnyArray], *, precision: Any = None) -> AnyArray:
    """``arrays[0] @ arrays[1] @ ...``; the first may be 1-D (a row) and the last 1-D (a
    column), as NumPy's."""
    if len(arrays) < 2:
        raise ValueError(f"multi_dot: expected at least two arrays, got {len(arrays)}")
    out = arrays[0]
    for a in arrays[1:]:
        out = cnp.matmul(out, a, precision=precision)
    return out


def tensorinv(a: ArrayLike, ind: int = 2) -> Array:
    """The inverse of ``a`` as a tensor: ``tensordot(tensorinv(a, ind), a, ind)`` is the
    identity of ``a.shape[ind:]``."""
    shape = cnp.shape(a)
    if ind <= 0:
        raise ValueError(f"tensorinv: ind must be a positive integer, got {ind}")
    rows = int(np.prod(shape[:ind]))
    if rows != int(np.prod(shape[ind:])):
        raise ValueError(
            f"tensorinv: the product of the first {ind} dimensions of {shape} must equal that "
            f"of the rest{user_line_suffix()}"
        )
    flat_inv = inv(cnp.reshape(a, (rows, -1)))
    return cnp.reshape(flat_inv, (*shape[ind:], *shape[:ind]))


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    """``x`` with ``tensordot(a, x, x.ndim) == b``; ``axes`` of ``a`` move to its end first."""
    if axes is not None:
        a = cnp.moveaxis(a, list(axes), list(range(cnp.ndim(a) - len(axes), cnp.ndim(a))))
    b_shape = cnp.shape(b)
    out_shape = cnp.shape(a)[len(b_shape) :]
    size = int(np.prod(out_shape))
    if int(np.prod(b_shape)) != size:
        raise ValueError(
            f"tensorsolve: a of shape {cnp.shape(a)} does not map a tensor of shape "
            f"{out_shape} onto b's shape {b_shape} with a square system{user_line_suffix()}"
        )
    x = solve(cnp.reshape(a, (size, size)), cnp.reshape(b, (size,)))
    return cnp.reshape(x, out_shape)
