"""``gamma`` and ``loggamma`` of complex arguments, as JAX's: the Lanczos approximation
(g = 7, N = 9, GSL's coefficients) with the reflection formula for ``Re(z) < 0.5``; SciPy's
branch cut for ``loggamma`` (shifted into the right half plane, the logs of the shift
subtracted); ``nan+nanj`` at the poles and for NaN."""

from __future__ import annotations

import numpy as np

import mj.numpy as jnp
from mj_control import while_loop
from mj_core import lax
from mj_core.extend import AnyArray

__all__ = ["complex_gamma", "complex_loggamma_scipy"]

_LANCZOS_G = 7.0
_LANCZOS_COEFFS = np.array([
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
])  # fmt: skip


def _complex_loggamma(z: AnyArray) -> AnyArray:
    """Principal-branch log-gamma by Lanczos, reflected for ``Re(z) < 0.5``."""
    needs_reflection = jnp.real(z) < 0.5
    z_lanczos = jnp.where(needs_reflection, 1.0 - z, z)
    zz = z_lanczos - 1.0
    coeffs = jnp.asarray(_LANCZOS_COEFFS, dtype=z.dtype)
    ks = lax.expand_dims(jnp.arange(1, 9, dtype=z.dtype), tuple(range(zz.ndim)))
    ag = coeffs[0] + jnp.sum(
        lax.expand_dims(coeffs[1:], tuple(range(zz.ndim))) / (lax.expand_dims(zz, (zz.ndim,)) + ks),
        axis=-1,
    )
    t = zz + _LANCZOS_G + 0.5
    half_log2pi = jnp.asarray(0.5 * np.log(2.0 * np.pi), dtype=z.dtype)
    log_gamma_lanczos = half_log2pi + (zz + 0.5) * jnp.log(t) - t + jnp.log(ag)
    # a harmless point where the reflection is not taken (no NaN into the gradient)
    z_safe = jnp.where(needs_reflection, z, jnp.full_like(z, 0.5))
    reflected = (
        jnp.log(jnp.asarray(np.pi, dtype=z.dtype))
        - jnp.log(jnp.sin(np.pi * z_safe))
        - log_gamma_lanczos
    )
    return jnp.where(needs_reflection, reflected, log_gamma_lanczos)


def _poles_or_nan(z: AnyArray) -> AnyArray:
    re = jnp.real(z)
    is_pole = (jnp.imag(z) == 0) & (re == jnp.floor(re)) & (re <= 0)
    return is_pole | jnp.isnan(z)


def complex_gamma(z: AnyArray) -> AnyArray:
    """``exp(loggamma(z))`` for complex ``z``; ``nan+nanj`` at the poles and NaN."""
    safe = _poles_or_nan(z)
    nan_val = jnp.array(complex(np.nan, np.nan), dtype=z.dtype)
    z_safe = jnp.where(safe, jnp.ones_like(z), z)
    return jnp.where(safe, nan_val, jnp.exp(_complex_loggamma(z_safe)))


def complex_loggamma_scipy(z: AnyArray) -> AnyArray:
    """``loggamma(z)`` with SciPy's single branch cut on the negative real axis:
    ``loggamma(z + n) - sum_{k < n} log(z + k)``, ``n = max(0, ceil(0.5 - Re z))``."""
    safe = _poles_or_nan(z)
    nan_val = jnp.array(complex(np.nan, np.nan), dtype=z.dtype)
    z_safe = jnp.where(safe, jnp.ones_like(z), z)
    n = jnp.maximum(0, jnp.ceil(0.5 - jnp.real(z_safe)).astype(int))

    def cond_fun(state: tuple[AnyArray, AnyArray]) -> AnyArray:
        k, _ = state
        return jnp.any(k < n)

    def body_fun(state: tuple[AnyArray, AnyArray]) -> tuple[AnyArray, AnyArray]:
        k, sum_log = state
        mask = k < n
        zk = jnp.where(mask, z_safe + k, jnp.ones_like(z_safe))
        return k + 1, sum_log + jnp.where(mask, jnp.log(zk), jnp.zeros_like(sum_log))

    _, sum_log = while_loop(cond_fun, body_fun, (0, jnp.zeros_like(z_safe)))
    res = _complex_loggamma(z_safe + n) - sum_log
    return jnp.where(safe, nan_val, res)
