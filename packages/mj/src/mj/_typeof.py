"""``mj.typeof``: the abstract value (shape, dtype, weak type) of a value or tracer."""

from __future__ import annotations

from mj_core import ShapedArray, get_aval, raise_to_shaped
from mj_core.extend import array_views

__all__ = ["typeof"]


def typeof(x: object) -> ShapedArray:
    """``x``'s ``ShapedArray`` (JAX 0.10.2's ``jax.typeof``): ``float32[2,3]``; a weakly typed
    Python scalar prints as ``~float32[]`` (``~float64[]`` with ``jax_enable_x64``); a typed
    key array's has its key dtype (``key<fry>[3]``), traced or not. Raises ``TypeError`` for
    non-array values."""
    if type(x) in array_views:  # a view (typed keys): its shape and dtype, not its data's
        shape, dtype = getattr(x, "shape"), getattr(x, "dtype")  # noqa: B009
        return ShapedArray(shape, dtype)
    return raise_to_shaped(get_aval(x))
