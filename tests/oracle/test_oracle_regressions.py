"""Disagreements with JAX found by the differential tests, one regression test each (all of
them fixed: each test passes)."""

import jax.numpy as jnp
import numpy as np
import pytest

import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def test_at_on_the_result_of_an_eager_op():
    x = np.arange(3.0)
    want = jnp.sin(x).at[0].set(1.0)
    got = mnp.sin(mnp.asarray(x)).at[0].set(1.0)
    np.testing.assert_allclose(got, want)


def test_methods_on_eager_results_behave_like_jax_arrays():
    x = np.arange(6.0).reshape(2, 3)
    j, m = jnp.asarray(x), mnp.asarray(x)
    pairs = [
        (jnp.dot(j, j.T).block_until_ready(), mnp.dot(m, m.T).block_until_ready()),
        ((j + 1).at[0, 1].add(5.0), (m + 1).at[0, 1].add(5.0)),
        (j.sum().at[()].set(2.0), m.sum().at[()].set(2.0)),
        (j[0][5], m[0][5]),  # out-of-bounds reads clamp on results too
        (jnp.sin(j).T.at[1].multiply(3.0), mnp.sin(m).T.at[1].multiply(3.0)),
    ]
    for want, got in pairs:
        assert got.shape == want.shape
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    with pytest.raises(TypeError):
        mnp.sin(m)[0, 0] = 1.0


@pytest.mark.parametrize("mode", [None, "fill", "clip", "wrap"])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8])
def test_take_out_of_bounds_rules_match_jax(mode, dtype):
    import mj

    x = np.arange(10, dtype=dtype).reshape(2, 5)
    idx = np.array([1, 7, -1, -9, 4])
    for axis in (None, 1, -1):
        want = jnp.take(jnp.asarray(x), idx, axis=axis, mode=mode)
        for got in (
            mnp.take(x, idx, axis=axis, mode=mode),
            mnp.asarray(x).take(idx, axis=axis, mode=mode),
            mj.jit(lambda a, i, ax=axis: mnp.take(a, i, axis=ax, mode=mode))(x, idx),
        ):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
