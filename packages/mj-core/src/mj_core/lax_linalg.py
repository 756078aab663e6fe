"""``mj_core.lax_linalg`` (``mj_core.lax.linalg``, ``jax.lax.linalg``): the linear-algebra
family's wrappers and the batched matrix helpers (``matmul``, ``mT``, ``tril``/``triu``,
``eye_like``, ``diagonal``) that they, the derivative rules in mj-autodiff and
``mj.numpy.linalg`` build on. Every name is defined once, in :mod:`mj_core.prims.linalg`.

Every function works on the last two axes and treats leading axes as batch axes.
"""

from mj_core.prims import linalg as _linalg
from mj_core.prims.linalg import *

__all__ = []
__all__ += _linalg.__all__
