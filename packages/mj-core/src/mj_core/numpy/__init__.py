"""NumPy-style API built only from :mod:`mj_core.lax` wrappers (``import mj.numpy as mnp``)."""

from __future__ import annotations

from typing import Any

from mj_core import lax
from mj_core._array_methods import array_methods

Array = Any

sin = lax.sin
cos = lax.cos
tanh = lax.tanh
exp = lax.exp
log = lax.log
add = lax.add
subtract = lax.sub
multiply = lax.mul
negative = lax.neg


def true_divide(x: Array, y: Array) -> Array:
    return lax.div(x, y)


divide = true_divide

array_methods.update(
    __truediv__=true_divide, __rtruediv__=lambda self, other: true_divide(other, self)
)
