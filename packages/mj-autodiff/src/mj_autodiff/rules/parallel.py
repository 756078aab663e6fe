"""JVP and transpose rules of the collectives.

``psum``, ``all_gather``, ``psum_scatter``, ``all_to_all`` and ``ppermute`` are linear: their
JVP is the collective applied to the tangents, and their transposes are collectives too:
``psum``'s is ``psum`` (each index's cotangent is the sum of every index's), ``all_gather``
and ``psum_scatter`` transpose to each other, ``all_to_all`` to the one with the split and
concat axes swapped, and ``ppermute`` to the inverse permutation. ``pmax``/``pmin`` split
the tangent evenly between the tied indices, as ``reduce_max`` does. ``axis_index`` is an
integer: its tangent is zero.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mj_autodiff._derivatives import Linear, derivative_kinds
from mj_autodiff._jvp import jvp_rules
from mj_autodiff._tangents import Tangent, Zero, tangent_aval, tangent_aval_of
from mj_autodiff._transpose import Operand, UndefPrimal, transpose_rules
from mj_core import lax
from mj_core.extend import Primitive
from mj_core.prims.parallel import (
    AxisName,
    Groups,
    all_gather_p,
    all_to_all_p,
    axis_index_p,
    bind_collective,
    pmax_p,
    pmin_p,
    ppermute_p,
    psum_p,
    reduce_scatter_p,
)

__all__: list[str] = []


def _groups(axis_index_groups: Groups | None) -> dict[str, Groups]:
    return {} if axis_index_groups is None else {"axis_index_groups": axis_index_groups}


def _nonzero(prim: Primitive, tangents: Sequence[Tangent], **params: object) -> list[Tangent]:
    """``prim`` (multiple results, one per operand) applied to the non-zero ``tangents``;
    the zero ones stay symbolic zeros."""
    live = [t for t in tangents if type(t) is not Zero]
    outs = iter(bind_collective(prim, *live, **params) if live else [])
    return [t if type(t) is Zero else next(outs) for t in tangents]


# --- psum (linear; its own transpose) ---------------------------------------------------------


def _psum_jvp(
    primals: list[Any],
    tangents: list[Any],
    *,
    axis_name: AxisName,
    axis_index_groups: Groups | None = None,
) -> tuple[list[Any], list[Any]]:
    params = {"axis_name": axis_name, **_groups(axis_index_groups)}
    outs = bind_collective(psum_p, *primals, **params)
    return outs, _nonzero(psum_p, tangents, **params)


def _psum_transpose(
    cts: list[Any], *invals: Operand, axis_name: AxisName, axis_index_groups: Groups | None = None
) -> list[Any]:
    params = {"axis_name": axis_name, **_groups(axis_index_groups)}
    summed = _nonzero(psum_p, cts, **params)
    return [
        (ct if type(ct) is not Zero else Zero(tangent_aval(x.aval)))
        if type(x) is UndefPrimal
        else None
        for x, ct in zip(invals, summed, strict=True)
    ]


jvp_rules[psum_p] = _psum_jvp
transpose_rules[psum_p] = _psum_transpose
derivative_kinds[psum_p] = Linear()


# --- pmax, pmin -------------------------------------------------------------------------------


def _extremum_jvp(prim: Primitive) -> Callable[..., tuple[list[Any], list[Any]]]:
    def rule(
        primals: list[Any],
        tangents: list[Any],
        *,
        axis_name: AxisName,
        axis_index_groups: Groups | None = None,
    ) -> tuple[list[Any], list[Any]]:
        params = {"axis_name": axis_name, **_groups(axis_index_groups)}
        outs = bind_collective(prim, *primals, **params)
        tangents_out: list[Any] = []  # arrays and Zeros
        for x, ans, t in zip(primals, outs, tangents, strict=True):
            if type(t) is Zero:
                tangents_out.append(Zero(tangent_aval_of(ans)))
                continue
            at_extremum = lax.convert_element_type(lax.eq(x, ans), t.dtype)
            count, total = bind_collective(psum_p, at_extremum, lax.mul(t, at_extremum), **params)
            tangents_out.append(lax.div(total, count))
        return outs, tangents_out

    rule.__name__ = f"_{prim.name}_jvp"
    return rule


jvp_rules[pmax_p] = _extremum_jvp(pmax_p)
jvp_rules[pmin_p] = _extremum_jvp(pmin_p)


# --- all_gather <-> reduce_scatter, all_to_all, ppermute (linear) -----------------------------


def _linear_jvp(prim: Primitive) -> Callable[..., tuple[list[Any], list[Any]]]:
    """The JVP of a linear single-operand collective: itself, on the tangent."""

    def rule(
        primals: list[Any], tangents: list[Any], **params: object
    ) -> tuple[list[Any], list[Any]]:
        (out,) = bind_collective(prim, *primals, **params)
        (t,) = tangents
        if type(t) is Zero:
            return [out], [Zero(tangent_aval_of(out))]
        return [out], bind_collective(prim, t, **params)

    rule.__name__ = f"_{prim.name}_jvp"
    return rule


def _transpose_to(
    dual: Primitive, rewrite: Callable[[dict[str, Any]], dict[str, Any]]
) -> Callable[..., list[Any]]:
    """The transpose of a linear collective: its dual collective on the cotangent, with the
    params ``rewrite`` maps its own to (``all_gather`` <-> ``reduce_scatter``, ``all_to_all``
    with its axes swapped, ``ppermute`` with the inverse permutation)."""

    def rule(cts: list[Any], x: UndefPrimal, **params: Any) -> list[Any]:
        (ct,) = cts
        if type(ct) is Zero:
            return [Zero(tangent_aval(x.aval))]
        groups = _groups(params.pop("axis_index_groups", None))
        return bind_collective(dual, ct, **rewrite(params), **groups)

    return rule


def _renamed(old: str, new: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda params: {new if k == old else k: v for k, v in params.items()}


def _axes_swapped(params: dict[str, Any]) -> dict[str, Any]:
    return {**params, "split_axis": params["concat_axis"], "concat_axis": params["split_axis"]}


def _perm_inverted(params: dict[str, Any]) -> dict[str, Any]:
    return {**params, "perm": tuple((dst, src) for src, dst in params["perm"])}


for _prim, _transpose in (
    (
        all_gather_p,
        _transpose_to(reduce_scatter_p, _renamed("all_gather_dimension", "scatter_dimension")),
    ),
    (
        reduce_scatter_p,
        _transpose_to(all_gather_p, _renamed("scatter_dimension", "all_gather_dimension")),
    ),
    (all_to_all_p, _transpose_to(all_to_all_p, _axes_swapped)),
    (ppermute_p, _transpose_to(ppermute_p, _perm_inverted)),
):
    jvp_rules[_prim] = _linear_jvp(_prim)
    transpose_rules[_prim] = _transpose
    derivative_kinds[_prim] = Linear()


# --- axis_index (an integer: zero tangent) ----------------------------------------------------


def _axis_index_jvp(
    primals: list[Any], tangents: list[Any], *, axis_name: AxisName
) -> tuple[list[Any], list[Any]]:
    outs = bind_collective(axis_index_p, axis_name=axis_name)
    return outs, [Zero(tangent_aval_of(o)) for o in outs]


jvp_rules[axis_index_p] = _axis_index_jvp
