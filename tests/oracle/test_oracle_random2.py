"""mj.random's distribution samplers against jax.random (JAX 0.10.2).

mj follows JAX's algorithms step by step (same key splits, same uniform bounds, same order of
floating-point operations, same rejection loops), so:

* under ``mj.jit`` the samples are bit-identical to JAX's, because both programs compile to the
  same XLA operations. The distribution parameters are passed as jit arguments: a parameter
  baked in as a constant lets XLA fold ``log``/``sqrt`` of it at compile time with the host's
  libm, which can differ from the compiled kernels in the last bit (JAX's own jit traces the
  parameters, so it never folds them);
* eagerly (NumPy kernels) the float samples agree to a few ulps, and integer samples exactly;
* with ``jax_enable_x64`` off, JAX's default dtypes are 32-bit: mj with ``dtype=float32`` and
  float32 parameters gives the same samples. (Samplers that draw a Bernoulli(0.5) with a Python
  ``p`` -- ``rademacher`` and those built on it -- use a float64 uniform in mj, as JAX does in
  64-bit mode, so they only match JAX's x64 mode.)
"""

import jax
import numpy as np
import pytest
from jax import random as jr

import mj
from mj import random as mr

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

SEEDS = [0, 42, 2**32 + 5]
S = (4, 25)
RNG = np.random.default_rng(0)
_A = RNG.standard_normal((3, 3))
COV = _A @ _A.T + np.eye(3)
MEAN = RNG.standard_normal(3)
ARR = np.arange(24.0).reshape(4, 6)
P6 = np.array([0.1, 0.0, 0.3, 0.2, 0.4, 0.0])
P4 = np.array([0.1, 0.5, 0.3, 0.1])


def _rows():
    """(name, jax sampler, mj sampler, parameters); both samplers take (key, *parameters)."""
    col = np.array([[0.3], [1.0], [4.5]])
    return [
        ("exponential", lambda k: jr.exponential(k, S), lambda k: mr.exponential(k, S), ()),
        ("laplace", lambda k: jr.laplace(k, S), lambda k: mr.laplace(k, S), ()),
        ("logistic", lambda k: jr.logistic(k, S), lambda k: mr.logistic(k, S), ()),
        ("cauchy", lambda k: jr.cauchy(k, S), lambda k: mr.cauchy(k, S), ()),
        (
            "lognormal",
            lambda k, s: jr.lognormal(k, s, S),
            lambda k, s: mr.lognormal(k, s, S),
            (0.7,),
        ),
        ("lognormal_default", lambda k: jr.lognormal(k), lambda k: mr.lognormal(k), ()),
        (
            "pareto",
            lambda k, b: jr.pareto(k, b, (3, 25)),
            lambda k, b: mr.pareto(k, b, (3, 25)),
            (np.array([[1.0], [2.0], [3.0]]),),
        ),
        ("rayleigh", lambda k, s: jr.rayleigh(k, s, S), lambda k, s: mr.rayleigh(k, s, S), (2.0,)),
        (
            "weibull_min",
            lambda k, s, c: jr.weibull_min(k, s, c, S),
            lambda k, s, c: mr.weibull_min(k, s, c, S),
            (2.0, 1.5),
        ),
        ("wald", lambda k, m: jr.wald(k, m, S), lambda k, m: mr.wald(k, m, S), (1.5,)),
        ("maxwell", lambda k: jr.maxwell(k, S), lambda k: mr.maxwell(k, S), ()),
        (
            "double_sided_maxwell",
            lambda k, loc, s: jr.double_sided_maxwell(k, loc, s, S),
            lambda k, loc, s: mr.double_sided_maxwell(k, loc, s, S),
            (1.0, 2.0),
        ),
        (
            "double_sided_maxwell_params",
            lambda k, loc, s: jr.double_sided_maxwell(k, loc, s),
            lambda k, loc, s: mr.double_sided_maxwell(k, loc, s),
            (np.zeros(3), 2.0),
        ),
        ("rademacher", lambda k: jr.rademacher(k, S), lambda k: mr.rademacher(k, S), ()),
        (
            "geometric",
            lambda k, p: jr.geometric(k, p, S),
            lambda k, p: mr.geometric(k, p, S),
            (0.3,),
        ),
        (
            "triangular",
            lambda k, a, m, b: jr.triangular(k, a, m, b, S),
            lambda k, a, m, b: mr.triangular(k, a, m, b, S),
            (-1.0, 0.5, 2.0),
        ),
        (
            "truncated_normal",
            lambda k, a, b: jr.truncated_normal(k, a, b, S),
            lambda k, a, b: mr.truncated_normal(k, a, b, S),
            (-0.5, 2.0),
        ),
        (
            "gamma",
            lambda k, a: jr.gamma(k, a, (3, 25)),
            lambda k, a: mr.gamma(k, a, (3, 25)),
            (col,),
        ),
        ("gamma_scalar", lambda k, a: jr.gamma(k, a, S), lambda k, a: mr.gamma(k, a, S), (1.5,)),
        (
            "loggamma",
            lambda k, a: jr.loggamma(k, a, (3, 25)),
            lambda k, a: mr.loggamma(k, a, (3, 25)),
            (np.array([[0.01], [1.0], [4.5]]),),
        ),
        (
            "beta",
            lambda k, a, b: jr.beta(k, a, b, S),
            lambda k, a, b: mr.beta(k, a, b, S),
            (0.5, 2.0),
        ),
        (
            "dirichlet",
            lambda k, a: jr.dirichlet(k, a, (6,)),
            lambda k, a: mr.dirichlet(k, a, (6,)),
            (np.array([0.5, 1.0, 3.0]),),
        ),
        (
            "chisquare",
            lambda k, d: jr.chisquare(k, d, S),
            lambda k, d: mr.chisquare(k, d, S),
            (3.0,),
        ),
        ("f", lambda k, a, b: jr.f(k, a, b, S), lambda k, a, b: mr.f(k, a, b, S), (3.0, 5.0)),
        ("t", lambda k, d: jr.t(k, d, S), lambda k, d: mr.t(k, d, S), (4.0,)),
        (
            "generalized_normal",
            lambda k, p: jr.generalized_normal(k, p, S),
            lambda k, p: mr.generalized_normal(k, p, S),
            (1.5,),
        ),
        ("ball", lambda k, p: jr.ball(k, 3, p, (5,)), lambda k, p: mr.ball(k, 3, p, (5,)), (2.0,)),
        (
            "ball_l1",
            lambda k, p: jr.ball(k, 4, p, (5,)),
            lambda k, p: mr.ball(k, 4, p, (5,)),
            (1.0,),
        ),
        (
            "poisson",
            lambda k, lam: jr.poisson(k, lam, (20, 7)),
            lambda k, lam: mr.poisson(k, lam, (20, 7)),
            (np.array([0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 300.0]),),
        ),
        (
            "binomial",
            lambda k, n, p: jr.binomial(k, n, p, (30, 4)),
            lambda k, n, p: mr.binomial(k, n, p, (30, 4)),
            (np.array([5.0, 20.0, 100.0, 1000.0]), np.array([0.3, 0.7, 0.05, 0.5])),
        ),
        (
            "multinomial",
            lambda k, n, p: jr.multinomial(k, n, p, shape=(6, 3)),
            lambda k, n, p: mr.multinomial(k, n, p, shape=(6, 3)),
            (100.0, np.array([0.2, 0.3, 0.5])),
        ),
        (
            "multinomial_batched",
            lambda k, n, p: jr.multinomial(k, n, p),
            lambda k, n, p: mr.multinomial(k, n, p),
            (np.array([5.0, 50.0]), np.array([[0.2, 0.3, 0.5], [0.5, 0.5, 0.0]])),
        ),
        *[
            (
                f"multivariate_normal_{m}",
                lambda k, mu, c, m=m: jr.multivariate_normal(k, mu, c, (4,), method=m),
                lambda k, mu, c, m=m: mr.multivariate_normal(k, mu, c, (4,), method=m),
                (MEAN, COV),
            )
            for m in ("cholesky", "eigh", "svd")
        ],
        (
            "orthogonal",
            lambda k: jr.orthogonal(k, 4, (2,)),
            lambda k: mr.orthogonal(k, 4, (2,)),
            (),
        ),
        (
            "orthogonal_wide",
            lambda k: jr.orthogonal(k, 3, m=5),
            lambda k: mr.orthogonal(k, 3, m=5),
            (),
        ),
        (
            "orthogonal_tall",
            lambda k: jr.orthogonal(k, 5, m=3),
            lambda k: mr.orthogonal(k, 5, m=3),
            (),
        ),
        ("choice", lambda k: jr.choice(k, 10, (5,)), lambda k: mr.choice(k, 10, (5,)), ()),
        (
            "choice_no_replace",
            lambda k: jr.choice(k, 10, (2, 3), replace=False),
            lambda k: mr.choice(k, 10, (2, 3), replace=False),
            (),
        ),
        (
            "choice_axis",
            lambda k, a: jr.choice(k, a, (3,), axis=1),
            lambda k, a: mr.choice(k, a, (3,), axis=1),
            (ARR,),
        ),
        (
            "choice_axis_no_replace",
            lambda k, a: jr.choice(k, a, (2, 2), replace=False, axis=1),
            lambda k, a: mr.choice(k, a, (2, 2), replace=False, axis=1),
            (ARR,),
        ),
        (
            "choice_p",
            lambda k, p: jr.choice(k, 6, (50,), p=p),
            lambda k, p: mr.choice(k, 6, (50,), p=p),
            (P6,),
        ),
        (
            "choice_p_rows",
            lambda k, a, p: jr.choice(k, a, (7,), p=p),
            lambda k, a, p: mr.choice(k, a, (7,), p=p),
            (ARR, P4),
        ),
        (
            "choice_p_no_replace",
            lambda k, p: jr.choice(k, 6, (3,), replace=False, p=p),
            lambda k, p: mr.choice(k, 6, (3,), replace=False, p=p),
            (P6,),
        ),
        (
            "choice_p_no_replace_high",
            lambda k, p: jr.choice(k, 6, (4,), replace=False, p=p, mode="high"),
            lambda k, p: mr.choice(k, 6, (4,), replace=False, p=p, mode="high"),
            (P6,),
        ),
    ]


ROWS = _rows()


def _assert_same(ours, theirs, exact: bool, name: str) -> None:
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape, name
    assert ours.dtype == theirs.dtype, name
    if exact or theirs.dtype.kind != "f":
        np.testing.assert_array_equal(ours, theirs, err_msg=name)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-300, err_msg=name)


@pytest.mark.parametrize(("name", "theirs", "ours", "params"), ROWS, ids=[r[0] for r in ROWS])
def test_jit_samples_are_bit_identical(name, theirs, ours, params):
    jitted = mj.jit(ours)  # one compilation serves every key (keys are arguments)
    for seed in SEEDS:
        expected = theirs(jr.PRNGKey(seed), *params)
        got = jitted(mr.PRNGKey(seed), *(np.asarray(p) for p in params))
        _assert_same(got, expected, exact=True, name=f"{name} (seed {seed})")


@pytest.mark.parametrize(("name", "theirs", "ours", "params"), ROWS, ids=[r[0] for r in ROWS])
def test_eager_samples_match_to_the_last_ulps(name, theirs, ours, params):
    for seed in SEEDS[:2]:
        expected = theirs(jr.PRNGKey(seed), *params)
        _assert_same(ours(mr.PRNGKey(seed), *params), expected, exact=False, name=name)


@pytest.mark.parametrize("name", ["gamma", "poisson", "choice_p"])
def test_vmap_over_keys_matches_jax_vmap(name):
    _, theirs, ours, params = next(r for r in ROWS if r[0] == name)
    keys = jr.split(jr.PRNGKey(3), 4)
    expected = jax.vmap(lambda k: theirs(k, *params))(keys)
    got = mj.jit(mj.vmap(lambda k, *p: ours(k, *p), in_axes=(0, *([None] * len(params)))))(
        mr.split(mr.PRNGKey(3), 4), *(np.asarray(p) for p in params)
    )
    # JAX's batched gamma loops over the elements one by one, mj's runs them as one vector:
    # XLA's scalar and vector kernels may differ in the last bit
    _assert_same(got, expected, exact=False, name=name)


@pytest.fixture
def x64_off():
    jax.config.update("jax_enable_x64", False)
    yield
    jax.config.update("jax_enable_x64", True)


F32 = np.float32
X32_ROWS = [
    ("exponential", lambda k: jr.exponential(k, S), lambda k: mr.exponential(k, S, F32), ()),
    ("laplace", lambda k: jr.laplace(k, S), lambda k: mr.laplace(k, S, F32), ()),
    ("logistic", lambda k: jr.logistic(k, S), lambda k: mr.logistic(k, S, F32), ()),
    ("cauchy", lambda k: jr.cauchy(k, S), lambda k: mr.cauchy(k, S, F32), ()),
    (
        "lognormal",
        lambda k, s: jr.lognormal(k, s, S),
        lambda k, s: mr.lognormal(k, s, S, F32),
        (0.7,),
    ),
    ("pareto", lambda k, b: jr.pareto(k, b, S), lambda k, b: mr.pareto(k, b, S, F32), (2.0,)),
    ("rayleigh", lambda k, s: jr.rayleigh(k, s, S), lambda k, s: mr.rayleigh(k, s, S, F32), (2.0,)),
    (
        "weibull_min",
        lambda k, s, c: jr.weibull_min(k, s, c, S),
        lambda k, s, c: mr.weibull_min(k, s, c, S, F32),
        (2.0, 1.5),
    ),
    ("wald", lambda k, m: jr.wald(k, m, S), lambda k, m: mr.wald(k, m, S, F32), (1.5,)),
    (
        "triangular",
        lambda k, a, m, b: jr.triangular(k, a, m, b, S),
        lambda k, a, m, b: mr.triangular(k, a, m, b, S, F32),
        (-1.0, 0.5, 2.0),
    ),
    (
        "truncated_normal",
        lambda k, a, b: jr.truncated_normal(k, a, b, S),
        lambda k, a, b: mr.truncated_normal(k, a, b, S, F32),
        (-0.5, 2.0),
    ),
    ("gamma", lambda k, a: jr.gamma(k, a, S), lambda k, a: mr.gamma(k, a, S, F32), (0.6,)),
    ("loggamma", lambda k, a: jr.loggamma(k, a, S), lambda k, a: mr.loggamma(k, a, S, F32), (2.5,)),
    (
        "beta",
        lambda k, a, b: jr.beta(k, a, b, S),
        lambda k, a, b: mr.beta(k, a, b, S, F32),
        (0.5, 2.0),
    ),
    (
        "dirichlet",
        lambda k, a: jr.dirichlet(k, a, (6,)),
        lambda k, a: mr.dirichlet(k, a, (6,), F32),
        (np.array([0.5, 1.0, 3.0], F32),),
    ),
    (
        "chisquare",
        lambda k, d: jr.chisquare(k, d, S),
        lambda k, d: mr.chisquare(k, d, S, F32),
        (3.0,),
    ),
    ("f", lambda k, a, b: jr.f(k, a, b, S), lambda k, a, b: mr.f(k, a, b, S, F32), (3.0, 5.0)),
    ("t", lambda k, d: jr.t(k, d, S), lambda k, d: mr.t(k, d, S, F32), (4.0,)),
    (
        "poisson",
        lambda k, lam: jr.poisson(k, lam, (5, 4)),
        lambda k, lam: mr.poisson(k, lam, (5, 4), np.int32),
        (np.array([0.5, 3.0, 12.0, 80.0], F32),),
    ),
    (
        "multivariate_normal",
        lambda k, m, c: jr.multivariate_normal(k, m, c, (4,)),
        lambda k, m, c: mr.multivariate_normal(k, m, c, (4,)),
        (MEAN.astype(F32), COV.astype(F32)),
    ),
    ("orthogonal", lambda k: jr.orthogonal(k, 4), lambda k: mr.orthogonal(k, 4, (), F32), ()),
]


@pytest.mark.parametrize(
    ("name", "theirs", "ours", "params"), X32_ROWS, ids=[r[0] for r in X32_ROWS]
)
@pytest.mark.usefixtures("x64_off")
def test_float32_samples_match_jax_without_x64(name, theirs, ours, params):
    for seed in (0, 1, 42):  # a seed of 2**32 or more is truncated without x64
        expected = theirs(jr.PRNGKey(seed), *params)
        args = (np.asarray(p, F32) if isinstance(p, float) else p for p in params)
        got = mj.jit(ours)(mr.PRNGKey(seed), *args)
        _assert_same(got, expected, exact=True, name=name)


@pytest.mark.usefixtures("x64_off")
def test_maxwell_float32_without_x64_within_an_ulp():
    # XLA reduces the float32 sum of squares in a different order in the two programs
    expected = np.asarray(jr.maxwell(jr.PRNGKey(0), S))
    got = np.asarray(mj.jit(lambda k: mr.maxwell(k, S, F32))(mr.PRNGKey(0)))
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=2.5e-7)


def test_key_utilities_agree():
    key = mr.PRNGKey(5)
    assert mr.key_impl(key) == jr.key_impl(jr.PRNGKey(5))
    data = np.asarray(jr.key_data(jr.wrap_key_data(np.asarray(key))))
    np.testing.assert_array_equal(mr.key_data(mr.wrap_key_data(key)), data)
    np.testing.assert_array_equal(mr.uniform(mr.clone(key)), jr.uniform(jr.clone(jr.PRNGKey(5))))


GRAD_ROWS = [
    ("gamma", lambda r, k, a: r.gamma(k, a, (6,)), 0.7),
    ("gamma_large_a", lambda r, k, a: r.gamma(k, a, (6,)), 7.0),
    ("loggamma", lambda r, k, a: r.loggamma(k, a, (6,)), 0.3),
    ("beta", lambda r, k, a: r.beta(k, a, 2.0, (6,)), 1.3),
    ("dirichlet", lambda r, k, a: r.dirichlet(k, a * np.array([1.0, 2.0, 3.0]), (2,)), 0.8),
    ("chisquare", lambda r, k, a: r.chisquare(k, a, (6,)), 3.0),
    ("f", lambda r, k, a: r.f(k, a, 5.0, (6,)), 3.0),
    ("t", lambda r, k, a: r.t(k, a, (6,)), 4.0),
    ("generalized_normal", lambda r, k, a: r.generalized_normal(k, a, (6,)), 1.5),
    ("pareto", lambda r, k, a: r.pareto(k, a, (6,)), 2.0),
    ("truncated_normal", lambda r, k, a: r.truncated_normal(k, a, 2.0, (6,)), -0.5),
]


@pytest.mark.parametrize(("name", "sample", "a0"), GRAD_ROWS, ids=[r[0] for r in GRAD_ROWS])
def test_gradients_in_the_parameters_match_jax(name, sample, a0):
    weights = np.linspace(0.5, 1.5, 6)

    def loss(r, key):
        return lambda a: (sample(r, key, a).reshape(-1) * weights).sum()

    expected = jax.grad(loss(jr, jr.PRNGKey(0)))(a0)
    np.testing.assert_allclose(mj.grad(loss(mr, mr.PRNGKey(0)))(a0), expected, rtol=1e-12)
    np.testing.assert_allclose(mj.jit(mj.grad(loss(mr, mr.PRNGKey(0))))(a0), expected, rtol=1e-13)
