"""jit of the complex-number and FFT primitives: same values, dtypes and shapes as eager
evaluation, lowered to ``stablehlo.real/imag/complex/fft``."""

from __future__ import annotations

import numpy as np
import pytest

from mj_core import lax
from mj_core.prims.fft import FftType
from mj_xla import jit

rng = np.random.default_rng(5)


def _c(*shape: int, dtype=np.complex128) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


CASES = {
    "real": (lax.real, lambda: (_c(3, 4),)),
    "imag64": (lax.imag, lambda: (_c(3, 4, dtype=np.complex64),)),
    "conj": (lax.conj, lambda: (_c(3, 4),)),
    "conj_real": (lax.conj, lambda: (rng.standard_normal((3, 4)).astype(np.float32),)),
    "conj_scalar": (lax.conj, lambda: (np.float64(2.5),)),
    "complex": (lax.complex, lambda: (rng.standard_normal((2, 3)), rng.standard_normal(3))),
    "complex_weak": (lambda x: lax.complex(x, 2.0), lambda: (np.ones(3, np.float32),)),
    "fft": (lambda x: lax.fft(x, FftType.FFT, (4,)), lambda: (_c(3, 4),)),
    "fft64": (lambda x: lax.fft(x, FftType.FFT, (3, 4)), lambda: (_c(3, 4, dtype=np.complex64),)),
    "ifft3": (lambda x: lax.fft(x, FftType.IFFT, (2, 3, 4)), lambda: (_c(2, 2, 3, 4),)),
    "rfft": (lambda x: lax.fft(x, FftType.RFFT, (7,)), lambda: (rng.standard_normal((2, 7)),)),
    "rfft32": (
        lambda x: lax.fft(x, FftType.RFFT, (3, 6)),
        lambda: (rng.standard_normal((3, 6)).astype(np.float32),),
    ),
    "irfft": (lambda x: lax.fft(x, FftType.IRFFT, (6,)), lambda: (_c(2, 4),)),
    "irfft_odd": (lambda x: lax.fft(x, FftType.IRFFT, (3, 5)), lambda: (_c(3, 3),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_jit_matches_eager(name):
    f, make = CASES[name]
    args = make()
    want = np.asarray(f(*args))
    got = np.asarray(jit(f)(*args))
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    single = want.dtype in (np.float32, np.complex64)
    np.testing.assert_allclose(
        got, want, rtol=1e-5 if single else 1e-12, atol=1e-5 if single else 1e-12
    )


def test_lowering_emits_stablehlo_ops():
    def f(z, x):
        return lax.real(lax.fft(z, FftType.FFT, (4,))), lax.complex(x, lax.imag(z))

    text = jit(f).lower(_c(3, 4), rng.standard_normal((3, 4))).as_text()
    for op in (
        "stablehlo.fft",
        "type =  FFT",
        "stablehlo.real",
        "stablehlo.imag",
        "stablehlo.complex",
    ):
        assert op.replace("  ", " ") in text.replace("  ", " ")
