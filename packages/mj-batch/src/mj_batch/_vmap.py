"""``vmap``: the user API, with JAX's ``in_axes``/``out_axes`` conventions.

``in_axes`` is an int, ``None`` or a pytree prefix of the positional arguments (keyword
arguments are always mapped along axis 0, as in JAX); ``out_axes`` likewise for the output.
Negative axes count from the end. The flattened axes depend only on the argument structure,
so they are computed once per structure and cached on the vmapped function.
"""

from __future__ import annotations

import collections
import functools
import inspect
from collections.abc import Callable, Hashable, Sequence
from contextlib import ExitStack
from typing import Any, ParamSpec, cast

import numpy as np

from mj_batch._batching import (
    BatchDim,
    BatchTrace,
    BatchTracer,
    not_mapped,
    shape_of,
)
from mj_batch._vmappable import (
    SpecMatchError,
    from_elt,
    index_getter,
    is_spec,
    is_vmappable,
    leaf_test,
    place,
    placed,
    spec_error,
    to_elt,
)
from mj_core import full_raise, new_main
from mj_core.errors import user_location
from mj_core.extend import extend_axis_env, unchanged
from mj_core.tree_util import (
    KeyPath,
    PyTreeDef,
    SequenceKey,
    Store,
    flatten_up_to,
    keystr,
    prefix_errors,
    tree_flatten,
    tree_leaves_with_path,
    tree_map,
    tree_structure,
    tree_unflatten,
)

__all__ = ["batch_flat", "vmap"]

P = ParamSpec("P")
AxisSpec = Any  # int | None | a pytree of those


def batch_flat(
    flat_fun: Callable[..., Sequence[Any]],
    axis_size: int,
    in_dims: Sequence[Any],
    args: Sequence[Any],
    axis_name: Hashable | None = None,
    out_specs: Callable[[], Sequence[Any]] | None = None,
) -> tuple[list[Any], list[Any]]:
    """Run ``flat_fun`` (flat arrays in, flat list out) on batches: ``args[i]`` is batched at
    ``in_dims[i]``. Returns the output batches and where their batch axes are. A named axis
    is in scope for collectives (``psum(x, axis_name)``) while ``flat_fun`` runs.

    An argument of a registered vmappable type is mapped along its spec (``in_dims[i]``) by
    its type's ``to_elt``. An output of such a type is put in place by its ``from_elt`` with
    its spec ``out_specs()[i]`` (asked for once ``flat_fun`` has run); its batch dim is then
    ``placed``."""
    with new_main(BatchTrace, axis_size) as main, ExitStack() as named:
        trace = cast(BatchTrace, main.trace)
        if axis_name is not None:
            trace.frame = named.enter_context(extend_axis_env(axis_name, axis_size, main))
        get_idx = None
        tracers = []
        for x, d in zip(args, in_dims, strict=True):
            if is_vmappable(x) or not (d is not_mapped or type(d) is int):
                get_idx = get_idx or index_getter(trace, axis_size)
                tracers.append(to_elt(trace, get_idx, x, d))  # (checks the spec)
            else:  # an array at a canonical batch dim
                tracers.append(x if d is not_mapped else BatchTracer(trace, x, d))
        outs = flat_fun(*tracers)
        vals: list[Any] = []
        dims: list[Any] = []
        specs: Sequence[Any] | None = None
        custom = out_specs is not None and leaf_test() is not None
        for i, out in enumerate(outs):
            if custom and is_vmappable(out):
                assert out_specs is not None
                specs = out_specs() if specs is None else specs
                vals.append(from_elt(trace, axis_size, i, out, specs[i]))
                dims.append(placed)
            else:
                t = full_raise(trace, out)
                vals.append(t.val)
                dims.append(t.batch_dim)
        return vals, dims


def _where() -> str:
    loc = user_location()
    return f" ({loc})" if loc else ""


def _is_none(x: Any) -> bool:
    return x is None


def _check_spec(name: str, spec: AxisSpec) -> None:
    for leaf in tree_flatten(spec, is_leaf=_is_none)[0]:
        if leaf is None or is_spec(leaf):
            continue
        if not isinstance(leaf, int) or isinstance(leaf, bool):
            raise TypeError(
                f"vmap {name} must be an int, None, or a (nested) tuple/list/dict with those "
                f"(or specs of registered vmappable types) as leaves, but got {spec!r} "
                f"(leaf {leaf!r} of type {type(leaf).__name__})."
            )


def _flatten_axes(name: str, tree: Any, treedef: PyTreeDef, spec: AxisSpec) -> list[int | None]:
    """One axis per leaf of ``tree``, broadcasting the prefix tree ``spec``."""
    if spec is None or isinstance(spec, int) or is_spec(spec):
        return [spec] * treedef.num_leaves
    spec_leaves, spec_def = tree_flatten(spec, is_leaf=_is_none)
    try:
        subtrees = flatten_up_to(spec_def, tree)
    except ValueError:
        raise _prefix_error(name, tree, treedef, spec) from None
    out: list[int | None] = []
    for axis, sub in zip(spec_leaves, subtrees, strict=True):
        out.extend([axis] * tree_structure(sub, leaf_test()).num_leaves)
    return out


def _prefix_error(name: str, tree: Any, treedef: PyTreeDef, spec: AxisSpec) -> ValueError:
    """JAX's message for an axes spec that is not a tree prefix of the arguments: the
    mismatches of the positional part, by key path."""
    if name == "in_axes":  # (the spec is (in_axes, 0) for the tree (args, kwargs))
        spec, tree = spec[0], tree[0]
    spec = tree_map(lambda a: 0 if a is None else a, spec, is_leaf=_is_none)
    errors = prefix_errors(spec, tree)
    details = "\n  ".join(str(e(f"vmap {name}").args[0]) for e in errors)
    found = f"\n  Mismatch details ({len(errors)} found):\n  {details}" if errors else ""
    return ValueError(
        f"vmap {name} specification must be a tree prefix of the corresponding value; "
        f"got specification {spec!r} for value tree {treedef}{_where()}.{found}"
    )


def _leaf_names(
    fun: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[str]:
    """JAX's name for each flat leaf of ``(args, kwargs)`` in vmap's size errors: ``argument
    x`` (by the parameter's name), ``args[2]['q']``, ``kwargs['y']``, with its type."""
    try:
        params: list[str] | None = list(
            inspect.signature(fun).bind(*args, **kwargs).signature.parameters
        )
    except (TypeError, ValueError):
        params = None

    def arg_name(path: KeyPath) -> str:
        first = path[0]
        i = first.idx if isinstance(first, SequenceKey) else len(params or ())
        if params is None or i >= len(params):
            return f"args{keystr(path)}"
        return f"argument {params[i]}{keystr(path[1:])}"

    def type_of(x: Any) -> str:
        try:
            shape, dtype = shape_of(x), np.result_type(x)
        except TypeError:
            return "unknown"
        return f"{dtype.name}[{','.join(map(str, shape))}]"

    names = [f"{arg_name(p)} of type {type_of(x)}" for p, x in tree_leaves_with_path(args)]
    names += [f"kwargs{keystr(p)} of type {type_of(x)}" for p, x in tree_leaves_with_path(kwargs)]
    return names


def _size_error(
    fun: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    axes: Sequence[int | None],
    sizes: Sequence[int | None],
    axis_size: int | None,
) -> ValueError:
    """JAX's "inconsistent sizes" message: each size with one example axis (the most common
    size first), then mj's location."""
    names = _leaf_names(fun, args, kwargs)
    counts = collections.Counter(s for s in sizes if s is not None).most_common()
    lines = [] if axis_size is None else [f"  * the `axis_size` argument was {axis_size}"]
    for rank, (size, count) in enumerate(counts):
        i = list(sizes).index(size)
        where = f"axis {axes[i]} of {names[i]}"
        if count == 1:
            lines.append(f"  * one axis had size {size}: {where}")
        else:
            most = "most" if rank == 0 else "some"
            lines.append(f"  * {most} axes ({count} of them) had size {size}, e.g. {where}")
    return ValueError(
        "vmap got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines) + _where()
    )


def _in_dims(
    fun: Callable[..., Any],
    leaves: Sequence[Any],
    axes: Sequence[int | None],
    axis_size: int | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[list[Any], int]:
    """Canonical batch dims of the flat arguments (a registered vmappable's spec as given)
    and the batch size (JAX's checks and messages, mj's location after them)."""
    if not leaves:
        if axis_size is not None:
            return [], axis_size
        raise ValueError(
            "vmap wrapped function must be passed at least one argument containing an array "
            f"or axis_size must be specified, got empty *args={args} and **kwargs={kwargs}"
            f"{_where()}"
        )
    dims: list[Any] = []
    sizes: list[int | None] = []
    for x, ax in zip(leaves, axes, strict=True):
        if is_vmappable(x):  # its spec goes to its type's to_elt; a size only from an int spec
            dims.append(ax)
            sizes.append(_vmappable_size(x, ax))
            continue
        if ax is None:
            dims.append(not_mapped)
            sizes.append(None)
            continue
        if type(ax) is not int and is_spec(ax):
            raise spec_error("in_axes", x, ax)
        shape = shape_of(x)
        ndim = len(shape)
        if not -ndim <= ax < ndim:
            min_rank = ax + 1 if ax >= 0 else -ax
            raise ValueError(
                f"vmap was requested to map its argument along axis {ax}, which implies that "
                f"its rank should be at least {min_rank}, but is only {ndim} (its shape is "
                f"{shape}){_where()}"
            )
        dims.append(ax % ndim)
        sizes.append(shape[ax])
    distinct = {s for s in sizes if s is not None}
    if axis_size is not None:
        distinct.add(axis_size)
    if not distinct:
        raise ValueError(
            "vmap must have at least one non-None value in in_axes or axis_size must be "
            f"specified{_where()}"
        )
    if len(distinct) > 1:
        raise _size_error(fun, args, kwargs, axes, sizes, axis_size)
    (size,) = distinct
    return dims, size


def _vmappable_size(x: Any, spec: Any) -> int | None:
    """The mapped size of a vmappable ``x``: ``x.shape[spec]`` for an int spec and a value
    with a shape, else unknown (as JAX, which leaves the check to its handlers)."""
    shape = getattr(x, "shape", None)
    if (
        type(spec) is not int
        or not isinstance(shape, tuple)
        or not -len(shape) <= spec < len(shape)
    ):
        return None
    size = shape[spec]
    return size if isinstance(size, int) else None


def _unmapped_out_error(
    out_tree: PyTreeDef, index: int, bdim: BatchDim, axis_name: Hashable | None
) -> ValueError:
    """JAX's message for a batched output whose ``out_axes`` entry is None."""
    if axis_name is not None:
        return ValueError(
            f"vmap has mapped output (axis_name={axis_name}) but out_axes is None{_where()}"
        )
    paths = [
        p for p, _ in tree_leaves_with_path(tree_unflatten(out_tree, range(out_tree.num_leaves)))
    ]
    return ValueError(
        f"at vmap out_axes{keystr(paths[index])}, got axis spec None but output was batched on "
        f"axis {bdim}{_where()}"
    )


def vmap(
    fun: Callable[P, Any],
    in_axes: AxisSpec = 0,
    out_axes: AxisSpec = 0,
    axis_size: int | None = None,
    axis_name: Hashable | None = None,
    spmd_axis_name: Hashable | tuple[Hashable, ...] | None = None,
) -> Callable[P, Any]:
    """Vectorize ``fun`` over a batch axis of its arguments, without a Python loop.

    Arguments:
        fun: a function of arrays (pytrees of arrays) returning arrays (a pytree).
        in_axes: the axis of each argument holding the batch: an int (negative counts from the
            end), ``None`` for an argument shared by every example, or a pytree prefix of the
            positional arguments. Keyword arguments are mapped along axis 0.
        out_axes: where to put the batch axis of each output (same conventions); ``None`` is
            allowed only for outputs that do not depend on a mapped input.
        axis_size: the batch size; required when no argument is mapped.
        axis_name: a name for the batch axis, so that collectives inside ``fun``
            (``mj.lax.psum(x, axis_name)``, ``axis_index``, ...) act over it.
        spmd_axis_name: accepted for JAX compatibility (a sharding hint; one device here).

    Returns:
        The batched function, with the same arguments as ``fun``.

    Example:
        >>> vmap(lambda x, y: x * y, in_axes=(0, None))(np.arange(3.0), 2.0)
        array([0., 2., 4.])
    """
    if not callable(fun):
        raise TypeError(f"vmap expects a callable, got {fun!r} of type {type(fun).__name__}.")
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)  # a list can never be a prefix of the args tuple
    if not (in_axes is None or type(in_axes) in (int, tuple) or is_spec(in_axes)):
        raise TypeError(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got {in_axes}."
        )
    _check_spec("in_axes", in_axes)
    _check_spec("out_axes", out_axes)
    if axis_size is not None and (not isinstance(axis_size, int) or axis_size < 0):
        raise TypeError(f"vmap axis_size must be a non-negative int, got {axis_size!r}.")
    call = _call_with_kwargs(fun)
    in_axes_cache: dict[PyTreeDef, list[int | None]] = {}
    out_axes_cache: dict[PyTreeDef, list[int | None]] = {}

    @_wraps_vectorized(fun)
    def vmapped(*args: P.args, **kwargs: P.kwargs) -> Any:
        leaves, in_tree = tree_flatten((args, kwargs), leaf_test())
        # a host array enters as its canonical, read-only mj array (64-bit NumPy inputs are
        # 32-bit values without x64), as everywhere it enters mj: an output that is an input
        # is that array, never a writable host copy
        leaves = [unchanged(x) if isinstance(x, _HOST) else x for x in leaves]
        axes = in_axes_cache.get(in_tree)
        if axes is None:
            if isinstance(in_axes, tuple) and len(in_axes) != len(args):
                raise ValueError(
                    "vmap in_axes must be an int, None, or a tuple of entries corresponding to "
                    "the positional arguments passed to the function, but got "
                    f"len(in_axes)={len(in_axes)}, len(args)={len(args)}{_where()}."
                )
            axes = _flatten_axes("in_axes", (args, kwargs), in_tree, (in_axes, 0))
            in_axes_cache[in_tree] = axes
        dims, size = _in_dims(fun, leaves, axes, axis_size, args, kwargs)
        flat_fun, out_store = _flatten_fun_for_vmap(call, in_tree)

        def out_axes_flat() -> list[Any]:
            out_tree: PyTreeDef = out_store()
            oaxes = out_axes_cache.get(out_tree)
            if oaxes is None:
                out = tree_unflatten(out_tree, range(out_tree.num_leaves))
                oaxes = _flatten_axes("out_axes", out, out_tree, out_axes)
                out_axes_cache[out_tree] = oaxes
            return oaxes

        try:
            out_vals, out_dims = batch_flat(flat_fun, size, dims, leaves, axis_name, out_axes_flat)
            oaxes = out_axes_flat()
            outs = [
                v if d is placed else place(size, i, v, d, ax)
                for i, (v, d, ax) in enumerate(zip(out_vals, out_dims, oaxes, strict=True))
            ]
        except SpecMatchError as e:
            raise _unmapped_out_error(out_store(), e.index, e.src, axis_name) from None
        return tree_unflatten(out_store(), outs)

    return vmapped


def _wraps_vectorized(fun: Callable[..., Any]) -> Callable[[Callable[P, Any]], Callable[P, Any]]:
    """``functools.wraps`` with JAX's docstring of a vmapped function."""
    name = getattr(fun, "__name__", repr(fun))
    doc = (
        f"Vectorized version of {name}. Takes similar arguments as {name} but with additional "
        "array axes over which {name} is mapped."
    ).replace("{name}", name)
    if getattr(fun, "__doc__", None):
        doc += "\n\nOriginal documentation:\n\n" + str(fun.__doc__)

    def wrap(f: Callable[P, Any]) -> Callable[P, Any]:
        wrapped = functools.wraps(fun)(f)
        wrapped.__doc__ = doc
        return wrapped

    return wrap


_HOST = (np.ndarray, np.generic)  # (an EagerArray is an ndarray and unchanged returns it)


def _flatten_fun_for_vmap(
    f: Callable[..., Any], in_tree: PyTreeDef
) -> tuple[Callable[..., list[Any]], Store]:
    """``flatten_fun`` whose output leaves include registered vmappables (JAX's
    ``flatten_fun_for_vmap``): the output structure lands in the store once it runs."""
    store = Store()

    def flat_fun(*args_flat: object) -> list[Any]:
        out_flat, out_tree = tree_flatten(f(*tree_unflatten(in_tree, args_flat)), leaf_test())
        store.set_value(out_tree)
        return out_flat

    return flat_fun, store


def _call_with_kwargs(fun: Callable[..., Any]) -> Callable[..., Any]:
    """``fun`` as a function of the one pytree ``(args, kwargs)`` (for ``flatten_fun``)."""

    def call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return fun(*args, **kwargs)

    return call
