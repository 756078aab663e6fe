"""An array committed to a device (``mj.device_put(x, device)``, JAX's committed array) is an
mj array everywhere: NumPy-level functions, transformations and the ``*_like`` constructors,
which place their result on its device as JAX's ``full_like`` does."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp

A = np.arange(6.0, dtype=np.float32).reshape(2, 3) - 2.5


@pytest.fixture
def committed():
    x = mj.device_put(A, mj.devices()[0])
    assert x.committed
    return x


CASES = {
    "sum": (lambda c: c.sum(), lambda a: a.sum()),
    "where": (lambda c: mnp.where(c > 0, c, 0.0), lambda a: np.where(a > 0, a, 0.0)),
    "grad": (lambda c: mj.grad(lambda v: (v**2).sum())(c), lambda a: 2 * a),
    "vmap": (lambda c: mj.vmap(mnp.sum)(c), lambda a: a.sum(1)),
    "jvp": (lambda c: mj.jvp(mnp.sin, (c,), (c,))[1], lambda a: np.cos(a) * a),
    "result_type": (lambda c: np.array(0, mnp.result_type(c)), lambda a: np.array(0, a.dtype)),
}


@pytest.mark.parametrize("name", CASES)
def test_committed_arrays_work_everywhere(committed, name):
    ours, numpy = CASES[name]
    got, want = np.asarray(ours(committed)), numpy(A)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.dtype == want.dtype


def test_like_constructors_land_on_the_committed_device(committed):
    for like in (mnp.zeros_like(committed), mnp.full_like(committed, 7, dtype=mnp.int32)):
        assert like.committed
        assert like.devices() == {mj.devices()[0]}
    np.testing.assert_array_equal(np.asarray(mnp.ones_like(committed)), np.ones_like(A))
