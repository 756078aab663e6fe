"""Layer 6 of mini-JAX (mj): structured control flow.

Owns ``cond``, ``switch``, ``while_loop``, ``fori_loop`` and ``scan``, registering each
primitive's rules (impl, abstract eval, jvp, vmap, partial eval, transpose, lowering) into
the lower layers' tables. It may import ``mj_xla`` and every layer below it; never ``mj``.
"""

__version__ = "0.1.0"
