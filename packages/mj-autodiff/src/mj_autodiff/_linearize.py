"""Linearization: evaluate a function now and stage its tangent computation (JAX's direct
linearize).

The primal computation runs now, in Python (so Python control flow on values works); every
tangent operation is staged into a linear jaxpr. :class:`LinearFunction` holds that jaxpr and
its residuals, and can be applied forwards (``linearize``'s ``f_jvp``) or transposed
(``vjp``'s ``f_vjp``) without redoing any primal work.

:func:`linearize_flat` is one JVP pass whose tangents are tracers of a jaxpr builder trace
(:class:`TangentTrace`) sitting just below it, never the dynamic trace: primal operations see
concrete values and run eagerly, tangent operations land in the builder as linear equations.
Each primitive costs one rule call and no partial-evaluation recipes. Higher-order primitives
(those with a ``partial_eval_rules`` entry: jit, control flow) must split their own bodies
into known and unknown parts, so such an equation alone is linearized by partial evaluation
of its JVP (Autodidax Part 4) and its linear part is replayed onto the tangent trace.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_autodiff._jvp import (
    JVPTrace,
    JVPTracer,
    _check_tangent,
    _unpack_outputs,
    flatten_fun_aux,
    jvp_flat,
    jvp_rules,
)
from mj_autodiff._partial_eval import (
    _LAMBDA,
    PartialEvalTrace,
    PartialEvalTracer,
    new_partial_eval_main,
    partial_eval_rules,
    tracers_to_jaxpr,
)
from mj_autodiff._tangents import (
    Zero,
    instantiate_zeros,
    is_float0,
    shaped,
    tangent_aval,
    tangent_aval_of,
)
from mj_autodiff._transpose import UndefPrimal, backward_pass
from mj_core import (
    EagerArray,
    Primitive,
    ShapedArray,
    Trace,
    Tracer,
    bind,
    config,
    full_lower,
    full_raise,
    get_aval,
    new_main,
)
from mj_core.extend import owned_data
from mj_core.tree_util import Partial, PyTreeDef, tree_flatten, tree_unflatten
from mj_ir import Jaxpr, dce_jaxpr, eval_jaxpr, typecheck_jaxpr
from mj_ir.extend import JaxprBuilder, JaxprTrace, JaxprTracer, gc_paused

__all__ = ["LinearFunction", "linearize", "linearize_flat"]


class LinearFunction:
    """The linear map ``tangents_in -> tangents_out`` of a linearized function.

    ``jaxpr`` takes ``(*consts, *tangents of the inputs flagged in in_nonzero)`` and returns
    the tangents of the outputs flagged in ``out_nonzero``; the other tangents are zero.
    """

    __slots__ = ("consts", "in_avals", "in_nonzero", "jaxpr", "out_avals", "out_nonzero")

    def __init__(
        self,
        jaxpr: Jaxpr,
        consts: list[Any],
        in_avals: list[ShapedArray],
        in_nonzero: list[bool],
        out_avals: list[ShapedArray],
        out_nonzero: list[bool],
    ) -> None:
        self.jaxpr = jaxpr
        self.consts = consts
        self.in_avals = in_avals
        self.in_nonzero = in_nonzero
        self.out_avals = out_avals
        self.out_nonzero = out_nonzero

    def __call__(self, *tangents: Any) -> list[Any]:
        """Apply the map to one tangent per input; returns one tangent per output (``Zero``
        where the output does not depend on the inputs)."""
        args = [t for t, nz in zip(tangents, self.in_nonzero, strict=True) if nz]
        outs = iter(eval_jaxpr(self.jaxpr, [*self.consts, *map(instantiate_zeros, args)]))
        return [
            next(outs) if nz else Zero(a)
            for a, nz in zip(self.out_avals, self.out_nonzero, strict=True)
        ]

    def transpose(self, cts: Sequence[Any]) -> list[Any]:
        """Apply the transposed map to one cotangent per output (``Zero`` allowed); returns
        one cotangent per input (``Zero`` where the input has none)."""
        lin_cts = [ct for ct, nz in zip(cts, self.out_nonzero, strict=True) if nz]
        undefs = [UndefPrimal(v.aval) for v in self.jaxpr.in_binders[len(self.consts) :]]
        cts_in = iter(backward_pass(self.jaxpr, [*self.consts, *undefs], lin_cts))
        return [
            next(cts_in) if nz else Zero(a)
            for a, nz in zip(self.in_avals, self.in_nonzero, strict=True)
        ]

    def pruned(self) -> LinearFunction:
        """This map without the equations no output depends on (and the residuals only they
        use). :func:`linearize_flat` records every tangent operation, also those of values
        that reach no output; transposing skips them for free, applying forwards does not."""
        n = len(self.consts)
        keep = [False] * n + [True] * (len(self.jaxpr.in_binders) - n)
        jaxpr, used = dce_jaxpr(self.jaxpr, [True] * len(self.jaxpr.outs), instantiate=keep)
        consts = [c for c, u in zip(self.consts, used[:n], strict=True) if u]
        return LinearFunction(
            jaxpr, consts, self.in_avals, self.in_nonzero, self.out_avals, self.out_nonzero
        )


class TangentTrace(JaxprTrace):
    """The trace the tangents of :func:`linearize_flat` are staged on. Residuals arrive as
    constants at nearly every equation, so NumPy arrays take a short path to their binder."""

    __slots__ = ()
    transformation_name = "linearize (tangent staging)"

    def pure(self, val: Any) -> JaxprTracer:
        if (type(val) is not np.ndarray and type(val) is not EagerArray) or not val.ndim:
            return self.builder.const_tracer(self, val)
        tracer = self.builder.const_tracers.get(id(val))
        if tracer is None:
            tracer = self.builder.add_const(self, val, shaped(val.shape, val.dtype))
        return tracer

    lift = pure


class LinearizeTrace(JVPTrace):
    """The JVP trace of direct linearization: primals are concrete (or tracers of enclosing
    transformations), tangents are tracers of the tangent-staging trace below this one."""

    __slots__ = ()

    def process_primitive(
        self, primitive: Primitive, tracers: list[Any], params: dict[str, Any]
    ) -> list[Any]:
        primals = []
        tangents = []
        nonzero = False
        for t in tracers:
            primals.append(t.primal)
            tangent = t.tangent
            tangents.append(tangent)
            nonzero = nonzero or type(tangent) is not Zero
        if not nonzero:  # nothing to differentiate: apply the primitive to the primals
            return bind(primitive, *primals, **params)
        if primitive in partial_eval_rules:
            primals_out, tangents_out = _linearize_equation(primitive, primals, tangents, params)
        else:
            primals_out, tangents_out = jvp_rules[primitive](primals, tangents, **params)
        if len(primals_out) == 1:
            t = tangents_out[0]
            return [primals_out[0] if type(t) is Zero else JVPTracer(self, primals_out[0], t)]
        return self.tracers_out(primals_out, tangents_out)


def _linearize_equation(
    primitive: Primitive, primals: list[Any], tangents: list[Any], params: dict[str, Any]
) -> tuple[list[Any], list[Any]]:
    """Linearize one application of a higher-order ``primitive`` by partial evaluation (its
    rule splits the body into known and unknown parts) and replay the linear part onto the
    tangents, which stages it on the tangent trace."""
    nonzero = [i for i, t in enumerate(tangents) if type(t) is not Zero]

    def apply(*xs: Any) -> list[Any]:
        args = list(primals)
        for i, x in zip(nonzero, xs, strict=True):
            args[i] = x
        return bind(primitive, *args, **params)

    primals_out, lin = _linearize_by_partial_eval(apply, [primals[i] for i in nonzero])
    return primals_out, lin(*[tangents[i] for i in nonzero])


def linearize_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], LinearFunction]:
    """Evaluate ``fun`` (flat arrays in, flat list out) at ``primals`` and stage its JVP's
    tangent computation as a :class:`LinearFunction` (direct linearization)."""
    builder = JaxprBuilder()
    with gc_paused(), new_main(TangentTrace, builder) as tangent_main:
        tangent_trace: TangentTrace = tangent_main.trace  # type: ignore[assignment]
        in_avals = [tangent_aval_of(p) for p in primals]
        in_nonzero = [not is_float0(a.dtype) for a in in_avals]
        lin_in = [
            tangent_trace.new_arg(a) for a, nz in zip(in_avals, in_nonzero, strict=True) if nz
        ]
        it = iter(lin_in)
        tangents_in = [
            next(it) if nz else Zero(a) for a, nz in zip(in_avals, in_nonzero, strict=True)
        ]
        with new_main(LinearizeTrace) as main:
            trace: LinearizeTrace = main.trace  # type: ignore[assignment]
            tracers_in = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents_in, strict=True)]
            primals_out, tangents_out = _unpack_outputs(trace, fun(*tracers_in))
        primals_out, out_avals, out_nonzero, lin_out = _split_outputs(
            primals_out, tangents_out, tangent_trace, lambda t: full_raise(tangent_trace, t)
        )
    jaxpr, consts = builder.build(lin_in, lin_out)
    if config.check_jaxprs:
        typecheck_jaxpr(jaxpr)
    return primals_out, LinearFunction(jaxpr, consts, in_avals, in_nonzero, out_avals, out_nonzero)


def _split_outputs(
    primals_out: Sequence[Any],
    tangents_out: Sequence[Any],
    tangent_trace: Trace,
    stage: Callable[[Any], Any],
) -> tuple[list[Any], list[ShapedArray], list[bool], list[Any]]:
    """The lowered primal outputs, the linear function's output avals and nonzero flags, and
    its staged outputs (``stage`` of each nonzero tangent). A primal output that lives on the
    tangent trace means a JVP rule mixed primal and tangent values."""
    primals = [full_lower(p) for p in primals_out]
    for p in primals:
        if isinstance(p, Tracer) and p._trace is tangent_trace:
            raise TypeError(
                "linearize: a primal output depends on the tangents; a JVP rule mixed "
                "primal and tangent values."
            )
    out_avals: list[ShapedArray] = []
    out_nonzero: list[bool] = []
    lin_out = []
    for p, t in zip(primals, tangents_out, strict=True):
        if type(t) is Zero:
            out_avals.append(t.aval)
            out_nonzero.append(False)
        else:
            out_avals.append(tangent_aval_of(p))
            out_nonzero.append(True)
            lin_out.append(stage(t))
    return primals, out_avals, out_nonzero, lin_out


def _linearize_by_partial_eval(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], LinearFunction]:
    """Linearize ``fun`` by partial evaluation of its JVP with unknown tangents (Autodidax
    Part 4): the path of higher-order primitives, whose partial-evaluation rules split their
    bodies."""
    with new_partial_eval_main() as main:
        trace: PartialEvalTrace = main.trace
        in_avals = [tangent_aval_of(p) for p in primals]
        in_nonzero = [not is_float0(a.dtype) for a in in_avals]
        tangents_in: list[Any] = []
        lin_in: list[PartialEvalTracer] = []
        for aval, nz in zip(in_avals, in_nonzero, strict=True):
            if nz:
                t = PartialEvalTracer(trace, None, aval, _LAMBDA)
                lin_in.append(t)
                tangents_in.append(t)
            else:
                tangents_in.append(Zero(aval))
        primals_out, tangents_out = jvp_flat(fun, primals, tangents_in)
        primals_out, out_avals, out_nonzero, lin_out = _split_outputs(
            primals_out,
            tangents_out,
            trace,
            lambda t: trace.instantiate_const(full_raise(trace, t)),
        )
        jaxpr, consts = tracers_to_jaxpr(lin_in, lin_out)
    return primals_out, LinearFunction(jaxpr, consts, in_avals, in_nonzero, out_avals, out_nonzero)


class _LinearizedCall:
    """What applying a linearized function needs besides its jaxpr and residuals: the
    argument and output structures, the primals (tangents are checked against them) and the
    linear map's input and output flags."""

    __slots__ = ("in_tree", "lin", "out_tree", "primals")

    def __init__(
        self, in_tree: PyTreeDef, out_tree: PyTreeDef, primals: list[Any], lin: LinearFunction
    ) -> None:
        self.in_tree, self.out_tree, self.primals, self.lin = in_tree, out_tree, primals, lin


def _aval_text(aval: ShapedArray) -> str:
    """``aval`` as JAX writes it (``~float32[]``, ``float0[2]``)."""
    dtype = "float0" if is_float0(aval.dtype) else aval.dtype.name
    dims = ",".join(str(d) for d in aval.shape)
    return f"{'~' if aval.weak_type else ''}{dtype}[{dims}]"


def _check_linearized_tangent(primal: ShapedArray, tangent: ShapedArray) -> None:
    """JAX's check of a tangent given to ``linearize``'s ``f_jvp``: the primal's tangent type,
    shape and dtype (a Python int for a float primal too, which ``jvp`` converts)."""
    expected = tangent_aval(primal)
    if (tangent.shape, tangent.dtype) != (expected.shape, expected.dtype):
        raise ValueError(
            "linearized function called on tangent values inconsistent with the original "
            f"primal values:\nGot tangent aval {_aval_text(tangent)} for primal aval "
            f"{_aval_text(primal)} but expected {_aval_text(expected)}."
        )


def _apply_linearized(
    jaxpr: Jaxpr, call: _LinearizedCall, consts: list[Any], *tangents: Any
) -> Any:
    """``f_jvp(*tangents)`` of :func:`linearize`, with ``consts`` the residuals (possibly
    tracers, when ``f_jvp`` was passed into a transformation as a pytree)."""
    tangents_flat, tangent_tree = tree_flatten(tangents)
    if tangent_tree != call.in_tree:
        raise TypeError(
            "linearize's f_jvp must be called with tangents of the primals' structure: "
            f"expected {call.in_tree}, got {tangent_tree}."
        )
    for p, t in zip(call.primals, tangents_flat, strict=True):
        _check_linearized_tangent(get_aval(p), get_aval(t))
    checked = [
        _check_tangent(i, p, t)
        for i, (p, t) in enumerate(zip(call.primals, tangents_flat, strict=True))
    ]
    lin = call.lin
    lin = LinearFunction(
        jaxpr, list(consts), lin.in_avals, lin.in_nonzero, lin.out_avals, lin.out_nonzero
    )
    outs = [instantiate_zeros(t) for t in lin(*checked)]
    return tree_unflatten(call.out_tree, outs)


def linearize(fun: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(fun(*primals), f_jvp)`` where ``f_jvp(*tangents)`` is the JVP at ``primals``,
    evaluated from a staged linear jaxpr without redoing the primal computation. With
    ``has_aux=True``, ``fun`` returns ``(out, aux)`` and the result is ``(out, f_jvp, aux)``.

    ``linearize(f, x)[1](v)`` equals ``jvp(f, (x,), (v,))[1]``.
    """
    primals_flat, in_tree = tree_flatten(primals)
    flat_fun, out_tree, aux_store = flatten_fun_aux(fun, in_tree, has_aux)
    # f_jvp outlives the call: it must not see later writes to the caller's arrays
    primals_flat = [owned_data(p) if type(p) is np.ndarray else p for p in primals_flat]
    primals_out, lin = linearize_flat(flat_fun, primals_flat)
    lin = lin.pruned()
    out_treedef = out_tree()
    # JAX's shape: a pytree (the residuals its leaves, so it passes through jit) whose
    # function is a partial holding the linear jaxpr first (``f_jvp.func.args[0]``)
    static = _LinearizedCall(in_tree, out_treedef, primals_flat, lin)
    f_jvp = Partial(functools.partial(_apply_linearized, lin.jaxpr, static), lin.consts)
    out = tree_unflatten(out_treedef, primals_out)
    if has_aux:
        return out, f_jvp, aux_store()
    return out, f_jvp
