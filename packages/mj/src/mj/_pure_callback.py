"""``mj.pure_callback``: call a pure Python function of arrays from any mj program.

The callback receives NumPy arrays and must return arrays of the declared shapes and dtypes
(``result_shape_dtypes``, a pytree of ``ShapeDtypeStruct``-like leaves). Under ``jit`` it runs
on the host each time the compiled program runs. It has no derivative (use ``custom_jvp`` or
``custom_vjp``); under ``vmap`` its ``vmap_method`` says how it sees the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core import ShapedArray, bind
from mj_core.errors import user_line_suffix
from mj_core.prims.callback import VMAP_METHODS, HostCallback, pure_callback_p
from mj_core.tree_util import tree_flatten, tree_unflatten

__all__ = ["pure_callback"]


def _result_aval(x: Any) -> ShapedArray:
    if not (hasattr(x, "shape") and hasattr(x, "dtype")):
        raise TypeError(
            "pure_callback: result_shape_dtypes leaves must have .shape and .dtype (e.g. "
            f"mj.ShapeDtypeStruct), got {type(x).__name__}{user_line_suffix()}"
        )
    return ShapedArray(tuple(x.shape), np.dtype(x.dtype))


def pure_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    vmap_method: str | None = None,
    **kwargs: Any,
) -> Any:
    """``callback(*args, **kwargs)`` on NumPy values, as a pure function of the array leaves
    of ``args``/``kwargs`` returning arrays of the types in ``result_shape_dtypes``."""
    if not callable(callback):
        raise TypeError(
            f"pure_callback: expected a callable, got {type(callback).__name__}{user_line_suffix()}"
        )
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise ValueError(
            f"pure_callback: vmap_method must be one of {', '.join(map(repr, VMAP_METHODS))} "
            f"or None, got {vmap_method!r}{user_line_suffix()}"
        )
    result_leaves, result_tree = tree_flatten(result_shape_dtypes)
    result_avals = tuple(_result_aval(x) for x in result_leaves)
    leaves, in_tree = tree_flatten((args, kwargs))

    def flat_callback(*arrays: Any) -> list[Any]:
        call_args, call_kwargs = tree_unflatten(in_tree, arrays)
        outs, out_tree = tree_flatten(callback(*call_args, **call_kwargs))
        if out_tree != result_tree:
            raise TypeError(
                f"pure_callback: the callback returned a value of structure {out_tree}, but "
                f"result_shape_dtypes has structure {result_tree}"
            )
        return outs

    outs = bind(
        pure_callback_p,
        *leaves,
        callback=HostCallback(flat_callback, "pure_callback"),
        result_avals=result_avals,
        vmap_method=vmap_method,
    )
    return tree_unflatten(result_tree, outs)
