"""JAX's type promotion lattice: the one place mj decides the dtype of mixed operands.

The nodes are the dtypes JAX supports plus three *weak* nodes, the Python types ``int``,
``float`` and ``complex``, standing for Python scalars and ``weak_type`` values. Each node
lists the nodes immediately above it; the result of promoting several operands is their least
upper bound. This is why ``int32 + float32`` is ``float32`` (not NumPy's ``float64``),
``bfloat16 + float16`` is ``float32``, and ``float32_array * 2.0`` stays ``float32``: a weak
float sits below every concrete float. Sub-byte integers and the float8/6/4 formats have no
edges above them: they never promote implicitly (JAX raises :class:`TypePromotionError`).

Without 64-bit mode the one edge that would form a 64-bit type from 32-bit operands
(``uint32 x int32 -> int64``) is replaced by ``uint32 x int32 -> int32``, as in JAX.

With ``config.numpy_dtype_promotion = "strict"`` the lattice is JAX's strict one: the weak
nodes lead to every dtype of their kind (and ``int`` to ``float``, ``float`` to ``complex``),
and no concrete dtype leads anywhere, so only weak operands ever promote.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, TypeAlias

import ml_dtypes
import numpy as np

from mj_core._config import config
from mj_core._typing import DType, DTypeLike

__all__ = [
    "TypePromotionError",
    "canonicalize_dtype",
    "default_dtype",
    "kind",
    "lattice_result_type",
    "promote_types",
    "result_type",
]

#: A lattice node: a concrete dtype, or one of the weak Python types int/float/complex.
Node: TypeAlias = Any


class TypePromotionError(ValueError):
    """Operands whose dtypes have no implicit promotion path (e.g. float8 with float16)."""


def _dt(t: Any) -> DType:
    dtype: DType = np.dtype(t)
    return dtype


BOOL = _dt(np.bool_)
UNSIGNED_SUBBYTE = tuple(_dt(t) for t in (ml_dtypes.uint1, ml_dtypes.uint2, ml_dtypes.uint4))
SIGNED_SUBBYTE = tuple(_dt(t) for t in (ml_dtypes.int1, ml_dtypes.int2, ml_dtypes.int4))
U8, U16, U32, U64 = (_dt(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
I8, I16, I32, I64 = (_dt(t) for t in (np.int8, np.int16, np.int32, np.int64))
#: The low-precision floats that never promote implicitly (JAX's "custom floats" minus bf16).
SMALL_FLOATS = tuple(
    _dt(t)
    for t in (
        ml_dtypes.float4_e2m1fn,
        ml_dtypes.float6_e2m3fn,
        ml_dtypes.float6_e3m2fn,
        ml_dtypes.float8_e3m4,
        ml_dtypes.float8_e4m3,
        ml_dtypes.float8_e4m3b11fnuz,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e4m3fnuz,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e5m2fnuz,
        ml_dtypes.float8_e8m0fnu,
    )
)
BF16 = _dt(ml_dtypes.bfloat16)
F16, F32, F64 = (_dt(t) for t in (np.float16, np.float32, np.float64))
C64, C128 = _dt(np.complex64), _dt(np.complex128)

#: Every dtype an mj array may have (JAX's set; no strings, objects or datetimes).
_INTEGERS = (*UNSIGNED_SUBBYTE, *SIGNED_SUBBYTE, U8, U16, U32, U64, I8, I16, I32, I64)
SUPPORTED_DTYPES: frozenset[DType] = frozenset(
    (BOOL, *_INTEGERS, *SMALL_FLOATS, BF16, F16, F32, F64, C64, C128)
)
#: Floats that weak-type as ``float`` although ``dtype.type(0).item()`` is not a float.
_CUSTOM_FLOATS: frozenset[DType] = frozenset((*SMALL_FLOATS, BF16))


def _lattice(x64: bool) -> dict[Node, list[Node]]:
    """Each node mapped to the nodes immediately above it (JAX's standard lattice)."""
    out: dict[Node, list[Node]] = {
        BOOL: [int],
        int: [U8, *UNSIGNED_SUBBYTE, I8, *SIGNED_SUBBYTE],
        **{t: [] for t in (*UNSIGNED_SUBBYTE, *SIGNED_SUBBYTE, *SMALL_FLOATS)},
        U8: [I16, U16],
        U16: [I32, U32],
        U32: [I64, U64] if x64 else [I32, U64],
        U64: [float],
        I8: [I16],
        I16: [I32],
        I32: [I64],
        I64: [float],
        float: [*SMALL_FLOATS, BF16, F16, complex],
        BF16: [F32],
        F16: [F32],
        F32: [F64, C64],
        F64: [C128],
        complex: [C64],
        C64: [C128],
        C128: [],
    }
    return out


def _strict_lattice() -> dict[Node, list[Node]]:
    """JAX's strict lattice: weak types promote within their kind, nothing else promotes."""
    out: dict[Node, list[Node]] = {t: [] for t in SUPPORTED_DTYPES}
    out[int] = [float, *_INTEGERS]
    out[float] = [complex, *SMALL_FLOATS, BF16, F16, F32, F64]
    out[complex] = [C64, C128]
    return out


def _upper_bounds(x64: bool, strict: bool = False) -> dict[Node, frozenset[Node]]:
    """The reflexive-transitive closure of the lattice: every node above each node."""
    lattice = _strict_lattice() if strict else _lattice(x64)
    bounds: dict[Node, set[Node]] = {node: {node} for node in lattice}
    for node, above in bounds.items():
        frontier = list(lattice[node])
        while frontier:
            nxt = frontier.pop()
            if nxt not in above:
                above.add(nxt)
                frontier.extend(lattice[nxt])
    return {node: frozenset(above) for node, above in bounds.items()}


_UPPER_BOUNDS = {True: _upper_bounds(True), False: _upper_bounds(False)}
_STRICT_UPPER_BOUNDS = _upper_bounds(False, strict=True)


#: JAX's refusal of a float0 operand (``lax.unop_dtype_rule``), which mj's errors start with
FLOAT0_REFUSAL = (
    "float0s do not support any operations by design, because they are not compatible with "
    "non-trivial vector spaces. No implicit dtype conversion is done. You can use "
    "np.zeros_like(arr, dtype=np.float) to cast a float0 array to a regular zeros array. \n"
    "If you didn't expect to get a float0 you might have accidentally taken a gradient with "
    "respect to an integer argument."
)


def _node_name(node: Node) -> str:
    return node.__name__ if isinstance(node, type) else str(node)


def _least_upper_bound(x64: bool, nodes: frozenset[Node]) -> Node:
    return _bound(x64, config.numpy_dtype_promotion == "strict", nodes)


@functools.lru_cache(maxsize=1024)
def _bound(x64: bool, strict: bool, nodes: frozenset[Node]) -> Node:
    upper = _STRICT_UPPER_BOUNDS if strict else _UPPER_BOUNDS[x64]
    try:
        bounds = [upper[n] for n in nodes]
    except KeyError:
        bad = next(n for n in nodes if n not in upper)
        if _node_name(bad) == str(np.dtype([("float0", "V")])):  # JAX's wording (lax.py)
            raise TypeError(FLOAT0_REFUSAL) from None
        raise TypeError(
            f"dtype {_node_name(bad)} is not a valid dtype for type promotion"
        ) from None
    common = frozenset.intersection(*bounds)
    least = (common & nodes) or {c for c in common if common <= upper[c]}
    if len(least) == 1:
        return next(iter(least))
    names = tuple(_node_name(n) for n in sorted(nodes, key=_node_name))
    if strict:
        raise TypePromotionError(
            f"Input dtypes {names} have no available implicit dtype promotion path when "
            "jax_numpy_dtype_promotion=strict. Try explicitly casting inputs to the desired "
            "output type, or set jax_numpy_dtype_promotion=standard."
        )
    if any(n in _CUSTOM_FLOATS and n != BF16 for n in nodes):
        why = "low-precision floats (float8/float6/float4) do not promote implicitly"
    elif any(n in UNSIGNED_SUBBYTE or n in SIGNED_SUBBYTE for n in nodes):
        why = "1-, 2- and 4-bit integers do not promote implicitly"
    else:  # pragma: no cover - the lattice has a unique bound for every other set
        why = "the promotion lattice has no unique least upper bound"
    raise TypePromotionError(
        f"Input dtypes {names} have no available implicit dtype promotion path: {why}. "
        "Cast the inputs explicitly, e.g. x.astype('float32')."
    )


_TO_32 = {I64: I32, U64: U32, F64: F32, C128: C64}


def canonicalize_dtype(dtype: DTypeLike | None, x64: bool) -> DType:
    """The dtype an array of ``dtype`` gets: 64-bit types narrow to 32 bits unless ``x64``."""
    dt = _dt(dtype)
    return dt if x64 else _TO_32.get(dt, dt)


_DEFAULTS = {
    True: {"b": BOOL, "i": I64, "u": U64, "f": F64, "c": C128},
    False: {"b": BOOL, "i": I32, "u": U32, "f": F32, "c": C64},
}


def default_dtype(kind: str, x64: bool) -> DType:
    """The default dtype of a kind (``'b'``, ``'i'``, ``'u'``, ``'f'``, ``'c'``)."""
    return _DEFAULTS[x64][kind]


_WEAK_NODE = {"b": BOOL, "i": int, "u": int, "f": float, "c": complex}


def _node(dtype: DType, weak: bool) -> Node:
    if not weak:
        return dtype
    return float if dtype in _CUSTOM_FLOATS else _WEAK_NODE[dtype.kind]


def _node_dtype(node: Node, x64: bool) -> DType:
    if node is int:
        return default_dtype("i", x64)
    if node is float:
        return default_dtype("f", x64)
    if node is complex:
        return default_dtype("c", x64)
    return node  # type: ignore[no-any-return]


def lattice_result_type(pairs: Iterable[tuple[DType, bool]], x64: bool) -> tuple[DType, bool]:
    """Promote ``(dtype, weak_type)`` pairs on the lattice, as JAX's ``lattice_result_type``."""
    items = tuple(pairs)
    if not items:
        raise ValueError("at least one array or dtype is required")
    if len(items) == 1:
        dtype, weak = items[0]
    else:
        dtypes = {dt for dt, _ in items}
        all_weak = all(w for _, w in items)
        if len(dtypes) == 1 and not all_weak:
            dtype, weak = items[0][0], False
        elif all_weak and config.numpy_dtype_promotion != "strict":
            # All weak: bound the strong counterparts, then mark the result weak (JAX does this
            # so that e.g. two weak int16 values do not produce a non-canonical weak type;
            # the strict lattice bounds the weak nodes themselves, below).
            node = _least_upper_bound(x64, frozenset(dtypes))
            dtype, weak = canonicalize_dtype(_node_dtype(node, x64), x64), True
        else:
            node = _least_upper_bound(x64, frozenset(_node(dt, w) for dt, w in items))
            dtype = canonicalize_dtype(_node_dtype(node, x64), x64)
            weak = node is int or node is float or node is complex
    return dtype, weak and dtype != BOOL


def result_type(pairs: Iterable[tuple[DType, bool]], x64: bool) -> tuple[DType, bool]:
    """The dtype NumPy-level functions compute in, and whether the result is weakly typed.

    As ``jax.numpy.result_type(..., return_weak_type_flag=True)``: a weak result takes the
    default dtype of its kind (so ``2 * 3.0`` is a weak float32 without x64, float64 with it).
    """
    dtype, weak = lattice_result_type(pairs, x64)
    if weak:
        dtype = default_dtype("f" if dtype in _CUSTOM_FLOATS else dtype.kind, x64)
    return dtype, weak


def kind(dtype: DType) -> str:
    """``dtype``'s NumPy kind, with bfloat16 and the float8 types as floats ("f", not "V")."""
    return "f" if dtype in _CUSTOM_FLOATS else dtype.kind


def promote_types(a: Any, b: Any, x64: bool) -> DType:
    """``jnp.promote_types``: the strong result of two dtypes (Python types count as weak)."""
    nodes = frozenset(
        t if any(t is w for w in (int, float, complex)) else np.dtype(t) for t in (a, b)
    )
    return _dt(_least_upper_bound(x64, nodes))
