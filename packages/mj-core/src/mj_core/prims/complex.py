"""Complex-number primitives: ``real``, ``imag``, ``conj`` and ``complex``.

Like ``jax.lax``: ``real``/``imag`` take a complex operand and return its float parts;
``conj`` takes a float or complex operand and always returns a complex value (its param
``input_dtype`` records the operand dtype, which its transpose needs); ``complex(x, y)``
builds ``x + i*y`` from two float operands, which broadcast like NumPy.

The lax wrappers ``real``, ``imag``, ``conj`` and ``complex`` follow the rules; ``__all__`` is
the family's primitives and lax API.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core._avals import ShapedArray
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error, broadcast_shapes
from mj_core._typing import Array, ArrayLike, DType
from mj_core.dtypes import dtype_of, result_type
from mj_core.prims._operands import bind1, check_operands

__all__ = [
    "complex",
    "complex_p",
    "conj",
    "conj_p",
    "imag",
    "imag_p",
    "real",
    "real_p",
]


_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64)}
_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32)}


def complex_dtype(dtype: DType) -> DType:
    """The complex dtype with ``dtype``'s precision (float32 -> complex64, else complex128)."""
    if dtype.kind == "c":
        return dtype
    return _COMPLEX_OF.get(dtype, np.dtype(np.complex128))


def real_dtype(dtype: DType) -> DType:
    """The float dtype of a complex dtype's parts (complex64 -> float32); floats are kept."""
    if dtype.kind != "c":
        return dtype
    return _REAL_OF.get(dtype, np.dtype(np.float64))


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


# --- real / imag --------------------------------------------------------------------------------
def _part_avals(name: str) -> Any:
    def rule(x: ShapedArray) -> list[ShapedArray]:
        if x.dtype.kind != "c":
            raise aval_error(name, "requires a complex operand", [x])
        return [ShapedArray(x.shape, real_dtype(x.dtype), x.weak_type)]

    rule.__name__ = f"_{name}_avals"
    return rule


real_p = Primitive("real")
imag_p = Primitive("imag")
abstract_eval_rules[real_p] = _part_avals("real")
abstract_eval_rules[imag_p] = _part_avals("imag")


@impl_rules.register(real_p)
def _real_impl(x: Any) -> list[Any]:
    (out,) = check_operands(real_p, (x,), {})
    return [np.asarray(np.real(x), out.dtype)[()]]


@impl_rules.register(imag_p)
def _imag_impl(x: Any) -> list[Any]:
    (out,) = check_operands(imag_p, (x,), {})
    return [np.asarray(np.imag(x), out.dtype)[()]]


# --- conj -----------------------------------------------------------------------------------------
conj_p = Primitive("conj")


@abstract_eval_rules.register(conj_p)
def _conj_avals(x: ShapedArray, *, input_dtype: DType) -> list[ShapedArray]:
    if x.dtype.kind != "c" and x.dtype not in _FLOATS:
        raise aval_error("conj", "requires a float32/float64/complex operand", [x])
    return [ShapedArray(x.shape, complex_dtype(x.dtype), x.weak_type)]


@impl_rules.register(conj_p)
def _conj_impl(x: ArrayLike, *, input_dtype: DType) -> list[Any]:
    (out,) = check_operands(conj_p, (x,), {"input_dtype": input_dtype})
    return [np.conjugate(np.asarray(x, out.dtype))[()]]


# --- complex --------------------------------------------------------------------------------------
complex_p = Primitive("complex")


@abstract_eval_rules.register(complex_p)
def _complex_avals(x: ShapedArray, y: ShapedArray) -> list[ShapedArray]:
    shape = broadcast_shapes("complex", x.shape, y.shape)
    strong = {a.dtype for a in (x, y) if not a.weak_type}
    dtype, weak = result_type((x.dtype, x.weak_type), (y.dtype, y.weak_type))
    if len(strong) > 1 or dtype not in _FLOATS:
        raise aval_error("complex", "requires two float32 or two float64 operands", [x, y])
    return [ShapedArray(shape, complex_dtype(dtype), weak)]


@impl_rules.register(complex_p)
def _complex_impl(x: Any, y: Any) -> list[Any]:
    (out_aval,) = check_operands(complex_p, (x, y), {})
    # x + 1j * y would turn an infinite imaginary part into nan + inf*j: set the parts instead
    out = np.empty(out_aval.shape, out_aval.dtype)
    out.real = np.broadcast_to(x, out_aval.shape)
    out.imag = np.broadcast_to(y, out_aval.shape)
    return [out[()]]


# --- lax wrappers ----------------------------------------------------------------------------
def real(x: ArrayLike) -> Array:
    """The real part of a complex ``x`` (float32 for complex64, float64 for complex128)."""
    return bind1(real_p, x)


def imag(x: ArrayLike) -> Array:
    """The imaginary part of a complex ``x``."""
    return bind1(imag_p, x)


def conj(x: ArrayLike) -> Array:
    """The complex conjugate of ``x`` (always complex, as ``jax.lax.conj``)."""
    return bind1(conj_p, x, input_dtype=dtype_of(x))


def complex(x: ArrayLike, y: ArrayLike) -> Array:
    """``x + i*y`` from two float operands of one dtype (broadcast like NumPy)."""
    return bind1(complex_p, x, y)
