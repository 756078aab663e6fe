"""``lax.Precision``: how much of the operands' precision a contraction on an accelerator may
trade for speed (JAX's enum, names and string aliases).

``dot_general`` and the convolutions canonicalize their ``precision`` argument to ``None`` or
a pair (one per operand) before binding, so the primitive parameter is hashable and the
lowering emits it as StableHLO's ``precision_config``. NumPy and XLA's CPU backend always
compute at full precision, so on CPU the values do not change.
"""

from __future__ import annotations

import enum
from typing import Any

__all__ = ["Precision", "PrecisionLike", "canonicalize_precision"]


class Precision(enum.Enum):
    """``DEFAULT`` (fastest: one bfloat16 pass on TPU), ``HIGH`` (three passes, about
    float32's mantissa as tensorfloat32) and ``HIGHEST`` (full float32)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: object) -> Precision | None:
        if isinstance(value, str):
            return _ALIASES.get(value.lower())
        return None

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Precision.{self.name}"


_ALIASES = {
    "default": Precision.DEFAULT,
    "fastest": Precision.DEFAULT,
    "bfloat16": Precision.DEFAULT,
    "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST,
}

PrecisionLike = None | str | Precision | tuple[str | Precision, str | Precision]


def _one(p: Any, precision: Any) -> Precision:
    try:
        return p if isinstance(p, Precision) else Precision(p)
    except ValueError:
        raise ValueError(
            f"Precision argument must be one of: None, a lax.Precision, one of the strings "
            f"{sorted(_ALIASES)}, or a pair of these; got {precision!r}."
        ) from None


def canonicalize_precision(precision: Any) -> tuple[Precision, Precision] | None:
    """``None``, or the precision of each operand as a pair of :class:`Precision`."""
    if precision is None:
        return None
    if isinstance(precision, str | Precision):
        p = _one(precision, precision)
        return p, p
    if isinstance(precision, tuple | list) and len(precision) == 2:
        return _one(precision[0], precision), _one(precision[1], precision)
    return (_one(precision, precision),) * 2  # raises the message above
