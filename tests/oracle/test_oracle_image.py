"""mj.image against jax.image: every resize method up and down, with and without
antialiasing, scale_and_translate with translations, integer images, grad and jit, both
x64 modes."""

import jax
import jax.image as jimage
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.image as mimage

METHODS = ["nearest", "linear", "cubic", "cubic-pytorch", "lanczos3", "lanczos5", "area"]
SHAPES = [(2, 14, 18, 3), (2, 3, 5, 3)]  # up in both dimensions, down in both


def _image(dtype=np.float32):
    return np.random.RandomState(0).rand(2, 7, 9, 3).astype(dtype)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("antialias", [True, False])
def test_resize_as_jax(method, antialias, x64):
    image = _image()
    for shape in SHAPES:
        want = np.asarray(jimage.resize(image, shape, method, antialias=antialias))
        got = mimage.resize(image, shape, method, antialias=antialias)
        assert got.shape == want.shape
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("method", ["linear", "cubic", "cubic-pytorch", "lanczos3", "area"])
@pytest.mark.parametrize("antialias", [True, False])
def test_scale_and_translate_as_jax(method, antialias, x64):
    image = _image()
    scale, translation = np.array([1.3, 0.7]), np.array([0.5, -1.0])
    args = ((2, 10, 6, 3), (1, 2))
    want = jimage.scale_and_translate(
        image, *args, jnp.asarray(scale), jnp.asarray(translation), method, antialias
    )
    got = mimage.scale_and_translate(image, *args, scale, translation, method, antialias)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


def test_integer_images_grad_and_jit_as_jax(x64):
    u8 = (_image() * 255).astype(np.uint8)
    for method in ("linear", "nearest"):
        want = jimage.resize(u8, (2, 5, 5, 3), method)
        got = mimage.resize(u8, (2, 5, 5, 3), method)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-3)
    image = _image()
    want = jax.grad(lambda x: jimage.resize(x, (2, 4, 4, 3), "cubic").sum())(image)
    got = mj.grad(lambda x: mimage.resize(x, (2, 4, 4, 3), "cubic").sum())(image)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    compiled = mj.jit(lambda x: mimage.resize(x, (2, 4, 4, 3), "lanczos3"))(image)
    want = jimage.resize(image, (2, 4, 4, 3), "lanczos3")
    np.testing.assert_allclose(np.asarray(compiled), np.asarray(want), rtol=1e-5, atol=1e-5)
