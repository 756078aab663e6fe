"""``lax.reduce`` and ``lax.reduce_window`` with a general body (a Python computation, a traced
init value, several operands) against JAX: eager, jit, vmap, jvp and (for ``reduce``) grad,
both dtype modes. A monoid with a concrete identity still takes the monoid primitive."""

import jax
import numpy as np
import pytest

import mj


def _close(got, want, rtol):
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=rtol)


def _dtype(x64):
    return np.float64 if x64 else np.float32


def _sub(a, b):
    return a - b


def _custom_mul(a, b):
    return a * b + 0.0 * a  # a product the monoid check does not recognise


@pytest.mark.parametrize("dims", [(0,), (1, 2), (0, 1, 2)])
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_reduce_general_as_jax(dims, jit, x64):
    dtype = _dtype(x64)
    x = np.random.RandomState(0).uniform(0.5, 1.5, (3, 4, 5)).astype(dtype)
    one = np.asarray(1, dtype)

    def fun(lax):
        return lambda x, init: lax.reduce(x, init, _custom_mul, dims)

    want = fun(jax.lax)(x, one)
    got = (mj.jit(fun(mj.lax)) if jit else fun(mj.lax))(x, one)
    _close(got, want, 1e-5)
    # a traced init value with a monoid's computation: the general primitive, as JAX
    traced = mj.make_jaxpr(lambda x, i: mj.lax.reduce(x, i, mj.lax.add, dims))(x, one)
    assert traced.jaxpr.eqns[0].primitive.name == "reduce"
    concrete = mj.make_jaxpr(lambda x: mj.lax.reduce(x, np.asarray(0, dtype), mj.lax.add, dims))
    assert concrete(x).jaxpr.eqns[0].primitive.name == "reduce_sum"


def test_reduce_variadic_grad_vmap_as_jax(x64):
    dtype = _dtype(x64)
    rs = np.random.RandomState(1)
    a, b = rs.randn(4, 6).astype(dtype), rs.randn(4, 6).astype(dtype)
    inits = (np.asarray(0, dtype), np.asarray(1, dtype))

    def fun(lax):
        def f(a, b):
            return lax.reduce((a, b), inits, lambda p, q: (p[0] + q[0], p[1] * q[1]), (1,))

        return f

    _close(fun(mj.lax)(a, b), fun(jax.lax)(a, b), 1e-5)
    _close(mj.jit(fun(mj.lax))(a, b), fun(jax.lax)(a, b), 1e-5)
    sa, sb = np.stack([a, 2 * a]), np.stack([b, b - 1], axis=2)  # batched on axes 0 and 2
    _close(
        mj.vmap(fun(mj.lax), in_axes=(0, 2))(sa, sb),
        jax.vmap(fun(jax.lax), in_axes=(0, 2))(sa, sb),
        1e-5,
    )

    def loss(lax):
        return lambda a, b: sum(v.sum() for v in fun(lax)(a, b))

    want = jax.grad(loss(jax.lax), argnums=(0, 1))(a, b)
    _close(mj.grad(loss(mj.lax), argnums=(0, 1))(a, b), want, 1e-5)
    _close(mj.jvp(fun(mj.lax), (a, b), (b, a)), jax.jvp(fun(jax.lax), (a, b), (b, a)), 1e-5)


@pytest.mark.parametrize(
    ("computation", "init"), [(_sub, 0.0), (_custom_mul, 1.0), ("add", 0.0), ("max", -np.inf)]
)
@pytest.mark.parametrize(
    ("dims", "strides", "padding", "base", "wdil"),
    [
        ((2, 1), (1, 1), "VALID", (1, 1), (1, 1)),
        ((2, 2), (2, 1), "SAME", (2, 3), (1, 2)),
        ((1, 2), (1, 2), ((0, 3), (1, 2)), (1, 1), (1, 2)),
    ],
)
def test_reduce_window_general_as_jax(computation, init, dims, strides, padding, base, wdil, x64):
    dtype = _dtype(x64)
    x = np.random.RandomState(2).uniform(0.5, 1.5, (4, 6)).astype(dtype)
    init = np.asarray(init, dtype)

    def fun(lax):
        comp = getattr(lax, computation) if isinstance(computation, str) else computation
        return lambda x, i: lax.reduce_window(x, i, comp, dims, strides, padding, base, wdil)

    want = fun(jax.lax)(x, init)
    _close(fun(mj.lax)(x, init), want, 1e-5)
    _close(mj.jit(fun(mj.lax))(x, init), want, 1e-5)
    xs = np.stack([x, 2 * x])
    _close(
        mj.vmap(fun(mj.lax), in_axes=(0, None))(xs, init),
        jax.vmap(fun(jax.lax), in_axes=(0, None))(xs, init),
        1e-5,
    )
    if computation in (_sub, _custom_mul):  # JAX's general reduce_window JVP (fwd only)
        t = np.ones_like(x)
        got = mj.jvp(lambda x: fun(mj.lax)(x, init), (x,), (t,))
        _close(got, jax.jvp(lambda x: fun(jax.lax)(x, init), (x,), (t,)), 1e-5)


def test_reduce_window_variadic_and_errors_as_jax(x64):
    dtype = _dtype(x64)
    rs = np.random.RandomState(3)
    a, b = rs.randn(3, 2, 4, 6).astype(dtype), rs.randn(3, 2, 4, 6).astype(dtype)
    inits = (np.asarray(0, dtype), np.asarray(-np.inf, dtype))

    def fun(lax):
        def f(a, b):
            return lax.reduce_window(
                (a, b), inits, lambda p, q: (p[0] + q[0], lax.max(p[1], q[1])),
                (2, 1, 2, 1), (1, 2, 2, 1), "SAME", (2, 1, 3, 2), (1, 2, 2, 1),
            )  # fmt: skip

        return f

    _close(fun(mj.lax)(a, b), fun(jax.lax)(a, b), 1e-5)
    for lax in (jax.lax, mj.lax):
        with pytest.raises(ValueError, match="reduce_window output must have the same tree"):
            lax.reduce_window(np.ones((1,)), 0.0, lambda x, y: [x + y], (1,), (1,), "VALID")
        with pytest.raises(ValueError, match="Operands must have the same tree structure"):
            lax.reduce((a, b), inits[0], lax.add, (0,))
