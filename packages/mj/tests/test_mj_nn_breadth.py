"""Issue 9 breadth for ``mj.nn``: the remaining ``jax.nn`` activations against closed forms
(written out with NumPy here), their gradients against central finite differences (and
JAX's chosen derivatives at the kinks), ``standardize``, and ``mj.nn.initializers``' shapes,
dtypes and sample statistics. Eager, ``make_jaxpr``/``eval_jaxpr`` and ``jit`` must agree."""

import math

import numpy as np
import pytest

import mj
import mj.nn as nn
import mj.numpy as mnp
import mj.random as mr
from mj.nn import initializers as init

RNG = np.random.default_rng(77)
X = RNG.uniform(-8, 8, size=(5, 6))
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _softplus(x):
    return np.logaddexp(x, 0.0)


CLOSED_FORMS = {
    "identity": lambda x: x,
    "celu": lambda x: np.maximum(x, 0) + np.expm1(np.minimum(x, 0)),
    "selu": lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)),
    "hard_tanh": lambda x: np.clip(x, -1, 1),
    "soft_sign": lambda x: x / (np.abs(x) + 1),
    "relu6": lambda x: np.clip(x, 0, 6),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "hard_swish": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "sparse_plus": lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    "sparse_sigmoid": lambda x: np.clip(x + 1, 0, 2) / 2,
    "squareplus": lambda x: (x + np.sqrt(x * x + 4)) / 2,
    "mish": lambda x: x * np.tanh(_softplus(x)),
    "log1mexp": lambda x: np.log(1 - np.exp(-np.abs(x) - 1e-3)),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "leaky_relu": lambda x: np.where(x >= 0, x, 0.01 * x),
    "softplus": _softplus,
    "silu": lambda x: x / (1 + np.exp(-x)),
}
# log1mexp needs x > 0: test it on |x| + 1e-3
ARGS = {"log1mexp": lambda x: np.abs(x) + 1e-3}


def _arg(name, x=X):
    return ARGS.get(name, lambda v: v)(x)


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_activation_matches_closed_form(name):
    f = getattr(nn, name)
    x = _arg(name)
    got = f(x)
    np.testing.assert_allclose(got, CLOSED_FORMS[name](X), rtol=1e-12, atol=1e-14)
    assert got.dtype == np.float64
    assert f(x.astype(np.float32)).dtype == np.float32


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_activation_eager_jaxpr_jit_and_vmap_agree(name):
    f = getattr(nn, name)
    x = _arg(name)
    eager = np.asarray(f(x))
    closed = mj.make_jaxpr(f)(x)
    np.testing.assert_allclose(mj.eval_jaxpr(closed.jaxpr, [*closed.consts, x])[0], eager)
    np.testing.assert_allclose(mj.jit(f)(x), eager, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(mj.vmap(f)(x), eager, rtol=1e-13, atol=1e-14)


def _central_difference(f, x, eps=1e-6):
    return np.array([(float(f(v + eps)) - float(f(v - eps))) / (2 * eps) for v in x.ravel()])


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_activation_grad_matches_central_differences(name):
    f = getattr(nn, name)
    # away from the kinks at -3, -1, 0, 1, 3, 6
    x = _arg(name, np.array([-7.3, -2.2, -0.6, 0.4, 2.1, 4.7, 7.7]))
    got = mj.vmap(mj.grad(f))(x)
    np.testing.assert_allclose(got, _central_difference(f, x), rtol=1e-6, atol=1e-8)


def test_derivatives_at_kinks_follow_jax():
    # relu6 (and hard_sigmoid through it) has derivative 0 at both kinks, as JAX defines it
    assert float(mj.grad(nn.relu6)(0.0)) == 0.0
    assert float(mj.grad(nn.relu6)(6.0)) == 0.0
    assert float(mj.grad(nn.hard_sigmoid)(-3.0)) == 0.0
    # hard_tanh: where-based, so derivative 1 at the boundary itself
    assert float(mj.grad(nn.hard_tanh)(1.0)) == 1.0
    # log1mexp's derivative is 1 / expm1(x)
    x = 0.37
    assert math.isclose(float(mj.grad(nn.log1mexp)(x)), 1 / math.expm1(x), rel_tol=1e-14)


def test_glu_halves_the_axis():
    x = RNG.normal(size=(4, 6))
    want = x[:, :3] / (1 + np.exp(-x[:, 3:]))
    np.testing.assert_allclose(nn.glu(x), want, rtol=1e-13)
    want0 = x[:2] / (1 + np.exp(-x[2:]))
    np.testing.assert_allclose(nn.glu(x, axis=0), want0, rtol=1e-13)
    np.testing.assert_allclose(mj.jit(nn.glu)(x), want, rtol=1e-13)
    with pytest.raises(ValueError, match="glu: the size of axis -1 must be even"):
        nn.glu(np.ones((2, 3)))


def test_celu_alpha_and_squareplus_b():
    np.testing.assert_allclose(
        nn.celu(X, 2.5), np.maximum(X, 0) + 2.5 * np.expm1(np.minimum(X, 0) / 2.5)
    )
    np.testing.assert_allclose(nn.squareplus(X, 0.5), (X + np.sqrt(X * X + 0.5)) / 2)


def test_standardize():
    x = RNG.normal(2.0, 3.0, size=(4, 10))
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    want = (x - mu) / np.sqrt(var + 1e-5)
    np.testing.assert_allclose(nn.standardize(x), want, rtol=1e-10)
    np.testing.assert_allclose(nn.standardize(x, algorithm="stable"), want, rtol=1e-12)
    np.testing.assert_allclose(mj.jit(nn.standardize)(x), want, rtol=1e-10)
    want0 = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3)
    np.testing.assert_allclose(nn.standardize(x, axis=0, epsilon=1e-3), want0, rtol=1e-10)
    np.testing.assert_allclose(
        nn.standardize(x, mean=1.0, variance=4.0), (x - 1.0) / np.sqrt(4.0 + 1e-5), rtol=1e-14
    )
    mask = RNG.uniform(size=x.shape) < 0.7
    mask[:, 0] = True
    m = np.where(mask, x, 0).sum(-1, keepdims=True) / mask.sum(-1, keepdims=True)
    v = np.where(mask, (x - m) ** 2, 0).sum(-1, keepdims=True) / mask.sum(-1, keepdims=True)
    np.testing.assert_allclose(
        nn.standardize(x, where=mask, algorithm="stable"), (x - m) / np.sqrt(v + 1e-5), rtol=1e-12
    )
    f = lambda v: mnp.sum(nn.standardize(v) * np.arange(10.0))  # noqa: E731
    xs = x[0]
    fd = np.zeros_like(xs)
    for i in range(xs.size):
        e = np.zeros_like(xs)
        e[i] = 1e-6
        fd[i] = (float(f(xs + e)) - float(f(xs - e))) / 2e-6
    np.testing.assert_allclose(mj.grad(f)(xs), fd, rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="standardize: unknown algorithm"):
        nn.standardize(x, algorithm="slow")


def test_existing_import_paths_still_work():
    import mj.nn.initializers as init_module
    from mj.nn import relu, softmax

    assert nn.initializers is init_module
    np.testing.assert_allclose(relu(np.array([-1.0, 2.0])), [0.0, 2.0])
    np.testing.assert_allclose(softmax(np.zeros(4)), np.full(4, 0.25))


KEY = mr.PRNGKey(0)


@pytest.mark.parametrize("dtype", [None, np.float32, np.float64])
def test_constant_initializers(dtype):
    want_dtype = np.float64 if dtype is None else dtype
    for f, value in ((init.zeros, 0.0), (init.ones, 1.0), (init.constant(-7.0), -7.0)):
        out = f(KEY, (2, 3), dtype)
        assert out.shape == (2, 3)
        assert out.dtype == want_dtype
        np.testing.assert_array_equal(out, np.full((2, 3), value))


def _moments(samples):
    return float(np.mean(samples)), float(np.var(samples))


def test_distribution_initializer_statistics():
    n = 200_000
    u = np.asarray(init.uniform(3.0)(KEY, (n,)))
    assert u.dtype == np.float64
    assert u.min() >= 0.0
    assert u.max() < 3.0
    mean, var = _moments(u)
    assert abs(mean - 1.5) < 0.02
    assert abs(var - 0.75) < 0.02
    g = np.asarray(init.normal(2.0, np.float32)(KEY, (n,)))
    assert g.dtype == np.float32
    mean, var = _moments(g)
    assert abs(mean) < 0.02
    assert abs(var - 4.0) < 0.05
    t = np.asarray(init.truncated_normal(1.5)(KEY, (n,)))
    assert np.abs(t).max() < 3.0
    # variance of a standard normal truncated to (-2, 2): 1 - 4 phi(2) / (Phi(2) - Phi(-2))
    phi2 = math.exp(-2.0) / math.sqrt(2 * math.pi)
    mass = math.erf(2 / math.sqrt(2))
    mean, var = _moments(t)
    assert abs(mean) < 0.02
    assert abs(var - 2.25 * (1 - 4 * phi2 / mass)) < 0.02


FANS = {"fan_in": 64.0, "fan_out": 32.0, "fan_avg": 48.0, "fan_geo_avg": math.sqrt(64 * 32)}


@pytest.mark.parametrize("mode", list(FANS))
@pytest.mark.parametrize("distribution", ["truncated_normal", "normal", "uniform"])
def test_variance_scaling_has_the_target_variance(mode, distribution):
    # 100 dense (64, 32) kernels on a batch axis: fan_in 64, fan_out 32
    f = init.variance_scaling(2.0, mode, distribution, in_axis=1, out_axis=2, batch_axis=0)
    w = np.asarray(f(KEY, (100, 64, 32)))
    assert w.shape == (100, 64, 32)
    assert w.dtype == np.float64
    mean, var = _moments(w)
    assert abs(mean) < 0.05 * math.sqrt(2.0 / FANS[mode])
    assert abs(var / (2.0 / FANS[mode]) - 1) < 0.03


def test_receptive_field_counts_in_the_fans():
    # a (3, 3, 16, 8) convolution kernel: fan_in = 3 * 3 * 16 = 144
    w = np.asarray(init.he_normal()(KEY, (3, 3, 16, 8000)))
    assert abs(float(np.var(w)) * 144 / 2 - 1) < 0.03


def test_named_variance_scalings():
    shape = (300, 200)
    cases = {
        init.glorot_uniform: 1.0 / 250,
        init.glorot_normal: 1.0 / 250,
        init.xavier_uniform: 1.0 / 250,
        init.lecun_uniform: 1.0 / 300,
        init.lecun_normal: 1.0 / 300,
        init.he_uniform: 2.0 / 300,
        init.he_normal: 2.0 / 300,
        init.kaiming_normal: 2.0 / 300,
    }
    for builder, variance in cases.items():
        w = np.asarray(builder()(KEY, shape, np.float32))
        assert w.dtype == np.float32
        assert abs(float(np.var(w)) / variance - 1) < 0.03, builder.__name__
    assert init.xavier_normal is init.glorot_normal
    assert init.kaiming_uniform is init.he_uniform


def test_complex_variance_scaling():
    w = np.asarray(init.glorot_uniform()(KEY, (300, 200), np.complex64))
    assert w.dtype == np.complex64
    assert abs(float(np.mean(np.abs(w) ** 2)) * 250 - 1) < 0.03
    assert np.abs(w).max() <= math.sqrt(2 / 250) * 1.0001
    w = np.asarray(init.glorot_normal()(KEY, (300, 200), np.complex128))
    assert abs(float(np.mean(np.abs(w) ** 2)) * 250 - 1) < 0.03


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 3, 4)])
def test_orthogonal(shape):
    q = np.asarray(init.orthogonal(2.0)(KEY, shape))
    assert q.shape == shape
    mat = q.reshape(-1, shape[-1]) / 2.0
    small = min(mat.shape)
    gram = mat.T @ mat if mat.shape[0] >= mat.shape[1] else mat @ mat.T
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-12)
    q0 = np.asarray(init.orthogonal(column_axis=0)(KEY, (4, 6)))
    np.testing.assert_allclose(q0 @ q0.T, np.eye(4), atol=1e-12)
    with pytest.raises(ValueError, match="orthogonal: needs a shape of at least 2 dimensions"):
        init.orthogonal()(KEY, (3,))


def test_initializers_jit_agrees_with_eager_and_keys_matter():
    for f in (init.glorot_normal(), init.he_uniform(), init.normal(), init.orthogonal()):
        eager = np.asarray(f(KEY, (6, 4)))
        jitted = np.asarray(mj.jit(lambda k, f=f: f(k, (6, 4)))(KEY))
        np.testing.assert_allclose(jitted, eager, rtol=1e-12, atol=1e-15)
        assert not np.allclose(np.asarray(f(mr.PRNGKey(1), (6, 4))), eager)
    keys = mr.split(KEY, 3)
    batched = mj.vmap(lambda k: init.lecun_uniform()(k, (5, 2)))(keys)
    for i in range(3):
        np.testing.assert_array_equal(batched[i], init.lecun_uniform()(keys[i], (5, 2)))


def test_initializer_errors():
    with pytest.raises(ValueError, match="variance_scaling: invalid mode"):
        init.variance_scaling(1.0, "fan_sum", "normal")
    with pytest.raises(ValueError, match="variance_scaling: invalid distribution"):
        init.variance_scaling(1.0, "fan_in", "cauchy")
    with pytest.raises(ValueError, match="Can't compute input and output sizes of a 1-dimensional"):
        init.glorot_uniform()(KEY, (5,))
    with pytest.raises(TypeError, match="shape must be a sequence of integers"):
        init.zeros(KEY, 5)
