"""``einsum_path``: a contraction order for ``einsum`` computed from the operands' shapes
alone (NumPy's path optimizers; JAX uses opt_einsum's, which mj does not depend on). Only
shapes are read, so traced operands are fine."""

from __future__ import annotations

from typing import Any

import numpy as np

import mj_core.numpy as cnp

__all__ = ["einsum_path"]

Path = list[tuple[int, ...]]

# opt_einsum's optimizer names, mapped onto NumPy's two: exhaustive and greedy
_EXHAUSTIVE = frozenset({"optimal", "dp", "dynamic-programming", "branch-all"})
_GREEDY = frozenset(
    {
        "greedy",
        "eager",
        "opportunistic",
        "branch-1",
        "branch-2",
        "random-greedy",
        "random-greedy-128",
    }
)
_AUTO = frozenset({"auto", "auto-hq"})
_AUTO_EXHAUSTIVE_MAX_OPERANDS = 4  # opt_einsum's "auto" searches exhaustively up to here


def _shape_only(x: Any) -> np.ndarray[Any, Any]:
    """A zero-strided stand-in with ``x``'s shape and dtype (no data is read)."""
    arr = x if hasattr(x, "shape") and hasattr(x, "dtype") else cnp.asarray(x)
    return np.broadcast_to(np.zeros((), arr.dtype), tuple(arr.shape))


def _numpy_optimize(optimize: object, n_operands: int) -> Any:
    if isinstance(optimize, bool):
        return "optimal" if optimize else None
    if isinstance(optimize, list | tuple):
        steps = [s for s in optimize if s != "einsum_path"]
        if not all(isinstance(s, tuple) and all(isinstance(i, int) for i in s) for s in steps):
            raise TypeError(
                f"einsum_path: an explicit path must be a list of int tuples, got {optimize!r}"
            )
        return ["einsum_path", *steps]
    if optimize in _EXHAUSTIVE:
        return "optimal"
    if optimize in _GREEDY:
        return "greedy"
    if optimize in _AUTO:
        return "optimal" if n_operands <= _AUTO_EXHAUSTIVE_MAX_OPERANDS else "greedy"
    known = sorted(_EXHAUSTIVE | _GREEDY | _AUTO)
    raise ValueError(
        f"einsum_path: unknown optimize={optimize!r}; use a bool, a path or one of {known}"
    )


def einsum_path(
    subscripts: object, /, *operands: object, optimize: bool | str | list[tuple[int, ...]] = "auto"
) -> tuple[Path, str]:
    """The contraction path (a list of operand-index tuples, which ``einsum(...,
    optimize=path)`` accepts) and a printable report of its cost.

    ``optimize=False`` contracts left to right, ``True`` searches exhaustively, ``"auto"``
    (the default) searches exhaustively for up to four operands and greedily beyond."""
    args: list[Any]
    if isinstance(subscripts, str):
        args = [subscripts, *(_shape_only(x) for x in operands)]
        n_operands = len(operands)
    else:  # the interleaved form: array, sublist, array, sublist, ..., [output sublist]
        items = [subscripts, *operands]
        n_operands = len(items) // 2
        args = [
            _shape_only(x) if i % 2 == 0 and i // 2 < n_operands else x for i, x in enumerate(items)
        ]
    method = _numpy_optimize(optimize, n_operands)
    if method is None:  # left to right, as opt_einsum's unoptimized path
        steps = [(0, 1)] * (n_operands - 1) if n_operands > 1 else [(0,)]
        method = ["einsum_path", *steps]
    path, report = np.einsum_path(*args, optimize=method)
    return [tuple(step) for step in path[1:]], report
