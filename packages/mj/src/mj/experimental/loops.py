"""``mj.experimental.loops``: loops and conditionals that look like Python, staged as lax ops.

Python loops are unrolled while tracing. To keep a loop as one ``scan``/``cond``/
``while_loop``, keep its loop-carried state as fields of a :class:`Scope` and iterate over
the scope's special ranges::

    with loops.Scope() as s:
        s.arr = mnp.zeros(5)  # the mutable state of the loop, as scope fields
        for i in s.range(s.arr.shape[0]):
            s.arr = s.arr.at[i].add(2.0)
            for _ in s.cond_range(i % 2 == 0):  # a conditional: a loop of 0 or 1 iterations
                s.arr = s.arr.at[i].add(1.0)

How it works: entering a range's body starts a sub-trace (a new jaxpr-building main trace,
made the dynamic one, so everything the body does is staged into it) in which every scope
field is replaced by a fresh tracer. The body runs once, in the caller's own frame; when the
``for`` asks for the second iteration, the sub-trace is closed into a jaxpr from the fields'
tracers to their new values, and that jaxpr becomes the body of ``mj.lax.scan`` (``range``),
``mj.lax.cond`` (``cond_range``) or ``mj.lax.while_loop`` (``while_range``), applied to the
fields' values from before the loop. So a scope's loops jit, vmap and differentiate like those
primitives do (``grad`` through ``while_range`` fails, as it does for ``while_loop``).

Rules (as JAX's): only scope fields are carried; all fields must be created before the first
loop; ``range`` bounds are concrete integers; a body must not leave early (``break``,
``return``: the scope's exit reports it); the index of a ``cond_range``/``while_range`` must
not be used; a ``while_range`` condition must not change the scope; values computed in a body
must not be used after it, except through scope fields.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from types import TracebackType
from typing import Any, cast

import mj
import mj.numpy as mnp
from mj import lax, tree_util
from mj_core.extend import (
    ArrayLike,
    ShapedArray,
    full_raise,
    get_aval,
    new_dynamic,
    new_main,
    raise_to_shaped,
)
from mj_ir import Jaxpr, typecheck_jaxpr
from mj_ir.extend import JaxprBuilder, JaxprTrace, JaxprTracer

__all__ = ["Scope"]

_SCOPE_SLOTS = ("_mutable_state", "_active_ranges", "_subtraces")


class Scope:
    """A scope context manager to keep the state of loop bodies for functionalization.

    Usage::

        with Scope() as s:
            s.data = 0.0
            for i in s.range(5):
                s.data += 1.0
        s.data  # 5.0
    """

    _mutable_state: dict[str, Any]
    _active_ranges: list[_BodyTracer]
    _subtraces: list[ExitStack]

    def __init__(self) -> None:
        object.__setattr__(self, "_mutable_state", {})  # the state to functionalize, by name
        object.__setattr__(self, "_active_ranges", [])  # the innermost range is the last
        object.__setattr__(self, "_subtraces", [])  # open sub-traces, to close on errors

    # --- the ranges ---------------------------------------------------------------------------

    def range(
        self, first: int, second: int | None = None, third: int | None = None
    ) -> Iterator[Any]:
        """Creates an iterator for bounded iterations to be functionalized.

        The body is converted to a ``lax.scan``, for which all transformations work. The
        ``first``, ``second``, and ``third`` arguments must be concrete integers.

        Usage::

            range(5)  # start=0, end=5, step=1
            range(1, 5)  # start=1, end=5, step=1
            range(1, 5, 2)  # start=1, end=5, step=2

            s.out = 1.0
            for i in scope.range(5):
                s.out += 1.0
        """
        if second is None:
            start, stop, step = 0, int(first), 1
        else:
            start, stop, step = int(first), int(second), 1 if third is None else int(third)
        return _BodyTracer(self, _BoundedLoopBuilder(start, stop, step))

    def cond_range(self, pred: Any) -> Iterator[Any]:
        """Creates a conditional iterator with 0 or 1 iterations based on the boolean.

        The body is converted to a ``lax.cond``. All transformations work.

        Usage::

            for _ in scope.cond_range(s.field < 0.0):
                s.field = -s.field
        """
        if mnp.ndim(pred) != 0:
            raise TypeError(f"Pred must be a scalar, got {pred} of shape {mnp.shape(pred)}.")
        try:
            kind = mnp.result_type(pred).kind
        except TypeError as err:
            raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
        if kind != "b":
            if kind not in "iuf":
                raise TypeError(f"Pred type must be either boolean or number, got {pred}.")
            pred = pred != 0
        return _BodyTracer(self, _CondBuilder(pred))

    def while_range(self, cond_func: Callable[[], Any]) -> Iterator[Any]:
        """Creates an iterator that continues as long as ``cond_func`` returns true.

        The body is converted to a ``lax.while_loop``. The ``grad`` transformation does not
        work.

        Usage::

            for _ in scope.while_range(lambda: s.loss > 1.0e-5):
                s.loss = loss(...)

        Args:
          cond_func: a lambda with no arguments, the condition for the "while".
        """
        return _BodyTracer(self, _WhileBuilder(cond_func))

    # --- the state ----------------------------------------------------------------------------

    def __getattr__(self, key: str) -> Any:
        """Reads scope data (only called for names that are not ordinary attributes)."""
        if key.startswith("__"):  # copy/pickle probing special methods: not scope data
            raise AttributeError(key)
        try:
            return self._mutable_state[key]
        except KeyError:
            raise AttributeError(f"Reading uninitialized data '{key}' from the scope.") from None

    def __setattr__(self, key: str, value: object) -> None:
        """Updates scope data to be functionalized."""
        if key in _SCOPE_SLOTS:
            object.__setattr__(self, key, value)
            return
        if self._active_ranges and key not in self._mutable_state:
            raise ValueError(f"New mutable state '{key}' cannot be created inside a loop.")
        self._mutable_state[key] = value

    # --- the context --------------------------------------------------------------------------

    def __enter__(self) -> Scope:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None and self._active_ranges:
                self._error_premature_exit_range()
        finally:
            # Leave the trace stack as we found it, whatever happened in the bodies.
            while self._subtraces:
                self.end_subtrace()
            self._active_ranges.clear()

    def start_subtrace(self) -> JaxprTrace:
        """Starts a nested trace (a jaxpr-building main trace, made the dynamic trace) and
        returns its trace; :meth:`end_subtrace` closes the innermost one."""
        stack = ExitStack()
        main = stack.enter_context(new_main(JaxprTrace, JaxprBuilder()))
        stack.enter_context(new_dynamic(main))
        self._subtraces.append(stack)
        return cast(JaxprTrace, main.trace)

    def end_subtrace(self) -> None:
        """Closes the innermost trace started by :meth:`start_subtrace`: its tracers die."""
        self._subtraces.pop().close()

    # --- bookkeeping of the active ranges -----------------------------------------------------

    def _push_range(self, range_: _BodyTracer) -> None:
        if any(active is range_ for active in self._active_ranges):
            raise ValueError("Range is reused nested inside itself.")
        self._active_ranges.append(range_)

    def _pop_range(self, range_: _BodyTracer) -> None:
        if range_ is not self._active_ranges[-1]:
            self._error_premature_exit_range()
        self._active_ranges.pop()

    def _error_premature_exit_range(self) -> None:
        raise ValueError(
            "Some ranges have exited prematurely. The innermost such range is at\n"
            f"{self._active_ranges[-1].location()}"
        )


def _abstractify(x: ArrayLike) -> ShapedArray:
    return raise_to_shaped(get_aval(x))


class _Body:
    """A traced loop body: ``fun(carry_leaves, index) -> new carry_leaves`` evaluates the
    jaxpr built from one pass through the Python body."""

    def __init__(self, jaxpr: Jaxpr, consts: list[Any]) -> None:
        self.jaxpr = jaxpr
        self.consts = consts

    def __call__(self, carry: list[Any], index: object = None) -> list[Any]:
        args = [*self.consts, *carry] if index is None else [*self.consts, *carry, index]
        return mj.eval_jaxpr(self.jaxpr, args)


class _LoopBuilder:
    """How a traced body becomes a lax loop (one subclass per kind of range)."""

    #: Whether the body may use the index the range yields (only ``range``'s is a real index).
    uses_index = False

    def index_aval(self) -> ShapedArray:
        return _abstractify(0)  # a weak int, as JAX's: using it changes no field's type

    def build(
        self, scope: Scope, names: list[str], tree: object, init: list[Any], body: _Body
    ) -> list[Any]:
        """The carried leaves after the loop, from their values ``init`` before it."""
        raise NotImplementedError(type(self).__name__)


class _BoundedLoopBuilder(_LoopBuilder):
    """``scope.range``: a ``lax.scan`` over the indices."""

    uses_index = True

    def __init__(self, start: int, stop: int, step: int) -> None:
        self.indices = mnp.arange(start, stop, step)

    def index_aval(self) -> ShapedArray:
        return ShapedArray((), self.indices.dtype)

    def build(
        self, scope: Scope, names: list[str], tree: object, init: list[Any], body: _Body
    ) -> list[Any]:
        def step(carry: list[Any], index: ArrayLike) -> tuple[list[Any], None]:
            return body(carry, index), None

        carry, _ = lax.scan(step, init, self.indices)
        return list(carry)


class _CondBuilder(_LoopBuilder):
    """``scope.cond_range``: a ``lax.cond`` whose false branch passes the state through."""

    def __init__(self, pred: ArrayLike) -> None:
        self.pred = pred

    def build(
        self, scope: Scope, names: list[str], tree: Any, init: list[Any], body: _Body
    ) -> list[Any]:
        def run_body(*carry: object) -> list[Any]:
            return body(list(carry))

        def pass_through(*carry: object) -> list[Any]:
            return list(carry)

        return list(lax.cond(self.pred, run_body, pass_through, *init))


class _WhileBuilder(_LoopBuilder):
    """``scope.while_range``: a ``lax.while_loop`` whose condition reads the scope."""

    def __init__(self, cond_func: Callable[[], Any]) -> None:
        self.cond_func = cond_func

    def build(
        self, scope: Scope, names: list[str], tree: Any, init: list[Any], body: _Body
    ) -> list[Any]:
        state = scope._mutable_state

        def cond_fun(carry: list[Any]) -> Any:
            # The condition reads the scope: show it the loop's carry as the scope's fields.
            fields = tree_util.tree_unflatten(tree, carry)
            saved = {name: state[name] for name in names}
            state.update(zip(names, fields, strict=True))
            try:
                result = self.cond_func()
                for name, field in zip(names, fields, strict=True):
                    if state[name] is not field:
                        raise ValueError(f"Conditional function modifies scope.{name} field.")
            finally:
                state.update(saved)
            return result

        return list(lax.while_loop(cond_fun, body, init))


class _BodyTracer:
    """Traces the body of a range and replaces the scope's state by the loop's results.

    It is the iterator of the ``for``: its first ``__next__`` starts tracing and yields the
    index, its second ends tracing, builds the loop and stops the iteration.
    """

    def __init__(self, scope: Scope, loop_builder: _LoopBuilder) -> None:
        self.scope = scope
        self.loop_builder = loop_builder
        self.first_iteration = True
        # Where the range was made (without this frame and the Scope method's).
        self.stack = traceback.StackSummary.from_list(traceback.extract_stack()[:-2])
        self.trace: JaxprTrace | None = None
        self.names: list[str] = []
        self.init_tree: Any = None
        self.init_leaves: list[Any] = []
        self.leaf_names: list[str] = []  # the scope field of each leaf (for errors)
        self.in_tracers: list[JaxprTracer] = []
        self.index_var: JaxprTracer | None = None

    def location(self) -> str:
        """A multiline string representing the source location of the range."""
        return "   ".join(self.stack.format())

    def __iter__(self) -> _BodyTracer:
        self.first_iteration = True  # in case the range is reused
        return self

    def __next__(self) -> Any:
        if self.first_iteration:
            self.first_iteration = False
            self.scope._push_range(self)
            self.start_tracing_body()
            return self.index_var
        self.end_tracing_body()
        self.scope._pop_range(self)
        raise StopIteration  # only one pass through the body is traced

    def start_tracing_body(self) -> None:
        """Replaces every scope field by tracers of a new sub-trace."""
        state = self.scope._mutable_state
        self.names = sorted(state)
        self.init_leaves, self.init_tree = tree_util.tree_flatten(
            tuple(state[name] for name in self.names)
        )
        self.leaf_names = [name for name in self.names for _ in tree_util.tree_leaves(state[name])]
        avals = [_abstractify(x) for x in self.init_leaves]
        self.trace = trace = self.scope.start_subtrace()
        self.in_tracers = [trace.new_arg(aval) for aval in avals]
        fields = tree_util.tree_unflatten(self.init_tree, self.in_tracers)
        state.update(zip(self.names, fields, strict=True))
        self.index_var = trace.new_arg(self.loop_builder.index_aval())

    def end_tracing_body(self) -> None:
        """Closes the sub-trace into the body's jaxpr, builds the loop, updates the scope."""
        trace, index_var = self.trace, self.index_var
        assert trace is not None, "end_tracing_body before start_tracing_body"
        assert index_var is not None
        state = self.scope._mutable_state
        out_leaves, out_tree = tree_util.tree_flatten(tuple(state[name] for name in self.names))
        if out_tree != self.init_tree:
            raise TypeError(
                f"The body of a scope range changed the structure of the scope fields "
                f"{self.names}: from {self.init_tree} to {out_tree}."
            )
        out_tracers = [full_raise(trace, x) for x in out_leaves]
        for name, tin, tout in zip(self.leaf_names, self.in_tracers, out_tracers, strict=True):
            if (tin.aval.shape, tin.aval.dtype) != (tout.aval.shape, tout.aval.dtype):
                raise TypeError(
                    f"Body of a scope range should not change the type of carried state "
                    f"{name}: from {tin.aval.str_short()} to {tout.aval.str_short()}."
                )
        in_tracers = list(self.in_tracers)
        if self.loop_builder.uses_index:
            in_tracers.append(index_var)
        jaxpr, consts = trace.builder.build(in_tracers, out_tracers)
        if not self.loop_builder.uses_index and _uses(jaxpr, index_var):
            raise ValueError(
                "Body of cond_range or while_range should not use the index variable "
                "returned by iterator."
            )
        if mj.config.check_jaxprs:
            typecheck_jaxpr(jaxpr)
        self.scope.end_subtrace()
        body = _Body(jaxpr, consts)
        out = self.loop_builder.build(
            self.scope, self.names, self.init_tree, self.init_leaves, body
        )
        fields = tree_util.tree_unflatten(self.init_tree, out)
        state.update(zip(self.names, fields, strict=True))


def _uses(jaxpr: Jaxpr, tracer: JaxprTracer) -> bool:
    """Whether the jaxpr reads ``tracer``'s variable (it is not among its binders)."""
    var = tracer.atom
    return any(a is var for eqn in jaxpr.eqns for a in eqn.inputs) or any(
        a is var for a in jaxpr.outs
    )
