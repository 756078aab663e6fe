"""Checking that a jaxpr is well formed and well typed.

Every variable is bound exactly once before it is used, and every equation's output binders
have the types its primitive's abstract-eval rule computes from the input types. Weak types
are not compared (as in JAX): they steer promotion of later operations but do not make a
program ill typed. Transformations run this on every jaxpr they produce when
``mj_core.config.check_jaxprs`` is on (the test suites switch it on).
"""

from __future__ import annotations

from typing import Any

from mj_core.errors import MJError
from mj_core.extend import (
    ShapedArray,
    abstract_eval_rules,
    get_aval,
    is_token_aval,
    raise_to_shaped,
)
from mj_ir._jaxpr import Atom, ClosedJaxpr, Jaxpr, JaxprType, Lit, Names, Var, pp_eqn, type_str

__all__ = ["JaxprTypeError", "typecheck_jaxpr", "types_match"]


class JaxprTypeError(MJError, TypeError):
    """A jaxpr is malformed: an unbound or doubly bound variable, or an equation whose output
    types disagree with its primitive's abstract-eval rule. The message names the equation."""


def types_match(a: ShapedArray, b: ShapedArray) -> bool:
    """Same shape and dtype (weak types may differ); a token's type matches only itself."""
    if is_token_aval(a) or is_token_aval(b):
        return a is b
    return a.shape == b.shape and a.dtype == b.dtype


def typecheck_jaxpr(jaxpr: Jaxpr | ClosedJaxpr) -> JaxprType:
    """The jaxpr's type; raises :class:`JaxprTypeError` naming the first bad equation.

    For a ``ClosedJaxpr`` the constants are checked against their binders too, and the type's
    inputs are the arguments only.
    """
    if isinstance(jaxpr, ClosedJaxpr):
        return _typecheck_closed(jaxpr)
    env: set[Var] = set()
    for i, v in enumerate(jaxpr.in_binders):
        if type(v) is not Var:
            raise JaxprTypeError(f"typecheck_jaxpr: input binder {i} is {v!r}, not a Var")
        if v in env:
            raise JaxprTypeError(
                f"typecheck_jaxpr: input binder {i} binds a variable already bound as an "
                "earlier input"
            )
        env.add(v)
    for n, eqn in enumerate(jaxpr.eqns):
        in_types = [_atom_type(jaxpr, n, env, x) for x in eqn.inputs]
        _check_nested(eqn.params)
        try:
            out_types = abstract_eval_rules[eqn.primitive](*in_types, **eqn.params)
        except (TypeError, ValueError) as err:
            raise _eqn_error(jaxpr, n, f"the {eqn.primitive.name} rule rejects it: {err}") from err
        if len(out_types) != len(eqn.out_binders):
            raise _eqn_error(
                jaxpr,
                n,
                f"{eqn.primitive.name} has {len(out_types)} outputs but the equation binds "
                f"{len(eqn.out_binders)}",
            )
        for k, (binder, out_type) in enumerate(zip(eqn.out_binders, out_types, strict=True)):
            if type(binder) is not Var:
                raise _eqn_error(jaxpr, n, f"output binder {k} is {binder!r}, not a Var")
            if not types_match(binder.aval, out_type):
                raise _eqn_error(
                    jaxpr,
                    n,
                    f"output {k} is declared {type_str(binder.aval)} but {eqn.primitive.name} "
                    f"returns {type_str(out_type)} for inputs "
                    f"({', '.join(type_str(t) for t in in_types)})",
                )
            if binder in env:
                raise _eqn_error(jaxpr, n, f"output binder {k} rebinds an already bound variable")
            env.add(binder)
    out_types = [_atom_type(jaxpr, None, env, x) for x in jaxpr.outs]
    return JaxprType([v.aval for v in jaxpr.in_binders], out_types)


def _typecheck_closed(closed: ClosedJaxpr) -> JaxprType:
    jaxpr_type = typecheck_jaxpr(closed.jaxpr)
    for i, (v, c) in enumerate(zip(closed.jaxpr.in_binders, closed.consts, strict=False)):
        aval = raise_to_shaped(get_aval(c))
        if not types_match(v.aval, aval):
            raise JaxprTypeError(
                f"typecheck_jaxpr: constant {i} is {type_str(aval)} but its binder is "
                f"{type_str(v.aval)}"
            )
    return JaxprType(jaxpr_type.in_types[len(closed.consts) :], jaxpr_type.out_types)


def _atom_type(jaxpr: Jaxpr, n: int | None, env: set[Var], x: Atom) -> ShapedArray:
    if type(x) is Var:
        if x not in env:
            what = "uses a variable that is not bound by an input or an earlier equation"
            if n is None:
                raise JaxprTypeError(f"typecheck_jaxpr: the jaxpr's outputs: {what}")
            raise _eqn_error(jaxpr, n, f"it {what}")
        return x.aval
    if type(x) is Lit:
        return x.aval
    where = "an output" if n is None else f"an input of equation {n}"
    raise JaxprTypeError(f"typecheck_jaxpr: {where} is {x!r}, neither a Var nor a Lit")


def _check_nested(params: dict[str, Any]) -> None:
    for v in params.values():
        if isinstance(v, Jaxpr | ClosedJaxpr):
            typecheck_jaxpr(v)
        elif isinstance(v, tuple):
            for x in v:
                if isinstance(x, Jaxpr | ClosedJaxpr):
                    typecheck_jaxpr(x)


def _eqn_error(jaxpr: Jaxpr, n: int, problem: str) -> JaxprTypeError:
    names = Names()
    for v in jaxpr.in_binders:
        names[v]  # name the variables in the order str(jaxpr) does
    for eqn in jaxpr.eqns[:n]:
        for v in eqn.out_binders:
            names[v]
    shown = " ".join(str(pp_eqn(names, jaxpr.eqns[n])).split())
    return JaxprTypeError(f"typecheck_jaxpr: equation {n} `{shown}`: {problem}")
