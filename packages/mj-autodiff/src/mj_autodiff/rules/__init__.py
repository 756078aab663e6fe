"""JVP, transpose and partial-eval rules for every core primitive: ``rules/<family>.py`` for
each family of :data:`mj_core.extend.FAMILIES`, the home of the rules of the primitives that
``mj_core/prims/<family>.py`` defines.

Importing this package registers them all (``mj_autodiff`` does so on import).
"""

import importlib

from mj_core.extend import FAMILIES

for _family in FAMILIES:
    importlib.import_module(f"{__name__}.{_family}")
