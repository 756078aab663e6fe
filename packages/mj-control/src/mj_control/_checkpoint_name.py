"""``checkpoint_name``: tag a value so that a checkpoint policy can choose to save it.

The ``name`` primitive is the identity; its only job is to appear in the jaxpr (with its
``name`` param) where :mod:`~mj_control._checkpoint_policies` policies such as
``save_only_these_names`` can see it. Every transformation keeps the tag on the primal value
and passes tangents, batch dims and cotangents through untouched (JAX's ``name_p``).
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

from mj_autodiff.extend import jvp_rules, transpose_rules
from mj_batch.extend import BatchDim, vmap_rules
from mj_core import Primitive, ShapedArray, bind1, impl_rules
from mj_core.errors import user_line_suffix
from mj_core.tree_util import tree_map
from mj_ir import abstract_eval_rules
from mj_xla.extend import LoweringContext, Value, lowering_rules

__all__ = ["checkpoint_name", "name_p"]

name_p = Primitive("name")

_T = TypeVar("_T")


def checkpoint_name(x: _T, name: str) -> _T:
    """``x`` unchanged (every leaf of a pytree), tagged ``name`` for checkpoint policies.

    Example::

        >>> y = checkpoint_name(mnp.sin(x), "hidden")
        >>> f = checkpoint(g, policy=checkpoint_policies.save_only_these_names("hidden"))
    """
    if type(name) is not str:  # a runtime check: callers may ignore the annotation
        where = user_line_suffix()
        raise TypeError(
            f"checkpoint_name: name must be a str, got {type(name).__name__} {name!r}{where}"
        )
    return cast(_T, tree_map(lambda leaf: bind1(name_p, leaf, name=name), x))


def _name_impl(x: object, *, name: str) -> list[Any]:
    return [x]


impl_rules[name_p] = _name_impl


def _name_abstract_eval(x: ShapedArray, *, name: str) -> list[ShapedArray]:
    return [x]


abstract_eval_rules[name_p] = _name_abstract_eval


def _name_jvp(primals: list[Any], tangents: list[Any], *, name: str) -> tuple[list[Any], list[Any]]:
    """The primal keeps its tag (a policy may save it); the tangent is not tagged."""
    (x,), (t,) = primals, tangents
    return [bind1(name_p, x, name=name)], [t]


jvp_rules[name_p] = _name_jvp


def _name_transpose(cts: list[Any], x: object, *, name: str) -> list[Any]:
    return [cts[0]]


transpose_rules[name_p] = _name_transpose


def _name_vmap(
    axis_size: int, vals_in: list[Any], dims_in: list[BatchDim], *, name: str
) -> tuple[list[Any], list[BatchDim]]:
    return [bind1(name_p, vals_in[0], name=name)], [dims_in[0]]


vmap_rules[name_p] = _name_vmap


def _name_lowering(
    ctx: LoweringContext,
    avals_in: list[ShapedArray],
    avals_out: list[ShapedArray],
    in_vals: list[Value],
    *,
    name: str,
) -> list[Value]:
    return [in_vals[0]]


lowering_rules[name_p] = _name_lowering
