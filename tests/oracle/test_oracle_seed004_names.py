"""The names issue 22 added, against real JAX: segment reductions (values, buckets, modes,
gradients), map_coordinates (every order and mode, and its gradient), lax.index_take,
column_stack of an array, and what grad of a custom_vjp function returns."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj.scipy.ndimage import map_coordinates
from mj_core import EagerArray

pytestmark = pytest.mark.oracle

SEGMENT_OPS = ["segment_sum", "segment_prod", "segment_max", "segment_min"]


@pytest.mark.parametrize("name", SEGMENT_OPS)
@pytest.mark.parametrize("bucket_size", [None, 3])
@pytest.mark.parametrize("mode", [None, "clip"])
def test_segment_reductions(name: str, bucket_size: int | None, mode: str | None) -> None:
    rng = np.random.default_rng(0)
    data = rng.normal(size=(8, 2))
    ids = np.array([0, 3, 3, -1, 0, 6, 1, 3])  # one negative, one past num_segments
    kwargs = {"num_segments": 5, "bucket_size": bucket_size, "mode": mode}
    want = getattr(jax.ops, name)(data, ids, **kwargs)
    got = getattr(mj.ops, name)(data, ids, **kwargs)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


@pytest.mark.parametrize("name", ["segment_sum", "segment_max", "segment_min"])
def test_segment_gradients(name: str) -> None:
    data = np.random.default_rng(1).normal(size=(7,))
    ids = np.array([2, 0, 2, 1, 0, 2, 1])
    w = np.arange(1.0, 4.0)
    want = jax.grad(lambda d: jnp.sum(getattr(jax.ops, name)(d, ids, 3) * w))(data)
    got = mj.grad(lambda d: mnp.sum(getattr(mj.ops, name)(d, ids, 3) * w))(data)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)


@pytest.mark.parametrize("order", [0, 1])
@pytest.mark.parametrize("mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
def test_map_coordinates(order: int, mode: str) -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4, 5))
    coords = [rng.uniform(-3, 7, size=6), rng.uniform(-3, 8, size=6)]
    want = jax.scipy.ndimage.map_coordinates(x, coords, order, mode=mode, cval=0.7)
    got = map_coordinates(x, coords, order, mode=mode, cval=0.7)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12)
    if order == 1:
        gw = jax.grad(
            lambda c: jnp.sum(jax.scipy.ndimage.map_coordinates(x, [c, coords[1]], 1, mode=mode))
        )
        gm = mj.grad(lambda c: mnp.sum(map_coordinates(x, [c, coords[1]], 1, mode=mode)))
        np.testing.assert_allclose(np.asarray(gm(coords[0])), np.asarray(gw(coords[0])), rtol=1e-10)


def test_index_take() -> None:
    src = np.arange(60.0).reshape(3, 4, 5)
    idxs = (np.array([0, 2, -1, 7]), np.array([4, -2, 1, 0]))
    want = jax.lax.index_take(src, idxs, (0, 2))
    got = mj.lax.index_take(src, idxs, (0, 2))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4)])
def test_column_stack_of_an_array(shape: tuple[int, ...]) -> None:
    x = np.arange(float(np.prod(shape))).reshape(shape)
    want = jnp.column_stack(jnp.asarray(x))
    got = mnp.column_stack(mnp.asarray(x))
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_grad_of_custom_vjp_returns_arrays_like_jax() -> None:
    def make(custom_vjp, np_):  # the same function, written against either library
        @custom_vjp
        def f(x, y):
            return np_.sin(x) * y

        f.defvjp(lambda x, y: (f(x, y), (np_.cos(x), y)), lambda r, g: (r[0] * g * r[1], None))
        return f

    want = jax.grad(make(jax.custom_vjp, jnp), argnums=(0, 1))(1.0, 2.0)
    got = mj.grad(make(mj.custom_vjp, mnp), argnums=(0, 1))(1.0, 2.0)
    assert all(isinstance(w, jax.Array) for w in want)
    assert all(isinstance(g, EagerArray) for g in got)  # mj's eager array, not NumPy's types
    assert [g.weak_type for g in got] == [w.weak_type for w in want]  # (weak, as JAX's)
    np.testing.assert_allclose([float(g) for g in got], [float(w) for w in want], rtol=1e-6)
