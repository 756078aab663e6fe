"""``mj.api_util``: the helpers of JAX's ``jax.api_util`` that libraries use to drive tracing
themselves (flax's lifted ``scan`` and ``lazy_init``): flattening a wrapped function's pytree
arguments and results (``flatten_fun``, ``flatten_fun_nokwargs``), ``debug_info``,
``shaped_abstractify`` and ``safe_map``.

The wrapped functions are :class:`mj.extend.linear_util.WrappedFun`; the ``out_tree`` thunk
returned with a flattened function gives the result's structure once it has been called.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from mj.extend.linear_util import WrappedFun
from mj_core.extend import ShapedArray, get_aval
from mj_core.tree_util import PyTreeDef, tree_flatten, tree_unflatten

__all__ = [
    "DebugInfo",
    "debug_info",
    "flatten_fun",
    "flatten_fun_nokwargs",
    "safe_map",
    "shaped_abstractify",
]


class DebugInfo(NamedTuple):
    """What a traced function is for and where it comes from (JAX's ``DebugInfo``)."""

    traced_for: str
    func_src_info: str
    arg_names: tuple[str, ...] | None
    result_paths: tuple[str, ...] | None = None


def debug_info(
    traced_for: str,
    fun: Callable[..., Any],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    *,
    static_argnums: Sequence[int] = (),
    static_argnames: Sequence[str] = (),
) -> DebugInfo:
    """The debug info of ``fun`` traced for ``traced_for`` (its name and source location)."""
    del args, kwargs, static_argnums, static_argnames
    code = getattr(fun, "__code__", None)
    name = getattr(fun, "__qualname__", None) or getattr(fun, "__name__", repr(fun))
    where = f" at {code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    return DebugInfo(traced_for, f"{name}{where}", None)


class _Store:
    """The result structure a flattened function records when called."""

    def __init__(self) -> None:
        self.value: PyTreeDef | None = None

    def __call__(self) -> PyTreeDef:
        if self.value is None:
            raise ValueError("out_tree(): the flattened function has not been called yet")
        return self.value


def flatten_fun(fun: WrappedFun, in_tree: PyTreeDef) -> tuple[WrappedFun, Callable[[], PyTreeDef]]:
    """``fun`` taking ``(args, kwargs)`` as the flat leaves of ``in_tree`` and returning its
    result's leaves, with a thunk giving the result's structure (JAX's ``flatten_fun``)."""
    store = _Store()

    def flat(*args_flat: object) -> list[Any]:
        args, kwargs = tree_unflatten(in_tree, args_flat)
        leaves, store.value = tree_flatten(fun.f(*args, **fun.params, **kwargs))
        return leaves

    return WrappedFun(flat, {}, fun.debug_info), store


def flatten_fun_nokwargs(
    fun: WrappedFun, in_tree: PyTreeDef
) -> tuple[WrappedFun, Callable[[], PyTreeDef]]:
    """As :func:`flatten_fun` for a function of positional arguments only (``in_tree`` is the
    structure of the argument tuple)."""
    store = _Store()

    def flat(*args_flat: object) -> list[Any]:
        args = tree_unflatten(in_tree, args_flat)
        leaves, store.value = tree_flatten(fun.call_wrapped(*args))
        return leaves

    return WrappedFun(flat, {}, fun.debug_info), store


def shaped_abstractify(x: object) -> ShapedArray:
    """The shape-and-dtype abstract value of ``x`` (an array, a scalar, a ShapeDtypeStruct)."""
    if hasattr(x, "shape") and hasattr(x, "dtype") and not hasattr(x, "aval"):
        try:
            aval = get_aval(x)
        except TypeError:
            return ShapedArray(tuple(x.shape), x.dtype, getattr(x, "weak_type", False) is True)
    else:
        aval = get_aval(x)
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)


def safe_map(f: Callable[..., Any], *iterables: Iterable[Any]) -> list[Any]:
    """``list(map(f, *iterables))``, the iterables required to have equal lengths."""
    lists = [list(it) for it in iterables]
    if any(len(xs) != len(lists[0]) for xs in lists[1:]):
        raise ValueError(f"safe_map: lengths differ: {[len(xs) for xs in lists]}")
    return [f(*xs) for xs in zip(*lists, strict=True)]
