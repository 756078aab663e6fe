"""``lax.composite`` against JAX: values eager and under jit, the ``stablehlo.composite`` op
and its ``@name`` decomposition in the lowered module (attributes, version, pytrees of
inputs and outputs), JAX's errors (no JVP, traced attributes or constants), and vmap."""

from functools import partial

import jax
import numpy as np
import pytest

import mj


def _square(lax):
    return lax.composite(lambda x: x**2, name="my.square")


def test_values_and_module_as_jax(x64):
    x = np.float32(3.0)
    for lax, jit in ((jax.lax, jax.jit), (mj.lax, mj.jit)):
        sq = _square(lax)
        assert float(sq(x)) == 9.0
        assert float(jit(sq)(x)) == 9.0
        text = jit(sq).lower(x).as_text()
        assert (
            'stablehlo.composite "my.square" %arg0 {decomposition = @my.square} : '
            "(tensor<f32>) -> tensor<f32>" in text
        )
        assert "@my.square(%arg0: tensor<f32>) -> tensor<f32> {" in text
        assert "stablehlo.multiply %arg0, %arg0 : tensor<f32>" in text


def test_attributes_version_and_pytrees_as_jax():
    x = np.array([0.0, 0.5, 1.0], np.float32)
    texts = []
    for lax, jit in ((jax.lax, jax.jit), (mj.lax, mj.jit)):

        def tangent(x, lax=lax):
            def decomposition(x, **_):
                return lax.sin(x) / lax.cos(x)

            attrs = {"dtype": np.dtype(np.float32), "int": 1, "omit": None, "str": "bar"}
            return lax.composite(decomposition, "my.tangent", version=2)(
                x, tensor=np.zeros((1, 2), np.float32), **attrs
            )

        np.testing.assert_allclose(np.asarray(jit(tangent)(x)), np.tan(x), rtol=1e-6)
        texts.append(jit(tangent).lower(x).as_text())
        ident = lax.composite(lambda *a: a, name="my.ident")
        out = ident(x, 2 * x)
        np.testing.assert_array_equal(np.asarray(out[1]), 2 * x)
        texts.append(jit(ident).lower(x, x).as_text())
    for text in texts:
        assert (
            'composite_attributes = {dtype = f32, int = 1 : i64, str = "bar", '
            "tensor = dense<0.000000e+00> : tensor<1x2xf32>}, decomposition = @my.tangent, "
            "version = 2 : i32}"
            in text
            or 'stablehlo.composite "my.ident" %arg0, %arg1 {decomposition = @my.ident}' in text
        )


def test_errors_as_jax():
    message = "JVP rule for composite not implemented. You can use `jax.custom_jvp`"
    for api in (jax, mj):
        sq = _square(api.lax)
        with pytest.raises(ValueError, match=message):
            api.jvp(sq, (1.0,), (2.0,))
        with pytest.raises(ValueError, match=message):
            api.grad(sq)(1.0)

        def closes_over(x, scale, lax=api.lax):
            @partial(lax.composite, name="my.consts")
            def scaled(y):
                return y / scale

            return scaled(x)

        x = np.ones(3, np.float32)
        np.testing.assert_allclose(np.asarray(closes_over(x, 2 * x)), x / 2)
        with pytest.raises(api.errors.UnexpectedTracerError, match="as a constant in the"):
            api.jit(closes_over)(x, 2 * x)

        def traced_attribute(x, lax=api.lax, api=api):
            return lax.composite(lambda x, **_: x, "my.attr")(x, tensor=api.numpy.zeros(2))

        with pytest.raises(api.errors.UnexpectedTracerError, match="use numpy arrays instead"):
            api.jit(traced_attribute).lower(x).as_text()


def test_vmap_batches_the_decomposition():
    xs = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    with pytest.raises(NotImplementedError, match="Batching rule for 'composite'"):
        jax.vmap(_square(jax.lax))(xs)  # JAX has no rule; mj batches the decomposition
    got = mj.vmap(_square(mj.lax))(xs)
    np.testing.assert_array_equal(np.asarray(got), xs**2)
