"""Layer 7 of mini-JAX (mj): the user-facing, JAX-like API.

Re-exports the lower layers (``mj.jit``, ``mj.grad``, ``mj.vmap``, ``mj.numpy``, ``mj.lax``,
``mj.tree_util``, ``mj.random``, ...) and holds the demo. It may import every other layer;
no layer may import it.
"""

__version__ = "0.1.0"
