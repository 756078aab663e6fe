"""vmap of the windowed reductions: batch axis anywhere, equal to a Python loop, also
under grad."""

import numpy as np
import pytest

from mj_autodiff import grad
from mj_batch import vmap
from mj_core import lax
from mj_core.prims.windowed import reduce_window


@pytest.mark.parametrize(("op", "init"), [(lax.add, 0.0), (lax.max, -np.inf), (lax.min, np.inf)])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_vmap_matches_loop(op, init, axis):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5, 4))

    def f(x):
        return reduce_window(x, init, op, (2, 3), (1, 2), ((1, 0), (1, 1)), (1, 2), (2, 1))

    out = vmap(f, in_axes=axis)(x)
    ref = np.stack([f(np.take(x, i, axis)) for i in range(x.shape[axis])])
    np.testing.assert_allclose(out, ref)


def test_vmap_of_grad_of_max_pool_matches_loop():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 6, 6))

    def loss(x):
        pooled = reduce_window(x, -np.inf, lax.max, (2, 2), (2, 2), "SAME")
        return lax.reduce_sum(lax.mul(pooled, pooled), (0, 1))

    out = vmap(grad(loss))(x)
    np.testing.assert_allclose(out, np.stack([grad(loss)(xi) for xi in x]))
