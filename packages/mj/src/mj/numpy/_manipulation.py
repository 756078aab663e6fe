"""Array manipulation beyond mj_core.numpy (which has ``tile`` and ``repeat``): rolling,
rotating, padding, gathering along an axis, and the stack/split variants."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np

import mj_core.numpy as cnp
from mj_core import Tracer, lax
from mj_core.extend import AnyArray, Array, ArrayLike, DTypeLike, canonicalize_axis

__all__ = [
    "append",
    "atleast_3d",
    "column_stack",
    "dsplit",
    "dstack",
    "fliplr",
    "flipud",
    "hsplit",
    "pad",
    "roll",
    "rot90",
    "row_stack",
    "take_along_axis",
    "vsplit",
]


def take_along_axis(
    arr: ArrayLike,
    indices: ArrayLike,
    axis: int | None,
    mode: str | None = None,
    fill_value: ArrayLike | None = None,
    *,
    wrap_negative_indices: bool = True,
) -> Array:
    """``out[..., i, ...] = arr[..., indices[..., i, ...], ...]`` along ``axis`` (NumPy's
    ``take_along_axis``; ``indices`` broadcasts against ``arr`` on the other axes).

    Out-of-bounds indices follow JAX: ``mode="fill"`` (the default) gives ``fill_value``
    (NaN for floats, the lowest integer, True), ``"clip"`` the nearest element. Negative
    indices count from the end unless ``wrap_negative_indices=False`` (then they are out of
    bounds)."""
    arr = cnp.asarray(arr)
    indices = cnp.asarray(indices)
    if axis is None:
        arr, axis = cnp.ravel(arr), 0
    ndim = cnp.ndim(arr)
    if cnp.ndim(indices) != ndim:
        raise ValueError(
            f"take_along_axis: indices (rank {cnp.ndim(indices)}) and arr (rank {ndim}) must "
            "have the same number of dimensions"
        )
    axis = canonicalize_axis("take_along_axis", axis, ndim)
    if np.dtype(indices.dtype).kind not in "iu":
        raise TypeError(f"take_along_axis: indices must be integers, got {indices.dtype}")
    mode = "fill" if mode is None else mode
    if not wrap_negative_indices:  # a negative index is out of bounds: past the end
        past = cnp.shape(arr)[axis] if mode == "fill" else 0
        indices = cnp.where(indices < 0, past, indices)
    index: list[Any] = []
    for d in range(ndim):
        if d == axis:
            index.append(indices)
        else:
            grid_shape = [1] * ndim
            grid_shape[d] = cnp.shape(arr)[d]
            index.append(lax.broadcasted_iota(np.int64, tuple(grid_shape), d))
    return arr.at[tuple(index)].get(mode=mode, fill_value=fill_value)


def roll(
    a: ArrayLike, shift: ArrayLike | Sequence[int], axis: int | Sequence[int] | None = None
) -> Array:
    """Shift elements circularly by ``shift`` along ``axis`` (``None``: the flattened array).
    ``shift`` may be traced."""
    a = cnp.asarray(a)
    if axis is None:
        return cnp.reshape(roll(cnp.ravel(a), shift, 0), cnp.shape(a))
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    shifts = shift if isinstance(shift, tuple | list) else (shift,) * len(axes)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis must have the same length")
    for s, ax in zip(shifts, axes, strict=True):
        a = _roll1(a, s, canonicalize_axis("roll", ax, cnp.ndim(a)))
    return a


def _roll1(a: Array, shift: ArrayLike, axis: int) -> Array:
    n = cnp.shape(a)[axis]
    if n == 0:
        return a
    if isinstance(shift, int | np.integer):
        s = int(shift) % n
        if s == 0:
            return a
        tail = lax.slice_in_dim(a, n - s, n, axis=axis)
        head = lax.slice_in_dim(a, 0, n - s, axis=axis)
        return lax.concatenate([tail, head], axis)
    start = lax.rem(lax.sub(n, lax.rem(cnp.asarray(shift, np.int64), n)), n)
    doubled = lax.concatenate([a, a], axis)
    return lax.dynamic_slice_in_dim(doubled, start, n, axis=axis)


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Array:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes`` (first towards second)."""
    m = cnp.asarray(m)
    ndim = cnp.ndim(m)
    a0, a1 = (canonicalize_axis("rot90", ax, ndim) for ax in axes)
    if a0 == a1:
        raise ValueError("rot90: axes must be different")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return cnp.flip(cnp.flip(m, a0), a1)
    perm = list(range(ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return cnp.transpose(cnp.flip(m, a1), perm)
    return cnp.flip(cnp.transpose(m, perm), a1)


def fliplr(m: ArrayLike) -> Array:
    """Reverse the columns (axis 1)."""
    return cnp.flip(m, 1)


def flipud(m: ArrayLike) -> Array:
    """Reverse the rows (axis 0)."""
    return cnp.flip(m, 0)


def append(arr: ArrayLike, values: ArrayLike, axis: int | None = None) -> Array:
    """``values`` appended to ``arr`` (both flattened when ``axis`` is ``None``)."""
    if axis is None:
        return cnp.concatenate([cnp.ravel(cnp.asarray(arr)), cnp.ravel(cnp.asarray(values))])
    return cnp.concatenate([cnp.asarray(arr), cnp.asarray(values)], axis=axis)


@overload
def atleast_3d(ary: ArrayLike, /) -> Array: ...
@overload
def atleast_3d(*arys: ArrayLike) -> Array | list[Array]: ...
def atleast_3d(*arys: ArrayLike) -> Array | list[Array]:
    """Views with at least three dimensions (NumPy's placement of the new axes)."""
    out = []
    for a in arys:
        a = cnp.asarray(a)
        nd = cnp.ndim(a)
        if nd == 0:
            a = cnp.reshape(a, (1, 1, 1))
        elif nd == 1:
            a = cnp.reshape(a, (1, cnp.shape(a)[0], 1))
        elif nd == 2:
            a = cnp.expand_dims(a, 2)
        out.append(a)
    return out[0] if len(out) == 1 else out


def column_stack(tup: Sequence[AnyArray] | AnyArray) -> Array:
    """Stack 1-D arrays as columns (2-D arrays are concatenated along axis 1). An array
    argument is the sequence of its rows, as in JAX: ``column_stack(arange(3.))`` stacks
    three scalars into shape ``(1, 3)``."""
    if not isinstance(tup, list | tuple) and np.ndim(tup) == 0:
        raise ValueError("column_stack: expected a sequence of arrays, got a 0-d array")
    cols = [cnp.asarray(a) for a in tup]
    cols = [cnp.transpose(cnp.atleast_2d(a)) if cnp.ndim(a) < 2 else a for a in cols]
    return cnp.concatenate(cols, axis=1)


def row_stack(tup: Sequence[ArrayLike]) -> Array:
    """Alias of ``vstack``."""
    return cnp.vstack(tup)


def dstack(tup: Sequence[ArrayLike], dtype: DTypeLike | None = None) -> Array:
    """Stack along the third axis (after :func:`atleast_3d`), as ``dtype`` if given."""
    return cnp.concatenate([atleast_3d(a) for a in tup], axis=2, dtype=dtype)


def hsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Array]:
    """Split along axis 1 (axis 0 for 1-D arrays)."""
    return cnp.split(ary, indices_or_sections, axis=1 if cnp.ndim(ary) > 1 else 0)


def vsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Array]:
    """Split along axis 0."""
    return cnp.split(ary, indices_or_sections, axis=0)


def dsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Array]:
    """Split along axis 2."""
    return cnp.split(ary, indices_or_sections, axis=2)


def _pad_widths(
    pad_width: int | Sequence[int] | Sequence[Sequence[int]] | ArrayLike, ndim: int
) -> list[tuple[int, int]]:
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (ndim, 2))
    if np.any(widths < 0):
        raise ValueError(f"pad: pad widths must be non-negative, got {pad_width!r}")
    return [(int(lo), int(hi)) for lo, hi in widths]


def pad(
    array: ArrayLike,
    pad_width: int | Sequence[int] | Sequence[Sequence[int]] | ArrayLike,
    mode: str = "constant",
    constant_values: Any = 0,
) -> Array:
    """Pad ``array``; modes ``constant``, ``edge``, ``wrap``, ``reflect`` and ``symmetric``."""
    a = cnp.asarray(array)
    ndim = cnp.ndim(a)
    widths = _pad_widths(pad_width, ndim)
    if mode == "constant":
        if isinstance(constant_values, Tracer) or np.ndim(constant_values) == 0:
            value = cnp.asarray(constant_values, a.dtype)
            return lax.pad(a, value, [(lo, hi, 0) for lo, hi in widths])
        values = np.broadcast_to(np.asarray(constant_values), (ndim, 2))
        for ax, (lo, hi) in enumerate(widths):
            config = [(0, 0, 0)] * ndim
            config[ax] = (lo, 0, 0)
            a = lax.pad(a, cnp.asarray(values[ax, 0], a.dtype), config)
            config[ax] = (0, hi, 0)
            a = lax.pad(a, cnp.asarray(values[ax, 1], a.dtype), config)
        return a
    if mode not in ("edge", "wrap", "reflect", "symmetric"):
        raise NotImplementedError(f"pad: mode={mode!r}")
    for ax, (lo, hi) in enumerate(widths):
        a = _pad_axis(a, ax, lo, hi, mode)
    return a


def _pad_axis(a: Array, axis: int, lo: int, hi: int, mode: str) -> Array:
    n = cnp.shape(a)[axis]
    if (lo or hi) and n == 0:
        raise ValueError(f"pad: cannot pad an empty axis with mode {mode!r}")
    limit = n - 1 if mode == "reflect" else n
    if mode != "edge" and max(lo, hi) > limit:
        raise NotImplementedError(f"pad: mode {mode!r} with a width larger than the axis ({n})")

    def part(start: int, stop: int, reverse: bool) -> Array:
        piece = lax.slice_in_dim(a, start, stop, axis=axis)
        return lax.rev(piece, (axis,)) if reverse else piece

    if mode == "edge":
        first, last = part(0, 1, False), part(n - 1, n, False)
        left = cnp.repeat(first, lo, axis=axis) if lo else None
        right = cnp.repeat(last, hi, axis=axis) if hi else None
    elif mode == "wrap":
        left = part(n - lo, n, False) if lo else None
        right = part(0, hi, False) if hi else None
    elif mode == "reflect":
        left = part(1, lo + 1, True) if lo else None
        right = part(n - 1 - hi, n - 1, True) if hi else None
    else:  # symmetric
        left = part(0, lo, True) if lo else None
        right = part(n - hi, n, True) if hi else None
    pieces = [p for p in (left, a, right) if p is not None]
    return lax.concatenate(pieces, axis) if len(pieces) > 1 else a
