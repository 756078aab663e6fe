"""A NumPy array on the left of a binary operator hands the operation to mj's value on the
right (tracer, device array or eager array), as JAX's do (issue 23: ``np_array @ tracer``
failed under grad, jit and vmap; so did ``//``, ``%``, ``divmod``, ``<<`` and ``>>``)."""

import operator

import numpy as np
import pytest

import mj
import mj.numpy as mnp

FLOAT_OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
             "lt", "le", "eq", "ne", "gt", "ge"]  # fmt: skip
INT_OPS = ["and_", "or_", "xor", "lshift", "rshift", "floordiv", "mod"]


def operands(name):
    if name == "matmul":
        return np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4) / 7 + 0.5
    if name in INT_OPS and name not in ("floordiv", "mod"):
        return np.arange(6, dtype=np.int32).reshape(2, 3), np.full((2, 3), 2, np.int32)
    return np.arange(6.0).reshape(2, 3) - 2.5, np.full((2, 3), 1.5)


def apply(kind, op, x, w):
    """``op(x, w)`` with ``w`` as the given kind of mj value."""
    if kind == "eager":
        return op(x, mnp.asarray(w))
    if kind == "device":
        return op(x, mj.jit(lambda w: w)(w))
    if kind == "jit":
        return mj.jit(lambda w: op(x, w))(w)
    if kind == "vmap":
        out = mj.vmap(lambda w: op(x, w))(np.stack([w, w]))
        return mj.tree_util.tree_map(lambda r: r[1], out)
    raise AssertionError(kind)


@pytest.mark.parametrize("name", [*sorted(set(FLOAT_OPS) | set(INT_OPS)), "divmod"])
@pytest.mark.parametrize("kind", ["eager", "device", "jit", "vmap"])
def test_numpy_array_on_the_left_defers(name, kind):
    op = divmod if name == "divmod" else getattr(operator, name)
    x, w = operands(name)
    got = apply(kind, op, x, w)
    want = op(x, w)
    for g, v in zip(*(r if name == "divmod" else (r,) for r in (got, want)), strict=True):
        assert type(g) is not np.ndarray  # an mj value, not a plain NumPy result
        np.testing.assert_allclose(np.asarray(g), v, rtol=1e-15)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "truediv", "pow", "matmul"])
def test_gradient_through_a_numpy_left_operand(name):
    op = getattr(operator, name)
    x, w = operands(name)
    x = np.abs(x) + 0.5  # pow: a positive base
    grad = mj.grad(lambda w: op(x, w).sum())(w)
    h = 1e-6
    fd = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[i] = h
        fd[i] = (op(x, w + e).sum() - op(x, w - e).sum()) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-6)


def test_numpy_scalar_on_the_left():
    w = np.full(3, 2.0)
    assert np.asarray(mj.jit(lambda w: np.float64(7.0) // w)(w)).tolist() == [3.0] * 3
    assert np.asarray(mj.jit(lambda w: np.int32(1) << w.astype(np.int32))(w)).tolist() == [4] * 3


def test_explicit_numpy_math_on_a_tracer_still_raises():
    with pytest.raises(mj.errors.ConcretizationError, match="NumPy ufunc sin"):
        mj.jit(lambda x: np.sin(x))(np.ones(2))  # (jit(np.sin): a ufunc has no weakref)
