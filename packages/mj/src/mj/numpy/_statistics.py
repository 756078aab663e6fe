"""``cov`` and ``corrcoef``: covariance and correlation matrices of variables (rows, or
columns with ``rowvar=False``) with NumPy's frequency/analytic weights and ``ddof``, computed
with a single ``dot`` of the centred data as ``jax.numpy`` does (so they differentiate); and
``average``, the weighted mean along some axes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    DTypeLike,
    canonicalize_axes,
    check_arraylike,
    dtype_weak,
    int_tuple,
    promote_inexact,
)
from mj_core.numpy import diagonal

__all__ = ["average", "corrcoef", "cov"]


def _check_dtype(name: str, dtype: DTypeLike | None) -> None:
    # (mj.numpy's issubdtype: bfloat16 and the float8 types are floats too)
    if dtype is not None and not cnp.issubdtype(dtype, np.inexact):
        raise ValueError(
            f"{name}: dtype must be a subclass of float or complex; got {dtype=}"
            f"{user_line_suffix()}"
        )


def _weights(name: str, w: ArrayLike, samples: int) -> Array:
    w = cnp.asarray(w)
    if cnp.ndim(w) != 1 or cnp.shape(w)[0] != samples:
        raise ValueError(
            f"{name}: expected one weight per sample (shape ({samples},)), got shape "
            f"{cnp.shape(w)}{user_line_suffix()}"
        )
    return lax.abs(w)


def cov(
    m: ArrayLike,
    y: ArrayLike | None = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: ArrayLike | None = None,
    aweights: ArrayLike | None = None,
    dtype: DTypeLike | None = None,
) -> Array:
    """The covariance matrix of the variables in ``m`` (and ``y``); a scalar for one variable.

    ``fweights`` (integer repeat counts) and ``aweights`` (relative importances) weight the
    samples; ``ddof`` defaults to 1 (0 with ``bias``)."""
    if y is not None:
        m, y = promote_inexact(cnp.asarray(m), cnp.asarray(y))
        if cnp.ndim(y) > 2:
            raise ValueError(f"cov: y has more than 2 dimensions{user_line_suffix()}")
    else:
        (m,) = promote_inexact(cnp.asarray(m))
    if cnp.ndim(m) > 2:
        raise ValueError(f"cov: m has more than 2 dimensions{user_line_suffix()}")
    _check_dtype("cov", dtype)
    x = cnp.atleast_2d(m)
    if not rowvar and cnp.ndim(m) != 1:
        x = cnp.transpose(x)
    if cnp.shape(x)[0] == 0:
        return cnp.zeros((0, 0), x.dtype)
    if y is not None:
        y2 = cnp.atleast_2d(y)
        if not rowvar and cnp.shape(y2)[0] != 1:
            y2 = cnp.transpose(y2)
        x = cnp.concatenate([x, y2], axis=0)
    variables, samples = cnp.shape(x)
    if samples == 0:
        return cnp.full(() if variables == 1 else (variables, variables), np.nan, x.dtype)
    if ddof is None:
        ddof = 0 if bias else 1

    w: AnyArray | None = None
    if fweights is not None:
        fw = cnp.asarray(fweights)
        if fw.dtype.kind not in "iub":
            raise TypeError(f"cov: fweights must be integers, got {fw.dtype}{user_line_suffix()}")
        w = _weights("cov", fw, samples)
    aw: AnyArray | None = None
    if aweights is not None:
        aw = _weights("cov", aweights, samples)
        w = aw if w is None else lax.mul(*promote_inexact(w, aw))
    if dtype is not None:
        x = lax.convert_element_type(x, np.dtype(dtype))
    if w is not None:
        w = lax.convert_element_type(w, x.dtype.type(0).real.dtype)

    if w is None:
        avg = cnp.mean(x, axis=1)
        factor: AnyArray = samples - ddof
    else:
        w_sum = cnp.sum(w)
        avg = lax.div(cnp.sum(lax.mul(x, w), axis=1), w_sum.astype(x.dtype))
        if ddof == 0:
            factor = w_sum
        elif aw is None:
            factor = lax.sub(w_sum, float(ddof))
        else:
            aw = lax.convert_element_type(aw, w.dtype)
            factor = lax.sub(w_sum, lax.div(lax.mul(float(ddof), cnp.sum(lax.mul(w, aw))), w_sum))
    centred = lax.sub(x, cnp.expand_dims(avg, 1))
    weighted = centred if w is None else lax.mul(centred, w)
    out = cnp.dot(centred, cnp.conj(cnp.transpose(weighted)))
    return cnp.squeeze(cnp.true_divide(out, factor))


def corrcoef(
    x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, dtype: DTypeLike | None = None
) -> Array:
    """Pearson correlation coefficients ``cov / (std_i std_j)``, clipped to ``[-1, 1]``."""
    _check_dtype("corrcoef", dtype)
    c = cov(x, y, rowvar, dtype=dtype)
    if cnp.ndim(c) == 0:
        return lax.div(c, c)
    d = diagonal(c)
    stddev = lax.convert_element_type(cnp.sqrt(cnp.real(d)), c.dtype)
    c = lax.div(lax.div(c, cnp.expand_dims(stddev, 1)), cnp.expand_dims(stddev, 0))
    real_part = cnp.clip(cnp.real(c), -1, 1)
    if c.dtype.kind == "c":
        return lax.complex(real_part, cnp.clip(cnp.imag(c), -1, 1))
    return real_part


def average(
    a: ArrayLike,
    axis: int | Sequence[int] | None = None,
    weights: ArrayLike | None = None,
    returned: bool = False,
    keepdims: bool = False,
) -> Array | tuple[Array, Array]:
    """The mean of ``a`` along ``axis`` weighted by ``weights`` (``a``'s shape, or the shape
    of the reduced axes in ``axis`` order); with ``returned`` also the sum of the weights.
    Integers and bools average in JAX's float (float32 up to 32-bit integers), as in ``mean``."""
    check_arraylike("average", [a] if weights is None else [a, weights])
    a = cnp.asarray(a)
    shape = cnp.shape(a)
    axes = tuple(range(len(shape))) if axis is None else int_tuple("average", "axis", axis)
    axes = canonicalize_axes("average", axes, len(shape))
    if weights is None:
        avg = cnp.mean(a, axis=axis, keepdims=keepdims)
        count = 1
        for i in axes:
            count *= shape[i]
        weights_sum = lax.full((), count, dtype_weak(avg)[0])
    else:
        a, w = promote_inexact(a, cnp.asarray(weights))
        if cnp.shape(w) != shape:
            if axis is None:
                raise ValueError(
                    f"average: axis must be given when the shapes of a {shape} and weights "
                    f"{cnp.shape(w)} differ{user_line_suffix()}"
                )
            reduced = tuple(shape[i] for i in axes)
            if cnp.shape(w) != reduced:
                raise ValueError(
                    f"average: weights must have shape {reduced} (a's along axis {axis}) or "
                    f"{shape}, got {cnp.shape(w)}{user_line_suffix()}"
                )
            w = lax.transpose(w, tuple(int(i) for i in np.argsort(axes)))
            w = lax.reshape(w, tuple(d if i in axes else 1 for i, d in enumerate(shape)))
        weights_sum = cnp.sum(w, axis=axis, keepdims=keepdims)
        avg = lax.div(cnp.sum(lax.mul(a, w), axis=axis, keepdims=keepdims), weights_sum)
    if not returned:
        return avg
    return avg, cnp.broadcast_to(weights_sum, cnp.shape(avg))
