"""Window functions (``bartlett``, ``blackman``, ``hamming``, ``hanning``, ``kaiser``): the
tapers of spectral analysis, as ``jax.numpy`` computes them (float64, from ``iota``), so a
window of a static length ``M`` can be built under ``jit`` and ``kaiser``'s ``beta`` may be
traced and differentiated."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike

__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]


_F64 = np.dtype(np.float64)
# Terms of the power series of I0 in y = (x/2)**2: 1 / (k!)**2. Sixty terms reach float64
# precision for |x| up to about 40 (beyond any practical Kaiser beta).
_I0_TERMS = 60
_I0_COEFFS = tuple(1.0 / math.factorial(k) ** 2 for k in range(_I0_TERMS))


def _length(name: str, m: Any) -> int:
    try:
        return int(m)
    except TypeError:
        raise TypeError(
            f"{name}: M must be a concrete integer (the window length), got {m!r}"
            f"{user_line_suffix()}"
        ) from None


def _positions(name: str, m: ArrayLike) -> tuple[int, Array | None]:
    """``(M, iota(M))``; ``None`` when ``M <= 1`` (every window is then ``ones(M)``)."""
    n = _length(name, m)
    if n <= 1:
        return n, None
    return n, lax.iota(_F64, n)


def bartlett(M: int) -> Array:  # noqa: N803 (NumPy's name)
    """The triangular (Bartlett) window of length ``M``."""
    m, n = _positions("bartlett", M)
    if n is None:
        return lax.full((max(m, 0),), 1.0, _F64)
    return lax.sub(1.0, lax.div(lax.abs(lax.add(lax.mul(2.0, n), float(1 - m))), float(m - 1)))


def _cosine_window(name: str, M: ArrayLike, coeffs: tuple[float, ...]) -> AnyArray:  # noqa: N803
    """``sum_k (-1)**k c_k cos(2 pi k n / (M - 1))``, the generalised cosine window."""
    m, n = _positions(name, M)
    if n is None:
        return lax.full((max(m, 0),), 1.0, _F64)
    phase = lax.div(lax.mul(2 * np.pi, n), float(m - 1))
    out: AnyArray = lax.full((m,), coeffs[0], _F64)
    for k, c in enumerate(coeffs[1:], start=1):
        term = lax.mul(c, lax.cos(lax.mul(float(k), phase)))
        out = lax.add(out, term) if k % 2 == 0 else lax.sub(out, term)
    return out


def blackman(M: int) -> AnyArray:  # noqa: N803
    """The Blackman window ``0.42 - 0.5 cos(2 pi n/(M-1)) + 0.08 cos(4 pi n/(M-1))``."""
    return _cosine_window("blackman", M, (0.42, 0.5, 0.08))


def hamming(M: int) -> AnyArray:  # noqa: N803
    """The Hamming window ``0.54 - 0.46 cos(2 pi n/(M-1))``."""
    return _cosine_window("hamming", M, (0.54, 0.46))


def hanning(M: int) -> AnyArray:  # noqa: N803
    """The Hann window ``0.5 - 0.5 cos(2 pi n/(M-1))``."""
    return _cosine_window("hanning", M, (0.5, 0.5))


def _i0(x: ArrayLike) -> AnyArray:
    """The modified Bessel function I0 from its power series (Horner in ``(x/2)**2``): every
    term is positive, so the sum is well conditioned, and it differentiates everywhere."""
    y = lax.mul(lax.mul(x, x), 0.25)
    out: AnyArray = lax.full_like(y, _I0_COEFFS[-1])
    for c in reversed(_I0_COEFFS[:-1]):
        out = lax.add(lax.mul(out, y), c)
    return out


def kaiser(M: int, beta: ArrayLike) -> Array:  # noqa: N803
    """The Kaiser window ``I0(beta sqrt(1 - ((n - a)/a)**2)) / I0(beta)``, ``a = (M-1)/2``."""
    m, n = _positions("kaiser", M)
    if n is None:
        return lax.full((max(m, 0),), 1.0, _F64)
    beta = lax.convert_element_type(cnp.asarray(beta), _F64)
    alpha = 0.5 * (m - 1)
    r = lax.div(lax.sub(n, alpha), alpha)
    arg = lax.mul(beta, lax.sqrt(lax.sub(1.0, lax.mul(r, r))))
    return lax.div(_i0(arg), _i0(beta))
