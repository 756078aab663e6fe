"""``mj.experimental.io_callback``: call an impure Python function (I/O, host state) from any
mj program (JAX's ``jax.experimental.io_callback``).

Unlike ``pure_callback`` it is one primitive of its own, ``io_callback``, whose lowering is
marked ``has_side_effect``: XLA never removes it, even when its results are unused, nor
merges two calls. It has no derivative. Under ``vmap`` an unordered callback runs once per
example, in order; an ``ordered=True`` one cannot be batched (as in JAX). ``ordered`` is
otherwise accepted for JAX compatibility: mj runs a program's callbacks in program order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj._pure_callback import flat_callback
from mj_autodiff.extend import jvp_rules
from mj_batch.extend import vmap_rules
from mj_core import ShapedArray, bind
from mj_core import lax as mlax
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    HostCallback,
    Primitive,
    abstract_eval_rules,
    check_callback_outputs,
    impl_rules,
)
from mj_core.tree_util import tree_unflatten
from mj_xla.extend import emit_callback, lowering_rules

__all__ = ["io_callback", "io_callback_p"]

io_callback_p = Primitive("io_callback", multiple_results=True)


@impl_rules.register(io_callback_p)
def _io_callback_impl(
    *args: object, callback: HostCallback, result_avals: tuple[ShapedArray, ...], ordered: bool
) -> list[Any]:
    return check_callback_outputs(callback.api, callback(*args), result_avals)


@abstract_eval_rules.register(io_callback_p)
def _io_callback_abstract_eval(
    *avals: ShapedArray, result_avals: tuple[ShapedArray, ...], **params: object
) -> list[ShapedArray]:
    return list(result_avals)


@lowering_rules.register(io_callback_p)
def _io_callback_lowering(
    ctx: Any,
    avals_in: Any,
    avals_out: Any,
    in_vals: Any,
    *,
    callback: HostCallback,
    result_avals: tuple[ShapedArray, ...],
    ordered: bool,
) -> list[Any]:
    def run(*args: object) -> tuple[Any, ...]:
        outs = check_callback_outputs(callback.api, callback(*args), result_avals)
        return tuple(np.asarray(o, order="C") for o in outs)

    return emit_callback(ctx, run, avals_in, in_vals, avals_out, has_side_effect=True)


@jvp_rules.register(io_callback_p)
def _io_callback_jvp(
    primals: list[Any], tangents: list[Any], **params: object
) -> tuple[list[Any], list[Any]]:
    raise ValueError(f"IO callbacks do not support JVP{user_line_suffix()}")


@vmap_rules.register(io_callback_p)
def _io_callback_vmap(
    axis_size: int, vals: list[Any], dims: list[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    if params["ordered"]:
        raise ValueError(f"Cannot vmap ordered IO callback{user_line_suffix()}")
    per_example = []
    for i in range(axis_size):
        example = [
            v if not isinstance(d, int) else mlax.index_in_dim(v, i, d, keepdims=False)
            for v, d in zip(vals, dims, strict=True)
        ]
        per_example.append(bind(io_callback_p, *example, **params))
    result_avals = params["result_avals"]
    if axis_size == 0:
        return [np.zeros((0, *a.shape), a.dtype) for a in result_avals], [0] * len(result_avals)
    outs = [
        mlax.concatenate([mlax.expand_dims(ex[k], (0,)) for ex in per_example], 0)
        for k in range(len(result_avals))
    ]
    return outs, [0] * len(outs)


def io_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: object,
    *args: object,
    sharding: object = None,
    ordered: bool = False,
    **kwargs: object,
) -> Any:
    """``callback(*args, **kwargs)`` on NumPy values, run for its effect each time the
    program runs; it returns arrays of the types in ``result_shape_dtypes`` (``None`` for no
    result)."""
    flat = flat_callback("io_callback", callback, result_shape_dtypes, args, kwargs)
    outs = bind(
        io_callback_p,
        *flat.leaves,
        callback=flat.callback,
        result_avals=flat.result_avals,
        ordered=bool(ordered),
    )
    return tree_unflatten(flat.result_tree, outs)
