"""NumPy constants of a 64-bit dtype captured while tracing without ``enable_x64``: JAX
stores them narrowed to the 32-bit dtype their binder has, mj stored them as they came, so
that an int64 constant met int32 values in the lowered program and XLA refused it
("reduction-region's argument ... promotable from 'i64', but got 'i32'"); equinox's
``while_loop`` tests (issue 36) reached it through the JVP of an overwriting scatter in a
``while_loop`` body under ``jit``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _close(got, want):
    got_leaves, want_leaves = jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        if np.asarray(w).dtype == jax.dtypes.float0:  # (an int carry's tangent)
            assert np.shape(g) == np.shape(w)
            continue
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)


def _set_loop(lib, lnp):
    """A while loop whose body overwrites one element (scatter, non-unique indices)."""

    def run(v):
        def body(c):
            i, v = c
            return i + 1, v.at[i].set(v[0] * 2.0 + i)

        return lib.lax.while_loop(lambda c: c[0] < 5, body, (0, v))

    return run


@pytest.mark.parametrize("how", ["jit-jvp", "jvp-jit", "linearize-jit"])
def test_scatter_jvp_in_while_body_under_jit_as_jax(x64, how):
    v = np.linspace(1.0, 2.0, 20).astype(np.float32)
    t = np.linspace(-1.0, 1.0, 20).astype(np.float32)

    def go(lib, lnp):
        run = _set_loop(lib, lnp)
        x, dx = lnp.asarray(v), lnp.asarray(t)
        if how == "jit-jvp":
            return lib.jit(lambda x, dx: lib.jvp(run, (x,), (dx,)))(x, dx)
        if how == "jvp-jit":
            return lib.jvp(lib.jit(run), (x,), (dx,))
        out, f_jvp = lib.linearize(lib.jit(run), x)
        return out, f_jvp(dx)

    _close(go(mj, mnp), go(jax, jnp))


def test_captured_wide_constant_is_stored_narrowed_as_jax(x64):
    big = np.arange(20, dtype=np.int64)
    wide = np.linspace(0.0, 1.0, 20)  # float64

    def f(lib):
        def g(x):
            return lib.lax.add(x, big), x * wide

        return g

    x = np.array(1)  # int64: traced as the canonical int, as ``big`` is
    want = jax.make_jaxpr(f(jax))(x)
    got = mj.make_jaxpr(f(mj))(x)
    assert [np.asarray(c).dtype for c in got.consts] == [np.asarray(c).dtype for c in want.consts]


@pytest.mark.parametrize("op", ["reduce_sum", "argmax", "cumsum", "reduce_max", "sort"])
def test_wide_constant_in_loop_body_reductions_as_jax(x64, op):
    # the siblings: lax's reductions bind a closed-over int64 / float64 NumPy array as it is
    ints = np.array([3, -1, 7, 2, 7, 0], dtype=np.int64)
    floats = np.array([0.5, -2.0, 4.0, 1.0, 4.0, 0.25])  # float64

    def go(lib, lnp):
        lax = lib.lax
        reduce = {
            "reduce_sum": lambda a: lax.reduce_sum(a, (0,)),
            "argmax": lambda a: lax.argmax(a, 0, np.int32),
            "cumsum": lambda a: lax.cumsum(a)[-1],
            "reduce_max": lambda a: lax.reduce_max(a, (0,)),
            "sort": lambda a: lax.sort(a)[1],
        }[op]

        def body(i, c):
            a, b = c
            return a + reduce(ints) * i, b + reduce(floats) * i

        init = (lnp.sum(ints * 0), lnp.sum(floats * 0))  # the canonical int and float
        looped = lib.jit(lambda n: lax.fori_loop(0, n, body, init))(4)
        scanned = lib.jit(lambda: lax.scan(lambda c, i: (body(i, c), None), init, lnp.arange(4)))()
        return looped, scanned[0]

    _close(go(mj, mnp), go(jax, jnp))


def test_wide_constant_in_linearized_tangent_as_jax(x64):
    # residual-like NumPy constants staged on the tangent trace, and through partial eval
    wide = np.linspace(0.5, 1.5, 6)  # float64
    idx = np.array([5, 0, 2, 2, 1, 3], dtype=np.int64)

    def f(lib, lnp):
        def h(x):
            return lnp.sum((x * wide)[idx] * lnp.cumsum(x[idx]))

        x = lnp.linspace(1.0, 2.0, 6, dtype=lnp.float32)
        out, f_jvp = lib.linearize(h, x)
        out_j, f_jvp_j = lib.linearize(lib.jit(h), x)
        dx = lnp.ones(6, lnp.float32)
        return out, f_jvp(dx), out_j, lib.jit(f_jvp_j)(dx), lib.grad(lib.jit(h))(x)

    _close(f(mj, mnp), f(jax, jnp))
