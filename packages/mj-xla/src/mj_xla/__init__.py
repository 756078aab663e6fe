"""Layer 5 of mini-JAX (mj): compilation through XLA.

Owns ``jit``, the ``xla_call`` primitive and its rules, lowering of jaxprs to StableHLO
(the ``lowering_rules`` table), compilation and execution through jaxlib's PJRT client,
device arrays and the compile cache. It may import the layers below it (``mj_batch``,
``mj_autodiff``, ``mj_ir``, ``mj_core``) and is the lowest layer allowed to import jaxlib.
"""

__version__ = "0.1.0"
