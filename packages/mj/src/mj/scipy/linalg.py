"""``mj.scipy.linalg``: the ``jax.scipy.linalg`` factor-and-solve API on mj's linear-algebra
primitives (``mj_core.lax_linalg``), so it differentiates, batches and compiles.

SciPy conventions: ``cholesky`` returns the *upper* factor unless ``lower=True``;
``cho_factor``/``lu_factor`` return factors that ``cho_solve``/``lu_solve`` consume.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj.numpy.linalg import permutation_matrix
from mj_core import lax, lax_linalg
from mj_core.errors import user_line_suffix
from mj_core.lax_linalg import matmul, mT

__all__ = ["cho_factor", "cho_solve", "cholesky", "lu_factor", "lu_solve", "solve_triangular"]

Array = Any


def cholesky(a: Array, lower: bool = False) -> Array:
    """The Cholesky factor of ``a``: upper ``U`` with ``a = U^T U`` (SciPy's default) or lower."""
    low = lax_linalg.cholesky(lax_linalg.as_float_matrix("cholesky", cnp.asarray(a), square=True))
    return low if lower else mT(low)


def cho_factor(a: Array, lower: bool = False) -> tuple[Array, bool]:
    """``(c, lower)`` for :func:`cho_solve`."""
    return cholesky(a, lower=lower), lower


def _as_matrix_rhs(name: str, a: Array, b: Array) -> tuple[Array, bool]:
    b = cnp.asarray(b)
    vector = cnp.ndim(b) == cnp.ndim(a) - 1
    return lax_linalg.as_float_matrix(name, cnp.expand_dims(b, -1) if vector else b), vector


def cho_solve(c_and_lower: tuple[Array, bool], b: Array) -> Array:
    """Solve ``a x = b`` given ``cho_factor(a)``."""
    c, lower = c_and_lower
    b2, vector = _as_matrix_rhs("cho_solve", c, b)
    y = lax_linalg.triangular_solve(c, b2, left_side=True, lower=lower, transpose_a=not lower)
    x = lax_linalg.triangular_solve(c, y, left_side=True, lower=lower, transpose_a=lower)
    return cnp.squeeze(x, -1) if vector else x


_TRANS = {0: False, "N": False, 1: True, "T": True, 2: True, "C": True}


def solve_triangular(
    a: Array, b: Array, trans: int | str = 0, lower: bool = False, unit_diagonal: bool = False
) -> Array:
    """Solve ``op(a) x = b`` for triangular ``a`` (``trans``: 0/'N', 1/'T', 2/'C')."""
    if trans not in _TRANS:
        raise ValueError(
            f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}"
            f"{user_line_suffix()}"
        )
    a = lax_linalg.as_float_matrix("solve_triangular", cnp.asarray(a), square=True)
    b2, vector = _as_matrix_rhs("solve_triangular", a, b)
    x = lax_linalg.triangular_solve(
        a, b2, left_side=True, lower=lower, transpose_a=_TRANS[trans], unit_diagonal=unit_diagonal
    )
    return cnp.squeeze(x, -1) if vector else x


def lu_factor(a: Array) -> tuple[Array, Array]:
    """``(lu, piv)``: LAPACK's packed LU factors and 0-based row swaps."""
    lu, pivots, _ = lax_linalg.lu(lax_linalg.as_float_matrix("lu_factor", cnp.asarray(a)))
    return lu, pivots


def _pivots_to_permutation(pivots: Array, m: int) -> Array:
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


def lu_solve(lu_and_piv: tuple[Array, Array], b: Array, trans: int = 0) -> Array:
    """Solve ``a x = b`` (``trans=0``) or ``a^T x = b`` given ``lu_factor(a)``."""
    lu, pivots = lu_and_piv
    m = cnp.shape(lu)[-1]
    b2, vector = _as_matrix_rhs("lu_solve", lu, b)
    p = permutation_matrix(_pivots_to_permutation(pivots, m), lu.dtype)
    if trans == 0:  # P a = L U
        y = lax_linalg.triangular_solve(
            lu, matmul(p, b2), left_side=True, lower=True, unit_diagonal=True
        )
        x = lax_linalg.triangular_solve(lu, y, left_side=True, lower=False)
    else:  # a^T = U^T L^T P
        y = lax_linalg.triangular_solve(lu, b2, left_side=True, lower=False, transpose_a=True)
        z = lax_linalg.triangular_solve(
            lu, y, left_side=True, lower=True, transpose_a=True, unit_diagonal=True
        )
        x = matmul(mT(p), z)
    return cnp.squeeze(x, -1) if vector else x
