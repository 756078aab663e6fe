"""``ragged_dot`` and ``ragged_dot_general`` (``jax.lax.ragged_dot``): grouped matrix products.

``ragged_dot(lhs[m, k], rhs[g, k, n], group_sizes[g]) -> [m, n]``: the rows of ``lhs`` are cut
into ``g`` consecutive groups of ``group_sizes`` rows, and group ``i`` is multiplied by
``rhs[i]``. ``ragged_dot_general`` generalises it as JAX does (``RaggedDotDimensionNumbers``:
the ragged ``lhs`` dimension is a non-contracting, a contracting or a batch dimension).

The primitive ``ragged_dot_general`` is checked by JAX's shape rule (same errors) and computed
by JAX's CPU formulation (``_ragged_dot_general_impl``): the ragged operand is expanded to a
dense ``[g, ...]`` array, zero outside each group, and contracted with ``dot_general``. Every
rule is that formulation's: the lowering emits it, eager runs it compiled, and the JVP, the
transpose and the batching rule differentiate, transpose and ``vmap`` it (JAX has dedicated
rules giving the same values).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_autodiff import linear_transpose
from mj_autodiff.extend import (
    Zero,
    is_undefined_primal,
    jvp_flat,
    jvp_rules,
    transpose_rules,
)
from mj_batch import vmap
from mj_batch.extend import not_mapped, vmap_rules
from mj_core import Primitive, ShapedArray, bind1, get_aval, impl_rules
from mj_core.extend import abstract_eval_rules
from mj_core.prims.contractions import canonicalize_precision, dot_general
from mj_core.prims.elementwise import bitwise_and, le, lt, select, sub
from mj_core.prims.reductions import cumsum
from mj_core.prims.structural import (
    broadcast,
    broadcast_in_dim,
    broadcasted_iota,
    full,
    transpose,
)
from mj_ir.extend import trace_to_closed_jaxpr
from mj_xla._executable import compiled_impl
from mj_xla._jaxlib import Value
from mj_xla._lowering import Avals, LoweringContext, Values, lowering_rules
from mj_xla._sharding_constraint import with_sharding_constraint

__all__ = [
    "RaggedDotDimensionNumbers",
    "ragged_dot",
    "ragged_dot_general",
    "ragged_dot_general_p",
]

ragged_dot_general_p = Primitive("ragged_dot_general")


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """Describes ragged, group, and dot dimensions for ragged dot general.

    ``dot_dimension_numbers``: ``((lhs_contracting_dims, rhs_contracting_dims), (lhs_batch_dims,
    rhs_batch_dims))``; ``lhs_ragged_dimensions``: the lhs ragged dimension (exactly one);
    ``rhs_group_dimensions``: the rhs group dimension (one, or none when the ragged dimension
    is a contracting or batch dimension)."""

    dot_dimension_numbers: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    lhs_ragged_dimensions: tuple[int, ...]
    rhs_group_dimensions: tuple[int, ...]

    def __init__(
        self,
        dot_dimension_numbers: Any,
        lhs_ragged_dimensions: Sequence[int],
        rhs_group_dimensions: Sequence[int],
    ) -> None:
        dn = tuple(tuple(tuple(int(d) for d in s) for s in t) for t in dot_dimension_numbers)
        object.__setattr__(self, "dot_dimension_numbers", dn)
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))


_BASIC = RaggedDotDimensionNumbers((([1], [1]), ([], [])), [0], [0])


def ragged_dot(
    lhs: Any,
    rhs: Any,
    group_sizes: Any,
    precision: Any = None,
    preferred_element_type: Any = None,
    group_offset: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Ragged matrix multiplication: ``lhs`` ``(m, k)``, ``rhs`` ``(g, k, n)``, ``group_sizes``
    ``(g,)`` integers (group ``i`` is the next ``group_sizes[i]`` rows of ``lhs``, multiplied
    by ``rhs[i]``; rows past the groups are zero) -> ``(m, n)``."""
    return ragged_dot_general(
        lhs, rhs, group_sizes, _BASIC, precision, preferred_element_type, group_offset,
        out_sharding,
    )  # fmt: skip


def ragged_dot_general(
    lhs: Any,
    rhs: Any,
    group_sizes: Any,
    ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
    precision: Any = None,
    preferred_element_type: Any = None,
    group_offset: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Ragged matrix multiplication with ``dot_general``'s batch and contracting dimensions
    (``jax.lax.ragged_dot_general``); see :class:`RaggedDotDimensionNumbers`."""
    if group_offset is not None:  # as JAX's implementation on CPU and GPU
        raise NotImplementedError("Unimplemented group_offset support.")
    pet = None if preferred_element_type is None else np.dtype(preferred_element_type)
    out = bind1(
        ragged_dot_general_p,
        lhs,
        rhs,
        group_sizes,
        ragged_dot_dimension_numbers=ragged_dot_dimension_numbers,
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
    )
    if out_sharding is not None:
        out = with_sharding_constraint(out, out_sharding)
    return out


# --- JAX's shape rule ---------------------------------------------------------------------------


def _remaining(rank: int, *taken: Sequence[int]) -> list[int]:
    used = {d for t in taken for d in t}
    return [d for d in range(rank) if d not in used]


def _mode(lhs_rank: int, dn: RaggedDotDimensionNumbers) -> tuple[str, int]:
    (ragged,) = dn.lhs_ragged_dimensions
    (l_contract, _), (l_batch, _) = dn.dot_dimension_numbers
    if ragged in l_contract:
        return "contracting", ragged
    if ragged in l_batch:
        return "batch", ragged
    return "noncontracting", ragged


def _prefix(
    mode: str, rank: int, ragged: int, batch: Sequence[int], contract: Sequence[int]
) -> list[int]:
    if mode == "noncontracting":
        free = _remaining(rank, contract, batch)
        return [*batch, *free[: free.index(ragged)]]
    if mode == "contracting":
        return [*batch, *contract[: list(contract).index(ragged)]]
    return list(batch[: list(batch).index(ragged)])


def _check(
    lhs: ShapedArray, rhs: ShapedArray, gs: ShapedArray, dn: RaggedDotDimensionNumbers
) -> None:
    def in_range(dim: int, rank: int, what: str, arg: str) -> None:
        if dim < 0 or dim >= rank:
            raise TypeError(
                f"ragged_dot_general requires {what} numbers to be nonnegative and less than "
                f"the number of axes of the {arg} value, got {dim} for {arg} of rank {rank}."
            )

    if len(dn.lhs_ragged_dimensions) != 1:
        raise TypeError("ragged_dot_general expects exactly one lhs ragged dimension.")
    in_range(dn.lhs_ragged_dimensions[0], lhs.ndim, "lhs ragged dimension", "lhs")
    mode, ragged = _mode(lhs.ndim, dn)
    (l_contract, r_contract), (l_batch, r_batch) = dn.dot_dimension_numbers
    if gs.ndim == 0:
        raise TypeError("expected rank of group_sizes to be >=1.")
    if gs.ndim != 1:
        prefix = _prefix(mode, lhs.ndim, ragged, l_batch, l_contract)
        expected = (*(lhs.shape[i] for i in prefix), gs.shape[-1])
        if gs.shape != expected:
            raise TypeError(f"expected group_sizes to have shape {expected}, got {gs.shape}.")
    num_groups = gs.shape[-1]
    groups = dn.rhs_group_dimensions
    if mode in ("contracting", "batch"):
        if groups:
            raise TypeError(
                "ragged_dot_general requires zero group dimensions in the rhs when lhs ragged "
                "dimension is contracting or batch."
            )
    else:
        if len(groups) != 1:
            raise TypeError(
                "ragged_dot_general requires exactly one rhs group dimension when lhs ragged "
                "dimension is noncontracting."
            )
        in_range(groups[0], rhs.ndim, "rhs group dimension", "rhs")
        if groups[0] in r_batch or groups[0] in r_contract:
            raise TypeError(
                "ragged_dot_general requires rhs group dimension numbers to be distinct from "
                "contracting and batch dimensions."
            )
        if rhs.shape[groups[0]] != num_groups:
            raise TypeError(
                f"expected rhs group dimension size to be {num_groups}, got {rhs.shape[groups[0]]}."
            )
    if gs.dtype.kind not in "iu":
        raise TypeError(
            "ragged_dot_general requires that group_sizes.dtype is subtype of np.integer."
        )


# --- JAX's dense formulation ------------------------------------------------------------------


def _ragged_to_dense(x: Any, gs: Any, dim: int, axes: Sequence[int]) -> Any:
    """``x`` expanded to ``[g, *x.shape]``: slice ``i`` keeps the elements of group ``i``
    along ``dim`` (zero elsewhere); ``gs`` is ``[*(x.shape[a] for a in axes), g]``."""
    xshape, gshape = get_aval(x).shape, get_aval(gs).shape
    shape = (gshape[-1], *xshape)
    dense = broadcast_in_dim(x, shape, tuple(range(1, len(shape))))
    iota = broadcasted_iota(get_aval(gs).dtype, shape, dim + 1)
    ends = cumsum(gs, axis=len(gshape) - 1)
    starts = sub(ends, gs)
    front = (len(gshape) - 1, *range(len(gshape) - 1))
    where = (0, *(a + 1 for a in axes))
    ends = broadcast_in_dim(transpose(ends, front), shape, where)
    starts = broadcast_in_dim(transpose(starts, front), shape, where)
    mask = bitwise_and(le(starts, iota), lt(iota, ends))
    return select(mask, dense, full(shape, 0, get_aval(x).dtype))


def _dense(
    lhs: Any,
    rhs: Any,
    gs: Any,
    *,
    ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
    precision: Any,
    preferred_element_type: np.dtype[Any] | None,
) -> Any:
    """JAX's ``_ragged_dot_general_impl``."""
    dn = ragged_dot_dimension_numbers
    lhs_rank = get_aval(lhs).ndim
    mode, ragged = _mode(lhs_rank, dn)
    (l_contract, r_contract), (l_batch, r_batch) = dn.dot_dimension_numbers
    l_prefix = _prefix(mode, lhs_rank, ragged, l_batch, l_contract)
    if get_aval(gs).ndim == 1:
        gs = broadcast(gs, [get_aval(lhs).shape[i] for i in l_prefix])

    def incr(dims: Sequence[int]) -> tuple[int, ...]:
        return tuple(d + 1 for d in dims)

    def dot(a: Any, b: Any, dims: Any) -> Any:
        return dot_general(a, b, dims, precision, preferred_element_type)

    if mode == "noncontracting":
        group = dn.rhs_group_dimensions[0]
        dims = (((*incr(l_contract), 0), (*r_contract, group)), (incr(l_batch), r_batch))
        return dot(_ragged_to_dense(lhs, gs, ragged, l_prefix), rhs, dims)
    if mode == "contracting":
        rhs_ragged = r_contract[list(l_contract).index(ragged)]
        r_prefix = _prefix(mode, get_aval(rhs).ndim, rhs_ragged, r_batch, r_contract)
        dims = ((incr(l_contract), incr(r_contract)), ((0, *incr(l_batch)), (0, *incr(r_batch))))
        return dot(
            _ragged_to_dense(lhs, gs, ragged, l_prefix),
            _ragged_to_dense(rhs, gs, rhs_ragged, r_prefix),
            dims,
        )
    return dot(lhs, rhs, dn.dot_dimension_numbers)


@functools.lru_cache(maxsize=256)
def _dense_jaxpr(avals: tuple[ShapedArray, ...], params: tuple[tuple[str, Any], ...]) -> Any:
    return trace_to_closed_jaxpr(lambda *a: [_dense(*a, **dict(params))], list(avals))


def _key(params: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(params.items()))


def _abstract_eval(
    lhs: ShapedArray, rhs: ShapedArray, gs: ShapedArray, **params: Any
) -> list[ShapedArray]:
    _check(lhs, rhs, gs, params["ragged_dot_dimension_numbers"])
    closed = _dense_jaxpr(
        tuple(ShapedArray(a.shape, a.dtype, a.weak_type) for a in (lhs, rhs, gs)), _key(params)
    )
    return list(closed.out_avals)


def _lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, **params: Any
) -> list[Value]:
    return ctx.lower_jaxpr(_dense_jaxpr(tuple(avals_in), _key(params)), list(in_vals))


def _jvp(
    primals: Sequence[Any], tangents: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    lhs, rhs, gs = primals
    outs, touts = jvp_flat(
        lambda a, b: [_dense(a, b, gs, **params)], [lhs, rhs], list(tangents[:2])
    )
    return list(outs), list(touts)


def _transpose(cts: Sequence[Any], lhs: Any, rhs: Any, gs: Any, **params: Any) -> list[Any]:
    """The formulation transposed in the undefined operand (linear in ``lhs``, ``rhs``)."""
    (ct,) = cts
    if isinstance(ct, Zero):
        return [None, None, None]
    if is_undefined_primal(lhs):
        (ct_lhs,) = linear_transpose(lambda a: _dense(a, rhs, gs, **params), lhs.aval)(ct)
        return [ct_lhs, None, None]
    (ct_rhs,) = linear_transpose(lambda b: _dense(lhs, b, gs, **params), rhs.aval)(ct)
    return [None, ct_rhs, None]


def _batch(
    axis_size: int, vals: Sequence[Any], dims: Sequence[Any], **params: Any
) -> tuple[list[Any], list[Any]]:
    axes = tuple(None if d is not_mapped else d for d in dims)
    out = vmap(lambda a, b, g: _dense(a, b, g, **params), in_axes=axes, axis_size=axis_size)(*vals)
    return [out], [0]


impl_rules[ragged_dot_general_p] = compiled_impl(ragged_dot_general_p)
abstract_eval_rules[ragged_dot_general_p] = _abstract_eval
lowering_rules[ragged_dot_general_p] = _lowering
jvp_rules[ragged_dot_general_p] = _jvp
transpose_rules[ragged_dot_general_p] = _transpose
vmap_rules[ragged_dot_general_p] = _batch
