r"""The interpreter stack: main traces, traces, tracers, and ``bind``.

This is Autodidax Part 1's machinery (with Part 3's dynamic trace for omnistaging), made
production-grade:

* the trace stack is **per thread** (a ``threading.local``), so tracing in several threads at
  once is safe;
* leaving :func:`new_main` by an exception restores the stack, and every tracer of the ended
  main trace is marked dead: using it later raises :class:`TracerLeakError`;
* when no transformation is active on this thread :func:`bind` calls the eager engine,
  :func:`~mj_core._eager.evaluate.eval_primitive`, directly (the eval trace's rule), so eager
  evaluation costs little more than NumPy itself; the elementwise wrappers (``binds``,
  :mod:`mj_core._eager.wrappers`, given this module's ``bind1`` and trace state) call the
  primitive's NumPy ufunc. A leaked tracer reaching NumPy on that path is caught by the
  tracer's ``__array__``/``__array_ufunc__``/``__array_function__`` hooks, so the fast path
  needs no per-argument check.
* with ``check_tracer_leaks`` on (JAX's leak checker, ``mj.checking_leaks()``), every main
  trace that ends is remembered (those JAX checks: jaxpr tracing and vmap), and
  :func:`check_leaks` raises :class:`TracerLeakError` if a tracer of one of them is still
  alive: when the next outermost transformation starts and when the option is switched off
  (the end of the ``with`` block). JAX checks as each transformation ends; mj checks once
  the transformations' own frames have returned, so a leak is reported at the latest at the
  end of the block.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar

import numpy as np

from mj_core._array_views import array_views, refuse, view_dtype, view_predicates, view_rules
from mj_core._avals import ShapedArray, check_conversion
from mj_core._config import config, on_change
from mj_core._eager.evaluate import eval_primitive
from mj_core._eager.wrappers import binds, connect
from mj_core._primitive import Primitive
from mj_core.errors import ConcretizationError, MJError, TracerLeakError, user_line_suffix

__all__ = [
    "EvalTrace",
    "MainTrace",
    "Trace",
    "Tracer",
    "apply_primitive",
    "bind",
    "bind1",
    "binds",
    "check_leaks",
    "current_trace_stack",
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

    __slots__ = ("__weakref__", "main")

    #: Shown in error messages ("a tracer of the jvp transformation ...").
    transformation_name: ClassVar[str] = "a transformation"
    #: Whether ``check_tracer_leaks`` checks this trace's tracers when it ends: as JAX, the
    #: tracing to a jaxpr (jit, make_jaxpr, control flow bodies) and vmap, not the eager
    #: differentiation modes (JAX's eager ``grad``/``jvp`` are not checked either).
    leak_checked: ClassVar[bool] = False

    def __init__(self, main: MainTrace) -> None:
        self.main = main

    def pure(self, val: object) -> Any:
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
        # with check_tracer_leaks: the ended traces not yet checked (weakly: a trace can own
        # its tracers, as the eager reverse mode's tape does)
        self.ended: list[weakref.ref[Trace]] = []

    def refresh(self) -> None:
        self.eager = len(self.trace_stack) == 1 and self.dynamic_trace is self.base


class EvalTrace(Trace):
    """The bottom of every stack: apply the impl rule to concrete values."""

    __slots__ = ()
    transformation_name = "eager evaluation"

    def pure(self, val: object) -> Any:
        return val

    lift = pure

    def process_primitive(
        self, primitive: Primitive, tracers: list[Any], params: dict[str, Any]
    ) -> list[Any]:
        return eval_primitive(primitive, tracers, params)


_state = _TraceState()


class _Transformations:
    """The number of transformations active on *any* thread. While it is zero, ``bind`` (and
    the elementwise wrappers) skip even the thread-local read; when it is not, each thread
    still decides from its own ``_state.eager``."""

    __slots__ = ("count", "lock")

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def enter(self) -> None:
        with self.lock:
            self.count += 1

    def exit(self) -> None:
        with self.lock:
            self.count -= 1


_active = _Transformations()


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
    if st.ended and len(stack) == 1 and st.dynamic_trace is st.base:
        check_leaks()  # no transformation active: the ended ones' frames have returned
    main = MainTrace(len(stack), trace_type, global_data)
    stack.append(main)
    st.eager = False
    _active.enter()
    try:
        yield main
    finally:
        main.alive = False
        del stack[main.level :]
        st.refresh()
        _active.exit()
        if config.check_tracer_leaks and trace_type.leak_checked:
            st.ended.append(weakref.ref(main.trace))


_collect = gc.collect  # the collector itself, whatever a program later patches in


def check_leaks() -> None:
    """Raise :class:`TracerLeakError` if a tracer of a transformation that ended on this
    thread while ``check_tracer_leaks`` was on is still alive (held by a global, a closure,
    an attribute; JAX's leak checker). Unreachable cycles are collected first, as JAX does,
    always: a jaxpr trace's builder and its tracers form a cycle that only the collector frees
    (JAX's traces do not), so a program that swaps out ``gc.collect`` must not make mj's own
    cycles look like leaks."""
    st = _state
    refs, st.ended = st.ended, []
    if not refs:
        return
    _collect()
    traces = [t for t in (r() for r in refs) if t is not None]
    leaked = [r for r in gc.get_referrers(*traces) if isinstance(r, Tracer)] if traces else []
    del traces
    if leaked:
        shown = "\n\n".join(
            f"{type(t).__name__} of {t._trace.transformation_name}: {t.aval.str_short()}"
            for t in leaked[:10]
        )
        raise TracerLeakError(
            f"Leaked trace {leaked[0]._trace.transformation_name}. Leaked tracer(s):\n\n"
            f"{shown}\n\nA tracer outlived the transformation that created it (a global, a "
            "closure or an attribute holds it); return it instead."
        )


def _leak_checking(on: object) -> None:
    if on:
        _state.ended.clear()  # traces that ended before the checker was on are not checked
    else:
        check_leaks()  # the end of a ``with check_tracer_leaks():`` block


on_change("check_tracer_leaks", _leak_checking)


@contextmanager
def new_dynamic(main: MainTrace) -> Iterator[None]:
    """Make ``main`` the dynamic trace: every primitive bound in the block is staged into it,
    even one applied to constants only (omnistaging)."""
    st = _state
    prev = st.dynamic_trace
    st.dynamic_trace = main
    st.eager = False
    _active.enter()
    try:
        yield
    finally:
        st.dynamic_trace = prev
        st.refresh()
        _active.exit()


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

    def __deepcopy__(self, memo: Any) -> Any:
        """``copy.deepcopy`` of a traced value is its ``copy()`` (as JAX's arrays and tracers):
        the value itself, as traced values are immutable, never its trace's internals."""
        return self.copy()  # type: ignore[attr-defined]  # (installed array method)

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

    @property
    def sharding(self) -> Any:
        """Refused, in JAX's words: a traced value has no placement (its type does)."""
        aval = self.aval
        dims = ",".join(str(d) for d in aval.shape)
        raise AttributeError(  # (the shape as JAX shows it: float32[2])
            f"The 'sharding' attribute is not available on traced array with shape "
            f"{aval.dtype.name}[{dims}]. To query sharding information on tracers, use "
            "`jax.typeof(x)` (mj.typeof(x))."
        )

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
        aval = self.aval
        check_conversion(fun, aval.shape, aval.dtype)
        shape = f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"  # as JAX shows it
        return ConcretizationError(
            "Abstract tracer value encountered where concrete value is expected: traced array "
            f"with shape {shape}\nThe problem arose with the `{fun}` function. If trying to "
            f"convert the data type of a value, try using `x.astype({fun})` or "
            f"`mnp.array(x, {fun})` instead.\nThe error occurred{user_line_suffix()}."
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
        aval = self.aval
        shape = f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"  # as JAX shows it
        return ConcretizationError(  # JAX's words (TracerArrayConversionError's), then mj's
            f"The numpy.ndarray conversion method __array__() was called on traced array with "
            f"shape {shape}\nThe traced {aval.str_short()} value was passed to {what}"
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


#: JAX's wording of an escaped tracer (``jax.errors.UnexpectedTracerError``), which mj's
#: messages start with before their own detail.
_UNEXPECTED_TRACER = (
    "Encountered an unexpected tracer. A function transformed by mj had a side effect, "
    "allowing for a reference to an intermediate value with type {aval} wrapped in a "
    "{tracer_type} to escape the scope of the transformation.\nmj transformations require "
    "that functions explicitly return their outputs, and disallow saving intermediate values "
    "to global state.\n"
)


def _unexpected_tracer(tracer: Tracer) -> str:
    aval = tracer.aval
    long_type = f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"  # as JAX shows it
    return _UNEXPECTED_TRACER.format(aval=long_type, tracer_type=type(tracer).__name__)


def _leak_error(tracer: Tracer) -> TracerLeakError:
    name = tracer._trace.transformation_name
    where = user_line_suffix()
    return TracerLeakError(
        f"{_unexpected_tracer(tracer)}A tracer of the {name} transformation "
        f"({tracer.aval.str_short()}) was used after that transformation ended{where}. It "
        "escaped the transformed function, e.g. through a global, a closure or an attribute; "
        "return it instead."
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


def full_raise(trace: Trace, val: object) -> Any:
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
        f"{_unexpected_tracer(val)}A tracer of the {val._trace.transformation_name} "
        "transformation (level "
        f"{val_main.level}) reached {trace.transformation_name} (level {main.level}), which "
        "cannot own it: it escaped its transformation (e.g. through a global or closure)."
    )


def full_lower(val: object) -> Any:
    """Unbox a tracer that does not need its trace any more (e.g. an eval-trace value)."""
    if isinstance(val, Tracer):
        return val.full_lower()
    return val


def bind(primitive: Primitive, *args: object, **params: object) -> list[Any]:
    """Apply ``primitive`` to ``args``: dispatch to the top trace, return a list of outputs."""
    if not _active.count or _state.eager:  # no transformation: evaluate now
        return eval_primitive(primitive, args, params)
    return _bind_traced(primitive, args, params)


def apply_primitive(
    primitive: Primitive, args: Sequence[Any], params: dict[str, Any], rule: Callable[..., Any]
) -> list[Any]:
    """``primitive`` on ``args`` with the eager ``rule`` given (JAX's ``apply_primitive``, what
    ``Primitive.impl`` does): evaluated now, or staged like any operation where an argument
    is traced."""
    if any(isinstance(a, Tracer) for a in args):
        return bind(primitive, *args, **params)
    return eval_primitive(primitive, args, params, rule)


def bind1(primitive: Primitive, *args: object, **params: object) -> Any:
    """``bind`` for a single-output primitive: returns the output itself."""
    if not _active.count or _state.eager:
        return eval_primitive(primitive, args, params)[0]
    (out,) = _bind_traced(primitive, args, params)
    return out


def bind_views(primitive: Primitive, args: Sequence[Any], params: dict[str, Any]) -> list[Any]:
    """``primitive`` applied to ``args`` of which some are array views (typed keys; see
    :mod:`mj_core._array_views`): applied to their data by the primitive's ``view_rules``
    entry, its outputs views of the same dtype; refused in JAX's words without one."""
    is_view = [type(a) in array_views for a in args]
    first = next(a for a, v in zip(args, is_view, strict=True) if v)
    view = array_views[type(first)]
    dtype = first.dtype
    answer = view_predicates.get(primitive)
    if (
        answer is not None
        and all(is_view)
        and all(a.dtype == dtype for a in args)
        and view_dtype(dtype) is not None
    ):
        (out,) = bind(primitive, *(view.data(a) for a in args), **params)
        return [answer(out, len(view.element_shape(dtype)))]
    rule = view_rules.get(primitive)
    if rule is None or view_dtype(dtype) is None:  # (a float0 tangent view has no rules)
        if "new_dtype" in params:  # convert_element_type & co, in JAX's words
            raise ValueError(f"Cannot {primitive.name} from {dtype} to {params['new_dtype']}")
        raise refuse(primitive, args)
    for a, v in zip(args, is_view, strict=True):
        if v and a.dtype != dtype:
            raise refuse(primitive, args)
    data_args, data_params = rule(
        [view.data(a) if v else a for a, v in zip(args, is_view, strict=True)],
        is_view,
        params,
        view.element_shape(dtype),
    )
    return [view.wrap(dtype, out) for out in bind(primitive, *data_args, **data_params)]


def _bind_traced(primitive: Primitive, args: tuple[Any, ...], params: dict[str, Any]) -> list[Any]:
    """:func:`bind`'s body while some transformation is active."""
    trace = find_top_trace(args)
    if type(trace) is EvalTrace:  # only constants: no boxing or unboxing to do
        return eval_primitive(primitive, args, params)
    tracers = []
    for arg in args:  # a loop, not a comprehension: no closure cell made on every call
        # full_raise's common case (already a tracer of this trace) inlined
        if isinstance(arg, Tracer) and arg._trace is trace:
            tracers.append(arg)
        elif type(arg) in array_views:  # a view of data (typed keys): bound on its data
            return bind_views(primitive, args, params)
        else:
            tracers.append(full_raise(trace, arg))
    outs = trace.process_primitive(primitive, tracers, params)
    return [out.full_lower() if isinstance(out, Tracer) else out for out in outs]


# The elementwise wrappers (``binds``: ``lax.sin``, ``mnp.add``) try their ufunc shortcut, else
# call bind1: they read this thread's trace state (see :mod:`mj_core._eager.wrappers`).
connect(bind1, _state, _active)
