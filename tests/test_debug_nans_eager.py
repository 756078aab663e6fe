"""config.debug_nans in eager mode (issue 24): every eager primitive whose output holds a NaN
raises FloatingPointError naming it, as JAX does for its op-by-op evaluation, also inside
eager grad, jvp and vmap; with the option off (the default) nothing is checked."""

from collections.abc import Iterator

import numpy as np
import pytest

import mj
import mj.numpy as mnp


@pytest.fixture
def debug_nans() -> Iterator[None]:
    with mj.config.override("debug_nans", True):
        yield


NAN_MAKERS = {
    "log(-1)": (lambda: mnp.log(-1.0), "log"),
    "0/0": (lambda: mnp.array(0.0) / 0.0, "div"),
    "sqrt of a float32 array": (lambda: mnp.sqrt(np.array([-1.0, 4.0], np.float32)), "sqrt"),
    "inf - inf": (lambda: mnp.array(np.inf) - np.inf, "sub"),
    "sum": (lambda: mnp.sum(np.array([np.inf, -np.inf])), "reduce_sum"),
    "eager grad": (lambda: mj.grad(mnp.log)(-1.0), "log"),
    "eager grad, backward pass": (lambda: mj.grad(lambda x: mnp.sqrt(x) * 0.0)(0.0), ""),
    "eager jvp": (lambda: mj.jvp(mnp.log, (-1.0,), (1.0,)), "log"),
    "eager vmap": (lambda: mj.vmap(mnp.log)(np.array([-1.0, 1.0])), "log"),
}


@pytest.mark.usefixtures("debug_nans")
@pytest.mark.parametrize(("make", "prim"), NAN_MAKERS.values(), ids=NAN_MAKERS.keys())
def test_a_nan_made_eagerly_raises(make, prim):
    with pytest.raises(FloatingPointError, match=rf"invalid value \(nan\) encountered in {prim}"):
        make()


@pytest.mark.usefixtures("debug_nans")
def test_values_without_nans_pass_and_infinities_are_allowed():
    assert mnp.log(0.0) == -np.inf  # JAX's debug_nans does not look for infinities
    np.testing.assert_allclose(mnp.sin(np.float32(1.0)), np.sin(np.float32(1.0)), rtol=1e-6)
    assert mj.grad(mnp.log)(2.0) == 0.5
    assert mnp.sum(np.array([1, 2])) == 3  # integer outputs are never checked


@pytest.mark.usefixtures("debug_nans")
def test_jit_keeps_its_own_op_by_op_report():
    with pytest.raises(FloatingPointError, match=r"encountered in log .*re-running the jit"):
        mj.jit(mnp.log)(-1.0)


def test_off_by_default_and_after_the_block():
    with mj.config.override("debug_nans", True):
        pass
    assert np.isnan(mnp.log(np.float32(-1.0)))  # the ufunc shortcut is back
    assert np.isnan(mnp.sum(np.array([np.inf, -np.inf])))
