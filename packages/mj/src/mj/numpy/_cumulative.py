"""``nancumsum``/``nancumprod``: running sums and products that treat NaN as the identity
(0 or 1). Their dtypes follow ``jax.numpy``: integers keep their width, bools accumulate as
int64, an explicit ``dtype`` wins."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.dtypes import is_inexact
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike, DTypeLike, canonicalize_axis

__all__ = ["nancumprod", "nancumsum"]


def _nan_cumulative(
    name: str,
    scan: Callable[..., ArrayLike],
    identity: float,
    a: ArrayLike,
    axis: int | None,
    dtype: DTypeLike | None,
    out: None,
) -> Array:
    if out is not None:
        raise NotImplementedError(f"{name}: the out argument is not supported{user_line_suffix()}")
    a = cnp.asarray(a)
    if axis is None or cnp.ndim(a) == 0:
        a = cnp.ravel(a)
    ax = canonicalize_axis(name, 0 if axis is None else axis, cnp.ndim(a))
    if is_inexact(a.dtype):
        a = cnp.where(cnp.isnan(a), lax.full_like(a, identity), a)
    if dtype is None:
        result = np.dtype(np.int64) if a.dtype == np.bool_ else a.dtype
        compute = result
    else:
        result = np.dtype(dtype)
        compute = np.dtype(np.int64) if result == np.bool_ else result
        if result == np.bool_:
            a = lax.ne(a, lax.full_like(a, 0))
    out_ = scan(lax.convert_element_type(a, compute), ax)
    return lax.convert_element_type(out_, result)


def nancumsum(
    a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None, out: None = None
) -> Array:
    """The cumulative sum along ``axis`` (the flattened array when ``None``), NaNs as 0."""
    return _nan_cumulative("nancumsum", lax.cumsum, 0, a, axis, dtype, out)


def nancumprod(
    a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None, out: None = None
) -> Array:
    """The cumulative product along ``axis`` (the flattened array when ``None``), NaNs as 1."""
    return _nan_cumulative("nancumprod", lax.cumprod, 1, a, axis, dtype, out)
