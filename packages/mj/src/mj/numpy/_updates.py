"""NumPy's in-place writers as JAX spells them: ``place``, ``put``, ``put_along_axis`` and
``fill_diagonal`` return an updated copy (built on ``x.at[...].set``), and, as in JAX, they
require ``inplace=False`` so that code written for NumPy's mutation fails loudly instead of
silently discarding the result."""

from __future__ import annotations

import numpy as np

import mj_core.numpy as cnp
from mj.numpy._index_tricks import unravel_index
from mj_core import Tracer
from mj_core.extend import AnyArray, Array, ArrayLike, canonicalize_axis, check_arraylike
from mj_core.numpy import nonzero, tile

__all__ = ["fill_diagonal", "place", "put", "put_along_axis"]


def _immutable(name: str) -> str:
    return (
        f"{name} cannot modify arrays in-place, because mj arrays are immutable. Pass "
        "inplace=False to instead return an updated array."
    )


def _tile_to_size(flat: AnyArray, size: int) -> AnyArray:
    """The 1-D ``flat`` repeated cyclically (or truncated) to exactly ``size`` entries."""
    n = cnp.size(flat)
    if n < size:
        flat = tile(flat, -(-size // n))
    return flat[:size] if cnp.size(flat) > size else flat


def _check_integer(name: str, what: str, x: ArrayLike) -> None:
    if cnp.result_type(x).kind not in "iu":
        raise TypeError(f"{name}: {what} must be an integer array, got {cnp.result_type(x)}")


def place(arr: ArrayLike, mask: ArrayLike, vals: ArrayLike, *, inplace: bool = True) -> Array:
    """A copy of ``arr`` with the positions where ``mask`` is true set to ``vals`` in order
    (repeated cyclically if there are fewer values than true entries)."""
    check_arraylike("place", [arr, mask, vals])
    data, mask_arr = cnp.asarray(arr), cnp.asarray(mask)
    flat_vals = cnp.ravel(cnp.asarray(vals))
    if inplace:
        raise ValueError(_immutable("place"))
    if cnp.size(data) != cnp.size(mask_arr):
        raise ValueError(
            f"place: arr and mask must have the same size, got {cnp.size(data)} and "
            f"{cnp.size(mask_arr)}"
        )
    if not cnp.size(flat_vals):
        raise ValueError("place: cannot place values from an empty vals array")
    if not cnp.size(data):
        return data
    n = cnp.size(mask_arr)
    # the true positions first, then n (out of bounds: those updates are dropped)
    positions = nonzero(cnp.ravel(mask_arr), size=n, fill_value=n)[0]
    flat_vals = _tile_to_size(flat_vals, n)
    updated = cnp.ravel(data).at[positions].set(flat_vals, mode="drop")
    return cnp.reshape(updated, cnp.shape(data))


def put(
    a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str | None = None, *, inplace: bool = True
) -> Array:
    """A copy of ``a`` with the flat positions ``ind`` set to ``v`` (repeated cyclically).

    Out-of-bounds indices are clamped by default and by ``mode='clip'`` and wrapped by
    ``mode='wrap'``; ``mode='raise'`` is not supported, as in JAX."""
    if inplace:
        raise ValueError(_immutable("put"))
    check_arraylike("put", [a, ind, v])
    arr = cnp.asarray(a)
    flat_ind = cnp.ravel(cnp.asarray(ind))
    flat_v = cnp.ravel(cnp.asarray(v))
    _check_integer("put", "ind", flat_ind)
    if not cnp.size(arr) or not cnp.size(flat_ind) or not cnp.size(flat_v):
        return arr
    flat_v = _tile_to_size(flat_v, cnp.size(flat_ind))
    if mode is None:
        scatter_mode = "drop"
    elif mode == "clip":
        flat_ind, scatter_mode = cnp.clip(flat_ind, 0, cnp.size(arr) - 1), "promise_in_bounds"
    elif mode == "wrap":
        flat_ind, scatter_mode = cnp.remainder(flat_ind, cnp.size(arr)), "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError(
            "put: mode='raise' is not supported (it would need concrete indices); use 'clip' "
            "or 'wrap'"
        )
    else:
        raise ValueError(f"put: mode should be one of 'wrap' or 'clip'; got mode={mode!r}")
    target = unravel_index(flat_ind, cnp.shape(arr))
    return arr.at[target].set(flat_v, mode=scatter_mode)


def put_along_axis(
    arr: ArrayLike,
    indices: ArrayLike,
    values: ArrayLike,
    axis: int | None,
    inplace: bool = True,
    *,
    mode: str | None = None,
) -> Array:
    """A copy of ``arr`` with ``values`` written at ``indices`` along ``axis`` (the inverse
    of ``take_along_axis``; ``None``: the flattened array). Out-of-bounds indices are dropped
    unless ``mode='clip'``."""
    if inplace:
        raise ValueError(_immutable("put_along_axis"))
    check_arraylike("put_along_axis", [arr, indices, values])
    a, vals = cnp.asarray(arr), cnp.asarray(values)
    # concrete indices stay plain NumPy constants (they become the gather's static indices)
    idx = indices if isinstance(indices, Tracer) else np.asarray(indices)
    _check_integer("put_along_axis", "indices", idx)
    original_shape = cnp.shape(a)
    flattened = axis is None
    if axis is None:
        a, axis = cnp.ravel(a), 0
    if cnp.ndim(a) != cnp.ndim(idx):
        raise ValueError(
            "put_along_axis: arr and indices must have the same number of dimensions, got "
            f"arr.ndim={cnp.ndim(a)} and indices.ndim={cnp.ndim(idx)}"
        )
    try:
        vals = cnp.broadcast_to(vals, cnp.shape(idx))
    except ValueError:
        raise ValueError(
            "put_along_axis: values must be broadcastable to indices, got values.shape="
            f"{cnp.shape(vals)} and indices.shape={cnp.shape(idx)}"
        ) from None
    axis = canonicalize_axis("put_along_axis", axis, cnp.ndim(a))
    grid = list(cnp.indices(cnp.shape(a), sparse=True))  # (``indices`` is shadowed)
    grid[axis] = idx
    result = a.at[tuple(grid)].set(vals, mode=mode)
    return cnp.reshape(result, original_shape) if flattened else result


def fill_diagonal(
    a: ArrayLike, val: ArrayLike, wrap: bool = False, *, inplace: bool = True
) -> Array:
    """A copy of ``a`` with its main diagonal (``a[i, i, ..., i]``) set to ``val`` (repeated
    cyclically when ``val`` is an array)."""
    if inplace:
        raise NotImplementedError(_immutable("fill_diagonal"))
    if wrap:
        raise NotImplementedError("fill_diagonal: wrap=True is not implemented, use wrap=False")
    check_arraylike("fill_diagonal", [a, val])
    arr, v = cnp.asarray(a), cnp.asarray(val)
    shape = cnp.shape(arr)
    if len(shape) < 2:
        raise ValueError(f"fill_diagonal: array must be at least 2-d, got shape {shape}")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError(
            f"fill_diagonal: all dimensions of a >2-d input must be equal, got shape {shape}"
        )
    n = min(shape)
    diagonal = np.diag_indices(n, len(shape))  # static positions, as plain NumPy constants
    return arr.at[diagonal].set(v if cnp.ndim(v) == 0 else _tile_to_size(cnp.ravel(v), n))
