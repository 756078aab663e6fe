"""Functions mapped over array axes with ``vmap``, as JAX builds them: ``vectorize`` (NumPy's
generalized-ufunc ``signature``), ``apply_along_axis``, ``apply_over_axes`` and
``piecewise`` (a ``switch`` vectorized over the elements, so every branch traces once and
the whole thing works under ``jit``, ``grad`` and ``vmap``)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

import mj_core.numpy as cnp
from mj_batch import vmap
from mj_control import switch
from mj_core.extend import AnyArray, Array, ArrayLike, DTypeLike, canonicalize_axis, check_arraylike

__all__ = ["apply_along_axis", "apply_over_axes", "piecewise", "vectorize"]

CoreDims = tuple[str, ...]

# NumPy's grammar of gufunc signatures, e.g. "(m,n),(n)->(m)"
_DIMENSION_NAME = r"\w+"
_CORE_DIMENSION_LIST = f"(?:{_DIMENSION_NAME}(?:,{_DIMENSION_NAME})*)?"
_ARGUMENT = rf"\({_CORE_DIMENSION_LIST}\)"
_ARGUMENT_LIST = f"{_ARGUMENT}(?:,{_ARGUMENT})*"
_SIGNATURE = f"^{_ARGUMENT_LIST}->{_ARGUMENT_LIST}$"


def _parse_signature(signature: str) -> tuple[list[CoreDims], list[CoreDims]]:
    """The core dimension names of each input and each output."""
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"vectorize: not a valid gufunc signature: {signature!r}")
    inputs, outputs = (
        [tuple(re.findall(_DIMENSION_NAME, arg)) for arg in re.findall(_ARGUMENT, part)]
        for part in signature.split("->")
    )
    return inputs, outputs


def _update_dim_sizes(
    dim_sizes: dict[str, int],
    shape: tuple[int, ...],
    core_dims: CoreDims,
    context: str,
    *,
    is_input: bool,
) -> None:
    """Record (or check against earlier ones) the sizes of ``core_dims``, the trailing dims
    of ``shape``."""
    n_core = len(core_dims)
    if is_input and len(shape) < n_core:
        raise ValueError(
            f"vectorize: input with shape {shape} does not have enough dimensions for all "
            f"core dimensions {core_dims} {context}"
        )
    if not is_input and len(shape) != n_core:
        raise ValueError(
            f"vectorize: output shape {shape} does not match core dimensions {core_dims} {context}"
        )
    core_shape = shape[len(shape) - n_core :]
    for dim, size in zip(core_dims, core_shape, strict=True):
        if dim not in dim_sizes:
            dim_sizes[dim] = size
        elif size != dim_sizes[dim]:
            raise ValueError(
                f"vectorize: inconsistent size for core dimension {dim!r}: {size} vs "
                f"{dim_sizes[dim]} {context}"
            )


def _check_output_dims(
    func: Callable[..., Any],
    dim_sizes: dict[str, int],
    output_core_dims: list[CoreDims],
    context: str,
) -> Callable[..., Any]:
    """``func`` with its outputs checked against the signature's output core dims."""

    def checked(*args: object) -> Any:
        out = func(*args)
        outs = out if isinstance(out, tuple) else (out,)
        if len(output_core_dims) > 1 and not isinstance(out, tuple):
            raise TypeError(
                f"vectorize: output must be a tuple when multiple outputs are expected, got "
                f"{out!r} {context}"
            )
        if len(outs) != len(output_core_dims):
            raise TypeError(
                f"vectorize: wrong number of output arguments: expected "
                f"{len(output_core_dims)}, got {len(outs)} {context}"
            )
        sizes = dict(dim_sizes)
        for o, core_dims in zip(outs, output_core_dims, strict=True):
            _update_dim_sizes(sizes, cnp.shape(o), core_dims, context, is_input=False)
        return out

    return checked


def _apply_excluded(
    func: Callable[..., Any],
    excluded: Collection[int | str],
    args: Sequence[Any],
    kwargs: dict[str, Any],
) -> tuple[Callable[..., Any], list[Any], dict[str, Any]]:
    """``func`` with the excluded positional and keyword arguments bound, and the rest."""
    if not excluded:
        return func, list(args), kwargs
    dynamic_args = [arg for i, arg in enumerate(args) if i not in excluded]
    dynamic_kwargs = {key: val for key, val in kwargs.items() if key not in excluded}
    positions = sorted(e for e in excluded if isinstance(e, int))
    static_args = [(i, args[i]) for i in positions if i < len(args)]
    static_kwargs = {key: val for key, val in kwargs.items() if key in excluded}

    def with_static(*args: object, **kwargs: object) -> Any:
        full = list(args)
        for i, arg in static_args:
            full.insert(i, arg)
        return func(*full, **kwargs, **static_kwargs)

    return with_static, dynamic_args, dynamic_kwargs


def vectorize(
    pyfunc: Callable[..., Any],
    *,
    excluded: Collection[int | str] = frozenset(),
    signature: str | None = None,
) -> Callable[..., Any]:
    """``pyfunc`` (written for scalars, or for the core shapes of ``signature`` such as
    ``"(n),(n)->()"``) mapped with ``vmap`` over the broadcast leading dimensions of its
    arguments. ``excluded`` names positional indices or keywords passed through unmapped."""
    if any(not isinstance(e, str | int) for e in excluded):
        raise TypeError(
            f"vectorize: can only exclude integer or string arguments, but excluded={excluded!r}"
        )
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"vectorize: excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args: object, **kwargs: object) -> Any:
        context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
        func, dyn_args, dyn_kwargs = _apply_excluded(pyfunc, excluded, args, kwargs)
        output_core_dims: list[CoreDims] | None
        if signature is not None:
            input_core_dims, output_core_dims = _parse_signature(signature)
        else:
            input_core_dims, output_core_dims = [()] * len(dyn_args), None
        none_args = {i for i, arg in enumerate(dyn_args) if arg is None}
        if none_args:  # None arguments pass through, as if excluded
            if any(input_core_dims[i] != () for i in none_args):
                raise ValueError(
                    f"vectorize: cannot pass None at locations {none_args} with "
                    f"signature={signature!r}"
                )
            func, dyn_args, _ = _apply_excluded(func, none_args, dyn_args, {})
            input_core_dims = [d for i, d in enumerate(input_core_dims) if i not in none_args]
        arrays = [cnp.asarray(arg) for arg in dyn_args]
        if len(arrays) != len(input_core_dims):
            raise TypeError(
                f"vectorize: wrong number of positional arguments: expected "
                f"{len(input_core_dims)}, got {len(arrays)} {context}"
            )
        dim_sizes: dict[str, int] = {}
        loop_shapes = []
        for arr, core_dims in zip(arrays, input_core_dims, strict=True):
            _update_dim_sizes(dim_sizes, cnp.shape(arr), core_dims, context, is_input=True)
            loop_shapes.append(cnp.shape(arr)[: cnp.ndim(arr) - len(core_dims)])
        broadcast_shape = cnp.broadcast_shapes(*loop_shapes)
        if output_core_dims is not None:
            func = _check_output_dims(func, dim_sizes, output_core_dims, context)
        return _vmap_over_loop_dims(func, arrays, loop_shapes, broadcast_shape, dyn_kwargs)

    return wrapped


def _vmap_over_loop_dims(
    func: Callable[..., Any],
    arrays: Sequence[ArrayLike],
    loop_shapes: list[tuple[int, ...]],
    broadcast_shape: tuple[int, ...],
    kwargs: dict[str, Any],
) -> Any:
    """One ``vmap`` per broadcast loop dimension, mapping only the arguments that have it
    (size-1 dims are squeezed, not broadcast); dims no argument has are added at the end."""
    squeezed = []
    rev_filled_shapes = []
    for arr, loop_shape in zip(arrays, loop_shapes, strict=True):
        filled = (1,) * (len(broadcast_shape) - len(loop_shape)) + loop_shape
        rev_filled_shapes.append(filled[::-1])
        ones = tuple(i for i, size in enumerate(loop_shape) if size == 1)
        squeezed.append(cnp.squeeze(arr, axis=ones))
    mapped = func
    dims_to_expand = []
    for negdim, sizes in enumerate(zip(*rev_filled_shapes, strict=True)):
        in_axes = tuple(None if size == 1 else 0 for size in sizes)
        if all(ax is None for ax in in_axes):
            dims_to_expand.append(len(broadcast_shape) - 1 - negdim)
        else:
            mapped = vmap(mapped, in_axes)
    result = mapped(*squeezed, **kwargs)
    if not dims_to_expand:
        return result
    if isinstance(result, tuple):
        return tuple(cnp.expand_dims(r, dims_to_expand) for r in result)
    return cnp.expand_dims(result, dims_to_expand)


def apply_along_axis(
    func1d: Callable[..., Any], axis: int, arr: ArrayLike, *args: object, **kwargs: object
) -> AnyArray:
    """``func1d(arr[i, ..., :, ..., j], *args, **kwargs)`` for every 1-D slice along
    ``axis``, by nested ``vmap``s; the slice's outputs replace that axis."""
    check_arraylike("apply_along_axis", [arr])
    ndim = cnp.ndim(arr)
    axis = canonicalize_axis("apply_along_axis", axis, ndim)

    def func(x: ArrayLike) -> Any:
        return func1d(x, *args, **kwargs)

    mapped: Callable[..., Any] = func
    for i in range(1, ndim - axis):
        mapped = vmap(mapped, in_axes=i, out_axes=-1)
    for _ in range(axis):
        mapped = vmap(mapped, in_axes=0, out_axes=0)
    return mapped(arr)


def apply_over_axes(
    func: Callable[[AnyArray, int], AnyArray], a: ArrayLike, axes: Sequence[int]
) -> AnyArray:
    """``func(a, axis)`` applied for each of ``axes`` in turn; a result that lost the axis
    gets it back with size 1 (so reductions keep their dimensions)."""
    check_arraylike("apply_over_axes", [a])
    out = cnp.asarray(a)
    for axis in axes:
        b = func(out, axis)
        if cnp.ndim(b) == cnp.ndim(out):
            out = b
        elif cnp.ndim(b) == cnp.ndim(out) - 1:
            out = cnp.expand_dims(b, axis)
        else:
            raise ValueError(
                f"apply_over_axes: func must return an array of rank {cnp.ndim(out)} or "
                f"{cnp.ndim(out) - 1} (keeping or dropping axis {axis}), got rank {cnp.ndim(b)}"
            )
    return out


def piecewise(
    x: AnyArray,
    condlist: AnyArray | Sequence[AnyArray],
    funclist: Sequence[AnyArray | Callable[..., AnyArray]],
    *args: Any,
    **kw: Any,
) -> AnyArray:
    """``funclist[i](x, *args, **kw)`` (or the constant ``funclist[i]``) where
    ``condlist[i]`` holds, the later conditions winning; an extra last entry of ``funclist``
    is the default, else the default is 0. Results are cast to ``x``'s dtype."""
    check_arraylike("piecewise", [x])
    x_arr = cnp.asarray(x)
    n_cond, n_func = len(condlist), len(funclist)
    if n_func == n_cond + 1:
        funcs = [funclist[-1], *funclist[:-1]]
    elif n_func == n_cond:
        funcs = [0, *funclist]
    else:
        raise ValueError(
            f"piecewise: with {n_cond} condition(s), either {n_cond} or {n_cond + 1} functions "
            f"are expected; got {n_func}"
        )
    conds = cnp.asarray(condlist, dtype=bool)
    # the branch of each element: 1 + the last true condition, or 0 (the default)
    counts = cnp.cumsum(cnp.concatenate([cnp.zeros_like(conds[:1]), conds], 0), 0)
    branch = cnp.argmax(counts, axis=0)
    dtype = x_arr.dtype
    branches = [_piece(f, dtype, args, kw) for f in funcs]
    return vectorize(switch, excluded=(1,))(branch, branches, x_arr)


def _piece(
    f: object, dtype: DTypeLike | None, args: tuple[Any, ...], kw: dict[str, Any]
) -> Callable[[Any], Any]:
    """One ``switch`` branch: ``f`` applied (or the constant ``f``), cast to ``dtype``."""
    if callable(f):

        def call(x: ArrayLike) -> Array:
            return cnp.asarray(f(x, *args, **kw), dtype)

        return call

    def const(x: ArrayLike) -> Array:
        return cnp.array(f, dtype=dtype)

    return const
