"""``mj.test_util``: numerical checks of derivatives (``check_grads``), as in JAX."""

from mj_autodiff import check_grads as check_grads
