"""``gather`` and the ``scatter`` family, with XLA/StableHLO semantics.

The index vector is always the last dimension of ``indices``; every other dimension of
``indices`` is a batch ("scatter") dimension. ``operand_batching_dims`` pair operand dimensions
with index batch dimensions (``start_indices_batching_dims`` / ``scatter_indices_batching_dims``)
so that batch element ``b`` only reads or writes operand slice ``b`` (what vmap of indexing
produces).

Out-of-bounds handling (``mode``): ``"clip"`` and ``"promise_in_bounds"`` clamp each start
index so the whole window fits; ``"fill"`` makes a gather return ``fill_value`` for a window
that does not fit, and makes a scatter drop such a window's updates.

The impl rules compute, for every output (or update) element, the operand coordinate it reads
(or writes) as broadcast NumPy index arrays, then use one advanced-indexing read or one
``ufunc.at`` write: no Python loop over elements.

The lax wrappers ``gather`` and ``scatter``/``scatter_add``/... (``mode`` names as in
``jax.lax``) follow the rules; ``__all__`` is the family's primitives and lax API.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any, NamedTuple, Protocol

import numpy as np

from mj_core._avals import ShapedArray
from mj_core._lattice import kind
from mj_core._primitive import Primitive, RuleTable, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error, lax_ints
from mj_core._typing import Array, ArrayLike
from mj_core.prims._operands import bind1, check_operands, common_dtype
from mj_core.prims.elementwise import neg

__all__ = [
    "GatherDimensionNumbers",
    "ScatterDimensionNumbers",
    "gather",
    "gather_p",
    "scatter",
    "scatter_add",
    "scatter_add_p",
    "scatter_apply",
    "scatter_max",
    "scatter_max_p",
    "scatter_min",
    "scatter_min_p",
    "scatter_mul",
    "scatter_mul_p",
    "scatter_p",
    "scatter_sub",
]

MODES = ("clip", "fill", "promise_in_bounds")


class GatherDimensionNumbers(NamedTuple):
    """How ``gather`` maps index vectors to operand windows and windows to output dims.

    ``offset_dims``: output dims holding the window dims (in order). ``collapsed_slice_dims``:
    operand dims whose window size is 1 and that do not appear in the output.
    ``start_index_map``: the operand dim each index-vector entry starts. ``operand_batching_dims``
    / ``start_indices_batching_dims``: paired operand / indices batch dims.
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How ``scatter`` maps update elements to operand elements.

    ``update_window_dims``: dims of ``updates`` that are window dims. ``inserted_window_dims``:
    operand dims with window size 1 absent from ``updates``. ``scatter_dims_to_operand_dims``:
    the operand dim each index-vector entry starts. ``operand_batching_dims`` /
    ``scatter_indices_batching_dims``: paired operand / indices batch dims.
    """

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


def window_dims(
    operand_ndim: int, dn: GatherDimensionNumbers | ScatterDimensionNumbers
) -> list[int]:
    """The operand dims a gather's slice (a scatter's update window) spans as window dims, in
    order: those neither collapsed (inserted) nor batching."""
    if isinstance(dn, GatherDimensionNumbers):
        skip = dn.collapsed_slice_dims
    else:
        skip = dn.inserted_window_dims
    return [d for d in range(operand_ndim) if d not in skip and d not in dn.operand_batching_dims]


def scatter_window_sizes(
    dn: ScatterDimensionNumbers, operand_ndim: int, updates_shape: Sequence[int]
) -> tuple[int, ...]:
    """Per operand dim, the extent of a scatter's update window (1 for inserted and batching
    dims): the slice sizes of the gather that reads what the scatter writes."""
    sizes = [1] * operand_ndim
    for d, u in zip(window_dims(operand_ndim, dn), dn.update_window_dims, strict=True):
        sizes[d] = updates_shape[u]
    return tuple(sizes)


def _first_out_of_range(dims: Sequence[int], bound: int) -> int | None:
    return next((d for d in dims if not 0 <= d < bound), None)


class _Checker:
    """The structural checks of gather and scatter, in the order of JAX's shape rules and with
    their wording (``jax._src.lax.slicing``); the error adds the operands and the user's line
    after it."""

    __slots__ = ("avals", "name", "op")

    def __init__(self, name: str, op: str, avals: Sequence[ShapedArray]) -> None:
        self.name = name  # the primitive (scatter-add, ...)
        self.op = op  # "gather" or "scatter", as JAX's messages say
        self.avals = avals

    def require(self, ok: bool, detail: str) -> None:
        if not ok:
            raise aval_error(self.name, detail, self.avals)

    def sorted_(self, dims: Sequence[int], what: str) -> None:
        self.require(
            all(a <= b for a, b in pairwise(dims)),
            f"{what} in {self.op} op must be sorted; got {tuple(dims)}",
        )

    def unique(self, dims: Sequence[int], what: str) -> None:
        self.require(
            len(set(dims)) == len(dims), f"{what} in {self.op} op must not repeat; got: {dims}."
        )

    def in_range(self, dims: Sequence[int], bound: int, what: str) -> None:
        bad = _first_out_of_range(dims, bound)
        self.require(
            bad is None,
            f"Invalid {what} set in {self.op} op; valid range is [0, {bound}); got: {bad}.",
        )

    def disjoint(self, dims1: Sequence[int], dims2: Sequence[int], what1: str, what2: str) -> None:
        self.require(
            not set(dims1) & set(dims2),
            f"{what1} and {what2} in {self.op} op must be disjoint; got: {tuple(dims1)} and "
            f"{tuple(dims2)}.",
        )

    def index_map(
        self, operand: ShapedArray, indices: ShapedArray, dims: Sequence[int], what: str
    ) -> None:
        ivd = indices.ndim - 1
        op = self.op.capitalize()
        self.require(
            len(dims) == indices.shape[ivd],
            f"{op} op has {len(dims)} elements in {what} and the bound of dimension "
            f"index_vector_dim={ivd} of indices is {indices.shape[ivd]}. These two numbers must "
            f"be equal{'.' if self.op == 'gather' else ''}",
        )
        for i, d in enumerate(dims):
            self.require(
                0 <= d < operand.ndim,
                f"Invalid {what}{' mapping' if self.op == 'scatter' else ''}; domain is "
                f"[0, {operand.ndim}), got: {i}->{d}.",
            )

    def batching(
        self,
        operand: ShapedArray,
        indices: ShapedArray,
        operand_batching_dims: Sequence[int],
        indices_batching_dims: Sequence[int],
        what: str,
    ) -> None:
        """The indices-batching-dims checks, common to gather and scatter."""
        ivd = indices.ndim - 1
        op = self.op.capitalize()
        self.unique(indices_batching_dims, what)
        bad = _first_out_of_range(indices_batching_dims, indices.ndim)
        self.require(
            bad is None,
            f"Invalid {what} set in {self.op} op; valid range is [0, {indices.ndim}); got: {bad}.",
        )
        self.require(
            ivd not in indices_batching_dims,
            f"{op} op cannot have the index vector dimension as a batching dimension; got "
            f"{tuple(indices_batching_dims)}.",
        )
        self.require(
            len(operand_batching_dims) == len(indices_batching_dims),
            f"{op} op requires equal numbers of operand_batching_dims and {what}, got "
            f"{tuple(operand_batching_dims)} and {tuple(indices_batching_dims)}.",
        )
        obs = tuple(operand.shape[d] for d in operand_batching_dims)
        ibs = tuple(indices.shape[d] for d in indices_batching_dims)
        self.require(
            obs == ibs,
            f"{op} op requires operand batching dimensions and indices batching dimensions to "
            f"have the same shape, got {obs} and {ibs}.",
        )


# --- gather -----------------------------------------------------------------------------------
gather_p = Primitive("gather")


@abstract_eval_rules.register(gather_p)
def _gather_avals(
    operand: ShapedArray,
    indices: ShapedArray,
    *,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: tuple[int, ...],
    mode: str,
    fill_value: ArrayLike,
) -> list[ShapedArray]:
    dn = dimension_numbers
    check = _Checker("gather", "gather", (operand, indices))
    check.require(mode in MODES, f"mode must be one of {MODES}, got {mode!r}")
    check.require(indices.dtype.kind in "iu", "indices must have an integer type")
    check.require(indices.ndim >= 1, "indices need a last dimension (the index vector)")
    check.sorted_(dn.offset_dims, "offset_dims")
    check.unique(dn.offset_dims, "offset_dims")
    out_rank = len(dn.offset_dims) + indices.ndim - 1
    for i, d in enumerate(dn.offset_dims):
        check.require(
            0 <= d < out_rank,
            f"Offset dimension {i} in gather op is out of bounds; got {d}, but should have "
            f"been in [0, {out_rank})",
        )
    check.index_map(operand, indices, dn.start_index_map, "start_index_map")
    check.unique(dn.start_index_map, "start_index_map")
    check.sorted_(dn.collapsed_slice_dims, "collapsed_slice_dims")
    check.in_range(dn.collapsed_slice_dims, operand.ndim, "collapsed_slice_dims")
    check.unique(dn.collapsed_slice_dims, "collapsed_slice_dims")
    check.unique(dn.operand_batching_dims, "operand_batching_dims")
    check.sorted_(dn.operand_batching_dims, "operand_batching_dims")
    check.in_range(dn.operand_batching_dims, operand.ndim, "operand_batching_dims")
    check.disjoint(
        dn.collapsed_slice_dims,
        dn.operand_batching_dims,
        "collapsed_slice_dims",
        "operand_batching_dims",
    )
    check.disjoint(
        dn.start_index_map, dn.operand_batching_dims, "start_index_map", "operand_batching_dims"
    )
    check.batching(
        operand,
        indices,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
        "start_indices_batching_dims",
    )
    check.require(
        len(slice_sizes) == operand.ndim,
        "Gather op must have one slice size for every input dimension; got: "
        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}",
    )
    check.require(
        len(slice_sizes)
        == len(dn.offset_dims) + len(dn.collapsed_slice_dims) + len(dn.operand_batching_dims),
        "All components of the offset index in a gather op must either be a offset dimension "
        f"or explicitly collapsed/batching; got len(slice_sizes)={len(slice_sizes)}, "
        f"output_slice_sizes={dn.offset_dims}, collapsed_slice_dims="
        f"{dn.collapsed_slice_dims}, operand_batching_dims={dn.operand_batching_dims}.",
    )
    if 0 not in indices.shape:
        for i, (size, bound) in enumerate(zip(slice_sizes, operand.shape, strict=True)):
            check.require(
                0 <= size <= bound,
                f"Slice size at index {i} in gather op is out of range, must be within "
                f"[0, {bound} + 1), got {size}.",
            )
    for i, d in enumerate(dn.collapsed_slice_dims):
        check.require(
            slice_sizes[d] == 1,
            "Gather op can only collapse slice dims with bound 1, but bound is "
            f"{slice_sizes[d]} for index {d} at position {i}.",
        )
    for i, d in enumerate(dn.operand_batching_dims):
        check.require(
            slice_sizes[d] <= 1,
            "Gather op can only have operand batching dims with bound 0/1, but bound is "
            f"{slice_sizes[d]} for index {d} at position {i}.",
        )
    window = [slice_sizes[d] for d in window_dims(operand.ndim, dn)]
    batch_sizes = iter(indices.shape[:-1])
    window_sizes = iter(window)
    shape = tuple(
        next(window_sizes) if i in dn.offset_dims else next(batch_sizes) for i in range(out_rank)
    )
    return [ShapedArray(shape, operand.dtype, operand.weak_type)]


def _default_fill(dtype: np.dtype[Any]) -> Any:
    """JAX's gather fill: NaN for inexact, the minimum (signed) or maximum (unsigned) integer,
    True for bool."""
    if kind(dtype) in "fc":
        return np.nan
    if dtype.kind == "i":
        return np.iinfo(dtype).min
    if dtype.kind == "u":
        return np.iinfo(dtype).max
    return True


def _window_coordinates(
    operand_shape: tuple[int, ...],
    indices: np.ndarray[Any, Any],
    index_map: Sequence[int],
    operand_batching_dims: Sequence[int],
    indices_batching_dims: Sequence[int],
    window_sizes: Sequence[int],
    window_dims: Sequence[int],
    clip: bool,
) -> tuple[list[np.ndarray[Any, Any]], np.ndarray[Any, Any]]:
    """Operand coordinates of every (batch..., window...) element, and the in-bounds mask.

    ``window_sizes[d]`` is the window extent along operand dim ``d``; ``window_dims`` are the
    operand dims that appear as window dims (in order). Coordinates broadcast to shape
    ``batch_shape + window_shape``; the mask has ``batch_shape + (1,) * len(window_dims)``.
    """
    batch_shape = indices.shape[:-1]
    nb, nw = len(batch_shape), len(window_dims)
    idx = indices.astype(np.int64, copy=False)
    starts: list[np.ndarray[Any, Any]] = [np.zeros(batch_shape, np.int64)] * len(operand_shape)
    in_bounds = np.ones(batch_shape, bool)
    for k, d in enumerate(index_map):
        start = idx[..., k]
        limit = operand_shape[d] - window_sizes[d]
        in_bounds &= (start >= 0) & (start <= limit)
        starts[d] = np.clip(start, 0, limit) if clip else start
    for od, idim in zip(operand_batching_dims, indices_batching_dims, strict=True):
        line = [1] * nb
        line[idim] = batch_shape[idim]
        starts[od] = np.broadcast_to(np.arange(batch_shape[idim]).reshape(line), batch_shape)
    tail = (1,) * nw
    coords = []
    for d, start in enumerate(starts):
        coord = start.reshape(batch_shape + tail)
        if d in window_dims:
            j = window_dims.index(d)
            line = [1] * (nb + nw)
            line[nb + j] = window_sizes[d]
            coord = coord + np.arange(window_sizes[d]).reshape(line)
        coords.append(coord)
    return coords, in_bounds.reshape(batch_shape + tail)


@impl_rules.register(gather_p)
def _gather_impl(operand: Any, indices: Any, **params: Any) -> list[Any]:
    """Params as in :func:`_gather_avals`, which checks them."""
    (out,) = check_operands(gather_p, (operand, indices), params)
    dn: GatherDimensionNumbers = params["dimension_numbers"]
    slice_sizes: tuple[int, ...] = params["slice_sizes"]
    mode, fill_value = params["mode"], params["fill_value"]
    op = np.asarray(operand)
    idx = np.asarray(indices)
    window = window_dims(op.ndim, dn)
    coords, in_bounds = _window_coordinates(
        op.shape,
        idx,
        dn.start_index_map,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
        slice_sizes,
        window,
        clip=True,
    )
    nb, nw = idx.ndim - 1, len(window)
    window_shape = tuple(slice_sizes[d] for d in window)
    if op.ndim == 0:
        gathered = np.broadcast_to(op, idx.shape[:-1])
    else:
        gathered = (
            op[tuple(coords)] if op.size else np.zeros(idx.shape[:-1] + window_shape, op.dtype)
        )
    gathered = np.broadcast_to(gathered, idx.shape[:-1] + window_shape)
    if mode == "fill":
        fill = _default_fill(op.dtype) if fill_value is None else fill_value
        gathered = np.where(in_bounds, gathered, np.asarray(fill, op.dtype))
    return [np.moveaxis(gathered, range(nb, nb + nw), dn.offset_dims).astype(out.dtype, copy=False)]


# --- scatter family ---------------------------------------------------------------------------
def _scatter_avals(
    name: str,
    kinds: str,
    operand: ShapedArray,
    indices: ShapedArray,
    updates: ShapedArray,
    dn: ScatterDimensionNumbers,
    mode: str,
) -> list[ShapedArray]:
    check = _Checker(name, "scatter", (operand, indices, updates))
    check.require(mode in MODES, f"mode must be one of {MODES}, got {mode!r}")
    check.require(indices.dtype.kind in "iu", "indices must have an integer type")
    check.require(indices.ndim >= 1, "indices need a last dimension (the index vector)")
    ivd = indices.ndim - 1
    rank = ivd + len(dn.update_window_dims)
    check.require(
        updates.ndim == rank, f"Updates tensor must be of rank {rank}; got {updates.ndim}."
    )
    check.sorted_(dn.update_window_dims, "update_window_dims")
    check.unique(dn.update_window_dims, "update_window_dims")
    check.in_range(dn.update_window_dims, updates.ndim, "update_window_dims")
    check.sorted_(dn.inserted_window_dims, "inserted_window_dims")
    check.unique(dn.inserted_window_dims, "inserted_window_dims")
    check.in_range(dn.inserted_window_dims, operand.ndim, "inserted_window_dims")
    check.sorted_(dn.operand_batching_dims, "operand_batching_dims")
    check.unique(dn.operand_batching_dims, "operand_batching_dims")
    check.in_range(dn.operand_batching_dims, operand.ndim, "operand_batching_dims")
    check.disjoint(
        dn.inserted_window_dims,
        dn.operand_batching_dims,
        "inserted_window_dims",
        "operand_batching_dims",
    )
    check.disjoint(
        dn.scatter_dims_to_operand_dims,
        dn.operand_batching_dims,
        "scatter_dims_to_operand_dims",
        "operand_batching_dims",
    )
    check.batching(
        operand,
        indices,
        dn.operand_batching_dims,
        dn.scatter_indices_batching_dims,
        "scatter_indices_batching_dims",
    )
    # the updates dim of each indices batch dim: updates' non-window dims, in order
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    obs = tuple(operand.shape[d] for d in dn.operand_batching_dims)
    ubs = tuple(updates.shape[scatter_dims[d]] for d in dn.scatter_indices_batching_dims)
    check.require(
        obs == ubs,
        "Scatter op requires operand batching dimensions and updates batching dimensions to "
        f"have the same shape, got {obs} and {ubs}.",
    )
    size = len(dn.update_window_dims) + len(dn.inserted_window_dims)
    size += len(dn.operand_batching_dims)
    check.require(
        operand.ndim == size,
        f"Scatter op has window of size {size}; doesn't match operand of rank {operand.ndim}.",
    )
    check.index_map(
        operand, indices, dn.scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims"
    )
    check.unique(dn.scatter_dims_to_operand_dims, "scatter_dims_to_operand_dims")
    for u, d in zip(dn.update_window_dims, window_dims(operand.ndim, dn), strict=True):
        check.require(
            updates.shape[u] <= operand.shape[d],
            "Bounds of the window dimensions of updates must not exceed the bounds of the "
            f"corresponding dimensions of operand. For dimension {u}, updates bound is "
            f"{updates.shape[u]}, operand bound is {operand.shape[d]}.",
        )
    for u, bound in zip(scatter_dims, indices.shape[:-1], strict=True):
        check.require(
            updates.shape[u] == bound,
            "Bounds of the scatter dimensions of updates must be the same as the bounds of the "
            f"corresponding dimensions of scatter indices. For scatter dimension {u}, updates "
            f"bound is {updates.shape[u]}, indices bound is {bound}.",
        )
    dtype, _ = common_dtype(name, (operand, updates))
    check.require(kind(dtype) in kinds, f"unsupported dtype {dtype.name}")
    return [ShapedArray(operand.shape, dtype, operand.weak_type)]


def _scatter_into(
    combine: Callable[[np.ndarray[Any, Any], tuple[Any, ...], Any], None],
    operand: ArrayLike,
    indices: object,
    updates: object,
    dn: ScatterDimensionNumbers,
    mode: str,
    dtype: np.dtype[Any],
) -> np.ndarray[Any, Any]:
    out = np.array(operand, dtype=dtype, copy=True)
    idx = np.asarray(indices)
    upd = np.asarray(updates, dtype)
    window = window_dims(out.ndim, dn)
    sizes = scatter_window_sizes(dn, out.ndim, upd.shape)
    nw = len(window)
    # updates as batch_shape + window_shape
    upd = np.moveaxis(upd, dn.update_window_dims, range(upd.ndim - nw, upd.ndim))
    coords, in_bounds = _window_coordinates(
        out.shape,
        idx,
        dn.scatter_dims_to_operand_dims,
        dn.operand_batching_dims,
        dn.scatter_indices_batching_dims,
        sizes,
        window,
        clip=mode != "fill",
    )
    if out.ndim == 0:  # view the scalar as a 1-element vector so it can be indexed
        target = out.reshape(1)
        coords = [np.zeros(upd.shape, np.int64)]
    else:
        target = out
    full = [np.broadcast_to(c, upd.shape) for c in coords]
    if mode == "fill":
        keep = np.broadcast_to(in_bounds, upd.shape)
        full = [c[keep] for c in full]
        upd = upd[keep]
    combine(target, tuple(full), upd)
    return out


def _assign(target: np.ndarray[Any, Any], index: tuple[Any, ...], values: ArrayLike) -> None:
    target[index] = values


def _define_scatter(
    name: str, kinds: str, combine: Callable[[np.ndarray[Any, Any], tuple[Any, ...], Any], None]
) -> Primitive:
    prim = Primitive(name)

    def out_avals(
        operand: ShapedArray,
        indices: ShapedArray,
        updates: ShapedArray,
        *,
        dimension_numbers: ScatterDimensionNumbers,
        indices_are_sorted: bool,
        unique_indices: bool,
        mode: str,
    ) -> list[ShapedArray]:
        return _scatter_avals(name, kinds, operand, indices, updates, dimension_numbers, mode)

    def impl(operand: Any, indices: Any, updates: Any, **params: Any) -> list[Any]:
        (out,) = check_operands(prim, (operand, indices, updates), params)
        dn, mode = params["dimension_numbers"], params["mode"]
        return [_scatter_into(combine, operand, indices, updates, dn, mode, out.dtype)]

    out_avals.__name__ = f"_{name}_avals"
    impl.__name__ = f"_{name}_impl"
    abstract_eval_rules[prim] = out_avals
    impl_rules[prim] = impl
    return prim


scatter_p = _define_scatter("scatter", "biufc", _assign)
scatter_add_p = _define_scatter("scatter_add", "iufc", np.add.at)
scatter_mul_p = _define_scatter("scatter_mul", "iufc", np.multiply.at)
scatter_min_p = _define_scatter("scatter_min", "biuf", np.minimum.at)
scatter_max_p = _define_scatter("scatter_max", "biuf", np.maximum.at)


# --- lax wrappers ----------------------------------------------------------------------------
def gather_scatter_mode(mode: object) -> str:
    """``"fill"``, ``"clip"`` or ``"promise_in_bounds"`` for a mode as JAX takes it (None,
    the default, ``"fill"`` and ``"drop"`` mean fill-or-drop; a ``GatherScatterMode``), else
    JAX's ``ValueError``: the one reading of ``mode=`` for gathers, scatters, ``x.at[...]``
    and the segment reductions."""
    name = getattr(mode, "name", mode)
    if name is None or str(name).lower() in ("fill", "drop", "fill_or_drop"):
        return "fill"
    name = str(name).lower()
    if name not in ("clip", "promise_in_bounds"):
        raise ValueError(f'Unknown gather mode "{mode}"')
    return name


def _gather_dnums(dn: GatherDimensionNumbers) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(*(lax_ints(d) for d in dn))


def _scatter_dnums(dn: ScatterDimensionNumbers) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(*(lax_ints(d) for d in dn))


def gather(
    operand: ArrayLike,
    start_indices: ArrayLike,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: Any = None,
    fill_value: Any = None,
) -> Array:
    """XLA gather (``jax.lax.gather``); the index vector is the last dim of ``start_indices``."""
    return bind1(
        gather_p,
        operand,
        start_indices,
        dimension_numbers=_gather_dnums(dimension_numbers),
        slice_sizes=lax_ints(slice_sizes),
        mode=gather_scatter_mode(mode),
        fill_value=fill_value,
    )


class _ScatterFn(Protocol):
    """The signature shared by the ``scatter*`` wrappers (``jax.lax.scatter_add`` & co)."""

    def __call__(
        self,
        operand: ArrayLike,
        scatter_indices: ArrayLike,
        updates: ArrayLike,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: Any = None,
    ) -> Array: ...


def _scatter_wrapper(
    prim: Primitive, doc: str, *, name: str | None = None, negate: bool = False
) -> _ScatterFn:
    """The lax wrapper of one scatter-family primitive: they differ only in how an update
    combines with the operand (``negate``: the primitive's of ``-updates``, under ``name``)."""

    def wrapper(
        operand: ArrayLike,
        scatter_indices: ArrayLike,
        updates: ArrayLike,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: object = None,
    ) -> Array:
        return bind1(
            prim,
            operand,
            scatter_indices,
            neg(updates) if negate else updates,
            dimension_numbers=_scatter_dnums(dimension_numbers),
            indices_are_sorted=bool(indices_are_sorted),
            unique_indices=bool(unique_indices),
            mode=gather_scatter_mode(mode),
        )

    wrapper.__name__ = wrapper.__qualname__ = prim.name if name is None else name
    wrapper.__doc__ = doc
    return wrapper


scatter = _scatter_wrapper(
    scatter_p, "XLA scatter that overwrites (with repeated indices, one update wins)."
)
scatter_add = _scatter_wrapper(
    scatter_add_p, "XLA scatter that adds (updates at repeated indices accumulate)."
)
scatter_sub = _scatter_wrapper(
    scatter_add_p,
    "XLA scatter that subtracts (updates at repeated indices accumulate): ``scatter_add`` of "
    "``-updates``.",
    name="scatter_sub",
    negate=True,
)
scatter_mul = _scatter_wrapper(
    scatter_mul_p, "XLA scatter that multiplies (updates at repeated indices accumulate)."
)
scatter_min = _scatter_wrapper(
    scatter_min_p, "XLA scatter that keeps the minimum of the operand and the updates."
)
scatter_max = _scatter_wrapper(
    scatter_max_p, "XLA scatter that keeps the maximum of the operand and the updates."
)


#: ``lax.scatter_apply``'s implementation, the entry of ``scatter_p``: JAX binds ``scatter_p``
#: with ``func`` as its update computation, so repeated indices apply ``func`` repeatedly, and
#: mj's does that in a loop, which mj-control owns (its ``while_loop``): mj-control registers
#: ``rule(operand, scatter_indices, func, dimension_numbers, *, update_shape,
#: indices_are_sorted, unique_indices, mode) -> Array`` here when it is imported.
scatter_apply_rules: RuleTable[Callable[..., Array]] = RuleTable(
    "scatter_apply_rules",
    "scatter_apply (a function applied where it writes)",
    "mj_core.extend",
    where="mj_core.extend.scatter_apply_rules[scatter_p] (mj-control registers its loop "
    "there: import mj_control)",
)


def scatter_apply(
    operand: ArrayLike,
    scatter_indices: ArrayLike,
    func: Callable[[Array], Array],
    dimension_numbers: ScatterDimensionNumbers,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: object = None,
) -> Array:
    """``operand`` with the elementwise ``func`` applied where the scatter
    (``dimension_numbers``, updates of ``update_shape``) writes, once per write: repeated
    indices apply ``func`` repeatedly, as JAX's ``scatter`` with ``lambda x, _: func(x)``.
    Not differentiable, as in JAX (``NotImplementedError``). The loop is mj-control's rule in
    :data:`scatter_apply_rules` (``x.at[idx].apply(func)`` is this function too)."""
    return scatter_apply_rules[scatter_p](
        operand,
        scatter_indices,
        func,
        _scatter_dnums(dimension_numbers),
        update_shape=lax_ints(update_shape),
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
        mode=gather_scatter_mode(mode),
    )
