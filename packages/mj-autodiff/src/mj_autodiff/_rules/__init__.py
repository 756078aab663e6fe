"""JVP, transpose and partial-eval rules for every core primitive, one module per family.

Importing this package registers them all (``mj_autodiff`` does so on import).
"""

from mj_autodiff._rules import elementwise as elementwise
