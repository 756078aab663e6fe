"""config.debug_nans descends into control flow: the op-by-op re-run of a jitted function
names the primitive inside a cond branch, a while body or a scan body that made the NaN."""

from collections.abc import Iterator

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax


@pytest.fixture(autouse=True)
def _debug_nans() -> Iterator[None]:
    with mj.config.override("debug_nans", True):
        yield


def test_inside_cond_branch() -> None:
    def f(x):
        return lax.cond(x[0] > 0, lambda y: mnp.log(y - 5.0), lambda y: y, x)

    with pytest.raises(FloatingPointError, match="encountered in log"):
        mj.jit(f)(np.array([1.0, 9.0]))
    np.testing.assert_allclose(mj.jit(f)(np.array([-1.0, 9.0])), [-1.0, 9.0])


def test_inside_scan_body() -> None:
    def step(c, x):
        c = c * x
        return c, mnp.sqrt(c)

    def f(xs):
        return lax.scan(step, 1.0, xs)[1]

    with pytest.raises(FloatingPointError, match="encountered in sqrt"):
        mj.jit(f)(np.array([2.0, 3.0, -1.0, 4.0]))
    np.testing.assert_allclose(mj.jit(f)(np.array([4.0, 4.0])), [2.0, 4.0])


def test_inside_while_body() -> None:
    def f(x):
        return lax.while_loop(
            lambda c: c[0] < 3, lambda c: (c[0] + 1, mnp.arcsin(c[1] * 2.0)), (0, x)
        )[1]

    with pytest.raises(FloatingPointError, match="encountered in asin"):
        mj.jit(f)(np.array(0.4))


def test_inside_fori_loop_under_jit_of_grad() -> None:
    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: c * mnp.log(x), x)

    with pytest.raises(FloatingPointError, match="encountered in log"):
        mj.jit(mj.grad(f))(np.array(-2.0))
