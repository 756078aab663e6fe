"""Keys of ``mj.random``: making them (``key`` for typed keys, ``PRNGKey`` for legacy raw
keys), deriving new ones (``split``, ``fold_in``) and the key-array utilities (``key_data``,
``key_impl``, ``wrap_key_data``, ``key_dtype``, ``clone``), as ``jax.random``'s.

``key(seed)`` is a typed key array (dtype ``key<fry>``, shape ``()``; see ``_keyarray``);
``PRNGKey(seed)`` is its raw ``uint32[2]`` data (JAX's legacy keys; typed with
``enable_custom_prng``). ``split`` and ``fold_in`` give keys of their argument's kind.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj.random import _threefry
from mj.random._args import Shape, _aval, _check_key, _error, _shape
from mj.random._keyarray import THREEFRY, PRNGImpl, PRNGKeyArray, PRNGKeyDtype
from mj_core import config
from mj_core.dtypes import is_integer
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike

__all__ = [
    "PRNGKey",
    "clone",
    "fold_in",
    "key",
    "key_data",
    "key_dtype",
    "key_impl",
    "split",
    "wrap_key_data",
]

#: JAX's PRNG implementations: mj has Threefry-2x32 (the default) only.
_JAX_IMPLS = ("philox2x32", "philox4x32", "threefry2x32", "rbg", "unsafe_rbg", "threefry4x32")


def _resolve_impl(api: str, impl: Any, dtype: Any = None) -> PRNGImpl:
    if impl is not None and dtype is not None:
        raise ValueError(_error(api, "Cannot specify both `impl` and `dtype`."))
    spec = impl if impl is not None else dtype
    if spec is None:
        return THREEFRY
    if isinstance(spec, PRNGKeyDtype):
        return spec._impl
    if isinstance(spec, PRNGImpl):
        return spec
    if isinstance(spec, str):
        if spec == THREEFRY.name:
            return THREEFRY
        if spec in _JAX_IMPLS:
            raise NotImplementedError(
                _error(api, f'PRNG implementation "{spec}": mj has only "{THREEFRY.name}"')
            )
        shown = ", ".join(f'"{n}"' for n in _JAX_IMPLS)
        raise ValueError(
            _error(api, f'unrecognized PRNG implementation "{spec}". Did you mean one of: {shown}?')
        )
    raise TypeError(
        _error(api, f"unrecognized type {type(spec)} for specifying PRNG implementation.")
    )


def _seed_data(api: str, seed: Any) -> Array:
    if isinstance(seed, PRNGKeyArray):
        raise TypeError(_error(api, f"{api} accepts a scalar seed, but was given a PRNG key."))
    if isinstance(seed, bool):
        raise TypeError(_error(api, "PRNG key seed must be an integer; got bool"))
    if isinstance(seed, int):
        if not -(2**63) <= seed < 2**64:
            raise OverflowError(_error(api, f"seed {seed} does not fit in 64 bits"))
        seed = np.int64(seed) if seed < 2**63 else np.uint64(seed)
    aval = _aval(api, "the seed", seed)
    if aval.shape:
        raise TypeError(
            _error(
                api,
                f"{api} accepts a scalar seed, but was given an array of shape {aval.shape} "
                "!= (). Use jax.vmap for batching",
            )
        )
    if not is_integer(aval.dtype):
        raise TypeError(_error(api, f"PRNG key seed must be an integer; got {aval.str_short()}"))
    return _threefry.seed(seed)


def key(seed: int | ArrayLike, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """A typed PRNG key (dtype ``key<fry>``, shape ``()``) from an integer seed.

    Arguments:
        seed: a Python int or an integer scalar array (may be traced; ``vmap`` over seeds
            gives a batch of keys).
        impl: the PRNG implementation, ``"threefry2x32"`` (the default, the only one in mj),
            or a key's ``key_impl``.
        dtype: alternatively, a key dtype (``key(0).dtype``); not both.
    """
    spec = _resolve_impl("key", impl, dtype)
    return PRNGKeyArray(spec, _seed_data("key", seed))


def PRNGKey(seed: int | ArrayLike, *, impl: Any = None) -> Array | PRNGKeyArray:  # noqa: N802
    """A legacy key from an integer seed: ``uint32[2]`` holding the seed's high and low 32
    bits (a typed key, as :func:`key`, when the ``enable_custom_prng`` option is on).

    Arguments:
        seed: a Python int or an integer scalar array (may be traced).
        impl: the PRNG implementation (only ``"threefry2x32"``).

    Returns:
        The key, e.g. ``PRNGKey(0)`` is ``[0, 0]`` and ``PRNGKey(2**32 + 5)`` is ``[1, 5]``.
    """
    spec = _resolve_impl("PRNGKey", impl)
    data = _seed_data("PRNGKey", seed)
    return PRNGKeyArray(spec, data) if config.enable_custom_prng else data


def key_data(keys: Any) -> AnyArray:
    """The ``uint32[..., 2]`` data of typed keys (a legacy raw key is returned as it is)."""
    if isinstance(keys, PRNGKeyArray):
        return keys._base_array
    return _check_key_data("key_data", keys)


def _wrap_like(keys: Any, data: AnyArray) -> Any:
    """``data`` as keys of the same kind as ``keys`` (typed, or raw legacy data)."""
    return PRNGKeyArray(keys._impl, data) if isinstance(keys, PRNGKeyArray) else data


def split(key: Any, num: int | Shape = 2) -> Any:
    """Split a key into ``num`` new independent keys (shape ``(num, 2)``; a tuple ``num``
    gives shape ``num + (2,)``). Unpack them: ``key, subkey = split(key)``."""
    data = _check_key("split", key)
    return _wrap_like(key, _threefry.split(data, _shape("split", num)))


def fold_in(key: Any, data: int | ArrayLike) -> Any:
    """A new key derived from ``key`` and the scalar ``data``, e.g. a step number or a device
    index: ``fold_in(key, i)`` gives a different key for every ``i``. ``data`` becomes a
    uint32 as ``jnp.uint32(data)`` makes it, as JAX's: a Python int must lie in
    ``[0, 2**32)`` (``OverflowError`` otherwise), arrays and floats convert (wrapping)."""
    import mj.numpy as mnp

    raw = _check_key("fold_in", key)
    value: Any = data
    shape = np.shape(value)
    if shape:
        raise TypeError(
            f"fold_in accepts a scalar, but was given an array of shape {shape} != (). Use "
            f"jax.vmap for batching.{user_line_suffix()}"
        )
    return _wrap_like(key, _threefry.fold_in(raw, mnp.uint32(value)))


def _check_key_data(api: str, keys: Any) -> AnyArray:
    aval = _aval(api, "the key data", keys)
    if aval.shape[-1:] != (2,) or aval.dtype != np.uint32:
        raise TypeError(
            _error(api, f"expected uint32 key data of shape (..., 2), got {aval.str_short()}")
        )
    return keys


def key_impl(keys: Any) -> str:
    """The PRNG implementation of ``keys`` (typed or raw): ``'threefry2x32'``, JAX's default
    and mj's only one. ``key(seed, impl=key_impl(k))`` makes keys like ``k``."""
    if isinstance(keys, PRNGKeyArray):
        return keys._impl.name
    _check_key_data("key_impl", keys)
    return THREEFRY.name


def key_dtype(impl: Any = None) -> PRNGKeyDtype:
    """The dtype of typed keys of ``impl`` (default ``'threefry2x32'``): ``key<fry>``."""
    return PRNGKeyDtype(_resolve_impl("key_dtype", impl))


def wrap_key_data(key_bits_array: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """Typed keys over raw key data (``uint32[..., 2]``, e.g. from :func:`key_data`): the
    inverse of ``key_data``. ``impl`` (or ``dtype``) may only name ``'threefry2x32'``."""
    spec = _resolve_impl("wrap_key_data", impl, dtype)
    if isinstance(key_bits_array, PRNGKeyArray):
        raise TypeError(_error("wrap_key_data", "expected raw key data, got a typed key array"))
    if isinstance(key_bits_array, np.ndarray | np.generic | list | tuple):
        import mj.numpy as mnp

        key_bits_array = mnp.asarray(key_bits_array)
    return PRNGKeyArray(spec, _check_key_data("wrap_key_data", key_bits_array))


def clone(key: Any) -> Any:
    """``key`` itself: JAX's marker for deliberate key reuse (mj does no key-reuse checks)."""
    if isinstance(key, PRNGKeyArray):
        return key
    return _check_key_data("clone", key)
