"""Shape manipulation with NumPy names: reshape, transpose, axes moves, joining, flipping."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core._shapes import broadcast_shapes as _broadcast_shapes
from mj_core._shapes import canonicalize_axes, canonicalize_axis, int_tuple
from mj_core._trace import Tracer
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.numpy._concrete import concrete_or_error
from mj_core.numpy._promotion import as_dtype, check_arraylike, dtype_weak, promote, shape_of
from mj_core.prims._operands import unchanged

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "concatenate",
    "expand_dims",
    "flip",
    "hstack",
    "moveaxis",
    "ndim",
    "ravel",
    "reshape",
    "shape",
    "size",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "transpose",
    "vstack",
]


def _warn_unless_arraylike(name: str, a: object) -> None:
    """JAX's DeprecationWarning for a non-array argument (a list, a tuple, ...) of
    ``ndim``/``shape``/``size``; NumPy's answer is still given (JAX's 2025 deprecation)."""
    if (
        isinstance(a, Array | np.ndarray | np.generic | bool | int | float | complex)
        or getattr(a, "__jax_array__", None) is not None
        or np.isscalar(a)
    ):
        return
    warnings.warn(
        f"{name} requires ndarray or scalar arguments, got {type(a)} at position 0. "
        "In a future JAX release this will be an error.",
        DeprecationWarning,
        stacklevel=3,
    )


def _jax_array_of(a: Any) -> Any:
    to_array = getattr(a, "__jax_array__", None)
    return a if to_array is None else to_array()


def shape(a: ArrayLike) -> tuple[int, ...]:
    if not hasattr(a, "shape"):
        _warn_unless_arraylike("shape", a)
    return shape_of(_jax_array_of(a))


def ndim(a: ArrayLike) -> int:
    if hasattr(a, "ndim"):
        return int(a.ndim)
    _warn_unless_arraylike("ndim", a)
    return len(shape_of(_jax_array_of(a)))


def size(a: ArrayLike, axis: int | Sequence[int] | None = None) -> int:
    """The number of elements (along ``axis``: an axis or a tuple of axes)."""
    _warn_unless_arraylike("size", a)
    shp = shape_of(_jax_array_of(a))
    if axis is None:
        return math.prod(shp)
    axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
    dims = [canonicalize_axis("size", int(ax), len(shp)) for ax in axes]
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis: {tuple(dims)}")
    return math.prod(shp[d] for d in dims)


def _axes_arg(axis: int | Sequence[int]) -> tuple[int, ...]:
    return int_tuple("mj.numpy", "an axis or shape argument", axis)


def reshape(
    a: ArrayLike, shape: int | Sequence[int], order: str | None = "C", *, copy: bool | None = None
) -> Array:
    """Row-major reshape (``order="F"``: column-major); one entry of ``shape`` may be -1
    (inferred). ``copy`` is accepted as JAX's: arrays are immutable, so a copy and a view
    cannot be told apart."""
    order = _reshape_order(order)
    old = shape_of(a)
    new = list(_axes_arg(shape))
    if new.count(-1) > 1:
        raise ValueError("reshape: can only specify one unknown dimension (-1)")
    if -1 in new:
        known = math.prod(d for d in new if d != -1)
        total = math.prod(old)
        if known == 0 or total % known:
            raise TypeError(f"reshape: cannot reshape array of shape {old} into shape {tuple(new)}")
        new[new.index(-1)] = total // known
    if order == "F":  # column-major: the reversed shapes' row-major reshape, transposed
        return transpose(lax.reshape(transpose(a), tuple(reversed(new))))
    return lax.reshape(a, tuple(new))


def _reshape_order(order: str | None) -> str:
    """``reshape``'s ``order`` as JAX reads it: ``"C"`` (also ``None`` and ``"A"``: mj's
    arrays are row-major) or ``"F"``, either case; ``"K"`` and others refused in its words."""
    canonical = "C" if order is None else str(order).upper()
    if canonical == "K":
        raise ValueError("order 'K' is not permitted for reshaping")
    if canonical not in ("C", "F", "A"):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return "F" if canonical == "F" else "C"


def ravel(a: ArrayLike, order: str = "C") -> Array:
    return reshape(a, (-1,), order)


def transpose(a: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    nd = len(shape_of(a))
    if axes is None:
        return lax.transpose(a, tuple(range(nd - 1, -1, -1)))
    perm = canonicalize_axes("transpose", _axes_arg(axes), nd)
    if len(perm) != nd:
        raise ValueError(f"transpose: axes {tuple(axes)} don't match an array of rank {nd}")
    return lax.transpose(a, perm)


def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Array:
    nd = len(shape_of(a))
    i = canonicalize_axis("swapaxes", axis1, nd)
    j = canonicalize_axis("swapaxes", axis2, nd)
    perm = list(range(nd))
    perm[i], perm[j] = j, i
    return lax.transpose(a, perm)


def moveaxis(a: ArrayLike, source: int | Sequence[int], destination: int | Sequence[int]) -> Array:
    nd = len(shape_of(a))
    src = canonicalize_axes("moveaxis", _axes_arg(source), nd)
    dst = canonicalize_axes("moveaxis", _axes_arg(destination), nd)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src, strict=True)):
        perm.insert(d, s)
    return lax.transpose(a, perm)


def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> Array:
    return lax.expand_dims(a, _axes_arg(axis))


def squeeze(a: ArrayLike, axis: int | Sequence[int] | None = None) -> Array:
    """Remove size-1 dimensions (all of them, or those in ``axis``, which must have size 1)."""
    shp = shape_of(a)
    if axis is None:
        dims = tuple(i for i, d in enumerate(shp) if d == 1)
    else:
        dims = canonicalize_axes("squeeze", _axes_arg(axis), len(shp))
        for d in dims:
            if shp[d] != 1:
                raise ValueError(
                    f"squeeze: cannot select an axis to squeeze out which has size not equal "
                    f"to one (axis {d} of shape {shp})"
                )
    return lax.squeeze(a, dims)


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    return _broadcast_shapes("broadcast_shapes", *(tuple(s) for s in shapes))


def broadcast_to(array: ArrayLike, shape: int | Sequence[int]) -> Array:
    """Broadcast ``array`` to ``shape`` (NumPy rules: trailing dims align)."""
    target = _axes_arg(shape)
    old = shape_of(array)
    if len(old) > len(target):
        raise ValueError(
            f"Cannot broadcast to shape with fewer dimensions: arr_shape={old} shape={target}"
        )
    lead = len(target) - len(old)
    if any(d not in (1, target[lead + i]) for i, d in enumerate(old)):
        dtype = dtype_weak(array)[0].name
        old_dims, new_dims = (",".join(map(str, x)) for x in (old, target))
        raise ValueError(
            f"Incompatible types for broadcasting: input type={dtype}[{old_dims}] and "
            f"requested type={dtype}[{new_dims}]"
        )
    keep = [i for i, d in enumerate(old) if d == target[lead + i]]
    squeezed = lax.reshape(array, tuple(old[i] for i in keep))
    return lax.broadcast_in_dim(squeezed, target, tuple(lead + i for i in keep))


def broadcast_arrays(*args: ArrayLike) -> list[Array]:
    target = broadcast_shapes(*(shape_of(a) for a in args))
    return [broadcast_to(a, target) for a in args]


def atleast_1d(*arys: ArrayLike) -> Any:
    outs = [unchanged(a) if len(shape_of(a)) >= 1 else lax.reshape(a, (1,)) for a in arys]
    return outs[0] if len(outs) == 1 else outs


def atleast_2d(*arys: ArrayLike) -> Any:
    outs = []
    for a in arys:
        shp = shape_of(a)
        outs.append(unchanged(a) if len(shp) >= 2 else lax.reshape(a, (1,) * (2 - len(shp)) + shp))
    return outs[0] if len(outs) == 1 else outs


def concatenate(
    arrays: Sequence[ArrayLike], axis: int | None = 0, dtype: DTypeLike | None = None
) -> Array:
    """Join arrays along an existing axis (``axis=None`` flattens them first)."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("concatenate: need at least one array to concatenate")
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    arrays = promote(*arrays)
    dt = as_dtype(dtype, "concatenate")
    if dt is not None:
        arrays = [lax.convert_element_type(a, dt) for a in arrays]
    nd = len(shape_of(arrays[0]))
    if nd == 0:
        raise ValueError("concatenate: zero-dimensional arrays cannot be concatenated")
    return lax.concatenate(arrays, canonicalize_axis("concatenate", axis, nd))


def stack(
    arrays: Sequence[ArrayLike], axis: int = 0, out: None = None, dtype: DTypeLike | None = None
) -> Array:
    """Join same-shaped arrays along a new axis (converted to ``dtype`` if given)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to mnp.stack is not supported.")
    arrays = list(arrays)
    if not arrays:
        raise ValueError("stack: need at least one array to stack")
    check_arraylike("stack", arrays)
    shp = shape_of(arrays[0])
    if any(shape_of(a) != shp for a in arrays):
        shapes = sorted({shape_of(a) for a in arrays})
        raise ValueError(f"stack: all input arrays must have the same shape, got {shapes}")
    ax = canonicalize_axis("stack", axis, len(shp) + 1)
    return concatenate([lax.expand_dims(a, (ax,)) for a in arrays], ax, dtype)


def hstack(tup: Sequence[ArrayLike], dtype: DTypeLike | None = None) -> Array:
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, 0 if len(shape_of(arrs[0])) == 1 else 1, dtype)


def vstack(tup: Sequence[ArrayLike], dtype: DTypeLike | None = None) -> Array:
    return concatenate([atleast_2d(a) for a in tup], 0, dtype)


def split(ary: ArrayLike, indices_or_sections: int | Sequence[int], axis: int = 0) -> list[Array]:
    """Split along ``axis`` into equal sections or at the given indices."""
    shp = shape_of(ary)
    ax = canonicalize_axis("split", axis, len(shp))
    n = shp[ax]
    spec: Any = indices_or_sections  # (or a traced / concrete array of them)
    if isinstance(spec, Tracer):  # a traced count or index array: JAX's concretization error
        spec = concrete_or_error("split", spec, "indices_or_sections").tolist()
    elif not isinstance(spec, int | np.integer):
        spec = [
            concrete_or_error("split", i, "each index").item() if isinstance(i, Tracer) else i
            for i in spec
        ]
    if isinstance(spec, int | np.integer | float):
        sections = int(spec)
        if sections <= 0 or n % sections:
            raise ValueError("split: array split does not result in an equal division")
        bounds = [i * (n // sections) for i in range(sections + 1)]
    else:
        bounds = [0, *(min(max(int(i), 0), n) for i in spec), n]
    return [lax.slice_in_dim(ary, lo, max(lo, hi), 1, ax) for lo, hi in itertools.pairwise(bounds)]


def flip(m: ArrayLike, axis: int | Sequence[int] | None = None) -> Array:
    nd = len(shape_of(m))
    axes = tuple(range(nd)) if axis is None else _axes_arg(axis)
    return lax.rev(m, axes)
