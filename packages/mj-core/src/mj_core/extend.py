"""The extension API of mj-core: what a new primitive or a higher layer builds on.

``mj_core``'s ``__init__`` is the user API; this module is the whole extension surface
(``Primitive``, ``bind``, the rule tables, the interpreter stack, the family catalogue and the
typing alias). Other layers import mj-core only through ``mj_core``, this module and the
public namespaces (``mj_core.numpy``, ``mj_core.lax``, ``mj_core.tree_util``,
``mj_core.dtypes``, ``mj_core.errors``, ``mj_core.prims``).
"""

from mj_core._families import FAMILIES as FAMILIES
from mj_core._typing import Array as Array
from mj_core.avals import ConcreteArray as ConcreteArray
from mj_core.avals import ShapedArray as ShapedArray
from mj_core.avals import get_aval as get_aval
from mj_core.avals import raise_to_shaped as raise_to_shaped
from mj_core.primitive import Primitive as Primitive
from mj_core.primitive import RuleTable as RuleTable
from mj_core.primitive import impl_rules as impl_rules
from mj_core.trace import EvalTrace as EvalTrace
from mj_core.trace import MainTrace as MainTrace
from mj_core.trace import Trace as Trace
from mj_core.trace import Tracer as Tracer
from mj_core.trace import bind as bind
from mj_core.trace import bind1 as bind1
from mj_core.trace import find_top_trace as find_top_trace
from mj_core.trace import full_lower as full_lower
from mj_core.trace import full_raise as full_raise
from mj_core.trace import new_dynamic as new_dynamic
from mj_core.trace import new_main as new_main
