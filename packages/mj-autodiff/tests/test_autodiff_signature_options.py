"""JAX's keyword options of grad/value_and_grad/vjp/linearize and the custom derivatives:
``allow_int`` (integer and bool arguments get float0 zero gradients), ``reduce_axes`` (kept in
the signature, refused when given, as JAX does), ``linearize(..., has_aux=True)``,
``nondiff_argnames``."""

from functools import partial

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_autodiff import custom_jvp, custom_vjp, float0, grad, jvp, linearize, value_and_grad, vjp


def test_allow_int_gives_float0_zeros_for_integer_and_bool_arguments():
    gx, gi = grad(lambda x, i: (x * i).sum(), argnums=(0, 1), allow_int=True)(2.0, np.arange(3))
    np.testing.assert_allclose(gx, 3.0)
    assert gi.dtype == float0
    assert gi.shape == (3,)
    value, gb = value_and_grad(lambda b: mnp.where(b, 1.0, 2.0), allow_int=True)(True)
    np.testing.assert_allclose(value, 1.0)
    assert gb.dtype == float0
    assert gb.shape == ()


def test_integer_arguments_without_allow_int_are_refused():
    with pytest.raises(TypeError, match="allow_int"):
        grad(lambda x, i: x * i, argnums=(0, 1))(2.0, 3)


def test_reduce_axes_is_refused_as_in_jax():
    np.testing.assert_allclose(grad(lambda x: x * x, reduce_axes=())(3.0), 6.0)
    with pytest.raises(NotImplementedError, match="reduce_axes"):
        grad(lambda x: x, reduce_axes=("i",))
    with pytest.raises(NotImplementedError, match="reduce_axes"):
        value_and_grad(lambda x: x, reduce_axes=("i",))


def test_linearize_with_aux():
    def f(x):
        return mnp.sin(x) * 2.0, {"twice": x * 2.0}

    out, f_jvp, aux = linearize(f, 0.5, has_aux=True)
    np.testing.assert_allclose(out, 2 * np.sin(0.5))
    np.testing.assert_allclose(f_jvp(1.5), jvp(lambda x: f(x)[0], (0.5,), (1.5,))[1])
    np.testing.assert_allclose(aux["twice"], 1.0)
    with pytest.raises(TypeError, match="pair"):
        linearize(lambda x: x, 1.0, has_aux=True)


def test_vjp_reduce_axes_refused():
    with pytest.raises(NotImplementedError, match="reduce_axes"):
        vjp(lambda x: x, 1.0, reduce_axes=("i",))


def test_nondiff_argnames_name_nondifferentiable_arguments():
    @partial(custom_jvp, nondiff_argnames=("n",))
    def power(x, n):
        return x**n

    @power.defjvp
    def power_jvp(n, primals, tangents):
        (x,), (t,) = primals, tangents
        return power(x, n), n * x ** (n - 1) * t

    np.testing.assert_allclose(grad(power)(2.0, n=3), 12.0)
    np.testing.assert_allclose(grad(lambda x: power(x, 3))(2.0), 12.0)

    @partial(custom_vjp, nondiff_argnames=("scale",))
    def scaled(x, scale):
        return x * scale

    scaled.defvjp(lambda x, scale: (scaled(x, scale), None), lambda scale, _, g: (10 * g,))
    np.testing.assert_allclose(grad(scaled)(2.0, scale=3.0), 10.0)
    with pytest.raises(ValueError, match="nondiff_argnames"):
        custom_jvp(lambda x: x, nondiff_argnames=("y",))
