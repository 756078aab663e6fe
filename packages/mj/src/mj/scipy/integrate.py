"""``mj.scipy.integrate``: ``jax.scipy.integrate`` (the trapezoid rule)."""

from __future__ import annotations

from functools import partial

import mj.numpy as mnp
from mj_core.extend import Array, ArrayLike
from mj_xla import jit

__all__ = ["trapezoid"]


def trapezoid(
    y: ArrayLike, x: ArrayLike | None = None, dx: ArrayLike = 1.0, axis: int = -1
) -> Array:
    """The integral of ``y`` along ``axis`` by the trapezoid rule, at sample points ``x`` (or
    spacing ``dx``); jitted, as JAX's."""
    return _trapezoid(y, x, dx, axis)  # type: ignore[no-any-return]


@partial(jit, static_argnums=(3,))
def _trapezoid(y: ArrayLike, x: ArrayLike | None, dx: ArrayLike, axis: int) -> Array:
    return mnp.trapezoid(y, x, dx, axis)
