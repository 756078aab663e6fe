"""gather and the scatter family vs element-by-element reference loops written from the
XLA/StableHLO specification (window starts, clamping, fill/drop, batching dims)."""

import numpy as np
import pytest

from mj_core import lax
from mj_core.prims.indexing import GatherDimensionNumbers, ScatterDimensionNumbers

GDN, SDN = GatherDimensionNumbers, ScatterDimensionNumbers


def _starts(shape, idx_vec, index_map, obd, ibd, b, sizes, clip):
    start = [0] * len(shape)
    for k, d in enumerate(index_map):
        start[d] = int(idx_vec[k])
    for od, idim in zip(obd, ibd, strict=True):
        start[od] = b[idim]
    inb = all(0 <= start[d] <= shape[d] - sizes[d] for d in index_map)
    if clip:
        for d in index_map:
            start[d] = min(max(start[d], 0), shape[d] - sizes[d])
    return start, inb


def ref_gather(operand, indices, dn, slice_sizes, mode, fill):
    windows = [
        d
        for d in range(operand.ndim)
        if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims
    ]
    rank = indices.ndim - 1 + len(windows)
    batch_dims = [i for i in range(rank) if i not in dn.offset_dims]
    bshape, wshape = iter(indices.shape[:-1]), iter(slice_sizes[d] for d in windows)
    shape = tuple(next(wshape) if i in dn.offset_dims else next(bshape) for i in range(rank))
    out = np.empty(shape, operand.dtype)
    for o in np.ndindex(shape):
        b = tuple(o[i] for i in batch_dims)
        start, inb = _starts(
            operand.shape, indices[b], dn.start_index_map, dn.operand_batching_dims,
            dn.start_indices_batching_dims, b, slice_sizes, clip=True,
        )  # fmt: skip
        for j, d in enumerate(windows):
            start[d] += o[dn.offset_dims[j]]
        out[o] = fill if (mode == "fill" and not inb) else operand[tuple(start)]
    return out


def ref_scatter(combine, operand, indices, updates, dn, mode):
    out = operand.copy()
    windows = [
        d
        for d in range(operand.ndim)
        if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims
    ]
    sizes = [1] * operand.ndim
    for j, d in enumerate(windows):
        sizes[d] = updates.shape[dn.update_window_dims[j]]
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    for u in np.ndindex(updates.shape):
        b = tuple(u[d] for d in scatter_dims)
        start, inb = _starts(
            operand.shape, indices[b], dn.scatter_dims_to_operand_dims,
            dn.operand_batching_dims, dn.scatter_indices_batching_dims, b, sizes,
            clip=mode != "fill",
        )  # fmt: skip
        if not inb and mode == "fill":
            continue
        for j, d in enumerate(windows):
            start[d] += u[dn.update_window_dims[j]]
        out[tuple(start)] = combine(out[tuple(start)], updates[u])
    return out


# (operand shape, indices batch shape, gather dnums, slice sizes, index bound per entry)
GATHER_CASES = {
    "take_rows": ((5, 3), (4,), GDN((1,), (0,), (0,)), (1, 3)),
    "windows": ((6, 7), (3,), GDN((1, 2), (), (0, 1)), (2, 3)),
    "offset_in_middle": ((5, 3), (2, 4), GDN((1,), (0,), (0,)), (1, 3)),
    "point_gather": ((4, 5), (3, 2), GDN((), (0, 1), (1, 0)), (1, 1)),
    "empty_index_vector": ((2, 3), (3,), GDN((1, 2), (), ()), (2, 3)),
    "batching_leading": ((4, 5, 3), (4, 2), GDN((2,), (1,), (1,), (0,), (0,)), (1, 1, 3)),
    "batching_inner": ((5, 4, 3), (2, 4), GDN((2,), (0,), (0,), (1,), (1,)), (1, 1, 3)),
    "zero_size_batch": ((5, 3), (0,), GDN((1,), (0,), (0,)), (1, 3)),
}


def _indices(rng, operand_shape, batch_shape, index_map):
    n = len(index_map)
    bounds = [operand_shape[d] for d in index_map]
    cols = [rng.integers(-2, b + 2, size=batch_shape) for b in bounds]  # some out of bounds
    return np.stack(cols, -1).astype(np.int32) if n else np.zeros((*batch_shape, 0), np.int32)


@pytest.mark.parametrize("mode", ["clip", "fill", "promise_in_bounds"])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64"])
@pytest.mark.parametrize("case", sorted(GATHER_CASES))
def test_gather_vs_reference(case, dtype, mode, rng, rand):
    oshape, bshape, dn, sizes = GATHER_CASES[case]
    operand = rand(oshape, dtype)
    indices = _indices(rng, oshape, bshape, dn.start_index_map)
    fill = None if mode != "fill" else (True if dtype == "bool" else 7)
    out = lax.gather(operand, indices, dn, sizes, mode=mode, fill_value=fill)
    want = ref_gather(operand, indices, dn, sizes, "clip" if mode != "fill" else "fill", fill)
    assert out.dtype == operand.dtype
    np.testing.assert_array_equal(out, want)


def test_gather_default_fill_values():
    idx = np.array([[5]])
    dn = GDN((), (0,), (0,))
    assert np.isnan(lax.gather(np.ones(3), idx, dn, (1,))[0])  # mode None means fill
    assert lax.gather(np.ones(3, np.int32), idx, dn, (1,))[0] == np.iinfo(np.int32).min
    assert lax.gather(np.ones(3, np.uint8), idx, dn, (1,))[0] == 255


def test_gather_errors():
    x = np.ones((5, 3))
    with pytest.raises(TypeError, match=r"gather.*integer.*f64\[5,3\]"):
        lax.gather(x, np.ones((2, 1)), GDN((1,), (0,), (0,)), (1, 3))
    with pytest.raises(TypeError, match=r"gather: Slice size at index 1 in gather op"):
        lax.gather(x, np.ones((2, 1), np.int32), GDN((1,), (0,), (0,)), (1, 4))
    with pytest.raises(TypeError, match=r"gather: Offset dimension 0 in gather op"):
        lax.gather(x, np.ones((2, 1), np.int32), GDN((2,), (0,), (0,)), (1, 3))
    with pytest.raises(TypeError, match=r"gather: Gather op has 1 elements in start_index_map"):
        lax.gather(x, np.ones((2, 2), np.int32), GDN((1,), (0,), (0,)), (1, 3))
    with pytest.raises(TypeError, match=r"gather: Gather op requires operand batching dimensions"):
        lax.gather(x, np.ones((4, 1), np.int32), GDN((), (1,), (1,), (0,), (0,)), (1, 1))
    with pytest.raises(ValueError, match=r"mode"):
        lax.gather(x, np.ones((2, 1), np.int32), GDN((1,), (0,), (0,)), (1, 3), mode="wrap")


# (operand shape, indices batch shape, scatter dnums, updates shape)
SCATTER_CASES = {
    "rows": ((5, 3), (4,), SDN((1,), (0,), (0,)), (4, 3)),
    "points": ((4, 5), (6,), SDN((), (0, 1), (1, 0)), (6,)),
    "windows": ((6, 7), (3,), SDN((1, 2), (), (0, 1)), (3, 2, 3)),
    "window_first": ((5, 3), (2,), SDN((0,), (0,), (0,)), (3, 2)),
    "batching": ((4, 5, 3), (4, 2), SDN((2,), (1,), (1,), (0,), (0,)), (4, 2, 3)),
    "batching_inner": ((5, 4, 3), (2, 4), SDN((2,), (0,), (0,), (1,), (1,)), (2, 4, 3)),
    "scalar_operand": ((), (3,), SDN((), (), ()), (3,)),
}
COMBINE = {
    "scatter": lambda old, new: new,
    "scatter_add": np.add,
    "scatter_mul": np.multiply,
    "scatter_min": np.minimum,
    "scatter_max": np.maximum,
}


@pytest.mark.parametrize("mode", ["clip", "fill"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
@pytest.mark.parametrize("name", sorted(COMBINE))
@pytest.mark.parametrize("case", sorted(SCATTER_CASES))
def test_scatter_vs_reference(case, name, dtype, mode, rng, rand):
    oshape, bshape, dn, ushape = SCATTER_CASES[case]
    operand = rand(oshape, dtype)
    updates = rand(ushape, dtype)
    indices = _indices(rng, oshape, bshape, dn.scatter_dims_to_operand_dims)
    if name == "scatter":  # with duplicate indices the winner is unspecified: make them unique
        indices, updates = _dedupe(indices, updates, dn, bshape)
    out = getattr(lax, name)(operand, indices, updates, dn, mode=mode)
    want = ref_scatter(COMBINE[name], operand, indices, updates, dn, mode)
    assert out.dtype == operand.dtype
    np.testing.assert_allclose(out, want, rtol=1e-6)
    assert not np.shares_memory(out, operand)


def _dedupe(indices, updates, dn, bshape):
    if not bshape or dn.operand_batching_dims or len(bshape) != 1:
        return indices, updates
    _, first = np.unique(indices.reshape(bshape[0], -1), axis=0, return_index=True)
    keep = np.sort(first)
    return indices[keep], np.take(
        updates, keep, axis=next(i for i in range(updates.ndim) if i not in dn.update_window_dims)
    )


def test_scatter_drops_out_of_bounds_windows_and_accumulates_duplicates():
    x = np.zeros(5)
    out = lax.scatter_add(x, np.array([[1], [1], [7], [-1]]), np.ones(4), SDN((), (0,), (0,)))
    np.testing.assert_array_equal(out, [0, 2, 0, 0, 0])
    out = lax.scatter_add(x, np.array([[1], [7]]), np.ones(2), SDN((), (0,), (0,)), mode="clip")
    np.testing.assert_array_equal(out, [0, 1, 0, 0, 1])


def test_scatter_errors():
    x = np.ones((5, 3))
    with pytest.raises(TypeError, match=r"scatter_add.*updates.*f64\[5,3\]"):
        lax.scatter_add(x, np.ones((4, 1), np.int32), np.ones((3, 3)), SDN((1,), (0,), (0,)))
    with pytest.raises(TypeError, match=r"scatter.*same dtype"):
        lax.scatter(
            x, np.ones((4, 1), np.int32), np.ones((4, 3), np.float32), SDN((1,), (0,), (0,))
        )
    with pytest.raises(TypeError, match=r"scatter_mul.*unsupported dtype bool"):
        lax.scatter_mul(
            x > 0, np.ones((4, 1), np.int32), np.ones((4, 3), bool), SDN((1,), (0,), (0,))
        )
