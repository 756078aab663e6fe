"""``binds``: the wrappers of the elementwise primitives, with their NumPy ufunc shortcut.

Eager NumPy-style code runs these operations most, so a wrapper (``lax.sin``, ``mnp.add``)
first tries the primitive's ufunc shortcut (``impl_rules.shortcut(primitive)``: the impl
rule's computation returning the output itself) and makes the result an
:class:`~mj_core._eager_array.EagerArray` (:func:`~mj_core._eager.results.as_eager`), in one
Python call. Whether the shortcut applies is decided from the operands' types before anything
is computed, and only where the impl rule would apply the ufunc to the same operands and
:func:`~mj_core._eager.evaluate.eval_primitive` would return its output as it is:

* an mj array of plain data (given to the ufunc as its NumPy data, see below), a host NumPy
  array or NumPy scalar (canonicalized first: float64 becomes float32 without x64), or a
  Python scalar, outside any transformation;
* one operand: a dtype the primitive's typing rule accepts (``sin``: float or complex, as
  JAX's);
* two operands: arrays of one dtype, or an array and a Python scalar of a kind that fits into
  it (JAX's weak typing, NEP 50's too; an int in range) and that the primitive accepts, float or
  complex for a float-valued primitive.

Everything else (tracing, mixed dtypes, weak arrays, array types with an eager handler, a
primitive whose shortcut was cleared because another impl rule was registered or a check is on,
a dtype the primitive refuses) takes the general path: ``bind1`` or, given ``numpy`` (the
NumPy-level wrappers: ``mnp.add``, ``mnp.sin``), ``numpy(x, y)`` / ``numpy(x)``, which promotes
on JAX's lattice before binding (``mnp.sin`` of an integer converts it to JAX's float first):
lax never promotes. A NumPy-level wrapper also leaves two arrays of different non-scalar ranks
to ``numpy`` while ``numpy_rank_promotion`` is not ``"allow"``: the rank check is the
NumPy-level function's (JAX's ``jax.numpy``), never the primitive's. A ufunc that raises is
reported as the impl rule's failure would be (:func:`~mj_core._eager.evaluate.compute_failed`),
never run again on the general path.

The NumPy data of an EagerArray operand: an EagerArray made by ``as_eager`` views a plain
array of the same layout, its NumPy ``base`` (NumPy stops collapsing a view's base at a change
of type), read as ``x._data`` (``x.base`` is no attribute of an mj array, as of a jax.Array). A
ufunc given that array instead of the EagerArray skips NumPy's checks of a subclass operand
(``__array_ufunc__``, ``__array_wrap__``, ``__array_priority__``), ~140 ns per operand.
Views NumPy makes of an EagerArray (``x.T``) have an EagerArray base, and an EagerArray owning
its data none: those are passed as they are. Next to a float32 array a Python scalar is given
as a cached float32 array (:data:`~mj_core._eager.scalars.float32_scalars`): NumPy's own
conversion is slower.

The wrappers call ``bind1`` and read the trace state, which live in the layer above
(:mod:`mj_core._trace`): it passes them in (:func:`connect`) and exports ``binds``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np

from mj_core._config import config, on_change
from mj_core._eager.evaluate import compute_failed
from mj_core._eager.results import as_eager
from mj_core._eager.scalars import LAX_SCALAR_FITS as _LAX_SCALAR_FITS
from mj_core._eager.scalars import SCALAR_FITS as _SCALAR_FITS
from mj_core._eager.scalars import fits, float32_operand, float32_scalars
from mj_core._eager_array import EagerArray, canonical_operand
from mj_core._primitive import Primitive, UfuncShortcut, impl_rules

__all__ = ["EagerState", "TransformationCount", "binds", "connect", "operator_method"]

_Operation = TypeVar("_Operation", bound=Callable[..., Any])
_ndarray = np.ndarray
_generic = np.generic
_view = np.ndarray.view
# positional (its stub says keyword-only): a keyword argument costs each eager op ~100 ns
_setflags: Callable[[np.ndarray[Any, Any], bool], None] = np.ndarray.setflags  # type: ignore[assignment]
_float32 = np.dtype(np.float32)  # the common eager dtype: its outputs are float32 or bool
_float32_scalar = float32_scalars.get  # (an imported dict's method: no LOAD_METHOD in 3.11)

# A shortcut's output is a new array (never an operand's memory: no copy to make), or a NumPy
# scalar for 0-d operands. The wrappers make an array of a 32-bit-or-narrower dtype an
# EagerArray themselves, as_eager's common case without its checks: its call would cost the
# cheapest eager op ~10%; as_eager does the rest (64-bit dtypes to narrow, scalars).


class EagerState(Protocol):
    """This thread's trace state: ``eager`` while no transformation is active on it."""

    eager: bool


class TransformationCount(Protocol):
    """The number of transformations active on any thread: while it is zero, the wrappers
    skip even the thread-local read."""

    count: int


# ``numpy_rank_promotion`` is not "allow": the NumPy-level wrappers' shortcut then takes only
# operands of one rank (or a scalar), the rest go to their ``numpy`` function, which checks.
# A module global, kept by a listener: the common case pays one global read, not a config read.
_ranks_checked = False


def _update_rank_check(mode: str) -> None:
    global _ranks_checked
    _ranks_checked = mode != "allow"


on_change("numpy_rank_promotion", _update_rank_check)
_update_rank_check(config.numpy_rank_promotion)


# The trace layer's ``bind1``, thread state and count of active transformations, given to
# connect. Module globals, not closure cells: a wrapper's cells are copied on every call.
_bind1: Callable[..., Any]
_state: EagerState
_active: TransformationCount


def connect(bind1: Callable[..., Any], state: EagerState, active: TransformationCount) -> None:
    """Give the wrappers the trace layer's ``bind1``, thread state and count of active
    transformations (:mod:`mj_core._trace` calls this once, at its import)."""
    global _bind1, _state, _active
    _bind1, _state, _active = bind1, state, active


def binds(
    primitive: Primitive, numpy: Callable[..., Any] | None = None
) -> Callable[[_Operation], _Operation]:
    """Decorator for the wrapper of an elementwise primitive of one or two operands and no
    params: the decorated function (its signature and docstring) becomes
    ``bind1(primitive, ...)``, or ``numpy(x)`` / ``numpy(x, y)`` where given, with the ufunc
    shortcut first (see :mod:`mj_core._eager.wrappers`)."""
    shortcut = impl_rules.shortcut(primitive)

    def decorate(signature: _Operation) -> _Operation:
        nin = signature.__code__.co_argcount
        op: Callable[..., Any]
        if nin == 1:
            op = _unary(shortcut, numpy)
        elif nin == 2:
            op = _binary(shortcut, numpy)
            if numpy is not None:
                _numpy_level[op] = (shortcut, numpy)
        else:
            raise TypeError(f"binds({primitive.name}): one or two operands, got {nin}")
        return functools.update_wrapper(op, signature)  # type: ignore[return-value]

    return decorate


#: The NumPy-level binary wrappers (``mnp.add``) with their shortcut and ``numpy`` function.
_numpy_level: dict[Callable[..., Any], tuple[UfuncShortcut, Callable[[Any, Any], Any]]] = {}


def operator_method(
    function: Callable[..., Any] | None, method: Callable[[Any, Any], Any]
) -> Callable[[Any, Any], Any]:
    """``EagerArray``'s operator ``method`` (``__add__``: ``function(self, other)`` for an
    array or scalar ``other``, else ``NotImplemented`` or a ``TypeError``) with the shortcut of
    the NumPy-level wrapper ``function`` (``mnp.add``) first, in the same Python call: the
    shortcut takes only operands ``method`` hands to ``function``, and gives what it gives;
    everything else is ``method``'s. ``method`` itself when ``function`` is not such a
    wrapper."""
    entry = _numpy_level.get(function) if function is not None else None
    if entry is None:
        return method
    shortcut, numpy = entry
    return functools.update_wrapper(_binary(shortcut, numpy, method), method)


# The wrappers are written for speed: few closure cells (each is copied on every call), the
# common case (an EagerArray of plain data, outside tracing) tested first, one Python frame
# until the ufunc (``*args`` would cost every eager op a tuple).


def _accepted_float32(shortcut: UfuncShortcut) -> np.dtype[Any] | None:
    """``float32`` where the shortcut computes float32 operands (its primitive's typing rule
    accepts them), else ``None``: what a wrapper compares an operand's dtype with for its
    commonest case, the check costing no more than the comparison."""
    return _float32 if shortcut.computes_dtype(_float32) else None


def _unary(
    shortcut: UfuncShortcut, numpy: Callable[[Any], Any] | None = None
) -> Callable[[Any], Any]:
    f32 = _accepted_float32(shortcut)
    computes = shortcut.computes  # the dtypes the typing rule accepts and the ufunc computes
    # what computes everything the shortcut does not take: the NumPy-level function
    # (``mnp.sin`` converts an integer to JAX's float first), else the primitive
    general = numpy or functools.partial(_bind1, shortcut.primitive)

    def op(x: Any) -> Any:
        if not _active.count or _state.eager:
            ufunc = shortcut.ufunc
            if ufunc is not None:
                if type(x) is EagerArray:
                    a = x._data
                    # the commonest case in the fewest steps: float32 data, a float32 output
                    if type(a) is _ndarray and a.dtype is f32:
                        try:
                            out = ufunc(a)
                        except Exception as err:
                            out = compute_failed(shortcut.primitive, ufunc, (a,), err)
                        if type(out) is _ndarray:
                            _setflags(out, False)
                            return _view(out, EagerArray)
                        return as_eager(out, (a,))
                    if type(a) is not _ndarray:
                        a = x
                elif type(x) is _ndarray:
                    a = canonical_operand(x)  # float64 host data: float32 first
                else:
                    return general(x)
                dt = a.dtype
                # a dtype the typing rule refuses (abs of uint8, sin of int32) is the general
                # path's, to convert (``mnp.sin``) or refuse; complex operands of a primitive
                # with XLA's complex kernels too (shortcut.inexact_kinds is then "f")
                if dt is f32 or dt in computes or shortcut.computes_dtype(dt):
                    try:
                        out = ufunc(a)
                    except Exception as err:
                        out = compute_failed(shortcut.primitive, ufunc, (a,), err)
                    if type(out) is _ndarray and (dt is f32 or out.itemsize < 8):
                        _setflags(out, False)  # as_eager's common case (see above)
                        return _view(out, EagerArray)  # (read-only as its base)
                    return as_eager(out, (a,))
        return general(x)

    return op


def _binary(
    shortcut: UfuncShortcut,
    numpy: Callable[[Any, Any], Any] | None,
    fallback: Callable[[Any, Any], Any] | None = None,
) -> Callable[[Any, Any], Any]:
    # what computes everything the shortcut does not take (an operator method's own body)
    general = fallback or numpy or functools.partial(_bind1, shortcut.primitive)
    # A Python bool next to a number: promoted by the NumPy-level functions, refused by lax's
    scalar_fits = _SCALAR_FITS if numpy is not None else _LAX_SCALAR_FITS
    # Whether it takes a float32 array and a Python scalar (not bitwise_and: its typing rule
    # refuses floats, and so does its impl rule for a scalar operand). The kinds are fixed when
    # the primitive is defined, before its wrapper.
    floats = "f" in shortcut.kinds
    checks_ranks = numpy is not None  # (lax's wrappers broadcast without a check)
    f32 = _accepted_float32(shortcut)
    computes = shortcut.computes  # the dtypes the typing rule accepts and the ufunc computes

    def op(x: Any, y: Any) -> Any:
        if not _active.count or _state.eager:
            ufunc = shortcut.ufunc
            if ufunc is None:
                return general(x, y)
            dx: Any  # np.dtype, None for a Python scalar
            c: Any = None
            # The common cases first, in as few steps as they take (each attribute read of an
            # array costs ~15 ns): an EagerArray of plain data and another of its dtype and
            # rank, or a float32 one and a cached Python float. Anything else (c still None)
            # is classified below.
            if type(x) is EagerArray:
                a = x._data
                if type(a) is _ndarray:
                    dx = a.dtype
                    t = type(y)
                    if t is EagerArray:
                        c = y._data
                        if (
                            type(c) is not _ndarray
                            or c.dtype is not dx
                            or (_ranks_checked and checks_ranks and a.ndim != c.ndim)
                        ):
                            c = None
                    elif t is float and dx is _float32 and floats:
                        c = _float32_scalar(y)
            if c is None:
                if type(x) is EagerArray:
                    a = x._data
                    if type(a) is not _ndarray:
                        a = x
                    dx = a.dtype
                elif type(x) is float or type(x) in _SCALAR_FITS:
                    a = x
                    dx = None
                elif type(x) is _ndarray or isinstance(x, _generic):
                    a = canonical_operand(x)  # float64 host data: float32 first
                    dx = a.dtype
                else:
                    return general(x, y)
                t = type(y)
                dy: Any
                if t is EagerArray:
                    c = y._data
                    if type(c) is not _ndarray:
                        c = y
                    dy = c.dtype
                elif t is float or t in _SCALAR_FITS:
                    c = y
                    dy = None
                elif t is _ndarray or isinstance(y, _generic):
                    c = canonical_operand(y)
                    dy = c.dtype
                else:
                    return general(x, y)
                if dx is dy:  # two arrays of one dtype
                    if dx is None:  # two Python scalars: a weak result
                        return general(x, y)
                    if _ranks_checked and checks_ranks and a.ndim != c.ndim and a.ndim and c.ndim:
                        return general(x, y)  # rank promotion: the NumPy-level check
                elif dy is None:  # an array and a Python scalar, of a kind that fits it
                    if dx is _float32 and floats and (t is float or t is int):
                        c = _float32_scalar(y)
                        if c is None:
                            c = float32_operand(y)
                    elif (
                        dx.kind not in scalar_fits[t]
                        or dx.kind not in shortcut.kinds
                        or (t is int and not fits(dx, y))
                    ):
                        return general(x, y)
                elif dx is None:
                    t = type(x)
                    if dy is _float32 and floats and (t is float or t is int):
                        a = _float32_scalar(x)
                        if a is None:
                            a = float32_operand(x)
                    elif (
                        dy.kind not in scalar_fits[t]
                        or dy.kind not in shortcut.kinds
                        or (t is int and not fits(dy, x))
                    ):
                        return general(x, y)
                    dx = dy  # (the dtype computed in)
                else:  # mixed dtypes: promoted by the general path
                    return general(x, y)
            # (operands of a dtype the typing rule refuses: the impl rule's to refuse)
            if dx is f32 or dx in computes or shortcut.computes_dtype(dx):
                try:
                    out = ufunc(a, c)
                except Exception as err:
                    out = compute_failed(shortcut.primitive, ufunc, (a, c), err)
                if type(out) is _ndarray and (dx is f32 or out.itemsize < 8):
                    _setflags(out, False)  # as_eager's common case (see above)
                    return _view(out, EagerArray)  # (read-only as its base)
                if shortcut.keeps_dtype and getattr(out, "dtype", dx) != dx:
                    # NumPy widened it (complex64 ** int is complex128): the typing rule's
                    # dtype is the general path's
                    return general(x, y)
                return as_eager(out, (a, c))
        return general(x, y)

    return op
