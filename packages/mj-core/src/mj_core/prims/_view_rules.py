"""The :data:`~mj_core._array_views.view_rules` of mj_core's primitives that move elements:
each applies the primitive to views' data (``E``: one element's trailing dims) by appending
``E``'s dims to the shape parameters, leaving those dims whole."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core._array_views import ArrayView, array_views, view_dtypes, view_predicates, view_rules
from mj_core._avals import get_aval
from mj_core._eager_dispatch import eager_handlers
from mj_core._shapes import shape_of
from mj_core._trace import bind_views
from mj_core.prims._operands import bind1
from mj_core.prims.elementwise import eq_p, ne_p, select_n_p
from mj_core.prims.indexing import gather_p
from mj_core.prims.reductions import reduce_and_p, reduce_or_p
from mj_core.prims.structural import (
    broadcast_p,
    concatenate_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    reshape_p,
    rev_p,
    slice_p,
    squeeze_p,
    transpose_p,
)

__all__ = ["register_array_view"]

_Rule = tuple[Sequence[Any], dict[str, Any]]


def _all_views(name: str, args: Sequence[Any], is_view: Sequence[bool]) -> None:
    if not all(is_view):
        dtypes = ", ".join(
            "key" if v else str(get_aval(a).dtype) for a, v in zip(args, is_view, strict=True)
        )
        raise TypeError(f"{name}: operands must all be key arrays of one dtype, got {dtypes}")


def _unchanged(name: str) -> Any:
    def rule(
        args: Sequence[Any], is_view: Sequence[bool], params: dict[str, Any], e: tuple[int, ...]
    ) -> _Rule:
        _all_views(name, args, is_view)
        return args, params

    return rule


def _reduced(reduction: Any) -> Any:
    def answer(out: Any, element_ndim: int) -> Any:
        ndim = len(shape_of(out))
        axes = tuple(range(ndim - element_ndim, ndim))
        return bind1(reduction, out, axes=axes) if axes else out

    return answer


view_predicates[eq_p] = _reduced(reduce_and_p)  # keys equal when all their data is
view_predicates[ne_p] = _reduced(reduce_or_p)

for _p in (squeeze_p, rev_p, concatenate_p):  # (their dims are non-negative, before E's)
    view_rules[_p] = _unchanged(_p.name)


def _reshape(
    args: Sequence[Any], is_view: Sequence[bool], params: dict[str, Any], e: tuple[int, ...]
) -> _Rule:
    return args, {**params, "new_sizes": (*params["new_sizes"], *e)}


def _broadcast(
    args: Sequence[Any], is_view: Sequence[bool], params: dict[str, Any], e: tuple[int, ...]
) -> _Rule:
    n = len(params["shape"])
    return args, {
        **params,
        "shape": (*params["shape"], *e),
        "broadcast_dimensions": (*params["broadcast_dimensions"], *range(n, n + len(e))),
    }


def _transpose(
    args: Sequence[Any], is_view: Sequence[bool], params: dict[str, Any], e: tuple[int, ...]
) -> _Rule:
    n = len(params["permutation"])
    return args, {**params, "permutation": (*params["permutation"], *range(n, n + len(e)))}


def _slice(
    args: Sequence[Any], is_view: Sequence[bool], params: dict[str, Any], e: tuple[int, ...]
) -> _Rule:
    strides = params["strides"]
    return args, {
        **params,
        "start_indices": (*params["start_indices"], *(0 for _ in e)),
        "limit_indices": (*params["limit_indices"], *e),
        "strides": None if strides is None else (*strides, *(1 for _ in e)),
    }


def _zero_starts(starts: Sequence[Any], e: tuple[int, ...]) -> list[Any]:
    dtype = get_aval(starts[0]).dtype if starts else np.dtype(np.int32)
    return [*starts, *(np.zeros((), dtype) for _ in e)]


def _dynamic_slice(
    args: Sequence[Any], is_view: Sequence[bool], params: dict[str, Any], e: tuple[int, ...]
) -> _Rule:
    if any(is_view[1:]):
        raise TypeError("dynamic_slice: the start indices must be integers, got key arrays")
    return (args[0], *_zero_starts(args[1:], e)), {
        **params,
        "slice_sizes": (*params["slice_sizes"], *e),
    }


def _dynamic_update_slice(
    args: Sequence[Any], is_view: Sequence[bool], params: dict[str, Any], e: tuple[int, ...]
) -> _Rule:
    _all_views("dynamic_update_slice", args[:2], is_view[:2])
    if any(is_view[2:]):
        raise TypeError("dynamic_update_slice: the start indices must be integers, got keys")
    return (args[0], args[1], *_zero_starts(args[2:], e)), params


def _select_n(
    args: Sequence[Any], is_view: Sequence[bool], params: dict[str, Any], e: tuple[int, ...]
) -> _Rule:
    if is_view[0]:
        raise TypeError("select_n: the predicate must be bool or int32, got a key array")
    _all_views("select_n", args[1:], is_view[1:])
    which = args[0]
    shape = shape_of(which)
    if shape:  # one choice per element: the same for all of its data
        full = (*shape, *e)
        which = bind1(broadcast_p, which, shape=full, broadcast_dimensions=tuple(range(len(shape))))
    return (which, *args[1:]), params


def _gather(
    args: Sequence[Any], is_view: Sequence[bool], params: dict[str, Any], e: tuple[int, ...]
) -> _Rule:
    if is_view[1]:
        raise TypeError("gather: the indices must be integers, got a key array")
    dnums = params["dimension_numbers"]
    out_ndim = len(shape_of(args[1])) - 1 + len(dnums.offset_dims)
    offset = (*dnums.offset_dims, *range(out_ndim, out_ndim + len(e)))
    return args, {
        **params,
        "dimension_numbers": dnums._replace(offset_dims=offset),
        "slice_sizes": (*params["slice_sizes"], *e),
    }


view_rules[reshape_p] = _reshape
view_rules[broadcast_p] = _broadcast
view_rules[transpose_p] = _transpose
view_rules[slice_p] = _slice
view_rules[dynamic_slice_p] = _dynamic_slice
view_rules[dynamic_update_slice_p] = _dynamic_update_slice
view_rules[select_n_p] = _select_n
view_rules[gather_p] = _gather


def register_array_view(view: ArrayView) -> None:
    """Make ``view.array_type`` an array view (see :mod:`mj_core._array_views`)."""
    array_views[view.array_type] = view
    view_dtypes[view.dtype_type] = view
    eager_handlers[view.array_type] = bind_views
