"""The StableHLO lowering rules of every core primitive, one file per primitive family.

``rules/<family>.py`` registers into ``lowering_rules`` the rules of the primitives that
``mj_core/prims/<family>.py`` defines, for every family of ``mj_core.extend.FAMILIES``; this
package imports them all by iterating that list. :data:`registered_in` records which family
file registered each rule, so the coverage test can check that a rule's home follows from its
primitive's family (a rule built by a shared helper such as ``register_elementwise`` carries
the helper's ``__module__``, not its family file's).
"""

from __future__ import annotations

import importlib

from mj_core import Primitive
from mj_core.extend import FAMILIES
from mj_xla._lowering import lowering_rules

__all__ = ["registered_in"]

registered_in: dict[Primitive, str] = {}
"""The family whose ``rules/<family>.py`` registered each primitive's lowering rule."""

for _family in FAMILIES:
    _before = set(lowering_rules)
    importlib.import_module(f"{__name__}.{_family}")
    registered_in.update(dict.fromkeys(lowering_rules.keys() - _before, _family))
