"""Collectives inside jit and control flow under a named vmap: the rule batching the nested
jaxpr batches the named axis, so collectives inside act over it."""

import numpy as np

from mj_batch import vmap
from mj_control import cond, fori_loop, scan
from mj_core.prims.parallel import axis_index, psum
from mj_xla import jit

X = np.random.default_rng(0).normal(size=(4, 8))


def test_jit_inside_named_vmap():
    f = jit(lambda v: psum(v, "i") * axis_index("i") + psum(1.0, "i"))
    np.testing.assert_allclose(vmap(f, axis_name="i")(X), X.sum(0) * np.arange(4)[:, None] + 4.0)
    g = jit(lambda v: v * axis_index("i"))  # no batched operand reaches axis_index
    np.testing.assert_allclose(vmap(g, axis_name="i")(X), X * np.arange(4)[:, None])
    # the same jitted function, traced again for another axis size
    np.testing.assert_allclose(vmap(g, axis_name="i")(X[:2]), X[:2] * np.arange(2)[:, None])
    np.testing.assert_allclose(jit(vmap(g, axis_name="i"))(X), X * np.arange(4)[:, None])


def test_scan_inside_named_vmap():
    def f(v):
        return scan(lambda c, xs: (c + psum(xs, "i"), c), 0.0, v)[0]

    np.testing.assert_allclose(vmap(f, axis_name="i")(X), np.full(4, X.sum()))


def test_cond_and_fori_loop_inside_named_vmap():
    x = np.arange(4.0)

    def branches(v):
        return cond(v > 1, lambda a: psum(a, "i"), lambda a: a * axis_index("i"), v)

    np.testing.assert_allclose(vmap(branches, axis_name="i")(x), [0.0, 1.0, 6.0, 6.0])

    def predicate(v):  # the predicate itself is a collective: the same for every example
        return cond(psum(v, "i") > 3, lambda a: a + 1, lambda a: a - 1, v)

    np.testing.assert_allclose(vmap(predicate, axis_name="i")(x), x + 1)

    def loop(v):
        return fori_loop(0, 3, lambda k, c: c + psum(c, "i"), v)

    want = x.copy()
    for _ in range(3):
        want = want + want.sum()
    np.testing.assert_allclose(vmap(loop, axis_name="i")(x), want)
