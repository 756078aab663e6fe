"""Fixes found by JAX's own ``random_test.py`` and ``lax_scipy_test.py`` on mj, against
jax 0.10.2 in both dtype modes (``x64`` fixture)."""

import jax
import jax.scipy.special as jsp
import numpy as np
import pytest

import mj
import mj.scipy.special as msp

pytestmark = pytest.mark.oracle


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("l_max", "num_z"), [(0, 3), (1, 2), (8, 7)])
@pytest.mark.parametrize("dtype", [np.int8, np.uint16])
def test_sph_harm_y_is_jaxs(x64, l_max, num_z, dtype):
    """JAX's recurrences give JAX's bits, eager and jitted; negative orders conjugate."""
    rng = np.random.default_rng(l_max)
    lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -l_max
    m = rng.integers(lo, l_max + 1, size=num_z).astype(dtype)
    n = abs(m)
    theta, phi = np.linspace(-2.0, 1.0, num_z), np.linspace(-4.0, 5.0, num_z)
    want = jsp.sph_harm_y(n, m, theta, phi, n_max=l_max)
    with mj.numpy_rank_promotion("raise"):  # (no implicit rank promotion inside, as JAX's)
        _same(msp.sph_harm_y(n, m, theta, phi, n_max=l_max), want)
    _same(mj.jit(lambda *a: msp.sph_harm_y(*a, n_max=l_max))(n, m, theta, phi), want)
    _same(msp.sph_harm_y(n, m, theta, phi), jsp.sph_harm_y(n, m, theta, phi))


def test_sph_harm_y_scalar_theta_clipping_and_errors(x64):
    n, m, phi = np.array([2, 6, 3]), np.array([-1, 2, 3]), np.array([0.3, 1.0, 2.0])
    # a scalar theta; degrees above n_max are clipped to it
    _same(msp.sph_harm_y(n, m, 0.5, phi, n_max=4), jsp.sph_harm_y(n, m, 0.5, phi, n_max=4))
    with pytest.raises(NotImplementedError, match="'diff_n' argument"):
        msp.sph_harm_y(n, m, 0.5, phi, diff_n=1)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(jsp.sph_harm_y)(n, m, np.zeros(3), phi)
    with pytest.raises(mj.errors.ConcretizationTypeError, match="`n_max` argument"):
        mj.jit(msp.sph_harm_y)(n, m, np.zeros(3), phi)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint32, np.bool_, np.int16, np.float32])
def test_abs_operator_of_unsigned_and_bool_under_jit(x64, dtype):
    """``abs(x)`` is ``jnp.absolute``: unsigned and bool arrays come back unchanged (mj
    lowered ``stablehlo.abs`` on them, which XLA rejects)."""
    x = np.array([0, 1, 3], dtype) if dtype != np.bool_ else np.array([True, False])
    _same(mj.jit(lambda t: abs(t))(x), jax.jit(lambda t: abs(t))(x))
    _same(abs(mj.numpy.asarray(x)), abs(jax.numpy.asarray(x)))


_FOLD_IN_DATA = [0, 2**31 + 5, 2**32 - 1, 2**32 + 5, -1, 1.5, True, np.int64(2**40 + 3)]


@pytest.mark.parametrize("data", _FOLD_IN_DATA, ids=repr)
def test_fold_in_data_converts_as_jnp_uint32(x64, data):
    """``fold_in`` takes ``jnp.uint32(data)``: 2**31 + 5 is valid also without x64 (mj raised
    OverflowError), floats convert, Python ints outside uint32 raise JAX's OverflowError."""
    try:
        want = jax.random.key_data(jax.random.fold_in(jax.random.key(3), data))
    except OverflowError as e:
        with pytest.raises(OverflowError, match=str(e)):
            mj.random.fold_in(mj.random.key(3), data)
        return
    _same(mj.random.key_data(mj.random.fold_in(mj.random.key(3), data)), want)
    _same(
        mj.random.fold_in(mj.random.PRNGKey(3), data),
        jax.random.fold_in(jax.random.PRNGKey(3), data),
    )


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int8, np.float32])
def test_fold_in_traced_data_and_errors(x64, dtype):
    data = np.array([0, 7, 100], dtype)
    fold = lambda r: lambda k, d: r.key_data(r.fold_in(k, d))  # noqa: E731
    _same(
        mj.jit(mj.vmap(fold(mj.random), (None, 0)))(mj.random.key(1), data),
        jax.jit(jax.vmap(fold(jax.random), (None, 0)))(jax.random.key(1), data),
    )
    with pytest.raises(
        TypeError, match=r"fold_in accepts a scalar, but was given an array of shape \(3,\) != \(\)"
    ):
        mj.random.fold_in(mj.random.key(1), data)


_EAGER_SAMPLERS = {
    "normal": lambda r, k, dt: r.normal(k, (4, 5), dtype=dt),
    "exponential": lambda r, k, dt: r.exponential(k, (4, 5), dtype=dt),
    "cauchy": lambda r, k, dt: r.cauchy(k, (4, 5), dtype=dt),
    "gumbel": lambda r, k, dt: r.gumbel(k, (4, 5), dtype=dt),
    "logistic": lambda r, k, dt: r.logistic(k, (4, 5), dtype=dt),
    "maxwell": lambda r, k, dt: r.maxwell(k, (4, 5), dtype=dt),
    "lognormal": lambda r, k, dt: r.lognormal(k, 0.5, (4, 5), dtype=dt),
    "pareto": lambda r, k, dt: r.pareto(k, 3.0, (4, 5), dtype=dt),
    "weibull_min": lambda r, k, dt: r.weibull_min(k, 2.0, 3.0, (4, 5), dtype=dt),
    "truncated_normal": lambda r, k, dt: r.truncated_normal(k, -1.0, 2.0, (4, 5), dtype=dt),
    "uniform": lambda r, k, dt: r.uniform(k, (4, 5), dt, -2.0, np.arange(1.0, 6.0)),
    "gamma": lambda r, k, dt: r.gamma(k, np.array([0.3, 1.0, 4.0]), (5, 3), dtype=dt),
    "loggamma": lambda r, k, dt: r.loggamma(k, np.array([0.3, 1.0, 4.0]), (5, 3), dtype=dt),
    "dirichlet": lambda r, k, dt: r.dirichlet(k, np.array([0.5, 2.0, 3.0]), (4,), dtype=dt),
    "chisquare": lambda r, k, dt: r.chisquare(k, 3.0, (4, 5), dtype=dt),
    "generalized_normal": lambda r, k, dt: r.generalized_normal(k, 1.5, (4, 5), dtype=dt),
    "ball": lambda r, k, dt: r.ball(k, 3, 1.5, (4,), dtype=dt),
    "orthogonal": lambda r, k, dt: r.orthogonal(k, 3, (2,), dtype=dt),
}


@pytest.mark.parametrize("name", sorted(_EAGER_SAMPLERS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_eager_samples_are_jaxs_bits(x64, name, dtype):
    """Eager samples equal JAX's bit for bit (typed and raw keys): the samplers run jitted, as
    JAX's, so XLA's log/exp/tan make them, not NumPy's (an ulp off in 1 of ~5 samples)."""
    draw = _EAGER_SAMPLERS[name]
    _same(draw(mj.random, mj.random.key(7), dtype), draw(jax.random, jax.random.key(7), dtype))
    _same(
        draw(mj.random, mj.random.PRNGKey(3), dtype), draw(jax.random, jax.random.PRNGKey(3), dtype)
    )
