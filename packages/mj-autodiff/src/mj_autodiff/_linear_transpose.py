"""``linear_transpose``: the transpose of a linear function, as a function of the cotangent.

Like JAX, the function is traced once (only the types of ``primals`` matter) and its jaxpr is
run backwards by :func:`backward_pass`. Unlike JAX, linearity is checked when the transpose
is built, not when it is first called: every equation that touches the inputs must have a
transpose rule and use them linearly (``x * x``, ``sin(x)`` and ``1 / x`` are rejected with a
``ValueError`` naming the primitive and the user's line). Constant terms (``x + 1``) are
dropped, as in JAX. The transpose is itself traced once into a jaxpr, so calling it is one
``eval_jaxpr`` and it works under every transformation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_autodiff._derivatives import Bilinear, derivative_kinds
from mj_autodiff._tangents import instantiate_zeros
from mj_autodiff._transpose import UndefPrimal, backward_pass, transpose_rules
from mj_core import ShapedArray, get_aval, raise_to_shaped
from mj_core.errors import user_line_suffix
from mj_core.prims.elementwise import div_p
from mj_core.tree_util import Partial, PyTreeDef, flatten_fun, tree_flatten, tree_unflatten
from mj_ir import Jaxpr, Var, eval_jaxpr
from mj_ir.extend import trace_to_jaxpr

__all__ = ["linear_transpose"]


def _input_aval(x: Any) -> ShapedArray:
    """``primals`` may be arrays, scalars, ``ShapedArray``s or ``ShapeDtypeStruct``s."""
    if isinstance(x, ShapedArray):
        return raise_to_shaped(x)
    if not hasattr(x, "__array__") and hasattr(x, "shape") and hasattr(x, "dtype"):
        return ShapedArray(tuple(x.shape), np.dtype(x.dtype), bool(getattr(x, "weak_type", False)))
    return raise_to_shaped(get_aval(x))


def _check_linear(jaxpr: Jaxpr, n_consts: int) -> None:
    """Raise ``ValueError`` at the first equation that uses the inputs non-linearly."""
    linear: set[Var] = set(jaxpr.in_binders[n_consts:])
    for eqn in jaxpr.eqns:
        uses = [type(x) is Var and x in linear for x in eqn.inputs]
        if not any(uses):
            continue
        prim = eqn.primitive
        problem = None
        if prim not in transpose_rules:
            problem = f"it applies the non-linear primitive '{prim.name}' to them"
        elif isinstance(derivative_kinds.get(prim), Bilinear) and sum(uses) > 1:
            problem = f"'{prim.name}' multiplies two values that depend on them"
        elif prim is div_p and uses[1]:
            problem = "'div' divides by a value that depends on them"
        if problem is not None:
            raise ValueError(
                f"linear_transpose: fun must be a linear function of its inputs, but {problem}"
                f"{user_line_suffix()}"
            )
        linear.update(eqn.out_binders)


def _check_dtypes(in_avals: Sequence[ShapedArray], out_avals: Sequence[ShapedArray]) -> None:
    kinds = {a.dtype.kind for a in (*in_avals, *out_avals)}
    if not (kinds <= {"f", "c"} or kinds <= {"i", "u"}):
        raise TypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], and "
            "integer -> integer functions, but got "
            f"{[a.dtype.name for a in in_avals]} -> {[a.dtype.name for a in out_avals]}"
            f"{user_line_suffix()}"
        )


class _Transpose:
    """The transposed function, taking the transpose jaxpr's constants first (they are the
    children of the ``Partial`` returned, so they travel through transformations)."""

    __slots__ = ("in_tree", "jaxpr", "out_avals", "out_tree")

    def __init__(
        self, jaxpr: Jaxpr, in_tree: PyTreeDef, out_tree: PyTreeDef, out_avals: list[ShapedArray]
    ) -> None:
        self.jaxpr = jaxpr
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.out_avals = out_avals

    def __call__(self, consts: list[Any], out_cotangent: Any) -> Any:
        cts, ct_tree = tree_flatten(out_cotangent)
        if ct_tree != self.out_tree:
            raise TypeError(
                "linear_transpose: cotangent tree does not match function output, expected "
                f"{self.out_tree} but got {ct_tree}{user_line_suffix()}"
            )
        for i, (ct, aval) in enumerate(zip(cts, self.out_avals, strict=True)):
            found = get_aval(ct)
            if found.shape != aval.shape or found.dtype != aval.dtype:
                raise TypeError(
                    "cotangent type does not match function output: "
                    f"linear_transpose's cotangent {i} has type {found.str_short()}, but the "
                    f"function's output {i} is {aval.str_short()}{user_line_suffix()}"
                )
        return tree_unflatten(self.in_tree, eval_jaxpr(self.jaxpr, [*consts, *cts]))


def linear_transpose(
    fun: Callable[..., Any], *primals: Any, reduce_axes: Sequence[Any] = ()
) -> Callable[..., Any]:
    """The transpose of the linear ``fun`` at arguments of ``primals``' types: a function of
    one output cotangent returning a tuple of input cotangents (a ``Partial``, so it is a
    pytree and may be passed through ``jit``)."""
    if reduce_axes:
        raise NotImplementedError("linear_transpose: the reduce_axes argument is deprecated")
    primals_flat, in_tree = tree_flatten(primals)
    in_avals = [_input_aval(x) for x in primals_flat]
    flat_fun, out_store = flatten_fun(fun, in_tree)
    jaxpr, consts = trace_to_jaxpr(flat_fun, in_avals)
    out_tree: PyTreeDef = out_store()
    out_avals = [raise_to_shaped(x.aval) for x in jaxpr.outs]
    _check_dtypes(in_avals, out_avals)
    _check_linear(jaxpr, len(consts))

    def transpose_flat(*cts: Any) -> list[Any]:
        undefined = [UndefPrimal(a) for a in in_avals]
        return [instantiate_zeros(c) for c in backward_pass(jaxpr, [*consts, *undefined], cts)]

    t_jaxpr, t_consts = trace_to_jaxpr(
        transpose_flat, [ShapedArray(a.shape, a.dtype) for a in out_avals]
    )
    return Partial(_Transpose(t_jaxpr, in_tree, out_tree, out_avals), list(t_consts))
