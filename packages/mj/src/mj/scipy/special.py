"""``mj.scipy.special``: ``logsumexp``, ``erf``, ``erfinv``, ``expit``, ``logit``.

Built from mj primitives, so they differentiate, batch and compile like everything else.
"""

from __future__ import annotations

from typing import Any

from mj._special import erf_inv as erfinv
from mj.nn import logsumexp as logsumexp
from mj_core import lax

__all__ = ["erf", "erfinv", "expit", "logit", "logsumexp"]

Array = Any


def erf(x: Array) -> Array:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt``."""
    return lax.erf(x)


def expit(x: Array) -> Array:
    """The logistic sigmoid ``1 / (1 + exp(-x))``, computed without overflow."""
    return lax.logistic(x)


def logit(p: Array) -> Array:
    """The inverse of :func:`expit`: ``log(p / (1 - p))``."""
    return lax.sub(lax.log(p), lax.log1p(lax.neg(p)))
