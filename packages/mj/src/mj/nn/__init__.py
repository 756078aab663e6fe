"""``mj.nn``: activation functions, the numerically stable softmax family, ``standardize``
and :mod:`mj.nn.initializers`.

The same definitions as ``jax.nn``: ``relu``'s derivative at 0 is 0, ``softmax``/
``log_softmax``/``logsumexp`` subtract the maximum first so that large inputs do not overflow,
``relu6`` and ``log1mexp`` carry JAX's derivatives. All are compositions of mj primitives.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, Literal, overload

import numpy as np

from mj import numpy as mnp
from mj.nn import initializers as initializers
from mj.nn._attention import dot_product_attention as dot_product_attention
from mj_autodiff import custom_jvp, stop_gradient
from mj_core import config, get_aval, lax
from mj_core.dtypes import is_inexact
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    Array,
    ArrayLike,
    Axis,
    DTypeLike,
    canonicalize_axis,
    promote,
    promote_inexact,
)

__all__ = [
    "celu",
    "dot_product_attention",
    "elu",
    "gelu",
    "glu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "identity",
    "initializers",
    "leaky_relu",
    "log1mexp",
    "log_sigmoid",
    "log_softmax",
    "logmeanexp",
    "logsumexp",
    "mish",
    "normalize",
    "one_hot",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "soft_sign",
    "softmax",
    "softplus",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
    "standardize",
    "swish",
    "tanh",
]


@custom_jvp
def relu(x: ArrayLike) -> Array:
    """``max(x, 0)`` (NaN stays NaN), with derivative 0 at ``x == 0``: a ``custom_jvp``
    function as JAX's (a jaxpr holds one ``custom_jvp_call``); typed as JAX's
    ``jnp.maximum(x, 0)`` (a bool is a weak int)."""
    x, zero = promote(x, 0)
    return lax.max(x, zero)


relu.defjvps(lambda g, ans, x: lax.select(lax.gt(x, 0), g, lax.full_like(g, 0)))


def _inexact_only(name: str, x: ArrayLike) -> ArrayLike:
    """``x``, refused as JAX's lax primitive ``name`` refuses a bool or integer operand."""
    dtype = get_aval(x).dtype
    if not is_inexact(dtype):
        raise TypeError(
            f"{name} does not accept dtype {dtype.name}. Accepted dtypes are subtypes of "
            f"floating, complexfloating.{user_line_suffix()}"
        )
    return x


def sigmoid(x: ArrayLike) -> Array:
    """The logistic function ``1 / (1 + exp(-x))`` of a float or complex ``x`` (JAX's
    ``lax.logistic`` refuses bools and integers)."""
    return lax.logistic(_inexact_only("logistic", x))


def log_sigmoid(x: ArrayLike) -> Array:
    """``log(sigmoid(x)) = -softplus(-x)``, accurate for large ``|x|``."""
    return lax.neg(softplus(lax.neg(x)))


def softplus(x: ArrayLike) -> Array:
    """``log(1 + exp(x))``, without overflow."""
    return mnp.logaddexp(x, 0)


def silu(x: ArrayLike) -> Array:
    """``x * sigmoid(x)`` (also called swish)."""
    return lax.mul(x, sigmoid(x))


swish = silu


def leaky_relu(x: ArrayLike, negative_slope: float = 1e-2) -> Array:
    """``x`` where positive, ``negative_slope * x`` elsewhere (NumPy-level operations, as
    JAX's: an integer ``x`` gives a float)."""
    x = mnp.asarray(x)
    return mnp.where(mnp.greater_equal(x, 0), x, mnp.multiply(negative_slope, x))


def elu(x: ArrayLike, alpha: float = 1.0) -> Array:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (NumPy-level operations, as
    JAX's: an integer ``x`` gives a float)."""
    x = mnp.asarray(x)
    positive = mnp.greater(x, 0)
    safe = mnp.where(positive, 0.0, x)  # keeps expm1 finite off-branch
    return mnp.where(positive, x, mnp.multiply(alpha, lax.expm1(safe)))


def gelu(x: ArrayLike, approximate: bool = True) -> Array:
    """The Gaussian error linear unit ``x * Phi(x)``; ``approximate`` uses the tanh form."""
    (x,) = promote_inexact(x)
    dtype = get_aval(x).dtype
    # JAX's constants are NumPy scalars of x's dtype, applied with NumPy-level (promoting)
    # operations: the result is strong, and the gradient of a weak x weak again
    if approximate:
        sqrt_2_over_pi = dtype.type(math.sqrt(2 / math.pi))
        cubic = mnp.add(x, mnp.multiply(0.044715, lax.integer_pow(x, 3)))
        cdf = mnp.multiply(0.5, mnp.add(1.0, lax.tanh(mnp.multiply(sqrt_2_over_pi, cubic))))
        return mnp.multiply(x, cdf)
    # 0.5 x erfc(-x / sqrt 2), as JAX's: 1 + erf(x / sqrt 2) cancels to 0 in the negative tail
    sqrt_half = dtype.type(math.sqrt(0.5))
    return mnp.multiply(mnp.multiply(0.5, x), lax.erfc(mnp.multiply(lax.neg(x), sqrt_half)))


def _shifted(x: ArrayLike, axis: Axis, where: ArrayLike | None, stop: bool = True) -> Array:
    """``x - max(x, axis)`` as JAX's: the maximum over the entries ``where`` selects (initial
    ``-inf``, so empty axes work), masked-out entries ``-inf``, the shift under
    ``stop_gradient`` (it cancels mathematically) unless ``stop`` is false (the custom_jvp
    softmax, whose rule never differentiates it). An infinite maximum gives NaN, as JAX's."""
    m = mnp.max(x, axis=axis, where=where, initial=-mnp.inf, keepdims=True)
    safe = x if where is None else mnp.where(where, x, -mnp.inf)
    # (NumPy-level: an integer x gives a float)
    return mnp.subtract(safe, stop_gradient(m) if stop else m)


def _softmax_from(x: ArrayLike, axis: Axis, where: ArrayLike | None, stop: bool) -> Array:
    unnormalized = mnp.exp(_shifted(x, axis, where, stop))  # (an integer x: JAX's float first)
    total = mnp.sum(unnormalized, axis=axis, where=where, keepdims=True)
    result = lax.div(unnormalized, total)
    return result if where is None else mnp.where(where, result, 0)


def softmax(x: ArrayLike, axis: Axis = -1, where: ArrayLike | None = None) -> Array:
    """``exp(x) / sum(exp(x), axis)``, computed from ``x - max(x)``; with ``where``, over the
    entries where it holds only (0 elsewhere), as JAX's.

    As JAX's, the option ``softmax_custom_jvp`` (``with mj.softmax_custom_jvp(True):``)
    chooses its derivative: off (the default), the operations are differentiated (reverse
    mode saves ``exp(x - max)``, the sum and its inverse square); on, it is a ``custom_jvp``
    function with JVP ``y * (dx - sum(y * dx))``, whose reverse mode saves only ``y``. The
    values are the same."""
    if config.softmax_custom_jvp:
        return _softmax_custom(x, axis, where)  # type: ignore[no-any-return]
    return _softmax_from(x, axis, where, stop=True)


@partial(custom_jvp, nondiff_argnums=(1,))
def _softmax_custom(x: ArrayLike, axis: Axis, where: ArrayLike | None) -> Array:
    """JAX's ``_softmax``: the softmax as a ``custom_jvp`` function (its maximum is not under
    ``stop_gradient``: the rule below never differentiates it)."""
    return _softmax_from(x, axis, where, stop=False)


@_softmax_custom.defjvp
def _softmax_custom_jvp(
    axis: Axis, primals: tuple[Any, ...], tangents: tuple[Any, ...]
) -> tuple[Array, Array]:
    x, where = primals
    y = _softmax_custom(x, axis, where)
    x_dot = tangents[0]
    dot = mnp.sum(mnp.multiply(y, x_dot), axis=axis, where=where, keepdims=True)
    return y, mnp.multiply(y, mnp.subtract(x_dot, dot))


def log_softmax(x: ArrayLike, axis: Axis = -1, where: ArrayLike | None = None) -> Array:
    """``x - logsumexp(x, axis)``, computed from ``x - max(x)``; with ``where``, over the
    entries where it holds only (``-inf`` elsewhere), as JAX's."""
    shifted = _shifted(x, axis, where)
    total = mnp.sum(mnp.exp(shifted), axis=axis, where=where, keepdims=True)
    result = mnp.subtract(shifted, mnp.log(total))
    return result if where is None else mnp.where(where, result, -mnp.inf)


@overload
def logsumexp(
    a: ArrayLike,
    axis: Axis = ...,
    b: ArrayLike | None = ...,
    keepdims: bool = ...,
    return_sign: Literal[False] = ...,
    where: ArrayLike | None = ...,
) -> Array: ...
@overload
def logsumexp(
    a: ArrayLike,
    axis: Axis = ...,
    b: ArrayLike | None = ...,
    keepdims: bool = ...,
    *,
    return_sign: Literal[True],
    where: ArrayLike | None = ...,
) -> tuple[Array, Array]: ...
@overload
def logsumexp(
    a: ArrayLike,
    axis: Axis,
    b: ArrayLike | None,
    keepdims: bool,
    return_sign: Literal[True],
    where: ArrayLike | None = ...,
) -> tuple[Array, Array]: ...
def logsumexp(
    a: ArrayLike,
    axis: Axis = None,
    b: ArrayLike | None = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: ArrayLike | None = None,
) -> Array | tuple[Array, Array]:
    """``log(sum(b * exp(a), axis))`` without overflow; ``return_sign`` also returns the sign
    of the sum (needed when weights ``b`` can be negative), the log then of its magnitude.

    As JAX's: the shift is the maximum of the real parts (so a complex result's phase is
    the principal one, in ``(-pi, pi]``), under ``stop_gradient``; elements with ``b == 0``
    or outside ``where`` do not count; a negative real sum gives NaN unless ``return_sign``.
    """
    if where is not None:
        a = mnp.where(where, a, 0)
    if b is not None:
        a, b = promote_inexact(a, b)
        a = mnp.where(lax.ne(b, mnp.zeros_like(b)), a, -np.inf)
    else:
        (a,) = promote_inexact(a)
    a = mnp.asarray(a)
    dims = _axes(axis, mnp.ndim(a))
    complex_a = a.dtype.kind == "c"
    amax = mnp.max(
        lax.real(a) if complex_a else a, axis=dims, keepdims=True, where=where, initial=-np.inf
    )
    amax = stop_gradient(lax.select(lax.is_finite(amax), amax, mnp.zeros_like(amax)))
    exp_a = lax.exp(lax.sub(a, lax.convert_element_type(amax, a.dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = mnp.sum(exp_a, axis=dims, keepdims=True, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not complex_a:
        sumexp = lax.abs(sumexp)
    out = lax.add(lax.log(sumexp), lax.convert_element_type(amax, sumexp.dtype))
    if not keepdims:
        out = mnp.squeeze(out, axis=dims)
        sign = mnp.squeeze(sign, axis=dims)
    if return_sign:
        return out, sign
    if b is not None and not complex_a:
        out = mnp.where(lax.lt(sign, mnp.zeros_like(sign)), np.nan, out)
    return out


def logmeanexp(
    x: ArrayLike, axis: Axis = None, where: ArrayLike | None = None, keepdims: bool = False
) -> Array:
    """``log(mean(exp(x)))`` over ``axis`` without overflow: :func:`logsumexp` minus the log
    of the count (of the elements ``where`` selects)."""
    x = mnp.asarray(x)
    if where is not None:
        x = mnp.where(where, x, -np.inf)
    lse = logsumexp(x, axis=axis, keepdims=keepdims)
    if where is None:
        count = mnp.sum(mnp.ones_like(x, dtype=lse.dtype), axis=axis, keepdims=keepdims)
    else:
        selected = mnp.broadcast_to(mnp.asarray(where), mnp.shape(x))
        count = mnp.sum(selected, axis=axis, keepdims=keepdims, dtype=lse.dtype)
    return lse - mnp.log(count)


def tanh(x: ArrayLike) -> Array:
    """The hyperbolic tangent (``mj.numpy.tanh``), under ``jax.nn``'s name."""
    return mnp.tanh(x)


def _axes(axis: Axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    return (axis,) if isinstance(axis, int) else tuple(axis)


def one_hot(
    x: ArrayLike, num_classes: int, dtype: DTypeLike | None = None, axis: int = -1
) -> Array:
    """``x[..., None] == arange(num_classes)``, as ``dtype`` (default float64); the class axis
    is inserted at ``axis``. Out-of-range indices give all-zero rows."""
    dt = np.dtype(np.float64) if dtype is None else np.dtype(dtype)
    x = mnp.asarray(x)
    axis = canonicalize_axis("one_hot", axis, mnp.ndim(x) + 1)
    shape = (*mnp.shape(x)[:axis], int(num_classes), *mnp.shape(x)[axis:])
    classes = lax.broadcasted_iota(mnp.asarray(x).dtype, shape, axis)
    labels = mnp.expand_dims(x, axis)
    return lax.convert_element_type(lax.eq(labels, classes), dt)


# --- the rest of jax.nn's activations ---------------------------------------------------------
def identity(x: ArrayLike) -> Array:
    """``x`` itself (as an array)."""
    return mnp.asarray(x)


def celu(x: ArrayLike, alpha: ArrayLike = 1.0) -> Array:
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    return mnp.add(
        mnp.maximum(x, 0.0), mnp.multiply(alpha, lax.expm1(mnp.divide(mnp.minimum(x, 0.0), alpha)))
    )


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x: ArrayLike) -> Array:
    """Scaled ELU with the self-normalising constants ``scale * elu(x, alpha)``."""
    return mnp.multiply(_SELU_SCALE, elu(x, _SELU_ALPHA))


def glu(x: ArrayLike, axis: int = -1) -> Array:
    """Gated linear unit: the first half of ``x`` along ``axis`` times the sigmoid of the
    second half."""
    x = mnp.asarray(x)
    size = mnp.shape(x)[axis]
    if size % 2:
        raise ValueError(
            f"glu: the size of axis {axis} must be even, got shape {mnp.shape(x)}"
            f"{user_line_suffix()}"
        )
    x1, x2 = mnp.split(x, 2, axis)
    return lax.mul(x1, sigmoid(x2))


def hard_tanh(x: ArrayLike) -> Array:
    """``x`` clipped to ``[-1, 1]`` (derivative 1 inside, 0 outside)."""
    x = mnp.asarray(x)
    return mnp.where(mnp.greater(x, 1), 1, mnp.where(mnp.less(x, -1), -1, x))


def soft_sign(x: ArrayLike) -> Array:
    """``x / (|x| + 1)``."""
    x = mnp.asarray(x)
    return mnp.divide(x, mnp.add(mnp.abs(x), 1))  # (mnp.abs: bools and unsigned, as JAX's)


@custom_jvp
def relu6(x: ArrayLike) -> Array:
    """``min(max(x, 0), 6)``; its derivative is 0 at both kinks (as in JAX)."""
    return mnp.minimum(mnp.maximum(x, 0), 6.0)


@relu6.defjvp
def _relu6_jvp(primals: tuple[ArrayLike], tangents: tuple[ArrayLike]) -> tuple[Array, Array]:
    (x,), (g,) = primals, tangents
    inside = lax.bitwise_and(lax.gt(x, 0), lax.lt(x, 6))
    return relu6(x), lax.select(inside, g, lax.full_like(g, 0))


def hard_sigmoid(x: ArrayLike) -> Array:
    """``relu6(x + 3) / 6``, a piecewise-linear sigmoid."""
    return mnp.divide(relu6(mnp.add(x, 3.0)), 6.0)


def hard_silu(x: ArrayLike) -> Array:
    """``x * hard_sigmoid(x)`` (also called hard swish)."""
    x = mnp.asarray(x)
    return mnp.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def sparse_plus(x: ArrayLike) -> Array:
    """0 below -1, ``x`` above 1, ``(x + 1)**2 / 4`` between: a smooth-at-the-joins relu."""
    x = mnp.asarray(x)
    middle = mnp.divide(mnp.square(mnp.add(x, 1.0)), 4)
    return mnp.where(mnp.less_equal(x, -1.0), 0.0, mnp.where(mnp.greater_equal(x, 1.0), x, middle))


def sparse_sigmoid(x: ArrayLike) -> Array:
    """``clip(x + 1, 0, 2) / 2``, the derivative of :func:`sparse_plus`."""
    return mnp.multiply(0.5, mnp.clip(mnp.add(x, 1.0), 0.0, 2.0))


def squareplus(x: ArrayLike, b: ArrayLike = 4) -> Array:
    """``(x + sqrt(x**2 + b)) / 2``, a smooth relu made of algebraic functions."""
    x = mnp.asarray(x)
    return mnp.divide(mnp.add(x, mnp.sqrt(mnp.add(mnp.square(x), b))), 2)


def mish(x: ArrayLike) -> Array:
    """``x * tanh(softplus(x))``."""
    x = mnp.asarray(x)
    return mnp.multiply(x, lax.tanh(softplus(x)))


@custom_jvp
def log1mexp(x: ArrayLike) -> Array:
    """``log(1 - exp(-x))`` for ``x > 0``, by ``log(-expm1(-x))`` below ``log 2`` and
    ``log1p(-exp(-x))`` above (each accurate on its side)."""
    x = mnp.asarray(x)
    small = mnp.less(x, math.log(2.0))  # (NumPy-level, as JAX's ``x < c``: x may be an int)
    return mnp.where(
        small,
        mnp.log(mnp.negative(mnp.expm1(mnp.negative(x)))),
        mnp.log1p(mnp.negative(mnp.exp(mnp.negative(x)))),
    )


@log1mexp.defjvp
def _log1mexp_jvp(primals: tuple[ArrayLike], tangents: tuple[ArrayLike]) -> tuple[Array, Array]:
    (x,), (g,) = primals, tangents
    return log1mexp(x), mnp.divide(g, lax.expm1(x))


def _masked_mean(x: ArrayLike, axis: Axis, where: ArrayLike | None) -> Array:
    if where is None:
        return mnp.mean(x, axis=axis, keepdims=True)
    mask = mnp.broadcast_to(mnp.asarray(where), mnp.shape(x))
    total = mnp.sum(mnp.where(mask, x, mnp.zeros_like(x)), axis=axis, keepdims=True)
    count = mnp.sum(lax.convert_element_type(mask, mnp.result_type(x)), axis=axis, keepdims=True)
    return mnp.divide(total, count)


def standardize(
    x: ArrayLike,
    axis: Axis = -1,
    mean: ArrayLike | None = None,
    variance: ArrayLike | None = None,
    epsilon: ArrayLike = 1e-5,
    where: ArrayLike | None = None,
    *,
    algorithm: str = "fast",
) -> Array:
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis`` (layer normalisation without
    scale and shift); statistics default to those of ``x`` over the ``where`` mask.
    ``algorithm='fast'`` takes the variance as ``E[x^2] - E[x]^2`` (clipped at 0),
    ``'stable'`` as ``E[(x - mean)^2]``."""
    if algorithm not in ("fast", "stable"):
        raise ValueError(
            f"standardize: unknown algorithm {algorithm!r}, expected 'fast' or 'stable'"
            f"{user_line_suffix()}"
        )
    x = mnp.asarray(x)
    if mean is None:
        mean = _masked_mean(x, axis, where)
    if variance is None:
        if algorithm == "stable":
            variance = _masked_mean(mnp.square(mnp.subtract(x, mean)), axis, where)
        else:
            variance = mnp.subtract(_masked_mean(mnp.square(x), axis, where), mnp.square(mean))
            variance = mnp.clip(variance, 0)
    return mnp.multiply(mnp.subtract(x, mean), lax.rsqrt(mnp.add(variance, epsilon)))


normalize = standardize  # seed 004's name for it (JAX's alias, since renamed ``standardize``)
