"""The family catalogue is the unit of organisation: every family of ``FAMILIES`` is one module
of ``mj_core.prims``, every core primitive belongs to exactly one of them and has its impl rule
and its typing rule in the one typing table, and ``mj_core.lax`` is the union of the families'
lax API."""

import importlib
import pkgutil

import pytest

import mj_core.prims
from mj_core import lax, lax_linalg
from mj_core.extend import (
    FAMILIES,
    Primitive,
    abstract_eval_rules,
    family_of,
    family_primitives,
    impl_rules,
)

MODULES = {family: importlib.import_module(f"mj_core.prims.{family}") for family in FAMILIES}
CORE = [p for family in FAMILIES for p in family_primitives(family)]


def _primitives_defined_in(module):
    return {v for v in vars(module).values() if isinstance(v, Primitive)}


def test_the_catalogue_names_sixteen_distinct_families():
    assert len(FAMILIES) == len(set(FAMILIES)) == 16


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_is_a_module_of_prims_that_exports_its_primitives(family):
    module = MODULES[family]
    assert module.__file__.endswith(f"mj_core/prims/{family}.py")
    exported = [getattr(module, name) for name in module.__all__]
    assert family_primitives(family) == [v for v in exported if isinstance(v, Primitive)]
    assert family_primitives(family), f"family {family} has no primitive"


def test_no_primitive_of_a_family_module_is_left_out_of_the_catalogue():
    for module in MODULES.values():
        assert _primitives_defined_in(module) <= set(CORE), module.__name__


def test_prims_public_modules_are_the_families_and_it_has_no_flat_catalogue():
    """A primitive has one spelling, its family module's (``mj_core.prims.structural.
    reshape_p``): ``mj_core.prims`` itself holds no primitive and no extension name."""
    public = {i.name for i in pkgutil.iter_modules(mj_core.prims.__path__)}
    assert {name for name in public if not name.startswith("_")} == set(FAMILIES)
    assert not [v for v in vars(mj_core.prims).values() if isinstance(v, Primitive)]
    for name in ("sin_p", "reshape_p", "FftType", "elementwise_specs"):
        assert not hasattr(mj_core.prims, name), name
    with pytest.raises(ImportError):
        exec("from mj_core.prims import reshape_p")


def test_every_core_primitive_is_in_exactly_one_family():
    for prim in CORE:
        owners = [f for f, m in MODULES.items() if prim in {getattr(m, n) for n in m.__all__}]
        assert owners == [family_of(prim)], prim
    assert len(CORE) == len(set(CORE))
    with pytest.raises(KeyError, match="not a primitive of the mj-core catalogue"):
        family_of(Primitive("not_core"))
    with pytest.raises(KeyError, match="is not a family"):
        family_primitives("bessel")


@pytest.mark.parametrize("prim", CORE, ids=lambda p: p.name)
def test_every_core_primitive_has_an_impl_rule_and_one_typing_rule(prim):
    assert prim in impl_rules
    assert prim in abstract_eval_rules


def test_the_lax_namespaces_are_the_families_lax_api_each_name_defined_once():
    owners: dict[str, str] = {}
    for family, module in MODULES.items():
        for name in module.__all__:
            assert name not in owners, f"{name} is exported by {owners.get(name)} and {family}"
            owners[name] = family
    lax_families = {f for f in FAMILIES if f not in ("linalg", "callback")}
    assert set(lax.__all__) == {"linalg"} | {n for n, f in owners.items() if f in lax_families}
    assert set(lax_linalg.__all__) == {n for n, f in owners.items() if f == "linalg"}
    assert lax.linalg is lax_linalg
    for name in set(lax.__all__) - {"linalg"}:
        assert getattr(lax, name) is getattr(MODULES[owners[name]], name), name
