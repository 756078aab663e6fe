"""Forward mode: the JVP trace (Autodidax Part 1) with symbolic zeros.

A :class:`JVPTracer` carries a primal value and its tangent; :class:`JVPTrace` applies the
primitive's rule from :data:`jvp_rules`. Two things keep it cheap:

* a primitive whose input tangents are all :class:`~mj_autodiff.extend.Zero` is simply
  applied to the primals (no rule call, no tracer), and
* an output whose tangent is a ``Zero`` is returned as the bare primal: a value with no
  tangent is a constant as far as this transformation is concerned.

Rule signature: ``rule(primals, tangents, **params) -> (primals_out, tangents_out)``, lists;
tangents may be ``Zero``. The helpers that build the common rule shapes in one line
(:func:`~mj_autodiff._derivatives.defjvp` and friends) live with the derivative description.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_autodiff._custom_lin import bind_custom_lin
from mj_autodiff._tangents import (
    Tangent,
    Zero,
    instantiate_zeros,
    tangent_aval,
    tangent_aval_of,
    tangents_with_zeros,
)
from mj_core import (
    EagerArray,
    Primitive,
    RuleTable,
    ShapedArray,
    Trace,
    Tracer,
    bind,
    current_trace_stack,
    full_lower,
    full_raise,
    get_aval,
    new_main,
)
from mj_core.dtypes import canonical_dtype, is_inexact
from mj_core.extend import ArrayLike, on_x64_change
from mj_core.tree_util import (
    PyTreeDef,
    Store,
    tree_flatten,
    tree_map,
    tree_structure,
    tree_unflatten,
)
from mj_ir import ClosedJaxpr, eval_jaxpr
from mj_ir.extend import trace_to_closed_jaxpr

__all__ = [
    "JVPTrace",
    "JVPTracer",
    "PrimalTracer",
    "jvp",
    "jvp_flat",
    "jvp_jaxpr",
    "jvp_rules",
]

jvp_rules: RuleTable[Callable[..., Any]] = RuleTable(
    "jvp_rules", "jvp (forward-mode differentiation)", "mj_autodiff"
)


#: Symbolic zeros are immutable: constants that are Python scalars share one per type.
_PY_SCALAR_ZEROS: dict[type, Zero] = {}


def _set_mode(_: bool = False) -> None:
    _PY_SCALAR_ZEROS.update({t: Zero(tangent_aval_of(t())) for t in (bool, int, float, complex)})


_set_mode()
on_x64_change(_set_mode)  # after _tangents' listener: the tangent avals are the new mode's


class PrimalTracer(Tracer):
    """A tracer carrying its primal value: type queries (``x.shape`` and ``x.dtype`` in user
    code, NEP 50 promotion, rules) read the primal directly instead of building its aval."""

    __slots__ = ("primal",)

    primal: Any

    @property
    def aval(self) -> ShapedArray:
        return get_aval(self.primal)

    @property
    def shape(self) -> tuple[int, ...]:
        primal = self.primal
        t = type(primal)
        return primal.shape if t is np.ndarray or t is EagerArray else get_aval(primal).shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        primal = self.primal
        t = type(primal)
        if t is EagerArray:
            return primal.dtype  # type: ignore[no-any-return]
        if t is np.ndarray:  # a NumPy input: float64 is float32 unless x64, as its aval says
            return canonical_dtype(primal.dtype)
        return get_aval(primal).dtype

    @property
    def weak_type(self) -> bool:
        primal = self.primal
        t = type(primal)
        return False if t is np.ndarray or t is EagerArray else get_aval(primal).weak_type

    def _dtype_weak(self) -> tuple[np.dtype[Any], bool]:
        primal = self.primal
        t = type(primal)
        if t is EagerArray:
            return primal.dtype, False
        if t is np.ndarray:  # a NumPy input: float64 is float32 unless x64, as its aval says
            return canonical_dtype(primal.dtype), False
        aval = get_aval(primal)
        return aval.dtype, aval.weak_type


class JVPTracer(PrimalTracer):
    """A primal value together with its tangent (possibly a symbolic ``Zero``)."""

    __slots__ = ("tangent",)

    def __init__(self, trace: Trace, primal: ArrayLike, tangent: Tangent) -> None:
        self._trace = trace
        self.primal = primal
        self.tangent = tangent


class JVPTrace(Trace):
    """Interprets primitives by their JVP rules."""

    __slots__ = ()
    transformation_name = "jvp"

    def pure(self, val: Any) -> JVPTracer:
        zero = _PY_SCALAR_ZEROS.get(type(val))
        return JVPTracer(self, val, Zero(tangent_aval_of(val)) if zero is None else zero)

    lift = pure

    def process_primitive(
        self, primitive: Primitive, tracers: list[Any], params: dict[str, Any]
    ) -> list[Any]:
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        for t in tangents:
            if type(t) is not Zero:
                break
        else:  # nothing to differentiate: apply the primitive to the primals
            return bind(primitive, *primals, **params)
        primals_out, tangents_out = jvp_rules[primitive](primals, tangents, **params)
        return self.tracers_out(primals_out, tangents_out)

    def tracers_out(self, primals_out: list[Any], tangents_out: list[Any]) -> list[Any]:
        """The outputs of a rule as values of this trace (a zero tangent needs no tracer)."""
        return [
            p if type(t) is Zero else JVPTracer(self, p, t)
            for p, t in zip(primals_out, tangents_out, strict=True)
        ]

    def process_custom_jvp_call(
        self,
        fun: Callable[..., list[Any]],
        jvp_fun: Callable[..., tuple[list[Any], list[Any]]],
        tracers: list[Any],
    ) -> list[Any]:
        """A ``custom_jvp`` function applied to this trace's tracers: run the user's rule on
        the primals and (instantiated) tangents instead of differentiating ``fun``."""
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        if all(type(t) is Zero for t in tangents):
            return fun(*primals)
        primals_out, tangents_out = jvp_fun(primals, tangents)
        return self.tracers_out(primals_out, tangents_out)

    def process_custom_vjp_call(
        self,
        fun: Callable[..., list[Any]],
        fwd: Callable[..., tuple[list[Any], list[Any]]],
        bwd: Callable[..., list[Any]],
        tracers: list[Any],
    ) -> list[Any]:
        """A ``custom_vjp`` function applied to this trace's tracers: run ``fwd`` on the
        primals; the output tangents are ``custom_lin`` of the input tangents, which reverse
        mode transposes by calling ``bwd`` (forward mode cannot evaluate it)."""
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        if all(type(t) is Zero for t in tangents):
            return fun(*primals)
        # ``perturbed``: which inputs are differentiated (a symbolic_zeros fwd rule sees it)
        primals_out, res = fwd(*primals, perturbed=[type(t) is not Zero for t in tangents])
        tangents_out = bind_custom_lin(res, tangents, primals, primals_out, bwd)
        return self.tracers_out(primals_out, tangents_out)


def _unpack_outputs(trace: JVPTrace, outs: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    primals_out: list[Any] = []
    tangents_out: list[Any] = []
    for out in outs:
        t = full_raise(trace, out)
        primals_out.append(t.primal)
        tangents_out.append(t.tangent)
    return primals_out, tangents_out


def jvp_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[list[Any], list[Any]]:
    """JVP of ``fun`` (flat arrays in, flat list out). Tangents in and out may be ``Zero``."""
    with new_main(JVPTrace) as main:
        trace: JVPTrace = main.trace  # type: ignore[assignment]
        tracers_in = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents, strict=True)]
        outs = fun(*tracers_in)
        return _unpack_outputs(trace, outs)


# --- the public jvp ---------------------------------------------------------------------------


def _check_tangent(index: int, primal: ArrayLike, tangent: ArrayLike) -> Tangent:
    """Validate one tangent leaf against its primal; return it as the trace should see it
    (``Zero`` for integer primals, weak Python scalars converted to the primal's dtype)."""
    p_aval = get_aval(primal)
    t_aval = get_aval(tangent)
    expected = tangent_aval(p_aval)
    if t_aval.shape != p_aval.shape:
        raise ValueError(
            "jvp called with different primal and tangent shapes: got primal shape "
            f"{p_aval.shape} and tangent shape {t_aval.shape} for argument leaf {index}."
        )
    if expected.dtype != t_aval.dtype:
        if t_aval.weak_type and is_inexact(p_aval.dtype):
            return np.asarray(tangent, p_aval.dtype)
        raise TypeError(
            "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in "
            "case of int/bool primal dtype the tangent dtype must be float0. Got primal dtype "
            f"{p_aval.dtype.name} and so expected tangent dtype {expected.dtype}, but got "
            f"tangent dtype {t_aval.dtype} instead (argument leaf {index})."
        )
    if not is_inexact(p_aval.dtype):
        return Zero(expected)
    return tangent


def _primal_value(x: object) -> object:
    """Auxiliary data is not differentiated: unwrap a tracer of the innermost transformation
    (the JVP trace ``vjp`` runs ``fun`` under) to its primal value."""
    if isinstance(x, PrimalTracer) and x._trace.main is current_trace_stack()[-1]:
        return full_lower(x.primal)
    return x


def flatten_fun_aux(
    fun: Callable[..., Any], in_tree: PyTreeDef, has_aux: bool
) -> tuple[Callable[..., list[Any]], Store, Store]:
    """``flatten_fun`` that, with ``has_aux``, splits ``fun``'s ``(out, aux)`` result and
    keeps ``aux`` aside (it is not differentiated)."""
    out_store = Store()
    aux_store = Store()

    def flat_fun(*args_flat: Any) -> list[Any]:
        out = fun(*tree_unflatten(in_tree, args_flat))
        if has_aux:
            if not (isinstance(out, tuple | list) and len(out) == 2):
                raise TypeError(
                    "expected function with aux output to return a two-element tuple, but got "
                    f"type {type(out)}: a function transformed with has_aux=True must return a "
                    "pair (output, auxiliary data)."
                )
            out, aux = out
            aux_store.set_value(tree_map(_primal_value, aux))
        out_flat, out_tree = tree_flatten(out)
        out_store.set_value(out_tree)
        return out_flat

    return flat_fun, out_store, aux_store


def jvp(
    fun: Callable[..., Any],
    primals: Sequence[Any],
    tangents: Sequence[Any],
    has_aux: bool = False,
) -> tuple[Any, ...]:
    """Forward-mode Jacobian-vector product: ``(fun(*primals), J(primals) @ tangents)``.

    ``primals`` and ``tangents`` are tuples (or lists) of pytrees with the same structure;
    each tangent has its primal's shape and dtype (``float0`` for integer/bool primals).
    With ``has_aux=True``, ``fun`` returns ``(out, aux)`` and the result is
    ``(out, out_tangent, aux)``, ``aux`` not differentiated (as in JAX).

    Example::

        >>> y, y_dot = jvp(mj.numpy.sin, (3.0,), (1.0,))   # (sin(3), cos(3))
    """
    if not isinstance(primals, tuple | list) or not isinstance(tangents, tuple | list):
        raise TypeError(
            "primal and tangent arguments to jax.jvp must be tuples or lists; found "
            f"{type(primals).__name__} and {type(tangents).__name__}."
        )
    primals_flat, in_tree = tree_flatten(tuple(primals))
    tangents_flat, tangent_tree = tree_flatten(tuple(tangents))
    if type(primals) is not type(tangents) or in_tree != tangent_tree:  # a tuple is not a list
        in_tree, tangent_tree = tree_structure(primals), tree_structure(tangents)
        raise TypeError(
            "primal and tangent arguments to jax.jvp must have the same tree structure; primals "
            f"have tree structure {in_tree} whereas tangents have tree structure "
            f"{tangent_tree}."
        )
    tangents_flat = [
        _check_tangent(i, p, t)
        for i, (p, t) in enumerate(zip(primals_flat, tangents_flat, strict=True))
    ]
    flat_fun, out_tree, aux = flatten_fun_aux(fun, in_tree, has_aux)
    primals_out, tangents_out = jvp_flat(flat_fun, primals_flat, tangents_flat)
    tangents_out = [instantiate_zeros(t) for t in tangents_out]
    outs = tree_unflatten(out_tree(), primals_out), tree_unflatten(out_tree(), tangents_out)
    return (*outs, aux()) if has_aux else outs


# --- jvp of a jaxpr (for higher-order primitives: jit, control flow) --------------------------


def _as_flags(flags: bool | Sequence[bool], n: int) -> list[bool]:
    return [flags] * n if isinstance(flags, bool) else list(flags)


def jvp_jaxpr(
    closed_jaxpr: ClosedJaxpr,
    nonzeros: Sequence[bool],
    instantiate: bool | Sequence[bool],
) -> tuple[ClosedJaxpr, list[bool]]:
    """The JVP of a closed jaxpr, as a closed jaxpr.

    The result takes ``(*primals, *tangents for the inputs marked in nonzeros)`` and returns
    ``(*primals_out, *tangents_out for the outputs marked in out_nonzeros)``. An output tangent
    that is symbolically zero is dropped unless ``instantiate`` asks for it (then it is a
    materialised zero and its ``out_nonzeros`` flag is True).
    """
    nonzeros = list(nonzeros)
    in_avals = closed_jaxpr.in_avals
    n_out = len(closed_jaxpr.out_avals)
    inst = _as_flags(instantiate, n_out)
    out_nonzeros: list[bool] = []
    tangent_avals = [tangent_aval(a) for a, nz in zip(in_avals, nonzeros, strict=True) if nz]

    def jvp_fun(*args: Any) -> list[Any]:
        primals = args[: len(in_avals)]
        tangents = tangents_with_zeros(args[len(in_avals) :], in_avals, nonzeros)

        def fun(*xs: Any) -> list[Any]:
            return eval_jaxpr(closed_jaxpr, xs)

        primals_out, tangents_out = jvp_flat(fun, primals, tangents)
        out_nonzeros[:] = [
            type(t) is not Zero or i for t, i in zip(tangents_out, inst, strict=True)
        ]
        kept = [
            instantiate_zeros(t) for t, nz in zip(tangents_out, out_nonzeros, strict=True) if nz
        ]
        return [*primals_out, *kept]

    closed = trace_to_closed_jaxpr(jvp_fun, [*in_avals, *tangent_avals])
    return closed, out_nonzeros
