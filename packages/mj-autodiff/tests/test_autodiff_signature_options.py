"""JAX's keyword options of grad/value_and_grad/linearize: ``allow_int`` (integer and bool
arguments get float0 zero gradients), ``reduce_axes`` (kept in the signature, refused when
given, as JAX does), ``linearize(..., has_aux=True)``."""

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_autodiff import float0, grad, jvp, linearize, value_and_grad


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
