"""The jaxpr pretty printer (Autodidax format).

A jaxpr with at most one single-line equation prints on one line::

    { lambda a:float32[] . let b:float32[] = mul 2.0 a in ( b ) }

otherwise one equation per line::

    { lambda a:float32[] .
      let b:float32[] = sin a
          c:float32[] = neg b
      in ( c ) }

Params print as ``reduce_sum[axes=(0,)]``; when one spans several lines (a nested jaxpr),
all go one per line, two columns in from the equation, as in JAX's jaxpr documentation. Higher-order
primitives can take over printing their equations through :data:`pp_rules`
(``rule(names, eqn) -> PPrint``). Variables are named ``a``..``z``, ``ba``, ``bb``, ... in
order of appearance; every nested jaxpr gets fresh names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from mj_core.extend import Primitive
from mj_ir._jaxpr import ClosedJaxpr, Jaxpr, JaxprEqn, Lit, Var, type_str

__all__ = [
    "Names",
    "PPrint",
    "pp",
    "pp_atom",
    "pp_default_eqn",
    "pp_eqn",
    "pp_jaxpr",
    "pp_params",
    "pp_rules",
    "var_str",
    "vcat",
]


class PPrint:
    """A block of text lines, each with an indentation, combined with ``+`` and ``>>``."""

    __slots__ = ("lines",)

    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.lines = lines

    def indent(self, indent: int) -> PPrint:
        return PPrint([(indent + i, s) for i, s in self.lines])

    def __add__(self, rhs: PPrint) -> PPrint:
        """Stack ``rhs`` below ``self``."""
        return PPrint(self.lines + rhs.lines)

    def __rshift__(self, rhs: PPrint) -> PPrint:
        """Continue ``self``'s last line with ``rhs``; ``rhs``'s later lines hang under it."""
        if not rhs.lines:
            return self
        if not self.lines:
            return rhs
        indent, s = self.lines[-1]
        block = rhs.indent(indent + len(s))
        first = s + " " * rhs.lines[0][0] + rhs.lines[0][1]
        return PPrint([*self.lines[:-1], (indent, first), *block.lines[1:]])

    def __str__(self) -> str:
        return "\n".join(" " * i + s for i, s in self.lines)


def pp(s: Any) -> PPrint:
    return PPrint([(0, line) for line in str(s).splitlines()] or [(0, "")])


def vcat(blocks: Iterable[PPrint]) -> PPrint:
    """Stack blocks vertically (linear in the total number of lines)."""
    lines: list[tuple[int, str]] = []
    for b in blocks:
        lines.extend(b.lines)
    return PPrint(lines)


def _alphabetic(n: int) -> str:
    """0 -> a, 25 -> z, 26 -> ba, 27 -> bb, ... (base 26 with ``a`` as the digit zero)."""
    digits = []
    while True:
        n, r = divmod(n, 26)
        digits.append(chr(ord("a") + r))
        if n == 0:
            return "".join(reversed(digits))


class Names(dict[Var, str]):
    """Variable names for one printed jaxpr, handed out in order of first use."""

    def __missing__(self, v: Var) -> str:
        name = self[v] = _alphabetic(len(self))
        return name


def var_str(names: Names, v: Var) -> str:
    """A binder: ``b:float32[3]``."""
    return f"{names[v]}:{type_str(v.aval)}"


def pp_atom(names: Names, x: Var | Lit) -> str:
    return names[x] if type(x) is Var else str(x)


def pp_jaxpr(jaxpr: Jaxpr) -> PPrint:
    names = Names()
    in_binders = " ".join(var_str(names, v) for v in jaxpr.in_binders)
    eqns = [pp_eqn(names, e) for e in jaxpr.eqns]
    outs = ", ".join(pp_atom(names, x) for x in jaxpr.outs)
    head = f"{{ lambda {in_binders} ." if in_binders else "{ lambda ."
    if not eqns:
        return pp(f"{head} let in ( {outs} ) }}")
    if len(eqns) == 1 and len(eqns[0].lines) == 1:
        return pp(f"{head} let {eqns[0].lines[0][1]} in ( {outs} ) }}")
    return pp(head) + ((pp("let ") >> vcat(eqns)) + pp(f"in ( {outs} ) }}")).indent(2)


def pp_eqn(names: Names, eqn: JaxprEqn) -> PPrint:
    """One equation, through its primitive's :data:`pp_rules` entry if it has one."""
    rule = pp_rules.get(eqn.primitive)
    if rule is not None:
        return rule(names, eqn)
    return pp_default_eqn(names, eqn)


def pp_default_eqn(names: Names, eqn: JaxprEqn, *, one_param_per_line: bool = False) -> PPrint:
    """``outs = prim[params] args``; a multi-line params block is laid out like JAX's::

        c:float32[] = cond[
          branches=(
            { lambda ... }
          )
        ] a b

    (params two columns in from the equation, ``]`` back at its start).
    """
    lhs = " ".join(var_str(names, v) for v in eqn.out_binders)
    args = " ".join(pp_atom(names, x) for x in eqn.inputs)
    args = " " + args if args else ""
    params = pp_params(eqn.params, one_per_line=one_param_per_line).lines
    if len(params) <= 1:
        line = f"{lhs} = {eqn.primitive.name}{params[0][1] if params else ''}{args}"
        return PPrint([(0, line)])
    first, *middle, last = params
    return PPrint(
        [(0, f"{lhs} = {eqn.primitive.name}{first[1]}"), *middle, (0, f"{last[1]}{args}")]
    )


def pp_params(params: dict[str, Any], *, one_per_line: bool = False) -> PPrint:
    """``[k=v k2=v2]`` on one line; one param per line when any value spans several lines
    (or always, with ``one_per_line``)."""
    if not params:
        return PPrint([])
    items = [_pp_param(k, v) for k, v in sorted(params.items())]
    if not one_per_line and all(len(item.lines) == 1 for item in items):
        return pp("[" + " ".join(item.lines[0][1] for item in items) + "]")
    return pp("[") + vcat(items).indent(2) + pp("]")


def _pp_param(key: str, v: Any) -> PPrint:
    """``key=value``; a tuple of jaxprs (``cond``'s branches) opens with ``key=(``, puts one
    jaxpr per line two columns in and closes with ``)`` under the key, as JAX prints it."""
    if isinstance(v, tuple) and v and any(isinstance(x, Jaxpr | ClosedJaxpr) for x in v):
        return pp(f"{key}=(") + vcat(_pp_param_value(x) for x in v).indent(2) + pp(")")
    return pp(f"{key}=") >> _pp_param_value(v)


def _pp_param_value(v: Any) -> PPrint:
    if isinstance(v, Jaxpr):
        return pp_jaxpr(v)
    if isinstance(v, ClosedJaxpr):
        return pp_jaxpr(v.jaxpr)
    if isinstance(v, np.dtype):
        return pp(v.name)
    if isinstance(v, type) and issubclass(v, np.generic):
        return pp(np.dtype(v).name)
    if callable(v) and hasattr(v, "__name__"):
        return pp(v.__name__)
    return pp(v)


#: Printing hooks for higher-order primitives: ``rule(names, eqn) -> PPrint``.
pp_rules: dict[Primitive, Callable[[Names, JaxprEqn], PPrint]] = {}
