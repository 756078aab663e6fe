"""The Python Array API standard's spellings that ``jax.numpy`` exports next to NumPy's:
the short trigonometric names, ``pow``, ``concat``, ``permute_dims``/``matrix_transpose``,
the ``bitwise_*`` shifts and ``bitwise_count``, the batched contractions ``vecdot``/``matvec``/
``vecmat``, ``unstack``, ``cumulative_sum``/``cumulative_prod`` (with ``include_initial``) and
``copy``. Where the standard's rules differ from NumPy's (explicit ``axis`` for N-d cumulative
sums, no integer widening in ``cumulative_prod``, exact permutations) they follow JAX."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import mj_core.numpy as cnp
from mj.numpy import _placement
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    AnyArray,
    Array,
    ArrayLike,
    DTypeLike,
    canonicalize_axis,
    check_arraylike,
    check_ranks,
    dtype_weak,
    promote,
)
from mj_core.lax import PrecisionLike

__all__ = [
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_count",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "concat",
    "copy",
    "cumulative_prod",
    "cumulative_sum",
    "matrix_transpose",
    "matvec",
    "permute_dims",
    "pow",
    "unstack",
    "vecdot",
    "vecmat",
]


# The standard's names are NumPy's functions under another spelling, as in jax.numpy.
acos = cnp.arccos
acosh = cnp.arccosh
asin = cnp.arcsin
asinh = cnp.arcsinh
atan = cnp.arctan
atan2 = cnp.arctan2
atanh = cnp.arctanh
pow = cnp.power


def concat(arrays: Sequence[ArrayLike], /, *, axis: int | None = 0) -> Array:
    """Join ``arrays`` along ``axis`` (``None``: flattened first); lists are not arrays."""
    check_arraylike("concat", list(arrays))
    return cnp.concatenate(arrays, axis=axis)


def permute_dims(a: ArrayLike, /, axes: tuple[int, ...]) -> Array:
    """``a`` with its axes reordered; ``axes`` must be a permutation of ``range(a.ndim)``
    (no negative axes, as in JAX)."""
    check_arraylike("permute_dims", [a])
    nd = cnp.ndim(a)
    perm = tuple(operator.index(i) for i in axes)
    if sorted(perm) != list(range(nd)):
        raise TypeError(
            f"permute_dims: axes must be a permutation of range({nd}) for an array of shape "
            f"{cnp.shape(a)}, got {perm}{user_line_suffix()}"
        )
    return lax.transpose(a, perm)


def matrix_transpose(x: ArrayLike, /) -> Array:
    """Swap the last two axes (a stack of matrices transposed)."""
    check_arraylike("matrix_transpose", [x])
    nd = cnp.ndim(x)
    if nd < 2:
        raise ValueError(
            f"matrix_transpose: x must be at least two-dimensional, got shape {cnp.shape(x)}"
            f"{user_line_suffix()}"
        )
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _integer_operands(name: str, *xs: ArrayLike) -> list[Array]:
    """``xs`` promoted together, bools as int32 (JAX's numeric promotion); floats refused."""
    out = promote(*xs)
    dtype, _ = dtype_weak(out[0])
    if dtype.kind == "b":
        return [lax.convert_element_type(x, np.int32) for x in out]
    if dtype.kind not in "iu":
        raise TypeError(
            f"{name}: expected integer or bool operands, got {dtype}{user_line_suffix()}"
        )
    return out


def bitwise_left_shift(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``x1 << x2`` for integers."""
    check_ranks("bitwise_left_shift", x1, x2)
    return lax.shift_left(*_integer_operands("bitwise_left_shift", x1, x2))


def bitwise_right_shift(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """``x1 >> x2``: arithmetic for signed integers, logical for unsigned ones."""
    return cnp.right_shift(*_integer_operands("bitwise_right_shift", x1, x2))


# SWAR population count: the masks of 2-, 4- and 8-bit fields, for every unsigned width
_POPCOUNT_MASKS = (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F)
_BYTE_ONES = 0x0101010101010101


def bitwise_count(x: ArrayLike, /) -> Array:
    """The number of 1 bits in ``|x|`` (NumPy's rule for negative integers), as uint8."""
    x = cnp.asarray(x)
    dtype, _ = dtype_weak(x)
    if dtype.kind == "b":
        return lax.convert_element_type(x, np.uint8)
    if dtype.kind not in "iu":
        raise TypeError(
            f"bitwise_count: expected integer or bool input, got {dtype}{user_line_suffix()}"
        )
    bits = dtype.itemsize * 8
    udt = np.dtype(f"uint{bits}")
    v = lax.bitcast_convert_type(cnp.abs(x), udt)
    m1, m2, m4 = (np.array(m & ((1 << bits) - 1), udt) for m in _POPCOUNT_MASKS)
    v = lax.sub(v, lax.bitwise_and(lax.shift_right_logical(v, np.array(1, udt)), m1))
    v = lax.add(
        lax.bitwise_and(v, m2), lax.bitwise_and(lax.shift_right_logical(v, np.array(2, udt)), m2)
    )
    v = lax.bitwise_and(lax.add(v, lax.shift_right_logical(v, np.array(4, udt))), m4)
    if bits > 8:  # add up the per-byte counts into the top byte
        ones = np.array(_BYTE_ONES & ((1 << bits) - 1), udt)
        v = lax.shift_right_logical(lax.mul(v, ones), np.array(bits - 8, udt))
    return lax.convert_element_type(v, np.uint8)


def _core_dims(name: str, a: ArrayLike, core: int, what: str) -> tuple[int, ...]:
    shape = cnp.shape(a)
    if len(shape) < core:
        raise ValueError(
            f"{name}: {what} must have at least {core} dimension(s), got shape {shape}"
            f"{user_line_suffix()}"
        )
    return shape


def _batched_dot(
    name: str,
    x1: ArrayLike,
    x2: ArrayLike,
    core1: tuple[int, ...],
    core2: tuple[int, ...],
    contract: tuple[int, int],
    **dot_kw: Any,
) -> Array:
    """``dot_general`` of ``x1`` and ``x2`` over broadcast leading (batch) dimensions; each
    operand keeps its trailing ``core`` dimensions, ``contract`` indexes into them."""
    s1, s2 = cnp.shape(x1), cnp.shape(x2)
    n1, n2 = len(s1) - len(core1), len(s2) - len(core2)
    if core1[contract[0]] != core2[contract[1]]:
        raise ValueError(
            f"{name}: the contracted dimensions differ: shapes {s1} and {s2}{user_line_suffix()}"
        )
    batch = cnp.broadcast_shapes(s1[:n1], s2[:n2])
    x1, x2 = promote(cnp.broadcast_to(x1, batch + core1), cnp.broadcast_to(x2, batch + core2))
    b = len(batch)
    dims = (((b + contract[0],), (b + contract[1],)), (tuple(range(b)), tuple(range(b))))
    return lax.dot_general(x1, x2, dims, **dot_kw)


def vecdot(
    x1: ArrayLike,
    x2: ArrayLike,
    /,
    *,
    axis: int = -1,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """``sum(conj(x1) * x2)`` along ``axis``, batched over the other (broadcast) axes."""
    check_arraylike("vecdot", [x1, x2])
    x1, x2 = cnp.asarray(x1), cnp.asarray(x2)
    x1 = cnp.moveaxis(x1, canonicalize_axis("vecdot", axis, cnp.ndim(x1)), -1)
    x2 = cnp.moveaxis(x2, canonicalize_axis("vecdot", axis, cnp.ndim(x2)), -1)
    x1 = cnp.conj(x1)
    kw = {"precision": precision, "preferred_element_type": preferred_element_type}
    return _batched_dot("vecdot", x1, x2, cnp.shape(x1)[-1:], cnp.shape(x2)[-1:], (0, 0), **kw)


def matvec(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Matrix-vector products ``x1[..., n, m] @ x2[..., m]`` over broadcast batch axes."""
    check_arraylike("matvec", [x1, x2])
    s1 = _core_dims("matvec", x1, 2, "x1 (a stack of matrices)")
    s2 = _core_dims("matvec", x2, 1, "x2 (a stack of vectors)")
    return _batched_dot("matvec", x1, x2, s1[-2:], s2[-1:], (1, 0))


def vecmat(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Vector-matrix products ``conj(x1[..., n]) @ x2[..., n, m]`` over broadcast batch axes."""
    check_arraylike("vecmat", [x1, x2])
    s1 = _core_dims("vecmat", x1, 1, "x1 (a stack of vectors)")
    s2 = _core_dims("vecmat", x2, 2, "x2 (a stack of matrices)")
    return _batched_dot("vecmat", cnp.conj(x1), x2, s1[-1:], s2[-2:], (0, 0))


def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[Array, ...]:
    """The slices of ``x`` along ``axis``, as a tuple."""
    check_arraylike("unstack", [x])
    ax = canonicalize_axis("unstack", axis, cnp.ndim(x))
    n = cnp.shape(x)[ax]
    return tuple(lax.index_in_dim(x, i, ax, keepdims=False) for i in range(n))


def _widened(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The default integer for bools and narrower integers (JAX's integer promotion)."""
    if dtype.kind == "b":
        return np.dtype(np.int64)
    if dtype.kind in "iu" and dtype.itemsize < 8:
        return np.dtype(np.uint64 if dtype.kind == "u" else np.int64)
    return dtype


def _cumulative(
    name: str,
    scan: Callable[[ArrayLike, int], ArrayLike],
    identity: int,
    x: ArrayLike,
    axis: int | None,
    dtype: DTypeLike | None,
    include_initial: bool,
    widen_integers: bool,
) -> Array:
    check_arraylike(name, [x])
    x = cnp.asarray(x)
    nd = cnp.ndim(x)
    if nd == 0:
        raise ValueError(f"{name}: the input must not be a scalar{user_line_suffix()}")
    if axis is None:
        if nd > 1:
            raise ValueError(
                f"{name}: axis is required for an input of rank {nd} (shape {cnp.shape(x)}); "
                f"it may be omitted only for one-dimensional input{user_line_suffix()}"
            )
        axis = 0
    ax = canonicalize_axis(name, axis, nd)
    src, _ = dtype_weak(x)
    if dtype is None:
        result = _widened(src) if widen_integers or src.kind == "b" else src
        compute = result
    else:
        result = compute = np.dtype(dtype)
        if result.kind == "b":  # accumulate as integers; e.g. [-1, 1] must not cancel out
            compute = _widened(result)
            x = x if src.kind == "b" else lax.ne(x, lax.full_like(x, 0))
    out = lax.convert_element_type(scan(lax.convert_element_type(x, compute), ax), result)
    if include_initial:
        shape = list(cnp.shape(x))
        shape[ax] = 1
        out = lax.concatenate([lax.full(tuple(shape), identity, result), out], ax)
    return out


def cumulative_sum(
    x: ArrayLike,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    include_initial: bool = False,
) -> Array:
    """Running sums along ``axis`` (optional for 1-D input); bools and narrow integers add
    up in the default integer; ``include_initial`` prepends the 0 of the empty sum."""
    return _cumulative("cumulative_sum", lax.cumsum, 0, x, axis, dtype, include_initial, True)


def cumulative_prod(
    x: ArrayLike,
    /,
    *,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    include_initial: bool = False,
) -> Array:
    """Running products along ``axis`` (optional for 1-D input); integers keep their width
    (bools multiply as int64); ``include_initial`` prepends the 1 of the empty product."""
    return _cumulative("cumulative_prod", lax.cumprod, 1, x, axis, dtype, include_initial, False)


def copy(a: ArrayLike, order: str | None = None) -> AnyArray:
    """A copy of ``a``; lists are refused and only ``order='K'`` (or ``None``) is supported."""
    check_arraylike("copy", [a])
    if order not in (None, "K"):
        raise NotImplementedError(
            f"copy: only order='K' is supported, got order={order!r}{user_line_suffix()}"
        )
    # (an mj array's data copied, and a traced value's copy staged, as JAX's)
    return _placement.array(a, copy=True)
