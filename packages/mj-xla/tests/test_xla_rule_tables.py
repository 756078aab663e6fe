"""Every registered primitive has a rule in every table (this test is the layers' checklist:
it only passes once every layer has registered its rules)."""

import pytest

import mj_xla
from mj_autodiff.extend import jvp_rules, transpose_rules
from mj_batch.extend import vmap_rules
from mj_core import impl_rules
from mj_core.extend import FAMILIES, family_primitives
from mj_ir import abstract_eval_rules
from mj_xla.extend import lowering_rules, xla_call_p

CATALOGUE = sorted(
    {p for family in FAMILIES for p in family_primitives(family)} | {xla_call_p},
    key=lambda p: p.name,
)
LINEAR = {
    "neg", "add", "sub", "mul", "div", "select_n", "convert_element_type", "reduce_sum",
    "cumsum", "broadcast", "reshape", "transpose", "squeeze", "rev", "concatenate", "pad",
    "slice", "dynamic_slice", "dynamic_update_slice", "gather", "scatter_add", "dot_general",
    "xla_call", "conv_general_dilated", "real", "imag", "conj", "complex", "fft",
    "triangular_solve",
}  # fmt: skip
TABLES = {
    "impl": impl_rules,
    "abstract_eval": abstract_eval_rules,
    "jvp": jvp_rules,
    "vmap": vmap_rules,
    "lowering": lowering_rules,
}


def test_catalogue_is_complete():
    names = {p.name for p in CATALOGUE}
    assert {"add", "dot_general", "gather", "scatter_add", "sort", "xla_call"} <= names
    assert mj_xla.extend.xla_call_p in CATALOGUE


# iota takes no operands, so it can never see a batched value: like JAX, it has no batching
# rule (mj-batch's test_iota_inside_vmap_is_shared_by_every_example covers vmap over it).
NOT_NEEDED = {("iota", "vmap")}


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("prim", CATALOGUE, ids=lambda p: p.name)
def test_every_primitive_has_a_rule(prim, table):
    if (prim.name, table) in NOT_NEEDED:
        assert prim not in TABLES[table], f"{prim.name} has a {table} rule: drop NOT_NEEDED"
        return
    assert prim in TABLES[table], f"{prim.name} has no {table} rule"


@pytest.mark.parametrize("prim", [p for p in CATALOGUE if p.name in LINEAR], ids=lambda p: p.name)
def test_linear_primitives_have_a_transpose_rule(prim):
    assert prim in transpose_rules, f"{prim.name} has no transpose rule"
