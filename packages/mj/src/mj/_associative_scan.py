"""``associative_scan``: all prefix combinations of an associative binary function in
``O(log n)`` depth (Blelloch's scan), from slices, pads and concatenations, as
``jax.lax.associative_scan``; and ``cumlogsumexp``, the scan of ``logaddexp``.

The scan combines neighbouring pairs, scans the half-length result recursively (giving the
odd-position prefixes), then combines those with the even-position elements and interleaves
the two. ``fn`` is applied to whole arrays of pairs at once, so it must be vectorized along
the scanned axis, as JAX requires.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, cast

import numpy as np

import mj_core.numpy as cnp
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import AnyArray, Array, ArrayLike, canonicalize_axis, shape_of
from mj_core.tree_util import tree_flatten, tree_unflatten

__all__ = ["associative_scan", "cumlogsumexp"]

_T = TypeVar("_T")


def associative_scan(
    fn: Callable[[_T, _T], _T], elems: _T, reverse: bool = False, axis: int = 0
) -> _T:
    """``[e0, fn(e0, e1), fn(fn(e0, e1), e2), ...]`` along ``axis`` of every leaf of the
    pytree ``elems``, for an associative ``fn`` taking and returning pytrees like ``elems``;
    ``reverse`` scans from the end."""
    if not callable(fn):
        raise TypeError(
            "lax.associative_scan: fn argument should be callable. (got "
            f"{type(fn).__name__} {fn!r}{user_line_suffix()})"
        )
    flat, tree = tree_flatten(elems)
    if not flat:
        raise ValueError(f"associative_scan: elems has no arrays{user_line_suffix()}")
    flat = [cnp.asarray(x) for x in flat]
    ndim = len(shape_of(flat[0]))
    axis = canonicalize_axis("associative_scan", axis, ndim)
    lengths = {shape_of(x)[axis] for x in flat}
    if len(lengths) != 1:
        raise ValueError(
            "associative_scan: array inputs to associative_scan must have the same first "
            f"dimension along axis {axis}, got lengths {sorted(lengths)}{user_line_suffix()}"
        )
    if reverse:
        flat = [lax.rev(x, [axis]) for x in flat]

    def combine(a: Sequence[ArrayLike], b: Sequence[ArrayLike]) -> list[Array]:
        out, out_tree = tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))
        if out_tree != tree:
            raise TypeError(
                f"associative_scan: fn must return a pytree like elems ({tree}), got "
                f"{out_tree}{user_line_suffix()}"
            )
        return out

    def take(xs: Sequence[ArrayLike], start: int, stop: int | None, step: int = 1) -> list[Array]:
        return [lax.slice_in_dim(x, start, stop, step, axis) for x in xs]

    def scan(xs: list[AnyArray]) -> list[AnyArray]:
        n = shape_of(xs[0])[axis]
        if n < 2:
            return xs
        odd = scan(combine(take(xs, 0, -1, 2), take(xs, 1, None, 2)))
        if n % 2 == 0:
            even = combine(take(odd, 0, -1), take(xs, 2, None, 2))
        else:
            even = combine(odd, take(xs, 2, None, 2))
        even = [lax.concatenate([x0, e], axis) for x0, e in zip(take(xs, 0, 1), even, strict=True)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd, strict=True)]

    out = scan(flat)
    if reverse:
        out = [lax.rev(x, [axis]) for x in out]
    return cast(_T, tree_unflatten(tree, out))


def _interleave(a: ArrayLike, b: ArrayLike, axis: int) -> Array:
    """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (``a`` as long as ``b`` or one longer):
    each is padded with zeros between its elements, and the two are added."""
    n_a, n_b = shape_of(a)[axis], shape_of(b)[axis]
    ndim = len(shape_of(a))

    def spread(x: ArrayLike, low: int, high: int) -> Array:
        config = [(0, 0, 0)] * ndim
        config[axis] = (low, high, 1)
        return lax.pad(x, lax.convert_element_type(0, cnp.asarray(x).dtype), config)

    padded_a = spread(a, 0, 1 if n_a == n_b else 0)
    padded_b = spread(b, 1, 0 if n_a == n_b else 1)
    if cnp.asarray(a).dtype == np.bool_:
        return lax.bitwise_or(padded_a, padded_b)
    return lax.add(padded_a, padded_b)


def cumlogsumexp(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> AnyArray:
    """``log(cumsum(exp(operand)))`` along ``axis`` without overflow."""
    return associative_scan(cnp.logaddexp, operand, reverse=reverse, axis=axis)
