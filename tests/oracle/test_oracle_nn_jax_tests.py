"""``mj.nn`` cases from JAX's own ``nn_test`` against real JAX: softmax / log_softmax on empty
axes and non-finite rows, and their derivatives."""

import jax
import numpy as np
import pytest

import mj

ROWS = {
    "empty": np.zeros((0,), np.float32),
    "empty rows": np.zeros((2, 0), np.float32),
    "all -inf": np.array([-np.inf, -np.inf], np.float32),
    "+inf": np.array([np.inf, 1.0], np.float32),
    "nan": np.array([1.0, np.nan], np.float32),
    "finite": np.array([[0.5, -2.0, 3.0], [1.0, 1.0, -np.inf]], np.float32),
}
WHERE = np.array([True, False, True])


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("row", list(ROWS), ids=str)
def test_softmax_values_as_jax(name, row, x64):
    x = ROWS[row]
    want = getattr(jax.nn, name)(x)
    got = getattr(mj.nn, name)(x)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    jitted = mj.jit(getattr(mj.nn, name))(x)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_where_and_gradient_as_jax(name, x64):
    x = np.array([0.5, -2.0, 3.0], np.float32)
    want = getattr(jax.nn, name)(x, where=WHERE)
    got = getattr(mj.nn, name)(x, where=WHERE)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    for v in (x, np.array([-np.inf, 1.0, 2.0], np.float32)):
        want_g = jax.jacrev(lambda v: getattr(jax.nn, name)(v))(v)
        got_g = mj.jacrev(lambda v: getattr(mj.nn, name)(v))(v)
        np.testing.assert_allclose(np.asarray(got_g), np.asarray(want_g), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("sampler", ["normal", "uniform", "gumbel", "truncated_normal"])
def test_bfloat16_samples_as_jax(sampler, x64):
    def draw(lib):
        key = lib.random.PRNGKey(3)
        if sampler == "truncated_normal":
            return lib.random.truncated_normal(key, -2.0, 2.0, (6,), dtype=lib.numpy.bfloat16)
        return getattr(lib.random, sampler)(key, (6,), dtype=lib.numpy.bfloat16)

    want, got = draw(jax), draw(mj)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got, np.float32), np.asarray(want, np.float32))


@pytest.mark.parametrize("make", ["uniform", "normal", "truncated_normal"])
def test_bfloat16_initializers_keep_their_dtype(make, x64):
    out = []
    for lib in (jax, mj):
        scale = lib.numpy.array(1.0, dtype=lib.numpy.float32)
        init = getattr(lib.nn.initializers, make)(scale, lib.numpy.bfloat16)
        out.append(init(lib.random.PRNGKey(0), (4, 4)))
        assert out[-1].dtype == lib.numpy.bfloat16
    want, got = (np.asarray(v, np.float32) for v in out)
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2)


def test_variance_scaling_1d_error_wording_as_jax():
    message = "Can't compute input and output sizes of a 1-dimensional weights tensor"
    for lib in (jax, mj):
        init = lib.nn.initializers.variance_scaling(1.0, "fan_avg", "truncated_normal")
        with pytest.raises(ValueError, match=message):
            init(lib.random.PRNGKey(0), (5,))
