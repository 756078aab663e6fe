"""NumPy-style dtype decisions for ``mj_core.numpy``, through the one promotion function
(:func:`mj_core.dtypes.result_type`), inserting ``convert_element_type`` only when needed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from mj_core._array_views import ViewPromotionError, array_views, view_dtype
from mj_core._avals import get_aval
from mj_core._config import config
from mj_core._eager.scalars import INT32_BOUNDS
from mj_core._eager_array import EagerArray, WeakEagerArray
from mj_core._shapes import check_rank_promotion
from mj_core._shapes import shape_of as shape_of
from mj_core._trace import Tracer
from mj_core._typing import AnyArray, Array, ArrayLike, DType, DTypeLike
from mj_core.dtypes import (
    _NARROW,
    check_user_dtype,
    default_dtype_for_pytype,
    dtype_kind,
    result_type,
)
from mj_core.prims._operands import bind1
from mj_core.prims.conversions import convert_element_type_p
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = [
    "AnyArray",
    "as_dtype",
    "check_ranks",
    "const_like",
    "convert",
    "dtype_weak",
    "lax_operands",
    "lax_operands_inexact",
    "lax_pair",
    "promote",
    "promote_inexact",
    "promoted_dtype",
    "shape_of",
    "strong_const",
]


_WEAK_PYTYPES = (int, float, complex)


def dtype_weak(x: AnyArray) -> tuple[DType, bool]:
    """``(dtype, weak_type)`` of any mj operand, cheaply for NumPy arrays and Python scalars."""
    t = type(x)
    if t is EagerArray:
        return x.dtype, False
    if t is WeakEagerArray:
        return x.dtype, True
    if t is np.ndarray:
        dt = x.dtype
        return _NARROW.get(dt, dt), False
    if t in _WEAK_PYTYPES:
        return default_dtype_for_pytype(t), True
    if t is bool:
        return np.dtype(np.bool_), False
    if isinstance(x, Tracer):  # autodiff's tracers answer from their primal, not an aval
        return x._dtype_weak()
    if t in array_views:  # typed keys: their key dtype
        return x.dtype, False
    aval = get_aval(x)
    return aval.dtype, aval.weak_type


def check_ranks(fun_name: str, *xs: object) -> None:
    """JAX's ``promote_shapes`` check of the NumPy-level function ``fun_name``'s operands:
    with ``numpy_rank_promotion`` ``"warn"``/``"raise"``, operands of different non-scalar
    ranks warn or raise (the user's operands only: the primitives broadcast without a check).
    Under vmap a tracer's shape is the per-example one, as in JAX."""
    if config.numpy_rank_promotion != "allow":
        check_rank_promotion(fun_name, *(shape_of(x) for x in xs))


def as_dtype(dtype: DTypeLike | None, fun_name: str = "array") -> DType | None:
    """A ``dtype=`` argument of ``fun_name``: ``None`` stays ``None``, Python types are their
    default dtypes, 64-bit requests narrow (with JAX's warning) unless ``enable_x64``."""
    try:
        return check_user_dtype(dtype, fun_name)
    except TypeError:
        if view_dtype(dtype) is None:
            raise
        return dtype  # type: ignore[return-value]  # a view dtype (typed keys): as it is


# The strong kinds a weak operand of each kind joins without a conversion (lax's own rule).
_WEAK_FITS = {"b": "biufc", "i": "iufc", "u": "iufc", "f": "fc", "c": "c"}


_PY_OF_KIND: dict[str, Any] = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_PY_TYPES = frozenset(_PY_OF_KIND.values())


def _check_int(value: int) -> None:
    """JAX's OverflowError for a Python int operand the default integer type cannot hold (its
    jitted functions canonicalize their scalar arguments to it)."""
    if not INT32_BOUNDS[0] <= value <= INT32_BOUNDS[1]:
        get_aval(value)  # raises, naming the value, outside int32 (int64 with x64)


def _cast_int(dtype: DType, value: int) -> Any:
    """The Python int ``value`` as a NumPy scalar of the integer ``dtype``, wrapping where
    ``dtype`` cannot hold it (JAX's ``convert_element_type``: ``full(2, 300, uint8)`` is 44s)."""
    try:
        return dtype.type(value)
    except OverflowError:
        return np.asarray(value).astype(dtype)[()]


def scalar_as(dtype: DType, value: object) -> Any:
    """The Python scalar ``value`` as a NumPy scalar of ``dtype``: JAX's literal of a weak
    operand (``mul a 2.0:f32[]``). An int must fit the default integer type, and then wraps
    into a narrower integer ``dtype`` (``uint8 + 300`` adds 44), as in JAX."""
    if type(value) is int:
        _check_int(value)
        if dtype.kind in "iu":
            return _cast_int(dtype, value)
    return dtype.type(value)


def const_like(x: AnyArray, value: complex) -> Any:
    """JAX's ``lax._const(x, value)``: the constant ``value`` of a NumPy-level definition, to
    meet ``x`` in one operation. A Python scalar (weak) when ``x`` is a weak scalar (0-d), so
    ``hypot(3.0, 4.0)`` stays weak; else a strong 0-d array of ``x``'s dtype, so that a weak
    *array* (``int8_array + 2.5``, where a weak float meets an integer array, is one) meeting
    it gives a strong result, as JAX's ``hypot``, ``heaviside``, ``logaddexp2`` and
    ``rel_entr`` do. Under ``vmap`` ``x``'s shape is the per-example one, as in JAX."""
    dtype, weak = dtype_weak(x)
    if weak and not shape_of(x):
        return _PY_OF_KIND[dtype_kind(dtype)](value)
    return np.asarray(value, dtype)


def strong_const(x: AnyArray, value: complex) -> Any:
    """JAX's ``_constant_like(x, value)``: ``value`` as a strong 0-d array of ``x``'s dtype,
    whatever ``x``'s weak type (``isinf(0.5)`` compares with it: a strong bool)."""
    return np.asarray(value, dtype_weak(x)[0])


def _promoted(x: ArrayLike, dtype: DType, weak: bool) -> AnyArray:
    """:func:`convert` of an operand of a promoting function (a Python int must fit the default
    integer type first, see :func:`scalar_as`)."""
    if type(x) is int:
        _check_int(x)
    return convert(x, dtype, weak)


@overload
def convert(x: Array, dtype: DType, weak: bool = False) -> Array: ...
@overload
def convert(x: ArrayLike, dtype: DType, weak: bool = False) -> ArrayLike: ...
def convert(x: AnyArray, dtype: DType, weak: bool = False) -> AnyArray:
    """``x`` as ``dtype`` (and weak type), binding ``convert_element_type`` only if needed.

    A Python scalar becomes a constant at once, as in JAX (so ``x * 2.0`` stages no convert):
    a Python scalar of the target's kind when ``weak``, else a NumPy scalar of ``dtype``."""
    if dtype_weak(x) == (dtype, weak):
        return x
    t = type(x)
    weak_bool = weak and dtype.kind == "b"  # (an array: a Python bool is strong)
    if t in _PY_TYPES and (t is not complex or dtype.kind == "c") and not weak_bool:
        if weak:
            return _PY_OF_KIND[dtype.kind](x)
        if t is int and dtype.kind in "iu":
            return _cast_int(dtype, x)
        if (t is not float and t is not complex) or dtype.kind not in "iu":
            return np.asarray(x, dtype)
    # arrays, and Python floats to integers (convert_element_type's rounding rules)
    return bind1(convert_element_type_p, x, new_dtype=dtype, weak_type=weak)


def promoted_dtype(*xs: AnyArray) -> tuple[DType, bool]:
    """NEP 50 result ``(dtype, weak)`` of ``xs``. Two operands of one type, or a strong one and
    a weak one that joins it (:data:`_WEAK_FITS`), skip the lattice: most calls are these."""
    if len(xs) == 2:
        dx, wx = dtype_weak(xs[0])
        dy, wy = dtype_weak(xs[1])
        if wx == wy:
            if dx == dy:  # (two weak bools promote to a strong one: the lattice's rule)
                return dx, wx and dx.kind != "b"
        elif wx:
            if dy.kind in _WEAK_FITS.get(dx.kind, ""):
                return dy, False
        elif dx.kind in _WEAK_FITS.get(dy.kind, ""):
            return dx, False
        return result_type((dx, wx), (dy, wy))
    if len(xs) == 1:  # (mnp.sin of an integer array: no generator)
        return result_type(dtype_weak(xs[0]))
    return result_type(*(dtype_weak(x) for x in xs))


def promote(*xs: AnyArray) -> list[AnyArray]:
    """``xs`` converted to their common dtype on JAX's lattice (weak if all are)."""
    try:
        dtype, weak = promoted_dtype(*xs)
    except ViewPromotionError:  # typed keys with other dtypes: their primitive refuses them
        return list(xs)
    return [_promoted(x, dtype, weak) for x in xs]


def promote_numeric(*xs: AnyArray) -> list[AnyArray]:
    """Like :func:`promote`, then bools move to int32 (JAX's ``to_numeric_dtype``: int32
    even with x64) for functions whose primitive takes no bools."""
    try:
        dtype, weak = promoted_dtype(*xs)
    except ViewPromotionError:  # typed keys with other dtypes: their primitive refuses them
        return list(xs)
    if dtype.kind == "b":
        dtype = np.dtype(np.int32)
    return [_promoted(x, dtype, weak) for x in xs]


def promote_inexact(*xs: AnyArray) -> list[AnyArray]:
    """Like :func:`promote`, then bools/integers move to JAX's float (int32 -> float32)."""
    try:
        dtype, weak = promoted_dtype(*xs)
    except ViewPromotionError:  # typed keys with other dtypes: their primitive refuses them
        return list(xs)
    return [_promoted(x, to_inexact_dtype(dtype), weak) for x in xs]


_PYTHON_SCALARS = (bool, int, float, complex)

# The strong kinds each weak Python scalar type joins without a conversion (bool is strong).
_SCALAR_FITS = {int: _WEAK_FITS["i"], float: _WEAK_FITS["f"], complex: _WEAK_FITS["c"]}


def _operands_for(xs: Sequence[AnyArray], dtype: DType, weak: bool) -> list[AnyArray]:
    out = []
    for x in xs:
        d, w = dtype_weak(x)
        if w and not weak and type(x) in _PYTHON_SCALARS:
            # JAX's literal in the operand's dtype (`mul a 2.0:f32[]`); the lattice put the
            # strong dtype above the scalar's kind, so it fits
            x = scalar_as(dtype, x)
        elif d != dtype or w != weak:  # a weak traced value too, as JAX converts it
            x = _promoted(x, dtype, weak)
        out.append(x)
    return out


def lax_operands(*xs: AnyArray) -> list[AnyArray]:
    """``xs`` ready for one lax operation computing in their lattice dtype: like
    :func:`promote`, but a weak operand whose kind fits is not converted by an operation: a
    Python scalar becomes a scalar of the dtype, so ``x * 2.0`` stays one equation with the
    literal ``2.0:f32[]``, as in JAX."""
    if len(xs) == 2:
        x, y, _ = lax_pair(xs[0], xs[1])
        return [x, y]
    try:
        dtype, weak = promoted_dtype(*xs)
    except ViewPromotionError:  # typed keys with other dtypes: their primitive refuses them
        return list(xs)
    return _operands_for(xs, dtype, weak)


def lax_pair(x: ArrayLike, y: ArrayLike) -> tuple[AnyArray, AnyArray, DType]:
    """:func:`lax_operands` of two operands, and their dtype. Traced and differentiated
    NumPy-style code reaches here on every binary operation, so the two common cases (one
    dtype; an array and a Python scalar of a kind that fits into it) skip the lattice."""
    dx, wx = dtype_weak(x)
    fits = _SCALAR_FITS.get(type(y))
    if fits is not None and not wx and dx.kind in fits:
        return x, scalar_as(dx, y), dx
    dy, wy = dtype_weak(y)
    if wx == wy and dx == dy and not (wx and dx.kind == "b"):
        return x, y, dx
    fits = _SCALAR_FITS.get(type(x))
    if fits is not None and not wy and dy.kind in fits:
        return scalar_as(dy, x), y, dy
    try:
        dtype, weak = result_type((dx, wx), (dy, wy))
    except ViewPromotionError:  # typed keys with another dtype: their primitive refuses them
        return x, y, dx
    a, b = _operands_for((x, y), dtype, weak)
    return a, b, dtype


def lax_operands_inexact(*xs: object) -> list[AnyArray]:
    """:func:`lax_operands` for a float-valued operation (``arctan2``)."""
    try:
        dtype, weak = promoted_dtype(*xs)
    except ViewPromotionError:  # typed keys with other dtypes: their primitive refuses them
        return list(xs)
    return _operands_for(xs, to_inexact_dtype(dtype), weak)


def check_arraylike(name: str, xs: Sequence[AnyArray]) -> None:
    """Reject lists/tuples where an array is required, as JAX does (they are ambiguous)."""
    for x in xs:
        if isinstance(x, list | tuple):
            raise TypeError(
                f"{name} requires array-like arguments, got a {type(x).__name__}; wrap it with "
                "mnp.asarray() first."
            )
