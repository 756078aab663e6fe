"""``mj.scipy.special.sph_harm_y``: spherical harmonics, by JAX's algorithm.

The normalized associated Legendre functions ``P_l^m(cos theta)`` of all orders and degrees up
to a static ``n_max`` come from three recurrences, as JAX's ``_gen_associated_legendre``: the
diagonal ``P_l^l`` (a cumulative product in ``sqrt(1 - x^2)``), the first off-diagonal
``P_{m+1}^m = sqrt(2m + 3) x P_m^m``, and the rest by a ``fori_loop`` over the diagonals
``l - m = 2 .. n_max`` with the recurrence coefficients ``d0``, ``d1`` (constants of the
static ``n_max``). The harmonic picks ``P_n^{|m|}`` (indices clipped to ``n_max``, as JAX's),
multiplies by ``exp(i |m| phi)`` and, for ``m < 0``, takes ``(-1)^m`` times the conjugate.
The whole computation is jitted, as JAX's, so eager and compiled results agree.
"""

from __future__ import annotations

from functools import partial

import numpy as np

import mj.numpy as mnp
from mj_control import fori_loop
from mj_core import lax
from mj_core.extend import AnyArray, Array, ArrayLike, concrete_or_error
from mj_xla import jit

__all__ = ["sph_harm_y"]


def _recurrence_coefficients(l_max: int, dtype: np.dtype[np.floating]) -> tuple[AnyArray, ...]:
    """``d0[m, l]``, ``d1[m, l]`` of the normalized recurrence (JAX's ``_gen_recurrence_mask``):
    ``P_l^m = d0 x P_{l-1}^m - d1 P_{l-2}^m``, zero outside ``l > m`` (``l > m + 1`` for ``d1``).
    Elementwise IEEE operations in ``dtype``, so the bits are those of the same formula in JAX."""
    m_mat, l_mat = np.meshgrid(
        np.arange(l_max + 1, dtype=dtype), np.arange(l_max + 1, dtype=dtype), indexing="ij"
    )
    one, two, three, four = (dtype.type(v) for v in (1, 2, 3, 4))
    c0 = l_mat * l_mat
    c1 = m_mat * m_mat
    c2 = two * l_mat
    c3 = (l_mat - one) * (l_mat - one)
    with np.errstate(divide="ignore", invalid="ignore"):
        d0 = np.sqrt((four * c0 - one) / (c0 - c1))
        d1 = np.sqrt(((c2 + one) * (c3 - c1)) / ((c2 - three) * (c0 - c1)))
    d0 = np.where(np.triu(np.ones_like(d0, dtype=bool), 1), d0, 0).astype(dtype)
    d1 = np.where(np.triu(np.ones_like(d1, dtype=bool), 2), d1, 0).astype(dtype)
    # (i, m, l) -> the coefficient at step i: nonzero only on the diagonal l == m + i
    i, j, k = np.ogrid[: l_max + 1, : l_max + 1, : l_max + 1]
    on_diagonal = (i + j - k == 0).astype(dtype)
    return mnp.asarray(d0[None] * on_diagonal), mnp.asarray(d1[None] * on_diagonal)


def _normalized_legendre(l_max: int, x: AnyArray) -> AnyArray:
    """``p[m, l, k] = N_l^m P_l^m(x[k])`` for ``0 <= m, l <= l_max`` (zero where ``m > l``)."""
    dtype = np.dtype(x.dtype)
    n = x.shape[0]
    p = mnp.zeros((l_max + 1, l_max + 1, n), dtype=dtype)
    a_idx = mnp.arange(1, l_max + 1, dtype=dtype)
    b_idx = mnp.arange(l_max, dtype=dtype)
    initial_value = 0.5 / mnp.sqrt(np.pi)  # p(0, 0), in the default float dtype, as JAX
    f_a = mnp.cumprod(-1 * mnp.sqrt(1.0 + 0.5 / a_idx))
    f_b = mnp.sqrt(2.0 * b_idx + 3.0)
    p = p.at[0, 0].set(initial_value)
    # the diagonal p(l, l)
    y = mnp.cumprod(mnp.broadcast_to(mnp.sqrt(1.0 - x * x), (l_max, n)), axis=0)
    p_diag = initial_value * (f_a[:, None] * y)
    diag = np.arange(1, l_max + 1)
    p = p.at[diag, diag].set(p_diag)
    # the first off-diagonal p(m, m + 1)
    below = np.arange(l_max)
    p_offdiag = (f_b[:, None] * x[None, :]) * p[below, below]
    p = p.at[below, below + 1].set(p_offdiag)
    if l_max < 2:
        return p
    d0, d1 = _recurrence_coefficients(l_max, dtype)

    def body(i: AnyArray, p_val: AnyArray) -> AnyArray:
        coeff_0 = d0[i][:, :, None]
        coeff_1 = d1[i][:, :, None]
        h = coeff_0 * (mnp.roll(p_val, shift=1, axis=1) * x[None, None]) - coeff_1 * mnp.roll(
            p_val, shift=2, axis=1
        )
        return p_val + h

    return fori_loop(2, l_max + 1, body, p)


@partial(jit, static_argnums=(4,))
def _sph_harm(n: AnyArray, m: AnyArray, theta: AnyArray, phi: AnyArray, n_max: int) -> Array:
    legendre = _normalized_legendre(n_max, mnp.cos(theta))
    legendre_val = legendre.at[abs(m), n, mnp.arange(len(n))].get(mode="clip")
    angle = abs(m) * phi
    vandermonde = lax.complex(mnp.cos(angle), mnp.sin(angle))
    harmonics = lax.complex(
        legendre_val * mnp.real(vandermonde), legendre_val * mnp.imag(vandermonde)
    )
    return mnp.where(m < 0, (-1.0) ** abs(m) * mnp.conjugate(harmonics), harmonics)


def sph_harm_y(
    n: ArrayLike,
    m: ArrayLike,
    theta: ArrayLike,
    phi: ArrayLike,
    diff_n: int | None = None,
    n_max: int | None = None,
) -> Array:
    """The spherical harmonics ``Y_n^m(theta, phi)`` (SciPy's ``sph_harm_y``) of degree ``n``
    and order ``m`` (``|m| <= n``) at colatitude ``theta`` and longitude ``phi``, for 1-D
    arrays. ``n_max`` (JAX's extra argument) is the largest degree, static; it defaults to
    ``max(n)`` of a concrete ``n``, and larger degrees are clipped to it."""
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported."
        )
    if mnp.isscalar(theta):
        theta = mnp.array([theta])
    what = (
        "The `n_max` argument of `jnp.scipy.special.sph_harm` must be statically specified to "
        "use `sph_harm` within JAX transformations."
    )
    value = np.max(concrete_or_error("sph_harm_y", n, what)) if n_max is None else n_max
    out: Array = _sph_harm(n, m, theta, phi, int(concrete_or_error("sph_harm_y", value, what)))
    return out
