"""Eager reverse mode across layers: ``grad``/``vjp`` called outside every transformation run
on a tape, and must give what the staged path gives, with jit, vmap and control flow inside
the differentiated function and with the pullback used under jit and vmap afterwards."""

from __future__ import annotations

from typing import Any

import numpy as np

import mj
import mj.numpy as mnp
from mj import lax

RNG = np.random.default_rng(1)


def _loss(params: list[Any], x: Any) -> Any:
    w, b = params
    h = mnp.tanh(mnp.dot(x, w) + b)
    return mnp.mean(h**2)


def test_eager_grad_equals_jitted_grad() -> None:
    params = [RNG.standard_normal((4, 3)).astype(np.float32), np.zeros(3, np.float32)]
    x = RNG.standard_normal((5, 4)).astype(np.float32)
    eager = mj.grad(_loss)(params, x)
    jitted = mj.jit(mj.grad(_loss))(params, x)
    for e, j in zip(eager, jitted, strict=True):
        assert e.dtype == np.float32
        assert e.shape == j.shape
        np.testing.assert_allclose(e, j, rtol=1e-5, atol=1e-6)


def test_jit_vmap_and_control_flow_inside_eager_grad() -> None:
    def f(x: Any) -> Any:
        y = mj.jit(lambda v: mnp.sin(v) * v)(x)
        y = mj.vmap(lambda row: row * mnp.sum(row))(y)
        y = lax.cond(mnp.sum(y) > 0, lambda v: v * 2.0, lambda v: v - 1.0, y)
        y = lax.scan(lambda c, v: (c * v, c), 1.0, y[0])[0]
        return y + mnp.sum(lax.fori_loop(0, 3, lambda i, v: v * 1.5, x))

    x = RNG.uniform(0.1, 1.0, size=(2, 3))
    eager = mj.grad(f)(x)
    staged = mj.jit(mj.grad(f))(x)
    np.testing.assert_allclose(eager, staged, rtol=1e-10)
    mj.test_util.check_grads(f, (x,), order=1, modes=["rev"])


def test_pullback_of_an_eager_vjp_under_vmap_and_jit() -> None:
    x = RNG.standard_normal(3)
    f = lambda v: mnp.sin(v) * mnp.sum(v)  # noqa: E731
    _, f_vjp = mj.vjp(f, x)
    jac_rows = mj.vmap(f_vjp)(np.eye(3))[0]  # one cotangent per row: the Jacobian
    np.testing.assert_allclose(jac_rows, mj.jacrev(f)(x), rtol=1e-12)
    np.testing.assert_allclose(mj.jit(f_vjp)(np.ones(3))[0], f_vjp(np.ones(3))[0], rtol=1e-12)


def test_make_jaxpr_of_grad_is_still_the_staged_transpose() -> None:
    # JAX's transpose of dot_general w.r.t. its rhs ends in a `transpose`; the tape's rule
    # contracts straight into the rhs layout, so this tells the two paths apart
    x = np.ones((2, 3))
    jaxpr = mj.make_jaxpr(mj.grad(lambda w: mnp.sum(mnp.dot(x, w))))(np.ones((3, 4)))
    assert [e.primitive.name for e in jaxpr.jaxpr.eqns][-2:] == ["dot_general", "transpose"]
