"""``lax.scatter_apply``'s loop (and so ``x.at[idx].apply(func)``), registered in mj-core's
``scatter_apply_rules[scatter_p]``: mj-core owns the function and ``x.at``, but applying
``func`` once per write takes a loop as long as the most repeated index, and loops are
mj-control's.

mj counts the writes per element (a ``scatter_add`` of ones), then applies ``func`` to the
whole array in a ``while_loop`` and keeps the results where the count allows. As in JAX, the
result cannot be differentiated (``NotImplementedError``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from mj_autodiff import custom_jvp
from mj_control._while import while_loop
from mj_core import lax
from mj_core.extend import Array, ArrayLike, get_aval, scatter_apply_rules
from mj_core.prims.indexing import ScatterDimensionNumbers, scatter_p

__all__: list[str] = []


def _scatter_apply(
    operand: ArrayLike,
    scatter_indices: ArrayLike,
    func: Callable[[Array], Array],
    dimension_numbers: ScatterDimensionNumbers,
    *,
    update_shape: Sequence[int],
    indices_are_sorted: bool,
    unique_indices: bool,
    mode: str,
) -> Array:
    counts = lax.scatter_add(
        lax.full(get_aval(operand).shape, 0, np.dtype(np.int32)),
        scatter_indices,
        lax.full(tuple(update_shape), 1, np.dtype(np.int32)),
        dimension_numbers,
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices,
        mode=mode,
    )

    @custom_jvp
    def applied(x: Array) -> Array:
        def body(state: tuple[Array, Array]) -> tuple[Array, Array]:
            k, y = state
            return lax.add(k, np.int32(1)), lax.select(lax.gt(counts, k), func(y), y)

        top = lax.reduce_max(counts, tuple(range(len(get_aval(counts).shape))))
        _, out = while_loop(lambda s: lax.lt(s[0], top), body, (np.int32(0), x))
        return out  # type: ignore[no-any-return]

    @applied.defjvp
    def _jvp(primals: tuple[Array], tangents: tuple[Array]) -> tuple[Array, Array]:
        raise NotImplementedError("scatter_apply JVP not implemented")

    return applied(operand)  # type: ignore[no-any-return]


scatter_apply_rules[scatter_p] = _scatter_apply
