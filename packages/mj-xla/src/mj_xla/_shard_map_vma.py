"""``shard_map``'s replication check: which mesh axes each value of the body may vary over.

JAX (``check_vma=True``, the default) types every value inside a ``shard_map`` body with its
*varying manual axes*: an argument varies over the mesh axes its in spec splits it along,
a closed-over constant over none, ``axis_index("x")`` over ``x``; most operations vary over
the union of their operands' axes; ``psum``/``pmax``/``pmin`` over ``x`` make a value
invariant along ``x``, while ``all_gather``, ``ppermute``, ``psum_scatter`` and
``all_to_all`` over ``x`` leave it varying along ``x``. An out spec that leaves a mesh axis
unmentioned claims the output is the same on every device along it; if the value may vary
there, JAX refuses the ``shard_map`` with the message :func:`check_out_specs` reproduces.
mj infers the same sets from the body's jaxpr, with one rule per primitive
(:data:`vma_rules`, which higher layers fill for their own primitives: mj-control's cond,
loops and remat); a primitive with no rule varies over its operands' axes and every axis a
collective inside its sub-jaxprs names.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from mj_autodiff.extend import custom_jvp_call_p, custom_vjp_call_p
from mj_core import RuleTable
from mj_core.extend import names_of
from mj_core.prims.parallel import (
    all_gather_p,
    all_to_all_p,
    axis_index_p,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_p,
    reduce_scatter_p,
)
from mj_core.tree_util import PyTreeDef, keystr, tree_map_with_path
from mj_ir import ClosedJaxpr, Jaxpr, Lit
from mj_xla._sharding import Mesh, PartitionSpec, broadcast_prefix
from mj_xla._xla_call import xla_call_p

__all__ = ["Vma", "check_out_specs", "closed_vma", "jaxpr_vma", "spec_vma", "vma_rules"]

Vma = frozenset[Hashable]
VmaRule = Callable[[Sequence[Vma], dict[str, Any]], list[Vma]]

_NONE: Vma = frozenset()


def spec_vma(spec: PartitionSpec) -> Vma:
    """The mesh axes a value laid out by ``spec`` varies over: those it splits along."""
    return frozenset(a for d in range(len(spec)) for a in spec.axes_of(d))


def jaxpr_vma(jaxpr: Jaxpr, in_vma: Sequence[Vma]) -> list[Vma]:
    """The varying axes of ``jaxpr``'s outputs, given those of its inputs (every binder,
    constants included)."""
    env: dict[Any, Vma] = dict(zip(jaxpr.in_binders, in_vma, strict=True))

    def read(x: Any) -> Vma:
        return _NONE if isinstance(x, Lit) else env[x]

    for eqn in jaxpr.eqns:
        ins = [read(x) for x in eqn.inputs]
        rule = vma_rules.get(eqn.primitive)
        if rule is not None:
            outs = rule(ins, eqn.params)
        else:
            outs = [_union(ins) | _axes_inside(eqn.params)] * len(eqn.out_binders)
        env.update(zip(eqn.out_binders, outs, strict=True))
    return [read(x) for x in jaxpr.outs]


def closed_vma(jaxpr: ClosedJaxpr, in_vma: Sequence[Vma]) -> list[Vma]:
    """:func:`jaxpr_vma` of a closed jaxpr (its constants vary over no axis)."""
    return jaxpr_vma(jaxpr.jaxpr, [*[_NONE] * len(jaxpr.consts), *in_vma])


def _union(vmas: Sequence[Vma]) -> Vma:
    return frozenset().union(*vmas)


def _axes_inside(params: dict[str, Any]) -> Vma:
    """Every axis a collective inside the params' jaxprs names: what an operation whose
    body mj has no rule for may vary over beyond its operands (an over-approximation)."""
    found: set[Hashable] = set()

    def walk(x: Any) -> None:
        if isinstance(x, ClosedJaxpr):
            walk(x.jaxpr)
        elif isinstance(x, Jaxpr):
            for eqn in x.eqns:
                if "axis_name" in eqn.params:
                    found.update(names_of(eqn.params["axis_name"]))
                for v in eqn.params.values():
                    walk(v)
        elif isinstance(x, tuple | list):
            for v in x:
                walk(v)

    for v in params.values():
        walk(v)
    return frozenset(found)


vma_rules: RuleTable[VmaRule] = RuleTable(
    "vma_rules",
    "shard_map varying-axes",
    "mj_xla.extend",
    default="each output varies over the union of the inputs' axes and of every axis a "
    "collective in its params' jaxprs names",
)


def _invariant_over_axes(ins: Sequence[Vma], params: dict[str, Any]) -> list[Vma]:
    axes = set(names_of(params["axis_name"]))
    return [m - axes for m in ins]


def _psum(ins: Sequence[Vma], params: dict[str, Any]) -> list[Vma]:
    if "axis_index_groups" in params:
        # JAX's psum_invariant (what psum binds under check_vma) has no grouped form
        raise NotImplementedError(
            "psum: axis_index_groups inside shard_map needs check_vma=False (as in JAX, "
            "where the replication-checked psum does not take groups)"
        )
    return _invariant_over_axes(ins, params)


def _varying_over_axes(ins: Sequence[Vma], params: dict[str, Any]) -> list[Vma]:
    axes = frozenset(names_of(params["axis_name"]))
    return [m | axes for m in ins]


vma_rules[psum_p] = _psum
vma_rules[pmax_p] = _invariant_over_axes
vma_rules[pmin_p] = _invariant_over_axes
for _prim in (all_gather_p, reduce_scatter_p, all_to_all_p, ppermute_p):
    vma_rules[_prim] = _varying_over_axes
vma_rules[axis_index_p] = lambda ins, params: [frozenset(names_of(params["axis_name"]))]


def _call(key: str) -> VmaRule:
    """A call-like primitive: its body, on its operands."""

    def rule(ins: Sequence[Vma], params: dict[str, Any]) -> list[Vma]:
        return closed_vma(params[key], ins)

    return rule


vma_rules[xla_call_p] = _call("jaxpr")
vma_rules[custom_jvp_call_p] = _call("call_jaxpr")
vma_rules[custom_vjp_call_p] = _call("call_jaxpr")


# --- the check and JAX's message -----------------------------------------------------------


def _ordered(mesh: Mesh, axes: Any) -> str:
    return ",".join(str(a) for a in mesh.axis_names if a in axes)


def _unmentioned(mesh: Mesh, spec: PartitionSpec) -> list[Hashable]:
    used = spec_vma(spec)
    return [a for a in mesh.axis_names if a not in used]


def check_out_specs(
    fun_name: str,
    mesh: Mesh,
    out_specs: Any,
    out_tree: PyTreeDef,
    flat_specs: Sequence[PartitionSpec],
    out_vma: Sequence[Vma],
) -> None:
    """Refuse, with JAX's message, out specs that call an output replicated along a mesh
    axis its value may vary over."""
    # as JAX, an output first varies over the axes its spec splits it along too
    out_vma = [vma | spec_vma(spec) for spec, vma in zip(flat_specs, out_vma, strict=True)]
    fails = [
        any(a in vma for a in _unmentioned(mesh, spec))
        for spec, vma in zip(flat_specs, out_vma, strict=True)
    ]
    if not any(fails):
        return
    paths = _spec_paths(out_specs, out_tree)
    msgs = []
    for path, spec, vma, fail in zip(paths, flat_specs, out_vma, fails, strict=True):
        if not fail:
            continue
        unmentioned = _unmentioned(mesh, spec)
        if len(unmentioned) > 1:
            diff = [a for a in unmentioned if a in vma]
            msgs.append(
                f"* out_specs{path} is {spec} which implies that the corresponding output "
                f"value is only varying across mesh axes {{{_ordered(mesh, spec_vma(spec))}}} "
                f"and not {{{_ordered(mesh, diff)}}}, but it was inferred to be possibly "
                f"varying over {{{_ordered(mesh, vma)}}}"
            )
        else:
            msgs.append(
                f"* out_specs{path} is {spec} which implies that the corresponding output "
                f"value is replicated across mesh axis '{unmentioned[0]}', but could not "
                "infer replication over any axes"
            )
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    raise ValueError(
        f"shard_map applied to the function '{fun_name}' was given out_specs which require "
        "replication which can't be statically inferred given the mesh:\n\n"
        f"The mesh given has shape {tuple(mesh.shape.values())} with corresponding axis "
        f"names {mesh.axis_names}.\n\n"
        + "\n\n".join(msgs)
        + "\n\nCheck if these output values are meant to be replicated over those mesh axes. "
        "If not, consider revising the corresponding out_specs entries. If so, consider "
        "disabling the check by passing the check_vma=False argument to `jax.shard_map`."
    )


class _SpecAt:
    """An out spec's place in ``out_specs``, broadcast over the outputs it covers."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path


def _spec_paths(out_specs: Any, out_tree: PyTreeDef) -> list[str]:
    """Per output leaf, the key path (as JAX prints it) of the out spec covering it."""
    marked = tree_map_with_path(lambda path, _: _SpecAt(keystr(path)), out_specs, is_leaf=_is_spec)
    at = broadcast_prefix(
        marked, out_tree, "shard_map out_specs", is_leaf=lambda x: isinstance(x, _SpecAt)
    )
    return [a.path for a in at]


def _is_spec(x: Any) -> bool:
    return x is None or isinstance(x, PartitionSpec)
