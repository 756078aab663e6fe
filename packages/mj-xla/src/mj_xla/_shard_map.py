"""``shard_map``: per-device code over a mesh, with collectives over the mesh's axis names.

``shard_map(f, mesh=, in_specs=, out_specs=)`` traces ``f`` once on one device's block of
each argument (the dimensions its ``PartitionSpec`` names divided by those mesh axes), with
every mesh axis in scope so ``psum(x, "x")`` & co. resolve. The ``shard_map`` primitive
carries that jaxpr; it lowers as JAX does, to an ``sdy.manual_computation`` over every mesh
axis whose body runs on each device's blocks with collectives grouping the mesh's partitions
(in a program GSPMD partitions: each operand constrained to its spec's layout, turned into
its block by ``@SPMDFullToShardShape``, and each result back to a global array by
``@SPMDShardToFullShape``).
Outside ``jit`` it compiles itself. Its JVP is a ``shard_map`` of the body's JVP (tangents
laid out as their primals). With ``check_vma`` (the default) an out spec calling an output
replicated along an axis its value may vary over is refused (:mod:`mj_xla._shard_map_vma`).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from mj_autodiff.extend import (
    PartialEvalTrace,
    PartialEvalTracer,
    UndefPrimal,
    Zero,
    backward_pass,
    instantiate_zeros,
    jvp_jaxpr,
    jvp_rules,
    partial_eval_jaxpr,
    partial_eval_jaxpr_rules,
    partial_eval_rules,
    tangents_with_zeros,
    transpose_rules,
)
from mj_batch.extend import BatchDim, not_mapped, vmap_jaxpr, vmap_rules
from mj_core import Primitive, ShapedArray, bind, get_aval, impl_rules, raise_to_shaped
from mj_core import numpy as mnp
from mj_core.errors import user_line_suffix
from mj_core.extend import abstract_eval_rules, extend_axis_env
from mj_core.prims.parallel import psum
from mj_core.tree_util import tree_flatten, tree_unflatten
from mj_ir import ClosedJaxpr, JaxprEqn, Var, eval_jaxpr
from mj_ir.extend import trace_to_jaxpr
from mj_xla._executable import compile_jaxpr
from mj_xla._jaxlib import Value
from mj_xla._lowering import Avals, LoweringContext, Values, aval_to_ir_type, lowering_rules
from mj_xla._replicas import mesh_axes
from mj_xla._shard_map_vma import Vma, check_out_specs, jaxpr_vma, spec_vma
from mj_xla._sharding import Mesh, NamedSharding, PartitionSpec, broadcast_prefix
from mj_xla._sharding_constraint import sharding_custom_call
from mj_xla._shardy import manual_computation, tensor_sharding

__all__ = ["shard_map", "shard_map_p"]

shard_map_p = Primitive("shard_map", multiple_results=True)


def _parts(mesh: Mesh, spec: PartitionSpec, dim: int) -> int:
    return math.prod(mesh.shape[a] for a in spec.axes_of(dim))


def _local_aval(mesh: Mesh, spec: PartitionSpec, aval: ShapedArray, what: str) -> ShapedArray:
    """One device's block of a value of type ``aval`` laid out by ``spec``."""
    NamedSharding(mesh, spec).hlo_sharding(aval.ndim)  # names and rank checked
    shape = list(aval.shape)
    for d, n in enumerate(shape):
        parts = _parts(mesh, spec, d)
        if n % parts:
            raise ValueError(
                f"shard_map: {what} of shape {aval.shape} has spec {spec}, which splits its "
                f"dimension {d} (of size {n}) {parts} ways; the size must be divisible by "
                f"{parts}{user_line_suffix()}"
            )
        shape[d] = n // parts
    return ShapedArray(tuple(shape), aval.dtype, aval.weak_type)


def _global_aval(mesh: Mesh, spec: PartitionSpec, aval: ShapedArray) -> ShapedArray:
    shape = tuple(n * _parts(mesh, spec, d) for d, n in enumerate(aval.shape))
    return ShapedArray(shape, aval.dtype, aval.weak_type)


@contextmanager
def _mesh_in_scope(mesh: Mesh) -> Iterator[None]:
    with ExitStack() as stack:
        for name, size in mesh.shape.items():
            stack.enter_context(extend_axis_env(name, size, None))
        yield


def _is_spec(x: Any) -> bool:
    return x is None or isinstance(x, PartitionSpec)


def _specs(spec: Any, tree: Any, what: str) -> list[PartitionSpec]:
    flat = broadcast_prefix(spec, tree, what, is_leaf=_is_spec)
    return [PartitionSpec() if s is None else s for s in flat]


def shard_map(
    f: Callable[..., Any] | None = None,
    mesh: Mesh | None = None,
    in_specs: Any = None,
    out_specs: Any = None,
    check_rep: bool = True,
    *,
    check_vma: bool | None = None,
    axis_names: Any = None,
    auto: Any = None,
) -> Any:
    """Map ``f`` over the blocks of its arguments on ``mesh``'s devices.

    Arguments:
        f: a function of per-device blocks; collectives over the mesh's axis names
            (``lax.psum(x, "x")``) combine the devices along those axes.
        mesh: the :class:`~mj.sharding.Mesh`.
        in_specs: a ``PartitionSpec`` per argument (a pytree prefix of the arguments):
            dimension ``d`` of an argument is split over the mesh axes ``spec[d]``; an axis
            no dimension names gives every device along it the same block.
        out_specs: the same for the outputs: how the blocks ``f`` returns assemble.
        check_vma: check, as JAX does, that every output an out spec calls replicated
            along a mesh axis (by not naming it) is: a value that may differ between the
            devices along that axis (not ``psum``-med over it) is refused. ``check_rep`` is
            its older name (``mj.experimental.shard_map.shard_map``'s fourth argument).
        axis_names, auto: accepted for JAX compatibility.
    """
    if f is None:
        return lambda fun: shard_map(fun, mesh, in_specs, out_specs, check_rep, check_vma=check_vma)
    if not isinstance(mesh, Mesh):
        raise TypeError(f"shard_map: mesh must be a Mesh, got {type(mesh).__name__}")
    name = getattr(f, "__name__", "shmap_body")
    check = check_rep if check_vma is None else check_vma

    def wrapped(*args: Any) -> Any:
        flat, in_tree = tree_flatten(args)
        specs = _specs(in_specs, in_tree, "shard_map in_specs")
        avals = [raise_to_shaped(get_aval(x)) for x in flat]
        local = [
            _local_aval(mesh, s, a, f"argument {i}")
            for i, (s, a) in enumerate(zip(specs, avals, strict=True))
        ]
        out_trees = []

        def body(*xs: Any) -> list[Any]:
            out = f(*tree_unflatten(in_tree, list(xs)))
            leaves, tree = tree_flatten(out)
            out_trees.append(tree)
            return leaves

        with _mesh_in_scope(mesh):
            jaxpr, consts = trace_to_jaxpr(body, local)
        out_tree = out_trees[0]
        o_specs = _specs(out_specs, out_tree, "shard_map out_specs")
        if check:
            in_vma: list[Vma] = [frozenset()] * len(consts) + [spec_vma(s) for s in specs]
            out_vma = jaxpr_vma(jaxpr, in_vma)
            check_out_specs(name, mesh, out_specs, out_tree, o_specs, out_vma)
        # closed-over values enter as replicated operands (every device sees all of them)
        const_specs = [PartitionSpec()] * len(consts)
        outs = bind(
            shard_map_p,
            *consts,
            *flat,
            jaxpr=ClosedJaxpr(jaxpr, ()),
            mesh=mesh,
            in_specs=(*const_specs, *specs),
            out_specs=tuple(o_specs),
            name=name,
            check_rep=check,
        )
        return tree_unflatten(out_tree, outs)

    return wrapped


# --- rules -------------------------------------------------------------------------------------


def _abstract_eval(
    *avals: ShapedArray,
    jaxpr: ClosedJaxpr,
    mesh: Mesh,
    in_specs: tuple[PartitionSpec, ...],
    out_specs: tuple[PartitionSpec, ...],
    **params: Any,
) -> list[ShapedArray]:
    for i, (aval, spec, inner) in enumerate(zip(avals, in_specs, jaxpr.in_avals, strict=True)):
        block = _local_aval(mesh, spec, raise_to_shaped(aval), f"operand {i}")
        if block.shape != inner.shape or block.dtype != inner.dtype:
            raise TypeError(
                f"shard_map: operand {i} has blocks of type {block.str_short()} where the "
                f"body takes {inner.str_short()}"
            )
    return [_global_aval(mesh, s, a) for s, a in zip(out_specs, jaxpr.out_avals, strict=True)]


abstract_eval_rules[shard_map_p] = _abstract_eval

_MAX_EXECUTABLES = 64
_executables: OrderedDict[Hashable, tuple[Any, Any]] = OrderedDict()


def _impl(*args: Any, **params: Any) -> list[Any]:
    """Outside ``jit``: the one equation compiled as an SPMD program (cached by its body)."""
    jaxpr: ClosedJaxpr = params["jaxpr"]
    avals = tuple(raise_to_shaped(get_aval(x)) for x in args)
    key = (id(jaxpr), params["mesh"], params["in_specs"], params["out_specs"], avals)
    hit = _executables.get(key)
    if hit is None or hit[0] is not jaxpr:
        outer, consts = trace_to_jaxpr(lambda *xs: bind(shard_map_p, *xs, **params), avals)
        hit = (jaxpr, compile_jaxpr(outer, consts, params["name"]))
        _executables[key] = hit
        if len(_executables) > _MAX_EXECUTABLES:
            _executables.popitem(last=False)
    return list(hit[1].run(args))


impl_rules[shard_map_p] = _impl


def _lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    jaxpr: ClosedJaxpr,
    mesh: Mesh,
    in_specs: tuple[PartitionSpec, ...],
    out_specs: tuple[PartitionSpec, ...],
    **params: Any,
) -> list[Value]:
    if ctx.shardy is not None:
        return _shardy_lowering(ctx, avals_out, in_vals, jaxpr, mesh, in_specs, out_specs)
    manual = "{manual}"
    blocks = []
    for x, aval, block, spec in zip(in_vals, avals_in, jaxpr.in_avals, in_specs, strict=True):
        full = str(NamedSharding(mesh, spec).hlo_sharding(aval.ndim))
        x = sharding_custom_call(x, aval, full, "Sharding")
        blocks.append(sharding_custom_call(x, block, manual, "SPMDFullToShardShape"))
    with mesh_axes(mesh.axis_names, mesh.axis_sizes):
        outs = ctx.lower_jaxpr(jaxpr, blocks)
    results = []
    for y, aval, block, spec in zip(outs, avals_out, jaxpr.out_avals, out_specs, strict=True):
        y = sharding_custom_call(y, block, manual, "Sharding")
        full = str(NamedSharding(mesh, spec).hlo_sharding(aval.ndim))
        results.append(sharding_custom_call(y, aval, full, "SPMDShardToFullShape"))
    return results


def _shardy_lowering(
    ctx: LoweringContext,
    avals_out: Avals,
    in_vals: Values,
    jaxpr: ClosedJaxpr,
    mesh: Mesh,
    in_specs: tuple[PartitionSpec, ...],
    out_specs: tuple[PartitionSpec, ...],
) -> list[Value]:
    """An ``sdy.manual_computation`` over every mesh axis, the body lowered inside it."""
    devices = ctx.shardy.devices if ctx.shardy is not None else mesh.flat_devices

    def attrs(specs: Sequence[PartitionSpec], avals: Sequence[ShapedArray]) -> list[Any]:
        return [
            tensor_sharding(NamedSharding(mesh, s), a.ndim, devices)
            for s, a in zip(specs, avals, strict=True)
        ]

    def body(blocks: list[Value]) -> list[Value]:
        with mesh_axes(mesh.axis_names, mesh.axis_sizes):
            return ctx.lower_jaxpr(jaxpr, blocks)

    return manual_computation(
        in_vals,
        attrs(in_specs, jaxpr.in_avals),
        attrs(out_specs, avals_out),
        [aval_to_ir_type(a) for a in avals_out],
        [aval_to_ir_type(a) for a in jaxpr.in_avals],
        mesh.axis_names,
        body,
    )


lowering_rules[shard_map_p] = _lowering


def _jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    """One shard_map of the body's JVP; each tangent is laid out as its primal."""
    jaxpr: ClosedJaxpr = params["jaxpr"]
    nonzeros = tuple(type(t) is not Zero for t in tangents)
    with _mesh_in_scope(params["mesh"]):
        new_jaxpr, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros, False)
    in_specs = params["in_specs"]
    out_specs = params["out_specs"]
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    nz_specs = [s for s, nz in zip(in_specs, nonzeros, strict=True) if nz]
    nz_out_specs = [s for s, nz in zip(out_specs, out_nonzeros, strict=True) if nz]
    outs = bind(
        shard_map_p,
        *primals,
        *nz_tangents,
        **{
            **params,
            "jaxpr": new_jaxpr,
            "in_specs": (*in_specs, *nz_specs),
            "out_specs": (*out_specs, *nz_out_specs),
        },
    )
    n_out = len(out_nonzeros)
    mesh = params["mesh"]
    out_avals = [_global_aval(mesh, s, a) for s, a in zip(out_specs, jaxpr.out_avals, strict=True)]
    return outs[:n_out], tangents_with_zeros(outs[n_out:], out_avals, out_nonzeros)


jvp_rules[shard_map_p] = _jvp


def _vmap(
    axis_size: int, vals_in: Sequence[Any], dims_in: Sequence[BatchDim], **params: Any
) -> tuple[list[Any], list[BatchDim]]:
    """One shard_map of the batched body, as JAX's rule: the batch axis leads every batched
    operand and every output, and is not split over the mesh (each device holds the whole
    batch of its blocks)."""
    mesh: Mesh = params["mesh"]
    batched = [d is not not_mapped for d in dims_in]
    vals = [
        mnp.moveaxis(v, d, 0) if b and d != 0 else v  # type: ignore[arg-type]
        for v, d, b in zip(vals_in, dims_in, batched, strict=True)
    ]
    with _mesh_in_scope(mesh):
        new_jaxpr, _ = vmap_jaxpr(
            params["jaxpr"],
            axis_size,
            [0 if b else not_mapped for b in batched],
            instantiate=True,
        )
    outs = bind(
        shard_map_p,
        *vals,
        **{
            **params,
            "jaxpr": new_jaxpr,
            "in_specs": tuple(
                PartitionSpec(None, *s) if b else s
                for s, b in zip(params["in_specs"], batched, strict=True)
            ),
            "out_specs": tuple(PartitionSpec(None, *s) for s in params["out_specs"]),
        },
    )
    return list(outs), [0] * len(outs)


vmap_rules[shard_map_p] = _vmap


# --- reverse mode: split into a known and an unknown shard_map, transpose the unknown one -----


def _with_block_axis(jaxpr: ClosedJaxpr, mesh: Mesh, n_res: int, where: str) -> ClosedJaxpr:
    """``jaxpr`` with its residuals (the last ``n_res`` outputs, or the first ``n_res``
    inputs) carrying a leading block axis of size one: every device's residual then
    assembles into one global array split over all mesh axes."""
    avals = list(jaxpr.in_avals)
    if where == "in":
        avals[:n_res] = [ShapedArray((1, *a.shape), a.dtype, a.weak_type) for a in avals[:n_res]]

    def body(*xs: Any) -> list[Any]:
        ins = list(xs)
        if where == "in":
            ins[:n_res] = [mnp.squeeze(r, 0) for r in ins[:n_res]]
        outs = eval_jaxpr(jaxpr.jaxpr, [*jaxpr.consts, *ins])
        if where == "out" and n_res:
            outs[-n_res:] = [mnp.expand_dims(r, 0) for r in outs[-n_res:]]
        return list(outs)

    with _mesh_in_scope(mesh):
        new, consts = trace_to_jaxpr(body, avals)
    return ClosedJaxpr(new, tuple(consts))


def _split(
    params: dict[str, Any], unknowns: tuple[bool, ...]
) -> tuple[dict[str, Any], dict[str, Any], list[bool], list[ShapedArray]]:
    """The params of the known shard_map (returning its residuals too, each split over
    every mesh axis) and of the unknown one (taking them first), which outputs are unknown,
    and the residuals' global avals."""
    mesh: Mesh = params["mesh"]
    with _mesh_in_scope(mesh):
        known, unknown, out_unknowns, num_res = partial_eval_jaxpr(params["jaxpr"], unknowns)
    known = _with_block_axis(known, mesh, num_res, "out")
    unknown = _with_block_axis(unknown, mesh, num_res, "in")
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    res_spec = PartitionSpec(mesh.axis_names)
    known_out_specs = tuple(s for s, u in zip(out_specs, out_unknowns, strict=True) if not u)
    known_params = {
        **params,
        "jaxpr": known,
        "in_specs": tuple(s for s, u in zip(in_specs, unknowns, strict=True) if not u),
        "out_specs": (*known_out_specs, *(res_spec,) * num_res),
    }
    unknown_params = {
        **params,
        "jaxpr": unknown,
        "in_specs": (
            *(res_spec,) * num_res,
            *(s for s, u in zip(in_specs, unknowns, strict=True) if u),
        ),
        "out_specs": tuple(s for s, u in zip(out_specs, out_unknowns, strict=True) if u),
    }
    res_avals = [_global_aval(mesh, res_spec, a) for a in unknown.in_avals[:num_res]]
    return known_params, unknown_params, out_unknowns, res_avals


def _partial_eval(
    trace: PartialEvalTrace, tracers: Sequence[PartialEvalTracer], **params: Any
) -> list[Any]:
    """Run the known part now (a shard_map returning its residuals too), stage the unknown
    part as a shard_map taking them."""
    unknowns = tuple(not t.is_known for t in tracers)
    known_params, unknown_params, out_unknowns, res_avals = _split(params, unknowns)
    outs_res = bind(shard_map_p, *(t.const for t in tracers if t.is_known), **known_params)
    n_known = len(outs_res) - len(res_avals)
    outs_known, residuals = outs_res[:n_known], outs_res[n_known:]
    ins = [trace.pure(r) for r in residuals] + [t for t in tracers if not t.is_known]
    mesh, jaxpr = unknown_params["mesh"], unknown_params["jaxpr"]
    specs = unknown_params["out_specs"]
    out_avals = [_global_aval(mesh, s, a) for s, a in zip(specs, jaxpr.out_avals, strict=True)]
    outs_unknown = trace.new_eqn_tracers(shard_map_p, ins, unknown_params, out_avals)
    known_iter, unknown_iter = iter(outs_known), iter(outs_unknown)
    return [next(unknown_iter) if unk else next(known_iter) for unk in out_unknowns]


partial_eval_rules[shard_map_p] = _partial_eval


def _partial_eval_jaxpr(
    unks_in: Sequence[bool], eqn: JaxprEqn
) -> tuple[JaxprEqn, JaxprEqn, list[bool], list[Var]]:
    """Split one shard_map equation (inside a jitted jaxpr) into a known and an unknown
    shard_map equation, as :func:`_partial_eval` does at trace level."""
    known_params, unknown_params, out_unknowns, res_avals = _split(eqn.params, tuple(unks_in))
    residuals = [Var(a) for a in res_avals]
    ins_known = [x for x, u in zip(eqn.inputs, unks_in, strict=True) if not u]
    ins_unknown = [x for x, u in zip(eqn.inputs, unks_in, strict=True) if u]
    outs_known = [v for v, u in zip(eqn.out_binders, out_unknowns, strict=True) if not u]
    outs_unknown = [v for v, u in zip(eqn.out_binders, out_unknowns, strict=True) if u]
    eqn_known = JaxprEqn(shard_map_p, ins_known, known_params, [*outs_known, *residuals])
    eqn_unknown = JaxprEqn(shard_map_p, [*residuals, *ins_unknown], unknown_params, outs_unknown)
    return eqn_known, eqn_unknown, list(out_unknowns), residuals


partial_eval_jaxpr_rules[shard_map_p] = _partial_eval_jaxpr


def _unmentioned(mesh: Mesh, spec: PartitionSpec) -> tuple[str, ...]:
    """The mesh axes along which values laid out by ``spec`` are replicated."""
    used = {a for d in range(len(spec)) for a in spec.axes_of(d)}
    return tuple(a for a in mesh.axis_names if a not in used)


def _transpose(cts: Sequence[Any], *invals: Any, **params: Any) -> list[Any]:
    """One shard_map of the transposed body. A replicated output's cotangent is shared
    evenly among its replicas, and a replicated input's is summed over them (``psum``), so
    the pair stays each other's transpose."""
    mesh: Mesh = params["mesh"]
    jaxpr: ClosedJaxpr = params["jaxpr"]
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    linear = tuple(type(x) is UndefPrimal for x in invals)
    n_res = len(invals) - sum(linear)
    lin_specs = [s for s, lin in zip(in_specs, linear, strict=True) if lin]

    def body(*xs: Any) -> list[Any]:
        res, ct_blocks = list(xs[:n_res]), xs[n_res:]
        shared = []
        for ct, spec in zip(ct_blocks, out_specs, strict=True):
            replicas = math.prod(mesh.shape[a] for a in _unmentioned(mesh, spec))
            shared.append(ct / replicas if replicas > 1 else ct)
        res_iter = iter(res)
        args = [
            UndefPrimal(a) if lin else next(res_iter)
            for a, lin in zip(jaxpr.in_avals, linear, strict=True)
        ]
        in_cts = backward_pass(jaxpr.jaxpr, [*jaxpr.consts, *args], shared)
        outs = []
        for ct, spec in zip(in_cts, lin_specs, strict=True):
            ct = instantiate_zeros(ct)
            axes = _unmentioned(mesh, spec)
            outs.append(psum(ct, axes) if axes else ct)
        return outs

    res_avals = [a for a, lin in zip(jaxpr.in_avals, linear, strict=True) if not lin]
    with _mesh_in_scope(mesh):
        transposed, consts = trace_to_jaxpr(body, [*res_avals, *jaxpr.out_avals])
    residuals = [x for x, lin in zip(invals, linear, strict=True) if not lin]
    res_specs = [s for s, lin in zip(in_specs, linear, strict=True) if not lin]
    outs = bind(
        shard_map_p,
        *residuals,
        *(instantiate_zeros(ct) for ct in cts),
        **{
            **params,
            "jaxpr": ClosedJaxpr(transposed, tuple(consts)),
            "in_specs": (*res_specs, *out_specs),
            "out_specs": tuple(lin_specs),
        },
    )
    outs_iter = iter(outs)
    return [next(outs_iter) if lin else None for lin in linear]


transpose_rules[shard_map_p] = _transpose
