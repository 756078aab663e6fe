"""The Threefry-2x32 counter-based PRNG, built from core primitives.

A key is two ``uint32`` words. Everything random is a pure function of a key and a counter:
``threefry2x32(k1, k2, x1, x2)`` hashes the 64-bit counter ``(x1, x2)`` under the key (Salmon
et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011: 20 rounds, 5 key injections).
Seeding, splitting, folding in data and drawing bits follow JAX 0.10.2's default
(``jax_threefry_partitionable``) scheme exactly, so every key and bit matches JAX's.

The hash is one primitive, ``threefry2x32`` (JAX's ``threefry2x32_p``, in the elementwise
family: a NumPy impl, broadcasting batching, zero derivative), so keys and samples work under
``jit``, ``vmap``, ``make_jaxpr`` and inside control flow, and ``jit`` emits the hash once per
module as a private function with its rounds in a loop instead of ~100 operations per use.
"""

from __future__ import annotations

import math

import numpy as np

from mj_core import get_aval, lax
from mj_core.dtypes import is_integer
from mj_core.extend import AnyArray, Array, ArrayLike

__all__ = ["fold_in", "random_bits", "seed", "split", "threefry2x32", "unstack_keys"]


_U32 = np.dtype(np.uint32)
_UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: _U32, 64: np.dtype(np.uint64)}


def threefry2x32(k1: ArrayLike, k2: ArrayLike, x1: ArrayLike, x2: ArrayLike) -> tuple[Array, Array]:
    """Hash the counters ``(x1, x2)`` (uint32, broadcast together) under the key ``(k1, k2)``."""
    return lax.threefry2x32(k1, k2, x1, x2)


def _key_words(key: ArrayLike) -> tuple[Array, Array]:
    words = [lax.reshape(lax.slice(key, (i,), (i + 1,)), ()) for i in (0, 1)]
    return words[0], words[1]


def _stack_words(w1: ArrayLike, w2: ArrayLike) -> Array:
    """``(..., 2)`` keys from the two words, each of shape ``(...)``."""
    shape = tuple(get_aval(w1).shape)
    parts = [lax.reshape(w, (*shape, 1)) for w in (w1, w2)]
    return lax.concatenate(parts, len(shape))


def _counters(shape: tuple[int, ...]) -> tuple[AnyArray, AnyArray]:
    """The 64-bit counters ``0 .. prod(shape)-1`` laid out in ``shape``, as (hi, lo) words.

    The high words are all zero below 2**32 elements, so a scalar stands in for them (it
    broadcasts in the first round of the hash)."""
    size = math.prod(shape)
    if size >= 2**32:
        raise NotImplementedError(f"random bits for {size} elements (at most 2**32 - 1)")
    lo = lax.iota(_U32, size)
    if shape != (size,):
        lo = lax.reshape(lo, shape)
    return np.uint32(0), lo


def seed(seed_value: ArrayLike) -> Array:
    """The key of an integer seed: ``[seed >> 32, seed & 0xFFFFFFFF]`` as uint32 words."""
    aval = get_aval(seed_value)
    if aval.shape:
        raise TypeError(f"PRNGKey: the seed must be a scalar, got shape {aval.shape}")
    if not is_integer(aval.dtype):
        raise TypeError(f"PRNGKey: the seed must be an integer, got {aval.dtype.name}")
    hi = lax.shift_right_logical(seed_value, 32)
    low_bits = np.array(0xFFFFFFFF, np.uint64).astype(aval.dtype)  # (-1 for 32-bit seeds)
    lo = lax.bitwise_and(seed_value, low_bits)
    words = [lax.reshape(lax.convert_element_type(w, _U32), (1,)) for w in (hi, lo)]
    return lax.concatenate(words, 0)


def split(key: ArrayLike, shape: tuple[int, ...]) -> Array:
    """``shape + (2,)`` new keys: key ``i`` hashes the counter ``i`` (fold-in style)."""
    k1, k2 = _key_words(key)
    hi, lo = _counters(shape)
    return _stack_words(*threefry2x32(k1, k2, hi, lo))


def fold_in(key: ArrayLike, data: ArrayLike) -> Array:
    """A new key that is a deterministic function of ``key`` and the 32-bit ``data``."""
    k1, k2 = _key_words(key)
    data = lax.convert_element_type(data, _U32)
    w1, w2 = threefry2x32(k1, k2, np.uint32(0), data)
    return _stack_words(w1, w2)


def random_bits(key: ArrayLike, bit_width: int, shape: tuple[int, ...]) -> Array:
    """Uniform unsigned integers of ``bit_width`` bits in ``shape``: one hash per element."""
    k1, k2 = _key_words(key)
    hi, lo = _counters(shape)
    b1, b2 = threefry2x32(k1, k2, hi, lo)
    dtype = _UINT_DTYPES[bit_width]
    if bit_width == 64:
        high = lax.convert_element_type(b1, dtype)
        low = lax.convert_element_type(b2, dtype)
        return lax.bitwise_or(lax.shift_left(high, np.uint64(32)), low)
    bits = lax.bitwise_xor(b1, b2)
    return bits if bit_width == 32 else lax.convert_element_type(bits, dtype)


def unstack_keys(keys: ArrayLike) -> list[Array]:
    """The keys of a ``(n, 2)`` key array, as a list of ``(2,)`` keys."""
    n = get_aval(keys).shape[0]
    return [lax.reshape(lax.slice(keys, (i, 0), (i + 1, 2)), (2,)) for i in range(n)]
