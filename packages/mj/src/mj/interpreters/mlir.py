"""``mj.interpreters.mlir``: JAX's lowering registry (``jax.interpreters.mlir``) over
``mj_xla.extend.lowering_rules``.

mj's lowering rule is ``rule(ctx, avals_in, avals_out, in_vals, **params) -> list[Value]``;
JAX's is ``rule(ctx, *in_vals, **params) -> Sequence[Value]`` with the types on the context
(``ctx.avals_in``, ``ctx.avals_out``). :func:`register_lowering` adapts a JAX rule and
registers it in mj's table (or, with ``platform=``, in mj's per-platform table);
:func:`lower_fun` makes a lowering rule from a function of arrays, as JAX's. ``ir`` and
``hlo`` are the MLIR modules mj's own rules emit ops with (jaxlib's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import Primitive, ShapedArray
from mj_core.dtypes import canonicalize_value
from mj_ir.extend import trace_to_closed_jaxpr
from mj_xla.extend import (
    LoweringContext,
    Value,
    emit_callback,
    lowering_rules,
    platform_lowering_rules,
)
from mj_xla.extend import aval_to_ir_type as aval_to_ir_type
from mj_xla.extend import hlo as hlo
from mj_xla.extend import ir as ir
from mj_xla.extend import ir_constant as _mj_ir_constant
from mj_xla.extend import register_lowering as _mj_register_lowering

__all__ = [
    "LoweringRuleContext",
    "Value",
    "aval_to_ir_type",
    "aval_to_ir_types",
    "emit_python_callback",
    "hlo",
    "ir",
    "ir_constant",
    "ir_constants",
    "lower_fun",
    "register_lowering",
]

Rule = Callable[..., Any]

# JAX's platform names for GPUs; ``"gpu"`` means both.
_PLATFORMS = {"gpu": ("cuda", "rocm")}


class LoweringRuleContext:
    """What a JAX-spelled lowering rule receives as ``ctx``: the operand and result types
    (``avals_in``, ``avals_out``), the platform, and mj's :class:`LoweringContext` (as
    ``module_context``), which lowers nested jaxprs."""

    __slots__ = ("avals_in", "avals_out", "module_context", "platform")

    def __init__(
        self,
        module_context: LoweringContext,
        avals_in: Sequence[ShapedArray],
        avals_out: Sequence[ShapedArray],
    ) -> None:
        self.module_context = module_context
        self.avals_in = list(avals_in)
        self.avals_out = list(avals_out)
        self.platform = module_context.platform

    @property
    def platforms(self) -> tuple[str, ...]:
        return (self.platform,)

    def replace(self, **changes: Any) -> LoweringRuleContext:
        """A copy with some fields replaced (JAX's ``ctx.replace(avals_out=...)``)."""
        new = LoweringRuleContext(
            self.module_context,
            changes.pop("avals_in", self.avals_in),
            changes.pop("avals_out", self.avals_out),
        )
        if changes:
            raise TypeError(f"LoweringRuleContext.replace: unknown fields {sorted(changes)}")
        return new


def _flatten_results(out: Any) -> list[Value]:
    """A JAX rule's results as a list of values: a sequence of values (or of one-value
    sequences, JAX's per-output grouping), or a single value."""
    if isinstance(out, ir.Value):
        return [out]
    values: list[Value] = []
    for item in out:
        if isinstance(item, ir.Value):
            values.append(item)
            continue
        result = getattr(item, "result", None)  # an op with one result
        if isinstance(result, ir.Value):
            values.append(result)
            continue
        items = list(item)
        if len(items) != 1:
            raise TypeError(
                f"lowering rule: each output must lower to one MLIR value, got {len(items)}"
            )
        values.append(items[0])
    return values


def _lowering_to_mj(rule: Rule) -> Rule:
    def lowering_rule(
        ctx: LoweringContext,
        avals_in: Sequence[ShapedArray],
        avals_out: Sequence[ShapedArray],
        in_vals: Sequence[Value],
        **params: object,
    ) -> list[Value]:
        jax_ctx = LoweringRuleContext(ctx, avals_in, avals_out)
        return _flatten_results(rule(jax_ctx, *in_vals, **params))

    lowering_rule.__name__ = getattr(rule, "__name__", "lowering_rule")
    lowering_rule.__module__ = getattr(rule, "__module__", __name__)
    lowering_rule._mj_jax_rule = rule  # type: ignore[attr-defined]
    return lowering_rule


def register_lowering(
    prim: Primitive, rule: Rule, platform: str | None = None, **options: object
) -> Rule:
    """Register JAX-spelled ``rule(ctx, *in_vals, **params)`` as ``prim``'s lowering, for
    every platform or only ``platform`` (``"cpu"``, ``"cuda"``, ``"rocm"``, ``"gpu"``). JAX's
    options (``cacheable``, ``inline``) are accepted and have no effect. Returns ``rule``."""
    del options
    adapted = _lowering_to_mj(rule)
    if platform is None:
        _mj_register_lowering(prim, adapted)
    else:
        for name in _PLATFORMS.get(platform, (platform,)):
            _mj_register_lowering(prim, adapted, platform=name)
    return rule


def lowering_rule_of(prim: Primitive, platform: str | None = None) -> Rule | None:
    """``prim``'s lowering rule in JAX's signature (``None`` if it has none): the rule itself
    when it was registered through :func:`register_lowering`."""
    table = lowering_rules if platform is None else platform_lowering_rules.get(platform)
    if table is None or prim not in table:
        return None
    rule = table[prim]
    original = getattr(rule, "_mj_jax_rule", None)
    if original is not None:
        return original  # type: ignore[no-any-return]

    def jax_rule(ctx: LoweringRuleContext, *in_vals: Value, **params: object) -> list[Value]:
        return rule(ctx.module_context, ctx.avals_in, ctx.avals_out, list(in_vals), **params)

    return jax_rule


def lower_fun(fun: Callable[..., Any], multiple_results: bool = True) -> Rule:
    """A lowering rule (JAX's signature) that lowers ``fun(*args, **params)``, a function of
    arrays written with mj operations, traced at the operands' types and inlined."""

    def lowered(ctx: LoweringRuleContext, *in_vals: Value, **params: object) -> list[Value]:
        def flat(*args: object) -> list[Any]:
            out = fun(*args, **params)
            return list(out) if multiple_results else [out]

        closed = trace_to_closed_jaxpr(flat, ctx.avals_in)
        return ctx.module_context.lower_jaxpr(closed, list(in_vals))

    lowered.__name__ = f"lowered_{getattr(fun, '__name__', 'fun')}"
    return lowered


def ir_constant(val: Any, *, aval: Any = None, const_lowering: Any = None) -> Value:
    """A ``stablehlo.constant`` holding ``val`` (JAX's ``mlir.ir_constant``); with ``aval``,
    in that aval's dtype."""
    del const_lowering
    return _mj_ir_constant(np.asarray(val), None if aval is None else aval.dtype)


def ir_constants(val: object) -> list[Value]:
    """``[ir_constant(val)]``."""
    return [ir_constant(val)]


def aval_to_ir_types(aval: ShapedArray) -> tuple[ir.Type, ...]:
    """The MLIR types of values of ``aval`` (one tensor type)."""
    return (aval_to_ir_type(aval),)


def emit_python_callback(
    ctx: LoweringRuleContext,
    callback: Callable[..., Sequence[Any]],
    token: Any | None,
    operands: Sequence[Value],
    operand_avals: Sequence[ShapedArray],
    result_avals: Sequence[ShapedArray],
    *,
    has_side_effect: bool,
    returns_token: bool = True,
    partitioned: bool = False,
    sharding: Any = None,
) -> tuple[list[Value], Any, Any]:
    """Emit a call from the compiled program to ``callback(*operands as NumPy arrays)``,
    which returns a sequence of arrays of types ``result_avals`` (JAX's
    ``mlir.emit_python_callback``, which equinox's ``noinline`` lowers with). Returns the
    result values, the token (mj's programs have none: ``None``) and the function to keep
    alive (``ctx.module_context.add_keepalive``; the module's callback list already does).
    The outputs are checked as JAX checks them, with JAX's errors."""
    del returns_token
    if token is not None or partitioned or sharding is not None:
        raise NotImplementedError(
            "mj's emit_python_callback supports neither tokens, partitioned callbacks nor shardings"
        )
    results = list(result_avals)

    def wrapped(*args: Any) -> tuple[Any, ...]:
        outs = callback(*args)
        if len(outs) != len(results):
            raise RuntimeError(
                "Mismatched number of outputs from callback. "
                f"Expected: {len(results)}, Actual: {len(outs)}"
            )
        outs = tuple(canonicalize_value(np.asarray(a)) for a in outs)
        for i, (out, aval) in enumerate(zip(outs, results, strict=True)):
            if out.shape != aval.shape:
                raise RuntimeError(
                    f"Incorrect output shape for return value #{i}: "
                    f"Expected: {aval.shape}, Actual: {out.shape}"
                )
            if out.dtype != aval.dtype:
                raise RuntimeError(
                    f"Incorrect output dtype for return value #{i}: "
                    f"Expected: {aval.dtype}, Actual: {out.dtype}"
                )
        return outs

    values = emit_callback(
        ctx.module_context, wrapped, list(operand_avals), list(operands), results, has_side_effect
    )
    return values, None, wrapped
