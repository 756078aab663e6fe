"""``iscomplex``/``isreal``: elementwise tests of a value's imaginary part (not its dtype:
``iscomplexobj`` asks about the dtype)."""

from __future__ import annotations

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.extend import Array, ArrayLike

__all__ = ["iscomplex", "isreal"]


def iscomplex(x: ArrayLike) -> Array:
    """True where the imaginary part of ``x`` is non-zero (all False for real dtypes)."""
    i = cnp.imag(x)
    return lax.ne(i, lax.full_like(i, 0))


def isreal(x: ArrayLike) -> Array:
    """True where the imaginary part of ``x`` is zero (all True for real dtypes)."""
    i = cnp.imag(x)
    return lax.eq(i, lax.full_like(i, 0))
