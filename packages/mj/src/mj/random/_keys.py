"""Keys of ``mj.random``: making them (``PRNGKey``/``key``), deriving new ones (``split``,
``fold_in``) and the key-array utilities (``key_data``, ``key_impl``, ``wrap_key_data``,
``clone``).

mj's keys are raw ``uint32[..., 2]`` Threefry key data (JAX's legacy key representation;
there are no typed key arrays), so the utilities check their argument and return it: they
exist so that JAX code calling them runs unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj.random import _threefry
from mj.random._args import Shape, _aval, _check_key, _error, _shape
from mj_core.dtypes import is_integer
from mj_core.extend import AnyArray, Array, ArrayLike, DTypeLike

__all__ = [
    "PRNGKey",
    "clone",
    "fold_in",
    "key",
    "key_data",
    "key_impl",
    "split",
    "wrap_key_data",
]


def PRNGKey(seed: int | ArrayLike) -> Array:  # noqa: N802  (JAX's name)
    """A key from an integer seed: ``uint32[2]`` holding the seed's high and low 32 bits.

    Arguments:
        seed: a Python int or an integer scalar array (may be traced).

    Returns:
        The key, e.g. ``PRNGKey(0)`` is ``[0, 0]`` and ``PRNGKey(2**32 + 5)`` is ``[1, 5]``.
    """
    if isinstance(seed, bool):
        raise TypeError(_error("PRNGKey", "the seed must be an integer, got bool"))
    if isinstance(seed, int):
        if not -(2**63) <= seed < 2**64:
            raise OverflowError(_error("PRNGKey", f"seed {seed} does not fit in 64 bits"))
        seed = np.int64(seed) if seed < 2**63 else np.uint64(seed)
    _aval("PRNGKey", "the seed", seed)
    try:
        return _threefry.seed(seed)
    except TypeError as err:
        raise TypeError(_error("PRNGKey", str(err).removeprefix("PRNGKey: "))) from None


key = PRNGKey


def key_data(keys: AnyArray) -> AnyArray:
    """The raw ``uint32`` data of keys; mj's keys are already raw data, so this is identity."""
    return keys


def split(key: ArrayLike, num: int | Shape = 2) -> Array:
    """Split a key into ``num`` new independent keys (shape ``(num, 2)``; a tuple ``num``
    gives shape ``num + (2,)``). Unpack them: ``key, subkey = split(key)``."""
    _check_key("split", key)
    return _threefry.split(key, _shape("split", num))


def fold_in(key: ArrayLike, data: int | ArrayLike) -> Array:
    """A new key derived from ``key`` and the integer ``data`` (taken modulo 2**32), e.g. a
    step number or a device index: ``fold_in(key, i)`` gives a different key for every ``i``."""
    _check_key("fold_in", key)
    aval = _aval("fold_in", "data", data)
    if aval.shape:
        raise TypeError(
            _error("fold_in", f"data must be a scalar, got shape {aval.shape}; use mj.vmap")
        )
    if not (is_integer(aval.dtype) or aval.dtype == np.bool_):
        raise TypeError(_error("fold_in", f"data must be an integer, got {aval.dtype.name}"))
    if isinstance(data, int):
        data = np.uint32(data % 2**32)
    return _threefry.fold_in(key, data)


_IMPL = "threefry2x32"


def _check_key_data(api: str, keys: Any) -> AnyArray:
    aval = _aval(api, "the key data", keys)
    if aval.shape[-1:] != (2,) or aval.dtype != np.uint32:
        raise TypeError(
            _error(api, f"expected uint32 key data of shape (..., 2), got {aval.str_short()}")
        )
    return keys


def key_impl(keys: ArrayLike) -> str:
    """The PRNG implementation of ``keys``: always ``'threefry2x32'``, JAX's default."""
    _check_key_data("key_impl", keys)
    return _IMPL


def wrap_key_data(
    key_bits_array: AnyArray, *, impl: Any = None, dtype: DTypeLike | None = None
) -> AnyArray:
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


def clone(key: AnyArray) -> AnyArray:
    """``key`` itself: JAX's marker for deliberate key reuse (mj does no key-reuse checks)."""
    return _check_key_data("clone", key)
