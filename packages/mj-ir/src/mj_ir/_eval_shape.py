"""``eval_shape``: the output shapes and dtypes of a function, computed without running it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mj_ir._tracing import make_jaxpr

__all__ = ["eval_shape"]


def eval_shape(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """A pytree of ``ShapeDtypeStruct`` shaped like ``fun(*args, **kwargs)``'s output.

    Only shapes/dtypes of ``args`` matter (arrays, or ``ShapeDtypeStruct``/``ShapedArray``
    placeholders); ``fun`` is traced, never evaluated, as ``jax.eval_shape``.
    """
    _, out_shape = make_jaxpr(fun, return_shape=True)(*args, **kwargs)
    return out_shape
