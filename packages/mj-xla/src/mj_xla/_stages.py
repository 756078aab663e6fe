"""What the stages of a jitted call (``Lowered``, ``Compiled``) report about their signature,
as JAX's ``jax.stages``: :class:`ArgInfo` per argument leaf, the argument types as a pytree,
and the checks a ``Compiled`` makes of the arguments it is called with (JAX's messages)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import ShapedArray
from mj_core.tree_util import (
    DictKey,
    PyTreeDef,
    SequenceKey,
    keystr,
    tree_flatten_with_path,
    tree_unflatten,
)

__all__ = ["ArgInfo", "arg_names", "args_info", "check_call"]


@dataclasses.dataclass(frozen=True, slots=True)
class ArgInfo:
    """One argument leaf of a lowered or compiled call (JAX's ``jax.stages.ArgInfo``): its
    type (``_aval``, with ``shape`` and ``dtype``) and whether its buffer is donated."""

    _aval: ShapedArray
    donated: bool

    @property
    def shape(self) -> tuple[int, ...]:
        return self._aval.shape

    @property
    def dtype(self) -> Any:
        return self._aval.dtype


def args_info(in_tree: PyTreeDef, avals: Sequence[ShapedArray], donated: Sequence[bool]) -> Any:
    """The ``(args, kwargs)`` pytree of :class:`ArgInfo` (``donated`` may be empty: none)."""
    flags = list(donated) or [False] * len(avals)
    return tree_unflatten(in_tree, [ArgInfo(a, d) for a, d in zip(avals, flags, strict=True)])


class _Slot:
    """A leaf standing for an argument while its key path is read."""


def arg_names(
    fun: Callable[..., Any], in_tree: PyTreeDef, static_positions: Sequence[int]
) -> list[str]:
    """A name per argument leaf, as JAX's error messages spell them: the parameter's name and
    the key path inside it (``x``, ``params['w']``); ``args[i]`` where the signature has no
    name for position ``i``. A ``pmap``'s leaves are ``flat_args[i]``, as JAX names them
    (its pmap traces the flattened arguments)."""
    if getattr(fun, "flat_arg_names", False):
        return [f"flat_args[{i}]" for i in range(in_tree.num_leaves)]
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    static = set(static_positions)
    dyn_positions = [i for i in range(len(positional) + in_tree.num_leaves) if i not in static]
    dummy = tree_unflatten(in_tree, [_Slot()] * in_tree.num_leaves)
    paths, _ = tree_flatten_with_path(dummy)
    names = []
    for path, _leaf in paths:
        first, second, *rest = path
        if isinstance(first, SequenceKey) and first.idx == 0 and isinstance(second, SequenceKey):
            pos = dyn_positions[second.idx]
            head = positional[pos] if pos < len(positional) else f"args[{pos}]"
        else:
            head = str(second.key) if isinstance(second, DictKey) else str(second)
        names.append(head + keystr(tuple(rest)))
    return names


def _type_str(aval: ShapedArray) -> str:
    """``float32[2,3]``: JAX's spelling of a type in these messages."""
    return f"{np.dtype(aval.dtype).name}[{','.join(map(str, aval.shape))}]"


def check_call(
    in_tree: PyTreeDef,
    given_tree: PyTreeDef,
    avals: Sequence[ShapedArray],
    given: Sequence[ShapedArray],
    names: Callable[[], list[str]],
) -> None:
    """JAX's ``TypeError`` for a compiled call whose arguments are not those it was compiled
    for: another pytree structure, or leaves of other shapes or dtypes."""
    if given_tree != in_tree:
        raise TypeError(
            "Function compiled with input pytree does not match the input pytree it was "
            f"called with: compiled for {in_tree}, called with {given_tree}"
        )
    errors = [
        f"Argument '{name}' compiled with {_type_str(a)} and called with {_type_str(b)}"
        for name, a, b in zip(names(), avals, given, strict=True)
        if (a.shape, a.dtype) != (b.shape, b.dtype)
    ]
    if errors:
        most = 5
        count = f"The first {most} of {len(errors)}" if len(errors) >= most else "The"
        raise TypeError(
            "Argument types differ from the types for which this computation was compiled. "
            "Perhaps you are calling the compiled executable with a different enable_x64 "
            f"mode than when it was AOT compiled? {count} mismatches are:\n"
            + "\n".join(errors[:most])
        )
