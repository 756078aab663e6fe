"""Turning the user's callables (branches, loop bodies) into jaxprs.

Every control-flow API traces its callables on the abstract values of their flattened
arguments. A callable may close over values of enclosing transformations (tracers) or over
arrays; :func:`mj_ir.extend.trace_to_jaxpr` hoists those as constants, which become ordinary
operands of the control-flow primitive so that enclosing transformations see them.
This module also owns the carry-type check shared by ``while_loop`` and ``scan``, the
output-structure check shared by ``custom_root`` and ``custom_linear_solve``, and the
``f32[3]``-style type trees shown in their error messages.
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from mj_core import ShapedArray, Tracer, bind1, config, get_aval, raise_to_shaped
from mj_core.dtypes import result_type
from mj_core.errors import user_line_suffix
from mj_core.extend import ArrayLike, EagerArray, axis_env_signature, eager_result, weak_result
from mj_core.numpy import asarray
from mj_core.prims.conversions import convert_element_type_p
from mj_core.tree_util import (
    PyTreeDef,
    flatten_fun,
    flatten_one_level_with_keys,
    keystr,
    tree_flatten_with_path,
    tree_structure,
    tree_unflatten,
    treedef_children,
    treedef_is_leaf,
)
from mj_ir import ClosedJaxpr, Jaxpr, Var
from mj_ir.extend import trace_to_jaxpr, types_match
from mj_xla.extend import on_clear_caches

__all__ = [
    "TracedFun",
    "branch_mismatch",
    "cast",
    "check_callable",
    "check_carry",
    "check_out_tree",
    "fix_carry_types",
    "forward_inputs",
    "forwarded_inputs",
    "host_outputs",
    "join_consts",
    "shaped_avals",
    "split_groups",
    "trace_fun",
    "type_tree",
    "weak_outputs",
]


class TracedFun(NamedTuple):
    """A traced callable: ``jaxpr`` binds its ``consts`` first, then the flat arguments."""

    jaxpr: Jaxpr
    consts: list[Any]
    out_tree: PyTreeDef

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [x.aval for x in self.jaxpr.outs]

    def closed(self) -> ClosedJaxpr:
        """The jaxpr with its constants turned into leading arguments."""
        return ClosedJaxpr(self.jaxpr, [])


def check_callable(api: str, name: str, fun: object) -> None:
    """A TypeError unless ``fun`` is callable; the ``lax`` APIs in JAX's wording
    (``lax.scan: f argument should be callable``)."""
    if not callable(fun):
        where = user_line_suffix()
        got = f"got {type(fun).__name__} {fun!r}{where}."
        if api == "checkpoint":
            raise TypeError(f"{api}: {name} must be callable, {got}")
        a = "a " if api == "scan" else ""  # (JAX's words for scan)
        raise TypeError(f"lax.{api}: {name} argument should be {a}callable. ({got[:-1]})")


_HOST_SCALARS = (bool, int, float, complex)


def host_outputs(outs: Sequence[Any], avals: Sequence[ShapedArray]) -> list[Any]:
    """An eager impl's outputs as mj arrays of the primitive's output types. A jaxpr evaluated
    eagerly returns its literals (a branch returning ``2.0``) and forwarded inputs (a host
    operand) as they are; JAX's control flow returns arrays, so these become mj arrays of
    ``avals`` (a copy of host data, weakly typed as the output type says)."""
    converted = []
    for v, aval in zip(outs, avals, strict=True):
        if type(v) in _HOST_SCALARS or type(v) is np.ndarray or isinstance(v, np.generic):
            data = np.array(v, aval.dtype)
            v = weak_result(data) if aval.weak_type else eager_result(data)
        converted.append(v)
    return converted


def forwarded_inputs(jaxpr: Jaxpr) -> list[int | None]:
    """Per output of ``jaxpr``, the position of the input binder it returns unchanged, or
    None (JAX's ``pe._jaxpr_forwarding``)."""
    position = {id(b): k for k, b in enumerate(jaxpr.in_binders)}
    return [position.get(id(v)) if isinstance(v, Var) else None for v in jaxpr.outs]


def forward_inputs(
    outs: Sequence[Any], inputs: Sequence[Any], forwards: Sequence[int | None]
) -> list[Any]:
    """``outs`` with each output that is a forwarded input replaced by that input itself, as
    JAX's ``cond``/``while_loop``/``scan`` forward them around the primitive: an unbatched
    operand a branch or loop body returns as it is stays unbatched under ``vmap`` (so
    ``out_axes=None`` accepts it) and is the very object passed in (Python scalars and NumPy
    arrays become mj arrays, as JAX's ``lax.asarray``)."""
    return [
        out
        if k is None
        else inputs[k]
        if isinstance(inputs[k], Tracer | EagerArray)
        else asarray(inputs[k])
        for out, k in zip(outs, forwards, strict=True)
    ]


def weak_outputs(outs: Sequence[Any], avals: Sequence[ShapedArray]) -> list[Any]:
    """Eager outputs of a control-flow primitive, weakly typed where its output types are (a
    branch or body returning a Python number): eager evaluation marks outputs weak only when
    every operand is, and the index or the loop counters of control flow never are."""
    return [
        weak_result(o) if a.weak_type and type(o) is EagerArray else o
        for o, a in zip(outs, avals, strict=True)
    ]


def shaped_avals(flat_vals: Sequence[Any]) -> list[ShapedArray]:
    return [raise_to_shaped(get_aval(x)) for x in flat_vals]


#: Traces kept per callable (weakly: dropped with it), then per argument types and the settings
#: a trace depends on: calling ``while_loop`` / ``cond`` / ``scan`` / a ``checkpoint``ed
#: function again with the same callables and argument types does not run their Python again
#: (JAX caches these traces the same way). At most _MAX_TRACES per callable.
_traces: weakref.WeakKeyDictionary[object, dict[Hashable, TracedFun]] = weakref.WeakKeyDictionary()
_MAX_TRACES = 64
on_clear_caches(_traces.clear)


def trace_fun(
    fun: Callable[..., Any],
    in_tree: PyTreeDef,
    in_avals: Sequence[ShapedArray],
    *,
    owner: object = None,
    statics: Hashable = (),
) -> TracedFun:
    """Trace ``fun(*tree_unflatten(in_tree, args))`` on abstract flat arguments.

    The trace is cached on ``owner`` (``fun`` itself by default; a wrapper made per call
    names the user's function, and the ``statics`` it closes over, instead). A trace that
    closed over tracers of an enclosing transformation is not kept: they die with it.
    """
    owner = fun if owner is None else owner
    key = (in_tree, tuple(in_avals), statics, axis_env_signature(), config.trace_settings())
    try:
        hash(key)
        per_fun = _traces.get(owner)
        hit = None if per_fun is None else per_fun.get(key)
    except TypeError:  # an unhashable or not weakly referenceable callable, unhashable statics
        per_fun, hit, owner = None, None, None
    if hit is not None:
        return hit
    flat_fun, out_tree = flatten_fun(fun, in_tree)
    jaxpr, consts = trace_to_jaxpr(flat_fun, list(in_avals))
    traced = TracedFun(jaxpr, list(consts), out_tree())
    if owner is not None and not any(isinstance(c, Tracer) for c in traced.consts):
        if per_fun is None:
            per_fun = _traces.setdefault(owner, {})
        elif len(per_fun) >= _MAX_TRACES:
            per_fun.clear()
        per_fun[key] = traced
    return traced


class _TypeRepr:
    """A leaf standing for an abstract value when a pytree of types is printed."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def type_tree(tree: PyTreeDef, avals: Sequence[ShapedArray]) -> str:
    """``(f32[3], {'a': i64[]})``: a pytree of types, for error messages."""
    return repr(tree_unflatten(tree, [_TypeRepr(a.str_short()) for a in avals]))


def join_consts(traced: Sequence[TracedFun]) -> tuple[list[ClosedJaxpr], list[Any]]:
    """Give every traced callable the same constant binders (Autodidax's join).

    The result is one list of constant values (each distinct object once) and, per callable,
    a closed jaxpr taking all those constants first (ignoring the ones it does not use), then
    the callable's own arguments: so one primitive can carry several callables that close
    over different values.
    """
    values: list[Any] = []
    avals: list[ShapedArray] = []
    slots: dict[int, list[int]] = {}
    per_fun_slots: list[list[int]] = []
    for fun in traced:
        taken: set[int] = set()
        mine: list[int] = []
        for val, binder in zip(fun.consts, fun.jaxpr.in_binders, strict=False):
            slot = next((s for s in slots.get(id(val), []) if s not in taken), None)
            if slot is None:
                slot = len(values)
                values.append(val)
                avals.append(binder.aval)
                slots.setdefault(id(val), []).append(slot)
            taken.add(slot)
            mine.append(slot)
        per_fun_slots.append(mine)
    jaxprs = []
    for fun, mine in zip(traced, per_fun_slots, strict=True):
        nconsts = len(fun.consts)
        binders: list[Var] = [Var(aval) for aval in avals]
        for slot, binder in zip(mine, fun.jaxpr.in_binders[:nconsts], strict=True):
            binders[slot] = binder
        jaxpr = Jaxpr(binders + fun.jaxpr.in_binders[nconsts:], fun.jaxpr.eqns, fun.jaxpr.outs)
        jaxprs.append(ClosedJaxpr(jaxpr, []))
    return jaxprs, values


def split_groups(args: Sequence[Any], lengths: Sequence[int]) -> tuple[list[list[Any]], list[Any]]:
    """``args`` cut into one list per length, and the rest (a primitive's constant groups,
    one per traced callable, then its own operands)."""
    groups, start = [], 0
    for n in lengths:
        groups.append(list(args[start : start + n]))
        start += n
    return groups, list(args[start:])


def check_out_tree(
    func_name: str, expected_name: str, actual: PyTreeDef, expected: PyTreeDef, has_aux: bool
) -> None:
    """``TypeError`` unless ``func_name``'s output has ``expected_name``'s structure; with
    ``has_aux`` the output must be a pair whose first element has it."""
    if has_aux:
        children = treedef_children(actual)
        if len(children) != 2:
            raise ValueError(
                f"{func_name}() produced a pytree with structure {actual}, but a pytree tuple "
                f"with auxiliary output was expected because has_aux was set to True"
                f"{user_line_suffix()}."
            )
        actual = children[0]
    if actual != expected:
        raise TypeError(
            f"{func_name}() output pytree structure must match {expected_name}, got {actual} "
            f"and {expected}{user_line_suffix()}."
        )


def cast(x: ArrayLike, aval: ShapedArray) -> Any:
    """``x`` converted to ``aval``'s dtype and weak type (no equation if it already has them)."""
    current = get_aval(x)
    if current.dtype == aval.dtype and current.weak_type == aval.weak_type:
        return x
    return bind1(
        convert_element_type_p, x, new_dtype=np.dtype(aval.dtype), weak_type=aval.weak_type
    )


def _promoted_carry(init: ShapedArray, out: ShapedArray) -> ShapedArray | None:
    """The carry type a weakly typed initial value must take to match the body's output
    (JAX promotes ``while_loop(..., 0.0)`` to the body's float32), or None if it cannot."""
    if not init.weak_type or init.shape != out.shape:
        return None
    dtype, weak = result_type((init.dtype, True), (out.dtype, out.weak_type))
    if dtype != out.dtype:
        return None
    return ShapedArray(init.shape, dtype, weak)


def fix_carry_types(
    init_flat: list[Any],
    init_avals: list[ShapedArray],
    out_carry_avals: Sequence[ShapedArray],
) -> bool:
    """Promote weakly typed initial carry values to the body's output dtypes, in place.

    Returns True if some value changed (the body must then be traced again).
    """
    changed = False
    for i, (init, out) in enumerate(zip(init_avals, out_carry_avals, strict=True)):
        if types_match(init, out):
            continue
        new = _promoted_carry(init, out)
        if new is None:
            continue  # the caller's type check reports it
        init_flat[i] = cast(init_flat[i], new)
        init_avals[i] = new
        changed = True
    return changed


def check_carry(
    api: str,
    what_in: str,
    what_out: str,
    in_tree: PyTreeDef,
    in_avals: Sequence[ShapedArray],
    out_tree: PyTreeDef,
    out_avals: Sequence[ShapedArray],
    body_fun: Callable[..., Any] | None = None,
) -> None:
    """``TypeError`` unless the carry keeps its structure and types: JAX's message (naming
    the differing components after the body's carry parameter), then both type trees."""
    if in_tree == out_tree and all(
        types_match(a, b) for a, b in zip(in_avals, out_avals, strict=True)
    ):
        return
    where = user_line_suffix()
    name = f"{api} body"
    component = _carry_component(body_fun)
    in_carry = tree_unflatten(in_tree, list(in_avals))
    if in_tree != out_tree:
        out_carry = tree_unflatten(out_tree, list(out_avals))
        diffs = [
            f"{component(path)} is a {thing1} but the corresponding component of the carry "
            f"output is a {thing2}, so {explanation}"
            for path, thing1, thing2, explanation in _equality_errors((), in_carry, out_carry)
        ]
        head = (
            f"{name} function carry input and carry output must have the same pytree "
            f"structure, but they differ:\n\n{_listed(diffs)}\nRevise the function so that "
            "the carry output has the same pytree structure as the carry input."
        )
    else:
        paths = [path for path, _ in tree_flatten_with_path(in_carry)[0]]
        diffs = [
            f"{component(path)} has type {_jax_short(a)} but the corresponding output carry "
            f"component has type {_jax_short(b)}{_mismatch_extra(a, b)}"
            for path, a, b in zip(paths, in_avals, out_avals, strict=True)
            if not types_match(a, b)
        ]
        head = (
            f"{name} function carry input and carry output must have equal types, but they "
            f"differ:\n\n{_listed(diffs)}\nRevise the function so that all output types match "
            "the corresponding input types."
        )
    raise TypeError(
        f"{head}{where}\n  {what_in}: {type_tree(in_tree, in_avals)}\n  {what_out}: "
        f"{type_tree(out_tree, out_avals)}"
    )


class _LeafMeta(type):
    def __repr__(cls) -> str:
        return "pytree leaf"


class _Leaf(metaclass=_LeafMeta):
    """Stands for every leaf when two tree structures are compared (JAX's wording)."""


def _sourceinfo(fun: Callable[..., Any]) -> str:
    code = getattr(fun, "__code__", None)
    name = getattr(fun, "__name__", repr(fun))
    return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code is not None else name


def branch_mismatch(
    api: str,
    name1: str,
    name2: str,
    f1: Callable[..., Any],
    f2: Callable[..., Any],
    t1: TracedFun,
    t2: TracedFun,
) -> str:
    """JAX's message for two branches whose outputs differ in structure or types."""
    paths = [
        path for path, _ in tree_flatten_with_path(tree_unflatten(t1.out_tree, t1.out_avals))[0]
    ]

    def at(path: tuple[Any, ...]) -> str:
        return f" at path {keystr(path)}" if path else ""

    sources = f"{name1} is {_sourceinfo(f1)}\n{name2} is {_sourceinfo(f2)}\n\n"
    if t1.out_tree != t2.out_tree:
        leaves1 = tree_unflatten(t1.out_tree, [_Leaf() for _ in t1.out_avals])
        leaves2 = tree_unflatten(t2.out_tree, [_Leaf() for _ in t2.out_avals])
        diffs = [
            f"{name1} output{at(p)} is a {thing1} but {name2} output{at(p)} is a {thing2}, "
            f"so {explanation}"
            for p, thing1, thing2, explanation in _equality_errors((), leaves1, leaves2)
        ]
        return (
            f"{api} branch outputs must have the same pytree structure, but they differ:\n\n"
            f"{sources}{_listed(diffs, capitalize=False)}\nRevise {name1} and/or {name2} so "
            "that they have the same pytree structure."
        )
    diffs = [
        f"the output of {name1}{at(p)} has type {_jax_short(a)} but the corresponding output "
        f"of {name2} has type {_jax_short(b)}{_mismatch_extra(a, b)}"
        for p, a, b in zip(paths, t1.out_avals, t2.out_avals, strict=True)
        if not types_match(a, b)
    ]
    return (
        f"{api} branches must have equal output types but they differ.\n\n{sources}"
        f"{_listed(diffs)}\nRevise {name1} and/or {name2} so that all output types match."
    )


def _carry_component(body_fun: Callable[..., Any] | None) -> Callable[[tuple[Any, ...]], str]:
    """JAX's names for a carry component: after the body's first parameter when it has one."""
    try:
        params = list(inspect.signature(body_fun).parameters) if body_fun is not None else []
    except (ValueError, TypeError):
        params = []
    carry = params[0] if params else None

    def component(path: tuple[Any, ...]) -> str:
        if carry:
            return (
                f"the input carry component {carry}{keystr(path)}"
                if path
                else (f"the input carry {carry}")
            )
        return f"the input carry at path {keystr(path)}" if path else "the input carry"

    return component


def _jax_short(a: ShapedArray) -> str:
    """JAX's ``aval.str_short()``: ``float32[1,1]``."""
    return f"{a.dtype.name}[{','.join(str(d) for d in a.shape)}]"


def _listed(diffs: Sequence[str], capitalize: bool = True) -> str:
    if len(diffs) == 1:
        first = f"{diffs[0][:1].upper()}{diffs[0][1:]}" if capitalize else diffs[0]
        return f"{first}.\n"
    return "\n".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"


def _mismatch_extra(a: ShapedArray, b: ShapedArray) -> str:
    mismatches = []
    if a.dtype != b.dtype:
        mismatches.append("the dtypes do not match")
    if a.shape != b.shape:
        mismatches.append("the shapes do not match")
    if not mismatches:
        return ""
    if len(mismatches) == 1:
        return ", so " + mismatches[0]
    return ", so " + ", ".join(mismatches[:-1]) + ", and " + mismatches[-1]


def _equality_errors(
    path: tuple[Any, ...], t1: Any, t2: Any
) -> Iterator[tuple[tuple[Any, ...], str, str, str]]:
    """JAX's ``tree_util.equality_errors``: where and how two pytrees' structures differ."""
    if treedef_is_leaf(tree_structure(t1)) and treedef_is_leaf(tree_structure(t2)):
        return
    if type(t1) is not type(t2):
        yield path, str(type(t1)), str(type(t2)), "their Python types differ"
        return
    if isinstance(t1, list | tuple) and len(t1) != len(t2):
        yield (
            path,
            f"{type(t1).__name__} of length {len(t1)}",
            f"{type(t2).__name__} of length {len(t2)}",
            "the lengths do not match",
        )
        return
    keyed1, meta1 = flatten_one_level_with_keys(t1)
    keyed2, meta2 = flatten_one_level_with_keys(t2)
    if len(keyed1) != len(keyed2):
        keys1 = {getattr(k, "key", k) for k, _ in keyed1}
        keys2 = {getattr(k, "key", k) for k, _ in keyed2}
        diff = " ".join(repr(k) for k in keys1 ^ keys2)

        def children(n: int) -> str:
            return f"{n} child{'ren' if n > 1 else ''}"

        yield (
            path,
            f"{type(t1)} with {children(len(keyed1))}",
            f"{type(t2)} with {children(len(keyed2))}",
            "the numbers of children do not match"
            + (f", with the symmetric difference of key sets: {{{diff}}}" if diff else ""),
        )
        return
    if meta1 != meta2:
        yield (
            path,
            f"{type(t1)} with pytree metadata {meta1}",
            f"{type(t2)} with pytree metadata {meta2}",
            "the pytree node metadata does not match",
        )
        return
    for (k, c1), (_, c2) in zip(keyed1, keyed2, strict=True):
        yield from _equality_errors((*path, k), c1, c2)
