"""Layer 3 of mini-JAX (mj): automatic differentiation.

Owns ``jvp``, ``linearize``, ``vjp``, ``grad``, ``value_and_grad``, partial evaluation,
transposition, symbolic zeros, ``custom_jvp``/``custom_vjp``, ``check_grads`` and the
``jvp_rules``, ``transpose_rules`` and ``partial_eval_jaxpr_rules`` tables. It may import only
``mj_ir`` and ``mj_core`` (and numpy); never a higher layer and never jaxlib.
"""

__version__ = "0.1.0"
