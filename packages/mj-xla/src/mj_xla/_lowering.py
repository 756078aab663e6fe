"""Lowering jaxprs to StableHLO: the ``lowering_rules`` table and the interpreter that uses it.

The rules of the core primitives live in ``mj_xla/rules/<family>.py``; this module holds what
all of them (and a higher layer's rules) build on: the table, :class:`LoweringContext`, the
value helpers (:func:`ir_constant`, :func:`as_dtype`, :func:`broadcast_to_aval`,
:func:`compare`) and the module builder ``jit`` compiles.

A lowering rule is ``rule(ctx, avals_in, avals_out, in_vals, **params) -> list[Value]``. It
runs with the module's MLIR context, location and insertion point active, so it only calls op
builders (``hlo.add(x, y)``). ``ctx`` (a :class:`LoweringContext`) lowers nested jaxprs, for
higher-order primitives: :func:`lower_jaxpr` inlines one, :meth:`LoweringContext.call_jaxpr`
emits it once as a private function and calls it; :meth:`LoweringContext.call_function` does
the same for any body a rule builds (a composite emitted once per module, then called).

:func:`lower_jaxpr` is the same read/write-environment loop as ``mj_ir.eval_jaxpr``; only the
values differ (``Value`` instead of arrays).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeAlias

import numpy as np

from mj_core import MissingRuleError, Primitive, RuleTable, ShapedArray
from mj_core.extend import DTypeLike, Token, is_token_aval
from mj_core.prims.elementwise import category_kind
from mj_ir import ClosedJaxpr, Jaxpr, Lit, Var
from mj_xla._donation import pair_donations
from mj_xla._jaxlib import (
    FLOAT0,
    Value,
    func,
    hlo,
    ir,
    ir_element_type,
    ir_tensor_type,
    mlir_context,
)
from mj_xla._shardy import ShardyLayout, tensor_sharding

__all__ = [
    "Avals",
    "LoweringContext",
    "LoweringRule",
    "Spmd",
    "Values",
    "as_dtype",
    "aval_to_ir_type",
    "broadcast_to_aval",
    "build_module",
    "compare",
    "inline_values",
    "ir_constant",
    "lower_jaxpr",
    "lowering_rules",
    "platform_lowering_rules",
    "register_lowering",
]


class Spmd:
    """The sharding annotations of an SPMD module: ``mhlo.sharding`` (an ``HloSharding``'s
    text) per binder and per output, ``None`` where XLA chooses, and the partition count;
    with a ``shardy`` layout, Shardy's ``sdy.sharding`` attributes instead (the texts still
    decide which buffers an output may reuse)."""

    __slots__ = ("in_shardings", "num_partitions", "out_shardings", "shardy")

    def __init__(
        self,
        in_shardings: Sequence[str | None],
        out_shardings: Sequence[str | None],
        n: int,
        shardy: ShardyLayout | None = None,
    ) -> None:
        self.in_shardings = list(in_shardings)
        self.out_shardings = list(out_shardings)
        self.num_partitions = n
        self.shardy = shardy

    def annotate(self, fn: Any, module: ir.Module, out_avals: Sequence[ShapedArray]) -> None:
        i32 = ir.IntegerType.get_signless(32)
        module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(
            i32, self.num_partitions
        )
        module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
        fn.result_attrs = ir.ArrayAttr.get(
            [_arg_attrs(self.attribute(False, k, a.ndim), None) for k, a in enumerate(out_avals)]
        )

    def attribute(self, param: bool, i: int, ndim: int) -> tuple[str, ir.Attribute] | None:
        """The annotation of parameter (or result) ``i``, of rank ``ndim``."""
        if self.shardy is not None:
            sharding = (self.shardy.ins if param else self.shardy.outs)[i]
            if sharding is None:
                return None
            return "sdy.sharding", tensor_sharding(sharding, ndim, self.shardy.devices)
        text = (self.in_shardings if param else self.out_shardings)[i]
        return None if text is None else ("mhlo.sharding", ir.StringAttr.get(text))


def _arg_attrs(sharding: tuple[str, ir.Attribute] | None, alias: int | None) -> ir.Attribute:
    attrs: dict[str, ir.Attribute] = {}
    if sharding is not None:
        attrs[sharding[0]] = sharding[1]
    if alias is not None:
        attrs["tf.aliasing_output"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), alias)
    return ir.DictAttr.get(attrs)


lowering_rules: RuleTable[Callable[..., Any]] = RuleTable(
    "lowering_rules", "XLA lowering (jit)", "mj_xla.extend"
)

# The argument types of a lowering rule, as every rule module spells them.
Avals: TypeAlias = Sequence[ShapedArray]
Values: TypeAlias = Sequence[Value]
LoweringRule: TypeAlias = Callable[..., list[Value]]


#: Rules for one platform (``"cpu"``, ``"cuda"``, ``"rocm"``), by platform then primitive: they
#: take precedence over ``lowering_rules`` when a module is lowered for that platform, as
#: JAX's ``register_lowering(prim, rule, platform=...)``. Each platform's table is an optional
#: hook (:func:`platform_table`): without an entry, ``lowering_rules``' rule applies.
platform_lowering_rules: dict[str, RuleTable[LoweringRule]] = {}


def platform_table(platform: str) -> RuleTable[LoweringRule]:
    """``platform``'s table of :data:`platform_lowering_rules`, created empty if need be."""
    table = platform_lowering_rules.get(platform)
    if table is None:
        table = platform_lowering_rules[platform] = RuleTable(
            f"platform_lowering_rules[{platform!r}]",
            f"XLA lowering ({platform})",
            "mj_xla.extend",
            default="its rule in lowering_rules applies",
            where=f"mj_xla.extend.register_lowering({{prim}}_p, rule, platform={platform!r})",
        )
    return table


def register_lowering(prim: Primitive, rule: LoweringRule, platform: str | None = None) -> None:
    """Public registration for higher layers: ``rule(ctx, avals_in, avals_out, in_vals,
    **params) -> list[Value]``, run with the module's MLIR context, location and insertion
    point active (so it only calls op builders such as ``hlo.add``). With ``platform`` the
    rule applies only to modules lowered for that platform (``ctx.platform``); a primitive
    whose rules are all platform-specific fails to lower for any other platform, naming the
    primitive and the platform."""
    if platform is None:
        lowering_rules[prim] = rule
        return
    platform_table(platform)[prim] = rule
    if prim not in lowering_rules:
        lowering_rules[prim] = _no_rule_for_platform(prim, rule.__module__)


def _no_rule_for_platform(prim: Primitive, module: str) -> LoweringRule:
    """The default rule of a primitive lowered only per platform: the error for the others
    (carrying the module that registered the platform rules)."""

    def missing(ctx: LoweringContext, *args: Any, **params: Any) -> list[Value]:
        have = sorted(p for p, rules in platform_lowering_rules.items() if prim in rules)
        raise MissingRuleError(
            f"Primitive '{prim}' has no XLA lowering rule for platform '{ctx.platform}': it "
            f"lowers only for {have}. Register one with mj_xla.extend.register_lowering("
            f"{prim.name}_p, rule, platform={ctx.platform!r})."
        )

    missing.__module__ = module
    return missing


def aval_to_ir_type(aval: ShapedArray) -> ir.Type:
    """The MLIR tensor type of values of ``aval`` (weak types have none: the dtype decides);
    ``!stablehlo.token`` for a token (JAX's ``ir_type_handlers[AbstractToken]``)."""
    if is_token_aval(aval):
        return hlo.TokenType.get()
    return ir_tensor_type(aval.shape, aval.dtype)


def _constant(val: Any, aval: ShapedArray) -> Value:
    """A known value of type ``aval`` embedded in the module: a constant, or for a token a
    fresh one (a token carries no data, only an order, which a constant has not)."""
    if is_token_aval(aval):
        return hlo.create_token()
    return ir_constant(val, aval.dtype)


def ir_constant(val: Any, dtype: DTypeLike | None = None) -> Value:
    """A ``stablehlo.constant`` holding ``val`` (converted to ``dtype`` if given)."""
    if (np.dtype(dtype) if dtype is not None else np.result_type(val)) == FLOAT0:
        x = np.zeros(np.shape(val), np.bool_)  # (float0 lowers as bool, as JAX's)
    else:
        x = np.asarray(val, dtype)
    attr = ir.DenseElementsAttr.get(  # type: ignore[call-overload]
        np.ascontiguousarray(x), type=ir_element_type(x.dtype), shape=list(x.shape)
    )
    return hlo.constant(attr)


def broadcast_to_aval(
    val: Value, aval: ShapedArray, shape: tuple[int, ...], dtype: np.dtype[Any]
) -> Value:
    """Convert ``val`` (of type ``aval``) to ``dtype`` and broadcast it NumPy-style to
    ``shape``: the one helper every elementwise rule uses for promotion and broadcasting."""
    if aval.dtype != dtype:
        val = hlo.convert(ir_tensor_type(aval.shape, dtype), val)
    if aval.shape != shape:
        offset = len(shape) - len(aval.shape)
        dims = list(range(offset, len(shape)))
        val = hlo.broadcast_in_dim(ir_tensor_type(shape, dtype), val, dims)
    return val


def as_dtype(val: Value, aval: ShapedArray, dtype: np.dtype[Any]) -> Value:
    """``val`` (of type ``aval``) converted to ``dtype``; no-op when it already has it.

    Non-elementwise primitives share one dtype across their array operands, except that a weak
    (Python scalar) operand adopts the strong dtype; this makes that conversion explicit, since
    StableHLO has none.
    """
    if aval.dtype == dtype:
        return val
    return hlo.convert(ir_tensor_type(aval.shape, dtype), val)


def _compare_type(dtype: np.dtype[Any], total: bool) -> str:
    k = category_kind(dtype)  # (ml_dtypes' narrow integers: integers, kind "V" in NumPy)
    if k == "i":
        return "SIGNED"
    if k in "ub":
        return "UNSIGNED"
    return "TOTALORDER" if total else "FLOAT"


def compare(x: Value, y: Value, direction: str, dtype: np.dtype[Any], total: bool = False) -> Value:
    """``stablehlo.compare`` of two values of ``dtype`` (``direction`` ``"EQ"``, ``"LT"``,
    ...); ``total`` orders floats totally (``-0 < +0``, NaNs at the ends), as sort needs."""
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get(_compare_type(dtype, total)),
    )


class LoweringContext:
    """What a lowering rule may need beyond its operands: the module being built, and
    helpers to lower nested jaxprs (each nested jaxpr becomes one private function)."""

    __slots__ = (
        "_functions",
        "_platform_rules",
        "host_callbacks",
        "module",
        "platform",
        "shardy",
        "symbol_table",
    )

    def __init__(
        self, module: ir.Module, host_callbacks: list[Any] | None = None, platform: str = "cpu"
    ) -> None:
        self.module = module
        # The platform the module is lowered for: rules registered for it take precedence.
        self.platform = platform
        self._platform_rules = platform_table(platform)
        self.symbol_table = ir.SymbolTable(module.operation)
        self._functions: dict[Hashable, tuple[Any, func.FuncOp]] = {}
        # Python functions the compiled code calls back (host callbacks); a custom call names
        # one by its index here, and the list is handed to XLA with the module.
        self.host_callbacks: list[Any] = [] if host_callbacks is None else host_callbacks
        # Set while lowering a program Shardy partitions: layout rules emit ``sdy`` ops.
        self.shardy: ShardyLayout | None = None

    def add_keepalive(self, keepalive: object) -> None:
        """JAX's ``ModuleContext.add_keepalive``: nothing to do, as :attr:`host_callbacks`
        keeps the functions the module calls alive already."""

    def lower_jaxpr(self, jaxpr: Jaxpr | ClosedJaxpr, args: Sequence[Value]) -> list[Value]:
        """Inline ``jaxpr`` at the current insertion point (see :func:`lower_jaxpr`)."""
        return lower_jaxpr(self, jaxpr, args)

    def call_jaxpr(
        self, jaxpr: Jaxpr | ClosedJaxpr, args: Sequence[Value], name: str
    ) -> list[Value]:
        """Emit ``jaxpr`` as a private function (once per jaxpr and module) and call it."""
        inner = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
        n_consts = len(jaxpr.consts) if isinstance(jaxpr, ClosedJaxpr) else 0
        return self.call_function(
            name,
            ("jaxpr", id(jaxpr)),
            [v.aval for v in inner.in_binders[n_consts:]],
            [x.aval for x in inner.outs],
            lambda params: lower_jaxpr(self, jaxpr, params),
            args,
            keep_alive=jaxpr,  # keep the jaxpr alive so its id stays unique
        )

    def call_function(
        self,
        name: str,
        key: Hashable,
        avals_in: Sequence[ShapedArray],
        avals_out: Sequence[ShapedArray],
        emit: Callable[[list[Value]], Sequence[Value]],
        args: Sequence[Value],
        keep_alive: Any = None,
    ) -> list[Value]:
        """Call the private function ``key`` names in this module, emitting it first if it is
        not there yet: ``emit(params)`` builds its body (from its parameters' values) and
        returns its results. A lowering rule whose output is a sizeable composite calls this
        with a key made of what the body depends on (its operand types and params), so the
        composite is in the module once however often the primitive is applied, as JAX's
        ``register_lowering(..., inline=False)``; XLA inlines the call when it compiles."""
        fn = self.private_function(name, key, avals_in, avals_out, emit, keep_alive)
        return list(func.CallOp(fn, list(args)).results)

    def private_function(
        self,
        name: str,
        key: Hashable,
        avals_in: Sequence[ShapedArray],
        avals_out: Sequence[ShapedArray],
        emit: Callable[[list[Value]], Sequence[Value]],
        keep_alive: Any = None,
        *,
        exact_name: bool = False,
    ) -> Any:
        """The private ``func.func`` ``key`` names (see :meth:`call_function`), emitted on first
        use: named ``name`` with non-word characters replaced (kept as they are with
        ``exact_name``, as a ``stablehlo.composite``'s decomposition is), renamed on a clash."""
        entry = self._functions.get(key)
        if entry is None:
            in_types = [aval_to_ir_type(a) for a in avals_in]
            out_types = [aval_to_ir_type(a) for a in avals_out]
            with ir.InsertionPoint(self.module.body):
                symbol = name if exact_name else (re.sub(r"\W", "_", name) or "fn")
                fn = func.FuncOp(symbol, ir.FunctionType.get(in_types, out_types))
                fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
                self.symbol_table.insert(fn)  # renames on clashes
                with ir.InsertionPoint(fn.add_entry_block()):
                    func.ReturnOp(list(emit(list(fn.arguments))))
            entry = (keep_alive, fn)
            self._functions[key] = entry
        return entry[1]


def lower_jaxpr(
    ctx: LoweringContext, jaxpr: Jaxpr | ClosedJaxpr, args: Sequence[Value]
) -> list[Value]:
    """Lower ``jaxpr`` inline, with ``args`` as the values of its binders; returns the values
    of its outputs. A ``ClosedJaxpr``'s constants are embedded (``args`` are then the
    arguments only). Higher-order primitives (control flow) call this on their bodies."""
    if isinstance(jaxpr, ClosedJaxpr):
        # each constant as its binder's type: a NumPy constant a rule closed over keeps its own
        # dtype (int64 with x64 off), which the binder's aval has canonicalized
        binders = jaxpr.jaxpr.in_binders[: len(jaxpr.consts)]
        consts = [_constant(c, v.aval) for c, v in zip(jaxpr.consts, binders, strict=True)]
        args = [*consts, *args]
        jaxpr = jaxpr.jaxpr
    if len(args) != len(jaxpr.in_binders):
        raise TypeError(
            f"lower_jaxpr: the jaxpr has {len(jaxpr.in_binders)} binders, got {len(args)} values"
        )
    env: dict[Var, Value] = dict(zip(jaxpr.in_binders, args, strict=True))

    def read(x: Var | Lit) -> Value:
        if type(x) is Var:
            return env[x]
        return ir_constant(x.val, x.aval.dtype)  # type: ignore[union-attr]

    platform_rules = ctx._platform_rules
    for eqn in jaxpr.eqns:
        rule = platform_rules.get(eqn.primitive) or lowering_rules[eqn.primitive]
        avals_in = [x.aval for x in eqn.inputs]
        avals_out = [v.aval for v in eqn.out_binders]
        outs = rule(ctx, avals_in, avals_out, [read(x) for x in eqn.inputs], **eqn.params)
        for v, out in zip(eqn.out_binders, outs, strict=True):
            env[v] = out
    return [read(x) for x in jaxpr.outs]


def inline_values(known: Sequence[Any]) -> list[Any]:
    """For each known value: the scalar to inline as a constant, or ``None`` to pass it as a
    parameter (arrays, and tokens: JAX passes a closed-over token to the program)."""
    return [np.asarray(x) if type(x) is not Token and np.ndim(x) == 0 else None for x in known]


def build_module(
    jaxpr: Jaxpr,
    inline: Sequence[Any | None],
    name: str = "main",
    host_callbacks: list[Any] | None = None,
    spmd: Spmd | None = None,
    donated: Sequence[bool] = (),
    platform: str = "cpu",
) -> tuple[ir.Module, list[int]]:
    """A module whose ``main`` computes ``jaxpr``.

    ``inline[i]`` (for the leading binders) is a known value to embed as a constant, or
    ``None`` to keep binder ``i`` as a parameter. Returns the module and the indices of the
    binders that are parameters, in order. Host callbacks the module calls are appended to
    ``host_callbacks`` (compiling the module needs them). ``spmd`` annotates the parameters
    and results with the shardings XLA's SPMD partitioner reads. ``donated[i]`` (per binder;
    empty: none) lets an output reuse binder ``i``'s buffer (see :mod:`mj_xla._donation`).
    ``platform`` picks the platform-specific rules (see :func:`register_lowering`).
    """
    params = [i for i in range(len(jaxpr.in_binders)) if i >= len(inline) or inline[i] is None]
    in_text = [spmd.in_shardings[i] for i in params] if spmd is not None else []
    aliases: list[int | None] = [None] * len(params)
    if any(donated):
        aliases = pair_donations(
            [jaxpr.in_binders[i].aval for i in params],
            [donated[i] for i in params],
            [x.aval for x in jaxpr.outs],
            in_text,
            spmd.out_shardings if spmd is not None else [],
        )
    with mlir_context(), ir.Location.unknown():
        module = ir.Module.create()
        ctx = LoweringContext(module, host_callbacks, platform)
        in_types = [aval_to_ir_type(jaxpr.in_binders[i].aval) for i in params]
        out_types = [aval_to_ir_type(x.aval) for x in jaxpr.outs]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(name, ir.FunctionType.get(in_types, out_types))
            if spmd is not None:
                spmd.annotate(fn, module, [x.aval for x in jaxpr.outs])
                ctx.shardy = spmd.shardy
            if spmd is not None or any(a is not None for a in aliases):
                fn.arg_attrs = ir.ArrayAttr.get(
                    [
                        _arg_attrs(
                            None
                            if spmd is None
                            else spmd.attribute(True, i, jaxpr.in_binders[i].aval.ndim),
                            a,
                        )
                        for i, a in zip(params, aliases, strict=True)
                    ]
                )
            with ir.InsertionPoint(fn.add_entry_block()):
                fn_args = iter(fn.arguments)
                vals = [
                    next(fn_args)
                    if i >= len(inline) or inline[i] is None
                    else ir_constant(inline[i], v.aval.dtype)
                    for i, v in enumerate(jaxpr.in_binders)
                ]
                func.ReturnOp(lower_jaxpr(ctx, jaxpr, vals))
    return module, params
