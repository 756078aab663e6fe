"""Vector- and matrix-valued samplers of ``mj.random``: ``multivariate_normal`` and
``orthogonal``, as JAX 0.10.2 computes them (a factor of the covariance times standard normal
draws; the sign-corrected Q of a Gaussian matrix's QR decomposition)."""

from __future__ import annotations

import numpy as np

import mj.numpy as mnp
from mj.random._args import (
    Shape,
    _aval,
    _check_key,
    _check_param_shapes,
    _compiled,
    _default_float,
    _error,
    _operator_index,
    _shape,
)
from mj.random._bits import _normal_real, normal
from mj_core import lax
from mj_core.dtypes import canonical_dtype
from mj_core.extend import Array, ArrayLike, DTypeLike
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = ["multivariate_normal", "orthogonal"]

_METHODS = ("cholesky", "eigh", "svd")


def multivariate_normal(
    key: ArrayLike,
    mean: ArrayLike,
    cov: ArrayLike,
    shape: Shape | None = None,
    dtype: DTypeLike | None = None,
    method: str = "cholesky",
) -> Array:
    """Samples of ``N(mean, cov)`` over the last axis: ``mean + factor @ z``.

    Arguments:
        key: a PRNG key.
        mean: the mean, shape ``(..., n)``.
        cov: the covariance, shape ``(..., n, n)``, positive definite for ``'cholesky'``
            (use ``'eigh'`` or ``'svd'`` for a singular one).
        shape: the batch shape of the result (default: ``mean`` and ``cov``'s broadcast batch
            shape); the result has shape ``shape + (n,)``.
        dtype: the sample dtype (default: the promoted dtype of ``mean`` and ``cov``).
        method: how ``cov`` is factored: ``'cholesky'``, ``'eigh'`` or ``'svd'``.
    """
    api = "multivariate_normal"
    key = _check_key(api, key)
    mean_aval = _aval(api, "mean", mean)
    cov_aval = _aval(api, "cov", cov)
    if method not in _METHODS:
        raise ValueError(_error(api, f"method must be one of {_METHODS}, got {method!r}"))
    inexact = to_inexact_dtype(np.promote_types(mean_aval.dtype, cov_aval.dtype))
    dt = inexact if dtype is None else np.dtype(dtype)
    if dt.kind != "f":
        raise ValueError(_error(api, f"dtype must be a floating-point dtype, got {dt.name}"))
    if not mean_aval.shape:
        raise ValueError(_error(api, "mean must have at least one dimension, got a scalar"))
    n = mean_aval.shape[-1]
    if len(cov_aval.shape) < 2 or cov_aval.shape[-2:] != (n, n):
        raise ValueError(
            _error(
                api,
                f"cov must have shape (..., {n}, {n}) for mean {mean_aval.shape}, "
                f"got {cov_aval.shape}",
            )
        )
    batch = (mean_aval.shape[:-1], cov_aval.shape[:-2])
    if shape is None:
        try:
            shp = tuple(np.broadcast_shapes(*batch))
        except ValueError:
            msg = f"the batch shapes of mean {batch[0]} and cov {batch[1]} do not broadcast"
            raise ValueError(_error(api, msg)) from None
    else:
        shp = _shape(api, shape)
        _check_param_shapes(api, shp, *batch)
    mean = mnp.asarray(mean, inexact)
    cov = mnp.asarray(cov, inexact)
    if method == "svd":
        u, s, _ = mnp.linalg.svd(cov)
        factor = lax.mul(u, mnp.sqrt(mnp.expand_dims(s, -2)))
    elif method == "eigh":
        w, v = mnp.linalg.eigh(cov)
        factor = lax.mul(v, mnp.sqrt(mnp.expand_dims(w, -2)))
    else:
        factor = mnp.linalg.cholesky(cov)
    z = _normal_real(key, (*shp, n), dt)
    return mnp.add(mean, mnp.einsum("...ij,...j->...i", factor, z))


@_compiled
def orthogonal(
    key: ArrayLike, n: int, shape: Shape = (), dtype: DTypeLike | None = None, m: int | None = None
) -> Array:
    """Uniformly (Haar) distributed ``n x m`` matrices with orthonormal columns (or rows, when
    ``n < m``; default ``m = n``), in a batch of ``shape``."""
    api = "orthogonal"
    key = _check_key(api, key)
    dt = _default_float() if dtype is None else canonical_dtype(dtype)
    if dt.kind not in "fc":
        raise ValueError(_error(api, f"dtype must be a float or complex dtype, got {dt.name}"))
    try:
        rows = _operator_index(n)
        cols = rows if m is None else _operator_index(m)
    except (TypeError, AttributeError) as err:
        raise TypeError(_error(api, f"n and m must be integers, got {n!r} and {m!r}")) from err
    shp = _shape(api, shape)
    z = normal(key, (*shp, max(rows, cols), min(rows, cols)), dt)
    q, r = mnp.linalg.qr(z)
    d = mnp.diagonal(r, axis1=-2, axis2=-1)
    x = lax.mul(q, mnp.expand_dims(mnp.sign(d), -2))
    return mnp.swapaxes(x, -1, -2) if rows < cols else x
