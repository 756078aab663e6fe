"""``arcsinh``, ``arccosh`` and ``arctanh`` on the principal branches NumPy and JAX use.

There are no inverse-hyperbolic primitives, so these are composites. The textbook formulas
(``log(x + sqrt(x*x + 1))``) are wrong for complex inputs (the ``|x|``/``sign(x)`` symmetry of
the real function does not hold in the plane, and ``arccosh``'s square root picks the wrong
branch for negative real parts) and lose precision near 0 and overflow for large ``|x|``.
Complex inputs therefore go through the circular inverses, which are primitives with NumPy
impls and XLA lowerings that already follow C99's branch cuts: ``asinh(z) = -i asin(iz)``,
``atanh(z) = -i atan(iz)`` and ``acosh(z) = ±i acos(z)`` (the sign that makes the real part
non-negative). Multiplying by ``±i`` swaps the parts instead of multiplying, so it is exact and
keeps signed zeros (which select the side of a branch cut). Real inputs use ``log1p`` forms
that are accurate near 0 and switch to ``log(2x)`` where ``x*x`` would lose its ``+ 1``.
"""

from __future__ import annotations

import math

from mj_core import lax
from mj_core._typing import Array, ArrayLike
from mj_core.numpy._promotion import dtype_weak, promote_inexact

__all__ = ["arccosh", "arcsinh", "arctanh"]

_LN2 = math.log(2.0)

# Beyond 1/sqrt(eps) of the real dtype, x*x + 1 == x*x and asinh(x) == acosh(x) == log(2x) to
# the last bit; below it x*x cannot overflow (keyed by the real dtype's itemsize).
_LARGE = {8: 2.0**27, 4: 2.0**12, 2: 2.0**5, 1: 2.0**3}


def _times_i(z: ArrayLike) -> Array:
    """``1j * z`` exactly: ``(x, y) -> (-y, x)``."""
    return lax.complex(lax.neg(lax.imag(z)), lax.real(z))


def _times_minus_i(z: ArrayLike) -> Array:
    """``-1j * z`` exactly: ``(x, y) -> (y, -x)``."""
    return lax.complex(lax.imag(z), lax.neg(lax.real(z)))


def _signbit(x: ArrayLike) -> Array:
    """Set for negative numbers and ``-0.0`` (``1 / -0.0`` is ``-inf``)."""
    return lax.bitwise_or(lax.less(x, 0), lax.less(lax.div(1.0, x), 0))


def _large(x: ArrayLike) -> tuple[Array, Array, Array]:
    """``(mask, x where small else 1, x where large else 1)``: each formula sees only inputs
    it is finite for, so the branch ``select`` drops cannot put ``0 * inf`` into a gradient."""
    dtype, _ = dtype_weak(x)
    mask = lax.greater(x, _LARGE.get(dtype.itemsize, 2.0**27))
    one = lax.full_like(x, 1)
    return mask, lax.select(mask, one, x), lax.select(mask, x, one)


def _log_2x(x: ArrayLike) -> Array:
    return lax.add(lax.log(x), _LN2)


def arcsinh(x: ArrayLike) -> Array:
    """Inverse hyperbolic sine; odd, with ``-0.0 -> -0.0`` and derivative 1 at 0."""
    (x,) = promote_inexact(x)
    dtype, _ = dtype_weak(x)
    if dtype.kind == "c":
        return _times_minus_i(lax.asin(_times_i(x)))
    negative = _signbit(x)
    a = lax.select(negative, lax.neg(x), x)
    large, small_a, large_a = _large(a)
    small = lax.log1p(
        lax.add(
            small_a,
            lax.div(
                lax.mul(small_a, small_a),
                lax.add(1.0, lax.sqrt(lax.add(lax.mul(small_a, small_a), 1.0))),
            ),
        )
    )
    r = lax.select(large, _log_2x(large_a), small)
    return lax.select(negative, lax.neg(r), r)


def arccosh(x: ArrayLike) -> Array:
    """Inverse hyperbolic cosine: real part ``>= 0``, imaginary part in ``(-pi, pi]``."""
    (x,) = promote_inexact(x)
    dtype, _ = dtype_weak(x)
    if dtype.kind == "c":
        w = lax.acos(x)
        u, v = lax.real(w), lax.imag(w)
        # i*acos(z) = (-v, u) when Im acos(z) is negative, else -i*acos(z) = (v, -u). On the
        # segment [-1, 1] the sign of v's zero says which side of the cut acos saw z on.
        minus_i = lax.bitwise_not(_signbit(v))
        return lax.complex(lax.select(minus_i, v, lax.neg(v)), lax.select(minus_i, lax.neg(u), u))
    large, small_x, large_x = _large(x)
    t = lax.sub(small_x, 1.0)  # exact for x in [1, 2] (Sterbenz)
    small = lax.log1p(lax.add(t, lax.sqrt(lax.mul(t, lax.add(t, 2.0)))))
    # Below 1 the result is NaN; a huge negative x would overflow ``t (t + 2)`` to +inf instead.
    small = lax.select(lax.less(x, 1.0), lax.full_like(small, math.nan), small)
    return lax.select(large, _log_2x(large_x), small)


def arctanh(x: ArrayLike) -> Array:
    """Inverse hyperbolic tangent; real ``|x| > 1`` is NaN, ``±1`` is ``±inf``."""
    (x,) = promote_inexact(x)
    dtype, _ = dtype_weak(x)
    if dtype.kind == "c":
        return _times_minus_i(lax.atan(_times_i(x)))
    return lax.mul(0.5, lax.log1p(lax.div(lax.mul(2.0, x), lax.sub(1.0, x))))
