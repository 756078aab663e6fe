"""The eager engine: how mj evaluates a primitive on concrete values, with NumPy.

* :mod:`~mj_core._eager.evaluate`: :func:`eval_primitive`, the one eager path (array types
  with an eager handler first, operands canonicalized, the impl rule, floating-point warnings
  silenced, ``debug_nans``, weak outputs);
* :mod:`~mj_core._eager.results`: :func:`as_eager`, an output as a read-only ``EagerArray``;
* :mod:`~mj_core._eager.wrappers`: the elementwise wrappers' NumPy ufunc shortcut (``binds``);
* :mod:`~mj_core._eager.scalars`: Python scalar operands of the shortcut.

It sits below the interpreter (:mod:`mj_core._trace`), which calls :func:`eval_primitive`
for the eval trace and builds ``binds`` from its own ``bind1``: nothing here imports it.
"""

from mj_core._eager.evaluate import eval_primitive as eval_primitive
from mj_core._eager.results import as_eager as as_eager
