"""``mj_core.lax_linalg`` (``mj_core.lax.linalg``, ``jax.lax.linalg``): the linear-algebra
family's wrappers and the batched matrix helpers (``matmul``, ``mT``, ``tril``/``triu``,
``eye_like``, ``diagonal``) that they, the derivative rules in mj-autodiff and
``mj.numpy.linalg`` build on. Every name is defined once, in :mod:`mj_core.prims.linalg`,
except ``lu_pivots_to_permutation``, a composite of ``mj_core.numpy`` operations.

Every function works on the last two axes and treats leading axes as batch axes.
"""

from mj_core._typing import Array, ArrayLike
from mj_core.prims import linalg as _linalg
from mj_core.prims.linalg import *

__all__ = []
__all__ += _linalg.__all__


def lu_pivots_to_permutation(pivots: ArrayLike, permutation_size: int) -> Array:
    """The permutation (``int32``, length ``permutation_size``) that LAPACK's row swaps
    ``i <-> pivots[..., i]`` apply, in turn, to ``iota(permutation_size)``; leading axes of
    ``pivots`` are batch axes (JAX's ``lax.linalg.lu_pivots_to_permutation``)."""
    import numpy as np

    import mj_core.numpy as cnp
    from mj_core import lax

    pivots = cnp.asarray(pivots)
    batch, k = cnp.shape(pivots)[:-1], cnp.shape(pivots)[-1]
    m = int(permutation_size)
    if k > m:
        raise ValueError(
            f"Output permutation size {m} has to exceed the trailing dimension of the pivots. "
            f"Got pivots size {k}"
        )
    positions = lax.iota(np.int32, m)
    perm = lax.broadcast_in_dim(positions, (*batch, m), (len(batch),))
    for i in range(k):
        p = lax.convert_element_type(pivots[..., i : i + 1], np.int32)
        at_i = lax.broadcast_in_dim(lax.eq(positions, np.int32(i)), (*batch, m), (len(batch),))
        at_p = lax.eq(positions, p)
        val_i = perm[..., i : i + 1]
        val_p = cnp.sum(cnp.where(at_p, perm, 0), axis=-1, keepdims=True)
        perm = cnp.where(at_i, val_p, cnp.where(at_p, val_i, perm))
    return lax.convert_element_type(perm, pivots.dtype)


__all__ += ["lu_pivots_to_permutation"]
