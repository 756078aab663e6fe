"""The family catalogue in mj-xla: ``mj_xla/rules`` has one file per family of
``mj_core.extend.FAMILIES``, and the lowering rule of every core primitive is registered from
the file of the family whose ``mj_core/prims/<family>.py`` defines it."""

import importlib
from pathlib import Path

import numpy as np
import pytest

import mj_xla.rules
from mj_core import MissingRuleError, Primitive, bind1, impl_rules
from mj_core.extend import FAMILIES, family_primitives
from mj_ir import abstract_eval_rules
from mj_xla import jit
from mj_xla.extend import lowering_rules
from mj_xla.rules import registered_in

CASES = [(family, prim) for family in FAMILIES for prim in family_primitives(family)]


def test_rules_has_exactly_one_file_per_family():
    files = {p.stem for p in Path(mj_xla.rules.__file__).parent.glob("*.py")}
    assert files == {"__init__", *FAMILIES}
    for family in FAMILIES:
        assert importlib.import_module(f"mj_xla.rules.{family}").__doc__


@pytest.mark.parametrize(("family", "prim"), CASES, ids=[f"{f}-{p.name}" for f, p in CASES])
def test_rule_is_registered_from_its_family_file(family, prim):
    assert registered_in.get(prim) == family
    module = lowering_rules[prim].__module__
    # A rule written in a family file carries that file's module; one built by the shared
    # helper register_elementwise carries the helper's.
    assert module in (f"mj_xla.rules.{family}", "mj_xla._promotion"), module


def test_family_files_register_only_core_primitives_of_their_family():
    assert registered_in == {prim: family for family, prim in CASES}


def test_a_primitive_without_a_rule_raises_the_missing_rule_error_under_jit():
    double_p = Primitive("double_without_lowering")
    impl_rules[double_p] = lambda x: [2 * x]
    abstract_eval_rules[double_p] = lambda aval: [aval]
    with pytest.raises(MissingRuleError, match=r"'double_without_lowering'.*mj_xla\.extend"):
        jit(lambda x: bind1(double_p, x))(np.arange(3.0))
