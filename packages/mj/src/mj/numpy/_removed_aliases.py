"""NumPy names that NumPy 2 and JAX have since removed, kept because seed 004's ``jax.numpy``
reference documents them: each is the same computation as the name it aliased."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj_core.extend import Array, ArrayLike
from mj_core.numpy import sort

__all__ = ["alltrue", "cumproduct", "issubsctype", "msort", "product", "sometrue"]

alltrue = cnp.all
sometrue = cnp.any
product = cnp.prod
cumproduct = cnp.cumprod


def msort(a: ArrayLike) -> Array:
    """``a`` sorted along its first axis (NumPy 1's ``msort``, ``sort(a, axis=0)``)."""
    return sort(a, axis=0)


def _scalar_type(x: Any) -> type[np.generic]:
    """The NumPy scalar type of a dtype-like, a scalar type (abstract ones such as
    ``np.floating`` included), or an array's dtype."""
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    dtype = None if isinstance(x, type) else getattr(x, "dtype", None)
    scalar: type[np.generic] = np.dtype(x if dtype is None else dtype).type
    return scalar


def issubsctype(arg1: Any, arg2: Any) -> builtins.bool:
    """Whether ``arg1``'s scalar type is a subclass of ``arg2``'s (NumPy 1's
    ``issubsctype``: arrays stand for their dtype)."""
    return issubclass(_scalar_type(arg1), _scalar_type(arg2))
