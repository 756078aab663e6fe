"""The public extension surface of mj-autodiff: how to make a new primitive differentiable.

Register a JVP rule (``jvp_rules[p] = rule`` or one of the helpers below) and, for a
primitive that is linear in some operands, a transpose rule. Example, for a primitive
``multiply_add_p(x, y, z) = x * y + z``::

    from mj_autodiff import extend as ad

    ad.defjvp(multiply_add_p,
              lambda g, x, y, z: g * y,     # d/dx
              lambda g, x, y, z: x * g,     # d/dy
              lambda g, x, y, z: g)         # d/dz

    def multiply_add_transpose(cts, x, y, z):
        ct, = cts
        ...  # return one cotangent per operand, None for non-linear ones

    ad.transpose_rules[multiply_add_p] = multiply_add_transpose

Tangents and cotangents handed to rules may be symbolic zeros (:class:`Zero`); use
:func:`instantiate_zeros` when a rule needs an array. Elementwise-style rules that broadcast
use :func:`unbroadcast` to return a cotangent of each operand's shape and dtype.
"""

from mj_autodiff._custom_derivatives import Thunk as Thunk
from mj_autodiff._jvp import defjvp as defjvp
from mj_autodiff._jvp import defjvp2 as defjvp2
from mj_autodiff._jvp import defjvp_zero as defjvp_zero
from mj_autodiff._jvp import jvp_rules as jvp_rules
from mj_autodiff._partial_eval import partial_eval_jaxpr_rules as partial_eval_jaxpr_rules
from mj_autodiff._partial_eval import partial_eval_rules as partial_eval_rules
from mj_autodiff._tangents import Zero as Zero
from mj_autodiff._tangents import add_tangents as add_tangents
from mj_autodiff._tangents import fit_tangent as fit_tangent
from mj_autodiff._tangents import instantiate_zeros as instantiate_zeros
from mj_autodiff._tangents import tangent_aval as tangent_aval
from mj_autodiff._transpose import UndefPrimal as UndefPrimal
from mj_autodiff._transpose import deflinear as deflinear
from mj_autodiff._transpose import deflinear2 as deflinear2
from mj_autodiff._transpose import is_undefined_primal as is_undefined_primal
from mj_autodiff._transpose import transpose_rules as transpose_rules
from mj_autodiff._transpose import unbroadcast as unbroadcast

__all__ = [
    "Thunk",
    "UndefPrimal",
    "Zero",
    "add_tangents",
    "defjvp",
    "defjvp2",
    "defjvp_zero",
    "deflinear",
    "deflinear2",
    "fit_tangent",
    "instantiate_zeros",
    "is_undefined_primal",
    "jvp_rules",
    "partial_eval_jaxpr_rules",
    "partial_eval_rules",
    "tangent_aval",
    "transpose_rules",
    "unbroadcast",
]
