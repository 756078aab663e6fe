"""Matrix construction and index grids: triangles, diagonals, traces, meshgrids, Kronecker
products, Vandermonde matrices and the (static) index helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core._shapes import canonicalize_axis
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.numpy import _base as cnp
from mj_core.numpy._creation import concrete_shape

__all__ = [
    "diag",
    "diag_indices",
    "diagonal",
    "indices",
    "ix_",
    "kron",
    "meshgrid",
    "trace",
    "tri",
    "tril",
    "tril_indices",
    "triu",
    "triu_indices",
    "vander",
]


def _tri_mask(n: int, m: int, k: int) -> Array:
    """``mask[i, j] = j <= i + k`` as a bool array built from iotas (no constants)."""
    rows = lax.broadcasted_iota(np.int64, (n, m), 0)
    cols = lax.broadcasted_iota(np.int64, (n, m), 1)
    return lax.le(cols, lax.add(rows, k))


def tri(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike | None = None) -> Array:  # noqa: N803
    """Ones at and below the ``k``-th diagonal of an ``N x M`` matrix."""
    dt = np.dtype(np.float64 if dtype is None else dtype)
    n, m = concrete_shape((N, N if M is None else M))
    return lax.convert_element_type(_tri_mask(n, m, k), dt)


def _triangle(m: ArrayLike, k: int, lower: bool) -> Array:
    m = cnp.asarray(m)
    if cnp.ndim(m) < 2:
        raise ValueError(f"{'tril' if lower else 'triu'}: input must be at least 2-D")
    n, cols = cnp.shape(m)[-2:]
    mask = _tri_mask(n, cols, k if lower else k - 1)
    if not lower:
        mask = lax.bitwise_not(mask)
    return lax.select(mask, m, cnp.zeros_like(m))


def tril(m: ArrayLike, k: int = 0) -> Array:
    """``m`` with the elements above the ``k``-th diagonal zeroed (last two axes)."""
    return _triangle(m, k, lower=True)


def triu(m: ArrayLike, k: int = 0) -> Array:
    """``m`` with the elements below the ``k``-th diagonal zeroed (last two axes)."""
    return _triangle(m, k, lower=False)


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """The ``offset`` diagonal of the ``(axis1, axis2)`` planes, as the last axis."""
    a = cnp.asarray(a)
    a = cnp.moveaxis(a, (axis1, axis2), (-2, -1))
    n, m = cnp.shape(a)[-2:]
    length = max(0, min(n + min(offset, 0), m - max(offset, 0)))
    rows = lax.iota(np.int64, length)
    if offset < 0:
        rows = lax.add(rows, -offset)
    cols = (
        lax.add(lax.iota(np.int64, length), max(offset, 0))
        if offset > 0
        else lax.iota(np.int64, length)
    )
    return a[..., rows, cols]


def diag(v: ArrayLike, k: int = 0) -> Array:
    """A 1-D ``v`` placed on the ``k``-th diagonal of a square matrix, or the ``k``-th
    diagonal of a 2-D ``v``."""
    v = cnp.asarray(v)
    if cnp.ndim(v) == 2:
        return diagonal(v, k)
    if cnp.ndim(v) != 1:
        raise ValueError("diag: input must be 1-D or 2-D")
    n = cnp.shape(v)[0] + abs(k)
    padded = lax.pad(v, cnp.asarray(0, v.dtype), [(0, abs(k), 0)])
    rows = lax.broadcasted_iota(np.int64, (n, n), 0)
    cols = lax.broadcasted_iota(np.int64, (n, n), 1)
    on_diagonal = lax.eq(lax.sub(cols, rows), k)
    # row i of a k >= 0 diagonal holds v[i]; column j of a k < 0 diagonal holds v[j]
    values = lax.broadcast_in_dim(padded, (n, n), (0,) if k >= 0 else (1,))
    return lax.select(on_diagonal, values, cnp.zeros_like(values))


def trace(
    a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: DTypeLike | None = None
) -> Array:
    """The sum along the ``offset`` diagonal."""
    ndim = cnp.ndim(a)
    if canonicalize_axis("trace", axis1, ndim) == canonicalize_axis("trace", axis2, ndim):
        raise ValueError(f"axis1 and axis2 can not be same. axis1={axis1} and axis2={axis2}")
    return cnp.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


def meshgrid(
    *xi: ArrayLike, copy: bool = True, sparse: bool = False, indexing: str = "xy"
) -> list[Array]:
    """Coordinate matrices from 1-D coordinate vectors (``indexing='xy'`` swaps the first two
    output axes, as in NumPy)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    arrays = [cnp.ravel(cnp.asarray(x)) for x in xi]
    n = len(arrays)
    shape = [cnp.shape(x)[0] for x in arrays]
    if indexing == "xy" and n > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(arrays):
        dim = i
        if indexing == "xy" and n > 1 and i < 2:
            dim = 1 - i
        if sparse:
            one_hot = [1] * n
            one_hot[dim] = shape[dim]
            out.append(cnp.reshape(x, tuple(one_hot)))
        else:
            out.append(lax.broadcast_in_dim(x, tuple(shape), (dim,)))
    return out


def ix_(*args: ArrayLike) -> tuple[Array, ...]:
    """An open mesh from 1-D index sequences, for ``a[ix_(rows, cols)]``-style indexing."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = cnp.asarray(a)
        if cnp.ndim(a) != 1:
            raise ValueError("ix_: arguments must be 1-D")
        shape = [1] * n
        shape[i] = cnp.shape(a)[0]
        out.append(cnp.reshape(a, tuple(shape)))
    return tuple(out)


def kron(a: ArrayLike, b: ArrayLike) -> Array:
    """The Kronecker product: blocks ``a[i, j] * b``."""
    a, b = cnp.asarray(a), cnp.asarray(b)
    nd = max(cnp.ndim(a), cnp.ndim(b))
    a = cnp.reshape(a, (1,) * (nd - cnp.ndim(a)) + cnp.shape(a))
    b = cnp.reshape(b, (1,) * (nd - cnp.ndim(b)) + cnp.shape(b))
    sa, sb = cnp.shape(a), cnp.shape(b)
    a_exp = cnp.reshape(a, tuple(d for s in sa for d in (s, 1)))
    b_exp = cnp.reshape(b, tuple(d for s in sb for d in (1, s)))
    prod = cnp.multiply(a_exp, b_exp)  # promotes (a real and a complex factor)
    return cnp.reshape(prod, tuple(x * y for x, y in zip(sa, sb, strict=True)))


def vander(x: ArrayLike, N: int | None = None, increasing: bool = False) -> Array:  # noqa: N803
    """The Vandermonde matrix: columns are powers of ``x`` (decreasing unless
    ``increasing``)."""
    x = cnp.asarray(x)
    if cnp.ndim(x) != 1:
        raise ValueError("vander: x must be 1-D")
    n = cnp.shape(x)[0] if N is None else N
    powers = [lax.integer_pow(x, p) for p in range(n)]
    if not increasing:
        powers.reverse()
    return cnp.stack(powers, axis=1) if powers else cnp.zeros((cnp.shape(x)[0], 0), x.dtype)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """Row and column indices of the lower triangle (concrete arrays)."""
    rows, cols = np.tril_indices(n, k, m)
    return cnp.asarray(rows), cnp.asarray(cols)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """Row and column indices of the upper triangle (concrete arrays)."""
    rows, cols = np.triu_indices(n, k, m)
    return cnp.asarray(rows), cnp.asarray(cols)


def diag_indices(n: int, ndim: int = 2) -> tuple[Array, ...]:
    """Indices of the main diagonal of an ``n``-sided ``ndim``-dimensional array."""
    return tuple(cnp.asarray(i) for i in np.diag_indices(n, ndim))


def indices(dimensions: Sequence[int], dtype: DTypeLike | None = None, sparse: bool = False) -> Any:
    """A grid of indices: ``out[i]`` counts along axis ``i`` (stacked unless ``sparse``)."""
    dims = tuple(int(d) for d in dimensions)
    dt = np.dtype(np.int64 if dtype is None else dtype)
    if sparse:
        return tuple(
            lax.broadcasted_iota(dt, tuple(d if j == i else 1 for j, d in enumerate(dims)), i)
            for i in range(len(dims))
        )
    grids = [lax.broadcasted_iota(dt, dims, i) for i in range(len(dims))]
    return cnp.stack(grids) if grids else cnp.zeros((0,), dt)
