"""Layer 2 of mini-JAX (mj): jaxprs.

Owns the IR (Var, Lit, JaxprEqn, Jaxpr, ClosedJaxpr, JaxprType), ``typecheck_jaxpr``,
``eval_jaxpr``, ``make_jaxpr`` with the jaxpr builder trace, the pretty printer, and the
``abstract_eval_rules`` table with a typing rule for every core primitive. It may import only
``mj_core`` (and numpy); never a higher layer and never jaxlib.
"""

__version__ = "0.1.0"
