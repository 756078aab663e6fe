"""``mj.custom_derivatives``: the module JAX code imports its custom-derivative rules from
(``from jax.custom_derivatives import custom_jvp``); the same objects as ``mj.custom_jvp``,
with the primitives a staged custom function binds (``custom_jvp_call_p``,
``custom_vjp_call_p``) and the symbolic-zero types of ``defjvp(..., symbolic_zeros=True)`` /
``defvjp(..., symbolic_zeros=True)``."""

from mj_autodiff import closure_convert as closure_convert
from mj_autodiff import custom_gradient as custom_gradient
from mj_autodiff import custom_jvp as custom_jvp
from mj_autodiff import custom_vjp as custom_vjp
from mj_autodiff.extend import CustomVJPPrimal as CustomVJPPrimal
from mj_autodiff.extend import SymbolicZero as SymbolicZero
from mj_autodiff.extend import custom_jvp_call_p as custom_jvp_call_p
from mj_autodiff.extend import custom_vjp_call_p as custom_vjp_call_p
from mj_autodiff.extend import custom_vjp_primal_tree_values as custom_vjp_primal_tree_values
from mj_autodiff.extend import zero_from_primal as zero_from_primal
