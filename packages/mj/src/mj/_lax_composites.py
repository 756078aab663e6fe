"""``jax.lax`` functions that are compositions, not primitives: ``batch_matmul`` (a
``dot_general`` with every leading axis a batch axis), ``broadcast_shapes`` (NumPy
broadcasting of shapes), ``collapse`` (a ``reshape`` merging a range of axes),
``index_take`` (a ``gather`` of whole slices), ``top_k`` (a ``sort`` of order keys, then a
gather) and ``tie_in`` (the identity JAX kept after omnistaging made it
unnecessary)."""

from __future__ import annotations

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

__all__ = ["batch_matmul", "broadcast_shapes", "collapse", "index_take", "tie_in", "top_k"]


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
    last = cnp.moveaxis(x, axis, -1)
    iota = lax.broadcasted_iota(np.int32, tuple(last.shape), last.ndim - 1)
    _, order = lax.sort((_descending_key(last), iota), num_keys=2)
    indices = lax.slice_in_dim(order, 0, k, axis=last.ndim - 1)
    values = mnp.take_along_axis(last, indices, axis=-1)
    return cnp.moveaxis(values, -1, axis), cnp.moveaxis(indices, -1, axis)
