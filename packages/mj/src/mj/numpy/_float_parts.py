"""Taking floats apart and putting them together: ``frexp`` (mantissa and exponent read off
the bits, with ``jax.numpy``'s derivative ``dm = dx 2**-e``), ``ldexp`` (``x1 * 2**x2``
without overflowing early), ``modf`` (fractional and whole parts) and ``spacing`` (the gap to
the next float away from zero). All are built from ``lax`` bit operations, so they stage under
``jit`` and batch under ``vmap``."""

from __future__ import annotations

from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_autodiff import custom_jvp
from mj_core import lax
from mj_core.dtypes import float_info, is_inexact
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike, check_arraylike, dtype_weak, promote_inexact

__all__ = ["frexp", "ldexp", "modf", "spacing"]


def frexp(x: ArrayLike, /) -> tuple[Array, Array]:
    """``(m, e)`` with ``x == m * 2**e``, ``0.5 <= |m| < 1`` and ``e`` an int32 (``m = x``,
    ``e = 0`` for zeros, infinities and NaNs)."""
    check_arraylike("frexp", [x])
    (x,) = promote_inexact(cnp.asarray(x))
    dtype, _ = dtype_weak(x)
    if dtype.kind == "c":
        raise TypeError(f"frexp: complex inputs are not supported, got {dtype}{user_line_suffix()}")
    return _frexp(x)  # type: ignore[no-any-return]


@custom_jvp
def _frexp(x: ArrayLike) -> tuple[Array, Array]:
    dtype, _ = dtype_weak(x)
    info = float_info(dtype)
    int_dtype = np.dtype(f"int{info.bits}")
    mask = (1 << info.nexp) - 1
    bias = 1 - info.minexp
    # subnormals: scale into the normal range first, and remember the scale in the exponent
    tiny = lax.lt(lax.abs(x), info.tiny)
    scale = cnp.where(tiny, lax.full_like(x, 1 << info.nmant), lax.full_like(x, 1))
    normal = lax.mul(x, scale)
    exponent = cnp.where(tiny, np.array(-info.nmant, int_dtype), np.array(0, int_dtype))
    bits = lax.bitcast_convert_type(normal, int_dtype)
    biased = lax.bitwise_and(
        lax.shift_right_arithmetic(bits, np.array(info.nmant, int_dtype)), mask
    )
    exponent = lax.add(exponent, lax.add(lax.sub(biased, bias), 1))
    # keep sign and fraction, set the exponent field to that of [0.5, 1)
    bits = lax.bitwise_and(bits, np.array(~(mask << info.nmant), int_dtype))
    bits = lax.bitwise_or(bits, np.array((bias - 1) << info.nmant, int_dtype))
    mantissa = lax.bitcast_convert_type(bits, dtype)
    special = lax.bitwise_or(lax.bitwise_not(lax.is_finite(x)), lax.eq(x, lax.full_like(x, 0)))
    exponent = cnp.where(special, lax.full_like(exponent, 0), exponent)
    return cnp.where(special, x, mantissa), lax.convert_element_type(exponent, np.int32)


@_frexp.defjvp
def _frexp_jvp(primals: tuple[ArrayLike], tangents: tuple[ArrayLike]) -> tuple[Any, Any]:
    """``m = x 2**-e`` with ``e`` piecewise constant: ``dm = dx 2**-e``, no exponent tangent."""
    (x,), (t,) = primals, tangents
    m, e = _frexp(x)
    scale = lax.pow(2.0, lax.neg(lax.convert_element_type(e, dtype_weak(t)[0])))
    return (m, e), (lax.mul(t, scale), lax.full_like(e, 0))


def ldexp(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``x1 * 2**x2`` for float (or integer) ``x1`` and integer ``x2``, computed through the
    mantissa and exponent of ``x1`` so that e.g. ``ldexp(1e-300, 1500)`` does not overflow."""
    check_arraylike("ldexp", [x1, x2])
    d1, _ = dtype_weak(x1)
    d2, _ = dtype_weak(x2)
    if d1.kind == "c" or is_inexact(d2):
        raise ValueError(
            f"ldexp: x1 must be real and x2 an integer, got dtypes ({d1}, {d2}){user_line_suffix()}"
        )
    (x1,) = promote_inexact(cnp.asarray(x1))
    dtype, _ = dtype_weak(x1)
    m, e = frexp(x1)
    e = lax.add(lax.convert_element_type(e, dtype), lax.convert_element_type(x2, dtype))
    # the exponent may exceed the largest one by 1 and still give a finite result
    carry = lax.gt(e, lax.full_like(e, 0))
    m = cnp.where(carry, lax.mul(m, 2.0), m)
    e = cnp.where(carry, lax.sub(e, 1.0), e)
    out = lax.mul(m, lax.pow(2.0, e))
    keep = lax.bitwise_or(cnp.isinf(x1), lax.eq(x1, lax.full_like(x1, 0)))
    return cnp.where(keep, x1, out)


def modf(x: ArrayLike, /, out: None = None) -> tuple[Array, Array]:
    """``(x - whole, whole)`` with ``whole`` ``x`` rounded towards zero."""
    check_arraylike("modf", [x])
    if out is not None:
        raise NotImplementedError(f"modf: the out argument is not supported{user_line_suffix()}")
    (x,) = promote_inexact(x)
    whole = cnp.where(lax.ge(x, 0), cnp.floor(x), cnp.ceil(x))
    return lax.sub(x, whole), whole


def spacing(x: ArrayLike, /) -> Array:
    """The distance from ``x`` to the next float away from zero (for float16: towards
    +inf), signed like ``x``; at zero, the smallest subnormal."""
    (arr,) = promote_inexact(x)
    dtype, _ = dtype_weak(arr)
    if dtype.kind == "c":
        raise ValueError(
            f"spacing: complex inputs are not supported, got {dtype}{user_line_suffix()}"
        )
    inf = lax.full_like(arr, np.inf)
    if dtype == np.float16:  # NumPy's float16 rule
        return lax.sub(lax.nextafter(arr, inf), arr)
    result = lax.sub(lax.nextafter(arr, cnp.copysign(inf, arr)), arr)
    tiny = float_info(dtype).smallest_subnormal  # a NumPy scalar: strong, as in JAX
    smallest = cnp.copysign(lax.full_like(arr, tiny, dtype), arr)
    return cnp.where(lax.eq(result, lax.full_like(result, 0)), smallest, result)
