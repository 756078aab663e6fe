"""``erf_inv``, which ``mj.random.normal`` needs to turn uniform bits into Gaussian samples.

It is the core primitive ``erf_inv`` (:mod:`mj_core.prims.special`): its NumPy impl evaluates
the same piecewise polynomials as XLA's ``ErfInv`` (M. Giles, "Approximating the erfinv
function", GPU Computing Gems, 2011) and jit lowers it to ``chlo.erf_inv``, as JAX does, so
``mj.random.normal`` reproduces ``jax.random.normal`` sample for sample.
"""

from mj_core.lax_special import erf_inv as erf_inv

__all__ = ["erf_inv"]
