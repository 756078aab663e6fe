"""Tracing Python functions into jaxprs (Autodidax Part 3, with omnistaging).

:class:`JaxprTrace` is installed both as a new main trace and as the *dynamic* trace, so every
primitive bound while the function runs is staged into the jaxpr, even one applied only to
constants. Each :class:`JaxprTracer` carries the atom that stands for it in the jaxpr being
built, so staging an equation costs a few small allocations and no dictionary lookups.

Constants met while tracing become inputs of the jaxpr: a scalar (Python or NumPy) is inlined
as a :class:`~mj_ir._jaxpr.Lit` (keeping its weak type); any other value (an array, or a tracer
of an enclosing transformation) gets a constant binder, and its value is returned alongside
the jaxpr.
"""

from __future__ import annotations

import functools
import gc
import inspect
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any, cast

import numpy as np

from mj_core import config
from mj_core.dtypes import canonical_dtype
from mj_core.errors import MJError, UnhashableStaticArgumentError, user_line_suffix
from mj_core.extend import (
    DTypeLike,
    EagerArray,
    MainTrace,
    Primitive,
    ShapedArray,
    Token,
    Trace,
    Tracer,
    abstract_eval_rules,
    array_views,
    extend_axis_env,
    full_raise,
    get_aval,
    is_array,
    is_token_aval,
    new_dynamic,
    new_main,
    raise_to_shaped,
    view_dtype,
)
from mj_core.tree_util import (
    PyTreeDef,
    keystr,
    tree_flatten,
    tree_flatten_with_path,
    tree_unflatten,
)
from mj_ir._jaxpr import Atom, ClosedJaxpr, Jaxpr, JaxprEqn, Lit, Var
from mj_ir._typecheck import typecheck_jaxpr

__all__ = [
    "JaxprBuilder",
    "JaxprTrace",
    "JaxprTracer",
    "ShapeDtypeStruct",
    "duck_typed_aval",
    "gc_paused",
    "inline_literals",
    "make_jaxpr",
    "trace_to_closed_jaxpr",
    "trace_to_jaxpr",
]


class JaxprTracer(Tracer):
    """A value being staged into a jaxpr: its type and the atom that names it there."""

    __slots__ = ("atom", "aval")

    aval: ShapedArray
    atom: Atom

    def __init__(self, trace: JaxprTrace, aval: ShapedArray, atom: Atom) -> None:
        self._trace = trace
        self.aval = aval
        self.atom = atom


_LITERAL_TYPES = frozenset({bool, int, float, complex})


def _is_literal(val: Any) -> bool:
    """Scalars that are written into the jaxpr instead of becoming constant inputs."""
    t = type(val)
    return (
        t in _LITERAL_TYPES
        or isinstance(val, np.generic)
        or ((t is np.ndarray or t is EagerArray) and val.ndim == 0 and val.dtype.kind in "biufc")
    )


class JaxprBuilder:
    """The jaxpr under construction: its equations and its constants (by identity).

    A tracer's variable is its ``atom``; a custom staging rule appends to ``eqns`` directly.
    """

    __slots__ = ("const_tracers", "const_vals", "const_vars", "eqns", "narrowed")

    def __init__(self) -> None:
        self.eqns: list[JaxprEqn] = []
        self.const_tracers: dict[int, JaxprTracer] = {}
        self.const_vars: list[Var] = []
        self.const_vals: list[Any] = []  # also keeps the values alive, so their ids stay unique
        self.narrowed: list[Any] = []  # the originals of constants stored narrowed (their ids)

    def new_tracer(self, trace: JaxprTrace, aval: ShapedArray) -> JaxprTracer:
        """A tracer bound to a fresh variable (an argument or an equation output)."""
        return JaxprTracer(trace, aval, Var(aval))

    def const_tracer(self, trace: JaxprTrace, val: Any) -> JaxprTracer:
        """The tracer standing for constant ``val``: a literal for a scalar, otherwise a
        constant binder (one per distinct object)."""
        if _is_literal(val):
            lit = Lit(val)
            return JaxprTracer(trace, lit.aval, lit)
        tracer = self.const_tracers.get(id(val))
        if tracer is None:
            tracer = self.add_const(trace, val, raise_to_shaped(get_aval(val)))
        return tracer

    def add_const(self, trace: JaxprTrace, val: Any, aval: ShapedArray) -> JaxprTracer:
        """A new constant binder of type ``aval`` holding ``val``. A NumPy array of a 64-bit
        dtype (without ``enable_x64``) is stored narrowed to ``aval``'s dtype, as JAX stores
        it: lowered as it came, an int64 constant would meet the int32 its binder promises
        (XLA refuses a reduction or scatter mixing them)."""
        var = Var(aval)
        tracer = JaxprTracer(trace, aval, var)
        self.const_tracers[id(val)] = tracer
        self.const_vars.append(var)
        if type(val) is np.ndarray and val.dtype != aval.dtype:
            self.narrowed.append(val)  # (its id stays a key of const_tracers)
            val = val.astype(aval.dtype)
        self.const_vals.append(val)
        return tracer

    def build(
        self, in_tracers: Sequence[JaxprTracer], out_tracers: Sequence[JaxprTracer]
    ) -> tuple[Jaxpr, list[Any]]:
        """The jaxpr (constant binders first, then the arguments) and the constant values."""
        in_binders = [*self.const_vars, *(cast(Var, t.atom) for t in in_tracers)]
        jaxpr = Jaxpr(in_binders, self.eqns, [t.atom for t in out_tracers])
        return jaxpr, list(self.const_vals)


class JaxprTrace(Trace):
    """Stages every primitive applied to its tracers as an equation of the builder's jaxpr.

    ``main.global_data`` is the :class:`JaxprBuilder`.
    """

    __slots__ = ("builder",)
    transformation_name = "make_jaxpr/jit tracing"
    leak_checked = True

    def __init__(self, main: MainTrace) -> None:
        super().__init__(main)
        self.builder: JaxprBuilder = main.global_data

    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        return self.builder.new_tracer(self, raise_to_shaped(aval))

    def pure(self, val: Any) -> JaxprTracer:
        return self.builder.const_tracer(self, val)

    lift = pure

    def process_primitive(
        self, primitive: Primitive, tracers: list[JaxprTracer], params: dict[str, Any]
    ) -> list[JaxprTracer]:
        # The hot path of tracing: one- and two-operand equations (nearly all of them) avoid
        # building intermediate lists, and the equation tuple is made without NamedTuple's
        # Python-level constructor.
        rule = abstract_eval_rules[primitive]
        n = len(tracers)
        try:
            if n == 1:
                x = tracers[0]
                avals_out = rule(x.aval, **params)
                inputs = [x.atom]
            elif n == 2:
                x, y = tracers
                avals_out = rule(x.aval, y.aval, **params)
                inputs = [x.atom, y.atom]
            else:
                avals_out = rule(*[t.aval for t in tracers], **params)
                inputs = [t.atom for t in tracers]
        except MJError:
            raise
        except (TypeError, ValueError) as err:
            raise _typing_error(err) from err
        if len(avals_out) == 1:
            aval = avals_out[0]
            var = Var(aval)
            self.builder.eqns.append(_new_eqn((primitive, inputs, params, [var])))
            return [JaxprTracer(self, aval, var)]
        out_binders = [Var(a) for a in avals_out]
        self.builder.eqns.append(_new_eqn((primitive, inputs, params, out_binders)))
        return [JaxprTracer(self, v.aval, v) for v in out_binders]


_new_eqn: Callable[[tuple[Any, ...]], JaxprEqn] = functools.partial(tuple.__new__, JaxprEqn)


def _typing_error(err: TypeError | ValueError) -> TypeError | ValueError:
    """The abstract-eval rule's error, pointed at the user's source line."""
    where = user_line_suffix()
    msg = f"{err}{where}"
    return TypeError(msg) if isinstance(err, TypeError) else ValueError(msg)


class _GCPause:
    """Automatic garbage collection is paused while any thread traces.

    Tracing allocates several container objects per equation and frees none of them, so the
    collector's full passes would make tracing cost grow with program size (1e5 equations
    took 1.6x longer per equation than 1e3 with it on). Tracing creates no reference cycles
    worth collecting; the previous setting is restored when the last trace ends.
    """

    lock = threading.Lock()
    depth = 0
    was_enabled = False


@contextmanager
def _gc_paused() -> Iterator[None]:
    with _GCPause.lock:
        if _GCPause.depth == 0:
            _GCPause.was_enabled = gc.isenabled()
            gc.disable()
        _GCPause.depth += 1
    try:
        yield
    finally:
        with _GCPause.lock:
            _GCPause.depth -= 1
            if _GCPause.depth == 0 and _GCPause.was_enabled:
                gc.enable()


#: :func:`_gc_paused` for other layers' passes that build jaxprs the same way (mj_autodiff's
#: direct linearize stages one tangent equation per primitive).
gc_paused = _gc_paused


def check_returned_jaxtypes(
    fun: Callable[..., Any], traced_for: str, out_flat: Sequence[Any], tree: PyTreeDef
) -> None:
    """``TypeError`` in JAX's words (``pe._check_returned_jaxtypes``) if a traced function
    returned a leaf that is not an array or scalar, naming its output path, then mj's
    context."""
    for i, leaf in enumerate(out_flat):
        if is_array(leaf) or type(leaf) is Token:  # (a token is a JAX type, no array)
            continue
        paths, _ = tree_flatten_with_path(tree_unflatten(tree, list(out_flat)))
        path = keystr(paths[i][0]) if i < len(paths) else ""
        extra = f" at output component {path}" if path else ""
        raise TypeError(
            f"function {_src_info(fun)} traced for {traced_for} returned a value of type "
            f"{type(leaf)}{extra}, which is not a valid JAX type (output leaf {i}: {leaf!r}; "
            f"return arrays or pytrees of arrays){user_line_suffix()}"
        )


def _src_info(fun: Callable[..., Any]) -> str:
    name = getattr(fun, "__name__", None) or repr(fun)
    code = getattr(inspect.unwrap(fun), "__code__", None)
    return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code is not None else name


def trace_to_jaxpr(
    fun_flat: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]
) -> tuple[Jaxpr, list[Any]]:
    """Trace ``fun_flat(*tracers) -> list`` on arguments of types ``in_avals``.

    Returns the jaxpr, whose ``in_binders`` are one binder per constant and then one per
    argument, and the constant values. Everything ``fun_flat`` binds is staged (omnistaging).
    """
    builder = JaxprBuilder()
    with _gc_paused(), new_main(JaxprTrace, builder) as main, new_dynamic(main):
        trace: JaxprTrace = main.trace  # type: ignore[assignment]
        tracers_in = [trace.new_arg(aval) for aval in in_avals]
        outs = fun_flat(*tracers_in)
        tracers_out = [full_raise(trace, out) for out in outs]
    jaxpr, consts = builder.build(tracers_in, tracers_out)
    if config.check_jaxprs:
        typecheck_jaxpr(jaxpr)
    return jaxpr, consts


def trace_to_closed_jaxpr(
    fun_flat: Callable[..., Sequence[Any]], in_avals: Sequence[ShapedArray]
) -> ClosedJaxpr:
    """:func:`trace_to_jaxpr` with the constants kept in a :class:`ClosedJaxpr` (its jaxpr
    built with them as constvars, so the closed jaxpr holds no second variant of it)."""
    jaxpr, consts = trace_to_jaxpr(fun_flat, in_avals)
    if consts:
        jaxpr = Jaxpr(jaxpr.in_binders, jaxpr.eqns, jaxpr.outs, num_consts=len(consts))
    return ClosedJaxpr(jaxpr, consts)


def inline_literals(jaxpr: Jaxpr, consts: Sequence[Any]) -> tuple[Jaxpr, list[Any]]:
    """Turn scalar constants (the first ``len(consts)`` binders) into literals.

    For jaxprs built by other means than tracing (e.g. partial evaluation), whose scalar
    constants arrive as constant binders.
    """
    n = len(consts)
    literals: dict[Var, Lit] = {}
    kept_vars: list[Var] = []
    kept_vals: list[Any] = []
    for v, val in zip(jaxpr.in_binders[:n], consts, strict=True):
        if _is_literal(val):
            literals[v] = Lit(val, v.aval)
        else:
            kept_vars.append(v)
            kept_vals.append(val)
    if not literals:
        return jaxpr, list(consts)

    def sub(x: Atom) -> Atom:
        return literals.get(x, x) if type(x) is Var else x

    eqns = [
        JaxprEqn(e.primitive, [sub(x) for x in e.inputs], e.params, e.out_binders)
        for e in jaxpr.eqns
    ]
    new = Jaxpr([*kept_vars, *jaxpr.in_binders[n:]], eqns, [sub(x) for x in jaxpr.outs])
    return new, kept_vals


class ShapeDtypeStruct:
    """An example argument with only a shape and a dtype (``make_jaxpr(f)(ShapeDtypeStruct(
    (3,), np.float32))``). ``sharding`` (JAX's keyword, ``None`` unless given) is kept as
    given for code that copies or compares it; tracing reads only the shape and dtype."""

    __slots__ = ("dtype", "shape", "sharding", "weak_type")

    def __init__(
        self,
        shape: Sequence[int],
        dtype: DTypeLike | None,
        weak_type: bool = False,
        *,
        sharding: Any = None,
    ) -> None:
        self.shape = tuple(int(d) for d in shape)
        if dtype is None:  # (NumPy reads None as float64)
            raise ValueError("ShapeDtypeStruct: dtype must be specified.")
        try:
            self.dtype = np.dtype(dtype)
        except TypeError:
            if view_dtype(dtype) is None:
                raise
            self.dtype = dtype  # type: ignore[assignment]  # a view dtype (key<fry>)
        self.weak_type = weak_type
        self.sharding = sharding

    @classmethod
    def like(cls, x: Any) -> ShapeDtypeStruct:
        """The shape, dtype and weak type of ``x`` (an array, a key array, a struct); its
        sharding where ``x`` was placed on a device explicitly (committed), as in JAX."""
        committed = getattr(x, "_committed", False) is True
        return cls(
            x.shape,
            x.dtype,
            getattr(x, "weak_type", False) is True,
            sharding=getattr(x, "sharding", None) if committed else None,
        )

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShapeDtypeStruct) and (
            self.shape,
            self.dtype,
            self.weak_type,
            self.sharding,
        ) == (other.shape, other.dtype, other.weak_type, other.sharding)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type, self.sharding))

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        sharding = "" if self.sharding is None else f", sharding={self.sharding!r}"
        name = self.dtype.name
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={name}{sharding}{weak})"


def _is_view_struct(x: Any) -> bool:
    return type(x) is ShapeDtypeStruct and view_dtype(x.dtype) is not None


def _view_of_struct(x: ShapeDtypeStruct) -> Any:
    """A struct of a view dtype (``key<fry>``) as the view over a struct of its data."""
    view = view_dtype(x.dtype)
    assert view is not None
    data = ShapeDtypeStruct((*x.shape, *view.element_shape(x.dtype)), view.data_dtype(x.dtype))
    return view.wrap(x.dtype, data)


def view_structs(tree: Any) -> Any:
    """``tree`` with its views over data structs (key arrays) as structs of the view dtype."""
    from mj_core.tree_util import tree_map

    return tree_map(
        lambda x: ShapeDtypeStruct(x.shape, x.dtype) if type(x) in array_views else x,
        tree,
        is_leaf=lambda x: type(x) in array_views,
    )


def duck_typed_aval(x: Any) -> ShapedArray | None:
    """JAX's ``shaped_abstractify`` for a leaf that is no array: an object with ``shape`` and
    ``dtype`` attributes (a ``SimpleNamespace``, a user's struct) stands for an array of that
    type; one with ``__jax_array__`` is JAX's ValueError; anything else None."""
    if getattr(x, "__jax_array__", None) is not None:
        raise ValueError(
            "Triggering __jax_array__() during abstractification is no longer supported. To "
            "avoid this error, either explicitly convert your object using jax.numpy.array(), "
            f"or register your object as a pytree.{user_line_suffix()}"
        )
    if not hasattr(x, "dtype") or not hasattr(x, "shape"):
        return None
    dtype = canonical_dtype(np.dtype(x.dtype))
    return ShapedArray(tuple(np.shape(x)), dtype, bool(getattr(x, "weak_type", False)))


def _abstractify(x: Any, index: int) -> ShapedArray:
    if isinstance(x, ShapedArray):
        return raise_to_shaped(x)
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    try:
        return raise_to_shaped(get_aval(x))
    except TypeError:
        duck = duck_typed_aval(x)
        if duck is not None:
            return duck
        raise TypeError(
            f"make_jaxpr: argument leaf {index} is a {type(x).__name__} ({x!r}), not an array. "
            "Pass arrays, scalars, ShapedArray or ShapeDtypeStruct values, or mark the "
            "argument static with static_argnums."
        ) from None


def _static_positions(static_argnums: int | Sequence[int], nargs: int) -> frozenset[int]:
    nums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    out = set()
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(
                f"make_jaxpr: static_argnums={nums} refers to argument {i}, but the function "
                f"was called with {nargs} positional arguments"
            )
        out.add(i % nargs)
    return frozenset(out)


def _check_hashable(args: Sequence[Any], static: frozenset[int]) -> None:
    """Static arguments are hashable, as jit's cache keys need (JAX refuses them here too)."""
    for i in sorted(static):
        try:
            hash(args[i])
        except TypeError as err:
            raise UnhashableStaticArgumentError(
                f"make_jaxpr: non-hashable static arguments are not supported; argument {i} "
                f"is a {type(args[i]).__name__} ({args[i]!r}): {err}"
            ) from None


def make_jaxpr(
    fun: Callable[..., Any],
    static_argnums: int | Sequence[int] = (),
    axis_env: Sequence[tuple[Hashable, int]] | None = None,
    return_shape: bool = False,
) -> Callable[..., Any]:
    """``make_jaxpr(f)(*args)``: the :class:`ClosedJaxpr` that ``f`` computes on ``args``.

    Arguments and outputs may be pytrees; arguments may also be ``ShapedArray`` or
    ``ShapeDtypeStruct`` values. Positions in ``static_argnums`` are passed to ``fun`` as they
    are instead of being traced. ``axis_env`` (pairs ``(axis_name, size)``, as JAX's) binds
    named axes while ``fun`` is traced, so collectives over them (``psum(x, "i")``) are
    staged into the jaxpr as under ``pmap``. With ``return_shape=True`` the result is
    ``(closed_jaxpr, out_shapes)`` where ``out_shapes`` is the output pytree of
    ``ShapeDtypeStruct``.

    Example::

        >>> print(make_jaxpr(lambda x: 2.0 * x)(3.0))
        { lambda a:float32[] . let b:float32[] = mul 2.0 a in ( b ) }
    """

    @functools.wraps(fun)
    def make(*args: Any, **kwargs: Any) -> Any:
        static = _static_positions(static_argnums, len(args)) if static_argnums != () else None
        if static is not None:
            _check_hashable(args, static)
        dyn_args = args if static is None else [a for i, a in enumerate(args) if i not in static]
        flat_args, in_tree = tree_flatten((list(dyn_args), kwargs))
        if any(_is_view_struct(x) for x in flat_args):  # key-dtype structs: keys over data
            leaves = [_view_of_struct(x) if _is_view_struct(x) else x for x in flat_args]
            flat_args, in_tree = tree_flatten(tree_unflatten(in_tree, leaves))
        in_avals = [_abstractify(x, i) for i, x in enumerate(flat_args)]
        out_tree: list[PyTreeDef] = []

        def fun_flat(*flat_tracers: Any) -> list[Any]:
            dyn, kw = tree_unflatten(in_tree, flat_tracers)
            if static is None:
                full = dyn
            else:
                it = iter(dyn)
                full = [a if i in static else next(it) for i, a in enumerate(args)]
            out_flat, tree = tree_flatten(fun(*full, **kw))
            check_returned_jaxtypes(fun, "make_jaxpr", out_flat, tree)
            out_tree.append(tree)
            return out_flat

        with ExitStack() as stack:
            for name, size in axis_env or ():
                stack.enter_context(extend_axis_env(name, int(size), None))
            closed = trace_to_closed_jaxpr(fun_flat, in_avals)
        if not return_shape:
            return closed
        shapes = [  # (a token's shape is its type, as JAX's eval_shape returns it)
            a if is_token_aval(a) else ShapeDtypeStruct(a.shape, a.dtype, a.weak_type)
            for a in closed.out_avals
        ]
        return closed, view_structs(tree_unflatten(out_tree[0], shapes))

    # JAX's names for the traced-function maker (``make_jaxpr(f)``), module ``jax``.
    make.__name__ = f"make_jaxpr({getattr(fun, '__name__', type(fun).__name__)})"
    make.__qualname__ = f"make_jaxpr({getattr(fun, '__qualname__', make.__name__)})"
    make.__module__ = "mj"
    return make
