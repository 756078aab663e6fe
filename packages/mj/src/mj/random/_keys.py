"""Key-array utilities of ``mj.random`` (``key_impl``, ``wrap_key_data``, ``clone``).

mj's keys are raw ``uint32[..., 2]`` Threefry key data (JAX's legacy key representation;
there are no typed key arrays), so these functions check their argument and return it: they
exist so that JAX code calling them runs unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj._random_base import Array, _aval, _error

__all__ = ["clone", "key_impl", "wrap_key_data"]

_IMPL = "threefry2x32"


def _check_key_data(api: str, keys: Any) -> Array:
    aval = _aval(api, "the key data", keys)
    if aval.shape[-1:] != (2,) or aval.dtype != np.uint32:
        raise TypeError(
            _error(api, f"expected uint32 key data of shape (..., 2), got {aval.str_short()}")
        )
    return keys


def key_impl(keys: Array) -> str:
    """The PRNG implementation of ``keys``: always ``'threefry2x32'``, JAX's default."""
    _check_key_data("key_impl", keys)
    return _IMPL


def wrap_key_data(key_bits_array: Array, *, impl: Any = None, dtype: Any = None) -> Array:
    """Keys from raw key data (``uint32[..., 2]``); the data already is a key in mj.

    ``impl`` (or ``dtype``) may only name the default ``'threefry2x32'`` implementation.
    """
    if impl is not None and dtype is not None:
        raise ValueError(_error("wrap_key_data", "cannot specify both impl and dtype"))
    spec = impl if impl is not None else dtype
    if spec is not None and spec != _IMPL:
        raise ValueError(
            _error("wrap_key_data", f"only the {_IMPL!r} implementation exists, got {spec!r}")
        )
    return _check_key_data("wrap_key_data", key_bits_array)


def clone(key: Array) -> Array:
    """``key`` itself: JAX's marker for deliberate key reuse (mj does no key-reuse checks)."""
    return _check_key_data("clone", key)
