"""Eager (impl) rules of ``real``/``imag``/``conj``/``complex`` and ``fft`` against NumPy:
values, dtypes (complex64/float32 stay single precision), shapes, and the typing errors."""

from __future__ import annotations

import numpy as np
import pytest

from mj_core import bind1, lax
from mj_core.lax import FftType

rng = np.random.default_rng(0)


def _c(*shape: int, dtype: type = np.complex128) -> np.ndarray:
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_real_imag_conj_match_numpy(dtype):
    z = _c(3, 4, dtype=dtype)
    part = np.float32 if dtype == np.complex64 else np.float64
    for got, want in [(lax.real(z), z.real), (lax.imag(z), z.imag), (lax.conj(z), np.conj(z))]:
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert np.asarray(lax.real(z)).dtype == part


def test_conj_of_a_real_operand_is_complex():
    x = np.arange(3, dtype=np.float32)
    out = lax.conj(x)
    assert out.dtype == np.complex64
    np.testing.assert_array_equal(out, x.astype(np.complex64))


def test_complex_builds_parts_exactly_and_broadcasts():
    x, y = rng.normal(size=(2, 3)), np.array([np.inf, -0.0, 1.5])
    out = lax.complex(x, y)
    assert out.dtype == np.complex128
    assert out.shape == (2, 3)
    np.testing.assert_array_equal(out.real, x)
    np.testing.assert_array_equal(out.imag, np.broadcast_to(y, (2, 3)))  # no nan from inf*1j
    assert lax.complex(np.float32(1), 2.0).dtype == np.complex64  # a weak scalar adopts f32


@pytest.mark.parametrize(
    ("prim", "args", "match"),
    [
        (lax.real_p, (np.ones(3),), "real: requires a complex operand"),
        (lax.imag_p, (np.ones(3, np.int32),), "imag: requires a complex operand"),
        (lax.complex_p, (np.ones(3), np.ones(3, np.float32)), "complex: requires two float"),
        (lax.complex_p, (np.ones(3, np.int64), np.ones(3, np.int64)), "complex: requires"),
    ],
)
def test_complex_primitives_reject_wrong_dtypes(prim, args, match):
    with pytest.raises(TypeError, match=match):
        bind1(prim, *args)


def test_conj_rejects_integers():
    with pytest.raises(TypeError, match="conj: requires a float32/float64/complex operand"):
        bind1(lax.conj_p, np.ones(2, np.int32), input_dtype=np.dtype(np.int32))


# --- fft ----------------------------------------------------------------------------------------
FFT_CASES = [
    ("FFT", (3, 8), (8,), lambda x: np.fft.fft(x)),
    ("FFT", (2, 3, 4), (3, 4), lambda x: np.fft.fft2(x)),
    ("IFFT", (2, 3, 4), (2, 3, 4), lambda x: np.fft.ifftn(x)),
    ("RFFT", (3, 8), (8,), lambda x: np.fft.rfft(x)),
    ("RFFT", (2, 5, 7), (5, 7), lambda x: np.fft.rfft2(x)),
    ("IRFFT", (3, 5), (8,), lambda x: np.fft.irfft(x, 8)),
    ("IRFFT", (3, 4), (7,), lambda x: np.fft.irfft(x, 7)),
    ("IRFFT", (2, 4, 3), (4, 5), lambda x: np.fft.irfft2(x, (4, 5))),
]


@pytest.mark.parametrize("precision", ["single", "double"])
@pytest.mark.parametrize(("typ", "shape", "lengths", "ref"), FFT_CASES)
def test_fft_matches_numpy_and_keeps_precision(typ, shape, lengths, ref, precision):
    single = precision == "single"
    if typ == "RFFT":
        x = rng.normal(size=shape).astype(np.float32 if single else np.float64)
    else:
        x = _c(*shape, dtype=np.complex64 if single else np.complex128)
    out = bind1(lax.fft_p, x, fft_type=FftType[typ], fft_lengths=lengths)
    want = ref(x)
    expected_dtype = {
        ("c", True): np.complex64, ("c", False): np.complex128,
        ("f", True): np.float32, ("f", False): np.float64,
    }[(want.dtype.kind, single)]  # fmt: skip
    assert out.dtype == expected_dtype
    assert out.shape == want.shape
    np.testing.assert_allclose(
        out, want, rtol=1e-4 if single else 1e-12, atol=1e-4 if single else 1e-12
    )


def test_lax_fft_converts_its_operand_like_jax():
    x = np.arange(4, dtype=np.float32)
    assert lax.fft(x, "fft", (4,)).dtype == np.complex64
    assert lax.fft(np.arange(4), FftType.RFFT, (4,)).dtype == np.complex128
    np.testing.assert_allclose(lax.fft(x, "FFT", (4,)), np.fft.fft(x), atol=1e-5)
    assert lax.fft(x, "FFT", ()).dtype == np.complex64  # no lengths: only the conversion
    with pytest.raises(ValueError, match="only real valued inputs"):
        lax.fft(x.astype(np.complex64), "RFFT", (4,))
    with pytest.raises(ValueError, match="unknown fft_type 'dct'"):
        lax.fft(x, "dct", (4,))


@pytest.mark.parametrize(
    ("x", "typ", "lengths", "error", "match"),
    [
        (np.ones((2, 4)), "FFT", (4,), TypeError, "FFT requires a complex64 or complex128"),
        (np.ones((2, 4), complex), "RFFT", (4,), TypeError, "RFFT requires a float32 or float64"),
        (np.ones((2, 4), complex), "FFT", (5,), TypeError, "trailing dimensions must equal"),
        (np.ones((2, 4), complex), "IRFFT", (4,), TypeError, "IRFFT trailing dimensions"),
        (np.ones(4, complex), "FFT", (1, 4), TypeError, "between 1 and min"),
    ],
)
def test_fft_typing_errors_name_the_primitive(x, typ, lengths, error, match):
    with pytest.raises(error, match=f"fft: .*{match}"):
        bind1(lax.fft_p, x, fft_type=FftType[typ], fft_lengths=lengths)


def test_fft_of_an_empty_batch():
    out = bind1(lax.fft_p, np.ones((0, 4)), fft_type=FftType.RFFT, fft_lengths=(4,))
    assert out.shape == (0, 3)
    assert out.dtype == np.complex128
