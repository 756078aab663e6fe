"""lax-style wrappers: one thin function per primitive, ``bind`` underneath.

These are the operations transformations see. They follow ``jax.lax`` names and signatures
(array operands positional, metadata as keywords), except that elementwise operations
broadcast and promote like NumPy (see :mod:`mj_core.prims.elementwise`).
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from mj_core.convolution import ConvDimensionNumbers as ConvDimensionNumbers
from mj_core.convolution import conv as conv
from mj_core.convolution import conv_dimension_numbers as conv_dimension_numbers
from mj_core.convolution import conv_general_dilated as conv_general_dilated
from mj_core.convolution import conv_transpose as conv_transpose
from mj_core.convolution import conv_with_general_padding as conv_with_general_padding
from mj_core.convolution import padtype_to_pads as padtype_to_pads
from mj_core.precision import Precision as Precision
from mj_core.precision import canonicalize_precision
from mj_core.primitive import Primitive
from mj_core.prims import complex as cx
from mj_core.prims import contractions as ct
from mj_core.prims import conversions as cv
from mj_core.prims import elementwise as ew
from mj_core.prims import fft as ff
from mj_core.prims import indexing as ix
from mj_core.prims import reductions as rd
from mj_core.prims import sorting as so
from mj_core.prims import structural as st
from mj_core.prims.indexing import GatherDimensionNumbers as GatherDimensionNumbers
from mj_core.prims.indexing import ScatterDimensionNumbers as ScatterDimensionNumbers
from mj_core.shapes import canonicalize_axes, canonicalize_axis, int_tuple, shape_of
from mj_core.trace import bind, bind1, binds
from mj_core.window_shapes import conv_general_shape_tuple as conv_general_shape_tuple
from mj_core.window_shapes import conv_shape_tuple as conv_shape_tuple
from mj_core.window_shapes import conv_transpose_shape_tuple as conv_transpose_shape_tuple
from mj_core.window_shapes import reduce_window_shape_tuple as reduce_window_shape_tuple

Array = Any

__all__ = [
    "ConvDimensionNumbers",
    "GatherDimensionNumbers",
    "Precision",
    "ScatterDimensionNumbers",
    "abs",
    "acos",
    "add",
    "argmax",
    "argmin",
    "asin",
    "atan",
    "atan2",
    "bitcast_convert_type",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "broadcast",
    "broadcast_in_dim",
    "broadcast_to_rank",
    "broadcasted_iota",
    "ceil",
    "clamp",
    "complex",
    "concatenate",
    "conj",
    "conv",
    "conv_dimension_numbers",
    "conv_general_dilated",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose",
    "conv_transpose_shape_tuple",
    "conv_with_general_padding",
    "convert_element_type",
    "cos",
    "cosh",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "div",
    "dot",
    "dot_general",
    "dynamic_index_in_dim",
    "dynamic_slice",
    "dynamic_slice_in_dim",
    "dynamic_update_index_in_dim",
    "dynamic_update_slice",
    "dynamic_update_slice_in_dim",
    "eq",
    "erf",
    "exp",
    "expand_dims",
    "expm1",
    "fft",
    "floor",
    "full",
    "full_like",
    "gather",
    "ge",
    "greater",
    "greater_equal",
    "gt",
    "imag",
    "index_in_dim",
    "integer_pow",
    "iota",
    "is_finite",
    "le",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logistic",
    "lt",
    "max",
    "min",
    "mul",
    "ne",
    "neg",
    "pad",
    "padtype_to_pads",
    "pow",
    "real",
    "reduce_and",
    "reduce_max",
    "reduce_min",
    "reduce_or",
    "reduce_prod",
    "reduce_sum",
    "reduce_window_shape_tuple",
    "rem",
    "reshape",
    "rev",
    "round",
    "rsqrt",
    "scatter",
    "scatter_add",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "select",
    "select_n",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "sign",
    "sin",
    "sinh",
    "slice",
    "slice_in_dim",
    "sort",
    "sort_key_val",
    "sqrt",
    "squeeze",
    "sub",
    "tan",
    "tanh",
    "transpose",
    "zeros_like_array",
]


@binds(ew.neg_p)
def neg(x: Array) -> Array:
    """Elementwise negation: ``-x``."""


@binds(ew.sin_p)
def sin(x: Array) -> Array:
    """Elementwise sine."""


@binds(ew.cos_p)
def cos(x: Array) -> Array:
    """Elementwise cosine."""


@binds(ew.tan_p)
def tan(x: Array) -> Array:
    """Elementwise tangent."""


@binds(ew.asin_p)
def asin(x: Array) -> Array:
    """Elementwise arc sine."""


@binds(ew.acos_p)
def acos(x: Array) -> Array:
    """Elementwise arc cosine."""


@binds(ew.atan_p)
def atan(x: Array) -> Array:
    """Elementwise arc tangent."""


@binds(ew.sinh_p)
def sinh(x: Array) -> Array:
    """Elementwise hyperbolic sine."""


@binds(ew.cosh_p)
def cosh(x: Array) -> Array:
    """Elementwise hyperbolic cosine."""


@binds(ew.tanh_p)
def tanh(x: Array) -> Array:
    """Elementwise hyperbolic tangent."""


@binds(ew.exp_p)
def exp(x: Array) -> Array:
    """Elementwise exponential: ``e ** x``."""


@binds(ew.log_p)
def log(x: Array) -> Array:
    """Elementwise natural logarithm."""


@binds(ew.log1p_p)
def log1p(x: Array) -> Array:
    """Elementwise ``log(1 + x)``, accurate for small ``x``."""


@binds(ew.expm1_p)
def expm1(x: Array) -> Array:
    """Elementwise ``exp(x) - 1``, accurate for small ``x``."""


@binds(ew.logistic_p)
def logistic(x: Array) -> Array:
    """Elementwise logistic sigmoid: ``1 / (1 + exp(-x))``."""


@binds(ew.sqrt_p)
def sqrt(x: Array) -> Array:
    """Elementwise square root."""


@binds(ew.rsqrt_p)
def rsqrt(x: Array) -> Array:
    """Elementwise reciprocal square root: ``1 / sqrt(x)``."""


@binds(ew.abs_p)
def abs(x: Array) -> Array:
    """Elementwise absolute value (real for complex ``x``)."""


@binds(ew.sign_p)
def sign(x: Array) -> Array:
    """Elementwise sign: -1, 0 or 1 (``x / abs(x)`` for complex)."""


@binds(ew.floor_p)
def floor(x: Array) -> Array:
    """Elementwise floor."""


@binds(ew.ceil_p)
def ceil(x: Array) -> Array:
    """Elementwise ceiling."""


@binds(ew.is_finite_p)
def is_finite(x: Array) -> Array:
    """Elementwise test for finite values (neither inf nor NaN)."""


@binds(ew.erf_p)
def erf(x: Array) -> Array:
    """Elementwise error function."""


@binds(ew.not_p)
def bitwise_not(x: Array) -> Array:
    """Elementwise bitwise NOT (logical NOT for bool)."""


def round(x: Array, rounding_method: int = 0) -> Array:
    """Round to integral values; ``rounding_method`` 0 rounds half away from zero (lax's
    default), 1 rounds half to even (NumPy's)."""
    return bind1(ew.round_p, x, rounding_method=int(rounding_method))


def integer_pow(x: Array, y: int) -> Array:
    """Elementwise ``x ** y`` for a static Python int ``y``."""
    return bind1(ew.integer_pow_p, x, y=int(y))


@binds(ew.add_p)
def add(x: Array, y: Array) -> Array:
    """Elementwise ``x + y`` (operands broadcast and promote like NumPy)."""


@binds(ew.sub_p)
def sub(x: Array, y: Array) -> Array:
    """Elementwise ``x - y``."""


@binds(ew.mul_p)
def mul(x: Array, y: Array) -> Array:
    """Elementwise ``x * y``."""


@binds(ew.div_p)
def div(x: Array, y: Array) -> Array:
    """Elementwise ``x / y``; integer division truncates toward zero (lax semantics)."""


@binds(ew.rem_p)
def rem(x: Array, y: Array) -> Array:
    """Elementwise remainder with the sign of ``x`` (C ``fmod``)."""


@binds(ew.pow_p)
def pow(x: Array, y: Array) -> Array:
    """Elementwise ``x ** y``."""


@binds(ew.max_p)
def max(x: Array, y: Array) -> Array:
    """Elementwise maximum (NaN-propagating)."""


@binds(ew.min_p)
def min(x: Array, y: Array) -> Array:
    """Elementwise minimum (NaN-propagating)."""


@binds(ew.atan2_p)
def atan2(x: Array, y: Array) -> Array:
    """Elementwise arc tangent of ``x / y`` using the signs of both to pick the quadrant."""


@binds(ew.shift_left_p)
def shift_left(x: Array, y: Array) -> Array:
    """Elementwise ``x << y``."""


@binds(ew.shift_right_logical_p)
def shift_right_logical(x: Array, y: Array) -> Array:
    """Elementwise logical (zero-filling) right shift."""


@binds(ew.shift_right_arithmetic_p)
def shift_right_arithmetic(x: Array, y: Array) -> Array:
    """Elementwise arithmetic (sign-extending) right shift."""


@binds(ew.eq_p)
def eq(x: Array, y: Array) -> Array:
    """Elementwise ``x == y``."""


@binds(ew.ne_p)
def ne(x: Array, y: Array) -> Array:
    """Elementwise ``x != y``."""


@binds(ew.less_p)
def less(x: Array, y: Array) -> Array:
    """Elementwise ``x < y``."""


@binds(ew.less_equal_p)
def less_equal(x: Array, y: Array) -> Array:
    """Elementwise ``x <= y``."""


@binds(ew.greater_p)
def greater(x: Array, y: Array) -> Array:
    """Elementwise ``x > y``."""


@binds(ew.greater_equal_p)
def greater_equal(x: Array, y: Array) -> Array:
    """Elementwise ``x >= y``."""


@binds(ew.and_p)
def bitwise_and(x: Array, y: Array) -> Array:
    """Elementwise bitwise AND (logical AND for bool)."""


@binds(ew.or_p)
def bitwise_or(x: Array, y: Array) -> Array:
    """Elementwise bitwise OR (logical OR for bool)."""


@binds(ew.xor_p)
def bitwise_xor(x: Array, y: Array) -> Array:
    """Elementwise bitwise XOR (logical XOR for bool)."""


# jax.lax spellings
lt = less
le = less_equal
gt = greater
ge = greater_equal


def select_n(which: Array, *cases: Array) -> Array:
    """``cases[which]`` elementwise; a bool ``which`` picks ``cases[1]`` where True."""
    return bind1(ew.select_n_p, which, *cases)


def select(pred: Array, on_true: Array, on_false: Array) -> Array:
    """``on_true`` where ``pred`` is True, else ``on_false`` (elementwise)."""
    return bind1(ew.select_n_p, pred, on_false, on_true)


def clamp(min: Array, x: Array, max: Array) -> Array:
    """Elementwise ``x`` clipped into ``[min, max]``."""
    return bind1(ew.clamp_p, min, x, max)


# --- helpers: dtypes of operands without touching their data ---------------------------------
def _dtype(x: Array) -> np.dtype[Any]:
    dtype = getattr(x, "dtype", None)
    return np.result_type(x) if dtype is None else np.dtype(dtype)


def _ints(xs: Sequence[int]) -> tuple[int, ...]:
    return int_tuple("mj.lax", "a shape or dimensions parameter", xs)


# --- structure ------------------------------------------------------------------------------
def broadcast_in_dim(
    operand: Array, shape: Sequence[int], broadcast_dimensions: Sequence[int]
) -> Array:
    """Broadcast ``operand`` to ``shape``; operand dim ``i`` becomes output dim
    ``broadcast_dimensions[i]`` (size 1 or equal); the other output dims are new."""
    shape, dims = _ints(shape), _ints(broadcast_dimensions)
    if shape_of(operand) == shape and dims == tuple(range(len(shape))):
        return operand
    return bind1(st.broadcast_p, operand, shape=shape, broadcast_dimensions=dims)


def broadcast(operand: Array, sizes: Sequence[int]) -> Array:
    """Add leading dimensions of ``sizes`` (``jax.lax.broadcast``)."""
    sizes = _ints(sizes)
    ndim = len(shape_of(operand))
    shape = sizes + shape_of(operand)
    return broadcast_in_dim(operand, shape, tuple(range(len(sizes), len(sizes) + ndim)))


def broadcast_to_rank(x: Array, rank: int) -> Array:
    """Add leading size-1 dimensions until ``x`` has rank ``rank``."""
    shape = shape_of(x)
    return broadcast(x, (1,) * (rank - len(shape))) if len(shape) < rank else x


def reshape(
    operand: Array, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None
) -> Array:
    """Reshape (row-major); ``dimensions`` first transposes the operand, as in ``jax.lax``."""
    new_sizes = _ints(new_sizes)
    if dimensions is not None and _ints(dimensions) != tuple(range(len(shape_of(operand)))):
        operand = transpose(operand, dimensions)
    if shape_of(operand) == new_sizes:
        return operand
    return bind1(st.reshape_p, operand, new_sizes=new_sizes)


def transpose(operand: Array, permutation: Sequence[int]) -> Array:
    """Permute the dimensions: output dim ``i`` is operand dim ``permutation[i]``."""
    perm = _ints(permutation)
    if perm == tuple(range(len(shape_of(operand)))):
        return operand
    return bind1(st.transpose_p, operand, permutation=perm)


def squeeze(array: Array, dimensions: Sequence[int]) -> Array:
    """Remove the size-1 ``dimensions`` (negative dims count from the end)."""
    dims = canonicalize_axes("squeeze", dimensions, len(shape_of(array)))
    if not dims:
        return array
    return bind1(st.squeeze_p, array, dimensions=tuple(sorted(dims)))


def expand_dims(array: Array, dimensions: Sequence[int]) -> Array:
    """Insert size-1 dimensions at ``dimensions`` (positions in the result)."""
    shape = shape_of(array)
    ndim_out = len(shape) + len(dimensions)
    dims = set(canonicalize_axes("expand_dims", dimensions, ndim_out))
    new_shape = list(shape)
    for d in sorted(dims):
        new_shape.insert(d, 1)
    kept = tuple(i for i in range(ndim_out) if i not in dims)
    return broadcast_in_dim(array, new_shape, kept)


def rev(operand: Array, dimensions: Sequence[int]) -> Array:
    """Reverse the order of elements along ``dimensions``."""
    dims = canonicalize_axes("rev", dimensions, len(shape_of(operand)))
    if not dims:
        return operand
    return bind1(st.rev_p, operand, dimensions=tuple(sorted(dims)))


def concatenate(operands: Sequence[Array], dimension: int) -> Array:
    """Join ``operands`` (same shape except along ``dimension``) along ``dimension``."""
    operands = list(operands)
    if not operands:
        raise TypeError("concatenate: needs at least one operand")
    if len(operands) == 1:
        return operands[0]
    dim = canonicalize_axis("concatenate", dimension, len(shape_of(operands[0])))
    return bind1(st.concatenate_p, *operands, dimension=dim)


def pad(
    operand: Array, padding_value: Array, padding_config: Sequence[tuple[int, int, int]]
) -> Array:
    """Pad with ``padding_value``; each ``(lo, hi, interior)`` may have negative lo/hi."""
    config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in padding_config)
    return bind1(st.pad_p, operand, padding_value, padding_config=config)


def slice(
    operand: Array,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> Array:
    """The static slice ``start_indices:limit_indices:strides`` of ``operand``."""
    stride_t = None if strides is None or all(s == 1 for s in strides) else _ints(strides)
    return bind1(
        st.slice_p,
        operand,
        start_indices=_ints(start_indices),
        limit_indices=_ints(limit_indices),
        strides=stride_t,
    )


def slice_in_dim(
    operand: Array, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0
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


def index_in_dim(operand: Array, index: int, axis: int = 0, keepdims: bool = True) -> Array:
    """``operand[index]`` along ``axis`` (a static index; size-1 axis kept if ``keepdims``)."""
    shape = shape_of(operand)
    axis = canonicalize_axis("index_in_dim", axis, len(shape))
    index = int(index)
    if not -shape[axis] <= index < shape[axis]:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {shape[axis]}")
    index %= shape[axis]
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_slice(
    operand: Array, start_indices: Sequence[Array], slice_sizes: Sequence[int]
) -> Array:
    """``slice_sizes`` elements from ``start_indices`` (traced ints allowed; clamped in range)."""
    return bind1(st.dynamic_slice_p, operand, *start_indices, slice_sizes=_ints(slice_sizes))


def dynamic_update_slice(operand: Array, update: Array, start_indices: Sequence[Array]) -> Array:
    """``operand`` with ``update`` written at ``start_indices`` (traced ints allowed; clamped
    so that the update fits)."""
    return bind1(st.dynamic_update_slice_p, operand, update, *start_indices)


def _starts_in_dim(operand: Array, index: Array, axis: int) -> list[Array]:
    starts: list[Array] = [np.int64(0)] * len(shape_of(operand))
    starts[axis] = index
    return starts


def dynamic_slice_in_dim(
    operand: Array, start_index: Array, slice_size: int, axis: int = 0
) -> Array:
    """``slice_size`` elements along ``axis`` from a (possibly traced) ``start_index``."""
    shape = shape_of(operand)
    axis = canonicalize_axis("dynamic_slice_in_dim", axis, len(shape))
    sizes = list(shape)
    sizes[axis] = int(slice_size)
    return dynamic_slice(operand, _starts_in_dim(operand, start_index, axis), sizes)


def dynamic_index_in_dim(
    operand: Array, index: Array, axis: int = 0, keepdims: bool = True
) -> Array:
    """``operand[index]`` along ``axis`` for a (possibly traced) ``index``."""
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


def dynamic_update_slice_in_dim(
    operand: Array, update: Array, start_index: Array, axis: int
) -> Array:
    """``operand`` with ``update`` written from ``start_index`` along ``axis``."""
    axis = canonicalize_axis("dynamic_update_slice_in_dim", axis, len(shape_of(operand)))
    return dynamic_update_slice(operand, update, _starts_in_dim(operand, start_index, axis))


def dynamic_update_index_in_dim(operand: Array, update: Array, index: Array, axis: int) -> Array:
    """``operand`` with ``update`` written at ``index`` along ``axis`` (``update`` may lack
    that size-1 axis)."""
    axis = canonicalize_axis("dynamic_update_index_in_dim", axis, len(shape_of(operand)))
    if len(shape_of(update)) == len(shape_of(operand)) - 1:
        update = expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis)


# --- gather / scatter -------------------------------------------------------------------------
def _mode(mode: Any) -> str:
    """``jax.lax`` modes: None (the default), ``"fill"`` and ``"drop"`` mean fill-or-drop."""
    name = getattr(mode, "name", mode)
    if name is None or str(name).lower() in ("fill", "drop", "fill_or_drop"):
        return "fill"
    name = str(name).lower()
    if name not in ("clip", "promise_in_bounds"):
        raise ValueError(f"Unknown gather/scatter mode {mode!r}: use 'clip', 'fill' or 'drop'")
    return name


def _gather_dnums(dn: GatherDimensionNumbers) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(*(_ints(d) for d in dn))


def _scatter_dnums(dn: ScatterDimensionNumbers) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(*(_ints(d) for d in dn))


def gather(
    operand: Array,
    start_indices: Array,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: Any = None,
    fill_value: Any = None,
) -> Array:
    """XLA gather (``jax.lax.gather``); the index vector is the last dim of ``start_indices``."""
    return bind1(
        ix.gather_p,
        operand,
        start_indices,
        dimension_numbers=_gather_dnums(dimension_numbers),
        slice_sizes=_ints(slice_sizes),
        mode=_mode(mode),
        fill_value=fill_value,
    )


class _ScatterFn(Protocol):
    """The signature shared by the ``scatter*`` wrappers (``jax.lax.scatter_add`` & co)."""

    def __call__(
        self,
        operand: Array,
        scatter_indices: Array,
        updates: Array,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
    ) -> Array: ...


def _scatter_wrapper(prim: Primitive, doc: str) -> _ScatterFn:
    """The lax wrapper of one scatter-family primitive: they differ only in how an update
    combines with the operand."""

    def wrapper(
        operand: Array,
        scatter_indices: Array,
        updates: Array,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
    ) -> Array:
        return bind1(
            prim,
            operand,
            scatter_indices,
            updates,
            dimension_numbers=_scatter_dnums(dimension_numbers),
            indices_are_sorted=bool(indices_are_sorted),
            unique_indices=bool(unique_indices),
            mode=_mode(mode),
        )

    wrapper.__name__ = wrapper.__qualname__ = prim.name
    wrapper.__doc__ = doc
    return wrapper


scatter = _scatter_wrapper(
    ix.scatter_p, "XLA scatter that overwrites (with repeated indices, one update wins)."
)
scatter_add = _scatter_wrapper(
    ix.scatter_add_p, "XLA scatter that adds (updates at repeated indices accumulate)."
)
scatter_mul = _scatter_wrapper(
    ix.scatter_mul_p, "XLA scatter that multiplies (updates at repeated indices accumulate)."
)
scatter_min = _scatter_wrapper(
    ix.scatter_min_p, "XLA scatter that keeps the minimum of the operand and the updates."
)
scatter_max = _scatter_wrapper(
    ix.scatter_max_p, "XLA scatter that keeps the maximum of the operand and the updates."
)


# --- creation and conversion ----------------------------------------------------------------
def iota(dtype: Any, size: int) -> Array:
    """``[0, 1, ..., size - 1]`` as ``dtype``."""
    return bind1(st.iota_p, dtype=np.dtype(dtype), shape=(int(size),), dimension=0)


def broadcasted_iota(dtype: Any, shape: Sequence[int], dimension: int) -> Array:
    """An array of ``shape`` counting along ``dimension``."""
    shape = _ints(shape)
    dim = canonicalize_axis("broadcasted_iota", dimension, len(shape))
    return bind1(st.iota_p, dtype=np.dtype(dtype), shape=shape, dimension=dim)


def convert_element_type(operand: Array, new_dtype: Any) -> Array:
    """Convert to ``new_dtype`` (a strong type; complex to real keeps the real part)."""
    new = np.dtype(new_dtype)
    if _dtype(operand) == new and not _is_weak(operand):
        return operand
    return bind1(cv.convert_element_type_p, operand, new_dtype=new, weak_type=False)


def _is_weak(x: Array) -> bool:
    aval = getattr(x, "aval", None)
    if aval is not None:
        return bool(aval.weak_type)
    return type(x) in (int, float, builtins.complex)


def bitcast_convert_type(operand: Array, new_dtype: Any) -> Array:
    """Reinterpret the bits of ``operand`` as ``new_dtype``: a narrower dtype adds a last axis,
    a wider one consumes it."""
    return bind1(cv.bitcast_convert_type_p, operand, new_dtype=np.dtype(new_dtype))


def full(shape: Sequence[int], fill_value: Array, dtype: Any = None) -> Array:
    """An array of ``shape`` filled with the scalar ``fill_value``."""
    shape = _ints(shape)
    if shape_of(fill_value) != ():
        raise TypeError(f"full: fill_value must be a scalar, got shape {shape_of(fill_value)}")
    if dtype is not None:
        fill_value = convert_element_type(fill_value, dtype)
    return broadcast_in_dim(fill_value, shape, ())


def full_like(
    x: Array, fill_value: Array, dtype: Any = None, shape: Sequence[int] | None = None
) -> Array:
    """An array like ``x`` (or of ``shape``/``dtype`` if given) filled with ``fill_value``."""
    return full(
        shape_of(x) if shape is None else shape, fill_value, _dtype(x) if dtype is None else dtype
    )


def zeros_like_array(x: Array) -> Array:
    """Zeros of ``x``'s shape and dtype."""
    return full_like(x, 0)


# --- reductions -----------------------------------------------------------------------------
def _reduce(prim: Any, operand: Array, axes: Sequence[int]) -> Array:
    dims = canonicalize_axes(prim.name, axes, len(shape_of(operand)))
    return bind1(prim, operand, axes=tuple(sorted(dims)))


def reduce_sum(operand: Array, axes: Sequence[int]) -> Array:
    """Sum over ``axes``."""
    return _reduce(rd.reduce_sum_p, operand, axes)


def reduce_prod(operand: Array, axes: Sequence[int]) -> Array:
    """Product over ``axes``."""
    return _reduce(rd.reduce_prod_p, operand, axes)


def reduce_max(operand: Array, axes: Sequence[int]) -> Array:
    """Maximum over ``axes``."""
    return _reduce(rd.reduce_max_p, operand, axes)


def reduce_min(operand: Array, axes: Sequence[int]) -> Array:
    """Minimum over ``axes``."""
    return _reduce(rd.reduce_min_p, operand, axes)


def reduce_and(operand: Array, axes: Sequence[int]) -> Array:
    """Logical/bitwise AND over ``axes``."""
    return _reduce(rd.reduce_and_p, operand, axes)


def reduce_or(operand: Array, axes: Sequence[int]) -> Array:
    """Logical/bitwise OR over ``axes``."""
    return _reduce(rd.reduce_or_p, operand, axes)


def argmax(operand: Array, axis: int, index_dtype: Any) -> Array:
    """Index of the first maximum along ``axis`` (NaN counts as the maximum)."""
    axis = canonicalize_axis("argmax", axis, len(shape_of(operand)))
    return bind1(rd.argmax_p, operand, axes=(axis,), index_dtype=np.dtype(index_dtype))


def argmin(operand: Array, axis: int, index_dtype: Any) -> Array:
    """Index of the first minimum along ``axis`` (NaN counts as the minimum)."""
    axis = canonicalize_axis("argmin", axis, len(shape_of(operand)))
    return bind1(rd.argmin_p, operand, axes=(axis,), index_dtype=np.dtype(index_dtype))


def _cumulative(prim: Any, operand: Array, axis: int, reverse: bool) -> Array:
    axis = canonicalize_axis(prim.name, axis, len(shape_of(operand)))
    return bind1(prim, operand, axis=axis, reverse=bool(reverse))


def cumsum(operand: Array, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative sum along ``axis`` (from the end if ``reverse``)."""
    return _cumulative(rd.cumsum_p, operand, axis, reverse)


def cumprod(operand: Array, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative product along ``axis`` (from the end if ``reverse``)."""
    return _cumulative(rd.cumprod_p, operand, axis, reverse)


def cummax(operand: Array, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative maximum along ``axis`` (from the end if ``reverse``)."""
    return _cumulative(rd.cummax_p, operand, axis, reverse)


def cummin(operand: Array, axis: int = 0, reverse: bool = False) -> Array:
    """Cumulative minimum along ``axis`` (from the end if ``reverse``)."""
    return _cumulative(rd.cummin_p, operand, axis, reverse)


# --- sorting --------------------------------------------------------------------------------
def sort(
    operand: Array | Sequence[Array],
    dimension: int = -1,
    is_stable: bool = True,
    num_keys: int = 1,
) -> Array:
    """Sort one array, or a tuple/list of arrays by their first ``num_keys`` (returned as a
    tuple)."""
    single = not isinstance(operand, tuple | list)
    operands = [operand] if single else list(operand)
    dim = canonicalize_axis("sort", dimension, len(shape_of(operands[0])))
    outs = bind(
        so.sort_p, *operands, dimension=dim, is_stable=bool(is_stable), num_keys=int(num_keys)
    )
    return outs[0] if single else tuple(outs)


def sort_key_val(
    keys: Array, values: Array, dimension: int = -1, is_stable: bool = True
) -> tuple[Array, Array]:
    """Sort ``keys`` along ``dimension`` and permute ``values`` the same way."""
    out = sort((keys, values), dimension, is_stable, 1)
    return out[0], out[1]


# --- contractions ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=512)
def _canonical_dot_dims(dimension_numbers: Any, lhs_nd: int, rhs_nd: int) -> Any:
    """``dimension_numbers`` with every axis a non-negative int (cached: eager loops and
    traces repeat the same few contractions; errors are raised, never cached)."""
    (lc, rc), (lb, rb) = dimension_numbers
    return (
        (
            canonicalize_axes("dot_general", lc, lhs_nd),
            canonicalize_axes("dot_general", rc, rhs_nd),
        ),
        (
            canonicalize_axes("dot_general", lb, lhs_nd),
            canonicalize_axes("dot_general", rb, rhs_nd),
        ),
    )


def dot_general(
    lhs: Array,
    rhs: Array,
    dimension_numbers: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
) -> Array:
    """General contraction; ``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch,
    rhs_batch))``. Output dims: batch, lhs free, rhs free."""
    lhs_nd, rhs_nd = len(shape_of(lhs)), len(shape_of(rhs))
    try:
        dn = _canonical_dot_dims(dimension_numbers, lhs_nd, rhs_nd)
    except TypeError:  # unhashable (lists): canonicalize without the cache
        dn = _canonical_dot_dims.__wrapped__(dimension_numbers, lhs_nd, rhs_nd)
    pet = None if preferred_element_type is None else np.dtype(preferred_element_type)
    return bind1(
        ct.dot_general_p,
        lhs,
        rhs,
        dimension_numbers=dn,
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
    )


def dot(lhs: Array, rhs: Array, precision: Any = None, preferred_element_type: Any = None) -> Array:
    """Vector/matrix product: contracts the last dim of ``lhs`` with the first of ``rhs``
    (ranks 1 or 2, like ``jax.lax.dot``)."""
    lhs_nd, rhs_nd = len(shape_of(lhs)), len(shape_of(rhs))
    if lhs_nd not in (1, 2) or rhs_nd not in (1, 2):
        raise TypeError(
            f"dot: operands must have rank 1 or 2, got shapes {shape_of(lhs)} and {shape_of(rhs)}"
        )
    dn = (((lhs_nd - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dn, precision, preferred_element_type)


# --- complex numbers and FFTs ---------------------------------------------------------------------
def real(x: Array) -> Array:
    """The real part of a complex ``x`` (float32 for complex64, float64 for complex128)."""
    return bind1(cx.real_p, x)


def imag(x: Array) -> Array:
    """The imaginary part of a complex ``x``."""
    return bind1(cx.imag_p, x)


def conj(x: Array) -> Array:
    """The complex conjugate of ``x`` (always complex, as ``jax.lax.conj``)."""
    return bind1(cx.conj_p, x, input_dtype=_dtype(x))


def complex(x: Array, y: Array) -> Array:
    """``x + i*y`` from two float operands of one dtype (broadcast like NumPy)."""
    return bind1(cx.complex_p, x, y)


def fft(x: Array, fft_type: ff.FftType | str, fft_lengths: Sequence[int]) -> Array:
    """The FFT of ``x`` over its trailing ``len(fft_lengths)`` dims, as ``jax.lax.fft``:
    ``x`` is first converted to the complex (``RFFT``: inexact) dtype the transform needs."""
    if isinstance(fft_type, str):
        names = {t.name: t for t in ff.FftType}
        if fft_type.upper() not in names:
            raise ValueError(f"fft: unknown fft_type {fft_type!r}; expected one of {list(names)}")
        typ = names[fft_type.upper()]
    else:
        typ = ff.FftType(fft_type)
    dtype = _dtype(x)
    # bool and integer inputs compute in float64, as NumPy's np.fft does (JAX: float32 for
    # integers of up to 32 bits; mj follows NumPy for integer -> float, DESIGN.md section 2)
    inexact = dtype if dtype.kind in "fc" else np.dtype(np.float64)
    if typ == ff.FftType.RFFT:
        if dtype.kind == "c":
            raise ValueError("fft: only real valued inputs are supported for RFFT")
        new = inexact
    else:
        new = cx.complex_dtype(inexact)
    x = convert_element_type(x, new)
    lengths = int_tuple("fft", "fft_lengths", fft_lengths)
    if not lengths:
        return x
    return bind1(ff.fft_p, x, fft_type=typ, fft_lengths=lengths)
