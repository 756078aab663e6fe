"""mj.random's distribution samplers: support, moments against closed forms, the CDF (a
Kolmogorov-Smirnov bound), jit == eager == eval_jaxpr(make_jaxpr), vmap over keys == a loop,
and argument errors. tests/oracle/test_oracle_random2.py checks the samples against JAX's.

The sample means must lie within 5 standard errors of the true mean and the sample variances
within a few percent: a wrong distribution (or a wrong parameter) fails by far more.
"""

import math

import numpy as np
import pytest

import mj
from mj import random as mr

N = 100_000
KEY = mr.PRNGKey(1234)
EULER_GAMMA = 0.5772156649015329


def _phi(x: float) -> float:
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _big_phi(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def _truncnorm_moments(a: float, b: float) -> tuple[float, float]:
    z = _big_phi(b) - _big_phi(a)
    mean = (_phi(a) - _phi(b)) / z
    var = 1 + (a * _phi(a) - b * _phi(b)) / z - mean**2
    return mean, var


def _weibull_moments(scale: float, k: float) -> tuple[float, float]:
    g1, g2 = math.gamma(1 + 1 / k), math.gamma(1 + 2 / k)
    return scale * g1, scale**2 * (g2 - g1**2)


TN_MEAN, TN_VAR = _truncnorm_moments(-0.5, 2.0)
WB_MEAN, WB_VAR = _weibull_moments(2.0, 1.5)

# name, sampler(key, n), mean, variance, support (lo, hi) inclusive
MOMENT_CASES = [
    ("exponential", lambda k, n: mr.exponential(k, (n,)), 1.0, 1.0, (0, np.inf)),
    ("laplace", lambda k, n: mr.laplace(k, (n,)), 0.0, 2.0, (-np.inf, np.inf)),
    ("logistic", lambda k, n: mr.logistic(k, (n,)), 0.0, math.pi**2 / 3, (-np.inf, np.inf)),
    (
        "lognormal",
        lambda k, n: mr.lognormal(k, 0.5, (n,)),
        math.exp(0.125),
        (math.exp(0.25) - 1) * math.exp(0.25),
        (0, np.inf),
    ),
    ("pareto", lambda k, n: mr.pareto(k, 5.0, (n,)), 1.25, 5 / (16 * 3), (1, np.inf)),
    (
        "rayleigh",
        lambda k, n: mr.rayleigh(k, 2.0, (n,)),
        2 * math.sqrt(math.pi / 2),
        (4 - math.pi) / 2 * 4,
        (0, np.inf),
    ),
    ("weibull_min", lambda k, n: mr.weibull_min(k, 2.0, 1.5, (n,)), WB_MEAN, WB_VAR, (0, np.inf)),
    ("wald", lambda k, n: mr.wald(k, 1.5, (n,)), 1.5, 1.5**3, (0, np.inf)),
    (
        "maxwell",
        lambda k, n: mr.maxwell(k, (n,)),
        2 * math.sqrt(2 / math.pi),
        (3 * math.pi - 8) / math.pi,
        (0, np.inf),
    ),
    (
        "double_sided_maxwell",
        lambda k, n: mr.double_sided_maxwell(k, 1.0, 2.0, (n,)),
        1.0,
        12.0,
        (-np.inf, np.inf),
    ),
    ("rademacher", lambda k, n: mr.rademacher(k, (n,)), 0.0, 1.0, (-1, 1)),
    ("geometric", lambda k, n: mr.geometric(k, 0.3, (n,)), 1 / 0.3, 0.7 / 0.09, (1, np.inf)),
    (
        "triangular",
        lambda k, n: mr.triangular(k, -1.0, 0.5, 2.0, (n,)),
        0.5,
        (1 + 0.25 + 4 + 0.5 + 2 - 1) / 18,
        (-1, 2),
    ),
    (
        "truncated_normal",
        lambda k, n: mr.truncated_normal(k, -0.5, 2.0, (n,)),
        TN_MEAN,
        TN_VAR,
        (-0.5, 2.0),
    ),
    ("gamma_small_a", lambda k, n: mr.gamma(k, 0.3, (n,)), 0.3, 0.3, (0, np.inf)),
    ("gamma", lambda k, n: mr.gamma(k, 3.5, (n,)), 3.5, 3.5, (0, np.inf)),
    (
        "loggamma",
        lambda k, n: mr.loggamma(k, 2.0, (n,)),
        1 - EULER_GAMMA,  # digamma(2)
        math.pi**2 / 6 - 1,  # trigamma(2)
        (-np.inf, np.inf),
    ),
    ("beta", lambda k, n: mr.beta(k, 2.0, 3.0, (n,)), 0.4, 0.04, (0, 1)),
    ("chisquare", lambda k, n: mr.chisquare(k, 4.0, (n,)), 4.0, 8.0, (0, np.inf)),
    ("f", lambda k, n: mr.f(k, 5.0, 12.0, (n,)), 1.2, 2 * 144 * 15 / (5 * 100 * 8), (0, np.inf)),
    ("t", lambda k, n: mr.t(k, 6.0, (n,)), 0.0, 1.5, (-np.inf, np.inf)),
    ("generalized_normal_1", lambda k, n: mr.generalized_normal(k, 1.0, (n,)), 0.0, 2.0, None),
    ("generalized_normal_2", lambda k, n: mr.generalized_normal(k, 2.0, (n,)), 0.0, 0.5, None),
    ("poisson_knuth", lambda k, n: mr.poisson(k, 3.0, (n,)), 3.0, 3.0, (0, np.inf)),
    ("poisson_rejection", lambda k, n: mr.poisson(k, 40.0, (n,)), 40.0, 40.0, (0, np.inf)),
    ("binomial_inversion", lambda k, n: mr.binomial(k, 20, 0.3, (n,)), 6.0, 4.2, (0, 20)),
    ("binomial_btrs", lambda k, n: mr.binomial(k, 200, 0.6, (n,)), 120.0, 48.0, (0, 200)),
]


@pytest.mark.parametrize(
    ("name", "sampler", "mean", "var", "support"), MOMENT_CASES, ids=[c[0] for c in MOMENT_CASES]
)
def test_moments_and_support(name, sampler, mean, var, support):
    x = np.asarray(sampler(KEY, N), np.float64)
    assert x.shape == (N,)
    assert np.all(np.isfinite(x)), name
    if support is not None:
        assert support[0] <= x.min(), name
        assert x.max() <= support[1], name
    assert abs(x.mean() - mean) < 5 * math.sqrt(var / N), (name, x.mean(), mean)
    assert x.var() == pytest.approx(var, rel=0.06), (name, x.var(), var)


def _ks_statistic(x: np.ndarray, cdf) -> float:
    x = np.sort(x)
    f = np.array([cdf(v) for v in x])
    n = len(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


KS_CASES = [
    ("cauchy", lambda k, n: mr.cauchy(k, (n,)), lambda x: 0.5 + math.atan(x) / math.pi),
    ("gamma_1_is_exponential", lambda k, n: mr.gamma(k, 1.0, (n,)), lambda x: 1 - math.exp(-x)),
    ("beta_1_1_is_uniform", lambda k, n: mr.beta(k, 1.0, 1.0, (n,)), lambda x: x),
    (
        "laplace",
        lambda k, n: mr.laplace(k, (n,)),
        lambda x: 0.5 * math.exp(x) if x < 0 else 1 - 0.5 * math.exp(-x),
    ),
    ("logistic", lambda k, n: mr.logistic(k, (n,)), lambda x: 1 / (1 + math.exp(-x))),
    ("chisquare_2", lambda k, n: mr.chisquare(k, 2.0, (n,)), lambda x: 1 - math.exp(-x / 2)),
    (
        "truncated_normal",
        lambda k, n: mr.truncated_normal(k, -0.5, 2.0, (n,)),
        lambda x: (_big_phi(x) - _big_phi(-0.5)) / (_big_phi(2.0) - _big_phi(-0.5)),
    ),
]


@pytest.mark.parametrize(("name", "sampler", "cdf"), KS_CASES, ids=[c[0] for c in KS_CASES])
def test_distribution_function(name, sampler, cdf):
    n = 20_000
    d = _ks_statistic(np.asarray(sampler(KEY, n)), cdf)
    assert d < 1.95 / math.sqrt(n), (name, d)  # the 0.1% critical value


def test_cauchy_quartiles():
    x = np.asarray(mr.cauchy(KEY, (N,)))
    np.testing.assert_allclose(np.quantile(x, [0.25, 0.5, 0.75]), [-1, 0, 1], atol=0.03)


def test_dirichlet_mean_and_simplex():
    alpha = np.array([1.0, 2.0, 3.0])
    x = np.asarray(mr.dirichlet(KEY, alpha, (N,)))
    assert x.shape == (N, 3)
    np.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)
    assert np.all(x >= 0)
    np.testing.assert_allclose(x.mean(0), alpha / 6, atol=0.005)
    var0 = (1 / 6) * (5 / 6) / 7
    assert x[:, 0].var() == pytest.approx(var0, rel=0.05)


def test_dirichlet_tiny_alpha_stays_finite():
    x = np.asarray(mr.dirichlet(KEY, np.array([1e-3, 1e-3]), (100,)))
    assert np.all(np.isfinite(x))
    np.testing.assert_allclose(x.sum(-1), 1.0)


def test_loggamma_is_log_of_gamma_for_tiny_a():
    a = np.array([1e-4, 0.01, 0.5, 3.0])
    log_g = np.asarray(mr.loggamma(KEY, a, (1000, 4)))
    assert np.all(np.isfinite(log_g))
    # log-space sampling keeps the mean of log G: E[log G] = digamma(a) ~ -1/a for tiny a
    assert log_g[:, 0].mean() == pytest.approx(-1e4 - EULER_GAMMA, rel=0.1)
    g = np.asarray(mr.gamma(KEY, a, (1000, 4)))
    np.testing.assert_allclose(np.exp(log_g[:, 2:]), g[:, 2:], rtol=1e-10)


def test_multinomial_counts():
    p = np.array([0.2, 0.3, 0.5])
    x = np.asarray(mr.multinomial(KEY, 100.0, p, shape=(20_000, 3)))
    assert x.shape == (20_000, 3)
    assert x.dtype == np.float64
    np.testing.assert_array_equal(x.sum(-1), 100.0)
    np.testing.assert_array_equal(x, np.round(x))
    np.testing.assert_allclose(x.mean(0), 100 * p, rtol=0.01)
    np.testing.assert_allclose(x.var(0), 100 * p * (1 - p), rtol=0.05)
    zero = np.asarray(mr.multinomial(KEY, 7.0, np.array([0.5, 0.5, 0.0]), shape=(50, 3)))
    np.testing.assert_array_equal(zero[:, 2], 0.0)


@pytest.mark.parametrize("method", ["cholesky", "eigh", "svd"])
def test_multivariate_normal_covariance(method):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + np.eye(3)
    mean = np.array([1.0, -2.0, 0.5])
    x = np.asarray(mr.multivariate_normal(KEY, mean, cov, (N,), method=method))
    assert x.shape == (N, 3)
    np.testing.assert_allclose(x.mean(0), mean, atol=5 * math.sqrt(cov.max() / N))
    np.testing.assert_allclose(np.cov(x.T), cov, rtol=0.03, atol=0.03)


def test_multivariate_normal_singular_covariance_with_eigh():
    cov = np.array([[1.0, 1.0], [1.0, 1.0]])
    x = np.asarray(mr.multivariate_normal(KEY, np.zeros(2), cov, (1000,), method="eigh"))
    np.testing.assert_allclose(x[:, 0], x[:, 1], atol=1e-6)


def test_multivariate_normal_batch_shapes():
    mean = np.zeros((4, 1, 2))
    cov = np.broadcast_to(np.eye(2), (5, 2, 2))
    assert mr.multivariate_normal(KEY, mean, cov).shape == (4, 5, 2)
    assert mr.multivariate_normal(KEY, np.zeros(2), np.eye(2), (7, 3)).shape == (7, 3, 2)
    assert mr.multivariate_normal(KEY, np.zeros(2, np.float32), np.eye(2)).dtype == np.float64


@pytest.mark.parametrize(("n", "m"), [(4, None), (3, 5), (5, 3)])
def test_orthogonal(n, m):
    q = np.asarray(mr.orthogonal(KEY, n, (200,), m=m))
    cols = n if m is None else m
    assert q.shape == (200, n, cols)
    small = min(n, cols)
    gram = q.swapaxes(-1, -2) @ q if n >= cols else q @ q.swapaxes(-1, -2)
    np.testing.assert_allclose(gram, np.broadcast_to(np.eye(small), gram.shape), atol=1e-12)
    # Haar measure: every entry has mean 0 and variance 1 / max(n, m)
    big = max(n, cols)
    assert abs(q.mean()) < 5 * math.sqrt(1 / big / q.size)
    assert np.mean(q**2) == pytest.approx(1 / big, rel=1e-12)


def test_ball_points_are_uniform_in_the_ball():
    d = 3
    x = np.asarray(mr.ball(KEY, d, 2, (N,)))
    assert x.shape == (N, d)
    r = np.linalg.norm(x, axis=-1)
    assert r.max() <= 1.0
    # the radius of a uniform point has density d r^(d-1): E[r] = d/(d+1), E[r^2] = d/(d+2)
    assert r.mean() == pytest.approx(d / (d + 1), abs=0.003)
    assert (r**2).mean() == pytest.approx(d / (d + 2), abs=0.003)
    l1 = np.abs(np.asarray(mr.ball(KEY, 4, 1, (1000,)))).sum(-1)
    assert l1.max() <= 1.0


def test_choice_frequencies_and_replacement():
    p = np.array([0.1, 0.0, 0.3, 0.6])
    x = np.asarray(mr.choice(KEY, 4, (N,), p=p))
    assert x.dtype == np.int64
    np.testing.assert_allclose(np.bincount(x, minlength=4) / N, p, atol=0.005)
    u = np.asarray(mr.choice(KEY, 5, (N,)))
    np.testing.assert_allclose(np.bincount(u, minlength=5) / N, 0.2, atol=0.005)
    for seed in range(20):
        k = mr.PRNGKey(seed)
        assert len(set(np.asarray(mr.choice(k, 6, (6,), replace=False)).tolist())) == 6
        picked = np.asarray(mr.choice(k, 4, (2,), replace=False, p=p))
        assert len(set(picked.tolist())) == 2
        assert 1 not in picked


def test_choice_from_array_along_axis():
    a = np.arange(12.0).reshape(3, 4)
    x = np.asarray(mr.choice(KEY, a, (2, 5), axis=1))
    assert x.shape == (3, 2, 5)
    row_offsets = np.broadcast_to(4.0 * np.arange(3)[:, None, None], x.shape)
    np.testing.assert_array_equal(x - x[:1], row_offsets)
    assert set(x[0].ravel().tolist()) <= {0.0, 1.0, 2.0, 3.0}
    rows = np.asarray(mr.choice(KEY, a, (3,), replace=False))
    np.testing.assert_array_equal(np.sort(rows[:, 0]), [0.0, 4.0, 8.0])
    assert mr.choice(KEY, a, (0,)).shape == (0,)


def test_rademacher_and_geometric_dtypes():
    assert mr.rademacher(KEY, (3,)).dtype == np.int64
    assert mr.rademacher(KEY, (3,), np.float32).dtype == np.float32
    assert mr.geometric(KEY, 0.5, (3,)).dtype == np.int64
    assert mr.geometric(KEY, 0.5, (3,), np.int32).dtype == np.int32
    assert mr.poisson(KEY, 2.0, (3,)).dtype == np.int64
    assert mr.binomial(KEY, 5, 0.5, (3,)).dtype == np.float64


def test_binomial_special_parameters():
    n = np.array([10.0, -1.0, np.inf, 10.0, 10.0, 0.0])
    p = np.array([np.nan, 0.5, 0.5, 0.0, 1.0, 0.5])
    x = np.asarray(mr.binomial(KEY, n, p))
    assert np.isnan(x[0])
    assert np.isnan(x[1])
    assert x[2] == np.inf
    np.testing.assert_array_equal(x[3:], [0.0, 10.0, 0.0])


def test_poisson_zero_rate_and_broadcast_shape():
    x = np.asarray(mr.poisson(KEY, np.array([0.0, 1.0]), (1000, 2)))
    np.testing.assert_array_equal(x[:, 0], 0)
    assert x[:, 1].mean() == pytest.approx(1.0, abs=0.1)


FLOAT_SAMPLERS = {
    "exponential": lambda k, dt: mr.exponential(k, (2, 3), dt),
    "laplace": lambda k, dt: mr.laplace(k, (2, 3), dt),
    "logistic": lambda k, dt: mr.logistic(k, (2, 3), dt),
    "cauchy": lambda k, dt: mr.cauchy(k, (2, 3), dt),
    "lognormal": lambda k, dt: mr.lognormal(k, 0.5, (2, 3), dt),
    "pareto": lambda k, dt: mr.pareto(k, np.array([1.0, 2.0, 3.0], dt), (2, 3), dt),
    "rayleigh": lambda k, dt: mr.rayleigh(k, 2.0, (2, 3), dt),
    "weibull_min": lambda k, dt: mr.weibull_min(k, 2.0, 1.5, (2, 3), dt),
    "wald": lambda k, dt: mr.wald(k, 1.5, (2, 3), dt),
    "maxwell": lambda k, dt: mr.maxwell(k, (2, 3), dt),
    "double_sided_maxwell": lambda k, dt: mr.double_sided_maxwell(k, 0.0, 1.0, (2, 3), dt),
    "triangular": lambda k, dt: mr.triangular(k, 0.0, 0.2, 1.0, (2, 3), dt),
    "truncated_normal": lambda k, dt: mr.truncated_normal(k, -1.0, 1.0, (2, 3), dt),
    "gamma": lambda k, dt: mr.gamma(k, np.array([0.5, 1.0, 4.0]), (2, 3), dt),
    "loggamma": lambda k, dt: mr.loggamma(k, 0.5, (2, 3), dt),
    "beta": lambda k, dt: mr.beta(k, 0.5, 2.0, (2, 3), dt),
    "dirichlet": lambda k, dt: mr.dirichlet(k, np.array([0.5, 1.0, 2.0]), (2,), dt),
    "chisquare": lambda k, dt: mr.chisquare(k, 3.0, (2, 3), dt),
    "f": lambda k, dt: mr.f(k, 3.0, 5.0, (2, 3), dt),
    "t": lambda k, dt: mr.t(k, 3.0, (2, 3), dt),
    "generalized_normal": lambda k, dt: mr.generalized_normal(k, 1.5, (2, 3), dt),
    "ball": lambda k, dt: mr.ball(k, 3, 2, (2,), dt),
    "orthogonal": lambda k, dt: mr.orthogonal(k, 3, (2,), dt),
    "multivariate_normal": lambda k, dt: mr.multivariate_normal(
        k, np.zeros(3, dt or np.float64), np.eye(3, dtype=dt) * 2, (2,), dt
    ),
}


@pytest.mark.parametrize("name", sorted(FLOAT_SAMPLERS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_dtype_and_shape(name, dtype):
    x = FLOAT_SAMPLERS[name](KEY, dtype)
    assert x.dtype == dtype, name
    assert x.shape in ((2, 3), (2, 3, 3) if name == "orthogonal" else (2, 3)), name
    assert np.all(np.isfinite(np.asarray(x)))


ALL_SAMPLERS = {
    **{name: (lambda k, f=f: f(k, None)) for name, f in FLOAT_SAMPLERS.items()},
    "rademacher": lambda k: mr.rademacher(k, (2, 3)),
    "geometric": lambda k: mr.geometric(k, 0.3, (2, 3)),
    "poisson": lambda k: mr.poisson(k, np.array([0.0, 4.0, 30.0]), (2, 3)),
    "binomial": lambda k: mr.binomial(k, np.array([5.0, 100.0, 1000.0]), 0.4, (2, 3)),
    "multinomial": lambda k: mr.multinomial(k, 50.0, np.array([0.2, 0.8]), shape=(3, 2)),
    "choice": lambda k: mr.choice(k, 5, (2, 3)),
    "choice_p": lambda k: mr.choice(k, 3, (4,), p=np.array([0.2, 0.3, 0.5])),
    "choice_no_replace_p": lambda k: mr.choice(
        k, 3, (2,), replace=False, p=np.array([0.2, 0.3, 0.5])
    ),
}


@pytest.mark.parametrize("name", sorted(ALL_SAMPLERS))
def test_jit_and_jaxpr_match_eager(name):
    f = ALL_SAMPLERS[name]
    eager = f(KEY)
    jitted = mj.jit(f)(KEY)
    closed = mj.make_jaxpr(f)(KEY)
    evaluated = mj.eval_jaxpr(closed, [KEY])[0]
    for other in (jitted, evaluated):
        assert other.shape == eager.shape, name
        assert other.dtype == eager.dtype, name
        np.testing.assert_allclose(np.asarray(other), np.asarray(eager), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(ALL_SAMPLERS))
def test_vmap_over_keys_matches_a_loop(name):
    f = ALL_SAMPLERS[name]
    keys = mr.split(KEY, 3)
    batched = mj.vmap(f)(keys)
    looped = np.stack([np.asarray(f(k)) for k in keys])
    assert batched.shape == looped.shape, name
    np.testing.assert_allclose(np.asarray(batched), looped, rtol=1e-10, atol=1e-12)


def test_parameters_may_be_traced():
    def f(key, a, b):
        return mr.beta(key, a, b, (4,)), mr.pareto(key, a, (4,)), mr.poisson(key, b * 10, (4,))

    eager = f(KEY, 0.7, 2.0)
    jitted = mj.jit(f)(KEY, 0.7, 2.0)
    for x, y in zip(eager, jitted, strict=True):
        np.testing.assert_allclose(np.asarray(y), np.asarray(x), rtol=1e-12)
    over_a = mj.vmap(lambda a: mr.gamma(KEY, a, (2,)))(np.array([0.5, 2.0]))
    np.testing.assert_allclose(over_a[1], mr.gamma(KEY, 2.0, (2,)), rtol=1e-12)


def test_same_key_same_samples_and_independent_elements():
    a = np.asarray(mr.gamma(KEY, 2.0, (1000,)))
    np.testing.assert_array_equal(a, mr.gamma(KEY, 2.0, (1000,)))
    assert abs(np.corrcoef(a[:-1], a[1:])[0, 1]) < 0.1


def test_key_utilities():
    keys = mr.split(KEY, 3)
    assert mr.key_impl(KEY) == "threefry2x32"
    assert mr.key_impl(keys) == "threefry2x32"
    np.testing.assert_array_equal(mr.key_data(mr.wrap_key_data(mr.key_data(keys))), keys)
    typed = mr.wrap_key_data(keys, impl="threefry2x32")
    assert typed.shape == (3,)
    assert str(typed.dtype) == "key<fry>"
    np.testing.assert_array_equal(mr.key_data(typed), keys)
    np.testing.assert_array_equal(mr.clone(KEY), KEY)
    np.testing.assert_array_equal(mr.normal(mr.clone(KEY)), mr.normal(KEY))
    with pytest.raises(TypeError, match=r"wrap_key_data: expected uint32 key data"):
        mr.wrap_key_data(np.zeros(3, np.uint32))
    with pytest.raises(NotImplementedError, match=r'wrap_key_data: .*mj has only "threefry2x32"'):
        mr.wrap_key_data(keys, impl="rbg")
    with pytest.raises(ValueError, match=r"unrecognized PRNG implementation"):
        mr.wrap_key_data(keys, impl="nope")


ERROR_CASES = [
    ("exponential", lambda: mr.exponential(KEY, (2,), np.int32), ValueError, "floating-point"),
    ("gamma", lambda: mr.gamma(KEY, np.ones(3), (2,)), ValueError, "broadcast"),
    ("beta", lambda: mr.beta(KEY, np.ones(2), np.ones(3)), ValueError, "do not broadcast"),
    ("pareto", lambda: mr.pareto(KEY, np.ones(2), (-1,)), ValueError, "non-negative"),
    ("lognormal", lambda: mr.lognormal(KEY, np.ones(2), None, np.float32), TypeError, "cast"),
    ("laplace", lambda: mr.laplace(np.zeros((3, 2), np.uint32)), TypeError, "single PRNG key"),
    ("dirichlet", lambda: mr.dirichlet(KEY, 1.0), ValueError, "at least one dimension"),
    ("dirichlet", lambda: mr.dirichlet(KEY, np.ones((2, 3)), (4,)), ValueError, "broadcast"),
    (
        "multivariate_normal",
        lambda: mr.multivariate_normal(KEY, np.zeros(2), np.eye(3)),
        ValueError,
        r"cov must have shape \(\.\.\., 2, 2\)",
    ),
    (
        "multivariate_normal",
        lambda: mr.multivariate_normal(KEY, np.zeros(2), np.eye(2), method="qr"),
        ValueError,
        "method must be one of",
    ),
    ("choice", lambda: mr.choice(KEY, 3, (4,), replace=False), ValueError, "larger sample"),
    ("choice", lambda: mr.choice(KEY, 3, 4), TypeError, "shape must be a sequence"),
    ("choice", lambda: mr.choice(KEY, 3, (2,), p=np.ones(4) / 4), ValueError, "p must be"),
    ("choice", lambda: mr.choice(KEY, 0, (2,)), ValueError, "greater than 0"),
    ("poisson", lambda: mr.poisson(KEY, 1.0, (2,), np.float32), ValueError, "integer dtype"),
    ("poisson", lambda: mr.poisson(KEY, np.ones(3), (2,)), ValueError, "does not broadcast"),
    ("geometric", lambda: mr.geometric(KEY, 0.5, (2,), np.float64), ValueError, "integer"),
    ("binomial", lambda: mr.binomial(KEY, 3, 0.5, (2,), np.int32), ValueError, "floating"),
    ("ball", lambda: mr.ball(KEY, 2.5), TypeError, "d must be an integer"),
    ("generalized_normal", lambda: mr.generalized_normal(KEY, np.ones(2)), ValueError, "scalar"),
    ("orthogonal", lambda: mr.orthogonal(KEY, 3, (), np.int32), ValueError, "float or complex"),
]


@pytest.mark.parametrize(
    ("api", "call", "exc", "pattern"),
    ERROR_CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)],
)
def test_errors_name_the_function_and_the_user_line(api, call, exc, pattern):
    with pytest.raises(exc, match=pattern) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"mj.random.{api}:"), message
    assert "test_mj_random_distributions.py" in message, message


GRAD_CASES = [
    ("pareto", lambda b: mr.pareto(KEY, b, (5,)), 2.0),
    ("lognormal", lambda s: mr.lognormal(KEY, s, (5,)), 0.7),
    ("rayleigh", lambda s: mr.rayleigh(KEY, s, (5,)), 2.0),
    ("weibull_min_concentration", lambda c: mr.weibull_min(KEY, 2.0, c, (5,)), 1.5),
    ("triangular_mode", lambda m: mr.triangular(KEY, -1.0, m, 2.0, (5,)), 0.5),
    ("truncated_normal_lower", lambda lo: mr.truncated_normal(KEY, lo, 2.0, (5,)), -0.5),
    ("wald", lambda m: mr.wald(KEY, m, (5,)), 1.5),
    (
        "multivariate_normal_cov",
        lambda s: mr.multivariate_normal(
            KEY,
            np.zeros(2),
            s * np.array([[1.0, 0.0], [0.0, 0.0]]) + np.array([[0, 0.3], [0.3, 1]]),
            (3,),
        ),
        2.0,
    ),
]


@pytest.mark.parametrize(("name", "sample", "x0"), GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_reparameterized_gradients_match_finite_differences(name, sample, x0):
    weights = np.linspace(0.5, 1.5, 15)

    def loss(x):
        y = sample(x)
        return mj.numpy.sum(y * weights[: y.size].reshape(y.shape))

    h = 1e-6
    fd = (float(loss(x0 + h)) - float(loss(x0 - h))) / (2 * h)
    assert float(mj.grad(loss)(x0)) == pytest.approx(fd, rel=1e-6, abs=1e-8), name


@pytest.mark.parametrize("a", [0.3, 1.0, 3.0, 40.0])
@pytest.mark.parametrize("log_space", [False, True])
def test_gamma_gradient_is_the_implicit_reparameterization_one(a, log_space):
    # holding the CDF P(a, x) fixed: dx/da = -(dP/da) / (dP/dx), with dP/da by central
    # differences of the regularized incomplete gamma function and dP/dx the density
    sampler = mr.loggamma if log_space else mr.gamma
    grads = mj.vmap(mj.grad(lambda a, i: sampler(KEY, a, (6,))[i]), in_axes=(None, 0))(
        a, np.arange(6)
    )
    x = np.asarray(mr.gamma(KEY, a, (6,)))
    h = 1e-6 * a
    dp_da = (np.asarray(mj.lax.igamma(a + h, x)) - np.asarray(mj.lax.igamma(a - h, x))) / (2 * h)
    density = np.exp((a - 1) * np.log(x) - x - math.lgamma(a))
    expected = -dp_da / density
    if log_space:
        expected = expected / x
    np.testing.assert_allclose(np.asarray(grads), expected, rtol=1e-5)


def test_gamma_gradient_under_jit_and_vmap():
    def f(a):
        return mj.numpy.sum(mr.gamma(KEY, a, (4,)))

    g = mj.grad(f)(1.7)
    np.testing.assert_allclose(mj.jit(mj.grad(f))(1.7), g, rtol=1e-12)
    batched = mj.vmap(mj.grad(f))(np.array([0.5, 1.7]))
    np.testing.assert_allclose(batched[1], g, rtol=1e-12)


def test_constant_parameter_rejection_samplers_inside_grad():
    # the while loops carry no tangent when the parameters do not depend on the input
    g = mj.grad(lambda w: mj.numpy.sum(w * mr.gamma(KEY, 2.0, (3,))))(1.0)
    np.testing.assert_allclose(g, np.sum(np.asarray(mr.gamma(KEY, 2.0, (3,)))), rtol=1e-12)
