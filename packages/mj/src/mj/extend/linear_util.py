"""``mj.extend.linear_util``: JAX's ``jax.extend.linear_util.wrap_init`` / ``WrappedFun``, the
wrapped-function object JAX's internal tracing entry points take.

mj's transformations take plain functions, so a ``WrappedFun`` here only carries the function,
its keyword parameters and its debug info, and ``call_wrapped`` calls it. flax imports this
module (its lifted ``scan`` and ``lazy_init`` build on it); JAX's function-transformation
machinery (``transformation``, ``transformation_with_aux``, stores) is not provided.
"""

from mj_core.extend import WrappedFun as WrappedFun
from mj_core.extend import wrap_init as wrap_init

__all__ = ["WrappedFun", "wrap_init"]
