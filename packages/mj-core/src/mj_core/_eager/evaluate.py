r"""``eval_primitive``: apply a primitive's impl rule to concrete operands now.

The one eager path: :func:`~mj_core._trace.bind` calls it when no transformation is active on
this thread (and the eval trace for constants under one), the elementwise wrappers
(:mod:`mj_core._eager.wrappers`) when their ufunc shortcut does not apply. Eager operations
emit no NumPy floating-point warnings (``log(0)``, ``0 / 0``), as JAX emits none: a warnings
filter ignores the ``RuntimeWarning``\ s raised from mj's own modules (free until a warning
happens; the user's NumPy calls keep theirs), and where the user turned warnings or
floating-point errors into exceptions, the computation runs again under
``np.errstate(all="ignore")`` (:func:`compute_failed`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core._avals import get_aval
from mj_core._config import config
from mj_core._eager.results import weak_outputs
from mj_core._eager_array import (
    _WIDE_SCALARS,
    EagerArray,
    WeakEagerArray,
    canonical_operand,
    canonical_operands,
    eager_result,
    eager_results,
)
from mj_core._eager_dispatch import eager_handlers
from mj_core._eager_nans import check_special
from mj_core._primitive import Primitive, impl_rules
from mj_core.dtypes import _NARROW
from mj_core.errors import MJError, ShapeDtypeError, user_line_suffix

__all__ = ["compute_failed", "eval_primitive", "impl_error"]

_ndarray = np.ndarray
_view = np.ndarray.view
# positional (its stub says keyword-only): a keyword argument costs each eager op ~100 ns
_setflags: Callable[[np.ndarray[Any, Any], bool], None] = np.ndarray.setflags  # type: ignore[assignment]
_numpy_rules = impl_rules.numpy_rules

#: NumPy attributes a ufunc's warning to the Python frame calling it: one of mj's modules here.
#: (A ``warnings.catch_warnings()`` block active at mj's first import drops it on exit.)
warnings.filterwarnings(
    "ignore", category=RuntimeWarning, module=r"mj(_core|_ir|_autodiff|_batch|_control|_xla)?(\.|$)"
)


def impl_error(primitive: Primitive, args: Sequence[Any], err: Exception) -> ShapeDtypeError:
    """The error of an impl rule (or ufunc shortcut) that refused ``args`` with ``err``."""
    try:
        shapes = ", ".join(get_aval(a).str_short() for a in args)
    except TypeError:
        shapes = ", ".join(type(a).__name__ for a in args)
    where = user_line_suffix()
    return ShapeDtypeError(f"{primitive.name}: invalid operands ({shapes}){where}: {err}")


def compute_failed(
    primitive: Primitive, compute: Callable[..., Any], args: Sequence[Any], err: Exception
) -> Any:
    """What ``compute(*args)`` (``primitive``'s impl rule or ufunc) raising ``err`` means: a
    ``ShapeDtypeError`` naming the primitive and the operands for a ``ValueError`` or
    ``TypeError``; for a floating-point warning the user made an error (JAX raises none), the
    value computed again with NumPy's floating-point errors ignored; anything else as it is."""
    if isinstance(err, MJError):
        raise err
    if isinstance(err, ValueError | TypeError):
        raise impl_error(primitive, args, err) from err
    if isinstance(err, RuntimeWarning | FloatingPointError):
        with np.errstate(all="ignore"):
            return compute(*args)
    raise err


def eval_primitive(
    primitive: Primitive,
    args: Sequence[Any],
    params: dict[str, Any],
    rule: Callable[..., list[Any]] | None = None,
) -> list[Any]:
    """Apply ``primitive``'s impl rule to concrete ``args`` now, whatever traces are active.

    Outputs are viewed as :class:`~mj_core._eager_array.EagerArray`
    (:func:`~mj_core._eager.results.as_eager`'s common case inlined); an invalid operand raises
    a ``ShapeDtypeError`` naming the primitive, the operands and the user's line. An operand
    whose type computes primitives itself (mj-xla's sharded arrays) is offered the whole
    operation first (:data:`~mj_core._eager_dispatch.eager_handlers`). Host
    operands enter canonicalized (:func:`~mj_core._eager_array.canonical_operands`), as under
    ``jit``. mj-core's own rules (``impl_rules.numpy_rules``) take an ``EagerArray`` operand
    as a plain NumPy view of its read-only data: NumPy's functions take it at NumPy's speed,
    not through ``EagerArray.__array_function__``, and its views stay read-only."""
    if eager_handlers:
        for a in args:
            if type(a) in eager_handlers:
                handled = eager_handlers[type(a)](primitive, args, params)
                if handled is not NotImplemented:  # (declined: the impl rule evaluates it)
                    return handled
                break
    if rule is None:  # (given: Primitive.impl read before a def_impl)
        rule = impl_rules[primitive]
    operands: Sequence[Any]
    if primitive in _numpy_rules:  # NumPy's functions at NumPy's speed: plain views
        # one loop for both, no call per operand (a comprehension's frame costs ~90 ns more,
        # an append ~20 ns): only operands that change are stored
        plain: list[Any] = [*args]
        i = 0
        for a in args:
            t = type(a)
            if t is EagerArray:
                # the plain array it views, read-only (its NumPy base, see as_eager), or a new
                # plain view (~200 ns) of one NumPy made (x.T, whose base is an EagerArray)
                b = a._data
                plain[i] = b if type(b) is _ndarray else _view(a, _ndarray)
            elif (t is _ndarray or t in _WIDE_SCALARS) and a.dtype in _NARROW:
                args = canonical_operands(args)  # (rare: 64-bit host data, x64 off)
                plain[i] = canonical_operand(a)
            i += 1  # noqa: SIM113 (enumerate: a call per operation)
        operands = plain
    else:
        operands = args = canonical_operands(args)
    try:
        outs = rule(*operands, **params)
    except Exception as err:
        outs = compute_failed(primitive, lambda *a: rule(*a, **params), operands, err)
    if config.debug_nans or config.debug_infs:
        check_special(primitive, outs)
    weak = False  # weak operands and no strong ones but bools (rare): JAX's weak outputs
    for a in args:
        t = type(a)
        if t is EagerArray or t is _ndarray:  # the common case: a strong array
            if a.dtype.kind != "b":  # (a bool one may select between weak values)
                break
        elif t in _WEAK_OPERANDS:
            weak = True
        elif t is not bool and t is not np.bool_:  # (a NumPy bool: a constant selector)
            break
    else:
        if weak:
            return weak_outputs(primitive, args, params, outs)
    if params and params.get("weak_type") is True:  # convert_element_type to a weak type
        return weak_outputs(primitive, args, params, outs)
    # (a view of an operand is found among what the rule was given: the plain arrays)
    if len(outs) == 1:
        out = outs[0]
        if type(out) is _ndarray and out.base is None and out.itemsize < 8:
            for a in operands:  # as_eager's common case, inlined: a new array (not an
                if a is out:  # operand returned as it is)
                    break
            else:
                _setflags(out, False)  # read-only, as its EagerArray view
                return [_view(out, EagerArray)]
        if type(out) is WeakEagerArray:  # a call primitive's jaxpr computed a weak value
            return weak_outputs(primitive, args, params, outs)
        # a NumPy scalar (a full reduction's), a view (reshape), a 64-bit dtype to narrow, ...
        return [eager_result(out, operands)]
    if any(type(o) is WeakEagerArray for o in outs):
        return weak_outputs(primitive, args, params, outs)
    return eager_results(outs, operands)


#: The types of weakly typed eager operands: Python scalars (not bools) and weak arrays.
_WEAK_OPERANDS = frozenset({int, float, complex, WeakEagerArray})
