"""NumPy-style API built only from :mod:`mj_core.lax` wrappers (``import mj.numpy as mnp``).

NumPy names, broadcasting and NumPy 2 (NEP 50) dtype rules, with JAX's departures where JAX
users expect them: arrays are immutable (``x.at[idx].set(v)``), list arguments are rejected
outside ``array``/``asarray``, and out-of-bounds gather indices clamp.

This is the part of the NumPy API the lower layers and the array methods need (``x.sort()``,
``x.searchsorted(v)``, ``x.nonzero()``, ``x.repeat(n)``, ... are mj-core's, so an array has
them whether or not ``mj`` is imported); ``mj.numpy`` re-exports all of it with
``from mj_core.numpy import *`` and adds the rest. So every public name here is API: each
submodule lists its own names in its ``__all__`` and this module only star-imports them. It
has no ``__all__`` of its own: a literal one would write every name a second time, and mypy
ignores a computed one (so ``mj.numpy``'s star import would look empty to it).

Inside the package, :mod:`~mj_core.numpy._base` (creation, math, reductions, shapes, ...)
comes first and the modules above it (sorting, searching, selection, matrices, tiling) use
it as ``cnp``.
"""

from mj_core.numpy._base import *
from mj_core.numpy._matrices import *
from mj_core.numpy._searching import *
from mj_core.numpy._selection import *
from mj_core.numpy._sorting import *
from mj_core.numpy._tiling import *
