"""SciPy's special matrices for :mod:`mj.scipy.linalg`, as ``jax.scipy.linalg`` builds them:
``toeplitz``, ``hankel``, ``circulant``, ``leslie``, ``companion``, ``fiedler``,
``fiedler_companion``, ``convolution_matrix`` (batched over leading axes like JAX's
gufuncs) and ``hilbert``, ``invhilbert``, ``pascal``, ``invpascal``, ``helmert``,
``hadamard``, ``dft`` (from a static size). Everything is an index computation on mj arrays,
so the vector-valued ones differentiate, batch and compile. ``pascal``, ``invpascal`` and
``invhilbert`` (log-gamma based) are jitted, as JAX's, so eager and compiled results agree.
"""

from __future__ import annotations

import math
import operator
from functools import partial
from typing import Any

import numpy as np

import mj.numpy as mnp
from mj.numpy import vectorize
from mj_core import lax
from mj_core.dtypes import canonicalize_dtype
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, promote_inexact
from mj_xla import jit

__all__ = [
    "circulant",
    "companion",
    "convolution_matrix",
    "dft",
    "fiedler",
    "fiedler_companion",
    "hadamard",
    "hankel",
    "helmert",
    "hilbert",
    "invhilbert",
    "invpascal",
    "leslie",
    "pascal",
    "toeplitz",
]


def _float() -> np.dtype[Any]:
    return canonicalize_dtype(np.float64)


def _complex() -> np.dtype[Any]:
    return canonicalize_dtype(np.complex128)


def _gather(v: AnyArray, idx: np.ndarray[Any, Any]) -> Array:
    """``v[idx]`` for a 1-D ``v`` and a static integer index array."""
    return mnp.take(v, mnp.asarray(idx.astype(np.int32)), axis=0)


# --- Toeplitz and Hankel -----------------------------------------------------------------------
def toeplitz(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Toeplitz matrix with first column ``c`` and first row ``r`` (``conj(c)`` when
    omitted; ``r[0]`` is ignored); leading axes of ``c`` and ``r`` broadcast."""
    c = mnp.asarray(c)
    r = mnp.conjugate(c) if r is None else mnp.asarray(r)
    return _toeplitz(mnp.atleast_1d(c), mnp.atleast_1d(r))  # type: ignore[no-any-return]


@partial(vectorize, signature="(m),(n)->(m,n)")
def _toeplitz(c: AnyArray, r: AnyArray) -> Array:
    (m,), (n,) = mnp.shape(c), mnp.shape(r)
    if m == 0 or n == 0:
        return mnp.empty((m, n), dtype=mnp.promote_types(c.dtype, r.dtype))
    elems = mnp.concatenate((c[::-1], r[1:]))
    idx = (m - 1) - np.arange(m)[:, None] + np.arange(n)[None, :]
    return _gather(elems, idx)


def hankel(c: ArrayLike, r: ArrayLike | None = None) -> Array:
    """The Hankel matrix with first column ``c`` and last row ``r`` (zeros when omitted;
    ``r[0]`` is ignored); leading axes broadcast."""
    c = mnp.asarray(c)
    r = mnp.zeros_like(c) if r is None else mnp.asarray(r)
    if mnp.ndim(c) == 0:
        raise ValueError("hankel: c must be at least 1-dimensional, got a scalar.")
    if mnp.ndim(r) == 0:
        raise ValueError("hankel: r must be at least 1-dimensional, got a scalar.")
    if mnp.ndim(c) < mnp.ndim(r):
        c = mnp.expand_dims(c, tuple(range(mnp.ndim(r) - mnp.ndim(c))))
    elif mnp.ndim(r) < mnp.ndim(c):
        r = mnp.expand_dims(r, tuple(range(mnp.ndim(c) - mnp.ndim(r))))
    return _hankel(c, r)  # type: ignore[no-any-return]


@partial(vectorize, signature="(m),(n)->(m,n)")
def _hankel(c: AnyArray, r: AnyArray) -> Array:
    (m,), (n,) = mnp.shape(c), mnp.shape(r)
    if m == 0 or n == 0:
        return mnp.empty((m, n), dtype=mnp.result_type(c, r))
    v = mnp.concatenate((c, r[1:]))
    return _gather(v, np.arange(m)[:, None] + np.arange(n)[None, :])


def circulant(c: ArrayLike) -> Array:
    """The circulant matrix whose first column is ``c`` (leading axes are batch axes)."""
    return _circulant(mnp.atleast_1d(mnp.asarray(c)))  # type: ignore[no-any-return]


@partial(vectorize, signature="(n)->(n,n)")
def _circulant(c: AnyArray) -> Array:
    (n,) = mnp.shape(c)
    return _gather(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % max(n, 1))


# --- companion-type matrices ---------------------------------------------------------------------
def leslie(f: ArrayLike, s: ArrayLike) -> Array:
    """The Leslie matrix: fecundities ``f`` on the first row, survival rates ``s`` on the
    subdiagonal."""
    f_arr, s_arr = mnp.atleast_1d(mnp.asarray(f)), mnp.atleast_1d(mnp.asarray(s))
    if mnp.shape(f_arr)[-1] < 2:
        raise ValueError(
            f"The length of f along the last axis must be at least 2; got shape {mnp.shape(f_arr)}."
        )
    if mnp.shape(s_arr)[-1] != mnp.shape(f_arr)[-1] - 1:
        raise ValueError(
            f"Incorrect lengths for f and s. The length of s along the last axis must be one "
            f"less than the length of f; got f shape {mnp.shape(f_arr)} and s shape "
            f"{mnp.shape(s_arr)}."
        )
    return _leslie(f_arr, s_arr)  # type: ignore[no-any-return]


@partial(vectorize, signature="(n),(m)->(n,n)")
def _leslie(f: AnyArray, s: AnyArray) -> Array:
    dtype = mnp.promote_types(f.dtype, s.dtype)
    f, s = f.astype(dtype), s.astype(dtype)
    first = mnp.arange(mnp.shape(f)[0])[:, None] == 0
    return mnp.where(first, f[None, :], mnp.diag(s, k=-1))


def companion(a: ArrayLike) -> Array:
    """The companion matrix of the polynomial with coefficients ``a`` (highest first)."""
    (arr,) = promote_inexact(mnp.asarray(a))
    arr = mnp.atleast_1d(arr)
    if mnp.shape(arr)[-1] < 2:
        raise ValueError(
            f"The length of `a` along the last axis must be at least 2; got shape {mnp.shape(arr)}."
        )
    return _companion(arr)  # type: ignore[no-any-return]


@partial(vectorize, signature="(n)->(m,m)")
def _companion(a: AnyArray) -> Array:
    first_row = -a[1:] / a[0]
    m = mnp.shape(a)[0] - 1
    first = mnp.arange(m)[:, None] == 0
    return mnp.where(first, first_row[None, :], mnp.eye(m, m, k=-1, dtype=first_row.dtype))


def fiedler(a: ArrayLike) -> Array:
    """The symmetric Fiedler matrix ``|a[i] - a[j]|``."""
    arr = mnp.atleast_1d(mnp.asarray(a))
    return mnp.abs(arr[..., None] - arr[..., None, :])


def fiedler_companion(a: ArrayLike) -> Array:
    """Fiedler's pentadiagonal companion matrix of the polynomial ``a`` (highest first)."""
    (arr,) = promote_inexact(mnp.asarray(a))
    arr = mnp.atleast_1d(arr)
    if mnp.shape(arr)[-1] == 0:
        raise ValueError(
            f"fiedler_companion requires the last axis of 'a' to have nonzero length, but "
            f"got an array of shape {mnp.shape(arr)}."
        )
    return _fiedler_companion(arr)  # type: ignore[no-any-return]


@partial(vectorize, signature="(n)->(m,m)")
def _fiedler_companion(a: AnyArray) -> Array:
    n = mnp.shape(a)[0] - 1
    if n == 0:
        return mnp.empty((0, 0), dtype=a.dtype)
    a = a / a[0]
    if n == 1:
        return mnp.reshape(-a[1:], (1, 1))
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    super_val = -_gather(a, np.broadcast_to(np.minimum(i + 2, n), (n, n)))
    sub_val = -_gather(a, np.broadcast_to(np.minimum(i + 1, n), (n, n)))
    even, odd = i % 2 == 0, i % 2 == 1
    one, zero = mnp.ones((n, n), a.dtype), mnp.zeros((n, n), a.dtype)
    conditions = [
        (i == 0) & (j == 0),
        (i == 1) & (j == 0),
        (j == i + 1) & even,
        (j == i + 2) & even,
        (j == i - 1) & even & (i >= 2),
        (j == i - 2) & odd & (i >= 3),
    ]
    choices = [mnp.broadcast_to(-a[1], (n, n)), one, super_val, one, sub_val, one]
    out = zero
    for cond, choice in reversed(list(zip(conditions, choices, strict=True))):
        out = mnp.where(np.broadcast_to(cond, (n, n)), choice, out)
    return out


def convolution_matrix(a: ArrayLike, n: int, mode: str = "full") -> Array:
    """The Toeplitz matrix ``A`` with ``A @ v == convolve(a, v, mode)`` for length-``n``
    ``v`` (``mode`` ``'full'``, ``'valid'`` or ``'same'``); leading axes of ``a`` batch."""
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"n must be a positive integer; got {n}.")
    arr = mnp.asarray(a)
    if mnp.ndim(arr) == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar.")
    m = mnp.shape(arr)[-1]
    if m < 1:
        raise ValueError(f"len(a) must be at least 1; got shape {mnp.shape(arr)}.")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"mode must be one of 'full', 'valid', 'same'; got {mode!r}.")
    pad_widths = [(0, 0)] * (mnp.ndim(arr) - 1) + [(0, n - 1)]
    az = mnp.pad(arr, pad_widths)
    raz = mnp.pad(mnp.flip(arr, axis=-1), pad_widths)
    length = m + n - 1
    if mode == "same":
        trim = min(n, m) - 1
        tb = trim // 2
        te = trim - tb
    elif mode == "valid":
        tb = te = min(n, m) - 1
    else:
        tb = te = 0
    col0 = lax.slice_in_dim(az, tb, length - te, axis=-1)
    row0 = lax.slice_in_dim(raz, length - n - tb, length - tb, axis=-1)
    return toeplitz(col0, row0)


# --- matrices of a static size -------------------------------------------------------------------
def _static_size(name: str, n: int) -> int:
    try:
        return operator.index(n)
    except TypeError:
        raise TypeError(f"{name}: n must be a static int, got {n!r}{user_line_suffix()}") from None


def hilbert(n: int) -> Array:
    """The ``n x n`` Hilbert matrix ``1 / (i + j + 1)``."""
    n = _static_size("hilbert", n)
    a = lax.broadcasted_iota(_float(), (n, 1), 0)
    return 1 / (a + a.T + 1)


def _binom(n: AnyArray, k: AnyArray) -> Array:
    return lax.exp(lax.lgamma(n + 1.0) - lax.lgamma(n - k + 1.0) - lax.lgamma(k + 1.0))


def invhilbert(n: int) -> Array:
    """The inverse of the ``n x n`` Hilbert matrix (floating point, as JAX's)."""
    return _invhilbert(_static_size("invhilbert", n))  # type: ignore[no-any-return]


@partial(jit, static_argnums=(0,))
def _invhilbert(n: int) -> Array:
    from mj.scipy.special import comb

    a = mnp.arange(n, dtype=_float())
    i, j = a[:, None], a[None, :]
    s = i + j
    return (
        (-1.0) ** s * (s + 1.0) * comb(n + i, n - j - 1) * comb(n + j, n - i - 1) * comb(s, i) ** 2
    )


_PASCAL_KINDS = ["symmetric", "lower", "upper"]


def pascal(n: int, kind: str | None = None) -> Array:
    """The ``n x n`` Pascal matrix (``kind`` ``'symmetric'``, ``'lower'`` or ``'upper'``)."""
    return _pascal(_static_size("pascal", n), kind)  # type: ignore[no-any-return]


@partial(jit, static_argnums=(0, 1))
def _pascal(n: int, kind: str | None) -> Array:
    kind = "symmetric" if kind is None else kind
    if kind not in _PASCAL_KINDS:
        raise ValueError(f"Expected kind to be on of: {_PASCAL_KINDS}; got {kind}")
    a = mnp.arange(n, dtype=np.float32)
    lower = _binom(a[:, None], a[None, :])
    if kind == "lower":
        return lower
    if kind == "upper":
        return lower.T
    return mnp.dot(lower, lower.T, precision=lax.Precision.HIGHEST)


def invpascal(n: int, kind: str | None = None) -> Array:
    """The inverse of :func:`pascal` ``(n, kind)``."""
    return _invpascal(_static_size("invpascal", n), kind)  # type: ignore[no-any-return]


@partial(jit, static_argnums=(0, 1))
def _invpascal(n: int, kind: str | None) -> Array:
    kind = "symmetric" if kind is None else kind
    if kind not in _PASCAL_KINDS:
        raise ValueError(f"Expected kind to be one of: {_PASCAL_KINDS}; got {kind}")
    a = mnp.arange(n, dtype=_float())
    i, j = a[:, None], a[None, :]
    lower_inv = (-1.0) ** (i - j) * _binom(i, j)
    if kind == "lower":
        return lower_inv
    if kind == "upper":
        return lower_inv.T
    return mnp.dot(lower_inv.T, lower_inv, precision=lax.Precision.HIGHEST)


def helmert(n: int, full: bool = False) -> Array:
    """The Helmert matrix: ``n - 1`` orthonormal contrasts (with the first row
    ``1 / sqrt(n)`` when ``full``)."""
    n = _static_size("helmert", n)
    if n < 1:
        raise ValueError(f"n must be a positive integer; got {n}.")
    i = np.arange(n - 1)[:, None]
    j = np.arange(n)[None, :]
    k_f = mnp.asarray((i + 1).astype(np.float64), dtype=_float())
    denom = mnp.sqrt(k_f * (k_f + 1))
    h = mnp.where(j <= i, 1.0 / denom, mnp.where(j == i + 1, -k_f / denom, mnp.zeros_like(denom)))
    if full:
        first_row = mnp.full((1, n), 1.0 / mnp.sqrt(n), dtype=h.dtype)
        h = mnp.concatenate([first_row, h], axis=0)
    return h


def hadamard(n: int, dtype: Any = int) -> Array:
    """The ``n x n`` Sylvester-Hadamard matrix (``n`` a power of 2)."""
    n = _static_size("hadamard", n)
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"n must be a positive power of 2; got {n}.")
    h = mnp.ones((1, 1), dtype=dtype)
    for _ in range(int(math.log2(n))):
        h = mnp.block([[h, h], [h, -h]])
    return h


def dft(n: int, scale: str | None = None, *, dtype: Any = None) -> Array:
    """The ``n x n`` discrete Fourier transform matrix ``exp(-2 pi i j k / n)``, scaled by
    ``1 / sqrt(n)`` (``'sqrtn'``) or ``1 / n`` (``'n'``)."""
    if scale is not None and scale not in ("sqrtn", "n"):
        raise ValueError(f"scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    if dtype is None:
        dt = _complex()
    else:
        dt = canonicalize_dtype(np.dtype(dtype))
        if not np.issubdtype(dt, np.complexfloating):
            raise ValueError(f"dtype must be a complex floating-point type; got {dt}.")
    n = _static_size("dft", n)
    a = mnp.arange(n, dtype=dt)
    omegas = mnp.exp(-2j * np.pi * a[:, None] * a[None, :] / n)
    if scale == "sqrtn":
        omegas = omegas / math.sqrt(n)
    elif scale == "n":
        omegas = omegas / n
    return omegas
