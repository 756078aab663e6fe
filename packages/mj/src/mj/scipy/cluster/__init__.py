"""``mj.scipy.cluster``: ``jax.scipy.cluster`` (vector quantisation)."""

from mj.scipy.cluster import vq as vq
