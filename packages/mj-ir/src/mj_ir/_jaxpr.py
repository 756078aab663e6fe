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

The same objects answer to JAX's names with JAX's meaning: ``jaxpr.constvars`` (the first
``num_consts`` binders: a :class:`ClosedJaxpr`'s jaxpr has one per constant) and
``jaxpr.invars`` (the arguments only), ``outvars``, ``eqns``, ``effects``; ``eqn.invars``,
``eqn.outvars``; :data:`Literal` is :class:`Lit`. :func:`eval_jaxpr_consts` is JAX's
``eval_jaxpr(jaxpr, consts, *args)`` and :meth:`Jaxpr.pretty_print` prints JAX's text form.

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

from mj_core.errors import user_line_suffix
from mj_core.extend import (
    Primitive,
    RuleTable,
    ShapedArray,
    bind,
    dtype_name,
    get_aval,
    is_token_aval,
    on_x64_change,
    raise_to_shaped,
    unchanged,
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
    "eval_jaxpr_consts",
    "jax_type_str",
    "jaxpr_as_fun",
    "pp",
    "pp_atom",
    "pp_default_eqn",
    "pp_eqn",
    "pp_jaxpr",
    "pp_jaxpr_jax",
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

    @property
    def effects(self) -> frozenset[Any]:
        """JAX's effects of the equation: mj's primitives have none (side effects such as
        callbacks are ordered by their operands)."""
        return _NO_EFFECTS

    def replace(self, **changes: Any) -> JaxprEqn:
        """JAX's ``eqn.replace(primitive=, invars=, outvars=, params=)``: a new equation
        (JAX's ``effects``, ``source_info`` and ``ctx`` are accepted and ignored)."""
        for ignored in ("effects", "source_info", "ctx"):
            changes.pop(ignored, None)
        primitive = changes.pop("primitive", self.primitive)
        inputs = list(changes.pop("invars", self.inputs))
        params = changes.pop("params", self.params)
        out_binders = list(changes.pop("outvars", self.out_binders))
        if changes:
            raise TypeError(f"JaxprEqn.replace: unexpected fields {sorted(changes)}")
        return JaxprEqn(primitive, inputs, params, out_binders)

    def __str__(self) -> str:
        return str(pp_eqn(Names(), self))


_NO_EFFECTS: frozenset[Any] = frozenset()


class Jaxpr:
    """A typed, first-order program: ``in_binders``, ``eqns``, ``outs``.

    Two spellings of one object (Autodidax's and JAX's): ``in_binders`` are all the inputs,
    the ``num_consts`` constant binders first; JAX's ``constvars`` are those first
    ``num_consts`` binders and its ``invars`` the rest (the arguments), ``outvars`` is ``outs``.
    A jaxpr built by a pass has ``num_consts=0`` (every binder is an argument); a
    :class:`ClosedJaxpr` holds the variant of its jaxpr whose constvars are its constants.

    Jaxprs hash and compare by identity, so they can be primitive params and cache keys.
    """

    __slots__ = ("_variants", "eqns", "in_binders", "num_consts", "outs")

    in_binders: list[Var]
    eqns: list[JaxprEqn]
    outs: list[Atom]
    num_consts: int
    _variants: dict[int, Jaxpr] | None

    def __init__(
        self,
        in_binders: Sequence[Var],
        eqns: Sequence[JaxprEqn],
        outs: Sequence[Atom],
        num_consts: int = 0,
    ) -> None:
        _init = object.__setattr__
        _init(self, "in_binders", list(in_binders))
        _init(self, "eqns", list(eqns))
        _init(self, "outs", list(outs))
        if not 0 <= num_consts <= len(self.in_binders):
            raise ValueError(
                f"Jaxpr: num_consts={num_consts} for a jaxpr with {len(self.in_binders)} "
                "input binders"
            )
        _init(self, "num_consts", num_consts)
        _init(self, "_variants", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Jaxpr is immutable: build a new one instead of setting {name!r}")

    def with_num_consts(self, num_consts: int) -> Jaxpr:
        """The same program with its first ``num_consts`` binders as constvars. It shares
        this jaxpr's binders, equations and outputs, and is the same object on every call (so
        caches keyed by jaxpr identity keep hitting)."""
        if num_consts == self.num_consts:
            return self
        variants = self._variants
        if variants is None:
            variants = {self.num_consts: self}
            object.__setattr__(self, "_variants", variants)
        new = variants.get(num_consts)
        if new is None:
            if not 0 <= num_consts <= len(self.in_binders):
                raise ValueError(
                    f"Jaxpr: num_consts={num_consts} for a jaxpr with "
                    f"{len(self.in_binders)} input binders"
                )
            new = object.__new__(Jaxpr)
            _init = object.__setattr__
            _init(new, "in_binders", self.in_binders)
            _init(new, "eqns", self.eqns)
            _init(new, "outs", self.outs)
            _init(new, "num_consts", num_consts)
            _init(new, "_variants", variants)  # shared: every variant finds every other
            variants[num_consts] = new
        return new

    @property
    def constvars(self) -> list[Var]:
        """JAX's constant binders: the first ``num_consts`` of :attr:`in_binders`."""
        return self.in_binders[: self.num_consts]

    @property
    def invars(self) -> list[Var]:
        """JAX's argument binders: :attr:`in_binders` after the constants."""
        return self.in_binders[self.num_consts :] if self.num_consts else self.in_binders

    @property
    def outvars(self) -> list[Atom]:
        """JAX's name for :attr:`outs`."""
        return self.outs

    @property
    def effects(self) -> frozenset[Any]:
        """JAX's effects of the jaxpr: none (see :attr:`JaxprEqn.effects`)."""
        return _NO_EFFECTS

    @property
    def in_avals(self) -> list[ShapedArray]:
        """The argument types (JAX's: of :attr:`invars`; every binder's when the jaxpr has no
        constvars, as the jaxprs mj's passes build)."""
        return [v.aval for v in self.invars]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [x.aval for x in self.outs]

    def replace(self, **changes: Any) -> Jaxpr:
        """JAX's ``jaxpr.replace(constvars=, invars=, outvars=, eqns=)``: a new jaxpr (JAX's
        ``effects`` and ``debug_info`` are accepted and ignored)."""
        constvars = list(changes.pop("constvars", self.constvars))
        invars = list(changes.pop("invars", self.invars))
        outvars = list(changes.pop("outvars", self.outs))
        eqns = list(changes.pop("eqns", self.eqns))
        for ignored in ("effects", "debug_info"):
            changes.pop(ignored, None)
        if changes:
            raise TypeError(f"Jaxpr.replace: unexpected fields {sorted(changes)}")
        return Jaxpr([*constvars, *invars], eqns, outvars, num_consts=len(constvars))

    def pretty_print(self, **kwargs: Any) -> str:
        """The jaxpr in JAX's text form (``{ lambda a:f32[3]; b:f32[]. let ... in (c,) }``);
        ``str()`` gives Autodidax's. JAX's keyword options are accepted and ignored."""
        del kwargs
        return str(pp_jaxpr_jax(self))

    def __str__(self) -> str:
        return str(pp_jaxpr(self))

    __repr__ = __str__


class ClosedJaxpr:
    """A jaxpr together with the values of its constant binders.

    ``jaxpr.in_binders`` holds one binder per constant first (their values are ``consts``),
    then one per argument: ``jaxpr.constvars`` and ``jaxpr.invars`` in JAX's spelling (the
    jaxpr kept is :meth:`Jaxpr.with_num_consts` of the one given). ``in_avals`` are the
    argument types only. Calling a closed jaxpr on
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
        object.__setattr__(self, "jaxpr", jaxpr.with_num_consts(len(consts)))
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

    @property
    def constvars(self) -> list[Var]:
        return self.jaxpr.constvars

    @property
    def invars(self) -> list[Var]:
        return self.jaxpr.invars

    @property
    def outvars(self) -> list[Atom]:
        return self.jaxpr.outs

    @property
    def effects(self) -> frozenset[Any]:
        return _NO_EFFECTS

    def replace(self, **changes: Any) -> ClosedJaxpr:
        """JAX's ``closed.replace(jaxpr=, consts=)``."""
        jaxpr = changes.pop("jaxpr", self.jaxpr)
        consts = changes.pop("consts", self.consts)
        if changes:
            raise TypeError(f"ClosedJaxpr.replace: unexpected fields {sorted(changes)}")
        return ClosedJaxpr(jaxpr, consts)

    def map_jaxpr(self, f: Callable[[Jaxpr], Jaxpr]) -> ClosedJaxpr:
        """JAX's ``closed.map_jaxpr(f)``: ``f`` applied to the jaxpr, the constants kept."""
        return ClosedJaxpr(f(self.jaxpr), self.consts)

    def __call__(self, *args: Any) -> list[Any]:
        return eval_jaxpr(self.jaxpr, [*self.consts, *args])

    def pretty_print(self, **kwargs: Any) -> str:
        """:meth:`Jaxpr.pretty_print`: JAX's text form."""
        return self.jaxpr.pretty_print(**kwargs)

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
    """``float32[3,4]``: how jaxprs show a type (full dtype name, as in Autodidax); a token's
    type is ``token``."""
    if is_token_aval(aval):
        return "token"
    key = (aval.dtype, aval.shape)
    s = _TYPE_STRS.get(key)
    if s is None:
        if len(_TYPE_STRS) >= 4096:
            _TYPE_STRS.clear()
        s = _TYPE_STRS[key] = f"{dtype_name(aval.dtype)}[{','.join(str(d) for d in aval.shape)}]"
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
    """A binder: ``b:float32[3]`` (``b:f32[3]`` in JAX's form)."""
    if _JAX_FORM:
        return f"{names[v]}:{jax_type_str(v.aval)}"
    return f"{names[v]}:{type_str(v.aval)}"


def pp_atom(names: Names, x: Var | Lit) -> str:
    if type(x) is Var:
        return names[x]
    if _JAX_FORM:  # JAX's form types its literals: ``2.0:f32[]``
        return f"{x}:{jax_type_str(x.aval)}"
    return str(x)


def pp_jaxpr(jaxpr: Jaxpr) -> PPrint:
    if _JAX_FORM:  # a nested jaxpr printed in JAX's form continues the outer jaxpr's names
        return _pp_jaxpr_jax(jaxpr, _JAX_FORM[-1])
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
    args = " " + args if args or _JAX_FORM else ""  # (JAX's: a space before no operands)
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
    if _JAX_FORM and isinstance(v, Jaxpr | ClosedJaxpr):
        # JAX's form: the nested jaxpr's later lines are indented from the key, not the brace
        first, *rest = _pp_param_value(v).lines
        return PPrint([(0, f"{key}={first[1]}"), *rest])
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
pp_rules: RuleTable[Callable[[Names, JaxprEqn], PPrint]] = RuleTable(
    "pp_rules",
    "jaxpr printing",
    "mj_ir.extend",
    default="the equation is printed as outs = prim[params] args (pp_default_eqn)",
)


# --- JAX's text form -----------------------------------------------------------------------------
# ``Jaxpr.pretty_print()`` prints JAX's current form with the same printer: while it runs,
# ``_JAX_FORM`` holds the names of the jaxpr being printed, and ``var_str``, ``pp_atom`` and
# ``pp_jaxpr`` switch to JAX's spelling (short dtype names, typed literals, ``constvars;
# invars.``, ``(outs,)``, names continued into nested jaxprs)::
#
#     { lambda a:f32[3]; b:f32[3]. let
#         c:f32[3] = sin b
#         d:f32[3] = mul c a
#       in (d,) }

_JAX_FORM: list[Names] = []
_JAX_WIDTH = 80  # JAX's line width: a jaxpr with one short equation prints on one line


def jax_type_str(aval: ShapedArray) -> str:
    """``f32[3,4]``: how JAX's jaxprs show a type (short dtype names); a token's is ``Tok``."""
    if is_token_aval(aval):
        return "Tok"
    name = dtype_name(aval.dtype)
    short = _SHORT_DTYPES.get(name)
    if short is None:
        short = name
        for long, abbrev in (("bfloat", "bf"), ("float", "f"), ("uint", "u"), ("int", "i")):
            short = short.replace(long, abbrev)
        short = short.replace("complex", "c")
        _SHORT_DTYPES[name] = short
    return f"{short}[{','.join(str(d) for d in aval.shape)}]"


_SHORT_DTYPES: dict[str, str] = {"bool": "bool"}


def pp_jaxpr_jax(jaxpr: Jaxpr) -> PPrint:
    """``jaxpr`` in JAX's text form (what :meth:`Jaxpr.pretty_print` returns)."""
    _JAX_FORM.append(Names())
    try:
        return _pp_jaxpr_jax(jaxpr, _JAX_FORM[-1])
    finally:
        _JAX_FORM.pop()


def _pp_jaxpr_jax(jaxpr: Jaxpr, names: Names) -> PPrint:
    consts = " ".join(var_str(names, v) for v in jaxpr.constvars)
    args = " ".join(var_str(names, v) for v in jaxpr.invars)
    head = f"{{ lambda {consts}; {args}." if consts else f"{{ lambda ; {args}."
    eqns = [pp_eqn(names, e) for e in jaxpr.eqns]
    outs = [pp_atom(names, x) for x in jaxpr.outs]
    outs_str = f"({outs[0]},)" if len(outs) == 1 else f"({', '.join(outs)})"
    if not eqns:
        return pp(f"{head} let  in {outs_str} }}")
    if len(eqns) == 1 and len(eqns[0].lines) == 1:
        line = f"{head} let {eqns[0].lines[0][1]} in {outs_str} }}"
        if len(line) <= _JAX_WIDTH:
            return pp(line)
    return pp(f"{head} let") + vcat(eqns).indent(4) + pp(f"in {outs_str} }}").indent(2)


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
    # an output that is an input (or a literal) as any operation's output: never host array
    # data; a Python number stays one, as in the eager program and JAX's eval_jaxpr (linearize's
    # tangent of an output that is an input is the Python float the caller gave)
    outs = [env[x] if type(x) is Var else x.val for x in jaxpr.outs]  # type: ignore[union-attr]
    return [x if type(x) in _PY_NUMBERS else unchanged(x) for x in outs]


_PY_NUMBERS = (bool, int, float, complex)


def eval_jaxpr_consts(jaxpr: Jaxpr | ClosedJaxpr, consts: Sequence[Any], *args: Any) -> list[Any]:
    """JAX's ``jax.core.eval_jaxpr(jaxpr, consts, *args)``: evaluate ``jaxpr`` with ``consts``
    bound to its ``constvars`` and ``args`` to its ``invars``; returns the list of outputs.
    (A ``ClosedJaxpr`` is refused with the call to make instead, as JAX's would fail.)"""
    if isinstance(jaxpr, ClosedJaxpr):
        raise TypeError(
            "eval_jaxpr(jaxpr, consts, *args) takes a Jaxpr: for a ClosedJaxpr `closed`, call "
            f"eval_jaxpr(closed.jaxpr, closed.consts, *args){user_line_suffix()}"
        )
    if len(consts) != jaxpr.num_consts or len(args) != len(jaxpr.in_binders) - jaxpr.num_consts:
        raise TypeError(
            f"eval_jaxpr: the jaxpr has {jaxpr.num_consts} constvars and "
            f"{len(jaxpr.in_binders) - jaxpr.num_consts} invars, but {len(consts)} constants "
            f"and {len(args)} arguments were given{user_line_suffix()}"
        )
    return eval_jaxpr(jaxpr, [*consts, *args])


def jaxpr_as_fun(jaxpr: Jaxpr | ClosedJaxpr) -> Callable[..., list[Any]]:
    """A function of flat arguments evaluating ``jaxpr`` (constants first for a ``Jaxpr``)."""

    def fun(*args: Any) -> list[Any]:
        return eval_jaxpr(jaxpr, args)

    return fun
