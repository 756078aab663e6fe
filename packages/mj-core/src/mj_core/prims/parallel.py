"""Collectives over named axes: ``psum`` and friends, ``all_gather``, ``ppermute``, ...

A collective names the axis it acts over (``psum(x, "i")``); ``vmap(f, axis_name="i")`` or
``pmap(f, axis_name="i")`` binds the name (:mod:`mj_core._axis_env`). The primitives here
have no meaning on their own: under vmap, the batch trace that owns the axis computes them
from its batch dimension (mj-batch's rules); under pmap they are lowered to XLA collectives
across devices (mj-xla's rules). So :func:`bind_collective` hands them to the trace owning
their axis even when no operand is one of its tracers (``axis_index`` has no operand at all),
and their impl rule, reached only when a jaxpr is evaluated with constant operands, does the
same. A name bound nowhere is JAX's ``NameError``.

Params follow JAX's, with two differences: ``psum``/``pmax``/``pmin`` keep the user's
``axis_name`` (a name prints as seed 004's ``psum[axis_name=rows]``), and
``axis_index_groups`` is a param only when given. ``all_to_all_p`` is JAX's tiled primitive:
its wrapper adds and removes the split axis.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from mj_core._avals import ShapedArray, get_aval
from mj_core._axis_env import axis_frame, names_of
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error, shape_of
from mj_core._trace import EvalTrace, Tracer, find_top_trace, full_lower, full_raise
from mj_core._typing import Array, ArrayLike
from mj_core.dtypes import default_dtype_for_pytype
from mj_core.prims._operands import bind1
from mj_core.prims.conversions import convert_element_type_p
from mj_core.prims.elementwise import add_p, div_p, mul_p
from mj_core.prims.structural import reshape_p, squeeze_p, transpose_p
from mj_core.tree_util import tree_flatten, tree_map, tree_unflatten

__all__ = [
    "all_gather",
    "all_gather_p",
    "all_to_all",
    "all_to_all_p",
    "axis_index",
    "axis_index_p",
    "axis_size",
    "pmax",
    "pmax_p",
    "pmean",
    "pmin",
    "pmin_p",
    "ppermute",
    "ppermute_p",
    "pshuffle",
    "psum",
    "psum_p",
    "psum_scatter",
    "pswapaxes",
    "reduce_scatter_p",
]

AxisName = Hashable
Groups = tuple[tuple[int, ...], ...]

psum_p = Primitive("psum", multiple_results=True)
pmax_p = Primitive("pmax", multiple_results=True)
pmin_p = Primitive("pmin", multiple_results=True)
all_gather_p = Primitive("all_gather")
reduce_scatter_p = Primitive("reduce_scatter")
all_to_all_p = Primitive("all_to_all")
ppermute_p = Primitive("ppermute")
axis_index_p = Primitive("axis_index")

#: The primitives whose ``axis_name`` param names an axis: a batch trace hands them its own
#: axis (name and size) instead of its size alone, and binds them with
#: :func:`bind_collective`.
collective_prims: frozenset[Primitive] = frozenset(
    {
        psum_p,
        pmax_p,
        pmin_p,
        all_gather_p,
        reduce_scatter_p,
        all_to_all_p,
        ppermute_p,
        axis_index_p,
    }
)


# --- binding ----------------------------------------------------------------------------------


def bind_collective(prim: Primitive, *args: object, **params: object) -> list[Array]:
    """``bind`` for a collective: the trace handling it is the highest of the operands'
    traces, the dynamic trace and the traces owning its axes, so a vmap computes a collective
    over its own axis even when no operand is batched by it."""
    frames = [axis_frame(name) for name in names_of(params["axis_name"])]
    trace = find_top_trace(args)
    level = trace.main.level
    for frame in frames:
        if frame.main is not None and frame.main.level > level:
            trace, level = frame.main.trace, frame.main.level
    if type(trace) is EvalTrace:
        names = ", ".join(repr(f.name) for f in frames)
        raise NotImplementedError(
            f"{prim.name} over the pmap axis {names} can only run inside the compiled "
            "pmap computation, not evaluated op by op."
        )
    tracers = [full_raise(trace, a) for a in args]
    return [full_lower(out) for out in trace.process_primitive(prim, tracers, params)]


def _redispatching_impl(prim: Primitive) -> Any:
    """The impl rule of a collective: a jaxpr evaluated on constants reaches it; send the
    collective to the trace owning its axis."""

    def impl(*args: object, **params: object) -> list[Any]:
        return bind_collective(prim, *args, **params)

    impl.__name__ = f"_{prim.name}_impl"
    return impl


for _prim in collective_prims:
    impl_rules[_prim] = _redispatching_impl(_prim)


# --- shared checks ----------------------------------------------------------------------------


def _group_params(groups: Groups | None) -> dict[str, Any]:
    return {} if groups is None else {"axis_index_groups": groups}


def _canonical_groups(
    axis_name: AxisName | Sequence[AxisName],
    groups: Sequence[Sequence[int]] | None,
    *,
    even: bool = True,
) -> Groups | None:
    """``axis_index_groups`` as a tuple of tuples, checked as JAX checks it: groups that
    together hold every index of the axis once, all of one size unless ``even`` is false (the
    reductions: XLA's all-reduce takes groups of different sizes)."""
    if groups is None:
        return None
    canonical = tuple(tuple(int(i) for i in g) for g in groups)
    if even and len({len(g) for g in canonical}) != 1:
        raise ValueError("axis_index_groups must all be the same size")
    names = names_of(axis_name)
    if len(names) != 1:
        raise NotImplementedError("axis_index_groups only supported for one axis name")
    size = axis_frame(names[0]).size
    if sorted(i for g in canonical for i in g) != list(range(size)):
        raise ValueError(
            f"axis_index_groups must cover every index of axis {names[0]!r} (size {size}) "
            f"exactly once, got {canonical}"
        )
    return canonical


def _group_size(axis_name: AxisName | Sequence[AxisName], groups: Groups | None) -> int:
    if groups is not None:
        return len(groups[0])
    return axis_size(axis_name)


def _staged(axis_name: object) -> bool:
    """Whether every named axis is a pmap's (or shard_map's): a collective over them is one
    XLA collective over their devices, even for several names. Over a vmap axis, the
    gather-like collectives of several names are composed of one-name ones."""
    return all(axis_frame(name).main is None for name in names_of(axis_name))


def _dtype(x: ArrayLike) -> np.dtype[Any]:
    dtype = getattr(x, "dtype", None)
    return np.dtype(dtype) if dtype is not None else get_aval(x).dtype


def _param_name(axis_name: object) -> Any:
    """The ``axis_name`` param as printed: the name itself, or a tuple of several."""
    names = names_of(axis_name)
    return names[0] if len(names) == 1 else names


# --- psum, pmax, pmin, pmean ------------------------------------------------------------------


def axis_size(axis_name: AxisName | Sequence[AxisName]) -> int:
    """The size of the named axis (the product of the sizes, for several names)."""
    return math.prod(axis_frame(name).size for name in names_of(axis_name))


def psum(
    x: ArrayLike,
    axis_name: AxisName | Sequence[AxisName],
    *,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
) -> Any:
    """The sum of ``x`` (a pytree) over the named axis (or axes), as JAX's ``lax.psum``.

    Booleans are summed as int32. With ``axis_index_groups`` the sum runs within each group
    of axis indices (pmap only, as in JAX). Concrete (non-traced) leaves are summed at once:
    ``psum(1, "i")`` is the axis size as a number."""
    groups = _canonical_groups(axis_name, axis_index_groups, even=False)
    leaves, tree = tree_flatten(x)
    leaves = [
        _convert(leaf, np.dtype(np.int32)) if _dtype(leaf) == np.bool_ else leaf for leaf in leaves
    ]
    if not any(isinstance(leaf, Tracer) for leaf in leaves):
        size = _group_size(axis_name, groups)
        return tree_unflatten(tree, [leaf * size for leaf in leaves])
    outs = bind_collective(
        psum_p, *leaves, axis_name=_param_name(axis_name), **_group_params(groups)
    )
    return tree_unflatten(tree, outs)


def _convert(x: ArrayLike, dtype: np.dtype[Any]) -> Any:
    return bind1(convert_element_type_p, x, new_dtype=dtype, weak_type=False)


def _bind_extremum(
    prim: Primitive,
    x: ArrayLike,
    axis_name: AxisName | Sequence[AxisName],
    axis_index_groups: Sequence[Sequence[int]] | None,
) -> Any:
    groups = _canonical_groups(axis_name, axis_index_groups, even=False)
    leaves, tree = tree_flatten(x)
    if not leaves:
        return x
    outs = bind_collective(prim, *leaves, axis_name=_param_name(axis_name), **_group_params(groups))
    return tree_unflatten(tree, outs)


def pmax(
    x: ArrayLike,
    axis_name: AxisName | Sequence[AxisName],
    *,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
) -> Any:
    """The maximum of ``x`` (a pytree) over the named axis (or axes)."""
    return _bind_extremum(pmax_p, x, axis_name, axis_index_groups)


def pmin(
    x: ArrayLike,
    axis_name: AxisName | Sequence[AxisName],
    *,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
) -> Any:
    """The minimum of ``x`` (a pytree) over the named axis (or axes)."""
    return _bind_extremum(pmin_p, x, axis_name, axis_index_groups)


def pmean(
    x: ArrayLike,
    axis_name: AxisName | Sequence[AxisName],
    *,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
) -> Any:
    """The mean of ``x`` (a pytree) over the named axis (or axes); integers give floats."""
    total = psum(x, axis_name, axis_index_groups=axis_index_groups)
    # (as JAX's psum(1, ...): the first group's size, even for groups of different sizes)
    n = _group_size(axis_name, _canonical_groups(axis_name, axis_index_groups, even=False))
    return tree_map(lambda v: _true_divide(v, n), total)


def _true_divide(x: ArrayLike, n: int) -> Any:
    if _dtype(x).kind in "biu":
        x = _convert(x, default_dtype_for_pytype(float))
    return bind1(div_p, x, n)


# --- all_gather, psum_scatter, all_to_all -----------------------------------------------------


def all_gather(
    x: ArrayLike,
    axis_name: AxisName | Sequence[AxisName],
    *,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
    axis: int = 0,
    tiled: bool = False,
) -> Any:
    """Every index's ``x`` (a pytree), stacked along a new axis ``axis`` (concatenated along
    ``axis`` if ``tiled``): the same result at every index of the named axis. Several names
    gather over their combined index (the first name major)."""
    names = names_of(axis_name)
    groups = _canonical_groups(axis_name, axis_index_groups)
    size = _group_size(axis_name, groups)

    def gather(leaf: Any) -> Any:
        shape = shape_of(leaf)
        ndim = len(shape)
        rank = ndim if tiled else ndim + 1
        if not -rank <= axis < rank:
            raise ValueError(f"all_gather: axis {axis} is out of range for rank {ndim}")
        dim = axis % rank
        if len(names) > 1 and not _staged(axis_name):
            out = leaf
            for name in reversed(names):  # the last name's index varies fastest
                out = all_gather(out, name, axis=dim)
            new = list(shape)
            new[dim : dim + (1 if tiled else 0)] = [size * shape[dim]] if tiled else [size]
            return bind1(reshape_p, out, new_sizes=tuple(new))
        (out,) = bind_collective(
            all_gather_p,
            leaf,
            all_gather_dimension=dim,
            axis_name=_param_name(axis_name),
            axis_size=size,
            tiled=bool(tiled),
            **_group_params(groups),
        )
        return out

    return tree_map(gather, x)


def psum_scatter(
    x: ArrayLike,
    axis_name: AxisName | Sequence[AxisName],
    *,
    scatter_dimension: int = 0,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
    tiled: bool = False,
) -> Any:
    """``psum(x)`` split along ``scatter_dimension``: index ``i`` of the named axis keeps
    block ``i`` (without that dimension unless ``tiled``), as JAX's ``lax.psum_scatter``.
    Several names scatter over their combined index (the first name major)."""
    names = names_of(axis_name)
    name = _param_name(axis_name)
    groups = _canonical_groups(axis_name, axis_index_groups)
    size = _group_size(axis_name, groups)

    def scatter(leaf: Any) -> Any:
        shape = shape_of(leaf)
        if not -len(shape) <= scatter_dimension < len(shape):
            raise ValueError(
                f"psum_scatter: scatter_dimension {scatter_dimension} is out of range for "
                f"rank {len(shape)}"
            )
        dim = scatter_dimension % len(shape)
        if tiled and shape[dim] % size:
            raise ValueError(
                f"psum_scatter: the size of dimension {dim} ({shape[dim]}) must be divisible by "
                f"the size of axis {name!r} ({size})"
            )
        if not tiled and shape[dim] != size:
            raise ValueError(
                f"psum_scatter: dimension {dim} has size {shape[dim]} but the named axis "
                f"{name!r} has size {size}; they must be equal (or pass tiled=True)"
            )
        if len(names) > 1 and not _staged(axis_name):
            out = leaf
            for one in names:  # block i of the first name's, then of the next name's, ...
                out = psum_scatter(out, one, scatter_dimension=dim, tiled=True)
            if not tiled:
                out = bind1(squeeze_p, out, dimensions=(dim,))
            return out
        (out,) = bind_collective(
            reduce_scatter_p,
            leaf,
            scatter_dimension=dim,
            axis_name=name,
            axis_size=size,
            tiled=bool(tiled),
            **_group_params(groups),
        )
        return out

    return tree_map(scatter, x)


def all_to_all(
    x: ArrayLike,
    axis_name: AxisName | Sequence[AxisName],
    split_axis: int,
    concat_axis: int,
    *,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
    tiled: bool = False,
) -> Array:
    """Split ``x`` along ``split_axis`` into one block per index of the named axis, send
    block ``j`` to index ``j``, and stack (concatenate, if ``tiled``) the received blocks
    along ``concat_axis``: the mapped axis is materialized and ``split_axis`` mapped instead.
    Several names exchange over their combined index (the first name major). A pytree
    ``x`` exchanges each leaf (as JAX's)."""
    leaves, tree = tree_flatten(x)
    if len(leaves) != 1 or leaves[0] is not x:
        outs = [
            all_to_all(
                leaf,
                axis_name,
                split_axis,
                concat_axis,
                axis_index_groups=axis_index_groups,
                tiled=tiled,
            )
            for leaf in leaves
        ]
        return tree_unflatten(tree, outs)  # type: ignore[no-any-return]
    names = names_of(axis_name)
    name = _param_name(axis_name)
    groups = _canonical_groups(axis_name, axis_index_groups)
    size = _group_size(axis_name, groups)
    shape = shape_of(x)
    ndim = len(shape)
    if not -ndim <= split_axis < ndim:
        raise ValueError(f"all_to_all: split_axis {split_axis} is out of range for rank {ndim}")
    split_axis %= ndim
    if tiled:
        if not -ndim <= concat_axis < ndim:
            raise ValueError(f"all_to_all: concat_axis {concat_axis} is out of range for {ndim}")
        concat_axis %= ndim
        if shape[split_axis] % size:
            raise ValueError(
                f"all_to_all: the size of split_axis {split_axis} ({shape[split_axis]}) must be "
                f"divisible by the size of axis {name!r} ({size})"
            )
    else:
        if not -ndim <= concat_axis < ndim:
            raise ValueError(f"all_to_all: concat_axis {concat_axis} is out of range for {ndim}")
        concat_axis %= ndim
        if shape[split_axis] != size:
            raise ValueError(
                f"all_to_all requires the size of the mapped axis {name!r} to equal "
                f"x.shape[split_axis], but they are {size} and {shape[split_axis]} respectively."
            )
    if len(names) > 1 and not _staged(axis_name):
        return _all_to_all_by_name(x, names, split_axis, concat_axis, tiled)
    if not tiled:
        if split_axis < concat_axis:
            concat_axis += 1  # concat_axis is a position after split_axis is removed
            x = _expand_dims(x, concat_axis)
        elif concat_axis < split_axis:
            x = _expand_dims(x, concat_axis)
            split_axis += 1
    (out,) = bind_collective(
        all_to_all_p,
        x,
        split_axis=split_axis,
        concat_axis=concat_axis,
        axis_name=name,
        axis_size=size,
        **_group_params(groups),
    )
    if not tiled and split_axis != concat_axis:
        out_shape = list(shape_of(out))
        del out_shape[split_axis]
        out = bind1(reshape_p, out, new_sizes=tuple(out_shape))
    return out


def _all_to_all_by_name(
    x: ArrayLike, names: tuple[AxisName, ...], split_axis: int, concat_axis: int, tiled: bool
) -> Array:
    """``all_to_all`` over several names (one of them a vmap's) as one per name: the split
    axis is cut into one block index per name, each name's exchange swaps its block index
    for the source's index along it, and the sources' combined index (the first name major)
    is concatenated (stacked, untiled) at ``concat_axis``."""
    sizes = [axis_size(n) for n in names]
    total = math.prod(sizes)
    shape = list(shape_of(x))
    k = shape[split_axis] // total
    rest = shape[:split_axis] + shape[split_axis + 1 :]
    front = (split_axis, *(i for i in range(len(shape)) if i != split_axis))
    y = bind1(transpose_p, x, permutation=front)
    y = bind1(reshape_p, y, new_sizes=(*sizes, k, *rest))
    for j, name in enumerate(names):
        y = all_to_all(y, name, j, j)
    if not tiled:  # [sources, *rest] with the sources moved to concat_axis
        y = bind1(reshape_p, y, new_sizes=(total, *rest))
        perm = list(range(1, len(shape)))
        perm.insert(concat_axis, 0)
        return bind1(transpose_p, y, permutation=tuple(perm))
    # [sources, *x's shape with k at split_axis], the sources merged into concat_axis
    y = bind1(reshape_p, y, new_sizes=(total, k, *rest))
    perm = [r + 2 for r in range(len(shape) - 1)]
    perm.insert(split_axis, 1)
    perm.insert(concat_axis, 0)
    y = bind1(transpose_p, y, permutation=tuple(perm))
    out_shape = list(shape)
    out_shape[split_axis] = k
    out_shape[concat_axis] *= total
    return bind1(reshape_p, y, new_sizes=tuple(out_shape))


def _expand_dims(x: ArrayLike, axis: int) -> Array:
    shape = list(shape_of(x))
    shape.insert(axis, 1)
    return bind1(reshape_p, x, new_sizes=tuple(shape))


def pswapaxes(
    x: ArrayLike,
    axis_name: AxisName | Sequence[AxisName],
    axis: int,
    *,
    axis_index_groups: Sequence[Sequence[int]] | None = None,
) -> Array:
    """Swap the named (mapped) axis with the positional ``axis`` of ``x``."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# --- ppermute, pshuffle, axis_index -----------------------------------------------------------


def ppermute(
    x: ArrayLike, axis_name: AxisName | Sequence[AxisName], perm: Sequence[tuple[int, int]]
) -> Any:
    """Send ``x`` (a pytree) from index ``src`` to index ``dst`` of the named axis for each
    pair ``(src, dst)`` of ``perm``; an index no pair sends to receives zeros. Several names
    (pmap or shard_map axes only, as in JAX) index their devices by the combined index."""
    name = _param_name(axis_name)
    if len(names_of(axis_name)) > 1 and not _staged(axis_name):
        raise NotImplementedError(
            f"ppermute over several axes {axis_name!r} of which one is a vmap's is not "
            "supported (as in JAX): permute along one name at a time."
        )
    size = axis_size(axis_name)
    pairs = tuple((int(s), int(d)) for s, d in perm)
    sources = [s for s, _ in pairs]
    dests = [d for _, d in pairs]
    if len(set(sources)) != len(sources) or len(set(dests)) != len(dests):
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    bad = [i for i in sources + dests if not 0 <= i < size]
    if bad:
        raise ValueError(
            f"ppermute: indices {bad} of perm {perm} are out of range for axis {name!r} "
            f"of size {size}."
        )

    def permute(leaf: object) -> Any:
        (out,) = bind_collective(ppermute_p, leaf, axis_name=name, perm=pairs)
        return out

    return tree_map(permute, x)


def pshuffle(x: ArrayLike, axis_name: AxisName | Sequence[AxisName], perm: Sequence[int]) -> Any:
    """Index ``i`` of the named axis receives the ``x`` of index ``perm[i]``."""
    size = axis_size(axis_name)
    if sorted(perm) != list(range(size)):
        raise ValueError(
            f"`perm` does not represent a permutation: {list(perm)} (pshuffle: perm must be a "
            f"permutation of range({size}), the size of axis {axis_name!r})."
        )
    return ppermute(x, axis_name, [(int(src), dst) for dst, src in enumerate(perm)])


def axis_index(axis_name: AxisName | Sequence[AxisName]) -> Array:
    """The index (int32) along the named axis of the current example or device; for several
    names, the combined index (the first name major)."""
    names = names_of(axis_name)
    if len(names) > 1 and not _staged(axis_name):
        index = axis_index(names[0])
        for name in names[1:]:
            index = bind1(add_p, bind1(mul_p, index, axis_size(name)), axis_index(name))
        return index
    (out,) = bind_collective(axis_index_p, axis_name=_param_name(axis_name))
    return out


# --- typing rules -----------------------------------------------------------------------------


def _identity_avals(*avals: ShapedArray, **params: object) -> list[ShapedArray]:
    return [ShapedArray(a.shape, a.dtype, a.weak_type) for a in avals]


for _prim in (psum_p, pmax_p, pmin_p, ppermute_p):
    abstract_eval_rules[_prim] = _identity_avals


def _split_shape(prim_name: str, x: ShapedArray, dim: int, axis_size: int) -> list[int]:
    """``x``'s shape with dimension ``dim`` cut into ``axis_size`` pieces (one piece's size),
    which it must divide."""
    shape = list(x.shape)
    if shape[dim] % axis_size:
        raise aval_error(
            prim_name, f"dimension {dim} is not divisible by the axis size {axis_size}", [x]
        )
    shape[dim] //= axis_size
    return shape


def _all_gather_avals(
    x: ShapedArray,
    *,
    all_gather_dimension: int,
    axis_name: AxisName,
    axis_size: int,
    tiled: bool,
    axis_index_groups: Groups | None = None,
) -> list[ShapedArray]:
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return [ShapedArray(tuple(shape), x.dtype, x.weak_type)]


abstract_eval_rules[all_gather_p] = _all_gather_avals


def _reduce_scatter_avals(
    x: ShapedArray,
    *,
    scatter_dimension: int,
    axis_name: AxisName,
    axis_size: int,
    tiled: bool,
    axis_index_groups: Groups | None = None,
) -> list[ShapedArray]:
    shape = _split_shape("reduce_scatter", x, scatter_dimension, axis_size)
    if not tiled:
        del shape[scatter_dimension]
    return [ShapedArray(tuple(shape), x.dtype, x.weak_type)]


abstract_eval_rules[reduce_scatter_p] = _reduce_scatter_avals


def _all_to_all_avals(
    x: ShapedArray,
    *,
    split_axis: int,
    concat_axis: int,
    axis_name: AxisName,
    axis_size: int,
    axis_index_groups: Groups | None = None,
) -> list[ShapedArray]:
    shape = _split_shape("all_to_all", x, split_axis, axis_size)
    shape[concat_axis] *= axis_size
    return [ShapedArray(tuple(shape), x.dtype, x.weak_type)]


abstract_eval_rules[all_to_all_p] = _all_to_all_avals


def _axis_index_avals(*, axis_name: AxisName) -> list[ShapedArray]:
    return [ShapedArray((), np.dtype(np.int32))]


abstract_eval_rules[axis_index_p] = _axis_index_avals
