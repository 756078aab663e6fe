"""``mj.numpy.fft`` against NumPy: every function, with ``n``/``s``, ``axis``/``axes`` and each
``norm``; the same answer eagerly, under ``jit`` and through ``make_jaxpr``; vmap and grad
through the transforms; JAX's dtypes (float32/complex64 stay single precision) and errors."""

from __future__ import annotations

import numpy as np
import pytest

import mj
import mj.numpy as mnp

rng = np.random.default_rng(11)
X = rng.standard_normal((3, 4, 6))
Z = X + 1j * rng.standard_normal((3, 4, 6))

CASES = [
    ("fft", Z, {}),
    ("fft", X, {"n": 8, "axis": 1}),
    ("fft", Z, {"n": 4, "axis": 0, "norm": "ortho"}),
    ("ifft", Z, {"norm": "forward"}),
    ("ifft", Z, {"n": 5}),
    ("rfft", X, {}),
    ("rfft", X, {"n": 7, "axis": 0, "norm": "ortho"}),
    ("irfft", Z, {}),
    ("irfft", Z, {"n": 9, "axis": 1, "norm": "forward"}),
    ("hfft", Z, {}),
    ("hfft", X, {"n": 7, "axis": 0}),
    ("ihfft", X, {}),
    ("ihfft", X, {"n": 5, "axis": 1}),
    ("fft2", Z, {}),
    ("fft2", X, {"s": (2, 5), "axes": (0, 2), "norm": "ortho"}),
    ("ifft2", Z, {"axes": (2, 0)}),
    ("rfft2", X, {"s": (4, 4)}),
    ("irfft2", Z, {"s": (3, 7), "norm": "forward"}),
    ("fftn", Z, {}),
    ("fftn", X, {"s": (2, 3)}),
    ("ifftn", Z, {"axes": (0,), "norm": "ortho"}),
    ("rfftn", X, {"axes": (1, 0)}),
    ("irfftn", Z, {}),
    ("irfftn", Z, {"s": (3, 4, 9), "axes": (0, 1, 2)}),
    ("fftn", rng.standard_normal((2, 3, 2, 2, 3)), {}),
    ("ifftn", rng.standard_normal((2, 2, 3, 2, 2, 3)) + 0j, {}),
    ("rfftn", rng.standard_normal((2, 3, 2, 4)), {}),
    ("irfftn", rng.standard_normal((2, 3, 2, 3)) + 1j, {"s": (2, 3, 2, 4)}),
    ("fftshift", X, {}),
    ("fftshift", X, {"axes": 2}),
    ("ifftshift", X, {"axes": (0, 1)}),
]


def _id(case):
    name, x, kw = case
    return f"{name}-{x.ndim}d-" + "-".join(f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_matches_numpy_eager_jit_and_jaxpr(case):
    name, x, kw = case
    np_kw = dict(kw)
    if "s" in kw and "axes" not in kw:  # NumPy 2 deprecates s without axes; same meaning
        np_kw["axes"] = tuple(range(-len(kw["s"]), 0))
    want = getattr(np.fft, name)(x, **np_kw)

    def f(a):
        return getattr(mnp.fft, name)(a, **kw)

    for got in (f(x), mj.jit(f)(x), mj.make_jaxpr(f)(x)(x)[0]):
        got = np.asarray(got)
        assert got.dtype == want.dtype
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_single_precision_is_kept_as_jax_does():
    x32 = X.astype(np.float32)
    assert mnp.fft.fft(x32).dtype == np.complex64
    assert mnp.fft.rfft2(x32).dtype == np.complex64
    assert mnp.fft.irfft(mnp.fft.rfft(x32)).dtype == np.float32
    assert mnp.fft.ifftn(Z.astype(np.complex64)).dtype == np.complex64
    np.testing.assert_allclose(mnp.fft.fft(x32), np.fft.fft(x32), rtol=1e-4, atol=1e-4)
    assert mnp.fft.fft(np.arange(4)).dtype == np.complex128  # integers: float64, as NumPy


@pytest.mark.parametrize("n", [1, 6, 7])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_frequencies(n, d):
    for name in ("fftfreq", "rfftfreq"):
        got = getattr(mnp.fft, name)(n, d)
        want = getattr(np.fft, name)(n, d)
        assert np.asarray(got).dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-15)
    assert mnp.fft.fftfreq(n, dtype=np.float32).dtype == np.float32


def test_round_trips():
    np.testing.assert_allclose(mnp.fft.ifftn(mnp.fft.fftn(Z)), Z, atol=1e-12)
    np.testing.assert_allclose(mnp.fft.irfft(mnp.fft.rfft(X), n=6), X, atol=1e-12)
    np.testing.assert_allclose(mnp.fft.ifftshift(mnp.fft.fftshift(X)), X)


def test_vmap_over_a_batch_axis():
    got = mj.vmap(lambda a: mnp.fft.rfft2(a, norm="ortho"), in_axes=1)(X)
    want = np.stack([np.fft.rfft2(X[:, i], norm="ortho") for i in range(X.shape[1])])
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_grad_of_a_spectral_loss_matches_finite_differences():
    x = rng.standard_normal(8)
    weights = np.linspace(0.0, 1.0, 5)

    def loss(a):
        return mnp.sum(weights * mnp.abs(mnp.fft.rfft(a, norm="ortho")) ** 2)

    eps = 1e-6
    want = [(loss(x + eps * e) - loss(x - eps * e)) / (2 * eps) for e in np.eye(8)]
    np.testing.assert_allclose(mj.grad(loss)(x), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(mj.jit(mj.grad(loss))(x), want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: mnp.fft.fft(Z, axis=(0, 1)), "does not support multiple axes"),
        (lambda: mnp.fft.fft2(Z, axes=(0,)), "only supports 2 axes"),
        (lambda: mnp.fft.fftn(Z, s=(2, 3), axes=(0,)), "Shape and axes have different lengths"),
        (lambda: mnp.fft.fftn(Z, s=(-1,)), "Shape should be non-negative"),
        (lambda: mnp.fft.fftn(Z, axes=(1, -2)), "does not support repeated axes"),
        (lambda: mnp.fft.fft(Z, norm="unitary"), "Invalid norm value unitary"),
        (lambda: mnp.fft.rfft(Z), "only real valued inputs"),
        (lambda: mnp.fft.fftfreq([4]), "only takes an int"),
    ],
)
def test_bad_arguments_raise_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
