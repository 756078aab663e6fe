"""``mj.nn``: activation functions and the numerically stable softmax family.

The same definitions as ``jax.nn``: ``relu``'s derivative at 0 is 0, ``softmax``/
``log_softmax``/``logsumexp`` subtract the maximum first so that large inputs do not overflow.
All are compositions of mj primitives.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj import numpy as mnp
from mj_core import lax
from mj_core.shapes import canonicalize_axis

__all__ = [
    "elu",
    "gelu",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "logsumexp",
    "one_hot",
    "relu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "swish",
]

Array = Any
Axis = int | Sequence[int] | None


def relu(x: Array) -> Array:
    """``max(x, 0)``, with derivative 0 at ``x == 0`` (as in JAX)."""
    return lax.select(lax.gt(x, 0), x, mnp.zeros_like(x))


def sigmoid(x: Array) -> Array:
    """The logistic function ``1 / (1 + exp(-x))``."""
    return lax.logistic(x)


def log_sigmoid(x: Array) -> Array:
    """``log(sigmoid(x)) = -softplus(-x)``, accurate for large ``|x|``."""
    return lax.neg(softplus(lax.neg(x)))


def softplus(x: Array) -> Array:
    """``log(1 + exp(x))``, without overflow."""
    return mnp.logaddexp(x, 0)


def silu(x: Array) -> Array:
    """``x * sigmoid(x)`` (also called swish)."""
    return lax.mul(x, lax.logistic(x))


swish = silu


def leaky_relu(x: Array, negative_slope: float = 1e-2) -> Array:
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    return lax.select(lax.ge(x, 0), x, lax.mul(negative_slope, x))


def elu(x: Array, alpha: float = 1.0) -> Array:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""
    safe = lax.select(lax.gt(x, 0), mnp.zeros_like(x), x)  # keeps expm1 finite off-branch
    return lax.select(lax.gt(x, 0), x, lax.mul(alpha, lax.expm1(safe)))


def gelu(x: Array, approximate: bool = True) -> Array:
    """The Gaussian error linear unit ``x * Phi(x)``; ``approximate`` uses the tanh form."""
    if approximate:
        inner = lax.mul(
            math.sqrt(2 / math.pi), lax.add(x, lax.mul(0.044715, lax.integer_pow(x, 3)))
        )
        return lax.mul(x, lax.mul(0.5, lax.add(1.0, lax.tanh(inner))))
    return lax.mul(lax.mul(x, 0.5), lax.add(lax.erf(lax.mul(x, 1 / math.sqrt(2))), 1.0))


def _shifted(x: Array, axis: Axis) -> Array:
    """``x - max(x, axis)``, with infinite maxima replaced by 0 so that rows of ``-inf`` give
    NaN-free results. The shift cancels mathematically, so its gradient contributions cancel
    too (JAX wraps it in stop_gradient only to save that work)."""
    m = mnp.max(x, axis=axis, keepdims=True)
    m = lax.select(lax.is_finite(m), m, mnp.zeros_like(m))
    return lax.sub(x, m), m


def softmax(x: Array, axis: Axis = -1) -> Array:
    """``exp(x) / sum(exp(x), axis)``, computed from ``x - max(x)``."""
    shifted, _ = _shifted(x, axis)
    unnormalized = lax.exp(shifted)
    return lax.div(unnormalized, mnp.sum(unnormalized, axis=axis, keepdims=True))


def log_softmax(x: Array, axis: Axis = -1) -> Array:
    """``x - logsumexp(x, axis)``, computed from ``x - max(x)``."""
    shifted, _ = _shifted(x, axis)
    return lax.sub(shifted, lax.log(mnp.sum(lax.exp(shifted), axis=axis, keepdims=True)))


def logsumexp(
    a: Array,
    axis: Axis = None,
    b: Array | None = None,
    keepdims: bool = False,
    return_sign: bool = False,
) -> Array:
    """``log(sum(b * exp(a), axis))`` without overflow; ``return_sign`` also returns the sign
    of the sum (needed when weights ``b`` can be negative)."""
    shifted, m = _shifted(a, axis)
    terms = lax.exp(shifted)
    if b is not None:
        terms = lax.mul(b, terms)
    total = mnp.sum(terms, axis=axis, keepdims=True)
    sign = lax.sign(total)
    out = lax.add(lax.log(lax.abs(total) if return_sign else total), m)
    if not keepdims:
        out = mnp.squeeze(out, axis=_axes(axis, mnp.ndim(out)))
        sign = mnp.squeeze(sign, axis=_axes(axis, mnp.ndim(sign)))
    return (out, sign) if return_sign else out


def _axes(axis: Axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return (axis,) if isinstance(axis, int) else tuple(axis)


def one_hot(x: Array, num_classes: int, dtype: Any = None, axis: int = -1) -> Array:
    """``x[..., None] == arange(num_classes)``, as ``dtype`` (default float64); the class axis
    is inserted at ``axis``. Out-of-range indices give all-zero rows."""
    dt = np.dtype(np.float64) if dtype is None else np.dtype(dtype)
    x = mnp.asarray(x)
    axis = canonicalize_axis("one_hot", axis, mnp.ndim(x) + 1)
    shape = (*mnp.shape(x)[:axis], int(num_classes), *mnp.shape(x)[axis:])
    classes = lax.broadcasted_iota(mnp.asarray(x).dtype, shape, axis)
    labels = mnp.expand_dims(x, axis)
    return lax.convert_element_type(lax.eq(labels, classes), dt)
