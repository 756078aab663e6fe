"""Abstract-eval (typing) rules: what each primitive returns, given only shapes and dtypes.

``rule(*avals, **params) -> list[ShapedArray]``. The shape/dtype logic itself lives in
mj_core next to each primitive (the impl rules use the same functions to report errors), so
eager evaluation and jaxprs can never disagree; the rules here only adapt it to the table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mj_core import RuleTable, ShapedArray
from mj_core.primitive import Primitive
from mj_core.prims import elementwise_out_aval, elementwise_specs, out_aval_rules

__all__ = ["abstract_eval_rules"]

abstract_eval_rules = RuleTable("abstract_eval_rules", "abstract evaluation", "mj_ir")


#: Distinct input-type combinations memoised per elementwise primitive before the memo resets.
_MEMO_LIMIT = 4096


def _elementwise_rule(prim: Primitive) -> Callable[..., list[ShapedArray]]:
    # Tracing applies the same few type combinations over and over, and the NEP 50 promotion
    # behind elementwise_out_aval costs microseconds: remember its answers (the output type
    # does not depend on params). Only plain ShapedArrays are remembered: a ConcreteArray
    # hashes by identity and would pin its value.
    memo: dict[tuple[ShapedArray, ...], ShapedArray] = {}

    def rule(*avals: ShapedArray, **params: Any) -> list[ShapedArray]:
        out = memo.get(avals)
        if out is None:
            out = elementwise_out_aval(prim, avals)
            if all(type(a) is ShapedArray for a in avals):
                if len(memo) >= _MEMO_LIMIT:
                    memo.clear()
                memo[avals] = out
        return [out]

    rule.__name__ = f"{prim.name}_abstract_eval"
    return rule


for _prim in elementwise_specs:
    abstract_eval_rules[_prim] = _elementwise_rule(_prim)


# Every other core primitive is typed by its rule in mj_core.prims.out_aval_rules, the same
# function its impl rule checks operands with: registering it here (not a copy) is what keeps
# eager evaluation and jaxprs in agreement.
for _prim, _rule in out_aval_rules.items():
    abstract_eval_rules[_prim] = _rule
