"""``EagerArray``: the array type every eager mj operation returns, like ``jax.Array``.

Eager mj evaluates with NumPy, so an eager value is a NumPy array; this thin ``np.ndarray``
subclass adds JAX's array API on top: ``x.at[idx].set(y)``, ``block_until_ready()``,
immutability (``x[i] = y`` raises ``TypeError``; ``x += y`` rebinds ``x``), clamped
out-of-bounds indexing, and the ``Array(...)`` repr. ``bind`` views each eager output as an
``EagerArray`` (:func:`eager_result`), so ``mnp.dot(x, x.T).block_until_ready()`` and
``mnp.sin(x).at[0].set(1.0)`` work as in JAX.

Cost matters: an ``EagerArray`` operand must not slow NumPy's ufuncs down. NumPy wraps a ufunc's
output in the type of a subclass operand by calling its ``__array_wrap__`` from Python, which
doubles the cost of a small op; ``__array_wrap__ = None`` opts out, so ufuncs on
``EagerArray`` operands return plain arrays as cheaply as on plain ones, and ``bind`` alone
re-wraps (a C-level ``view``). Operators, indexing (``x[i]``, ``x.at``), ``astype``, ``take``
and the reduction methods are mj's, so that they return ``EagerArray`` too: they are NumPy-level
operations, so they are defined and installed (with every array type's methods) by
:func:`mj_core._array_methods.install_array_methods`, above :mod:`mj_core.numpy`; this module
imports nothing above the dtype and aval modules.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from mj_core._avals import (
    ConcreteArray,
    check_conversion,
    pytype_aval_mappings,
    register_array_type,
)
from mj_core._lattice import SUPPORTED_DTYPES
from mj_core.dtypes import _NARROW, check_array_data, dtype_of

__all__ = [
    "EagerArray",
    "WeakEagerArray",
    "borrowed_data",
    "canonical_operand",
    "canonical_operands",
    "dlpack_export",
    "eager_result",
    "eager_results",
    "is_operand",
    "owned_data",
    "placement_attributes",
    "unchanged",
    "unshared",
    "views_operand",
    "weak_result",
]

_view = np.ndarray.view
# positional (its stub says keyword-only): a keyword argument costs each eager op ~100 ns
_setflags: Callable[[np.ndarray[Any, Any], bool], None] = np.ndarray.setflags  # type: ignore[assignment]
_ndarray = np.ndarray
#: NumPy's ``base`` of an array, an mj array's too (see ``EagerArray.base``)
_base_of: Callable[[np.ndarray[Any, Any]], Any] = _ndarray.base.__get__


#: JAX's placement attributes of an eager array (``sharding``, ``device``,
#: ``addressable_shards``), by name: the backend package registers them (mj-xla: the default
#: device's ``SingleDeviceSharding``), since mj-core knows no devices. Eager data is
#: uncommitted and lives on the default device, as a fresh ``jax.Array`` does.
placement_attributes: dict[str, Callable[[Any], Any]] = {}


def _placement(name: str, x: Any) -> Any:
    fn = placement_attributes.get(name)
    if fn is None:
        raise AttributeError(f"Array.{name}: no device backend is loaded (import mj)")
    return fn(x)


_ndarray_base = _ndarray.__dict__["base"]


def _owner(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The array that owns ``x``'s data (NumPy's ``base`` chain followed to its end)."""
    base = _ndarray_base.__get__(x)
    while isinstance(base, np.ndarray):
        x, base = base, _ndarray_base.__get__(base)
    return x


#: ``delete()``d data: id of the owning array -> a weak reference to it (a reused id is told
#: apart by the reference).
_deleted: dict[int, weakref.ref[np.ndarray[Any, Any]]] = {}


class EagerArray(np.ndarray):
    """An immutable NumPy array with JAX's array API (``.at``, ``block_until_ready``)."""

    __slots__ = ()
    __array_wrap__ = None  # type: ignore[assignment]  # ufuncs: plain arrays, at full speed
    __array_priority__ = 0.0  # ndarray's own, as a plain attribute: no float made per operand
    weak_type = False  # JAX's attribute: see WeakEagerArray
    committed = False  # JAX's: not placed on a device explicitly (see placement_attributes)
    is_fully_addressable = True
    is_fully_replicated = True

    #: NumPy's ``base`` under a private name, for mj's fast paths (at NumPy's speed): the
    #: plain array an mj array views (read-only), an mj array, or ``None``
    _data = _ndarray.__dict__["base"]

    @property
    def base(self) -> Any:
        """No attribute, as on ``jax.Array``: NumPy's ``base`` would hand out the array holding
        an mj array's data (``np.asarray(x)`` is its read-only NumPy view)."""
        raise AttributeError(
            "mj arrays have no attribute 'base', as jax.Array: np.asarray(x) is a read-only "
            "NumPy view of the data"
        )

    def setflags(self, write: Any = None, align: Any = None, uic: Any = None) -> None:
        """NumPy's ``setflags``, except ``write=True``: mj arrays are immutable (an mj array
        owning its data, ``x.copy()``, would otherwise become writable)."""
        if write:
            raise ValueError(
                "cannot set WRITEABLE flag to True of this array: mj arrays are immutable"
            )
        _ndarray.setflags(self, write=write, align=align, uic=uic)

    # JAX's refusals (int() of a (1,)-array, index() of a float, ...) with JAX's wording
    def __index__(self) -> int:
        check_conversion("index", self.shape, self.dtype)
        return _ndarray.__index__(self)

    def __int__(self) -> int:
        check_conversion("int", self.shape, self.dtype)
        return _ndarray.__int__(self)

    def __float__(self) -> float:
        check_conversion("float", self.shape, self.dtype)
        return _ndarray.__float__(self)

    def __complex__(self) -> complex:
        check_conversion("complex", self.shape, self.dtype)
        return _ndarray.__complex__(self)

    @property
    def sharding(self) -> Any:
        """JAX's ``Array.sharding``: the default device's single-device sharding."""
        return _placement("sharding", self)

    @property
    def device(self) -> Any:  # (NumPy's is the string "cpu")
        """JAX's ``Array.device``: the device holding the data (the default device)."""
        return _placement("device", self)

    def devices(self) -> set[Any]:
        """JAX's ``Array.devices()``: the set of devices holding the data."""
        return {self.device}

    @property
    def addressable_shards(self) -> list[Any]:
        """JAX's ``Array.addressable_shards``: one shard, the whole array on its device."""
        return _placement("addressable_shards", self)  # type: ignore[no-any-return]

    def block_until_ready(self) -> EagerArray:
        """Eager NumPy data is always ready (JAX code calls this before timing)."""
        return self

    def copy_to_host_async(self) -> None:
        """JAX's ``Array.copy_to_host_async()``: eager data is on the host already."""

    def unsafe_buffer_pointer(self) -> int:
        """JAX's ``Array.unsafe_buffer_pointer()``: the address of the data (the NumPy
        buffer's; arrays viewing the same data give the same address)."""
        return int(self.__array_interface__["data"][0])

    def delete(self) -> None:
        """JAX's ``Array.delete()``: marks the data deleted, for this array and every mj array
        viewing it (``is_deleted()``). The host memory is NumPy's, freed when the last
        reference goes; the values stay readable until then (JAX's raise)."""
        owner = _owner(self)
        key = id(owner)
        _deleted[key] = weakref.ref(owner, lambda _: _deleted.pop(key, None))

    def is_deleted(self) -> bool:
        """Whether ``delete()`` was called on this array or one sharing its data."""
        owner = _owner(self)
        ref = _deleted.get(id(owner))
        return ref is not None and ref() is owner

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """The array as a DLPack capsule (``torch.from_dlpack(x)``), see :func:`dlpack_export`."""
        return dlpack_export(_view(self, _ndarray), stream, max_version, dl_device, copy)

    def __repr__(self) -> str:
        prefix = "Array("
        body = np.array2string(_view(self, _ndarray), separator=", ", prefix=prefix)
        shape = f", shape={self.shape}" if self.size == 0 else ""  # as JAX: an empty one's shape
        return f"{prefix}{body}{shape}, dtype={self.dtype.name})"

    def __str__(self) -> str:
        # NumPy prints the items of a non-builtin dtype (bfloat16) by indexing, which here gives
        # 0-d arrays and their repr: print the plain view, as ``str(jax.Array)`` does
        return str(_view(self, _ndarray))

    def __iter__(self) -> Iterator[Any]:
        # NumPy's default iterator indexes until IndexError, which clamped indexing never raises.
        # Not a generator itself: iter() of a 0-d array raises at once (np.iterable relies on it).
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (eager_result(row) for row in _view(self, _ndarray))

    def argsort(
        self, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None
    ) -> Any:
        """NumPy's ``argsort``, stable unless a ``kind`` is asked for: JAX sorts stably (ties
        keep their order). (``np.argsort(x)`` is NumPy's, on the data: see
        :meth:`__array_function__`.)"""
        if kind is None and stable is None:
            stable = True
        return eager_result(_ndarray.argsort(self, axis, kind, order, stable=stable), ())

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TypeError(
            "mj arrays are immutable: they do not support item assignment. Instead of "
            "x[idx] = y, use x = x.at[idx].set(y)."
        )

    def copy(self, order: Any = "C") -> Any:
        """A copy, immutable like every mj array (``jax.Array.copy``): ``x.copy().sort()``
        returns the sorted copy, as in JAX."""
        out = _ndarray.copy(self, order)
        _setflags(out, False)
        return out

    def __copy__(self) -> Any:
        return self.copy()

    def __deepcopy__(self, memo: Any) -> Any:
        return self.copy()

    def __setstate__(self, state: Any) -> None:
        """Unpickling: the array read-only again, as every mj array."""
        _ndarray.__setstate__(self, state)
        _setflags(self, False)

    def __array_function__(
        self,
        func: Callable[..., Any],
        types: Iterable[type],
        args: Iterable[Any],
        kwargs: Mapping[str, Any],
    ) -> Any:
        """NumPy's functions on mj arrays give NumPy's answer, as on ``jax.Array`` (which NumPy
        converts with ``__array__``): they run on plain NumPy views of the mj arrays, their
        array results made mj arrays. NumPy's code calls methods of its operands expecting
        NumPy's: on the mj array itself ``a.copy().sort()`` (``np.sort``, ``np.percentile``)
        would sort JAX's way, an immutable copy, ``a.take(i, mode="raise")`` (``np.extract``)
        use JAX's modes, ``np.linalg.inv`` find no ``__array_wrap__`` (mj's is ``None``, for
        the ufuncs' speed). A few functions that only read their operands' shape, dtype or
        memory (``np.shape``, ``np.result_type``) take the operands as they are.

        mj's impl rules call NumPy on plain views of their operands already
        (:func:`~mj_core._eager.evaluate.eval_primitive`): this Python call is no eager
        operation's cost."""
        impl = _AS_THEY_ARE.get(func)
        if impl is not None:
            return impl(*args, **kwargs)
        plain_args = _plain(args)
        plain_kwargs = {k: _plain(v) for k, v in kwargs.items()}
        operands: list[Any] = []  # (a result that is one of them is the caller's: not made
        _collect((plain_args, list(plain_kwargs.values())), operands)  # read-only)
        return _eager_out(func(*plain_args, **plain_kwargs), operands)


def _collect(x: Any, arrays: list[Any]) -> None:
    """The NumPy arrays in ``x`` (nested lists and tuples), appended to ``arrays``."""
    if isinstance(x, _ndarray):
        arrays.append(x)
    elif type(x) is list or type(x) is tuple:
        for a in x:
            _collect(a, arrays)


def _plain(x: Any) -> Any:
    """``x`` (an argument of a NumPy function) with each mj array in it, in a list or tuple
    (nested: ``np.block``) or itself, a plain NumPy view of the same (read-only) data."""
    if isinstance(x, EagerArray):
        return _view(x, _ndarray)
    if type(x) is list or type(x) is tuple:
        return type(x)(_plain(a) for a in x)
    return x


def _eager_out(out: Any, operands: list[Any]) -> Any:
    """A NumPy function's result (an array, a scalar, or a list, tuple or named tuple of them)
    on ``operands`` as mj arrays; one of a dtype mj has no arrays of (a string, an object)
    stays NumPy's."""
    if isinstance(out, _ndarray | np.generic):
        return eager_result(out, operands) if out.dtype in SUPPORTED_DTYPES else out
    if type(out) is tuple or type(out) is list:
        return type(out)(_eager_out(o, operands) for o in out)
    if isinstance(out, tuple):  # a named tuple (``np.unique_all``, ``np.linalg.svd``)
        return type(out)(*(_eager_out(o, operands) for o in out))
    return out


#: NumPy functions that only read their operands' shape, dtype or memory, computed on mj
#: arrays as they are (by NumPy's implementation behind the dispatch): mj's own NumPy-level
#: code calls them on its operands, and a plain view would cost each call more.
_AS_THEY_ARE: dict[Callable[..., Any], Callable[..., Any]] = {
    f: f._implementation
    for f in (
        getattr(np, name, None)
        for name in (
            "shape", "ndim", "size", "result_type", "may_share_memory", "shares_memory",
            "iscomplexobj", "isrealobj", "min_scalar_type", "can_cast",
        )
    )
    if f is not None and hasattr(f, "_implementation")
}  # fmt: skip


def _read_only_results(method: Callable[..., Any]) -> Callable[..., Any]:
    """NumPy's ``ndarray`` ``method``, its result made read-only."""

    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = method(self, *args, **kwargs)
        _setflags(out, False)
        return out

    wrapped.__name__ = wrapped.__qualname__ = method.__name__
    wrapped.__doc__ = method.__doc__
    return wrapped


#: NumPy's own methods an ``EagerArray`` keeps (``x.reshape`` is NumPy's at NumPy's speed;
#: mj's impl rules call them on plain data) that may return a new array of the array's class:
#: NumPy makes it writable (``x.flatten()``, ``x.byteswap()``, ``x.T.ravel()`` and
#: ``x.T.reshape(-1)`` copy), so their results are made read-only, as every mj array (their
#: views of an mj array are read-only already). NumPy's other methods return views, or are
#: mj's (``astype``, ``take``, ``copy``, indexing) or wrapped by
#: :func:`mj_core._array_methods.install_array_methods` (``sum``, ``round``, ``repeat``, ...).
for _name in ("reshape", "ravel", "flatten", "byteswap"):
    setattr(EagerArray, _name, _read_only_results(getattr(_ndarray, _name)))


class WeakEagerArray(EagerArray):
    """An eager value JAX marks weakly typed: computed from Python scalars only
    (``mnp.sqrt(2.0)``, ``mnp.asarray(3.0)``, ``mnp.full(3, 2.0)``). Like a Python scalar it
    takes the dtype of a strong operand it meets (``bf16_array * mnp.sqrt(2.0)`` is bfloat16),
    eagerly as under ``jit``, where its tracer is weak too."""

    __slots__ = ()
    weak_type = True

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, weak_type=True)"


def weak_result(out: Any) -> Any:
    """:func:`eager_result` of ``out``, marked weakly typed."""
    out = eager_result(out)
    if isinstance(out, EagerArray) and type(out) is not WeakEagerArray:
        out = _view(out, WeakEagerArray)
        _setflags(out, False)
    return out


def views_operand(out: np.ndarray[Any, Any], operands: Sequence[Any] | None) -> bool:
    """Whether ``out``, a writable view, shows a caller's data: the memory of one of the
    ``operands`` (a reshape or slice of a NumPy argument), which a later write by the caller
    would change; any view when the operands are unknown. (NumPy gives a view of a view the
    owner's ``base``.) A view of the rule's own temporary (``matmul(...).reshape``) is not."""
    if operands is None:
        return True
    base = _base_of(out)
    return any(base is a or (isinstance(a, _ndarray) and base is _base_of(a)) for a in operands)


def is_operand(out: np.ndarray[Any, Any], operands: Sequence[Any]) -> bool:
    """Whether ``out``, an array owning its memory, is a writable one of the ``operands`` (a
    caller's array an impl rule returned as it is: ``astype(copy=False)``), which an eager
    result must not share, nor make read-only."""
    for a in operands:
        if a is out:
            return bool(out.flags.writeable)
    return False


def eager_result(out: Any, operands: Sequence[Any] | None = None) -> Any:
    """``out`` (an impl rule's output on ``operands``) as an :class:`EagerArray`: NumPy arrays
    are viewed, NumPy scalars become 0-d arrays, 64-bit types narrow to 32 bits unless
    ``enable_x64``, a writable view of an operand's memory is copied (:func:`views_operand`);
    anything else (a Python scalar) is returned as is."""
    if type(out) in _NARROW_SCALARS:  # a full reduction's result, most often
        out = _view(np.asarray(out), EagerArray)
        _setflags(out, False)
        return out
    if isinstance(out, np.generic):
        out = np.asarray(out)
    elif not isinstance(out, _ndarray):
        return out
    elif out.dtype not in SUPPORTED_DTYPES or type(out) is np.ma.MaskedArray:
        check_array_data(out, "mj")  # e.g. float128 or masked operands NumPy computed with
    narrow = _NARROW.get(out.dtype)
    if narrow is not None:
        out = out.astype(narrow)
    elif type(out) is not _ndarray:  # an mj array, or another NumPy subclass: left as it is
        if _base_of(out) is not None and out.flags.writeable and views_operand(out, operands):
            out = out.copy()
        if type(out) is not EagerArray:
            out = _view(out, EagerArray)
        _setflags(out, False)
        return out
    elif out.base is None:
        if operands is None:  # perhaps a caller's array: left writable (not known to be one)
            view = _view(out, EagerArray)
            _setflags(view, False)
            return view
        if is_operand(out, operands):  # a caller's writable array itself
            out = out.copy()
    elif out.flags.writeable:
        if views_operand(out, operands):  # perhaps a view of a caller's array
            out = out.copy()  # a view (reshape, slice) of a caller's writable NumPy array
        elif type(out.base) is _ndarray:  # a view of the computation's own array: read-only
            _setflags(out.base, False)  # too, or NumPy would let a view be made writable again
    else:  # a read-only view (broadcast_to) of the computation's own writable array: the same
        owner = out.base
        if type(owner) is _ndarray and owner.flags.writeable and not views_operand(out, operands):
            _setflags(owner, False)
    # read-only data, and the plain array the result views too (eager evaluation hands it to
    # the impl rules): np.asarray(x) of an mj array cannot write to it, nor be made writable
    _setflags(out, False)
    return _view(out, EagerArray)


#: NumPy scalar types of mj's dtypes that are never narrowed: their 0-d arrays need no checks.
_NARROW_SCALARS = frozenset(
    {np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32}
    | {np.float16, np.float32, np.complex64}
)


#: NumPy scalar types whose dtype is 64-bit: narrowed where they enter eager evaluation.
_WIDE_SCALARS = frozenset({np.float64, np.int64, np.uint64, np.complex128})


def canonical_operand(x: Any) -> Any:
    """``x`` as eager evaluation takes it: a host NumPy array or scalar of a 64-bit dtype
    becomes its 32-bit canonical form unless ``enable_x64``, *before* anything is computed
    from it, as ``jax.device_put`` converts it (a float64 input computed in float64 and
    rounded afterwards gives another answer: ``x - max(x)`` would not be 0 at the maximum).
    mj arrays are canonical already; anything else is returned as it is."""
    t = type(x)
    if t is _ndarray or t in _WIDE_SCALARS:
        narrow = _NARROW.get(x.dtype)
        if narrow is not None:
            return np.asarray(x).astype(narrow)
    return x


def unchanged(x: Any) -> Any:
    """What an operation that leaves ``x``'s value as it is (a reshape to its own shape, the
    real part of a real array, ``positive``) returns: ``x`` itself if it is an mj value, and a
    host NumPy array or scalar as the read-only, canonical :class:`EagerArray` any other
    operation would make of it, never the caller's array (float64 without x64, or writable
    memory the caller may change later). A Python number becomes a 0-d array of its canonical
    dtype, weakly typed unless a bool (``lax.reshape(3.0, ())`` is a weak float32 array)."""
    t = type(x)
    if t is _ndarray:
        return eager_result(owned_data(x))  # (eager_result narrows a 64-bit dtype)
    if t is int or t is float or t is complex:
        return weak_result(np.asarray(x, dtype_of(x)))
    if t is bool or isinstance(x, np.generic):
        return eager_result(np.asarray(x), ())
    return x


def canonical_operands(args: Sequence[Any]) -> Sequence[Any]:
    """``args`` with each operand made :func:`canonical_operand` (the same sequence when none
    needs it: the common case costs one type test per operand, nothing with ``enable_x64``)."""
    if not _NARROW:
        return args
    for a in args:
        t = type(a)
        if (t is _ndarray or t in _WIDE_SCALARS) and a.dtype in _NARROW:
            return [canonical_operand(b) for b in args]
    return args


def eager_results(outs: list[Any], operands: Sequence[Any] | None = None) -> list[Any]:
    """:func:`eager_result` of each output of a multi-output primitive."""
    return [eager_result(out, operands) for out in outs]


register_array_type(EagerArray, pytype_aval_mappings[np.ndarray])
register_array_type(WeakEagerArray, lambda x: ConcreteArray(x, weak_type=True))


def borrowed_data(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A read-only view of a caller's array, for a computation that is over before the caller
    can write to it again (``grad``'s tape): its views are read-only too, so eager operations
    need not copy them as they copy views of writable data (a transposed weight matrix in a
    gradient). Results that still share its memory are copied at the end (:func:`unshared`)."""
    if not x.flags.writeable:
        return x
    view = _view(x, _ndarray)
    _setflags(view, False)
    return view


def unshared(out: Any, borrowed: list[np.ndarray[Any, Any]]) -> Any:
    """``out`` (an array, or a list/tuple of them, nested) with every array that may share
    memory with one of the ``borrowed`` ones copied: such results outlive the computation
    and must not see the caller's later writes."""
    if isinstance(out, list | tuple):
        return type(out)(unshared(o, borrowed) for o in out)
    if isinstance(out, _ndarray) and any(_may_share_memory(out, b) for b in borrowed):
        return eager_result(np.array(out))
    return out


#: ``np.may_share_memory`` behind NumPy's dispatch: no Python ``__array_function__`` call for
#: an mj array (the gradient tape asks for each result).
_may_share_memory: Callable[..., bool] = getattr(
    np.may_share_memory, "_implementation", np.may_share_memory
)


def owned_data(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Host data as mj keeps it: a copy, as JAX's ``device_put`` makes, so that a later write
    to the caller's array cannot change an mj array or a pullback holding it; an array that is
    read-only and owns its data is kept as it is."""
    if x.flags.writeable or _base_of(x) is not None:
        x = x.copy()
        _setflags(x, False)  # mj's own: no write reaches it (nor its EagerArray views)
    return x


def dlpack_export(
    data: np.ndarray[Any, Any],
    stream: Any,
    max_version: tuple[int, int] | None,
    dl_device: tuple[int, int] | None,
    copy: bool | None,
) -> Any:
    """A DLPack capsule of the read-only host ``data`` of an mj array. DLPack before 1.0
    cannot tell a consumer that data is read-only (NumPy refuses to export it then), so
    consumers that ask for no newer version get a copy, unless they forbid one."""
    if (max_version is None or max_version < (1, 0)) and copy is not False:
        data = data.copy()
    kwargs: dict[str, Any] = {"copy": copy}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if dl_device is not None:
        kwargs["dl_device"] = dl_device
    return data.__dlpack__(stream=stream, **kwargs)
