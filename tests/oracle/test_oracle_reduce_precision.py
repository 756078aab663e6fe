"""``lax.reduce_precision`` against JAX's (XLA's ReducePrecision) eagerly, under ``jit``,
``grad`` and ``vmap``; and checkpointing's rounding of saved residuals, which keeps the
forward and backward passes of a ``jit``-ed ``remat`` in agreement (JAX's
``test_excess_precision_hell``)."""

from functools import partial

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax

pytestmark = pytest.mark.oracle

FORMATS = [(8, 7), (5, 10), (4, 3), (8, 23), (11, 52), (2, 0), (3, 1)]
DTYPES = [np.float16, np.float32, np.float64, ml_dtypes.bfloat16]


def _sample(dtype):
    rng = np.random.RandomState(0)
    x = rng.randn(400) * np.exp(rng.uniform(-100, 100, 400))
    with np.errstate(over="ignore"):
        x = x.astype(dtype)
    x[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
    return x


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype
    assert a.shape == b.shape
    a, b = a.astype(np.float64), b.astype(np.float64)  # (bfloat16 NaNs compare as NaNs)
    np.testing.assert_array_equal(a, b)  # NaNs in the same places, -0.0 == 0.0
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_values_match_jax(x64, dtype):
    x = _sample(dtype)
    for e, m in FORMATS:
        want = jax.lax.reduce_precision(x, e, m)
        _same(lax.reduce_precision(x, e, m), want)
        _same(mj.jit(lambda v, e=e, m=m: lax.reduce_precision(v, e, m))(x), want)


def test_weak_type_grad_vmap_match_jax(x64):
    out, want = lax.reduce_precision(1.1, 5, 2), jax.lax.reduce_precision(1.1, 5, 2)
    assert out.dtype == want.dtype
    assert out.weak_type == want.weak_type
    _same(out, want)

    def f(lib):
        return lambda x: lib.reduce_precision(x * 3.3, 5, 2) ** 2

    _same(mj.grad(f(lax))(1.1), jax.grad(f(jax.lax))(1.1))
    xs = np.linspace(0.1, 3.0, 7)
    _same(mj.vmap(f(lax))(xs), jax.vmap(f(jax.lax))(xs))
    _same(mj.jit(mj.grad(f(lax)))(0.7), jax.jit(jax.grad(f(jax.lax)))(0.7))


def test_bad_bits_raise_like_jax():
    for e, m in [(0, 3), (5, -1)]:
        with pytest.raises(ValueError, match="reduce_precision") as want:
            jax.lax.reduce_precision(1.0, e, m)
        with pytest.raises(ValueError, match=str(want.value)):
            lax.reduce_precision(1.0, e, m)


def _excess_precision(lib, lnp):
    """JAX's ``test_excess_precision_hell``: a bfloat16 product saved by a checkpoint policy
    is read by the backward pass; the forward pass must see the same rounded value."""

    @lib.custom_vjp
    def dot(x):
        return lnp.dot(x, x)

    dot.defvjp(lambda x: (dot(x), None), lambda _, g: (g,))

    @lib.custom_vjp
    def foo(x):
        return lnp.float32(1.0) * x.astype("float32")

    foo.defvjp(lambda x: (foo(x), x), lambda x, _: (lnp.float32(1.0) * x.astype("float32"),))

    @lib.jit
    @partial(lib.remat, policy=lambda *_, **__: True)
    def f(x):
        return foo(dot(x))

    eps = lnp.finfo("bfloat16").eps
    x = (lnp.bfloat16(1) + eps) * lnp.eye(2, dtype="bfloat16")
    y, vjp = lib.vjp(f, x)
    (y_,) = vjp(lnp.ones_like(y))
    return np.asarray(y), np.asarray(y_)


def test_checkpoint_residuals_rounded_like_jax(x64):
    y, y_ = _excess_precision(mj, mnp)
    jy, jy_ = _excess_precision(jax, jnp)
    _same(y, jy)
    _same(y_, jy_)
    _same(y, y_)  # the forward pass and the saved residual agree (JAX's assertion)


def test_checkpoint_jaxpr_rounds_saved_residual_like_jax():
    """The known part of a checkpoint under ``jit``-ed ``vjp`` rounds a saved float residual
    that it also uses, as JAX inserts ``reduce_precision`` there; unused or non-float
    residuals are left alone."""

    def f(lib):
        def h(x):
            s = lib.numpy.sin(x)  # saved (the product's derivative reads it) and used
            return s * s + lib.numpy.cos(x)  # sin(x), a saved residual used by nothing else

        g = lib.checkpoint(h, policy=lambda *_, **__: True)
        return lambda x: lib.vjp(lib.jit(g), x)[0]

    def count(jaxpr):
        n = 0
        for eqn in jaxpr.eqns:
            n += eqn.primitive.name == "reduce_precision"
            for v in eqn.params.values():
                inner = getattr(v, "jaxpr", None)
                if inner is not None:
                    n += count(inner)
        return n

    x = np.float32(0.3)
    assert count(mj.make_jaxpr(f(mj))(x).jaxpr) == count(jax.make_jaxpr(f(jax))(x).jaxpr) > 0
