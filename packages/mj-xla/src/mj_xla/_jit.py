"""``jit``: trace once per signature, lower to StableHLO, compile with XLA, dispatch cheaply.

The cache key of a call is its *signature*, defined in one place,
:meth:`JitFunction.signature`: static argument values, the pytree structure of the dynamic
arguments, each leaf's canonical shape/dtype/weak type, the options that change what is
compiled, the named axes in scope, argument shardings and the committed device. Computing it
flattens the arguments and builds an aval per leaf, so calls do not compute it each time: a
*dispatch memo* maps a cheap key read off the arguments (:func:`_describe`: device arrays'
avals, host arrays' type/dtype/shape, scalars' types, containers' shapes) to the entry the
signature found the first time, with a plan for each leaf (a device array's buffer as it is,
host data converted to its canonical dtype and put on the device once). Device arrays, NumPy
arrays of any dtype, Python and NumPy scalars and pytrees of them all take that path; two
calls share a memo key only if they share a signature, and a memo is dropped with the cache
it points into (cleared, evicted, dtype mode switched).

Caches are per function, bounded (LRU), and held weakly by the function object: when the
function goes away, its compiled executables go with it.

When no transformation is active the compiled executable runs directly (the dispatch fast
path). Under a transformation (including an enclosing ``jit``) the call binds ``xla_call_p``,
so ``grad(jit(f))``, ``vmap(jit(f))`` and nested jits transform the traced jaxpr.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import operator
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Generic, NamedTuple, ParamSpec, Protocol, TypeVar, overload

import numpy as np

from mj_core import (
    EagerArray,
    ShapedArray,
    Tracer,
    bind,
    config,
    get_aval,
    is_array,
    is_eager,
    raise_to_shaped,
)
from mj_core.errors import UnhashableStaticArgumentError, user_location
from mj_core.extend import axis_env_signature, on_change, on_x64_change
from mj_core.tree_util import PyTreeDef, tree_flatten, tree_map, tree_unflatten
from mj_ir import ClosedJaxpr, ShapeDtypeStruct
from mj_ir.extend import check_returned_jaxtypes, trace_to_jaxpr
from mj_xla import _jaxlib
from mj_xla._array import Array, CommittedArray, to_buffer
from mj_xla._compile_log import timed
from mj_xla._device_put import device_put
from mj_xla._executable import (
    Executable,
    compile_jaxpr,
    drop_unused_arguments,
    inline_values,
    refuse_execution,
)
from mj_xla._lowering import build_module
from mj_xla._pmap_executable import ReplicatedJit
from mj_xla._sharded_array import ShardedArray
from mj_xla._sharding import NamedSharding, PmapSharding, Sharding, broadcast_prefix
from mj_xla._spmd_executable import SpmdExecutable
from mj_xla._stages import arg_names, args_info, check_call
from mj_xla._xla_call import xla_call_p

__all__ = ["Compiled", "JitFunction", "Lowered", "PjitFunction", "Signature", "Traced", "jit"]

P = ParamSpec("P")
R = TypeVar("R")

_MAX_ENTRIES_PER_FUNCTION = 64


class _Entry:
    """One traced signature: its jaxpr (constants first), constants, output structure and,
    once it has run eagerly, its executable."""

    __slots__ = (
        "closed",
        "compiler_options",
        "consts",
        "device",
        "donated",
        "executable",
        "flat_type",
        "in_shardings",
        "keep_spec",
        "keep_unused",
        "name",
        "out_shardings",
        "out_tree",
        "single_leaf",
    )

    def __init__(
        self,
        closed: ClosedJaxpr,
        consts: list[Any],
        out_tree: PyTreeDef,
        name: str,
        in_shardings: Sequence[Sharding | None] = (),
        out_shardings: Sequence[Sharding | None] = (),
        donated: Sequence[bool] = (),
        device: Any = None,
        keep_spec: bool = False,
    ) -> None:
        self.closed = closed
        self.keep_spec = keep_spec  # the first named argument sharding is an array's own
        self.device = device  # where committed arguments put it (None: the default device)
        self.consts = consts
        self.out_tree = out_tree
        self.single_leaf = out_tree.node_type is None
        # A plain list or tuple of leaves (a list of parameters) is built without unflattening.
        flat = all(c.node_type is None for c in out_tree.child_treedefs)
        self.flat_type = out_tree.pytype if flat and out_tree.pytype in (list, tuple) else None
        self.executable: Executable | SpmdExecutable | ReplicatedJit | None = None
        self.name = name
        self.in_shardings = tuple(in_shardings)
        self.out_shardings = tuple(out_shardings)
        self.donated = tuple(donated)
        self.keep_unused = False  # jit(keep_unused=True): every argument a parameter
        self.compiler_options: dict[str, Any] | None = None  # jit(compiler_options=...)

    def compile(self) -> Executable | SpmdExecutable | ReplicatedJit:
        if self.executable is None:
            self.executable = self.build(self.compiler_options)
        return self.executable

    def build(
        self, compiler_options: Mapping[str, Any] | None
    ) -> Executable | SpmdExecutable | ReplicatedJit:
        """A new executable, compiled with these XLA options (not cached here)."""
        with _jaxlib.compiler_options(compiler_options):
            return compile_jaxpr(
                self.closed.jaxpr,
                self.consts,
                self.name,
                self.in_shardings,
                self.out_shardings,
                self.donated,
                self.device,
                self.keep_spec,
                self.keep_unused,
            )

    def output(self, outs: Sequence[Any]) -> Any:
        if self.single_leaf:
            return outs[0]
        if self.flat_type is list:
            return list(outs)
        if self.flat_type is tuple:
            return tuple(outs)
        return tree_unflatten(self.out_tree, outs)


def _first_named_is_an_arrays(flat_args: Sequence[Any], shardings: Sequence[Any]) -> bool:
    """Whether the first named argument sharding belongs to a sharded array passed in (JAX's
    traced types then carry its mesh, and outputs laid out alike are spelled as it is)."""
    for x, s in zip(flat_args, shardings, strict=True):
        if isinstance(s, NamedSharding):
            return isinstance(x, ShardedArray)
    return False


class _Cache(OrderedDict[Hashable, _Entry]):
    """A function's entries by signature key, least recently traced first (bounded).
    ``generation`` counts the clears and evictions: a dispatch memo naming entries is valid
    within one generation only."""

    def __init__(self, unreferenceable: str | None = None) -> None:
        super().__init__()
        self.generation = 0
        # Why the function cannot be weakly referenced, if it cannot (JAX's error on a call)
        self.unreferenceable = unreferenceable

    def clear(self) -> None:
        super().clear()
        self.generation += 1

    def insert(self, key: Hashable, entry: _Entry) -> None:
        self[key] = entry
        if len(self) > _MAX_ENTRIES_PER_FUNCTION:
            self.popitem(last=False)
            self.generation += 1


class Signature(NamedTuple):
    """:meth:`JitFunction.signature` of a call: its cache ``key`` and what went into it."""

    key: Hashable
    flat_args: list[Any]
    in_tree: PyTreeDef
    statics: tuple[tuple[Any, Any], ...]
    avals: tuple[ShapedArray, ...]
    shardings: tuple[Sharding | None, ...]
    keep_spec: bool
    device: Any


def _fun_name(fun: Any, default: str) -> str:
    """JAX's name of a function (``fun_name``): its ``__name__``, else that of the function a
    ``partial`` (without a ``__name__`` of its own) wraps, else ``default``."""
    name = getattr(fun, "__name__", None)
    if name is not None:
        return str(name)
    if isinstance(fun, functools.partial):
        return _fun_name(fun.func, default)
    return default


def _fun_sourceinfo(fun: Any) -> str:
    """``name at file:line`` of a Python function, as JAX's messages name a traced one."""
    code = getattr(inspect.unwrap(fun), "__code__", None)
    name = getattr(fun, "__name__", type(fun).__name__)
    return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code is not None else name


def _run_entry(entry: _Entry, flat_args: Sequence[Any]) -> list[Any]:
    """Run ``entry`` on its flat arguments: its executable when nothing is being traced, else
    ``xla_call_p`` bound for the active transformation."""
    if is_eager() and not any(isinstance(c, Tracer) for c in entry.consts):
        if config.no_execution:  # (before compiling: sharded and replicated programs too)
            refuse_execution(entry.name)
        return list(entry.compile().run(flat_args))
    return bind(
        xla_call_p,
        *entry.consts,
        *flat_args,
        jaxpr=entry.closed,
        num_consts=len(entry.consts),
        name=entry.name,
    )


_buffer_of = operator.attrgetter("_buf")


def _put_unguarded(put: Callable[[Any], Any], x: Any) -> Any:
    """An eager array's put, which JAX (whose arrays live on the device) makes no transfer."""
    with _jaxlib.unguarded_puts():
        return put(x)


class _Plan:
    """A dispatch memo's value: the entry, and per flat argument how it reaches the
    executable: ``None`` for a device array passed as it is, else the function giving its
    buffer (host data: converted to the canonical dtype, float64 NumPy data to float32
    without enable_x64, and put on the device)."""

    __slots__ = ("conv", "entry")

    def __init__(self, entry: _Entry, conv: Sequence[Callable[[Any], Any] | None]) -> None:
        self.entry = entry
        self.conv = None
        if any(c is not None for c in conv):
            self.conv = tuple(_buffer_of if c is None else c for c in conv)

    def run(self, leaves: list[Any]) -> Any:
        entry = self.entry
        exe = entry.executable
        if type(exe) is not Executable:  # several devices: the general way
            return entry.output(_run_entry(entry, leaves))
        conv = self.conv
        if conv is None:
            bufs = list(map(_buffer_of, leaves))
        elif len(conv) == 1:  # (one host argument: jit(f)(np_array), no map)
            bufs = [conv[0](leaves[0])]
        else:
            bufs = list(map(operator.call, conv, leaves))
        outs = exe.run_buffers(bufs)
        return outs[0] if entry.single_leaf else entry.output(outs)


#: A jitted function's dispatch memo is emptied when it grows past this many keys.
_MAX_MEMO_KEYS = 256

_function_caches: weakref.WeakKeyDictionary[Any, _Cache] = weakref.WeakKeyDictionary()


def _clear_function_caches(_: bool) -> None:
    """A signature traced in one dtype mode must not be reused in the other (constants and
    dtype defaults inside the function differ), so switching enable_x64 empties every cache."""
    for cache in list(_function_caches.values()):
        cache.clear()


on_x64_change(_clear_function_caches)

#: The settings a trace depends on besides its arguments (the default matmul precision, the
#: dtype and rank promotion modes), part of every signature key as JAX keys its traces on them:
#: a function whose body switches one (``jnp`` under ``numpy_dtype_promotion("standard")``)
#: keeps its entries, and switching back finds the earlier traces. Set by ``_caches``.
_trace_settings: tuple[Any, ...] = ()


def trace_settings_changed(settings: tuple[Any, ...]) -> None:
    """Key later signatures on ``settings``; the dispatch memos (keyed on arguments alone)
    are dropped by a new generation of every cache."""
    global _trace_settings
    _trace_settings = settings
    drop_dispatch_memos()


def drop_dispatch_memos() -> None:
    """Make every jitted function rebuild its dispatch plans on its next call (a setting the
    plans were built for changed: the transfer guards, the default device)."""
    for cache in list(_function_caches.values()):
        cache.generation += 1


on_change("default_device", lambda _: drop_dispatch_memos())  # (signatures key the device)


def _cache_for(fun: Callable[..., Any]) -> _Cache:
    """The LRU cache shared by every ``jit`` of ``fun``, dropped when ``fun`` is collected."""
    try:
        cache = _function_caches.get(fun)
        if cache is None:
            cache = _Cache()
            _function_caches[fun] = cache
        return cache
    except TypeError as err:  # not weak-referenceable or not hashable: a cache of its own
        try:
            weakref.ref(fun)
        except TypeError:
            # A user's callable: tracing it fails with this error, as JAX's jit does. mj's own
            # callables (vjp's and linear_transpose's functions, ...) are JAX's weakly
            # referenceable Partials there, which jit takes.
            if type(fun).__module__.partition(".")[0] not in _MJ_PACKAGES:
                return _Cache(str(err))
        return _Cache()


_MJ_PACKAGES = frozenset(
    ("mj", "mj_core", "mj_ir", "mj_autodiff", "mj_batch", "mj_control", "mj_xla")
)


#: Host data's canonical ShapedArray, one shared object per signature: keyed by type for
#: NumPy scalars and Python floats/complex/bools (the type decides the aval), by (dtype,
#: shape) for NumPy arrays. A pytree of 100,000 such leaves is keyed without building an aval
#: per leaf, and equal keys compare by identity. Emptied when enable_x64 changes the
#: canonical dtypes.
_host_avals: dict[Any, ShapedArray] = {}
on_x64_change(lambda _: _host_avals.clear())


def _leaf_aval(x: Any) -> ShapedArray:
    t = type(x)
    if issubclass(t, Array):  # device arrays, sharded ones too: never read to the host
        array_aval: ShapedArray = x._aval
        return array_aval
    aval = _host_avals.get(t)
    if aval is not None:
        return aval
    if t is np.ndarray:
        key: Any = (x.dtype, x.shape)
        aval = _host_avals.get(key)
        if aval is None:
            aval = _host_avals[key] = _new_leaf_aval(x)  # (checks the dtype once)
        return aval
    aval = _new_leaf_aval(x)
    if isinstance(x, np.generic) or t in (float, complex, bool):  # (an int's value matters)
        _host_avals[t] = aval
    return aval


def _new_leaf_aval(x: Any) -> ShapedArray:
    try:
        return raise_to_shaped(get_aval(x))
    except TypeError:
        if is_array(x):  # an array of a dtype mj refuses: get_aval's message says which
            raise
        if getattr(x, "__jax_array__", None) is not None:  # JAX's refusal, in its words
            raise ValueError(
                "Triggering __jax_array__() during abstractification is no longer supported. "
                "To avoid this error, either explicitly convert your object using "
                f"jax.numpy.array(), or register your object as a pytree.{_where()}"
            ) from None
        raise _NotAnArrayLeafError(x) from None


class _NotAnArrayLeafError(TypeError):
    """An argument leaf that is not an array: ``signature`` words the error with its path."""

    def __init__(self, leaf: Any) -> None:
        super().__init__(f"jit: an argument leaf is a {type(leaf).__name__}, not an array")
        self.leaf = leaf


def _abstract_leaf_aval(x: Any) -> ShapedArray:
    """``lower``'s arguments may also be ``ShapedArray``s or ``ShapeDtypeStruct``s."""
    if isinstance(x, ShapedArray):
        return raise_to_shaped(x)
    if isinstance(x, ShapeDtypeStruct):
        return ShapedArray(x.shape, x.dtype, x.weak_type)
    return _leaf_aval(x)


def _where() -> str:
    where = user_location()
    return f" ({where})" if where else ""


class PjitFunction(Generic[P, R]):
    """``jit(fun)``: call it like ``fun``; ``.lower(*args)`` gives the StableHLO. Named as
    JAX's class of jitted functions (``jaxlib``'s ``PjitFunction``: chex tells a jitted
    function by that name); ``JitFunction`` is mj's name for it."""

    __slots__ = (
        "__dict__",
        "__weakref__",
        "_cache",
        "_compiler_options",
        "_device",
        "_donate_argnames",
        "_donate_argnums",
        "_fun",
        "_in_shardings",
        "_inline",
        "_keep_unused",
        "_last",
        "_memo",
        "_memo_generation",
        "_name",
        "_out_shardings",
        "_static_argnames",
        "_static_argnums",
        "_static_positions",
        "_variant",
    )

    def __init__(
        self,
        fun: Callable[P, R],
        static_argnums: Sequence[int],
        static_argnames: Sequence[str],
        in_shardings: Any = None,
        out_shardings: Any = None,
        donate_argnums: Sequence[int] = (),
        donate_argnames: Sequence[str] = (),
        keep_unused: bool = False,
        device: Any = None,
        inline: bool = False,
        compiler_options: Mapping[str, Any] | None = None,
    ) -> None:
        self._fun = fun
        self._compiler_options = dict(compiler_options) if compiler_options else None
        self._donate_argnums = frozenset(donate_argnums)
        self._donate_argnames = frozenset(donate_argnames)
        self._keep_unused = bool(keep_unused)
        self._device = device
        self._inline = bool(inline)
        # Every jit of one function shares its cache; options changing what is compiled
        # (donation, output layouts, unused arguments kept) are part of the key.
        self._variant: Hashable = None
        if donate_argnums or donate_argnames or out_shardings is not None or keep_unused:
            outs, outs_tree = tree_flatten(out_shardings, is_leaf=_is_sharding_leaf)
            self._variant = (
                self._donate_argnums,
                self._donate_argnames,
                tuple(outs),
                outs_tree,
                self._keep_unused,
            )
        if self._compiler_options:  # (values by repr: XLA reads them as text anyway)
            options = tuple(sorted((k, repr(v)) for k, v in self._compiler_options.items()))
            self._variant = (self._variant, options)
        self._in_shardings = in_shardings
        self._out_shardings = out_shardings
        self._name = _fun_name(fun, type(fun).__name__)
        self._static_argnums = tuple(static_argnums)
        self._static_argnames = frozenset(static_argnames)
        # static_argnums as positions, per argument count (None: an index out of range)
        self._static_positions: dict[int, frozenset[int] | None] = {}
        self._cache = _cache_for(fun)
        # The dispatch memo: per-call keys read off the arguments (see _describe) -> plans.
        self._memo: dict[Hashable, _Plan] = {}
        self._memo_generation = self._cache.generation
        # The last positional call's tokens and the plan they found: a call like it (a loop
        # feeding back the previous outputs, a data pipeline's batches) is recognised by one
        # list comparison, which short-cuts on identical objects (the avals an executable gives
        # its outputs, dtypes) where the memo's lookup hashes and compares each aval in Python.
        self._last: tuple[list[Any], _Plan] | None = None
        functools.update_wrapper(self, fun)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        if config.disable_jit:
            return self._fun(*args, **kwargs)
        if self._device is not None:  # jit(device=...): its arguments committed there
            args, kwargs = self._placed(args, kwargs)
        memo_key: Hashable = None
        if is_eager():
            # The dispatch memo: a key read off the arguments without flattening them or
            # building avals, mapped to what signature() found for the first such call.
            leaves: list[Any] = []
            tokens: list[Any] | None = None
            if not kwargs and not self._static_argnums:
                tokens = [len(args)]
                positional: tuple[Any, ...] = args
                for a in positional:  # (_describe's first cases, inline: the common leaves)
                    t = type(a)
                    if t is Array:
                        leaves.append(a)
                        tokens.append(a._aval)
                    elif t is np.ndarray:
                        leaves.append(a)
                        tokens += (t, a.dtype, a.shape)
                    elif not _describe(a, leaves, tokens):
                        tokens = None
                        break
            else:
                memo_key = self._describe_call(args, kwargs, leaves)
            if tokens is not None or memo_key is not None:
                if self._memo_generation != self._cache.generation:
                    self._memo.clear()
                    self._last = None
                    self._memo_generation = self._cache.generation
                if tokens is not None:
                    last = self._last
                    if last is not None and tokens == last[0]:  # (equal tokens: equal keys)
                        return last[1].run(leaves)  # type: ignore[no-any-return]
                    memo_key = tuple(tokens)
                plan = self._memo.get(memo_key)
                if plan is not None:
                    if tokens is not None:
                        self._last = (tokens, plan)
                    return plan.run(leaves)  # type: ignore[no-any-return]
        if self._inline and not is_eager():  # traced inside another function: its equations
            return self._fun(*args, **kwargs)
        entry, sig = self._entry_for(args, kwargs)
        out = entry.output(_run_entry(entry, sig.flat_args))
        if memo_key is not None:
            self._remember(memo_key, entry, sig)
        return out  # type: ignore[no-any-return]

    def _describe_call(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], leaves: list[Any]
    ) -> Hashable:
        """The memo key of a call with keyword or static arguments (None: not one the memo
        serves): the positional arguments as ``__call__`` describes them, static ones by value
        (their positions follow from the argument count, the first token), then the keyword
        names and values in :func:`tree_flatten`'s (sorted) order. Unhashable static values
        are left to signature(), which refuses them with its message."""
        nargs = len(args)
        positions = self._static_positions
        if nargs not in positions:
            positions[nargs] = _normalized_positions(self._static_argnums, nargs)
        static = positions[nargs]
        if static is None:
            return None  # an index out of range: signature() says so
        tokens: list[Any] = [nargs]
        for i, a in enumerate(args):
            if i in static:
                tokens += (type(a), a)  # (by type too, as signature()'s key)
            elif not _describe(a, leaves, tokens):
                return None
        if kwargs:
            names = tuple(sorted(kwargs))
            tokens.append(names)
            static_names = self._static_argnames
            for name in names:
                value = kwargs[name]
                if name in static_names:
                    tokens += (type(value), value)
                elif not _describe(value, leaves, tokens):
                    return None
        key = tuple(tokens)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _remember(self, memo_key: Hashable, entry: _Entry, sig: Signature) -> None:
        """Memoize ``memo_key`` -> ``entry`` (found by ``sig``) if the cache holds it."""
        cache = self._cache
        if cache.get(sig.key) is not entry or self._memo_generation != cache.generation:
            return  # not cached (closes over tracers), or the cache changed meanwhile
        device = entry.device
        conv: list[Callable[[Any], Any] | None] = []
        for x, aval in zip(sig.flat_args, sig.avals, strict=True):
            t = type(x)
            if t is CommittedArray or (t is Array and device is None):
                conv.append(None)  # its buffer, as it is
            elif t is Array:  # uncommitted, beside committed ones: copied to their device
                conv.append(functools.partial(to_buffer, aval=aval, device=device))
            else:  # host data: converted to its canonical dtype, then one put
                put = _jaxlib.host_putter(aval.shape, aval.dtype, device)
                if _jaxlib.guards_set and issubclass(t, EagerArray):
                    put = functools.partial(_put_unguarded, put)
                conv.append(put)
        if len(self._memo) >= _MAX_MEMO_KEYS:
            self._memo.clear()
            self._last = None
        self._memo[memo_key] = _Plan(entry, conv)

    def _placed(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
        """The dynamic array arguments put on ``jit(device=...)``'s device (committed)."""
        static = set(self._static_argnums)
        nargs = len(args)

        def put(x: Any) -> Any:
            if isinstance(x, Tracer) or not is_array(x) or type(x) in (bool, int, float, complex):
                return x
            return device_put(x, self._device)

        placed = tuple(
            a if i in static or i - nargs in static else tree_map(put, a)
            for i, a in enumerate(args)
        )
        return placed, {
            k: v if k in self._static_argnames else tree_map(put, v) for k, v in kwargs.items()
        }

    # --- signature and tracing --------------------------------------------------------------
    def _split_static(
        self, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[list[Any], dict[str, Any], tuple[Any, ...]]:
        nargs = len(args)
        static_pos: set[int] = set()
        for i in self._static_argnums:
            if -nargs <= i < nargs:  # (one not passed positionally: a default or a keyword)
                static_pos.add(i % nargs)
        static_vals: list[tuple[Any, Any]] = []
        for i in sorted(static_pos):
            static_vals.append((i, args[i]))
        dyn_kwargs = {}
        for k, v in kwargs.items():
            if k in self._static_argnames:
                static_vals.append((k, v))
            else:
                dyn_kwargs[k] = v
        for name, val in static_vals:
            try:
                hash(val)
            except TypeError:
                what = f"argument {name}" if isinstance(name, int) else f"argument {name!r}"
                raise UnhashableStaticArgumentError(
                    "Non-hashable static arguments are not supported. "
                    f"jit({self._name}): static {what} is unhashable (a "
                    f"{type(val).__name__}): static arguments must be hashable, e.g. a "
                    f"tuple instead of a list{_where()}"
                ) from None
        dyn_args = [a for i, a in enumerate(args) if i not in static_pos]
        return dyn_args, dyn_kwargs, tuple(static_vals)

    def signature(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], abstract: bool = False
    ) -> Signature:
        """What identifies this call's compiled entry: the one definition of the cache key.

        The key holds the static argument values (by position or name), the pytree structure
        of the dynamic arguments, each leaf's canonical aval (shape, dtype after enable_x64
        narrowing, weak type), the options of this ``jit`` that change what is compiled
        (donation, output shardings, keep_unused), the named axes in scope, the argument
        shardings (``in_shardings`` or sharded arrays') and the device of committed
        arguments. Configuration that changes traced or compiled programs (``enable_x64``,
        ``default_matmul_precision``, ``numpy_dtype_promotion``, ``numpy_rank_promotion``)
        is not spelled in the key: changing it empties every cache instead.

        ``__call__``'s dispatch memo maps a cheaper per-call key to the entry this key found,
        so every kind of argument (device, committed or host arrays, scalars, pytrees of
        them) gets the same entry either way. ``abstract``: leaves may also be avals
        (``ShapedArray``, ``ShapeDtypeStruct``), for ``lower`` and ``trace``.
        """
        if self._static_argnums or self._static_argnames:
            dyn_args, dyn_kwargs, statics = self._split_static(args, kwargs)
        else:
            dyn_args, dyn_kwargs, statics = list(args), kwargs, ()
        flat_args, in_tree = tree_flatten((tuple(dyn_args), dyn_kwargs))
        to_aval = _abstract_leaf_aval if abstract else _leaf_aval
        try:
            avals = tuple([to_aval(x) for x in flat_args])
        except _NotAnArrayLeafError as err:
            i = next(k for k, x in enumerate(flat_args) if x is err.leaf)
            static_pos = [k for k, _ in statics if isinstance(k, int)]
            path = arg_names(self._fun, in_tree, static_pos)[i]
            raise TypeError(  # JAX's wording (pjit._infer_params), then mj's
                f"Error interpreting argument to {self._fun} as an abstract array. The "
                f"problematic value is of type {type(err.leaf)} and was passed to the function "
                f"at path {path}.\nThis typically means that a jit-wrapped function was called "
                "with a non-array argument, and this argument was not marked as static using "
                f"the static_argnums or static_argnames parameters of jax.jit (the value: "
                f"{err.leaf!r}){_where()}."
            ) from None
        shardings = self._arg_shardings(flat_args, in_tree)
        keep_spec = bool(shardings) and _first_named_is_an_arrays(flat_args, shardings)
        plain = not statics and not dyn_kwargs and _all_leaves(in_tree)
        device = _committed_device(flat_args, avals, self._fun if plain else None, self._name)
        if device is None and not shardings:  # jit(device=d), else ``with default_device(d)``
            device = self._device if self._device is not None else _jaxlib.default_device()
        key = (
            tuple((k, type(v), v) for k, v in statics),  # (equal values of unequal types
            in_tree,  # are different: 1, True and 1.0, as in JAX)
            avals,
            self._variant,
            axis_env_signature(),  # collectives inside resolve against the axes in scope
            _trace_settings,
            shardings,  # laid out over several devices: compiled for that layout
            keep_spec,
            device,  # follows its committed arguments (outputs committed too)
        )
        return Signature(key, flat_args, in_tree, statics, avals, shardings, keep_spec, device)

    def _entry_for(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], abstract: bool = False
    ) -> tuple[_Entry, Signature]:
        sig = self.signature(args, kwargs, abstract)
        key = sig.key
        entry = self._cache.get(key)
        if entry is not None:
            self._cache.move_to_end(key)
            return entry, sig
        entry = self._trace(args, sig.statics, sig.in_tree, sig.avals, sig.shardings)
        entry.device = sig.device
        entry.keep_spec = sig.keep_spec
        entry.keep_unused = self._keep_unused
        entry.compiler_options = self._compiler_options
        if self._donate_argnums or self._donate_argnames:
            entry.donated = self._donated_leaves(len(args), sig.statics, sig.in_tree)
        if not any(isinstance(c, Tracer) for c in entry.consts):
            # Entries closing over an enclosing transformation's tracers are not reusable.
            self._cache.insert(key, entry)
        return entry, sig

    def _trace(
        self,
        args: tuple[Any, ...],
        statics: tuple[tuple[Any, Any], ...],
        in_tree: PyTreeDef,
        avals: tuple[ShapedArray, ...],
        in_shardings: tuple[Sharding | None, ...] = (),
    ) -> _Entry:
        if self._cache.unreferenceable is not None:
            raise TypeError(self._cache.unreferenceable)
        if config.no_tracing:
            raise RuntimeError(
                f"re-tracing function {_fun_sourceinfo(self._fun)} for `jit`, but 'no_tracing' "
                "is set"
            )
        static_pos = {k: v for k, v in statics if isinstance(k, int)}
        static_kw = {k: v for k, v in statics if isinstance(k, str)}
        out_trees: list[PyTreeDef] = []
        fun = self._fun

        def fun_flat(*flat: Any) -> list[Any]:
            dyn_args, dyn_kwargs = tree_unflatten(in_tree, flat)
            it = iter(dyn_args)
            full = [static_pos[i] if i in static_pos else next(it) for i in range(len(args))]
            out = fun(*full, **dyn_kwargs, **static_kw)
            out_flat, out_tree = tree_flatten(out)
            check_returned_jaxtypes(fun, "jit", out_flat, out_tree)
            out_trees.append(out_tree)
            return out_flat

        with timed("Finished tracing %s for jit", self._name):
            jaxpr, consts = trace_to_jaxpr(fun_flat, avals)
        out_tree = out_trees[0]
        out_shardings: tuple[Sharding | None, ...] = ()
        if self._out_shardings is not None:
            out_shardings = tuple(
                broadcast_prefix(self._out_shardings, out_tree, f"jit({self._name}) out_shardings")
            )
        entry = _Entry(
            ClosedJaxpr(jaxpr, ()), consts, out_tree, self._name, in_shardings, out_shardings
        )
        return entry

    def _donated_leaves(
        self, nargs: int, statics: tuple[tuple[Any, Any], ...], in_tree: PyTreeDef
    ) -> tuple[bool, ...]:
        """Per flat argument: whether it belongs to a donated argument."""
        static_pos = {k for k, _ in statics if isinstance(k, int)}
        positions = [i for i in range(nargs) if i not in static_pos]
        args_tree, kw_tree = in_tree.child_treedefs
        flags: list[bool] = []
        for pos, sub in zip(positions, args_tree.child_treedefs, strict=True):
            flags += [pos in self._donate_argnums] * sub.num_leaves
        names: tuple[str, ...] = kw_tree.node_data or ()  # type: ignore[assignment]
        for name, sub in zip(names, kw_tree.child_treedefs, strict=True):
            flags += [name in self._donate_argnames] * sub.num_leaves
        return tuple(flags)

    def _arg_shardings(
        self, flat_args: Sequence[Any], in_tree: PyTreeDef
    ) -> tuple[Sharding | None, ...]:
        """Per flat argument: its ``in_shardings`` entry, else the layout of an argument
        already sharded over several devices; ``()`` when nothing is sharded."""
        given: list[Sharding | None] = [None] * len(flat_args)
        if self._in_shardings is not None:
            args_tree = in_tree.child_treedefs[0]
            what = f"jit({self._name}) in_shardings"
            spec = self._in_shardings
            if isinstance(spec, list):
                spec = tuple(spec)
            if isinstance(spec, tuple) and len(spec) != len(args_tree.child_treedefs):
                raise ValueError(
                    f"{what} has {len(spec)} entries but the function was called with "
                    f"{len(args_tree.child_treedefs)} positional (non-static) arguments; give "
                    f"one sharding (or None) per argument{_where()}"
                )
            given[: args_tree.num_leaves] = broadcast_prefix(spec, args_tree, what)
        for i, x in enumerate(flat_args):
            sharded = isinstance(x, ShardedArray) and not isinstance(x.sharding, PmapSharding)
            if given[i] is None and sharded:
                given[i] = x.sharding
        return tuple(given) if any(s is not None for s in given) else ()

    # --- introspection ----------------------------------------------------------------------
    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Trace and lower for these arguments (arrays or ShapedArray/ShapeDtypeStruct)."""
        entry, sig = self._entry_for(args, kwargs, abstract=True)
        return Lowered(entry, self._call_info(sig))

    def trace(self, *args: Any, **kwargs: Any) -> Traced:
        """Trace for these arguments (as :meth:`lower`); ``.lower(lowering_platforms=...)``
        then lowers for a platform of choice, as JAX's ``jit(f).trace(...)``."""
        entry, sig = self._entry_for(args, kwargs, abstract=True)
        return Traced(entry, self._call_info(sig))

    def eval_shape(self, *args: Any, **kwargs: Any) -> Any:
        """The outputs' shapes and dtypes for these arguments, traced and never run (JAX's
        ``jit(f).eval_shape``, that is ``jit(f).trace(...).out_info``)."""
        return self.trace(*args, **kwargs).out_info

    def _call_info(self, sig: Signature) -> _CallInfo:
        fun, positions = self._fun, [k for k, _ in sig.statics if isinstance(k, int)]
        return _CallInfo(sig.in_tree, sig.avals, lambda: arg_names(fun, sig.in_tree, positions))

    def _cache_size(self) -> int:
        """Number of traced signatures currently cached for this function."""
        return len(self._cache)

    def clear_cache(self) -> None:
        self._cache.clear()

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __repr__(self) -> str:
        """JAX's text (``<PjitFunction of <function f ...>>``); never raises, as JAX's: a
        function whose repr fails, or a jitted object missing its ``__wrapped__``, prints
        ``<PjitFunction>``."""
        try:
            return f"<PjitFunction of {self.__dict__['__wrapped__']!r}>"
        except Exception:  # any failure of the user's __repr__, or no __wrapped__
            return "<PjitFunction>"

    def __getstate__(self) -> dict[str, Any]:
        """JAX's state dict (``function_name``, ``fun``, the static arguments), with mj's own
        attributes under ``mj_slots`` / ``mj_dict`` for :meth:`__setstate__` (pickling)."""
        slots = {
            k: getattr(self, k)
            for k in PjitFunction.__slots__
            if k not in ("__dict__", "__weakref__") and hasattr(self, k)
        }
        return {
            "version": 1,
            "function_name": _fun_name(self._fun, "<unnamed function>"),
            "fun": self._fun,
            "static_argnums": list(self._static_argnums),
            "static_argnames": sorted(self._static_argnames),
            "mj_slots": slots,
            "mj_dict": dict(self.__dict__),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        for k, v in state["mj_slots"].items():
            setattr(self, k, v)
        self.__dict__.update(state["mj_dict"])

    @property
    def __signature__(self) -> inspect.Signature:
        """``fun``'s signature, as JAX's jitted functions give it: without it ``inspect``
        takes the object (a descriptor, for methods) for a builtin and finds no signature
        when it does not follow ``__wrapped__`` (chex's fake pmap)."""
        return inspect.signature(self._fun)


JitFunction = PjitFunction  # mj's name


def _committed_device(
    flat_args: Sequence[Any], avals: Sequence[ShapedArray], fun: Any, name: str
) -> Any:
    """The device of the committed arguments (None when there are none), or JAX's
    ``ValueError`` when two are committed to different devices."""
    device: Any = None
    first = -1
    for i, x in enumerate(flat_args):
        if type(x) is CommittedArray:
            where = x.device
            if device is None:
                device, first = where, i
            elif where is not device:
                a, b = (
                    _describe_arg(fun, name, j, avals[j], d)
                    for j, d in ((first, device), (i, where))
                )
                raise ValueError(
                    f"Received incompatible devices for jitted computation. Got {a} and "
                    f"{b}{_where()}"
                )
    return device


def _describe_arg(fun: Any, name: str, i: int, aval: ShapedArray, device: Any) -> str:
    """JAX's words for an argument in a device mismatch: name (``fun``'s parameter when the
    arguments are its plain positional arrays), shape and placement."""
    params: list[str] = []
    if fun is not None:
        with contextlib.suppress(TypeError, ValueError):  # no signature: positions
            params = list(inspect.signature(fun).parameters)
    arg = params[i] if i < len(params) else f"args[{i}]"
    shape = f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"
    return (
        f"argument {arg} of {name} with shape {shape} and with device ids [{device.id}] on "
        f"platform {device.platform.upper()}"
    )


def _is_sharding_leaf(x: Any) -> bool:
    return x is None or isinstance(x, Sharding)


#: NumPy's scalar types: a leaf's type alone decides its aval (the slow path refuses those of
#: dtypes mj does not support, and refused calls are never memoized).
_NUMPY_SCALARS = frozenset(np.sctypeDict.values())
_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1


def _normalized_positions(nums: Sequence[int], nargs: int) -> frozenset[int] | None:
    """``static_argnums`` as positions among ``nargs`` arguments (negative ones counted from
    the end; one out of range is not passed positionally, and ignored as in JAX)."""
    return frozenset(i % nargs for i in nums if -nargs <= i < nargs)


def _describe(x: Any, leaves: list[Any], tokens: list[Any]) -> bool:
    """The dispatch memo's key of a call: append ``x``'s leaves to ``leaves`` in
    :func:`tree_flatten`'s order and to ``tokens`` what :meth:`JitFunction.signature` reads of
    them, cheaply; False for anything else (that call takes the full signature every time).

    Tokens (decoded left to right, so equal token lists mean equal signatures): a container's
    ``(type, length)`` or ``(dict, sorted keys)``; ``NoneType`` for None; a device array's
    aval; ``CommittedArray``, its aval and device; for host arrays (NumPy, eager) their type,
    dtype and shape (the canonical aval follows from them); for NumPy and Python scalars their
    type (a Python int within int32's range, where its type alone decides its aval)."""
    t = type(x)
    if t is Array:  # device arrays, the common leaf
        leaves.append(x)
        tokens.append(x._aval)
        return True
    if t is tuple or t is list:
        tokens.append((t, len(x)))
        for c in x:
            if type(c) is Array:
                leaves.append(c)
                tokens.append(c._aval)
            elif not _describe(c, leaves, tokens):
                return False
        return True
    if t is np.ndarray:
        leaves.append(x)
        tokens += (t, x.dtype, x.shape)
        return True
    if t is float or t is bool or t is complex or t in _NUMPY_SCALARS:
        leaves.append(x)
        tokens.append(t)
        return True
    if t is int:
        if not _INT32_MIN <= x <= _INT32_MAX:
            return False  # may overflow the default int: the slow path checks
        leaves.append(x)
        tokens.append(t)
        return True
    if t is dict:
        try:
            keys = tuple(sorted(x))
        except TypeError:
            return False
        tokens.append((dict, keys))
        return all(_describe(x[k], leaves, tokens) for k in keys)
    if x is None:
        tokens.append(t)
        return True
    if t is CommittedArray:
        leaves.append(x)
        tokens += (t, x._aval, x.device)
        return True
    if issubclass(t, EagerArray):  # (a weakly typed one is its own type)
        leaves.append(x)
        tokens += (t, x.dtype, x.shape)
        return True
    return False


def _all_leaves(in_tree: PyTreeDef) -> bool:
    """True for the structure ``((leaf, ..., leaf), {})`` of plain positional arrays."""
    args_tree = in_tree.child_treedefs[0]
    return all(c.node_type is None for c in args_tree.child_treedefs)


class _CallInfo(NamedTuple):
    """The signature a stage was made for: the ``(args, kwargs)`` structure of the dynamic
    arguments, their avals, and (lazily) their names for error messages."""

    in_tree: PyTreeDef
    avals: tuple[ShapedArray, ...]
    names: Callable[[], list[str]]


def _out_info(entry: _Entry) -> Any:
    """The outputs' shapes, dtypes and weak types as a pytree of ``ShapeDtypeStruct``s, with
    the ``out_shardings`` given to ``jit`` (``None`` where none was given), as JAX's."""
    shardings = entry.out_shardings or (None,) * len(entry.closed.jaxpr.outs)
    outs = [
        ShapeDtypeStruct(v.aval.shape, v.aval.dtype, v.aval.weak_type, sharding=s)
        for v, s in zip(entry.closed.jaxpr.outs, shardings, strict=True)
    ]
    return tree_unflatten(entry.out_tree, outs)


class _Stage:
    """What ``Lowered`` and ``Compiled`` report about their signature, as JAX's stages."""

    __slots__ = ("_call", "_entry")
    _entry: _Entry
    _call: _CallInfo

    @property
    def in_tree(self) -> PyTreeDef:
        """The structure of ``(positional arguments, keyword arguments)`` (static ones
        left out)."""
        return self._call.in_tree

    @property
    def in_avals(self) -> Any:
        """The arguments' types, as the ``(args, kwargs)`` pytree of ``ShapedArray``s."""
        return tree_unflatten(self._call.in_tree, self._call.avals)

    @property
    def args_info(self) -> Any:
        """The ``(args, kwargs)`` pytree of :class:`~mj.stages.ArgInfo` (type, donated)."""
        return args_info(self._call.in_tree, self._call.avals, self._entry.donated)

    @property
    def donate_argnums(self) -> tuple[int, ...]:
        """The flat indices of the donated argument leaves."""
        return tuple(i for i, d in enumerate(self._entry.donated) if d)

    @property
    def out_tree(self) -> PyTreeDef:
        return self._entry.out_tree

    @property
    def out_info(self) -> Any:
        return _out_info(self._entry)


class Traced:
    """A traced call (JAX's ``jax.stages.Traced``): its jaxpr, and lowering it."""

    __slots__ = ("_call", "_entry")

    def __init__(self, entry: _Entry, call: _CallInfo) -> None:
        self._entry = entry
        self._call = call

    @property
    def jaxpr(self) -> ClosedJaxpr:
        return self._entry.closed

    @property
    def out_info(self) -> Any:
        return _out_info(self._entry)

    def lower(self, *, lowering_platforms: Sequence[str] | None = None) -> Lowered:
        """Lower for the platform the call would run on, or for ``lowering_platforms`` (one
        platform: ``("cuda",)`` gives the GPU module as text on any machine, with the
        platform's lowering rules and custom-call targets)."""
        if lowering_platforms is None:
            return Lowered(self._entry, self._call)
        platforms = tuple(lowering_platforms)
        if len(platforms) != 1:
            raise NotImplementedError(
                f"lower: lowering for several platforms at once ({platforms}) is not "
                "supported; lower once per platform"
            )
        return Lowered(self._entry, self._call, platforms[0])


def _lowered_jaxpr(entry: _Entry) -> Any:
    """The jaxpr ``entry`` compiles: without its unused arguments unless ``keep_unused``."""
    if entry.keep_unused:
        return entry.closed.jaxpr
    return drop_unused_arguments(entry.closed.jaxpr, len(entry.consts))[0]


def _dialect(dialect: str | None) -> str:
    if dialect is None or dialect == "stablehlo":
        return "stablehlo"
    if dialect == "hlo":
        return dialect
    raise ValueError(f"unknown dialect: {dialect}")


class Lowered(_Stage):
    """A traced and lowered call (JAX's ``jax.stages.Lowered``): ``as_text()`` is the
    StableHLO module, ``compile()`` the executable; ``in_avals``, ``args_info``,
    ``out_info``, ``in_tree`` describe the signature."""

    __slots__ = ("_platform",)

    def __init__(self, entry: _Entry, call: _CallInfo, platform: str | None = None) -> None:
        self._entry = entry
        self._call = call
        self._platform = platform  # None: the platform the call runs on

    def _module(self) -> Any:
        """The StableHLO module (an ``ir.Module``): the compiled one once compiled."""
        entry = self._entry
        if self._platform is not None:  # for another platform: text only, never compiled
            jaxpr = _lowered_jaxpr(entry)
            module, _ = build_module(jaxpr, inline_values(entry.consts), platform=self._platform)
            return module
        if entry.in_shardings or entry.out_shardings or any(entry.donated):  # as compiled
            entry.compile()
        exe = entry.executable
        if isinstance(exe, Executable | SpmdExecutable):
            return exe.module
        jaxpr = _lowered_jaxpr(entry)
        platform = _jaxlib.lowering_platform(entry.device)
        module, _ = build_module(jaxpr, inline_values(entry.consts), platform=platform)
        return module

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The StableHLO module as MLIR text (``dialect="stablehlo"``, the default), or the
        XLA HLO text of the same program (``dialect="hlo"``). ``debug_info`` is accepted
        (mj's modules carry no source locations)."""
        if _dialect(dialect) == "hlo":
            text: str = _jaxlib.hlo_computation(self._module()).as_hlo_text()
            return text
        module = self._module()
        exe = self._entry.executable
        if self._platform is None and isinstance(exe, ReplicatedJit):
            return exe.as_text()  # (the program of one replica per device)
        return str(module)

    def compiler_ir(self, dialect: str | None = None) -> Any:
        """The program as an object: the StableHLO ``ir.Module`` (the default), or, for
        ``dialect="hlo"``, the XLA computation (jaxlib's ``XlaComputation``)."""
        if _dialect(dialect) == "hlo":
            return _jaxlib.hlo_computation(self._module())
        return self._module()

    def cost_analysis(self) -> dict[str, float] | None:
        """XLA's cost estimates (``flops``, ``bytes accessed``, ...) of the program before
        optimization; ``None`` where the backend has none. ``Compiled.cost_analysis`` gives
        them after XLA's optimizations."""
        try:
            return _jaxlib.cost_analysis(self._module(), self._entry.device)
        except Exception:  # (JAX: None where unavailable)
            return None

    @property
    def jaxpr(self) -> ClosedJaxpr:
        return self._entry.closed

    def compile(self, compiler_options: Mapping[str, Any] | None = None) -> Compiled:
        """The executable. ``compiler_options``: XLA options by name, on top of ``jit``'s
        (an unknown name or a bad value is jaxlib's ``JaxRuntimeError``, as in JAX)."""
        if self._platform is not None and self._platform != _jaxlib.lowering_platform(
            self._entry.device
        ):
            raise ValueError(
                f"compile: this call was lowered for platform {self._platform!r}, but it "
                f"would run on {_jaxlib.lowering_platform(self._entry.device)!r}; lower it "
                "without lowering_platforms to compile it here"
            )
        return Compiled(self._entry, self._call, compiler_options)


class Compiled(_Stage):
    """A compiled call (JAX's ``jax.stages.Compiled``); calling it runs the executable on
    arguments of the lowered signature: the same pytree structure, shapes and dtypes (else
    JAX's ``TypeError``)."""

    __slots__ = ("_executable",)

    def __init__(
        self,
        entry: _Entry,
        call: _CallInfo,
        compiler_options: Mapping[str, Any] | None = None,
    ) -> None:
        self._entry = entry
        self._call = call
        if compiler_options:
            self._executable = entry.build({**(entry.compiler_options or {}), **compiler_options})
        else:
            self._executable = entry.compile()

    def as_text(self) -> str:
        """XLA's optimized HLO, as JAX's ``Compiled.as_text`` (``Lowered.as_text`` is the
        StableHLO that went in)."""
        return self._executable.optimized_text()

    def runtime_executable(self) -> Any:
        """jaxlib's loaded executable(s) behind this call (for debugging; no stable type)."""
        return self._executable.runtime_executable()

    def cost_analysis(self) -> Any:
        """XLA's cost estimates of the optimized program (``flops``, ``bytes accessed``,
        ...), as jaxlib reports them; ``None`` where the backend has none."""
        try:
            return self.runtime_executable().cost_analysis()
        except Exception:  # (JAX: None where unavailable)
            return None

    def memory_analysis(self) -> Any:
        """XLA's memory estimates (argument, output, temporary and code sizes in bytes:
        jaxlib's ``CompiledMemoryStats``); ``None`` where the backend has none."""
        try:
            return self.runtime_executable().get_compiled_memory_stats()
        except Exception:  # (JAX: None where unavailable)
            return None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        for x in tree_flatten((args, kwargs))[0]:
            if isinstance(x, Tracer):
                raise TypeError(
                    "Cannot apply JAX transformations to a function lowered and compiled for "
                    f"a particular signature. Detected argument of Tracer type {type(x)}."
                )
        flat, in_tree = tree_flatten((args, kwargs))
        call = self._call
        given = tuple([_leaf_aval(x) for x in flat]) if in_tree == call.in_tree else ()
        check_call(call.in_tree, in_tree, call.avals, given, call.names)
        return self._entry.output(self._executable.run(flat))


class JitDecorator(Protocol):
    """What ``jit(static_argnums=...)`` returns when called without the function."""

    def __call__(self, fun: Callable[P, R], /) -> JitFunction[P, R]: ...


@overload
def jit(
    fun: Callable[P, R],
    *,
    static_argnums: int | Sequence[int] | None = (),
    static_argnames: str | Sequence[str] | None = (),
    donate_argnums: int | Sequence[int] | None = (),
    donate_argnames: str | Sequence[str] | None = (),
    in_shardings: Any = None,
    out_shardings: Any = None,
    keep_unused: bool = False,
    device: Any = None,
    backend: str | None = None,
    inline: bool = False,
    compiler_options: dict[str, Any] | None = None,
) -> JitFunction[P, R]: ...


@overload
def jit(
    fun: None = None,
    *,
    static_argnums: int | Sequence[int] | None = (),
    static_argnames: str | Sequence[str] | None = (),
    donate_argnums: int | Sequence[int] | None = (),
    donate_argnames: str | Sequence[str] | None = (),
    in_shardings: Any = None,
    out_shardings: Any = None,
    keep_unused: bool = False,
    device: Any = None,
    backend: str | None = None,
    inline: bool = False,
    compiler_options: dict[str, Any] | None = None,
) -> JitDecorator: ...


def jit(
    fun: Callable[P, R] | None = None,
    *,
    static_argnums: int | Sequence[int] | None = None,
    static_argnames: str | Sequence[str] | None = None,
    donate_argnums: int | Sequence[int] | None = None,
    donate_argnames: str | Sequence[str] | None = None,
    in_shardings: Any = None,
    out_shardings: Any = None,
    keep_unused: bool = False,
    device: Any = None,
    backend: str | None = None,
    inline: bool = False,
    compiler_options: dict[str, Any] | None = None,
) -> JitFunction[P, R] | JitDecorator:
    """Compile ``fun`` with XLA: traced once per argument signature (shapes, dtypes, weak
    types, pytree structure, static argument values), then run as one executable.

    Arguments:
        fun: a function of arrays (pytrees of arrays) returning arrays. Without it, ``jit``
            returns a decorator with the other arguments bound (``@jit(static_argnums=0)``).
        static_argnums: positions of arguments passed as Python values (must be hashable);
            a new value triggers a new trace.
        static_argnames: the same for keyword arguments.
        donate_argnums: positions of arguments whose device buffers the outputs may reuse:
            each donated array is paired with an output of its shape and dtype, and is
            deleted after the call (using it again raises "Array has been deleted"); one no
            output can reuse is left alone, with JAX's warning.
        donate_argnames: the same for keyword arguments (each also donates the positional
            argument of that name, and ``donate_argnums`` the keyword of that position).
        in_shardings: how the positional arguments are laid out over devices: one
            :class:`~mj.sharding.Sharding` (or ``None``) for all, or one per argument (each
            a prefix of that argument's pytree). With a sharding involved, XLA's SPMD
            partitioner splits the program over the sharding's devices; ``None`` leaves an
            argument's layout as it is (replicated for host data).
        out_shardings: the same for the outputs (``None``: XLA chooses).
        keep_unused: keep arguments the function does not read as parameters of the
            compiled program (by default they are dropped, as in JAX).
        device: compile for this device and commit the array arguments there; deprecated
            in JAX (with its warning), which advises ``device_put`` on the arguments instead.
        backend: the same for the first device of this backend (``"cpu"``, ``"gpu"``).
        inline: traced inside another function (``jit``, ``make_jaxpr``, ``grad`` ...), its
            equations go inline rather than into a nested call.
        compiler_options: XLA options by name, as JAX's (``{"xla_embed_ir_in_executable":
            True}``, the effort levels ``optimization_level``, ``exec_time_optimization_effort``
            ...); XLA rejects an unknown name or a bad value with a ``JaxRuntimeError`` when
            it compiles. ``Lowered.compile(compiler_options=)`` adds to them.

    Example::

        >>> f = jit(lambda x: x * 2.0 + 1.0)
        >>> f(np.float32(3.0))
        Array(7., dtype=float32)
    """
    if fun is None:
        return functools.partial(  # type: ignore[return-value]
            jit,
            static_argnums=static_argnums,
            static_argnames=static_argnames,
            donate_argnums=donate_argnums,
            donate_argnames=donate_argnames,
            in_shardings=in_shardings,
            out_shardings=out_shardings,
            keep_unused=keep_unused,
            device=device,
            backend=backend,
            inline=inline,
            compiler_options=compiler_options,
        )
    if isinstance(fun, staticmethod):  # (JAX's refusal, kept for the same behaviour)
        raise TypeError(f"staticmethod arguments are not supported, got {fun}{_where()}")
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}{_where()}")
    if inspect.isgeneratorfunction(fun):
        raise TypeError(f"Expected a function, got a generator function: {fun}{_where()}")
    nums, names = _argnums_and_argnames(fun, static_argnums, static_argnames, "static")
    donate_nums, donate_names = _argnums_and_argnames(
        fun, donate_argnums, donate_argnames, "donate"
    )
    if both := set(names) & set(donate_names):
        raise ValueError(
            "static_argnames and donate_argnames cannot intersect. Argument names "
            f"{both} appear in both static_argnames and donate_argnames{_where()}"
        )
    if device is not None or backend is not None:
        warnings.warn(
            "backend and device argument on jit is deprecated. You can use "
            '`mj.device_put(..., mj.local_devices(backend="cpu")[0])` on the inputs to the '
            "jitted function to get the same behavior.",
            DeprecationWarning,
            stacklevel=2,
        )
        if device is None:
            device = _jaxlib.local_devices(backend)[0]
    return JitFunction(
        fun,
        nums,
        names,
        in_shardings,
        out_shardings,
        donate_nums,
        donate_names,
        keep_unused,
        device,
        inline,
        compiler_options,
    )


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _argnums_and_argnames(
    fun: Callable[..., Any], argnums: Any, argnames: Any, kind: str
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """JAX's ``resolve_argnums`` for ``{kind}_argnums``/``{kind}_argnames``: the one not given
    is inferred from the other through ``fun``'s signature (an argument is static or donated
    however it is passed), both are checked against the signature with JAX's messages."""
    nums_name, names_name = f"{kind}_argnums", f"{kind}_argnames"
    nums = None if argnums is None else _static_argnums_tuple(fun, argnums, nums_name)
    names = None if argnames is None else _argnames_tuple(argnames)
    try:
        sig: inspect.Signature | None = inspect.signature(fun)
    except (TypeError, ValueError):  # no signature (some builtins): take both as given
        sig = None
    if sig is None:
        if kind == "donate" and names is not None:
            raise ValueError(
                f"Getting the signature of function {fun} failed. Pass donate_argnums instead "
                f"of donate_argnames{_where()}."
            )
        return nums or (), names or ()
    params = list(sig.parameters.values())
    keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
    if nums is None and names is None:
        return (), ()
    if names is None:
        assert nums is not None
        names = tuple(p.name for i, p in enumerate(params) if p.kind is keyword and i in nums)
    elif nums is None:
        nums = tuple(i for i, p in enumerate(params) if p.kind is keyword and p.name in names)
    _validate_argnums(params, nums, nums_name)
    _validate_argnames(params, names, names_name)
    return nums, names


def _validate_argnums(
    params: Sequence[inspect.Parameter], nums: tuple[int, ...], what: str
) -> None:
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return  # any number of positional arguments
    n_pos = sum(p.kind in _POSITIONAL for p in params)
    if nums and (-min(nums) > n_pos or max(nums) >= n_pos):
        raise ValueError(
            f"Jitted function has {what}={nums}, but only accepts {n_pos} positional "
            f"arguments{_where()}."
        )


def _validate_argnames(
    params: Sequence[inspect.Parameter], names: tuple[str, ...], what: str
) -> None:
    """A name that is no keyword parameter of the function is a ``ValueError`` at once (as in
    JAX), not a setting that silently never applies."""
    keywords = {
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }
    positional_only = {
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.VAR_POSITIONAL)
    }
    if bad := positional_only & set(names):
        raise ValueError(
            f"Jitted function has invalid argnames {bad} in {what}. These are positional-only"
            f"{_where()}"
        )
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    if bad := set(names) - keywords:
        raise ValueError(
            f"Jitted function has invalid argnames {bad} in {what}. Function does not take "
            f"these args (its parameters: {[p.name for p in params]}){_where()}"
        )


def _argnames_tuple(names: Any) -> tuple[str, ...]:
    return (names,) if isinstance(names, str) else tuple(names)


def _static_argnums_tuple(
    fun: Callable[..., Any], static_argnums: Any, what: str = "static_argnums"
) -> tuple[int, ...]:
    try:
        if isinstance(static_argnums, int):
            return (static_argnums,)
        if not isinstance(static_argnums, str):
            return tuple(operator.index(i) for i in static_argnums)
    except TypeError:
        pass
    name = getattr(fun, "__name__", type(fun).__name__)
    raise TypeError(
        f"jit({name}): {what} must be an int or a sequence of ints, got "
        f"{static_argnums!r}{_where()}"
    )
