"""Dtype conversions: ``convert_element_type`` (value-preserving where possible, XLA-style
saturating float-to-int) and ``bitcast_convert_type`` (reinterpret the bits).

The lax wrappers of the same names follow the rules (``convert_element_type`` returns a
strong operand of the target dtype unchanged); ``__all__`` is the family's primitives and lax
API."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core._array_views import view_dtype
from mj_core._avals import ShapedArray, array_types
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error
from mj_core._typing import Array, ArrayLike
from mj_core.dtypes import canonical_dtype, dtype_of
from mj_core.prims._operands import bind1, check_operands, unchanged

__all__ = [
    "bitcast_convert_type",
    "bitcast_convert_type_p",
    "convert_element_type",
    "convert_element_type_p",
]

# --- convert_element_type ---------------------------------------------------------------------
convert_element_type_p = Primitive("convert_element_type")


@abstract_eval_rules.register(convert_element_type_p)
def _convert_element_type_avals(
    x: ShapedArray, *, new_dtype: np.dtype[Any], weak_type: bool
) -> list[ShapedArray]:
    return [ShapedArray(x.shape, np.dtype(new_dtype), bool(weak_type))]


def _float_to_int(x: np.ndarray[Any, Any], dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """Like XLA: NaN becomes 0 and out-of-range values saturate at the integer limits."""
    info = np.iinfo(dtype)
    lo, hi = float(info.min), float(info.max)
    safe = np.where(np.isnan(x), 0, np.clip(x, lo, hi))
    with np.errstate(invalid="ignore", over="ignore"):
        out = safe.astype(dtype)
    return np.where(x >= hi, info.max, out).astype(dtype, copy=False)


@impl_rules.register(convert_element_type_p)
def _convert_element_type_impl(
    x: ArrayLike, *, new_dtype: np.dtype[Any], weak_type: bool
) -> list[Any]:
    new = np.dtype(new_dtype)
    arr = np.asarray(x)
    if arr.dtype == new:
        return [arr]
    if new.kind == "b":
        return [np.not_equal(arr, 0)]
    if arr.dtype.kind == "c" and new.kind != "c":
        arr = arr.real
    if arr.dtype.kind == "V" and new.kind in "iu":  # bfloat16, float8: exactly as float32
        arr = arr.astype(np.float32)
    if arr.dtype.kind == "f" and new.kind in "iu":
        return [_float_to_int(arr, new)]
    return [arr.astype(new)]


# --- bitcast_convert_type ---------------------------------------------------------------------
bitcast_convert_type_p = Primitive("bitcast_convert_type")


@abstract_eval_rules.register(bitcast_convert_type_p)
def _bitcast_convert_type_avals(x: ShapedArray, *, new_dtype: np.dtype[Any]) -> list[ShapedArray]:
    new = np.dtype(new_dtype)
    old_size, new_size = x.dtype.itemsize, new.itemsize
    if old_size == new_size:
        return [ShapedArray(x.shape, new)]
    if old_size > new_size:
        return [ShapedArray((*x.shape, old_size // new_size), new)]
    ratio = new_size // old_size
    if not x.shape or x.shape[-1] != ratio:
        raise aval_error(
            "bitcast_convert_type",
            f"converting to the wider {new.name} needs a last dimension of size {ratio}",
            [x],
        )
    return [ShapedArray(x.shape[:-1], new)]


@impl_rules.register(bitcast_convert_type_p)
def _bitcast_convert_type_impl(x: ArrayLike, *, new_dtype: np.dtype[Any]) -> list[Any]:
    (out,) = check_operands(bitcast_convert_type_p, (x,), {"new_dtype": new_dtype})
    # the operand as mj holds it (a NumPy float64 array is float32 without x64); 0-d arrays
    # cannot change itemsize in place
    flat = np.ascontiguousarray(x, canonical_dtype(dtype_of(x))).reshape(-1)
    return [np.reshape(flat.view(out.dtype), out.shape)]


# --- lax wrappers ----------------------------------------------------------------------------
def convert_element_type(operand: ArrayLike, new_dtype: Any) -> Array:
    """Convert to ``new_dtype`` (a strong type; complex to real keeps the real part)."""
    try:
        new = np.dtype(new_dtype)
        old = dtype_of(operand)
    except TypeError:  # a view dtype (typed keys) on either side: to itself only
        given: Any = getattr(operand, "dtype", None)
        to_view, from_view = view_dtype(new_dtype) is not None, view_dtype(given) is not None
        if not (to_view or from_view):
            raise
        if given == new_dtype:
            return operand  # type: ignore[return-value]
        src = given if from_view else dtype_of(operand)
        dst = new_dtype if to_view else canonical_dtype(new_dtype)
        raise ValueError(f"Cannot convert_element_type from {src} to {dst}") from None
    if old == new and not _is_weak(operand):
        return unchanged(operand)
    return bind1(convert_element_type_p, operand, new_dtype=new, weak_type=False)


def _is_weak(x: ArrayLike) -> bool:
    if type(x) in (int, float, complex):
        return True
    if type(x) in array_types:  # (without building their ``aval``)
        return getattr(x, "weak_type", False) is True
    aval = getattr(x, "aval", None)
    if aval is not None:
        return bool(aval.weak_type)
    return getattr(x, "weak_type", False) is True


def bitcast_convert_type(operand: ArrayLike, new_dtype: Any) -> Array:
    """Reinterpret the bits of ``operand`` as ``new_dtype``: a narrower dtype adds a last axis,
    a wider one consumes it."""
    return bind1(bitcast_convert_type_p, operand, new_dtype=np.dtype(new_dtype))
