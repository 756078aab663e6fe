"""``cross``: the cross product of 2- and 3-vectors along chosen axes (2-vectors give the
scalar z component), as ``numpy.cross`` and ``jax.numpy.cross``."""

from __future__ import annotations

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike, promote

__all__ = ["cross"]


def cross(
    a: ArrayLike,
    b: ArrayLike,
    axisa: int = -1,
    axisb: int = -1,
    axisc: int = -1,
    axis: int | None = None,
) -> Array:
    """``a x b`` for vectors along ``axisa``/``axisb`` (``axis`` sets all three); the result's
    vector axis is ``axisc``. Leading axes broadcast."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote(cnp.asarray(a), cnp.asarray(b))
    a, b = cnp.moveaxis(a, axisa, -1), cnp.moveaxis(b, axisb, -1)
    if cnp.shape(a)[-1] not in (2, 3) or cnp.shape(b)[-1] not in (2, 3):
        raise ValueError(
            f"cross: vector dimensions must be 2 or 3, got shapes {cnp.shape(a)} and "
            f"{cnp.shape(b)} (vector axis last){user_line_suffix()}"
        )
    if cnp.shape(a)[-1] == 2 and cnp.shape(b)[-1] == 2:
        return cnp.subtract(cnp.multiply(a[..., 0], b[..., 1]), cnp.multiply(a[..., 1], b[..., 0]))
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    a2 = a[..., 2] if cnp.shape(a)[-1] == 3 else lax.full_like(a0, 0)
    b2 = b[..., 2] if cnp.shape(b)[-1] == 3 else lax.full_like(b0, 0)
    c = cnp.stack(
        cnp.broadcast_arrays(
            cnp.subtract(cnp.multiply(a1, b2), cnp.multiply(a2, b1)),
            cnp.subtract(cnp.multiply(a2, b0), cnp.multiply(a0, b2)),
            cnp.subtract(cnp.multiply(a0, b1), cnp.multiply(a1, b0)),
        )
    )
    return cnp.moveaxis(c, 0, axisc)
