"""The batching rules of every core primitive, one file per primitive family.

``rules/<family>.py`` registers into ``vmap_rules`` the rules of the primitives that
``mj_core/prims/<family>.py`` defines, for every family of ``mj_core.extend.FAMILIES``; this
package imports them all by iterating that list. :data:`registered_in` records which family
file registered each rule, so the coverage test can check that a rule's home follows from its
primitive's family (a rule built by a shared helper such as ``defvectorized`` carries the
helper's ``__module__``, not its family file's).
"""

from __future__ import annotations

import importlib

from mj_batch._batching import vmap_rules
from mj_core import Primitive
from mj_core.extend import FAMILIES

__all__ = ["registered_in"]

registered_in: dict[Primitive, str] = {}
"""The family whose ``rules/<family>.py`` registered each primitive's batching rule."""

for _family in FAMILIES:
    _before = set(vmap_rules)
    importlib.import_module(f"{__name__}.{_family}")
    registered_in.update(dict.fromkeys(vmap_rules.keys() - _before, _family))
