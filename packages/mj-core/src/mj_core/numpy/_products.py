"""Products: ``dot``, ``matmul`` (``@``), ``vdot``, ``inner``, ``outer``, ``tensordot``, each
one ``dot_general``. As in ``jax.numpy``, the operands are not converted first: the contraction
gets ``preferred_element_type`` = their NumPy-style result dtype (or the user's keyword-only
one), and only the weak type is set afterwards, so ``dot(int8, float32)`` is a single mixed
``dot_general`` (JAX's testMixedPrecisionDot)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core._avals import get_aval
from mj_core._shapes import _where, canonicalize_axes
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.errors import ShapeDtypeError
from mj_core.numpy._math import multiply
from mj_core.numpy._promotion import (
    as_dtype,
    check_arraylike,
    convert,
    dtype_weak,
    promote,
    promoted_dtype,
    shape_of,
)
from mj_core.numpy._shape import ravel
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


def _result_type(
    name: str, a: ArrayLike, b: ArrayLike, preferred_element_type: DTypeLike | None
) -> tuple[np.dtype[Any], bool]:
    """JAX's contraction dtype: the user's ``preferred_element_type`` (strong), else the
    operands' result type and weak type."""
    if preferred_element_type is None:
        return promoted_dtype(a, b)
    dtype = as_dtype(preferred_element_type, name)
    assert dtype is not None
    return dtype, False


def _contract(
    name: str,
    a: ArrayLike,
    b: ArrayLike,
    contract: tuple[Sequence[int], Sequence[int]],
    batch: tuple[Sequence[int], Sequence[int]],
    precision: PrecisionLike,
    preferred_element_type: DTypeLike | None,
) -> Array:
    """One ``dot_general`` of the unconverted operands computing in the result dtype, then the
    result's weak type (JAX's ``lax._convert_element_type(result, pet, weak)``)."""
    dtype, weak = _result_type(name, a, b, preferred_element_type)
    out = _dot_general(a, b, contract, batch, precision, dtype)
    return convert(out, dtype, weak)


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
    nda, ndb = len(shape_of(a)), len(shape_of(b))
    contract: tuple[Sequence[int], Sequence[int]] = ((), ())
    if nda and ndb:
        contract = ((nda - 1,), (max(ndb - 2, 0),))
    return _contract("dot", a, b, contract, ((), ()), precision, preferred_element_type)


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
    dtype, weak = _result_type("matmul", a, b, preferred_element_type)
    return convert(_matmul(a, b, sa, sb, precision, dtype), dtype, weak)


def _matmul(
    a: ArrayLike,
    b: ArrayLike,
    sa: tuple[int, ...],
    sb: tuple[int, ...],
    precision: PrecisionLike,
    dtype: np.dtype[Any],
) -> Array:
    """JAX's matmul plan: batch dims of size 1 on one side become free dims of the other
    operand (no broadcast copy), size-1 batch dims on both sides are squeezed away and put
    back after, equal ones are ``dot_general`` batch dims; one transpose orders the result."""
    a_mat, b_mat = len(sa) > 1, len(sb) > 1
    a_bd = sa[:-2] if a_mat else ()
    b_bd = sb[:-2] if b_mat else ()
    nb = max(len(a_bd), len(b_bd))
    a_bdims: tuple[int | None, ...] = (None,) * (nb - len(a_bd)) + a_bd
    b_bdims: tuple[int | None, ...] = (None,) * (nb - len(b_bd)) + b_bd
    a_squeeze: list[int] = []
    b_squeeze: list[int] = []
    both_squeeze: list[int] = []
    a_batch: list[int] = []
    b_batch: list[int] = []
    idx_batch: list[int] = []
    idx_a_other: list[int] = []
    idx_b_other: list[int] = []
    for i, (ba, bb) in enumerate(zip(a_bdims, b_bdims, strict=True)):
        if ba is None:
            idx_b_other.append(i)
        elif bb is None:
            idx_a_other.append(i)
        elif ba == 1 and bb == 1:
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
            both_squeeze.append(i)
        elif ba == 1:
            idx_b_other.append(i)
            a_squeeze.append(len(idx_batch) + len(idx_a_other) + len(a_squeeze))
        elif bb == 1:
            idx_a_other.append(i)
            b_squeeze.append(len(idx_batch) + len(idx_b_other) + len(b_squeeze))
        elif ba == bb:
            a_batch.append(len(idx_batch) + len(idx_a_other))
            b_batch.append(len(idx_batch) + len(idx_b_other))
            idx_batch.append(i)
        else:  # JAX's wording, then the user's line
            raise ShapeDtypeError(
                f"Incompatible types for matmul arguments: {get_aval(a)} and {get_aval(b)}"
                f"{_where()}"
            )
    if a_mat:
        idx_a_other.append(nb)
    if b_mat:
        idx_b_other.append(nb + a_mat)
    perm = tuple(int(i) for i in np.argsort(idx_batch + idx_a_other + idx_b_other))
    if a_squeeze:
        a = lax.squeeze(a, tuple(a_squeeze))
    if b_squeeze:
        b = lax.squeeze(b, tuple(b_squeeze))
    nda, ndb = len(sa) - len(a_squeeze), len(sb) - len(b_squeeze)
    contract = ((nda - 1,), (ndb - 1 - b_mat,))
    out = _dot_general(a, b, contract, (a_batch, b_batch), precision, dtype)
    if perm != tuple(range(len(perm))):
        out = lax.transpose(out, perm)
    if both_squeeze:
        out = lax.expand_dims(out, tuple(both_squeeze))
    return out


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
    nda, ndb = len(shape_of(a)), len(shape_of(b))
    if nda == 0 or ndb == 0:  # JAX: a * b, after converting both to a preferred type
        if preferred_element_type is not None:
            dtype = as_dtype(preferred_element_type, "inner")
            assert dtype is not None
            a, b = convert(a, dtype), convert(b, dtype)
        return multiply(a, b)
    contract = ((nda - 1,), (ndb - 1,))
    return _contract("inner", a, b, contract, ((), ()), precision, preferred_element_type)


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
    return _contract("tensordot", a, b, contract, ((), ()), precision, preferred_element_type)
