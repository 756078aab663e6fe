"""``jax.lax`` functions that are compositions, not primitives: ``batch_matmul`` (a
``dot_general`` with every leading axis a batch axis), ``broadcast_shapes`` (NumPy
broadcasting of shapes), ``collapse`` (a ``reshape`` merging a range of axes),
``index_take`` (a ``gather`` of whole slices), ``top_k`` (a ``sort`` of order keys, then a
gather) and ``tie_in`` (the identity JAX kept after omnistaging made it
unnecessary)."""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

import mj.numpy as mnp
import mj_core.numpy as cnp
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike, shape_of
from mj_core.lax import PrecisionLike

__all__ = [
    "batch_matmul",
    "broadcast_shapes",
    "clz",
    "collapse",
    "index_take",
    "mulhi",
    "population_count",
    "split",
    "tie_in",
    "top_k",
]


def batch_matmul(lhs: ArrayLike, rhs: ArrayLike, precision: PrecisionLike = None) -> Array:
    """Matrix products of two stacks of matrices of the same rank (``[..., m, k] @
    [..., k, n]``; the leading axes are batch axes and must match, no broadcasting)."""
    lhs_nd, rhs_nd = len(shape_of(lhs)), len(shape_of(rhs))
    if min(lhs_nd, rhs_nd) < 2:
        raise ValueError(
            f"batch_matmul: arguments must be at least 2-D, got shapes {shape_of(lhs)} and "
            f"{shape_of(rhs)}{user_line_suffix()}"
        )
    if lhs_nd != rhs_nd:
        raise ValueError(
            f"batch_matmul: arguments must have the same rank, got shapes {shape_of(lhs)} "
            f"and {shape_of(rhs)}{user_line_suffix()}"
        )
    batch = tuple(range(lhs_nd - 2))
    return lax.dot_general(
        lhs, rhs, (((lhs_nd - 1,), (rhs_nd - 2,)), (batch, batch)), precision=precision
    )


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape ``shapes`` broadcast to (NumPy's rules: trailing axes align, size-1 axes
    stretch); JAX's ``ValueError`` wording for shapes that do not broadcast."""
    if not shapes:
        raise TypeError("broadcast_shapes: expected at least one shape" + user_line_suffix())
    try:
        return cnp.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(
            f"Incompatible shapes for broadcasting: shapes={list(shapes)}{user_line_suffix()}"
        ) from None


def collapse(operand: ArrayLike, start_dimension: int, stop_dimension: int | None = None) -> Array:
    """``operand`` with axes ``start_dimension:stop_dimension`` (Python slice semantics)
    merged into one."""
    shape = tuple(shape_of(operand))
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(
            f"collapse: invalid dimension range [{start_dimension}:{stop_dimension}] for shape "
            f"{shape}{user_line_suffix()}"
        )
    return lax.reshape(operand, (*shape[:lo], math.prod(shape[lo:hi]), *shape[hi:]))


def index_take(src: ArrayLike, idxs: Sequence[ArrayLike], axes: Sequence[int]) -> Array:
    """The slices of ``src`` at the index tuples ``zip(*idxs)`` over ``axes`` (one 1-D index
    array per axis; negative and out-of-range indices wrap around): shape
    ``(len(idxs[0]), *the other axes of src)``, as ``jax.lax.index_take``."""
    shape = tuple(shape_of(src))
    axes = tuple(axes)
    if len(idxs) != len(axes) or not axes:
        raise ValueError(
            f"index_take: expected one index array per axis, got {len(idxs)} index arrays "
            f"for axes {axes}{user_line_suffix()}"
        )
    cols = [cnp.asarray(i) for i in idxs]
    if any(len(shape_of(c)) != 1 for c in cols):
        raise ValueError(
            "index_take: expected 1-D index arrays, got shapes "
            f"{[tuple(shape_of(c)) for c in cols]}{user_line_suffix()}"
        )
    indices = lax.concatenate([lax.expand_dims(c, (1,)) for c in cols], 1)
    sizes = np.asarray([shape[ax] for ax in axes], cnp.result_type(indices))
    indices = cnp.remainder(indices, sizes[None, :])
    slice_sizes = [1 if d in axes else n for d, n in enumerate(shape)]
    dnums = lax.GatherDimensionNumbers(
        offset_dims=tuple(range(1, len(shape) - len(axes) + 1)),
        collapsed_slice_dims=axes,
        start_index_map=axes,
    )
    return lax.gather(src, indices, dnums, slice_sizes)


def tie_in(x: ArrayLike, y: ArrayLike) -> Any:
    """``y`` (JAX kept ``tie_in`` as the identity on its second argument once every
    operation was staged: it no longer needs a fake data dependence on ``x``)."""
    return y


_SIGNED_OF_WIDTH = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def _descending_key(x: Array) -> Array:
    """An integer key whose ascending order is ``x``'s descending total order: floats by
    their bits (``-0.0`` below ``0.0``, NaN above every number, as XLA's TopK), integers as
    themselves, bitwise-complemented (which reverses any integer order exactly)."""
    dtype = np.dtype(x.dtype)
    if dtype.kind == "b":
        key = lax.convert_element_type(x, np.int8)
    elif dtype.kind == "f" or dtype.name in ("bfloat16",) or dtype.name.startswith("float8"):
        bits = lax.bitcast_convert_type(x, _SIGNED_OF_WIDTH[dtype.itemsize])
        # sign-magnitude to two's complement: negative floats' magnitudes count downwards
        flipped = lax.bitwise_xor(bits, np.array(np.iinfo(bits.dtype).max, bits.dtype))
        key = lax.select(lax.lt(bits, cnp.zeros_like(bits)), flipped, bits)
    elif dtype.kind in "iu":
        key = x
    else:
        raise TypeError(f"top_k: operand of dtype {dtype} is not ordered{user_line_suffix()}")
    return lax.bitwise_not(key)


def top_k(operand: ArrayLike, k: int, *, axis: int = -1) -> tuple[Array, Array]:
    """The ``k`` largest entries along ``axis`` and their indices (int32), largest first, the
    lower index first among equal entries (JAX's ``lax.top_k``). Differentiable in the
    values (a gather of ``operand``)."""
    x = cnp.asarray(operand)
    if x.ndim == 0:
        raise TypeError(f"top_k: operand must have at least one dimension{user_line_suffix()}")
    k = operator.index(k)
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"top_k: axis {axis} out of range for {x.ndim} dims{user_line_suffix()}")
    axis %= x.ndim
    if not 0 <= k <= x.shape[axis]:
        raise ValueError(
            f"top_k: k must be in [0, {x.shape[axis]}] (the size of axis {axis}), got {k}"
            f"{user_line_suffix()}"
        )
    int32_max = int(np.iinfo(np.int32).max)
    if x.shape[axis] > int32_max + 1:  # (its int32 indices would wrap)
        raise ValueError(
            "top_k returns int32 indices, which will overflow for array dimensions larger than "
            f"the maximum int32 ({int32_max}). Got operand.shape={tuple(x.shape)}"
            f"{user_line_suffix()}"
        )
    last = cnp.moveaxis(x, axis, -1)
    iota = lax.broadcasted_iota(np.int32, tuple(last.shape), last.ndim - 1)
    _, order = lax.sort((_descending_key(last), iota), num_keys=2)
    indices = lax.slice_in_dim(order, 0, k, axis=last.ndim - 1)
    values = mnp.take_along_axis(last, indices, axis=-1)
    return cnp.moveaxis(values, -1, axis), cnp.moveaxis(indices, -1, axis)


def split(operand: ArrayLike, sizes: Sequence[int], axis: int = 0) -> list[Array]:
    """``operand`` cut along ``axis`` into consecutive pieces of ``sizes`` (which must sum
    to that axis's length)."""
    shape = shape_of(operand)
    ndim = len(shape)
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis %= ndim
    sizes = [operator.index(s) for s in sizes]
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {sizes}")
    if shape[axis] != sum(sizes):
        raise ValueError(
            f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of the operand "
            f"shape {list(shape)}{user_line_suffix()}"
        )
    starts = np.cumsum([0, *sizes]).tolist()
    return [lax.slice_in_dim(operand, a, b, axis=axis) for a, b in itertools.pairwise(starts)]


def _bits(name: str, x: ArrayLike) -> tuple[Array, np.dtype[Any], np.dtype[Any]]:
    """``x``'s bits as the unsigned integer of its width, its dtype and that unsigned dtype;
    ``TypeError`` unless ``x`` is an integer (JAX's bit-counting ops refuse bool)."""
    x = cnp.asarray(x)
    dtype = np.dtype(x.dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"{name} does not accept dtype {dtype.name}{user_line_suffix()}")
    unsigned = np.dtype(f"uint{8 * dtype.itemsize}")
    return lax.bitcast_convert_type(x, unsigned), dtype, unsigned


def _popcount_bits(u: Array, unsigned: np.dtype[Any]) -> Array:
    """The set bits of each unsigned ``u``, by summing bit pairs, nibbles, bytes (SWAR)."""
    nbits = 8 * unsigned.itemsize

    def const(byte: int) -> np.ndarray[Any, Any]:
        return np.array(int.from_bytes(bytes([byte]) * unsigned.itemsize, "little"), unsigned)

    def shr(v: Array, n: int) -> Array:
        return lax.shift_right_logical(v, np.array(n, unsigned))

    u = lax.sub(u, lax.bitwise_and(shr(u, 1), const(0x55)))
    u = lax.add(lax.bitwise_and(u, const(0x33)), lax.bitwise_and(shr(u, 2), const(0x33)))
    u = lax.bitwise_and(lax.add(u, shr(u, 4)), const(0x0F))
    shift = 8
    while shift < nbits:
        u = lax.add(u, shr(u, shift))
        shift *= 2
    return lax.bitwise_and(u, np.array(0xFF, unsigned))


def population_count(x: ArrayLike) -> Array:
    """The number of set bits in each element of the integer ``x`` (in ``x``'s dtype)."""
    u, dtype, unsigned = _bits("population_count", x)
    return lax.convert_element_type(_popcount_bits(u, unsigned), dtype)


def clz(x: ArrayLike) -> Array:
    """The number of leading zero bits of each element of the integer ``x`` (in ``x``'s
    dtype): every bit below the highest set one is set, then the set bits are counted."""
    u, dtype, unsigned = _bits("clz", x)
    nbits = 8 * unsigned.itemsize
    shift = 1
    while shift < nbits:
        u = lax.bitwise_or(u, lax.shift_right_logical(u, np.array(shift, unsigned)))
        shift *= 2
    ones = _popcount_bits(u, unsigned)
    return lax.convert_element_type(lax.sub(np.array(nbits, unsigned), ones), dtype)


def mulhi(x: ArrayLike, y: ArrayLike, /) -> Array:
    """The high half of the double-width product of the integers ``x`` and ``y`` (the
    products of their half-width halves; a signed product corrected from the unsigned one)."""
    ux, dtype, unsigned = _bits("mulhi", x)
    uy, dtype_y, _ = _bits("mulhi", y)
    if dtype_y != dtype:
        raise TypeError(
            f"mulhi requires arguments to have the same dtypes, got {dtype.name}, "
            f"{dtype_y.name}{user_line_suffix()}"
        )
    half = np.array(4 * unsigned.itemsize, unsigned)
    low = np.array((1 << (4 * unsigned.itemsize)) - 1, unsigned)
    x0, x1 = lax.bitwise_and(ux, low), lax.shift_right_logical(ux, half)
    y0, y1 = lax.bitwise_and(uy, low), lax.shift_right_logical(uy, half)
    w0 = lax.mul(x0, y0)
    t = lax.add(lax.mul(x1, y0), lax.shift_right_logical(w0, half))
    w1 = lax.add(lax.mul(x0, y1), lax.bitwise_and(t, low))
    w2 = lax.shift_right_logical(t, half)
    hi = lax.add(lax.add(lax.mul(x1, y1), w2), lax.shift_right_logical(w1, half))
    if dtype.kind == "i":  # x*y signed = unsigned - 2^n (x<0 ? y : 0) - 2^n (y<0 ? x : 0)
        zero = lax.full_like(hi, 0)
        hi = lax.sub(hi, lax.select(lax.lt(x, 0), uy, zero))
        hi = lax.sub(hi, lax.select(lax.lt(y, 0), ux, zero))
    return lax.bitcast_convert_type(hi, dtype)
