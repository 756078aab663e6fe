"""Structural primitives: they move, copy or pad elements without arithmetic.

``broadcast`` (with ``broadcast_in_dim`` semantics), ``reshape``, ``transpose``, ``squeeze``,
``rev``, ``concatenate``, ``pad``, ``slice``, ``dynamic_slice``, ``dynamic_update_slice`` and
``iota``. Each has a typing rule in :data:`abstract_eval_rules` (params are canonical: axes are
non-negative tuples, the lax wrappers normalise user input) and a NumPy impl rule that checks
its operands with that same typing rule first.

The lax wrappers follow the rules (``broadcast_in_dim``, ``reshape``, ..., the ``*_in_dim``
conveniences, ``iota``/``broadcasted_iota`` and ``full``/``full_like``); ``__all__`` is the
family's primitives and lax API. The module is over 600 lines because it is eleven primitives,
each with its typing rule, impl rule and one or more wrappers; splitting it would scatter one
family over several files.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from mj_core._array_views import ArrayView, array_views, view_dtype
from mj_core._avals import ShapedArray, raise_to_shaped
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import (
    aval_error,
    canonicalize_axes,
    canonicalize_axis,
    check_permutation,
    jax_worded_error,
    lax_ints,
    shape_of,
)
from mj_core._trace import bind
from mj_core._typing import AnyArray, Array, ArrayLike, DTypeLike
from mj_core.dtypes import dtype_of
from mj_core.errors import AxisError, user_location
from mj_core.prims._operands import (
    bind1,
    check_axes,
    check_fits_in_memory,
    check_operands,
    common_dtype,
    unchanged,
)
from mj_core.prims.conversions import convert_element_type, convert_element_type_p, is_weak
from mj_core.prims.elementwise import add, category_kind, lt, select_n
from mj_core.tree_util import tree_flatten, tree_unflatten

__all__ = [
    "broadcast",
    "broadcast_in_dim",
    "broadcast_p",
    "broadcast_to_rank",
    "broadcasted_iota",
    "concatenate",
    "concatenate_p",
    "dynamic_index_in_dim",
    "dynamic_slice",
    "dynamic_slice_in_dim",
    "dynamic_slice_p",
    "dynamic_update_index_in_dim",
    "dynamic_update_slice",
    "dynamic_update_slice_in_dim",
    "dynamic_update_slice_p",
    "expand_dims",
    "full",
    "full_like",
    "index_in_dim",
    "iota",
    "iota_p",
    "optimization_barrier",
    "optimization_barrier_p",
    "pad",
    "pad_p",
    "reshape",
    "reshape_p",
    "rev",
    "rev_p",
    "slice",
    "slice_in_dim",
    "slice_p",
    "squeeze",
    "squeeze_p",
    "transpose",
    "transpose_p",
    "zeros_like_array",
]


def _check_shape(prim_name: str, shape: Sequence[int], avals: Sequence[ShapedArray]) -> None:
    if any(int(d) < 0 for d in shape):
        raise aval_error(prim_name, f"negative dimension in shape {tuple(shape)}", avals)


def _check_index_scalars(
    prim_name: str, indices: Sequence[ShapedArray], avals: Sequence[ShapedArray]
) -> None:
    for idx in indices:
        if idx.shape != () or idx.dtype.kind not in "iu":
            raise aval_error(prim_name, "start indices must be integer scalars", avals)


# --- broadcast (broadcast_in_dim semantics) ---------------------------------------------------
broadcast_p = Primitive("broadcast")


@abstract_eval_rules.register(broadcast_p)
def _broadcast_avals(
    x: ShapedArray, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> list[ShapedArray]:
    _check_shape("broadcast", shape, [x])
    dims = tuple(int(d) for d in broadcast_dimensions)
    # JAX's checks, order and wording (lax._broadcast_in_dim_shape_rule)
    if len(dims) != x.ndim:
        raise jax_worded_error(
            "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
            f"broadcast_dimensions {dims} for operand ndim {x.ndim}.",
            [x],
        )
    if len(shape) < x.ndim:
        raise jax_worded_error(
            "broadcast_in_dim target broadcast shape must have equal or higher rank to the "
            f"operand shape; got operand ndim {x.ndim} and target broadcast ndim {len(shape)}.",
            [x],
        )
    if any(not 0 <= d < len(shape) for d in dims):
        raise jax_worded_error(
            "broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got "
            f"{dims} for operand ndim {x.ndim} and shape {tuple(shape)}.",
            [x],
        )
    if any(size not in (1, shape[d]) for size, d in zip(x.shape, dims, strict=True)):
        raise jax_worded_error(
            "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
            "corresponding dimensions in the target broadcast shape; got operand of shape "
            f"{x.shape}, target broadcast shape {tuple(shape)}, broadcast_dimensions {dims}",
            [x],
        )
    if len(set(dims)) != len(dims):
        raise jax_worded_error(
            "broadcast_in_dim broadcast_dimensions must not contain duplicates, got "
            f"broadcast_dimensions {dims}",
            [x],
        )
    if any(a >= b for a, b in pairwise(dims)):
        raise aval_error(
            "broadcast", f"broadcast_dimensions {dims} must be strictly increasing", [x]
        )
    return [ShapedArray(tuple(int(d) for d in shape), x.dtype, x.weak_type)]


@impl_rules.register(broadcast_p)
def _broadcast_impl(
    x: Any, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> list[Any]:
    (out,) = check_operands(
        broadcast_p, (x,), {"shape": shape, "broadcast_dimensions": broadcast_dimensions}
    )
    check_fits_in_memory(broadcast_p, out)
    expanded = [1] * len(shape)
    for size, d in zip(np.shape(x), broadcast_dimensions, strict=True):
        expanded[d] = size
    src = np.asarray(x, out.dtype)
    if src.flags.writeable:  # a caller's NumPy array: the read-only view must not alias it
        src = src.copy()
    return [np.broadcast_to(np.reshape(src, expanded), out.shape)]


# --- reshape ----------------------------------------------------------------------------------
reshape_p = Primitive("reshape")


@abstract_eval_rules.register(reshape_p)
def _reshape_avals(x: ShapedArray, *, new_sizes: tuple[int, ...]) -> list[ShapedArray]:
    _check_shape("reshape", new_sizes, [x])
    new_shape = tuple(int(d) for d in new_sizes)
    if int(np.prod(new_shape, dtype=np.int64)) != x.size:
        raise aval_error("reshape", f"cannot reshape {x.size} elements into shape {new_shape}", [x])
    return [ShapedArray(new_shape, x.dtype, x.weak_type)]


@impl_rules.register(reshape_p)
def _reshape_impl(x: Any, *, new_sizes: tuple[int, ...]) -> list[Any]:
    check_operands(reshape_p, (x,), {"new_sizes": new_sizes})
    return [np.reshape(x, new_sizes)]


# --- transpose --------------------------------------------------------------------------------
transpose_p = Primitive("transpose")


@abstract_eval_rules.register(transpose_p)
def _transpose_avals(x: ShapedArray, *, permutation: tuple[int, ...]) -> list[ShapedArray]:
    perm = check_permutation("transpose", permutation, x.ndim)
    return [ShapedArray(tuple(x.shape[p] for p in perm), x.dtype, x.weak_type)]


@impl_rules.register(transpose_p)
def _transpose_impl(x: Any, *, permutation: tuple[int, ...]) -> list[Any]:
    check_operands(transpose_p, (x,), {"permutation": permutation})
    return [np.transpose(x, permutation)]


# --- squeeze ----------------------------------------------------------------------------------
squeeze_p = Primitive("squeeze")


@abstract_eval_rules.register(squeeze_p)
def _squeeze_avals(x: ShapedArray, *, dimensions: tuple[int, ...]) -> list[ShapedArray]:
    dims = check_axes("squeeze", dimensions, x.ndim, [x])
    if any(x.shape[d] != 1 for d in dims):
        raise aval_error(
            "squeeze",
            "cannot select an axis to squeeze out which has size not equal to one, got "
            f"shape={x.shape} and dimensions={dims}",
            [x],
        )
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
    return [ShapedArray(shape, x.dtype, x.weak_type)]


@impl_rules.register(squeeze_p)
def _squeeze_impl(x: Any, *, dimensions: tuple[int, ...]) -> list[Any]:
    (out,) = check_operands(squeeze_p, (x,), {"dimensions": dimensions})
    return [np.reshape(x, out.shape)]


# --- rev --------------------------------------------------------------------------------------
rev_p = Primitive("rev")


@abstract_eval_rules.register(rev_p)
def _rev_avals(x: ShapedArray, *, dimensions: tuple[int, ...]) -> list[ShapedArray]:
    check_axes("rev", dimensions, x.ndim, [x])
    return [raise_to_shaped(x)]


@impl_rules.register(rev_p)
def _rev_impl(x: Any, *, dimensions: tuple[int, ...]) -> list[Any]:
    check_operands(rev_p, (x,), {"dimensions": dimensions})
    return [np.flip(x, tuple(dimensions)) if dimensions else x]


# --- concatenate ------------------------------------------------------------------------------
concatenate_p = Primitive("concatenate")


@abstract_eval_rules.register(concatenate_p)
def _concatenate_avals(*xs: ShapedArray, dimension: int) -> list[ShapedArray]:
    if not xs:
        raise TypeError("concatenate: needs at least one operand")
    x0 = xs[0]
    if any(x.ndim != x0.ndim for x in xs) or x0.ndim == 0:
        raise aval_error("concatenate", "operands must have the same rank >= 1", xs)
    (dim,) = check_axes("concatenate", (dimension,), x0.ndim, xs)
    for x in xs:
        if any(a != b for i, (a, b) in enumerate(zip(x.shape, x0.shape, strict=True)) if i != dim):
            raise aval_error(
                "concatenate",
                f"operand shapes must match except along dimension {dim}",
                xs,
            )
    dtype, weak = common_dtype("concatenate", xs)
    shape = list(x0.shape)
    shape[dim] = sum(x.shape[dim] for x in xs)
    return [ShapedArray(tuple(shape), dtype, weak)]


@impl_rules.register(concatenate_p)
def _concatenate_impl(*xs: Any, dimension: int) -> list[Any]:
    (out,) = check_operands(concatenate_p, xs, {"dimension": dimension})
    joined = np.concatenate(xs, axis=dimension)
    return [joined if joined.dtype == out.dtype else joined.astype(out.dtype)]


# --- pad --------------------------------------------------------------------------------------
pad_p = Primitive("pad")


@abstract_eval_rules.register(pad_p)
def _pad_avals(
    x: ShapedArray, padding_value: ShapedArray, *, padding_config: tuple[tuple[int, int, int], ...]
) -> list[ShapedArray]:
    avals = (x, padding_value)
    if padding_value.shape != ():
        raise aval_error("pad", "padding_value must be a scalar", avals)
    if len(padding_config) != x.ndim:
        raise aval_error(
            "pad",
            f"padding_config has {len(padding_config)} entries, expected one (lo, hi, "
            "interior) triple per operand dimension",
            avals,
        )
    shape = []
    for size, (lo, hi, interior) in zip(x.shape, padding_config, strict=True):
        if interior < 0:
            raise aval_error(
                "pad",
                f"interior padding in padding_config must be nonnegative, got {interior}",
                avals,
            )
        out = lo + hi + size + max(size - 1, 0) * interior
        if out < 0:
            raise aval_error(
                "pad",
                "Dimension size after padding is not at least 0, got "
                f"{out} from padding {(lo, hi, interior)}",
                avals,
            )
        shape.append(int(out))
    dtype, _ = common_dtype("pad", avals)
    return [ShapedArray(tuple(shape), dtype, x.weak_type)]


@impl_rules.register(pad_p)
def _pad_impl(
    x: Any, padding_value: Any, *, padding_config: tuple[tuple[int, int, int], ...]
) -> list[Any]:
    (out_aval,) = check_operands(pad_p, (x, padding_value), {"padding_config": padding_config})
    grown: list[int] = []
    place: list[builtins.slice] = []
    crop: list[builtins.slice] = []
    for size, (lo, hi, interior) in zip(np.shape(x), padding_config, strict=True):
        core = size + max(size - 1, 0) * interior
        total = max(lo, 0) + core + max(hi, 0)
        grown.append(total)
        place.append(builtins.slice(max(lo, 0), max(lo, 0) + core, interior + 1))
        crop.append(builtins.slice(max(-lo, 0), total - max(-hi, 0)))
    out = np.full(grown, padding_value, dtype=out_aval.dtype)
    out[tuple(place)] = x
    return [out[tuple(crop)]]


# --- slice ------------------------------------------------------------------------------------
slice_p = Primitive("slice")


@abstract_eval_rules.register(slice_p)
def _slice_avals(
    x: ShapedArray,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> list[ShapedArray]:
    strides_ = (1,) * x.ndim if strides is None else tuple(strides)
    if not len(start_indices) == len(limit_indices) == len(strides_) == x.ndim:
        raise aval_error(
            "slice",
            f"start_indices {tuple(start_indices)}, limit_indices {tuple(limit_indices)} and "
            f"strides {strides} need one entry per operand dimension",
            [x],
        )
    shape = []
    for size, start, limit, stride in zip(
        x.shape, start_indices, limit_indices, strides_, strict=True
    ):
        if not 0 <= start <= limit <= size or stride < 1:
            raise aval_error(
                "slice",
                f"invalid slice start_indices={tuple(start_indices)}, limit_indices="
                f"{tuple(limit_indices)}, strides={strides}: need 0 <= start <= limit <= size "
                "and stride >= 1",
                [x],
            )
        shape.append((limit - start + stride - 1) // stride)
    return [ShapedArray(tuple(shape), x.dtype, x.weak_type)]


@impl_rules.register(slice_p)
def _slice_impl(
    x: ArrayLike,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> list[Any]:
    params = {"start_indices": start_indices, "limit_indices": limit_indices, "strides": strides}
    check_operands(slice_p, (x,), params)
    steps = strides or (1,) * len(start_indices)
    index = tuple(
        builtins.slice(s, e, st)
        for s, e, st in zip(start_indices, limit_indices, steps, strict=True)
    )
    return [np.asarray(x)[index]]


# --- dynamic_slice ----------------------------------------------------------------------------
dynamic_slice_p = Primitive("dynamic_slice")


@abstract_eval_rules.register(dynamic_slice_p)
def _dynamic_slice_avals(
    x: ShapedArray, *start_indices: ShapedArray, slice_sizes: tuple[int, ...]
) -> list[ShapedArray]:
    avals = (x, *start_indices)
    if len(start_indices) != x.ndim or len(slice_sizes) != x.ndim:
        raise aval_error(
            "dynamic_slice",
            f"needs one start index and one slice size per operand dimension, got "
            f"{len(start_indices)} start indices and slice_sizes {tuple(slice_sizes)}",
            avals,
        )
    _check_index_scalars("dynamic_slice", start_indices, avals)
    if any(not 0 <= s <= d for s, d in zip(slice_sizes, x.shape, strict=True)):
        raise aval_error(
            "dynamic_slice", f"slice_sizes {tuple(slice_sizes)} must fit in the operand", avals
        )
    return [ShapedArray(tuple(int(s) for s in slice_sizes), x.dtype, x.weak_type)]


def _clamped_window(
    shape: tuple[int, ...], starts: Sequence[Any], sizes: Sequence[int]
) -> tuple[builtins.slice, ...]:
    """XLA's dynamic-slice semantics: each start is clamped so the window fits."""
    window = []
    for dim, start, size in zip(shape, starts, sizes, strict=True):
        s = min(max(int(start), 0), dim - size)
        window.append(builtins.slice(s, s + size))
    return tuple(window)


@impl_rules.register(dynamic_slice_p)
def _dynamic_slice_impl(
    x: ArrayLike, *start_indices: object, slice_sizes: tuple[int, ...]
) -> list[Any]:
    check_operands(dynamic_slice_p, (x, *start_indices), {"slice_sizes": slice_sizes})
    x = np.asarray(x)
    return [x[_clamped_window(x.shape, start_indices, slice_sizes)]]


# --- dynamic_update_slice ---------------------------------------------------------------------
dynamic_update_slice_p = Primitive("dynamic_update_slice")


@abstract_eval_rules.register(dynamic_update_slice_p)
def _dynamic_update_slice_avals(
    x: ShapedArray, update: ShapedArray, *start_indices: ShapedArray
) -> list[ShapedArray]:
    avals = (x, update, *start_indices)
    if update.ndim != x.ndim or len(start_indices) != x.ndim:
        raise aval_error(
            "dynamic_update_slice",
            "update must have the operand's rank, with one start index per dimension",
            avals,
        )
    _check_index_scalars("dynamic_update_slice", start_indices, avals)
    if any(u > d for u, d in zip(update.shape, x.shape, strict=True)):
        raise aval_error("dynamic_update_slice", "update must fit in the operand", avals)
    dtype, _ = common_dtype("dynamic_update_slice", (x, update))
    return [ShapedArray(x.shape, dtype, x.weak_type)]


@impl_rules.register(dynamic_update_slice_p)
def _dynamic_update_slice_impl(x: Any, update: Any, *start_indices: Any) -> list[Any]:
    (out_aval,) = check_operands(dynamic_update_slice_p, (x, update, *start_indices), {})
    out = np.array(x, dtype=out_aval.dtype, copy=True)
    out[_clamped_window(out.shape, start_indices, np.shape(update))] = update
    return [out]


# --- iota -------------------------------------------------------------------------------------
iota_p = Primitive("iota")


@abstract_eval_rules.register(iota_p)
def _iota_avals(
    *, dtype: np.dtype[Any], shape: tuple[int, ...], dimension: int
) -> list[ShapedArray]:
    dt = np.dtype(dtype)
    _check_shape("iota", shape, [])
    check_axes("iota", (dimension,), len(shape), [ShapedArray(tuple(shape), dt)])
    if category_kind(dt) not in "iufc":  # (ml_dtypes' int4, uint2, ... are integers)
        raise TypeError(f"iota: dtype must be numeric, got {dt.name}")
    return [ShapedArray(tuple(int(d) for d in shape), dt)]


@impl_rules.register(iota_p)
def _iota_impl(*, dtype: np.dtype[Any], shape: tuple[int, ...], dimension: int) -> list[Any]:
    (out,) = check_operands(iota_p, (), {"dtype": dtype, "shape": shape, "dimension": dimension})
    check_fits_in_memory(iota_p, out)
    line = [1] * len(shape)
    line[dimension] = shape[dimension]
    return [np.broadcast_to(np.arange(shape[dimension], dtype=out.dtype).reshape(line), out.shape)]


# --- lax wrappers ----------------------------------------------------------------------------
def broadcast_in_dim(
    operand: ArrayLike, shape: Sequence[int], broadcast_dimensions: Sequence[int]
) -> Array:
    """Broadcast ``operand`` to ``shape``; operand dim ``i`` becomes output dim
    ``broadcast_dimensions[i]`` (size 1 or equal); the other output dims are new."""
    shape, dims = lax_ints(shape), lax_ints(broadcast_dimensions)
    if shape_of(operand) == shape and dims == tuple(range(len(shape))):
        return unchanged(operand)
    if (
        len(dims) == len(shape_of(operand))
        and len(set(dims)) == len(dims)
        and any(a > b for a, b in pairwise(dims))
    ):  # JAX takes the operand dims in any order: the primitive's, in order, after a transpose
        order = tuple(sorted(range(len(dims)), key=dims.__getitem__))
        operand = bind1(transpose_p, operand, permutation=order)
        dims = tuple(dims[i] for i in order)
    return bind1(broadcast_p, operand, shape=shape, broadcast_dimensions=dims)


def broadcast(operand: ArrayLike, sizes: Sequence[int]) -> Array:
    """Add leading dimensions of ``sizes`` (``jax.lax.broadcast``)."""
    sizes = lax_ints(sizes)
    ndim = len(shape_of(operand))
    shape = sizes + shape_of(operand)
    return broadcast_in_dim(operand, shape, tuple(range(len(sizes), len(sizes) + ndim)))


def broadcast_to_rank(x: ArrayLike, rank: int) -> Array:
    """Add leading size-1 dimensions until ``x`` has rank ``rank``."""
    shape = shape_of(x)
    return broadcast(x, (1,) * (rank - len(shape))) if len(shape) < rank else unchanged(x)


def reshape(
    operand: ArrayLike, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None
) -> Array:
    """Reshape (row-major); ``dimensions`` first transposes the operand, as in ``jax.lax``."""
    new_sizes = lax_ints(new_sizes)
    if dimensions is not None and lax_ints(dimensions) != tuple(range(len(shape_of(operand)))):
        operand = transpose(operand, dimensions)
    if shape_of(operand) == new_sizes:
        return unchanged(operand)
    return bind1(reshape_p, operand, new_sizes=new_sizes)


def transpose(operand: ArrayLike, permutation: Sequence[int]) -> Array:
    """Permute the dimensions: output dim ``i`` is operand dim ``permutation[i]``."""
    perm = lax_ints(permutation)
    if perm == tuple(range(len(shape_of(operand)))):
        return unchanged(operand)
    return bind1(transpose_p, operand, permutation=perm)


def squeeze(array: ArrayLike, dimensions: Sequence[int]) -> Array:
    """Remove the size-1 ``dimensions`` (negative dims count from the end)."""
    ndim = len(shape_of(array))
    dims = tuple(canonicalize_axis("squeeze", d, ndim) for d in dimensions)
    if len(set(dims)) != len(dims):  # JAX's wording (lax._compute_squeeze_shape)
        loc = user_location()
        raise AxisError(f"squeeze: dimensions are not unique: {dims}{' ' + loc if loc else ''}")
    if not dims:
        return unchanged(array)
    return bind1(squeeze_p, array, dimensions=tuple(sorted(dims)))


def expand_dims(array: ArrayLike, dimensions: Sequence[int]) -> Array:
    """Insert size-1 dimensions at ``dimensions`` (positions in the result)."""
    shape = shape_of(array)
    ndim_out = len(shape) + len(dimensions)
    dims = set(canonicalize_axes("expand_dims", dimensions, ndim_out))
    new_shape = list(shape)
    for d in sorted(dims):
        new_shape.insert(d, 1)
    kept = tuple(i for i in range(ndim_out) if i not in dims)
    return broadcast_in_dim(array, new_shape, kept)


def rev(operand: ArrayLike, dimensions: Sequence[int]) -> Array:
    """Reverse the order of elements along ``dimensions``."""
    dims = canonicalize_axes("rev", dimensions, len(shape_of(operand)))
    if not dims:
        return unchanged(operand)
    return bind1(rev_p, operand, dimensions=tuple(sorted(dims)))


def concatenate(operands: Sequence[ArrayLike], dimension: int) -> Array:
    """Join ``operands`` (same shape except along ``dimension``) along ``dimension``."""
    operands = list(operands)
    if not operands:
        raise TypeError("concatenate: needs at least one operand")
    if len(operands) == 1:
        return unchanged(operands[0])
    dim = canonicalize_axis("concatenate", dimension, len(shape_of(operands[0])))
    return bind1(concatenate_p, *operands, dimension=dim)


def pad(
    operand: ArrayLike, padding_value: ArrayLike, padding_config: Sequence[tuple[int, int, int]]
) -> Array:
    """Pad with ``padding_value``; each ``(lo, hi, interior)`` may have negative lo/hi."""
    config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    return bind1(pad_p, operand, padding_value, padding_config=config)


def slice(
    operand: ArrayLike,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Array:
    """The static slice ``start_indices:limit_indices:strides`` of ``operand``."""
    stride_t = None if strides is None or all(s == 1 for s in strides) else lax_ints(strides)
    return bind1(
        slice_p,
        operand,
        start_indices=lax_ints(start_indices),
        limit_indices=lax_ints(limit_indices),
        strides=stride_t,
    )


def slice_in_dim(
    operand: ArrayLike,
    start_index: int | None,
    limit_index: int | None,
    stride: int = 1,
    axis: int = 0,
) -> Array:
    """``operand[start:limit:stride]`` along ``axis`` (Python slice semantics for the bounds)."""
    shape = shape_of(operand)
    axis = canonicalize_axis("slice_in_dim", axis, len(shape))
    start, limit, _ = builtins.slice(start_index, limit_index).indices(shape[axis])
    starts = [0] * len(shape)
    limits = list(shape)
    strides = [1] * len(shape)
    starts[axis], limits[axis], strides[axis] = start, builtins.max(start, limit), int(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand: ArrayLike, index: int, axis: int = 0, keepdims: bool = True) -> Array:
    """``operand[index]`` along ``axis`` (a static index; size-1 axis kept if ``keepdims``)."""
    shape = shape_of(operand)
    axis = canonicalize_axis("index_in_dim", axis, len(shape))
    index = int(index)
    if not -shape[axis] <= index < shape[axis]:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {shape[axis]}")
    index %= shape[axis]
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def _wrap_negative_starts(
    operand: ArrayLike, start_indices: Sequence[ArrayLike]
) -> list[ArrayLike]:
    """Start indices with negative ones counted from the end of their axis, as JAX's
    ``dynamic_slice`` / ``dynamic_update_slice`` do (statically for Python and NumPy ints, with
    a ``select_n`` for traced ones); the primitives then clamp what is still out of range."""
    shape = shape_of(operand)
    if len(start_indices) != len(shape):
        return list(start_indices)  # the typing rule reports the mismatch
    starts: list[ArrayLike] = []
    for i, d in zip(start_indices, shape, strict=True):
        if isinstance(i, int | np.integer) and not isinstance(i, bool):
            starts.append(i + d if i < 0 else i)
        else:
            starts.append(select_n(lt(i, 0), i, add(i, d)))
    return starts


def dynamic_slice(
    operand: ArrayLike, start_indices: Sequence[ArrayLike], slice_sizes: Sequence[int]
) -> Array:
    """``slice_sizes`` elements from ``start_indices`` (traced ints allowed; negative ones
    count from the end; clamped in range)."""
    starts = _wrap_negative_starts(operand, start_indices)
    return bind1(dynamic_slice_p, operand, *starts, slice_sizes=lax_ints(slice_sizes))


def dynamic_update_slice(
    operand: ArrayLike, update: ArrayLike, start_indices: Sequence[ArrayLike]
) -> Array:
    """``operand`` with ``update`` written at ``start_indices`` (traced ints allowed; negative
    ones count from the end; clamped so that the update fits)."""
    starts = _wrap_negative_starts(operand, start_indices)
    return bind1(dynamic_update_slice_p, operand, update, *starts)


def _starts_in_dim(operand: ArrayLike, index: ArrayLike, axis: int) -> list[Array]:
    starts: list[AnyArray] = [np.int64(0)] * len(shape_of(operand))
    starts[axis] = index
    return starts


def dynamic_slice_in_dim(
    operand: ArrayLike, start_index: ArrayLike, slice_size: int, axis: int = 0
) -> Array:
    """``slice_size`` elements along ``axis`` from a (possibly traced) ``start_index``."""
    shape = shape_of(operand)
    axis = canonicalize_axis("dynamic_slice_in_dim", axis, len(shape))
    sizes = list(shape)
    sizes[axis] = int(slice_size)
    return dynamic_slice(operand, _starts_in_dim(operand, start_index, axis), sizes)


def dynamic_index_in_dim(
    operand: ArrayLike, index: ArrayLike, axis: int = 0, keepdims: bool = True
) -> Array:
    """``operand[index]`` along ``axis`` for a (possibly traced) ``index``."""
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice_in_dim(
    operand: ArrayLike, update: ArrayLike, start_index: ArrayLike, axis: int
) -> Array:
    """``operand`` with ``update`` written from ``start_index`` along ``axis``."""
    axis = canonicalize_axis("dynamic_update_slice_in_dim", axis, len(shape_of(operand)))
    return dynamic_update_slice(operand, update, _starts_in_dim(operand, start_index, axis))


def dynamic_update_index_in_dim(
    operand: ArrayLike, update: ArrayLike, index: ArrayLike, axis: int
) -> Array:
    """``operand`` with ``update`` written at ``index`` along ``axis`` (``update`` may lack
    that size-1 axis)."""
    axis = canonicalize_axis("dynamic_update_index_in_dim", axis, len(shape_of(operand)))
    if len(shape_of(update)) == len(shape_of(operand)) - 1:
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)


def iota(dtype: DTypeLike | None, size: int) -> Array:
    """``[0, 1, ..., size - 1]`` as ``dtype``."""
    return bind1(iota_p, dtype=np.dtype(dtype), shape=(int(size),), dimension=0)


def broadcasted_iota(dtype: DTypeLike | None, shape: Sequence[int], dimension: int) -> Array:
    """An array of ``shape`` counting along ``dimension``."""
    shape = lax_ints(shape)
    dim = canonicalize_axis("broadcasted_iota", dimension, len(shape))
    return bind1(iota_p, dtype=np.dtype(dtype), shape=shape, dimension=dim)


def full(shape: Sequence[int], fill_value: ArrayLike, dtype: DTypeLike | None = None) -> Array:
    """An array of ``shape`` filled with the scalar ``fill_value``."""
    shape = lax_ints(shape)
    if shape_of(fill_value) != ():
        raise TypeError(f"full: fill_value must be a scalar, got shape {shape_of(fill_value)}")
    if dtype is not None:
        try:
            fill_value = convert_element_type(fill_value, dtype)
        except ValueError:
            view = view_dtype(dtype)
            if view is None:
                raise
            fill_value = fill_view(view, dtype, fill_value)  # typed keys: over filled data
    return broadcast_in_dim(fill_value, shape, ())


def full_like(
    x: ArrayLike,
    fill_value: ArrayLike,
    dtype: DTypeLike | None = None,
    shape: Sequence[int] | None = None,
) -> Array:
    """An array like ``x`` (or of ``shape``/``dtype`` if given) filled with ``fill_value``;
    weakly typed when ``x`` is and no ``dtype`` is given, as in JAX."""
    out_shape = shape_of(x) if shape is None else shape
    if dtype is None and is_weak(x):
        dt = dtype_of(x)
        if shape_of(fill_value) != ():
            raise TypeError(f"full: fill_value must be a scalar, got shape {shape_of(fill_value)}")
        fill = bind1(convert_element_type_p, fill_value, new_dtype=dt, weak_type=True)
        return broadcast_in_dim(fill, lax_ints(out_shape), ())
    return full(out_shape, fill_value, dtype_of(x) if dtype is None else dtype)


def zeros_like_array(x: ArrayLike) -> Array:
    """Zeros of ``x``'s shape and dtype."""
    return full_like(x, 0)


def fill_view(view: ArrayView, dtype: Any, value: Any) -> Any:
    """The 0-d array view of ``dtype`` whose element's data is all ``value`` (``lax.full``'s
    fill of a view dtype, as JAX's: ``jnp.zeros(3, key.dtype)`` is keys over zero data); a
    view ``value`` of ``dtype`` is itself."""
    if type(value) in array_views:
        if value.dtype != dtype:
            raise ValueError(f"Cannot convert_element_type from {value.dtype} to {dtype}")
        return value
    return view.wrap(dtype, full(view.element_shape(dtype), value, view.data_dtype(dtype)))


# --- optimization_barrier ----------------------------------------------------------------------
optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)
"""The identity on its operands, which XLA may not move computations across (JAX's
``lax.optimization_barrier``; ``stablehlo.optimization_barrier``)."""


@abstract_eval_rules.register(optimization_barrier_p)
def _optimization_barrier_avals(*avals: ShapedArray) -> list[ShapedArray]:
    return [raise_to_shaped(a) for a in avals]


@impl_rules.register(optimization_barrier_p)
def _optimization_barrier_impl(*xs: ArrayLike) -> list[Any]:
    outs = check_operands(optimization_barrier_p, xs, {})
    return [np.asarray(x, out.dtype) for x, out in zip(xs, outs, strict=True)]


def optimization_barrier(operand: Any) -> Any:
    """``operand`` (a pytree of arrays) unchanged, behind a barrier XLA's optimizations do not
    cross: what is computed before it is not moved after it, nor merged with what follows."""
    leaves, tree = tree_flatten(operand)
    return tree_unflatten(tree, bind(optimization_barrier_p, *leaves))
