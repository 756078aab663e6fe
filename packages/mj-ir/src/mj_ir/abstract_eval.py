"""TRANSITIONAL: the typing rules are written once, by each core family, in mj-core's table
(``mj_core.extend.abstract_eval_rules``); mj-ir exposes that same dict as
``mj_ir.abstract_eval_rules``. This old path re-exports it until its importers move."""

from mj_core.extend import abstract_eval_rules as abstract_eval_rules
