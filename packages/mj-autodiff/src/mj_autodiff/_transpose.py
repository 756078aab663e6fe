"""Transposition: running a linear jaxpr backwards (Autodidax Part 4, JAX's ``backward_pass``).

The inputs a jaxpr is linear in are marked :class:`UndefPrimal` (their values are what we are
solving for); the others are ordinary values (residuals). :func:`backward_pass` first
evaluates the equations that do not touch an ``UndefPrimal`` input (so a jaxpr may mix
non-linear residual computations with linear ones), then walks the linear equations in
reverse, handing each rule the cotangents of the equation's outputs and accumulating the
cotangents it returns for its linear inputs. Both passes are single loops over the equation
list: linear time, no recursion.

Rule signature: ``transpose_rules[p](cts, *invals, **params) -> list`` with one entry per
operand: its cotangent, or ``None`` for an operand that is not linear (not an
``UndefPrimal``). ``cts`` has one entry per output; an entry is a :class:`Zero` only for a
multiple-results primitive (an equation whose output cotangents are all zero is skipped).
Elementwise primitives broadcast, so their rules return ``unbroadcast(ct, x.aval)``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias, TypeGuard, final

import numpy as np

from mj_autodiff._tangents import (
    Tangent,
    Zero,
    add_tangents,
    instantiate_zeros,
    is_float0,
    shape_dtype,
    shaped_aval_of,
    tangent_aval,
)
from mj_core import EagerArray, RuleTable, ShapedArray, bind, bind1
from mj_core.extend import ArrayLike, on_x64_change, unchanged
from mj_core.prims.conversions import convert_element_type_p
from mj_core.prims.reductions import reduce_sum_p
from mj_core.prims.structural import reshape_p
from mj_ir import ClosedJaxpr, Jaxpr, Var
from mj_ir.extend import trace_to_closed_jaxpr

__all__ = [
    "Operand",
    "UndefPrimal",
    "backward_pass",
    "is_undefined_primal",
    "operand_aval",
    "transpose_jaxpr",
    "transpose_rules",
    "unbroadcast",
]

transpose_rules: RuleTable[Callable[..., Any]] = RuleTable(
    "transpose_rules", "transpose (reverse-mode differentiation)", "mj_autodiff"
)


@final
class UndefPrimal:
    """Stands for an input a linear function is linear in: only its type is known."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"UndefPrimal({self.aval.str_short()})"


#: A transpose rule's operand: a value (a residual) or an :class:`UndefPrimal` (a linear input).
Operand: TypeAlias = ArrayLike | UndefPrimal


def is_undefined_primal(x: object) -> TypeGuard[UndefPrimal]:
    """True for a transpose rule's linear input (an :class:`UndefPrimal`)."""
    return type(x) is UndefPrimal


def operand_aval(v: Operand) -> ShapedArray:
    """The type of a rule's operand, which may be an ``UndefPrimal``."""
    return v.aval if type(v) is UndefPrimal else shaped_aval_of(v)


def unbroadcast(ct: Tangent, aval: ShapedArray) -> Tangent:
    """The cotangent ``ct`` of a broadcast/promoted operand brought back to the operand's type:
    summed over the axes broadcasting added or stretched, reshaped, and converted to its
    dtype. The one helper every elementwise transpose rule uses."""
    if type(ct) is Zero:
        return Zero(tangent_aval(aval))
    if (
        (type(ct) is np.ndarray or type(ct) is EagerArray)
        and ct.shape == aval.shape
        and ct.dtype == aval.dtype
    ):
        return ct
    shape, dtype = shape_dtype(ct)
    target = aval.shape
    if shape != target:
        lead = len(shape) - len(target)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, d in enumerate(target) if d == 1 and shape[lead + i] != 1
        )
        if axes:
            ct = bind1(reduce_sum_p, ct, axes=axes)
        if len(axes) > lead:  # stretched size-1 axes were summed away: put them back
            ct = bind1(reshape_p, ct, new_sizes=tuple(target))
    if dtype != aval.dtype:
        ct = bind1(convert_element_type_p, ct, new_dtype=aval.dtype, weak_type=False)
    return ct


def backward_pass(jaxpr: Jaxpr, consts_and_args: Sequence[Any], cts: Sequence[Any]) -> list[Any]:
    """Transpose ``jaxpr`` with respect to its ``UndefPrimal`` inputs.

    ``consts_and_args`` has one entry per input binder (values, or ``UndefPrimal`` for the
    linear inputs); ``cts`` one cotangent per output (``Zero`` allowed). Returns the cotangent
    of each ``UndefPrimal`` input, in order; an input that received none gets a ``Zero``.
    """
    env: dict[Var, Any] = dict(zip(jaxpr.in_binders, consts_and_args, strict=True))
    linear_eqns: list[tuple[Any, list[Any]]] = []
    for eqn in jaxpr.eqns:
        invals = [env[x] if type(x) is Var else x.val for x in eqn.inputs]  # type: ignore[union-attr]
        for v in invals:
            if type(v) is UndefPrimal:
                # a strong literal (a NumPy scalar) reaches the rule as an array, with its
                # ``aval``, as JAX's typed literals do (equinox's rules read ``c.aval`` of an
                # operand that is no UndefPrimal); a weak one stays the Python number
                invals = [unchanged(u) if isinstance(u, np.generic) else u for u in invals]
                linear_eqns.append((eqn, invals))
                for out in eqn.out_binders:
                    env[out] = UndefPrimal(out.aval)
                break
        else:  # a residual computation: evaluate it
            outs = bind(eqn.primitive, *invals, **eqn.params)
            for out, val in zip(eqn.out_binders, outs, strict=True):
                env[out] = val

    ct_env: dict[Var, Any] = {}
    for x, ct in zip(jaxpr.outs, cts, strict=True):
        # (a bool output's cotangent, or float0 zeros for an integer output (jit's transpose
        # instantiates its Zeros), is no cotangent: the ops that made it are not transposed,
        # as JAX's DCE drops them; an integer cotangent of an integer-linear output is one)
        if (
            type(x) is Var
            and type(ct) is not Zero
            and type(env[x]) is UndefPrimal
            and x.aval.dtype.kind != "b"
            and not is_float0(shape_dtype(ct)[1])
        ):
            prev = ct_env.get(x)
            ct_env[x] = ct if prev is None else add_tangents(prev, ct)

    pop = ct_env.pop
    for eqn, invals in reversed(linear_eqns):
        out_binders = eqn.out_binders
        if len(out_binders) == 1:
            ct = pop(out_binders[0], None)
            if ct is None:
                continue
            cts_out = [ct]
        else:
            maybe = [pop(v, None) for v in out_binders]
            if all(c is None for c in maybe):
                continue
            cts_out = [
                Zero(tangent_aval(v.aval)) if c is None else c
                for v, c in zip(out_binders, maybe, strict=True)
            ]
        cts_in = transpose_rules[eqn.primitive](cts_out, *invals, **eqn.params)
        for x, val, ct in zip(eqn.inputs, invals, cts_in, strict=True):
            if ct is None or type(val) is not UndefPrimal or type(ct) is Zero:
                continue
            prev = ct_env.get(x)
            ct_env[x] = ct if prev is None else add_tangents(prev, ct)

    cts_args: list[Any] = []
    for v, arg in zip(jaxpr.in_binders, consts_and_args, strict=True):
        if type(arg) is UndefPrimal:
            ct = pop(v, None)
            cts_args.append(Zero(tangent_aval(v.aval)) if ct is None else ct)
    return cts_args


@functools.lru_cache(maxsize=512)
def transpose_jaxpr(
    closed_jaxpr: ClosedJaxpr,
    linear: tuple[bool, ...],
    ct_dtypes: tuple[np.dtype[Any], ...] | None = None,
    ct_zeros: tuple[bool, ...] | None = None,
) -> ClosedJaxpr:
    """The transpose of ``closed_jaxpr`` w.r.t. the arguments flagged in ``linear``, as a
    closed jaxpr taking ``(*non-linear args, *output cotangents)`` and returning the
    (instantiated) cotangents of the linear arguments. For higher-order primitives' transpose
    rules (jit's ``xla_call``, control flow). ``ct_dtypes``: the cotangents' dtypes, where
    not the outputs' tangent dtypes (an integer-linear function's integer cotangents, as
    JAX's). ``ct_zeros``: the outputs whose cotangent is a symbolic zero; the jaxpr takes
    no argument for them and its equations see a ``Zero`` (as JAX's pjit transpose: a custom
    rule inside still sees the zero)."""
    in_avals = closed_jaxpr.in_avals
    out_avals = closed_jaxpr.out_avals
    consts = closed_jaxpr.consts
    n_nonlin = linear.count(False)
    ct_avals = [tangent_aval(a) for a in out_avals]
    if ct_dtypes is not None:
        ct_avals = [
            t if t.dtype == d else ShapedArray(a.shape, d, a.weak_type)
            for t, a, d in zip(ct_avals, out_avals, ct_dtypes, strict=True)
        ]
    zeros = ct_zeros if ct_zeros is not None else (False,) * len(out_avals)

    def transposed(*args: ArrayLike) -> list[ArrayLike]:
        nonlin = iter(args[:n_nonlin])
        primals = [
            UndefPrimal(a) if lin else next(nonlin) for a, lin in zip(in_avals, linear, strict=True)
        ]
        given = iter(args[n_nonlin:])
        cts = [Zero(t) if z else next(given) for t, z in zip(ct_avals, zeros, strict=True)]
        cts_in = backward_pass(closed_jaxpr.jaxpr, [*consts, *primals], cts)
        return [instantiate_zeros(ct) for ct in cts_in]

    nonlin_avals = [a for a, lin in zip(in_avals, linear, strict=True) if not lin]
    given_avals = [t for t, z in zip(ct_avals, zeros, strict=True) if not z]
    return trace_to_closed_jaxpr(transposed, [*nonlin_avals, *given_avals])


on_x64_change(lambda _: transpose_jaxpr.cache_clear())  # zeros it creates take the mode's types
