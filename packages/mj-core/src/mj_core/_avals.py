"""Abstract values: what a transformation knows about an array without (necessarily) its data.

``ShapedArray`` is shape + dtype + weak_type; ``ConcreteArray`` also holds the value (so that
``bool(x)`` works under transformations that keep values concrete, such as jvp). ``get_aval``
maps every accepted array type to its abstract value; higher layers register their own array
types (mj-xla's device array) with :func:`register_array_type`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core._typing import Array, DTypeLike
from mj_core.dtypes import (
    _NARROW,
    canonicalize_value,
    check_array_data,
    default_dtype_for_pytype,
    is_inexact,
    view_dtypes,
)
from mj_core.errors import ConcretizationError, user_line_suffix, user_location

__all__ = [
    "AbstractToken",
    "ConcreteArray",
    "ShapedArray",
    "Token",
    "abstract_token",
    "array_types",
    "dtype_name",
    "get_aval",
    "get_token_aval",
    "is_array",
    "is_token_aval",
    "pytype_aval_mappings",
    "raise_to_shaped",
    "register_array_type",
    "register_aval_sharding",
]

#: mj-autodiff's ``float0`` (the tangent dtype of integer values), spelled here below it
_FLOAT0 = np.dtype([("float0", np.void, 0)])


def dtype_name(dtype: np.dtype[Any]) -> str:
    """A dtype's name as JAX prints it: autodiff's ``float0`` (a NumPy void dtype) by name."""
    return "float0" if getattr(dtype, "names", None) == ("float0",) else dtype.name


_DTYPE_SHORT = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "c64",
    "complex128": "c128",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "bool": "bool",
}


class AbstractValue:
    """The base class of abstract values (JAX's ``jax.core.AbstractValue``): what a traced
    value is known to be. mj's are :class:`ShapedArray` and its refinement ``ConcreteArray``."""

    __slots__ = ()


class AbstractToken(AbstractValue):
    """The abstract value of an XLA token (JAX's ``core.AbstractToken``): a value with no data,
    threaded through a program to order effects. It has no shape or dtype; jaxprs print it
    ``Tok``. Its tangent and cotangent types are itself (tokens are not differentiated). One
    instance, :data:`abstract_token`."""

    __slots__ = ()

    #: (never weakly typed: what the passes that keep weak types read of every aval)
    weak_type = False

    def str_short(self, short_dtypes: bool = False, mesh_axis_types: bool = False) -> str:
        return "Tok"

    def to_tangent_aval(self) -> AbstractToken:
        return self

    def to_ct_aval(self) -> AbstractToken:
        return self

    def __repr__(self) -> str:
        return "AbstractToken()"


#: The abstract value of every token (JAX's ``core.abstract_token``).
abstract_token: AbstractToken = AbstractToken()


def is_token_aval(aval: object) -> bool:
    """Whether ``aval`` is the token type (for code whose avals are typed as arrays)."""
    return aval is abstract_token


def get_token_aval() -> ShapedArray:
    """The array type standing for a token where an array is needed (JAX's
    ``core.get_token_aval``): ``bool[0]``, as a token is passed to and returned by a compiled
    program."""
    return ShapedArray((0,), np.dtype(np.bool_))


class Token:
    """A concrete token (JAX's ``core.Token``): what ``lax.create_token`` and ``lax.after_all``
    return eagerly, and ``jit`` returns for a token result. ``_buf`` is the data it wraps, a
    ``bool[0]`` array (a device buffer of token shape when a compiled program made it), which
    carries the ordering from one computation to the next."""

    __slots__ = ("_buf",)

    def __init__(self, buf: Any) -> None:
        self._buf = buf

    def block_until_ready(self) -> None:
        block = getattr(self._buf, "block_until_ready", None)
        if block is not None:
            block()


#: rank -> the sharding of an unsharded aval of that rank (set by mj-xla)
_aval_sharding: Callable[[int], Any] | None = None


def register_aval_sharding(make: Callable[[int], Any]) -> None:
    """Set what ``ShapedArray.sharding`` returns for a rank (mj-xla: JAX's unsharded
    ``NamedSharding``); the layer that defines shardings registers it at import."""
    global _aval_sharding
    _aval_sharding = make


class ShapedArray(AbstractValue):
    """The abstract value of an array: its shape, dtype and whether its dtype is weak."""

    __slots__ = ("_hash", "dtype", "shape", "weak_type")
    array_abstraction_level = 1

    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    weak_type: bool

    def __init__(
        self,
        shape: tuple[int, ...],
        dtype: DTypeLike | None,
        weak_type: bool = False,
        *,
        sharding: object = None,
    ) -> None:
        del sharding  # JAX's keyword: mj's avals carry no sharding (see ``sharding`` below)
        self.shape = tuple(shape)
        try:
            dt = np.dtype(dtype)
        except TypeError:
            if type(dtype) not in view_dtypes:
                raise
            # an array view's dtype (typed PRNG keys' key<fry>): the aval ``mj.typeof`` gives
            # a view, as JAX's; views are pytrees of their data, so no tracer has it
            self.dtype = dtype  # type: ignore[assignment]
        else:
            self.dtype = _NARROW.get(dt, dt)  # no 64-bit types without enable_x64
        self.weak_type = weak_type
        self._hash: int | None = None  # avals are immutable; jit's cache keys hash them often

    @property
    def sharding(self) -> Any:
        """JAX's ``aval.sharding`` (``jax.typeof(x).sharding``): an unsharded array's, a
        ``NamedSharding`` over the empty abstract mesh with one ``None`` per dimension. mj's
        avals carry no sharding of their own (an array's placement is ``Array.sharding`` and
        ``jit``'s ``in_shardings``/``out_shardings``), so this depends on the rank alone and
        takes no part in equality or hashing. ``None`` until mj-xla, which defines shardings,
        registers the maker (:func:`register_aval_sharding`)."""
        return None if _aval_sharding is None else _aval_sharding(len(self.shape))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def str_short(self) -> str:
        """``f32[3,4]``-style summary (weak types are marked with a trailing ``~``)."""
        name = dtype_name(self.dtype)
        short = _DTYPE_SHORT.get(name, name)
        dims = ",".join(str(d) for d in self.shape)
        return f"{short}[{dims}]" + ("~" if self.weak_type else "")

    def update(
        self,
        shape: tuple[int, ...] | None = None,
        dtype: DTypeLike | None = None,
        weak_type: bool | None = None,
    ) -> ShapedArray:
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def strip_weak_type(self) -> ShapedArray:
        return ShapedArray(self.shape, self.dtype) if self.weak_type else self

    def to_tangent_aval(self) -> ShapedArray:
        """The abstract value of this value's tangents (JAX's): the same for inexact dtypes,
        autodiff's ``float0`` for integers, booleans and keys (no tangent space)."""
        dtype = self.dtype if is_inexact(self.dtype) else _FLOAT0
        return ShapedArray(self.shape, dtype, self.weak_type)

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is ShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
        )

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = self._hash = hash((self.shape, self.dtype, self.weak_type))
        return h

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its fields, so a cached hash never crosses processes.
        return (ShapedArray, (self.shape, self.dtype, self.weak_type))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray(shape={self.shape}, dtype={dtype_name(self.dtype)}{weak})"

    def __str__(self) -> str:
        """JAX's ``str(aval)``: ``float32[3,4]``, with a leading ``~`` when weakly typed."""
        dims = ",".join(str(d) for d in self.shape)
        return f"{'~' if self.weak_type else ''}{dtype_name(self.dtype)}[{dims}]"

    # The three methods below are how ``bool(tracer)`` and friends reach the aval.
    def _bool(self, tracer: object) -> bool:
        check_conversion("bool", self.shape, self.dtype)
        raise _concretization_error("bool", self)

    def _nonzero(self, tracer: object) -> bool:
        check_conversion("bool", self.shape, self.dtype)
        raise _concretization_error("bool", self)

    def _scalar(self, kind: str, tracer: object) -> Any:
        check_conversion(kind, self.shape, self.dtype)
        raise _concretization_error(kind, self)


class ConcreteArray(ShapedArray):
    """A ``ShapedArray`` that also knows its value (it stays concrete under jvp/grad)."""

    __slots__ = ("val",)
    array_abstraction_level = 0

    val: Any

    def __init__(self, val: Any, weak_type: bool = False) -> None:
        self.val = val
        if isinstance(val, np.ndarray | np.generic):  # without np.shape/np.result_type
            super().__init__(val.shape, val.dtype, weak_type)
        else:
            super().__init__(np.shape(val), np.result_type(val), weak_type)

    def _bool(self, tracer: object) -> bool:
        return bool(self.val)

    def _nonzero(self, tracer: object) -> bool:
        return bool(self.val)

    def _scalar(self, kind: str, tracer: object) -> Any:
        convert: dict[str, Callable[[Any], Any]] = {
            "int": int,
            "float": float,
            "complex": complex,
            "index": _index,
        }
        return convert[kind](self.val)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (ConcreteArray, (self.val, self.weak_type))

    def __repr__(self) -> str:
        return f"ConcreteArray({self.val!r}, weak_type={self.weak_type})"


def _index(val: object) -> int:
    return int(np.asarray(val).__index__())


def check_conversion(what: str, shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
    """JAX's errors for ``bool()``/``int()``/``float()``/``complex()``/``__index__()`` of an
    array whose shape or dtype refuses the conversion whatever its value (``core.
    check_*_conversion``), then the user's line; eager arrays and tracers both call it."""
    size = math.prod(shape)
    if what == "bool" and size != 1:
        head = (
            "The truth value of an empty array is ambiguous. Use `array.size > 0` to check that "
            "an array is not empty."
            if size == 0
            else "The truth value of an array with more than one element is ambiguous. Use "
            "a.any() or a.all()"
        )
        raise ValueError(f"{head}{user_line_suffix()}")
    if what == "index" and (shape or dtype.kind not in "iu"):
        raise TypeError(
            "Only integer scalar arrays can be converted to a scalar index. (index() of a "
            f"{dtype.name}{list(shape)} array{user_line_suffix()})"
        )
    if what in ("int", "float", "complex") and shape:
        raise TypeError(
            f"Only scalar arrays can be converted to Python scalars; got arr.ndim={len(shape)} "
            f"({what}() of a {dtype.name}{list(shape)} array{user_line_suffix()})"
        )


def _concretization_error(what: str, aval: ShapedArray) -> ConcretizationError:
    """JAX's message for ``bool()``/``int()``/``__index__()`` of a traced value, then mj's
    advice; ``where`` is the user's line."""
    where = user_line_suffix() or " while tracing"
    shape = f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"  # as JAX shows it
    if what == "bool":
        head = f"Attempted boolean conversion of traced array with shape {shape}."
    elif what == "index" and aval.dtype.kind in "iu":
        head = f"The __index__() method was called on traced array with shape {shape}"
    elif what == "index":  # a type error, whether or not the value is known
        return ConcretizationError(
            "Only integer scalar arrays can be converted to a scalar index.\nThe error "
            f"occurred{where} (index() of a traced {aval.str_short()} value)."
        )
    else:
        head = (
            "Abstract tracer value encountered where concrete value is expected: traced array "
            f"with shape {shape}\nThe problem arose with the `{what}` function. If trying to "
            f"convert the data type of a value, try using `x.astype({what})` or "
            f"`mnp.array(x, {what})` instead."
        )
    return ConcretizationError(
        f"{head}\nThe error occurred{where} ({what}() of a traced {aval.str_short()} value). "
        "The value depends on the arguments of a transformed function (jit, make_jaxpr, "
        "vmap), so it is not known while tracing. Use mj.lax.cond/while_loop or mnp.where "
        "for value-dependent control flow, or mark the argument static (static_argnums)."
    )


def raise_to_shaped(aval: ShapedArray) -> ShapedArray:
    """Forget the value of a ``ConcreteArray`` (a ``ShapedArray``, or an aval that is no array
    such as :data:`abstract_token`, is returned as is)."""
    if type(aval) is ShapedArray or not isinstance(aval, ShapedArray):
        return aval
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)


def _python_scalar_aval(x: object) -> ShapedArray:
    pytype = type(x)
    if pytype not in _PYTHON_SCALARS:  # a subclass (an IntEnum member): as its base type
        pytype = next(t for t in _PYTHON_SCALARS if isinstance(x, t))
    dtype = default_dtype_for_pytype(pytype)
    try:
        val = np.array(x, dtype)
    except OverflowError:  # NumPy's message names neither the value nor the user's line
        where = user_line_suffix()
        raise OverflowError(
            f"Python int {x} is too large to convert to {np.dtype(dtype).name}{where}"
        ) from None
    return ConcreteArray(val, weak_type=pytype is not bool)


def _numpy_aval(x: Any) -> ShapedArray:
    check_array_data(x, "mj")
    return ConcreteArray(canonicalize_value(x))


_PYTHON_SCALARS = (bool, int, float, complex)

pytype_aval_mappings: dict[type, Callable[[Any], ShapedArray]] = {
    bool: _python_scalar_aval,
    int: _python_scalar_aval,
    float: _python_scalar_aval,
    complex: _python_scalar_aval,
    np.ndarray: _numpy_aval,
    np.ma.MaskedArray: _numpy_aval,  # refused there, with JAX's advice
}
for _t in set(np.sctypeDict.values()):
    pytype_aval_mappings[_t] = _numpy_aval

array_types: set[type] = set(pytype_aval_mappings)
# (after array_types: a token flows through primitives and transformations, but is no array)
pytype_aval_mappings[Token] = lambda _: abstract_token  # type: ignore[assignment,return-value]


def register_array_type(pytype: type, to_aval: Callable[[Any], ShapedArray]) -> None:
    """Let a higher layer's array type (e.g. a device array) flow through every primitive; it
    becomes an :class:`~mj_core.Array` (``isinstance(x, mj.Array)``) too."""
    pytype_aval_mappings[pytype] = to_aval
    array_types.add(pytype)
    Array.register(pytype)
    if getattr(pytype, "aval", None) is None:  # (a subclass inherits its base's)
        pytype.aval = property(_array_aval)  # type: ignore[attr-defined]


def _array_aval(x: Any) -> ShapedArray:
    """``x.aval`` of a registered array type (``jax.Array.aval``): its abstract value, as
    :func:`get_aval` gives it (``weak_type`` included)."""
    return pytype_aval_mappings[type(x)](x)


def is_array(x: object) -> bool:
    """True for every value primitives accept as an array operand (tracers included; a
    subclass of a Python scalar type, such as an ``IntEnum`` member, as in JAX)."""
    return type(x) in array_types or hasattr(x, "aval") or isinstance(x, _PYTHON_SCALARS)


def get_aval(x: Any) -> ShapedArray:
    """The abstract value of ``x``: a tracer's ``aval``, or a ``ConcreteArray`` for data. A
    type without a handler of its own takes its nearest base's, as in JAX (an ``IntEnum``
    member is a Python int)."""
    handler = pytype_aval_mappings.get(type(x))
    if handler is not None:  # (before ``aval``: registered array types have one, see above)
        return handler(x)
    aval = getattr(type(x), "aval", None)
    if aval is not None and not isinstance(x, type):
        return x.aval  # type: ignore[no-any-return]
    for base in type(x).__mro__[1:]:
        handler = pytype_aval_mappings.get(base)
        if handler is not None:
            return handler(x)
    where = user_location()
    raise TypeError(  # (JAX's words first; then what is expected, and where)
        f"Argument '{x}' of type {type(x)} is not a valid JAX type; expected a NumPy array or "
        "scalar, a Python bool/int/float/complex, or an mj array"
        f"{' (' + where + ')' if where else ''}."
    )
