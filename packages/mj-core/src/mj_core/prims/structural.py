"""Structural primitives: they move, copy or pad elements without arithmetic.

``broadcast`` (with ``broadcast_in_dim`` semantics), ``reshape``, ``transpose``, ``squeeze``,
``rev``, ``concatenate``, ``pad``, ``slice``, ``dynamic_slice``, ``dynamic_update_slice`` and
``iota``. Each has a typing rule in :data:`out_aval_rules` (params are canonical: axes are
non-negative tuples, the lax wrappers normalise user input) and a NumPy impl rule that checks
its operands with that same typing rule first.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from mj_core.avals import ShapedArray, raise_to_shaped
from mj_core.errors import AxisError
from mj_core.primitive import Primitive, impl_rules
from mj_core.prims.out_avals import check_operands, common_dtype, out_aval_rules
from mj_core.shapes import aval_error, check_permutation

__all__ = [
    "broadcast_p",
    "check_axes",
    "concatenate_p",
    "dynamic_slice_p",
    "dynamic_update_slice_p",
    "iota_p",
    "pad_p",
    "reshape_p",
    "rev_p",
    "slice_p",
    "squeeze_p",
    "transpose_p",
]


def check_axes(
    prim_name: str, axes: Sequence[int], ndim: int, avals: Sequence[ShapedArray]
) -> tuple[int, ...]:
    """Canonical (non-negative, in-range, unrepeated) primitive axis params, else ValueError."""
    out = tuple(int(a) for a in axes)
    if any(not 0 <= a < ndim for a in out) or len(set(out)) != len(out):
        shown = ", ".join(a.str_short() for a in avals)
        raise AxisError(
            f"{prim_name}: axes {out} are invalid (out of range or repeated) for operands "
            f"({shown}); primitive params take non-negative axes in [0, {ndim})."
        )
    return out


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


@out_aval_rules.register(broadcast_p)
def _broadcast_avals(
    x: ShapedArray, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> list[ShapedArray]:
    _check_shape("broadcast", shape, [x])
    dims = tuple(int(d) for d in broadcast_dimensions)
    if len(dims) != x.ndim:
        raise aval_error(
            "broadcast",
            f"broadcast_dimensions {dims} must have one entry per operand dimension",
            [x],
        )
    if any(not 0 <= d < len(shape) for d in dims) or any(a >= b for a, b in pairwise(dims)):
        raise aval_error(
            "broadcast",
            f"broadcast_dimensions {dims} must be strictly increasing and in range for the "
            f"target shape {tuple(shape)}",
            [x],
        )
    for size, d in zip(x.shape, dims, strict=True):
        if size not in (1, shape[d]):
            raise aval_error(
                "broadcast",
                f"operand dimension of size {size} cannot be broadcast to {shape[d]} (target "
                f"shape {tuple(shape)}, broadcast_dimensions {dims})",
                [x],
            )
    return [ShapedArray(tuple(int(d) for d in shape), x.dtype, x.weak_type)]


@impl_rules.register(broadcast_p)
def _broadcast_impl(
    x: Any, *, shape: tuple[int, ...], broadcast_dimensions: tuple[int, ...]
) -> list[Any]:
    (out,) = check_operands(
        broadcast_p, (x,), {"shape": shape, "broadcast_dimensions": broadcast_dimensions}
    )
    expanded = [1] * len(shape)
    for size, d in zip(np.shape(x), broadcast_dimensions, strict=True):
        expanded[d] = size
    return [np.broadcast_to(np.reshape(np.asarray(x, out.dtype), expanded), out.shape)]


# --- reshape ----------------------------------------------------------------------------------
reshape_p = Primitive("reshape")


@out_aval_rules.register(reshape_p)
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


@out_aval_rules.register(transpose_p)
def _transpose_avals(x: ShapedArray, *, permutation: tuple[int, ...]) -> list[ShapedArray]:
    perm = check_permutation("transpose", permutation, x.ndim)
    return [ShapedArray(tuple(x.shape[p] for p in perm), x.dtype, x.weak_type)]


@impl_rules.register(transpose_p)
def _transpose_impl(x: Any, *, permutation: tuple[int, ...]) -> list[Any]:
    check_operands(transpose_p, (x,), {"permutation": permutation})
    return [np.transpose(x, permutation)]


# --- squeeze ----------------------------------------------------------------------------------
squeeze_p = Primitive("squeeze")


@out_aval_rules.register(squeeze_p)
def _squeeze_avals(x: ShapedArray, *, dimensions: tuple[int, ...]) -> list[ShapedArray]:
    dims = check_axes("squeeze", dimensions, x.ndim, [x])
    if any(x.shape[d] != 1 for d in dims):
        raise aval_error("squeeze", f"dimensions {dims} must all have size 1", [x])
    shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
    return [ShapedArray(shape, x.dtype, x.weak_type)]


@impl_rules.register(squeeze_p)
def _squeeze_impl(x: Any, *, dimensions: tuple[int, ...]) -> list[Any]:
    (out,) = check_operands(squeeze_p, (x,), {"dimensions": dimensions})
    return [np.reshape(x, out.shape)]


# --- rev --------------------------------------------------------------------------------------
rev_p = Primitive("rev")


@out_aval_rules.register(rev_p)
def _rev_avals(x: ShapedArray, *, dimensions: tuple[int, ...]) -> list[ShapedArray]:
    check_axes("rev", dimensions, x.ndim, [x])
    return [raise_to_shaped(x)]


@impl_rules.register(rev_p)
def _rev_impl(x: Any, *, dimensions: tuple[int, ...]) -> list[Any]:
    check_operands(rev_p, (x,), {"dimensions": dimensions})
    return [np.flip(x, tuple(dimensions)) if dimensions else x]


# --- concatenate ------------------------------------------------------------------------------
concatenate_p = Primitive("concatenate")


@out_aval_rules.register(concatenate_p)
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
    return [np.concatenate(xs, axis=dimension).astype(out.dtype, copy=False)]


# --- pad --------------------------------------------------------------------------------------
pad_p = Primitive("pad")


@out_aval_rules.register(pad_p)
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
            raise aval_error("pad", f"interior padding must be >= 0, got {interior}", avals)
        out = lo + hi + size + max(size - 1, 0) * interior
        if out < 0:
            raise aval_error(
                "pad", f"padding {(lo, hi, interior)} gives a negative dimension size", avals
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
    place: list[slice] = []
    crop: list[slice] = []
    for size, (lo, hi, interior) in zip(np.shape(x), padding_config, strict=True):
        core = size + max(size - 1, 0) * interior
        total = max(lo, 0) + core + max(hi, 0)
        grown.append(total)
        place.append(slice(max(lo, 0), max(lo, 0) + core, interior + 1))
        crop.append(slice(max(-lo, 0), total - max(-hi, 0)))
    out = np.full(grown, padding_value, dtype=out_aval.dtype)
    out[tuple(place)] = x
    return [out[tuple(crop)]]


# --- slice ------------------------------------------------------------------------------------
slice_p = Primitive("slice")


@out_aval_rules.register(slice_p)
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
    x: Any,
    *,
    start_indices: tuple[int, ...],
    limit_indices: tuple[int, ...],
    strides: tuple[int, ...] | None,
) -> list[Any]:
    params = {"start_indices": start_indices, "limit_indices": limit_indices, "strides": strides}
    check_operands(slice_p, (x,), params)
    steps = strides or (1,) * len(start_indices)
    index = tuple(
        slice(s, e, st) for s, e, st in zip(start_indices, limit_indices, steps, strict=True)
    )
    return [np.asarray(x)[index]]


# --- dynamic_slice ----------------------------------------------------------------------------
dynamic_slice_p = Primitive("dynamic_slice")


@out_aval_rules.register(dynamic_slice_p)
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
) -> tuple[slice, ...]:
    """XLA's dynamic-slice semantics: each start is clamped so the window fits."""
    window = []
    for dim, start, size in zip(shape, starts, sizes, strict=True):
        s = min(max(int(start), 0), dim - size)
        window.append(slice(s, s + size))
    return tuple(window)


@impl_rules.register(dynamic_slice_p)
def _dynamic_slice_impl(x: Any, *start_indices: Any, slice_sizes: tuple[int, ...]) -> list[Any]:
    check_operands(dynamic_slice_p, (x, *start_indices), {"slice_sizes": slice_sizes})
    x = np.asarray(x)
    return [x[_clamped_window(x.shape, start_indices, slice_sizes)]]


# --- dynamic_update_slice ---------------------------------------------------------------------
dynamic_update_slice_p = Primitive("dynamic_update_slice")


@out_aval_rules.register(dynamic_update_slice_p)
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


@out_aval_rules.register(iota_p)
def _iota_avals(
    *, dtype: np.dtype[Any], shape: tuple[int, ...], dimension: int
) -> list[ShapedArray]:
    dt = np.dtype(dtype)
    _check_shape("iota", shape, [])
    check_axes("iota", (dimension,), len(shape), [ShapedArray(tuple(shape), dt)])
    if dt.kind not in "iufc":
        raise TypeError(f"iota: dtype must be numeric, got {dt.name}")
    return [ShapedArray(tuple(int(d) for d in shape), dt)]


@impl_rules.register(iota_p)
def _iota_impl(*, dtype: np.dtype[Any], shape: tuple[int, ...], dimension: int) -> list[Any]:
    (out,) = check_operands(iota_p, (), {"dtype": dtype, "shape": shape, "dimension": dimension})
    line = [1] * len(shape)
    line[dimension] = shape[dimension]
    return [np.broadcast_to(np.arange(shape[dimension], dtype=out.dtype).reshape(line), out.shape)]
