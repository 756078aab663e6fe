"""The jaxpr data structures (variables, literals, equations, jaxprs and closed jaxprs), their
printer and the reference evaluator.

A jaxpr is a first-order, single-assignment program (Autodidax Part 2)::

    { lambda a:float32[] . let b:float32[] = mul 2.0 a in ( b ) }

* ``in_binders``: one :class:`Var` per input. In a jaxpr produced by tracing, the binders for
  hoisted constants come first, then one per flattened argument.
* ``eqns``: :class:`JaxprEqn` (``primitive``, ``inputs``, ``params``, ``out_binders``); each
  input is an :data:`Atom`: a :class:`Var` bound earlier or a :class:`Lit` (a scalar constant
  inlined in the program).
* ``outs``: the output atoms.

A :class:`ClosedJaxpr` pairs a jaxpr with the values of its constant binders, so it is
callable on the arguments alone. To write an interpreter, walk ``jaxpr.eqns`` keeping an
environment ``dict[Var, value]`` (variables hash by identity) and read a :class:`Lit` through
its ``.val``; :func:`mj_ir.eval_jaxpr` is the reference example.

Printing (Autodidax format; a jaxpr prints itself, so the printer lives here): a jaxpr with
at most one single-line equation prints on one line::

    { lambda a:float32[] . let b:float32[] = mul 2.0 a in ( b ) }

otherwise one equation per line::

    { lambda a:float32[] .
      let b:float32[] = sin a
          c:float32[] = neg b
      in ( c ) }

Params print as ``reduce_sum[axes=(0,)]``; when one spans several lines (a nested jaxpr),
all go one per line, two columns in from the equation, as in JAX's jaxpr documentation.
Higher-order primitives can take over printing their equations through :data:`pp_rules`
(``rule(names, eqn) -> PPrint``). Variables are named ``a``..``z``, ``ba``, ``bb``, ... in
order of appearance; every nested jaxpr gets fresh names.

Evaluating (the reference interpreter; a closed jaxpr is callable, so it lives here too):
:func:`eval_jaxpr` applies every equation with :func:`mj_core.bind`, so evaluating a jaxpr
under a transformation (jvp, vmap, make_jaxpr, ...) transforms it: it is the way higher-order
primitives run their sub-programs. Its read/write-environment loop is the pattern every other
jaxpr interpreter (transpose, lowering, a user's own) follows. (As in JAX's ``core``, the
data structures, the printer and the evaluator are one module: split, they would import each
other.)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, TypeAlias

import numpy as np

from mj_core.extend import (
    Primitive,
    ShapedArray,
    bind,
    get_aval,
    on_x64_change,
    raise_to_shaped,
    unchanged,
    user_line_suffix,
)

__all__ = [
    "Atom",
    "ClosedJaxpr",
    "Jaxpr",
    "JaxprEqn",
    "JaxprType",
    "Lit",
    "Literal",
    "Names",
    "PPrint",
    "Var",
    "eval_jaxpr",
    "jaxpr_as_fun",
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


class Var:
    """A variable of a jaxpr: bound once (as an input or an equation output), typed by ``aval``.

    Variables compare and hash by identity; names (``a``, ``b``, ...) are only given when a
    jaxpr is printed.
    """

    __slots__ = ("aval",)

    aval: ShapedArray

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __repr__(self) -> str:
        return f"Var({type_str(self.aval)} @{id(self):#x})"


class Lit:
    """A scalar constant written into a jaxpr (``mul 2.0 a``).

    ``val`` is a Python scalar when the literal is weakly typed (so evaluating the jaxpr
    promotes exactly like the traced Python code did) and a NumPy scalar otherwise.
    """

    __slots__ = ("aval", "val")

    aval: ShapedArray
    val: Any

    def __init__(self, val: Any, aval: ShapedArray | None = None) -> None:
        if aval is None:
            py_aval = _PY_SCALAR_AVALS.get(type(val))
            if py_aval is not None and py_aval.weak_type and _fits_default_int(val):
                # Fast path for the common case: a Python number written into the program.
                self.aval = py_aval
                self.val = val
                return
            aval = raise_to_shaped(get_aval(val))
        if aval.shape != ():
            raise TypeError(f"Lit: literals must be scalars, got a value of type {type_str(aval)}")
        arr = np.asarray(val, aval.dtype)
        self.aval = aval
        self.val = arr.item() if aval.weak_type else arr[()]

    def __repr__(self) -> str:
        return f"Lit({self.val!r})"

    def __str__(self) -> str:
        return str(self.val)


_PY_SCALAR_AVALS: dict[type, ShapedArray] = {}
_INT_RANGE: list[np.iinfo] = []


def _set_mode(_: bool = False) -> None:
    """The literal avals of Python scalars (int32/float32/... or their 64-bit types)."""
    _PY_SCALAR_AVALS.update(
        {t: raise_to_shaped(get_aval(t())) for t in (bool, int, float, complex)}
    )
    _INT_RANGE[:] = [np.iinfo(_PY_SCALAR_AVALS[int].dtype)]


_set_mode()
on_x64_change(_set_mode)


def _fits_default_int(val: Any) -> bool:
    """Python ints beyond the default int take the slow path, which raises OverflowError."""
    return type(val) is not int or _INT_RANGE[0].min <= val <= _INT_RANGE[0].max


#: JAX's name for a literal atom.
Literal = Lit

#: An equation input or a jaxpr output: a variable or a literal.
Atom: TypeAlias = Var | Lit


class JaxprEqn(NamedTuple):
    """``out_binders = primitive[params] inputs``: one primitive application."""

    primitive: Primitive
    inputs: list[Atom]
    params: dict[str, Any]
    out_binders: list[Var]

    @property
    def invars(self) -> list[Atom]:
        """JAX's name for :attr:`inputs`."""
        return self.inputs

    @property
    def outvars(self) -> list[Var]:
        """JAX's name for :attr:`out_binders`."""
        return self.out_binders

    def __str__(self) -> str:
        return str(pp_eqn(Names(), self))


class Jaxpr:
    """A typed, first-order program: ``in_binders``, ``eqns``, ``outs``.

    Jaxprs hash and compare by identity, so they can be primitive params and cache keys.
    """

    __slots__ = ("eqns", "in_binders", "outs")

    in_binders: list[Var]
    eqns: list[JaxprEqn]
    outs: list[Atom]

    def __init__(
        self, in_binders: Sequence[Var], eqns: Sequence[JaxprEqn], outs: Sequence[Atom]
    ) -> None:
        _init = object.__setattr__
        _init(self, "in_binders", list(in_binders))
        _init(self, "eqns", list(eqns))
        _init(self, "outs", list(outs))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Jaxpr is immutable: build a new one instead of setting {name!r}")

    @property
    def invars(self) -> list[Var]:
        """JAX's name for :attr:`in_binders`."""
        return self.in_binders

    @property
    def outvars(self) -> list[Atom]:
        """JAX's name for :attr:`outs`."""
        return self.outs

    @property
    def in_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.in_binders]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [x.aval for x in self.outs]

    def __str__(self) -> str:
        return str(pp_jaxpr(self))

    __repr__ = __str__


class ClosedJaxpr:
    """A jaxpr together with the values of its constant binders.

    ``jaxpr.in_binders`` holds one binder per constant first (their values are ``consts``),
    then one per argument; ``in_avals`` are the argument types only. Calling a closed jaxpr on
    flat arguments evaluates it (through ``bind``, so the call is itself traceable).
    """

    __slots__ = ("consts", "jaxpr")

    jaxpr: Jaxpr
    consts: list[Any]

    def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]) -> None:
        if len(consts) > len(jaxpr.in_binders):
            raise ValueError(
                f"ClosedJaxpr: {len(consts)} constants for a jaxpr with only "
                f"{len(jaxpr.in_binders)} input binders"
            )
        object.__setattr__(self, "jaxpr", jaxpr)
        object.__setattr__(self, "consts", list(consts))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(
            f"ClosedJaxpr is immutable: build a new one instead of setting {name!r}"
        )

    @property
    def in_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.jaxpr.in_binders[len(self.consts) :]]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [x.aval for x in self.jaxpr.outs]

    @property
    def eqns(self) -> list[JaxprEqn]:
        return self.jaxpr.eqns

    @property
    def literals(self) -> list[Any]:
        """JAX's name for :attr:`consts`."""
        return self.consts

    def __call__(self, *args: Any) -> list[Any]:
        return eval_jaxpr(self.jaxpr, [*self.consts, *args])

    def __str__(self) -> str:
        return str(self.jaxpr)

    __repr__ = __str__


class JaxprType(NamedTuple):
    """The type of a jaxpr: input and output avals, shown as ``(float32[]) -> (float32[])``."""

    in_types: list[ShapedArray]
    out_types: list[ShapedArray]

    def __repr__(self) -> str:
        ins = ", ".join(type_str(a) for a in self.in_types)
        outs = ", ".join(type_str(a) for a in self.out_types)
        return f"({ins}) -> ({outs})"


def type_str(aval: ShapedArray) -> str:
    """``float32[3,4]``: how jaxprs show a type (full dtype name, as in Autodidax)."""
    key = (aval.dtype, aval.shape)
    s = _TYPE_STRS.get(key)
    if s is None:
        if len(_TYPE_STRS) >= 4096:
            _TYPE_STRS.clear()
        s = _TYPE_STRS[key] = f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"
    return s


# ``dtype.name`` is slow enough to dominate printing a large jaxpr
_TYPE_STRS: dict[tuple[np.dtype[Any], tuple[int, ...]], str] = {}


# --- printing ------------------------------------------------------------------------------------


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


# --- evaluation ----------------------------------------------------------------------------------


def eval_jaxpr(jaxpr: Jaxpr | ClosedJaxpr, args: Sequence[Any]) -> list[Any]:
    """Evaluate ``jaxpr`` on ``args`` (values for its constant binders, then its arguments)
    and return the list of outputs. A ``ClosedJaxpr`` supplies its own constants, so ``args``
    are then the arguments only."""
    if isinstance(jaxpr, ClosedJaxpr):
        args = [*jaxpr.consts, *args]
        jaxpr = jaxpr.jaxpr
    binders = jaxpr.in_binders
    if len(args) != len(binders):
        where = user_line_suffix()
        raise TypeError(
            f"eval_jaxpr: the jaxpr takes {len(binders)} inputs (constants first, then "
            f"arguments) but {len(args)} were given{where}"
        )
    env: dict[Var, Any] = dict(zip(binders, args, strict=True))
    for eqn in jaxpr.eqns:
        in_vals = [env[x] if type(x) is Var else x.val for x in eqn.inputs]  # type: ignore[union-attr]
        outs = bind(eqn.primitive, *in_vals, **eqn.params)
        for v, val in zip(eqn.out_binders, outs, strict=True):
            env[v] = val
    # an output that is an input (or a literal) as any operation's output: never host data
    return [unchanged(env[x] if type(x) is Var else x.val) for x in jaxpr.outs]  # type: ignore[union-attr]


def jaxpr_as_fun(jaxpr: Jaxpr | ClosedJaxpr) -> Callable[..., list[Any]]:
    """A function of flat arguments evaluating ``jaxpr`` (constants first for a ``Jaxpr``)."""

    def fun(*args: Any) -> list[Any]:
        return eval_jaxpr(jaxpr, args)

    return fun
