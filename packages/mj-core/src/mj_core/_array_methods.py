"""The array methods (``+``, ``@``, ``[]``, ``.T``, ``.sum()``, ``.sort()``, ...) of every mj
array type: one table, :data:`array_methods`, installed on tracers, eager arrays and device
arrays by one function, :func:`install_array_methods`. Every method is mj-core's (``jax.Array``'s
NumPy-level methods, ``x.sort()``, ``x.searchsorted(v)``, ``x.nonzero(size=...)``, included), so
an array behaves the same whether or not a higher layer is imported; a higher layer only
installs the table on its own array type (mj-xla's ``Array``).

This module sits above :mod:`mj_core.numpy` in mj-core's inner order (the import-linter
contract in pyproject.toml): ``EagerArray``'s own indexing, ``astype`` and ``take`` are
NumPy-level operations, so they are defined here and set on the class by the installer
(:data:`_EAGER_OWN`), and ``_eager_array`` never imports upward.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core import lax
from mj_core import numpy as mnp
from mj_core._avals import _PYTHON_SCALARS, ConcreteArray, array_types, get_aval
from mj_core._eager.wrappers import operator_method
from mj_core._eager_array import EagerArray, WeakEagerArray, eager_result, weak_result
from mj_core._trace import Tracer
from mj_core._typing import DTypeLike
from mj_core.errors import ConcretizationError, user_line_suffix, user_location
from mj_core.numpy._indexing import IndexUpdateHelper, getitem
from mj_core.numpy._promotion import convert, dtype_weak

__all__ = ["array_methods", "install_array_methods"]


_REJECTED_OPERANDS = (list, tuple, set, dict)


def _defer_to_unrecognized_arg(
    name: str, f: Callable[[Any, Any], Any], reflected: bool = False
) -> Callable[[Any, Any], Any]:
    """``x + other`` returns ``NotImplemented`` for an ``other`` that is not an array, scalar or
    tracer (a list, ``None``, ``pytest.approx``), as JAX does: Python then tries ``other``'s
    reflected method and ``==`` falls back to identity. Python containers are rejected with a
    ``TypeError`` instead of being broadcast like NumPy would (JAX's rule too).

    ``reflected`` methods (``__radd__``) apply ``f(other, self)``; ``f`` is the NumPy-level
    function (``mnp.add``: operators promote on JAX's lattice, as ``jax.Array``'s do)."""

    def method(self: object, other: object) -> Any:
        if (
            type(other) in array_types
            or getattr(type(other), "aval", None) is not None
            or isinstance(other, _PYTHON_SCALARS)  # (a subclass: an IntEnum member)
        ):
            return f(other, self) if reflected else f(self, other)
        to_array = getattr(other, "__jax_array__", None)
        if to_array is not None:  # an object standing for an array, as JAX's operators read it
            other = to_array()
            return f(other, self) if reflected else f(self, other)
        if isinstance(other, _REJECTED_OPERANDS):
            names = [type(self).__name__, type(other).__name__]
            lhs, rhs = names[::-1] if reflected else names
            raise TypeError(
                f"unsupported operand type(s) for {_OPERATOR_NAMES[name]}: '{lhs}' and '{rhs}' "
                f"{user_location()}; convert the container with mj.numpy.asarray first"
            )
        return NotImplemented

    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


def _binary_methods() -> dict[str, Callable[..., Any]]:
    ops: dict[str, Callable[[Any, Any], Any]] = {
        "add": mnp.add,
        "sub": mnp.subtract,
        "mul": mnp.multiply,
        "and": mnp.bitwise_and,
        "or": mnp.bitwise_or,
        "xor": mnp.bitwise_xor,
        "truediv": mnp.true_divide,
        "floordiv": mnp.floor_divide,
        "mod": mnp.remainder,
        "pow": mnp.power,
        "matmul": mnp.matmul,
        "lshift": mnp.left_shift,
        "rshift": mnp.right_shift,
        "divmod": _divmod,
        "eq": mnp.equal,
        "ne": mnp.not_equal,
        "lt": mnp.less,
        "le": mnp.less_equal,
        "gt": mnp.greater,
        "ge": mnp.greater_equal,
    }
    out: dict[str, Callable[..., Any]] = {}
    for name, f in ops.items():
        out[f"__{name}__"] = _defer_to_unrecognized_arg(name, f)
        _OPERATOR_FUNCTIONS[f"__{name}__"] = f
        if name not in _COMPARISONS:
            out[f"__r{name}__"] = _defer_to_unrecognized_arg(name, f, reflected=True)
    out.update(
        __neg__=lax.neg,
        __pos__=_identity,
        __abs__=mnp.absolute,  # (unsigned and bool unchanged, as JAX's)
        __invert__=lax.bitwise_not,
    )
    return out


#: The NumPy-level function of each (not reflected) binary operator: ``EagerArray``'s
#: operators try its shortcut first (:func:`~mj_core._eager.wrappers.operator_method`).
_OPERATOR_FUNCTIONS: dict[str, Callable[[Any, Any], Any]] = {}
_COMPARISONS = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})
_OPERATOR_NAMES = {
    "add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^", "truediv": "/",
    "floordiv": "//", "mod": "%", "pow": "**", "matmul": "@", "lshift": "<<", "rshift": ">>",
    "divmod": "divmod()", "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
}  # fmt: skip


def _identity(x: object) -> Any:
    return x


def _divmod(x: Any, y: Any) -> tuple[Any, Any]:
    return mnp.floor_divide(x, y), mnp.remainder(x, y)


def _shape_args(args: tuple[Any, ...]) -> Any:
    """``x.reshape(2, 3)`` and ``x.reshape((2, 3))`` both mean shape ``(2, 3)``."""
    return args[0] if len(args) == 1 and not isinstance(args[0], int) else args


def _reshape(self: Any, *shape: Any, order: str = "C") -> Any:
    return mnp.reshape(self, _shape_args(shape), order)


def _transpose(self: Any, *axes: Any) -> Any:
    return mnp.transpose(self, _shape_args(axes) if axes else None)


def _astype(self: Any, dtype: DTypeLike | None) -> Any:
    return lax.convert_element_type(self, dtype)


def _T(self: Any) -> Any:  # noqa: N802
    return mnp.transpose(self)


def _mT(self: Any) -> Any:  # noqa: N802
    return mnp.swapaxes(self, -1, -2)


def _at(self: Any) -> IndexUpdateHelper:
    return IndexUpdateHelper(self)


def _copy(self: object) -> Any:
    """``jnp.array(self)``: a traced value's copy is staged (``copy``), as in JAX."""
    return mnp.array(self)


def _operator_round(self: Any, ndigits: int | None = None) -> Any:
    """``round(x)`` and ``round(x, ndigits)``, as ``jax.Array``'s: half to even; without
    ``ndigits`` the result is an integer array (as ``round(7.5)`` is an ``int``)."""
    out = mnp.round(self, decimals=ndigits or 0)
    return out.astype(int) if ndigits is None else out


def _ptp(self: Any, axis: Any = None, out: None = None, keepdims: bool = False) -> Any:
    if out is not None:
        raise NotImplementedError("ptp: the 'out' argument is not supported (arrays are immutable)")
    return mnp.ptp(self, axis, keepdims)


def _view(self: object, dtype: DTypeLike | None = None, type: None = None) -> Any:
    """The same bits read as ``dtype``; a wider (narrower) dtype shrinks (grows) the last axis,
    as NumPy's ``view`` does (bool reads as one byte, complex as its two floats)."""
    if type is not None:
        raise NotImplementedError("view: the 'type' argument is not supported")
    return self if dtype is None else _bitcast(self, np.dtype(dtype))


def _byteswap(self: Any) -> Any:
    """Each element's bytes reversed, the dtype kept (JAX's ``byteswap``: the bytes as
    ``uint8`` along a new last axis, reversed; a complex swaps its two parts' each)."""
    if self.dtype.kind == "c":
        return lax.complex(_byteswap(mnp.real(self)), _byteswap(mnp.imag(self)))
    if self.dtype.itemsize == 1:
        return _copy(self)
    as_bytes = lax.bitcast_convert_type(self, np.dtype(np.uint8))
    return lax.bitcast_convert_type(lax.rev(as_bytes, (mnp.ndim(self),)), self.dtype)


def _bitcast(x: Any, dtype: np.dtype[Any]) -> Any:
    shape, src = mnp.shape(x), x.dtype
    if not shape:
        if src.itemsize != dtype.itemsize:
            raise ValueError(
                f"view: a 0-d array can only be viewed as a dtype of the same size, got "
                f"{src.name} -> {dtype.name}"
            )
        return mnp.reshape(_bitcast(mnp.reshape(x, (1,)), dtype), ())
    if (shape[-1] * src.itemsize) % dtype.itemsize:
        raise ValueError(
            f"view: the last axis of a {src.name}{list(shape)} array ({shape[-1] * src.itemsize} "
            f"bytes) is not a multiple of {dtype.name}'s size ({dtype.itemsize} bytes)"
        )
    if src == dtype:
        return x
    if src.kind == "b":
        return _bitcast(lax.convert_element_type(x, np.uint8), dtype)
    if src.kind == "c":  # interleaved real and imaginary parts
        parts = mnp.stack([mnp.real(x), mnp.imag(x)], axis=-1)
        return _bitcast(mnp.reshape(parts, (*shape[:-1], 2 * shape[-1])), dtype)
    if dtype.kind == "b":
        return lax.ne(_bitcast(x, np.dtype(np.uint8)), np.uint8(0))
    if dtype.kind == "c":
        parts = _bitcast(x, np.dtype(f"f{dtype.itemsize // 2}"))
        pairs = mnp.reshape(parts, (*shape[:-1], -1, 2))
        return lax.complex(pairs[..., 0], pairs[..., 1])
    if src.itemsize < dtype.itemsize:  # bitcast_convert_type consumes a trailing axis
        factor = dtype.itemsize // src.itemsize
        return lax.bitcast_convert_type(
            mnp.reshape(x, (*shape[:-1], shape[-1] // factor, factor)), dtype
        )
    out = lax.bitcast_convert_type(x, dtype)  # ... or adds one
    return mnp.reshape(out, (*shape[:-1], -1)) if src.itemsize > dtype.itemsize else out


def _flat(self: object) -> Any:
    raise NotImplementedError(
        "mj arrays do not implement the arr.flat property (as in JAX): use arr.ravel() or "
        "arr.flatten() instead"
    )


def _host_value(x: object, method: str) -> np.ndarray[Any, Any]:
    """``x``'s value for a host-side method (``item``, ``tolist``); a traced value raises."""
    aval = x.aval if isinstance(x, Tracer) else get_aval(x)
    if isinstance(aval, ConcreteArray):
        return np.asarray(aval.val)
    raise ConcretizationError(
        f"{method}() needs a concrete value, but it was called on a traced {aval.str_short()} "
        f"array{user_line_suffix()}. Return the array from the transformed function and call "
        f"{method}() on the result."
    )


def _item(self: object, *args: int) -> Any:
    return _host_value(self, "item").item(*args)


def _tolist(self: object) -> Any:
    return _host_value(self, "tolist").tolist()


def _itemsize(self: Any) -> int:
    return int(self.dtype.itemsize)


def _nbytes(self: Any) -> int:
    return int(self.size * self.dtype.itemsize)


def _out_none(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` as a method that also takes NumPy's ``out=None``: ``np.sum(x)`` on an mj array
    calls ``x.sum(axis=None, dtype=None, out=None)``. Any other ``out`` is refused, as JAX
    refuses it (mj arrays are immutable)."""

    def method(self: object, *args: object, out: None = None, **kwargs: object) -> Any:
        if out is not None:
            raise NotImplementedError(f"The 'out' argument to {f.__name__} is not supported.")
        return f(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = f.__name__
    method.__doc__ = f.__doc__
    return method


def _matrix_trace(
    self: Any,
    offset: int = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: DTypeLike | None = None,
    out: None = None,
) -> Any:
    if out is not None:
        raise NotImplementedError(
            "trace: the 'out' argument is not supported (arrays are immutable)"
        )
    return mnp.trace(self, offset, axis1, axis2, dtype)


def _compress(
    self: Any,
    condition: Any,
    axis: int | None = None,
    *,
    out: None = None,
    size: int | None = None,
    fill_value: Any = 0,
) -> Any:
    return mnp.compress(condition, self, axis, size=size, fill_value=fill_value, out=out)


def _contains(self: Any, other: Any) -> Any:
    """``other in x``, as ``jax.Array``'s: whether any element of the one-dimensional ``x``
    equals the scalar ``other`` (NumPy's ``in`` takes any shapes, strings and ``None``)."""
    if other is None or isinstance(other, str):
        raise TypeError(f"Array.__contains__: unsupported operand type {type(other)}.")
    if isinstance(other, _REJECTED_OPERANDS):
        raise TypeError(
            f"Array.__contains__ requires ndarray or scalar arguments, got {type(other)} at "
            "position 0."
        )
    if mnp.ndim(self) != 1:
        raise ValueError(
            f"Array.__contains__: search array must be one-dimensional, got arr.shape="
            f"{mnp.shape(self)}."
        )
    if mnp.ndim(other) != 0:
        raise ValueError(
            f"Array.__contains__: query value must be a scalar, got query.shape={mnp.shape(other)}"
        )
    return mnp.any(self == other)


def _methods() -> dict[str, Any]:
    out: dict[str, Any] = _binary_methods()
    out.update(
        __getitem__=getitem,
        __contains__=_contains,
        T=property(_T),
        mT=property(_mT),
        at=property(_at),
        reshape=_reshape,
        transpose=_transpose,
        astype=_astype,
        ravel=mnp.ravel,
        flatten=mnp.ravel,
        squeeze=mnp.squeeze,
        swapaxes=mnp.swapaxes,
        sum=_out_none(mnp.sum),
        prod=_out_none(mnp.prod),
        mean=_out_none(mnp.mean),
        var=_out_none(mnp.var),
        std=_out_none(mnp.std),
        max=_out_none(mnp.max),
        min=_out_none(mnp.min),
        argmax=_out_none(mnp.argmax),
        argmin=_out_none(mnp.argmin),
        all=_out_none(mnp.all),
        any=_out_none(mnp.any),
        cumsum=_out_none(mnp.cumsum),
        cumprod=_out_none(mnp.cumprod),
        dot=mnp.dot,
        clip=_out_none(mnp.clip),
        round=_out_none(mnp.round),
        __round__=_operator_round,
        conj=mnp.conjugate,
        conjugate=mnp.conjugate,
        real=property(mnp.real),
        imag=property(mnp.imag),
        copy=_copy,
        take=_out_none(mnp.take),
        ptp=_ptp,
        view=_view,
        byteswap=_byteswap,
        flat=property(_flat),
        # jax.Array's NumPy-level methods, with its signatures
        sort=mnp.sort,
        argsort=mnp.argsort,
        argpartition=mnp.argpartition,
        searchsorted=mnp.searchsorted,
        nonzero=mnp.nonzero,
        diagonal=mnp.diagonal,
        trace=_matrix_trace,
        repeat=mnp.repeat,
        choose=mnp.choose,
        compress=_compress,
    )
    return out


#: The one method table of mj's array types, name -> implementation (functions, or
#: properties such as ``T`` and ``at``): the operators, the methods above and host access
#: (``item``, ``tolist``; a tracer answers only if its value is concrete, under grad).
array_methods: dict[str, Any] = {
    **_methods(),
    "item": _item,
    "tolist": _tolist,
    "itemsize": property(_itemsize),
    "nbytes": property(_nbytes),
}


def _eager_getitem(self: Any, key: Any) -> Any:
    """JAX indexing semantics (e.g. out-of-bounds integer indices clamp)."""
    view = _ndarray_view(self, np.ndarray)
    out = getitem(view, key)
    return self if out is view else out  # (x[:], x[...]: the whole array, unchanged)


def _weak_eager_getitem(self: object, key: object) -> Any:
    """Indexing keeps the weak type, as in JAX (also where it is traced: ``jit``)."""
    out = _eager_getitem(self, key)
    if isinstance(out, EagerArray):
        return weak_result(out)
    return convert(out, dtype_weak(out)[0], True)


def _eager_astype(self: Any, dtype: DTypeLike | None, *args: Any, **kwargs: Any) -> Any:
    """Converts as mj does under ``jit`` (NaN to an integer is 0, out-of-range values
    saturate, as in XLA); NumPy's keyword forms (``copy=False``, which NumPy's own code
    uses on any array) keep NumPy's method."""
    if args or kwargs:
        return eager_result(np.ndarray.astype(self, dtype, *args, **kwargs))
    return lax.convert_element_type(self, dtype)


def _eager_take(self: Any, *args: Any, **kwargs: Any) -> Any:
    """``mj.numpy.take``: JAX's out-of-bounds rules (fill by default), as under ``jit``."""
    return mnp.take(self, *args, **kwargs)


_ndarray_view = np.ndarray.view

#: Methods of the eager array classes (``np.ndarray`` subclasses) that replace NumPy's own
#: for every caller, NumPy's functions included: set on the class by
#: :func:`install_array_methods` before the table, as if its class body defined them.
_EAGER_OWN: dict[type, dict[str, Callable[..., Any]]] = {
    EagerArray: {"__getitem__": _eager_getitem, "astype": _eager_astype, "take": _eager_take},
    WeakEagerArray: {"__getitem__": _weak_eager_getitem},
}

#: Every array type the table is installed on, with what its own class body defines (kept:
#: device arrays read ``item()`` straight from their buffer) and, for the eager arrays,
#: :data:`_EAGER_OWN` (``astype``, ``take``, ...).
_array_types: dict[type, dict[str, Any]] = {}


def install_array_methods(*classes: type) -> None:
    """Install :data:`array_methods` on ``classes`` (mj-core installs it on Tracer and
    EagerArray, mj-xla on its Array); a class installed before is left alone, so a higher
    layer's installing never changes a lower layer's classes. Arrays are unhashable, as in JAX.

    ``np.ndarray`` subclasses (``EagerArray``) get the table's operators and the methods
    NumPy lacks, but keep NumPy's own ``reshape``, ``sum``, ...: NumPy's functions call
    those on their arguments (``np.sum(x)`` calls ``x.sum``), so mj-level methods would
    re-enter ``bind`` from inside impl rules. See :func:`_ndarray_attribute`.
    """
    for cls in classes:
        if cls in _array_types:
            continue
        for owner, methods in _EAGER_OWN.items():
            if issubclass(owner, cls):
                for name, impl in methods.items():
                    setattr(owner, name, impl)
        own = _array_types[cls] = dict(vars(cls))
        if issubclass(cls, np.ndarray):
            _install_on_ndarray_subclass(cls, own)
        else:
            for name, impl in array_methods.items():
                if name not in own:
                    setattr(cls, name, impl)
        cls.__hash__ = None  # type: ignore[assignment]


# --- np.ndarray subclasses ------------------------------------------------------------------

#: NumPy's methods an ``np.ndarray`` subclass keeps, with the result viewed as the subclass
#: (``np.sum(x)`` calls ``x.sum``: NumPy's implementation, an ``EagerArray`` result).
_NDARRAY_RESULTS = frozenset({
    "sum", "prod", "mean", "var", "std", "max", "min", "argmax", "argmin", "all", "any",
    "cumsum", "cumprod", "clip", "round", "dot", "conj", "conjugate", "trace",
    "diagonal", "nonzero", "searchsorted", "repeat", "squeeze",
})  # fmt: skip

#: ndarray methods NumPy's own functions call expecting NumPy's behaviour, where
#: ``jax.Array``'s differ: ``np.sort``, ``np.unique`` and ``np.median`` sort or partition a
#: copy *in place* with ``a.sort()``/``a.partition()``, and read indices from ``argsort`` and
#: ``searchsorted`` of their copies. Once the table has the JAX method, a writable array (such
#: a copy) gets NumPy's and an mj array JAX's (:func:`_numpy_if_writable`).
_CALLED_BY_NUMPY = frozenset({
    "sort", "argsort", "argpartition", "searchsorted", "nonzero", "repeat", "choose",
    "compress", "partition",
})  # fmt: skip


def _partition_in_place(self: object, *args: object, **kwargs: object) -> None:
    raise TypeError(
        "mj arrays are immutable: x.partition(kth) would partition x in place. Use "
        "mnp.partition(x, kth), which returns the partitioned copy."
    )


#: What an mj (read-only) array gets for an in-place ndarray method that ``jax.Array`` lacks.
_IMMUTABLE = {"partition": _partition_in_place}


#: Keywords of ``jax.Array``'s methods that NumPy's same-named ndarray methods lack: a call
#: with one of them runs the table's (JAX's) method instead of NumPy's.
_JAX_ONLY_KEYWORDS = {"dot": frozenset({"precision", "preferred_element_type"})}


def _ndarray_result(name: str, impl: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """NumPy's own ``ndarray.<name>`` with its result viewed as an ``EagerArray`` (``impl``,
    the table's method, for a call with a keyword only JAX's method takes)."""
    method = getattr(np.ndarray, name)
    jax_only = _JAX_ONLY_KEYWORDS.get(name, frozenset())

    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        if impl is not None and not jax_only.isdisjoint(kwargs):
            return impl(self, *args, **kwargs)
        # JAX takes a list of axes (``x.max(axis=[0, 1])``); NumPy's methods only a tuple.
        if args and type(args[0]) is list:
            args = (tuple(args[0]), *args[1:])
        if type(kwargs.get("axis")) is list:
            kwargs["axis"] = tuple(kwargs["axis"])
        # JAX's ``where=None`` is no mask; NumPy's methods read None as a mask of all False
        # (``x.sum(where=None)`` would be 0) or refuse it (``x.max(where=None)``)
        if "where" in kwargs and kwargs["where"] is None:
            del kwargs["where"]
        return eager_result(method(self, *args, **kwargs))

    wrapped.__name__ = wrapped.__qualname__ = name
    wrapped.__doc__ = method.__doc__
    return wrapped


def _numpy_if_writable(
    name: str, numpy_impl: Callable[..., Any], mj_impl: Callable[..., Any]
) -> Callable[..., Any]:
    """A method running ``numpy_impl`` on a writable array, else ``mj_impl``.

    An eager array *is* an ``np.ndarray`` (ufuncs and impl rules run on it at NumPy's speed),
    so NumPy's functions hand it to their own code: ``np.sort(x)`` copies ``x`` and calls
    ``copy.sort()`` to sort it in place, while ``x.sort()`` in JAX code must return the sorted
    copy and leave ``x`` alone. The array tells the two apart, not the caller: every array mj
    makes is read-only (immutable, as ``jax.Array``; ``x.copy()`` too), so a writable one is a
    NumPy array made by NumPy's own code, and it gets NumPy's method, as a ``jax.Array``
    passed through ``np.asarray`` would. NumPy's functions themselves (``np.sort``,
    ``np.percentile``, ...) run on plain NumPy views of mj arrays
    (:meth:`~mj_core._eager_array.EagerArray.__array_function__`).
    """

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if self.flags.writeable:
            return numpy_impl(self, *args, **kwargs)
        return mj_impl(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = mj_impl.__doc__
    return method


def _ndarray_attribute(own: dict[str, Any], name: str, impl: Any) -> Any:
    """What an ``np.ndarray`` subclass whose class body defines ``own`` gets for the table's
    ``name`` (``impl``; ``None`` if only NumPy has the method), or ``None`` to keep NumPy's."""
    if name in _CALLED_BY_NUMPY and impl is not None:
        numpy_impl = own.get(name)
        if numpy_impl is None:
            numpy_impl = (
                _ndarray_result(name) if name in _NDARRAY_RESULTS else getattr(np.ndarray, name)
            )
        return _numpy_if_writable(name, numpy_impl, impl)
    if name in _NDARRAY_RESULTS:
        return _ndarray_result(name, impl)
    if name in own or impl is None:
        return None
    if name.startswith("__") or not hasattr(np.ndarray, name):
        return impl  # operators (mj's promotion and errors), and methods NumPy lacks (ptp)
    return None


def _install_on_ndarray_subclass(cls: type, own: dict[str, Any]) -> None:
    """The table on an ``np.ndarray`` subclass. In-place operators build a new array, as in
    JAX (an ``EagerArray`` may be a view of a user's NumPy array)."""
    names = {*array_methods, *_NDARRAY_RESULTS, *_IMMUTABLE}
    for name in sorted(names):
        impl = array_methods.get(name, _IMMUTABLE.get(name))
        attribute = _ndarray_attribute(own, name, impl)
        if attribute is None:
            continue
        if cls is EagerArray and name in _OPERATOR_FUNCTIONS:
            attribute = operator_method(_OPERATOR_FUNCTIONS[name], attribute)
        setattr(cls, name, attribute)
        inplace = name.replace("__", "__i", 1)  # (no reflected __rxxx__ has an in-place form)
        if name.startswith("__") and hasattr(np.ndarray, inplace):
            setattr(cls, inplace, attribute)
