"""``jax.Array``'s NumPy-level methods (``x.sort()``, ``x.argsort()``, ``x.searchsorted(v)``,
``x.nonzero(size=...)``, ``x.repeat(...)``, ...), added to mj-core's one array-method table by
:func:`install_numpy_methods` when ``mj`` is imported.

They are implemented in :mod:`mj.numpy`, above ``mj_core``, so they cannot be written into
the table with the operators; everything else (which array type gets what, eager arrays
keeping NumPy's method for the writable copies NumPy's own functions make) is the installer's
(:func:`mj_core.install_array_methods`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mj.numpy._extras import nonzero
from mj.numpy._manipulation import repeat
from mj.numpy._matrices import diagonal, trace
from mj.numpy._searching import searchsorted
from mj.numpy._selection import choose, compress
from mj.numpy._sorting import argpartition, argsort, sort
from mj_core import array_methods, install_array_methods

__all__ = ["install_numpy_methods", "numpy_methods"]


def _trace(
    self: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: None = None
) -> Any:
    if out is not None:
        raise NotImplementedError(
            "trace: the 'out' argument is not supported (arrays are immutable)"
        )
    return trace(self, offset, axis1, axis2, dtype)


def _compress(
    self: Any,
    condition: Any,
    axis: int | None = None,
    *,
    out: None = None,
    size: int | None = None,
    fill_value: Any = 0,
) -> Any:
    return compress(condition, self, axis, size=size, fill_value=fill_value, out=out)


#: name -> implementation, with ``jax.Array``'s method signatures.
numpy_methods: dict[str, Callable[..., Any]] = {
    "sort": sort,
    "argsort": argsort,
    "argpartition": argpartition,
    "searchsorted": searchsorted,
    "nonzero": nonzero,
    "diagonal": diagonal,
    "trace": _trace,
    "repeat": repeat,
    "choose": choose,
    "compress": _compress,
}


def install_numpy_methods() -> None:
    """Give every mj array type ``jax.Array``'s NumPy-level methods."""
    array_methods.update(numpy_methods)
    install_array_methods()
