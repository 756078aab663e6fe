"""Dtype conversions: ``convert_element_type`` (value-preserving where possible, XLA-style
saturating float-to-int), ``bitcast_convert_type`` (reinterpret the bits) and
``reduce_precision`` (round a float to fewer exponent/mantissa bits, keeping its dtype) and
``copy`` (JAX's ``copy_p``: the same value in a new buffer, the conversion to the operand's own
type, which ``jnp.array(x)`` of a traced ``x`` stages, as JAX does).

The lax wrappers of the same names follow the rules (``convert_element_type`` returns a
strong operand of the target dtype unchanged); ``__all__`` is the family's primitives and lax
API."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from mj_core._array_views import view_dtype
from mj_core._avals import ShapedArray, array_types
from mj_core._primitive import Primitive, abstract_eval_rules, effectful_primitives, impl_rules
from mj_core._shapes import aval_error
from mj_core._typing import Array, ArrayLike
from mj_core.dtypes import canonical_dtype, dtype_of, float_info, is_float
from mj_core.prims._operands import bind, bind1, check_operands, unchanged
from mj_core.tree_util import tree_leaves

__all__ = [
    "bitcast_convert_type",
    "bitcast_convert_type_p",
    "convert_element_type",
    "convert_element_type_p",
    "copy_p",
    "dce_sink",
    "dce_sink_p",
    "reduce_precision",
    "reduce_precision_p",
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
    dtype = arr.dtype
    if dtype == new:
        return [arr]
    to, kind = new.kind, dtype.kind  # (each read once: eager conversions are common)
    if to == "b":
        return [np.not_equal(arr, 0)]
    if to in "iu":
        if kind == "c":
            arr, kind = arr.real, "f"
        if kind == "V":  # bfloat16, float8: exactly as float32
            arr, kind = arr.astype(np.float32), "f"
        if kind == "f":
            return [_float_to_int(arr, new)]
    elif kind == "c" and to != "c":
        arr = arr.real
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


# --- reduce_precision -------------------------------------------------------------------------
reduce_precision_p = Primitive("reduce_precision")


@abstract_eval_rules.register(reduce_precision_p)
def _reduce_precision_avals(
    x: ShapedArray, *, exponent_bits: int, mantissa_bits: int
) -> list[ShapedArray]:
    if exponent_bits < 1:
        raise ValueError(f"reduce_precision: exponent_bits must be positive; got {exponent_bits}")
    if mantissa_bits < 0:
        raise ValueError(
            f"reduce_precision: mantissa_bits must be non-negative; got {mantissa_bits}"
        )
    if not is_float(x.dtype):
        raise aval_error("reduce_precision", "requires a floating-point operand", [x])
    return [x]


_NATIVE_BITS: dict[np.dtype[Any], Any] = {
    np.dtype(np.float16): np.uint16,
    np.dtype(np.float32): np.uint32,
    np.dtype(np.float64): np.uint64,
}


def _reduce_precision_bits(
    x: np.ndarray[Any, Any], exponent_bits: int, mantissa_bits: int
) -> np.ndarray[Any, Any]:
    """XLA's ReducePrecision on a float16/32/64 array, on its bits: round the mantissa to
    nearest even, then overflow to a signed infinity and underflow (below the reduced
    format's smallest normal) to a signed zero; NaNs stay NaN."""
    uint = _NATIVE_BITS[x.dtype]
    info = float_info(x.dtype)
    src_m, src_e, nbits = int(info.nmant), int(info.nexp), 8 * x.dtype.itemsize
    bits = np.ascontiguousarray(x).view(uint).copy()
    one = uint(1)
    if mantissa_bits < src_m:
        shift = uint(src_m - mantissa_bits)
        last_bit_mask = one << shift
        base_bias = (last_bit_mask >> one) - one
        bias = ((bits & last_bit_mask) >> shift) + base_bias
        bits = (bits + bias) & ~(last_bit_mask - one)
    if exponent_bits < src_e:
        sign_mask = one << uint(nbits - 1)
        exp_mask = uint((1 << src_e) - 1) << uint(src_m)
        bias_src = (1 << (src_e - 1)) - 1
        bias_red = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exp_mask
        overflows = exponent > uint(bias_src + bias_red) << uint(src_m)
        underflows = exponent <= uint(bias_src - bias_red) << uint(src_m)
        signed_zero = bits & sign_mask
        bits = np.where(overflows, signed_zero | exp_mask, np.where(underflows, signed_zero, bits))
    out = np.asarray(bits, uint).view(x.dtype).reshape(x.shape)
    return np.where(np.isnan(x), x, out)


@impl_rules.register(reduce_precision_p)
def _reduce_precision_impl(x: ArrayLike, *, exponent_bits: int, mantissa_bits: int) -> list[Any]:
    params = {"exponent_bits": exponent_bits, "mantissa_bits": mantissa_bits}
    (out,) = check_operands(reduce_precision_p, (x,), params)
    arr = np.asarray(x)
    if arr.dtype in _NATIVE_BITS:
        return [_reduce_precision_bits(arr, exponent_bits, mantissa_bits)]
    # bfloat16 and the float8 types: exactly as float32, then back (every result is one of
    # the narrow dtype's values, since its exponent and mantissa are no wider than float32's)
    wide = _reduce_precision_bits(arr.astype(np.float32), exponent_bits, mantissa_bits)
    return [wide.astype(out.dtype)]


# --- copy -------------------------------------------------------------------------------------
copy_p = Primitive("copy")
"""JAX's ``copy_p``: a copy of a runtime array (its type, weak type included, unchanged). It
is never simplified out of a jaxpr (``jnp.array(x)`` of a traced ``x`` stages one, as in JAX);
linear, vectorized, and lowered to its operand."""


@abstract_eval_rules.register(copy_p)
def _copy_avals(x: ShapedArray) -> list[ShapedArray]:
    return [x]


@impl_rules.register(copy_p)
def _copy_impl(x: ArrayLike) -> list[Any]:
    return [np.array(x, copy=True)]  # (a new buffer: the operand's data is not shared)


def array_copy(x: ArrayLike) -> Array:
    """``copy_p`` of ``x`` (JAX's ``lax._array_copy``; not lax API)."""
    return bind1(copy_p, x)


# --- dce_sink ---------------------------------------------------------------------------------
dce_sink_p = Primitive("dce_sink", multiple_results=True)
"""JAX's ``dce_sink_p``: marks its operand as used, so dead-code elimination keeps what
computes it. No outputs; its effect (:data:`~mj_core._primitive.effectful_primitives`, JAX's
``NoDCEEffect``) keeps the equation itself. Param ``prevent_mlir_dce``: lowered to a
side-effecting ``dce_sink`` custom call, so XLA keeps the computation too (else nothing)."""
effectful_primitives.add(dce_sink_p)


@abstract_eval_rules.register(dce_sink_p)
def _dce_sink_avals(x: ShapedArray, *, prevent_mlir_dce: bool) -> list[ShapedArray]:
    return []


@impl_rules.register(dce_sink_p)
def _dce_sink_impl(x: ArrayLike, *, prevent_mlir_dce: bool) -> list[Any]:
    return []


def dce_sink(val: Any, *, prevent_mlir_dce: bool = False) -> None:
    """Mark every leaf of the pytree ``val`` as used (``jax.lax.dce_sink``): the computation
    producing it is not dead-code eliminated from jaxprs; with ``prevent_mlir_dce`` not by XLA
    either."""
    for leaf in tree_leaves(val):
        bind(dce_sink_p, leaf, prevent_mlir_dce=bool(prevent_mlir_dce))


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
    if old == new and not is_weak(operand):
        return unchanged(operand)
    return bind1(convert_element_type_p, operand, new_dtype=new, weak_type=False)


def is_weak(x: ArrayLike) -> bool:
    """Whether ``x`` is weakly typed (a Python scalar, or a weak array or tracer)."""
    if type(x) in (int, float, complex):
        return True
    if type(x) in array_types:  # (without building their ``aval``)
        return getattr(x, "weak_type", False) is True
    aval = getattr(x, "aval", None)
    if aval is not None:
        return bool(aval.weak_type)
    return getattr(x, "weak_type", False) is True


def reduce_precision(operand: ArrayLike, exponent_bits: int, mantissa_bits: int) -> Array:
    """XLA's ReducePrecision: round ``operand`` to a float format with ``exponent_bits``
    exponent and ``mantissa_bits`` mantissa bits; the result keeps ``operand``'s dtype."""
    return bind1(
        reduce_precision_p,
        operand,
        exponent_bits=operator.index(exponent_bits),
        mantissa_bits=operator.index(mantissa_bits),
    )


def bitcast_convert_type(operand: ArrayLike, new_dtype: Any) -> Array:
    """Reinterpret the bits of ``operand`` as ``new_dtype``: a narrower dtype adds a last axis,
    a wider one consumes it."""
    return bind1(bitcast_convert_type_p, operand, new_dtype=np.dtype(new_dtype))
