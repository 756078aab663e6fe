"""Buffer donation (``jit(donate_argnums=...)``): which donated parameter each output may
reuse, as JAX pairs them.

A donated parameter is paired with the first output not yet paired that has its shape and
dtype (and, in an SPMD program, no different sharding); the module marks it
``tf.aliasing_output = k`` and XLA writes output ``k`` into its buffer, after which jaxlib
marks the argument deleted. Donated parameters no output can reuse are reported with JAX's
warning and left alone.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from mj_core import ShapedArray

__all__ = ["deleted_error", "pair_donations", "spelled"]


def spelled(aval: ShapedArray) -> str:
    """``float32[3,4]``: an array type as JAX's donation messages spell it."""
    return f"{aval.dtype.name}[{','.join(str(d) for d in aval.shape)}]"


def deleted_error(aval: ShapedArray) -> RuntimeError:
    """JAX's error for using an array whose buffer was donated (or deleted)."""
    return RuntimeError(f"Array has been deleted with shape={spelled(aval)}.")


def pair_donations(
    in_avals: Sequence[ShapedArray],
    donated: Sequence[bool],
    out_avals: Sequence[ShapedArray],
    in_shardings: Sequence[str | None] = (),
    out_shardings: Sequence[str | None] = (),
) -> list[int | None]:
    """Per parameter, the output it aliases (``None``: not donated or not usable).
    Shardings (``HloSharding`` text, ``None`` when unconstrained) are per parameter and per
    output, empty outside SPMD programs."""
    free: dict[tuple[tuple[int, ...], str], list[int]] = {}
    for k, a in enumerate(out_avals):
        free.setdefault((a.shape, a.dtype.str), []).append(k)
    aliases: list[int | None] = []
    unusable: list[str] = []
    for i, (aval, donate) in enumerate(zip(in_avals, donated, strict=True)):
        pick = None
        if donate:
            candidates = free.get((aval.shape, aval.dtype.str), [])
            for k in candidates:
                s_in = in_shardings[i] if in_shardings else None
                s_out = out_shardings[k] if out_shardings else None
                if s_in is None or s_out is None or s_in == s_out:
                    pick = k
                    candidates.remove(k)
                    break
            if pick is None:
                unusable.append(spelled(aval))
        aliases.append(pick)
    if unusable:
        warnings.warn(
            f"Some donated buffers were not usable: {', '.join(unusable)}.\nSee an explanation "
            "at https://docs.jax.dev/en/latest/faq.html#buffer-donation.",
            UserWarning,
            stacklevel=2,
        )
    return aliases
