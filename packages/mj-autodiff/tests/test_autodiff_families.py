"""The rules follow the family catalogue: ``mj_autodiff/rules/<family>.py`` exists for exactly
the families of ``FAMILIES``, importing it registers the rules of exactly the core primitives
that ``mj_core/prims/<family>.py`` defines (every one with a JVP rule gets it there), and every
core primitive has a JVP rule or raises the missing-rule error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mj_autodiff.rules
from mj_autodiff.extend import jvp_rules
from mj_core import Primitive
from mj_core.errors import MissingRuleError
from mj_core.extend import FAMILIES, family_primitives


def core_primitives(family: str) -> set[Primitive]:
    """The primitives of ``family`` (the ``__all__`` of ``mj_core/prims/<family>.py``)."""
    return set(family_primitives(family))


def test_one_rules_module_per_family() -> None:
    rules_dir = Path(mj_autodiff.rules.__file__).parent
    assert {p.stem for p in rules_dir.glob("*.py")} - {"__init__"} == set(FAMILIES)


# Registers each family's module again into emptied tables and reports what it registered:
# in a child process, so this test's interpreter keeps its tables and modules untouched.
_WHAT_EACH_FAMILY_REGISTERS = """
import importlib, json
import mj_autodiff
from mj_autodiff.extend import derivative_kinds, jvp_rules, transpose_rules
from mj_core.extend import FAMILIES, family_primitives

tables = {"jvp": jvp_rules, "transpose": transpose_rules, "kind": derivative_kinds}
registered = {}
for family in FAMILIES:
    module = importlib.import_module(f"mj_autodiff.rules.{family}")
    for table in tables.values():
        table.clear()
    importlib.reload(module)
    registered[family] = {name: sorted(p.name for p in t) for name, t in tables.items()}
print(json.dumps(registered))
"""


@pytest.fixture(scope="module")
def registered_by_family() -> dict[str, dict[str, list[str]]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", _WHAT_EACH_FAMILY_REGISTERS],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    result: dict[str, dict[str, list[str]]] = json.loads(out)
    return result


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_module_registers_the_rules_of_its_core_primitives(
    family: str, registered_by_family: dict[str, dict[str, list[str]]]
) -> None:
    prims = core_primitives(family)
    assert prims, f"mj_core.prims.{family} defines no primitive"
    names = {p.name for p in prims}
    registered = registered_by_family[family]
    # every core primitive of the family with a JVP rule has it from rules/<family>.py ...
    assert set(registered["jvp"]) == {p.name for p in prims if p in jvp_rules}
    # ... and the module registers nothing for primitives of other families
    assert set(registered["transpose"]) <= names
    assert set(registered["kind"]) <= names


@pytest.mark.parametrize("family", FAMILIES)
def test_every_core_primitive_has_a_jvp_rule_or_the_missing_rule_error(family: str) -> None:
    for prim in core_primitives(family):
        if prim in jvp_rules:
            assert callable(jvp_rules[prim])
        else:
            with pytest.raises(MissingRuleError, match=f"'{prim.name}' has no jvp"):
                jvp_rules[prim]


def test_a_primitive_without_a_rule_raises_the_missing_rule_error() -> None:
    with pytest.raises(MissingRuleError, match=r"'no_rule_yet' has no jvp.*jvp_rules"):
        jvp_rules[Primitive("no_rule_yet")]
