"""Shape logic shared by the impl rules (to report errors) and the typing rules.

Keeping it here, once, is what makes eager evaluation, jaxprs and compiled code agree on
every result shape. Errors name the primitive, the operand types and the user's source line.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from mj_core._config import config
from mj_core.errors import AxisError, MJError, ShapeDtypeError, user_location

if TYPE_CHECKING:
    from mj_core._avals import ShapedArray

__all__ = [
    "aval_error",
    "broadcast_shapes",
    "canonicalize_axes",
    "canonicalize_axis",
    "check_permutation",
    "check_rank_promotion",
    "int_tuple",
    "lax_ints",
    "shape_error",
    "shape_of",
]


def shape_of(x: Any) -> tuple[int, ...]:
    """The shape of an operand (array, tracer, Python scalar) without touching its data."""
    shape = getattr(x, "shape", None)
    return tuple(np.shape(x)) if shape is None else tuple(shape)


def _where() -> str:
    loc = user_location()
    return f" {loc}" if loc else ""


def shape_error(prim_name: str, detail: str, *shapes: tuple[int, ...]) -> ShapeDtypeError:
    """A ``TypeError`` naming ``prim_name``, the operand shapes and the user's source line."""
    shown = ", ".join(str(s) for s in shapes)
    return ShapeDtypeError(f"{prim_name}: {detail} (operand shapes: {shown}){_where()}")


def aval_error(prim_name: str, detail: str, avals: Sequence[ShapedArray]) -> ShapeDtypeError:
    """A ``TypeError`` showing the operands as ``f32[3,4]``: for primitives' typing rules."""
    shown = ", ".join(a.str_short() for a in avals)
    return ShapeDtypeError(f"{prim_name}: {detail} (operands: {shown}){_where()}")


def jax_worded_error(detail: str, avals: Sequence[ShapedArray]) -> ShapeDtypeError:
    """A typing rule's ``TypeError`` whose ``detail`` is JAX's own wording (it names the
    primitive, as JAX's does), followed by the operands and the user's source line."""
    shown = ", ".join(a.str_short() for a in avals)
    return ShapeDtypeError(f"{detail} (operands: {shown}){_where()}")


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


def int_tuple(api: str, what: str, value: Any) -> tuple[int, ...]:
    """An int or a sequence of ints (shape, axes) as a tuple of ints; ``TypeError`` naming the
    API and the argument for anything else (strings, floats, objects)."""
    try:
        if isinstance(value, int | np.integer) or getattr(value, "ndim", None) == 0:
            return (operator.index(value),)
        return tuple(operator.index(v) for v in value)
    except MJError:  # e.g. a traced value (ConcretizationError): its own message is better
        raise
    except TypeError:
        raise TypeError(
            f"{api}: {what} must be an int or a sequence of ints, got {value!r} "
            f"({type(value).__name__}){_where()}"
        ) from None


def lax_ints(value: object) -> tuple[int, ...]:
    """A shape or dimensions parameter of a lax wrapper as a tuple of ints (:func:`int_tuple`);
    the ``TypeError`` has JAX's wording (``core.canonicalize_shape``) and then mj's."""
    try:
        return int_tuple("mj.lax", "a shape or dimensions parameter", value)
    except MJError:
        raise
    except TypeError as err:
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {value!r}. {err}"
        ) from None


def canonicalize_axis(prim_name: str, axis: int, ndim: int) -> int:
    """``axis`` in ``[0, ndim)``, accepting negative axes; ``ValueError`` if out of range."""
    try:
        axis = operator.index(axis)
    except MJError:
        raise
    except TypeError:
        raise TypeError(
            f"{prim_name}: '{type(axis).__name__}' object cannot be interpreted as an integer "
            f"(axis must be an int, got {axis!r}){_where()}"
        ) from None
    if not -ndim <= axis < ndim:
        raise AxisError(
            f"{prim_name}: axis {axis} is out of bounds for array of dimension {ndim}{_where()}"
        )
    return axis % ndim if ndim else axis


def canonicalize_axes(prim_name: str, axes: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Each of ``axes`` canonicalized; ``ValueError`` if one is out of range or repeated."""
    canonical = []
    for a in axes:  # in-range Python ints inline: reductions canonicalize on every call
        if type(a) is int and -ndim <= a < ndim:
            canonical.append(a % ndim)
        else:
            canonical.append(canonicalize_axis(prim_name, a, ndim))
    out = tuple(canonical)
    if len(set(out)) != len(out):
        raise AxisError(
            f"{prim_name}: duplicate value in 'axes' (a repeated axis): {tuple(axes)}{_where()}"
        )
    return out


def check_permutation(prim_name: str, perm: Sequence[int], ndim: int) -> tuple[int, ...]:
    """``perm`` as a tuple if it is a permutation of ``range(ndim)``, else ``ValueError``."""
    out = tuple(int(p) for p in perm)
    if sorted(out) != list(range(ndim)):
        raise AxisError(
            f"{prim_name}: {out} is not a permutation of the axes of a rank-{ndim} array{_where()}"
        )
    return out


_RANK_PROMOTION_DOC = "see https://docs.jax.dev/en/latest/rank_promotion_warning.html"


def check_rank_promotion(fun_name: str, *shapes: tuple[int, ...]) -> None:
    """``numpy_rank_promotion`` of a NumPy-level function's operands (JAX's ``promote_shapes``
    in ``jax.numpy``): with ``"warn"``/``"raise"``, operands of two or more different
    non-scalar ranks warn or raise, naming the function and the shapes, in JAX's words (the
    user's source line follows them). Only the user's operands of ``mj.numpy`` functions are
    checked: primitives broadcast the shapes mj builds itself (vmap's batched shapes, rules'
    own broadcasts) without a check, as lax does in JAX."""
    mode = config.numpy_rank_promotion
    if mode == "allow" or len({len(s) for s in shapes if s}) < 2:
        return
    shown = " ".join(str(tuple(s)) for s in shapes)
    where = user_location()
    where = f" ({where})" if where else ""
    if mode == "raise":
        raise ShapeDtypeError(
            f"Operands could not be broadcast together for {fun_name} on shapes {shown} and "
            "with the config option mj_numpy_rank_promotion='raise'. For more information, "
            f"{_RANK_PROMOTION_DOC}.{where}"
        )
    warnings.warn(
        f"Following NumPy automatic rank promotion for {fun_name} on shapes {shown}. Set the "
        "mj_numpy_rank_promotion config option to 'allow' to disable this warning; for more "
        f"information, {_RANK_PROMOTION_DOC}.{where}",
        UserWarning,
        stacklevel=4,
    )
