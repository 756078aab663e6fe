"""``lax.ragged_dot`` and ``lax.ragged_dot_general`` against JAX: values (eager, jit) in the
three ragged modes, JAX's shape errors, grad and linear_transpose, and vmap (checked against
JAX per example where JAX's own batching rule refuses the axis), both dtype modes."""

import jax
import numpy as np
import pytest

import mj


def _dtype(x64):
    return np.float64 if x64 else np.float32


def _close(got, want, x64):
    assert np.asarray(got).dtype == np.asarray(want).dtype
    tol = 1e-10 if x64 else 2e-5
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


@pytest.mark.parametrize("sizes", [[3, 0, 5], [10, 0, 0], [1, 2, 3]], ids=str)
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_ragged_dot_as_jax(sizes, jit, x64):
    rs = np.random.RandomState(0)
    lhs, rhs = rs.randn(10, 4).astype(_dtype(x64)), rs.randn(3, 4, 5).astype(_dtype(x64))
    gs = np.array(sizes, np.int32)  # [1, 2, 3]: rows past the groups are zero
    fun = mj.jit(mj.lax.ragged_dot) if jit else mj.lax.ragged_dot
    _close(fun(lhs, rhs, gs), jax.lax.ragged_dot(lhs, rhs, gs), x64)
    if x64:  # (JAX's x32 ragged_dot with a float64 preferred type fails to lower)
        lhs, rhs = lhs.astype(np.float32), rhs.astype(np.float32)
        want = jax.lax.ragged_dot(lhs, rhs, gs, preferred_element_type=np.float64)
        got = mj.lax.ragged_dot(lhs, rhs, gs, preferred_element_type=np.float64)
        _close(got, want, x64)


MODES = [
    # (lhs shape, rhs shape, group sizes, ((contract), (batch)), ragged, group)
    ((6, 8), (8, 5), [2, 3, 3], (([1], [0]), ([], [])), [1], []),  # ragged contracting
    ((3, 6, 4), (3, 4, 5), [1, 1, 1], (([2], [1]), ([0], [0])), [0], []),  # ragged batch
    ((2, 7, 4), (3, 2, 4, 5), [[2, 2, 3], [0, 7, 0]], (([2], [2]), ([0], [1])), [1], [0]),
]


@pytest.mark.parametrize(("ls", "rs_", "sizes", "dots", "ragged", "group"), MODES)
def test_ragged_dot_general_modes_as_jax(ls, rs_, sizes, dots, ragged, group, x64):
    rs = np.random.RandomState(1)
    lhs, rhs = rs.randn(*ls).astype(_dtype(x64)), rs.randn(*rs_).astype(_dtype(x64))
    gs = np.array(sizes, np.int32)
    want = jax.lax.ragged_dot_general(
        lhs, rhs, gs, jax.lax.RaggedDotDimensionNumbers(dots, ragged, group)
    )
    dn = mj.lax.RaggedDotDimensionNumbers(dots, ragged, group)
    _close(mj.lax.ragged_dot_general(lhs, rhs, gs, dn), want, x64)
    _close(mj.jit(mj.lax.ragged_dot_general, static_argnums=3)(lhs, rhs, gs, dn), want, x64)


@pytest.mark.parametrize(
    ("ls", "rs_", "gss", "dots", "ragged", "group", "message"),
    [
        ((11, 5), (3, 5, 7), (3,), (([1], [1]), ([], [])), [0, 1], [0], "exactly one lhs ragged"),
        ((11, 5), (3, 5, 7), (2, 3), (([1], [1]), ([], [])), [0], [0], r"shape \(3,\), got"),
        ((11, 5), (3, 5, 7), (2,), (([1], [1]), ([], [])), [0], [0], "size to be 2, got 3"),
        ((11, 5), (5, 7), (3,), (([1], [0]), ([], [])), [0], [], "exactly one rhs group"),
    ],
)
def test_ragged_dot_general_errors_as_jax(ls, rs_, gss, dots, ragged, group, message):
    args = (np.ones(ls, np.float32), np.ones(rs_, np.float32), np.ones(gss, np.int32))
    for lax in (jax.lax, mj.lax):
        dn = lax.RaggedDotDimensionNumbers(dots, ragged, group)
        with pytest.raises(TypeError, match=message):
            lax.ragged_dot_general(*args, dn)


def test_ragged_dot_grad_transpose_vmap_as_jax(x64):
    rs = np.random.RandomState(2)
    lhs, rhs = rs.randn(10, 4).astype(_dtype(x64)), rs.randn(3, 4, 5).astype(_dtype(x64))
    gs = np.array([3, 4, 2], np.int32)

    def loss(lax):
        return lambda a, b: (lax.ragged_dot(a, b, gs) ** 2).sum()

    want = jax.grad(loss(jax.lax), argnums=(0, 1))(lhs, rhs)
    for got, w in zip(mj.grad(loss(mj.lax), argnums=(0, 1))(lhs, rhs), want, strict=True):
        _close(got, w, x64)
    ct = rs.randn(10, 5).astype(_dtype(x64))
    (got,) = mj.linear_transpose(lambda b: mj.lax.ragged_dot(lhs, b, gs), rhs)(ct)
    (w,) = jax.linear_transpose(lambda b: jax.lax.ragged_dot(lhs, b, gs), rhs)(ct)
    _close(got, w, x64)
    gss = np.array([[3, 4, 2], [0, 10, 0]], np.int32)
    lhss = np.stack([lhs, -lhs])
    got = mj.vmap(mj.lax.ragged_dot, in_axes=(0, None, 0))(lhss, rhs, gss)
    want = np.stack([jax.lax.ragged_dot(a, rhs, g) for a, g in zip(lhss, gss, strict=True)])
    _close(got, want, x64)
