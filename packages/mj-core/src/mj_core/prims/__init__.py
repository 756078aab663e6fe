"""The primitive catalogue: one module per family of :data:`~mj_core._families.FAMILIES`.

``mj_core/prims/<family>.py`` defines the family's primitives with their impl rules, their
typing rules (in :data:`~mj_core._primitive.abstract_eval_rules`) and their lax wrappers; its
``__all__`` names the primitives and the lax API. A primitive belongs to the family whose
``__all__`` names it (:func:`family_of`); the families are imported here by iterating the
catalogue, so a new family is one name in ``FAMILIES`` and one file.

A primitive has one spelling: its family module's, ``from mj_core.prims.structural import
reshape_p`` (this package has no flat catalogue of primitives; enumerate them with
:func:`family_primitives`).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from mj_core._families import FAMILIES
from mj_core._primitive import Primitive

__all__ = ["family_of", "family_primitives"]

_MODULES: dict[str, ModuleType] = {
    family: importlib.import_module(f"{__name__}.{family}") for family in FAMILIES
}
_FAMILY_OF: dict[Primitive, str] = {}
_PRIMITIVES: dict[str, list[Primitive]] = {family: [] for family in FAMILIES}
for _family, _module in _MODULES.items():
    for _name in _module.__all__:
        _value = getattr(_module, _name)
        if isinstance(_value, Primitive):
            if _value in _FAMILY_OF:
                raise ImportError(
                    f"primitive {_value.name} is in the __all__ of two families: "
                    f"{_FAMILY_OF[_value]} and {_family}"
                )
            _FAMILY_OF[_value] = _family
            _PRIMITIVES[_family].append(_value)
del _family, _module, _name, _value  # (no primitive is reachable as mj_core.prims.<name>)

importlib.import_module(f"{__name__}._view_rules")  # (array views: see mj_core._array_views)


def family_of(prim: Primitive) -> str:
    """The family of core primitive ``prim`` (``KeyError`` for a primitive defined elsewhere,
    such as a higher layer's ``xla_call`` or a user's own)."""
    try:
        return _FAMILY_OF[prim]
    except KeyError:
        raise KeyError(f"{prim.name} is not a primitive of the mj-core catalogue") from None


def family_primitives(family: str) -> list[Primitive]:
    """The primitives of ``family``, in its module's ``__all__`` order."""
    if family not in _PRIMITIVES:
        raise KeyError(f"{family!r} is not a family; the families are {FAMILIES}")
    return list(_PRIMITIVES[family])
