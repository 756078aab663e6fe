"""The batching interpreter: ``BatchTracer``, ``BatchTrace`` and the ``vmap_rules`` table.

Autodidax Part 1's vmap. A ``BatchTracer`` carries a value that holds a whole batch of
per-example values stacked along ``batch_dim`` (or ``not_mapped`` when the value is the same
for every example). ``BatchTrace.process_primitive`` hands the values and their batch dims to
the primitive's rule in ``vmap_rules``: ``rule(axis_size, vals_in, dims_in, **params) ->
(vals_out, dims_out)``. A rule applies ordinary primitives to whole batches, never a Python
loop over examples, and reports where the batch axis of each output ended up.

The helpers here (``moveaxis``, ``move_batch_axis``, ``broadcast_batched``,
:func:`align_batched`) and the registration helpers (``defvectorized``, ``defbroadcasting``)
are the ones every family file of ``mj_batch.rules``, and higher layers writing rules for their
own primitives (through ``mj_batch.extend``), share.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import numpy as np

from mj_core import (
    EagerArray,
    Primitive,
    RuleTable,
    ShapedArray,
    Trace,
    Tracer,
    bind,
    bind1,
    full_lower,
    get_aval,
)
from mj_core.dtypes import dtype_of as dtype_of  # the canonical dtype (one answer)
from mj_core.extend import AxisFrame, collective_prims, swap_batching_frame
from mj_core.extend import shape_of as shape_of
from mj_core.prims.structural import broadcast_p, reshape_p, transpose_p

__all__ = [
    "BatchDim",
    "BatchTrace",
    "BatchTracer",
    "NotMapped",
    "VmapRule",
    "align_batched",
    "broadcast_batched",
    "defbroadcasting",
    "defvectorized",
    "mapped_aval",
    "move_batch_axis",
    "moveaxis",
    "not_mapped",
    "register_vmap_rule",
    "unmapped_aval",
    "vmap_rules",
]


class NotMapped(enum.Enum):
    """The type of :data:`not_mapped`: the batch dim of a value shared by every example.

    A one-member enum, so that a type checker narrows a :data:`BatchDim` to ``int`` after
    ``if d is not_mapped: ...`` (and after ``isinstance(d, NotMapped)``). Its one member is
    a singleton through copying and pickling, and prints as ``not_mapped``."""

    not_mapped = "not_mapped"

    def __repr__(self) -> str:
        return "not_mapped"

    def __str__(self) -> str:
        return "not_mapped"


not_mapped: Final = NotMapped.not_mapped
"""Sentinel batch dim of an unbatched value (a sentinel, not ``None``: ``None`` is the user's
spelling in ``in_axes``/``out_axes``)."""

BatchDim: TypeAlias = int | NotMapped

VmapRule: TypeAlias = Callable[..., tuple[Sequence[Any], Sequence[BatchDim]]]

# The argument and result types every rule module spells its rules with.
Vals: TypeAlias = Sequence[Any]
Dims: TypeAlias = Sequence[BatchDim]
RuleResult: TypeAlias = tuple[list[Any], list[BatchDim]]

vmap_rules: RuleTable[Callable[..., Any]] = RuleTable(
    "vmap_rules", "vmap (batching)", "mj_batch.extend"
)


def mapped_aval(batch_dim: BatchDim, aval: ShapedArray) -> ShapedArray:
    """The per-example aval of a batched value's ``aval`` (``batch_dim`` removed)."""
    if batch_dim is not_mapped:
        return aval
    shape = aval.shape
    return ShapedArray(shape[:batch_dim] + shape[batch_dim + 1 :], aval.dtype, aval.weak_type)


def unmapped_aval(axis_size: int, batch_dim: BatchDim, aval: ShapedArray) -> ShapedArray:
    """The aval of a whole batch of per-example ``aval`` values stacked at ``batch_dim``."""
    if batch_dim is not_mapped:
        return aval
    shape = aval.shape
    return ShapedArray(
        (*shape[:batch_dim], axis_size, *shape[batch_dim:]), aval.dtype, aval.weak_type
    )


class BatchTracer(Tracer):
    """A batch of per-example values: ``val`` holds them stacked along ``batch_dim``."""

    __slots__ = ("batch_dim", "val")

    def __init__(self, trace: BatchTrace, val: Any, batch_dim: BatchDim) -> None:
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    # shape/dtype/aval are asked for on every primitive by the transformations above vmap
    # (jvp, partial eval): answer from the value's metadata without building its aval.
    @property
    def aval(self) -> ShapedArray:
        val, bdim = self.val, self.batch_dim
        if bdim is not_mapped:
            return get_aval(val)
        if type(val) is np.ndarray or type(val) is EagerArray:
            shape, dtype, weak = val.shape, val.dtype, False
        else:
            aval = get_aval(val)
            shape, dtype, weak = aval.shape, aval.dtype, aval.weak_type
        return ShapedArray(shape[:bdim] + shape[bdim + 1 :], dtype, weak)

    @property
    def shape(self) -> tuple[int, ...]:
        bdim = self.batch_dim
        shape = shape_of(self.val)
        if bdim is not_mapped:
            return shape
        return shape[:bdim] + shape[bdim + 1 :]

    @property
    def dtype(self) -> np.dtype[Any]:
        return dtype_of(self.val)

    @property
    def ndim(self) -> int:
        return len(shape_of(self.val)) - (self.batch_dim is not not_mapped)

    @property
    def weak_type(self) -> bool:
        val = self.val
        t = type(val)
        return False if t is np.ndarray or t is EagerArray else get_aval(val).weak_type

    def full_lower(self) -> Any:
        if self.batch_dim is not_mapped:
            return full_lower(self.val)
        return self


class BatchTrace(Trace):
    """vmap's interpretation: apply each primitive's batching rule to whole batches.

    ``frame`` is the named axis this trace batches (``vmap(..., axis_name=...)``), ``None``
    for an unnamed vmap. A collective's rule (``psum``, ...) is handed the frame instead of
    the axis size: it computes the collective only if it names this trace's axis."""

    __slots__ = ("frame",)
    leak_checked = True
    transformation_name = "vmap"

    def __init__(self, main: Any) -> None:
        super().__init__(main)
        self.frame: AxisFrame | None = None

    @property
    def axis_size(self) -> int:
        return self.main.global_data  # type: ignore[no-any-return]

    def pure(self, val: Any) -> BatchTracer:
        return BatchTracer(self, val, not_mapped)

    lift = pure

    def process_primitive(
        self, primitive: Primitive, tracers: list[Any], params: dict[str, Any]
    ) -> list[Any]:
        vals_in = [t.val for t in tracers]
        dims_in = [t.batch_dim for t in tracers]
        frame = self.frame
        if primitive in collective_prims:  # psum & co. are handed this trace's axis itself
            axis = frame if frame is not None else AxisFrame(None, self.axis_size, self.main)
            vals_out, dims_out = vmap_rules[primitive](axis, vals_in, dims_in, **params)
        elif dims_in.count(not_mapped) == len(dims_in):
            # Nothing is batched (e.g. constants lifted into this trace): no rule needed.
            return [BatchTracer(self, v, not_mapped) for v in bind(primitive, *vals_in, **params)]
        elif frame is not None:  # a rule batching a nested jaxpr batches this named axis
            prev = swap_batching_frame(frame)
            try:
                vals_out, dims_out = vmap_rules[primitive](frame.size, vals_in, dims_in, **params)
            finally:
                swap_batching_frame(prev)
        else:
            rule = vmap_rules[primitive]
            vals_out, dims_out = rule(self.main.global_data, vals_in, dims_in, **params)
        if len(vals_out) == 1:
            return [BatchTracer(self, vals_out[0], dims_out[0])]
        return [BatchTracer(self, v, d) for v, d in zip(vals_out, dims_out, strict=True)]


# --- helpers shared by the rules --------------------------------------------------------------


def moveaxis(x: Any, src: int, dst: int) -> Any:
    """``x`` with axis ``src`` moved to position ``dst`` (one ``transpose``; none if equal).

    ``src``/``dst`` are non-negative axes of ``x`` itself (batch dims, not per-example axes).
    """
    if src == dst:
        return x
    ndim = len(shape_of(x))
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return bind1(transpose_p, x, permutation=tuple(perm))


def broadcast_batched(x: Any, axis_size: int, dst: int) -> Any:
    """Materialize an unbatched ``x`` as a batch of ``axis_size`` copies stacked at ``dst``."""
    shape = shape_of(x)
    out_shape = (*shape[:dst], axis_size, *shape[dst:])
    dims = tuple(i if i < dst else i + 1 for i in range(len(shape)))
    return bind1(broadcast_p, x, shape=out_shape, broadcast_dimensions=dims)


def move_batch_axis(axis_size: int, src: BatchDim, dst: BatchDim, x: Any) -> Any:
    """Make ``x`` (batched at ``src``) batched at ``dst``, broadcasting an unbatched ``x``.

    ``dst`` may be ``not_mapped`` only if ``src`` is (a batched value cannot be unbatched).
    """
    if dst is not_mapped:
        if src is not_mapped:
            return x
        raise ValueError("move_batch_axis: a batched value cannot be made unbatched")
    if src is not_mapped:
        return broadcast_batched(x, axis_size, dst)
    if src == dst:
        return x
    return moveaxis(x, src, dst)


def shift_axis(axis: int, bdim: int) -> int:
    """The axis of a batched value that holds per-example ``axis`` (batch dim at ``bdim``)."""
    return axis + 1 if axis >= bdim else axis


def first_mapped(dims: Sequence[BatchDim]) -> int:
    """The first batch dim among ``dims`` that is mapped."""
    for d in dims:
        if d is not not_mapped:
            return d
    raise ValueError("first_mapped: no operand is batched")


def match_batch_dims(
    axis_size: int, vals: Sequence[Any], dims: Sequence[BatchDim]
) -> tuple[list[Any], int]:
    """Batch every operand at one common dim (the first batched operand's), for primitives
    such as ``concatenate`` and ``sort`` whose operands must have matching shapes."""
    bdim = first_mapped(dims)
    return [move_batch_axis(axis_size, d, bdim, v) for v, d in zip(vals, dims, strict=True)], bdim


def _ndim(x: Any) -> int:
    ndim = getattr(x, "ndim", None)
    return 0 if ndim is None else int(ndim)  # Python scalars have no .ndim


def align_batched(vals: Sequence[Any], dims: Sequence[BatchDim]) -> tuple[list[Any], int]:
    """Operands of a broadcasting primitive arranged so that NumPy broadcasting lines up their
    batch axes; returns them and the batch dim of the result.

    Elementwise operands broadcast like NumPy, so per-example ranks may differ and an
    unbatched operand may be a lower-rank array or a Python scalar. When NumPy's right-aligned
    broadcasting already puts every batch axis at the same position (the common case: equal
    ranks, equal batch dims) the operands are used as they are; otherwise each batched operand
    gets its batch axis at the front and singleton axes up to the result's rank.
    """
    ranks = [_ndim(v) - (d is not not_mapped) for v, d in zip(vals, dims, strict=True)]
    out_rank = max(ranks)
    # Where each batch axis lands once NumPy left-pads the operand to the result's rank.
    pos = -1
    for d, r in zip(dims, ranks, strict=True):
        if d is not_mapped:
            continue
        p = out_rank - r + d
        if pos == -1:
            pos = p
        elif p != pos:
            pos = -2
            break
    if pos >= 0:
        # The batch axes already line up. An unbatched operand that reaches the batch axis
        # gets a singleton axis there (a free reshape of the shared, usually small, value).
        out = list(vals)
        for k, (v, d, r) in enumerate(zip(vals, dims, ranks, strict=True)):
            if d is not_mapped and r > out_rank - pos:
                local = pos - out_rank + r
                shape = shape_of(v)
                new_sizes = (*shape[:local], 1, *shape[local:])
                out[k] = bind1(reshape_p, v, new_sizes=new_sizes)
        return out, pos
    aligned: list[Any] = []
    for v, d, r in zip(vals, dims, ranks, strict=True):
        if d is not_mapped:
            aligned.append(v)  # right-aligned by NumPy, below the leading batch axis
            continue
        v = moveaxis(v, d, 0)
        if r < out_rank:
            shape = v.shape
            new_sizes = (shape[0],) + (1,) * (out_rank - r) + tuple(shape[1:])
            v = bind1(reshape_p, v, new_sizes=new_sizes)
        aligned.append(v)
    return aligned, 0


# --- registration helpers ---------------------------------------------------------------------


def _vectorized_rule(prim: Primitive) -> VmapRule:
    def rule(axis_size: int, vals_in: Vals, dims_in: Dims, **params: Any) -> RuleResult:
        (x,), (bdim,) = vals_in, dims_in
        outs = bind(prim, x, **params)
        return outs, [bdim] * len(outs)

    rule.__name__ = f"{prim.name}_vmap"
    return rule


def defvectorized(prim: Primitive) -> None:
    """Register the rule of a unary primitive that acts on each element (or each slice along
    axes its params do not name) independently: apply it to the batch, batch dim unchanged."""
    vmap_rules[prim] = _vectorized_rule(prim)


def _broadcasting_rule(prim: Primitive) -> VmapRule:
    def rule(axis_size: int, vals_in: Vals, dims_in: Dims, **params: Any) -> RuleResult:
        vals, out_dim = align_batched(vals_in, dims_in)
        return bind(prim, *vals, **params), [out_dim]

    rule.__name__ = f"{prim.name}_vmap"
    return rule


def defbroadcasting(prim: Primitive) -> None:
    """Register the rule of an n-ary primitive whose operands broadcast like NumPy: line the
    batch axes up with :func:`align_batched` and apply it to the whole batch."""
    vmap_rules[prim] = _broadcasting_rule(prim)


def register_vmap_rule(prim: Primitive, rule: VmapRule) -> None:
    """Public registration for higher layers: ``rule(axis_size, vals_in, dims_in, **params)
    -> (vals_out, dims_out)``, unbatched dims being :data:`not_mapped`."""
    vmap_rules[prim] = rule
