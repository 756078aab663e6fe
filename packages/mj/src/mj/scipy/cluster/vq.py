"""``mj.scipy.cluster.vq``: assign observations to the nearest code book entry."""

from __future__ import annotations

import mj.numpy as mnp
from mj_batch import vmap
from mj_core.extend import Array, ArrayLike, promote_inexact

__all__ = ["vq"]


def vq(obs: ArrayLike, code_book: ArrayLike, check_finite: bool = True) -> tuple[Array, Array]:
    """``(code, dist)``: for each observation (row of ``obs``) the index of the nearest
    ``code_book`` row and the Euclidean distance to it, as ``jax.scipy.cluster.vq.vq``."""
    obs_arr, cb_arr = promote_inexact(mnp.asarray(obs), mnp.asarray(code_book))
    if mnp.ndim(obs_arr) != mnp.ndim(cb_arr):
        raise ValueError("Observation and code_book should have the same rank")
    if mnp.ndim(obs_arr) == 1:
        obs_arr, cb_arr = obs_arr[..., None], cb_arr[..., None]
    if mnp.ndim(obs_arr) != 2:
        raise ValueError("ndim different than 1 or 2 are not supported")
    dist = vmap(lambda ob: mnp.linalg.norm(ob[None] - cb_arr, axis=-1))(obs_arr)
    code = mnp.argmin(dist, axis=-1)
    dist_min = vmap(lambda d, c: d[c])(dist, code)
    return code, dist_min
