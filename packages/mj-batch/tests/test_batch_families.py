"""The family catalogue in mj-batch: ``mj_batch/rules`` has one file per family of
``mj_core.extend.FAMILIES``, and the batching rule of every core primitive is registered from
the file of the family whose ``mj_core/prims/<family>.py`` defines it."""

import importlib
from pathlib import Path

import numpy as np
import pytest

import mj_batch.rules
from mj_batch import vmap
from mj_batch.extend import vmap_rules
from mj_batch.rules import registered_in
from mj_core import MissingRuleError, Primitive, bind1, impl_rules
from mj_core.extend import FAMILIES, family_primitives

# iota takes no operands, so it never sees a batched value: like JAX, it has no batching rule.
NO_RULE = {"iota"}


CASES = [(family, prim) for family in FAMILIES for prim in family_primitives(family)]


def test_rules_has_exactly_one_file_per_family():
    files = {p.stem for p in Path(mj_batch.rules.__file__).parent.glob("*.py")}
    assert files == {"__init__", *FAMILIES}
    for family in FAMILIES:
        assert importlib.import_module(f"mj_batch.rules.{family}").__doc__


@pytest.mark.parametrize(("family", "prim"), CASES, ids=[f"{f}-{p.name}" for f, p in CASES])
def test_rule_is_registered_from_its_family_file(family, prim):
    if prim.name in NO_RULE:
        assert prim not in registered_in
        with pytest.raises(MissingRuleError, match=rf"'{prim.name}'.*mj_batch\.extend\.vmap_rules"):
            vmap_rules[prim]
        return
    assert registered_in.get(prim) == family
    module = vmap_rules[prim].__module__
    # A rule written in a family file carries that file's module; one built by a shared
    # helper (defvectorized, defbroadcasting) carries the helper's.
    assert module in (f"mj_batch.rules.{family}", "mj_batch._batching"), module


def test_family_files_register_only_core_primitives_of_their_family():
    expected = {prim: family for family, prim in CASES if prim.name not in NO_RULE}
    assert registered_in == expected


def test_a_primitive_without_a_rule_raises_the_missing_rule_error_under_vmap():
    double_p = Primitive("double_without_vmap_rule")
    impl_rules[double_p] = lambda x: [2 * x]
    with pytest.raises(MissingRuleError, match=r"'double_without_vmap_rule'.*vmap \(batching\)"):
        vmap(lambda x: bind1(double_p, x))(np.arange(3.0))
