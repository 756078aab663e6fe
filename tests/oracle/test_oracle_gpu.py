"""mj on a GPU against JAX on the same GPU, in one process: the same programs give JAX's
numbers there (default-precision matmuls, complex convolutions, ``eig`` through cuSOLVER,
pivoted LU, running products, random bits), and what XLA's GPU backend cannot compile fails
for both. Marked ``gpu`` and ``oracle``; skipped where either has no GPU backend (CI). Run by
``hatch run gpu:test`` on a machine with an NVIDIA GPU, jax and its CUDA plugin."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp


def _gpus():
    """JAX's GPU, then mj's (or why not): JAX must load the CUDA plugin first (a plugin loads
    once per process; mj then uses the one JAX loaded), so this file runs in its own process."""
    import jax

    try:
        theirs = jax.devices("gpu")[0]
        return (mj.devices("gpu")[0], theirs), ""
    except RuntimeError as err:  # no GPU backend: JAX's "Unknown backend" error
        return None, f"no GPU backend for mj and JAX: {err}"


GPUS, WHY_NOT = _gpus()
pytestmark = [
    pytest.mark.oracle,
    pytest.mark.gpu,
    pytest.mark.skipif(GPUS is None, reason=WHY_NOT),
]
RNG = np.random.default_rng(3)


def _both(f_of, *args):
    """``jit(f)`` on ``args`` committed to the GPU, in mj and in JAX (``f_of(np, lax)``
    builds the program from either namespace); host arrays, after checking the device."""
    import jax
    import jax.numpy as jnp

    mj_gpu, jax_gpu = GPUS
    ours = mj.jit(f_of(mnp, mj.lax))(*mj.device_put(args, mj_gpu))
    theirs = jax.jit(f_of(jnp, jax.lax))(*jax.device_put(args, jax_gpu))
    for leaf in mj.tree_util.tree_leaves(ours):
        assert leaf.device.platform == "gpu"
    return (
        [np.asarray(x) for x in mj.tree_util.tree_leaves(ours)],
        [np.asarray(x) for x in jax.tree_util.tree_leaves(theirs)],
    )


def _same(f_of, *args, rtol=1e-6, atol=1e-6):
    ours, theirs = _both(f_of, *args)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs, strict=True):
        assert o.dtype == t.dtype
        np.testing.assert_allclose(o, t, rtol=rtol, atol=atol)


def _normal(shape, dtype):
    x = RNG.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.normal(size=shape)
    return x.astype(dtype)


def test_a_default_precision_matmul_is_jaxs():
    """Both leave the precision to XLA (TF32 on this GPU): the same rounding, not the CPU's."""
    a, b = _normal((256, 128), np.float32), _normal((128, 64), np.float32)
    _same(lambda np_, lax: lambda x, y: np_.tanh(x @ y), a, b)
    _same(lambda np_, lax: lambda x, y: np_.dot(x, y, precision="highest"), a, b)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_a_complex_convolution_is_three_real_ones_as_in_jax(dtype):
    x, k = _normal((2, 3, 9, 8), dtype), _normal((4, 3, 3, 2), dtype)

    def conv(np_, lax):
        return lambda a, b: lax.conv_general_dilated(a, b, (2, 1), "SAME", rhs_dilation=(1, 2))

    _same(conv, x, k, rtol=1e-5, atol=1e-5)


def test_an_integer_convolution_fails_to_compile_for_both():
    x, k = np.ones((1, 1, 5, 5), np.int32), np.ones((1, 1, 2, 2), np.int32)

    def conv(np_, lax):
        return lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "VALID")

    with pytest.raises(Exception, match="integer convolutions") as ours:
        mj.jit(conv(mnp, mj.lax))(*mj.device_put((x, k), GPUS[0]))
    import jax

    with pytest.raises(Exception, match="integer convolutions") as theirs:
        jax.jit(conv(jax.numpy, jax.lax))(*jax.device_put((x, k), GPUS[1]))
    assert type(ours.value).__name__ == type(theirs.value).__name__


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_eig_is_jaxs_cusolver_geev(dtype):
    a = _normal((3, 6, 6), dtype)
    _same(lambda np_, lax: lambda x: np_.linalg.eig(x), a, rtol=2e-4, atol=2e-4)
    _same(lambda np_, lax: lambda x: np_.linalg.eigvals(x), a, rtol=2e-4, atol=2e-4)


def test_eig_with_left_eigenvectors_is_jaxs_hybrid_kernel():
    a = _normal((5, 5), np.float32)
    _same(
        lambda np_, lax: lambda x: lax.linalg.eig(x, compute_left_eigenvectors=True),
        a,
        rtol=2e-4,
        atol=2e-4,
    )


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_factorizations_are_jaxs(dtype):
    a = _normal((2, 5, 5), dtype)
    spd = a @ np.conj(np.swapaxes(a, -1, -2)) + 5 * np.eye(5, dtype=dtype)
    _same(lambda np_, lax: lambda x: lax.linalg.lu(x), a, rtol=1e-5, atol=1e-5)
    _same(lambda np_, lax: lambda x: np_.linalg.eigh(x), spd, rtol=1e-4, atol=1e-4)
    _same(lambda np_, lax: lambda x: np_.linalg.svd(x), a, rtol=1e-4, atol=1e-4)
    _same(lambda np_, lax: lambda x: np_.linalg.qr(x), a, rtol=1e-5, atol=1e-5)


def test_running_sums_and_products_keep_jaxs_zero_signs():
    z = np.array([complex(1, -0.0), complex(2, -0.0)], np.complex64)
    ours, theirs = _both(lambda np_, lax: lambda x: (np_.cumprod(x), np_.cumsum(x)), z)
    for o, t in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(o, t)
        np.testing.assert_array_equal(np.signbit(o.imag), np.signbit(t.imag))


def test_random_draws_are_jaxs():
    import jax

    ours = mj.jit(lambda k: mj.random.normal(k, (1000,)))(mj.device_put(mj.random.key(7), GPUS[0]))
    theirs = jax.jit(lambda k: jax.random.normal(k, (1000,)))(
        jax.device_put(jax.random.key(7), GPUS[1])
    )
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6, atol=1e-6)
