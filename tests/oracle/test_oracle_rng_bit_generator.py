"""``lax.rng_bit_generator`` against JAX: XLA's bits on the CPU are deterministic, so mj's
(eager, which runs the compiled primitive, and jit) must equal JAX's bit for bit, for every
algorithm and bit width, ``uint32[4]`` and ``uint64[2]`` keys; vmap follows JAX's rule (the
first key draws every element's bits)."""

import jax
import numpy as np
import pytest

import mj

ALGORITHMS = ["RNG_DEFAULT", "RNG_THREE_FRY", "RNG_PHILOX"]
DTYPES = [np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_bits_equal_jax(algorithm, dtype, jit, x64):
    if dtype is np.uint64 and not x64:
        pytest.skip("uint64 bits need x64 (both refuse it otherwise)")
    key = np.array([7, 1, 2024, 3], np.uint32)

    def fun(lax):
        return lambda k: lax.rng_bit_generator(
            k, (4, 9), dtype, getattr(lax.RandomAlgorithm, algorithm)
        )

    want_key, want_bits = fun(jax.lax)(key)
    mfun = mj.jit(fun(mj.lax)) if jit else fun(mj.lax)
    got_key, got_bits = mfun(key)
    assert got_bits.dtype == want_bits.dtype
    assert got_bits.shape == (4, 9)
    assert got_key.dtype == want_key.dtype == np.uint32
    np.testing.assert_array_equal(np.asarray(got_bits), np.asarray(want_bits))
    np.testing.assert_array_equal(np.asarray(got_key), np.asarray(want_key))


def test_uint64_key_and_jit_invariance(x64):
    if not x64:
        pytest.skip("a uint64[2] key needs x64")
    key = np.array((1, 2)).astype(np.uint64)

    def fun(lax):
        return lambda k: lax.rng_bit_generator(
            k, shape=(5, 7), algorithm=lax.RandomAlgorithm.RNG_THREE_FRY
        )

    want = fun(jax.lax)(key)
    for got in (fun(mj.lax)(key), mj.jit(fun(mj.lax))(key)):
        assert got[0].dtype == np.uint64
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("in_axis", [0, 1])
def test_vmap_as_jax(in_axis, x64):
    keys = np.arange(3 * 4).reshape((3, 4)).astype(np.uint32)
    if in_axis == 1:
        keys = keys.T

    def fun(lax):
        return lambda k: lax.rng_bit_generator(k, shape=(5, 7))

    want = jax.vmap(fun(jax.lax), in_axes=in_axis)(keys)
    got = mj.vmap(fun(mj.lax), in_axes=in_axis)(keys)
    got_jit = mj.jit(mj.vmap(fun(mj.lax), in_axes=in_axis))(keys)
    for g, gj, w in zip(got, got_jit, want, strict=True):
        assert g.shape == w.shape
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        np.testing.assert_array_equal(np.asarray(gj), np.asarray(w))
    nested = np.arange(2 * 3 * 4).reshape((2, 3, 4)).astype(np.uint32)
    want2 = jax.vmap(jax.vmap(fun(jax.lax)))(nested)
    got2 = mj.vmap(mj.vmap(fun(mj.lax)))(nested)
    for g, w in zip(got2, want2, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_empty_shape_returns_key_and_errors_as_jax(x64):
    key = np.array([3, 1, 4, 2], np.uint32)
    new_key, bits = mj.lax.rng_bit_generator(key, (0,))
    want_key = jax.lax.rng_bit_generator(key, (0,))[0]
    np.testing.assert_array_equal(np.asarray(new_key), np.asarray(want_key))
    assert bits.shape == (0,)
    for lax in (jax.lax, mj.lax):
        with pytest.raises(TypeError, match="rng_bit_generator: unsupported dtype int32"):
            lax.rng_bit_generator(key, (2,), np.int32)
    with pytest.raises(TypeError, match="uint32\\[4\\]"):
        mj.lax.rng_bit_generator(np.zeros(3, np.uint32), (2,))
    assert str(mj.lax.RandomAlgorithm.RNG_PHILOX) == str(jax.lax.RandomAlgorithm.RNG_PHILOX)
    assert int(mj.lax.RandomAlgorithm.RNG_PHILOX) == int(jax.lax.RandomAlgorithm.RNG_PHILOX)
