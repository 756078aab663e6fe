"""``mj.stages``: the stages of a jitted call, as ``jax.stages``: ``jit(f)`` is ``Wrapped``,
``.trace(...)`` gives ``Traced``, ``.lower(...)`` gives ``Lowered`` (``.as_text()``,
``.compile()``) and ``.compile()`` gives ``Compiled``; ``args_info`` of both is a pytree of
``ArgInfo``."""

from mj_xla import ArgInfo as ArgInfo
from mj_xla import Compiled as Compiled
from mj_xla import JitFunction as Wrapped
from mj_xla import Lowered as Lowered
from mj_xla import Traced as Traced

__all__ = ["ArgInfo", "Compiled", "Lowered", "Traced", "Wrapped"]
