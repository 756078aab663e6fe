"""``rng_bit_generator``: XLA's stateless ``RngBitGenerator`` (``jax.lax.rng_bit_generator``).

The primitive maps a key (``uint32[4]``, or JAX's older ``uint64[2]``) to the next key and an
array of random bits. It lowers to StableHLO ``rng_bit_generator`` (a ``uint32[4]`` key is
bitcast to the ``uint64[2]`` the op takes; ``uint8``/``uint16`` bits are drawn as ``uint32`` and
converted, as JAX does). Which bits come out is XLA's business (the algorithm is the
platform's), so the eager path does not reimplement it: its impl compiles the one primitive
(cached per key type and params) and runs it, giving exactly the bits of ``jit``. Under
``vmap`` the first key draws the bits of every batch element (JAX's batching rule: the bits
get a leading batch dimension, the other keys are passed through).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_batch.extend import Dims, RuleResult, Vals, move_batch_axis, not_mapped, vmap_rules
from mj_core import Primitive, ShapedArray, bind, get_aval, impl_rules
from mj_core.dtypes import check_user_dtype
from mj_core.errors import user_line_suffix
from mj_core.extend import abstract_eval_rules
from mj_core.prims.structural import concatenate, reshape, slice_in_dim
from mj_xla._executable import compiled_impl
from mj_xla._jaxlib import Value, hlo, ir
from mj_xla._lowering import Avals, LoweringContext, Values, aval_to_ir_type, lowering_rules
from mj_xla._sharding_constraint import with_sharding_constraint

__all__ = ["RandomAlgorithm", "rng_bit_generator", "rng_bit_generator_p"]

rng_bit_generator_p = Primitive("rng_bit_generator", multiple_results=True)

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
_BIT_DTYPES = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))


class RandomAlgorithm(enum.IntEnum):
    """Describes which PRNG algorithm to use for rng_bit_generator."""

    RNG_DEFAULT = 0
    "The platform's default algorithm."

    RNG_THREE_FRY = 1
    "The Threefry-2x32 PRNG algorithm."

    RNG_PHILOX = 2
    "The Philox-4x32 PRNG algorithm."

    def __str__(self) -> str:
        return self.name


def rng_bit_generator(
    key: Any,
    shape: Sequence[int],
    dtype: Any = np.uint32,
    algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT,
    *,
    out_sharding: Any = None,
) -> tuple[Any, Any]:
    """Stateless PRNG bit generator: ``(new_key, bits)``, ``bits`` uniformly distributed
    unsigned integers of ``shape`` and ``dtype`` drawn with ``algorithm`` (XLA's
    ``RngBitGenerator``); ``key`` is a ``uint32[4]`` (or ``uint64[2]``) array. ``out_sharding``
    lays the bits out (a sharding constraint)."""
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise TypeError(
            f"rng_bit_generator: shape must have non-negative dimensions, got {shape}"
            f"{user_line_suffix()}"
        )
    checked = check_user_dtype(dtype, "rng_bit_generator")
    if checked is None or checked not in _BIT_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {np.dtype(dtype)}")
    new_key, bits = bind(
        rng_bit_generator_p,
        key,
        shape=shape,
        dtype=checked,
        algorithm=RandomAlgorithm(algorithm),
    )
    if out_sharding is not None:
        bits = with_sharding_constraint(bits, out_sharding)
    return new_key, bits


def _abstract_eval(
    key: ShapedArray, *, shape: tuple[int, ...], dtype: np.dtype[Any], algorithm: RandomAlgorithm
) -> list[ShapedArray]:
    if not ((key.shape == (4,) and key.dtype == _U32) or (key.shape == (2,) and key.dtype == _U64)):
        raise TypeError(
            "rng_bit_generator: the key must be a uint32[4] (or uint64[2]) array, got "
            f"{key.str_short()}"
        )
    return [ShapedArray(key.shape, key.dtype, key.weak_type), ShapedArray(shape, dtype)]


_ALGORITHM_NAMES = {
    RandomAlgorithm.RNG_DEFAULT: "DEFAULT",
    RandomAlgorithm.RNG_THREE_FRY: "THREE_FRY",
    RandomAlgorithm.RNG_PHILOX: "PHILOX",
}


def _lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    shape: tuple[int, ...],
    dtype: np.dtype[Any],
    algorithm: RandomAlgorithm,
) -> list[Value]:
    """StableHLO ``rng_bit_generator`` on a ``uint64[2]`` key (a ``uint32[4]`` key is bitcast
    there and back); bits narrower than 32 bits are drawn as ``uint32`` and converted."""
    (key,) = in_vals
    (key_aval,) = avals_in
    u32_key = key_aval.dtype == _U32
    if u32_key:
        pairs = hlo.reshape(aval_to_ir_type(ShapedArray((2, 2), _U32)), key)
        u64 = ir.RankedTensorType.get([2], ir.IntegerType.get_unsigned(64))  # also without x64
        key = hlo.bitcast_convert(u64, pairs)
    drawn = dtype if dtype.itemsize >= 4 else _U32
    attr = hlo.RngAlgorithmAttr.get(_ALGORITHM_NAMES[algorithm])
    out_key, bits = hlo.RngBitGeneratorOp(
        key.type, aval_to_ir_type(ShapedArray(shape, drawn)), attr, key
    ).results
    if u32_key:
        pairs = hlo.bitcast_convert(aval_to_ir_type(ShapedArray((2, 2), _U32)), out_key)
        out_key = hlo.reshape(aval_to_ir_type(ShapedArray((4,), _U32)), pairs)
    if drawn != dtype:
        bits = hlo.convert(aval_to_ir_type(avals_out[1]), bits)
    return [out_key, bits]


def _batch(axis_size: int, vals: Vals, dims: Dims, **params: Any) -> RuleResult:
    """JAX's rule: the first key draws ``(batch, *shape)`` bits; the other keys are kept."""
    (keys,) = vals
    (dim,) = dims
    if dim is not_mapped:
        return list(bind(rng_bit_generator_p, keys, **params)), [not_mapped, not_mapped]
    keys = move_batch_axis(axis_size, dim, 0, keys)
    key_shape = get_aval(keys).shape[1:]
    flat_key = reshape(slice_in_dim(keys, 0, 1, axis=0), key_shape)
    shape = (axis_size, *params.pop("shape"))
    new_key, bits = bind(rng_bit_generator_p, flat_key, shape=shape, **params)
    rest = slice_in_dim(keys, 1, axis_size, axis=0)
    new_keys = concatenate([reshape(new_key, (1, *key_shape)), rest], 0)
    return [new_keys, bits], [0, 0]


impl_rules[rng_bit_generator_p] = compiled_impl(rng_bit_generator_p)
abstract_eval_rules[rng_bit_generator_p] = _abstract_eval
lowering_rules[rng_bit_generator_p] = _lowering
vmap_rules[rng_bit_generator_p] = _batch
