"""``mj.random.choice``: sampling elements of an array with JAX 0.10.2's algorithms.

Uniform with replacement draws ``randint`` indices; uniform without replacement takes the
first slices of a ``permutation``; weighted with replacement inverts the CDF (``cumsum`` and a
left ``searchsorted``); weighted without replacement takes the top ``k`` of Gumbel-perturbed
log-weights. Each consumes the key exactly as JAX does, so the choices match JAX's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

import mj.numpy as mnp
from mj.random._args import (
    _aval,
    _check_key,
    _default_int,
    _error,
    _operator_index,
)
from mj.random._bits import _gumbel, _uniform
from mj.random._discrete import _permutation, _randint
from mj_core import lax
from mj_core.dtypes import float_info
from mj_core.extend import Array, ArrayLike
from mj_core.prims.elementwise import to_inexact_dtype

__all__ = ["choice"]


def choice(
    key: ArrayLike,
    a: int | ArrayLike,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: ArrayLike | None = None,
    axis: int = 0,
    mode: str | None = None,
) -> Array:
    """A random sample of ``a``'s slices along ``axis`` (or of ``range(a)`` for an int ``a``).

    Arguments:
        key: a PRNG key.
        a: an array, or an int ``n`` meaning ``arange(n)``.
        shape: the sample shape (a sequence); the result has shape ``shape`` for an int ``a``
            and ``a.shape[:axis] + shape + a.shape[axis + 1:]`` otherwise.
        replace: whether to sample with replacement.
        p: optional probabilities of the entries (1-D, ``a.shape[axis]`` long).
        axis: the axis of ``a`` to sample along.
        mode: ``None``, ``'low'`` or ``'high'``: the Gumbel sampler's precision when sampling
            without replacement with ``p`` (as ``jax.random.gumbel``'s ``mode``).
    """
    key = _check_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(_error("choice", f"shape must be a sequence, got {shape!r}"))
    if mode not in (None, "low", "high"):
        raise ValueError(_error("choice", f"mode must be None, 'low' or 'high', got {mode!r}"))
    shp = tuple(_operator_index(d) for d in shape)
    aval = _aval("choice", "a", a)
    if aval.shape:
        ndim = len(aval.shape)
        if not -ndim <= axis < ndim:
            raise ValueError(_error("choice", f"axis {axis} is out of range for {aval.shape}"))
        axis %= ndim
        n_inputs = aval.shape[axis]
    else:
        n_inputs = _operator_index(a)
    n_draws = math.prod(shp)
    if n_draws == 0:
        return mnp.zeros(shp, aval.dtype)
    if n_inputs <= 0:
        raise ValueError(_error("choice", "a must be greater than 0 unless no samples are taken"))
    if not replace and n_draws > n_inputs:
        raise ValueError(
            _error(
                "choice",
                f"cannot take a larger sample (size {n_draws}) than the population "
                f"(size {n_inputs}) when replace=False",
            )
        )
    if p is None and replace:
        lo, hi = np.asarray(0, _default_int()), np.asarray(n_inputs, _default_int())
        ind = _randint(key, shp, lo, hi, _default_int())
    elif p is None:
        population = a if aval.shape else n_inputs
        perm = _permutation(key, population, axis, False)
        result = lax.slice_in_dim(perm, 0, n_draws, axis=axis if aval.shape else 0)
        return _reshape(result, aval.shape, shp, axis)
    else:
        ind = _weighted(key, p, n_inputs, shp, n_draws, replace, mode)
    result = mnp.take(a, ind, axis) if aval.shape else ind
    return _reshape(result, aval.shape, shp, axis)


def _reshape(
    result: ArrayLike, a_shape: tuple[int, ...], shape: tuple[int, ...], axis: int
) -> Array:
    out = shape if not a_shape else (*a_shape[:axis], *shape, *a_shape[axis + 1 :])
    return lax.reshape(result, out)


@np.errstate(divide="ignore")  # log(0) = -inf for zero weights, silently as in JAX
def _weighted(
    key: ArrayLike,
    p: ArrayLike,
    n_inputs: int,
    shape: tuple[int, ...],
    n_draws: int,
    replace: bool,
    mode: str | None,
) -> Array:
    p_aval = _aval("choice", "p", p)
    if p_aval.shape != (n_inputs,):
        raise ValueError(
            _error(
                "choice",
                "p must be None or a 1-D vector with the same size as a.shape[axis]: "
                f"p has shape {p_aval.shape} and a.shape[axis] is {n_inputs}",
            )
        )
    dtype = to_inexact_dtype(p_aval.dtype)
    p = mnp.asarray(p, dtype)
    if replace:
        cdf = lax.cumsum(p, 0)
        total = lax.slice(cdf, (n_inputs - 1,), (n_inputs,))
        u = _uniform(key, shape, dtype, 0.0, 1.0)
        r = lax.mul(lax.reshape(total, ()), lax.sub(np.asarray(1.0, dtype), u))
        # searchsorted(cdf, r, side='left'): how many CDF values lie strictly below r
        below = lax.lt(mnp.expand_dims(cdf, tuple(range(len(shape)))), mnp.expand_dims(r, -1))
        return mnp.sum(below, axis=-1, dtype=_default_int())
    noise = (
        _gumbel_high(key, n_inputs, dtype) if mode == "high" else _gumbel(key, (n_inputs,), dtype)
    )
    g = lax.add(noise, lax.log(p))
    # top_k(g, n_draws) indices: descending g, ties to the lower index
    order = lax.sort((lax.neg(g), lax.iota(_default_int(), n_inputs)), num_keys=2)[1]
    return lax.slice(order, (0,), (n_draws,))


def _gumbel_high(key: ArrayLike, n: int, dtype: np.dtype[Any]) -> Array:
    """JAX's ``gumbel(mode='high')`` noise of shape ``(n,)``: two uniforms combined into one
    with twice the mantissa bits, so that tiny probabilities are not rounded away."""
    finfo = float_info(dtype)
    both = _uniform(key, (2, n), dtype, 0.0, 1.0)
    high, low = (lax.reshape(lax.slice_in_dim(both, i, i + 1, axis=0), (n,)) for i in (0, 1))
    scaled = lax.add(high, lax.mul(np.asarray(2.0**-finfo.nmant, dtype), low))
    x = lax.select(
        lax.ge(high, np.asarray(0.5, dtype)), high, lax.add(scaled, np.asarray(finfo.tiny, dtype))
    )
    return lax.neg(lax.log(lax.neg(lax.log1p(lax.neg(x)))))
