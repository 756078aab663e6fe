"""``mj.numpy.linalg``: norms and matrix powers built from mj primitives.

Factorisation-based routines (``inv``, ``solve``, ``det``, ``svd``, ``eigh``, ``cholesky``)
need their own primitives and are not provided yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax

__all__ = ["matrix_power", "norm", "vector_norm"]

Array = Any


def vector_norm(
    x: Array, axis: int | Sequence[int] | None = None, keepdims: bool = False, ord: Any = 2
) -> Array:
    """The ``ord``-norm of vectors along ``axis`` (all elements when ``None``)."""
    x = cnp.asarray(x)
    if x.dtype.kind not in "fc":
        x = lax.convert_element_type(x, np.float64)
    a = lax.abs(x)
    if ord == 2:
        return cnp.sqrt(cnp.sum(lax.mul(a, a), axis=axis, keepdims=keepdims))
    if ord == 1:
        return cnp.sum(a, axis=axis, keepdims=keepdims)
    if ord == np.inf:
        return cnp.max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return cnp.min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        nonzero = lax.convert_element_type(lax.ne(a, 0), a.dtype)
        return cnp.sum(nonzero, axis=axis, keepdims=keepdims)
    p = float(ord)
    return lax.pow(cnp.sum(lax.pow(a, p), axis=axis, keepdims=keepdims), 1.0 / p)


def norm(
    x: Array,
    ord: Any = None,
    axis: int | tuple[int, int] | None = None,
    keepdims: bool = False,
) -> Array:
    """Vector or matrix norm, as ``numpy.linalg.norm``.

    ``axis=None`` gives the 2-norm of the flattened array when ``ord`` is ``None``; an int
    ``axis`` gives vector norms; a pair of axes gives matrix norms (``'fro'``, 1, -1, inf,
    -inf; the spectral and nuclear norms need an SVD and raise ``NotImplementedError``).
    """
    x = cnp.asarray(x)
    ndim = cnp.ndim(x)
    if axis is None:
        if ord is None:
            out = vector_norm(cnp.ravel(x))
            return cnp.reshape(out, (1,) * ndim) if keepdims else out
        axis = (0, 1) if ndim == 2 else 0
    if isinstance(axis, int):
        return vector_norm(x, axis, keepdims, 2 if ord is None else ord)
    pair = tuple(axis)
    if len(pair) != 2:
        raise ValueError(f"norm: axis must be an int or a pair of ints, got {axis!r}")
    row, col = (a % ndim for a in pair)
    if ord in (None, "fro"):
        return vector_norm(x, (row, col), keepdims, 2)
    if ord in (1, -1):
        col_sums = cnp.sum(lax.abs(x), axis=row, keepdims=True)
        reduce = cnp.max if ord == 1 else cnp.min
        out = reduce(col_sums, axis=col, keepdims=True)
    elif ord in (np.inf, -np.inf):
        row_sums = cnp.sum(lax.abs(x), axis=col, keepdims=True)
        reduce = cnp.max if ord == np.inf else cnp.min
        out = reduce(row_sums, axis=row, keepdims=True)
    elif ord in (2, -2, "nuc"):
        raise NotImplementedError(f"norm: ord={ord!r} needs a singular value decomposition")
    else:
        raise ValueError(f"norm: invalid ord {ord!r} for a matrix norm")
    return out if keepdims else cnp.squeeze(out, axis=(row, col))


def matrix_power(a: Array, n: int) -> Array:
    """``a`` multiplied by itself ``n >= 0`` times (by repeated squaring)."""
    a = cnp.asarray(a)
    if cnp.ndim(a) < 2 or cnp.shape(a)[-1] != cnp.shape(a)[-2]:
        raise ValueError(f"matrix_power: expected a square matrix, got shape {cnp.shape(a)}")
    if n < 0:
        raise NotImplementedError("matrix_power: negative powers need a matrix inverse")
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
