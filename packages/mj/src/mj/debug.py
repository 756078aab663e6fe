"""``mj.debug``: JAX's ``jax.debug.print`` and ``jax.debug.callback``, and the sharding
tables ``visualize_array_sharding``/``visualize_sharding``.

Both stage a ``debug_callback`` primitive, so they run whenever the program runs: eagerly at
once, under ``jit`` every time the compiled code runs (never while tracing), under ``grad`` on
the primal values, and under ``vmap`` once per example, in order.
"""

from __future__ import annotations

import builtins
import string
from collections.abc import Callable
from typing import Any

from mj._sharding_table import visualize_array_sharding as visualize_array_sharding
from mj._sharding_table import visualize_sharding as visualize_sharding
from mj_core import Tracer, bind, is_array
from mj_core.errors import user_line_suffix
from mj_core.prims.callback import HostCallback, debug_callback_p
from mj_core.tree_util import tree_flatten, tree_unflatten

__all__ = ["callback", "print", "visualize_array_sharding", "visualize_sharding"]


def _is_dynamic(x: object) -> bool:
    return isinstance(x, Tracer) or is_array(x)


def callback(
    callback: Callable[..., None] | None = None,
    *args: object,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: object,
) -> None:
    """Call ``callback(*args, **kwargs)`` with the runtime values of the array leaves of
    ``args``/``kwargs`` (NumPy arrays) each time the program runs; returns ``None``.

    ``ordered`` and ``partitioned`` are accepted for JAX compatibility: mj runs one program
    on one device, so callbacks always run in program order.
    """
    if callback is None or not builtins.callable(callback):
        raise TypeError(
            f"debug.callback: expected a callable, got {type(callback).__name__}"
            f"{user_line_suffix()}"
        )
    leaves, tree = tree_flatten((args, kwargs))
    dynamic = [_is_dynamic(x) for x in leaves]
    static = list(leaves)

    def flat_callback(*arrays: object) -> None:
        vals = iter(arrays)
        full = [next(vals) if d else s for d, s in zip(dynamic, static, strict=True)]
        call_args, call_kwargs = tree_unflatten(tree, full)
        callback(*call_args, **call_kwargs)

    operands = [x for x, d in zip(leaves, dynamic, strict=True) if d]
    bind(debug_callback_p, *operands, callback=HostCallback(flat_callback, "debug.callback"))


def print(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:
    """Print ``fmt.format(*args, **kwargs)`` with the runtime values of ``args``/``kwargs``
    each time the program runs (JAX's ``jax.debug.print``)."""
    if not isinstance(fmt, str):
        raise TypeError(
            f"debug.print: fmt must be a format string, got {type(fmt).__name__}"
            f"{user_line_suffix()}"
        )
    try:
        list(string.Formatter().parse(fmt))
    except ValueError as err:
        raise ValueError(f"debug.print: invalid format string {fmt!r}: {err}") from None

    def show(*call_args: object, **call_kwargs: object) -> None:
        builtins.print(fmt.format(*call_args, **call_kwargs))

    callback(show, *args, ordered=ordered, **kwargs)
