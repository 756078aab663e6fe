"""``mj.experimental.checkify``: checks inside transformed programs (JAX's
``jax.experimental.checkify``).

``check(pred, msg, *fmt_args, **fmt_kwargs)`` states that ``pred`` holds. Evaluated eagerly
it raises :class:`JaxRuntimeError` at once when ``pred`` is false. Staged (``jit``) it cannot
raise, so it must be *functionalized*: ``checkify(f)`` returns a function ``(err, out)`` whose
:class:`Error` carries the first failed check (or ``None``) as data, which is returned through
``jit``, ``vmap`` and ``grad`` like any output; ``err.get()`` gives its message and
``err.throw()`` raises it. As in JAX, checks of one category and payload type share a slot
that keeps its first failure at run time, and of several failed slots the one whose check
comes first in the program is reported. A ``check`` staged without ``checkify`` fails to
compile, with JAX's message.

``checkify(f, errors=...)`` also adds automatic checks: ``nan_checks`` (a NaN in the output of
one of the primitives JAX watches: arithmetic, transcendental functions, reductions, ...),
``div_checks`` (``div`` by zero) and ``index_checks``
(an index out of bounds in ``gather``, the ``scatter`` family, ``dynamic_slice`` or
``dynamic_update_slice``, which would silently clamp or drop it), as JAX.

How it works: ``checkify(f)`` traces ``f`` to a jaxpr and evaluates it with an interpreter that
binds every equation as ``eval_jaxpr`` would and, beside it, computes each check's failure flag
and payload with ordinary array operations, so the error state is traced, batched and compiled
with the program. Nested ``jit`` calls (and custom-derivative functions containing a ``check``)
are evaluated inline; ``cond`` branches return their error state as extra outputs, and
``scan`` / ``while_loop`` bodies carry it. A ``check`` in a ``while_loop`` condition, or inside
another higher-order primitive, raises ``NotImplementedError``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import mj_core.numpy as mnp
from mj_autodiff.extend import custom_jvp_call_p, custom_vjp_call_p, jvp_rules
from mj_batch.extend import vmap_rules
from mj_control.extend import cond_p, scan_p, while_p
from mj_core import Primitive, bind, get_aval, raise_to_shaped
from mj_core.errors import MJError
from mj_core.extend import abstract_eval_rules, impl_rules
from mj_core.prims.elementwise import div_p
from mj_core.prims.indexing import (
    gather_p,
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
)
from mj_core.prims.structural import dynamic_slice_p, dynamic_update_slice_p
from mj_core.tree_util import PyTreeDef, register_pytree_node, tree_flatten, tree_unflatten
from mj_ir import ClosedJaxpr, Jaxpr, Var
from mj_ir.extend import trace_to_jaxpr
from mj_xla.extend import lowering_rules, xla_call_p

__all__ = [
    "BatchedError",
    "DivisionByZeroError",
    "Error",
    "ErrorCategory",
    "FailedCheckError",
    "JaxException",
    "JaxRuntimeError",
    "NaNError",
    "OOBError",
    "all_checks",
    "automatic_checks",
    "check",
    "check_error",
    "check_p",
    "checkify",
    "debug_check",
    "div_checks",
    "float_checks",
    "index_checks",
    "init_error",
    "nan_checks",
    "user_checks",
]


class JaxRuntimeError(MJError, ValueError):
    """Raised by a failed ``check`` evaluated eagerly and by :meth:`Error.throw` (a
    ``ValueError``, as JAX's ``checkify.JaxRuntimeError``)."""


class JaxException(Exception):  # noqa: N818 - JAX's name
    """The base of the error categories: what kind of check failed, with its message."""


class FailedCheckError(JaxException):
    """A user's :func:`check` failed."""


class NaNError(JaxException):
    """A primitive produced a NaN from inputs without one."""


class DivisionByZeroError(JaxException):
    """``div`` by zero."""


class BatchedError(JaxException):
    """The failures of a batch (``vmap``) of checked computations, by example index."""

    def __init__(self, error_mapping: dict[tuple[int, ...], JaxException]) -> None:
        self.error_mapping = error_mapping
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(
            f"at mapped index {', '.join(map(str, idx))}: {e}"
            for idx, e in self.error_mapping.items()
        )


class OOBError(JaxException):
    """An index out of bounds: ``gather``, the ``scatter`` family, ``dynamic_slice``,
    ``dynamic_update_slice`` (which would silently clamp or drop it)."""


ErrorCategory = type[JaxException]

user_checks: frozenset[ErrorCategory] = frozenset({FailedCheckError})
nan_checks: frozenset[ErrorCategory] = frozenset({NaNError})
div_checks: frozenset[ErrorCategory] = frozenset({DivisionByZeroError})
index_checks: frozenset[ErrorCategory] = frozenset({OOBError})
float_checks: frozenset[ErrorCategory] = nan_checks | div_checks
automatic_checks: frozenset[ErrorCategory] = float_checks | index_checks
all_checks: frozenset[ErrorCategory] = automatic_checks | user_checks


# --- check sites and the Error value -------------------------------------------------------------


@dataclass(frozen=True)
class _Site:
    """One place a check may fail (static): its category and how to word its message from its
    payload (the values the message shows)."""

    category: ErrorCategory
    template: str = ""
    fmt_tree: PyTreeDef | None = None
    primitive: str = ""
    operand_shape: tuple[int, ...] = ()

    def message(self, payload: Sequence[Any]) -> str:
        if self.category is FailedCheckError:
            assert self.fmt_tree is not None
            # mj arrays, as JAX's message shows them (``{'b': Array(nan, dtype=float32)}``)
            values = [mnp.asarray(np.asarray(p)) for p in payload]
            args, kwargs = tree_unflatten(self.fmt_tree, values)
            return f"{self.template.format(*args, **kwargs)} (`check` failed)"
        if self.category is NaNError:
            return f"nan generated by primitive: {self.primitive}."
        if self.category is DivisionByZeroError:
            return "division by zero"
        index, axis = (int(_scalar(p)) for p in payload)
        return (
            f"out-of-bounds indexing for array of shape {self.operand_shape}: index {index} is "
            f"out of bounds for axis {axis} with size {self.operand_shape[axis]}. "
        )


def _scalar(x: object) -> Any:
    arr = np.asarray(x)
    return arr[()] if arr.ndim == 0 else arr


class Error:
    """The outcome of a checkified function's checks, as data (a pytree of arrays, so it
    leaves ``jit`` and ``vmap``): per check site a failure flag and the values its message
    shows; the failure reported is the one JAX reports (see the module docstring).

    ``get()`` is its message (``None`` when nothing failed; under ``vmap`` one line
    ``at mapped index i: ...`` per failed example); ``get_exception()`` the category's
    exception (:class:`BatchedError` under ``vmap``); ``throw()`` raises
    :class:`JaxRuntimeError`."""

    def __init__(
        self,
        sites: tuple[_Site, ...],
        failed: tuple[Any, ...],
        payloads: tuple[tuple[Any, ...], ...],
    ) -> None:
        self._sites = sites
        self._failed = failed
        self._payloads = payloads

    def _failures(self) -> tuple[tuple[int, ...], dict[tuple[int, ...], JaxException]]:
        """The batch shape (``()`` outside ``vmap``) and, per failed example, the failed
        check as an exception of its category."""
        if not self._sites:
            return (), {}
        failed = [np.asarray(f) for f in self._failed]
        shape = np.broadcast_shapes(*(f.shape for f in failed))
        failed = [np.broadcast_to(f, shape) for f in failed]
        found: dict[tuple[int, ...], JaxException] = {}
        for idx in np.ndindex(*shape):
            for site, flags, payload in zip(self._sites, failed, self._payloads, strict=True):
                if flags[idx]:
                    values = [np.asarray(p)[idx] if np.ndim(p) >= len(idx) else p for p in payload]
                    found[idx] = site.category(site.message(values))
                    break
        return shape, found

    def get(self) -> str | None:
        """The failed check's message, or ``None``; under ``vmap`` one line per failed
        example, ``at mapped index i: message``."""
        exc = self.get_exception()
        return None if exc is None else str(exc)

    def get_exception(self) -> JaxException | None:
        """The failed check as an exception of its category (a :class:`BatchedError` under
        ``vmap``), or ``None``."""
        shape, found = self._failures()
        if not found:
            return None
        if shape == ():
            return found[()]
        return BatchedError(found)

    def throw(self) -> None:
        """Raise :class:`JaxRuntimeError` with the failed check's message, if one failed."""
        message = self.get()
        if message is not None:
            raise JaxRuntimeError(message)

    def __str__(self) -> str:
        return self.get() or ""

    def __repr__(self) -> str:
        return f"Error({self.get()})"


def _flatten_error(err: Error) -> tuple[list[Any], Any]:
    leaves: list[Any] = list(err._failed)
    for payload in err._payloads:
        leaves.extend(payload)
    return leaves, (err._sites, tuple(len(p) for p in err._payloads))


def _unflatten_error(aux: Any, leaves: Any) -> Error:
    sites, sizes = aux
    leaves = list(leaves)
    failed = tuple(leaves[: len(sites)])
    rest = leaves[len(sites) :]
    payloads = []
    for n in sizes:
        payloads.append(tuple(rest[:n]))
        rest = rest[n:]
    return Error(sites, failed, tuple(payloads))


register_pytree_node(Error, _flatten_error, _unflatten_error)


def init_error() -> Error:
    """An :class:`Error` with nothing failed."""
    return Error((), (), ())


# --- the check primitive -----------------------------------------------------------------------

check_p = Primitive("check", multiple_results=True)
"""``check(pred, *fmt_leaves, msg, fmt_tree, category, debug)``: no outputs."""

_NOT_FUNCTIONALIZED = (
    "Cannot abstractly evaluate a checkify.check which was not functionalized. This probably "
    "means you tried to stage (jit/scan/pmap/...) a `check` without functionalizing it through "
    "`checkify.checkify`."
)


def _check_site(params: dict[str, Any]) -> _Site:
    return _Site(params["category"], params["msg"], params["fmt_tree"])


@impl_rules.register(check_p)
def _check_impl(pred: object, *fmt: object, **params: object) -> list[Any]:
    if not params["debug"] and not np.all(np.asarray(pred)):
        raise JaxRuntimeError(_site_of(params).message(fmt))
    return []


@abstract_eval_rules.register(check_p)
def _check_abstract_eval(*avals: object, **params: object) -> list[Any]:
    return []


@jvp_rules.register(check_p)
def _check_jvp(
    primals: list[Any], tangents: list[Any], **params: object
) -> tuple[list[Any], list[Any]]:
    bind(check_p, *primals, **params)
    return [], []


@vmap_rules.register(check_p)
def _check_vmap(
    axis_size: int, vals: list[Any], dims: list[Any], **params: object
) -> tuple[list[Any], list[Any]]:
    bind(check_p, *vals, **params)  # eagerly: fails if any example fails
    return [], []


@lowering_rules.register(check_p)
def _check_lowering(
    ctx: object, avals_in: object, avals_out: object, in_vals: object, **params: object
) -> list[Any]:
    if params["debug"]:
        return []
    raise ValueError(_NOT_FUNCTIONALIZED)


def _bind_check(
    pred: object,
    msg: str,
    fmt_args: tuple[Any, ...],
    fmt_kwargs: dict[str, Any],
    debug: bool,
    category: ErrorCategory = FailedCheckError,
) -> None:
    if not isinstance(msg, str):
        raise TypeError(f"check: msg must be a string, got {type(msg).__name__}")
    aval = get_aval(pred)
    if aval.shape != () or aval.dtype != np.bool_:
        raise TypeError(f"check takes a scalar pred as argument, got {aval.str_short()}")
    leaves, tree = tree_flatten((fmt_args, fmt_kwargs))
    leaves = [mnp.asarray(x) for x in leaves]
    bind(check_p, pred, *leaves, msg=msg, fmt_tree=tree, category=category, debug=debug)


def check(pred: object, msg: str, *fmt_args: object, **fmt_kwargs: object) -> None:
    """State that scalar boolean ``pred`` holds; ``msg.format(*fmt_args, **fmt_kwargs)``
    describes the failure (``fmt_args`` are pytrees of arrays, shown with their values).

    Eagerly, a false ``pred`` raises :class:`JaxRuntimeError`; under :func:`checkify` the
    failure is returned as an :class:`Error`; staged without ``checkify`` it fails to compile.
    """
    _bind_check(pred, msg, fmt_args, fmt_kwargs, debug=False)


def debug_check(pred: object, msg: str, *fmt_args: object, **fmt_kwargs: object) -> None:
    """:func:`check` under :func:`checkify`; a no-op everywhere else."""
    _bind_check(pred, msg, fmt_args, fmt_kwargs, debug=True)


def check_error(error: Error) -> None:
    """Raise ``error``'s failure eagerly, or carry it into the enclosing :func:`checkify`
    (JAX's ``checkify.check_error``)."""
    if not isinstance(error, Error):
        raise TypeError(f"check_error takes an Error, got {type(error).__name__}")
    for site, failed, payload in zip(error._sites, error._failed, error._payloads, strict=True):
        leaves = [mnp.logical_not(mnp.any(failed)), *payload]
        bind(
            check_p,
            *leaves,
            msg=site.template,
            fmt_tree=site.fmt_tree,
            category=site.category,
            debug=False,
            site=site,
        )


# check_error's equations carry their whole site (automatic categories included).
def _site_of(params: dict[str, Any]) -> _Site:
    site = params.get("site")
    return site if isinstance(site, _Site) else _check_site(params)


# --- functionalization ---------------------------------------------------------------------------


def _group(category: ErrorCategory, payload_avals: Sequence[Any]) -> tuple[Any, ...]:
    """The error slot a check shares with others, as JAX's ``ErrorEffect``: its category
    and the types of its payload. In a slot the first failure at run time is kept; across
    slots the one whose check comes first in the program is reported."""
    return (category, *((tuple(a.shape), np.dtype(a.dtype)) for a in payload_avals))


class _State:
    """The error state threaded through one checkified evaluation: per check site (in
    program order) a failure flag and a payload, at most one site flagged per slot."""

    def __init__(self, enabled: frozenset[ErrorCategory]) -> None:
        self.enabled = enabled
        self.sites: list[_Site] = []
        self.failed: list[Any] = []
        self.payloads: list[tuple[Any, ...]] = []
        self.slot_failed: dict[tuple[Any, ...], Any] = {}

    def add(self, site: _Site, fails: Any, payload: Sequence[Any] = ()) -> None:
        """Record ``site``, failing where ``fails``, unless its slot already failed."""
        slot = _group(site.category, [get_aval(p) for p in payload])
        before = self.slot_failed.get(slot)
        if before is None:
            first = fails
            self.slot_failed[slot] = fails
        else:
            first = mnp.logical_and(fails, mnp.logical_not(before))
            self.slot_failed[slot] = mnp.logical_or(before, fails)
        self.sites.append(site)
        self.failed.append(first)
        self.payloads.append(tuple(payload))

    def error(self) -> Error:
        return Error(tuple(self.sites), tuple(self.failed), tuple(self.payloads))


def _jaxprs_in(value: object) -> list[Jaxpr]:
    if isinstance(value, ClosedJaxpr):
        return [value.jaxpr]
    if isinstance(value, Jaxpr):
        return [value]
    if isinstance(value, tuple | list):
        return [j for v in value for j in _jaxprs_in(v)]
    return []


def _has_check(jaxpr: Jaxpr) -> bool:
    for eqn in jaxpr.eqns:
        if eqn.primitive is check_p:
            return True
        if any(_has_check(j) for v in eqn.params.values() for j in _jaxprs_in(v)):
            return True
    return False


def _eval_closed(closed: ClosedJaxpr | Jaxpr, args: Sequence[Any], state: _State) -> list[Any]:
    if isinstance(closed, ClosedJaxpr):
        return _eval(closed.jaxpr, [*closed.consts, *args], state)
    return _eval(closed, list(args), state)


def _eval(jaxpr: Jaxpr, args: Sequence[Any], state: _State) -> list[Any]:
    env: dict[Var, Any] = dict(zip(jaxpr.in_binders, args, strict=True))

    def read(x: Any) -> Any:
        return env[x] if type(x) is Var else x.val

    for eqn in jaxpr.eqns:
        prim = eqn.primitive
        invals = [read(x) for x in eqn.inputs]
        if prim is check_p:
            _record_check(state, invals, eqn.params)
            continue
        if prim is xla_call_p:  # a nested jit: evaluated inline
            outs = _eval_closed(eqn.params["jaxpr"], invals, state)
        elif any(_has_check(j) for v in eqn.params.values() for j in _jaxprs_in(v)):
            if prim is cond_p:
                outs = _eval_cond(invals, eqn.params, state)
            elif prim is scan_p:
                outs = _eval_scan(invals, eqn.params, state)
            elif prim is while_p:
                outs = _eval_while(invals, eqn.params, state)
            elif prim not in (custom_jvp_call_p, custom_vjp_call_p):
                raise NotImplementedError(
                    f"checkify: a check inside the higher-order primitive '{prim}' is not "
                    "supported yet; move the check outside it"
                )
            else:
                outs = _eval_closed(eqn.params["call_jaxpr"], invals, state)
        else:
            outs = bind(prim, *invals, **eqn.params)
            if not any(_jaxprs_in(v) for v in eqn.params.values()):
                _automatic_checks(state, prim, invals, outs, eqn.params)
        for v, val in zip(eqn.out_binders, outs, strict=True):
            env[v] = val
    return [read(x) for x in jaxpr.outs]


def _state_leaves(state: _State) -> list[Any]:
    leaves = list(state.failed)
    for payload in state.payloads:
        leaves.extend(payload)
    return leaves


def _eval_cond(invals: list[Any], params: dict[str, Any], state: _State) -> list[Any]:
    """A ``cond`` whose branches check: each branch is rewritten to also return the flags and
    payloads of every branch's sites (zeros for the other branches' sites)."""
    index, *ops = invals
    branches: tuple[ClosedJaxpr, ...] = params["branches"]
    in_avals = [raise_to_shaped(get_aval(x)) for x in ops]
    layouts: list[tuple[list[_Site], list[int], list[Any]]] = []
    for branch in branches:  # first pass: each branch's sites and their leaf types
        inner = _State(state.enabled)

        def probe(*xs: object, branch: ClosedJaxpr = branch, inner: _State = inner) -> list[Any]:
            return [*_eval_closed(branch, xs, inner), *_state_leaves(inner)]

        jaxpr, _ = trace_to_jaxpr(probe, in_avals)
        n_out = len(branch.jaxpr.outs)
        leaf_avals = [x.aval for x in jaxpr.outs[n_out:]]
        layouts.append((list(inner.sites), [len(p) for p in inner.payloads], leaf_avals))

    new_branches = []
    for k, branch in enumerate(branches):

        def padded(*xs: object, k: int = k, branch: ClosedJaxpr = branch) -> list[Any]:
            inner = _State(state.enabled)
            outs = _eval_closed(branch, xs, inner)
            extra: list[Any] = []
            for j, (_, _, avals) in enumerate(layouts):
                if j == k:
                    extra.extend(_state_leaves(inner))
                else:
                    extra.extend(mnp.zeros(a.shape, a.dtype) for a in avals)
            return [*outs, *extra]

        jaxpr, consts = trace_to_jaxpr(padded, in_avals)
        new_branches.append(ClosedJaxpr(jaxpr, consts))
    results = bind(cond_p, index, *ops, branches=tuple(new_branches))
    n_out = len(branches[0].jaxpr.outs)
    outs, rest = results[:n_out], results[n_out:]
    for sites, sizes, _ in layouts:
        failed, rest = rest[: len(sites)], rest[len(sites) :]
        for site, flag, size in zip(sites, failed, sizes, strict=True):
            state.add(site, flag, rest[:size])
            rest = rest[size:]
    return outs


# --- loops: the error state is carried ------------------------------------------------------


def _loop_sites(
    run: Callable[..., list[Any]], in_avals: list[Any], state: _State
) -> tuple[list[_Site], list[int], list[Any]]:
    """The sites one iteration of a loop body records, their payload sizes and the types of
    their leaves (flags, then payloads): ``run(inner_state, *args)`` is traced once."""
    inner = _State(state.enabled)

    def probe(*xs: object) -> list[Any]:
        run(inner, *xs)
        return _state_leaves(inner)

    jaxpr, _ = trace_to_jaxpr(probe, in_avals)
    return list(inner.sites), [len(p) for p in inner.payloads], [x.aval for x in jaxpr.outs]


def _merge_iteration(
    carried: Sequence[Any], inner: _State, sites: Sequence[_Site], sizes: Sequence[int]
) -> list[Any]:
    """The error leaves after one more iteration: a site failed if it failed before, or now
    while nothing in its slot had failed before (in a slot the first failure wins); a failed
    site keeps its payload."""
    n_sites = len(sites)
    now = _state_leaves(inner)
    flags_in, payloads_in = list(carried[:n_sites]), list(carried[n_sites:])
    flags_now, payloads_now = now[:n_sites], now[n_sites:]
    slots = []
    at = 0
    for site, size in zip(sites, sizes, strict=True):
        slots.append(_group(site.category, [get_aval(p) for p in payloads_in[at : at + size]]))
        at += size
    slot_before: dict[tuple[Any, ...], Any] = {}
    for slot, f_in in zip(slots, flags_in, strict=True):
        prev = slot_before.get(slot)
        slot_before[slot] = f_in if prev is None else mnp.logical_or(prev, f_in)
    flags = [
        mnp.logical_or(f_in, mnp.logical_and(f_now, mnp.logical_not(slot_before[slot])))
        for f_in, f_now, slot in zip(flags_in, flags_now, slots, strict=True)
    ]
    payloads: list[Any] = []
    at = 0
    for f_in, size in zip(flags_in, sizes, strict=True):
        for k in range(at, at + size):
            payloads.append(mnp.where(f_in, payloads_in[k], payloads_now[k]))
        at += size
    return [*flags, *payloads]


def _add_loop_sites(
    state: _State, sites: list[_Site], sizes: list[int], leaves: Sequence[Any]
) -> None:
    flags, rest = list(leaves[: len(sites)]), list(leaves[len(sites) :])
    for site, flag, size in zip(sites, flags, sizes, strict=True):
        state.add(site, flag, rest[:size])
        rest = rest[size:]


def _initial_leaves(avals: Sequence[Any]) -> list[Any]:
    return [mnp.zeros(a.shape, a.dtype) for a in avals]


def _eval_scan(invals: list[Any], params: dict[str, Any], state: _State) -> list[Any]:
    """A ``scan`` whose body checks: the error leaves become extra carries."""
    body: ClosedJaxpr = params["jaxpr"]
    nc, ncarry = params["num_consts"], params["num_carry"]
    consts, carry, xs = invals[:nc], invals[nc : nc + ncarry], invals[nc + ncarry :]
    body_avals = [raise_to_shaped(v.aval) for v in body.jaxpr.in_binders[len(body.consts) :]]

    def run(inner: _State, *args: object) -> list[Any]:
        return _eval_closed(body, args, inner)

    sites, sizes, leaf_avals = _loop_sites(run, body_avals, state)
    ne = len(leaf_avals)

    def new_body(*args: object) -> list[Any]:
        err_in = args[nc : nc + ne]
        inner = _State(state.enabled)
        outs = run(inner, *args[:nc], *args[nc + ne :])
        return [*_merge_iteration(err_in, inner, sites, sizes), *outs]

    new_avals = [*body_avals[:nc], *leaf_avals, *body_avals[nc:]]
    jaxpr, new_consts = trace_to_jaxpr(new_body, new_avals)
    operands = [*new_consts, *consts, *_initial_leaves(leaf_avals), *carry, *xs]
    results = bind(
        scan_p,
        *operands,
        **{
            **params,
            "jaxpr": ClosedJaxpr(jaxpr, []),
            "num_consts": len(new_consts) + nc,
            "num_carry": ne + ncarry,
            "linear": (False,) * len(operands),
        },
    )
    _add_loop_sites(state, sites, sizes, results[:ne])
    return results[ne:]


def _eval_while(invals: list[Any], params: dict[str, Any], state: _State) -> list[Any]:
    """A ``while_loop`` whose body checks: the error leaves become extra carries."""
    cond: ClosedJaxpr = params["cond_jaxpr"]
    body: ClosedJaxpr = params["body_jaxpr"]
    if _has_check(cond.jaxpr):
        raise NotImplementedError(
            "checkify: a check in a while_loop's condition is not supported yet"
        )
    cn, bn = params["cond_nconsts"], params["body_nconsts"]
    cconsts, bconsts, carry = invals[:cn], invals[cn : cn + bn], invals[cn + bn :]
    body_avals = [raise_to_shaped(v.aval) for v in body.jaxpr.in_binders[len(body.consts) :]]
    cond_avals = [raise_to_shaped(v.aval) for v in cond.jaxpr.in_binders[len(cond.consts) :]]

    def run(inner: _State, *args: object) -> list[Any]:
        return _eval_closed(body, args, inner)

    sites, sizes, leaf_avals = _loop_sites(run, body_avals, state)
    ne = len(leaf_avals)

    def new_cond(*args: object) -> list[Any]:
        return _eval_closed(cond, [*args[:cn], *args[cn + ne :]], _State(frozenset()))

    def new_body(*args: object) -> list[Any]:
        err_in = args[bn : bn + ne]
        inner = _State(state.enabled)
        outs = run(inner, *args[:bn], *args[bn + ne :])
        return [*_merge_iteration(err_in, inner, sites, sizes), *outs]

    cond_jaxpr, cond_consts = trace_to_jaxpr(
        new_cond, [*cond_avals[:cn], *leaf_avals, *cond_avals[cn:]]
    )
    body_jaxpr, body_consts = trace_to_jaxpr(
        new_body, [*body_avals[:bn], *leaf_avals, *body_avals[bn:]]
    )
    results = bind(
        while_p,
        *cond_consts,
        *cconsts,
        *body_consts,
        *bconsts,
        *_initial_leaves(leaf_avals),
        *carry,
        **{
            **params,
            "cond_jaxpr": ClosedJaxpr(cond_jaxpr, []),
            "body_jaxpr": ClosedJaxpr(body_jaxpr, []),
            "cond_nconsts": len(cond_consts) + cn,
            "body_nconsts": len(body_consts) + bn,
        },
    )
    _add_loop_sites(state, sites, sizes, results[:ne])
    return results[ne:]


def _record_check(state: _State, invals: list[Any], params: dict[str, Any]) -> None:
    site = _site_of(params)
    if site.category not in state.enabled:
        return
    pred, *payload = invals
    state.add(site, mnp.logical_not(pred), payload)


def _is_inexact(x: object) -> bool:
    return np.dtype(get_aval(x).dtype).kind in "fc"


def _automatic_checks(
    state: _State, prim: Primitive, invals: list[Any], outs: list[Any], params: dict[str, Any]
) -> None:
    if DivisionByZeroError in state.enabled and prim is div_p:
        state.add(_Site(DivisionByZeroError), mnp.any(mnp.equal(invals[1], 0)))
    if NaNError in state.enabled and prim.name in _NAN_PRIMITIVES:
        float_outs = [o for o in outs if _is_inexact(o)]
        if float_outs:
            nan_out = _any_of([mnp.any(mnp.isnan(o)) for o in float_outs])
            state.add(_Site(NaNError, primitive=prim.name), nan_out)
    if OOBError in state.enabled and prim in _OOB_CHECKS:
        _OOB_CHECKS[prim](state, invals, params)


# The primitives JAX's nan_checks watch (those that can generate a NaN), by name; a NaN in
# one of their outputs is reported, as JAX does, whether or not an input already had one.
_NAN_PRIMITIVES = frozenset(
    [
        "acos",
        "acosh",
        "add",
        "asin",
        "asinh",
        "atan2",
        "atan",
        "atanh",
        "bessel_i0e",
        "bessel_i1e",
        "cbrt",
        "conv_general_dilated",
        "cos",
        "cosh",
        "cumlogsumexp",
        "cummax",
        "cummin",
        "cumprod",
        "cumsum",
        "digamma",
        "div",
        "dot_general",
        "erf_inv",
        "erf",
        "erfc",
        "exp",
        "expm1",
        "fft",
        "igamma_grad_a",
        "igamma",
        "igammac",
        "integer_pow",
        "lgamma",
        "linear_solve",
        "log1p",
        "log",
        "logistic",
        "mul",
        "pad",
        "pow",
        "psum",
        "reduce",
        "reduce_prod",
        "reduce_sum",
        "reduce_window",
        "reduce_window_sum",
        "regularized_incomplete_beta",
        "rem",
        "rng_uniform",
        "rsqrt",
        "sin",
        "sinh",
        "sqrt",
        "sub",
        "tan",
        "tanh",
    ]
)


def _any_of(flags: list[Any]) -> Any:
    return functools.reduce(mnp.logical_or, flags)


def _index_oob(
    state: _State,
    shape: tuple[int, ...],
    indices: Any,
    axes: Sequence[int],
    window: Sequence[int],
) -> None:
    """Record an out-of-bounds check: the rows of ``indices`` (``(n, len(axes))``) start
    windows of sizes ``window`` along operand ``axes``; each start must lie in
    ``[0, shape[axis] - window]``. The payload is the first bad start and its axis."""
    if not axes:
        return
    upper = np.array([shape[a] - w for a, w in zip(axes, window, strict=True)])
    bad = mnp.logical_or(mnp.less(indices, 0), mnp.greater(indices, upper))
    flat_bad = mnp.reshape(bad, (-1,))
    if flat_bad.shape[0] == 0:
        return
    pos = mnp.argmax(flat_bad)
    value = mnp.reshape(indices, (-1,))[pos]
    axis = mnp.asarray(np.array(axes, np.int32))[pos % len(axes)]
    state.add(_Site(OOBError, operand_shape=shape), mnp.any(bad), [value, axis])


def _shape(x: object) -> tuple[int, ...]:
    return tuple(get_aval(x).shape)


def _gather_oob(state: _State, invals: list[Any], params: dict[str, Any]) -> None:
    operand, indices = invals
    axes = tuple(params["dimension_numbers"].start_index_map)
    window = [params["slice_sizes"][a] for a in axes]
    rows = mnp.reshape(indices, (-1, len(axes))) if axes else indices
    _index_oob(state, _shape(operand), rows, axes, window)


def _scatter_oob(state: _State, invals: list[Any], params: dict[str, Any]) -> None:
    operand, indices, updates = invals
    dnums = params["dimension_numbers"]
    shape, update_shape = _shape(operand), _shape(updates)
    sizes: list[int] = []
    pos = 0
    for i in range(len(shape)):  # the window each index starts (JAX's scatter_oob)
        if i in dnums.inserted_window_dims or i in getattr(dnums, "operand_batching_dims", ()):
            sizes.append(1)
        else:
            sizes.append(update_shape[dnums.update_window_dims[pos]])
            pos += 1
    axes = tuple(dnums.scatter_dims_to_operand_dims)
    rows = mnp.reshape(indices, (-1, len(axes))) if axes else indices
    _index_oob(state, shape, rows, axes, [sizes[a] for a in axes])


def _dynamic_slice_oob(state: _State, invals: list[Any], params: dict[str, Any]) -> None:
    operand, *starts = invals
    shape = _shape(operand)
    rows = mnp.reshape(mnp.stack([mnp.asarray(s) for s in starts]), (1, -1))
    _index_oob(state, shape, rows, range(len(shape)), params["slice_sizes"])


def _dynamic_update_slice_oob(state: _State, invals: list[Any], params: dict[str, Any]) -> None:
    operand, update, *starts = invals
    shape = _shape(operand)
    rows = mnp.reshape(mnp.stack([mnp.asarray(s) for s in starts]), (1, -1))
    _index_oob(state, shape, rows, range(len(shape)), _shape(update))


_OOB_CHECKS: dict[Primitive, Callable[[_State, list[Any], dict[str, Any]], None]] = {
    gather_p: _gather_oob,
    dynamic_slice_p: _dynamic_slice_oob,
    dynamic_update_slice_p: _dynamic_update_slice_oob,
    **dict.fromkeys(
        (scatter_p, scatter_add_p, scatter_mul_p, scatter_min_p, scatter_max_p), _scatter_oob
    ),
}


def checkify(
    f: Callable[..., Any], errors: frozenset[ErrorCategory] = user_checks
) -> Callable[..., tuple[Error, Any]]:
    """``f`` functionalized: ``checkify(f)(*args) -> (err, out)``, with ``err`` the first
    failed check of the categories in ``errors`` (an :class:`Error`; ``err.get()`` is ``None``
    when none failed) and ``out`` what ``f`` returns."""
    enabled = frozenset(errors)
    unknown = [e for e in enabled if not (isinstance(e, type) and issubclass(e, JaxException))]
    if unknown:
        raise TypeError(f"checkify: errors must be error categories, got {unknown}")

    @functools.wraps(f)
    def checked(*args: object, **kwargs: object) -> tuple[Error, Any]:
        leaves, in_tree = tree_flatten((args, kwargs))
        out_tree: list[PyTreeDef] = []

        def flat_f(*xs: object) -> list[Any]:
            call_args, call_kwargs = tree_unflatten(in_tree, xs)
            out_leaves, tree = tree_flatten(f(*call_args, **call_kwargs))
            out_tree.append(tree)
            return out_leaves

        avals = [raise_to_shaped(get_aval(x)) for x in leaves]
        jaxpr, consts = trace_to_jaxpr(flat_f, avals)
        state = _State(enabled)
        outs = _eval(jaxpr, [*consts, *leaves], state)
        return state.error(), tree_unflatten(out_tree[0], outs)

    return checked
