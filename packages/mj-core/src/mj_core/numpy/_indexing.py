"""NumPy indexing (``x[idx]``) and JAX's functional updates (``x.at[idx].set(v)``).

Basic indexing (ints, slices with any step, ``None``, ``...``) becomes ``rev`` + ``slice`` +
``squeeze`` + ``broadcast_in_dim`` (the new axes, as JAX's): cheap primitives that read well in
a jaxpr. Integer-array (and concrete boolean-mask) indexing becomes one ``gather`` that follows
NumPy's layout rules (the broadcast index dims replace adjacent advanced axes in place, or go
first otherwise). Out-of-bounds array indices are clamped on reads, as in JAX; a static
out-of-bounds int raises ``IndexError``.

``x.at[idx].op(v)`` computes *which flat positions* ``x[idx]`` would read (indexing an ``iota``
with the same code path, so the semantics cannot drift) and scatters ``v`` there; updates at
out-of-bounds positions are dropped, as in JAX.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core import lax
from mj_core._config import config
from mj_core._eager_array import EagerArray
from mj_core._trace import Tracer
from mj_core._typing import Array, ArrayLike
from mj_core.dtypes import result_type
from mj_core.errors import NonConcreteBooleanIndexError
from mj_core.numpy._creation import array
from mj_core.numpy._promotion import convert, dtype_weak, shape_of
from mj_core.numpy._shape import broadcast_shapes, broadcast_to
from mj_core.prims._operands import unchanged
from mj_core.prims.indexing import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    gather_scatter_mode,
)

__all__ = ["IndexUpdateHelper", "IndexUpdateRef", "getitem", "take"]


def _is_int_scalar(item: object) -> bool:
    return isinstance(item, int | np.integer) and not isinstance(item, bool | np.bool_)


def _as_index_array(item: Any) -> Any:
    """An integer index array (concrete or traced), or a list of them for a boolean mask."""
    if isinstance(item, list | tuple):
        if any(isinstance(i, Tracer) for i in item):
            item = array(item)
        else:
            item = np.asarray(item)
            if item.size == 0:
                item = item.astype(np.int64)
    dtype, _ = dtype_weak(item)
    if dtype.kind == "b":
        if isinstance(item, Tracer):
            raise NonConcreteBooleanIndexError(
                "Array boolean indices must be concrete: a traced boolean mask would give a "
                "result whose shape depends on the data. Use mnp.where(mask, x, y) instead."
            )
        return list(np.nonzero(np.asarray(item)))
    if dtype.kind not in "iu":
        raise IndexError(
            "Indices must be integers, slices, None, Ellipsis or integer/boolean arrays; got "
            f"an array of dtype {dtype.name}"
        )
    return item


#: The new, empty axis a ``False`` index makes (``None`` stands for ``True``'s length-1 axis).
_EMPTY_AXIS = object()


def _normalize_index(idx: Any, ndim: int) -> list[Any]:
    """``idx`` as a list with one entry per operand dim, ``None`` entries kept in place, the
    Ellipsis expanded and boolean masks turned into integer arrays."""
    items = list(idx) if type(idx) is tuple else [idx]
    out: list[Any] = []
    ellipsis_at = None
    for item in items:
        if item is None or isinstance(item, slice):
            out.append(item)
        elif item is Ellipsis:
            if ellipsis_at is not None:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis_at = len(out)
        elif _is_int_scalar(item):
            out.append(int(item))
        elif isinstance(item, bool | np.bool_) or (
            isinstance(item, np.ndarray) and item.ndim == 0 and item.dtype == np.bool_
        ):  # as NumPy and JAX: a new axis of length 1 (True) or 0 (False)
            out.append(None if item else _EMPTY_AXIS)
        else:
            arr = _as_index_array(item)
            if isinstance(arr, list):
                out.extend(arr)
            else:
                out.append(arr)
    consumed = sum(1 for item in out if item is not None and item is not _EMPTY_AXIS)
    if consumed > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {consumed} were indexed"
        )
    fill = [slice(None)] * (ndim - consumed)
    if ellipsis_at is None:
        return out + fill
    return out[:ellipsis_at] + fill + out[ellipsis_at:]


def _insert_new_axes(x: ArrayLike, items: list[Any]) -> tuple[ArrayLike, list[Any]]:
    """Turn ``None`` entries into size-1 operand axes indexed by a full slice (an empty one
    for a ``False`` index)."""
    new = {None: slice(None), _EMPTY_AXIS: slice(0, 0)}
    if not any(item is None or item is _EMPTY_AXIS for item in items):
        return x, items
    dims = [d for d, item in enumerate(items) if item is None or item is _EMPTY_AXIS]
    items = [new[item] if item is None or item is _EMPTY_AXIS else item for item in items]
    return lax.expand_dims(x, dims), items  # a broadcast_in_dim, as JAX's


def _apply_slices(x: ArrayLike, items: list[Any]) -> ArrayLike:
    """Apply every slice entry (any step) with one ``rev`` and one ``slice``; slice entries
    become full slices of the result. Int entries take the whole dim here."""
    shape = shape_of(x)
    flip: list[int] = []
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    for d, (item, n) in enumerate(zip(items, shape, strict=True)):
        if not isinstance(item, slice) or item == slice(None):
            continue
        start, stop, step = item.indices(n)
        length = len(range(start, stop, step))
        if step < 0:
            flip.append(d)
            start, step = n - 1 - start, -step
        starts[d] = start
        limits[d] = start + (length - 1) * step + 1 if length else start
        strides[d] = step
    if flip:
        x = lax.rev(x, flip)
    if starts != [0] * len(shape) or limits != list(shape) or strides != [1] * len(shape):
        x = lax.slice(x, starts, limits, strides)
    return x


def _normalize_negative(idx: ArrayLike, n: int) -> ArrayLike:
    """``idx + n`` where ``idx < 0`` (NumPy's negative indices). Unsigned indices are left
    as they are; an axis size out of a signed index dtype's range is NumPy's OverflowError,
    traced or not, as in JAX (an int8 index into 300 elements)."""
    if type(idx) is np.ndarray or type(idx) is EagerArray:
        plain = idx.view(np.ndarray)  # an EagerArray's `<` would bind mj's op: traced in jit
        if plain.dtype.kind == "u":
            return plain
        return np.where(plain < 0, plain + n, plain)
    dtype, _ = dtype_weak(idx)
    if dtype.kind == "u":
        return idx
    if dtype.kind in "iu":
        np.asarray(n, dtype)  # (raises OverflowError where n does not fit)
    return lax.select(lax.less(idx, 0), lax.add(idx, convert(n, dtype)), idx)


def getitem(x: ArrayLike, idx: Any, mode: Any = None, fill_value: Any = None) -> ArrayLike:
    """``x[idx]`` with NumPy semantics (out-of-bounds array indices clamp unless ``mode``)."""
    shape = shape_of(x)
    items = _normalize_index(idx, len(shape))
    x, items = _insert_new_axes(x, items)
    x = _apply_slices(x, items)
    shape = shape_of(x)
    # Static in-bounds ints are slices; an out-of-bounds one clamps (or fills, per ``mode``)
    # through a gather, as in JAX, rather than raising like NumPy.
    if all(
        isinstance(item, slice) or (isinstance(item, int) and -n <= item < n)
        for item, n in zip(items, shape, strict=True)
    ):
        int_dims = []
        starts, limits = [0] * len(shape), list(shape)
        for d, item in enumerate(items):
            if isinstance(item, int):
                i = item % shape[d]
                starts[d], limits[d] = i, i + 1
                int_dims.append(d)
        if int_dims:
            x = lax.squeeze(lax.slice(x, starts, limits), int_dims)
        return x
    return _gather(x, items, mode, fill_value)


def _gather(x: ArrayLike, items: list[Any], mode: object, fill_value: ArrayLike) -> Array:
    shape = shape_of(x)
    adv = [d for d, item in enumerate(items) if not isinstance(item, slice)]
    arrays = [
        _normalize_negative(
            np.asarray(items[d]) if isinstance(items[d], int) else items[d], shape[d]
        )
        for d in adv
    ]
    batch = broadcast_shapes(*(shape_of(a) for a in arrays))
    index_dtype = np.result_type(*(dtype_weak(a)[0] for a in arrays))
    if index_dtype.kind not in "iu":  # e.g. int64 with uint64
        index_dtype = np.dtype(np.int64)
    cols = [
        lax.expand_dims(convert(broadcast_to(a, batch), index_dtype), (len(batch),)) for a in arrays
    ]
    indices = cols[0] if len(cols) == 1 else lax.concatenate(cols, len(batch))
    free = [d for d in range(len(shape)) if d not in adv]
    adjacent = adv == list(range(adv[0], adv[0] + len(adv)))
    if adjacent:
        before = sum(1 for d in free if d < adv[0])
        offset_dims = tuple(i if i < before else i + len(batch) for i in range(len(free)))
    else:
        offset_dims = tuple(range(len(batch), len(batch) + len(free)))
    dnums = GatherDimensionNumbers(
        offset_dims=offset_dims,
        collapsed_slice_dims=tuple(adv),
        start_index_map=tuple(adv),
    )
    if any(shape[d] == 0 for d in adv):  # nothing to gather from: zeros, as JAX
        out_shape = [shape[d] for d in free]
        at = sum(1 for d in free if d < adv[0]) if adjacent else 0
        out_shape[at:at] = batch
        return lax.full(tuple(out_shape), 0, dtype_weak(x)[0])
    slice_sizes = tuple(1 if d in adv else n for d, n in enumerate(shape))
    return lax.gather(
        x,
        indices,
        dnums,
        slice_sizes,
        mode="clip" if mode is None else mode,
        fill_value=fill_value,
    )


def take(
    a: ArrayLike,
    indices: ArrayLike,
    axis: int | None = None,
    out: None = None,
    mode: Any = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value: Any = None,
) -> Array:
    """``a`` indexed by ``indices`` along ``axis`` (the flattened array if ``axis`` is None).

    As in JAX, out-of-bounds indices give ``fill_value`` by default (``mode="fill"``: NaN for
    inexact dtypes, the minimum for signed and the maximum for unsigned integers);
    ``mode="clip"`` clamps them and ``mode="wrap"`` takes them modulo the axis length."""
    del unique_indices, indices_are_sorted  # hints for XLA; the result does not depend on them
    if out is not None:
        raise TypeError("take: the 'out' argument is not supported (mj arrays are immutable)")
    if axis is None:
        a = lax.reshape(a, (math.prod(shape_of(a)),))
        axis = 0
    nd = len(shape_of(a))
    axis = axis % nd if -nd <= axis < nd else axis
    n = shape_of(a)[axis]
    if n == 0 and math.prod(shape_of(indices)) > 0:
        raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
    if mode == "wrap":
        indices = lax.rem(lax.add(lax.rem(indices, n), n), n)
        mode = "clip"  # now in bounds
    elif mode == "clip":  # clamped into [0, n), negative indices included (no wrap-around)
        dtype, _ = dtype_weak(indices)
        indices = lax.clamp(convert(0, dtype), indices, convert(max(n - 1, 0), dtype))
    index = (slice(None),) * axis + (indices,)
    return unchanged(
        getitem(a, index, mode="fill" if mode is None else mode, fill_value=fill_value)
    )


# --- x.at[idx] ------------------------------------------------------------------------------
def _static_ints_as_arrays(idx: object) -> Any:
    """Make every static int an index array, so an out-of-bounds one is dropped (not an
    IndexError) by updates, as in JAX. The result layout is unchanged (0-d arrays add no dims)."""
    if type(idx) is tuple:
        return tuple(np.asarray(i) if _is_int_scalar(i) else i for i in idx)
    return np.asarray(idx) if _is_int_scalar(idx) else idx


def _update(
    scatter: Callable[..., Array], x: ArrayLike, idx: object, values: ArrayLike, mode: object
) -> Array:
    shape = shape_of(x)
    dtype, weak = dtype_weak(x)
    size = math.prod(shape)
    positions = lax.reshape(lax.iota(np.int64, size), shape)
    clip = gather_scatter_mode(mode) != "fill"
    selected = getitem(
        positions, _static_ints_as_arrays(idx), mode="clip" if clip else "fill", fill_value=-1
    )
    target = shape_of(selected)
    _check_cast(values, dtype)
    values = broadcast_to(convert(values, dtype, weak), target)
    dnums = ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
    flat = lax.reshape(x, (size,))
    out = scatter(flat, lax.reshape(selected, (*target, 1)), values, dnums, mode="fill")
    return lax.reshape(out, shape)


def _check_cast(values: ArrayLike, dtype: np.dtype[Any]) -> None:
    """JAX's check of an update's values: a ``FutureWarning`` when promotion would not give
    the array's dtype (``int_array.at[0].add(1.5)``), a ``TypePromotionError`` when the
    lattice (the strict one) has no path."""
    values_dtype, values_weak = dtype_weak(values)
    if (
        values_dtype != dtype
        and result_type((values_dtype, values_weak), (dtype, False))[0] != dtype
    ):
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={values_dtype} to dtype={dtype} with "
            f"jax_numpy_dtype_promotion={config.numpy_dtype_promotion}. In future JAX releases "
            "this will result in an error.",
            FutureWarning,
            stacklevel=4,
        )


class IndexUpdateRef:
    """``x.at[idx]``: functional updates of the elements ``x[idx]`` selects."""

    __slots__ = ("array", "index")

    def __init__(self, array: ArrayLike, index: object) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | None = None,
        fill_value: ArrayLike | None = None,
    ) -> Array:
        """``x[idx]`` (``mode="fill"`` returns ``fill_value`` for out-of-bounds indices)."""
        return unchanged(getitem(self.array, self.index, mode, fill_value))

    def set(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | None = None,
    ) -> Array:
        """A copy of ``x`` with ``x[idx] = values``."""
        return _update(lax.scatter, self.array, self.index, values, mode)

    def add(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | None = None,
    ) -> Array:
        """A copy of ``x`` with ``x[idx] += values`` (repeated indices accumulate)."""
        return _update(lax.scatter_add, self.array, self.index, values, mode)

    def subtract(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | None = None,
    ) -> Array:
        """A copy of ``x`` with ``x[idx] -= values`` (repeated indices accumulate)."""
        return _update(lax.scatter_sub, self.array, self.index, values, mode)

    def multiply(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | None = None,
    ) -> Array:
        """A copy of ``x`` with ``x[idx] *= values`` (repeated indices accumulate)."""
        return _update(lax.scatter_mul, self.array, self.index, values, mode)

    mul = multiply

    def apply(
        self,
        func: Callable[[Array], Array],
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | None = None,
        wrap_negative_indices: bool = True,
    ) -> Array:
        """A copy of ``x`` with the elementwise ``func`` applied to ``x[idx]``, once per
        occurrence of an index (``func.at(x, idx)`` of a unary ufunc); not differentiable, as
        in JAX: ``lax.scatter_apply``, whose loop mj-control registers."""

        def scatter(x: Array, indices: Array, values: Array, dnums: Any, mode: Any) -> Array:
            update_shape = shape_of(values)
            return lax.scatter_apply(x, indices, func, dnums, update_shape=update_shape, mode=mode)

        return _update(scatter, self.array, self.index, 0, mode)

    def min(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | None = None,
    ) -> Array:
        """A copy of ``x`` with ``x[idx] = minimum(x[idx], values)``."""
        return _update(lax.scatter_min, self.array, self.index, values, mode)

    def max(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | None = None,
    ) -> Array:
        """A copy of ``x`` with ``x[idx] = maximum(x[idx], values)``."""
        return _update(lax.scatter_max, self.array, self.index, values, mode)


class IndexUpdateHelper:
    """The object behind ``x.at``: ``x.at[idx]`` is an :class:`IndexUpdateRef`."""

    __slots__ = ("array",)

    def __init__(self, array: ArrayLike) -> None:
        self.array = array

    def __getitem__(self, index: object) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"IndexUpdateHelper({self.array!r})"
