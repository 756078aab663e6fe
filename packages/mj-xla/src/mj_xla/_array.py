"""Device arrays: what ``jit`` returns, kept on the device between jitted calls.

An :class:`Array` pairs a jaxlib device buffer with its ``ShapedArray`` (weak type included).
It has the full operator set of tracers (installed from ``mj_core.array_methods``) and is
registered with mj-core as an array type, so every primitive and transformation accepts it:
eager (NumPy) evaluation reads it through ``__array__`` (a zero-copy view on CPU), and
transformations see a ``ConcreteArray`` so Python control flow on its value still works under
``jvp``/``grad``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from mj_core import (
    ConcreteArray,
    EagerArray,
    ShapedArray,
    Tracer,
    get_aval,
    install_array_methods,
    register_array_type,
)
from mj_core.dtypes import canonical_dtype
from mj_core.extend import (
    AbstractToken,
    DTypeLike,
    Token,
    abstract_token,
    check_conversion,
    dlpack_export,
    get_token_aval,
    placement_attributes,
)
from mj_core.tree_util import tree_map
from mj_xla import _jaxlib
from mj_xla._donation import deleted_error
from mj_xla._sharding import Shard, Sharding, SingleDeviceSharding

__all__ = ["Array", "CommittedArray", "device_put", "to_buffer"]


class Array:
    """An immutable array living on the XLA device (JAX's ``ArrayImpl``).

    ``mj.Array``, the type of every mj array, is ``mj_core.Array``, with which this class
    and its subclasses are registered (by ``register_array_type``).

    Attributes: ``shape``, ``dtype``, ``ndim``, ``size``, ``weak_type``. ``np.asarray(x)``
    gives a read-only host view; ``block_until_ready()`` waits for pending computation.
    """

    __slots__ = ("__weakref__", "_aval", "_buf")
    __array_priority__ = 100

    _buf: _jaxlib.Buffer
    _aval: ShapedArray

    def __init__(self, buf: _jaxlib.Buffer, aval: ShapedArray) -> None:
        self._buf = buf
        self._aval = aval

    # --- metadata ---------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._aval.shape

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._aval.dtype

    @property
    def ndim(self) -> int:
        return len(self._aval.shape)

    @property
    def size(self) -> int:
        return self._aval.size

    @property
    def weak_type(self) -> bool:
        return self._aval.weak_type

    @property
    def itemsize(self) -> int:
        return self._aval.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self._aval.size * self._aval.dtype.itemsize

    # --- placement --------------------------------------------------------------------------
    @property
    def sharding(self) -> Sharding:
        """Where the data lives: one device (:class:`SingleDeviceSharding`)."""
        return SingleDeviceSharding(_jaxlib.buffer_device(self._buf))

    def devices(self) -> set[Any]:
        return self.sharding.device_set

    @property
    def device(self) -> Any:
        """JAX's ``Array.device``: the device holding the data, or the sharding of an array
        spread over several."""
        devices = self.devices()
        if len(devices) == 1:
            (device,) = devices
            return device
        return self.sharding

    @property
    def committed(self) -> bool:
        """Whether the array is committed to its device, as JAX defines it: placed there by
        ``device_put(x, device)``, or computed from committed inputs. Computations follow
        their committed inputs' device; uncommitted arrays (on the default device) go where
        they are needed."""
        return False

    @property
    def is_fully_replicated(self) -> bool:
        return True

    @property
    def is_fully_addressable(self) -> bool:
        """Whether this process holds every piece (JAX's ``Array.is_fully_addressable``)."""
        return bool(self.sharding.is_fully_addressable)

    @property
    def addressable_shards(self) -> list[Shard]:
        device = _jaxlib.buffer_device(self._buf)
        return [Shard(device, tuple(slice(None) for _ in self.shape), 0, self)]

    # --- host access ------------------------------------------------------------------------
    @property
    def _value(self) -> np.ndarray[Any, Any]:
        """The host view of the data (a subclass holding several buffers assembles it)."""
        if self._buf.is_deleted():
            raise deleted_error(self._aval)
        return _jaxlib.to_numpy(self._buf)

    def is_deleted(self) -> bool:
        """Whether the device buffer is gone (donated to a ``jit`` call, or ``delete()``d)."""
        return bool(self._buf.is_deleted())

    def delete(self) -> None:
        """Free the device buffer now; using the array afterwards raises."""
        self._buf.delete()

    def __array__(self, dtype: DTypeLike | None = None, copy: Any = None) -> np.ndarray[Any, Any]:
        host = self._value
        if dtype is not None and np.dtype(dtype) != host.dtype:
            return host.astype(dtype)
        if copy:
            return host.copy()
        return host

    def __array_function__(
        self, func: Any, types: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        """NumPy functions see host views: without this, ``np.reshape(x)`` would call the
        installed ``x.reshape`` method, which binds ``reshape_p``, whose impl calls
        ``np.reshape(x)`` again."""
        return func(*_to_host(args), **_to_host(kwargs))

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """The array as a DLPack capsule (``np.from_dlpack(x)``, ``torch.from_dlpack(x)``),
        exported from its host data, which lives on the CPU (see ``dlpack_export``)."""
        self._check_dlpack_device()
        return dlpack_export(self._value, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        self._check_dlpack_device()
        return (1, 0)  # kDLCPU

    def _check_dlpack_device(self) -> None:
        platform = _jaxlib.buffer_device(self._buf).platform
        if platform != "cpu":
            raise NotImplementedError(
                f"__dlpack__: mj exports DLPack from CPU arrays only; this array is on "
                f"{platform} (move it with mj.device_put(x, mj.devices('cpu')[0]) first)"
            )

    def block_until_ready(self) -> Array:
        self._buf.block_until_ready()
        return self

    def copy_to_host_async(self) -> None:
        """Start copying the device buffer to the host (``np.asarray`` then waits less; an
        array on several devices is fetched when read)."""
        if self._buf.is_deleted():
            raise deleted_error(self._aval)
        if len(self.devices()) == 1:
            self._buf._copy_single_device_array_to_host_async()

    def unsafe_buffer_pointer(self) -> int:
        """The device address of the buffer (JAX's ``Array.unsafe_buffer_pointer()``)."""
        return int(self._buf.unsafe_buffer_pointer())

    def is_ready(self) -> bool:
        return bool(self._buf.is_ready())

    def item(self, *args: Any) -> Any:
        return self._value.item(*args)

    def tolist(self) -> Any:
        return self._value.tolist()

    def __bool__(self) -> bool:
        check_conversion("bool", self._aval.shape, self._aval.dtype)
        return bool(self._value)

    def __int__(self) -> int:
        check_conversion("int", self._aval.shape, self._aval.dtype)
        return int(self._value)

    def __float__(self) -> float:
        check_conversion("float", self._aval.shape, self._aval.dtype)
        return float(self._value)

    def __complex__(self) -> complex:
        check_conversion("complex", self._aval.shape, self._aval.dtype)
        return complex(self._value)

    def __index__(self) -> int:
        check_conversion("index", self._aval.shape, self._aval.dtype)
        return int(self._value.__index__())

    def __len__(self) -> int:
        if not self._aval.shape:
            raise TypeError("len() of unsized object (a 0-d mj Array)")
        return self._aval.shape[0]

    def __iter__(self) -> Iterator[Any]:
        if not self._aval.shape:
            raise TypeError("iteration over a 0-d mj Array")
        return (self[i] for i in range(self._aval.shape[0]))  # type: ignore[index]

    def __format__(self, spec: str) -> str:
        if not self._aval.shape:
            return format(self._value[()], spec)
        return format(str(self), spec)

    def __str__(self) -> str:
        return str(self._value)

    def __repr__(self) -> str:
        prefix = "Array("
        # (an empty array's data is not fetched: a token's buffer, token-shaped, has none)
        host = np.zeros(self._aval.shape, self._aval.dtype) if self._aval.size == 0 else None
        data = self._value if host is None else host
        body = np.array2string(data, separator=", ", prefix=prefix)
        weak = ", weak_type=True" if self._aval.weak_type else ""
        # like JAX, an empty array's repr spells out its shape
        shape = f", shape={self._aval.shape}" if self._aval.size == 0 else ""
        return f"{prefix}{body}{shape}, dtype={self._aval.dtype.name}{weak})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle, (np.array(self), self._aval.weak_type))


install_array_methods(Array)


class CommittedArray(Array):
    """A device array committed to its device (see :attr:`Array.committed`). A type of its
    own so that jit's dispatch fast path, which takes only plain :class:`Array` arguments,
    needs no per-call placement check: a committed argument takes the path that resolves
    placement (once per cache entry)."""

    __slots__ = ()

    @property
    def device(self) -> Any:
        return _jaxlib.buffer_device(self._buf)

    @property
    def committed(self) -> bool:
        return True


def _to_host(x: Any) -> Any:
    """Arrays inside (nested) tuples/lists/dicts of NumPy function arguments, as host views."""
    if issubclass(type(x), Array):
        return x._value
    if type(x) in (tuple, list):
        return type(x)(_to_host(v) for v in x)
    if type(x) is dict:
        return {k: _to_host(v) for k, v in x.items()}
    return x


def _array_aval(x: Array) -> ShapedArray:
    return ConcreteArray(x._value, weak_type=x._aval.weak_type)


register_array_type(Array, _array_aval)
register_array_type(CommittedArray, _array_aval)  # (the table is keyed by exact type)


def device_put(x: Any, device: Any = None) -> Any:
    """Move ``x`` (a pytree of NumPy arrays, Python scalars, Arrays) to the device.

    Arrays and tracers pass through unchanged; Python scalars keep their weak type
    (``device_put(1.0) * float32_array`` stays float32). Host data goes to the default
    device, uncommitted; placing data on a chosen device is ``mj.device_put``'s
    (:mod:`mj_xla._device_put`), which calls this without one.
    """
    return tree_map(_put_leaf, x)


def _put_leaf(x: Any) -> Any:
    if type(x) in _DEVICE_ARRAYS or isinstance(x, Tracer):
        return x
    if type(x) is Token:  # a new token on the device (JAX's device_put of a token)
        return Token(Array(to_buffer(x, abstract_token), get_token_aval()))
    aval = get_aval(x)
    shaped = ShapedArray(aval.shape, canonical_dtype(aval.dtype), aval.weak_type)
    return Array(_jaxlib.put(np.asarray(x, shaped.dtype)), shaped)


def _unpickle(data: np.ndarray[Any, Any], weak_type: bool) -> Array:
    """A pickled :class:`Array` back on the device, weak type included (as JAX's)."""
    return Array(_jaxlib.put(data), ShapedArray(data.shape, data.dtype, weak_type))


#: The single-device array types (sharded arrays are handled by their own paths).
_DEVICE_ARRAYS = (Array, CommittedArray)


def to_buffer(x: Any, aval: ShapedArray | AbstractToken, device: Any = None) -> _jaxlib.Buffer:
    """The device buffer to pass for a parameter of type ``aval`` (host data is copied in),
    on ``device`` for an executable compiled for a device other than the default one
    (arrays elsewhere are copied there).

    XLA only checks byte sizes, so shapes and dtypes are checked here. A token (for a token
    parameter) is passed as an empty ``bool[0]`` buffer once its computation is done, as
    JAX's ``_token_shard_arg`` does.
    """
    if isinstance(aval, AbstractToken):
        if type(x) is not Token:
            raise TypeError(
                f"jit: an argument of type {get_aval(x).str_short()} was passed where the "
                "compiled computation expects a token"
            )
        x.block_until_ready()
        empty = np.zeros((0,), np.bool_)
        return _jaxlib.put(empty) if device is None else _jaxlib.put_on(empty, device)
    if type(x) in _DEVICE_ARRAYS:
        if x._buf.is_deleted():
            raise deleted_error(x._aval)
        if x._aval.shape != aval.shape or x._aval.dtype != aval.dtype:
            raise TypeError(
                f"jit: an argument of type {x._aval.str_short()} was passed where the compiled "
                f"computation expects {aval.str_short()}"
            )
        if device is not None and _jaxlib.buffer_device(x._buf) is not device:
            return _jaxlib.copy_to_device(x._buf, x._aval, device, True)
        buf: _jaxlib.Buffer = x._buf
        return buf
    host = np.asarray(x, aval.dtype)
    if host.shape != aval.shape:
        raise TypeError(
            f"jit: an argument of shape {host.shape} was passed where the compiled "
            f"computation expects {aval.str_short()}"
        )
    if aval.dtype == _jaxlib.FLOAT0:  # the program takes a bool zero (JAX's float0 lowering)
        host = np.zeros(aval.shape, np.bool_)
    if _jaxlib.guards_set and isinstance(x, EagerArray):  # (on the device, in JAX's model)
        with _jaxlib.unguarded_puts():
            return _jaxlib.put(host) if device is None else _jaxlib.put_on(host, device)
    return _jaxlib.put(host) if device is None else _jaxlib.put_on(host, device)


def _default_sharding(x: Any) -> SingleDeviceSharding:
    return SingleDeviceSharding(_jaxlib.device())


# Eager (host) mj arrays answer JAX's placement attributes as uncommitted arrays on the
# default device do (mj-core's EagerArray asks this package, through its table).
placement_attributes["sharding"] = _default_sharding
placement_attributes["device"] = lambda x: _jaxlib.device()
placement_attributes["addressable_shards"] = lambda x: [
    Shard(_jaxlib.device(), tuple(slice(None) for _ in x.shape), 0, x)
]
