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


# Found by running autograd's test suite through a thin shim on JAX and on mj (tests that
# pass on JAX and failed on mj).


def test_kron_of_a_real_and_a_complex_array(x64):
    import jax

    import mj

    a, b = np.arange(4.0).reshape(2, 2), np.array([[1 + 2j, 0.5], [-1j, 2.0]])
    np.testing.assert_allclose(mnp.kron(a, b), jnp.kron(a, b), rtol=1e-6)
    assert mnp.kron(a, b).dtype == jnp.kron(a, b).dtype
    want = jax.grad(lambda x: jnp.kron(x, b).real.sum())(a)
    np.testing.assert_allclose(mj.grad(lambda x: mnp.kron(x, b).real.sum())(a), want, rtol=1e-6)


def test_column_stack_of_a_tuple_of_traced_arrays(x64):
    import jax

    import mj

    xs = (np.arange(2.0), np.arange(2.0, 4.0))
    f = lambda np_: lambda t: (np_.column_stack(t) ** 2).sum()  # noqa: E731
    want = jax.grad(f(jnp))(xs)
    got = mj.grad(f(mnp))(xs)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)
