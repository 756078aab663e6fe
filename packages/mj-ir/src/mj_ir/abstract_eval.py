"""Abstract-eval (typing) rules: what each primitive returns, given only shapes and dtypes.

``rule(*avals, **params) -> list[ShapedArray]``. The shape/dtype logic itself lives in
mj_core next to each primitive (the impl rules use the same functions to report errors), so
eager evaluation and jaxprs can never disagree; the rules here only adapt it to the table.
"""

from __future__ import annotations

from typing import Any

from mj_core import RuleTable, ShapedArray
from mj_core.prims import elementwise_out_aval, elementwise_specs, out_aval_rules
from mj_core.primitive import Primitive

__all__ = ["abstract_eval_rules"]

abstract_eval_rules = RuleTable("abstract_eval_rules", "abstract evaluation", "mj_ir")


def _elementwise_rule(prim: Primitive) -> Any:
    def rule(*avals: ShapedArray, **params: Any) -> list[ShapedArray]:
        return [elementwise_out_aval(prim, avals)]

    rule.__name__ = f"{prim.name}_abstract_eval"
    return rule


for _prim in elementwise_specs:
    abstract_eval_rules[_prim] = _elementwise_rule(_prim)


# Every other core primitive is typed by its rule in mj_core.prims.out_aval_rules, the same
# function its impl rule checks operands with: registering it here (not a copy) is what keeps
# eager evaluation and jaxprs in agreement.
for _prim, _rule in out_aval_rules.items():
    abstract_eval_rules[_prim] = _rule
