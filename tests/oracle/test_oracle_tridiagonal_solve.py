"""``lax.linalg.tridiagonal_solve`` against JAX (LAPACK's ``gtsv`` on the CPU): values eager
and under jit, pivoting, singular systems (NaN, or finite with ``perturb_singular``), vmap,
and JAX's derivative rules (jvp, grad, transpose in ``b``), both dtype modes."""

import jax
import numpy as np
import pytest

import mj


def _dtypes(x64):
    return [np.float64, np.complex128] if x64 else [np.float32, np.complex64]


def _diags(rs, shape, dtype):
    def draw(*s):
        x = rs.randn(*s)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rs.randn(*s)
        return x.astype(dtype)

    return draw(*shape), draw(*shape) + 1, draw(*shape), draw(*shape, 2)


def _close(got, want, dtype):
    tol = 1e-12 if np.finfo(dtype).bits == 64 else 2e-5
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(1,), (2,), (3,), (6,), (3, 4), (2, 3, 5)], ids=str)
@pytest.mark.parametrize("perturb", [False, True])
def test_values_as_jax(shape, perturb, x64):
    rs = np.random.RandomState(0)
    for dtype in _dtypes(x64):
        args = _diags(rs, shape, dtype)
        want = jax.lax.linalg.tridiagonal_solve(*args, perturb_singular=perturb)
        got = mj.lax.linalg.tridiagonal_solve(*args, perturb_singular=perturb)
        jitted = mj.jit(lambda *a: mj.lax.linalg.tridiagonal_solve(*a, perturb_singular=perturb))
        assert got.dtype == want.dtype
        _close(got, want, dtype)
        _close(jitted(*args), want, dtype)


@pytest.mark.parametrize("perturb", [False, True])
def test_pivoting_and_singular_as_jax(perturb):
    f32 = np.float32
    cases = [
        ([0.0, 2.0, -2.0, 3.0], [1.0, 4.0, 1.0, -1.0], [2.0, -1.0, 1.0, 0.0], [1, 2, 3, 4]),
        ([0.0, 1.0, -6.0, 1.0], [1.0, -1.0, 2.0, 1.0], [2.0, 1.0, -1.0, 0.0], [1, 2, -1, -2]),
        ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1, 1, 1]),  # zero matrix
        ([0.0, 1.0], [1.0, 3.0], [3.0, 0.0], [1, 4]),  # singular 2x2
    ]
    for dl, d, du, b in cases:
        args = [np.array(v, f32) for v in (dl, d, du)] + [np.array(b, f32)[:, None]]
        want = np.asarray(jax.lax.linalg.tridiagonal_solve(*args, perturb_singular=perturb))
        for fun in (
            mj.lax.linalg.tridiagonal_solve,
            mj.jit(mj.lax.linalg.tridiagonal_solve, static_argnames="perturb_singular"),
        ):
            got = np.asarray(fun(*args, perturb_singular=perturb))
            np.testing.assert_allclose(got, want, rtol=1e-6)  # NaNs where JAX's are


def test_vmap_and_derivatives_as_jax(x64):
    rs = np.random.RandomState(1)
    dtype = np.float64 if x64 else np.float32
    dl, d, du = (rs.randn(4, 10).astype(dtype) for _ in range(3))
    d = d + 3
    b = rs.randn(4, 5, 10).astype(dtype)
    for axes in [(1, 1, 1, 2), (None, None, None, 2), (1, 1, 1, None)]:
        diags = zip((dl, d, du), axes[:3], strict=True)
        args = [x[:, 0] if ax is None else x for x, ax in diags]
        args.append(b[..., 0] if axes[3] is None else b)
        want = jax.vmap(jax.lax.linalg.tridiagonal_solve, in_axes=axes)(*args)
        got = mj.vmap(mj.lax.linalg.tridiagonal_solve, in_axes=axes)(*args)
        _close(got, want, dtype)
    one = (dl[:, 0], d[:, 0], du[:, 0], b[..., 0])

    def loss(lax):
        return lambda *a: (lax.linalg.tridiagonal_solve(*a) ** 2).sum()

    want = jax.grad(loss(jax.lax), argnums=(0, 1, 2, 3))(*one)
    got = mj.grad(loss(mj.lax), argnums=(0, 1, 2, 3))(*one)
    for g, w in zip(got, want, strict=True):
        _close(g, w, dtype)
    tangents = tuple(rs.randn(*x.shape).astype(dtype) for x in one)
    _, want = jax.jvp(jax.lax.linalg.tridiagonal_solve, one, tangents)
    _, got = mj.jvp(mj.lax.linalg.tridiagonal_solve, one, tangents)
    _close(got, want, dtype)
    ct = rs.randn(4, 5).astype(dtype)
    (want,) = jax.linear_transpose(lambda x: jax.lax.linalg.tridiagonal_solve(*one[:3], x), one[3])(
        ct
    )
    (got,) = mj.linear_transpose(lambda x: mj.lax.linalg.tridiagonal_solve(*one[:3], x), one[3])(ct)
    _close(got, want, dtype)


def test_errors_as_jax():
    x = np.ones(3, np.float32)
    for lax in (jax.lax, mj.lax):
        with pytest.raises(TypeError, match="all diagonal arguments have the same shape"):
            lax.linalg.tridiagonal_solve(x, np.ones(4, np.float32), x, np.ones((3, 1), np.float32))
        with pytest.raises(TypeError, match="leading ndim-1 dimensions of b"):
            lax.linalg.tridiagonal_solve(x, x, x, np.ones((4, 1), np.float32))
