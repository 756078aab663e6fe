"""TRANSITIONAL: the typing rules are in the one table ``abstract_eval_rules``
(:mod:`mj_core.extend`), written by each family; ``out_aval_rules`` is that same table."""

from mj_core.primitive import abstract_eval_rules as out_aval_rules

__all__ = ["out_aval_rules"]
