"""``mj.interpreters.partial_eval``: JAX's ``PartialVal`` (a known-or-unknown value) and
``trace_to_jaxpr_nounits``, which splits a function's outputs into those computable from its
known inputs alone (with their values) and those that need the unknown ones.

flax's ``lazy_init`` and lifted ``scan`` (``nn.scan``, ``nn.RNN``) use them to compute
variables without running the whole function.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["PartialVal", "trace_to_jaxpr_nounits"]


class PartialVal(tuple[Any, Any]):
    """``(aval, const)``: a known value has ``aval`` ``None`` and the value as ``const``; an
    unknown one has its abstract value and ``const`` ``None`` (JAX's convention)."""

    __slots__ = ()

    def __new__(cls, xs: tuple[Any, Any]) -> PartialVal:
        aval, const = xs
        if (aval is None) == (const is None) and const is not None:
            raise ValueError("PartialVal: exactly one of aval and const is given")
        return super().__new__(cls, (aval, const))

    @classmethod
    def known(cls, const: object) -> PartialVal:
        return cls((None, const))

    @classmethod
    def unknown(cls, aval: object) -> PartialVal:
        return cls((aval, None))

    def is_known(self) -> bool:
        return self[0] is None

    def get_known(self) -> Any:
        """The value if known, else ``None``."""
        return self[1] if self[0] is None else None

    def get_aval(self) -> Any:
        """The abstract value: the unknown's, or the known value's."""
        if self[0] is not None:
            return self[0]
        from mj_core.extend import get_aval

        return get_aval(self[1])


def trace_to_jaxpr_nounits(
    fun: Any, pvals: Sequence[PartialVal], instantiate: bool | Sequence[bool] = False
) -> tuple[Any, list[PartialVal], list[Any]]:
    """Trace ``fun`` (a :class:`mj.extend.linear_util.WrappedFun` of flat arguments) with
    the known ``pvals`` as values and the unknown ones abstract. Returns ``(jaxpr, out_pvals,
    consts)``: each output known (its value) when it depends on no unknown input, unknown
    (its abstract value) otherwise, as JAX's. ``instantiate=True`` makes every output unknown.

    Unlike JAX's, the jaxpr returned is the whole function's (over the unknown inputs), with
    its constants, not a jaxpr of the unknown part only."""
    import mj
    from mj.core import Literal
    from mj_ir.extend import dce_jaxpr, eval_jaxpr

    pvals = list(pvals)
    unknown_at = [i for i, pv in enumerate(pvals) if not pv.is_known()]

    def over_unknowns(*unknown_args: Any) -> Any:
        args = [pv.get_known() for pv in pvals]
        for i, arg in zip(unknown_at, unknown_args, strict=True):
            args[i] = arg
        return fun.call_wrapped(*args)

    structs = [
        mj.ShapeDtypeStruct(pvals[i][0].shape, pvals[i][0].dtype, pvals[i][0].weak_type)
        for i in unknown_at
    ]
    closed = mj.make_jaxpr(over_unknowns)(*structs)
    jaxpr = closed.jaxpr
    depends: set[int] = {id(v) for v in jaxpr.invars}
    for eqn in jaxpr.eqns:
        if any(not isinstance(v, Literal) and id(v) in depends for v in eqn.invars):
            depends.update(id(v) for v in eqn.outvars)
    n_out = len(jaxpr.outvars)
    forced = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    unknown_out = [
        force or (not isinstance(v, Literal) and id(v) in depends)
        for v, force in zip(jaxpr.outvars, forced, strict=True)
    ]
    # the known outputs, from only the equations they depend on (never the unknown inputs:
    # flax's lazy_init gives shapes whose arrays would not fit in memory)
    known = [not unknown for unknown in unknown_out]
    values: list[Any] = [None] * n_out
    if any(known):
        pruned, used = dce_jaxpr(jaxpr, known)
        binders = [*closed.consts, *[None] * len(structs)]
        computed = iter(eval_jaxpr(pruned, [b for b, u in zip(binders, used, strict=True) if u]))
        values = [next(computed) if k else None for k in known]
    out_pvals = [
        PartialVal.unknown(_aval_of(v)) if unknown else PartialVal.known(values[i])
        for i, (v, unknown) in enumerate(zip(jaxpr.outvars, unknown_out, strict=True))
    ]
    return jaxpr, out_pvals, list(closed.consts)


def _aval_of(atom: Any) -> Any:
    from mj_core.extend import ShapedArray, get_aval

    aval = getattr(atom, "aval", None)
    if aval is None:
        aval = get_aval(atom.val)
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)
