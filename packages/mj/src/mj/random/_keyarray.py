"""Typed key arrays (``mj.random.key``): JAX's ``PRNGKeyArray`` with its ``key<fry>`` dtype.

A typed key array of shape ``S`` holds Threefry key data of shape ``S + (2,)`` (uint32, its
*base array*) and shows the shape ``S`` and the dtype ``key<fry>``: ``split(key(0), 3)`` has
shape ``(3,)``, ``keys[1]`` is one key, ``keys.reshape(...)``/``.T``/``.at[...]`` work on the
key axes only, and arithmetic or conversion to NumPy is refused, as in JAX.

mj's design (the simplest one that transforms): a key array is a **pytree node** whose one
child is its base array. Every transformation (``jit``, ``vmap``, ``grad``, ``scan``,
``cond``, ``while_loop``, ``custom_jvp``/``custom_vjp``, ...) therefore sees plain uint32
data and rebuilds key arrays on the way out, with no key dtype in mj's abstract values or
rules. Differences from JAX that follow from it: ``tree_leaves(key)`` is ``[key_data(key)]``
(JAX: ``[key]``), jaxprs show ``u32[..., 2]`` where JAX shows ``key<fry>[...]``, a negative
``vmap`` axis counts from the data axis, and a key's tangent (``float0``, as JAX) is a key
array over float0 data whose ``dtype`` is ``float0``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from mj.dtypes import float0, prng_key
from mj_core import ShapedArray, get_aval, is_array
from mj_core.extend import AnyArray, Array, ArrayView, register_array_view
from mj_core.tree_util import register_pytree_node

__all__ = ["THREEFRY", "PRNGImpl", "PRNGKeyArray", "PRNGKeyDtype", "is_key_array"]


class PRNGImpl:
    """A PRNG implementation's description: name, dtype tag, shape of one key's data."""

    __slots__ = ("key_shape", "name", "tag")

    def __init__(self, name: str, tag: str, key_shape: tuple[int, ...]) -> None:
        self.name = name
        self.tag = tag
        self.key_shape = key_shape

    def __repr__(self) -> str:
        return f"PRNGImpl(name={self.name!r}, tag={self.tag!r}, key_shape={self.key_shape})"


#: mj's one implementation: JAX's default Threefry-2x32.
THREEFRY = PRNGImpl("threefry2x32", "fry", (2,))


class PRNGKeyDtype:
    """The dtype of typed keys, ``key<fry>`` (JAX's ``KeyTy``): ``issubdtype(d, prng_key)``
    and ``issubdtype(d, extended)`` hold, ``itemsize`` is the bytes of one key's data."""

    __slots__ = ("_impl",)

    type = prng_key
    kind = "V"  # (NumPy's kind of opaque data: no NumPy-level rule mistakes it for a number)

    def __init__(self, impl: PRNGImpl) -> None:
        self._impl = impl

    @property
    def name(self) -> str:
        return f"key<{self._impl.tag}>"

    @property
    def itemsize(self) -> int:
        return 4 * math.prod(self._impl.key_shape)

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PRNGKeyDtype) and other._impl is self._impl

    def __hash__(self) -> int:
        return hash((PRNGKeyDtype, self._impl.name))


class PRNGKeyArray:
    """An array of typed PRNG keys; see the module doc. Made by ``mj.random.key``,
    ``split``, ``fold_in`` and ``wrap_key_data``; ``key_data`` gives its uint32 data."""

    __slots__ = ("_base_array", "_impl")
    __array_priority__ = 100

    def __init__(self, impl: PRNGImpl, key_data: AnyArray) -> None:
        self._impl = impl
        self._base_array = key_data

    # -- metadata
    @property
    def shape(self) -> tuple[int, ...]:
        # (the data's own .shape: under eval_shape it is a ShapeDtypeStruct)
        return tuple(self._base_array.shape)[: -len(self._impl.key_shape)]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> Any:
        if (
            getattr(self._base_array, "dtype", None) == float0
        ):  # a key's tangent (see the module doc)
            return float0
        return PRNGKeyDtype(self._impl)

    @property
    def itemsize(self) -> int:
        return int(PRNGKeyDtype(self._impl).itemsize)

    @property
    def nbytes(self) -> int:
        return self.itemsize * self.size

    @property
    def weak_type(self) -> bool:
        return False

    @property
    def aval(self) -> ShapedArray:
        """The key array's abstract value (``key<fry>[3]``), as ``mj.typeof`` gives it."""
        return ShapedArray(self.shape, self.dtype)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Iterator[PRNGKeyArray]:
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self) -> str:
        try:
            data = str(np.asarray(self._base_array))
        except Exception:  # a tracer's data: show what it is
            data = repr(self._base_array)
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{data}"

    __str__ = __repr__

    __hash__ = None  # type: ignore[assignment]  # (arrays are unhashable, as JAX's)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray[Any, Any]:
        raise TypeError(
            "JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
            "jax.random.key_data(arr) if you wish to extract the underlying integer array."
        )

    # -- shape operations: on the key axes, the data axes follow
    def _wrap(self, data: AnyArray) -> PRNGKeyArray:
        return PRNGKeyArray(self._impl, data)

    def _data_axes(self) -> tuple[int, ...]:
        n = self.ndim
        return tuple(range(n, n + len(self._impl.key_shape)))

    def __getitem__(self, idx: Any) -> PRNGKeyArray:
        return self._wrap(self._base_array[_data_index(self.ndim, idx)])

    @property
    def at(self) -> _KeyAt:
        return _KeyAt(self)

    def reshape(self, *shape: Any, order: str = "C") -> PRNGKeyArray:
        if len(shape) == 1 and not isinstance(shape[0], int | np.integer):
            shape = tuple(shape[0])
        return self._wrap(self._base_array.reshape((*shape, *self._impl.key_shape), order=order))

    def ravel(self, order: str = "C") -> PRNGKeyArray:
        return self.reshape(-1, order=order)

    flatten = ravel

    def squeeze(self, axis: Any = None) -> PRNGKeyArray:
        if axis is None:
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        axes = (axis,) if isinstance(axis, int | np.integer) else tuple(axis)
        return self._wrap(self._base_array.squeeze(tuple(_axis(a, self.ndim) for a in axes)))

    def transpose(self, *axes: Any) -> PRNGKeyArray:
        if len(axes) == 1 and not isinstance(axes[0], int | np.integer):
            axes = tuple(axes[0]) if axes[0] is not None else ()
        perm = tuple(_axis(a, self.ndim) for a in axes) or tuple(reversed(range(self.ndim)))
        return self._wrap(self._base_array.transpose((*perm, *self._data_axes())))

    @property
    def T(self) -> PRNGKeyArray:  # noqa: N802 (NumPy's name)
        return self.transpose()

    def swapaxes(self, axis1: int, axis2: int) -> PRNGKeyArray:
        perm = list(range(self.ndim))
        a, b = _axis(axis1, self.ndim), _axis(axis2, self.ndim)
        perm[a], perm[b] = perm[b], perm[a]
        return self.transpose(perm)

    def copy(self) -> PRNGKeyArray:
        return self._wrap(self._base_array.copy())

    def __copy__(self) -> PRNGKeyArray:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> PRNGKeyArray:
        return self.copy()

    # -- comparison (the only arithmetic on keys)
    def __eq__(self, other: object) -> Any:
        return _compare(self, other, "eq")

    def __ne__(self, other: object) -> Any:
        return _compare(self, other, "ne")

    # -- device-array methods, answered by the data
    def block_until_ready(self) -> PRNGKeyArray:
        _data_method(self, "block_until_ready")
        return self

    def copy_to_host_async(self) -> None:
        _data_method(self, "copy_to_host_async")

    def delete(self) -> None:
        _data_method(self, "delete")

    def is_deleted(self) -> bool:
        return bool(_data_method(self, "is_deleted", False))

    def devices(self) -> Any:
        return _data_method(self, "devices")

    @property
    def device(self) -> Any:
        return getattr(self._base_array, "device", None)

    @property
    def sharding(self) -> Any:
        return getattr(self._base_array, "sharding", None)

    @property
    def is_fully_addressable(self) -> bool:
        """The key data's (``jax.Array.is_fully_addressable``)."""
        return bool(self._base_array.is_fully_addressable)

    @property
    def is_fully_replicated(self) -> bool:
        """The key data's (``jax.Array.is_fully_replicated``)."""
        return bool(self._base_array.is_fully_replicated)


def _data_method(keys: PRNGKeyArray, name: str, default: Any = None) -> Any:
    method = getattr(keys._base_array, name, None)
    return method() if method is not None else default


def _axis(a: Any, ndim: int) -> int:
    a = int(a)
    if not -ndim <= a < max(ndim, 1):
        raise ValueError(f"axis {a} is out of bounds for a key array of dimension {ndim}")
    return a % ndim if ndim else 0


def _data_index(ndim: int, idx: Any) -> Any:
    """The index of the data array that ``idx`` is of the key array (too many raises)."""
    parts = idx if isinstance(idx, tuple) else (idx,)
    used = 0
    for p in parts:
        if p is None or p is Ellipsis:
            continue
        if is_array(p) and get_aval(p).dtype == np.bool_:
            used += max(len(get_aval(p).shape), 1)
        else:
            used += 1
    if used > ndim:
        raise IndexError(
            f"Too many indices for array: {used} non-None/Ellipsis indices for dim {ndim}."
        )
    if any(p is Ellipsis for p in parts):
        return (*parts, slice(None))
    return parts


class _KeyAt:
    __slots__ = ("_keys",)

    def __init__(self, keys: PRNGKeyArray) -> None:
        self._keys = keys

    def __getitem__(self, idx: Any) -> _KeyAtIndex:
        return _KeyAtIndex(self._keys, _data_index(self._keys.ndim, idx))


class _KeyAtIndex:
    __slots__ = ("_idx", "_keys")

    def __init__(self, keys: PRNGKeyArray, idx: Any) -> None:
        self._keys = keys
        self._idx = idx

    def get(self, **kwargs: Any) -> PRNGKeyArray:
        data = self._keys._base_array.at[self._idx].get(**kwargs)
        return self._keys._wrap(data)

    def set(self, values: Any, **kwargs: Any) -> PRNGKeyArray:
        if not isinstance(values, PRNGKeyArray) or values._impl is not self._keys._impl:
            raise TypeError(
                f"can only set keys of dtype {self._keys.dtype} into a key array, got "
                f"{getattr(values, 'dtype', type(values).__name__)}"
            )
        data = self._keys._base_array.at[self._idx].set(values._base_array, **kwargs)
        return self._keys._wrap(data)


def _compare(keys: PRNGKeyArray, other: object, op: str) -> Any:
    import mj.numpy as mnp

    if not isinstance(other, PRNGKeyArray) or other._impl is not keys._impl:
        name = getattr(getattr(other, "dtype", None), "name", type(other).__name__)
        raise TypeError(f"{op} does not accept dtypes {keys.dtype}, {name}.")
    shape = (*np.broadcast_shapes(keys.shape, other.shape), *keys._impl.key_shape)
    same = mnp.equal(
        mnp.broadcast_to(keys._base_array, shape), mnp.broadcast_to(other._base_array, shape)
    )
    axes = tuple(range(-len(keys._impl.key_shape), 0))
    return mnp.all(same, axis=axes) if op == "eq" else ~mnp.all(same, axis=axes)


def _refuse_binary(op: str) -> Any:
    def method(self: PRNGKeyArray, other: Any) -> Any:
        if isinstance(other, PRNGKeyArray):
            raise TypeError(f"{op} does not accept dtype {self.dtype}.")
        other_dtype = getattr(other, "dtype", None)
        if other_dtype is None:
            other_dtype = np.result_type(other) if not isinstance(other, int) else "int32"
        name = getattr(other_dtype, "name", str(other_dtype))
        raise TypeError(f"{op} does not accept dtypes {self.dtype}, {name}.")

    return method


def _refuse_unary(op: str) -> Any:
    def method(self: PRNGKeyArray) -> Any:
        raise TypeError(f"{op} does not accept dtype {self.dtype}.")

    return method


for _op, _names in {
    "add": ("__add__", "__radd__"),
    "sub": ("__sub__", "__rsub__"),
    "mul": ("__mul__", "__rmul__"),
    "div": ("__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__"),
    "rem": ("__mod__", "__rmod__"),
    "pow": ("__pow__", "__rpow__"),
    "dot_general": ("__matmul__", "__rmatmul__"),
    "and": ("__and__", "__rand__"),
    "or": ("__or__", "__ror__"),
    "xor": ("__xor__", "__rxor__"),
    "lt": ("__lt__",),
    "le": ("__le__",),
    "gt": ("__gt__",),
    "ge": ("__ge__",),
}.items():
    for _name in _names:
        setattr(PRNGKeyArray, _name, _refuse_binary(_op))
for _op, _name in (
    ("neg", "__neg__"),
    ("not", "__invert__"),
    ("abs", "__abs__"),
    ("pos", "__pos__"),
):
    setattr(PRNGKeyArray, _name, _refuse_unary(_op))


def is_key_array(x: object) -> bool:
    """True for a typed key array (not for legacy ``uint32[2]`` keys)."""
    return isinstance(x, PRNGKeyArray)


def _flatten(keys: PRNGKeyArray) -> tuple[tuple[AnyArray], PRNGImpl]:
    return (keys._base_array,), keys._impl


def _unflatten(impl: Any, children: Any) -> PRNGKeyArray:
    return PRNGKeyArray(impl, next(iter(children)))


register_pytree_node(PRNGKeyArray, _flatten, _unflatten)
Array.register(PRNGKeyArray)
# lax's element-moving primitives (reshape, broadcast, slice, select_n, gather, ...) and the
# mj.numpy functions built from them take key arrays: mj_core applies them to the data
register_array_view(
    ArrayView(
        PRNGKeyArray,
        PRNGKeyDtype,
        data=lambda keys: keys._base_array,
        wrap=lambda dtype, data: PRNGKeyArray(dtype._impl, data),
        element_shape=lambda dtype: dtype._impl.key_shape,
        data_dtype=lambda dtype: np.dtype(np.uint32),
    )
)
