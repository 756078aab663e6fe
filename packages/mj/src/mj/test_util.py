"""``mj.test_util``: numerical checks of derivatives, as ``jax.test_util`` (``check_grads``,
and the single-direction ``check_jvp``/``check_vjp`` it is built from)."""

from mj_autodiff import check_grads as check_grads
from mj_autodiff import check_jvp as check_jvp
from mj_autodiff import check_vjp as check_vjp
