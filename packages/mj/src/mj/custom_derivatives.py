"""``mj.custom_derivatives``: the module JAX code imports its custom-derivative rules from
(``from jax.custom_derivatives import custom_jvp``); the same objects as ``mj.custom_jvp``."""

from mj_autodiff import closure_convert as closure_convert
from mj_autodiff import custom_gradient as custom_gradient
from mj_autodiff import custom_jvp as custom_jvp
from mj_autodiff import custom_vjp as custom_vjp
