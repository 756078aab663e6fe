"""mj's own exception classes, and the helper that points an error at the user's source line.

Every error a user can trigger names what was expected, what was found, and (through
:func:`user_frame`) the line of *their* code that triggered it, not a line inside mj.
"""

from __future__ import annotations

import os
import sys
from types import FrameType

import numpy as np

__all__ = [
    "AxisError",
    "ConcretizationError",
    "MJError",
    "MissingRuleError",
    "NonConcreteBooleanIndexError",
    "ResourceExhaustedError",
    "ShapeDtypeError",
    "TracerLeakError",
    "UnhashableStaticArgumentError",
    "register_exclusion",
    "user_frame",
    "user_line_suffix",
    "user_location",
]

#: The directories whose files are mj's own code (with a trailing separator): each mj package
#: registers its own (:func:`register_exclusion`), as JAX's ``source_info_util`` does, so a
#: user's file is never mistaken for mj's by its name (a user directory ``mj_experiments``).
#: NumPy's directory is one too (``np.testing`` calling ``np.asarray`` is not the user's line).
_EXCLUDED_DIRS: tuple[str, ...] = ()


def register_exclusion(path: str) -> None:
    """Mark every file under the directory ``path`` as library code: :func:`user_frame` skips
    their frames. mj's packages register their own directories when imported (a package that
    adds primitives or transformations on top of mj can do the same with its own)."""
    global _EXCLUDED_DIRS
    directory = os.path.join(os.path.abspath(path), "")
    if directory not in _EXCLUDED_DIRS:
        _EXCLUDED_DIRS = (*_EXCLUDED_DIRS, directory)


register_exclusion(os.path.dirname(np.__file__))
register_exclusion(os.path.dirname(__file__))  # mj_core's own directory


def _is_mj_file(filename: str) -> bool:
    if not os.path.isabs(filename):
        if filename.startswith("<"):  # <frozen ...>, <string>, <stdin>: not a file of mj's
            return filename.startswith("<frozen")
        filename = os.path.abspath(filename)
    return filename.startswith(_EXCLUDED_DIRS)


def user_frame() -> FrameType | None:
    """The innermost stack frame that belongs to user code rather than to an mj package (nor
    to NumPy, nor to Python's frozen import machinery)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if not _is_mj_file(frame.f_code.co_filename):
            return frame
        frame = frame.f_back
    return None


def user_location() -> str:
    """``"in f at file.py:12"`` for the innermost user frame, or ``""`` if none is found."""
    frame = user_frame()
    if frame is None:
        return ""
    code = frame.f_code
    return f"in {code.co_name} at {code.co_filename}:{frame.f_lineno}"


def user_line_suffix() -> str:
    """``" in f at file.py:12"`` (note the leading space) for the innermost user frame, or
    ``""``: ready to append to an error message."""
    where = user_location()
    return f" {where}" if where else ""


class MJError(Exception):
    """Base class of the errors mj raises on purpose (as opposed to bugs)."""


class ConcretizationError(MJError, TypeError):
    """A traced (abstract) value was used where Python needs a concrete one.

    Raised by ``bool(x)``, ``int(x)``, ``float(x)``, ``x.__index__()`` and ``np.asarray(x)`` on a
    tracer whose value is not known at trace time, e.g. ``if x > 0:`` inside ``jit``. Use
    ``mj.lax.cond`` / ``mnp.where`` for value-dependent control flow, or mark the argument static.
    """


class NonConcreteBooleanIndexError(ConcretizationError, IndexError):
    """A traced boolean mask was used to index an array (``x[x > 0]`` under ``jit``/``vmap``).

    The result's shape would depend on the data. Use ``mnp.where(mask, x, y)`` to keep the
    shape, or ``mnp.nonzero(mask, size=n)`` with a static bound.
    """


class TracerLeakError(MJError):
    """A tracer escaped the transformation that created it and was used after it ended.

    Typical cause: storing an intermediate value in a global or a closure inside a transformed
    function and reading it after the transformation returned. Return the value instead.
    """


class MissingRuleError(MJError, NotImplementedError):
    """A primitive has no rule for the transformation that reached it."""


class ShapeDtypeError(MJError, TypeError, ValueError):
    """A primitive got operand shapes/dtypes or params it does not accept.

    The message names the primitive, the operands' ``f32[3,4]``-style types and the user's
    source line; being an :class:`MJError`, it reaches the user unchanged from any layer.
    It is a ``TypeError`` (DESIGN's contract) and also a ``ValueError``, what JAX raises for
    some of these (``Incompatible shapes for broadcasting``), so JAX code that catches either
    keeps working.
    """


class UnhashableStaticArgumentError(MJError, TypeError, ValueError):
    """A static argument (``static_argnums``/``static_argnames``) is not hashable.

    Static arguments are part of the compile cache's key, so they must be hashable (a tuple
    instead of a list). It is a ``TypeError`` (DESIGN's contract) and a ``ValueError``, what
    JAX raises here.
    """


class ResourceExhaustedError(MJError, MemoryError):
    """An array larger than the machine's memory was requested (JAX: ``RESOURCE_EXHAUSTED``).

    Eager mj builds filled arrays as NumPy broadcast views, which cost nothing until they are
    read; without this check ``mnp.zeros((2**40,))`` would return at once and the process be
    killed (or a reduction run for minutes) later, far from the cause.
    """


class AxisError(MJError, ValueError, IndexError):
    """An axis (or dimension) argument is out of range for the operand's rank, or repeated.

    A ``ValueError`` and an ``IndexError``, as NumPy's ``AxisError`` (JAX raises one or the
    other depending on the function: ``nn.softmax`` a ValueError, ``nn.standardize`` an
    IndexError)."""
