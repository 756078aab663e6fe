"""The ``xla_pmap`` primitive: a ``pmap`` call under a transformation.

Operands: the hoisted constants and the flattened arguments, mapped ones with the mapped
axis first (``mapped_invars`` says which); params as JAX's (``axis_name``, ``axis_size``,
``call_jaxpr``, ``devices``, ``mapped_invars``, ``name``, ...), printed as in JAX's
"Understanding jaxprs" (seed 004); every output is mapped, along axis 0. Its rules transform
the carried per-device jaxpr with the pmap axis in scope (its collectives are traced again):
jvp, vmap, partial evaluation and transpose, so ``grad(pmap(f))`` and ``vmap(pmap(f))`` work.
Its impl (:mod:`mj_xla._pmap_spmd`) runs the jaxpr as one SPMD program over the devices;
inside a compiled program (``jit``, or a nested ``pmap``) the lowering splits the program's
replicas along the new axis.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any

import numpy as np

from mj_autodiff.extend import (
    PartialEvalTrace,
    PartialEvalTracer,
    UndefPrimal,
    Zero,
    instantiate_zeros,
    jvp_jaxpr,
    jvp_rules,
    partial_eval_jaxpr,
    partial_eval_jaxpr_rules,
    partial_eval_rules,
    tangents_with_zeros,
    transpose_jaxpr,
    transpose_rules,
)
from mj_batch.extend import BatchDim, move_batch_axis, vmap_jaxpr, vmap_rules
from mj_core import lax
from mj_core.extend import (
    Primitive,
    ShapedArray,
    abstract_eval_rules,
    bind,
    extend_axis_env,
    raise_to_shaped,
)
from mj_ir import ClosedJaxpr, Jaxpr, JaxprEqn, Var
from mj_xla import _jaxlib
from mj_xla._identity_cache import IdentityCache
from mj_xla._jaxlib import Value, hlo
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    aval_to_ir_type,
    ir_constant,
    lowering_rules,
)
from mj_xla._pmap_executable import stacked
from mj_xla._replicas import in_mesh, replica_axis, replica_groups, replica_index

__all__ = [
    "names_devices",
    "nested_devices_error",
    "nested_replicas",
    "pmap_devices",
    "replicas_of",
    "xla_pmap_p",
]

xla_pmap_p = Primitive("xla_pmap", multiple_results=True)


def _xla_pmap_abstract_eval(
    *in_avals: ShapedArray,
    axis_name: Hashable,
    axis_size: int,
    call_jaxpr: ClosedJaxpr,
    mapped_invars: tuple[bool, ...],
    **params: Any,
) -> list[ShapedArray]:
    for aval, inner, mapped in zip(in_avals, call_jaxpr.in_avals, mapped_invars, strict=True):
        want = stacked(axis_size, inner) if mapped else inner
        got = raise_to_shaped(aval)
        if got.shape != want.shape or got.dtype != want.dtype:
            raise TypeError(
                f"xla_pmap: an operand of type {got.str_short()} where the mapped function "
                f"takes {want.str_short()}"
            )
    return [stacked(axis_size, a) for a in call_jaxpr.out_avals]


abstract_eval_rules[xla_pmap_p] = _xla_pmap_abstract_eval


_replica_counts: IdentityCache[int] = IdentityCache(256)


def nested_replicas(call_jaxpr: ClosedJaxpr) -> int:
    """:func:`replicas_of` the body, cached by its identity: a pmap call pays a dict lookup,
    not a walk of the jaxpr."""
    return _replica_counts.get(call_jaxpr, lambda: replicas_of(call_jaxpr.jaxpr))


def replicas_of(jaxpr: Jaxpr) -> int:
    """How many replicas a program computing ``jaxpr`` runs as: the product of the sizes
    of the pmaps nested in it (1 without any). Every pmap in one program must take the same
    number."""
    counts: set[int] = set()
    for eqn in jaxpr.eqns:
        if eqn.primitive is xla_pmap_p:
            body: ClosedJaxpr = eqn.params["call_jaxpr"]
            counts.add(eqn.params["axis_size"] * replicas_of(body.jaxpr))
            continue
        for value in eqn.params.values():
            for sub in value if isinstance(value, tuple | list) else (value,):
                if isinstance(sub, ClosedJaxpr | Jaxpr):
                    counts.add(replicas_of(sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub))
    counts.discard(1)
    if len(counts) > 1:
        raise NotImplementedError(
            f"pmaps of different total sizes {sorted(counts)} in one compiled program (a jit "
            "or an enclosing pmap) are not supported: give them the same size."
        )
    return counts.pop() if counts else 1


def _outer_pmaps(jaxpr: Jaxpr) -> Iterator[JaxprEqn]:
    """The pmap equations of ``jaxpr`` and of its sub-jaxprs, not those nested in a pmap."""
    for eqn in jaxpr.eqns:
        if eqn.primitive is xla_pmap_p:
            yield eqn
            continue
        for value in eqn.params.values():
            for sub in value if isinstance(value, tuple | list) else (value,):
                if isinstance(sub, ClosedJaxpr | Jaxpr):
                    yield from _outer_pmaps(sub.jaxpr if isinstance(sub, ClosedJaxpr) else sub)


def names_devices(jaxpr: Jaxpr) -> bool:
    """Whether a pmap in ``jaxpr`` (at any depth) names its ``devices``."""
    for eqn in _outer_pmaps(jaxpr):
        if eqn.params["devices"] is not None or names_devices(eqn.params["call_jaxpr"].jaxpr):
            return True
    return False


def nested_devices_error(name: str) -> NotImplementedError:
    """The refusal of a pmap naming ``devices`` nested in another pmap, or around one."""
    return NotImplementedError(
        f"pmap ({name}): a pmap nested in another needs devices=None (JAX 0.10.2 refuses "
        "nested pmaps)."
    )


def _device_ids(devices: Sequence[Any]) -> str:
    return f"device ids {[d.id for d in devices]} on platform {devices[0].platform.upper()}"


def pmap_devices(jaxpr: Jaxpr) -> tuple[Any, ...] | None:
    """The devices a compiled program holding ``jaxpr``'s pmaps runs on when one of them
    names its ``devices`` (as JAX's ``jit(pmap(f, devices=...))``): those devices; ``None``
    when none does (the program takes the default ones). A pmap without ``devices`` takes the
    first ones of ``mj.devices()``: all must agree, else JAX's ``ValueError``."""
    pmaps = list(_outer_pmaps(jaxpr))
    for eqn in pmaps:
        body = eqn.params["call_jaxpr"]
        if names_devices(body.jaxpr) or (
            eqn.params["devices"] is not None and nested_replicas(body) > 1
        ):
            raise nested_devices_error(eqn.params["name"])
    if all(eqn.params["devices"] is None for eqn in pmaps):
        return None
    placed: list[tuple[str, tuple[Any, ...]]] = []
    for eqn in pmaps:
        devices = eqn.params["devices"]
        if devices is None:
            devices = _jaxlib.local_devices()[: eqn.params["axis_size"]]
        placed.append((eqn.params["name"], tuple(devices)))
    first_name, first = placed[0]
    for name, devices in placed[1:]:
        if devices != first:
            raise ValueError(
                "Received incompatible devices for jitted computation. Got pmap "
                f"({first_name}) inside jit with {_device_ids(first)} and pmap ({name}) inside "
                f"jit with {_device_ids(devices)}."
            )
    return first


def _xla_pmap_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    axis_name: Hashable,
    axis_size: int,
    call_jaxpr: ClosedJaxpr,
    devices: Any,
    mapped_invars: tuple[bool, ...],
    name: str,
    **params: Any,
) -> list[Value]:
    """A pmap inside a compiled program (``jit``, or another pmap): the program's replicas
    are split ``axis_size`` ways along the pmap's axis; each takes its slice of the mapped
    operands, computes the body, and an ``all_gather`` over the axis restacks the outputs,
    as JAX lowered a nested ``xla_pmap`` (its replica count is :func:`replicas_of`)."""
    if devices is not None and nested_replicas(call_jaxpr) > 1:
        raise nested_devices_error(name)
    if in_mesh():
        raise NotImplementedError(f"pmap ({name}) inside shard_map is not supported.")
    axis = axis_name if axis_name is not None else object()
    i32 = np.dtype(np.int32)
    with replica_axis(axis, axis_size, replicas_of(call_jaxpr.jaxpr)):
        index = replica_index("xla_pmap", axis)
        args = []
        for x, inner, mapped in zip(in_vals, call_jaxpr.in_avals, mapped_invars, strict=True):
            if mapped:
                starts = [index, *(ir_constant(np.zeros((), i32)) for _ in inner.shape)]
                x = hlo.dynamic_slice(x, starts, [1, *inner.shape])
                x = hlo.reshape(aval_to_ir_type(inner), x)
            args.append(x)
        outs = ctx.lower_jaxpr(call_jaxpr, args)
        groups = replica_groups("xla_pmap", axis)
        results = []
        for y, aval, out in zip(outs, call_jaxpr.out_avals, avals_out, strict=True):
            one = hlo.reshape(aval_to_ir_type(stacked(1, aval)), y)
            results.append(hlo.AllGatherOp([aval_to_ir_type(out)], [one], 0, groups).results[0])
    return results


lowering_rules[xla_pmap_p] = _xla_pmap_lowering


# --- transformations of the carried jaxpr, with the pmap axis in scope ------------------------

_MAX_TRANSFORM_CACHE = 256
_transform_cache: OrderedDict[Hashable, tuple[ClosedJaxpr, Any]] = OrderedDict()


def _transformed(
    kind: str, params: dict[str, Any], flags: Hashable, make: Callable[[], Any]
) -> Any:
    """``make()`` run with the pmap axis bound (its collectives are traced again), cached by
    (jaxpr identity, flags): a stable identity for the result keeps its executable cached."""
    jaxpr: ClosedJaxpr = params["call_jaxpr"]
    key = (kind, id(jaxpr), params["axis_name"], params["axis_size"], flags)
    hit = _transform_cache.get(key)
    if hit is not None and hit[0] is jaxpr:
        _transform_cache.move_to_end(key)
        return hit[1]
    with extend_axis_env(params["axis_name"], params["axis_size"], None):
        result = make()
    _transform_cache[key] = (jaxpr, result)
    if len(_transform_cache) > _MAX_TRANSFORM_CACHE:
        _transform_cache.popitem(last=False)
    return result


def _with(params: dict[str, Any], **updates: Any) -> dict[str, Any]:
    return {**params, **updates}


def _xla_pmap_jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    """One xla_pmap of the JVP jaxpr; a tangent is mapped as its primal is."""
    jaxpr: ClosedJaxpr = params["call_jaxpr"]
    nonzeros = tuple(type(t) is not Zero for t in tangents)
    new_jaxpr, out_nonzeros = _transformed(
        "jvp", params, nonzeros, lambda: jvp_jaxpr(jaxpr, nonzeros, False)
    )
    mapped = params["mapped_invars"]
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    nz_mapped = [m for m, nz in zip(mapped, nonzeros, strict=True) if nz]
    outs = bind(
        xla_pmap_p,
        *primals,
        *nz_tangents,
        **_with(params, call_jaxpr=new_jaxpr, mapped_invars=(*mapped, *nz_mapped)),
    )
    n_out = len(out_nonzeros)
    out_avals = [stacked(params["axis_size"], a) for a in jaxpr.out_avals]
    return outs[:n_out], tangents_with_zeros(outs[n_out:], out_avals, out_nonzeros)


jvp_rules[xla_pmap_p] = _xla_pmap_jvp


def _xla_pmap_vmap(
    batch_size: int, vals_in: Sequence[Any], dims_in: Sequence[BatchDim], /, **params: Any
) -> tuple[list[Any], list[BatchDim]]:
    """One xla_pmap of the batched jaxpr: a mapped operand keeps the pmap axis first and its
    batch axis right after it (the body sees it at ``dim - 1``)."""
    vals: list[Any] = []
    body_dims: list[BatchDim] = []
    for x, d, m in zip(vals_in, dims_in, params["mapped_invars"], strict=True):
        if m and isinstance(d, int):
            if d == 0:
                x, d = move_batch_axis(batch_size, 0, 1, x), 1
            d -= 1
        vals.append(x)
        body_dims.append(d)
    flags = (batch_size, tuple(body_dims))
    new_jaxpr, out_dims = _transformed(
        "vmap",
        params,
        flags,
        lambda: vmap_jaxpr(params["call_jaxpr"], batch_size, body_dims),
    )
    outs = bind(xla_pmap_p, *vals, **_with(params, call_jaxpr=new_jaxpr))
    return outs, [d + 1 if isinstance(d, int) else d for d in out_dims]


vmap_rules[xla_pmap_p] = _xla_pmap_vmap


def _split(params: dict[str, Any], unknowns: tuple[bool, ...]) -> Any:
    return _transformed(
        "partial_eval",
        params,
        unknowns,
        lambda: partial_eval_jaxpr(params["call_jaxpr"], unknowns),
    )


def _xla_pmap_partial_eval(
    trace: PartialEvalTrace, tracers: Sequence[PartialEvalTracer], **params: Any
) -> list[Any]:
    """Run the known part now (one xla_pmap, its residuals mapped like every output), stage
    the unknown part as another xla_pmap taking the residuals."""
    unknowns = tuple(not t.is_known for t in tracers)
    known, unknown, out_unknowns, num_res = _split(params, unknowns)
    mapped = params["mapped_invars"]
    known_vals = [t.const for t in tracers if t.is_known]
    known_mapped = tuple(m for m, u in zip(mapped, unknowns, strict=True) if not u)
    outs_res = bind(
        xla_pmap_p, *known_vals, **_with(params, call_jaxpr=known, mapped_invars=known_mapped)
    )
    n_known = len(outs_res) - num_res
    outs_known, residuals = outs_res[:n_known], outs_res[n_known:]
    ins = [trace.pure(r) for r in residuals] + [t for t in tracers if not t.is_known]
    unknown_mapped = (True,) * num_res + tuple(
        m for m, u in zip(mapped, unknowns, strict=True) if u
    )
    eqn_params = _with(params, call_jaxpr=unknown, mapped_invars=unknown_mapped)
    out_avals = [stacked(params["axis_size"], a) for a in unknown.out_avals]
    outs_unknown = trace.new_eqn_tracers(xla_pmap_p, ins, eqn_params, out_avals)
    known_iter, unknown_iter = iter(outs_known), iter(outs_unknown)
    return [next(unknown_iter) if unk else next(known_iter) for unk in out_unknowns]


partial_eval_rules[xla_pmap_p] = _xla_pmap_partial_eval


def _xla_pmap_partial_eval_jaxpr(
    unks_in: Sequence[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn, JaxprEqn, list[bool], list[Var]]:
    """Split one xla_pmap equation into a known and an unknown xla_pmap equation."""
    params = eqn.params
    known, unknown, unks_out, num_res = _split(params, tuple(unks_in))
    mapped = params["mapped_invars"]
    pairs = list(zip(eqn.inputs, mapped, unks_in, strict=True))
    residuals = [Var(stacked(params["axis_size"], a)) for a in unknown.in_avals[:num_res]]
    eqn_known = JaxprEqn(
        xla_pmap_p,
        [x for x, _, u in pairs if not u],
        _with(params, call_jaxpr=known, mapped_invars=tuple(m for _, m, u in pairs if not u)),
        [*(v for v, u in zip(eqn.out_binders, unks_out, strict=True) if not u), *residuals],
    )
    eqn_unknown = JaxprEqn(
        xla_pmap_p,
        [*residuals, *(x for x, _, u in pairs if u)],
        _with(
            params,
            call_jaxpr=unknown,
            mapped_invars=(True,) * num_res + tuple(m for _, m, u in pairs if u),
        ),
        [v for v, u in zip(eqn.out_binders, unks_out, strict=True) if u],
    )
    return eqn_known, eqn_unknown, list(unks_out), residuals


partial_eval_jaxpr_rules[xla_pmap_p] = _xla_pmap_partial_eval_jaxpr


def _xla_pmap_transpose(cts: Sequence[Any], *invals: Any, **params: Any) -> list[Any]:
    """One xla_pmap of the transposed jaxpr (cotangents are mapped, as every output is); an
    unmapped linear input's cotangent is the sum of every device's."""
    linear = tuple(type(x) is UndefPrimal for x in invals)
    transposed = _transformed(
        "transpose", params, linear, lambda: transpose_jaxpr(params["call_jaxpr"], linear)
    )
    mapped = params["mapped_invars"]
    residuals = [x for x, lin in zip(invals, linear, strict=True) if not lin]
    res_mapped = tuple(m for m, lin in zip(mapped, linear, strict=True) if not lin)
    cts_in = [instantiate_zeros(ct) for ct in cts]
    outs = bind(
        xla_pmap_p,
        *residuals,
        *cts_in,
        **_with(
            params,
            call_jaxpr=transposed,
            mapped_invars=(*res_mapped, *(True,) * len(cts_in)),
            name=f"transpose_{params['name']}",
        ),
    )
    outs_iter = iter(outs)
    result: list[Any] = []
    for lin, m in zip(linear, mapped, strict=True):
        if not lin:
            result.append(None)
            continue
        ct = next(outs_iter)
        result.append(ct if m else lax.reduce_sum(ct, (0,)))
    return result


transpose_rules[xla_pmap_p] = _xla_pmap_transpose
