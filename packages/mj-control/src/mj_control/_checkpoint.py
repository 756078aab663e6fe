"""``checkpoint`` (``remat``): gradient checkpointing, as a higher-order primitive.

``checkpoint(f)`` computes what ``f`` computes, but when it is differentiated in reverse mode
the backward pass saves only ``f``'s inputs (plus what the ``policy`` allows) and recomputes
the rest of ``f``'s forward computation from them: less memory, more compute.

``checkpoint_p`` (printed ``remat2`` as JAX 0.10.2 prints it) takes ``*consts, *args`` and the
params ``jaxpr`` (a ``ClosedJaxpr`` over those operands), ``prevent_cse`` (a bool, or one
bool per operand), ``differentiated`` (False until partial evaluation splits it) and
``policy``. The key rule is partial evaluation (:func:`split_checkpoint_jaxpr`): the known
outputs are computed at once, outside the primitive; the unknown part becomes a
``checkpoint_p`` equation (``differentiated=True``) that takes the saved values and re-runs
the primal work it needs itself, instead of taking every intermediate as a residual.
Transposition keeps the recomputation under ``checkpoint_p``, and the lowering wraps a
differentiated checkpoint's operands in ``stablehlo.optimization_barrier`` so that XLA cannot
merge the recomputation back into the forward pass.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

from mj_autodiff.extend import (
    PartialEvalTrace,
    UndefPrimal,
    Zero,
    instantiate_zeros,
    jvp_jaxpr,
    jvp_rules,
    partial_eval_jaxpr_rules,
    partial_eval_rules,
    tangents_with_zeros,
    transpose_jaxpr,
    transpose_rules,
)
from mj_batch.extend import BatchDim, vmap_jaxpr, vmap_rules
from mj_control._checkpoint_policies import Policy, nothing_saveable
from mj_control._jaxprs import types_str
from mj_control._printing import pp_control_eqn
from mj_control._tracing import check_callable, shaped_avals, trace_fun
from mj_core import Primitive, ShapedArray, bind, config, impl_rules, raise_to_shaped
from mj_core.dtypes import is_float
from mj_core.errors import user_line_suffix
from mj_core.numpy import finfo as _finfo
from mj_core.prims.conversions import reduce_precision_p
from mj_core.tree_util import tree_flatten, tree_leaves, tree_structure, tree_unflatten
from mj_ir import (
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Var,
    abstract_eval_rules,
    dce_jaxpr,
    eval_jaxpr,
    typecheck_jaxpr,
)
from mj_ir.extend import pp_rules, types_match
from mj_xla.extend import LoweringContext, Value, Vma, closed_vma, hlo, lowering_rules, vma_rules

__all__ = ["checkpoint", "checkpoint_p", "remat", "remat_p", "split_checkpoint_jaxpr"]

checkpoint_p = Primitive("remat2", multiple_results=True)
remat_p = checkpoint_p

PreventCSE = bool | tuple[bool, ...]
F = TypeVar("F", bound=Callable[..., Any])


def checkpoint(
    fun: F,
    *,
    prevent_cse: bool | Sequence[bool] = True,
    policy: Policy | None = None,
    static_argnums: int | tuple[int, ...] = (),
    static_argnames: str | Iterable[str] = (),
    concrete: bool | None = None,
) -> F:
    """``fun``, made to recompute its intermediates in the backward pass instead of saving
    them (JAX's ``jax.checkpoint``).

    Arguments:
      fun: the function to checkpoint (pytrees in and out, keyword arguments allowed).
      prevent_cse: keep XLA from merging the recomputation with the forward pass under
        ``jit`` (True, or one bool per positional argument).
      policy: ``policy(prim, *avals, **params) -> bool`` saying which intermediates may be
        saved, e.g. ``checkpoint_policies.dots_saveable``; None saves only the inputs.
      static_argnums: positional arguments passed to ``fun`` as Python values, not traced.
      static_argnames: keyword arguments passed to ``fun`` as Python values, not traced.
      concrete: removed from JAX (v0.10.0); refused when given.

    Example::

        >>> g = checkpoint(lambda x: mnp.sin(mnp.sin(x)))
        >>> grad(g)(1.0)  # the backward pass recomputes sin(x)
    """
    check_callable("checkpoint", "fun", fun)
    if concrete is not None:
        raise NotImplementedError(
            "The `concrete` option to checkpoint was removed (as in JAX v0.10.0); in its place "
            "please use `static_argnums`."
        )
    statics = _static_argnums(static_argnums)
    static_names = _static_argnames(static_argnames)
    cse = _prevent_cse(prevent_cse)

    @functools.wraps(fun)
    def fun_remat(*args: object, **kwargs: object) -> Any:
        dyn_fun, dyn_args = _split_static(fun, statics, args)
        static_kwargs = {k: v for k, v in kwargs.items() if k in static_names}
        if static_kwargs:
            dyn_fun = functools.partial(dyn_fun, **static_kwargs)
            kwargs = {k: v for k, v in kwargs.items() if k not in static_names}
        args_flat, in_tree = tree_flatten((tuple(dyn_args), kwargs))
        static_vals = (
            tuple((i % len(args), args[i]) for i in statics) if statics else (),
            tuple(sorted(static_kwargs.items())),
        )
        traced = trace_fun(
            functools.partial(_apply, dyn_fun),
            in_tree,
            shaped_avals(args_flat),
            owner=fun,  # (cached on the user's function and its static arguments, as JAX's)
            statics=static_vals,
        )
        outs = bind(
            checkpoint_p,
            *traced.consts,
            *args_flat,
            jaxpr=traced.closed(),
            prevent_cse=_operand_cse(cse, dyn_args, len(traced.consts), len(args_flat)),
            differentiated=False,
            policy=policy,
        )
        return tree_unflatten(traced.out_tree, outs)

    return fun_remat  # type: ignore[return-value]


remat = checkpoint  # JAX's alias


def _apply(dyn_fun: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return dyn_fun(*args, **kwargs)


def _where(exc: type[Exception], msg: str) -> Exception:
    return exc(f"{msg}{user_line_suffix()}")


def _static_argnums(static_argnums: object) -> tuple[int, ...]:
    if type(static_argnums) is int:
        return (static_argnums,)
    if type(static_argnums) is tuple and all(type(d) is int for d in static_argnums):
        return static_argnums
    raise _where(
        TypeError,
        f"checkpoint: static_argnums must be an int or a tuple of ints, got {static_argnums!r}",
    )


def _static_argnames(static_argnames: object) -> frozenset[str]:
    names = (static_argnames,) if isinstance(static_argnames, str) else static_argnames
    if isinstance(names, Iterable):
        names = tuple(names)
        if all(isinstance(n, str) for n in names):
            return frozenset(names)
    raise _where(
        TypeError,
        "checkpoint: static_argnames must be a str or an iterable of strs, got "
        f"{static_argnames!r}",
    )


def _prevent_cse(prevent_cse: object) -> PreventCSE:
    if isinstance(prevent_cse, bool):
        return prevent_cse
    if isinstance(prevent_cse, Sequence) and not isinstance(prevent_cse, str):
        return tuple(prevent_cse)  # one flag, or a pytree prefix of flags, per argument
    raise _where(
        TypeError,
        f"checkpoint: prevent_cse must be a bool or a sequence of bools, got {prevent_cse!r}",
    )


def _split_static(
    fun: Callable[..., Any], statics: tuple[int, ...], args: tuple[Any, ...]
) -> tuple[Callable[..., Any], list[Any]]:
    """``fun`` of the dynamic positional arguments only (the static ones closed over, as
    Python values) and those arguments."""
    nargs = len(args)
    if not all(-nargs <= d < nargs for d in statics):
        raise _where(
            ValueError,
            f"checkpoint: static_argnums {statics} out of range for a call with {nargs} "
            f"positional arguments (each must be in [-{nargs}, {nargs}))",
        )
    if not statics:
        return fun, list(args)
    static = {d % nargs for d in statics}
    dyn_args = [a for i, a in enumerate(args) if i not in static]

    def dyn_fun(*dyn: object, **kwargs: object) -> Any:
        it = iter(dyn)
        full = [a if i in static else next(it) for i, a in enumerate(args)]
        return fun(*full, **kwargs)

    return dyn_fun, dyn_args


def _operand_cse(
    cse: PreventCSE, dyn_args: Sequence[Any], n_consts: int, n_flat: int
) -> PreventCSE:
    """The ``prevent_cse`` param: a per-argument tuple becomes one flag per operand (False for
    the hoisted constants, each argument's flag for its leaves, True for keyword leaves)."""
    if isinstance(cse, bool):
        return cse
    if len(cse) != len(dyn_args):
        raise _where(
            ValueError,
            f"checkpoint: prevent_cse has {len(cse)} flags for a call with {len(dyn_args)} "
            "dynamic positional arguments",
        )
    # each argument's entry is a pytree prefix of it (JAX's broadcast_prefix): a bool for the
    # whole argument, or e.g. a dict of bools for a dict argument
    per_leaf = []
    for flags, arg in zip(cse, dyn_args, strict=True):
        prefix = tree_structure(flags)
        for flag, sub in zip(tree_leaves(flags), prefix.flatten_up_to(arg), strict=True):
            if not isinstance(flag, bool):
                raise _where(
                    TypeError,
                    f"checkpoint: prevent_cse must be a bool or a sequence of bools, got {cse!r}",
                )
            per_leaf += [bool(flag)] * len(tree_leaves(sub))
    return (False,) * n_consts + tuple(per_leaf) + (True,) * (n_flat - len(per_leaf))


# --- evaluation and typing ---------------------------------------------------------------------


def _checkpoint_impl(
    *args: object, jaxpr: ClosedJaxpr, prevent_cse: PreventCSE, differentiated: bool, policy: object
) -> list[Any]:
    return eval_jaxpr(jaxpr, args)


impl_rules[checkpoint_p] = _checkpoint_impl


def _checkpoint_abstract_eval(
    *avals: ShapedArray,
    jaxpr: ClosedJaxpr,
    prevent_cse: PreventCSE,
    differentiated: bool,
    policy: object,
) -> list[ShapedArray]:
    expected = jaxpr.in_avals
    if len(expected) != len(avals) or not all(
        types_match(raise_to_shaped(a), e) for a, e in zip(avals, expected, strict=True)
    ):
        raise TypeError(
            f"checkpoint: operands ({types_str(avals)}) do not match the jaxpr's inputs "
            f"({types_str(expected)})"
        )
    if isinstance(prevent_cse, tuple) and len(prevent_cse) != len(avals):
        raise TypeError(
            f"checkpoint: prevent_cse has {len(prevent_cse)} flags for {len(avals)} operands"
        )
    return jaxpr.out_avals


abstract_eval_rules[checkpoint_p] = _checkpoint_abstract_eval
pp_rules[checkpoint_p] = pp_control_eqn


def _cse_for(prevent_cse: PreventCSE, keep: Sequence[bool], extra: int) -> PreventCSE:
    """``prevent_cse`` for a new checkpoint taking the operands flagged ``keep`` followed by
    ``extra`` new operands (flagged True)."""
    if isinstance(prevent_cse, bool):
        return prevent_cse
    kept = tuple(p for p, k in zip(prevent_cse, keep, strict=True) if k)
    return kept + (True,) * extra


# --- forward mode --------------------------------------------------------------------------------


def _checkpoint_jvp(
    primals: list[Any],
    tangents: list[Any],
    *,
    jaxpr: ClosedJaxpr,
    prevent_cse: PreventCSE,
    differentiated: bool,
    policy: object,
) -> tuple[list[Any], list[Any]]:
    """One checkpoint of the JVP jaxpr: the tangent computation stays under checkpoint."""
    nonzeros = [type(t) is not Zero for t in tangents]
    jvp, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros, False)
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    outs = bind(
        checkpoint_p,
        *primals,
        *nz_tangents,
        jaxpr=jvp,
        prevent_cse=_cse_for(prevent_cse, [True] * len(primals), len(nz_tangents)),
        differentiated=differentiated,
        policy=policy,
    )
    n_out = len(out_nonzeros)
    return outs[:n_out], tangents_with_zeros(outs[n_out:], jaxpr.out_avals, out_nonzeros)


jvp_rules[checkpoint_p] = _checkpoint_jvp


# --- partial evaluation: save the inputs, recompute the rest ---------------------------------


class CheckpointSplit(NamedTuple):
    """A checkpointed jaxpr split by which inputs are unknown."""

    known: ClosedJaxpr  # known args -> (*known outputs, *computed residuals)
    unknown: ClosedJaxpr  # (*residuals, *unknown args) -> unknown outputs, recomputing
    out_unknowns: list[bool]
    res_sources: list[int | None]  # per residual: the known arg it is, or None if computed

    @property
    def num_res(self) -> int:
        return len(self.res_sources)

    def residuals(self, known_args: Sequence[Any], computed: Sequence[Any]) -> list[Any]:
        """The residuals, given the known arguments and the known jaxpr's computed ones."""
        it = iter(computed)
        return [next(it) if s is None else known_args[s] for s in self.res_sources]


def _is_saveable(policy: Policy, eqn: JaxprEqn) -> bool:
    return bool(policy(eqn.primitive, *(x.aval for x in eqn.inputs), **eqn.params))


def split_checkpoint_jaxpr(
    closed: ClosedJaxpr, in_unknowns: Sequence[bool], policy: Policy | None
) -> CheckpointSplit:
    """Partial evaluation for rematerialization (JAX's ``partial_eval_jaxpr_custom`` with a
    policy).

    Equations on known values go to the known jaxpr. Every known value the unknown equations
    use is either a residual (an input of the jaxpr, or the output of an equation ``policy``
    calls saveable) or recomputed: its equation is copied into the unknown jaxpr, recursively
    for that equation's own known inputs. Higher-order equations are split by their
    ``partial_eval_jaxpr_rules`` entry, so their known parts can be saved or recomputed too.
    """
    saveable = nothing_saveable if policy is None else policy
    jaxpr = closed.jaxpr
    n_consts = len(closed.consts)
    binder_unknowns = [False] * n_consts + list(in_unknowns)
    unknown: dict[Var, bool] = dict(zip(jaxpr.in_binders, binder_unknowns, strict=True))
    known_eqns: list[JaxprEqn | None] = []
    unknown_eqns: list[JaxprEqn | None] = []
    producer: dict[Var, tuple[int, JaxprEqn]] = {}  # known var -> (index, known equation)
    needed: dict[Var, None] = {}  # known vars the unknown equations read (ordered set)

    for i, eqn in enumerate(jaxpr.eqns):
        unks_in = [type(x) is Var and unknown[x] for x in eqn.inputs]
        eqn_known: JaxprEqn | None
        eqn_unknown: JaxprEqn | None
        if not any(unks_in):
            eqn_known, eqn_unknown = eqn, None
            unks_out = [False] * len(eqn.out_binders)
        elif eqn.primitive in partial_eval_jaxpr_rules:
            rule = partial_eval_jaxpr_rules[eqn.primitive]
            eqn_known, eqn_unknown, unks_out, res = rule(unks_in, eqn)
            needed.update(dict.fromkeys(res))
        else:
            eqn_known, eqn_unknown = None, eqn
            unks_out = [True] * len(eqn.out_binders)
            needed.update(
                dict.fromkeys(
                    x for x, u in zip(eqn.inputs, unks_in, strict=True) if type(x) is Var and not u
                )
            )
        known_eqns.append(eqn_known)
        unknown_eqns.append(eqn_unknown)
        if eqn_known is not None:
            for v in eqn_known.out_binders:
                producer[v] = (i, eqn_known)
        for v, u in zip(eqn.out_binders, unks_out, strict=True):
            unknown[v] = u

    out_unknowns = [type(x) is Var and unknown[x] for x in jaxpr.outs]
    residuals: dict[Var, None] = {}
    recompute: set[int] = set()
    stack = list(reversed(needed))
    while stack:
        v = stack.pop()
        entry = producer.get(v)
        if entry is None:
            residuals[v] = None  # an input (or constant) of the jaxpr
            continue
        idx, producing = entry
        if idx in recompute or v in residuals:
            continue
        if _is_saveable(saveable, producing):
            residuals[v] = None
        else:
            recompute.add(idx)
            stack.extend(reversed([x for x in producing.inputs if type(x) is Var]))

    staged: list[JaxprEqn] = []
    for idx, (k, uk) in enumerate(zip(known_eqns, unknown_eqns, strict=True)):
        if k is not None and idx in recompute:
            staged.append(k)
        if uk is not None:
            staged.append(uk)
    res_list = list(residuals)
    unknown_args = [v for v, u in zip(jaxpr.in_binders, binder_unknowns, strict=True) if u]
    outs_unknown = [x for x, u in zip(jaxpr.outs, out_unknowns, strict=True) if u]
    jaxpr_unknown, used = dce_jaxpr(
        Jaxpr([*res_list, *unknown_args], staged, outs_unknown),
        [True] * len(outs_unknown),
        instantiate=[False] * len(res_list) + [True] * len(unknown_args),
    )
    res_list = [r for r, u in zip(res_list, used[: len(res_list)], strict=True) if u]

    args = jaxpr.in_binders[n_consts:]
    known_arg_index = {
        v: k for k, v in enumerate(v for v, u in zip(args, in_unknowns, strict=True) if not u)
    }
    res_sources = [known_arg_index.get(r) for r in res_list]
    computed = [r for r, src in zip(res_list, res_sources, strict=True) if src is None]
    known_binders = [v for v, u in zip(jaxpr.in_binders, binder_unknowns, strict=True) if not u]
    outs_known = [x for x, u in zip(jaxpr.outs, out_unknowns, strict=True) if not u]
    jaxpr_known, _ = dce_jaxpr(
        Jaxpr(known_binders, [e for e in known_eqns if e is not None], [*outs_known, *computed]),
        [True] * (len(outs_known) + len(computed)),
        instantiate=True,
    )
    jaxpr_known = _reduce_residual_precision(jaxpr_known, computed)
    if config.check_jaxprs:
        typecheck_jaxpr(jaxpr_known)
        typecheck_jaxpr(jaxpr_unknown)
    return CheckpointSplit(
        ClosedJaxpr(jaxpr_known, closed.consts),
        ClosedJaxpr(jaxpr_unknown, []),
        out_unknowns,
        res_sources,
    )


def _reduce_residual_precision(jaxpr: Jaxpr, residuals: Sequence[Any]) -> Jaxpr:
    """Round each computed float residual that the known jaxpr also uses to its own dtype
    (``reduce_precision``), as JAX does: otherwise XLA may keep a wider value for the known
    computation (e.g. a bfloat16 product fused with a conversion to float32) than the one the
    backward pass reads from the saved residual, and the two passes disagree."""
    used = {x for e in jaxpr.eqns for x in e.inputs if type(x) is Var}
    targets = {v for v in residuals if type(v) is Var and v in used and is_float(v.aval.dtype)}
    if not targets:
        return jaxpr
    eqns: list[JaxprEqn] = []
    for eqn in jaxpr.eqns:
        hit = [v for v in eqn.out_binders if v in targets]
        params_of = {v: _finfo_bits(v.aval.dtype) for v in hit}
        if eqn.primitive is reduce_precision_p and hit and eqn.params == params_of[hit[0]]:
            eqns.append(eqn)
            continue
        renamed = {v: Var(v.aval) for v in hit}
        eqns.append(eqn._replace(out_binders=[renamed.get(v, v) for v in eqn.out_binders]))
        eqns.extend(JaxprEqn(reduce_precision_p, [renamed[v]], params_of[v], [v]) for v in hit)
    return Jaxpr(jaxpr.in_binders, eqns, jaxpr.outs, jaxpr.num_consts)


def _finfo_bits(dtype: Any) -> dict[str, int]:
    finfo: Any = _finfo  # (mj's is ml_dtypes': NumPy's does not know bfloat16 or the float8s)
    info = finfo(dtype)
    return {"exponent_bits": int(info.nexp), "mantissa_bits": int(info.nmant)}


def _checkpoint_partial_eval(
    trace: PartialEvalTrace,
    tracers: list[Any],
    *,
    jaxpr: ClosedJaxpr,
    prevent_cse: PreventCSE,
    differentiated: bool,
    policy: Any,
) -> list[Any]:
    """Compute the known outputs and the residuals now, outside the checkpoint (as JAX
    hoists them); stage the unknown part as a differentiated checkpoint that recomputes."""
    in_unknowns = [not t.is_known for t in tracers]
    split = split_checkpoint_jaxpr(jaxpr, in_unknowns, policy)
    known_ins = [t for t in tracers if t.is_known]
    n_known = len(split.out_unknowns) - sum(split.out_unknowns)
    outs = eval_jaxpr(split.known, [t.const for t in known_ins])
    res = split.residuals(known_ins, [trace.pure(r) for r in outs[n_known:]])
    unknown_ins = [t for t in tracers if not t.is_known]
    unknown_avals = split.unknown.out_avals
    outs_unknown = (
        trace.new_eqn_tracers(
            checkpoint_p,
            [*res, *unknown_ins],
            {
                "jaxpr": split.unknown,
                "prevent_cse": _staged_cse(prevent_cse, in_unknowns, split.res_sources),
                "differentiated": True,
                "policy": policy,
            },
            unknown_avals,
        )
        if unknown_avals
        else []
    )
    known_it, unknown_it = iter(outs[:n_known]), iter(outs_unknown)
    return [next(unknown_it) if uk else next(known_it) for uk in split.out_unknowns]


partial_eval_rules[checkpoint_p] = _checkpoint_partial_eval


def _staged_cse(
    prevent_cse: PreventCSE, unks_in: Sequence[bool], res_sources: Sequence[int | None]
) -> PreventCSE:
    """``prevent_cse`` of the staged checkpoint, taking ``(*residuals, *unknown inputs)``: a
    residual that is a known input keeps that input's flag (JAX stages the known inputs
    themselves, with their flags), a computed one is True."""
    if isinstance(prevent_cse, bool):
        return prevent_cse
    known = [p for p, u in zip(prevent_cse, unks_in, strict=True) if not u]
    res = tuple(True if src is None else known[src] for src in res_sources)
    return res + tuple(p for p, u in zip(prevent_cse, unks_in, strict=True) if u)


def _checkpoint_partial_eval_jaxpr(
    unks_in: list[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn | None, JaxprEqn | None, list[bool], list[Var]]:
    """Split one checkpoint equation into a known checkpoint (outputs and residuals) and a
    differentiated one that recomputes from the residuals."""
    params = eqn.params
    prevent_cse: PreventCSE = params["prevent_cse"]
    split = split_checkpoint_jaxpr(params["jaxpr"], unks_in, params["policy"])
    ins_known = [x for x, u in zip(eqn.inputs, unks_in, strict=True) if not u]
    res_avals = split.unknown.in_avals[: split.num_res]
    computed = [Var(a) for a, src in zip(res_avals, split.res_sources, strict=True) if src is None]
    res_atoms = split.residuals(ins_known, computed)
    outs_known = [v for v, u in zip(eqn.out_binders, split.out_unknowns, strict=True) if not u]
    outs_unknown = [v for v, u in zip(eqn.out_binders, split.out_unknowns, strict=True) if u]
    ins_unknown = [x for x, u in zip(eqn.inputs, unks_in, strict=True) if u]
    cse_known = _cse_for(prevent_cse, [not u for u in unks_in], 0)
    cse_unknown = _staged_cse(prevent_cse, unks_in, split.res_sources)
    eqn_known = JaxprEqn(
        checkpoint_p,
        ins_known,
        {**params, "jaxpr": split.known, "prevent_cse": cse_known},
        [*outs_known, *computed],
    )
    eqn_unknown = JaxprEqn(
        checkpoint_p,
        [*res_atoms, *ins_unknown],
        {**params, "jaxpr": split.unknown, "prevent_cse": cse_unknown, "differentiated": True},
        outs_unknown,
    )
    return (
        eqn_known if outs_known or computed else None,
        eqn_unknown if outs_unknown else None,
        split.out_unknowns,
        [r for r in res_atoms if type(r) is Var],
    )


partial_eval_jaxpr_rules[checkpoint_p] = _checkpoint_partial_eval_jaxpr


# --- transposition -------------------------------------------------------------------------------


def _checkpoint_transpose(
    cts: list[Any],
    *invals: object,
    jaxpr: ClosedJaxpr,
    prevent_cse: PreventCSE,
    differentiated: bool,
    policy: object,
) -> list[Any]:
    """One checkpoint of the transposed jaxpr: the non-linear (recomputed) part of ``jaxpr``
    runs inside it, in the backward pass."""
    linear = tuple(type(x) is UndefPrimal for x in invals)
    transposed = transpose_jaxpr(jaxpr, linear)
    residuals = [x for x in invals if type(x) is not UndefPrimal]
    outs = bind(
        checkpoint_p,
        *residuals,
        *(instantiate_zeros(ct) for ct in cts),
        jaxpr=transposed,
        prevent_cse=_cse_for(prevent_cse, [not lin for lin in linear], len(cts)),
        differentiated=differentiated,
        policy=policy,
    )
    outs_it = iter(outs)
    return [next(outs_it) if lin else None for lin in linear]


transpose_rules[checkpoint_p] = _checkpoint_transpose


# --- batching ------------------------------------------------------------------------------------


def _checkpoint_vmap(
    axis_size: int,
    vals_in: list[Any],
    dims_in: list[BatchDim],
    *,
    jaxpr: ClosedJaxpr,
    prevent_cse: PreventCSE,
    differentiated: bool,
    policy: object,
) -> tuple[list[Any], list[BatchDim]]:
    batched, dims_out = vmap_jaxpr(jaxpr, axis_size, dims_in)
    outs = bind(
        checkpoint_p,
        *vals_in,
        jaxpr=batched,
        prevent_cse=prevent_cse,
        differentiated=differentiated,
        policy=policy,
    )
    return outs, dims_out


vmap_rules[checkpoint_p] = _checkpoint_vmap


# --- lowering ------------------------------------------------------------------------------------


def _checkpoint_lowering(
    ctx: LoweringContext,
    avals_in: list[ShapedArray],
    avals_out: list[ShapedArray],
    in_vals: list[Value],
    *,
    jaxpr: ClosedJaxpr,
    prevent_cse: PreventCSE,
    differentiated: bool,
    policy: object,
) -> list[Value]:
    """Inline the jaxpr. A differentiated checkpoint (the recomputation in a backward pass)
    first passes its operands through an optimization barrier, so XLA cannot reuse the
    forward pass's values instead of recomputing (which would keep them alive)."""
    flags = [prevent_cse] * len(in_vals) if isinstance(prevent_cse, bool) else list(prevent_cse)
    args = list(in_vals)
    if differentiated and any(flags):
        idx = [i for i, f in enumerate(flags) if f]
        barrier = hlo.OptimizationBarrierOp([args[i] for i in idx])
        for i, r in zip(idx, barrier.results, strict=True):
            args[i] = r
    return ctx.lower_jaxpr(jaxpr, args)


lowering_rules[checkpoint_p] = _checkpoint_lowering


def _checkpoint_vma(ins: Sequence[Vma], params: dict[str, Any]) -> list[Vma]:
    return closed_vma(params["jaxpr"], ins)


vma_rules[checkpoint_p] = _checkpoint_vma
