"""The jaxpr data structures: variables, literals, equations, jaxprs and closed jaxprs.

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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, TypeAlias

import numpy as np

from mj_core.extend import Primitive, ShapedArray, get_aval, on_x64_change, raise_to_shaped

__all__ = ["Atom", "ClosedJaxpr", "Jaxpr", "JaxprEqn", "JaxprType", "Lit", "Literal", "Var"]


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
        from mj_ir._printing import Names, pp_eqn

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
        from mj_ir._printing import pp_jaxpr

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
        from mj_ir._evaluation import eval_jaxpr

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
