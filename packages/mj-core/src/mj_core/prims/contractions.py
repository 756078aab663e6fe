"""``dot_general``: XLA's general tensor contraction. Output dimensions are the batch
dimensions, then the lhs free dimensions, then the rhs free dimensions.

The lax wrappers ``dot_general`` (dimension numbers canonicalised, cached) and ``dot`` follow
the rules; ``__all__`` is the family's primitives and lax API."""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np

from mj_core._avals import ShapedArray
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error, canonicalize_axes, shape_of
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.prims._operands import bind1, check_axes, check_operands, common_dtype

__all__ = [
    "DotDimensionNumbers",
    "Precision",
    "PrecisionLike",
    "dot",
    "dot_general",
    "dot_general_p",
]


# --- precision: how much of the operands' precision a contraction may trade for speed --------
# dot_general and the convolutions canonicalize their ``precision`` argument to None or one
# Precision per operand before binding, so the parameter is hashable and the lowering emits
# it as StableHLO's precision_config. NumPy and XLA's CPU backend always compute at full
# precision, so on CPU the values do not change.


class Precision(enum.Enum):
    """``DEFAULT`` (fastest: one bfloat16 pass on TPU), ``HIGH`` (three passes, about
    float32's mantissa as tensorfloat32) and ``HIGHEST`` (full float32)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: object) -> Precision | None:
        if isinstance(value, str):
            return _ALIASES.get(value.lower())
        return None

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Precision.{self.name}"


_ALIASES = {
    "default": Precision.DEFAULT,
    "fastest": Precision.DEFAULT,
    "bfloat16": Precision.DEFAULT,
    "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST,
}


#: A ``precision=`` argument (``jax.lax.PrecisionLike``): ``None``, a :class:`Precision` or
#: one of its names, or a pair of these (one per operand).
PrecisionLike: TypeAlias = (
    str
    | Precision
    | tuple[str | Precision | None, str | Precision | None]
    | list[str | Precision | None]
    | None
)


def _one(p: object, precision: object) -> Precision:
    try:
        return p if isinstance(p, Precision) else Precision(p)
    except ValueError:
        raise ValueError(
            f"Precision argument must be one of: None, a lax.Precision, one of the strings "
            f"{sorted(_ALIASES)}, or a pair of these; got {precision!r}."
        ) from None


def canonicalize_precision(precision: PrecisionLike) -> tuple[Precision, Precision] | None:
    """``None``, or the precision of each operand as a pair of :class:`Precision`."""
    if precision is None:
        return None
    if isinstance(precision, str | Precision):
        p = _one(precision, precision)
        return p, p
    if isinstance(precision, tuple | list) and len(precision) == 2:
        return _one(precision[0], precision), _one(precision[1], precision)
    return (_one(precision, precision),) * 2  # raises the message above


#: ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``
DotDimensionNumbers = tuple[
    tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
]

dot_general_p = Primitive("dot_general")


@abstract_eval_rules.register(dot_general_p)
def _dot_general_avals(
    lhs: ShapedArray,
    rhs: ShapedArray,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: tuple[Precision, Precision] | None = None,
    preferred_element_type: np.dtype[Any] | None = None,
) -> list[ShapedArray]:
    avals = (lhs, rhs)
    (lc, rc), (lb, rb) = dimension_numbers
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise aval_error(
            "dot_general",
            f"dimension_numbers {dimension_numbers} must pair lhs and rhs dimensions",
            avals,
        )
    lhs_used = check_axes("dot_general", (*lc, *lb), lhs.ndim, avals)
    rhs_used = check_axes("dot_general", (*rc, *rb), rhs.ndim, avals)
    for kind, ld, rd in (("contracting", lc, rc), ("batch", lb, rb)):
        if any(lhs.shape[i] != rhs.shape[j] for i, j in zip(ld, rd, strict=True)):
            raise aval_error(
                "dot_general",
                f"{kind} dimensions {tuple(ld)} of lhs and {tuple(rd)} of rhs differ in size",
                avals,
            )
    dtype, weak = common_dtype("dot_general", avals)
    if preferred_element_type is not None:
        dtype, weak = np.dtype(preferred_element_type), False
    shape = (
        *(lhs.shape[i] for i in lb),
        *(s for i, s in enumerate(lhs.shape) if i not in lhs_used),
        *(s for i, s in enumerate(rhs.shape) if i not in rhs_used),
    )
    return [ShapedArray(shape, dtype, weak)]


@functools.lru_cache(maxsize=512)
def _matmul_plan(
    dimension_numbers: DotDimensionNumbers, x_shape: tuple[int, ...], y_shape: tuple[int, ...]
) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None, tuple[int, ...], tuple[int, ...], bool]:
    """How ``dot_general`` of operands of these shapes maps onto ``matmul``: the permutations
    putting each operand in ``(batch, free, contracting)`` / ``(batch, contracting, free)``
    order (``None`` when it already is), the ``(*batch, m, k)`` and ``(*batch, k, n)`` shapes
    to reshape them to, and whether ``k == 1``. Cached: a loop repeats a few contractions."""
    (lc, rc), (lb, rb) = dimension_numbers
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    lf = tuple(i for i in range(x_ndim) if i not in lc and i not in lb)
    rf = tuple(i for i in range(y_ndim) if i not in rc and i not in rb)
    x_perm = (*lb, *lf, *lc)
    y_perm = (*rb, *rc, *rf)
    batch = tuple(x_shape[i] for i in lb)
    k = math.prod(x_shape[i] for i in lc)
    m = math.prod(x_shape[i] for i in lf)
    n = math.prod(y_shape[i] for i in rf)
    return (
        None if x_perm == tuple(range(x_ndim)) else x_perm,
        None if y_perm == tuple(range(y_ndim)) else y_perm,
        (*batch, m, k),
        (*batch, k, n),
        k == 1,
    )


@impl_rules.register(dot_general_p)
def _dot_general_impl(
    lhs: object,
    rhs: object,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: tuple[Precision, Precision] | None = None,
    preferred_element_type: np.dtype[Any] | None = None,
) -> list[Any]:
    params = {
        "dimension_numbers": dimension_numbers,
        "precision": precision,
        "preferred_element_type": preferred_element_type,
    }
    (out,) = check_operands(dot_general_p, (lhs, rhs), params)
    x = np.asarray(lhs, out.dtype)
    y = np.asarray(rhs, out.dtype)
    try:
        x_perm, y_perm, x_to, y_to, outer = _matmul_plan(dimension_numbers, x.shape, y.shape)
    except TypeError:  # dimension numbers given as lists (unhashable): plan uncached
        plan = _matmul_plan.__wrapped__(dimension_numbers, x.shape, y.shape)
        x_perm, y_perm, x_to, y_to, outer = plan
    # ndarray methods, not np.transpose/np.reshape: those wrappers cost more than the small
    # products of eager per-example work
    x3 = (x if x_perm is None else x.transpose(x_perm)).reshape(x_to)
    y3 = (y if y_perm is None else y.transpose(y_perm)).reshape(y_to)
    # outer products (per-example weight gradients under vmap): a broadcast multiply avoids
    # matmul's dispatch of one 1-deep product per batch element
    product = np.multiply(x3, y3) if outer else np.matmul(x3, y3)
    if product.dtype != out.dtype:  # bfloat16's matmul accumulates (and answers) in float32
        product = product.astype(out.dtype)
    return [product.reshape(out.shape)]


# --- lax wrappers ----------------------------------------------------------------------------
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
    lhs: ArrayLike,
    rhs: ArrayLike,
    dimension_numbers: object,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
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
        dot_general_p,
        lhs,
        rhs,
        dimension_numbers=dn,
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
    )


def dot(
    lhs: ArrayLike,
    rhs: ArrayLike,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Vector/matrix product: contracts the last dim of ``lhs`` with the first of ``rhs``
    (ranks 1 or 2, like ``jax.lax.dot``)."""
    lhs_nd, rhs_nd = len(shape_of(lhs)), len(shape_of(rhs))
    if lhs_nd not in (1, 2) or rhs_nd not in (1, 2):
        raise TypeError(
            f"dot: operands must have rank 1 or 2, got shapes {shape_of(lhs)} and {shape_of(rhs)}"
        )
    dn = (((lhs_nd - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dn, precision, preferred_element_type)
