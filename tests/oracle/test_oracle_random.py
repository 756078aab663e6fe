"""mj.random against jax.random: identical keys, bits and samples (JAX 0.10.2, x64 mode).

Both libraries implement Threefry-2x32 with the same seeding/splitting scheme, so integer
outputs must be bit-identical and float samples equal up to the last ulp of erf_inv.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import random as jr

import mj
import mj.numpy as mnp
from mj import random as mr

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

SEEDS = [0, 1, 42, 2**32 + 5, -1, 2**62 + 12345, 123456789]


@pytest.mark.parametrize("seed", SEEDS)
def test_prngkey_bits_match(seed):
    np.testing.assert_array_equal(mr.PRNGKey(seed), np.asarray(jr.PRNGKey(seed)))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("num", [2, 3, 7])
def test_split_matches(seed, num):
    np.testing.assert_array_equal(mr.split(mr.PRNGKey(seed), num), jr.split(jr.PRNGKey(seed), num))


def test_split_tuple_shape_matches():
    ours = mr.split(mr.PRNGKey(3), (2, 3))
    assert ours.shape == (2, 3, 2)
    np.testing.assert_array_equal(ours, jr.split(jr.PRNGKey(3), (2, 3)))


@pytest.mark.parametrize("data", [0, 1, 7, 2**31, 2**32 - 1])
def test_fold_in_matches(data):
    np.testing.assert_array_equal(
        mr.fold_in(mr.PRNGKey(11), data), jr.fold_in(jr.PRNGKey(11), data)
    )


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64])
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 1, 3)])
def test_bits_match(dtype, shape):
    ours = mr.bits(mr.PRNGKey(5), shape, dtype)
    theirs = np.asarray(jr.bits(jr.PRNGKey(5), shape, dtype))
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_uniform_matches_exactly(dtype):
    ours = mr.uniform(mr.PRNGKey(9), (4, 5), dtype)
    theirs = np.asarray(jr.uniform(jr.PRNGKey(9), (4, 5), dtype))
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scaled_uniform_matches_to_the_ulp(dtype):
    # XLA fuses `u * (hi - lo) + lo` into a fused multiply-add; NumPy rounds twice.
    ours = mr.uniform(mr.PRNGKey(9), (4, 5), dtype, -2.0, 3.0)
    theirs = np.asarray(jr.uniform(jr.PRNGKey(9), (4, 5), dtype, -2.0, 3.0))
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=4 * np.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_matches(dtype):
    ours = mr.normal(mr.PRNGKey(1), (1000,), dtype)
    theirs = np.asarray(jr.normal(jr.PRNGKey(1), (1000,), dtype))
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=32 * np.finfo(dtype).eps, atol=0)


def test_erf_inv_matches_xla():
    x = np.concatenate([np.linspace(-1, 1, 2001), [1 - 1e-12, -(1 - 1e-15), 1e-300]])
    with np.errstate(divide="ignore", invalid="ignore"):  # erf_inv(+-1) = +-inf
        ours = mj.scipy.special.erfinv(x)
    np.testing.assert_allclose(ours, jax.scipy.special.erfinv(x), rtol=1e-14, atol=0)


def test_discrete_samplers_match():
    key, jkey = mr.PRNGKey(2), jr.PRNGKey(2)
    p = np.array([0.1, 0.5, 0.9])
    np.testing.assert_array_equal(mr.bernoulli(key, p, (4, 3)), jr.bernoulli(jkey, p, (4, 3)))
    logits = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
    np.testing.assert_array_equal(
        mr.categorical(key, logits, shape=(5, 2)), jr.categorical(jkey, logits, shape=(5, 2))
    )
    np.testing.assert_array_equal(
        mr.categorical(key, logits, axis=0), jr.categorical(jkey, logits, axis=0)
    )
    for dtype in (np.int8, np.int32, np.int64, np.uint8):
        np.testing.assert_array_equal(
            mr.randint(key, (7,), 0, 200, dtype), jr.randint(jkey, (7,), 0, 200, dtype)
        )
    np.testing.assert_array_equal(
        mr.randint(key, (3, 4), np.array([-10, 0, 10, 20]), 50),
        jr.randint(jkey, (3, 4), jnp.array([-10, 0, 10, 20]), 50),
    )


@pytest.mark.parametrize("n", [1, 10, 2000])
def test_permutation_matches(n):
    np.testing.assert_array_equal(
        mr.permutation(mr.PRNGKey(4), n), jr.permutation(jr.PRNGKey(4), n)
    )


def test_permutation_of_array_matches():
    x = np.arange(24).reshape(4, 6)
    for axis in (0, 1):
        for independent in (False, True):
            ours = mr.permutation(mr.PRNGKey(8), x, axis, independent)
            theirs = jr.permutation(jr.PRNGKey(8), x, axis, independent)
            np.testing.assert_array_equal(ours, theirs)


def test_samples_match_under_jit_and_vmap():
    keys = mr.split(mr.PRNGKey(0), 4)
    jkeys = jr.split(jr.PRNGKey(0), 4)
    ours = mj.jit(mj.vmap(lambda k: mr.uniform(k, (3,))))(keys)
    theirs = jax.jit(jax.vmap(lambda k: jr.uniform(k, (3,))))(jkeys)
    np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
    ours_n = mj.vmap(lambda k: mnp.sum(mr.normal(k, (5,))))(keys)
    theirs_n = jax.vmap(lambda k: jnp.sum(jr.normal(k, (5,))))(jkeys)
    np.testing.assert_allclose(np.asarray(ours_n), np.asarray(theirs_n), rtol=1e-14)
