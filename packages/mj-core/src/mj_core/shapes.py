"""Shape logic shared by impl rules (to report errors) and mj-ir's abstract-eval rules.

Keeping it here, once, is what makes eager evaluation, jaxprs and compiled code agree on
every result shape.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["broadcast_shapes", "canonicalize_axis", "canonicalize_axes", "shape_error"]


def shape_error(prim_name: str, detail: str, *shapes: tuple[int, ...]) -> TypeError:
    shown = ", ".join(str(s) for s in shapes)
    return TypeError(f"{prim_name}: {detail} (operand shapes: {shown})")


def broadcast_shapes(prim_name: str, *shapes: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy broadcasting of ``shapes``; a ``TypeError`` naming ``prim_name`` if impossible."""
    if len(shapes) == 1:
        return shapes[0]
    first = shapes[0]
    if all(s == first for s in shapes):
        return first
    ndim = max(len(s) for s in shapes)
    out: list[int] = []
    for i in range(ndim):
        size = 1
        for s in shapes:
            j = i - (ndim - len(s))
            if j < 0:
                continue
            d = s[j]
            if d == 1:
                continue
            if size not in (1, d):
                raise shape_error(prim_name, "shapes cannot be broadcast together", *shapes)
            size = d
        out.append(size)
    return tuple(out)


def canonicalize_axis(prim_name: str, axis: int, ndim: int) -> int:
    """``axis`` in ``[0, ndim)``, accepting negative axes; ``ValueError`` if out of range."""
    if not -ndim <= axis < ndim:
        raise ValueError(f"{prim_name}: axis {axis} is out of range for an array of rank {ndim}")
    return axis % ndim if ndim else axis


def canonicalize_axes(prim_name: str, axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    out = tuple(canonicalize_axis(prim_name, a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{prim_name}: repeated axis in {tuple(axes)}")
    return out
