"""``platform_dependent``: one branch per platform, chosen where the platform is known.

Every branch is traced and staged (as a ``switch``), as in JAX; the index of the branch comes
from ``platform_index``, a primitive whose value is the platform's position in the branches'
platform lists: eagerly the default backend's, and under ``jit`` a constant of the platform the
module is lowered for (``ctx.platform``, so ``lower(lowering_platforms=...)`` picks that
platform's branch). The ``cond`` lowering emits only the branch a constant index selects, so
the compiler never sees the other platforms' code (which may not even lower on this one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_control._cond import _bind_branches
from mj_core import Primitive, ShapedArray, bind1, impl_rules
from mj_core.errors import user_line_suffix
from mj_ir import abstract_eval_rules
from mj_xla.extend import (
    LoweringContext,
    Value,
    ir_constant,
    lowering_platform,
    lowering_rules,
)

__all__ = ["platform_dependent", "platform_index_p"]

#: the platforms of each branch (``None``: the default branch, for any other platform)
BranchPlatforms = tuple[tuple[str, ...] | None, ...]

platform_index_p = Primitive("platform_index")


def platform_dependent(
    *args: object, default: Callable[..., Any] | None = None, **per_platform: Callable[..., Any]
) -> Any:
    """``per_platform[p](*args)`` for the platform ``p`` the computation runs on (``cpu``,
    ``cuda``, ``rocm``, ``tpu``), or ``default(*args)`` for a platform not named; JAX's
    ``lax.platform_dependent``. Identical branches are staged once."""
    groups: list[tuple[list[str], Callable[..., Any]]] = []
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
        for names, fun in groups:
            if fun == branch:
                names.append(name)
                break
        else:
            groups.append(([name], branch))
    platforms: BranchPlatforms = tuple(tuple(names) for names, _ in groups)
    branches = [fun for _, fun in groups]
    if default is not None:
        if not callable(default):
            raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
        platforms, branches = (*platforms, None), [*branches, default]
    index = bind1(platform_index_p, platforms=platforms)
    if isinstance(index, (int, np.integer, np.ndarray)):  # eager: run the one branch
        return branches[int(index)](*args)
    if len(branches) == 1:
        return branches[0](*args)
    labels = tuple("default" if p is None else "/".join(p) for p in platforms)
    return _bind_branches("platform_dependent", labels, index, branches, args)


def _index_of(platform: str, platforms: BranchPlatforms) -> int:
    """The branch for ``platform``; JAX's NotImplementedError if none and no default."""
    default = None
    for i, names in enumerate(platforms):
        if names is None:
            default = i
        elif platform in names:
            return i
    if default is None:
        raise NotImplementedError(
            f"MLIR translation rule for primitive 'platform_index(platforms={platforms})' not "
            f"found for platform {platform}{user_line_suffix()}"
        )
    return default


def _platform_index_impl(*, platforms: BranchPlatforms) -> list[Any]:
    return [np.int32(_index_of(lowering_platform(), platforms))]


def _platform_index_abstract_eval(*, platforms: BranchPlatforms) -> list[ShapedArray]:
    return [ShapedArray((), np.dtype(np.int32))]


def _platform_index_lowering(
    ctx: LoweringContext,
    avals_in: list[ShapedArray],
    avals_out: list[ShapedArray],
    in_vals: list[Value],
    *,
    platforms: BranchPlatforms,
) -> list[Value]:
    return [ir_constant(np.int32(_index_of(ctx.platform, platforms)))]


impl_rules[platform_index_p] = _platform_index_impl
abstract_eval_rules[platform_index_p] = _platform_index_abstract_eval
lowering_rules[platform_index_p] = _platform_index_lowering
