"""``mj.numpy.i0`` and ``mj.numpy.nextafter``: jax.numpy's wrappers of the ``bessel_i0e`` and
``nextafter`` primitives."""

from __future__ import annotations

from mj_autodiff import custom_jvp, jvp
from mj_core import get_aval, lax
from mj_core import numpy as mnp
from mj_core.dtypes import is_float
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, check_ranks, promote_inexact

__all__ = ["i0", "nextafter"]


def nextafter(x: ArrayLike, y: ArrayLike, /) -> Array:
    """The next float after ``x`` towards ``y``, in their promoted float dtype."""
    check_ranks("nextafter", x, y)
    return lax.nextafter(*promote_inexact(x, y))


def i0(x: ArrayLike) -> AnyArray:
    """The modified Bessel function of the first kind, order 0: ``exp(|x|) i0e(|x|)``."""
    (x,) = promote_inexact(x)
    dtype = get_aval(x).dtype
    if not is_float(dtype):
        raise ValueError(f"Unsupported input type to mj.numpy.i0: {dtype.name}{user_line_suffix()}")
    return _i0(x)


def _i0_of_abs(x: ArrayLike) -> Array:
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), lax.bessel_i0e(abs_x))


@custom_jvp
def _i0(x: ArrayLike) -> Array:
    return _i0_of_abs(x)


@_i0.defjvp
def _i0_jvp(primals: tuple[ArrayLike], tangents: tuple[ArrayLike]) -> tuple[Array, Array]:
    """JAX's rule: the composition's derivative, but 0 at ``x == 0`` (where ``|x|`` has a
    kink that ``I0``'s zero slope makes irrelevant)."""
    out, tangent = jvp(_i0_of_abs, primals, tangents)
    return out, mnp.where(lax.eq(primals[0], 0.0), mnp.zeros_like(tangent), tangent)
