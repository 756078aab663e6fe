"""``lax.composite``: a function marked as one named operation (StableHLO ``composite``).

``composite(decomposition, name, version=0)`` returns a function that traces
``decomposition`` on its arguments (keyword arguments are the composite's attributes, static:
NumPy arrays, scalars, strings and dtypes) and binds the ``composite`` primitive with the traced
jaxpr. Eagerly the jaxpr is evaluated; under ``jit`` it lowers to ``stablehlo.composite "name"``
whose ``decomposition`` is a private function of that name holding the jaxpr, so a backend may
match the name and substitute its own kernel. As in JAX the primitive has no JVP rule (use
``custom_jvp``); ``vmap`` batches the decomposition (the composite is then inlined).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from mj_autodiff.extend import jvp_rules
from mj_batch import vmap
from mj_batch.extend import Dims, RuleResult, Vals, not_mapped, vmap_rules
from mj_core import Primitive, ShapedArray, Tracer, bind, get_aval, impl_rules, raise_to_shaped
from mj_core.errors import TracerLeakError
from mj_core.extend import abstract_eval_rules
from mj_core.tree_util import tree_flatten, tree_unflatten
from mj_ir import ClosedJaxpr, eval_jaxpr, jaxpr_as_fun
from mj_ir.extend import trace_to_closed_jaxpr
from mj_xla._jaxlib import Value, hlo, ir, ir_element_type
from mj_xla._lowering import Avals, LoweringContext, Values, aval_to_ir_type, lowering_rules

__all__ = ["composite", "composite_p"]

composite_p = Primitive("composite", multiple_results=True)


class _Attribute:
    """An attribute value in the primitive's params (hashed by identity: arrays are not
    hashable)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)


def composite(decomposition: Callable[..., Any], name: str, version: int = 0) -> Callable[..., Any]:
    """``decomposition`` as the composite operation ``name`` (``jax.lax.composite``); usable as
    a decorator, ``@partial(lax.composite, name="my.op")``. Keyword arguments of the call are
    the composite's attributes."""

    @functools.wraps(decomposition)
    def composite_fun(*args: Any, **kwargs: Any) -> Any:
        for key, value in kwargs.items():
            if isinstance(value, Tracer):
                raise TracerLeakError(
                    f"The composite attribute {key!r} of {name!r} is a traced value.\n"
                    "Note: If you are passing jax arrays as attributes, use numpy arrays "
                    "instead."
                )
        flat, in_tree = tree_flatten(args)
        avals = [raise_to_shaped(get_aval(x)) for x in flat]
        out_tree: list[Any] = []

        def flat_fun(*xs: Any) -> list[Any]:
            outs, tree = tree_flatten(decomposition(*tree_unflatten(in_tree, xs), **kwargs))
            out_tree.append(tree)
            return outs

        closed = trace_to_closed_jaxpr(flat_fun, avals)
        if any(isinstance(c, Tracer) for c in closed.consts):
            raise TracerLeakError(
                "Found a JAX Tracer as a constant in the decomposition for the composite op "
                f"{name!r}. This means that the decomposition function closes over a value "
                "that is involved in a JAX transformation. Any values that aren't explicitly "
                "known at compile time must be explicitly passed as arguments to the composite."
            )
        attributes = tuple(
            (key, _Attribute(value)) for key, value in sorted(kwargs.items()) if value is not None
        )
        outs = bind(
            composite_p, *flat, name=name, attributes=attributes, version=version, jaxpr=closed
        )
        return tree_unflatten(out_tree[0], outs)

    return composite_fun


def _impl(*args: Any, jaxpr: ClosedJaxpr, **_: Any) -> list[Any]:
    return eval_jaxpr(jaxpr, args)


def _abstract_eval(*avals: ShapedArray, jaxpr: ClosedJaxpr, **_: Any) -> list[ShapedArray]:
    return list(jaxpr.out_avals)


def _jvp(*_: Any, **__: Any) -> Any:
    raise ValueError(
        "JVP rule for composite not implemented. You can use `jax.custom_jvp` to add support. "
        "See https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html"
    )


def _batch(axis_size: int, vals: Vals, dims: Dims, *, jaxpr: ClosedJaxpr, **_: Any) -> RuleResult:
    axes = [None if d is not_mapped else d for d in dims]
    outs = vmap(jaxpr_as_fun(jaxpr), in_axes=axes, axis_size=axis_size)(*vals)
    return list(outs), [0] * len(outs)


def _attribute(value: Any) -> ir.Attribute:
    """A composite attribute as MLIR (JAX's ``_composite_attribute``)."""
    if isinstance(value, np.dtype):
        return ir.TypeAttr.get(ir_element_type(value))
    if isinstance(value, bool | np.bool_):
        return ir.BoolAttr.get(bool(value))
    if isinstance(value, int | np.integer):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))
    if isinstance(value, float | np.floating):
        return ir.FloatAttr.get(ir.F32Type.get(), float(value))
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    if isinstance(value, np.ndarray):
        return ir.DenseElementsAttr.get(value)  # type: ignore[call-overload,no-any-return]
    raise TypeError(f"Unsupported attribute type: {type(value)}")


def _lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    name: str,
    attributes: tuple[tuple[str, _Attribute], ...],
    version: int,
    jaxpr: ClosedJaxpr,
) -> list[Value]:
    """``stablehlo.composite "name"`` with the jaxpr as the private function ``@name``."""
    fn = ctx.private_function(
        name,
        ("composite", id(jaxpr)),
        avals_in,
        avals_out,
        lambda params: ctx.lower_jaxpr(jaxpr, params),
        keep_alive=jaxpr,
        exact_name=True,
    )
    symbol = ir.StringAttr(fn.attributes["sym_name"]).value
    op = hlo.CompositeOp(
        [aval_to_ir_type(a) for a in avals_out],
        list(in_vals),
        name=ir.StringAttr.get(name),
        decomposition=ir.FlatSymbolRefAttr.get(symbol),
        composite_attributes=ir.DictAttr.get(
            {key: _attribute(holder.value) for key, holder in attributes}
        ),
        version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), version),
        num_composite_regions=0,
    )
    return list(op.results)


impl_rules[composite_p] = _impl
abstract_eval_rules[composite_p] = _abstract_eval
jvp_rules[composite_p] = _jvp
vmap_rules[composite_p] = _batch
lowering_rules[composite_p] = _lowering
