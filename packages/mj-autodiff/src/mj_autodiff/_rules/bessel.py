"""JVP rules of ``bessel_i0e`` and ``bessel_i1e`` (JAX's): ``i0e' = i1e - sign(x) i0e`` and
``i1e' = i0e - i1e (sign(x) + 1/x)``, with the limit 1/2 at ``x = 0``."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_autodiff._jvp import defjvp2
from mj_autodiff._tangents import shape_dtype
from mj_core import lax, lax_special
from mj_core.prims import bessel

Array = Any


def _i0e_jvp(g: Array, y: Array, x: Array) -> Array:
    return lax.mul(g, lax.sub(lax_special.bessel_i1e(x), lax.mul(lax.sign(x), y)))


defjvp2(bessel.bessel_i0e_p, _i0e_jvp)


def _i1e_jvp(g: Array, y: Array, x: Array) -> Array:
    _, dtype = shape_dtype(y)
    eps = float(np.finfo(dtype).eps)
    not_tiny = lax.gt(lax.abs(x), eps)
    safe_x = lax.select(not_tiny, x, lax.full_like(x, eps))
    slope = lax.sub(
        lax_special.bessel_i0e(safe_x),
        lax.mul(y, lax.add(lax.sign(safe_x), lax.div(1.0, safe_x))),
    )
    return lax.mul(g, lax.select(not_tiny, slope, lax.full_like(slope, 0.5)))


defjvp2(bessel.bessel_i1e_p, _i1e_jvp)
