"""``custom_jvp`` and ``custom_vjp``: user-defined derivative rules for Python functions.

Applying a custom function dispatches on the top trace of its (flattened) arguments:

* no transformation (the eval trace): the function is simply called;
* a trace with a ``process_custom_jvp_call(fun, jvp, tracers)`` /
  ``process_custom_vjp_call(fun, fwd, bwd, tracers)`` method (the JVP trace here; vmap may add
  its own): that method decides. ``fun(*vals)`` re-applies the custom function to values of
  lower traces; ``jvp(primals, tangents) -> (primals_out, tangents_out)``,
  ``fwd(*primals) -> (outs, residuals)`` and ``bwd(residuals, cts) -> cts_in`` are flat;
* any other trace (jit's and make_jaxpr's jaxpr trace, vmap without the hook): the function is
  traced to a jaxpr and bound as the primitive ``custom_jvp_call`` / ``custom_vjp_call``
  (operands ``*consts, *args``; params ``call_jaxpr`` (a ``ClosedJaxpr`` without constants),
  ``num_consts``, and ``jvp_jaxpr_thunk`` or ``fwd_jaxpr_thunk`` + ``bwd``), so the rule
  survives staging: differentiating the staged program later uses the custom rule.

Under differentiation a ``custom_vjp`` function runs ``fwd`` and emits ``custom_lin``, a
primitive linear in the tangents whose transpose calls ``bwd``; evaluating it in forward
mode is an error, as in JAX.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_autodiff._custom_lin import bind_custom_lin, custom_lin_p
from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import (
    Zero,
    add_tangents,
    float0,
    instantiate_zeros,
    shape_dtype,
    tangent_aval,
    tangent_aval_of,
    tangents_with_zeros,
    zeros_like_aval,
)
from mj_autodiff._transpose import UndefPrimal, backward_pass, transpose_rules
from mj_core import (
    EvalTrace,
    Primitive,
    ShapedArray,
    Tracer,
    bind,
    find_top_trace,
    full_raise,
    get_aval,
    impl_rules,
    raise_to_shaped,
)
from mj_core.dtypes import default_dtype_for_pytype, is_inexact
from mj_core.errors import user_location
from mj_core.extend import (
    EagerArray,
    WrappedFun,
    array_views,
    eager_result,
    weak_result,
    wrap_init,
)
from mj_core.tree_util import PyTreeDef, tree_flatten, tree_map, tree_unflatten
from mj_ir import ClosedJaxpr, abstract_eval_rules, eval_jaxpr
from mj_ir.extend import trace_to_jaxpr

__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "custom_jvp",
    "custom_jvp_call_p",
    "custom_lin_p",
    "custom_vjp",
    "custom_vjp_call_p",
    "custom_vjp_primal_tree_values",
    "zero_from_primal",
]


class _CustomJVPCallPrimitive(Primitive):
    """``custom_jvp_call`` with JAX's re-binding protocol: ``get_bind_params`` of an equation's
    params gives JAX's ``subfuns=(fun, jvp)`` (``WrappedFun`` objects: ``fun`` evaluates the
    call's jaxpr on the operands, ``jvp(*primals, *tangents)`` the custom rule, as JAX's
    ``lift_jvp``), and ``bind(*operands, subfuns=(fun, jvp))`` applies them: the equation's own
    params again for a pair ``get_bind_params`` made, any other pair as a custom_jvp function
    of ``fun`` with the rule ``jvp``."""

    __slots__ = ()

    def get_bind_params(self, params: dict[str, Any]) -> dict[str, Any]:
        new_params = dict(params)
        call_jaxpr: ClosedJaxpr = new_params.pop("call_jaxpr")
        num_consts: int = new_params.pop("num_consts")
        thunk: Thunk = new_params.pop("jvp_jaxpr_thunk")
        fun = _EquationFun(functools.partial(_eval_call, call_jaxpr), {}, None)
        fun.bind_params = dict(params)
        jvp = wrap_init(functools.partial(_lifted_jvp, call_jaxpr, num_consts, thunk))
        new_params["subfuns"] = (fun, jvp)
        return new_params

    def bind(self, *args: object, **params: object) -> Any:
        if "subfuns" not in params:
            return super().bind(*args, **params)
        subfuns: Sequence[Any] = params.pop("subfuns")  # type: ignore[assignment]
        fun, jvp = subfuns
        if isinstance(fun, _EquationFun):
            return super().bind(*args, **fun.bind_params)
        return _custom_jvp_of_subfuns(fun, jvp, list(args))


class _EquationFun(WrappedFun):
    """The ``fun`` of an equation's subfuns, which knows the equation's params."""

    bind_params: dict[str, Any]


def _eval_call(call_jaxpr: ClosedJaxpr, *args: Any) -> list[Any]:
    return eval_jaxpr(call_jaxpr, args)


def _lifted_jvp(call_jaxpr: ClosedJaxpr, num_consts: int, thunk: Thunk, *xs: Any) -> list[Any]:
    """JAX's ``lift_jvp``: ``(*primals, *tangents)`` of every operand (constants first) to
    ``[*primals_out, *tangents_out]``, a zero output tangent as a :class:`SymbolicZero`."""
    n = len(xs) // 2
    primals, tangents = xs[num_consts:n], xs[n + num_consts :]
    jvp_closed, out_nonzero = thunk()
    arg_avals = call_jaxpr.in_avals[num_consts:]
    nz_tangents = [
        zeros_like_aval(t.aval) if type(t) is SymbolicZero else t
        for t, a in zip(tangents, arg_avals, strict=True)
        if is_inexact(a.dtype)
    ]
    outs = eval_jaxpr(jvp_closed, [*primals, *nz_tangents])
    primals_out, it = outs[: len(out_nonzero)], iter(outs[len(out_nonzero) :])
    tangents_out = [
        next(it) if nz else SymbolicZero(tangent_aval_of(p))
        for p, nz in zip(primals_out, out_nonzero, strict=True)
    ]
    return [*primals_out, *tangents_out]


def _custom_jvp_of_subfuns(fun: Any, jvp: Any, vals: list[Any]) -> list[Any]:
    """Apply JAX-style subfuns ``fun`` / ``jvp`` (``call_wrapped`` objects) to ``vals`` as a
    custom_jvp function: ``jvp(*primals, *tangents)`` returns outputs then tangents."""

    def flat_fun(*xs: Any) -> list[Any]:
        return list(fun.call_wrapped(*xs))

    def flat_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        tangents = [instantiate_zeros(t) if type(t) is Zero else t for t in tangents]
        outs = list(jvp.call_wrapped(*primals, *tangents))
        n = len(outs) // 2
        return outs[:n], [Zero(t.aval) if type(t) is SymbolicZero else t for t in outs[n:]]

    name = str(getattr(fun, "__name__", "custom_jvp function"))
    return _dispatch_custom_jvp(flat_fun, flat_jvp, vals, name)


custom_jvp_call_p = _CustomJVPCallPrimitive("custom_jvp_call", multiple_results=True)
custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)


# --- symbolic zeros as custom rules see them ---------------------------------------------------


class SymbolicZero:
    """A zero tangent (or cotangent) a custom rule registered with ``symbolic_zeros=True`` sees
    in place of an array, for an input that is not differentiated (JAX's
    ``jax.custom_derivatives.SymbolicZero``). Its ``aval`` (and the aval's ``shape``,
    ``dtype``, ``ndim``, ...) describes the zero; a rule may also return one for an output
    tangent that is zero."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __getattr__(self, name: str) -> Any:
        if name == "aval":  # not set yet (e.g. while unpickling)
            raise AttributeError(name)
        return getattr(self.aval, name)

    @staticmethod
    def from_primal_value(val: Any) -> SymbolicZero:
        """The symbolic zero tangent of the primal value ``val``."""
        return SymbolicZero(tangent_aval_of(val))

    def __repr__(self) -> str:
        return "SymbolicZero"


def zero_from_primal(val: Any, symbolic_zeros: bool = False) -> Any:
    """The zero tangent of each leaf of ``val``: :class:`SymbolicZero` objects, or arrays."""

    def zero(x: Any) -> Any:
        aval = tangent_aval_of(x)
        return SymbolicZero(aval) if symbolic_zeros else zeros_like_aval(aval)

    return tree_map(zero, val)


class CustomVJPPrimal:
    """What a ``custom_vjp`` forward rule registered with ``symbolic_zeros=True`` receives
    for each argument leaf: its ``value`` and whether it is ``perturbed`` (differentiated)."""

    __slots__ = ("perturbed", "value")

    def __init__(self, value: Any, perturbed: bool) -> None:
        self.value = value
        self.perturbed = perturbed

    def __repr__(self) -> str:
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


def custom_vjp_primal_tree_values(tree: Any) -> Any:
    """``tree`` with each :class:`CustomVJPPrimal` leaf replaced by its value."""

    def value(leaf: Any) -> Any:
        if type(leaf) is not CustomVJPPrimal:
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value

    return tree_map(value, tree)


def _lift_from_views(tree: Any) -> Any:
    """``tree`` (rebuilt around :class:`CustomVJPPrimal` / :class:`SymbolicZero` leaves) with
    each array view (a typed key array: in mj a pytree node over its data) whose data is one
    of them made one itself, around the view: JAX's keys are leaves, so a rule sees
    ``CustomVJPPrimal(key, perturbed)`` and a key's zero tangent as a ``SymbolicZero`` of
    the key's shape and dtype ``float0``."""

    def lift(x: Any) -> Any:
        view = array_views.get(type(x))
        if view is None:
            return x
        data = view.data(x)
        if type(data) is CustomVJPPrimal:
            return CustomVJPPrimal(view.wrap(x.dtype, data.value), data.perturbed)
        if type(data) is SymbolicZero:
            return SymbolicZero(ShapedArray(tuple(x.shape), float0))
        return x

    return tree_map(lift, tree, is_leaf=lambda x: type(x) in array_views)


# --- argument handling shared by both decorators ----------------------------------------------


def _resolve_args(
    fun: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, ...]:
    """Map keyword arguments and defaults to positions (via ``inspect.signature``)."""
    if not kwargs:
        return args
    bound = inspect.signature(fun).bind(*args, **kwargs)
    bound.apply_defaults()
    if bound.kwargs:
        raise TypeError(
            f"custom derivative function {fun.__name__}: keyword-only arguments are not "
            "supported; pass every argument positionally or by a positional parameter's name."
        )
    return tuple(bound.args)


def _split_nondiff(
    args: Sequence[Any], nondiff_argnums: tuple[int, ...]
) -> tuple[list[Any], list[Any]]:
    nondiff = [args[i] for i in nondiff_argnums]
    diff = [a for i, a in enumerate(args) if i not in nondiff_argnums]
    return nondiff, diff


def _merge_nondiff(
    nondiff: Sequence[Any], diff: Sequence[Any], nondiff_argnums: tuple[int, ...]
) -> list[Any]:
    n = len(nondiff) + len(diff)
    it_nd, it_d = iter(nondiff), iter(diff)
    return [next(it_nd) if i in nondiff_argnums else next(it_d) for i in range(n)]


def _flat_user_fun(
    fun: Callable[..., Any],
    nondiff: Sequence[Any],
    nondiff_argnums: tuple[int, ...],
    in_tree: PyTreeDef,
    out_tree_box: list[PyTreeDef],
) -> Callable[..., list[Any]]:
    """``fun`` on the flat leaves of its differentiable arguments (the ``nondiff`` ones merged
    back in place), recording its output tree in ``out_tree_box``."""

    def flat_fun(*vals: Any) -> list[Any]:
        full = _merge_nondiff(nondiff, tree_unflatten(in_tree, vals), nondiff_argnums)
        out_flat, out_tree = tree_flatten(fun(*full))
        out_tree_box[:] = [out_tree]
        return out_flat

    return flat_fun


def _trace_call(
    flat_fun: Callable[..., list[Any]], vals: Sequence[Any]
) -> tuple[list[ShapedArray], ClosedJaxpr, list[Any]]:
    """The input avals, const-free call jaxpr and consts of ``flat_fun`` on ``vals``: the
    custom-call primitives take the consts as leading operands."""
    in_avals = [raise_to_shaped(get_aval(v)) for v in vals]
    jaxpr, consts = trace_to_jaxpr(flat_fun, in_avals)
    return in_avals, ClosedJaxpr(jaxpr, []), consts


def _check_rule_outputs(
    name: str, primals_out: Sequence[Any], tangents_out: Sequence[Any]
) -> list[Any]:
    """Tangents from a user rule, validated against the primal outputs (``Zero`` for
    integer outputs and for ``None``)."""
    checked = []
    for i, (p, t) in enumerate(zip(primals_out, tangents_out, strict=True)):
        p_shape, p_dtype = shape_dtype(p)
        if t is None or type(t) is Zero or type(t) is SymbolicZero:
            checked.append(Zero(tangent_aval_of(p)))
            continue
        t_shape, t_dtype = shape_dtype(t)
        if not is_inexact(p_dtype):
            checked.append(Zero(tangent_aval_of(p)))
            continue
        if tuple(t_shape) != tuple(p_shape) or t_dtype != p_dtype:
            raise TypeError(
                f"Custom JVP rule of {name} must produce primal and tangent outputs with "
                f"corresponding shapes and dtypes, but output {i} has primal "
                f"{p_dtype.name}{list(p_shape)} and tangent {t_dtype.name}{list(t_shape)}."
            )
        checked.append(t)
    return checked


# --- custom_jvp -------------------------------------------------------------------------------


class Thunk:
    """A memoised, hashable callable used as a primitive param, memoised per (hashable)
    argument tuple.

    ``custom_jvp_call``/``custom_vjp_call`` carry their derivative jaxprs as thunks so that a
    jaxpr is built only when a transformation asks for it; other layers' rules for these
    primitives (vmap's) wrap them in thunks of their own. ``custom_vjp_call``'s
    ``fwd_jaxpr_thunk`` takes one bool per argument: whether it is perturbed (JAX's
    ``fwd_jaxpr_thunk(*zeros)``), which a ``symbolic_zeros`` fwd rule sees.
    """

    __slots__ = ("_fn", "_vals", "name")

    def __init__(self, name: str, fn: Callable[..., Any]) -> None:
        self.name = name
        self._fn = fn
        self._vals: dict[tuple[Any, ...], Any] = {}

    def __call__(self, *args: Any) -> Any:
        if args not in self._vals:
            self._vals[args] = self._fn(*args)
        return self._vals[args]

    def __repr__(self) -> str:
        return self.name


def _nondiff_positions(
    fun: Callable[..., Any], nums: Sequence[int], names: str | Sequence[str]
) -> tuple[int, ...]:
    """``nondiff_argnums`` with the positions of ``nondiff_argnames`` added (keyword
    arguments are bound to positions before the call, so a name is its position)."""
    out = {int(i) for i in nums}
    names = (names,) if isinstance(names, str) else tuple(names)
    if names:
        params = list(inspect.signature(fun).parameters)
        for name in names:
            if name not in params:
                raise ValueError(
                    f"nondiff_argnames names {name!r}, which "
                    f"{getattr(fun, '__name__', 'the function')} does not take (its "
                    f"parameters: {params})"
                )
            out.add(params.index(name))
    return tuple(sorted(out))


class _CustomDerivative:
    """What ``custom_jvp`` and ``custom_vjp`` share: the wrapped function and the positions
    of its non-differentiable arguments (``nondiff_argnums`` and ``nondiff_argnames``)."""

    def __init__(
        self,
        fun: Callable[..., Any],
        nondiff_argnums: Sequence[int] = (),
        nondiff_argnames: Sequence[str] = (),
    ) -> None:
        functools.update_wrapper(self, fun)  # type: ignore[arg-type]  # (subclasses are callable)
        self.fun = fun
        self.nondiff_argnums = _nondiff_positions(fun, nondiff_argnums, nondiff_argnames)


class custom_jvp(_CustomDerivative):  # noqa: N801 - JAX's name
    """A function with a custom JVP rule (``jax.custom_jvp``).

    Example::

        @custom_jvp
        def log1pexp(x):
            return mnp.log(1. + mnp.exp(x))

        @log1pexp.defjvp
        def log1pexp_jvp(primals, tangents):
            x, = primals
            x_dot, = tangents
            return log1pexp(x), (1. - 1. / (1. + mnp.exp(x))) * x_dot
    """

    jvp: Callable[..., Any] | None = None  # set by defjvp/defjvps
    symbolic_zeros: bool = False

    def defjvp(self, jvp: Callable[..., Any], symbolic_zeros: bool = False) -> Callable[..., Any]:
        """Set the rule ``jvp(*nondiff_args, primals, tangents) -> (primal_out,
        tangent_out)``; usable as a decorator. With ``symbolic_zeros``, the tangent of an
        argument that is not differentiated is a :class:`SymbolicZero` rather than an array
        of zeros (and the rule may return one for a zero output tangent)."""
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> None:
        """One rule per argument, ``jvps[i](tangent_i, primal_out, *primals)``, summed;
        ``None`` means the output does not depend on that argument."""

        def jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
            primal_out = self(*primals)
            total: Any = None
            for fn, t in zip(jvps, tangents, strict=True):
                if fn is None:
                    continue
                contribution = fn(t, primal_out, *primals)
                total = (
                    contribution if total is None else tree_map(add_tangents, total, contribution)
                )
            if total is None:
                total = tree_map(lambda p: instantiate_zeros(Zero(tangent_aval_of(p))), primal_out)
            return primal_out, total

        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args = _resolve_args(self.fun, args, kwargs)
        nondiff, diff = _split_nondiff(args, self.nondiff_argnums)
        leaves, in_tree = tree_flatten(tuple(diff))
        out_tree_box: list[PyTreeDef] = []
        name = getattr(self.fun, "__name__", "custom_jvp function")

        flat_fun = _flat_user_fun(self.fun, nondiff, self.nondiff_argnums, in_tree, out_tree_box)

        def flat_jvp(
            primals: Sequence[Any], tangents: Sequence[Any]
        ) -> tuple[list[Any], list[Any]]:
            if self.jvp is None:
                raise TypeError(
                    f"No JVP defined for custom_jvp function {name} using defjvp {user_location()}."
                )
            if self.symbolic_zeros:
                tangents = [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
            else:
                tangents = [zeros_like_aval(t.aval) if type(t) is Zero else t for t in tangents]
            p_tree = tree_unflatten(in_tree, primals)
            t_tree = tree_unflatten(in_tree, tangents)
            if self.symbolic_zeros:
                t_tree = _lift_from_views(t_tree)
            out = self.jvp(*nondiff, tuple(p_tree), tuple(t_tree))
            if not (isinstance(out, tuple | list) and len(out) == 2):
                raise TypeError(
                    f"Custom JVP rule of {name} must return a pair (primal_out, tangent_out), "
                    f"got {type(out).__name__}."
                )
            p_flat, p_tree_out = tree_flatten(out[0])
            t_flat, t_tree_out = tree_flatten(out[1])
            if p_tree_out != t_tree_out:
                raise TypeError(
                    f"Custom JVP rule of {name} must produce primal and tangent outputs with "
                    f"equal container (pytree) structures, but got {p_tree_out} and "
                    f"{t_tree_out}."
                )
            out_tree_box[:] = [p_tree_out]
            return p_flat, _check_rule_outputs(name, p_flat, t_flat)

        outs = _dispatch_custom_jvp(flat_fun, flat_jvp, leaves, name)
        return tree_unflatten(out_tree_box[0], outs)


def _dispatch_custom_jvp(
    flat_fun: Callable[..., list[Any]],
    flat_jvp: Callable[..., tuple[list[Any], list[Any]]],
    vals: Sequence[Any],
    name: str,
) -> list[Any]:
    """Apply a flat custom_jvp function to ``vals`` under the top trace (module docstring)."""

    def dispatch(*vals: Any) -> list[Any]:
        trace = find_top_trace(vals)
        process = getattr(trace, "process_custom_jvp_call", None)
        if process is not None:
            tracers = [full_raise(trace, v) for v in vals]
            return process(dispatch, flat_jvp, tracers)  # type: ignore[no-any-return]
        if isinstance(trace, EvalTrace):
            return flat_fun(*vals)
        return _stage_custom_jvp(flat_fun, flat_jvp, vals, name)

    return dispatch(*vals)


def _stage_custom_jvp(
    flat_fun: Callable[..., list[Any]],
    flat_jvp: Callable[..., tuple[list[Any], list[Any]]],
    vals: Sequence[Any],
    name: str,
) -> list[Any]:
    in_avals, call_jaxpr, consts = _trace_call(flat_fun, vals)

    def make_jvp_jaxpr() -> tuple[ClosedJaxpr, list[bool]]:
        nonzero_in = [is_inexact(a.dtype) for a in in_avals]
        t_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzero_in, strict=True) if nz]
        out_nonzero: list[bool] = []

        def jvp_flat_fun(*args: Any) -> list[Any]:
            primals = args[: len(in_avals)]
            tangents = tangents_with_zeros(args[len(in_avals) :], in_avals, nonzero_in)
            p_out, t_out = flat_jvp(primals, tangents)
            out_nonzero[:] = [type(t) is not Zero for t in t_out]
            return [*p_out, *(t for t in t_out if type(t) is not Zero)]

        jvp_jaxpr, jvp_consts = trace_to_jaxpr(jvp_flat_fun, [*in_avals, *t_avals])
        return ClosedJaxpr(jvp_jaxpr, jvp_consts), out_nonzero

    thunk = Thunk(f"jvp_of_{name}", make_jvp_jaxpr)
    return bind(
        custom_jvp_call_p,
        *consts,
        *vals,
        call_jaxpr=call_jaxpr,
        jvp_jaxpr_thunk=thunk,
        num_consts=len(consts),
    )


def _custom_call_impl(*args: Any, call_jaxpr: ClosedJaxpr, num_consts: int, **_: Any) -> list[Any]:
    return eval_jaxpr(call_jaxpr, args)


def _custom_call_abstract_eval(
    *avals: ShapedArray, call_jaxpr: ClosedJaxpr, **_: Any
) -> list[ShapedArray]:
    return list(call_jaxpr.out_avals)


impl_rules[custom_jvp_call_p] = _custom_call_impl
abstract_eval_rules[custom_jvp_call_p] = _custom_call_abstract_eval


def _custom_jvp_call_jvp(
    primals: list[Any],
    tangents: list[Any],
    *,
    call_jaxpr: ClosedJaxpr,
    jvp_jaxpr_thunk: Thunk,
    num_consts: int,
) -> tuple[list[Any], list[Any]]:
    args = primals[num_consts:]
    arg_tangents = tangents[num_consts:]
    jvp_closed, out_nonzero = jvp_jaxpr_thunk()
    arg_avals = call_jaxpr.in_avals[num_consts:]
    nz_tangents = [
        instantiate_zeros(t)
        for t, a in zip(arg_tangents, arg_avals, strict=True)
        if is_inexact(a.dtype)
    ]
    outs = eval_jaxpr(jvp_closed, [*args, *nz_tangents])
    n_out = len(out_nonzero)
    primals_out = outs[:n_out]
    it = iter(outs[n_out:])
    tangents_out = [
        next(it) if nz else Zero(tangent_aval_of(p))
        for p, nz in zip(primals_out, out_nonzero, strict=True)
    ]
    return primals_out, tangents_out


jvp_rules[custom_jvp_call_p] = _custom_jvp_call_jvp


def _custom_jvp_call_transpose(
    cts: list[Any], *invals: Any, call_jaxpr: ClosedJaxpr, **_: Any
) -> list[Any]:
    """Transpose the call's own jaxpr (JAX's rule): a custom_jvp function can be linear in its
    tangent inputs, e.g. when a JVP rule applies the function to the tangents and a
    checkpoint or linearize then transposes that jaxpr. The custom rule plays no part."""
    cts_in = iter(backward_pass(call_jaxpr.jaxpr, [*call_jaxpr.consts, *invals], cts))
    return [next(cts_in) if type(x) is UndefPrimal else None for x in invals]


transpose_rules[custom_jvp_call_p] = _custom_jvp_call_transpose


# --- custom_vjp -------------------------------------------------------------------------------


class custom_vjp(_CustomDerivative):  # noqa: N801 - JAX's name
    """A function with a custom VJP rule (``jax.custom_vjp``): ``fwd(*args) -> (out,
    residuals)`` and ``bwd(*nondiff_args, residuals, out_cotangent) -> tuple of argument
    cotangents`` (one per differentiable argument; ``None`` means zero)."""

    fwd: Callable[..., Any] | None = None  # set by defvjp
    bwd: Callable[..., Any] | None = None
    symbolic_zeros: bool = False

    def defvjp(
        self,
        fwd: Callable[..., Any],
        bwd: Callable[..., Any],
        symbolic_zeros: bool = False,
        optimize_remat: bool = False,
    ) -> None:
        """Set the rules. With ``symbolic_zeros`` (JAX's semantics), ``fwd`` receives each
        argument leaf as a :class:`CustomVJPPrimal` (``value``, ``perturbed``) and ``bwd``
        receives a :class:`SymbolicZero` for each output cotangent that is zero; either rule
        may return ``None`` or a ``SymbolicZero`` for a zero. ``optimize_remat`` is accepted
        and has no effect."""
        del optimize_remat
        self.fwd = fwd
        self.bwd = bwd
        self.symbolic_zeros = symbolic_zeros

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args = _resolve_args(self.fun, args, kwargs)
        nondiff, diff = _split_nondiff(args, self.nondiff_argnums)
        for i, x in zip(self.nondiff_argnums, nondiff, strict=True):
            if isinstance(x, Tracer):
                raise TypeError(
                    f"custom_vjp: argument {i} is in nondiff_argnums but is a traced value "
                    f"({x.aval.str_short()}); pass arrays as differentiable arguments and "
                    "return a zero cotangent for them in bwd instead."
                )
        leaves, in_tree = tree_flatten(tuple(diff))
        out_tree_box: list[PyTreeDef] = []
        res_tree_box: list[PyTreeDef] = []
        res_bools: dict[int, bool] = {}
        name = getattr(self.fun, "__name__", "custom_vjp function")

        flat_fun = _flat_user_fun(self.fun, nondiff, self.nondiff_argnums, in_tree, out_tree_box)

        def flat_fwd(
            *vals: Any, perturbed: Sequence[bool] | None = None
        ) -> tuple[list[Any], list[Any]]:
            if self.fwd is None or self.bwd is None:
                raise TypeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
            args: Sequence[Any] = vals
            if self.symbolic_zeros:
                if perturbed is None:  # not known here: every inexact input may be
                    perturbed = [is_inexact(shape_dtype(v)[1]) for v in vals]
                args = [CustomVJPPrimal(v, p) for v, p in zip(vals, perturbed, strict=True)]
            args_tree = tree_unflatten(in_tree, args)
            if self.symbolic_zeros:
                args_tree = _lift_from_views(args_tree)
            full = _merge_nondiff(nondiff, args_tree, self.nondiff_argnums)
            res = self.fwd(*full)
            if not (isinstance(res, tuple | list) and len(res) == 2):
                raise TypeError(
                    f"Custom VJP fwd rule of {name} must return a pair (output, residuals), "
                    f"got {type(res).__name__}."
                )
            out_flat, out_tree = tree_flatten(res[0])
            res_flat, res_tree = tree_flatten(res[1])
            out_tree_box[:] = [out_tree]
            res_tree_box[:] = [res_tree]
            # a Python bool residual reaches bwd as itself, as JAX's (equinox keeps its
            # ``perturbed`` flags there and tests them with ``is True``)
            res_bools.clear()
            res_bools.update((i, r) for i, r in enumerate(res_flat) if type(r) is bool)
            return out_flat, res_flat

        def flat_bwd(res: Sequence[Any], cts: Sequence[Any]) -> list[Any]:
            assert self.bwd is not None
            if self.symbolic_zeros:
                cts = [SymbolicZero(c.aval) if type(c) is Zero else _as_mj_array(c) for c in cts]
            else:
                cts = [_as_mj_array(instantiate_zeros(c)) for c in cts]
            res = [res_bools.get(i, _as_mj_array(r)) for i, r in enumerate(res)]
            res_tree = tree_unflatten(res_tree_box[0], res)
            ct_tree = tree_unflatten(out_tree_box[0], cts)
            if self.symbolic_zeros:
                ct_tree = _lift_from_views(ct_tree)
            cts_in = self.bwd(*nondiff, res_tree, ct_tree)
            if not isinstance(cts_in, tuple | list) or len(cts_in) != len(diff):
                raise TypeError(
                    f"Custom VJP bwd rule of {name} must return a tuple with one cotangent per "
                    f"differentiable argument ({len(diff)}), got {cts_in!r:.80}."
                )
            flat: list[Any] = []
            for arg, ct in zip(diff, cts_in, strict=True):
                arg_leaves, arg_tree = tree_flatten(arg)
                if ct is None:
                    flat.extend(Zero(tangent_aval_of(a)) for a in arg_leaves)
                    continue
                ct_flat = _bwd_cotangent_leaves(ct, arg)
                if ct_flat is None or len(ct_flat) != len(arg_leaves):
                    ct_tree_ = tree_flatten(ct, is_leaf=lambda x: x is None)[1]
                    raise TypeError(
                        f"Custom VJP bwd rule of {name} must produce cotangents with the "
                        f"structure of the arguments: expected {arg_tree}, got {ct_tree_}."
                    )
                flat.extend(ct_flat)
            return flat

        def dispatch(*vals: Any) -> list[Any]:
            trace = find_top_trace(vals)
            process = getattr(trace, "process_custom_vjp_call", None)
            if process is not None:
                tracers = [full_raise(trace, v) for v in vals]
                return process(dispatch, flat_fwd, flat_bwd, tracers)  # type: ignore[no-any-return]
            if isinstance(trace, EvalTrace):
                return flat_fun(*vals)
            return _stage_custom_vjp(flat_fun, flat_fwd, flat_bwd, vals, name)

        outs = dispatch(*leaves)
        return tree_unflatten(out_tree_box[0], outs)


def _bwd_cotangent_leaves(ct: Any, arg: Any) -> list[Any] | None:
    """The leaves of a ``bwd`` rule's cotangent ``ct`` for the argument ``arg``, as JAX reads
    them: a None (or symbolic zero) stands for zeros of its argument's whole subtree (and may
    be None where the argument is None too: equinox's partitioned pytrees). None when ``ct``
    is not a prefix of ``arg``'s structure."""
    out: list[Any] = []

    def append(c: Any, a: Any) -> None:
        if c is None or type(c) is SymbolicZero:
            out.extend(Zero(tangent_aval_of(x)) for x in tree_flatten(a)[0])
        else:
            out.append(_as_mj_array(c))

    try:
        tree_map(append, ct, arg, is_leaf=lambda x: x is None)
    except (TypeError, ValueError):
        return None
    return out


def _as_mj_array(x: Any) -> Any:
    """``x`` as an mj array when it is a concrete NumPy or Python value: ``bwd`` sees its
    residuals and cotangents as mj arrays, and what it returns reaches the user as one (JAX
    hands and returns ``jax.Array`` values). Tracers, mj arrays and ``float0`` zeros pass."""
    if isinstance(x, np.ndarray | np.generic | bool | int | float | complex):
        if isinstance(x, EagerArray) or np.asarray(x).dtype.kind == "V":
            return x  # (a weak one stays weak)
        if type(x) in _WEAK_SCALARS:  # a Python number is weakly typed, as JAX's
            return weak_result(np.asarray(x, default_dtype_for_pytype(type(x))))
        return eager_result(np.asarray(x))
    return x


_WEAK_SCALARS = frozenset({int, float, complex})


def _stage_custom_vjp(
    flat_fun: Callable[..., list[Any]],
    flat_fwd: Callable[..., tuple[list[Any], list[Any]]],
    flat_bwd: Callable[..., list[Any]],
    vals: Sequence[Any],
    name: str,
) -> list[Any]:
    in_avals, call_jaxpr, consts = _trace_call(flat_fun, vals)

    def make_fwd_jaxpr(*perturbed: bool) -> tuple[ClosedJaxpr, int]:
        n_res: list[int] = []

        def fwd_flat_fun(*args: Any) -> list[Any]:
            outs, res = flat_fwd(*args, perturbed=perturbed)
            n_res[:] = [len(res)]
            return [*outs, *res]

        fwd_jaxpr, fwd_consts = trace_to_jaxpr(fwd_flat_fun, in_avals)
        return ClosedJaxpr(fwd_jaxpr, fwd_consts), n_res[0]

    thunk = Thunk(f"fwd_of_{name}", make_fwd_jaxpr)
    return bind(
        custom_vjp_call_p,
        *consts,
        *vals,
        call_jaxpr=call_jaxpr,
        fwd_jaxpr_thunk=thunk,
        bwd=flat_bwd,
        num_consts=len(consts),
    )


impl_rules[custom_vjp_call_p] = _custom_call_impl
abstract_eval_rules[custom_vjp_call_p] = _custom_call_abstract_eval


def _custom_vjp_call_jvp(
    primals: list[Any],
    tangents: list[Any],
    *,
    call_jaxpr: ClosedJaxpr,
    fwd_jaxpr_thunk: Thunk,
    bwd: Callable[..., list[Any]],
    num_consts: int,
) -> tuple[list[Any], list[Any]]:
    args = primals[num_consts:]
    # the fwd rule traced for these inputs' perturbation (a symbolic_zeros rule sees it)
    fwd_closed, n_res = fwd_jaxpr_thunk(*(type(t) is not Zero for t in tangents[num_consts:]))
    outs = eval_jaxpr(fwd_closed, args)
    n_out = len(outs) - n_res
    primals_out, res = outs[:n_out], outs[n_out:]
    return primals_out, bind_custom_lin(res, tangents[num_consts:], args, primals_out, bwd)


jvp_rules[custom_vjp_call_p] = _custom_vjp_call_jvp


def _custom_lin_transpose(
    cts: list[Any],
    *invals: Any,
    num_res: int,
    bwd: Callable[..., list[Any]],
    out_avals: tuple[ShapedArray, ...],
    in_avals: tuple[ShapedArray, ...],
    in_nonzero: tuple[bool, ...],
) -> list[Any]:
    res = invals[:num_res]
    for r in res:
        if type(r) is UndefPrimal:
            raise TypeError("custom_lin: residuals cannot be linear values.")
    cts_in = bwd(list(res), list(cts))
    lin_cts = []
    for ct, aval, nz in zip(cts_in, in_avals, in_nonzero, strict=True):
        if not nz:
            continue
        if type(ct) is Zero:
            lin_cts.append(Zero(aval))
            continue
        shape, _dtype = shape_dtype(ct)
        if tuple(shape) != aval.shape:
            raise ValueError(
                f"Custom VJP bwd rule produced a cotangent of shape {tuple(shape)} for an "
                f"argument of shape {aval.shape}."
            )
        lin_cts.append(ct)
    return [None] * num_res + lin_cts


transpose_rules[custom_lin_p] = _custom_lin_transpose
