"""Array manipulation beyond mj_core.numpy (which has ``tile`` and ``repeat``): rolling,
rotating, padding, gathering along an axis, and the stack/split variants."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, overload

import numpy as np

import mj_core.numpy as cnp
from mj_core import Tracer, lax
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    DTypeLike,
    canonicalize_axis,
    convert,
    dtype_weak,
)

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
    axis: int | None = -1,
    mode: str | None = None,
    fill_value: ArrayLike | None = None,
    *,
    wrap_negative_indices: bool | None = None,
) -> Array:
    """``out[..., i, ...] = arr[..., indices[..., i, ...], ...]`` along ``axis`` (NumPy's
    ``take_along_axis``; ``indices`` broadcasts against ``arr`` on the other axes).

    Out-of-bounds indices follow JAX: ``mode="fill"`` (the default) gives ``fill_value``
    (NaN for floats, the lowest integer, True), ``"clip"`` the nearest element;
    ``"one_hot"`` selects by a one-hot mask (zero out of bounds). Negative indices count
    from the end unless ``wrap_negative_indices=False`` (then they are out of bounds; the
    default under ``mode="promise_in_bounds"``)."""
    arr = cnp.asarray(arr)
    indices = cnp.asarray(indices)
    if np.dtype(indices.dtype).kind not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got {indices.dtype}")
    if axis is None:
        if cnp.ndim(indices) != 1:
            raise ValueError(
                f"take_along_axis indices must be 1D if axis=None, got shape {cnp.shape(indices)}"
            )
        arr, axis = cnp.ravel(arr), 0
    ndim = cnp.ndim(arr)
    if cnp.ndim(indices) != ndim:
        raise ValueError(
            "indices and arr must have the same number of dimensions; "
            f"{cnp.ndim(indices)} vs. {ndim}"
        )
    axis = canonicalize_axis("take_along_axis", axis, ndim)
    size = cnp.shape(arr)[axis]
    if size == 0:  # nothing to take from: zeros of the broadcast shape, as JAX
        arr_shape = list(cnp.shape(arr))
        arr_shape[axis] = 1
        out_shape = cnp.broadcast_shapes(cnp.shape(indices), tuple(arr_shape))
        return cnp.zeros(out_shape, arr.dtype)
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:  # JAX's index_dtype_for_axis_size: room for index + size
        indices = lax.convert_element_type(
            indices, np.int64 if size > np.iinfo(np.int32).max else np.int32
        )
    if mode == "one_hot":
        return _take_one_hot(arr, indices, axis, wrap_negative_indices)
    mode = "fill" if mode is None else mode
    if mode == "promise_in_bounds" or not wrap_negative_indices:
        # (unwrapped, a negative index is out of bounds, as the gather's mode says)
        return _take_gather(arr, indices, axis, wrap_negative_indices, mode, fill_value)
    index: list[Any] = []
    for d in range(ndim):
        if d == axis:
            index.append(indices)
        else:
            grid_shape = [1] * ndim
            grid_shape[d] = cnp.shape(arr)[d]
            index.append(lax.broadcasted_iota(np.int64, tuple(grid_shape), d))
    return arr.at[tuple(index)].get(mode=mode, fill_value=fill_value)


def _take_gather(
    arr: Array, indices: Array, axis: int, wrap: bool, mode: Any, fill_value: Any
) -> Array:
    """``take_along_axis`` as JAX's: one ``gather`` (in ``mode``) whose other axes are batch
    axes, the indices in their own dtype, negative ones wrapped only when ``wrap``
    (otherwise nothing is added to the jaxpr)."""
    if wrap:
        indices = cnp.where(indices < 0, cnp.add(indices, cnp.shape(arr)[axis]), indices)
    ndim = cnp.ndim(arr)
    a_shape, i_shape = list(cnp.shape(arr)), list(cnp.shape(indices))
    a_shape[axis] = i_shape[axis] = 1
    common = cnp.broadcast_shapes(tuple(a_shape), tuple(i_shape))
    arr = cnp.broadcast_to(arr, (*common[:axis], cnp.shape(arr)[axis], *common[axis + 1 :]))
    indices = cnp.broadcast_to(
        indices, (*common[:axis], cnp.shape(indices)[axis], *common[axis + 1 :])
    )
    batch = tuple(d for d in range(ndim) if d != axis)
    dnums = lax.GatherDimensionNumbers(
        offset_dims=(),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
        operand_batching_dims=batch,
        start_indices_batching_dims=batch,
    )
    return lax.gather(arr, indices[..., None], dnums, (1,) * ndim, mode=mode, fill_value=fill_value)


def _take_one_hot(arr: Array, indices: Array, axis: int, wrap: bool) -> Array:
    """``take_along_axis(mode="one_hot")``: each output element the one element of its
    ``arr`` slice whose position equals the index (zero if none does)."""
    size = cnp.shape(arr)[axis]
    if wrap:
        indices = cnp.where(indices < 0, cnp.add(indices, size), indices)
    a = cnp.moveaxis(arr, axis, -1)
    idx = cnp.moveaxis(indices, axis, -1)
    batch = cnp.broadcast_shapes(cnp.shape(a)[:-1], cnp.shape(idx)[:-1])
    full = (*batch, cnp.shape(idx)[-1], size)  # (..., m, size): one row of the mask per index
    a = cnp.broadcast_to(a[..., None, :], full)
    idx = cnp.broadcast_to(idx[..., None], full)
    hot = lax.eq(idx, lax.broadcasted_iota(idx.dtype, full, len(full) - 1))
    picked = lax.select(hot, a, lax.full(full, 0, arr.dtype))
    out = cnp.sum(picked, axis=-1, dtype=arr.dtype)
    return cnp.moveaxis(out, -1, axis)


def roll(
    a: ArrayLike, shift: ArrayLike | Sequence[int], axis: int | Sequence[int] | None = None
) -> Array:
    """Shift elements circularly by ``shift`` along ``axis`` (``None``: the flattened array).
    As JAX's: shifts and axes broadcast against each other; a shift that is not a (sequence
    of) concrete integer(s) (a traced or array shift) rolls by dynamic slices."""
    a = cnp.asarray(a)
    if axis is None:
        return cnp.reshape(roll(cnp.ravel(a), shift, 0), cnp.shape(a))
    ndim = cnp.ndim(a)
    axes = _index_tuple(axis)
    axes = tuple(canonicalize_axis("roll", ax, ndim) for ax in axes)
    try:
        shifts = _index_tuple(shift)
    except TypeError:  # traced, or not integers
        return _roll_dynamic(a, cnp.asarray(shift), axes)
    for ax, s in zip(*np.broadcast_arrays(np.asarray(axes), np.asarray(shifts)), strict=True):
        a = _roll1(a, int(s), int(ax))
    return a


def _index_tuple(x: Any) -> tuple[int, ...]:
    """JAX's ``_ensure_index_tuple``: ``x`` as a tuple of ints (``TypeError`` if it is not
    one, or a sequence of, concrete integers)."""
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def _roll_dynamic(a: Array, shift: Array, axes: tuple[int, ...]) -> Array:
    b_shape = np.broadcast_shapes(cnp.shape(shift), (len(axes),))
    if len(b_shape) != 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    shifts = cnp.broadcast_to(shift, b_shape)
    for i, ax in enumerate(np.broadcast_to(np.asarray(axes), b_shape)):
        n = cnp.shape(a)[int(ax)]
        x = cnp.remainder(lax.convert_element_type(shifts[i], np.int32), np.int32(max(n, 1)))
        doubled = lax.concatenate([a, a], int(ax))
        a = lax.dynamic_slice_in_dim(doubled, lax.sub(np.int32(n), x), n, axis=int(ax))
    return a


def _roll1(a: Array, shift: int, axis: int) -> Array:
    n = cnp.shape(a)[axis]
    if n == 0:
        return a
    s = shift % n
    if s == 0:
        return a
    tail = lax.slice_in_dim(a, n - s, n, axis=axis)
    head = lax.slice_in_dim(a, 0, n - s, axis=axis)
    return lax.concatenate([tail, head], axis)


def rot90(m: ArrayLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Array:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes`` (first towards second)."""
    m = cnp.asarray(m)
    ndim = cnp.ndim(m)
    if ndim < 2:
        raise ValueError(
            "rot90 requires its first argument to have ndim at least two, but got first "
            f"argument of shape {cnp.shape(m)}, which has ndim {ndim}"
        )
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
    given = np.asarray(pad_width)
    if given.size and given.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    widths = np.broadcast_to(given.astype(np.int64), (ndim, 2))
    if np.any(widths < 0):
        raise ValueError(f"pad: pad widths must be non-negative, got {pad_width!r}")
    return [(int(lo), int(hi)) for lo, hi in widths]


def _pairs(values: Any, ndim: int) -> np.ndarray[Any, Any]:
    """``end_values``/``stat_length`` as one ``(before, after)`` row per axis (NumPy's
    shapes: ``(ndim, 2)``, ``(1, 2)``, ``(2,)``, ``(1,)`` or a scalar)."""
    return np.broadcast_to(np.asarray(values), (ndim, 2))


#: The keyword arguments each mode takes (JAX's, NumPy's).
_PAD_KWARGS: dict[str, tuple[str, ...]] = {
    "empty": (),
    "edge": (),
    "wrap": (),
    "constant": ("constant_values",),
    "linear_ramp": ("end_values",),
    "maximum": ("stat_length",),
    "mean": ("stat_length",),
    "median": ("stat_length",),
    "minimum": ("stat_length",),
    "reflect": ("reflect_type",),
    "symmetric": ("reflect_type",),
}


def pad(
    array: ArrayLike,
    pad_width: int | Sequence[int] | Sequence[Sequence[int]] | ArrayLike,
    mode: Any = "constant",
    **kwargs: Any,
) -> Array:
    """Pad ``array`` as ``np.pad``: modes ``constant`` (``constant_values``), ``edge``,
    ``wrap``, ``reflect``/``symmetric`` (``reflect_type``), ``linear_ramp``
    (``end_values``), ``maximum``/``minimum``/``mean``/``median`` (``stat_length``),
    ``empty`` (zeros, as in JAX), or a function ``f(vector, pad_width, axis, kwargs)``
    returning the padded vector."""
    a = cnp.asarray(array)
    ndim = cnp.ndim(a)
    widths = _pad_widths(pad_width, ndim)
    if callable(mode):
        return _pad_func(a, widths, mode, kwargs)
    try:
        allowed = _PAD_KWARGS[mode]
    except (KeyError, TypeError):
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.") from None
    unsupported = set(kwargs) - set(allowed)
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if ndim == 0:
        return a
    if mode == "constant":
        return _pad_constant(a, widths, kwargs.get("constant_values", 0))
    if mode == "linear_ramp":
        return _pad_linear_ramp(a, widths, _pairs(kwargs.get("end_values", 0), ndim))
    if mode in ("maximum", "minimum", "mean", "median"):
        stat_length = kwargs.get("stat_length")
        lengths = None if stat_length is None else _pairs(stat_length, ndim)
        return _pad_stats(a, widths, lengths, mode)
    reflect_type = kwargs.get("reflect_type", "even")
    if mode in ("reflect", "symmetric") and reflect_type not in ("even", "odd"):
        raise ValueError(f"pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    for ax, (lo, hi) in enumerate(widths):
        if cnp.shape(a)[ax] == 0:
            if lo or hi:
                raise ValueError(f"Cannot apply '{mode}' padding to empty axis")
            continue
        if mode == "empty":
            a = _pad_empty_axis(a, ax, lo, hi)
        elif mode == "wrap":
            a = _pad_wrap_axis(a, ax, lo, hi)
        elif mode == "edge":
            a = _pad_edge_axis(a, ax, lo, hi)
        else:
            a = _pad_reflect_side(a, ax, lo, mode, reflect_type, before=True)
            a = _pad_reflect_side(a, ax, hi, mode, reflect_type, before=False)
    return a


def _weak(a: Array) -> bool:
    return dtype_weak(a)[1]


def _pad_constant(a: Array, widths: list[tuple[int, int]], constant_values: Any) -> Array:
    ndim = cnp.ndim(a)
    if isinstance(constant_values, Tracer) or np.ndim(constant_values) == 0:
        value = convert(cnp.asarray(constant_values), a.dtype, _weak(a))
        return lax.pad(a, value, [(lo, hi, 0) for lo, hi in widths])
    values = np.broadcast_to(np.asarray(constant_values), (ndim, 2))
    for ax, (lo, hi) in enumerate(widths):
        config = [(0, 0, 0)] * ndim
        config[ax] = (lo, 0, 0)
        a = lax.pad(a, cnp.asarray(values[ax, 0], a.dtype), config)
        config[ax] = (0, hi, 0)
        a = lax.pad(a, cnp.asarray(values[ax, 1], a.dtype), config)
    return a


def _pad_empty_axis(a: Array, axis: int, lo: int, hi: int) -> Array:
    shape = list(cnp.shape(a))
    parts = []
    for width in (lo, hi):
        shape[axis] = width
        parts.append(cnp.zeros_like(a, shape=tuple(shape)))
    return lax.concatenate([parts[0], a, parts[1]], axis)


def _pad_wrap_axis(a: Array, axis: int, lo: int, hi: int) -> Array:
    size = cnp.shape(a)[axis]
    left_repeats, left_rest = divmod(lo, size)
    right_repeats, right_rest = divmod(hi, size)
    parts = []
    if left_rest:
        parts.append(lax.slice_in_dim(a, size - left_rest, size, axis=axis))
    parts += [a] * (left_repeats + right_repeats + 1)
    if right_rest:
        parts.append(lax.slice_in_dim(a, 0, right_rest, axis=axis))
    return lax.concatenate(parts, axis) if len(parts) > 1 else a


def _pad_edge_axis(a: Array, axis: int, lo: int, hi: int) -> Array:
    n = cnp.shape(a)[axis]
    first = cnp.repeat(lax.slice_in_dim(a, 0, 1, axis=axis), lo, axis=axis)
    last = cnp.repeat(lax.slice_in_dim(a, n - 1, n, axis=axis), hi, axis=axis)
    return lax.concatenate([first, a, last], axis)


def _pad_reflect_side(
    a: Array, axis: int, padding: int, mode: str, reflect_type: str, before: bool
) -> Array:
    """``padding`` values mirrored onto one side of ``axis``, as often as the axis is
    shorter than the padding ('odd': reflected through the edge value)."""
    size = cnp.shape(a)[axis]  # the original length: each round mirrors that many values
    n = cnp.shape(a)[axis]
    edge = (
        lax.slice_in_dim(a, 0, 1, axis=axis) if before else lax.slice_in_dim(a, n - 1, n, axis=axis)
    )
    offset = 1 if (mode == "reflect" and size > 1) else 0
    while padding > 0:
        cur = min(padding, size - offset)
        padding -= cur
        n = cnp.shape(a)[axis]
        if before:
            start, stop = offset, offset + cur
        else:
            start = n - (cur + offset)
            stop = n if (mode == "symmetric" or size == 1) else n - 1
        x = lax.rev(lax.slice_in_dim(a, start, stop, axis=axis), (axis,))
        if reflect_type == "odd":
            x = cnp.subtract(cnp.multiply(2, edge), x)
            if size > 1:
                m = cnp.shape(x)[axis]
                edge = (
                    lax.slice_in_dim(x, 0, 1, axis=axis)
                    if before
                    else lax.slice_in_dim(x, m - 1, m, axis=axis)
                )
        a = lax.concatenate([x, a] if before else [a, x], axis)
    return a


def _pad_linear_ramp(a: Array, widths: list[tuple[int, int]], ends: np.ndarray[Any, Any]) -> Array:
    weak = _weak(a)
    for axis, (lo, hi) in enumerate(widths):
        n = cnp.shape(a)[axis]
        ramps = []
        for width, end, edge_at in ((lo, ends[axis, 0], 0), (hi, ends[axis, 1], n - 1)):
            edge = lax.squeeze(lax.slice_in_dim(a, edge_at, edge_at + 1, axis=axis), (axis,))
            ramp = cnp.linspace(end, edge, width, endpoint=False, dtype=a.dtype, axis=axis)
            ramps.append(convert(ramp, a.dtype, weak))
        a = lax.concatenate([ramps[0], a, lax.rev(ramps[1], (axis,))], axis)
    return a


def _pad_stats(
    a: Array, widths: list[tuple[int, int]], lengths: np.ndarray[Any, Any] | None, mode: str
) -> Array:
    from mj.numpy import median

    stat_funcs: dict[str, Any] = {
        "maximum": cnp.amax,
        "minimum": cnp.amin,
        "mean": cnp.mean,
        "median": median,
    }
    stat = stat_funcs[mode]
    weak = _weak(a)
    for axis, (lo, hi) in enumerate(widths):
        if lengths is None:
            before = after = stat(a, axis=axis, keepdims=True)
        else:
            n = cnp.shape(a)[axis]
            length_before, length_after = (int(v) for v in lengths[axis])
            if length_before == 0 or length_after == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            length_before, length_after = min(length_before, n), min(length_after, n)
            before = stat(
                lax.slice_in_dim(a, 0, length_before, axis=axis), axis=axis, keepdims=True
            )
            after = stat(
                lax.slice_in_dim(a, n - length_after, n, axis=axis), axis=axis, keepdims=True
            )
        if np.issubdtype(a.dtype, np.integer):
            before, after = cnp.round(before), cnp.round(after)
        before, after = convert(before, a.dtype, weak), convert(after, a.dtype, weak)
        a = lax.concatenate(
            [cnp.repeat(before, lo, axis=axis), a, cnp.repeat(after, hi, axis=axis)], axis
        )
    return a


def _pad_func(a: Array, widths: list[tuple[int, int]], func: Any, kwargs: dict[str, Any]) -> Array:
    """NumPy's function mode: zeros padded, then ``func(vector, (before, after), axis,
    kwargs)`` over every 1-D slice along each axis in turn returns the padded slice."""
    from mj.numpy._vectorize import apply_along_axis

    padded = _pad_constant(a, widths, 0)
    for axis in range(cnp.ndim(padded)):
        padded = apply_along_axis(func, axis, padded, widths[axis], axis, kwargs)
    return padded
