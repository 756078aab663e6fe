"""Integer and quotient arithmetic beyond the ufunc core: ``divmod`` (floor quotient and
remainder together, with ``jax.numpy``'s float algorithm), ``gcd`` (Euclid's algorithm as one
``while_loop``, so it stages under ``jit`` and batches under ``vmap``) and ``lcm``."""

from __future__ import annotations

import mj_core.numpy as cnp
from mj_control import while_loop
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, check_ranks, dtype_weak, promote

__all__ = ["divmod", "gcd", "lcm"]


def divmod(x1: ArrayLike, x2: ArrayLike, /) -> tuple[Array, Array]:
    """``(x1 // x2, x1 % x2)``; for floats the quotient is rounded from the corrected
    ``(x1 - mod) / x2`` so that ``div * x2 + mod == x1`` holds as closely as possible."""
    check_ranks("divmod", x1, x2)
    x1, x2 = promote(x1, x2)
    dtype, _ = dtype_weak(x1)
    if dtype.kind == "b":
        raise TypeError(f"divmod: bool operands are not supported{user_line_suffix()}")
    if dtype.kind in "iu":
        return cnp.floor_divide(x1, x2), cnp.remainder(x1, x2)
    if dtype.kind == "c":
        raise TypeError(f"divmod: complex operands are not supported{user_line_suffix()}")
    x1, x2 = cnp.broadcast_arrays(x1, x2)
    mod = lax.rem(x1, x2)
    zero = lax.full_like(x2, 0)
    corrected = lax.select(lax.eq(x2, zero), x1, lax.sub(x1, mod))
    div = lax.div(corrected, x2)
    fix = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.sign(x2), lax.sign(mod)))
    mod = lax.select(fix, lax.add(mod, x2), mod)
    div = lax.select(fix, lax.sub(div, lax.full_like(div, 1)), div)
    return lax.round(div), mod


def _integers(name: str, x1: ArrayLike, x2: ArrayLike) -> tuple[Array, Array]:
    x1, x2 = promote(x1, x2)
    dtype, _ = dtype_weak(x1)
    if dtype.kind not in "iu":
        raise ValueError(
            f"{name}: arguments must be integers, got dtype {dtype}{user_line_suffix()}"
        )
    b1, b2 = cnp.broadcast_arrays(lax.abs(x1), lax.abs(x2))
    return lax.convert_element_type(b1, dtype), lax.convert_element_type(b2, dtype)


def _gcd_continue(carry: tuple[ArrayLike, ArrayLike]) -> Array:
    return cnp.any(lax.ne(carry[1], lax.full_like(carry[1], 0)))


def _gcd_step(carry: tuple[ArrayLike, ArrayLike]) -> tuple[Array, Array]:
    """One Euclid step ``(a, b) -> (b, a mod b)`` where ``b != 0``, kept ordered ``a >= b``."""
    a, b = carry
    zero = lax.full_like(b, 0)
    nonzero = lax.ne(b, zero)
    divisor = lax.select(nonzero, b, a)
    a, b = divisor, lax.select(nonzero, lax.rem(a, divisor), zero)
    swap = lax.lt(a, b)
    return lax.select(swap, b, a), lax.select(swap, a, b)


def gcd(x1: ArrayLike, x2: ArrayLike) -> AnyArray:
    """The greatest common divisor of ``|x1|`` and ``|x2|`` (``gcd(0, 0) == 0``)."""
    a, b = _integers("gcd", x1, x2)
    result, _ = while_loop(_gcd_continue, _gcd_step, (a, b))
    return result


def lcm(x1: ArrayLike, x2: ArrayLike) -> Array:
    """The least common multiple of ``|x1|`` and ``|x2|`` (0 when either is 0)."""
    a, b = _integers("lcm", x1, x2)
    d = gcd(a, b)
    zero = lax.full_like(d, 0)
    safe = lax.select(lax.eq(d, zero), lax.full_like(d, 1), d)
    return lax.select(lax.eq(d, zero), zero, lax.mul(a, cnp.floor_divide(b, safe)))
