"""``pmap``: one program run on several devices, each on its slice of the mapped axis.

``pmap(f, axis_name="i")(xs)`` traces ``f`` once on one slice (the mapped axis removed) with
``"i"`` in scope for collectives, compiles it as one SPMD program over the devices, as JAX's
``jit(shard_map(f))`` (collectives over ``"i"`` become StableHLO cross-partition ops, see
:mod:`mj_xla.rules.parallel` and :mod:`mj_xla._pmap_spmd`), splits each mapped argument
along that axis, one slice per device, and returns a :class:`ShardedArray`
per output (the slices stay on their devices). Under a transformation the call binds the
``xla_pmap`` primitive (:mod:`mj_xla._xla_pmap`), whose rules make ``grad(pmap(f))``,
``pmap(grad(f))`` and ``vmap`` inside or around pmap work.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from mj_core import lax
from mj_core.errors import UnhashableStaticArgumentError
from mj_core.extend import (
    ShapedArray,
    Tracer,
    axis_env_signature,
    bind,
    extend_axis_env,
    get_aval,
    is_eager,
    raise_to_shaped,
    shape_of,
)
from mj_core.tree_util import (
    PyTreeDef,
    flatten_up_to,
    prefix_errors,
    tree_flatten,
    tree_leaves,
    tree_structure,
    tree_unflatten,
)
from mj_ir import ClosedJaxpr
from mj_ir.extend import trace_to_jaxpr
from mj_xla._array import Array
from mj_xla._jit import Lowered, jit
from mj_xla._pmap_executable import resolve_devices, where
from mj_xla._pmap_spmd import xla_pmap_impl
from mj_xla._xla_pmap import xla_pmap_p

__all__ = ["PmapFunction", "pmap"]


def _is_none(x: Any) -> bool:
    return x is None


def _in_axes_error(in_axes: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> ValueError:
    """JAX's message (``pmap._flatten_axes``' prefix error) for ``in_axes`` that is not a tree
    prefix of the positional arguments, the first mismatch by key path; then mj's context."""
    # JAX's key path names the (args, kwargs) pair: in_axes[0][i] is positional argument i
    errors = prefix_errors((in_axes, 0), (args, kwargs), is_leaf=_is_none)
    head = f"{errors[0]('pmap in_axes').args[0]}\n\n" if errors else ""
    kw = (
        "When some arguments are passed by keyword to the pmapped function, they are not "
        "included in the comparison to `in_axes`. Instead, each argument passed by keyword is "
        "mapped over its leading axis. See the description of `in_axes` in the `pmap` "
        "docstring.\n\n"
        if kwargs
        else ""
    )
    return ValueError(
        f"{head}The 'full pytree' here is the tuple of arguments passed positionally to the "
        "pmapped function, and the value of `in_axes` must be a tree prefix of that tuple. But "
        f"it was not a prefix.\n\n{kw}Check that the value of the `in_axes` argument to `pmap` "
        "is a tree prefix of the tuple of arguments passed positionally to the pmapped "
        f"function (in_axes={in_axes!r}, {len(args)} positional arguments){where()}."
    )


def _leaf_axes(name: str, tree: Any, treedef: PyTreeDef, spec: Any) -> list[int | None]:
    """One axis (or ``None``) per leaf of ``tree``, broadcasting the prefix tree ``spec``."""
    if spec is None or isinstance(spec, int):
        return [spec] * treedef.num_leaves
    spec_leaves, spec_def = tree_flatten(spec, is_leaf=_is_none)
    try:
        subtrees = flatten_up_to(spec_def, tree)
    except ValueError:
        if name == "in_axes":  # (the spec is (in_axes, 0) for the tree (args, kwargs))
            raise _in_axes_error(spec[0], tree[0], tree[1]) from None
        errors = prefix_errors(spec, tree, is_leaf=_is_none)
        head = f"{errors[0](f'pmap {name}').args[0]}\n" if errors else ""
        raise ValueError(
            f"{head}pmap {name} specification must be a tree prefix of the corresponding "
            f"value, got specification {spec!r} for value tree {treedef}{where()}."
        ) from None
    out: list[int | None] = []
    for axis, sub in zip(spec_leaves, subtrees, strict=True):
        out.extend([axis] * tree_structure(sub).num_leaves)
    return out


def _first_mapped(
    leaves: Sequence[Any], axes: Sequence[int | None]
) -> tuple[tuple[int, ...], int] | None:
    """The shape of the first mapped argument and its mapped axis (non-negative)."""
    for x, ax in zip(leaves, axes, strict=True):
        if ax is not None:
            shape = tuple(np.shape(x) if not hasattr(x, "shape") else x.shape)
            return shape, ax % len(shape)
    return None


class _Entry:
    """One traced signature: the per-device jaxpr (constants hoisted as leading unmapped
    operands), the constants, the output structure and (once known) each output's
    ``out_axes`` entry."""

    __slots__ = ("call_jaxpr", "consts", "out_axes", "out_tree")

    def __init__(self, call_jaxpr: ClosedJaxpr, consts: list[Any], out_tree: PyTreeDef) -> None:
        self.call_jaxpr = call_jaxpr
        self.consts = consts
        self.out_tree = out_tree
        self.out_axes: list[int | None] | None = None


class PmapFunction:
    """``pmap(fun)``: call it like ``fun`` with the mapped axes of its arguments split over
    devices."""

    __slots__ = (
        "__dict__",
        "__weakref__",
        "_axes",
        "_axis_name",
        "_axis_size",
        "_cache",
        "_devices",
        "_fun",
        "_in_axes",
        "_name",
        "_out_axes",
        "_static",
    )

    def __init__(
        self,
        fun: Callable[..., Any],
        axis_name: Hashable | None,
        in_axes: Any,
        out_axes: Any,
        static_broadcasted_argnums: tuple[int, ...],
        devices: Sequence[Any] | None,
        axis_size: int | None,
    ) -> None:
        self._fun = fun
        self._name = getattr(fun, "__name__", type(fun).__name__)
        self._axis_name = axis_name
        self._in_axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
        self._out_axes = out_axes
        self._static = static_broadcasted_argnums
        self._devices = None if devices is None else tuple(devices)
        self._axis_size = axis_size
        self._cache: OrderedDict[Hashable, _Entry] = OrderedDict()
        # each argument leaf's in_axes entry, by (positional count, argument structure)
        self._axes: dict[tuple[int, PyTreeDef], list[int | None]] = {}
        functools.update_wrapper(self, fun)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        """A method's pmap binds its instance, as JAX's (a function) does."""
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        nargs = len(args)
        static_pos = {i % nargs for i in self._static if -nargs <= i < nargs}
        if len(static_pos) != len(self._static):
            raise ValueError(  # JAX's words, then mj's context
                f"pmapped function has static_broadcasted_argnums={self._static} but was called "
                f"with only {nargs} positional argument{'s' if nargs > 1 else ''}. All static "
                f"broadcasted arguments must be passed positionally.\npmap({self._name}) was "
                f"called{where()}."
            )
        statics = tuple((i, args[i]) for i in sorted(static_pos))
        for i, val in statics:
            try:
                hash(val)
            except TypeError:
                raise UnhashableStaticArgumentError(
                    "Non-hashable static arguments are not supported, as this can lead to "
                    f"unexpected cache-misses. Static argument (index {i}) of type {type(val)} "
                    f"for function {self._name} is non-hashable{where()}."
                ) from None
        in_axes = self._in_axes
        if isinstance(in_axes, tuple):
            if len(in_axes) != nargs:
                raise _in_axes_error(in_axes, args, kwargs)
            in_axes = tuple(a for i, a in enumerate(in_axes) if i not in static_pos)
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos)
        leaves, in_tree = tree_flatten((dyn_args, kwargs))
        axes = self._axes.get((nargs, in_tree))
        if axes is None:
            axes = _leaf_axes("in_axes", (dyn_args, kwargs), in_tree, (in_axes, 0))
            if len(self._axes) >= 64:
                self._axes.clear()
            self._axes[nargs, in_tree] = axes
        size = self._mapped_size(leaves, axes)
        devices = resolve_devices(size, self._devices, _first_mapped(leaves, axes))
        moved, mapped, avals = [], [], []
        for x, ax in zip(leaves, axes, strict=True):
            aval = _leaf_aval(x)
            if ax is None:
                moved.append(x)
                mapped.append(False)
                avals.append(aval)
                continue
            ax %= aval.ndim
            moved.append(x if ax == 0 else _move_to_front(x, ax))
            mapped.append(True)
            shape = aval.shape[:ax] + aval.shape[ax + 1 :]
            avals.append(ShapedArray(shape, aval.dtype, aval.weak_type))
        entry = self._entry(args, statics, in_tree, tuple(avals), tuple(mapped), size)
        params: dict[str, Any] = {
            "axis_name": self._axis_name,
            "axis_size": size,
            "backend": None,
            "call_jaxpr": entry.call_jaxpr,
            "devices": None if self._devices is None else devices,
            "global_axis_size": None,
            "mapped_invars": (False,) * len(entry.consts) + tuple(mapped),
            "name": self._name,
        }
        operands = [*entry.consts, *moved]
        if is_eager() and not any(isinstance(c, Tracer) for c in entry.consts):
            outs: list[Any] = xla_pmap_impl(*operands, **params)
        else:
            outs = bind(xla_pmap_p, *operands, **params)
        out_axes = entry.out_axes
        if out_axes is None:
            out = tree_unflatten(entry.out_tree, outs)
            out_axes = entry.out_axes = _leaf_axes("out_axes", out, entry.out_tree, self._out_axes)
        return tree_unflatten(
            entry.out_tree, [_place_output(o, ax) for o, ax in zip(outs, out_axes, strict=True)]
        )

    def _mapped_size(self, leaves: Sequence[Any], axes: Sequence[int | None]) -> int:
        sizes: set[int] = set()
        for x, ax in zip(leaves, axes, strict=True):
            if ax is None:
                continue
            shape = np.shape(x) if not hasattr(x, "shape") else tuple(x.shape)
            if not -len(shape) <= ax < len(shape):
                raise ValueError(
                    f"pmap was asked to map an argument of shape {shape} along axis {ax}, "
                    f"which is out of range{where()}."
                )
            sizes.add(shape[ax])
        if len(sizes) > 1:
            raise ValueError(
                f"pmap got inconsistent sizes for the mapped axes: {sorted(sizes)}{where()}."
            )
        if not sizes:  # (JAX 0.10's pmap refuses this whatever axis_size says)
            raise ValueError(
                "pmap requires at least one argument with a mapped axis. (pmap maps the "
                f"arguments in_axes names; axis_size does not replace one{where()}.)"
            )
        (size,) = sizes
        if self._axis_size is not None and size != self._axis_size:
            raise ValueError(
                f"pmap was given axis_size={self._axis_size}, but the mapped axes have size "
                f"{size}{where()}."
            )
        return size

    def _entry(
        self,
        args: tuple[Any, ...],
        statics: tuple[tuple[int, Any], ...],
        in_tree: PyTreeDef,
        avals: tuple[ShapedArray, ...],
        mapped: tuple[bool, ...],
        size: int,
    ) -> _Entry:
        key = (statics, in_tree, avals, mapped, size, axis_env_signature())
        entry = self._cache.get(key)
        if entry is not None:
            self._cache.move_to_end(key)
            return entry
        static_pos = dict(statics)
        out_trees: list[PyTreeDef] = []
        fun = self._fun

        def fun_flat(*flat: Any) -> list[Any]:
            dyn_args, kwargs = tree_unflatten(in_tree, flat)
            it = iter(dyn_args)
            full = [static_pos[i] if i in static_pos else next(it) for i in range(len(args))]
            out_flat, out_tree = tree_flatten(fun(*full, **kwargs))
            out_trees.append(out_tree)
            return out_flat

        with extend_axis_env(self._axis_name, size, None):
            jaxpr, consts = trace_to_jaxpr(fun_flat, avals)
        entry = _Entry(ClosedJaxpr(jaxpr, ()), consts, out_trees[0])
        if not any(isinstance(c, Tracer) for c in consts):
            self._cache[key] = entry
            if len(self._cache) > 64:
                self._cache.popitem(last=False)
        return entry

    #: ``lower(...).compile()``'s argument errors name the leaves ``flat_args[i]`` (JAX's)
    flat_arg_names = True

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Ahead-of-time lowering, as JAX's ``pmap(f).lower(*args)``: arguments may be arrays
        or avals (``ShapeDtypeStruct``); ``.compile()`` gives a function of the dynamic
        arguments with this ``pmap``'s values. The program is ``jit`` of this ``pmap``: one
        replica per device (``mhlo.num_replicas``), where JAX lowers an SPMD program over
        partitions, and the compiled call's outputs are those of a ``jit`` holding the pmap."""
        return jit(self, static_argnums=self._static).lower(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<pmap({self._name})>"


def _leaf_aval(x: Any) -> ShapedArray:
    """An argument's type; a device array's without reading its data (a sharded array's
    value would be gathered to the host)."""
    if issubclass(type(x), Array):
        aval: ShapedArray = x._aval
        return aval
    return raise_to_shaped(get_aval(x))


def _move_to_front(x: Any, axis: int) -> Any:
    perm = (axis, *(i for i in range(len(shape_of(x))) if i != axis))
    if is_eager() and not isinstance(x, Tracer):
        return np.transpose(np.asarray(x), perm)
    return lax.transpose(x, perm)


def _place_output(x: Any, out_axis: int | None) -> Any:
    """An output (mapped along axis 0) with its mapped axis where ``out_axes`` says: ``None``
    takes the first device's value (the output must be the same on every device)."""
    if out_axis is None:
        return x[0]
    rank = len(x.shape)  # np.ndim would gather a sharded array to the host
    out_axis %= rank
    if out_axis == 0:
        return x
    perm = [i for i in range(1, rank)]
    perm.insert(out_axis, 0)
    return lax.transpose(x, perm)


def pmap(
    fun: Callable[..., Any],
    axis_name: Hashable | None = None,
    *,
    in_axes: Any = 0,
    out_axes: Any = 0,
    static_broadcasted_argnums: int | Sequence[int] = (),
    devices: Sequence[Any] | None = None,
    backend: str | None = None,
    axis_size: int | None = None,
    donate_argnums: int | Sequence[int] = (),
    global_arg_shapes: Any = None,
) -> PmapFunction:
    """Map ``fun`` over the leading (``in_axes``) axis of its arguments, one slice per
    device, running the slices in parallel as one compiled program (SPMD).

    Arguments:
        fun: a function of arrays (pytrees) returning arrays (a pytree).
        axis_name: names the mapped axis for collectives inside ``fun``
            (``mj.lax.psum(x, axis_name)``, ``axis_index``, ...).
        in_axes: the mapped axis of each argument (int, ``None`` for an argument every device
            gets whole, or a pytree prefix of the positional arguments), as in ``vmap``.
        out_axes: where each output's mapped axis goes (``None``: the first device's value).
        static_broadcasted_argnums: positions of arguments passed as Python values (hashable;
            a new value traces again).
        devices: the devices to run on (as many as the mapped size); by default the first
            ones of ``mj.devices()``.
        backend: ``None`` or ``"cpu"``.
        axis_size: the mapped size, needed when no argument is mapped.
        donate_argnums: accepted for JAX compatibility; a memory hint only.
        global_arg_shapes: accepted for JAX compatibility (single process).

    Returns:
        The mapped function; its outputs are :class:`ShardedArray` values whose slices stay on
        their devices. The mapped size may not exceed the number of devices
        (``mj.device_count()``; see ``config.num_cpu_devices``).

    Example::

        >>> xs = np.arange(8.0).reshape(4, 2)      # with 4 devices
        >>> pmap(lambda x: x / mj.lax.psum(x, "i"), axis_name="i")(xs)
    """
    del donate_argnums, global_arg_shapes  # hints only: results are the same
    if not callable(fun):
        raise TypeError(f"pmap expects a callable, got {fun!r} of type {type(fun).__name__}.")
    if backend not in (None, "cpu"):
        raise ValueError(f"pmap: backend {backend!r} is not available; mj runs on 'cpu' only.")
    for name, axes in (("in_axes", in_axes), ("out_axes", out_axes)):
        if not all(type(leaf) is int for leaf in tree_leaves(axes)):  # (False is no axis)
            raise TypeError(
                f"pmap {name} must be an int, None, or (nested) container with those types as "
                f"leaves, but got {axes}."
            )
    static = (
        (static_broadcasted_argnums,)
        if isinstance(static_broadcasted_argnums, int)
        else tuple(static_broadcasted_argnums)
    )
    return PmapFunction(fun, axis_name, in_axes, out_axes, static, devices, axis_size)
