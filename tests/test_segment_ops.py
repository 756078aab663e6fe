"""``mj.ops.segment_sum`` and its siblings against a NumPy loop over the segments, with
JAX's empty-segment identities, out-of-range ids, buckets, ``jit``/``vmap`` and gradients."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import ops
from mj_core.errors import ConcretizationError

REDUCTIONS: dict[str, tuple[Callable[..., mj.Array], Callable[..., np.ndarray], float]] = {
    "segment_sum": (ops.segment_sum, np.sum, 0.0),
    "segment_prod": (ops.segment_prod, np.prod, 1.0),
    "segment_max": (ops.segment_max, np.max, -np.inf),
    "segment_min": (ops.segment_min, np.min, np.inf),
}


def _reference(
    reduce: Callable[..., np.ndarray], empty: float, data: np.ndarray, ids: np.ndarray, n: int
) -> np.ndarray:
    out = np.full((n, *data.shape[1:]), empty)
    for s in range(n):
        rows = data[ids == s]
        if len(rows):
            out[s] = reduce(rows, axis=0)
    return out


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.normal(size=(9, 3)), np.array([0, 2, 2, 0, 4, 2, 0, 4, 4])


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("bucket_size", [None, 2, 4])
def test_matches_a_loop_over_segments(name: str, bucket_size: int | None) -> None:
    op, reduce, empty = REDUCTIONS[name]
    data, ids = _data()
    got = op(data, ids, num_segments=6, bucket_size=bucket_size)
    np.testing.assert_allclose(np.asarray(got), _reference(reduce, empty, data, ids, 6))


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_num_segments_defaults_to_max_id_plus_one(name: str) -> None:
    op, reduce, empty = REDUCTIONS[name]
    data, ids = _data()
    np.testing.assert_allclose(np.asarray(op(data, ids)), _reference(reduce, empty, data, ids, 5))


def test_out_of_range_ids_are_dropped_or_clipped() -> None:
    data = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    ids = np.array([0, -1, 1, 5, 1])
    np.testing.assert_array_equal(np.asarray(ops.segment_sum(data, ids, 3)), [1.0, 20.0, 0.0])
    # clip: -1 -> 0, 5 -> 2
    np.testing.assert_array_equal(
        np.asarray(ops.segment_sum(data, ids, 3, mode="clip")), [3.0, 20.0, 8.0]
    )


def test_integer_data_keeps_its_dtype_and_identities() -> None:
    data = np.array([3, -7, 5], np.int32)
    ids = np.array([0, 0, 2])
    assert ops.segment_sum(data, ids, 3).dtype == np.int32
    info = np.iinfo(np.int32)
    np.testing.assert_array_equal(np.asarray(ops.segment_max(data, ids, 3)), [3, info.min, 5])
    np.testing.assert_array_equal(np.asarray(ops.segment_min(data, ids, 3)), [-7, info.max, 5])


def test_jit_needs_num_segments_and_then_matches_eager() -> None:
    data, ids = _data()
    eager = ops.segment_sum(data, ids, 5)
    jitted = mj.jit(lambda d, i: ops.segment_sum(d, i, num_segments=5))(data, ids)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager))
    with pytest.raises(ConcretizationError, match=r"segment_sum: segment_ids must be concrete"):
        mj.jit(ops.segment_sum)(data, ids)


def test_vmap_over_data() -> None:
    data, ids = _data()
    batch = np.stack([data, 2 * data])
    out = mj.vmap(lambda d: ops.segment_max(d, ids, 5))(batch)
    np.testing.assert_allclose(np.asarray(out[1]), 2 * np.asarray(ops.segment_max(data, ids, 5)))


def test_segment_sum_gradient_gathers_the_cotangent() -> None:
    data, ids = _data()
    w = np.arange(15.0).reshape(5, 3)
    g = mj.grad(lambda d: mnp.sum(ops.segment_sum(d, ids, 5) * w))(data)
    np.testing.assert_allclose(np.asarray(g), w[ids])  # d out[s] / d data[i] = [ids[i] == s]


@pytest.mark.parametrize("name", ["segment_max", "segment_min"])
def test_extremum_gradient_goes_to_the_winner(name: str) -> None:
    op = REDUCTIONS[name][0]
    pick = np.argmax if name == "segment_max" else np.argmin
    data, ids = _data()  # random normals: no ties within a segment
    g = np.asarray(mj.grad(lambda d: mnp.sum(op(d, ids, 5)))(data))
    expected = np.zeros_like(data)
    for s in set(ids.tolist()):
        rows = np.flatnonzero(ids == s)
        expected[rows[pick(data[rows], axis=0)], np.arange(3)] = 1.0
    np.testing.assert_allclose(g, expected)


def test_segment_prod_gradient_needs_unique_indices_as_in_jax() -> None:
    data = np.array([2.0, 3.0, 5.0])
    g = mj.grad(lambda d: mnp.sum(ops.segment_prod(d, np.array([2, 0, 1]), 3, unique_indices=True)))
    np.testing.assert_allclose(np.asarray(g(data)), [1.0, 1.0, 1.0])
    with pytest.raises(NotImplementedError, match="unique_indices=True"):
        mj.grad(lambda d: mnp.sum(ops.segment_prod(d, np.array([0, 0, 1]), 2)))(data)


def test_bad_segment_ids_name_the_function() -> None:
    data, _ = _data()
    with pytest.raises(ValueError, match=r"segment_min: segment_ids must be a 1-D array .*\(4,\)"):
        ops.segment_min(data, np.zeros(4, int), 2)
    with pytest.raises(TypeError, match=r"segment_sum: segment_ids must be integers, got float"):
        ops.segment_sum(data, np.zeros(9), 2)
    with pytest.raises(ValueError, match=r"segment_sum: num_segments must be non-negative"):
        ops.segment_sum(data, np.zeros(9, int), -1)
