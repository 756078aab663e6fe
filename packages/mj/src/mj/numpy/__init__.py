"""``mj.numpy`` (``import mj.numpy as mnp``): NumPy's API, traceable by every transformation.

Re-exports :mod:`mj_core.numpy` and adds the rest of the breadth JAX programs use. Every
function is built from ``mj.lax`` operations, so it works eagerly, under ``jit``, ``grad``
and ``vmap`` alike.
"""

from mj_core.numpy import *  # noqa: F403
