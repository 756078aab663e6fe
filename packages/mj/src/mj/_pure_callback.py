"""``mj.pure_callback``: call a pure Python function of arrays from any mj program.

The callback receives NumPy arrays and must return arrays of the declared shapes and dtypes
(``result_shape_dtypes``, a pytree of ``ShapeDtypeStruct``-like leaves). Under ``jit`` it runs
on the host each time the compiled program runs. It has no derivative (use ``custom_jvp`` or
``custom_vjp``); under ``vmap`` its ``vmap_method`` says how it sees the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from mj_core import ShapedArray, bind
from mj_core.dtypes import canonical_dtype
from mj_core.errors import user_line_suffix
from mj_core.prims.callback import VMAP_METHODS, HostCallback, pure_callback_p
from mj_core.tree_util import PyTreeDef, tree_flatten, tree_unflatten

__all__ = ["pure_callback"]


class FlatCallback(NamedTuple):
    """A host callback of pytrees as its primitive takes it: flat array operands in, flat
    results out, with the result types and the structure to rebuild the results."""

    callback: HostCallback
    leaves: list[Any]
    result_avals: tuple[ShapedArray, ...]
    result_tree: PyTreeDef


def flat_callback(
    api: str,
    callback: Callable[..., Any],
    result_shape_dtypes: object,
    args: object,
    kwargs: object,
) -> FlatCallback:
    """``callback(*args, **kwargs)`` over the flattened array leaves, checked as ``api``
    (``pure_callback``, ``io_callback``) checks it: a callable, results of the structure and
    types of ``result_shape_dtypes``."""
    if not callable(callback):
        raise TypeError(
            f"{api}: expected a callable, got {type(callback).__name__}{user_line_suffix()}"
        )
    result_leaves, result_tree = tree_flatten(result_shape_dtypes)
    result_avals = tuple(_result_aval(api, x) for x in result_leaves)
    leaves, in_tree = tree_flatten((args, kwargs))

    def flat(*arrays: object) -> list[Any]:
        call_args, call_kwargs = tree_unflatten(in_tree, arrays)
        outs, out_tree = tree_flatten(callback(*call_args, **call_kwargs))
        if out_tree != result_tree:
            raise TypeError(
                f"{api}: the callback returned a value of structure {out_tree}, but "
                f"result_shape_dtypes has structure {result_tree}"
            )
        return outs

    return FlatCallback(HostCallback(flat, api), leaves, result_avals, result_tree)


def _result_aval(api: str, x: object) -> ShapedArray:
    if not (hasattr(x, "shape") and hasattr(x, "dtype")):
        raise TypeError(
            f"{api}: result_shape_dtypes leaves must have .shape and .dtype (e.g. "
            f"mj.ShapeDtypeStruct), got {type(x).__name__}{user_line_suffix()}"
        )
    dtype = np.dtype(x.dtype)
    if canonical_dtype(dtype) != dtype:
        raise ValueError(
            "result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` is disabled "
            f"({api}: {dtype.name}; mj's option is enable_x64){user_line_suffix()}"
        )
    return ShapedArray(tuple(x.shape), dtype)


def pure_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: object,
    *args: object,
    sharding: object = None,
    vmap_method: str | None = None,
    **kwargs: object,
) -> Any:
    """``callback(*args, **kwargs)`` on NumPy values, as a pure function of the array leaves
    of ``args``/``kwargs`` returning arrays of the types in ``result_shape_dtypes``."""
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise ValueError(
            f"pure_callback: vmap_method must be one of {', '.join(map(repr, VMAP_METHODS))} "
            f"or None, got {vmap_method!r}{user_line_suffix()}"
        )
    flat = flat_callback("pure_callback", callback, result_shape_dtypes, args, kwargs)
    outs = bind(
        pure_callback_p,
        *flat.leaves,
        callback=flat.callback,
        result_avals=flat.result_avals,
        vmap_method=vmap_method,
    )
    return tree_unflatten(flat.result_tree, outs)
