"""Layer 3 of mini-JAX (mj): automatic differentiation.

The user API: ``jvp``, ``linearize``, ``vjp``, ``grad``, ``value_and_grad``, custom
derivatives (``custom_jvp``, ``custom_vjp``, ``custom_gradient``, ``closure_convert``),
``linear_transpose``, ``stop_gradient``, ``check_grads`` and ``float0``. The extension API
(the ``jvp_rules``, ``transpose_rules`` and partial-evaluation tables, the derivative
description and its helpers, symbolic zeros, the traces) is :mod:`mj_autodiff.extend`; the
rules for the core primitives are in ``mj_autodiff/rules/<family>.py``. It may import only
``mj_ir`` and ``mj_core`` (and numpy); never a higher layer and never jaxlib.
"""

from mj_autodiff import extend as extend
from mj_autodiff import rules as rules
from mj_autodiff._check_grads import check_grads as check_grads
from mj_autodiff._check_grads import check_jvp as check_jvp
from mj_autodiff._check_grads import check_vjp as check_vjp
from mj_autodiff._closure_convert import closure_convert as closure_convert
from mj_autodiff._custom_derivatives import custom_jvp as custom_jvp
from mj_autodiff._custom_derivatives import custom_vjp as custom_vjp
from mj_autodiff._custom_gradient import custom_gradient as custom_gradient
from mj_autodiff._jvp import jvp as jvp
from mj_autodiff._linear_transpose import linear_transpose as linear_transpose
from mj_autodiff._linearize import linearize as linearize
from mj_autodiff._stop_gradient import stop_gradient as stop_gradient
from mj_autodiff._tangents import float0 as float0
from mj_autodiff._vjp import DidntWant as DidntWant
from mj_autodiff._vjp import DontWant as DontWant
from mj_autodiff._vjp import GradValue as GradValue
from mj_autodiff._vjp import NotNeeded as NotNeeded
from mj_autodiff._vjp import grad as grad
from mj_autodiff._vjp import value_and_grad as value_and_grad
from mj_autodiff._vjp import vjp as vjp

# The layer's rule tables are also on its top level (DESIGN §4: ``mj_autodiff.jvp_rules``,
# ``mj_batch.not_mapped``, ``mj_xla.lowering_rules``); extend is their home.
from mj_autodiff.extend import jvp_rules as jvp_rules
from mj_autodiff.extend import partial_eval_jaxpr_rules as partial_eval_jaxpr_rules
from mj_autodiff.extend import partial_eval_rules as partial_eval_rules
from mj_autodiff.extend import transpose_rules as transpose_rules
from mj_core.errors import register_exclusion as _register_exclusion

_register_exclusion(__path__[0])  # its frames are never "the user's line" in errors

__version__ = "0.1.0"
