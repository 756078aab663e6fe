r"""The interpreter stack: main traces, traces, tracers, and ``bind``.

This is Autodidax Part 1's machinery (with Part 3's dynamic trace for omnistaging), made
production-grade:

* the trace stack is **per thread** (a ``threading.local``), so tracing in several threads at
  once is safe;
* leaving :func:`new_main` by an exception restores the stack, and every tracer of the ended
  main trace is marked dead: using it later raises :class:`TracerLeakError`;
* eager evaluation is one path, :func:`eval_primitive`: when no transformation is active on
  this thread :func:`bind` calls the impl rule directly, so eager evaluation costs little more
  than NumPy itself, and the elementwise wrappers (:func:`binds`) call the primitive's NumPy
  ufunc. A leaked tracer reaching NumPy on that path is caught by the tracer's
  ``__array__``/``__array_ufunc__``/``__array_function__`` hooks, so the fast path needs no
  per-argument check;
* eager operations emit no NumPy floating-point warnings (``log(0)``, ``0 / 0``), as JAX emits
  none: a warnings filter ignores the ``RuntimeWarning``\ s raised from mj's own modules (free
  until a warning happens; the user's NumPy calls keep theirs), and where the user turned
  warnings or floating-point errors into exceptions, :func:`eval_primitive` recomputes under
  ``np.errstate(all="ignore")``.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, TypeVar

import numpy as np

from mj_core._avals import ShapedArray, get_aval, raise_to_shaped
from mj_core._config import config
from mj_core._eager_array import (
    EagerArray,
    WeakEagerArray,
    canonical_operand,
    canonical_operands,
    eager_result,
    eager_results,
    views_operand,
    weak_result,
)
from mj_core._eager_dispatch import eager_handlers
from mj_core._eager_nans import check_special
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core.errors import (
    ConcretizationError,
    MJError,
    ShapeDtypeError,
    TracerLeakError,
    user_line_suffix,
)

__all__ = [
    "EvalTrace",
    "MainTrace",
    "Trace",
    "Tracer",
    "bind",
    "bind1",
    "binds",
    "current_trace_stack",
    "eval_primitive",
    "find_top_trace",
    "full_lower",
    "full_raise",
    "is_eager",
    "new_dynamic",
    "new_main",
]


class MainTrace:
    """One active transformation: its level in the stack, trace class and global data."""

    __slots__ = ("alive", "global_data", "level", "trace", "trace_type")

    def __init__(self, level: int, trace_type: type[Trace], global_data: Any) -> None:
        self.level = level
        self.trace_type = trace_type
        self.global_data = global_data
        self.alive = True
        self.trace = trace_type(self)  # one Trace per main: tracers share it, bind reuses it

    def __repr__(self) -> str:
        return f"MainTrace({self.level}, {self.trace_type.__name__})"


class Trace:
    """How one transformation interprets primitives applied to its tracers."""

    __slots__ = ("main",)

    #: Shown in error messages ("a tracer of the jvp transformation ...").
    transformation_name: ClassVar[str] = "a transformation"

    def __init__(self, main: MainTrace) -> None:
        self.main = main

    def pure(self, val: Any) -> Any:
        """Box a non-tracer value (a constant) as this trace's tracer."""
        raise NotImplementedError(f"{type(self).__name__}.pure")

    def lift(self, val: Tracer) -> Any:
        """Box a tracer of a lower-level trace as this trace's tracer."""
        raise NotImplementedError(f"{type(self).__name__}.lift")

    def process_primitive(
        self, primitive: Primitive, tracers: list[Any], params: dict[str, Any]
    ) -> list[Any]:
        raise NotImplementedError(f"{type(self).__name__}.process_primitive")


class _TraceState(threading.local):
    """Per-thread interpreter state; a new thread starts with only the eval trace."""

    def __init__(self) -> None:
        base = MainTrace(0, EvalTrace, None)
        self.base = base
        self.trace_stack: list[MainTrace] = [base]
        self.dynamic_trace: MainTrace = base
        self.eager = True  # no transformation active: bind may call impl rules directly

    def refresh(self) -> None:
        self.eager = len(self.trace_stack) == 1 and self.dynamic_trace is self.base


class EvalTrace(Trace):
    """The bottom of every stack: apply the impl rule to concrete values."""

    __slots__ = ()
    transformation_name = "eager evaluation"

    def pure(self, val: Any) -> Any:
        return val

    lift = pure

    def process_primitive(
        self, primitive: Primitive, tracers: list[Any], params: dict[str, Any]
    ) -> list[Any]:
        return eval_primitive(primitive, tracers, params)


_state = _TraceState()
_ndarray = np.ndarray
_view = np.ndarray.view
_float32 = np.dtype(np.float32)  # the common eager dtype: one identity test for "not 64-bit"
# positional (its stub says keyword-only): a keyword argument costs each eager op ~100 ns
_setflags: Callable[[np.ndarray[Any, Any], bool], None] = np.ndarray.setflags  # type: ignore[assignment]

# Number of transformations active on *any* thread. While it is zero, ``bind`` skips even the
# thread-local read; when it is not, each thread still decides from its own ``_state.eager``.
_active_count = 0
_active_lock = threading.Lock()


def _enter_transformation() -> None:
    global _active_count
    with _active_lock:
        _active_count += 1


def _exit_transformation() -> None:
    global _active_count
    with _active_lock:
        _active_count -= 1


def current_trace_stack() -> tuple[MainTrace, ...]:
    """A snapshot of this thread's trace stack (for tests and debugging)."""
    return tuple(_state.trace_stack)


def is_eager() -> bool:
    """True when no transformation is active on this thread."""
    return _state.eager


@contextmanager
def new_main(trace_type: type[Trace], global_data: Any = None) -> Iterator[MainTrace]:
    """Push a new transformation on this thread's stack for the duration of the block."""
    st = _state
    stack = st.trace_stack
    main = MainTrace(len(stack), trace_type, global_data)
    stack.append(main)
    st.eager = False
    _enter_transformation()
    try:
        yield main
    finally:
        main.alive = False
        del stack[main.level :]
        st.refresh()
        _exit_transformation()


@contextmanager
def new_dynamic(main: MainTrace) -> Iterator[None]:
    """Make ``main`` the dynamic trace: every primitive bound in the block is staged into it,
    even one applied to constants only (omnistaging)."""
    st = _state
    prev = st.dynamic_trace
    st.dynamic_trace = main
    st.eager = False
    _enter_transformation()
    try:
        yield
    finally:
        st.dynamic_trace = prev
        st.refresh()
        _exit_transformation()


class Tracer:
    """A value being traced by some transformation; behaves like an array."""

    __slots__ = ("_trace",)
    __array_priority__ = 1000

    _trace: Trace

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError(f"{type(self).__name__}.aval")

    def full_lower(self) -> Any:
        return self

    # --- array-like attributes, forwarded to the abstract value -----------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def weak_type(self) -> bool:
        """Whether the value has a weak type (a Python scalar's; see NEP 50 promotion)."""
        return self.aval.weak_type

    def _dtype_weak(self) -> tuple[np.dtype[Any], bool]:
        """``(dtype, weak_type)`` in one call: NumPy-level promotion asks for both on every
        binary operation it traces."""
        aval = self.aval
        return aval.dtype, aval.weak_type

    @property
    def size(self) -> int:
        return self.aval.size

    def __len__(self) -> int:
        shape = self.aval.shape
        if not shape:
            raise TypeError("len() of unsized object (a 0-d traced array)")
        return shape[0]

    def __iter__(self) -> Iterator[Any]:
        if not self.aval.shape:
            raise TypeError("iteration over a 0-d traced array")
        return (self[i] for i in range(self.aval.shape[0]))  # type: ignore[index]

    def __repr__(self) -> str:
        return f"Traced<{self.aval.str_short()}>with<{type(self._trace).__name__}>"

    # --- places where Python or NumPy need a concrete value ---------------------------------
    def _check_alive(self) -> None:
        if not self._trace.main.alive:
            raise _leak_error(self)

    def __bool__(self) -> bool:
        self._check_alive()
        return self.aval._bool(self)

    def _concrete_scalar(self, kind: str) -> Any:
        """``int(x)`` and friends: the value if the abstract value knows it (a
        ``ConcreteArray``), else the aval raises ``ConcretizationError``."""
        self._check_alive()
        return self.aval._scalar(kind, self)

    def __int__(self) -> int:
        return self._concrete_scalar("int")  # type: ignore[no-any-return]

    def __float__(self) -> float:
        raise self._dtype_conversion_error("float")

    def __complex__(self) -> complex:
        raise self._dtype_conversion_error("complex")

    def _dtype_conversion_error(self, fun: str) -> MJError:
        """``float(x)``/``complex(x)`` refuse every tracer, even one whose value is known (under
        ``grad``), as JAX's do: the Python number would silently drop the derivative."""
        self._check_alive()
        return ConcretizationError(
            "Abstract tracer value encountered where concrete value is expected: traced array "
            f"{self.aval.str_short()}{user_line_suffix()}.\nThe problem arose with the `{fun}` "
            f"function. If trying to convert the data type of a value, try using "
            f"`x.astype({fun})` or `mnp.array(x, {fun})` instead."
        )

    def __index__(self) -> int:
        return self._concrete_scalar("index")  # type: ignore[no-any-return]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray[Any, Any]:
        raise self._numpy_conversion_error("np.asarray()")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        # ``ndarray * tracer`` reaches here through NumPy's operator: apply mj's operator.
        dunder = _OPERATOR_UFUNCS.get(ufunc.__name__) if method == "__call__" else None
        if dunder is not None and not kwargs:
            self._check_alive()
            return getattr(type(self), dunder)(*inputs)
        raise self._numpy_conversion_error(f"the NumPy ufunc {ufunc.__name__}")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        # NumPy's own implementation, as for JAX's tracers (which do not override it): the
        # functions that call the array's method (np.sum -> x.sum, np.transpose, np.round,
        # np.shape, ...) work; those that need data reach __array__, reported by name here.
        implementation = getattr(func, "_implementation", None)
        if implementation is None:
            raise self._numpy_conversion_error(f"the NumPy function {func.__name__}")
        try:
            return implementation(*args, **kwargs)
        except ConcretizationError:
            raise self._numpy_conversion_error(f"the NumPy function {func.__name__}") from None

    def _numpy_conversion_error(self, what: str) -> MJError:
        if not self._trace.main.alive:
            return _leak_error(self)
        where = user_line_suffix()
        return ConcretizationError(
            f"A traced {self.aval.str_short()} value was passed to {what}"
            f"{where}. NumPy needs concrete data, but this value is being "
            f"traced by {self._trace.transformation_name}. Use mj.numpy (import mj.numpy as "
            "mnp) instead of numpy inside transformed functions."
        )


#: NumPy ufuncs behind the array operators, and the operator a tracer applies instead (an
#: ``ndarray`` on the left of ``*`` hands the operation to the tracer's ``__array_ufunc__``).
_OPERATOR_UFUNCS = {
    "add": "__add__",
    "subtract": "__sub__",
    "multiply": "__mul__",
    "true_divide": "__truediv__",
    "divide": "__truediv__",
    "floor_divide": "__floordiv__",
    "remainder": "__mod__",
    "divmod": "__divmod__",
    "power": "__pow__",
    "matmul": "__matmul__",
    "left_shift": "__lshift__",
    "right_shift": "__rshift__",
    "bitwise_and": "__and__",
    "bitwise_or": "__or__",
    "bitwise_xor": "__xor__",
    "equal": "__eq__",
    "not_equal": "__ne__",
    "less": "__lt__",
    "less_equal": "__le__",
    "greater": "__gt__",
    "greater_equal": "__ge__",
}


def _leak_error(tracer: Tracer) -> TracerLeakError:
    name = tracer._trace.transformation_name
    where = user_line_suffix()
    return TracerLeakError(
        f"A tracer of the {name} transformation ({tracer.aval.str_short()}) was used after "
        f"that transformation ended{where}. It escaped the transformed "
        "function, e.g. through a global, a closure or an attribute; return it instead."
    )


def find_top_trace(xs: Sequence[Any]) -> Trace:
    """The trace that must handle a primitive applied to ``xs``: the highest-level one among
    the arguments' traces and the dynamic trace."""
    top = _state.dynamic_trace
    for x in xs:
        if isinstance(x, Tracer):
            main = x._trace.main
            if not main.alive:
                raise _leak_error(x)
            if main.level > top.level:
                top = main
    return top.trace


def full_raise(trace: Trace, val: Any) -> Any:
    """Make ``val`` a tracer of ``trace``: box constants, lift lower-level tracers."""
    if not isinstance(val, Tracer):
        return trace.pure(val)
    val_main = val._trace.main
    main = trace.main
    if val_main is main:
        return val
    if not val_main.alive:
        raise _leak_error(val)
    if val_main.level < main.level:
        return trace.lift(val)
    raise TracerLeakError(
        f"A tracer of the {val._trace.transformation_name} transformation (level "
        f"{val_main.level}) reached {trace.transformation_name} (level {main.level}), which "
        "cannot own it: it escaped its transformation (e.g. through a global or closure)."
    )


def full_lower(val: Any) -> Any:
    """Unbox a tracer that does not need its trace any more (e.g. an eval-trace value)."""
    if isinstance(val, Tracer):
        return val.full_lower()
    return val


def _impl_error(primitive: Primitive, args: Sequence[Any], err: Exception) -> ShapeDtypeError:
    try:
        shapes = ", ".join(get_aval(a).str_short() for a in args)
    except TypeError:
        shapes = ", ".join(type(a).__name__ for a in args)
    where = user_line_suffix()
    return ShapeDtypeError(f"{primitive.name}: invalid operands ({shapes}){where}: {err}")


#: NumPy attributes a ufunc's warning to the Python frame calling it: one of mj's modules here.
#: (A ``warnings.catch_warnings()`` block active at mj's first import drops it on exit.)
warnings.filterwarnings(
    "ignore", category=RuntimeWarning, module=r"mj(_core|_ir|_autodiff|_batch|_control|_xla)?(\.|$)"
)


def eval_primitive(primitive: Primitive, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
    """Apply ``primitive``'s impl rule to concrete ``args`` now, whatever traces are active.

    The one eager path: :func:`bind` and :func:`bind1` take it when no transformation is
    active, the eval trace for constants under one, and the wrappers of :func:`binds` when their
    ufunc shortcut does not apply. Outputs are viewed as :class:`EagerArray`; an invalid operand
    raises a ``ShapeDtypeError`` naming the primitive, the operands and the user's line.
    An operand whose type computes primitives itself (mj-xla's sharded arrays) is offered the
    whole operation first (:data:`~mj_core._eager_dispatch.eager_handlers`). Host operands enter
    canonicalized (:func:`canonical_operands`), as under ``jit``."""
    if eager_handlers:
        for a in args:
            if type(a) in eager_handlers:
                handled = eager_handlers[type(a)](primitive, args, params)
                if handled is not NotImplemented:  # (declined: the impl rule evaluates it)
                    return handled
                break
    args = canonical_operands(args)
    try:
        outs = impl_rules[primitive](*args, **params)
    except MJError:
        raise
    except (ValueError, TypeError) as err:
        raise _impl_error(primitive, args, err) from err
    except (RuntimeWarning, FloatingPointError):  # warnings made errors: JAX raises none
        with np.errstate(all="ignore"):
            outs = impl_rules[primitive](*args, **params)
    if config.debug_nans or config.debug_infs:
        check_special(primitive, outs)
    weak = False  # weak operands and no strong ones but bools (rare): JAX's weak outputs
    for a in args:
        t = type(a)
        if t is EagerArray or t is _ndarray:  # the common case: a strong array
            if a.dtype.kind != "b":  # (a bool one may select between weak values)
                break
        elif t in _WEAK_OPERANDS:
            weak = True
        elif t is not bool:
            break
    else:
        if weak:
            return _weak_outputs(primitive, args, params, outs)
    if params and params.get("weak_type") is True:  # convert_element_type to a weak type
        return _weak_outputs(primitive, args, params, outs)
    if len(outs) == 1:  # eager_results' common case, inlined
        out = outs[0]
        if type(out) is _ndarray and out.itemsize < 8:  # never a 64-bit type to narrow
            if out.base is not None and out.flags.writeable and views_operand(out, args):
                out = out.copy()  # a view (reshape, slice) of a caller's writable NumPy array
            view = _view(out, EagerArray)
            _setflags(view, False)  # read-only, as jax.Array's NumPy views
            return [view]
        return [eager_result(out, args)]
    return eager_results(outs, args)


#: The types of weakly typed eager operands: Python scalars (not bools) and weak arrays.
_WEAK_OPERANDS = frozenset({int, float, complex, WeakEagerArray})


def _weak_outputs(
    primitive: Primitive, args: Sequence[Any], params: dict[str, Any], outs: Sequence[Any]
) -> list[Any]:
    """Eager outputs of ``primitive`` on operands that are all weakly typed (Python scalars,
    :class:`WeakEagerArray`; bools aside): weak where its typing rule says so (``sqrt(2.0)``
    is, ``sum(2.0)`` is not), as under ``jit``."""
    rule = abstract_eval_rules.get(primitive)
    if rule is None:
        return eager_results(list(outs), args)
    try:
        avals = rule(*[raise_to_shaped(get_aval(a)) for a in args], **params)
    except Exception:  # the impl rule accepted these: its typing rule has the last word
        return eager_results(list(outs), args)
    return [
        weak_result(o) if av.weak_type else eager_result(o, args)
        for o, av in zip(outs, avals, strict=True)
    ]


def bind(primitive: Primitive, *args: Any, **params: Any) -> list[Any]:
    """Apply ``primitive`` to ``args``: dispatch to the top trace, return a list of outputs."""
    if not _active_count or _state.eager:
        return eval_primitive(primitive, args, params)
    trace = find_top_trace(args)
    if type(trace) is EvalTrace:  # only constants: no boxing or unboxing to do
        return eval_primitive(primitive, args, params)
    tracers = []
    for arg in args:  # a loop, not a comprehension: no closure cell made on every call
        # full_raise's common case (already a tracer of this trace) inlined
        tracers.append(
            arg if isinstance(arg, Tracer) and arg._trace is trace else full_raise(trace, arg)
        )
    outs = trace.process_primitive(primitive, tracers, params)
    return [out.full_lower() if isinstance(out, Tracer) else out for out in outs]


def bind1(primitive: Primitive, *args: Any, **params: Any) -> Any:
    """``bind`` for a single-output primitive: returns the output itself."""
    if not _active_count or _state.eager:
        return eval_primitive(primitive, args, params)[0]
    trace = find_top_trace(args)
    if type(trace) is EvalTrace:  # only constants: no boxing or unboxing to do
        return eval_primitive(primitive, args, params)[0]
    tracers = []
    for arg in args:  # a loop, not a comprehension: no closure cell made on every call
        tracers.append(
            arg if isinstance(arg, Tracer) and arg._trace is trace else full_raise(trace, arg)
        )
    (out,) = trace.process_primitive(primitive, tracers, params)
    return out.full_lower() if isinstance(out, Tracer) else out


_Operation = TypeVar("_Operation", bound=Callable[..., Any])

# The array kinds a Python scalar operand fits into without changing kind: such a weak operand
# takes the array's dtype in NumPy's ufuncs (NEP 50) exactly as on JAX's lattice. bfloat16 and
# the float8 types (kind "V") are not listed: NumPy computes ``bfloat16 * 2.0`` in float32.
_SCALAR_FITS: dict[type, str] = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}


#: The range of the default integer type JAX checks a Python int operand against first
#: (int32: with x64 a wider int is checked again by the full path).
INT32_BOUNDS = (-(2**31), 2**31 - 1)

# The integer dtypes' ranges, clipped to int32's: NumPy compares an integer array with a Python
# int outside its dtype's range exactly (``uint8 == 300`` is False), where JAX converts the int
# first (wrapping: 44 == 300 is True) or raises; such operands leave the ufunc shortcut.
_INT_RANGES: dict[np.dtype[Any], tuple[int, int]] = {
    np.dtype(t): (
        max(int(np.iinfo(t).min), INT32_BOUNDS[0]),
        min(int(np.iinfo(t).max), INT32_BOUNDS[1]),
    )
    for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
}


def _fits(dtype: np.dtype[Any], value: Any) -> bool:
    """Whether the Python scalar ``value`` (next to an array of ``dtype``) is not an int outside
    int32 (JAX checks the default integer type's range) or outside an integer ``dtype``'s."""
    if type(value) is not int:
        return True
    low, high = _INT_RANGES.get(dtype, INT32_BOUNDS)
    return low <= value <= high


def _float_operands(dx: np.dtype[Any] | None, dy: np.dtype[Any] | None) -> bool:
    """Whether a float-valued op's operands (``None``: a Python scalar) are float or complex,
    so that NumPy computes it in their dtype, as JAX does."""
    d = dx if dx is not None else dy
    return d is not None and d.kind in "fc"


# The NumPy data of an EagerArray operand: an EagerArray made by ``_view(out, EagerArray)`` views
# a plain array of the same layout, its ``base`` (NumPy stops collapsing a view's base at a
# change of type). A ufunc given that array instead of the EagerArray skips NumPy's checks of a
# subclass operand (``__array_ufunc__``, ``__array_wrap__``, ``__array_priority__``), ~140 ns
# per operand. Views NumPy makes of an EagerArray (``x.T``) have an EagerArray base, and an
# EagerArray owning its data none: those are passed as they are.

#: Python scalars as the read-only 0-d float32 arrays a float32 array's ufunc would convert
#: them to (NEP 50's weak scalars, JAX's too): NumPy's own conversion of a Python scalar
#: operand costs a small op ~330 ns, a lookup here ~40. Zeros and NaN are never keys (``0.0 ==
#: -0.0`` and ``nan != nan``), so a hit stands for exactly the value looked up.
_float32_scalars: dict[float, np.ndarray[Any, Any]] = {}
_FLOAT32_SCALARS_LIMIT = 256


def _float32_scalar(value: float) -> Any:
    """``value`` (a Python float or int) as a float32 array operand: a cache miss of
    :data:`_float32_scalars`. An int outside int32 is JAX's ``OverflowError`` unless 64-bit
    types are on, and then NumPy converts it (returned as it is)."""
    if type(value) is int and not INT32_BOUNDS[0] <= value <= INT32_BOUNDS[1]:
        get_aval(value)  # raises where the int does not fit the default int type
        return value
    out = np.array(value, _float32)
    _setflags(out, False)
    if value and value == value:  # not a zero, not NaN
        if len(_float32_scalars) >= _FLOAT32_SCALARS_LIMIT:
            _float32_scalars.clear()
        _float32_scalars[value] = out
    return out


def binds(
    primitive: Primitive, numpy: Callable[[Any, Any], Any] | None = None
) -> Callable[[_Operation], _Operation]:
    """Decorator for the wrapper of an elementwise primitive of one or two operands and no
    params: the decorated function (its signature and docstring) becomes
    ``bind1(primitive, ...)``.

    Eager NumPy-style code runs these operations most, so the wrapper first tries the
    primitive's ufunc shortcut (``impl_rules.shortcut(primitive)``: the impl rule's computation
    returning the output itself) and views the result as an :class:`EagerArray`, in one Python
    call. Two operands take the shortcut only when NumPy's dtype rules cannot differ from
    JAX's: equal dtypes, or an array and a Python scalar of a kind that fits into it (JAX's weak
    typing, NEP 50's too). Everything else goes through :func:`bind1` and so
    :func:`eval_primitive` (tracing, mixed dtypes, a failing operand, a primitive whose shortcut
    was cleared because another impl rule was registered) or, given ``numpy`` (the NumPy-level
    wrappers: ``mnp.add``), through ``numpy(x, y)``, which promotes on JAX's lattice before
    binding: lax never promotes. The ufunc is given an EagerArray's plain NumPy data and, next to
    a float32 array, a Python scalar as a cached float32 array: NumPy is slower on both."""
    # The wrappers' only closure cells (the shortcut names the primitive too, for the
    # fallback): each cell is copied on every call.
    shortcut = impl_rules.shortcut(primitive)
    fits = _SCALAR_FITS
    inexact = shortcut.inexact_only  # atan2 of integers: not NumPy's float16/float64

    def decorate(signature: _Operation) -> _Operation:
        nin = signature.__code__.co_argcount
        # One shortcut, spelled for each arity: ``*args`` would cost every eager op a tuple
        # and would let a unary ufunc take a second operand as its ``out`` array.
        if nin == 1 and shortcut.inexact_only:  # sin, exp, ...: dtype in, dtype out

            def op(x: Any) -> Any:
                # The common case first, in as few steps as it takes: an EagerArray of plain
                # data, outside tracing; everything else is ``general1``'s
                if type(x) is EagerArray and (not _active_count or _state.eager):
                    ufunc = shortcut.ufunc
                    a = x.base
                    if ufunc is not None and type(a) is _ndarray:
                        try:
                            out = ufunc(a)
                        except Exception:
                            pass  # reported by the general path
                        else:
                            if type(out) is _ndarray:  # (0-d operands: a NumPy scalar)
                                dt: np.dtype[Any] = out.dtype
                                if dt is _float32:  # (see general1)
                                    _setflags(out, False)
                                    return _view(out, EagerArray)
                                if dt is a.dtype:
                                    if dt.itemsize < 8:
                                        _setflags(out, False)
                                        return _view(out, EagerArray)
                                    return eager_result(out)
                return general1(x)

            def general1(x: Any) -> Any:
                if not _active_count or _state.eager:
                    ufunc = shortcut.ufunc
                    if ufunc is not None:
                        a = x  # the NumPy data of x (see above binds)
                        if type(x) is EagerArray:
                            b = x.base
                            if type(b) is _ndarray:
                                a = b
                        else:
                            a = canonical_operand(x)  # float64 host data: float32 first
                        try:  # (only NumPy data's result is kept: other types take bind1)
                            out = ufunc(a) if type(a) is _ndarray else None
                        except Exception:
                            pass  # bind1 below reports it (outside this handler: one traceback)
                        else:
                            if type(out) is _ndarray:
                                dt: np.dtype[Any] = out.dtype
                                # NumPy's float32 is JAX's (of float32, int16 and uint16), its
                                # float16/float64 of other integers are not; Python scalars,
                                # lists and weak arrays (a weak result) take bind1 below
                                if dt is _float32:
                                    _setflags(out, False)  # read-only, as jax.Array's views
                                    return _view(out, EagerArray)  # (inherits the flag)
                                if dt is a.dtype:
                                    if dt.itemsize < 8:
                                        _setflags(out, False)
                                        return _view(out, EagerArray)
                                    return eager_result(out)
                return bind1(shortcut.primitive, x)

        elif nin == 1:

            def op(x: Any) -> Any:
                if not _active_count or _state.eager:
                    ufunc = shortcut.ufunc
                    if ufunc is not None:
                        a = x
                        if type(x) is EagerArray:
                            b = x.base
                            if type(b) is _ndarray:
                                a = b
                        else:
                            a = canonical_operand(x)
                        if type(a) is _ndarray:  # Python scalars, weak arrays: bind1
                            try:
                                out = ufunc(a)
                            except Exception:
                                pass  # bind1 below reports it (outside this handler)
                            else:  # eval_primitive's view, inlined
                                if type(out) is _ndarray and out.itemsize < 8:
                                    _setflags(out, False)
                                    return _view(out, EagerArray)
                                return eager_result(out)
                return bind1(shortcut.primitive, x)

        elif nin == 2 and numpy is not None and shortcut.keeps_dtype:
            # mnp.add & co: NumPy's ufunc result is JAX's whenever its dtype is an operand's
            # (mixed dtypes NumPy widens, like int32 + float32 -> float64, and bfloat16 * 2.0
            # -> float32, are not): one check of the output, the cheapest on the hot path.

            def op(x: Any, y: Any) -> Any:  # type: ignore[misc]  # the same op, two operands
                # The common cases first, in as few steps as they take: an EagerArray of plain
                # data and another of its dtype, or a float32 one and a Python scalar (cached
                # as a float32 array, see above binds), outside tracing; the rest is general2's
                if type(x) is EagerArray and (not _active_count or _state.eager):
                    ufunc = shortcut.ufunc
                    a = x.base
                    if ufunc is not None and type(a) is _ndarray:
                        dt: np.dtype[Any] = a.dtype
                        if type(y) is EagerArray:
                            c = y.base
                            fast = type(c) is _ndarray and c.dtype is dt
                        elif dt is _float32 and (type(y) is float or type(y) is int):
                            c = _float32_scalars.get(y)
                            if c is None:
                                c = _float32_scalar(y)
                            fast = True
                        else:
                            fast = False
                        if fast:
                            try:
                                out = ufunc(a, c)
                            except Exception:
                                pass  # reported by the general path
                            else:
                                if type(out) is _ndarray:  # (0-d operands: a NumPy scalar)
                                    if dt is _float32 or (out.dtype is dt and dt.itemsize < 8):
                                        _setflags(out, False)
                                        return _view(out, EagerArray)
                                    if out.dtype is dt:
                                        return eager_result(out)
                return general2(x, y)

            def general2(x: Any, y: Any) -> Any:
                if not _active_count or _state.eager:
                    ufunc = shortcut.ufunc
                    if ufunc is not None and not (  # an array type computing it: numpy()
                        eager_handlers and (type(x) in eager_handlers or type(y) in eager_handlers)
                    ):
                        a = x
                        weak_x = False  # a Python scalar x
                        if type(x) is EagerArray:
                            b = x.base
                            if type(b) is _ndarray:
                                a = b
                        elif type(x) is float or type(x) is int:
                            weak_x = True
                        elif type(x) is WeakEagerArray:
                            return numpy(x, y)  # its dtype yields to a strong operand's
                        else:
                            a = canonical_operand(x)  # float64 host data: float32 first
                        c = y
                        if type(y) is EagerArray:
                            b = y.base
                            if type(b) is _ndarray:
                                c = b
                        elif type(y) is _ndarray:
                            c = canonical_operand(y)
                        elif type(y) is float or type(y) is int:
                            if type(a) is _ndarray and a.dtype is _float32:
                                c = _float32_scalars.get(y)
                                if c is None:
                                    c = _float32_scalar(y)
                            elif not _fits(_float32, y):  # JAX's range check: the full path
                                return numpy(x, y)
                        elif type(y) is WeakEagerArray:
                            return numpy(x, y)
                        if weak_x:
                            if type(c) is _ndarray and c.dtype is _float32:
                                a = _float32_scalars.get(x)
                                if a is None:
                                    a = _float32_scalar(x)
                            elif not _fits(_float32, x):
                                return numpy(x, y)
                        try:
                            out = ufunc(a, c)
                        except Exception:
                            pass  # reported below (outside this handler: one traceback)
                        else:
                            if type(out) is _ndarray:
                                dt: np.dtype[Any] = out.dtype
                                if dt is getattr(a, "dtype", None) or dt is getattr(
                                    c, "dtype", None
                                ):
                                    if dt is _float32 or dt.itemsize < 8:
                                        _setflags(out, False)
                                        return _view(out, EagerArray)
                                    return eager_result(out)
                return numpy(x, y)

        elif nin == 2:

            def op(x: Any, y: Any) -> Any:  # type: ignore[misc]  # the same op, two operands
                if not _active_count or _state.eager:
                    ufunc = shortcut.ufunc
                    if ufunc is not None:
                        x = canonical_operand(x)  # float64 host data: float32 first
                        y = canonical_operand(y)
                        dx: Any = getattr(x, "dtype", None)
                        dy: Any = getattr(y, "dtype", None)
                        if dx is not None:
                            fast = dx is dy or (
                                dy is None and dx.kind in fits.get(type(y), "") and _fits(dx, y)
                            )
                        else:  # a Python scalar x (two of them: bind1, for a weak result)
                            fast = (
                                dy is not None and dy.kind in fits.get(type(x), "") and _fits(dy, x)
                            )
                        if (
                            fast
                            and (not inexact or _float_operands(dx, dy))
                            and type(x) is not WeakEagerArray
                            and type(y) is not WeakEagerArray
                            and not (  # an array type that computes it itself: bind1
                                eager_handlers
                                and (type(x) in eager_handlers or type(y) in eager_handlers)
                            )
                        ):
                            a = x
                            if type(x) is EagerArray:
                                b = x.base
                                if type(b) is _ndarray:
                                    a = b
                            c = y
                            if type(y) is EagerArray:
                                b = y.base
                                if type(b) is _ndarray:
                                    c = b
                            try:
                                out = ufunc(a, c)
                            except Exception:
                                pass  # reported below (outside this handler: one traceback)
                            else:  # eval_primitive's view, inlined
                                if type(out) is _ndarray and out.itemsize < 8:
                                    _setflags(out, False)
                                    return _view(out, EagerArray)
                                return eager_result(out)
                if numpy is not None:
                    return numpy(x, y)
                return bind1(shortcut.primitive, x, y)

        else:
            raise TypeError(f"binds({primitive.name}): one or two operands, got {nin}")
        return functools.update_wrapper(op, signature)  # type: ignore[return-value]

    return decorate
