"""Reshaping helpers whose output shape comes from static arguments: ``array_split``,
``resize``, ``rollaxis``, and ``trim_zeros`` (whose shape comes from the data, so it needs a
concrete input, as in JAX)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.extend import (
    Array,
    ArrayLike,
    canonicalize_axis,
    check_arraylike,
    concrete_or_error,
    static_int,
)
from mj_core.numpy import tile

__all__ = ["array_split", "resize", "rollaxis", "trim_zeros"]


def _split_points(indices_or_sections: Any) -> list[Any] | None:
    """The split points when ``indices_or_sections`` lists them, ``None`` for a count."""
    if isinstance(indices_or_sections, list | tuple):
        return list(indices_or_sections)
    if hasattr(indices_or_sections, "shape") and np.ndim(indices_or_sections) > 0:
        return list(indices_or_sections)
    return None


def array_split(
    ary: ArrayLike, indices_or_sections: int | Sequence[int] | ArrayLike, axis: int = 0
) -> list[Array]:
    """Split along ``axis`` into ``indices_or_sections`` near-equal parts (the first ones one
    longer when the length does not divide), or at the given split points."""
    name = "array_split"
    check_arraylike(name, [ary])
    a = cnp.asarray(ary)
    axis = canonicalize_axis(name, axis, cnp.ndim(a))
    n = cnp.shape(a)[axis]
    given = _split_points(indices_or_sections)
    if given is not None:
        points = [static_int(name, i, "each split index") for i in given]
        sizes = [hi - lo for lo, hi in itertools.pairwise([0, *points, n])]
        if any(s < 0 for s in sizes):
            raise ValueError(
                f"{name}: split indices must be non-decreasing and within [0, {n}] (the size "
                f"of axis {axis}); got {points}"
            )
    else:
        sections = static_int(name, indices_or_sections, "the number of sections")
        if sections <= 0:
            raise ValueError(f"{name}: the number of sections must be positive, got {sections}")
        part, rest = divmod(n, sections)
        sizes = [part + 1] * rest + [part] * (sections - rest)
    starts = [0, *itertools.accumulate(sizes)][:-1]
    return [lax.slice_in_dim(a, lo, lo + s, 1, axis) for lo, s in zip(starts, sizes, strict=True)]


def resize(a: ArrayLike, new_shape: int | Sequence[int]) -> Array:
    """``a`` flattened, repeated cyclically and reshaped to ``new_shape`` (zeros if ``a`` is
    empty), as ``np.resize``."""
    check_arraylike("resize", [a])
    dims = (new_shape,) if np.ndim(new_shape) == 0 else tuple(new_shape)  # type: ignore[arg-type]
    shape = tuple(static_int("resize", d, "new_shape") for d in dims)
    if any(d < 0 for d in shape):
        raise ValueError(f"resize: all elements of new_shape must be non-negative, got {shape}")
    flat = cnp.ravel(cnp.asarray(a))
    new_size, old_size = math.prod(shape), cnp.size(flat)
    if old_size == 0 or new_size == 0:
        return cnp.zeros_like(flat, shape=shape)
    repeated = tile(flat, -(-new_size // old_size))
    return cnp.reshape(repeated[:new_size], shape)


def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> Array:
    """Move ``axis`` so that it lands before position ``start`` (NumPy's older
    ``moveaxis``)."""
    check_arraylike("rollaxis", [a])
    a = cnp.asarray(a)
    ndim = cnp.ndim(a)
    axis = canonicalize_axis("rollaxis", axis, ndim)
    start = static_int("rollaxis", start, "start")
    if not -ndim <= start <= ndim:
        raise ValueError(f"rollaxis: start={start} must satisfy {-ndim} <= start <= {ndim}")
    if start < 0:
        start += ndim
    if start > axis:
        start -= 1
    return cnp.moveaxis(a, axis, start)


def trim_zeros(filt: ArrayLike, trim: str = "fb", axis: int | Sequence[int] | None = None) -> Array:
    """``filt`` without its leading (``'f'``) and/or trailing (``'b'``) all-zero slices along
    each of ``axis`` (default: every axis). The result's shape depends on the data, so
    ``filt`` must be concrete."""
    check_arraylike("trim_zeros", [filt])
    hint = "The result's shape depends on where the zeros are."
    values = concrete_or_error("trim_zeros", filt, "filt", hint)
    f = cnp.asarray(filt)
    ndim = values.ndim
    if axis is None:
        axes = set(range(ndim))
    else:
        axis_seq = [axis] if isinstance(axis, int | np.integer) else list(axis)
        axes = {canonicalize_axis("trim_zeros", ax, ndim) for ax in axis_seq}
    front, back = "f" in trim.lower(), "b" in trim.lower()
    if not axes or not (front or back):
        return f
    index = []
    for ax in range(ndim):
        if ax not in axes:
            index.append(slice(None))
            continue
        nonzero_at = np.any(values, axis=tuple(i for i in range(ndim) if i != ax))
        if not nonzero_at.any():
            index.append(slice(0, 0))
            continue
        start = int(nonzero_at.argmax()) if front else None
        stop = values.shape[ax] - int(nonzero_at[::-1].argmax()) if back else None
        index.append(slice(start, stop))
    return f[tuple(index)]
