"""``mj.interpreters``: JAX's public extension modules (``jax.interpreters.ad``,
``batching``, ``mlir``) as views over mj's rule tables.

Registering a rule here (``ad.primitive_jvps[p] = rule``) puts an adapter into mj's own table
(``mj_autodiff.jvp_rules``); nothing is copied, so JAX-spelled and mj-spelled registrations
see each other. See ``docs/running_jax_code.md``.
"""

from mj.interpreters import ad as ad
from mj.interpreters import batching as batching
from mj.interpreters import mlir as mlir
from mj.interpreters import partial_eval as partial_eval

__all__ = ["ad", "batching", "mlir", "partial_eval"]
