"""``interp``: one-dimensional piecewise-linear interpolation, with JAX's signature, dtypes
(``x`` and ``xp`` promoted together to an inexact dtype, ``fp`` to its own) and edge rules."""

from __future__ import annotations

import numpy as np

import mj_core.numpy as cnp
from mj_core.dtypes import float_info
from mj_core.extend import Array, ArrayLike, check_arraylike, promote_inexact
from mj_core.numpy import argsort, searchsorted

__all__ = ["interp"]


def _extrapolates(name: str, end: ArrayLike | str | None) -> bool:
    if not isinstance(end, str):
        return False
    if end != "extrapolate":
        raise ValueError(
            f"the only valid string value of `{name}` is 'extrapolate', but got: {end!r}"
        )
    return True


def interp(
    x: ArrayLike,
    xp: ArrayLike,
    fp: ArrayLike,
    left: ArrayLike | str | None = None,
    right: ArrayLike | str | None = None,
    period: ArrayLike | None = None,
) -> Array:
    """``fp`` at ``x``, linear between the increasing sample points ``xp``; outside them
    ``left``/``right`` (default: ``fp``'s first/last value; ``"extrapolate"`` continues the end
    segments). With ``period``, ``x`` and ``xp`` are taken modulo it (``left``/``right`` then
    never apply)."""
    check_arraylike("interp", [x, xp, fp])
    if cnp.shape(xp) != cnp.shape(fp) or cnp.ndim(xp) != 1:
        # JAX's message, exactly (JAX's test matches it literally)
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = (cnp.asarray(a) for a in promote_inexact(x, xp))  # indexable by traced indices
    fp = cnp.asarray(promote_inexact(fp)[0])
    _extrapolates("left", left)  # (validates: a str left or right is "extrapolate")
    _extrapolates("right", right)
    if x.dtype.kind == "c":
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        if cnp.ndim(period) != 0:
            raise ValueError(f"interp: period must be a scalar; got {period}")
        # a Python scalar stays one (weak, as JAX's abs keeps it): x's dtype decides
        period = abs(period) if isinstance(period, int | float) else cnp.abs(period)
        x, xp = cnp.remainder(x, period), cnp.remainder(xp, period)
        order = argsort(xp)
        xp, fp = xp[order], fp[order]
        xp = cnp.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = cnp.concatenate([fp[-1:], fp, fp[:1]])
    i = cnp.clip(searchsorted(xp, x, side="right"), 1, cnp.shape(xp)[0] - 1)
    dx = xp[i] - xp[i - 1]
    delta = x - xp[i - 1]
    tiny = np.spacing(float_info(xp.dtype).eps)
    flat = cnp.abs(dx) <= tiny  # repeated sample points: no NaN (nor NaN gradient) from 0/0
    slope = (delta / cnp.where(flat, 1, dx)) * (fp[i] - fp[i - 1])
    f = cnp.where(flat, fp[i - 1], fp[i - 1] + slope)
    if period is None and not isinstance(left, str):
        f = cnp.where(x < xp[0], fp[0] if left is None else left, f)
    if period is None and not isinstance(right, str):
        f = cnp.where(x > xp[-1], fp[-1] if right is None else right, f)
    return f
