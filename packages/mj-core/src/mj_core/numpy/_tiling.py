"""Tiling arrays: ``tile`` (the whole array ``reps`` times along each axis) and ``repeat``
(each element ``repeats`` times along an axis), with JAX's signatures."""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from mj_core import lax
from mj_core._shapes import canonicalize_axis
from mj_core._typing import Array, ArrayLike
from mj_core.numpy import _base as cnp
from mj_core.numpy._searching import searchsorted

__all__ = ["repeat", "tile"]


def tile(A: ArrayLike, reps: int | Sequence[int]) -> Array:  # noqa: N803  (NumPy's name)
    """``A`` repeated ``reps[i]`` times along each axis ``i``."""
    a = cnp.asarray(A)
    reps_t = (int(reps),) if isinstance(reps, int | np.integer) else tuple(int(r) for r in reps)
    ndim = max(cnp.ndim(a), len(reps_t))
    shape = (1,) * (ndim - cnp.ndim(a)) + cnp.shape(a)
    reps_t = (1,) * (ndim - len(reps_t)) + reps_t
    interleaved = tuple(d for pair in zip(reps_t, shape, strict=True) for d in pair)
    tiled = lax.broadcast_in_dim(cnp.reshape(a, shape), interleaved, tuple(range(1, 2 * ndim, 2)))
    return cnp.reshape(tiled, tuple(r * s for r, s in zip(reps_t, shape, strict=True)))


def repeat(
    a: ArrayLike,
    repeats: int | ArrayLike,
    axis: int | None = None,
    *,
    total_repeat_length: int | None = None,
) -> Array:
    """Repeat each element ``repeats`` times along ``axis`` (``None``: flattened). An array
    of repeats gives per-element counts and must be concrete (the output size depends on it),
    unless ``total_repeat_length`` fixes the output length (as under ``jit``, with traced
    counts): a longer output repeats the last element, a shorter one is cut, as in JAX."""
    a = cnp.asarray(a)
    if axis is None:
        a, axis = cnp.ravel(a), 0
    axis = canonicalize_axis("repeat", axis, cnp.ndim(a))
    shape = cnp.shape(a)
    if total_repeat_length is not None:
        return _repeat_to_length(a, repeats, axis, operator.index(total_repeat_length))
    if isinstance(repeats, int | np.integer):
        r = int(repeats)
        expanded = (*shape[: axis + 1], r, *shape[axis + 1 :])
        dims = tuple(i if i <= axis else i + 1 for i in range(len(shape)))
        out = lax.broadcast_in_dim(a, expanded, dims)
        return cnp.reshape(out, (*shape[:axis], shape[axis] * r, *shape[axis + 1 :]))
    counts = np.asarray(repeats)  # a traced array raises ConcretizationError here
    counts = np.broadcast_to(counts, (shape[axis],))
    return cnp.take(a, np.repeat(np.arange(shape[axis]), counts), axis=axis)


def _repeat_to_length(a: ArrayLike, repeats: int | ArrayLike, axis: int, length: int) -> Array:
    """``repeat`` with a static output length: output position ``p`` takes the element whose
    run of repeats covers ``p`` (the last element past the end)."""
    n = cnp.shape(a)[axis]
    counts = cnp.broadcast_to(cnp.asarray(repeats), (n,))
    ends = cnp.cumsum(counts)
    index = searchsorted(ends, cnp.arange(length), side="right")
    return cnp.take(a, cnp.minimum(index, n - 1), axis=axis)
