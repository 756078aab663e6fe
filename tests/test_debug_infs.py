"""config.debug_infs (JAX's jax_debug_infs): every eager primitive whose output holds an
infinity raises FloatingPointError naming it, jit re-runs op by op to name the one that made
it; mj.debug_infs is the context manager, and with the option off nothing is checked."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp

INF_MAKERS = {
    "log(0)": (lambda: mnp.log(0.0), "log"),
    "1/0": (lambda: mnp.array(1.0) / 0.0, "div"),
    "exp of a float32 array": (lambda: mnp.exp(np.array([1.0, 100.0], np.float32)), "exp"),
    "an infinity passed in": (lambda: mnp.array(np.inf) + 1.0, "add"),
    "eager grad": (lambda: mj.grad(lambda x: mnp.log(x) * 0.0)(0.0), "log"),
    "eager vmap": (lambda: mj.vmap(mnp.log)(np.array([0.0, 1.0])), "log"),
    "jit": (lambda: mj.jit(lambda x: mnp.log(x) + 1.0)(0.0), "log"),
}


@pytest.mark.parametrize(("make", "prim"), INF_MAKERS.values(), ids=INF_MAKERS.keys())
def test_an_infinity_raises_naming_the_primitive(make, prim):
    message = rf"invalid value \(inf\) encountered in {prim}"
    with mj.debug_infs(True), pytest.raises(FloatingPointError, match=message):
        make()
    make()  # off again: no check


def test_nans_pass_finite_values_are_unchanged_and_the_option_reads_back():
    assert mj.debug_infs.value is False
    with mj.debug_infs(True):
        assert mj.config.jax_debug_infs is True
        assert np.isnan(mnp.log(-1.0))  # NaNs are debug_nans' business
        np.testing.assert_allclose(mnp.exp(np.float32(1.0)), np.exp(np.float32(1.0)), rtol=1e-6)
        assert mj.grad(mnp.log)(2.0) == 0.5
    mj.config.update("jax_debug_infs", True)
    try:
        with pytest.raises(FloatingPointError, match="inf"):
            mnp.log(0.0)
    finally:
        mj.config.update("jax_debug_infs", False)
    assert mnp.log(0.0) == -np.inf
    assert np.isinf(mnp.exp(np.array([100.0], np.float32))).all()  # the ufunc shortcut is back
