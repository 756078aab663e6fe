"""mj.nn and mj.scipy.special against NumPy closed forms, with finite-difference gradients."""

import math

import numpy as np
import pytest

import mj
import mj.numpy as mnp

RNG = np.random.default_rng(7)
X = RNG.normal(size=(4, 5)) * 3


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


ERF = np.vectorize(math.erf)
ERFC = np.vectorize(math.erfc)

CASES = [
    ("relu", lambda x: np.maximum(x, 0)),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    ("softplus", lambda x: np.log1p(np.exp(x))),
    ("log_sigmoid", lambda x: -np.log1p(np.exp(-x))),
    ("silu", lambda x: x / (1 + np.exp(-x))),
    ("leaky_relu", lambda x: np.where(x >= 0, x, 0.01 * x)),
    ("elu", lambda x: np.where(x > 0, x, np.expm1(x))),
    (
        "gelu",
        lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
    ),
    ("softmax", np_softmax),
    ("log_softmax", lambda x: np.log(np_softmax(x))),
]


@pytest.mark.parametrize(("name", "reference"), CASES, ids=[c[0] for c in CASES])
def test_activation_values_and_grads(name, reference):
    fn = getattr(mj.nn, name)
    np.testing.assert_allclose(fn(X), reference(X), rtol=1e-12, atol=1e-12)
    w = RNG.normal(size=X.shape)
    x0 = X + 0.05  # away from the kinks of relu/leaky_relu/elu at 0
    g = mj.grad(lambda x: mnp.sum(fn(x) * w))(x0)
    eps = 1e-6
    e = np.zeros_like(x0)
    e[1, 2] = eps
    fd = (np.sum(reference(x0 + e) * w) - np.sum(reference(x0 - e) * w)) / (2 * eps)
    np.testing.assert_allclose(g[1, 2], fd, rtol=1e-6, atol=1e-8)


def test_gelu_exact_uses_erf():
    # 0.5 x erfc(-x / sqrt 2) (= 0.5 x (1 + erf(x / sqrt 2)) without its cancellation for x < 0)
    np.testing.assert_allclose(
        mj.nn.gelu(X, approximate=False), X * 0.5 * ERFC(-X / np.sqrt(2)), rtol=1e-12
    )
    tail = np.array([-10.0, -20.0, -30.0])
    np.testing.assert_allclose(
        mj.nn.gelu(tail, approximate=False), tail * 0.5 * ERFC(-tail / np.sqrt(2)), rtol=1e-12
    )


def test_relu_derivative_at_zero_is_zero():
    assert mj.grad(mj.nn.relu)(0.0) == 0.0


def test_softmax_is_stable_for_huge_inputs():
    x = np.array([1000.0, 1001.0, -np.inf])
    np.testing.assert_allclose(mj.nn.softmax(x), [1 / (1 + np.e), np.e / (1 + np.e), 0.0])
    np.testing.assert_allclose(mj.nn.logsumexp(x), 1001 + np.log1p(np.exp(-1)))
    assert np.all(np.isfinite(mj.grad(lambda x: mj.nn.logsumexp(x))(np.array([1000.0, 1.0]))))


@pytest.mark.parametrize(
    ("axis", "keepdims"), [(None, False), (0, False), (1, True), ((0, 1), False)]
)
def test_logsumexp_axes(axis, keepdims):
    np.testing.assert_allclose(
        mj.nn.logsumexp(X, axis=axis, keepdims=keepdims),
        np_logsumexp(X, axis=axis, keepdims=keepdims),
        rtol=1e-12,
    )
    assert mj.scipy.special.logsumexp is mj.nn.logsumexp


def test_logsumexp_with_weights_and_sign():
    b = np.array([1.0, -2.0, 0.5])
    a = np.array([0.1, 0.2, 0.3])
    total = np.sum(b * np.exp(a))
    out, sign = mj.nn.logsumexp(a, b=b, return_sign=True)
    np.testing.assert_allclose(out, np.log(abs(total)), rtol=1e-12)
    assert sign == np.sign(total)


def test_one_hot():
    labels = np.array([0, 2, 1, 5])
    out = mj.nn.one_hot(labels, 3)
    np.testing.assert_array_equal(out, [*np.eye(3)[[0, 2, 1]].tolist(), [0, 0, 0]])
    assert out.dtype == np.float64
    assert mj.nn.one_hot(labels, 3, dtype=np.int32, axis=0).shape == (3, 4)
    batched = mj.vmap(lambda y: mj.nn.one_hot(y, 4))(np.array([3, 0]))
    np.testing.assert_array_equal(batched, [[0, 0, 0, 1], [1, 0, 0, 0]])
    assert mj.nn.one_hot(labels, 3, axis=-2).shape == (3, 4)
    with pytest.raises(ValueError, match="one_hot: axis 2 is out of bounds") as info:
        mj.nn.one_hot(labels, 3, axis=2)
    assert "test_mj_nn.py" in str(info.value)


def test_scipy_special():
    p = np.linspace(0.05, 0.95, 7)
    np.testing.assert_allclose(mj.scipy.special.expit(mj.scipy.special.logit(p)), p, rtol=1e-12)
    np.testing.assert_allclose(
        mj.scipy.special.logit(p), np.log(p / (1 - p)), rtol=1e-12, atol=1e-15
    )
    np.testing.assert_allclose(mj.scipy.special.erf(X), ERF(X), rtol=1e-14)
    np.testing.assert_allclose(mj.scipy.special.erf(mj.scipy.special.erfinv(p)), p, rtol=1e-14)
    g = mj.grad(mj.scipy.special.erfinv)(0.3)
    y = float(mj.scipy.special.erfinv(0.3))
    np.testing.assert_allclose(g, np.sqrt(np.pi) / 2 * np.exp(y * y), rtol=1e-9)


def test_activations_under_jit_match_eager():
    for name, _ in CASES:
        fn = getattr(mj.nn, name)
        np.testing.assert_allclose(np.asarray(mj.jit(fn)(X)), fn(X), rtol=1e-12, atol=1e-14)
