"""Batching rules of the elementwise primitives.

Elementwise operands broadcast like NumPy, so per-example ranks may differ and an unbatched
operand may be a lower-rank array or a Python scalar. :func:`align_batched` is the one helper
that lines operands up: when NumPy's right-aligned broadcasting already puts every batch axis
at the same position (the common case: equal ranks, equal batch dims) the operands are used
as they are; otherwise each batched operand gets its batch axis at the front and singleton
axes so that the per-example ranks line up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mj_batch._batching import (
    BatchDim,
    Dims,
    RuleResult,
    Vals,
    VmapRule,
    defvectorized,
    moveaxis,
    not_mapped,
    shape_of,
    vmap_rules,
)
from mj_core import prims
from mj_core.primitive import Primitive
from mj_core.prims import elementwise_specs
from mj_core.trace import bind, bind1

__all__ = ["align_batched", "defbroadcasting"]


def _ndim(x: Any) -> int:
    ndim = getattr(x, "ndim", None)
    return 0 if ndim is None else int(ndim)  # Python scalars have no .ndim


def align_batched(vals: Sequence[Any], dims: Sequence[BatchDim]) -> tuple[list[Any], int]:
    """Operands of a broadcasting primitive arranged so that NumPy broadcasting lines up their
    batch axes; returns them and the batch dim of the result.

    Batched operands are left alone when their batch axes already line up; otherwise each
    gets its batch axis at the front and singleton axes up to the result's rank.
    """
    ranks = [_ndim(v) - (d is not not_mapped) for v, d in zip(vals, dims, strict=True)]
    out_rank = max(ranks)
    # Where each batch axis lands once NumPy left-pads the operand to the result's rank.
    pos = -1
    for d, r in zip(dims, ranks, strict=True):
        if d is not_mapped:
            continue
        p = out_rank - r + d  # type: ignore[operator]
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
                out[k] = bind1(prims.reshape_p, v, new_sizes=new_sizes)
        return out, pos
    aligned: list[Any] = []
    for v, d, r in zip(vals, dims, ranks, strict=True):
        if d is not_mapped:
            aligned.append(v)  # right-aligned by NumPy, below the leading batch axis
            continue
        assert isinstance(d, int)
        v = moveaxis(v, d, 0)
        if r < out_rank:
            shape = v.shape
            new_sizes = (shape[0],) + (1,) * (out_rank - r) + tuple(shape[1:])
            v = bind1(prims.reshape_p, v, new_sizes=new_sizes)
        aligned.append(v)
    return aligned, 0


def _broadcasting_rule(prim: Primitive) -> VmapRule:
    def rule(axis_size: int, vals_in: Vals, dims_in: Dims, **params: Any) -> RuleResult:
        vals, out_dim = align_batched(vals_in, dims_in)
        return bind(prim, *vals, **params), [out_dim]

    rule.__name__ = f"{prim.name}_vmap"
    return rule


def defbroadcasting(prim: Primitive) -> None:
    """Register the rule of an n-ary primitive whose operands broadcast like NumPy."""
    vmap_rules[prim] = _broadcasting_rule(prim)


for _prim, _spec in elementwise_specs.items():
    if _spec.nin == 1:
        defvectorized(_prim)
    else:
        defbroadcasting(_prim)
