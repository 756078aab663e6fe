"""Products: ``dot``, ``matmul`` (``@``), ``vdot``, ``inner``, ``outer``, ``tensordot``, all
one ``dot_general`` after NumPy-style dtype promotion. As in ``jax.numpy``, the contractions
take keyword-only ``precision`` and ``preferred_element_type``, passed to ``dot_general``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core._shapes import canonicalize_axes
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.numpy._math import multiply
from mj_core.numpy._promotion import check_arraylike, dtype_weak, promote, shape_of
from mj_core.numpy._shape import broadcast_shapes, broadcast_to, ravel
from mj_core.prims.contractions import PrecisionLike

__all__ = ["dot", "inner", "matmul", "outer", "tensordot", "vdot"]


def _dot_general(
    a: ArrayLike,
    b: ArrayLike,
    contract: tuple[Sequence[int], Sequence[int]],
    batch: tuple[Sequence[int], Sequence[int]] = ((), ()),
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    return lax.dot_general(a, b, (contract, batch), precision, preferred_element_type)


def _scalar_product(a: ArrayLike, b: ArrayLike, preferred_element_type: DTypeLike | None) -> Array:
    out = lax.mul(a, b)
    if preferred_element_type is None:
        return out
    return lax.convert_element_type(out, preferred_element_type)


def dot(
    a: ArrayLike,
    b: ArrayLike,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """NumPy ``dot``: scalars multiply; otherwise the last axis of ``a`` contracts with the
    second-to-last (or only) axis of ``b``."""
    check_arraylike("dot", [a, b])
    a, b = promote(a, b)
    nda, ndb = len(shape_of(a)), len(shape_of(b))
    if nda == 0 or ndb == 0:
        return _scalar_product(a, b, preferred_element_type)
    contract = ((nda - 1,), (max(ndb - 2, 0),))
    return _dot_general(a, b, contract, ((), ()), precision, preferred_element_type)


def matmul(
    a: ArrayLike,
    b: ArrayLike,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """NumPy ``matmul`` (``a @ b``): 1-d operands are promoted to matrices and the leading
    (batch) dimensions broadcast."""
    check_arraylike("matmul", [a, b])
    sa, sb = shape_of(a), shape_of(b)
    if not sa or not sb:
        raise ValueError(
            f"matmul: operands must have at least one dimension, got shapes {sa} and {sb}"
        )
    a, b = promote(a, b)
    options = (precision, preferred_element_type)
    no_batch: tuple[Sequence[int], Sequence[int]] = ((), ())
    if len(sb) == 1:  # matrix-vector (or vector-vector): contract the last axes
        return _dot_general(a, b, ((len(sa) - 1,), (0,)), no_batch, *options)
    if len(sa) == 1:  # vector-matrix
        return _dot_general(a, b, ((0,), (len(sb) - 2,)), no_batch, *options)
    if len(sb) == 2:  # the batch dims of a ride along as free dims
        return _dot_general(a, b, ((len(sa) - 1,), (0,)), no_batch, *options)
    batch = broadcast_shapes(sa[:-2], sb[:-2])
    a = broadcast_to(a, batch + sa[-2:])
    b = broadcast_to(b, batch + sb[-2:])
    nb = len(batch)
    dims = tuple(range(nb))
    return _dot_general(a, b, ((nb + 1,), (nb,)), (dims, dims), *options)


def vdot(
    a: ArrayLike,
    b: ArrayLike,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Dot product of the flattened arrays, the first one conjugated (as NumPy and JAX)."""
    a = ravel(a)
    if dtype_weak(a)[0].kind == "c":
        a = lax.conj(a)
    return dot(a, ravel(b), precision=precision, preferred_element_type=preferred_element_type)


def inner(
    a: ArrayLike,
    b: ArrayLike,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Contract the last axes of ``a`` and ``b``."""
    check_arraylike("inner", [a, b])
    a, b = promote(a, b)
    nda, ndb = len(shape_of(a)), len(shape_of(b))
    if nda == 0 or ndb == 0:
        return _scalar_product(a, b, preferred_element_type)
    contract = ((nda - 1,), (ndb - 1,))
    return _dot_general(a, b, contract, ((), ()), precision, preferred_element_type)


def outer(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = promote(ravel(a), ravel(b))
    return multiply(lax.expand_dims(a, (1,)), lax.expand_dims(b, (0,)))  # (bools: and)


def tensordot(
    a: ArrayLike,
    b: ArrayLike,
    axes: Any = 2,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Contract ``axes`` (an int N: the last N of ``a`` with the first N of ``b``; or a pair
    of axis sequences)."""
    check_arraylike("tensordot", [a, b])
    a, b = promote(a, b)
    nda, ndb = len(shape_of(a)), len(shape_of(b))
    ca: Sequence[int]
    cb: Sequence[int]
    if isinstance(axes, int | np.integer) and not isinstance(axes, bool):
        axes = int(axes)
        if axes > min(nda, ndb):
            raise TypeError(
                f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                f"({shape_of(a)} and {shape_of(b)})"
            )
        ca, cb = tuple(range(nda - axes, nda)), tuple(range(axes))
    elif type(axes) in (list, tuple) and len(axes) == 2:
        ax1, ax2 = axes
        if isinstance(ax1, int | np.integer) and isinstance(ax2, int | np.integer):
            ca, cb = (int(ax1),), (int(ax2),)
        elif type(ax1) in (list, tuple) and type(ax2) in (list, tuple):
            if len(ax1) != len(ax2):
                raise TypeError(
                    f"tensordot requires axes lists to have equal length, got {ax1} and {ax2}."
                )
            ca, cb = tuple(ax1), tuple(ax2)
        else:
            raise TypeError(
                "tensordot requires both axes lists to be either ints, tuples or lists, got "
                f"{ax1} and {ax2}"
            )
    else:
        raise TypeError(
            "tensordot axes argument must be an int, a pair of ints, or a pair of lists/tuples "
            "of ints."
        )
    contract = (canonicalize_axes("tensordot", ca, nda), canonicalize_axes("tensordot", cb, ndb))
    return _dot_general(a, b, contract, ((), ()), precision, preferred_element_type)
