"""``mj.typeof``: the abstract value (shape, dtype, weak type) of a value or tracer."""

from __future__ import annotations

from mj_core import ShapedArray, get_aval, raise_to_shaped

__all__ = ["typeof"]


def typeof(x: object) -> ShapedArray:
    """``x``'s ``ShapedArray`` (JAX 0.10.2's ``jax.typeof``): ``float32[2,3]``; a weakly typed
    Python scalar prints as ``~float32[]`` (``~float64[]`` with ``jax_enable_x64``). Raises
    ``TypeError`` for non-array values."""
    return raise_to_shaped(get_aval(x))
