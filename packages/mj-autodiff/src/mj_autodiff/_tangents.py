"""Tangent values: symbolic zeros, tangent avals, and fitting a tangent to its primal.

A :class:`Zero` stands for an all-zero tangent (or cotangent) of a given abstract value.
Rules short-circuit on it (``mul`` by a ``Zero`` is a ``Zero``, ``add`` with a ``Zero`` is the
other operand), so an input that does not depend on the differentiated arguments adds no
work. Integer and boolean values never carry a tangent: their tangent aval has JAX's
``float0`` dtype, and the only place such zeros become arrays is the public API boundary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TypeAlias, cast, final

import numpy as np

from mj_core import EagerArray, ShapedArray, bind1, config, get_aval
from mj_core.dtypes import default_dtype_for_pytype, is_inexact
from mj_core.extend import (
    Array,
    ArrayLike,
    is_token_aval,
    on_x64_change,
    weak_result,
)
from mj_core.prims.conversions import convert_element_type_p
from mj_core.prims.elementwise import add_p
from mj_core.prims.structural import broadcast_p

__all__ = [
    "Tangent",
    "Zero",
    "add_tangents",
    "fit_tangent",
    "float0",
    "instantiate_zeros",
    "is_float0",
    "shape_dtype",
    "shaped",
    "shaped_aval_of",
    "tangent_aval",
    "tangent_aval_of",
    "tangents_with_zeros",
    "zeros_like_aval",
]

#: The dtype of the tangent of an integer or boolean value (JAX's ``float0``): zero bytes.
float0: np.dtype[Any] = np.dtype([("float0", np.void, 0)])


def is_float0(dtype: np.dtype[Any]) -> bool:
    """True for :data:`float0`, the tangent dtype of integer and bool values."""
    return dtype == float0


@final
class Zero:
    """A symbolic zero tangent/cotangent whose abstract value is ``aval``."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    @staticmethod
    def from_value(x: ArrayLike) -> Zero:
        """The zero tangent of the primal value ``x``."""
        return Zero(tangent_aval_of(x))

    @staticmethod
    def from_primal_value(x: ArrayLike) -> Zero:
        """JAX's name for :meth:`from_value` (``ad.Zero.from_primal_value``)."""
        return Zero(tangent_aval_of(x))

    def __repr__(self) -> str:
        return f"Zero({self.aval.str_short()})"


#: A tangent or cotangent as rules and interpreters see it: a value (an mj array or tracer, a
#: NumPy array or scalar, a Python scalar) or a symbolic :class:`Zero`.
Tangent: TypeAlias = ArrayLike | Zero


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """The abstract value of a tangent of ``aval``: same shape and dtype for inexact values,
    ``float0`` for integers and booleans (which have no tangent space). A weak value's tangent
    is weak, as in JAX (a weak input's gradient stays weak at every order). A token's is the
    token type itself (JAX's ``AbstractToken.to_tangent_aval``): tokens are not differentiated,
    their tangents are symbolic zeros."""
    if is_token_aval(aval):
        return aval
    if is_inexact(aval.dtype):
        if type(aval) is ShapedArray:
            return aval
        return ShapedArray(aval.shape, aval.dtype, aval.weak_type)
    return ShapedArray(aval.shape, float0)


_AVAL_CACHE: dict[tuple[Any, ...], ShapedArray] = {}
_AVAL_CACHE_LIMIT = 4096


def shaped(shape: tuple[int, ...], dtype: np.dtype[Any], weak_type: bool = False) -> ShapedArray:
    """An interned ``ShapedArray``: building one costs more than looking it up, and the hot
    paths of jvp and partial evaluation ask for the same few types over and over."""
    key = (shape, dtype, weak_type)
    aval = _AVAL_CACHE.get(key)
    if aval is None:
        if len(_AVAL_CACHE) >= _AVAL_CACHE_LIMIT:
            _AVAL_CACHE.clear()
        aval = _AVAL_CACHE[key] = ShapedArray(shape, dtype, weak_type)
    return aval


_PY_SCALAR_AVALS: dict[type, ShapedArray] = {}
_PY_SCALAR_TANGENT_AVALS: dict[type, ShapedArray] = {}


def _set_mode(x64: bool) -> None:
    """Python scalars' avals follow the dtype mode (float32 or float64, ...); cached avals
    were narrowed (or not) for the old mode."""
    _AVAL_CACHE.clear()
    _PY_SCALAR_AVALS.update(
        {t: ShapedArray((), default_dtype_for_pytype(t), t is not bool) for t in _PY_SCALARS}
    )
    _PY_SCALAR_TANGENT_AVALS.update(
        {
            bool: ShapedArray((), float0),
            int: ShapedArray((), float0),
            float: _PY_SCALAR_AVALS[float],
            complex: _PY_SCALAR_AVALS[complex],
        }
    )


_PY_SCALARS = (bool, int, float, complex)
_set_mode(config.enable_x64)
on_x64_change(_set_mode)


def shaped_aval_of(x: ArrayLike) -> ShapedArray:
    """``raise_to_shaped(get_aval(x))``, fast for NumPy arrays and Python scalars."""
    if type(x) is np.ndarray or type(x) is EagerArray:
        return shaped(x.shape, x.dtype)
    aval = _PY_SCALAR_AVALS.get(type(x))
    if aval is not None:
        return aval
    aval = get_aval(x)
    if is_token_aval(aval):
        return aval
    return shaped(aval.shape, aval.dtype, aval.weak_type)


def tangent_aval_of(x: ArrayLike) -> ShapedArray:
    """``tangent_aval(get_aval(x))``, fast for NumPy arrays and Python scalars (the common
    cases on the jvp hot path, where building a ``ConcreteArray`` would be wasted work)."""
    if type(x) is np.ndarray or type(x) is EagerArray:
        dtype = x.dtype
        return shaped(x.shape, dtype if is_inexact(dtype) else float0)
    aval = _PY_SCALAR_TANGENT_AVALS.get(type(x))
    if aval is not None:
        return aval
    return tangent_aval(get_aval(x))


def tangents_with_zeros(
    nonzero_tangents: Iterable[Any], avals: Sequence[ShapedArray], nonzeros: Sequence[bool]
) -> list[Any]:
    """One tangent per aval: the next of ``nonzero_tangents`` where ``nonzeros`` is True, a
    symbolic :class:`Zero` elsewhere (a JVP jaxpr takes only the nonzero tangents)."""
    it = iter(nonzero_tangents)
    return [
        next(it) if nz else Zero(tangent_aval(a)) for a, nz in zip(avals, nonzeros, strict=True)
    ]


def zeros_like_aval(aval: ShapedArray) -> Array | np.ndarray[Any, Any]:
    """A concrete array of zeros of ``aval``: an mj array, as every result is (a zero
    cotangent ``grad`` returns included), except ``float0`` zeros for integer/bool avals,
    which stay NumPy arrays as JAX's do. A weak aval gives weak zeros (the gradient of a
    Python scalar is weakly typed, zero or not)."""
    zeros = np.zeros(aval.shape, aval.dtype)
    if is_float0(aval.dtype):
        return zeros
    return weak_result(zeros) if aval.weak_type else zeros.view(EagerArray)


def instantiate_zeros(t: Tangent) -> ArrayLike:
    """Turn a symbolic :class:`Zero` into an array of zeros; other values pass through."""
    if type(t) is Zero:
        return zeros_like_aval(t.aval)
    return t


def add_tangents(x: Tangent, y: Tangent) -> Tangent:
    """``x + y`` for tangents or cotangents of the same aval, skipping symbolic zeros."""
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    total: Array = bind1(add_p, x, y)
    return total


class _HasDType(Protocol):
    @property
    def dtype(self) -> np.dtype[Any]: ...


def shape_dtype(x: ArrayLike) -> tuple[tuple[int, ...], np.dtype[Any]]:
    """Shape and dtype of an array, NumPy scalar, tracer or Python scalar, cheaply."""
    shape = getattr(x, "shape", None)
    if shape is None:
        aval = get_aval(x)
        return aval.shape, aval.dtype
    return shape, cast(_HasDType, x).dtype  # an array or NumPy scalar: it has both


def fit_tangent(t: ArrayLike, primal: ArrayLike) -> ArrayLike:
    """``t`` broadcast and converted to the shape and dtype of ``primal``'s tangent.

    Elementwise primitives broadcast and promote their operands, so a tangent contribution
    from one operand (e.g. the ``x_dot`` of ``x + y``) may be smaller or of a narrower dtype
    than the output; this makes it a tangent of the output.
    """
    t_shape, t_dtype = shape_dtype(t)
    shape, dtype = shape_dtype(primal)
    if t_shape != shape:
        ndim = len(shape)
        dims = tuple(range(ndim - len(t_shape), ndim))
        t = bind1(broadcast_p, t, shape=tuple(shape), broadcast_dimensions=dims)
    if t_dtype != dtype and is_inexact(dtype):
        t = bind1(convert_element_type_p, t, new_dtype=dtype, weak_type=False)
    return t
