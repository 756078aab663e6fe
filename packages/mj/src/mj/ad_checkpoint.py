"""``mj.ad_checkpoint``: gradient checkpointing (JAX's ``jax.ad_checkpoint``). The same
objects as :mod:`mj_control`'s ``checkpoint``, ``checkpoint_name`` and ``checkpoint_policies``."""

from mj_control import checkpoint as checkpoint
from mj_control import checkpoint_name as checkpoint_name
from mj_control import checkpoint_policies as checkpoint_policies
from mj_control import remat as remat
