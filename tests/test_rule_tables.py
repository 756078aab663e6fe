"""Every table keyed by primitive, in every layer, is a ``RuleTable``: required (every primitive
reaching the interpretation needs a rule) or an optional hook (a ``default`` behaviour for a
primitive without an entry), as docs/architecture.md lists them; a missing entry raises
``MissingRuleError`` saying where to register it either way."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

import mj  # noqa: F401  (every layer's rules registered)
from mj_core import MissingRuleError, Primitive, RuleTable
from mj_core.extend import impl_rules

EXTEND_MODULES = [
    "mj_core.extend",
    "mj_ir.extend",
    "mj_autodiff.extend",
    "mj_batch.extend",
    "mj_xla.extend",
    "mj_control.extend",
]
ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _exported_tables() -> dict[str, Any]:
    """Every dict the extend modules export whose keys are primitives, by name."""
    found: dict[str, Any] = {}
    for module in EXTEND_MODULES:
        for name, value in vars(importlib.import_module(module)).items():
            if name.startswith("_") or not isinstance(value, dict):
                continue
            if name == "platform_lowering_rules" or any(isinstance(k, Primitive) for k in value):
                found[name] = value
    return found


def _doc_table_names(heading: str, first_header: str) -> list[str]:
    """The first column (backticked names) of the table under ``heading`` whose first header
    cell is ``first_header``."""
    text = ARCHITECTURE.read_text()
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = section.split(f"| {first_header} |", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    return [re.findall(r"`([^`]+)`", row.split("|")[1])[0] for row in rows]


def test_every_primitive_keyed_table_is_a_rule_table() -> None:
    tables = _exported_tables()
    # the tables the issue named, plus the required ones (a plain dict here would fail)
    for name in [
        "impl_rules",
        "abstract_eval_rules",
        "jvp_rules",
        "transpose_rules",
        "vmap_rules",
        "lowering_rules",
        "derivative_kinds",
        "elementwise_specs",
        "pp_rules",
        "nan_check_rules",
        "vma_rules",
    ]:
        assert name in tables, name
    for name, table in tables.items():
        if name == "platform_lowering_rules":
            assert table, "the linalg family registers per-platform rules"
            for platform, per_platform in table.items():
                assert isinstance(per_platform, RuleTable), platform
                assert per_platform.optional
        else:
            assert isinstance(table, RuleTable), name
    assert isinstance(impl_rules._shortcuts, RuleTable)
    assert impl_rules._shortcuts.optional


def test_architecture_page_lists_required_tables_and_hooks() -> None:
    tables = _exported_tables()
    required = {n for n, t in tables.items() if isinstance(t, RuleTable) and not t.optional}
    optional = {n for n, t in tables.items() if isinstance(t, RuleTable) and t.optional}
    optional.add("platform_lowering_rules[platform]")
    heading = "Rules live with the interpretation"
    assert set(_doc_table_names(heading, "table")) == required
    hooks = _doc_table_names(heading, "hook")
    assert set(hooks) - {"impl_rules.register_ufunc"} == optional
    assert "impl_rules.register_ufunc" in hooks


def _fresh() -> Primitive:
    return Primitive("my_unregistered_op")


def test_required_table_missing_rule_says_where_to_register() -> None:
    for table in [impl_rules, _exported_tables()["vmap_rules"]]:
        with pytest.raises(MissingRuleError, match=r"my_unregistered_op") as err:
            table[_fresh()]
        msg = str(err.value)
        assert f"register one in {table.module}.{table.name}[my_unregistered_op_p]" in msg
        assert "optional" not in msg


@pytest.mark.parametrize(
    "name",
    [
        "derivative_kinds",
        "elementwise_specs",
        "pp_rules",
        "nan_check_rules",
        "vma_rules",
        "partial_eval_rules",
        "partial_eval_jaxpr_rules",
    ],
)
def test_optional_hook_missing_entry_names_its_default(name: str) -> None:
    table = _exported_tables()[name]
    prim = _fresh()
    assert table.get(prim) is None
    assert prim not in table
    assert isinstance(table.default, str)
    assert table.default
    with pytest.raises(MissingRuleError) as err:
        table[prim]
    msg = str(err.value)
    assert "'my_unregistered_op'" in msg
    assert "optional" in msg
    assert table.default in msg
    assert f"{table.module}.{table.name}[my_unregistered_op_p]" in msg
    assert "optional" in repr(table)


def test_impl_shortcut_hook_names_its_registration_function() -> None:
    with pytest.raises(MissingRuleError) as err:
        impl_rules._shortcuts[_fresh()]
    msg = str(err.value)
    assert "mj_core.impl_rules.register_ufunc(my_unregistered_op_p, nin, ufunc)" in msg
    assert "impl rule" in msg


def test_platform_lowering_table_is_a_hook_naming_register_lowering() -> None:
    from mj_xla.extend import platform_lowering_rules, register_lowering

    prim = Primitive("my_cpu_only_op")

    def rule(ctx: Any, avals_in: Any, avals_out: Any, in_vals: Any) -> list[Any]:
        return list(in_vals)

    register_lowering(prim, rule, platform="cpu")
    try:
        cpu = platform_lowering_rules["cpu"]
        assert isinstance(cpu, RuleTable)
        assert cpu[prim] is rule
        with pytest.raises(MissingRuleError) as err:
            cpu[_fresh()]
        msg = str(err.value)
        assert "register_lowering(my_unregistered_op_p, rule, platform='cpu')" in msg
        assert "lowering_rules" in msg  # the default
    finally:
        platform_lowering_rules["cpu"].pop(prim, None)
        _exported_tables()["lowering_rules"].pop(prim, None)
