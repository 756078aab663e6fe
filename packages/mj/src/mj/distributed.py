"""``mj.distributed``: JAX's ``jax.distributed``, one computation over several processes.

Every process calls ``mj.distributed.initialize(coordinator_address, num_processes,
process_id)`` before its first computation (process 0 serves the coordination service at
that address); then ``mj.devices()`` spans every process's CPU devices and a jitted program
over a mesh of them runs as one SPMD program, XLA's collectives crossing processes.
"""

from mj_xla import distributed_initialize as initialize
from mj_xla import distributed_is_initialized as is_initialized
from mj_xla import distributed_shutdown as shutdown

__all__ = ["initialize", "is_initialized", "shutdown"]
