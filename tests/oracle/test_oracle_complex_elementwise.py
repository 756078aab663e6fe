"""Complex elementwise functions and logaddexp's gradient against JAX (issue 23).

Jit is compared on the whole grid, signed zeros and overflowing arguments included (both sides
run XLA). Eager mj follows NumPy where NumPy and XLA disagree (the side of a branch cut chosen
by a ``-0.0`` imaginary part, ``expm1`` past overflow, ``1 / 0j``), so eager values are
compared on the grid without those points. JAX's complex ``sinh`` (``chlo.sinh``) loses the
real part of an argument near 0 (``sinh(1e-9 + 1e-9j)`` has real part ``1.0000000272e-9``, or
0 in complex64); mj's matches NumPy there (tests/test_complex_elementwise.py), so ``sinh`` is
compared with JAX away from 0 only.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

_PARTS = (-30.0, -3.0, -1.0, -0.7, -1e-9, 0.0, 1e-9, 0.4, 1.0, 3.0, 30.0)
GRID = np.array([complex(a, b) for a in _PARTS for b in _PARTS])
_WIDE = (*_PARTS, -0.0, 1e5, -1e5)
WIDE_GRID = np.array([complex(a, b) for a in _WIDE for b in _WIDE])

UNARY = [
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
    "arccosh", "arctanh", "sqrt", "log", "log1p", "log2", "log10", "exp", "exp2", "expm1",
    "reciprocal", "square", "abs", "angle", "sign",
]  # fmt: skip


def assert_close(got, want, rtol):
    """Both parts within ``rtol * |want|``; infinities and NaNs where JAX has them."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    scale = np.maximum(np.abs(want), np.finfo(want.dtype).tiny)
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        with np.errstate(invalid="ignore"):
            ok = (np.abs(g - w) <= rtol * scale) | (g == w) | (np.isnan(g) & np.isnan(w))
        assert ok.all(), list(zip(want[~ok], got[~ok], strict=True))


def _points(grid, name):
    return grid[np.abs(grid) > 1e-6] if name == "sinh" else grid


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_jit_matches_jax_on_the_wide_grid(name, dtype):
    x = _points(WIDE_GRID, name).astype(dtype)
    want = jax.jit(getattr(jnp, name))(x)
    got = mj.jit(getattr(mnp, name))(x)
    assert_close(got, want, 1e-13 if dtype == np.complex128 else 3e-6)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_eager_matches_jax_on_the_grid(name, dtype):
    x = _points(GRID, name).astype(dtype)
    if name == "reciprocal":
        x = x[x != 0]
    want = getattr(jnp, name)(x)
    got = getattr(mnp, name)(x)
    assert_close(got, want, 1e-13 if dtype == np.complex128 else 3e-6)


@pytest.mark.parametrize("name", ["arcsinh", "arccosh", "arctanh", "log2", "log10", "exp2"])
def test_jvps_match_jax(name):
    # JAX's arccosh jvp, rsqrt((z - 1)(z + 1)), has the wrong sign where Re z < 0 (finite
    # differences of its own values agree with mj: tests/test_complex_elementwise.py), so
    # arccosh is compared on the right half-plane only.
    z = np.array([0.3 + 0.4j, 2.0 - 0.1j, 0.5 + 3.0j, 1e-9j])
    if name != "arccosh":
        z = np.concatenate([z, [-2.0 + 1.0j, -0.5 - 3.0j]])
    t = np.full_like(z, 1 + 0.5j)
    primal, tangent = mj.jvp(getattr(mnp, name), (z,), (t,))
    want_primal, want_tangent = jax.jvp(getattr(jnp, name), (z,), (t,))
    np.testing.assert_allclose(primal, want_primal, rtol=1e-13)
    np.testing.assert_allclose(tangent, want_tangent, rtol=1e-12)


@pytest.mark.parametrize("name", ["arcsinh", "arccosh", "arctanh"])
def test_real_inverse_hyperbolics_and_gradients_match_jax(name):
    points = {
        "arcsinh": [-1e300, -3.0, -1e-10, -0.0, 0.0, 1e-10, 0.5, 2.0, 1e8, 1e300],
        "arccosh": [1.0 + 1e-12, 1.5, 2.0, 30.0, 1e8, 1e300],
        "arctanh": [-0.5, -1e-10, -0.0, 0.0, 1e-10, 0.5, 1.0 - 1e-12],
    }[name]
    x = np.array(points)
    for f, g in ((getattr(mnp, name), getattr(jnp, name)),):
        np.testing.assert_allclose(f(x), g(x), rtol=1e-15)
        np.testing.assert_allclose(mj.jit(f)(x), jax.jit(g)(x), rtol=1e-15)
        finite = x[np.abs(x) < 1e100]
        np.testing.assert_allclose(
            mj.vmap(mj.grad(f))(finite), jax.vmap(jax.grad(g))(finite), rtol=1e-12
        )


@pytest.mark.parametrize(("mj_f", "jax_f"), [(mnp.logaddexp, jnp.logaddexp),
                                             (mnp.logaddexp2, jnp.logaddexp2)])  # fmt: skip
@pytest.mark.parametrize(
    ("x", "y"), [(1.0, 1.0), (0.0, 0.0), (-3.0, -3.0), (2.0, -1.0), (-np.inf, 1.0),
                 (np.inf, np.inf), (np.nan, 1.0)],
)  # fmt: skip
def test_logaddexp_gradient_matches_jax_including_ties(mj_f, jax_f, x, y):
    want = jax.grad(jax_f, argnums=(0, 1))(x, y)
    for grad in (mj.grad(mj_f, argnums=(0, 1)), mj.jit(mj.grad(mj_f, argnums=(0, 1)))):
        got = grad(x, y)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-14)
    np.testing.assert_allclose(mj_f(x, y), jax_f(x, y), rtol=1e-15)


@pytest.mark.parametrize(("mj_f", "jax_f"), [(mnp.logaddexp, jnp.logaddexp),
                                             (mnp.logaddexp2, jnp.logaddexp2)])  # fmt: skip
@pytest.mark.parametrize(("x", "y"), [(1.0, 1.0), (-3.0, -3.0), (2.0, -1.0), (-1.0, 2.0)])
def test_logaddexp_second_derivatives_match_jax_including_ties(mj_f, jax_f, x, y):
    # JAX's custom JVP is smooth at a tie (x == y); a max/min formula loses the second order
    want = jax.hessian(jax_f, argnums=(0, 1))(x, y)
    for hessian in (mj.hessian(mj_f, argnums=(0, 1)), mj.jit(mj.hessian(mj_f, argnums=(0, 1)))):
        np.testing.assert_allclose(np.asarray(hessian(x, y)), np.asarray(want), rtol=1e-12)


def test_softplus_written_as_logaddexp_has_gradient_one_half_at_zero():
    def softplus(x):
        return mnp.logaddexp(0.0, x)

    want = jax.grad(lambda x: jnp.logaddexp(0.0, x))(0.0)
    assert float(mj.grad(softplus)(0.0)) == float(want) == 0.5
    np.testing.assert_allclose(
        mj.vmap(mj.grad(softplus))(np.array([-1.0, 0.0, 2.0])),
        jax.vmap(jax.grad(lambda x: jnp.logaddexp(0.0, x)))(np.array([-1.0, 0.0, 2.0])),
        rtol=1e-14,
    )


def test_complex_power_matches_jax():
    parts = (-2.0, -0.5, 0.0, 0.5, 2.0)
    z = np.array([complex(a, b) for a in parts for b in parts])
    x, y = (v.ravel() for v in np.meshgrid(z, z))
    assert_close(mj.jit(mnp.power)(x, y), jax.jit(jnp.power)(x, y), 1e-13)
    keep = x != 0  # eager mj follows NumPy at 0 ** z (0, where XLA gives NaN)
    assert_close(mnp.power(x[keep], y[keep]), jnp.power(x[keep], y[keep]), 1e-13)
    for k in (-2, -1, 2, 3):
        assert_close(mnp.power(x[keep], k), jnp.power(x[keep], k), 1e-13)
