"""``map`` (``mj.lax.map``): a stacked loop over the leading axis, with and without
``batch_size``, under jit and grad, and its argument checks."""

import numpy as np
import pytest

from mj_autodiff import grad
from mj_control import map as map_
from mj_core import numpy as cnp
from mj_xla import jit


@pytest.mark.parametrize("batch_size", [None, 1, 2, 3, 5, 8])
def test_map_is_a_stacked_loop(batch_size):
    xs = {"a": np.arange(10.0).reshape(5, 2), "b": np.arange(5)}

    def f(x):
        return cnp.sum(x["a"] ** 2) * x["b"], (x["a"] + 1,)

    want_s = np.array([np.sum(xs["a"][i] ** 2) * i for i in range(5)])
    for run in (
        map_,
        jit(map_, static_argnums=(0,), static_argnames=("batch_size",)),
    ):
        s, (a,) = run(f, xs, batch_size=batch_size)
        np.testing.assert_allclose(s, want_s)
        np.testing.assert_allclose(a, xs["a"] + 1)
    g = grad(lambda v: cnp.sum(map_(cnp.sin, v, batch_size=batch_size)))(np.arange(5.0))
    np.testing.assert_allclose(g, np.cos(np.arange(5.0)), rtol=1e-14)


def test_map_rejects_bad_batch_sizes():
    with pytest.raises(ValueError, match="batch_size must be positive, got 0"):
        map_(cnp.sin, np.ones(3), batch_size=0)
    with pytest.raises(TypeError, match="batch_size must be an int"):
        map_(cnp.sin, np.ones(3), batch_size=1.5)
    with pytest.raises(ValueError, match="same leading axis length"):
        map_(lambda t: t[0] + t[1], (np.ones(3), np.ones(4)), batch_size=2)
