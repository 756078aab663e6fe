"""vmap of the complex-number and FFT primitives equals a Python loop over the examples, for
batch dims at the front, in the middle and at the end (``fft`` moves it to the front)."""

from __future__ import annotations

import numpy as np
import pytest

from mj_batch import jacfwd, vmap
from mj_core import lax
from mj_core.prims.fft import FftType

rng = np.random.default_rng(3)


def _c(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


UNARY = {
    "real": (lax.real, lambda: _c(4, 5)),
    "imag": (lax.imag, lambda: _c(4, 5)),
    "conj": (lax.conj, lambda: _c(4, 5)),
    "conj_real": (lax.conj, lambda: rng.standard_normal((4, 5))),
    "fft": (lambda x: lax.fft(x, FftType.FFT, (5,)), lambda: _c(4, 5)),
    "ifft2": (lambda x: lax.fft(x, FftType.IFFT, (4, 5)), lambda: _c(4, 5)),
    "rfft": (lambda x: lax.fft(x, FftType.RFFT, (5,)), lambda: rng.standard_normal((4, 5))),
    "irfft": (lambda x: lax.fft(x, FftType.IRFFT, (8,)), lambda: _c(4, 5)),
}


@pytest.mark.parametrize("axis", [0, 1, 2])  # the batch dim of a rank-3 batch
@pytest.mark.parametrize("name", sorted(UNARY))
def test_vmap_matches_a_loop(name, axis):
    f, make = UNARY[name]
    x = np.stack([make() for _ in range(3)], axis=axis)
    got = vmap(f, in_axes=axis)(x)
    want = np.stack([np.asarray(f(np.take(x, i, axis))) for i in range(x.shape[axis])])
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 1), (1, 0)])
def test_vmap_of_complex_matches_a_loop(in_axes):
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((4, 3))
    xs = x if in_axes[0] != 1 else x.T
    ys = y.T if in_axes[1] == 0 else y
    if in_axes[1] is None:
        ys = rng.standard_normal(4)
    got = vmap(lax.complex, in_axes=in_axes)(xs, ys)
    n = 3
    want = np.stack(
        [
            np.asarray(
                lax.complex(
                    xs if in_axes[0] is None else np.take(xs, i, in_axes[0]),
                    ys if in_axes[1] is None else np.take(ys, i, in_axes[1]),
                )
            )
            for i in range(n)
        ]
    )
    np.testing.assert_array_equal(got, want)


def test_jacfwd_of_rfft_is_the_dft_matrix():
    n = 6
    jac = jacfwd(lambda x: lax.fft(x, FftType.RFFT, (n,)))(np.zeros(n))
    k, j = np.meshgrid(np.arange(n // 2 + 1), np.arange(n), indexing="ij")
    np.testing.assert_allclose(jac, np.exp(-2j * np.pi * k * j / n), atol=1e-12)
