"""``mj.scipy.linalg``: the ``jax.scipy.linalg`` factor-and-solve API on mj's linear-algebra
primitives (``mj_core.lax_linalg``), so it differentiates, batches and compiles.

SciPy conventions: ``cholesky`` returns the *upper* factor unless ``lower=True``;
``cho_factor``/``lu_factor`` return factors that ``cho_solve``/``lu_solve`` consume; ``lu``
returns ``P, L, U`` with ``a = P @ L @ U``; ``qr``'s modes are ``'full'``/``'economic'``/
``'r'``; ``eigh`` returns ``(w, v)``. ``inv``/``det``/``svd``/``solve`` are
:mod:`mj.numpy.linalg`'s, with SciPy's extra (ignored) arguments; ``expm`` is in
``mj.scipy._expm``; ``schur``, ``rsf2csf``, ``sqrtm``, ``funm`` and ``solve_sylvester`` in
``mj.scipy._matrix_functions``.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj.numpy import linalg as mla
from mj.numpy import take_along_axis, vectorize
from mj.numpy import tril as tril  # seed 004's jax.scipy.linalg.tril/triu: NumPy's triangles
from mj.numpy import triu as triu
from mj.numpy.linalg import permutation_matrix
from mj.scipy._expm import expm as expm
from mj.scipy._matrix_functions import funm as funm
from mj.scipy._matrix_functions import rsf2csf as rsf2csf
from mj.scipy._matrix_functions import schur as schur
from mj.scipy._matrix_functions import solve_sylvester as solve_sylvester
from mj.scipy._matrix_functions import sqrtm as sqrtm
from mj.scipy._special_matrices import circulant as circulant
from mj.scipy._special_matrices import companion as companion
from mj.scipy._special_matrices import convolution_matrix as convolution_matrix
from mj.scipy._special_matrices import dft as dft
from mj.scipy._special_matrices import fiedler as fiedler
from mj.scipy._special_matrices import fiedler_companion as fiedler_companion
from mj.scipy._special_matrices import hadamard as hadamard
from mj.scipy._special_matrices import hankel as hankel
from mj.scipy._special_matrices import helmert as helmert
from mj.scipy._special_matrices import hilbert as hilbert
from mj.scipy._special_matrices import invhilbert as invhilbert
from mj.scipy._special_matrices import invpascal as invpascal
from mj.scipy._special_matrices import leslie as leslie
from mj.scipy._special_matrices import pascal as pascal
from mj.scipy._special_matrices import toeplitz as toeplitz
from mj_autodiff import jvp, stop_gradient
from mj_core import lax, lax_linalg
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, promote_inexact
from mj_core.lax_linalg import matmul, mH, mT
from mj_core.prims.linalg import geqp3

__all__ = [
    "block_diag",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "circulant",
    "companion",
    "convolution_matrix",
    "det",
    "dft",
    "eigh",
    "expm",
    "expm_frechet",
    "fiedler",
    "fiedler_companion",
    "funm",
    "hadamard",
    "hankel",
    "helmert",
    "hessenberg",
    "hilbert",
    "inv",
    "invhilbert",
    "invpascal",
    "leslie",
    "lu",
    "lu_factor",
    "lu_solve",
    "pascal",
    "polar",
    "qr",
    "qr_multiply",
    "rsf2csf",
    "schur",
    "solve",
    "solve_sylvester",
    "solve_triangular",
    "sqrtm",
    "svd",
    "toeplitz",
    "tril",
    "triu",
]


def cholesky(a: ArrayLike, lower: bool = False) -> Array:
    """The Cholesky factor of ``a``: upper ``U`` with ``a = U^T U`` (SciPy's default) or lower."""
    low = lax_linalg.cholesky(
        lax_linalg.as_float_matrix("cholesky", cnp.asarray(a), square=True, complex_ok=True)
    )
    return low if lower else mH(low)


def cho_factor(a: ArrayLike, lower: bool = False) -> tuple[Array, bool]:
    """``(c, lower)`` for :func:`cho_solve`."""
    return cholesky(a, lower=lower), lower


def _as_matrix_rhs(name: str, a: ArrayLike, b: ArrayLike) -> tuple[AnyArray, bool]:
    b = cnp.asarray(b)
    vector = cnp.ndim(b) == cnp.ndim(a) - 1
    return lax_linalg.as_float_matrix(
        name, cnp.expand_dims(b, -1) if vector else b, complex_ok=True
    ), vector


def _solve_signature(name: str, a: AnyArray, b: AnyArray) -> str:
    """JAX's gufunc signature for a triangular solve with ``b``: a vector when 1-D or when it
    is one rank below ``a`` with matching last axes (JAX's deprecated batched-vector case,
    with its ``FutureWarning``), else a matrix."""
    if cnp.ndim(b) == 1:
        return "(n,n),(n)->(n)"
    if cnp.ndim(a) == cnp.ndim(b) + 1 and cnp.shape(a)[-1] == cnp.shape(b)[-1]:
        warnings.warn(
            f"jax.scipy.linalg.{name}: batched 1D solves with b.ndim > 1 are deprecated, and "
            f"in the future will be treated as a batched 2D solve. Use "
            f"{name}(..., b[..., None]).squeeze(-1) to avoid this warning.",
            category=FutureWarning,
            stacklevel=3,
        )
        return "(n,n),(n)->(n)"
    return "(n,n),(n,k)->(n,k)"


def cho_solve(c_and_lower: tuple[ArrayLike, bool], b: ArrayLike) -> Array:
    """Solve ``a x = b`` given ``cho_factor(a)`` (``a = L L^H`` or ``U^H U``); batch axes
    broadcast, as JAX's."""
    c, lower = c_and_lower
    c, b = promote_inexact(c, b)
    signature = _solve_signature("cho_solve", c, b)
    first = vectorize(
        partial(
            lax_linalg.triangular_solve,
            left_side=True,
            lower=lower,
            transpose_a=not lower,
            conjugate_a=not lower,
        ),
        signature=signature,
    )
    second = vectorize(
        partial(
            lax_linalg.triangular_solve,
            left_side=True,
            lower=lower,
            transpose_a=lower,
            conjugate_a=lower,
        ),
        signature=signature,
    )
    return second(c, first(c, b))  # type: ignore[no-any-return]


_TRANS = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False)}
_TRANS |= {2: (True, True), "C": (True, True)}


def solve_triangular(
    a: ArrayLike,
    b: ArrayLike,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    debug: Any = None,
    check_finite: bool = True,
) -> Array:
    """Solve ``op(a) x = b`` for triangular ``a`` (``trans``: 0/'N', 1/'T', 2/'C' for the
    conjugate transpose); batch axes broadcast, as JAX's."""
    if trans not in _TRANS:
        raise ValueError(f"Invalid 'trans' value {trans}{user_line_suffix()}")
    transpose_a, conjugate_a = _TRANS[trans]
    a, b = promote_inexact(a, b)
    solve = partial(
        lax_linalg.triangular_solve,
        left_side=True,
        lower=lower,
        transpose_a=transpose_a,
        conjugate_a=conjugate_a,
        unit_diagonal=unit_diagonal,
    )
    signature = _solve_signature("solve_triangular", a, b)
    return vectorize(solve, signature=signature)(a, b)  # type: ignore[no-any-return]


def lu_factor(a: ArrayLike) -> tuple[Array, Array]:
    """``(lu, piv)``: LAPACK's packed LU factors and 0-based row swaps."""
    lu, pivots, _ = lax_linalg.lu(
        lax_linalg.as_float_matrix("lu_factor", cnp.asarray(a), complex_ok=True)
    )
    return lu, pivots


def _pivots_to_permutation(pivots: AnyArray, m: int) -> AnyArray:
    """Apply the row swaps ``i <-> piv[i]`` in turn to ``iota(m)`` (one-hot selects)."""
    perm = lax.broadcast_in_dim(
        lax.iota(np.int32, m), (*cnp.shape(pivots)[:-1], m), (cnp.ndim(pivots) - 1,)
    )
    positions = lax.iota(np.int32, m)
    for i in range(cnp.shape(pivots)[-1]):
        p = lax.convert_element_type(pivots[..., i : i + 1], np.int32)
        at_i, at_p = lax.eq(positions, np.int32(i)), lax.eq(positions, p)
        at_i = lax.broadcast_in_dim(at_i, cnp.shape(perm), (cnp.ndim(perm) - 1,))
        val_i = perm[..., i : i + 1]
        val_p = cnp.sum(cnp.where(at_p, perm, 0), axis=-1, keepdims=True)
        perm = cnp.where(at_i, val_p, cnp.where(at_p, val_i, perm))
    return perm


def lu_solve(lu_and_piv: tuple[AnyArray, AnyArray], b: ArrayLike, trans: int = 0) -> Array:
    """Solve ``a x = b`` (``trans=0``), ``a^T x = b`` (1) or ``a^H x = b`` (2) given
    ``lu_factor(a)``."""
    if trans not in (0, 1, 2):
        raise ValueError(f"'trans' value must be 0, 1, or 2, got {trans}{user_line_suffix()}")
    conj = trans == 2
    lu, pivots = lu_and_piv
    m = cnp.shape(lu)[-1]
    b2, vector = _as_matrix_rhs("lu_solve", lu, b)
    p = permutation_matrix(_pivots_to_permutation(pivots, m), lu.dtype)
    if trans == 0:  # P a = L U
        y = lax_linalg.triangular_solve(
            lu, matmul(p, b2), left_side=True, lower=True, unit_diagonal=True
        )
        x = lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)
    else:  # a^T = U^T L^T P (a^H: conjugated)
        y = lax_linalg.triangular_solve(
            lu, b2, left_side=True, lower=False, transpose_a=True, conjugate_a=conj
        )
        z = lax_linalg.triangular_solve(
            lu,
            y,
            left_side=True,
            lower=True,
            transpose_a=True,
            conjugate_a=conj,
            unit_diagonal=True,
        )
        x = matmul(mT(p), z)
    return cnp.squeeze(x, -1) if vector else x


def lu(
    a: AnyArray, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[AnyArray, AnyArray] | tuple[AnyArray, AnyArray, AnyArray]:
    """``(P, L, U)`` with ``a = P @ L @ U`` (``L`` unit lower ``m x k``, ``U`` upper
    ``k x n``, ``k = min(m, n)``); ``(P @ L, U)`` with ``permute_l``."""
    a = lax_linalg.as_float_matrix("lu", cnp.asarray(a), complex_ok=True)
    packed, _, perm = lax_linalg.lu(a)
    m, n = cnp.shape(a)[-2:]
    k = min(m, n)
    p = mT(permutation_matrix(perm, a.dtype))  # P[perm[i], i] = 1
    lower = lax.add(lax_linalg.tril(packed, -1)[..., :k], cnp.eye(m, k, dtype=a.dtype))
    upper = lax_linalg.triu(packed)[..., :k, :]
    if permute_l:
        return matmul(p, lower), upper
    return cnp.real(p), lower, upper  # P real, as JAX's


def block_diag(*arrs: ArrayLike) -> Array:
    """The block-diagonal matrix with the given (at most 2-D) blocks on its diagonal."""
    if not arrs:
        arrs = (cnp.zeros((1, 0)),)
    dtype = cnp.result_type(*arrs)
    blocks = [cnp.atleast_2d(lax.convert_element_type(cnp.asarray(x), dtype)) for x in arrs]
    for i, (x, blk) in enumerate(zip(arrs, blocks, strict=True)):
        if cnp.ndim(blk) > 2:
            raise ValueError(
                f"block_diag: blocks must have at most 2 dimensions, got shape "
                f"{cnp.shape(x)} for argument {i}{user_line_suffix()}"
            )
    total = sum(cnp.shape(b)[1] for b in blocks)
    rows, col = [], 0
    for blk in blocks:
        cols = cnp.shape(blk)[1]
        zero = np.zeros((), dtype)
        rows.append(lax.pad(blk, zero, ((0, 0, 0), (col, total - cols - col, 0))))
        col += cols
    return cnp.concatenate(rows, axis=0)


def inv(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> AnyArray:
    """The inverse of each square matrix (:func:`mj.numpy.linalg.inv`)."""
    return mla.inv(a)


def det(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True) -> AnyArray:
    """The determinant of each square matrix (:func:`mj.numpy.linalg.det`)."""
    return mla.det(a)


def svd(
    a: ArrayLike,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Any:
    """``(U, s, Vh)`` with ``a = U @ diag(s) @ Vh``; only ``s`` when not ``compute_uv``."""
    return mla.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def eigh(
    a: ArrayLike,
    b: ArrayLike | None = None,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    turbo: bool = True,
    eigvals: None = None,
    type: int = 1,
    check_finite: bool = True,
) -> Array | tuple[Array, Array]:
    """``(w, v)``: ascending eigenvalues and eigenvectors (columns) of a symmetric ``a``,
    reading its ``lower`` (default) or upper triangle; only ``w`` with ``eigvals_only``.
    The generalised problem (``b``, ``type``, ``eigvals``) is not implemented, as in JAX."""
    if b is not None or type != 1 or eigvals is not None:
        raise NotImplementedError(
            f"eigh: only the standard problem (b=None, type=1, eigvals=None) is implemented"
            f"{user_line_suffix()}"
        )
    a = lax_linalg.as_float_matrix("eigh", cnp.asarray(a), square=True, complex_ok=True)
    v, w = lax_linalg.eigh(a, lower=lower)
    return w if eigvals_only else (w, v)


def _pivoted_qr(a: AnyArray, full_matrices: bool) -> tuple[Array, Array, Array]:
    """``(Q, R, P)`` with ``a[..., P] = Q R``: the column order of LAPACK's ``geqp3`` (on the
    CPU, as JAX's), then the QR decomposition of the reordered columns (the same Householder
    steps, so the same factors up to rounding), whose derivative is then JAX's pivoted one
    (``dA[..., P]`` through the unpivoted rule; ``P`` has none)."""
    *batch, m, n = cnp.shape(a)
    if m == 0 or n == 0:  # JAX's: no pivoting to do, the permutation is zeros
        perm = cnp.zeros((*batch, n), np.int32)
        q, r = lax_linalg.qr(a, full_matrices=full_matrices)
        return q, r, perm
    jpvt = cnp.zeros((*batch, n), np.int32)
    _, perm, _ = geqp3(stop_gradient(a), jpvt)
    perm = lax.sub(perm, lax.full_like(perm, 1))
    q, r = lax_linalg.qr(
        take_along_axis(a, cnp.expand_dims(perm, -2), axis=-1), full_matrices=full_matrices
    )
    return q, r, perm


def qr(
    a: ArrayLike,
    overwrite_a: bool = False,
    lwork: object = None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
) -> tuple[Array, ...]:
    """``(Q, R)`` with ``mode='full'`` (``Q`` m x m) or ``'economic'`` (``Q`` m x k);
    ``(R,)`` with ``mode='r'`` (the full m x n ``R``, as SciPy's and JAX's). With
    ``pivoting``, the column permutation ``P`` (``a[..., P] = Q R``, LAPACK's ``geqp3``'s
    order) is returned last."""
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'{user_line_suffix()}")
    (arr,) = promote_inexact(cnp.asarray(a))
    arr = lax_linalg.as_float_matrix("qr", arr, complex_ok=True)
    if pivoting:
        q, r, perm = _pivoted_qr(arr, full_matrices=mode != "economic")
        return (r, perm) if mode == "r" else (q, r, perm)
    q, r = lax_linalg.qr(arr, full_matrices=mode != "economic")
    return (r,) if mode == "r" else (q, r)


def qr_multiply(
    a: ArrayLike,
    c: ArrayLike,
    mode: str = "right",
    pivoting: bool = False,
    conjugate: bool = False,
    overwrite_a: bool = False,
    overwrite_c: bool = False,
) -> tuple[Array, ...]:
    """``(Q @ c, R)`` (``mode='left'``, ``c`` of shape ``(..., K, P)``) or ``(c @ Q, R)``
    (``mode='right'``, ``c`` of shape ``(..., P, M)``) with ``a = Q R`` the economic QR
    decomposition (``K = min(M, N)``; ``conj(Q)`` with ``conjugate``), as JAX's
    ``scipy.linalg.qr_multiply``; a 1-D ``c`` is a column (``'left'``) or a row (``'right'``)
    and the result is raveled. With ``pivoting``, also the column permutation (as
    :func:`qr`'s)."""
    del overwrite_a, overwrite_c  # unused, as in JAX
    a, c = promote_inexact(cnp.asarray(a), cnp.asarray(c))
    if mode not in ("right", "left"):
        raise ValueError(f"mode must be 'right' or 'left', got {mode!r}{user_line_suffix()}")
    onedim = cnp.ndim(c) == 1
    if onedim:
        c = cnp.expand_dims(c, 1 if mode == "left" else 0)
    a = lax_linalg.as_float_matrix("qr_multiply", a, complex_ok=True)
    a_shape, c_shape = cnp.shape(a), cnp.shape(c)
    m, n = a_shape[-2:]
    k = min(m, n)
    if mode == "left" and c_shape[-2] != k:
        raise ValueError(
            f"Array shapes are not compatible for Q @ c operation: a has shape {a_shape} so "
            f"Q has {k} columns, but c has {c_shape[-2]} rows (expected {k})."
            f"{user_line_suffix()}"
        )
    if mode == "right" and c_shape[-1] != m:
        raise ValueError(
            f"Array shapes are not compatible for c @ Q operation: a has shape {a_shape} so "
            f"Q has {m} rows, but c has {c_shape[-1]} columns (expected {m})."
            f"{user_line_suffix()}"
        )
    batch = np.broadcast_shapes(a_shape[:-2], c_shape[:-2])
    a = cnp.broadcast_to(a, (*batch, *a_shape[-2:]))
    c = cnp.broadcast_to(c, (*batch, *c_shape[-2:]))
    if pivoting:
        q, r, perm = _pivoted_qr(a, full_matrices=False)
    else:
        q, r = lax_linalg.qr(a, full_matrices=False)
    if conjugate:
        q = cnp.conj(q)
    cq = (
        cnp.matmul(q, c, precision="highest")
        if mode == "left"
        else cnp.matmul(c, q, precision="highest")
    )
    if onedim:
        cq = cnp.ravel(cq)
    return (cq, r, perm) if pivoting else (cq, r)


def hessenberg(
    a: ArrayLike, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> Any:
    """The upper Hessenberg form ``H`` of ``a`` (``(H, Q)`` with ``calc_q``, ``a = Q H Q^H``,
    ``Q`` unitary), from LAPACK's ``gehrd`` reflectors as JAX's ``scipy.linalg.hessenberg``."""
    del overwrite_a, check_finite  # unused, as in JAX
    a = cnp.asarray(a)
    n = cnp.shape(a)[-1]
    if n == 0:
        return (cnp.zeros_like(a), cnp.zeros_like(a)) if calc_q else cnp.zeros_like(a)
    a_out, taus = lax_linalg.hessenberg(a)
    h = cnp.triu(a_out, -1)
    if not calc_q:
        return h
    q = lax_linalg.householder_product(a_out[..., 1:, :-1], taus)
    batch = cnp.shape(a_out)[:-2]
    dtype = a_out.dtype
    top = cnp.concatenate(
        [cnp.ones((*batch, 1, 1), dtype), cnp.zeros((*batch, 1, n - 1), dtype)], axis=-1
    )
    bottom = cnp.concatenate([cnp.zeros((*batch, n - 1, 1), dtype), q], axis=-1)
    return h, cnp.concatenate([top, bottom], axis=-2)


def expm_frechet(
    A: ArrayLike,  # noqa: N803 (SciPy's and JAX's names)
    E: ArrayLike,  # noqa: N803
    *,
    method: str | None = None,
    compute_expm: bool = True,
) -> Any:
    """``(expm(A), L(A, E))`` (only ``L(A, E)`` without ``compute_expm``): the Fréchet
    derivative of the matrix exponential at ``A`` in the direction ``E``, as JAX's (the JVP of
    ``expm``); ``method`` is ignored."""
    del method  # unused, as in JAX
    a, e = cnp.asarray(A), cnp.asarray(E)
    a_shape, e_shape = cnp.shape(a), cnp.shape(e)
    if len(a_shape) < 2 or a_shape[-2] != a_shape[-1]:
        raise ValueError(
            f"expected A to be a (batched) square matrix, got A.shape={a_shape}{user_line_suffix()}"
        )
    if len(e_shape) < 2 or e_shape[-2] != e_shape[-1]:
        raise ValueError(
            f"expected E to be a (batched) square matrix, got E.shape={e_shape}{user_line_suffix()}"
        )
    if a_shape != e_shape:
        raise ValueError(
            f"expected A and E to be the same shape, got A.shape={a_shape} E.shape={e_shape}"
            f"{user_line_suffix()}"
        )
    expm_a, frechet = jvp(partial(expm, upper_triangular=False, max_squarings=16), (a,), (e,))
    return (expm_a, frechet) if compute_expm else frechet


_ASSUME_A = ("gen", "sym", "her", "pos")


def solve(
    a: ArrayLike,
    b: ArrayLike,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    debug: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
) -> AnyArray:
    """``x`` with ``a @ x == b``: by LU (``assume_a`` ``'gen'``, ``'sym'``, ``'her'``) or, for
    positive definite ``a`` (``'pos'``), by Cholesky of its ``lower`` or upper triangle."""
    if assume_a not in _ASSUME_A:
        raise ValueError(
            f"solve: assume_a must be one of {_ASSUME_A}, got {assume_a!r}{user_line_suffix()}"
        )
    if assume_a != "pos":
        return mla.solve(a, b)
    a = lax_linalg.as_float_matrix("solve", cnp.asarray(a), square=True, complex_ok=True)
    triangle = lax_linalg.tril(a) if lower else lax_linalg.triu(a)
    full = lax.sub(lax.add(triangle, mH(triangle)), lax_linalg.tril(lax_linalg.triu(a)))
    return cho_solve(cho_factor(full, lower=lower), b)


def polar(
    a: ArrayLike,
    side: str = "right",
    *,
    method: str = "qdwh",
    eps: float | None = None,
    max_iterations: int | None = None,
) -> tuple[Array, Array]:
    """``(u, p)``: the polar decomposition ``a = u p`` (``side='right'``, ``p`` n x n) or
    ``a = p u`` (``'left'``, ``p`` m x m), ``u`` with orthonormal columns (rows) and ``p``
    Hermitian positive semi-definite; leading axes are batch axes. Both methods compute it
    from the SVD (JAX's ``'qdwh'`` iterates to the same factors and accepts the same shapes:
    m >= n for ``'right'``, m < n for ``'left'``)."""
    arr = cnp.asarray(a)
    if cnp.ndim(arr) < 2:
        raise ValueError("The input `a` must be at least a 2-D array.")
    if side not in ("right", "left"):
        raise ValueError("The argument `side` must be either 'right' or 'left'.")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"Unknown polar decomposition method {method}.")
    m, n = cnp.shape(arr)[-2:]
    if method == "qdwh" and not ((m >= n and side == "right") or (m < n and side == "left")):
        raise NotImplementedError(
            f"method='qdwh' only supports mxn matrices where m < n where side='right' and "
            f"m >= n side='left', got {cnp.shape(arr)[-2:]} with side={side!r}"
        )
    (arr,) = promote_inexact(arr)
    if arr.dtype not in (np.float32, np.float64, np.complex64, np.complex128):
        raise NotImplementedError(f"polar: {arr.dtype} is not supported{user_line_suffix()}")
    u, s, vh = lax_linalg.svd(arr, full_matrices=False)
    s = lax.convert_element_type(s, u.dtype)
    unitary = matmul(u, vh)
    if side == "right":
        posdef = matmul(lax.mul(mH(vh), cnp.expand_dims(s, -2)), vh)
    else:
        posdef = matmul(lax.mul(u, cnp.expand_dims(s, -2)), mH(u))
    return unitary, posdef
