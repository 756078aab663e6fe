"""``config.debug_nans`` (and ``debug_infs``): find the primitive that produced a NaN (an
infinity) in a jit-compiled function.

When an executable's outputs contain a NaN and ``debug_nans`` is on, the function's jaxpr is
re-run op by op on the host (NumPy impl rules) with every primitive's outputs checked, and the
first primitive that turns NaN-free inputs into a NaN is named in a ``FloatingPointError``
(like ``jax_debug_nans``); ``debug_infs`` does the same for infinities.

The re-run is an interpreter installed as the *dynamic* trace, so every primitive bound while
it is active reaches it, including those bound by the impl rules of higher-order primitives
(``cond``/``while``/``scan`` evaluate their sub-jaxprs through ``bind``): the check descends
into control flow without knowing its primitives. ``xla_call`` is the one primitive it opens
itself (through ``nan_check_rules``), so that nested jits are checked op by op rather than run
compiled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import (
    MainTrace,
    Primitive,
    RuleTable,
    ShapedArray,
    Trace,
    Tracer,
    get_aval,
    impl_rules,
    new_dynamic,
    new_main,
    raise_to_shaped,
)
from mj_core.errors import user_location
from mj_core.extend import special_value
from mj_ir import ClosedJaxpr, Jaxpr, eval_jaxpr

__all__ = ["check_outputs", "nan_check_rules"]

NanCheckRule = Callable[..., list[Any]]
nan_check_rules: RuleTable[NanCheckRule] = RuleTable(
    "nan_check_rules",
    "debug_nans checking",
    "mj_xla.extend",
    default="the checking interpreter applies its impl rule and checks the outputs",
)
"""How the checking interpreter evaluates a primitive instead of its impl rule:
``rule(*vals, **params) -> outs``, binding what it wants checked (``xla_call`` evaluates its
jaxpr)."""


class _NanCheckTracer(Tracer):
    """A concrete value seen by the checking interpreter; lowers to the value itself."""

    __slots__ = ("val",)

    def __init__(self, trace: Trace, val: Any) -> None:
        self._trace = trace
        self.val = val

    @property
    def aval(self) -> ShapedArray:
        return raise_to_shaped(get_aval(self.val))

    def full_lower(self) -> Any:
        return self.val


class _NanCheckTrace(Trace):
    """Applies each primitive's impl rule and raises on the first NaN it creates."""

    __slots__ = ()
    transformation_name = "debug_nans"

    def pure(self, val: Any) -> Any:
        return _NanCheckTracer(self, val)

    lift = pure

    def process_primitive(
        self, primitive: Primitive, tracers: list[Any], params: dict[str, Any]
    ) -> list[Any]:
        vals = [t.val for t in tracers]
        rule = nan_check_rules.get(primitive) or impl_rules[primitive]
        outs = rule(*vals, **params)
        for o in outs:
            found = special_value(o)
            if found is not None and not any(special_value(v) == found for v in vals):
                raise _nan_error(primitive, vals, params, found)
        return [_NanCheckTracer(self, o) for o in outs]


def _nan_error(
    primitive: Primitive, vals: Sequence[Any], params: dict[str, Any], found: str
) -> Exception:
    ins = ", ".join(raise_to_shaped(get_aval(v)).str_short() for v in vals)
    shown = {k: v for k, v in params.items() if not isinstance(v, Jaxpr | ClosedJaxpr)}
    param_str = f" with {shown}" if shown else ""
    return FloatingPointError(
        f"invalid value ({found}) encountered in {primitive.name} (operands {ins}{param_str}), "
        f"found by debug_{found}s re-running the jit-compiled function op by op{_where()}"
    )


def _where() -> str:
    where = user_location()
    return f"; called {where}" if where else ""


def check_outputs(
    outs: Sequence[Any], jaxpr: Jaxpr, known: Sequence[Any], args: Sequence[Any], name: str
) -> None:
    """Raise ``FloatingPointError`` if ``outs`` hold a NaN (an infinity under ``debug_infs``),
    naming the primitive that made it.

    ``jaxpr`` is the compiled jaxpr, ``known`` the values of its leading (constant) binders,
    ``args`` the host or device values of the remaining ones.
    """
    found = next((f for f in map(special_value, outs) if f is not None), None)
    if found is None:
        return
    host_args = [np.asarray(a) for a in args]
    with np.errstate(all="ignore"), new_main(_NanCheckTrace) as main:
        _run_checked(main, jaxpr, [*known, *host_args])
    bad = [i for i, a in enumerate(host_args) if special_value(a) == found]
    what = "a NaN" if found == "nan" else "an infinity"
    if bad:
        raise FloatingPointError(
            f"invalid value ({found}) in the output of the jit-compiled function {name}: it was "
            f"passed in (flat argument{'s' if len(bad) > 1 else ''} "
            f"{', '.join(map(str, bad))} hold{'' if len(bad) > 1 else 's'} {what}), no "
            f"primitive created it{_where()}"
        )
    raise FloatingPointError(
        f"invalid value ({found}) in the output of the jit-compiled function {name}, but running "
        "it op by op produced none: XLA's optimized code differs from the step-by-step "
        f"evaluation here{_where()}"
    )


def _run_checked(main: MainTrace, jaxpr: Jaxpr, args: list[Any]) -> None:
    with new_dynamic(main):
        eval_jaxpr(jaxpr, args)
