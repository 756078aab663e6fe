"""Layer 4 of mini-JAX (mj): automatic batching.

Owns ``vmap``, ``vmap_jaxpr``, the ``vmap_rules`` table with a batching rule for every core
primitive, and the Jacobian family ``jacfwd``, ``jacrev``, ``hessian``. It may import only
``mj_autodiff``, ``mj_ir`` and ``mj_core`` (and numpy); never a higher layer and never jaxlib.
"""

__version__ = "0.1.0"
